// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * report_frames.c - roce-analyze --frames: one line per RoCE / PFC / PAUSE
 * frame, as text or (with --json) as JSON Lines.
 *
 * The capture interface (tshark's frame.interface_id / frame.interface_name):
 * a line is written when its frame was analysed, before the rest of the
 * capture is known, so it carries the interface once the run has analysed
 * frames from more than one interface, this frame included (ctx->n_ifaces,
 * ifaces.h): from the first frame of a second interface on, every later line
 * does; a one-interface capture's lines never do.
 */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>

#include <glib.h>

#include <roce/analyzer.h>
#include <roce/icrc.h>
#include <roce/opcode.h>
#include <roce/pkt.h>

#include "json.h"
#include "report_common.h"

static const char *icrc_name(enum roce_icrc_status s)
{
	switch (s) {
	case ROCE_ICRC_OK: return "ok";
	case ROCE_ICRC_BAD: return "bad";
	default: return "unverified";
	}
}

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
	for (unsigned i = 0; i < ROCE_EVI_COUNT; i++) {
		uint32_t bit = 1u << i;

		if (!(events & bit))
			continue;
		if (skip_dup && (bit & (ROCE_EV_ICRC_BAD | ROCE_EV_MALFORMED)))
			continue;
		pos += (size_t)snprintf(buf + pos, pos < len ? len - pos : 0, "%s%s",
					pos ? "," : "", roce_event_name(bit));
	}
	return pos;
}

void ra_frame_text(const struct ra_ctx *ctx, const struct ra_frame *fr, FILE *f)
{
	const struct roce_pkt *p = fr->pkt;
	const struct roce_frame_result *r = fr->res;
	uint32_t events = r ? r->events : 0;
	char t[32], a[RA_ADDR_LEN], b[RA_ADDR_LEN], names[512];
	size_t n;

	if (ctx->o.n_files > 1)
		fprintf(f, "%s:", ctx->files[fr->file].name);
	if (fr->no_ts || !ra_rel_ok(ctx, fr->ts_ns))
		snprintf(t, sizeof(t), "-");
	else
		ra_rel_str(ra_rel_ns(ctx, fr->ts_ns), t, sizeof(t));
	fprintf(f, "%7" PRIu64 " %11s ", fr->local_no, t);
	if (ra_show_iface(ctx)) {
		char ifn[40];

		ra_iface_str(ctx, fr->iface, ifn, sizeof(ifn));
		fprintf(f, "%s ", ifn);
	}

	if (p->kind == ROCE_KIND_PFC || p->kind == ROCE_KIND_PAUSE) {
		ra_mac_str(p->src_mac, a);
		ra_mac_str(p->dst_mac, b);
		fprintf(f, "%-5s %s -> %s", p->kind == ROCE_KIND_PFC ? "PFC" : "PAUSE", a, b);
		if (p->kind == ROCE_KIND_PFC) {
			for (int i = 0; i < 8; i++) {
				if (!(p->pfc_enable & (1u << i)))
					continue;
				fprintf(f, " p%d=%u", i, p->pfc_quanta[i]);
				if ((events & ROCE_EV_PFC) && p->pfc_quanta[i]) {
					ra_us_str(r->pause_ns[i], t, sizeof(t));
					fprintf(f, "(%sus)", t);
				}
			}
		} else {
			fprintf(f, " quanta=%u", p->pfc_quanta[0]);
			if ((events & ROCE_EV_PAUSE) && p->pfc_quanta[0]) {
				ra_us_str(r->pause_ns[0], t, sizeof(t));
				fprintf(f, "(%sus)", t);
			}
		}
	} else {
		ra_addr_str(p->src, a);
		ra_addr_str(p->dst, b);
		fprintf(f, "v%u %s -> %s ", p->version, a, b);
		if (has_bth(p))
			fprintf(f, "%s dqpn 0x%06x psn %u", roce_opcode_name(p->bth.opcode),
				p->bth.dqpn, p->bth.psn);
		else
			fputs("-", f);
		fprintf(f, " icrc %s", icrc_name(p->icrc_status));
		if (events & ROCE_EV_ACK_RTT) {
			ra_us_str(r->rtt_ns, t, sizeof(t));
			fprintf(f, " rtt %sus", t);
		}
		if (events & (ROCE_EV_PSN_GAP | ROCE_EV_OUT_OF_ORDER | ROCE_EV_DUPLICATE |
			      ROCE_EV_RETRANSMISSION))
			fprintf(f, " expected %u", r->expected_psn);
		if (events & ROCE_EV_ACKED_UNSEEN)
			fprintf(f, " acked_unseen %u", r->acked_unseen_psns);
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
		for (unsigned i = 0; i < ROCE_EVI_COUNT; i++)
			if (events & (1u << i))
				jw_str(w, NULL, roce_event_name(1u << i));
	}
	jw_arr_end(w);
}

void ra_frame_json(const struct ra_ctx *ctx, const struct ra_frame *fr, FILE *f)
{
	const struct roce_pkt *p = fr->pkt;
	const struct roce_frame_result *r = fr->res;
	uint32_t events = r ? r->events : 0;
	uint32_t findings = p->findings | (r ? r->findings : 0);
	char a[RA_ADDR_LEN];
	struct jw w;

	jw_init(&w, f, false);
	jw_obj_begin(&w, NULL);
	jw_u64(&w, "frame", fr->local_no);
	if (ctx->o.n_files > 1)
		jw_str(&w, "file", ctx->files[fr->file].name);
	if (ra_show_iface(ctx))
		ra_json_iface(ctx, &w, fr->iface);
	if (fr->no_ts) {        /* SPB, or outside 1970..2554 */
		jw_null(&w, "ts");
		jw_null(&w, "time_relative");
	} else {
		jw_fixed(&w, "ts", fr->ts_ns, 9);
		if (ra_rel_ok(ctx, fr->ts_ns))
			jw_sfixed(&w, "time_relative", ra_rel_ns(ctx, fr->ts_ns), 9);
		else
			jw_null(&w, "time_relative");
	}
	jw_u64(&w, "len", p->wirelen);

	if (p->kind == ROCE_KIND_PFC || p->kind == ROCE_KIND_PAUSE) {
		jw_str(&w, "kind", p->kind == ROCE_KIND_PFC ? "pfc" : "pause");
		ra_mac_str(p->src_mac, a);
		jw_str(&w, "src_mac", a);
		ra_mac_str(p->dst_mac, a);
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
		ra_addr_str(p->src, a);
		jw_str(&w, "src", a);
		ra_addr_str(p->dst, a);
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
		if (events & ROCE_EV_ACKED_UNSEEN)
			jw_u64(&w, "acked_unseen_psns", r->acked_unseen_psns);
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
		ra_json_frame_ref(ctx, &w, "ref_frame", "ref_file", r->ref_frame);
	json_names(&w, "events", 0, events, false);
	json_names(&w, "findings", findings, 0, true);
	jw_obj_end(&w);
	jw_end(&w);
}
