/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * extract.h - roce-analyze --extract: write the frames involved in
 * anomalies (and --context N frames around each, and the frames whose
 * analyzer result links back to one of them: ACKs, READ responses) to a
 * capture file, in one pass with bounded memory.
 */
#ifndef RA_EXTRACT_H
#define RA_EXTRACT_H

#include <stdbool.h>
#include <stdint.h>

#include <roce/analyzer.h>

#include "capread.h"

#define RA_EXTRACT_MAX_CONTEXT 10000u

struct ra_extract;

/*
 * Open the output: classic pcap (nanoseconds) when path ends in ".pcap",
 * else pcapng with a packet comment "frame N of FILE" on each record.
 * linktype is the output's (the first input's); NULL with a message in
 * errbuf (ROCE_ERRBUF_SIZE) on failure.
 */
struct ra_extract *ra_extract_open(const char *path, int linktype, unsigned context,
				   char *errbuf);

/* The analyzer reported an anomaly on global frame no (called from on_anomaly). */
void ra_extract_mark(struct ra_extract *x, uint64_t no);

/*
 * One frame, after roce_analyzer_process() gave res for it (global frame
 * number no; local_no and file name for the comment).  Returns 0 or the
 * writer's error (ROCE_CAP_E_IO ...).
 */
int ra_extract_frame(struct ra_extract *x, uint64_t no, uint64_t local_no, const char *file,
		     const struct roce_cap_record *rec, const struct roce_frame_result *res);

/* Close; written/skipped get the record counts (skipped: other link type). */
int ra_extract_close(struct ra_extract *x, uint64_t *written, uint64_t *skipped);

#endif /* RA_EXTRACT_H */
