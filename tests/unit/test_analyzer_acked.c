// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_analyzer_acked.c - "ACKed unseen" request PSNs (lib/src/an_acked.c):
 * a request PSN the capture never carried (a hole: psn_gaps / lost_psns at
 * its gap) that an ACK, a READ response or an ATOMIC ACK at or past it, or a
 * NAK past it, acknowledges afterwards reached the responder (IBTA 9.7.5.1:
 * ACKs coalesce; the responder executes in PSN order): the capture point
 * dropped it.  It leaves the holes (not unrecovered, roce_analyzer_flow_holes()
 * no longer lists it) and counts in acked_unseen_psns (summary and request
 * stream); a frame carrying it later is a duplicate.  Real loss recovered by
 * go-back-N, and UC (no ACKs), change nothing.  Each case runs at b = 100 and
 * across the PSN wrap; an_audit.h runs every frame through roce-analyze's
 * entry (the in-order fast paths) too and compares both analyzers.
 */
#include <stdio.h>
#include <string.h>

#include "an_audit.h"

static const uint32_t bases[] = { 100, 0xfffffe, 0xfffffc };

static uint32_t P(uint32_t b, uint32_t k)
{
	return (b + k) & 0xffffffu;
}

/* The request stream's holes: how many PSNs, the first range in *first. */
static uint32_t holes(struct t *t, struct roce_psn_range *first)
{
	struct flows fl;
	struct roce_psn_range r[8];
	const struct roce_flow_stats *a2b;
	uint32_t n = 0;
	int k;

	flows_get(t, &fl);
	a2b = req_flow(&fl);
	if (!a2b)
		return ~0u;
	k = roce_analyzer_flow_holes(t->a, &a2b->key, r, 8, NULL);
	for (int i = 0; i < k && i < 8; i++)
		n += r[i].len;
	if (k > 0 && first)
		*first = r[0];
	return n;
}

/*
 * The last frame (a response) carries ROCE_EV_ACKED_UNSEEN with n PSNs in
 * acked_unseen_psns, and the newest acked_unseen anomaly is that frame's: the request
 * stream (A -> B), first PSN `first`, count n, detail text; `an` of them so far.
 */
static void check_event(struct t *t, uint32_t n, uint32_t first, uint64_t an)
{
	const struct roce_anomaly *x = &t->last_an[ROCE_AN_ACKED_UNSEEN];
	struct flows fl;
	const struct roce_flow_stats *a2b;

	CHECK(t->res.events & ROCE_EV_ACKED_UNSEEN);
	CHECK(!(t->res.events & ROCE_EV_PSN_GAP));
	CHECK_EQ_U(t->res.acked_unseen_psns, n);
	CHECK_EQ_U(t->an[ROCE_AN_ACKED_UNSEEN], an);
	CHECK_EQ_U(x->frame, t->frame);
	CHECK(x->has_psn && !x->has_expected);
	CHECK_EQ_U(x->psn, first);
	CHECK_EQ_U(x->count, n);
	CHECK(strstr(x->detail, "acknowledged, not captured") != NULL);
	flows_get(t, &fl);
	a2b = req_flow(&fl);
	CHECK(a2b && x->has_flow && !memcmp(&x->flow, &a2b->key, sizeof(x->flow)));
}

static uint64_t req_acked(struct t *t)
{
	struct flows fl;
	const struct roce_flow_stats *a2b;

	flows_get(t, &fl);
	a2b = req_flow(&fl);
	return a2b ? a2b->acked_unseen_psns : ~0ull;
}

/*
 * One PSN missing from the capture (b + 2), the ACK of b + 3 covers it:
 * ACKed unseen, not unrecovered; the gap and its lost PSN stay.  The ACK of
 * b before it covers nothing.  A frame with b + 2 afterwards is a duplicate.
 */
static void run_ack_one(uint32_t b)
{
	struct t t;
	struct roce_summary s;

	a_init(&t, 1024);
	REQUIRE(t.a && xa);
	snd(&t, b, 0);
	ack(&t, b, 1 * US);
	snd(&t, P(b, 1), 2 * US);
	snd(&t, P(b, 3), 3 * US);       /* b + 2 not captured */
	CHECK(t.res.events & ROCE_EV_PSN_GAP);
	ack(&t, P(b, 1), 4 * US);       /* behind the hole: nothing */
	CHECK(!(t.res.events & ROCE_EV_ACKED_UNSEEN));
	CHECK_EQ_U(t.an[ROCE_AN_ACKED_UNSEEN], 0);
	sum(&t, &s);
	CHECK_EQ_U(s.acked_unseen_psns, 0);
	CHECK_EQ_U(holes(&t, NULL), 1);
	ack(&t, P(b, 3), 5 * US);
	check_event(&t, 1, P(b, 2), 1);
	sum(&t, &s);
	CHECK_EQ_U(s.acked_unseen_psns, 1);
	CHECK_EQ_U(req_acked(&t), 1);
	CHECK_EQ_U(holes(&t, NULL), 0);
	/* the responder had it: a late copy is a duplicate, not a fill */
	snd(&t, P(b, 2), 6 * US);
	CHECK(t.res.events & ROCE_EV_DUPLICATE);
	CHECK(!(t.res.events & ROCE_EV_OUT_OF_ORDER));
	CHECK(!(t.res.events & ROCE_EV_ACKED_UNSEEN));
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.psn_gaps, 1);
	CHECK_EQ_U(s.lost_psns, 1);
	CHECK_EQ_U(s.unrecovered_psns, 0);
	CHECK_EQ_U(s.acked_unseen_psns, 1);
	CHECK_EQ_U(s.duplicates, 1);
	CHECK_EQ_U(s.out_of_order, 0);
	CHECK_EQ_U(roce_anomaly_count(&s, ROCE_AN_UNRECOVERED), 0);
	CHECK_EQ_U(roce_anomaly_count(&s, ROCE_AN_ACKED_UNSEEN), 1);
	CHECK_EQ_U(t.an[ROCE_AN_ACKED_UNSEEN], 1);
	check_counters_add_up(&t, false);
	a_done(&t);
}

/*
 * Two holes (b + 1..2, b + 4..6): a coalesced ACK of b + 5 covers the first
 * and part of the second (4 PSNs), b + 6 stays missing; the ACK of b + 8
 * covers it.
 */
static void run_ack_several(uint32_t b)
{
	struct t t;
	struct roce_summary s;
	struct roce_psn_range r0 = { 0, 0 };

	a_init(&t, 1024);
	REQUIRE(t.a && xa);
	snd(&t, b, 0);
	snd(&t, P(b, 3), 1 * US);
	snd(&t, P(b, 7), 2 * US);
	snd(&t, P(b, 8), 3 * US);
	CHECK_EQ_U(holes(&t, NULL), 5);
	ack(&t, P(b, 5), 4 * US);
	check_event(&t, 4, P(b, 1), 1);
	sum(&t, &s);
	CHECK_EQ_U(s.acked_unseen_psns, 4);
	CHECK_EQ_U(holes(&t, &r0), 1);
	CHECK_EQ_U(r0.start, P(b, 6));
	CHECK_EQ_U(r0.len, 1);
	ack(&t, P(b, 8), 5 * US);
	check_event(&t, 1, P(b, 6), 2);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.psn_gaps, 2);
	CHECK_EQ_U(s.lost_psns, 5);
	CHECK_EQ_U(s.acked_unseen_psns, 5);
	CHECK_EQ_U(s.unrecovered_psns, 0);
	CHECK_EQ_U(req_acked(&t), 5);
	check_counters_add_up(&t, false);
	a_done(&t);
}

/*
 * b + 1 and b + 2 missing from the capture; the responder got b + 1 but not
 * b + 2 (lost in the network after the capture point, or before it): its NAK
 * names b + 2, which acknowledges b + 1 only.  The go-back resends b + 2 and
 * b + 3: b + 2 fills its hole (out of order, a retransmission: a normal
 * fill, not ACKed unseen), b + 3 is a duplicate retransmission.
 */
static void run_nak_after_hole(uint32_t b)
{
	struct t t;
	struct roce_summary s;
	struct roce_psn_range r0 = { 0, 0 };

	a_init(&t, 1024);
	REQUIRE(t.a && xa);
	snd(&t, b, 0);
	ack(&t, b, 1 * US);
	snd(&t, P(b, 3), 2 * US);
	nak(&t, P(b, 2), 0x60, 3 * US);
	check_event(&t, 1, P(b, 1), 1);
	CHECK(t.res.events & ROCE_EV_NAK);
	sum(&t, &s);
	CHECK_EQ_U(s.acked_unseen_psns, 1);
	CHECK_EQ_U(holes(&t, &r0), 1);
	CHECK_EQ_U(r0.start, P(b, 2));
	snd(&t, P(b, 2), 4 * US);
	CHECK(t.res.events & ROCE_EV_OUT_OF_ORDER);
	CHECK(t.res.events & ROCE_EV_RETRANSMISSION);
	snd(&t, P(b, 3), 5 * US);
	CHECK(t.res.events & ROCE_EV_DUPLICATE);
	ack(&t, P(b, 3), 6 * US);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.psn_gaps, 1);
	CHECK_EQ_U(s.lost_psns, 2);
	CHECK_EQ_U(s.acked_unseen_psns, 1);
	CHECK_EQ_U(s.unrecovered_psns, 0);
	CHECK_EQ_U(s.out_of_order, 1);
	CHECK_EQ_U(s.duplicates, 1);
	CHECK_EQ_U(s.retransmissions, 2);
	CHECK_EQ_U(s.gbn_episodes[ROCE_RETX_NAK], 1);
	check_counters_add_up(&t, false);
	a_done(&t);
}

/*
 * A WRITE (b + 1) missing from the capture, then a READ (b + 2, 1 PSN): the
 * READ's response acknowledges the WRITE before it (IBTA 9.7.5.1.4: a READ
 * response implies the ACK of the requests before it).  The same with an
 * atomic and its ATOMIC ACK.
 */
static void run_read_covers_write(uint32_t b)
{
	struct t t;
	struct roce_summary s;
	struct roce_frame_spec sp;

	a_init(&t, 1024);
	REQUIRE(t.a && xa);
	snd(&t, b, 0);
	/* RDMA WRITE ONLY b + 1: not captured */
	rq(&t, ROCE_OP_RC_RDMA_READ_REQUEST, P(b, 2), true, 0, 512, 2 * US);
	CHECK(t.res.events & ROCE_EV_PSN_GAP);
	rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_ONLY, P(b, 2), 0x1f, 512, 4 * US);
	check_event(&t, 1, P(b, 1), 1);
	sum(&t, &s);
	CHECK_EQ_U(s.acked_unseen_psns, 1);
	CHECK_EQ_U(holes(&t, NULL), 0);
	/* SEND b + 3 not captured, FETCH_ADD b + 4, its ATOMIC ACK */
	req_spec(&sp, ROCE_OP_RC_FETCH_ADD, P(b, 4), true, 0, 0);
	sp.atomic.va = 0x7f0000001000ull;
	sp.atomic.rkey = 0x1234;
	sp.atomic.swap_add = 1;
	xfeed(&t, &sp, 5 * US);
	CHECK(t.res.events & ROCE_EV_PSN_GAP);
	resp_spec(&sp, ROCE_OP_RC_ATOMIC_ACKNOWLEDGE, P(b, 4), 0x1f, 0);
	sp.atomic_ack = 41;
	xfeed(&t, &sp, 7 * US);
	check_event(&t, 1, P(b, 3), 2);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.psn_gaps, 2);
	CHECK_EQ_U(s.lost_psns, 2);
	CHECK_EQ_U(s.acked_unseen_psns, 2);
	CHECK_EQ_U(s.unrecovered_psns, 0);
	check_counters_add_up(&t, false);
	a_done(&t);
}

/*
 * Real loss: b + 1 lost before the capture point (and the responder), NAK
 * b + 1, go-back resends b + 1 and b + 2, ACK b + 2: the resend fills the
 * hole before any ACK covers it; nothing is ACKed unseen (as before).
 */
static void run_real_loss(uint32_t b)
{
	struct t t;
	struct roce_summary s;

	a_init(&t, 1024);
	REQUIRE(t.a && xa);
	snd(&t, b, 0);
	ack(&t, b, 1 * US);
	snd(&t, P(b, 2), 2 * US);
	nak(&t, P(b, 1), 0x60, 3 * US);
	snd(&t, P(b, 1), 4 * US);
	snd(&t, P(b, 2), 5 * US);
	ack(&t, P(b, 2), 6 * US);
	roce_analyzer_finish(t.a);
	CHECK_EQ_U(t.an[ROCE_AN_ACKED_UNSEEN], 0);
	sum(&t, &s);
	CHECK_EQ_U(s.psn_gaps, 1);
	CHECK_EQ_U(s.lost_psns, 1);
	CHECK_EQ_U(s.acked_unseen_psns, 0);
	CHECK_EQ_U(s.unrecovered_psns, 0);
	CHECK_EQ_U(s.out_of_order, 1);
	CHECK_EQ_U(s.duplicates, 1);
	CHECK_EQ_U(s.retransmissions, 2);
	check_counters_add_up(&t, false);
	a_done(&t);
}

/* UC: no acknowledgements; an ACK-like frame on the reverse stream changes nothing. */
static void run_uc(uint32_t b)
{
	struct t t;
	struct roce_summary s;

	a_init(&t, 1024);
	REQUIRE(t.a && xa);
	rq(&t, ROCE_OP_UC_SEND_ONLY, b, false, 16, 0, 0);
	rq(&t, ROCE_OP_UC_SEND_ONLY, P(b, 2), false, 16, 0, 1 * US);
	CHECK(t.res.events & ROCE_EV_PSN_GAP);
	ack(&t, P(b, 2), 2 * US);
	CHECK(!(t.res.events & ROCE_EV_ACKED_UNSEEN));
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.lost_psns, 1);
	CHECK_EQ_U(s.acked_unseen_psns, 0);
	CHECK_EQ_U(s.unrecovered_psns, 1);
	check_counters_add_up(&t, false);
	a_done(&t);
}

EACH_BASE(ack_one)
EACH_BASE(ack_several)
EACH_BASE(nak_after_hole)
EACH_BASE(read_covers_write)
EACH_BASE(real_loss)
EACH_BASE(uc)

int main(void)
{
	RUN(test_ack_one);
	RUN(test_ack_several);
	RUN(test_nak_after_hole);
	RUN(test_read_covers_write);
	RUN(test_real_loss);
	RUN(test_uc);
	return check_report();
}
