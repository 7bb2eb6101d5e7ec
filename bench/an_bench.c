/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * an_bench.c - in-process cost of roce-analyze's analysis per frame (bench/many_qps.sh's
 * "in-process" column): the capture is mapped once, then analysed R times over, each time
 * by a fresh analyzer, and each repetition is timed on its own, so that neither the
 * process's start-up nor the file's reading is in the numbers.
 *
 *   an_bench [-r REPS | -t SECONDS] [--max-flows N] [--no-icrc] [--remap] FILE
 *
 * (--max-flows and --no-icrc as roce-analyze's; REPS 1..100000, SECONDS default 2)
 *
 * What a repetition does is what roce-analyze -q --threads 1 FILE does between reading
 * the file header and printing its report (cli/analyze/main.c, plain_run()):
 *   setup   roce_cap_open_mem() over the mapping, roce_analyzer_create() with -q's
 *           configuration (the defaults of cli/analyze/options.c, --max-flows, an anomaly
 *           callback that counts), the reader's shrink word as the discard flag;
 *   feed    every record through roce_cap_next_batch() (runs of up to 64) and
 *           roce_analyzer_decode_process() with -q's decode options (the ICRC verified,
 *           on this thread as with --threads 1, unless --no-icrc; analysis_only), with
 *           roce-analyze's loads ahead of the next records' streams (run_prefetch.h)
 *           when the analyzer wants them;
 *   end     roce_analyzer_finish() and roce_analyzer_summary() (what -q calls at the end);
 *   free    roce_analyzer_destroy() and roce_cap_close() (roce-analyze leaves this to the
 *           kernel's exit, which unmaps the same memory).
 * The ns/frame quoted is (feed + end) / frames, CPU time of the process
 * (CLOCK_PROCESS_CPUTIME_ID; one thread) and wall time (CLOCK_MONOTONIC) alike: the per-frame
 * work and the per-stream work of the end of a run, which is what the process-level column
 * (a run minus a run on the first 8 frames) measures too.  Setup and free are per-run costs
 * and printed apart, in microseconds.  The analyzer's memory comes from mmap() and goes
 * back with munmap() (lib/src/an_pool.c), so every repetition faults its pages in anew, as
 * a new process does; only what glibc's heap gives back (the stream table's array below its
 * mapped size) is mapped already.  sys_ns and minflt (getrusage(), the kernel's share of
 * the CPU time, sampled at ticks, and the minor page faults) tell these apart.
 *
 * The file is mapped with MAP_POPULATE before the first repetition: its bytes are in memory
 * (the page cache) and mapped, and no repetition reads the disk or takes a page fault on
 * the capture.  roce-analyze itself maps the file window by window on the reader's helper
 * thread (whose CPU time the process-level column counts, even with --threads 1).  On the
 * 2-vCPU VM of docs/perf/many-qps.md the first read of each 4 KiB page of a new mapping
 * costs about 2 us of user time even when the page was mapped in advance (the hypervisor's,
 * it seems: no page fault is counted, and a second read is 40 times faster): the first
 * repetition pays it for the whole capture, the others do not.  --remap maps the capture
 * anew (untimed) before every repetition, so that every one pays it, as every roce-analyze
 * run does; without it the numbers are the analysis alone.
 *
 * The first repetition is printed on its own (cold: the code's first run, the kernel's first
 * huge page for the analyzer's arena, the first read of every page of the capture's
 * mapping, see above); the median and the interquartile range are those of the others:
 * -r REPS of them, or (default, -t 2) as many as SECONDS of CPU time allow, at least 5 and
 * at most 101.  The quartiles are Python's statistics.quantiles(n=4) (the "exclusive"
 * method), as many_qps.sh's for its pairs.
 *
 * Output: one line of key=value words on stdout (ns are per frame; *_us per run):
 *   frames= reps= cpu_ns= cpu_iqr= wall_ns= wall_iqr= cold_cpu_ns= cold_wall_ns=
 *   feed_cpu_ns= sys_ns= cold_sys_ns= minflt= cold_minflt= setup_us= end_us= free_us=
 *   summary_frames= streams= icrc_ok= anomalies= icrc=
 * frames counts the records fed; summary_frames, streams and icrc_ok are
 * roce_analyzer_summary()'s frames, flows_active and icrc_ok (roce-analyze --json's
 * summary.frames, .streams and .icrc_ok).  Classic pcap and pcapng, uncompressed
 * (roce_cap_open_mem() takes no gzip); ERF records are decoded but not re-timed by their
 * ERF header as roce-analyze does.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <roce/analyzer.h>
#include <roce/pkt.h>
#include <roce/roce.h>

#include "capread.h"
#include "run_prefetch.h"

#define AB_BATCH 64u            /* roce-analyze's RA_BATCH */
#define AB_MIN_REPS 5u
#define AB_MAX_REPS 101u

struct rep {
	uint64_t cpu_ns, wall_ns;       /* feed + end */
	uint64_t feed_cpu_ns;
	uint64_t sys_ns, minflt;        /* of feed + end: kernel time, minor page faults */
	uint64_t setup_ns, end_ns, free_ns;     /* CPU */
	uint64_t frames, summary_frames, streams, icrc_ok, anomalies;
};

static uint64_t clk(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t tv_ns(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * 1000000000ull + (uint64_t)tv->tv_usec * 1000ull;
}

static void on_anomaly(void *user, const struct roce_anomaly *a)
{
	(void)a;
	(*(uint64_t *)user)++;
}

/* One repetition; false with a message on stderr if the capture or the analyzer fails. */
static bool run_once(const uint8_t *data, size_t len, const char *name,
		     const struct roce_analyzer_config *cfg0, const struct roce_decode_opts *dopts,
		     struct rep *r)
{
	char errbuf[ROCE_ERRBUF_SIZE] = "";
	struct roce_analyzer_config cfg = *cfg0;
	struct roce_cap_record recs[AB_BATCH];
	struct roce_summary sum;
	struct rusage ru1, ru3;
	roce_analyzer_t *an;
	roce_capfile_t *c;
	uint64_t t0, t1, t2, t3, t4, w1, w3, last_ts = 0;
	uint32_t token[ROCE_RUN_TOKENS + 1] = { 0 };
	int cur_lt = -1, n;

	memset(r, 0, sizeof(*r));
	cfg.user = &r->anomalies;
	t0 = clk(CLOCK_PROCESS_CPUTIME_ID);
	c = roce_cap_open_mem(data, len, name, errbuf);
	if (!c) {
		fprintf(stderr, "an_bench: %s\n", errbuf);
		return false;
	}
	an = roce_analyzer_create(&cfg, errbuf);
	if (!an) {
		fprintf(stderr, "an_bench: %s\n", errbuf[0] ? errbuf : "cannot create analyzer");
		roce_cap_close(c);
		return false;
	}
	roce_analyzer_set_discard_flag(an, roce_cap_shrink_flag(c));

	getrusage(RUSAGE_SELF, &ru1);
	w1 = clk(CLOCK_MONOTONIC);
	t1 = clk(CLOCK_PROCESS_CPUTIME_ID);
	while ((n = roce_cap_next_batch(c, recs, AB_BATCH)) > 0) {
		const unsigned rn = (unsigned)n;
		const bool pf = roce_analyzer_prefetch_wanted(an);

		for (unsigned ri = 0; ri < rn; ri++) {
			const struct roce_cap_record *rec = &recs[ri];
			uint64_t ts = rec->ts_ns;

			if (rec->linktype != cur_lt) {
				cur_lt = rec->linktype;
				if (!roce_linktype_supported(cur_lt))
					fprintf(stderr, "an_bench: %s: frame %" PRIu64 ": link-layer "
						"type %d: counted, not decoded\n", name, rec->frame_no,
						cur_lt);
			}
			if (rec->flags & ROCE_CAP_REC_NO_TS)
				ts = last_ts;   /* the previous frame's time, as roce-analyze */
			last_ts = ts;
			if (pf)
				roce_run_prefetch(an, c, recs, ri, rn, token);
			(void)roce_analyzer_decode_process(an, rec->linktype, rec->data, rec->caplen,
							   rec->wirelen, dopts, ts, rec->frame_no);
			r->frames++;
		}
	}
	t2 = clk(CLOCK_PROCESS_CPUTIME_ID);
	if (n < 0) {
		fprintf(stderr, "an_bench: %s\n", roce_cap_error(c));
		roce_analyzer_destroy(an);
		roce_cap_close(c);
		return false;
	}
	roce_analyzer_finish(an);
	roce_analyzer_summary(an, &sum);
	t3 = clk(CLOCK_PROCESS_CPUTIME_ID);
	w3 = clk(CLOCK_MONOTONIC);
	getrusage(RUSAGE_SELF, &ru3);
	roce_analyzer_destroy(an);
	roce_cap_close(c);
	t4 = clk(CLOCK_PROCESS_CPUTIME_ID);

	r->cpu_ns = t3 - t1;
	r->wall_ns = w3 - w1;
	r->feed_cpu_ns = t2 - t1;
	r->sys_ns = tv_ns(&ru3.ru_stime) - tv_ns(&ru1.ru_stime);
	r->minflt = (uint64_t)(ru3.ru_minflt - ru1.ru_minflt);
	r->setup_ns = t1 - t0;
	r->end_ns = t3 - t2;
	r->free_ns = t4 - t3;
	r->summary_frames = sum.frames;
	r->streams = sum.flows_active;
	r->icrc_ok = sum.icrc_ok;
	return true;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Quartiles q[0..2] of v[0..n) (sorted here): Python's statistics.quantiles(v, n=4). */
static void quartiles(uint64_t *v, size_t n, double q[3])
{
	qsort(v, n, sizeof(*v), cmp_u64);
	if (n == 1) {
		q[0] = q[1] = q[2] = (double)v[0];
		return;
	}
	for (long i = 1; i < 4; i++) {
		long m = (long)n + 1, j = i * m / 4, delta;

		j = j < 1 ? 1 : j > (long)n - 1 ? (long)n - 1 : j;
		delta = i * m - j * 4;  /* outside 0..4 where j was clamped: extrapolates */
		q[i - 1] = ((double)v[j - 1] * (4.0 - (double)delta) + (double)v[j] * (double)delta) /
			   4.0;
	}
}

static void usage(void)
{
	fprintf(stderr, "usage: an_bench [-r REPS | -t SECONDS] [--max-flows N] [--no-icrc] "
		"[--remap] FILE\n");
	exit(2);
}

/* The whole capture mapped, its page-cache pages mapped in the call; MAP_FAILED (message). */
static const uint8_t *map_capture(int fd, size_t len, const char *path)
{
	void *m;

	if (!len)
		return NULL;
	m = mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
	if (m == MAP_FAILED)
		fprintf(stderr, "an_bench: %s: %s\n", path, strerror(errno));
	return m;
}

int main(int argc, char **argv)
{
	struct roce_analyzer_config cfg;
	struct roce_decode_opts dopts;
	struct rep cold, *reps;
	uint64_t *v, spent = 0;
	double budget_s = 2.0, cpu_q[3], wall_q[3], feed_q[3], q[3], per;
	unsigned want = 0, n = 0, max_flows = 1000000;
	const char *path = NULL;
	const uint8_t *data;
	bool no_icrc = false, remap = false;
	struct stat st;
	int fd;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-r") && i + 1 < argc) {
			want = (unsigned)strtoul(argv[++i], NULL, 10);
			if (want < 1 || want > 100000)
				usage();
		} else if (!strcmp(argv[i], "-t") && i + 1 < argc) {
			budget_s = strtod(argv[++i], NULL);
		} else if (!strcmp(argv[i], "--max-flows") && i + 1 < argc) {
			max_flows = (unsigned)strtoul(argv[++i], NULL, 10);
		} else if (!strcmp(argv[i], "--no-icrc")) {
			no_icrc = true;
		} else if (!strcmp(argv[i], "--remap")) {
			remap = true;
		} else if (argv[i][0] != '-' && !path) {
			path = argv[i];
		} else {
			usage();
		}
	}
	if (!path)
		usage();

	/* -q's options (cli/analyze/main.c, options.c): decode for the analysis only */
	roce_decode_opts_init(&dopts);
	dopts.verify_icrc = !no_icrc;
	dopts.analysis_only = true;
	roce_analyzer_config_init(&cfg);
	cfg.max_flows = max_flows;
	cfg.link_speed_gbps = 100.0;
	cfg.pfc_storm_ns = 200ull * 1000000ull;
	cfg.on_anomaly = on_anomaly;

	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st) != 0) {
		fprintf(stderr, "an_bench: %s: %s\n", path, strerror(errno));
		return 2;
	}
	data = map_capture(fd, (size_t)st.st_size, path);
	if (data == MAP_FAILED)
		return 2;

	if (!run_once(data, (size_t)st.st_size, path, &cfg, &dopts, &cold))
		return 2;
	reps = calloc(want ? want : AB_MAX_REPS, sizeof(*reps));
	v = calloc(want ? want : AB_MAX_REPS, sizeof(*v));
	if (!reps || !v)
		return 2;
	while (want ? n < want : n < AB_MIN_REPS || (spent < (uint64_t)(budget_s * 1e9) &&
						       n < AB_MAX_REPS)) {
		if (remap) {
			/* a new mapping of the same page-cache pages: its first reads in the
			 * timed region, as a new roce-analyze process has them */
			if (data)
				munmap((void *)data, (size_t)st.st_size);
			data = map_capture(fd, (size_t)st.st_size, path);
			if (data == MAP_FAILED)
				return 2;
		}
		if (!run_once(data, (size_t)st.st_size, path, &cfg, &dopts, &reps[n]))
			return 2;
		spent += reps[n].setup_ns + reps[n].cpu_ns + reps[n].free_ns;
		if (reps[n].summary_frames != cold.summary_frames) {
			fprintf(stderr, "an_bench: %s: repetition %u counted %" PRIu64 " frames, the "
				"first %" PRIu64 "\n", path, n + 2, reps[n].summary_frames,
				cold.summary_frames);
			return 2;
		}
		n++;
	}

	per = cold.frames ? 1.0 / (double)cold.frames : 0.0;
#define QUART(field, out) do { \
		for (unsigned i = 0; i < n; i++) \
			v[i] = reps[i].field; \
		quartiles(v, n, out); \
	} while (0)
	QUART(cpu_ns, cpu_q);
	QUART(wall_ns, wall_q);
	QUART(feed_cpu_ns, feed_q);
	printf("frames=%" PRIu64 " reps=%u cpu_ns=%.1f cpu_iqr=%.1f wall_ns=%.1f wall_iqr=%.1f "
	       "cold_cpu_ns=%.1f cold_wall_ns=%.1f feed_cpu_ns=%.1f",
	       cold.frames, n, cpu_q[1] * per, (cpu_q[2] - cpu_q[0]) * per, wall_q[1] * per,
	       (wall_q[2] - wall_q[0]) * per, (double)cold.cpu_ns * per,
	       (double)cold.wall_ns * per, feed_q[1] * per);
	QUART(sys_ns, q);
	printf(" sys_ns=%.1f cold_sys_ns=%.1f", q[1] * per, (double)cold.sys_ns * per);
	QUART(minflt, q);
	printf(" minflt=%.0f cold_minflt=%" PRIu64, q[1], cold.minflt);
	QUART(setup_ns, q);
	printf(" setup_us=%.1f", q[1] / 1e3);
	QUART(end_ns, q);
	printf(" end_us=%.1f", q[1] / 1e3);
	QUART(free_ns, q);
	printf(" free_us=%.1f", q[1] / 1e3);
	printf(" summary_frames=%" PRIu64 " streams=%" PRIu64 " icrc_ok=%" PRIu64 " anomalies=%"
	       PRIu64 " icrc=%s\n", cold.summary_frames, cold.streams, cold.icrc_ok, cold.anomalies,
	       dopts.verify_icrc ? "verified" : "off");
	free(v);
	free(reps);
	if (data)
		munmap((void *)data, (size_t)st.st_size);
	close(fd);
	return 0;
}
