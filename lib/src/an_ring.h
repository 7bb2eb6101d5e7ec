// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * an_ring.h - the request state machine's AckReq and READ rings (an_req's
 * ack and rd arrays): push, complete, match and grow.  Included by
 * an_request.c (push, cancel) and an_response.c (complete, match) only, which
 * stay their users (and so, with an_acked.c's holes, the only writers of
 * struct an_req): static functions, so that the hot ones are inlined into
 * the frame's path; a file that includes this one need not use every one
 * (-Wunused-function off here).
 *
 * The AckReq ring holds the outstanding requests that wait for an ACK (an
 * AckReq, a READ, an atomic), oldest first; the READ ring the last READs
 * pushed.  Both start with one entry and double up to AN_ACK_RING /
 * AN_READ_RING (powers of two: AN_RING_AT() indexes them).  The one entry is
 * a pool record of its own, or for a paired stream (struct an_req_lat) the
 * record's entry in line (ack_inline(), read_inline()); the larger rings
 * come from the heap.
 */
#ifndef ROCE_AN_RING_H
#define ROCE_AN_RING_H

#include <stdlib.h>
#include <string.h>

#include "an_internal.h"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"

/* r's first AckReq / READ ring in its record (a paired stream's), NULL for a 96-byte record */
static inline struct an_ackent *ack_inline(struct an_req *r)
{
	return r->dists ? ((struct an_req_lat *)r)->ack1 : NULL;
}

static inline struct an_readent *read_inline(struct an_req *r)
{
	return r->dists ? ((struct an_req_lat *)r)->rd1 : NULL;
}

/* Give back an AckReq/READ ring: the first size (first entries) to its pool unless it is
 * the record's own (inl), larger ones to free() (none yet: cap 0, nothing; a stream's first
 * ring grows from there). */
static void ring_put(struct an_pool *pool, void *ring, unsigned cap, unsigned first, void *inl)
{
	if (cap == first) {
		if (ring != inl)
			an_pool_put(pool, ring);
	} else if (cap) {
		free(ring);
	}
}

/* A stream's first AckReq / READ ring: the record's own, or a pool record (NULL: no memory) */
static inline struct an_ackent *ack_get_first(struct roce_analyzer *a, struct an_req *r)
{
	return r->dists ? ack_inline(r) : an_pool_get(&a->pool.ack1);
}

static inline struct an_readent *read_get_first(struct roce_analyzer *a, struct an_req *r)
{
	return r->dists ? read_inline(r) : an_pool_get(&a->pool.rd1);
}

/*
 * Double the AckReq ring, oldest entry first; false at the cap or without
 * memory.  The first ring (AN_ACK_FIRST entries: most streams have one
 * AckReq outstanding at a time) is the record's or a pool's, the larger ones
 * come from malloc.
 */
static bool ack_grow(struct roce_analyzer *a, struct an_req *r)
{
	unsigned ncap = r->ack_cap ? 2u * r->ack_cap : AN_ACK_FIRST;
	struct an_ackent *n;

	if (r->ack_cap >= AN_ACK_RING)
		return false;
	n = r->ack_cap ? malloc(ncap * sizeof(*n)) : ack_get_first(a, r);
	if (!n)
		return false;
	for (unsigned i = 0; i < r->ack_n; i++)
		n[i] = r->ack[(r->ack_head + i) % r->ack_cap];
	ring_put(&a->pool.ack1, r->ack, r->ack_cap, AN_ACK_FIRST, ack_inline(r));
	r->ack = n;
	r->ack_cap = (uint8_t)ncap;
	r->ack_head = 0;
	return true;
}

/*
 * ack_push() into a full ring (or none yet): grow it; at its cap, move the
 * oldest entry to r's older AckReqs (struct an_ackold: counted and timed
 * together); without memory, forget it.  False: no ring.
 */
static __attribute__((noinline)) bool ack_room(struct roce_analyzer *a, struct an_req *r)
{
	if (!ack_grow(a, r)) {
		struct an_req_err *er;

		if (!r->ack_cap)
			return false;   /* no memory: this request is not timed */
		if (r->ack_cap == AN_ACK_RING && (er = an_req_err(a, r)) != NULL) {
			const struct an_ackent *e = &r->ack[r->ack_head];
			struct an_ackold *o = &er->ackold;

			if (!o->n) {
				o->oldest_ts = e->ts;
				o->oldest_psn = e->psn;
				o->sum_dt = 0;
			}
			o->sum_dt += e->ts >= o->oldest_ts ? e->ts - o->oldest_ts : 0;
			o->newest_ts = e->ts;
			o->newest_psn = e->psn;
			o->newest_frame = e->frame;
			o->n++;
		}
		r->ack_head = (r->ack_head + 1) % r->ack_cap;   /* full: the oldest leaves */
		r->ack_n--;
	}
	return true;
}

/*
 * The older AckReqs (struct an_ackold) are covered by P (an ACK: inclusive,
 * dist set; a NAK: not inclusive, no samples, and when any of them is before
 * P, as they all are answered or resent then): an ACK covering the newest
 * completes them all, one sample each: the oldest's and the newest's exact,
 * the others' at their mean time (the sum, hence the mean, of the samples
 * exact); *last gets the newest.  True when it completed them with samples.
 */
static __attribute__((noinline)) bool ackold_complete(struct roce_analyzer *a, struct an_req *r,
	uint32_t P, bool inclusive, bool dist, uint64_t now, struct an_ackent *last)
{
	struct an_ackold *o = &r->err->ackold;

	if (!dist) {
		if (roce_psn_cmp(o->oldest_psn, P) >= 0)
			return false;
	} else if (roce_psn_cmp(o->newest_psn, P) > (inclusive ? 0 : -1)) {
		return false;
	}
	if (dist) {
		uint64_t span = o->newest_ts >= o->oldest_ts ? o->newest_ts - o->oldest_ts : 0;

		uint64_t mid = o->n > 2 ? o->oldest_ts + (o->sum_dt - span) / (o->n - 2) : 0;

		an_lat_req_add(a, r, AN_LAT_RTT, now >= o->oldest_ts ? now - o->oldest_ts : 0);
		if (o->n >= 2)
			an_lat_req_add(a, r, AN_LAT_RTT,
				now >= o->newest_ts ? now - o->newest_ts : 0);
		for (uint32_t k = 2; k < o->n; k++)
			an_lat_req_add(a, r, AN_LAT_RTT, now >= mid ? now - mid : 0);
		last->psn = o->newest_psn;
		last->ts = o->newest_ts;
		last->frame = o->newest_frame;
	}
	o->n = 0;
	an_req_err_release(a, r);
	return dist;
}

/*
 * A stream's first AckReq ring, before its first ack_push() (req_process(): the in-order
 * paths need a ring already): what ack_room() and ack_grow() do with no ring, the first
 * ring and nothing to copy, without their call (about 40 instructions a request stream).
 * Without memory nothing changes: ack_push() tries again and gives up.
 */
static inline __attribute__((always_inline)) void ack_first(struct roce_analyzer *a,
	struct an_req *r)
{
	if ((r->ack = ack_get_first(a, r)) != NULL) {
		r->ack_cap = AN_ACK_FIRST;
		r->ack_head = 0;
	}
}

static void ack_push(struct roce_analyzer *a, struct an_req *r, uint32_t psn, bool own,
	uint64_t ts, uint64_t frame)
{
	unsigned idx;

	if (r->ack_n == r->ack_cap && !ack_room(a, r))
		return;
	idx = AN_RING_AT(r->ack_head + r->ack_n, r->ack_cap);
	r->ack[idx].psn = psn;
	r->ack[idx].own = own;
	r->ack[idx].ts = ts;
	r->ack[idx].frame = frame;
	r->ack_n++;
}

/*
 * A response of r's responder that acknowledges up to upto (an ACK or a
 * response: its PSN; a NAK: the PSN before it) the request stream has not
 * carried yet (less than 2^22 ahead: the same connection), the requests
 * captured behind their ACK (multi-queue capture, mirror ports): marked, so
 * that they wait for no later ACK (ack_acked_ahead()).  Without memory they
 * are timed as before.
 */
static __attribute__((noinline)) void ack_mark(struct roce_analyzer *a, struct an_req *r,
	uint32_t upto)
{
	struct an_req_err *er = an_req_err(a, r);

	if (!er)
		return;
	if (!er->ahead || roce_psn_cmp(upto, er->acked_ahead) > 0)
		er->acked_ahead = upto;
	er->ahead = true;
}

/* (the test in line: upto - (next + slack) in [0, 2^22), modulo 2^24) */
static inline __attribute__((always_inline)) void ack_mark_ahead(struct roce_analyzer *a,
	struct an_req *r, uint32_t upto)
{
	if (__builtin_expect(((upto - r->next - r->slack) & 0xffffffu) < AN_RESYNC, 0))
		ack_mark(a, r, upto);
}

/*
 * Request PSN p (an AckReq, a READ, an atomic) arrives with r's responder
 * known to have acknowledged up to acked_ahead already: at or before it, p
 * gets no entry (true), as its ACK or response was seen: the next ACK would
 * time it from its request to a later ACK (docs/json.md rtt_us).  The mark
 * goes once the requests reach it.
 */
static __attribute__((noinline)) bool ack_acked_ahead(struct roce_analyzer *a, struct an_req *r,
	uint32_t p)
{
	int32_t d = roce_psn_cmp(p, r->err->acked_ahead);

	if (d >= 0) {
		r->err->ahead = false;
		an_req_err_release(a, r);
	}
	return d <= 0;
}

/*
 * Complete outstanding entries covered by P (psn <= P, or psn < P when
 * !inclusive).  Samples go to r's distributions when dist (r's stream) is
 * non-NULL; returns the newest completed entry's (ts, frame) through *last.
 * A READ or atomic (own) is timed only by its own response, the one that
 * answers the request at PSN ans: a response past it with none of its own
 * seen is an implied NAK (IBTA 9.7.5.1.5: the requester re-issues it), no
 * round trip.
 */
static bool ack_complete(struct roce_analyzer *a, struct an_req *r, uint32_t P, bool inclusive,
	uint32_t ans, struct an_flow *dist, uint64_t now, struct an_ackent *last)
{
	bool any = false;
	unsigned keep = 0;
	struct an_ackent tmp[AN_ACK_RING];

	/* (older than the ring's entries: first) */
	if (__builtin_expect(r->err && r->err->ackold.n, 0))
		any = ackold_complete(a, r, P, inclusive, dist != NULL, now, last);
	for (unsigned i = 0; i < r->ack_n; i++) {
		struct an_ackent *e = &r->ack[AN_RING_AT(r->ack_head + i, r->ack_cap)];
		int32_t d = roce_psn_cmp(e->psn, P);

		if (d < 0 || (inclusive && d == 0)) {
			if (dist && (!e->own || e->psn == ans)) {
				an_lat_req_add(a, r, AN_LAT_RTT, now >= e->ts ? now - e->ts : 0);
				if (!any || roce_psn_cmp(e->psn, last->psn) >= 0)
					*last = *e;
				any = true;
			}
		} else {
			tmp[keep++] = *e;
		}
	}
	if (keep)
		memcpy(r->ack, tmp, keep * sizeof(tmp[0]));
	r->ack_head = 0;
	r->ack_n = keep;
	/* (requests captured behind it) */
	ack_mark_ahead(a, r, inclusive ? P : roce_psn_add(P, 0xffffffu));
	return any;
}

/*
 * ack_complete() of an ACK-type response with one AckReq outstanding (the
 * common case), in line: what the loop there does with the one entry.
 */
static inline __attribute__((always_inline)) bool ack_complete_rsp(struct roce_analyzer *a,
	struct an_req *r, uint32_t P, uint32_t ans, struct an_flow *dist, uint64_t now,
	struct an_ackent *last)
{
	struct an_ackent *e;

	if (r->ack_n != 1)     /* (none yet: r->ack may be NULL) */
		return ack_complete(a, r, P, true, ans, dist, now, last);
	e = &r->ack[r->ack_head];
	if (roce_psn_cmp(e->psn, P) > 0) {
		if (r->ack_head) {
			r->ack[0] = *e;
			r->ack_head = 0;
		}
		return false;
	}
	r->ack_head = 0;
	r->ack_n = 0;
	/* past its one entry: perhaps past the requests seen too (ack_complete()'s test) */
	if (__builtin_expect(e->psn != P, 0))
		ack_mark_ahead(a, r, P);
	if (!dist || (e->own && e->psn != ans))
		return false;
	an_lat_req_add(a, r, AN_LAT_RTT, now >= e->ts ? now - e->ts : 0);
	*last = *e;
	return true;
}

/*
 * Karn: drop outstanding entries at or after a retransmitted PSN.  The older
 * AckReqs (struct an_ackold) go as well when the PSN is one of theirs or
 * anything of the ring goes (a requester goes back to its oldest
 * unacknowledged request: the rare resend behind them leaves them untimed).
 */
static void ack_cancel_from(struct roce_analyzer *a, struct an_req *r, uint32_t p)
{
	unsigned keep = 0;
	struct an_ackent tmp[AN_ACK_RING];

	for (unsigned i = 0; i < r->ack_n; i++) {
		struct an_ackent *e = &r->ack[AN_RING_AT(r->ack_head + i, r->ack_cap)];

		if (roce_psn_cmp(e->psn, p) < 0)
			tmp[keep++] = *e;
	}
	if (r->err && r->err->ackold.n &&
	    (keep < r->ack_n || roce_psn_cmp(r->err->ackold.newest_psn, p) >= 0)) {
		r->err->ackold.n = 0;
		an_req_err_release(a, r);
	}
	if (keep)
		memcpy(r->ack, tmp, keep * sizeof(tmp[0]));
	r->ack_head = 0;
	r->ack_n = keep;
}

/*
 * The READ ring keeps the last AN_READ_RING READs pushed; entries stay
 * until overwritten, after their LAST too (replayed responses and re-issued
 * READs still find them).  It starts with 1 slot and doubles, up to
 * AN_READ_RING, when the slot to overwrite holds a READ still expecting its
 * LAST, so the READs in progress kept are the same as with a full-size ring.
 */

/* Newest live READ starting at psn_first. */
static struct an_readent *read_find(struct an_req *r, uint32_t psn_first)
{
	for (unsigned k = 1; k <= r->rd_cap; k++) {
		struct an_readent *e = &r->rd[AN_RING_AT(r->rd_next + r->rd_cap - k, r->rd_cap)];

		if (e->live && e->psn == psn_first)
			return e;
	}
	return NULL;
}

/* Newest READ whose (possible) range holds PSN P. */
static struct an_readent *read_match(struct an_req *r, uint32_t P)
{
	for (unsigned k = 1; k <= r->rd_cap; k++) {
		struct an_readent *e = &r->rd[AN_RING_AT(r->rd_next + r->rd_cap - k, r->rd_cap)];

		if (e->live && an_psn_in(P, e->psn, e->nmax))
			return e;
	}
	return NULL;
}

/*
 * Double the READ ring keeping push order (oldest first); false at the cap
 * or without memory.  The first ring (AN_READ_FIRST slots) is the record's
 * or a pool's, the larger ones come from calloc.
 */
static __attribute__((noinline)) bool read_grow(struct roce_analyzer *a, struct an_req *r)
{
	unsigned ncap = r->rd_cap ? 2u * r->rd_cap : AN_READ_FIRST;
	struct an_readent *n;

	if (r->rd_cap >= AN_READ_RING)
		return false;
	n = r->rd_cap ? calloc(ncap, sizeof(*n)) : read_get_first(a, r);
	if (!n)
		return false;
	for (unsigned i = 0; i < r->rd_cap; i++)
		n[i] = r->rd[(r->rd_next + i) % r->rd_cap];
	ring_put(&a->pool.rd1, r->rd, r->rd_cap, AN_READ_FIRST, read_inline(r));
	r->rd = n;
	r->rd_next = r->rd_cap;
	r->rd_cap = (uint8_t)ncap;
	return true;
}

/* A stream's first READ ring before its first read_push() (as ack_first(): what read_grow()
 * does with no ring, without the call); without memory read_push() tries again. */
static inline __attribute__((always_inline)) void read_first(struct roce_analyzer *a,
	struct an_req *r)
{
	if ((r->rd = read_get_first(a, r)) != NULL) {
		r->rd_next = 0;
		r->rd_cap = AN_READ_FIRST;
	}
}

static inline __attribute__((always_inline)) void read_push(struct roce_analyzer *a,
	struct an_req *r, uint32_t psn, uint32_t n, uint32_t nmax, uint32_t len, uint64_t ts,
	uint64_t frame)
{
	struct an_readent *e;

	if ((!r->rd_cap || (r->rd[r->rd_next].live && !r->rd[r->rd_next].last_done)) &&
	    !read_grow(a, r) && !r->rd_cap)
		return;                 /* no memory: this READ is not followed */
	e = &r->rd[r->rd_next];
	r->rd_next = AN_RING_AT(r->rd_next + 1, r->rd_cap);
	memset(e, 0, sizeof(*e));
	e->live = true;
	e->psn = psn;
	e->n = n;
	e->nmax = nmax;
	e->len = len;
	e->ts = ts;
	e->frame = frame;
}

#pragma GCC diagnostic pop

#endif /* ROCE_AN_RING_H */
