/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * capread_src.c - the capture reader's bottom layer, under the record
 * parsers (capread_open.c: pcap, capread_ng.c: pcapng) and the helper threads
 * (capread_ahead.c): errors and warnings that name the frame, length checks,
 * a mapped file that shrinks, stream input (read(), gzip inflate) into the
 * record buffer, the mapping window (pages populated ahead, given back
 * behind) and timestamp conversion.  Declared in capread_src.h.
 */
#define _GNU_SOURCE
#include "capread_src.h"
#include "capread_in.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "capread_z.h"

/* ---- errors -------------------------------------------------------------- */

static void vset_err(struct roce_capfile *c, bool frame, const char *fmt, va_list ap)
{
	int n;

	if (frame)
		n = snprintf(c->err, sizeof(c->err), "%s: frame %" PRIu64 ": ", c->name,
			     c->frame_no + 1);
	else
		n = snprintf(c->err, sizeof(c->err), "%s: ", c->name);
	if (n < 0)
		n = 0;
	if ((size_t)n < sizeof(c->err))
		vsnprintf(c->err + n, sizeof(c->err) - (size_t)n, fmt, ap);
}

/*
 * Record a sticky error.  Before the first byte is consumed the problem is
 * with the file header, and the message names no frame.
 */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
int capr_fail(struct roce_capfile *c, int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vset_err(c, c->pos != 0, fmt, ap);
	va_end(ap);
	c->status = status;
	return status;
}

/* A capture-format warning about the frame being read (counted, the latest kept). */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void capr_warn(struct roce_capfile *c, const char *fmt, ...)
{
	va_list ap;
	int n;

	c->warnings++;
	c->warn_pending = true;
	n = snprintf(c->warn, sizeof(c->warn), "%s: frame %" PRIu64 ": ", c->name, c->frame_no + 1);
	if (n < 0)
		n = 0;
	va_start(ap, fmt);
	if ((size_t)n < sizeof(c->warn))
		vsnprintf(c->warn + n, sizeof(c->warn) - (size_t)n, fmt, ap);
	va_end(ap);
}

/*
 * Like Wireshark and libpcap, a captured length above the snapshot length
 * (0 = none) or above the original length is read (in full) with a warning;
 * the original length is then raised to the captured length, so that
 * wirelen >= caplen holds for every record.  Only a length beyond the record
 * or ROCE_CAP_MAX_RECORD is an error (checked by the callers).
 */
uint32_t capr_check_lengths(struct roce_capfile *c, uint32_t caplen, uint32_t snaplen,
			    uint32_t wirelen)
{
	if (snaplen && caplen > snaplen) {
		capr_warn(c,
			  "caplen %" PRIu32 " exceeds snaplen %" PRIu32 " (read in full)", caplen,
			  snaplen);
		/* the keep window no longer holds two records of the snapshot length */
		atomic_store_explicit(&c->map_keep, CAP_RELEASE_KEEP, memory_order_relaxed);
	}
	if (caplen > wirelen) {
		capr_warn(c, "caplen %" PRIu32 " exceeds original length %" PRIu32
			  " (original length taken as %" PRIu32 ")", caplen, wirelen, caplen);
		wirelen = caplen;
	}
	return wirelen;
}

/* A read came up short: end of input, or a stream (gzip/read) error. */
int capr_fail_short(struct roce_capfile *c, const char *what, size_t got, size_t want)
{
	if (c->src_status == ROCE_CAP_E_INTR)
		return capr_fail(c, c->src_status, "interrupted");
	if (c->src_status && got == 0 && c->frame_no) {
		/* between records (a bad gzip trailer, say): every frame before was read */
		snprintf(c->err, sizeof(c->err), "%s: after frame %" PRIu64 ": %s", c->name,
			 c->frame_no, c->src_err);
		c->status = c->src_status;
		return c->status;
	}
	if (c->src_status)
		return capr_fail(c, c->src_status,
				 "truncated %s (%zu of %zu bytes): %s", what, got, want,
				 c->src_err);
	return capr_fail(c, ROCE_E_TRUNC, "truncated %s (%zu of %zu bytes)", what, got, want);
}

/* ---- a mapped file that shrinks ---------------------------------------------- */

/* Has the mapped file lost pages, or become shorter than the mapping? */
bool capr_map_shrunk(struct roce_capfile *c)
{
	struct stat st;

	if (!c->map)
		return false;
	if (atomic_load_explicit(&c->sigbus, memory_order_relaxed))
		return true;
	return c->fd >= 0 && fstat(c->fd, &st) == 0 && (uint64_t)st.st_size < c->map_len;
}

int capr_fail_shrank(struct roce_capfile *c)
{
	struct stat st;

	if (c->fd >= 0 && fstat(c->fd, &st) == 0)
		return capr_fail(c, ROCE_E_TRUNC, "file shrank while being read (%" PRIu64
				 " bytes now, %zu when opened)", (uint64_t)st.st_size, c->map_len);
	return capr_fail(c, ROCE_E_TRUNC, "file shrank while being read");
}

int capr_fail_shrank_at(struct roce_capfile *c, uint64_t frame_no)
{
	uint64_t n = c->frame_no;
	int r;

	c->frame_no = frame_no - 1;     /* (the message names frame_no + 1) */
	r = capr_fail_shrank(c);
	c->frame_no = n;
	return r;
}

/*
 * Tests only (listed with the reader's other test knobs in capread_probe.c), any mapped
 * file, with or without the helper: ROCE_CAP_TEST_CUT_AT_FRAME=N cuts the file (ftruncate()
 * of the file, opened again for writing) right after roce_cap_next_batch() handed out
 * record N, before the caller decodes it: at the start of its record header (classic pcap)
 * or block (pcapng), so that the records from N to the end of that run read zeros (past
 * the new end in its page, SIGBUS beyond) and the frames before it are the file cut there
 * (head -c).  Once per file.
 */
uint64_t capr_test_cut_config(void)
{
	const char *e = getenv("ROCE_CAP_TEST_CUT_AT_FRAME");

	return e && *e ? strtoull(e, NULL, 0) : 0;
}

void capr_test_cut(struct roce_capfile *c, const struct roce_cap_record *rec)
{
	uint64_t off = (uint64_t)(rec->data - c->base);

	if (c->fmt == FMT_PCAP) {
		off -= c->rec_hl;
	} else if (off >= 28 && (ld32(rec->data - 28, c->be) == NG_EPB ||
				 ld32(rec->data - 28, c->be) == NG_OPB)) {
		off -= 28;
	} else if (off >= 12 && ld32(rec->data - 12, c->be) == NG_SPB) {
		off -= 12;
	}
	c->test_cut = 0;
	capr_test_truncate(c, off);
}

/* ROCE_CAP_TEST_CUT_AT_FRAME: the file cut at off through its descriptor. */
void capr_test_truncate(struct roce_capfile *c, uint64_t off)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", c->fd);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || ftruncate(fd, (off_t)off) != 0)
		fprintf(stderr, "ROCE_CAP_TEST_CUT_AT_FRAME: %s: %s\n", c->name, strerror(errno));
	if (fd >= 0)
		close(fd);
}

/* ---- source --------------------------------------------------------------- */

/*
 * Streams (pipes, stdin, gzip files) are read with read() into an input
 * buffer and, when they start with the gzip magic, inflated with zlib's
 * inflate() straight into the record buffer.  Doing this by hand rather than
 * through gzread() keeps every byte that decompressed when the gzip trailer
 * (CRC-32, length) turns out bad, names the problem, and lets a signal
 * interrupt a blocked read (roce_cap_set_interrupt()).
 */
/* Peek the first two bytes of a (next) gzip member; false at EOF or on error. */
static bool in_peek2(struct roce_capfile *c)
{
	while (c->in_len - c->in_pos < 2)
		if (capr_in_fill(c) <= 0)
			return false;
	return true;
}

static bool is_gzip_magic(const uint8_t *p)
{
	return p[0] == 0x1f && p[1] == 0x8b;
}

/* Inflate up to want bytes into dst; short at the end of the stream or on an error. */
static size_t gz_inflate(struct roce_capfile *c, uint8_t *dst, size_t want)
{
	size_t got = 0;

	while (got < want && !c->src_status) {
		int ret;

		if (c->zend) {
			/* end of a member: another member follows, or the end (bytes
			 * that are not a gzip member are ignored, as gzip -d and
			 * zlib's gzread() do) */
			if (!in_peek2(c) || !is_gzip_magic(c->in + c->in_pos)) {
				if (!c->src_status) {
					c->in_eof = true;
					c->in_pos = c->in_len;
				}
				break;
			}
			inflateReset(&c->zs);
			c->zend = false;
		}
		if (c->in_pos == c->in_len) {
			int r = capr_in_fill(c);

			if (r < 0)
				break;
			if (r == 0) {
				capr_src_error(c, ROCE_E_TRUNC, "gzip: compressed data ends early");
				break;
			}
		}
		c->zs.next_in = c->in + c->in_pos;
		c->zs.avail_in = (uInt)(c->in_len - c->in_pos);
		c->zs.next_out = dst + got;
		c->zs.avail_out = (uInt)(want - got);
		ret = inflate(&c->zs, Z_NO_FLUSH);
		got = want - c->zs.avail_out;
		c->in_pos = c->in_len - c->zs.avail_in;
		if (ret == Z_STREAM_END) {
			c->zend = true;
		} else if (ret == Z_DATA_ERROR) {
			const char *m = c->zs.msg ? c->zs.msg : "error";

			if (!strcmp(m, "incorrect data check"))
				capr_src_error(c, ROCE_E_MALFORMED,
					  "gzip trailer: CRC-32 does not match the data");
			else if (!strcmp(m, "incorrect length check"))
				capr_src_error(c, ROCE_E_MALFORMED,
					  "gzip trailer: length does not match the data");
			else {
				c->src_status = ROCE_E_MALFORMED;
				snprintf(c->src_err, sizeof(c->src_err), "gzip: %s", m);
			}
		} else if (ret == Z_MEM_ERROR) {
			capr_src_error(c, ROCE_E_NOMEM, "gzip: out of memory");
		} else if (ret != Z_OK && ret != Z_BUF_ERROR) {
			c->src_status = ROCE_CAP_E_IO;
			snprintf(c->src_err, sizeof(c->src_err), "gzip: %s",
				 c->zs.msg ? c->zs.msg : "error");
		}
	}
	return got;
}

/*
 * Up to want bytes of the (decompressed) stream into dst; short on EOF or
 * error.  gzip data is inflated GZ_BUFFER bytes at a time into zout (few
 * inflate() calls however small the records), and every byte that inflated
 * before an error is handed out before the error shows.
 */
static size_t stream_read(struct roce_capfile *c, uint8_t *dst, size_t want)
{
	size_t got = 0;
	enum cap_z_kind zk;

	if (!c->started) {
		c->started = true;
		if (in_peek2(c) && is_gzip_magic(c->in + c->in_pos)) {
			c->zout = malloc(GZ_BUFFER);
			if (!c->zout || inflateInit2(&c->zs, 15 + 16) != Z_OK) {
				capr_src_error(c, ROCE_E_NOMEM, "gzip: cannot start zlib");
				return 0;
			}
			c->zinit = c->gzip = true;
		} else if (!c->src_status) {
			/* zstd, lz4 (capread_z.c): four bytes of magic */
			while (c->in_len - c->in_pos < 4 && capr_in_fill(c) > 0)
				;
			zk = capr_z_magic(c->in + c->in_pos, c->in_len - c->in_pos);
			if ((zk == CAP_Z_ZSTD || zk == CAP_Z_LZ4) && !capr_z_start(c, zk))
				return 0;
		}
		if (c->src_status)
			return 0;
	}
	while (got < want) {
		size_t k;

		if (c->gzip || c->z) {
			if (c->zout_pos == c->zout_len) {
				if (c->src_status)
					break;
				c->zout_pos = 0;
				c->zout_len = c->z ? capr_z_read(c, c->zout, GZ_BUFFER) :
					      gz_inflate(c, c->zout, GZ_BUFFER);
				if (!c->zout_len)
					break;
			}
			k = c->zout_len - c->zout_pos;
			if (k > want - got)
				k = want - got;
			memcpy(dst + got, c->zout + c->zout_pos, k);
			c->zout_pos += k;
			got += k;
			continue;
		}
		if (c->src_status)
			break;
		k = c->in_len - c->in_pos;
		if (!k) {
			if (capr_in_fill(c) <= 0)
				break;
			continue;
		}
		if (k > want - got)
			k = want - got;
		memcpy(dst + got, c->in + c->in_pos, k);
		c->in_pos += k;
		got += k;
	}
	return got;
}

/*
 * Slow path of src_need(): read more of the stream into buf.  buf grows by
 * doubling from STREAM_FIRST_BUF, and only as far as the bytes come: a length
 * a record claims is not given memory before its bytes are there, so a short
 * or corrupt input that claims megabytes costs a few KiB (the same bytes read,
 * the same result).
 */
const uint8_t *capr_stream_fill(struct roce_capfile *c, size_t n, size_t *avail)
{
	if (unlikely(c->pend_len)) {
		/* what pcap_variant() read ahead and the records consumed since left */
		memmove(c->buf, c->buf + c->pend_off, c->pend_len);
		c->have = c->pend_len;
		c->pend_len = 0;
	}
	/* after an error, what inflated before it still comes out */
	while (c->have < n) {
		size_t want, got;

		if (c->have == c->cap) {
			size_t ncap = c->cap ? c->cap * 2 : STREAM_FIRST_BUF;
			uint8_t *nb;

			if (ncap > ROCE_CAP_MAX_RECORD && ncap > n)
				ncap = n; /* near the cap: no doubling past it */
			nb = realloc(c->buf, ncap);
			if (!nb) {
				c->src_status = ROCE_E_NOMEM;
				snprintf(c->src_err, sizeof(c->src_err), "out of memory");
				*avail = c->have;
				return NULL;
			}
			c->buf = nb;
			c->cap = ncap;
		}
		want = (n < c->cap ? n : c->cap) - c->have;
		got = stream_read(c, c->buf + c->have, want);
		c->have += got;
		if (got < want)
			break;
	}
	*avail = c->have;
	return c->have >= n ? c->buf : NULL;
}

/*
 * Give read pages of a mapped file back to the kernel as the reader moves
 * on, so that resident memory stays flat however large the file is.  The
 * window kept behind the position is larger than what one call hands out
 * (capr_map_keep_set()), so the records handed out last (valid until the
 * next call) are never affected (CAP_RELEASE_* in capread_int.h).
 */

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22   /* Linux 5.14 */
#endif

/*
 * Map the next window's page-cache pages in one call instead of taking a
 * page fault every few pages; harmless (EINVAL) on kernels without it.
 */
void capr_map_prefetch(struct roce_capfile *c, size_t from)
{
	size_t len;

	from &= ~(size_t)(CAP_RELEASE_STEP - 1);
	if (from >= c->map_len)
		return;
	len = c->map_len - from < CAP_RELEASE_STEP ? c->map_len - from : CAP_RELEASE_STEP;
	madvise((uint8_t *)c->map + from, len, MADV_POPULATE_READ);
}

/*
 * Give back [map_released, upto).  With a helper thread both threads may
 * call it (the helper normally, the reader when the helper has fallen
 * behind), so it then takes release_mu; the helper only releases once the
 * reader has told it a position, after helper_on was set.
 */
void capr_map_release_upto(struct roce_capfile *c, size_t upto)
{
	bool locked = c->helper_on;

	if (locked)
		pthread_mutex_lock(&c->release_mu);
	if (upto > c->map_released) {
		madvise((uint8_t *)c->map + c->map_released, upto - c->map_released, MADV_DONTNEED);
		c->map_released = upto;
		atomic_store_explicit(&c->map_released_a, upto, memory_order_relaxed);
	}
	if (locked)
		pthread_mutex_unlock(&c->release_mu);
}

/*
 * The keep window of a mapped file (map_keep): more than twice what one call
 * can hand out, records of at most the snapshot length (a run of
 * roce_cap_next_batch() spans its first record and 16 KiB more), and at least
 * CAP_RELEASE_KEEP_MIN.  A record above the snapshot length (read with a
 * warning, capr_check_lengths()), pcapng (a snapshot length per interface) or
 * no snapshot length: CAP_RELEASE_KEEP, two of the largest records.
 */
void capr_map_keep_set(struct roce_capfile *c)
{
	size_t keep = CAP_RELEASE_KEEP;

	if (c->fmt == FMT_PCAP && c->snaplen && c->snaplen < ROCE_CAP_MAX_RECORD) {
		keep = 2 * ((size_t)c->snaplen + 24) + (64u << 10);
		if (keep < CAP_RELEASE_KEEP_MIN)
			keep = CAP_RELEASE_KEEP_MIN;
		if (keep > CAP_RELEASE_KEEP)
			keep = CAP_RELEASE_KEEP;
	}
	atomic_store_explicit(&c->map_keep, keep, memory_order_relaxed);
}

/* ---- timestamps ----------------------------------------------------------- */

/*
 * Ticks of an interface to ns since the epoch, exactly (128-bit arithmetic).
 * false when the result does not fit 0 .. 2^64-1 ns (before 1970, or after
 * 2554-07-21): the caller then delivers the record without a timestamp.
 */
bool capr_iface_ts(const struct cap_iface *ifc, uint64_t ticks, uint64_t *ns)
{
	cap_i128 v;

	switch (ifc->conv) {
	case TS_MUL:
		v = (cap_i128)((cap_u128)ticks * ifc->factor);
		break;
	case TS_DIV:
		v = (cap_i128)(ticks / ifc->factor);
		break;
	case TS_BIN:
		v = ifc->shift >= 127 ? 0 :
		    (cap_i128)(((cap_u128)ticks * 1000000000u) >> ifc->shift);
		break;
	default:
		v = 0;
		break;
	}
	v += (cap_i128)ifc->offset_s * 1000000000;
	if (v < 0 || v > (cap_i128)UINT64_MAX)
		return false;
	*ns = (uint64_t)v;
	return true;
}

void capr_ts_out_of_range(struct roce_capfile *c, struct roce_cap_record *rec)
{
	capr_warn(c, "timestamp outside 1970..2554 (not representable in 64-bit ns); "
		  "frame read without a timestamp");
	rec->ts_ns = 0;
	rec->flags |= ROCE_CAP_REC_NO_TS;
}
