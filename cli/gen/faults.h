/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faults.h - the fault injector (faults.c: which packet gets which fault,
 * pause trains and their truth) as the traffic engine (engine.c, which
 * plays the recovery sequences) uses it.
 */
#ifndef RG_FAULTS_H
#define RG_FAULTS_H

#include "gen.h"

/* What happens to one request packet on its first transmission. */
enum rg_pkt_fate {
	RG_FATE_NONE = 0,
	RG_FATE_DROP,
	RG_FATE_BAD_ICRC,
	RG_FATE_BAD_PAYLOAD,
	RG_FATE_DUP,
	RG_FATE_REORDER,
	RG_FATE_CE
};

/* The fault injector: prepared lists (sorted by PSN) and the RNG streams
 * used for rate-based faults (separate from the traffic RNG, so adding a
 * fault does not change the traffic; the unreliable services' losses,
 * damage, duplicates and reordering draw from urng, so that they leave the
 * RC and XRC packets' faults as they were before UC and UD had them). */
struct rg_faults {
	const struct rg_config *c;
	struct rg_rng rng, urng;
	struct rg_psn_item *list[RG_F_COUNT];
	unsigned n[RG_F_COUNT];
	bool any;               /* some fault is configured */
};

int rg_faults_init(struct rg_faults *f, const struct rg_config *c);
void rg_faults_free(struct rg_faults *f);

/* Does fault k hit (QP index qp, PSN psn)?  Exact list first, then the rate. */
bool rg_fault_hits(struct rg_faults *f, enum rg_fault_kind k, uint32_t qp, uint32_t psn);

/* Fate of a request packet (one fault per packet; order: drop, bad ICRC,
 * bad payload, duplicate, reorder, CE).  has_payload / can_reorder say
 * which kinds are possible. */
enum rg_pkt_fate rg_fault_fate(struct rg_faults *f, uint32_t qp, uint32_t psn, bool rc,
			       bool has_payload, bool can_reorder);

/* Fate of a UC or UD packet: CE drawn first as for a READ request (rg_fault_fate() with
 * rc false), then drop, bad ICRC, bad payload, duplicate, reorder from urng, the first
 * of those that hits winning over CE.  can_lose: the stream's first packet is never
 * lost, damaged or reordered; can_reorder: no packet is held back already. */
enum rg_pkt_fate rg_fault_fate_unrel(struct rg_faults *f, uint32_t qp, uint32_t psn,
				     bool has_payload, bool can_lose, bool can_reorder);

/* ---- pause trains ----------------------------------------------------------- */

struct rg_pause_state {
	const struct rg_pause *p;
	uint64_t t0;            /* absolute time of the first frame */
	uint64_t n_xoff;        /* XOFF frames in the train */
	uint64_t next;          /* index of the next frame (n_xoff = the XON) */
	bool done;
};

struct rg_pauses {
	unsigned n;
	struct rg_pause_state s[RG_MAX_PAUSES];
	const struct rg_config *c;
};

void rg_pauses_init(struct rg_pauses *ps, const struct rg_config *c, uint64_t t0);

/* Time of the earliest pending pause frame; false when none is left. */
bool rg_pauses_next(const struct rg_pauses *ps, uint64_t *ts, unsigned *which);

/* Build the next frame of train i (60 bytes) and advance it. */
int rg_pauses_build(struct rg_pauses *ps, unsigned i, uint8_t *buf, size_t cap, size_t *len);

/* Add the trains' storms to the truth (pfc_storms), from what was written:
 * written[i] frames of train i. */
void rg_pauses_truth(const struct rg_pauses *ps, struct rg_truth *t);

#endif /* RG_FAULTS_H */
