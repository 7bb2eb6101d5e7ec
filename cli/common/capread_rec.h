/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * capread_rec.h - the record parsers' inline access to the byte source
 * (capread_open.c for pcap, capread_ng.c for pcapng; a mapping, memory, a
 * stream or the read() buffer of capread_rfill.c): bytes made addressable,
 * consumed (telling the helper when a window is crossed), a record delivered.
 */
#ifndef ROCE_CAPREAD_REC_H
#define ROCE_CAPREAD_REC_H

#include "capread_ahead.h"
#include "capread_pages.h"
#include "capread_rfill.h"
#include "capread_src.h"

/*
 * Make n bytes from the current position addressable.  Returns a pointer to
 * them, or NULL with *avail = the bytes that are there.  Never consumes:
 * calling again with a larger n extends the same window.  n is bounded by
 * the callers (<= ROCE_CAP_MAX_RECORD + a header).
 */
static inline const uint8_t *src_need(struct roce_capfile *c, size_t n, size_t *avail)
{
	if (c->mem) {
		size_t a = c->len - (size_t)c->pos;

		if (a >= n)
			return c->base + c->pos;
		*avail = a;
		return NULL;
	}
	if (c->rb) {
		/* read() into one buffer (pcapng; capread_rfill.c) */
		if ((size_t)(c->rb->hi - c->rb->lo) >= n)
			return c->rb->lo;
		return capr_rbuf_need(c, n, avail);
	}
	if (c->have >= n)
		return c->buf;
	return capr_stream_fill(c, n, avail);
}

/*
 * Mapped file: the reader's prefetch position pf (the lines [0, pf) were
 * prefetched) after the record ending at offset end: every line up to
 * CAP_PF_DIST bytes past end prefetched.  Records are read one after the
 * other, but of a long one only its first and last lines by the parsers
 * (every line by the ICRC): the hardware prefetcher, seeing a stride of 17
 * lines, leaves each record's first line a miss, a full memory latency on
 * these VMs (about 170 ns, 300 ns and more with TLB misses), about the time
 * the whole record takes to analyse.  Called for records of CAP_PF_MIN bytes
 * and more (shorter ones are dense enough for the hardware); not on the
 * helper's records of roce_cap_set_ahead(), whose few lines the reader
 * prefetches from the helper's offsets instead (capr_ahead_take()).
 *
 * Eight lines a turn, whole turns: the last may end up to seven lines past
 * end + CAP_PF_DIST (those lines are prefetched a record or so earlier,
 * none twice) while end <= top (capr_pf_top(): the turn stays within the
 * mapping); a line at a time, up to the mapping's end, after that.
 */
static inline size_t capr_prefetch_pos(const uint8_t *base, size_t pf, uint64_t end,
				       size_t top, size_t map_len)
{
	size_t lim = (size_t)end + CAP_PF_DIST;

	if (unlikely(pf + CAP_PF_DIST < (size_t)end))
		pf = (size_t)end & ~(size_t)63;  /* after short or the helper's records */
	if (pf >= lim)
		return pf;
	if (__builtin_expect(end <= top, 1)) {
		do {
			const uint8_t *b = base + pf;

			__builtin_prefetch(b);
			__builtin_prefetch(b + 64);
			__builtin_prefetch(b + 128);
			__builtin_prefetch(b + 192);
			__builtin_prefetch(b + 256);
			__builtin_prefetch(b + 320);
			__builtin_prefetch(b + 384);
			__builtin_prefetch(b + 448);
			pf += 512;
		} while (pf < lim);
		return pf;
	}
	if (lim > map_len)
		lim = map_len;
	for (; pf < lim; pf += 64)
		__builtin_prefetch(base + pf);
	return pf;
}

/* capr_prefetch_pos()'s top: whole turns for records ending here or before */
static inline size_t capr_pf_top(size_t map_len)
{
	return map_len > CAP_PF_DIST + 448 ? map_len - CAP_PF_DIST - 448 : 0;
}

/* capr_prefetch_pos() with the position kept in c (a record at a time) */
static inline void capr_prefetch_to(struct roce_capfile *c, uint64_t end)
{
	c->pf_next = capr_prefetch_pos(c->base, c->pf_next, end, capr_pf_top(c->map_len),
				       c->map_len);
}

/*
 * Mapped file: is the record ending at offset end intact?  The usual answer
 * inline (no SIGBUS seen, no page the helper thread found gone, a nonzero
 * next header within the mapping: what capr_map_rec_ok() finds first);
 * anything else is decided by capr_map_rec_ok() itself.
 */
static inline bool capr_rec_intact(struct roce_capfile *c, uint64_t end, size_t hdr)
{
	if (end + hdr <= c->map_len) {
		uint64_t a, b = 0;

		memcpy(&a, (const uint8_t *)c->map + end, 8);
		if (hdr > 8)
			memcpy(&b, (const uint8_t *)c->map + end + 8, 8);
		/* the flags after the loads: a page that vanished under them reads as zeros
		 * and sets one */
		if ((a | b) && !atomic_load_explicit(&c->sigbus, memory_order_relaxed) &&
		    (!c->ah || !atomic_load_explicit(c->ah_fault, memory_order_relaxed)))
			return true;
	}
	return capr_map_rec_ok(c, end, hdr);
}

static inline void src_consume(struct roce_capfile *c, size_t n)
{
	uint64_t before = c->pos;

	c->pos += n;
	if (c->rb)
		c->rb->lo += n;
	if (unlikely(c->have > n)) {
		/* a stream read ahead at open (pcap_variant()): the bytes after n are moved
		 * to the front by the next src_need() (the record handed out stays valid) */
		c->pend_off = n;
		c->pend_len = c->have - n;
	}
	c->have = 0;
	if (c->map && before / CAP_RELEASE_STEP != c->pos / CAP_RELEASE_STEP)
		capr_map_moved(c);
}

/* Deliver: the warning flag, the frame number. */
static inline int deliver(struct roce_capfile *c, struct roce_cap_record *rec)
{
	if (c->warn_pending) {
		rec->flags |= ROCE_CAP_REC_WARN;
		c->warn_pending = false;
	}
	rec->frame_no = ++c->frame_no;
	return 1;
}

#endif /* ROCE_CAPREAD_REC_H */
