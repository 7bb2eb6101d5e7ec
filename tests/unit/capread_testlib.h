/* SPDX-License-Identifier: GPL-2.0-or-later */
/* capread_testlib.h - shared by test_capread.c and test_capread_ng.c: temp files, readers
 * that record what came back, a byte builder for hand-made pcap/pcapng captures. */
#ifndef ROCE_CAPREAD_TESTLIB_H
#define ROCE_CAPREAD_TESTLIB_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "capread.h"
#include "check.h"

static char tmpdir[64];

/* ---- helpers ----------------------------------------------------------------- */

static inline const char *tpath(const char *name)
{
	static char bufs[4][512];
	static int i;
	char *p = bufs[i++ & 3];

	snprintf(p, 512, "%s/%.400s", tmpdir, name);
	return p;
}

static inline bool write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	bool ok;

	if (!f)
		return false;
	ok = fwrite(data, 1, len, f) == len;
	return fclose(f) == 0 && ok;
}

static inline bool write_gz(const char *path, const void *data, size_t len)
{
	gzFile g = gzopen(path, "wb6");
	bool ok;

	if (!g)
		return false;
	ok = len == 0 || gzwrite(g, data, (unsigned)len) == (int)len;
	return gzclose(g) == Z_OK && ok;
}

static inline size_t read_whole(const char *path, uint8_t *buf, size_t cap)
{
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f)
		return 0;
	n = fread(buf, 1, cap, f);
	fclose(f);
	return n;
}

struct rec {
	uint32_t caplen, wirelen, ifindex;
	uint64_t ts_ns, frame_no, hash;
	int linktype;
};

struct result {
	int n;
	int status;          /* 0 clean EOF, < 0 error; 1 = open failed */
	uint64_t last_frame;
	char err[1024];
	struct rec r[64];
};

static inline uint64_t fnv(const uint8_t *p, size_t n)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 1099511628211ull;
	return h;
}

/*
 * The next record into *r: roce_cap_next(), or with batch != 0 the next of the runs
 * roce_cap_next_batch() hands out (asked for 1..batch records in turn).
 */
struct drain_src {
	unsigned batch, i, n, ask;
	struct roce_cap_record recs[8];
};

static inline int drain_next(roce_capfile_t *c, struct drain_src *d, struct roce_cap_record *r)
{
	int s;

	if (!d->batch)
		return roce_cap_next(c, r);
	if (d->i == d->n) {
		d->ask = d->ask % d->batch + 1;
		s = roce_cap_next_batch(c, d->recs, d->ask);
		if (s <= 0)
			return s;
		CHECK(s <= (int)d->ask);
		d->n = (unsigned)s;
		d->i = 0;
	}
	*r = d->recs[d->i++];
	return 1;
}

/* Drain a handle into res (closes it).  NULL handle: open failure in err. */
static inline void drain_by(roce_capfile_t *c, const char *openerr, struct result *res,
			    const uint8_t *lo, const uint8_t *hi, unsigned batch)
{
	struct drain_src src = { .batch = batch };
	struct roce_cap_record r;
	int s;

	memset(res, 0, sizeof(*res));
	if (!c) {
		res->status = 1;
		snprintf(res->err, sizeof(res->err), "%s", openerr);
		return;
	}
	while ((s = drain_next(c, &src, &r)) == 1) {
		if (lo) /* zero-copy: data points into the caller's buffer */
			CHECK(r.data >= lo && r.data + r.caplen <= hi);
		CHECK(r.caplen <= r.wirelen);
		/* pcapng custom / journal blocks are numbered, not delivered */
		CHECK(r.frame_no > (res->n ? res->last_frame : 0));
		res->last_frame = r.frame_no;
		if (res->n < 64) {
			struct rec *d = &res->r[res->n];

			d->caplen = r.caplen;
			d->wirelen = r.wirelen;
			d->ifindex = r.ifindex;
			d->ts_ns = r.ts_ns;
			d->frame_no = r.frame_no;
			d->linktype = r.linktype;
			d->hash = fnv(r.data, r.caplen);
		}
		res->n++;
	}
	res->status = s;
	snprintf(res->err, sizeof(res->err), "%s", roce_cap_error(c));
	if (s < 0) {
		/* sticky */
		CHECK_EQ_I(roce_cap_next(c, &r), s);
		CHECK_STR(roce_cap_error(c), res->err);
	} else {
		CHECK_EQ_I(roce_cap_next(c, &r), 0);
		CHECK_STR(roce_cap_error(c), "");
	}
	roce_cap_close(c);
}

static inline bool same_records(const struct result *a, const struct result *b);

/*
 * Drain a handle, and check that a second handle (open2, opened the same way)
 * read with roce_cap_next_batch() gives the same records, status and message.
 */
static inline void drain(roce_capfile_t *c, const char *openerr, struct result *res,
			 const uint8_t *lo, const uint8_t *hi)
{
	drain_by(c, openerr, res, lo, hi, 0);
}

static inline void drain_both(roce_capfile_t *c, const char *openerr, roce_capfile_t *c2,
			      const char *openerr2, struct result *res, const uint8_t *lo,
			      const uint8_t *hi)
{
	static struct result rb;

	drain_by(c, openerr, res, lo, hi, 0);
	drain_by(c2, openerr2, &rb, lo, hi, 7);
	CHECK(same_records(res, &rb));
	CHECK_EQ_I(res->status, rb.status);
	CHECK_STR(res->err, rb.err);
}

static inline void read_path(const char *path, struct result *res)
{
	char eb[ROCE_ERRBUF_SIZE], eb2[ROCE_ERRBUF_SIZE];
	roce_capfile_t *c = roce_cap_open(path, eb), *c2 = roce_cap_open(path, eb2);

	drain_both(c, eb, c2, eb2, res, NULL, NULL);
}

static inline void read_mem(const uint8_t *b, size_t n, const char *name, struct result *res)
{
	char eb[ROCE_ERRBUF_SIZE], eb2[ROCE_ERRBUF_SIZE];
	roce_capfile_t *c = roce_cap_open_mem(b, n, name, eb);
	roce_capfile_t *c2 = roce_cap_open_mem(b, n, name, eb2);

	drain_both(c, eb, c2, eb2, res, b, b + n);
}

/* Forced streaming (no mmap) of the bytes through a memfd. */
static inline void read_stream(const uint8_t *b, size_t n, const char *name, struct result *res)
{
	char eb[ROCE_ERRBUF_SIZE];
	int fd = memfd_create("capread", MFD_CLOEXEC);

	memset(res, 0, sizeof(*res));
	if (fd < 0 || (n && write(fd, b, n) != (ssize_t)n) || lseek(fd, 0, SEEK_SET) != 0) {
		CHECK(!"memfd");
		return;
	}
	drain(roce_cap_open_fd(fd, name, 1, eb), eb, res, NULL, NULL);
}

static inline bool same_records(const struct result *a, const struct result *b)
{
	if (a->n != b->n)
		return false;
	for (int i = 0; i < a->n && i < 64; i++)
		if (memcmp(&a->r[i], &b->r[i], sizeof(a->r[i])) != 0)
			return false;
	return true;
}

/* Byte builder for hand-made captures. */
struct bb {
	uint8_t b[16384];
	size_t n;
	bool be;
};

static inline void put8(struct bb *b, uint8_t v)
{
	if (b->n < sizeof(b->b))
		b->b[b->n++] = v;
}

static inline void put16(struct bb *b, uint16_t v)
{
	if (b->be) {
		put8(b, (uint8_t)(v >> 8));
		put8(b, (uint8_t)v);
	} else {
		put8(b, (uint8_t)v);
		put8(b, (uint8_t)(v >> 8));
	}
}

static inline void put32(struct bb *b, uint32_t v)
{
	if (b->be) {
		put16(b, (uint16_t)(v >> 16));
		put16(b, (uint16_t)v);
	} else {
		put16(b, (uint16_t)v);
		put16(b, (uint16_t)(v >> 16));
	}
}

static inline void put64(struct bb *b, uint64_t v)
{
	if (b->be) {
		put32(b, (uint32_t)(v >> 32));
		put32(b, (uint32_t)v);
	} else {
		put32(b, (uint32_t)v);
		put32(b, (uint32_t)(v >> 32));
	}
}

static inline void putbytes(struct bb *b, const uint8_t *d, size_t n)
{
	for (size_t i = 0; i < n; i++)
		put8(b, d[i]);
}

static inline void pad4(struct bb *b)
{
	while (b->n % 4)
		put8(b, 0);
}

static inline void set32(struct bb *b, size_t at, uint32_t v)
{
	size_t save = b->n;

	b->n = at;
	put32(b, v);
	b->n = save;
}

static inline size_t blk_begin(struct bb *b, uint32_t type)
{
	size_t at = b->n;

	put32(b, type);
	put32(b, 0);
	return at;
}

static inline void blk_end(struct bb *b, size_t at)
{
	pad4(b);
	put32(b, (uint32_t)(b->n - at + 4));
	set32(b, at + 4, (uint32_t)(b->n - at));
}

static inline void ng_shb(struct bb *b, bool be)
{
	size_t at;

	b->be = be;
	at = blk_begin(b, 0x0a0d0d0a);
	put32(b, 0x1a2b3c4d);
	put16(b, 1);
	put16(b, 0);
	put64(b, UINT64_MAX);
	/* shb_userappl option, then end of options */
	put16(b, 4);
	put16(b, 5);
	putbytes(b, (const uint8_t *)"test\0\0\0", 8);
	put16(b, 0);
	put16(b, 0);
	blk_end(b, at);
}

/* tsresol < 0: no option; tsoffset_s != 0: if_tsoffset option. */
static inline void ng_idb(struct bb *b, uint16_t linktype, uint32_t snaplen, int tsresol,
		   int64_t tsoffset_s)
{
	size_t at = blk_begin(b, 1);

	put16(b, linktype);
	put16(b, 0);
	put32(b, snaplen);
	put16(b, 2); /* if_name */
	put16(b, 3);
	putbytes(b, (const uint8_t *)"et0\0", 4);
	if (tsresol >= 0) {
		put16(b, 9);
		put16(b, 1);
		put8(b, (uint8_t)tsresol);
		pad4(b);
	}
	if (tsoffset_s) {
		put16(b, 14);
		put16(b, 8);
		put64(b, (uint64_t)tsoffset_s);
	}
	put16(b, 0);
	put16(b, 0);
	blk_end(b, at);
}

static inline void ng_epb(struct bb *b, uint32_t ifid, uint64_t ticks, const uint8_t *d,
			  uint32_t caplen, uint32_t wirelen)
{
	size_t at = blk_begin(b, 6);

	put32(b, ifid);
	put32(b, (uint32_t)(ticks >> 32));
	put32(b, (uint32_t)ticks);
	put32(b, caplen);
	put32(b, wirelen);
	putbytes(b, d, caplen);
	pad4(b);
	put16(b, 2); /* epb_flags */
	put16(b, 4);
	put32(b, 1);
	put16(b, 0);
	put16(b, 0);
	blk_end(b, at);
}

static inline void ng_opb(struct bb *b, uint16_t ifid, uint64_t ticks, const uint8_t *d,
			  uint32_t caplen, uint32_t wirelen)
{
	size_t at = blk_begin(b, 2);

	put16(b, ifid);
	put16(b, 0);
	put32(b, (uint32_t)(ticks >> 32));
	put32(b, (uint32_t)ticks);
	put32(b, caplen);
	put32(b, wirelen);
	putbytes(b, d, caplen);
	blk_end(b, at);
}

static inline void ng_spb(struct bb *b, const uint8_t *d, uint32_t len)
{
	size_t at = blk_begin(b, 3);

	put32(b, len);
	putbytes(b, d, len);
	blk_end(b, at);
}

static inline void ng_other(struct bb *b, uint32_t type, size_t bodylen)
{
	size_t at = blk_begin(b, type);

	for (size_t i = 0; i < bodylen; i++)
		put8(b, (uint8_t)(0xa0 + i));
	blk_end(b, at);
}

static inline void pcap_hdr(struct bb *b, bool be, uint32_t magic, uint32_t snaplen,
			    uint32_t linktype)
{
	b->be = be;
	put32(b, magic);
	put16(b, 2);
	put16(b, 4);
	put32(b, 0);
	put32(b, 0);
	put32(b, snaplen);
	put32(b, linktype);
}

static inline void pcap_rec(struct bb *b, uint32_t sec, uint32_t sub, const uint8_t *d,
			    uint32_t caplen, uint32_t wirelen)
{
	put32(b, sec);
	put32(b, sub);
	put32(b, caplen);
	put32(b, wirelen);
	putbytes(b, d, caplen);
}

static uint8_t payload[4096];

static inline void init_payload(void)
{
	for (size_t i = 0; i < sizeof(payload); i++)
		payload[i] = (uint8_t)(i * 7 + (i >> 8));
}


/* pcapng with two sections, several interfaces and block kinds. */
static inline size_t build_pcapng(struct bb *b, size_t *bounds, int *nbounds, int *recs_at)
{
	int k = 0;

#define MARK() do { bounds[k] = b->n; recs_at[k] = nrec; k++; } while (0)
	int nrec = 0;

	b->n = 0;
	ng_shb(b, false);
	MARK();
	ng_idb(b, 1, 0, 9, 0);                 /* if 0: Ethernet, ns */
	MARK();
	ng_other(b, 0x00000BAD, 10);           /* custom block: skipped */
	MARK();
	ng_idb(b, 101, 256, 6, 100);           /* if 1: raw IP, us, +100 s */
	MARK();
	ng_idb(b, 1, 0, 0x80 | 20, 0);         /* if 2: 2^-20 s */
	MARK();
	ng_other(b, 4, 12);                    /* NRB: skipped */
	MARK();
	ng_epb(b, 0, 1700000000123456789ull, payload, 60, 64);
	nrec++;
	MARK();
	ng_epb(b, 1, 1700000000654321ull, payload + 3, 33, 33);
	nrec++;
	MARK();
	ng_epb(b, 2, (3ull << 20) | (1ull << 19), payload + 5, 1, 1);
	nrec++;
	MARK();
	ng_spb(b, payload + 9, 61);
	nrec++;
	MARK();
	ng_other(b, 5, 16);                    /* ISB: skipped */
	MARK();
	ng_shb(b, true);                       /* second section, big-endian */
	MARK();
	ng_idb(b, 113, 0, -1, 0);              /* default us resolution */
	MARK();
	ng_epb(b, 0, 42, payload + 11, 17, 100);
	nrec++;
	MARK();
	ng_opb(b, 0, 7, payload + 13, 8, 8);
	nrec++;
	MARK();
#undef MARK
	*nbounds = k;
	return (size_t)nrec;
}

static inline void check_pcapng_records(const struct result *res)
{
	REQUIRE(res->n == 6);
	CHECK_EQ_U(res->r[0].ts_ns, 1700000000123456789ull);
	CHECK_EQ_I(res->r[0].linktype, 1);
	CHECK_EQ_U(res->r[0].ifindex, 0);
	CHECK_EQ_U(res->r[0].caplen, 60);
	CHECK_EQ_U(res->r[0].wirelen, 64);
	CHECK_EQ_U(res->r[0].hash, fnv(payload, 60));

	CHECK_EQ_U(res->r[1].ts_ns, 1700000000654321000ull + 100000000000ull);
	CHECK_EQ_I(res->r[1].linktype, 101);
	CHECK_EQ_U(res->r[1].ifindex, 1);
	CHECK_EQ_U(res->r[1].hash, fnv(payload + 3, 33));

	CHECK_EQ_U(res->r[2].ts_ns, 3500000000ull);
	CHECK_EQ_U(res->r[2].ifindex, 2);
	CHECK_EQ_U(res->r[2].caplen, 1);

	CHECK_EQ_U(res->r[3].ts_ns, 0); /* SPB */
	CHECK_EQ_I(res->r[3].linktype, 1);
	CHECK_EQ_U(res->r[3].ifindex, 0);
	CHECK_EQ_U(res->r[3].caplen, 61);
	CHECK_EQ_U(res->r[3].wirelen, 61);
	CHECK_EQ_U(res->r[3].hash, fnv(payload + 9, 61));

	CHECK_EQ_U(res->r[4].ts_ns, 42000);
	CHECK_EQ_I(res->r[4].linktype, 113);
	CHECK_EQ_U(res->r[4].caplen, 17);
	CHECK_EQ_U(res->r[4].wirelen, 100);
	CHECK_EQ_U(res->r[4].hash, fnv(payload + 11, 17));

	CHECK_EQ_U(res->r[5].ts_ns, 7000);
	CHECK_EQ_I(res->r[5].linktype, 113);
	CHECK_EQ_U(res->r[5].hash, fnv(payload + 13, 8));
}

/*
 * Run bytes through the mmap, stream and gzip paths; expect `good` records,
 * then status (1 = open fails) and a message containing name, "frame N"
 * (frame < 0: no frame part) and what.
 */
static inline void expect_err(const char *name, const struct bb *b, int good, int status, int frame,
		       const char *what)
{
	struct result res[3];
	char gzname[128], fr[32];

	snprintf(gzname, sizeof(gzname), "%s.gz", name);
	REQUIRE(write_file(tpath(name), b->b, b->n));
	REQUIRE(write_gz(tpath(gzname), b->b, b->n));
	read_path(tpath(name), &res[0]);
	read_stream(b->b, b->n, tpath(name), &res[1]);
	read_path(tpath(gzname), &res[2]);
	snprintf(fr, sizeof(fr), ": frame %d: ", frame);
	for (int i = 0; i < 3; i++) {
		const char *fname = i == 2 ? tpath(gzname) : tpath(name);
		bool ok = true;

		if (res[i].n != good || res[i].status != status ||
		    strncmp(res[i].err, fname, strlen(fname)) != 0 ||
		    !strstr(res[i].err, what) ||
		    (frame >= 0 && !strstr(res[i].err, fr)) ||
		    (frame < 0 && strstr(res[i].err, "frame")) || strchr(res[i].err, '\n'))
			ok = false;
		if (!ok) {
			fprintf(stderr, "  %s path %d: n=%d status=%d err=\"%s\" (want n=%d status=%d "
				"frame %d \"%s\")\n", name, i, res[i].n, res[i].status, res[i].err,
				good, status, frame, what);
			CHECK(ok);
		}
	}
	CHECK(same_records(&res[0], &res[1]));
	CHECK(same_records(&res[0], &res[2]));
}

static inline void good_pcap(struct bb *b, uint32_t snaplen)
{
	b->n = 0;
	pcap_hdr(b, false, 0xa1b2c3d4, snaplen, 1);
	pcap_rec(b, 1, 2, payload, 60, 60);
	pcap_rec(b, 3, 4, payload, 70, 80);
}

static inline void good_ng(struct bb *b)
{
	b->n = 0;
	ng_shb(b, false);
	ng_idb(b, 1, 1000, -1, 0);
	ng_epb(b, 0, 5, payload, 60, 60);
}

/* The same bytes through the mmap, stream and gzip paths must all give `want` records and a
 * clean end. */
static inline void expect_ok(const char *name, const uint8_t *data, size_t len, int want,
		      struct result *out)
{
	static struct result res[3];
	char gzname[128];

	snprintf(gzname, sizeof(gzname), "%s.gz", name);
	REQUIRE(write_file(tpath(name), data, len));
	REQUIRE(write_gz(tpath(gzname), data, len));
	read_path(tpath(name), &res[0]);
	read_stream(data, len, tpath(name), &res[1]);
	read_path(tpath(gzname), &res[2]);
	for (int i = 0; i < 3; i++) {
		if (res[i].n != want || res[i].status != 0) {
			fprintf(stderr, "  %s path %d: n=%d status=%d err=\"%s\" (want %d, "
				"clean end)\n", name, i, res[i].n, res[i].status, res[i].err, want);
			CHECK(!"expect_ok");
		}
	}
	CHECK(same_records(&res[0], &res[1]));
	CHECK(same_records(&res[0], &res[2]));
	if (out)
		*out = res[0];
}

static inline void cleanup(void)
{
	DIR *d = opendir(tmpdir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.')
			unlink(tpath(e->d_name));
	closedir(d);
	rmdir(tmpdir);
}

#endif /* ROCE_CAPREAD_TESTLIB_H */
