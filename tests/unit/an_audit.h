/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * an_audit.h - the harness of test_analyzer_audit.c and test_analyzer_audit_events.c
 * over an_testlib.h: every frame goes to the fixture's analyzer through
 * roce_analyzer_process() and to a second one the way roce-analyze feeds it
 * (roce_analyzer_decode_process() with its decoder options: header prediction
 * and the in-order fast paths); a_done() finishes both and requires their
 * counters, run and streams, to be equal.
 */
#ifndef ROCE_AN_AUDIT_H
#define ROCE_AN_AUDIT_H

#include "an_testlib.h"

/* The second analyzer (roce-analyze's entry) and its decoder options. */
static roce_analyzer_t *xa;
static struct roce_decode_opts xopts;

static inline void a_init_cfg(struct t *t, struct roce_analyzer_config *cfg)
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

static inline void a_init(struct t *t, uint32_t pmtu)
{
	struct roce_analyzer_config cfg;

	roce_analyzer_config_init(&cfg);
	cfg.pmtu = pmtu;
	a_init_cfg(t, &cfg);
}

/* a_init() with the capture-copy window window_ns (copy_window_ns; 0: the rule off). */
static inline void a_init_window(struct t *t, uint32_t pmtu, uint64_t window_ns)
{
	struct roce_analyzer_config cfg;

	roce_analyzer_config_init(&cfg);
	cfg.pmtu = pmtu;
	cfg.copy_window_ns = window_ns;
	a_init_cfg(t, &cfg);
}

/* a_init() with the capture-copy rule off (copy_window_ns 0): for scenarios that repeat a
 * frame within microseconds with nothing between, which the rule would take for capture
 * copies (test_analyzer_copies.c has those). */
static inline void a_init_nocopy(struct t *t, uint32_t pmtu)
{
	a_init_window(t, pmtu, 0);
}

/* One frame to both analyzers. */
static inline void xfeed_buf(struct t *t, const uint8_t *buf, size_t len, size_t caplen,
	uint64_t ts)
{
	struct roce_pkt pkt;

	t->status = roce_decode(ROCE_LINKTYPE_ETHERNET, buf, caplen, len, NULL, &pkt);
	roce_analyzer_process(t->a, &pkt, t->status, ts, ++t->frame, &t->res);
	if (xa)
		roce_analyzer_decode_process(xa, ROCE_LINKTYPE_ETHERNET, buf, caplen, len, &xopts,
			ts, t->frame);
}

static inline void xfeed(struct t *t, const struct roce_frame_spec *s, uint64_t ts)
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
static inline void rq(struct t *t, uint8_t opcode, uint32_t psn, bool ackreq, uint32_t payload,
	uint32_t dma_len, uint64_t ts)
{
	struct roce_frame_spec s;

	req_spec(&s, opcode, psn, ackreq, payload, dma_len);
	xfeed(t, &s, ts);
}

static inline void snd(struct t *t, uint32_t psn, uint64_t ts)
{
	rq(t, ROCE_OP_RC_SEND_ONLY, psn, true, 16, 0, ts);
}

/* B -> A response / ACK / NAK (an_testlib.h's resp() through both analyzers). */
static inline void rs(struct t *t, uint8_t opcode, uint32_t psn, uint8_t syndrome,
	uint32_t payload, uint64_t ts)
{
	struct roce_frame_spec s;

	resp_spec(&s, opcode, psn, syndrome, payload);
	xfeed(t, &s, ts);
}

static inline void ack(struct t *t, uint32_t psn, uint64_t ts)
{
	rs(t, ROCE_OP_RC_ACKNOWLEDGE, psn, 0x1f, 0, ts);
}

static inline void nak(struct t *t, uint32_t psn, uint8_t syndrome, uint64_t ts)
{
	rs(t, ROCE_OP_RC_ACKNOWLEDGE, psn, syndrome, 0, ts);
}

static inline int x_collect(void *user, const struct roce_flow_stats *f)
{
	return collect(user, f);
}

/*
 * Finish both analyzers and compare them: the run's counters and totals, and
 * every stream's counters, frames and latency counts (same first-seen order).
 */
static inline void x_compare(struct t *t)
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
	CHECK_EQ_U(s.acked_unseen_psns, x.acked_unseen_psns);
	CHECK_EQ_U(s.capture_copies, x.capture_copies);
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
		CHECK_EQ_U(p->acked_unseen_psns, q->acked_unseen_psns);
		CHECK_EQ_U(p->capture_copies, q->capture_copies);
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

static inline void a_done(struct t *t)
{
	x_compare(t);
	roce_analyzer_destroy(xa);
	xa = NULL;
	t_done(t);
}

/*
 * EACH_BASE(fn): test_fn(), which runs run_fn(base) for every PSN base of the file's
 * static bases[] (an initial PSN far from the wrap and ones just before it)
 */
#define EACH_BASE(fn) \
	static void test_##fn(void) \
	{ \
		for (unsigned i = 0; i < sizeof(bases) / sizeof(bases[0]); i++) \
			run_##fn(bases[i]); \
	}

#endif
