/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * capread_src.h - the capture reader's bottom layer (capread_src.c): errors
 * and warnings, length checks, a shrinking mapped file, stream input, the
 * mapping window, timestamps.
 */
#ifndef ROCE_CAPREAD_SRC_H
#define ROCE_CAPREAD_SRC_H

#include "capread_int.h"

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
int capr_fail(struct roce_capfile *c, int status, const char *fmt, ...);
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void capr_warn(struct roce_capfile *c, const char *fmt, ...);
uint32_t capr_check_lengths(struct roce_capfile *c, uint32_t caplen, uint32_t snaplen,
			    uint32_t wirelen);
int capr_fail_short(struct roce_capfile *c, const char *what, size_t got, size_t want);

/* Has the mapped file lost pages, or become shorter than the mapping? */
bool capr_map_shrunk(struct roce_capfile *c);
int capr_fail_shrank(struct roce_capfile *c);
/* The same, naming frame frame_no (a record handed out before, found cut). */
int capr_fail_shrank_at(struct roce_capfile *c, uint64_t frame_no);
/* Tests: ROCE_CAP_TEST_CUT_AT_FRAME (0: none), and the cut made after its record was
 * handed out. */
uint64_t capr_test_cut_config(void);
void capr_test_cut(struct roce_capfile *c, const struct roce_cap_record *rec);
/* The file cut at byte off through c's descriptor (the cut both readers make). */
void capr_test_truncate(struct roce_capfile *c, uint64_t off);


/* Slow path of src_need() (capread_rec.h): read more of the stream. */
const uint8_t *capr_stream_fill(struct roce_capfile *c, size_t n, size_t *avail);

/* The mapping window: populate the window at from; give back [released, upto). */
void capr_map_prefetch(struct roce_capfile *c, size_t from);
void capr_map_release_upto(struct roce_capfile *c, size_t upto);
void capr_map_keep_set(struct roce_capfile *c);

bool capr_iface_ts(const struct cap_iface *ifc, uint64_t ticks, uint64_t *ns);
void capr_ts_out_of_range(struct roce_capfile *c, struct roce_cap_record *rec);

#endif /* ROCE_CAPREAD_SRC_H */
