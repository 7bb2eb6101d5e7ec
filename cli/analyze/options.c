// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * options.c - roce-analyze's command line (options.h): the GOption table,
 * the per-option callbacks with their range checks, the combinations that
 * are refused, and the BPF filter built from -f and the remaining words.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <glib.h>

#include <roce/analyzer.h>
#include <roce/pkt.h>
#include <roce/roce.h>

#include "extract.h"
#include "options.h"
#include "opts.h"
#include "promseries.h"

static struct ra_opts o;                    /* copied to the caller's at the end */
static struct ra_cli cli = {
	.prom_streams = RA_PROM_MAX_STREAMS_DEFAULT,
	.prom_senders = RA_PROM_MAX_SENDERS_DEFAULT,
};
static bool check_mode;                     /* --check anywhere on the command line */
/* given at all, 0 too: -s 0 and --context 0 need their partner option as other values do */
static bool snaplen_given, context_given;

static gboolean opt_file_cb(const char *name, const char *val, gpointer data, GError **err)
{
	if (!*val) {
		g_set_error(err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "%s '': empty file name",
			    name);
		return FALSE;
	}
	return roce_opt_add_file(cli.files, val, err);
}

/* Words after the options: files, or the filter expression once -r is given
 * (setup_filter()).  Kept in cli.files in command-line order until then. */
static gboolean opt_rest_cb(const char *name, const char *val, gpointer data, GError **err)
{
	if (!*val) {
		g_set_error(err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
			    "'': empty file name or filter word");
		return FALSE;
	}
	g_ptr_array_add(cli.rest, g_strdup(val));
	g_ptr_array_add(cli.files, NULL);       /* placeholder: filled or removed later */
	return TRUE;
}

static gboolean opt_count_cb(const char *name, const char *val, gpointer data, GError **err)
{
	return roce_opt_u64(name, val, 1, UINT64_MAX, &o.count, err);
}

static gboolean opt_pmtu_cb(const char *name, const char *val, gpointer data, GError **err)
{
	uint64_t v;

	if (!roce_opt_u64(name, val, 256, 4096, &v, err))
		return FALSE;
	if (v != 256 && v != 512 && v != 1024 && v != 2048 && v != 4096) {
		g_set_error(err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
			    "%s %s: must be 256, 512, 1024, 2048 or 4096", name, val);
		return FALSE;
	}
	o.pmtu = (uint32_t)v;
	return TRUE;
}

static gboolean opt_link_speed_cb(const char *name, const char *val, gpointer data, GError **err)
{
	char *end;
	double v;

	errno = 0;
	v = g_ascii_strtod(val, &end);
	if (!*val || *end || errno || !(v > 0.0) || v > 100000.0) {
		g_set_error(err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
			    "%s '%s': expected a link speed in Gbit/s (>0 .. 100000)", name, val);
		return FALSE;
	}
	o.link_speed_gbps = v;
	return TRUE;
}

static gboolean opt_storm_cb(const char *name, const char *val, gpointer data, GError **err)
{
	return roce_opt_u64(name, val, 1, 3600000, &o.pfc_storm_ms, err);
}

static gboolean opt_copy_window_cb(const char *name, const char *val, gpointer data,
				   GError **err)
{
	return roce_opt_u64(name, val, 0, 1000, &o.copy_window_us, err);
}

static gboolean opt_max_flows_cb(const char *name, const char *val, gpointer data, GError **err)
{
	uint64_t v;

	if (!roce_opt_u64(name, val, 1, 1u << 24, &v, err))
		return FALSE;
	o.max_flows = (uint32_t)v;
	return TRUE;
}

/* SIZE: bytes with an optional K, M or G suffix (powers of 1024), at least 1M. */
static gboolean opt_max_memory_cb(const char *name, const char *val, gpointer data, GError **err)
{
	char num[32];
	size_t n = val ? strlen(val) : 0;
	unsigned shift = 0;
	uint64_t v;

	if (n && n < sizeof(num)) {
		switch (val[n - 1]) {
		case 'k': case 'K': shift = 10; break;
		case 'm': case 'M': shift = 20; break;
		case 'g': case 'G': shift = 30; break;
		default: break;
		}
	}
	if (shift)
		n--;
	if (!n || n >= sizeof(num)) {
		g_set_error(err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
			    "%s '%s': not a size (bytes, or a number with K, M or G)", name,
			    val ? val : "");
		return FALSE;
	}
	memcpy(num, val, n);
	num[n] = '\0';
	if (roce_parse_u64(num, 1, (UINT64_C(1) << 50) >> shift, &v)) {
		/* the value as given: "2000000G", not the number before its suffix */
		g_set_error(err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
			    "%s '%s': not a size from 1M to 1048576G (bytes, or a number with K, M "
			    "or G)", name, val);
		return FALSE;
	}
	v <<= shift;
	if (v < (UINT64_C(1) << 20)) {
		g_set_error(err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
			    "%s %s: at least 1M", name, val);
		return FALSE;
	}
	o.max_memory = v;
	return TRUE;
}

static gboolean opt_context_cb(const char *name, const char *val, gpointer data, GError **err)
{
	uint64_t v;

	if (!roce_opt_u64(name, val, 0, RA_EXTRACT_MAX_CONTEXT, &v, err))
		return FALSE;
	o.context = (uint32_t)v;
	context_given = true;
	return TRUE;
}

static gboolean opt_max_anom_cb(const char *name, const char *val, gpointer data, GError **err)
{
	return roce_opt_u64(name, val, 0, 100000000, &o.max_anomalies, err);
}

static gboolean opt_udp_port_cb(const char *name, const char *val, gpointer data, GError **err)
{
	uint64_t v;
	unsigned i;

	if (!roce_opt_u64(name, val, 1, 65535, &v, err))
		return FALSE;
	for (i = 0; i < o.n_udp_ports; i++)
		if (o.udp_ports[i] == v)
			return TRUE;
	if (o.n_udp_ports >= ROCE_MAX_UDP_PORTS) {
		g_set_error(err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
			    "%s: at most %d extra ports besides %d", name,
			    ROCE_MAX_UDP_PORTS - 1, ROCE_UDP_PORT);
		return FALSE;
	}
	o.udp_ports[o.n_udp_ports++] = (uint16_t)v;
	return TRUE;
}

static gboolean opt_fail_on_cb(const char *name, const char *val, gpointer data, GError **err)
{
	gchar **items = g_strsplit(val, ",", -1);
	unsigned n = 0;
	gboolean ok = TRUE;

	for (gchar **it = items; *it; it++) {
		char *s = g_strstrip(*it);
		int t;

		if (!*s)
			continue;
		n++;
		if (!strcmp(s, "any")) {
			o.fail_mask |= (1u << ROCE_AN_COUNT) - 1;
			continue;
		}
		t = roce_anomaly_by_name(s);
		if (t < 0 || t >= ROCE_AN_COUNT) {
			GString *names = g_string_new("any");

			for (int i = 0; i < ROCE_AN_COUNT; i++)
				g_string_append_printf(names, ", %s",
						       roce_anomaly_name((enum roce_anomaly_type)i));
			g_set_error(err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
				    "%s: unknown anomaly '%s' (known: %s)", name, s, names->str);
			g_string_free(names, TRUE);
			ok = FALSE;
			break;
		}
		o.fail_mask |= 1u << t;
	}
	if (ok && !n) {
		g_set_error(err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
			    "%s: empty anomaly list", name);
		ok = FALSE;
	}
	g_strfreev(items);
	return ok;
}

static gboolean opt_iface_cb(const char *name, const char *val, gpointer data, GError **err)
{
	if (!*val || o.iface) {
		g_set_error(err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
			    *val ? "-i given more than once" : "empty interface name");
		return FALSE;
	}
	o.iface = g_strdup(val);
	return TRUE;
}

static gboolean opt_snaplen_cb(const char *name, const char *val, gpointer data, GError **err)
{
	uint64_t v;

	if (!roce_opt_u64(name, val, 0, 262144, &v, err))
		return FALSE;
	o.snaplen = (uint32_t)v;      /* 0: the default, 262144, as tcpdump -s 0 */
	snaplen_given = true;
	return TRUE;
}

static gboolean opt_buffer_cb(const char *name, const char *val, gpointer data, GError **err)
{
	uint64_t v;

	if (!roce_opt_u64(name, val, 1, 1u << 21, &v, err))
		return FALSE;
	o.buffer_kib = (uint32_t)v;
	return TRUE;
}

static gboolean opt_write_cb(const char *name, const char *val, gpointer data, GError **err)
{
	if (!*val) {
		g_set_error(err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "empty file name");
		return FALSE;
	}
	o.write = g_strdup(val);
	return TRUE;
}

static gboolean opt_rotate_cb(const char *name, const char *val, gpointer data, GError **err)
{
	uint64_t v;

	if (!roce_opt_u64(name, val, 1, 1000000, &v, err))
		return FALSE;
	o.rotate_bytes = v * 1000000ull;       /* tcpdump: millions of bytes */
	return TRUE;
}

static gboolean opt_files_cb(const char *name, const char *val, gpointer data, GError **err)
{
	uint64_t v;

	if (!roce_opt_u64(name, val, 1, 1000000, &v, err))
		return FALSE;
	o.rotate_files = (uint32_t)v;
	return TRUE;
}

static gboolean opt_duration_cb(const char *name, const char *val, gpointer data, GError **err)
{
	char *end;
	double v;

	errno = 0;
	v = g_ascii_strtod(val, &end);
	if (!*val || *end || errno || !(v > 0.0) || v > 1e9) {
		g_set_error(err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
			    "%s '%s': expected seconds (> 0 .. 1e9)", name, val);
		return FALSE;
	}
	o.duration_ns = (uint64_t)(v * 1e9);
	if (!o.duration_ns)
		o.duration_ns = 1;
	return TRUE;
}

static gboolean opt_interval_cb(const char *name, const char *val, gpointer data, GError **err)
{
	char *end;
	double v;

	errno = 0;
	v = g_ascii_strtod(val, &end);
	if (!*val || *end || errno || !(v >= 0.000001) || v > 86400.0) {
		g_set_error(err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
			    "%s '%s': expected seconds (0.000001 .. 86400; -i: 0.1 ..)", name, val);
		return FALSE;
	}
	cli.interval_ns = (uint64_t)(v * 1e9);
	return TRUE;
}

static gboolean opt_prom_max_cb(const char *name, const char *val, gpointer data, GError **err)
{
	return roce_opt_u64(name, val, 0, 100000, strstr(name, "senders") ? &cli.prom_senders :
			 &cli.prom_streams, err);
}

static gboolean opt_thr_cb(const char *name, const char *val, gpointer data, GError **err)
{
	char msg[768];

	if (!val[strspn(val, ", \t")]) {     /* as --fail-on: an empty list is a mistake */
		g_set_error(err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
			    "%s '%s': empty threshold list", name, val);
		return FALSE;
	}
	if (!ra_thr_add(cli.thresholds, !strcmp(name, "--crit"), val, msg, sizeof(msg))) {
		g_set_error(err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "%s %s", name, msg);
		return FALSE;
	}
	return TRUE;
}

static gboolean opt_flow_timeout_cb(const char *name, const char *val, gpointer data,
				    GError **err)
{
	char *end;
	double v;

	errno = 0;
	v = g_ascii_strtod(val, &end);
	if (!*val || *end || errno || !(v > 0.0) || v > 1e7) {
		g_set_error(err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
			    "%s '%s': expected seconds (> 0 .. 1e7)", name, val);
		return FALSE;
	}
	o.flow_timeout_ns = (uint64_t)(v * 1e9);
	return TRUE;
}

static gboolean opt_threads_cb(const char *name, const char *val, gpointer data, GError **err)
{
	return roce_opt_u64(name, val, 1, 2, &cli.threads, err);
}

static gboolean opt_progress_cb(const char *name, const char *val, gpointer data, GError **err)
{
	o.progress = strcmp(name, "--no-progress") != 0;
	return TRUE;
}

#define CB(f) G_OPTION_ARG_CALLBACK, (gpointer)(f)

static const GOptionEntry entries[] = {
	{ "read", 'r', 0, CB(opt_file_cb),
	  "Read frames from FILE (pcap, pcapng; gzip, zstd or lz4 compressed; \"-\" = stdin); "
	  "repeatable", "FILE" },
	{ "interface", 'i', 0, CB(opt_iface_cb),
	  "Capture live on IFACE (libpcap; needs CAP_NET_RAW)", "IFACE" },
	{ "snaplen", 's', 0, CB(opt_snaplen_cb),
	  "-i: bytes to capture per frame (default 262144; 0 = the same)", "N" },
	{ "buffer-size", 'B', 0, CB(opt_buffer_cb),
	  "-i: capture buffer size in KiB (default: libpcap's, 2 MiB)", "KIB" },
	{ "immediate-mode", 0, 0, G_OPTION_ARG_NONE, &o.immediate,
	  "-i: hand each frame over at once (TPACKET_V2: fixed slots sized from -s; "
	  "give a larger -B)", NULL },
	{ "write", 'w', 0, CB(opt_write_cb),
	  "-i: also save the captured frames to FILE (pcap, ns timestamps; \"-\" = stdout, "
	  "the report then goes to stderr)", "FILE" },
	{ "packet-buffered", 'U', 0, G_OPTION_ARG_NONE, &o.packet_buffered,
	  "-w: write each frame out as it is captured, not when the output buffer fills "
	  "(as tcpdump -U; \"-w - -U | wireshark -k -i -\"); without -w it does nothing",
	  NULL },
	{ "file-size", 'C', 0, CB(opt_rotate_cb),
	  "-w: start a new file when the current one passes N million bytes", "N" },
	{ "ring-files", 'W', 0, CB(opt_files_cb),
	  "-C: keep at most N files, reused in turn (FILE0..FILE<N-1>)", "N" },
	{ "prometheus", 0, 0, G_OPTION_ARG_STRING, &cli.prom_addr,
	  "-i: serve /metrics over HTTP on ADDR:PORT (\":PORT\" = 127.0.0.1)", "ADDR:PORT" },
	{ "prometheus-max-streams", 0, 0, CB(opt_prom_max_cb),
	  "Prometheus: at most N QP streams get their own series, the rest are summed as "
	  "\"other\" (default 100)", "N" },
	{ "prometheus-max-senders", 0, 0, CB(opt_prom_max_cb),
	  "Prometheus: the same for PFC/PAUSE senders (MAC, priority) (default 100)", "N" },
	{ "prometheus-textfile", 0, 0, G_OPTION_ARG_FILENAME, &cli.textfile,
	  "Write the counters to PATH (Prometheus text format, atomically) at every "
	  "--interval (-i: every 10 s without) and at the end", "PATH" },
	{ "relinquish-privileges", 'Z', 0, G_OPTION_ARG_STRING, &cli.user,
	  "-i: when run as root, become USER once the capture is open (as tcpdump -Z)", "USER" },
	{ "duration", 0, 0, CB(opt_duration_cb),
	  "-i: stop after SECONDS", "SECONDS" },
	{ "interval", 0, 0, CB(opt_interval_cb),
	  "Print the metrics of every SECONDS (a line, or JSON Lines with --json; "
	  "files: of capture time, as tshark -z io,stat)",
	  "SECONDS" },
	{ "check", 0, 0, G_OPTION_ARG_NONE, &cli.check,
	  "Nagios-style check: one status line, exit 0 OK/1 WARNING/2 CRITICAL/3 UNKNOWN", NULL },
	{ "warn", 0, 0, CB(opt_thr_cb),
	  "Thresholds for WARNING: METRIC>VALUE[,...] (also >=, <, <=); repeatable", "LIST" },
	{ "crit", 0, 0, CB(opt_thr_cb),
	  "Thresholds for CRITICAL, as --warn", "LIST" },
	{ "count", 'c', 0, CB(opt_count_cb),
	  "Stop after N frames (all files together; with a filter: N matching frames)", "N" },
	{ "filter", 'f', 0, G_OPTION_ARG_STRING, &cli.filter_expr,
	  "Analyse only frames matching this BPF filter (pcap-filter(7) syntax)", "EXPR" },
	{ "json", 0, 0, G_OPTION_ARG_NONE, &o.json,
	  "Print the report as one JSON document (docs/json.md)", NULL },
	{ "csv", 0, 0, G_OPTION_ARG_NONE, &o.csv,
	  "Print the per-QP table as CSV", NULL },
	{ "frames", 0, 0, G_OPTION_ARG_NONE, &o.frames,
	  "Print one line per RoCE/PFC/PAUSE frame (JSON Lines with --json)", NULL },
	{ "extract", 0, 0, G_OPTION_ARG_FILENAME, &cli.extract,
	  "Write the frames of anomalies (and the ACKs etc. linked to them) to FILE: "
	  "pcap if it ends in .pcap, else pcapng with \"frame N of INPUT\" comments", "FILE" },
	{ "html", 0, 0, G_OPTION_ARG_FILENAME, &cli.html,
	  "Also write a self-contained HTML report to FILE: time series, PSN graphs, PFC "
	  "timelines, sortable tables", "FILE" },
	{ "context", 0, 0, CB(opt_context_cb),
	  "With --extract: also N frames before and after each (default 0, max 10000)", "N" },
	{ "fail-on", 0, 0, CB(opt_fail_on_cb),
	  "Exit 1 if any of these anomalies occurred (comma list, or \"any\")", "LIST" },
	{ "pmtu", 0, 0, CB(opt_pmtu_cb),
	  "Path MTU: 256, 512, 1024, 2048 or 4096 (default: learn from traffic)", "BYTES" },
	{ "link-speed", 0, 0, CB(opt_link_speed_cb),
	  "Link speed for PFC pause quanta, Gbit/s (default 100)", "GBPS" },
	{ "pfc-storm-ms", 0, 0, CB(opt_storm_cb),
	  "Continuous pause that counts as a PFC storm, ms (default 200)", "MS" },
	{ "copy-window", 0, 0, CB(opt_copy_window_cb),
	  "Repeat of a stream's previous frame within USEC = capture copy (default 4; 0 = off)",
	  "USEC" },
	{ "max-flows", 0, 0, CB(opt_max_flows_cb),
	  "Track at most N streams; least recently active evicted (default 1000000)", "N" },
	{ "max-memory", 0, 0, CB(opt_max_memory_cb),
	  "Keep the analyzer's state under SIZE (K/M/G); least recently active streams evicted"
	  " (default: no cap)", "SIZE" },
	{ "flow-timeout", 0, 0, CB(opt_flow_timeout_cb),
	  "Forget streams idle for SECONDS (counted as expired; default: never)", "SECONDS" },
	{ "udp-port", 0, 0, CB(opt_udp_port_cb),
	  "Also decode RoCE v2 on UDP destination PORT (repeatable; 4791 always)", "PORT" },
	{ "no-icrc", 0, 0, G_OPTION_ARG_NONE, &o.no_icrc,
	  "Do not verify the ICRC", NULL },
	{ "threads", 0, 0, CB(opt_threads_cb),
	  "1: one thread; 2: verify ICRCs on a second core (mapped files; default when "
	  "more than one CPU is available)", "N" },
	{ "max-anomalies", 0, 0, CB(opt_max_anom_cb),
	  "List at most N anomalies (default 1000; totals always exact)", "N" },
	{ "line-buffered", 'l', 0, G_OPTION_ARG_NONE, &cli.line_buffered,
	  "Flush stdout at every line: --frames into a pipe or file too (as tcpdump -l)", NULL },
	{ "quiet", 'q', 0, G_OPTION_ARG_NONE, &o.quiet,
	  "Print nothing; exit status only (see --fail-on; --check still prints its line)",
	  NULL },
	{ "progress", 0, G_OPTION_FLAG_NO_ARG, CB(opt_progress_cb),
	  "Show progress on stderr (default: when a TTY and input > 64 MB)", NULL },
	{ "no-progress", 0, G_OPTION_FLAG_NO_ARG, CB(opt_progress_cb),
	  "Never show progress", NULL },
	{ "version", 'V', 0, G_OPTION_ARG_NONE, &cli.version,
	  "Print program and libroce versions and exit", NULL },
	{ G_OPTION_REMAINING, 0, 0, CB(opt_rest_cb), NULL, "FILE... | -r FILE [EXPR]" },
	{ NULL, 0, 0, 0, NULL, NULL, NULL }
};

static const char description_head[] =
	"Files are analysed as one stream, in the order given (-r and FILE\n"
	"arguments alike); frame numbers in the output are per file.\n"
	"\n"
	"Filter: as with tcpdump, once -r is given the words after the options\n"
	"are a BPF filter expression (pcap-filter(7)), unless each of them names\n"
	"an existing file; without -r they are input files.  -f EXPR gives a\n"
	"filter explicitly (with words after -r too: joined by \"and\").\n"
	"Frames that do not match are skipped; frame numbers stay those of the file.\n"
	"\n"
	"Anomaly names for --fail-on (or \"any\" for all of them):\n";

static const char description_tail[] =
	"\n"
	"Exit status:\n"
	"  0  analysis complete, no --fail-on anomaly occurred\n"
	"  1  an anomaly listed in --fail-on occurred\n"
	"  2  usage error, or input error (unreadable file, not a capture,\n"
	"     unsupported link-layer type, truncated or corrupt file, file\n"
	"     shrank while read), or SIGINT/SIGTERM; the report of what was\n"
	"     analysed before is still printed\n"
	"  (-i: a missing interface or privilege is 2; SIGINT/SIGTERM end a live\n"
	"   capture normally, exit 0)\n"
	"  --check: the Nagios convention instead: 0 OK, 1 WARNING, 2 CRITICAL,\n"
	"  3 UNKNOWN (usage/input errors, capture drops, no interface or privilege)\n"
	"\n"
	"Examples:\n"
	"  roce-analyze trace.pcap\n"
	"  roce-analyze --json -r a.pcapng -r b.pcap.gz > report.json\n"
	"  tcpdump -i eth0 -w - udp port 4791 | roce-analyze --frames -\n"
	"  tcpdump -i eth0 -U -w - | roce-analyze -l --frames - | grep nak\n"
	"  roce-analyze -q --fail-on icrc,psn_gap,pfc_storm trace.pcap\n"
	"  roce-analyze -r trace.pcap 'host 10.0.0.1 and udp port 4791'\n"
	"  roce-analyze -i eth0 --duration 60 --json > report.json\n"
	"  roce-analyze -i eth0 -c 100000 -w - 2> report.txt | gzip > rdma.pcap.gz\n"
	"  roce-analyze -i eth0 -w - -U 2> report.txt | wireshark -k -i -\n"
	"  roce-analyze --extract anomalies.pcapng --context 5 big.pcap\n"
	"  roce-analyze --html report.html --json trace.pcap > report.json\n"
	"\n"
	"See roce-analyze(1) and docs/json.md.\n";


static void usage_error(const char *msg)
{
	fprintf(stderr, "%s: %s\nTry '%s --help' for more information.\n", RA_PROG, msg, RA_PROG);
	if (check_mode) {
		/* Nagios: UNKNOWN, with the reason on the status line */
		printf("ROCE UNKNOWN - %s\n", msg);
		exit(RA_UNKNOWN);
	}
	exit(EXIT_USAGE);
}

/*
 * tcpdump's convention: with -r, the remaining words are the filter
 * expression; without, they are files (roce-analyze's own convention), and
 * also with -r when every word names an existing file (what roce-analyze
 * accepted before filters existed).
 */
static void setup_filter(void)
{
	char errbuf[512];
	GString *expr = NULL;
	bool all_files = true, any_r = false;
	struct stat st;
	unsigned j = 0;

	for (unsigned i = 0; i < cli.files->len; i++)
		if (g_ptr_array_index(cli.files, i))
			any_r = true;
	if (o.iface) {
		/* tcpdump -i IFACE EXPR: the words are the filter, always */
		any_r = true;
		all_files = false;
	}
	for (unsigned i = 0; i < cli.rest->len && all_files; i++) {
		const char *w = g_ptr_array_index(cli.rest, i);

		if (strcmp(w, "-") && stat(w, &st) != 0)
			all_files = false;
	}
	/* fill the placeholders, or drop them */
	for (unsigned i = 0; i < cli.files->len; i++) {
		if (g_ptr_array_index(cli.files, i))
			continue;
		if (!any_r || all_files)
			cli.files->pdata[i] = g_strdup(g_ptr_array_index(cli.rest, j));
		j++;
	}
	if (!any_r || all_files) {
		g_ptr_array_set_size(cli.rest, 0);
	} else {
		for (unsigned i = cli.files->len; i-- > 0;)
			if (!g_ptr_array_index(cli.files, i))
				g_ptr_array_remove_index(cli.files, i);
	}

	if (cli.rest->len) {
		expr = g_string_new(NULL);
		if (cli.filter_expr)
			g_string_append_printf(expr, "(%s) and (", cli.filter_expr);
		for (unsigned i = 0; i < cli.rest->len; i++)
			g_string_append_printf(expr, "%s%s", i ? " " : "",
					       (const char *)g_ptr_array_index(cli.rest, i));
		if (cli.filter_expr)
			g_string_append(expr, ")");
		g_ptr_array_set_size(cli.rest, 0);
	} else if (cli.filter_expr) {
		expr = g_string_new(cli.filter_expr);
	}
	if (!expr)
		return;
	if (!*g_strstrip(expr->str)) {
		g_string_free(expr, TRUE);
		return;
	}
	if (o.iface) {
		/* compiled by the live capture, on top of its default filter */
		o.filter = g_string_free(expr, FALSE);
		return;
	}
	cli.filter = roce_capf_new(expr->str, errbuf, sizeof(errbuf));
	if (!cli.filter) {
		char *msg = g_strdup_printf("filter '%s': %s", expr->str, errbuf);

		g_string_free(expr, TRUE);
		usage_error(msg);
	}
	o.filter = roce_capf_expr(cli.filter);
	g_string_free(expr, TRUE);
}

void ra_parse_options(int argc, char **argv, bool check, struct ra_opts *out, struct ra_cli *cli_out)
{
	GOptionContext *oc;
	GError *err = NULL;
	GString *desc;
	unsigned stdin_uses = 0;
	struct stat st;

	check_mode = check;
	o.progress = -1;
	o.link_speed_gbps = 100.0;
	o.pfc_storm_ms = 200;
	o.copy_window_us = ROCE_COPY_WINDOW_NS / 1000;
	o.max_flows = 1000000;
	o.max_anomalies = 1000;
	o.udp_ports[0] = ROCE_UDP_PORT;
	o.n_udp_ports = 1;
	cli.files = g_ptr_array_new_with_free_func(g_free);
	cli.rest = g_ptr_array_new_with_free_func(g_free);
	cli.thresholds = ra_thr_new();

	oc = g_option_context_new(NULL);
	g_option_context_set_summary(oc,
		"Analyse RoCE v1/v2 traffic in pcap/pcapng captures: ICRC, malformed frames,\n"
		"PSN gaps/duplicates/retransmissions, NAKs, ECN/CNP, PFC/PAUSE.");
	desc = g_string_new(description_head);
	for (int t = 0; t < ROCE_AN_COUNT; t++) {
		const struct roce_anomaly_info *ai = roce_anomaly_info((enum roce_anomaly_type)t);

		g_string_append_printf(desc, "  %-16s%s\n", ai->name, ai->help);
	}
	g_string_append(desc, description_tail);
	g_option_context_set_description(oc, desc->str);      /* copied */
	g_string_free(desc, TRUE);
	g_option_context_add_main_entries(oc, entries, NULL);
	if (!g_option_context_parse(oc, &argc, &argv, &err)) {
		char *msg = g_strdup(err->message);

		g_error_free(err);
		g_option_context_free(oc);
		usage_error(msg);
	}
	g_option_context_free(oc);

	if (cli.version) {
		printf("%s %s (roce-tools)\n%s\n", RA_PROG, ROCE_VERSION_STRING, roce_version());
		exit(EXIT_OK);
	}
	setup_filter();
	if (o.iface && cli.files->len)
		usage_error("-i cannot be combined with -r or input files");
	/* the live-capture options without -i: name the one given */
	if (!o.iface && (o.write || snaplen_given || o.buffer_kib ||
			     o.duration_ns || o.immediate))
		usage_error(o.write ? "-w needs -i (it saves a live capture)" :
			    snaplen_given ? "-s needs -i" : o.buffer_kib ? "-B needs -i" :
			    o.duration_ns ? "--duration needs -i" : "--immediate-mode needs -i");
	if ((o.rotate_bytes || o.rotate_files) && !o.write)
		usage_error("-C and -W need -w");
	if (o.rotate_files && !o.rotate_bytes)
		usage_error("-W needs -C");
	if (o.write && !strcmp(o.write, "-") && (o.rotate_bytes || o.rotate_files))
		usage_error("-C and -W cannot be used with -w - (stdout is one stream; give a file "
			    "name)");
	if (cli.prom_addr && !o.iface)
		usage_error("--prometheus needs -i");
	if (cli.user && !o.iface)
		usage_error("-Z needs -i");
	if (cli.interval_ns && cli.interval_ns < 100000000ull && o.iface)
		usage_error("-i --interval: at least 0.1 s");
	if (cli.check && (o.csv || o.frames || cli.interval_ns))
		usage_error("--check cannot be combined with --csv, --frames or --interval");
	if (!ra_thr_empty(cli.thresholds) && !cli.check)
		usage_error("--warn and --crit need --check");
	if (cli.check && ra_thr_empty(cli.thresholds)) {
		char e[256];

		ra_thr_add(cli.thresholds, true, "icrc_bad>0,pfc_storms>0", e, sizeof(e));
		ra_thr_add(cli.thresholds, false, "lost_psns>0", e, sizeof(e));
	}
	if (o.iface)
		/* -i: the caller sets ctx.live */;
	else if (!cli.files->len)
		usage_error("no input file (give FILE, -r FILE, -i IFACE, or - for stdin)");
	for (unsigned i = 0; i < cli.files->len; i++)
		if (!strcmp(g_ptr_array_index(cli.files, i), "-"))
			stdin_uses++;
	if (stdin_uses > 1)
		usage_error("stdin (-) given more than once");
	if (o.csv && (o.json || o.frames))
		usage_error("--csv cannot be combined with --json or --frames");
	if (cli.extract && (!*cli.extract || !strcmp(cli.extract, "-")))
		usage_error("--extract needs a file name (not stdout)");
	if (cli.html && (!*cli.html || !strcmp(cli.html, "-")))
		usage_error("--html needs a file name (not stdout)");
	if (cli.textfile && (!*cli.textfile || !strcmp(cli.textfile, "-")))
		usage_error("--prometheus-textfile needs a file name (not stdout)");
	if (cli.textfile && stat(cli.textfile, &st) == 0 && !S_ISREG(st.st_mode)) {
		char *msg = g_strdup_printf("--prometheus-textfile %s: not a regular file (it is "
					    "replaced by rename())", cli.textfile);

		usage_error(msg);
	}
	if (context_given && !cli.extract)
		usage_error("--context needs --extract");
	if (cli.extract && o.iface)
		usage_error("--extract works on capture files (-r); with -i, save with -w and extract from the file");
	o.extract = cli.extract;
	o.files = (const char **)cli.files->pdata;
	o.n_files = cli.files->len;
	*out = o;
	*cli_out = cli;
}

void ra_cli_free(struct ra_cli *c)
{
	ra_thr_free(c->thresholds);
	g_ptr_array_free(c->files, TRUE);
	g_ptr_array_free(c->rest, TRUE);
	roce_capf_free(c->filter);
	g_free(c->filter_expr);
	g_free(c->extract);
	g_free(c->html);
}
