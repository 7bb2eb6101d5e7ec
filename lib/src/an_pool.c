// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * an_pool.c - fixed-size record pools for the analyzer's per-stream state.
 *
 * Streams, their request / response sequencing state, latency blocks,
 * rare-counter blocks, pairing-index host pairs and PFC entries are
 * records of a few fixed sizes, created and dropped by the million at
 * fabric scale.  Each kind has a pool: records are carved from blocks
 * (a bump pointer), and a record given back (eviction, expiry, a host
 * pair leaving the index) goes on the pool's free list and is handed out
 * again before the blocks grow.  No malloc call or allocator header per
 * record, no fragmentation, and the memory of evicted streams is reused.
 *
 * Blocks start at AN_POOL_BLOCK_MIN bytes (a handful of streams cost a
 * few KiB) and grow with the pool, up to AN_POOL_BLOCK_MAX; blocks of that size are
 * 2 MiB-aligned and, on Linux, advised as transparent huge pages: with a
 * million streams spread over hundreds of MB, every stream touched is
 * otherwise a TLB miss.  On Linux, blocks of AN_POOL_MAP_MIN bytes and
 * more (and the tables' large arrays, an_zalloc()) are mapped from the
 * kernel and prefaulted in one call: one page fault per 4 KiB page costs
 * more than the work on the stream.  Their pages come zeroed, so a record
 * carved from one is not cleared again; records from smaller blocks or
 * from the free list are zeroed when handed out.  The analyzer's pools take
 * their blocks below AN_POOL_BLOCK_MAX from one shared arena of 2 MiB
 * chunks (huge pages, mapped with the first stream): a run's first
 * thousands of streams touch one or two huge pages, not hundreds of 4 KiB
 * pages spread over a dozen small blocks (on a virtual machine a new 4 KiB
 * page costs a few microseconds, as much as a frame's analysis).  Blocks are released
 * only when the analyzer is destroyed; the memory accounting
 * (roce_analyzer_memory()) tells records in use from records kept for reuse.
 */
#if defined(__linux__) && !defined(_DEFAULT_SOURCE)
#define _DEFAULT_SOURCE         /* madvise(), MADV_HUGEPAGE, MADV_POPULATE_WRITE */
#endif
#include "an_internal.h"

#if defined(__linux__)
#include <sys/mman.h>
#endif

#define AN_POOL_BLOCK_MIN  4096u
#define AN_POOL_BLOCK_MAX  (2u << 20)
#define AN_POOL_MAP_MIN    (64u << 10)     /* blocks from mmap() from this size */

/* A block: this header, then records from offset AN_LINE. */
struct an_block {
	struct an_block *next;
	size_t bytes;           /* mapped bytes (0: from aligned_alloc or the arena) */
	bool arena;             /* carved from the pool's arena (freed with it) */
};

void an_pool_init(struct an_pool *p, size_t size, size_t align)
{
	memset(p, 0, sizeof(*p));      /* (no arena: the owner sets one) */
	if (align < sizeof(void *))
		align = sizeof(void *);
	p->size = (uint32_t)((size + align - 1) & ~(align - 1));
	p->next_block = AN_POOL_BLOCK_MIN;
	while (p->next_block < AN_LINE + 4u * p->size)
		p->next_block *= 2;
}

/*
 * The next block is a quarter of what the pool holds (a power of two, at
 * least the first block's size, at most AN_POOL_BLOCK_MAX): memory grows in
 * steps of 25%, so the unused tail of the newest block stays small.
 */
static size_t next_block_size(const struct an_pool *p)
{
	size_t n = p->next_block;

	while (n < AN_POOL_BLOCK_MAX && n < p->block_bytes / 4)
		n *= 2;
	return n;
}

void an_advise_huge(void *p, size_t n)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
	const uintptr_t huge = (uintptr_t)AN_POOL_BLOCK_MAX;
	uintptr_t lo = ((uintptr_t)p + huge - 1) & ~(huge - 1);
	uintptr_t hi = ((uintptr_t)p + n) & ~(huge - 1);

	if (hi > lo)
		(void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);  /* advice only */
#else
	(void)p;
	(void)n;
#endif
}

/*
 * Bytes mapped for n by map_zeroed(): from AN_POOL_BLOCK_MAX up, whole huge
 * pages.  A 3 MiB stream slot array (262,144 slots: 65,536 to 131,072
 * streams) was one huge page and 1 MiB of 4 KiB pages otherwise: a third of
 * the frames' random slot reads, and the slot hints, on 4 KiB pages.
 */
static size_t map_len(size_t n)
{
	if (n < AN_POOL_BLOCK_MAX)
		return n;
	return (n + AN_POOL_BLOCK_MAX - 1) & ~(size_t)(AN_POOL_BLOCK_MAX - 1);
}

size_t an_zalloc_pad(size_t n)
{
#if defined(__linux__) && defined(MAP_ANONYMOUS)
	if (n >= AN_POOL_MAP_MIN)
		return map_len(n) - n;
#endif
	(void)n;
	return 0;
}

/*
 * A block of AN_POOL_MAP_MIN bytes or more straight from mmap() (Linux),
 * those of AN_POOL_BLOCK_MAX and more on a 2 MiB boundary, in whole huge
 * pages (map_len()): their pages come zeroed from the kernel, so records
 * carved from them need no memset() (one pass less over memory touched for
 * the first time, which with many short streams is a good part of the time
 * per frame).  NULL: use aligned_alloc().
 */
static void *map_zeroed(size_t n)
{
#if defined(__linux__) && defined(MAP_ANONYMOUS)
	const size_t len = map_len(n);
	const size_t align = n >= AN_POOL_BLOCK_MAX ? AN_POOL_BLOCK_MAX : 0;
	char *m = mmap(NULL, len + align, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		-1, 0);
	char *lo = m;

	if (m == MAP_FAILED)
		return NULL;
	if (align) {
		size_t head;

		lo = (char *)(((uintptr_t)m + align - 1) & ~(uintptr_t)(align - 1));
		head = (size_t)(lo - m);
		if (head)
			(void)munmap(m, head);
		if (align - head)
			(void)munmap(lo + len, align - head);
		an_advise_huge(lo, len);
	}
	an_map_populate(lo, 0, n);
	return lo;
#else
	(void)n;
	return NULL;
#endif
}

void *an_zalloc(size_t n)
{
#if defined(__linux__) && defined(MAP_ANONYMOUS)
	if (n >= AN_POOL_MAP_MIN)
		return map_zeroed(n);   /* (NULL: out of memory; an_zfree() unmaps) */
#endif
	return calloc(1, n);
}

void an_zfree(void *p, size_t n)
{
#if defined(__linux__) && defined(MAP_ANONYMOUS)
	if (p && n >= AN_POOL_MAP_MIN) {
		(void)munmap(p, map_len(n));
		return;
	}
#endif
	free(p);
}

void *an_map_reserve(size_t n)
{
#if defined(__linux__) && defined(MAP_ANONYMOUS) && defined(MAP_NORESERVE)
	void *m = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		-1, 0);

	if (m == MAP_FAILED)
		return NULL;
	an_advise_huge(m, n);
	return m;
#else
	(void)n;
	return NULL;
#endif
}

void an_map_populate(void *p, size_t from, size_t to)
{
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
	uintptr_t lo = ((uintptr_t)p + from) & ~(uintptr_t)4095;

	if (to > from)
		(void)madvise((void *)lo, (uintptr_t)p + to - lo,
			MADV_POPULATE_WRITE);   /* advice only (Linux 5.14) */
#else
	(void)p;
	(void)from;
	(void)to;
#endif
}

void an_map_release(void *p, size_t n)
{
#if defined(__linux__) && defined(MAP_ANONYMOUS)
	if (p)
		(void)munmap(p, n);
#else
	(void)p;
	(void)n;
#endif
}

/* A table array given back to the arena (an_zfree_in()), in its first bytes. */
struct an_region {
	struct an_region *next;
	size_t bytes;
};

/*
 * n zeroed bytes (a multiple of 64 below AN_POOL_BLOCK_MAX): an array given
 * back, else the arena's newest chunk, or a new chunk (the rest of the old
 * one stays unused; with blocks growing by powers of two that is rare).
 * NULL without mmap() or memory: the pool makes its own block.
 */
static void *arena_get(struct an_arena *ar, size_t n)
{
	char *o;

	/* first fit among the arrays given back: their pages are already mapped */
	for (struct an_region **pp = (struct an_region **)&ar->freed; *pp; pp = &(*pp)->next) {
		struct an_region *r = *pp;

		if (r->bytes < n)
			continue;
		o = (char *)r;
		if (r->bytes - n >= AN_POOL_BLOCK_MIN) {
			struct an_region *t = (struct an_region *)(void *)(o + n);

			t->next = r->next;
			t->bytes = r->bytes - n;
			*pp = t;
		} else {
			*pp = r->next;  /* (a tail below a block stays dead) */
		}
		ar->dead -= n;
		memset(o, 0, n);
		return o;
	}
	if ((size_t)(ar->end - ar->cur) < n) {
		char *c = map_zeroed(AN_POOL_BLOCK_MAX);

		if (!c)
			return NULL;
		memcpy(c, &ar->chunks, sizeof(void *));
		ar->chunks = c;
		ar->cur = c + AN_LINE;          /* (the link) */
		ar->end = c + AN_POOL_BLOCK_MAX;
		ar->bytes += AN_POOL_BLOCK_MAX;
	}
	o = ar->cur;
	ar->cur += n;
	ar->given += n;
	return o;
}

void an_arena_free(struct an_arena *ar)
{
	void *c = ar->chunks;

	while (c) {
		void *next;

		memcpy(&next, c, sizeof(void *));
#if defined(__linux__) && defined(MAP_ANONYMOUS)
		(void)munmap(c, AN_POOL_BLOCK_MAX);
#endif
		c = next;
	}
	memset(ar, 0, sizeof(*ar));
}

static bool arena_owns(const struct an_arena *ar, const void *p)
{
	const char *c = ar->chunks;

	while (c) {
		if ((const char *)p >= c && (const char *)p < c + AN_POOL_BLOCK_MAX)
			return true;
		memcpy(&c, c, sizeof(void *));
	}
	return false;
}

void *an_zalloc_in(struct an_arena *ar, size_t n)
{
	void *p;

	if (ar && n >= AN_POOL_MAP_MIN && n < AN_POOL_BLOCK_MAX && (p = arena_get(ar, n)) != NULL)
		return p;
	return an_zalloc(n);
}

void an_zfree_in(struct an_arena *ar, void *p, size_t n)
{
	if (ar && p && arena_owns(ar, p)) {
		struct an_region *r = p;

		r->next = ar->freed;
		r->bytes = n;
		ar->freed = r;
		ar->dead += n;
		return;
	}
	an_zfree(p, n);
}

static bool pool_grow(struct an_pool *p)
{
	size_t n = next_block_size(p);
	struct an_block *b = NULL;

	if (n < AN_POOL_BLOCK_MAX && p->arena && (b = arena_get(p->arena, n)) != NULL)
		b->arena = true;
	else if (n >= AN_POOL_MAP_MIN && (b = map_zeroed(n)) != NULL)
		b->bytes = n;
	p->zeroed = b != NULL;
	if (!b) {
		b = aligned_alloc(n >= AN_POOL_BLOCK_MAX ? AN_POOL_BLOCK_MAX : AN_LINE, n);
		if (!b)
			return false;
		b->bytes = 0;
		b->arena = false;
		if (n >= AN_POOL_BLOCK_MAX)
			an_advise_huge(b, n);
	}
	b->next = p->blocks;
	p->blocks = b;
	p->cur = (char *)b + AN_LINE;
	p->end = (char *)b + n;
	p->block_bytes += n;
	return true;
}

void *an_pool_get_slow(struct an_pool *p)
{
	void *o;

	if (p->free) {
		o = p->free;
		memcpy(&p->free, o, sizeof(void *));
		memset(o, 0, p->size);
	} else {
		if ((size_t)(p->end - p->cur) < p->size && !pool_grow(p))
			return NULL;
		o = p->cur;
		p->cur += p->size;
		if (!p->zeroed)
			memset(o, 0, p->size);
	}
	p->live++;
	return o;
}

void *an_pool_take(struct an_pool *p)
{
	void *o;

	if (p->free) {
		o = p->free;
		memcpy(&p->free, o, sizeof(void *));
	} else {
		if ((size_t)(p->end - p->cur) < p->size && !pool_grow(p))
			return NULL;
		o = p->cur;
		p->cur += p->size;
	}
	p->live++;
	return o;
}

void an_pool_put(struct an_pool *p, void *o)
{
	if (!o || p->closing)
		return;         /* (closing: the blocks go anyway; the record stays untouched) */
	memcpy(o, &p->free, sizeof(void *));
	p->free = o;
	p->live--;
}

void an_pool_free(struct an_pool *p)
{
	struct an_block *b = p->blocks;

	while (b) {
		struct an_block *next = b->next;

		if (b->arena) {
			b = next;       /* (an_arena_free() releases it) */
			continue;
		}
#if defined(__linux__) && defined(MAP_ANONYMOUS)
		if (b->bytes) {
			(void)munmap(b, b->bytes);
			b = next;
			continue;
		}
#endif
		free(b);
		b = next;
	}
	p->blocks = NULL;
	p->free = NULL;
	p->cur = p->end = NULL;
	p->zeroed = false;
	p->live = 0;
	p->block_bytes = 0;
}
