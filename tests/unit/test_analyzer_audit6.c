// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_analyzer_audit6.c - a sixth audit (test_analyzer_audit.c .. _audit5.c
 * have the others), on a READ whose N is not known when a response passes it
 * (docs/json.md, "READ recovery"): with the path MTU unknown (no FIRST / MIDDLE
 * frame of the connection carried one yet) a READ of 287 bytes takes 1 PSN
 * (PMTU 4096) to 2 (PMTU 256).  A response stream that passes its PSNs counts
 * the smallest N at its gap and keeps the PSNs up to the largest as pending:
 * once the READ's LAST response or the learnt PMTU gives N, those inside the
 * READ are READ responses it missed (lost_psns, unrecovered until a frame
 * carries them); a READ response carrying one before that fills a gap (out of
 * order, lost_psns).  The reference model (tests/ref/psnref.c) knows N from the
 * start (the PMTU from a first pass): refmodel seed 649 found the case.  And
 * request PSNs ACKed unseen by responses captured before the streams paired.  Each
 * expected value is stated with its reason; an_audit.h runs every frame
 * through roce-analyze's entry too and compares the two analyzers.
 */
#include <stdio.h>

#include "an_audit.h"

static const uint32_t bases[] = { 100, 0xfffffe };

static uint32_t P(uint32_t b, uint32_t k)
{
	return (b + k) & 0xffffffu;
}

static void read_req(struct t *t, uint32_t psn, uint32_t len, uint64_t ts)
{
	rq(t, ROCE_OP_RC_RDMA_READ_REQUEST, psn, true, 0, len, ts);
}

/*
 * The connection so far: a SEND at b and its ACK, a READ of 287 bytes at b + 1
 * (N 1 or 2: the PMTU is unknown), and the ACK of a request at b + 3 that the
 * capture missed (the request stream's next request could have been at b + 2
 * or b + 3).  The ACK passes b + 1 and b + 2: the READ's first PSN is a gap
 * (lost 1), b + 2 may be its second response (pending).
 */
static void passed_unknown_n(struct t *t, uint32_t b)
{
	snd(t, b, 0);
	ack(t, b, 1 * US);
	read_req(t, P(b, 1), 287, 2 * US);
	ack(t, P(b, 3), 10 * US);
	CHECK(t->res.events & ROCE_EV_PSN_GAP);
	CHECK_EQ_U(t->res.lost_psns, 1);
}

/* The READ's LAST response at b + 2 comes late: it carries a passed PSN (out of
 * order, lost: the READ had 2 PSNs) and gives N = 2; b + 1 stays missing. */
static void run_last_late(uint32_t b)
{
	struct t t;
	struct roce_summary s;

	a_init(&t, 0);
	REQUIRE(t.a && xa);
	passed_unknown_n(&t, b);
	rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_LAST, P(b, 2), 0x1f, 31, 12 * US);
	CHECK(t.res.events & ROCE_EV_OUT_OF_ORDER);
	CHECK(!(t.res.events & (ROCE_EV_DUPLICATE | ROCE_EV_PSN_GAP)));
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.psn_gaps, 1);
	CHECK_EQ_U(s.lost_psns, 2);
	CHECK_EQ_U(s.out_of_order, 1);
	CHECK_EQ_U(s.duplicates, 0);
	CHECK_EQ_U(s.unrecovered_psns, 1);
	check_counters_add_up(&t, false);
	a_done(&t);
}

/* The READ's FIRST response at b + 1 comes late with a full 256-byte payload: the
 * PMTU is learnt, N = 2, so b + 2 is a READ response the capture never saw (lost,
 * unrecovered); then it comes after all (out of order, recovered). */
static void run_pmtu_learnt(uint32_t b)
{
	struct t t;
	struct roce_summary s;

	a_init(&t, 0);
	REQUIRE(t.a && xa);
	passed_unknown_n(&t, b);
	rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_FIRST, P(b, 1), 0x1f, 256, 12 * US);
	CHECK(t.res.events & ROCE_EV_OUT_OF_ORDER);
	sum(&t, &s);
	CHECK_EQ_U(s.lost_psns, 2);
	CHECK_EQ_U(s.unrecovered_psns, 1);
	rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_LAST, P(b, 2), 0x1f, 31, 13 * US);
	CHECK(t.res.events & ROCE_EV_OUT_OF_ORDER);
	CHECK(!(t.res.events & (ROCE_EV_DUPLICATE | ROCE_EV_PSN_GAP)));
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.psn_gaps, 1);
	CHECK_EQ_U(s.lost_psns, 2);
	CHECK_EQ_U(s.out_of_order, 2);
	CHECK_EQ_U(s.duplicates, 0);
	CHECK_EQ_U(s.unrecovered_psns, 0);
	check_counters_add_up(&t, false);
	a_done(&t);
}

/* The request after the READ, at b + 3 (late: its ACK came first), gives N = 2: b + 2
 * was the READ's second response, missed (lost, unrecovered with b + 1). */
static void run_pinned_by_request(uint32_t b)
{
	struct t t;
	struct roce_summary s;

	a_init(&t, 0);
	REQUIRE(t.a && xa);
	passed_unknown_n(&t, b);
	snd(&t, P(b, 3), 11 * US);
	CHECK(!(t.res.events & (ROCE_EV_PSN_GAP | ROCE_EV_DUPLICATE | ROCE_EV_OUT_OF_ORDER)));
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.psn_gaps, 1);
	CHECK_EQ_U(s.lost_psns, 2);
	CHECK_EQ_U(s.unrecovered_psns, 2);
	check_counters_add_up(&t, false);
	a_done(&t);
}

/* N turns out to be 1: the request stream's next frame, a WRITE at b + 2 with a
 * 512-byte payload (the PMTU), ends the READ at b + 1; b + 2 was the WRITE's, not a
 * READ response: nothing more is lost, and the READ's response fills its gap. */
static void run_n_smallest(uint32_t b)
{
	struct t t;
	struct roce_summary s;

	a_init(&t, 0);
	REQUIRE(t.a && xa);
	passed_unknown_n(&t, b);
	rq(&t, ROCE_OP_RC_RDMA_WRITE_FIRST, P(b, 2), false, 512, 1000, 20 * US);
	rq(&t, ROCE_OP_RC_RDMA_WRITE_LAST, P(b, 3), true, 488, 0, 21 * US);
	rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_ONLY, P(b, 1), 0x1f, 287, 22 * US);
	CHECK(t.res.events & ROCE_EV_OUT_OF_ORDER);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.psn_gaps, 1);
	CHECK_EQ_U(s.lost_psns, 1);
	CHECK_EQ_U(s.out_of_order, 1);
	CHECK_EQ_U(s.unrecovered_psns, 0);
	check_counters_add_up(&t, false);
	a_done(&t);
}

/*
 * refmodel seed 649: the request stream's first frame is a READ at b + 2, the READ
 * at b (287 bytes) comes after it (late); the response stream's first trusted
 * frame answers b + 2: the READ at b was passed (its first PSN lost, b + 1
 * pending); its LAST response at b + 1 then fills a gap (before: a duplicate, as
 * if a frame had carried b + 1) and its FIRST at b another.
 */
static void run_first_frame_passes(uint32_t b)
{
	struct t t;
	struct roce_summary s;

	a_init(&t, 0);
	REQUIRE(t.a && xa);
	read_req(&t, P(b, 2), 100, 0);
	read_req(&t, b, 287, 1 * US);
	rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_ONLY, P(b, 2), 0x1f, 100, 10 * US);
	CHECK(t.res.events & ROCE_EV_PSN_GAP);
	CHECK_EQ_U(t.res.lost_psns, 1);
	rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_LAST, P(b, 1), 0x1f, 31, 11 * US);
	CHECK(t.res.events & ROCE_EV_OUT_OF_ORDER);
	CHECK(!(t.res.events & ROCE_EV_DUPLICATE));
	rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_FIRST, b, 0x1f, 256, 12 * US);
	CHECK(t.res.events & ROCE_EV_OUT_OF_ORDER);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.psn_gaps, 1);
	CHECK_EQ_U(s.lost_psns, 2);
	CHECK_EQ_U(s.duplicates, 0);
	CHECK_EQ_U(s.unrecovered_psns, 0);
	check_counters_add_up(&t, false);
	a_done(&t);
}

/* The READ's LAST response passes PSNs: N is known at that frame (the PSNs up to it),
 * so its gap counts all it passed (before: the smallest N, 1 PSN). */
static void run_gap_by_last(uint32_t b)
{
	struct t t;
	struct roce_summary s;

	a_init(&t, 0);
	REQUIRE(t.a && xa);
	snd(&t, b, 0);
	ack(&t, b, 1 * US);
	read_req(&t, P(b, 1), 1000, 2 * US);
	rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_LAST, P(b, 4), 0x1f, 232, 10 * US);
	CHECK(t.res.events & ROCE_EV_PSN_GAP);
	CHECK_EQ_U(t.res.lost_psns, 3);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.psn_gaps, 1);
	CHECK_EQ_U(s.lost_psns, 3);
	CHECK_EQ_U(s.unrecovered_psns, 3);
	check_counters_add_up(&t, false);
	a_done(&t);
}

/*
 * ACKed unseen before the streams pair (docs/json.md acked_unseen_psns): the ACK of
 * b + 5 comes first (multi-queue capture: the response stream has no request stream
 * to pair with yet), then requests b + 3 and b + 5, the capture missing b + 4 (a gap
 * while unpaired: no response stream to ask), then an older ACK of b + 3, captured
 * late, that pairs the streams.  The responder had b + 4 (the first ACK covers it):
 * ACKed unseen, not unrecovered, on the frame that pairs.
 */
static void run_acked_before_pairing(uint32_t b)
{
	struct t t;
	struct roce_summary s;

	a_init(&t, 1024);
	REQUIRE(t.a && xa);
	ack(&t, P(b, 5), 0);
	snd(&t, P(b, 3), 1 * US);
	snd(&t, P(b, 5), 2 * US);
	CHECK(t.res.events & ROCE_EV_PSN_GAP);
	ack(&t, P(b, 3), 3 * US);
	CHECK(t.res.events & ROCE_EV_ACKED_UNSEEN);
	CHECK_EQ_U(t.res.acked_unseen_psns, 1);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.psn_gaps, 1);
	CHECK_EQ_U(s.lost_psns, 1);
	CHECK_EQ_U(s.acked_unseen_psns, 1);
	CHECK_EQ_U(s.unrecovered_psns, 0);
	check_counters_add_up(&t, false);
	a_done(&t);
}

EACH_BASE(last_late)
EACH_BASE(pmtu_learnt)
EACH_BASE(pinned_by_request)
EACH_BASE(n_smallest)
EACH_BASE(first_frame_passes)
EACH_BASE(gap_by_last)
EACH_BASE(acked_before_pairing)

int main(void)
{
	RUN(test_last_late);
	RUN(test_pmtu_learnt);
	RUN(test_pinned_by_request);
	RUN(test_n_smallest);
	RUN(test_first_frame_passes);
	RUN(test_gap_by_last);
	RUN(test_acked_before_pairing);
	return check_report();
}
