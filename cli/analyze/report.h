/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report.h - roce-analyze's output writers, as the driver (main.c) calls
 * them: the end-of-run report as text (report_text.c), JSON (report_json.c,
 * keys in docs/json.md) or CSV (report_csv.c), and one --frames line per
 * frame (report_frames.c).
 *
 * Dependencies run one way: main.c -> report.h -> analyze.h.  The writers
 * read the run's state (struct ra_ctx) and call libroce; they never call
 * back into the driver.
 */
#ifndef ROCE_ANALYZE_REPORT_H
#define ROCE_ANALYZE_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <roce/analyzer.h>
#include <roce/pkt.h>

#include "analyze.h"

/* Report of the whole run (after roce_analyzer_finish()). */
void ra_report_text(const struct ra_ctx *ctx, FILE *f);
void ra_report_json(const struct ra_ctx *ctx, FILE *f, bool pretty);
void ra_report_csv(const struct ra_ctx *ctx, FILE *f);

/* One --frames line for a RoCE / PFC / PAUSE frame. */
struct ra_frame {
	uint64_t global_no, local_no;
	unsigned file;
	uint32_t iface;             /* the run's capture interface (ifaces.h) */
	uint64_t ts_ns;
	bool no_ts;                 /* the frame has no timestamp (SPB, out of range) */
	const struct roce_pkt *pkt;
	int status;
	const struct roce_frame_result *res;
};
void ra_frame_text(const struct ra_ctx *ctx, const struct ra_frame *fr, FILE *f);
void ra_frame_json(const struct ra_ctx *ctx, const struct ra_frame *fr, FILE *f);

#endif /* ROCE_ANALYZE_REPORT_H */
