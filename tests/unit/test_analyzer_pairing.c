// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_analyzer_pairing.c - request / response pairing by the UDP source
 * port (docs/json.md "Pairing"): QPs between the same two hosts whose PSN
 * windows overlap (every QP started at one PSN) and whose responses come out
 * of request order.  Linux (rxe, mlx5, irdma) gives an RC QP with GRH flow
 * label 0 the port rdma_get_udp_sport(0, lqpn, rqpn), the same in both
 * directions: that port pairs them right.  Ports that do not prove the
 * connection (one per direction, a constant one, two Linux connections whose
 * ports collide, RoCE v1 without UDP) leave today's rule (oldest outstanding
 * request first) to decide, and a port never beats an outstanding request at
 * the response's PSN.  Every frame also goes through roce-analyze's entry
 * (an_audit.h).
 */
#include "an_audit.h"

/* The kernel's rdma_get_udp_sport(0, lqpn, rqpn) (include/rdma/ib_verbs.h), written out
 * here independently of lib/src/an_pair.c. */
static uint16_t lx_port(uint32_t lqpn, uint32_t rqpn)
{
	uint64_t v = (uint64_t)lqpn * rqpn;
	uint32_t fl, lo, hi;

	v ^= v >> 20;
	v ^= v >> 40;
	fl = (uint32_t)(v & 0xfffff);
	lo = fl & 0x03fff;
	hi = fl & 0xfc000;
	lo ^= hi >> 14;
	return (uint16_t)(lo | 0xc000);
}

struct fr {
	uint8_t version;        /* 2 (IPv4) or 1 */
	uint16_t sport;         /* 0: roce_build()'s default */
};

/* A -> B request to B's QP dq (AckReq set unless noack) / B -> A response to A's QP dq. */
static void frame(struct t *t, const struct fr *o, bool a2b, uint32_t dq, uint8_t op,
	uint32_t psn, uint32_t len, uint16_t sport, uint64_t ts)
{
	struct roce_frame_spec s;

	if (a2b)
		req_spec(&s, op, psn, op != ROCE_OP_RC_RDMA_WRITE_FIRST, op ==
			 ROCE_OP_RC_RDMA_READ_REQUEST ? 0 : len,
			 op == ROCE_OP_RC_RDMA_READ_REQUEST ? len : 0);
	else
		resp_spec(&s, op, psn, 0x1f, len);
	s.bth.dqpn = dq;
	s.version = o->version;
	s.sport = sport;
	xfeed(t, &s, ts);
	CHECK_EQ_U(t->status, ROCE_OK);
}

static const struct roce_flow_stats *flow_of(const struct flows *fl, uint32_t dqpn)
{
	for (unsigned i = 0; i < fl->n; i++)
		if (fl->f[i].key.dqpn == dqpn)
			return &fl->f[i];
	return NULL;
}

/*
 * Connection 1: A's QP 0x22 <-> B's QP 0x11 (request stream dqpn 0x11, response stream
 * dqpn 0x22); connection 2: 0x23 <-> 0x12.  Both start at PSN 100; QP 1 asks first, QP 2 is
 * answered first: ACK 100 then a READ (2 packets on QP 1, 4 on QP 2) each.  Ports: rq1 /
 * rs1 on connection 1's request / response stream, rq2 / rs2 on connection 2's.  right: the
 * pairing expected (else the swapped one, today's rule): peers, ACK RTTs and READ latencies
 * are checked either way round.
 */
static void run_swap(const struct fr *o, uint16_t rq1, uint16_t rs1, uint16_t rq2, uint16_t rs2,
	bool right)
{
	struct t t;
	struct roce_summary s;
	struct flows fl;
	const struct roce_flow_stats *f;

	a_init(&t, 1024);
	REQUIRE(t.a && xa);
	frame(&t, o, true, 0x11, ROCE_OP_RC_SEND_ONLY, 100, 64, rq1, 0);
	frame(&t, o, true, 0x12, ROCE_OP_RC_SEND_ONLY, 100, 64, rq2, 1 * US);
	frame(&t, o, false, 0x23, ROCE_OP_RC_ACKNOWLEDGE, 100, 0, rs2, 5 * US);
	CHECK_EQ_U(t.res.rtt_ns, right ? 4 * US : 5 * US);
	frame(&t, o, false, 0x22, ROCE_OP_RC_ACKNOWLEDGE, 100, 0, rs1, 8 * US);
	CHECK_EQ_U(t.res.rtt_ns, right ? 8 * US : 7 * US);
	frame(&t, o, true, 0x11, ROCE_OP_RC_RDMA_READ_REQUEST, 101, 2048, rq1, 10 * US);
	frame(&t, o, true, 0x12, ROCE_OP_RC_RDMA_READ_REQUEST, 101, 4096, rq2, 11 * US);
	frame(&t, o, false, 0x23, ROCE_OP_RC_RDMA_READ_RESPONSE_FIRST, 101, 1024, rs2, 20 * US);
	frame(&t, o, false, 0x23, ROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE, 102, 1024, rs2, 21 * US);
	frame(&t, o, false, 0x23, ROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE, 103, 1024, rs2, 22 * US);
	frame(&t, o, false, 0x23, ROCE_OP_RC_RDMA_READ_RESPONSE_LAST, 104, 1024, rs2, 23 * US);
	frame(&t, o, false, 0x22, ROCE_OP_RC_RDMA_READ_RESPONSE_FIRST, 101, 1024, rs1, 24 * US);
	frame(&t, o, false, 0x22, ROCE_OP_RC_RDMA_READ_RESPONSE_LAST, 102, 1024, rs1, 25 * US);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	flows_get(&t, &fl);
	REQUIRE((f = flow_of(&fl, 0x23)) != NULL);
	CHECK(f->has_peer);
	CHECK_EQ_U(f->peer.dqpn, right ? 0x12 : 0x11);
	REQUIRE((f = flow_of(&fl, 0x22)) != NULL);
	CHECK_EQ_U(f->peer.dqpn, right ? 0x11 : 0x12);
	if (right) {
		/* no READ response past its READ, no PSN skipped */
		CHECK_EQ_U(s.psn_gaps + s.lost_psns + s.unrecovered_psns, 0);
		REQUIRE((f = flow_of(&fl, 0x11)) != NULL);
		CHECK_EQ_U(f->rtt.min_ns, 8 * US);
		CHECK_EQ_U(f->read_last.count, 1);
		CHECK_EQ_U(f->read_last.max_ns, 15 * US);
		REQUIRE((f = flow_of(&fl, 0x12)) != NULL);
		CHECK_EQ_U(f->rtt.min_ns, 4 * US);
		CHECK_EQ_U(f->read_last.count, 1);
		CHECK_EQ_U(f->read_last.max_ns, 12 * US);
	} else {
		/* each QP's READ measured against the other's responses: QP 1's READ (101..102)
		 * never completes (QP 2's LAST is 104), QP 2's (101..104) ends at QP 1's LAST */
		REQUIRE((f = flow_of(&fl, 0x11)) != NULL);
		CHECK_EQ_U(f->rtt.min_ns, 5 * US);
		CHECK_EQ_U(f->read_last.count, 0);
		REQUIRE((f = flow_of(&fl, 0x12)) != NULL);
		CHECK_EQ_U(f->rtt.min_ns, 7 * US);
		CHECK_EQ_U(f->read_last.max_ns, 14 * US);
	}
	check_counters_add_up(&t, false);
	a_done(&t);
}

static const struct fr v2 = { 2, 0 }, v1 = { 1, 0 };

/* Linux ports, the same in both directions: paired right (the old rule paired them the
 * wrong way round). */
static void test_linux_ports(void)
{
	uint16_t p1 = lx_port(0x22, 0x11), p2 = lx_port(0x23, 0x12);

	REQUIRE(p1 != p2);
	CHECK_EQ_U(lx_port(0x11, 0x22), p1);    /* symmetric */
	run_swap(&v2, p1, p1, p2, p2, true);
}

/* A port per direction (as roce-gen writes by default: 0xC000 + a hash of the source QP):
 * no port proves a connection, today's rule: the documented limit stays. */
static void test_per_direction_ports(void)
{
	run_swap(&v2, 0xc011, 0xc022, 0xc012, 0xc023, false);
	/* one Linux port on one side only: not proof either */
	run_swap(&v2, lx_port(0x22, 0x11), 0xc022, lx_port(0x23, 0x12), 0xc023, false);
}

/* Connections 1 and 2 of run_swap() answered in request order (today's rule pairs them
 * right), every frame with port p. */
static void run_inorder(uint16_t p)
{
	struct t t;
	struct flows fl;
	const struct roce_flow_stats *f;

	a_init(&t, 1024);
	REQUIRE(t.a && xa);
	frame(&t, &v2, true, 0x11, ROCE_OP_RC_SEND_ONLY, 100, 64, p, 0);
	frame(&t, &v2, true, 0x12, ROCE_OP_RC_SEND_ONLY, 100, 64, p, 1 * US);
	frame(&t, &v2, false, 0x22, ROCE_OP_RC_ACKNOWLEDGE, 100, 0, p, 5 * US);
	CHECK_EQ_U(t.res.rtt_ns, 5 * US);
	frame(&t, &v2, false, 0x23, ROCE_OP_RC_ACKNOWLEDGE, 100, 0, p, 8 * US);
	CHECK_EQ_U(t.res.rtt_ns, 7 * US);
	roce_analyzer_finish(t.a);
	flows_get(&t, &fl);
	REQUIRE((f = flow_of(&fl, 0x22)) != NULL);
	CHECK_EQ_U(f->peer.dqpn, 0x11);
	REQUIRE((f = flow_of(&fl, 0x23)) != NULL);
	CHECK_EQ_U(f->peer.dqpn, 0x12);
	a_done(&t);
}

/*
 * One port on every frame: several candidates carry it, so it tells nothing, even when it
 * is the one Linux would derive for one of them.  In request order, port lx_port(0x22,
 * 0x12) would pair 0x22 with 0x12 (wrong) if it counted; out of order, lx_port(0x23, 0x12)
 * would happen to pair them right, and does not either: today's rule.
 */
static void test_constant_port(void)
{
	uint16_t p = lx_port(0x23, 0x12);

	run_inorder(lx_port(0x22, 0x12));
	run_inorder(0xc000);
	run_swap(&v2, p, p, p, p, false);
	run_swap(&v2, 0, 0, 0, 0, false);       /* roce_build()'s default, 0xC000 */
}

/* RoCE v1: no UDP, today's rule. */
static void test_rocev1(void)
{
	run_swap(&v1, 0, 0, 0, 0, false);
}

/*
 * Two Linux connections whose ports collide: QPs chosen so that lx_port() of both is one
 * value.  Responses in request order (today's rule gets them right): still right, the
 * shared port tells nothing.  And out of order: today's rule, as without ports.
 */
static void test_linux_collision(void)
{
	uint32_t b2 = 0;
	uint16_t p = lx_port(0x22, 0x11);

	for (uint32_t q = 0x100; q < 0x1000000 && !b2; q++)
		if (lx_port(0x23, q) == p)
			b2 = q;
	REQUIRE(b2 != 0);
	{
		struct t t;
		struct flows fl;
		const struct roce_flow_stats *f;

		a_init(&t, 1024);
		REQUIRE(t.a && xa);
		frame(&t, &v2, true, 0x11, ROCE_OP_RC_SEND_ONLY, 100, 64, p, 0);
		frame(&t, &v2, true, b2, ROCE_OP_RC_SEND_ONLY, 100, 64, p, 1 * US);
		frame(&t, &v2, false, 0x22, ROCE_OP_RC_ACKNOWLEDGE, 100, 0, p, 5 * US);
		CHECK_EQ_U(t.res.rtt_ns, 5 * US);
		frame(&t, &v2, false, 0x23, ROCE_OP_RC_ACKNOWLEDGE, 100, 0, p, 8 * US);
		CHECK_EQ_U(t.res.rtt_ns, 7 * US);
		roce_analyzer_finish(t.a);
		flows_get(&t, &fl);
		REQUIRE((f = flow_of(&fl, 0x22)) != NULL);
		CHECK_EQ_U(f->peer.dqpn, 0x11);
		REQUIRE((f = flow_of(&fl, 0x23)) != NULL);
		CHECK_EQ_U(f->peer.dqpn, b2);
		a_done(&t);
	}
}

/*
 * A port never beats an outstanding request at the response's PSN: QP 0x11 (whose port
 * proves connection 0x22 <-> 0x11) sent PSNs 100-101 without AckReq, QP 0x12 asked for an
 * ACK at 101; 0x22's ACK 101 goes to 0x12, the stream that waits for it.
 */
static void test_exact_beats_port(void)
{
	struct t t;
	struct flows fl;
	const struct roce_flow_stats *f;
	uint16_t p1 = lx_port(0x22, 0x11);

	a_init(&t, 1024);
	REQUIRE(t.a && xa);
	frame(&t, &v2, true, 0x11, ROCE_OP_RC_RDMA_WRITE_FIRST, 100, 1024, p1, 0);
	frame(&t, &v2, true, 0x11, ROCE_OP_RC_RDMA_WRITE_FIRST, 101, 1024, p1, 1 * US);
	frame(&t, &v2, true, 0x12, ROCE_OP_RC_SEND_ONLY, 101, 64, 0xc012, 2 * US);
	frame(&t, &v2, false, 0x22, ROCE_OP_RC_ACKNOWLEDGE, 101, 0, p1, 5 * US);
	CHECK_EQ_U(t.res.rtt_ns, 3 * US);
	roce_analyzer_finish(t.a);
	flows_get(&t, &fl);
	REQUIRE((f = flow_of(&fl, 0x22)) != NULL);
	CHECK_EQ_U(f->peer.dqpn, 0x12);
	a_done(&t);
}

/* Every stream's dest QP and its peer's (foreach_flow). */
struct peers {
	unsigned n;
	uint32_t dq[128], peer[128];
	bool has[128];
};

static int peers_collect(void *user, const struct roce_flow_stats *f)
{
	struct peers *p = user;

	if (p->n < 128) {
		p->dq[p->n] = f->key.dqpn;
		p->peer[p->n] = f->peer.dqpn;
		p->has[p->n++] = f->has_peer;
	}
	return 0;
}

/*
 * 48 QPs between the two hosts (more than AN_PAIR_SCAN: the PSN buckets, not the scan),
 * all at PSN 0 with Linux ports, every SEND asked before any answer and the ACKs in
 * reverse order: each response stream pairs with its own QP, the right RTT each (the old
 * rule paired the first response with the oldest QP, and so on).
 */
static void test_buckets_reverse(void)
{
	enum { N = 48 };
	struct t t;
	struct peers pr = { 0 };
	uint64_t wrong = 0, rtt_bad = 0, paired = 0;

	a_init(&t, 1024);
	REQUIRE(t.a && xa);
	for (uint32_t i = 0; i < N; i++)
		frame(&t, &v2, true, 0x1000 + i, ROCE_OP_RC_SEND_ONLY, 0, 64,
		      lx_port(0x2000 + i, 0x1000 + i), i * US);
	for (uint32_t j = 0; j < N; j++) {
		uint32_t i = N - 1 - j;

		frame(&t, &v2, false, 0x2000 + i, ROCE_OP_RC_ACKNOWLEDGE, 0, 0,
		      lx_port(0x2000 + i, 0x1000 + i), (100 + j) * US);
		if (t.res.rtt_ns != (100 + j - i) * US)
			rtt_bad++;
	}
	roce_analyzer_finish(t.a);
	roce_analyzer_foreach_flow(t.a, peers_collect, &pr);
	CHECK_EQ_U(pr.n, 2 * N);
	for (unsigned k = 0; k < pr.n; k++) {
		if (!pr.has[k])
			continue;
		paired++;
		if (pr.dq[k] >= 0x2000 ? pr.peer[k] != pr.dq[k] - 0x1000 :
		    pr.peer[k] != pr.dq[k] + 0x1000)
			wrong++;
	}
	CHECK_EQ_U(paired, 2 * N);
	CHECK_EQ_U(wrong, 0);
	CHECK_EQ_U(rtt_bad, 0);
	a_done(&t);
}

/*
 * The capture began inside a READ's responses (refmodel rand-refgen-267): the response
 * stream's first frames come before any request A -> B, so its first looks for a request
 * stream find no candidate.  It looks again at its next frame once the request stream
 * exists, not 64 frames later: the READ it then asks (107..109) is known when its first
 * response is lost, and the MIDDLE that passes it is a gap (lost 1), filled by the re-read
 * (out of order).  Unpaired, the passed PSN was only "unseen": no gap, yet out of order.
 */
static void test_responses_before_requests(void)
{
	struct t t;
	struct roce_summary s;
	struct flows fl;
	const struct roce_flow_stats *f;
	uint64_t ts = 0;

	a_init(&t, 1024);
	REQUIRE(t.a && xa);
	/* an uncaptured READ's responses 100..104, then an uncaptured READ's ONLY 105 */
	frame(&t, &v2, false, 0x22, ROCE_OP_RC_RDMA_READ_RESPONSE_FIRST, 100, 1024, 0, ts += US);
	for (uint32_t p = 101; p < 104; p++)
		frame(&t, &v2, false, 0x22, ROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE, p, 1024, 0,
		      ts += US);
	frame(&t, &v2, false, 0x22, ROCE_OP_RC_RDMA_READ_RESPONSE_LAST, 104, 100, 0, ts += US);
	frame(&t, &v2, false, 0x22, ROCE_OP_RC_RDMA_READ_RESPONSE_ONLY, 105, 100, 0, ts += US);
	CHECK_EQ_U(t.res.events & ROCE_EV_PSN_GAP, 0);
	/* the request stream's first frames: a SEND and a READ of 3 packets */
	frame(&t, &v2, true, 0x11, ROCE_OP_RC_SEND_ONLY, 106, 64, 0, ts += US);
	frame(&t, &v2, true, 0x11, ROCE_OP_RC_RDMA_READ_REQUEST, 107, 3072, 0, ts += US);
	frame(&t, &v2, false, 0x22, ROCE_OP_RC_ACKNOWLEDGE, 106, 0, 0, ts += 5 * US);
	CHECK(t.res.events & ROCE_EV_ACK_RTT);
	/* the READ's FIRST (107) lost: the MIDDLE passes it */
	frame(&t, &v2, false, 0x22, ROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE, 108, 1024, 0, ts += US);
	CHECK(t.res.events & ROCE_EV_PSN_GAP);
	CHECK_EQ_U(t.res.lost_psns, 1);
	frame(&t, &v2, false, 0x22, ROCE_OP_RC_RDMA_READ_RESPONSE_LAST, 109, 100, 0, ts += US);
	/* the re-read and its answer from 107 */
	frame(&t, &v2, true, 0x11, ROCE_OP_RC_RDMA_READ_REQUEST, 107, 3072, 0, ts += 50 * US);
	frame(&t, &v2, false, 0x22, ROCE_OP_RC_RDMA_READ_RESPONSE_FIRST, 107, 1024, 0,
	      ts += 5 * US);
	CHECK(t.res.events & ROCE_EV_OUT_OF_ORDER);
	frame(&t, &v2, false, 0x22, ROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE, 108, 1024, 0, ts += US);
	CHECK(t.res.events & ROCE_EV_DUPLICATE);
	frame(&t, &v2, false, 0x22, ROCE_OP_RC_RDMA_READ_RESPONSE_LAST, 109, 100, 0, ts += US);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	flows_get(&t, &fl);
	REQUIRE((f = flow_of(&fl, 0x22)) != NULL);
	CHECK(f->has_peer);
	CHECK_EQ_U(f->peer.dqpn, 0x11);
	CHECK_EQ_U(f->psn_gaps, 1);
	CHECK_EQ_U(f->lost_psns, 1);
	CHECK_EQ_U(f->out_of_order, 1);
	CHECK_EQ_U(f->duplicates, 2);
	CHECK_EQ_U(f->unrecovered_psns, 0);
	a_done(&t);
}

int main(void)
{
	RUN(test_linux_ports);
	RUN(test_per_direction_ports);
	RUN(test_constant_port);
	RUN(test_rocev1);
	RUN(test_linux_collision);
	RUN(test_exact_beats_port);
	RUN(test_buckets_reverse);
	RUN(test_responses_before_requests);
	return check_report();
}
