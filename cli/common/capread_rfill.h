/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * capread_rfill.h - the bytes of a file read with read() into one reused
 * buffer (capread_rfill.c): under the record parsers of both formats
 * (capread_rbuf.c: classic pcap, capread_ng.c through src_need(): pcapng).
 */
#ifndef ROCE_CAPREAD_RFILL_H
#define ROCE_CAPREAD_RFILL_H

#include "capread_int.h"

/*
 * Make need bytes from lo addressable: the part [lo, hi) moved into the
 * slack, the file read after it (at least bufsize bytes, up to the file's
 * size at the switch).  Returns 0 (c->src_status set on a read error or an
 * interrupt, eof when the read came short), or -1 out of memory (nothing
 * changed, c->src_status ROCE_E_NOMEM).
 */
int capr_rbuf_read(struct roce_capfile *c, size_t need);

/* The slow path of src_need() (capread_rec.h) for a file read so. */
const uint8_t *capr_rbuf_need(struct roce_capfile *c, size_t n, size_t *avail);

/* Has the file become shorter than it was at the switch? */
bool capr_rbuf_shrunk(struct roce_capfile *c);

#endif /* ROCE_CAPREAD_RFILL_H */
