/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * live.h - roce-analyze -i: live capture with libpcap (TPACKET_V3 through
 * libpcap, blocks handed over within 100 ms, or immediate mode;
 * nanosecond timestamps), a default BPF filter for
 * RoCE and MAC control frames, optional saving with tcpdump's -w/-C/-W
 * rotation.  Every captured frame goes to a callback (the driver's analysis
 * step); the capture's own drops come from pcap_stats().
 */
#ifndef ROCE_ANALYZE_LIVE_H
#define ROCE_ANALYZE_LIVE_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "capread.h"

struct ra_live_opts {
	const char *iface;
	const char *filter;          /* -f: added to the default filter with "and"; NULL none */
	const uint16_t *udp_ports;   /* RoCE v2 destination ports (4791 first) */
	unsigned n_udp_ports;
	uint32_t snaplen;            /* -s; 0 = 262144 */
	uint32_t buffer_kib;         /* -B; 0 = libpcap's default */
	bool immediate;              /* --immediate-mode: TPACKET_V2, each frame at once */
	const char *write;           /* -w FILE; "-" stdout (no rotation); NULL none */
	bool packet_buffered;        /* -U: each record flushed to -w as it is written */
	uint64_t rotate_bytes;       /* -C (in bytes); 0 none */
	unsigned rotate_files;       /* -W; 0 none */
	uint64_t count;              /* -c; 0 none */
	uint64_t duration_ns;        /* --duration; 0 none */
};

enum ra_live_err {
	RA_LIVE_OK = 0,
	RA_LIVE_E_NODEV,             /* no such interface */
	RA_LIVE_E_PERM,              /* no CAP_NET_RAW (or not allowed) */
	RA_LIVE_E_OTHER,             /* anything else: filter, buffer, write file... */
};

typedef struct ra_live ra_live_t;

/* Called for every captured frame, in capture order; frame_no counts from 1. */
typedef void (*ra_live_fn)(void *user, struct roce_cap_record *rec);

/*
 * Open and activate the capture (and the first -w file).  NULL on failure,
 * *err set and a one-line message ("IFACE: ...") in errbuf (errlen bytes).
 */
ra_live_t *ra_live_open(const struct ra_live_opts *o, enum ra_live_err *err, char *errbuf,
			size_t errlen);

/*
 * Open the first -w file (if any), as the user the process runs as now:
 * call it after dropping privileges (-Z).  0, or -1 with a message.
 */
int ra_live_start_write(ra_live_t *l, char *errbuf, size_t errlen);

/* The BPF filter the capture runs (default and -f). */
const char *ra_live_filter(const ra_live_t *l);
int ra_live_linktype(const ra_live_t *l);

/*
 * tcpdump's start line for the capture, without the program name or a newline:
 * "listening on IFACE, link-type NAME (DESCRIPTION), snapshot length N bytes".
 */
void ra_live_describe(const ra_live_t *l, char *buf, size_t len);

/*
 * Capture until -c, --duration, *stop becomes non-zero (SIGINT/SIGTERM), or
 * an error; after a signal or --duration, the frames the kernel had taken
 * until then (a TPACKET_V3 block not yet handed over) are still analysed.  tick (may be NULL) is called about every 100 ms with the
 * monotonic time, for interval reports.  Returns 0, or -1 with a one-line
 * message in errbuf.  *stopped_by_count is set when -c ended it.
 */
int ra_live_run(ra_live_t *l, ra_live_fn fn, void (*tick)(void *user, uint64_t mono_ns),
		void *user, const volatile sig_atomic_t *stop, bool *stopped_by_count,
		char *errbuf, size_t errlen);

/*
 * -w -: true once the reader of stdout has gone (a write failed with EPIPE; SIGPIPE must be
 * ignored): ra_live_run() then returned 0 at once, as at a stop, and nothing more is saved.
 */
bool ra_live_output_closed(const ra_live_t *l);

/* The capture's own drops (kernel buffer + interface) and frames received so far. */
void ra_live_stats(ra_live_t *l, uint64_t *drops, uint64_t *received);

/* Close the capture and the -w file; 0, or -1 if writing the file failed. */
int ra_live_close(ra_live_t *l, char *errbuf, size_t errlen);

#endif /* ROCE_ANALYZE_LIVE_H */
