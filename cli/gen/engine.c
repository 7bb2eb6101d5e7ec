/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * engine.c - roce-gen's scenario engine: host pairs and QPs, the verbs mix,
 * message sizes, PMTU segmentation (FIRST/MIDDLE/LAST/ONLY), ACKs with
 * AckReq coalescing, READ responses, atomics, UD and XRC, and the
 * recovery sequences that follow a fault:
 *
 *   drop / bad ICRC / bad payload  the responder drops the packet; the next
 *                                  packet reveals the hole: NAK (PSN sequence
 *                                  error, PSN = first missing), go-back-N
 *                                  from it to the newest PSN sent.  A lost
 *                                  tail (a message's last packets) waits for
 *                                  the stream's next request packet (the QP's
 *                                  next message, any verb; XRC: its next XRC
 *                                  message), which reveals it the same way;
 *                                  the tail's ACK follows the resend.  At the
 *                                  end of the run the requester times out and
 *                                  resends a tail still pending, in order
 *   timeout                        the message's ACK is lost: after the retry
 *                                  timeout the whole message is resent
 *   rnr                            RNR NAK after a SEND's first packet, the
 *                                  RNR timer, the resend
 *   duplicate / reorder            the network copies / swaps packets
 *   read_loss                      a READ response is lost: the requester
 *                                  re-reads from the missing PSN with a
 *                                  shorter DMA length (as rxe does)
 *   ecn_ce                         CE mark, CNP from the notification point
 *
 * UC messages and UD sends (unreliable: never acknowledged, never resent) and their
 * faults are unrel.c's; building, writing and accounting each frame is frames.c's.
 *
 * One timeline: messages are generated one after the other (QPs round
 * robin), every frame advances the clock by its time at the target rate,
 * waits (RNR timer, retry timeout) advance it further.  Each frame carries
 * the counters it makes visible at the capture point; they are added to
 * the truth only when the frame is written, so -c N stays consistent.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <roce/buf.h>
#include <roce/build.h>
#include <roce/opcode.h>
#include <roce/pkt.h>

#include "engine.h"

/* ---- messages ----------------------------------------------------------------------- */

static uint32_t pick_size(struct gen *g)
{
	const struct rg_sizes *z = &g->c->sizes;
	uint64_t tw = 0, r;

	switch (z->kind) {
	case RG_SIZE_UNIFORM:
		return z->min + (uint32_t)rg_rng_below(&g->rng, (uint64_t)z->max - z->min + 1);
	case RG_SIZE_EXP: {
		double u = ((double)(rg_rng_next(&g->rng) >> 11) + 1.0) * 0x1.0p-53;
		double v = -log(u) * z->mean;

		return v >= z->max ? z->max : (uint32_t)v;
	}
	default:
		break;
	}
	if (z->n == 1)
		return z->size[0];
	for (unsigned i = 0; i < z->n; i++)
		tw += z->weight[i];
	r = rg_rng_below(&g->rng, tw);
	for (unsigned i = 0; i < z->n; i++) {
		if (r < z->weight[i])
			return z->size[i];
		r -= z->weight[i];
	}
	return z->size[z->n - 1];
}

static enum rg_verb pick_verb(struct gen *g)
{
	uint64_t r;

	if (g->verb_total == g->c->verb_weight[RG_WRITE])
		return RG_WRITE;
	r = rg_rng_below(&g->rng, g->verb_total);
	for (int v = 0; v < RG_VERB_COUNT; v++) {
		if (r < g->c->verb_weight[v])
			return (enum rg_verb)v;
		r -= g->c->verb_weight[v];
	}
	return RG_WRITE;
}

static uint32_t npackets(uint32_t size, uint32_t pmtu)
{
	return size ? (size + pmtu - 1) / pmtu : 1;
}

static void ack_spec(struct gen *g, const struct msg *m, uint32_t psn, uint8_t syndrome,
		     uint32_t msn, struct roce_frame_spec *s)
{
	rg_eng_base_spec(g, m->q, false, m->xrc ? m->q->xrc_b : m->q->qpn_b, s);
	s->bth.opcode = m->xrc ? ROCE_OP_XRC_ACKNOWLEDGE : ROCE_OP_RC_ACKNOWLEDGE;
	s->bth.dqpn = m->xrc ? m->q->xrc_a : m->q->qpn_a;
	s->bth.psn = psn;
	s->aeth.syndrome = syndrome;
	s->aeth.msn = msn & 0xffffff;
}

/*
 * Go back to packet index from and resend up to newest: the first nfill
 * packets had been lost (each fills the hole: out of order), the others
 * had been seen (duplicates).  Every one is a retransmission; the first
 * starts the go-back-N episode.
 */
static void go_back(struct gen *g, const struct msg *m, uint32_t from, uint32_t newest,
		    uint32_t nfill, uint8_t cause)
{
	struct roce_frame_spec s;

	for (uint32_t k = from; k <= newest && !g->stop; k++) {
		struct tag tg = { 0 };

		tg.retx = 1;
		tg.episode = k == from ? cause : EP_NONE;
		if (k - from < nfill)
			tg.ooo = 1;
		else
			tg.dup = 1;
		rg_eng_req_spec(g, m, k, &s);
		rg_eng_emit(g, &s, &tg, false);
	}
}

/* The message whose lost tail tl keeps (q's RC stream, or its XRC stream when xrc). */
static void tail_msg(struct gen *g, struct qp *q, bool xrc, const struct tail *tl,
		     struct msg *m)
{
	memset(m, 0, sizeof(*m));
	m->q = q;
	m->verb = (enum rg_verb)tl->verb;
	m->xrc = xrc;
	m->size = tl->size;
	m->npk = npackets(tl->size, g->c->pmtu);
	m->psn0 = tl->psn0;
	m->dqpn = xrc ? q->xrc_b : q->qpn_b;
	m->va = tl->va;
	m->ackreq = tl->ackreq;
}

/* The ACK the lost tail tl's message tm asked for (AckReq), once its packets arrived. */
static void tail_ack(struct gen *g, const struct tail *tl, const struct msg *tm)
{
	struct roce_frame_spec s;

	if (!tm->ackreq)
		return;
	ack_spec(g, tm, roce_psn_add(tm->psn0, tm->npk - 1), 0x1f, (tl->msn + 1) & 0xffffff, &s);
	rg_eng_emit(g, &s, NULL, false);
}

/*
 * s, the stream's next request packet after a lost tail, reaches the responder out of
 * sequence: the capture sees it (the gap), the NAK (PSN sequence error, the first missing
 * PSN), the requester's go-back-N from the missing PSN (the tail's packets fill the hole,
 * s comes again as a duplicate), then the ACK the lost tail's AckReq asked for.
 */
static void reveal(struct gen *g, struct qp *q, bool xrc, const struct roce_frame_spec *s)
{
	struct tail *tl = xrc ? &q->xrc_tail : &q->rc_tail;
	struct roce_frame_spec s2;
	struct tag tg = { 0 };
	struct msg tm;

	tail_msg(g, q, xrc, tl, &tm);
	tl->on = false;
	tg.lost = tm.npk - tl->hole;
	rg_eng_emit(g, s, &tg, false);
	ack_spec(g, &tm, roce_psn_add(tm.psn0, tl->hole), 0x60, tl->msn, &s2);
	rg_eng_emit(g, &s2, NULL, false);
	go_back(g, &tm, tl->hole, tm.npk - 1, tm.npk - tl->hole, EP_NAK);
	memset(&tg, 0, sizeof(tg));
	tg.dup = 1;
	tg.retx = 1;
	rg_eng_emit(g, s, &tg, false);
	tail_ack(g, tl, &tm);
}

/*
 * End of the run: the lost tails nothing revealed (the QP sent nothing more on the stream)
 * are resent after the retry timeout, in order as far as the capture can tell, each
 * followed by the ACK its AckReq asked for.
 */
static void flush_tails(struct gen *g)
{
	bool waited = false;

	for (uint32_t i = 0; i < g->nqps && !g->stop; i++) {
		for (int x = 0; x < 2 && !g->stop; x++) {
			struct qp *q = &g->qps[i];
			struct tail *tl = x ? &q->xrc_tail : &q->rc_tail;
			struct roce_frame_spec s;
			struct msg tm;

			if (!tl->on)
				continue;
			tl->on = false;
			if (!waited)
				g->ts += g->c->timeout_ns;  /* the retry timers run at once */
			waited = true;
			tail_msg(g, q, x, tl, &tm);
			for (uint32_t k = tl->hole; k < tm.npk && !g->stop; k++) {
				rg_eng_req_spec(g, &tm, k, &s);
				rg_eng_emit(g, &s, NULL, false);
			}
			tail_ack(g, tl, &tm);
		}
	}
}

static bool fate_loses(enum rg_pkt_fate f)
{
	return f == RG_FATE_DROP || f == RG_FATE_BAD_ICRC || f == RG_FATE_BAD_PAYLOAD;
}

/* send_rc() of a run without faults: the packets once, in order, then the ACK if asked. */
static void send_rc_clean(struct gen *g, struct msg *m)
{
	struct roce_frame_spec s;
	struct qp *q = m->q;
	uint32_t *msnp = m->xrc ? &q->xrc_msn : &q->msn;
	bool *seen = m->xrc ? &q->xrc_seen : &q->rc_seen;

	for (uint32_t k = 0; k < m->npk && !g->stop; k++) {
		rg_eng_req_spec(g, m, k, &s);
		*seen = true;
		rg_eng_emit(g, &s, NULL, false);
	}
	*msnp = (*msnp + 1) & 0xffffff;
	if (g->stop || !m->ackreq)
		return;
	ack_spec(g, m, roce_psn_add(m->psn0, m->npk - 1), 0x1f, *msnp, &s);
	rg_eng_emit(g, &s, NULL, false);
}

/* RC/XRC WRITE or SEND message with faults and recovery. */
static void send_rc(struct gen *g, struct msg *m)
{
	const struct rg_config *c = g->c;
	struct qp *q = m->q;
	struct roce_frame_spec s, s2;
	bool sendlike = m->xrc || m->verb == RG_SEND || m->verb == RG_SEND_IMM;
	bool timeout = false, rnr = false;
	uint32_t hole = UINT32_MAX;     /* first packet lost since the last one received */
	uint32_t *msnp = m->xrc ? &q->xrc_msn : &q->msn;
	bool *seen = m->xrc ? &q->xrc_seen : &q->rc_seen;
	struct tail *tl = m->xrc ? &q->xrc_tail : &q->rc_tail;

	/* message-level faults (no call when no fault is configured: no draw either) */
	if (g->f.any && rg_fault_hits(&g->f, RG_F_TIMEOUT, q->index, m->psn0)) {
		timeout = true;
		m->ackreq = true;
		g->t->injected[RG_F_TIMEOUT]++;
	} else if (g->f.any && sendlike && rg_fault_hits(&g->f, RG_F_RNR, q->index, m->psn0) &&
		   !tl->on) {
		/* (after a lost tail the first packet is out of sequence: NAK, not RNR NAK) */
		rnr = true;
		g->t->injected[RG_F_RNR]++;
	}

	for (uint32_t k = 0; k < m->npk && !g->stop; k++) {
		enum rg_pkt_fate fate = RG_FATE_NONE;
		struct tag tg = { 0 };

		rg_eng_req_spec(g, m, k, &s);
		if (rnr && k == 0) {
			/* RNR NAK, the RNR timer, then the resend of this packet */
			*seen = true;
			rg_eng_emit(g, &s, NULL, false);
			ack_spec(g, m, s.bth.psn, (uint8_t)(0x20 | (c->rnr_timer & 0x1f)), *msnp,
				 &s2);
			rg_eng_emit(g, &s2, NULL, false);
			g->ts += (uint64_t)roce_rnr_timer_us(c->rnr_timer) * 1000u;
			tg.dup = 1;
			tg.retx = 1;
			tg.episode = EP_RNR;
			rg_eng_emit(g, &s, &tg, false);
			continue;
		}
		if (!timeout && g->f.any)
			fate = rg_fault_fate(&g->f, q->index, s.bth.psn, true, s.payload_len > 0,
					     k + 1 < m->npk);
		if (hole != UINT32_MAX && !fate_loses(fate))
			fate = RG_FATE_NONE;    /* the packet that reveals a hole stays clean */
		if (k == 0 && !*seen && (fate_loses(fate) || fate == RG_FATE_REORDER))
			fate = RG_FATE_NONE;    /* nothing before a stream's first packet shows a gap */
		*seen = true;
		if (k == 0 && tl->on) {
			/* the message's first packet reveals the stream's lost tail (and
			 * stays clean, as a packet that reveals a hole does) */
			reveal(g, q, m->xrc, &s);
			continue;
		}
		if (fate_loses(fate)) {
			g->t->injected[fate == RG_FATE_DROP ? RG_F_DROP :
				       fate == RG_FATE_BAD_ICRC ? RG_F_BAD_ICRC :
				       RG_F_BAD_PAYLOAD]++;
			if (hole == UINT32_MAX)
				hole = k;
			if (fate == RG_FATE_DROP) {
				g->t->dropped++;
				continue;
			}
			/* written, but the receiver drops it: it moves no PSN state */
			s.bad_icrc = fate == RG_FATE_BAD_ICRC;
			rg_eng_emit(g, &s, NULL, fate == RG_FATE_BAD_PAYLOAD);
			continue;
		}
		if (hole != UINT32_MAX) {
			/* k reveals the gap; the responder NAKs the first missing PSN at
			 * once and the requester goes back to it */
			tg.lost = k - hole;
			rg_eng_emit(g, &s, &tg, false);
			ack_spec(g, m, roce_psn_add(m->psn0, hole), 0x60, *msnp, &s2);
			rg_eng_emit(g, &s2, NULL, false);
			go_back(g, m, hole, k, k - hole, EP_NAK);
			hole = UINT32_MAX;
			continue;
		}
		if (fate == RG_FATE_REORDER) {
			struct roce_frame_spec nx;
			struct tag t1 = { 0 }, t2 = { 0 };

			g->t->injected[RG_F_REORDER]++;
			rg_eng_req_spec(g, m, k + 1, &nx);
			t1.lost = 1;
			t2.ooo = 1;
			rg_eng_emit(g, &nx, &t1, false);
			rg_eng_emit(g, &s, &t2, false);
			k++;
			continue;
		}
		if (fate == RG_FATE_CE) {
			g->t->injected[RG_F_CE]++;
			s.tclass |= 3;
		}
		rg_eng_emit(g, &s, &tg, false);
		if (fate == RG_FATE_CE)
			rg_eng_cnp(g, m);
		if (fate == RG_FATE_DUP) {
			/* on the wire a copy is a one-packet go-back without NAK */
			struct tag td = { 0 };

			g->t->injected[RG_F_DUP]++;
			td.dup = 1;
			td.retx = 1;
			td.episode = EP_TIMEOUT;
			g->ts += RG_DUP_DELAY_NS;
			rg_eng_emit(g, &s, &td, false);
		}
	}
	if (hole != UINT32_MAX && !g->stop) {
		/* lost tail: nothing revealed it yet; the stream's next request packet
		 * will (or, at the end of the run, the retry timeout); its ACK waits */
		tl->on = true;
		tl->va = m->va;
		tl->size = m->size;
		tl->psn0 = m->psn0;
		tl->hole = hole;
		tl->msn = *msnp;
		tl->verb = (uint8_t)m->verb;
		tl->ackreq = m->ackreq;
	}
	*msnp = (*msnp + 1) & 0xffffff;
	if (g->stop || hole != UINT32_MAX)
		return;     /* (a timeout fault draws no packet fates: no hole) */
	if (timeout) {
		g->ts += c->timeout_ns;
		go_back(g, m, 0, m->npk - 1, 0, EP_TIMEOUT);
	}
	if (m->ackreq) {
		ack_spec(g, m, roce_psn_add(m->psn0, m->npk - 1), 0x1f, *msnp, &s);
		rg_eng_emit(g, &s, NULL, false);
	}
}

/* ---- READ, atomics --------------------------------------------------------------- */

static void read_resp_spec(struct gen *g, const struct msg *m, uint32_t psn0, uint32_t len,
			   uint32_t k, uint32_t n, uint32_t msn, struct roce_frame_spec *s)
{
	bool first = k == 0, last = k + 1 == n;
	uint8_t op;

	rg_eng_base_spec(g, m->q, false, m->xrc ? m->q->xrc_b : m->q->qpn_b, s);
	if (first && last)
		op = ROCE_OP_RC_RDMA_READ_RESPONSE_ONLY;
	else if (first)
		op = ROCE_OP_RC_RDMA_READ_RESPONSE_FIRST;
	else if (last)
		op = ROCE_OP_RC_RDMA_READ_RESPONSE_LAST;
	else
		op = ROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE;
	s->bth.opcode = op;
	s->bth.dqpn = m->q->qpn_a;
	s->bth.psn = roce_psn_add(psn0, k);
	s->aeth.syndrome = 0x1f;
	s->aeth.msn = msn & 0xffffff;
	s->payload = g->payload;
	s->payload_len = last ? len - k * g->c->pmtu : g->c->pmtu;
}

static void read_req_spec(struct gen *g, const struct msg *m, uint32_t psn, uint64_t va,
			  uint32_t len, struct roce_frame_spec *s)
{
	rg_eng_base_spec(g, m->q, true, m->q->qpn_a, s);
	s->bth.opcode = ROCE_OP_RC_RDMA_READ_REQUEST;
	s->bth.dqpn = m->dqpn;
	s->bth.psn = psn;
	s->bth.ackreq = 1;
	s->reth.va = va;
	s->reth.rkey = 0x1000 + m->q->index;
	s->reth.dma_len = len;
}

/*
 * A single-packet request (READ request, atomic): of its fault draw only CE is acted on,
 * the request then leaves with ECN CE and the responder's CNP follows it.  After a lost
 * tail of the QP's RC stream it reveals the tail instead (and stays clean).
 */
static void emit_request_ce(struct gen *g, struct msg *m, struct roce_frame_spec *s)
{
	bool ce = rg_fault_fate(&g->f, m->q->index, m->psn0, false, false, false) ==
		  RG_FATE_CE;

	if (m->q->rc_tail.on) {
		reveal(g, m->q, false, s);
		return;
	}
	if (ce) {
		g->t->injected[RG_F_CE]++;
		s->tclass |= 3;
	}
	rg_eng_emit(g, s, NULL, false);
	if (ce)
		rg_eng_cnp(g, m);
}

static void send_read(struct gen *g, struct msg *m)
{
	const uint32_t pmtu = g->c->pmtu;
	struct roce_frame_spec s;
	struct qp *q = m->q;
	uint32_t lost = UINT32_MAX;

	read_req_spec(g, m, m->psn0, m->va, m->size, &s);
	emit_request_ce(g, m, &s);
	q->msn = (q->msn + 1) & 0xffffff;
	for (uint32_t k = 0; k < m->npk && !g->stop; k++) {
		struct tag tg = { 0 };

		read_resp_spec(g, m, m->psn0, m->size, k, m->npk, q->msn, &s);
		if (lost == UINT32_MAX && 
		    rg_fault_hits(&g->f, RG_F_READ_LOSS, q->index, s.bth.psn)) {
			lost = k;
			g->t->injected[RG_F_READ_LOSS]++;
			g->t->dropped++;
			continue;
		}
		if (lost != UINT32_MAX && k == lost + 1)
			tg.lost = 1;
		q->resp_seen = true;
		rg_eng_emit(g, &s, &tg, false);
	}
	if (lost == UINT32_MAX || g->stop)
		return;
	/*
	 * Re-read from the missing PSN: a new READ request whose PSN lies inside
	 * the original range, VA advanced and DMA length shortened by what
	 * arrived (rxe's retry of a partially answered READ).  A lost last
	 * response is noticed only by the retry timer.
	 */
	if (lost + 1 == m->npk)
		g->ts += g->c->timeout_ns;
	{
		uint32_t off = lost * pmtu, len = m->size - off;
		uint32_t n = npackets(len, pmtu), psn = roce_psn_add(m->psn0, lost);
		struct tag tr = { 0 };

		read_req_spec(g, m, psn, m->va + off, len, &s);
		tr.dup = 1;
		tr.retx = 1;
		tr.episode = EP_TIMEOUT;
		rg_eng_emit(g, &s, &tr, false);
		for (uint32_t k = 0; k < n && !g->stop; k++) {
			struct tag tg = { 0 };

			if (k == 0 && lost + 1 < m->npk)
				tg.ooo = 1;     /* fills the gap the next response showed */
			else if (k)
				tg.dup = 1;     /* arrived the first time */
			read_resp_spec(g, m, psn, len, k, n, q->msn, &s);
			rg_eng_emit(g, &s, &tg, false);
		}
	}
}

static void send_atomic(struct gen *g, struct msg *m)
{
	struct roce_frame_spec s;
	struct qp *q = m->q;
	bool cas = rg_rng_below(&g->rng, 2) != 0;

	rg_eng_base_spec(g, q, true, q->qpn_a, &s);
	s.bth.opcode = cas ? ROCE_OP_RC_CMP_SWAP : ROCE_OP_RC_FETCH_ADD;
	s.bth.dqpn = m->dqpn;
	s.bth.psn = m->psn0;
	s.bth.ackreq = 1;
	s.atomic.va = m->va & ~7ull;
	s.atomic.rkey = 0x1000 + q->index;
	s.atomic.swap_add = cas ? 0x1111 : 1;
	s.atomic.compare = cas ? q->msgs : 0;
	emit_request_ce(g, m, &s);
	q->msn = (q->msn + 1) & 0xffffff;
	rg_eng_base_spec(g, q, false, q->qpn_b, &s);
	s.bth.opcode = ROCE_OP_RC_ATOMIC_ACKNOWLEDGE;
	s.bth.dqpn = q->qpn_a;
	s.bth.psn = m->psn0;
	s.aeth.syndrome = 0x1f;
	s.aeth.msn = q->msn;
	s.atomic_ack = q->msgs;
	rg_eng_emit(g, &s, NULL, false);
}

/* ---- the run ---------------------------------------------------------------------------- */

static int setup(struct gen *g, const struct rg_config *c, struct rg_output *out,
		 struct rg_truth *t)
{
	struct rg_rng psn_rng, uc_psn_rng;

	memset(g, 0, sizeof(*g));
	g->c = c;
	g->out = out;
	g->t = t;
	memset(t, 0, sizeof(*t));
	rg_rng_seed(&g->rng, c->seed);
	rg_rng_seed(&psn_rng, c->seed ^ 0x70736e0000000000ull);     /* "psn" */
	/* UC's PSNs: their own stream, so the other QPs' PSNs are those of earlier versions */
	rg_rng_seed(&uc_psn_rng, c->seed ^ 0x756370736e000000ull);   /* "ucpsn" */
	for (int v = 0; v < RG_VERB_COUNT; v++)
		g->verb_total += c->verb_weight[v];
	for (size_t i = 0; i < sizeof(g->payload); i++)
		g->payload[i] = (uint8_t)(i * 7 + 1);
	g->nqps = c->qps * c->hosts;
	g->qps = calloc(g->nqps, sizeof(*g->qps));
	g->bases = calloc(2 * (size_t)c->hosts, sizeof(*g->bases));
	if (!g->qps || !g->bases)
		return -1;
	for (uint32_t i = 0; i < g->nqps; i++) {
		struct qp *q = &g->qps[i];
		uint32_t b = c->qpn_base + 8 * i;

		q->index = i;
		q->pair = i % c->hosts;
		q->qpn_a = b;
		q->qpn_b = b + 1;
		q->ud_a = b + 2;
		q->ud_b = b + 3;
		q->xrc_a = b + 4;
		q->xrc_b = b + 5;
		q->srq = b + 6;
		/* the last number of the eight on both hosts (QP numbers are per host) */
		q->uc_a = q->uc_b = b + 7;
		q->psn = q->ud_psn = q->xrc_psn = q->uc_psn = c->first_psn;
		if (c->random_psn) {
			q->psn = (uint32_t)rg_rng_next(&psn_rng) & 0xffffff;
			q->ud_psn = (uint32_t)rg_rng_next(&psn_rng) & 0xffffff;
			q->xrc_psn = (uint32_t)rg_rng_next(&psn_rng) & 0xffffff;
			q->uc_psn = (uint32_t)rg_rng_next(&uc_psn_rng) & 0xffffff;
		}
		q->va = 0x7f0000000000ull + ((uint64_t)i << 32);
	}
	if (rg_faults_init(&g->f, c))
		return -1;
	g->ts = c->start_ns;
	rg_pauses_init(&g->pauses, c, c->start_ns);
	return 0;
}

int rg_generate(const struct rg_config *c, struct rg_output *out, struct rg_truth *t,
		char *err, size_t errlen)
{
	struct gen *g = malloc(sizeof(*g));
	uint64_t limit = c->count_messages_set ? c->count_messages :
		c->count_frames ? UINT64_MAX : 1000;

	if (c->script) {
		free(g);
		return rg_script_run(c, out, t, err, errlen);
	}
	if (!g || setup(g, c, out, t)) {
		snprintf(err, errlen, "out of memory");
		if (g) {
			free(g->qps);
			free(g->bases);
		}
		free(g);
		return -1;
	}
	for (uint64_t n = 0; n < limit && !g->stop; n++) {
		struct qp *q = &g->qps[n % g->nqps];
		struct msg m;

		memset(&m, 0, sizeof(m));
		m.q = q;
		m.verb = pick_verb(g);
		m.size = pick_size(g);
		m.va = q->va + (q->msgs & 0xffff) * 0x10000ull;
		q->msgs++;
		switch (m.verb) {
		case RG_UD_SEND:
			if (m.size > c->pmtu)
				m.size = c->pmtu;
			rg_send_ud(g, &m);
			break;
		case RG_UC_WRITE:
		case RG_UC_WRITE_IMM:
		case RG_UC_SEND:
		case RG_UC_SEND_IMM:
			m.uc = true;
			m.dqpn = q->uc_b;
			m.psn0 = q->uc_psn;
			m.npk = npackets(m.size, c->pmtu);
			q->uc_psn = roce_psn_add(q->uc_psn, m.npk);
			rg_send_uc(g, &m);
			break;
		case RG_ATOMIC:
			m.dqpn = q->qpn_b;
			m.psn0 = q->psn;
			m.npk = 1;
			q->psn = roce_psn_add(q->psn, 1);
			send_atomic(g, &m);
			break;
		case RG_READ:
			m.dqpn = q->qpn_b;
			m.psn0 = q->psn;
			m.npk = npackets(m.size, c->pmtu);
			q->psn = roce_psn_add(q->psn, m.npk);
			send_read(g, &m);
			break;
		default:
			m.xrc = m.verb == RG_XRC;
			m.dqpn = m.xrc ? q->xrc_b : q->qpn_b;
			m.psn0 = m.xrc ? q->xrc_psn : q->psn;
			m.npk = npackets(m.size, c->pmtu);
			m.ackreq = q->msgs % c->ack_every == 0;
			if (m.xrc)
				q->xrc_psn = roce_psn_add(q->xrc_psn, m.npk);
			else
				q->psn = roce_psn_add(q->psn, m.npk);
			if (g->f.any)
				send_rc(g, &m);
			else
				send_rc_clean(g, &m);
			break;
		}
		if (!g->stop || g->frames == c->count_frames)
			t->messages++;
	}
	flush_tails(g);
	rg_unrel_flush(g);
	if (!g->stop && g->pauses.n)
		rg_eng_flush_pauses(g, 0, true);
	rg_pauses_truth(&g->pauses, t);
	rg_eng_account_totals(g);
	t->unrecovered_psns = t->lost_psns - t->holes_filled;
	rg_faults_free(&g->f);
	rg_unrel_free(g);
	free(g->qps);
	free(g->bases);
	if (g->err) {
		snprintf(err, errlen, "%s", g->err == -1 ? "building a frame failed" :
			 roce_strerror(g->err));
		free(g);
		return -1;
	}
	free(g);
	return 0;
}
