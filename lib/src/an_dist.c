// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * an_dist.c - the analyzer's latency distributions.
 *
 * Latency distributions: exact count/min/max plus a log-linear histogram,
 *   16 sub-buckets per power of two (values < 16 ns exact), values up to 2^40
 *   ns (larger ones share the last bucket); p50/p99 report the midpoint of the
 *   bucket holding the rank ceil(q * count), clamped to [min, max]: relative
 *   error <= 1/32.  A paired request stream's ACK and READ distributions are
 *   part of its request state's record (struct an_req_lat), the NAK-response and recovery ones
 *   of a block allocated with their first sample (struct an_lat_x, a record of
 *   the analyzer's pool); a histogram is allocated only with a third value:
 *   until then min and max are the values and the count at min is kept
 *   (struct an_dist.cw), and the quantile rule applied to them gives what the
 *   histogram would (the midpoint of the bucket of the rank-th sample,
 *   clamped).  It spans only the octaves (16 buckets each) between the smallest and the
 *   largest sample; the array holds only the counts (16 words, two cache
 *   lines, an octave), its range is in the distribution (struct an_dist).
 *   Arrays of up to AN_HIST_POOLS octaves are records of the analyzer's
 *   histogram pools (one per width, on cache-line boundaries, blocks from its
 *   arena of huge pages): at 100,000 streams and more, a histogram from the
 *   heap's 4 KiB pages made each frame's latency sample a TLB miss as well as
 *   a cache miss (docs/perf/many-qps-memory.md).  Wider arrays come from the heap.
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

/* The histogram's bucket range [lo, hi) (struct an_dist.cw). */
#define H_RANGE_BITS 10u
#define H_RANGE_MASK ((1u << H_RANGE_BITS) - 1)
#define H_RANGE_ALL  ((uint64_t)AN_DIST_ONE - 1)    /* both fields, below the count */

static unsigned h_lo(const struct an_dist *d)
{
	return (unsigned)(d->cw & H_RANGE_MASK);
}

static unsigned h_hi(const struct an_dist *d)
{
	return (unsigned)(d->cw >> H_RANGE_BITS & H_RANGE_MASK);
}

/* The count of bucket i (lo <= i < hi). */
static uint64_t *h_at(const struct an_dist *d, unsigned i)
{
	return &d->hist[i - h_lo(d)];
}

/* The pool of histograms of n words (16 per octave), NULL: wider, from the heap. */
static struct an_pool *h_pool(struct roce_analyzer *a, unsigned n)
{
	unsigned octaves = n / H_SUB;

	return octaves <= AN_HIST_POOLS ? &a->pool.hist[octaves - 1] : NULL;
}

/* A zeroed histogram array of n words; NULL when out of memory. */
static uint64_t *h_alloc(struct roce_analyzer *a, unsigned n)
{
	struct an_pool *p = h_pool(a, n);
	uint64_t *h = p ? an_pool_get(p) : calloc(n, sizeof(*h));

	if (h)
		a->hist_bytes += (uint64_t)n * sizeof(*h);
	return h;
}

/*
 * Give d a histogram of buckets [lo, hi) (whole octaves) holding its old counts, which it must
 * cover; false when out of memory (d unchanged).
 */
static bool h_make(struct roce_analyzer *a, struct an_dist *d, unsigned lo, unsigned hi)
{
	uint64_t *n;

	if (hi > H_BUCKETS)
		hi = H_BUCKETS;
	n = h_alloc(a, hi - lo);
	if (!n)
		return false;
	if (d->hist) {
		memcpy(n + (h_lo(d) - lo), d->hist, (size_t)(h_hi(d) - h_lo(d)) * sizeof(*n));
		an_dist_free(a, d);
	}
	d->cw = (d->cw & ~H_RANGE_ALL) | lo | (uint64_t)hi << H_RANGE_BITS;
	d->hist = n;
	return true;
}

/* The octaves [lo, hi) from bucket i to bucket j (i <= j). */
static unsigned h_oct_lo(unsigned i)
{
	return i & ~(H_SUB - 1);
}

static unsigned h_oct_hi(unsigned j)
{
	return (j | (H_SUB - 1)) + 1;
}

/* Make d's histogram cover bucket idx as well (whole octaves); false when out of memory. */
static bool h_cover(struct roce_analyzer *a, struct an_dist *d, unsigned idx)
{
	unsigned lo = h_lo(d), hi = h_hi(d);

	if (idx >= lo && idx < hi)
		return true;
	if (idx < lo)
		lo = h_oct_lo(idx);
	else
		hi = h_oct_hi(idx);
	return h_make(a, d, lo, hi);
}

/*
 * dist_add() of a sample the histogram does not cover yet, or without a histogram a
 * sample that is a new value: never the first sample or one equal to min or max (while
 * the samples take at most two values; dist_add() takes those in line).
 */
static __attribute__((noinline)) void dist_add_slow(struct roce_analyzer *a, struct an_dist *d,
	uint64_t v)
{
	unsigned idx;

	if (!d->hist) {
		uint64_t n = an_dist_count(d), at_min = d->cw & H_RANGE_ALL;
		unsigned i0, i1;

		if (d->min == d->max && (v < d->min || n <= H_RANGE_ALL)) {
			/* a second value: min and max are the two, at_min the samples at min */
			if (v < d->min) {
				d->max = d->min;
				d->min = v;
				at_min = 1;
			} else {
				d->max = v;
				at_min = n;
			}
			d->cw = (n + 1) * AN_DIST_ONE | at_min;
			return;
		}
		/*
		 * A third value (or at_min full): one array for the octaves from the
		 * smallest to the largest of min, max and v, holding the samples so far.
		 */
		i0 = h_index(d->min);
		i1 = h_index(d->max);
		idx = h_index(v);
		if (d->min == d->max)
			at_min = n;
		if (!h_make(a, d, h_oct_lo(idx < i0 ? idx : i0), h_oct_hi(idx > i1 ? idx : i1)))
			return;         /* no memory: the sample is dropped */
		*h_at(d, i0) += at_min;
		*h_at(d, i1) += n - at_min;
	} else {
		idx = h_index(v);
		if (!h_cover(a, d, idx))
			return;         /* no memory: the sample is dropped */
	}
	if (v < d->min)
		d->min = v;
	if (v > d->max)
		d->max = v;
	d->cw += AN_DIST_ONE;
	(*h_at(d, idx))++;
}

/*
 * The common cases first: a histogram that covers the sample's bucket, the first
 * sample, or without a histogram a sample equal to min or max (what dist_add_slow()
 * does there, without its call: in long-lived streams of a few exchanges each, most
 * distributions take one or two values, docs/perf/many-qps-memory.md).
 */
static inline __attribute__((always_inline)) void dist_add(struct roce_analyzer *a,
	struct an_dist *d, uint64_t v)
{
	if (d->hist) {
		unsigned idx = h_index(v), lo = h_lo(d);

		if (idx >= lo && idx < h_hi(d)) {
			if (v < d->min)
				d->min = v;
			if (v > d->max)
				d->max = v;
			d->cw += AN_DIST_ONE;
			d->hist[idx - lo]++;
			return;
		}
	} else if (d->cw == 0) {
		d->min = d->max = v;    /* the first sample */
		d->cw = AN_DIST_ONE;
		return;
	} else if (v == d->max) {
		d->cw += AN_DIST_ONE;   /* (all equal: at_min stays 0) */
		return;
	} else if (v == d->min && (d->cw & H_RANGE_ALL) != H_RANGE_ALL) {
		d->cw += AN_DIST_ONE + 1;       /* two values, at min: at_min too */
		return;
	}
	dist_add_slow(a, d, v);
}

void an_dist_add(struct roce_analyzer *a, struct an_dist *d, uint64_t v)
{
	dist_add(a, d, v);
}

static uint64_t dist_quantile(const struct an_dist *d, unsigned pct)
{
	uint64_t rank = (an_dist_count(d) * pct + 99) / 100, cum = 0, v;

	if (rank == 0)
		rank = 1;
	if (!d->hist) {
		/* all samples equal, or two values: at_min at min, the rest at max */
		v = h_mid(h_index(rank <= (d->cw & H_RANGE_ALL) ? d->min : d->max));
		return v < d->min ? d->min : v > d->max ? d->max : v;
	}
	for (unsigned i = h_lo(d); i < h_hi(d); i++) {
		cum += *h_at(d, i);
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
	if (!d->cw)
		return;
	out->count = an_dist_count(d);
	out->min_ns = d->min;
	out->max_ns = d->max;
	out->p50_ns = dist_quantile(d, 50);
	out->p99_ns = dist_quantile(d, 99);
}

void an_dist_free(struct roce_analyzer *a, struct an_dist *d)
{
	unsigned n;
	struct an_pool *p;

	if (!d->hist)
		return;
	n = h_hi(d) - h_lo(d);
	a->hist_bytes -= (uint64_t)n * sizeof(*d->hist);
	p = h_pool(a, n);
	if (p)
		an_pool_put(p, d->hist);
	else
		free(d->hist);
	d->hist = NULL;
	d->cw &= ~H_RANGE_ALL;
}

struct an_lat_x *an_lat_x_get(struct roce_analyzer *a, struct an_flow *f)
{
	struct an_ctr *c = (struct an_ctr *)an_flow_ctr(a, f);

	if (c && !c->lat_x)
		c->lat_x = an_pool_get(&a->pool.lat_x);
	return c ? c->lat_x : NULL;
}

const struct an_dist *an_lat_dist(const struct an_flow *f, enum an_lat_kind k)
{
	if (k < AN_LAT_NAK_RESPONSE)
		return f->req && f->req->dists ? &an_req_dists(f->req)[k] : NULL;
	const struct an_lat_x *x = an_flow_lat_x(f);

	return x ? &x->d[k - AN_LAT_NAK_RESPONSE] : NULL;
}

__attribute__((always_inline)) inline void an_lat_req_add(struct roce_analyzer *a,
	struct an_req *r, enum an_lat_kind k, uint64_t v)
{
	if (r->dists)
		dist_add(a, &((struct an_req_lat *)r)->d[k], v);
	/* (else no memory for the record when r's stream was paired: the sample is dropped) */
}

__attribute__((always_inline)) inline void an_lat_add(struct roce_analyzer *a, struct an_flow *f,
	enum an_lat_kind k, uint64_t v)
{
	struct an_lat_x *x;

	if (k < AN_LAT_NAK_RESPONSE) {
		if (f->req)
			an_lat_req_add(a, f->req, k, v);
		return;
	}
	x = an_lat_x_get(a, f);
	if (x)
		dist_add(a, &x->d[k - AN_LAT_NAK_RESPONSE], v);   /* (no memory: dropped) */
}

void an_lat_req_free(struct roce_analyzer *a, struct an_dist *d)
{
	for (unsigned k = 0; k < AN_LAT_NAK_RESPONSE; k++)
		an_dist_free(a, &d[k]);
}

void an_lat_free(struct roce_analyzer *a, struct an_flow *f)
{
	struct an_lat_x *x = an_flow_lat_x(f);

	if (!x)
		return;
	for (unsigned k = 0; k < AN_LAT_COUNT - AN_LAT_NAK_RESPONSE; k++)
		an_dist_free(a, &x->d[k]);
	an_pool_put(&a->pool.lat_x, x);
	((struct an_ctr *)f->ctr)->lat_x = NULL;
}
