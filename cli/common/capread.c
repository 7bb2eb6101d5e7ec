/* SPDX-License-Identifier: GPL-2.0-or-later */
/* capread.c - pcap/pcapng reader (mmap, gzip, stdin) and classic pcap writer. */
#define _GNU_SOURCE
#include "capread.h"
#include "capguard.h"

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

#include "capread_int.h"


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
	if (snaplen && caplen > snaplen)
		capr_warn(c,
			  "caplen %" PRIu32 " exceeds snaplen %" PRIu32 " (read in full)", caplen,
			  snaplen);
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
static bool map_shrunk(struct roce_capfile *c)
{
	struct stat st;

	if (!c->map)
		return false;
	if (atomic_load_explicit(&c->sigbus, memory_order_relaxed))
		return true;
	return c->fd >= 0 && fstat(c->fd, &st) == 0 && (uint64_t)st.st_size < c->map_len;
}

/*
 * Mapped file: is the record ending at offset end intact?  Cheap unless
 * something is suspect: the SIGBUS flag, or zeros where the next header
 * starts (past a cut inside its last page the file reads as zeros, without a
 * fault; a real header is never zero).  Then fstat() decides: a record that
 * ends within the new size is intact, and the next call reports the error.
 */
bool capr_map_rec_ok(struct roce_capfile *c, uint64_t end, size_t hdr)
{
	struct stat st;
	bool suspect = atomic_load_explicit(&c->sigbus, memory_order_relaxed);

	if (unlikely(c->ah) && !suspect && capr_ahead_fault_reached(c, end, hdr)) {
		/* where the helper thread found pages gone, the reader faults too */
		atomic_store(&c->sigbus, 1);
		suspect = true;
	}
	if (!suspect && end + hdr <= c->map_len) {
		uint64_t a, b = 0;

		memcpy(&a, (const uint8_t *)c->map + end, 8);
		if (hdr > 8)
			memcpy(&b, (const uint8_t *)c->map + end + 8, 8);
		suspect = (a | b) == 0 || atomic_load_explicit(&c->sigbus, memory_order_relaxed);
	}
	if (!suspect)
		return true;
	if (c->fd < 0 || fstat(c->fd, &st) != 0)
		return !atomic_load_explicit(&c->sigbus, memory_order_relaxed);
	if ((uint64_t)st.st_size >= c->map_len && !atomic_load(&c->sigbus))
		return true;  /* zeros in the file itself */
	c->shrank_seen = true;
	return end <= (uint64_t)st.st_size;
}

int capr_fail_shrank(struct roce_capfile *c)
{
	struct stat st;

	if (c->fd >= 0 && fstat(c->fd, &st) == 0)
		return capr_fail(c, ROCE_E_TRUNC, "file shrank while being read (%" PRIu64
				 " bytes now, %zu when opened)", (uint64_t)st.st_size, c->map_len);
	return capr_fail(c, ROCE_E_TRUNC, "file shrank while being read");
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
static void src_error(struct roce_capfile *c, int status, const char *msg)
{
	c->src_status = status;
	snprintf(c->src_err, sizeof(c->src_err), "%s", msg);
}

/* More input: keep the unconsumed bytes, read after them.  >0 read, 0 EOF, <0 error. */
static int in_fill(struct roce_capfile *c)
{
	ssize_t r;

	if (c->in_eof)
		return 0;
	if (!c->in) {
		c->in = malloc(GZ_BUFFER);
		if (!c->in) {
			src_error(c, ROCE_E_NOMEM, "out of memory");
			return -1;
		}
	}
	if (c->in_pos) {
		memmove(c->in, c->in + c->in_pos, c->in_len - c->in_pos);
		c->in_len -= c->in_pos;
		c->in_pos = 0;
	}
	for (;;) {
		r = read(c->fd, c->in + c->in_len, GZ_BUFFER - c->in_len);
		if (r >= 0)
			break;
		if (errno == EINTR) {
			if (c->intr && *c->intr) {
				src_error(c, ROCE_CAP_E_INTR, "interrupted");
				return -1;
			}
			continue;
		}
		c->src_status = ROCE_CAP_E_IO;
		snprintf(c->src_err, sizeof(c->src_err), "read error: %s", strerror(errno));
		return -1;
	}
	if (r == 0) {
		c->in_eof = true;
		return 0;
	}
	c->in_len += (size_t)r;
	c->in_read += (uint64_t)r;
	return 1;
}

/* Peek the first two bytes of a (next) gzip member; false at EOF or on error. */
static bool in_peek2(struct roce_capfile *c)
{
	while (c->in_len - c->in_pos < 2)
		if (in_fill(c) <= 0)
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
			int r = in_fill(c);

			if (r < 0)
				break;
			if (r == 0) {
				src_error(c, ROCE_E_TRUNC, "gzip: compressed data ends early");
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
				src_error(c, ROCE_E_MALFORMED,
					  "gzip trailer: CRC-32 does not match the data");
			else if (!strcmp(m, "incorrect length check"))
				src_error(c, ROCE_E_MALFORMED,
					  "gzip trailer: length does not match the data");
			else {
				c->src_status = ROCE_E_MALFORMED;
				snprintf(c->src_err, sizeof(c->src_err), "gzip: %s", m);
			}
		} else if (ret == Z_MEM_ERROR) {
			src_error(c, ROCE_E_NOMEM, "gzip: out of memory");
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

	if (!c->started) {
		c->started = true;
		if (in_peek2(c) && is_gzip_magic(c->in + c->in_pos)) {
			c->zout = malloc(GZ_BUFFER);
			if (!c->zout || inflateInit2(&c->zs, 15 + 16) != Z_OK) {
				src_error(c, ROCE_E_NOMEM, "gzip: cannot start zlib");
				return 0;
			}
			c->zinit = c->gzip = true;
		}
		if (c->src_status)
			return 0;
	}
	while (got < want) {
		size_t k;

		if (c->gzip) {
			if (c->zout_pos == c->zout_len) {
				if (c->src_status)
					break;
				c->zout_pos = 0;
				c->zout_len = gz_inflate(c, c->zout, GZ_BUFFER);
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
			if (in_fill(c) <= 0)
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

/* Slow path of src_need(): read more of the stream into buf. */
const uint8_t *capr_stream_fill(struct roce_capfile *c, size_t n, size_t *avail)
{
	if (n > c->cap) {
		size_t ncap = c->cap ? c->cap : STREAM_MIN_BUF;
		uint8_t *nb;

		while (ncap < n)
			ncap *= 2;
		if (ncap > ROCE_CAP_MAX_RECORD)
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
	if (c->have < n)  /* after an error, what inflated before it still comes out */
		c->have += stream_read(c, c->buf + c->have, n - c->have);
	*avail = c->have;
	return c->have >= n ? c->buf : NULL;
}

/*
 * Give read pages of a mapped file back to the kernel as the reader moves
 * on, so that resident memory stays flat however large the file is.  The
 * window kept behind the position is larger than any record, so the record
 * handed out last (valid until the next call) is never affected
 * (CAP_RELEASE_* in capread_int.h).
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
 * For large mapped files a helper thread does the kernel's share of the
 * work off the reader's core: it maps the page-cache pages of the next
 * windows ahead of the reader (MADV_POPULATE_READ) and gives the pages
 * behind it back (MADV_DONTNEED).  The reader only tells it where it is,
 * once per 16 MiB window.
 */
#define CAP_HELPER_MIN (64u << 20)      /* files smaller than this: no thread */

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

static void *map_helper(void *arg)
{
	struct roce_capfile *c = arg;
	size_t populated = 0;

	pthread_mutex_lock(&c->helper_mu);
	for (;;) {
		size_t pos = c->helper_pos, want;

		if (c->helper_stop)
			break;
		want = pos + CAP_HELPER_AHEAD * CAP_RELEASE_STEP;
		if (want > c->map_len)
			want = c->map_len;
		if (populated < want || (pos >= CAP_RELEASE_KEEP + CAP_RELEASE_STEP &&
					 ((pos - CAP_RELEASE_KEEP) & ~(size_t)(CAP_RELEASE_STEP - 1)) >
					 atomic_load_explicit(&c->map_released_a,
							      memory_order_relaxed))) {
			pthread_mutex_unlock(&c->helper_mu);
			while (populated < want) {
				capr_map_prefetch(c, populated);
				populated += CAP_RELEASE_STEP;
			}
			if (pos >= CAP_RELEASE_KEEP + CAP_RELEASE_STEP)
				capr_map_release_upto(c, (pos - CAP_RELEASE_KEEP) &
						 ~(size_t)(CAP_RELEASE_STEP - 1));
			pthread_mutex_lock(&c->helper_mu);
			continue;
		}
		pthread_cond_wait(&c->helper_cv, &c->helper_mu);
	}
	pthread_mutex_unlock(&c->helper_mu);
	return NULL;
}

static void map_helper_start(struct roce_capfile *c)
{
	if (c->map_len < CAP_HELPER_MIN)
		return;
	if (pthread_mutex_init(&c->helper_mu, NULL) != 0)
		return;
	if (pthread_mutex_init(&c->release_mu, NULL) != 0) {
		pthread_mutex_destroy(&c->helper_mu);
		return;
	}
	if (pthread_cond_init(&c->helper_cv, NULL) != 0) {
		pthread_mutex_destroy(&c->release_mu);
		pthread_mutex_destroy(&c->helper_mu);
		return;
	}
	c->helper_pos = 0;
	c->helper_stop = false;
	atomic_init(&c->map_released_a, c->map_released);
	if (pthread_create(&c->helper, NULL, map_helper, c) != 0) {
		pthread_cond_destroy(&c->helper_cv);
		pthread_mutex_destroy(&c->release_mu);
		pthread_mutex_destroy(&c->helper_mu);
		return;
	}
	c->helper_on = true;
}

static void map_helper_stop(struct roce_capfile *c)
{
	if (c->ah) {
		capr_ahead_stop(c);
		return;
	}
	if (!c->helper_on)
		return;
	pthread_mutex_lock(&c->helper_mu);
	c->helper_stop = true;
	pthread_cond_signal(&c->helper_cv);
	pthread_mutex_unlock(&c->helper_mu);
	pthread_join(c->helper, NULL);
	pthread_cond_destroy(&c->helper_cv);
	pthread_mutex_destroy(&c->release_mu);
	pthread_mutex_destroy(&c->helper_mu);
	c->helper_on = false;
}

void capr_map_moved(struct roce_capfile *c)
{
	if (c->helper_on) {
		size_t pos = (size_t)c->pos;

		pthread_mutex_lock(&c->helper_mu);
		c->helper_pos = pos;
		pthread_cond_signal(&c->helper_cv);
		pthread_mutex_unlock(&c->helper_mu);
		/* the helper fell behind (not scheduled, say): release here, so
		 * that resident memory stays bounded whatever the helper does */
		if (pos >= CAP_RELEASE_KEEP + CAP_RELEASE_LAG &&
		    pos - CAP_RELEASE_KEEP - CAP_RELEASE_LAG >
		    atomic_load_explicit(&c->map_released_a, memory_order_relaxed))
			capr_map_release_upto(c, (pos - CAP_RELEASE_KEEP) &
					 ~(size_t)(CAP_RELEASE_STEP - 1));
		return;
	}
	capr_map_prefetch(c, (size_t)c->pos + CAP_RELEASE_STEP);
	if (c->pos >= c->map_released + CAP_RELEASE_STEP + CAP_RELEASE_KEEP)
		capr_map_release_upto(c, ((size_t)c->pos - CAP_RELEASE_KEEP) &
				 ~(size_t)(CAP_RELEASE_STEP - 1));
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

/* ---- pcap ------------------------------------------------------------------ */

static int pcap_next(struct roce_capfile *c, struct roce_cap_record *rec)
{
	size_t hl = c->modified ? 24 : 16, avail = 0;
	const uint8_t *p = src_need(c, hl, &avail);
	uint32_t sec, sub, caplen, wirelen;

	if (!p) {
		if (avail == 0 && !c->src_status)
			return 0;
		return capr_fail_short(c, "record header", avail, hl);
	}
	sec = ld32(p, c->be);
	sub = ld32(p + 4, c->be);
	caplen = ld32(p + 8, c->be);
	wirelen = ld32(p + 12, c->be);
	if (c->lens_swap && (c->lens_swap == 2 || caplen > wirelen)) {
		uint32_t t = caplen;

		caplen = wirelen;
		wirelen = t;
	}
	if (unlikely(c->map && !(sec | sub | caplen | wirelen)) && map_shrunk(c))
		return capr_fail_shrank(c); /* zeros past the new end of the file */
	if (caplen > ROCE_CAP_MAX_RECORD)
		return capr_fail(c, ROCE_E_MALFORMED, "record length %" PRIu32 " exceeds limit %u",
				 caplen, ROCE_CAP_MAX_RECORD);
	p = src_need(c, hl + caplen, &avail);
	if (!p)
		return capr_fail_short(c, "record data", avail - hl, caplen);
	rec->flags = 0;
	rec->wirelen = capr_check_lengths(c, caplen, c->snaplen, wirelen);
	rec->data = p + hl;
	rec->caplen = caplen;
	/* at most 2^32 s + 2^32 us: no overflow */
	rec->ts_ns = (uint64_t)sec * 1000000000u + (c->nsec ? sub : (uint64_t)sub * 1000u);
	rec->linktype = c->linktype;
	rec->ifindex = 0;
	if (c->map) {
		/* touch the record's end: a vanished page faults here, not in the caller */
		if (caplen)
			(void)*(volatile const uint8_t *)(p + hl + caplen - 1);
		if (!capr_map_rec_ok(c, c->pos + hl + caplen, hl))
			return capr_fail_shrank(c);
	}
	src_consume(c, hl + caplen);
	return deliver(c, rec);
}


/* ---- open / close ---------------------------------------------------------- */

/* Copy a message to a caller's errbuf; if too long, keep its end ("...tail"). */
static void copy_err(char *errbuf, const char *msg)
{
	size_t n = strlen(msg);

	if (!errbuf)
		return;
	if (n < ROCE_ERRBUF_SIZE) {
		memcpy(errbuf, msg, n + 1);
		return;
	}
	memcpy(errbuf, "...", 3);
	memcpy(errbuf + 3, msg + n - (ROCE_ERRBUF_SIZE - 4), ROCE_ERRBUF_SIZE - 4);
	errbuf[ROCE_ERRBUF_SIZE - 1] = '\0';
}


static struct roce_capfile *cap_alloc(const char *name, char *errbuf)
{
	struct roce_capfile *c = calloc(1, sizeof(*c));

	if (c)
		c->name = strdup(name ? name : "(capture)");
	if (!c || !c->name) {
		free(c);
		capio_errbuf_printf(errbuf, "%s: out of memory", name ? name : "(capture)");
		return NULL;
	}
	for (char *q = c->name; *q; q++)
		if ((unsigned char)*q < 0x20 || *q == 0x7f)
			*q = '?'; /* messages stay on one line */
	c->fd = -1;
	c->guard_slot = -1;
	c->linktype = -1;
	return c;
}

void roce_cap_escape(const char *name, char *out, size_t outlen)
{
	size_t i = 0;

	if (!out || !outlen)
		return;
	for (; name && name[i] && i + 1 < outlen; i++)
		out[i] = (unsigned char)name[i] < 0x20 || name[i] == 0x7f ? '?' : name[i];
	out[i] = '\0';
}

static bool magic_prefix(const uint8_t *p, size_t n)
{
	static const uint32_t magics[] = { PCAP_MAGIC_US, PCAP_MAGIC_NS, PCAP_MAGIC_MOD, NG_SHB };

	for (size_t i = 0; i < sizeof(magics) / sizeof(magics[0]); i++) {
		uint8_t le[4], be[4];

		st32(le, magics[i]);
		for (int k = 0; k < 4; k++)
			be[k] = le[3 - k];
		if (!memcmp(p, le, n) || !memcmp(p, be, n))
			return true;
	}
	return false;
}

/* Parse the file header (and, for pcapng, up to the first IDB). */
static int cap_start(struct roce_capfile *c)
{
	size_t avail = 0;
	const uint8_t *p = src_need(c, 4, &avail);
	uint32_t m;
	bool gz;

	if (!p) {
		if (c->src_status)
			return capr_fail(c, c->src_status, "%s", c->src_err);
		if (avail == 0) {
			/* a 0-byte file has no frames (capinfos: 0 packets) */
			c->fmt = FMT_EMPTY;
			snprintf(c->fmtname, sizeof(c->fmtname), "empty%s", c->gzip ? "+gzip" : "");
			c->status = 1;
			return 0;
		}
		p = c->mem ? c->base : c->buf;
		if (magic_prefix(p, avail))
			return capr_fail(c, ROCE_E_TRUNC,
					 "truncated file header (%zu of %u bytes)", avail,
					 PCAP_HDR_LEN);
		m = 0;
		for (size_t i = 0; i < avail; i++)
			m = m << 8 | p[i];
		return capr_fail(c, ROCE_E_MALFORMED,
				 "not a pcap or pcapng file (magic 0x%0*" PRIx32 ")",
				 (int)avail * 2, m);
	}
	gz = c->gzip;
	m = ld32(p, false);
	if (m == NG_SHB) {
		int r;

		c->fmt = FMT_PCAPNG;
		snprintf(c->fmtname, sizeof(c->fmtname), "pcapng%s", gz ? "+gzip" : "");
		r = capr_ng_next(c, NULL, true);
		return r < 0 ? r : 0;
	}
	if (m == PCAP_MAGIC_US || m == PCAP_MAGIC_NS || m == PCAP_MAGIC_MOD)
		c->be = false;
	else if (ld32(p, true) == PCAP_MAGIC_US || ld32(p, true) == PCAP_MAGIC_NS ||
		 ld32(p, true) == PCAP_MAGIC_MOD)
		c->be = true;
	else
		return capr_fail(c, ROCE_E_MALFORMED,
				 "not a pcap or pcapng file (magic 0x%08" PRIx32 ")",
				 ld32(p, true));
	m = ld32(p, c->be);
	c->fmt = FMT_PCAP;
	c->nsec = m == PCAP_MAGIC_NS;
	c->modified = m == PCAP_MAGIC_MOD;
	snprintf(c->fmtname, sizeof(c->fmtname), "%s%s",
		 c->nsec ? "pcap-ns" : c->modified ? "pcap-modified" : "pcap", gz ? "+gzip" : "");
	p = src_need(c, PCAP_HDR_LEN, &avail);
	if (!p)
		return capr_fail_short(c, "file header", avail, PCAP_HDR_LEN);
	{
		uint16_t major = ld16(p + 4, c->be), minor = ld16(p + 6, c->be);

		/* Wireshark reads any major version >= 2 (libpcap refuses > 2) */
		if (major < 2)
			return capr_fail(c, ROCE_E_UNSUPPORTED,
					 "unsupported pcap version %u.%u", major,
					 minor);
		if (major > 2) {
			capr_warn(c,
				  "pcap version %u.%u (read as 2.4, like Wireshark)", major, minor);
			minor = 4;
		}
		c->lens_swap = minor < 3 ? 2 : minor == 3 ? 1 : 0;
	}
	c->snaplen = ld32(p + 16, c->be);
	c->linktype = (int)(ld32(p + 20, c->be) & 0x03ffffffu);
	src_consume(c, PCAP_HDR_LEN);
	return 0;
}

static roce_capfile_t *cap_finish_open(struct roce_capfile *c, char *errbuf)
{
	if (cap_start(c) < 0) {
		copy_err(errbuf, c->err);
		roce_cap_close(c);
		return NULL;
	}
	return c;
}

roce_capfile_t *roce_cap_open_mem(const uint8_t *data, size_t len, const char *name,
				  char *errbuf)
{
	struct roce_capfile *c = cap_alloc(name, errbuf);

	if (!c)
		return NULL;
	c->mem = true;
	c->base = data;
	c->len = data ? len : 0;
	c->file_size = c->len;
	if (c->len >= 2 && data[0] == 0x1f && data[1] == 0x8b) {
		capr_fail(c, ROCE_E_UNSUPPORTED, "gzip data not supported in memory");
		copy_err(errbuf, c->err);
		roce_cap_close(c);
		return NULL;
	}
	return cap_finish_open(c, errbuf);
}

roce_capfile_t *roce_cap_open_fd(int fd, const char *name, int stream, char *errbuf)
{
	struct roce_capfile *c = cap_alloc(name, errbuf);
	struct stat st;

	if (!c) {
		close(fd);
		return NULL;
	}
	c->fd = fd;
	if (fstat(fd, &st) != 0) {
		capr_fail(c, ROCE_CAP_E_IO, "%s", strerror(errno));
		goto err;
	}
	if (S_ISREG(st.st_mode) && st.st_size > 0)
		c->file_size = (uint64_t)st.st_size;
	if (!stream && S_ISREG(st.st_mode)) {
		uint8_t m[2];
		ssize_t n;

		n = st.st_size ? pread(fd, m, 2, 0) : 0;
		if (n < 0) {
			capr_fail(c, ROCE_CAP_E_IO, "read error: %s", strerror(errno));
			goto err;
		}
		if (!(n == 2 && m[0] == 0x1f && m[1] == 0x8b) && st.st_size > 0 &&
		    (uint64_t)st.st_size <= (uint64_t)SIZE_MAX) {
			void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);

			if (map != MAP_FAILED) {
				/* registered with the SIGBUS handler, or streamed */
				c->guard_slot = roce_capguard_add(map, (size_t)st.st_size,
								  &c->sigbus);
				if (c->guard_slot < 0) {
					munmap(map, (size_t)st.st_size);
					goto stream;
				}
				madvise(map, (size_t)st.st_size, MADV_SEQUENTIAL);
				c->map = map;
				c->map_len = (size_t)st.st_size;
				capr_map_prefetch(c, 0);
				capr_map_prefetch(c, CAP_RELEASE_STEP);
				c->helper_pending = true; /* started by the first roce_cap_next() */
				c->mem = true;
				c->base = map;
				c->len = c->map_len;
				/* fd stays open: fstat() tells whether the file shrank */
				return cap_finish_open(c, errbuf);
			}
		}
		/* gzip, or mmap impossible: stream it. */
	}
stream:
	return cap_finish_open(c, errbuf);
err:
	copy_err(errbuf, c->err);
	roce_cap_close(c);
	return NULL;
}

roce_capfile_t *roce_cap_open(const char *path, char *errbuf)
{
	int fd;

	if (!path) {
		capio_errbuf_printf(errbuf, "(null): no file name");
		return NULL;
	}
	if (strcmp(path, "-") == 0) {
		fd = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3);
		if (fd < 0) {
			capio_errbuf_printf(errbuf, "<stdin>: %s", strerror(errno));
			return NULL;
		}
		return roce_cap_open_fd(fd, "<stdin>", 1, errbuf);
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		char safe[ROCE_ERRBUF_SIZE];
		int e = errno;

		roce_cap_escape(path, safe, sizeof(safe));
		capio_errbuf_printf(errbuf, "%s: %s", safe, strerror(e));
		return NULL;
	}
	return roce_cap_open_fd(fd, path, 0, errbuf);
}

int roce_cap_next(roce_capfile_t *c, struct roce_cap_record *rec)
{
	int r;

	if (!c || !rec)
		return ROCE_E_INVAL;
	if (c->status)
		return c->status < 0 ? c->status : 0;
	if (unlikely(c->helper_pending)) {
		c->helper_pending = false;
		if (!c->ahead_fn || !capr_ahead_start(c))
			map_helper_start(c);
	}
	/* the file shrank while the caller had the previous record */
	if (unlikely(c->map) && (c->shrank_seen ||
				 atomic_load_explicit(&c->sigbus, memory_order_relaxed)))
		return capr_fail_shrank(c);
	r = c->fmt == FMT_PCAP ? pcap_next(c, rec) : capr_ng_next(c, rec, false);
	if (r <= 0 && unlikely(c->map) && map_shrunk(c))
		r = capr_fail_shrank(c);  /* not a clean end or a corrupt record: the file shrank */
	if (r == 0)
		c->status = 1;
	else if (r > 0 && !c->ah)
		rec->ahead = 0;
	else if (r > 0 && (rec->ahead = capr_ahead_take(c)) != 0)
		c->ahead_taken++;
	return r;
}

uint64_t roce_cap_ahead_taken(const roce_capfile_t *c)
{
	return c ? c->ahead_taken : 0;
}

int roce_cap_set_ahead(roce_capfile_t *c, roce_cap_ahead_fn fn, void *user, uint32_t min_caplen)
{
	if (!c || !fn || !c->map || !c->helper_pending || c->status ||
	    (c->fmt != FMT_PCAP && c->fmt != FMT_PCAPNG))
		return 0;
	c->ahead_fn = fn;
	c->ahead_user = user;
	c->ahead_min = min_caplen;
	return 1;
}

uint64_t roce_cap_warnings(const roce_capfile_t *c)
{
	return c ? c->warnings : 0;
}

const char *roce_cap_warning(const roce_capfile_t *c)
{
	return c && c->warnings ? c->warn : "";
}

void roce_cap_set_interrupt(roce_capfile_t *c, const volatile sig_atomic_t *flag)
{
	if (c)
		c->intr = flag;
}

const char *roce_cap_error(const roce_capfile_t *c)
{
	return c && c->status < 0 ? c->err : "";
}

const char *roce_cap_format(const roce_capfile_t *c)
{
	return c ? c->fmtname : "";
}

int roce_cap_linktype(const roce_capfile_t *c)
{
	return c ? c->linktype : -1;
}

uint32_t roce_cap_snaplen(const roce_capfile_t *c)
{
	return c ? c->snaplen : 0;
}

void roce_cap_progress(const roce_capfile_t *c, uint64_t *done, uint64_t *total)
{
	uint64_t d = 0, t = 0;

	if (c && c->mem) {
		d = c->pos;
		t = c->len;
	} else if (c) {
		if (c->file_size) {
			/* input bytes consumed (compressed ones for gzip) */
			d = c->in_read - (c->in_len - c->in_pos);
			t = c->file_size;
			if (d > t)
				d = t;
		} else {
			d = c->pos;
		}
	}
	if (done)
		*done = d;
	if (total)
		*total = t;
}

void roce_cap_close(roce_capfile_t *c)
{
	if (!c)
		return;
	map_helper_stop(c);
	roce_capguard_del(c->guard_slot);
	if (c->map)
		munmap(c->map, c->map_len);
	if (c->zinit)
		inflateEnd(&c->zs);
	if (c->fd >= 0)
		close(c->fd);
	free(c->in);
	free(c->zout);
	free(c->buf);
	free(c->ifs);
	capr_meta_free(c);
	free(c->name);
	free(c);
}
