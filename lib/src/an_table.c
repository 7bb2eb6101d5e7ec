// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * an_table.c - the analyzer's open-addressing hash tables.
 *
 * Tables
 *   Streams and PFC entries live in open-addressing hash tables (linear
 *   probing, backward-shift deletion, capacity a power of two >= 2 * cap).
 *   Each slot holds a pointer to an entry (a pool record, an_pool.c) and
 *   the entry's hash, so that probing and growing never read the entries
 *   (the entries do not keep it: their owner recomputes it to remove one);
 *   a dense array of the live entries in creation order makes scans and
 *   iteration O(live) and gives the first-seen order without links in the
 *   entries.  A removed entry leaves a gap there that keeps its seq, so
 *   removals find their index by a binary search on seq; the gaps are
 *   squeezed out when the array is full (in place when they are an eighth
 *   of it or it cannot grow, else it grows by an eighth).
 *   Stream key: (RoCE version, src, dst, dqpn), hashed word-wise (flow_hash).
 *   When a table is full, the least recently active entry among the first
 *   16 occupied slots probed from the new key's home slot is evicted
 *   (ROCE_AN_FLOW_EVICTED, evicted_flows / evicted_pfc): streams by their
 *   newest frame time, PFC entries by the frame counter.  Summary counters
 *   are kept apart and stay correct; PSN holes of an evicted stream are
 *   carried into summary.unrecovered_psns at finish.
 */
#include "an_internal.h"

#define AN_EVICT_PROBE     16

/*
 * The slot array starts small and doubles at half load up to max_size:
 * memory follows the streams actually seen, and with few streams their
 * slots share a few cache lines instead of being scattered over a 1 MiB
 * array sized for the cap.
 */
#define AN_TABLE_MIN 64u
#define AN_DENSE_MAP_MIN (64u << 10)    /* dense arrays in reserved address space from here */

int an_table_init(struct an_table *t, uint32_t cap)
{
	uint32_t max = AN_TABLE_MIN;

	while (max < 2u * cap)
		max <<= 1;
	t->slots = an_zalloc(AN_TABLE_MIN * sizeof(*t->slots));
	t->dense_cap = AN_TABLE_MIN / 2 < cap ? AN_TABLE_MIN / 2 : cap;
	t->dense = calloc(t->dense_cap, sizeof(*t->dense));
	if (!t->slots || !t->dense)
		return -1;
	t->mask = AN_TABLE_MIN - 1;
	t->max_size = max;
	t->cap = cap;
	t->n = t->len = t->cursor = 0;
	t->dense_res = 0;
	return 0;
}

void an_table_free(struct an_table *t)
{
	if (t->slots)
		an_zfree_in(t->arena, t->slots, (t->mask + 1) * sizeof(*t->slots));
	if (t->dense_res)
		an_map_release(t->dense, (size_t)t->dense_res * sizeof(*t->dense));
	else
		free(t->dense);
}

/* Slot holding e, inserted with hash h. */
static uint32_t table_slot_of(const struct an_table *t, const struct an_entry *e, uint32_t h)
{
	uint32_t i = h & t->mask;

	while (t->slots[i].e != e)
		i = (i + 1) & t->mask;
	return i;
}

static uint64_t dense_seq(const struct an_table *t, uint32_t i)
{
	uint64_t v = t->dense[i];

	return v & 1 ? v >> 1 : ((const struct an_entry *)(uintptr_t)v)->seq;
}

/* Dense index of the live entry e (the array is sorted by seq, gaps included). */
static uint32_t dense_find(const struct an_table *t, const struct an_entry *e)
{
	uint32_t lo = 0, hi = t->len;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (dense_seq(t, mid) < e->seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Squeeze the gaps out; the cursor keeps pointing at the same next live entry. */
static void dense_compact(struct an_table *t)
{
	uint32_t j = 0, cursor = 0;

	for (uint32_t i = 0; i < t->len; i++) {
		if (i == t->cursor)
			cursor = j;
		if (!(t->dense[i] & 1))
			t->dense[j++] = t->dense[i];
	}
	t->len = j;
	t->cursor = cursor < j ? cursor : 0;
}

/*
 * Grow the dense array to want elements without a copy or a page fault per
 * 4 KiB: from AN_DENSE_MAP_MIN bytes it lives in address space reserved for
 * its largest size (an_map_reserve(), advised as huge pages), and each growth
 * populates its new part in one call.  On reaching that size the malloc()ed
 * array is copied there once.  -1: not mapped (below the size, no mmap(), no
 * memory): realloc() as before.
 */
static int dense_grow_mapped(struct an_table *t, uint32_t want)
{
	if (!t->dense_res) {
		uint64_t res = (uint64_t)t->cap + t->cap / 8 + 16;
		uint64_t *m;

		if ((uint64_t)want * sizeof(*t->dense) < AN_DENSE_MAP_MIN || res > UINT32_MAX ||
		    (m = an_map_reserve((size_t)res * sizeof(*m))) == NULL)
			return -1;
		an_map_populate(m, 0, (size_t)want * sizeof(*m));
		memcpy(m, t->dense, (size_t)t->len * sizeof(*m));
		free(t->dense);
		t->dense = m;
		t->dense_res = (uint32_t)res;
	} else {
		if (want > t->dense_res)
			return -1;
		an_map_populate(t->dense, (size_t)t->dense_cap * sizeof(*t->dense),
			(size_t)want * sizeof(*t->dense));
	}
	t->dense_cap = want;
	return 0;
}

/*
 * Room in the dense array for one more entry.  Full: the gaps go if they are
 * an eighth of it; else it grows by an eighth, up to cap (without gaps: as
 * many elements as entries) or an eighth more (room for gaps at the cap), and
 * the gaps go when it cannot grow.
 */
static int dense_reserve(struct an_table *t)
{
	uint32_t gaps = t->len - t->n;
	uint64_t want = (uint64_t)t->dense_cap + t->dense_cap / 8 + 16;
	uint64_t lim = gaps ? (uint64_t)t->cap + t->cap / 8 + 16 : t->cap;
	uint64_t *nd;

	if (t->len < t->dense_cap)
		return 0;
	if (gaps && (uint64_t)gaps * 8 >= t->len) {
		dense_compact(t);
		return 0;
	}
	if (want > lim)
		want = lim;
	if (want > t->dense_cap && dense_grow_mapped(t, (uint32_t)want) == 0)
		return 0;
	if (want > t->dense_cap && !t->dense_res &&
	    (nd = realloc(t->dense, (size_t)want * sizeof(*nd))) != NULL) {
		t->dense = nd;
		t->dense_cap = (uint32_t)want;
		return 0;
	}
	if (!gaps)
		return -1;
	dense_compact(t);
	return 0;
}

/*
 * Room for one more entry: grow the slot array when the insert would pass
 * half load.  -1 when there is no room at all (growing failed: no memory).
 */
int an_table_reserve(struct an_table *t)
{
	uint32_t size = t->mask + 1, nsize;
	struct an_slot *ns;

	if (2u * (t->n + 1) <= size || size >= t->max_size) {
		if (t->len >= t->dense_cap)
			dense_reserve(t);       /* (a failed growth is retried here) */
		return t->n + 1 < size && t->len < t->dense_cap ? 0 : -1;
	}
	nsize = size * 2;
	ns = an_zalloc_in(t->arena, nsize * sizeof(*ns));
	if (!ns)
		return t->n + 1 < size && t->len < t->dense_cap ? 0 : -1;
	for (uint32_t k = 0; k < size; k++) {
		uint32_t i;

		if (!t->slots[k].e)
			continue;
		i = t->slots[k].hash & (nsize - 1);
		while (ns[i].e)
			i = (i + 1) & (nsize - 1);
		ns[i] = t->slots[k];
	}
	an_zfree_in(t->arena, t->slots, size * sizeof(*t->slots));
	t->slots = ns;
	t->mask = nsize - 1;
	dense_reserve(t);
	return t->len < t->dense_cap ? 0 : -1;
}

void an_table_insert(struct an_table *t, struct an_entry *e, uint32_t h)
{
	uint32_t i = h & t->mask;

	while (t->slots[i].e)
		i = (i + 1) & t->mask;
	t->slots[i].e = e;
	t->slots[i].hash = h;
	t->dense[t->len++] = (uint64_t)(uintptr_t)e;
	t->n++;
}

/* Empty slot i by backward-shift deletion: no tombstones, probe chains stay short. */
static void slot_remove(struct an_table *t, uint32_t i)
{
	uint32_t j = i, k;

	t->slots[i].e = NULL;
	for (;;) {
		j = (j + 1) & t->mask;
		if (!t->slots[j].e)
			break;
		k = t->slots[j].hash & t->mask;
		/* move slots[j] back to i unless its home lies cyclically in (i, j] */
		if (((j - k) & t->mask) >= ((j - i) & t->mask)) {
			t->slots[i] = t->slots[j];
			t->slots[j].e = NULL;
			i = j;
		}
	}
}

void an_table_remove(struct an_table *t, struct an_entry *e, uint32_t h)
{
	slot_remove(t, table_slot_of(t, e, h));
	t->n--;
	if (t->dense[t->len - 1] == (uint64_t)(uintptr_t)e) {
		/* the newest entry (a host pair of the pairing index, mostly): no search */
		do
			t->len--;
		while (t->len && (t->dense[t->len - 1] & 1));
	} else {
		t->dense[dense_find(t, e)] = e->seq << 1 | 1;
	}
	if (t->cursor >= t->len)
		t->cursor = 0;
}

/*
 * an_table_remove(), an_table_reserve() and an_table_insert() of the newest entry under a
 * new key in one step, the same slots and dense array after it: no room to find (one entry
 * leaves, one comes), and the entry keeps its place at the dense array's end.  For an entry
 * that is not the newest: the three calls.  -1: no room (only then: the entry is out).
 */
int an_table_rekey(struct an_table *t, struct an_entry *e, uint32_t h, uint32_t nh, uint64_t seq)
{
	uint32_t i;

	if (!t->len || t->dense[t->len - 1] != (uint64_t)(uintptr_t)e) {
		an_table_remove(t, e, h);
		if (an_table_room(t))
			return -1;
		e->seq = seq;
		an_table_insert(t, e, nh);
		return 0;
	}
	slot_remove(t, table_slot_of(t, e, h));
	/* the gaps an_table_remove() would drop after taking the newest entry off the end */
	while (t->len >= 2 && (t->dense[t->len - 2] & 1)) {
		t->dense[t->len - 2] = (uint64_t)(uintptr_t)e;
		t->len--;
	}
	if (t->cursor >= t->len - 1)
		t->cursor = 0;
	e->seq = seq;
	i = nh & t->mask;
	while (t->slots[i].e)
		i = (i + 1) & t->mask;
	t->slots[i].e = e;
	t->slots[i].hash = nh;
	return 0;
}

/* Least recently active entry among the first occupied slots from home. */
struct an_entry *an_table_victim(const struct an_table *t, uint32_t h, size_t age_off)
{
	struct an_entry *best = NULL;
	uint64_t best_age = 0;
	uint32_t i = h & t->mask, seen = 0;

	for (uint32_t step = 0; step <= t->mask && seen < AN_EVICT_PROBE; step++) {
		struct an_entry *e = t->slots[(i + step) & t->mask].e;
		uint64_t age;

		if (!e)
			continue;
		seen++;
		memcpy(&age, (const char *)e + age_off, sizeof(age));
		if (!best || age < best_age) {
			best = e;
			best_age = age;
		}
	}
	return best;
}
