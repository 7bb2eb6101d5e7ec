/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * capread_probe.c - the probe of the helper that works ahead of the reader
 * (capread_ahead.c): whether taking the helper's bytes makes the reader
 * faster on this machine, with this file, measured by the reader in
 * alternating windows with and without the helper (see capr_probe()).
 */
#define _GNU_SOURCE
#include "capread_ahead_int.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/*
 * How far the helper may run ahead while the probe runs: two windows, so that
 * it can get one window ahead (where its window starts) and the reader's
 * window after it (which starts past what the helper read) comes soon.
 */
static uint64_t ah_probe_dist(const struct cap_ahead *a)
{
	return a->probe_w && 2 * a->probe_w < AH_DIST ? 2 * a->probe_w : AH_DIST;
}

/*
 * Bytes the reader reads after each switch of the probe (helper paused, helper
 * walking again) before it times the window: the same for both kinds, half a
 * window (the helper's leap, about AH_LEAP_RECS records, is within it on the
 * large frames).
 */
static uint64_t ah_probe_settle(const struct cap_ahead *a)
{
	return a->probe_w / 2;
}

/*
 * The probe's settings, for tests and tuning: ROCE_CAP_AHEAD_PROBE=BYTES (each
 * timed window; 0: no probe, the helper's bytes are always taken),
 * ROCE_CAP_AHEAD_CHOOSE=helper|reader (the outcome, once timed; "reader-once":
 * the first probe's outcome is the reader alone, later probes decide by time),
 * ROCE_CAP_AHEAD_REPROBE=BYTES (the reader alone's first stretch before it
 * probes again) and
 * ROCE_CAP_AHEAD_MIN=BYTES (instead of the caller's min_caplen) and
 * ROCE_CAP_AHEAD_RUNS=N (tests: the reader claims AH_RUN chunks after the
 * helper's at every N-th chunk it enters, as if it had caught up, so that the
 * helper leaps; where such a chunk is not the helper's yet, the reader first
 * waits for the helper to publish past it, up to 1 s in all per file, so that
 * the leaps do not depend on the scheduler: ah_force_wait()).  And for any
 * mapped file, with or without the helper: ROCE_CAP_TEST_CUT_AT_FRAME=N (the
 * file cut right after record N was handed out, before the caller decodes it:
 * capr_test_cut() in capread_src.c).
 */
void capr_probe_config(struct roce_capfile *c, struct cap_ahead *a)
{
	const char *e = getenv("ROCE_CAP_AHEAD_PROBE");
	char *end;

	a->probe_w = AH_PROBE_BYTES;
	if (e && *e) {
		unsigned long long v = strtoull(e, &end, 0);

		if (!*end)
			a->probe_w = v;
	}
	a->probe = a->probe_w ? AH_P_WARM : AH_P_DONE;
	atomic_init(&a->dist, ah_probe_dist(a));
	e = getenv("ROCE_CAP_AHEAD_MIN");
	if (e && *e) {
		unsigned long v = strtoul(e, &end, 0);

		if (!*end && v <= UINT32_MAX)
			c->ahead_min = (uint32_t)v;
	}
	e = getenv("ROCE_CAP_AHEAD_RUNS");
	if (e && *e)
		a->force_run = strtoull(e, NULL, 0);
	e = getenv("ROCE_CAP_AHEAD_CHOOSE");
	a->choose = !e ? 0 : !strcmp(e, "helper") ? 1 : !strcmp(e, "reader") ? 2 :
		    !strcmp(e, "reader-once") ? 3 : 0;
	a->reprobe_first = AH_REPROBE;
	e = getenv("ROCE_CAP_AHEAD_REPROBE");
	if (e && *e) {
		unsigned long long v = strtoull(e, &end, 0);

		if (!*end && v)
			a->reprobe_first = v;
	}
}

static void ah_tell_helper(struct roce_capfile *c, struct cap_ahead *a, int mode)
{
	atomic_store(&a->mode, mode);
	pthread_mutex_lock(&c->helper_mu);      /* see ah_sleep() */
	pthread_cond_signal(&c->helper_cv);
	pthread_mutex_unlock(&c->helper_mu);
}

/*
 * The probe, at the reader's chunk entries (its record k): after
 * AH_PROBE_WARM bytes, AH_PROBE_PAIRS pairs of windows of probe_w bytes each,
 * the first taking the helper's bytes, the second with the helper paused
 * (page work only) and every record done by the reader, as with no helper.
 * Both kinds of window are measured alike: each starts half a window
 * (ah_probe_settle()) after its switch (AH_P_RESUME: the helper walking again,
 * which leaps ahead of the reader in pcap; AH_P_DRAIN: the helper paused, and
 * then until the reader is past the last record the helper published, whose
 * lines would still be in the cache) and lasts probe_w bytes, so that neither
 * times its transition and both time
 * their way as it runs on (until 5 December 2026 the helper's window waited
 * for the helper to be well ahead, by its record index, and the reader's for
 * the reader to be past the helper's records: not the same rule).
 * The helper stays if it was faster per byte in most pairs (a machine shared
 * with others slows some windows at random: alternating short windows and
 * voting keeps one slow window from deciding) and over all its windows
 * together (a close vote with sums far apart is noise in the vote).  Else the
 * reader goes on alone with the helper paused (AH_P_ALONE), and probes again
 * after AH_REPROBE bytes, then twice as many, and so on: a shared machine
 * changes, and a probe in a bad moment must not decide the whole file (pcap
 * only, where the helper can jump to the reader; in pcapng, and when the
 * outcome is forced, the helper stops walking for good).  A probe ends as soon
 * as its outcome is sure: the pairs left could not give the helper most of
 * them, or it already has most of them and the sums agree.
 */
void capr_probe(struct roce_capfile *c, struct cap_ahead *a, uint64_t k)
{
	uint64_t pos = c->pos, now, t, b;
	uint64_t w = a->probe == AH_P_WARM ? AH_PROBE_WARM : a->probe_w;
	bool helper, sums;

	if (a->probe == AH_P_ALONE) {
		if (pos < a->reprobe_pos)
			return;
		/* the machine may have changed: measure again */
		a->t_helper = a->b_helper = a->t_reader = a->b_reader = 0;
		a->pairs = a->helper_wins = 0;
		a->probe = AH_P_RESUME;
		a->settle_pos = pos + ah_probe_settle(a);
		atomic_store_explicit(&a->dist, ah_probe_dist(a), memory_order_relaxed);
		ah_tell_helper(c, a, AH_WALK);
		return;
	}
	if (a->probe == AH_P_DRAIN || a->probe == AH_P_RESUME) {
		/* each kind of window starts the same distance after its switch */
		if (pos < a->settle_pos)
			return;
		if (a->probe == AH_P_DRAIN) {
			/* and the reader's only past what the paused helper read: up
			 * to two windows ahead, still in the caches when the reader
			 * got there (half a window only after the switch, until 5
			 * December 2026 06:45 UTC, timed the reader alone on lines
			 * the helper had just read: 8.2 GB/s against 4.9 GB/s for
			 * the reader alone over the file, and the probe chose the
			 * reader in one run of two where the helper's bytes made the
			 * whole run 1.3x faster) */
			uint64_t d = atomic_load_explicit(&a->done, memory_order_acquire);

			if (d && pos < a->end[(d - 1) & (AH_RING - 1)])
				return;
		}
		a->probe = a->probe == AH_P_DRAIN ? AH_P_READER : AH_P_HELPER;
		a->probe_t = ah_clock();
		a->probe_pos = pos;
		return;
	}
	(void)k;
	if (pos < a->probe_pos + w)
		return;
	now = ah_clock();
	t = now - a->probe_t;
	b = pos - a->probe_pos;
	switch (a->probe) {
	case AH_P_WARM:
		a->probe = AH_P_RESUME;
		a->settle_pos = pos + ah_probe_settle(a);
		break;
	case AH_P_HELPER:
		a->t_helper += t;
		a->b_helper += b;
		atomic_store(&a->mode, AH_PAUSE);
		a->probe_h_t = t;
		a->probe_h_b = b;
		a->settle_pos = pos + ah_probe_settle(a);
		a->probe = AH_P_DRAIN;
		return;
	default:
		a->t_reader += t;
		a->b_reader += b;
		/* ns per byte, compared without dividing: all below 2^40 */
		if (a->probe_h_t * b < t * a->probe_h_b)
			a->helper_wins++;
		++a->pairs;
		sums = (cap_u128)a->t_helper * a->b_reader < (cap_u128)a->t_reader * a->b_helper;
		/* more pairs only while the outcome is open: the helper can still
		 * win most of them, and has not already won most with the sums */
		if (a->pairs < AH_PROBE_PAIRS &&
		    (a->helper_wins + AH_PROBE_PAIRS - a->pairs) * 2 > AH_PROBE_PAIRS &&
		    !(a->helper_wins * 2 > AH_PROBE_PAIRS && sums)) {
			a->probe = AH_P_RESUME;
			a->settle_pos = pos + ah_probe_settle(a);
			ah_tell_helper(c, a, AH_WALK);
			break;
		}
		a->probe = AH_P_DONE;
		a->probes++;
		/* faster in most pairs, and in less time per byte over all
		 * its windows: where the vote is close but the sums are not,
		 * the reader alone (what --threads 1 does) */
		helper = a->helper_wins * 2 > AH_PROBE_PAIRS && sums;
		if (a->choose == 3) {
			helper = false;
			a->choose = 0;  /* once */
		}
		if (a->choose)
			helper = a->choose == 1;
		if (!helper && !a->choose && c->fmt == FMT_PCAP) {
			/* alone for now, the helper paused (page work only), and
			 * measured again further on: a machine shared with others
			 * changes; the helper jumps to the reader then (pcap) */
			a->probe = AH_P_ALONE;
			a->reprobe_gap = a->reprobe_gap ? 2 * a->reprobe_gap : a->reprobe_first;
			a->reprobe_pos = pos + a->reprobe_gap;
			break;  /* mode stays AH_PAUSE */
		}
		if (!helper)
			a->r_off = true;
		atomic_store_explicit(&a->dist, AH_DIST, memory_order_relaxed);
		ah_tell_helper(c, a, helper ? AH_WALK : AH_QUIT);
		break;
	}
	a->probe_t = now;
	a->probe_pos = pos;
}
