/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * capread_rfill.c - the bytes of a regular file read with pread() into one
 * reused buffer (roce_cap_set_read_buffer(), capread_rbuf.c), under both
 * formats' records: capread_rbuf.c walks classic pcap records over them,
 * capread_ng.c reads pcapng blocks through src_need() (capread_rec.h), whose
 * slow path is capr_rbuf_need().  The part of a record or block at a
 * buffer's end is copied into the slack just before the room and the file is
 * read after it: bufsize bytes, or more for a larger record (the room grows
 * to it; the slack grows to the largest part left at a buffer's end; both
 * bounded by the parsers' record limit).  The file is never read past its
 * size at the switch (the mapping's length); read short of it, it shrank.
 */
#define _GNU_SOURCE
#include "capread_rfill.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define RB_SLACK_MIN (16u << 10)        /* a jumbo frame's part without growing */
#define RB_ALIGN 4096u

static size_t round_up(size_t n, size_t a)
{
	return (n + a - 1) / a * a;
}

bool capr_rbuf_shrunk(struct roce_capfile *c)
{
	struct stat st;

	return fstat(c->fd, &st) == 0 && (uint64_t)st.st_size < c->rb->size;
}

int capr_rbuf_read(struct roce_capfile *c, size_t need)
{
	struct cap_rbuf *rb = c->rb;
	size_t part = (size_t)(rb->hi - rb->lo), want, got = 0;
	size_t slack = rb->slack, room = rb->room;

	want = need > part && need - part > rb->bufsize ? need - part : rb->bufsize;
	if (part > slack || !slack)
		slack = round_up(part > RB_SLACK_MIN ? part : RB_SLACK_MIN, RB_ALIGN);
	if (want > room)
		room = round_up(want, RB_ALIGN);
	if (slack != rb->slack || room != rb->room) {
		void *m = NULL;

		if (posix_memalign(&m, RB_ALIGN, slack + room) != 0) {
			c->src_status = ROCE_E_NOMEM;
			snprintf(c->src_err, sizeof(c->src_err), "out of memory");
			return -1;
		}
		if (part)
			memcpy((uint8_t *)m + slack - part, rb->lo, part);
		free(rb->mem);
		rb->mem = m;
		rb->slack = slack;
		rb->room = room;
	} else {
		memmove(rb->mem + slack - part, rb->lo, part);
	}
	rb->lo = rb->wend = rb->mem + slack - part;
	if (rb->size - rb->rd_off < want)
		want = (size_t)(rb->size - rb->rd_off);
	while (got < want) {
		ssize_t r = pread(c->fd, rb->mem + slack + got, want - got,
				  (off_t)(rb->rd_off + got));

		if (r > 0) {
			got += (size_t)r;
			continue;
		}
		if (r == 0)
			break;
		if (errno == EINTR) {
			if (c->intr && *c->intr) {
				c->src_status = ROCE_CAP_E_INTR;
				snprintf(c->src_err, sizeof(c->src_err), "interrupted");
				break;
			}
			continue;
		}
		c->src_status = ROCE_CAP_E_IO;
		snprintf(c->src_err, sizeof(c->src_err), "read error: %s", strerror(errno));
		break;
	}
	rb->hi = rb->mem + slack + got;
	rb->rd_off += got;
	if (got < want || rb->rd_off == rb->size)
		rb->eof = true;
	return 0;
}

/*
 * n bytes from lo, read on while they are not there and the file goes on; else
 * NULL with *avail the bytes there (the parser reports a short block, or the caller
 * a file that shrank, or the read error in c->src_status).
 */
const uint8_t *capr_rbuf_need(struct roce_capfile *c, size_t n, size_t *avail)
{
	struct cap_rbuf *rb = c->rb;

	for (;;) {
		size_t a = (size_t)(rb->hi - rb->lo);

		if (a >= n)
			return rb->lo;
		if (rb->eof || c->src_status) {
			*avail = a;
			return NULL;
		}
		capr_rbuf_read(c, n);
	}
}
