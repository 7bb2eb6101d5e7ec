// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * report_text.c - roce-analyze's human report: capture, ICRC, malformed
 * frames, PSN analysis, ACK/NAK, congestion, the per-QP and PFC tables and
 * the anomaly list, in aligned columns.
 */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

#include <glib.h>

#include <roce/analyzer.h>
#include <roce/icrc.h>
#include <roce/pkt.h>

#include "report_common.h"

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

/*
 * The QP table has a row per stream (a million, at fabric scale): it is not
 * buffered.  Two passes over the analyzer's streams (allocating nothing):
 * the first measures the column widths, the second prints, each row
 * formatted into one fixed line of cells.  Same layout as tbl_print().
 */
#define QP_COLS 18
#define QP_CELL 136

struct qp_tbl {
	size_t w[QP_COLS];
	char cell[QP_COLS][QP_CELL];
	bool print;
	FILE *f;
};

static const char *const qp_hdr[QP_COLS] = {
	"VER", "SRC -> DST", "DQPN", "TYPE", "FRAMES", "BYTES", "MSGS", "GAPS", "LOST", "DUPS",
	"OOO", "RETX", "NAKS", "RNR", "CNPS", "CE", "RTT p50 us", "RTT p99 us"
};
/* left-aligned columns: VER, SRC -> DST, TYPE */
static const bool qp_left[QP_COLS] = { true, true, false, true };

static void qp_line(struct qp_tbl *q, const char *const *cells)
{
	char line[QP_COLS * (QP_CELL + 2) + 4];
	size_t n = 0;

	line[n++] = ' ';
	line[n++] = ' ';
	for (unsigned c = 0; c < QP_COLS; c++) {
		size_t l = g_utf8_strlen(cells[c], -1), pad = q->w[c] > l ? q->w[c] - l : 0;
		size_t bl = strlen(cells[c]);

		if (c) {
			line[n++] = ' ';
			line[n++] = ' ';
		}
		if (!qp_left[c]) {
			memset(line + n, ' ', pad);
			n += pad;
		}
		memcpy(line + n, cells[c], bl);
		n += bl;
		if (qp_left[c] && c + 1 < QP_COLS) {
			memset(line + n, ' ', pad);
			n += pad;
		}
	}
	while (n && line[n - 1] == ' ')
		n--;
	line[n++] = '\n';
	fwrite(line, 1, n, q->f);
}

static int qp_row(void *user, const struct roce_flow_stats *fl)
{
	struct qp_tbl *q = user;
	char s1[RA_ADDR_LEN], d1[RA_ADDR_LEN];
	const char *cells[QP_COLS];
	const uint64_t nums[] = {
		fl->frames, fl->bytes, fl->messages, fl->psn_gaps, fl->lost_psns, fl->duplicates,
		fl->out_of_order, fl->retransmissions, fl->naks, fl->rnr_naks, fl->cnps, fl->ecn_ce
	};
	unsigned c = 0;

	ra_addr_str(fl->key.src, s1);
	ra_addr_str(fl->key.dst, d1);
	snprintf(q->cell[c++], QP_CELL, "v%u", fl->key.version);
	snprintf(q->cell[c++], QP_CELL, "%s -> %s", s1, d1);
	snprintf(q->cell[c++], QP_CELL, "0x%06x", fl->key.dqpn);
	snprintf(q->cell[c++], QP_CELL, "%s", roce_transport_name(fl->transport));
	for (unsigned i = 0; i < sizeof(nums) / sizeof(nums[0]); i++)
		snprintf(q->cell[c++], QP_CELL, "%" PRIu64, nums[i]);
	if (fl->rtt.count) {
		ra_us_str(fl->rtt.p50_ns, q->cell[c++], QP_CELL);
		ra_us_str(fl->rtt.p99_ns, q->cell[c++], QP_CELL);
	} else {
		strcpy(q->cell[c++], "-");
		strcpy(q->cell[c++], "-");
	}
	for (c = 0; c < QP_COLS; c++) {
		cells[c] = q->cell[c];
		if (!q->print) {
			size_t l = g_utf8_strlen(cells[c], -1);

			if (l > q->w[c])
				q->w[c] = l;
		}
	}
	if (q->print)
		qp_line(q, cells);
	return 0;
}

static void qp_table(const struct ra_ctx *ctx, FILE *f)
{
	struct qp_tbl *q = g_new0(struct qp_tbl, 1);

	q->f = f;
	for (unsigned c = 0; c < QP_COLS; c++)
		q->w[c] = strlen(qp_hdr[c]);
	roce_analyzer_foreach_flow(ctx->an, qp_row, q);
	q->print = true;
	qp_line(q, qp_hdr);
	roce_analyzer_foreach_flow(ctx->an, qp_row, q);
	g_free(q);
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
	char s[RA_ADDR_LEN], d[RA_ADDR_LEN];

	ra_addr_str(k->src, s);
	ra_addr_str(k->dst, d);
	snprintf(buf, len, "v%u %s -> %s qp 0x%06x", k->version, s, d, k->dqpn);
}

/* One line when some frame came inside a tunnel or mirror encapsulation. */
static void text_encap(FILE *f, const struct roce_summary *s)
{
	uint64_t n = 0;
	const char *sep = "";

	for (unsigned i = ROCE_ENCAP_NONE + 1; i < ROCE_ENCAP_COUNT; i++)
		n += s->encap_frames[i];
	if (!n)
		return;
	fprintf(f, "  %-20s%" PRIu64 " (", "Encapsulated:", n);
	for (unsigned i = ROCE_ENCAP_NONE + 1; i < ROCE_ENCAP_COUNT; i++) {
		if (!s->encap_frames[i])
			continue;
		fprintf(f, "%s%s %" PRIu64, sep, roce_encap_name((enum roce_encap)i),
			s->encap_frames[i]);
		sep = ", ";
	}
	fprintf(f, ")\n");
}

void ra_report_text(const struct ra_ctx *ctx, FILE *f)
{
	struct roce_summary s;
	struct ra_tables t;
	struct tbl tb;
	char b1[96], b2[96];
	uint64_t dur = 0, ecn_base;

	roce_analyzer_summary(ctx->an, &s);
	ra_tables_get(ctx, &t);
	if (ctx->have_first_ts)
		dur = ctx->max_ts_ns - ctx->min_ts_ns;

	fprintf(f, "Capture\n");
	for (unsigned i = 0; i < ctx->n_files; i++) {
		const struct ra_file *rf = &ctx->files[i];

		fprintf(f, "  %-20s%s (%s, %" PRIu64 " frames%s)\n", i ? "" : "File:",
			file_label(ctx, i, b1, sizeof(b1)), rf->format[0] ? rf->format : "not read",
			rf->frames, rf->complete ? "" : ", incomplete");
	}
	fprintf(f, "  %-20s%" PRIu64 "%s\n", "Frames:", s.frames,
		ctx->stopped_by_count ? " (stopped by -c)" : "");
	if (ctx->live_filter)
		fprintf(f, "  %-20s%s\n", "Filter:", ctx->live_filter);
	else if (ctx->o.filter)
		fprintf(f, "  %-20s%s (%" PRIu64 " frames did not match)\n", "Filter:",
			ctx->o.filter, ctx->filtered_out);
	fprintf(f, "  %-20s%" PRIu64 "\n", "Bytes:", s.bytes);
	if (ctx->have_first_ts) {
		ra_utc_str(ctx->first_ts_ns, b1, sizeof(b1));
		fprintf(f, "  %-20s%s\n", "First frame:", b1);
		ra_utc_str(ctx->last_ts_ns, b1, sizeof(b1));
		fprintf(f, "  %-20s%s\n", "Last frame:", b1);
		if (ctx->min_ts_ns != ctx->first_ts_ns || ctx->max_ts_ns != ctx->last_ts_ns) {
			/* frames not in time order */
			ra_utc_str(ctx->min_ts_ns, b1, sizeof(b1));
			fprintf(f, "  %-20s%s\n", "Earliest:", b1);
			ra_utc_str(ctx->max_ts_ns, b1, sizeof(b1));
			fprintf(f, "  %-20s%s\n", "Latest:", b1);
		}
	}
	if (ctx->frames_without_ts)
		fprintf(f, "  %-20s%" PRIu64 "\n", "Without timestamp:", ctx->frames_without_ts);
	if (ctx->capture_warnings)
		fprintf(f, "  %-20s%" PRIu64 "\n", "Format warnings:", ctx->capture_warnings);
	if (ctx->capture_drops)
		fprintf(f, "  %-20s%" PRIu64 "\n", "Capture drops:", ctx->capture_drops);
	ra_rel_str((int64_t)dur, b1, sizeof(b1));
	fprintf(f, "  %-20s%s s\n", "Duration:", b1);
	if (dur)
		fprintf(f, "  %-20s%.1f frames/s, %.3f Mbit/s\n", "Average rate:",
			(double)s.frames * 1e9 / (double)dur,
			(double)s.bytes * 8e3 / (double)dur);
	fprintf(f, "  %-20s%" PRIu64 " (v1 %" PRIu64 ", v2 %" PRIu64 ")\n", "RoCE frames:",
		s.roce_frames, s.rocev1_frames, s.rocev2_frames);
	fprintf(f, "  %-20s%" PRIu64 " PFC (802.1Qbb), %" PRIu64 " PAUSE (802.3x)\n",
		"Flow control:", s.pfc_frames, s.pause_frames);
	text_encap(f, &s);
	fprintf(f, "  %-20s%" PRIu64 "%s\n", "Streams:", s.flows_active,
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
	if (s.acked_unseen_psns)
		fprintf(f, "  %-20s%" PRIu64 " (PSNs the responder acknowledged that the capture "
			"missed)\n", "ACKed unseen:", s.acked_unseen_psns);
	if (s.capture_copies)
		fprintf(f, "  %-20s%" PRIu64 " (frames the capture carried twice; not analysed "
			"again)\n", "Capture copies:", s.capture_copies);

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

	fprintf(f, "\nQueue pairs (streams: %" PRIu64 ")\n", s.flows_active);
	if (s.flows_active)
		qp_table(ctx, f);

	fprintf(f, "\nPFC / PAUSE (link speed %g Gbit/s, storm >= %" PRIu64 " ms)\n",
		ctx->o.link_speed_gbps, ctx->o.pfc_storm_ms);
	if (t.pfc->len) {
		const bool ifc = ra_show_iface(ctx);

		/* the IFACE column only with several interfaces */
		tbl_init(&tb, &"<IFACE|<SRC MAC|<PRIO|>FRAMES|>XOFF|>XON|>QUANTA|>PAUSED ms|"
			 ">LONGEST ms|>STORMS"[ifc ? 0 : sizeof("<IFACE|") - 1]);
		for (unsigned i = 0; i < t.pfc->len; i++) {
			const struct roce_pfc_stats *p =
				&g_array_index(t.pfc, struct roce_pfc_stats, i);
			char m[RA_MAC_LEN], ifn[40];

			if (ifc) {
				ra_iface_str(ctx, p->interface, ifn, sizeof(ifn));
				tbl_cell(&tb, "%s", ifn);
			}
			ra_mac_str(p->src_mac, m);
			tbl_cell(&tb, "%s", m);
			if (p->priority < 0)
				tbl_cell(&tb, "PAUSE");
			else
				tbl_cell(&tb, "%d", p->priority);
			tbl_cell(&tb, "%" PRIu64, p->frames);
			tbl_cell(&tb, "%" PRIu64, p->xoff);
			tbl_cell(&tb, "%" PRIu64, p->xon);
			tbl_cell(&tb, "%" PRIu64, p->quanta);
			ra_ms_str(p->paused_ns, b1, sizeof(b1));
			ra_ms_str(p->longest_pause_ns, b2, sizeof(b2));
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
			ra_rel_str(ra_rel_ns(ctx, a->ts_ns), b2, sizeof(b2));
			tbl_cell(&tb, "%s", b2);
			tbl_cell(&tb, "%s", roce_anomaly_name(a->type));
			if (a->has_flow) {
				text_flow_label(&a->flow, where, sizeof(where));
			} else if (a->has_mac) {
				char m[RA_MAC_LEN], ifn[40] = "";

				ra_mac_str(a->mac, m);
				if (ra_show_iface(ctx)) {
					ra_iface_str(ctx, a->interface, ifn, sizeof(ifn) - 1);
					strcat(ifn, " ");
				}
				if (a->priority < 0)
					snprintf(where, sizeof(where), "%s%s PAUSE", ifn, m);
				else
					snprintf(where, sizeof(where), "%s%s prio %d", ifn, m,
						 a->priority);
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
	ra_tables_free(&t);
}
