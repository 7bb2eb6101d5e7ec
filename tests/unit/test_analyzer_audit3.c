// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_analyzer_audit3.c - a third audit (test_analyzer_audit.c, _audit2.c
 * and _audit_events.c have the others): PFC / PAUSE timing on traffic the
 * other tests leave out (a refresh at exactly the deadline, reordered time
 * stamps, a refresh analysed after advance() closed its pause, a capture
 * ending inside a pause, frames too short for their times or sent to
 * another address, the high octet of the enable vector, VLAN tags, PFC and
 * PAUSE from one port, two senders, every link speed of the notes' table),
 * the totals of the summary, the PFC table, the pause events and the
 * anomalies counted once each; and request / response pairing with two QPs
 * between the same two hosts, READ responses across an evicted response
 * stream, over IPv6 and RoCE v1.  Each expected value is stated with its
 * reason (IEEE 802.1Qbb, 802.3 Annex 31B, the protocol notes section 3,
 * docs/json.md); an_audit.h runs every frame through roce-analyze's entry
 * too and compares the two analyzers.
 */
#include "an_audit.h"

/* ------------------------------------------------------------ helpers */

static const uint8_t mac_c[6] = { 0x02, 0, 0, 0, 0, 0x0c };

/* PFC from mac with these priorities enabled, quanta q[i]. */
static void pfcq(struct t *t, const uint8_t mac[6], uint8_t enable, const uint16_t q[8],
	uint64_t ts)
{
	uint8_t buf[64];
	size_t len;

	if (roce_build_pfc(mac, enable, q, buf, sizeof(buf), &len) != ROCE_OK) {
		check_cur_failed_ = 1;
		return;
	}
	xfeed_buf(t, buf, len, len, ts);
}

/* PFC from mac_a for one priority. */
static void pfc1(struct t *t, int prio, uint16_t quanta, uint64_t ts)
{
	uint16_t q[8] = { 0 };

	q[prio] = quanta;
	pfcq(t, mac_a, (uint8_t)(1u << prio), q, ts);
}

static void pause_from(struct t *t, const uint8_t mac[6], uint16_t q, uint64_t ts)
{
	uint8_t buf[64];
	size_t len;

	if (roce_build_pause(mac, q, buf, sizeof(buf), &len) != ROCE_OK) {
		check_cur_failed_ = 1;
		return;
	}
	xfeed_buf(t, buf, len, len, ts);
}

static struct pfcs pfc_table(struct t *t)
{
	struct pfcs v = { .n = 0 };

	roce_analyzer_foreach_pfc(t->a, collect_pfc, &v);
	return v;
}

/* ---------------------------------------------------- refresh and expiry */

/*
 * A sender keeps a priority paused by refreshing XOFF before the timer runs
 * out (notes 3.1: a new frame replaces the running timer): XOFF 0xffff
 * (335.539 us at 100 Gb/s) every 100 us for 200 us is one pause
 * [t0, t0 + 200 us + 335.539 us), one interval, one event.  Then a refresh
 * at exactly the deadline: the half-open intervals [s, D) and [D, D + d)
 * touch, and their union is one continuous pause (notes 3.3: "paused-time
 * union"; the longest continuous pause and the storm test read it), not
 * two: one event, longest = the whole.
 */
static void test_refresh_one_interval(void)
{
	struct t t;
	struct pev pv;
	struct pfcs v;
	const struct roce_pfc_stats *p;
	const uint64_t t0 = 10 * MS, d = 335539;
	uint64_t t1;

	a_init(&t, 0);
	REQUIRE(t.a && xa);
	watch_pauses(&t, &pv);
	pfc1(&t, 3, 0xffff, t0);
	pfc1(&t, 3, 0xffff, t0 + 100 * US);
	pfc1(&t, 3, 0xffff, t0 + 200 * US);
	CHECK_EQ_U(pv.n, 0);                    /* still open */
	/* the next pause: a refresh at exactly its deadline continues it */
	t1 = t0 + 10 * MS;
	pfc1(&t, 3, 0xffff, t1);
	CHECK_EQ_U(pv.n, 1);                    /* the first closed at its deadline */
	pfc1(&t, 3, 0xffff, t1 + d);
	CHECK_EQ_U(t.res.events, ROCE_EV_PFC);
	pfc1(&t, 3, 0xffff, t1 + 2 * d);
	roce_analyzer_finish(t.a);
	REQUIRE(pv.n == 2);
	CHECK_EQ_U(pv.e[0].start_ns, t0);
	CHECK_EQ_U(pv.e[0].end_ns, t0 + 200 * US + d);
	CHECK_EQ_U(pv.e[0].start_frame, 1);
	CHECK_EQ_I(pv.e[0].priority, 3);
	CHECK_EQ_U(pv.e[1].start_ns, t1);
	CHECK_EQ_U(pv.e[1].end_ns, t1 + 3 * d);
	CHECK_EQ_U(pv.e[1].start_frame, 4);
	v = pfc_table(&t);
	REQUIRE((p = pfc_of(&v, 3)) != NULL);
	CHECK_EQ_U(p->frames, 6);
	CHECK_EQ_U(p->xoff, 6);
	CHECK_EQ_U(p->paused_ns, 200 * US + d + 3 * d);
	CHECK_EQ_U(p->longest_pause_ns, 3 * d);
	a_done(&t);
}

/*
 * A storm is a continuous pause of at least --pfc-storm-ms: a sender that
 * refreshes at exactly each deadline pauses continuously (storm 1 ms; XOFF
 * 0xffff every 335.539 us, 4 frames, then XON 1 us before the last timer
 * runs out): one storm, flagged at the fourth frame (1.007 ms into the
 * pause), not again at the close; counted once in the summary, the entry,
 * the anomalies and the pause event.
 */
static void test_refresh_at_deadline_storm(void)
{
	struct t t;
	struct roce_analyzer_config cfg;
	struct roce_summary s;
	struct pev pv;
	struct pfcs v;
	const struct roce_pfc_stats *p;
	const uint64_t d = 335539;

	roce_analyzer_config_init(&cfg);
	cfg.pfc_storm_ns = 1 * MS;
	a_init_cfg(&t, &cfg);
	REQUIRE(t.a && xa);
	watch_pauses(&t, &pv);
	for (uint64_t i = 0; i < 4; i++) {
		pfc1(&t, 6, 0xffff, 5 * MS + i * d);
		CHECK_EQ_U(t.res.storm_mask, i == 3 ? 1u << 6 : 0);
	}
	pfc1(&t, 6, 0, 5 * MS + 4 * d - 1000);    /* XON just before the end */
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.pfc_storms, 1);
	CHECK_EQ_U(t.an[ROCE_AN_PFC_STORM], 1);
	REQUIRE(pv.n == 1);
	CHECK(pv.e[0].storm);
	CHECK_EQ_U(pv.e[0].end_ns - pv.e[0].start_ns, 4 * d - 1000);
	v = pfc_table(&t);
	REQUIRE((p = pfc_of(&v, 6)) != NULL);
	CHECK_EQ_U(p->storms, 1);
	CHECK_EQ_U(p->paused_ns, 4 * d - 1000);
	a_done(&t);
}

/* ------------------------------------------------------ reordered time */

/*
 * Time stamps that go backwards (a capture merged from several ports, or
 * reordered by the capture hardware): a frame older than the newest frame
 * of its (MAC, priority) was sent before it.  Replayed in send order the
 * pauses would be: XOFF at 900 us, refreshed at 1000 us -> one pause
 * [900 us, 1000 us + d).  Seen late, the 900 us frame must not pull the
 * deadline back to 900 us + d (the 1000 us frame's timer runs), and it
 * starts the pause earlier, at 900 us.
 * A late XON (sent at 2990 us, before the 3000 us XOFF that is already
 * seen) was overtaken by that XOFF: it must not end the pause at a time
 * before its start (the old code closed it with length 0, losing it).
 */
static void test_reordered_time(void)
{
	struct t t;
	struct pev pv;
	struct pfcs v;
	const struct roce_pfc_stats *p;
	const uint64_t d = 335539;

	a_init(&t, 0);
	REQUIRE(t.a && xa);
	watch_pauses(&t, &pv);
	pfc1(&t, 2, 0xffff, 1000 * US);
	pfc1(&t, 2, 0xffff, 900 * US);          /* late */
	CHECK_EQ_U(t.res.events, ROCE_EV_PFC);
	pfc1(&t, 2, 0xffff, 3000 * US);         /* the first closed at 1000 us + d */
	pfc1(&t, 2, 0, 2990 * US);              /* late XON */
	CHECK_EQ_U(t.res.events, ROCE_EV_PFC | ROCE_EV_PFC_XON);
	roce_analyzer_finish(t.a);
	REQUIRE(pv.n == 2);
	CHECK_EQ_U(pv.e[0].start_ns, 900 * US);
	CHECK_EQ_U(pv.e[0].end_ns, 1000 * US + d);
	CHECK_EQ_U(pv.e[1].start_ns, 3000 * US);
	CHECK_EQ_U(pv.e[1].end_ns, 3000 * US + d);
	v = pfc_table(&t);
	REQUIRE((p = pfc_of(&v, 2)) != NULL);
	CHECK_EQ_U(p->frames, 4);
	CHECK_EQ_U(p->xoff, 3);
	CHECK_EQ_U(p->xon, 1);
	CHECK_EQ_U(p->paused_ns, 100 * US + d + d);
	CHECK_EQ_U(p->longest_pause_ns, 100 * US + d);
	a_done(&t);
}

/*
 * A late frame may start the open pause earlier, but never before the end
 * of the previous pause of the entry (which was already counted and
 * reported): XOFF 1000 quanta (5.12 us) at 100 us closes by its deadline;
 * XOFF at 200 us; a late XOFF at 104 us would start the pause at 104 us,
 * over [100 us, 105.12 us) counted already: the open pause starts at
 * 105.12 us at the earliest.  And a late frame whose own interval ends
 * before the open pause starts changes nothing but the counts.
 */
static void test_reordered_no_double_count(void)
{
	struct t t;
	struct pev pv;
	struct pfcs v;
	const struct roce_pfc_stats *p;
	const uint64_t d = 335539;

	a_init(&t, 0);
	REQUIRE(t.a && xa);
	watch_pauses(&t, &pv);
	pfc1(&t, 1, 1000, 100 * US);
	pfc1(&t, 1, 0xffff, 200 * US);           /* closes [100, 105.12) */
	pfc1(&t, 1, 0xffff, 104 * US);           /* late: overlaps the closed one */
	pfc1(&t, 1, 10, 150 * US);               /* late, ends at 150.0512 us: before 200 */
	roce_analyzer_finish(t.a);
	REQUIRE(pv.n == 2);
	CHECK_EQ_U(pv.e[0].start_ns, 100 * US);
	CHECK_EQ_U(pv.e[0].end_ns, 100 * US + 5120);
	CHECK_EQ_U(pv.e[1].start_ns, 100 * US + 5120);
	CHECK_EQ_U(pv.e[1].end_ns, 200 * US + d);
	v = pfc_table(&t);
	REQUIRE((p = pfc_of(&v, 1)) != NULL);
	CHECK_EQ_U(p->frames, 4);
	CHECK_EQ_U(p->quanta, 1000 + 0xffff + 0xffff + 10);
	CHECK_EQ_U(p->paused_ns, 5120 + (200 * US + d - 100 * US - 5120));
	a_done(&t);
}

/*
 * Live: roce_analyzer_advance() moves "now" to the wall clock, which closes
 * a pause at its deadline; a refresh captured before that deadline may be
 * fed after (capture latency).  The union must not count [t, deadline)
 * twice: XOFF 0xffff at 0, advance to 400 us (closes [0, d)); XOFF 10
 * quanta stamped 100 us asks for [100 us, 100.0512 us), counted already:
 * nothing opens; the refresh stamped 300 us pauses [d, 300 us + d).
 */
static void test_advance_then_refresh(void)
{
	struct t t;
	struct pev pv;
	struct pfcs v;
	const struct roce_pfc_stats *p;
	const uint64_t d = 335539;

	a_init(&t, 0);
	REQUIRE(t.a && xa);
	watch_pauses(&t, &pv);
	pfc1(&t, 4, 0xffff, 0);
	roce_analyzer_advance(t.a, 400 * US);
	roce_analyzer_advance(xa, 400 * US);
	CHECK_EQ_U(pv.n, 1);
	pfc1(&t, 4, 10, 100 * US);
	v = pfc_table(&t);
	REQUIRE((p = pfc_of(&v, 4)) != NULL);
	CHECK(!p->paused);
	pfc1(&t, 4, 0xffff, 300 * US);
	roce_analyzer_finish(t.a);
	REQUIRE(pv.n == 2);
	CHECK_EQ_U(pv.e[0].end_ns, d);
	CHECK_EQ_U(pv.e[1].start_ns, d);
	CHECK_EQ_U(pv.e[1].end_ns, 300 * US + d);
	v = pfc_table(&t);
	REQUIRE((p = pfc_of(&v, 4)) != NULL);
	CHECK_EQ_U(p->paused_ns, 300 * US + d);
	CHECK_EQ_U(p->xoff, 3);
	a_done(&t);
}

/* ------------------------------------------------ end of the capture */

/*
 * A capture that ends inside a pause (docs/json.md): a snapshot in the
 * middle of the run counts the open pause up to "now" (the newest frame);
 * at the end of the input the pause counts to its deadline: the time the
 * sender requested, the union of the requested intervals, also when the
 * capture stopped before it.  The event reports [start, deadline).
 * Another sender's frames move "now" for every entry.
 */
static void test_capture_ends_inside_pause(void)
{
	struct t t;
	struct roce_summary s;
	struct pev pv;
	struct pfcs v;
	const struct roce_pfc_stats *p;
	const uint64_t d10 = 3355392;   /* 0xffff at 10 Gb/s: 3.355392 ms */
	struct roce_analyzer_config cfg;

	roce_analyzer_config_init(&cfg);
	cfg.link_speed_gbps = 10;
	a_init_cfg(&t, &cfg);
	REQUIRE(t.a && xa);
	watch_pauses(&t, &pv);
	pause_from(&t, mac_b, 0xffff, 1 * MS);
	CHECK_EQ_U(t.res.pause_ns[0], d10);
	pfc1(&t, 0, 0, 2 * MS);                 /* another sender, an XON */
	v = pfc_table(&t);
	REQUIRE((p = pfc_of(&v, -1)) != NULL);
	CHECK(p->paused);
	CHECK_EQ_U(p->pause_start_ns, 1 * MS);
	CHECK_EQ_U(p->paused_ns, 1 * MS);       /* up to now */
	CHECK_EQ_U(p->longest_pause_ns, 1 * MS);
	sum(&t, &s);
	CHECK_EQ_U(s.now_ns, 2 * MS);
	CHECK_EQ_U(pv.n, 0);
	roce_analyzer_finish(t.a);
	REQUIRE(pv.n == 1);
	CHECK_EQ_I(pv.e[0].priority, -1);
	CHECK(memcmp(pv.e[0].src_mac, mac_b, 6) == 0);
	CHECK_EQ_U(pv.e[0].start_ns, 1 * MS);
	CHECK_EQ_U(pv.e[0].end_ns, 1 * MS + d10);
	v = pfc_table(&t);
	REQUIRE((p = pfc_of(&v, -1)) != NULL);
	CHECK(!p->paused);
	CHECK_EQ_U(p->paused_ns, d10);
	CHECK_EQ_U(p->longest_pause_ns, d10);
	REQUIRE((p = pfc_of(&v, 0)) != NULL);
	CHECK_EQ_U(p->paused_ns, 0);
	CHECK_EQ_U(p->xon, 1);
	a_done(&t);
}

/* ------------------------------------------------ link speeds (notes 3.2) */

/*
 * t = quanta x 512 / bit rate, at every speed of the notes' table, rounded
 * to the nearest ns; 0 quanta is 0 at any speed.  A frame's pause_ns is the
 * same value at the analyzer's link speed.
 */
static void test_link_speeds(void)
{
	static const struct {
		double gbps;
		uint64_t one, full;     /* 1 quantum, 0xffff quanta, ns */
	} tab[] = {
		{ 1, 512, 33553920 }, { 10, 51, 3355392 }, { 25, 20, 1342157 },
		{ 40, 13, 838848 }, { 50, 10, 671078 }, { 100, 5, 335539 },
		{ 200, 3, 167770 }, { 400, 1, 83885 }, { 800, 1, 41942 },
	};

	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		struct t t;
		struct roce_analyzer_config cfg;

		CHECK_EQ_U(roce_pause_quanta_ns(tab[i].gbps, 1), tab[i].one);
		CHECK_EQ_U(roce_pause_quanta_ns(tab[i].gbps, 0xffff), tab[i].full);
		CHECK_EQ_U(roce_pause_quanta_ns(tab[i].gbps, 0), 0);
		roce_analyzer_config_init(&cfg);
		cfg.link_speed_gbps = tab[i].gbps;
		a_init_cfg(&t, &cfg);
		REQUIRE(t.a && xa);
		pfc1(&t, 7, 0xffff, 1 * MS);
		CHECK_EQ_U(t.res.pause_ns[7], tab[i].full);
		pause_from(&t, mac_b, 1, 1 * MS);
		CHECK_EQ_U(t.res.pause_ns[0], tab[i].one);
		a_done(&t);
	}
	/* the CLI's extremes: 100000 Gb/s, and a slow link (1 Mb/s) */
	CHECK_EQ_U(roce_pause_quanta_ns(100000, 0xffff), 336);
	CHECK_EQ_U(roce_pause_quanta_ns(0.001, 0xffff), 33553920000ull);
}

/* --------------------------------------------------- senders and frames */

static const struct roce_pfc_stats *pfc_at(const struct pfcs *v, const uint8_t mac[6], int prio)
{
	for (unsigned i = 0; i < v->n; i++)
		if (v->p[i].priority == prio && memcmp(v->p[i].src_mac, mac, 6) == 0)
			return &v->p[i];
	return NULL;
}

/*
 * The high octet of the enable vector is reserved (802.1Qbb: sent as 0,
 * ignored on receipt; notes 3.1): a frame with bits 8-15 set is flagged
 * (bad_pfc, one malformed anomaly) and acts on bits 0-7 as the receiver
 * does.  100 quanta at 100 Gb/s: 512 ns.
 */
static void test_enable_high_octet(void)
{
	struct t t;
	struct roce_summary s;
	struct pfcs v;
	const struct roce_pfc_stats *p;
	uint16_t q[8] = { 0 };
	uint8_t buf[64];
	size_t len;

	a_init(&t, 0);
	REQUIRE(t.a && xa);
	q[3] = 100;
	REQUIRE(roce_build_pfc(mac_a, 0x08, q, buf, sizeof(buf), &len) == ROCE_OK);
	buf[16] = 0xff;                 /* enable vector bits 8-15 */
	xfeed_buf(&t, buf, len, len, 1 * MS);
	CHECK_EQ_U(t.res.findings, ROCE_FIND_BAD_PFC);
	CHECK_EQ_U(t.res.events, ROCE_EV_PFC | ROCE_EV_MALFORMED);
	CHECK_EQ_U(t.res.pause_ns[3], 512);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.pfc_frames, 1);
	CHECK_EQ_U(s.malformed, 1);
	CHECK_EQ_U(s.findings[6], 1);   /* bad_pfc: bit 6 */
	CHECK_EQ_U(t.an[ROCE_AN_MALFORMED], 1);
	v = pfc_table(&t);
	CHECK_EQ_U(v.n, 1);
	REQUIRE((p = pfc_of(&v, 3)) != NULL);
	CHECK_EQ_U(p->paused_ns, 512);
	a_done(&t);
}

/*
 * 802.3x PAUSE (802.3 Annex 31B): 0 is "resume" also with nothing paused
 * (an XON, no interval); 0xffff pauses 335.539 us at 100 Gb/s; a PAUSE to
 * the peer's unicast address is valid (31B.3.1) and acts the same.  A port
 * that sends both PAUSE and PFC (misconfigured: the two are exclusive on a
 * port, notes 3.1) has two entries, priority -1 and 0..7, whose pauses are
 * kept apart (a PFC XON for priority 0 does not end the link PAUSE).
 */
static void test_pause_and_pfc_one_port(void)
{
	struct t t;
	struct roce_summary s;
	struct pfcs v;
	const struct roce_pfc_stats *p;
	const uint64_t d = 335539;
	uint8_t buf[64];
	size_t len;

	a_init(&t, 0);
	REQUIRE(t.a && xa);
	pause_from(&t, mac_a, 0, 1 * MS);
	CHECK_EQ_U(t.res.events, ROCE_EV_PAUSE);
	CHECK_EQ_U(t.res.pause_ns[0], 0);
	REQUIRE(roce_build_pause(mac_a, 0xffff, buf, sizeof(buf), &len) == ROCE_OK);
	memcpy(buf, mac_b, 6);          /* to the peer's own address */
	xfeed_buf(&t, buf, len, len, 2 * MS);
	CHECK_EQ_U(t.res.findings, 0);
	CHECK_EQ_U(t.res.pause_ns[0], d);
	pfc1(&t, 0, 0xffff, 2 * MS + 10 * US);
	pfc1(&t, 0, 0, 2 * MS + 20 * US);       /* ends priority 0 only */
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.pause_frames, 2);
	CHECK_EQ_U(s.pfc_frames, 2);
	CHECK_EQ_U(s.malformed, 0);
	v = pfc_table(&t);
	REQUIRE(v.n == 2);
	CHECK_EQ_I(v.p[0].priority, -1);        /* by first frame */
	CHECK_EQ_I(v.p[1].priority, 0);
	p = &v.p[0];
	CHECK_EQ_U(p->frames, 2);
	CHECK_EQ_U(p->xon, 1);
	CHECK_EQ_U(p->xoff, 1);
	CHECK_EQ_U(p->quanta, 0xffff);
	CHECK_EQ_U(p->paused_ns, d);
	p = &v.p[1];
	CHECK_EQ_U(p->paused_ns, 10 * US);
	a_done(&t);
}

/*
 * Two senders pause the same priority: their pauses are their own (per
 * source MAC: one link's two ends, or two ports), an XON from one does not
 * end the other's.  A VLAN-tagged PFC frame (switches do not tag them, a
 * capture may show a tag) is decoded the same; PFC is per link and
 * priority (the tag's VID and PCP name no other port or priority), so the
 * tagged XON from mac_a ends mac_a's pause.
 */
static void test_two_senders_and_vlan(void)
{
	struct t t;
	struct pfcs v;
	const struct roce_pfc_stats *p;
	uint16_t q[8] = { 0 };
	uint8_t buf[80], tagged[80];
	size_t len;

	a_init(&t, 0);
	REQUIRE(t.a && xa);
	pfc1(&t, 3, 0xffff, 0);
	q[3] = 0xffff;
	pfcq(&t, mac_c, 0x08, q, 5 * US);
	q[3] = 0;
	pfcq(&t, mac_c, 0x08, q, 10 * US);      /* mac_c's XON */
	REQUIRE(roce_build_pfc(mac_a, 0x08, q, buf, sizeof(buf), &len) == ROCE_OK);
	memcpy(tagged, buf, 12);
	tagged[12] = 0x81;
	tagged[13] = 0x00;
	tagged[14] = 0x60;              /* PCP 3, VID 100 */
	tagged[15] = 100;
	memcpy(tagged + 16, buf + 12, len - 12);
	xfeed_buf(&t, tagged, len + 4, len + 4, 20 * US);
	CHECK_EQ_U(t.status, ROCE_OK);
	CHECK_EQ_U(t.res.events, ROCE_EV_PFC | ROCE_EV_PFC_XON);
	CHECK_EQ_U(t.res.findings, 0);
	roce_analyzer_finish(t.a);
	v = pfc_table(&t);
	CHECK_EQ_U(v.n, 2);
	REQUIRE((p = pfc_at(&v, mac_a, 3)) != NULL);
	CHECK_EQ_U(p->frames, 2);
	CHECK_EQ_U(p->paused_ns, 20 * US);
	REQUIRE((p = pfc_at(&v, mac_c, 3)) != NULL);
	CHECK_EQ_U(p->paused_ns, 5 * US);
	a_done(&t);
}

/*
 * Malformed MAC Control frames (802.3 Annex 31B; notes 3.1):
 * - a PAUSE too short to hold its pause_time (a runt: 17 bytes on the
 *   wire) is bad_pfc; its time was never read, so it is no XON: it must not
 *   end the open pause, nor count as a PAUSE frame of the sender (the same
 *   as a PFC or PAUSE cut by the snap length before its times: truncated);
 * - a PFC cut by the snap length: truncated, the same;
 * - another MAC Control opcode (0x0002, EPON GATE): no PFC / PAUSE frame,
 *   no finding.
 * Each damaged frame is one malformed frame and one malformed anomaly.
 */
static void test_malformed_macctrl(void)
{
	struct t t;
	struct roce_summary s;
	struct pfcs v;
	const struct roce_pfc_stats *p;
	const uint64_t d = 335539;
	uint16_t q[8] = { 0 };
	uint8_t buf[64];
	size_t len;

	a_init(&t, 0);
	REQUIRE(t.a && xa);
	pause_from(&t, mac_b, 0xffff, 1 * MS);
	REQUIRE(roce_build_pause(mac_b, 0, buf, sizeof(buf), &len) == ROCE_OK);
	xfeed_buf(&t, buf, 17, 17, 1 * MS + 10 * US);   /* runt: opcode, half a time */
	CHECK_EQ_U(t.res.findings, ROCE_FIND_BAD_PFC);
	CHECK_EQ_U(t.res.events, ROCE_EV_MALFORMED);
	q[4] = 0xffff;
	pfcq(&t, mac_a, 0x10, q, 1 * MS + 20 * US);
	q[4] = 0;
	REQUIRE(roce_build_pfc(mac_a, 0x10, q, buf, sizeof(buf), &len) == ROCE_OK);
	xfeed_buf(&t, buf, len, 24, 1 * MS + 30 * US);  /* cut inside the times */
	CHECK_EQ_U(t.res.findings, ROCE_FIND_TRUNCATED);
	CHECK_EQ_U(t.res.events, ROCE_EV_MALFORMED);
	REQUIRE(roce_build_pause(mac_b, 0, buf, sizeof(buf), &len) == ROCE_OK);
	buf[15] = 0x02;                 /* opcode 0x0002 */
	xfeed_buf(&t, buf, len, len, 1 * MS + 40 * US);
	CHECK_EQ_U(t.status, ROCE_OK);
	CHECK_EQ_U(t.res.findings, 0);
	CHECK_EQ_U(t.res.events, 0);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.pause_frames, 1);
	CHECK_EQ_U(s.pfc_frames, 1);
	CHECK_EQ_U(s.malformed, 2);
	CHECK_EQ_U(s.findings[0], 1);   /* truncated */
	CHECK_EQ_U(s.findings[6], 1);   /* bad_pfc */
	CHECK_EQ_U(t.an[ROCE_AN_MALFORMED], 2);
	v = pfc_table(&t);
	REQUIRE((p = pfc_of(&v, -1)) != NULL);
	CHECK_EQ_U(p->frames, 1);
	CHECK_EQ_U(p->xon, 0);
	CHECK_EQ_U(p->paused_ns, d);
	REQUIRE((p = pfc_of(&v, 4)) != NULL);
	CHECK_EQ_U(p->frames, 1);
	CHECK_EQ_U(p->paused_ns, d);
	a_done(&t);
}

/*
 * The destination address (notes 3.1): a PFC frame goes to the reserved
 * 01-80-C2-00-00-01 only (802.1Qbb, 802.3 Annex 31D); a PAUSE to that or to
 * the peer's own, individual address (Annex 31B).  A PFC to a unicast
 * address and a PAUSE to another group address are flagged bad_pfc (one
 * malformed frame and anomaly each) and analysed as sent, like the other
 * bad_pfc frames whose times could be read.
 */
static void test_macctrl_da(void)
{
	static const uint8_t mcast[6] = { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 };
	struct t t;
	struct roce_summary s;
	struct pfcs v;
	const struct roce_pfc_stats *p;
	uint16_t q[8] = { 0 };
	uint8_t buf[64];
	size_t len;

	a_init(&t, 0);
	REQUIRE(t.a && xa);
	q[3] = 1000;
	REQUIRE(roce_build_pfc(mac_a, 0x08, q, buf, sizeof(buf), &len) == ROCE_OK);
	CHECK_EQ_U(buf[0], 0x01);
	CHECK_EQ_U(buf[5], 0x01);
	memcpy(buf, mac_b, 6);
	xfeed_buf(&t, buf, len, len, 1 * MS);
	CHECK_EQ_U(t.status, ROCE_OK);
	CHECK_EQ_U(t.res.findings, ROCE_FIND_BAD_PFC);
	CHECK_EQ_U(t.res.events, ROCE_EV_PFC | ROCE_EV_MALFORMED);
	CHECK_EQ_U(t.res.pause_ns[3], 5120);
	REQUIRE(roce_build_pause(mac_b, 0xffff, buf, sizeof(buf), &len) == ROCE_OK);
	memcpy(buf, mcast, 6);
	xfeed_buf(&t, buf, len, len, 2 * MS);
	CHECK_EQ_U(t.res.findings, ROCE_FIND_BAD_PFC);
	CHECK_EQ_U(t.res.events, ROCE_EV_PAUSE | ROCE_EV_MALFORMED);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.pfc_frames, 1);
	CHECK_EQ_U(s.pause_frames, 1);
	CHECK_EQ_U(s.malformed, 2);
	CHECK_EQ_U(s.findings[6], 2);
	CHECK_EQ_U(t.an[ROCE_AN_MALFORMED], 2);
	v = pfc_table(&t);
	REQUIRE((p = pfc_of(&v, 3)) != NULL);
	CHECK_EQ_U(p->paused_ns, 5120);
	REQUIRE((p = pfc_of(&v, -1)) != NULL);
	CHECK_EQ_U(p->paused_ns, 335539);
	a_done(&t);
}

/*
 * Counted once each: storms in the summary = the entries' storms = the
 * pfc_storm anomalies = the pause events marked storm; every entry's
 * paused_ns after the end = the sum of its events' lengths; the frame
 * events pfc_storm = the storms flagged at a frame.  Two senders, three
 * priorities, 802.3x PAUSE, storms that start at a frame and one that is
 * found only when the pause closes (one long XOFF at 1 Gb/s: 33.5 ms,
 * storm threshold 30 ms).
 */
static void test_counted_once(void)
{
	struct t t;
	struct roce_analyzer_config cfg;
	struct roce_summary s;
	struct pev pv;
	struct pfcs v;
	uint16_t q[8] = { 0 };
	uint64_t frame_storms = 0, ev_storms = 0, ent_storms = 0;

	roce_analyzer_config_init(&cfg);
	cfg.link_speed_gbps = 1;
	cfg.pfc_storm_ns = 30 * MS;
	a_init_cfg(&t, &cfg);
	REQUIRE(t.a && xa);
	watch_pauses(&t, &pv);
	for (uint64_t i = 0; i < 20; i++) {     /* mac_a 1 and 5: refreshed for 38 ms */
		q[1] = q[5] = 0xffff;
		pfcq(&t, mac_a, 0x22, q, i * 2 * MS);
		frame_storms += __builtin_popcount(t.res.storm_mask);
		pause_from(&t, mac_c, 0x1000, i * 2 * MS + 1 * US);  /* 2.097 ms: continuous */
		frame_storms += __builtin_popcount(t.res.storm_mask);
	}
	q[1] = 0;
	q[5] = 0;
	pfcq(&t, mac_a, 0x02, q, 40 * MS);     /* XON 1 */
	q[7] = 0xffff;
	pfcq(&t, mac_c, 0x80, q, 41 * MS);     /* one 33.5 ms pause, a storm when it closes */
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	v = pfc_table(&t);
	CHECK_EQ_U(v.n, 4);
	for (unsigned i = 0; i < v.n; i++) {
		uint64_t evsum = 0;

		ent_storms += v.p[i].storms;
		for (unsigned j = 0; j < pv.n; j++)
			if (pv.e[j].priority == v.p[i].priority &&
			    memcmp(pv.e[j].src_mac, v.p[i].src_mac, 6) == 0)
				evsum += pv.e[j].end_ns - pv.e[j].start_ns;
		CHECK_EQ_U(evsum, v.p[i].paused_ns);
	}
	for (unsigned j = 0; j < pv.n; j++)
		ev_storms += pv.e[j].storm;
	CHECK_EQ_U(s.pfc_storms, 4);
	CHECK_EQ_U(ent_storms, 4);
	CHECK_EQ_U(ev_storms, 4);
	CHECK_EQ_U(t.an[ROCE_AN_PFC_STORM], 4);
	CHECK_EQ_U(frame_storms, 3);            /* 1, 5 and PAUSE at a frame; 7 at the close */
	CHECK_EQ_U(pv.n, 4);
	a_done(&t);
}

/* ------------------------------------------------------------ pairing */

/* A -> B request to B's QP dq / B -> A response to A's QP dq, as in an_testlib.h. */
static void rq_qp(struct t *t, uint32_t dq, uint8_t opcode, uint32_t psn, uint32_t payload,
	uint32_t dma_len, uint64_t ts)
{
	struct roce_frame_spec s;

	req_spec(&s, opcode, psn, true, payload, dma_len);
	s.bth.dqpn = dq;
	xfeed(t, &s, ts);
}

static void rs_qp(struct t *t, uint32_t dq, uint8_t opcode, uint32_t psn, uint32_t payload,
	uint64_t ts)
{
	struct roce_frame_spec s;

	resp_spec(&s, opcode, psn, 0x1f, payload);
	s.bth.dqpn = dq;
	xfeed(t, &s, ts);
}

static const struct roce_flow_stats *flow_of(const struct flows *fl, uint32_t dqpn)
{
	for (unsigned i = 0; i < fl->n; i++)
		if (fl->f[i].key.dqpn == dqpn)
			return &fl->f[i];
	return NULL;
}

/*
 * Two QPs between the same two hosts (A's 0x22 -> B's 0x11, A's 0x23 ->
 * B's 0x12), their requests and ACKs interleaved, PSN windows apart
 * (1000.., 5000..): each response stream pairs with the request stream
 * whose PSNs it acknowledges (the pairing index: host pair, then the PSN
 * window), and every round trip is measured on its own QP (QP 1: 3 us,
 * QP 2: 7 us), none on the other.
 */
static void test_two_qps_apart(void)
{
	struct t t;
	struct flows fl;
	const struct roce_flow_stats *f;

	a_init(&t, 1024);
	REQUIRE(t.a && xa);
	for (uint32_t i = 0; i < 4; i++) {
		uint64_t t0 = i * 100 * US;

		rq_qp(&t, 0x11, ROCE_OP_RC_SEND_ONLY, 1000 + i, 64, 0, t0);
		rq_qp(&t, 0x12, ROCE_OP_RC_SEND_ONLY, 5000 + i, 64, 0, t0 + 1 * US);
		rs_qp(&t, 0x22, ROCE_OP_RC_ACKNOWLEDGE, 1000 + i, 0, t0 + 3 * US);
		CHECK_EQ_U(t.res.events, ROCE_EV_ACK_RTT);
		CHECK_EQ_U(t.res.rtt_ns, 3 * US);
		rs_qp(&t, 0x23, ROCE_OP_RC_ACKNOWLEDGE, 5000 + i, 0, t0 + 8 * US);
		CHECK_EQ_U(t.res.events, ROCE_EV_ACK_RTT);
		CHECK_EQ_U(t.res.rtt_ns, 7 * US);
	}
	roce_analyzer_finish(t.a);
	flows_get(&t, &fl);
	REQUIRE((f = flow_of(&fl, 0x22)) != NULL);
	CHECK(f->has_peer);
	CHECK_EQ_U(f->peer.dqpn, 0x11);
	REQUIRE((f = flow_of(&fl, 0x11)) != NULL);
	CHECK_EQ_U(f->rtt.count, 4);
	CHECK_EQ_U(f->rtt.max_ns, 3 * US);
	REQUIRE((f = flow_of(&fl, 0x12)) != NULL);
	CHECK_EQ_U(f->rtt.count, 4);
	CHECK_EQ_U(f->rtt.min_ns, 7 * US);
	check_counters_add_up(&t, false);
	a_done(&t);
}

/*
 * Two QPs whose PSN windows overlap (both start at 100, as when every QP
 * starts at PSN 0) and whose responses come in the order of the requests:
 * the first ACK (QP 1's, to A's 0x22) finds both request streams with an
 * outstanding AckReq at its PSN; the oldest wins (QP 1 asked first and a
 * responder answers in order), the second response stream takes the other.
 * Each QP's READ is answered on its own response stream: no READ response
 * makes a gap on the other QP (the READ ranges differ: 102..103 on QP 1,
 * 102..105 on QP 2).
 */
static void test_two_qps_overlap(void)
{
	struct t t;
	struct roce_summary s;
	struct flows fl;
	const struct roce_flow_stats *f;

	a_init(&t, 1024);
	REQUIRE(t.a && xa);
	rq_qp(&t, 0x11, ROCE_OP_RC_SEND_ONLY, 100, 64, 0, 0);
	rq_qp(&t, 0x12, ROCE_OP_RC_SEND_ONLY, 100, 64, 0, 1 * US);
	rs_qp(&t, 0x22, ROCE_OP_RC_ACKNOWLEDGE, 100, 0, 5 * US);
	CHECK_EQ_U(t.res.rtt_ns, 5 * US);
	rs_qp(&t, 0x23, ROCE_OP_RC_ACKNOWLEDGE, 100, 0, 8 * US);
	CHECK_EQ_U(t.res.rtt_ns, 7 * US);
	rq_qp(&t, 0x11, ROCE_OP_RC_SEND_ONLY, 101, 64, 0, 10 * US);
	rq_qp(&t, 0x12, ROCE_OP_RC_SEND_ONLY, 101, 64, 0, 11 * US);
	rq_qp(&t, 0x11, ROCE_OP_RC_RDMA_READ_REQUEST, 102, 0, 2048, 12 * US);
	rq_qp(&t, 0x12, ROCE_OP_RC_RDMA_READ_REQUEST, 102, 0, 4096, 13 * US);
	rs_qp(&t, 0x23, ROCE_OP_RC_ACKNOWLEDGE, 101, 0, 20 * US);
	CHECK_EQ_U(t.res.rtt_ns, 9 * US);
	rs_qp(&t, 0x23, ROCE_OP_RC_RDMA_READ_RESPONSE_FIRST, 102, 1024, 21 * US);
	rs_qp(&t, 0x22, ROCE_OP_RC_ACKNOWLEDGE, 101, 0, 22 * US);
	CHECK_EQ_U(t.res.rtt_ns, 12 * US);
	rs_qp(&t, 0x23, ROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE, 103, 1024, 23 * US);
	rs_qp(&t, 0x22, ROCE_OP_RC_RDMA_READ_RESPONSE_FIRST, 102, 1024, 24 * US);
	rs_qp(&t, 0x22, ROCE_OP_RC_RDMA_READ_RESPONSE_LAST, 103, 1024, 25 * US);
	rs_qp(&t, 0x23, ROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE, 104, 1024, 26 * US);
	rs_qp(&t, 0x23, ROCE_OP_RC_RDMA_READ_RESPONSE_LAST, 105, 1024, 27 * US);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.psn_gaps + s.lost_psns + s.unrecovered_psns, 0);
	CHECK_EQ_U(s.duplicates + s.out_of_order, 0);
	flows_get(&t, &fl);
	REQUIRE((f = flow_of(&fl, 0x22)) != NULL);
	CHECK_EQ_U(f->peer.dqpn, 0x11);
	REQUIRE((f = flow_of(&fl, 0x23)) != NULL);
	CHECK_EQ_U(f->peer.dqpn, 0x12);
	REQUIRE((f = flow_of(&fl, 0x11)) != NULL);
	CHECK_EQ_U(f->rtt.count, 3);
	CHECK_EQ_U(f->read_last.count, 1);
	CHECK_EQ_U(f->read_last.max_ns, 13 * US);
	REQUIRE((f = flow_of(&fl, 0x12)) != NULL);
	CHECK_EQ_U(f->rtt.count, 3);
	CHECK_EQ_U(f->read_last.count, 1);
	CHECK_EQ_U(f->read_last.max_ns, 14 * US);
	check_counters_add_up(&t, false);
	a_done(&t);
}

/*
 * A response stream evicted (max_flows 3) while a READ's responses were
 * partly lost, then re-created by the READ's later responses: READ 100 of 4
 * packets, the first response seen is MIDDLE 102 (100 and 101 lost: one
 * gap of 2, measured from the READ's first PSN, docs/json.md READ
 * recovery); the response stream is evicted (its unrecovered PSNs stay in
 * the run's total, analyzer.h) and LAST 103 opens a new one.  PSNs 100 and
 * 101 were lost once: lost_psns and unrecovered_psns must not count them
 * again, nor 102, which was seen.
 */
static void test_read_resp_evicted(void)
{
	struct t t;
	struct roce_analyzer_config cfg;
	struct roce_summary s;

	roce_analyzer_config_init(&cfg);
	cfg.pmtu = 1024;
	cfg.max_flows = 3;
	a_init_cfg(&t, &cfg);
	REQUIRE(t.a && xa);
	rq(&t, ROCE_OP_RC_RDMA_READ_REQUEST, 100, true, 0, 4096, 0);
	rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE, 102, 0x1f, 1024, 10 * US);
	CHECK(t.res.events & ROCE_EV_PSN_GAP);
	CHECK_EQ_U(t.res.lost_psns, 2);
	rq_qp(&t, 0x51, ROCE_OP_RC_SEND_ONLY, 7, 64, 0, 20 * US);  /* third stream */
	snd(&t, 104, 30 * US);                  /* A -> B active again */
	rq_qp(&t, 0x52, ROCE_OP_RC_SEND_ONLY, 9, 64, 0, 40 * US);  /* evicts B -> A */
	sum(&t, &s);
	CHECK_EQ_U(s.evicted_flows, 1);
	CHECK_EQ_U(s.unrecovered_psns, 2);
	snd(&t, 105, 45 * US);                  /* A -> B the newest but one */
	rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_LAST, 103, 0x1f, 1024, 50 * US);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.evicted_flows, 2);
	CHECK_EQ_U(s.psn_gaps, 1);
	CHECK_EQ_U(s.lost_psns, 2);
	CHECK_EQ_U(s.unrecovered_psns, 2);
	a_done(&t);
}

/*
 * The same with the new response stream's first frame past the READ (the
 * ACK of SEND 104): the READ's responses went by before it (docs/json.md:
 * the READs wholly behind a first frame count as passed, none of their
 * responses seen), but MIDDLE 101 was seen, by the evicted stream, which
 * counted 100 lost: the READ is not passed again (before, 100..103 were
 * lost a second time, 101 among them, which was seen).  What became of
 * 102 and 103 went with the evicted stream: not counted.
 */
static void test_read_passed_after_eviction(void)
{
	struct t t;
	struct roce_analyzer_config cfg;
	struct roce_summary s;

	roce_analyzer_config_init(&cfg);
	cfg.pmtu = 1024;
	cfg.max_flows = 3;
	a_init_cfg(&t, &cfg);
	REQUIRE(t.a && xa);
	rq(&t, ROCE_OP_RC_RDMA_READ_REQUEST, 100, true, 0, 4096, 0);
	rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE, 101, 0x1f, 1024, 10 * US);
	CHECK_EQ_U(t.res.lost_psns, 1);
	rq_qp(&t, 0x51, ROCE_OP_RC_SEND_ONLY, 7, 64, 0, 20 * US);
	snd(&t, 104, 30 * US);
	rq_qp(&t, 0x52, ROCE_OP_RC_SEND_ONLY, 9, 64, 0, 40 * US);  /* evicts B -> A */
	snd(&t, 105, 45 * US);
	ack(&t, 104, 50 * US);
	CHECK_EQ_U(t.res.events & ROCE_EV_PSN_GAP, 0);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.evicted_flows, 2);
	CHECK_EQ_U(s.psn_gaps, 1);
	CHECK_EQ_U(s.lost_psns, 1);
	CHECK_EQ_U(s.unrecovered_psns, 1);
	a_done(&t);
}

/*
 * Pairing over IPv6 (RoCE v2) and RoCE v1 (GRH, GIDs): the host pair is the
 * version and the 16-byte addresses; an ACK and a READ's responses pair
 * with their request stream and give their round trip and READ latency.
 */
static void test_pairing_v6_v1(void)
{
	static const uint8_t gid_a[16] = { 0xfe, 0x80, [8] = 0x02, [15] = 0x0a };
	static const uint8_t gid_b[16] = { 0xfe, 0x80, [8] = 0x02, [15] = 0x0b };

	for (int v = 0; v < 2; v++) {
		struct t t;
		struct flows fl;
		struct roce_summary s;
		const struct roce_flow_stats *f;
		struct roce_frame_spec sp;
		static const struct {
			bool a2b;
			uint8_t op;
			uint32_t psn, len;
			uint64_t ts;
		} fr[] = {
			{ true, ROCE_OP_RC_SEND_ONLY, 50, 64, 0 },
			{ true, ROCE_OP_RC_RDMA_READ_REQUEST, 51, 2048, 1 * US },
			{ false, ROCE_OP_RC_ACKNOWLEDGE, 50, 0, 4 * US },
			{ false, ROCE_OP_RC_RDMA_READ_RESPONSE_FIRST, 51, 1024, 6 * US },
			{ false, ROCE_OP_RC_RDMA_READ_RESPONSE_LAST, 52, 1024, 7 * US },
		};

		a_init(&t, 1024);
		REQUIRE(t.a && xa);
		for (size_t i = 0; i < sizeof(fr) / sizeof(fr[0]); i++) {
			if (fr[i].a2b)
				req_spec(&sp, fr[i].op, fr[i].psn, true,
					 fr[i].op == ROCE_OP_RC_SEND_ONLY ? fr[i].len : 0,
					 fr[i].op == ROCE_OP_RC_SEND_ONLY ? 0 : fr[i].len);
			else
				resp_spec(&sp, fr[i].op, fr[i].psn, 0x1f, fr[i].len);
			if (v == 0) {
				sp.version = 2;
				sp.ip_version = 6;
			} else {
				sp.version = 1;
			}
			memcpy(sp.src, fr[i].a2b ? gid_a : gid_b, 16);
			memcpy(sp.dst, fr[i].a2b ? gid_b : gid_a, 16);
			xfeed(&t, &sp, fr[i].ts);
			CHECK_EQ_U(t.status, ROCE_OK);
		}
		roce_analyzer_finish(t.a);
		sum(&t, &s);
		CHECK_EQ_U(v ? s.rocev1_frames : s.rocev2_frames, 5);
		CHECK_EQ_U(s.psn_gaps + s.unrecovered_psns, 0);
		flows_get(&t, &fl);
		REQUIRE((f = req_flow(&fl)) != NULL);
		CHECK(f->has_peer);
		CHECK_EQ_U(f->rtt.count, 2);
		CHECK_EQ_U(f->rtt.max_ns, 5 * US);
		CHECK_EQ_U(f->read_first.count, 1);
		CHECK_EQ_U(f->read_last.max_ns, 6 * US);
		REQUIRE((f = resp_flow(&fl)) != NULL);
		CHECK(f->has_peer);
		CHECK_EQ_U(f->key.version, v ? 1 : 2);
		a_done(&t);
	}
}

int main(void)
{
	RUN(test_refresh_one_interval);
	RUN(test_refresh_at_deadline_storm);
	RUN(test_reordered_time);
	RUN(test_reordered_no_double_count);
	RUN(test_advance_then_refresh);
	RUN(test_capture_ends_inside_pause);
	RUN(test_link_speeds);
	RUN(test_enable_high_octet);
	RUN(test_pause_and_pfc_one_port);
	RUN(test_two_senders_and_vlan);
	RUN(test_malformed_macctrl);
	RUN(test_macctrl_da);
	RUN(test_counted_once);
	RUN(test_two_qps_apart);
	RUN(test_two_qps_overlap);
	RUN(test_read_resp_evicted);
	RUN(test_read_passed_after_eviction);
	RUN(test_pairing_v6_v1);
	return check_report();
}
