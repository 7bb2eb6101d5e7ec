// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * an_dist.c - the analyzer's latency distributions.
 *
 * Latency distributions: exact count/min/max plus a log-linear histogram,
 *   16 sub-buckets per power of two (values < 16 ns exact), values up to 2^40
 *   ns (larger ones share the last bucket); p50/p99 report the midpoint of the
 *   bucket holding the rank ceil(q * count), clamped to [min, max]: relative
 *   error <= 1/32.  Histograms are allocated with the first sample.
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

void an_dist_add(struct an_dist *d, uint64_t v)
{
	if (!d->hist) {
		d->hist = calloc(H_BUCKETS, sizeof(*d->hist));
		if (!d->hist)
			return;         /* no memory: the sample is dropped */
	}
	if (d->count == 0 || v < d->min)
		d->min = v;
	if (d->count == 0 || v > d->max)
		d->max = v;
	d->count++;
	d->hist[h_index(v)]++;
}

static uint64_t dist_quantile(const struct an_dist *d, unsigned pct)
{
	uint64_t rank = (d->count * pct + 99) / 100, cum = 0, v;

	if (rank == 0)
		rank = 1;
	for (unsigned i = 0; i < H_BUCKETS; i++) {
		cum += d->hist[i];
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
	if (!d->count || !d->hist)
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
