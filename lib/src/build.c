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
 * one CRC pass over the built bytes with the variant fields masked in place
 * (roce_icrc_build_inplace(), the same masking as roce_icrc_compute()).
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

/* Bytes from the BTH through the ICRC. */
static size_t roce_spec_transport_len(const struct roce_frame_spec *s)
{
	return (size_t)ROCE_BTH_LEN + roce_opcodes[s->bth.opcode].hdr_len +
		s->payload_len + roce_spec_pad(s) + ROCE_ICRC_LEN;
}

static size_t roce_spec_l3_len(const struct roce_frame_spec *s)
{
	if (s->version == 1)
		return ROCE_GRH_LEN;
	return (s->ip_version == 6 ? ROCE_IPV6_HLEN : ROCE_IPV4_HLEN) + ROCE_UDP_HLEN;
}

static bool roce_spec_valid(const struct roce_frame_spec *s)
{
	size_t t;

	if (s->version != 1 && s->version != 2)
		return false;
	if (s->version == 2 && s->ip_version != 4 && s->ip_version != 6)
		return false;
	if (s->vlan_count > 2)
		return false;
	if (s->payload_len > 0x10000)
		return false;
	t = roce_spec_transport_len(s);
	/* length fields are 16 bits */
	if (s->version == 1 || s->ip_version == 6)
		return t + (s->version == 2 ? ROCE_UDP_HLEN : 0) <= 0xffff;
	return t + ROCE_IPV4_HLEN + ROCE_UDP_HLEN <= 0xffff;
}

size_t roce_build_len(const struct roce_frame_spec *s)
{
	size_t n;

	if (!s || !roce_spec_valid(s))
		return 0;
	n = ROCE_ETH_HLEN + 4u * s->vlan_count + roce_spec_l3_len(s) + roce_spec_transport_len(s);
	if (!s->no_min_pad && n < ROCE_ETH_MIN)
		n = ROCE_ETH_MIN;
	return n;
}

size_t roce_build_payload_off(const struct roce_frame_spec *s)
{
	if (!s || !roce_spec_valid(s))
		return 0;
	return ROCE_ETH_HLEN + 4u * s->vlan_count + roce_spec_l3_len(s) + ROCE_BTH_LEN +
		roce_opcodes[s->bth.opcode].hdr_len;
}

/* Extension headers of op at e, from the spec. */
static void roce_build_ext(const struct roce_frame_spec *s, const struct roce_opcode_info *op,
	uint8_t *e)
{
	uint32_t h = op->hdrs;
	uint8_t *p;

	memset(e, 0, op->hdr_len);
	if (h & ROCE_H_RDETH)
		roce_put_be24(e + op->off[ROCE_HDR_RDETH] + ROCE_RDETH_OFF_EEC,
			s->rdeth_eec & ROCE_QPN_MASK);
	if (h & ROCE_H_DETH) {
		p = e + op->off[ROCE_HDR_DETH];
		roce_put_be32(p + ROCE_DETH_OFF_QKEY, s->deth.qkey);
		roce_put_be24(p + ROCE_DETH_OFF_SRCQP, s->deth.src_qp & ROCE_QPN_MASK);
	}
	if (h & ROCE_H_XRCETH)
		roce_put_be24(e + op->off[ROCE_HDR_XRCETH] + ROCE_XRCETH_OFF_SRQ,
			s->xrc_srq & ROCE_QPN_MASK);
	if (h & ROCE_H_FETH)
		roce_put_be32(e + op->off[ROCE_HDR_FETH], s->feth);
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
	if (h & ROCE_H_AETH) {
		p = e + op->off[ROCE_HDR_AETH];
		p[ROCE_AETH_OFF_SYNDROME] = s->aeth.syndrome;
		roce_put_be24(p + ROCE_AETH_OFF_MSN, s->aeth.msn & ROCE_QPN_MASK);
	}
	if (h & ROCE_H_ATOMICACKETH)
		roce_put_be64(e + op->off[ROCE_HDR_ATOMICACKETH], s->atomic_ack);
	if (h & ROCE_H_IMMDT)
		roce_put_be32(e + op->off[ROCE_HDR_IMMDT], s->immdt);
	if (h & ROCE_H_IETH)
		roce_put_be32(e + op->off[ROCE_HDR_IETH], s->ieth_rkey);
	/* CNP: 16 reserved zero bytes (already cleared) */
}

int roce_build(const struct roce_frame_spec *s, uint8_t *buf, size_t cap, size_t *len)
{
	const struct roce_opcode_info *op;
	struct roce_bth bth = s->bth;
	struct roce_pkt pkt;
	size_t n, off, l3, tlen, end;
	unsigned pad;
	uint32_t icrc;

	*len = 0;
	n = roce_build_len(s);
	if (n == 0)
		return ROCE_E_INVAL;
	if (cap < n)
		return ROCE_E_NOSPACE;
	op = &roce_opcodes[bth.opcode];
	pad = roce_spec_pad(s);
	tlen = roce_spec_transport_len(s);

	/* ---- Ethernet + tags ---- */
	memcpy(buf + ROCE_ETH_OFF_DST, s->dst_mac, 6);
	memcpy(buf + ROCE_ETH_OFF_SRC, s->src_mac, 6);
	off = ROCE_ETH_OFF_TYPE;
	for (unsigned i = 0; i < s->vlan_count; i++) {
		uint16_t tpid = s->vlan_tpid[i] ? s->vlan_tpid[i] : ROCE_ETHERTYPE_8021Q;

		roce_put_be16(buf + off, tpid);
		roce_put_be16(buf + off + 2, (uint16_t)((s->vlan_pcp[i] & 7) << ROCE_VLAN_PCP_SHIFT |
			(s->vlan_id[i] & ROCE_VLAN_VID_MASK)));
		off += ROCE_VLAN_TAG_LEN;
	}
	l3 = off + 2;

	/* only the offsets roce_icrc_build_inplace() reads: clearing the whole
	 * struct was the largest single cost of building a small frame */
	pkt.frame = buf;
	pkt.kind = ROCE_KIND_ROCE;
	pkt.version = s->version;
	pkt.ip_version = 0;
	pkt.l3_off = (uint32_t)l3;
	pkt.udp_off = 0;

	/* ---- L3 (+ UDP) ---- */
	uint8_t *p = buf + l3;
	uint8_t ttl = s->ttl ? s->ttl : ROCE_DEFAULT_TTL;

	if (s->version == 1) {
		roce_put_be16(buf + off, ROCE_ETHERTYPE_ROCE);
		roce_put_be32(p, roce_ip6_word0(s->tclass, s->flow_label));
		roce_put_be16(p + ROCE_IP6_OFF_PAYLEN, (uint16_t)tlen);
		p[ROCE_IP6_OFF_NXT] = ROCE_GRH_NXT_BTH;
		p[ROCE_IP6_OFF_HOPS] = ttl;
		memcpy(p + ROCE_IP6_OFF_SRC, s->src, 16);
		memcpy(p + ROCE_IP6_OFF_DST, s->dst, 16);
		pkt.bth_off = (uint32_t)(l3 + ROCE_GRH_LEN);
	} else {
		size_t udp;

		if (s->ip_version == 4) {
			roce_put_be16(buf + off, ROCE_ETHERTYPE_IPV4);
			p[0] = ROCE_IPV4_VER_IHL;
			p[ROCE_IPV4_OFF_TOS] = s->tclass;
			roce_put_be16(p + ROCE_IPV4_OFF_TOTLEN,
				(uint16_t)(ROCE_IPV4_HLEN + ROCE_UDP_HLEN + tlen));
			roce_put_be16(p + ROCE_IPV4_OFF_ID, s->ip_id);
			roce_put_be16(p + ROCE_IPV4_OFF_FRAG, s->ip_df ? ROCE_IPV4_DF : 0);
			p[ROCE_IPV4_OFF_TTL] = ttl;
			p[ROCE_IPV4_OFF_PROTO] = ROCE_IPPROTO_UDP;
			roce_put_be16(p + ROCE_IPV4_OFF_CSUM, 0);
			memcpy(p + ROCE_IPV4_OFF_SRC, s->src + ROCE_V4MAPPED_OFF, 4);
			memcpy(p + ROCE_IPV4_OFF_DST, s->dst + ROCE_V4MAPPED_OFF, 4);
			roce_put_be16(p + ROCE_IPV4_OFF_CSUM, roce_ipv4_csum(p, ROCE_IPV4_HLEN));
			udp = l3 + ROCE_IPV4_HLEN;
		} else {
			roce_put_be16(buf + off, ROCE_ETHERTYPE_IPV6);
			roce_put_be32(p, roce_ip6_word0(s->tclass, s->flow_label));
			roce_put_be16(p + ROCE_IP6_OFF_PAYLEN, (uint16_t)(ROCE_UDP_HLEN + tlen));
			p[ROCE_IP6_OFF_NXT] = ROCE_IPPROTO_UDP;
			p[ROCE_IP6_OFF_HOPS] = ttl;
			memcpy(p + ROCE_IP6_OFF_SRC, s->src, 16);
			memcpy(p + ROCE_IP6_OFF_DST, s->dst, 16);
			udp = l3 + ROCE_IPV6_HLEN;
		}
		roce_put_be16(buf + udp + ROCE_UDP_OFF_SPORT, s->sport ? s->sport : ROCE_DEFAULT_SPORT);
		roce_put_be16(buf + udp + ROCE_UDP_OFF_DPORT, s->dport ? s->dport : ROCE_UDP_PORT);
		roce_put_be16(buf + udp + ROCE_UDP_OFF_LEN, (uint16_t)(ROCE_UDP_HLEN + tlen));
		roce_put_be16(buf + udp + ROCE_UDP_OFF_CSUM, 0);
		pkt.ip_version = s->ip_version;
		pkt.udp_off = (uint32_t)udp;
		pkt.bth_off = (uint32_t)(udp + ROCE_UDP_HLEN);
	}

	/* ---- BTH (the pad count is the one computed above) ---- */
	bth.padcnt = (uint8_t)pad;
	roce_bth_write(buf + pkt.bth_off, &bth);

	/* ---- extension headers, payload, pad ---- */
	off = pkt.bth_off + ROCE_BTH_LEN;
	roce_build_ext(s, op, buf + off);
	off += op->hdr_len;
	if (s->payload_len) {
		if (s->payload)
			memcpy(buf + off, s->payload, s->payload_len);
		else
			memset(buf + off, 0, s->payload_len);
		off += s->payload_len;
	}
	memset(buf + off, 0, pad);
	off += pad;

	/* ---- ICRC ---- */
	end = off + ROCE_ICRC_LEN;
	pkt.icrc_off = (uint32_t)off;
	pkt.caplen = end;
	pkt.wirelen = end;
	icrc = roce_icrc_build_inplace(buf, &pkt);
	if (s->bad_icrc)
		icrc = ~icrc;
	roce_put_le32(buf + off, icrc);
	if (end < n)
		memset(buf + end, 0, n - end);
	*len = n;
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
