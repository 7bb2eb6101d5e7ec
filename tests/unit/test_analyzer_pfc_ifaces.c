// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_analyzer_pfc_ifaces.c - PFC / PAUSE entries per capture interface
 * (roce_analyzer_set_interface()): one MAC that sends PFC on two interfaces
 * (a switch's ports) makes two entries and two pauses; on one interface the
 * analysis is what it was (one entry, refreshes extend the pause).
 */
#include "an_testlib.h"

static void start(struct t *t, struct pev *p, uint32_t max_pfc)
{
	struct roce_analyzer_config cfg;

	roce_analyzer_config_init(&cfg);
	cfg.pfc_storm_ns = 300 * US;
	if (max_pfc)
		cfg.max_pfc = max_pfc;
	t_init_cfg(t, &cfg);
	REQUIRE(t->a);
	watch_pauses(t, p);
}

/* PFC from mac on priority 3 with q quanta (0xffff: 335539 ns at 100 Gb/s). */
static void pfc3(struct t *t, uint32_t iface, uint16_t q, uint64_t ts)
{
	uint16_t quanta[8] = { 0 };
	uint8_t buf[64];
	size_t len;

	quanta[3] = q;
	roce_analyzer_set_interface(t->a, iface);
	if (roce_build_pfc(mac_a, 1u << 3, quanta, buf, sizeof(buf), &len) != ROCE_OK) {
		check_cur_failed_ = 1;
		return;
	}
	feed_buf(t, buf, len, ts);
}

#define T0 (1000 * MS)

/*
 * XOFF on interface 0 at T0, XOFF on interface 1 at T0 + 100 us, XON on
 * interface 0 at T0 + 200 us: two links, two pauses; the XON ends only
 * interface 0's, interface 1's runs to its deadline (a storm at 300 us).
 */
static void test_two_interfaces(void)
{
	struct t t;
	struct pev p;
	struct pfcs v = { .n = 0 };
	struct roce_summary s;

	start(&t, &p, 0);
	pfc3(&t, 0, 0xffff, T0);
	pfc3(&t, 1, 0xffff, T0 + 100 * US);
	pfc3(&t, 0, 0, T0 + 200 * US);
	roce_analyzer_finish(t.a);
	roce_analyzer_foreach_pfc(t.a, collect_pfc, &v);
	REQUIRE(v.n == 2);
	CHECK_EQ_U(v.p[0].interface, 0);
	CHECK_EQ_U(v.p[0].priority, 3);
	CHECK_EQ_U(v.p[0].frames, 2);
	CHECK_EQ_U(v.p[0].xoff, 1);
	CHECK_EQ_U(v.p[0].xon, 1);
	CHECK_EQ_U(v.p[0].paused_ns, 200 * US);
	CHECK_EQ_U(v.p[0].storms, 0);
	CHECK_EQ_U(v.p[0].first_frame, 1);
	CHECK_EQ_U(v.p[1].interface, 1);
	CHECK_EQ_U(v.p[1].frames, 1);
	CHECK_EQ_U(v.p[1].xon, 0);
	CHECK_EQ_U(v.p[1].paused_ns, 335539);
	CHECK_EQ_U(v.p[1].storms, 1);
	CHECK_EQ_U(v.p[1].first_frame, 2);
	CHECK(memcmp(v.p[0].src_mac, mac_a, 6) == 0 && memcmp(v.p[1].src_mac, mac_a, 6) == 0);
	/* the pause intervals, in closing order, each with its interface */
	REQUIRE(p.n == 2);
	CHECK_EQ_U(p.e[0].interface, 0);
	CHECK_EQ_U(p.e[0].start_ns, T0);
	CHECK_EQ_U(p.e[0].end_ns, T0 + 200 * US);
	CHECK(!p.e[0].storm);
	CHECK_EQ_U(p.e[1].interface, 1);
	CHECK_EQ_U(p.e[1].start_ns, T0 + 100 * US);
	CHECK_EQ_U(p.e[1].end_ns, T0 + 100 * US + 335539);
	CHECK_EQ_U(p.e[1].start_frame, 2);
	CHECK(p.e[1].storm);
	/* the storm anomaly names the entry's interface */
	CHECK_EQ_U(t.an[ROCE_AN_PFC_STORM], 1);
	CHECK(t.last_an[ROCE_AN_PFC_STORM].has_mac);
	CHECK_EQ_U(t.last_an[ROCE_AN_PFC_STORM].interface, 1);
	CHECK_EQ_I(t.last_an[ROCE_AN_PFC_STORM].priority, 3);
	sum(&t, &s);
	CHECK_EQ_U(s.pfc_frames, 3);
	CHECK_EQ_U(s.pfc_storms, 1);
	t_done(&t);
}

/* The same frames on one interface: one entry, the refresh extends the pause, the XON ends it. */
static void test_one_interface(void)
{
	static const uint32_t ifs[] = { 0, 5 };

	for (unsigned k = 0; k < 2; k++) {
		struct t t;
		struct pev p;
		struct pfcs v = { .n = 0 };

		start(&t, &p, 0);
		pfc3(&t, ifs[k], 0xffff, T0);
		pfc3(&t, ifs[k], 0xffff, T0 + 100 * US);
		pfc3(&t, ifs[k], 0, T0 + 200 * US);
		roce_analyzer_finish(t.a);
		roce_analyzer_foreach_pfc(t.a, collect_pfc, &v);
		REQUIRE(v.n == 1);
		CHECK_EQ_U(v.p[0].interface, ifs[k]);
		CHECK_EQ_U(v.p[0].frames, 3);
		CHECK_EQ_U(v.p[0].xoff, 2);
		CHECK_EQ_U(v.p[0].xon, 1);
		CHECK_EQ_U(v.p[0].paused_ns, 200 * US);
		CHECK_EQ_U(v.p[0].storms, 0);
		REQUIRE(p.n == 1);
		CHECK_EQ_U(p.e[0].interface, ifs[k]);
		CHECK_EQ_U(p.e[0].start_ns, T0);
		CHECK_EQ_U(p.e[0].end_ns, T0 + 200 * US);
		CHECK_EQ_U(t.an[ROCE_AN_PFC_STORM], 0);
		t_done(&t);
	}
}

/* A full table drops the least recently active entry: the anomaly names its interface. */
static void test_eviction_names_interface(void)
{
	struct t t;
	struct pev p;
	struct pfcs v = { .n = 0 };

	start(&t, &p, 1);
	pfc3(&t, 2, 10, T0);
	pfc3(&t, 7, 10, T0 + 1 * US);
	CHECK_EQ_U(t.an[ROCE_AN_FLOW_EVICTED], 1);
	CHECK(t.last_an[ROCE_AN_FLOW_EVICTED].has_mac);
	CHECK_EQ_U(t.last_an[ROCE_AN_FLOW_EVICTED].interface, 2);
	roce_analyzer_foreach_pfc(t.a, collect_pfc, &v);
	REQUIRE(v.n == 1);
	CHECK_EQ_U(v.p[0].interface, 7);
	t_done(&t);
}

int main(void)
{
	RUN(test_two_interfaces);
	RUN(test_one_interface);
	RUN(test_eviction_names_interface);
	return check_report();
}
