/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ring_read.c - issue #9's read() lead measured on its own (docs/perf/analyze-threads.md,
 * 6 December 2026): a classic-pcap file read with read() into a small ring of reused
 * buffers instead of through a new mapping, so that no page of the file is first-accessed
 * through a mapping (about 250-500 ns a 4 KiB page on the 2-vCPU AMD EPYC VM).
 *
 *   ring_read [-t 1|2] [-b KIB] [-n NBUF] [-p AHEAD] [-s SPINS] [--no-icrc] [--analyze] FILE
 *
 * -t 2 (default): a helper thread read()s the file into the ring (NBUF buffers of KIB KiB,
 * default 8 x 256), walks the records of each buffer, computes each frame's ICRC verdict
 * (roce_icrc_frame_verdict(), as roce-analyze's helper does over the mapping) into a byte
 * per record and publishes the buffer; the main thread walks the same records and, per
 * record, either a cheap pass (its header, 8 bytes where the BTH of an IPv4 RoCE frame is,
 * and the verdict, summed) or with --analyze what roce-analyze -q does with the helper's
 * verdicts (roce_analyzer_decode_process(), icrc_known_ok for an OK verdict, verify_icrc on
 * for any other, analysis_only; no run prefetch, no ROCE_RUN_AHEAD).  -t 1: the same on one
 * thread (read, verdicts, pass, buffer by buffer).  --no-icrc: no verdicts at all.
 * -p AHEAD: the main thread prefetches the lines of the first 128 bytes of the record AHEAD
 * records on (the helper leaves each record's offset), for the lines another core wrote.
 * -b/-n apply to -t 2; -t 1 reads into one buffer of KIB KiB.
 *
 * A record that spans a buffer's end: each buffer has 256 KiB + 16 bytes of slack before
 * its data; the helper copies the partial record at the previous buffer's end into the
 * slack (the previous buffer is only read by then: it is not reused until NBUF buffers
 * later) and reads the file after it.  A record larger than the slack plus a buffer is an
 * error here (a bench, not the reader).  The buffers are handed over with two counters
 * (release/acquire) and a futex when a side has to wait (after SPINS pause instructions,
 * default 2000).
 *
 * Prints the frames, the verdict counts, a sum (so that nothing is optimised away), the
 * wall time from open to the end, each thread's CPU time and waits (futex sleeps), and the
 * wall time in read() (with the carry's copy), in the walk with the verdicts, and in the
 * main thread's pass; with --analyze also the analyzer's summary (frames, icrc_ok,
 * streams), to compare with roce-analyze --json's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <roce/analyzer.h>
#include <roce/icrc.h>
#include <roce/pkt.h>
#include <roce/roce.h>

#define RR_SLACK ((size_t)256 * 1024 + 16)

struct rr_buf {
	uint8_t *mem;           /* RR_SLACK + cap bytes */
	const uint8_t *start;   /* first record */
	size_t len;             /* bytes of whole records from start */
	uint32_t nrec;
	uint8_t *verdict;       /* 1 + verdict per record */
	uint32_t *off;          /* each record's offset from start, and the end's */
};

struct rr {
	int fd, linktype, nt;
	bool icrc, analyze;
	unsigned ahead;         /* records the reader prefetches ahead (0: none) */
	size_t cap;
	unsigned nbuf;
	struct rr_buf *buf;
	_Atomic uint32_t head;  /* buffers published */
	_Atomic uint32_t tail;  /* buffers given back */
	_Atomic uint32_t eof;   /* 1 + buffers published in all, once the helper ended */
	_Atomic uint32_t wait_head, wait_tail;  /* a side sleeps on head / tail */
	struct roce_decode_opts vopts;
	uint64_t helper_cpu_ns, helper_waits, reader_waits;
	uint64_t consume_ns, fill_ns, walk_ns;  /* wall time in the steps (CLOCK_MONOTONIC) */
	const char *err;
};

static uint64_t clk(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void fwait(_Atomic uint32_t *w, uint32_t val)
{
	syscall(SYS_futex, w, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

static void fwake(_Atomic uint32_t *w)
{
	syscall(SYS_futex, w, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* Wait until *w != val (spin a little first). */
static unsigned spin = 2000;

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

static void wait_change(_Atomic uint32_t *w, _Atomic uint32_t *flag, uint32_t val,
			uint64_t *waits)
{
	for (unsigned i = 0; i < spin; i++) {
		if (atomic_load_explicit(w, memory_order_acquire) != val)
			return;
		cpu_relax();
	}
	(*waits)++;
	while (atomic_load_explicit(w, memory_order_acquire) == val) {
		atomic_store(flag, 1);
		if (atomic_load_explicit(w, memory_order_acquire) != val)
			break;
		fwait(w, val);
	}
}

static void publish(_Atomic uint32_t *w, _Atomic uint32_t *flag)
{
	atomic_fetch_add_explicit(w, 1, memory_order_seq_cst);
	if (atomic_load(flag)) {
		atomic_store(flag, 0);
		fwake(w);
	}
}

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/* Fill buffer i: carry bytes of the previous buffer's partial record, then read(). */
static int fill(struct rr *r, unsigned i, const uint8_t *carry, size_t clen, size_t *got)
{
	struct rr_buf *b = &r->buf[i];
	uint8_t *data = b->mem + RR_SLACK;
	size_t n = 0;

	if (clen > RR_SLACK)
		return -1;
	memcpy(data - clen, carry, clen);
	while (n < r->cap) {
		ssize_t k = read(r->fd, data + n, r->cap - n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -1;
		if (k == 0)
			break;
		n += (size_t)k;
	}
	b->start = data - clen;
	*got = n;
	return 0;
}

/* Walk the whole records of buffer i (clen + got bytes from start), verdicts if asked. */
static void walk(struct rr *r, unsigned i, size_t avail)
{
	struct rr_buf *b = &r->buf[i];
	const uint8_t *p = b->start;
	size_t off = 0;
	uint32_t n = 0;

	while (off + 16 <= avail) {
		uint32_t incl = rd32(p + off + 8), orig = rd32(p + off + 12);

		if (off + 16 + incl > avail)
			break;
		if (r->icrc)
			b->verdict[n] = (uint8_t)(1 + roce_icrc_frame_verdict(r->linktype,
				p + off + 16, incl, orig, &r->vopts));
		b->off[n] = (uint32_t)off;
		n++;
		off += 16 + incl;
	}
	b->off[n] = (uint32_t)off;
	b->len = off;
	b->nrec = n;
}

/* The helper's loop (or the one thread's producer step). */
static void *helper(void *arg)
{
	struct rr *r = arg;
	const uint8_t *carry = NULL;
	size_t clen = 0;
	uint32_t k = 0;

	for (;;) {
		unsigned i = k % r->nbuf;
		size_t got;
		struct rr_buf *b = &r->buf[i];

		uint64_t t0, t1;

		while (k - atomic_load_explicit(&r->tail, memory_order_acquire) >= r->nbuf)
			wait_change(&r->tail, &r->wait_tail, k - r->nbuf, &r->helper_waits);
		t0 = clk(CLOCK_MONOTONIC);
		if (fill(r, i, carry, clen, &got) != 0) {
			r->err = "read error or record too large";
			break;
		}
		t1 = clk(CLOCK_MONOTONIC);
		walk(r, i, clen + got);
		r->fill_ns += t1 - t0;
		r->walk_ns += clk(CLOCK_MONOTONIC) - t1;
		if (got == 0) {
			if (clen)
				r->err = "truncated record at the end";
			break;
		}
		carry = b->start + b->len;
		clen = clen + got - b->len;
		k++;
		publish(&r->head, &r->wait_head);
	}
	r->helper_cpu_ns = clk(CLOCK_THREAD_CPUTIME_ID);
	atomic_store_explicit(&r->eof, 1 + k, memory_order_release);
	publish(&r->head, &r->wait_head);       /* wakes the reader; one more than published */
	return NULL;
}

static void on_anomaly(void *user, const struct roce_anomaly *a)
{
	(void)a;
	(*(uint64_t *)user)++;
}

struct pass {
	uint64_t frames, sum, vcount[8], anomalies;
	roce_analyzer_t *an;
	struct roce_decode_opts d_ok, d_ver, d_off;
};

static void consume(struct rr *r, struct pass *ps, const struct rr_buf *b)
{
	const uint8_t *p = b->start;
	size_t off = 0;

	for (uint32_t n = 0; n < b->nrec; n++) {
		uint32_t incl = rd32(p + off + 8), orig = rd32(p + off + 12);

		if (r->ahead) {
			const uint8_t *q = p + b->off[n + r->ahead < b->nrec ? n + r->ahead :
						      b->nrec];

			__builtin_prefetch(q);
			__builtin_prefetch(q + 64);
			__builtin_prefetch(q + 127);
		}
		const uint8_t *f = p + off + 16;
		uint8_t v = r->icrc ? b->verdict[n] : 0;

		if (ps->an) {
			uint64_t ts = (uint64_t)rd32(p + off) * 1000000000ull +
				      (uint64_t)rd32(p + off + 4) * 1000ull;
			const struct roce_decode_opts *o = !r->icrc ? &ps->d_off :
				v == 1 + ROCE_ICRC_OK ? &ps->d_ok : &ps->d_ver;

			(void)roce_analyzer_decode_process(ps->an, r->linktype, f, incl, orig, o,
							   ts, ps->frames + 1);
		} else {
			uint64_t w = 0;

			if (incl >= 50)
				memcpy(&w, f + 42, 8);
			ps->sum += rd32(p + off) + incl + w;
		}
		ps->vcount[v & 7]++;
		ps->frames++;
		off += 16 + incl;
	}
}

static void usage(void)
{
	fprintf(stderr, "usage: ring_read [-t 1|2] [-b KIB] [-n NBUF] [-p AHEAD] [-s SPINS] "
		"[--no-icrc] [--analyze] FILE\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct rr r = { .nt = 2, .icrc = true, .cap = 256 * 1024, .nbuf = 8 };
	struct pass ps = { 0 };
	const char *path = NULL;
	uint8_t fh[24];
	uint64_t w0, w1, rcpu;
	pthread_t th;
	uint32_t k = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-t") && i + 1 < argc)
			r.nt = atoi(argv[++i]);
		else if (!strcmp(argv[i], "-b") && i + 1 < argc)
			r.cap = (size_t)strtoul(argv[++i], NULL, 10) * 1024;
		else if (!strcmp(argv[i], "-n") && i + 1 < argc)
			r.nbuf = (unsigned)strtoul(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--no-icrc"))
			r.icrc = false;
		else if (!strcmp(argv[i], "-s") && i + 1 < argc)
			spin = (unsigned)strtoul(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "-p") && i + 1 < argc)
			r.ahead = (unsigned)strtoul(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--analyze"))
			r.analyze = true;
		else if (argv[i][0] != '-' && !path)
			path = argv[i];
		else
			usage();
	}
	if (!path || (r.nt != 1 && r.nt != 2) || r.cap < 4096 || r.nbuf < 2)
		usage();
	if (r.nt == 1)
		r.nbuf = 1;

	w0 = clk(CLOCK_MONOTONIC);
	r.fd = open(path, O_RDONLY);
	if (r.fd < 0 || read(r.fd, fh, 24) != 24 || (rd32(fh) != 0xa1b2c3d4 &&
						       rd32(fh) != 0xa1b23c4d)) {
		fprintf(stderr, "ring_read: %s: not a native-order classic pcap file\n", path);
		return 2;
	}
	r.linktype = (int)(rd32(fh + 20) & 0xffff);
	roce_decode_opts_init(&r.vopts);
	r.buf = calloc(r.nbuf, sizeof(*r.buf));
	for (unsigned i = 0; i < r.nbuf; i++) {
		r.buf[i].mem = mmap(NULL, RR_SLACK + r.cap, PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		r.buf[i].verdict = malloc(r.cap / 16 + RR_SLACK / 16 + 1);
		r.buf[i].off = malloc((r.cap / 16 + RR_SLACK / 16 + 2) * sizeof(uint32_t));
		if (r.buf[i].mem == MAP_FAILED || !r.buf[i].verdict || !r.buf[i].off)
			return 2;
	}
	if (r.analyze) {
		struct roce_analyzer_config cfg;
		char errbuf[ROCE_ERRBUF_SIZE] = "";

		roce_analyzer_config_init(&cfg);
		cfg.max_flows = 1000000;
		cfg.link_speed_gbps = 100.0;
		cfg.pfc_storm_ns = 200ull * 1000000ull;
		cfg.on_anomaly = on_anomaly;
		cfg.user = &ps.anomalies;
		ps.an = roce_analyzer_create(&cfg, errbuf);
		if (!ps.an) {
			fprintf(stderr, "ring_read: %s\n", errbuf);
			return 2;
		}
		roce_decode_opts_init(&ps.d_ver);
		ps.d_ver.analysis_only = true;
		ps.d_off = ps.d_ver;
		ps.d_off.verify_icrc = false;
		ps.d_ok = ps.d_off;
		ps.d_ok.icrc_known_ok = true;
	}

	if (r.nt == 2) {
		if (pthread_create(&th, NULL, helper, &r) != 0)
			return 2;
		for (;;) {
			uint32_t e = atomic_load_explicit(&r.eof, memory_order_acquire);

			if (e && k == e - 1)
				break;
			if (atomic_load_explicit(&r.head, memory_order_acquire) == k) {
				wait_change(&r.head, &r.wait_head, k, &r.reader_waits);
				continue;
			}
			uint64_t t0 = clk(CLOCK_MONOTONIC);

			consume(&r, &ps, &r.buf[k % r.nbuf]);
			r.consume_ns += clk(CLOCK_MONOTONIC) - t0;
			k++;
			publish(&r.tail, &r.wait_tail);
		}
		pthread_join(th, NULL);
	} else {
		const uint8_t *carry = NULL;
		size_t clen = 0, got;

		for (;;) {
			struct rr_buf *b = &r.buf[0];
			uint64_t t0 = clk(CLOCK_MONOTONIC), t1, t2;
			int rc;

			/* one buffer: the carry is moved within it (memmove-safe copy) */
			if (clen) {
				uint8_t *tmp = malloc(clen);

				memcpy(tmp, carry, clen);
				rc = fill(&r, 0, tmp, clen, &got);
				free(tmp);
			} else {
				rc = fill(&r, 0, NULL, 0, &got);
			}
			if (rc != 0) {
				r.err = "read error or record too large";
				break;
			}
			t1 = clk(CLOCK_MONOTONIC);
			walk(&r, 0, clen + got);
			if (got == 0) {
				if (clen)
					r.err = "truncated record at the end";
				break;
			}
			t2 = clk(CLOCK_MONOTONIC);
			consume(&r, &ps, b);
			r.fill_ns += t1 - t0;
			r.walk_ns += t2 - t1;
			r.consume_ns += clk(CLOCK_MONOTONIC) - t2;
			carry = b->start + b->len;
			clen = clen + got - b->len;
		}
	}
	if (ps.an) {
		struct roce_summary sum;

		roce_analyzer_finish(ps.an);
		roce_analyzer_summary(ps.an, &sum);
		ps.sum = sum.frames + sum.icrc_ok + sum.flows_active;
		printf("summary frames=%" PRIu64 " icrc_ok=%" PRIu64 " icrc_unverified=%" PRIu64
		       " streams=%" PRIu64 " anomalies=%" PRIu64 "\n", sum.frames, sum.icrc_ok,
		       sum.icrc_unverified, sum.flows_active, ps.anomalies);
	}
	rcpu = clk(CLOCK_THREAD_CPUTIME_ID);
	w1 = clk(CLOCK_MONOTONIC);
	printf("frames=%" PRIu64 " ok=%" PRIu64 " bad=%" PRIu64 " unverified=%" PRIu64
	       " sum=%016" PRIx64 " wall_ms=%.2f reader_cpu_ms=%.2f helper_cpu_ms=%.2f"
	       " reader_waits=%" PRIu64 " helper_waits=%" PRIu64 " read_ms=%.2f verdicts_ms=%.2f"
	       " pass_ms=%.2f%s%s\n",
	       ps.frames, ps.vcount[1 + ROCE_ICRC_OK], ps.vcount[1 + ROCE_ICRC_BAD],
	       ps.vcount[1 + ROCE_ICRC_UNVERIFIED], ps.sum, (double)(w1 - w0) / 1e6,
	       (double)rcpu / 1e6, (double)r.helper_cpu_ns / 1e6, r.reader_waits, r.helper_waits,
	       (double)r.fill_ns / 1e6, (double)r.walk_ns / 1e6, (double)r.consume_ns / 1e6,
	       r.err ? " error=" : "", r.err ? r.err : "");
	return r.err ? 1 : 0;
}
