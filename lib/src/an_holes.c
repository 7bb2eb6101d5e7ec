// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * an_holes.c - a stream's PSN holes (struct an_holeset): the ranges of PSNs
 * it has not seen, oldest first, and the PSNs of the holes it had to drop.
 * The array starts empty and doubles up to AN_HOLES (16) entries; when a hole
 * is needed beyond that (or growing fails) the oldest is dropped and its PSNs
 * count as unrecovered at once (conservative: a late fill of such a PSN then
 * counts as a duplicate).  Adding a range, taking a PSN or a range (a late
 * READ request's) out of them, and counting what is still missing.  Called by
 * an_request.c (request holes, PSNs behind a stream's first), an_response.c
 * (skipped READ response PSNs, unseen PSNs) and an_export.c / analyzer.c
 * (an_flow_unrecovered()); an_acked.c takes ACKed PSNs out on its own.
 */
#include "an_internal.h"

uint64_t an_holes_missing(const struct an_holeset *r)
{
	uint64_t n = r->dropped_unrec;

	for (unsigned i = 0; i < r->nholes; i++)
		n += r->holes[i].len;
	return n;
}

uint64_t an_flow_unrecovered(const struct an_flow *f)
{
	return (f->req ? an_holes_missing(&f->req->hs) : 0) +
	       (f->rsp ? an_holes_missing(&f->rsp->hs) : 0);
}

static void hole_drop_oldest(struct an_holeset *r)
{
	r->dropped_unrec += r->holes[0].len;
	memmove(&r->holes[0], &r->holes[1], (r->nholes - 1) * sizeof(r->holes[0]));
	r->nholes--;
}

/*
 * The hole array, like the two rings (an_ring.h), starts empty and doubles up
 * to its cap (AN_HOLES) when it is full: most streams never need more than a
 * few entries.  When growing fails (no memory) it behaves as if at its cap.
 */
static bool holes_room(struct an_holeset *r)
{
	unsigned ncap;
	struct an_hole *n;

	if (r->nholes < r->cap)
		return true;
	if (r->cap >= AN_HOLES)
		return false;
	ncap = r->cap ? 2u * r->cap : 2u;
	n = realloc(r->holes, ncap * sizeof(*n));
	if (!n)
		return false;
	r->holes = n;
	r->cap = (uint8_t)ncap;
	return true;
}

void an_hole_add(struct an_holeset *r, uint32_t start, uint32_t len)
{
	if (!len)
		return;
	if (!holes_room(r)) {
		if (!r->nholes)
			return;         /* no memory at all: the hole is not tracked */
		hole_drop_oldest(r);
	}
	r->holes[r->nholes].start = start & 0xffffffu;
	r->holes[r->nholes].len = len;
	r->nholes++;
}

/* Remove PSN p from the holes; true when it was missing. */
bool an_hole_fill(struct an_holeset *r, uint32_t p)
{
	for (unsigned i = 0; i < r->nholes; i++) {
		struct an_hole *h = &r->holes[i];
		uint32_t off;

		if (!an_psn_in(p, h->start, h->len))
			continue;
		off = (p - h->start) & 0xffffffu;
		if (off == 0) {
			h->start = roce_psn_add(h->start, 1);
			h->len--;
		} else if (off == h->len - 1) {
			h->len--;
		} else {
			struct an_hole tail = { roce_psn_add(p, 1), h->len - off - 1 };

			h->len = off;
			if (!holes_room(r)) {
				hole_drop_oldest(r);
				/* i may have moved; append the tail anyway */
			}
			r->holes[r->nholes++] = tail;
			return true;
		}
		if (h->len == 0) {
			memmove(h, h + 1, (r->nholes - i - 1) * sizeof(*h));
			r->nholes--;
		}
		return true;
	}
	return false;
}

/*
 * Remove [p, p + n) from the holes: a late READ request covers its whole
 * PSN range.  True when any of those PSNs was missing.
 */
bool an_hole_fill_range(struct an_holeset *r, uint32_t p, uint32_t n)
{
	bool any = false;
	unsigned i = 0;

	while (i < r->nholes) {
		struct an_hole *h = &r->holes[i];
		uint32_t a = (p - h->start) & 0xffffffu, b = (h->start - p) & 0xffffffu;
		uint32_t lo, hi;

		/* the range in hole offsets [lo, hi), clipped to [0, h->len) */
		if (a < h->len) {
			lo = a;
			hi = n < h->len - a ? a + n : h->len;
		} else if (b < n) {
			lo = 0;
			hi = n - b < h->len ? n - b : h->len;
		} else {
			i++;
			continue;
		}
		any = true;
		if (lo == 0 && hi == h->len) {
			memmove(h, h + 1, (r->nholes - i - 1) * sizeof(*h));
			r->nholes--;
		} else if (lo == 0) {
			h->start = roce_psn_add(h->start, hi);
			h->len -= hi;
			i++;
		} else if (hi == h->len) {
			h->len = lo;
			i++;
		} else {
			struct an_hole tail = { roce_psn_add(h->start, hi), h->len - hi };

			h->len = lo;
			if (!holes_room(r)) {
				hole_drop_oldest(r);
				if (i == 0) {
					r->holes[r->nholes++] = tail;
					continue;       /* holes[0] is a new hole now */
				}
				i--;
			}
			r->holes[r->nholes++] = tail;
			i++;
		}
	}
	return any;
}

uint32_t an_hole_take(struct an_holeset *r, uint32_t p, uint32_t n, struct an_holeset *to)
{
	struct an_hole got[AN_HOLES];
	unsigned ng = 0;
	uint32_t k = 0;

	/* what of [p, p + n) each hole holds (holes do not overlap), then out of r */
	for (unsigned i = 0; i < r->nholes && ng < AN_HOLES; i++) {
		const struct an_hole *h = &r->holes[i];
		uint32_t a = (p - h->start) & 0xffffffu, b = (h->start - p) & 0xffffffu;

		if (a < h->len)
			got[ng++] = (struct an_hole){ p, n < h->len - a ? n : h->len - a };
		else if (b < n)
			got[ng++] = (struct an_hole){ h->start, n - b < h->len ? n - b : h->len };
	}
	if (!ng)
		return 0;
	an_hole_fill_range(r, p, n);
	for (unsigned i = 0; i < ng; i++) {
		k += got[i].len;
		if (to)
			an_hole_add(to, got[i].start, got[i].len);
	}
	return k;
}
