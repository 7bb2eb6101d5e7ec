// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_an_dist.c - the analyzer's latency distributions (lib/src/an_dist.c)
 * against a model that keeps every sample: after each an_dist_add() count,
 * min, max, p50 and p99 must be the model's (the midpoint of the bucket of the
 * rank-th sample, clamped to [min, max]); the histogram must be absent while
 * the samples take at most two values (the count at min kept instead), and
 * otherwise span exactly
 * the octaves from the smallest sample's to the largest's, hold the model's
 * count in every bucket, and be what the analyzer's hist_bytes counts.
 * Sequences: hand-written ones for each way a histogram is made (third sample
 * below, between, above the first two; after equal samples) and widened
 * (below, above, several octaves at once), and random ones of a few samples
 * (the long-lived streams of docs/perf/many-qps-memory.md) and of many.
 */
#include <stdlib.h>

#include "../../lib/src/an_internal.h"
#include "check.h"

/* The histogram's buckets (an_dist.c's rule, written again here). */
#define SUB      16u
#define MAX_EXP  39u
#define BUCKETS  (SUB + (MAX_EXP - 4 + 1) * SUB)

static unsigned m_index(uint64_t v)
{
	unsigned e;

	if (v < SUB)
		return (unsigned)v;
	e = 63u - (unsigned)__builtin_clzll(v);
	if (e > MAX_EXP)
		return BUCKETS - 1;
	return SUB + (e - 4) * SUB + (unsigned)((v >> (e - 4)) & (SUB - 1));
}

static uint64_t m_mid(unsigned idx)
{
	unsigned e, sub;
	uint64_t width;

	if (idx < SUB)
		return idx;
	e = (idx - SUB) / SUB + 4;
	sub = (idx - SUB) % SUB;
	width = 1ull << (e - 4);
	return (SUB + sub) * width + width / 2;
}

#define MAX_SAMPLES 4096

struct model {
	uint64_t v[MAX_SAMPLES];
	unsigned n;
};

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

static uint64_t m_quantile(const struct model *m, unsigned pct, uint64_t min, uint64_t max)
{
	uint64_t s[MAX_SAMPLES], rank = ((uint64_t)m->n * pct + 99) / 100, v;

	memcpy(s, m->v, m->n * sizeof(*s));
	qsort(s, m->n, sizeof(*s), cmp_u64);
	if (rank == 0)
		rank = 1;
	v = m_mid(m_index(s[rank - 1]));
	return v < min ? min : v > max ? max : v;
}

/* d (of a) after the model's samples: false on the first difference (reported). */
static bool same(struct roce_analyzer *a, const struct an_dist *d, const struct model *m)
{
	uint64_t min = UINT64_MAX, max = 0, at_min = 0;
	struct roce_dist out;
	bool two = true;        /* at most two values */

	for (unsigned i = 0; i < m->n; i++) {
		min = m->v[i] < min ? m->v[i] : min;
		max = m->v[i] > max ? m->v[i] : max;
	}
	for (unsigned i = 0; i < m->n; i++) {
		two = two && (m->v[i] == min || m->v[i] == max);
		at_min += m->v[i] == min;
	}
	CHECK_EQ_U(an_dist_count(d), m->n);
	CHECK_EQ_U(d->min, min);
	CHECK_EQ_U(d->max, max);
	an_dist_export(d, &out);
	CHECK_EQ_U(out.p50_ns, m_quantile(m, 50, min, max));
	CHECK_EQ_U(out.p99_ns, m_quantile(m, 99, min, max));
	if (two) {
		CHECK(d->hist == NULL);
		CHECK_EQ_U(d->cw & (AN_DIST_ONE - 1), min < max ? at_min : 0);
		CHECK_EQ_U(a->hist_bytes, 0);
	} else {
		unsigned lo = m_index(min) & ~(SUB - 1), hi = (m_index(max) | (SUB - 1)) + 1;

		CHECK(d->hist != NULL);
		if (!d->hist || check_cur_failed_)
			return false;
		CHECK_EQ_U(d->cw & 1023, lo);
		CHECK_EQ_U(d->cw >> 10 & 1023, hi);
		CHECK_EQ_U(a->hist_bytes, (hi - lo) * sizeof(uint64_t));
		for (unsigned b = lo; b < hi && !check_cur_failed_; b++) {
			uint64_t c = 0;

			for (unsigned i = 0; i < m->n; i++)
				c += m_index(m->v[i]) == b;
			CHECK_EQ_U(d->hist[b - lo], c);
		}
	}
	return !check_cur_failed_;
}

static struct roce_analyzer *new_analyzer(void)
{
	struct roce_analyzer_config cfg;
	char err[ROCE_ERRBUF_SIZE];

	roce_analyzer_config_init(&cfg);
	return roce_analyzer_create(&cfg, err);
}

/* Add the n samples of v one at a time, checking d against the model after each. */
static void run(const uint64_t *v, unsigned n)
{
	struct roce_analyzer *a = new_analyzer();
	struct an_dist d = { 0 };
	struct model *m = calloc(1, sizeof(*m));

	REQUIRE(a && m);
	for (unsigned i = 0; i < n && !check_cur_failed_; i++) {
		an_dist_add(a, &d, v[i]);
		m->v[m->n++] = v[i];
		/* (long sequences: every 61st sample and the last, the check is quadratic) */
		if ((n <= 64 || i % 61 == 0 || i + 1 == n) && !same(a, &d, m))
			fprintf(stderr, "  after sample %u of %u (%" PRIu64 ")\n", i + 1, n, v[i]);
	}
	an_dist_free(a, &d);
	CHECK(d.hist == NULL);
	CHECK_EQ_U(an_dist_count(&d), n);
	CHECK_EQ_U(a->hist_bytes, 0);
	free(m);
	roce_analyzer_destroy(a);
}

#define RUN_SEQ(...) do { \
	const uint64_t s_[] = { __VA_ARGS__ }; \
	run(s_, sizeof(s_) / sizeof(s_[0])); } while (0)

static void test_histogram_made(void)
{
	RUN_SEQ(1000, 1000, 1000, 1000);                /* constant: never a histogram */
	RUN_SEQ(1000, 5000, 20);                        /* third below both */
	RUN_SEQ(1000, 5000, 2500);                      /* between */
	RUN_SEQ(5000, 1000, 900000);                    /* above */
	RUN_SEQ(1000, 1000, 1000, 70000, 3);            /* after equal samples: count at min */
	RUN_SEQ(10, 20, 10, 20, 10);                    /* two values: no histogram */
	RUN_SEQ(20, 10, 20, 20, 10);
	RUN_SEQ(1000, 1000, 5000, 5000, 1000, 3000);    /* a third value late */
	RUN_SEQ(5000, 5000, 1000, 1000, 5000, 900000, 1000);
	RUN_SEQ(0, 0, 1, 1ull << 45, 7);                /* both ends of the buckets */
	RUN_SEQ(300, 301, 302);                         /* one octave */
	RUN_SEQ(1ull << 41, 1ull << 42, 1ull << 43);    /* all in the last bucket */
}

/*
 * The count at min has 20 bits: the sample that would pass 2^20 - 1 makes the histogram,
 * which then holds every sample (too many for the model: checked directly).
 */
static void test_at_min_full(void)
{
	const uint64_t full = (1u << 20) - 1;

	for (int big_first = 0; big_first < 2 && !check_cur_failed_; big_first++) {
		struct roce_analyzer *a = new_analyzer();
		struct an_dist d = { 0 };
		struct roce_dist out;
		unsigned lo;

		REQUIRE(a);
		if (big_first)
			an_dist_add(a, &d, 10);
		for (uint64_t i = 0; i < full + 1; i++)
			an_dist_add(a, &d, 5);
		if (!big_first) {
			/* all equal past the 20 bits: the second value makes the histogram */
			CHECK(d.hist == NULL);
			CHECK_EQ_U(d.cw & full, 0);
			an_dist_add(a, &d, 10);
		}
		CHECK(d.hist != NULL);
		if (d.hist) {
			lo = (unsigned)(d.cw & 1023);
			CHECK_EQ_U(lo, 0);
			CHECK_EQ_U(d.hist[5 - lo], full + 1);
			CHECK_EQ_U(d.hist[10 - lo], 1);
		}
		CHECK_EQ_U(an_dist_count(&d), full + 2);
		an_dist_export(&d, &out);
		CHECK_EQ_U(out.min_ns, 5);
		CHECK_EQ_U(out.max_ns, 10);
		CHECK_EQ_U(out.p50_ns, 5);
		CHECK_EQ_U(out.p99_ns, 5);
		an_dist_free(a, &d);
		CHECK_EQ_U(a->hist_bytes, 0);
		roce_analyzer_destroy(a);
	}
}

static void test_histogram_widened(void)
{
	RUN_SEQ(1000, 1100, 1200, 40, 3, 1000000, 1ull << 39);  /* an octave, then several */
	RUN_SEQ(1000, 1100, 1200, 2100, 4300, 8700, 17000);     /* one octave at a time up */
	RUN_SEQ(1000, 1100, 1200, 510, 250, 120, 60, 30, 15);   /* and down */
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void test_random(void)
{
	uint64_t s = 88172645463325252ull, v[MAX_SAMPLES];

	for (unsigned t = 0; t < 2100 && !check_cur_failed_; t++) {
		unsigned n = t < 2000 ? 1 + (unsigned)(rnd(&s) % 8) : 1 + (unsigned)(rnd(&s) % 2000);
		uint64_t base = rnd(&s) % 100000;
		unsigned spread = (unsigned)(rnd(&s) % 24);

		for (unsigned i = 0; i < n; i++) {
			/* repeats of a few values (as a generator's fixed delays give), or a spread */
			if (rnd(&s) % 3 == 0)
				v[i] = base;
			else
				v[i] = base + (rnd(&s) & ((1ull << spread) - 1));
		}
		run(v, n);
	}
}

int main(void)
{
	RUN(test_histogram_made);
	RUN(test_histogram_widened);
	RUN(test_at_min_full);
	RUN(test_random);
	return check_report();
}
