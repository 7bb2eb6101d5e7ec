// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_analyzer_audit5.c - a fifth audit (test_analyzer_audit.c .. _audit4.c
 * have the others), on the "ACKed unseen" rule (lib/src/an_acked.c) under
 * damage and on the capture artefacts real captures bring: an ACK with a bad
 * ICRC or cut by the snap length; an ACK / NAK past every request the capture
 * saw (the capture missed the tail of the requests); an ACK of an earlier
 * connection on a reused QP number; the response stream evicted by
 * --max-flows between the hole and its ACK; XRC and UD; an ACK captured
 * before the request it acknowledges (multi-queue capture, mirror ports);
 * every frame captured twice; timestamps going backwards; a capture that
 * starts inside a multi-packet SEND and inside a READ's responses; a READ
 * re-read from a PSN acknowledged unseen.  Each
 * expected value is stated with its reason (IBTA Vol. 1 ch. 9 as the
 * protocol notes give it, Linux rxe from memory of the code, docs/json.md);
 * an_audit.h runs every frame through roce-analyze's entry too and compares
 * the two analyzers.
 */
#include <stdio.h>

#include "an_audit.h"

static const uint32_t bases[] = { 100, 0xfffffe };

static uint32_t P(uint32_t b, uint32_t k)
{
	return (b + k) & 0xffffffu;
}

/* The request stream's holes (PSNs still missing). */
static uint32_t holes(struct t *t)
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
	return n;
}

/* An ACK of psn, its frame damaged as the caller says: cut to caplen, byte off XOR x. */
static void ack_damaged(struct t *t, uint32_t psn, size_t cut, size_t off, uint8_t x,
	uint64_t ts)
{
	struct roce_frame_spec s;
	uint8_t buf[256];
	size_t len = 0;

	resp_spec(&s, ROCE_OP_RC_ACKNOWLEDGE, psn, 0x1f, 0);
	REQUIRE(roce_build(&s, buf, sizeof(buf), &len) == ROCE_OK);
	if (off < len)
		buf[off] ^= x;
	xfeed_buf(t, buf, len, cut ? len - cut : len, ts);
}

/* ------------------------------------------------------ damaged ACKs */

/*
 * b + 2 not captured (a hole).  An ACK of b + 3 with a bad ICRC: the
 * requester's channel adapter drops it (IBTA 9.8.1: a packet failing the
 * ICRC check is silently dropped), and any of its header bytes may be the
 * damaged one (PSN included): no evidence (ROCE_FIND_UNTRUSTED_MASK: it moves
 * no PSN / ACK state), the hole stays.  The same ACK cut by the snap length
 * inside its AETH (headers cut: truncated, untrusted): no evidence either.
 * The same ACK cut by 4 bytes, its headers whole and only its ICRC missing:
 * ICRC unverified, trusted as every frame is whose ICRC the capture cannot
 * check (docs/json.md icrc_unverified) - it acknowledges b + 2: 1 ACKed unseen.
 */
static void run_ack_damaged(uint32_t b)
{
	struct t t;
	struct roce_summary s;
	/* Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 + AETH 4 + ICRC 4 = 62 bytes */
	const size_t icrc_off = 62 - 4;

	a_init(&t, 1024);
	REQUIRE(t.a && xa);
	snd(&t, b, 0);
	snd(&t, P(b, 1), 1 * US);
	snd(&t, P(b, 3), 2 * US);        /* b + 2 not captured */
	CHECK(t.res.events & ROCE_EV_PSN_GAP);
	ack_damaged(&t, P(b, 3), 0, icrc_off, 0x5a, 3 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_ICRC_BAD);
	sum(&t, &s);
	CHECK_EQ_U(s.acked_unseen_psns, 0);
	CHECK_EQ_U(holes(&t), 1);
	ack_damaged(&t, P(b, 3), 6, 0, 0, 4 * US);     /* 2 of the AETH's 4 bytes */
	CHECK(t.res.events & ROCE_EV_MALFORMED);
	sum(&t, &s);
	CHECK_EQ_U(s.acked_unseen_psns, 0);
	CHECK_EQ_U(holes(&t), 1);
	ack_damaged(&t, P(b, 3), 4, 0, 0, 5 * US);     /* the ICRC only */
	CHECK(!(t.res.events & (ROCE_EV_MALFORMED | ROCE_EV_ICRC_BAD)));
	sum(&t, &s);
	CHECK_EQ_U(s.acked_unseen_psns, 1);
	CHECK_EQ_U(holes(&t), 0);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.psn_gaps, 1);
	CHECK_EQ_U(s.lost_psns, 1);
	CHECK_EQ_U(s.unrecovered_psns, 0);
	CHECK_EQ_U(s.icrc_bad, 1);
	CHECK_EQ_U(s.malformed, 1);
	/* (the ACK cut inside its headers is no stream's: may lack one) */
	check_counters_add_up(&t, true);
	a_done(&t);
}

/* ------------------------------------ ACK / NAK past every request seen */

/*
 * The capture misses b + 2..b + 4 (a capturing host dropping a burst); the
 * responder's coalesced ACK of b + 4 is captured, then the request b + 5.
 * The ACK acknowledges b + 2..b + 4 (IBTA 9.7.5.1.1: an ACK acknowledges
 * every request PSN up to its own), but at the ACK the request stream knew
 * of no hole (its newest PSN was b + 1): Wireshark's TCP analysis says
 * "ACKed segment that wasn't captured" right away for an ACK above the
 * highest sequence number seen.  Here the PSNs are counted when the request
 * b + 5 opens their gap: psn_gaps 1, lost_psns 3 (what the capture point
 * missed), and all three ACKed unseen at once (the response stream's newest
 * PSN already covers them), none unrecovered; a late copy of b + 3 is a
 * duplicate.  Before the fix the three stayed unrecovered: the ACK came
 * before their hole.  A capture that ends right after such an ACK counts
 * nothing: the PSNs were never a gap of the request stream.
 */
static void run_ack_past_newest(uint32_t b)
{
	struct t t;
	struct roce_summary s;

	a_init(&t, 1024);
	REQUIRE(t.a && xa);
	snd(&t, b, 0);
	snd(&t, P(b, 1), 1 * US);
	ack(&t, P(b, 4), 5 * US);
	CHECK_EQ_U(t.res.events & ~ROCE_EV_ACK_RTT, 0);
	sum(&t, &s);
	CHECK_EQ_U(s.acked_unseen_psns, 0);     /* no gap yet */
	snd(&t, P(b, 5), 6 * US);
	CHECK(t.res.events & ROCE_EV_PSN_GAP);
	sum(&t, &s);
	CHECK_EQ_U(s.acked_unseen_psns, 3);
	CHECK_EQ_U(holes(&t), 0);
	snd(&t, P(b, 3), 7 * US);
	CHECK(t.res.events & ROCE_EV_DUPLICATE);
	ack(&t, P(b, 5), 8 * US);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.psn_gaps, 1);
	CHECK_EQ_U(s.lost_psns, 3);
	CHECK_EQ_U(s.acked_unseen_psns, 3);
	CHECK_EQ_U(s.unrecovered_psns, 0);
	CHECK_EQ_U(s.duplicates, 1);
	CHECK_EQ_U(s.out_of_order, 0);
	check_counters_add_up(&t, false);
	a_done(&t);
}

/*
 * The same with a NAK: b + 2..b + 5 not captured; the responder received
 * b + 2 and b + 3 but not b + 4 (lost after the capture point), and its
 * PSN sequence error NAK names b + 4 (IBTA 9.7.5.2.1: the NAK carries the
 * PSN the responder expects; it acknowledges every PSN before it).  The
 * requester goes back to b + 4: its resend opens the gap b + 2..b + 3 (the
 * analyzer never saw b + 4 and b + 5 either, so it is no retransmission to
 * it: a first PSN ahead of the newest), and both of those are ACKed unseen
 * (the NAK's PSN - 1 covers them); nothing stays unrecovered.
 */
static void run_nak_past_newest(uint32_t b)
{
	struct t t;
	struct roce_summary s;

	a_init(&t, 1024);
	REQUIRE(t.a && xa);
	snd(&t, b, 0);
	snd(&t, P(b, 1), 1 * US);
	nak(&t, P(b, 4), 0x60, 5 * US);
	CHECK(t.res.events & ROCE_EV_NAK);
	snd(&t, P(b, 4), 6 * US);
	CHECK(t.res.events & ROCE_EV_PSN_GAP);
	sum(&t, &s);
	CHECK_EQ_U(s.acked_unseen_psns, 2);     /* at the gap, from the NAK */
	CHECK_EQ_U(holes(&t), 0);
	snd(&t, P(b, 5), 7 * US);
	ack(&t, P(b, 5), 8 * US);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.psn_gaps, 1);
	CHECK_EQ_U(s.lost_psns, 2);
	CHECK_EQ_U(s.acked_unseen_psns, 2);
	CHECK_EQ_U(s.unrecovered_psns, 0);
	CHECK_EQ_U(s.naks, 1);
	check_counters_add_up(&t, false);
	a_done(&t);
}

/* ------------------------------------------------ reused QP number */

/*
 * Connection 1 on the QP pair: b..b + 3, ACK b + 3 (the response stream's
 * newest PSN).  The QPs are destroyed and the numbers reused; connection 2
 * starts at c, a quarter of the PSN space away (a new random first PSN;
 * AN_RESYNC): c, then c + 2 (c + 1 not captured).  The old connection's ACK
 * says nothing about the new one's PSNs: the hole c + 1 stays (unrecovered
 * at the end), nothing is ACKed unseen.  Then a late ACK of connection 1
 * (b + 3 again, a far PSN): nothing either.
 */
static void run_reused_qpn(uint32_t b)
{
	struct t t;
	struct roce_summary s;
	uint32_t c = P(b, 0x600000);

	a_init(&t, 1024);
	REQUIRE(t.a && xa);
	for (uint32_t k = 0; k < 4; k++)
		snd(&t, P(b, k), k * US);
	ack(&t, P(b, 3), 5 * US);
	snd(&t, c, 100 * US);
	snd(&t, P(c, 2), 101 * US);
	CHECK(t.res.events & ROCE_EV_PSN_GAP);
	ack(&t, P(b, 3), 102 * US);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.psn_gaps, 1);
	CHECK_EQ_U(s.lost_psns, 1);
	CHECK_EQ_U(s.acked_unseen_psns, 0);
	CHECK_EQ_U(s.unrecovered_psns, 1);
	check_counters_add_up(&t, false);
	a_done(&t);
}

/* ------------------------------------------- --max-flows eviction */

/* A request of another QP pair (destination QP qp). */
static void other(struct t *t, uint32_t qp, uint32_t psn, uint64_t ts)
{
	struct roce_frame_spec s;

	req_spec(&s, ROCE_OP_RC_SEND_ONLY, psn, false, 16, 0);
	s.bth.dqpn = qp;
	xfeed(t, &s, ts);
}

/*
 * --max-flows 3: b + 2 missing on the request stream; two more streams
 * (QPs 0x44, 0x55) evict the response stream (the least recently active:
 * its ACK of b was the oldest frame); the request b + 4, then the ACK of
 * b + 4 comes back as a new response stream (evicting QP 0x44's, now the
 * oldest), which pairs with the request stream again (the pairing index
 * looks its QP pair up at the response's first frame) and acknowledges
 * b + 2: 1 ACKed unseen, no PSN unrecovered.  The request stream's holes
 * were never evicted: only its peer was.
 */
static void test_response_stream_evicted(void)
{
	struct roce_analyzer_config cfg;
	struct t t;
	struct roce_summary s;
	const uint32_t b = 0xfffffe;

	roce_analyzer_config_init(&cfg);
	cfg.pmtu = 1024;
	cfg.max_flows = 3;
	a_init_cfg(&t, &cfg);
	REQUIRE(t.a && xa);
	snd(&t, b, 0);
	ack(&t, b, 1 * US);
	snd(&t, P(b, 1), 2 * US);
	snd(&t, P(b, 3), 3 * US);
	CHECK(t.res.events & ROCE_EV_PSN_GAP);
	other(&t, 0x44, 7, 4 * US);
	other(&t, 0x55, 7, 5 * US);
	sum(&t, &s);
	CHECK_EQ_U(s.evicted_flows, 1);
	snd(&t, P(b, 4), 6 * US);
	ack(&t, P(b, 4), 7 * US);
	CHECK(t.res.events & ROCE_EV_ACK_RTT);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.evicted_flows, 2);
	CHECK_EQ_U(s.psn_gaps, 1);
	CHECK_EQ_U(s.acked_unseen_psns, 1);
	CHECK_EQ_U(s.unrecovered_psns, 0);
	a_done(&t);
}

/* ------------------------------------------------------- XRC and UD */

/*
 * XRC (IBTA 9.7 applies to XRC as to RC: the XRC target QP acknowledges in
 * PSN order, with XRC_ACKNOWLEDGE): b + 1 not captured, the ACK of b + 2
 * covers it: 1 ACKed unseen.
 */
static void run_xrc(uint32_t b)
{
	struct t t;
	struct roce_summary s;
	struct roce_frame_spec sp;

	a_init(&t, 1024);
	REQUIRE(t.a && xa);
	req_spec(&sp, ROCE_OP_XRC_SEND_ONLY, b, true, 16, 0);
	sp.xrc_srq = 5;
	xfeed(&t, &sp, 0);
	req_spec(&sp, ROCE_OP_XRC_SEND_ONLY, P(b, 2), true, 16, 0);
	sp.xrc_srq = 5;
	xfeed(&t, &sp, 1 * US);
	CHECK(t.res.events & ROCE_EV_PSN_GAP);
	rs(&t, ROCE_OP_XRC_ACKNOWLEDGE, P(b, 2), 0x1f, 0, 3 * US);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.lost_psns, 1);
	CHECK_EQ_U(s.acked_unseen_psns, 1);
	CHECK_EQ_U(s.unrecovered_psns, 0);
	check_counters_add_up(&t, false);
	a_done(&t);
}

/*
 * UD has no acknowledgements (IBTA 9.7: UD is unacknowledged): an RC ACK
 * from the peer QP acknowledges no UD PSN: the UD hole stays unrecovered.
 */
static void run_ud(uint32_t b)
{
	struct t t;
	struct roce_summary s;

	a_init(&t, 1024);
	REQUIRE(t.a && xa);
	rq(&t, ROCE_OP_UD_SEND_ONLY, b, false, 16, 0, 0);
	rq(&t, ROCE_OP_UD_SEND_ONLY, P(b, 2), false, 16, 0, 1 * US);
	CHECK(t.res.events & ROCE_EV_PSN_GAP);
	ack(&t, P(b, 2), 2 * US);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.lost_psns, 1);
	CHECK_EQ_U(s.acked_unseen_psns, 0);
	CHECK_EQ_U(s.unrecovered_psns, 1);
	a_done(&t);
}

/* ------------------------------------------------ capture artefacts */

/*
 * The ACK captured before the request it acknowledges (multi-queue capture
 * merging queues, a mirror port: frames reordered by microseconds).
 * Requests b, b + 1; the ACK of b + 2; then request b + 2: the request
 * stream saw no hole, the ACK took nothing out (ACKed unseen 0), and b + 2
 * is the next PSN: in order, no duplicate, no gap.  The ACK times b and
 * b + 1 (10 and 9 us: one ACK covers both, one sample each), not b + 2 (its
 * request was not seen yet: the round trip would be negative); and b + 2,
 * already acknowledged, waits for no later ACK (docs/json.md rtt_us): the
 * ACK of b + 4 below times b + 4 only (10 us), not b + 2 from 11 us to 30 us
 * (19 us: a round trip too long, which the analyzer took before).
 *
 * Then b + 3 reordered behind b + 4 and the ACK of b + 4: b + 4 opens the
 * gap (b + 3 a hole), the ACK of b + 4 acknowledges it (ACKed unseen 1),
 * and the frame of b + 3 arriving after it is a duplicate - the rule of
 * docs/json.md: once the responder acknowledged a PSN the capture had not
 * carried, a frame carrying it is a copy the responder already had.  The
 * analyzer cannot tell a frame reordered by the capture from a requester's
 * resend after a timeout (both come behind the ACK), and keeps no record of
 * which PSNs were ACKed unseen: decided and documented (docs/json.md).
 * Without the ACK between them (test_analyzer_audit*.c), a reordered b + 3
 * is out of order.
 */
static void run_ack_before_request(uint32_t b)
{
	struct t t;
	struct roce_summary s;
	struct flows fl;
	const struct roce_flow_stats *a2b;

	a_init(&t, 1024);
	REQUIRE(t.a && xa);
	snd(&t, b, 0);
	snd(&t, P(b, 1), 1 * US);
	ack(&t, P(b, 2), 10 * US);
	CHECK_EQ_U(t.res.events & (ROCE_EV_DUPLICATE | ROCE_EV_PSN_GAP), 0);
	snd(&t, P(b, 2), 11 * US);
	CHECK_EQ_U(t.res.events, 0);
	sum(&t, &s);
	CHECK_EQ_U(s.acked_unseen_psns, 0);
	snd(&t, P(b, 4), 20 * US);
	CHECK(t.res.events & ROCE_EV_PSN_GAP);
	ack(&t, P(b, 4), 30 * US);
	CHECK(t.res.events & ROCE_EV_ACK_RTT);
	CHECK_EQ_U(t.res.rtt_ns, 10 * US);
	snd(&t, P(b, 3), 31 * US);
	CHECK(t.res.events & ROCE_EV_DUPLICATE);
	CHECK(!(t.res.events & ROCE_EV_OUT_OF_ORDER));
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.psn_gaps, 1);
	CHECK_EQ_U(s.lost_psns, 1);
	CHECK_EQ_U(s.acked_unseen_psns, 1);
	CHECK_EQ_U(s.unrecovered_psns, 0);
	CHECK_EQ_U(s.duplicates, 1);
	CHECK_EQ_U(s.out_of_order, 0);
	check_counters_add_up(&t, false);
	flows_get(&t, &fl);
	REQUIRE((a2b = req_flow(&fl)) != NULL);
	CHECK_EQ_U(a2b->rtt.count, 3);          /* b, b + 1, b + 4 */
	CHECK_EQ_U(a2b->rtt.min_ns, 9 * US);
	CHECK_EQ_U(a2b->rtt.max_ns, 10 * US);
	a_done(&t);
}

/*
 * The same with a NAK (not inclusive: it acknowledges the PSNs before the one
 * it names): requests b, b + 1; a PSN sequence error NAK naming b + 3 (the
 * responder has b + 2); then request b + 2, captured behind it, and b + 3,
 * the PSN the NAK asks for (in order for the capture: no resend), ACKed at
 * 30 us.  The NAK times nothing; b + 2 was acknowledged by it and waits for
 * no ACK: the ACK of b + 3 gives one sample, b + 3's 10 us (not b + 2's
 * 19 us).  A request at the PSN the NAK names is not acknowledged by it and
 * is timed.
 */
static void run_nak_before_request(uint32_t b)
{
	struct t t;
	struct flows fl;
	const struct roce_flow_stats *a2b;

	a_init(&t, 1024);
	REQUIRE(t.a && xa);
	snd(&t, b, 0);
	snd(&t, P(b, 1), 1 * US);
	nak(&t, P(b, 3), 0x60, 10 * US);
	CHECK(!(t.res.events & ROCE_EV_ACK_RTT));
	snd(&t, P(b, 2), 11 * US);
	snd(&t, P(b, 3), 20 * US);
	ack(&t, P(b, 3), 30 * US);
	CHECK(t.res.events & ROCE_EV_ACK_RTT);
	CHECK_EQ_U(t.res.rtt_ns, 10 * US);
	roce_analyzer_finish(t.a);
	flows_get(&t, &fl);
	REQUIRE((a2b = req_flow(&fl)) != NULL);
	CHECK_EQ_U(a2b->rtt.count, 1);
	CHECK_EQ_U(a2b->rtt.max_ns, 10 * US);
	a_done(&t);
}

/* The request stream's RTT samples: count, min and max (us). */
static void rtt_is(struct t *t, uint64_t count, uint64_t min_us, uint64_t max_us)
{
	struct flows fl;
	const struct roce_flow_stats *a2b;

	roce_analyzer_finish(t->a);
	flows_get(t, &fl);
	REQUIRE((a2b = req_flow(&fl)) != NULL);
	CHECK(a2b->has_peer);
	CHECK_EQ_U(a2b->rtt.count, count);
	CHECK_EQ_U(a2b->rtt.min_ns, min_us * US);
	CHECK_EQ_U(a2b->rtt.max_ns, max_us * US);
}

/*
 * The same before the stream's first request: the capture's first frame is
 * the ACK of b, its request b captured 1 us behind it.  The response stream
 * has no request stream to pair with at the ACK; it pairs at its next frame,
 * the ACK of b + 1, and what it acknowledged before counts then
 * (docs/json.md rtt_us): b waits for no ACK, the ACK of b + 1 times b + 1
 * only (10 us, not b from 1 us to 20 us), the ACK of b + 2 b + 2 (5 us).
 * Before: 3 samples, the longest 19 us.  Then the responder's coalesced ACK
 * of b + 1 captured before b and b + 1: only b + 2 is timed (before: b and
 * b + 1 too, 19 and 18 us).  A NAK naming b + 1 (the responder has b)
 * before b: b + 1 is timed, b not.  And a capture that begins after an ACK of
 * b - 1 (the request before the first one seen): that ACK acknowledges
 * nothing of the stream, b is timed.  Sequencing: no event on any of them.
 */
static void run_ack_before_first_request(uint32_t b)
{
	struct t t;
	struct roce_summary s;

	a_init(&t, 1024);
	REQUIRE(t.a && xa);
	ack(&t, b, 0);
	snd(&t, b, 1 * US);
	snd(&t, P(b, 1), 10 * US);
	ack(&t, P(b, 1), 20 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_ACK_RTT);
	CHECK_EQ_U(t.res.rtt_ns, 10 * US);
	snd(&t, P(b, 2), 30 * US);
	ack(&t, P(b, 2), 35 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_ACK_RTT);
	CHECK_EQ_U(t.res.rtt_ns, 5 * US);
	rtt_is(&t, 2, 5, 10);
	sum(&t, &s);
	CHECK_EQ_U(s.psn_gaps + s.lost_psns + s.duplicates + s.out_of_order, 0);
	CHECK_EQ_U(s.unrecovered_psns + s.acked_unseen_psns + s.retransmissions, 0);
	check_counters_add_up(&t, false);
	a_done(&t);

	a_init(&t, 1024);
	REQUIRE(t.a && xa);
	ack(&t, P(b, 1), 0);
	snd(&t, b, 1 * US);
	snd(&t, P(b, 1), 2 * US);
	snd(&t, P(b, 2), 10 * US);
	ack(&t, P(b, 2), 20 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_ACK_RTT);
	CHECK_EQ_U(t.res.rtt_ns, 10 * US);
	rtt_is(&t, 1, 10, 10);
	a_done(&t);

	a_init(&t, 1024);
	REQUIRE(t.a && xa);
	nak(&t, P(b, 1), 0x60, 0);
	snd(&t, b, 1 * US);
	snd(&t, P(b, 1), 10 * US);
	ack(&t, P(b, 1), 20 * US);
	CHECK(t.res.events & ROCE_EV_ACK_RTT);
	CHECK_EQ_U(t.res.rtt_ns, 10 * US);
	rtt_is(&t, 1, 10, 10);
	a_done(&t);

	a_init(&t, 1024);
	REQUIRE(t.a && xa);
	ack(&t, P(b, 0xffffff), 0);
	snd(&t, b, 1 * US);
	ack(&t, b, 10 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_ACK_RTT);
	CHECK_EQ_U(t.res.rtt_ns, 9 * US);
	rtt_is(&t, 1, 9, 9);
	a_done(&t);
}

/*
 * Every frame captured twice (a pcapng whose two interfaces see the same
 * link, a mirror port duplicating frames), the capture-copy rule off
 * (copy_window_ns 0; with it, the default, each second copy is a capture
 * copy: test_analyzer_copies.c): requests b..b + 3, each with
 * AckReq, each ACKed, every frame twice in a row, 100 ns apart.  The
 * analyzer reads what the capture shows, by the rules of docs/json.md
 * "Retransmissions and NAKs": each second request copy repeats a PSN seen
 * before - a duplicate (4), and on RC a go-back-N resend: a retransmission
 * (4) starting an episode with no NAK pending, cause timeout (4; each ends
 * at the next request).  Karn's rule then leaves every request untimed (a
 * resent request's ACK cannot tell which copy it answers): no round trip.
 * No gap, nothing lost or out of order.  The ACK copies: an ACK PSN repeats
 * normally and is never a duplicate.  A requester cannot resend 100 ns
 * after the original without a NAK (IBTA 9.7.6.1.3: the local ACK timeout
 * is 4.096 us x 2^n, n >= 1), so this reading is the capture's artefact,
 * which the capture-copy rule recognises (docs/json.md "Capture copies").
 */
static void run_captured_twice(uint32_t b)
{
	struct t t;
	struct roce_summary s;
	struct flows fl;
	const struct roce_flow_stats *a2b;
	struct roce_analyzer_config cfg;

	roce_analyzer_config_init(&cfg);
	cfg.pmtu = 1024;
	cfg.copy_window_ns = 0;
	a_init_cfg(&t, &cfg);
	REQUIRE(t.a && xa);
	for (uint32_t k = 0; k < 4; k++) {
		snd(&t, P(b, k), k * 10 * US);
		CHECK_EQ_U(t.res.events & ~ROCE_EV_GBN_RECOVERED, 0);
		snd(&t, P(b, k), k * 10 * US + 100);
		CHECK_EQ_U(t.res.events, ROCE_EV_DUPLICATE | ROCE_EV_RETRANSMISSION);
		CHECK_EQ_U(t.res.retx_cause, ROCE_RETX_TIMEOUT);
		ack(&t, P(b, k), k * 10 * US + 3 * US);
		CHECK_EQ_U(t.res.events, 0);
		ack(&t, P(b, k), k * 10 * US + 3 * US + 100);
		CHECK_EQ_U(t.res.events, 0);
	}
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.psn_gaps + s.lost_psns + s.out_of_order + s.unrecovered_psns, 0);
	CHECK_EQ_U(s.acked_unseen_psns, 0);
	CHECK_EQ_U(s.duplicates, 4);
	CHECK_EQ_U(s.retransmissions, 4);
	CHECK_EQ_U(s.gbn_episodes[ROCE_RETX_TIMEOUT], 4);
	CHECK_EQ_U(s.gbn_episodes[ROCE_RETX_NAK] + s.gbn_episodes[ROCE_RETX_RNR], 0);
	CHECK_EQ_U(s.acks, 8);
	flows_get(&t, &fl);
	REQUIRE((a2b = req_flow(&fl)) != NULL);
	CHECK_EQ_U(a2b->rtt.count, 0);
	check_counters_add_up(&t, false);
	a_done(&t);
}

/*
 * Timestamps going backwards within one stream (multi-queue capture: the
 * ACK's queue stamped it before the request's): request at 10 us, its ACK
 * stamped 8 us.  A negative round trip is no round trip; the analyzer
 * clamps it to 0 (c->ts >= last.ts ? ... : 0) and counts the sample: the
 * ACK did answer the request.  The stream's last_ts stays the latest.
 */
static void run_time_backwards(uint32_t b)
{
	struct t t;
	struct flows fl;
	const struct roce_flow_stats *a2b, *b2a;

	a_init(&t, 1024);
	REQUIRE(t.a && xa);
	snd(&t, b, 10 * US);
	ack(&t, b, 8 * US);
	CHECK(t.res.events & ROCE_EV_ACK_RTT);
	CHECK_EQ_U(t.res.rtt_ns, 0);
	snd(&t, P(b, 1), 12 * US);
	ack(&t, P(b, 1), 15 * US);
	CHECK_EQ_U(t.res.rtt_ns, 3 * US);
	roce_analyzer_finish(t.a);
	flows_get(&t, &fl);
	REQUIRE((a2b = req_flow(&fl)) != NULL);
	REQUIRE((b2a = resp_flow(&fl)) != NULL);
	CHECK_EQ_U(a2b->rtt.count, 2);
	CHECK_EQ_U(a2b->rtt.min_ns, 0);
	CHECK_EQ_U(a2b->rtt.max_ns, 3 * US);
	CHECK_EQ_U(b2a->last_ts_ns, 15 * US);
	a_done(&t);
}

/*
 * A capture that starts inside a 4-packet READ's responses and inside a
 * 3-packet SEND: the READ at r = b - 4 (PSNs b - 4..b - 1) and the SEND's
 * FIRST were sent before the capture began; it carries the SEND's MIDDLE b
 * and LAST b + 1 (AckReq), then the READ's responses MIDDLE b - 2 and LAST
 * b - 1 (the responder answers in PSN order, IBTA 9.5: the READ's before
 * the SEND's ACK), then the ACK of b + 1.  Each stream's first PSN starts
 * its sequence (no gap before it); the READ responses, behind the request
 * stream's first PSN and of a READ never seen asking, make no gap, no
 * duplicate, and no latency; they acknowledge nothing captured (behind b).
 * The SEND's LAST completes a message (docs/json.md messages: completed
 * messages, LAST / ONLY packets): 1, although its FIRST came before.  The
 * ACK of b + 1 times the SEND's LAST (its AckReq): 3 us.
 */
static void run_start_mid_message(uint32_t b)
{
	struct t t;
	struct roce_summary s;
	struct flows fl;
	const struct roce_flow_stats *a2b, *b2a;

	a_init(&t, 1024);
	REQUIRE(t.a && xa);
	rq(&t, ROCE_OP_RC_SEND_MIDDLE, b, false, 1024, 0, 0);
	CHECK_EQ_U(t.res.events, 0);
	rq(&t, ROCE_OP_RC_SEND_LAST, P(b, 1), true, 100, 0, 1 * US);
	CHECK_EQ_U(t.res.events, 0);
	rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE, P(b, 0xfffffe), 0x1f, 1024, 2 * US);
	CHECK_EQ_U(t.res.events, 0);
	rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_LAST, P(b, 0xffffff), 0x1f, 1024, 3 * US);
	CHECK_EQ_U(t.res.events, 0);
	ack(&t, P(b, 1), 4 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_ACK_RTT);
	CHECK_EQ_U(t.res.rtt_ns, 3 * US);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.psn_gaps + s.lost_psns + s.duplicates + s.out_of_order, 0);
	CHECK_EQ_U(s.unrecovered_psns + s.acked_unseen_psns + s.retransmissions, 0);
	flows_get(&t, &fl);
	REQUIRE((a2b = req_flow(&fl)) != NULL);
	REQUIRE((b2a = resp_flow(&fl)) != NULL);
	CHECK_EQ_U(a2b->messages, 1);
	CHECK_EQ_U(a2b->rtt.count, 1);
	CHECK_EQ_U(a2b->read_last.count + a2b->read_first.count, 0);
	CHECK_EQ_U(b2a->psn_gaps + b2a->duplicates, 0);
	check_counters_add_up(&t, false);
	a_done(&t);
}

/*
 * A READ re-read whose first PSN the responder acknowledged, the capture
 * never carried (refmodel seeds 619, 749): PMTU 256, b ACKed; the READ of
 * b + 1 for 5 PMTUs (b + 1..b + 5) not captured, the READ of b + 6 opens the
 * gap (5 lost); the READ's responses FIRST b + 1, MIDDLE b + 2 and, b + 3's
 * lost, MIDDLE b + 4 acknowledge b + 1..b + 4 (ACKed unseen 4).  The
 * requester re-reads from the first missing response, b + 3, for 3 PMTUs
 * (IBTA 9.7): its PSN b + 3 reached the responder, a resend (docs/json.md
 * acked_unseen_psns: a duplicate, the capture cannot tell it from the
 * original reordered), a go-back-N without NAK (timeout), even though the
 * rest of its range, b + 5, is still a hole: it takes b + 5 out (nothing
 * unrecovered).  Before, the hole made the frame a late fill: out of order,
 * no retransmission.
 */
static void run_reread_acked(uint32_t b)
{
	struct t t;
	struct roce_summary s;

	a_init(&t, 256);
	REQUIRE(t.a && xa);
	snd(&t, b, 0);
	ack(&t, b, 1 * US);
	rq(&t, ROCE_OP_RC_RDMA_READ_REQUEST, P(b, 6), true, 0, 100, 10 * US);
	CHECK(t.res.events & ROCE_EV_PSN_GAP);
	rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_FIRST, P(b, 1), 0x1f, 256, 11 * US);
	rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE, P(b, 2), 0x1f, 256, 12 * US);
	rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE, P(b, 4), 0x1f, 256, 13 * US);
	sum(&t, &s);
	CHECK_EQ_U(s.acked_unseen_psns, 4);
	CHECK_EQ_U(holes(&t), 1);
	rq(&t, ROCE_OP_RC_RDMA_READ_REQUEST, P(b, 3), true, 0, 3 * 256, 20 * US);
	CHECK(t.res.events & ROCE_EV_DUPLICATE);
	CHECK(t.res.events & ROCE_EV_RETRANSMISSION);
	CHECK(!(t.res.events & ROCE_EV_OUT_OF_ORDER));
	CHECK_EQ_U(holes(&t), 0);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.psn_gaps, 1);
	CHECK_EQ_U(s.lost_psns, 5);
	CHECK_EQ_U(s.duplicates, 1);
	CHECK_EQ_U(s.out_of_order, 0);
	CHECK_EQ_U(s.retransmissions, 1);
	CHECK_EQ_U(s.unrecovered_psns, 0);
	check_counters_add_up(&t, false);
	a_done(&t);
}

EACH_BASE(ack_damaged)
EACH_BASE(ack_past_newest)
EACH_BASE(nak_past_newest)
EACH_BASE(reused_qpn)
EACH_BASE(xrc)
EACH_BASE(ud)
EACH_BASE(ack_before_request)
EACH_BASE(nak_before_request)
EACH_BASE(ack_before_first_request)
EACH_BASE(reread_acked)
EACH_BASE(captured_twice)
EACH_BASE(time_backwards)
EACH_BASE(start_mid_message)

int main(void)
{
	RUN(test_ack_damaged);
	RUN(test_ack_past_newest);
	RUN(test_nak_past_newest);
	RUN(test_reused_qpn);
	RUN(test_response_stream_evicted);
	RUN(test_xrc);
	RUN(test_ud);
	RUN(test_ack_before_request);
	RUN(test_nak_before_request);
	RUN(test_ack_before_first_request);
	RUN(test_reread_acked);
	RUN(test_captured_twice);
	RUN(test_time_backwards);
	RUN(test_start_mid_message);
	return check_report();
}
