// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * prom.c - Prometheus text format of the run's counters (prom.h).
 *
 * Names follow the Prometheus conventions: roce_ prefix, counters end in
 * _total, times in seconds.  Labels: interface (the capture interface, or
 * the file for file analysis) and priority for PFC (0..7, "pause" = 802.3x).
 * The per-stream and per-sender series, with their cap, are promseries.c's.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "prom.h"
#include "promseries.h"

static void counter(FILE *f, const char *name, const char *help, const char *iface, uint64_t v)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s counter\n%s{interface=\"", name, help, name, name);
	ra_prom_label(f, iface);
	fprintf(f, "\"} %" PRIu64 "\n", v);
}

static void gauge(FILE *f, const char *name, const char *help, const char *iface, uint64_t v)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s gauge\n%s{interface=\"", name, help, name, name);
	ra_prom_label(f, iface);
	fprintf(f, "\"} %" PRIu64 "\n", v);
}

void ra_prom_format(FILE *f, const char *iface, const struct ra_snap *sn)
{
	const struct roce_summary *s = &sn->s;
	const char *n;

	counter(f, "roce_frames_total", "Frames analysed (every link-layer record).", iface,
		s->frames);
	counter(f, "roce_bytes_total", "Bytes on the wire of the frames analysed.", iface,
		s->bytes);
	counter(f, "roce_roce_frames_total", "RoCE v1/v2 frames.", iface, s->roce_frames);
	counter(f, "roce_icrc_bad_total", "RoCE frames with a bad ICRC.", iface, s->icrc_bad);
	counter(f, "roce_malformed_frames_total", "Malformed RoCE frames.", iface, s->malformed);
	counter(f, "roce_psn_gaps_total", "PSN gaps (loss before the capture point).", iface,
		s->psn_gaps);
	counter(f, "roce_lost_psns_total", "PSNs missing in gaps.", iface, s->lost_psns);
	counter(f, "roce_acked_unseen_psns_total",
		"Request PSNs the responder acknowledged that the capture never saw.", iface,
		s->acked_unseen_psns);
	counter(f, "roce_duplicate_psns_total", "Duplicate packets.", iface, s->duplicates);
	counter(f, "roce_retransmissions_total", "Retransmitted packets.", iface,
		s->retransmissions);
	counter(f, "roce_naks_total", "NAKs (RNR NAKs included).", iface, s->naks);
	counter(f, "roce_rnr_naks_total", "RNR NAKs.", iface, s->rnr_naks);
	counter(f, "roce_cnps_total", "Congestion notification packets.", iface, s->cnps);
	counter(f, "roce_ecn_ce_frames_total", "RoCE frames marked ECN CE.", iface, s->ecn_ce);
	counter(f, "roce_ecn_capable_frames_total", "ECN-capable RoCE frames.", iface,
		s->ecn_capable);
	counter(f, "roce_pfc_frames_total", "PFC frames.", iface, s->pfc_frames);
	counter(f, "roce_pause_frames_total", "802.3x PAUSE frames.", iface, s->pause_frames);
	counter(f, "roce_pfc_storms_total", "PFC/PAUSE storms.", iface, s->pfc_storms);
	counter(f, "roce_capture_drops_total", "Frames the capture itself dropped.", iface,
		sn->drops);
	n = "roce_pfc_paused_seconds_total";
	fprintf(f, "# HELP %s Time paused, per priority (the most paused sender).\n"
		"# TYPE %s counter\n", n, n);
	for (int i = 0; i < RA_PRIOS; i++) {
		char prio[8];

		if (i == 8)
			snprintf(prio, sizeof(prio), "pause");
		else
			snprintf(prio, sizeof(prio), "%d", i);
		fprintf(f, "%s{interface=\"", n);
		ra_prom_label(f, iface);
		fprintf(f, "\",priority=\"%s\"} %.9f\n", prio, (double)sn->paused_ns[i] / 1e9);
	}
	gauge(f, "roce_streams", "Streams (QP directions) in the table now.", iface,
	      s->flows_active);
	counter(f, "roce_streams_evicted_total",
		"Streams evicted from the table (its cap, --max-flows).", iface, s->evicted_flows);
	counter(f, "roce_streams_expired_total", "Streams expired after --flow-timeout idle.",
		iface, s->expired_flows);
	if (sn->series)
		ra_promseries_format(f, sn->series, iface);
}

int ra_prom_write(const char *path, const char *iface, const struct ra_snap *sn, char *errbuf,
		  size_t errlen)
{
	size_t len = strlen(path);
	struct stat st;
	char *tmp;
	FILE *f;
	int fd, bad;

	/* rename() would replace a device, a FIFO or /dev/stdout's link (as root: /dev/full) */
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		snprintf(errbuf, errlen, "%s: not a regular file", path);
		return -1;
	}
	tmp = malloc(len + 16);
	if (!tmp) {
		snprintf(errbuf, errlen, "%s: out of memory", path);
		return -1;
	}
	/* same directory, so that rename() is atomic */
	memcpy(tmp, path, len);
	memcpy(tmp + len, ".tmp.XXXXXX", 12);
	fd = mkstemp(tmp);
	if (fd < 0) {
		snprintf(errbuf, errlen, "%s: %s", path, strerror(errno));
		free(tmp);
		return -1;
	}
	fchmod(fd, 0644);
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		bad = 1;
	} else {
		ra_prom_format(f, iface, sn);
		bad = fflush(f) != 0 || ferror(f);
		bad |= fsync(fileno(f)) != 0;
		bad |= fclose(f) != 0;
	}
	if (bad || rename(tmp, path) != 0) {
		snprintf(errbuf, errlen, "%s: %s", path, strerror(errno ? errno : EIO));
		unlink(tmp);
		free(tmp);
		return -1;
	}
	free(tmp);
	return 0;
}
