/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rng.c - roce-gen's deterministic random numbers: xoshiro256** seeded by
 * splitmix64, one stream per user (the traffic engine, the fault injector),
 * so that adding a fault does not change the traffic.  Declared in gen.h.
 */
#include <stdint.h>

#include "gen.h"

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void rg_rng_seed(struct rg_rng *r, uint64_t seed)
{
	uint64_t x = seed;

	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&x);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t rg_rng_next(struct rg_rng *r)
{
	uint64_t *s = r->s, res = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return res;
}

uint64_t rg_rng_below(struct rg_rng *r, uint64_t n)
{
	uint64_t lim, x;

	if (n <= 1)
		return 0;
	lim = UINT64_MAX - UINT64_MAX % n;
	do
		x = rg_rng_next(r);
	while (x >= lim);
	return x % n;
}

bool rg_rng_chance(struct rg_rng *r, double p)
{
	if (p <= 0)
		return false;
	if (p >= 1)
		return true;
	return (double)(rg_rng_next(r) >> 11) * 0x1.0p-53 < p;
}

