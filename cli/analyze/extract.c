/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * extract.c - roce-analyze --extract (see extract.h).
 *
 * A frame is kept when the analyzer reports an anomaly on it (a frame
 * result event of an anomalies.def row, or an on_anomaly callback naming
 * it), or when its result's ref_frame names a kept frame (the ACK of a
 * retransmitted request, a READ response).  Around a kept frame the
 * --context frames before it come from a ring of the last N unwritten
 * frames, and the N after it are written as they arrive.  Memory: the ring
 * (N copies, each at most one record) and the last RA_KEPT_CAP kept frame
 * numbers for the ref_frame links; nothing grows with the input.
 */
#define _POSIX_C_SOURCE 200809L

#include "extract.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#define RA_KEPT_CAP 65536u

/* The event bits of the anomaly rows of anomalies.def. */
static const uint32_t anomaly_events = 0u
#define ROCE_ANOMALY(sym, name, ev, counter, sev, grp, expert, help) | (uint32_t)ROCE_EV_##ev
#include <roce/anomalies.def>
	;

struct slot {
	uint8_t *data;
	uint32_t cap, caplen, wirelen;
	uint64_t ts_ns, no, local_no;
	const char *file;           /* the ra_file name: lives for the whole run */
};

struct ra_extract {
	roce_capwriter_t *w;
	int linktype;
	unsigned context;
	struct slot *ring;          /* context slots; [head, head + n) unwritten */
	unsigned head, n;
	unsigned after;             /* frames still to write after the last kept one */
	uint64_t mark;              /* frame an on_anomaly callback named (0 none) */
	uint64_t kept[RA_KEPT_CAP]; /* last kept frame numbers, increasing, ring */
	unsigned kept_head, kept_n;
	uint64_t written, skipped;
	int err;
};

static bool ends_with_pcap(const char *p)
{
	size_t n = strlen(p);

	return n >= 5 && g_ascii_strcasecmp(p + n - 5, ".pcap") == 0;
}

struct ra_extract *ra_extract_open(const char *path, int linktype, unsigned context,
				   char *errbuf)
{
	struct ra_extract *x = g_new0(struct ra_extract, 1);

	x->linktype = linktype;
	x->context = context;
	if (ends_with_pcap(path))
		x->w = roce_capw_open(path, linktype, ROCE_CAP_MAX_RECORD, 1, errbuf);
	else
		x->w = roce_capw_open_pcapng(path, linktype, ROCE_CAP_MAX_RECORD, errbuf);
	if (!x->w) {
		g_free(x);
		return NULL;
	}
	if (context)
		x->ring = g_new0(struct slot, context);
	return x;
}

void ra_extract_mark(struct ra_extract *x, uint64_t no)
{
	if (x)
		x->mark = no;
}

static bool kept_has(const struct ra_extract *x, uint64_t no)
{
	unsigned lo = 0, hi = x->kept_n;

	/* the ring holds increasing numbers: binary search over logical indexes */
	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;
		uint64_t v = x->kept[(x->kept_head + mid) % RA_KEPT_CAP];

		if (v == no)
			return true;
		if (v < no)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

static void kept_add(struct ra_extract *x, uint64_t no)
{
	if (x->kept_n == RA_KEPT_CAP) {
		x->kept_head = (x->kept_head + 1) % RA_KEPT_CAP;
		x->kept_n--;
	}
	x->kept[(x->kept_head + x->kept_n) % RA_KEPT_CAP] = no;
	x->kept_n++;
}

static int put(struct ra_extract *x, uint64_t ts_ns, const uint8_t *data, uint32_t caplen,
	       uint32_t wirelen, uint64_t local_no, const char *file)
{
	char comment[512];
	int r;

	snprintf(comment, sizeof(comment), "frame %" PRIu64 " of %s", local_no, file);
	r = roce_capw_write_comment(x->w, ts_ns, data, caplen, wirelen, comment);
	if (r == 0)
		x->written++;
	else if (!x->err)
		x->err = r;
	return r;
}

static void flush_ring(struct ra_extract *x)
{
	for (unsigned i = 0; i < x->n; i++) {
		struct slot *s = &x->ring[(x->head + i) % x->context];

		put(x, s->ts_ns, s->data, s->caplen, s->wirelen, s->local_no, s->file);
	}
	x->head = x->n = 0;
}

static void ring_push(struct ra_extract *x, uint64_t no, uint64_t local_no, const char *file,
		      const struct roce_cap_record *rec)
{
	struct slot *s;

	if (!x->context)
		return;
	if (x->n == x->context) {       /* full: the oldest falls out */
		x->head = (x->head + 1) % x->context;
		x->n--;
	}
	s = &x->ring[(x->head + x->n) % x->context];
	if (rec->caplen > s->cap) {     /* grows to the largest record seen, once per slot */
		s->data = g_realloc(s->data, rec->caplen);
		s->cap = rec->caplen;
	}
	if (rec->caplen)
		memcpy(s->data, rec->data, rec->caplen);
	s->caplen = rec->caplen;
	s->wirelen = rec->wirelen;
	s->ts_ns = rec->ts_ns;
	s->no = no;
	s->local_no = local_no;
	s->file = file;
	x->n++;
}

int ra_extract_frame(struct ra_extract *x, uint64_t no, uint64_t local_no, const char *file,
		     const struct roce_cap_record *rec, const struct roce_frame_result *res)
{
	bool keep;

	keep = x->mark == no || (res->events & anomaly_events) ||
	       (res->ref_frame && kept_has(x, res->ref_frame));
	x->mark = 0;
	if (rec->linktype != x->linktype) {
		/* the output has one link type (the first input's) */
		if (keep || x->after)
			x->skipped++;
		return x->err;
	}
	if (keep) {
		flush_ring(x);
		put(x, rec->ts_ns, rec->data, rec->caplen, rec->wirelen, local_no, file);
		kept_add(x, no);
		x->after = x->context;
	} else if (x->after) {
		put(x, rec->ts_ns, rec->data, rec->caplen, rec->wirelen, local_no, file);
		x->after--;
	} else {
		ring_push(x, no, local_no, file, rec);
	}
	return x->err;
}

int ra_extract_close(struct ra_extract *x, uint64_t *written, uint64_t *skipped)
{
	int r;

	if (!x)
		return 0;
	r = roce_capw_close(x->w);
	if (!r)
		r = x->err;
	if (written)
		*written = x->written;
	if (skipped)
		*skipped = x->skipped;
	for (unsigned i = 0; i < x->context; i++)
		g_free(x->ring[i].data);
	g_free(x->ring);
	g_free(x);
	return r;
}
