// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_timeseries.c - the bounded time series (<roce/timeseries.h>): bin sums
 * equal the analyzer's summary (hand-made traffic and every sample capture),
 * bin doubling keeps the sums and the cap, stream series (envelope, gap and
 * retransmission points with frame numbers, READ requests, ACKs), the slot
 * cap with replacement by a stream with anomalies, point cap, pause
 * timelines with storms and merging when full.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <roce/analyzer.h>
#include <roce/build.h>
#include <roce/pkt.h>
#include <roce/timeseries.h>

#include "capread.h"
#include "check.h"

#define US 1000ull
#define MS 1000000ull
#define T0 (1700000000ull * 1000000000ull)

static const uint8_t mac_a[6] = { 0x02, 0, 0, 0, 0, 0x0a };
static const uint8_t mac_b[6] = { 0x02, 0, 0, 0, 0, 0x0b };

struct t {
	roce_analyzer_t *a;
	roce_timeseries_t *ts;
	uint64_t frame;
};

static bool t_init(struct t *t, const struct roce_ts_config *tc)
{
	struct roce_analyzer_config cfg;
	char err[ROCE_ERRBUF_SIZE];

	memset(t, 0, sizeof(*t));
	roce_analyzer_config_init(&cfg);
	cfg.pfc_storm_ns = 1 * MS;
	t->a = roce_analyzer_create(&cfg, err);
	if (!t->a)
		return false;
	t->ts = roce_timeseries_create(t->a, tc, err);
	if (!t->ts)
		fprintf(stderr, "%s\n", err);
	return t->ts != NULL;
}

static void t_free(struct t *t)
{
	roce_analyzer_destroy(t->a);
	roce_timeseries_destroy(t->ts);
}

static void feed_buf(struct t *t, const uint8_t *buf, size_t len, uint64_t ts)
{
	struct roce_pkt pkt;
	int st = roce_decode(ROCE_LINKTYPE_ETHERNET, buf, len, len, NULL, &pkt);

	roce_analyzer_process(t->a, &pkt, st, ts, ++t->frame, NULL);
}

/* RC frame from host (1 + from) to host (1 + !from), to QP qp. */
static void rc(struct t *t, int from, uint32_t qp, uint8_t op, uint32_t psn, uint64_t ts)
{
	struct roce_frame_spec s;
	uint8_t buf[512];
	size_t len = 0;

	roce_frame_spec_init(&s);
	memcpy(s.src_mac, from ? mac_b : mac_a, 6);
	memcpy(s.dst_mac, from ? mac_a : mac_b, 6);
	roce_addr_v4(s.src, 0x0a000001u + (uint32_t)from);
	roce_addr_v4(s.dst, 0x0a000002u - (uint32_t)from);
	s.bth.opcode = op;
	s.bth.pkey = 0xffff;
	s.bth.dqpn = qp;
	s.bth.psn = psn;
	s.bth.ackreq = op == ROCE_OP_RC_SEND_ONLY;
	s.payload_len = op == ROCE_OP_RC_SEND_ONLY ? 32 : 0;
	s.aeth.syndrome = 0x1f;
	s.reth.dma_len = 4096;
	if (roce_build(&s, buf, sizeof(buf), &len) != ROCE_OK) {
		check_cur_failed_ = 1;
		return;
	}
	feed_buf(t, buf, len, ts);
}

static void pfc(struct t *t, int prio, uint16_t q, uint64_t ts)
{
	uint16_t quanta[8] = { 0 };
	uint8_t buf[64];
	size_t len = 0;

	quanta[prio] = q;
	if (roce_build_pfc(mac_a, (uint8_t)(1u << prio), quanta, buf, sizeof(buf), &len) !=
	    ROCE_OK) {
		check_cur_failed_ = 1;
		return;
	}
	feed_buf(t, buf, len, ts);
}

static uint64_t bin_sum(const roce_timeseries_t *ts, enum roce_ts_counter c)
{
	struct roce_ts_grid g;
	const uint64_t *b = roce_timeseries_bins(ts);
	uint64_t sum = 0;

	roce_timeseries_grid(ts, &g);
	for (uint32_t i = 0; i < g.nbins; i++)
		sum += b[(size_t)i * ROCE_TS_COUNT + c];
	return sum;
}

/* Every counter's bins add up to the analyzer's totals. */
static void check_sums(const struct t *t)
{
	struct roce_summary s;

	roce_analyzer_summary(t->a, &s);
	CHECK_EQ_U(bin_sum(t->ts, ROCE_TS_FRAMES), s.frames);
	CHECK_EQ_U(bin_sum(t->ts, ROCE_TS_BYTES), s.bytes);
	CHECK_EQ_U(bin_sum(t->ts, ROCE_TS_ROCE_FRAMES), s.roce_frames);
	CHECK_EQ_U(bin_sum(t->ts, ROCE_TS_ICRC_BAD), s.icrc_bad);
	CHECK_EQ_U(bin_sum(t->ts, ROCE_TS_MALFORMED), s.malformed);
	CHECK_EQ_U(bin_sum(t->ts, ROCE_TS_PSN_GAPS), s.psn_gaps);
	CHECK_EQ_U(bin_sum(t->ts, ROCE_TS_LOST_PSNS), s.lost_psns);
	CHECK_EQ_U(bin_sum(t->ts, ROCE_TS_DUPLICATES), s.duplicates);
	CHECK_EQ_U(bin_sum(t->ts, ROCE_TS_OUT_OF_ORDER), s.out_of_order);
	CHECK_EQ_U(bin_sum(t->ts, ROCE_TS_RETX), s.retransmissions);
	CHECK_EQ_U(bin_sum(t->ts, ROCE_TS_NAKS) + bin_sum(t->ts, ROCE_TS_RNR_NAKS), s.naks);
	CHECK_EQ_U(bin_sum(t->ts, ROCE_TS_RNR_NAKS), s.rnr_naks);
	CHECK_EQ_U(bin_sum(t->ts, ROCE_TS_CNPS), s.cnps);
	CHECK_EQ_U(bin_sum(t->ts, ROCE_TS_ECN_CE), s.ecn_ce);
	CHECK_EQ_U(bin_sum(t->ts, ROCE_TS_ECN_CAPABLE), s.ecn_capable);
	CHECK_EQ_U(bin_sum(t->ts, ROCE_TS_PFC_FRAMES), s.pfc_frames);
	CHECK_EQ_U(bin_sum(t->ts, ROCE_TS_PAUSE_FRAMES), s.pause_frames);
	CHECK_EQ_U(bin_sum(t->ts, ROCE_TS_ACKED_UNSEEN_PSNS), s.acked_unseen_psns);
	CHECK(bin_sum(t->ts, ROCE_TS_RETX_NAK) + bin_sum(t->ts, ROCE_TS_RETX_RNR) +
	      bin_sum(t->ts, ROCE_TS_RETX_TIMEOUT) <= s.retransmissions);
}

static const struct roce_ts_point *find_point(const struct roce_ts_stream *s, uint8_t kind)
{
	for (uint32_t i = 0; i < s->n_points; i++)
		if (s->points[i].kind == kind)
			return &s->points[i];
	return NULL;
}

static void t_stream_series(void)
{
	struct t t;
	struct roce_ts_stream req, resp;
	struct roce_ts_grid g;
	const struct roce_ts_point *p;

	REQUIRE(t_init(&t, NULL));
	/* PSNs 100..109 with 103, 104 lost (frames 1..8), a NAK at 103 (frame 9),
	 * go-back-N resend of 103 (frame 10), an ACK (frame 11), a READ (frame 12) */
	for (uint32_t k = 0; k < 10; k++)
		if (k != 3 && k != 4)
			rc(&t, 0, 0x11, ROCE_OP_RC_SEND_ONLY, 100 + k, T0 + k * US);
	rc(&t, 1, 0x22, ROCE_OP_RC_ACKNOWLEDGE, 103, T0 + 20 * US);   /* placeholder ACK */
	rc(&t, 0, 0x11, ROCE_OP_RC_SEND_ONLY, 103, T0 + 30 * US);
	rc(&t, 0, 0x11, ROCE_OP_RC_RDMA_READ_REQUEST, 110, T0 + 40 * US);
	roce_analyzer_finish(t.a);
	check_sums(&t);

	roce_timeseries_grid(t.ts, &g);
	CHECK_EQ_U(g.origin_ns, T0);
	CHECK(g.nbins >= 1 && g.nbins <= 1024);
	CHECK_EQ_U(g.bin_ns & (g.bin_ns - 1), 0);
	CHECK(((T0 + 40 * US - g.origin_ns) / g.bin_ns) < g.nbins);
	REQUIRE(roce_timeseries_nstreams(t.ts) == 2);
	roce_timeseries_stream(t.ts, 0, &req);
	roce_timeseries_stream(t.ts, 1, &resp);
	CHECK_EQ_U(req.key.dqpn, 0x11);
	CHECK_EQ_U(resp.key.dqpn, 0x22);
	CHECK_EQ_U(req.frames, 10);
	CHECK(req.id != 0 && resp.id != 0 && req.id != resp.id);
	/* envelope: first transmissions from 100 to 110, in bins at their times */
	{
		int64_t lo = INT64_MAX, hi = INT64_MIN;
		uint64_t bytes = 0;

		for (uint32_t i = 0; i < g.nbins; i++) {
			if (req.tx_lo[i] <= req.tx_hi[i]) {
				lo = req.tx_lo[i] < lo ? req.tx_lo[i] : lo;
				hi = req.tx_hi[i] > hi ? req.tx_hi[i] : hi;
			}
			bytes += req.bytes_bin[i];
		}
		CHECK_EQ_I(lo, 100);
		CHECK_EQ_I(hi, 110);
		CHECK_EQ_U(bytes, req.bytes);
	}
	p = find_point(&req, ROCE_TS_PT_GAP);
	REQUIRE(p != NULL);
	CHECK_EQ_I(p->psn, 103);
	CHECK_EQ_U(p->len, 2);
	CHECK_EQ_U(p->frame, 4);            /* the frame with PSN 105 */
	p = find_point(&req, ROCE_TS_PT_READ);
	REQUIRE(p != NULL);
	CHECK_EQ_I(p->psn, 110);
	CHECK_EQ_U(p->len, 4096);
	CHECK(find_point(&req, ROCE_TS_PT_OOO) || find_point(&req, ROCE_TS_PT_RETX));
	/* the ACK on the response stream */
	{
		int64_t ack = -1;

		for (uint32_t i = 0; i < g.nbins; i++)
			ack = resp.ack_hi[i] > ack ? resp.ack_hi[i] : ack;
		CHECK_EQ_I(ack, 103);
	}
	CHECK_STR(roce_ts_point_name(ROCE_TS_PT_RETX), "retx");
	CHECK_STR(roce_ts_counter_name(ROCE_TS_RETX_TIMEOUT), "retx_timeout");
	CHECK(roce_ts_counter_name(ROCE_TS_COUNT) == NULL);
	t_free(&t);
}

/* PSNs unwrap at 2^24: the series keeps rising. */
static void t_psn_wrap(void)
{
	struct t t;
	struct roce_ts_stream s;
	struct roce_ts_grid g;
	int64_t hi = INT64_MIN;

	REQUIRE(t_init(&t, NULL));
	for (uint32_t k = 0; k < 8; k++)
		rc(&t, 0, 0x11, ROCE_OP_RC_SEND_ONLY, (0xfffffcu + k) & 0xffffffu, T0 + k * US);
	roce_timeseries_grid(t.ts, &g);
	REQUIRE(roce_timeseries_nstreams(t.ts) == 1);
	roce_timeseries_stream(t.ts, 0, &s);
	for (uint32_t i = 0; i < g.nbins; i++)
		hi = s.tx_hi[i] > hi ? s.tx_hi[i] : hi;
	CHECK_EQ_I(hi, 0xfffffc + 7);
	t_free(&t);
}

/* A long run in few bins: the width doubles, the count stays capped, sums stay. */
static void t_doubling(void)
{
	struct roce_ts_config c;
	struct roce_ts_grid g;
	struct roce_ts_stream s;
	struct t t;
	uint64_t last = 0, bytes = 0;

	roce_ts_config_init(&c);
	c.max_bins = 16;
	c.min_bin_ns = 1000;        /* rounded up to 1024 */
	REQUIRE(t_init(&t, &c));
	for (uint32_t k = 0; k < 1000; k++) {
		last = T0 + (uint64_t)k * k * 997;
		rc(&t, 0, 0x11, ROCE_OP_RC_SEND_ONLY, k, last);
		roce_timeseries_grid(t.ts, &g);
		CHECK(g.nbins <= 16);
	}
	roce_analyzer_finish(t.a);
	check_sums(&t);
	roce_timeseries_grid(t.ts, &g);
	CHECK(g.doublings > 10);
	CHECK_EQ_U(g.bin_ns, 1024ull << g.doublings);
	CHECK((last - T0) / g.bin_ns == g.nbins - 1);
	CHECK(g.nbins > 8);
	roce_timeseries_stream(t.ts, 0, &s);
	for (uint32_t i = 0; i < g.nbins; i++)
		bytes += s.bytes_bin[i];
	CHECK_EQ_U(bytes, s.bytes);
	CHECK_EQ_I(s.tx_lo[0], 0);
	CHECK_EQ_I(s.tx_hi[g.nbins - 1], 999);
	t_free(&t);
}

/* Two slots, three streams: the clean third is not tracked until it has a gap. */
static void t_slots(void)
{
	struct roce_ts_config c;
	struct roce_ts_stream s0, s1;
	struct t t;

	roce_ts_config_init(&c);
	c.max_streams = 2;
	c.max_points = 3;
	REQUIRE(t_init(&t, &c));
	rc(&t, 0, 0x11, ROCE_OP_RC_SEND_ONLY, 0, T0);
	rc(&t, 0, 0x11, ROCE_OP_RC_SEND_ONLY, 1, T0 + 1 * US);     /* 0x11: more bytes */
	rc(&t, 0, 0x12, ROCE_OP_RC_SEND_ONLY, 0, T0 + 2 * US);
	rc(&t, 0, 0x13, ROCE_OP_RC_SEND_ONLY, 0, T0 + 3 * US);     /* no slot */
	CHECK_EQ_U(roce_timeseries_untracked(t.ts), 1);
	rc(&t, 0, 0x13, ROCE_OP_RC_SEND_ONLY, 5, T0 + 4 * US);     /* gap: takes 0x12's */
	CHECK_EQ_U(roce_timeseries_replaced(t.ts), 1);
	REQUIRE(roce_timeseries_nstreams(t.ts) == 2);
	roce_timeseries_stream(t.ts, 0, &s0);
	roce_timeseries_stream(t.ts, 1, &s1);
	CHECK_EQ_U(s0.key.dqpn, 0x11);
	CHECK_EQ_U(s1.key.dqpn, 0x13);
	CHECK_EQ_U(s1.first_ts_ns, T0 + 4 * US);
	REQUIRE(s1.n_points == 1);
	CHECK_EQ_U(s1.points[0].kind, ROCE_TS_PT_GAP);
	CHECK_EQ_U(s1.points[0].frame, 5);
	/* the replaced stream's next frame is untracked, the newcomer's is in its series
	 * (the stream id -> slot cache follows the replacement) */
	rc(&t, 0, 0x12, ROCE_OP_RC_SEND_ONLY, 1, T0 + 5 * US);
	CHECK_EQ_U(roce_timeseries_untracked(t.ts), 2);
	rc(&t, 0, 0x13, ROCE_OP_RC_SEND_ONLY, 6, T0 + 6 * US);
	roce_timeseries_stream(t.ts, 1, &s1);
	CHECK_EQ_U(s1.frames, 2);
	CHECK_EQ_U(roce_timeseries_untracked(t.ts), 2);
	roce_timeseries_stream(t.ts, 0, &s0);
	CHECK_EQ_U(s0.frames, 2);
	/* more gaps than points: counted, not kept */
	for (uint32_t k = 0; k < 5; k++)
		rc(&t, 0, 0x13, ROCE_OP_RC_SEND_ONLY, 10 + 3 * k, T0 + (10 + k) * US);
	roce_timeseries_stream(t.ts, 1, &s1);
	CHECK_EQ_U(s1.n_points, 3);
	CHECK_EQ_U(s1.points_dropped, 3);
	CHECK_EQ_U(s1.anomalies, 6);
	/* 0x12 now has no slot and both slots have... 0x11 none: a gap on 0x12 takes it */
	rc(&t, 0, 0x12, ROCE_OP_RC_SEND_ONLY, 9, T0 + 30 * US);
	roce_timeseries_stream(t.ts, 0, &s0);
	CHECK_EQ_U(s0.key.dqpn, 0x12);
	/* every slot has anomalies now: nothing more is replaced */
	rc(&t, 0, 0x11, ROCE_OP_RC_SEND_ONLY, 9, T0 + 31 * US);
	CHECK_EQ_U(roce_timeseries_replaced(t.ts), 2);
	roce_analyzer_finish(t.a);
	check_sums(&t);
	t_free(&t);
}

/* Pause intervals per (MAC, priority), storms flagged, merged when full. */
static void t_pauses(void)
{
	struct roce_ts_config c;
	struct roce_ts_timeline l;
	struct roce_summary s;
	struct t t;
	uint64_t storms = 0;

	roce_ts_config_init(&c);
	c.max_pauses = 4;
	REQUIRE(t_init(&t, &c));
	for (uint32_t k = 0; k < 9; k++) {
		pfc(&t, 3, 0xffff, T0 + k * MS);
		pfc(&t, 3, 0, T0 + k * MS + 50 * US);              /* XON */
	}
	pfc(&t, 5, 0xffff, T0 + 20 * MS);                           /* refreshed: a storm */
	for (uint32_t k = 1; k < 40; k++)
		pfc(&t, 5, 0xffff, T0 + 20 * MS + k * 100 * US);
	roce_analyzer_finish(t.a);
	check_sums(&t);
	roce_analyzer_summary(t.a, &s);
	REQUIRE(roce_timeseries_ntimelines(t.ts) == 2);
	roce_timeseries_timeline(t.ts, 0, &l);
	CHECK_EQ_I(l.priority, 3);
	CHECK(!memcmp(l.src_mac, mac_a, 6));
	CHECK_EQ_U(l.closed, 9);
	CHECK(l.n_pauses <= 4 && l.n_pauses >= 2);
	CHECK(l.pauses[0].merged);
	CHECK_EQ_U(l.pauses[0].start_ns, T0);
	CHECK_EQ_U(l.pauses[l.n_pauses - 1].end_ns, T0 + 8 * MS + 50 * US);
	storms += l.storms;
	roce_timeseries_timeline(t.ts, 1, &l);
	CHECK_EQ_I(l.priority, 5);
	REQUIRE(l.n_pauses == 1);
	CHECK(l.pauses[0].storm);
	CHECK(!l.pauses[0].merged);
	storms += l.storms;
	CHECK_EQ_U(storms, s.pfc_storms);
	CHECK_EQ_U(roce_timeseries_pauses_dropped(t.ts), 0);
	t_free(&t);
}

/*
 * Pause timelines per capture interface too (roce_analyzer_set_interface()): the same MAC
 * and priority on two links are two timelines, each with its own pause; an XON on one link
 * ends only that link's.
 */
static void t_pause_ifaces(void)
{
	struct roce_ts_timeline l0, l1;
	struct t t;

	REQUIRE(t_init(&t, NULL));
	roce_analyzer_set_interface(t.a, 0);
	pfc(&t, 3, 0xffff, T0);
	roce_analyzer_set_interface(t.a, 1);
	pfc(&t, 3, 0xffff, T0 + 10 * US);
	roce_analyzer_set_interface(t.a, 0);
	pfc(&t, 3, 0, T0 + 50 * US);                /* XON on link 0 only */
	roce_analyzer_finish(t.a);
	REQUIRE(roce_timeseries_ntimelines(t.ts) == 2);
	roce_timeseries_timeline(t.ts, 0, &l0);
	roce_timeseries_timeline(t.ts, 1, &l1);
	CHECK_EQ_U(l0.interface, 0);
	CHECK_EQ_U(l1.interface, 1);
	CHECK(!memcmp(l0.src_mac, mac_a, 6) && !memcmp(l1.src_mac, mac_a, 6));
	CHECK_EQ_I(l0.priority, 3);
	CHECK_EQ_I(l1.priority, 3);
	REQUIRE(l0.n_pauses == 1 && l1.n_pauses == 1);
	CHECK_EQ_U(l0.pauses[0].start_ns, T0);
	CHECK_EQ_U(l0.pauses[0].end_ns, T0 + 50 * US);
	CHECK_EQ_U(l1.pauses[0].start_ns, T0 + 10 * US);
	CHECK(l1.pauses[0].end_ns > T0 + 50 * US);   /* to its deadline (or the finish) */
	t_free(&t);
}

static void t_config(void)
{
	struct roce_analyzer_config cfg;
	struct roce_ts_config c;
	char err[ROCE_ERRBUF_SIZE] = "";
	roce_analyzer_t *a;
	roce_timeseries_t *ts[8];
	unsigned n = 0;

	roce_analyzer_config_init(&cfg);
	a = roce_analyzer_create(&cfg, err);
	REQUIRE(a != NULL);
	roce_ts_config_init(&c);
	c.max_bins = 15;
	CHECK(roce_timeseries_create(a, &c, err) == NULL);
	CHECK(strstr(err, "invalid") != NULL);
	/* the analyzer's observer slots run out: an error, not a crash */
	while (n < 8 && (ts[n] = roce_timeseries_create(a, NULL, err)) != NULL)
		n++;
	CHECK_EQ_U(n, ROCE_MAX_OBSERVERS);
	CHECK(roce_timeseries_create(a, NULL, err) == NULL);
	CHECK(strstr(err, "observer") != NULL);
	roce_analyzer_destroy(a);
	while (n)
		roce_timeseries_destroy(ts[--n]);
	roce_timeseries_destroy(NULL);
}

/* Every sample capture: bins add up to the summary; timelines' storms too. */
static void run_capture(const char *path)
{
	char err[ROCE_ERRBUF_SIZE];
	struct roce_cap_record rec;
	roce_capfile_t *c = roce_cap_open(path, err);
	struct t t;
	struct roce_summary s;
	uint64_t storms = 0, closed = 0;
	int failed_before = check_cur_failed_;

	check_cur_failed_ = 0;
	REQUIRE(c != NULL);
	REQUIRE(t_init(&t, NULL));
	while (roce_cap_next(c, &rec) > 0) {
		struct roce_pkt pkt;
		int st = roce_decode(rec.linktype, rec.data, rec.caplen, rec.wirelen, NULL, &pkt);

		roce_analyzer_process(t.a, &pkt, st, rec.ts_ns, rec.frame_no, NULL);
	}
	roce_cap_close(c);
	roce_analyzer_finish(t.a);
	check_sums(&t);
	roce_analyzer_summary(t.a, &s);
	for (unsigned i = 0; i < roce_timeseries_ntimelines(t.ts); i++) {
		struct roce_ts_timeline l;

		roce_timeseries_timeline(t.ts, i, &l);
		storms += l.storms;
		closed += l.closed;
		for (uint32_t k = 0; k < l.n_pauses; k++)
			CHECK(l.pauses[k].start_ns <= l.pauses[k].end_ns);
	}
	CHECK_EQ_U(storms, s.pfc_storms);
	if (s.pfc_frames + s.pause_frames)
		CHECK(closed > 0);
	if (check_cur_failed_)
		fprintf(stderr, "  (in %s)\n", path);
	check_cur_failed_ |= failed_before;
	t_free(&t);
}

static void t_captures(void)
{
	static const char *const dirs[] = {
		ROCE_SOURCE_DIR "/captures/", ROCE_SHARED_DIR "/captures/softroce/",
	};
	unsigned files = 0;

	for (size_t d = 0; d < sizeof(dirs) / sizeof(dirs[0]); d++) {
		DIR *dir = opendir(dirs[d]);
		struct dirent *e;

		if (!dir)
			continue;
		while ((e = readdir(dir)) != NULL) {
			char path[1024];
			size_t n = strlen(e->d_name);

			if (n < 6 || strcmp(e->d_name + n - 5, ".pcap"))
				continue;
			snprintf(path, sizeof(path), "%s%s", dirs[d], e->d_name);
			run_capture(path);
			files++;
		}
		closedir(dir);
	}
	CHECK(files >= 6);
}

int main(void)
{
	RUN(t_stream_series);
	RUN(t_psn_wrap);
	RUN(t_doubling);
	RUN(t_slots);
	RUN(t_pauses);
	RUN(t_pause_ifaces);
	RUN(t_config);
	RUN(t_captures);
	return check_report();
}
