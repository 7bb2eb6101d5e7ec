/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tx_umem.h - the xdp engine's UMEM space: a ring of bytes (header-only, so
 * the unit test reaches it without an AF_XDP socket).
 *
 * A frame takes the bytes at the ring's head, its start aligned to align
 * (64 with unaligned chunks, the chunk size without), never across a page:
 * small frames share pages.  Frames are given back by the address the
 * completion ring returns; the ring's tail moves past them in the order they
 * were taken, so one given back early waits, marked, until the older ones
 * are.  With nothing outstanding head and tail go back to the start, so a
 * sender whose frames the kernel completes within a kick writes the same
 * few pages again and again.  Positions are byte counts that only grow (the
 * UMEM offset is the position modulo the size, a multiple of the page).
 */
#ifndef ROCE_TX_UMEM_H
#define ROCE_TX_UMEM_H

#include <stdint.h>

#define ROCE_UMEM_PAGE 4096u
/* Frames outstanding at most (TX ring plus completion ring: 2 x 2048). */
#define ROCE_UMEM_FIFO 4096u
/* Bytes one frame of up to a page may take at most: itself plus padding to a page start. */
#define ROCE_UMEM_WORST (2 * ROCE_UMEM_PAGE)

/* One frame taken and not yet given back, in the order taken. */
struct roce_umem_out {
	uint64_t end;        /* ring position after its bytes (and its padding) */
	uint32_t addr;       /* UMEM offset */
	uint32_t done;       /* given back before an older one */
};

struct roce_umem_ring {
	uint64_t head, tail; /* positions: next free byte, oldest byte in use */
	uint32_t size;       /* bytes, a multiple of ROCE_UMEM_PAGE */
	uint32_t align;      /* power of two, at most ROCE_UMEM_PAGE */
	unsigned out_head, out_tail;   /* FIFO of struct roce_umem_out, free-running */
	struct roce_umem_out out[ROCE_UMEM_FIFO];
};

static inline void roce_umem_init(struct roce_umem_ring *r, uint32_t size, uint32_t align)
{
	r->head = r->tail = 0;
	r->size = size;
	r->align = align;
	r->out_head = r->out_tail = 0;
}

/* Frames taken and not yet retired. */
static inline unsigned roce_umem_outstanding(const struct roce_umem_ring *r)
{
	return r->out_head - r->out_tail;
}

/* How many frames of at most a page each fit now for sure. */
static inline unsigned roce_umem_room(const struct roce_umem_ring *r)
{
	uint64_t bytes = (r->size - (r->head - r->tail)) / ROCE_UMEM_WORST;
	unsigned slots = ROCE_UMEM_FIFO - roce_umem_outstanding(r);

	return bytes < slots ? (unsigned)bytes : slots;
}

/* UMEM offset for a frame of len (1..ROCE_UMEM_PAGE) bytes; roce_umem_room() said it fits. */
static inline uint32_t roce_umem_take(struct roce_umem_ring *r, uint32_t len)
{
	uint64_t pos = r->head;
	uint32_t in_pg = (uint32_t)(pos % ROCE_UMEM_PAGE);
	uint32_t size = (len + r->align - 1) & ~(r->align - 1);
	struct roce_umem_out *o;

	if (in_pg + size > ROCE_UMEM_PAGE)
		pos += ROCE_UMEM_PAGE - in_pg;          /* never across a page */
	r->head = pos + size;
	o = &r->out[r->out_head++ % ROCE_UMEM_FIFO];
	o->end = r->head;
	o->addr = (uint32_t)(pos % r->size);
	o->done = 0;
	return o->addr;
}

/* Retire given-back frames at the FIFO's tail; back to the start when none is left. */
static inline void roce_umem_retire(struct roce_umem_ring *r)
{
	while (r->out_tail != r->out_head && r->out[r->out_tail % ROCE_UMEM_FIFO].done) {
		r->tail = r->out[r->out_tail % ROCE_UMEM_FIFO].end;
		r->out_tail++;
	}
	if (r->out_tail == r->out_head)
		r->head = r->tail = 0;
}

/*
 * The frame at addr is given back (call roce_umem_retire() after a run of these).
 * 1, or 0 when no outstanding frame has that address (ignored).
 */
static inline int roce_umem_give(struct roce_umem_ring *r, uint32_t addr)
{
	struct roce_umem_out *o = &r->out[r->out_tail % ROCE_UMEM_FIFO];

	if (r->out_tail != r->out_head && o->addr == addr && !o->done) {
		/* the oldest one: the usual order */
		r->tail = o->end;
		r->out_tail++;
		return 1;
	}
	for (unsigned k = r->out_tail; k != r->out_head; k++) {
		o = &r->out[k % ROCE_UMEM_FIFO];
		if (o->addr == addr && !o->done) {
			o->done = 1;
			return 1;
		}
	}
	return 0;
}

#endif /* ROCE_TX_UMEM_H */
