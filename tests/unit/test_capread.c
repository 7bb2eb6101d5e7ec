/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_capread.c - capture reader/writer: formats, gzip, stdin, errors, truncation. */
#define _GNU_SOURCE
#include "capread_testlib.h"

/* ---- round trips ----------------------------------------------------------- */

static const uint64_t rt_ts[] = {
	0, 1, 999999999, 1000000000, 1700000000123456789ull, 4294967295999999999ull,
};

static void roundtrip(int nsec)
{
	char eb[ROCE_ERRBUF_SIZE];
	const char *p = tpath(nsec ? "rt_ns.pcap" : "rt_us.pcap");
	roce_capwriter_t *w = roce_capw_open(p, 1, 9000, nsec, eb);
	struct result res, mem, str;
	static uint8_t file[65536];
	size_t flen;
	uint64_t done, total;
	roce_capfile_t *c;
	size_t n = sizeof(rt_ts) / sizeof(rt_ts[0]);

	REQUIRE(w);
	for (size_t i = 0; i < n; i++)
		CHECK_EQ_I(roce_capw_write(w, rt_ts[i], payload + i, (uint32_t)(60 + i * 100),
					   (uint32_t)(64 + i * 100)), 0);
	CHECK_EQ_I(roce_capw_write(w, 0, payload, 0, 0), 0); /* empty record */
	CHECK_EQ_I(roce_capw_write(w, 0, payload, 65, 64), ROCE_E_INVAL);   /* caplen > wirelen */
	CHECK_EQ_I(roce_capw_write(w, 0, payload, 9001, 9001), ROCE_E_INVAL); /* > snaplen */
	CHECK_EQ_I(roce_capw_write(w, 4294967296ull * 1000000000ull, payload, 1, 1), ROCE_E_INVAL);
	CHECK_EQ_I(roce_capw_close(w), 0);

	c = roce_cap_open(p, eb);
	REQUIRE(c);
	CHECK_STR(roce_cap_format(c), nsec ? "pcap-ns" : "pcap");
	CHECK_EQ_I(roce_cap_linktype(c), 1);
	CHECK_EQ_U(roce_cap_snaplen(c), 9000);
	drain(c, "", &res, NULL, NULL);
	CHECK_EQ_I(res.status, 0);
	REQUIRE(res.n == (int)n + 1);
	for (size_t i = 0; i < n; i++) {
		uint64_t want = nsec ? rt_ts[i] : rt_ts[i] - rt_ts[i] % 1000;

		CHECK_EQ_U(res.r[i].ts_ns, want);
		CHECK_EQ_U(res.r[i].caplen, 60 + i * 100);
		CHECK_EQ_U(res.r[i].wirelen, 64 + i * 100);
		CHECK_EQ_U(res.r[i].hash, fnv(payload + i, 60 + i * 100));
		CHECK_EQ_I(res.r[i].linktype, 1);
		CHECK_EQ_U(res.r[i].ifindex, 0);
	}
	CHECK_EQ_U(res.r[n].caplen, 0);

	/* Same records from memory and from the streaming path. */
	flen = read_whole(p, file, sizeof(file));
	read_mem(file, flen, p, &mem);
	read_stream(file, flen, p, &str);
	CHECK(same_records(&res, &mem));
	CHECK(same_records(&res, &str));
	CHECK_EQ_I(mem.status, 0);
	CHECK_EQ_I(str.status, 0);

	/* Progress of the mmap path ends at the file size. */
	c = roce_cap_open(p, eb);
	REQUIRE(c);
	roce_cap_progress(c, &done, &total);
	CHECK_EQ_U(done, 24);
	CHECK_EQ_U(total, flen);
	drain(c, "", &res, NULL, NULL);
}

static void test_roundtrip_us(void)
{
	roundtrip(0);
}

static void test_roundtrip_ns(void)
{
	roundtrip(1);
}

static void test_pcap_bigendian(void)
{
	struct bb b = { 0 };
	struct result res, str;

	pcap_hdr(&b, true, 0xa1b2c3d4, 65535, 1);
	pcap_rec(&b, 1700000000, 123456, payload, 60, 60);
	pcap_rec(&b, 1700000001, 999999, payload + 1, 42, 1500);
	REQUIRE(write_file(tpath("be.pcap"), b.b, b.n));
	read_path(tpath("be.pcap"), &res);
	CHECK_EQ_I(res.status, 0);
	REQUIRE(res.n == 2);
	CHECK_EQ_U(res.r[0].ts_ns, 1700000000123456000ull);
	CHECK_EQ_U(res.r[1].ts_ns, 1700000001999999000ull);
	CHECK_EQ_U(res.r[1].caplen, 42);
	CHECK_EQ_U(res.r[1].wirelen, 1500);
	CHECK_EQ_U(res.r[1].hash, fnv(payload + 1, 42));
	read_stream(b.b, b.n, "be", &str);
	CHECK(same_records(&res, &str));

	/* big-endian nanosecond file, DLT_RAW */
	b.n = 0;
	pcap_hdr(&b, true, 0xa1b23c4d, 0, 101);
	pcap_rec(&b, 5, 7, payload, 20, 20);
	read_mem(b.b, b.n, "be-ns", &res);
	CHECK_EQ_I(res.status, 0);
	REQUIRE(res.n == 1);
	CHECK_EQ_U(res.r[0].ts_ns, 5000000007ull);
	CHECK_EQ_I(res.r[0].linktype, 101);

	/* Kuznetzov "modified" pcap: 24-byte record headers */
	b.n = 0;
	pcap_hdr(&b, false, 0xa1b2cd34, 0, 1);
	pcap_rec(&b, 3, 4, NULL, 0, 0);
	b.n -= 16;
	put32(&b, 3);
	put32(&b, 4);
	put32(&b, 14);
	put32(&b, 60);
	put32(&b, 2);  /* ifindex */
	put16(&b, 0x0800);
	put8(&b, 0);
	put8(&b, 0);
	putbytes(&b, payload, 14);
	{
		char eb[ROCE_ERRBUF_SIZE];
		roce_capfile_t *c = roce_cap_open_mem(b.b, b.n, "mod", eb);

		REQUIRE(c);
		CHECK_STR(roce_cap_format(c), "pcap-modified");
		drain(c, "", &res, NULL, NULL);
	}
	CHECK_EQ_I(res.status, 0);
	REQUIRE(res.n == 1);
	CHECK_EQ_U(res.r[0].ts_ns, 3000004000ull);
	CHECK_EQ_U(res.r[0].caplen, 14);
	CHECK_EQ_U(res.r[0].hash, fnv(payload, 14));
}

static void test_gzip(void)
{
	static struct bb b;
	static uint8_t plain[65536];
	size_t bounds[32], plen;
	int nb, recs_at[32];
	struct result ref, gz;
	char eb[ROCE_ERRBUF_SIZE];
	roce_capfile_t *c;
	uint64_t done, total;
	struct stat st;

	build_pcapng(&b, bounds, &nb, recs_at);
	REQUIRE(write_gz(tpath("multi.pcapng.gz"), b.b, b.n));
	c = roce_cap_open(tpath("multi.pcapng.gz"), eb);
	REQUIRE(c);
	CHECK_STR(roce_cap_format(c), "pcapng+gzip");
	drain(c, "", &gz, NULL, NULL);
	CHECK_EQ_I(gz.status, 0);
	check_pcapng_records(&gz);

	/* pcap written by the writer, then gzip-compressed */
	{
		roce_capwriter_t *w = roce_capw_open(tpath("g.pcap"), 1, 0, 1, eb);

		REQUIRE(w);
		for (int i = 0; i < 40; i++)
			CHECK_EQ_I(roce_capw_write(w, 1000000007ull * i, payload + i, 100 + i * 50,
						   100 + i * 50), 0);
		CHECK_EQ_I(roce_capw_close(w), 0);
	}
	plen = read_whole(tpath("g.pcap"), plain, sizeof(plain));
	REQUIRE(write_gz(tpath("g.pcap.gz"), plain, plen));
	read_path(tpath("g.pcap"), &ref);
	c = roce_cap_open(tpath("g.pcap.gz"), eb);
	REQUIRE(c);
	CHECK_STR(roce_cap_format(c), "pcap-ns+gzip");
	while (roce_cap_next(c, &(struct roce_cap_record){ 0 }) == 1)
		;
	roce_cap_progress(c, &done, &total);
	REQUIRE(stat(tpath("g.pcap.gz"), &st) == 0);
	CHECK_EQ_U(total, (uint64_t)st.st_size);
	CHECK_EQ_U(done, (uint64_t)st.st_size);
	roce_cap_close(c);
	read_path(tpath("g.pcap.gz"), &gz);
	CHECK_EQ_I(ref.status, 0);
	CHECK_EQ_I(gz.status, 0);
	CHECK_EQ_I(ref.n, 40);
	CHECK(same_records(&ref, &gz));

	/* gzip in memory is refused with a clear message */
	{
		static uint8_t z[65536];
		size_t zn = read_whole(tpath("g.pcap.gz"), z, sizeof(z));

		read_mem(z, zn, "zmem", &gz);
		CHECK_EQ_I(gz.status, 1);
		CHECK(strstr(gz.err, "zmem: gzip data not supported") != NULL);
	}
}

/*
 * Runs end 16 KiB past their first record's end (CAP_RUN_BYTES) however many records were
 * asked for.  Records of 60 B to 20 KB in a mapped file, asked for 64 at a time: the same
 * records as roce_cap_next(), runs of 64 where the records are short.
 */
static void test_run_bytes(void)
{
	static const uint32_t lens[] = { 60, 1500, 60, 60, 9000, 20000, 300, 60, 60, 60, 4000 };
	static uint8_t frame[20000];
	struct roce_cap_record recs[64], one;
	const char *path = tpath("runbytes.pcap");
	char err[ROCE_ERRBUF_SIZE], err2[ROCE_ERRBUF_SIZE];
	roce_capwriter_t *w = roce_capw_open(path, 1, 65535, 1, err);
	roce_capfile_t *c, *c2;
	uint64_t n = 0, bad = 0, long_runs = 0;
	int rc = 0, rc2 = 0;

	REQUIRE(w != NULL);
	for (uint32_t i = 0; i < 6000; i++) {
		uint32_t len = i < 3000 ? 60 : lens[i % 11];

		memset(frame, (int)(i & 0xff) | 1, len);
		REQUIRE(roce_capw_write(w, 1000 + i, frame, len, len) == 0);
	}
	REQUIRE(roce_capw_close(w) == 0);
	c = roce_cap_open(path, err);
	c2 = roce_cap_open(path, err2);
	REQUIRE(c != NULL && c2 != NULL);
	while ((rc = roce_cap_next_batch(c, recs, 64)) > 0) {
		uint64_t span = 0;

		for (int j = 0; j < rc; j++) {
			if (j)
				span += 16 + recs[j].caplen;
			rc2 = roce_cap_next(c2, &one);
			if (rc2 != 1 || one.frame_no != recs[j].frame_no ||
			    one.caplen != recs[j].caplen || one.ts_ns != recs[j].ts_ns ||
			    memcmp(one.data, recs[j].data, one.caplen) != 0)
				bad++;
			n++;
		}
		if (span > 16384)
			bad++;
		long_runs += rc > 16;
	}
	CHECK_EQ_I(rc, 0);
	CHECK_EQ_I(roce_cap_next(c2, &one), 0);
	CHECK_EQ_U(n, 6000);
	CHECK_EQ_U(bad, 0);
	CHECK(long_runs > 0);   /* the 60-byte records: runs of 64 */
	roce_cap_close(c);
	roce_cap_close(c2);
	unlink(path);
}

/* roce_cap_peek(): the next record's bytes, before roce_cap_next() returns them; none
 * at the end, nor for a file read through zlib. */
static void test_peek(void)
{
	char eb[ROCE_ERRBUF_SIZE];
	roce_capwriter_t *w = roce_capw_open(tpath("peek.pcap"), 1, 0, 1, eb);
	roce_capfile_t *c;
	struct roce_cap_record r;
	const uint8_t *d;
	uint32_t n;
	int i = 0;

	REQUIRE(w);
	for (int k = 0; k < 20; k++)
		CHECK_EQ_I(roce_capw_write(w, 1000 * (uint64_t)k, payload + k, 60 + k * 30,
					   60 + k * 30), 0);
	CHECK_EQ_I(roce_capw_close(w), 0);
	c = roce_cap_open(tpath("peek.pcap"), eb);
	REQUIRE(c);
	for (;;) {
		int got = roce_cap_peek(c, &d, &n), rc = roce_cap_next(c, &r);

		if (rc != 1) {
			CHECK_EQ_I(got, 0);     /* nothing after the last record */
			break;
		}
		CHECK_EQ_I(got, 1);
		if (got == 1) {
			CHECK(d == r.data);
			CHECK_EQ_U(n, r.caplen);
		}
		i++;
	}
	CHECK_EQ_I(i, 20);
	CHECK_EQ_I(roce_cap_peek(c, &d, &n), 0);
	roce_cap_close(c);

	/* through zlib (a pipe, stdin, gzip): no peek, records as before */
	{
		static uint8_t plain[65536];
		size_t plen = read_whole(tpath("peek.pcap"), plain, sizeof(plain));

		REQUIRE(write_gz(tpath("peek.pcap.gz"), plain, plen));
		c = roce_cap_open(tpath("peek.pcap.gz"), eb);
		REQUIRE(c);
		CHECK_EQ_I(roce_cap_peek(c, &d, &n), 0);
		CHECK_EQ_I(roce_cap_next(c, &r), 1);
		roce_cap_close(c);
	}
}

/* Read "-" in a child whose stdin is fd; exit status = number of records. */
static int child_stdin_count(int fd, bool expect_gzip)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		char eb[ROCE_ERRBUF_SIZE];
		roce_capfile_t *c;
		struct roce_cap_record r;
		int n = 0;

		if (dup2(fd, 0) < 0)
			_exit(200);
		c = roce_cap_open("-", eb);
		if (!c)
			_exit(201);
		if ((strstr(roce_cap_format(c), "+gzip") != NULL) != expect_gzip)
			_exit(202);
		while (roce_cap_next(c, &r) == 1)
			n++;
		if (roce_cap_error(c)[0])
			_exit(203);
		roce_cap_close(c);
		_exit(n);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

static void test_stdin(void)
{
	static struct bb b;
	size_t bounds[32];
	int nb, recs_at[32], fd, pfd[2];
	pid_t writer;

	build_pcapng(&b, bounds, &nb, recs_at);
	REQUIRE(write_gz(tpath("stdin.pcapng.gz"), b.b, b.n));
	fd = open(tpath("stdin.pcapng.gz"), O_RDONLY);
	REQUIRE(fd >= 0);
	CHECK_EQ_I(child_stdin_count(fd, true), 6);
	close(fd);

	/* plain data through a pipe */
	REQUIRE(pipe(pfd) == 0);
	writer = fork();
	REQUIRE(writer >= 0);
	if (writer == 0) {
		close(pfd[0]);
		for (size_t off = 0; off < b.n;) { /* dribble in small pieces */
			size_t k = b.n - off < 7 ? b.n - off : 7;
			ssize_t w = write(pfd[1], b.b + off, k);

			if (w <= 0)
				_exit(1);
			off += (size_t)w;
		}
		_exit(0);
	}
	close(pfd[1]);
	CHECK_EQ_I(child_stdin_count(pfd[0], false), 6);
	close(pfd[0]);
	waitpid(writer, NULL, 0);
}

/* Records beyond the stream buffer's initial size, and at the size limit. */
static void test_big_records(void)
{
	size_t len = 24 + 2 * 16 + 200000 + ROCE_CAP_MAX_RECORD;
	uint8_t *f = calloc(1, len + 16);
	struct result m, s;
	size_t at;

	REQUIRE(f);
	memcpy(f, "\xd4\xc3\xb2\xa1\x02\x00\x04\x00", 8);
	f[20] = 189; /* snaplen 0, USB_LINUX: records up to 16 MiB (Ethernet: 256 KiB) */
	at = 24;
	for (int i = 0; i < 2; i++) {
		uint32_t l = i ? ROCE_CAP_MAX_RECORD : 200000;

		for (int k = 0; k < 4; k++)
			f[at + 8 + k] = f[at + 12 + k] = (uint8_t)(l >> (8 * k));
		at += 16;
		f[at + l - 1] = (uint8_t)(0x55 + i);
		at += l;
	}
	read_mem(f, at, "big", &m);
	read_stream(f, at, "big", &s);
	CHECK_EQ_I(m.status, 0);
	CHECK_EQ_I(m.n, 2);
	CHECK(same_records(&m, &s));
	CHECK_EQ_I(s.status, 0);
	CHECK_EQ_U(m.r[1].caplen, ROCE_CAP_MAX_RECORD);

	/* one byte more than the limit */
	for (int k = 0; k < 4; k++)
		f[24 + 16 + 200000 + 8 + k] = f[24 + 16 + 200000 + 12 + k] =
			(uint8_t)((ROCE_CAP_MAX_RECORD + 1) >> (8 * k));
	read_stream(f, at, "big", &s);
	CHECK_EQ_I(s.n, 1);
	CHECK_EQ_I(s.status, ROCE_E_MALFORMED);
	CHECK(strstr(s.err, "big: frame 2: record length 16777217 exceeds limit") != NULL);
	free(f);
}

/* ---- errors ---------------------------------------------------------------- */

static void test_errors_pcap(void)
{
	static struct bb b;

	putbytes(&b, (const uint8_t *)"hello world\n", 12);
	expect_err("text", &b, 0, 1, -1, "not a pcap or pcapng file (magic 0x68656c6c)");
	b.n = 2;
	expect_err("text2", &b, 0, 1, -1, "not a pcap or pcapng file (magic 0x6865)");

	good_pcap(&b, 0);
	b.n = 10;
	expect_err("hdr10", &b, 0, 1, -1, "truncated file header (10 of 24 bytes)");
	b.n = 3;
	expect_err("hdr3", &b, 0, 1, -1, "truncated file header (3 of 24 bytes)");

	good_pcap(&b, 0);
	b.b[4] = 1; /* version 1.4 (Wireshark refuses it too) */
	expect_err("vers", &b, 0, 1, -1, "unsupported pcap version 1.4");

	good_pcap(&b, 0);
	putbytes(&b, payload, 7);
	expect_err("rechdr", &b, 2, ROCE_E_TRUNC, 3, "truncated record header (7 of 16 bytes)");

	good_pcap(&b, 0);
	pcap_rec(&b, 5, 6, payload, 60, 60);
	b.n -= 55;
	expect_err("recdata", &b, 2, ROCE_E_TRUNC, 3, "truncated record data (5 of 60 bytes)");

	good_pcap(&b, 100);
	pcap_rec(&b, 5, 6, payload, 200, 300);
	b.n -= 200; /* caplen beyond the file */
	expect_err("snapfile", &b, 2, ROCE_E_TRUNC, 3, "truncated record data (0 of 200 bytes)");

	good_pcap(&b, 0);
	pcap_rec(&b, 5, 6, payload, 0, 0);
	set32(&b, b.n - 8, 0x7fffffff);
	set32(&b, b.n - 4, 0x7fffffff);
	expect_err("huge", &b, 2, ROCE_E_MALFORMED, 3, "record length 2147483647 exceeds limit");
}

/* ---- truncation at every byte ------------------------------------------------- */

static void sweep(const char *what, const uint8_t *full, size_t len, const size_t *bounds,
		  const int *recs_at, int nb, int nrec)
{
	static uint8_t buf[16384];
	int bad = 0;

	for (size_t l = 0; l <= len && bad < 5; l++) {
		struct result m, s;
		int want = -1, complete = 0;
		uint8_t *exact = malloc(l ? l : 1); /* exact size: ASan sees overreads */

		if (!exact) {
			CHECK(!"malloc");
			return;
		}
		memcpy(exact, full, l);
		if (l == 0)
			want = 0; /* an empty file: no frames, like capinfos */
		for (int i = 0; i < nb; i++) {
			if (bounds[i] == l)
				want = recs_at[i];
			if (bounds[i] <= l)
				complete = recs_at[i];
		}
		read_mem(exact, l, what, &m);
		read_stream(exact, l, what, &s);
		free(exact);
		if (want >= 0 ? !(m.status == 0 && m.n == want)
			      : !(m.status != 0 && m.n == complete && strstr(m.err, what) == m.err))
			bad++, fprintf(stderr, "  %s cut at %zu: n=%d status=%d err=%s\n", what, l,
				       m.n, m.status, m.err);
		if (!same_records(&m, &s) || m.status != s.status || strcmp(m.err, s.err) != 0)
			bad++, fprintf(stderr, "  %s cut at %zu: stream differs: %s | %s\n", what, l,
				       m.err, s.err);
	}
	(void)buf;
	(void)nrec;
	CHECK_EQ_I(bad, 0);
}

static void test_truncate_everywhere(void)
{
	static struct bb b, p;
	size_t bounds[32], pb[8];
	int nb, recs_at[32], pr[8], nrec;

	nrec = (int)build_pcapng(&b, bounds, &nb, recs_at);
	sweep("ng", b.b, b.n, bounds, recs_at, nb, nrec);

	good_pcap(&p, 0);
	pcap_rec(&p, 9, 9, payload, 0, 4);
	pb[0] = 24, pr[0] = 0;
	pb[1] = 24 + 16 + 60, pr[1] = 1;
	pb[2] = pb[1] + 16 + 70, pr[2] = 2;
	pb[3] = p.n, pr[3] = 3;
	sweep("pcap", p.b, p.n, pb, pr, 4, 3);
}

/* Cutting a gzip file anywhere must be an error, never a silent short read. */
static void test_truncate_gzip(void)
{
	static struct bb b;
	static uint8_t z[16384];
	size_t bounds[32], zn;
	int nb, recs_at[32], bad = 0;
	struct result ref;

	build_pcapng(&b, bounds, &nb, recs_at);
	REQUIRE(write_gz(tpath("cut.gz"), b.b, b.n));
	zn = read_whole(tpath("cut.gz"), z, sizeof(z));
	REQUIRE(zn > 20);
	read_path(tpath("cut.gz"), &ref);
	CHECK_EQ_I(ref.n, 6);
	for (size_t l = 2; l < zn; l++) {
		struct result r;

		REQUIRE(write_file(tpath("cut2.gz"), z, l));
		read_path(tpath("cut2.gz"), &r);
		if (r.status == 0 || r.n > ref.n || strstr(r.err, "cut2.gz") == NULL) {
			if (bad++ < 5)
				fprintf(stderr, "  gz cut at %zu/%zu: n=%d status=%d err=%s\n", l, zn,
					r.n, r.status, r.err);
		}
		for (int i = 0; i < r.n && i < ref.n; i++)
			CHECK(!memcmp(&r.r[i], &ref.r[i], sizeof(r.r[i])));
	}
	CHECK_EQ_I(bad, 0);
}

/* ---- editcap interop ---------------------------------------------------------- */

static void test_editcap(void)
{
	char eb[ROCE_ERRBUF_SIZE], cmd[1024];
	roce_capwriter_t *w;
	struct result a, b;

	if (access("/usr/bin/editcap", X_OK) != 0) {
		fprintf(stderr, "  editcap not found, skipped\n");
		return;
	}
	w = roce_capw_open(tpath("ec.pcap"), 1, 0, 1, eb);
	REQUIRE(w);
	for (int i = 0; i < 20; i++)
		CHECK_EQ_I(roce_capw_write(w, 1700000000000000000ull + 123456789ull * i, payload + i,
					   60 + i, 60 + i * 2), 0);
	CHECK_EQ_I(roce_capw_close(w), 0);
	snprintf(cmd, sizeof(cmd), "/usr/bin/editcap -F pcapng '%s' '%s' >/dev/null 2>&1",
		 tpath("ec.pcap"), tpath("ec.pcapng"));
	REQUIRE(system(cmd) == 0);
	read_path(tpath("ec.pcap"), &a);
	read_path(tpath("ec.pcapng"), &b);
	CHECK_EQ_I(a.status, 0);
	CHECK_EQ_I(b.status, 0);
	CHECK_EQ_I(a.n, 20);
	CHECK(same_records(&a, &b));
}

static void test_writer_errors(void)
{
	char eb[ROCE_ERRBUF_SIZE];
	roce_capwriter_t *w;

	CHECK(roce_capw_open(tpath("nodir/x.pcap"), 1, 0, 0, eb) == NULL);
	CHECK(strstr(eb, "nodir/x.pcap: ") != NULL);
	if (access("/dev/full", W_OK) == 0) {
		w = roce_capw_open("/dev/full", 1, 0, 0, eb);
		REQUIRE(w);
		for (int i = 0; i < 100; i++)
			(void)roce_capw_write(w, 0, payload, 4000, 4000);
		CHECK_EQ_I(roce_capw_close(w), ROCE_CAP_E_IO);
	}
	{
		/* over-long names: errbuf keeps the end of the message */
		char name[600];

		memset(name, 'x', sizeof(name) - 1);
		name[sizeof(name) - 1] = '\0';
		name[10] = '\n';
		CHECK(roce_cap_open_mem((const uint8_t *)"hello", 5, name, eb) == NULL);
		CHECK_EQ_U(strlen(eb), ROCE_ERRBUF_SIZE - 1);
		CHECK(strncmp(eb, "...", 3) == 0);
		CHECK(strstr(eb, "xx: not a pcap or pcapng file (magic 0x68656c6c)") != NULL);
		CHECK(strchr(eb, '\n') == NULL);
	}
	CHECK(roce_cap_open(tpath("does-not-exist"), eb) == NULL);
	CHECK(strstr(eb, "does-not-exist: No such file") != NULL);
}

/* ---- issue: read what Wireshark reads ------------------------------------------ */

/* caplen > snaplen and caplen > original length are read in full, like Wireshark. */
static void test_lenient_lengths(void)
{
	static struct bb b;
	static struct result r;

	b.n = 0;
	pcap_hdr(&b, false, 0xa1b2c3d4, 40, 1);
	pcap_rec(&b, 1, 2, payload, 60, 60);   /* caplen 60 > snaplen 40 */
	pcap_rec(&b, 1, 3, payload, 60, 50);   /* caplen 60 > wirelen 50 */
	pcap_rec(&b, 1, 4, payload, 30, 30);
	expect_ok("lenient.pcap", b.b, b.n, 3, &r);
	CHECK_EQ_U(r.r[0].caplen, 60);
	CHECK_EQ_U(r.r[0].hash, fnv(payload, 60));
	CHECK_EQ_U(r.r[1].caplen, 60);
	CHECK_EQ_U(r.r[1].wirelen, 60); /* raised to caplen: wirelen >= caplen always */

	good_ng(&b);
	ng_epb(&b, 0, 5, payload, 1001, 1001); /* snaplen 1000 */
	ng_epb(&b, 0, 6, payload, 61, 60);
	expect_ok("lenient.pcapng", b.b, b.n, 3, &r);
	CHECK_EQ_U(r.r[1].caplen, 1001);
	CHECK_EQ_U(r.r[2].caplen, 61);
}

/* Wireshark 4.0 numbers pcapng Custom Blocks (0xBAD, 0x40000BAD) and systemd Journal Export
 * blocks (9) as frames: tshark -T fields -e frame.number gives 1 3 6 7 for the packets. */
static void test_frame_numbers(void)
{
	static struct bb b;
	static struct result r;

	b.n = 0;
	ng_shb(&b, false);
	ng_idb(&b, 1, 0, -1, 0);
	ng_epb(&b, 0, 1, payload, 60, 60);
	ng_other(&b, 0x00000BAD, 8);
	ng_epb(&b, 0, 2, payload, 60, 60);
	ng_other(&b, 0x40000BAD, 8);
	ng_other(&b, 0x00000009, 23);
	ng_epb(&b, 0, 3, payload, 60, 60);
	ng_other(&b, 5, 8);            /* ISB: not a frame */
	ng_other(&b, 4, 8);            /* NRB: not a frame */
	ng_epb(&b, 0, 4, payload, 60, 60);
	expect_ok("frameno.pcapng", b.b, b.n, 4, &r);
	CHECK_EQ_U(r.r[0].frame_no, 1);
	CHECK_EQ_U(r.r[1].frame_no, 3);
	CHECK_EQ_U(r.r[2].frame_no, 6);
	CHECK_EQ_U(r.r[3].frame_no, 7);
}

/* Timestamps outside 1970..2554 are not wrapped modulo 2^64 ns. */
static void test_ts_range(void)
{
	static struct bb b;
	static struct result r;

	/* if_tsoffset -2e9 s: 1906 */
	b.n = 0;
	ng_shb(&b, false);
	ng_idb(&b, 1, 0, 6, -2000000000ll);
	ng_epb(&b, 0, 1000000, payload, 60, 60);
	/* if_tsresol 0 (seconds): 2^40 s overflows 64-bit nanoseconds */
	ng_idb(&b, 1, 0, 0, 0);
	ng_epb(&b, 1, 1ull << 40, payload, 60, 60);
	/* 2^-20 s ticks near 2^64: 1.7e13 s, past 2554 */
	ng_idb(&b, 1, 0, 0x80 | 20, 0);
	ng_epb(&b, 1 + 1, UINT64_MAX, payload, 60, 60);
	/* a valid one after them */
	ng_epb(&b, 0, 2000000000000000ull, payload, 60, 60);
	expect_ok("tsrange.pcapng", b.b, b.n, 4, &r);
	/* no timestamp (0), never a wrapped value */
	CHECK_EQ_U(r.r[0].ts_ns, 0);
	CHECK_EQ_U(r.r[1].ts_ns, 0);
	CHECK_EQ_U(r.r[2].ts_ns, 0);
	CHECK_EQ_U(r.r[3].ts_ns, 0ull + (2000000000000000ull - 2000000000000000ull) * 1000 +
		   0);
}

/* Limits where Wireshark 4.0 reads on (checked with tshark on the same bytes). */
static void test_wireshark_limits(void)
{
	static struct bb b;
	static struct result r;
	size_t at;

	/* if_tsresol 29 (10^-29 s) and 0x7f (10^-127 s): ticks are < 1 ns */
	b.n = 0;
	ng_shb(&b, false);
	ng_idb(&b, 1, 0, 29, 0);
	ng_idb(&b, 1, 0, 0x7f, 10);
	ng_idb(&b, 1, 0, 28, 0);
	ng_epb(&b, 0, 12345678901234567890ull, payload, 60, 60);
	ng_epb(&b, 1, UINT64_MAX, payload, 60, 60);
	ng_epb(&b, 2, 12345678901234567890ull, payload, 60, 60);
	expect_ok("tsresol29.pcapng", b.b, b.n, 3, &r);
	CHECK_EQ_U(r.r[0].ts_ns, 0);
	CHECK_EQ_U(r.r[1].ts_ns, 10000000000ull);
	CHECK_EQ_U(r.r[2].ts_ns, 1); /* 1.23e19 / 1e19 ns */

	/* if_tsresol option of length 2: ignored (microseconds), like Wireshark */
	b.n = 0;
	ng_shb(&b, false);
	at = b.n;
	ng_idb(&b, 1, 0, 9, 0);
	set32(&b, at + 24, (2u << 16) | 9);
	ng_epb(&b, 0, 1000000000, payload, 60, 60);
	expect_ok("tsresollen.pcapng", b.b, b.n, 1, &r);
	CHECK_EQ_U(r.r[0].ts_ns, 1000000000000ull);

	/* block total length 62 (not a multiple of 4), padded to 64; Wireshark rounds up */
	good_ng(&b);
	at = b.n;
	ng_epb(&b, 0, 6, payload, 30, 30); /* 32 + 30 + 2 pad + 12 options + 4 */
	set32(&b, at + 4, (uint32_t)(b.n - at - 2));
	set32(&b, b.n - 4, (uint32_t)(b.n - at - 2));
	expect_ok("notmult4.pcapng", b.b, b.n, 2, &r);
	CHECK_EQ_U(r.r[1].caplen, 30);

	/* pcap version 3.0 and 2.5: Wireshark reads them as 2.4 (libpcap refuses 3.0) */
	good_pcap(&b, 0);
	b.b[4] = 3;
	b.b[6] = 0;
	expect_ok("v3.pcap", b.b, b.n, 2, NULL);

	/* a 0-byte file: 0 packets (capinfos) */
	b.n = 0;
	expect_ok("empty0.pcap", b.b, 0, 0, NULL);
}

/* A bad gzip trailer: every frame is delivered, then the error names the file. */
static void gz_trailer(const char *name, int frames, uint32_t reclen, int which)
{
	static uint8_t z[1 << 21];
	size_t zn;
	struct bb *b = calloc(1, sizeof(*b));
	uint8_t *raw;
	size_t rn = 24 + (size_t)frames * (16 + reclen);
	static struct result r;
	char gz[128];

	REQUIRE(b);
	raw = malloc(rn);
	REQUIRE(raw);
	b->n = 0;
	pcap_hdr(b, false, 0xa1b2c3d4, 0, 1);
	memcpy(raw, b->b, 24);
	for (int i = 0; i < frames; i++) {
		b->n = 0;
		pcap_rec(b, (uint32_t)i, 0, payload + (i & 255), reclen, reclen);
		memcpy(raw + 24 + (size_t)i * (16 + reclen), b->b, b->n);
	}
	snprintf(gz, sizeof(gz), "%s.pcap.gz", name);
	REQUIRE(write_gz(tpath(gz), raw, rn));
	zn = read_whole(tpath(gz), z, sizeof(z));
	REQUIRE(zn > 8 && zn < sizeof(z));
	z[zn - (which ? 4 : 8)] ^= 0x55;  /* ISIZE or CRC-32 */
	REQUIRE(write_file(tpath(gz), z, zn));
	read_path(tpath(gz), &r);
	CHECK_EQ_I(r.n, frames);
	CHECK(r.status < 0);
	CHECK(strncmp(r.err, tpath(gz), strlen(tpath(gz))) == 0);
	CHECK(strstr(r.err, "<fd:") == NULL);
	CHECK(strstr(r.err, "truncated") == NULL);
	CHECK(strstr(r.err, which ? "length" : "CRC-32") != NULL);
	if (r.n != frames || !strstr(r.err, which ? "length" : "CRC-32"))
		fprintf(stderr, "  %s: %d of %d frames, \"%s\"\n", name, r.n, frames, r.err);
	free(raw);
	free(b);
}

static void test_gzip_trailer(void)
{
	gz_trailer("gzcrc_small", 45, 60, 0);
	gz_trailer("gzlen_small", 45, 60, 1);
	gz_trailer("gzcrc_large", 3774, 120, 0);
}

/* Control characters in a file name never reach an error message raw. */
static void test_name_escape(void)
{
	char eb[ROCE_ERRBUF_SIZE];

	CHECK(roce_cap_open(tpath("no\x01such\nfile\x7f"), eb) == NULL);
	CHECK(strchr(eb, '\n') == NULL && strchr(eb, '\x01') == NULL && strchr(eb, '\x7f') == NULL);
	CHECK(strstr(eb, "No such file") != NULL);
}

/*
 * The file shrinks under the mapped reader (log rotation, tcpdump -C/-W): no SIGBUS, an
 * error naming the frame.  Cuts inside a page, on a page boundary, behind the reader and
 * ahead of it; small files (no helper thread) and one over 64 MiB (helper thread).
 */
static void shrink_case_by(const char *name, uint64_t count, uint64_t read_first, off_t cut,
			   unsigned batch)
{
	struct drain_src d = { .batch = batch };
	char err[ROCE_ERRBUF_SIZE];
	const char *path = tpath(name);
	roce_capwriter_t *w = roce_capw_open(path, 1, 65535, 1, err);
	struct roce_cap_record rec;
	roce_capfile_t *c;
	static uint8_t frame[1500];
	uint64_t n = 0;
	int rc;

	REQUIRE(w != NULL);
	for (uint64_t i = 0; i < count; i++) {
		memset(frame, (int)(i & 0xff) | 1, sizeof(frame));
		REQUIRE(roce_capw_write(w, 1000 + i, frame, sizeof(frame), sizeof(frame)) == 0);
	}
	REQUIRE(roce_capw_close(w) == 0);
	c = roce_cap_open(path, err);
	REQUIRE(c != NULL);
	while (n < read_first && (rc = roce_cap_next(c, &rec)) == 1)
		n++;
	REQUIRE(n == read_first);
	REQUIRE(truncate(path, cut) == 0);
	while ((rc = drain_next(c, &d, &rec)) == 1) {
		/* every delivered frame is intact: no zero bytes (frames are never 0-filled) */
		if (rec.data[0] == 0 || rec.data[rec.caplen - 1] == 0 ||
		    rec.caplen != sizeof(frame))
			break;
		n++;
	}
	CHECK(rc < 0);
	CHECK(strstr(roce_cap_error(c), "file shrank while being read") != NULL);
	CHECK(strstr(roce_cap_error(c), path) == roce_cap_error(c));
	if (rc >= 0 || !strstr(roce_cap_error(c), "shrank"))
		fprintf(stderr, "  %s: rc=%d n=%" PRIu64 " err=%s\n", name, rc, n,
			roce_cap_error(c));
	/* the frames before the cut point were all delivered */
	CHECK(n + 1 >= (uint64_t)(cut > 24 ? (cut - 24) / 1516 : 0) || n >= read_first);
	roce_cap_close(c);
	unlink(path);
}

/* ... with roce_cap_next(), and with roce_cap_next_batch() after the cut */
static void shrink_case(const char *name, uint64_t count, uint64_t read_first, off_t cut)
{
	shrink_case_by(name, count, read_first, cut, 0);
	shrink_case_by(name, count, read_first, cut, 8);
}

static void test_shrink(void)
{
	shrink_case("shrink1.pcap", 2000, 10, 1000000 + 7);    /* inside a page, ahead */
	shrink_case("shrink2.pcap", 2000, 10, 4096 * 100);     /* page boundary, ahead */
	shrink_case("shrink3.pcap", 2000, 1500, 100000);       /* behind the reader */
	shrink_case("shrink4.pcap", 2000, 10, 0);              /* emptied */
	shrink_case("shrink5.pcap", 50000, 100, 30000000 + 5); /* 76 MB: helper thread */
}

/* A blocked read on a pipe returns ROCE_CAP_E_INTR once the interrupt flag is set. */
static volatile sig_atomic_t intr_flag;

static void on_alarm(int sig)
{
	(void)sig;
	intr_flag = 1;
}

static void test_interrupt(void)
{
	static struct bb b;
	struct roce_cap_record r;
	struct sigaction sa, old;
	char eb[ROCE_ERRBUF_SIZE];
	roce_capfile_t *c;
	int p[2], n = 0, st;

	good_pcap(&b, 0);
	REQUIRE(pipe(p) == 0);
	REQUIRE(write(p[1], b.b, b.n) == (ssize_t)b.n); /* the writer then stalls */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, &old); /* no SA_RESTART */
	c = roce_cap_open_fd(p[0], "pipe", 1, eb);
	REQUIRE(c);
	roce_cap_set_interrupt(c, &intr_flag);
	alarm(1);
	while ((st = roce_cap_next(c, &r)) == 1)
		n++;
	alarm(0);
	CHECK_EQ_I(n, 2);
	CHECK_EQ_I(st, ROCE_CAP_E_INTR);
	CHECK_STR(roce_cap_error(c), "pipe: frame 3: interrupted");
	roce_cap_close(c);
	close(p[1]);
	sigaction(SIGALRM, &old, NULL);
}

/* Warnings: counted, the latest kept, flagged on the record they concern. */
static void test_warnings(void)
{
	static struct bb b;
	struct roce_cap_record r;
	char eb[ROCE_ERRBUF_SIZE];
	roce_capfile_t *c;

	b.n = 0;
	pcap_hdr(&b, false, 0xa1b2c3d4, 40, 1);
	pcap_rec(&b, 1, 2, payload, 30, 30);
	pcap_rec(&b, 1, 3, payload, 60, 60);   /* caplen 60 > snaplen 40 */
	pcap_rec(&b, 1, 4, payload, 30, 20);   /* caplen 30 > wirelen 20 */
	c = roce_cap_open_mem(b.b, b.n, "w", eb);
	REQUIRE(c);
	CHECK_EQ_U(roce_cap_warnings(c), 0);
	CHECK_STR(roce_cap_warning(c), "");
	REQUIRE(roce_cap_next(c, &r) == 1);
	CHECK_EQ_U(r.flags, 0);
	REQUIRE(roce_cap_next(c, &r) == 1);
	CHECK_EQ_U(r.flags, ROCE_CAP_REC_WARN);
	CHECK_STR(roce_cap_warning(c), "w: frame 2: caplen 60 exceeds snaplen 40 (read in full)");
	REQUIRE(roce_cap_next(c, &r) == 1);
	CHECK_EQ_U(r.flags, ROCE_CAP_REC_WARN);
	CHECK_EQ_U(r.wirelen, 30);
	CHECK_STR(roce_cap_warning(c),
		  "w: frame 3: caplen 30 exceeds original length 20 (original length taken as 30)");
	CHECK_EQ_U(roce_cap_warnings(c), 2);
	CHECK_EQ_I(roce_cap_next(c, &r), 0);
	roce_cap_close(c);

	/* SPB: no timestamp */
	b.n = 0;
	ng_shb(&b, false);
	ng_idb(&b, 1, 0, -1, 0);
	ng_spb(&b, payload, 60);
	c = roce_cap_open_mem(b.b, b.n, "spb", eb);
	REQUIRE(c);
	REQUIRE(roce_cap_next(c, &r) == 1);
	CHECK_EQ_U(r.flags, ROCE_CAP_REC_NO_TS);
	CHECK_EQ_U(roce_cap_warnings(c), 0);
	roce_cap_close(c);
}

/* roce_cap_set_ahead(): the helper's byte of a record, from its own bytes */
static uint8_t ahead_byte(void *user, const struct roce_cap_record *rec)
{
	uint64_t i;

	(void)user;
	memcpy(&i, rec->data, sizeof(i));
	return (uint8_t)(1 + i % 251);
}

/*
 * roce_cap_done() in the middle of the file, with either helper (the one
 * that works ahead may be walking): reads stop there (0), close frees all.
 */
static void large_done_early(const char *path, uint64_t count)
{
	char err[ROCE_ERRBUF_SIZE];
	struct roce_cap_record rec;

	for (int ahead = 0; ahead < 2; ahead++) {
		roce_capfile_t *c = roce_cap_open(path, err);
		uint64_t n = 0, bad = 0;

		REQUIRE(c != NULL);
		if (ahead)
			CHECK_EQ_I(roce_cap_set_ahead(c, ahead_byte, NULL, 0), 1);
		while (n < count / 2 && roce_cap_next(c, &rec) == 1) {
			uint64_t v;

			memcpy(&v, rec.data, sizeof(v));
			if (v != n || (rec.ahead && rec.ahead != ahead_byte(NULL, &rec)))
				bad++;
			n++;
		}
		CHECK_EQ_U(n, count / 2);
		CHECK_EQ_U(bad, 0);
		roce_cap_done(c);
		CHECK_EQ_I(roce_cap_next(c, &rec), 0);
		CHECK_EQ_I(roce_cap_next_batch(c, &rec, 1), 0);
		roce_cap_close(c);
	}
	roce_cap_done(NULL);
}

/*
 * A mapped file large enough (> 64 MiB) for the page helper thread, which
 * populates windows ahead of the reader and releases pages behind it while
 * the reader runs: every record must come back intact, in order.
 */
static void test_large_mapped(void)
{
	char err[ROCE_ERRBUF_SIZE];
	const char *path = tpath("large.pcap");
	roce_capwriter_t *w = roce_capw_open(path, 1, 65535, 1, err);
	struct roce_cap_record rec;
	roce_capfile_t *c;
	uint8_t frame[1500];
	uint64_t n = 0, bad = 0;
	const uint64_t count = 60000;   /* 60000 x (16 + 1500) bytes = 91 MB */
	int rc;

	REQUIRE(w != NULL);
	for (uint64_t i = 0; i < count; i++) {
		memset(frame, (int)(i & 0xff), sizeof(frame));
		memcpy(frame, &i, sizeof(i));
		REQUIRE(roce_capw_write(w, 1000 + i, frame, sizeof(frame), sizeof(frame)) == 0);
	}
	REQUIRE(roce_capw_close(w) == 0);
	c = roce_cap_open(path, err);
	REQUIRE(c != NULL);
	CHECK_STR(roce_cap_format(c), "pcap-ns");
	while ((rc = roce_cap_next(c, &rec)) == 1) {
		uint64_t v;

		memcpy(&v, rec.data, sizeof(v));
		if (v != n || rec.ts_ns != 1000 + n || rec.caplen != sizeof(frame) ||
		    rec.data[sizeof(frame) - 1] != (uint8_t)(n & 0xff))
			bad++;
		n++;
	}
	CHECK_EQ_I(rc, 0);
	CHECK_EQ_U(n, count);
	CHECK_EQ_U(bad, 0);
	/* roce_cap_done(): the helper gives the mapping back and ends; nothing more to read */
	roce_cap_done(c);
	CHECK_EQ_I(roce_cap_next(c, &rec), 0);
	roce_cap_close(c);
	large_done_early(path, count);
	unlink(path);
}

/*
 * The helper's bytes reach the records they belong to, whichever way they
 * are taken (inline within a chunk, at a chunk's first record, runs of any
 * length mixed with single records): every record comes with 0 or its own
 * byte, records under min_caplen with 0, and roce_cap_ahead_taken() counts
 * the others.
 */
static void test_ahead_bytes(void)
{
	char err[ROCE_ERRBUF_SIZE];
	const char *path = tpath("ahead.pcap");
	roce_capwriter_t *w = roce_capw_open(path, 1, 65535, 1, err);
	struct roce_cap_record recs[16];
	roce_capfile_t *c;
	uint8_t frame[400];
	const uint64_t count = 50000;
	uint64_t n = 0, bad = 0, taken = 0;
	unsigned turn = 0;
	int rc;

	REQUIRE(w != NULL);
	for (uint64_t i = 0; i < count; i++) {
		memset(frame, (int)(i & 0xff), sizeof(frame));
		memcpy(frame, &i, sizeof(i));
		REQUIRE(roce_capw_write(w, 1000 + i, frame, 60 + (uint32_t)(i * 7 % 331),
					60 + (uint32_t)(i * 7 % 331)) == 0);
	}
	REQUIRE(roce_capw_close(w) == 0);
	setenv("ROCE_CAP_AHEAD_PROBE", "0", 1);
	c = roce_cap_open(path, err);
	REQUIRE(c != NULL);
	CHECK_EQ_I(roce_cap_set_ahead(c, ahead_byte, NULL, 100), 1);
	for (;;) {
		unsigned want = 1 + turn++ % 16;

		rc = turn % 5 == 0 ? roce_cap_next(c, recs) : roce_cap_next_batch(c, recs, want);
		if (rc <= 0)
			break;
		if (turn % 2000 == 1)
			usleep(5000);   /* the helper gets ahead: its chunks are taken */
		for (int j = 0; j < rc; j++) {
			const struct roce_cap_record *r = &recs[j];
			uint8_t b = r->ahead;

			if (r->frame_no != n + 1 || r->caplen != 60 + n * 7 % 331 ||
			    (b && (r->caplen < 100 || b != ahead_byte(NULL, r))))
				bad++;
			taken += b != 0;
			n++;
		}
	}
	unsetenv("ROCE_CAP_AHEAD_PROBE");
	CHECK_EQ_I(rc, 0);
	CHECK_EQ_U(n, count);
	CHECK_EQ_U(bad, 0);
	CHECK_EQ_U(roce_cap_ahead_taken(c), taken);
	if (getenv("TEST_CAPREAD_VERBOSE"))
		fprintf(stderr, "ahead: %llu of %llu records taken\n", (unsigned long long)taken,
			(unsigned long long)n);
	roce_cap_close(c);
	unlink(path);
}

/*
 * The helper's leap (pcap): where the reader catches up, the helper does not
 * walk the reader's chunks but leaps ahead and guesses a record start from a
 * chain of plausible headers, which the reader uses only from a record end
 * the two share.  Here every payload holds a chain of decoy record headers
 * (plausible: small lengths, timestamps of the same second) whose last decoy
 * ends exactly where the real record does, so that most guesses land on a
 * decoy and the helper's walk joins the real records only at the next real
 * header: every record still comes with 0 or its own byte (a decoy's byte,
 * from bytes of another value, would differ).
 */
static void test_ahead_decoys(void)
{
	char err[ROCE_ERRBUF_SIZE];
	const char *path = tpath("decoys.pcap");
	roce_capwriter_t *w = roce_capw_open(path, 1, 65535, 1, err);
	struct roce_cap_record recs[16];
	roce_capfile_t *c;
	uint8_t frame[2048];
	const uint64_t count = 60000;
	uint64_t n = 0, bad = 0, taken = 0;
	unsigned turn = 0;
	int rc;

	REQUIRE(w != NULL);
	for (uint64_t i = 0; i < count; i++) {
		unsigned nd = 2 + (unsigned)(i % 5), fc = 100 + (unsigned)(i * 13 % 57), d;
		uint32_t len = 8 + nd * (16 + fc), o = 8;

		memset(frame, 0xa5, sizeof(frame));
		memcpy(frame, &i, sizeof(i));
		for (d = 0; d < nd; d++) {
			uint32_t hdr[4] = { 0, 7 + d, fc, fc };
			uint64_t x = ~i * 2654435761u + d;

			memcpy(frame + o, hdr, sizeof(hdr));
			memcpy(frame + o + 16, &x, sizeof(x));
			o += 16 + fc;
		}
		REQUIRE(roce_capw_write(w, 1000 + i, frame, len, len) == 0);
	}
	REQUIRE(roce_capw_close(w) == 0);
	setenv("ROCE_CAP_AHEAD_PROBE", "0", 1);
	setenv("ROCE_CAP_AHEAD_RUNS", "8", 1);  /* leaps wherever the helper is ahead */
	c = roce_cap_open(path, err);
	REQUIRE(c != NULL);
	CHECK_EQ_I(roce_cap_set_ahead(c, ahead_byte, NULL, 100), 1);
	for (;;) {
		unsigned want = 1 + turn++ % 16;

		rc = turn % 7 == 0 ? roce_cap_next(c, recs) : roce_cap_next_batch(c, recs, want);
		if (rc <= 0)
			break;
		if (turn % 3000 == 1)
			usleep(3000);   /* the helper gets ahead, the reader catches up */
		for (int j = 0; j < rc; j++) {
			const struct roce_cap_record *r = &recs[j];
			uint8_t b = r->ahead;
			uint64_t i;

			memcpy(&i, r->data, sizeof(i));
			if (r->frame_no != n + 1 || i != n || (b && b != ahead_byte(NULL, r)))
				bad++;
			taken += b != 0;
			n++;
		}
	}
	unsetenv("ROCE_CAP_AHEAD_PROBE");
	unsetenv("ROCE_CAP_AHEAD_RUNS");
	CHECK_EQ_I(rc, 0);
	CHECK_EQ_U(n, count);
	CHECK_EQ_U(bad, 0);
	CHECK_EQ_U(roce_cap_ahead_taken(c), taken);
	if (getenv("TEST_CAPREAD_VERBOSE"))
		fprintf(stderr, "decoys: %llu of %llu records taken\n", (unsigned long long)taken,
			(unsigned long long)n);
	roce_cap_close(c);
	unlink(path);
}

int main(void)
{
	int r;

	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_capread.XXXXXX");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	init_payload();
	RUN(test_roundtrip_us);
	RUN(test_roundtrip_ns);
	RUN(test_pcap_bigendian);
	RUN(test_gzip);
	RUN(test_stdin);
	RUN(test_big_records);
	RUN(test_large_mapped);
	RUN(test_ahead_bytes);
	RUN(test_ahead_decoys);
	RUN(test_errors_pcap);
	RUN(test_truncate_everywhere);
	RUN(test_truncate_gzip);
	RUN(test_editcap);
	RUN(test_writer_errors);
	RUN(test_lenient_lengths);
	RUN(test_frame_numbers);
	RUN(test_ts_range);
	RUN(test_wireshark_limits);
	RUN(test_gzip_trailer);
	RUN(test_run_bytes);
	RUN(test_peek);
	RUN(test_name_escape);
	RUN(test_shrink);
	RUN(test_interrupt);
	RUN(test_warnings);
	r = check_report();
	cleanup();
	return r;
}
