// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * an_request.c - the request state machine: PSN sequencing of request
 * streams, go-back-N and its cause, ACK / NAK / RNR, READ responses, and
 * request/response pairing.  The functions exported here (an_internal.h)
 * are the only writers of struct an_req, but for an_acked.c, which takes the
 * request PSNs a response acknowledges out of the holes (acked_unseen_psns:
 * a later frame with one of them is a duplicate).
 *
 * Request streams (ROCE_F_REQ opcodes; UD only while the DETH source QP is
 * the one first seen)
 *   Every request consumes 1 PSN except an RDMA READ request:
 *   N = max(1, ceil(dma_len / pmtu)).  pmtu = configured, else learned from
 *   the stream (or its peer): the payload of FIRST/MIDDLE packets, which carry
 *   exactly one PMTU.  With the pmtu unknown N lies in
 *   [ceil(len/4096), ceil(len/256)]: the expected PSN is set from the lower
 *   bound and the difference is kept as "slack"; the next request anywhere
 *   in the slack is in order and pins N (so does the READ's LAST/ONLY
 *   response).  A READ's PSN range never yields a gap.
 *   State: expected PSN e, newest = e - 1, up to 16 holes (missing PSN
 *   ranges, oldest first).  When a 17th hole is needed the oldest is dropped
 *   and its PSNs are counted as unrecovered right away (conservative: a late
 *   fill of such a PSN then counts as a duplicate).
 *     p == e           in order
 *     p ahead of e     gap: psn_gaps++, lost_psns += p - e, new hole [e, p)
 *     p behind e       in a hole: a fill, out_of_order++ (retransmitted or
 *                      not: the definition), else duplicates++ (every
 *                      re-seen PSN, like a NIC's duplicate_request)
 *   Inside a go-back-N resend run the PSN expected after the previous packet
 *   (pnext) trails e; a forward jump against pnext is a gap as well
 *   (lost_psns += the jump): a resent packet lost again.  This is what the
 *   Soft-RoCE capture README counts as "req_psn_jump_forward".
 *   A forward or backward jump of more than 2^22 PSNs is taken as a new
 *   connection on a reused QPN: the sequence state restarts, no event.
 *
 * Go-back-N (RC, XRC, RD only; UC/UD never retransmit)
 *   A request behind the newest PSN is a retransmission when an episode is
 *   active or starts at it.  A NAK / RNR NAK seen on the paired stream is
 *   pending until a go-back starts or the PSN it names arrives in order; a
 *   newer one with another PSN replaces it (the responder expects that PSN
 *   now), a repeated one keeps the first one's time.
 *   A go-back starts at a packet behind the newest PSN that was seen
 *   before (cause: the pending NAK / RNR NAK, else TIMEOUT), or at a hole
 *   fill whose PSN a pending NAK / RNR NAK names (a NAK explains the resend
 *   of its own PSN only).  While an episode is active, resends move forward;
 *   a packet that does not advance past the previous packet's PSN is a new
 *   go-back by the same two rules.  For a repeated PSN the NAK's PSN is not
 *   required to be <= p: rxe restarts whole messages, sometimes before the
 *   NAKed PSN (rc_send_rnr.pcap).  A NAK that arrives while resends move
 *   forward is answered by the next backward jump, not by them.  A hole
 *   fill that starts no go-back is, outside a run, a late frame (reordered,
 *   or a resend whose NAK was not captured): out of order, no
 *   retransmission; inside a run, a resend reordered within the run: a
 *   retransmission of the episode.  Either way the run's position (pnext,
 *   prev) stays, so the resend after it is no gap.  If both a
 *   sequence-error NAK and an RNR NAK are pending, the older one names the
 *   cause (an RNR NAK is
 *   normally followed by sequence-error NAKs for the packets that were in
 *   flight behind it; the requester's reaction is the RNR wait).  Each go-back
 *   counts once in gbn_episodes[cause] and raises one ROCE_AN_RETRANSMISSION
 *   (at its first packet); every retransmitted packet counts in
 *   retransmissions.  A go-back inside an active episode keeps the episode's
 *   recovery start.  The episode ends when the PSN passes the newest PSN seen
 *   before it began (ROCE_EV_GBN_RECOVERED, recovery dist from the first NAK,
 *   or from the first retransmission for a timeout).  nak_response = NAK ->
 *   first retransmission that answers it.
 *   RTT: request packets with AckReq (and every READ / atomic) enter a ring
 *   of 64 outstanding (psn, ts, frame); the first ACK / READ response /
 *   ATOMIC_ACK with PSN P completes every entry with psn <= P, one rtt sample
 *   each, res->rtt_ns/ref_frame from the newest completed entry.  With more
 *   outstanding, the oldest leave the ring for a summary of them (struct
 *   an_ackold: how many, oldest and newest PSN and time, the sum of their
 *   times): the ACK covering the newest of them gives one sample each, the
 *   oldest's and newest's exact, the others at their mean.  A NAK
 *   completes the entries before its PSN without samples.  Retransmitted
 *   requests are not timed and cancel outstanding entries at/after their PSN
 *   (Karn's rule).  READs: a ring of the last 16 READs (psn, N, length, ts,
 *   frame) gives read_first (first response with PSN == psn) and read_last
 *   (first LAST/ONLY) and the READ PSN ranges the response side checks.  A
 *   re-issued READ (behind the newest PSN) inside a known READ's range adds
 *   no entry: it is a retry of a subset of that READ (IBTA 9.7), answered
 *   with the original PSNs.
 *
 * Response streams (RC, XRC, RD; rsp_sequence): newest = the highest PSN the
 *   responder has shown it sent (a READ response's or ACK's PSN, a NAK's PSN
 *   - 1: a NAK names the PSN it expects); the first frame starts it (a first
 *   READ response inside a known READ: that READ's first PSN; and the known
 *   READs wholly behind the first frame, none of their responses seen, were
 *   passed: responses come in PSN order).  A frame
 *   with PSN P ahead of newest passes the PSNs in (newest, P): those inside
 *   the paired request stream's known READ ranges (with the smallest N while
 *   N is unknown) are READ responses that were skipped: one gap, lost_psns +=
 *   their number, holes (unrecovered unless seen later).  Passed PSNs whose
 *   READ may be unknown (not seen on the request stream: in its holes or
 *   ahead of it; all when unpaired) are kept as unseen (up to 16 ranges,
 *   counted nowhere; allocated with the first).  A READ response at or
 *   behind newest fills a hole or an unseen PSN (out_of_order) or is a
 *   duplicate (a frame of the stream carried its PSN before): re-read
 *   and replayed responses, and responses still in flight for the original
 *   READ after a retry burst, never make a gap.  ACK / NAK PSNs repeat
 *   (coalesced, duplicate ACKs) and are never duplicates; an older ACK PSN
 *   is simply no longer missing.  Every
 *   AETH (ACK, ATOMIC_ACK, READ_RESPONSE FIRST/LAST/ONLY) is counted by its
 *   syndrome class: ACK -> acks; RNR NAK -> naks and rnr_naks (naks counts
 *   every NAK-type AETH, rnr_naks is the RNR subset); NAK -> naks and
 *   nak_codes[code] (codes > 4 only in naks).  An RNR NAK sets ROCE_EV_RNR_NAK
 *   and raises ROCE_AN_RNR_NAK only (not ROCE_EV_NAK / ROCE_AN_NAK).
 *   Pairing: an unpaired response stream B->A looks (at its first 4 frames,
 *   then every 64th) for the unpaired request stream A->B whose PSN window
 *   [first PSN, expected PSN + slack] holds the response PSN (closest newest
 *   PSN wins); failing that, the only unpaired request stream A->B.  Peers
 *   link both ways and are unlinked on eviction.  The candidates come from
 *   an index (an_pair.c), not a scan of every stream.
 */
#include <stdio.h>

#include "an_internal.h"
#include "an_ring.h"

#define AN_MAX_READ_N      (1u << 22)
#define AN_PAIR_EVERY      64
#define AN_PAIR_FIRST      4
_Static_assert(65536 % AN_PAIR_EVERY == 0, "unpaired_frames (16 bits) wraps to a multiple");

static uint64_t holes_missing(const struct an_holeset *r)
{
	uint64_t n = r->dropped_unrec;

	for (unsigned i = 0; i < r->nholes; i++)
		n += r->holes[i].len;
	return n;
}

uint64_t an_flow_unrecovered(const struct an_flow *f)
{
	return (f->req ? holes_missing(&f->req->hs) : 0) + (f->rsp ? holes_missing(&f->rsp->hs) : 0);
}

/* r's NAK / go-back block, allocated on first use; NULL when out of memory. */
static struct an_req_err *req_err(struct roce_analyzer *a, struct an_req *r)
{
	if (!r->err && (r->err = calloc(1, sizeof(*r->err))) != NULL)
		a->err_bytes += sizeof(*r->err);
	return r->err;
}

static void req_err_free(struct roce_analyzer *a, struct an_req *r)
{
	if (!r->err)
		return;
	a->err_bytes -= sizeof(*r->err);
	if (r->err->pre) {
		free(r->err->pre->unseen.holes);
		free(r->err->pre);
	}
	free(r->err);
	r->err = NULL;
}

/* r's block freed when nothing in it is in use: no go-back run, no pending NAK or RNR
 * NAK, no PSNs behind the first, no older AckReqs (an_ring.h) */
static void req_err_release(struct roce_analyzer *a, struct an_req *r)
{
	const struct an_req_err *er = r->err;

	if (er && !r->gbn_active && !er->nak.valid && !er->rnr.valid && !er->pre && !er->ackold.n &&
	    !er->ahead)
		req_err_free(a, r);
}

/* Forget all sequence state, keeping the (emptied) arrays. */
static void an_req_reset(struct roce_analyzer *a, struct an_req *r)
{
	struct an_hole *holes = r->hs.holes;
	struct an_ackent *ack = r->ack;
	struct an_readent *rd = r->rd;
	uint8_t hc = r->hs.cap, ac = r->ack_cap, rd_cap = r->rd_cap;
	struct an_pnode *pn = r->pn;
	uint64_t messages = r->messages;
	uint32_t src_qp = r->src_qp;
	bool udqp_set = r->udqp_set, dists = r->dists;

	req_err_free(a, r);
	memset(r, 0, sizeof(*r));       /* (a struct an_req_lat's distributions stay) */
	r->dists = dists;
	/* the pairing index's entry belongs to an_pair.c (an_pair_sync() follows); the
	 * stream's message count and UD source QP are not sequence state */
	r->pn = pn;
	r->messages = messages;
	r->src_qp = src_qp;
	r->udqp_set = udqp_set;
	r->hs.holes = holes;
	r->ack = ack;
	r->rd = rd;
	r->hs.cap = hc;
	r->ack_cap = ac;
	r->rd_cap = rd_cap;
	if (rd)
		memset(rd, 0, rd_cap * sizeof(*rd));
}

void an_req_free(struct roce_analyzer *a, struct an_req *r)
{
	if (!r)
		return;
	free(r->hs.holes);
	ring_put(&a->pool.ack1, r->ack, r->ack_cap, AN_ACK_FIRST, ack_inline(r));
	ring_put(&a->pool.rd1, r->rd, r->rd_cap, AN_READ_FIRST, read_inline(r));
	req_err_free(a, r);
	if (r->dists) {
		an_lat_req_free(a, an_req_dists(r));
		an_pool_put(&a->pool.req_lat, r);
	} else {
		an_pool_put(&a->pool.req, r);
	}
}

/* A struct an_req_lat for a paired stream's request state (the samples its peer's responses
 * give); NULL when out of memory. */
static struct an_req *req_lat_get(struct roce_analyzer *a)
{
	struct an_req *r = an_pool_get(&a->pool.req_lat);

	if (r)
		r->dists = true;
	return r;
}

void an_req_pair(struct roce_analyzer *a, struct an_flow *f)
{
	struct an_req *r;
	struct an_req_lat *l;

	if (!f->req || f->req->dists || !(r = req_lat_get(a)))
		return;
	memcpy(r, f->req, sizeof(*r));
	r->dists = true;
	/* first rings (one entry) move into the record, larger ones stay where they are */
	l = (struct an_req_lat *)r;
	if (r->ack_cap == AN_ACK_FIRST) {
		memcpy(l->ack1, r->ack, sizeof(l->ack1));
		an_pool_put(&a->pool.ack1, r->ack);
		r->ack = l->ack1;
	}
	if (r->rd_cap == AN_READ_FIRST) {
		memcpy(l->rd1, r->rd, sizeof(l->rd1));
		an_pool_put(&a->pool.rd1, r->rd);
		r->rd = l->rd1;
	}
	an_pool_put(&a->pool.req, f->req);
	f->req = r;
}

void an_rsp_free(struct roce_analyzer *a, struct an_rsp *s)
{
	if (!s)
		return;
	free(s->hs.holes);
	if (s->unseen) {
		free(s->unseen->holes);
		free(s->unseen);
	}
	an_pool_put(&a->pool.rsp, s);
}

/* ----------------------------------------------------------------- holes */

static void hole_drop_oldest(struct an_holeset *r)
{
	r->dropped_unrec += r->holes[0].len;
	memmove(&r->holes[0], &r->holes[1], (r->nholes - 1) * sizeof(r->holes[0]));
	r->nholes--;
}

/*
 * The hole array and the two rings start empty and double up to their caps
 * (AN_HOLES, AN_ACK_RING, AN_READ_RING) when they are full: most streams
 * never need more than a few entries.  When growing fails (no memory) they
 * behave as if at their cap.
 */
static bool holes_room(struct an_holeset *r)
{
	unsigned ncap;
	struct an_hole *n;

	if (r->nholes < r->cap)
		return true;
	if (r->cap >= AN_HOLES)
		return false;
	ncap = r->cap ? 2u * r->cap : 2u;
	n = realloc(r->holes, ncap * sizeof(*n));
	if (!n)
		return false;
	r->holes = n;
	r->cap = (uint8_t)ncap;
	return true;
}

static void hole_add(struct an_holeset *r, uint32_t start, uint32_t len)
{
	if (!len)
		return;
	if (!holes_room(r)) {
		if (!r->nholes)
			return;         /* no memory at all: the hole is not tracked */
		hole_drop_oldest(r);
	}
	r->holes[r->nholes].start = start & 0xffffffu;
	r->holes[r->nholes].len = len;
	r->nholes++;
}

/* Remove PSN p from the holes; true when it was missing. */
static bool hole_fill(struct an_holeset *r, uint32_t p)
{
	for (unsigned i = 0; i < r->nholes; i++) {
		struct an_hole *h = &r->holes[i];
		uint32_t off;

		if (!psn_in(p, h->start, h->len))
			continue;
		off = (p - h->start) & 0xffffffu;
		if (off == 0) {
			h->start = roce_psn_add(h->start, 1);
			h->len--;
		} else if (off == h->len - 1) {
			h->len--;
		} else {
			struct an_hole tail = { roce_psn_add(p, 1), h->len - off - 1 };

			h->len = off;
			if (!holes_room(r)) {
				hole_drop_oldest(r);
				/* i may have moved; append the tail anyway */
			}
			r->holes[r->nholes++] = tail;
			return true;
		}
		if (h->len == 0) {
			memmove(h, h + 1, (r->nholes - i - 1) * sizeof(*h));
			r->nholes--;
		}
		return true;
	}
	return false;
}

/*
 * Remove [p, p + n) from the holes: a late READ request covers its whole
 * PSN range.  True when any of those PSNs was missing.
 */
static bool hole_fill_range(struct an_holeset *r, uint32_t p, uint32_t n)
{
	bool any = false;
	unsigned i = 0;

	while (i < r->nholes) {
		struct an_hole *h = &r->holes[i];
		uint32_t a = (p - h->start) & 0xffffffu, b = (h->start - p) & 0xffffffu;
		uint32_t lo, hi;

		/* the range in hole offsets [lo, hi), clipped to [0, h->len) */
		if (a < h->len) {
			lo = a;
			hi = n < h->len - a ? a + n : h->len;
		} else if (b < n) {
			lo = 0;
			hi = n - b < h->len ? n - b : h->len;
		} else {
			i++;
			continue;
		}
		any = true;
		if (lo == 0 && hi == h->len) {
			memmove(h, h + 1, (r->nholes - i - 1) * sizeof(*h));
			r->nholes--;
		} else if (lo == 0) {
			h->start = roce_psn_add(h->start, hi);
			h->len -= hi;
			i++;
		} else if (hi == h->len) {
			h->len = lo;
			i++;
		} else {
			struct an_hole tail = { roce_psn_add(h->start, hi), h->len - hi };

			h->len = lo;
			if (!holes_room(r)) {
				hole_drop_oldest(r);
				if (i == 0) {
					r->holes[r->nholes++] = tail;
					continue;       /* holes[0] is a new hole now */
				}
				i--;
			}
			r->holes[r->nholes++] = tail;
			i++;
		}
	}
	return any;
}

/* --------------------------------------------------------------- requests */

static uint32_t flow_pmtu(const struct roce_analyzer *a, const struct an_flow *f)
{
	if (a->cfg.pmtu)
		return a->cfg.pmtu;
	return f->st.pmtu;
}

static uint32_t div_up(uint64_t len, uint32_t d)
{
	uint64_t n = (len + d - 1) / d;

	if (n < 1)
		n = 1;
	if (n > AN_MAX_READ_N)
		n = AN_MAX_READ_N;
	return (uint32_t)n;
}

/*
 * The response PSNs a READ request of f asks for: N with the path MTU known,
 * else at least len / 4096 (n) and at most len / 256 (nmax); rd_len, its
 * length.  (req_process() and an_req_inorder().)
 */
static inline __attribute__((always_inline)) void read_span(const struct an_ctx *c,
	const struct an_flow *f, uint32_t *n, uint32_t *nmax, uint32_t *rd_len)
{
	const struct roce_pkt *pkt = c->pkt;
	uint64_t len = (pkt->hdrs & ROCE_H_RETH) ? pkt->reth.dma_len : 0;
	uint32_t pmtu = flow_pmtu(c->a, f);

	*rd_len = (uint32_t)len;
	if (pmtu) {
		*n = *nmax = div_up(len, pmtu);
	} else {
		*n = div_up(len, 4096);
		*nmax = div_up(len, 256);
	}
}

/* An anomaly of the frame in c on stream f, at PSN p where e was expected. */
static void an_init_psn(struct roce_anomaly *an, const struct an_ctx *c, enum roce_anomaly_type type,
	const struct an_flow *f, uint32_t p, uint32_t e)
{
	an_init(an, type, c->frame, c->ts, f);
	an->has_psn = true;
	an->psn = p;
	an->has_expected = true;
	an->expected_psn = e;
}

static void retx_anomaly(struct an_ctx *c, struct an_flow *f, uint32_t p, uint32_t e,
	enum roce_retx_cause cause, const struct an_pending *pend)
{
	struct roce_anomaly an;

	if (!c->a->want_an)
		return;
	an_init_psn(&an, c, ROCE_AN_RETRANSMISSION, f, p, e);
	if (cause == ROCE_RETX_NAK)
		snprintf(an.detail, sizeof(an.detail), "go-back-N after NAK at PSN %u (frame %llu)",
			pend->psn, (unsigned long long)pend->frame);
	else if (cause == ROCE_RETX_RNR)
		snprintf(an.detail, sizeof(an.detail),
			"resend after RNR NAK at PSN %u (frame %llu), waited %.3f ms, timer %.2f ms",
			pend->psn, (unsigned long long)pend->frame,
			(double)(c->ts >= pend->ts ? c->ts - pend->ts : 0) / 1e6,
			(double)pend->timer_us / 1e3);
	else
		snprintf(an.detail, sizeof(an.detail), "go-back-N to PSN %u without NAK (timeout)", p);
	an_emit(c->a, &an);
}

static void gbn_maybe_recover(struct an_ctx *c, struct an_flow *f, struct an_req *r, uint32_t p)
{
	uint64_t d, start;

	if (!r->gbn_active || roce_psn_cmp(p, r->gbn_newest) <= 0)
		return;
	r->gbn_active = false;
	start = r->err ? r->err->gbn_start_ts : c->ts;
	d = c->ts >= start ? c->ts - start : 0;
	an_lat_add(c->a, f, AN_LAT_RECOVERY, d);
	c->res->events |= ROCE_EV_GBN_RECOVERED;
	c->res->recovery_ns = d;
}

/* The older of the two pending NAKs (an RNR NAK and a sequence-error NAK), or the only one. */
static struct an_pending *older(struct an_pending *nak, struct an_pending *rnr)
{
	if (nak && rnr)
		return rnr->ts <= nak->ts ? rnr : nak;
	return nak ? nak : rnr;
}

/*
 * p (n PSNs) is behind the expected PSN e on a reliable transport; fill:
 * it had not been seen.  True when it is a retransmission; false for a
 * late frame (a fill outside a go-back run that no pending NAK names).
 * *move: the packet sets the run's position (pnext, prev); not for a late
 * frame, nor for a fill that jumps back inside a run without a NAK naming
 * it (a resend reordered within the run: a retransmission, no new go-back).
 */
static bool gbn_classify(struct an_ctx *c, struct an_flow *f, struct an_req *r, uint32_t p,
	uint32_t n, uint32_t e, bool fill, bool *move)
{
	/*
	 * A backward jump to a PSN already seen: any unanswered NAK counts,
	 * whatever its PSN (requesters go back to the start of the oldest
	 * unfinished message; rxe restarts whole WQEs, sometimes before the
	 * NAKed PSN).  A backward jump to a PSN never seen (a fill) is a
	 * go-back only when a pending NAK names that PSN: a NAK explains the
	 * resend of its own PSN; anything else may be a late original.
	 */
	struct an_pending *nak = r->err && r->err->nak.valid ? &r->err->nak : NULL;
	struct an_pending *rnr = r->err && r->err->rnr.valid ? &r->err->rnr : NULL;
	struct an_pending *pend = older(nak, rnr);
	enum roce_retx_cause cause = ROCE_RETX_TIMEOUT;
	bool new_gbn = r->gbn_active ? roce_psn_cmp(p, r->prev) <= 0 : true;

	/*
	 * While a go-back is active, resends move forward from its start; a
	 * NAK that arrives meanwhile is answered by the next backward jump.
	 */
	*move = true;
	if (new_gbn && fill) {
		pend = older(nak && psn_in(nak->psn, p, n) ? nak : NULL,
			rnr && psn_in(rnr->psn, p, n) ? rnr : NULL);
		if (!pend) {
			*move = false;
			if (!r->gbn_active)
				return false;   /* a late frame (reordering), not a resend */
			new_gbn = false;        /* a resend reordered within the run */
		}
	}
	if (!new_gbn)
		pend = NULL;
	if (pend)
		cause = pend == rnr ? ROCE_RETX_RNR : ROCE_RETX_NAK;

	if (new_gbn) {
		struct an_req_err *er = req_err(c->a, r);      /* (NULL: no memory, times from now) */

		if (!r->gbn_active) {
			r->gbn_active = true;
			r->gbn_newest = roce_psn_add(e, 0xffffffu);   /* e - 1 */
			if (er)
				er->gbn_start_ts = pend ? pend->ts : c->ts;
		}
		r->gbn_cause = (uint8_t)cause;
		if (er)
			er->gbn_ref_frame = pend ? pend->frame : 0;
		AN_COUNT(c->a, f, gbn_episodes[cause], 1);
		if (pend) {
			uint64_t d = c->ts >= pend->ts ? c->ts - pend->ts : 0;

			an_lat_add(c->a, f, AN_LAT_NAK_RESPONSE, d);
		}
		retx_anomaly(c, f, p, e, cause, pend);
		/* a go-back answers every NAK that covers its PSN */
		if (nak)
			nak->valid = false;
		if (rnr)
			rnr->valid = false;
	}
	AN_COUNT(c->a, f, retransmissions, 1);
	c->res->events |= ROCE_EV_RETRANSMISSION;
	c->res->retx_cause = (enum roce_retx_cause)r->gbn_cause;
	c->res->ref_frame = r->err ? r->err->gbn_ref_frame : 0;
	ack_cancel_from(c->a, r, p);
	return true;
}

/* A gap at the frame with PSN p: lost PSNs missing, the first e, the last last. */
static void gap_report_span(struct an_ctx *c, struct an_flow *f, uint32_t p, uint32_t e,
	uint32_t last, uint32_t lost)
{
	struct roce_analyzer *a = c->a;

	AN_COUNT(a, f, psn_gaps, 1);
	AN_COUNT(a, f, lost_psns, lost);
	c->res->events |= ROCE_EV_PSN_GAP;
	c->res->expected_psn = e;
	c->res->lost_psns = lost;
	if (a->want_an) {
		struct roce_anomaly an;

		an_init_psn(&an, c, ROCE_AN_PSN_GAP, f, p, e);
		an.count = lost;
		snprintf(an.detail, sizeof(an.detail), "%u PSN%s missing (%u..%u)", lost,
			lost == 1 ? "" : "s", e, last);
		an_emit(a, &an);
	}
}

static void gap_report(struct an_ctx *c, struct an_flow *f, uint32_t p, uint32_t e, uint32_t lost)
{
	gap_report_span(c, f, p, e, roce_psn_add(p, 0xffffffu), lost);
}

static void simple_anomaly(struct an_ctx *c, struct an_flow *f, enum roce_anomaly_type t,
	uint32_t p, uint32_t e, const char *detail)
{
	struct roce_anomaly an;

	if (!c->a->want_an)
		return;
	an_init_psn(&an, c, t, f, p, e);
	snprintf(an.detail, sizeof(an.detail), "%s", detail);
	an_emit(c->a, &an);
}

/* Pin the N of the READ that left slack: it consumed up to PSN end (exclusive). */
static void read_pin(struct an_req *r, uint32_t end)
{
	struct an_readent *e = read_find(r, r->slack_read_psn);

	if (e) {
		uint32_t n = (end - e->psn) & 0xffffffu;

		if (n >= 1 && n <= e->nmax)
			e->n = e->nmax = n;
	}
	r->slack = 0;
}

/*
 * A request [p, p + n) behind the expected PSN that is in no hole: true when
 * it is behind the stream's first PSN and had not been seen (it fills, out
 * of order, like a hole: the frame before the first was damaged, or the
 * capture began inside a go-back), false for a PSN seen before (duplicate).
 */
static bool pre_fill(struct roce_analyzer *a, struct an_req *r, uint32_t p, uint32_t n)
{
	struct an_pre *pre = r->err ? r->err->pre : NULL;
	uint32_t lo = pre ? pre->lo : r->first_psn, end = roce_psn_add(p, n);

	if (roce_psn_cmp(p, lo) < 0) {
		if (!pre && (!req_err(a, r) || !(pre = r->err->pre = calloc(1, sizeof(*pre)))))
			return true;    /* no memory: a repeat counts as a fill again */
		if (roce_psn_cmp(end, lo) < 0)
			hole_add(&pre->unseen, end, (lo - end) & 0xffffffu);
		pre->lo = p;
		return true;
	}
	if (!pre || roce_psn_cmp(p, r->first_psn) >= 0)
		return false;
	return n > 1 ? hole_fill_range(&pre->unseen, p, n) : hole_fill(&pre->unseen, p);
}

static void req_process(struct an_ctx *c, struct an_flow *f)
{
	const struct roce_pkt *pkt = c->pkt;
	const struct roce_opcode_info *op = pkt->op;
	struct an_req *r = f->req;
	uint32_t p = pkt->bth.psn & 0xffffffu, n = 1, nmax = 1, e, rd_len = 0;
	bool is_read = (op->flags & ROCE_F_READ) != 0;
	bool reliable, retx = false;
	int32_t d;

	if (!r) {
		/* (a paired stream's: with its distributions, an_req_pair()) */
		r = f->req = f->peer ? req_lat_get(c->a) : an_pool_get(&c->a->pool.req);
		if (!r)
			return;
	}
	if (r->off)
		return;
	if (f->st.transport == ROCE_TRANSPORT_UD && (pkt->hdrs & ROCE_H_DETH)) {
		if (!r->udqp_set) {
			r->udqp_set = true;
			r->src_qp = pkt->deth.src_qp;
		} else if (pkt->deth.src_qp != r->src_qp) {
			r->off = true;  /* several senders share this QP: no sequence */
			return;
		}
	}
	if (is_read)
		read_span(c, f, &n, &nmax, &rd_len);
	reliable = f->st.transport == ROCE_TRANSPORT_RC || f->st.transport == ROCE_TRANSPORT_XRC ||
		f->st.transport == ROCE_TRANSPORT_RD;

	if (!r->init) {
		r->init = true;
		r->first_psn = p;
		goto advance;
	}
	e = r->next;
	d = roce_psn_cmp(p, e);
	/*
	 * New connection on a reused QPN: a jump of a quarter of the PSN space, or
	 * any request after a fatal NAK that does not continue the sequence (the
	 * QP is in the error state, IBTA 9.7.5.2: only requests already in flight,
	 * in PSN order, can follow; the next connection's first PSN is random).
	 * Start over, old holes stay lost.
	 */
	if (d >= AN_RESYNC || d <= -AN_RESYNC ||
	    (r->fatal && d != 0 && !(d > 0 && (uint32_t)d <= r->slack))) {
		uint64_t unrec = holes_missing(&r->hs);

		an_req_reset(c->a, r);
		r->hs.dropped_unrec = unrec;
		r->init = true;
		r->first_psn = p;
		goto advance;
	}
	/*
	 * Gaps are forward jumps against the previous packet (pnext), as seen
	 * on the wire: inside a go-back-N resend run pnext trails the newest
	 * PSN, and a resent packet that is lost again is a gap too (the
	 * Soft-RoCE README's "req_psn_jump_forward").  Outside a go-back run a
	 * jump back to the newest PSN after a reordered fill is not a loss.
	 * Holes (PSNs never seen) are tracked against the newest PSN (next).
	 */
	bool gap_done = false;

	if (r->gbn_active && r->pnext != e) {
		int32_t dp = roce_psn_cmp(p, r->pnext);

		if (dp > 0) {
			gap_report(c, f, p, r->pnext, (uint32_t)dp);
			gap_done = true;
		}
	}
	if (d == 0) {
		if (r->slack)
			read_pin(r, p);
	} else if (d > 0) {
		if (r->slack && (uint32_t)d <= r->slack) {
			read_pin(r, p);         /* inside the READ's possible range */
		} else {
			uint32_t from = e;

			if (r->slack) {
				from = roce_psn_add(e, r->slack);
				read_pin(r, from);
			}
			uint32_t lost = (p - from) & 0xffffffu;

			hole_add(&r->hs, from, lost);
			if (!gap_done)
				gap_report(c, f, p, from, lost);
			/* the responder may have acknowledged them already (an_acked.c) */
			an_req_gap_acked(c, f, r);
		}
	} else {
		/* behind: a fill, a duplicate and/or a retransmission */
		bool fill = is_read && n > 1 ? hole_fill_range(&r->hs, p, n) : hole_fill(&r->hs, p);

		if (!fill)
			fill = pre_fill(c->a, r, p, n);

		bool move = !fill;

		/* (a gap against the run's previous packet names the PSN it starts at) */
		if (!gap_done)
			c->res->expected_psn = e;
		if (reliable)
			retx = gbn_classify(c, f, r, p, n, e, fill, &move);
		/* a late or reordered fill leaves the run's position (pnext, prev) alone */
		if (move) {
			r->pnext = roce_psn_add(p, n);
			if (roce_psn_cmp(r->pnext, e) > 0)
				r->pnext = e;
		}
		if (fill) {
			/* a PSN behind the newest that had not been seen: it fills a gap */
			AN_COUNT(c->a, f, out_of_order, 1);
			c->res->events |= ROCE_EV_OUT_OF_ORDER;
			if (!retx)
				simple_anomaly(c, f, ROCE_AN_OUT_OF_ORDER, p, e, "PSN fills an earlier gap");
		} else {
			AN_COUNT(c->a, f, duplicates, 1);
			c->res->events |= ROCE_EV_DUPLICATE;
			if (!retx)
				simple_anomaly(c, f, ROCE_AN_DUPLICATE, p, e, "PSN already seen");
		}
		/*
		 * A re-issued READ (IBTA 9.7: a retried READ covers a subset of
		 * the original's PSN range, from the first missing response) is
		 * answered with the original's PSNs: the original's entry keeps
		 * matching them.  Only a READ whose original was not seen (or
		 * was forgotten) gets an entry of its own.
		 */
		if (is_read && !read_match(r, p))
			read_push(c->a, r, p, n, nmax, rd_len, c->ts, c->frame);
		if (move)
			r->prev = p;
		return;
	}
advance:
	/* the PSN a pending NAK names arrived in order: the NAK is answered */
	if (r->err && r->err->nak.valid && psn_in(r->err->nak.psn, p, n))
		r->err->nak.valid = false;
	if (r->err && r->err->rnr.valid && psn_in(r->err->rnr.psn, p, n))
		r->err->rnr.valid = false;
	gbn_maybe_recover(c, f, r, p);
	r->next = roce_psn_add(p, n);
	r->pnext = r->next;
	r->slack = nmax - n;
	r->slack_read_psn = p;
	r->prev = p;
	if (is_read) {
		if (!r->rd_cap)
			read_first(c->a, r);
		read_push(c->a, r, p, n, nmax, rd_len, c->ts, c->frame);
	}
	if (pkt->bth.ackreq || is_read || (op->flags & ROCE_F_ATOMIC)) {
		if (!r->ack_cap)
			ack_first(c->a, r);
		if (!(r->err && r->err->ahead && ack_acked_ahead(c->a, r, p)))
			ack_push(c->a, r, p, is_read || (op->flags & ROCE_F_ATOMIC), c->ts, c->frame);
	}
}

void an_req_advance(struct roce_analyzer *a, struct an_req *r, uint32_t p, bool ack, bool own,
	bool last, uint64_t ts, uint64_t frame)
{
	r->next = roce_psn_add(p, 1);
	r->pnext = r->next;
	r->slack_read_psn = p;
	r->prev = p;
	if (ack)
		ack_push(a, r, p, own, ts, frame);
	if (last)
		r->messages++;
}

void an_inorder_enable(roce_analyzer_t *a, bool on)
{
	a->inorder_off = !on;
}

bool an_req_inorder(struct an_ctx *c, struct an_flow *f)
{
	const struct roce_pkt *pkt = c->pkt;
	const struct roce_opcode_info *op = pkt->op;
	struct an_req *r = f->req;
	uint32_t p = pkt->bth.psn & 0xffffffu, n, nmax, rd_len;
	bool is_read = (op->flags & ROCE_F_READ) != 0;
	bool ack = pkt->bth.ackreq || is_read || (op->flags & ROCE_F_ATOMIC);

	/*
	 * What req_process() and an_req_process() come to for it: d == 0,
	 * n == nmax (1 but for a READ), "advance" with no NAK to answer and no
	 * go-back to end, an AckReq entry (and a READ's entry) pushed without
	 * growing its ring (no change of the arrays' bytes), no hole, no event;
	 * a LAST ends a message.
	 */
	if (c->a->inorder_off || !an_req_inorder_ok(f, p, ack, op->flags & ~(uint32_t)ROCE_F_READ))
		return false;
	if (!is_read) {
		an_req_advance(c->a, r, p, ack, (op->flags & ROCE_F_ATOMIC) != 0,
			(op->flags & ROCE_F_LAST) != 0, c->ts, c->frame);
		return true;
	}
	/*
	 * a READ: N as req_process() finds it, known (no slack); the READ ring's next slot free.
	 * A stream's first READ gets its first ring here, as req_process() would give it (in
	 * line in a paired stream's record: no allocation), so that it need not take the slow
	 * path for that alone (the first READ of a stream whose first request was not one).
	 */
	if (!r->rd_cap) {
		read_first(c->a, r);
		if (!r->rd_cap)
			return false;
	} else if (r->rd[r->rd_next].live && !r->rd[r->rd_next].last_done) {
		return false;
	}
	read_span(c, f, &n, &nmax, &rd_len);
	if (n != nmax)
		return false;
	r->next = roce_psn_add(p, n);
	r->pnext = r->next;
	r->slack_read_psn = p;
	r->prev = p;
	read_push(c->a, r, p, n, nmax, rd_len, c->ts, c->frame);
	ack_push(c->a, r, p, true, c->ts, c->frame);
	if (op->flags & ROCE_F_LAST)
		r->messages++;
	return true;
}

void an_req_process(struct an_ctx *c, struct an_flow *f)
{
	req_process(c, f);
	/* a message ends with LAST/ONLY; a LAST seen again is not a new message */
	if (f->req && (c->pkt->op->flags & ROCE_F_LAST) && !(c->res->events & ROCE_EV_DUPLICATE))
		f->req->messages++;
}

/* -------------------------------------------------------------- responses */

/* f's response-side state, allocated on first use; NULL when out of memory. */
static struct an_rsp *rsp_get(struct roce_analyzer *a, struct an_flow *f)
{
	if (!f->rsp)
		f->rsp = an_pool_get(&a->pool.rsp);
	return f->rsp;
}

/* A NAK syndrome of a fatal code: invalid request, remote access / operational error,
 * invalid RD request (IBTA 9.7.5.2, error classes B and C). */
static bool nak_fatal(uint8_t syn)
{
	unsigned code = syn & 0x1f;

	return code >= ROCE_NAK_INVALID_REQ && code <= ROCE_NAK_INVALID_RD_REQ;
}

/* aeth_process() of an RNR NAK or a NAK (out of line: their anomaly record and text) */
static __attribute__((noinline)) void aeth_nak(struct an_ctx *c, struct an_flow *f,
	struct an_req *r)
{
	struct roce_analyzer *a = c->a;
	const struct roce_pkt *pkt = c->pkt;
	uint8_t s = pkt->aeth.syndrome;
	uint32_t P = pkt->bth.psn & 0xffffffu;
	struct roce_anomaly an;

	an_copy_nak(c, f, s);
	switch (roce_aeth_type(s)) {
	case ROCE_AETH_RNR_NAK: {
		uint32_t us = roce_rnr_timer_us(s & 0x1f);

		AN_COUNT(a, f, naks, 1);
		AN_COUNT(a, f, rnr_naks, 1);
		c->res->events |= ROCE_EV_RNR_NAK;
		if (r) {
			ack_complete(c->a, r, P, false, P, NULL, c->ts, NULL);
			/* a newer RNR NAK with another PSN replaces the pending one */
			struct an_req_err *er = req_err(a, r);

			if (er && (!er->rnr.valid || er->rnr.psn != P)) {
				er->rnr.valid = true;
				er->rnr.psn = P;
				er->rnr.ts = c->ts;
				er->rnr.frame = c->frame;
				er->rnr.timer_us = us;
			}
		}
		if (a->want_an) {
			an_init(&an, ROCE_AN_RNR_NAK, c->frame, c->ts, f);
			an.has_psn = true;
			an.psn = P;
			snprintf(an.detail, sizeof(an.detail), "RNR NAK, timer %.2f ms, MSN %u",
				(double)us / 1e3, pkt->aeth.msn);
			an_emit(a, &an);
		}
		break;
	}
	case ROCE_AETH_NAK: {
		unsigned code = s & 0x1f;

		AN_COUNT(a, f, naks, 1);
		if (code < 5) {
			AN_COUNT(a, f, nak_codes[code], 1);
		}
		c->res->events |= ROCE_EV_NAK;
		if (r) {
			ack_complete(c->a, r, P, false, P, NULL, c->ts, NULL);
			/*
			 * A NAK names the PSN the responder expects: one with
			 * another PSN replaces the pending one (the responder
			 * has moved on); a repeated one keeps the first's time.
			 */
			struct an_req_err *er = code == ROCE_NAK_PSN_SEQ_ERR ? req_err(a, r) : NULL;

			/* the other codes are fatal (IBTA 9.7.5.2, class B and C: the
			 * requester's QP goes to the error state; the reserved ones
			 * are not known to be) */
			if (nak_fatal(s))
				r->fatal = true;

			if (er && (!er->nak.valid || er->nak.psn != P)) {
				er->nak.valid = true;
				er->nak.psn = P;
				er->nak.ts = c->ts;
				er->nak.frame = c->frame;
			}
		}
		if (a->want_an) {
			const char *txt = roce_aeth_syndrome_text(s);

			an_init(&an, ROCE_AN_NAK, c->frame, c->ts, f);
			an.has_psn = true;
			an.psn = P;
			snprintf(an.detail, sizeof(an.detail), "%s, MSN %u", txt ? txt : "NAK",
				pkt->aeth.msn);
			an_emit(a, &an);
		}
		break;
	}
	default:
		break;
	}
}

static inline __attribute__((always_inline)) void aeth_process(struct an_ctx *c,
	struct an_flow *f, struct an_req *r)
{
	struct roce_analyzer *a = c->a;
	uint8_t s = c->pkt->aeth.syndrome;

	c->res->aeth_syndrome = s;
	if (roce_aeth_type(s) != ROCE_AETH_ACK) {
		aeth_nak(c, f, r);
		return;
	}
	a->sum.counters.acks++;
	if (rsp_get(a, f) && ++f->rsp->acks == 0) {
		struct roce_counters *k = an_flow_ctr(a, f);

		if (k)
			k->acks += 1ull << 32;
	}
}

/*
 * READ e's N is now known: when e is the request stream's newest request,
 * its expected PSN follows (the slack is gone).
 */
static void read_pinned(struct an_req *r, const struct an_readent *e)
{
	if (r->slack && r->slack_read_psn == e->psn) {
		r->next = roce_psn_add(e->psn, e->n);
		r->pnext = r->next;
		r->slack = 0;
	}
}

/* Once the PMTU is known, a READ's N follows from its length. */
static void read_settle(struct an_req *r, struct an_readent *e, uint32_t pmtu)
{
	if (e->n != e->nmax && pmtu) {
		uint32_t n = div_up(e->len, pmtu);

		if (n >= e->n && n <= e->nmax) {
			e->n = e->nmax = n;
			read_pinned(r, e);
		}
	}
}

/*
 * PSNs of the known READ ranges in the window [base, base + span): READ
 * responses the responder passed without them being seen.  They become
 * holes (in PSN order); returns how many, the first and last in *first and
 * *last.  A READ whose N is not known yet counts with its smallest N.
 */
static uint32_t read_skipped(struct an_req *r, struct an_holeset *hs, uint32_t base, uint32_t span,
	uint32_t pmtu, uint32_t *first, uint32_t *last)
{
	struct { uint32_t off, len; } seg[AN_READ_RING], tmp;
	unsigned ns = 0;
	uint32_t lost = 0, done = 0;

	for (unsigned i = 0; i < r->rd_cap; i++) {
		struct an_readent *e = &r->rd[i];
		uint32_t off, len;

		if (!e->live)
			continue;
		read_settle(r, e, pmtu);
		off = (e->psn - base) & 0xffffffu;
		if (off < span) {
			len = e->n < span - off ? e->n : span - off;
		} else {
			uint32_t back = (base - e->psn) & 0xffffffu;    /* starts before base */

			if (back >= e->n)
				continue;
			off = 0;
			len = e->n - back < span ? e->n - back : span;
		}
		/* insertion sort by offset: at most AN_READ_RING entries */
		seg[ns].off = off;
		seg[ns].len = len;
		for (unsigned k = ns++; k > 0 && seg[k - 1].off > seg[k].off; k--) {
			tmp = seg[k - 1];
			seg[k - 1] = seg[k];
			seg[k] = tmp;
		}
	}
	for (unsigned k = 0; k < ns; k++) {
		uint32_t from = seg[k].off > done ? seg[k].off : done, to = seg[k].off + seg[k].len;

		if (to <= from)
			continue;
		if (!lost)
			*first = roce_psn_add(base, from);
		*last = roce_psn_add(base, to - 1);
		hole_add(hs, roce_psn_add(base, from), to - from);
		lost += to - from;
		done = to;
	}
	return lost;
}

/* Keep [base, base + span) of s's unseen PSNs (allocated with the first). */
static void unseen_keep(struct an_rsp *s, uint32_t base, uint32_t span)
{
	if (!span)
		return;
	if (!s->unseen && !(s->unseen = calloc(1, sizeof(*s->unseen))))
		return;         /* no memory: such a PSN counts as a duplicate later */
	hole_add(s->unseen, base, span);
}

/*
 * The window [base, base + span) passed by a response frame: the PSNs whose
 * READ may be unknown are unseen (a late READ response with one of them is
 * out of order): those the request stream r did not see as requests (its
 * holes, and from its expected PSN on), all of them without r.  A PSN r saw
 * is a SEND / WRITE / ATOMIC or a known READ (whose skipped PSNs are holes).
 */
static void unseen_add(struct an_rsp *s, const struct an_req *r, uint32_t base, uint32_t span)
{
	uint32_t ahead;

	if (!r) {
		unseen_keep(s, base, span);
		return;
	}
	for (unsigned i = 0; i < r->hs.nholes; i++) {
		const struct an_hole *h = &r->hs.holes[i];
		uint32_t off = (h->start - base) & 0xffffffu, back = (base - h->start) & 0xffffffu;

		if (off < span)
			unseen_keep(s, h->start, h->len < span - off ? h->len : span - off);
		else if (back < h->len)
			unseen_keep(s, base, h->len - back < span ? h->len - back : span);
	}
	/* from the request stream's expected PSN on (ahead of everything it saw) */
	ahead = (r->next - base) & 0xffffffu;
	if (roce_psn_cmp(r->next, base) <= 0)
		unseen_keep(s, base, span);
	else if (ahead < span)
		unseen_keep(s, r->next, span - ahead);
}

/*
 * The READs of r wholly behind the PSN from (at most 2^22 behind: not an
 * older connection's) none of whose responses a stream carried: the
 * responder answers in PSN order (IBTA 9.5), so a response stream whose first
 * frame has PSN P >= from passed their responses, lost before the capture
 * point like those a later frame passes.  Their PSNs become holes; returns
 * how many, the first in *first (unchanged when none) and the last in *last.
 */
static uint32_t rsp_first_passed(struct an_req *r, struct an_holeset *hs, uint32_t P,
	uint32_t from, uint32_t pmtu, uint32_t *first, uint32_t *last)
{
	uint32_t back = 0, b;

	for (unsigned i = 0; i < r->rd_cap; i++) {
		const struct an_readent *x = &r->rd[i];

		b = (from - x->psn) & 0xffffffu;
		if (x->live && !x->resp_seen && b > back && b < AN_RESYNC &&
		    x->n <= b && roce_psn_cmp(x->psn, P) < 0)
			back = b;
	}
	if (!back)
		return 0;
	return read_skipped(r, hs, roce_psn_add(from, 0x1000000u - back), back, pmtu, first, last);
}

/*
 * The response sequence's first frame, or the first of a new connection on a
 * reused QPN: newest is its PSN (upto); the first response of a READ seen
 * asking is measured from the READ's first PSN (the responses before it were
 * lost), and the READs wholly behind it that no response answered yet were
 * passed (rsp_first_passed()): one gap for both.
 */
static void rsp_start(struct an_ctx *c, struct an_flow *f, struct an_req *r, uint32_t P,
	uint32_t upto, bool is_resp)
{
	struct an_rsp *s = f->rsp;
	struct an_readent *e = is_resp && r ? read_match(r, P) : NULL;
	uint32_t from = e ? e->psn : P, first = from, last = 0, lost = 0;

	s->init = true;
	s->newest = upto;
	if (r)
		lost = rsp_first_passed(r, &s->hs, P, from, flow_pmtu(c->a, f), &first, &last);
	/* (not when a response of e was seen before: by a stream evicted or expired since,
	 * which counted the PSNs it passed) */
	if (e && P != e->psn && !e->resp_seen) {
		hole_add(&s->hs, e->psn, (P - e->psn) & 0xffffffu);
		lost += (P - e->psn) & 0xffffffu;
		last = roce_psn_add(P, 0xffffffu);
	}
	if (lost)
		gap_report_span(c, f, P, first, last, lost);
}

/*
 * A fatal NAK ended the connection: the responder's QP is in the error state too
 * (it sends nothing more of it), so the stream's next frame starts the response
 * sequence over, as at the stream's first frame; PSNs still missing stay lost.
 */
static void rsp_over(struct an_rsp *s)
{
	if (!s || !s->init)
		return;
	s->hs.dropped_unrec = holes_missing(&s->hs);
	s->hs.nholes = 0;
	if (s->unseen)
		s->unseen->nholes = 0;
	s->init = 0;
}

/*
 * Response-side sequencing (IBTA 9.7: a responder answers in PSN order; a
 * READ retry re-reads a subset of an earlier READ and is answered with the
 * original PSNs).  newest is the highest PSN the responder has shown it
 * sent: a READ response's or ACK's PSN, a NAK's PSN - 1 (a NAK names the
 * PSN it expects).  A frame ahead of newest passes the PSNs between them:
 * those inside known READ ranges are responses that were skipped, a gap
 * (lost, holes).  A READ response at or behind newest fills a hole (out of
 * order) or repeats a PSN (duplicate): retried and replayed responses never
 * make a gap.  ACK and NAK PSNs repeat normally and are never duplicates;
 * an older ACK PSN is no longer missing.
 * The stream's first frame starts the sequence; when it is a response of a
 * READ seen asking, the READ's first PSN does (the PSNs before it were
 * lost).  r may be NULL (not paired yet): newest still moves, no READ range
 * is known.
 */
static __attribute__((noinline)) void rsp_sequence(struct an_ctx *c, struct an_flow *f,
	struct an_req *r, uint32_t P, bool is_resp, bool is_nak)
{
	struct an_rsp *s = f->rsp;
	uint32_t upto = is_nak ? roce_psn_add(P, 0xffffffu) : P;
	int32_t d;

	if (!s && !(s = rsp_get(c->a, f)))
		return;
	if (!s->init) {
		rsp_start(c, f, r, P, upto, is_resp);
		return;
	}
	d = roce_psn_cmp(P, s->newest);
	if (d >= AN_RESYNC || d <= -AN_RESYNC) {
		/*
		 * New connection on a reused QPN: old holes stay lost, and the
		 * sequence starts over as at the stream's first frame (a READ
		 * response measured from its READ's first PSN).
		 */
		uint64_t unrec = holes_missing(&s->hs);

		/* the arrays stay (emptied) */
		s->hs.nholes = 0;
		s->hs.dropped_unrec = unrec;
		if (s->unseen)
			s->unseen->nholes = 0;
		rsp_start(c, f, r, P, upto, is_resp);
		return;
	}
	if (d > 1) {
		uint32_t first = 0, last = 0, lost;

		unseen_add(s, r, roce_psn_add(s->newest, 1), (uint32_t)d - 1);
		if (r) {
			lost = read_skipped(r, &s->hs, roce_psn_add(s->newest, 1), (uint32_t)d - 1,
				flow_pmtu(c->a, f), &first, &last);
			if (lost)
				gap_report_span(c, f, P, first, last, lost);
		}
	}
	if (roce_psn_cmp(upto, s->newest) > 0) {
		s->newest = upto;
		return;
	}
	if (d > 0 || is_nak)
		return;
	if (!is_resp) {
		/* an ACK names its PSN as sent: not missing any more (no event) */
		hole_fill(&s->hs, P);
		if (s->unseen)
			hole_fill(s->unseen, P);
		return;
	}
	/* a READ response at or behind the newest PSN: out of order when no frame
	 * of the stream carried its PSN yet (a lost one, or one passed before its
	 * READ was known), else a duplicate */
	c->res->expected_psn = roce_psn_add(s->newest, 1);
	bool lost_fill = hole_fill(&s->hs, P);

	if ((s->unseen && hole_fill(s->unseen, P)) || lost_fill) {
		AN_COUNT(c->a, f, out_of_order, 1);
		c->res->events |= ROCE_EV_OUT_OF_ORDER;
		simple_anomaly(c, f, ROCE_AN_OUT_OF_ORDER, P, c->res->expected_psn,
			"READ response PSN fills an earlier gap");
	} else {
		AN_COUNT(c->a, f, duplicates, 1);
		c->res->events |= ROCE_EV_DUPLICATE;
		simple_anomaly(c, f, ROCE_AN_DUPLICATE, P, c->res->expected_psn,
			"READ response PSN already seen");
	}
}

/*
 * rsp_sequence() in line for the common response: the PSN after the newest
 * (d == 1, not a NAK), which only moves the newest PSN on.
 */
static inline __attribute__((always_inline)) void rsp_next(struct an_ctx *c, struct an_flow *f,
	struct an_req *r, uint32_t P, bool is_resp, bool is_nak)
{
	struct an_rsp *s = f->rsp;

	if (s && s->init && !is_nak && roce_psn_cmp(P, s->newest) == 1) {
		s->newest = P;
		return;
	}
	rsp_sequence(c, f, r, P, is_resp, is_nak);
}

/* READ latencies and N from the responses of the READ that holds P. */
static inline __attribute__((always_inline)) void read_resp_process(struct an_ctx *c,
	struct an_flow *f, struct an_req *r, struct an_readent *e)
{
	const struct roce_pkt *pkt = c->pkt;
	uint32_t flags = pkt->op->flags, P = pkt->bth.psn & 0xffffffu;

	if (!e)
		return;
	e->resp_seen = true;
	read_settle(r, e, flow_pmtu(c->a, f));
	if (P == e->psn && !e->first_done) {
		uint64_t dt = c->ts >= e->ts ? c->ts - e->ts : 0;

		e->first_done = true;
		an_lat_req_add(c->a, r, AN_LAT_READ_FIRST, dt);
		c->res->events |= ROCE_EV_READ_FIRST_RESP;
		c->res->read_ns = dt;
		c->res->ref_frame = e->frame;
	}
	if ((flags & ROCE_F_LAST) && !e->last_done) {
		uint64_t dt = c->ts >= e->ts ? c->ts - e->ts : 0;
		uint32_t n = ((P - e->psn) & 0xffffffu) + 1;

		e->last_done = true;
		an_lat_req_add(c->a, r, AN_LAT_READ_LAST, dt);
		c->res->events |= ROCE_EV_READ_LAST_RESP;
		c->res->read_ns = dt;
		c->res->ref_frame = e->frame;
		/* the last response pins N; fix the request stream's expectation */
		if (n >= e->n && n <= e->nmax) {
			e->n = e->nmax = n;
			read_pinned(r, e);
		}
	}
}

/*
 * What a response of f at PSN P completes on its peer's request state r:
 * with an ACK-type AETH or none (ack), the requests up to P (the ACK's round
 * trip; a READ or atomic only by its own response: a READ response's READ, an
 * ATOMIC ACK's atomic); a READ response, its READ.  (an_resp_inorder() and
 * an_resp_process().)
 */
static inline __attribute__((always_inline)) void resp_complete(struct an_ctx *c,
	struct an_flow *f, struct an_req *r, uint32_t P, bool ack)
{
	struct an_readent *e = (c->pkt->op->flags & ROCE_F_RESP) ? read_match(r, P) : NULL;

	if (ack) {
		struct an_ackent last = {0};

		if (ack_complete_rsp(c->a, r, P, e ? e->psn : P, f->peer, c->ts, &last)) {
			c->res->events |= ROCE_EV_ACK_RTT;
			c->res->rtt_ns = c->ts >= last.ts ? c->ts - last.ts : 0;
			c->res->ref_frame = last.frame;
		}
	}
	read_resp_process(c, f, r, e);
}

/*
 * The common response in line, what an_resp_process() comes to for it (false,
 * nothing done: the general path): a paired stream whose request stream is
 * followed, reliable transport, an ACK-type AETH or none, and the PSN after the
 * newest of an initialised sequence, or an ACK's later PSN that passes nothing
 * (an_resp_inorder_ok()); no ring grows and no hole array changes size (an
 * ACK may take request holes out, an_acked.c: the array stays), so the caller's
 * memory and hole bookkeeping can be skipped.
 */
bool an_resp_inorder(struct an_ctx *c, struct an_flow *f)
{
	const struct roce_pkt *pkt = c->pkt;
	uint32_t P = pkt->bth.psn & 0xffffffu;
	bool aeth = (pkt->hdrs & ROCE_H_AETH) != 0;
	struct an_req *r;

	if (c->a->inorder_off || !an_resp_inorder_ok(f, P, aeth, aeth ? pkt->aeth.syndrome : 0,
						     (pkt->op->flags & ROCE_F_RESP) != 0))
		return false;
	r = f->peer->req;
	if (pkt->hdrs & ROCE_H_AETH)
		aeth_process(c, f, r);
	f->rsp->newest = P;
	if (r->hs.nholes)
		an_req_acked(c, f->peer, r, roce_psn_add(P, 1));
	resp_complete(c, f, r, P, true);
	return true;
}

void an_resp_process(struct an_ctx *c, struct an_flow *f)
{
	const struct roce_pkt *pkt = c->pkt;
	uint32_t flags = pkt->op->flags, P = pkt->bth.psn & 0xffffffu;
	struct an_req *r;

	if (!f->peer) {
		if (f->st.unpaired_frames < AN_PAIR_FIRST ||
		    f->st.unpaired_frames % AN_PAIR_EVERY == 0) {
			an_pair_try(c->a, f, P);
			/* paired now: the request state of both gets room for their latencies
			 * (f->req, f->peer->req move) */
			if (f->peer) {
				an_req_pair(c->a, f);
				an_req_pair(c->a, f->peer);
			}
		}
		f->st.unpaired_frames++;
	}
	r = f->peer ? f->peer->req : NULL;
	if (r && (!r->init || r->off))
		r = NULL;
	if (pkt->hdrs & ROCE_H_AETH)
		aeth_process(c, f, r);
	if (f->st.transport == ROCE_TRANSPORT_RC || f->st.transport == ROCE_TRANSPORT_XRC ||
	    f->st.transport == ROCE_TRANSPORT_RD) {
		enum roce_aeth_type at = (pkt->hdrs & ROCE_H_AETH) ?
			roce_aeth_type(pkt->aeth.syndrome) : ROCE_AETH_ACK;

		rsp_next(c, f, r, P, (flags & ROCE_F_RESP) != 0,
			at == ROCE_AETH_NAK || at == ROCE_AETH_RNR_NAK);
		if (at == ROCE_AETH_NAK && nak_fatal(pkt->aeth.syndrome))
			rsp_over(f->rsp);
	}
	if (!r)
		return;
	/* the request PSNs the responder acknowledged: an ACK / response covers its PSN, a NAK
	 * the PSNs before it (an_acked.c) */
	if (r->hs.nholes && ((pkt->hdrs & ROCE_H_AETH) || (flags & ROCE_F_RESP)))
		an_req_acked(c, f->peer, r, (pkt->hdrs & ROCE_H_AETH) &&
			roce_aeth_type(pkt->aeth.syndrome) != ROCE_AETH_ACK ? P : roce_psn_add(P, 1));
	/* the responder answers otherwise than with a fatal NAK: the connection lives on */
	if (!(pkt->hdrs & ROCE_H_AETH) || roce_aeth_type(pkt->aeth.syndrome) != ROCE_AETH_NAK ||
	    !nak_fatal(pkt->aeth.syndrome))
		r->fatal = false;
	resp_complete(c, f, r, P, !(pkt->hdrs & ROCE_H_AETH) ||
		      roce_aeth_type(pkt->aeth.syndrome) == ROCE_AETH_ACK);
}
