// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_analyzer_audit.c - an audit of the analyzer's request state machine on
 * protocol situations the other analyzer tests leave out, each expected value
 * stated with its reason (IBTA Vol. 1 ch. 9, what Linux rxe's requester and
 * responder do, and docs/json.md's definitions): go-back-N, duplicates and READ
 * ranges across the 24-bit PSN wrap; ACKs coalescing many requests; RNR NAK
 * with requests in flight behind it; the NAK classes; a READ re-executed whole
 * and restarted from its middle, also inside a go-back-N run; READs and
 * atomics outstanding together.
 * test_analyzer_audit_events.c has the rest of the audit; an_audit.h runs every
 * frame through roce-analyze's entry too and compares the two analyzers.
 */
#include "an_audit.h"

/* ---------------------------------------------------------- PSN wraparound */

/*
 * A gap, its NAK, the go-back-N that repairs it and a later duplicate, all
 * across 2^24 (PSN arithmetic modulo 2^24, rxe's psn_compare()): 0xffffff is
 * lost; the responder NAKs it (PSN sequence error names the first missing
 * PSN); the requester goes back to it (retransmission of the NAK, an
 * out-of-order fill), resends 0 and 1 (duplicates) and recovers at 2.  A
 * later resend of 0 with no NAK pending is a timeout's go-back.
 */
static void test_wrap_gbn(void)
{
	struct t t;
	struct roce_summary s;
	struct flows fl;
	const struct roce_flow_stats *rq_f;
	uint64_t nak_frame;

	a_init(&t, 0);
	REQUIRE(t.a && xa);
	snd(&t, 0xfffffd, 0);
	snd(&t, 0xfffffe, 1 * US);
	snd(&t, 0, 2 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_PSN_GAP);
	CHECK_EQ_U(t.res.expected_psn, 0xffffff);
	CHECK_EQ_U(t.res.lost_psns, 1);
	snd(&t, 1, 3 * US);
	CHECK_EQ_U(t.res.events, 0);
	nak(&t, 0xffffff, 0x60, 4 * US);
	nak_frame = t.frame;
	CHECK_EQ_U(t.res.events, ROCE_EV_NAK);
	snd(&t, 0xffffff, 10 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_OUT_OF_ORDER);
	CHECK_EQ_U(t.res.retx_cause, ROCE_RETX_NAK);
	CHECK_EQ_U(t.res.ref_frame, nak_frame);
	CHECK_EQ_U(t.res.expected_psn, 2);
	snd(&t, 0, 11 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_DUPLICATE);
	snd(&t, 1, 12 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_DUPLICATE);
	snd(&t, 2, 13 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_GBN_RECOVERED);
	CHECK_EQ_U(t.res.recovery_ns, 9 * US);
	/* the ACK of 2: the resends were not timed (Karn), 2 was */
	ack(&t, 2, 14 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_ACK_RTT);
	CHECK_EQ_U(t.res.rtt_ns, 1 * US);
	/* 0 again, nothing pending: a timeout's go-back across the wrap */
	snd(&t, 0, 5000 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_DUPLICATE);
	CHECK_EQ_U(t.res.retx_cause, ROCE_RETX_TIMEOUT);
	CHECK_EQ_U(t.res.expected_psn, 3);
	snd(&t, 1, 5001 * US);
	snd(&t, 2, 5002 * US);
	snd(&t, 3, 5003 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_GBN_RECOVERED);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.psn_gaps, 1);
	CHECK_EQ_U(s.lost_psns, 1);
	CHECK_EQ_U(s.out_of_order, 1);
	CHECK_EQ_U(s.duplicates, 5);
	CHECK_EQ_U(s.retransmissions, 6);
	CHECK_EQ_U(s.gbn_episodes[ROCE_RETX_NAK], 1);
	CHECK_EQ_U(s.gbn_episodes[ROCE_RETX_TIMEOUT], 1);
	CHECK_EQ_U(s.unrecovered_psns, 0);
	CHECK_EQ_U(s.naks, 1);
	CHECK_EQ_U(s.nak_codes[ROCE_NAK_PSN_SEQ_ERR], 1);
	flows_get(&t, &fl);
	REQUIRE((rq_f = req_flow(&fl)) != NULL);
	CHECK_EQ_U(rq_f->first_psn, 0xfffffd);
	CHECK_EQ_U(rq_f->last_psn, 3);
	CHECK_EQ_U(rq_f->rtt.count, 1);
	CHECK_EQ_U(rq_f->recovery.count, 2);
	check_counters_add_up(&t, false);
	a_done(&t);
}

/*
 * A READ whose PSN range spans the wrap (0xfffffe, N = 4 at PMTU 1024:
 * 0xfffffe..1; the next request is 2, no gap), its response 0 lost (the
 * response stream passes a PSN of the READ's range: one gap), and the
 * requester's retry from the first missing response (IBTA 9.7: READ at 0
 * for the rest, 2048 bytes; rxe resends the SEND behind it too): a duplicate
 * and a retransmission on the request stream; its responses 0 (fills the
 * gap) and 1 (a duplicate) on the response stream.
 */
static void test_wrap_read(void)
{
	struct t t;
	struct roce_summary s;
	struct flows fl;
	const struct roce_flow_stats *a2b, *b2a;

	a_init(&t, 1024);
	REQUIRE(t.a && xa);
	rq(&t, ROCE_OP_RC_RDMA_READ_REQUEST, 0xfffffe, true, 0, 4096, 0);
	snd(&t, 2, 1 * US);
	CHECK_EQ_U(t.res.events, 0);
	rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_FIRST, 0xfffffe, 0x1f, 1024, 5 * US);
	CHECK(t.res.events & ROCE_EV_READ_FIRST_RESP);
	CHECK_EQ_U(t.res.read_ns, 5 * US);
	rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE, 0xffffff, 0, 1024, 6 * US);
	CHECK_EQ_U(t.res.events, 0);
	rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_LAST, 1, 0x1f, 1024, 8 * US);
	CHECK(t.res.events & ROCE_EV_PSN_GAP);
	CHECK(t.res.events & ROCE_EV_READ_LAST_RESP);
	CHECK_EQ_U(t.res.expected_psn, 0);
	CHECK_EQ_U(t.res.lost_psns, 1);
	ack(&t, 2, 9 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_ACK_RTT);
	/* the retry (a subset of the original READ, answered with its PSNs) */
	rq(&t, ROCE_OP_RC_RDMA_READ_REQUEST, 0, true, 0, 2048, 100 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_DUPLICATE);
	CHECK_EQ_U(t.res.retx_cause, ROCE_RETX_TIMEOUT);
	CHECK_EQ_U(t.res.expected_psn, 3);
	snd(&t, 2, 101 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_DUPLICATE);
	rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE, 0, 0, 1024, 105 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_OUT_OF_ORDER);
	CHECK_EQ_U(t.res.expected_psn, 3);
	rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_LAST, 1, 0x1f, 1024, 106 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_DUPLICATE);
	ack(&t, 2, 107 * US);
	CHECK_EQ_U(t.res.events, 0);
	snd(&t, 3, 108 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_GBN_RECOVERED);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.psn_gaps, 1);
	CHECK_EQ_U(s.lost_psns, 1);
	CHECK_EQ_U(s.unrecovered_psns, 0);
	CHECK_EQ_U(s.out_of_order, 1);
	CHECK_EQ_U(s.duplicates, 3);
	CHECK_EQ_U(s.retransmissions, 2);
	CHECK_EQ_U(s.gbn_episodes[ROCE_RETX_TIMEOUT], 1);
	flows_get(&t, &fl);
	REQUIRE((a2b = req_flow(&fl)) != NULL);
	REQUIRE((b2a = resp_flow(&fl)) != NULL);
	CHECK_EQ_U(a2b->psn_gaps + a2b->out_of_order, 0);
	CHECK_EQ_U(a2b->duplicates, 2);
	CHECK_EQ_U(b2a->psn_gaps, 1);
	CHECK_EQ_U(b2a->out_of_order, 1);
	CHECK_EQ_U(b2a->duplicates, 1);
	CHECK_EQ_U(a2b->read_first.count, 1);
	CHECK_EQ_U(a2b->read_last.count, 1);
	CHECK_EQ_U(a2b->read_last.max_ns, 8 * US);
	CHECK_EQ_U(a2b->messages, 2 + 1);      /* READ, SEND; SEND 3 (the retry is no message) */
	check_counters_add_up(&t, false);
	a_done(&t);
}

/* ------------------------------------------------------------ ACKs and NAKs */

/*
 * One ACK acknowledges every request up to its PSN (IBTA 9.7.5.1.2: ACKs are
 * cumulative; rxe sets AckReq on a message's last packet).  Three 3-packet
 * WRITEs with AckReq on the LAST only, one ACK for the newest: three round
 * trips, each from its own LAST; the FIRST/MIDDLE packets asked for nothing.
 * A duplicate of that ACK and an older ACK (rxe re-ACKs a duplicate request
 * with its newest PSN) time nothing and are no duplicates.
 */
static void test_ack_coalesced_messages(void)
{
	struct t t;
	struct roce_summary s;
	struct flows fl;
	const struct roce_flow_stats *f;

	a_init_nocopy(&t, 1024);    /* ACKs repeated 1 us apart: no copies */
	REQUIRE(t.a && xa);
	for (uint32_t m = 0; m < 3; m++) {
		uint32_t p = 100 + 3 * m;

		rq(&t, ROCE_OP_RC_RDMA_WRITE_FIRST, p, false, 1024, 3000, (10 * m) * US);
		rq(&t, ROCE_OP_RC_RDMA_WRITE_MIDDLE, p + 1, false, 1024, 0, (10 * m + 1) * US);
		rq(&t, ROCE_OP_RC_RDMA_WRITE_LAST, p + 2, true, 952, 0, (10 * m + 2) * US);
	}
	ack(&t, 108, 50 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_ACK_RTT);
	CHECK_EQ_U(t.res.rtt_ns, 28 * US);      /* the newest acknowledged: frame 9 */
	CHECK_EQ_U(t.res.ref_frame, 9);
	ack(&t, 108, 51 * US);
	CHECK_EQ_U(t.res.events, 0);
	ack(&t, 105, 52 * US);
	CHECK_EQ_U(t.res.events, 0);
	sum(&t, &s);
	CHECK_EQ_U(s.acks, 3);
	CHECK_EQ_U(s.duplicates + s.out_of_order + s.psn_gaps, 0);
	flows_get(&t, &fl);
	REQUIRE((f = req_flow(&fl)) != NULL);
	CHECK_EQ_U(f->rtt.count, 3);
	CHECK_EQ_U(f->rtt.min_ns, 28 * US);
	CHECK_EQ_U(f->rtt.max_ns, 48 * US);
	CHECK_EQ_U(f->messages, 3);
	CHECK_EQ_U(f->payload_bytes, 3 * 3000);
	check_counters_add_up(&t, false);
	a_done(&t);
}

/*
 * 100 SENDs each asking for an ACK, then one ACK for them all (a responder
 * coalescing ACKs, as mlx5 does under load): docs/json.md's rtt_us is
 * "request (AckReq) to first ACK covering it", one sample per AckReq
 * request, so 100 samples from 1 us (the newest) to 100 us (the oldest).
 * The analyzer follows 64 outstanding requests one by one and the older ones
 * together: count, min and max stay exact.  The same with an ACK in the
 * middle (PSN 1049: the 50 oldest), then one for the rest; and with a NAK in
 * the middle (it answers the older ones without a round trip) and the
 * go-back that resends the rest (Karn: not timed).
 */
static void test_ack_coalesced_many(void)
{
	struct t t;
	struct roce_summary s;
	struct flows fl;
	const struct roce_flow_stats *f;

	a_init(&t, 0);
	REQUIRE(t.a && xa);
	for (uint32_t i = 0; i < 100; i++)
		snd(&t, 1000 + i, i * US);
	ack(&t, 1099, 100 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_ACK_RTT);
	CHECK_EQ_U(t.res.rtt_ns, 1 * US);
	CHECK_EQ_U(t.res.ref_frame, 100);
	flows_get(&t, &fl);
	REQUIRE((f = req_flow(&fl)) != NULL);
	CHECK_EQ_U(f->rtt.count, 100);
	CHECK_EQ_U(f->rtt.min_ns, 1 * US);
	CHECK_EQ_U(f->rtt.max_ns, 100 * US);
	CHECK(f->rtt.p50_ns >= 49 * US && f->rtt.p50_ns <= 52 * US);
	a_done(&t);

	/* an ACK of the 50 oldest, then of the rest */
	a_init(&t, 0);
	REQUIRE(t.a && xa);
	for (uint32_t i = 0; i < 100; i++)
		snd(&t, 1000 + i, i * US);
	ack(&t, 1049, 100 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_ACK_RTT);
	CHECK_EQ_U(t.res.rtt_ns, 51 * US);
	CHECK_EQ_U(t.res.ref_frame, 50);
	flows_get(&t, &fl);
	REQUIRE((f = req_flow(&fl)) != NULL);
	CHECK_EQ_U(f->rtt.count, 50);
	CHECK_EQ_U(f->rtt.min_ns, 51 * US);
	CHECK_EQ_U(f->rtt.max_ns, 100 * US);
	ack(&t, 1099, 110 * US);
	CHECK_EQ_U(t.res.rtt_ns, 11 * US);
	flows_get(&t, &fl);
	REQUIRE((f = req_flow(&fl)) != NULL);
	CHECK_EQ_U(f->rtt.count, 100);
	CHECK_EQ_U(f->rtt.min_ns, 11 * US);
	a_done(&t);

	/* a NAK at 1050: the 50 before it answered (no samples); the resends untimed */
	a_init(&t, 0);
	REQUIRE(t.a && xa);
	for (uint32_t i = 0; i < 100; i++)
		snd(&t, 1000 + i, i * US);
	nak(&t, 1050, 0x60, 100 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_NAK);
	for (uint32_t i = 50; i < 100; i++)
		snd(&t, 1000 + i, (100 + i) * US);
	snd(&t, 1100, 300 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_GBN_RECOVERED);
	ack(&t, 1100, 305 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_ACK_RTT);
	CHECK_EQ_U(t.res.rtt_ns, 5 * US);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.retransmissions, 50);
	CHECK_EQ_U(s.gbn_episodes[ROCE_RETX_NAK], 1);
	flows_get(&t, &fl);
	REQUIRE((f = req_flow(&fl)) != NULL);
	CHECK_EQ_U(f->rtt.count, 1);
	CHECK_EQ_U(f->rtt.max_ns, 5 * US);
	a_done(&t);
}

/*
 * RNR NAK with requests in flight behind it (rxe: the responder RNR-NAKs 100
 * with PSN 100 and keeps expecting 100, so 101 draws one PSN sequence error
 * NAK naming 100 and 102 is dropped silently).  The requester waits the RNR
 * timer (code 14: 1.28 ms) and goes back to 100: one go-back whose cause is
 * the older pending NAK, the RNR NAK (docs/json.md); both NAKs are answered
 * by it; nak_response runs from the RNR NAK.
 */
static void test_rnr_in_flight(void)
{
	struct t t;
	struct roce_summary s;
	struct flows fl;
	const struct roce_flow_stats *f;
	uint64_t rnr_frame;

	a_init(&t, 0);
	REQUIRE(t.a && xa);
	snd(&t, 100, 0);
	snd(&t, 101, 1 * US);
	snd(&t, 102, 2 * US);
	nak(&t, 100, 0x20 | 14, 5 * US);
	rnr_frame = t.frame;
	CHECK_EQ_U(t.res.events, ROCE_EV_RNR_NAK);
	nak(&t, 100, 0x60, 6 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_NAK);
	snd(&t, 100, 1300 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_DUPLICATE);
	CHECK_EQ_U(t.res.retx_cause, ROCE_RETX_RNR);
	CHECK_EQ_U(t.res.ref_frame, rnr_frame);
	CHECK(strstr(t.last_an[ROCE_AN_RETRANSMISSION].detail, "RNR") != NULL);
	snd(&t, 101, 1301 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_DUPLICATE);
	CHECK_EQ_U(t.res.retx_cause, ROCE_RETX_RNR);
	snd(&t, 102, 1302 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_DUPLICATE);
	ack(&t, 102, 1305 * US);
	snd(&t, 103, 1400 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_GBN_RECOVERED);
	CHECK_EQ_U(t.res.recovery_ns, 1395 * US);
	/* both NAKs were answered: a later go-back is a timeout's */
	snd(&t, 103, 9000 * US);
	CHECK_EQ_U(t.res.retx_cause, ROCE_RETX_TIMEOUT);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.naks, 2);
	CHECK_EQ_U(s.rnr_naks, 1);
	CHECK_EQ_U(s.nak_codes[ROCE_NAK_PSN_SEQ_ERR], 1);
	CHECK_EQ_U(s.gbn_episodes[ROCE_RETX_RNR], 1);
	CHECK_EQ_U(s.gbn_episodes[ROCE_RETX_NAK], 0);
	CHECK_EQ_U(s.gbn_episodes[ROCE_RETX_TIMEOUT], 1);
	CHECK_EQ_U(s.retransmissions, 4);
	CHECK_EQ_U(s.duplicates, 4);
	CHECK_EQ_U(s.psn_gaps + s.out_of_order + s.unrecovered_psns, 0);
	CHECK_EQ_U(t.an[ROCE_AN_RNR_NAK], 1);
	CHECK_EQ_U(t.an[ROCE_AN_NAK], 1);
	flows_get(&t, &fl);
	REQUIRE((f = req_flow(&fl)) != NULL);
	CHECK_EQ_U(f->nak_response.count, 1);
	CHECK_EQ_U(f->nak_response.min_ns, 1295 * US);
	CHECK_EQ_U(f->rtt.count, 0);    /* 100-102 resent (Karn), 103 resent before its ACK */
	check_counters_add_up(&t, false);
	a_done(&t);
}

/*
 * The NAK classes (AETH syndrome 0x60-0x64, IBTA Table 44; rxe sends the
 * class A/C errors with the failing request's PSN): each counts once in
 * naks and in its nak_codes slot, raises ROCE_EV_NAK and a nak anomaly, and
 * none but the sequence error is a go-back's cause (the QP goes to the error
 * state: nothing is retransmitted).  A reserved NAK code (0x65) counts in
 * naks only; an AETH of the reserved class (0x40) is neither ACK nor NAK.
 * The responses' PSNs repeat nothing: no gap, no duplicate.
 */
static void test_nak_classes(void)
{
	static const uint8_t syn[] = { 0x61, 0x62, 0x63, 0x64, 0x65 };
	struct t t;
	struct roce_summary s;
	struct flows fl;
	const struct roce_flow_stats *f;

	a_init(&t, 0);
	REQUIRE(t.a && xa);
	for (unsigned i = 0; i < sizeof(syn); i++) {
		snd(&t, 100 + i, (10 * i) * US);
		nak(&t, 100 + i, syn[i], (10 * i + 5) * US);
		CHECK_EQ_U(t.res.events, ROCE_EV_NAK);
		CHECK_EQ_U(t.res.aeth_syndrome, syn[i]);
		CHECK_EQ_U(t.an[ROCE_AN_NAK], i + 1);
	}
	snd(&t, 105, 100 * US);
	rs(&t, ROCE_OP_RC_ACKNOWLEDGE, 105, 0x40, 0, 105 * US);
	CHECK_EQ_U(t.res.events, 0);
	/* a fatal NAK pends nothing: the next resend is a timeout's go-back */
	snd(&t, 104, 200 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_DUPLICATE);
	CHECK_EQ_U(t.res.retx_cause, ROCE_RETX_TIMEOUT);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.naks, 5);
	CHECK_EQ_U(s.rnr_naks, 0);
	CHECK_EQ_U(s.acks, 0);
	CHECK_EQ_U(s.nak_codes[ROCE_NAK_PSN_SEQ_ERR], 0);
	CHECK_EQ_U(s.nak_codes[ROCE_NAK_INVALID_REQ], 1);
	CHECK_EQ_U(s.nak_codes[ROCE_NAK_REMOTE_ACCESS], 1);
	CHECK_EQ_U(s.nak_codes[ROCE_NAK_REMOTE_OP], 1);
	CHECK_EQ_U(s.nak_codes[ROCE_NAK_INVALID_RD_REQ], 1);
	CHECK_EQ_U(s.gbn_episodes[ROCE_RETX_NAK], 0);
	CHECK_EQ_U(s.gbn_episodes[ROCE_RETX_TIMEOUT], 1);
	CHECK_EQ_U(s.psn_gaps + s.out_of_order + s.unrecovered_psns, 0);
	flows_get(&t, &fl);
	REQUIRE((f = resp_flow(&fl)) != NULL);
	CHECK_EQ_U(f->naks, 5);
	CHECK_EQ_U(f->duplicates + f->psn_gaps, 0);
	REQUIRE((f = req_flow(&fl)) != NULL);
	CHECK_EQ_U(f->rtt.count, 0);            /* a NAK is no ACK: no round trip */
	check_counters_add_up(&t, false);
	a_done(&t);
}

/*
 * An RNR NAK repeated (the receive queue still empty when the resend came;
 * rxe retries up to rnr_retry times, RNR-NAKing each with the request's
 * PSN): each resend after an RNR NAK starts a go-back of its own (two
 * episodes, each with its nak_response), one recovery from the first RNR NAK
 * to the PSN after the newest.
 */
static void test_rnr_twice(void)
{
	struct t t;
	struct roce_summary s;
	struct flows fl;
	const struct roce_flow_stats *f;

	a_init(&t, 0);
	REQUIRE(t.a && xa);
	snd(&t, 100, 0);
	nak(&t, 100, 0x21, 5 * US);             /* RNR, 0.01 ms */
	snd(&t, 100, 20 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_DUPLICATE);
	CHECK_EQ_U(t.res.retx_cause, ROCE_RETX_RNR);
	CHECK_EQ_U(t.res.ref_frame, 2);
	nak(&t, 100, 0x21, 25 * US);
	snd(&t, 100, 40 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_DUPLICATE);
	CHECK_EQ_U(t.res.retx_cause, ROCE_RETX_RNR);
	CHECK_EQ_U(t.res.ref_frame, 4);
	ack(&t, 100, 45 * US);
	snd(&t, 101, 50 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_GBN_RECOVERED);
	CHECK_EQ_U(t.res.recovery_ns, 45 * US);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.rnr_naks, 2);
	CHECK_EQ_U(s.naks, 2);
	CHECK_EQ_U(s.gbn_episodes[ROCE_RETX_RNR], 2);
	CHECK_EQ_U(s.retransmissions, 2);
	CHECK_EQ_U(s.duplicates, 2);
	CHECK_EQ_U(t.an[ROCE_AN_RETRANSMISSION], 2);
	flows_get(&t, &fl);
	REQUIRE((f = req_flow(&fl)) != NULL);
	CHECK_EQ_U(f->nak_response.count, 2);
	CHECK_EQ_U(f->nak_response.max_ns, 15 * US);
	CHECK_EQ_U(f->recovery.count, 1);
	check_counters_add_up(&t, false);
	a_done(&t);
}

/*
 * Two NAKs in one go-back run: 102 lost, NAK 102, the run resends 102 and
 * 103, its 104 is lost again (105 is a gap against the run's previous packet,
 * docs/json.md), the responder NAKs 104 (rxe: the sequence error again once
 * 102-103 arrived in order), the requester goes back to 104: a second
 * episode caused by the second NAK; one recovery, from the first NAK.
 */
static void test_two_naks_one_run(void)
{
	struct t t;
	struct roce_summary s;
	struct flows fl;
	const struct roce_flow_stats *f;
	uint64_t nak2;

	a_init(&t, 0);
	REQUIRE(t.a && xa);
	snd(&t, 100, 0);
	snd(&t, 101, 1 * US);
	snd(&t, 103, 2 * US);
	snd(&t, 104, 3 * US);
	snd(&t, 105, 4 * US);
	nak(&t, 102, 0x60, 5 * US);
	snd(&t, 102, 10 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_OUT_OF_ORDER);
	snd(&t, 103, 11 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_DUPLICATE);
	snd(&t, 105, 13 * US);
	CHECK_EQ_U(t.res.events,
		ROCE_EV_RETRANSMISSION | ROCE_EV_DUPLICATE | ROCE_EV_PSN_GAP);
	CHECK_EQ_U(t.res.expected_psn, 104);
	CHECK_EQ_U(t.res.lost_psns, 1);
	nak(&t, 104, 0x60, 15 * US);
	nak2 = t.frame;
	snd(&t, 104, 20 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_DUPLICATE);
	CHECK_EQ_U(t.res.retx_cause, ROCE_RETX_NAK);
	CHECK_EQ_U(t.res.ref_frame, nak2);
	snd(&t, 105, 21 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_DUPLICATE);
	snd(&t, 106, 22 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_GBN_RECOVERED);
	CHECK_EQ_U(t.res.recovery_ns, 17 * US);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.psn_gaps, 2);
	CHECK_EQ_U(s.lost_psns, 2);
	CHECK_EQ_U(s.unrecovered_psns, 0);
	CHECK_EQ_U(s.out_of_order, 1);
	CHECK_EQ_U(s.duplicates, 4);
	CHECK_EQ_U(s.retransmissions, 5);
	CHECK_EQ_U(s.gbn_episodes[ROCE_RETX_NAK], 2);
	CHECK_EQ_U(s.gbn_episodes[ROCE_RETX_TIMEOUT], 0);
	CHECK_EQ_U(s.naks, 2);
	flows_get(&t, &fl);
	REQUIRE((f = req_flow(&fl)) != NULL);
	CHECK_EQ_U(f->recovery.count, 1);
	CHECK_EQ_U(f->nak_response.count, 2);
	CHECK_EQ_U(f->nak_response.min_ns, 5 * US);
	check_counters_add_up(&t, false);
	a_done(&t);
}

/*
 * A READ request lost before the capture point: the next request leaves a
 * gap of the READ's whole range (its length unknown: 2 PSNs), the responder
 * NAKs the READ's PSN, the resent READ fills the range (the NAK names its
 * first PSN: a retransmission caused by it) and its responses come in order,
 * timed from the resend.
 */
static void test_lost_read_request_naked(void)
{
	struct t t;
	struct roce_summary s;
	struct flows fl;
	const struct roce_flow_stats *a2b, *b2a;

	a_init(&t, 1024);
	REQUIRE(t.a && xa);
	snd(&t, 10, 0);
	snd(&t, 13, 2 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_PSN_GAP);
	CHECK_EQ_U(t.res.lost_psns, 2);
	nak(&t, 11, 0x60, 5 * US);
	rq(&t, ROCE_OP_RC_RDMA_READ_REQUEST, 11, true, 0, 2048, 10 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_OUT_OF_ORDER);
	CHECK_EQ_U(t.res.retx_cause, ROCE_RETX_NAK);
	snd(&t, 13, 11 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_DUPLICATE);
	rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_FIRST, 11, 0x1f, 1024, 16 * US);
	CHECK(t.res.events & ROCE_EV_READ_FIRST_RESP);
	CHECK_EQ_U(t.res.read_ns, 6 * US);
	CHECK_EQ_U(t.res.events & (ROCE_EV_PSN_GAP | ROCE_EV_DUPLICATE), 0);
	rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_LAST, 12, 0x1f, 1024, 17 * US);
	CHECK(t.res.events & ROCE_EV_READ_LAST_RESP);
	ack(&t, 13, 18 * US);
	snd(&t, 14, 20 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_GBN_RECOVERED);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.psn_gaps, 1);
	CHECK_EQ_U(s.lost_psns, 2);
	CHECK_EQ_U(s.unrecovered_psns, 0);
	CHECK_EQ_U(s.out_of_order, 1);
	CHECK_EQ_U(s.duplicates, 1);
	CHECK_EQ_U(s.retransmissions, 2);
	CHECK_EQ_U(s.gbn_episodes[ROCE_RETX_NAK], 1);
	flows_get(&t, &fl);
	REQUIRE((a2b = req_flow(&fl)) != NULL);
	REQUIRE((b2a = resp_flow(&fl)) != NULL);
	CHECK_EQ_U(b2a->psn_gaps + b2a->duplicates + b2a->out_of_order, 0);
	CHECK_EQ_U(a2b->read_first.count, 1);
	CHECK_EQ_U(a2b->read_last.count, 1);
	check_counters_add_up(&t, false);
	a_done(&t);
}

/* ------------------------------------------------------------ READs, atomics */

/*
 * A READ answered in full whose requester timed out anyway (its LAST lost
 * after the capture point) re-sends the same READ: rxe's responder finds its
 * resource and re-executes it from its PSN (duplicate_request()), so the four
 * responses come again with the same PSNs: four duplicates on the response
 * stream, no gap; on the request stream one duplicate, a timeout go-back.
 * The READ was timed once (its first FIRST, its first LAST); the next SEND
 * ends the episode.
 */
static void test_read_reexecuted(void)
{
	struct t t;
	struct roce_summary s;
	struct flows fl;
	const struct roce_flow_stats *a2b, *b2a;
	static const uint8_t op[4] = { ROCE_OP_RC_RDMA_READ_RESPONSE_FIRST,
		ROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE, ROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE,
		ROCE_OP_RC_RDMA_READ_RESPONSE_LAST };

	a_init(&t, 1024);
	REQUIRE(t.a && xa);
	rq(&t, ROCE_OP_RC_RDMA_READ_REQUEST, 10, true, 0, 4096, 0);
	for (uint32_t i = 0; i < 4; i++) {
		rs(&t, op[i], 10 + i, i == 1 || i == 2 ? 0 : 0x1f, 1024, (5 + i) * US);
		CHECK_EQ_U(t.res.events & (ROCE_EV_PSN_GAP | ROCE_EV_DUPLICATE), 0);
	}
	rq(&t, ROCE_OP_RC_RDMA_READ_REQUEST, 10, true, 0, 4096, 5000 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_DUPLICATE);
	CHECK_EQ_U(t.res.retx_cause, ROCE_RETX_TIMEOUT);
	CHECK_EQ_U(t.res.expected_psn, 14);
	for (uint32_t i = 0; i < 4; i++) {
		rs(&t, op[i], 10 + i, i == 1 || i == 2 ? 0 : 0x1f, 1024, (5005 + i) * US);
		CHECK_EQ_U(t.res.events, ROCE_EV_DUPLICATE);
		CHECK_EQ_U(t.res.expected_psn, 14);
	}
	snd(&t, 14, 5010 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_GBN_RECOVERED);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.duplicates, 5);
	CHECK_EQ_U(s.retransmissions, 1);
	CHECK_EQ_U(s.gbn_episodes[ROCE_RETX_TIMEOUT], 1);
	CHECK_EQ_U(s.psn_gaps + s.out_of_order + s.unrecovered_psns, 0);
	CHECK_EQ_U(s.acks, 4);          /* AETH on FIRST and LAST, twice */
	flows_get(&t, &fl);
	REQUIRE((a2b = req_flow(&fl)) != NULL);
	REQUIRE((b2a = resp_flow(&fl)) != NULL);
	CHECK_EQ_U(a2b->duplicates, 1);
	CHECK_EQ_U(b2a->duplicates, 4);
	CHECK_EQ_U(a2b->read_first.count, 1);
	CHECK_EQ_U(a2b->read_first.max_ns, 5 * US);
	CHECK_EQ_U(a2b->read_last.count, 1);
	CHECK_EQ_U(a2b->read_last.max_ns, 8 * US);
	CHECK_EQ_U(a2b->rtt.count, 1);
	CHECK_EQ_U(a2b->messages, 2);   /* the READ once, the SEND */
	CHECK_EQ_U(b2a->payload_bytes, 8 * 1024);
	check_counters_add_up(&t, false);
	a_done(&t);
}

/*
 * A READ restarted from its middle (IBTA 9.7: the retry asks for the rest,
 * from the first missing response's PSN, VA advanced; rxe answers it from
 * that PSN, a MIDDLE then the LAST, duplicate_request() with
 * rdatm_res_state_replay).  Response 12 of READ 10..13 is lost: one gap on
 * the response stream (13 passes it); the retry READ 12 is a duplicate on the
 * request stream (its PSNs are the original's) and a retransmission; its
 * response 12 fills the gap, 13 is a duplicate.  The same again with the
 * retry answered FIRST-then-LAST (a responder that starts a new response
 * sequence): the opcodes do not matter, the PSNs do.
 */
static void test_read_restarted_mid(void)
{
	for (int v = 0; v < 2; v++) {
		struct t t;
		struct roce_summary s;
		struct flows fl;
		const struct roce_flow_stats *a2b, *b2a;

		a_init(&t, 1024);
		REQUIRE(t.a && xa);
		rq(&t, ROCE_OP_RC_RDMA_READ_REQUEST, 10, true, 0, 4096, 0);
		rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_FIRST, 10, 0x1f, 1024, 5 * US);
		rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE, 11, 0, 1024, 6 * US);
		rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_LAST, 13, 0x1f, 1024, 8 * US);
		CHECK(t.res.events & ROCE_EV_PSN_GAP);
		CHECK_EQ_U(t.res.expected_psn, 12);
		CHECK_EQ_U(t.res.lost_psns, 1);
		rq(&t, ROCE_OP_RC_RDMA_READ_REQUEST, 12, true, 0, 2048, 20 * US);
		CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_DUPLICATE);
		CHECK_EQ_U(t.res.retx_cause, ROCE_RETX_TIMEOUT);
		rs(&t, v ? ROCE_OP_RC_RDMA_READ_RESPONSE_FIRST :
			ROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE, 12, v ? 0x1f : 0, 1024, 25 * US);
		CHECK_EQ_U(t.res.events, ROCE_EV_OUT_OF_ORDER);
		CHECK_EQ_U(t.res.expected_psn, 14);
		rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_LAST, 13, 0x1f, 1024, 26 * US);
		CHECK_EQ_U(t.res.events, ROCE_EV_DUPLICATE);
		snd(&t, 14, 30 * US);
		CHECK_EQ_U(t.res.events, ROCE_EV_GBN_RECOVERED);
		ack(&t, 14, 32 * US);
		CHECK_EQ_U(t.res.events, ROCE_EV_ACK_RTT);
		roce_analyzer_finish(t.a);
		sum(&t, &s);
		CHECK_EQ_U(s.psn_gaps, 1);
		CHECK_EQ_U(s.lost_psns, 1);
		CHECK_EQ_U(s.unrecovered_psns, 0);
		CHECK_EQ_U(s.out_of_order, 1);
		CHECK_EQ_U(s.duplicates, 2);
		CHECK_EQ_U(s.retransmissions, 1);
		flows_get(&t, &fl);
		REQUIRE((a2b = req_flow(&fl)) != NULL);
		REQUIRE((b2a = resp_flow(&fl)) != NULL);
		CHECK_EQ_U(b2a->psn_gaps, 1);
		CHECK_EQ_U(b2a->out_of_order, 1);
		CHECK_EQ_U(b2a->duplicates, 1);
		CHECK_EQ_U(a2b->duplicates, 1);
		CHECK_EQ_U(a2b->read_first.count, 1);
		CHECK_EQ_U(a2b->read_last.count, 1);
		CHECK_EQ_U(a2b->rtt.count, 2);  /* the READ (its FIRST), the SEND */
		CHECK_EQ_U(b2a->pmtu, 1024);
		check_counters_add_up(&t, false);
		a_done(&t);
	}
}

/*
 * A READ re-read from its middle inside a go-back-N run (roce-gen's lost
 * message tail, revealed by the READ request after it; refmodel.sh
 * rand-rg-8 frames 1196-1210): SEND b+1 is lost, READ b+2 (4 PSNs) and
 * SEND b+6 show the gap, the responder NAKs b+1 and the requester goes back
 * to it (a NAK go-back, newest b+6): SEND b+1, READ b+2.  The READ's
 * response b+3 is lost (the response stream's gap), so the requester
 * re-reads from b+3 (IBTA 9.7: the retry asks from the first missing
 * response's PSN; rxe's req_retry()): PSNs the run sent already, past the
 * READ's first PSN but inside its range.  That is a new go-back (a new
 * cause: the lost response; no NAK names it, so a timeout's), not the run
 * moving forward; the resent SEND b+6 at the end of the READ's range goes
 * on with it, and b+7 ends the episode.  Run at b = 100 and with the READ's
 * range across the PSN wrap (b = 0xfffffd).
 */
static void run_read_reread_in_gbn(uint32_t b)
{
	struct t t;
	struct roce_summary s;
	struct flows fl;
	const struct roce_flow_stats *a2b, *b2a;

	a_init(&t, 1024);
	REQUIRE(t.a && xa);
	snd(&t, b, 0);
	rq(&t, ROCE_OP_RC_RDMA_READ_REQUEST, b + 2, true, 0, 4096, 1 * US);     /* b+1 lost */
	CHECK(t.res.events & ROCE_EV_PSN_GAP);
	snd(&t, b + 6, 2 * US);
	nak(&t, b + 1, 0x60, 3 * US);
	snd(&t, b + 1, 10 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_OUT_OF_ORDER);
	CHECK_EQ_U(t.res.retx_cause, ROCE_RETX_NAK);
	rq(&t, ROCE_OP_RC_RDMA_READ_REQUEST, b + 2, true, 0, 4096, 11 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_DUPLICATE);
	CHECK_EQ_U(t.res.retx_cause, ROCE_RETX_NAK);
	CHECK_EQ_U(t.an[ROCE_AN_RETRANSMISSION], 1);
	rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_FIRST, b + 2, 0x1f, 1024, 15 * US);
	rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE, b + 4, 0, 1024, 16 * US);   /* b+3 lost */
	CHECK(t.res.events & ROCE_EV_PSN_GAP);
	rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_LAST, b + 5, 0x1f, 1024, 17 * US);
	/* the re-read: a new go-back inside the run */
	rq(&t, ROCE_OP_RC_RDMA_READ_REQUEST, b + 3, true, 0, 3072, 30 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_DUPLICATE);
	CHECK_EQ_U(t.res.retx_cause, ROCE_RETX_TIMEOUT);
	CHECK_EQ_U(t.an[ROCE_AN_RETRANSMISSION], 2);
	rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE, b + 3, 0, 1024, 35 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_OUT_OF_ORDER);
	rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE, b + 4, 0, 1024, 36 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_DUPLICATE);
	rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_LAST, b + 5, 0x1f, 1024, 37 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_DUPLICATE);
	/* the run goes on past the READ's range: no new go-back */
	snd(&t, b + 6, 38 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_DUPLICATE);
	CHECK_EQ_U(t.res.retx_cause, ROCE_RETX_TIMEOUT);
	CHECK_EQ_U(t.an[ROCE_AN_RETRANSMISSION], 2);
	snd(&t, b + 7, 39 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_GBN_RECOVERED);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.gbn_episodes[ROCE_RETX_NAK], 1);
	CHECK_EQ_U(s.gbn_episodes[ROCE_RETX_TIMEOUT], 1);
	CHECK_EQ_U(s.gbn_episodes[ROCE_RETX_RNR], 0);
	CHECK_EQ_U(s.retransmissions, 4);       /* SEND b+1, READ b+2, READ b+3, SEND b+6 */
	CHECK_EQ_U(s.psn_gaps, 2);
	CHECK_EQ_U(s.lost_psns, 2);
	CHECK_EQ_U(s.out_of_order, 2);          /* SEND b+1, response b+3 */
	CHECK_EQ_U(s.unrecovered_psns, 0);
	flows_get(&t, &fl);
	REQUIRE((a2b = req_flow(&fl)) != NULL);
	REQUIRE((b2a = resp_flow(&fl)) != NULL);
	CHECK_EQ_U(a2b->duplicates, 3);         /* READ b+2, READ b+3, SEND b+6 */
	CHECK_EQ_U(b2a->duplicates, 2);         /* responses b+4, b+5 */
	CHECK_EQ_U(a2b->nak_response.count, 1);
	CHECK_EQ_U(a2b->recovery.count, 1);     /* one run, two go-backs */
	check_counters_add_up(&t, false);
	a_done(&t);
}

static void test_read_reread_in_gbn(void)
{
	run_read_reread_in_gbn(100);
	run_read_reread_in_gbn(0xfffffd);
}

/*
 * READs and atomics outstanding together (the responder answers in PSN
 * order, IBTA 9.5): READ 10 (2 packets), FETCH_ADD 12, READ 13 (1), SEND 14
 * with AckReq, CMP_SWAP 15.  The responses READ FIRST 10, LAST 11,
 * ATOMIC_ACK 12, READ ONLY 13, ACK 14, ATOMIC_ACK 15: every PSN in order,
 * five round trips (each READ from its first response, each atomic from its
 * ATOMIC_ACK), two READ latencies each way, six ACK-class AETHs.  Then the
 * requester resends CMP_SWAP 15 (its ATOMIC_ACK lost after the capture
 * point) and the responder replays the saved result (rxe: the atomic's
 * resource, duplicate_request()): a duplicate request; the ATOMIC_ACK's PSN
 * repeats, which an ACK's PSN may (no duplicate).
 */
static void test_reads_atomics_interleaved(void)
{
	struct t t;
	struct roce_summary s;
	struct flows fl;
	const struct roce_flow_stats *a2b, *b2a;
	struct roce_frame_spec sp;

	a_init(&t, 1024);
	REQUIRE(t.a && xa);
	rq(&t, ROCE_OP_RC_RDMA_READ_REQUEST, 10, true, 0, 2048, 0);
	rq(&t, ROCE_OP_RC_FETCH_ADD, 12, true, 0, 0, 1 * US);
	rq(&t, ROCE_OP_RC_RDMA_READ_REQUEST, 13, true, 0, 100, 2 * US);
	snd(&t, 14, 3 * US);
	rq(&t, ROCE_OP_RC_CMP_SWAP, 15, true, 0, 0, 4 * US);
	CHECK_EQ_U(t.res.events, 0);
	rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_FIRST, 10, 0x1f, 1024, 10 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_READ_FIRST_RESP | ROCE_EV_ACK_RTT);
	CHECK_EQ_U(t.res.read_ns, 10 * US);
	rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_LAST, 11, 0x1f, 1024, 11 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_READ_LAST_RESP);
	rs(&t, ROCE_OP_RC_ATOMIC_ACKNOWLEDGE, 12, 0x1f, 0, 12 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_ACK_RTT);
	CHECK_EQ_U(t.res.rtt_ns, 11 * US);
	rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_ONLY, 13, 0x1f, 100, 13 * US);
	CHECK_EQ_U(t.res.events,
		ROCE_EV_READ_FIRST_RESP | ROCE_EV_READ_LAST_RESP | ROCE_EV_ACK_RTT);
	CHECK_EQ_U(t.res.read_ns, 11 * US);
	ack(&t, 14, 14 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_ACK_RTT);
	rs(&t, ROCE_OP_RC_ATOMIC_ACKNOWLEDGE, 15, 0x1f, 0, 15 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_ACK_RTT);
	CHECK_EQ_U(t.res.rtt_ns, 11 * US);
	/* the atomic resent, its result replayed */
	spec_dir(&sp, true, ROCE_OP_RC_CMP_SWAP, 15);
	sp.bth.ackreq = true;
	xfeed(&t, &sp, 5000 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_DUPLICATE);
	CHECK_EQ_U(t.res.retx_cause, ROCE_RETX_TIMEOUT);
	rs(&t, ROCE_OP_RC_ATOMIC_ACKNOWLEDGE, 15, 0x1f, 0, 5003 * US);
	CHECK_EQ_U(t.res.events, 0);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.acks, 7);
	CHECK_EQ_U(s.duplicates, 1);
	CHECK_EQ_U(s.retransmissions, 1);
	CHECK_EQ_U(s.psn_gaps + s.out_of_order + s.unrecovered_psns, 0);
	CHECK_EQ_U(s.opcodes[ROCE_OP_RC_ATOMIC_ACKNOWLEDGE], 3);
	flows_get(&t, &fl);
	REQUIRE((a2b = req_flow(&fl)) != NULL);
	REQUIRE((b2a = resp_flow(&fl)) != NULL);
	CHECK(a2b->has_peer && b2a->has_peer);
	CHECK_EQ_U(a2b->rtt.count, 5);
	CHECK_EQ_U(a2b->rtt.min_ns, 10 * US);
	CHECK_EQ_U(a2b->rtt.max_ns, 11 * US);
	CHECK_EQ_U(a2b->read_first.count, 2);
	CHECK_EQ_U(a2b->read_last.count, 2);
	CHECK_EQ_U(a2b->read_last.max_ns, 11 * US);
	CHECK_EQ_U(a2b->messages, 5);
	CHECK_EQ_U(b2a->duplicates + b2a->psn_gaps, 0);
	check_counters_add_up(&t, false);
	a_done(&t);
}

/*
 * The implied NAK (IBTA 9.7.5.1.5; mlx5's implied_nak_seq_err): READ 13's
 * only response is lost and the ACK of SEND 14 comes, which tells the
 * requester the READ was executed; it re-issues READ 13 and resends SEND 14
 * (rxe's req_retry() goes back to the first uncompleted WQE).  The response
 * stream's gap is the READ's PSN only (13; 14 is an ACK's, never a READ
 * response): one lost PSN, filled by the re-read's response (out of order),
 * whose READ is timed then (read_first, read_last).
 */
static void test_implied_nak(void)
{
	struct t t;
	struct roce_summary s;
	struct flows fl;
	const struct roce_flow_stats *a2b, *b2a;

	a_init(&t, 1024);
	REQUIRE(t.a && xa);
	snd(&t, 12, 0);
	ack(&t, 12, 4 * US);
	rq(&t, ROCE_OP_RC_RDMA_READ_REQUEST, 13, true, 0, 64, 10 * US);
	snd(&t, 14, 11 * US);
	ack(&t, 14, 20 * US);
	CHECK(t.res.events & ROCE_EV_PSN_GAP);
	CHECK_EQ_U(t.res.expected_psn, 13);
	CHECK_EQ_U(t.res.lost_psns, 1);
	rq(&t, ROCE_OP_RC_RDMA_READ_REQUEST, 13, true, 0, 64, 21 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_DUPLICATE);
	snd(&t, 14, 22 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_DUPLICATE);
	rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_ONLY, 13, 0x1f, 64, 30 * US);
	CHECK_EQ_U(t.res.events & ~(uint32_t)ROCE_EV_ACK_RTT,
		ROCE_EV_OUT_OF_ORDER | ROCE_EV_READ_FIRST_RESP | ROCE_EV_READ_LAST_RESP);
	CHECK_EQ_U(t.res.read_ns, 20 * US);
	ack(&t, 14, 31 * US);
	CHECK_EQ_U(t.res.events, 0);
	snd(&t, 15, 40 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_GBN_RECOVERED);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.psn_gaps, 1);
	CHECK_EQ_U(s.lost_psns, 1);
	CHECK_EQ_U(s.unrecovered_psns, 0);
	CHECK_EQ_U(s.out_of_order, 1);
	CHECK_EQ_U(s.duplicates, 2);
	CHECK_EQ_U(s.retransmissions, 2);
	flows_get(&t, &fl);
	REQUIRE((a2b = req_flow(&fl)) != NULL);
	REQUIRE((b2a = resp_flow(&fl)) != NULL);
	CHECK_EQ_U(b2a->psn_gaps, 1);
	CHECK_EQ_U(a2b->psn_gaps, 0);
	CHECK_EQ_U(a2b->read_first.count, 1);
	CHECK_EQ_U(a2b->read_last.count, 1);
	check_counters_add_up(&t, false);
	a_done(&t);
}

/* ------------------------------------------------------------------ main */

/*
 * A QP number reused by a new connection, its PSNs 2^22 or more from the old
 * ones (docs/json.md, "Retransmissions and NAKs"): no gap, duplicate or
 * retransmission at the jump, the PSN the old connection missed stays
 * unrecovered, and the new connection's sequences start as a stream's first
 * frames do, on the response side too: its READ's second response, reordered
 * ahead of the first, makes a gap that the first fills (out of order: no
 * frame had carried that PSN, so not a duplicate).
 */
static void test_qpn_reused(void)
{
	const uint32_t n = 0x900000;    /* the new connection's first PSN */
	struct t t;
	struct roce_summary s;

	a_init(&t, 1024);
	REQUIRE(t.a && xa);
	snd(&t, 100, 0);
	snd(&t, 102, 1 * US);           /* 101 lost, never resent */
	CHECK(t.res.events & ROCE_EV_PSN_GAP);
	ack(&t, 100, 2 * US);           /* (an ACK of 102 would say 101 arrived: ACKed unseen) */
	rq(&t, ROCE_OP_RC_RDMA_READ_REQUEST, n, true, 0, 2048, 10 * US);
	CHECK_EQ_U(t.res.events & (ROCE_EV_PSN_GAP | ROCE_EV_DUPLICATE | ROCE_EV_OUT_OF_ORDER |
		ROCE_EV_RETRANSMISSION), 0);
	rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_LAST, n + 1, 0x1f, 1024, 12 * US);
	CHECK(t.res.events & ROCE_EV_PSN_GAP);
	CHECK_EQ_U(t.res.lost_psns, 1);
	rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_FIRST, n, 0x1f, 1024, 13 * US);
	CHECK(t.res.events & ROCE_EV_OUT_OF_ORDER);
	CHECK(!(t.res.events & ROCE_EV_DUPLICATE));
	snd(&t, n + 2, 14 * US);
	CHECK_EQ_U(t.res.events & (ROCE_EV_PSN_GAP | ROCE_EV_DUPLICATE | ROCE_EV_OUT_OF_ORDER), 0);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.psn_gaps, 2);
	CHECK_EQ_U(s.lost_psns, 2);
	CHECK_EQ_U(s.unrecovered_psns, 1);      /* 101 */
	CHECK_EQ_U(s.out_of_order, 1);
	CHECK_EQ_U(s.duplicates, 0);
	CHECK_EQ_U(s.retransmissions, 0);
	check_counters_add_up(&t, false);
	a_done(&t);
}

int main(void)
{
	RUN(test_wrap_gbn);
	RUN(test_qpn_reused);
	RUN(test_wrap_read);
	RUN(test_ack_coalesced_messages);
	RUN(test_ack_coalesced_many);
	RUN(test_rnr_in_flight);
	RUN(test_nak_classes);
	RUN(test_rnr_twice);
	RUN(test_two_naks_one_run);
	RUN(test_lost_read_request_naked);
	RUN(test_read_reexecuted);
	RUN(test_read_restarted_mid);
	RUN(test_read_reread_in_gbn);
	RUN(test_reads_atomics_interleaved);
	RUN(test_implied_nak);
	return check_report();
}
