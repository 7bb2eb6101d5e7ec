/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * capread_ahead.h - the capture reader's helper that walks the records ahead
 * of the reader (roce_cap_set_ahead(); capread_ahead.c, its probe in
 * capread_probe.c), and the reader's inline side of its ring.  The page-only
 * helper is capread_pages.h's.
 */
#ifndef ROCE_CAPREAD_AHEAD_H
#define ROCE_CAPREAD_AHEAD_H

#include "capread_int.h"

#define CAP_HELPER_AHEAD 3u             /* windows populated ahead (both helpers) */

/* roce_cap_set_ahead()'s ring (capread_ahead.c) */
#define AH_CHUNK 64u                    /* records per chunk */
#define AH_NCHUNK 256u                  /* chunks in the ring */
#define AH_RING (AH_CHUNK * AH_NCHUNK)  /* bytes in the ring */
#define AH_PF_RECS 8u                   /* records the reader prefetches ahead */

/* work ahead of the reader */
bool capr_ahead_start(struct roce_capfile *c);   /* false: no helper thread */
void capr_ahead_done(struct roce_capfile *c);    /* roce_cap_done(): drain, end the thread */
void capr_ahead_stop(struct roce_capfile *c);    /* join the thread, free the state */
bool capr_ahead_fault_reached(const struct roce_capfile *c, uint64_t end, size_t hdr);

/*
 * The byte for the record just read (c->pos its end): capr_ahead_next(), or in
 * a loop of records capr_ahead_fast() while c->ah_k < c->ah_fast and
 * capr_ahead_take() otherwise (a chunk's first record, or one the helper may
 * not have published yet), which does the chunk work (claims, the probe,
 * waking the helper) and sets ah_k, ah_fast, ah_v and pf_ahead again.
 */
uint8_t capr_ahead_take(struct roce_capfile *c);

/*
 * Record k of the helper's chunk, inline: its byte, published (done acquired
 * by capr_ahead_take() at or past k + AH_PF_RECS), with a prefetch of the
 * lines the reader will read of the record AH_PF_RECS further on: the end of
 * one (ICRC) and the headers of the next.
 */
static inline __attribute__((always_inline)) uint8_t capr_ahead_byte(const uint8_t *v,
	const uint64_t *end, const uint8_t *base, uint64_t k)
{
	const uint8_t *q = base + end[(k + AH_PF_RECS) & (AH_RING - 1)];

	__builtin_prefetch(&end[(k + AH_PF_RECS + 16) & (AH_RING - 1)]);
	__builtin_prefetch(q - 8);
	__builtin_prefetch(q + 56);
	__builtin_prefetch(q + 110);
	return v[k & (AH_RING - 1)];
}

/* Record k of the reader's current chunk: 0 (v NULL: the reader verifies it), or the above. */
static inline __attribute__((always_inline)) uint8_t capr_ahead_fast(const uint8_t *v,
	const uint64_t *end, const uint8_t *base, uint64_t k)
{
	return v ? capr_ahead_byte(v, end, base, k) : 0;
}

static inline uint8_t capr_ahead_next(struct roce_capfile *c)
{
	uint64_t k = c->ah_k;

	if (unlikely(k >= c->ah_fast))
		return capr_ahead_take(c);
	c->ah_k = k + 1;
	return capr_ahead_fast(c->ah_v, c->ah_end, c->base, k);
}

#endif /* ROCE_CAPREAD_AHEAD_H */
