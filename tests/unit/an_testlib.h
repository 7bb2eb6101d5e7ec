/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * an_testlib.h - shared by test_analyzer.c, test_analyzer_events.c and
 * test_analyzer_api.c: two hosts A and B, frames built by roce_build and fed through
 * roce_decode + roce_analyzer_process, the anomalies seen, the streams collected, and the
 * check that the streams' counters add up to the summary's.
 */
#ifndef ROCE_AN_TESTLIB_H
#define ROCE_AN_TESTLIB_H

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

static inline void on_an(void *user, const struct roce_anomaly *an)
{
	struct t *t = user;

	if ((unsigned)an->type < ROCE_AN_COUNT) {
		t->an[an->type]++;
		t->last_an[an->type] = *an;
	}
}

static inline void t_init_cfg(struct t *t, struct roce_analyzer_config *cfg)
{
	char err[ROCE_ERRBUF_SIZE];

	memset(t, 0, sizeof(*t));
	cfg->on_anomaly = on_an;
	cfg->user = t;
	t->a = roce_analyzer_create(cfg, err);
	if (!t->a)
		fprintf(stderr, "create: %s\n", err);
}

static inline void t_init(struct t *t, uint32_t pmtu)
{
	struct roce_analyzer_config cfg;

	roce_analyzer_config_init(&cfg);
	cfg.pmtu = pmtu;
	t_init_cfg(t, &cfg);
}

static inline void t_done(struct t *t)
{
	roce_analyzer_destroy(t->a);
	t->a = NULL;
}

static inline void feed_buf(struct t *t, const uint8_t *buf, size_t len, uint64_t ts)
{
	struct roce_pkt pkt;

	t->status = roce_decode(ROCE_LINKTYPE_ETHERNET, buf, len, len, NULL, &pkt);
	roce_analyzer_process(t->a, &pkt, t->status, ts, ++t->frame, &t->res);
}

static inline void feed(struct t *t, const struct roce_frame_spec *s, uint64_t ts)
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

static inline void spec_dir(struct roce_frame_spec *s, bool a_to_b, uint8_t opcode, uint32_t psn)
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

/* An A -> B request's spec. */
static inline void req_spec(struct roce_frame_spec *s, uint8_t opcode, uint32_t psn, bool ackreq,
	uint32_t payload, uint32_t dma_len)
{
	spec_dir(s, true, opcode, psn);
	s->bth.ackreq = ackreq;
	s->payload_len = payload;
	s->reth.dma_len = dma_len;
	s->deth.src_qp = 0x33;
	s->deth.qkey = 0x11111111;
}

/* A -> B request. */
static inline void req(struct t *t, uint8_t opcode, uint32_t psn, bool ackreq, uint32_t payload,
	uint32_t dma_len, uint64_t ts)
{
	struct roce_frame_spec s;

	req_spec(&s, opcode, psn, ackreq, payload, dma_len);
	feed(t, &s, ts);
}

static inline void send_only(struct t *t, uint32_t psn, uint64_t ts)
{
	req(t, ROCE_OP_RC_SEND_ONLY, psn, true, 16, 0, ts);
}

/* A B -> A response's / ACK's spec. */
static inline void resp_spec(struct roce_frame_spec *s, uint8_t opcode, uint32_t psn,
	uint8_t syndrome, uint32_t payload)
{
	spec_dir(s, false, opcode, psn);
	s->aeth.syndrome = syndrome;
	s->aeth.msn = 1;
	s->payload_len = payload;
}

/* B -> A response / ACK. */
static inline void resp(struct t *t, uint8_t opcode, uint32_t psn, uint8_t syndrome,
	uint32_t payload, uint64_t ts)
{
	struct roce_frame_spec s;

	resp_spec(&s, opcode, psn, syndrome, payload);
	feed(t, &s, ts);
}

static inline void sum(struct t *t, struct roce_summary *s)
{
	roce_analyzer_summary(t->a, s);
}

struct flows {
	struct roce_flow_stats f[8];
	unsigned n;
};

static inline int collect(void *user, const struct roce_flow_stats *f)
{
	struct flows *fl = user;

	if (fl->n < 8)
		fl->f[fl->n++] = *f;
	return 0;
}

static inline void flows_get(struct t *t, struct flows *fl)
{
	memset(fl, 0, sizeof(*fl));
	roce_analyzer_foreach_flow(t->a, collect, fl);
}

static inline const struct roce_flow_stats *req_flow(const struct flows *fl)
{
	for (unsigned i = 0; i < fl->n; i++)
		if (fl->f[i].key.dqpn == QP_B)
			return &fl->f[i];
	return NULL;
}

static inline const struct roce_flow_stats *resp_flow(const struct flows *fl)
{
	for (unsigned i = 0; i < fl->n; i++)
		if (fl->f[i].key.dqpn == QP_A)
			return &fl->f[i];
	return NULL;
}

/* Every priority's PFC statistics, as roce_analyzer_foreach_pfc() reports them. */
struct pfcs {
	struct roce_pfc_stats p[8];
	unsigned n;
};

static inline int collect_pfc(void *user, const struct roce_pfc_stats *p)
{
	struct pfcs *v = user;

	if (v->n < 8)
		v->p[v->n++] = *p;
	return 0;
}

static inline const struct roce_pfc_stats *pfc_of(const struct pfcs *v, int prio)
{
	for (unsigned i = 0; i < v->n; i++)
		if (v->p[i].priority == prio)
			return &v->p[i];
	return NULL;
}

/*
 * Each event is counted once, on the run and on the frame's stream together:
 * the streams' counters add up to the summary's, field by field.  Frames
 * without a stream (malformed before the BTH, unknown opcodes) count in the
 * summary only: with may_lack_stream their ICRC/malformed/ECN totals may
 * exceed the streams'.
 */
static inline void check_counters_add_up(struct t *t, bool may_lack_stream)
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
	uint64_t acked = 0, copies = 0;

	for (unsigned i = 0; i < fl.n; i++) {
		const uint64_t *fv = (const uint64_t *)&fl.f[i].counters;

		acked += fl.f[i].acked_unseen_psns;
		copies += fl.f[i].capture_copies;
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
	CHECK_EQ_U(acked, s.acked_unseen_psns);     /* (a member past the counters) */
	CHECK_EQ_U(copies, s.capture_copies);
	/* the anonymous members are the named struct's fields */
	CHECK_EQ_U(s.psn_gaps, s.counters.psn_gaps);
	CHECK(&s.malformed == &s.counters.malformed);
}


/* The pause intervals the analyzer reported (observer on_pause), from watch_pauses(). */
struct pev {
	struct roce_pause_event e[32];
	unsigned n;
};

static inline void on_pause(void *user, const struct roce_pause_event *ev)
{
	struct pev *p = user;

	if (p->n < 32)
		p->e[p->n++] = *ev;
}

/* Collect t's pause events into p (emptied first). */
static inline void watch_pauses(struct t *t, struct pev *p)
{
	struct roce_analyzer_observer o;

	memset(&o, 0, sizeof(o));
	memset(p, 0, sizeof(*p));
	o.size = sizeof(o);
	o.on_pause = on_pause;
	o.user = p;
	REQUIRE(roce_analyzer_add_observer(t->a, &o) == ROCE_OK);
}

#endif
