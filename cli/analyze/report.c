// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * report.c - roce-analyze output: the human report, the JSON document,
 * the per-QP CSV table and the --frames lines (text and JSON Lines).
 *
 * Pure formatting: every number comes from libroce (roce_analyzer_summary,
 * _foreach_flow, _foreach_pfc, the anomaly callback, struct roce_pkt and
 * struct roce_frame_result).  Output is stable: no wall-clock time, absolute
 * times are the capture's, in UTC.  JSON keys are documented in docs/json.md.
 */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <glib.h>

#include <roce/analyzer.h>
#include <roce/icrc.h>
#include <roce/opcode.h>
#include <roce/pkt.h>

#include "analyze.h"
#include "json.h"

#define ADDR_LEN 64
#define MAC_LEN 24

/* ---- names (output vocabulary, not analysis) ------------------------------ */

static const struct {
	uint32_t bit;
	const char *name;
} event_names[] = {
	{ ROCE_EV_PSN_GAP, "psn_gap" },
	{ ROCE_EV_DUPLICATE, "duplicate" },
	{ ROCE_EV_OUT_OF_ORDER, "out_of_order" },
	{ ROCE_EV_RETRANSMISSION, "retransmission" },
	{ ROCE_EV_NAK, "nak" },
	{ ROCE_EV_RNR_NAK, "rnr_nak" },
	{ ROCE_EV_ECN_CE, "ecn_ce" },
	{ ROCE_EV_CNP, "cnp" },
	{ ROCE_EV_ACK_RTT, "ack_rtt" },
	{ ROCE_EV_READ_FIRST_RESP, "read_first_resp" },
	{ ROCE_EV_READ_LAST_RESP, "read_last_resp" },
	{ ROCE_EV_PFC, "pfc" },
	{ ROCE_EV_PFC_XON, "pfc_xon" },
	{ ROCE_EV_PFC_STORM, "pfc_storm" },
	{ ROCE_EV_PAUSE, "pause" },
	{ ROCE_EV_GBN_RECOVERED, "gbn_recovered" },
	{ ROCE_EV_ICRC_BAD, "icrc_bad" },
	{ ROCE_EV_MALFORMED, "malformed" },
};

/* JSON keys for enum roce_nak_code. */
static const char *const nak_code_keys[5] = {
	"psn_seq_err", "invalid_req", "remote_access", "remote_op", "invalid_rd_req"
};

static const char *icrc_name(enum roce_icrc_status s)
{
	switch (s) {
	case ROCE_ICRC_OK: return "ok";
	case ROCE_ICRC_BAD: return "bad";
	default: return "unverified";
	}
}

static void addr_str(const uint8_t a[16], char *buf)
{
	roce_addr_str(a, buf, ADDR_LEN);
}

static void mac_str(const uint8_t *m, char *buf)
{
	if (m)
		roce_mac_str(m, buf, MAC_LEN);
	else
		snprintf(buf, MAC_LEN, "-");
}

/* ns -> "12.345" (µs, 3 decimals) without floating point. */
static void us_str(uint64_t ns, char *buf, size_t len)
{
	snprintf(buf, len, "%" PRIu64 ".%03" PRIu64, ns / 1000, ns % 1000);
}

/* ns -> "1.234" (ms, 3 decimals). */
static void ms_str(uint64_t ns, char *buf, size_t len)
{
	snprintf(buf, len, "%" PRIu64 ".%03" PRIu64, ns / 1000000, ns / 1000 % 1000);
}

/* Signed ns -> "-0.000123" (s, 6 decimals). */
static void rel_str(int64_t ns, char *buf, size_t len)
{
	uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;

	snprintf(buf, len, "%s%" PRIu64 ".%06" PRIu64, ns < 0 ? "-" : "",
		 a / UINT64_C(1000000000), a / 1000 % 1000000);
}

static int64_t rel_ns(const struct ra_ctx *ctx, uint64_t ts)
{
	return (int64_t)(ts - ctx->first_ts_ns);
}

static void utc_str(uint64_t ts_ns, char *buf, size_t len)
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

bool ra_anomaly_occurred(const struct ra_ctx *ctx, const struct roce_summary *s,
			 enum roce_anomaly_type t)
{
	uint64_t n = 0;

	switch (t) {
	case ROCE_AN_ICRC: n = s->icrc_bad; break;
	case ROCE_AN_MALFORMED: n = s->malformed; break;
	case ROCE_AN_PSN_GAP: n = s->psn_gaps; break;
	case ROCE_AN_DUPLICATE: n = s->duplicates; break;
	case ROCE_AN_OUT_OF_ORDER: n = s->out_of_order; break;
	case ROCE_AN_RETRANSMISSION: n = s->retransmissions; break;
	case ROCE_AN_NAK: n = s->naks; break;
	case ROCE_AN_RNR_NAK: n = s->rnr_naks; break;
	case ROCE_AN_CNP: n = s->cnps; break;
	case ROCE_AN_ECN_CE: n = s->ecn_ce; break;
	case ROCE_AN_PFC_STORM: n = s->pfc_storms; break;
	case ROCE_AN_UNRECOVERED: n = s->unrecovered_psns; break;
	case ROCE_AN_FLOW_EVICTED: n = s->evicted_flows + s->evicted_pfc; break;
	default: break;
	}
	return n || ((unsigned)t < ROCE_AN_COUNT && ctx->anom_counts[t]);
}

/* ---- collecting the tables ------------------------------------------------ */

struct tables {
	GArray *flows;  /* struct roce_flow_stats */
	GArray *pfc;    /* struct roce_pfc_stats */
};

static int collect_flow(void *user, const struct roce_flow_stats *f)
{
	g_array_append_vals(((struct tables *)user)->flows, f, 1);
	return 0;
}

static int collect_pfc(void *user, const struct roce_pfc_stats *p)
{
	g_array_append_vals(((struct tables *)user)->pfc, p, 1);
	return 0;
}

static void tables_get(const struct ra_ctx *ctx, struct tables *t)
{
	t->flows = g_array_new(FALSE, FALSE, sizeof(struct roce_flow_stats));
	t->pfc = g_array_new(FALSE, FALSE, sizeof(struct roce_pfc_stats));
	roce_analyzer_foreach_flow(ctx->an, collect_flow, t);
	roce_analyzer_foreach_pfc(ctx->an, collect_pfc, t);
}

static void tables_free(struct tables *t)
{
	g_array_free(t->flows, TRUE);
	g_array_free(t->pfc, TRUE);
}

/* ---- text tables ---------------------------------------------------------- */

#define TBL_MAX_COLS 20

struct tbl {
	unsigned ncols;
	const char *hdr[TBL_MAX_COLS];
	bool left[TBL_MAX_COLS];    /* left-aligned column */
	GPtrArray *cells;           /* row-major, owned strings */
};

static void tbl_init(struct tbl *t, const char *spec)
{
	/* spec: "<NAME|>NAME|..." ('<' left, '>' right aligned) */
	gchar **cols = g_strsplit(spec, "|", TBL_MAX_COLS);

	memset(t, 0, sizeof(*t));
	for (unsigned i = 0; cols[i] && i < TBL_MAX_COLS; i++) {
		t->left[i] = cols[i][0] == '<';
		t->hdr[i] = g_intern_string(cols[i] + 1);
		t->ncols++;
	}
	g_strfreev(cols);
	t->cells = g_ptr_array_new_with_free_func(g_free);
}

static void tbl_cell(struct tbl *t, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
static void tbl_cell(struct tbl *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	g_ptr_array_add(t->cells, g_strdup_vprintf(fmt, ap));
	va_end(ap);
}

static void tbl_print(struct tbl *t, FILE *f)
{
	size_t w[TBL_MAX_COLS];
	unsigned i, c, rows = t->cells->len / t->ncols;

	for (c = 0; c < t->ncols; c++)
		w[c] = strlen(t->hdr[c]);
	for (i = 0; i < t->cells->len; i++) {
		size_t l = g_utf8_strlen(g_ptr_array_index(t->cells, i), -1);

		if (l > w[i % t->ncols])
			w[i % t->ncols] = l;
	}
	for (int r = -1; r < (int)rows; r++) {
		GString *line = g_string_new("  ");

		for (c = 0; c < t->ncols; c++) {
			const char *s = r < 0 ? t->hdr[c] :
				g_ptr_array_index(t->cells, (unsigned)r * t->ncols + c);
			size_t l = g_utf8_strlen(s, -1), pad = w[c] - l;
			bool last = c + 1 == t->ncols;

			if (c)
				g_string_append(line, "  ");
			if (!t->left[c])
				for (size_t k = 0; k < pad; k++)
					g_string_append_c(line, ' ');
			g_string_append(line, s);
			if (t->left[c] && !last)
				for (size_t k = 0; k < pad; k++)
					g_string_append_c(line, ' ');
		}
		while (line->len && line->str[line->len - 1] == ' ')
			g_string_truncate(line, line->len - 1);
		fprintf(f, "%s\n", line->str);
		g_string_free(line, TRUE);
	}
	g_ptr_array_free(t->cells, TRUE);
}

/* ---- human report --------------------------------------------------------- */

static const char *file_label(const struct ra_ctx *ctx, unsigned i, char *buf, size_t len)
{
	snprintf(buf, len, "%s", ctx->files[i].name);
	return buf;
}

static void text_anomaly_where(const struct ra_ctx *ctx, uint64_t global, char *buf, size_t len)
{
	uint64_t local;
	unsigned fi = ra_frame_locate(ctx, global, &local);

	if (ctx->o.n_files > 1)
		snprintf(buf, len, "%s:%" PRIu64, ctx->files[fi].name, local);
	else
		snprintf(buf, len, "%" PRIu64, local);
}

static void text_flow_label(const struct roce_flow_key *k, char *buf, size_t len)
{
	char s[ADDR_LEN], d[ADDR_LEN];

	addr_str(k->src, s);
	addr_str(k->dst, d);
	snprintf(buf, len, "v%u %s -> %s qp 0x%06x", k->version, s, d, k->dqpn);
}

void ra_report_text(const struct ra_ctx *ctx, FILE *f)
{
	struct roce_summary s;
	struct tables t;
	struct tbl tb;
	char b1[96], b2[96];
	uint64_t dur = 0, ecn_base;

	roce_analyzer_summary(ctx->an, &s);
	tables_get(ctx, &t);
	if (s.last_ts_ns > s.first_ts_ns)
		dur = s.last_ts_ns - s.first_ts_ns;

	fprintf(f, "Capture\n");
	for (unsigned i = 0; i < ctx->n_files; i++) {
		const struct ra_file *rf = &ctx->files[i];

		fprintf(f, "  %-20s%s (%s, %" PRIu64 " frames%s)\n", i ? "" : "File:",
			file_label(ctx, i, b1, sizeof(b1)), rf->format[0] ? rf->format : "not read",
			rf->frames, rf->complete ? "" : ", incomplete");
	}
	fprintf(f, "  %-20s%" PRIu64 "%s\n", "Frames:", s.frames,
		ctx->stopped_by_count ? " (stopped by -c)" : "");
	fprintf(f, "  %-20s%" PRIu64 "\n", "Bytes:", s.bytes);
	if (s.frames && s.first_ts_ns) {
		utc_str(s.first_ts_ns, b1, sizeof(b1));
		fprintf(f, "  %-20s%s\n", "First frame:", b1);
		utc_str(s.last_ts_ns, b1, sizeof(b1));
		fprintf(f, "  %-20s%s\n", "Last frame:", b1);
	}
	rel_str((int64_t)dur, b1, sizeof(b1));
	fprintf(f, "  %-20s%s s\n", "Duration:", b1);
	if (dur)
		fprintf(f, "  %-20s%.1f frames/s, %.3f Mbit/s\n", "Average rate:",
			(double)s.frames * 1e9 / (double)dur,
			(double)s.bytes * 8e3 / (double)dur);
	fprintf(f, "  %-20s%" PRIu64 " (v1 %" PRIu64 ", v2 %" PRIu64 ")\n", "RoCE frames:",
		s.roce_frames, s.rocev1_frames, s.rocev2_frames);
	fprintf(f, "  %-20s%" PRIu64 " PFC (802.1Qbb), %" PRIu64 " PAUSE (802.3x)\n",
		"Flow control:", s.pfc_frames, s.pause_frames);
	fprintf(f, "  %-20s%" PRIu64 "%s\n", "Streams:", (uint64_t)t.flows->len,
		s.evicted_flows ? " (some evicted, see --max-flows)" : "");
	if (s.pmtu)
		fprintf(f, "  %-20s%u%s\n", "Path MTU:", s.pmtu, ctx->o.pmtu ? " (--pmtu)" : " (learned)");

	fprintf(f, "\nICRC (crc32: %s)\n", roce_crc32_provider_name());
	fprintf(f, "  ok %" PRIu64 ", bad %" PRIu64 ", unverified %" PRIu64 "%s\n",
		s.icrc_ok, s.icrc_bad, s.icrc_unverified,
		ctx->o.no_icrc ? " (--no-icrc)" : "");

	fprintf(f, "\nMalformed frames: %" PRIu64 "\n", s.malformed);
	for (unsigned i = 0; i < ROCE_FIND_COUNT; i++) {
		const char *n = roce_finding_name(1u << i);

		/* bad_icrc is reported in the ICRC section above */
		if (s.findings[i] && n && ((1u << i) & ROCE_FIND_MALFORMED_MASK))
			fprintf(f, "  %-20s%" PRIu64 "  %s\n", n, s.findings[i],
				roce_finding_text(1u << i));
	}

	fprintf(f, "\nPSN analysis\n");
	fprintf(f, "  %-20s%" PRIu64 " (%" PRIu64 " PSNs lost before the capture point)\n",
		"Gaps:", s.psn_gaps, s.lost_psns);
	fprintf(f, "  %-20s%" PRIu64 "\n", "Duplicates:", s.duplicates);
	fprintf(f, "  %-20s%" PRIu64 "\n", "Out of order:", s.out_of_order);
	fprintf(f, "  %-20s%" PRIu64 " (go-back-N episodes: nak %" PRIu64 ", rnr %" PRIu64
		", timeout %" PRIu64 ")\n", "Retransmissions:", s.retransmissions,
		s.gbn_episodes[ROCE_RETX_NAK], s.gbn_episodes[ROCE_RETX_RNR],
		s.gbn_episodes[ROCE_RETX_TIMEOUT]);
	fprintf(f, "  %-20s%" PRIu64 "\n", "Unrecovered PSNs:", s.unrecovered_psns);

	fprintf(f, "\nACK/NAK\n");
	fprintf(f, "  %-20s%" PRIu64 "\n", "ACKs:", s.acks);
	fprintf(f, "  %-20s%" PRIu64 "\n", "NAKs:", s.naks);
	for (unsigned i = 0; i < 5; i++)
		if (s.nak_codes[i])
			fprintf(f, "    %s: %" PRIu64 "\n",
				roce_aeth_syndrome_text((uint8_t)(0x60 + i)), s.nak_codes[i]);
	fprintf(f, "  %-20s%" PRIu64 "\n", "RNR NAKs:", s.rnr_naks);

	ecn_base = s.ecn_capable;
	fprintf(f, "\nCongestion\n");
	fprintf(f, "  %-20s%" PRIu64 "\n", "CNPs:", s.cnps);
	fprintf(f, "  %-20s%" PRIu64 " of %" PRIu64 " ECN-capable RoCE frames", "ECN CE:",
		s.ecn_ce, ecn_base);
	if (ecn_base)
		fprintf(f, " (%.2f%%)", 100.0 * (double)s.ecn_ce / (double)ecn_base);
	fputc('\n', f);

	fprintf(f, "\nQueue pairs (streams: %u)\n", t.flows->len);
	if (t.flows->len) {
		tbl_init(&tb, "<VER|<SRC -> DST|>DQPN|<TYPE|>FRAMES|>BYTES|>MSGS|>GAPS|>LOST|>DUPS|"
			 ">OOO|>RETX|>NAKS|>RNR|>CNPS|>CE|>RTT p50 us|>RTT p99 us");
		for (unsigned i = 0; i < t.flows->len; i++) {
			const struct roce_flow_stats *fl =
				&g_array_index(t.flows, struct roce_flow_stats, i);
			char s1[ADDR_LEN], d1[ADDR_LEN];

			addr_str(fl->key.src, s1);
			addr_str(fl->key.dst, d1);
			tbl_cell(&tb, "v%u", fl->key.version);
			tbl_cell(&tb, "%s -> %s", s1, d1);
			tbl_cell(&tb, "0x%06x", fl->key.dqpn);
			tbl_cell(&tb, "%s", roce_transport_name(fl->transport));
			tbl_cell(&tb, "%" PRIu64, fl->frames);
			tbl_cell(&tb, "%" PRIu64, fl->bytes);
			tbl_cell(&tb, "%" PRIu64, fl->messages);
			tbl_cell(&tb, "%" PRIu64, fl->psn_gaps);
			tbl_cell(&tb, "%" PRIu64, fl->lost_psns);
			tbl_cell(&tb, "%" PRIu64, fl->duplicates);
			tbl_cell(&tb, "%" PRIu64, fl->out_of_order);
			tbl_cell(&tb, "%" PRIu64, fl->retransmissions);
			tbl_cell(&tb, "%" PRIu64, fl->naks);
			tbl_cell(&tb, "%" PRIu64, fl->rnr_naks);
			tbl_cell(&tb, "%" PRIu64, fl->cnps);
			tbl_cell(&tb, "%" PRIu64, fl->ecn_ce);
			if (fl->rtt.count) {
				us_str(fl->rtt.p50_ns, b1, sizeof(b1));
				us_str(fl->rtt.p99_ns, b2, sizeof(b2));
			} else {
				strcpy(b1, "-");
				strcpy(b2, "-");
			}
			tbl_cell(&tb, "%s", b1);
			tbl_cell(&tb, "%s", b2);
		}
		tbl_print(&tb, f);
	}

	fprintf(f, "\nPFC / PAUSE (link speed %g Gbit/s, storm >= %" PRIu64 " ms)\n",
		ctx->o.link_speed_gbps, ctx->o.pfc_storm_ms);
	if (t.pfc->len) {
		tbl_init(&tb, "<SRC MAC|<PRIO|>FRAMES|>XOFF|>XON|>QUANTA|>PAUSED ms|>LONGEST ms|>STORMS");
		for (unsigned i = 0; i < t.pfc->len; i++) {
			const struct roce_pfc_stats *p =
				&g_array_index(t.pfc, struct roce_pfc_stats, i);
			char m[MAC_LEN];

			mac_str(p->src_mac, m);
			tbl_cell(&tb, "%s", m);
			if (p->priority < 0)
				tbl_cell(&tb, "PAUSE");
			else
				tbl_cell(&tb, "%d", p->priority);
			tbl_cell(&tb, "%" PRIu64, p->frames);
			tbl_cell(&tb, "%" PRIu64, p->xoff);
			tbl_cell(&tb, "%" PRIu64, p->xon);
			tbl_cell(&tb, "%" PRIu64, p->quanta);
			ms_str(p->paused_ns, b1, sizeof(b1));
			ms_str(p->longest_pause_ns, b2, sizeof(b2));
			tbl_cell(&tb, "%s", b1);
			tbl_cell(&tb, "%s", b2);
			tbl_cell(&tb, "%" PRIu64, p->storms);
		}
		tbl_print(&tb, f);
	} else {
		fprintf(f, "  (no PFC or PAUSE frames)\n");
	}

	if (ctx->n_anoms < ctx->anom_total)
		fprintf(f, "\nAnomalies: %" PRIu64 " (first %" PRIu64 " shown; %" PRIu64
			" not shown, see --max-anomalies)\n", ctx->anom_total, ctx->n_anoms,
			ctx->anom_total - ctx->n_anoms);
	else
		fprintf(f, "\nAnomalies: %" PRIu64 "\n", ctx->anom_total);
	for (int i = 0; i < ROCE_AN_COUNT; i++)
		if (ctx->anom_counts[i])
			fprintf(f, "  %-20s%" PRIu64 "\n",
				roce_anomaly_name((enum roce_anomaly_type)i), ctx->anom_counts[i]);
	if (ctx->n_anoms) {
		fputc('\n', f);
		tbl_init(&tb, ">FRAME|>TIME s|<TYPE|<WHERE|>PSN|>EXPECTED|>COUNT|<DETAIL");
		for (uint64_t i = 0; i < ctx->n_anoms; i++) {
			const struct roce_anomaly *a = &ctx->anoms[i];
			char where[160];

			text_anomaly_where(ctx, a->frame, b1, sizeof(b1));
			tbl_cell(&tb, "%s", b1);
			rel_str(rel_ns(ctx, a->ts_ns), b2, sizeof(b2));
			tbl_cell(&tb, "%s", b2);
			tbl_cell(&tb, "%s", roce_anomaly_name(a->type));
			if (a->has_flow) {
				text_flow_label(&a->flow, where, sizeof(where));
			} else if (a->has_mac) {
				char m[MAC_LEN];

				mac_str(a->mac, m);
				if (a->priority < 0)
					snprintf(where, sizeof(where), "%s PAUSE", m);
				else
					snprintf(where, sizeof(where), "%s prio %d", m, a->priority);
			} else {
				strcpy(where, "-");
			}
			tbl_cell(&tb, "%s", where);
			if (a->has_psn)
				tbl_cell(&tb, "%u", a->psn);
			else
				tbl_cell(&tb, "-");
			if (a->has_expected)
				tbl_cell(&tb, "%u", a->expected_psn);
			else
				tbl_cell(&tb, "-");
			if (a->count)
				tbl_cell(&tb, "%" PRIu64, a->count);
			else
				tbl_cell(&tb, "-");
			tbl_cell(&tb, "%.*s", (int)sizeof(a->detail),
				 a->detail[0] ? a->detail : "");
		}
		tbl_print(&tb, f);
	}
	tables_free(&t);
}

/* ---- JSON ------------------------------------------------------------------ */

static void json_dist(struct jw *w, const char *key, const struct roce_dist *d)
{
	jw_obj_begin(w, key);
	jw_u64(w, "count", d->count);
	if (d->count) {
		jw_fixed(w, "min", d->min_ns, 3);
		jw_fixed(w, "p50", d->p50_ns, 3);
		jw_fixed(w, "p99", d->p99_ns, 3);
		jw_fixed(w, "max", d->max_ns, 3);
	} else {
		jw_null(w, "min");
		jw_null(w, "p50");
		jw_null(w, "p99");
		jw_null(w, "max");
	}
	jw_obj_end(w);
}

static void json_flow_key(struct jw *w, const struct roce_flow_key *k)
{
	char a[ADDR_LEN];

	jw_u64(w, "version", k->version);
	addr_str(k->src, a);
	jw_str(w, "src", a);
	addr_str(k->dst, a);
	jw_str(w, "dst", a);
	jw_u64(w, "dqpn", k->dqpn);
}

/* "frame" (per file) and, with several input files, "file". */
static void json_frame_ref(const struct ra_ctx *ctx, struct jw *w, const char *key,
			   const char *file_key, uint64_t global)
{
	uint64_t local;
	unsigned fi = ra_frame_locate(ctx, global, &local);

	jw_u64(w, key, local);
	if (ctx->o.n_files > 1)
		jw_str(w, file_key, ctx->files[fi].name);
}

static void json_gbn(struct jw *w, const uint64_t ep[4])
{
	jw_obj_begin(w, "gbn_episodes");
	for (int c = ROCE_RETX_NAK; c <= ROCE_RETX_TIMEOUT; c++)
		jw_u64(w, roce_retx_cause_name((enum roce_retx_cause)c), ep[c]);
	jw_obj_end(w);
}

static void json_nak_codes(struct jw *w, const uint64_t codes[5])
{
	jw_obj_begin(w, "nak_codes");
	for (int i = 0; i < 5; i++)
		jw_u64(w, nak_code_keys[i], codes[i]);
	jw_obj_end(w);
}

/*
 * The sequencing, NAK and CNP counters that struct roce_summary and struct
 * roce_flow_stats both have, under the same names: one list for the
 * "summary" object and every "qps" row, so the two cannot drift apart.
 * (A macro because it serves both struct types.)
 */
#define JSON_SEQ_COUNTERS(w, c) do { \
		jw_u64((w), "psn_gaps", (c)->psn_gaps); \
		jw_u64((w), "lost_psns", (c)->lost_psns); \
		jw_u64((w), "duplicates", (c)->duplicates); \
		jw_u64((w), "out_of_order", (c)->out_of_order); \
		jw_u64((w), "unrecovered_psns", (c)->unrecovered_psns); \
		jw_u64((w), "retransmissions", (c)->retransmissions); \
		json_gbn((w), (c)->gbn_episodes); \
		jw_u64((w), "acks", (c)->acks); \
		jw_u64((w), "naks", (c)->naks); \
		jw_u64((w), "rnr_naks", (c)->rnr_naks); \
		json_nak_codes((w), (c)->nak_codes); \
		jw_u64((w), "cnps", (c)->cnps); \
	} while (0)

static void json_summary(const struct ra_ctx *ctx, struct jw *w, const struct roce_summary *s,
			 const struct tables *t)
{
	uint64_t dur = s->last_ts_ns > s->first_ts_ns ? s->last_ts_ns - s->first_ts_ns : 0;

	jw_obj_begin(w, "summary");
	jw_u64(w, "files", ctx->n_files);
	jw_u64(w, "frames", s->frames);
	jw_u64(w, "bytes", s->bytes);
	jw_bool(w, "complete", !ctx->input_error && !ctx->stopped_by_count);
	jw_bool(w, "stopped_by_count", ctx->stopped_by_count);
	if (s->frames) {
		jw_fixed(w, "first_ts", s->first_ts_ns, 9);
		jw_fixed(w, "last_ts", s->last_ts_ns, 9);
	} else {
		jw_null(w, "first_ts");
		jw_null(w, "last_ts");
	}
	jw_fixed(w, "duration_s", dur, 9);
	jw_u64(w, "roce_frames", s->roce_frames);
	jw_u64(w, "rocev1_frames", s->rocev1_frames);
	jw_u64(w, "rocev2_frames", s->rocev2_frames);
	jw_u64(w, "icrc_ok", s->icrc_ok);
	jw_u64(w, "icrc_bad", s->icrc_bad);
	jw_u64(w, "icrc_unverified", s->icrc_unverified);
	jw_bool(w, "icrc_verification", !ctx->o.no_icrc);
	jw_str(w, "crc32", roce_crc32_provider_name());
	jw_u64(w, "malformed", s->malformed);
	jw_obj_begin(w, "findings");
	for (unsigned i = 0; i < ROCE_FIND_COUNT; i++) {
		const char *n = roce_finding_name(1u << i);

		if (n)
			jw_u64(w, n, s->findings[i]);
	}
	jw_obj_end(w);
	jw_u64(w, "streams", t->flows->len);
	JSON_SEQ_COUNTERS(w, s);
	jw_u64(w, "ecn_ce", s->ecn_ce);
	jw_u64(w, "ecn_capable", s->ecn_capable);
	if (s->ecn_capable)
		jw_double(w, "ecn_ce_ratio", (double)s->ecn_ce / (double)s->ecn_capable, 6);
	else
		jw_null(w, "ecn_ce_ratio");
	jw_u64(w, "pfc_frames", s->pfc_frames);
	jw_u64(w, "pause_frames", s->pause_frames);
	jw_u64(w, "pfc_storms", s->pfc_storms);
	jw_u64(w, "evicted_flows", s->evicted_flows);
	jw_u64(w, "evicted_pfc", s->evicted_pfc);
	if (s->pmtu)
		jw_u64(w, "pmtu", s->pmtu);
	else
		jw_null(w, "pmtu");
	jw_u64(w, "anomalies_total", ctx->anom_total);
	jw_u64(w, "anomalies_dropped", ctx->anom_total - ctx->n_anoms);
	jw_obj_begin(w, "anomaly_counts");
	for (int i = 0; i < ROCE_AN_COUNT; i++)
		jw_u64(w, roce_anomaly_name((enum roce_anomaly_type)i), ctx->anom_counts[i]);
	jw_obj_end(w);
	jw_obj_begin(w, "opcodes");
	for (int i = 0; i < 256; i++)
		if (s->opcodes[i])
			jw_u64(w, roce_opcode_name((uint8_t)i), s->opcodes[i]);
	jw_obj_end(w);
	jw_obj_end(w);

	jw_arr_begin(w, "files");
	for (unsigned i = 0; i < ctx->n_files; i++) {
		const struct ra_file *rf = &ctx->files[i];

		jw_obj_begin(w, NULL);
		jw_str(w, "name", rf->name);
		jw_str(w, "format", rf->format[0] ? rf->format : NULL);
		if (rf->linktype >= 0)
			jw_i64(w, "linktype", rf->linktype);
		else
			jw_null(w, "linktype");
		jw_u64(w, "frames", rf->frames);
		jw_bool(w, "complete", rf->complete);
		jw_obj_end(w);
	}
	jw_arr_end(w);
}

static void json_qp(const struct ra_ctx *ctx, struct jw *w, const struct roce_flow_stats *f)
{
	uint64_t dur = f->last_ts_ns > f->first_ts_ns ? f->last_ts_ns - f->first_ts_ns : 0;

	jw_obj_begin(w, NULL);
	json_flow_key(w, &f->key);
	jw_str(w, "transport", roce_transport_name(f->transport));
	jw_bool(w, "request", f->is_request);
	json_frame_ref(ctx, w, "first_frame", "first_file", f->first_frame);
	jw_fixed(w, "first_ts", f->first_ts_ns, 9);
	jw_fixed(w, "last_ts", f->last_ts_ns, 9);
	jw_u64(w, "frames", f->frames);
	jw_u64(w, "bytes", f->bytes);
	jw_u64(w, "payload_bytes", f->payload_bytes);
	jw_u64(w, "messages", f->messages);
	JSON_SEQ_COUNTERS(w, f);
	if (f->cnps && dur)
		jw_double(w, "cnp_rate_per_s", (double)f->cnps * 1e9 / (double)dur, 6);
	else
		jw_null(w, "cnp_rate_per_s");
	if (f->cnp_min_gap_ns)
		jw_fixed(w, "cnp_min_gap_us", f->cnp_min_gap_ns, 3);
	else
		jw_null(w, "cnp_min_gap_us");
	jw_u64(w, "ecn_ce", f->ecn_ce);
	jw_u64(w, "ecn_capable", f->ecn_capable);
	jw_u64(w, "icrc_bad", f->icrc_bad);
	jw_u64(w, "malformed", f->malformed);
	json_dist(w, "rtt_us", &f->rtt);
	json_dist(w, "read_first_us", &f->read_first);
	json_dist(w, "read_last_us", &f->read_last);
	json_dist(w, "nak_response_us", &f->nak_response);
	json_dist(w, "recovery_us", &f->recovery);
	jw_u64(w, "first_psn", f->first_psn);
	jw_u64(w, "last_psn", f->last_psn);
	if (f->pmtu)
		jw_u64(w, "pmtu", f->pmtu);
	else
		jw_null(w, "pmtu");
	if (f->transport == ROCE_TRANSPORT_UD)
		jw_u64(w, "src_qp", f->src_qp);
	jw_u64(w, "pkey", f->pkey);
	if (f->has_peer) {
		jw_obj_begin(w, "peer");
		json_flow_key(w, &f->peer);
		jw_obj_end(w);
	} else {
		jw_null(w, "peer");
	}
	jw_obj_end(w);
}

static void json_pfc_row(const struct ra_ctx *ctx, struct jw *w, const struct roce_pfc_stats *p)
{
	char m[MAC_LEN];

	jw_obj_begin(w, NULL);
	jw_str(w, "type", p->priority < 0 ? "pause" : "pfc");
	mac_str(p->src_mac, m);
	jw_str(w, "src_mac", m);
	if (p->priority < 0)
		jw_null(w, "priority");
	else
		jw_i64(w, "priority", p->priority);
	json_frame_ref(ctx, w, "first_frame", "first_file", p->first_frame);
	jw_u64(w, "frames", p->frames);
	jw_u64(w, "xoff", p->xoff);
	jw_u64(w, "xon", p->xon);
	jw_u64(w, "quanta", p->quanta);
	jw_fixed(w, "paused_us", p->paused_ns, 3);
	jw_fixed(w, "longest_pause_us", p->longest_pause_ns, 3);
	jw_u64(w, "storms", p->storms);
	jw_obj_end(w);
}

static void json_anomaly(const struct ra_ctx *ctx, struct jw *w, const struct roce_anomaly *a)
{
	jw_obj_begin(w, NULL);
	json_frame_ref(ctx, w, "frame", "file", a->frame);
	jw_str(w, "type", roce_anomaly_name(a->type));
	jw_fixed(w, "ts", a->ts_ns, 9);
	if (a->has_flow)
		json_flow_key(w, &a->flow);
	if (a->has_psn)
		jw_u64(w, "psn", a->psn);
	if (a->has_expected)
		jw_u64(w, "expected_psn", a->expected_psn);
	if (a->count)
		jw_u64(w, "count", a->count);
	if (a->has_mac) {
		char m[MAC_LEN];

		mac_str(a->mac, m);
		jw_str(w, "src_mac", m);
		if (a->priority < 0)
			jw_null(w, "priority");
		else
			jw_i64(w, "priority", a->priority);
	}
	if (a->detail[0]) {
		char d[sizeof(a->detail) + 1];

		memcpy(d, a->detail, sizeof(a->detail));
		d[sizeof(a->detail)] = '\0';
		jw_str(w, "detail", d);
	}
	jw_obj_end(w);
}

void ra_report_json(const struct ra_ctx *ctx, FILE *f, bool pretty)
{
	struct roce_summary s;
	struct tables t;
	struct jw w;

	roce_analyzer_summary(ctx->an, &s);
	tables_get(ctx, &t);
	jw_init(&w, f, pretty);
	jw_obj_begin(&w, NULL);
	jw_str(&w, "tool", RA_PROG " " ROCE_VERSION_STRING);
	json_summary(ctx, &w, &s, &t);

	jw_arr_begin(&w, "qps");
	for (unsigned i = 0; i < t.flows->len; i++)
		json_qp(ctx, &w, &g_array_index(t.flows, struct roce_flow_stats, i));
	jw_arr_end(&w);

	jw_arr_begin(&w, "pfc");
	for (unsigned i = 0; i < t.pfc->len; i++) {
		const struct roce_pfc_stats *p = &g_array_index(t.pfc, struct roce_pfc_stats, i);

		if (p->priority >= 0)
			json_pfc_row(ctx, &w, p);
	}
	jw_arr_end(&w);
	jw_arr_begin(&w, "pause");
	for (unsigned i = 0; i < t.pfc->len; i++) {
		const struct roce_pfc_stats *p = &g_array_index(t.pfc, struct roce_pfc_stats, i);

		if (p->priority < 0)
			json_pfc_row(ctx, &w, p);
	}
	jw_arr_end(&w);

	jw_arr_begin(&w, "anomalies");
	for (uint64_t i = 0; i < ctx->n_anoms; i++)
		json_anomaly(ctx, &w, &ctx->anoms[i]);
	jw_arr_end(&w);
	jw_obj_end(&w);
	jw_end(&w);
	tables_free(&t);
}

/* ---- CSV ------------------------------------------------------------------- */

void ra_report_csv(const struct ra_ctx *ctx, FILE *f)
{
	struct tables t;

	tables_get(ctx, &t);
	fputs("version,src,dst,dqpn,transport,frames,bytes,payload_bytes,messages,"
	      "psn_gaps,lost_psns,duplicates,out_of_order,unrecovered_psns,retransmissions,"
	      "naks,rnr_naks,cnps,ecn_ce,icrc_bad,malformed,"
	      "rtt_us_count,rtt_us_min,rtt_us_p50,rtt_us_p99,rtt_us_max\n", f);
	for (unsigned i = 0; i < t.flows->len; i++) {
		const struct roce_flow_stats *fl = &g_array_index(t.flows, struct roce_flow_stats, i);
		char s[ADDR_LEN], d[ADDR_LEN], v[4][32];

		/* addresses and transport names never contain ',' or '"' */
		addr_str(fl->key.src, s);
		addr_str(fl->key.dst, d);
		if (fl->rtt.count) {
			us_str(fl->rtt.min_ns, v[0], sizeof(v[0]));
			us_str(fl->rtt.p50_ns, v[1], sizeof(v[1]));
			us_str(fl->rtt.p99_ns, v[2], sizeof(v[2]));
			us_str(fl->rtt.max_ns, v[3], sizeof(v[3]));
		} else {
			for (int k = 0; k < 4; k++)
				v[k][0] = '\0';
		}
		fprintf(f, "%u,%s,%s,%u,%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
			",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
			",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
			",%" PRIu64 ",%s,%s,%s,%s\n",
			fl->key.version, s, d, fl->key.dqpn, roce_transport_name(fl->transport),
			fl->frames, fl->bytes, fl->payload_bytes, fl->messages,
			fl->psn_gaps, fl->lost_psns, fl->duplicates, fl->out_of_order,
			fl->unrecovered_psns, fl->retransmissions, fl->naks, fl->rnr_naks,
			fl->cnps, fl->ecn_ce, fl->icrc_bad, fl->malformed,
			fl->rtt.count, v[0], v[1], v[2], v[3]);
	}
	tables_free(&t);
}

/* ---- --frames -------------------------------------------------------------- */

static bool has_bth(const struct roce_pkt *p)
{
	return p->kind == ROCE_KIND_ROCE && p->bth_off && p->op;
}

static size_t list_names(char *buf, size_t len, size_t pos, uint32_t findings, uint32_t events,
			 bool skip_dup)
{
	for (unsigned i = 0; i < ROCE_FIND_COUNT; i++) {
		const char *n;

		if (!(findings & (1u << i)) || !(n = roce_finding_name(1u << i)))
			continue;
		pos += (size_t)snprintf(buf + pos, pos < len ? len - pos : 0, "%s%s",
					pos ? "," : "", n);
	}
	for (size_t i = 0; i < G_N_ELEMENTS(event_names); i++) {
		if (!(events & event_names[i].bit))
			continue;
		if (skip_dup && (event_names[i].bit & (ROCE_EV_ICRC_BAD | ROCE_EV_MALFORMED)))
			continue;
		pos += (size_t)snprintf(buf + pos, pos < len ? len - pos : 0, "%s%s",
					pos ? "," : "", event_names[i].name);
	}
	return pos;
}

void ra_frame_text(const struct ra_ctx *ctx, const struct ra_frame *fr, FILE *f)
{
	const struct roce_pkt *p = fr->pkt;
	const struct roce_frame_result *r = fr->res;
	uint32_t events = r ? r->events : 0;
	char t[32], a[ADDR_LEN], b[ADDR_LEN], names[512];
	size_t n;

	if (ctx->o.n_files > 1)
		fprintf(f, "%s:", ctx->files[fr->file].name);
	rel_str(rel_ns(ctx, fr->ts_ns), t, sizeof(t));
	fprintf(f, "%7" PRIu64 " %11s ", fr->local_no, t);

	if (p->kind == ROCE_KIND_PFC || p->kind == ROCE_KIND_PAUSE) {
		mac_str(p->src_mac, a);
		mac_str(p->dst_mac, b);
		fprintf(f, "%-5s %s -> %s", p->kind == ROCE_KIND_PFC ? "PFC" : "PAUSE", a, b);
		if (p->kind == ROCE_KIND_PFC) {
			for (int i = 0; i < 8; i++) {
				if (!(p->pfc_enable & (1u << i)))
					continue;
				fprintf(f, " p%d=%u", i, p->pfc_quanta[i]);
				if ((events & ROCE_EV_PFC) && p->pfc_quanta[i]) {
					us_str(r->pause_ns[i], t, sizeof(t));
					fprintf(f, "(%sus)", t);
				}
			}
		} else {
			fprintf(f, " quanta=%u", p->pfc_quanta[0]);
			if ((events & ROCE_EV_PAUSE) && p->pfc_quanta[0]) {
				us_str(r->pause_ns[0], t, sizeof(t));
				fprintf(f, "(%sus)", t);
			}
		}
	} else {
		addr_str(p->src, a);
		addr_str(p->dst, b);
		fprintf(f, "v%u %s -> %s ", p->version, a, b);
		if (has_bth(p))
			fprintf(f, "%s dqpn 0x%06x psn %u", roce_opcode_name(p->bth.opcode),
				p->bth.dqpn, p->bth.psn);
		else
			fputs("-", f);
		fprintf(f, " icrc %s", icrc_name(p->icrc_status));
		if (events & ROCE_EV_ACK_RTT) {
			us_str(r->rtt_ns, t, sizeof(t));
			fprintf(f, " rtt %sus", t);
		}
		if (events & (ROCE_EV_PSN_GAP | ROCE_EV_OUT_OF_ORDER | ROCE_EV_DUPLICATE |
			      ROCE_EV_RETRANSMISSION))
			fprintf(f, " expected %u", r->expected_psn);
	}
	n = list_names(names, sizeof(names), 0, r ? r->findings | p->findings : p->findings,
		       events, true);
	if (n)
		fprintf(f, " [%s]", names);
	fputc('\n', f);
}

static void json_names(struct jw *w, const char *key, uint32_t findings, uint32_t events,
		       bool is_findings)
{
	jw_arr_begin(w, key);
	if (is_findings) {
		for (unsigned i = 0; i < ROCE_FIND_COUNT; i++) {
			const char *n = roce_finding_name(1u << i);

			if ((findings & (1u << i)) && n)
				jw_str(w, NULL, n);
		}
	} else {
		for (size_t i = 0; i < G_N_ELEMENTS(event_names); i++)
			if (events & event_names[i].bit)
				jw_str(w, NULL, event_names[i].name);
	}
	jw_arr_end(w);
}

void ra_frame_json(const struct ra_ctx *ctx, const struct ra_frame *fr, FILE *f)
{
	const struct roce_pkt *p = fr->pkt;
	const struct roce_frame_result *r = fr->res;
	uint32_t events = r ? r->events : 0;
	uint32_t findings = p->findings | (r ? r->findings : 0);
	char a[ADDR_LEN];
	struct jw w;

	jw_init(&w, f, false);
	jw_obj_begin(&w, NULL);
	jw_u64(&w, "frame", fr->local_no);
	if (ctx->o.n_files > 1)
		jw_str(&w, "file", ctx->files[fr->file].name);
	jw_fixed(&w, "ts", fr->ts_ns, 9);
	jw_sfixed(&w, "time_relative", rel_ns(ctx, fr->ts_ns), 9);
	jw_u64(&w, "len", p->wirelen);

	if (p->kind == ROCE_KIND_PFC || p->kind == ROCE_KIND_PAUSE) {
		jw_str(&w, "kind", p->kind == ROCE_KIND_PFC ? "pfc" : "pause");
		mac_str(p->src_mac, a);
		jw_str(&w, "src_mac", a);
		mac_str(p->dst_mac, a);
		jw_str(&w, "dst_mac", a);
		if (p->vlan_count) {
			jw_u64(&w, "vlan", p->vlan_id);
			jw_u64(&w, "pcp", p->pcp);
		}
		if (p->kind == ROCE_KIND_PFC) {
			jw_u64(&w, "enable", p->pfc_enable);
			jw_arr_begin(&w, "quanta");
			for (int i = 0; i < 8; i++)
				jw_u64(&w, NULL, p->pfc_quanta[i]);
			jw_arr_end(&w);
			if (events & ROCE_EV_PFC) {
				jw_arr_begin(&w, "pause_us");
				for (int i = 0; i < 8; i++)
					jw_fixed(&w, NULL, r->pause_ns[i], 3);
				jw_arr_end(&w);
			}
			if (events & ROCE_EV_PFC_STORM)
				jw_u64(&w, "storm_mask", r->storm_mask);
		} else {
			jw_u64(&w, "quanta", p->pfc_quanta[0]);
			if (events & ROCE_EV_PAUSE)
				jw_fixed(&w, "pause_us", r->pause_ns[0], 3);
		}
	} else {
		jw_str(&w, "kind", "roce");
		jw_u64(&w, "version", p->version);
		addr_str(p->src, a);
		jw_str(&w, "src", a);
		addr_str(p->dst, a);
		jw_str(&w, "dst", a);
		if (p->version == 2 && p->udp_off) {
			jw_u64(&w, "sport", p->sport);
			jw_u64(&w, "dport", p->dport);
		}
		if (p->vlan_count) {
			jw_u64(&w, "vlan", p->vlan_id);
			jw_u64(&w, "pcp", p->pcp);
		}
		jw_u64(&w, "ecn", p->ecn);
		if (has_bth(p)) {
			jw_u64(&w, "opcode", p->bth.opcode);
			jw_str(&w, "opcode_name", roce_opcode_name(p->bth.opcode));
			jw_u64(&w, "dqpn", p->bth.dqpn);
			jw_u64(&w, "psn", p->bth.psn);
			jw_bool(&w, "ackreq", p->bth.ackreq);
			jw_bool(&w, "becn", p->bth.becn);
			jw_u64(&w, "payload_len", p->payload_len);
			if (p->hdrs & ROCE_H_AETH) {
				jw_u64(&w, "aeth_syndrome", p->aeth.syndrome);
				jw_str(&w, "aeth", roce_aeth_syndrome_text(p->aeth.syndrome));
				jw_u64(&w, "msn", p->aeth.msn);
			}
		} else {
			jw_null(&w, "opcode");
			jw_null(&w, "opcode_name");
			jw_null(&w, "dqpn");
			jw_null(&w, "psn");
		}
		jw_str(&w, "icrc", icrc_name(p->icrc_status));
		if (events & (ROCE_EV_PSN_GAP | ROCE_EV_OUT_OF_ORDER | ROCE_EV_DUPLICATE |
			      ROCE_EV_RETRANSMISSION))
			jw_u64(&w, "expected_psn", r->expected_psn);
		if (events & ROCE_EV_PSN_GAP)
			jw_u64(&w, "lost_psns", r->lost_psns);
		if (events & ROCE_EV_RETRANSMISSION)
			jw_str(&w, "retx_cause", r->retx_cause ?
			       roce_retx_cause_name(r->retx_cause) : NULL);
		if (events & ROCE_EV_ACK_RTT)
			jw_fixed(&w, "rtt_us", r->rtt_ns, 3);
		if (events & (ROCE_EV_READ_FIRST_RESP | ROCE_EV_READ_LAST_RESP))
			jw_fixed(&w, "read_us", r->read_ns, 3);
		if (events & ROCE_EV_GBN_RECOVERED)
			jw_fixed(&w, "recovery_us", r->recovery_ns, 3);
	}
	if (r && r->ref_frame)
		json_frame_ref(ctx, &w, "ref_frame", "ref_file", r->ref_frame);
	json_names(&w, "events", 0, events, false);
	json_names(&w, "findings", findings, 0, true);
	jw_obj_end(&w);
	jw_end(&w);
}
