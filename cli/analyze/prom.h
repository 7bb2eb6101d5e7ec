/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * prom.h - roce-analyze --prometheus-textfile: the run's counters in the
 * Prometheus text exposition format, for node-exporter's textfile collector,
 * written atomically (a temporary file in the same directory, renamed).
 */
#ifndef ROCE_ANALYZE_PROM_H
#define ROCE_ANALYZE_PROM_H

#include <stdio.h>

#include "health.h"


/* The metrics of snapshot sn (cumulative since the start) on f; with sn->series, the
 * labelled series too. */
void ra_prom_format(FILE *f, const char *iface, const struct ra_snap *sn);

/* Write them to path atomically; 0, or -1 with a one-line message in errbuf. */
int ra_prom_write(const char *path, const char *iface, const struct ra_snap *sn, char *errbuf,
		  size_t errlen);

#endif /* ROCE_ANALYZE_PROM_H */
