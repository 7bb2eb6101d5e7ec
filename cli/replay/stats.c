/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stats.c - roce-replay's statistics: a line every --stats seconds on
 * stderr while sending, and the final summary (text or --json) on stdout.
 *
 * Rates: pps; Gb/s of L2 bytes (the frames as captured, no FCS, what
 * tcpreplay counts) and of L1 bytes (+ FCS, preamble/SFD and IFG: 24 bytes
 * per frame, 84 at least: what a switch port's line rate counts).  Decimal
 * units (1 Gb/s = 10^9 bit/s).
 */
#include <inttypes.h>
#include <stdio.h>

#include "replay.h"

static double target_pps(const struct rr_opts *o)
{
	return o->mode == RR_PPS ? o->pps : 0.0;
}

static const char *mode_name(const struct rr_opts *o)
{
	switch (o->mode) {
	case RR_TOPSPEED: return "topspeed";
	case RR_PPS: return "pps";
	case RR_BPS: return o->line_rate ? "bps-l1" : "bps-l2";
	default: return "original";
	}
}

void rr_stats_live(const struct rr_opts *o, struct rr_live *live, unsigned n, uint64_t start_ns,
		   uint64_t now_ns)
{
	uint64_t p = 0, b = 0, b1 = 0, e = 0;
	double s = (double)(now_ns - start_ns) / 1e9;

	for (unsigned i = 0; i < n; i++) {
		p += atomic_load_explicit(&live[i].packets, memory_order_relaxed);
		b += atomic_load_explicit(&live[i].bytes, memory_order_relaxed);
		b1 += atomic_load_explicit(&live[i].l1_bytes, memory_order_relaxed);
		e += atomic_load_explicit(&live[i].errors, memory_order_relaxed);
	}
	if (s <= 0)
		s = 1e-9;
	fprintf(stderr, "%s: %.1f s: %" PRIu64 " packets, %" PRIu64 " bytes, %.0f pps, "
		"%.3f Gb/s (L1 %.3f), %" PRIu64 " send errors\n", RR_PROG, s, p, b, p / s,
		b * 8.0 / s / 1e9, b1 * 8.0 / s / 1e9, e);
}

void rr_stats_final(const struct rr_opts *o, const struct rr_final *f)
{
	double s = (double)f->elapsed_ns / 1e9;
	double pps, gl2, gl1, ratio = 0.0;
	uint64_t p50 = roce_tx_dev_quantile(&f->dev, 0.50);
	uint64_t p99 = roce_tx_dev_quantile(&f->dev, 0.99);

	if (s <= 0)
		s = 1e-9;
	pps = f->packets / s;
	gl2 = f->bytes * 8.0 / s / 1e9;
	gl1 = f->l1_bytes * 8.0 / s / 1e9;
	if (o->mode == RR_PPS && o->pps > 0)
		ratio = pps / o->pps;
	else if (o->mode == RR_BPS && o->bps > 0)
		ratio = (o->line_rate ? gl1 : gl2) * 1e9 / o->bps;

	if (o->json) {
		printf("{\n  \"interface\": \"%s\",\n  \"engine\": \"%s\",\n  \"threads\": %u,\n",
		       o->ifname, f->engine, f->threads);
		printf("  \"mode\": \"%s\",\n", mode_name(o));
		printf("  \"packets\": %" PRIu64 ",\n  \"bytes\": %" PRIu64 ",\n"
		       "  \"l1_bytes\": %" PRIu64 ",\n", f->packets, f->bytes, f->l1_bytes);
		printf("  \"send_errors\": %" PRIu64 ",\n  \"retries\": %" PRIu64 ",\n",
		       f->errors, f->retries);
		printf("  \"elapsed_s\": %.6f,\n  \"pps\": %.1f,\n  \"gbps_l2\": %.6f,\n"
		       "  \"gbps_l1\": %.6f,\n", s, pps, gl2, gl1);
		printf("  \"target_pps\": %.1f,\n  \"target_gbps\": %.6f,\n",
		       target_pps(o), o->mode == RR_BPS ? o->bps / 1e9 : 0.0);
		printf("  \"achieved_ratio\": %.6f,\n", ratio);
		printf("  \"deadline_dev_ns\": {\"frames\": %" PRIu64 ", \"mean\": %.0f, "
		       "\"p50\": %" PRIu64 ", \"p99\": %" PRIu64 ", \"max\": %" PRIu64 "},\n",
		       f->dev.n, f->dev.n ? (double)f->dev.sum_ns / f->dev.n : 0.0, p50, p99,
		       f->dev.max_ns);
		printf("  \"rewritten\": %" PRIu64 ",\n  \"icrc_recomputed\": %" PRIu64 ",\n"
		       "  \"icrc_kept_bad\": %" PRIu64 ",\n  \"icrc_unverified\": %" PRIu64 ",\n"
		       "  \"not_roce\": %" PRIu64 "\n}\n", f->rewritten, f->icrc_fixed,
		       f->icrc_kept_bad, f->icrc_unverified, f->not_roce);
		return;
	}
	printf("Actual: %" PRIu64 " packets (%" PRIu64 " bytes) sent in %.6f seconds\n",
	       f->packets, f->bytes, s);
	printf("Rated: %.1f pps, %.6f Gb/s L2, %.6f Gb/s L1\n", pps, gl2, gl1);
	if (ratio > 0.0 && o->mode == RR_PPS)
		printf("Target: %.1f pps, achieved %.4f%% of it\n", o->pps, ratio * 100.0);
	else if (ratio > 0.0)
		printf("Target: %.6f Gb/s %s, achieved %.4f%% of it\n", o->bps / 1e9,
		       o->line_rate ? "L1" : "L2", ratio * 100.0);
	if (f->dev.n)
		printf("Deadline deviation: mean %.0f ns, p50 %" PRIu64 " ns, p99 %" PRIu64
		       " ns, max %" PRIu64 " ns\n", (double)f->dev.sum_ns / f->dev.n, p50, p99,
		       f->dev.max_ns);
	printf("Send errors: %" PRIu64 " (retries %" PRIu64 "), engine %s, %u thread%s\n",
	       f->errors, f->retries, f->engine, f->threads, f->threads == 1 ? "" : "s");
	if (roce_rewrite_active(&o->rw))
		printf("Rewritten: %" PRIu64 " frames, ICRC recomputed %" PRIu64
		       " (kept bad %" PRIu64 "), ICRC not captured %" PRIu64 ", not RoCE %" PRIu64
		       "\n", f->rewritten, f->icrc_fixed, f->icrc_kept_bad, f->icrc_unverified,
		       f->not_roce);
}
