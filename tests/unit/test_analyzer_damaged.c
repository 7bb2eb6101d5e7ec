// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_analyzer_damaged.c - the analyzer on damaged traffic: frames with a
 * bad ICRC and frames whose decoder findings make their fields
 * untrustworthy are counted and reported but move no sequencing state (the
 * receiver drops them); with the ICRC unverified (--no-icrc, snaplen cut)
 * frames are analysed as before.  Frames come from the frame builder and
 * are damaged byte by byte, as a fabric would.
 */
#include <stdlib.h>
#include <string.h>

#include <roce/analyzer.h>
#include <roce/build.h>
#include <roce/pkt.h>

#include "check.h"

#define US 1000ull

#define IP_A 0x0a000001u
#define IP_B 0x0a000002u
#define QP_B 0x11u
#define QP_A 0x22u

static const uint8_t mac_a[6] = { 0x02, 0, 0, 0, 0, 0x0a };
static const uint8_t mac_b[6] = { 0x02, 0, 0, 0, 0, 0x0b };

struct t {
	roce_analyzer_t *a;
	uint64_t frame, ts;
	struct roce_frame_result res;
	uint64_t an[ROCE_AN_COUNT];
	struct roce_decode_opts dopts;
	int status;
	struct roce_pkt pkt;
};

static void on_an(void *user, const struct roce_anomaly *an)
{
	struct t *t = user;

	if ((unsigned)an->type < ROCE_AN_COUNT)
		t->an[an->type]++;
	if (getenv("ROCE_TEST_VERBOSE"))
		fprintf(stderr, "  anomaly %s frame %llu psn %u exp %u count %llu: %s\n",
			roce_anomaly_name(an->type), (unsigned long long)an->frame, an->psn,
			an->expected_psn, (unsigned long long)an->count, an->detail);
}

static void t_init(struct t *t, uint32_t pmtu)
{
	struct roce_analyzer_config cfg;
	char err[ROCE_ERRBUF_SIZE];

	memset(t, 0, sizeof(*t));
	roce_analyzer_config_init(&cfg);
	cfg.pmtu = pmtu;
	cfg.on_anomaly = on_an;
	cfg.user = t;
	roce_decode_opts_init(&t->dopts);
	t->a = roce_analyzer_create(&cfg, err);
	if (!t->a)
		fprintf(stderr, "create: %s\n", err);
}

static void t_done(struct t *t)
{
	roce_analyzer_destroy(t->a);
	t->a = NULL;
}

/* Feed caplen bytes of a len-byte frame. */
static void feed_cut(struct t *t, const uint8_t *buf, size_t len, size_t caplen)
{
	t->status = roce_decode(ROCE_LINKTYPE_ETHERNET, buf, caplen, len, &t->dopts, &t->pkt);
	t->ts += US;
	roce_analyzer_process(t->a, &t->pkt, t->status, t->ts, ++t->frame, &t->res);
}

static size_t build(const struct roce_frame_spec *s, uint8_t *buf, size_t cap)
{
	size_t len = 0;

	if (roce_build(s, buf, cap, &len) != ROCE_OK) {
		fprintf(stderr, "roce_build failed\n");
		check_cur_failed_ = 1;
		return 0;
	}
	return len;
}

static void feed(struct t *t, const struct roce_frame_spec *s)
{
	uint8_t buf[9000];
	size_t len = build(s, buf, sizeof(buf));

	if (len)
		feed_cut(t, buf, len, len);
}

/* Offset of the BTH in a frame built from s (no VLAN tags). */
static size_t bth_off(const struct roce_frame_spec *s)
{
	if (s->version == 1)
		return 14 + 40;
	return 14 + (s->ip_version == 6 ? 40 : 20) + 8;
}

/* Build s, flip bits of byte off (XOR x), feed: the ICRC no longer matches. */
static void feed_flipped(struct t *t, const struct roce_frame_spec *s, size_t off, uint8_t x)
{
	uint8_t buf[9000];
	size_t len = build(s, buf, sizeof(buf));

	if (!len || off >= len)
		return;
	buf[off] ^= x;
	feed_cut(t, buf, len, len);
}

enum which { V1, V4, V6 };

static void spec_stream(struct roce_frame_spec *s, enum which w, bool a_to_b, uint8_t opcode,
	uint32_t psn)
{
	roce_frame_spec_init(s);
	memcpy(s->src_mac, a_to_b ? mac_a : mac_b, 6);
	memcpy(s->dst_mac, a_to_b ? mac_b : mac_a, 6);
	if (w == V4) {
		s->version = 2;
		s->ip_version = 4;
		roce_addr_v4(s->src, a_to_b ? IP_A : IP_B);
		roce_addr_v4(s->dst, a_to_b ? IP_B : IP_A);
	} else {
		s->version = w == V1 ? 1 : 2;
		s->ip_version = 6;
		memset(s->src, 0, 16);
		memset(s->dst, 0, 16);
		s->src[0] = s->dst[0] = w == V1 ? 0xfe : 0xfd;
		s->src[1] = s->dst[1] = w == V1 ? 0x80 : 0x77;
		s->src[15] = a_to_b ? 1 : 2;
		s->dst[15] = a_to_b ? 2 : 1;
	}
	s->bth.opcode = opcode;
	s->bth.pkey = 0xffff;
	s->bth.dqpn = a_to_b ? QP_B : QP_A;
	s->bth.psn = psn & 0xffffff;
	s->bth.ackreq = 1;
	s->payload_len = (opcode == ROCE_OP_RC_SEND_ONLY) ? 64 : 0;
}

struct flows {
	struct roce_flow_stats f[16];
	unsigned n;
};

static int collect(void *user, const struct roce_flow_stats *f)
{
	struct flows *fl = user;

	if (fl->n < 16)
		fl->f[fl->n++] = *f;
	return 0;
}

static void flows_get(struct t *t, struct flows *fl)
{
	memset(fl, 0, sizeof(*fl));
	roce_analyzer_foreach_flow(t->a, collect, fl);
}

static void check_no_sequencing(const struct roce_summary *s)
{
	CHECK_EQ_U(s->psn_gaps, 0);
	CHECK_EQ_U(s->lost_psns, 0);
	CHECK_EQ_U(s->out_of_order, 0);
	CHECK_EQ_U(s->duplicates, 0);
	CHECK_EQ_U(s->unrecovered_psns, 0);
	CHECK_EQ_U(s->retransmissions, 0);
}

/*
 * The issue's capture: 60 clean RC SEND_ONLY frames on three streams (RoCE
 * v1, v2/IPv4, v2/IPv6), each in order, and 10 frames damaged on the wire
 * (bad ICRC).  The receiver drops the damaged ones and the sender resends
 * them; one damaged frame carries PSN 361 instead of 105 (bit 8 flipped).
 */
static void test_bad_icrc_issue(void)
{
	struct t t;
	struct roce_summary s;
	struct roce_frame_spec sp;
	struct flows fl;
	uint64_t icrc_on_streams = 0, frames_on_streams = 0;
	uint32_t ev_bad = 0, ev_other = 0;

	t_init(&t, 0);
	REQUIRE(t.a);
	for (uint32_t i = 0; i < 20; i++) {
		for (int w = V1; w <= V6; w++) {
			uint32_t psn = 99 + i;

			spec_stream(&sp, (enum which)w, true, ROCE_OP_RC_SEND_ONLY, psn);
			/* damaged transmissions go first, the clean resend follows */
			if (w == V4 && psn == 105) {
				/* PSN 105 (0x000069) arrives as 361 (0x000169) */
				feed_flipped(&t, &sp, bth_off(&sp) + 10, 0x01);
				CHECK_EQ_U(t.pkt.bth.psn, 361);
				ev_bad |= t.res.events;
			} else if (w == V6 && psn == 110) {
				/* the PSN's low byte hit: arrives as an old PSN */
				feed_flipped(&t, &sp, bth_off(&sp) + 11, 0x08);
				ev_bad |= t.res.events;
			} else if (w == V1 && psn == 103) {
				/* the QPN hit: no such stream */
				feed_flipped(&t, &sp, bth_off(&sp) + 7, 0x40);
				ev_bad |= t.res.events;
			} else if ((w == V1 && (i == 1 || i == 9 || i == 15)) ||
				   (w == V4 && (i == 2 || i == 12)) ||
				   (w == V6 && (i == 5 || i == 17))) {
				/* payload bit errors: header intact, ICRC bad */
				feed_flipped(&t, &sp, bth_off(&sp) + 12 + 5, 0x10);
				ev_bad |= t.res.events;
			}
			feed(&t, &sp);
			ev_other |= t.res.events;
		}
	}
	roce_analyzer_finish(t.a);
	roce_analyzer_summary(t.a, &s);
	CHECK_EQ_U(s.roce_frames, 70);
	CHECK_EQ_U(s.icrc_bad, 10);
	CHECK_EQ_U(s.icrc_ok, 60);
	CHECK_EQ_U(t.an[ROCE_AN_ICRC], 10);
	CHECK_EQ_U(ev_bad, ROCE_EV_ICRC_BAD);   /* nothing but the ICRC error */
	CHECK_EQ_U(ev_other, 0);
	check_no_sequencing(&s);
	CHECK_EQ_U(t.an[ROCE_AN_PSN_GAP] + t.an[ROCE_AN_OUT_OF_ORDER] +
		t.an[ROCE_AN_DUPLICATE] + t.an[ROCE_AN_UNRECOVERED], 0);
	/* a damaged frame never creates a stream (its key may be damaged too) */
	CHECK_EQ_U(s.flows, 3);
	flows_get(&t, &fl);
	REQUIRE(fl.n == 3);
	for (unsigned k = 0; k < fl.n; k++) {
		const struct roce_flow_stats *f = &fl.f[k];

		CHECK_EQ_U(f->first_psn, 99);
		CHECK_EQ_U(f->last_psn, 118);
		CHECK_EQ_U(f->messages, 20);
		CHECK_EQ_U(f->payload_bytes, 20 * 64);
		CHECK_EQ_U(f->psn_gaps + f->lost_psns + f->out_of_order + f->duplicates +
			f->unrecovered_psns, 0);
		CHECK_EQ_U(f->frames, 20 + f->icrc_bad);
		icrc_on_streams += f->icrc_bad;
		frames_on_streams += f->frames;
	}
	/* 9 of the 10 are counted on the stream they name; the QPN-damaged one is not */
	CHECK_EQ_U(icrc_on_streams, 9);
	CHECK_EQ_U(frames_on_streams, 69);
	t_done(&t);
}

/* A damaged frame as the very first of a stream creates nothing. */
static void test_bad_icrc_first(void)
{
	struct t t;
	struct roce_summary s;
	struct roce_frame_spec sp;

	t_init(&t, 0);
	REQUIRE(t.a);
	spec_stream(&sp, V4, true, ROCE_OP_RC_SEND_ONLY, 7);
	feed_flipped(&t, &sp, bth_off(&sp) + 9, 0x80);     /* PSN 0x800007 */
	CHECK_EQ_U(t.res.events, ROCE_EV_ICRC_BAD);
	for (uint32_t p = 7; p < 12; p++) {
		spec_stream(&sp, V4, true, ROCE_OP_RC_SEND_ONLY, p);
		feed(&t, &sp);
		CHECK_EQ_U(t.res.events, 0);
	}
	roce_analyzer_finish(t.a);
	roce_analyzer_summary(t.a, &s);
	check_no_sequencing(&s);
	CHECK_EQ_U(s.flows, 1);
	CHECK_EQ_U(s.icrc_bad, 1);
	t_done(&t);
}

/*
 * Damaged ACK, NAK, READ response and CNP frames: counted as ICRC errors,
 * no NAK / ACK / RTT / READ / CNP state moves.
 */
static void test_bad_icrc_responses(void)
{
	struct t t;
	struct roce_summary s;
	struct roce_frame_spec sp;
	struct flows fl;

	t_init(&t, 1024);
	REQUIRE(t.a);
	for (uint32_t p = 100; p < 104; p++) {
		spec_stream(&sp, V4, true, ROCE_OP_RC_SEND_ONLY, p);
		feed(&t, &sp);
	}
	/* a NAK PSN sequence error, damaged: the requester never sees it */
	spec_stream(&sp, V4, false, ROCE_OP_RC_ACKNOWLEDGE, 101);
	sp.aeth.syndrome = 0x60;
	feed_flipped(&t, &sp, bth_off(&sp) + 12 + 3, 0x01);        /* MSN bit */
	CHECK_EQ_U(t.res.events, ROCE_EV_ICRC_BAD);
	/* a damaged ACK: no RTT sample */
	spec_stream(&sp, V4, false, ROCE_OP_RC_ACKNOWLEDGE, 103);
	sp.aeth.syndrome = 0x1f;
	feed_flipped(&t, &sp, bth_off(&sp) + 12 + 3, 0x01);
	CHECK_EQ_U(t.res.events, ROCE_EV_ICRC_BAD);
	/* the clean ACK afterwards gives the RTT */
	feed(&t, &sp);
	CHECK(t.res.events & ROCE_EV_ACK_RTT);
	/* a go-back to 102 after that: cause timeout (the NAK never arrived) */
	spec_stream(&sp, V4, true, ROCE_OP_RC_SEND_ONLY, 102);
	feed(&t, &sp);
	CHECK(t.res.events & ROCE_EV_RETRANSMISSION);
	CHECK_EQ_U(t.res.retx_cause, ROCE_RETX_TIMEOUT);
	spec_stream(&sp, V4, true, ROCE_OP_RC_SEND_ONLY, 103);
	feed(&t, &sp);
	CHECK(t.res.events & ROCE_EV_RETRANSMISSION);
	/* READ 104..107 and its responses; a damaged MIDDLE carries a wild PSN */
	spec_stream(&sp, V4, true, ROCE_OP_RC_RDMA_READ_REQUEST, 104);
	sp.reth.dma_len = 4096;
	feed(&t, &sp);
	spec_stream(&sp, V4, false, ROCE_OP_RC_RDMA_READ_RESPONSE_FIRST, 104);
	sp.payload_len = 1024;
	feed(&t, &sp);
	CHECK(t.res.events & ROCE_EV_READ_FIRST_RESP);
	spec_stream(&sp, V4, false, ROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE, 105);
	sp.payload_len = 1024;
	feed_flipped(&t, &sp, bth_off(&sp) + 11, 0x02);             /* 105 -> 107 */
	CHECK_EQ_U(t.res.events, ROCE_EV_ICRC_BAD);
	feed(&t, &sp);
	CHECK_EQ_U(t.res.events, 0);
	spec_stream(&sp, V4, false, ROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE, 106);
	sp.payload_len = 1024;
	feed(&t, &sp);
	CHECK_EQ_U(t.res.events, 0);
	/* a damaged LAST ends nothing; the clean one does */
	spec_stream(&sp, V4, false, ROCE_OP_RC_RDMA_READ_RESPONSE_LAST, 107);
	sp.payload_len = 1024;
	feed_flipped(&t, &sp, bth_off(&sp) + 12 + 4 + 9, 0x01);    /* payload */
	CHECK_EQ_U(t.res.events, ROCE_EV_ICRC_BAD);
	feed(&t, &sp);
	CHECK(t.res.events & ROCE_EV_READ_LAST_RESP);
	CHECK_EQ_U(t.res.events & (ROCE_EV_PSN_GAP | ROCE_EV_DUPLICATE), 0);
	/* a damaged CNP is no CNP */
	spec_stream(&sp, V4, false, ROCE_OP_CNP, 0);
	sp.bth.becn = 1;
	sp.bth.ackreq = 0;
	sp.bth.dqpn = QP_B;
	feed_flipped(&t, &sp, bth_off(&sp) + 12 + 3, 0x01);
	CHECK_EQ_U(t.res.events, ROCE_EV_ICRC_BAD);

	roce_analyzer_finish(t.a);
	roce_analyzer_summary(t.a, &s);
	CHECK_EQ_U(s.icrc_bad, 5);
	CHECK_EQ_U(t.an[ROCE_AN_ICRC], 5);
	CHECK_EQ_U(s.naks, 0);
	CHECK_EQ_U(t.an[ROCE_AN_NAK], 0);
	CHECK_EQ_U(s.cnps, 0);
	CHECK_EQ_U(s.acks, 3);      /* clean ACK, READ FIRST and LAST */
	CHECK_EQ_U(s.psn_gaps + s.out_of_order + s.unrecovered_psns, 0);
	CHECK_EQ_U(s.duplicates, 2);        /* the timeout resends */
	CHECK_EQ_U(s.gbn_episodes[ROCE_RETX_TIMEOUT], 1);
	CHECK_EQ_U(s.gbn_episodes[ROCE_RETX_NAK], 0);
	flows_get(&t, &fl);
	for (unsigned k = 0; k < fl.n; k++) {
		const struct roce_flow_stats *f = &fl.f[k];

		if (f->key.dqpn == QP_B && f->is_request) {
			CHECK_EQ_U(f->rtt.count, 5);    /* 100..103 by the ACK, READ by its FIRST */
			CHECK_EQ_U(f->read_first.count, 1);
			CHECK_EQ_U(f->read_last.count, 1);
			CHECK_EQ_U(f->cnps, 0);
		}
		if (f->key.dqpn == QP_A) {
			/* the damaged NAK and ACK came before the stream existed */
			CHECK_EQ_U(f->icrc_bad, 2);
			CHECK_EQ_U(f->naks, 0);
			CHECK_EQ_U(f->acks, 3);
			CHECK_EQ_U(f->last_psn, 107);
		}
	}
	t_done(&t);
}

/*
 * ICRC not verified (--no-icrc) or not verifiable (snaplen cut): the frame's
 * fields are taken as they are, as before.
 */
static void test_unverified_as_before(void)
{
	struct t t;
	struct roce_summary s;
	struct roce_frame_spec sp;
	uint8_t buf[2048];
	size_t len;

	t_init(&t, 0);
	REQUIRE(t.a);
	t.dopts.verify_icrc = false;
	for (uint32_t p = 100; p < 105; p++) {
		spec_stream(&sp, V4, true, ROCE_OP_RC_SEND_ONLY, p);
		feed(&t, &sp);
	}
	spec_stream(&sp, V4, true, ROCE_OP_RC_SEND_ONLY, 105);
	feed_flipped(&t, &sp, bth_off(&sp) + 10, 0x01);            /* 361 */
	CHECK_EQ_U(t.pkt.icrc_status, ROCE_ICRC_UNVERIFIED);
	CHECK_EQ_U(t.res.events, ROCE_EV_PSN_GAP);
	CHECK_EQ_U(t.res.lost_psns, 256);
	roce_analyzer_summary(t.a, &s);
	CHECK_EQ_U(s.icrc_unverified, 6);
	CHECK_EQ_U(s.psn_gaps, 1);
	t_done(&t);

	/* snaplen cut after the headers: ICRC unverified, PSN analysed */
	t_init(&t, 0);
	REQUIRE(t.a);
	for (uint32_t p = 100; p < 105; p++) {
		spec_stream(&sp, V4, true, ROCE_OP_RC_SEND_ONLY, p);
		feed(&t, &sp);
	}
	spec_stream(&sp, V4, true, ROCE_OP_RC_SEND_ONLY, 107);
	len = build(&sp, buf, sizeof(buf));
	REQUIRE(len > 60);
	feed_cut(&t, buf, len, bth_off(&sp) + 12 + 8);
	CHECK_EQ_U(t.pkt.icrc_status, ROCE_ICRC_UNVERIFIED);
	CHECK_EQ_U(t.res.events, ROCE_EV_PSN_GAP);
	CHECK_EQ_U(t.res.lost_psns, 2);
	t_done(&t);
}

/* Recompute the IPv4 header checksum of a frame without tags. */
static void ipv4_csum_fix(uint8_t *buf)
{
	unsigned sum = 0;

	buf[24] = buf[25] = 0;
	for (int i = 0; i < 20; i += 2)
		sum += (unsigned)buf[14 + i] << 8 | buf[15 + i];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	sum = ~sum & 0xffff;
	buf[24] = (uint8_t)(sum >> 8);
	buf[25] = (uint8_t)sum;
}

/*
 * Findings that make the fields untrustworthy (the receiver drops such a
 * frame too): bad_length, bad_tver, unknown_opcode, bad_ip_checksum (and
 * truncated inside the headers, ip_fragment): counted as malformed, no
 * stream created, no sequencing state moved.  bad_pad and bad_cnp frames
 * with a good ICRC are still analysed.
 */
static void test_untrustworthy_findings(void)
{
	struct t t;
	struct roce_summary s;
	struct roce_frame_spec sp;
	struct flows fl;
	uint8_t buf[2048];
	size_t len;

	t_init(&t, 0);
	REQUIRE(t.a);
	for (uint32_t p = 100; p < 105; p++) {
		spec_stream(&sp, V4, true, ROCE_OP_RC_SEND_ONLY, p);
		feed(&t, &sp);
	}
	/* TVer 1, wild PSN (ICRC recomputed by the builder: sent like this) */
	spec_stream(&sp, V4, true, ROCE_OP_RC_SEND_ONLY, 5000);
	sp.bth.tver = 1;
	feed(&t, &sp);
	CHECK(t.res.findings & ROCE_FIND_BAD_TVER);
	CHECK_EQ_U(t.res.events, ROCE_EV_MALFORMED);
	/* IPv4 total length 64 bytes too long, wild PSN */
	spec_stream(&sp, V4, true, ROCE_OP_RC_SEND_ONLY, 6000);
	len = build(&sp, buf, sizeof(buf));
	REQUIRE(len > 60);
	buf[17] = (uint8_t)(buf[17] + 64);
	ipv4_csum_fix(buf);
	feed_cut(&t, buf, len, len);
	CHECK(t.res.findings & ROCE_FIND_BAD_LENGTH);
	CHECK_EQ_U(t.res.events & ~(ROCE_EV_MALFORMED | ROCE_EV_ICRC_BAD), 0);
	/* IPv4 header checksum wrong (the ICRC masks it: still ok), wild PSN */
	spec_stream(&sp, V4, true, ROCE_OP_RC_SEND_ONLY, 7000);
	len = build(&sp, buf, sizeof(buf));
	REQUIRE(len > 60);
	buf[24] ^= 0xff;
	feed_cut(&t, buf, len, len);
	CHECK(t.res.findings & ROCE_FIND_BAD_IP_CSUM);
	CHECK_EQ_U(t.pkt.icrc_status, ROCE_ICRC_OK);
	CHECK_EQ_U(t.res.events, ROCE_EV_MALFORMED);
	/* the same frames to a QP never seen: no stream */
	spec_stream(&sp, V4, true, ROCE_OP_RC_SEND_ONLY, 1);
	sp.bth.dqpn = 0x99;
	sp.bth.tver = 2;
	feed(&t, &sp);
	CHECK_EQ_U(t.res.events, ROCE_EV_MALFORMED);
	for (uint32_t p = 105; p < 108; p++) {
		spec_stream(&sp, V4, true, ROCE_OP_RC_SEND_ONLY, p);
		feed(&t, &sp);
		CHECK_EQ_U(t.res.events, 0);
	}
	/* bad_pad with a good ICRC: sent like this, the PSN is the sender's */
	spec_stream(&sp, V4, true, ROCE_OP_RC_SEND_FIRST, 108);
	sp.payload_len = 256;
	sp.bth.padcnt = 2;
	sp.keep_padcnt = true;
	feed(&t, &sp);
	CHECK(t.res.findings & ROCE_FIND_BAD_PAD);
	CHECK_EQ_U(t.res.events, ROCE_EV_MALFORMED);
	spec_stream(&sp, V4, true, ROCE_OP_RC_SEND_ONLY, 110);
	feed(&t, &sp);
	CHECK_EQ_U(t.res.events, ROCE_EV_PSN_GAP);  /* 109 missing: 108 counted */
	CHECK_EQ_U(t.res.lost_psns, 1);
	roce_analyzer_finish(t.a);
	roce_analyzer_summary(t.a, &s);
	CHECK_EQ_U(s.malformed, 5);
	CHECK_EQ_U(t.an[ROCE_AN_MALFORMED], 5);
	CHECK_EQ_U(s.psn_gaps, 1);
	CHECK_EQ_U(s.lost_psns, 1);
	CHECK_EQ_U(s.unrecovered_psns, 1);
	CHECK_EQ_U(s.out_of_order + s.duplicates, 0);
	CHECK_EQ_U(s.flows, 1);
	flows_get(&t, &fl);
	REQUIRE(fl.n == 1);
	CHECK_EQ_U(fl.f[0].malformed, 4);   /* TVer, length, checksum, pad */
	CHECK_EQ_U(fl.f[0].last_psn, 110);
	CHECK_EQ_U(fl.f[0].frames, 13);
	t_done(&t);
}

/* ---------------------------------------------------------- READ recovery */

static void read_req(struct t *t, uint32_t psn, uint32_t len)
{
	struct roce_frame_spec sp;

	spec_stream(&sp, V4, true, ROCE_OP_RC_RDMA_READ_REQUEST, psn);
	sp.reth.va = 0x10000 + (uint64_t)psn * 1024;
	sp.reth.rkey = 0x1234;
	sp.reth.dma_len = len;
	feed(t, &sp);
}

/* Responses [from, to] of a READ whose range is [first, last], as rxe numbers them. */
static void read_resps(struct t *t, uint32_t first, uint32_t last, uint32_t from, uint32_t to,
	uint32_t skip, uint32_t *events)
{
	for (uint32_t p = from; p <= to; p++) {
		struct roce_frame_spec sp;
		uint8_t op;

		if (p == skip)
			continue;       /* lost before the capture point */
		if (first == last)
			op = ROCE_OP_RC_RDMA_READ_RESPONSE_ONLY;
		else if (p == first)
			op = ROCE_OP_RC_RDMA_READ_RESPONSE_FIRST;
		else if (p == last)
			op = ROCE_OP_RC_RDMA_READ_RESPONSE_LAST;
		else
			op = ROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE;
		spec_stream(&sp, V4, false, op, p);
		sp.aeth.syndrome = 0x1f;
		sp.aeth.msn = 1;
		sp.payload_len = 1024;
		feed(t, &sp);
		if (events)
			events[p - from] = t->res.events;
	}
}

/*
 * ib_read_bw on Soft-RoCE with responses lost before the capture point:
 * four 16 KiB READs (16 responses each at PMTU 1024) are outstanding; the
 * response with PSN 21 is lost.  The requester sees 22 out of sequence and
 * retries: it re-reads from PSN 21 with the RETH advanced and the length
 * cut to the 11 missing packets, then re-posts the READs behind it at their
 * original PSNs (rxe's req_retry).  Responses already in flight for the
 * original requests (41..63) arrive after that burst; then the responder
 * replays each re-issued READ from its PSN.  The original LAST of the
 * fourth READ (63) is lost too; its replay brings it.  Only PSN 21 was ever
 * skipped on the response stream.
 */
static void test_read_retry_burst(void)
{
	struct t t;
	struct roce_summary s;
	struct flows fl;
	uint32_t ev[32];
	const struct roce_flow_stats *rq = NULL, *rs = NULL;

	t_init(&t, 0);
	REQUIRE(t.a);
	for (uint32_t k = 0; k < 4; k++)
		read_req(&t, 16 * k, 16384);
	read_resps(&t, 0, 15, 0, 15, ~0u, NULL);
	read_resps(&t, 16, 31, 16, 31, 21, ev);
	CHECK_EQ_U(ev[22 - 16] & ROCE_EV_PSN_GAP, ROCE_EV_PSN_GAP);   /* 21 missing */
	read_resps(&t, 32, 47, 32, 40, ~0u, NULL);
	/* the retry burst */
	read_req(&t, 21, 11 * 1024);
	CHECK(t.res.events & ROCE_EV_RETRANSMISSION);
	read_req(&t, 32, 16384);
	CHECK(t.res.events & ROCE_EV_RETRANSMISSION);
	read_req(&t, 48, 16384);
	CHECK(t.res.events & ROCE_EV_RETRANSMISSION);
	/* still in flight for the original requests */
	read_resps(&t, 32, 47, 41, 47, ~0u, ev);
	for (unsigned i = 0; i < 7; i++)
		CHECK_EQ_U(ev[i] & (ROCE_EV_PSN_GAP | ROCE_EV_DUPLICATE | ROCE_EV_OUT_OF_ORDER), 0);
	read_resps(&t, 48, 63, 48, 63, 63, ev);
	for (unsigned i = 0; i < 15; i++)
		CHECK_EQ_U(ev[i] & (ROCE_EV_PSN_GAP | ROCE_EV_DUPLICATE | ROCE_EV_OUT_OF_ORDER), 0);
	/* the replays: 21 fills the gap, the rest are duplicates, 63 is new */
	read_resps(&t, 21, 31, 21, 31, ~0u, ev);
	CHECK_EQ_U(ev[0] & (ROCE_EV_PSN_GAP | ROCE_EV_DUPLICATE | ROCE_EV_OUT_OF_ORDER),
		ROCE_EV_OUT_OF_ORDER);
	for (unsigned i = 1; i < 11; i++)
		CHECK_EQ_U(ev[i] & (ROCE_EV_PSN_GAP | ROCE_EV_DUPLICATE | ROCE_EV_OUT_OF_ORDER),
			ROCE_EV_DUPLICATE);
	read_resps(&t, 32, 47, 32, 47, ~0u, ev);
	for (unsigned i = 0; i < 16; i++)
		CHECK_EQ_U(ev[i] & (ROCE_EV_PSN_GAP | ROCE_EV_DUPLICATE | ROCE_EV_OUT_OF_ORDER),
			ROCE_EV_DUPLICATE);
	read_resps(&t, 48, 63, 48, 63, ~0u, ev);
	for (unsigned i = 0; i < 15; i++)
		CHECK_EQ_U(ev[i] & (ROCE_EV_PSN_GAP | ROCE_EV_DUPLICATE | ROCE_EV_OUT_OF_ORDER),
			ROCE_EV_DUPLICATE);
	CHECK_EQ_U(ev[15] & (ROCE_EV_PSN_GAP | ROCE_EV_DUPLICATE | ROCE_EV_OUT_OF_ORDER), 0);
	CHECK(ev[15] & ROCE_EV_READ_LAST_RESP);
	/* the next READ after the recovery is in order */
	read_req(&t, 64, 4096);
	CHECK_EQ_U(t.res.events & (ROCE_EV_PSN_GAP | ROCE_EV_DUPLICATE | ROCE_EV_OUT_OF_ORDER), 0);
	read_resps(&t, 64, 67, 64, 67, ~0u, ev);
	for (unsigned i = 0; i < 4; i++)
		CHECK_EQ_U(ev[i] & (ROCE_EV_PSN_GAP | ROCE_EV_DUPLICATE | ROCE_EV_OUT_OF_ORDER), 0);

	roce_analyzer_finish(t.a);
	roce_analyzer_summary(t.a, &s);
	flows_get(&t, &fl);
	for (unsigned k = 0; k < fl.n; k++) {
		if (fl.f[k].key.dqpn == QP_B)
			rq = &fl.f[k];
		if (fl.f[k].key.dqpn == QP_A)
			rs = &fl.f[k];
	}
	REQUIRE(rq && rs);
	CHECK(rs->has_peer);
	CHECK_EQ_U(rs->psn_gaps, 1);
	CHECK_EQ_U(rs->lost_psns, 1);
	CHECK_EQ_U(rs->out_of_order, 1);
	CHECK_EQ_U(rs->duplicates, 10 + 16 + 15);
	CHECK_EQ_U(rs->unrecovered_psns, 0);
	CHECK_EQ_U(rq->psn_gaps + rq->lost_psns + rq->out_of_order + rq->unrecovered_psns, 0);
	CHECK_EQ_U(rq->duplicates, 3);
	CHECK_EQ_U(rq->retransmissions, 3);
	CHECK_EQ_U(rq->read_first.count, 5);
	CHECK_EQ_U(rq->read_last.count, 5);
	CHECK_EQ_U(s.psn_gaps, 1);
	CHECK_EQ_U(s.lost_psns, 1);
	CHECK_EQ_U(s.unrecovered_psns, 0);
	CHECK_EQ_U(s.pmtu, 1024);
	t_done(&t);
}

/*
 * A READ response lost for good: the response stream skipped it, it is
 * lost and unrecovered; a retry that re-reads only part of a READ whose
 * LAST response never came leaves no false gap either.
 */
static void test_read_loss_unrecovered(void)
{
	struct t t;
	struct roce_summary s;
	uint32_t ev[16];

	t_init(&t, 1024);
	REQUIRE(t.a);
	read_req(&t, 100, 4096);
	read_req(&t, 104, 4096);
	read_resps(&t, 100, 103, 100, 103, 102, ev);
	CHECK_EQ_U(ev[3] & ROCE_EV_PSN_GAP, ROCE_EV_PSN_GAP);
	CHECK_EQ_U(t.res.lost_psns, 1);
	read_resps(&t, 104, 107, 104, 106, ~0u, ev);
	for (unsigned i = 0; i < 3; i++)
		CHECK_EQ_U(ev[i] & (ROCE_EV_PSN_GAP | ROCE_EV_DUPLICATE | ROCE_EV_OUT_OF_ORDER), 0);
	/* the requester re-reads 107 only: 1 KiB at PSN 107 */
	read_req(&t, 107, 1024);
	CHECK(t.res.events & ROCE_EV_RETRANSMISSION);
	read_resps(&t, 107, 107, 107, 107, ~0u, ev);
	CHECK_EQ_U(ev[0] & (ROCE_EV_PSN_GAP | ROCE_EV_DUPLICATE | ROCE_EV_OUT_OF_ORDER), 0);
	roce_analyzer_finish(t.a);
	roce_analyzer_summary(t.a, &s);
	CHECK_EQ_U(s.psn_gaps, 1);
	CHECK_EQ_U(s.lost_psns, 1);
	CHECK_EQ_U(s.unrecovered_psns, 1);  /* 102 never came */
	CHECK_EQ_U(t.an[ROCE_AN_UNRECOVERED], 1);
	t_done(&t);
}

/* The first responses of the first READ lost: measured from the READ's first PSN. */
static void test_read_first_responses_lost(void)
{
	struct t t;
	struct roce_summary s;
	uint32_t ev[4];

	t_init(&t, 1024);
	REQUIRE(t.a);
	read_req(&t, 10, 4096);
	read_resps(&t, 10, 13, 12, 13, ~0u, ev);
	CHECK_EQ_U(ev[0] & ROCE_EV_PSN_GAP, ROCE_EV_PSN_GAP);
	CHECK_EQ_U(t.an[ROCE_AN_PSN_GAP], 1);
	/* the re-read brings them: out of order */
	read_req(&t, 10, 2048);
	read_resps(&t, 10, 11, 10, 11, ~0u, ev);
	CHECK_EQ_U(ev[0] & (ROCE_EV_OUT_OF_ORDER | ROCE_EV_DUPLICATE), ROCE_EV_OUT_OF_ORDER);
	CHECK_EQ_U(ev[1] & (ROCE_EV_OUT_OF_ORDER | ROCE_EV_DUPLICATE), ROCE_EV_OUT_OF_ORDER);
	roce_analyzer_finish(t.a);
	roce_analyzer_summary(t.a, &s);
	CHECK_EQ_U(s.psn_gaps, 1);
	CHECK_EQ_U(s.lost_psns, 2);
	CHECK_EQ_U(s.out_of_order, 2);
	CHECK_EQ_U(s.unrecovered_psns, 0);
	t_done(&t);
}

/*
 * PMTU unknown when the READ is sent (N between 2 and 32 for 8 KiB): its
 * first response shows PMTU 256, so N = 32, and a retry from the middle
 * before the LAST is a retransmission, not the next request.
 */
static void test_read_retry_pmtu_learned(void)
{
	struct t t;
	struct roce_frame_spec sp;

	t_init(&t, 0);
	REQUIRE(t.a);
	read_req(&t, 100, 8192);
	for (uint32_t p = 100; p < 106; p++) {
		if (p == 103)
			continue;       /* lost */
		spec_stream(&sp, V4, false, p == 100 ? ROCE_OP_RC_RDMA_READ_RESPONSE_FIRST :
			ROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE, p);
		sp.aeth.syndrome = 0x1f;
		sp.payload_len = 256;
		feed(&t, &sp);
	}
	read_req(&t, 103, 8192 - 3 * 256);
	CHECK(t.res.events & ROCE_EV_RETRANSMISSION);
	CHECK(t.res.events & ROCE_EV_DUPLICATE);
	t_done(&t);
}

/*
 * PMTU unknown when the READ is sent (2 KiB: N between 1 and 8): its first
 * response is lost, its LAST (PSN 101) pins N = 2, and the requester re-reads
 * the whole READ before the PMTU is known (its own length gives N >= 1 only).
 * The re-read ends where the original does: the next request (102) is in
 * order, no gap (roce-gen --read-loss-rate, gen_roundtrip's random round, seeds
 * 602512132485 and 847665737675).
 */
static void test_read_retry_pinned_span(void)
{
	struct t t;
	struct roce_summary s;
	struct roce_frame_spec sp;
	uint32_t ev[2];

	t_init(&t, 0);
	REQUIRE(t.a);
	spec_stream(&sp, V4, true, ROCE_OP_RC_SEND_ONLY, 99);
	feed(&t, &sp);
	read_req(&t, 100, 2048);
	read_resps(&t, 100, 101, 101, 101, ~0u, ev);
	CHECK(ev[0] & ROCE_EV_PSN_GAP);         /* the lost FIRST response */
	read_req(&t, 100, 2048);
	CHECK(t.res.events & ROCE_EV_RETRANSMISSION);
	read_resps(&t, 100, 101, 100, 101, ~0u, ev);
	CHECK_EQ_U(ev[0] & (ROCE_EV_OUT_OF_ORDER | ROCE_EV_DUPLICATE), ROCE_EV_OUT_OF_ORDER);
	CHECK_EQ_U(ev[1] & (ROCE_EV_OUT_OF_ORDER | ROCE_EV_DUPLICATE), ROCE_EV_DUPLICATE);
	spec_stream(&sp, V4, true, ROCE_OP_RC_SEND_ONLY, 102);
	feed(&t, &sp);
	CHECK_EQ_U(t.res.events & (ROCE_EV_PSN_GAP | ROCE_EV_DUPLICATE | ROCE_EV_OUT_OF_ORDER), 0);
	CHECK(t.res.events & ROCE_EV_GBN_RECOVERED);
	roce_analyzer_finish(t.a);
	roce_analyzer_summary(t.a, &s);
	CHECK_EQ_U(s.psn_gaps, 1);              /* the response's, none on the requests */
	CHECK_EQ_U(s.lost_psns, 1);
	CHECK_EQ_U(s.unrecovered_psns, 0);
	t_done(&t);
}

/* A late READ request fills its whole PSN range, not only its first PSN. */
static void test_late_read_request(void)
{
	struct t t;
	struct roce_summary s;
	struct roce_frame_spec sp;

	t_init(&t, 1024);
	REQUIRE(t.a);
	spec_stream(&sp, V4, true, ROCE_OP_RC_SEND_ONLY, 9);
	feed(&t, &sp);
	spec_stream(&sp, V4, true, ROCE_OP_RC_SEND_ONLY, 14);
	feed(&t, &sp);
	CHECK_EQ_U(t.res.lost_psns, 4);
	read_req(&t, 10, 4096);         /* PSNs 10..13, overtaken by 14 */
	CHECK(t.res.events & ROCE_EV_OUT_OF_ORDER);
	roce_analyzer_finish(t.a);
	roce_analyzer_summary(t.a, &s);
	CHECK_EQ_U(s.unrecovered_psns, 0);
	CHECK_EQ_U(s.out_of_order, 1);
	t_done(&t);
}

/*
 * READ responses of a READ the capture did not see asking (its request
 * damaged): passed PSNs are no known loss, but no frame carried them either.
 * One arriving late (reordered), or brought by the re-read after its
 * original response was damaged, fills it: out of order, not a duplicate
 * (refmodel A10: the analyzer called both duplicates).
 */
static void test_read_unknown_late_responses(void)
{
	struct t t;
	struct roce_summary s;
	struct roce_frame_spec sp;
	uint32_t ev[4];

	t_init(&t, 1024);
	REQUIRE(t.a);
	read_req(&t, 96, 4096);
	read_resps(&t, 96, 99, 96, 99, ~0u, NULL);
	/* READ 100..103 with a bad ICRC: dropped, its range unknown */
	spec_stream(&sp, V4, true, ROCE_OP_RC_RDMA_READ_REQUEST, 100);
	sp.reth.rkey = 0x1234;
	sp.reth.dma_len = 4096;
	feed_flipped(&t, &sp, bth_off(&sp) + 14, 0x01);
	CHECK(t.res.events & ROCE_EV_ICRC_BAD);
	/* 102 overtaken by 103 */
	read_resps(&t, 100, 103, 100, 101, ~0u, NULL);
	read_resps(&t, 100, 103, 103, 103, ~0u, NULL);
	read_resps(&t, 100, 103, 102, 102, ~0u, ev);
	CHECK_EQ_U(ev[0] & (ROCE_EV_OUT_OF_ORDER | ROCE_EV_DUPLICATE | ROCE_EV_PSN_GAP),
		ROCE_EV_OUT_OF_ORDER);
	/* READ 104..107; response 105 damaged; the requester re-reads 105..107 */
	read_req(&t, 104, 4096);
	read_resps(&t, 104, 107, 104, 104, ~0u, NULL);
	spec_stream(&sp, V4, false, ROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE, 105);
	sp.payload_len = 1024;
	feed_flipped(&t, &sp, bth_off(&sp) + 20, 0x01);
	CHECK(t.res.events & ROCE_EV_ICRC_BAD);
	read_resps(&t, 104, 107, 106, 107, ~0u, NULL);
	read_req(&t, 105, 3072);
	read_resps(&t, 105, 107, 105, 107, ~0u, ev);
	CHECK_EQ_U(ev[0] & (ROCE_EV_OUT_OF_ORDER | ROCE_EV_DUPLICATE | ROCE_EV_PSN_GAP),
		ROCE_EV_OUT_OF_ORDER);
	CHECK_EQ_U(ev[1] & (ROCE_EV_OUT_OF_ORDER | ROCE_EV_DUPLICATE), ROCE_EV_DUPLICATE);
	CHECK_EQ_U(ev[2] & (ROCE_EV_OUT_OF_ORDER | ROCE_EV_DUPLICATE), ROCE_EV_DUPLICATE);
	/* a repeat of 102 is a duplicate now */
	read_resps(&t, 100, 103, 102, 102, ~0u, ev);
	CHECK_EQ_U(ev[0] & (ROCE_EV_OUT_OF_ORDER | ROCE_EV_DUPLICATE), ROCE_EV_DUPLICATE);
	roce_analyzer_finish(t.a);
	roce_analyzer_summary(t.a, &s);
	CHECK_EQ_U(s.out_of_order, 2);
	CHECK_EQ_U(s.duplicates, 4);       /* 106, 107, 102 again, and the re-read request */
	/* the damaged READ 100..103, never resent: its responses say the responder had it */
	CHECK_EQ_U(s.unrecovered_psns, 0);
	CHECK_EQ_U(s.acked_unseen_psns, 4);
	t_done(&t);
}

/*
 * The request stream's first frame, a READ (PSNs 436..438), damaged: the
 * stream starts at the next READ (439..444).  The responses 436, 437 and 439
 * pass 438, whose READ the capture never saw asking (behind the request
 * stream's first PSN): unseen, not seen.  The requester re-reads 438; its
 * response fills it: out of order, not a duplicate (refmodel, REFMODEL_SEEDS
 * 150: seeds 35 and 52, the analyzer called it a duplicate).
 */
static void test_read_first_request_damaged(void)
{
	struct t t;
	struct roce_summary s;
	struct roce_frame_spec sp;
	uint32_t ev[1];

	t_init(&t, 1024);
	REQUIRE(t.a);
	spec_stream(&sp, V4, true, ROCE_OP_RC_RDMA_READ_REQUEST, 436);
	sp.reth.rkey = 0x1234;
	sp.reth.dma_len = 3072;
	feed_flipped(&t, &sp, bth_off(&sp) + 14, 0x01);
	CHECK(t.res.events & ROCE_EV_ICRC_BAD);
	read_req(&t, 439, 6144);
	read_resps(&t, 436, 438, 436, 437, ~0u, NULL);
	read_resps(&t, 439, 444, 439, 439, ~0u, NULL);
	read_req(&t, 438, 1024);               /* the re-read of the missing LAST */
	read_resps(&t, 439, 444, 440, 444, ~0u, NULL);
	read_resps(&t, 438, 438, 438, 438, ~0u, ev);
	CHECK_EQ_U(ev[0] & (ROCE_EV_OUT_OF_ORDER | ROCE_EV_DUPLICATE | ROCE_EV_PSN_GAP),
		ROCE_EV_OUT_OF_ORDER);
	roce_analyzer_finish(t.a);
	roce_analyzer_summary(t.a, &s);
	CHECK_EQ_U(s.duplicates, 0);
	CHECK_EQ_U(s.out_of_order, 2);          /* the re-read request (behind 439) and this */
	CHECK_EQ_U(s.psn_gaps, 0);
	CHECK_EQ_U(s.unrecovered_psns, 0);
	t_done(&t);
}

/*
 * A stream's first frame damaged: the stream starts at the next PSN; the
 * NAKed resend of the damaged PSN is behind the first PSN and had never
 * been seen: out of order (and a retransmission), not a duplicate; a
 * second copy of it is a duplicate (refmodel, random seed 35).
 */
static void test_first_frame_damaged_resend(void)
{
	struct t t;
	struct roce_summary s;
	struct roce_frame_spec sp;

	t_init(&t, 1024);
	REQUIRE(t.a);
	spec_stream(&sp, V4, true, ROCE_OP_RC_SEND_ONLY, 500);
	feed_flipped(&t, &sp, bth_off(&sp) + 20, 0x01);
	CHECK(t.res.events & ROCE_EV_ICRC_BAD);
	for (uint32_t p = 501; p < 504; p++) {
		spec_stream(&sp, V4, true, ROCE_OP_RC_SEND_ONLY, p);
		feed(&t, &sp);
	}
	spec_stream(&sp, V4, false, ROCE_OP_RC_ACKNOWLEDGE, 500);
	sp.aeth.syndrome = 0x60;        /* NAK PSN sequence error: expects 500 */
	feed(&t, &sp);
	for (uint32_t p = 500; p < 504; p++) {
		spec_stream(&sp, V4, true, ROCE_OP_RC_SEND_ONLY, p);
		feed(&t, &sp);
		CHECK(t.res.events & ROCE_EV_RETRANSMISSION);
		CHECK_EQ_U(t.res.events & (ROCE_EV_OUT_OF_ORDER | ROCE_EV_DUPLICATE),
			p == 500 ? ROCE_EV_OUT_OF_ORDER : ROCE_EV_DUPLICATE);
	}
	spec_stream(&sp, V4, true, ROCE_OP_RC_SEND_ONLY, 500);
	feed(&t, &sp);
	CHECK_EQ_U(t.res.events & (ROCE_EV_OUT_OF_ORDER | ROCE_EV_DUPLICATE), ROCE_EV_DUPLICATE);
	/* further back with a PSN skipped: 497 fills, 498 then fills too */
	spec_stream(&sp, V4, true, ROCE_OP_RC_SEND_ONLY, 497);
	feed(&t, &sp);
	CHECK_EQ_U(t.res.events & (ROCE_EV_OUT_OF_ORDER | ROCE_EV_DUPLICATE), ROCE_EV_OUT_OF_ORDER);
	spec_stream(&sp, V4, true, ROCE_OP_RC_SEND_ONLY, 498);
	feed(&t, &sp);
	CHECK_EQ_U(t.res.events & (ROCE_EV_OUT_OF_ORDER | ROCE_EV_DUPLICATE), ROCE_EV_OUT_OF_ORDER);
	roce_analyzer_finish(t.a);
	roce_analyzer_summary(t.a, &s);
	CHECK_EQ_U(s.out_of_order, 3);
	CHECK_EQ_U(s.duplicates, 4);
	CHECK_EQ_U(s.psn_gaps, 0);
	CHECK_EQ_U(s.unrecovered_psns, 0);
	t_done(&t);
}

int main(void)
{
	RUN(test_bad_icrc_issue);
	RUN(test_bad_icrc_first);
	RUN(test_bad_icrc_responses);
	RUN(test_unverified_as_before);
	RUN(test_untrustworthy_findings);
	RUN(test_read_retry_burst);
	RUN(test_read_loss_unrecovered);
	RUN(test_read_first_responses_lost);
	RUN(test_read_retry_pmtu_learned);
	RUN(test_read_retry_pinned_span);
	RUN(test_late_read_request);
	RUN(test_read_unknown_late_responses);
	RUN(test_first_frame_damaged_resend);
	RUN(test_read_first_request_damaged);
	return check_report();
}
