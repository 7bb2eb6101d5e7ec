// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * report_csv.c - roce-analyze --csv: the per-QP table, one row per stream.
 */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>

#include <roce/analyzer.h>
#include <roce/pkt.h>

#include "report_common.h"

static int csv_row(void *user, const struct roce_flow_stats *fl)
{
	FILE *f = user;
	char s[RA_ADDR_LEN], d[RA_ADDR_LEN], v[4][32];

	/* addresses and transport names never contain ',' or '"' */
	ra_addr_str(fl->key.src, s);
	ra_addr_str(fl->key.dst, d);
	if (fl->rtt.count) {
		ra_us_str(fl->rtt.min_ns, v[0], sizeof(v[0]));
		ra_us_str(fl->rtt.p50_ns, v[1], sizeof(v[1]));
		ra_us_str(fl->rtt.p99_ns, v[2], sizeof(v[2]));
		ra_us_str(fl->rtt.max_ns, v[3], sizeof(v[3]));
	} else {
		for (int k = 0; k < 4; k++)
			v[k][0] = '\0';
	}
	fprintf(f, "%u,%s,%s,%u,%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
		",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
		",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
		",%" PRIu64 ",%s,%s,%s,%s,%" PRIu64 ",%" PRIu64 "\n",
		fl->key.version, s, d, fl->key.dqpn, roce_transport_name(fl->transport),
		fl->frames, fl->bytes, fl->payload_bytes, fl->messages,
		fl->psn_gaps, fl->lost_psns, fl->duplicates, fl->out_of_order,
		fl->unrecovered_psns, fl->retransmissions, fl->naks, fl->rnr_naks,
		fl->cnps, fl->ecn_ce, fl->icrc_bad, fl->malformed,
		fl->rtt.count, v[0], v[1], v[2], v[3], fl->acked_unseen_psns,
		fl->capture_copies);
	return 0;
}

/* One row per stream, written as the analyzer hands it over (no copy of the table). */
void ra_report_csv(const struct ra_ctx *ctx, FILE *f)
{
	fputs("version,src,dst,dqpn,transport,frames,bytes,payload_bytes,messages,"
	      "psn_gaps,lost_psns,duplicates,out_of_order,unrecovered_psns,retransmissions,"
	      "naks,rnr_naks,cnps,ecn_ce,icrc_bad,malformed,"
	      "rtt_us_count,rtt_us_min,rtt_us_p50,rtt_us_p99,rtt_us_max,acked_unseen_psns,"
	      "capture_copies\n", f);
	roce_analyzer_foreach_flow(ctx->an, csv_row, f);
}
