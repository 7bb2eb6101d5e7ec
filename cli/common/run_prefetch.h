/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * run_prefetch.h - the analyzer's loads ahead over a run of capture records, for a loop
 * that analyses records one by one (roce-analyze's plain loop, bench/an_bench.c).
 *
 * Many streams (the table no longer fits the caches): while recs[ri] is analysed, the next
 * record's stream record starts loading (its table slot was asked for ROCE_RUN_AHEAD - 1
 * records ago), and the slot of the record ROCE_RUN_AHEAD on (five: with two, the slot of a
 * new stream's frame was still on its way when the record load read it; docs/perf/many-qps.md,
 * h71).  token[] carries roce_analyzer_prefetch_slot()'s answers from call to call (all 0
 * before the first record).  Call it only when roce_analyzer_prefetch_wanted() says so.
 */
#ifndef ROCE_CLI_RUN_PREFETCH_H
#define ROCE_CLI_RUN_PREFETCH_H

#include <stdint.h>

#include <roce/analyzer.h>

#include "capread.h"

/*
 * How many records ahead the slot is asked for (the stream record is loaded a record ahead):
 * at most AN_HINTS - 1 (the analyzer keeps the newest AN_HINTS frames' hashes: the current
 * one's and those ahead).
 */
#ifndef ROCE_RUN_AHEAD
#define ROCE_RUN_AHEAD 5u
#endif
#define ROCE_RUN_TOKENS 8u              /* a power of 2 above ROCE_RUN_AHEAD */

/*
 * token[]: roce_analyzer_prefetch_slot()'s answers, token[i & 7] that of the run's record i,
 * token[ROCE_RUN_TOKENS] that of the next run's first record (peeked at); all 0 before the
 * first record.
 */
static inline __attribute__((always_inline)) void roce_run_prefetch(roce_analyzer_t *an,
	roce_capfile_t *c, const struct roce_cap_record *recs, unsigned ri, unsigned rn,
	uint32_t token[ROCE_RUN_TOKENS + 1])
{
	const unsigned d = ROCE_RUN_AHEAD;
	const uint8_t *nd;
	uint32_t nl;

	if (ri == 0 && rn > 1) {        /* a new run: its first records' slots were not asked for */
		roce_analyzer_prefetch(an, recs[1].linktype, recs[1].data, recs[1].caplen);
		token[1] = 0;
		for (unsigned k = 2; k < d && k < rn; k++)
			token[k] = roce_analyzer_prefetch_slot(an, recs[k].linktype, recs[k].data,
							       recs[k].caplen);
	}
	if (ri + 1 < rn) {
		roce_analyzer_prefetch_stream(an, token[(ri + 1) & (ROCE_RUN_TOKENS - 1)]);
	} else {
		roce_analyzer_prefetch_stream(an, token[ROCE_RUN_TOKENS]);
		token[ROCE_RUN_TOKENS] = 0;
	}
	if (ri + d < rn)
		token[(ri + d) & (ROCE_RUN_TOKENS - 1)] = roce_analyzer_prefetch_slot(an,
			recs[ri + d].linktype, recs[ri + d].data, recs[ri + d].caplen);
	else if ((ri + d == rn || (rn < d && ri + 1 == rn)) && roce_cap_peek(c, &nd, &nl))
		token[ROCE_RUN_TOKENS] = roce_analyzer_prefetch_slot(an, recs[ri].linktype, nd, nl);
}

#endif
