/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * capread_ahead_int.h - what the helper that works ahead of the reader
 * (capread_ahead.c) shares with its probe (capread_probe.c): the state of one
 * open file's helper, struct cap_ahead, and its constants.  Only those two
 * files include it.
 */
#ifndef ROCE_CAPREAD_AHEAD_INT_H
#define ROCE_CAPREAD_AHEAD_INT_H

#include "capread_ahead.h"

#include <stdalign.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#define AH_RUN 4u                       /* chunks the reader takes when it catches up */
#define AH_DIST (8u << 20)              /* bytes the helper may run ahead */
#define AH_MAX_IFACES 64u               /* pcapng interfaces the helper follows */
#define AH_LEAP_RECS 1024u              /* mean records the helper leaps ahead of the reader */
#define AH_LEAP_SCAN (256u << 10)       /* bytes it searches there for a record start */
#define AH_LEAP_CHAIN 8u                /* plausible headers in a row that make one */

struct ah_iface {
	int linktype;
	uint32_t snaplen;
};

/*
 * What the helper reads of the capture file for every record, copied once
 * before it starts (none of it changes after roce_cap_set_ahead() in a pcap
 * file; pcapng's byte order and interfaces are the helper's own, h_be and
 * h_ifs): the helper never reads struct roce_capfile's lines that the reader
 * writes at every run of records (pos, frame_no, ah_k, ahead_taken, ...).
 * Reading them there cost a cache line from the reader's core several times
 * a run and the reader as many lines back (measured: docs/perf/analyze-threads.md).
 */
struct ah_file {
	const uint8_t *map;
	uint64_t len;
	roce_cap_ahead_fn fn;
	void *user;
	uint32_t min;                           /* ahead_min */
	uint32_t lim;                           /* pcap: the largest plausible caplen */
	uint32_t tick;                          /* pcap: sub-second ticks a second */
	int linktype, fmt;
	uint8_t hl;                             /* pcap: record header bytes */
	bool be;
	uint8_t lens_swap;
};

struct cap_ahead {
	/* written by the helper (the reader CASes claim now and then) */
	alignas(64) _Atomic uint64_t claim;     /* first chunk nobody has claimed */
	_Atomic uint64_t done;                  /* records [0, done) walked by the helper */
	/* written by the reader */
	alignas(64) _Atomic uint64_t rd_idx;    /* records the reader has read */
	_Atomic uint64_t rd_pos;                /* its file position */
	_Atomic uint64_t rd_jump;               /* pcap: end of the chunk's first record << 16
						 * | chunk & 0xffff (where the helper can jump) */
	atomic_int mode;                        /* AH_WALK, AH_PAUSE, AH_QUIT (the probe's) */
	_Atomic uint64_t dist;                  /* bytes the helper may run ahead: AH_DIST, or
						 * two probe windows while the probe runs */
	/* the helper's sleep */
	alignas(64) atomic_int sleeping;
	_Atomic uint64_t wake_idx, wake_pos;    /* wake it when the reader gets here */
	_Atomic uint64_t wake_rel;              /* ... or here: pages to give back */
	atomic_bool stop;
	atomic_uintptr_t fault;                 /* page the helper faulted on (SIGBUS), 0 none */
	/* the helper's current segment (a run of records it walked from one start): id
	 * (bit 0: exact, its labels are the reader's), the offset it started at and the
	 * label of its first record; written before the first done of the segment */
	_Atomic uint64_t seg_id, seg_s, seg_l;
	_Atomic uint64_t rd_seg;                /* the speculative segment the reader synced to */

	/* the helper's part of the ring, published by done */
	alignas(64) uint64_t first_end[AH_NCHUNK];  /* end offset of each chunk's first record */
	uint64_t c_tag[AH_NCHUNK];              /* the chunk walked into this slot */
	uint64_t c_seg[AH_NCHUNK];              /* ... in which segment */
	uint8_t v[AH_RING];
	uint64_t end[AH_RING];                  /* end offset of every record walked: where the
						 * reader prefetches (walked, not only owned) */

	/* helper only */
	alignas(64) struct ah_file f;           /* the file, as the helper reads it */
	uint64_t h_pos, h_idx;                  /* next record: file offset, index */
	uint64_t st_own, st_skip, st_sleep, st_pop, st_jump, st_short; /* ROCE_CAP_AHEAD_STATS */
	uint64_t st_rel;
	size_t st_left;                         /* mapped when roce_cap_done() came */
	uint64_t st_leap, st_leap_fail, st_skip_ns, st_leap_ns, st_skip_recs;
	/* ROCE_CAP_AHEAD_STATS's "ahead-x" line: page work, sleep, thread CPU (ns), bytes the
	 * leaps scanned, and what made it leap: behind the reader, a segment the reader went
	 * past unsynced, a chunk the reader had claimed */
	uint64_t st_page_ns, st_sleep_ns, st_cpu_ns, st_leap_bytes;
	uint64_t st_lbehind, st_lunsync, st_lclaimed;
	uint64_t h_seg, h_seg_s;                /* the current segment's id and start */
	uint64_t w_bytes, w_recs;               /* own records walked: the mean record size */
	unsigned h_unsynced;                    /* speculative segments in a row never synced to */
	uint32_t h_sec;                         /* the last record's seconds */
	size_t populated;
	bool h_be;
	uint32_t h_nifs;
	struct ah_iface h_ifs[AH_MAX_IFACES];

	/* reader only (and the reader's c->ah_k: index of the next record read) */
	alignas(64) uint64_t r_done;            /* done as last seen */
	uint64_t mine_from, mine_until;         /* chunks the reader claimed */
	bool r_mine;                            /* the current chunk is the reader's */
	bool r_off;                             /* the helper's bytes are not used any more */
	bool r_ok;                              /* the helper's current chunk checked: its labels
						 * are the reader's */
	uint64_t r_seg;                         /* the speculative segment synced to */
	uint64_t st_sync;                       /* syncs (ROCE_CAP_AHEAD_STATS) */
	/* ... and the reader's own records: chunks claimed on entry, in runs after the
	 * helper's, not walked by the helper with the reader's labels; records not published */
	uint64_t st_r_claim, st_r_run, st_r_notwalked, st_r_unpub;
	/* the probe (reader only): is taking the helper's bytes faster? */
	int probe;                              /* AH_P_* */
	int choose;                             /* ROCE_CAP_AHEAD_CHOOSE: 0 measure, 1 helper, 2 reader */
	uint64_t force_run;                     /* ROCE_CAP_AHEAD_RUNS (tests): claim a run every
						 * this many chunks as if caught up */
	uint64_t force_wait_ns;                 /* ... and waited for the helper (ah_force_wait()) */
	uint64_t probe_w;                       /* bytes per timed window (0: no probe) */
	uint64_t probe_t, probe_pos;            /* start of the window being timed */
	uint64_t t_helper, b_helper;            /* ns and bytes of the pair's window with the helper */
	uint64_t t_reader, b_reader;            /* ... and without it (sums over the pairs) */
	unsigned pairs, helper_wins;            /* pairs timed, pairs the helper was faster in */
	uint64_t probe_h_t, probe_h_b;          /* the current pair's window with the helper */
	uint64_t settle_pos;                    /* AH_P_RESUME, AH_P_DRAIN: untimed until here */
	uint64_t reprobe_pos, reprobe_gap;      /* AH_P_ALONE until here; the next gap */
	uint64_t reprobe_first;                 /* the first gap */
	unsigned probes;                        /* probes finished */
};

enum { AH_WALK, AH_PAUSE, AH_QUIT };            /* mode */
/* probe: AH_P_DRAIN is the helper paused, untimed, until the reader is past what it read (the
 * reader takes the bytes the helper published before the pause and does the rest itself);
 * AH_P_ALONE the reader alone after a probe, until the next one (pcap) */
enum { AH_P_WARM, AH_P_RESUME, AH_P_HELPER, AH_P_DRAIN, AH_P_READER, AH_P_ALONE, AH_P_DONE };
#define AH_PROBE_WARM (8u << 20)        /* bytes before the probe starts */
#define AH_PROBE_BYTES (2u << 20)       /* bytes per timed window */
#define AH_PROBE_PAIRS 5u               /* window pairs (with, without the helper) */
#define AH_REPROBE (32u << 20)          /* bytes alone before probing again (doubling) */

static inline uint64_t ah_clock(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * The probe (capread_probe.c): its settings from the environment, once at the
 * start; and its step at each chunk the reader enters (record k), while
 * a->probe is not AH_P_DONE.
 */
void capr_probe_config(struct roce_capfile *c, struct cap_ahead *a);
void capr_probe(struct roce_capfile *c, struct cap_ahead *a, uint64_t k);

#endif /* ROCE_CAPREAD_AHEAD_INT_H */
