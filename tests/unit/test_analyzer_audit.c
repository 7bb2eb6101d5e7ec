// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_analyzer_audit.c - an audit of the analyzer on protocol situations the
 * other analyzer tests leave out, each expected value stated with its reason
 * (IBTA Vol. 1 ch. 9, what Linux rxe's requester and responder do, and
 * docs/json.md's definitions): go-back-N, duplicates and READ ranges across
 * the 24-bit PSN wrap; ACKs coalescing many requests; RNR NAK with requests in
 * flight behind it; the NAK classes; a READ re-executed whole and restarted
 * from its middle; READs and atomics outstanding together; UC, UD and XRC;
 * CNPs and CE on damaged frames; PFC and PAUSE edge cases.
 *
 * Every frame also goes through a second analyzer the way roce-analyze feeds
 * it (roce_analyzer_decode_process() with its decoder options: header
 * prediction and the in-order fast paths); at the end of each case both
 * analyzers' counters, run and streams, must be equal.
 */
#include "an_testlib.h"

/* ------------------------------------------------------------- the harness */

/* The second analyzer (roce-analyze's entry) and its decoder options. */
static roce_analyzer_t *xa;
static struct roce_decode_opts xopts;

static void a_init_cfg(struct t *t, struct roce_analyzer_config *cfg)
{
	char err[ROCE_ERRBUF_SIZE];
	struct roce_analyzer_config c2 = *cfg;

	t_init_cfg(t, cfg);
	c2.on_anomaly = NULL;
	c2.user = NULL;
	xa = roce_analyzer_create(&c2, err);
	roce_decode_opts_init(&xopts);
	xopts.analysis_only = true;
}

static void a_init(struct t *t, uint32_t pmtu)
{
	struct roce_analyzer_config cfg;

	roce_analyzer_config_init(&cfg);
	cfg.pmtu = pmtu;
	a_init_cfg(t, &cfg);
}

/* One frame to both analyzers. */
static void xfeed_buf(struct t *t, const uint8_t *buf, size_t len, size_t caplen, uint64_t ts)
{
	struct roce_pkt pkt;

	t->status = roce_decode(ROCE_LINKTYPE_ETHERNET, buf, caplen, len, NULL, &pkt);
	roce_analyzer_process(t->a, &pkt, t->status, ts, ++t->frame, &t->res);
	if (xa)
		roce_analyzer_decode_process(xa, ROCE_LINKTYPE_ETHERNET, buf, caplen, len, &xopts,
			ts, t->frame);
}

static void xfeed(struct t *t, const struct roce_frame_spec *s, uint64_t ts)
{
	uint8_t buf[9000];
	size_t len = 0;

	if (roce_build(s, buf, sizeof(buf), &len) != ROCE_OK) {
		fprintf(stderr, "roce_build failed\n");
		check_cur_failed_ = 1;
		return;
	}
	xfeed_buf(t, buf, len, len, ts);
}

/* A -> B request (an_testlib.h's req() through both analyzers). */
static void rq(struct t *t, uint8_t opcode, uint32_t psn, bool ackreq, uint32_t payload,
	uint32_t dma_len, uint64_t ts)
{
	struct roce_frame_spec s;

	spec_dir(&s, true, opcode, psn);
	s.bth.ackreq = ackreq;
	s.payload_len = payload;
	s.reth.dma_len = dma_len;
	s.deth.src_qp = 0x33;
	s.deth.qkey = 0x11111111;
	xfeed(t, &s, ts);
}

static void snd(struct t *t, uint32_t psn, uint64_t ts)
{
	rq(t, ROCE_OP_RC_SEND_ONLY, psn, true, 16, 0, ts);
}

/* B -> A response / ACK / NAK. */
static void rs(struct t *t, uint8_t opcode, uint32_t psn, uint8_t syndrome, uint32_t payload,
	uint64_t ts)
{
	struct roce_frame_spec s;

	spec_dir(&s, false, opcode, psn);
	s.aeth.syndrome = syndrome;
	s.aeth.msn = 1;
	s.payload_len = payload;
	xfeed(t, &s, ts);
}

static void ack(struct t *t, uint32_t psn, uint64_t ts)
{
	rs(t, ROCE_OP_RC_ACKNOWLEDGE, psn, 0x1f, 0, ts);
}

static void nak(struct t *t, uint32_t psn, uint8_t syndrome, uint64_t ts)
{
	rs(t, ROCE_OP_RC_ACKNOWLEDGE, psn, syndrome, 0, ts);
}

static int x_collect(void *user, const struct roce_flow_stats *f)
{
	return collect(user, f);
}

/*
 * Finish both analyzers and compare them: the run's counters and totals, and
 * every stream's counters, frames and latency counts (same first-seen order).
 */
static void x_compare(struct t *t)
{
	struct roce_summary s, x;
	struct flows fa, fb;

	if (!xa)
		return;
	roce_analyzer_finish(t->a);
	roce_analyzer_finish(xa);
	roce_analyzer_summary(t->a, &s);
	roce_analyzer_summary(xa, &x);
	CHECK(memcmp(&s.counters, &x.counters, sizeof(s.counters)) == 0);
	CHECK_EQ_U(s.frames, x.frames);
	CHECK_EQ_U(s.roce_frames, x.roce_frames);
	CHECK_EQ_U(s.icrc_ok, x.icrc_ok);
	CHECK_EQ_U(s.icrc_unverified, x.icrc_unverified);
	CHECK_EQ_U(s.pfc_frames, x.pfc_frames);
	CHECK_EQ_U(s.pause_frames, x.pause_frames);
	CHECK_EQ_U(s.pfc_storms, x.pfc_storms);
	CHECK_EQ_U(s.flows, x.flows);
	CHECK_EQ_U(s.pmtu, x.pmtu);
	memset(&fb, 0, sizeof(fb));
	flows_get(t, &fa);
	roce_analyzer_foreach_flow(xa, x_collect, &fb);
	REQUIRE(fa.n == fb.n);
	for (unsigned i = 0; i < fa.n; i++) {
		const struct roce_flow_stats *p = &fa.f[i], *q = &fb.f[i];

		CHECK(memcmp(&p->counters, &q->counters, sizeof(p->counters)) == 0);
		CHECK_EQ_U(p->frames, q->frames);
		CHECK_EQ_U(p->messages, q->messages);
		CHECK_EQ_U(p->payload_bytes, q->payload_bytes);
		CHECK_EQ_U(p->last_psn, q->last_psn);
		CHECK_EQ_U(p->rtt.count, q->rtt.count);
		CHECK_EQ_U(p->rtt.max_ns, q->rtt.max_ns);
		CHECK_EQ_U(p->read_first.count, q->read_first.count);
		CHECK_EQ_U(p->read_last.count, q->read_last.count);
		CHECK_EQ_U(p->nak_response.count, q->nak_response.count);
		CHECK_EQ_U(p->recovery.count, q->recovery.count);
		CHECK_EQ_U(p->has_peer, q->has_peer);
	}
}

static void a_done(struct t *t)
{
	x_compare(t);
	roce_analyzer_destroy(xa);
	xa = NULL;
	t_done(t);
}

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

	a_init(&t, 1024);
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

/* ---------------------------------------------------------- UC, UD and XRC */

/*
 * UC has no ACKs and never retransmits (IBTA 9.8; rxe's UC responder drops
 * the rest of a message with a missing packet and takes the next FIRST or
 * ONLY): a missing packet is a gap, a network duplicate a duplicate, a late
 * packet out of order; no retransmission, no go-back, no round trip, no
 * response stream.
 */
static void test_uc(void)
{
	struct t t;
	struct roce_summary s;
	struct flows fl;
	const struct roce_flow_stats *f;

	a_init(&t, 1024);
	REQUIRE(t.a && xa);
	rq(&t, ROCE_OP_UC_SEND_FIRST, 100, false, 1024, 0, 0);
	rq(&t, ROCE_OP_UC_SEND_MIDDLE, 101, false, 1024, 0, 1 * US);
	rq(&t, ROCE_OP_UC_SEND_LAST, 103, false, 100, 0, 2 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_PSN_GAP);
	CHECK_EQ_U(t.res.expected_psn, 102);
	rq(&t, ROCE_OP_UC_SEND_ONLY, 104, false, 100, 0, 3 * US);
	CHECK_EQ_U(t.res.events, 0);
	rq(&t, ROCE_OP_UC_SEND_MIDDLE, 101, false, 1024, 0, 4 * US);      /* duplicated */
	CHECK_EQ_U(t.res.events, ROCE_EV_DUPLICATE);
	rq(&t, ROCE_OP_UC_SEND_MIDDLE, 102, false, 1024, 0, 5 * US);      /* late */
	CHECK_EQ_U(t.res.events, ROCE_EV_OUT_OF_ORDER);
	rq(&t, ROCE_OP_UC_RDMA_WRITE_ONLY, 105, true, 8, 8, 6 * US);
	CHECK_EQ_U(t.res.events, 0);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.psn_gaps, 1);
	CHECK_EQ_U(s.lost_psns, 1);
	CHECK_EQ_U(s.unrecovered_psns, 0);
	CHECK_EQ_U(s.duplicates, 1);
	CHECK_EQ_U(s.out_of_order, 1);
	CHECK_EQ_U(s.retransmissions, 0);
	CHECK_EQ_U(s.gbn_episodes[ROCE_RETX_TIMEOUT] + s.gbn_episodes[ROCE_RETX_NAK], 0);
	CHECK_EQ_U(s.flows, 1);
	flows_get(&t, &fl);
	REQUIRE((f = req_flow(&fl)) != NULL);
	CHECK_EQ_U(f->transport, ROCE_TRANSPORT_UC);
	CHECK_EQ_U(f->messages, 3);     /* LAST 103, ONLY 104, WRITE ONLY 105 */
	CHECK_EQ_U(f->rtt.count, 0);
	CHECK(!f->has_peer);
	check_counters_add_up(&t, false);
	a_done(&t);
}

/* A UD datagram from source QP sqp, PSN psn (A -> B's QP). */
static void ud(struct t *t, uint32_t sqp, uint32_t psn, uint64_t ts)
{
	struct roce_frame_spec s;

	spec_dir(&s, true, ROCE_OP_UD_SEND_ONLY, psn);
	s.deth.src_qp = sqp;
	s.deth.qkey = 0x11111111;
	s.payload_len = 256;
	xfeed(t, &s, ts);
}

/*
 * UD: each sender QP numbers its datagrams (the receiver does not check
 * them, IBTA 9.8.x, rxe's check_psn() ignores UD): a jump in one sender's
 * PSNs is datagrams lost before the capture point; a repeat is a duplicate,
 * never a retransmission (UD never retransmits).  Once a second source QP of
 * the same host sends to that QP (the stream key has no source QP) the PSNs
 * of the two interleave: the stream is no longer sequenced.
 */
static void test_ud(void)
{
	struct t t;
	struct roce_summary s;
	struct flows fl;
	const struct roce_flow_stats *f;

	a_init(&t, 0);
	REQUIRE(t.a && xa);
	ud(&t, 0x33, 5, 0);
	ud(&t, 0x33, 6, 1 * US);
	ud(&t, 0x33, 8, 2 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_PSN_GAP);
	CHECK_EQ_U(t.res.lost_psns, 1);
	ud(&t, 0x33, 8, 3 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_DUPLICATE);
	ud(&t, 0x44, 1000, 4 * US);
	CHECK_EQ_U(t.res.events, 0);
	ud(&t, 0x33, 9, 5 * US);
	CHECK_EQ_U(t.res.events, 0);
	ud(&t, 0x44, 1001, 6 * US);
	CHECK_EQ_U(t.res.events, 0);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.psn_gaps, 1);
	CHECK_EQ_U(s.duplicates, 1);
	CHECK_EQ_U(s.retransmissions, 0);
	flows_get(&t, &fl);
	REQUIRE((f = req_flow(&fl)) != NULL);
	CHECK_EQ_U(f->transport, ROCE_TRANSPORT_UD);
	CHECK_EQ_U(f->src_qp, 0x33);
	CHECK_EQ_U(f->frames, 7);
	CHECK_EQ_U(f->messages, 6);     /* a PSN seen again is no new message */
	CHECK_EQ_U(f->payload_bytes, 7 * 256);
	check_counters_add_up(&t, false);
	a_done(&t);
}

/* An XRC request A -> B (the XRC TGT QP QP_B; XRCETH names the SRQ). */
static void xrc(struct t *t, uint8_t opcode, uint32_t psn, uint32_t dma_len, uint64_t ts)
{
	struct roce_frame_spec s;

	spec_dir(&s, true, opcode, psn);
	s.bth.ackreq = true;
	s.xrc_srq = 0x77;
	s.payload_len = (opcode == ROCE_OP_XRC_RDMA_READ_REQUEST) ? 0 : 64;
	s.reth.dma_len = dma_len;
	xfeed(t, &s, ts);
}

/*
 * XRC is reliable like RC (IBTA 14.x: the XRC transport uses RC's ACK/NAK
 * protocol, responses with the XRC opcodes): a loss, its NAK and the
 * go-back-N are counted as on RC; XRC READ ranges and their responses as
 * RC's; both streams are XRC and paired.
 */
static void test_xrc(void)
{
	struct t t;
	struct roce_summary s;
	struct flows fl;
	const struct roce_flow_stats *a2b, *b2a;
	uint64_t nak_frame;

	a_init(&t, 1024);
	REQUIRE(t.a && xa);
	xrc(&t, ROCE_OP_XRC_SEND_ONLY, 100, 0, 0);
	rs(&t, ROCE_OP_XRC_ACKNOWLEDGE, 100, 0x1f, 0, 3 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_ACK_RTT);
	xrc(&t, ROCE_OP_XRC_SEND_ONLY, 101, 0, 10 * US);
	xrc(&t, ROCE_OP_XRC_SEND_ONLY, 103, 0, 11 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_PSN_GAP);
	rs(&t, ROCE_OP_XRC_ACKNOWLEDGE, 102, 0x60, 0, 14 * US);
	nak_frame = t.frame;
	CHECK_EQ_U(t.res.events, ROCE_EV_NAK);
	xrc(&t, ROCE_OP_XRC_SEND_ONLY, 102, 0, 20 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_OUT_OF_ORDER);
	CHECK_EQ_U(t.res.retx_cause, ROCE_RETX_NAK);
	CHECK_EQ_U(t.res.ref_frame, nak_frame);
	xrc(&t, ROCE_OP_XRC_SEND_ONLY, 103, 0, 21 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_DUPLICATE);
	xrc(&t, ROCE_OP_XRC_RDMA_READ_REQUEST, 104, 2048, 22 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_GBN_RECOVERED);
	xrc(&t, ROCE_OP_XRC_SEND_ONLY, 106, 0, 23 * US);
	CHECK_EQ_U(t.res.events, 0);    /* the READ took 104 and 105 */
	rs(&t, ROCE_OP_XRC_ACKNOWLEDGE, 103, 0x1f, 0, 24 * US);
	rs(&t, ROCE_OP_XRC_RDMA_READ_RESPONSE_FIRST, 104, 0x1f, 1024, 30 * US);
	CHECK(t.res.events & ROCE_EV_READ_FIRST_RESP);
	CHECK_EQ_U(t.res.read_ns, 8 * US);
	rs(&t, ROCE_OP_XRC_RDMA_READ_RESPONSE_LAST, 105, 0x1f, 1024, 31 * US);
	CHECK(t.res.events & ROCE_EV_READ_LAST_RESP);
	rs(&t, ROCE_OP_XRC_ACKNOWLEDGE, 106, 0x1f, 0, 32 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_ACK_RTT);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.psn_gaps, 1);
	CHECK_EQ_U(s.unrecovered_psns, 0);
	CHECK_EQ_U(s.retransmissions, 2);
	CHECK_EQ_U(s.gbn_episodes[ROCE_RETX_NAK], 1);
	CHECK_EQ_U(s.naks, 1);
	CHECK_EQ_U(s.acks, 5);
	flows_get(&t, &fl);
	REQUIRE((a2b = req_flow(&fl)) != NULL);
	REQUIRE((b2a = resp_flow(&fl)) != NULL);
	CHECK_EQ_U(a2b->transport, ROCE_TRANSPORT_XRC);
	CHECK_EQ_U(b2a->transport, ROCE_TRANSPORT_XRC);
	CHECK(a2b->has_peer && b2a->has_peer);
	CHECK_EQ_U(a2b->read_first.count, 1);
	CHECK_EQ_U(a2b->read_last.count, 1);
	CHECK_EQ_U(b2a->psn_gaps + b2a->duplicates + b2a->out_of_order, 0);
	check_counters_add_up(&t, false);
	a_done(&t);
}

/* --------------------------------------------------- congestion and damage */

/*
 * CNPs and CE on damaged frames (docs/json.md, "Damaged frames": a dropped
 * frame counts in icrc_bad / malformed / findings / opcodes / ecn_* and moves
 * nothing else, no CNP count).  A CE-marked request with a bad ICRC: ecn_ce
 * and ecn_capable count, its PSN does not (the resend that follows is in
 * order).  A CNP with a bad ICRC: no CNP.  A CNP with BECN 0 (bad_cnp, a
 * finding that does not make the frame untrustworthy): a CNP, and malformed.
 * The CNP's stream (NP -> RP, the RP's QP) is the response stream's key; an
 * ACK then makes it RC.
 */
static void test_cnp_ce_damaged(void)
{
	struct t t;
	struct roce_summary s;
	struct roce_frame_spec sp;
	struct flows fl;
	const struct roce_flow_stats *a2b, *b2a;

	a_init(&t, 0);
	REQUIRE(t.a && xa);
	snd(&t, 100, 0);
	spec_dir(&sp, true, ROCE_OP_RC_SEND_ONLY, 101);
	sp.bth.ackreq = true;
	sp.payload_len = 16;
	sp.tclass = 0x6b;               /* CE */
	sp.bad_icrc = true;
	xfeed(&t, &sp, 1 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_ICRC_BAD | ROCE_EV_ECN_CE);
	snd(&t, 101, 2 * US);           /* as the responder saw it: in order */
	CHECK_EQ_U(t.res.events, 0);
	spec_dir(&sp, false, ROCE_OP_CNP, 0);
	sp.bth.becn = 1;
	sp.bad_icrc = true;
	xfeed(&t, &sp, 3 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_ICRC_BAD);
	spec_dir(&sp, false, ROCE_OP_CNP, 0);
	sp.bth.becn = 0;                /* malformed, but sent so */
	xfeed(&t, &sp, 4 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_CNP | ROCE_EV_MALFORMED);
	CHECK(t.res.findings & ROCE_FIND_BAD_CNP);
	spec_dir(&sp, false, ROCE_OP_CNP, 0);
	sp.bth.becn = 1;
	xfeed(&t, &sp, 54 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_CNP);
	ack(&t, 101, 60 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_ACK_RTT);
	CHECK_EQ_U(t.res.rtt_ns, 58 * US);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.cnps, 2);
	CHECK_EQ_U(s.icrc_bad, 2);
	CHECK_EQ_U(s.ecn_ce, 1);
	CHECK_EQ_U(s.ecn_capable, 1);
	CHECK_EQ_U(s.malformed, 1);
	CHECK_EQ_U(s.findings[7], 1);   /* bad_cnp: bit 7 */
	CHECK_EQ_U(s.opcodes[ROCE_OP_CNP], 3);
	CHECK_EQ_U(s.psn_gaps + s.duplicates + s.out_of_order + s.retransmissions, 0);
	flows_get(&t, &fl);
	REQUIRE((a2b = req_flow(&fl)) != NULL);
	REQUIRE((b2a = resp_flow(&fl)) != NULL);
	CHECK_EQ_U(a2b->ecn_ce, 1);
	CHECK_EQ_U(a2b->icrc_bad, 1);
	CHECK_EQ_U(a2b->frames, 3);
	CHECK_EQ_U(b2a->cnps, 2);
	CHECK_EQ_U(b2a->cnp_min_gap_ns, 50 * US);
	CHECK_EQ_U(b2a->icrc_bad, 0);   /* the first CNP was damaged: it opened nothing */
	CHECK_EQ_U(b2a->frames, 3);
	CHECK_EQ_U(b2a->transport, ROCE_TRANSPORT_RC);
	CHECK(b2a->has_peer);
	check_counters_add_up(&t, true);        /* (the damaged CNP had no stream) */
	a_done(&t);
}

/*
 * A CNP's PSN field is reserved (0, Annex A17; protocol notes 2.6), not a
 * PSN of the stream's sequence: on the stream it shares with the RP's ACKs
 * (NP -> RP, the RP's QP) it moves neither first_psn nor last_psn.  A stream
 * a CNP opened takes its first PSN from its first other frame.
 */
static void test_cnp_psn(void)
{
	struct t t;
	struct roce_frame_spec sp;
	struct flows fl;
	const struct roce_flow_stats *b2a;

	a_init(&t, 0);
	REQUIRE(t.a && xa);
	spec_dir(&sp, false, ROCE_OP_CNP, 0);
	sp.bth.becn = 1;
	xfeed(&t, &sp, 0);
	snd(&t, 700, 1 * US);
	ack(&t, 700, 3 * US);
	snd(&t, 701, 4 * US);
	ack(&t, 701, 6 * US);
	xfeed(&t, &sp, 7 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_CNP);
	flows_get(&t, &fl);
	REQUIRE((b2a = resp_flow(&fl)) != NULL);
	CHECK_EQ_U(b2a->cnps, 2);
	CHECK_EQ_U(b2a->transport, ROCE_TRANSPORT_RC);
	CHECK_EQ_U(b2a->first_psn, 700);
	CHECK_EQ_U(b2a->last_psn, 701);
	CHECK_EQ_U(b2a->first_frame, 1);
	CHECK(b2a->has_peer);
	a_done(&t);
}

/*
 * Damage inside a go-back-N episode (the receiver drops a bad-ICRC frame,
 * rxe_icrc_check()): the NAK arrives damaged, so the requester never saw it
 * and its resend is a timeout's; one resend of the run arrives damaged: for
 * the responder it is lost again, a gap against the previous packet of the
 * run (docs/json.md psn_gaps: "resent packets lost again inside a go-back-N
 * run"), but no PSN is unrecovered (its original arrived).
 */
static void test_damage_in_episode(void)
{
	struct t t;
	struct roce_summary s;
	struct roce_frame_spec sp;

	a_init(&t, 0);
	REQUIRE(t.a && xa);
	snd(&t, 100, 0);
	snd(&t, 101, 1 * US);
	snd(&t, 103, 2 * US);
	snd(&t, 104, 3 * US);
	snd(&t, 105, 4 * US);
	spec_dir(&sp, false, ROCE_OP_RC_ACKNOWLEDGE, 102);
	sp.aeth.syndrome = 0x60;
	sp.bad_icrc = true;
	xfeed(&t, &sp, 5 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_ICRC_BAD);
	snd(&t, 102, 5000 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_OUT_OF_ORDER);     /* no NAK named it: late */
	snd(&t, 103, 5001 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_DUPLICATE);
	CHECK_EQ_U(t.res.retx_cause, ROCE_RETX_TIMEOUT);
	spec_dir(&sp, true, ROCE_OP_RC_SEND_ONLY, 104);
	sp.bth.ackreq = true;
	sp.payload_len = 16;
	sp.bad_icrc = true;
	xfeed(&t, &sp, 5002 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_ICRC_BAD);
	snd(&t, 105, 5003 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RETRANSMISSION | ROCE_EV_DUPLICATE | ROCE_EV_PSN_GAP);
	CHECK_EQ_U(t.res.lost_psns, 1);
	CHECK_EQ_U(t.res.expected_psn, 104);
	snd(&t, 106, 5004 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_GBN_RECOVERED);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.naks, 0);
	CHECK_EQ_U(s.icrc_bad, 2);
	CHECK_EQ_U(s.psn_gaps, 2);
	CHECK_EQ_U(s.lost_psns, 2);
	CHECK_EQ_U(s.unrecovered_psns, 0);
	CHECK_EQ_U(s.out_of_order, 1);
	CHECK_EQ_U(s.duplicates, 2);
	CHECK_EQ_U(s.retransmissions, 2);
	CHECK_EQ_U(s.gbn_episodes[ROCE_RETX_TIMEOUT], 1);
	CHECK_EQ_U(s.gbn_episodes[ROCE_RETX_NAK], 0);
	check_counters_add_up(&t, true);        /* (the damaged NAK had no stream) */
	a_done(&t);
}

/*
 * Frames cut by the snap length: one cut inside its BTH is truncated, its
 * headers untrustworthy (dropped, counted); one cut after its headers has
 * an ICRC that cannot be checked (unverified) and is analysed as it is
 * (docs/json.md): its PSN fills the gap the first one left.
 */
static void test_snaplen_cut(void)
{
	struct t t;
	struct roce_summary s;
	struct roce_frame_spec sp;
	uint8_t buf[2048];
	size_t len = 0;

	a_init(&t, 0);
	REQUIRE(t.a && xa);
	snd(&t, 100, 0);
	spec_dir(&sp, true, ROCE_OP_RC_SEND_ONLY, 101);
	sp.bth.ackreq = true;
	sp.payload_len = 1000;
	REQUIRE(roce_build(&sp, buf, sizeof(buf), &len) == ROCE_OK);
	xfeed_buf(&t, buf, len, 14 + 20 + 8 + 6, 1 * US);      /* cut in the BTH */
	CHECK(t.res.events & ROCE_EV_MALFORMED);
	CHECK(t.res.findings & ROCE_FIND_TRUNCATED);
	snd(&t, 102, 2 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_PSN_GAP);
	xfeed_buf(&t, buf, len, 128, 3 * US);                   /* cut in the payload */
	CHECK_EQ_U(t.res.events, ROCE_EV_OUT_OF_ORDER);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.icrc_unverified, 2);       /* both cut frames */
	CHECK_EQ_U(s.icrc_ok, 2);
	CHECK_EQ_U(s.psn_gaps, 1);
	CHECK_EQ_U(s.out_of_order, 1);
	CHECK_EQ_U(s.unrecovered_psns, 0);
	CHECK_EQ_U(s.findings[0], 1);   /* truncated: bit 0 */
	check_counters_add_up(&t, true);
	a_done(&t);
}

/* ------------------------------------------------------------- PFC / PAUSE */

struct pfcs {
	struct roce_pfc_stats p[8];
	unsigned n;
};

static int collect_pfc(void *user, const struct roce_pfc_stats *p)
{
	struct pfcs *v = user;

	if (v->n < 8)
		v->p[v->n++] = *p;
	return 0;
}

static const struct roce_pfc_stats *pfc_of(const struct pfcs *v, int prio)
{
	for (unsigned i = 0; i < v->n; i++)
		if (v->p[i].priority == prio)
			return &v->p[i];
	return NULL;
}

static void pfc2(struct t *t, uint8_t enable, const uint16_t q[8], uint64_t ts)
{
	uint8_t buf[64];
	size_t len;

	if (roce_build_pfc(mac_a, enable, q, buf, sizeof(buf), &len) != ROCE_OK) {
		check_cur_failed_ = 1;
		return;
	}
	/* times of priorities not enabled as given too (the builder leaves them 0):
	 * Ethernet 14, opcode 2, enable vector 2, then time[i] */
	for (int i = 0; i < 8; i++)
		if (!(enable & (1u << i)) && q[i]) {
			buf[14 + 4 + 2 * i] = (uint8_t)(q[i] >> 8);
			buf[14 + 4 + 2 * i + 1] = (uint8_t)q[i];
		}
	xfeed_buf(t, buf, len, len, ts);
}

static void pause3x(struct t *t, uint16_t q, uint64_t ts)
{
	uint8_t buf[64];
	size_t len;

	if (roce_build_pause(mac_b, q, buf, sizeof(buf), &len) != ROCE_OK) {
		check_cur_failed_ = 1;
		return;
	}
	xfeed_buf(t, buf, len, len, ts);
}

/*
 * 802.1Qbb per priority (protocol notes 3.1-3.3): a frame acts on the
 * priorities it enables only; quanta 0 is XON, ending that priority's pause
 * now; a new XOFF replaces the running timer (also with a shorter one).
 * At 25 Gb/s one quantum is 20.48 ns.  Priorities 2 and 3 paused together,
 * 2 resumed by an XON 1 us later while 3 runs to its deadline; 5 paused
 * 0xffff then refreshed to 100 quanta (2048 ns from then); an XON for 6,
 * never paused, counts as XON and pauses nothing.  802.3x PAUSE: quanta 0
 * ends the pause too.
 */
static void test_pfc_priorities(void)
{
	struct t t;
	struct roce_analyzer_config cfg;
	struct roce_summary s;
	struct pfcs v = { .n = 0 };
	const struct roce_pfc_stats *p;
	const uint64_t t0 = 1000 * MS;
	uint16_t q[8] = { 0 };

	roce_analyzer_config_init(&cfg);
	cfg.link_speed_gbps = 25;
	a_init_cfg(&t, &cfg);
	REQUIRE(t.a && xa);
	q[2] = 1000;
	q[3] = 0xffff;
	q[4] = 0x1234;                  /* not enabled: ignored */
	pfc2(&t, 0x0c, q, t0);
	CHECK_EQ_U(t.res.events, ROCE_EV_PFC | ROCE_EV_MALFORMED);  /* time without enable */
	CHECK_EQ_U(t.res.pause_ns[2], 20480);
	CHECK_EQ_U(t.res.pause_ns[3], 1342157);         /* 65535 * 20.48 ns */
	CHECK_EQ_U(t.res.pause_ns[4], 0);
	memset(q, 0, sizeof(q));
	pfc2(&t, 0x44, q, t0 + 1 * US);                 /* XON 2 and 6 */
	CHECK_EQ_U(t.res.events, ROCE_EV_PFC | ROCE_EV_PFC_XON);
	q[5] = 0xffff;
	pfc2(&t, 0x20, q, t0 + 2 * US);
	q[5] = 100;
	pfc2(&t, 0x20, q, t0 + 3 * US);                 /* replaces: ends at +3 us + 2048 ns */
	pause3x(&t, 0xffff, t0 + 4 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_PAUSE);
	pause3x(&t, 0, t0 + 14 * US);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.pfc_frames, 4);
	CHECK_EQ_U(s.pause_frames, 2);
	CHECK_EQ_U(s.pfc_storms, 0);
	roce_analyzer_foreach_pfc(t.a, collect_pfc, &v);
	CHECK_EQ_U(v.n, 5);             /* 2, 3, 6, 5 and PAUSE; 4 never enabled */
	CHECK(pfc_of(&v, 4) == NULL);
	REQUIRE((p = pfc_of(&v, 2)) != NULL);
	CHECK_EQ_U(p->frames, 2);
	CHECK_EQ_U(p->xoff, 1);
	CHECK_EQ_U(p->xon, 1);
	CHECK_EQ_U(p->paused_ns, 1 * US);
	REQUIRE((p = pfc_of(&v, 3)) != NULL);
	CHECK_EQ_U(p->frames, 1);
	CHECK_EQ_U(p->paused_ns, 1342157);
	CHECK_EQ_U(p->quanta, 0xffff);
	REQUIRE((p = pfc_of(&v, 6)) != NULL);
	CHECK_EQ_U(p->xon, 1);
	CHECK_EQ_U(p->xoff, 0);
	CHECK_EQ_U(p->paused_ns, 0);
	REQUIRE((p = pfc_of(&v, 5)) != NULL);
	CHECK_EQ_U(p->xoff, 2);
	CHECK_EQ_U(p->paused_ns, 1 * US + 2048);
	CHECK_EQ_U(p->longest_pause_ns, 1 * US + 2048);
	REQUIRE((p = pfc_of(&v, -1)) != NULL);
	CHECK_EQ_U(p->frames, 2);
	CHECK_EQ_U(p->xon, 1);
	CHECK_EQ_U(p->paused_ns, 10 * US);
	CHECK(memcmp(p->src_mac, mac_b, 6) == 0);
	a_done(&t);
}

/*
 * A storm is a continuous pause of at least --pfc-storm-ms (protocol notes
 * 3.3): XOFF refreshed before each expiry for 1 ms (storm threshold 500 us)
 * is one storm, flagged once; after an XON, a new pause that lasts 400 us
 * is none.  On 802.3x PAUSE the same.
 */
static void test_pfc_storm_edges(void)
{
	struct t t;
	struct roce_analyzer_config cfg;
	struct roce_summary s;
	struct pfcs v = { .n = 0 };
	const struct roce_pfc_stats *p;
	uint16_t q[8] = { 0 };
	unsigned storms = 0;

	roce_analyzer_config_init(&cfg);
	cfg.pfc_storm_ns = 500 * US;
	a_init_cfg(&t, &cfg);
	REQUIRE(t.a && xa);
	q[1] = 0xffff;                  /* 335.5 us at 100 Gb/s */
	for (uint64_t i = 0; i <= 10; i++) {
		pfc2(&t, 0x02, q, i * 100 * US);
		storms += !!(t.res.events & ROCE_EV_PFC_STORM);
	}
	CHECK_EQ_U(storms, 1);
	q[1] = 0;
	pfc2(&t, 0x02, q, 1100 * US);
	q[1] = 0xffff;
	pfc2(&t, 0x02, q, 2000 * US);
	pfc2(&t, 0x02, q, 2200 * US);
	q[1] = 0;
	pfc2(&t, 0x02, q, 2400 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_PFC | ROCE_EV_PFC_XON);
	storms = 0;
	for (uint64_t i = 0; i <= 6; i++) {
		pause3x(&t, 0xffff, 3000 * US + i * 100 * US);
		if (t.res.events & ROCE_EV_PFC_STORM) {
			CHECK_EQ_U(i, 5);       /* the first frame 500 us into the pause */
			CHECK_EQ_U(t.res.storm_mask, 1);
			storms++;
		}
	}
	pause3x(&t, 0, 3650 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_PAUSE);        /* flagged once, not again */
	CHECK_EQ_U(storms, 1);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.pfc_storms, 2);
	roce_analyzer_foreach_pfc(t.a, collect_pfc, &v);
	REQUIRE((p = pfc_of(&v, 1)) != NULL);
	CHECK_EQ_U(p->storms, 1);
	CHECK_EQ_U(p->longest_pause_ns, 1100 * US);
	CHECK_EQ_U(p->paused_ns, 1100 * US + 400 * US);
	REQUIRE((p = pfc_of(&v, -1)) != NULL);
	CHECK_EQ_U(p->storms, 1);
	CHECK_EQ_U(p->paused_ns, 650 * US);
	a_done(&t);
}

/* ------------------------------------------------------------- idle expiry */

/*
 * --flow-timeout shorter than the requester's retransmission timeout: both
 * streams expire in the middle of a NAK's episode (another queue pair's
 * frames sweep them) and end with their final stats, which stay in the
 * run's totals (analyzer.h, docs/json.md expired streams): the hole is
 * unrecovered there.  The resends that come later open new streams and
 * start new sequences: no retransmission, no duplicate; the NAK pending in
 * the old stream is gone.
 */
static void test_idle_expiry_mid_episode(void)
{
	struct t t;
	struct roce_analyzer_config cfg;
	struct roce_summary s;
	struct roce_frame_spec sp;
	struct flows fl;
	const struct roce_flow_stats *f;

	roce_analyzer_config_init(&cfg);
	cfg.idle_timeout_ns = 1 * MS;
	a_init_cfg(&t, &cfg);
	REQUIRE(t.a && xa);
	snd(&t, 100, 0);
	snd(&t, 101, 1 * US);
	snd(&t, 103, 2 * US);
	nak(&t, 102, 0x60, 5 * US);
	for (uint32_t i = 0; i < 4; i++) {      /* another QP, 3 ms on */
		spec_dir(&sp, true, ROCE_OP_RC_SEND_ONLY, 500 + i);
		sp.bth.dqpn = 0x99;
		xfeed(&t, &sp, 3 * MS + i * US);
	}
	sum(&t, &s);
	CHECK_EQ_U(s.expired_flows, 2);
	CHECK_EQ_U(s.unrecovered_psns, 1);
	snd(&t, 102, 4 * MS);
	CHECK_EQ_U(t.res.events, 0);
	snd(&t, 103, 4 * MS + 1 * US);
	CHECK_EQ_U(t.res.events, 0);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.psn_gaps, 1);
	CHECK_EQ_U(s.unrecovered_psns, 1);
	CHECK_EQ_U(s.retransmissions + s.duplicates + s.out_of_order, 0);
	CHECK_EQ_U(s.naks, 1);
	CHECK_EQ_U(s.flows, 4);
	flows_get(&t, &fl);
	REQUIRE((f = req_flow(&fl)) != NULL);
	CHECK_EQ_U(f->first_psn, 102);
	CHECK_EQ_U(f->frames, 2);
	a_done(&t);
}

/* ------------------------------------------------------------------ main */

int main(void)
{
	RUN(test_wrap_gbn);
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
	RUN(test_reads_atomics_interleaved);
	RUN(test_implied_nak);
	RUN(test_uc);
	RUN(test_ud);
	RUN(test_xrc);
	RUN(test_cnp_ce_damaged);
	RUN(test_cnp_psn);
	RUN(test_damage_in_episode);
	RUN(test_snaplen_cut);
	RUN(test_pfc_priorities);
	RUN(test_pfc_storm_edges);
	RUN(test_idle_expiry_mid_episode);
	return check_report();
}
