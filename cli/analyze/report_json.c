// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * report_json.c - roce-analyze's end-of-run JSON document: summary, files,
 * qps, pfc, pause, anomalies.  Keys are documented in docs/json.md.
 */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <string.h>

#include <glib.h>

#include <roce/analyzer.h>
#include <roce/icrc.h>
#include <roce/opcode.h>
#include <roce/pkt.h>

#include "json.h"
#include "report_common.h"

/* JSON keys for enum roce_nak_code. */
static const char *const nak_code_keys[5] = {
	"psn_seq_err", "invalid_req", "remote_access", "remote_op", "invalid_rd_req"
};

/* Empty distributions (one per key: json_dist_frag) and all-zero counter
 * objects are the same text in most rows: rendered once, then copied. */
static void json_dist_body(struct jw *w, const char *key, const struct roce_dist *d)
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

static struct jw_frag empty_dist[5], zero_gbn, zero_naks;

static void json_dist(struct jw *w, const char *key, const struct roce_dist *d,
	struct jw_frag *empty)
{
	size_t at;

	if (d->count || !empty) {
		json_dist_body(w, key, d);
		return;
	}
	if (jw_frag_put(w, empty))
		return;
	at = jw_frag_begin(w);
	json_dist_body(w, key, d);
	jw_frag_end(w, empty, at);
}

/*
 * The text of the addresses formatted last: rows of the same host pairs (a
 * stream and its peer, many QPs between two hosts) repeat them.
 */
#define ADDR_CACHE 4
static struct {
	uint8_t addr[16];
	bool valid;
	char text[RA_ADDR_LEN];
} addr_cache[ADDR_CACHE];
static unsigned addr_next;

static const char *addr_text(const uint8_t a[16])
{
	unsigned i;

	for (i = 0; i < ADDR_CACHE; i++)
		if (addr_cache[i].valid && memcmp(addr_cache[i].addr, a, 16) == 0)
			return addr_cache[i].text;
	i = addr_next++ % ADDR_CACHE;
	memcpy(addr_cache[i].addr, a, 16);
	ra_addr_str(a, addr_cache[i].text);
	addr_cache[i].valid = true;
	return addr_cache[i].text;
}

static void json_flow_key(struct jw *w, const struct roce_flow_key *k)
{
	jw_u64(w, "version", k->version);
	jw_str(w, "src", addr_text(k->src));
	jw_str(w, "dst", addr_text(k->dst));
	jw_u64(w, "dqpn", k->dqpn);
}

static void json_gbn_body(struct jw *w, const uint64_t ep[4])
{
	jw_obj_begin(w, "gbn_episodes");
	for (int c = ROCE_RETX_NAK; c <= ROCE_RETX_TIMEOUT; c++)
		jw_u64(w, roce_retx_cause_name((enum roce_retx_cause)c), ep[c]);
	jw_obj_end(w);
}

static void json_gbn(struct jw *w, const uint64_t ep[4])
{
	size_t at;

	if (ep[ROCE_RETX_NAK] || ep[ROCE_RETX_RNR] || ep[ROCE_RETX_TIMEOUT]) {
		json_gbn_body(w, ep);
		return;
	}
	if (jw_frag_put(w, &zero_gbn))
		return;
	at = jw_frag_begin(w);
	json_gbn_body(w, ep);
	jw_frag_end(w, &zero_gbn, at);
}

static void json_nak_codes_body(struct jw *w, const uint64_t codes[5])
{
	jw_obj_begin(w, "nak_codes");
	for (int i = 0; i < 5; i++)
		jw_u64(w, nak_code_keys[i], codes[i]);
	jw_obj_end(w);
}

static void json_nak_codes(struct jw *w, const uint64_t codes[5])
{
	size_t at;

	if (codes[0] || codes[1] || codes[2] || codes[3] || codes[4]) {
		json_nak_codes_body(w, codes);
		return;
	}
	if (jw_frag_put(w, &zero_naks))
		return;
	at = jw_frag_begin(w);
	json_nak_codes_body(w, codes);
	jw_frag_end(w, &zero_naks, at);
}

/*
 * The sequencing, NAK and CNP counters of struct roce_counters, which the
 * "summary" object and every "qps" row share: one list, so the two cannot
 * drift apart.
 */
static void json_seq_counters(struct jw *w, const struct roce_counters *c, uint64_t acked_unseen,
			      uint64_t copies)
{
	jw_u64(w, "psn_gaps", c->psn_gaps);
	jw_u64(w, "lost_psns", c->lost_psns);
	jw_u64(w, "duplicates", c->duplicates);
	jw_u64(w, "out_of_order", c->out_of_order);
	jw_u64(w, "unrecovered_psns", c->unrecovered_psns);
	jw_u64(w, "acked_unseen_psns", acked_unseen);
	jw_u64(w, "capture_copies", copies);
	jw_u64(w, "retransmissions", c->retransmissions);
	json_gbn(w, c->gbn_episodes);
	jw_u64(w, "acks", c->acks);
	jw_u64(w, "naks", c->naks);
	jw_u64(w, "rnr_naks", c->rnr_naks);
	json_nak_codes(w, c->nak_codes);
	jw_u64(w, "cnps", c->cnps);
}

/* Frames per encapsulation: only when some frame was encapsulated (docs/json.md). */
static void json_encap(struct jw *w, const struct roce_summary *s)
{
	uint64_t any = 0;

	for (unsigned i = ROCE_ENCAP_NONE + 1; i < ROCE_ENCAP_COUNT; i++)
		any |= s->encap_frames[i];
	if (!any)
		return;
	jw_obj_begin(w, "encapsulation");
	for (unsigned i = ROCE_ENCAP_NONE + 1; i < ROCE_ENCAP_COUNT; i++)
		jw_u64(w, roce_encap_name((enum roce_encap)i), s->encap_frames[i]);
	jw_obj_end(w);
}

static void json_summary(const struct ra_ctx *ctx, struct jw *w, const struct roce_summary *s)
{
	uint64_t dur = ctx->have_first_ts ? ctx->max_ts_ns - ctx->min_ts_ns : 0;

	jw_obj_begin(w, "summary");
	jw_u64(w, "files", ctx->n_files);
	jw_u64(w, "frames", s->frames);
	jw_u64(w, "bytes", s->bytes);
	jw_bool(w, "complete", !ctx->input_error && !ctx->stopped_by_count);
	jw_bool(w, "stopped_by_count", ctx->stopped_by_count);
	jw_bool(w, "interrupted", ctx->interrupted != 0);
	if (ctx->have_first_ts) {
		/* first / last frame with a timestamp, and the earliest / latest */
		jw_fixed(w, "first_ts", ctx->first_ts_ns, 9);
		jw_fixed(w, "last_ts", ctx->last_ts_ns, 9);
		jw_fixed(w, "earliest_ts", ctx->min_ts_ns, 9);
		jw_fixed(w, "latest_ts", ctx->max_ts_ns, 9);
	} else {
		jw_null(w, "first_ts");
		jw_null(w, "last_ts");
		jw_null(w, "earliest_ts");
		jw_null(w, "latest_ts");
	}
	jw_fixed(w, "duration_s", dur, 9);
	jw_u64(w, "frames_without_ts", ctx->frames_without_ts);
	jw_u64(w, "capture_warnings", ctx->capture_warnings);
	jw_u64(w, "capture_drops", ctx->capture_drops);
	jw_str(w, "filter", ctx->live_filter ? ctx->live_filter : ctx->o.filter);
	jw_u64(w, "frames_filtered_out", ctx->filtered_out);
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
	jw_u64(w, "streams", s->flows_active);
	json_seq_counters(w, &s->counters, s->acked_unseen_psns, s->capture_copies);
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
	json_encap(w, s);
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
		jw_u64(w, "capture_warnings", rf->warnings);
		jw_u64(w, "capture_drops", rf->drops);
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
	ra_json_frame_ref(ctx, w, "first_frame", "first_file", f->first_frame);
	jw_fixed(w, "first_ts", f->first_ts_ns, 9);
	jw_fixed(w, "last_ts", f->last_ts_ns, 9);
	jw_u64(w, "frames", f->frames);
	jw_u64(w, "bytes", f->bytes);
	jw_u64(w, "payload_bytes", f->payload_bytes);
	jw_u64(w, "messages", f->messages);
	json_seq_counters(w, &f->counters, f->acked_unseen_psns, f->capture_copies);
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
	json_dist(w, "rtt_us", &f->rtt, &empty_dist[0]);
	json_dist(w, "read_first_us", &f->read_first, &empty_dist[1]);
	json_dist(w, "read_last_us", &f->read_last, &empty_dist[2]);
	json_dist(w, "nak_response_us", &f->nak_response, &empty_dist[3]);
	json_dist(w, "recovery_us", &f->recovery, &empty_dist[4]);
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

struct qp_cb {
	const struct ra_ctx *ctx;
	struct jw *w;
};

static int json_qp_cb(void *user, const struct roce_flow_stats *f)
{
	const struct qp_cb *q = user;

	json_qp(q->ctx, q->w, f);
	return 0;
}

static void json_pfc_row(const struct ra_ctx *ctx, struct jw *w, const struct roce_pfc_stats *p)
{
	char m[RA_MAC_LEN];

	jw_obj_begin(w, NULL);
	jw_str(w, "type", p->priority < 0 ? "pause" : "pfc");
	ra_mac_str(p->src_mac, m);
	jw_str(w, "src_mac", m);
	if (p->priority < 0)
		jw_null(w, "priority");
	else
		jw_i64(w, "priority", p->priority);
	if (ra_show_iface(ctx))
		ra_json_iface(ctx, w, p->interface);
	ra_json_frame_ref(ctx, w, "first_frame", "first_file", p->first_frame);
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
	ra_json_frame_ref(ctx, w, "frame", "file", a->frame);
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
		char m[RA_MAC_LEN];

		ra_mac_str(a->mac, m);
		jw_str(w, "src_mac", m);
		if (a->priority < 0)
			jw_null(w, "priority");
		else
			jw_i64(w, "priority", a->priority);
		if (ra_show_iface(ctx))
			ra_json_iface(ctx, w, a->interface);
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
	struct ra_tables t;
	struct jw w;
	struct qp_cb qc;

	roce_analyzer_summary(ctx->an, &s);
	ra_tables_get(ctx, &t);
	jw_init(&w, f, pretty);
	jw_obj_begin(&w, NULL);
	jw_str(&w, "tool", RA_PROG " " ROCE_VERSION_STRING);
	json_summary(ctx, &w, &s);

	/* streamed: each row is written as the analyzer hands it over */
	jw_arr_begin(&w, "qps");
	qc.ctx = ctx;
	qc.w = &w;
	roce_analyzer_foreach_flow(ctx->an, json_qp_cb, &qc);
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
	ra_tables_free(&t);
}
