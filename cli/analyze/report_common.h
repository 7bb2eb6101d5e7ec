/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report_common.h - helpers shared by the output writers (report_*.c),
 * private to them; the driver includes report.h only.
 *
 * Frame numbers: the analyzer sees one global 1-based frame counter across
 * all input files; everything the user sees is mapped back to the file and
 * its own 1-based frame number (ra_frame_locate()).
 */
#ifndef ROCE_ANALYZE_REPORT_COMMON_H
#define ROCE_ANALYZE_REPORT_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include <glib.h>

#include "json.h"
#include "report.h"

#define RA_ADDR_LEN 64
#define RA_MAC_LEN 24

/* Global frame number -> file index and 1-based frame number in that file. */
unsigned ra_frame_locate(const struct ra_ctx *ctx, uint64_t global, uint64_t *local);

/* "frame" (per file) and, with several input files, "file" (the key file_key). */
void ra_json_frame_ref(const struct ra_ctx *ctx, struct jw *w, const char *key,
		       const char *file_key, uint64_t global);

/*
 * PFC / PAUSE entries are per capture interface (roce_analyzer_set_interface()); the output
 * names it only when the run's frames came from more than one (so the output of a
 * one-interface capture is what it was).  ra_json_iface(): "interface" (the run's number)
 * and "if_name" when the interface description has one; ra_iface_str(): the name (bytes
 * outside printable ASCII as '?'), or "if N" without one.
 */
static inline bool ra_show_iface(const struct ra_ctx *ctx)
{
	return ctx->n_ifaces > 1;
}
void ra_json_iface(const struct ra_ctx *ctx, struct jw *w, uint32_t iface);
void ra_iface_str(const struct ra_ctx *ctx, uint32_t iface, char *buf, size_t len);

/* Address as text (IPv4-mapped shown as a.b.c.d); buf holds RA_ADDR_LEN. */
void ra_addr_str(const uint8_t a[16], char *buf);
/* MAC as aa:bb:..., "-" for NULL; buf holds RA_MAC_LEN. */
void ra_mac_str(const uint8_t *m, char *buf);
/* ns -> "12.345" (us, 3 decimals) without floating point. */
void ra_us_str(uint64_t ns, char *buf, size_t len);
/* ns -> "1.234" (ms, 3 decimals). */
void ra_ms_str(uint64_t ns, char *buf, size_t len);
/* Signed ns -> "-0.000123" (s, 6 decimals). */
void ra_rel_str(int64_t ns, char *buf, size_t len);
/* Time since the run's first frame. */
int64_t ra_rel_ns(const struct ra_ctx *ctx, uint64_t ts);
/* ra_rel_ns() would not wrap (the two times are less than 292 years apart). */
bool ra_rel_ok(const struct ra_ctx *ctx, uint64_t ts);
/* Capture time as "YYYY-MM-DD HH:MM:SS.uuuuuu UTC". */
void ra_utc_str(uint64_t ts_ns, char *buf, size_t len);

/*
 * The PFC table in the analyzer's order (a copy, caller frees; at most
 * max_pfc rows).  Streams are not copied: with a million of them the copy
 * alone would take 600 MB, so the writers format each row inside
 * roce_analyzer_foreach_flow() (first-seen order, allocates nothing) and
 * take the number of streams from roce_summary.flows_active.
 */
struct ra_tables {
	GArray *pfc;    /* struct roce_pfc_stats */
};
void ra_tables_get(const struct ra_ctx *ctx, struct ra_tables *t);
void ra_tables_free(struct ra_tables *t);

#endif /* ROCE_ANALYZE_REPORT_COMMON_H */
