/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * capread_rbuf.c - a regular pcap or pcapng file read with pread() into one
 * reused buffer (roce_cap_set_read_buffer(), capread_rbuf.h) instead of
 * through its mapping: on a 2-vCPU PVM guest a new mapping's first access to
 * each page costs 250-500 ns while read() copies through the kernel's own
 * mapping of the page cache, and a buffer of 128-256 KiB is still in the L2
 * when the ICRC verdicts of its records have been computed and the caller
 * decodes them (docs/perf/analyze-threads.md, issue #9).
 *
 * The buffer and its reads are capread_rfill.c's.  Classic pcap: the records
 * are [lo, hi); those in [lo, wend) are whole, checked against the link
 * type's limit and have their verdict byte in v[vk..vn).  When the caller
 * reaches wend, the bytes [lo, hi) (part of a record, at most one) are
 * carried over into the next buffer.  Every error, warning and number is
 * what pcap_next() (capread_open.c) gives for the mapping: the checks are the
 * same, made on the same records in the same order; only the bytes come from
 * the buffer.  pcapng: capread_ng.c reads the blocks from the buffer through
 * src_need() (rb_ng_next()), the same parser as on the mapping.
  */
#define _GNU_SOURCE
#include "capread_rbuf.h"
#include "capread_src.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capguard.h"
#include "capread_int.h"
#include "capread_ng.h"
#include "capread_rec.h"
#include "capread_rfill.h"
#include "capread_src.h"

#define RB_MEAN_BYTES (64u << 10)       /* min_mean: the records of the first 64 KiB ... */
#define RB_MEAN_RECS 256u               /* ... at most this many */

static size_t env_size(const char *name, size_t dflt)
{
	const char *e = getenv(name);

	return e && *e ? (size_t)strtoull(e, NULL, 0) : dflt;
}

/* The mean record of the file's first records (header and captured bytes), 0 none. */
static uint64_t first_mean(struct roce_capfile *c)
{
	uint64_t pos = c->pos, n = 0, lim = c->pos + RB_MEAN_BYTES;

	while (n < RB_MEAN_RECS && pos + c->rec_hl <= c->len && pos < lim) {
		struct pcap_rec_hdr h = pcap_rec_hdr(c, c->base + pos);

		if (h.caplen > c->max_caplen || pos + c->rec_hl + h.caplen > c->len)
			break;
		pos += c->rec_hl + h.caplen;
		n++;
	}
	return n ? (pos - c->pos) / n : 0;
}

/* pcapng: the bytes of the first whole blocks over their packet blocks, 0 none. */
static uint64_t first_mean_ng(struct roce_capfile *c)
{
	const uint8_t *p = c->base + c->pos;
	size_t left = c->len - (size_t)c->pos, used = 0;
	uint64_t n = 0;

	while (n < RB_MEAN_RECS && used < RB_MEAN_BYTES) {
		bool pkt;
		uint32_t bl = capr_ng_block_len(c, p + used, left - used, &pkt);

		if (!bl)
			break;
		used += bl;
		n += pkt;
	}
	return n ? used / n : 0;
}

int roce_cap_set_read_buffer(roce_capfile_t *c, roce_cap_ahead_fn fn, void *user,
			     uint32_t min_caplen, uint32_t min_mean)
{
	struct cap_rbuf *rb;
	size_t bufsize = env_size("ROCE_CAP_READ_BUF", ROCE_CAP_READ_BUF_DEFAULT);

	if (!c || !c->map || !c->helper_pending || c->status ||
	    (c->fmt != FMT_PCAP && c->fmt != FMT_PCAPNG) || c->ahead_fn || c->ah || c->rb ||
	    !bufsize)
		return 0;
	min_mean = (uint32_t)env_size("ROCE_CAP_READ_MEAN", min_mean);
	if (min_mean && (c->fmt == FMT_PCAP ? first_mean(c) : first_mean_ng(c)) < min_mean)
		return 0;
	rb = calloc(1, sizeof(*rb));
	if (!rb)
		return 0;
	rb->bufsize = bufsize;
	rb->size = c->map_len;
	rb->rd_off = c->pos;
	rb->fn = fn;
	rb->user = user;
	rb->min = min_caplen;
	rb->test_cut = c->test_cut;
	/* the mapping goes: nothing was handed out of it */
	c->test_cut = 0;
	roce_capguard_del(c->guard_slot);
	c->guard_slot = -1;
	munmap(c->map, c->map_len);
	c->map = NULL;
	c->mem = false;
	c->base = NULL;
	c->len = 0;
	c->helper_pending = false;
	c->in_read = c->pos;    /* roce_cap_progress(): bytes consumed */
	c->rb = rb;
	return 1;
}

void capr_rbuf_free(roce_capfile_t *c)
{
	if (!c->rb)
		return;
	free(c->rb->mem);
	free(c->rb->v);
	free(c->rb);
	c->rb = NULL;
}

/* Walk the whole records from wend (= lo), leaving fn's byte for each. */
static void rb_walk(struct roce_capfile *c)
{
	struct cap_rbuf *rb = c->rb;
	const uint8_t *p = rb->wend;
	const size_t hl = c->rec_hl;
	uint64_t frame = c->frame_no + 1;
	struct roce_cap_record rec = { .linktype = c->linktype };

	while ((size_t)(rb->hi - p) >= hl) {
		struct pcap_rec_hdr h = pcap_rec_hdr(c, p);

		if (h.caplen > c->max_caplen || (size_t)(rb->hi - p) - hl < h.caplen)
			break;
		if (unlikely(rb->test_cut == frame)) {
			uint64_t off = rb->rd_off - (uint64_t)(rb->hi - p);

			/* ROCE_CAP_TEST_CUT_AT_FRAME: cut at the record's header before it
			 * is read whole, which the mapping's cut after it was handed out
			 * amounts to */
			rb->test_cut = 0;
			capr_test_truncate(c, off);
			rb->hi = p;
			rb->rd_off = off;
			rb->eof = false;
			break;
		}
		if (rb->fn && h.caplen >= rb->min) {
			rec.data = p + hl;
			rec.caplen = h.caplen;
			rec.wirelen = h.caplen > h.wirelen ? h.caplen : h.wirelen;
			rb->v[rb->vn] = rb->fn(rb->user, &rec);
		} else {
			rb->v[rb->vn] = 0;
		}
		rb->vn++;
		p += hl + h.caplen;
		frame++;
	}
	rb->wend = p;
}

/*
 * Make need bytes from lo addressable (capr_rbuf_read()), then walk the records.
 * Returns 0, or < 0 with c->src_status set (out of memory, a read error, interrupted).
 */
static int rb_fill(struct roce_capfile *c, size_t need)
{
	struct cap_rbuf *rb = c->rb;
	size_t vcap;

	rb->vk = rb->vn = 0;
	if (capr_rbuf_read(c, need) < 0)
		return -1;
	/* a byte for each record of at least 16 bytes */
	vcap = (rb->slack + rb->room) / 16 + 2;
	if (vcap > rb->vcap) {
		free(rb->v);
		rb->vcap = 0;
		rb->v = malloc(vcap);
		if (!rb->v) {
			rb->hi = rb->lo;        /* nothing walked: nothing handed out */
			c->src_status = ROCE_E_NOMEM;
			snprintf(c->src_err, sizeof(c->src_err), "out of memory");
			return -1;
		}
		rb->vcap = vcap;
	}
	rb_walk(c);
	return c->src_status ? -1 : 0;
}

/*
 * lo reached wend: read on, or the end (clean, or what pcap_next() reports there:
 * a short record, a record over the limit, a file that shrank).  1: records walked.
 */
static int rb_more(struct roce_capfile *c)
{
	struct cap_rbuf *rb = c->rb;
	const size_t hl = c->rec_hl;

	for (;;) {
		size_t avail = (size_t)(rb->hi - rb->lo);
		struct pcap_rec_hdr h = { 0, 0, 0, 0 };

		if (avail >= hl) {
			h = pcap_rec_hdr(c, rb->lo);
			if (h.caplen > c->max_caplen) {
				if (capr_rbuf_shrunk(c))
					return capr_fail_shrank(c);
				return capr_fail(c, ROCE_E_MALFORMED,
						 "record length %" PRIu32 " exceeds limit %" PRIu32
						 " (Wireshark's for link-layer type %d)", h.caplen,
						 c->max_caplen, c->linktype);
			}
		}
		if (rb->eof || c->src_status) {
			if (capr_rbuf_shrunk(c))
				return capr_fail_shrank(c);
			if (avail == 0 && !c->src_status) {
				c->status = 1;
				return 0;
			}
			if (avail < hl)
				return capr_fail_short(c, "record header", avail, hl);
			return capr_fail_short(c, "record data", avail - hl, h.caplen);
		}
		if (rb_fill(c, avail < hl ? hl : hl + h.caplen) < 0 &&
		    c->src_status == ROCE_E_NOMEM)
			return capr_fail(c, c->src_status, "%s", c->src_err);
		if (rb->vn)
			return 1;
	}
}

/*
 * ROCE_CAP_TEST_CUT_AT_FRAME on pcapng: rec (just read, its block in the buffer) is that
 * frame: the file is cut at its block, where capr_test_cut() cuts the mapping after the
 * record was handed out, and the record is not handed out: the error names it.
 */
static int rb_ng_cut(struct roce_capfile *c, const struct roce_cap_record *rec)
{
	const struct cap_rbuf *rb = c->rb;
	uint64_t off = c->pos - (uint64_t)(rb->lo - rec->data);

	if (rec->data - rb->mem >= 28 && (ld32(rec->data - 28, c->be) == NG_EPB ||
					   ld32(rec->data - 28, c->be) == NG_OPB))
		off -= 28;
	else if (rec->data - rb->mem >= 12 && ld32(rec->data - 12, c->be) == NG_SPB)
		off -= 12;
	c->rb->test_cut = 0;
	capr_test_truncate(c, off);
	return capr_fail_shrank_at(c, rec->frame_no);
}

/*
 * pcapng over the buffer: capr_ng_next() reads the blocks through src_need()
 * (capread_rec.h; capr_rbuf_need() reads on).  A run's first record may read on
 * (nothing is handed out yet); the next ones come only from a packet block that lies
 * whole in the buffer (capr_ng_block_len()), which capr_ng_next() takes without
 * reading on, so that the records handed out stay where they are.  A record that
 * cannot join the run (flags: a warning, no timestamp; another link type) waits in
 * rb->pend and is the next call's first.  Each record's verdict is fn's, taken as it
 * is read (the record in the L1).  Errors, warnings and numbers are capr_ng_next()'s,
 * as on the mapping; where it ends (a clean end or an error), a file shorter than at
 * the switch is "file shrank while being read", as on the mapping.
 */
static int rb_ng_next(struct roce_capfile *c, struct roce_cap_record *recs, unsigned max)
{
	struct cap_rbuf *rb = c->rb;
	unsigned n = 0;

	if (rb->pend) {
		recs[0] = rb->pend_rec;
		rb->pend = false;
		n = 1;
		if (recs[0].flags)
			return 1;
	} else if (c->status) {
		return c->status < 0 ? c->status : 0;
	}
	while (n < max) {
		struct roce_cap_record *rec = &recs[n];
		bool pkt;
		int r;

		if (n && (!capr_ng_block_len(c, rb->lo, (size_t)(rb->hi - rb->lo), &pkt) || !pkt))
			break;
		r = capr_ng_next(c, rec, false);
		if (r <= 0) {
			if (capr_rbuf_shrunk(c))
				r = capr_fail_shrank(c);
			else if (r == 0)
				c->status = 1;
		} else if (unlikely(rb->test_cut) && rec->frame_no == rb->test_cut) {
			r = rb_ng_cut(c, rec);
		}
		if (r <= 0) {
			if (n)
				break;
			c->in_read = c->pos;
			return r;
		}
		if (rb->fn && rec->caplen >= rb->min) {
			rec->ahead = rb->fn(rb->user, rec);
			c->ahead_taken += rec->ahead != 0;
		} else {
			rec->ahead = 0;
		}
		if (n && (rec->flags || rec->linktype != recs[0].linktype)) {
			rb->pend_rec = *rec;
			rb->pend = true;
			break;
		}
		n++;
		if (rec->flags)
			break;
	}
	c->in_read = c->pos;
	return (int)n;
}

int capr_rbuf_next(roce_capfile_t *c, struct roce_cap_record *recs, unsigned max)
{
	struct cap_rbuf *rb = c->rb;
	const size_t hl = c->rec_hl;
	const uint32_t snaplen = c->snaplen;
	const uint64_t mul = c->nsec ? 1u : 1000u;
	unsigned n = 0;

	if (c->fmt != FMT_PCAP)
		return rb_ng_next(c, recs, max);
	if (c->status)
		return c->status < 0 ? c->status : 0;
	while (n < max) {
		struct roce_cap_record *rec = &recs[n];
		struct pcap_rec_hdr h;
		bool warn;

		if (rb->lo == rb->wend) {
			int r;

			if (n)
				break;  /* the records handed out stay where they are */
			r = rb_more(c);
			if (r <= 0)
				return r;
		}
		h = pcap_rec_hdr(c, rb->lo);
		warn = (snaplen && h.caplen > snaplen) || h.caplen > h.wirelen;
		if (unlikely(warn || c->warn_pending)) {
			if (n)
				break;  /* a run of more than one has no flags */
			rec->wirelen = capr_check_lengths(c, h.caplen, snaplen, h.wirelen);
		} else {
			rec->wirelen = h.wirelen;
		}
		rec->flags = 0;
		rec->data = rb->lo + hl;
		rec->caplen = h.caplen;
		rec->ts_ns = (uint64_t)h.sec * 1000000000u + (uint64_t)h.sub * mul;
		rec->linktype = c->linktype;
		rec->ifindex = 0;
		rec->section = 0;
		rec->ahead = rb->v[rb->vk++];
		c->ahead_taken += rec->ahead != 0;
		rb->lo += hl + h.caplen;
		c->pos += hl + h.caplen;
		deliver(c, rec);
		n++;
		if (rec->flags)
			break;
	}
	c->in_read = c->pos;
	return (int)n;
}

int capr_rbuf_peek(const roce_capfile_t *c, const uint8_t **data, uint32_t *caplen)
{
	const struct cap_rbuf *rb = c->rb;

	if (c->status || c->fmt != FMT_PCAP || rb->lo == rb->wend)
		return 0;
	*data = rb->lo + c->rec_hl;
	*caplen = pcap_rec_hdr(c, rb->lo).caplen;
	return 1;
}
