/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * capread_rbuf.h - a regular pcap or pcapng file read with read() into one
 * reused buffer instead of through the mapping (capread_rbuf.c), the ICRC
 * verdicts of each buffer's records computed while it is in the caches.
 */
#ifndef ROCE_CAPREAD_RBUF_H
#define ROCE_CAPREAD_RBUF_H

#include "capread.h"

#include <stddef.h>
#include <stdint.h>

/*
 * Read the file opened by roce_cap_open() with read() into one reused buffer
 * of ROCE_CAP_READ_BUF_DEFAULT bytes (a record that spans its end is copied
 * before the next buffer's bytes; a larger record grows it to that record),
 * instead of through its mapping and the page helper.  After each read() the
 * reader walks the buffer's records and leaves fn's byte for each (pcapng:
 * as it reads each record; records shorter than min_caplen: 0), which
 * roce_cap_next() and roce_cap_next_batch() hand out in rec->ahead as they
 * hand out roce_cap_set_ahead()'s helper's
 * (fn may be NULL: no bytes).  Records, numbers, flags, warnings and errors
 * are those of the mapping (a file that shrinks: "file shrank while being
 * read", naming the first record not read whole).  Only a pcap or pcapng
 * file that was mapped, before its first record is read, without a helper
 * (roce_cap_set_ahead()); with min_mean nonzero, only when the mean record
 * (header and captured bytes; pcapng: the first whole blocks' bytes over their
 * packet blocks) of the file's first records is at least min_mean bytes.
 * Returns 1 when the file is now read so, else 0 (nothing changed).  Runs of
 * records end at the buffer's end; pcapng: a run holds the records of whole
 * packet blocks, of one link type, with no flags after its first (as
 * roce_cap_next_batch() says of classic pcap).
 *
 * Tests and tuning: ROCE_CAP_READ_BUF=BYTES (the buffer; 0: never read so)
 * and ROCE_CAP_READ_MEAN=BYTES (instead of the caller's min_mean).
 */
#define ROCE_CAP_READ_BUF_DEFAULT (256u << 10)
int roce_cap_set_read_buffer(roce_capfile_t *c, roce_cap_ahead_fn fn, void *user,
			     uint32_t min_caplen, uint32_t min_mean);

/* The reader's side (capread_open.c): roce_cap_next_batch() (and roce_cap_next(), max 1),
 * roce_cap_peek() and the close of a file read so. */
int capr_rbuf_next(roce_capfile_t *c, struct roce_cap_record *recs, unsigned max);
int capr_rbuf_peek(const roce_capfile_t *c, const uint8_t **data, uint32_t *caplen);
void capr_rbuf_free(roce_capfile_t *c);

#endif /* ROCE_CAPREAD_RBUF_H */
