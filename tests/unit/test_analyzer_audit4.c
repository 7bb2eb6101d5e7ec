// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_analyzer_audit4.c - a fourth audit of the request / response state
 * machine (test_analyzer_audit.c, _audit2.c, _audit3.c and _audit_events.c
 * have the others), on traffic those leave out: an atomic whose ATOMIC ACK
 * was lost before the capture point, found by the requester through the
 * READ response behind it (an implied NAK) and replayed by the responder;
 * a READ response that implicitly acknowledges the SEND and WRITE before
 * it; RNR NAKs on the first packet of a multi-packet SEND, repeated, and
 * until the requester's RNR retry count runs out; a fatal NAK followed by a
 * new connection on the same QP number whose first PSN is near the old one;
 * SEND with invalidate, WRITE with immediate and a zero-length WRITE across
 * a go-back; a READ re-issued while its original is still being answered;
 * all of it across the PSN wrap; a request stream evicted by --max-flows
 * between its requests and their ACK.  Each expected value is stated with
 * its reason (IBTA Vol. 1 ch. 9 as the protocol notes give it, Linux rxe's
 * rxe_req.c / rxe_comp.c / rxe_resp.c from memory of the code, docs/json.md);
 * an_audit.h runs every frame through roce-analyze's entry too and compares
 * the two analyzers.
 */
#include <stdio.h>

#include "an_audit.h"

/* An atomic request (AckReq set, as every atomic asks for its ATOMIC ACK). */
static void atomic(struct t *t, uint8_t op, uint32_t psn, uint64_t ts)
{
	struct roce_frame_spec s;

	req_spec(&s, op, psn, true, 0, 0);
	s.atomic.va = 0x7f0000001000ull;
	s.atomic.rkey = 0x1234;
	s.atomic.swap_add = 1;
	xfeed(t, &s, ts);
}

static void atomic_ack(struct t *t, uint32_t psn, uint64_t ts)
{
	struct roce_frame_spec s;

	resp_spec(&s, ROCE_OP_RC_ATOMIC_ACKNOWLEDGE, psn, 0x1f, 0);
	s.atomic_ack = 41;
	xfeed(t, &s, ts);
}

/* ------------------------------------------------------------ atomics */

/*
 * FETCH_ADD b, a 2-packet READ b+1 and a SEND b+3 pipelined; the ATOMIC ACK
 * of b is lost before the capture point.  The READ's responses arrive: a
 * READ response past an atomic whose ATOMIC ACK was not seen is an implied
 * NAK (IBTA 9.7.5.1.5; rxe_comp.c check_psn(): a response PSN past the
 * atomic WQE's PSN gives COMPST_ERROR_RETRY), so the requester goes back to
 * b and resends the three (no NAK frame: the go-back's cause is "timeout").
 * The responder sees a duplicate atomic and replays the saved result
 * (rxe_resp.c duplicate_request(): find_resource() and resend the saved
 * ATOMIC ACK; IBTA 9.4.5 - an atomic is never executed twice), re-executes
 * the duplicate READ (same PSNs) and re-ACKs the duplicate SEND.  Expected:
 * request stream 3 duplicates, 3 retransmissions, 1 go-back (timeout), no
 * gap; response stream: the READ's 2 re-sent responses are duplicates, the
 * replayed ATOMIC ACK's PSN is behind the newest but an ACK PSN is never a
 * duplicate, and the lost ATOMIC ACK is no PSN gap (only READ response PSNs
 * can be counted lost).  Round trips: READ b+1 from its first response
 * (one sample); the atomic answered untimed by the READ response past it;
 * the resent requests untimed (Karn); read_first / read_last one each (the
 * original READ's).  Run at b = 100 and across the wrap (b = 0xfffffe).
 */
static void run_atomic_implied(uint32_t b)
{
	struct t t;
	struct roce_summary s;
	struct flows fl;
	const struct roce_flow_stats *a2b, *b2a;

	a_init(&t, 1024);
	REQUIRE(t.a && xa);
	atomic(&t, ROCE_OP_RC_FETCH_ADD, b, 0);
	rq(&t, ROCE_OP_RC_RDMA_READ_REQUEST, b + 1, true, 0, 2048, 1 * US);
	snd(&t, b + 3, 2 * US);
	rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_FIRST, b + 1, 0x1f, 1024, 10 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_ACK_RTT | ROCE_EV_READ_FIRST_RESP);
	CHECK_EQ_U(t.res.rtt_ns, 9 * US);
	rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_LAST, b + 2, 0x1f, 1024, 11 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_READ_LAST_RESP);
	/* the requester goes back to the atomic */
	atomic(&t, ROCE_OP_RC_FETCH_ADD, b, 20 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_DUPLICATE);
	CHECK_EQ_U(t.res.retx_cause, ROCE_RETX_TIMEOUT);
	rq(&t, ROCE_OP_RC_RDMA_READ_REQUEST, b + 1, true, 0, 2048, 21 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_DUPLICATE);
	snd(&t, b + 3, 22 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_DUPLICATE);
	/* the responder replays the atomic's result, re-reads, re-ACKs */
	atomic_ack(&t, b, 25 * US);
	CHECK_EQ_U(t.res.events, 0);
	rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_FIRST, b + 1, 0x1f, 1024, 26 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_DUPLICATE);
	rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_LAST, b + 2, 0x1f, 1024, 27 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_DUPLICATE);
	ack(&t, b + 3, 28 * US);
	CHECK_EQ_U(t.res.events, 0);
	snd(&t, b + 4, 30 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_GBN_RECOVERED);
	ack(&t, b + 4, 32 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_ACK_RTT);
	CHECK_EQ_U(t.res.rtt_ns, 2 * US);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.psn_gaps + s.lost_psns + s.out_of_order + s.unrecovered_psns, 0);
	CHECK_EQ_U(s.retransmissions, 3);
	CHECK_EQ_U(s.gbn_episodes[ROCE_RETX_TIMEOUT], 1);
	CHECK_EQ_U(s.gbn_episodes[ROCE_RETX_NAK] + s.gbn_episodes[ROCE_RETX_RNR], 0);
	CHECK_EQ_U(s.duplicates, 5);
	CHECK_EQ_U(s.acks, 7);          /* READ FIRST/LAST twice, ATOMIC ACK, 2 ACKs */
	flows_get(&t, &fl);
	REQUIRE((a2b = req_flow(&fl)) != NULL);
	REQUIRE((b2a = resp_flow(&fl)) != NULL);
	CHECK_EQ_U(a2b->duplicates, 3);
	CHECK_EQ_U(b2a->duplicates, 2);
	CHECK_EQ_U(b2a->psn_gaps, 0);
	CHECK_EQ_U(a2b->rtt.count, 2);          /* READ b+1, SEND b+4 */
	CHECK_EQ_U(a2b->rtt.max_ns, 9 * US);
	CHECK_EQ_U(a2b->read_first.count, 1);
	CHECK_EQ_U(a2b->read_last.count, 1);
	CHECK_EQ_U(a2b->read_last.max_ns, 10 * US);
	CHECK_EQ_U(a2b->messages, 4);           /* atomic, READ, SEND, SEND; no resend */
	check_counters_add_up(&t, false);
	a_done(&t);
}

static void test_atomic_implied_replay(void)
{
	run_atomic_implied(100);
	run_atomic_implied(0xfffffe);
}

/*
 * CMP_SWAP between two READs, each answered in PSN order (IBTA 9.5: the
 * responder executes requests in order), the ATOMIC ACK 2 us after the
 * request: three round trips, the atomic's from its ATOMIC ACK; the
 * ATOMIC ACK is not a READ response (no read latency, nothing lost on the
 * response stream although its PSN lies between the two READs' ranges).
 */
static void test_atomic_between_reads(void)
{
	struct t t;
	struct roce_summary s;
	struct flows fl;
	const struct roce_flow_stats *a2b;

	a_init(&t, 1024);
	REQUIRE(t.a && xa);
	rq(&t, ROCE_OP_RC_RDMA_READ_REQUEST, 0xfffffe, true, 0, 2048, 0);
	atomic(&t, ROCE_OP_RC_CMP_SWAP, 0, 1 * US);
	rq(&t, ROCE_OP_RC_RDMA_READ_REQUEST, 1, true, 0, 1024, 2 * US);
	rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_FIRST, 0xfffffe, 0x1f, 1024, 5 * US);
	rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_LAST, 0xffffff, 0x1f, 1024, 6 * US);
	atomic_ack(&t, 0, 7 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_ACK_RTT);
	CHECK_EQ_U(t.res.rtt_ns, 6 * US);
	rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_ONLY, 1, 0x1f, 1024, 9 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_ACK_RTT | ROCE_EV_READ_FIRST_RESP | ROCE_EV_READ_LAST_RESP);
	CHECK_EQ_U(t.res.rtt_ns, 7 * US);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.psn_gaps + s.duplicates + s.out_of_order + s.retransmissions, 0);
	CHECK_EQ_U(s.unrecovered_psns, 0);
	flows_get(&t, &fl);
	REQUIRE((a2b = req_flow(&fl)) != NULL);
	CHECK_EQ_U(a2b->rtt.count, 3);
	CHECK_EQ_U(a2b->rtt.min_ns, 5 * US);
	CHECK_EQ_U(a2b->rtt.max_ns, 7 * US);
	CHECK_EQ_U(a2b->read_first.count, 2);
	CHECK_EQ_U(a2b->read_last.count, 2);
	CHECK_EQ_U(a2b->read_last.max_ns, 7 * US);
	check_counters_add_up(&t, false);
	a_done(&t);
}

/*
 * ATOMIC WRITE and FLUSH (IBTA 1.5) are answered like a READ of no data:
 * rxe_resp.c acknowledge() sends an RDMA READ RESPONSE ONLY of length 0 at
 * the request's PSN for RXE_FLUSH_MASK | RXE_ATOMIC_WRITE_MASK
 * (send_read_response_ack()), and rxe_comp.c check_ack() completes an
 * ATOMIC_WRITE WQE on a READ response.  ATOMIC WRITE 50, FLUSH 51 and
 * SEND 52 (AckReq on each, rxe sets it on a message's last packet): three
 * round trips (2, 2 and 2 us), no READ latency (neither is a READ), the
 * zero-length responses in order on the response stream (no event), and
 * nothing lost or waiting.
 */
static void test_atomic_write_flush(void)
{
	struct t t;
	struct roce_summary s;
	struct roce_frame_spec sp;
	struct flows fl;
	const struct roce_flow_stats *a2b;

	a_init(&t, 1024);
	REQUIRE(t.a && xa);
	req_spec(&sp, ROCE_OP_RC_ATOMIC_WRITE, 50, true, 8, 8);
	xfeed(&t, &sp, 0);
	CHECK_EQ_U(t.status, ROCE_OK);
	req_spec(&sp, ROCE_OP_RC_FLUSH, 51, true, 0, 0);
	sp.feth = 1;
	xfeed(&t, &sp, 1 * US);
	CHECK_EQ_U(t.status, ROCE_OK);
	snd(&t, 52, 2 * US);
	rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_ONLY, 50, 0x1f, 0, 2 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_ACK_RTT);
	CHECK_EQ_U(t.res.rtt_ns, 2 * US);
	rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_ONLY, 51, 0x1f, 0, 3 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_ACK_RTT);
	CHECK_EQ_U(t.res.rtt_ns, 2 * US);
	ack(&t, 52, 4 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_ACK_RTT);
	CHECK_EQ_U(t.res.rtt_ns, 2 * US);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.psn_gaps + s.duplicates + s.out_of_order + s.unrecovered_psns, 0);
	flows_get(&t, &fl);
	REQUIRE((a2b = req_flow(&fl)) != NULL);
	CHECK_EQ_U(a2b->rtt.count, 3);
	CHECK_EQ_U(a2b->read_first.count + a2b->read_last.count, 0);
	CHECK_EQ_U(a2b->messages, 3);
	check_counters_add_up(&t, false);
	a_done(&t);
}

/* ------------------------------------------------------- implicit ACKs */

/*
 * A READ response acknowledges every request before the READ (IBTA
 * 9.7.5.1: responses are returned in order, so a READ response at PSN p
 * implicitly ACKs all requests before p; rxe_comp.c completes the earlier
 * SEND / WRITE WQEs on it).  SEND 10 and WRITE 11 with AckReq, READ 12, no
 * ACK frame at all: the READ's response times all three (10 us, 9 us,
 * 8 us); nothing is lost (10 and 11 are not READ PSNs) and nothing is
 * waiting at the end.
 */
static void test_read_response_acks_earlier(void)
{
	struct t t;
	struct roce_summary s;
	struct flows fl;
	const struct roce_flow_stats *a2b;

	a_init(&t, 1024);
	REQUIRE(t.a && xa);
	snd(&t, 10, 0);
	rq(&t, ROCE_OP_RC_RDMA_WRITE_ONLY, 11, true, 64, 64, 1 * US);
	rq(&t, ROCE_OP_RC_RDMA_READ_REQUEST, 12, true, 0, 512, 2 * US);
	rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_ONLY, 12, 0x1f, 512, 10 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_ACK_RTT | ROCE_EV_READ_FIRST_RESP | ROCE_EV_READ_LAST_RESP);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.psn_gaps + s.duplicates + s.out_of_order + s.unrecovered_psns, 0);
	flows_get(&t, &fl);
	REQUIRE((a2b = req_flow(&fl)) != NULL);
	CHECK_EQ_U(a2b->rtt.count, 3);
	CHECK_EQ_U(a2b->rtt.min_ns, 8 * US);
	CHECK_EQ_U(a2b->rtt.max_ns, 10 * US);
	CHECK_EQ_U(a2b->read_first.count, 1);
	check_counters_add_up(&t, false);
	a_done(&t);
}

/*
 * One ACK for 100 SENDs across the PSN wrap (0xffffce .. 0x000031; a
 * responder coalescing ACKs, IBTA 9.7.5.1.2: ACKs are cumulative): 100
 * round trips from 1 us to 100 us, the older ones beyond the 64 followed
 * one by one timed together (docs/json.md: count, min and max exact);
 * nothing lost or duplicated, none waiting.  A repeat of the ACK and an
 * older ACK across the wrap time nothing.
 */
static void test_ack_coalesced_wrap(void)
{
	struct t t;
	struct roce_summary s;
	struct flows fl;
	const struct roce_flow_stats *f;
	const uint32_t b = 0xffffce;

	a_init_nocopy(&t, 0);       /* ACKs repeated 1 us apart: no copies */
	REQUIRE(t.a && xa);
	for (uint32_t i = 0; i < 100; i++)
		snd(&t, (b + i) & 0xffffff, i * US);
	ack(&t, (b + 99) & 0xffffff, 100 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_ACK_RTT);
	CHECK_EQ_U(t.res.rtt_ns, 1 * US);
	ack(&t, (b + 99) & 0xffffff, 101 * US);
	CHECK_EQ_U(t.res.events, 0);
	ack(&t, 0xfffffe, 102 * US);
	CHECK_EQ_U(t.res.events, 0);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.psn_gaps + s.duplicates + s.out_of_order + s.unrecovered_psns, 0);
	CHECK_EQ_U(s.acks, 3);
	flows_get(&t, &fl);
	REQUIRE((f = req_flow(&fl)) != NULL);
	CHECK_EQ_U(f->rtt.count, 100);
	CHECK_EQ_U(f->rtt.min_ns, 1 * US);
	CHECK_EQ_U(f->rtt.max_ns, 100 * US);
	check_counters_add_up(&t, false);
	a_done(&t);
}

/* ----------------------------------------------------------------- RNR */

/*
 * An RNR NAK on the FIRST packet of a 3-packet SEND (no receive WQE posted:
 * rxe_resp.c get_srq_wqe()/check_resource() gives RESPST_ERR_RNR on the
 * first packet and the responder keeps expecting that PSN; the MIDDLE and
 * LAST behind it are dropped - here without a sequence-error NAK, as mlx5
 * does while the RNR is pending).  The requester waits the RNR timer and
 * resends the whole message (rxe_comp.c: rnr_nak_timer, then retry from
 * the RNR-NAKed PSN); it is RNR-NAKed again, resends again, then ACKed.
 * Expected: 2 RNR NAKs, 2 go-backs caused by them (one per resend run
 * after an RNR NAK), 6 retransmissions and duplicates, one message (a LAST
 * seen again is no new one), no round trip for the resent message (Karn),
 * one recovery when SEND 103 passes 102; then 103 is timed.  Also across
 * the PSN wrap.
 */
static void run_rnr_first(uint32_t b)
{
	struct t t;
	struct roce_summary s;
	struct flows fl;
	const struct roce_flow_stats *a2b;

	a_init(&t, 1024);
	REQUIRE(t.a && xa);
	for (int k = 0; k < 3; k++) {
		uint64_t t0 = (uint64_t)k * 100 * US;

		rq(&t, ROCE_OP_RC_SEND_FIRST, b, false, 1024, 0, t0);
		if (k)
			CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_DUPLICATE);
		rq(&t, ROCE_OP_RC_SEND_MIDDLE, b + 1, false, 1024, 0, t0 + 1 * US);
		rq(&t, ROCE_OP_RC_SEND_LAST, b + 2, true, 100, 0, t0 + 2 * US);
		if (k) {
			CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_DUPLICATE);
			CHECK_EQ_U(t.res.retx_cause, ROCE_RETX_RNR);
		} else {
			CHECK_EQ_U(t.res.events, 0);
		}
		if (k < 2) {
			nak(&t, b, 0x20 | 5, t0 + 5 * US);        /* RNR, 0.06 ms */
			CHECK_EQ_U(t.res.events, ROCE_EV_RNR_NAK);
		}
	}
	ack(&t, b + 2, 210 * US);
	CHECK_EQ_U(t.res.events, 0);
	snd(&t, b + 3, 220 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_GBN_RECOVERED);
	CHECK_EQ_U(t.res.recovery_ns, 215 * US);
	ack(&t, b + 3, 223 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_ACK_RTT);
	CHECK_EQ_U(t.res.rtt_ns, 3 * US);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.rnr_naks, 2);
	CHECK_EQ_U(s.naks, 2);
	CHECK_EQ_U(s.gbn_episodes[ROCE_RETX_RNR], 2);
	CHECK_EQ_U(s.gbn_episodes[ROCE_RETX_NAK] + s.gbn_episodes[ROCE_RETX_TIMEOUT], 0);
	CHECK_EQ_U(s.retransmissions, 6);
	CHECK_EQ_U(s.duplicates, 6);
	CHECK_EQ_U(s.psn_gaps + s.out_of_order + s.unrecovered_psns, 0);
	flows_get(&t, &fl);
	REQUIRE((a2b = req_flow(&fl)) != NULL);
	CHECK_EQ_U(a2b->messages, 2);
	CHECK_EQ_U(a2b->rtt.count, 1);
	CHECK_EQ_U(a2b->nak_response.count, 2);
	CHECK_EQ_U(a2b->recovery.count, 1);
	check_counters_add_up(&t, false);
	a_done(&t);
}

static void test_rnr_first_of_message(void)
{
	run_rnr_first(100);
	run_rnr_first(0xffffff);        /* FIRST 0xffffff, MIDDLE 0, LAST 1 */
}

/*
 * The RNR retry count runs out (rnr_retry 2: rxe_comp.c decrements
 * qp->comp.rnr_retry on each RNR NAK unless it is 7 and completes the WQE
 * with IB_WC_RNR_RETRY_EXC_ERR at 0, moving the QP to the error state): the
 * SEND is sent, RNR-NAKed, resent twice, RNR-NAKed each time, then nothing
 * more.  3 RNR NAKs, 2 go-backs and 2 retransmissions; nothing is lost or
 * unrecovered (100 was seen), no recovery (the episode never passed the
 * newest PSN), no round trip.
 */
static void test_rnr_retry_exhausted(void)
{
	struct t t;
	struct roce_summary s;
	struct flows fl;
	const struct roce_flow_stats *a2b;

	a_init(&t, 0);
	REQUIRE(t.a && xa);
	for (int k = 0; k < 3; k++) {
		snd(&t, 100, (uint64_t)k * 100 * US);
		nak(&t, 100, 0x20 | 5, ((uint64_t)k * 100 + 5) * US);
	}
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.rnr_naks, 3);
	CHECK_EQ_U(s.gbn_episodes[ROCE_RETX_RNR], 2);
	CHECK_EQ_U(s.retransmissions, 2);
	CHECK_EQ_U(s.duplicates, 2);
	CHECK_EQ_U(s.psn_gaps + s.out_of_order + s.unrecovered_psns, 0);
	flows_get(&t, &fl);
	REQUIRE((a2b = req_flow(&fl)) != NULL);
	CHECK_EQ_U(a2b->rtt.count, 0);
	CHECK_EQ_U(a2b->recovery.count, 0);
	CHECK_EQ_U(a2b->nak_response.count, 2);
	check_counters_add_up(&t, false);
	a_done(&t);
}

/* -------------------------------------------------- fatal NAK, QP reused */

/*
 * A fatal NAK ends the connection (IBTA 9.7.5.2: a remote access error,
 * invalid request or remote operational error NAK completes the WQE in
 * error and puts the requester's QP in the error state; rxe_comp.c:
 * COMPST_ERROR -> rxe_qp_error(); the responder too, rxe_resp.c
 * do_class_ac_error() sets goto_error).  Nothing of that connection follows
 * but requests already in flight, which continue its PSN sequence in order.
 * The application then resets the QP (or rdma_cm hands the same QP number
 * to a new connection) with a new random first PSN, which lies within a
 * quarter of the PSN space of the old one half of the time: ahead of it
 * (here 5000 after 102) it is no loss of 4897 PSNs, behind it (here 50) no
 * duplicate and no timeout go-back.  The new connection's READ responses
 * are measured from its own READ (no out_of_order, no gap).
 */
static void run_fatal_then_new(uint32_t n, uint8_t code)
{
	struct t t;
	struct roce_summary s;
	struct flows fl;
	const struct roce_flow_stats *a2b, *b2a;

	a_init(&t, 1024);
	REQUIRE(t.a && xa);
	snd(&t, 100, 0);
	rq(&t, ROCE_OP_RC_RDMA_WRITE_ONLY, 101, true, 64, 64, 1 * US);
	snd(&t, 102, 2 * US);
	ack(&t, 100, 5 * US);
	nak(&t, 101, code, 6 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_NAK);
	/* the new connection */
	snd(&t, n, 1000 * US);
	CHECK_EQ_U(t.res.events, 0);
	rq(&t, ROCE_OP_RC_RDMA_READ_REQUEST, n + 1, true, 0, 2048, 1001 * US);
	CHECK_EQ_U(t.res.events, 0);
	ack(&t, n, 1004 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_ACK_RTT);
	CHECK_EQ_U(t.res.rtt_ns, 4 * US);
	rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_FIRST, n + 1, 0x1f, 1024, 1005 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_ACK_RTT | ROCE_EV_READ_FIRST_RESP);
	rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_LAST, n + 2, 0x1f, 1024, 1006 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_READ_LAST_RESP);
	snd(&t, n + 3, 1007 * US);
	CHECK_EQ_U(t.res.events, 0);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.psn_gaps + s.lost_psns + s.unrecovered_psns, 0);
	CHECK_EQ_U(s.duplicates + s.out_of_order + s.retransmissions, 0);
	CHECK_EQ_U(s.gbn_episodes[ROCE_RETX_TIMEOUT] + s.gbn_episodes[ROCE_RETX_NAK], 0);
	CHECK_EQ_U(s.naks, 1);
	flows_get(&t, &fl);
	REQUIRE((a2b = req_flow(&fl)) != NULL);
	REQUIRE((b2a = resp_flow(&fl)) != NULL);
	CHECK_EQ_U(a2b->rtt.count, 3);          /* 100; n, READ n+1 */
	CHECK_EQ_U(a2b->read_first.count, 1);
	CHECK_EQ_U(a2b->read_last.count, 1);
	CHECK_EQ_U(a2b->read_last.max_ns, 5 * US);
	CHECK_EQ_U(b2a->psn_gaps + b2a->duplicates + b2a->out_of_order, 0);
	check_counters_add_up(&t, false);
	a_done(&t);
}

static void test_fatal_nak_new_connection(void)
{
	run_fatal_then_new(5000, 0x62);         /* ahead, remote access error */
	run_fatal_then_new(50, 0x61);           /* behind, invalid request */
	run_fatal_then_new(0xfff000, 0x63);     /* behind across the wrap, remote op. error */
}

/*
 * Requests in flight behind a fatal NAK continue the old sequence in order
 * (a capture near the responder sees them after the NAK; the responder in
 * the error state drops them): 102 and 103 after the NAK of 101 are in
 * order, no event.  A request after them that jumps is the new connection;
 * inside it a jump is a gap again and a resend a go-back as ever.  A
 * responder that answers again after its fatal NAK (an ACK: the connection
 * was not torn down) puts the stream back under the usual rules: a jump
 * after that ACK is a gap.
 */
static void test_fatal_nak_in_flight(void)
{
	struct t t;
	struct roce_summary s;

	a_init(&t, 0);
	REQUIRE(t.a && xa);
	snd(&t, 100, 0);
	snd(&t, 101, 1 * US);
	nak(&t, 101, 0x62, 2 * US);
	snd(&t, 102, 3 * US);
	CHECK_EQ_U(t.res.events, 0);
	snd(&t, 103, 4 * US);
	CHECK_EQ_U(t.res.events, 0);
	snd(&t, 200000, 1000 * US);
	CHECK_EQ_U(t.res.events, 0);
	snd(&t, 200001, 1001 * US);
	CHECK_EQ_U(t.res.events, 0);
	snd(&t, 200003, 1002 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_PSN_GAP);
	snd(&t, 200002, 2000 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_OUT_OF_ORDER);  /* late: no NAK, no run */
	snd(&t, 200001, 3000 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_DUPLICATE);
	CHECK_EQ_U(t.res.retx_cause, ROCE_RETX_TIMEOUT);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.psn_gaps, 1);
	CHECK_EQ_U(s.lost_psns, 1);
	CHECK_EQ_U(s.unrecovered_psns, 0);
	CHECK_EQ_U(s.out_of_order, 1);
	CHECK_EQ_U(s.duplicates, 1);
	CHECK_EQ_U(s.retransmissions, 1);
	check_counters_add_up(&t, false);
	a_done(&t);

	/* the fatal NAK not obeyed: an ACK after it, then a jump is a loss */
	a_init(&t, 0);
	REQUIRE(t.a && xa);
	snd(&t, 100, 0);
	snd(&t, 101, 1 * US);
	nak(&t, 101, 0x62, 2 * US);
	snd(&t, 102, 3 * US);
	ack(&t, 102, 4 * US);
	snd(&t, 110, 5 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_PSN_GAP);
	CHECK_EQ_U(t.res.lost_psns, 7);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.unrecovered_psns, 7);
	check_counters_add_up(&t, false);
	a_done(&t);
}

/* ----------------------------------- immediate, invalidate, zero length */

/*
 * SEND_FIRST 200 + SEND_LAST_WITH_INVALIDATE 201 (ACKed), WRITE_FIRST 202 +
 * WRITE_LAST_WITH_IMMEDIATE 203 (lost before the capture point), a
 * zero-length WRITE_ONLY 204 (IBTA 9.4.3: a WRITE of length 0 is one packet
 * without payload; it still takes a PSN and asks for its ACK).  The
 * responder NAKs 203; the requester restarts the WRITE from its FIRST 202
 * (rxe retries from the first unacknowledged packet's WQE start): 202 and
 * 204 are duplicates, 203 fills the gap, all three retransmissions of one
 * go-back caused by the NAK; SEND_ONLY_WITH_INVALIDATE 205 ends it.  The
 * immediate / invalidate headers change nothing: 4 messages (201, 203 once,
 * 204, 205); round trips of 201 and 205 only (204 was resent before any ACK
 * covered it: untimed, Karn).
 */
static void test_imm_inval_zero_gbn(void)
{
	struct t t;
	struct roce_summary s;
	struct roce_frame_spec sp;
	struct flows fl;
	const struct roce_flow_stats *a2b;

	a_init(&t, 1024);
	REQUIRE(t.a && xa);
	rq(&t, ROCE_OP_RC_SEND_FIRST, 200, false, 1024, 0, 0);
	req_spec(&sp, ROCE_OP_RC_SEND_LAST_WITH_INVALIDATE, 201, true, 100, 0);
	sp.ieth_rkey = 0xabcd;
	xfeed(&t, &sp, 1 * US);
	CHECK_EQ_U(t.status, ROCE_OK);
	rq(&t, ROCE_OP_RC_RDMA_WRITE_FIRST, 202, false, 1024, 1124, 2 * US);
	ack(&t, 201, 3 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_ACK_RTT);
	CHECK_EQ_U(t.res.rtt_ns, 2 * US);
	rq(&t, ROCE_OP_RC_RDMA_WRITE_ONLY, 204, true, 0, 0, 4 * US);
	CHECK_EQ_U(t.status, ROCE_OK);
	CHECK_EQ_U(t.res.events, ROCE_EV_PSN_GAP);
	CHECK_EQ_U(t.res.lost_psns, 1);
	nak(&t, 203, 0x60, 6 * US);
	rq(&t, ROCE_OP_RC_RDMA_WRITE_FIRST, 202, false, 1024, 1124, 10 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_DUPLICATE);
	CHECK_EQ_U(t.res.retx_cause, ROCE_RETX_NAK);
	req_spec(&sp, ROCE_OP_RC_RDMA_WRITE_LAST_WITH_IMMEDIATE, 203, true, 100, 0);
	sp.immdt = 0x5a5a;
	xfeed(&t, &sp, 11 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_OUT_OF_ORDER);
	rq(&t, ROCE_OP_RC_RDMA_WRITE_ONLY, 204, true, 0, 0, 12 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_DUPLICATE);
	req_spec(&sp, ROCE_OP_RC_SEND_ONLY_WITH_INVALIDATE, 205, true, 8, 0);
	sp.ieth_rkey = 0xabce;
	xfeed(&t, &sp, 13 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_GBN_RECOVERED);
	ack(&t, 205, 15 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_ACK_RTT);
	CHECK_EQ_U(t.res.rtt_ns, 2 * US);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.psn_gaps, 1);
	CHECK_EQ_U(s.lost_psns, 1);
	CHECK_EQ_U(s.unrecovered_psns, 0);
	CHECK_EQ_U(s.out_of_order, 1);
	CHECK_EQ_U(s.duplicates, 2);
	CHECK_EQ_U(s.retransmissions, 3);
	CHECK_EQ_U(s.gbn_episodes[ROCE_RETX_NAK], 1);
	flows_get(&t, &fl);
	REQUIRE((a2b = req_flow(&fl)) != NULL);
	CHECK_EQ_U(a2b->messages, 4);
	CHECK_EQ_U(a2b->rtt.count, 2);
	CHECK_EQ_U(a2b->nak_response.count, 1);
	CHECK_EQ_U(a2b->nak_response.max_ns, 4 * US);
	check_counters_add_up(&t, false);
	a_done(&t);
}

/* ------------------------------------------------- READ re-issued early */

/*
 * A READ of 4 packets (b..b+3) answered slowly: after b and b+1 the
 * requester's timer fires and it re-issues the READ from the first missing
 * response (IBTA 9.7: the retried READ is a subset of the original,
 * PSN b+2, VA advanced, length 2048).  The original's b+2 and b+3 were
 * still in flight and arrive first (in order: no event; the last response
 * times the original READ), then the re-executed b+2, b+3 (rxe_resp.c
 * re-executes a duplicate READ from its PSN): duplicates.  The re-issued
 * READ is a duplicate and a timeout retransmission on the request stream,
 * the READ's latency is the original's (read_last 9 us), nothing is lost.
 * The same with the whole READ re-issued (a requester that retries the
 * WQE from its start: the whole range is a subset too, IBTA 9.7): 4
 * duplicate responses.
 */
static void run_read_overlap(uint32_t b, bool whole)
{
	struct t t;
	struct roce_summary s;
	struct flows fl;
	const struct roce_flow_stats *a2b, *b2a;

	a_init(&t, 1024);
	REQUIRE(t.a && xa);
	rq(&t, ROCE_OP_RC_RDMA_READ_REQUEST, b, true, 0, 4096, 0);
	rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_FIRST, b, 0x1f, 1024, 5 * US);
	rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE, b + 1, 0x1f, 1024, 6 * US);
	if (whole)
		rq(&t, ROCE_OP_RC_RDMA_READ_REQUEST, b, true, 0, 4096, 7 * US);
	else
		rq(&t, ROCE_OP_RC_RDMA_READ_REQUEST, b + 2, true, 0, 2048, 7 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_DUPLICATE);
	CHECK_EQ_U(t.res.retx_cause, ROCE_RETX_TIMEOUT);
	rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE, b + 2, 0x1f, 1024, 8 * US);
	CHECK_EQ_U(t.res.events, 0);
	rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_LAST, b + 3, 0x1f, 1024, 9 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_READ_LAST_RESP);
	CHECK_EQ_U(t.res.read_ns, 9 * US);
	if (whole) {
		rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_FIRST, b, 0x1f, 1024, 10 * US);
		CHECK_EQ_U(t.res.events, ROCE_EV_DUPLICATE);
		rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE, b + 1, 0x1f, 1024, 10 * US);
		CHECK_EQ_U(t.res.events, ROCE_EV_DUPLICATE);
		rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE, b + 2, 0x1f, 1024, 10 * US);
	} else {
		rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_FIRST, b + 2, 0x1f, 1024, 10 * US);
	}
	CHECK_EQ_U(t.res.events, ROCE_EV_DUPLICATE);
	rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_LAST, b + 3, 0x1f, 1024, 11 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_DUPLICATE);
	snd(&t, b + 4, 12 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_GBN_RECOVERED);
	ack(&t, b + 4, 14 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_ACK_RTT);
	CHECK_EQ_U(t.res.rtt_ns, 2 * US);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.psn_gaps + s.lost_psns + s.out_of_order + s.unrecovered_psns, 0);
	CHECK_EQ_U(s.duplicates, whole ? 5 : 3);
	CHECK_EQ_U(s.retransmissions, 1);
	CHECK_EQ_U(s.gbn_episodes[ROCE_RETX_TIMEOUT], 1);
	flows_get(&t, &fl);
	REQUIRE((a2b = req_flow(&fl)) != NULL);
	REQUIRE((b2a = resp_flow(&fl)) != NULL);
	CHECK_EQ_U(b2a->duplicates, whole ? 4 : 2);
	CHECK_EQ_U(a2b->read_first.count, 1);
	CHECK_EQ_U(a2b->read_last.count, 1);
	CHECK_EQ_U(a2b->rtt.count, 2);          /* READ b (5 us), SEND b+4 */
	CHECK_EQ_U(a2b->rtt.max_ns, 5 * US);
	check_counters_add_up(&t, false);
	a_done(&t);
}

static void test_read_reissued_overlap(void)
{
	run_read_overlap(300, false);
	run_read_overlap(0xfffffe, false);
	run_read_overlap(300, true);
	run_read_overlap(0xfffffe, true);
}

/*
 * The request of READ 11 (2 packets) is missing from the capture (a mirror
 * that dropped it; the responder got it: its responses come), between
 * READ 10 and READ 13 that were captured.  The request stream sees a jump
 * 10 -> 13: one gap of 2 PSNs; READ 11's responses acknowledge them, so they
 * are ACKed unseen, not unrecovered (docs/json.md; the acked_unseen event on
 * each of the two).  The response stream carries 10..13 in order: no other
 * event; the responses of the unknown READ time nothing (no READ latency, and
 * READ 10 was timed by its own response already), READ 13's response times
 * READ 13.
 */
static void test_read_request_not_captured(void)
{
	struct t t;
	struct roce_summary s;
	struct flows fl;
	const struct roce_flow_stats *a2b, *b2a;

	a_init(&t, 1024);
	REQUIRE(t.a && xa);
	rq(&t, ROCE_OP_RC_RDMA_READ_REQUEST, 10, true, 0, 512, 0);
	rq(&t, ROCE_OP_RC_RDMA_READ_REQUEST, 13, true, 0, 512, 2 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_PSN_GAP);
	CHECK_EQ_U(t.res.lost_psns, 2);
	rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_ONLY, 10, 0x1f, 512, 5 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_ACK_RTT | ROCE_EV_READ_FIRST_RESP |
		ROCE_EV_READ_LAST_RESP);
	/* each response takes its request PSN out of the hole: the acked_unseen event */
	rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_FIRST, 11, 0x1f, 1024, 6 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_ACKED_UNSEEN);
	CHECK_EQ_U(t.res.acked_unseen_psns, 1);
	rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_LAST, 12, 0x1f, 1024, 7 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_ACKED_UNSEEN);
	CHECK_EQ_U(t.res.acked_unseen_psns, 1);
	rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_ONLY, 13, 0x1f, 512, 8 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_ACK_RTT | ROCE_EV_READ_FIRST_RESP |
		ROCE_EV_READ_LAST_RESP);
	CHECK_EQ_U(t.res.rtt_ns, 6 * US);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.psn_gaps, 1);
	CHECK_EQ_U(s.lost_psns, 2);
	CHECK_EQ_U(s.unrecovered_psns, 0);
	CHECK_EQ_U(s.acked_unseen_psns, 2);
	CHECK_EQ_U(s.duplicates + s.out_of_order + s.retransmissions, 0);
	flows_get(&t, &fl);
	REQUIRE((a2b = req_flow(&fl)) != NULL);
	REQUIRE((b2a = resp_flow(&fl)) != NULL);
	CHECK_EQ_U(b2a->psn_gaps + b2a->duplicates + b2a->out_of_order, 0);
	CHECK_EQ_U(a2b->rtt.count, 2);
	CHECK_EQ_U(a2b->read_first.count, 2);
	CHECK_EQ_U(a2b->read_last.count, 2);
	check_counters_add_up(&t, false);
	a_done(&t);
}

/* ------------------------------------------------------------ eviction */

/* A frame of another stream (A -> B's QP 0x44) to push the table. */
static void other(struct t *t, uint32_t psn, uint64_t ts)
{
	struct roce_frame_spec s;

	req_spec(&s, ROCE_OP_RC_SEND_ONLY, psn, false, 16, 0);
	s.bth.dqpn = 0x44;
	xfeed(t, &s, ts);
}

/*
 * --max-flows 2 and a READ of 4 packets: its first two responses arrive,
 * then a third stream evicts the request stream (the least recently
 * active), then the last two responses.  The READ went with the evicted
 * stream: the responses continue the response stream's sequence in order
 * (no gap, no duplicate), and time nothing (no READ latency and no round
 * trip from a READ the analyzer no longer has).  The request stream comes
 * back with SEND b+4, which is its first frame again (no gap), and its ACK
 * times it: one round trip in the new row.  One eviction is counted, two
 * with the third stream pushed out by the request stream's return.
 */
static void test_request_stream_evicted(void)
{
	struct roce_analyzer_config cfg;
	struct t t;
	struct roce_summary s;
	struct flows fl;
	const struct roce_flow_stats *a2b, *b2a;
	const uint32_t b = 0xfffffe;

	roce_analyzer_config_init(&cfg);
	cfg.pmtu = 1024;
	cfg.max_flows = 2;
	a_init_cfg(&t, &cfg);
	REQUIRE(t.a && xa);
	rq(&t, ROCE_OP_RC_RDMA_READ_REQUEST, b, true, 0, 4096, 0);
	rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_FIRST, b, 0x1f, 1024, 5 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_ACK_RTT | ROCE_EV_READ_FIRST_RESP);
	rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE, b + 1, 0x1f, 1024, 6 * US);
	other(&t, 7, 7 * US);
	sum(&t, &s);
	CHECK_EQ_U(s.evicted_flows, 1);
	rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE, b + 2, 0x1f, 1024, 8 * US);
	CHECK_EQ_U(t.res.events, 0);
	rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_LAST, b + 3, 0x1f, 1024, 9 * US);
	CHECK_EQ_U(t.res.events, 0);
	snd(&t, b + 4, 20 * US);
	CHECK_EQ_U(t.res.events, 0);
	ack(&t, b + 4, 23 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_ACK_RTT);
	CHECK_EQ_U(t.res.rtt_ns, 3 * US);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.evicted_flows, 2);
	CHECK_EQ_U(s.psn_gaps + s.lost_psns + s.unrecovered_psns, 0);
	CHECK_EQ_U(s.duplicates + s.out_of_order + s.retransmissions, 0);
	flows_get(&t, &fl);
	REQUIRE((a2b = req_flow(&fl)) != NULL);
	REQUIRE((b2a = resp_flow(&fl)) != NULL);
	CHECK_EQ_U(a2b->rtt.count, 1);
	CHECK_EQ_U(a2b->read_last.count, 0);
	CHECK_EQ_U(b2a->psn_gaps + b2a->duplicates + b2a->out_of_order, 0);
	a_done(&t);
}

int main(void)
{
	RUN(test_atomic_implied_replay);
	RUN(test_atomic_between_reads);
	RUN(test_atomic_write_flush);
	RUN(test_read_response_acks_earlier);
	RUN(test_ack_coalesced_wrap);
	RUN(test_rnr_first_of_message);
	RUN(test_rnr_retry_exhausted);
	RUN(test_fatal_nak_new_connection);
	RUN(test_fatal_nak_in_flight);
	RUN(test_imm_inval_zero_gbn);
	RUN(test_read_reissued_overlap);
	RUN(test_read_request_not_captured);
	RUN(test_request_stream_evicted);
	return check_report();
}
