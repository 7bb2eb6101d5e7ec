// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_analyzer_audit_events.c - the audit of test_analyzer_audit.c continued:
 * UC, UD and XRC streams; CNPs and CE on damaged frames, damage inside a
 * go-back run, snaplen cuts; PFC and PAUSE edge cases; idle expiry in the
 * middle of an episode.  Each expected value stated with its reason; every
 * frame also through roce-analyze's entry (an_audit.h).
 */
#include "an_audit.h"

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
	/* duplicated (past the capture-copy window: 4 us, docs/json.md "Capture copies") */
	rq(&t, ROCE_OP_UC_SEND_MIDDLE, 101, false, 1024, 0, 5500);
	CHECK_EQ_U(t.res.events, ROCE_EV_DUPLICATE);
	rq(&t, ROCE_OP_UC_SEND_MIDDLE, 102, false, 1024, 0, 6 * US);      /* late */
	CHECK_EQ_U(t.res.events, ROCE_EV_OUT_OF_ORDER);
	rq(&t, ROCE_OP_UC_RDMA_WRITE_ONLY, 105, true, 8, 8, 7 * US);
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

	a_init_nocopy(&t, 0);       /* a UD packet repeated 1 us later: no copy */
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
