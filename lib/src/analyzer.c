// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * analyzer.c - stateful RoCE analysis: per-stream PSN sequencing, go-back-N
 * and its cause, NAK / RNR classification, ACK and READ latencies, ECN CE,
 * CNP, and per (source MAC, priority) PFC / PAUSE timing with storms.
 *
 * The work is split by concern (an_internal.h lists the files): this file
 * creates and destroys the analyzer, dispatches each frame, finds, creates
 * and evicts streams, and advances time without a frame; an_export.c reads
 * it out (memory, finish, summary, iteration).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "an_internal.h"
#include "decode_fast.h"
#include "layout.h"

#define AN_DEF_MAX_FLOWS   1000000u
#define AN_DEF_MAX_PFC     4096u
#define AN_DEF_SPEED_GBPS  100.0
#define AN_DEF_STORM_NS    200000000ull
#define AN_MAX_CAP         (1u << 26)
#define AN_MEM_EVICT       4           /* streams evicted per new stream over max_memory */
/* a stream's last activity, for an_table_victim(): its newest frame time */
#define AN_FLOW_AGE        (offsetof(struct an_flow, st) + offsetof(struct an_fstat, last_ts_ns))

/* ---------------------------------------------------------------- names */

/* (anomaly and event names: anomaly.c, from anomalies.def) */

const char *roce_retx_cause_name(enum roce_retx_cause c)
{
	switch (c) {
	case ROCE_RETX_NAK: return "nak";
	case ROCE_RETX_RNR: return "rnr";
	case ROCE_RETX_TIMEOUT: return "timeout";
	default: return "none";
	}
}

void roce_analyzer_config_init(struct roce_analyzer_config *c)
{
	if (!c)
		return;
	memset(c, 0, sizeof(*c));
	c->max_flows = AN_DEF_MAX_FLOWS;
	c->max_pfc = AN_DEF_MAX_PFC;
	c->pmtu = 0;
	c->link_speed_gbps = AN_DEF_SPEED_GBPS;
	c->pfc_storm_ns = AN_DEF_STORM_NS;
	c->copy_window_ns = ROCE_COPY_WINDOW_NS;
	c->size = sizeof(*c);
}

static void set_err(char *errbuf, const char *msg)
{
	if (errbuf)
		snprintf(errbuf, ROCE_ERRBUF_SIZE, "%s", msg);
}

roce_analyzer_t *roce_analyzer_create(const struct roce_analyzer_config *c, char *errbuf)
{
	struct roce_analyzer *a;
	struct roce_analyzer_config cfg;

	roce_analyzer_config_init(&cfg);
	if (c) {
		/* a caller built against an older header: its members only (0 = all) */
		size_t n = c->size && c->size < sizeof(cfg) ? c->size : sizeof(cfg);

		memcpy(&cfg, c, n);
		cfg.size = sizeof(cfg);
	}
	if (cfg.max_flows == 0)
		cfg.max_flows = AN_DEF_MAX_FLOWS;
	if (cfg.max_pfc == 0)
		cfg.max_pfc = AN_DEF_MAX_PFC;
	if (cfg.link_speed_gbps == 0)
		cfg.link_speed_gbps = AN_DEF_SPEED_GBPS;
	if (cfg.pfc_storm_ns == 0)
		cfg.pfc_storm_ns = AN_DEF_STORM_NS;
	if (cfg.max_flows > AN_MAX_CAP || cfg.max_pfc > AN_MAX_CAP) {
		set_err(errbuf, "analyzer: max_flows / max_pfc too large (limit 67108864)");
		return NULL;
	}
	if (cfg.pmtu && !an_pmtu_valid(cfg.pmtu)) {
		set_err(errbuf, "analyzer: pmtu must be 0 or one of 256, 512, 1024, 2048, 4096");
		return NULL;
	}
	if (!(cfg.link_speed_gbps > 0) || isinf(cfg.link_speed_gbps)) {
		set_err(errbuf, "analyzer: link speed must be a positive number of Gb/s");
		return NULL;
	}
	a = calloc(1, sizeof(*a));
	if (!a) {
		set_err(errbuf, "analyzer: out of memory");
		return NULL;
	}
	a->cfg = cfg;
	a->want_an = cfg.on_anomaly != NULL;
	roce_analyzer_set_discard_flag(a, NULL);
	/* request state on cache-line boundaries (hot fields: an_internal.h) */
	an_pool_init(&a->pool.flow, sizeof(struct an_flow), AN_FLOW_ALIGN);
	an_pool_init(&a->pool.req, sizeof(struct an_req), 32);   /* (96 bytes) */
	an_pool_init(&a->pool.req_lat, sizeof(struct an_req_lat), AN_LINE);      /* (256 bytes) */
	an_pool_init(&a->pool.rsp, sizeof(struct an_rsp), 8);
	an_pool_init(&a->pool.lat_x, sizeof(struct an_lat_x), 8);
	an_pool_init(&a->pool.ctr, sizeof(struct an_ctr), 8);
	an_pool_init(&a->pool.ack1, AN_ACK_FIRST * sizeof(struct an_ackent), 8);
	an_pool_init(&a->pool.rd1, AN_READ_FIRST * sizeof(struct an_readent), 8);
	for (unsigned i = 0; i < AN_HIST_POOLS; i++)
		an_pool_init(&a->pool.hist[i], 16 * (i + 1) * sizeof(uint64_t), AN_LINE);
	if (an_table_init(&a->flows, cfg.max_flows) || an_table_init(&a->pfc, cfg.max_pfc) ||
	    an_pair_init(&a->pair, cfg.max_flows)) {
		an_table_free(&a->flows);
		an_table_free(&a->pfc);
		an_pair_free(&a->pair);
		free(a);
		set_err(errbuf, "analyzer: out of memory");
		return NULL;
	}
	/* every pool's smaller blocks share the arena's chunks */
	a->pool.flow.arena = a->pool.req.arena = a->pool.req_lat.arena = &a->arena;
	a->pool.rsp.arena = a->pool.lat_x.arena = a->pool.ctr.arena = &a->arena;
	a->pool.ack1.arena = a->pool.rd1.arena = &a->arena;
	for (unsigned i = 0; i < AN_HIST_POOLS; i++)
		a->pool.hist[i].arena = &a->arena;
	a->pair.hp_pool.arena = a->pair.pn_pool.arena = &a->arena;
	/* and the slot arrays below 2 MiB (the pairing index's buckets go with its table) */
	a->flows.arena = a->pfc.arena = a->pair.hp.arena = &a->arena;
	a->sum.pmtu = cfg.pmtu;
	return a;
}

/* f's records go back to their pools (the memory of an evicted stream is reused). */
static void flow_free(struct roce_analyzer *a, struct an_flow *f)
{
	an_predict_forget(a, f);        /* (the record may come back as another stream) */
	if (a->cfg.max_memory)
		a->var_bytes -= an_req_var_bytes(f->req) + an_rsp_var_bytes(f->rsp);
	if (an_flow_holed(f))
		a->holed--;
	an_req_free(a, f->req);
	an_rsp_free(a, f->rsp);
	an_lat_free(a, f);
	an_pool_put(&a->pool.ctr, f->ctr);
	an_pool_put(&a->pool.flow, f);
}

static void pools_free(struct an_pools *p)
{
	an_pool_free(&p->flow);
	an_pool_free(&p->req);
	an_pool_free(&p->req_lat);
	an_pool_free(&p->rsp);
	an_pool_free(&p->lat_x);
	an_pool_free(&p->ctr);
	an_pool_free(&p->ack1);
	an_pool_free(&p->rd1);
	for (unsigned i = 0; i < AN_HIST_POOLS; i++)
		an_pool_free(&p->hist[i]);
}

void roce_analyzer_destroy(roce_analyzer_t *a)
{
	struct an_pools *p;

	if (!a)
		return;
	/* only the heap arrays are freed one by one: the pools go as whole blocks */
	p = &a->pool;
	p->flow.closing = p->req.closing = p->req_lat.closing = p->rsp.closing = true;
	p->lat_x.closing = true;
	p->ctr.closing = p->ack1.closing = p->rd1.closing = true;
	for (unsigned i = 0; i < AN_HIST_POOLS; i++)
		p->hist[i].closing = true;
	for (uint32_t i = 0; i < a->flows.len; i++) {
		an_flows_prefetch(&a->flows, i);
		if (an_dense_at(&a->flows, i))
			flow_free(a, (struct an_flow *)an_dense_at(&a->flows, i));
	}
	pools_free(&a->pool);
	for (uint32_t i = 0; i < a->pfc.len; i++)
		free(an_dense_at(&a->pfc, i));
	an_table_free(&a->flows);
	an_table_free(&a->pfc);
	an_pair_free(&a->pair);
	an_arena_free(&a->arena);       /* after the pools carved from it */
	free(a);
}

/* ---------------------------------------------------------- observers */

/* (anomaly emission, observer calls, event-counter blocks: an_event.c) */

int roce_analyzer_add_observer(roce_analyzer_t *a, const struct roce_analyzer_observer *o)
{
	struct roce_analyzer_observer *d;
	size_t n = o->size && o->size < sizeof(*d) ? o->size : sizeof(*d);

	if (a->nobs >= ROCE_MAX_OBSERVERS)
		return ROCE_E_INVAL;
	d = &a->obs[a->nobs++];
	memset(d, 0, sizeof(*d));
	memcpy(d, o, n);
	d->size = sizeof(*d);
	if (d->on_anomaly)
		a->want_an = true;
	if (d->on_frame && !(d->flags & ROCE_OBS_EVENT_FIELDS))
		a->obs_full = true;
	return ROCE_OK;
}

/* ---------------------------------------------------------- flow lookup */

static inline uint64_t hash_round(uint64_t h, uint64_t w)
{
	h ^= w * 0x9e3779b97f4a7c15ull;
	h = (h << 31 | h >> 33) * 0xc2b2ae3d27d4eb4full;
	return h;
}

/* The key's hash from its version, QPN and addresses as four words (src, dst). */
static inline __attribute__((always_inline)) uint32_t flow_hash_words(uint8_t version,
	uint32_t dqpn, const uint64_t w[4])
{
	uint64_t h = (uint64_t)version << 32 | (dqpn & 0xffffffu);

	h = hash_round(h, w[0]);
	h = hash_round(h, w[1]);
	h = hash_round(h, w[2]);
	h = hash_round(h, w[3]);
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return (uint32_t)h;
}

/* Word-wise multiply/rotate hash of the 37-byte key with a murmur3 finaliser. */
static inline __attribute__((always_inline)) uint32_t flow_hash(const struct roce_flow_key *k)
{
	uint64_t w[4];

	memcpy(&w[0], k->src, 16);
	memcpy(&w[2], k->dst, 16);
	return flow_hash_words(k->version, k->dqpn, w);
}

/* A stream key against version, QPN and the addresses as flow_hash()'s four 64-bit words
 * (memcmp() twice was 20 instructions a frame). */
static inline __attribute__((always_inline)) bool key_eq_words(const struct roce_flow_key *x,
	uint8_t version, uint32_t dqpn, const uint64_t w[4])
{
	uint64_t a[4];

	if (x->version != version || x->dqpn != dqpn)
		return false;
	memcpy(&a[0], x->src, 16);
	memcpy(&a[2], x->dst, 16);
	return ((a[0] ^ w[0]) | (a[1] ^ w[1]) | (a[2] ^ w[2]) | (a[3] ^ w[3])) == 0;
}

/* The stream of the key given as words (key_eq_words()) with hash h, NULL if none. */
static inline __attribute__((always_inline)) struct an_flow *flow_find_words(
	const struct roce_analyzer *a, uint8_t version, uint32_t dqpn, const uint64_t w[4],
	uint32_t h)
{
	const struct an_table *t = &a->flows;
	uint32_t i = h & t->mask;

	while (t->slots[i].e) {
		struct an_flow *f = (struct an_flow *)t->slots[i].e;

		if (t->slots[i].hash == h && key_eq_words(&f->st.key, version, dqpn, w))
			return f;
		i = (i + 1) & t->mask;
	}
	return NULL;
}

static inline __attribute__((always_inline)) struct an_flow *flow_find(
	const struct roce_analyzer *a, const struct roce_flow_key *k, uint32_t h)
{
	uint64_t w[4];

	memcpy(&w[0], k->src, 16);
	memcpy(&w[2], k->dst, 16);
	return flow_find_words(a, k->version, k->dqpn, w, h);
}

/* f leaves the table (evicted or expired): observers get its final stats.  Out of
 * line: inlined into flow_get() (eviction) it cost the lookup of every frame
 * registers (2 instructions a frame). */
static __attribute__((noinline)) void flow_end(struct roce_analyzer *a, struct an_flow *f, enum roce_flow_end_reason why)
{
	if (a->nobs) {
		struct roce_flow_stats st;

		an_flow_export(f, &st);
		for (unsigned i = 0; i < a->nobs; i++)
			if (a->obs[i].on_flow_end)
				a->obs[i].on_flow_end(a->obs[i].user, &st, why);
	}
	an_pair_forget(a, f);
	a->evicted_unrec += an_flow_unrecovered(f);
	an_table_remove(&a->flows, &f->ent, flow_hash(&f->st.key));
	flow_free(a, f);
}

static void flow_evict(struct roce_analyzer *a, struct an_flow *f, uint64_t frame, uint64_t ts)
{
	struct roce_anomaly an;

	a->sum.evicted_flows++;
	an_init(&an, ROCE_AN_FLOW_EVICTED, frame, ts, f);
	snprintf(an.detail, sizeof(an.detail),
		"stream table full (%u): least recently active stream dropped after %llu frames",
		a->cfg.max_flows, (unsigned long long)an_flow_frames(f));
	an_emit(a, &an);
	flow_end(a, f, ROCE_FLOW_END_EVICTED);
}

/*
 * Idle expiry: look at up to n streams from the sweep cursor (the table's
 * cursor: first-seen order, wrapping), expiring those idle for
 * idle_timeout_ns.  process() looks at 2 per frame, advance() at all of them.
 * Out of line, as flow_end(): inlined, it cost every frame 2 instructions.
 */
static __attribute__((noinline)) void idle_sweep(struct roce_analyzer *a, uint32_t n)
{
	uint64_t idle = a->cfg.idle_timeout_ns;
	struct an_table *t = &a->flows;

	while (n-- && t->n) {
		uint32_t i = t->cursor;
		struct an_flow *f;

		while (!an_dense_at(t, i))
			i++;            /* (the last element is live) */
		f = (struct an_flow *)an_dense_at(t, i);
		t->cursor = i + 1 < t->len ? i + 1 : 0;
		if (a->now >= f->st.last_ts_ns && a->now - f->st.last_ts_ns >= idle) {
			a->sum.expired_flows++;
			flow_end(a, f, ROCE_FLOW_END_EXPIRED);
		}
	}
}

static void flow_key_of(const struct roce_pkt *p, struct roce_flow_key *k)
{
	memset(k, 0, sizeof(*k));
	k->version = p->version;
	memcpy(k->src, p->src, 16);
	memcpy(k->dst, p->dst, 16);
	k->dqpn = p->bth.dqpn & 0xffffffu;
}

/*
 * Slot arrays up to this many slots (12 bytes each: 192 KiB) stay in the caches.  From 16,384
 * slots (4,096 streams) the slot and record hints pay on long-lived streams although the stream
 * state still fits the last-level cache (docs/perf/many-qps-prefetch.md, 5 December 2026, 07:40); a
 * measurement build may set another value (-DAN_PREFETCH_MIN_SLOTS=N).
 */
#ifndef AN_PREFETCH_MIN_SLOTS
#define AN_PREFETCH_MIN_SLOTS 16384u
#endif

bool roce_analyzer_prefetch_wanted(const roce_analyzer_t *a)
{
	return a->flows.mask + 1 >= AN_PREFETCH_MIN_SLOTS;
}

/*
 * The frame's stream-table hash as flow_get() computes it, for any layout that
 * prefetch_slot() places (up to two VLAN tags, IPv4 with options, IPv6, RoCE v1);
 * 0: not placed.
 */
static uint32_t frame_hash_full(const uint8_t *frame, size_t caplen)
{
	uint64_t w[4];
	size_t off = ROCE_ETH_HLEN, bth;
	uint16_t et;
	uint8_t version;

	/* the Ethernet header, two tags and an IPv4 header's fixed part: checked once */
	if (caplen < ROCE_ETH_HLEN + ROCE_VLAN_TAG_LEN * 2 + ROCE_IPV4_MIN_HLEN)
		return 0;
	et = roce_get_be16(frame + ROCE_ETH_OFF_TYPE);
	for (int i = 0; i < 2 && (et == ROCE_ETHERTYPE_8021Q || et == ROCE_ETHERTYPE_8021AD ||
				  et == ROCE_ETHERTYPE_QINQ_OLD); i++) {
		et = roce_get_be16(frame + off + 2);
		off += ROCE_VLAN_TAG_LEN;
	}
	/*
	 * the key's words as flow_key_of() and flow_hash() make them, without the key;
	 * the hash in each branch: IPv4's zero words fold into constants
	 */
	if (et == ROCE_ETHERTYPE_IPV4) {
		const uint8_t *ip = frame + off;        /* (20 bytes there: checked above) */
		/* ::ffff:a.b.c.d, bytes 8-15 */
		uint8_t m[2][8] = { { 0, 0, 0xff, 0xff }, { 0, 0, 0xff, 0xff } };

		memcpy(&m[0][4], ip + ROCE_IPV4_OFF_SRC, 4);
		memcpy(&m[1][4], ip + ROCE_IPV4_OFF_DST, 4);
		w[0] = w[2] = 0;
		memcpy(&w[1], m[0], 8);
		memcpy(&w[3], m[1], 8);
		bth = off + (size_t)(ip[0] & 0xf) * 4 + ROCE_UDP_HLEN;
		if (!ROCE_SPAN_OK(caplen, bth, ROCE_BTH_LEN))
			return 0;
		return flow_hash_words(2, roce_get_be24(frame + bth + ROCE_BTH_OFF_DQPN), w);
	}
	if ((et == ROCE_ETHERTYPE_IPV6 || et == ROCE_ETHERTYPE_ROCE) &&
	    ROCE_SPAN_OK(caplen, off, ROCE_IPV6_HLEN)) {
		version = et == ROCE_ETHERTYPE_ROCE ? 1 : 2;
		memcpy(&w[0], frame + off + ROCE_IP6_OFF_SRC, 16);
		memcpy(&w[2], frame + off + ROCE_IP6_OFF_DST, 16);
		bth = off + ROCE_IPV6_HLEN + (version == 2 ? ROCE_UDP_HLEN : 0);
		if (!ROCE_SPAN_OK(caplen, bth, ROCE_BTH_LEN))
			return 0;
		return flow_hash_words(version, roce_get_be24(frame + bth + ROCE_BTH_OFF_DQPN), w);
	}
	return 0;
}

/* Bytes 8-15 of the IPv4-mapped address ::ffff:a.b.c.d of the 4 bytes at ip (flow_key_of()). */
static inline uint64_t v4_mapped_word(const uint8_t *ip)
{
	uint8_t m[8] = { 0, 0, 0xff, 0xff };
	uint64_t w;

	memcpy(&m[4], ip, 4);
	memcpy(&w, m, 8);
	return w;
}

/* The lengths of the common layout: Ethernet, at most one 802.1Q tag, IPv4 without options. */
#define PF_V4_LEN (ROCE_IPV4_MIN_HLEN + ROCE_UDP_HLEN + ROCE_BTH_LEN)

/* h's slot prefetched, h kept for flow_get() as the hash of frame (struct an_hint); h. */
static inline __attribute__((always_inline)) uint32_t hint_put(roce_analyzer_t *a,
	const uint8_t *frame, uint32_t h)
{
	uint32_t n = a->hint_n++ & (AN_HINTS - 1);  /* the hint ring (an_internal.h) */

	AN_PREFETCH(&a->flows.slots[h & a->flows.mask]);
	AN_PREFETCH_KEEP();
	a->hint[n].frame = frame;
	a->hint[n].h = h;
	return h;
}

/*
 * prefetch_slot() for a frame of another layout.  Out of line: inlined, its
 * registers were saved on the common layout's path too.
 */
static __attribute__((noinline)) uint32_t prefetch_slot_full(roce_analyzer_t *a,
	const uint8_t *frame, size_t caplen)
{
	uint32_t h = frame_hash_full(frame, caplen);

	return h ? hint_put(a, frame, h) : 0;
}

/*
 * The frame's stream-table hash as flow_get() computes it, its slot prefetched, and
 * the hash kept for flow_get() (struct an_hint); 0: not placed.  The common layout
 * (Ethernet, no tag or one 802.1Q tag, IPv4 with a 20-byte header) is read at fixed
 * offsets, what the key needs and no more; any other goes to frame_hash_full().
 */
static uint32_t prefetch_slot(roce_analyzer_t *a, int linktype, const uint8_t *frame,
	size_t caplen)
{
	size_t off = ROCE_ETH_HLEN;
	uint16_t et;

	if (!roce_analyzer_prefetch_wanted(a) || linktype != ROCE_LINKTYPE_ETHERNET ||
	    caplen < ROCE_ETH_HLEN + PF_V4_LEN)
		return 0;
	et = roce_get_be16(frame + ROCE_ETH_OFF_TYPE);
	if (et == ROCE_ETHERTYPE_8021Q) {
		et = roce_get_be16(frame + ROCE_ETH_HLEN + 2);
		off += ROCE_VLAN_TAG_LEN;
	}
	if (et == ROCE_ETHERTYPE_IPV4 && frame[off] == 0x45 && caplen >= off + PF_V4_LEN) {
		const uint8_t *ip = frame + off;
		/* flow_key_of()'s words: IPv4's zero words fold into constants */
		const uint64_t w[4] = { 0, v4_mapped_word(ip + ROCE_IPV4_OFF_SRC), 0,
					v4_mapped_word(ip + ROCE_IPV4_OFF_DST) };
		/* the QPN: one load of the BTH's reserved byte and the QPN's three */
		uint32_t dqpn = roce_get_be32(ip + ROCE_IPV4_MIN_HLEN + ROCE_UDP_HLEN +
					      ROCE_BTH_OFF_DQPN - 1) & 0xffffffu;

		return hint_put(a, frame, flow_hash_words(2, dqpn, w));
	}
	return prefetch_slot_full(a, frame, caplen);
}

void roce_analyzer_prefetch(roce_analyzer_t *a, int linktype, const uint8_t *frame,
	size_t caplen)
{
	(void)prefetch_slot(a, linktype, frame, caplen);
}

uint32_t roce_analyzer_prefetch_slot(roce_analyzer_t *a, int linktype, const uint8_t *frame,
	size_t caplen)
{
	return prefetch_slot(a, linktype, frame, caplen);
}

/*
 * The stream whose hash is h, if it sits in its home slot or the next one
 * (below half load, most do): all 144 bytes of the record, three lines on its
 * 16-byte boundary (the links, key and counters every frame reads: two
 * lines for the records that start in a line's first 16 bytes, three for
 * the others; the first frame's number and time and the event-counter
 * pointer: on the third).  Reads only the slot, loaded by
 * roce_analyzer_prefetch_slot() a frame before; a stale h (the table grew
 * since) costs a wasted hint.
 */
void roce_analyzer_prefetch_stream(const roce_analyzer_t *a, uint32_t h)
{
	const struct an_table *t = &a->flows;
	uint32_t i = h & t->mask;
	const char *e;

	if (!h)
		return;
	if (t->slots[i].hash != h) {
		i = (i + 1) & t->mask;
		if (t->slots[i].hash != h)
			return;
	}
	e = (const char *)t->slots[i].e;
	if (!e)
		return;
	AN_PREFETCH(e);
	AN_PREFETCH(e + AN_LINE);
	AN_PREFETCH(e + sizeof(struct an_flow) - 1);
	AN_PREFETCH_KEEP();
}

/* The hash prefetch_slot() kept for the frame at address frame (struct an_hint), 0 if none. */
static inline __attribute__((always_inline)) uint32_t hint_of(const struct roce_analyzer *a,
	const uint8_t *frame)
{
	for (unsigned i = 0; i < AN_HINTS; i++)
		if (a->hint[i].frame == frame)
			return a->hint[i].h;
	return 0;
}

/* The frame's stream if it exists (untrustworthy frames never create one). */
static struct an_flow *flow_lookup(struct an_ctx *c)
{
	struct roce_flow_key k;

	flow_key_of(c->pkt, &k);
	return flow_find(c->a, &k, flow_hash(&k));
}

/*
 * Before a new stream with hash h: the table at its cap loses its least recently active
 * stream near h (false: none found, no new stream), and over the memory cap up to
 * AN_MEM_EVICT streams go the same way.  Out of line: inlined, its anomaly text and
 * memory sum gave flow_new() a 248-byte stack frame and six saved registers, paid by
 * every new stream (about 15 instructions) while it runs only at a cap.
 */
static __attribute__((noinline)) bool flow_make_room(struct an_ctx *c, uint32_t h)
{
	struct roce_analyzer *a = c->a;

	if (a->flows.n >= a->flows.cap) {
		struct an_flow *v = (struct an_flow *)an_table_victim(&a->flows, h, AN_FLOW_AGE);

		if (!v)
			return false;
		flow_evict(a, v, c->frame, c->ts);
	}
	/* over the memory cap: evict like a full table (a few per new stream) */
	for (unsigned i = 0; i < AN_MEM_EVICT && a->cfg.max_memory && a->flows.n &&
	     an_mem_in_use(a) >= a->cfg.max_memory; i++) {
		struct an_flow *v = (struct an_flow *)an_table_victim(&a->flows, h, AN_FLOW_AGE);

		if (!v)
			break;
		flow_evict(a, v, c->frame, c->ts);
	}
	return true;
}

/*
 * A new stream for the frame in c (key k, hash h); NULL without room or memory.
 * Not inlined into flow_get(): the lookup that nearly every frame ends with
 * keeps a small frame (registers saved, stack) of its own.
 */
static __attribute__((noinline)) struct an_flow *flow_new(struct an_ctx *c,
	const struct roce_flow_key *k, uint32_t h)
{
	struct roce_analyzer *a = c->a;
	const struct roce_pkt *p = c->pkt;
	struct an_flow *f;

	if ((a->flows.n >= a->flows.cap || a->cfg.max_memory) && !flow_make_room(c, h))
		return NULL;
	if (an_table_room(&a->flows))
		return NULL;
	f = an_pool_get(&a->pool.flow);
	if (!f)
		return NULL;
	/* the next record's middle line (an_pool_get() loaded its first and last) */
	AN_PREFETCH_W((char *)(f + 1) + AN_LINE);
	f->ent.seq = a->seq++;
	f->st.key = *k;
	f->st.first_frame = c->frame;
	f->st.first_ts_ns = c->ts;
	f->st.first_psn = p->bth.psn;
	f->st.pkey = p->bth.pkey;
	f->st.transport = roce_opcode_transport(p->bth.opcode);
	/* (read from the frame: the lean decoder leaves p->sport unset) */
	f->st.sport = p->version == 2 && p->udp_off ?
		roce_get_be16(p->frame + p->udp_off + ROCE_UDP_OFF_SPORT) : 0;
	an_table_insert(&a->flows, &f->ent, h);
	a->sum.flows++;
	return f;
}

/*
 * The frame's stream, created if new.  The lookup hashes and compares the
 * frame's own words (flow_key_of()'s values): the key struct is built only
 * for a new stream (its 40 bytes of stores were dead on every other frame).
 * A frame that prefetch_slot() was asked for is looked up under its hash
 * first (struct an_hint): the hash is computed only if that finds nothing.
 */
static inline __attribute__((always_inline)) struct an_flow *flow_get(struct an_ctx *c)
{
	const struct roce_pkt *p = c->pkt;
	const struct roce_analyzer *a = c->a;
	uint32_t dqpn = p->bth.dqpn & 0xffffffu, h, hint;
	struct roce_flow_key k;
	struct an_flow *f;
	uint64_t w[4];

	memcpy(&w[0], p->src, 16);
	memcpy(&w[2], p->dst, 16);
	/*
	 * (no hints while the table is small: prefetch_slot() keeps none; the path
	 * without them is kept apart, as it was, for the frames of a few streams)
	 */
	if (__builtin_expect(roce_analyzer_prefetch_wanted(a), 0)) {
		hint = hint_of(a, p->frame);
		if (hint) {
			f = flow_find_words(a, p->version, dqpn, w, hint);
			if (f)
				return f;
		}
		h = flow_hash_words(p->version, dqpn, w);
		if (h != hint || !h) {
			f = flow_find_words(a, p->version, dqpn, w, h);
			if (f)
				return f;
		}
	} else {
		h = flow_hash_words(p->version, dqpn, w);
		f = flow_find_words(a, p->version, dqpn, w, h);
		if (f)
			return f;
	}
	flow_key_of(p, &k);
	return flow_new(c, &k, h);
}

/* ------------------------------------------------------------ per frame */

static void malformed_report(struct an_ctx *c, struct an_flow *f)
{
	const struct roce_pkt *pkt = c->pkt;
	uint32_t m = pkt->findings & ROCE_FIND_MALFORMED_MASK;
	struct roce_anomaly an;
	size_t used = 0;

	if (!c->a->want_an)
		return;
	an_init(&an, ROCE_AN_MALFORMED, c->frame, c->ts, f);
	if (pkt->kind == ROCE_KIND_ROCE && pkt->op) {
		an.has_psn = true;
		an.psn = pkt->bth.psn & 0xffffffu;
		if (!f) {
			an.has_flow = true;
			an.flow.version = pkt->version;
			memcpy(an.flow.src, pkt->src, 16);
			memcpy(an.flow.dst, pkt->dst, 16);
			an.flow.dqpn = pkt->bth.dqpn & 0xffffffu;
		}
	}
	if ((pkt->kind == ROCE_KIND_PFC || pkt->kind == ROCE_KIND_PAUSE) && pkt->src_mac) {
		an.has_mac = true;
		memcpy(an.mac, pkt->src_mac, 6);
	}
	for (unsigned b = 0; b < ROCE_FIND_COUNT; b++) {
		const char *txt;
		int w;

		if (!(m & (1u << b)))
			continue;
		txt = roce_finding_text(1u << b);
		if (!txt)
			txt = roce_finding_name(1u << b);
		if (!txt)
			continue;
		w = snprintf(an.detail + used, sizeof(an.detail) - used, "%s%s", used ? "; " : "", txt);
		if (w < 0 || (size_t)w >= sizeof(an.detail) - used)
			break;
		used += (size_t)w;
	}
	an_emit(c->a, &an);
}

static inline __attribute__((always_inline)) void learn_pmtu(struct roce_analyzer *a,
	struct an_flow *f, const struct roce_pkt *pkt)
{
	an_learn_pmtu(a, f, pkt->op->flags, pkt->payload_len);
}

/* c's frame of f is a capture copy (an_copy.c): counted as one, and f's newest PSN and
 * opcode are again those of the frame before it (prev: PSN | opcode << 24) */
static void copy_taken(struct an_ctx *c, struct an_flow *f, uint32_t prev)
{
	f->st.last = prev;
	an_copy_count(c, f);
}

static void roce_process(struct an_ctx *c, int status)
{
	struct roce_analyzer *a = c->a;
	const struct roce_pkt *pkt = c->pkt;
	const struct roce_opcode_info *op = pkt->op;
	struct an_flow *f = NULL;
	struct roce_anomaly an;
	/*
	 * A frame the receiver would drop (bad ICRC, untrustworthy findings):
	 * counted, reported, attributed to its stream only if that exists, and
	 * otherwise without effect on any stream state.
	 */
	bool dropped = (pkt->findings & ROCE_FIND_UNTRUSTED_MASK) ||
		pkt->icrc_status == ROCE_ICRC_BAD;
	bool holed;
	/* the stream's newest PSN and opcode (bits 24-31) before the frame: a copy puts
	 * them back (an_copy.c) */
	uint32_t prev_psn = 0;
	uint64_t prev_ts = 0;
	int copy = -1;          /* an_copy_is(), once asked */

	a->sum.roce_frames++;
	if (pkt->version == 1)
		a->sum.rocev1_frames++;
	else if (pkt->version == 2)
		a->sum.rocev2_frames++;
	switch (pkt->icrc_status) {
	case ROCE_ICRC_OK: a->sum.icrc_ok++; break;
	case ROCE_ICRC_BAD: break;      /* counted with the stream, below */
	default: a->sum.icrc_unverified++; break;
	}
	if (op)
		a->sum.opcodes[pkt->bth.opcode]++;

	if (op && op->name && (status == ROCE_OK || status == ROCE_E_MALFORMED) &&
	    (op->flags & (ROCE_F_REQ | ROCE_F_RESP | ROCE_F_ACK | ROCE_F_CNP)))
		f = dropped ? flow_lookup(c) : flow_get(c);
	if (f) {
		/* what the request / response code reads next, fetched meanwhile */
		if (f->req)
			AN_PREFETCH(f->req);
		if (f->peer)
			AN_PREFETCH(f->peer);
		c->res->stream_id = f->ent.seq + 1;
		an_count_frame_of(a, f);
		f->st.bytes += pkt->wirelen;
		prev_psn = f->st.last;
		prev_ts = f->st.last_ts_ns;
		if (f->st.last_ts_ns < c->ts)
			f->st.last_ts_ns = c->ts;
		if (!dropped) {
			uint32_t word = (pkt->bth.psn & 0xffffffu) | (uint32_t)pkt->bth.opcode << 24;

			f->st.payload_bytes += pkt->payload_len;
			/* (a CNP's PSN field is reserved: not one of the stream's PSNs) */
			if (!(op->flags & ROCE_F_CNP)) {
				if (f->st.transport == ROCE_TRANSPORT_CNP) {
					/* the first frame of a stream a CNP opened */
					f->st.transport = roce_opcode_transport(pkt->bth.opcode);
					f->st.first_psn = pkt->bth.psn & 0xffffffu;
				}
				f->st.last = word;
			} else {
				f->st.last = (f->st.last & 0xffffffu) | (word & 0xff000000u);
			}
			an_copy_note(a, f, c->ts, word);
		} else {
			/* a dropped frame is the stream's newest as well (0xff: no opcode), and
			 * one of the recent frames (a damaged go-back's resend: an_copy.c) */
			f->st.last |= 0xffu << 24;
			an_copy_note(a, f, c->ts, 0xffu << 24);
		}
	}
	if (pkt->ecn)
		AN_COUNT_HOT(a, f, ecn_capable, 1);
	if (pkt->findings & ROCE_FIND_MALFORMED_MASK)
		AN_COUNT(a, f, malformed, 1);
	if (pkt->icrc_status == ROCE_ICRC_BAD)
		AN_COUNT(a, f, icrc_bad, 1);
	if (pkt->findings & ROCE_FIND_MALFORMED_MASK)
		malformed_report(c, f);
	if (pkt->icrc_status == ROCE_ICRC_BAD) {
		c->res->events |= ROCE_EV_ICRC_BAD;
		if (a->want_an) {
			an_init(&an, ROCE_AN_ICRC, c->frame, c->ts, f);
			if (op) {
				an.has_psn = true;
				an.psn = pkt->bth.psn & 0xffffffu;
			}
			snprintf(an.detail, sizeof(an.detail), "ICRC 0x%08x, computed 0x%08x",
				pkt->icrc_wire, pkt->icrc_computed);
			an_emit(a, &an);
		}
	}
	/* (a capture copy's mark was counted with the frame it copies: an_copy.c) */
	if (pkt->ecn == 3 && !(copy = f && !dropped && an_copy_is(c, f, prev_ts))) {
		c->res->events |= ROCE_EV_ECN_CE;
		AN_COUNT(a, f, ecn_ce, 1);
		if (a->want_an) {
			an_init(&an, ROCE_AN_ECN_CE, c->frame, c->ts, f);
			if (op) {
				an.has_psn = true;
				an.psn = pkt->bth.psn & 0xffffffu;
			}
			snprintf(an.detail, sizeof(an.detail), "IP ECN Congestion Experienced");
			an_emit(a, &an);
		}
	}
	if (!f || dropped)
		return;

	if (op->flags & ROCE_F_CNP) {
		/* counted with its timing (struct an_lat_x); without memory for that block
		 * the stream's count is lost, the run's is not */
		struct an_lat_x *l;

		if (copy < 0 ? an_copy_is(c, f, prev_ts) : copy) {
			copy_taken(c, f, prev_psn);
			return;
		}
		l = an_lat_x_get(a, f);

		a->sum.counters.cnps++;
		if (l) {
			l->cnps++;
			if (l->cnps > 1) {
				uint64_t gap = c->ts >= l->last_cnp_ts ? c->ts - l->last_cnp_ts : 0;

				if (l->cnps == 2 || gap < l->cnp_min_gap_ns)
					l->cnp_min_gap_ns = gap;
			}
			l->last_cnp_ts = c->ts;
		}
		c->res->events |= ROCE_EV_CNP;
		if (a->want_an) {
			an_init(&an, ROCE_AN_CNP, c->frame, c->ts, f);
			snprintf(an.detail, sizeof(an.detail), "congestion notification to QP 0x%06x",
				pkt->bth.dqpn & 0xffffffu);
			an_emit(a, &an);
		}
		return;
	}
	if ((op->flags & ROCE_F_REQ) && an_req_inorder(c, f)) {
		/* the common request: no hole or array size to follow (below) */
		a->pred.cand = f;
		f->st.is_request = true;
		learn_pmtu(a, f, pkt);
		if (!f->peer || (f->req && f->req->pn))
			an_pair_sync(a, f);
		return;
	}
	learn_pmtu(a, f, pkt);
	if (!(op->flags & ROCE_F_REQ) && an_resp_inorder(c, f))
		return;         /* the common response: no hole or array size to follow */
	/* a frame the capture carried twice (an_copy.c): analysed no further */
	if (copy < 0 ? an_copy_is(c, f, prev_ts) : copy) {
		copy_taken(c, f, prev_psn);
		return;
	}
	if (a->cfg.max_memory)
		a->var_bytes -= an_req_var_bytes(f->req) + an_rsp_var_bytes(f->rsp);
	holed = an_flow_holed(f);
	if (op->flags & ROCE_F_REQ) {
		f->st.is_request = true;
		an_req_process(c, f);
		/* a paired stream outside the index: an_pair_sync() would find nothing to do */
		if (!f->peer || (f->req && f->req->pn))
			an_pair_sync(a, f);
	} else {
		an_resp_process(c, f);
	}
	if (!holed && an_flow_holed(f))
		a->holed++;
	if (a->cfg.max_memory)
		a->var_bytes += an_req_var_bytes(f->req) + an_rsp_var_bytes(f->rsp);
}

/*
 * Field by field: a memset() or a zero compound literal of the struct
 * compiles to "rep stos" here, whose start-up cost was a fifth of the
 * analyzer's time per frame; these stores are a handful of vector moves.
 */
static inline void frame_result_clear(struct roce_frame_result *r, uint32_t findings)
{
	r->stream_id = 0;
	r->events = 0;
	r->findings = findings;
	r->expected_psn = 0;
	r->lost_psns = 0;
	r->retx_cause = ROCE_RETX_NONE;
	r->aeth_syndrome = 0;
	r->rtt_ns = 0;
	r->read_ns = 0;
	r->ref_frame = 0;
	r->recovery_ns = 0;
	r->storm_mask = 0;
	for (unsigned i = 0; i < 8; i++)
		r->pause_ns[i] = 0;
	r->acked_unseen_psns = 0;
}

/*
 * res_private: nobody but the analysis sees res (no caller's struct, no
 * observer), so only the members it reads back (|=) start at zero; or the
 * observers read only what ROCE_OBS_EVENT_FIELDS names, which the caller
 * adds (stream_id, findings).
 */
static inline __attribute__((always_inline)) void process_frame(roce_analyzer_t *a,
	const struct roce_pkt *pkt, int status, uint64_t ts_ns, uint64_t frame_no,
	struct roce_frame_result *res, bool res_private)
{
	struct an_ctx c;

	if (res_private) {
		res->events = 0;
		res->storm_mask = 0;
	} else {
		frame_result_clear(res, pkt->findings);
	}
	an_count_frame(a, ts_ns, frame_no, pkt->wirelen);
	if (__builtin_expect(pkt->encap != ROCE_ENCAP_NONE, 0) && pkt->encap < ROCE_ENCAP_COUNT)
		a->sum.encap_frames[pkt->encap]++;
	c.a = a;
	c.pkt = pkt;
	c.ts = ts_ns;
	c.frame = frame_no;
	c.res = res;

	if (status == ROCE_E_NOT_ROCE || status == ROCE_E_LINKTYPE || status == ROCE_E_INVAL)
		return;

	if (pkt->findings & ROCE_FIND_MALFORMED_MASK) {
		/* a RoCE frame counts it together with its stream (roce_process) */
		if (pkt->kind != ROCE_KIND_ROCE)
			AN_COUNT(a, NULL, malformed, 1);
		res->events |= ROCE_EV_MALFORMED;
	}
	if (pkt->findings)
		for (unsigned b = 0; b < ROCE_FIND_COUNT; b++)
			if (pkt->findings & (1u << b))
				a->sum.findings[b]++;

	switch (pkt->kind) {
	case ROCE_KIND_ROCE:
		roce_process(&c, status);
		break;
	case ROCE_KIND_PFC:
	case ROCE_KIND_PAUSE:
		if (pkt->findings & ROCE_FIND_MALFORMED_MASK)
			malformed_report(&c, NULL);
		/* a frame too short for its times (ROCE_E_MALFORMED) or cut before them
		 * (ROCE_E_TRUNC) had none read: it pauses or resumes nothing */
		if (status == ROCE_OK)
			an_pfc_process(&c);
		break;
	default:
		if (pkt->findings & ROCE_FIND_MALFORMED_MASK)
			malformed_report(&c, NULL);
		break;
	}
}

void roce_analyzer_process(roce_analyzer_t *a, const struct roce_pkt *pkt, int status,
	uint64_t ts_ns, uint64_t frame_no, struct roce_frame_result *res)
{
	struct roce_frame_result tmp;

	if (!res && !a->nobs) {
		process_frame(a, pkt, status, ts_ns, frame_no, &tmp, true);
	} else if (!res && !a->obs_full) {
		tmp.stream_id = 0;
		tmp.findings = pkt->findings;
		process_frame(a, pkt, status, ts_ns, frame_no, &tmp, true);
		res = &tmp;
	} else {
		if (!res)
			res = &tmp;
		process_frame(a, pkt, status, ts_ns, frame_no, res, false);
	}
	if (a->cfg.idle_timeout_ns)
		idle_sweep(a, 2);
	for (unsigned i = 0; i < a->nobs; i++)
		if (a->obs[i].on_frame)
			a->obs[i].on_frame(a->obs[i].user, pkt, ts_ns, frame_no, res);
}

static const int no_discard;

void roce_analyzer_set_discard_flag(roce_analyzer_t *a, const volatile int *flag)
{
	a->discard = flag ? flag : &no_discard;
}

/*
 * roce_decode() then roce_analyzer_process() with no result, in one call.
 * With no observer and no idle timeout nothing but the analysis reads the
 * frame: the analyzer's entry is inline here and, with no ICRC pass to make,
 * the decoder's fast path too (as with analysis_only), two calls and their
 * set-up a frame fewer.  (The ICRC pass stays roce_decode()'s alone, inlined
 * there.)  Before either, the header prediction (an_predict.c): the next
 * in-order request frame of the stream of an earlier one, analysed without
 * the decoder, the stream lookup and the dispatch; the full path learns the
 * next prediction.  Wherever the frame is taken, the caller's discard flag is
 * read between its last byte read and its first count (an_discard()).
 */
int roce_analyzer_decode_process(roce_analyzer_t *a, int linktype, const uint8_t *frame,
	size_t caplen, size_t wirelen, const struct roce_decode_opts *opts, uint64_t ts_ns,
	uint64_t frame_no)
{
	struct roce_frame_result tmp;
	struct roce_pkt pkt;
	int st = 1;

	if (!opts || a->nobs || a->cfg.idle_timeout_ns) {
		st = roce_decode(linktype, frame, caplen, wirelen, opts, &pkt);
		if (an_discard(a))
			return ROCE_E_DISCARDED;
		roce_analyzer_process(a, &pkt, st, ts_ns, frame_no, NULL);
		return st;
	}
	/* the next frame of the stream of an earlier one (an_predict.c) */
	if (a->pred.f && linktype == ROCE_LINKTYPE_ETHERNET && frame) {
		st = an_predict(a, frame, caplen, wirelen, opts, ts_ns, frame_no);
		if (st != 1)
			return st;
	}
	if (opts->verify_icrc) {
		st = roce_decode(linktype, frame, caplen, wirelen, opts, &pkt);
	} else {
		if (linktype == ROCE_LINKTYPE_ETHERNET && frame) {
			pkt.frame = frame;
			pkt.caplen = caplen;
			pkt.wirelen = wirelen < caplen ? caplen : wirelen;
			st = roce_decode_fast(&pkt, opts, false, true);
		}
		if (st == 1)
			st = roce_decode_rest(linktype, frame, caplen, wirelen, opts, &pkt);
	}
	if (an_discard(a))
		return ROCE_E_DISCARDED;
	a->pred.cand = NULL;
	process_frame(a, &pkt, st, ts_ns, frame_no, &tmp, true);
	if (a->pred.cand)
		an_predict_learn(a, &pkt, st, frame, caplen);
	return st;
}

void roce_analyzer_advance(roce_analyzer_t *a, uint64_t ts_ns)
{
	if (ts_ns > a->now)
		a->now = ts_ns;
	an_pfc_advance(a);
	if (a->cfg.idle_timeout_ns)
		idle_sweep(a, a->flows.n);
}

int roce_analyzer_flow_holes(const roce_analyzer_t *a, const struct roce_flow_key *k,
	struct roce_psn_range *out, unsigned max, uint64_t *dropped)
{
	struct roce_flow_key key = *k;
	const struct an_flow *f;
	const struct an_holeset *sets[2];
	unsigned n = 0;
	uint64_t drop = 0;

	key.dqpn &= 0xffffffu;
	f = flow_find(a, &key, flow_hash(&key));
	if (!f)
		return -1;
	sets[0] = f->req ? &f->req->hs : NULL;
	sets[1] = f->rsp ? &f->rsp->hs : NULL;
	for (unsigned i = 0; i < 2; i++) {
		if (!sets[i])
			continue;
		drop += sets[i]->dropped_unrec;
		for (unsigned j = 0; j < sets[i]->nholes; j++, n++) {
			if (out && n < max) {
				out[n].start = sets[i]->holes[j].start;
				out[n].len = sets[i]->holes[j].len;
			}
		}
	}
	if (dropped)
		*dropped = drop;
	return (int)n;
}
