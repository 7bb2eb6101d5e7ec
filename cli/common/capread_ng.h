/* SPDX-License-Identifier: GPL-2.0-or-later */
/* capread_ng.h - pcapng records (capread_ng.c). */
#ifndef ROCE_CAPREAD_NG_H
#define ROCE_CAPREAD_NG_H

#include "capread_int.h"

/* pcapng: the next record; prescan: only count, rec unused */
int capr_ng_next(struct roce_capfile *c, struct roce_cap_record *rec, bool prescan);

/*
 * The read() reader's runs (capread_rbuf.c): the length of the block at p (avail bytes
 * there) with its padding, read in the current section's byte order, when it lies whole
 * within avail and capr_ng_next() takes it without reading on (not a section header
 * block, 12 bytes to ROCE_CAP_MAX_RECORD), else 0; *packet: the block is an EPB, SPB or
 * OPB (avail >= 8).  Nothing is checked beyond that: capr_ng_next() reads the block.
 */
uint32_t capr_ng_block_len(const struct roce_capfile *c, const uint8_t *p, size_t avail,
			   bool *packet);

#endif /* ROCE_CAPREAD_NG_H */
