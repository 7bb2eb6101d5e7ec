// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * an_request.c - the request state machine: PSN sequencing of request
 * streams, go-back-N and its cause, gaps, the in-order request path, and the
 * request state's lifetime (reset, free, a paired stream's record).  With
 * an_response.c (ACK / NAK / RNR, READ responses, response-side sequencing,
 * pairing), to which it lends its NAK block, gap and anomaly helpers
 * (an_internal.h), the only writer of struct an_req, but for an_acked.c, which
 * takes the request PSNs a response acknowledges out of the holes
 * (acked_unseen_psns: a later frame with one of them is a duplicate).  The
 * holes themselves are an_holes.c's, the AckReq and READ rings an_ring.h's.
 * Called by analyzer.c (an_req_inorder(), an_req_process(), an_req_free()),
 * an_predict.c (an_req_advance()) and an_response.c (an_req_pair()).
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
 *   A go-back starts at a packet behind the newest PSN that was seen before
 *   (cause: the pending NAK / RNR NAK, else TIMEOUT), or at a hole fill whose
 *   PSN a pending NAK / RNR NAK names (a NAK explains the resend of its own PSN
 *   only).  While an episode is active, resends move forward; a packet behind
 *   the end of the previous packet's PSN range (pnext) is a new go-back by the
 *   same two rules: a jump back to or before its PSN, or a READ re-read from
 *   the middle of the READ before it (a response lost: the retry asks from the
 *   first missing response's PSN, IBTA 9.7).  For a repeated PSN the NAK's PSN
 *   is not required to be <= p: rxe restarts whole messages, sometimes before
 *   the NAKed PSN (rc_send_rnr.pcap).  A NAK that arrives while resends move
 *   forward is answered by the next backward jump, not by them.  A hole fill
 *   that starts no go-back is, outside a run, a late frame (reordered, or a
 *   resend whose NAK was not captured): out of order, no retransmission; inside
 *   a run, a resend reordered within the run: a retransmission of the
 *   episode.  Either way the run's position (pnext, prev) stays, so the resend
 *   after it is no gap.  If both a sequence-error NAK and an RNR NAK are
 *   pending, the older one names the cause (an RNR NAK is normally followed by
 *   sequence-error NAKs for the packets that were in flight behind it; the
 *   requester's reaction is the RNR wait).  Each go-back counts once in
 *   gbn_episodes[cause] and raises one ROCE_AN_RETRANSMISSION (at its first
 *   packet); every retransmitted packet counts in
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
 */
#include <stdio.h>

#include "an_internal.h"
#include "an_ring.h"

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

	an_req_err_free(a, r);
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
	an_req_err_free(a, r);
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

/* --------------------------------------------------------------- requests */

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
	uint32_t pmtu = an_flow_pmtu(c->a, f);

	*rd_len = (uint32_t)len;
	if (pmtu) {
		*n = *nmax = an_div_up(len, pmtu);
	} else {
		*n = an_div_up(len, 4096);
		*nmax = an_div_up(len, 256);
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
	/*
	 * While a go-back is active, resends move forward from its start: a
	 * packet at or past the end of the previous packet's PSN range (pnext)
	 * goes on with the run; one behind it resends PSNs the run sent already
	 * and is a new go-back.  A READ request covers a range: a re-read from
	 * its middle (a response lost: IBTA 9.7, the retry asks from the first
	 * missing response's PSN) is behind pnext although past its first PSN
	 * (prev).  A NAK that arrives meanwhile is answered by the next
	 * backward jump.
	 */
	bool new_gbn = r->gbn_active ? roce_psn_cmp(p, r->pnext) < 0 : true;

	*move = true;
	if (new_gbn && fill) {
		pend = older(nak && an_psn_in(nak->psn, p, n) ? nak : NULL,
			rnr && an_psn_in(rnr->psn, p, n) ? rnr : NULL);
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
		/* (NULL: no memory, times from now) */
		struct an_req_err *er = an_req_err(c->a, r);

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
void an_gap_report_span(struct an_ctx *c, struct an_flow *f, uint32_t p, uint32_t e,
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
	an_gap_report_span(c, f, p, e, roce_psn_add(p, 0xffffffu), lost);
}

void an_simple_anomaly(struct an_ctx *c, struct an_flow *f, enum roce_anomaly_type t,
	uint32_t p, uint32_t e, const char *detail)
{
	struct roce_anomaly an;

	if (!c->a->want_an)
		return;
	an_init_psn(&an, c, t, f, p, e);
	snprintf(an.detail, sizeof(an.detail), "%s", detail);
	an_emit(c->a, &an);
}

/*
 * READ e's N is pinned on f's request stream (it was nmax0 at the most): the PSNs
 * its response stream g kept pending on it follow (an_rsp_read_pinned()), with g's
 * hole and memory bookkeeping (analyzer.c does f's).  Rare: damaged traffic.
 */
static __attribute__((noinline)) void read_pin_peer(struct an_ctx *c, struct an_flow *g,
	const struct an_readent *e, uint32_t nmax0)
{
	struct roce_analyzer *a = c->a;
	bool holed = an_flow_holed(g);
	uint64_t vb = an_rsp_var_bytes(g->rsp);

	an_rsp_read_pinned(c, g, e, nmax0);
	if (!holed && an_flow_holed(g))
		a->holed++;
	if (a->cfg.max_memory)
		a->var_bytes += an_rsp_var_bytes(g->rsp) - vb;
}

/* Pin the N of the READ of f (state r) that left slack: it consumed up to PSN end
 * (exclusive). */
static void read_pin(struct an_ctx *c, struct an_flow *f, struct an_req *r, uint32_t end)
{
	struct an_readent *e = read_find(r, r->slack_read_psn);

	if (e) {
		uint32_t n = (end - e->psn) & 0xffffffu, nmax0 = e->nmax;

		if (n >= 1 && n <= e->nmax) {
			e->n = e->nmax = n;
			if (f->peer && f->peer->rsp && f->peer->rsp->x &&
			    f->peer->rsp->x->pend.nholes)
				read_pin_peer(c, f->peer, e, nmax0);
		}
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
		if (!pre && (!an_req_err(a, r) || !(pre = r->err->pre = calloc(1, sizeof(*pre)))))
			return true;    /* no memory: a repeat counts as a fill again */
		if (roce_psn_cmp(end, lo) < 0)
			an_hole_add(&pre->unseen, end, (lo - end) & 0xffffffu);
		pre->lo = p;
		return true;
	}
	if (!pre || roce_psn_cmp(p, r->first_psn) >= 0)
		return false;
	return n > 1 ? an_hole_fill_range(&pre->unseen, p, n) : an_hole_fill(&pre->unseen, p);
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
		uint64_t unrec = an_holes_missing(&r->hs);

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
			read_pin(c, f, r, p);
	} else if (d > 0) {
		if (r->slack && (uint32_t)d <= r->slack) {
			read_pin(c, f, r, p);   /* inside the READ's possible range */
		} else {
			uint32_t from = e;

			if (r->slack) {
				from = roce_psn_add(e, r->slack);
				read_pin(c, f, r, from);
			}
			uint32_t lost = (p - from) & 0xffffffu;

			an_hole_add(&r->hs, from, lost);
			if (!gap_done)
				gap_report(c, f, p, from, lost);
			/* the responder may have acknowledged them already (an_acked.c) */
			an_req_gap_acked(c, f, r);
		}
	} else {
		/*
		 * behind: a fill, a duplicate and/or a retransmission.  A re-issued READ
		 * (IBTA 9.7: from the first missing response to its original's end) ends
		 * where the original ends, also while the PMTU is unknown and its own
		 * length gives only the lower bound: the original's N may have been
		 * pinned since (its LAST response), and the request after it comes there.
		 */
		struct an_readent *orig = is_read ? read_match(r, p) : NULL;

		if (orig) {
			uint32_t left = (orig->psn + orig->n - p) & 0xffffffu;

			if (left > n && left <= nmax)
				n = left;
		}
		/*
		 * the frame's own PSN decides between a fill and a repeat (docs/json.md
		 * duplicates): a re-read whose first PSN the responder acknowledged (ACKed
		 * unseen: the READ it re-reads was not captured) is a resend also when the
		 * rest of its range is still missing; that rest leaves the holes all the same
		 */
		bool fill = an_hole_fill(&r->hs, p);

		if (is_read && n > 1)
			an_hole_fill_range(&r->hs, roce_psn_add(p, 1), n - 1);

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
			if (!retx) {
				an_simple_anomaly(c, f, ROCE_AN_OUT_OF_ORDER, p, e,
					"PSN fills an earlier gap");
				/* (reordered on the way: it stops no capture copy) */
				an_copy_late(c, f, r, p, reliable);
			}
		} else {
			AN_COUNT(c->a, f, duplicates, 1);
			c->res->events |= ROCE_EV_DUPLICATE;
			if (!retx)
				an_simple_anomaly(c, f, ROCE_AN_DUPLICATE, p, e,
					"PSN already seen");
		}
		/*
		 * A re-issued READ (IBTA 9.7: a retried READ covers a subset of
		 * the original's PSN range, from the first missing response) is
		 * answered with the original's PSNs: the original's entry keeps
		 * matching them.  Only a READ whose original was not seen (or
		 * was forgotten) gets an entry of its own.
		 */
		if (is_read && !orig)
			read_push(c->a, r, p, n, nmax, rd_len, c->ts, c->frame);
		if (move)
			r->prev = p;
		return;
	}
advance:
	/* the PSN a pending NAK names arrived in order: the NAK is answered */
	if (r->err && r->err->nak.valid && an_psn_in(r->err->nak.psn, p, n))
		r->err->nak.valid = false;
	if (r->err && r->err->rnr.valid && an_psn_in(r->err->rnr.psn, p, n))
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
