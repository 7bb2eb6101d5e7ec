// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * an_export.c - reading the analyzer out: its memory accounting
 * (roce_analyzer_memory(), and what the max_memory cap counts), the end of a
 * run (finish(): unrecovered PSNs, pauses closed), the summary, and the walks
 * over every stream and PFC entry (iteration, struct roce_flow_stats).
 * Nothing here runs per frame; analyzer.c calls an_mem_in_use() only when a
 * new stream meets the max_memory cap.
 *
 * finish() computes unrecovered PSNs and closes pauses; calling it twice in
 * a row does nothing, processing more frames re-arms it.
 */
#include <stdio.h>
#include <string.h>

#include "an_internal.h"

/* ---------------------------------------------------------------- memory */

static uint64_t pool_in_use(const struct an_pool *p)
{
	return p->live * p->size;
}

static uint64_t table_bytes(const struct an_table *t)
{
	return (uint64_t)(t->mask + 1) * sizeof(*t->slots) + (uint64_t)t->dense_cap * sizeof(*t->dense);
}

/* Bytes mapped for the slot arrays beyond their slots (whole huge pages from 2 MiB): in the
 * total only, not in what --max-memory counts. */
static uint64_t tables_pad(const struct roce_analyzer *a)
{
	return an_zalloc_pad((size_t)(a->flows.mask + 1) * sizeof(*a->flows.slots)) +
		an_zalloc_pad((size_t)(a->pfc.mask + 1) * sizeof(*a->pfc.slots)) +
		an_zalloc_pad((size_t)(a->pair.hp.mask + 1) * sizeof(*a->pair.hp.slots));
}

static uint64_t tables_bytes(const struct roce_analyzer *a)
{
	return table_bytes(&a->flows) + table_bytes(&a->pfc) + an_pair_bytes(&a->pair) +
		(uint64_t)a->pfc.n * sizeof(struct an_pfc);
}

/* Bytes the --max-memory cap counts: records in use, tables, histograms, rings. */
uint64_t an_mem_in_use(const struct roce_analyzer *a)
{
	const struct an_pools *p = &a->pool;

	return pool_in_use(&p->flow) + pool_in_use(&p->req) + pool_in_use(&p->req_lat) +
		pool_in_use(&p->rsp) + pool_in_use(&p->lat_x) + pool_in_use(&p->ctr) +
		pool_in_use(&p->ack1) + pool_in_use(&p->rd1) + a->hist_bytes + a->var_bytes +
		a->err_bytes + tables_bytes(a);
}

void roce_analyzer_memory(const roce_analyzer_t *a, struct roce_analyzer_memory *out)
{
	const struct an_pools *p = &a->pool;
	struct roce_analyzer_memory m;
	uint64_t var = 0, blocks, hist_blocks = 0, hist_pooled = 0, req_lat;

	memset(&m, 0, sizeof(m));
	m.size = sizeof(m);
	for (uint32_t i = 0; i < a->flows.len; i++) {
		const struct an_flow *f = (const struct an_flow *)an_dense_at(&a->flows, i);

		if (f)
			var += an_req_var_bytes(f->req) + an_rsp_var_bytes(f->rsp);
	}
	m.streams = a->flows.n;
	/* (the distributions of struct an_req_lat are latency bytes) */
	req_lat = p->req_lat.live * sizeof(((struct an_req_lat *)0)->d);
	m.stream_bytes = pool_in_use(&p->flow) + pool_in_use(&p->req) +
		pool_in_use(&p->req_lat) - req_lat + pool_in_use(&p->rsp) + pool_in_use(&p->ctr) +
		pool_in_use(&p->ack1) + pool_in_use(&p->rd1) + var + a->err_bytes;
	m.latency_bytes = req_lat + pool_in_use(&p->lat_x) + a->hist_bytes;
	m.table_bytes = tables_bytes(a);
	blocks = p->flow.block_bytes + p->req.block_bytes + p->req_lat.block_bytes +
		p->rsp.block_bytes + p->lat_x.block_bytes + p->ctr.block_bytes +
		p->ack1.block_bytes + p->rd1.block_bytes + a->pair.hp_pool.block_bytes + a->pair.pn_pool.block_bytes;
	/* (hist_bytes counts the histograms from the pools, hist_pooled, and from the heap) */
	for (unsigned i = 0; i < AN_HIST_POOLS; i++) {
		hist_blocks += p->hist[i].block_bytes;
		hist_pooled += pool_in_use(&p->hist[i]);
	}
	blocks += hist_blocks;
	m.pooled_bytes = blocks - (pool_in_use(&p->flow) + pool_in_use(&p->req) +
		pool_in_use(&p->req_lat) + pool_in_use(&p->rsp) + pool_in_use(&p->lat_x) +
		pool_in_use(&p->ctr) + pool_in_use(&p->ack1) + pool_in_use(&p->rd1) +
		pool_in_use(&a->pair.hp_pool) + pool_in_use(&a->pair.pn_pool) + hist_pooled) +
		(a->arena.bytes - a->arena.given);
	m.in_use = m.stream_bytes + m.latency_bytes + m.table_bytes;
	/* (table_bytes counts the pairing index's records in use, blocks all of them) */
	/* (the arena's chunks: the blocks handed out, counted above, and the rest) */
	m.bytes = blocks + (a->arena.bytes - a->arena.given) + a->arena.dead + var + a->err_bytes +
		a->hist_bytes - hist_pooled + m.table_bytes -
		pool_in_use(&a->pair.hp_pool) - pool_in_use(&a->pair.pn_pool) + tables_pad(a) +
		sizeof(*a);
	*out = m;
}

/* ------------------------------------------------------------------ end */

void roce_analyzer_finish(roce_analyzer_t *a)
{
	uint64_t total;

	if (a->finished)
		return;
	a->finished = true;
	total = a->evicted_unrec;
	/* (no hole array anywhere: no stream misses a PSN, nothing to report) */
	for (uint32_t i = 0; a->holed && i < a->flows.len; i++) {
		struct an_flow *f = (struct an_flow *)an_dense_at(&a->flows, i);

		an_flows_prefetch(&a->flows, i);
		const struct an_holeset *hs = NULL;
		unsigned nh;
		uint64_t n;

		if (!f || (!f->req && !f->rsp))
			continue;
		n = an_flow_unrecovered(f);    /* (a stream's count: an_flow_export()) */
		total += n;
		if (f->req && f->req->hs.nholes)
			hs = &f->req->hs;
		else if (f->rsp && f->rsp->hs.nholes)
			hs = &f->rsp->hs;
		nh = (f->req ? f->req->hs.nholes : 0) + (f->rsp ? f->rsp->hs.nholes : 0);
		if (n && a->want_an) {
			struct roce_anomaly an;

			/* reported at the end of the capture: last frame number seen */
			an_init(&an, ROCE_AN_UNRECOVERED, a->last_frame, a->sum.last_ts_ns, f);
			an.count = n;
			if (hs) {
				an.has_psn = true;
				an.psn = hs->holes[0].start;
			}
			snprintf(an.detail, sizeof(an.detail),
				"%llu PSN%s never seen (%u hole%s left)", (unsigned long long)n,
				n == 1 ? "" : "s", nh, nh == 1 ? "" : "s");
			an_emit(a, &an);
		}
	}
	a->sum.unrecovered_psns = total;
	for (uint32_t i = 0; i < a->pfc.len; i++) {
		struct an_pfc *e = (struct an_pfc *)an_dense_at(&a->pfc, i);

		if (e && e->paused)
			an_pfc_close(a, e, e->deadline, a->last_frame, a->sum.last_ts_ns, NULL);
	}
}

void roce_analyzer_summary_sized(const roce_analyzer_t *a, struct roce_summary *out, size_t size)
{
	struct roce_summary s = a->sum;
	uint64_t unrec = a->evicted_unrec;

	/* PSNs missing now: the same count finish() reports, at any time */
	for (uint32_t i = 0; a->holed && i < a->flows.len; i++) {
		const struct an_flow *f = (const struct an_flow *)an_dense_at(&a->flows, i);

		an_flows_prefetch(&a->flows, i);
		if (f)
			unrec += an_flow_unrecovered(f);
	}
	s.unrecovered_psns = unrec;
	s.flows_active = a->flows.n;
	if (!a->cfg.pmtu)
		s.pmtu = a->pmtu_learned;
	s.now_ns = a->now;
	if (size > sizeof(s))
		size = sizeof(s);
	s.size = (uint32_t)size;
	memcpy(out, &s, size);
}

void roce_analyzer_summary(const roce_analyzer_t *a, struct roce_summary *out)
{
	roce_analyzer_summary_sized(a, out, sizeof(*out));
}

/* ------------------------------------------------------------ iteration */

/* (inlined into roce_analyzer_foreach_flow(), as before the dense-array walk) */
static inline __attribute__((always_inline)) void flow_export(const struct an_flow *f,
	struct roce_flow_stats *o)
{
	const struct an_fstat *s = &f->st;
	static const struct an_dist none;
	const struct an_dist *d;

	memset(o, 0, sizeof(*o));
	o->size = sizeof(*o);
	o->id = f->ent.seq + 1;
	o->key = s->key;
	o->transport = s->transport;
	o->last_psn = s->last & 0xffffffu;
	o->pmtu = s->pmtu;
	o->is_request = s->is_request;
	o->has_peer = f->peer != NULL;
	o->frames = an_flow_frames(f);
	o->bytes = s->bytes;
	o->payload_bytes = s->payload_bytes;
	o->last_ts_ns = s->last_ts_ns;
	o->messages = f->req ? f->req->messages : 0;
	o->first_psn = s->first_psn;
	if (f->peer)
		o->peer = f->peer->st.key;
	o->first_frame = s->first_frame;
	o->first_ts_ns = s->first_ts_ns;
	if (f->ctr) {
		o->counters = *f->ctr;
		o->acked_unseen_psns = ((const struct an_ctr *)f->ctr)->acked_unseen_psns;
		o->capture_copies = ((const struct an_ctr *)f->ctr)->capture_copies;
	}
	if (f->rsp)
		o->acks += f->rsp->acks;
	o->ecn_capable += s->ecn_capable;
	if (an_flow_lat_x(f)) {
		o->cnps += an_flow_lat_x(f)->cnps;
		o->cnp_min_gap_ns = an_flow_lat_x(f)->cnp_min_gap_ns;
	}
	o->unrecovered_psns = an_flow_unrecovered(f);   /* missing now */
#define AN_DIST_OUT(k, m) \
	d = an_lat_dist(f, k); \
	an_dist_export(d ? d : &none, &o->m)
	AN_DIST_OUT(AN_LAT_RTT, rtt);
	AN_DIST_OUT(AN_LAT_READ_FIRST, read_first);
	AN_DIST_OUT(AN_LAT_READ_LAST, read_last);
	AN_DIST_OUT(AN_LAT_NAK_RESPONSE, nak_response);
	AN_DIST_OUT(AN_LAT_RECOVERY, recovery);
#undef AN_DIST_OUT
	o->src_qp = f->req ? f->req->src_qp : 0;
	o->pkey = s->pkey;
}

void an_flow_export(const struct an_flow *f, struct roce_flow_stats *o)
{
	flow_export(f, o);
}

/* Live entries in creation (first-seen) order: the dense arrays' order. */
void roce_analyzer_foreach_flow(const roce_analyzer_t *a, roce_flow_cb cb, void *user)
{
	for (uint32_t i = 0; i < a->flows.len; i++) {
		const struct an_flow *f = (const struct an_flow *)an_dense_at(&a->flows, i);
		struct roce_flow_stats st;

		if (!f)
			continue;
		flow_export(f, &st);
		if (cb(user, &st))
			break;
	}
}

void roce_analyzer_foreach_pfc(const roce_analyzer_t *a, roce_pfc_cb cb, void *user)
{
	for (uint32_t i = 0; i < a->pfc.len; i++) {
		const struct an_pfc *e = (const struct an_pfc *)an_dense_at(&a->pfc, i);
		struct roce_pfc_stats st;

		if (!e)
			continue;
		an_pfc_export(a, e, &st);
		if (cb(user, &st))
			break;
	}
}
