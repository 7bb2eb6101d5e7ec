/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unrel.c - roce-gen's unreliable services: UC SEND / RDMA WRITE messages (cut by the
 * PMTU into FIRST / MIDDLE... / LAST or ONLY, RETH on the first WRITE packet, ImmDt on
 * the last, no AckReq, PSN + 1 per packet) and UD SEND_ONLY (DETH), with the faults
 * that can hit them.  Nothing is acknowledged or resent, so what a fault does on the
 * wire is all the capture shows:
 *
 *   drop / bad ICRC / bad payload  the PSN is missing (a damaged frame is written, and
 *                                  the receiver drops it): the stream's next packet, in
 *                                  this message or a later one, shows the gap, which
 *                                  stays; no NAK, no go-back-N
 *   duplicate                      the packet twice in a row
 *   reorder                        the packet is held back and follows the stream's next
 *                                  packet: a gap of one that it fills
 *   ecn_ce                         CE mark, the notification point's CNP
 *
 * Timeout, RNR and READ loss do not apply (no ACK, no RNR NAK, no READ on UC or UD).
 * A stream's first packet is never lost, damaged or reordered (nothing before it would
 * show the gap), as on RC.
 */
#include <stdlib.h>
#include <string.h>

#include <roce/buf.h>
#include <roce/opcode.h>

#include "engine.h"

/* A slot of the pool of held-back packets, 1-based; 0 when the pool cannot grow (the
 * packet then simply goes in order). */
static uint32_t hold_get(struct gen *g)
{
	if (g->hold_nfree)
		return g->hold_free[--g->hold_nfree] + 1;
	if (g->hold_used == g->hold_cap) {
		uint32_t cap = g->hold_cap ? g->hold_cap * 2 : 16;
		struct roce_frame_spec *h;
		uint32_t *fr;

		h = realloc(g->hold, cap * sizeof(*h));
		if (!h)
			return 0;
		g->hold = h;
		fr = realloc(g->hold_free, cap * sizeof(*fr));
		if (!fr)
			return 0;
		g->hold_free = fr;
		g->hold_cap = cap;
	}
	return ++g->hold_used;
}

static void hold_put(struct gen *g, uint32_t h)
{
	g->hold_free[g->hold_nfree++] = h - 1;
}

/* The held packet of u goes out after the packet that overtook it: it fills the gap. */
static void release(struct gen *g, struct ustream *u, bool swapped)
{
	struct tag tg = { 0 };

	if (swapped) {
		tg.ooo = 1;
		g->t->injected[RG_F_REORDER]++;
	} else {
		/* nothing overtook it: in order, after the PSNs lost before it */
		tg.lost = u->held_pending;
	}
	rg_eng_emit(g, &g->hold[u->held - 1], &tg, false);
	hold_put(g, u->held);
	u->held = 0;
	u->held_pending = 0;
}

/* One packet s of an unreliable stream u (message m), with its fate. */
static void unrel_packet(struct gen *g, const struct msg *m, struct ustream *u,
			 struct roce_frame_spec *s)
{
	enum rg_pkt_fate fate;
	struct tag tg = { 0 };
	uint32_t h;

	fate = rg_fault_fate_unrel(&g->f, m->q->index, s->bth.psn, s->payload_len > 0, u->seen,
				   !u->held);
	u->seen = true;
	switch (fate) {
	case RG_FATE_DROP:
		g->t->injected[RG_F_DROP]++;
		g->t->dropped++;
		u->pending++;
		return;
	case RG_FATE_BAD_ICRC:
	case RG_FATE_BAD_PAYLOAD:
		/* written, but the receiver drops it: it moves no PSN state */
		g->t->injected[fate == RG_FATE_BAD_ICRC ? RG_F_BAD_ICRC : RG_F_BAD_PAYLOAD]++;
		s->bad_icrc = fate == RG_FATE_BAD_ICRC;
		rg_eng_emit(g, s, NULL, fate == RG_FATE_BAD_PAYLOAD);
		u->pending++;
		return;
	case RG_FATE_REORDER:
		h = hold_get(g);
		if (h) {
			g->hold[h - 1] = *s;
			u->held = h;
			u->held_pending = u->pending;
			u->pending = 0;
			return;
		}
		fate = RG_FATE_NONE;
		break;
	case RG_FATE_CE:
		g->t->injected[RG_F_CE]++;
		s->tclass |= 3;
		break;
	default:
		break;
	}
	/* the gap this packet shows: the PSNs lost since the last packet written, the held
	 * one and those lost before it included */
	tg.lost = u->pending + (u->held ? u->held_pending + 1 : 0);
	u->pending = 0;
	rg_eng_emit(g, s, &tg, false);
	if (u->held)
		release(g, u, true);
	if (fate == RG_FATE_CE)
		rg_eng_cnp(g, m);
	if (fate == RG_FATE_DUP) {
		struct tag td = { 0 };

		g->t->injected[RG_F_DUP]++;
		td.dup = 1;
		g->ts += RG_DUP_DELAY_NS;       /* (engine.h) */
		rg_eng_emit(g, s, &td, false);
	}
}

void rg_send_uc(struct gen *g, struct msg *m)
{
	struct roce_frame_spec s;

	for (uint32_t k = 0; k < m->npk && !g->stop; k++) {
		rg_eng_req_spec(g, m, k, &s);
		unrel_packet(g, m, &m->q->uc, &s);
	}
}

void rg_send_ud(struct gen *g, struct msg *m)
{
	struct roce_frame_spec s;
	struct qp *q = m->q;

	rg_eng_base_spec(g, q, true, q->ud_a, &s);
	s.bth.opcode = ROCE_OP_UD_SEND_ONLY;
	s.bth.dqpn = q->ud_b;
	s.bth.psn = q->ud_psn;
	s.bth.se = 1;
	s.deth.qkey = 0x11111111;
	s.deth.src_qp = q->ud_a;
	s.payload = g->payload;
	s.payload_len = m->size;
	unrel_packet(g, m, &q->ud, &s);
	q->ud_psn = roce_psn_add(q->ud_psn, 1);
}

void rg_unrel_flush(struct gen *g)
{
	if (!g->hold_used)
		return;
	for (uint32_t i = 0; i < g->nqps && !g->stop; i++) {
		struct qp *q = &g->qps[i];

		if (q->uc.held)
			release(g, &q->uc, false);
		if (q->ud.held)
			release(g, &q->ud, false);
	}
}

void rg_unrel_free(struct gen *g)
{
	free(g->hold);
	free(g->hold_free);
	g->hold = NULL;
	g->hold_free = NULL;
	g->hold_used = g->hold_cap = g->hold_nfree = 0;
}
