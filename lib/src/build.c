/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * build.c - frame builder: the decoder's inverse (RoCE v1/v2, PFC, PAUSE).
 *
 *   Ethernet(14) [tag(4)]* | GRH(40)          | BTH(12) ext payload pad ICRC(4)  (v1)
 *                          | IPv4(20) UDP(8)  | BTH ...                          (v2)
 *                          | IPv6(40) UDP(8)  | BTH ...                          (v2)
 *
 * Extension header offsets come from roce_opcodes[] (the decoder's table),
 * field layouts from layout.h (the decoder's too); the ICRC is computed by
 * one CRC pass over the built bytes, laid out with the variant fields as 1s
 * (roce_icrc_build_masked(), the same masking as roce_icrc_compute()) and
 * given their real values after it.
 */
#include <string.h>

#include <roce/buf.h>
#include <roce/build.h>
#include <roce/icrc.h>

#include "icrc_int.h"
#include "layout.h"

#define ROCE_IPV4_HLEN ROCE_IPV4_MIN_HLEN       /* built without options */
#define ROCE_DEFAULT_SPORT 0xc000
#define ROCE_DEFAULT_TTL 64

static const uint8_t roce_pfc_da[6] = { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x01 };

void roce_addr_v4(uint8_t out[16], uint32_t ipv4)
{
	uint8_t v4[4];

	roce_put_be32(v4, ipv4);
	roce_v4mapped(out, v4);
}

void roce_frame_spec_init(struct roce_frame_spec *s)
{
	static const uint8_t dmac[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x02 };
	static const uint8_t smac[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };

	if (!s)
		return;
	memset(s, 0, sizeof(*s));
	s->version = 2;
	s->ip_version = 4;
	memcpy(s->dst_mac, dmac, 6);
	memcpy(s->src_mac, smac, 6);
	roce_addr_v4(s->src, 0xc0a80101);       /* 192.168.1.1 */
	roce_addr_v4(s->dst, 0xc0a80102);       /* 192.168.1.2 */
	s->ttl = ROCE_DEFAULT_TTL;
	s->ip_df = true;
	s->sport = ROCE_DEFAULT_SPORT;
	s->dport = ROCE_UDP_PORT;
	s->bth.opcode = ROCE_OP_RC_SEND_ONLY;
	s->bth.pkey = 0xffff;
}

static unsigned roce_spec_pad(const struct roce_frame_spec *s)
{
	if (s->keep_padcnt)
		return s->bth.padcnt & 3;
	return (unsigned)(-s->payload_len) & 3;
}

/* What roce_build() lays out for a spec, computed once per frame. */
struct roce_spec_lens {
	size_t l3;              /* offset of the GRH / IP header */
	size_t bth;             /* offset of the BTH */
	size_t tlen;            /* bytes from the BTH through the ICRC */
	size_t n;               /* frame length (with the padding to 60 bytes) */
	unsigned pad;           /* pad count */
};

/* The layout of s; false when roce_build() refuses the spec (a length field would
 * overflow, an unknown version, more than two tags). */
static inline bool roce_spec_lens(const struct roce_frame_spec *s, struct roce_spec_lens *l)
{
	size_t l3len, ulen;

	if (s->version == 2) {
		if (s->ip_version == 4)
			l3len = ROCE_IPV4_HLEN;
		else if (s->ip_version == 6)
			l3len = ROCE_IPV6_HLEN;
		else
			return false;
		ulen = ROCE_UDP_HLEN;
	} else if (s->version == 1) {
		l3len = ROCE_GRH_LEN;
		ulen = 0;
	} else {
		return false;
	}
	if (s->vlan_count > 2 || s->payload_len > 0x10000)
		return false;
	l->pad = roce_spec_pad(s);
	l->tlen = (size_t)ROCE_BTH_LEN + roce_opcodes[s->bth.opcode].hdr_len + s->payload_len +
		l->pad + ROCE_ICRC_LEN;
	/* length fields are 16 bits: IPv4 Total Length counts its header, the IPv6
	 * Payload Length and GRH PayLen do not */
	if (l->tlen + ulen + (s->ip_version == 4 && s->version == 2 ? l3len : 0) > 0xffff)
		return false;
	l->l3 = ROCE_ETH_HLEN + 4u * s->vlan_count;
	l->bth = l->l3 + l3len + ulen;
	l->n = l->bth + l->tlen;
	if (!s->no_min_pad && l->n < ROCE_ETH_MIN)
		l->n = ROCE_ETH_MIN;
	return true;
}

size_t roce_build_len(const struct roce_frame_spec *s)
{
	struct roce_spec_lens l;

	if (!s || !roce_spec_lens(s, &l))
		return 0;
	return l.n;
}

size_t roce_build_payload_off(const struct roce_frame_spec *s)
{
	struct roce_spec_lens l;

	if (!s || !roce_spec_lens(s, &l))
		return 0;
	return l.bth + ROCE_BTH_LEN + roce_opcodes[s->bth.opcode].hdr_len;
}

/*
 * Extension headers of op at e, from the spec.  Every byte of every present header is
 * written (reserved bytes as 0), so the area needs no clearing first.
 */
static void roce_build_ext(const struct roce_frame_spec *s, const struct roce_opcode_info *op,
	uint8_t *e)
{
	uint32_t h = op->hdrs;
	uint8_t *p;

	/* in groups: most opcodes carry one or two headers */
	if (h & (ROCE_H_RDETH | ROCE_H_DETH | ROCE_H_XRCETH | ROCE_H_FETH)) {
		if (h & ROCE_H_RDETH)           /* resv(8) EEC(24) */
			roce_put_be32(e + op->off[ROCE_HDR_RDETH] + ROCE_RDETH_OFF_EEC - 1,
				s->rdeth_eec & ROCE_QPN_MASK);
		if (h & ROCE_H_DETH) {          /* Q_Key(32) | resv(8) SrcQP(24) */
			p = e + op->off[ROCE_HDR_DETH];
			roce_put_be32(p + ROCE_DETH_OFF_QKEY, s->deth.qkey);
			roce_put_be32(p + ROCE_DETH_OFF_SRCQP - 1, s->deth.src_qp & ROCE_QPN_MASK);
		}
		if (h & ROCE_H_XRCETH)          /* resv(8) SRQ(24) */
			roce_put_be32(e + op->off[ROCE_HDR_XRCETH] + ROCE_XRCETH_OFF_SRQ - 1,
				s->xrc_srq & ROCE_QPN_MASK);
		if (h & ROCE_H_FETH)
			roce_put_be32(e + op->off[ROCE_HDR_FETH], s->feth);
	}
	if (h & (ROCE_H_RETH | ROCE_H_ATOMICETH)) {
		if (h & ROCE_H_RETH) {
			p = e + op->off[ROCE_HDR_RETH];
			roce_put_be64(p + ROCE_RETH_OFF_VA, s->reth.va);
			roce_put_be32(p + ROCE_RETH_OFF_RKEY, s->reth.rkey);
			roce_put_be32(p + ROCE_RETH_OFF_DMALEN, s->reth.dma_len);
		}
		if (h & ROCE_H_ATOMICETH) {
			p = e + op->off[ROCE_HDR_ATOMICETH];
			roce_put_be64(p + ROCE_ATOMICETH_OFF_VA, s->atomic.va);
			roce_put_be32(p + ROCE_ATOMICETH_OFF_RKEY, s->atomic.rkey);
			roce_put_be64(p + ROCE_ATOMICETH_OFF_SWAP, s->atomic.swap_add);
			roce_put_be64(p + ROCE_ATOMICETH_OFF_CMP, s->atomic.compare);
		}
	}
	if (h & (ROCE_H_AETH | ROCE_H_ATOMICACKETH)) {
		if (h & ROCE_H_AETH)            /* Syndrome(8) MSN(24) */
			roce_put_be32(e + op->off[ROCE_HDR_AETH] + ROCE_AETH_OFF_SYNDROME,
				(uint32_t)s->aeth.syndrome << 24 | (s->aeth.msn & ROCE_QPN_MASK));
		if (h & ROCE_H_ATOMICACKETH)
			roce_put_be64(e + op->off[ROCE_HDR_ATOMICACKETH], s->atomic_ack);
	}
	if (h & (ROCE_H_IMMDT | ROCE_H_IETH | ROCE_H_CNP)) {
		if (h & ROCE_H_IMMDT)
			roce_put_be32(e + op->off[ROCE_HDR_IMMDT], s->immdt);
		if (h & ROCE_H_IETH)
			roce_put_be32(e + op->off[ROCE_HDR_IETH], s->ieth_rkey);
		if (h & ROCE_H_CNP)             /* 16 reserved zero bytes */
			memset(e + op->off[ROCE_HDR_CNP], 0, ROCE_CNP_LEN);
	}
}

/*
 * The frame is laid out with the ICRC's variant fields already set to 1s (IPv4 TOS, TTL
 * and header checksum; IPv6 / GRH traffic class, flow label and hop limit; the UDP
 * checksum; BTH byte 4), so that one CRC pass covers L3 up to the ICRC field
 * (roce_icrc_build_masked()); their real values are stored after it.
 */
int roce_build(const struct roce_frame_spec *s, uint8_t *buf, size_t cap, size_t *len)
{
	const struct roce_bth *b = &s->bth;
	const struct roce_opcode_info *op;
	struct roce_spec_lens l;
	uint8_t *p, *bth, cn;
	uint8_t ttl = s->ttl ? s->ttl : ROCE_DEFAULT_TTL;
	bool v4 = s->version == 2 && s->ip_version == 4;
	uint16_t csum = 0;
	size_t off, end;
	uint32_t icrc;

	*len = 0;
	if (!roce_spec_lens(s, &l))
		return ROCE_E_INVAL;
	if (cap < l.n)
		return ROCE_E_NOSPACE;
	op = &roce_opcodes[b->opcode];

	/* ---- Ethernet + tags ---- */
	memcpy(buf + ROCE_ETH_OFF_DST, s->dst_mac, 6);
	memcpy(buf + ROCE_ETH_OFF_SRC, s->src_mac, 6);
	off = ROCE_ETH_OFF_TYPE;
	for (unsigned i = 0; i < s->vlan_count; i++) {
		uint16_t tpid = s->vlan_tpid[i] ? s->vlan_tpid[i] : ROCE_ETHERTYPE_8021Q;

		roce_put_be32(buf + off, (uint32_t)tpid << 16 |
			((s->vlan_pcp[i] & 7u) << ROCE_VLAN_PCP_SHIFT) |
			(s->vlan_id[i] & ROCE_VLAN_VID_MASK));
		off += ROCE_VLAN_TAG_LEN;
	}

	/* ---- L3 (+ UDP), variant fields as 1s ---- */
	p = buf + l.l3;
	if (v4) {
		uint32_t w0 = (uint32_t)ROCE_IPV4_VER_IHL << 24 | (uint32_t)s->tclass << 16 |
			(uint32_t)(ROCE_IPV4_HLEN + ROCE_UDP_HLEN + l.tlen);
		uint32_t w1 = (uint32_t)s->ip_id << 16 | (s->ip_df ? ROCE_IPV4_DF : 0);
		uint32_t w2 = (uint32_t)ttl << 24 | ROCE_IPPROTO_UDP << 16;     /* checksum 0 */

		roce_put_be16(buf + off, ROCE_ETHERTYPE_IPV4);
		roce_put_be32(p, w0 | 0xffu << 16);
		roce_put_be32(p + ROCE_IPV4_OFF_ID, w1);
		roce_put_be32(p + ROCE_IPV4_OFF_TTL, w2 | 0xff00ffffu);
		memcpy(p + ROCE_IPV4_OFF_SRC, s->src + ROCE_V4MAPPED_OFF, 4);
		memcpy(p + ROCE_IPV4_OFF_DST, s->dst + ROCE_V4MAPPED_OFF, 4);
		/* roce_ipv4_csum() of the real header, from its words */
		csum = (uint16_t)~roce_csum_fold((uint64_t)w0 + w1 + w2 +
			roce_get_be32(p + ROCE_IPV4_OFF_SRC) +
			roce_get_be32(p + ROCE_IPV4_OFF_DST));
	} else {
		roce_put_be16(buf + off, s->version == 1 ? ROCE_ETHERTYPE_ROCE : ROCE_ETHERTYPE_IPV6);
		roce_put_be32(p, roce_ip6_word0(0xff, ROCE_IP6_FLOW_MASK));
		/* PayLen | NxtHdr | HopLmt (1s) */
		roce_put_be32(p + ROCE_IP6_OFF_PAYLEN, (uint32_t)((s->version == 2 ? ROCE_UDP_HLEN : 0) +
			l.tlen) << 16 | (uint32_t)(s->version == 1 ? ROCE_GRH_NXT_BTH : ROCE_IPPROTO_UDP) <<
			8 | 0xffu);
		memcpy(p + ROCE_IP6_OFF_SRC, s->src, 16);
		memcpy(p + ROCE_IP6_OFF_DST, s->dst, 16);
	}
	if (s->version == 2) {
		uint8_t *u = buf + l.bth - ROCE_UDP_HLEN;

		roce_put_be32(u + ROCE_UDP_OFF_SPORT, (uint32_t)(s->sport ? s->sport :
			ROCE_DEFAULT_SPORT) << 16 | (s->dport ? s->dport : ROCE_UDP_PORT));
		roce_put_be32(u + ROCE_UDP_OFF_LEN, (uint32_t)(ROCE_UDP_HLEN + l.tlen) << 16 | 0xffffu);
	}

	/* ---- BTH (the pad count is the one computed above), byte 4 as 1s ---- */
	bth = buf + l.bth;
	roce_put_be32(bth, (uint32_t)b->opcode << 24 |
		(uint32_t)((b->se & 1) << ROCE_BTH_SE_SHIFT | (b->migreq & 1) << ROCE_BTH_MIGREQ_SHIFT |
			l.pad << ROCE_BTH_PAD_SHIFT | (b->tver & ROCE_BTH_TVER_MASK)) << 16 | b->pkey);
	roce_put_be32(bth + ROCE_BTH_OFF_CN, 0xffu << 24 | (b->dqpn & ROCE_QPN_MASK));
	roce_put_be32(bth + ROCE_BTH_OFF_ACK, (uint32_t)((b->ackreq & 1) << ROCE_BTH_ACKREQ_SHIFT |
		(b->resv7 & ROCE_BTH_RESV7_MASK)) << 24 | (b->psn & ROCE_QPN_MASK));
	cn = (uint8_t)((b->fecn & 1) << ROCE_BTH_FECN_SHIFT | (b->becn & 1) << ROCE_BTH_BECN_SHIFT |
		(b->resv6 & ROCE_BTH_RESV6_MASK));

	/* ---- extension headers, payload, pad ---- */
	off = l.bth + ROCE_BTH_LEN;
	roce_build_ext(s, op, buf + off);
	off += op->hdr_len;
	if (s->payload_len) {
		if (s->payload)
			memcpy(buf + off, s->payload, s->payload_len);
		else
			memset(buf + off, 0, s->payload_len);
		off += s->payload_len;
	}
	/* the pad (at most 3 bytes) and the ICRC field follow: 4 bytes are there */
	memset(buf + off, 0, 4);
	off += l.pad;

	/* ---- ICRC, then the variant fields' real values ---- */
	icrc = roce_icrc_build_masked(p, off - l.l3);
	if (s->bad_icrc)
		icrc = ~icrc;
	roce_put_le32(buf + off, icrc);
	bth[ROCE_BTH_OFF_CN] = cn;
	if (v4) {
		p[ROCE_IPV4_OFF_TOS] = s->tclass;
		p[ROCE_IPV4_OFF_TTL] = ttl;
		roce_put_be16(p + ROCE_IPV4_OFF_CSUM, csum);
	} else {
		roce_put_be32(p, roce_ip6_word0(s->tclass, s->flow_label));
		p[ROCE_IP6_OFF_HOPS] = ttl;
	}
	if (s->version == 2)
		roce_put_be16(buf + l.bth - ROCE_UDP_HLEN + ROCE_UDP_OFF_CSUM, 0);
	end = off + ROCE_ICRC_LEN;
	if (end < l.n)
		memset(buf + end, 0, l.n - end);
	*len = l.n;
	return ROCE_OK;
}

static int roce_build_macctrl(const uint8_t src_mac[6], uint16_t opcode, uint8_t *buf,
	size_t cap, size_t *len)
{
	*len = 0;
	if (cap < ROCE_ETH_MIN)
		return ROCE_E_NOSPACE;
	memset(buf, 0, ROCE_ETH_MIN);
	memcpy(buf + ROCE_ETH_OFF_DST, roce_pfc_da, 6);
	memcpy(buf + ROCE_ETH_OFF_SRC, src_mac, 6);
	roce_put_be16(buf + ROCE_ETH_OFF_TYPE, ROCE_ETHERTYPE_MACCTRL);
	roce_put_be16(buf + ROCE_ETH_HLEN, opcode);
	*len = ROCE_ETH_MIN;
	return ROCE_OK;
}

int roce_build_pfc(const uint8_t src_mac[6], uint8_t enable, const uint16_t quanta[8],
	uint8_t *buf, size_t cap, size_t *len)
{
	int rc = roce_build_macctrl(src_mac, ROCE_MACCTRL_PFC, buf, cap, len);

	if (rc != ROCE_OK)
		return rc;
	buf[ROCE_ETH_HLEN + ROCE_PFC_OFF_ENABLE] = enable;
	for (int i = 0; i < 8; i++)
		if (enable & (1u << i))
			roce_put_be16(buf + ROCE_ETH_HLEN + ROCE_PFC_OFF_TIME(i), quanta[i]);
	return ROCE_OK;
}

int roce_build_pause(const uint8_t src_mac[6], uint16_t quanta, uint8_t *buf, size_t cap,
	size_t *len)
{
	int rc = roce_build_macctrl(src_mac, ROCE_MACCTRL_PAUSE, buf, cap, len);

	if (rc != ROCE_OK)
		return rc;
	roce_put_be16(buf + ROCE_ETH_HLEN + ROCE_PAUSE_OFF_TIME, quanta);
	return ROCE_OK;
}
