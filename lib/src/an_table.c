// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * an_table.c - the analyzer's open-addressing hash tables.
 *
 * Tables
 *   Streams and PFC entries live in open-addressing hash tables (linear
 *   probing, backward-shift deletion, capacity a power of two >= 2 * cap).
 *   Each slot holds a pointer to an entry (a pool record, an_pool.c) and
 *   the entry's hash, so that probing and growing never read the entries;
 *   a dense array of the live entries makes scans and iteration O(live).
 *   Stream key: (RoCE version, src, dst, dqpn), hashed word-wise (flow_hash).
 *   When a table is full, the least recently active entry among the first
 *   16 occupied slots probed from the new key's home slot is evicted
 *   (ROCE_AN_FLOW_EVICTED, evicted_flows / evicted_pfc).  Summary counters
 *   are kept apart and stay correct; PSN holes of an evicted stream are
 *   carried into summary.unrecovered_psns at finish.  Streams are iterated
 *   in first-seen order (an intrusive list per table: no allocation).
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
	t->n = 0;
	return 0;
}

void an_table_free(struct an_table *t)
{
	if (t->slots)
		an_zfree_in(t->arena, t->slots, (t->mask + 1) * sizeof(*t->slots));
	free(t->dense);
}

/* Slot holding e (it is in the table). */
static uint32_t table_slot_of(const struct an_table *t, const struct an_entry *e)
{
	uint32_t i = e->hash & t->mask;

	while (t->slots[i].e != e)
		i = (i + 1) & t->mask;
	return i;
}

/*
 * Room in the dense array for one more entry: it grows by an eighth when full,
 * up to cap (by the entries, not with the slots: doubling with the slot
 * array left it up to half empty, 8 bytes per missing stream).
 */
static int dense_reserve(struct an_table *t)
{
	uint64_t want = (uint64_t)t->dense_cap + t->dense_cap / 8 + 16;
	struct an_entry **nd;

	if (t->n < t->dense_cap)
		return 0;
	if (want > t->cap)
		want = t->cap;
	if (t->dense_cap >= want)
		return 0;
	nd = realloc(t->dense, (size_t)want * sizeof(*nd));
	if (!nd)
		return -1;
	t->dense = nd;
	t->dense_cap = (uint32_t)want;
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
		if (t->n >= t->dense_cap)
			dense_reserve(t);       /* (a failed growth is retried here) */
		return t->n + 1 < size && t->n < t->dense_cap ? 0 : -1;
	}
	nsize = size * 2;
	ns = an_zalloc_in(t->arena, nsize * sizeof(*ns));
	if (!ns)
		return t->n + 1 < size && t->n < t->dense_cap ? 0 : -1;
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
	return t->n < t->dense_cap ? 0 : -1;
}

void an_table_insert(struct an_table *t, struct an_entry *e)
{
	uint32_t i = e->hash & t->mask;

	while (t->slots[i].e)
		i = (i + 1) & t->mask;
	t->slots[i].e = e;
	t->slots[i].hash = e->hash;
	e->dense = t->n;
	t->dense[t->n++] = e;
}

/* Backward-shift deletion: no tombstones, probe chains stay short. */
void an_table_remove(struct an_table *t, struct an_entry *e)
{
	uint32_t i = table_slot_of(t, e), j = i, k;
	struct an_entry *last;

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
	last = t->dense[--t->n];
	last->dense = e->dense;
	t->dense[e->dense] = last;
}

/* Least recently active entry among the first occupied slots from home. */
struct an_entry *an_table_victim(const struct an_table *t, uint32_t hash)
{
	struct an_entry *best = NULL;
	uint32_t i = hash & t->mask, seen = 0;

	for (uint32_t step = 0; step <= t->mask && seen < AN_EVICT_PROBE; step++) {
		struct an_entry *e = t->slots[(i + step) & t->mask].e;

		if (!e)
			continue;
		seen++;
		if (!best || e->tick < best->tick)
			best = e;
	}
	return best;
}

void an_list_append(struct an_list *l, struct an_lnode *n)
{
	n->next = NULL;
	n->prev = l->tail;
	if (l->tail)
		l->tail->next = n;
	else
		l->head = n;
	l->tail = n;
}

void an_list_remove(struct an_list *l, struct an_lnode *n)
{
	if (n->prev)
		n->prev->next = n->next;
	else
		l->head = n->next;
	if (n->next)
		n->next->prev = n->prev;
	else
		l->tail = n->prev;
	n->prev = n->next = NULL;
}
