// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_analyzer.c - analyzer semantics on frames from the frame builder,
 * run through roce_decode + roce_analyzer_process: PSN order, gaps,
 * duplicates, reordering, 24-bit wrap, READ PSN ranges (known and unknown
 * PMTU), READ response gaps, ACK coalescing and RTT, go-back-N causes (NAK,
 * RNR, timeout), CNP, ECN, PFC/PAUSE timing and storms, table eviction and
 * first-seen order, malformed and bad-ICRC frames.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <roce/analyzer.h>
#include <roce/build.h>
#include <roce/pkt.h>

#include "check.h"

#define US 1000ull
#define MS 1000000ull

#define IP_A 0x0a000001u
#define IP_B 0x0a000002u
#define QP_B 0x11u      /* requests A -> B go to B's QP */
#define QP_A 0x22u      /* responses B -> A go to A's QP */

static const uint8_t mac_a[6] = { 0x02, 0, 0, 0, 0, 0x0a };
static const uint8_t mac_b[6] = { 0x02, 0, 0, 0, 0, 0x0b };

struct t {
	roce_analyzer_t *a;
	uint64_t frame;
	struct roce_frame_result res;
	uint64_t an[ROCE_AN_COUNT];
	struct roce_anomaly last_an[ROCE_AN_COUNT];
	int status;
};

static void on_an(void *user, const struct roce_anomaly *an)
{
	struct t *t = user;

	if ((unsigned)an->type < ROCE_AN_COUNT) {
		t->an[an->type]++;
		t->last_an[an->type] = *an;
	}
}

static void t_init_cfg(struct t *t, struct roce_analyzer_config *cfg)
{
	char err[ROCE_ERRBUF_SIZE];

	memset(t, 0, sizeof(*t));
	cfg->on_anomaly = on_an;
	cfg->user = t;
	t->a = roce_analyzer_create(cfg, err);
	if (!t->a)
		fprintf(stderr, "create: %s\n", err);
}

static void t_init(struct t *t, uint32_t pmtu)
{
	struct roce_analyzer_config cfg;

	roce_analyzer_config_init(&cfg);
	cfg.pmtu = pmtu;
	t_init_cfg(t, &cfg);
}

static void t_done(struct t *t)
{
	roce_analyzer_destroy(t->a);
	t->a = NULL;
}

static void feed_buf(struct t *t, const uint8_t *buf, size_t len, uint64_t ts)
{
	struct roce_pkt pkt;

	t->status = roce_decode(ROCE_LINKTYPE_ETHERNET, buf, len, len, NULL, &pkt);
	roce_analyzer_process(t->a, &pkt, t->status, ts, ++t->frame, &t->res);
}

static void feed(struct t *t, const struct roce_frame_spec *s, uint64_t ts)
{
	uint8_t buf[9000];
	size_t len = 0;

	if (roce_build(s, buf, sizeof(buf), &len) != ROCE_OK) {
		fprintf(stderr, "roce_build failed\n");
		check_cur_failed_ = 1;
		return;
	}
	feed_buf(t, buf, len, ts);
}

static void spec_dir(struct roce_frame_spec *s, bool a_to_b, uint8_t opcode, uint32_t psn)
{
	roce_frame_spec_init(s);
	memcpy(s->src_mac, a_to_b ? mac_a : mac_b, 6);
	memcpy(s->dst_mac, a_to_b ? mac_b : mac_a, 6);
	roce_addr_v4(s->src, a_to_b ? IP_A : IP_B);
	roce_addr_v4(s->dst, a_to_b ? IP_B : IP_A);
	s->bth.opcode = opcode;
	s->bth.pkey = 0xffff;
	s->bth.dqpn = a_to_b ? QP_B : QP_A;
	s->bth.psn = psn & 0xffffff;
}

/* A -> B request. */
static void req(struct t *t, uint8_t opcode, uint32_t psn, bool ackreq, uint32_t payload,
	uint32_t dma_len, uint64_t ts)
{
	struct roce_frame_spec s;

	spec_dir(&s, true, opcode, psn);
	s.bth.ackreq = ackreq;
	s.payload_len = payload;
	s.reth.dma_len = dma_len;
	s.deth.src_qp = 0x33;
	s.deth.qkey = 0x11111111;
	feed(t, &s, ts);
}

static void send_only(struct t *t, uint32_t psn, uint64_t ts)
{
	req(t, ROCE_OP_RC_SEND_ONLY, psn, true, 16, 0, ts);
}

/* B -> A response / ACK. */
static void resp(struct t *t, uint8_t opcode, uint32_t psn, uint8_t syndrome, uint32_t payload,
	uint64_t ts)
{
	struct roce_frame_spec s;

	spec_dir(&s, false, opcode, psn);
	s.aeth.syndrome = syndrome;
	s.aeth.msn = 1;
	s.payload_len = payload;
	feed(t, &s, ts);
}

static void sum(struct t *t, struct roce_summary *s)
{
	roce_analyzer_summary(t->a, s);
}

struct flows {
	struct roce_flow_stats f[8];
	unsigned n;
};

static int collect(void *user, const struct roce_flow_stats *f)
{
	struct flows *fl = user;

	if (fl->n < 8)
		fl->f[fl->n++] = *f;
	return 0;
}

static void flows_get(struct t *t, struct flows *fl)
{
	memset(fl, 0, sizeof(*fl));
	roce_analyzer_foreach_flow(t->a, collect, fl);
}

static const struct roce_flow_stats *req_flow(const struct flows *fl)
{
	for (unsigned i = 0; i < fl->n; i++)
		if (fl->f[i].key.dqpn == QP_B)
			return &fl->f[i];
	return NULL;
}

static const struct roce_flow_stats *resp_flow(const struct flows *fl)
{
	for (unsigned i = 0; i < fl->n; i++)
		if (fl->f[i].key.dqpn == QP_A)
			return &fl->f[i];
	return NULL;
}

/*
 * Each event is counted once, on the run and on the frame's stream together:
 * the streams' counters add up to the summary's, field by field.  Frames
 * without a stream (malformed before the BTH, unknown opcodes) count in the
 * summary only: with may_lack_stream their ICRC/malformed/ECN totals may
 * exceed the streams'.
 */
static void check_counters_add_up(struct t *t, bool may_lack_stream)
{
	struct roce_summary s;
	struct flows fl;
	struct roce_counters tot;
	const size_t n = sizeof(tot) / sizeof(uint64_t);
	uint64_t *v = (uint64_t *)&tot;
	const uint64_t *sv = (const uint64_t *)&s.counters;

	REQUIRE(sizeof(tot) % sizeof(uint64_t) == 0);
	sum(t, &s);
	flows_get(t, &fl);
	REQUIRE(fl.n < 8);
	memset(&tot, 0, sizeof(tot));
	for (unsigned i = 0; i < fl.n; i++) {
		const uint64_t *fv = (const uint64_t *)&fl.f[i].counters;

		for (size_t k = 0; k < n; k++)
			v[k] += fv[k];
	}
	for (size_t k = 0; k < n; k++) {
		size_t off = k * sizeof(uint64_t);
		bool loose = may_lack_stream &&
			(off == offsetof(struct roce_counters, icrc_bad) ||
			 off == offsetof(struct roce_counters, malformed) ||
			 off == offsetof(struct roce_counters, ecn_ce) ||
			 off == offsetof(struct roce_counters, ecn_capable));

		if (loose)
			CHECK(v[k] <= sv[k]);
		else
			CHECK_EQ_U(v[k], sv[k]);
	}
	/* the anonymous members are the named struct's fields */
	CHECK_EQ_U(s.psn_gaps, s.counters.psn_gaps);
	CHECK(&s.malformed == &s.counters.malformed);
}

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
	req(&t, ROCE_OP_UC_SEND_ONLY, 101, false, 8, 0, 2 * US);
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

static void test_cnp_ecn(void)
{
	struct t t;
	struct roce_summary s;
	struct roce_frame_spec sp;
	struct flows fl;
	const struct roce_flow_stats *f;

	t_init(&t, 0);
	REQUIRE(t.a);
	spec_dir(&sp, true, ROCE_OP_RC_SEND_ONLY, 1);
	sp.tclass = 0x6b;               /* DSCP 26, CE */
	feed(&t, &sp, 0);
	CHECK_EQ_U(t.res.events, ROCE_EV_ECN_CE);
	spec_dir(&sp, true, ROCE_OP_RC_SEND_ONLY, 2);
	sp.tclass = 0x6a;               /* ECT(0) */
	feed(&t, &sp, 1 * US);
	CHECK_EQ_U(t.res.events, 0);
	for (int i = 0; i < 3; i++) {
		static const uint64_t when[3] = { 10 * US, 60 * US, 90 * US };

		spec_dir(&sp, false, ROCE_OP_CNP, 0);
		sp.bth.becn = 1;
		sp.bth.dqpn = QP_A;
		feed(&t, &sp, when[i]);
		CHECK_EQ_I(t.status, ROCE_OK);
		CHECK_EQ_U(t.res.events, ROCE_EV_CNP);
	}
	sum(&t, &s);
	CHECK_EQ_U(s.ecn_ce, 1);
	CHECK_EQ_U(s.ecn_capable, 2);
	CHECK_EQ_U(s.cnps, 3);
	CHECK_EQ_U(s.opcodes[ROCE_OP_CNP], 3);
	CHECK_EQ_U(t.an[ROCE_AN_CNP], 3);
	CHECK_EQ_U(t.an[ROCE_AN_ECN_CE], 1);
	flows_get(&t, &fl);
	f = resp_flow(&fl);
	REQUIRE(f);
	CHECK_EQ_U(f->cnps, 3);
	CHECK_EQ_U(f->cnp_min_gap_ns, 30 * US);
	CHECK_EQ_U(f->transport, ROCE_TRANSPORT_CNP);
	f = req_flow(&fl);
	REQUIRE(f);
	CHECK_EQ_U(f->ecn_ce, 1);
	CHECK_EQ_U(f->ecn_capable, 2);
	check_counters_add_up(&t, false);
	t_done(&t);
}

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

static void pfc(struct t *t, const uint8_t mac[6], uint8_t enable, int prio, uint16_t q,
	uint64_t ts)
{
	uint8_t buf[64];
	uint16_t quanta[8] = { 0 };
	size_t len;

	quanta[prio] = q;
	if (roce_build_pfc(mac, enable, quanta, buf, sizeof(buf), &len) != ROCE_OK) {
		check_cur_failed_ = 1;
		return;
	}
	feed_buf(t, buf, len, ts);
}

static void test_pfc_timing(void)
{
	struct t t;
	struct roce_summary s;
	struct pfcs v = { .n = 0 };
	const uint64_t t0 = 1000 * MS;

	/* 65535 * 512 bit / 100 Gb/s = 335539.2 ns (335544 would be 65536 quanta) */
	CHECK_EQ_U(roce_pause_quanta_ns(100, 0xffff), 335539);
	CHECK_EQ_U(roce_pause_quanta_ns(100, 3), 15);            /* 15.36 */
	CHECK_EQ_U(roce_pause_quanta_ns(400, 3), 4);             /* 3.84 */
	CHECK_EQ_U(roce_pause_quanta_ns(25, 1), 20);             /* 20.48 */
	CHECK_EQ_U(roce_pause_quanta_ns(1, 0xffff), 33553920);
	CHECK_EQ_U(roce_pause_quanta_ns(100, 0), 0);
	CHECK_EQ_U(roce_pause_quanta_ns(0, 10), 0);

	t_init(&t, 0);
	REQUIRE(t.a);
	pfc(&t, mac_a, 1u << 3, 3, 0xffff, t0);
	CHECK_EQ_I(t.status, ROCE_OK);
	CHECK_EQ_U(t.res.events, ROCE_EV_PFC);
	CHECK_EQ_U(t.res.pause_ns[3], 335539);
	pfc(&t, mac_a, 1u << 3, 3, 0xffff, t0 + 100 * US);  /* refresh before expiry */
	pfc(&t, mac_a, 1u << 3, 3, 0, t0 + 200 * US);       /* XON */
	CHECK_EQ_U(t.res.events, ROCE_EV_PFC | ROCE_EV_PFC_XON);
	CHECK_EQ_U(t.res.pause_ns[3], 0);
	/* an XOFF that simply expires, then another that is still open at the end */
	pfc(&t, mac_a, 1u << 3, 3, 0xffff, t0 + 1 * MS);
	pfc(&t, mac_a, 1u << 3, 3, 1000, t0 + 5 * MS);      /* 5120 ns */
	/* 802.3x PAUSE is a separate entry with priority -1 */
	{
		uint8_t buf[64];
		size_t len;

		REQUIRE(roce_build_pause(mac_b, 0xffff, buf, sizeof(buf), &len) == ROCE_OK);
		feed_buf(&t, buf, len, t0 + 6 * MS);
		CHECK_EQ_U(t.res.events, ROCE_EV_PAUSE);
		CHECK_EQ_U(t.res.pause_ns[0], 335539);
	}
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.pfc_frames, 5);
	CHECK_EQ_U(s.pause_frames, 1);
	CHECK_EQ_U(s.pfc_storms, 0);
	roce_analyzer_foreach_pfc(t.a, collect_pfc, &v);
	REQUIRE(v.n == 2);
	CHECK_EQ_I(v.p[0].priority, 3);
	CHECK_EQ_U(v.p[0].first_frame, 1);
	CHECK_EQ_U(v.p[0].frames, 5);
	CHECK_EQ_U(v.p[0].xoff, 4);
	CHECK_EQ_U(v.p[0].xon, 1);
	CHECK_EQ_U(v.p[0].quanta, 3u * 0xffff + 1000);
	CHECK_EQ_U(v.p[0].paused_ns, 200 * US + 335539 + 5120);
	CHECK_EQ_U(v.p[0].longest_pause_ns, 335539);
	CHECK_EQ_I(v.p[1].priority, -1);
	CHECK(memcmp(v.p[1].src_mac, mac_b, 6) == 0);
	CHECK_EQ_U(v.p[1].paused_ns, 335539);
	t_done(&t);
}

static void test_pfc_storm(void)
{
	struct t t;
	struct roce_summary s;
	struct pfcs v = { .n = 0 };
	uint64_t storm_frame = 0, storm_events = 0;

	t_init(&t, 0);
	REQUIRE(t.a);
	/* XOFF refreshed every 100 us for 250 ms: one storm flagged at 200 ms */
	for (uint64_t i = 0; i <= 2500; i++) {
		pfc(&t, mac_a, 0x28, 5, 0xffff, i * 100 * US);
		if (t.res.events & ROCE_EV_PFC_STORM) {
			storm_events++;
			if (!storm_frame)
				storm_frame = t.frame;
			CHECK_EQ_U(t.res.storm_mask, 1u << 5);
		}
	}
	CHECK_EQ_U(storm_events, 1);
	CHECK_EQ_U(storm_frame, 2001);      /* t = 200 ms after the first XOFF */
	CHECK_EQ_U(t.an[ROCE_AN_PFC_STORM], 1);
	CHECK(t.last_an[ROCE_AN_PFC_STORM].has_mac);
	CHECK_EQ_I(t.last_an[ROCE_AN_PFC_STORM].priority, 5);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.pfc_storms, 1);
	roce_analyzer_foreach_pfc(t.a, collect_pfc, &v);
	REQUIRE(v.n == 2);              /* priorities 3 (quanta 0 = XON) and 5 */
	CHECK_EQ_I(v.p[0].priority, 3);
	CHECK_EQ_U(v.p[0].xon, 2501);
	CHECK_EQ_U(v.p[0].paused_ns, 0);
	CHECK_EQ_I(v.p[1].priority, 5);
	CHECK_EQ_U(v.p[1].storms, 1);
	CHECK_EQ_U(v.p[1].paused_ns, 250 * MS + 335539);
	CHECK_EQ_U(v.p[1].longest_pause_ns, 250 * MS + 335539);
	t_done(&t);
}

static void test_eviction_and_order(void)
{
	struct t t;
	struct roce_analyzer_config cfg;
	struct roce_summary s;
	struct flows fl;

	roce_analyzer_config_init(&cfg);
	cfg.max_flows = 4;
	t_init_cfg(&t, &cfg);
	REQUIRE(t.a);
	for (uint32_t i = 0; i < 6; i++) {
		struct roce_frame_spec sp;

		spec_dir(&sp, true, ROCE_OP_RC_SEND_ONLY, 1);
		sp.bth.dqpn = 0x100 + i;
		feed(&t, &sp, i * US);
	}
	sum(&t, &s);
	CHECK_EQ_U(s.evicted_flows, 2);
	CHECK_EQ_U(s.flows, 6);
	CHECK_EQ_U(s.flows_active, 4);
	CHECK_EQ_U(s.frames, 6);
	CHECK_EQ_U(t.an[ROCE_AN_FLOW_EVICTED], 2);
	CHECK(t.last_an[ROCE_AN_FLOW_EVICTED].has_flow);
	CHECK_EQ_U(t.last_an[ROCE_AN_FLOW_EVICTED].flow.dqpn, 0x101);  /* least recent */
	flows_get(&t, &fl);
	REQUIRE(fl.n == 4);
	for (unsigned i = 0; i < 4; i++) {
		CHECK_EQ_U(fl.f[i].key.dqpn, 0x102 + i);
		CHECK_EQ_U(fl.f[i].first_frame, 3 + i);
	}
	t_done(&t);
}

/* Stream QP qp (A -> B) sends SEND_ONLY with PSN psn. */
static void send_qp(struct t *t, uint32_t qp, uint32_t psn, uint64_t ts)
{
	struct roce_frame_spec sp;

	spec_dir(&sp, true, ROCE_OP_RC_SEND_ONLY, psn);
	sp.bth.dqpn = qp;
	feed(t, &sp, ts);
}

/*
 * Unrecovered PSNs while streams with holes come and go: summary() and
 * finish() skip their walk over the streams when none has a hole array, so
 * the count must still include evicted streams' holes and pick up a new
 * stream's.
 */
static void test_holes_evicted(void)
{
	struct t t;
	struct roce_analyzer_config cfg;
	struct roce_summary s;
	uint64_t ts = 0;

	roce_analyzer_config_init(&cfg);
	cfg.max_flows = 2;
	t_init_cfg(&t, &cfg);
	REQUIRE(t.a);
	send_qp(&t, 0x100, 1, ts++);
	send_qp(&t, 0x100, 2, ts++);
	send_qp(&t, 0x100, 5, ts++);    /* 3, 4 missing */
	send_qp(&t, 0x101, 1, ts++);
	send_qp(&t, 0x101, 3, ts++);    /* 2 missing */
	sum(&t, &s);
	CHECK_EQ_U(s.unrecovered_psns, 3);
	/* two streams without holes push both out */
	send_qp(&t, 0x102, 1, ts++);
	send_qp(&t, 0x103, 1, ts++);
	sum(&t, &s);
	CHECK_EQ_U(s.evicted_flows, 2);
	CHECK_EQ_U(s.unrecovered_psns, 3);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.unrecovered_psns, 3);
	CHECK_EQ_U(t.an[ROCE_AN_UNRECOVERED], 0);      /* no live stream misses a PSN */
	/* a new stream with a hole: counted again, and reported at finish */
	send_qp(&t, 0x104, 7, ts++);
	send_qp(&t, 0x104, 9, ts++);    /* 8 missing */
	sum(&t, &s);
	CHECK_EQ_U(s.unrecovered_psns, 4);
	roce_analyzer_finish(t.a);
	CHECK_EQ_U(t.an[ROCE_AN_UNRECOVERED], 1);
	CHECK_EQ_U(t.last_an[ROCE_AN_UNRECOVERED].count, 1);
	CHECK_EQ_U(t.last_an[ROCE_AN_UNRECOVERED].flow.dqpn, 0x104);
	/* the hole filled: the stream keeps its (empty) hole array, the count is 3 */
	send_qp(&t, 0x104, 8, ts++);
	sum(&t, &s);
	CHECK_EQ_U(s.unrecovered_psns, 3);
	t_done(&t);
}

/* Counts every stream's frames: its PSN (1, 2, 3...) equals its frame count. */
static int check_many(void *user, const struct roce_flow_stats *f)
{
	uint64_t *bad = user;

	if (f->frames != 3 || f->last_psn != 3 || f->psn_gaps || f->duplicates)
		(*bad)++;
	return 0;
}

/*
 * Thousands of streams: the stream table grows from its small start many
 * times (and again with evictions at a cap), and every stream is still
 * found on every frame: no stream is split in two, none is lost.
 */
static void test_many_streams(void)
{
	enum { N = 5000 };
	struct roce_analyzer_config cfg;
	struct roce_summary s;
	struct t t;
	uint64_t bad = 0;

	roce_analyzer_config_init(&cfg);
	t_init_cfg(&t, &cfg);
	REQUIRE(t.a);
	for (uint32_t round = 1; round <= 3; round++)
		for (uint32_t i = 0; i < N; i++) {
			struct roce_frame_spec sp;

			spec_dir(&sp, true, ROCE_OP_RC_SEND_ONLY, round);
			sp.bth.dqpn = 0x1000 + i * 7;
			feed(&t, &sp, (round * N + i) * US);
		}
	sum(&t, &s);
	CHECK_EQ_U(s.flows, N);
	CHECK_EQ_U(s.flows_active, N);
	CHECK_EQ_U(s.frames, 3 * N);
	CHECK_EQ_U(s.psn_gaps, 0);
	CHECK_EQ_U(s.evicted_flows, 0);
	roce_analyzer_foreach_flow(t.a, check_many, &bad);
	CHECK_EQ_U(bad, 0);
	t_done(&t);

	/* at a cap of 1000: the table grows to it, then evicts, never loses one */
	cfg.max_flows = 1000;
	t_init_cfg(&t, &cfg);
	REQUIRE(t.a);
	for (uint32_t i = 0; i < N; i++) {
		struct roce_frame_spec sp;

		spec_dir(&sp, true, ROCE_OP_RC_SEND_ONLY, 1);
		sp.bth.dqpn = 0x1000 + i;
		feed(&t, &sp, i * US);
	}
	sum(&t, &s);
	CHECK_EQ_U(s.flows, N);
	CHECK_EQ_U(s.flows_active, 1000);
	CHECK_EQ_U(s.evicted_flows, N - 1000);
	t_done(&t);
}

static void test_malformed_and_icrc(void)
{
	struct t t;
	struct roce_summary s;
	struct roce_frame_spec sp;
	struct roce_pkt junk;
	struct flows fl;

	t_init(&t, 0);
	REQUIRE(t.a);
	spec_dir(&sp, true, ROCE_OP_RC_SEND_ONLY, 1);
	sp.bad_icrc = true;
	feed(&t, &sp, 0);
	CHECK(t.res.events & ROCE_EV_ICRC_BAD);
	spec_dir(&sp, true, ROCE_OP_RC_SEND_ONLY, 2);
	sp.bth.tver = 1;
	feed(&t, &sp, 1 * US);
	CHECK(t.res.events & ROCE_EV_MALFORMED);
	CHECK(t.res.findings & ROCE_FIND_BAD_TVER);
	CHECK(t.last_an[ROCE_AN_MALFORMED].detail[0] != '\0');
	CHECK(t.last_an[ROCE_AN_MALFORMED].has_psn);
	/* a non-RoCE frame only counts */
	memset(&junk, 0, sizeof(junk));
	junk.wirelen = 100;
	roce_analyzer_process(t.a, &junk, ROCE_E_NOT_ROCE, 2 * US, ++t.frame, NULL);
	sum(&t, &s);
	CHECK_EQ_U(s.frames, 3);
	CHECK_EQ_U(s.roce_frames, 2);
	CHECK_EQ_U(s.icrc_bad, 1);
	CHECK_EQ_U(s.malformed, 1);
	CHECK_EQ_U(s.findings[3], 1);       /* BAD_TVER is bit 3 */
	CHECK_EQ_U(s.findings[8], 1);       /* BAD_ICRC is bit 8 */
	CHECK_EQ_U(t.an[ROCE_AN_ICRC], 1);
	CHECK_EQ_U(t.an[ROCE_AN_MALFORMED], 1);
	/* the receiver drops both: neither creates a stream (test_analyzer_damaged.c) */
	flows_get(&t, &fl);
	CHECK_EQ_U(fl.n, 0);
	/* once the stream exists, they are counted on it */
	spec_dir(&sp, true, ROCE_OP_RC_SEND_ONLY, 1);
	feed(&t, &sp, 3 * US);
	sp.bad_icrc = true;
	feed(&t, &sp, 4 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_ICRC_BAD);
	spec_dir(&sp, true, ROCE_OP_RC_SEND_ONLY, 2);
	sp.bth.tver = 1;
	feed(&t, &sp, 5 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_MALFORMED);
	flows_get(&t, &fl);
	REQUIRE(fl.n == 1);
	CHECK_EQ_U(fl.f[0].frames, 3);
	CHECK_EQ_U(fl.f[0].icrc_bad, 1);
	CHECK_EQ_U(fl.f[0].malformed, 1);
	check_counters_add_up(&t, true);
	t_done(&t);
}

static void test_names_and_config(void)
{
	struct roce_analyzer_config cfg;
	char err[ROCE_ERRBUF_SIZE];
	roce_analyzer_t *a;

	CHECK_STR(roce_anomaly_name(ROCE_AN_PSN_GAP), "psn_gap");
	CHECK_EQ_I(roce_anomaly_by_name("pfc_storm"), ROCE_AN_PFC_STORM);
	CHECK_EQ_I(roce_anomaly_by_name("nope"), -1);
	for (int i = 0; i < ROCE_AN_COUNT; i++)
		CHECK_EQ_I(roce_anomaly_by_name(roce_anomaly_name(i)), i);
	roce_analyzer_config_init(&cfg);
	CHECK_EQ_U(cfg.max_flows, 1000000);
	CHECK_EQ_U(cfg.max_pfc, 4096);
	CHECK_EQ_U(cfg.pfc_storm_ns, 200 * MS);
	cfg.pmtu = 1000;
	err[0] = 0;
	a = roce_analyzer_create(&cfg, err);
	CHECK(a == NULL);
	CHECK(err[0] != 0);
	cfg.pmtu = 0;
	cfg.link_speed_gbps = -1;
	CHECK(roce_analyzer_create(&cfg, err) == NULL);
	roce_analyzer_destroy(NULL);
}

/* anomalies.def: event bits keep their published values, names and table rows are whole. */
static void test_vocabulary(void)
{
	static const struct { uint32_t bit, value; const char *name; } ev[] = {
		{ ROCE_EV_PSN_GAP, 0x00001, "psn_gap" },
		{ ROCE_EV_DUPLICATE, 0x00002, "duplicate" },
		{ ROCE_EV_OUT_OF_ORDER, 0x00004, "out_of_order" },
		{ ROCE_EV_RETRANSMISSION, 0x00008, "retransmission" },
		{ ROCE_EV_NAK, 0x00010, "nak" },
		{ ROCE_EV_RNR_NAK, 0x00020, "rnr_nak" },
		{ ROCE_EV_ECN_CE, 0x00040, "ecn_ce" },
		{ ROCE_EV_CNP, 0x00080, "cnp" },
		{ ROCE_EV_ACK_RTT, 0x00100, "ack_rtt" },
		{ ROCE_EV_READ_FIRST_RESP, 0x00200, "read_first_resp" },
		{ ROCE_EV_READ_LAST_RESP, 0x00400, "read_last_resp" },
		{ ROCE_EV_PFC, 0x00800, "pfc" },
		{ ROCE_EV_PFC_XON, 0x01000, "pfc_xon" },
		{ ROCE_EV_PFC_STORM, 0x02000, "pfc_storm" },
		{ ROCE_EV_PAUSE, 0x04000, "pause" },
		{ ROCE_EV_GBN_RECOVERED, 0x08000, "gbn_recovered" },
		{ ROCE_EV_ICRC_BAD, 0x10000, "icrc_bad" },
		{ ROCE_EV_MALFORMED, 0x20000, "malformed" },
	};
	struct roce_summary s;
	uint64_t *fields[] = {
		&s.icrc_bad, &s.malformed, &s.psn_gaps, &s.duplicates, &s.out_of_order,
		&s.retransmissions, &s.naks, &s.rnr_naks, &s.cnps, &s.ecn_ce, &s.pfc_storms,
		&s.unrecovered_psns, &s.evicted_flows,
	};

	CHECK_EQ_U(ROCE_EVI_COUNT, sizeof(ev) / sizeof(ev[0]));
	for (size_t i = 0; i < sizeof(ev) / sizeof(ev[0]); i++) {
		CHECK_EQ_U(ev[i].bit, ev[i].value);
		CHECK_STR(roce_event_name(ev[i].bit), ev[i].name);
	}
	CHECK(roce_event_name(0) == NULL);
	CHECK(roce_event_name(ROCE_EV_NAK | ROCE_EV_CNP) == NULL);
	CHECK(roce_event_name(1u << ROCE_EVI_COUNT) == NULL);

	CHECK_EQ_I(ROCE_AN_COUNT, 13);
	CHECK(roce_anomaly_info(ROCE_AN_COUNT) == NULL);
	CHECK(roce_anomaly_info((enum roce_anomaly_type)-1) == NULL);
	for (int i = 0; i < ROCE_AN_COUNT; i++) {
		const struct roce_anomaly_info *ai = roce_anomaly_info((enum roce_anomaly_type)i);

		REQUIRE(ai != NULL);
		CHECK_STR(ai->name, roce_anomaly_name((enum roce_anomaly_type)i));
		CHECK(ai->help != NULL && ai->help[0] != 0);
		CHECK(ai->severity >= ROCE_SEV_CHAT && ai->severity <= ROCE_SEV_ERROR);
		/* an anomaly tied to a frame carries one event bit and has an expert */
		if (ai->event) {
			CHECK(roce_event_name(ai->event) != NULL);
			CHECK(ai->expert != NULL);
		}
		for (int j = 0; j < i; j++)
			CHECK(strcmp(ai->name, roce_anomaly_name((enum roce_anomaly_type)j)) != 0);
	}
	CHECK_EQ_U(roce_anomaly_info(ROCE_AN_ICRC)->event, ROCE_EV_ICRC_BAD);
	CHECK_EQ_U(roce_anomaly_info(ROCE_AN_RNR_NAK)->event, ROCE_EV_RNR_NAK);
	CHECK_EQ_U(roce_anomaly_info(ROCE_AN_UNRECOVERED)->event, 0);
	CHECK(roce_anomaly_info(ROCE_AN_FLOW_EVICTED)->expert == NULL);
	CHECK_EQ_I(roce_anomaly_info(ROCE_AN_ICRC)->severity, ROCE_SEV_ERROR);
	CHECK_STR(roce_anomaly_info(ROCE_AN_NAK)->expert, "roce.analysis.nak.expert");

	/* each type's total is its own summary counter (flow_evicted: both tables) */
	memset(&s, 0, sizeof(s));
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		*fields[i] = 10 + i;
	s.evicted_pfc = 1000;
	for (int i = 0; i < ROCE_AN_COUNT; i++)
		CHECK_EQ_U(roce_anomaly_count(&s, (enum roce_anomaly_type)i),
			   10 + (uint64_t)i + (i == ROCE_AN_FLOW_EVICTED ? 1000 : 0));
	CHECK_EQ_U(roce_anomaly_count(&s, ROCE_AN_COUNT), 0);
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
	RUN(test_cnp_ecn);
	RUN(test_pfc_timing);
	RUN(test_pfc_storm);
	RUN(test_eviction_and_order);
	RUN(test_holes_evicted);
	RUN(test_many_streams);
	RUN(test_malformed_and_icrc);
	RUN(test_names_and_config);
	RUN(test_vocabulary);
	return check_report();
}
