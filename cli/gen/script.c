/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * script.c - scripted scenarios: a scenario file whose groups list the
 * frames one by one, for fixtures that must stay byte-for-byte the same
 * (the sample captures, the plugin's test captures).
 *
 *   [template v4]            fields shared by frames (base = OTHER chains)
 *   version = v2
 *   src-ip = 192.168.10.1
 *   [frame 1]                one frame (or repeat = N), in file order
 *   template = v4
 *   opcode = RC_RDMA_WRITE_FIRST
 *   psn = 100
 *   gap = 2us                time since the previous frame
 *
 * Every frame starts from roce_frame_spec_init(), then its templates (the
 * outermost first), then its own keys; it is built by roce_build() (or
 * roce_build_pfc()/roce_build_pause() with kind = pfc / pause).  Byte
 * edits for malformed-frame fixtures (set / xor at an offset, a shorter
 * caplen) are applied to the built frame; nothing is re-encoded here.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include <roce/buf.h>
#include <roce/build.h>
#include <roce/opcode.h>
#include <roce/pkt.h>

#include "gen.h"
#include "opts.h"
#include "script.h"

#define RG_MAX_EDITS 8

/* One key = value of a frame, kept with its line for messages. */
struct kv {
	char *key, *val;
	unsigned line;
};

struct step {
	char *name;
	GArray *kvs;            /* struct kv: templates' keys first, then the frame's */
};

struct rg_script {
	GPtrArray *steps;       /* struct step */
	char *file;
};

/* A frame being described. */
struct fdesc {
	struct roce_frame_spec s;
	int kind;               /* 0 RoCE, 1 PFC, 2 PAUSE */
	uint8_t mac[6];
	uint8_t enable;
	uint16_t quanta[8];
	uint8_t payload[9000];
	uint64_t gap_ns, repeat, psn_step;
	uint32_t caplen;        /* 0: whole frame */
	unsigned n_edits;
	struct { uint32_t off; uint8_t v; bool x; } edit[RG_MAX_EDITS];
};

static int bad(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static int num(const char *s, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!*s || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || v > max)
		return -1;
	*out = v;
	return 0;
}

static int gap(const char *s, uint64_t *out)
{
	char *end;
	double v, m = 1;

	errno = 0;
	v = g_ascii_strtod(s, &end);
	if (errno || end == s || v < 0)
		return -1;
	if (!strcmp(end, "us"))
		m = 1e3;
	else if (!strcmp(end, "ms"))
		m = 1e6;
	else if (!strcmp(end, "s"))
		m = 1e9;
	else if (strcmp(end, "ns") && *end)
		return -1;
	if (!(v * m + 0.5 < 18446744073709551616.0))
		return -1;      /* beyond 2^64 ns: refuse, never convert out of range */
	*out = (uint64_t)(v * m + 0.5);
	return 0;
}

/* payload = mul:K (byte i = i*K) | fill:B | hex:BYTES | text:STRING (zero padded) */
static int payload(struct fdesc *d, const char *v)
{
	uint64_t k;

	if (!strncmp(v, "mul:", 4) && !num(v + 4, 255, &k)) {
		for (size_t i = 0; i < sizeof(d->payload); i++)
			d->payload[i] = (uint8_t)(i * k);
	} else if (!strncmp(v, "fill:", 5) && !num(v + 5, 255, &k)) {
		memset(d->payload, (int)k, sizeof(d->payload));
	} else if (!strncmp(v, "hex:", 4)) {
		size_t n = strlen(v + 4);

		if (n % 2 || n / 2 > sizeof(d->payload))
			return -1;
		memset(d->payload, 0, sizeof(d->payload));
		for (size_t i = 0; i < n / 2; i++) {
			char h[3] = { v[4 + 2 * i], v[5 + 2 * i], 0 };
			char *end;
			unsigned long b = strtoul(h, &end, 16);

			if (*end || !g_ascii_isxdigit(h[0]))
				return -1;
			d->payload[i] = (uint8_t)b;
		}
	} else if (!strncmp(v, "text:", 5)) {
		memset(d->payload, 0, sizeof(d->payload));
		memcpy(d->payload, v + 5, strnlen(v + 5, sizeof(d->payload)));
	} else {
		return -1;
	}
	d->s.payload = d->payload;
	return 0;
}

/* "OFF:BYTE,OFF:BYTE" */
static int edits(struct fdesc *d, const char *v, bool x)
{
	gchar **it = g_strsplit(v, ",", -1);
	int rc = 0;

	for (gchar **p = it; *p && !rc; p++) {
		char *c = strchr(*p, ':');
		uint64_t off, b;

		if (!c || d->n_edits == RG_MAX_EDITS) {
			rc = -1;
			break;
		}
		*c = 0;
		if (num(g_strstrip(*p), 9216, &off) || num(g_strstrip(c + 1), 255, &b)) {
			rc = -1;
			break;
		}
		d->edit[d->n_edits].off = (uint32_t)off;
		d->edit[d->n_edits].v = (uint8_t)b;
		d->edit[d->n_edits++].x = x;
	}
	g_strfreev(it);
	return rc;
}

struct field {
	const char *key;
	uint64_t max;
	size_t off, size;       /* into struct roce_frame_spec */
};

#define F(k, m, member) { k, m, offsetof(struct roce_frame_spec, member), \
	sizeof(((struct roce_frame_spec *)0)->member) }

static const struct field fields[] = {
	F("tclass", 255, tclass), F("ttl", 255, ttl), F("flow-label", 0xfffff, flow_label),
	F("ip-id", 0xffff, ip_id), F("df", 1, ip_df), F("sport", 0xffff, sport),
	F("dport", 0xffff, dport), F("se", 1, bth.se), F("migreq", 1, bth.migreq),
	F("tver", 15, bth.tver), F("pkey", 0xffff, bth.pkey), F("fecn", 1, bth.fecn),
	F("becn", 1, bth.becn), F("dqpn", 0xffffff, bth.dqpn), F("ackreq", 1, bth.ackreq),
	F("psn", 0xffffff, bth.psn), F("rdeth-eec", 0xffffff, rdeth_eec),
	F("qkey", 0xffffffff, deth.qkey), F("src-qp", 0xffffff, deth.src_qp),
	F("xrc-srq", 0xffffff, xrc_srq), F("feth", 0xffffffff, feth),
	F("va", UINT64_MAX, reth.va), F("rkey", 0xffffffff, reth.rkey),
	F("dma-len", 0xffffffff, reth.dma_len), F("atomic-va", UINT64_MAX, atomic.va),
	F("atomic-rkey", 0xffffffff, atomic.rkey), F("swap-add", UINT64_MAX, atomic.swap_add),
	F("compare", UINT64_MAX, atomic.compare), F("syndrome", 255, aeth.syndrome),
	F("msn", 0xffffff, aeth.msn), F("atomic-ack", UINT64_MAX, atomic_ack),
	F("immdt", 0xffffffff, immdt), F("ieth", 0xffffffff, ieth_rkey),
	F("payload-len", 9000, payload_len), F("bad-icrc", 1, bad_icrc),
	F("no-min-pad", 1, no_min_pad),
};

static void store(void *p, size_t size, uint64_t v)
{
	uint8_t u8 = (uint8_t)v;
	uint16_t u16 = (uint16_t)v;
	uint32_t u32 = (uint32_t)v;

	switch (size) {
	case 1: memcpy(p, &u8, 1); break;
	case 2: memcpy(p, &u16, 2); break;
	case 4: memcpy(p, &u32, 4); break;
	default: memcpy(p, &v, 8); break;
	}
}

/* Apply one key to d; 0 or -1 with a reason. */
static int apply(struct fdesc *d, const char *k, const char *v, char *err, size_t errlen)
{
	uint64_t x;

	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		if (strcmp(k, fields[i].key))
			continue;
		if (num(v, fields[i].max, &x))
			return bad(err, errlen, "%s '%s': expected 0..%" G_GUINT64_FORMAT, k, v,
				   fields[i].max);
		store((uint8_t *)&d->s + fields[i].off, fields[i].size, x);
		return 0;
	}
	if (!strcmp(k, "kind")) {
		if (!strcmp(v, "roce"))
			d->kind = 0;
		else if (!strcmp(v, "pfc"))
			d->kind = 1;
		else if (!strcmp(v, "pause"))
			d->kind = 2;
		else
			return bad(err, errlen, "kind '%s': expected roce, pfc or pause", v);
	} else if (!strcmp(k, "version")) {
		if (!strcmp(v, "v1")) {
			d->s.version = 1;
		} else if (!strcmp(v, "v2") || !strcmp(v, "v6")) {
			d->s.version = 2;
			d->s.ip_version = v[1] == '6' ? 6 : 4;
		} else {
			return bad(err, errlen, "version '%s': expected v1, v2 or v6", v);
		}
	} else if (!strcmp(k, "src-mac") || !strcmp(k, "dst-mac") || !strcmp(k, "mac")) {
		if (roce_parse_mac(v, k[0] == 's' ? d->s.src_mac : k[0] == 'd' ? d->s.dst_mac : d->mac))
			return bad(err, errlen, "%s '%s': expected aa:bb:cc:dd:ee:ff", k, v);
	} else if (!strcmp(k, "src-ip") || !strcmp(k, "dst-ip")) {
		if (roce_parse_ip(v, k[0] == 's' ? d->s.src : d->s.dst, NULL))
			return bad(err, errlen, "%s '%s': not an IPv4 or IPv6 address", k, v);
	} else if (!strcmp(k, "vlan")) {
		unsigned vid, pcp = 0;
		char t;
		int n = sscanf(v, "%u:%u%c", &vid, &pcp, &t);

		if ((n != 1 && n != 2) || vid > 4095 || pcp > 7)
			return bad(err, errlen, "vlan '%s': expected VID[:PCP]", v);
		d->s.vlan_count = 1;
		d->s.vlan_id[0] = (uint16_t)vid;
		d->s.vlan_pcp[0] = (uint8_t)pcp;
	} else if (!strcmp(k, "opcode")) {
		int op = roce_opcode_by_name(v);

		if (op < 0 && num(v, 255, &x))
			return bad(err, errlen, "opcode '%s': not an opcode name or number", v);
		d->s.bth.opcode = (uint8_t)(op >= 0 ? (uint64_t)op : x);
	} else if (!strcmp(k, "padcnt")) {
		if (num(v, 3, &x))
			return bad(err, errlen, "padcnt '%s': expected 0..3", v);
		d->s.bth.padcnt = (uint8_t)x;
		d->s.keep_padcnt = true;
	} else if (!strcmp(k, "payload")) {
		if (payload(d, v))
			return bad(err, errlen, "payload '%s': expected mul:K, fill:BYTE, "
				   "hex:BYTES or text:STRING", v);
	} else if (!strcmp(k, "gap")) {
		if (gap(v, &d->gap_ns))
			return bad(err, errlen, "gap '%s': expected a time (2us, 500ns)", v);
	} else if (!strcmp(k, "repeat")) {
		if (num(v, 100000000, &d->repeat) || !d->repeat)
			return bad(err, errlen, "repeat '%s': expected 1..100000000", v);
	} else if (!strcmp(k, "psn-step")) {
		if (num(v, 0xffffff, &d->psn_step))
			return bad(err, errlen, "psn-step '%s': expected 0..16777215", v);
	} else if (!strcmp(k, "caplen")) {
		if (num(v, 9216, &x) || !x)
			return bad(err, errlen, "caplen '%s': expected 1..9216", v);
		d->caplen = (uint32_t)x;
	} else if (!strcmp(k, "set") || !strcmp(k, "xor")) {
		if (edits(d, v, k[0] == 'x'))
			return bad(err, errlen, "%s '%s': expected OFFSET:BYTE[,...] (at most %d)",
				   k, v, RG_MAX_EDITS);
	} else if (!strcmp(k, "enable")) {
		if (num(v, 255, &x))
			return bad(err, errlen, "enable '%s': expected a priority bit mask", v);
		d->enable = (uint8_t)x;
	} else if (!strcmp(k, "quanta")) {
		gchar **it = g_strsplit(v, ",", -1);
		int rc = 0;

		for (gchar **p = it; *p && !rc; p++) {
			char *c = strchr(*p, ':');
			uint64_t pr = 0, q;

			if (c) {
				*c = 0;
				rc = num(g_strstrip(*p), 7, &pr) ? -1 : 0;
			}
			if (!rc && num(g_strstrip(c ? c + 1 : *p), 0xffff, &q))
				rc = -1;
			if (!rc)
				d->quanta[pr] = (uint16_t)q;
		}
		g_strfreev(it);
		if (rc)
			return bad(err, errlen, "quanta '%s': expected Q (PAUSE) or PRIO:Q,...", v);
	} else if (!strcmp(k, "template")) {
		return 0;       /* resolved when the file is read */
	} else {
		return bad(err, errlen, "unknown frame key '%s'", k);
	}
	return 0;
}

static void desc_init(struct fdesc *d)
{
	memset(d, 0, sizeof(*d));
	roce_frame_spec_init(&d->s);
	d->repeat = 1;
}

/* ---- loading ------------------------------------------------------------------ */

bool rg_script_group(const char *g)
{
	return !strncmp(g, "frame ", 6) || !strncmp(g, "template ", 9);
}

static void step_free(gpointer p)
{
	struct step *s = p;

	for (unsigned i = 0; i < s->kvs->len; i++) {
		g_free(g_array_index(s->kvs, struct kv, i).key);
		g_free(g_array_index(s->kvs, struct kv, i).val);
	}
	g_array_free(s->kvs, TRUE);
	g_free(s->name);
	g_free(s);
}

void rg_script_free(struct rg_script *sc)
{
	if (!sc)
		return;
	g_ptr_array_free(sc->steps, TRUE);
	g_free(sc->file);
	g_free(sc);
}

/* Append template tname's keys (its base first) to kvs; depth bounds loops. */
static int add_template(GKeyFile *kf, GHashTable *lines, const char *file, const char *tname,
			GArray *kvs, int depth, char *err, size_t errlen)
{
	char *g = g_strdup_printf("template %s", tname);
	gchar **keys;
	int rc = 0;

	if (!g_key_file_has_group(kf, g) || depth > 8) {
		rc = bad(err, errlen, "%s: template '%s' %s", file, tname,
			 depth > 8 ? "nests too deep" : "is not defined");
		g_free(g);
		return rc;
	}
	keys = g_key_file_get_keys(kf, g, NULL, NULL);
	for (gchar **k = keys; !rc && k && *k; k++) {
		if (!strcmp(*k, "base")) {
			gchar *b = g_key_file_get_value(kf, g, *k, NULL);

			rc = add_template(kf, lines, file, g_strstrip(b), kvs, depth + 1, err,
					  errlen);
			g_free(b);
		}
	}
	for (gchar **k = keys; !rc && k && *k; k++) {
		struct kv e;
		char *id;

		if (!strcmp(*k, "base"))
			continue;
		id = g_strdup_printf("%s\n%s", g, *k);
		e.key = g_strdup(*k);
		e.val = g_strstrip(g_key_file_get_value(kf, g, *k, NULL));
		e.line = GPOINTER_TO_UINT(g_hash_table_lookup(lines, id));
		g_free(id);
		g_array_append_val(kvs, e);
	}
	g_strfreev(keys);
	g_free(g);
	return rc;
}

int rg_script_load(struct rg_config *c, GKeyFile *kf, GHashTable *lines, const char *file,
		   char *err, size_t errlen)
{
	gchar **groups = g_key_file_get_groups(kf, NULL);
	struct rg_script *sc = c->script;
	struct fdesc *d = NULL;
	int rc = 0;

	for (gchar **g = groups; !rc && *g; g++) {
		struct step *st;
		gchar **keys;
		gchar *t;

		if (strncmp(*g, "frame ", 6))
			continue;
		if (!sc) {
			sc = g_new0(struct rg_script, 1);
			sc->steps = g_ptr_array_new_with_free_func(step_free);
			sc->file = g_strdup(file);
			c->script = sc;
		}
		st = g_new0(struct step, 1);
		st->name = g_strdup(*g);
		st->kvs = g_array_new(FALSE, FALSE, sizeof(struct kv));
		g_ptr_array_add(sc->steps, st);
		t = g_key_file_get_value(kf, *g, "template", NULL);
		if (t)
			rc = add_template(kf, lines, file, g_strstrip(t), st->kvs, 0, err, errlen);
		g_free(t);
		keys = g_key_file_get_keys(kf, *g, NULL, NULL);
		for (gchar **k = keys; !rc && k && *k; k++) {
			struct kv e;
			char *id = g_strdup_printf("%s\n%s", *g, *k);

			e.key = g_strdup(*k);
			e.val = g_strstrip(g_key_file_get_value(kf, *g, *k, NULL));
			e.line = GPOINTER_TO_UINT(g_hash_table_lookup(lines, id));
			g_free(id);
			g_array_append_val(st->kvs, e);
		}
		g_strfreev(keys);
		/* check every key now, so a bad value is reported with its line */
		if (!rc) {
			if (!d)
				d = malloc(sizeof(*d));
			if (!d) {
				rc = bad(err, errlen, "out of memory");
				break;
			}
			desc_init(d);
			for (unsigned i = 0; i < st->kvs->len && !rc; i++) {
				struct kv *e = &g_array_index(st->kvs, struct kv, i);
				char e2[256];

				if (apply(d, e->key, e->val, e2, sizeof(e2)))
					rc = bad(err, errlen, "%s:%u: [%s] %s", file, e->line, *g, e2);
			}
		}
	}
	free(d);
	g_strfreev(groups);
	return rc;
}

/* ---- running ------------------------------------------------------------------------ */

int rg_script_run(const struct rg_config *c, struct rg_output *out, struct rg_truth *t,
		  char *err, size_t errlen)
{
	struct fdesc *d = malloc(sizeof(*d));
	uint8_t *buf = malloc(9216 + 64);
	uint64_t ts = c->start_ns;
	int rc = 0;

	memset(t, 0, sizeof(*t));
	if (!d || !buf) {
		free(d);
		free(buf);
		return bad(err, errlen, "out of memory");
	}
	for (unsigned i = 0; i < c->script->steps->len && !rc; i++) {
		struct step *st = g_ptr_array_index(c->script->steps, i);

		desc_init(d);
		for (unsigned k = 0; k < st->kvs->len; k++) {
			struct kv *e = &g_array_index(st->kvs, struct kv, k);

			apply(d, e->key, e->val, err, errlen);  /* checked at load */
		}
		for (uint64_t r = 0; r < d->repeat && !rc; r++) {
			size_t len = 0;
			uint32_t cap;

			if (d->kind == 1)
				rc = roce_build_pfc(d->mac, d->enable, d->quanta, buf, 9216, &len);
			else if (d->kind == 2)
				rc = roce_build_pause(d->mac, d->quanta[0], buf, 9216, &len);
			else
				rc = roce_build(&d->s, buf, 9216, &len);
			if (rc) {
				rc = bad(err, errlen, "%s: [%s]: %s", c->script->file, st->name,
					 roce_strerror(rc));
				break;
			}
			for (unsigned k = 0; k < d->n_edits; k++) {
				if (d->edit[k].off >= len) {
					rc = bad(err, errlen, "%s: [%s]: edit at offset %u past the "
						 "%zu-byte frame", c->script->file, st->name,
						 d->edit[k].off, len);
					break;
				}
				if (d->edit[k].x)
					buf[d->edit[k].off] ^= d->edit[k].v;
				else
					buf[d->edit[k].off] = d->edit[k].v;
			}
			if (rc)
				break;
			ts += d->gap_ns;
			cap = d->caplen && d->caplen < len ? d->caplen : (uint32_t)len;
			if (out->ops->write_cap)
				rc = out->ops->write_cap(out, ts, buf, cap, (uint32_t)len);
			else
				rc = out->ops->write(out, ts, buf, (uint32_t)len);
			if (rc) {
				rc = bad(err, errlen, "write failed");
				break;
			}
			t->frames++;
			t->bytes += len;
			if (d->kind == 1) {
				t->pfc_frames++;
			} else if (d->kind == 2) {
				t->pause_frames++;
			} else {
				t->roce_frames++;
				*(d->s.version == 1 ? &t->rocev1_frames : &t->rocev2_frames) += 1;
			}
			d->s.bth.psn = roce_psn_add(d->s.bth.psn, (uint32_t)d->psn_step);
			if (c->count_frames && t->frames >= c->count_frames)
				break;
		}
		if (c->count_frames && t->frames >= c->count_frames)
			break;
	}
	free(d);
	free(buf);
	return rc;
}
