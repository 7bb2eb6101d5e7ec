// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * promseries.c - per-stream and per-sender Prometheus series with a
 * cardinality cap (promseries.h).
 *
 * One "family" per table: fixed places (slots) for the labelled series, a
 * hash from the stream id (or MAC and priority) to the slot, and per slot
 * the base: what the stream had in "other" when it got the slot.  An
 * update walks the analyzer's table once: slot owners refresh their values,
 * the rest are summed into "other" and the best max candidates kept in a
 * small heap; slots whose owner left the table are freed and given to the
 * best candidates.  O(streams * log cap) per update, memory O(cap).
 */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include <roce/pkt.h>

#include "analyze.h"
#include "promseries.h"

/* label values: \ " and newline escaped */
void ra_prom_label(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fputc('\\', f);
		if (*s == '\n') {
			fputs("\\n", f);
			continue;
		}
		fputc(*s, f);
	}
}

#define NV 13                        /* values per series, at most */

struct item {
	uint64_t id, first_frame;
	uint64_t v[NV];              /* v[0] = frames: the ranking */
	union {
		struct roce_flow_key key;
		struct {
			uint8_t mac[6];
			int prio;
			uint32_t iface;      /* the run's capture interface (ifaces.h) */
		} pfc;
	} k;
};

struct slot {
	bool used, seen;
	struct item it;
	uint64_t base[NV];
};

struct family {
	unsigned cap, nv;
	struct slot *slots;
	GHashTable *by_id;           /* id -> slot index + 1 */
	struct item *heap;           /* candidates, a min-heap on (v[0], -id) */
	unsigned nheap;
	uint64_t folded_sum[NV];
	uint64_t ended[NV];          /* items that left the table (streams: observer) */
	uint64_t other[NV];
	uint64_t folded;             /* live items in "other" now */
	uint64_t last_frame;         /* frame count at the previous update */
};

struct ra_promseries {
	struct family st, pfc;
	uint64_t evicted_pfc;
	bool multi;                  /* a sender seen on an interface other than 0 */
	const struct ra_iface *ifaces;       /* names (ra_promseries_set_ifaces()) */
	uint32_t n_ifaces;
};

/* ---- the stream and sender values ------------------------------------------ */

static const char *const st_names[NV][2] = {
	{ "roce_stream_frames_total", "RoCE frames of the stream." },
	{ "roce_stream_bytes_total", "Bytes on the wire of the stream's frames." },
	{ "roce_stream_psn_gaps_total", "PSN gaps on the stream." },
	{ "roce_stream_lost_psns_total", "PSNs missing in the stream's gaps." },
	{ "roce_stream_duplicate_psns_total", "Duplicate packets on the stream." },
	{ "roce_stream_out_of_order_total", "Out-of-order packets on the stream." },
	{ "roce_stream_retransmissions_total", "Retransmitted packets on the stream." },
	{ "roce_stream_naks_total", "NAKs on the stream (RNR NAKs included)." },
	{ "roce_stream_rnr_naks_total", "RNR NAKs on the stream." },
	{ "roce_stream_cnps_total", "CNPs on the stream." },
	{ "roce_stream_ecn_ce_frames_total", "ECN CE-marked frames of the stream." },
	{ "roce_stream_icrc_bad_total", "Frames of the stream with a bad ICRC." },
	{ "roce_stream_acked_unseen_psns_total",
	  "Request PSNs of the stream ACKed that the capture never saw." },
};

#define PFC_NV 5
static const char *const pfc_names[PFC_NV][2] = {
	{ "roce_pfc_sender_frames_total", "PFC/PAUSE frames of the sender and priority." },
	{ "roce_pfc_sender_xoff_frames_total", "Frames that asked to pause (quanta > 0)." },
	{ "roce_pfc_sender_xon_frames_total", "Frames that asked to resume (quanta 0)." },
	{ "roce_pfc_sender_paused_seconds_total", "Time the sender held the priority paused." },
	{ "roce_pfc_sender_storms_total", "Pauses that lasted a storm (--pfc-storm-ms)." },
};

static void flow_values(const struct roce_flow_stats *f, uint64_t *v)
{
	v[0] = f->frames;
	v[1] = f->bytes;
	v[2] = f->psn_gaps;
	v[3] = f->lost_psns;
	v[4] = f->duplicates;
	v[5] = f->out_of_order;
	v[6] = f->retransmissions;
	v[7] = f->naks;
	v[8] = f->rnr_naks;
	v[9] = f->cnps;
	v[10] = f->ecn_ce;
	v[11] = f->icrc_bad;
	v[12] = f->acked_unseen_psns;
}

/* ---- one family -------------------------------------------------------------- */

static bool fam_init(struct family *fm, unsigned cap, unsigned nv)
{
	memset(fm, 0, sizeof(*fm));
	fm->cap = cap;
	fm->nv = nv;
	fm->by_id = g_hash_table_new(g_int64_hash, g_int64_equal);
	if (cap) {
		fm->slots = calloc(cap, sizeof(*fm->slots));
		fm->heap = calloc(cap, sizeof(*fm->heap));
		if (!fm->slots || !fm->heap)
			return false;
	}
	return true;
}

static void fam_free(struct family *fm)
{
	if (fm->by_id)
		g_hash_table_destroy(fm->by_id);
	free(fm->slots);
	free(fm->heap);
}

/* a ranks below b: fewer frames, or as many and newer */
static bool below(const struct item *a, const struct item *b)
{
	return a->v[0] != b->v[0] ? a->v[0] < b->v[0] : a->id > b->id;
}

static void heap_down(struct item *h, unsigned n, unsigned i)
{
	for (;;) {
		unsigned l = 2 * i + 1, r = l + 1, m = i;
		struct item t;

		if (l < n && below(&h[l], &h[m]))
			m = l;
		if (r < n && below(&h[r], &h[m]))
			m = r;
		if (m == i)
			return;
		t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

static void heap_offer(struct family *fm, const struct item *it)
{
	unsigned i;

	if (!fm->cap)
		return;
	if (fm->nheap == fm->cap) {
		if (!below(&fm->heap[0], it))
			return;
		fm->heap[0] = *it;
		heap_down(fm->heap, fm->nheap, 0);
		return;
	}
	i = fm->nheap++;
	fm->heap[i] = *it;
	while (i) {
		unsigned p = (i - 1) / 2;
		struct item t;

		if (!below(&fm->heap[i], &fm->heap[p]))
			break;
		t = fm->heap[i];
		fm->heap[i] = fm->heap[p];
		fm->heap[p] = t;
		i = p;
	}
}

static void fam_begin(struct family *fm)
{
	for (unsigned i = 0; i < fm->cap; i++)
		fm->slots[i].seen = false;
	memset(fm->folded_sum, 0, sizeof(fm->folded_sum));
	fm->folded = 0;
	fm->nheap = 0;
}

static void fam_item(struct family *fm, const struct item *it)
{
	gpointer p = g_hash_table_lookup(fm->by_id, &it->id);

	if (p) {
		struct slot *s = &fm->slots[GPOINTER_TO_UINT(p) - 1];

		s->it = *it;
		s->seen = true;
		return;
	}
	for (unsigned j = 0; j < fm->nv; j++)
		fm->folded_sum[j] += it->v[j];
	fm->folded++;
	heap_offer(fm, it);
}

static int cmp_desc(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	return below(x, y) ? 1 : below(y, x) ? -1 : 0;
}

static void fam_end(struct family *fm, uint64_t frames_now)
{
	unsigned next = 0;

	/* owners that left the table: their place is free (their counts are in ended[]) */
	for (unsigned i = 0; i < fm->cap; i++) {
		struct slot *s = &fm->slots[i];

		if (s->used && !s->seen) {
			g_hash_table_remove(fm->by_id, &s->it.id);
			s->used = false;
		}
	}
	qsort(fm->heap, fm->nheap, sizeof(*fm->heap), cmp_desc);
	for (unsigned h = 0; h < fm->nheap; h++) {
		const struct item *it = &fm->heap[h];
		struct slot *s;

		while (next < fm->cap && fm->slots[next].used)
			next++;
		if (next == fm->cap)
			break;
		s = &fm->slots[next];
		s->used = s->seen = true;
		s->it = *it;
		/* seen at the previous update: what it had then was published in "other" */
		if (it->first_frame && it->first_frame <= fm->last_frame)
			memcpy(s->base, it->v, sizeof(s->base));
		else
			memset(s->base, 0, sizeof(s->base));
		for (unsigned j = 0; j < fm->nv; j++)
			fm->folded_sum[j] -= it->v[j];
		fm->folded--;
		g_hash_table_insert(fm->by_id, &s->it.id, GUINT_TO_POINTER(next + 1));
	}
	for (unsigned j = 0; j < fm->nv; j++) {
		uint64_t o = fm->folded_sum[j] + fm->ended[j];

		for (unsigned i = 0; i < fm->cap; i++)
			if (fm->slots[i].used)
				o += fm->slots[i].base[j];
		fm->other[j] = o;
	}
	fm->last_frame = frames_now;
}

/* ---- the analyzer's tables ------------------------------------------------------ */

static int flow_cb(void *user, const struct roce_flow_stats *f)
{
	struct family *fm = user;
	struct item it;

	memset(&it, 0, sizeof(it));
	it.id = f->id;
	it.first_frame = f->first_frame;
	it.k.key = f->key;
	flow_values(f, it.v);
	fam_item(fm, &it);
	return 0;
}

/*
 * A sender's id: MAC (48 bits), priority + 1 (4), interface (12; the run's numbers from 4095
 * on share the last one: a run of so many links is beyond a switch).  For interface 0 it
 * orders as (MAC, priority) did before interfaces were keyed: the same picks.
 */
#define PFC_IF_MAX 4095u

static int pfc_cb(void *user, const struct roce_pfc_stats *p)
{
	struct ra_promseries *ps = user;
	struct family *fm = &ps->pfc;
	uint32_t ifc = p->interface < PFC_IF_MAX ? p->interface : PFC_IF_MAX;
	struct item it;

	memset(&it, 0, sizeof(it));
	for (int i = 0; i < 6; i++)
		it.id = it.id << 8 | p->src_mac[i];
	it.id = it.id << 16 | (uint64_t)(p->priority + 1) << 12 | ifc;
	it.first_frame = p->first_frame;
	memcpy(it.k.pfc.mac, p->src_mac, 6);
	it.k.pfc.prio = p->priority;
	it.k.pfc.iface = ifc;
	if (ifc)
		ps->multi = true;
	it.v[0] = p->frames;
	it.v[1] = p->xoff;
	it.v[2] = p->xon;
	it.v[3] = p->paused_ns;
	it.v[4] = p->storms;
	fam_item(fm, &it);
	return 0;
}

static void on_flow_end(void *user, const struct roce_flow_stats *f,
			enum roce_flow_end_reason why)
{
	struct family *fm = user;
	uint64_t v[NV];

	(void)why;
	flow_values(f, v);
	for (unsigned j = 0; j < fm->nv; j++)
		fm->ended[j] += v[j];
}

ra_promseries_t *ra_promseries_new(roce_analyzer_t *an, unsigned max_streams,
				   unsigned max_senders)
{
	struct ra_promseries *ps = calloc(1, sizeof(*ps));
	struct roce_analyzer_observer obs;

	if (!ps)
		return NULL;
	if (!fam_init(&ps->st, max_streams, NV) || !fam_init(&ps->pfc, max_senders, PFC_NV))
		goto fail;
	memset(&obs, 0, sizeof(obs));
	obs.size = sizeof(obs);
	obs.on_flow_end = on_flow_end;
	obs.user = &ps->st;
	if (roce_analyzer_add_observer(an, &obs) != 0)
		goto fail;
	return ps;
fail:
	ra_promseries_free(ps);
	return NULL;
}

void ra_promseries_free(ra_promseries_t *ps)
{
	if (!ps)
		return;
	fam_free(&ps->st);
	fam_free(&ps->pfc);
	free(ps);
}

void ra_promseries_update(ra_promseries_t *ps, const roce_analyzer_t *an, uint64_t frames_now)
{
	struct roce_summary s;

	fam_begin(&ps->st);
	roce_analyzer_foreach_flow(an, flow_cb, &ps->st);
	fam_end(&ps->st, frames_now);
	fam_begin(&ps->pfc);
	roce_analyzer_foreach_pfc(an, pfc_cb, ps);
	fam_end(&ps->pfc, frames_now);
	roce_analyzer_summary(an, &s);
	ps->evicted_pfc = s.evicted_pfc;
}

/* ---- text ---------------------------------------------------------------------- */

static void value(FILE *f, const struct family *fm, unsigned j, uint64_t v)
{
	if (fm->nv == PFC_NV && j == 3)
		fprintf(f, " %.9f\n", (double)v / 1e9);      /* paused_ns: seconds */
	else
		fprintf(f, " %" PRIu64 "\n", v);
}

static void st_labels(FILE *f, const char *iface, const struct item *it)
{
	char a[64];

	fputs("{interface=\"", f);
	ra_prom_label(f, iface);
	if (!it) {
		fputs("\",version=\"other\",src=\"other\",dst=\"other\",dqpn=\"other\"}", f);
		return;
	}
	roce_addr_str(it->k.key.src, a, sizeof(a));
	fprintf(f, "\",version=\"%u\",src=\"", (unsigned)it->k.key.version);
	ra_prom_label(f, a);
	roce_addr_str(it->k.key.dst, a, sizeof(a));
	fputs("\",dst=\"", f);
	ra_prom_label(f, a);
	fprintf(f, "\",dqpn=\"%" PRIu32 "\"}", it->k.key.dqpn);
}

/*
 * With senders on more than one capture interface (a pcapng of several links), the sender
 * series carry the link too: interface_id (the run's number, as --json's "interface") and
 * if_name (the pcapng if_name, empty when the interface has none); "other" for both in the
 * folded series.  A one-interface run (a live capture, a classic pcap) has neither.
 */
static void pfc_link_labels(FILE *f, const struct ra_promseries *ps, const struct item *it)
{
	const char *n;

	if (!ps->multi)
		return;
	if (!it) {
		fputs(",interface_id=\"other\",if_name=\"other\"", f);
		return;
	}
	n = it->k.pfc.iface < ps->n_ifaces ? ps->ifaces[it->k.pfc.iface].name : NULL;
	fprintf(f, ",interface_id=\"%" PRIu32 "\",if_name=\"", it->k.pfc.iface);
	ra_prom_label(f, n ? n : "");
	fputc('"', f);
}

static void pfc_labels(FILE *f, const struct ra_promseries *ps, const char *iface,
		       const struct item *it)
{
	char m[32];

	fputs("{interface=\"", f);
	ra_prom_label(f, iface);
	if (!it) {
		fputs("\",mac=\"other\",priority=\"other\"", f);
	} else {
		roce_mac_str(it->k.pfc.mac, m, sizeof(m));
		if (it->k.pfc.prio < 0)
			fprintf(f, "\",mac=\"%s\",priority=\"pause\"", m);
		else
			fprintf(f, "\",mac=\"%s\",priority=\"%d\"", m, it->k.pfc.prio);
	}
	pfc_link_labels(f, ps, it);
	fputc('}', f);
}

static void st_labels_ps(FILE *f, const struct ra_promseries *ps, const char *iface,
			 const struct item *it)
{
	(void)ps;
	st_labels(f, iface, it);
}

static void fam_format(FILE *f, const struct ra_promseries *ps, const struct family *fm,
		       const char *const (*names)[2], const char *iface,
		       void (*labels)(FILE *, const struct ra_promseries *, const char *,
				      const struct item *))
{
	for (unsigned j = 0; j < fm->nv; j++) {
		const char *n = names[j][0];

		fprintf(f, "# HELP %s %s\n# TYPE %s counter\n", n, names[j][1], n);
		for (unsigned i = 0; i < fm->cap; i++) {
			const struct slot *s = &fm->slots[i];

			if (!s->used)
				continue;
			fputs(n, f);
			labels(f, ps, iface, &s->it);
			value(f, fm, j, s->it.v[j] - s->base[j]);
		}
		fputs(n, f);
		labels(f, ps, iface, NULL);
		value(f, fm, j, fm->other[j]);
	}
}

static void gauge(FILE *f, const char *n, const char *help, const char *iface, uint64_t v)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s gauge\n%s{interface=\"", n, help, n, n);
	ra_prom_label(f, iface);
	fprintf(f, "\"} %" PRIu64 "\n", v);
}

void ra_promseries_format(FILE *f, const ra_promseries_t *ps, const char *iface)
{
	unsigned used = 0;

	fam_format(f, ps, &ps->st, st_names, iface, st_labels_ps);
	for (unsigned i = 0; i < ps->st.cap; i++)
		used += ps->st.slots[i].used;
	gauge(f, "roce_streams_labelled", "Streams with their own roce_stream_* series now.",
	      iface, used);
	gauge(f, "roce_streams_folded",
	      "Live streams counted in the series labelled \"other\" (over --prometheus-max-streams).",
	      iface, ps->st.folded);
	fam_format(f, ps, &ps->pfc, pfc_names, iface, pfc_labels);
	used = 0;
	for (unsigned i = 0; i < ps->pfc.cap; i++)
		used += ps->pfc.slots[i].used;
	gauge(f, "roce_pfc_senders_labelled",
	      "PFC/PAUSE senders (MAC, priority) with their own series now.", iface, used);
	gauge(f, "roce_pfc_senders_folded",
	      "Senders counted in the series labelled \"other\" (over --prometheus-max-senders).",
	      iface, ps->pfc.folded);
	fprintf(f, "# HELP roce_pfc_senders_evicted_total Senders evicted from the analyzer's "
		"PFC table (their counts are lost).\n# TYPE roce_pfc_senders_evicted_total counter\n"
		"roce_pfc_senders_evicted_total{interface=\"");
	ra_prom_label(f, iface);
	fprintf(f, "\"} %" PRIu64 "\n", ps->evicted_pfc);
}

void ra_promseries_set_ifaces(ra_promseries_t *ps, const struct ra_iface *ifaces, uint32_t n)
{
	ps->ifaces = ifaces;
	ps->n_ifaces = n;
}
