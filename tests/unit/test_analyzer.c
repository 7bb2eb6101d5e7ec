// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_analyzer.c - analyzer semantics on frames from the frame builder,
 * run through roce_decode + roce_analyzer_process (an_testlib.h): PSN order,
 * gaps, duplicates, reordering, 24-bit wrap, READ PSN ranges (known and
 * unknown PMTU), READ response gaps, ACK coalescing and latencies, go-back-N
 * causes (NAK, RNR, timeout).  Congestion, PFC, the stream table and the
 * vocabulary are in test_analyzer_events.c.
 */
#include "an_testlib.h"

/* ------------------------------------------------------------------ tests */

static void test_in_order(void)
{
	struct t t;
	struct roce_summary s;
	uint32_t ev = 0;

	t_init(&t, 0);
	REQUIRE(t.a);
	for (uint32_t i = 0; i < 10; i++) {
		send_only(&t, 100 + i, i * US);
		CHECK_EQ_I(t.status, ROCE_OK);
		ev |= t.res.events;
	}
	CHECK_EQ_U(ev, 0);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.frames, 10);
	CHECK_EQ_U(s.roce_frames, 10);
	CHECK_EQ_U(s.rocev2_frames, 10);
	CHECK_EQ_U(s.icrc_ok, 10);
	CHECK_EQ_U(s.opcodes[ROCE_OP_RC_SEND_ONLY], 10);
	CHECK_EQ_U(s.psn_gaps + s.duplicates + s.out_of_order + s.unrecovered_psns, 0);
	CHECK_EQ_U(s.flows, 1);
	CHECK_EQ_U(s.flows_active, 1);
	CHECK_EQ_U(s.first_ts_ns, 0);
	CHECK_EQ_U(s.last_ts_ns, 9 * US);
	check_counters_add_up(&t, false);
	t_done(&t);
}

static void test_gap(void)
{
	struct t t;
	struct roce_summary s;
	struct flows fl;

	t_init(&t, 0);
	REQUIRE(t.a);
	send_only(&t, 100, 0);
	send_only(&t, 101, 1 * US);
	send_only(&t, 105, 2 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_PSN_GAP);
	CHECK_EQ_U(t.res.expected_psn, 102);
	CHECK_EQ_U(t.res.lost_psns, 3);
	CHECK_EQ_U(t.an[ROCE_AN_PSN_GAP], 1);
	CHECK_EQ_U(t.last_an[ROCE_AN_PSN_GAP].expected_psn, 102);
	CHECK_EQ_U(t.last_an[ROCE_AN_PSN_GAP].psn, 105);
	CHECK_EQ_U(t.last_an[ROCE_AN_PSN_GAP].count, 3);
	send_only(&t, 106, 3 * US);
	CHECK_EQ_U(t.res.events, 0);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.psn_gaps, 1);
	CHECK_EQ_U(s.lost_psns, 3);
	CHECK_EQ_U(s.unrecovered_psns, 3);
	CHECK_EQ_U(t.an[ROCE_AN_UNRECOVERED], 1);
	CHECK_EQ_U(t.last_an[ROCE_AN_UNRECOVERED].count, 3);
	flows_get(&t, &fl);
	REQUIRE(fl.n == 1);
	CHECK_EQ_U(fl.f[0].unrecovered_psns, 3);
	CHECK_EQ_U(fl.f[0].first_psn, 100);
	CHECK_EQ_U(fl.f[0].last_psn, 106);
	/* idempotent */
	roce_analyzer_finish(t.a);
	CHECK_EQ_U(t.an[ROCE_AN_UNRECOVERED], 1);
	check_counters_add_up(&t, false);
	t_done(&t);
}

static void test_duplicate_uc(void)
{
	struct t t;
	struct roce_summary s;

	t_init(&t, 0);
	REQUIRE(t.a);
	req(&t, ROCE_OP_UC_SEND_ONLY, 100, false, 8, 0, 0);
	req(&t, ROCE_OP_UC_SEND_ONLY, 101, false, 8, 0, 1 * US);
	/* 20 us later: past the capture-copy window (4 us; 1 us later it would be a
	 * capture copy: test_analyzer_copies.c) */
	req(&t, ROCE_OP_UC_SEND_ONLY, 101, false, 8, 0, 21 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_DUPLICATE);
	CHECK_EQ_U(t.res.expected_psn, 102);
	sum(&t, &s);
	CHECK_EQ_U(s.duplicates, 1);
	CHECK_EQ_U(s.retransmissions, 0);   /* UC never retransmits */
	CHECK_EQ_U(t.an[ROCE_AN_DUPLICATE], 1);
	check_counters_add_up(&t, false);
	t_done(&t);
}

static void test_out_of_order(void)
{
	struct t t;
	struct roce_summary s;

	t_init(&t, 0);
	REQUIRE(t.a);
	send_only(&t, 100, 0);
	send_only(&t, 102, 1 * US);
	CHECK(t.res.events & ROCE_EV_PSN_GAP);
	send_only(&t, 101, 2 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_OUT_OF_ORDER);
	CHECK_EQ_U(t.res.expected_psn, 103);
	send_only(&t, 103, 3 * US);
	CHECK_EQ_U(t.res.events, 0);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.out_of_order, 1);
	CHECK_EQ_U(s.psn_gaps, 1);
	CHECK_EQ_U(s.unrecovered_psns, 0);
	CHECK_EQ_U(s.retransmissions, 0);
	CHECK_EQ_U(s.duplicates, 0);
	CHECK_EQ_U(t.an[ROCE_AN_OUT_OF_ORDER], 1);
	check_counters_add_up(&t, false);
	t_done(&t);
}

static void test_wrap(void)
{
	struct t t;
	struct roce_summary s;
	uint32_t ev = 0;

	t_init(&t, 0);
	REQUIRE(t.a);
	send_only(&t, 0xfffffe, 0);
	send_only(&t, 0xffffff, 1 * US);
	ev |= t.res.events;
	send_only(&t, 0, 2 * US);
	ev |= t.res.events;
	send_only(&t, 1, 3 * US);
	ev |= t.res.events;
	CHECK_EQ_U(ev, 0);
	sum(&t, &s);
	CHECK_EQ_U(s.psn_gaps, 0);
	check_counters_add_up(&t, false);
	t_done(&t);

	/* a gap across the wrap */
	t_init(&t, 0);
	REQUIRE(t.a);
	send_only(&t, 0xfffffe, 0);
	send_only(&t, 1, 1 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_PSN_GAP);
	CHECK_EQ_U(t.res.expected_psn, 0xffffff);
	CHECK_EQ_U(t.res.lost_psns, 2);
	send_only(&t, 0, 2 * US);       /* fills inside the wrapped hole */
	CHECK_EQ_U(t.res.events, ROCE_EV_OUT_OF_ORDER);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.unrecovered_psns, 1);  /* 0xffffff still missing */
	check_counters_add_up(&t, false);
	t_done(&t);
}

static void test_read_known_pmtu(void)
{
	struct t t;
	struct roce_summary s;

	t_init(&t, 1024);
	REQUIRE(t.a);
	req(&t, ROCE_OP_RC_RDMA_READ_REQUEST, 10, true, 0, 4096, 0);
	CHECK_EQ_U(t.res.events, 0);
	send_only(&t, 14, 1 * US);      /* READ consumed 10..13 */
	CHECK_EQ_U(t.res.events, 0);
	send_only(&t, 16, 2 * US);      /* 15 missing */
	CHECK_EQ_U(t.res.events, ROCE_EV_PSN_GAP);
	CHECK_EQ_U(t.res.expected_psn, 15);
	CHECK_EQ_U(t.res.lost_psns, 1);
	sum(&t, &s);
	CHECK_EQ_U(s.pmtu, 1024);
	check_counters_add_up(&t, false);
	t_done(&t);
}

static void test_read_unknown_pmtu(void)
{
	struct t t;
	struct roce_summary s;

	/* 4096 bytes: N somewhere in [1, 16]; next request at +4 pins N = 4 */
	t_init(&t, 0);
	REQUIRE(t.a);
	req(&t, ROCE_OP_RC_RDMA_READ_REQUEST, 10, true, 0, 4096, 0);
	send_only(&t, 14, 1 * US);
	CHECK_EQ_U(t.res.events, 0);
	send_only(&t, 15, 2 * US);
	CHECK_EQ_U(t.res.events, 0);
	send_only(&t, 17, 3 * US);      /* pinned: a later jump is a gap again */
	CHECK_EQ_U(t.res.events, ROCE_EV_PSN_GAP);
	CHECK_EQ_U(t.res.expected_psn, 16);
	CHECK_EQ_U(t.res.lost_psns, 1);
	sum(&t, &s);
	CHECK_EQ_U(s.psn_gaps, 1);
	check_counters_add_up(&t, false);
	t_done(&t);

	/* beyond the largest possible N (16 at PMTU 256): gap counted from 26 */
	t_init(&t, 0);
	REQUIRE(t.a);
	req(&t, ROCE_OP_RC_RDMA_READ_REQUEST, 10, true, 0, 4096, 0);
	send_only(&t, 30, 1 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_PSN_GAP);
	CHECK_EQ_U(t.res.expected_psn, 26);
	CHECK_EQ_U(t.res.lost_psns, 4);
	check_counters_add_up(&t, false);
	t_done(&t);

	/* the READ's LAST response pins N too */
	t_init(&t, 0);
	REQUIRE(t.a);
	req(&t, ROCE_OP_RC_RDMA_READ_REQUEST, 10, true, 0, 2048, 0);
	resp(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_FIRST, 10, 0x1f, 1024, 10 * US);
	CHECK(t.res.events & ROCE_EV_READ_FIRST_RESP);
	CHECK_EQ_U(t.res.read_ns, 10 * US);
	CHECK_EQ_U(t.res.ref_frame, 1);
	resp(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_LAST, 11, 0x1f, 1024, 12 * US);
	CHECK(t.res.events & ROCE_EV_READ_LAST_RESP);
	CHECK_EQ_U(t.res.read_ns, 12 * US);
	send_only(&t, 13, 20 * US);     /* N = 2: PSN 12 is missing */
	CHECK_EQ_U(t.res.events, ROCE_EV_PSN_GAP);
	CHECK_EQ_U(t.res.expected_psn, 12);
	sum(&t, &s);
	CHECK_EQ_U(s.pmtu, 1024);       /* learned from READ_RESPONSE_FIRST */
	check_counters_add_up(&t, false);
	t_done(&t);
}

static void test_read_response_gap(void)
{
	struct t t;
	struct roce_summary s;
	struct flows fl;
	const struct roce_flow_stats *rq, *rs;

	t_init(&t, 1024);
	REQUIRE(t.a);
	req(&t, ROCE_OP_RC_RDMA_READ_REQUEST, 10, true, 0, 4096, 0);
	resp(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_FIRST, 10, 0x1f, 1024, 5 * US);
	CHECK_EQ_U(t.res.events & ~(ROCE_EV_READ_FIRST_RESP | ROCE_EV_ACK_RTT), 0);
	resp(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE, 11, 0, 1024, 6 * US);
	CHECK_EQ_U(t.res.events, 0);
	resp(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_LAST, 13, 0x1f, 1024, 8 * US);
	CHECK(t.res.events & ROCE_EV_PSN_GAP);
	CHECK(t.res.events & ROCE_EV_READ_LAST_RESP);
	CHECK_EQ_U(t.res.expected_psn, 12);
	CHECK_EQ_U(t.res.lost_psns, 1);
	sum(&t, &s);
	CHECK_EQ_U(s.psn_gaps, 1);
	CHECK_EQ_U(s.acks, 2);          /* AETH on FIRST and LAST */
	flows_get(&t, &fl);
	rq = req_flow(&fl);
	rs = resp_flow(&fl);
	REQUIRE(rq && rs);
	CHECK(rq->has_peer && rs->has_peer);
	CHECK_EQ_U(rq->peer.dqpn, QP_A);
	CHECK_EQ_U(rs->psn_gaps, 1);
	CHECK_EQ_U(rq->psn_gaps, 0);
	CHECK_EQ_U(rq->read_first.count, 1);
	CHECK_EQ_U(rq->read_first.min_ns, 5 * US);
	CHECK_EQ_U(rq->read_last.count, 1);
	CHECK_EQ_U(rq->read_last.max_ns, 8 * US);
	check_counters_add_up(&t, false);
	t_done(&t);
}

static void test_ack_coalescing(void)
{
	struct t t;
	struct roce_summary s;
	struct flows fl;
	const struct roce_flow_stats *rq;

	t_init(&t, 0);
	REQUIRE(t.a);
	for (uint32_t i = 0; i < 10; i++)
		req(&t, ROCE_OP_RC_RDMA_WRITE_ONLY, 100 + i, true, 64, 64, i * US);
	resp(&t, ROCE_OP_RC_ACKNOWLEDGE, 109, 0x1f, 0, 20 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_ACK_RTT);
	CHECK_EQ_U(t.res.ref_frame, 10);        /* the request that asked for it */
	CHECK_EQ_U(t.res.rtt_ns, 11 * US);
	CHECK_EQ_U(t.res.aeth_syndrome, 0x1f);
	resp(&t, ROCE_OP_RC_ACKNOWLEDGE, 109, 0x1f, 0, 30 * US);  /* duplicate ACK */
	CHECK_EQ_U(t.res.events, 0);
	sum(&t, &s);
	CHECK_EQ_U(s.psn_gaps + s.duplicates, 0);
	CHECK_EQ_U(s.acks, 2);
	flows_get(&t, &fl);
	rq = req_flow(&fl);
	REQUIRE(rq);
	CHECK_EQ_U(rq->rtt.count, 10);
	CHECK_EQ_U(rq->rtt.min_ns, 11 * US);
	CHECK_EQ_U(rq->rtt.max_ns, 20 * US);
	CHECK(rq->rtt.p50_ns >= 15 * US && rq->rtt.p50_ns <= 16 * US + 512);
	CHECK(rq->rtt.p99_ns <= 20 * US && rq->rtt.p99_ns >= 19 * US);
	CHECK_EQ_U(rq->messages, 10);
	CHECK_EQ_U(rq->payload_bytes, 640);
	check_counters_add_up(&t, false);
	t_done(&t);
}

/*
 * A new connection on the reused QPN (a request PSN 2^22 or more away) starts the
 * request sequencing over; the stream's ACK and READ latencies, kept with that state
 * (struct an_req), stay: the samples before and after are one distribution each.
 */
static void test_latency_kept_on_resync(void)
{
	struct t t;
	struct flows fl;
	const struct roce_flow_stats *rq;
	const uint32_t far = 100 + (1u << 23);

	t_init(&t, 0);
	REQUIRE(t.a);
	/* three round trips of 5, 6 and 9 us (a histogram), then a READ of 7 us */
	for (uint32_t i = 0; i < 3; i++) {
		uint64_t rtt = (i == 2 ? 9 : 5 + i) * US;

		send_only(&t, 100 + i, i * 100 * US);
		resp(&t, ROCE_OP_RC_ACKNOWLEDGE, 100 + i, 0x1f, 0, i * 100 * US + rtt);
		CHECK_EQ_U(t.res.events, ROCE_EV_ACK_RTT);
	}
	req(&t, ROCE_OP_RC_RDMA_READ_REQUEST, 103, true, 0, 16, 400 * US);
	resp(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_ONLY, 103, 0x1f, 16, 407 * US);
	CHECK(t.res.events & ROCE_EV_READ_LAST_RESP);
	/* the new connection: one round trip of 3 us, a READ of 20 us */
	send_only(&t, far, 500 * US);
	CHECK_EQ_U(t.res.events, 0);
	resp(&t, ROCE_OP_RC_ACKNOWLEDGE, far, 0x1f, 0, 503 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_ACK_RTT);
	req(&t, ROCE_OP_RC_RDMA_READ_REQUEST, far + 1, true, 0, 16, 600 * US);
	resp(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_ONLY, far + 1, 0x1f, 16, 620 * US);
	CHECK(t.res.events & ROCE_EV_READ_FIRST_RESP);
	flows_get(&t, &fl);
	rq = req_flow(&fl);
	REQUIRE(rq);
	CHECK_EQ_U(rq->rtt.count, 6);   /* (a READ response is its READ's ACK too) */
	CHECK_EQ_U(rq->rtt.min_ns, 3 * US);
	CHECK_EQ_U(rq->rtt.max_ns, 20 * US);
	CHECK_EQ_U(rq->read_first.count, 2);
	CHECK_EQ_U(rq->read_first.min_ns, 7 * US);
	CHECK_EQ_U(rq->read_first.max_ns, 20 * US);
	CHECK_EQ_U(rq->read_last.count, 2);
	CHECK_EQ_U(rq->read_last.min_ns, 7 * US);
	t_done(&t);
}

/*
 * Both ends of a queue pair send requests: the B -> A stream, paired as A's
 * responder, starts its own request state after the pairing (struct
 * an_req_lat from the start) and the A -> B stream's ACKs time B's requests;
 * each stream's round trips are its own.
 */
static void test_latency_both_ways(void)
{
	struct t t;
	struct flows fl;
	struct roce_frame_spec s;
	const struct roce_flow_stats *ab, *ba;

	t_init(&t, 0);
	REQUIRE(t.a);
	for (uint32_t i = 0; i < 2; i++) {
		send_only(&t, 100 + i, i * 100 * US);
		resp(&t, ROCE_OP_RC_ACKNOWLEDGE, 100 + i, 0x1f, 0, i * 100 * US + 4 * US);
		CHECK_EQ_U(t.res.events, ROCE_EV_ACK_RTT);
	}
	for (uint32_t i = 0; i < 3; i++) {
		spec_dir(&s, false, ROCE_OP_RC_SEND_ONLY, 500 + i);     /* B -> A request */
		s.bth.ackreq = true;
		s.payload_len = 16;
		feed(&t, &s, 1000 * US + i * 100 * US);
		spec_dir(&s, true, ROCE_OP_RC_ACKNOWLEDGE, 500 + i);    /* A's ACK */
		s.aeth.syndrome = 0x1f;
		s.aeth.msn = 1;
		feed(&t, &s, 1000 * US + i * 100 * US + (6 + i) * US);
		CHECK_EQ_U(t.res.events, ROCE_EV_ACK_RTT);
	}
	flows_get(&t, &fl);
	ab = req_flow(&fl);
	ba = resp_flow(&fl);
	REQUIRE(ab && ba);
	CHECK_EQ_U(ab->rtt.count, 2);
	CHECK_EQ_U(ab->rtt.min_ns, 4 * US);
	CHECK_EQ_U(ab->rtt.max_ns, 4 * US);
	CHECK_EQ_U(ba->rtt.count, 3);
	CHECK_EQ_U(ba->rtt.min_ns, 6 * US);
	CHECK_EQ_U(ba->rtt.max_ns, 8 * US);
	CHECK_EQ_U(ba->messages, 3);
	t_done(&t);
}

/*
 * A paired stream's first AckReq and READ ring entries are in its request record (struct
 * an_req_lat): a one-entry ring moves there at the pairing, a larger one stays on the heap,
 * one there that outgrows it moves to the heap; each response still finds its request.
 */
static void test_latency_rings_in_record(void)
{
	struct t t;
	struct flows fl;
	const struct roce_flow_stats *rq;

	/* the AckReq ring (one entry) moves at the pairing, then both rings outgrow the record */
	t_init(&t, 0);
	REQUIRE(t.a);
	send_only(&t, 100, 1000 * US);
	resp(&t, ROCE_OP_RC_ACKNOWLEDGE, 100, 0x1f, 0, 1005 * US);     /* pairs: 5 us */
	CHECK_EQ_U(t.res.events, ROCE_EV_ACK_RTT);
	req(&t, ROCE_OP_RC_RDMA_READ_REQUEST, 101, true, 0, 16, 2000 * US);
	req(&t, ROCE_OP_RC_RDMA_READ_REQUEST, 102, true, 0, 16, 2001 * US);
	send_only(&t, 103, 2002 * US);
	resp(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_ONLY, 101, 0x1f, 16, 2011 * US);  /* 11 us */
	resp(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_ONLY, 102, 0x1f, 16, 2013 * US);  /* 12 us */
	resp(&t, ROCE_OP_RC_ACKNOWLEDGE, 103, 0x1f, 0, 2015 * US);     /* 13 us */
	send_only(&t, 104, 3000 * US);
	resp(&t, ROCE_OP_RC_ACKNOWLEDGE, 104, 0x1f, 0, 3004 * US);     /* 4 us */
	flows_get(&t, &fl);
	REQUIRE((rq = req_flow(&fl)) != NULL);
	CHECK_EQ_U(rq->rtt.count, 5);
	CHECK_EQ_U(rq->rtt.min_ns, 4 * US);
	CHECK_EQ_U(rq->rtt.max_ns, 13 * US);
	CHECK_EQ_U(rq->read_first.count, 2);
	CHECK_EQ_U(rq->read_first.min_ns, 11 * US);
	CHECK_EQ_U(rq->read_last.max_ns, 12 * US);
	CHECK_EQ_U(rq->duplicates + rq->out_of_order + rq->psn_gaps, 0);
	t_done(&t);

	/* two AckReqs outstanding at the pairing (that ring, on the heap, stays), one READ (its
	 * ring, one entry, moves), then a READ in the record's ring */
	t_init(&t, 0);
	REQUIRE(t.a);
	req(&t, ROCE_OP_RC_RDMA_READ_REQUEST, 100, true, 0, 16, 1000 * US);
	send_only(&t, 101, 1001 * US);
	resp(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_ONLY, 100, 0x1f, 16, 1007 * US);  /* pairs: 7 us */
	resp(&t, ROCE_OP_RC_ACKNOWLEDGE, 101, 0x1f, 0, 1010 * US);     /* 9 us */
	req(&t, ROCE_OP_RC_RDMA_READ_REQUEST, 102, true, 0, 16, 2000 * US);
	resp(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_ONLY, 102, 0x1f, 16, 2003 * US);  /* 3 us */
	flows_get(&t, &fl);
	REQUIRE((rq = req_flow(&fl)) != NULL);
	CHECK_EQ_U(rq->rtt.count, 3);
	CHECK_EQ_U(rq->rtt.min_ns, 3 * US);
	CHECK_EQ_U(rq->rtt.max_ns, 9 * US);
	CHECK_EQ_U(rq->read_first.count, 2);
	CHECK_EQ_U(rq->read_last.min_ns, 3 * US);
	CHECK_EQ_U(rq->read_last.max_ns, 7 * US);
	t_done(&t);
}

static void test_nak_go_back(void)
{
	struct t t;
	struct roce_summary s;
	struct flows fl;
	const struct roce_flow_stats *rq;
	uint64_t nak_frame;

	t_init(&t, 0);
	REQUIRE(t.a);
	send_only(&t, 100, 0);
	send_only(&t, 101, 1 * US);
	send_only(&t, 103, 2 * US);     /* 102 lost before the capture point */
	send_only(&t, 104, 3 * US);
	resp(&t, ROCE_OP_RC_ACKNOWLEDGE, 102, 0x60, 0, 4 * US);   /* NAK PSN seq error */
	nak_frame = t.frame;
	CHECK_EQ_U(t.res.events, ROCE_EV_NAK);
	CHECK_EQ_U(t.res.aeth_syndrome, 0x60);
	CHECK_EQ_U(t.an[ROCE_AN_NAK], 1);
	send_only(&t, 102, 10 * US);
	/* a PSN behind the newest, never seen: it fills the gap (out of order) */
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_OUT_OF_ORDER);
	CHECK_EQ_U(t.res.retx_cause, ROCE_RETX_NAK);
	CHECK_EQ_U(t.res.ref_frame, nak_frame);
	CHECK_EQ_U(t.res.expected_psn, 105);
	send_only(&t, 103, 11 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_DUPLICATE);
	CHECK_EQ_U(t.res.retx_cause, ROCE_RETX_NAK);
	send_only(&t, 104, 12 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_DUPLICATE);
	send_only(&t, 105, 13 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_GBN_RECOVERED);
	CHECK_EQ_U(t.res.recovery_ns, 9 * US);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.retransmissions, 3);
	CHECK_EQ_U(s.gbn_episodes[ROCE_RETX_NAK], 1);
	CHECK_EQ_U(s.gbn_episodes[ROCE_RETX_TIMEOUT], 0);
	CHECK_EQ_U(s.naks, 1);
	CHECK_EQ_U(s.nak_codes[ROCE_NAK_PSN_SEQ_ERR], 1);
	CHECK_EQ_U(s.psn_gaps, 1);
	CHECK_EQ_U(s.out_of_order, 1);  /* the retransmitted 102 filled the gap */
	CHECK_EQ_U(s.duplicates, 2);
	CHECK_EQ_U(s.unrecovered_psns, 0);
	CHECK_EQ_U(t.an[ROCE_AN_RETRANSMISSION], 1);
	CHECK(strstr(t.last_an[ROCE_AN_RETRANSMISSION].detail, "NAK at PSN 102") != NULL);
	flows_get(&t, &fl);
	rq = req_flow(&fl);
	REQUIRE(rq);
	CHECK_EQ_U(rq->nak_response.count, 1);
	CHECK_EQ_U(rq->nak_response.min_ns, 6 * US);
	CHECK_EQ_U(rq->recovery.count, 1);
	CHECK_EQ_U(rq->recovery.max_ns, 9 * US);
	CHECK_EQ_U(rq->gbn_episodes[ROCE_RETX_NAK], 1);
	check_counters_add_up(&t, false);
	t_done(&t);
}

/*
 * A NAK (PSN sequence error) names one PSN; the requester resends from it,
 * and the NAK is answered once that PSN arrives (reference model A9). Here
 * it arrives in order (the frame that showed the responder the gap was not
 * captured), so nothing is pending afterwards: a later fill of another gap,
 * whose NAK was not captured, is a late frame (out of order), not a
 * retransmission caused by the old NAK, and the go-back behind it is a
 * timeout's.
 */
static void test_nak_answered_in_order(void)
{
	struct t t;
	struct roce_summary s;
	struct flows fl;
	const struct roce_flow_stats *rq;

	t_init(&t, 0);
	REQUIRE(t.a);
	send_only(&t, 100, 0);
	resp(&t, ROCE_OP_RC_ACKNOWLEDGE, 101, 0x60, 0, 1 * US);   /* NAK 101 */
	send_only(&t, 101, 2 * US);
	CHECK_EQ_U(t.res.events, 0);    /* in order: it answers the NAK */
	send_only(&t, 102, 3 * US);
	send_only(&t, 104, 4 * US);     /* 103 lost; its NAK is not in the capture */
	CHECK_EQ_U(t.res.events, ROCE_EV_PSN_GAP);
	send_only(&t, 103, 10 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_OUT_OF_ORDER);
	CHECK_EQ_U(t.res.ref_frame, 0);
	send_only(&t, 104, 11 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_DUPLICATE);
	CHECK_EQ_U(t.res.retx_cause, ROCE_RETX_TIMEOUT);
	CHECK_EQ_U(t.res.ref_frame, 0);
	send_only(&t, 105, 12 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_GBN_RECOVERED);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.psn_gaps, 1);
	CHECK_EQ_U(s.out_of_order, 1);
	CHECK_EQ_U(s.duplicates, 1);
	CHECK_EQ_U(s.retransmissions, 1);
	CHECK_EQ_U(s.gbn_episodes[ROCE_RETX_NAK], 0);
	CHECK_EQ_U(s.gbn_episodes[ROCE_RETX_TIMEOUT], 1);
	CHECK_EQ_U(s.unrecovered_psns, 0);
	CHECK_EQ_U(t.an[ROCE_AN_OUT_OF_ORDER], 1);
	CHECK_EQ_U(t.an[ROCE_AN_RETRANSMISSION], 1);
	flows_get(&t, &fl);
	rq = req_flow(&fl);
	REQUIRE(rq);
	CHECK_EQ_U(rq->nak_response.count, 0);
	check_counters_add_up(&t, false);
	t_done(&t);
}

/*
 * A NAK explains the resend of its own PSN only: with the NAK for 101
 * pending, a fill of 103 (a late original, or a resend whose go-back's
 * first packets were lost again: the capture cannot tell) is out of order,
 * not a retransmission; the resend of 101 that follows starts the NAK's
 * go-back, and the PSNs behind it are its retransmissions.
 */
static void test_nak_explains_its_psn(void)
{
	struct t t;
	struct roce_summary s;
	uint64_t nak_frame;

	t_init(&t, 0);
	REQUIRE(t.a);
	send_only(&t, 100, 0);
	send_only(&t, 102, 1 * US);     /* 101 lost */
	send_only(&t, 104, 2 * US);     /* 103 lost */
	resp(&t, ROCE_OP_RC_ACKNOWLEDGE, 101, 0x60, 0, 3 * US);   /* NAK 101 */
	nak_frame = t.frame;
	send_only(&t, 103, 4 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_OUT_OF_ORDER);
	CHECK_EQ_U(t.res.ref_frame, 0);
	send_only(&t, 101, 10 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_OUT_OF_ORDER);
	CHECK_EQ_U(t.res.retx_cause, ROCE_RETX_NAK);
	CHECK_EQ_U(t.res.ref_frame, nak_frame);
	for (uint32_t p = 102; p <= 104; p++) {
		send_only(&t, p, (9 + p - 100) * US);
		CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_DUPLICATE);
		CHECK_EQ_U(t.res.retx_cause, ROCE_RETX_NAK);
	}
	send_only(&t, 105, 20 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_GBN_RECOVERED);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.psn_gaps, 2);
	CHECK_EQ_U(s.lost_psns, 2);
	CHECK_EQ_U(s.out_of_order, 2);
	CHECK_EQ_U(s.duplicates, 3);
	CHECK_EQ_U(s.retransmissions, 4);
	CHECK_EQ_U(s.gbn_episodes[ROCE_RETX_NAK], 1);
	CHECK_EQ_U(s.gbn_episodes[ROCE_RETX_TIMEOUT], 0);
	CHECK_EQ_U(s.unrecovered_psns, 0);
	CHECK_EQ_U(t.an[ROCE_AN_OUT_OF_ORDER], 1);
	CHECK_EQ_U(t.an[ROCE_AN_RETRANSMISSION], 1);
	check_counters_add_up(&t, false);
	t_done(&t);
}

/*
 * Resends reordered within a go-back-N run (reference model A10): the NAK
 * for 101 is answered by the go-back that starts at 102; 101 arrives after
 * 102. It is a retransmission of the same episode (no new one), and the
 * run goes on from 102: 103 is no gap.
 */
static void test_gbn_reordered_resend(void)
{
	struct t t;
	struct roce_summary s;

	t_init(&t, 0);
	REQUIRE(t.a);
	send_only(&t, 100, 0);
	send_only(&t, 102, 1 * US);     /* 101 lost */
	send_only(&t, 103, 2 * US);
	resp(&t, ROCE_OP_RC_ACKNOWLEDGE, 101, 0x60, 0, 3 * US);   /* NAK 101 */
	send_only(&t, 102, 10 * US);    /* resends 101, 102, 103; 101 and 102 swapped */
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_DUPLICATE);
	CHECK_EQ_U(t.res.retx_cause, ROCE_RETX_NAK);
	send_only(&t, 101, 11 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_OUT_OF_ORDER);
	CHECK_EQ_U(t.res.retx_cause, ROCE_RETX_NAK);
	send_only(&t, 103, 12 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_DUPLICATE);
	send_only(&t, 104, 13 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_GBN_RECOVERED);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.psn_gaps, 1);
	CHECK_EQ_U(s.lost_psns, 1);
	CHECK_EQ_U(s.retransmissions, 3);
	CHECK_EQ_U(s.gbn_episodes[ROCE_RETX_NAK], 1);
	CHECK_EQ_U(s.gbn_episodes[ROCE_RETX_TIMEOUT], 0);
	CHECK_EQ_U(s.out_of_order, 1);
	CHECK_EQ_U(s.duplicates, 2);
	CHECK_EQ_U(s.unrecovered_psns, 0);
	CHECK_EQ_U(t.an[ROCE_AN_RETRANSMISSION], 1);
	check_counters_add_up(&t, false);
	t_done(&t);
}

/*
 * A NAK with another PSN replaces the pending one (the responder expects
 * that PSN now): the resend of the PSN the newer NAK names starts its
 * go-back (reference model A10). The NAK for 100 names a PSN that was
 * captured (lost after the capture point, its resend not captured).
 */
static void test_nak_replaced(void)
{
	struct t t;
	struct roce_summary s;
	uint64_t nak_frame;

	t_init(&t, 0);
	REQUIRE(t.a);
	send_only(&t, 100, 0);
	resp(&t, ROCE_OP_RC_ACKNOWLEDGE, 100, 0x60, 0, 1 * US);   /* NAK 100 */
	send_only(&t, 101, 2 * US);
	send_only(&t, 103, 3 * US);     /* 102 lost */
	resp(&t, ROCE_OP_RC_ACKNOWLEDGE, 102, 0x60, 0, 4 * US);   /* NAK 102 */
	nak_frame = t.frame;
	send_only(&t, 102, 10 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_OUT_OF_ORDER);
	CHECK_EQ_U(t.res.retx_cause, ROCE_RETX_NAK);
	CHECK_EQ_U(t.res.ref_frame, nak_frame);
	send_only(&t, 103, 11 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_DUPLICATE);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.retransmissions, 2);
	CHECK_EQ_U(s.gbn_episodes[ROCE_RETX_NAK], 1);
	CHECK_EQ_U(s.out_of_order, 1);
	CHECK_EQ_U(s.unrecovered_psns, 0);
	check_counters_add_up(&t, false);
	t_done(&t);
}

static void test_rnr(void)
{
	struct t t;
	struct roce_summary s;

	t_init(&t, 0);
	REQUIRE(t.a);
	send_only(&t, 100, 0);
	resp(&t, ROCE_OP_RC_ACKNOWLEDGE, 100, 0x20 | 14, 0, 5 * US);   /* RNR, 1.28 ms */
	CHECK_EQ_U(t.res.events, ROCE_EV_RNR_NAK);
	CHECK_EQ_U(t.res.aeth_syndrome, 0x2e);
	CHECK(strstr(t.last_an[ROCE_AN_RNR_NAK].detail, "1.28 ms") != NULL);
	send_only(&t, 100, 2 * MS);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_DUPLICATE);
	CHECK_EQ_U(t.res.retx_cause, ROCE_RETX_RNR);
	send_only(&t, 101, 2 * MS + US);
	CHECK(t.res.events & ROCE_EV_GBN_RECOVERED);
	sum(&t, &s);
	CHECK_EQ_U(s.rnr_naks, 1);
	CHECK_EQ_U(s.naks, 1);          /* naks includes RNR NAKs */
	CHECK_EQ_U(s.nak_codes[0], 0);
	CHECK_EQ_U(s.gbn_episodes[ROCE_RETX_RNR], 1);
	CHECK_EQ_U(s.retransmissions, 1);
	CHECK_EQ_U(t.an[ROCE_AN_RNR_NAK], 1);
	CHECK_EQ_U(t.an[ROCE_AN_NAK], 0);
	check_counters_add_up(&t, false);
	t_done(&t);
}

static void test_timeout(void)
{
	struct t t;
	struct roce_summary s;

	t_init(&t, 0);
	REQUIRE(t.a);
	send_only(&t, 100, 0);
	send_only(&t, 101, 1 * US);
	send_only(&t, 100, 5 * MS);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_DUPLICATE);
	CHECK_EQ_U(t.res.retx_cause, ROCE_RETX_TIMEOUT);
	CHECK_EQ_U(t.res.ref_frame, 0);
	send_only(&t, 101, 5 * MS + US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_DUPLICATE);
	send_only(&t, 102, 5 * MS + 2 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_GBN_RECOVERED);
	CHECK_EQ_U(t.res.recovery_ns, 2 * US);
	sum(&t, &s);
	CHECK_EQ_U(s.gbn_episodes[ROCE_RETX_TIMEOUT], 1);
	CHECK_EQ_U(s.retransmissions, 2);
	CHECK_EQ_U(t.an[ROCE_AN_RETRANSMISSION], 1);
	CHECK(strstr(t.last_an[ROCE_AN_RETRANSMISSION].detail, "timeout") != NULL);
	CHECK_STR(roce_retx_cause_name(ROCE_RETX_TIMEOUT), "timeout");
	check_counters_add_up(&t, false);
	t_done(&t);
}

int main(void)
{
	RUN(test_in_order);
	RUN(test_gap);
	RUN(test_duplicate_uc);
	RUN(test_out_of_order);
	RUN(test_wrap);
	RUN(test_read_known_pmtu);
	RUN(test_read_unknown_pmtu);
	RUN(test_read_response_gap);
	RUN(test_ack_coalescing);
	RUN(test_latency_kept_on_resync);
	RUN(test_latency_both_ways);
	RUN(test_latency_rings_in_record);
	RUN(test_nak_go_back);
	RUN(test_nak_answered_in_order);
	RUN(test_nak_explains_its_psn);
	RUN(test_gbn_reordered_resend);
	RUN(test_nak_replaced);
	RUN(test_rnr);
	RUN(test_timeout);
	return check_report();
}
