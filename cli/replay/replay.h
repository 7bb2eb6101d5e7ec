/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * replay.h - roce-replay's shared state: options, the schedule, sender
 * threads and the statistics they publish (main.c, stats.c).
 */
#ifndef ROCE_REPLAY_H
#define ROCE_REPLAY_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <roce/rewrite.h>

#include "tx.h"

#define RR_PROG "roce-replay"

#define EXIT_OK     0
#define EXIT_SENDERR 1
#define EXIT_USAGE  2

enum rr_mode {
	RR_ORIGINAL = 0,  /* capture timestamps / multiplier */
	RR_TOPSPEED,
	RR_PPS,
	RR_BPS
};

struct rr_opts {
	const char *ifname;
	const char **files;
	unsigned n_files;
	enum rr_mode mode;
	double multiplier;
	double pps;
	double bps;           /* bits per second */
	bool line_rate;       /* bps counts L1 (preamble, SFD, FCS, IFG) */
	uint64_t loops;       /* 0 = forever */
	uint64_t limit;       /* 0 = none */
	double duration;      /* seconds, 0 = none */
	bool preload;
	unsigned threads;
	unsigned burst;
	int engine;
	double stats_interval;
	bool quiet;
	bool json;
	bool verbose;
	struct roce_rewrite rw;
};

/* Counters one sender thread publishes (written by it, read by the reporter). */
/* One sender thread's live counters, written once a batch: one cache line each, so the
 * threads do not write into each other's line. */
struct rr_live {
	_Alignas(64) _Atomic uint64_t packets;
	_Atomic uint64_t bytes, l1_bytes, errors, retries;
	_Atomic int done;
};

struct rr_final {
	uint64_t packets, bytes, l1_bytes, errors, retries;
	uint64_t elapsed_ns;
	struct roce_tx_dev dev;          /* send time - deadline, paced modes */
	uint64_t rewritten, icrc_fixed, icrc_kept_bad, not_roce, icrc_unverified;
	const char *engine;
	const char *engine_note;
	unsigned threads;
	int fatal;                       /* engine error that ended a thread */
};

/* L1 bytes of a frame without FCS: + FCS 4 + preamble/SFD 8 + IFG 12, 64-byte minimum. */
static inline uint64_t rr_l1_bytes(uint32_t len)
{
	return (uint64_t)(len + 4 < 64 ? 64 : len + 4) + 20;
}

/* stats.c */
void rr_stats_live(const struct rr_opts *o, struct rr_live *live, unsigned n, uint64_t start_ns,
		   uint64_t now_ns);
void rr_stats_final(const struct rr_opts *o, const struct rr_final *f);

#endif /* ROCE_REPLAY_H */
