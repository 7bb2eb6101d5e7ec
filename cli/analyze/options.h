/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * options.h - roce-analyze's command line: GOption entries (each option
 * declared once, driving both parsing and --help), their checks, and the
 * BPF filter built from the words after the options.
 *
 * ra_parse_options() fills the run's options (struct ra_opts, read by the
 * driver and the report writers) and the options only the driver uses
 * (struct ra_cli).  A usage error prints one line and exits 2; under
 * --check it prints a Nagios UNKNOWN line and exits 3.
 */
#ifndef ROCE_ANALYZE_OPTIONS_H
#define ROCE_ANALYZE_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

#include <glib.h>

#include "analyze.h"
#include "capfilter.h"
#include "health.h"

#define EXIT_OK     0
#define EXIT_ANOM   1
#define EXIT_USAGE  2

struct ra_cli {
	uint64_t threads;                   /* --threads; 0: 2 when more than one CPU */
	GPtrArray *files, *rest;            /* -r FILEs; the words after the options */
	char *filter_expr;                  /* -f EXPR */
	roce_capfilter_t *filter;           /* the compiled filter (files); NULL none */
	char *extract, *html;               /* --extract FILE, --html FILE */
	gboolean version, check;            /* -V, --check */
	gboolean line_buffered;             /* -l: stdout flushed at every line */
	struct ra_thresholds *thresholds;   /* --warn/--crit */
	char *user;                         /* -Z USER */
	char *textfile, *prom_addr;         /* --prometheus-textfile, --prometheus */
	uint64_t interval_ns;               /* --interval; 0 none */
	uint64_t prom_streams, prom_senders;/* --prometheus-max-streams/-senders */
};

/* Parse argv (check: --check is on the command line, so usage errors are
 * Nagios UNKNOWN).  Exits on a usage error, -V and --help. */
void ra_parse_options(int argc, char **argv, bool check, struct ra_opts *o, struct ra_cli *cli);

/* Frees what ra_parse_options() allocated in cli. */
void ra_cli_free(struct ra_cli *cli);

#endif /* ROCE_ANALYZE_OPTIONS_H */
