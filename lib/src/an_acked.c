// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * an_acked.c - request PSNs the capture missed that the responder
 * acknowledged ("ACKed unseen", like Wireshark's TCP "ACKed segment that
 * wasn't captured").
 *
 * On RC and XRC the responder executes requests in PSN order (IBTA 9.7):
 * an ACK with PSN n (coalesced, 9.7.5.1), a READ response or an ATOMIC ACK
 * with PSN n tells that it received every request PSN up to n; a NAK or an
 * RNR NAK naming PSN p, every PSN before p.  A request PSN still in a hole of
 * the paired request stream (never seen, counted in psn_gaps / lost_psns at
 * the gap) that such a response covers reached the responder: the capture
 * point dropped it, not the network.  It leaves the holes (it is not
 * unrecovered) and counts in acked_unseen_psns of the summary and of the
 * request stream.  A request frame carrying it later is a duplicate (the
 * responder had it).  UC and UD have no acknowledgements; RD is left out.
 * The hole array keeps its size: no memory changes hands.
 *
 * The response may come before the hole: the capture missed the requests
 * past the newest it saw and the responder acknowledged them (an ACK, a NAK
 * past the newest request), then a later request opens their gap.  The
 * response stream's newest PSN (struct an_rsp: an ACK's or response's PSN,
 * a NAK's PSN - 1) tells what the responder acknowledged so far; the new
 * hole's PSNs at or before it are ACKed unseen at once (an_req_gap_acked()).
 * A gap while the streams are not paired yet (the response stream came
 * first) is asked on the response that pairs them (an_resp_process(): the
 * newest PSN of the responses before it).
 */
#include "an_internal.h"

#include <stdio.h>

/*
 * The response frame of c acknowledged n request PSNs of rf the capture never
 * saw, the first (of the oldest hole) `first`: ROCE_EV_ACKED_UNSEEN on
 * the frame with the count in acked_unseen_psns, and an acked_unseen anomaly
 * on the request stream rf: psn the first PSN, count n, no expected PSN.  Only
 * reached when holes were taken out.  The frame is a response, or the request
 * that opened the gap when the responses came first (an_req_gap_acked(); its
 * PSN_GAP and lost_psns stay the gap's).
 */
static void acked_event(struct an_ctx *c, struct an_flow *rf, uint32_t first, uint64_t n)
{
	struct roce_anomaly an;

	c->res->events |= ROCE_EV_ACKED_UNSEEN;
	c->res->acked_unseen_psns = n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
	if (!c->a->want_an)
		return;
	an_init(&an, ROCE_AN_ACKED_UNSEEN, c->frame, c->ts, rf);
	an.has_psn = true;
	an.psn = first;
	an.count = n;
	snprintf(an.detail, sizeof(an.detail), "%llu request PSN%s acknowledged, not captured "
		 "(first %u)", (unsigned long long)n, n == 1 ? "" : "s", first);
	an_emit(c->a, &an);
}

/*
 * The responder acknowledged every request PSN of the request stream rf
 * (state r) before upto: take those still missing out of r's holes.
 */
void an_req_acked(struct an_ctx *c, struct an_flow *rf, struct an_req *r, uint32_t upto)
{
	struct roce_analyzer *a = c->a;
	struct an_holeset *hs = &r->hs;
	uint32_t first = 0;
	uint64_t n = 0;
	int32_t d;

	if (rf->st.transport != ROCE_TRANSPORT_RC && rf->st.transport != ROCE_TRANSPORT_XRC)
		return;
	/* (far from what the request stream saw: another connection on a reused QPN) */
	d = roce_psn_cmp(upto, r->next);
	if (d >= AN_RESYNC || d <= -AN_RESYNC)
		return;
	for (unsigned i = 0; i < hs->nholes;) {
		struct an_hole *h = &hs->holes[i];
		uint32_t k;

		if (roce_psn_cmp(h->start, upto) >= 0) {
			i++;
			continue;
		}
		if (!n)
			first = h->start;
		k = (upto - h->start) & 0xffffffu;      /* the hole's PSNs before upto */
		if (k < h->len) {
			h->start = roce_psn_add(h->start, k);
			h->len -= k;
			n += k;
			i++;
			continue;
		}
		n += h->len;
		memmove(h, h + 1, (hs->nholes - i - 1) * sizeof(*h));
		hs->nholes--;
	}
	if (!n)
		return;
	a->sum.acked_unseen_psns += n;
	struct roce_counters *k = an_flow_ctr(a, rf);

	if (k)
		((struct an_ctr *)k)->acked_unseen_psns += n;
	acked_event(c, rf, first, n);
}

/*
 * A request of stream f (state r) opened a hole: the PSNs of it the peer's
 * responses already acknowledged (the response stream's newest PSN) were
 * received by the responder.  Called at a request gap only (an_req_process()):
 * in-order traffic never reaches it.
 */
void an_req_gap_acked(struct an_ctx *c, struct an_flow *f, struct an_req *r)
{
	const struct an_rsp *s = f->peer ? f->peer->rsp : NULL;

	if (s && s->init)
		an_req_acked(c, f, r, roce_psn_add(s->newest, 1));
}
