/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report_html.h - roce-analyze --html FILE: one self-contained HTML page
 * (docs/html-report.md) with the run's time series (libroce's
 * <roce/timeseries.h>, subscribed when the writer opens), the summary, the
 * per-QP and PFC tables and the anomaly list.  Written alongside any other
 * output.
 *
 * The driver opens it right after creating the analyzer (so the time series
 * sees every frame and an unwritable path is an error before the run), hands
 * it each capture file's pcapng metadata before closing the file, and writes
 * it after roce_analyzer_finish().
 */
#ifndef ROCE_ANALYZE_REPORT_HTML_H
#define ROCE_ANALYZE_REPORT_HTML_H

#include <stddef.h>

#include <roce/analyzer.h>

#include "analyze.h"
#include "capread.h"

struct ra_html;

/* NULL with a message in errbuf when path cannot be created. */
struct ra_html *ra_html_open(const char *path, roce_analyzer_t *an, char *errbuf, size_t len);
/* Keep the metadata strings of input file number file (copies; bounded). */
void ra_html_file_meta(struct ra_html *h, unsigned file, const roce_capfile_t *c);
/* Write and close the page; 0, or -1 with a message in errbuf. */
int ra_html_write(struct ra_html *h, const struct ra_ctx *ctx, char *errbuf, size_t len);
/* After the analyzer is destroyed (the time series is its observer). */
void ra_html_free(struct ra_html *h);

#endif /* ROCE_ANALYZE_REPORT_HTML_H */
