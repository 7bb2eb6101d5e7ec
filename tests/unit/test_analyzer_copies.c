// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_analyzer_copies.c - capture copies (lib/src/an_copy.c, docs/json.md
 * "Capture copies"): a frame the capture carried twice (tcpdump -i any with a
 * VLAN sub-interface, two pcapng interfaces on one link, a SPAN of ingress and
 * egress) counts in capture_copies and in nothing else of the sequencing; a
 * resend (timeout: 8.192 us at least, IBTA 9.7.6.1.3; NAK / RNR NAK of its PSN
 * or an earlier one between; an implicit NAK) stays a retransmission, copies
 * interleaved with other frames of their stream included.  Every scenario runs through
 * an_audit.h's two analyzers (roce_analyzer_process() and roce-analyze's
 * decode_process() entry with its fast paths) and their counters must agree.
 */
#include <stdio.h>

#include "an_audit.h"

static const uint32_t bases[] = { 100, 0xfffffe };

static uint32_t P_(uint32_t b, uint32_t k)
{
	return (b + k) & 0xffffffu;
}

/* A frame of a scenario: a request (A -> B) or a response (B -> A). */
struct fr {
	bool req;
	uint8_t op;
	uint32_t psn;           /* offset from the base */
	uint8_t syn;            /* responses: AETH syndrome */
	uint32_t payload, dma;
	uint64_t ts;
};

/* Feed frames fs[0..n) with base b; copies: every frame again `lag` ns later, right
 * after it, or (merge) the originals and the copies merged by time stamp, as a mirror
 * port writes them (at one stamp the original first, then in list order).  copy_ev[i]
 * gets the events of frame i's copy (when copies). */
static void run(struct t *t, uint32_t b, const struct fr *fs, unsigned n, bool copies,
	uint64_t lag, bool merge, uint32_t *ev, uint32_t *copy_ev)
{
	unsigned ord[64], m = 0;

	REQUIRE(n <= 32);
	for (unsigned i = 0; i < n; i++)
		for (unsigned k = 0; k < (copies ? 2u : 1u); k++)
			ord[m++] = 2 * i + k;
	/* (insertion sort by stamp, copy after original, list order: stable) */
	for (unsigned j = 1; merge && j < m; j++) {
		unsigned x = ord[j], y = j;
		uint64_t tx = fs[x / 2].ts + (x & 1) * lag;

		while (y > 0) {
			unsigned w = ord[y - 1];
			uint64_t tw = fs[w / 2].ts + (w & 1) * lag;

			if (tw < tx || (tw == tx && ((w & 1) < (x & 1) ||
						     ((w & 1) == (x & 1) && w < x))))
				break;
			ord[y] = w;
			y--;
		}
		ord[y] = x;
	}
	for (unsigned j = 0; j < m; j++) {
		unsigned i = ord[j] / 2, k = ord[j] & 1;
		const struct fr *f = &fs[i];
		uint64_t ts = f->ts + k * lag;
		uint32_t p = (b + f->psn) & 0xffffffu;

		if (f->req)
			rq(t, f->op, p, true, f->payload, f->dma, ts);
		else
			rs(t, f->op, p, f->syn, f->payload, ts);
		if (k == 0 && ev)
			ev[i] = t->res.events;
		if (k == 1 && copy_ev)
			copy_ev[i] = t->res.events;
	}
	roce_analyzer_finish(t->a);
}

/* The doubled scenario analyses as the single one: every counter, stream by stream,
 * the latencies' counts, the frames' own events; each copy carries CAPTURE_COPY only.
 * merge: the copies merged by time stamp (run()). */
static void same_as_single_m(uint32_t b, const struct fr *fs, unsigned n, uint32_t pmtu,
	uint64_t lag, bool merge)
{
	struct t t1, t2;
	struct roce_summary s1, s2;
	struct flows f1, f2;
	uint32_t ev1[32], ev2[32], cev[32];

	REQUIRE(n <= 32);
	a_init(&t1, pmtu);
	REQUIRE(t1.a && xa);
	run(&t1, b, fs, n, false, 0, false, ev1, NULL);
	sum(&t1, &s1);
	flows_get(&t1, &f1);
	CHECK_EQ_U(s1.capture_copies, 0);
	a_done(&t1);

	a_init(&t2, pmtu);
	REQUIRE(t2.a && xa);
	run(&t2, b, fs, n, true, lag, merge, ev2, cev);
	sum(&t2, &s2);
	flows_get(&t2, &f2);
	check_counters_add_up(&t2, false);
	a_done(&t2);

	CHECK_EQ_U(s2.capture_copies, n);
	CHECK(memcmp(&s1.counters, &s2.counters, sizeof(s1.counters)) == 0);
	CHECK_EQ_U(s1.duplicates, s2.duplicates);
	CHECK_EQ_U(s1.retransmissions, s2.retransmissions);
	CHECK_EQ_U(s1.acks, s2.acks);
	CHECK_EQ_U(s1.acked_unseen_psns, s2.acked_unseen_psns);
	CHECK_EQ_U(s2.frames, 2 * s1.frames);
	CHECK_EQ_U(s2.roce_frames, 2 * s1.roce_frames);
	REQUIRE(f1.n == f2.n);
	uint64_t copies = 0;

	for (unsigned i = 0; i < f1.n; i++) {
		const struct roce_flow_stats *p = &f1.f[i], *q = &f2.f[i];

		CHECK(memcmp(&p->counters, &q->counters, sizeof(p->counters)) == 0);
		CHECK_EQ_U(p->messages, q->messages);
		CHECK_EQ_U(p->rtt.count, q->rtt.count);
		CHECK_EQ_U(p->rtt.max_ns, q->rtt.max_ns);
		CHECK_EQ_U(p->read_first.count, q->read_first.count);
		CHECK_EQ_U(p->read_last.count, q->read_last.count);
		CHECK_EQ_U(p->read_last.max_ns, q->read_last.max_ns);
		CHECK_EQ_U(q->frames, 2 * p->frames);
		CHECK_EQ_U(p->capture_copies, 0);
		copies += q->capture_copies;
	}
	CHECK_EQ_U(copies, n);
	for (unsigned i = 0; i < n; i++) {
		CHECK_EQ_U(ev2[i], ev1[i]);
		CHECK_EQ_U(cev[i], ROCE_EV_CAPTURE_COPY);
	}
}

static void same_as_single(uint32_t b, const struct fr *fs, unsigned n, uint32_t pmtu,
	uint64_t lag)
{
	same_as_single_m(b, fs, n, pmtu, lag, false);
}

/* A A' ACK(A) ACK(A)' B B' ...: SENDs each with AckReq, each ACKed; ACKs and requests
 * copied 100 ns later (a VLAN sub-interface under tcpdump -i any). */
static void run_adjacent(uint32_t b)
{
	static const struct fr fs[] = {
		{ true, ROCE_OP_RC_SEND_ONLY, 0, 0, 16, 0, 0 },
		{ false, ROCE_OP_RC_ACKNOWLEDGE, 0, 0x1f, 0, 0, 3 * US },
		{ true, ROCE_OP_RC_SEND_ONLY, 1, 0, 16, 0, 10 * US },
		{ true, ROCE_OP_RC_SEND_ONLY, 2, 0, 16, 0, 11 * US },
		{ false, ROCE_OP_RC_ACKNOWLEDGE, 2, 0x1f, 0, 0, 14 * US },
		{ true, ROCE_OP_RC_SEND_ONLY, 3, 0, 16, 0, 20 * US },
		{ false, ROCE_OP_RC_ACKNOWLEDGE, 3, 0x1f, 0, 0, 23 * US },
	};

	same_as_single(b, fs, sizeof(fs) / sizeof(fs[0]), 1024, 100);
	/* copies with the same timestamp (two pcapng interfaces, one clock) */
	same_as_single(b, fs, sizeof(fs) / sizeof(fs[0]), 1024, 0);
}

/* A READ of 3 packets and its responses, every frame copied; then a WRITE and its ACK. */
static void run_read(uint32_t b)
{
	static const struct fr fs[] = {
		{ true, ROCE_OP_RC_RDMA_READ_REQUEST, 0, 0, 0, 3072, 0 },
		{ false, ROCE_OP_RC_RDMA_READ_RESPONSE_FIRST, 0, 0x1f, 1024, 0, 5 * US },
		{ false, ROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE, 1, 0, 1024, 0, 6 * US },
		{ false, ROCE_OP_RC_RDMA_READ_RESPONSE_LAST, 2, 0x1f, 1024, 0, 7 * US },
		{ true, ROCE_OP_RC_RDMA_WRITE_ONLY, 3, 0, 64, 64, 20 * US },
		{ false, ROCE_OP_RC_ACKNOWLEDGE, 3, 0x1f, 0, 0, 23 * US },
	};

	same_as_single(b, fs, sizeof(fs) / sizeof(fs[0]), 1024, 200);
}

/* A request repeated `gap` ns later with nothing between: duplicate and timeout resend
 * when gap is past the window (win: copy_window_ns, 0 = the default), else a copy. */
static void resend_after(uint32_t b, uint64_t gap, uint64_t win, bool copy)
{
	struct t t;
	struct roce_summary s;
	struct roce_analyzer_config cfg;

	roce_analyzer_config_init(&cfg);
	CHECK_EQ_U(cfg.copy_window_ns, ROCE_COPY_WINDOW_NS);
	cfg.pmtu = 1024;
	if (win)
		cfg.copy_window_ns = win;
	a_init_cfg(&t, &cfg);
	REQUIRE(t.a && xa);
	snd(&t, P_(b, 0), 0);
	snd(&t, P_(b, 0), gap);
	if (copy) {
		CHECK_EQ_U(t.res.events, ROCE_EV_CAPTURE_COPY);
	} else {
		CHECK_EQ_U(t.res.events, ROCE_EV_DUPLICATE | ROCE_EV_RETRANSMISSION);
		CHECK_EQ_U(t.res.retx_cause, ROCE_RETX_TIMEOUT);
	}
	ack(&t, P_(b, 0), gap + 3 * US);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.capture_copies, copy ? 1 : 0);
	CHECK_EQ_U(s.duplicates, copy ? 0 : 1);
	CHECK_EQ_U(s.retransmissions, copy ? 0 : 1);
	CHECK_EQ_U(s.gbn_episodes[ROCE_RETX_TIMEOUT], copy ? 0 : 1);
	check_counters_add_up(&t, false);
	a_done(&t);
}

static void run_timeout_resend(uint32_t b)
{
	resend_after(b, 10 * MS, 0, false);           /* a genuine timeout resend */
	resend_after(b, 5 * US, 0, false);            /* past the 4 us window: as before */
	resend_after(b, 3 * US, 0, true);             /* inside it */
	resend_after(b, 5 * US, 6 * US, true);        /* a wider window (--copy-window=6) */
}

/*
 * NAK-driven resends within the window: b, b + 1, a NAK (sequence error) of
 * b + 1 1 us later, b + 1 again 1.5 us after the first: the same PSN as the
 * stream's previous frame, well inside 4 us, but the NAK came between: a
 * retransmission (cause nak), no copy.  The same with an RNR NAK of b + 2 (timer
 * 10 us) and b + 2 again 11 us after it (the requester resends when the timer
 * has run), with --copy-window=30: inside the window, but past the RNR NAK's
 * timer: a retransmission (cause rnr).
 */
static void run_nak_resend(uint32_t b)
{
	struct t t;
	struct roce_summary s;

	a_init_window(&t, 1024, 30 * US);
	REQUIRE(t.a && xa);
	snd(&t, P_(b, 0), 0);
	snd(&t, P_(b, 1), 500);
	nak(&t, P_(b, 1), 0x60, 1500);
	snd(&t, P_(b, 1), 2000);
	CHECK(t.res.events & ROCE_EV_RETRANSMISSION);
	CHECK(!(t.res.events & ROCE_EV_CAPTURE_COPY));
	CHECK_EQ_U(t.res.retx_cause, ROCE_RETX_NAK);
	ack(&t, P_(b, 1), 4 * US);
	snd(&t, P_(b, 2), 10 * US);
	rs(&t, ROCE_OP_RC_ACKNOWLEDGE, P_(b, 2), 0x21, 0, 11 * US);      /* RNR NAK, 10 us */
	snd(&t, P_(b, 2), 22 * US);
	CHECK(t.res.events & ROCE_EV_RETRANSMISSION);
	CHECK(!(t.res.events & ROCE_EV_CAPTURE_COPY));
	CHECK_EQ_U(t.res.retx_cause, ROCE_RETX_RNR);
	ack(&t, P_(b, 2), 24 * US);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.capture_copies, 0);
	CHECK_EQ_U(s.retransmissions, 2);
	CHECK_EQ_U(s.gbn_episodes[ROCE_RETX_NAK], 1);
	CHECK_EQ_U(s.gbn_episodes[ROCE_RETX_RNR], 1);
	check_counters_add_up(&t, false);
	a_done(&t);
}

/*
 * Copies that interleave with other frames of their stream (a mirror port whose
 * copies lag by more than the frames' spacing): b, its ACK, b + 1, then b', the
 * ACK's copy, (b + 1)': each a copy, with the peer's ordinary ACK between a
 * request and its copy and the stream's next frame between a frame and its copy.
 * And a re-ACK: b, its ACK at 3 us, b again at 4.5 us (past the window from the
 * first: a duplicate, a timeout resend), the ACK again at 5 us, 2 us after the
 * first but answering that duplicate (a request at its PSN between): no copy.
 */
static void run_between(uint32_t b)
{
	struct t t;
	struct roce_summary s;

	a_init(&t, 1024);
	REQUIRE(t.a && xa);
	snd(&t, P_(b, 0), 0);
	ack(&t, P_(b, 0), 300);
	snd(&t, P_(b, 1), 400);
	snd(&t, P_(b, 0), 2 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_CAPTURE_COPY);
	ack(&t, P_(b, 0), 2 * US + 300);
	CHECK_EQ_U(t.res.events, ROCE_EV_CAPTURE_COPY);
	snd(&t, P_(b, 1), 2 * US + 400);
	CHECK_EQ_U(t.res.events, ROCE_EV_CAPTURE_COPY);
	snd(&t, P_(b, 2), 3 * US);
	CHECK_EQ_U(t.res.events, 0);    /* (the stream's newest PSN is b + 1, not b) */
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.capture_copies, 3);
	CHECK_EQ_U(s.duplicates, 0);
	CHECK_EQ_U(s.retransmissions, 0);
	check_counters_add_up(&t, false);
	a_done(&t);

	a_init(&t, 1024);
	REQUIRE(t.a && xa);
	snd(&t, P_(b, 0), 0);
	ack(&t, P_(b, 0), 3 * US);
	snd(&t, P_(b, 0), 4500);
	CHECK_EQ_U(t.res.events, ROCE_EV_DUPLICATE | ROCE_EV_RETRANSMISSION);
	ack(&t, P_(b, 0), 5 * US);
	CHECK(!(t.res.events & ROCE_EV_CAPTURE_COPY));
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.capture_copies, 0);
	CHECK_EQ_U(s.duplicates, 1);
	check_counters_add_up(&t, false);
	a_done(&t);
}

/*
 * Genuine resends inside the window, interleaved with other frames: b .. b + 3
 * 100 ns apart, the peer's ACK of b, a NAK (sequence error) of b + 1 at 800 ns,
 * then the go-back b + 1 .. b + 3 at 1.2-1.4 us: each a retransmission (the NAK
 * is at or before its PSN), none a copy; then b's copy at 1.5 us, past the NAK
 * (of a later PSN) and the resends: a copy.  An RNR NAK alike (timer 10 us, with
 * --copy-window=30: the go-back at 11.1-11.3 us, past its timer, b's copy at
 * 11.5 us).  And an implicit
 * NAK: a READ of b .. b + 1, a WRITE of b + 2, the READ's second response
 * without its first, the READ re-issued at b and the WRITE resent, 1 us later:
 * no copies (a response past the READ before its own; a re-issued READ at or
 * before the WRITE's PSN).
 */
static void run_resend_interleaved(uint32_t b)
{
	struct t t;
	struct roce_summary s;
	uint8_t syn[] = { 0x60, 0x21 };

	for (unsigned k = 0; k < 2; k++) {
		/* (the RNR NAK's resends 10 us later) */
		uint64_t dt = k ? 10 * US : 0;

		a_init_window(&t, 1024, k ? 30 * US : ROCE_COPY_WINDOW_NS);
		REQUIRE(t.a && xa);
		for (unsigned i = 0; i < 4; i++)
			snd(&t, P_(b, i), i * 100);
		ack(&t, P_(b, 0), 400);
		nak(&t, P_(b, 1), syn[k], 800);
		for (unsigned i = 1; i < 4; i++) {
			snd(&t, P_(b, i), dt + 1100 + i * 100);
			CHECK(t.res.events & ROCE_EV_RETRANSMISSION);
			CHECK(!(t.res.events & ROCE_EV_CAPTURE_COPY));
		}
		snd(&t, P_(b, 0), dt + 1500);
		CHECK_EQ_U(t.res.events, ROCE_EV_CAPTURE_COPY);
		ack(&t, P_(b, 3), dt + 2 * US);
		roce_analyzer_finish(t.a);
		sum(&t, &s);
		CHECK_EQ_U(s.capture_copies, 1);
		CHECK_EQ_U(s.retransmissions, 3);
		check_counters_add_up(&t, false);
		a_done(&t);
	}

	a_init(&t, 1024);
	REQUIRE(t.a && xa);
	rq(&t, ROCE_OP_RC_RDMA_READ_REQUEST, P_(b, 0), true, 0, 2048, 0);
	rq(&t, ROCE_OP_RC_RDMA_WRITE_ONLY, P_(b, 2), true, 64, 64, 100);
	rs(&t, ROCE_OP_RC_RDMA_READ_RESPONSE_LAST, P_(b, 1), 0x1f, 1024, 600);
	rq(&t, ROCE_OP_RC_RDMA_READ_REQUEST, P_(b, 0), true, 0, 2048, 1000);
	CHECK(!(t.res.events & ROCE_EV_CAPTURE_COPY));
	rq(&t, ROCE_OP_RC_RDMA_WRITE_ONLY, P_(b, 2), true, 64, 64, 1100);
	CHECK(!(t.res.events & ROCE_EV_CAPTURE_COPY));
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.capture_copies, 0);
	check_counters_add_up(&t, false);
	a_done(&t);
}

/*
 * Copies after an RNR NAK (condition 3: an RNR NAK at X's PSN stops X' only
 * from its timer on, the earliest the requester resends).  A mirror, copies 1 and
 * 3.5 us late: b (a SEND), its RNR NAK (timer 10 us) 0.5 us later, b resent 12 us
 * later, its ACK: b's copy after the RNR NAK is a copy, the RNR NAK's copy too
 * (b's copy is no request between them), and the doubled capture analyses as the
 * single one.  Then by hand, --copy-window=30: an RNR NAK of b (timer 10 us) 1 us
 * after b, b again 5 us after the RNR NAK: a copy (the timer has not run); b
 * again 12 us after it: a retransmission (cause rnr), not a copy; with timer
 * code 0 (655.36 ms, not 0) b again 12 us after it: a copy.
 */
static void rnr_then(uint32_t b, uint8_t syn, uint64_t after, bool copy)
{
	struct t t;
	struct roce_summary s;

	a_init_window(&t, 1024, 30 * US);
	REQUIRE(t.a && xa);
	snd(&t, P_(b, 0), 0);
	nak(&t, P_(b, 0), syn, 1 * US);
	CHECK_EQ_U(t.res.events, ROCE_EV_RNR_NAK);
	snd(&t, P_(b, 0), 1 * US + after);
	if (copy) {
		CHECK_EQ_U(t.res.events, ROCE_EV_CAPTURE_COPY);
	} else {
		CHECK(t.res.events & ROCE_EV_RETRANSMISSION);
		CHECK(!(t.res.events & ROCE_EV_CAPTURE_COPY));
		CHECK_EQ_U(t.res.retx_cause, ROCE_RETX_RNR);
	}
	ack(&t, P_(b, 0), 2 * US + after);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.capture_copies, copy ? 1 : 0);
	CHECK_EQ_U(s.retransmissions, copy ? 0 : 1);
	CHECK_EQ_U(s.gbn_episodes[ROCE_RETX_RNR], copy ? 0 : 1);
	check_counters_add_up(&t, false);
	a_done(&t);
}

static void run_rnr_copy(uint32_t b)
{
	const struct fr fs[] = {
		{ true, ROCE_OP_RC_SEND_ONLY, 0, 0, 64, 0, 0 },
		{ false, ROCE_OP_RC_ACKNOWLEDGE, 0, 0x21, 0, 0, 500 },   /* RNR NAK, 10 us */
		{ true, ROCE_OP_RC_SEND_ONLY, 0, 0, 64, 0, 12 * US },
		{ false, ROCE_OP_RC_ACKNOWLEDGE, 0, 0x1f, 0, 0, 12 * US + 500 },
	};
	const uint64_t lags[] = { 1 * US, 3500 };

	for (unsigned i = 0; i < 2; i++)
		same_as_single_m(b, fs, 4, 1024, lags[i], true);
	rnr_then(b, 0x21, 5 * US, true);
	rnr_then(b, 0x21, 12 * US, false);
	rnr_then(b, 0x20, 12 * US, true);
}

/*
 * A mirror of a lossy link, copies 1 us late: b at 0, b + 1 lost before the
 * capture point, b + 2 at 100 (the gap), the NAK of b + 1 at 400, then the
 * copies b' at 1000, (b + 2)' at 1100 (after the NAK: its PSN is before b + 2's,
 * the requester resends b + 1 first, not yet captured), the NAK's copy at 1400;
 * the go-back b + 1, b + 2 at 1500, 1600 (retransmissions, no copies: b + 1
 * is a frame before b + 2's PSN) and their copies at 2500, 2600.
 */
static void run_nak_gap_mirror(uint32_t b)
{
	struct t t;
	struct roce_summary s;

	a_init(&t, 1024);
	REQUIRE(t.a && xa);
	for (unsigned k = 0; k < 2; k++) {
		uint64_t lag = k * 1000;

		snd(&t, P_(b, 0), lag);
		CHECK_EQ_U(t.res.events, k ? ROCE_EV_CAPTURE_COPY : 0);
		snd(&t, P_(b, 2), 100 + lag);
		CHECK_EQ_U(t.res.events, k ? ROCE_EV_CAPTURE_COPY : ROCE_EV_PSN_GAP);
		if (!k)
			nak(&t, P_(b, 1), 0x60, 400);
	}
	nak(&t, P_(b, 1), 0x60, 1400);
	CHECK_EQ_U(t.res.events, ROCE_EV_CAPTURE_COPY);
	for (unsigned k = 0; k < 2; k++) {
		snd(&t, P_(b, 1), 1500 + k * 1000);
		CHECK(!(t.res.events & ROCE_EV_RETRANSMISSION) == !!k);
		CHECK(!(t.res.events & ROCE_EV_CAPTURE_COPY) == !k);
		snd(&t, P_(b, 2), 1600 + k * 1000);
		CHECK(!(t.res.events & ROCE_EV_RETRANSMISSION) == !!k);
		CHECK(!(t.res.events & ROCE_EV_CAPTURE_COPY) == !k);
	}
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.capture_copies, 5);
	CHECK_EQ_U(s.psn_gaps, 1);
	CHECK_EQ_U(s.retransmissions, 2);
	CHECK_EQ_U(s.gbn_episodes[ROCE_RETX_NAK], 1);
	CHECK_EQ_U(s.duplicates, 1);
	CHECK_EQ_U(s.out_of_order, 1);
	check_counters_add_up(&t, false);
	a_done(&t);
}

/*
 * A mirror of a lossy link whose two NAKs come closer than its lag: b + 1 lost
 * before the capture point, b + 2 shows the gap, the NAK of b + 1 at 300, the
 * go-back b + 1 .. b + 2 and b + 3, their ACK; b + 4 lost, b + 5 shows the gap,
 * the NAK of b + 4 at 1100, the go-back b + 4, b + 5, their ACK; every frame
 * copied 1.5 us later, merged by time stamp.  The NAK of b + 1's copy (1800)
 * comes after the newer NAK of b + 4 (the requests of the go-back between it
 * and its original: b + 1 before the later ones, nothing a responder NAKs
 * again) and the ACK of b + 3's copy (2300) after the newer ACK of b + 5: each
 * a copy, and the copies after them too; the capture analyses as the single one.
 */
static void run_nak_copy_after_nak(uint32_t b)
{
	static const struct fr fs[] = {
		{ true, ROCE_OP_RC_SEND_ONLY, 0, 0, 16, 0, 0 },
		{ true, ROCE_OP_RC_SEND_ONLY, 2, 0, 16, 0, 100 },
		{ false, ROCE_OP_RC_ACKNOWLEDGE, 1, 0x60, 0, 0, 300 },
		{ true, ROCE_OP_RC_SEND_ONLY, 1, 0, 16, 0, 500 },
		{ true, ROCE_OP_RC_SEND_ONLY, 2, 0, 16, 0, 600 },
		{ true, ROCE_OP_RC_SEND_ONLY, 3, 0, 16, 0, 700 },
		{ false, ROCE_OP_RC_ACKNOWLEDGE, 3, 0x1f, 0, 0, 800 },
		{ true, ROCE_OP_RC_SEND_ONLY, 5, 0, 16, 0, 900 },
		{ false, ROCE_OP_RC_ACKNOWLEDGE, 4, 0x60, 0, 0, 1100 },
		{ true, ROCE_OP_RC_SEND_ONLY, 4, 0, 16, 0, 1300 },
		{ true, ROCE_OP_RC_SEND_ONLY, 5, 0, 16, 0, 1400 },
		{ false, ROCE_OP_RC_ACKNOWLEDGE, 5, 0x1f, 0, 0, 1600 },
	};

	/* (2 and 3.5 us: the NAK of b + 1's copy after the ACK of b + 5 too, at 3.5 us
	 * 0.5 us before the window ends) */
	static const uint64_t lags[] = { 1500, 2000, 3500 };

	for (unsigned i = 0; i < sizeof(lags) / sizeof(lags[0]); i++)
		same_as_single_m(b, fs, sizeof(fs) / sizeof(fs[0]), 1024, lags[i], true);
}

/*
 * Repeated NAKs are NAKs (condition 3): b, b + 2 (b + 1 lost), the NAK of b + 1,
 * b + 3, the NAK of b + 1 again 0.4 us after the first (a responder that NAKs
 * every out-of-sequence request): a NAK.  And with an RNR NAK between: the
 * go-back's b + 1 refused (RNR NAK of b + 1), its b + 2 NAKed (b + 1 still
 * missing): the second NAK of b + 1, its request at b + 1 between, is a NAK too.
 */
static void run_nak_repeated(uint32_t b)
{
	struct t t;
	struct roce_summary s;

	for (unsigned k = 0; k < 2; k++) {
		a_init(&t, 1024);
		REQUIRE(t.a && xa);
		snd(&t, P_(b, 0), 0);
		snd(&t, P_(b, 2), 100);
		nak(&t, P_(b, 1), 0x60, 300);
		CHECK_EQ_U(t.res.events, ROCE_EV_NAK);
		if (!k) {
			snd(&t, P_(b, 3), 400);
		} else {
			snd(&t, P_(b, 1), 400);
			snd(&t, P_(b, 2), 500);
			nak(&t, P_(b, 1), 0x21, 600);
			CHECK_EQ_U(t.res.events, ROCE_EV_RNR_NAK);
		}
		nak(&t, P_(b, 1), 0x60, 700);
		CHECK_EQ_U(t.res.events, ROCE_EV_NAK);
		roce_analyzer_finish(t.a);
		sum(&t, &s);
		CHECK_EQ_U(s.capture_copies, 0);
		CHECK_EQ_U(s.counters.naks, k ? 3 : 2);
		check_counters_add_up(&t, false);
		a_done(&t);
	}
}

/*
 * A mirror of a link that reorders (condition 3: a late request, the first of its PSN,
 * that fills a gap with no NAK before it, a frame of its stream before its PSN less than
 * a Local ACK Timeout earlier, is no resend and stops no copy): b, b + 1, b + 3 (it
 * overtook b + 2), b + 2 (late: out of order), b + 4, b + 5 100 ns apart, the ACKs of b
 * (before b + 3: the capture carries the peer's NAKs) and b + 5;
 * every frame copied 0.3, 1, 2 and 3.5 us later, merged by time stamp: (b + 3)' comes
 * after b + 2, a frame of its stream before its PSN, and (b + 2)' is the late frame's
 * own copy; each a copy, the capture analyses as the single one.  The same with a
 * READ between and two PSNs overtaken (b + 4 and b + 5 before b + 2, b + 3).
 */
static void run_reorder_mirror(uint32_t b)
{
	static const struct fr fs[] = {
		{ true, ROCE_OP_RC_SEND_ONLY, 0, 0, 16, 0, 0 },
		{ true, ROCE_OP_RC_SEND_ONLY, 1, 0, 16, 0, 100 },
		{ false, ROCE_OP_RC_ACKNOWLEDGE, 0, 0x1f, 0, 0, 150 },
		{ true, ROCE_OP_RC_SEND_ONLY, 3, 0, 16, 0, 200 },
		{ true, ROCE_OP_RC_SEND_ONLY, 2, 0, 16, 0, 300 },
		{ true, ROCE_OP_RC_SEND_ONLY, 4, 0, 16, 0, 400 },
		{ true, ROCE_OP_RC_SEND_ONLY, 5, 0, 16, 0, 500 },
		{ false, ROCE_OP_RC_ACKNOWLEDGE, 5, 0x1f, 0, 0, 800 },
	};
	static const struct fr fs2[] = {
		{ true, ROCE_OP_RC_RDMA_WRITE_ONLY, 0, 0, 64, 64, 0 },
		{ true, ROCE_OP_RC_RDMA_READ_REQUEST, 1, 0, 0, 1024, 100 },
		{ false, ROCE_OP_RC_ACKNOWLEDGE, 0, 0x1f, 0, 0, 150 },
		{ true, ROCE_OP_RC_SEND_ONLY, 4, 0, 16, 0, 200 },
		{ true, ROCE_OP_RC_SEND_ONLY, 5, 0, 16, 0, 300 },
		{ true, ROCE_OP_RC_SEND_ONLY, 2, 0, 16, 0, 400 },
		{ true, ROCE_OP_RC_SEND_ONLY, 3, 0, 16, 0, 500 },
		{ false, ROCE_OP_RC_RDMA_READ_RESPONSE_ONLY, 1, 0x1f, 1024, 0, 900 },
		{ false, ROCE_OP_RC_ACKNOWLEDGE, 5, 0x1f, 0, 0, 1000 },
	};
	static const uint64_t lags[] = { 300, 1000, 2000, 3500 };

	for (unsigned i = 0; i < sizeof(lags) / sizeof(lags[0]); i++) {
		same_as_single_m(b, fs, sizeof(fs) / sizeof(fs[0]), 1024, lags[i], true);
		same_as_single_m(b, fs2, sizeof(fs2) / sizeof(fs2[0]), 1024, lags[i], true);
	}
}

/*
 * Fills that may be resends stop a copy still (condition 3): b, b + 3 (b + 1, b + 2
 * missing), the NAK of b + 1, then b + 2 (a fill, the NAK before its PSN: the go-back's,
 * its b + 1 lost before the capture point), b + 3 again 1 us after the first: a
 * retransmission, no copy.  And with --copy-window=30: b, b + 2 (b + 1 missing), b + 1
 * 8.3 us after b (the frame before its PSN a Local ACK Timeout earlier: a timeout's
 * resend, its NAK lost), b + 2 again: a retransmission, no copy; b + 1 3 us after b
 * instead (late), b + 2 again: a copy.  Each with the peer's ACK of b first (a capture
 * of one direction holds no NAK: b + 1 3 us after b, b + 2 again: no copy, as before).
 */
static void run_reorder_resend(uint32_t b)
{
	struct t t;
	struct roce_summary s;

	a_init(&t, 1024);
	REQUIRE(t.a && xa);
	snd(&t, P_(b, 0), 0);
	snd(&t, P_(b, 3), 100);
	CHECK(t.res.events & ROCE_EV_PSN_GAP);
	nak(&t, P_(b, 1), 0x60, 400);
	snd(&t, P_(b, 2), 1000);
	CHECK(t.res.events & ROCE_EV_OUT_OF_ORDER);
	snd(&t, P_(b, 3), 1100);
	CHECK(t.res.events & ROCE_EV_RETRANSMISSION);
	CHECK(!(t.res.events & ROCE_EV_CAPTURE_COPY));
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.capture_copies, 0);
	check_counters_add_up(&t, false);
	a_done(&t);

	for (unsigned k = 0; k < 3; k++) {
		uint64_t at = k ? 3 * US : 8300;

		a_init_window(&t, 1024, 30 * US);
		REQUIRE(t.a && xa);
		snd(&t, P_(b, 0), 0);
		if (k < 2)
			ack(&t, P_(b, 0), 50);
		snd(&t, P_(b, 2), 100);
		CHECK(t.res.events & ROCE_EV_PSN_GAP);
		snd(&t, P_(b, 1), at);
		CHECK(t.res.events & ROCE_EV_OUT_OF_ORDER);
		snd(&t, P_(b, 2), at + 100);
		if (k == 1) {
			CHECK_EQ_U(t.res.events, ROCE_EV_CAPTURE_COPY);
		} else {
			CHECK(t.res.events & ROCE_EV_DUPLICATE);
			CHECK(!(t.res.events & ROCE_EV_CAPTURE_COPY));
		}
		roce_analyzer_finish(t.a);
		sum(&t, &s);
		CHECK_EQ_U(s.capture_copies, k == 1);
		check_counters_add_up(&t, false);
		a_done(&t);
	}
}

/* ACK copies alone: b, b + 1 (an ACK of b + 1 covers both), that ACK twice. */
static void run_ack_copy(uint32_t b)
{
	struct t t;
	struct roce_summary s;
	struct flows fl;

	a_init(&t, 1024);
	REQUIRE(t.a && xa);
	snd(&t, P_(b, 0), 0);
	snd(&t, P_(b, 1), 1 * US);
	ack(&t, P_(b, 1), 4 * US);
	CHECK(t.res.events & ROCE_EV_ACK_RTT);
	ack(&t, P_(b, 1), 4 * US + 50);
	CHECK_EQ_U(t.res.events, ROCE_EV_CAPTURE_COPY);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.capture_copies, 1);
	CHECK_EQ_U(s.acks, 1);
	flows_get(&t, &fl);
	REQUIRE(resp_flow(&fl) != NULL);
	CHECK_EQ_U(resp_flow(&fl)->capture_copies, 1);
	CHECK_EQ_U(resp_flow(&fl)->acks, 1);
	CHECK_EQ_U(resp_flow(&fl)->frames, 2);
	check_counters_add_up(&t, false);
	a_done(&t);
}

/* copy_window_ns 0: off, every copy read as before (a duplicate, a resend). */
static void run_off(uint32_t b)
{
	struct t t;
	struct roce_summary s;

	a_init_nocopy(&t, 1024);
	REQUIRE(t.a && xa);
	snd(&t, P_(b, 0), 0);
	snd(&t, P_(b, 0), 100);
	CHECK_EQ_U(t.res.events, ROCE_EV_DUPLICATE | ROCE_EV_RETRANSMISSION);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.capture_copies, 0);
	CHECK_EQ_U(s.duplicates, 1);
	a_done(&t);
}

/* A SEND of PSN psn (A -> B) or an ACKNOWLEDGE with syndrome syn (B -> A) whose ICRC is
 * bad: damaged on the way, dropped by its receiver. */
static void damaged(struct t *t, bool request, uint32_t psn, uint8_t syn, uint64_t ts)
{
	struct roce_frame_spec s;

	if (request)
		req_spec(&s, ROCE_OP_RC_SEND_ONLY, psn, true, 16, 0);
	else
		resp_spec(&s, ROCE_OP_RC_ACKNOWLEDGE, psn, syn, 0);
	s.bad_icrc = true;
	xfeed(t, &s, ts);
	CHECK_EQ_U(t->res.events, ROCE_EV_ICRC_BAD);
}

/* A CNP B -> A. */
static void cnp_ba(struct t *t, uint64_t ts)
{
	struct roce_frame_spec s;

	spec_dir(&s, false, ROCE_OP_CNP, 0);
	s.bth.becn = 1;
	xfeed(t, &s, ts);
}

/*
 * A damaged frame (bad ICRC) between a frame and its copy, as a mirror of traffic with
 * bit errors writes it: its receiver dropped it, so it asks for no resend; it stops no
 * copy, of the stream (b, b + 1, the damaged b + 2, then b's and b + 1's copies) or of the
 * peer (a damaged NAK of b + 1 between b + 1 and a third capture of it; a damaged request
 * at b + 1 between b + 1's ACK and its copy).  The damaged frame's own copy is no copy
 * (counted each time).  But a NAK
 * of the peer before X's PSN, then a damaged frame of the stream (perhaps the go-back's
 * first resend, of the NAK's PSN), then X's PSN again: a resend, no copy; the damaged
 * frame before that NAK is none (b + 3 before the NAK of b + 1: b + 2's copy a copy).
 * A CNP's copy with a damaged frame of its peer between is none still.
 */
static void run_damaged(uint32_t b)
{
	struct t t;
	struct roce_summary s;

	a_init(&t, 1024);
	REQUIRE(t.a && xa);
	snd(&t, P_(b, 0), 0);
	snd(&t, P_(b, 1), 100);
	damaged(&t, true, P_(b, 2), 0, 200);
	snd(&t, P_(b, 0), 1000);
	CHECK_EQ_U(t.res.events, ROCE_EV_CAPTURE_COPY);
	snd(&t, P_(b, 1), 1100);
	CHECK_EQ_U(t.res.events, ROCE_EV_CAPTURE_COPY);
	damaged(&t, true, P_(b, 2), 0, 1200);
	/* the peer's: a damaged NAK of b + 1 */
	damaged(&t, false, P_(b, 1), 0x60, 1300);
	snd(&t, P_(b, 1), 1400);
	CHECK_EQ_U(t.res.events, ROCE_EV_CAPTURE_COPY);
	ack(&t, P_(b, 1), 1500);
	damaged(&t, true, P_(b, 1), 0, 1600);
	ack(&t, P_(b, 1), 2000);
	CHECK_EQ_U(t.res.events, ROCE_EV_CAPTURE_COPY);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.capture_copies, 4);
	CHECK_EQ_U(s.duplicates, 0);
	CHECK_EQ_U(s.retransmissions, 0);
	CHECK_EQ_U(s.icrc_bad, 4);
	check_counters_add_up(&t, true);       /* (the damaged NAK came before B -> A's first) */
	a_done(&t);

	/* b, b + 2 (b + 1 lost), the damaged b + 3, the NAK of b + 1, b's copy; b + 2's copy
	 * a copy (the damaged frame came before the NAK) */
	a_init(&t, 1024);
	REQUIRE(t.a && xa);
	snd(&t, P_(b, 0), 0);
	snd(&t, P_(b, 2), 100);
	damaged(&t, true, P_(b, 3), 0, 200);
	nak(&t, P_(b, 1), 0x60, 300);
	snd(&t, P_(b, 0), 1000);
	CHECK_EQ_U(t.res.events, ROCE_EV_CAPTURE_COPY);
	snd(&t, P_(b, 2), 1100);
	CHECK_EQ_U(t.res.events, ROCE_EV_CAPTURE_COPY);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.capture_copies, 2);
	CHECK_EQ_U(s.duplicates, 0);
	a_done(&t);

	/* ... the damaged frame after the NAK of b + 1 (the go-back's resend of b + 1,
	 * damaged): b + 2 again is its resend */
	a_init(&t, 1024);
	REQUIRE(t.a && xa);
	snd(&t, P_(b, 0), 0);
	snd(&t, P_(b, 2), 100);
	nak(&t, P_(b, 1), 0x60, 300);
	damaged(&t, true, P_(b, 1), 0, 400);
	snd(&t, P_(b, 2), 500);
	CHECK(!(t.res.events & ROCE_EV_CAPTURE_COPY));
	CHECK(t.res.events & ROCE_EV_RETRANSMISSION);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.capture_copies, 0);
	a_done(&t);

	/* a CNP's copy with a damaged frame of its peer between: a CNP (its notification
	 * point may answer the damaged frame's CE mark); with nothing between, a copy */
	a_init(&t, 1024);
	REQUIRE(t.a && xa);
	snd(&t, P_(b, 0), 0);
	ack(&t, P_(b, 0), 100);
	cnp_ba(&t, 200);
	cnp_ba(&t, 300);
	CHECK_EQ_U(t.res.events, ROCE_EV_CAPTURE_COPY);
	damaged(&t, true, P_(b, 1), 0, 400);
	cnp_ba(&t, 500);
	CHECK_EQ_U(t.res.events, ROCE_EV_CNP);
	roce_analyzer_finish(t.a);
	sum(&t, &s);
	CHECK_EQ_U(s.capture_copies, 1);
	CHECK_EQ_U(s.cnps, 2);
	a_done(&t);
}

EACH_BASE(adjacent)
EACH_BASE(read)
EACH_BASE(timeout_resend)
EACH_BASE(nak_resend)
EACH_BASE(between)
EACH_BASE(resend_interleaved)
EACH_BASE(rnr_copy)
EACH_BASE(nak_gap_mirror)
EACH_BASE(nak_copy_after_nak)
EACH_BASE(nak_repeated)
EACH_BASE(reorder_mirror)
EACH_BASE(reorder_resend)
EACH_BASE(ack_copy)
EACH_BASE(off)
EACH_BASE(damaged)

int main(void)
{
	RUN(test_adjacent);
	RUN(test_read);
	RUN(test_timeout_resend);
	RUN(test_nak_resend);
	RUN(test_between);
	RUN(test_resend_interleaved);
	RUN(test_rnr_copy);
	RUN(test_nak_gap_mirror);
	RUN(test_nak_copy_after_nak);
	RUN(test_nak_repeated);
	RUN(test_reorder_mirror);
	RUN(test_reorder_resend);
	RUN(test_ack_copy);
	RUN(test_off);
	RUN(test_damaged);
	return check_report();
}
