/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * engine.h - roce-gen's engine state, shared by the scenario engine (engine.c: RC, READ,
 * atomics, XRC, the run), the unreliable services (unrel.c: UC messages and UD sends
 * with their faults) and the frame output under both (frames.c).  Internal to cli/gen.
 */
#ifndef RG_ENGINE_H
#define RG_ENGINE_H

#include <roce/build.h>

#include "faults.h"

/*
 * A duplicate fault's copy arrives this long after the original: a network
 * duplicate, later than roce-analyze's capture-copy window (ROCE_COPY_WINDOW_NS,
 * 4 us), so that the analyzer counts it as the receiver saw it (docs/json.md
 * "Capture copies"), not as a frame the capture carried twice.
 */
#define RG_DUP_DELAY_NS 10000u

enum { EP_NONE = 0, EP_NAK, EP_RNR, EP_TIMEOUT };

/* Counters one frame makes visible (added when the frame is written); 8 bytes without
 * padding, so that account() tells "none" by one load. */
struct tag {
	uint32_t lost;          /* > 0: this frame reveals a gap of lost PSNs */
	uint8_t dup, ooo, retx, episode;
};
_Static_assert(sizeof(struct tag) == sizeof(uint64_t), "struct tag has padding");

/* The sender side of one unreliable stream (UC or UD, requester -> responder): nothing is
 * resent, so a loss shows at the stream's next packet, whenever it comes. */
struct ustream {
	uint32_t pending;       /* PSNs lost since the last packet written */
	uint32_t held;          /* a packet held back to follow the next one (reorder):
				 * 1 + its index in gen.hold; 0: none */
	uint32_t held_pending;  /* PSNs lost before the held packet */
	bool seen;              /* the stream's first packet was sent */
};

/*
 * The lost tail of an RC or XRC message: its last packets (from hole on) were lost (dropped,
 * or damaged and dropped by the receiver) and nothing of the stream followed them yet.  The
 * stream's next request packet reveals it (engine.c reveal()); at the end of the run the
 * retry timeout resends it (engine.c flush_tails()).
 */
struct tail {
	uint64_t va;
	uint32_t size, psn0, hole;
	uint32_t msn;           /* the responder's MSN before the message */
	uint8_t verb;
	bool on, ackreq;
};

struct qp {
	uint32_t index;         /* global QP index */
	unsigned pair;
	uint32_t qpn_a, qpn_b;  /* RC: requester's / responder's QP */
	uint32_t ud_a, ud_b, xrc_a, xrc_b, srq;
	uint32_t uc_a, uc_b;    /* UC: requester's / responder's QP */
	uint32_t psn, ud_psn, xrc_psn, uc_psn;
	uint32_t msn, xrc_msn;
	uint64_t msgs;
	uint64_t va;
	uint64_t last_cnp;
	bool cnp_sent;
	bool rc_seen, xrc_seen, resp_seen;  /* a stream's first packet was sent */
	struct ustream uc, ud;
	struct tail rc_tail, xrc_tail;
};

struct gen {
	const struct rg_config *c;
	struct rg_output *out;
	struct rg_truth *t;
	struct rg_rng rng;
	struct rg_faults f;
	struct rg_pauses pauses;
	struct qp *qps;
	uint32_t nqps;
	struct roce_frame_spec *bases;  /* per pair: [A->B, B->A], built on first use */
	uint64_t ts, frac;
	uint64_t frames;
	bool stop;
	int err;
	uint64_t verb_total;
	uint64_t by_op[256];            /* RoCE frames written, by opcode (account()) */
	uint64_t by_syndrome[256];      /* ... carrying an AETH, by syndrome */
	/* packets held back by reordering on unreliable streams (unrel.c): a pool of
	 * specs, grown on demand, and the stack of its free slots */
	struct roce_frame_spec *hold;
	uint32_t *hold_free;
	uint32_t hold_used, hold_cap, hold_nfree;
	uint8_t payload[4096 + 64];
	uint8_t buf[RG_FRAME_MAX];
};

/* A message being sent. */
struct msg {
	struct qp *q;
	enum rg_verb verb;
	bool xrc, uc;
	uint32_t size, npk, psn0, dqpn;
	uint64_t va;
	bool ackreq;
};

/* ---- frames.c, for engine.c and unrel.c ------------------------------------------------ */

/* Build, optionally corrupt, stamp, write and account one RoCE frame. */
void rg_eng_emit(struct gen *g, const struct roce_frame_spec *s, const struct tag *tg,
		 bool bad_payload);
/* A spec for a frame of q's host pair, requester -> responder when a_to_b. */
void rg_eng_base_spec(struct gen *g, const struct qp *q, bool a_to_b, uint32_t src_qpn,
		      struct roce_frame_spec *s);
/* Request packet k of a SEND / WRITE message (RC, XRC or UC). */
void rg_eng_req_spec(struct gen *g, const struct msg *m, uint32_t k, struct roce_frame_spec *s);
/* The notification point's CNP to m's requester QP (at most one per --cnp-interval). */
void rg_eng_cnp(struct gen *g, const struct msg *m);
/* Pause frames due at or before ts (all: every one left) go out. */
void rg_eng_flush_pauses(struct gen *g, uint64_t ts, bool all);
/* End of the run: the counts by opcode and syndrome into the truth. */
void rg_eng_account_totals(struct gen *g);

/* ---- unrel.c --------------------------------------------------------------------------- */

/* A UC SEND / WRITE message (m->npk packets from m->psn0) with its faults. */
void rg_send_uc(struct gen *g, struct msg *m);
/* A UD SEND_ONLY with its faults. */
void rg_send_ud(struct gen *g, struct msg *m);
/* End of the run: the packets still held back go out (in order: nothing followed them). */
void rg_unrel_flush(struct gen *g);
void rg_unrel_free(struct gen *g);

#endif /* RG_ENGINE_H */
