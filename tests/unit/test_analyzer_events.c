// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_analyzer_events.c - analyzer semantics beyond the request state
 * machine, on frames from the frame builder (an_testlib.h): CNP and ECN,
 * PFC/PAUSE timing and storms, stream table eviction and first-seen order,
 * many streams, malformed and bad-ICRC frames, names, configuration and the
 * anomaly vocabulary.
 */
#include "an_testlib.h"

/* ------------------------------------------------------------------ tests */

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
		{ ROCE_EV_ACKED_UNSEEN, 0x40000, "acked_unseen" },
		{ ROCE_EV_CAPTURE_COPY, 0x80000, "capture_copy" },
	};
	struct roce_summary s;
	uint64_t *fields[] = {
		&s.icrc_bad, &s.malformed, &s.psn_gaps, &s.duplicates, &s.out_of_order,
		&s.retransmissions, &s.naks, &s.rnr_naks, &s.cnps, &s.ecn_ce, &s.pfc_storms,
		&s.unrecovered_psns, &s.evicted_flows, &s.acked_unseen_psns,
	};

	CHECK_EQ_U(ROCE_EVI_COUNT, sizeof(ev) / sizeof(ev[0]));
	for (size_t i = 0; i < sizeof(ev) / sizeof(ev[0]); i++) {
		CHECK_EQ_U(ev[i].bit, ev[i].value);
		CHECK_STR(roce_event_name(ev[i].bit), ev[i].name);
	}
	CHECK(roce_event_name(0) == NULL);
	CHECK(roce_event_name(ROCE_EV_NAK | ROCE_EV_CNP) == NULL);
	CHECK(roce_event_name(1u << ROCE_EVI_COUNT) == NULL);

	CHECK_EQ_I(ROCE_AN_COUNT, 14);
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
	CHECK_EQ_U(roce_anomaly_info(ROCE_AN_ACKED_UNSEEN)->event, ROCE_EV_ACKED_UNSEEN);
	CHECK_EQ_I(roce_anomaly_info(ROCE_AN_ACKED_UNSEEN)->severity, ROCE_SEV_NOTE);
	CHECK_STR(roce_anomaly_info(ROCE_AN_ACKED_UNSEEN)->expert, "roce.analysis.acked_unseen");

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
