// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * report_common.c - what roce-analyze's output writers share: frame numbers
 * mapped back to files, address/MAC/time formatting, the stream and PFC
 * table collected from the analyzer (streams are not copied: the writers
 * format each one as roce_analyzer_foreach_flow() hands it over).
 *
 * Pure formatting: every number comes from libroce.  Output is stable: no
 * wall-clock time, absolute times are the capture's, in UTC.
 */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <stdio.h>
#include <time.h>

#include <glib.h>

#include <roce/analyzer.h>
#include <roce/pkt.h>

#include "report_common.h"

unsigned ra_frame_locate(const struct ra_ctx *c, uint64_t global, uint64_t *local)
{
	unsigned i = c->n_files ? c->n_files - 1 : 0;

	while (i > 0 && (!c->files[i].opened || c->files[i].base >= global))
		i--;
	if (local)
		*local = global >= c->files[i].base ? global - c->files[i].base : global;
	return i;
}

void ra_addr_str(const uint8_t a[16], char *buf)
{
	roce_addr_str(a, buf, RA_ADDR_LEN);
}

void ra_mac_str(const uint8_t *m, char *buf)
{
	if (m)
		roce_mac_str(m, buf, RA_MAC_LEN);
	else
		snprintf(buf, RA_MAC_LEN, "-");
}

/* ns -> "12.345" (µs, 3 decimals) without floating point. */
void ra_us_str(uint64_t ns, char *buf, size_t len)
{
	snprintf(buf, len, "%" PRIu64 ".%03" PRIu64, ns / 1000, ns % 1000);
}

/* ns -> "1.234" (ms, 3 decimals). */
void ra_ms_str(uint64_t ns, char *buf, size_t len)
{
	snprintf(buf, len, "%" PRIu64 ".%03" PRIu64, ns / 1000000, ns / 1000 % 1000);
}

/* Signed ns -> "-0.000123" (s, 6 decimals). */
void ra_rel_str(int64_t ns, char *buf, size_t len)
{
	uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;

	snprintf(buf, len, "%s%" PRIu64 ".%06" PRIu64, ns < 0 ? "-" : "",
		 a / UINT64_C(1000000000), a / 1000 % 1000000);
}

int64_t ra_rel_ns(const struct ra_ctx *ctx, uint64_t ts)
{
	return (int64_t)(ts - ctx->first_ts_ns);
}

bool ra_rel_ok(const struct ra_ctx *ctx, uint64_t ts)
{
	uint64_t d = ts >= ctx->first_ts_ns ? ts - ctx->first_ts_ns : ctx->first_ts_ns - ts;

	return d <= (uint64_t)INT64_MAX;
}

void ra_utc_str(uint64_t ts_ns, char *buf, size_t len)
{
	time_t t = (time_t)(ts_ns / 1000000000ull);
	struct tm tm;
	char d[32];

	if (!gmtime_r(&t, &tm) || !strftime(d, sizeof(d), "%Y-%m-%d %H:%M:%S", &tm)) {
		snprintf(buf, len, "?");
		return;
	}
	snprintf(buf, len, "%s.%06" PRIu64 " UTC", d, ts_ns / 1000 % 1000000);
}

static int collect_pfc(void *user, const struct roce_pfc_stats *p)
{
	g_array_append_vals(((struct ra_tables *)user)->pfc, p, 1);
	return 0;
}

void ra_tables_get(const struct ra_ctx *ctx, struct ra_tables *t)
{
	t->pfc = g_array_new(FALSE, FALSE, sizeof(struct roce_pfc_stats));
	roce_analyzer_foreach_pfc(ctx->an, collect_pfc, t);
}

void ra_tables_free(struct ra_tables *t)
{
	g_array_free(t->pfc, TRUE);
}

/* "frame" (per file) and, with several input files, "file". */
void ra_json_iface(const struct ra_ctx *ctx, struct jw *w, uint32_t iface)
{
	jw_u64(w, "interface", iface);
	if (iface < ctx->n_ifaces && ctx->ifaces[iface].name)
		jw_str(w, "if_name", ctx->ifaces[iface].name);
}

void ra_iface_str(const struct ra_ctx *ctx, uint32_t iface, char *buf, size_t len)
{
	const char *n = iface < ctx->n_ifaces ? ctx->ifaces[iface].name : NULL;
	size_t i;

	if (!len)
		return;
	if (!n || !n[0]) {
		snprintf(buf, len, "if %" PRIu32, iface);
		return;
	}
	for (i = 0; n[i] && i + 1 < len; i++)
		buf[i] = n[i] >= 0x20 && n[i] < 0x7f ? n[i] : '?';
	buf[i] = '\0';
}

void ra_json_frame_ref(const struct ra_ctx *ctx, struct jw *w, const char *key,
		       const char *file_key, uint64_t global)
{
	uint64_t local;
	unsigned fi = ra_frame_locate(ctx, global, &local);

	jw_u64(w, key, local);
	if (ctx->o.n_files > 1)
		jw_str(w, file_key, ctx->files[fi].name);
}
