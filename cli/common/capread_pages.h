/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * capread_pages.h - the page-only helper thread of a large mapped capture
 * file, and the reader's side of the mapping window (capread_pages.c).
 */
#ifndef ROCE_CAPREAD_PAGES_H
#define ROCE_CAPREAD_PAGES_H

#include "capread_int.h"

/* The page-only helper of a large mapped file: start (if the file is large
 * enough), stop (either helper: the one that works ahead too is stopped with
 * capr_ahead_stop()). */
void capr_pages_start(struct roce_capfile *c);
void capr_pages_stop(struct roce_capfile *c);

/* roce_cap_done(): either helper told to give back the whole mapping and end. */
void capr_pages_done(struct roce_capfile *c);

/* The reader crossed into another window: tell the helper, or do its work. */
void capr_map_moved(struct roce_capfile *c);

/* Mapped file: is the record ending at offset end intact? */
bool capr_map_rec_ok(struct roce_capfile *c, uint64_t end, size_t hdr);

/* A file just mapped and registered with the SIGBUS handler: the caller's side
 * of a cut set up (the sentinel, roce_capguard_watch(), check_from). */
void capr_map_watch(struct roce_capfile *c);

#endif /* ROCE_CAPREAD_PAGES_H */
