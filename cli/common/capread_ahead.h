/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * capread_ahead.h - the capture reader's helper threads (capread_ahead.c):
 * the page-only helper of a large mapped file, or the helper that also walks
 * the records ahead of the reader (roce_cap_set_ahead()); and the reader's
 * side of the mapping window.
 */
#ifndef ROCE_CAPREAD_AHEAD_H
#define ROCE_CAPREAD_AHEAD_H

#include "capread_int.h"

#define CAP_HELPER_AHEAD 3u             /* windows populated ahead */

/* The page-only helper of a large mapped file: start (if the file is large
 * enough), stop (either helper). */
void capr_pages_start(struct roce_capfile *c);
void capr_pages_stop(struct roce_capfile *c);

/* The reader crossed into another window: tell the helper, or do its work. */
void capr_map_moved(struct roce_capfile *c);

/* Mapped file: is the record ending at offset end intact? */
bool capr_map_rec_ok(struct roce_capfile *c, uint64_t end, size_t hdr);

/* work ahead of the reader */
bool capr_ahead_start(struct roce_capfile *c);   /* false: no helper thread */
void capr_ahead_stop(struct roce_capfile *c);    /* join the thread, free the state */
uint8_t capr_ahead_take(struct roce_capfile *c); /* the byte for the record just read */
bool capr_ahead_fault_reached(const struct roce_capfile *c, uint64_t end, size_t hdr);

#endif /* ROCE_CAPREAD_AHEAD_H */
