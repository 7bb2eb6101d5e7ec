/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * options.c - roce-gen settings: defaults, one setter per key shared by the
 * command line (main.c's GOptionEntry table calls rg_config_set() with the
 * long option name) and scenario files (scenario.c calls it with the key),
 * and the value parsers (numbers with units, lists, weights, PSN lists,
 * pause trains, MAC and IP addresses).
 */
#define _POSIX_C_SOURCE 200809L

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <glib.h>

#include <roce/buf.h>
#include <roce/pkt.h>

#include "gen.h"
#include "opts.h"

#define BASE_TS (1764374400ull * 1000000000ull) /* 2025-11-29 00:00:00 UTC */

static const char *const verb_names[RG_VERB_COUNT] = {
	"write", "write_imm", "send", "send_imm", "read", "atomic", "ud_send", "xrc",
	"uc_write", "uc_write_imm", "uc_send", "uc_send_imm"
};

static const char *const transport_names[RG_TR_COUNT] = { "RC", "UC", "UD", "XRC" };

static const char *const fault_names[RG_F_COUNT] = {
	"drop", "timeout", "rnr", "duplicate", "reorder", "read_loss", "bad_icrc", "bad_payload",
	"ecn_ce"
};

/* Option-name stems of the fault kinds: --STEM-psn LIST, --STEM-rate P. */
static const char *const fault_stems[RG_F_COUNT] = {
	"drop", "timeout", "rnr", "dup", "reorder", "read-loss", "bad-icrc", "bad-payload", "ce"
};

const char *rg_verb_name(enum rg_verb v)
{
	return (unsigned)v < RG_VERB_COUNT ? verb_names[v] : "?";
}

const char *rg_transport_name(enum rg_transport tr)
{
	return (unsigned)tr < RG_TR_COUNT ? transport_names[tr] : "?";
}

const char *rg_fault_name(enum rg_fault_kind k)
{
	return (unsigned)k < RG_F_COUNT ? fault_names[k] : "?";
}

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

void rg_config_defaults(struct rg_config *c)
{
	static const uint8_t mac_a[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x0a };
	static const uint8_t mac_b[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x0b };

	memset(c, 0, sizeof(*c));
	c->qps = 1;
	c->hosts = 1;
	c->version = 2;
	c->verb_weight[RG_WRITE] = 1;
	c->sizes.kind = RG_SIZE_LIST;
	c->sizes.n = 1;
	c->sizes.size[0] = 4096;
	c->sizes.weight[0] = 1;
	c->pmtu = 1024;
	c->ack_every = 1;
	c->seed = 1;
	c->qpn_base = 0x100;
	c->rate_bps = 100000000000ull;
	c->start_ns = BASE_TS;
	c->rnr_timer = 14;
	c->timeout_ns = 4096000;        /* 4.096 ms */
	c->cnp_interval_ns = 50000;     /* 50 us */
	c->link_gbps = 100;
	c->storm_ns = 200000000;        /* 200 ms, roce-analyze's default */
	c->dscp = 26;
	c->ecn = 2;                     /* ECT(0) */
	c->cnp_dscp = 48;
	memcpy(c->mac_a, mac_a, 6);
	memcpy(c->mac_b, mac_b, 6);
}

void rg_config_free(struct rg_config *c)
{
	rg_script_free(c->script);
	c->script = NULL;
	for (int k = 0; k < RG_F_COUNT; k++) {
		free(c->fault[k].list.v);
		c->fault[k].list.v = NULL;
		c->fault[k].list.n = c->fault[k].list.cap = 0;
	}
	for (int k = 0; k < 3; k++) {
		g_free(c->owned[k]);
		c->owned[k] = NULL;
	}
}

/*
 * A copy of a setting's string that the configuration owns.  (Interning
 * it instead grew GLib's table for good with every file the fuzzer tried.)
 */
static const char *own_copy(struct rg_config *c, int slot, const char *val)
{
	g_free(c->owned[slot]);
	c->owned[slot] = g_strdup(val);
	return c->owned[slot];
}

/* ---- value parsers ---------------------------------------------------------- */

/*
 * A full-range count that roce_parse_u64() refused: "KEY VAL: out of range (MIN..2^64-1)"
 * for a number past it (99999999999999999999, 1e30, -1), as roce_opt_u64() says it, else
 * "KEY 'VAL': WHAT".
 */
static int u64_fail(char *err, size_t errlen, const char *key, const char *val, uint64_t min,
		    const char *what)
{
	uint64_t v;

	if (roce_parse_u64(val, min, UINT64_MAX, &v) == -2)
		return fail(err, errlen, "%s %s: out of range (%" PRIu64 "..%" PRIu64 ")", key, val,
			    min, UINT64_MAX);
	return fail(err, errlen, "%s '%s': %s", key, val, what);
}

/* "100", "10k", "2.5M", "100G" (decimal SI multipliers); -2: a number past 1e15. */
static int parse_si(const char *s, uint64_t *out)
{
	char *end;
	double v, m = 1;

	if (!s || !*s || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	v = g_ascii_strtod(s, &end);
	if (end == s || (errno && !isinf(v)))   /* 1e400: past the limit below, not garbage */
		return -1;
	switch (*end) {
	case 'k': case 'K': m = 1e3; end++; break;
	case 'm': case 'M': m = 1e6; end++; break;
	case 'g': case 'G': m = 1e9; end++; break;
	case 't': case 'T': m = 1e12; end++; break;
	default: break;
	}
	if (!strcasecmp(end, "bps") || !strcasecmp(end, "pps") || !strcasecmp(end, "b"))
		end += strlen(end);
	if (*end || !(v > 0))
		return -1;
	if (v * m > 1e15)
		return -2;
	*out = (uint64_t)llround(v * m);
	return *out ? 0 : -1;
}

/* "250ms", "200us", "1.5s", "800ns"; a bare number is in default_unit ns. */
static int parse_time(const char *s, uint64_t default_unit, uint64_t *out)
{
	char *end;
	double v, m = (double)default_unit;

	if (!s || !*s || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	v = g_ascii_strtod(s, &end);
	if (errno || end == s || !(v >= 0))     /* NaN too: llround(NaN) is undefined */
		return -1;
	if (!strcmp(end, "ns"))
		m = 1;
	else if (!strcmp(end, "us"))
		m = 1e3;
	else if (!strcmp(end, "ms"))
		m = 1e6;
	else if (!strcmp(end, "s"))
		m = 1e9;
	else if (*end)
		return -1;
	if (v * m > 1e18)
		return -1;
	*out = (uint64_t)llround(v * m);
	return 0;
}

static int parse_rate(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = g_ascii_strtod(s, &end);
	if (errno || end == s || !*s)
		return -1;
	if (*end == '%') {
		v /= 100;
		end++;
	}
	if (*end || !(v >= 0) || v > 1)
		return -1;
	*out = v;
	return 0;
}

/* "write,read" or "write:3,read:1". */
static int parse_verbs(struct rg_config *c, const char *val, char *err, size_t errlen)
{
	gchar **items = g_strsplit(val, ",", -1);
	uint32_t w[RG_VERB_COUNT] = { 0 };
	unsigned n = 0;
	int rc = 0;

	for (gchar **it = items; *it && !rc; it++) {
		char *name = g_strstrip(*it), *colon;
		uint64_t weight = 1;
		int v;

		if (!*name)
			continue;
		colon = strchr(name, ':');
		if (colon) {
			*colon = 0;
			if (roce_parse_u64(colon + 1, 0, 1000000, &weight)) {
				rc = fail(err, errlen, "verbs: bad weight '%s' for %s", colon + 1,
					  name);
				break;
			}
		}
		for (v = 0; v < RG_VERB_COUNT; v++)
			if (!strcmp(name, verb_names[v]))
				break;
		if (v == RG_VERB_COUNT) {
			rc = fail(err, errlen, "verbs: unknown verb '%s' (known: write, write_imm, "
				  "send, send_imm, read, atomic, ud_send, xrc, uc_write, "
				  "uc_write_imm, uc_send, uc_send_imm)", name);
			break;
		}
		w[v] += (uint32_t)weight;
		n++;
	}
	g_strfreev(items);
	if (rc)
		return rc;
	if (!n)
		return fail(err, errlen, "verbs: empty list");
	uint64_t total = 0;

	for (int v = 0; v < RG_VERB_COUNT; v++)
		total += w[v];
	if (!total)
		return fail(err, errlen, "verbs: every weight is 0");
	memcpy(c->verb_weight, w, sizeof(w));
	return 0;
}

#define RG_MAX_MSG (1u << 30)

/* "4096", "64,1024,4096", "64:3,4096:1", "uniform:64-8192", "exp:4096[:MAX]". */
static int parse_sizes(struct rg_config *c, const char *val, char *err, size_t errlen)
{
	struct rg_sizes z;
	uint64_t a, b;

	memset(&z, 0, sizeof(z));
	if (!strncmp(val, "uniform:", 8)) {
		const char *dash = strchr(val + 8, '-');
		char lo[32];

		if (!dash || (size_t)(dash - (val + 8)) >= sizeof(lo))
			return fail(err, errlen, "msg-size: expected uniform:MIN-MAX");
		memcpy(lo, val + 8, (size_t)(dash - (val + 8)));
		lo[dash - (val + 8)] = 0;
		if (roce_parse_u64(lo, 0, RG_MAX_MSG, &a) || roce_parse_u64(dash + 1, 0, RG_MAX_MSG, &b) ||
		    a > b)
			return fail(err, errlen, "msg-size '%s': expected uniform:MIN-MAX with "
				    "0 <= MIN <= MAX <= %u", val, RG_MAX_MSG);
		z.kind = RG_SIZE_UNIFORM;
		z.min = (uint32_t)a;
		z.max = (uint32_t)b;
	} else if (!strncmp(val, "exp:", 4)) {
		gchar **p = g_strsplit(val + 4, ":", 3);
		int bad = !p[0] || roce_parse_u64(p[0], 1, RG_MAX_MSG, &a);

		b = 1u << 20;
		if (!bad && p[1])
			bad = roce_parse_u64(p[1], 1, RG_MAX_MSG, &b) || p[2] != NULL;
		g_strfreev(p);
		if (bad || b < a)
			return fail(err, errlen, "msg-size '%s': expected exp:MEAN[:MAX] "
				    "(1 <= MEAN <= MAX <= %u)", val, RG_MAX_MSG);
		z.kind = RG_SIZE_EXP;
		z.mean = (uint32_t)a;
		z.max = (uint32_t)b;
	} else {
		gchar **items = g_strsplit(val, ",", -1);
		int rc = 0;

		z.kind = RG_SIZE_LIST;
		for (gchar **it = items; *it; it++) {
			char *s = g_strstrip(*it), *colon = strchr(s, ':');
			uint64_t w = 1;

			if (!strncmp(s, "uniform:", 8) || !strncmp(s, "exp:", 4)) {
				rc = fail(err, errlen, "msg-size: '%s' in a list: uniform:MIN-MAX "
					  "and exp:MEAN[:MAX] stand alone", s);
				break;
			}
			if (colon) {
				*colon = 0;
				if (roce_parse_u64(colon + 1, 0, 1000000, &w)) {
					rc = fail(err, errlen, "msg-size: bad weight '%s'", colon + 1);
					break;
				}
			}
			if (roce_parse_u64(s, 0, RG_MAX_MSG, &a)) {
				rc = fail(err, errlen, "msg-size: '%s' is not a size in bytes "
					  "(0..%u), uniform:MIN-MAX or exp:MEAN", s, RG_MAX_MSG);
				break;
			}
			if (z.n == RG_MAX_SIZES) {
				rc = fail(err, errlen, "msg-size: at most %d sizes", RG_MAX_SIZES);
				break;
			}
			z.size[z.n] = (uint32_t)a;
			z.weight[z.n++] = (uint32_t)w;
		}
		g_strfreev(items);
		if (rc)
			return rc;
		uint64_t tw = 0;

		for (unsigned i = 0; i < z.n; i++)
			tw += z.weight[i];
		if (!z.n || !tw)
			return fail(err, errlen, "msg-size: empty list or every weight 0");
	}
	c->sizes = z;
	return 0;
}

static int psn_list_add(struct rg_psn_list *l, int32_t qp, uint32_t psn)
{
	if (l->n == l->cap) {
		unsigned cap = l->cap ? l->cap * 2 : 16;
		struct rg_psn_item *v;

		if (cap > (1u << 24))
			return -1;
		v = realloc(l->v, cap * sizeof(*v));
		if (!v)
			return -1;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n].qp = qp;
	l->v[l->n++].psn = psn;
	return 0;
}

/* "100,105", "100-103", "2/100" (QP index 2 only). */
static int parse_psn_list(struct rg_psn_list *l, const char *opt, const char *val, char *err,
			  size_t errlen)
{
	gchar **items = g_strsplit(val, ",", -1);
	int rc = 0;

	for (gchar **it = items; *it && !rc; it++) {
		char *s = g_strstrip(*it), *slash, *dash;
		uint64_t qp = 0, a, b;
		int32_t q = -1;

		if (!*s)
			continue;
		slash = strchr(s, '/');
		if (slash) {
			*slash = 0;
			if (roce_parse_u64(s, 0, 1u << 20, &qp)) {
				rc = fail(err, errlen, "%s: bad QP index '%s'", opt, s);
				break;
			}
			q = (int32_t)qp;
			s = slash + 1;
		}
		dash = strchr(s, '-');
		if (dash)
			*dash = 0;
		if (roce_parse_u64(s, 0, 0xffffff, &a) ||
		    (dash ? roce_parse_u64(dash + 1, 0, 0xffffff, &b) : (b = a, 0)) || b < a ||
		    b - a > 65535) {
			rc = fail(err, errlen, "%s: '%s' is not a PSN (0..16777215), a range "
				  "A-B or QP/PSN", opt, *it);
			break;
		}
		for (uint64_t p = a; p <= b && !rc; p++)
			if (psn_list_add(l, q, (uint32_t)p))
				rc = fail(err, errlen, "%s: list too long", opt);
	}
	g_strfreev(items);
	return rc;
}

/* "prio=3,quanta=65535,refresh=200us,length=250ms,start=1ms,xon=1,mac=..". */
static int parse_pause(struct rg_config *c, bool pfc, const char *opt, const char *val, char *err,
		       size_t errlen)
{
	struct rg_pause p;
	gchar **items;
	int rc = 0;
	bool prio_set = false;

	if (c->n_pauses == RG_MAX_PAUSES)
		return fail(err, errlen, "%s: at most %d pause trains", opt, RG_MAX_PAUSES);
	memset(&p, 0, sizeof(p));
	p.pfc = pfc;
	p.quanta = 0xffff;
	p.xon = pfc;
	items = g_strsplit(val, ",", -1);
	for (gchar **it = items; *it && !rc; it++) {
		char *s = g_strstrip(*it), *eq = strchr(s, '=');
		uint64_t v;

		if (!*s)
			continue;
		if (!eq) {
			rc = fail(err, errlen, "%s: '%s' is not KEY=VALUE", opt, s);
			break;
		}
		*eq++ = 0;
		if (pfc && !strcmp(s, "prio")) {
			if (roce_parse_u64(eq, 0, 7, &v))
				rc = fail(err, errlen, "%s: prio '%s' not in 0..7", opt, eq);
			p.prio = (uint8_t)v;
			prio_set = true;
		} else if (!strcmp(s, "quanta")) {
			if (roce_parse_u64(eq, 0, 0xffff, &v))
				rc = fail(err, errlen, "%s: quanta '%s' not in 0..65535", opt, eq);
			p.quanta = (uint16_t)v;
		} else if (!strcmp(s, "refresh")) {
			if (parse_time(eq, 1000, &p.refresh_ns) || !p.refresh_ns)
				rc = fail(err, errlen, "%s: refresh '%s': expected a time > 0 "
					  "(200us, 1ms; bare numbers are us)", opt, eq);
		} else if (!strcmp(s, "length")) {
			if (parse_time(eq, 1000000, &p.length_ns))
				rc = fail(err, errlen, "%s: length '%s': expected a time "
					  "(250ms, 1s; bare numbers are ms)", opt, eq);
		} else if (!strcmp(s, "start")) {
			if (parse_time(eq, 1000, &p.start_ns))
				rc = fail(err, errlen, "%s: start '%s': expected a time "
					  "(bare numbers are us)", opt, eq);
		} else if (!strcmp(s, "xon")) {
			if (roce_parse_u64(eq, 0, 1, &v))
				rc = fail(err, errlen, "%s: xon must be 0 or 1", opt);
			p.xon = v != 0;
		} else if (!strcmp(s, "mac")) {
			if (roce_parse_mac(eq, p.mac))
				rc = fail(err, errlen, "%s: bad MAC '%s'", opt, eq);
			p.mac_set = true;
		} else {
			rc = fail(err, errlen, "%s: unknown key '%s' (prio, quanta, refresh, "
				  "length, start, xon, mac)", opt, s);
		}
	}
	g_strfreev(items);
	if (rc)
		return rc;
	if (pfc && !prio_set)
		return fail(err, errlen, "%s: prio=N is required", opt);
	if (p.length_ns && !p.refresh_ns)
		p.refresh_ns = 200000;  /* 200 us */
	if (p.length_ns && p.length_ns / p.refresh_ns > 100000000)
		return fail(err, errlen, "%s: more than 100000000 frames", opt);
	c->pause[c->n_pauses++] = p;
	return 0;
}

/* ---- the key table ---------------------------------------------------------- */

static int set_fault(struct rg_config *c, const char *key, const char *val, char *err,
		     size_t errlen, bool *handled)
{
	const char *opt = key;

	*handled = true;
	if (!strcmp(key, "loss"))
		key = "drop-rate";
	for (int k = 0; k < RG_F_COUNT; k++) {
		size_t n = strlen(fault_stems[k]);

		if (strncmp(key, fault_stems[k], n) != 0)
			continue;
		if (!strcmp(key + n, "-psn"))
			return parse_psn_list(&c->fault[k].list, key, val, err, errlen);
		if (!strcmp(key + n, "-rate")) {
			if (parse_rate(val, &c->fault[k].rate))
				return fail(err, errlen, "%s '%s': expected a probability 0..1 "
					    "or a percentage", opt, val);
			return 0;
		}
	}
	*handled = false;
	return 0;
}

/* --mpls-labels L[,L...]: 1..ROCE_MAX_MPLS_LABELS labels 0..1048575, outermost first */
static int parse_mpls_labels(struct rg_config *c, const char *val, char *err, size_t errlen)
{
	uint32_t l[ROCE_MAX_MPLS_LABELS];
	unsigned n = 0;
	const char *p = val;

	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		char one[16];
		uint64_t v;

		if (n == ROCE_MAX_MPLS_LABELS || len == 0 || len >= sizeof(one))
			goto bad;
		memcpy(one, p, len);
		one[len] = 0;
		if (roce_parse_u64(one, 0, 0xfffff, &v))
			goto bad;
		l[n++] = (uint32_t)v;
		if (!comma)
			break;
		p = comma + 1;
	}
	memcpy(c->mpls_labels, l, n * sizeof(l[0]));
	c->mpls_count = (uint8_t)n;
	return 0;
bad:
	return fail(err, errlen, "mpls-labels '%s': expected 1 to %d labels 0..1048575, "
		    "comma separated", val, ROCE_MAX_MPLS_LABELS);
}

int rg_config_set(struct rg_config *c, const char *key, const char *val, char *err, size_t errlen)
{
	uint64_t v;
	bool handled, v6;

	if (!strcmp(key, "qps")) {
		if (roce_parse_u64(val, 1, 1u << 20, &v))
			return fail(err, errlen, "qps '%s': expected 1..1048576", val);
		c->qps = (unsigned)v;
	} else if (!strcmp(key, "hosts")) {
		if (roce_parse_u64(val, 1, 65536, &v))
			return fail(err, errlen, "hosts '%s': expected 1..65536", val);
		c->hosts = (unsigned)v;
	} else if (!strcmp(key, "version") || !strcmp(key, "roce")) {
		if (!strcmp(val, "v1") || !strcmp(val, "1"))
			c->version = 1;
		else if (!strcmp(val, "v2") || !strcmp(val, "2") || !strcmp(val, "v4"))
			c->version = 2;
		else if (!strcmp(val, "v6") || !strcmp(val, "6"))
			c->version = 6;
		else
			return fail(err, errlen, "roce '%s': expected v1, v2 or v6", val);
	} else if (!strcmp(key, "verbs")) {
		return parse_verbs(c, val, err, errlen);
	} else if (!strcmp(key, "msg-size")) {
		return parse_sizes(c, val, err, errlen);
	} else if (!strcmp(key, "pmtu")) {
		if (roce_parse_u64(val, 256, 4096, &v) || (v & (v - 1)))
			return fail(err, errlen, "pmtu '%s': must be 256, 512, 1024, 2048 or 4096",
				    val);
		c->pmtu = (uint32_t)v;
	} else if (!strcmp(key, "ack-every")) {
		if (roce_parse_u64(val, 1, 1000000, &v))
			return fail(err, errlen, "ack-every '%s': expected 1..1000000", val);
		c->ack_every = (unsigned)v;
	} else if (!strcmp(key, "seed")) {
		if (roce_parse_u64(val, 0, UINT64_MAX, &v))
			return u64_fail(err, errlen, key, val, 0, "not a number");
		c->seed = v;
	} else if (!strcmp(key, "count")) {
		if (roce_parse_u64(val, 1, UINT64_MAX, &v))
			return u64_fail(err, errlen, key, val, 1, "expected a number of frames >= 1");
		c->count_frames = v;
	} else if (!strcmp(key, "messages")) {
		if (roce_parse_u64(val, 0, UINT64_MAX, &v))
			return u64_fail(err, errlen, key, val, 0, "expected a number >= 0");
		c->count_messages = v;
		c->count_messages_set = true;
	} else if (!strcmp(key, "random-psn")) {
		if (roce_parse_u64(val, 0, 1, &v))
			return fail(err, errlen, "random-psn '%s': expected 0 or 1", val);
		c->random_psn = v != 0;
	} else if (!strcmp(key, "first-psn")) {
		if (roce_parse_u64(val, 0, 0xffffff, &v))
			return fail(err, errlen, "first-psn '%s': expected 0..16777215", val);
		c->first_psn = (uint32_t)v;
	} else if (!strcmp(key, "qpn")) {
		if (roce_parse_u64(val, 2, 0xfff000, &v))
			return fail(err, errlen, "qpn '%s': expected 2..16773120", val);
		c->qpn_base = (uint32_t)v;
	} else if (!strcmp(key, "pps")) {
		int rc = parse_si(val, &v);

		if (rc)
			return fail(err, errlen, rc == -2 ? "pps %s: out of range (at most 1000T)" :
				    "pps '%s': expected frames per second (1M, 2.5M)", val);
		c->pps = v;
	} else if (!strcmp(key, "rate")) {
		int rc = parse_si(val, &v);

		if (rc)
			return fail(err, errlen, rc == -2 ? "rate %s: out of range (at most 1000T)" :
				    "rate '%s': expected bits per second (10G, 400M)", val);
		c->rate_bps = v;
		c->pps = 0;
	} else if (!strcmp(key, "start-time")) {
		if (roce_parse_u64(val, 0, 4000000000ull, &v))
			return fail(err, errlen, "start-time '%s': expected seconds since the epoch",
				    val);
		c->start_ns = v * 1000000000ull;
	} else if (!strcmp(key, "rnr-timer")) {
		if (roce_parse_u64(val, 0, 31, &v))
			return fail(err, errlen, "rnr-timer '%s': expected a timer code 0..31", val);
		c->rnr_timer = (uint32_t)v;
	} else if (!strcmp(key, "retry-timeout")) {
		if (parse_time(val, 1000, &c->timeout_ns) || !c->timeout_ns)
			return fail(err, errlen, "retry-timeout '%s': expected a time > 0 "
				    "(4ms; bare numbers are us)", val);
	} else if (!strcmp(key, "cnp-interval")) {
		if (parse_time(val, 1000, &c->cnp_interval_ns))
			return fail(err, errlen, "cnp-interval '%s': expected a time "
				    "(bare numbers are us)", val);
	} else if (!strcmp(key, "link-speed")) {
		if (roce_parse_u64(val, 1, 100000, &v))
			return fail(err, errlen, "link-speed '%s': expected Gbit/s 1..100000", val);
		c->link_gbps = v;
	} else if (!strcmp(key, "pfc-storm-ms")) {
		if (roce_parse_u64(val, 1, 3600000, &v))
			return fail(err, errlen, "pfc-storm-ms '%s': expected 1..3600000", val);
		c->storm_ns = v * 1000000ull;
	} else if (!strcmp(key, "encap")) {
		enum roce_encap e = roce_encap_from_name(val);

		if (e == ROCE_ENCAP_NONE && strcmp(val, "none"))
			return fail(err, errlen, "encap '%s': expected erspan1, erspan2, erspan3, "
				    "gre, vxlan, geneve, mpls or none", val);
		c->encap = (uint8_t)e;
	} else if (!strcmp(key, "mirror-snaplen")) {
		if (roce_parse_u64(val, 64, RG_FRAME_MAX, &v))
			return fail(err, errlen, "mirror-snaplen '%s': expected 64..%u", val,
				    RG_FRAME_MAX);
		c->mirror_snaplen = (uint32_t)v;
	} else if (!strcmp(key, "mpls-labels")) {
		return parse_mpls_labels(c, val, err, errlen);
	} else if (!strcmp(key, "mpls-pw")) {
		if (roce_parse_u64(val, 0, 1, &v))
			return fail(err, errlen, "mpls-pw '%s': expected 0 or 1", val);
		c->mpls_pw = v != 0;
	} else if (!strcmp(key, "vlan")) {
		const char *colon = strchr(val, ':');
		char vid[16];

		if (colon && (size_t)(colon - val) < sizeof(vid)) {
			memcpy(vid, val, (size_t)(colon - val));
			vid[colon - val] = 0;
			if (roce_parse_u64(colon + 1, 0, 7, &v))
				return fail(err, errlen, "vlan '%s': PCP not in 0..7", val);
			c->pcp = (uint8_t)v;
			val = vid;
		}
		if (roce_parse_u64(val, 0, 4094, &v))
			return fail(err, errlen, "vlan '%s': expected VID 0..4094[:PCP]", val);
		c->vlan = (uint16_t)v;
		c->vlan_set = true;
	} else if (!strcmp(key, "pcp")) {
		if (roce_parse_u64(val, 0, 7, &v))
			return fail(err, errlen, "pcp '%s': expected 0..7", val);
		c->pcp = (uint8_t)v;
		c->vlan_set = true;
	} else if (!strcmp(key, "dscp") || !strcmp(key, "cnp-dscp")) {
		if (roce_parse_u64(val, 0, 63, &v))
			return fail(err, errlen, "%s '%s': expected 0..63", key, val);
		*(key[0] == 'c' ? &c->cnp_dscp : &c->dscp) = (uint8_t)v;
	} else if (!strcmp(key, "ecn")) {
		if (!strcmp(val, "not-ect"))
			v = 0;
		else if (!strcmp(val, "ect1"))
			v = 1;
		else if (!strcmp(val, "ect0"))
			v = 2;
		else if (!strcmp(val, "ce"))
			v = 3;
		else if (roce_parse_u64(val, 0, 3, &v))
			return fail(err, errlen, "ecn '%s': expected 0..3, not-ect, ect0, ect1 or ce",
				    val);
		c->ecn = (uint8_t)v;
	} else if (!strcmp(key, "src-mac") || !strcmp(key, "dst-mac")) {
		if (roce_parse_mac(val, key[0] == 's' ? c->mac_a : c->mac_b))
			return fail(err, errlen, "%s '%s': expected aa:bb:cc:dd:ee:ff", key, val);
	} else if (!strcmp(key, "src-ip") || !strcmp(key, "dst-ip")) {
		bool a = key[0] == 's';

		if (roce_parse_ip(val, a ? c->ip_a : c->ip_b, &v6))
			return fail(err, errlen, "%s '%s': not an IPv4 or IPv6 address", key, val);
		*(a ? &c->ip_a_set : &c->ip_b_set) = true;
	} else if (!strcmp(key, "sport")) {
		if (roce_parse_u64(val, 1, 65535, &v))
			return fail(err, errlen, "sport '%s': expected 1..65535", val);
		c->sport = (uint16_t)v;
	} else if (!strcmp(key, "pfc") || !strcmp(key, "pause")) {
		return parse_pause(c, key[1] == 'f', key, val, err, errlen);
	} else if (!strcmp(key, "write")) {
		if (!*val)
			return fail(err, errlen, "write: empty file name");
		c->write_path = own_copy(c, 0, val);
	} else if (!strcmp(key, "interface")) {
		if (!*val)
			return fail(err, errlen, "interface: empty interface name");
		c->iface = own_copy(c, 1, val);
	} else if (!strcmp(key, "timestamps")) {
		if (strcmp(val, "ns") && strcmp(val, "us"))
			return fail(err, errlen, "timestamps '%s': expected ns or us (pcap only)", val);
		c->ts_us = val[0] == 'u';
	} else if (!strcmp(key, "engine")) {
		/* checked here, not only when -i opens it: "-w F --engine bogus" is refused too */
		if (strcmp(val, "auto") && strcmp(val, "afpacket") && strcmp(val, "xdp"))
			return fail(err, errlen, "engine '%s': expected auto, afpacket or xdp", val);
		c->engine = own_copy(c, 2, val);
	} else {
		int rc = set_fault(c, key, val, err, errlen, &handled);

		if (handled)
			return rc;
		return fail(err, errlen, "unknown setting '%s'", key);
	}
	return 0;
}

static bool addr_is_v4(const uint8_t a[16])
{
	static const uint8_t prefix[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	return memcmp(a, prefix, 12) == 0;
}

int rg_config_check(struct rg_config *c, char *err, size_t errlen)
{
	bool v6a = c->ip_a_set && !addr_is_v4(c->ip_a);
	bool v6b = c->ip_b_set && !addr_is_v4(c->ip_b);

	if (c->version == 2 && (v6a || v6b))
		return fail(err, errlen, "--src-ip/--dst-ip are IPv6 but --roce is v2 (IPv4); "
			    "use --roce v6");
	if (c->version == 6 && ((c->ip_a_set && !v6a) || (c->ip_b_set && !v6b)))
		return fail(err, errlen, "--src-ip/--dst-ip are IPv4 but --roce is v6");
	if (c->count_frames && c->count_messages_set)
		return fail(err, errlen, "-c (frames) and -m (messages) cannot be combined");
	if ((uint64_t)c->qps * c->hosts > (1u << 20))
		return fail(err, errlen, "--qps x --hosts: at most 1048576 QPs in all");
	if (c->write_path && c->iface)
		return fail(err, errlen, "-w and -i cannot be combined");
	if (!c->write_path && !c->iface)
		return fail(err, errlen, "no output: give -w FILE (- for stdout) or -i IFACE");
	return 0;
}
