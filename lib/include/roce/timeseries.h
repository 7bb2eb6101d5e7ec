/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * timeseries.h - time series of an analysis run, bounded whatever the
 * capture's length: an observer on the analyzer (analyzer.h) that bins what
 * every frame's result says, for graphs (roce-analyze --html) and viewers.
 *
 * What it keeps:
 *   - global bins: per time bin the totals of enum roce_ts_counter (frames,
 *     bytes, bad ICRC, malformed, PSN gaps and lost PSNs, retransmissions by
 *     cause, NAKs, RNR NAKs, CNPs, ECN CE / ECN-capable, PFC and PAUSE frames);
 *   - up to max_streams streams with their own series: bytes and CNPs per
 *     bin, the PSN range of first transmissions per bin (the envelope of a
 *     Stevens-style PSN-vs-time graph: its lowest and highest PSN), the
 *     highest PSN acknowledged per bin, and event points (retransmission with
 *     its cause, gap with the PSNs lost, duplicate, out-of-order, NAK, RNR
 *     NAK, READ request with its length), each with its frame number, up to
 *     max_points per stream (later ones are counted, not kept);
 *   - pause intervals per (interface, source MAC, priority) from the analyzer's pause
 *     events, up to max_pauses per timeline: when a timeline is full, pairs of
 *     neighbouring intervals are merged into their hull (marked "merged").
 *
 * Bins: widths are powers of two nanoseconds, starting at min_bin_ns
 * (rounded up to one), from the first frame's timestamp.  When a frame falls
 * beyond max_bins bins, the width doubles and neighbouring bins merge (sums
 * add, PSN ranges join), as often as needed: at most max_bins bins exist at
 * any time, and sums over all bins equal the run's totals.  A frame older
 * than the first one counts in bin 0.
 *
 * Streams: a stream gets a series when its first frame is seen and a slot is
 * free.  When every slot is taken, a stream whose frame carries a sequence
 * anomaly (gap, retransmission, duplicate, out-of-order, NAK, RNR NAK) takes
 * the slot of the stream with the fewest bytes among those that had none
 * (that series is dropped and the newcomer's starts at its tracking time,
 * first_ts_ns): graphs show the streams that had trouble first.
 * PSNs are unwrapped per stream (24-bit arithmetic from the stream's first
 * PSN, which keeps its value), so a series never jumps back at 2^24;
 * request and response streams of one QP pair start in the same PSN space.
 *
 * Memory: all bins at create and at a stream's registration, points and
 * pause intervals in arrays that double up to their caps; nothing per
 * frame.  The observer stays registered with the analyzer: destroy the
 * time series only after the analyzer (or after its last frame).
 */
#ifndef ROCE_TIMESERIES_H
#define ROCE_TIMESERIES_H

#include <stdbool.h>
#include <stdint.h>

#include <roce/analyzer.h>
#include <roce/roce.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct roce_timeseries roce_timeseries_t;

struct roce_ts_config {
	uint32_t size;              /* sizeof(struct roce_ts_config), set by config_init */
	uint32_t max_bins;          /* bins at most (default 1024; 16 .. 1<<20, even) */
	uint64_t min_bin_ns;        /* narrowest bin (default 1024 ns; rounded up to 2^k) */
	uint32_t max_streams;       /* streams with their own series (default 32; 0..4096) */
	uint32_t max_points;        /* event points per stream (default 2048) */
	uint32_t max_pause_keys;    /* (interface, MAC, priority) timelines (default 256) */
	uint32_t max_pauses;        /* intervals per timeline before merging (default 1024, >= 2) */
};

ROCE_API void roce_ts_config_init(struct roce_ts_config *c) ROCE_NONNULL(1);

/* Subscribes to a; NULL with a message in errbuf (ROCE_ERRBUF_SIZE) on failure. */
ROCE_API roce_timeseries_t *roce_timeseries_create(roce_analyzer_t *a,
	const struct roce_ts_config *c, char *errbuf) ROCE_WARN_UNUSED_RESULT;
ROCE_API void roce_timeseries_destroy(roce_timeseries_t *ts);

/* Per-bin totals of the whole run. */
enum roce_ts_counter {
	ROCE_TS_FRAMES,             /* every frame */
	ROCE_TS_BYTES,              /* wire bytes of every frame */
	ROCE_TS_ROCE_FRAMES,
	ROCE_TS_ICRC_BAD,
	ROCE_TS_MALFORMED,
	ROCE_TS_PSN_GAPS,
	ROCE_TS_LOST_PSNS,
	ROCE_TS_DUPLICATES,
	ROCE_TS_OUT_OF_ORDER,
	ROCE_TS_RETX,               /* retransmissions, all causes */
	ROCE_TS_RETX_NAK,           /* ... after a NAK */
	ROCE_TS_RETX_RNR,           /* ... after an RNR NAK */
	ROCE_TS_RETX_TIMEOUT,       /* ... without a NAK seen */
	ROCE_TS_NAKS,               /* NAK-type AETHs other than RNR */
	ROCE_TS_RNR_NAKS,
	ROCE_TS_CNPS,
	ROCE_TS_ECN_CE,
	ROCE_TS_ECN_CAPABLE,        /* RoCE frames with ECT(0), ECT(1) or CE */
	ROCE_TS_PFC_FRAMES,
	ROCE_TS_PAUSE_FRAMES,
	ROCE_TS_ACKED_UNSEEN_PSNS,  /* request PSNs a response acknowledged, never captured */
	ROCE_TS_COUNT
};

/* Stable name of a counter ("frames", "retx_nak", ...); NULL out of range. */
ROCE_API const char *roce_ts_counter_name(enum roce_ts_counter c);

struct roce_ts_grid {
	uint64_t origin_ns;         /* start of bin 0 (the first frame's time) */
	uint64_t bin_ns;            /* width of every bin (a power of two) */
	uint32_t nbins;             /* bins in use (0 before the first frame) */
	uint32_t doublings;         /* times the width doubled */
};

ROCE_API void roce_timeseries_grid(const roce_timeseries_t *ts, struct roce_ts_grid *g)
	ROCE_NONNULL(1, 2);

/* Global bins: nbins rows of ROCE_TS_COUNT values, row-major (value of
 * counter c in bin i: [i * ROCE_TS_COUNT + c]).  Valid until the next frame. */
ROCE_API const uint64_t *roce_timeseries_bins(const roce_timeseries_t *ts) ROCE_NONNULL(1);

enum roce_ts_point_kind {
	ROCE_TS_PT_RETX = 1,        /* cause: enum roce_retx_cause */
	ROCE_TS_PT_GAP,             /* psn: the expected PSN; len: PSNs lost */
	ROCE_TS_PT_DUP,
	ROCE_TS_PT_OOO,
	ROCE_TS_PT_NAK,             /* psn: the NAK's PSN; cause: AETH syndrome */
	ROCE_TS_PT_RNR,
	ROCE_TS_PT_READ             /* READ request: psn its first PSN, len the DMA length */
};

struct roce_ts_point {
	uint64_t ts_ns;
	uint64_t frame;             /* the analyzer's frame number */
	int64_t psn;                /* unwrapped (see above) */
	uint32_t len;
	uint8_t kind;               /* enum roce_ts_point_kind */
	uint8_t cause;
};

/* "retx", "gap", ... ; NULL for an unknown kind. */
ROCE_API const char *roce_ts_point_name(enum roce_ts_point_kind k);

struct roce_ts_stream {
	uint64_t id;                /* roce_flow_stats.id */
	struct roce_flow_key key;
	uint64_t first_ts_ns;       /* first frame of the series */
	uint64_t frames, bytes;     /* while tracked */
	uint64_t anomalies;         /* event points, including those not kept */
	/* per bin (grid.nbins entries): */
	const uint64_t *bytes_bin;
	const uint32_t *cnps_bin;
	const int64_t *tx_lo, *tx_hi;   /* first transmissions' PSN range; lo > hi: none */
	const int64_t *ack_hi;          /* highest PSN of ACKs / READ responses' AETH; -1 none */
	const struct roce_ts_point *points;
	uint32_t n_points;
	uint64_t points_dropped;
};

/* Streams with a series, in slot order; i < roce_timeseries_nstreams().
 * The pointers inside are valid until the next frame. */
ROCE_API unsigned roce_timeseries_nstreams(const roce_timeseries_t *ts) ROCE_NONNULL(1);
ROCE_API void roce_timeseries_stream(const roce_timeseries_t *ts, unsigned i,
	struct roce_ts_stream *out) ROCE_NONNULL(1, 3);
/* Frames of streams without a series; series dropped for a stream with anomalies. */
ROCE_API uint64_t roce_timeseries_untracked(const roce_timeseries_t *ts) ROCE_NONNULL(1);
ROCE_API uint64_t roce_timeseries_replaced(const roce_timeseries_t *ts) ROCE_NONNULL(1);

struct roce_ts_pause {
	uint64_t start_ns, end_ns;
	uint64_t start_frame;
	bool storm;                 /* it (or one merged into it) was a storm */
	bool merged;                /* the hull of several intervals */
};

/*
 * One pause timeline, filled whole by roce_timeseries_timeline() (the caller's
 * struct, no size field): like struct roce_pkt (pkt.h) it grows at its end
 * while libroce is 0.x ('interface' was appended in December 2026), so a
 * program that links the shared library is rebuilt with the header of the
 * library it runs with.
 */
struct roce_ts_timeline {
	uint8_t src_mac[6];
	int priority;               /* 0..7; -1 = 802.3x PAUSE */
	const struct roce_ts_pause *pauses;   /* in closing order */
	uint32_t n_pauses;
	uint64_t closed;            /* pause events seen for this timeline */
	uint64_t storms;
	/* (members below: since 0.2; written by the library only) */
	uint32_t interface;         /* capture interface (roce_analyzer_set_interface()) */
};

ROCE_API unsigned roce_timeseries_ntimelines(const roce_timeseries_t *ts) ROCE_NONNULL(1);
ROCE_API void roce_timeseries_timeline(const roce_timeseries_t *ts, unsigned i,
	struct roce_ts_timeline *out) ROCE_NONNULL(1, 3);
/* Pause events of (interface, MAC, priority) keys beyond max_pause_keys. */
ROCE_API uint64_t roce_timeseries_pauses_dropped(const roce_timeseries_t *ts) ROCE_NONNULL(1);

#ifdef __cplusplus
}
#endif

#endif /* ROCE_TIMESERIES_H */
