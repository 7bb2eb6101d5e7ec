/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * health.h - roce-analyze's health metrics: snapshots of the analyzer's
 * summary and PFC table, the metrics of an interval (or a whole run) as
 * differences of two snapshots, --interval lines (text / JSON Lines), and
 * the --warn/--crit thresholds and --check's Nagios status line.
 */
#ifndef ROCE_ANALYZE_HEALTH_H
#define ROCE_ANALYZE_HEALTH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "analyze.h"

struct ra_promseries;

#define RA_PRIOS 9                  /* PFC priorities 0..7, and 8 = 802.3x PAUSE */

struct ra_snap {
	struct roce_summary s;
	uint64_t paused_ns[RA_PRIOS];   /* per priority: the most paused sender's time */
	uint64_t drops;                 /* the capture's own */
	const struct ra_promseries *series; /* Prometheus: the labelled series, or NULL */
};

struct ra_metrics {
	double secs;                    /* length of the interval / run */
	uint64_t frames, bytes, icrc_bad, psn_gaps, lost_psns, duplicates, naks, rnr_naks;
	uint64_t cnps, ecn_ce, ecn_capable, pfc_storms, capture_drops, evicted_flows;
	uint64_t expired_flows;
	uint64_t acked_unseen_psns;     /* request PSNs ACKed that the capture never saw */
	double gbps, cnp_per_s, lost_psns_per_s, ce_ratio;
	double paused_ratio[RA_PRIOS];
	double pfc_paused_ratio;        /* the largest of paused_ratio[] */
};

void ra_snap_take(const struct ra_ctx *ctx, uint64_t drops, struct ra_snap *out);
void ra_metrics_delta(const struct ra_snap *a, const struct ra_snap *b, double secs,
		      struct ra_metrics *m);

/* One --interval line, time_ns its end (UTC, ms): text, or one JSON object (json). */
void ra_interval_print(FILE *f, bool json, uint64_t wall_ns, const struct ra_metrics *m);

/* --warn / --crit: "name>value" items, comma separated; false + message on a bad item. */
struct ra_thresholds;
struct ra_thresholds *ra_thr_new(void);
bool ra_thr_add(struct ra_thresholds *t, bool crit, const char *list, char *err, size_t errlen);
bool ra_thr_empty(const struct ra_thresholds *t);
void ra_thr_free(struct ra_thresholds *t);

/* Nagios states, also --check's exit status */
enum ra_state { RA_OK = 0, RA_WARNING = 1, RA_CRITICAL = 2, RA_UNKNOWN = 3 };

/*
 * --check: evaluate the thresholds on m, print one status line with
 * performance data on f, return the state.  unknown_reason non-NULL: the
 * check could not be made (UNKNOWN with that reason).
 */
enum ra_state ra_check_report(FILE *f, const struct ra_thresholds *t, const struct ra_metrics *m,
			      const char *unknown_reason);

/* The metric names thresholds accept, comma separated (for --help). */
const char *ra_metric_names(void);

#endif /* ROCE_ANALYZE_HEALTH_H */
