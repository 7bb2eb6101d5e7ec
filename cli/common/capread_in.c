/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * capread_in.c - stream input of the capture reader: read() of a pipe, stdin
 * or a compressed file into the input buffer c->in, for the gzip inflater
 * (capread_src.c) and the zstd and lz4 decoders (capread_z.c).
 */
#include "capread_in.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void capr_src_error(struct roce_capfile *c, int status, const char *msg)
{
	c->src_status = status;
	snprintf(c->src_err, sizeof(c->src_err), "%s", msg);
}

/*
 * The input buffer is GZ_BUFFER bytes.  A regular file smaller than that (a
 * compressed capture, or the fuzz targets' inputs) first gets one byte more
 * than its size, so that the read() that finds its end has room as with the
 * full buffer; should the file grow and fill it, it grows to GZ_BUFFER.
 * Every read() therefore returns what it would with the full buffer, and an
 * input of a few KiB costs no 128 KiB block (a mapping of its own under
 * ASan, per input).
 */
static bool in_room(struct roce_capfile *c)
{
	size_t ncap;
	uint8_t *p;

	if (c->in && (c->in_len < c->in_cap || c->in_cap == GZ_BUFFER))
		return true;
	ncap = GZ_BUFFER;
	if (!c->in && c->file_size && c->file_size < GZ_BUFFER - 1)
		ncap = (size_t)c->file_size + 1;
	p = realloc(c->in, ncap);
	if (!p) {
		capr_src_error(c, ROCE_E_NOMEM, "out of memory");
		return false;
	}
	c->in = p;
	c->in_cap = ncap;
	return true;
}

/* More input: keep the unconsumed bytes, read after them.  >0 read, 0 EOF, <0 error. */
int capr_in_fill(struct roce_capfile *c)
{
	ssize_t r;

	if (c->in_eof)
		return 0;
	if (c->in_pos) {
		memmove(c->in, c->in + c->in_pos, c->in_len - c->in_pos);
		c->in_len -= c->in_pos;
		c->in_pos = 0;
	}
	if (!in_room(c))
		return -1;
	for (;;) {
		r = read(c->fd, c->in + c->in_len, c->in_cap - c->in_len);
		if (r >= 0)
			break;
		if (errno == EINTR) {
			if (c->intr && *c->intr) {
				capr_src_error(c, ROCE_CAP_E_INTR, "interrupted");
				return -1;
			}
			continue;
		}
		c->src_status = ROCE_CAP_E_IO;
		snprintf(c->src_err, sizeof(c->src_err), "read error: %s", strerror(errno));
		return -1;
	}
	if (r == 0) {
		c->in_eof = true;
		return 0;
	}
	c->in_len += (size_t)r;
	c->in_read += (uint64_t)r;
	return 1;
}
