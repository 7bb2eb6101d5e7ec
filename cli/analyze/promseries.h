/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * promseries.h - the labelled Prometheus series of roce-analyze: one series
 * per QP stream (labels version, src, dst, dqpn) and per PFC/PAUSE sender
 * (labels mac, priority; with senders on several capture interfaces also
 * interface_id and if_name), with a cap on their number.
 *
 * Cardinality: at most max_streams stream series and max_senders sender
 * series.  A series, once given, stays as long as its stream or sender is
 * in the analyzer's table (sticky: a series never jumps between streams);
 * a free place goes, at the next update, to the stream (sender) with the
 * most frames among those without one.  Everything else is folded into
 * one series whose labels all read "other": streams over the cap, streams
 * that ended (expired or evicted), and the part a stream had while it was
 * folded, should it get its own series later (its series then counts from
 * that moment).  So every series, "other" included, only ever grows, and
 * the series of a family add up to the whole run.  roce_streams_folded /
 * roce_pfc_senders_folded say how many live ones are folded now.
 */
#ifndef ROCE_ANALYZE_PROMSERIES_H
#define ROCE_ANALYZE_PROMSERIES_H

#include <stdint.h>
#include <stdio.h>

#include <roce/analyzer.h>

#define RA_PROM_MAX_STREAMS_DEFAULT 100
#define RA_PROM_MAX_SENDERS_DEFAULT 100

typedef struct ra_promseries ra_promseries_t;

/* Subscribes to an's stream ends (an observer); NULL if that fails. */
ra_promseries_t *ra_promseries_new(roce_analyzer_t *an, unsigned max_streams,
				   unsigned max_senders);
/* Read the tables now (frames_now: the frame count, for "seen before"). */
void ra_promseries_update(ra_promseries_t *ps, const roce_analyzer_t *an, uint64_t frames_now);
/*
 * The run's capture interfaces (ctx->ifaces, n_ifaces), for the if_name label of senders on
 * several interfaces; set again before each update (the array may move).
 */
struct ra_iface;
void ra_promseries_set_ifaces(ra_promseries_t *ps, const struct ra_iface *ifaces, uint32_t n);
/* The series of the last update. */
void ra_promseries_format(FILE *f, const ra_promseries_t *ps, const char *iface);
void ra_promseries_free(ra_promseries_t *ps);

/* A label value in the Prometheus text format, escaped (\\, \", \n); prom.c uses it too. */
void ra_prom_label(FILE *f, const char *s);

#endif /* ROCE_ANALYZE_PROMSERIES_H */
