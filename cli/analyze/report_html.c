// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * report_html.c - roce-analyze --html: the run as one self-contained page
 * (report_html.h, docs/html-report.md).
 *
 * The page is a fixed skeleton, one data block and the page's own script and
 * style sheet (cli/analyze/html/report.js, report.css, compiled in by
 * cmake/RoceEmbed.cmake):
 *
 *   <meta http-equiv="Content-Security-Policy" content="default-src 'none';
 *         script-src 'sha256-<script>'; style-src 'sha256-<style>'; ...">
 *   <style>report.css</style>
 *   <script type="application/json" id="data">{ ... }</script>
 *   <script>report.js</script>
 *
 * Nothing from the capture or the command line is written outside the data
 * block, and there it is JSON with <, >, & and U+2028/U+2029 escaped (so no
 * "</script>" or comment opener can end the block); the script puts every
 * string into the page as text (textContent, never markup).  The policy's
 * hashes are computed here from the bytes written, so only these two inline
 * elements may run or style; nothing is fetched.
 *
 * Sizes are bounded whatever the capture: the time series' bins and points
 * (<roce/timeseries.h>), at most RA_HTML_MAX_QPS rows of the per-QP table
 * (those with the most anomalies, then the most bytes), the PFC table (the
 * analyzer's cap), the anomalies roce-analyze keeps (--max-anomalies).
 */
#include "report_html.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include <roce/icrc.h>
#include <roce/timeseries.h>
#include <roce/version.h>

#include "json.h"
#include "report_common.h"

#define RA_HTML_MAX_QPS 2000
#define RA_HTML_MAX_META 1024

/* cli/analyze/html/report.{js,css}, generated into the build (RoceEmbed.cmake) */
extern const unsigned char ra_html_js[], ra_html_css[];
extern const size_t ra_html_js_len, ra_html_css_len;

struct html_meta {
	unsigned file;
	struct roce_cap_meta m;     /* m.text owned */
};

struct ra_html {
	char *path;
	FILE *f;
	roce_timeseries_t *ts;
	GArray *meta;               /* struct html_meta */
	uint64_t meta_dropped;
};

struct ra_html *ra_html_open(const char *path, roce_analyzer_t *an, char *errbuf, size_t len)
{
	char err[ROCE_ERRBUF_SIZE];
	struct ra_html *h = g_new0(struct ra_html, 1);

	h->path = g_strdup(path);
	h->f = fopen(path, "w");
	if (!h->f) {
		snprintf(errbuf, len, "%s: %s", path, g_strerror(errno));
		ra_html_free(h);
		return NULL;
	}
	h->ts = roce_timeseries_create(an, NULL, err);
	if (!h->ts) {
		snprintf(errbuf, len, "%s", err);
		ra_html_free(h);
		return NULL;
	}
	h->meta = g_array_new(FALSE, FALSE, sizeof(struct html_meta));
	return h;
}

void ra_html_file_meta(struct ra_html *h, unsigned file, const roce_capfile_t *c)
{
	unsigned n = roce_cap_meta_count(c);

	h->meta_dropped += roce_cap_meta_dropped(c);
	for (unsigned i = 0; i < n; i++) {
		struct html_meta hm = { .file = file };

		if (roce_cap_meta_get(c, i, &hm.m) != 0)
			continue;
		if (h->meta->len >= RA_HTML_MAX_META) {
			h->meta_dropped++;
			continue;
		}
		hm.m.text = g_strdup(hm.m.text);
		g_array_append_val(h->meta, hm);
	}
}

void ra_html_free(struct ra_html *h)
{
	if (!h)
		return;
	if (h->f)
		fclose(h->f);
	roce_timeseries_destroy(h->ts);
	if (h->meta) {
		for (unsigned i = 0; i < h->meta->len; i++)
			g_free((char *)g_array_index(h->meta, struct html_meta, i).m.text);
		g_array_free(h->meta, TRUE);
	}
	g_free(h->path);
	g_free(h);
}

/* ---- the data block ------------------------------------------------------- */

/* Anomaly-ish events of a stream: what the table and the graphs sort by. */
static uint64_t flow_trouble(const struct roce_flow_stats *f)
{
	return f->psn_gaps + f->duplicates + f->out_of_order + f->retransmissions + f->naks +
	       f->cnps + f->icrc_bad + f->malformed + f->unrecovered_psns;
}

/* true if a ranks before b */
static bool flow_before(const struct roce_flow_stats *a, const struct roce_flow_stats *b)
{
	uint64_t ta = flow_trouble(a), tb = flow_trouble(b);

	if (ta != tb)
		return ta > tb;
	if (a->bytes != b->bytes)
		return a->bytes > b->bytes;
	return a->id < b->id;
}

/* The RA_HTML_MAX_QPS highest-ranked streams: a min-heap (root = lowest ranked). */
struct qp_pick {
	struct roce_flow_stats *v;
	unsigned n;
	uint64_t total;
	/* streams with a time series: their stats, for labels and peers */
	const uint64_t *ids;
	unsigned nids;
	struct roce_flow_stats *tracked;
	bool *tracked_ok;
};

static void heap_down(struct roce_flow_stats *v, unsigned n, unsigned i)
{
	for (;;) {
		unsigned l = 2 * i + 1, r = l + 1, m = i;

		if (l < n && flow_before(&v[m], &v[l]))
			m = l;
		if (r < n && flow_before(&v[m], &v[r]))
			m = r;
		if (m == i)
			return;
		struct roce_flow_stats t = v[i];

		v[i] = v[m];
		v[m] = t;
		i = m;
	}
}

static void heap_up(struct roce_flow_stats *v, unsigned i)
{
	while (i) {
		unsigned p = (i - 1) / 2;

		if (!flow_before(&v[p], &v[i]))
			return;
		struct roce_flow_stats t = v[i];

		v[i] = v[p];
		v[p] = t;
		i = p;
	}
}

static int pick_flow(void *user, const struct roce_flow_stats *f)
{
	struct qp_pick *p = user;

	p->total++;
	for (unsigned i = 0; i < p->nids; i++)
		if (p->ids[i] == f->id) {
			p->tracked[i] = *f;
			p->tracked_ok[i] = true;
		}
	if (p->n < RA_HTML_MAX_QPS) {
		p->v[p->n] = *f;
		heap_up(p->v, p->n++);
	} else if (flow_before(f, &p->v[0])) {
		p->v[0] = *f;
		heap_down(p->v, p->n, 0);
	}
	return 0;
}

static int cmp_flow_rank(const void *a, const void *b)
{
	const struct roce_flow_stats *x = a, *y = b;

	return flow_before(x, y) ? -1 : flow_before(y, x) ? 1 : 0;
}

static void json_key_fields(struct jw *w, const struct roce_flow_key *k)
{
	char a[RA_ADDR_LEN];

	ra_addr_str(k->src, a);
	jw_str(w, "src", a);
	ra_addr_str(k->dst, a);
	jw_str(w, "dst", a);
	jw_u64(w, "dqpn", k->dqpn);
	jw_u64(w, "version", k->version);
}

static void json_frame(const struct ra_ctx *ctx, struct jw *w, uint64_t global)
{
	uint64_t local;

	ra_frame_locate(ctx, global, &local);
	jw_u64(w, NULL, local);
}

static void json_summary(const struct ra_ctx *ctx, struct jw *w, const struct roce_summary *s,
			 uint64_t flows_total)
{
	char buf[64];

	jw_obj_begin(w, "summary");
	jw_u64(w, "frames", s->frames);
	jw_u64(w, "bytes", s->bytes);
	jw_u64(w, "roce_frames", s->roce_frames);
	jw_u64(w, "rocev1_frames", s->rocev1_frames);
	jw_u64(w, "rocev2_frames", s->rocev2_frames);
	jw_u64(w, "qps", flows_total);
	jw_u64(w, "icrc_bad", s->icrc_bad);
	jw_u64(w, "malformed", s->malformed);
	jw_u64(w, "psn_gaps", s->psn_gaps);
	jw_u64(w, "lost_psns", s->lost_psns);
	jw_u64(w, "unrecovered_psns", s->unrecovered_psns);
	jw_u64(w, "acked_unseen_psns", s->acked_unseen_psns);
	jw_u64(w, "duplicates", s->duplicates);
	jw_u64(w, "out_of_order", s->out_of_order);
	jw_u64(w, "retransmissions", s->retransmissions);
	jw_u64(w, "naks", s->naks);
	jw_u64(w, "rnr_naks", s->rnr_naks);
	jw_u64(w, "acks", s->acks);
	jw_u64(w, "cnps", s->cnps);
	jw_u64(w, "ecn_ce", s->ecn_ce);
	jw_u64(w, "ecn_capable", s->ecn_capable);
	jw_u64(w, "pfc_frames", s->pfc_frames);
	jw_u64(w, "pause_frames", s->pause_frames);
	jw_u64(w, "pfc_storms", s->pfc_storms);
	jw_u64(w, "evicted_flows", s->evicted_flows);
	jw_u64(w, "anomalies", ctx->anom_total);
	jw_u64(w, "capture_warnings", ctx->capture_warnings);
	jw_u64(w, "capture_drops", ctx->capture_drops);
	jw_bool(w, "complete", !ctx->input_error && !ctx->stopped_by_count);
	if (ctx->have_first_ts) {
		ra_utc_str(ctx->min_ts_ns, buf, sizeof(buf));
		jw_str(w, "start", buf);
		jw_u64(w, "duration_ns", ctx->max_ts_ns - ctx->min_ts_ns);
	} else {
		jw_null(w, "start");
		jw_u64(w, "duration_ns", 0);
	}
	jw_u64(w, "pmtu", s->pmtu);
	jw_str(w, "filter", ctx->live_filter ? ctx->live_filter : ctx->o.filter);
	jw_obj_end(w);
}

static void json_files(const struct ra_html *h, const struct ra_ctx *ctx, struct jw *w)
{
	jw_arr_begin(w, "files");
	for (unsigned i = 0; i < ctx->n_files; i++) {
		const struct ra_file *rf = &ctx->files[i];

		jw_obj_begin(w, NULL);
		jw_str(w, "name", rf->name);
		jw_str(w, "format", rf->format);
		jw_u64(w, "frames", rf->frames);
		jw_bool(w, "complete", rf->complete);
		jw_arr_begin(w, "meta");
		for (unsigned k = 0; k < h->meta->len; k++) {
			const struct html_meta *m = &g_array_index(h->meta, struct html_meta, k);

			if (m->file != i)
				continue;
			jw_obj_begin(w, NULL);
			jw_str(w, "kind", roce_cap_meta_kind_name(m->m.kind));
			jw_u64(w, "section", m->m.section);
			if (m->m.kind >= ROCE_CAP_META_IF_NAME)
				jw_u64(w, "interface", m->m.ifindex);
			jw_str(w, "text", m->m.text);
			jw_obj_end(w);
		}
		jw_arr_end(w);
		jw_obj_end(w);
	}
	jw_arr_end(w);
	jw_u64(w, "meta_dropped", h->meta_dropped);
}

static void json_series(const roce_timeseries_t *ts, struct jw *w,
			const struct roce_ts_grid *g)
{
	const uint64_t *b = roce_timeseries_bins(ts);

	jw_obj_begin(w, "grid");
	jw_u64(w, "bin_ns", g->bin_ns);
	jw_u64(w, "nbins", g->nbins);
	jw_u64(w, "doublings", g->doublings);
	jw_obj_end(w);
	jw_obj_begin(w, "series");
	for (unsigned c = 0; c < ROCE_TS_COUNT; c++)
		jw_u64s(w, roce_ts_counter_name((enum roce_ts_counter)c), b + c, g->nbins,
			ROCE_TS_COUNT);
	jw_obj_end(w);
}

static void json_streams(const struct ra_ctx *ctx, const roce_timeseries_t *ts, struct jw *w,
			 const struct roce_ts_grid *g, const struct qp_pick *pk, unsigned *order,
			 unsigned ns)
{
	jw_arr_begin(w, "streams");
	for (unsigned j = 0; j < ns; j++) {
		unsigned i = order[j];
		struct roce_ts_stream s;
		int peer = -1;

		roce_timeseries_stream(ts, i, &s);
		/* the paired stream, when it has a series too */
		if (pk->tracked_ok[i] && pk->tracked[i].has_peer) {
			for (unsigned k = 0; k < ns; k++) {
				struct roce_ts_stream o;

				roce_timeseries_stream(ts, order[k], &o);
				if (!memcmp(&o.key, &pk->tracked[i].peer, sizeof(o.key)))
					peer = (int)k;
			}
		}
		jw_obj_begin(w, NULL);
		jw_u64(w, "id", s.id);
		json_key_fields(w, &s.key);
		if (pk->tracked_ok[i]) {
			jw_str(w, "transport", roce_transport_name(pk->tracked[i].transport));
			jw_bool(w, "request", pk->tracked[i].is_request);
			jw_u64(w, "pmtu", pk->tracked[i].pmtu);
		} else {
			jw_null(w, "transport");    /* evicted or expired since */
			jw_bool(w, "request", false);
			jw_u64(w, "pmtu", 0);
		}
		jw_i64(w, "peer", peer);
		jw_i64(w, "tracked_from_ns", ra_rel_ns(ctx, s.first_ts_ns));
		jw_u64(w, "frames", s.frames);
		jw_u64(w, "bytes", s.bytes);
		jw_u64(w, "anomalies", s.anomalies);
		jw_u64(w, "points_dropped", s.points_dropped);
		jw_u64s(w, "bytes_bin", s.bytes_bin, g->nbins, 1);
		jw_u32s(w, "cnps_bin", s.cnps_bin, g->nbins);
		/* a bin's PSN range is null where it has none (lo > hi), its ACKed PSN below 0 */
		jw_i64s_or_null(w, "tx_lo", s.tx_lo, g->nbins, s.tx_lo, s.tx_hi);
		jw_i64s_or_null(w, "tx_hi", s.tx_hi, g->nbins, s.tx_lo, s.tx_hi);
		jw_i64s_or_null(w, "ack_hi", s.ack_hi, g->nbins, NULL, NULL);
		/* [time since the first frame ns, PSN, kind, cause, len, frame, file] */
		jw_arr_begin(w, "points");
		for (uint32_t k = 0; k < s.n_points; k++) {
			const struct roce_ts_point *p = &s.points[k];

			jw_arr_begin(w, NULL);
			jw_i64(w, NULL, ra_rel_ns(ctx, p->ts_ns));
			jw_i64(w, NULL, p->psn);
			jw_str(w, NULL, roce_ts_point_name((enum roce_ts_point_kind)p->kind));
			jw_str(w, NULL, p->kind == ROCE_TS_PT_RETX ?
			       roce_retx_cause_name((enum roce_retx_cause)p->cause) : "");
			jw_u64(w, NULL, p->len);
			json_frame(ctx, w, p->frame);
			jw_u64(w, NULL, ra_frame_locate(ctx, p->frame, NULL));
			jw_arr_end(w);
		}
		jw_arr_end(w);
		jw_obj_end(w);
	}
	jw_arr_end(w);
	jw_u64(w, "streams_untracked_frames", roce_timeseries_untracked(ts));
	jw_u64(w, "streams_replaced", roce_timeseries_replaced(ts));
}

static void json_qps(const struct ra_ctx *ctx, struct jw *w, struct qp_pick *pk)
{
	static const char *const cols[] = {
		"src", "dst", "dqpn", "transport", "frames", "bytes", "psn_gaps", "lost_psns",
		"duplicates", "out_of_order", "retransmissions", "naks", "rnr_naks", "cnps",
		"ecn_ce", "unrecovered_psns", "acked_unseen_psns", "rtt_p50_us", "rtt_p99_us",
		"first_frame",
	};

	qsort(pk->v, pk->n, sizeof(*pk->v), cmp_flow_rank);
	jw_arr_begin(w, "qp_columns");
	for (size_t i = 0; i < G_N_ELEMENTS(cols); i++)
		jw_str(w, NULL, cols[i]);
	jw_arr_end(w);
	jw_arr_begin(w, "qps");
	for (unsigned i = 0; i < pk->n; i++) {
		const struct roce_flow_stats *f = &pk->v[i];
		char a[RA_ADDR_LEN];

		jw_arr_begin(w, NULL);
		ra_addr_str(f->key.src, a);
		jw_str(w, NULL, a);
		ra_addr_str(f->key.dst, a);
		jw_str(w, NULL, a);
		jw_u64(w, NULL, f->key.dqpn);
		jw_str(w, NULL, roce_transport_name(f->transport));
		jw_u64(w, NULL, f->frames);
		jw_u64(w, NULL, f->bytes);
		jw_u64(w, NULL, f->psn_gaps);
		jw_u64(w, NULL, f->lost_psns);
		jw_u64(w, NULL, f->duplicates);
		jw_u64(w, NULL, f->out_of_order);
		jw_u64(w, NULL, f->retransmissions);
		jw_u64(w, NULL, f->naks);
		jw_u64(w, NULL, f->rnr_naks);
		jw_u64(w, NULL, f->cnps);
		jw_u64(w, NULL, f->ecn_ce);
		jw_u64(w, NULL, f->unrecovered_psns);
		jw_u64(w, NULL, f->acked_unseen_psns);
		if (f->rtt.count) {
			jw_fixed(w, NULL, f->rtt.p50_ns, 3);
			jw_fixed(w, NULL, f->rtt.p99_ns, 3);
		} else {
			jw_null(w, NULL);
			jw_null(w, NULL);
		}
		json_frame(ctx, w, f->first_frame);
		jw_arr_end(w);
	}
	jw_arr_end(w);
	jw_u64(w, "qps_total", pk->total);
}

struct pfc_ctx {
	const struct ra_ctx *ctx;
	const roce_timeseries_t *ts;
	struct jw *w;
	uint64_t dur;
};

/*
 * p's paused time inside the capture: a pause still open at the end counts to
 * its deadline in the PFC table (docs/json.md), which may lie past the last
 * frame; only that last pause can (every other one ended at or before a
 * frame).  Its end is the end of the last interval of p's timeline; without a
 * timeline (past the time series' cap), the capture's duration bounds it.
 */
static uint64_t paused_in_capture(const struct pfc_ctx *pc, const struct roce_pfc_stats *p)
{
	uint64_t last = pc->ctx->max_ts_ns;

	for (unsigned i = 0; pc->ts && i < roce_timeseries_ntimelines(pc->ts); i++) {
		struct roce_ts_timeline l;
		uint64_t end, over;

		roce_timeseries_timeline(pc->ts, i, &l);
		if (l.priority != p->priority || l.interface != p->interface ||
		    memcmp(l.src_mac, p->src_mac, 6) != 0)
			continue;
		if (!l.n_pauses)
			break;
		end = l.pauses[l.n_pauses - 1].end_ns;
		over = end > last ? end - last : 0;
		return p->paused_ns > over ? p->paused_ns - over : 0;
	}
	return p->paused_ns < pc->dur ? p->paused_ns : pc->dur;
}

/*
 * "src_mac" of a PFC row or timeline: the MAC; with several capture interfaces the page's
 * label of the link, the interface's name (or "if N") before the MAC, as the text report's
 * IFACE column, so that report.js (the same bytes for every report) shows one row per
 * (interface, MAC, priority); "interface" and "if_name" follow.
 */
static void json_pfc_key(const struct ra_ctx *ctx, struct jw *w, const uint8_t mac[6],
			 int priority, uint32_t iface)
{
	char m[RA_MAC_LEN], b[64 + RA_MAC_LEN];

	ra_mac_str(mac, m);
	if (!ra_show_iface(ctx)) {
		jw_str(w, "src_mac", m);
		jw_i64(w, "priority", priority);
		return;
	}
	ra_iface_str(ctx, iface, b, 64);
	strcat(b, " ");
	strcat(b, m);
	jw_str(w, "src_mac", b);
	jw_i64(w, "priority", priority);
	ra_json_iface(ctx, w, iface);
}

static int json_pfc_row(void *user, const struct roce_pfc_stats *p)
{
	struct pfc_ctx *pc = user;
	struct jw *w = pc->w;
	uint64_t local;

	jw_obj_begin(w, NULL);
	json_pfc_key(pc->ctx, w, p->src_mac, p->priority, p->interface);
	jw_u64(w, "frames", p->frames);
	jw_u64(w, "xoff", p->xoff);
	jw_u64(w, "xon", p->xon);
	jw_u64(w, "paused_ns", p->paused_ns);
	jw_u64(w, "longest_pause_ns", p->longest_pause_ns);
	jw_u64(w, "storms", p->storms);
	jw_double(w, "paused_ratio", pc->dur ? (double)paused_in_capture(pc, p) / (double)pc->dur :
		  0.0, 6);
	ra_frame_locate(pc->ctx, p->first_frame, &local);
	jw_u64(w, "first_frame", local);
	jw_obj_end(w);
	return 0;
}

static void json_pfc(const struct ra_ctx *ctx, const roce_timeseries_t *ts, struct jw *w)
{
	struct pfc_ctx pc = {
		.ctx = ctx, .ts = ts, .w = w,
		.dur = ctx->have_first_ts ? ctx->max_ts_ns - ctx->min_ts_ns : 0,
	};

	jw_arr_begin(w, "pfc");
	roce_analyzer_foreach_pfc(ctx->an, json_pfc_row, &pc);
	jw_arr_end(w);
	/* [start, end] since the first frame (ns), storm, merged, frame, file */
	jw_arr_begin(w, "timelines");
	for (unsigned i = 0; i < roce_timeseries_ntimelines(ts); i++) {
		struct roce_ts_timeline l;

		roce_timeseries_timeline(ts, i, &l);
		jw_obj_begin(w, NULL);
		json_pfc_key(ctx, w, l.src_mac, l.priority, l.interface);
		jw_u64(w, "closed", l.closed);
		jw_u64(w, "storms", l.storms);
		jw_arr_begin(w, "pauses");
		for (uint32_t k = 0; k < l.n_pauses; k++) {
			const struct roce_ts_pause *p = &l.pauses[k];

			jw_arr_begin(w, NULL);
			jw_i64(w, NULL, ra_rel_ns(ctx, p->start_ns));
			jw_i64(w, NULL, ra_rel_ns(ctx, p->end_ns));
			jw_bool(w, NULL, p->storm);
			jw_bool(w, NULL, p->merged);
			json_frame(ctx, w, p->start_frame);
			jw_arr_end(w);
		}
		jw_arr_end(w);
		jw_obj_end(w);
	}
	jw_arr_end(w);
	jw_u64(w, "pauses_dropped", roce_timeseries_pauses_dropped(ts));
}

static void json_anomalies(const struct ra_ctx *ctx, struct jw *w)
{
	jw_arr_begin(w, "anomalies");
	for (uint64_t i = 0; i < ctx->n_anoms; i++) {
		const struct roce_anomaly *a = &ctx->anoms[i];
		uint64_t local;
		unsigned fi = ra_frame_locate(ctx, a->frame, &local);
		char buf[RA_ADDR_LEN + RA_ADDR_LEN + 32], s1[RA_ADDR_LEN], s2[RA_ADDR_LEN];
		char d[sizeof(a->detail) + 1];

		jw_obj_begin(w, NULL);
		jw_u64(w, "frame", local);
		if (ctx->n_files > 1)
			jw_str(w, "file", ctx->files[fi].name);
		jw_str(w, "type", roce_anomaly_name(a->type));
		jw_i64(w, "t_ns", ra_rel_ns(ctx, a->ts_ns));
		if (a->has_flow) {
			ra_addr_str(a->flow.src, s1);
			ra_addr_str(a->flow.dst, s2);
			snprintf(buf, sizeof(buf), "%s > %s QP 0x%06" PRIx32, s1, s2, a->flow.dqpn);
			jw_str(w, "where", buf);
		} else if (a->has_mac) {
			char m[RA_MAC_LEN], ifn[40];

			ra_mac_str(a->mac, m);
			ifn[0] = '\0';
			if (ra_show_iface(ctx)) {       /* "swp2 " (or "if 1 ") before the MAC */
				ra_iface_str(ctx, a->interface, ifn, sizeof(ifn) - 1);
				strcat(ifn, " ");
			}
			if (a->priority < 0)
				snprintf(buf, sizeof(buf), "%s%s PAUSE", ifn, m);
			else
				snprintf(buf, sizeof(buf), "%s%s priority %d", ifn, m, a->priority);
			jw_str(w, "where", buf);
		} else {
			jw_str(w, "where", "");
		}
		if (a->has_psn)
			jw_u64(w, "psn", a->psn);
		else
			jw_null(w, "psn");
		memcpy(d, a->detail, sizeof(a->detail));
		d[sizeof(a->detail)] = '\0';
		jw_str(w, "detail", d);
		jw_obj_end(w);
	}
	jw_arr_end(w);
	jw_u64(w, "anomalies_listed", ctx->n_anoms);
}

/* Stream slots in display order: most anomalies, then most bytes. */
static const roce_timeseries_t *sort_ts;

static int cmp_slot(const void *a, const void *b)
{
	struct roce_ts_stream x, y;

	roce_timeseries_stream(sort_ts, *(const unsigned *)a, &x);
	roce_timeseries_stream(sort_ts, *(const unsigned *)b, &y);
	if (x.anomalies != y.anomalies)
		return x.anomalies > y.anomalies ? -1 : 1;
	if (x.bytes != y.bytes)
		return x.bytes > y.bytes ? -1 : 1;
	return x.id < y.id ? -1 : x.id > y.id;
}

static void write_data(struct ra_html *h, const struct ra_ctx *ctx, FILE *f)
{
	struct roce_summary s;
	struct roce_ts_grid g;
	struct qp_pick pk = { 0 };
	unsigned ns = roce_timeseries_nstreams(h->ts);
	uint64_t *ids = g_new0(uint64_t, ns + 1);
	unsigned *order = g_new0(unsigned, ns + 1);
	struct jw *w = g_new(struct jw, 1);

	for (unsigned i = 0; i < ns; i++) {
		struct roce_ts_stream st;

		roce_timeseries_stream(h->ts, i, &st);
		ids[i] = st.id;
		order[i] = i;
	}
	/* the slots are sorted by a map from slot to stats: keep the slot numbering for
	 * pk.tracked (indexed by slot), sort only order[] */
	pk.v = g_new(struct roce_flow_stats, RA_HTML_MAX_QPS);
	pk.ids = ids;
	pk.nids = ns;
	pk.tracked = g_new0(struct roce_flow_stats, ns + 1);
	pk.tracked_ok = g_new0(bool, ns + 1);
	roce_analyzer_foreach_flow(ctx->an, pick_flow, &pk);
	sort_ts = h->ts;
	qsort(order, ns, sizeof(*order), cmp_slot);

	roce_analyzer_summary(ctx->an, &s);
	roce_timeseries_grid(h->ts, &g);

	jw_init(w, f, false);
	jw_html_safe(w);
	jw_obj_begin(w, NULL);
	jw_str(w, "generator", RA_PROG " " ROCE_VERSION_STRING);
	jw_i64(w, "origin_offset_ns", g.nbins ? ra_rel_ns(ctx, g.origin_ns) : 0);
	json_files(h, ctx, w);
	json_summary(ctx, w, &s, pk.total);
	jw_obj_begin(w, "anomaly_counts");
	for (int t = 0; t < ROCE_AN_COUNT; t++)
		jw_u64(w, roce_anomaly_name((enum roce_anomaly_type)t),
		       roce_anomaly_count(&s, (enum roce_anomaly_type)t));
	jw_obj_end(w);
	json_series(h->ts, w, &g);
	json_streams(ctx, h->ts, w, &g, &pk, order, ns);
	json_qps(ctx, w, &pk);
	json_pfc(ctx, h->ts, w);
	json_anomalies(ctx, w);
	jw_obj_end(w);
	jw_flush(w);

	g_free(w);
	g_free(pk.v);
	g_free(pk.tracked);
	g_free(pk.tracked_ok);
	g_free(ids);
	g_free(order);
}

/* ---- the page -------------------------------------------------------------- */

/* 'sha256-<base64>' of n bytes (CSP hash source) */
static char *csp_hash(const unsigned char *data, size_t n)
{
	GChecksum *ck = g_checksum_new(G_CHECKSUM_SHA256);
	guint8 dig[32];
	gsize dl = sizeof(dig);
	char *b64, *out;

	g_checksum_update(ck, data, (gssize)n);
	g_checksum_get_digest(ck, dig, &dl);
	g_checksum_free(ck);
	b64 = g_base64_encode(dig, dl);
	out = g_strdup_printf("'sha256-%s'", b64);
	g_free(b64);
	return out;
}

int ra_html_write(struct ra_html *h, const struct ra_ctx *ctx, char *errbuf, size_t len)
{
	char *js_hash = csp_hash(ra_html_js, ra_html_js_len);
	char *css_hash = csp_hash(ra_html_css, ra_html_css_len);
	FILE *f = h->f;
	int r = 0;

	fprintf(f,
		"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		"<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
		"script-src %s; style-src %s; img-src data:; base-uri 'none'; "
		"form-action 'none'\">\n"
		"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		"<meta name=\"generator\" content=\"%s %s\">\n"
		"<link rel=\"icon\" href=\"data:,\">\n"
		"<title>roce-analyze report</title>\n<style>",
		js_hash, css_hash, RA_PROG, ROCE_VERSION_STRING);
	fwrite(ra_html_css, 1, ra_html_css_len, f);
	fputs("</style>\n</head>\n<body>\n"
	      "<noscript><p>This report draws its charts and tables with its own inline script; "
	      "allow JavaScript for this file to see them.</p></noscript>\n"
	      "<div id=\"app\"></div>\n"
	      "<script type=\"application/json\" id=\"data\">", f);
	write_data(h, ctx, f);
	fputs("</script>\n<script>", f);
	fwrite(ra_html_js, 1, ra_html_js_len, f);
	fputs("</script>\n</body>\n</html>\n", f);
	g_free(js_hash);
	g_free(css_hash);
	if (fflush(f) != 0 || ferror(f)) {
		snprintf(errbuf, len, "%s: %s", h->path, g_strerror(errno));
		r = -1;
	}
	if (fclose(f) != 0 && !r) {
		snprintf(errbuf, len, "%s: %s", h->path, g_strerror(errno));
		r = -1;
	}
	h->f = NULL;
	return r;
}
