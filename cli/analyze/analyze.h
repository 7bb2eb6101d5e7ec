/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * analyze.h - the state of one roce-analyze run: options, input files,
 * collected anomalies.  The driver (main.c) fills it; the output writers
 * (report.h, report_*.c) only read it.  Data only: no functions, so the
 * writers never depend on the driver.
 *
 * Frame numbers: the analyzer sees one global 1-based frame counter across
 * all input files; everything the user sees is mapped back to the file and
 * its own 1-based frame number (ra_frame_locate() in report_common.h).
 */
#ifndef ROCE_ANALYZE_H
#define ROCE_ANALYZE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <roce/analyzer.h>
#include <roce/pkt.h>

#define RA_PROG "roce-analyze"

struct ra_opts {
	const char **files;         /* input paths in the order given; "-" = stdin */
	unsigned n_files;
	uint64_t count;             /* -c: stop after this many frames; 0 = all */
	int json, csv, frames, quiet, no_icrc;  /* gboolean: set by GOption */
	int progress;               /* -1 auto, 0 off, 1 on */
	uint32_t fail_mask;         /* 1 << enum roce_anomaly_type */
	uint32_t pmtu;              /* 0 = learn */
	double link_speed_gbps;
	uint64_t pfc_storm_ms;
	uint64_t copy_window_us;    /* --copy-window; 0 off */
	uint32_t max_flows;
	uint64_t max_anomalies;
	uint16_t udp_ports[ROCE_MAX_UDP_PORTS];
	unsigned n_udp_ports;
	const char *filter;         /* BPF expression (-f and/or words after -r/-i); NULL none */
	/* live capture (-i) */
	const char *iface;
	uint32_t snaplen, buffer_kib;
	int immediate;              /* --immediate-mode (gboolean) */
	const char *write;
	int packet_buffered;        /* -U: each -w record flushed at once (gboolean) */
	uint64_t rotate_bytes;      /* -C, bytes */
	uint32_t rotate_files;      /* -W */
	uint64_t duration_ns;       /* --duration */
	uint64_t flow_timeout_ns;   /* --flow-timeout; 0 never */
	uint64_t max_memory;        /* --max-memory, bytes; 0 none */
	const char *extract;        /* --extract FILE, NULL = none */
	uint32_t context;           /* --context N (frames around each extracted one) */
};

struct ra_file {
	const char *path;           /* as given */
	const char *name;           /* for messages and output ("-" -> "<stdin>") */
	char format[32];            /* roce_cap_format(); "" if never opened */
	int linktype;
	uint64_t base;              /* global frame number before this file's first */
	uint64_t frames;            /* frames analysed from this file */
	uint64_t last_no;           /* frame number of the last one (Wireshark's frame.number) */
	uint64_t warnings;          /* capture-format warnings of the reader */
	uint64_t drops;             /* capture drops the file records (ERF loss counters) */
	bool opened, complete;
};

/*
 * A capture interface of the run (ifaces.h): a pcapng interface id and its if_name; the same
 * pair in another section or input file is the same interface (rotated files).
 */
struct ra_iface {
	uint32_t ifindex;           /* interface id in its section (0 for pcap and live) */
	char *name;                 /* the IDB's if_name; NULL when it has none */
};

struct ra_ctx {
	struct ra_opts o;
	roce_analyzer_t *an;
	struct ra_file *files;
	unsigned n_files;           /* entries used in files[] (opened or attempted) */
	unsigned cur_file;

	/* anomalies: the first max_anomalies are kept, all are counted */
	struct roce_anomaly *anoms;
	uint64_t n_anoms, cap_anoms;
	uint64_t anom_counts[ROCE_AN_COUNT];
	uint64_t anom_total;

	uint64_t frames;            /* global frame counter */
	uint64_t first_ts_ns;       /* first frame's timestamp (for relative times) */
	bool have_first_ts;
	/* timestamps of the frames that have one (not SPBs, not out of range) */
	uint64_t last_ts_ns;        /* the last such frame's */
	uint64_t min_ts_ns, max_ts_ns;
	uint64_t frames_without_ts;
	uint64_t capture_warnings, capture_drops;  /* all files */
	uint64_t matched;           /* frames analysed (passed the filter, if any) */
	uint64_t filtered_out;      /* frames the BPF filter rejected */
	int interrupted;            /* signal that stopped the run, 0 none */
	bool stopped_by_count;
	bool input_error;
	bool live;                  /* -i: files[0] is the interface */
	/* capture interfaces that carried analysed frames, in order of first appearance (the
	 * analyzer's roce_analyzer_set_interface() numbers; ifaces.c) */
	struct ra_iface *ifaces;
	uint32_t n_ifaces, cap_ifaces;
	void *iface_idx;            /* GHashTable: (file, section, id) -> number + 1 */
	void *iface_ids;            /* GHashTable: (id, if_name) -> number + 1 */
	const char *live_filter;    /* the BPF filter the live capture ran */
};

#endif /* ROCE_ANALYZE_H */
