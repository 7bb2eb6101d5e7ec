/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * frames.c - roce-gen's frame output, under both senders (engine.c: RC, READ,
 * atomics, XRC and the run; unrel.c: UC and UD): the endpoints of a host pair
 * (MACs, addresses, UDP source port per QP) as frame specs, the request packet
 * of a SEND / WRITE message, the notification point's CNP, and the one path
 * every frame takes: pause frames due first, libroce's builder, an optional
 * fault (bad ICRC, a payload bit), the output, the truth counters the frame
 * makes visible, the clock advanced by the frame's time at the target rate.
 */
#include <string.h>

#include <roce/buf.h>
#include <roce/build.h>
#include <roce/opcode.h>
#include <roce/pkt.h>

#include "engine.h"

/* ---- timing and output --------------------------------------------------------- */

static void advance(struct gen *g, size_t len)
{
	const struct rg_config *c = g->c;
	uint64_t num;

	if (c->pps) {
		num = 1000000000ull + g->frac;
		g->ts += num / c->pps;
		g->frac = num % c->pps;
	} else {
		/* line rate: frame + FCS 4 + preamble/SFD 8 + IFG 12 */
		num = (uint64_t)(len + 24) * 8u * 1000000000ull + g->frac;
		g->ts += num / c->rate_bps;
		g->frac = num % c->rate_bps;
	}
}

static void write_frame(struct gen *g, uint64_t ts, const uint8_t *frame, size_t len)
{
	int rc;

	if (g->stop)
		return;
	rc = g->out->ops->write(g->out, ts, frame, (uint32_t)len);
	if (rc) {
		g->err = rc;
		g->stop = true;
		return;
	}
	g->t->frames++;
	g->t->bytes += len;
	if (g->c->count_frames && ++g->frames >= g->c->count_frames)
		g->stop = true;
}

/* Pause frames due at or before ts go first. */
void rg_eng_flush_pauses(struct gen *g, uint64_t ts, bool all)
{
	uint64_t pt;
	unsigned i;
	uint8_t fr[64];
	size_t len;

	while (!g->stop && rg_pauses_next(&g->pauses, &pt, &i) && (all || pt <= ts)) {
		bool pfc = g->pauses.s[i].p->pfc;

		if (rg_pauses_build(&g->pauses, i, fr, sizeof(fr), &len)) {
			g->err = -1;
			g->stop = true;
			return;
		}
		write_frame(g, pt, fr, len);
		if (!g->stop || g->frames == g->c->count_frames) {
			if (pfc)
				g->t->pfc_frames++;
			else
				g->t->pause_frames++;
		}
	}
}

/* The per-transport truth's index of an opcode's transport; -1: none of them. */
static inline int tr_of_op(uint8_t op)
{
	static const int8_t tr[8] = { RG_TR_RC, RG_TR_UC, -1, RG_TR_UD, -1, RG_TR_XRC, -1, -1 };

	return tr[op >> 5];
}

/*
 * The truth counters of one written frame.  What follows from the opcode and the AETH
 * syndrome alone is counted by value here (g->by_op, g->by_syndrome) and turned into
 * counters once at the end (rg_eng_account_totals()): fewer branches per frame.
 */
static inline void account(struct gen *g, const struct roce_frame_spec *s,
			   const struct tag *tg, bool icrc_bad)
{
	struct rg_truth *t = g->t;
	uint64_t any;

	g->by_op[s->bth.opcode]++;
	if (icrc_bad) {
		t->icrc_bad++;
		if (tr_of_op(s->bth.opcode) >= 0)
			t->by_tr[tr_of_op(s->bth.opcode)].icrc_bad++;
	}
	if ((s->tclass & 3) == 3)
		t->ecn_ce++;
	if (roce_opcodes[s->bth.opcode].hdrs & ROCE_H_AETH)
		g->by_syndrome[s->aeth.syndrome]++;
	/* most frames carry no recovery counters */
	if (!tg)
		return;
	memcpy(&any, tg, sizeof(any));
	if (!any)
		return;
	if (tg->lost) {
		t->psn_gaps++;
		t->lost_psns += tg->lost;
	}
	t->duplicates += tg->dup;
	t->out_of_order += tg->ooo;
	if (tr_of_op(s->bth.opcode) >= 0) {
		struct rg_seq *q = &t->by_tr[tr_of_op(s->bth.opcode)];

		q->psn_gaps += tg->lost != 0;
		q->lost_psns += tg->lost;
		q->duplicates += tg->dup;
		q->out_of_order += tg->ooo;
	}
	t->holes_filled += tg->ooo;
	t->retransmissions += tg->retx;
	switch (tg->episode) {
	case EP_NAK: t->gbn_nak++; break;
	case EP_RNR: t->gbn_rnr++; break;
	case EP_TIMEOUT: t->gbn_timeout++; break;
	default: break;
	}
}

/* account()'s counts by opcode and syndrome into the truth (every RoCE frame of the
 * engine has the run's version: make_base()). */
void rg_eng_account_totals(struct gen *g)
{
	struct rg_truth *t = g->t;
	uint64_t n = 0;

	for (unsigned o = 0; o < 256; o++) {
		n += g->by_op[o];
		if (roce_opcodes[o].flags & ROCE_F_CNP)
			t->cnps += g->by_op[o];
		if (tr_of_op((uint8_t)o) >= 0)
			t->by_tr[tr_of_op((uint8_t)o)].frames += g->by_op[o];
	}
	t->roce_frames += n;
	if (g->c->version == 1)
		t->rocev1_frames += n;
	else
		t->rocev2_frames += n;
	t->icrc_ok += n - t->icrc_bad;
	for (unsigned y = 0; y < 256; y++) {
		uint64_t k = g->by_syndrome[y];

		switch (roce_aeth_type((uint8_t)y)) {
		case ROCE_AETH_ACK:
			t->acks += k;
			break;
		case ROCE_AETH_RNR_NAK:
			t->naks += k;
			t->rnr_naks += k;
			break;
		case ROCE_AETH_NAK:
			t->naks += k;
			if ((y & 0x1f) == ROCE_NAK_PSN_SEQ_ERR)
				t->nak_seq_err += k;
			break;
		default:
			break;
		}
	}
}

/* Build, optionally corrupt, stamp and write one RoCE frame. */
void rg_eng_emit(struct gen *g, const struct roce_frame_spec *s, const struct tag *tg,
		 bool bad_payload)
{
	uint8_t *buf;
	size_t len, cap;
	int rc;

	if (g->stop)
		return;
	/* pause frames due first: written before this frame is built, so that an
	 * output building in place (frame_buf) gets them into their own slots */
	if (g->pauses.n)
		rg_eng_flush_pauses(g, g->ts, false);
	if (g->stop)
		return;
	cap = RG_FRAME_MAX;
	buf = g->out->ops->frame_buf ? g->out->ops->frame_buf(g->out, s, &cap) : NULL;
	if (!buf)
		buf = g->buf;
	rc = roce_build(s, buf, cap, &len);
	if (rc != ROCE_OK) {
		g->err = rc;
		g->stop = true;
		return;
	}
	if (bad_payload && s->payload_len) {
		size_t off = roce_build_payload_off(s) + s->payload_len / 2;

		buf[off] ^= 0x01;
	}
	write_frame(g, g->ts, buf, len);
	if (!g->stop || g->frames == g->c->count_frames)
		account(g, s, tg, s->bad_icrc || (bad_payload && s->payload_len));
	advance(g, len);
}

/* ---- endpoints -------------------------------------------------------------------- */

static void mac_plus(uint8_t out[6], const uint8_t base[6], uint32_t n)
{
	uint64_t v = 0;

	for (int i = 0; i < 6; i++)
		v = v << 8 | base[i];
	v += n;
	for (int i = 5; i >= 0; i--) {
		out[i] = (uint8_t)v;
		v >>= 8;
	}
}

static void addr_plus(uint8_t out[16], const uint8_t base[16], uint32_t n)
{
	unsigned carry = n;

	memcpy(out, base, 16);
	for (int i = 15; i >= 0 && carry; i--) {
		unsigned v = out[i] + (carry & 0xff);

		out[i] = (uint8_t)v;
		carry = (carry >> 8) + (v >> 8);
	}
}

static void default_addr(const struct rg_config *c, bool a, uint8_t out[16])
{
	static const uint8_t v6a[16] = { 0xfd, 0, 0, 0, 0, 0, 0, 0x0a, 0, 0, 0, 0, 0, 0, 0, 1 };
	static const uint8_t v6b[16] = { 0xfd, 0, 0, 0, 0, 0, 0, 0x0b, 0, 0, 0, 0, 0, 0, 0, 1 };
	static const uint8_t v1a[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x0a, 0, 1 };
	static const uint8_t v1b[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x0b, 0, 1 };

	if (c->version == 2)
		roce_addr_v4(out, a ? 0x0a000001u : 0x0a010001u);  /* 10.0.0.1 / 10.1.0.1 */
	else if (c->version == 6)
		memcpy(out, a ? v6a : v6b, 16);
	else
		memcpy(out, a ? v1a : v1b, 16);
}

static uint16_t qp_sport(const struct rg_config *c, uint32_t qpn)
{
	uint32_t h = qpn * 0x9e3779b1u;

	if (c->sport)
		return c->sport;
	return (uint16_t)(0xc000u | ((h >> 16) & 0x3fff));
}

/* The spec every frame of a host pair and direction starts from. */
static void make_base(const struct rg_config *c, unsigned pair, bool a_to_b,
		      struct roce_frame_spec *s)
{
	uint8_t a[16], b[16];

	roce_frame_spec_init(s);
	s->version = c->version == 1 ? 1 : 2;
	s->ip_version = c->version == 6 ? 6 : 4;
	mac_plus(s->src_mac, a_to_b ? c->mac_a : c->mac_b, pair);
	mac_plus(s->dst_mac, a_to_b ? c->mac_b : c->mac_a, pair);
	if (c->ip_a_set)
		memcpy(a, c->ip_a, 16);
	else
		default_addr(c, true, a);
	if (c->ip_b_set)
		memcpy(b, c->ip_b, 16);
	else
		default_addr(c, false, b);
	addr_plus(s->src, a_to_b ? a : b, pair);
	addr_plus(s->dst, a_to_b ? b : a, pair);
	if (c->vlan_set) {
		s->vlan_count = 1;
		s->vlan_id[0] = c->vlan;
		s->vlan_pcp[0] = c->pcp;
	}
	s->tclass = (uint8_t)(c->dscp << 2 | c->ecn);
	s->bth.pkey = 0xffff;
}

/* A spec for a frame of pair q->pair; a_to_b: requester -> responder (copied from the
 * pair's base, built once). */
void rg_eng_base_spec(struct gen *g, const struct qp *q, bool a_to_b,
			     uint32_t src_qpn, struct roce_frame_spec *s)
{
	struct roce_frame_spec *b = &g->bases[2 * q->pair + (a_to_b ? 0 : 1)];

	if (!b->version)
		make_base(g->c, q->pair, a_to_b, b);
	*s = *b;
	s->sport = qp_sport(g->c, src_qpn);
}


/* The request packet k of message m. */
void rg_eng_req_spec(struct gen *g, const struct msg *m, uint32_t k,
			    struct roce_frame_spec *s)
{
	const uint32_t pmtu = g->c->pmtu;
	bool first = k == 0, last = k + 1 == m->npk;
	bool send = m->verb == RG_SEND || m->verb == RG_SEND_IMM || m->xrc ||
		m->verb == RG_UC_SEND || m->verb == RG_UC_SEND_IMM;
	bool imm = m->verb == RG_SEND_IMM || m->verb == RG_WRITE_IMM ||
		m->verb == RG_UC_SEND_IMM || m->verb == RG_UC_WRITE_IMM;
	uint8_t op;

	rg_eng_base_spec(g, m->q, true, m->xrc ? m->q->xrc_a : m->uc ? m->q->uc_a : m->q->qpn_a, s);
	if (send) {
		if (first && last)
			op = imm ? ROCE_OP_RC_SEND_ONLY_WITH_IMMEDIATE : ROCE_OP_RC_SEND_ONLY;
		else if (first)
			op = ROCE_OP_RC_SEND_FIRST;
		else if (last)
			op = imm ? ROCE_OP_RC_SEND_LAST_WITH_IMMEDIATE : ROCE_OP_RC_SEND_LAST;
		else
			op = ROCE_OP_RC_SEND_MIDDLE;
	} else {
		if (first && last)
			op = imm ? ROCE_OP_RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE : ROCE_OP_RC_RDMA_WRITE_ONLY;
		else if (first)
			op = ROCE_OP_RC_RDMA_WRITE_FIRST;
		else if (last)
			op = imm ? ROCE_OP_RC_RDMA_WRITE_LAST_WITH_IMMEDIATE :
				ROCE_OP_RC_RDMA_WRITE_LAST;
		else
			op = ROCE_OP_RC_RDMA_WRITE_MIDDLE;
	}
	if (m->xrc)
		op = (uint8_t)(op + ROCE_OP_XRC_SEND_FIRST);
	else if (m->uc)
		op = (uint8_t)(op + ROCE_OP_UC_SEND_FIRST);     /* the RC opcode's UC twin */
	s->bth.opcode = op;
	s->bth.dqpn = m->dqpn;
	s->bth.psn = roce_psn_add(m->psn0, k);
	s->bth.ackreq = last && m->ackreq;
	s->bth.se = last && send;
	s->payload = g->payload;
	s->payload_len = last ? m->size - k * pmtu : pmtu;
	s->reth.va = m->va;
	s->reth.rkey = 0x1000 + m->q->index;
	s->reth.dma_len = m->size;
	s->immdt = 0x1234 + (uint32_t)m->q->msgs;
	s->xrc_srq = m->q->srq;
}

void rg_eng_cnp(struct gen *g, const struct msg *m)
{
	struct roce_frame_spec s;
	struct qp *q = m->q;

	if (q->cnp_sent && g->ts - q->last_cnp < g->c->cnp_interval_ns)
		return;
	rg_eng_base_spec(g, q, false, m->xrc ? q->xrc_b : m->uc ? q->uc_b : q->qpn_b, &s);
	s.tclass = (uint8_t)(g->c->cnp_dscp << 2);
	s.bth.opcode = ROCE_OP_CNP;
	s.bth.dqpn = m->xrc ? q->xrc_a : m->uc ? q->uc_a :
		(m->verb == RG_UD_SEND ? q->ud_a : q->qpn_a);
	s.bth.psn = 0;
	s.bth.becn = 1;
	q->cnp_sent = true;
	q->last_cnp = g->ts;
	rg_eng_emit(g, &s, NULL, false);
}