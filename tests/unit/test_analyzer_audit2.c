// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_analyzer_audit2.c - a second audit of the request / response state
 * machine (test_analyzer_audit.c and test_analyzer_audit_events.c have the
 * first), on traffic those leave out: a NAK in the middle of a multi-packet
 * message answered by a partial resend (mlx5 and rxe restart from the NAKed
 * PSN, not from the message start), the same PSN NAKed twice, the fatal NAK
 * classes on a READ and on pipelined requests, an ACK asked for on a MIDDLE
 * packet, several XRC SRQs behind one XRC target QP, a capture that starts
 * or ends inside a recovery, READ ranges across the PSN wrap with the path MTU
 * unknown, and READ responses lost before the response stream's first frame.
 * Each expected value is stated with its reason (IBTA Vol. 1 ch. 9, rxe,
 * docs/json.md); an_audit.h runs every frame through roce-analyze's entry
 * too and compares the two analyzers.
 */
#include "an_audit.h"

static void xrc_srq(struct t *t, uint8_t opcode, uint32_t psn, uint32_t srq, uint64_t ts)
{
	struct roce_frame_spec s;

	spec_dir(&s, true, opcode, psn);
	s.bth.ackreq = true;
	s.xrc_srq = srq;
	s.payload_len = 64;
	xfeed(t, &s, ts);
}

/* ------------------------------------------------- NAKs inside a message */

/*
 * A 4-packet WRITE (100..103) whose MIDDLE 101 is lost before the capture
 * point: 102 is a gap of 1.  The responder NAKs 101 (PSN sequence error
 * names the first missing PSN); the requester resends from 101, not from
 * the message start (mlx5; rxe restarts from the PSN after the last one
 * acknowledged, retry_first_write_send): 101 fills the gap (a retransmission
 * caused by the NAK), 102 and 103 are duplicates of the run, 104 ends it.
 * The message counts once (its LAST was seen twice).  The ACK of 104 passes
 * 101..103 on the response stream: no READ there, no gap.
 */
static void test_nak_mid_message(void)
{
	struct t t;
	struct roce_summary s;
	struct flows fl;
	const struct roce_flow_stats *a2b, *b2a;
	uint64_t nak_frame;

	a_init(&t, 1024);
	REQUIRE(t.a && xa);
	rq(&t, ROCE_OP_RC_RDMA_WRITE_FIRST, 100, false, 1024, 4000, 0);
	rq(&t, ROCE_OP_RC_RDMA_WRITE_MIDDLE, 102, false, 1024, 0, 2 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_PSN_GAP);
	CHECK_EQ_U(t.res.expected_psn, 101);
	CHECK_EQ_U(t.res.lost_psns, 1);
	rq(&t, ROCE_OP_RC_RDMA_WRITE_LAST, 103, true, 928, 0, 3 * US);
	CHECK_EQ_U(t.res.events, 0);
	nak(&t, 101, 0x60, 5 * US);
	nak_frame = t.frame;
	CHECK_EQ_U(t.res.events, ROCE_EV_NAK);
	rq(&t, ROCE_OP_RC_RDMA_WRITE_MIDDLE, 101, false, 1024, 0, 10 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_OUT_OF_ORDER);
	CHECK_EQ_U(t.res.retx_cause, ROCE_RETX_NAK);
	CHECK_EQ_U(t.res.ref_frame, nak_frame);
	rq(&t, ROCE_OP_RC_RDMA_WRITE_MIDDLE, 102, false, 1024, 0, 11 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_DUPLICATE);
	rq(&t, ROCE_OP_RC_RDMA_WRITE_LAST, 103, true, 928, 0, 12 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_DUPLICATE);
	snd(&t, 104, 13 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_GBN_RECOVERED);
	CHECK_EQ_U(t.res.recovery_ns, 8 * US);
	ack(&t, 104, 15 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_ACK_RTT);
	CHECK_EQ_U(t.res.rtt_ns, 2 * US);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.psn_gaps, 1);
	CHECK_EQ_U(s.lost_psns, 1);
	CHECK_EQ_U(s.out_of_order, 1);
	CHECK_EQ_U(s.duplicates, 2);
	CHECK_EQ_U(s.retransmissions, 3);
	CHECK_EQ_U(s.gbn_episodes[ROCE_RETX_NAK], 1);
	CHECK_EQ_U(s.gbn_episodes[ROCE_RETX_TIMEOUT], 0);
	CHECK_EQ_U(s.unrecovered_psns, 0);
	CHECK_EQ_U(s.naks, 1);
	CHECK_EQ_U(s.acks, 1);
	flows_get(&t, &fl);
	REQUIRE((a2b = req_flow(&fl)) != NULL);
	REQUIRE((b2a = resp_flow(&fl)) != NULL);
	CHECK_EQ_U(a2b->messages, 2);
	CHECK_EQ_U(a2b->rtt.count, 1);      /* 103 resent: not timed (Karn); 104 is */
	CHECK_EQ_U(a2b->nak_response.count, 1);
	CHECK_EQ_U(a2b->recovery.count, 1);
	CHECK_EQ_U(b2a->psn_gaps + b2a->duplicates + b2a->out_of_order, 0);
	check_counters_add_up(&t, false);
	a_done(&t);
}

/*
 * The same loss, the first resend of 101 lost again after the capture point
 * (the capture saw it): 102 and 103 follow, the responder NAKs 101 a second
 * time (mlx5 NAKs again once the out-of-sequence packets of the run reach
 * it), the requester goes back to 101 again.  The second NAK replaces
 * nothing (the first was answered by the first run) and causes a second
 * episode; the recovery is one (the second go-back happens inside the first
 * episode), from the first NAK.
 */
static void test_nak_twice_same_psn(void)
{
	struct t t;
	struct roce_summary s;
	struct flows fl;
	const struct roce_flow_stats *a2b, *b2a;
	uint64_t nak2;

	a_init(&t, 1024);
	REQUIRE(t.a && xa);
	rq(&t, ROCE_OP_RC_RDMA_WRITE_FIRST, 100, false, 1024, 4000, 0);
	rq(&t, ROCE_OP_RC_RDMA_WRITE_MIDDLE, 102, false, 1024, 0, 2 * US);
	rq(&t, ROCE_OP_RC_RDMA_WRITE_LAST, 103, true, 928, 0, 3 * US);
	nak(&t, 101, 0x60, 5 * US);
	rq(&t, ROCE_OP_RC_RDMA_WRITE_MIDDLE, 101, false, 1024, 0, 10 * US);
	rq(&t, ROCE_OP_RC_RDMA_WRITE_MIDDLE, 102, false, 1024, 0, 11 * US);
	rq(&t, ROCE_OP_RC_RDMA_WRITE_LAST, 103, true, 928, 0, 12 * US);
	nak(&t, 101, 0x60, 15 * US);
	nak2 = t.frame;
	CHECK_EQ_U(t.res.events, ROCE_EV_NAK);
	rq(&t, ROCE_OP_RC_RDMA_WRITE_MIDDLE, 101, false, 1024, 0, 20 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_DUPLICATE);
	CHECK_EQ_U(t.res.retx_cause, ROCE_RETX_NAK);
	CHECK_EQ_U(t.res.ref_frame, nak2);
	rq(&t, ROCE_OP_RC_RDMA_WRITE_MIDDLE, 102, false, 1024, 0, 21 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_DUPLICATE);
	rq(&t, ROCE_OP_RC_RDMA_WRITE_LAST, 103, true, 928, 0, 22 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_DUPLICATE);
	ack(&t, 103, 25 * US);
	CHECK_EQ_U(t.res.events, 0);        /* only resends asked: nothing to time */
	snd(&t, 104, 30 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_GBN_RECOVERED);
	CHECK_EQ_U(t.res.recovery_ns, 25 * US);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.psn_gaps, 1);
	CHECK_EQ_U(s.lost_psns, 1);
	CHECK_EQ_U(s.out_of_order, 1);
	CHECK_EQ_U(s.duplicates, 5);
	CHECK_EQ_U(s.retransmissions, 6);
	CHECK_EQ_U(s.gbn_episodes[ROCE_RETX_NAK], 2);
	CHECK_EQ_U(s.gbn_episodes[ROCE_RETX_TIMEOUT], 0);
	CHECK_EQ_U(s.unrecovered_psns, 0);
	CHECK_EQ_U(s.naks, 2);
	CHECK_EQ_U(s.nak_codes[ROCE_NAK_PSN_SEQ_ERR], 2);
	flows_get(&t, &fl);
	REQUIRE((a2b = req_flow(&fl)) != NULL);
	REQUIRE((b2a = resp_flow(&fl)) != NULL);
	CHECK_EQ_U(a2b->messages, 2);
	CHECK_EQ_U(a2b->nak_response.count, 2);
	CHECK_EQ_U(a2b->recovery.count, 1);
	CHECK_EQ_U(b2a->psn_gaps + b2a->duplicates + b2a->out_of_order, 0);
	check_counters_add_up(&t, false);
	a_done(&t);
}

/*
 * Fatal NAKs (IBTA 9.7.5.2.x: class B and C errors put the QP in the error
 * state; nothing is resent).  A READ of 2 packets answered by a remote
 * access error NAK naming its PSN: the READ's range is never passed (the
 * NAK's PSN - 1 is the newest the responder sent), so no response is lost
 * and nothing is unrecovered.  A WRITE with a bad R_Key between two SENDs,
 * pipelined: ACK 100, remote access NAK 101, the SEND 102 behind it dropped
 * silently by the responder (QP in error): no gap, no duplicate anywhere; a
 * remote operational error NAK on the next connection likewise.
 */
static void test_fatal_naks(void)
{
	struct t t;
	struct roce_summary s;
	struct flows fl;
	const struct roce_flow_stats *a2b, *b2a;

	a_init(&t, 1024);
	REQUIRE(t.a && xa);
	snd(&t, 9, 0);
	ack(&t, 9, 2 * US);
	rq(&t, ROCE_OP_RC_RDMA_READ_REQUEST, 10, true, 0, 2048, 3 * US);
	snd(&t, 12, 4 * US);
	nak(&t, 10, 0x62, 6 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_NAK);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.naks, 1);
	CHECK_EQ_U(s.nak_codes[ROCE_NAK_REMOTE_ACCESS], 1);
	CHECK_EQ_U(s.psn_gaps, 0);
	CHECK_EQ_U(s.unrecovered_psns, 0);
	CHECK_EQ_U(s.retransmissions, 0);
	flows_get(&t, &fl);
	REQUIRE((a2b = req_flow(&fl)) != NULL);
	CHECK_EQ_U(a2b->read_first.count, 0);
	CHECK_EQ_U(a2b->rtt.count, 1);
	a_done(&t);

	a_init(&t, 1024);
	REQUIRE(t.a && xa);
	snd(&t, 100, 0);
	rq(&t, ROCE_OP_RC_RDMA_WRITE_ONLY, 101, true, 64, 64, 1 * US);
	snd(&t, 102, 2 * US);
	ack(&t, 100, 5 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_ACK_RTT);
	nak(&t, 101, 0x62, 6 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_NAK);
	nak(&t, 101, 0x63, 7 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_NAK);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.naks, 2);
	CHECK_EQ_U(s.nak_codes[ROCE_NAK_REMOTE_ACCESS], 1);
	CHECK_EQ_U(s.nak_codes[ROCE_NAK_REMOTE_OP], 1);
	CHECK_EQ_U(s.psn_gaps + s.duplicates + s.out_of_order + s.retransmissions, 0);
	CHECK_EQ_U(s.unrecovered_psns, 0);
	flows_get(&t, &fl);
	REQUIRE((b2a = resp_flow(&fl)) != NULL);
	CHECK_EQ_U(b2a->naks, 2);
	check_counters_add_up(&t, false);
	a_done(&t);
}

/*
 * A NAK repeated before the requester reacts (a responder that NAKs each
 * out-of-sequence packet, or re-NAKs on its own timer): the same PSN twice
 * is one pending NAK keeping the first one's time (docs/json.md), so one
 * episode, nak_response from the first NAK; both count in naks.  Then a
 * duplicate ACK and an older ACK on a response stream that has a READ hole:
 * ACK PSNs are never READ PSNs, the hole stays (no event, still unrecovered).
 */
static void test_nak_repeated(void)
{
	struct t t;
	struct roce_summary s;
	struct flows fl;
	const struct roce_flow_stats *a2b, *b2a;
	uint64_t nak1;

	a_init_nocopy(&t, 1024);    /* NAK and ACKs repeated 1 us apart: no copies */
	REQUIRE(t.a && xa);
	snd(&t, 100, 0);
	snd(&t, 101, 1 * US);
	snd(&t, 103, 2 * US);
	snd(&t, 104, 3 * US);
	nak(&t, 102, 0x60, 5 * US);
	nak1 = t.frame;
	nak(&t, 102, 0x60, 8 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_NAK);
	snd(&t, 102, 20 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_OUT_OF_ORDER);
	CHECK_EQ_U(t.res.ref_frame, nak1);
	snd(&t, 103, 21 * US);
	snd(&t, 104, 22 * US);
	rq(&t, ROCE_OP_RC_RDMA_READ_REQUEST, 105, true, 0, 3072, 23 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_GBN_RECOVERED);
	snd(&t, 108, 24 * US);
	ack(&t, 104, 30 * US);
	rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_FIRST, 105, 0x1f, 1024, 31 * US);
	rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_LAST, 107, 0x1f, 1024, 33 * US);
	CHECK(t.res.events & ROCE_EV_PSN_GAP);
	ack(&t, 108, 34 * US);
	ack(&t, 108, 35 * US);
	CHECK_EQ_U(t.res.events, 0);
	ack(&t, 104, 36 * US);
	CHECK_EQ_U(t.res.events, 0);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.naks, 2);
	CHECK_EQ_U(s.gbn_episodes[ROCE_RETX_NAK], 1);
	CHECK_EQ_U(s.retransmissions, 3);
	CHECK_EQ_U(s.psn_gaps, 2);
	CHECK_EQ_U(s.unrecovered_psns, 1);
	flows_get(&t, &fl);
	REQUIRE((a2b = req_flow(&fl)) != NULL);
	REQUIRE((b2a = resp_flow(&fl)) != NULL);
	CHECK_EQ_U(a2b->nak_response.count, 1);
	CHECK_EQ_U(a2b->nak_response.max_ns, 15 * US);
	CHECK_EQ_U(b2a->unrecovered_psns, 1);
	CHECK_EQ_U(b2a->duplicates + b2a->out_of_order, 0);
	check_counters_add_up(&t, false);
	a_done(&t);
}

/* ------------------------------------------------------------ ACK shapes */

/*
 * AckReq on a MIDDLE packet (rxe asks every RXE_MAX_PKT_PER_ACK packets
 * inside a long message): the ACK of a PSN inside the message times that
 * packet; the LAST's ACK the LAST.  Then an ACK whose PSN is ahead of
 * every request captured (the requests it covers were dropped by the
 * capture, not the network: nothing on the request stream tells their
 * loss, docs/json.md counts gaps on requests and READ ranges only): no
 * event; the request that follows at that PSN + 1 is a gap on the request
 * stream (it passes PSNs never seen), not on the response stream.
 */
static void test_ack_mid_message(void)
{
	struct t t;
	struct roce_summary s;
	struct flows fl;
	const struct roce_flow_stats *a2b, *b2a;

	a_init(&t, 1024);
	REQUIRE(t.a && xa);
	rq(&t, ROCE_OP_RC_RDMA_WRITE_FIRST, 100, false, 1024, 3000, 0);
	rq(&t, ROCE_OP_RC_RDMA_WRITE_MIDDLE, 101, true, 1024, 0, 1 * US);
	rq(&t, ROCE_OP_RC_RDMA_WRITE_LAST, 102, true, 952, 0, 2 * US);
	ack(&t, 101, 5 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_ACK_RTT);
	CHECK_EQ_U(t.res.rtt_ns, 4 * US);
	ack(&t, 102, 7 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_ACK_RTT);
	CHECK_EQ_U(t.res.rtt_ns, 5 * US);
	ack(&t, 110, 20 * US);
	CHECK_EQ_U(t.res.events, 0);
	snd(&t, 111, 21 * US);
	/* (the ACK of 110 acknowledged 103..110 before a request past 102 was seen: the
	 * gap they open is ACKed unseen at once, on this frame; an_acked.c) */
	CHECK_EQ_U(t.res.events, ROCE_EV_PSN_GAP | ROCE_EV_ACKED_UNSEEN);
	CHECK_EQ_U(t.res.lost_psns, 8);
	CHECK_EQ_U(t.res.acked_unseen_psns, 8);
	ack(&t, 111, 22 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_ACK_RTT);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.psn_gaps, 1);
	CHECK_EQ_U(s.acks, 4);
	flows_get(&t, &fl);
	REQUIRE((a2b = req_flow(&fl)) != NULL);
	REQUIRE((b2a = resp_flow(&fl)) != NULL);
	CHECK_EQ_U(a2b->rtt.count, 3);
	CHECK_EQ_U(a2b->messages, 2);
	CHECK_EQ_U(b2a->psn_gaps + b2a->duplicates + b2a->out_of_order, 0);
	CHECK_EQ_U(b2a->unrecovered_psns, 0);
	check_counters_add_up(&t, false);
	a_done(&t);
}

/* ------------------------------------------------------------------- XRC */

/*
 * Several XRC SRQs behind one XRC target QP (IBTA 14.x: the XRCETH names the
 * SRQ of each request; the PSN sequence is the target QP's, one for all of
 * them): requests to SRQs 1, 2 and 3 interleaved on PSNs 200..205 are in
 * order; a loss among them is one gap of that sequence, repaired by one
 * go-back that resends requests of every SRQ.
 */
static void test_xrc_srqs(void)
{
	struct t t;
	struct roce_summary s;
	struct flows fl;
	const struct roce_flow_stats *a2b;

	a_init(&t, 1024);
	REQUIRE(t.a && xa);
	for (uint32_t i = 0; i < 6; i++) {
		xrc_srq(&t, ROCE_OP_XRC_SEND_ONLY, 200 + i, 1 + i % 3, i * US);
		CHECK_EQ_U(t.res.events, 0);
	}
	rs(&t, ROCE_OP_XRC_ACKNOWLEDGE, 205, 0x1f, 0, 10 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_ACK_RTT);
	xrc_srq(&t, ROCE_OP_XRC_SEND_ONLY, 206, 1, 20 * US);
	xrc_srq(&t, ROCE_OP_XRC_SEND_ONLY, 208, 3, 21 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_PSN_GAP);
	rs(&t, ROCE_OP_XRC_ACKNOWLEDGE, 207, 0x60, 0, 22 * US);
	xrc_srq(&t, ROCE_OP_XRC_SEND_ONLY, 207, 2, 30 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_OUT_OF_ORDER);
	xrc_srq(&t, ROCE_OP_XRC_SEND_ONLY, 208, 3, 31 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_DUPLICATE);
	xrc_srq(&t, ROCE_OP_XRC_SEND_ONLY, 209, 1, 32 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_GBN_RECOVERED);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.flows, 2);
	CHECK_EQ_U(s.psn_gaps, 1);
	CHECK_EQ_U(s.retransmissions, 2);
	CHECK_EQ_U(s.gbn_episodes[ROCE_RETX_NAK], 1);
	CHECK_EQ_U(s.unrecovered_psns, 0);
	flows_get(&t, &fl);
	REQUIRE((a2b = req_flow(&fl)) != NULL);
	CHECK_EQ_U(a2b->messages, 10);
	check_counters_add_up(&t, false);
	a_done(&t);
}

/* ----------------------------------------- captures cut inside a recovery */

/*
 * The capture starts inside a recovery: the originals 103 and 104 went by
 * before it, 105 and 106 are its first frames, then the responder's NAK of
 * 103 and the go-back 103..106 (docs/json.md: a request behind the stream's
 * first PSN that had not been seen fills like a gap).  103 and 104 are out of
 * order and retransmissions (one episode, the NAK's), 105 and 106 duplicates
 * of the run; 107 ends it.  Nothing is lost, nothing unrecovered.
 */
static void test_capture_starts_in_recovery(void)
{
	struct t t;
	struct roce_summary s;

	a_init(&t, 0);
	REQUIRE(t.a && xa);
	snd(&t, 105, 0);
	snd(&t, 106, 1 * US);
	nak(&t, 103, 0x60, 3 * US);
	snd(&t, 103, 10 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_OUT_OF_ORDER);
	CHECK_EQ_U(t.res.retx_cause, ROCE_RETX_NAK);
	snd(&t, 104, 11 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_OUT_OF_ORDER);
	snd(&t, 105, 12 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_DUPLICATE);
	snd(&t, 106, 13 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_DUPLICATE);
	snd(&t, 107, 14 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_GBN_RECOVERED);
	ack(&t, 107, 16 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_ACK_RTT);
	/* a repeat of a PSN from before the first is a duplicate now */
	snd(&t, 103, 5000 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_DUPLICATE);
	CHECK_EQ_U(t.res.retx_cause, ROCE_RETX_TIMEOUT);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.psn_gaps, 0);
	CHECK_EQ_U(s.lost_psns, 0);
	CHECK_EQ_U(s.out_of_order, 2);
	CHECK_EQ_U(s.duplicates, 3);
	CHECK_EQ_U(s.retransmissions, 5);
	CHECK_EQ_U(s.gbn_episodes[ROCE_RETX_NAK], 1);
	CHECK_EQ_U(s.gbn_episodes[ROCE_RETX_TIMEOUT], 1);
	CHECK_EQ_U(s.unrecovered_psns, 0);
	check_counters_add_up(&t, false);
	a_done(&t);
}

/*
 * The capture ends inside a recovery: 102 lost, NAK 102, the resend of 102
 * lost again before the capture point, 103 resent (a duplicate: a go-back of
 * the NAK), then the end.  102 is one missing PSN: one gap, one PSN lost,
 * one unrecovered; the lost resend adds no gap (the run's previous packet
 * was none, the run starts at 103).  On the response side, a READ whose
 * response 12 is lost (one gap, 12 unrecovered) and whose retry (READ 12 for
 * the rest, a duplicate on the request stream) is captured, its response
 * not: 12 stays unrecovered, counted once (on the response stream only).
 */
static void test_capture_ends_in_recovery(void)
{
	struct t t;
	struct roce_summary s;
	struct flows fl;
	const struct roce_flow_stats *a2b, *b2a;

	a_init(&t, 0);
	REQUIRE(t.a && xa);
	snd(&t, 100, 0);
	snd(&t, 101, 1 * US);
	snd(&t, 103, 2 * US);
	snd(&t, 104, 3 * US);
	nak(&t, 102, 0x60, 5 * US);
	snd(&t, 103, 10 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_DUPLICATE);
	CHECK_EQ_U(t.res.retx_cause, ROCE_RETX_NAK);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.psn_gaps, 1);
	CHECK_EQ_U(s.lost_psns, 1);
	CHECK_EQ_U(s.unrecovered_psns, 1);
	CHECK_EQ_U(s.retransmissions, 1);
	CHECK_EQ_U(t.an[ROCE_AN_UNRECOVERED], 1);
	a_done(&t);

	a_init(&t, 1024);
	REQUIRE(t.a && xa);
	rq(&t, ROCE_OP_RC_RDMA_READ_REQUEST, 10, true, 0, 4096, 0);
	rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_FIRST, 10, 0x1f, 1024, 5 * US);
	rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE, 11, 0, 1024, 6 * US);
	rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_LAST, 13, 0x1f, 1024, 8 * US);
	CHECK(t.res.events & ROCE_EV_PSN_GAP);
	rq(&t, ROCE_OP_RC_RDMA_READ_REQUEST, 12, true, 0, 2048, 5000 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_DUPLICATE);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.psn_gaps, 1);
	CHECK_EQ_U(s.lost_psns, 1);
	CHECK_EQ_U(s.unrecovered_psns, 1);
	flows_get(&t, &fl);
	REQUIRE((a2b = req_flow(&fl)) != NULL);
	REQUIRE((b2a = resp_flow(&fl)) != NULL);
	CHECK_EQ_U(a2b->unrecovered_psns, 0);
	CHECK_EQ_U(b2a->unrecovered_psns, 1);
	check_counters_add_up(&t, false);
	a_done(&t);
}

/*
 * The same across the wrap: the capture's first requests are 1 and 2, the
 * NAK names 0xfffffe, the go-back resends 0xfffffe, 0xffffff (both behind the
 * first PSN, never seen: out of order), 0, 1 and 2 (0 was never seen either:
 * out of order too), and 3 ends the run.
 */
static void test_capture_starts_in_recovery_wrap(void)
{
	struct t t;
	struct roce_summary s;

	a_init(&t, 0);
	REQUIRE(t.a && xa);
	snd(&t, 1, 0);
	snd(&t, 2, 1 * US);
	nak(&t, 0xfffffe, 0x60, 3 * US);
	snd(&t, 0xfffffe, 10 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_OUT_OF_ORDER);
	CHECK_EQ_U(t.res.retx_cause, ROCE_RETX_NAK);
	snd(&t, 0xffffff, 11 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_OUT_OF_ORDER);
	snd(&t, 0, 12 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_OUT_OF_ORDER);
	snd(&t, 1, 13 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_DUPLICATE);
	snd(&t, 2, 14 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_DUPLICATE);
	snd(&t, 3, 15 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_GBN_RECOVERED);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.psn_gaps, 0);
	CHECK_EQ_U(s.out_of_order, 3);
	CHECK_EQ_U(s.duplicates, 2);
	CHECK_EQ_U(s.retransmissions, 5);
	CHECK_EQ_U(s.gbn_episodes[ROCE_RETX_NAK], 1);
	CHECK_EQ_U(s.unrecovered_psns, 0);
	check_counters_add_up(&t, false);
	a_done(&t);
}

/*
 * An RNR NAK inside a message: a WRITE with immediate consumes a receive WQE
 * at its LAST packet, so the responder RNR-NAKs the LAST (101), not the FIRST.
 * rxe's requester goes back to the oldest unacknowledged PSN, the FIRST (100):
 * a repeated PSN with the RNR NAK pending (naming 101) is the RNR NAK's
 * go-back (docs/json.md: the pending NAK, whatever PSN it names); 101 is in
 * the run; 102 ends it.  The RNR NAK is a NAK (naks, rnr_naks), not a
 * sequence error.
 */
static void test_rnr_on_last(void)
{
	struct t t;
	struct roce_summary s;
	uint64_t rnr_frame;

	a_init(&t, 1024);
	REQUIRE(t.a && xa);
	rq(&t, ROCE_OP_RC_RDMA_WRITE_FIRST, 100, false, 1024, 1500, 0);
	rq(&t, ROCE_OP_RC_RDMA_WRITE_LAST_WITH_IMMEDIATE, 101, true, 476, 0, 1 * US);
	nak(&t, 101, 0x20 | 3, 5 * US);         /* RNR, 0.03 ms */
	rnr_frame = t.frame;
	CHECK_EQ_U(t.res.events, ROCE_EV_RNR_NAK);
	rq(&t, ROCE_OP_RC_RDMA_WRITE_FIRST, 100, false, 1024, 1500, 40 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_DUPLICATE);
	CHECK_EQ_U(t.res.retx_cause, ROCE_RETX_RNR);
	CHECK_EQ_U(t.res.ref_frame, rnr_frame);
	rq(&t, ROCE_OP_RC_RDMA_WRITE_LAST_WITH_IMMEDIATE, 101, true, 476, 0, 41 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_DUPLICATE);
	ack(&t, 101, 45 * US);
	CHECK_EQ_U(t.res.events, 0);            /* the resend is not timed (Karn) */
	snd(&t, 102, 50 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_GBN_RECOVERED);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.naks, 1);
	CHECK_EQ_U(s.rnr_naks, 1);
	CHECK_EQ_U(s.nak_codes[ROCE_NAK_PSN_SEQ_ERR], 0);
	CHECK_EQ_U(s.gbn_episodes[ROCE_RETX_RNR], 1);
	CHECK_EQ_U(s.retransmissions, 2);
	CHECK_EQ_U(s.duplicates, 2);
	CHECK_EQ_U(s.psn_gaps + s.out_of_order + s.unrecovered_psns, 0);
	check_counters_add_up(&t, false);
	a_done(&t);
}

/*
 * The response stream's first frame is a NAK.  Naming the READ's own PSN (the
 * READ request lost on the way: the responder expects it) passes nothing: no
 * gap.  Naming the PSN after two READs and a SEND it executed (the next SEND
 * lost), it passes their responses: a gap of the 4 READ PSNs (the SEND's PSN
 * is no READ response), unrecovered.
 */
static void test_first_frame_nak(void)
{
	struct t t;
	struct roce_summary s;

	a_init(&t, 1024);
	REQUIRE(t.a && xa);
	rq(&t, ROCE_OP_RC_RDMA_READ_REQUEST, 10, true, 0, 2048, 0);
	snd(&t, 12, 1 * US);
	nak(&t, 10, 0x60, 5 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_NAK);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.psn_gaps + s.lost_psns + s.unrecovered_psns, 0);
	a_done(&t);

	a_init(&t, 1024);
	REQUIRE(t.a && xa);
	rq(&t, ROCE_OP_RC_RDMA_READ_REQUEST, 10, true, 0, 2048, 0);
	snd(&t, 12, 1 * US);
	rq(&t, ROCE_OP_RC_RDMA_READ_REQUEST, 13, true, 0, 2048, 2 * US);
	snd(&t, 15, 3 * US);
	snd(&t, 16, 4 * US);
	nak(&t, 15, 0x60, 9 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_NAK | ROCE_EV_PSN_GAP);
	CHECK_EQ_U(t.res.expected_psn, 10);
	CHECK_EQ_U(t.res.lost_psns, 4);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.psn_gaps, 1);
	CHECK_EQ_U(s.lost_psns, 4);
	CHECK_EQ_U(s.unrecovered_psns, 4);
	check_counters_add_up(&t, false);
	a_done(&t);
}

/* ------------------------------------------------------- READs and the wrap */

/*
 * A READ across the wrap with the path MTU unknown (no --pmtu, nothing
 * learned yet): READ 0xfffffc of 8192 bytes takes 2 to 32 PSNs until its
 * responses tell (their FIRST carries one PMTU, 1024: 8 PSNs, 0xfffffc..3).
 * The SEND after it at 4 is in order; its responses come in order across the
 * wrap, response 0xffffff is lost (the next one, 0, passes it: one gap of 1)
 * and stays unrecovered.
 */
static void test_read_wrap_pmtu_unknown(void)
{
	struct t t;
	struct roce_summary s;
	struct flows fl;
	const struct roce_flow_stats *a2b, *b2a;

	a_init(&t, 0);
	REQUIRE(t.a && xa);
	rq(&t, ROCE_OP_RC_RDMA_READ_REQUEST, 0xfffffc, true, 0, 8192, 0);
	snd(&t, 4, 1 * US);
	CHECK_EQ_U(t.res.events, 0);
	for (uint32_t i = 0; i < 8; i++) {
		uint32_t p = (0xfffffc + i) & 0xffffff;
		uint8_t op = i == 0 ? ROCE_OP_RC_RDMA_READ_RESPONSE_FIRST :
			i == 7 ? ROCE_OP_RC_RDMA_READ_RESPONSE_LAST :
			ROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE;

		if (p == 0xffffff)
			continue;
		rs(&t, op, p, i == 0 || i == 7 ? 0x1f : 0, 1024, (5 + i) * US);
		if (p == 0) {
			CHECK_EQ_U(t.res.events, ROCE_EV_PSN_GAP);
			CHECK_EQ_U(t.res.expected_psn, 0xffffff);
			CHECK_EQ_U(t.res.lost_psns, 1);
		}
	}
	ack(&t, 4, 20 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_ACK_RTT);
	snd(&t, 5, 21 * US);
	CHECK_EQ_U(t.res.events, 0);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.psn_gaps, 1);
	CHECK_EQ_U(s.lost_psns, 1);
	CHECK_EQ_U(s.unrecovered_psns, 1);
	CHECK_EQ_U(s.duplicates + s.out_of_order, 0);
	flows_get(&t, &fl);
	REQUIRE((a2b = req_flow(&fl)) != NULL);
	REQUIRE((b2a = resp_flow(&fl)) != NULL);
	CHECK_EQ_U(a2b->read_first.count, 1);
	CHECK_EQ_U(a2b->read_last.count, 1);
	CHECK_EQ_U(b2a->unrecovered_psns, 1);
	check_counters_add_up(&t, false);
	a_done(&t);
}

/*
 * READ responses lost before the response stream's first frame.  Two READs
 * (10..11 and 12..13) and a SEND 14 are captured; the responder answers in
 * PSN order (IBTA 9.5), so the responses of READ 10 come after its request,
 * which the capture saw: when the first response captured is 12 (READ 12's
 * FIRST), responses 10 and 11 were lost before the capture point, exactly
 * as if 12 were a later frame of the stream (docs/json.md: a frame that
 * passes PSNs of known READ ranges never seen).  One gap of 2, unrecovered.
 * Likewise when the first frame is the ACK of 14 (an implied NAK of both
 * READs, test_analyzer_audit.c's test_implied_nak mid-stream): 4 PSNs.
 */
static void test_read_lost_before_first_response(void)
{
	struct t t;
	struct roce_summary s;

	for (int v = 0; v < 2; v++) {
		a_init(&t, 1024);
		REQUIRE(t.a && xa);
		rq(&t, ROCE_OP_RC_RDMA_READ_REQUEST, 10, true, 0, 2048, 0);
		rq(&t, ROCE_OP_RC_RDMA_READ_REQUEST, 12, true, 0, 2048, 1 * US);
		snd(&t, 14, 2 * US);
		if (v == 0) {
			rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_FIRST, 12, 0x1f, 1024, 10 * US);
			CHECK(t.res.events & ROCE_EV_PSN_GAP);
			CHECK_EQ_U(t.res.expected_psn, 10);
			CHECK_EQ_U(t.res.lost_psns, 2);
			rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_LAST, 13, 0x1f, 1024, 11 * US);
			CHECK_EQ_U(t.res.events, ROCE_EV_READ_LAST_RESP);
			ack(&t, 14, 12 * US);
			CHECK_EQ_U(t.res.events, ROCE_EV_ACK_RTT);
		} else {
			ack(&t, 14, 12 * US);
			CHECK(t.res.events & ROCE_EV_PSN_GAP);
			CHECK_EQ_U(t.res.expected_psn, 10);
			CHECK_EQ_U(t.res.lost_psns, 4);
		}
		roce_analyzer_finish(t.a);
		sum(&t, &s);
		CHECK_EQ_U(s.psn_gaps, 1);
		CHECK_EQ_U(s.lost_psns, (v ? 4u : 2u));
		CHECK_EQ_U(s.unrecovered_psns, (v ? 4u : 2u));
		CHECK_EQ_U(s.duplicates + s.out_of_order, 0);
		check_counters_add_up(&t, false);
		a_done(&t);
	}
}

/*
 * Round trips of READs and atomics whose own response was lost
 * (docs/json.md rtt_us: a READ or atomic is covered by its first response or
 * its ATOMIC ACK).  An ACK, or a later request's response, past a READ or an
 * atomic whose response was not seen does not answer it: it is an implied NAK
 * (IBTA 9.7.5.1.5, mlx5's implied_nak_seq_err), the requester re-issues it.
 * So the ACK of SEND 14 past READ 13 (its only response lost) times SEND 14
 * alone (one sample, 14's); the ATOMIC ACK of 16 past FETCH_ADD 15 (its
 * ATOMIC ACK lost) times 16 alone; READ 17's FIRST lost, its LAST (its own
 * response) times it; READ 19's responses lost, READ 20's response times 20
 * only.  Before, each of the three had a sample from the later response.
 */
static void test_rtt_implied_nak(void)
{
	struct t t;
	struct flows fl;
	const struct roce_flow_stats *a2b;
	uint64_t f14;

	a_init(&t, 1024);
	REQUIRE(t.a && xa);
	rq(&t, ROCE_OP_RC_RDMA_READ_REQUEST, 13, true, 0, 64, 0);
	snd(&t, 14, 10 * US);
	f14 = t.frame;
	ack(&t, 14, 30 * US);
	CHECK(t.res.events & ROCE_EV_ACK_RTT);
	CHECK_EQ_U(t.res.rtt_ns, 20 * US);
	CHECK_EQ_U(t.res.ref_frame, f14);
	flows_get(&t, &fl);
	REQUIRE((a2b = req_flow(&fl)) != NULL);
	CHECK_EQ_U(a2b->rtt.count, 1);
	CHECK_EQ_U(a2b->rtt.max_ns, 20 * US);
	rq(&t, ROCE_OP_RC_FETCH_ADD, 15, true, 0, 0, 100 * US);
	rq(&t, ROCE_OP_RC_CMP_SWAP, 16, true, 0, 0, 110 * US);
	rs(&t, ROCE_OP_RC_ATOMIC_ACKNOWLEDGE, 16, 0x1f, 0, 115 * US);
	CHECK(t.res.events & ROCE_EV_ACK_RTT);
	CHECK_EQ_U(t.res.rtt_ns, 5 * US);
	flows_get(&t, &fl);
	REQUIRE((a2b = req_flow(&fl)) != NULL);
	CHECK_EQ_U(a2b->rtt.count, 2);
	rq(&t, ROCE_OP_RC_RDMA_READ_REQUEST, 17, true, 0, 2048, 200 * US);
	rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_LAST, 18, 0x1f, 1024, 207 * US);
	CHECK(t.res.events & ROCE_EV_ACK_RTT);
	CHECK_EQ_U(t.res.rtt_ns, 7 * US);
	rq(&t, ROCE_OP_RC_RDMA_READ_REQUEST, 19, true, 0, 64, 300 * US);
	rq(&t, ROCE_OP_RC_RDMA_READ_REQUEST, 20, true, 0, 64, 301 * US);
	rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_ONLY, 20, 0x1f, 64, 305 * US);
	CHECK(t.res.events & ROCE_EV_ACK_RTT);
	CHECK_EQ_U(t.res.rtt_ns, 4 * US);
	roce_analyzer_finish(t.a);
	flows_get(&t, &fl);
	REQUIRE((a2b = req_flow(&fl)) != NULL);
	CHECK_EQ_U(a2b->rtt.count, 4);
	CHECK_EQ_U(a2b->rtt.max_ns, 20 * US);
	CHECK_EQ_U(a2b->read_first.count, 1);       /* READ 20's; 17's FIRST was lost */
	CHECK_EQ_U(a2b->read_last.count, 2);
	check_counters_add_up(&t, false);
	a_done(&t);
}

int main(void)
{
	RUN(test_nak_mid_message);
	RUN(test_nak_twice_same_psn);
	RUN(test_fatal_naks);
	RUN(test_nak_repeated);
	RUN(test_ack_mid_message);
	RUN(test_xrc_srqs);
	RUN(test_capture_starts_in_recovery);
	RUN(test_capture_starts_in_recovery_wrap);
	RUN(test_capture_ends_in_recovery);
	RUN(test_rnr_on_last);
	RUN(test_first_frame_nak);
	RUN(test_read_wrap_pmtu_unknown);
	RUN(test_read_lost_before_first_response);
	RUN(test_rtt_implied_nak);
	return check_report();
}
