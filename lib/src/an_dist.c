// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * an_dist.c - the analyzer's latency distributions.
 *
 * Latency distributions: exact count/min/max plus a log-linear histogram,
 *   16 sub-buckets per power of two (values < 16 ns exact), values up to 2^40
 *   ns (larger ones share the last bucket); p50/p99 report the midpoint of the
 *   bucket holding the rank ceil(q * count), clamped to [min, max]: relative
 *   error <= 1/32.  The distributions of a stream are allocated with its first
 *   sample; a histogram only once two samples differ (until then every
 *   quantile is that value), and it spans only the octaves (16 buckets each)
 *   between the smallest and the largest sample.
 */
#include "an_internal.h"

#define H_SUB_BITS 4
#define H_SUB      (1u << H_SUB_BITS)
#define H_MAX_EXP  39
#define H_BUCKETS  (H_SUB + (H_MAX_EXP - H_SUB_BITS + 1) * H_SUB)

static unsigned h_index(uint64_t v)
{
	unsigned e;

	if (v < H_SUB)
		return (unsigned)v;
	e = 63u - (unsigned)__builtin_clzll(v);
	if (e > H_MAX_EXP)
		return H_BUCKETS - 1;
	return H_SUB + (e - H_SUB_BITS) * H_SUB +
		(unsigned)((v >> (e - H_SUB_BITS)) & (H_SUB - 1));
}

static uint64_t h_mid(unsigned idx)
{
	unsigned e, sub;
	uint64_t low, width;

	if (idx < H_SUB)
		return idx;
	e = (idx - H_SUB) / H_SUB + H_SUB_BITS;
	sub = (idx - H_SUB) % H_SUB;
	width = 1ull << (e - H_SUB_BITS);
	low = (uint64_t)(H_SUB + sub) * width;
	return low + width / 2;
}

/* Make the histogram cover bucket idx (whole octaves); false when out of memory. */
static bool h_cover(struct an_dist *d, unsigned idx)
{
	unsigned lo = idx & ~(H_SUB - 1), hi = (idx | (H_SUB - 1)) + 1;
	uint64_t *n;

	if (d->hist) {
		if (idx >= d->lo && idx < d->hi)
			return true;
		if (d->lo < lo)
			lo = d->lo;
		if (d->hi > hi)
			hi = d->hi;
	}
	if (hi > H_BUCKETS)
		hi = H_BUCKETS;
	n = calloc(hi - lo, sizeof(*n));
	if (!n)
		return false;
	if (d->hist) {
		memcpy(n + (d->lo - lo), d->hist, (size_t)(d->hi - d->lo) * sizeof(*n));
		free(d->hist);
	}
	d->hist = n;
	d->lo = (uint16_t)lo;
	d->hi = (uint16_t)hi;
	return true;
}

void an_dist_add(struct an_dist *d, uint64_t v)
{
	unsigned idx;

	if (d->count == 0) {
		d->min = d->max = v;
		d->count = 1;
		return;
	}
	if (!d->hist && v == d->min) {
		d->count++;     /* every sample so far is the same value: no buckets yet */
		return;
	}
	idx = h_index(v);
	if (!d->hist) {
		unsigned i0 = h_index(d->min);

		if (!h_cover(d, i0) || !h_cover(d, idx)) {
			an_dist_free(d);
			return;         /* no memory: the sample is dropped */
		}
		d->hist[i0 - d->lo] = d->count;
	} else if (!h_cover(d, idx)) {
		return;                 /* no memory: the sample is dropped */
	}
	if (v < d->min)
		d->min = v;
	if (v > d->max)
		d->max = v;
	d->count++;
	d->hist[idx - d->lo]++;
}

static uint64_t dist_quantile(const struct an_dist *d, unsigned pct)
{
	uint64_t rank = (d->count * pct + 99) / 100, cum = 0, v;

	if (!d->hist)
		return d->min;          /* all samples equal */
	if (rank == 0)
		rank = 1;
	for (unsigned i = d->lo; i < d->hi; i++) {
		cum += d->hist[i - d->lo];
		if (cum >= rank) {
			v = h_mid(i);
			if (v < d->min)
				v = d->min;
			if (v > d->max)
				v = d->max;
			return v;
		}
	}
	return d->max;
}

void an_dist_export(const struct an_dist *d, struct roce_dist *out)
{
	memset(out, 0, sizeof(*out));
	if (!d->count)
		return;
	out->count = d->count;
	out->min_ns = d->min;
	out->max_ns = d->max;
	out->p50_ns = dist_quantile(d, 50);
	out->p99_ns = dist_quantile(d, 99);
}

void an_dist_free(struct an_dist *d)
{
	free(d->hist);
	d->hist = NULL;
}

struct an_lat *an_lat_get(struct an_flow *f)
{
	if (!f->lat)
		f->lat = calloc(1, sizeof(*f->lat));
	return f->lat;
}

void an_lat_add(struct an_flow *f, enum an_lat_kind k, uint64_t v)
{
	struct an_lat *l = an_lat_get(f);

	if (l)
		an_dist_add(&l->d[k], v);   /* (no memory: the sample is dropped) */
}
