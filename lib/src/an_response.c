// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * an_response.c - the response side of the request state machine: the AETH
 * of ACKs, NAKs and RNR NAKs (counted, and the pending NAK the requester's
 * go-back answers, an_request.c), READ responses (latencies, a READ's N),
 * the ACK round trips they complete on the paired request stream (an_ring.h),
 * response-side PSN sequencing (skipped READ responses, unseen PSNs) and the
 * pairing of a response stream with its request stream (an_pair.c finds the
 * candidate).  With an_request.c the only writer of struct an_rsp and (but for
 * an_acked.c) struct an_req.  Called by analyzer.c (an_resp_inorder(),
 * an_resp_process(), an_rsp_free()) and an_predict.c (an_resp_inorder()).
 *
 * Response streams (RC, XRC, RD; rsp_sequence): newest = the highest PSN the
 *   responder has shown it sent (a READ response's or ACK's PSN, a NAK's PSN
 *   - 1: a NAK names the PSN it expects); the first frame starts it (a first
 *   READ response inside a known READ: that READ's first PSN; and the known
 *   READs wholly behind the first frame, none of their responses seen, were
 *   passed: responses come in PSN order).  A frame
 *   with PSN P ahead of newest passes the PSNs in (newest, P): those inside
 *   the paired request stream's known READ ranges (with the smallest N while
 *   N is unknown; a READ response of the READ raises it to its PSN) are READ
 *   responses that were skipped: one gap, lost_psns += their number, holes
 *   (unrecovered unless seen later).  Those up to such a READ's largest N are
 *   pending (struct an_rsp_x): once N is known (its LAST response, the PMTU,
 *   the request after it) those inside it are holes and count in lost_psns
 *   (no second gap event); a READ response carrying one first is out of
 *   order and counts in lost_psns (docs/json.md "READ recovery").  Passed PSNs whose
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
 *   then every 64th, and at its next frame after a look that found no
 *   candidate at all once a host pair gets one: the capture began before the
 *   request stream's first frame) for the unpaired request stream A->B whose
 *   PSN window [first PSN, expected PSN + slack] holds the response PSN
 *   (closest newest PSN wins); failing that, the only unpaired request
 *   stream A->B.  Peers
 *   link both ways and are unlinked on eviction.  The candidates come from
 *   an index (an_pair.c), not a scan of every stream.
 */
#include <stdio.h>

#include "an_internal.h"
#include "an_ring.h"

#define AN_PAIR_EVERY      64
#define AN_PAIR_FIRST      4
_Static_assert(65536 % AN_PAIR_EVERY == 0, "unpaired_frames (16 bits) wraps to a multiple");

void an_rsp_free(struct roce_analyzer *a, struct an_rsp *s)
{
	if (!s)
		return;
	free(s->hs.holes);
	if (s->x) {
		free(s->x->unseen.holes);
		free(s->x->pend.holes);
		free(s->x);
	}
	an_pool_put(&a->pool.rsp, s);
}

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
			struct an_req_err *er = an_req_err(a, r);

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
			struct an_req_err *er = code == ROCE_NAK_PSN_SEQ_ERR ?
				an_req_err(a, r) : NULL;

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
		uint32_t n = an_div_up(e->len, pmtu);

		if (n >= e->n && n <= e->nmax) {
			e->n = e->nmax = n;
			read_pinned(r, e);
		}
	}
}

/* s's unseen / pending PSN sets, allocated on first use (NULL: no memory). */
static struct an_rsp_x *rsp_x(struct an_rsp *s)
{
	if (!s->x)
		s->x = calloc(1, sizeof(*s->x));
	return s->x;
}

/* (an_internal.h; the pending PSNs come from read_skipped()) */
void an_rsp_read_pinned(struct an_ctx *c, struct an_flow *f, const struct an_readent *e,
	uint32_t nmax0)
{
	struct an_rsp *s = f->rsp;
	uint32_t k;

	if (!s || !s->x || !s->x->pend.nholes || e->n != e->nmax)
		return;
	k = an_hole_take(&s->x->pend, e->psn, e->n, &s->hs);
	if (nmax0 > e->n)
		an_hole_take(&s->x->pend, roce_psn_add(e->psn, e->n), nmax0 - e->n, NULL);
	if (k)
		AN_COUNT(c->a, f, lost_psns, k);
}

/* [p, p + n) pending (once: the largest N of two READs may overlap) */
static void pend_keep(struct an_rsp_x *x, uint32_t p, uint32_t n)
{
	an_hole_fill_range(&x->pend, p, n);
	an_hole_add(&x->pend, p, n);
}

/* The part of [start, start + len) in the window [base, base + span): its offset in the
 * window and length (false: none). */
static bool win_cut(uint32_t base, uint32_t span, uint32_t start, uint32_t len, uint32_t *off,
	uint32_t *cut)
{
	uint32_t o = (start - base) & 0xffffffu, back = (base - start) & 0xffffffu;

	if (o < span) {
		*off = o;
		*cut = len < span - o ? len : span - o;
	} else if (back < len) {
		*off = 0;
		*cut = len - back < span ? len - back : span;
	} else {
		return false;
	}
	return *cut > 0;
}

/*
 * PSNs of the known READ ranges in the window [base, base + span): READ
 * responses the responder passed without them being seen.  They become
 * holes of f's response stream (in PSN order); returns how many, the first
 * and last in *first and *last.  A READ whose N is not known yet counts with
 * its smallest N; the window's PSNs up to its largest N (and in no other known
 * READ's range) are kept pending (an_rsp_read_pinned(), rsp_sequence()).
 */
static uint32_t read_skipped(struct an_ctx *c, struct an_flow *f, struct an_req *r,
	uint32_t base, uint32_t span, uint32_t *first, uint32_t *last)
{
	struct an_rsp *s = f->rsp;
	struct { uint32_t off, len; } seg[AN_READ_RING], tmp, pend[AN_READ_RING];
	unsigned ns = 0, np = 0;
	uint32_t lost = 0, done = 0, pmtu = an_flow_pmtu(c->a, f);

	for (unsigned i = 0; i < r->rd_cap; i++) {
		struct an_readent *e = &r->rd[i];
		uint32_t off, len, nmax0 = e->nmax;

		if (!e->live)
			continue;
		if (e->n != e->nmax) {
			read_settle(r, e, pmtu);
			if (e->n == e->nmax)
				an_rsp_read_pinned(c, f, e, nmax0);
		}
		if (e->n != e->nmax && np < AN_READ_RING &&
		    win_cut(base, span, roce_psn_add(e->psn, e->n), e->nmax - e->n, &off, &len)) {
			pend[np].off = off;
			pend[np++].len = len;
		}
		if (!win_cut(base, span, e->psn, e->n, &off, &len))
			continue;
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
		an_hole_add(&s->hs, roce_psn_add(base, from), to - from);
		lost += to - from;
		done = to;
	}
	/* pending: what no READ's smallest range covers (seg[] is sorted by offset) */
	for (unsigned j = 0; j < np && rsp_x(s); j++) {
		uint32_t at = pend[j].off, end = pend[j].off + pend[j].len;

		for (unsigned k = 0; k < ns && at < end; k++) {
			uint32_t so = seg[k].off, se = seg[k].off + seg[k].len;

			if (se <= at)
				continue;
			if (so > at)
				pend_keep(s->x, roce_psn_add(base, at), (so < end ? so : end) - at);
			at = se;
		}
		if (at < end)
			pend_keep(s->x, roce_psn_add(base, at), end - at);
	}
	return lost;
}

/* Keep [base, base + span) of s's unseen PSNs (allocated with the first). */
static void unseen_keep(struct an_rsp *s, uint32_t base, uint32_t span)
{
	if (!span)
		return;
	if (!rsp_x(s))
		return;         /* no memory: such a PSN counts as a duplicate later */
	an_hole_add(&s->x->unseen, base, span);
}

/*
 * A READ response with PSN P passes PSNs: when its READ's N is not known, the
 * READ has at least the PSNs up to P (one more when P is a FIRST or MIDDLE),
 * and a LAST response pins N: the PSNs it passes are the READ's, lost.
 */
static void read_atleast(struct an_ctx *c, struct an_flow *f, struct an_req *r, uint32_t P)
{
	struct an_readent *e = read_match(r, P);
	uint32_t n, nmax0;

	if (!e || e->n == e->nmax)
		return;
	nmax0 = e->nmax;
	n = ((P - e->psn) & 0xffffffu) + ((c->pkt->op->flags & ROCE_F_LAST) ? 1 : 2);
	if (c->pkt->op->flags & ROCE_F_LAST) {
		if (n >= e->n && n <= e->nmax)
			e->n = e->nmax = n;
	} else if (n > e->n && n <= e->nmax) {
		e->n = n;
	}
	if (e->n == e->nmax) {
		read_pinned(r, e);
		an_rsp_read_pinned(c, f, e, nmax0);
	}
}

/*
 * The window [base, base + span) passed by a response frame: the PSNs whose
 * READ may be unknown are unseen (a late READ response with one of them is
 * out of order): those the request stream r did not see as requests (its
 * holes, behind its first PSN (its first frame was damaged, or the capture
 * began after the request), and from its expected PSN on), all of them
 * without r.  A PSN r saw is a SEND / WRITE / ATOMIC or a known READ (whose
 * skipped PSNs are holes).
 */
static void unseen_add(struct an_rsp *s, const struct an_req *r, uint32_t base, uint32_t span)
{
	uint32_t ahead;

	if (!r || !r->init) {
		unseen_keep(s, base, span);
		return;
	}
	if (roce_psn_cmp(base, r->first_psn) < 0) {
		uint32_t behind = (r->first_psn - base) & 0xffffffu;

		unseen_keep(s, base, behind < span ? behind : span);
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
static uint32_t rsp_first_passed(struct an_ctx *c, struct an_flow *f, struct an_req *r,
	uint32_t P, uint32_t from, uint32_t *first, uint32_t *last)
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
	return read_skipped(c, f, r, roce_psn_add(from, 0x1000000u - back), back, first, last);
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
		lost = rsp_first_passed(c, f, r, P, from, &first, &last);
	/* (not when a response of e was seen before: by a stream evicted or expired since,
	 * which counted the PSNs it passed) */
	if (e && P != e->psn && !e->resp_seen) {
		an_hole_add(&s->hs, e->psn, (P - e->psn) & 0xffffffu);
		lost += (P - e->psn) & 0xffffffu;
		last = roce_psn_add(P, 0xffffffu);
	}
	if (lost)
		an_gap_report_span(c, f, P, first, last, lost);
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
	s->hs.dropped_unrec = an_holes_missing(&s->hs);
	s->hs.nholes = 0;
	if (s->x)
		s->x->unseen.nholes = s->x->pend.nholes = 0;
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
		uint64_t unrec = an_holes_missing(&s->hs);

		/* the arrays stay (emptied) */
		s->hs.nholes = 0;
		s->hs.dropped_unrec = unrec;
		if (s->x)
			s->x->unseen.nholes = s->x->pend.nholes = 0;
		rsp_start(c, f, r, P, upto, is_resp);
		return;
	}
	if (d > 1) {
		uint32_t first = 0, last = 0, lost;

		unseen_add(s, r, roce_psn_add(s->newest, 1), (uint32_t)d - 1);
		if (r) {
			if (is_resp)
				read_atleast(c, f, r, P);
			lost = read_skipped(c, f, r, roce_psn_add(s->newest, 1), (uint32_t)d - 1,
				&first, &last);
			if (lost)
				an_gap_report_span(c, f, P, first, last, lost);
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
		an_hole_fill(&s->hs, P);
		if (s->x) {
			an_hole_fill(&s->x->unseen, P);
			an_hole_fill(&s->x->pend, P);
		}
		return;
	}
	/* a READ response at or behind the newest PSN: out of order when no frame
	 * of the stream carried its PSN yet (a lost one, one passed before its
	 * READ was known, or one passed while its READ's N was not known: a lost
	 * one too, counted now), else a duplicate */
	c->res->expected_psn = roce_psn_add(s->newest, 1);
	bool lost_fill = an_hole_fill(&s->hs, P);
	bool unseen_fill = s->x && an_hole_fill(&s->x->unseen, P);
	bool pend_fill = s->x && an_hole_fill(&s->x->pend, P);

	if (pend_fill && !lost_fill && r && read_match(r, P))
		AN_COUNT(c->a, f, lost_psns, 1);
	if (lost_fill || unseen_fill || pend_fill) {
		AN_COUNT(c->a, f, out_of_order, 1);
		c->res->events |= ROCE_EV_OUT_OF_ORDER;
		an_simple_anomaly(c, f, ROCE_AN_OUT_OF_ORDER, P, c->res->expected_psn,
			"READ response PSN fills an earlier gap");
	} else {
		AN_COUNT(c->a, f, duplicates, 1);
		c->res->events |= ROCE_EV_DUPLICATE;
		an_simple_anomaly(c, f, ROCE_AN_DUPLICATE, P, c->res->expected_psn,
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
	read_settle(r, e, an_flow_pmtu(c->a, f));
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

/*
 * f's response stream has just paired with its request stream (state r):
 * the responses it carried before, unpaired, acknowledged up to its newest
 * PSN (an ACK's or a response's PSN, a NAK's PSN - 1).  Captured before the
 * stream's first request (multi-queue capture, mirror ports: frames reordered
 * by microseconds), they answered the requests up to it that the request
 * stream has carried since: those wait for no later ACK, and the ones not
 * carried yet are marked (ack_complete(): docs/json.md rtt_us).  Only an
 * acknowledgement at or past the stream's first request counts (less than
 * 2^22 ahead: the same connection); one behind it answered requests before
 * the capture began.  Once per stream: the hot paths never come here.
 */
static __attribute__((noinline)) void rsp_paired(struct an_ctx *c, struct an_flow *f)
{
	const struct an_rsp *s = f->rsp;
	struct an_req *r = f->peer->req;

	if (!s || !s->init || !r || !r->init || r->off ||
	    ((s->newest - r->first_psn) & 0xffffffu) >= AN_RESYNC)
		return;
	ack_complete(c->a, r, s->newest, true, s->newest, NULL, c->ts, NULL);
}

/*
 * resp_complete() while f's response stream has PSNs pending on a READ's N: when
 * the frame's READ has its N now (by this frame, earlier, or by the request
 * stream), those of its PSNs become holes (an_rsp_read_pinned()).
 */
static __attribute__((noinline)) void resp_complete_pend(struct an_ctx *c, struct an_flow *f,
	struct an_req *r, uint32_t P, bool ack)
{
	struct an_readent *e = (c->pkt->op->flags & ROCE_F_RESP) ? read_match(r, P) : NULL;
	uint32_t nmax0 = e ? e->nmax : 0;

	resp_complete(c, f, r, P, ack);
	if (e)
		an_rsp_read_pinned(c, f, e, nmax0);
}

/*
 * What the frame of f at PSN P that paired the streams acknowledged, with the
 * responses before it (the newest PSN): the bound for an_req_acked().
 */
static __attribute__((noinline)) uint32_t rsp_paired_upto(const struct an_ctx *c,
	const struct an_flow *f, uint32_t P)
{
	const struct roce_pkt *pkt = c->pkt;
	uint32_t upto = (pkt->hdrs & ROCE_H_AETH) &&
		roce_aeth_type(pkt->aeth.syndrome) != ROCE_AETH_ACK ? P : roce_psn_add(P, 1);

	if (f->rsp && f->rsp->init && roce_psn_cmp(roce_psn_add(f->rsp->newest, 1), upto) > 0)
		upto = roce_psn_add(f->rsp->newest, 1);
	return upto;
}

void an_resp_process(struct an_ctx *c, struct an_flow *f)
{
	const struct roce_pkt *pkt = c->pkt;
	uint32_t flags = pkt->op->flags, P = pkt->bth.psn & 0xffffffu;
	struct an_req *r;
	bool paired = false, ack;

	if (!f->peer) {
		struct an_rsp *s = f->rsp;
		uint32_t opened = c->a->pair.opened % 64;

		if (f->st.unpaired_frames < AN_PAIR_FIRST ||
		    f->st.unpaired_frames % AN_PAIR_EVERY == 0 ||
		    (s && s->pair_wait && s->pair_seen != opened)) {
			/* no candidate on the host pair: look again when a host pair gets one
			 * (the capture began before the request stream's first frame) */
			bool none = !an_pair_try(c->a, f, P);

			if ((s = none ? rsp_get(c->a, f) : f->rsp)) {
				s->pair_wait = none;
				s->pair_seen = opened;
			}
			/* paired now: the request state of both gets room for their latencies
			 * (f->req, f->peer->req move) */
			if (f->peer) {
				an_req_pair(c->a, f);
				an_req_pair(c->a, f->peer);
				rsp_paired(c, f);
				paired = true;
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
	 * the PSNs before it (an_acked.c); on the frame that pairs the streams, also what the
	 * responses before it acknowledged (the newest PSN): a request gap while unpaired
	 * could not ask them (an_req_gap_acked()) */
	if (r->hs.nholes && ((pkt->hdrs & ROCE_H_AETH) || (flags & ROCE_F_RESP)))
		an_req_acked(c, f->peer, r, paired ? rsp_paired_upto(c, f, P) :
			(pkt->hdrs & ROCE_H_AETH) &&
			roce_aeth_type(pkt->aeth.syndrome) != ROCE_AETH_ACK ? P : roce_psn_add(P, 1));
	/* the responder answers otherwise than with a fatal NAK: the connection lives on */
	if (!(pkt->hdrs & ROCE_H_AETH) || roce_aeth_type(pkt->aeth.syndrome) != ROCE_AETH_NAK ||
	    !nak_fatal(pkt->aeth.syndrome))
		r->fatal = false;
	ack = !(pkt->hdrs & ROCE_H_AETH) || roce_aeth_type(pkt->aeth.syndrome) == ROCE_AETH_ACK;
	/* (PSNs pending on a READ's N: behind the newest PSN, settled here only) */
	if (__builtin_expect(f->rsp && f->rsp->x != NULL, 0) && f->rsp->x->pend.nholes)
		resp_complete_pend(c, f, r, P, ack);
	else
		resp_complete(c, f, r, P, ack);
}
