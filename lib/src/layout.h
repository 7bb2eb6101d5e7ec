/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * layout.h - wire layouts that the decoder (decode.c), the builder (build.c)
 * and the ICRC mask (icrc.c) share, written once: header lengths, field
 * offsets, bit masks, the BTH read/write pair, the IPv4 header checksum and
 * IPv4-mapped addresses.  Private to libroce.
 *
 * specification: IBTA Vol 1 ch. 9.2 (BTH), 9.3 (extension headers), Annex
 * A16 (GRH), A17 (RoCE v2); RFC 791 / 1071 (IPv4, checksum), RFC 8200
 * (IPv6), RFC 768 (UDP), RFC 4291 2.5.5.2 (IPv4-mapped), IEEE 802.1Q (tag),
 * IEEE 802.1Qbb and 802.3 Annex 31B (PFC, PAUSE).
 *
 * Offsets are from the start of their header; multi-byte fields are big
 * endian and read/written with <roce/buf.h>.  Callers check spans first.
 */
#ifndef ROCE_LAYOUT_H
#define ROCE_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <roce/buf.h>
#include <roce/opcode.h>
#include <roce/pkt.h>

/* ---- Ethernet and 802.1Q ------------------------------------------------- */

/* Dst(48) | Src(48) | EtherType(16) */
#define ROCE_ETH_HLEN 14
#define ROCE_ETH_OFF_DST 0
#define ROCE_ETH_OFF_SRC 6
#define ROCE_ETH_OFF_TYPE 12
#define ROCE_ETH_MIN 60                 /* shortest frame without FCS */
#define ROCE_ETHERTYPE_IPV4 0x0800
#define ROCE_ETHERTYPE_IPV6 0x86dd
#define ROCE_ETHERTYPE_8021Q 0x8100
#define ROCE_ETHERTYPE_8021AD 0x88a8
#define ROCE_ETHERTYPE_QINQ_OLD 0x9100
#define ROCE_ETHERTYPE_MPLS 0x8847
#define ROCE_ETHERTYPE_MPLS_MC 0x8848

/* tag: TPID(16) | PCP(3) DEI(1) VID(12) */
#define ROCE_VLAN_TAG_LEN 4
#define ROCE_VLAN_PCP_SHIFT 13
#define ROCE_VLAN_VID_MASK 0x0fff

/* Linux cooked captures: SLL pkttype(2) arphrd(2) addr_len(2) addr(8) protocol(2);
 * SLL2 protocol(2) resv(2) ifindex(4) arphrd(2) pkttype(1) addr_len(1) addr(8) */
#define ROCE_SLL_HLEN 16
#define ROCE_SLL_OFF_PROTO 14
#define ROCE_SLL2_HLEN 20
#define ROCE_SLL2_OFF_PROTO 0

/*
 * The link layer of a frame of linktype (not ERF, whose inner frame the caller
 * takes first): *et the ethertype of what follows (RAW, IPV4 and IPV6: that of
 * the IP version; MPLS: 0x8847) and *off its offset; VLAN tags are the caller's.  0: found;
 * 1: not RoCE (too short for the link header, RAW of another IP version);
 * -1: a link type the decoder does not take (ROCE_E_LINKTYPE).  Shared by
 * roce_decode() and roce_icrc_frame_verdict().
 */
static inline int roce_link_layer(int linktype, const uint8_t *frame, size_t caplen,
				  uint16_t *et, size_t *off)
{
	size_t hlen = 0, proto = 0;

	*off = 0;
	switch (linktype) {
	case ROCE_LINKTYPE_ETHERNET:
		hlen = ROCE_ETH_HLEN;
		proto = ROCE_ETH_OFF_TYPE;
		break;
	case ROCE_LINKTYPE_LINUX_SLL:
		hlen = ROCE_SLL_HLEN;
		proto = ROCE_SLL_OFF_PROTO;
		break;
	case ROCE_LINKTYPE_LINUX_SLL2:
		hlen = ROCE_SLL2_HLEN;
		proto = ROCE_SLL2_OFF_PROTO;
		break;
	case ROCE_LINKTYPE_RAW:
		if (caplen < 1 || ((frame[0] >> 4) != 4 && (frame[0] >> 4) != 6))
			return 1;
		*et = (frame[0] >> 4) == 4 ? ROCE_ETHERTYPE_IPV4 : ROCE_ETHERTYPE_IPV6;
		return 0;
	case ROCE_LINKTYPE_IPV4:
		*et = ROCE_ETHERTYPE_IPV4;
		return 0;
	case ROCE_LINKTYPE_IPV6:
		*et = ROCE_ETHERTYPE_IPV6;
		return 0;
	case ROCE_LINKTYPE_MPLS:
		/* the label stack at offset 0, read as after EtherType 0x8847
		 * (decode_mpls.c, through the decoder's encapsulation path) */
		*et = ROCE_ETHERTYPE_MPLS;
		return 0;
	default:
		return -1;
	}
	if (caplen < hlen)
		return 1;
	*et = roce_get_be16(frame + proto);
	*off = hlen;
	return 0;
}

/* ---- MAC Control (0x8808): PFC and PAUSE --------------------------------- */
/*
 *   PFC:   opcode 0x0101 | resv(8) e[7:0] | time[0] .. time[7] (16 bit each)
 *   PAUSE: opcode 0x0001 | pause_time(16)
 * (offsets from the MAC Control opcode)
 */
#define ROCE_MACCTRL_PAUSE 0x0001
#define ROCE_MACCTRL_PFC 0x0101
#define ROCE_PFC_OFF_RESV 2
#define ROCE_PFC_OFF_ENABLE 3
#define ROCE_PFC_OFF_TIME(i) (4 + 2 * (i))
#define ROCE_PFC_BODY_LEN 20            /* opcode(2) + enable vector(2) + 8 x time(2) */
#define ROCE_PAUSE_OFF_TIME 2
#define ROCE_PAUSE_BODY_LEN 4           /* opcode(2) + pause_time(2) */

/* ---- GRH (RoCE v1) and IPv6: one layout ---------------------------------- */
/*
 *   IPVer(4) TClass(8) FlowLabel(20) | PayLen(16) NxtHdr(8) HopLmt(8)
 *   SGID / Src(128) | DGID / Dst(128)
 */
#define ROCE_GRH_LEN 40
#define ROCE_IPV6_HLEN 40
#define ROCE_IP6_OFF_PAYLEN 4
#define ROCE_IP6_OFF_NXT 6
#define ROCE_IP6_OFF_HOPS 7
#define ROCE_IP6_OFF_SRC 8
#define ROCE_IP6_OFF_DST 24
#define ROCE_IP6_TCLASS_SHIFT 20
#define ROCE_IP6_FLOW_MASK 0xfffffu
#define ROCE_GRH_NXT_BTH 0x1b

/* The first 32-bit word: version 6, traffic class, flow label. */
static inline uint32_t roce_ip6_word0(uint8_t tclass, uint32_t flow_label)
{
	return 6u << 28 | (uint32_t)tclass << ROCE_IP6_TCLASS_SHIFT |
		(flow_label & ROCE_IP6_FLOW_MASK);
}

/* ---- IPv4 ------------------------------------------------------------------ */
/*
 *   Ver(4) IHL(4) TOS(8) TotalLength(16) | ID(16) Flags(3) FragOff(13)
 *   TTL(8) Proto(8) Checksum(16) | Src(32) | Dst(32) | options
 */
#define ROCE_IPV4_MIN_HLEN 20
#define ROCE_IPV4_MAX_HLEN 60
#define ROCE_IPV4_VER_IHL 0x45          /* version 4, 5 words: no options */
#define ROCE_IPV4_OFF_TOS 1
#define ROCE_IPV4_OFF_TOTLEN 2
#define ROCE_IPV4_OFF_ID 4
#define ROCE_IPV4_OFF_FRAG 6
#define ROCE_IPV4_OFF_TTL 8
#define ROCE_IPV4_OFF_PROTO 9
#define ROCE_IPV4_OFF_CSUM 10
#define ROCE_IPV4_OFF_SRC 12
#define ROCE_IPV4_OFF_DST 16
#define ROCE_IPV4_DF 0x4000
#define ROCE_IPV4_MF 0x2000
#define ROCE_IPV4_FRAG_OFF_MASK 0x1fff
#define ROCE_IPPROTO_UDP 17

/*
 * RFC 1071 checksum over an IPv4 header of n bytes (a multiple of 4).
 * Over a received header it is 0 when the header is correct; over a header
 * whose checksum field is 0 it is the value to store there.
 */
/* A sum of 32-bit words taken in 64 bits, folded to 16 (RFC 1071 2(B)). */
static inline uint16_t roce_csum_fold(uint64_t sum)
{
	sum = (sum & 0xffffffffu) + (sum >> 32);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

static inline uint16_t roce_ipv4_csum(const uint8_t *p, size_t n)
{
	uint64_t sum = 0;

	/* 32-bit words summed in 64 bits: one fold at the end (RFC 1071 2(B));
	 * the usual 20-byte header unrolled */
	if (n == 20) {
		sum = (uint64_t)roce_get_be32(p) + roce_get_be32(p + 4) + roce_get_be32(p + 8) +
			roce_get_be32(p + 12) + roce_get_be32(p + 16);
	} else {
		for (size_t i = 0; i < n; i += 4)
			sum += roce_get_be32(p + i);
	}
	return (uint16_t)~roce_csum_fold(sum);
}

/*
 * roce_ipv4_csum(p, 20) == 0, for the 20-byte header of the decoder's fast
 * path: the sum taken over native-order words (RFC 1071 2(B): the one's
 * complement sum does not depend on byte order; a correct header sums to
 * 0xffff in either order), no byte swaps, no loop.
 */
static inline bool roce_ipv4_hdr20_ok(const uint8_t *p)
{
	uint64_t a, b, sum;
	uint32_t c;

	/* the five 32-bit words as two 64-bit loads and one 32-bit load */
	memcpy(&a, p, 8);
	memcpy(&b, p + 8, 8);
	memcpy(&c, p + 16, 4);
	sum = (a & 0xffffffffu) + (a >> 32) + (b & 0xffffffffu) + (b >> 32) + c;
	/*
	 * roce_csum_fold(sum) == 0xffff: each fold keeps the value mod 0xffff and
	 * a non-zero sum non-zero, so the fold is 0xffff exactly when the sum is a
	 * non-zero multiple of 0xffff.  Divisibility by the odd 0xffff: the sum
	 * times its inverse mod 2^64 is at most (2^64 - 1) / 0xffff (written out:
	 * for "sum % 0xffff == 0" the LTO build emitted a div).
	 */
	return sum != 0 && sum * 0xfffefffefffeffffull <= 0x1000100010001ull;
}

/* ---- IPv4-mapped IPv6 addresses (::ffff:a.b.c.d) --------------------------- */

/* The IPv4 address is the last 4 of the 16 bytes. */
#define ROCE_V4MAPPED_OFF 12

/* out = ::ffff:v4 (v4: 4 bytes in network order). */
static inline void roce_v4mapped(uint8_t out[16], const uint8_t *v4)
{
	memset(out, 0, 10);
	out[10] = 0xff;
	out[11] = 0xff;
	memcpy(out + ROCE_V4MAPPED_OFF, v4, 4);
}

static inline bool roce_is_v4mapped(const uint8_t a[16])
{
	static const uint8_t prefix[ROCE_V4MAPPED_OFF] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff
	};

	return memcmp(a, prefix, sizeof(prefix)) == 0;
}

/* ---- UDP ------------------------------------------------------------------ */

#define ROCE_UDP_HLEN 8
#define ROCE_UDP_OFF_SPORT 0
#define ROCE_UDP_OFF_DPORT 2
#define ROCE_UDP_OFF_LEN 4
#define ROCE_UDP_OFF_CSUM 6

/* Is port one of opts' RoCE v2 destination ports? */
static inline bool roce_port_match(const struct roce_decode_opts *o, uint16_t port)
{
	for (int i = 0; i < ROCE_MAX_UDP_PORTS && o->udp_ports[i]; i++)
		if (o->udp_ports[i] == port)
			return true;
	return false;
}

/* ---- BTH (12 bytes) -------------------------------------------------------- */
/*
 *    0                   1                   2                   3
 *    0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |    OpCode     |S|M|Pad| TVer  |            P_Key              |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |F|B|  Resv6    |                 Destination QP                |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |A|   Resv7     |                      PSN                      |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 */
#define ROCE_BTH_OFF_OPCODE 0
#define ROCE_BTH_OFF_FLAGS 1            /* S M Pad TVer */
#define ROCE_BTH_OFF_PKEY 2
#define ROCE_BTH_OFF_CN 4               /* F B Resv6: variant, 1s in the ICRC */
#define ROCE_BTH_OFF_DQPN 5
#define ROCE_BTH_OFF_ACK 8              /* A Resv7 */
#define ROCE_BTH_OFF_PSN 9
#define ROCE_BTH_SE_SHIFT 7
#define ROCE_BTH_MIGREQ_SHIFT 6
#define ROCE_BTH_PAD_SHIFT 4
#define ROCE_BTH_PAD_MASK 3
#define ROCE_BTH_TVER_MASK 0x0f
#define ROCE_BTH_FECN_SHIFT 7
#define ROCE_BTH_BECN_SHIFT 6
#define ROCE_BTH_RESV6_MASK 0x3f
#define ROCE_BTH_ACKREQ_SHIFT 7
#define ROCE_BTH_RESV7_MASK 0x7f
#define ROCE_QPN_MASK 0xffffffu         /* 24-bit QPN, PSN, EEC, SRQ, MSN */

/* The 12 BTH bytes at p into b. */
static inline void roce_bth_read(const uint8_t *p, struct roce_bth *b)
{
	b->opcode = p[ROCE_BTH_OFF_OPCODE];
	b->se = p[ROCE_BTH_OFF_FLAGS] >> ROCE_BTH_SE_SHIFT;
	b->migreq = (p[ROCE_BTH_OFF_FLAGS] >> ROCE_BTH_MIGREQ_SHIFT) & 1;
	b->padcnt = (p[ROCE_BTH_OFF_FLAGS] >> ROCE_BTH_PAD_SHIFT) & ROCE_BTH_PAD_MASK;
	b->tver = p[ROCE_BTH_OFF_FLAGS] & ROCE_BTH_TVER_MASK;
	b->pkey = roce_get_be16(p + ROCE_BTH_OFF_PKEY);
	b->fecn = p[ROCE_BTH_OFF_CN] >> ROCE_BTH_FECN_SHIFT;
	b->becn = (p[ROCE_BTH_OFF_CN] >> ROCE_BTH_BECN_SHIFT) & 1;
	b->resv6 = p[ROCE_BTH_OFF_CN] & ROCE_BTH_RESV6_MASK;
	b->dqpn = roce_get_be24(p + ROCE_BTH_OFF_DQPN);
	b->ackreq = p[ROCE_BTH_OFF_ACK] >> ROCE_BTH_ACKREQ_SHIFT;
	b->resv7 = p[ROCE_BTH_OFF_ACK] & ROCE_BTH_RESV7_MASK;
	b->psn = roce_get_be24(p + ROCE_BTH_OFF_PSN);
}

/* b into the 12 BTH bytes at p; every field masked to its width. */
static inline void roce_bth_write(uint8_t *p, const struct roce_bth *b)
{
	p[ROCE_BTH_OFF_OPCODE] = b->opcode;
	p[ROCE_BTH_OFF_FLAGS] = (uint8_t)((b->se & 1) << ROCE_BTH_SE_SHIFT |
		(b->migreq & 1) << ROCE_BTH_MIGREQ_SHIFT |
		(b->padcnt & ROCE_BTH_PAD_MASK) << ROCE_BTH_PAD_SHIFT |
		(b->tver & ROCE_BTH_TVER_MASK));
	roce_put_be16(p + ROCE_BTH_OFF_PKEY, b->pkey);
	p[ROCE_BTH_OFF_CN] = (uint8_t)((b->fecn & 1) << ROCE_BTH_FECN_SHIFT |
		(b->becn & 1) << ROCE_BTH_BECN_SHIFT | (b->resv6 & ROCE_BTH_RESV6_MASK));
	roce_put_be24(p + ROCE_BTH_OFF_DQPN, b->dqpn & ROCE_QPN_MASK);
	p[ROCE_BTH_OFF_ACK] = (uint8_t)((b->ackreq & 1) << ROCE_BTH_ACKREQ_SHIFT |
		(b->resv7 & ROCE_BTH_RESV7_MASK));
	roce_put_be24(p + ROCE_BTH_OFF_PSN, b->psn & ROCE_QPN_MASK);
}

/* ---- extension headers (IBTA 9.3; offsets within each header) ------------- */

#define ROCE_RDETH_OFF_EEC 1            /* resv(8) EE-Context(24) */
#define ROCE_DETH_OFF_QKEY 0            /* Q_Key(32) | resv(8) SrcQP(24) */
#define ROCE_DETH_OFF_SRCQP 5
#define ROCE_XRCETH_OFF_SRQ 1           /* resv(8) XRCSRQ(24) */
#define ROCE_RETH_OFF_VA 0              /* VA(64) | R_Key(32) | DMALen(32) */
#define ROCE_RETH_OFF_RKEY 8
#define ROCE_RETH_OFF_DMALEN 12
#define ROCE_ATOMICETH_OFF_VA 0         /* VA(64) | R_Key(32) | SwapAdd(64) | Compare(64) */
#define ROCE_ATOMICETH_OFF_RKEY 8
#define ROCE_ATOMICETH_OFF_SWAP 12
#define ROCE_ATOMICETH_OFF_CMP 20
#define ROCE_AETH_OFF_SYNDROME 0        /* Syndrome(8) MSN(24) */
#define ROCE_AETH_OFF_MSN 1

#endif /* ROCE_LAYOUT_H */
