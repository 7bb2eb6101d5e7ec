/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * run_prefetch.h - the analyzer's loads ahead over a run of capture records, for a loop
 * that analyses records one by one (roce-analyze's plain loop, bench/an_bench.c).
 *
 * Many streams (the table no longer fits the caches): while recs[ri] is analysed, the next
 * record's stream record starts loading (its table slot was asked for a record ago), and
 * the slot of the record after it.  *token carries roce_analyzer_prefetch_slot()'s answer
 * for the record after the next from one call to the next (0 before the first record).
 * Call it only when roce_analyzer_prefetch_wanted() says so.
 */
#ifndef ROCE_CLI_RUN_PREFETCH_H
#define ROCE_CLI_RUN_PREFETCH_H

#include <stdint.h>

#include <roce/analyzer.h>

#include "capread.h"

static inline void roce_run_prefetch(roce_analyzer_t *an, roce_capfile_t *c,
				     const struct roce_cap_record *recs, unsigned ri, unsigned rn,
				     uint32_t *token)
{
	const uint8_t *nd;
	uint32_t nl;

	roce_analyzer_prefetch_stream(an, *token);
	*token = 0;
	if (ri == 0 && rn > 1)  /* a new run: its second record's slot was not asked for */
		roce_analyzer_prefetch(an, recs[1].linktype, recs[1].data, recs[1].caplen);
	if (ri + 2 < rn)
		*token = roce_analyzer_prefetch_slot(an, recs[ri + 2].linktype, recs[ri + 2].data,
						     recs[ri + 2].caplen);
	else if (ri + 2 == rn && roce_cap_peek(c, &nd, &nl))  /* the next run's first */
		*token = roce_analyzer_prefetch_slot(an, recs[ri].linktype, nd, nl);
	else if (rn == 1 && roce_cap_peek(c, &nd, &nl))
		roce_analyzer_prefetch(an, recs[ri].linktype, nd, nl);
}

#endif
