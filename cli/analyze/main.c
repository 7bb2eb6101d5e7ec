// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * main.c - roce-analyze: read pcap/pcapng captures, run every frame through
 * libroce (roce_decode -> roce_analyzer_process) and print a report.
 *
 * This file drives the read loop (files or a live capture), shows progress
 * and maps the outcome to an exit status; options.c parses the command
 * line.  All decoding and analysis is
 * libroce's; the output writers live in report_*.c (report.h).
 *
 * Exit status: 0 ok, 1 a --fail-on anomaly occurred, 2 usage or input error.
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* initgroups() */

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <inttypes.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <glib.h>

#include <roce/analyzer.h>
#include <roce/erf.h>
#include <roce/icrc.h>
#include <roce/pkt.h>
#include <roce/roce.h>

#include "analyze.h"

/* Sanitizer builds free everything at exit (their leak check sees the analyzer's destroy). */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define RA_FREE_AT_EXIT 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define RA_FREE_AT_EXIT 1
#endif
#endif
#include "capfilter.h"
#include "capread.h"
#include "capread_rbuf.h"
#include "health.h"
#include "ifaces.h"
#include "live.h"
#include "options.h"
#include "prom.h"
#include "promhttp.h"
#include "promseries.h"
#include "extract.h"
#include "report.h"
#include "report_html.h"
#include "run_prefetch.h"

#define RA_BATCH 64u     /* records asked of the reader at once (roce_cap_next_batch()) */
#define PROGRESS_AUTO_BYTES (64ull << 20)
#define PROGRESS_CHECK_MASK 0x1fffu     /* look at the clock every 8192 frames */
#define PROGRESS_INTERVAL_NS 250000000ull

static struct ra_ctx ctx;
static struct ra_cli cli;                   /* the options that are the driver's own */
static struct roce_decode_opts dopts;
/* --threads 2: the reader's helper verifies ICRCs ahead (roce_icrc_frame_verdict() with
 * dopts_ahead's ports), the reader decodes an OK verdict with dopts_ok (icrc_known_ok),
 * another with dopts_taken and takes it (threads_ahead()) */
static struct roce_decode_opts dopts_ahead, dopts_taken, dopts_ok;
/* frames shorter than this are verified by the main thread even with --threads 2: none, since
 * whether taking the helper's verdict for a short frame pays depends on the machine and its
 * load, which the reader's probe measures (docs/perf/analyze-threads.md) */
#define AHEAD_MIN_CAPLEN 0u
/* A regular pcap or pcapng file is read with read() into one reused buffer, the ICRC verdicts
 * of each buffer's records computed before they are decoded (roce_cap_set_read_buffer()):
 * with --threads 1 always; with --threads 2 when the file's first records are on average at
 * least this long (large frames), else the helper verifies ahead over the mapping
 * (docs/perf/analyze-threads.md, 6 December 2026, h78) */
#define READ_BUF_MIN_MEAN 512u
static struct ra_extract *extract;     /* --extract writer, opened with the first file */
static struct ra_html *html;        /* --html writer: its time series observes the analyzer */
static ra_promhttp_t *promhttp;
#define TEXTFILE_EVERY_NS (10ull * 1000000000ull)   /* without --interval */
static ra_promseries_t *promseries;
static char check_reason[1100];             /* --check: why the check could not be made */
/* where the report, --frames and --interval go: stdout, stderr when -w - saves the capture
 * there */
static FILE *report_out;
static char stdout_buf[1 << 16];            /* its buffer when it is stdout (main()) */

/* ---- anomalies ------------------------------------------------------------ */

static void on_anomaly(void *user, const struct roce_anomaly *a)
{
	struct ra_ctx *c = user;

	c->anom_total++;
	ra_extract_mark(extract, a->frame);
	if ((unsigned)a->type < ROCE_AN_COUNT)
		c->anom_counts[a->type]++;
	if (c->n_anoms >= c->o.max_anomalies)
		return;
	if (c->n_anoms == c->cap_anoms) {
		uint64_t n = c->cap_anoms ? c->cap_anoms * 2 : 256;

		if (n > c->o.max_anomalies)
			n = c->o.max_anomalies;
		c->anoms = g_realloc_n(c->anoms, n, sizeof(*c->anoms));
		c->cap_anoms = n;
	}
	c->anoms[c->n_anoms++] = *a;
}

/* True if an anomaly of type t occurred (anomaly callback or summary totals). */
static bool anomaly_occurred(const struct ra_ctx *c, const struct roce_summary *s,
			     enum roce_anomaly_type t)
{
	return roce_anomaly_count(s, t) || ((unsigned)t < ROCE_AN_COUNT && c->anom_counts[t]);
}

/* ---- progress ------------------------------------------------------------- */

struct progress {
	bool on, shown;
	uint64_t start_ns, last_ns;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void progress_erase(struct progress *p)
{
	if (p->shown) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
		p->shown = false;
	}
}

static void progress_show(struct progress *p, roce_capfile_t *c, const struct ra_file *rf,
			  uint64_t now)
{
	struct roce_summary s;
	uint64_t done = 0, total = 0, el;
	double mbs;
	char pct[16] = "";

	/* percent of the (possibly compressed) file, rate of captured data */
	roce_cap_progress(c, &done, &total);
	roce_analyzer_summary(ctx.an, &s);
	el = now - p->start_ns;
	mbs = el ? (double)s.bytes / 1e6 / ((double)el / 1e9) : 0.0;
	if (total)
		snprintf(pct, sizeof(pct), "%5.1f%% ", 100.0 * (double)done / (double)total);
	if (ctx.o.n_files > 1)
		fprintf(stderr, "\r\033[K%s: [%u/%u] %s %s%" PRIu64 " frames %.1f MB/s",
			RA_PROG, ctx.cur_file + 1, ctx.o.n_files, rf->name, pct, ctx.frames, mbs);
	else
		fprintf(stderr, "\r\033[K%s: %s %s%" PRIu64 " frames %.1f MB/s",
			RA_PROG, rf->name, pct, ctx.frames, mbs);
	fflush(stderr);
	p->shown = true;
	p->last_ns = now;
}

static bool progress_wanted(void)
{
	uint64_t total = 0;
	struct stat st;

	if (ctx.o.quiet && ctx.o.progress != 1)
		return false;
	if (ctx.o.progress >= 0)
		return ctx.o.progress;
	if (!isatty(STDERR_FILENO))
		return false;
	for (unsigned i = 0; i < ctx.o.n_files; i++)
		if (strcmp(ctx.o.files[i], "-") && stat(ctx.o.files[i], &st) == 0)
			total += (uint64_t)st.st_size;
	return total > PROGRESS_AUTO_BYTES;
}

/* ---- main loop ------------------------------------------------------------ */

static const char *linktype_name(int lt)
{
	static const struct { int lt; const char *name; } tab[] = {
		{ 0, "NULL" }, { 1, "EN10MB" }, { 6, "IEEE802_5" }, { 9, "PPP" },
		{ 10, "FDDI" }, { 50, "PPP_HDLC" }, { 101, "RAW" }, { 104, "C_HDLC" },
		{ 105, "IEEE802_11" }, { 108, "LOOP" }, { 113, "LINUX_SLL" },
		{ 119, "PRISM_HEADER" }, { 127, "IEEE802_11_RADIOTAP" },
		{ 187, "BLUETOOTH_HCI_H4" }, { 189, "USB_LINUX" }, { 192, "PPI" },
		{ 195, "IEEE802_15_4" }, { 197, "ERF" }, { 219, "MPLS" }, { 220, "USB_LINUX_MMAPPED" },
		{ 228, "IPV4" }, { 229, "IPV6" }, { 239, "NFLOG" }, { 247, "INFINIBAND" },
		{ 249, "USBPCAP" }, { 253, "NETLINK" }, { 276, "LINUX_SLL2" },
	};

	for (size_t i = 0; i < G_N_ELEMENTS(tab); i++)
		if (tab[i].lt == lt)
			return tab[i].name;
	return NULL;
}

static void report_linktype(const struct ra_file *rf, uint64_t frame_no, int lt, const char *more)
{
	const char *n = linktype_name(lt);
	char where[64] = "", name[32] = "", fname[ROCE_ERRBUF_SIZE];

	if (frame_no)
		snprintf(where, sizeof(where), "frame %" PRIu64 ": ", frame_no);
	if (n)
		snprintf(name, sizeof(name), " (%s)", n);
	roce_cap_escape(rf->name, fname, sizeof(fname));
	fprintf(stderr, "%s: %s: %sunsupported link-layer type %d%s%s\n",
		RA_PROG, fname, where, lt, name, more);
}

/* ---- signals -------------------------------------------------------------- */

/*
 * SIGINT / SIGTERM: the read stops (a blocked read on a pipe returns, see
 * roce_cap_set_interrupt()), the report of what was read is printed and the
 * exit status is 2 (0 for a live capture).  The first signal is installed
 * with no SA_RESTART, so a blocked read() returns EINTR; from then on the
 * handler is SA_RESTART, so the report's writes are not cut short.  A
 * repeated SIGINT/SIGTERM within a second of the first is the same request
 * (timeout(1) sends its signal to the child and then to its whole process
 * group; Ctrl-C may be pressed twice) and is ignored; a later one kills, as
 * the default action would.
 */
#define SIGNAL_REPEAT_NS 1000000000ull

static volatile sig_atomic_t got_signal;
static volatile uint64_t first_signal_ns;   /* written and read in the handler only */

static void on_signal(int sig)
{
	struct sigaction sa;
	struct timespec ts;
	uint64_t now;
	int saved = errno;

	clock_gettime(CLOCK_MONOTONIC, &ts);    /* async-signal-safe (POSIX) */
	now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	if (!got_signal) {
		got_signal = sig;
		first_signal_ns = now;
		sa.sa_handler = on_signal;
		sigaddset(&sa.sa_mask, SIGINT);
		sigaddset(&sa.sa_mask, SIGTERM);
		sa.sa_flags = SA_RESTART;
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
	} else if (now - first_signal_ns >= SIGNAL_REPEAT_NS) {
		sa.sa_handler = SIG_DFL;
		sigaction(sig, &sa, NULL);
		raise(sig);     /* delivered when the handler returns */
	}
	errno = saved;
}

/*
 * SIGPIPE: the reader of stdout (or stderr) has gone ("| head").  The run stops as on
 * SIGINT, quietly, so that -w, --extract, --html and --prometheus-textfile files are
 * completed (being killed left them empty); main() then ends by SIGPIPE as cat would.
 * With -w - the capture is on stdout: SIGPIPE is ignored, and a write that fails with EPIPE
 * ends the capture normally (live.c), its report then printed on stderr (as tcpdump does).
 */
static void on_sigpipe(int sig)
{
	(void)sig;
	if (!got_signal)
		got_signal = SIGPIPE;
}

static void install_signals(bool pipe_ends_run)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGINT);
	sigaddset(&sa.sa_mask, SIGTERM);
	sa.sa_flags = 0; /* no SA_RESTART: a blocked read() returns EINTR */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sa.sa_handler = pipe_ends_run ? on_sigpipe : SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
}

static void report_interrupted(const struct ra_file *rf)
{
	char fname[ROCE_ERRBUF_SIZE];

	if (got_signal == SIGPIPE) {    /* no one reads the report: end quietly */
		ctx.interrupted = got_signal;
		return;
	}

	roce_cap_escape(rf->name, fname, sizeof(fname));
	fprintf(stderr, "%s: %s: frame %" PRIu64 ": interrupted by %s; the report covers the "
		"frames before\n", RA_PROG, fname, rf->last_no + 1,
		got_signal == SIGINT ? "SIGINT" : got_signal == SIGTERM ? "SIGTERM" : "a signal");
	ctx.interrupted = got_signal;
	ctx.input_error = true;
}

/*
 * ERF records (LINKTYPE_ERF) carry their own timestamp (the pcap one is
 * derived from it, rounded) and a loss counter: use the former, add the
 * latter to the file's capture drops.
 */
static void erf_record(struct ra_file *rf, struct roce_cap_record *rec)
{
	struct roce_erf e;
	int r = roce_erf_parse(rec->data, rec->caplen, &e);

	if (r == ROCE_OK || r == ROCE_E_MALFORMED) {
		rec->ts_ns = e.ts_ns;
		rec->flags &= ~ROCE_CAP_REC_NO_TS;
		rf->drops += e.lctr;
	}
}

/* The reader's first capture-format warning of a file; the others are counted. */
static void report_warning(struct ra_file *rf, roce_capfile_t *c, struct progress *pg)
{
	if (rf->warnings || !roce_cap_warnings(c))
		return;
	progress_erase(pg);
	fprintf(stderr, "%s: warning: %s\n", RA_PROG, roce_cap_warning(c));
	rf->warnings = roce_cap_warnings(c);
}

/* One frame into the analysis (file or live): timestamps, decode, analyse, --frames. */
static bool extract_failed;
static void file_interval(uint64_t ts);

/*
 * The file being read, and its reader's word that is set once the mapped file may have been
 * cut under the records handed out (roce_cap_shrink_flag(); the analyzer reads it too,
 * roce_analyzer_set_discard_flag()); a constant 0 between files and for live captures.
 */
static const int no_shrink;
static roce_capfile_t *ra_cap;
static const volatile int *ra_shrink = &no_shrink;

static int rec_intact_slow(const struct roce_cap_record *r)
{
	int ok = roce_cap_rec_intact(ra_cap, r);

	if (ok == 1 && roce_cap_shrink_flag(ra_cap) != ra_shrink) {
		/* (the file grew over the reader's sentinel: another flag from now on) */
		ra_shrink = roce_cap_shrink_flag(ra_cap);
		roce_analyzer_set_discard_flag(ctx.an, ra_shrink);
	}
	return ok;
}

/*
 * After a record's bytes were read (decoded, or matched by the filter), before it is
 * counted: 1 when its bytes were the file's; else the reader's error (it names the frame,
 * capread.h), and the record must not be counted.  One load unless the file was cut.
 */
static inline __attribute__((always_inline)) int rec_intact(const struct roce_cap_record *r)
{
#ifdef __SANITIZE_THREAD__
	/* (GCC's ThreadSanitizer takes no thread fence; loads stay in order on x86, where it runs) */
	__atomic_signal_fence(__ATOMIC_ACQUIRE);
#else
	__atomic_thread_fence(__ATOMIC_ACQUIRE);        /* the flag's load after the bytes' */
#endif
	if (G_LIKELY(!__atomic_load_n(ra_shrink, __ATOMIC_RELAXED) &&
		     !(r->flags & ROCE_CAP_REC_RECHECK)) || !ra_cap)
		return 1;
	return rec_intact_slow(r);
}

/*
 * The capture interface of the previous record (section, id; UINT32_MAX: none yet, set at
 * each file's start): the analyzer is told the interface only when a record's differs
 * (roce_analyzer_set_interface(); ifaces.h numbers them for the run); if_run: its number.
 */
static uint32_t if_section = UINT32_MAX, if_index = UINT32_MAX, if_run;

static __attribute__((noinline)) void iface_switch(const struct roce_cap_record *r)
{
	if_section = r->section;
	if_index = r->ifindex;
	if_run = ra_iface_id(&ctx, ra_cap, ctx.cur_file, r->section, r->ifindex);
	roce_analyzer_set_interface(ctx.an, if_run);
}

static inline __attribute__((always_inline)) void rec_iface(const struct roce_cap_record *r)
{
	if (G_UNLIKELY(r->ifindex != if_index || r->section != if_section))
		iface_switch(r);
}

/*
 * plain (a constant where inlined): no --frames, --extract or file --interval (plain_run()).
 * Returns 1, or rec_intact()'s error with nothing counted (the frame's bytes were cut).
 */
static inline __attribute__((always_inline)) int analyse_record(const struct roce_cap_record *r,
	uint64_t no, const char *src, const bool plain)
{
	uint64_t ts = r->ts_ns;  /* the record's, or the previous frame's */
	struct roce_frame_result res, *resp = NULL;
	struct roce_pkt pkt;
	const bool print_frames = !plain && ctx.o.frames && !ctx.o.quiet;
	int st, ok;

	if (!plain && (print_frames || extract))
		resp = &res;

	if (G_LIKELY(r->ahead == 1 + ROCE_ICRC_OK)) {
		/* --threads 2: the ICRC was verified on the other core */
		st = roce_decode(r->linktype, r->data, r->caplen, r->wirelen, &dopts_ok, &pkt);
	} else if (r->ahead) {
		st = roce_decode(r->linktype, r->data, r->caplen, r->wirelen, &dopts_taken, &pkt);
		roce_icrc_take_verdict(&pkt, (enum roce_icrc_status)(r->ahead - 1));
	} else {
		st = roce_decode(r->linktype, r->data, r->caplen, r->wirelen, &dopts, &pkt);
	}
	ok = rec_intact(r);
	if (G_UNLIKELY(ok < 0))
		return ok;
	if (G_LIKELY(!(r->flags & ROCE_CAP_REC_NO_TS))) {
		if (G_UNLIKELY(!ctx.have_first_ts)) {
			ctx.first_ts_ns = ctx.min_ts_ns = ctx.max_ts_ns = ts;
			ctx.have_first_ts = true;
		}
		if (ts < ctx.min_ts_ns)
			ctx.min_ts_ns = ts;
		if (ts > ctx.max_ts_ns)
			ctx.max_ts_ns = ts;
		ctx.last_ts_ns = ts;
		if (!plain && G_UNLIKELY(cli.interval_ns) && !ctx.live)
			file_interval(ts);
	} else {
		/* no timestamp: the analysis uses the previous frame's time */
		ctx.frames_without_ts++;
		ts = ctx.last_ts_ns;
	}
	rec_iface(r);
	roce_analyzer_process(ctx.an, &pkt, st, ts, no, resp);
	if (plain)
		return 1;
	if (extract) {
		struct roce_cap_record rec = *r;

		rec.ts_ns = ts;
		if (G_UNLIKELY(ra_extract_frame(extract, no, r->frame_no, src, &rec, resp) != 0) &&
		    !extract_failed) {
			fprintf(stderr, "%s: --extract: %s: cannot write frame %" PRIu64 " of %s\n",
				RA_PROG, ctx.o.extract, r->frame_no, src);
			extract_failed = true;
		}
	}
	if (print_frames && (pkt.kind == ROCE_KIND_ROCE || pkt.kind == ROCE_KIND_PFC ||
			     pkt.kind == ROCE_KIND_PAUSE)) {
		struct ra_frame fr = {
			.global_no = no, .local_no = r->frame_no,
			.file = ctx.cur_file, .iface = if_run, .ts_ns = ts, .pkt = &pkt,
			.no_ts = (r->flags & ROCE_CAP_REC_NO_TS) != 0,
			.status = st, .res = resp,
		};

		if (ctx.o.json)
			ra_frame_json(&ctx, &fr, report_out);
		else
			ra_frame_text(&ctx, &fr, report_out);
	}
	return 1;
}

/*
 * On the capture reader's helper thread, or on this one over the read() buffer just filled
 * (roce_cap_set_read_buffer()): the ICRC verdict of a record, + 1: the one roce_decode() with
 * verify_icrc would give, from the headers alone (the reader decodes).
 */
static uint8_t threads_ahead(void *user, const struct roce_cap_record *rec)
{
	(void)user;
	return (uint8_t)(1 + roce_icrc_frame_verdict(rec->linktype, rec->data, rec->caplen,
						     rec->wirelen, &dopts_ahead));
}

/* roce_run_prefetch()'s slot tokens of the records ahead (run_prefetch.h) */
static uint32_t ahead_token[ROCE_RUN_TOKENS + 1];

/*
 * A run of records in the plain loop (analyse_file(): no -c, filter, progress,
 * --frames, --extract or --interval) with the link type already checked and
 * no flags (capread.h): what analyse_record() does for each, with the
 * timestamp bounds kept in registers and the prefetch decided once per run,
 * and the frame decoded and analysed in one call (nothing reads it after the
 * analysis).  Returns how many records were analysed: all of them, or those
 * before a signal, or those before the first one the analyzer discarded
 * (the reader's shrink flag set: the caller's one-at-a-time path decides on
 * it with rec_intact()).
 */
static __attribute__((noinline)) unsigned plain_run(roce_capfile_t *c,
	const struct roce_cap_record *recs, unsigned rn, uint64_t base, const char *src)
{
	roce_analyzer_t *const an = ctx.an;
	const bool pf = roce_analyzer_prefetch_wanted(an);
	const bool first = !ctx.have_first_ts;
	uint64_t lo, hi;
	unsigned ri;

	if (G_UNLIKELY(first)) {
		ctx.first_ts_ns = ctx.min_ts_ns = ctx.max_ts_ns = recs[0].ts_ns;
		ctx.have_first_ts = true;
	}
	lo = ctx.min_ts_ns;
	hi = ctx.max_ts_ns;
	for (ri = 0; ri < rn && !G_UNLIKELY(got_signal); ri++) {
		const struct roce_cap_record *r = &recs[ri];
		const uint64_t ts = r->ts_ns;

		if (pf)
			roce_run_prefetch(ctx.an, c, recs, ri, rn, ahead_token);
		rec_iface(r);
		if (G_LIKELY(r->ahead == 0 || r->ahead == 1 + ROCE_ICRC_OK)) {
			/* --threads 2: the ICRC was verified on the other core */
			if (G_UNLIKELY(roce_analyzer_decode_process(an, r->linktype, r->data,
					r->caplen, r->wirelen, r->ahead ? &dopts_ok : &dopts, ts,
					base + r->frame_no) == ROCE_E_DISCARDED))
				break;
			lo = ts < lo ? ts : lo;
			hi = ts > hi ? ts : hi;
		} else {
			ctx.min_ts_ns = lo;
			ctx.max_ts_ns = hi;
			if (analyse_record(r, base + r->frame_no, src, true) < 0)
				break;
			lo = ctx.min_ts_ns;
			hi = ctx.max_ts_ns;
		}
	}
	ctx.min_ts_ns = lo;
	ctx.max_ts_ns = hi;
	if (ri)
		ctx.last_ts_ns = recs[ri - 1].ts_ns;
	else if (G_UNLIKELY(first))
		ctx.have_first_ts = false;      /* (the first record was not counted) */
	return ri;
}

/* The analysis no longer reads the file's reader nor its shrink flag (ra_shrink). */
static void cap_detach(void)
{
	roce_analyzer_set_discard_flag(ctx.an, NULL);
	ra_shrink = &no_shrink;
	ra_cap = NULL;
}

/* The file's reader closed, and its shrink flag with it. */
static void cap_close(roce_capfile_t *c)
{
	cap_detach();
	roce_cap_close(c);
}

/*
 * A file read to its end (or as far as it goes): its reader's helper thread
 * gives the mapping back on the other core while this one goes on with the
 * next file or the report; the reader is closed at the next file's end or
 * after the report (ra_cap_closing).
 */
static roce_capfile_t *ra_cap_closing;

static void cap_done(roce_capfile_t *c)
{
	cap_detach();
	roce_cap_done(c);
	roce_cap_close(ra_cap_closing);
	ra_cap_closing = c;
}

/* Returns false when the whole run must stop (input error, signal or -c reached). */
static bool analyse_file(struct ra_file *rf, struct progress *pg)
{
	char errbuf[ROCE_ERRBUF_SIZE] = "";
	struct roce_cap_record recs[RA_BATCH];
	roce_capfile_t *c;
	const uint64_t count = ctx.o.count;
	int cur_lt = -1, lt, r = 0;
	unsigned ri = 0, rn = 0;         /* recs[ri..rn) not yet analysed */
	uint64_t prev_no = 0, prev_drops = 0;
	bool warned_lt = false, plain;

	c = roce_cap_open(rf->path, errbuf);
	if (!c) {
		snprintf(check_reason, sizeof(check_reason), "%s", errbuf[0] ? errbuf : rf->name);
		progress_erase(pg);
		fprintf(stderr, "%s: %s\n", RA_PROG, errbuf[0] ? errbuf : rf->name);
		ctx.input_error = true;
		return false;
	}
	roce_cap_set_interrupt(c, &got_signal);
	if (!roce_cap_set_read_buffer(c, dopts.verify_icrc ? threads_ahead : NULL, NULL,
				      AHEAD_MIN_CAPLEN, cli.threads == 2 ? READ_BUF_MIN_MEAN : 0) &&
	    cli.threads == 2 && dopts.verify_icrc)
		roce_cap_set_ahead(c, threads_ahead, NULL, AHEAD_MIN_CAPLEN);
	ra_cap = c;
	ra_shrink = roce_cap_shrink_flag(c);
	roce_analyzer_set_discard_flag(ctx.an, ra_shrink);
	rf->opened = true;
	if_section = if_index = UINT32_MAX;     /* the file's interfaces are its own */
	g_strlcpy(rf->format, roce_cap_format(c), sizeof(rf->format));
	rf->base = ctx.frames;
	lt = roce_cap_linktype(c);
	rf->linktype = lt;
	/* pcap: one link type for the file; pcapng: per interface (below) */
	if (lt >= 0 && strncmp(rf->format, "pcapng", 6) && !roce_linktype_supported(lt)) {
		progress_erase(pg);
		report_linktype(rf, 0, lt, "");
		ctx.input_error = true;
		cap_close(c);
		rf->format[0] = '\0';
		return false;
	}
	report_warning(rf, c, pg);
	if (ctx.o.extract && !extract) {
		/* the output takes the first file's link type */
		extract = ra_extract_open(ctx.o.extract, lt, ctx.o.context, errbuf);
		if (!extract) {
			progress_erase(pg);
			fprintf(stderr, "%s: --extract: %s\n", RA_PROG, errbuf);
			ctx.input_error = true;
			cap_close(c);
			return false;
		}
	}

	/* no -c, filter, progress, --frames, --extract or --interval: the per-frame checks they
	 * need are skipped at once (one test of a local instead of one each) */
	plain = !count && !cli.filter && !pg->on && !(ctx.o.frames && !ctx.o.quiet) && !extract &&
		!(cli.interval_ns && !ctx.live);
	for (;;) {
		struct roce_cap_record *rec;
		uint64_t no;

		if (G_UNLIKELY(got_signal))
			break;
		if (!plain && count && (cli.filter ? ctx.matched : ctx.frames) >= count) {
			ctx.stopped_by_count = true;
			break;
		}
		if (ri == rn) {
			/* records come in runs (the reader's checks per run, not per record) */
			r = roce_cap_next_batch(c, recs, RA_BATCH);
			if (r <= 0)
				break;
			rn = (unsigned)r;
			ri = 0;
			if (plain && rn > 1 && recs[0].linktype == cur_lt &&
			    cur_lt != ROCE_LINKTYPE_ERF) {
				/* a run of the link type already checked, no flags
				 * (capread.h): only what each frame needs */
				ri = plain_run(c, recs, rn, rf->base, rf->name);
				if (ri) {
					rf->last_no = recs[ri - 1].frame_no;
					ctx.frames = rf->base + rf->last_no;
					ctx.matched += ri;
					rf->frames += ri;
				}
				continue;       /* the next run, or a signal */
			}
		}
		rec = &recs[ri++];
		/* frame numbers are Wireshark's (pcapng custom blocks are numbered too) */
		no = rf->base + rec->frame_no;
		prev_no = rf->last_no;
		prev_drops = rf->drops;
		if (!plain && G_UNLIKELY(count && !cli.filter && no > count)) {
			ctx.stopped_by_count = true;
			break;
		}
		if (G_UNLIKELY(rec->flags & ROCE_CAP_REC_WARN))
			report_warning(rf, c, pg);
		if (G_UNLIKELY(rec->linktype != cur_lt)) {
			/* a pcapng interface of another type: counted, not decoded (Wireshark
			 * reads on; the file's other interfaces may be Ethernet) */
			cur_lt = rec->linktype;
			if (!roce_linktype_supported(cur_lt) && !warned_lt) {
				progress_erase(pg);
				report_linktype(rf, rec->frame_no, cur_lt,
						"; frames of this type are counted, not decoded");
				warned_lt = true;
			}
		}
		if (G_UNLIKELY(rec->linktype == ROCE_LINKTYPE_ERF))
			erf_record(rf, rec);
		ctx.frames = no;
		rf->last_no = rec->frame_no;
		if (!plain && cli.filter && !roce_capf_match(cli.filter, rec->linktype, rec->data,
							 rec->caplen, rec->wirelen)) {
			if (G_UNLIKELY((r = rec_intact(rec)) < 0))
				goto cut;
			ctx.filtered_out++;
			continue;
		}
		ctx.matched++;
		rf->frames++;
		if (roce_analyzer_prefetch_wanted(ctx.an))
			roce_run_prefetch(ctx.an, c, recs, ri - 1, rn, ahead_token);
		if (plain) {
			if (G_UNLIKELY((r = analyse_record(rec, no, rf->name, true)) < 0))
				goto uncount;
			continue;
		}
		if (G_UNLIKELY((r = analyse_record(rec, no, rf->name, false)) < 0))
			goto uncount;
		if (G_UNLIKELY(pg->on && !(rf->frames & PROGRESS_CHECK_MASK))) {
			uint64_t now = mono_ns();

			if (now - pg->last_ns >= PROGRESS_INTERVAL_NS)
				progress_show(pg, c, rf, now);
		}
		continue;
uncount:
		/* the file was cut under this record (r: the reader's error, naming it) */
		ctx.matched--;
		rf->frames--;
cut:
		rf->last_no = prev_no;
		ctx.frames = rf->base + prev_no;
		rf->drops = prev_drops;
		break;
	}

	if (got_signal || r == ROCE_CAP_E_INTR) {
		progress_erase(pg);
		report_interrupted(rf);
	} else if (r < 0 && !ctx.input_error) {
		progress_erase(pg);
		fprintf(stderr, "%s: %s\n", RA_PROG, roce_cap_error(c));
		snprintf(check_reason, sizeof(check_reason), "%s", roce_cap_error(c));
		ctx.input_error = true;
	}
	report_warning(rf, c, pg);
	if (getenv("ROCE_ANALYZE_THREADS_DEBUG"))  /* tests: did the helper verify any? */
		fprintf(stderr, "%s: %s: %" PRIu64 " of %" PRIu64 " frames verified ahead\n",
			RA_PROG, rf->name, roce_cap_ahead_taken(c), rf->last_no);
	rf->warnings = roce_cap_warnings(c);
	if (html)
		ra_html_file_meta(html, ctx.cur_file, c);
	ctx.capture_warnings += rf->warnings;
	ctx.capture_drops += rf->drops;
	if (!ctx.input_error && !ctx.stopped_by_count)
		rf->complete = true;
	cap_done(c);
	return !ctx.input_error && !ctx.stopped_by_count;
}

/* ---- live capture (-i; the capture itself is live.c) ---------------------- */

static void live_frame(void *user, struct roce_cap_record *rec)
{
	struct ra_file *rf = user;

	ctx.frames = rec->frame_no;
	ctx.matched++;
	rf->frames++;
	rf->last_no = rec->frame_no;
	analyse_record(rec, rec->frame_no, rf->name, false);
}

static ra_live_t *cur_live;
static double live_secs;                    /* how long the live capture ran */
static struct ra_snap tick_prev;
static uint64_t tick_last_ns;

static uint64_t wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * -Z: as tcpdump, only when running as root: the supplementary groups, the
 * group and the user of USER, for good (setuid() as root sets all three uids).
 */
static bool drop_privileges(const char *user, char *errbuf, size_t errlen)
{
	struct passwd *pw;

	if (geteuid() != 0)
		return true;
	errno = 0;
	pw = getpwnam(user);
	if (!pw) {
		snprintf(errbuf, errlen, "-Z %s: no such user", user);
		return false;
	}
	if (initgroups(pw->pw_name, pw->pw_gid) != 0 || setgid(pw->pw_gid) != 0 ||
	    setuid(pw->pw_uid) != 0) {
		snprintf(errbuf, errlen, "-Z %s: cannot change to this user: %s", user,
			 strerror(errno));
		return false;
	}
	if (setuid(0) == 0) {
		snprintf(errbuf, errlen, "-Z %s: root privileges could be regained", user);
		return false;
	}
	return true;
}

/* A snapshot for Prometheus: the counters, and the labelled series updated now. */
static void prom_snap(uint64_t drops, struct ra_snap *sn)
{
	ra_snap_take(&ctx, drops, sn);
	if (promseries) {
		ra_promseries_set_ifaces(promseries, ctx.ifaces, ctx.n_ifaces);
		ra_promseries_update(promseries, ctx.an, ctx.frames);
		sn->series = promseries;
	}
}

/* false (after a message) if the file could not be written */
static bool write_textfile(uint64_t drops)
{
	char errbuf[1024];
	struct ra_snap sn;
	const char *label = ctx.live ? ctx.o.iface : ctx.n_files ? ctx.files[0].name : "";

	prom_snap(drops, &sn);
	if (ra_prom_write(cli.textfile, label, &sn, errbuf, sizeof(errbuf)) != 0) {
		fprintf(stderr, "%s: --prometheus-textfile: %s\n", RA_PROG, errbuf);
		return false;
	}
	return true;
}

/* --prometheus: what /metrics serves from now on */
static void prom_publish(void)
{
	struct ra_snap sn;
	uint64_t drops, rx;

	ra_live_stats(cur_live, &drops, &rx);
	prom_snap(drops, &sn);
	ra_promhttp_update(promhttp, ctx.o.iface, &sn);
}

/* --interval: the metrics since the previous line; --prometheus-textfile */
static void live_tick(void *user, uint64_t now)
{
	static uint64_t text_last_ns, prom_last_ns;
	struct ra_snap cur;
	struct ra_metrics m;
	uint64_t drops, rx;

	/* live timestamps are the kernel's wall clock: time moves on without frames
	 * (pauses close, idle streams expire) */
	roce_analyzer_advance(ctx.an, wall_ns());
	if (!tick_last_ns) {
		tick_last_ns = text_last_ns = now;
		return;
	}
	if (promhttp && now - prom_last_ns >= 1000000000ull) {
		prom_publish();
		prom_last_ns = now;
	}
	if (cli.textfile && !cli.interval_ns && now - text_last_ns >= TEXTFILE_EVERY_NS) {
		ra_live_stats(cur_live, &drops, &rx);
		write_textfile(drops);
		text_last_ns = now;
	}
	if (!cli.interval_ns || now - tick_last_ns < cli.interval_ns)
		return;
	ra_live_stats(cur_live, &drops, &rx);
	if (cli.textfile)
		write_textfile(drops);
	ra_snap_take(&ctx, drops, &cur);
	ra_metrics_delta(&tick_prev, &cur, (double)(now - tick_last_ns) / 1e9, &m);
	if (!ctx.o.quiet)
		ra_interval_print(report_out, ctx.o.json, wall_ns(), &m);
	tick_prev = cur;
	tick_last_ns = now;
}

/*
 * --interval on files: intervals of capture time, the first one starting at
 * the first frame's timestamp (as tshark -z io,stat); a frame at or past
 * the end of the current one closes it (and the empty ones in between, at
 * most FILE_EMPTY_MAX in a row) before it is analysed.  The analyzer's time
 * is advanced to each boundary, so pauses and idle streams end as in live
 * mode.  The last, partial interval is printed at the end of the input.
 */
#define FILE_EMPTY_MAX 1000
static bool fiv_on;
static uint64_t fiv_start, fiv_end;

static void file_interval_emit(uint64_t end, uint64_t len)
{
	struct ra_snap cur;
	struct ra_metrics m;
	uint64_t drops = ctx.capture_drops + ctx.files[ctx.cur_file].drops;

	roce_analyzer_advance(ctx.an, end);
	ra_snap_take(&ctx, drops, &cur);
	ra_metrics_delta(&tick_prev, &cur, (double)len / 1e9, &m);
	if (!ctx.o.quiet)
		ra_interval_print(report_out, ctx.o.json, end, &m);
	if (cli.textfile)
		write_textfile(drops);
	tick_prev = cur;
}

static void file_interval(uint64_t ts)
{
	unsigned n = 0;

	if (!fiv_on) {
		fiv_on = true;
		fiv_start = ts;
		fiv_end = ts + cli.interval_ns;
		return;
	}
	while (ts >= fiv_end && fiv_end > fiv_start) {
		if (n++ == FILE_EMPTY_MAX) {
			/* a long silence: on to the interval that holds ts */
			fiv_start = fiv_end + (ts - fiv_end) / cli.interval_ns * cli.interval_ns;
			fiv_end = fiv_start + cli.interval_ns;
			break;
		}
		file_interval_emit(fiv_end, cli.interval_ns);
		fiv_start = fiv_end;
		fiv_end += cli.interval_ns;
	}
}

static void file_interval_last(void)
{
	if (fiv_on && ctx.max_ts_ns >= fiv_start)
		file_interval_emit(ctx.max_ts_ns, ctx.max_ts_ns - fiv_start);
}

/*
 * Open the capture, run it until -c, --duration or SIGINT/SIGTERM, take
 * the capture's drop counters.  Returns false if the capture could not be
 * opened or failed (message printed, ctx.input_error set).
 */
static bool analyse_live(struct ra_file *rf)
{
	struct ra_live_opts lo = {
		.iface = ctx.o.iface, .filter = ctx.o.filter,
		.udp_ports = ctx.o.udp_ports, .n_udp_ports = ctx.o.n_udp_ports,
		.snaplen = ctx.o.snaplen, .buffer_kib = ctx.o.buffer_kib,
		.immediate = ctx.o.immediate,
		.packet_buffered = ctx.o.packet_buffered,
		.write = ctx.o.write, .rotate_bytes = ctx.o.rotate_bytes,
		.rotate_files = ctx.o.rotate_files, .count = ctx.o.count,
		.duration_ns = ctx.o.duration_ns,
	};
	enum ra_live_err lerr;
	char errbuf[1024] = "";
	uint64_t drops = 0, received = 0;
	ra_live_t *l;
	bool by_count = false;
	int r;

	l = ra_live_open(&lo, &lerr, errbuf, sizeof(errbuf));
	if (!l) {
		snprintf(check_reason, sizeof(check_reason), "%s", errbuf);
		fprintf(stderr, "%s: %s\n", RA_PROG, errbuf);
		ctx.input_error = true;
		return false;
	}
	/* before -Z: a port below 1024 needs root */
	if (cli.prom_addr) {
		promhttp = ra_promhttp_start(cli.prom_addr, errbuf, sizeof(errbuf));
		if (!promhttp) {
			snprintf(check_reason, sizeof(check_reason), "%s", errbuf);
			fprintf(stderr, "%s: %s\n", RA_PROG, errbuf);
			ra_live_close(l, errbuf, sizeof(errbuf));
			ctx.input_error = true;
			return false;
		}
	}
	if ((cli.user && !drop_privileges(cli.user, errbuf, sizeof(errbuf))) ||
	    ra_live_start_write(l, errbuf, sizeof(errbuf)) != 0) {
		snprintf(check_reason, sizeof(check_reason), "%s", errbuf);
		fprintf(stderr, "%s: %s\n", RA_PROG, errbuf);
		ra_live_close(l, errbuf, sizeof(errbuf));
		ctx.input_error = true;
		return false;
	}
	rf->opened = true;
	g_strlcpy(rf->format, "live", sizeof(rf->format));
	rf->linktype = ra_live_linktype(l);
	ctx.live_filter = g_strdup(ra_live_filter(l));
	cur_live = l;
	if (promhttp)
		prom_publish();  /* a scrape from now on gets every metric (at zero), not "" */
	/* as tcpdump: on stderr, once the filter is set, so a script knows capture began */
	ra_live_describe(l, errbuf, sizeof(errbuf));
	fprintf(stderr, "%s: %s\n", RA_PROG, errbuf);
	live_secs = (double)mono_ns();
	r = ra_live_run(l, live_frame, live_tick, rf, &got_signal,
			&by_count, errbuf, sizeof(errbuf));
	live_secs = ((double)mono_ns() - live_secs) / 1e9;
	ra_live_stats(l, &drops, &received);
	if (ra_live_output_closed(l))
		/* the end of the capture, as a signal's: the reader has all it wanted */
		fprintf(stderr, "%s: -w -: the reader of stdout has gone; capture ended after %"
			PRIu64 " frames\n", RA_PROG, received);
	rf->drops = drops;
	ctx.capture_drops = drops;
	ctx.stopped_by_count = by_count;
	if (r != 0) {
		snprintf(check_reason, sizeof(check_reason), "%s", errbuf);
		fprintf(stderr, "%s: %s\n", RA_PROG, errbuf);
		ctx.input_error = true;
	}
	if (ra_live_close(l, errbuf, sizeof(errbuf)) != 0 && r == 0) {
		fprintf(stderr, "%s: %s\n", RA_PROG, errbuf);
		ctx.input_error = true;
	}
	if (got_signal)
		ctx.interrupted = got_signal;   /* the normal end of a live capture: not an error */
	if (!ctx.input_error)
		rf->complete = true;
	return !ctx.input_error;
}

int main(int argc, char **argv)
{
	char errbuf[ROCE_ERRBUF_SIZE] = "";
	struct roce_analyzer_config cfg;
	struct roce_summary sum;
	struct progress pg = { 0 };
	bool analysed_any = false, to_stdout;
	int status = EXIT_OK;
	bool check = false;

	setlocale(LC_CTYPE, "");
	g_set_prgname(RA_PROG);
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--check"))
			check = true;
	ra_parse_options(argc, argv, check, &ctx.o, &cli);
	ctx.live = ctx.o.iface != NULL;
	to_stdout = !(ctx.o.write && !strcmp(ctx.o.write, "-"));

	roce_decode_opts_init(&dopts);
	dopts.verify_icrc = !ctx.o.no_icrc;
	memset(dopts.udp_ports, 0, sizeof(dopts.udp_ports));
	memcpy(dopts.udp_ports, ctx.o.udp_ports, ctx.o.n_udp_ports * sizeof(uint16_t));
	/* the decoded frame goes to the analysis only, unless --frames or --extract print it */
	dopts.analysis_only = !ctx.o.frames && !ctx.o.extract;
	dopts_ahead = dopts_taken = dopts;
	dopts_taken.verify_icrc = false;
	dopts_ok = dopts_taken;
	dopts_ok.icrc_known_ok = true;
	if (!cli.threads)
		cli.threads = roce_cap_cpus() > 1 ? 2 : 1;

	roce_analyzer_config_init(&cfg);
	cfg.max_flows = ctx.o.max_flows;
	cfg.pmtu = ctx.o.pmtu;
	cfg.link_speed_gbps = ctx.o.link_speed_gbps;
	cfg.pfc_storm_ns = ctx.o.pfc_storm_ms * 1000000ull;
	cfg.idle_timeout_ns = ctx.o.flow_timeout_ns;
	cfg.copy_window_ns = ctx.o.copy_window_us * 1000;
	cfg.max_memory = ctx.o.max_memory;
	cfg.on_anomaly = on_anomaly;
	cfg.user = &ctx;
	ctx.an = roce_analyzer_create(&cfg, errbuf);
	if (!ctx.an) {
		fprintf(stderr, "%s: %s\n", RA_PROG, errbuf[0] ? errbuf : "cannot create analyzer");
		return EXIT_USAGE;
	}
	if (cli.html) {
		html = ra_html_open(cli.html, ctx.an, errbuf, sizeof(errbuf));
		if (!html) {
			fprintf(stderr, "%s: --html: %s\n", RA_PROG, errbuf);
			roce_analyzer_destroy(ctx.an);
			return EXIT_USAGE;
		}
	}
	if ((cli.prom_addr || cli.textfile) &&
	    !(promseries = ra_promseries_new(ctx.an, (unsigned)cli.prom_streams,
					     (unsigned)cli.prom_senders))) {
		fprintf(stderr, "%s: out of memory\n", RA_PROG);
		return EXIT_USAGE;
	}

	ctx.files = g_new0(struct ra_file, ctx.live ? 1 : ctx.o.n_files);
	for (unsigned i = 0; i < ctx.o.n_files; i++) {
		ctx.files[i].path = ctx.o.files[i];
		ctx.files[i].name = strcmp(ctx.o.files[i], "-") ? ctx.o.files[i] : "<stdin>";
		ctx.files[i].linktype = -1;
	}

	/* a line per frame as it comes on a terminal (tcpdump -r - | ... on a screen), as stdio
	 * does by default, in a live capture and with -l (tcpdump's: "| grep" sees each line at
	 * once); 64 KiB blocks into files and pipes (given as a buffer: with NULL, glibc keeps
	 * the size it takes from the file, a pipe's 4 KiB).  stderr (-w -) is unbuffered. */
	report_out = to_stdout ? stdout : stderr;
	if (to_stdout && !ctx.o.quiet && (ctx.o.frames || cli.line_buffered))
		setvbuf(stdout, stdout_buf, ctx.live || cli.line_buffered ||
			isatty(STDOUT_FILENO) ? _IOLBF : _IOFBF, sizeof(stdout_buf));
	pg.on = progress_wanted();
	pg.start_ns = pg.last_ns = mono_ns();
	install_signals(to_stdout);

	if (ctx.live) {
		ctx.files[0].path = ctx.files[0].name = ctx.o.iface;
		ctx.files[0].linktype = -1;
		ctx.n_files = 1;
		pg.on = false;
		analyse_live(&ctx.files[0]);
	}
	for (unsigned i = 0; i < ctx.o.n_files; i++) {
		ctx.cur_file = i;
		ctx.n_files = i + 1;
		if (!analyse_file(&ctx.files[i], &pg))
			break;
	}
	progress_erase(&pg);
	if (cli.interval_ns && !ctx.live)
		file_interval_last();
	roce_analyzer_finish(ctx.an);
	if (extract) {
		uint64_t written = 0, skipped = 0;

		if (ra_extract_close(extract, &written, &skipped) != 0 || extract_failed) {
			fprintf(stderr, "%s: --extract: error writing %s\n", RA_PROG, ctx.o.extract);
			ctx.input_error = true;
		}
		if (skipped)
			fprintf(stderr, "%s: --extract: %" PRIu64 " frame(s) of another link type than "
				"the first file's not written\n", RA_PROG, skipped);
		extract = NULL;
	}

	for (unsigned i = 0; i < ctx.n_files; i++)
		if (ctx.files[i].complete)
			analysed_any = true;
	if (ctx.frames)
		analysed_any = true;

	if (html && ra_html_write(html, &ctx, errbuf, sizeof(errbuf)) != 0) {
		fprintf(stderr, "%s: --html: %s\n", RA_PROG, errbuf);
		ctx.input_error = true;
	}
	/* the last write is the run's result: its failure is the run's (the periodic ones retry) */
	if (cli.textfile && (analysed_any || ctx.live) && !write_textfile(ctx.capture_drops))
		ctx.input_error = true;
	if (cli.check) {
		/* Nagios convention: the status line and exit status are the whole output */
		struct ra_snap zero, end;
		struct ra_metrics m;
		const char *why = NULL;
		double secs = ctx.live ? live_secs :
			ctx.have_first_ts ? (double)(ctx.max_ts_ns - ctx.min_ts_ns) / 1e9 : 0.0;

		memset(&zero, 0, sizeof(zero));
		ra_snap_take(&ctx, ctx.capture_drops, &end);
		ra_metrics_delta(&zero, &end, secs, &m);
		if (ctx.input_error)
			why = check_reason[0] ? check_reason :
			      "input error or interrupted (see the message above)";
		status = (int)ra_check_report(report_out, cli.thresholds, &m, why);
		if ((fflush(report_out) != 0 || ferror(report_out)) && got_signal != SIGPIPE) {
			/* a check whose status line was lost is not a verdict */
			fprintf(stderr, "%s: error writing output: %s\n", RA_PROG,
				g_strerror(errno ? errno : EIO));
			status = RA_UNKNOWN;
		}
		goto out;
	}

	/* after JSON Lines (--frames, --interval) the JSON report is one line too */
	if (!ctx.o.quiet && analysed_any && got_signal != SIGPIPE) {
		if (ctx.o.csv)
			ra_report_csv(&ctx, report_out);
		else if (ctx.o.json)
			ra_report_json(&ctx, report_out, !ctx.o.frames && !cli.interval_ns);
		else
			ra_report_text(&ctx, report_out);
	}

	roce_analyzer_summary(ctx.an, &sum);
	for (int t = 0; t < ROCE_AN_COUNT; t++)
		if ((ctx.o.fail_mask & (1u << t)) &&
		    anomaly_occurred(&ctx, &sum, (enum roce_anomaly_type)t))
			status = EXIT_ANOM;
	if (ctx.input_error)
		status = EXIT_USAGE;

	if ((fflush(report_out) != 0 || ferror(report_out)) && got_signal != SIGPIPE) {
		fprintf(stderr, "%s: error writing output: %s\n", RA_PROG, g_strerror(errno));
		status = EXIT_USAGE;
	}

out:
	roce_cap_close(ra_cap_closing);  /* after the report: its helper gave the mapping back */
	ra_cap_closing = NULL;
	ra_promhttp_stop(promhttp);
	/*
	 * The process ends here and its memory with it: giving back a million
	 * streams' records first (a walk over every stream, a munmap() per pool
	 * block) would only add to the run's time.  Sanitizer builds do destroy.
	 */
#ifdef RA_FREE_AT_EXIT
	roce_analyzer_destroy(ctx.an);
#endif
	ra_html_free(html);         /* after the analyzer: its time series is an observer */
	ra_promseries_free(promseries);
	g_free(ctx.anoms);
	ra_iface_free(&ctx);
	g_free(ctx.files);
	ra_cli_free(&cli);
	if (got_signal == SIGPIPE) {
		/* the files are complete: now the end a closed pipe gives (status 141) */
		signal(SIGPIPE, SIG_DFL);
		raise(SIGPIPE);
	}
	return status;
}
