/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * decode_fast.h - the decoder's per-frame core, shared by decode.c
 * (roce_decode()) and analyzer.c (roce_analyzer_decode_process(), which
 * decodes and analyses a frame in one call): the one-pass fast path for the
 * common frame and the steps it shares with the general decoder (extension
 * headers, payload, pad and ICRC).  Internal to libroce.
 */
#ifndef ROCE_DECODE_FAST_H
#define ROCE_DECODE_FAST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <roce/buf.h>
#include <roce/icrc.h>
#include <roce/opcode.h>
#include <roce/pkt.h>

#include "icrc_int.h"
#include "layout.h"

/*
 * roce_decode() once roce_decode_fast() has declined the frame (returned 1):
 * the general decoder (decode.c).  *out may hold anything.
 */
int roce_decode_rest(int linktype, const uint8_t *frame, size_t caplen, size_t wirelen,
	const struct roce_decode_opts *opts, struct roce_pkt *out);

static inline int roce_status_of(const struct roce_pkt *pkt)
{
	if (pkt->findings & (ROCE_FIND_BAD_LENGTH | ROCE_FIND_IP_FRAGMENT))
		return ROCE_E_MALFORMED;
	if (pkt->findings & ROCE_FIND_TRUNCATED)
		return ROCE_E_TRUNC;
	return ROCE_OK;
}

/*
 * Extension headers of a known opcode; the whole span was checked.  The
 * headers of the common RC frames (RETH, AETH) are tested one by one, the
 * other eight behind one test (inlined in both decoders: most frames carry
 * none or one, and eleven tests a frame were a fifth of the fast path).
 */
#define ROCE_H_RARE (ROCE_H_RDETH | ROCE_H_DETH | ROCE_H_XRCETH | ROCE_H_FETH | \
		     ROCE_H_ATOMICETH | ROCE_H_ATOMICACKETH | ROCE_H_IMMDT | ROCE_H_IETH)

static inline __attribute__((always_inline)) void roce_decode_ext(struct roce_pkt *pkt,
	const struct roce_opcode_info *op)
{
	const uint8_t *e = pkt->frame + pkt->ext_off;
	uint32_t h = op->hdrs;
	const uint8_t *p;

	pkt->hdrs = h;
	if (h & ROCE_H_RETH) {
		p = e + op->off[ROCE_HDR_RETH];
		pkt->reth.va = roce_get_be64(p + ROCE_RETH_OFF_VA);
		pkt->reth.rkey = roce_get_be32(p + ROCE_RETH_OFF_RKEY);
		pkt->reth.dma_len = roce_get_be32(p + ROCE_RETH_OFF_DMALEN);
	}
	if (h & ROCE_H_AETH) {
		p = e + op->off[ROCE_HDR_AETH];
		pkt->aeth.syndrome = p[ROCE_AETH_OFF_SYNDROME];
		pkt->aeth.msn = roce_get_be24(p + ROCE_AETH_OFF_MSN);
	}
	if (!(h & ROCE_H_RARE))
		return;
	if (h & ROCE_H_RDETH)
		pkt->rdeth_eec = roce_get_be24(e + op->off[ROCE_HDR_RDETH] + ROCE_RDETH_OFF_EEC);
	if (h & ROCE_H_DETH) {
		p = e + op->off[ROCE_HDR_DETH];
		pkt->deth.qkey = roce_get_be32(p + ROCE_DETH_OFF_QKEY);
		pkt->deth.src_qp = roce_get_be24(p + ROCE_DETH_OFF_SRCQP);
	}
	if (h & ROCE_H_XRCETH)
		pkt->xrc_srq = roce_get_be24(e + op->off[ROCE_HDR_XRCETH] + ROCE_XRCETH_OFF_SRQ);
	if (h & ROCE_H_FETH)
		pkt->feth = roce_get_be32(e + op->off[ROCE_HDR_FETH]);
	if (h & ROCE_H_ATOMICETH) {
		p = e + op->off[ROCE_HDR_ATOMICETH];
		pkt->atomic.va = roce_get_be64(p + ROCE_ATOMICETH_OFF_VA);
		pkt->atomic.rkey = roce_get_be32(p + ROCE_ATOMICETH_OFF_RKEY);
		pkt->atomic.swap_add = roce_get_be64(p + ROCE_ATOMICETH_OFF_SWAP);
		pkt->atomic.compare = roce_get_be64(p + ROCE_ATOMICETH_OFF_CMP);
	}
	if (h & ROCE_H_ATOMICACKETH)
		pkt->atomic_ack = roce_get_be64(e + op->off[ROCE_HDR_ATOMICACKETH]);
	if (h & ROCE_H_IMMDT)
		pkt->immdt = roce_get_be32(e + op->off[ROCE_HDR_IMMDT]);
	if (h & ROCE_H_IETH)
		pkt->ieth_rkey = roce_get_be32(e + op->off[ROCE_HDR_IETH]);
}

/*
 * Zero the extension-header fields (a previous decode into the same struct
 * may have set them).  Field by field: a memset() of this range compiles to
 * "rep stos", whose start-up cost was the largest single item of decoding.
 */
static inline void ext_clear(struct roce_pkt *pkt)
{
	pkt->rdeth_eec = 0;
	pkt->deth = (struct roce_deth){ 0, 0 };
	pkt->xrc_srq = 0;
	pkt->feth = 0;
	pkt->reth = (struct roce_reth){ 0, 0, 0 };
	pkt->atomic = (struct roce_atomiceth){ 0, 0, 0, 0 };
	pkt->aeth = (struct roce_aeth){ 0, 0 };
	pkt->atomic_ack = 0;
	pkt->immdt = 0;
	pkt->ieth_rkey = 0;
}

/*
 * Payload, pad and ICRC of a frame whose transport headers end at pay and
 * whose extent ends at end (room for the ICRC checked by the caller): the
 * general decoder's last steps and the fast path's (inlined in both: a call
 * costs the fast path about 20 instructions a frame).
 */
static inline __attribute__((always_inline)) int roce_decode_tail(struct roce_pkt *pkt,
	const struct roce_opcode_info *op, size_t pay, size_t end,
	const struct roce_decode_opts *opts, bool fast_v4, const bool may_verify)
{
	const struct roce_bth *b = &pkt->bth;
	const bool is_cnp = (op->flags & ROCE_F_CNP) != 0;
	size_t room;

	pkt->icrc_off = (uint32_t)(end - ROCE_ICRC_LEN);

	/* ---- payload and pad ---- */
	room = pkt->icrc_off - pay;             /* payload + pad */
	if (b->padcnt > room) {
		pkt->findings |= ROCE_FIND_BAD_PAD;
		pkt->payload_len = 0;
	} else {
		pkt->payload_len = (uint32_t)(room - b->padcnt);
	}
	if (op->name) {
		if (!(op->hdrs & ROCE_H_PAYLOAD)) {
			if (b->padcnt)
				pkt->findings |= ROCE_FIND_BAD_PAD;
			if (room) {
				pkt->findings |= is_cnp ? ROCE_FIND_BAD_CNP : ROCE_FIND_BAD_LENGTH;
				pkt->payload_len = 0;
			}
		} else if (b->padcnt && !(op->flags & ROCE_F_LAST)) {
			pkt->findings |= ROCE_FIND_BAD_PAD;     /* FIRST / MIDDLE */
		}
		if (is_cnp && (!b->becn || b->psn != 0))
			pkt->findings |= ROCE_FIND_BAD_CNP;
	}

	/* ---- ICRC ---- */
	if (ROCE_SPAN_OK(pkt->caplen, pkt->icrc_off, ROCE_ICRC_LEN)) {
		/* verifying reads the stored value after the CRC (cache-warm) */
		/* (the fast path's layout needs fewer checks: roce_icrc_verify_v4()) */
		if (!may_verify || !opts->verify_icrc) {
			pkt->icrc_wire = roce_get_le32(pkt->frame + pkt->icrc_off);
			/* found OK elsewhere: as verifying here would settle it */
			if (opts->icrc_known_ok && roce_icrc_pending(pkt))
				roce_icrc_take_ok(pkt);
		} else if ((fast_v4 ? roce_icrc_verify_v4(pkt) : roce_icrc_verify(pkt)) ==
			   ROCE_ICRC_UNVERIFIED) {
			pkt->icrc_wire = roce_get_le32(pkt->frame + pkt->icrc_off);
		}
	}
	return roce_status_of(pkt);
}

/* The ICRC step's start values. */
static inline void roce_pkt_clear_icrc(struct roce_pkt *pkt)
{
	pkt->icrc_status = ROCE_ICRC_UNVERIFIED;
	pkt->icrc_wire = 0;
	pkt->icrc_computed = 0;
}

/* The ICRC step's and the MAC control fields' start values (both decoders). */
static inline void roce_pkt_clear_icrc_mac(struct roce_pkt *pkt)
{
	roce_pkt_clear_icrc(pkt);
	pkt->mac_opcode = 0;
	pkt->pfc_enable = 0;
	pkt->pfc_reserved = 0;
	memset(pkt->pfc_quanta, 0, sizeof(pkt->pfc_quanta));
}

/*
 * The common frame on one pass: Ethernet without tags, IPv4 without options,
 * not fragmented, UDP to a RoCE port, IP and UDP lengths that agree and end
 * within the wire length, a known opcode whose headers were captured and fit
 * the extent.  Fills *pkt exactly as the general path below would (the same
 * fields, the same findings, the same ICRC step; with opts->analysis_only the
 * fields pkt.h names there only) and returns the status; or
 * returns 1 without having written *pkt (beyond frame / caplen / wirelen),
 * and the general path decodes the frame.  Every byte read is inside spans
 * checked against caplen first, as there.  (test_sweep compares both paths
 * on every prefix and on randomly damaged frames.)
 */
#define ROCE_FAST_L3 ROCE_ETH_HLEN
#define ROCE_FAST_UDP (ROCE_FAST_L3 + ROCE_IPV4_MIN_HLEN)
#define ROCE_FAST_BTH (ROCE_FAST_UDP + ROCE_UDP_HLEN)
#define ROCE_FAST_EXT (ROCE_FAST_BTH + ROCE_BTH_LEN)

static inline __attribute__((always_inline)) int roce_decode_fast(struct roce_pkt *pkt,
	const struct roce_decode_opts *opts, const bool may_verify, const bool force_lean)
{
	const uint8_t *f = pkt->frame, *ip = f + ROCE_FAST_L3, *u = f + ROCE_FAST_UDP;
	const struct roce_opcode_info *op;
	struct roce_bth *b = &pkt->bth;
	const bool lean = force_lean || opts->analysis_only;
	size_t end, pay;
	uint32_t findings = 0;
	uint16_t dport, tot;

	if (pkt->caplen < ROCE_FAST_EXT ||
	    roce_get_be16(f + ROCE_ETH_OFF_TYPE) != ROCE_ETHERTYPE_IPV4 ||
	    ip[0] != 0x45 || ip[ROCE_IPV4_OFF_PROTO] != ROCE_IPPROTO_UDP ||
	    (roce_get_be16(ip + ROCE_IPV4_OFF_FRAG) & (ROCE_IPV4_FRAG_OFF_MASK | ROCE_IPV4_MF)))
		return 1;
	dport = roce_get_be16(u + ROCE_UDP_OFF_DPORT);
	tot = roce_get_be16(ip + ROCE_IPV4_OFF_TOTLEN);
	end = ROCE_FAST_L3 + (size_t)tot;
	op = &roce_opcodes[f[ROCE_FAST_BTH + ROCE_BTH_OFF_OPCODE]];
	if (tot < ROCE_IPV4_MIN_HLEN + ROCE_UDP_HLEN ||
	    roce_get_be16(u + ROCE_UDP_OFF_LEN) != tot - ROCE_IPV4_MIN_HLEN ||
	    end > pkt->wirelen || !op->name ||
	    end < (size_t)ROCE_FAST_EXT + op->hdr_len + ROCE_ICRC_LEN ||
	    !ROCE_SPAN_OK(pkt->caplen, (size_t)ROCE_FAST_EXT, op->hdr_len) ||
	    !roce_port_match(opts, dport))
		return 1;

	pkt->kind = ROCE_KIND_ROCE;
	pkt->version = 2;
	pkt->ip_version = 4;
	pkt->encap = ROCE_ENCAP_NONE;   /* (the analysis counts encapsulations) */
	if (!lean) {
		/* what the analysis does not read (opts->analysis_only) */
		pkt->dst_mac = f + ROCE_ETH_OFF_DST;
		pkt->src_mac = f + ROCE_ETH_OFF_SRC;
		pkt->vlan_count = 0;
		pkt->vlan_id = 0;
		pkt->pcp = 0;
		pkt->ethertype = ROCE_ETHERTYPE_IPV4;
		pkt->tclass = ip[ROCE_IPV4_OFF_TOS];
		pkt->ttl = ip[ROCE_IPV4_OFF_TTL];
		pkt->flow_label = 0;
		pkt->sport = roce_get_be16(u + ROCE_UDP_OFF_SPORT);
		pkt->dport = dport;
		pkt->ip_id = roce_get_be16(ip + ROCE_IPV4_OFF_ID);
		pkt->l3_hdr_len = ROCE_IPV4_MIN_HLEN;
		pkt->roce_end = (uint32_t)end;
	}
	roce_v4mapped(pkt->src, ip + ROCE_IPV4_OFF_SRC);
	roce_v4mapped(pkt->dst, ip + ROCE_IPV4_OFF_DST);
	pkt->ecn = ip[ROCE_IPV4_OFF_TOS] & 3;
	pkt->l3_off = ROCE_FAST_L3;
	pkt->udp_off = ROCE_FAST_UDP;
	pkt->bth_off = ROCE_FAST_BTH;
	pkt->ext_off = ROCE_FAST_EXT;   /* (roce_decode_ext() reads it) */
	if (opts->verify_ip_csum && !roce_ipv4_hdr20_ok(ip))
		findings |= ROCE_FIND_BAD_IP_CSUM;

	if (!lean) {
		roce_bth_read(f + ROCE_FAST_BTH, b);     /* every field (padding aside) */
	} else {
		/* the fields the analysis and the checks here read: not SE, MigReq, FECN
		 * and the reserved bits */
		const uint8_t *t = f + ROCE_FAST_BTH;
		/* bytes 4-7 (F B Resv6, DestQP) and 8-11 (A Resv7, PSN) as two words:
		 * one load and swap each instead of three byte loads */
		uint32_t cn_qp = roce_get_be32(t + ROCE_BTH_OFF_CN);
		uint32_t ack_psn = roce_get_be32(t + ROCE_BTH_OFF_ACK);

		b->opcode = t[ROCE_BTH_OFF_OPCODE];
		b->padcnt = (t[ROCE_BTH_OFF_FLAGS] >> ROCE_BTH_PAD_SHIFT) & ROCE_BTH_PAD_MASK;
		b->tver = t[ROCE_BTH_OFF_FLAGS] & ROCE_BTH_TVER_MASK;
		b->pkey = roce_get_be16(t + ROCE_BTH_OFF_PKEY);
		b->becn = (cn_qp >> (24 + ROCE_BTH_BECN_SHIFT)) & 1;
		b->dqpn = cn_qp & 0xffffffu;
		b->ackreq = ack_psn >> (24 + ROCE_BTH_ACKREQ_SHIFT);
		b->psn = ack_psn & 0xffffffu;
	}
	pkt->op = op;
	if (b->tver != 0)
		findings |= ROCE_FIND_BAD_TVER;
	if (!lean)
		ext_clear(pkt);
	roce_decode_ext(pkt, op);
	pay = ROCE_FAST_EXT + op->hdr_len;
	pkt->findings = findings;
	if (!lean) {
		pkt->payload_off = (uint32_t)pay;
		roce_pkt_clear_icrc_mac(pkt);
	} else {
		roce_pkt_clear_icrc(pkt);
	}
	return roce_decode_tail(pkt, op, pay, end, opts, true, may_verify);
}

#endif /* ROCE_DECODE_FAST_H */
