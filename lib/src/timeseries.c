// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * timeseries.c - bounded time series of an analysis run (timeseries.h): an
 * analyzer observer that bins every frame's result, keeps per-stream PSN
 * envelopes and event points, and the pause intervals of each (interface, MAC,
 * priority).
 *
 * Per frame (the hot path, ts_on_frame; bench/html_bench.sh measures it):
 * one load from a direct-mapped cache of stream id -> slot (stream ids are
 * the analyzer's sequence numbers, so neighbours do not collide; "untracked"
 * is cached too), one test of the events, one compare for the bin (frames
 * mostly come in time order: the current bin's time range and row are kept),
 * adds to the bin's counters, and for a tracked stream its counts and PSN
 * range.  Everything else (a new bin, a cache miss, sequence events, CNPs,
 * damaged frames, non-RoCE frames) goes to ts_frame_slow(), out of line.
 * Bin width doubling merges the bins in use in place (O(bins x slots), at
 * most 64 times in a run); a bin is cleared when it enters use.  Allocation: bins at create and per stream slot, point
 * and interval arrays doubling up to their caps.
 */
#include <stdlib.h>
#include <string.h>

#include <roce/analyzer.h>
#include <roce/opcode.h>
#include <roce/pkt.h>
#include <roce/timeseries.h>

#define TS_SEQ_EVENTS (ROCE_EV_PSN_GAP | ROCE_EV_DUPLICATE | ROCE_EV_OUT_OF_ORDER | \
		       ROCE_EV_RETRANSMISSION | ROCE_EV_NAK | ROCE_EV_RNR_NAK | \
		       ROCE_EV_ACKED_UNSEEN)
/* events a stream's frame is plotted differently for (stream_frame_events) */
#define TS_STREAM_SLOW (TS_SEQ_EVENTS | ROCE_EV_CNP | ROCE_EV_ICRC_BAD | ROCE_EV_MALFORMED)

#define TS_COLD __attribute__((noinline, cold))
/* GCC pairs neighbouring counter adds into vector code that costs more than the adds */
#if defined(__GNUC__) && !defined(__clang__)
#define TS_NO_SLP __attribute__((optimize("no-tree-slp-vectorize")))
#else
#define TS_NO_SLP
#endif
#define TS_LIKELY(x) __builtin_expect(!!(x), 1)
#define TS_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* stream id -> slot cache: direct-mapped on the id's low bits (8 KiB) */
#define TS_CACHE 512
#define TS_NO_ID UINT64_MAX          /* an empty entry (stream ids count from 1) */

struct ts_cache_ent {
	uint64_t id;                    /* TS_NO_ID: empty */
	struct ts_slot *s;              /* the stream's slot; NULL: untracked */
};

/*
 * A stream's bin: what a frame without events updates, in one place (32
 * bytes).  PSNs are kept biased, u = p + 2^63 (unsigned; order-preserving):
 * the range's low end as ~u, its high end and the ACKed PSN as u, so that all
 * three merge by unsigned max and "none" is 0: a bin starts as zeroes
 * (memset) and bin doubling is one add and three max per pair.  The public
 * values (tx_lo, tx_hi, ack_hi) are decoded on export (ts_pub_lo() ...).
 */
struct ts_sbin {
	uint64_t lo;                    /* ~u of the lowest first transmission; 0: none */
	uint64_t hi;                    /* u of the highest; 0: none */
	uint64_t ack;                   /* u of the highest ACKed PSN; 0: none (ack_hi -1) */
	uint64_t bytes;
};

#define TS_BIAS (1ull << 63)

static inline uint64_t umax64(uint64_t a, uint64_t b) { return a > b ? a : b; }

static inline int64_t ts_unbias(uint64_t u) { return (int64_t)(u ^ TS_BIAS); }

static inline int64_t ts_pub_lo(uint64_t lo) { return lo ? ts_unbias(~lo) : INT64_MAX; }
static inline int64_t ts_pub_hi(uint64_t hi) { return hi ? ts_unbias(hi) : INT64_MIN; }

static inline int64_t ts_pub_ack(uint64_t ack)
{
	/* the old max(-1, p...) : a PSN below -1 (unwrapped behind the first) shows as none */
	int64_t p = ack ? ts_unbias(ack) : -1;

	return p < -1 ? -1 : p;
}

struct ts_slot {
	/* what every frame of the stream touches, together */
	struct ts_sbin *sb;             /* max_bins */
	uint64_t frames, bytes;
	uint64_t last_u;                /* unwrapped PSN of the reference, biased (TS_BIAS) */
	uint32_t last_psn;              /* 24-bit, the unwrapper's reference */
	bool have_psn;
	bool used;
	/* the rest */
	uint32_t *cnps_bin;             /* max_bins */
	uint64_t *x_bytes;              /* export copies of sb (roce_timeseries_stream) */
	int64_t *x_lo, *x_hi, *x_ack;
	uint64_t x_key[5];              /* frames + 1, nbins, doublings, id, first_ts of the copy */
	void *mem;                      /* the one allocation all of the above live in */
	struct roce_ts_stream pub;      /* pointers, frames and bytes are set on export */
	struct roce_ts_point *pts;
	uint32_t npts, cap_pts;
};

struct ts_line {
	struct roce_ts_timeline pub;
	struct roce_ts_pause *iv;
	uint32_t n, cap;
};

struct roce_timeseries {
	struct roce_ts_config cfg;
	unsigned shift;                 /* bin_ns = 1 << shift */
	unsigned doublings;
	bool started;
	uint64_t origin;
	uint32_t nbins;                 /* in use */
	uint64_t *bins;                 /* max_bins * ROCE_TS_COUNT */
	uint32_t cur;                   /* the last frame's bin, */
	uint64_t cur_lo, cur_w;         /* its times: [cur_lo, cur_lo + cur_w); cur_w 0: none */
	uint64_t *cur_row;              /* its row of bins */
	struct ts_cache_ent cache[TS_CACHE];

	struct ts_slot *slots;
	unsigned nslots;                /* slots handed out (used or not) */
	bool no_steal;                  /* every slot has anomalies: nothing to replace */
	uint64_t *map_id;               /* stream id per map entry, 0 empty */
	uint32_t *map_slot;
	uint32_t map_mask;
	uint64_t untracked;             /* frames of streams without a series */
	uint64_t replaced;

	struct ts_line *lines;
	unsigned nlines;
	unsigned last_line;
	uint64_t pauses_dropped;
};

/* ------------------------------------------------------------------ names */

static const char *const counter_names[ROCE_TS_COUNT] = {
	[ROCE_TS_FRAMES] = "frames", [ROCE_TS_BYTES] = "bytes",
	[ROCE_TS_ROCE_FRAMES] = "roce_frames", [ROCE_TS_ICRC_BAD] = "icrc_bad",
	[ROCE_TS_MALFORMED] = "malformed", [ROCE_TS_PSN_GAPS] = "psn_gaps",
	[ROCE_TS_LOST_PSNS] = "lost_psns", [ROCE_TS_DUPLICATES] = "duplicates",
	[ROCE_TS_OUT_OF_ORDER] = "out_of_order", [ROCE_TS_RETX] = "retransmissions",
	[ROCE_TS_RETX_NAK] = "retx_nak", [ROCE_TS_RETX_RNR] = "retx_rnr",
	[ROCE_TS_RETX_TIMEOUT] = "retx_timeout", [ROCE_TS_NAKS] = "naks",
	[ROCE_TS_RNR_NAKS] = "rnr_naks", [ROCE_TS_CNPS] = "cnps", [ROCE_TS_ECN_CE] = "ecn_ce",
	[ROCE_TS_ECN_CAPABLE] = "ecn_capable", [ROCE_TS_PFC_FRAMES] = "pfc_frames",
	[ROCE_TS_PAUSE_FRAMES] = "pause_frames", [ROCE_TS_ACKED_UNSEEN_PSNS] = "acked_unseen_psns",
};

const char *roce_ts_counter_name(enum roce_ts_counter c)
{
	return (unsigned)c < ROCE_TS_COUNT ? counter_names[c] : NULL;
}

const char *roce_ts_point_name(enum roce_ts_point_kind k)
{
	switch (k) {
	case ROCE_TS_PT_RETX: return "retx";
	case ROCE_TS_PT_GAP: return "gap";
	case ROCE_TS_PT_DUP: return "dup";
	case ROCE_TS_PT_OOO: return "ooo";
	case ROCE_TS_PT_NAK: return "nak";
	case ROCE_TS_PT_RNR: return "rnr";
	case ROCE_TS_PT_READ: return "read";
	}
	return NULL;
}

/* ------------------------------------------------------------------- bins */

/*
 * Bins in use are [0, nbins); what lies beyond is left over from merged bins
 * (ts_double() does not clear it) and is cleared when a bin enters use
 * (bins_enter()): each bin is cleared once per use, in stores of its own
 * (a memset of a whole half could be "rep stos", counted per byte).
 */
static inline void slot_clear_bin(struct ts_slot *s, uint32_t i)
{
	/* (field by field: a zero struct literal compiles to "rep stos" here) */
	s->sb[i].lo = 0;
	s->sb[i].hi = 0;
	s->sb[i].ack = 0;
	s->sb[i].bytes = 0;
	s->cnps_bin[i] = 0;
}

static void slot_clear_bins(struct ts_slot *s, uint32_t from, uint32_t to)
{
	for (uint32_t i = from; i < to; i++)
		slot_clear_bin(s, i);
}

/* Bins [nbins, to) enter use, empty. */
static void bins_enter(roce_timeseries_t *ts, uint32_t to)
{
	const uint32_t from = ts->nbins;

	memset(ts->bins + (size_t)from * ROCE_TS_COUNT, 0,
	       (size_t)(to - from) * ROCE_TS_COUNT * sizeof(*ts->bins));
	if (to == from + 1) {
		for (unsigned k = 0; k < ts->nslots; k++)
			slot_clear_bin(&ts->slots[k], from);
	} else {
		for (unsigned k = 0; k < ts->nslots; k++)
			slot_clear_bins(&ts->slots[k], from, to);
	}
	ts->nbins = to;
}

/* Double the bin width: bin i takes bins 2i and 2i+1 (of those in use). */
static void ts_double(roce_timeseries_t *ts)
{
	const uint32_t n = ts->nbins, pairs = n / 2, half = (n + 1) / 2;
	uint64_t *b = ts->bins;

	for (uint32_t i = 0; i < pairs; i++) {
		uint64_t *d = b + (size_t)i * ROCE_TS_COUNT;
		const uint64_t *s0 = b + (size_t)(2 * i) * ROCE_TS_COUNT, *s1 = s0 + ROCE_TS_COUNT;

		for (unsigned c = 0; c < ROCE_TS_COUNT; c++)
			d[c] = s0[c] + s1[c];
	}
	if (n & 1)
		memmove(b + (size_t)pairs * ROCE_TS_COUNT, b + (size_t)(n - 1) * ROCE_TS_COUNT,
			ROCE_TS_COUNT * sizeof(*b));
	for (unsigned k = 0; k < ts->nslots; k++) {
		struct ts_sbin *sb = ts->slots[k].sb;
		uint32_t *cn = ts->slots[k].cnps_bin;

		for (uint32_t i = 0; i < pairs; i++) {
			const struct ts_sbin *x = &sb[2 * i], *y = x + 1;
			uint64_t lo = umax64(x->lo, y->lo), hi = umax64(x->hi, y->hi);
			uint64_t ack = umax64(x->ack, y->ack), by = x->bytes + y->bytes;

			sb[i].lo = lo;
			sb[i].hi = hi;
			sb[i].ack = ack;
			sb[i].bytes = by;
			cn[i] = cn[2 * i] + cn[2 * i + 1];
		}
		if (n & 1) {
			sb[pairs] = sb[n - 1];
			cn[pairs] = cn[n - 1];
		}
	}
	ts->nbins = half;
	ts->shift++;
	ts->doublings++;
	ts->cur_w = 0;
}

static TS_COLD uint32_t ts_bin_slow(roce_timeseries_t *ts, uint64_t t)
{
	uint64_t i;

	if (!ts->started) {
		ts->started = true;
		ts->origin = t;
	}
	if (t < ts->origin)
		return 0;
	i = (t - ts->origin) >> ts->shift;
	while (i >= ts->cfg.max_bins) {
		ts_double(ts);
		i = (t - ts->origin) >> ts->shift;
	}
	if (i >= ts->nbins)
		bins_enter(ts, (uint32_t)i + 1);
	ts->cur = (uint32_t)i;
	ts->cur_row = ts->bins + i * ROCE_TS_COUNT;
	ts->cur_lo = ts->origin + (i << ts->shift);
	ts->cur_w = 1ull << ts->shift;
	return (uint32_t)i;
}

static inline uint32_t ts_bin(roce_timeseries_t *ts, uint64_t t)
{
	/* unsigned: also false for t < cur_lo */
	if (TS_LIKELY(t - ts->cur_lo < ts->cur_w))
		return ts->cur;
	return ts_bin_slow(ts, t);
}

/* ---------------------------------------------------------------- streams */

static inline uint32_t map_hash(uint64_t id, uint32_t mask)
{
	return (uint32_t)((id * 0x9e3779b97f4a7c15ull) >> 32) & mask;
}

static struct ts_slot *map_find(const roce_timeseries_t *ts, uint64_t id)
{
	uint32_t h;

	if (!ts->map_id)
		return NULL;
	for (h = map_hash(id, ts->map_mask); ts->map_id[h]; h = (h + 1) & ts->map_mask)
		if (ts->map_id[h] == id)
			return &ts->slots[ts->map_slot[h]];
	return NULL;
}

static void map_rebuild(roce_timeseries_t *ts)
{
	memset(ts->map_id, 0, ((size_t)ts->map_mask + 1) * sizeof(*ts->map_id));
	for (unsigned k = 0; k < ts->nslots; k++) {
		uint32_t h;

		if (!ts->slots[k].used)
			continue;
		h = map_hash(ts->slots[k].pub.id, ts->map_mask);
		while (ts->map_id[h])
			h = (h + 1) & ts->map_mask;
		ts->map_id[h] = ts->slots[k].pub.id;
		ts->map_slot[h] = k;
	}
}

static bool slot_alloc_bins(roce_timeseries_t *ts, struct ts_slot *s)
{
	size_t n = ts->cfg.max_bins;
	uint8_t *m = malloc(n * (sizeof(struct ts_sbin) + 4 * sizeof(uint64_t) + sizeof(uint32_t)));

	if (!m)
		return false;
	s->mem = m;
	s->sb = (struct ts_sbin *)m;
	m += n * sizeof(struct ts_sbin);
	s->x_bytes = (uint64_t *)m;
	s->x_lo = (int64_t *)(m + n * 8);
	s->x_hi = (int64_t *)(m + 2 * n * 8);
	s->x_ack = (int64_t *)(m + 3 * n * 8);
	s->cnps_bin = (uint32_t *)(m + 4 * n * 8);
	return true;
}

static void slot_start(roce_timeseries_t *ts, struct ts_slot *s, uint64_t id,
		       const struct roce_pkt *pkt, uint64_t t)
{
	s->used = true;
	memset(&s->pub, 0, sizeof(s->pub));
	s->pub.id = id;
	s->pub.key.version = pkt->version;
	memcpy(s->pub.key.src, pkt->src, 16);
	memcpy(s->pub.key.dst, pkt->dst, 16);
	s->pub.key.dqpn = pkt->bth.dqpn & 0xffffffu;
	s->pub.first_ts_ns = t;
	s->frames = 0;
	s->bytes = 0;
	s->npts = 0;
	s->have_psn = false;
	slot_clear_bins(s, 0, ts->nbins);
}

/*
 * An untracked stream stays untracked until a frame of it with a sequence
 * anomaly takes a slot (slots are only handed out while some are free, then
 * only taken over): the cache's NULL (untracked) is trusted for other frames.
 */
static inline void cache_put(roce_timeseries_t *ts, uint64_t id, struct ts_slot *s)
{
	struct ts_cache_ent *e = &ts->cache[id & (TS_CACHE - 1)];

	e->id = id;
	e->s = s;
}

/*
 * The slot of stream id, or a new one when a slot is free, or one taken from
 * a stream without anomalies when this frame has one.  NULL: not tracked.
 */
static struct ts_slot *slot_get(roce_timeseries_t *ts, uint64_t id, const struct roce_pkt *pkt,
				uint32_t events, uint64_t t)
{
	struct ts_slot *s = map_find(ts, id), *victim = NULL;

	if (s || !ts->cfg.max_streams)
		return s;
	if (ts->nslots < ts->cfg.max_streams) {
		s = &ts->slots[ts->nslots];
		if (!slot_alloc_bins(ts, s))
			return NULL;
		ts->nslots++;
	} else {
		if (!(events & TS_SEQ_EVENTS) || ts->no_steal) {
			ts->untracked++;
			return NULL;
		}
		for (unsigned k = 0; k < ts->nslots; k++) {
			struct ts_slot *c = &ts->slots[k];

			if (!c->pub.anomalies && (!victim || c->bytes < victim->bytes))
				victim = c;
		}
		if (!victim) {
			ts->no_steal = true;
			ts->untracked++;
			return NULL;
		}
		s = victim;
		ts->replaced++;
		/* the victim's id is not tracked any more */
		cache_put(ts, s->pub.id, NULL);
	}
	slot_start(ts, s, id, pkt, t);
	map_rebuild(ts);
	return s;
}

/* Slot of stream id when the cache did not settle it; fills the cache. */
static TS_COLD struct ts_slot *slot_lookup(roce_timeseries_t *ts, uint64_t id,
					   const struct roce_pkt *pkt, uint32_t events, uint64_t t)
{
	struct ts_slot *s = slot_get(ts, id, pkt, events, t);

	/* NULL with free slots (no memory) or none at all (max_streams 0): not cached */
	if (s)
		cache_put(ts, id, s);
	else if (ts->cfg.max_streams && ts->nslots >= ts->cfg.max_streams)
		cache_put(ts, id, NULL);
	return s;
}

/* Unwrapped psn, biased (TS_BIAS); it becomes the reference. */
static inline uint64_t unwrap(struct ts_slot *s, uint32_t psn)
{
	int32_t d;

	psn &= 0xffffffu;
	if (TS_UNLIKELY(!s->have_psn)) {
		s->have_psn = true;
		s->last_psn = psn;
		s->last_u = psn | TS_BIAS;
		return s->last_u;
	}
	d = (int32_t)((psn - s->last_psn) << 8) >> 8;
	s->last_psn = psn;
	s->last_u += (uint64_t)(int64_t)d;
	return s->last_u;
}

/* Unwrapped value of psn near the reference, without moving it. */
static inline int64_t unwrap_peek(const struct ts_slot *s, uint32_t psn)
{
	int32_t d;

	if (!s->have_psn)
		return psn & 0xffffffu;
	d = (int32_t)(((psn & 0xffffffu) - s->last_psn) << 8) >> 8;
	return ts_unbias(s->last_u + (uint64_t)(int64_t)d);
}

static TS_COLD void point_add(roce_timeseries_t *ts, struct ts_slot *s, uint8_t kind, uint8_t cause,
		      int64_t psn, uint32_t len, uint64_t t, uint64_t frame)
{
	struct roce_ts_point *p;

	if (kind != ROCE_TS_PT_READ)
		s->pub.anomalies++;
	if (s->npts == s->cap_pts) {
		uint32_t n = s->cap_pts ? s->cap_pts * 2 : 64;
		struct roce_ts_point *np;

		if (n > ts->cfg.max_points)
			n = ts->cfg.max_points;
		if (n <= s->cap_pts) {
			s->pub.points_dropped++;
			return;
		}
		np = realloc(s->pts, n * sizeof(*np));
		if (!np) {
			s->pub.points_dropped++;
			return;
		}
		s->pts = np;
		s->cap_pts = n;
	}
	p = &s->pts[s->npts++];
	p->ts_ns = t;
	p->frame = frame;
	p->psn = psn;
	p->len = len;
	p->kind = kind;
	p->cause = cause;
}

static TS_COLD void read_point(roce_timeseries_t *ts, struct ts_slot *s, uint64_t u,
				const struct roce_pkt *pkt, uint64_t t, uint64_t frame)
{
	point_add(ts, s, ROCE_TS_PT_READ, 0, ts_unbias(u), pkt->reth.dma_len, t, frame);
}

/* A stream's frame in order and undamaged (flags fl: a request, response or ACK). */
static inline void stream_frame_psn(roce_timeseries_t *ts, struct ts_slot *s, struct ts_sbin *sb,
				    const struct roce_pkt *pkt, uint32_t fl, uint64_t t,
				    uint64_t frame)
{
	const uint64_t u = unwrap(s, pkt->bth.psn);

	if (fl & (ROCE_F_REQ | ROCE_F_RESP)) {
		sb->lo = umax64(sb->lo, ~u);
		sb->hi = umax64(sb->hi, u);
		if (TS_UNLIKELY((fl & (ROCE_F_READ | ROCE_F_REQ)) == (ROCE_F_READ | ROCE_F_REQ)))
			read_point(ts, s, u, pkt, t, frame);
	}
	if (pkt->hdrs & ROCE_H_AETH)
		sb->ack = umax64(sb->ack, u);
}

/* A stream's frame with an event in TS_STREAM_SLOW (counted by the caller). */
static TS_COLD void stream_frame_events(roce_timeseries_t *ts, struct ts_slot *s, uint32_t bin,
					const struct roce_pkt *pkt, uint64_t t, uint64_t frame,
					const struct roce_frame_result *res)
{
	const uint32_t ev = res->events;
	const uint32_t fl = pkt->op ? pkt->op->flags : 0;
	int64_t p;

	if (ev & ROCE_EV_CNP) {
		s->cnps_bin[bin]++;
		return;
	}
	/* a damaged frame's PSN may be anything: counted, not plotted */
	if (ev & (ROCE_EV_ICRC_BAD | ROCE_EV_MALFORMED) || !(fl & (ROCE_F_REQ | ROCE_F_RESP |
								   ROCE_F_ACK)))
		return;
	if (ev & ROCE_EV_PSN_GAP)
		point_add(ts, s, ROCE_TS_PT_GAP, 0, unwrap_peek(s, res->expected_psn),
			  res->lost_psns, t, frame);
	if (ev & (ROCE_EV_RETRANSMISSION | ROCE_EV_DUPLICATE | ROCE_EV_OUT_OF_ORDER)) {
		/* behind the newest PSN: plotted as a point, the reference stays */
		p = unwrap_peek(s, pkt->bth.psn);
		if (ev & ROCE_EV_RETRANSMISSION)
			point_add(ts, s, ROCE_TS_PT_RETX, (uint8_t)res->retx_cause, p, 0, t, frame);
		else if (ev & ROCE_EV_DUPLICATE)
			point_add(ts, s, ROCE_TS_PT_DUP, 0, p, 0, t, frame);
		else
			point_add(ts, s, ROCE_TS_PT_OOO, 0, p, 0, t, frame);
		return;
	}
	if (ev & (ROCE_EV_NAK | ROCE_EV_RNR_NAK)) {
		p = ts_unbias(unwrap(s, pkt->bth.psn));
		point_add(ts, s, ev & ROCE_EV_NAK ? ROCE_TS_PT_NAK : ROCE_TS_PT_RNR,
			  res->aeth_syndrome, p, 0, t, frame);
		return;
	}
	stream_frame_psn(ts, s, &s->sb[bin], pkt, fl, t, frame);
}

static inline void stream_frame(roce_timeseries_t *ts, struct ts_slot *s, uint32_t bin,
				const struct roce_pkt *pkt, uint64_t t, uint64_t frame,
				const struct roce_frame_result *res)
{
	struct ts_sbin *sb = &s->sb[bin];
	uint32_t fl;

	s->frames++;
	s->bytes += pkt->wirelen;
	sb->bytes += pkt->wirelen;
	if (TS_UNLIKELY(res->events & TS_STREAM_SLOW)) {
		stream_frame_events(ts, s, bin, pkt, t, frame, res);
		return;
	}
	/* in order, undamaged: what stream_frame_events does without events */
	fl = pkt->op ? pkt->op->flags : 0;
	if (fl & (ROCE_F_REQ | ROCE_F_RESP | ROCE_F_ACK))
		stream_frame_psn(ts, s, sb, pkt, fl, t, frame);
}

/* -------------------------------------------------------------- observers */

/* A RoCE frame's rare counters: CE, bad ICRC, CNP, sequence events. */
static TS_COLD void count_rare(uint64_t *b, const struct roce_pkt *pkt, uint32_t ev,
			       const struct roce_frame_result *res)
{
	if (pkt->ecn == 3)
		b[ROCE_TS_ECN_CE]++;
	if (pkt->icrc_status == ROCE_ICRC_BAD)
		b[ROCE_TS_ICRC_BAD]++;
	if (ev & ROCE_EV_CNP)
		b[ROCE_TS_CNPS]++;
	if (ev & ROCE_EV_PSN_GAP) {
		b[ROCE_TS_PSN_GAPS]++;
		b[ROCE_TS_LOST_PSNS] += res->lost_psns;
	}
	if (ev & ROCE_EV_ACKED_UNSEEN)
		b[ROCE_TS_ACKED_UNSEEN_PSNS] += res->acked_unseen_psns;
	if (ev & ROCE_EV_DUPLICATE)
		b[ROCE_TS_DUPLICATES]++;
	if (ev & ROCE_EV_OUT_OF_ORDER)
		b[ROCE_TS_OUT_OF_ORDER]++;
	if (ev & ROCE_EV_RETRANSMISSION) {
		b[ROCE_TS_RETX]++;
		if (res->retx_cause == ROCE_RETX_NAK)
			b[ROCE_TS_RETX_NAK]++;
		else if (res->retx_cause == ROCE_RETX_RNR)
			b[ROCE_TS_RETX_RNR]++;
		else if (res->retx_cause == ROCE_RETX_TIMEOUT)
			b[ROCE_TS_RETX_TIMEOUT]++;
	}
	if (ev & ROCE_EV_NAK)
		b[ROCE_TS_NAKS]++;
	if (ev & ROCE_EV_RNR_NAK)
		b[ROCE_TS_RNR_NAKS]++;
}

static TS_COLD void count_other(uint64_t *b, uint32_t ev)
{
	if (ev & ROCE_EV_PFC)
		b[ROCE_TS_PFC_FRAMES]++;
	if (ev & ROCE_EV_PAUSE)
		b[ROCE_TS_PAUSE_FRAMES]++;
}

/* Any frame: what ts_on_frame() does not settle itself. */
static TS_COLD void ts_frame_slow(roce_timeseries_t *ts, const struct roce_pkt *pkt, uint64_t t,
				  uint64_t frame, const struct roce_frame_result *res)
{
	const uint32_t ev = res->events;
	const uint32_t bin = ts_bin(ts, t);
	uint64_t *b = ts->bins + (size_t)bin * ROCE_TS_COUNT;
	const struct ts_cache_ent *e;
	struct ts_slot *s;
	uint64_t id;

	b[ROCE_TS_FRAMES]++;
	b[ROCE_TS_BYTES] += pkt->wirelen;
	/* one branch for everything rare: non-RoCE, malformed, CE, bad ICRC, CNP, events */
	if (TS_UNLIKELY((pkt->kind != ROCE_KIND_ROCE) | (pkt->ecn == 3) |
			(pkt->icrc_status == ROCE_ICRC_BAD) |
			((pkt->findings & ROCE_FIND_MALFORMED_MASK) != 0) |
			((ev & (TS_SEQ_EVENTS | ROCE_EV_CNP)) != 0))) {
		if (pkt->findings & ROCE_FIND_MALFORMED_MASK)
			b[ROCE_TS_MALFORMED]++;     /* any kind (a bad PFC frame too) */
		if (pkt->kind != ROCE_KIND_ROCE) {
			count_other(b, ev);
			return;
		}
		count_rare(b, pkt, ev, res);
	}
	b[ROCE_TS_ROCE_FRAMES]++;
	b[ROCE_TS_ECN_CAPABLE] += pkt->ecn != 0;
	id = res->stream_id;
	if (!id)
		return;
	e = &ts->cache[id & (TS_CACHE - 1)];
	if (TS_LIKELY(e->id == id)) {
		if (e->s) {
			s = e->s;
			stream_frame(ts, s, bin, pkt, t, frame, res);
			return;
		}
		if (!(ev & TS_SEQ_EVENTS) || ts->no_steal) {
			ts->untracked++;
			return;
		}
	}
	s = slot_lookup(ts, id, pkt, ev, t);
	if (s)
		stream_frame(ts, s, bin, pkt, t, frame, res);
}

/* what sends a frame the slow way (with stream_id 0: not RoCE, or no stream) */
#define TS_RARE_EV (TS_SEQ_EVENTS | ROCE_EV_CNP | ROCE_EV_ICRC_BAD | ROCE_EV_MALFORMED | \
		    ROCE_EV_ECN_CE)

/*
 * The observer.  A frame of a stream (stream_id set: a RoCE frame with an
 * opcode), without anything rare (TS_RARE_EV: the events that mark CE, a bad
 * ICRC and malformed findings are set exactly when those are), in the current
 * bin and with its stream in the cache is what ts_frame_slow() would do in
 * this order, without the tests that cannot fail here; every other frame goes
 * there.  Kept lean: the calls out are tail calls, so few registers to save.
 */
static TS_NO_SLP void ts_on_frame(void *user, const struct roce_pkt *pkt, uint64_t t,
				    uint64_t frame, const struct roce_frame_result *res)
{
	roce_timeseries_t *ts = user;
	const uint64_t id = res->stream_id;
	const struct ts_cache_ent *e = &ts->cache[id & (TS_CACHE - 1)];
	const uint32_t len = pkt->wirelen;
	uint64_t *b = ts->cur_row;
	struct ts_slot *s;
	struct ts_sbin *sb;
	uint32_t fl;

	/* (stream_id 0 is never cached: TS_NO_ID) */
	if (TS_UNLIKELY(e->id != id) || TS_UNLIKELY(res->events & TS_RARE_EV) ||
	    TS_UNLIKELY(t - ts->cur_lo >= ts->cur_w)) {
		ts_frame_slow(ts, pkt, t, frame, res);
		return;
	}
	b[ROCE_TS_FRAMES]++;
	b[ROCE_TS_BYTES] += len;
	b[ROCE_TS_ROCE_FRAMES]++;
	b[ROCE_TS_ECN_CAPABLE] += pkt->ecn != 0;
	s = e->s;
	if (!s) {
		/* (no sequence event: an untracked stream stays so) */
		ts->untracked++;
		return;
	}
	s->frames++;
	s->bytes += len;
	sb = &s->sb[ts->cur];
	sb->bytes += len;
	fl = pkt->op->flags;    /* (a frame with a stream has an opcode: analyzer.c) */
	if (fl & (ROCE_F_REQ | ROCE_F_RESP | ROCE_F_ACK))
		stream_frame_psn(ts, s, sb, pkt, fl, t, frame);
}

static struct ts_line *line_get(roce_timeseries_t *ts, const uint8_t mac[6], int prio,
			       uint32_t iface)
{
	struct ts_line *l;

	if (ts->last_line < ts->nlines) {
		l = &ts->lines[ts->last_line];
		if (l->pub.priority == prio && l->pub.interface == iface &&
		    !memcmp(l->pub.src_mac, mac, 6))
			return l;
	}
	for (unsigned i = 0; i < ts->nlines; i++) {
		l = &ts->lines[i];
		if (l->pub.priority == prio && l->pub.interface == iface &&
		    !memcmp(l->pub.src_mac, mac, 6)) {
			ts->last_line = i;
			return l;
		}
	}
	if (ts->nlines >= ts->cfg.max_pause_keys)
		return NULL;
	l = &ts->lines[ts->nlines];
	memset(l, 0, sizeof(*l));
	memcpy(l->pub.src_mac, mac, 6);
	l->pub.priority = prio;
	l->pub.interface = iface;
	ts->last_line = ts->nlines++;
	return l;
}

/* Halve a full timeline: interval i takes the hull of 2i and 2i+1. */
static void line_merge(struct ts_line *l)
{
	uint32_t j = 0;

	for (uint32_t i = 0; i + 1 < l->n; i += 2) {
		struct roce_ts_pause a = l->iv[i], b = l->iv[i + 1];

		l->iv[j].start_ns = a.start_ns < b.start_ns ? a.start_ns : b.start_ns;
		l->iv[j].end_ns = a.end_ns > b.end_ns ? a.end_ns : b.end_ns;
		l->iv[j].start_frame = a.start_ns <= b.start_ns ? a.start_frame : b.start_frame;
		l->iv[j].storm = a.storm || b.storm;
		l->iv[j].merged = true;
		j++;
	}
	if (l->n & 1)
		l->iv[j++] = l->iv[l->n - 1];
	l->n = j;
}

static void ts_on_pause(void *user, const struct roce_pause_event *ev)
{
	roce_timeseries_t *ts = user;
	struct ts_line *l = line_get(ts, ev->src_mac, ev->priority, ev->interface);
	struct roce_ts_pause *p;

	if (!l) {
		ts->pauses_dropped++;
		return;
	}
	l->pub.closed++;
	if (ev->storm)
		l->pub.storms++;
	if (l->n == l->cap) {
		if (l->cap < ts->cfg.max_pauses) {
			uint32_t n = l->cap ? l->cap * 2 : 16;
			struct roce_ts_pause *np;

			if (n > ts->cfg.max_pauses)
				n = ts->cfg.max_pauses;
			np = realloc(l->iv, n * sizeof(*np));
			if (np) {
				l->iv = np;
				l->cap = n;
			}
		}
		if (l->n == l->cap)
			line_merge(l);
		if (l->n == l->cap)
			return;     /* no memory for the first array */
	}
	p = &l->iv[l->n++];
	p->start_ns = ev->start_ns;
	p->end_ns = ev->end_ns;
	p->start_frame = ev->start_frame;
	p->storm = ev->storm;
	p->merged = false;
}

/* ------------------------------------------------------------- create etc */

void roce_ts_config_init(struct roce_ts_config *c)
{
	memset(c, 0, sizeof(*c));
	c->size = sizeof(*c);
	c->max_bins = 1024;
	c->min_bin_ns = 1024;
	c->max_streams = 32;
	c->max_points = 2048;
	c->max_pause_keys = 256;
	c->max_pauses = 1024;
}

static void errmsg(char *errbuf, const char *msg)
{
	if (errbuf) {
		strncpy(errbuf, msg, ROCE_ERRBUF_SIZE - 1);
		errbuf[ROCE_ERRBUF_SIZE - 1] = '\0';
	}
}

roce_timeseries_t *roce_timeseries_create(roce_analyzer_t *a, const struct roce_ts_config *c,
					  char *errbuf)
{
	struct roce_analyzer_observer o;
	roce_timeseries_t *ts;
	struct roce_ts_config cfg;
	uint32_t m = 4;

	roce_ts_config_init(&cfg);
	if (c)
		memcpy(&cfg, c, c->size < sizeof(cfg) ? c->size : sizeof(cfg));
	cfg.size = sizeof(cfg);
	if (!a || cfg.max_bins < 16 || cfg.max_bins > (1u << 20) || (cfg.max_bins & 1) ||
	    cfg.max_streams > 4096 || cfg.max_pauses < 2 || cfg.min_bin_ns > (1ull << 40)) {
		errmsg(errbuf, "time series: invalid configuration");
		return NULL;
	}
	ts = calloc(1, sizeof(*ts));
	if (!ts) {
		errmsg(errbuf, "time series: out of memory");
		return NULL;
	}
	ts->cfg = cfg;
	for (unsigned i = 0; i < TS_CACHE; i++)
		ts->cache[i].id = TS_NO_ID;
	while ((1ull << ts->shift) < cfg.min_bin_ns)
		ts->shift++;
	ts->bins = calloc((size_t)cfg.max_bins * ROCE_TS_COUNT, sizeof(*ts->bins));
	if (cfg.max_streams) {
		while (m < 2 * cfg.max_streams)
			m <<= 1;
		ts->slots = calloc(cfg.max_streams, sizeof(*ts->slots));
		ts->map_id = calloc(m, sizeof(*ts->map_id));
		ts->map_slot = calloc(m, sizeof(*ts->map_slot));
		ts->map_mask = m - 1;
	}
	if (cfg.max_pause_keys)
		ts->lines = calloc(cfg.max_pause_keys, sizeof(*ts->lines));
	if (!ts->bins || (cfg.max_streams && (!ts->slots || !ts->map_id || !ts->map_slot)) ||
	    (cfg.max_pause_keys && !ts->lines)) {
		roce_timeseries_destroy(ts);
		errmsg(errbuf, "time series: out of memory");
		return NULL;
	}
	memset(&o, 0, sizeof(o));
	o.size = sizeof(o);
	o.on_frame = ts_on_frame;
	o.on_pause = ts_on_pause;
	o.user = ts;
	o.flags = ROCE_OBS_EVENT_FIELDS;        /* (what stream_frame_events() reads) */
	if (roce_analyzer_add_observer(a, &o) != ROCE_OK) {
		roce_timeseries_destroy(ts);
		errmsg(errbuf, "time series: the analyzer has no room for another observer");
		return NULL;
	}
	return ts;
}

void roce_timeseries_destroy(roce_timeseries_t *ts)
{
	if (!ts)
		return;
	for (unsigned k = 0; k < ts->nslots; k++) {
		struct ts_slot *s = &ts->slots[k];

		free(s->mem);
		free(s->pts);
	}
	for (unsigned i = 0; i < ts->nlines; i++)
		free(ts->lines[i].iv);
	free(ts->lines);
	free(ts->slots);
	free(ts->map_id);
	free(ts->map_slot);
	free(ts->bins);
	free(ts);
}

void roce_timeseries_grid(const roce_timeseries_t *ts, struct roce_ts_grid *g)
{
	g->origin_ns = ts->origin;
	g->bin_ns = 1ull << ts->shift;
	g->nbins = ts->nbins;
	g->doublings = ts->doublings;
}

const uint64_t *roce_timeseries_bins(const roce_timeseries_t *ts)
{
	return ts->bins;
}

unsigned roce_timeseries_nstreams(const roce_timeseries_t *ts)
{
	return ts->nslots;
}

void roce_timeseries_stream(const roce_timeseries_t *ts, unsigned i, struct roce_ts_stream *out)
{
	const struct ts_slot *s;

	memset(out, 0, sizeof(*out));
	if (i >= ts->nslots)
		return;
	s = &ts->slots[i];
	*out = s->pub;
	out->frames = s->frames;
	out->bytes = s->bytes;
	/* the bins are kept interleaved (one cache line per frame): copied apart here,
	 * unless nothing changed since the last copy (a frame of the stream counts in
	 * frames; new bins, doublings and a new stream in the slot change the key) */
	if (s->x_key[0] != s->frames + 1 || s->x_key[1] != ts->nbins ||
	    s->x_key[2] != ts->doublings || s->x_key[3] != s->pub.id ||
	    s->x_key[4] != s->pub.first_ts_ns) {
		struct ts_slot *w = &ts->slots[i];      /* the export copies are scratch */

		for (uint32_t k = 0; k < ts->nbins; k++) {
			w->x_bytes[k] = s->sb[k].bytes;
			w->x_lo[k] = ts_pub_lo(s->sb[k].lo);
			w->x_hi[k] = ts_pub_hi(s->sb[k].hi);
			w->x_ack[k] = ts_pub_ack(s->sb[k].ack);
		}
		w->x_key[0] = s->frames + 1;
		w->x_key[1] = ts->nbins;
		w->x_key[2] = ts->doublings;
		w->x_key[3] = s->pub.id;
		w->x_key[4] = s->pub.first_ts_ns;
	}
	out->bytes_bin = s->x_bytes;
	out->cnps_bin = s->cnps_bin;
	out->tx_lo = s->x_lo;
	out->tx_hi = s->x_hi;
	out->ack_hi = s->x_ack;
	out->points = s->pts;
	out->n_points = s->npts;
}

uint64_t roce_timeseries_untracked(const roce_timeseries_t *ts)
{
	return ts->untracked;
}

uint64_t roce_timeseries_replaced(const roce_timeseries_t *ts)
{
	return ts->replaced;
}

unsigned roce_timeseries_ntimelines(const roce_timeseries_t *ts)
{
	return ts->nlines;
}

void roce_timeseries_timeline(const roce_timeseries_t *ts, unsigned i,
			      struct roce_ts_timeline *out)
{
	memset(out, 0, sizeof(*out));
	if (i >= ts->nlines)
		return;
	*out = ts->lines[i].pub;
	out->pauses = ts->lines[i].iv;
	out->n_pauses = ts->lines[i].n;
}

uint64_t roce_timeseries_pauses_dropped(const roce_timeseries_t *ts)
{
	return ts->pauses_dropped;
}
