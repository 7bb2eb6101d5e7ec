/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * capread_rec.h - the record parsers' inline access to the byte source
 * (capread_open.c for pcap, capread_ng.c for pcapng): bytes made addressable,
 * consumed (telling the helper when a window is crossed), a record delivered.
 */
#ifndef ROCE_CAPREAD_REC_H
#define ROCE_CAPREAD_REC_H

#include "capread_ahead.h"
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
	if (c->have >= n)
		return c->buf;
	return capr_stream_fill(c, n, avail);
}

static inline void src_consume(struct roce_capfile *c, size_t n)
{
	uint64_t before = c->pos;

	c->pos += n;
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
