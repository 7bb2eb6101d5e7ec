// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * timeseries.c - bounded time series of an analysis run (timeseries.h): an
 * analyzer observer that bins every frame's result, keeps per-stream PSN
 * envelopes and event points, and the pause intervals of each (MAC, priority).
 *
 * Per frame (the hot path, ts_on_frame; bench/html_bench.sh measures it):
 * one compare for the bin (frames mostly come in time order: the current
 * bin's time range is kept), branch-free adds to the bin's counters, one
 * load from a direct-mapped cache of stream id -> slot (stream ids are the
 * analyzer's sequence numbers, so neighbours do not collide; "untracked" is
 * cached too), and for a tracked stream without events four stores.  What is
 * rare (a new bin, a cache miss, sequence events, CNPs, damaged frames) is in
 * functions kept out of line, so the hot one saves few registers.
 * Bin width doubling merges every array in place (O(bins x slots), at most
 * 64 times in a run).  Allocation: bins at create and per stream slot, point
 * and interval arrays doubling up to their caps.
 */
#include <stdlib.h>
#include <string.h>

#include <roce/analyzer.h>
#include <roce/opcode.h>
#include <roce/pkt.h>
#include <roce/timeseries.h>

#define TS_SEQ_EVENTS (ROCE_EV_PSN_GAP | ROCE_EV_DUPLICATE | ROCE_EV_OUT_OF_ORDER | \
		       ROCE_EV_RETRANSMISSION | ROCE_EV_NAK | ROCE_EV_RNR_NAK)
/* events a stream's frame is plotted differently for (stream_frame_events) */
#define TS_STREAM_SLOW (TS_SEQ_EVENTS | ROCE_EV_CNP | ROCE_EV_ICRC_BAD | ROCE_EV_MALFORMED)

#define TS_COLD __attribute__((noinline, cold))
#define TS_LIKELY(x) __builtin_expect(!!(x), 1)
#define TS_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* stream id -> slot cache: direct-mapped on the id's low bits (8 KiB) */
#define TS_CACHE 512
#define TS_UNTRACKED (-1)

struct ts_cache_ent {
	uint64_t id;                    /* 0: empty */
	int32_t slot;                   /* slot index, or TS_UNTRACKED */
};

/* A stream's bin: what a frame without events updates, in one place (32 bytes). */
struct ts_sbin {
	int64_t tx_lo, tx_hi;           /* first transmissions' PSN range; lo > hi: none */
	int64_t ack_hi;                 /* -1: none */
	uint64_t bytes;
};

struct ts_slot {
	/* what every frame of the stream touches, together */
	struct ts_sbin *sb;             /* max_bins */
	uint64_t frames, bytes;
	int64_t last_unw;
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
	[ROCE_TS_PAUSE_FRAMES] = "pause_frames",
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

static void slot_clear_bins(const roce_timeseries_t *ts, struct ts_slot *s, uint32_t from)
{
	for (uint32_t i = from; i < ts->cfg.max_bins; i++) {
		s->sb[i] = (struct ts_sbin){ .tx_lo = INT64_MAX, .tx_hi = INT64_MIN, .ack_hi = -1 };
		s->cnps_bin[i] = 0;
	}
}

static inline int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static inline int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

/* Double the bin width: bin i takes bins 2i and 2i+1. */
static void ts_double(roce_timeseries_t *ts)
{
	const uint32_t half = ts->cfg.max_bins / 2;
	uint64_t *b = ts->bins;

	for (uint32_t i = 0; i < half; i++) {
		uint64_t *d = b + (size_t)i * ROCE_TS_COUNT;
		const uint64_t *s0 = b + (size_t)(2 * i) * ROCE_TS_COUNT, *s1 = s0 + ROCE_TS_COUNT;

		for (unsigned c = 0; c < ROCE_TS_COUNT; c++)
			d[c] = s0[c] + s1[c];
	}
	memset(b + (size_t)half * ROCE_TS_COUNT, 0, (size_t)half * ROCE_TS_COUNT * sizeof(*b));
	for (unsigned k = 0; k < ts->nslots; k++) {
		struct ts_slot *s = &ts->slots[k];

		for (uint32_t i = 0; i < half; i++) {
			const struct ts_sbin a = s->sb[2 * i], b2 = s->sb[2 * i + 1];

			s->sb[i].bytes = a.bytes + b2.bytes;
			s->sb[i].tx_lo = min64(a.tx_lo, b2.tx_lo);
			s->sb[i].tx_hi = max64(a.tx_hi, b2.tx_hi);
			s->sb[i].ack_hi = max64(a.ack_hi, b2.ack_hi);
			s->cnps_bin[i] = s->cnps_bin[2 * i] + s->cnps_bin[2 * i + 1];
		}
		slot_clear_bins(ts, s, half);
	}
	ts->nbins = (ts->nbins + 1) / 2;
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
		ts->nbins = (uint32_t)i + 1;
	ts->cur = (uint32_t)i;
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
	slot_clear_bins(ts, s, 0);
}

/*
 * An untracked stream stays untracked until a frame of it with a sequence
 * anomaly takes a slot (slots are only handed out while some are free, then
 * only taken over): the cache's TS_UNTRACKED is trusted for other frames.
 */
static inline void cache_put(roce_timeseries_t *ts, uint64_t id, int32_t slot)
{
	struct ts_cache_ent *e = &ts->cache[id & (TS_CACHE - 1)];

	e->id = id;
	e->slot = slot;
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
		cache_put(ts, s->pub.id, TS_UNTRACKED);
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
		cache_put(ts, id, (int32_t)(s - ts->slots));
	else if (ts->cfg.max_streams && ts->nslots >= ts->cfg.max_streams)
		cache_put(ts, id, TS_UNTRACKED);
	return s;
}

static inline int64_t unwrap(struct ts_slot *s, uint32_t psn)
{
	int32_t d;

	psn &= 0xffffffu;
	if (!s->have_psn) {
		s->have_psn = true;
		s->last_psn = psn;
		s->last_unw = psn;
		return psn;
	}
	d = (int32_t)((psn - s->last_psn) << 8) >> 8;
	s->last_psn = psn;
	s->last_unw += d;
	return s->last_unw;
}

/* Unwrapped value of psn near the reference, without moving it. */
static inline int64_t unwrap_peek(const struct ts_slot *s, uint32_t psn)
{
	int32_t d;

	if (!s->have_psn)
		return psn & 0xffffffu;
	d = (int32_t)(((psn & 0xffffffu) - s->last_psn) << 8) >> 8;
	return s->last_unw + d;
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
		p = unwrap(s, pkt->bth.psn);
		point_add(ts, s, ev & ROCE_EV_NAK ? ROCE_TS_PT_NAK : ROCE_TS_PT_RNR,
			  res->aeth_syndrome, p, 0, t, frame);
		return;
	}
	p = unwrap(s, pkt->bth.psn);
	if (fl & (ROCE_F_REQ | ROCE_F_RESP)) {
		s->sb[bin].tx_lo = min64(s->sb[bin].tx_lo, p);
		s->sb[bin].tx_hi = max64(s->sb[bin].tx_hi, p);
		if ((fl & ROCE_F_READ) && (fl & ROCE_F_REQ))
			point_add(ts, s, ROCE_TS_PT_READ, 0, p, pkt->reth.dma_len, t, frame);
	}
	if (pkt->hdrs & ROCE_H_AETH)
		s->sb[bin].ack_hi = max64(s->sb[bin].ack_hi, p);
}

static inline void stream_frame(roce_timeseries_t *ts, struct ts_slot *s, uint32_t bin,
				const struct roce_pkt *pkt, uint64_t t, uint64_t frame,
				const struct roce_frame_result *res)
{
	struct ts_sbin *sb = &s->sb[bin];
	uint32_t fl;
	int64_t p;

	s->frames++;
	s->bytes += pkt->wirelen;
	sb->bytes += pkt->wirelen;
	if (TS_UNLIKELY(res->events & TS_STREAM_SLOW)) {
		stream_frame_events(ts, s, bin, pkt, t, frame, res);
		return;
	}
	/* in order, undamaged: what stream_frame_events does without events */
	fl = pkt->op ? pkt->op->flags : 0;
	if (!(fl & (ROCE_F_REQ | ROCE_F_RESP | ROCE_F_ACK)))
		return;
	p = unwrap(s, pkt->bth.psn);
	if (fl & (ROCE_F_REQ | ROCE_F_RESP)) {
		sb->tx_lo = min64(sb->tx_lo, p);
		sb->tx_hi = max64(sb->tx_hi, p);
		if (TS_UNLIKELY((fl & ROCE_F_READ) && (fl & ROCE_F_REQ)))
			point_add(ts, s, ROCE_TS_PT_READ, 0, p, pkt->reth.dma_len, t, frame);
	}
	if (pkt->hdrs & ROCE_H_AETH)
		sb->ack_hi = max64(sb->ack_hi, p);
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

static void ts_on_frame(void *user, const struct roce_pkt *pkt, uint64_t t, uint64_t frame,
			const struct roce_frame_result *res)
{
	roce_timeseries_t *ts = user;
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
		if (e->slot >= 0) {
			s = &ts->slots[e->slot];
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

static struct ts_line *line_get(roce_timeseries_t *ts, const uint8_t mac[6], int prio)
{
	struct ts_line *l;

	if (ts->last_line < ts->nlines) {
		l = &ts->lines[ts->last_line];
		if (l->pub.priority == prio && !memcmp(l->pub.src_mac, mac, 6))
			return l;
	}
	for (unsigned i = 0; i < ts->nlines; i++) {
		l = &ts->lines[i];
		if (l->pub.priority == prio && !memcmp(l->pub.src_mac, mac, 6)) {
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
	struct ts_line *l = line_get(ts, ev->src_mac, ev->priority);
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
			w->x_lo[k] = s->sb[k].tx_lo;
			w->x_hi[k] = s->sb[k].tx_hi;
			w->x_ack[k] = s->sb[k].ack_hi;
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
