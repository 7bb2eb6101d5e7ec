/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_analyzer.c - libFuzzer target for the analyzer's state machines fed
 * with hostile frame sequences (decode -> roce_analyzer_process).
 *
 * Input: byte 0 = configuration (bits 0-2: max_flows 1..8, so eviction is
 * exercised, or with bit 7 set 40 + 8 * bits 0-2, so the tables also grow
 * past their first 64 slots; bit 3: PMTU 1024 instead of learning; bits
 * 4-5: link speed 10/25/100/400 Gb/s; bit 6: storm threshold 1 us instead
 * of 200 ms), then
 * records: 2-byte big-endian length, 1-byte time step (us, 255 = 1 s
 * backwards), and that many frame bytes (Ethernet).  A short last record
 * is fed as it is.  Checks that every frame is counted once and that the
 * tables can be walked after finish().  A time series (<roce/timeseries.h>)
 * with tiny caps observes the run (bin doubling, slot replacement, point cap,
 * pause merging): its bins add up to the frame and byte totals.
 */
#include <stddef.h>
#include <stdint.h>

#include <roce/analyzer.h>
#include <roce/pkt.h>
#include <roce/timeseries.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int count_flow(void *user, const struct roce_flow_stats *f)
{
	uint64_t *n = user;

	*n += f->frames;
	return 0;
}

static int count_pfc(void *user, const struct roce_pfc_stats *p)
{
	uint64_t *n = user;

	*n += p->frames;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const double speeds[4] = { 10, 25, 100, 400 };
	struct roce_analyzer_config cfg;
	struct roce_frame_result res;
	struct roce_summary s;
	struct roce_pkt pkt;
	roce_analyzer_t *a;
	roce_timeseries_t *ts_obs;
	struct roce_ts_config tc;
	struct roce_ts_grid g;
	const uint64_t *bins;
	uint64_t bin_frames = 0, bin_bytes = 0;
	char err[ROCE_ERRBUF_SIZE];
	uint64_t ts = 1000000000ull, frames = 0, in_flows = 0, in_pfc = 0;
	size_t off = 1;

	if (size < 1)
		return 0;
	roce_analyzer_config_init(&cfg);
	cfg.max_flows = (data[0] & 128) ? 40u + 8u * (data[0] & 7u) : 1u + (data[0] & 7u);
	cfg.max_pfc = cfg.max_flows;
	cfg.pmtu = (data[0] & 8) ? 1024 : 0;
	cfg.link_speed_gbps = speeds[(data[0] >> 4) & 3];
	cfg.pfc_storm_ns = (data[0] & 64) ? 1000 : 200000000ull;
	a = roce_analyzer_create(&cfg, err);
	if (!a)
		__builtin_trap();
	roce_ts_config_init(&tc);
	tc.max_bins = 16;
	tc.min_bin_ns = 1;
	tc.max_streams = 2;
	tc.max_points = 4;
	tc.max_pause_keys = 2;
	tc.max_pauses = 2;
	ts_obs = roce_timeseries_create(a, &tc, err);
	if (!ts_obs)
		__builtin_trap();
	while (off < size) {
		size_t len = 0, step = 0;
		int st;

		if (size - off >= 3) {
			len = (size_t)data[off] << 8 | data[off + 1];
			step = data[off + 2];
			off += 3;
		} else {
			off = size;
		}
		if (len > size - off)
			len = size - off;
		ts = step == 255 ? ts - 1000000000ull : ts + step * 1000ull;
		st = roce_decode(ROCE_LINKTYPE_ETHERNET, data + off, len, len, NULL, &pkt);
		roce_analyzer_process(a, &pkt, st, ts, ++frames, &res);
		off += len;
	}
	roce_analyzer_finish(a);
	roce_analyzer_summary(a, &s);
	if (s.frames != frames)
		__builtin_trap();
	if (s.icrc_ok + s.icrc_bad + s.icrc_unverified > s.roce_frames)
		__builtin_trap();
	roce_analyzer_foreach_flow(a, count_flow, &in_flows);
	roce_analyzer_foreach_pfc(a, count_pfc, &in_pfc);
	if (in_flows > s.roce_frames)
		__builtin_trap();
	roce_timeseries_grid(ts_obs, &g);
	bins = roce_timeseries_bins(ts_obs);
	for (uint32_t i = 0; i < g.nbins; i++) {
		bin_frames += bins[(size_t)i * ROCE_TS_COUNT + ROCE_TS_FRAMES];
		bin_bytes += bins[(size_t)i * ROCE_TS_COUNT + ROCE_TS_BYTES];
	}
	if (g.nbins > 16 || bin_frames != s.frames || bin_bytes != s.bytes)
		__builtin_trap();
	roce_analyzer_destroy(a);
	roce_timeseries_destroy(ts_obs);
	return 0;
}
