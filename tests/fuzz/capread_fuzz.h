/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * capread_fuzz.h - shared by the capture reader's two fuzz targets
 * (fuzz_capread.c: the single-threaded paths; fuzz_capread_paths.c: the
 * helper thread, the read() buffer, amplified inputs): a path's summary
 * (records, a hash of every field and byte, the end status and its message),
 * the checks every record and every end must pass, and the comparison with
 * the memory path.  Static functions, included by one target each.
 */
#ifndef ROCE_CAPREAD_FUZZ_H
#define ROCE_CAPREAD_FUZZ_H

#define _GNU_SOURCE
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "capread.h"

struct summary {
	uint64_t n, hash, last;
	int status;
	char err[1024];
};

/*
 * The helper's work (roce_cap_set_ahead()) for the mapped path with the helper
 * thread: a byte that depends on the record, never 0.  A record handed out with
 * a helper's byte must carry exactly this one, whatever the helper guessed about
 * record boundaries when it leapt ahead (capread_ahead.c).
 */
static uint8_t ahead_byte(void *user, const struct roce_cap_record *r)
{
	uint32_t h = r->caplen * 2654435761u ^ r->wirelen;

	(void)user;
	if (r->caplen)
		h ^= (uint32_t)r->data[0] << 8 ^ r->data[r->caplen - 1];
	return (uint8_t)(1 + h % 255);
}

/* One record: the checks every path must pass, folded into the summary. */
static uint64_t take(roce_capfile_t *c, const struct roce_cap_record *rp, struct summary *s,
		     uint64_t h)
{
	const struct roce_cap_record r = *rp;
	uint64_t done, total;

	/* frame numbers grow (pcapng custom/journal blocks are numbered, not delivered) */
	if (r.caplen > r.wirelen || r.caplen > ROCE_CAP_MAX_RECORD || r.frame_no <= s->last ||
	    ((r.flags & ROCE_CAP_REC_NO_TS) && r.ts_ns))
		abort();
	s->last = r.frame_no;
	if (r.ahead && r.ahead != ahead_byte(NULL, &r))
		abort();
	/* touch every byte: ASan catches reads outside the input */
	for (uint32_t i = 0; i < r.caplen; i++)
		h = (h ^ r.data[i]) * 1099511628211ull;
	/* (ROCE_CAP_REC_RECHECK: a mapped file's last page, not in memory) */
	h = (h ^ r.ts_ns ^ r.wirelen ^ (uint64_t)r.linktype << 32 ^ r.ifindex ^
	     r.frame_no << 40 ^ (uint64_t)(r.flags & ~ROCE_CAP_REC_RECHECK) << 56) *
	    1099511628211ull;
	s->n++;
	roce_cap_progress(c, &done, &total);
	if (total && done > total)
		abort();
	return h;
}

/* batch 0: roce_cap_next(); else roce_cap_next_batch() with runs of at most batch */
static void drain(roce_capfile_t *c, const char *openerr, struct summary *s, unsigned batch)
{
	struct roce_cap_record r, recs[16];
	uint64_t h = 1469598103934665603ull;
	int st;

	memset(s, 0, sizeof(*s));
	if (!c) {
		s->status = 1;
		snprintf(s->err, sizeof(s->err), "%s", openerr);
		if (strchr(openerr, '\n') || strncmp(openerr, "fuzz", 4) != 0)
			abort();
		return;
	}
	(void)roce_cap_format(c);
	(void)roce_cap_linktype(c);
	if (!batch) {
		while ((st = roce_cap_next(c, &r)) == 1)
			h = take(c, &r, s, h);
	} else {
		while ((st = roce_cap_next_batch(c, recs, batch)) > 0) {
			if ((unsigned)st > batch)
				abort();
			/* every record of the run stays valid until the next call */
			for (int i = 0; i < st; i++)
				h = take(c, &recs[i], s, h);
		}
	}
	s->status = st;
	/* warnings: counted, one line, naming the input */
	if (roce_cap_warnings(c) && (strncmp(roce_cap_warning(c), "fuzz", 4) != 0 ||
				     strchr(roce_cap_warning(c), '\n')))
		abort();
	h = (h ^ roce_cap_warnings(c)) * 1099511628211ull;
	s->hash = h;
	snprintf(s->err, sizeof(s->err), "%s", roce_cap_error(c));
	if (roce_cap_next(c, &r) != st || strcmp(roce_cap_error(c), s->err) != 0)
		abort(); /* errors and EOF are sticky */
	if (st < 0 && (strncmp(s->err, "fuzz", 4) != 0 || strchr(s->err, '\n')))
		abort();
	roce_cap_close(c);
}

/* The bytes in a memory file (a regular file to the reader: it maps it), or -1. */
static int memfd_of(const uint8_t *data, size_t size)
{
	int fd = memfd_create("fuzz", MFD_CLOEXEC);

	if (fd >= 0 && size && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Another path's summary s must be exactly the memory path's (mem). */
static void same_as_mem(const struct summary *mem, const struct summary *s, const char *what)
{
	if (s->n != mem->n || s->hash != mem->hash || s->status != mem->status ||
	    strcmp(s->err, mem->err) != 0) {
		fprintf(stderr, "mem/%s mismatch:\n  %s\n  %s\n", what, mem->err, s->err);
		abort();
	}
}

/* gzip, zstd or lz4 by its magic (capread_z.c): read through the stream path only */
static bool compressed(const uint8_t *data, size_t size)
{
	return (size >= 2 && data[0] == 0x1f && data[1] == 0x8b) ||
	       (size >= 4 && data[0] == 0x28 && data[1] == 0xb5 && data[2] == 0x2f &&
		data[3] == 0xfd) ||
	       (size >= 4 && data[0] == 0x04 && data[1] == 0x22 && data[2] == 0x4d &&
		data[3] == 0x18);
}

#endif
