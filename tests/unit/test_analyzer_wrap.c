// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_analyzer_wrap.c - a stream's frames and ecn_capable keep their low 32 bits
 * in the stream record (struct an_fstat) and carry each wrap into the event-counter
 * block (an_flow_carry()): the exported counts must go on past 2^32, for a stream
 * with no event block before the wrap and for one that has one, with the CNP block
 * (struct an_lat_x, reached through the event-counter block) kept across it, and
 * the eviction anomaly must print the whole frame count.  The record is set just
 * below the wrap by hand (4 G frames are not fed).
 */
#include <inttypes.h>
#include <stdio.h>

#include "../../lib/src/an_internal.h"
#include "an_testlib.h"

static struct an_flow *first_flow(struct t *t)
{
	return (struct an_flow *)an_dense_at(&t->a->flows, 0);
}

/* An A -> B SEND with ECN bits ecn. */
static void send_ecn(struct t *t, uint32_t psn, uint8_t ecn, uint64_t ts)
{
	struct roce_frame_spec s;

	req_spec(&s, ROCE_OP_RC_SEND_ONLY, psn, false, 16, 0);
	s.tclass = ecn;
	feed(t, &s, ts);
}

/* A CNP on the stream A -> B (its key: A, B, B's QP). */
static void cnp(struct t *t, uint64_t ts)
{
	struct roce_frame_spec s;

	spec_dir(&s, true, ROCE_OP_CNP, 0);
	s.bth.becn = 1;
	feed(t, &s, ts);
}

static void wrap(bool events_first)
{
	struct t t;
	struct flows fl;
	struct an_flow *f;
	const struct roce_flow_stats *o;
	const uint64_t w = UINT64_C(1) << 32;

	t_init(&t, 1024);
	send_ecn(&t, 0, 2, 1 * US);
	if (events_first)
		cnp(&t, 2 * US);
	f = first_flow(&t);
	CHECK(f != NULL);
	if (!f) {
		t_done(&t);
		return;
	}
	CHECK((f->ctr != NULL) == events_first);
	CHECK(f->st.frames == (events_first ? 2u : 1u));
	f->st.frames = UINT32_MAX;
	f->st.ecn_capable = UINT32_MAX - 1;
	send_ecn(&t, 1, 1, 3 * US);     /* ecn_capable reaches 2^32 - 1, frames wrap */
	CHECK(f->ctr != NULL);
	send_ecn(&t, 2, 2, 4 * US);     /* ecn_capable wraps */
	send_ecn(&t, 3, 0, 5 * US);     /* not ECN-capable */
	cnp(&t, 6 * US);
	flows_get(&t, &fl);
	o = req_flow(&fl);
	CHECK(o != NULL);
	if (o) {
		CHECK_EQ_U(o->frames, w + 3);
		CHECK_EQ_U(o->ecn_capable, w);
		CHECK_EQ_U(o->cnps, events_first ? 2 : 1);
		CHECK_EQ_U(o->psn_gaps, 0);
	}
	t_done(&t);
}

/* The eviction anomaly of a stream past 2^32 frames prints all of them. */
static void test_evicted(void)
{
	struct roce_analyzer_config cfg;
	struct roce_frame_spec s;
	struct t t;
	struct an_flow *f;
	char want[64];

	roce_analyzer_config_init(&cfg);
	cfg.max_flows = 1;
	t_init_cfg(&t, &cfg);
	send_only(&t, 0, 1 * US);
	f = first_flow(&t);
	CHECK(f != NULL);
	if (!f) {
		t_done(&t);
		return;
	}
	f->st.frames = UINT32_MAX;
	send_only(&t, 1, 2 * US);       /* 2^32 frames */
	spec_dir(&s, false, ROCE_OP_RC_SEND_ONLY, 5);   /* another stream: evicts the first */
	feed(&t, &s, 3 * US);
	CHECK_EQ_U(t.an[ROCE_AN_FLOW_EVICTED], 1);
	snprintf(want, sizeof(want), "after %" PRIu64 " frames", UINT64_C(1) << 32);
	CHECK(strstr(t.last_an[ROCE_AN_FLOW_EVICTED].detail, want) != NULL);
	t_done(&t);
}

/* no event block before the wrap: the carry allocates it */
static void test_wrap_plain(void)
{
	wrap(false);
}

/* an event block and a CNP block before the wrap */
static void test_wrap_events(void)
{
	wrap(true);
}

int main(void)
{
	RUN(test_wrap_plain);
	RUN(test_wrap_events);
	RUN(test_evicted);
	return check_report();
}
