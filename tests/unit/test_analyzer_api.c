// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_analyzer_api.c - the analyzer's API for running users (live mode,
 * generators, report writers): mid-run snapshots equal to the finish-time
 * values when no more frames come, roce_analyzer_advance(), idle expiry with
 * its end-of-stream callback (once, final stats, totals unchanged), stable
 * stream ids, pause events with start and end, observers that see every
 * frame and anomaly, and the size members of growing structs.
 */
#include "an_testlib.h"

#define T0 (1700000000ull * 1000000000ull)

/* The anomalies seen so far, of every type. */
static uint64_t anomalies(const struct t *t)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < ROCE_AN_COUNT; i++)
		n += t->an[i];
	return n;
}

/* The shared fixture with idle-stream expiry after idle_ns (0: never). */
static bool t_init_idle(struct t *t, uint64_t idle_ns)
{
	struct roce_analyzer_config cfg;

	roce_analyzer_config_init(&cfg);
	cfg.idle_timeout_ns = idle_ns;
	t_init_cfg(t, &cfg);
	return t->a != NULL;
}

/* RC frame from host (1 + from) to host (1 + !from), to QP qp, built into buf (512 bytes). */
static size_t rc_build(int from, uint32_t qp, uint8_t op, uint32_t psn, uint8_t *buf)
{
	struct roce_frame_spec s;
	size_t len = 0;

	roce_frame_spec_init(&s);
	memcpy(s.src_mac, from ? mac_b : mac_a, 6);
	memcpy(s.dst_mac, from ? mac_a : mac_b, 6);
	roce_addr_v4(s.src, IP_A + (uint32_t)from);
	roce_addr_v4(s.dst, IP_B - (uint32_t)from);
	s.bth.opcode = op;
	s.bth.pkey = 0xffff;
	s.bth.dqpn = qp;
	s.bth.psn = psn;
	s.bth.ackreq = op == ROCE_OP_RC_SEND_ONLY;
	s.payload_len = op == ROCE_OP_RC_SEND_ONLY ? 32 : 0;
	s.aeth.syndrome = 0x1f;
	if (roce_build(&s, buf, 512, &len) != ROCE_OK) {
		check_cur_failed_ = 1;
		return 0;
	}
	return len;
}

/* RC frame from host (1 + from) to host (1 + !from), to QP qp. */
static void rc(struct t *t, int from, uint32_t qp, uint8_t op, uint32_t psn, uint64_t ts)
{
	uint8_t buf[512];
	size_t len = rc_build(from, qp, op, psn, buf);

	if (len)
		feed_buf(t, buf, len, ts);
}

static void pfc(struct t *t, int prio, uint16_t q, uint64_t ts)
{
	uint16_t quanta[8] = { 0 };
	uint8_t buf[64];
	size_t len = 0;

	quanta[prio] = q;
	if (roce_build_pfc(mac_a, (uint8_t)(1u << prio), quanta, buf, sizeof(buf), &len) != ROCE_OK) {
		check_cur_failed_ = 1;
		return;
	}
	feed_buf(t, buf, len, ts);
}

static int first_pfc(void *user, const struct roce_pfc_stats *p)
{
	*(struct roce_pfc_stats *)user = *p;
	return 1;
}

/* Requests 0..4 on QP 0x11 with PSN 2 lost, ACKs back: one PSN missing at the end. */
static void lossy_traffic(struct t *t)
{
	for (uint32_t p = 0; p < 5; p++) {
		if (p != 2)
			rc(t, 0, 0x11, ROCE_OP_RC_SEND_ONLY, 100 + p, T0 + p * US);
	}
	rc(t, 1, 0x22, ROCE_OP_RC_ACKNOWLEDGE, 101, T0 + 10 * US);
}

static void t_snapshot_equals_finish(void)
{
	struct t t;
	struct roce_summary mid, end;
	struct flows fm = { .n = 0 }, fe = { .n = 0 };

	REQUIRE(t_init_idle(&t, 0));
	lossy_traffic(&t);
	roce_analyzer_summary(t.a, &mid);
	roce_analyzer_foreach_flow(t.a, collect, &fm);
	CHECK_EQ_U(mid.unrecovered_psns, 1);        /* counted up to now, before finish */
	CHECK_EQ_U(mid.size, sizeof(mid));
	CHECK_EQ_U(mid.now_ns, T0 + 10 * US);
	roce_analyzer_finish(t.a);
	roce_analyzer_summary(t.a, &end);
	roce_analyzer_foreach_flow(t.a, collect, &fe);
	CHECK(memcmp(&mid, &end, sizeof(mid)) == 0);
	REQUIRE(fm.n == 2 && fe.n == 2);
	CHECK(memcmp(fm.f, fe.f, 2 * sizeof(fm.f[0])) == 0);
	CHECK_EQ_U(fe.f[0].unrecovered_psns, 1);
	CHECK_EQ_U(fe.f[0].size, sizeof(fe.f[0]));
	roce_analyzer_destroy(t.a);
}

struct obs_log {
	uint64_t frames, anomalies, roce_results, ends, pauses;
	uint64_t events_or;
	struct roce_flow_stats end[4];
	enum roce_flow_end_reason why[4];
	struct roce_pause_event pause[4];
	uint64_t last_stream_id;
};

static void ob_frame(void *user, const struct roce_pkt *pkt, uint64_t ts, uint64_t frame,
	const struct roce_frame_result *res)
{
	struct obs_log *l = user;

	(void)ts;
	(void)frame;
	l->frames++;
	l->events_or |= res->events;
	if (pkt->kind == ROCE_KIND_ROCE)
		l->roce_results++;
	l->last_stream_id = res->stream_id;
}

static void ob_anomaly(void *user, const struct roce_anomaly *an)
{
	(void)an;
	((struct obs_log *)user)->anomalies++;
}

static void ob_pause(void *user, const struct roce_pause_event *ev)
{
	struct obs_log *l = user;

	if (l->pauses < 4)
		l->pause[l->pauses] = *ev;
	l->pauses++;
}

static void ob_end(void *user, const struct roce_flow_stats *f, enum roce_flow_end_reason why)
{
	struct obs_log *l = user;

	if (l->ends < 4) {
		l->end[l->ends] = *f;
		l->why[l->ends] = why;
	}
	l->ends++;
}

static void observe(struct t *t, struct obs_log *l)
{
	struct roce_analyzer_observer o = {
		.size = sizeof(o), .on_frame = ob_frame, .on_anomaly = ob_anomaly,
		.on_pause = ob_pause, .on_flow_end = ob_end, .user = l,
	};

	memset(l, 0, sizeof(*l));
	CHECK_EQ_I(roce_analyzer_add_observer(t->a, &o), ROCE_OK);
}

static void t_observer_sees_every_frame(void)
{
	struct t t;
	struct obs_log l;
	struct roce_analyzer_observer none = { .size = sizeof(none) };
	int rc = ROCE_OK;

	REQUIRE(t_init_idle(&t, 0));
	observe(&t, &l);
	lossy_traffic(&t);                  /* 4 requests, 1 ACK; one gap anomaly */
	pfc(&t, 3, 100, T0 + 20 * US);      /* not RoCE: seen too */
	CHECK_EQ_U(l.frames, t.frame);
	CHECK_EQ_U(l.frames, 6);
	CHECK_EQ_U(l.roce_results, 5);
	CHECK(l.events_or & ROCE_EV_PSN_GAP);
	CHECK(l.events_or & ROCE_EV_ACK_RTT);
	CHECK_EQ_U(l.anomalies, anomalies(&t));   /* the same anomalies as config.on_anomaly */
	CHECK(l.anomalies >= 1);
	/* at most ROCE_MAX_OBSERVERS */
	for (int i = 1; i < ROCE_MAX_OBSERVERS; i++)
		rc |= roce_analyzer_add_observer(t.a, &none);
	CHECK_EQ_I(rc, ROCE_OK);
	CHECK_EQ_I(roce_analyzer_add_observer(t.a, &none), ROCE_E_INVAL);
	roce_analyzer_destroy(t.a);
}

static void t_stream_ids(void)
{
	struct t t;
	struct flows fl = { .n = 0 };
	uint64_t id_req, id_ack, id_other;

	REQUIRE(t_init_idle(&t, 0));
	rc(&t, 0, 0x11, ROCE_OP_RC_SEND_ONLY, 1, T0);
	id_req = t.res.stream_id;
	rc(&t, 1, 0x22, ROCE_OP_RC_ACKNOWLEDGE, 1, T0 + US);
	id_ack = t.res.stream_id;
	rc(&t, 0, 0x33, ROCE_OP_RC_SEND_ONLY, 7, T0 + 2 * US);
	id_other = t.res.stream_id;
	rc(&t, 0, 0x11, ROCE_OP_RC_SEND_ONLY, 2, T0 + 3 * US);
	CHECK(id_req != 0 && id_ack != 0 && id_other != 0);
	CHECK(id_req != id_ack && id_req != id_other && id_ack != id_other);
	CHECK_EQ_U(t.res.stream_id, id_req);    /* same stream, same id */
	pfc(&t, 1, 10, T0 + 4 * US);
	CHECK_EQ_U(t.res.stream_id, 0);         /* no stream */
	roce_analyzer_foreach_flow(t.a, collect, &fl);
	REQUIRE(fl.n == 3);
	CHECK_EQ_U(fl.f[0].id, id_req);
	CHECK_EQ_U(fl.f[1].id, id_ack);
	CHECK_EQ_U(fl.f[2].id, id_other);
	roce_analyzer_destroy(t.a);
}

static void t_idle_expiry(void)
{
	struct t t;
	struct obs_log l;
	struct roce_summary before, after;
	struct flows fl = { .n = 0 };
	uint64_t id_req;

	REQUIRE(t_init_idle(&t, 1 * MS));
	observe(&t, &l);
	lossy_traffic(&t);                  /* streams 0x11 (requests) and 0x22 (ACK) */
	roce_analyzer_foreach_flow(t.a, collect, &fl);
	REQUIRE(fl.n == 2);
	id_req = fl.f[0].id;
	roce_analyzer_summary(t.a, &before);
	CHECK_EQ_U(l.ends, 0);
	/* another stream 5 ms later: its frames' sweep expires the idle ones */
	rc(&t, 0, 0x55, ROCE_OP_RC_SEND_ONLY, 9, T0 + 5 * MS);
	CHECK_EQ_U(l.ends, 2);
	REQUIRE(l.ends >= 1);
	CHECK_EQ_I(l.why[0], ROCE_FLOW_END_EXPIRED);
	CHECK_EQ_U(l.end[0].id, id_req);
	CHECK_EQ_U(l.end[0].frames, 4);             /* final stats */
	CHECK_EQ_U(l.end[0].psn_gaps, 1);
	CHECK_EQ_U(l.end[0].unrecovered_psns, 1);
	CHECK_EQ_U(l.end[0].rtt.count, 2);
	roce_analyzer_summary(t.a, &after);
	CHECK_EQ_U(after.expired_flows, 2);
	CHECK_EQ_U(after.flows_active, 1);
	CHECK_EQ_U(after.evicted_flows, 0);
	/* totals unchanged by expiry (plus the new frame) */
	CHECK_EQ_U(after.psn_gaps, before.psn_gaps);
	CHECK_EQ_U(after.unrecovered_psns, before.unrecovered_psns);
	CHECK_EQ_U(after.acks, before.acks);
	CHECK_EQ_U(after.frames, before.frames + 1);
	/* advance: the last stream expires, once; nothing fires twice */
	roce_analyzer_advance(t.a, T0 + 7 * MS);
	CHECK_EQ_U(l.ends, 3);
	roce_analyzer_advance(t.a, T0 + 9 * MS);
	rc(&t, 0, 0x66, ROCE_OP_RC_SEND_ONLY, 1, T0 + 9 * MS);
	CHECK_EQ_U(l.ends, 3);
	roce_analyzer_finish(t.a);
	roce_analyzer_summary(t.a, &after);
	CHECK_EQ_U(after.unrecovered_psns, 1);
	CHECK_EQ_U(after.expired_flows, 3);
	CHECK_EQ_U(after.flows, 4);
	roce_analyzer_destroy(t.a);
}

static void t_pause_events(void)
{
	struct t t;
	struct obs_log l;
	struct roce_pfc_stats p;
	uint64_t d = roce_pause_quanta_ns(100.0, 0xffff);   /* 335.5 us at 100 Gb/s */

	REQUIRE(t_init_idle(&t, 0));
	observe(&t, &l);
	pfc(&t, 3, 0xffff, T0);
	roce_analyzer_advance(t.a, T0 + d / 2);
	memset(&p, 0, sizeof(p));
	roce_analyzer_foreach_pfc(t.a, first_pfc, &p);
	CHECK(p.paused);
	CHECK_EQ_U(p.pause_start_ns, T0);
	CHECK_EQ_U(p.paused_ns, d / 2);             /* open pause counted up to now */
	CHECK_EQ_U(l.pauses, 0);
	roce_analyzer_advance(t.a, T0 + d + 1);     /* deadline passed */
	CHECK_EQ_U(l.pauses, 1);
	CHECK_EQ_U(l.pause[0].start_ns, T0);
	CHECK_EQ_U(l.pause[0].end_ns, T0 + d);
	CHECK_EQ_U(l.pause[0].priority, 3);
	CHECK_EQ_U(l.pause[0].start_frame, 1);
	CHECK(memcmp(l.pause[0].src_mac, mac_a, 6) == 0);
	/* XOFF then XON: the interval ends at the XON */
	pfc(&t, 3, 0xffff, T0 + 1 * MS);
	pfc(&t, 3, 0, T0 + 1 * MS + 50 * US);
	CHECK_EQ_U(l.pauses, 2);
	CHECK_EQ_U(l.pause[1].start_ns, T0 + 1 * MS);
	CHECK_EQ_U(l.pause[1].end_ns, T0 + 1 * MS + 50 * US);
	CHECK_EQ_U(l.pause[1].start_frame, 2);
	memset(&p, 0, sizeof(p));
	roce_analyzer_foreach_pfc(t.a, first_pfc, &p);
	CHECK(!p.paused);
	CHECK_EQ_U(p.paused_ns, d + 50 * US);
	/* snapshot == finish once nothing is open */
	roce_analyzer_finish(t.a);
	CHECK_EQ_U(l.pauses, 2);
	memset(&p, 0, sizeof(p));
	roce_analyzer_foreach_pfc(t.a, first_pfc, &p);
	CHECK_EQ_U(p.paused_ns, d + 50 * US);
	roce_analyzer_destroy(t.a);
}

static void t_struct_sizes(void)
{
	struct roce_analyzer_config cfg;
	struct roce_summary s;
	char err[ROCE_ERRBUF_SIZE];
	roce_analyzer_t *a;
	struct t t;
	struct obs_log l;

	roce_analyzer_config_init(&cfg);
	CHECK_EQ_U(cfg.size, sizeof(cfg));
	/* a caller built before idle_timeout_ns existed: that member is not read */
	cfg.idle_timeout_ns = 1;
	cfg.size = (uint32_t)offsetof(struct roce_analyzer_config, idle_timeout_ns);
	a = roce_analyzer_create(&cfg, err);
	REQUIRE(a);
	memset(&t, 0, sizeof(t));
	t.a = a;
	observe(&t, &l);
	rc(&t, 0, 0x11, ROCE_OP_RC_SEND_ONLY, 1, T0);
	rc(&t, 0, 0x12, ROCE_OP_RC_SEND_ONLY, 1, T0 + 10 * MS);
	roce_analyzer_advance(a, T0 + 20 * MS);
	CHECK_EQ_U(l.ends, 0);                      /* no expiry: default 0 kept */
	/* a summary of an older, shorter layout: the rest is not written */
	memset(&s, 0xab, sizeof(s));
	roce_analyzer_summary_sized(a, &s, offsetof(struct roce_summary, expired_flows));
	CHECK_EQ_U(s.size, offsetof(struct roce_summary, expired_flows));
	CHECK_EQ_U(s.frames, 2);
	CHECK_EQ_U(s.expired_flows, 0xababababababababull);
	roce_analyzer_destroy(a);
}

/* roce_analyzer_prefetch_wanted(): no while the slot array is small, yes once it is not. */
static void t_prefetch_wanted(void)
{
	struct t t;

	REQUIRE(t_init_idle(&t, 0));
	CHECK(!roce_analyzer_prefetch_wanted(t.a));
	for (uint32_t qp = 1; qp <= 9000; qp++)      /* 9,000 streams: 32,768 slots */
		rc(&t, 0, qp, ROCE_OP_RC_SEND_ONLY, 1, T0 + qp * US);
	CHECK(roce_analyzer_prefetch_wanted(t.a));
	roce_analyzer_destroy(t.a);
}

/* roce_analyzer_prefetch_slot(): a token for a frame it can place, 0 for one it cannot. */
static void t_prefetch_slot(void)
{
	uint8_t buf[256];
	size_t len = 0;
	struct roce_frame_spec s;
	struct t t;

	REQUIRE(t_init_idle(&t, 0));
	for (uint32_t qp = 1; qp <= 9000; qp++)
		rc(&t, 0, qp, ROCE_OP_RC_SEND_ONLY, 1, T0 + qp * US);
	roce_frame_spec_init(&s);
	s.bth.opcode = ROCE_OP_RC_SEND_ONLY;
	s.bth.dqpn = 5;
	REQUIRE(roce_build(&s, buf, sizeof(buf), &len) == ROCE_OK);
	CHECK(roce_analyzer_prefetch_slot(t.a, ROCE_LINKTYPE_ETHERNET, buf, len) != 0);
	CHECK_EQ_U(roce_analyzer_prefetch_slot(t.a, ROCE_LINKTYPE_ETHERNET, buf, 20), 0);
	roce_analyzer_prefetch_stream(t.a, 0);
	roce_analyzer_prefetch_stream(t.a, 12345);
	roce_analyzer_destroy(t.a);
}

/*
 * The frame in buf to t (as it is: after a prefetch, its hint is used) and to u
 * from a buffer of its own, never prefetched: the same stream.  t's stream id.
 */
static uint64_t feed2(struct t *t, struct t *u, const uint8_t *buf, size_t len, uint64_t ts)
{
	uint8_t copy[512];

	memcpy(copy, buf, len);
	feed_buf(t, buf, len, ts);
	feed_buf(u, copy, len, ts);
	CHECK_EQ_U(t->res.stream_id, u->res.stream_id);
	return t->res.stream_id;
}

static uint64_t rc2(struct t *t, struct t *u, int from, uint32_t qp, uint32_t psn, uint64_t ts)
{
	uint8_t buf[512];
	size_t len = rc_build(from, qp, ROCE_OP_RC_SEND_ONLY, psn, buf);

	return len ? feed2(t, u, buf, len, ts) : 0;
}

static bool prefetch(struct t *t, const uint8_t *buf, size_t len)
{
	return roce_analyzer_prefetch_slot(t->a, ROCE_LINKTYPE_ETHERNET, buf, len) != 0;
}

/*
 * The hash roce_analyzer_prefetch_slot() keeps for flow_get() (a hint by the
 * frame's address), against an analyzer fed the same frames never prefetched:
 * the frame is still its stream's after the table grew between the prefetch
 * and the frame; a buffer prefetched with one frame and processed with another
 * (a reused buffer: the same address, another key) goes to the other frame's
 * stream, existing or new, which later frames find without a hint; a ring of
 * hints all for one address; the same summary at the end.
 */
static void t_prefetch_hint(void)
{
	uint8_t b[4][512];
	size_t n[4];
	uint64_t ts = T0, id;
	struct roce_summary s1, s2;
	struct t t, u;

	REQUIRE(t_init_idle(&t, 0));
	REQUIRE(t_init_idle(&u, 0));
	for (uint32_t qp = 1; qp <= 9000; qp++)
		rc2(&t, &u, 0, qp, 1, ts += US);
	REQUIRE(roce_analyzer_prefetch_wanted(t.a));
	/* an existing stream and a new one prefetched, then 8,000 more: the slot array doubles */
	n[0] = rc_build(0, 77, ROCE_OP_RC_SEND_ONLY, 2, b[0]);
	n[1] = rc_build(1, 0x500000, ROCE_OP_RC_SEND_ONLY, 1, b[1]);
	CHECK(prefetch(&t, b[0], n[0]));
	CHECK(prefetch(&t, b[1], n[1]));
	for (uint32_t qp = 9001; qp <= 17000; qp++)
		rc2(&t, &u, 0, qp, 1, ts += US);
	CHECK_EQ_U(feed2(&t, &u, b[0], n[0], ts += US), 77);
	CHECK_EQ_U(feed2(&t, &u, b[1], n[1], ts += US), 17001);         /* new */
	CHECK_EQ_U(rc2(&t, &u, 1, 0x500000, 2, ts += US), 17001);
	/* a buffer prefetched with one frame, then filled with a new stream's */
	n[0] = rc_build(0, 78, ROCE_OP_RC_SEND_ONLY, 2, b[0]);
	CHECK(prefetch(&t, b[0], n[0]));
	n[0] = rc_build(1, 0x600000, ROCE_OP_RC_SEND_ONLY, 1, b[0]);
	CHECK_EQ_U(feed2(&t, &u, b[0], n[0], ts += US), 17002);
	CHECK_EQ_U(rc2(&t, &u, 1, 0x600000, 2, ts += US), 17002);
	/* ... with an existing stream's */
	n[0] = rc_build(0, 79, ROCE_OP_RC_SEND_ONLY, 2, b[0]);
	CHECK(prefetch(&t, b[0], n[0]));
	n[0] = rc_build(0, 80, ROCE_OP_RC_SEND_ONLY, 2, b[0]);
	CHECK_EQ_U(feed2(&t, &u, b[0], n[0], ts += US), 80);
	CHECK_EQ_U(rc2(&t, &u, 0, 79, 2, ts += US), 79);
	/* every hint of the ring for one address, other frames processed there */
	for (unsigned i = 0; i < 6; i++) {
		n[2] = rc_build(0, 100 + i, ROCE_OP_RC_SEND_ONLY, 2, b[2]);
		CHECK(prefetch(&t, b[2], n[2]));
	}
	n[2] = rc_build(0, 0x700000, ROCE_OP_RC_SEND_ONLY, 1, b[2]);
	CHECK_EQ_U(feed2(&t, &u, b[2], n[2], ts += US), 17003);
	for (unsigned i = 0; i < 6; i++) {
		n[2] = rc_build(0, 100 + i, ROCE_OP_RC_SEND_ONLY, 2, b[2]);
		CHECK_EQ_U(feed2(&t, &u, b[2], n[2], ts += US), 100 + i);
	}
	CHECK_EQ_U(rc2(&t, &u, 0, 0x700000, 2, ts += US), 17003);
	/* a cut frame prefetched, the whole one processed at its address */
	n[3] = rc_build(1, 0x800000, ROCE_OP_RC_SEND_ONLY, 1, b[3]);
	CHECK(!prefetch(&t, b[3], 40));
	id = feed2(&t, &u, b[3], n[3], ts += US);
	CHECK_EQ_U(id, 17004);
	roce_analyzer_summary(t.a, &s1);
	roce_analyzer_summary(u.a, &s2);
	CHECK_EQ_U(s1.flows, 17004);
	CHECK_EQ_U(s2.flows, 17004);
	CHECK(memcmp(&s1, &s2, sizeof(s1)) == 0);
	roce_analyzer_destroy(t.a);
	roce_analyzer_destroy(u.a);
}

int main(void)
{
	RUN(t_snapshot_equals_finish);
	RUN(t_prefetch_slot);
	RUN(t_observer_sees_every_frame);
	RUN(t_stream_ids);
	RUN(t_idle_expiry);
	RUN(t_pause_events);
	RUN(t_struct_sizes);
	RUN(t_prefetch_wanted);
	RUN(t_prefetch_hint);
	return check_report();
}
