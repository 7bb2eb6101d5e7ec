/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * summary.c - roce-gen's closing summary: what was injected per fault kind
 * and what an analyzer must count on the written frames, as text or as
 * JSON with roce-analyze --json's counter names (docs/json.md), so a test
 * can compare the two documents key by key.
 */
#include <inttypes.h>
#include <stdio.h>

#include <roce/roce.h>

#include "gen.h"

struct counter {
	const char *name;
	uint64_t v;
};

#define N_SUMMARY 17

static void summary_counters(const struct rg_truth *t, struct counter c[N_SUMMARY])
{
	const struct counter v[N_SUMMARY] = {
		{ "frames", t->frames }, { "bytes", t->bytes },
		{ "roce_frames", t->roce_frames }, { "rocev1_frames", t->rocev1_frames },
		{ "rocev2_frames", t->rocev2_frames }, { "icrc_ok", t->icrc_ok },
		{ "icrc_bad", t->icrc_bad }, { "psn_gaps", t->psn_gaps },
		{ "lost_psns", t->lost_psns }, { "duplicates", t->duplicates },
		{ "out_of_order", t->out_of_order },
		{ "unrecovered_psns", t->unrecovered_psns },
		{ "retransmissions", t->retransmissions }, { "acks", t->acks },
		{ "naks", t->naks }, { "rnr_naks", t->rnr_naks }, { "cnps", t->cnps },
	};

	for (int i = 0; i < N_SUMMARY; i++)
		c[i] = v[i];
}

static void print_json(const struct rg_config *cfg, const struct rg_truth *t, FILE *f)
{
	struct counter c[N_SUMMARY];

	summary_counters(t, c);
	fprintf(f, "{\n  \"tool\": \"%s %s\",\n", RG_PROG, ROCE_VERSION_STRING);
	fprintf(f, "  \"seed\": %" PRIu64 ",\n  \"messages\": %" PRIu64 ",\n", cfg->seed,
		t->messages);
	fprintf(f, "  \"dropped_frames\": %" PRIu64 ",\n  \"injected\": {", t->dropped);
	for (int k = 0; k < RG_F_COUNT; k++)
		fprintf(f, "%s\n    \"%s\": %" PRIu64, k ? "," : "", rg_fault_name(k),
			t->injected[k]);
	fprintf(f, "\n  },\n  \"summary\": {\n");
	for (int i = 0; i < N_SUMMARY; i++)
		fprintf(f, "    \"%s\": %" PRIu64 ",\n", c[i].name, c[i].v);
	fprintf(f, "    \"gbn_episodes\": { \"nak\": %" PRIu64 ", \"rnr\": %" PRIu64
		", \"timeout\": %" PRIu64 " },\n", t->gbn_nak, t->gbn_rnr, t->gbn_timeout);
	fprintf(f, "    \"nak_codes\": { \"psn_seq_err\": %" PRIu64 ", \"invalid_req\": 0, "
		"\"remote_access\": 0, \"remote_op\": 0, \"invalid_rd_req\": 0 },\n",
		t->nak_seq_err);
	fprintf(f, "    \"ecn_ce\": %" PRIu64 ",\n    \"pfc_frames\": %" PRIu64
		",\n    \"pause_frames\": %" PRIu64 ",\n    \"pfc_storms\": %" PRIu64 "\n",
		t->ecn_ce, t->pfc_frames, t->pause_frames, t->pfc_storms);
	/* the sequencing counters summed over the streams of each transport (roce-analyze
	 * --json's qps[] rows by "transport") */
	fprintf(f, "  },\n  \"transports\": {");
	for (int tr = 0; tr < RG_TR_COUNT; tr++) {
		const struct rg_seq *q = &t->by_tr[tr];

		fprintf(f, "%s\n    \"%s\": { \"psn_gaps\": %" PRIu64 ", \"lost_psns\": %" PRIu64
			", \"duplicates\": %" PRIu64 ", \"out_of_order\": %" PRIu64
			", \"icrc_bad\": %" PRIu64 " }", tr ? "," : "", rg_transport_name(tr),
			q->psn_gaps, q->lost_psns, q->duplicates, q->out_of_order, q->icrc_bad);
	}
	fprintf(f, "\n  }\n}\n");
}

void rg_summary_print(const struct rg_config *cfg, const struct rg_truth *t, bool json, FILE *f)
{
	struct counter c[N_SUMMARY];
	bool any = false;

	if (cfg->script) {
		/* a script lists frames: no fault model, so no sequencing truth */
		if (json)
			fprintf(f, "{\n  \"tool\": \"%s %s\",\n  \"script\": true,\n  \"summary\": {"
				"\n    \"frames\": %" PRIu64 ",\n    \"bytes\": %" PRIu64
				",\n    \"roce_frames\": %" PRIu64 ",\n    \"rocev1_frames\": %" PRIu64
				",\n    \"rocev2_frames\": %" PRIu64 ",\n    \"pfc_frames\": %" PRIu64
				",\n    \"pause_frames\": %" PRIu64 "\n  }\n}\n", RG_PROG,
				ROCE_VERSION_STRING, t->frames, t->bytes, t->roce_frames,
				t->rocev1_frames, t->rocev2_frames, t->pfc_frames, t->pause_frames);
		else
			fprintf(f, "%s: %" PRIu64 " frames, %" PRIu64 " bytes (script)\n", RG_PROG,
				t->frames, t->bytes);
		return;
	}
	if (json) {
		print_json(cfg, t, f);
		return;
	}
	summary_counters(t, c);
	fprintf(f, "%s: %" PRIu64 " frames, %" PRIu64 " bytes, %" PRIu64 " messages (seed %"
		PRIu64 ")\n", RG_PROG, t->frames, t->bytes, t->messages, cfg->seed);
	fprintf(f, "Injected:");
	for (int k = 0; k < RG_F_COUNT; k++) {
		if (!t->injected[k])
			continue;
		fprintf(f, " %s %" PRIu64, rg_fault_name(k), t->injected[k]);
		any = true;
	}
	if (t->pfc_frames || t->pause_frames) {
		fprintf(f, " pfc_frames %" PRIu64 " pause_frames %" PRIu64, t->pfc_frames,
			t->pause_frames);
		any = true;
	}
	fprintf(f, "%s\n", any ? "" : " nothing");
	if (t->dropped)
		fprintf(f, "Frames lost before the capture point (not written): %" PRIu64 "\n",
			t->dropped);
	fprintf(f, "Expected from an analyzer:\n");
	for (int i = 2; i < N_SUMMARY; i++)
		fprintf(f, "  %-18s %" PRIu64 "\n", c[i].name, c[i].v);
	fprintf(f, "  %-18s nak %" PRIu64 ", rnr %" PRIu64 ", timeout %" PRIu64 "\n",
		"gbn_episodes", t->gbn_nak, t->gbn_rnr, t->gbn_timeout);
	fprintf(f, "  %-18s %" PRIu64 "\n  %-18s %" PRIu64 "\n  %-18s %" PRIu64
		"\n  %-18s %" PRIu64 "\n", "ecn_ce", t->ecn_ce, "pfc_frames", t->pfc_frames,
		"pause_frames", t->pause_frames, "pfc_storms", t->pfc_storms);
	/* --json's "transports", those that have frames, one line each */
	for (int tr = 0, head = 0; tr < RG_TR_COUNT; tr++) {
		const struct rg_seq *q = &t->by_tr[tr];

		if (!q->frames)
			continue;
		if (!head++)
			fprintf(f, "Expected by transport (its streams summed):\n");
		fprintf(f, "  %-18s psn_gaps %" PRIu64 ", lost_psns %" PRIu64 ", duplicates %"
			PRIu64 ", out_of_order %" PRIu64 ", icrc_bad %" PRIu64 "\n",
			rg_transport_name(tr), q->psn_gaps, q->lost_psns, q->duplicates,
			q->out_of_order, q->icrc_bad);
	}
}
