/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * icrc_frame.c - roce_icrc_frame_verdict(): the ICRC verdict of a frame from
 * its headers alone, for a thread that verifies ahead of the one decoding.
 *
 * specification: IBTA Vol 1 9.8.2 (ICRC), Annex A16 (RoCE, GRH), Annex A17
 * (RoCE v2); IEEE 802.1Q (tags).
 *
 * The walk is roce_decode()'s (decode.c) cut down to what decides whether the
 * decoder's ICRC step runs and over which bytes: the link layer and tags, the
 * GRH or the IP header and UDP port, the length fields, the opcode's header
 * length.  Each test below names the decoder's outcome it stands for; every
 * outcome but "ICRC checked" leaves the ICRC unverified.  Every read is
 * inside a span checked against caplen first.  test_icrc_frame compares the
 * verdict with the decoder's on vectors, captures and damaged frames.
 */
#include <stddef.h>

#include <roce/buf.h>
#include <roce/erf.h>
#include <roce/icrc.h>
#include <roce/opcode.h>
#include <roce/pkt.h>

#include "decode_tunnel.h"
#include "icrc_int.h"
#include "layout.h"

/* Ethernet, IPv4 and UDP headers: what verdict_fast() reads before a span check */
#define ROCE_VERDICT_FAST_MIN (ROCE_ETH_HLEN + ROCE_IPV4_MIN_HLEN + ROCE_UDP_HLEN)

static const struct roce_decode_opts roce_verdict_opts = {
	.udp_ports = { ROCE_UDP_PORT },
};

/*
 * From the BTH on: s holds l3_off, udp_off, version and ip_version, and end is
 * where the length fields say the RoCE extent ends (UDP's / GRH's, already
 * found consistent with the IP header's).
 */
static inline __attribute__((always_inline)) enum roce_icrc_status verdict_transport(
	struct roce_icrc_span *s, size_t bth, size_t end)
{
	const struct roce_opcode_info *op;
	size_t pay, icrc;
	uint32_t crc;

	/* roce_decode_transport(): BAD_LENGTH */
	if (end < bth + ROCE_BTH_LEN + ROCE_ICRC_LEN)
		return ROCE_ICRC_UNVERIFIED;
	icrc = end - ROCE_ICRC_LEN;
	/*
	 * The tail's ICRC span.  It also covers the BTH and the extension headers the
	 * decoder checks first (TRUNCATED), which end before it below, and
	 * roce_clamp_end()'s BAD_LENGTH for an extent beyond the wire length: the
	 * wire length is at least caplen, so such an extent ends beyond caplen too.
	 */
	if (!ROCE_SPAN_OK(s->caplen, icrc, ROCE_ICRC_LEN))
		return ROCE_ICRC_UNVERIFIED;
	op = &roce_opcodes[s->frame[bth + ROCE_BTH_OFF_OPCODE]];
	if (op->name) {
		pay = bth + ROCE_BTH_LEN + op->hdr_len;
		if (end < pay + ROCE_ICRC_LEN)
			return ROCE_ICRC_UNVERIFIED;    /* BAD_LENGTH */
		/* roce_decode_tail(): no payload allowed, yet some (a CNP's is BAD_CNP only) */
		if (!(op->hdrs & ROCE_H_PAYLOAD) && icrc != pay && !(op->flags & ROCE_F_CNP))
			return ROCE_ICRC_UNVERIFIED;    /* BAD_LENGTH */
	}
	s->bth_off = (uint32_t)bth;
	s->icrc_off = (uint32_t)icrc;
	if (s->version == 2 && s->ip_version == 4 &&
	    bth == (size_t)s->l3_off + ROCE_IPV4_MIN_HLEN + ROCE_UDP_HLEN)
		crc = roce_icrc_crc_v4(s->frame + s->l3_off, icrc - s->l3_off);
	else if (roce_icrc_compute_at(s, &crc) != ROCE_OK)
		return ROCE_ICRC_UNVERIFIED;            /* not reached: the offsets are checked */
	return crc == roce_get_le32(s->frame + icrc) ? ROCE_ICRC_OK : ROCE_ICRC_BAD;
}

/* UDP at udp (captured), the IP header saying its datagram ends at ip_end. */
static inline __attribute__((always_inline)) enum roce_icrc_status verdict_udp(
	struct roce_icrc_span *s, size_t udp, size_t ip_end, const struct roce_decode_opts *opts)
{
	const uint8_t *u = s->frame + udp;

	/* roce_decode_ipv4/6(): not RoCE */
	if (!roce_port_match(opts, roce_get_be16(u + ROCE_UDP_OFF_DPORT)))
		return ROCE_ICRC_UNVERIFIED;
	/* roce_decode_udp(): BAD_LENGTH unless UDP's length is the IP header's */
	if (ip_end < udp + ROCE_UDP_HLEN || roce_get_be16(u + ROCE_UDP_OFF_LEN) != ip_end - udp)
		return ROCE_ICRC_UNVERIFIED;
	s->udp_off = (uint32_t)udp;
	s->version = 2;
	return verdict_transport(s, udp + ROCE_UDP_HLEN, ip_end);
}

static inline enum roce_icrc_status verdict_any(int linktype, const uint8_t *frame,
	size_t caplen, size_t wirelen, const struct roce_decode_opts *opts, unsigned depth);

/*
 * roce_decode_ipv4/6() found the IP header at off not RoCE: so did
 * roce_decode_encap() (decode.c) look for a tunnel, and decode the frame
 * inside it (depth: the tunnels around this frame), as it does for an MPLS
 * label stack (verdict_l3()).
 */
static bool ip_not_roce(const uint8_t *f, size_t caplen, size_t off, uint16_t et,
			const struct roce_decode_opts *opts)
{
	size_t ihl;

	if (et == ROCE_ETHERTYPE_IPV4) {
		if (!ROCE_SPAN_OK(caplen, off, ROCE_IPV4_MIN_HLEN))
			return true;
		ihl = (size_t)(f[off] & 0xf) * 4;
		return (f[off] >> 4) != 4 || ihl < ROCE_IPV4_MIN_HLEN ||
		       f[off + ROCE_IPV4_OFF_PROTO] != ROCE_IPPROTO_UDP ||
		       (roce_get_be16(f + off + ROCE_IPV4_OFF_FRAG) & ROCE_IPV4_FRAG_OFF_MASK) ||
		       !ROCE_SPAN_OK(caplen, off + ihl, ROCE_UDP_HLEN) ||
		       !roce_port_match(opts, roce_get_be16(f + off + ihl + ROCE_UDP_OFF_DPORT));
	}
	return !ROCE_SPAN_OK(caplen, off, ROCE_IPV6_HLEN + ROCE_UDP_HLEN) || (f[off] >> 4) != 6 ||
	       f[off + ROCE_IP6_OFF_NXT] != ROCE_IPPROTO_UDP ||
	       !roce_port_match(opts, roce_get_be16(f + off + ROCE_IPV6_HLEN + ROCE_UDP_OFF_DPORT));
}

static __attribute__((noinline)) enum roce_icrc_status verdict_tunnel(const uint8_t *f,
	size_t caplen, size_t wirelen, size_t off, uint16_t et,
	const struct roce_decode_opts *opts, unsigned depth)
{
	struct roce_tunnel t;

	if (!roce_tunnel_parse(f, caplen, wirelen < caplen ? caplen : wirelen, off, et, &t) ||
	    t.note != ROCE_ENCAP_NOTE_NONE || depth >= ROCE_MAX_TUNNELS)
		return ROCE_ICRC_UNVERIFIED;
	return verdict_any(t.linktype, f + t.off, t.caplen, t.wirelen, opts, depth + 1);
}

/* The GRH or the IP header at off, of EtherType et. */
static enum roce_icrc_status verdict_l3(struct roce_icrc_span *s, uint16_t et, size_t off,
	size_t wirelen, const struct roce_decode_opts *opts, unsigned depth)
{
	const uint8_t *h = s->frame + off;
	size_t ihl;

	s->l3_off = (uint32_t)off;
	if ((et == ROCE_ETHERTYPE_IPV4 || et == ROCE_ETHERTYPE_IPV6) &&
	    ip_not_roce(s->frame, s->caplen, off, et, opts))
		return verdict_tunnel(s->frame, s->caplen, wirelen, off, et, opts, depth);
	switch (et) {
	case ROCE_ETHERTYPE_IPV4:
		/* roce_decode_ipv4(): not RoCE, an IP fragment or the ICRC */
		if (!ROCE_SPAN_OK(s->caplen, off, ROCE_IPV4_MIN_HLEN))
			return ROCE_ICRC_UNVERIFIED;
		ihl = (size_t)(h[0] & 0xf) * 4;
		if ((h[0] >> 4) != 4 || ihl < ROCE_IPV4_MIN_HLEN ||
		    h[ROCE_IPV4_OFF_PROTO] != ROCE_IPPROTO_UDP ||
		    (roce_get_be16(h + ROCE_IPV4_OFF_FRAG) &
		     (ROCE_IPV4_FRAG_OFF_MASK | ROCE_IPV4_MF)) ||
		    !ROCE_SPAN_OK(s->caplen, off + ihl, ROCE_UDP_HLEN))
			return ROCE_ICRC_UNVERIFIED;
		s->ip_version = 4;
		return verdict_udp(s, off + ihl, off + roce_get_be16(h + ROCE_IPV4_OFF_TOTLEN),
				   opts);
	case ROCE_ETHERTYPE_IPV6:
		/* roce_decode_ipv6(): UDP right after the fixed header */
		if (!ROCE_SPAN_OK(s->caplen, off, ROCE_IPV6_HLEN + ROCE_UDP_HLEN) ||
		    (h[0] >> 4) != 6 || h[ROCE_IP6_OFF_NXT] != ROCE_IPPROTO_UDP)
			return ROCE_ICRC_UNVERIFIED;
		s->ip_version = 6;
		return verdict_udp(s, off + ROCE_IPV6_HLEN,
				   off + ROCE_IPV6_HLEN + roce_get_be16(h + ROCE_IP6_OFF_PAYLEN),
				   opts);
	case ROCE_ETHERTYPE_ROCE:
		/* roce_decode_v1(): the GRH, then the BTH */
		if (!ROCE_SPAN_OK(s->caplen, off, ROCE_GRH_LEN) ||
		    h[ROCE_IP6_OFF_NXT] != ROCE_GRH_NXT_BTH)
			return ROCE_ICRC_UNVERIFIED;
		s->version = 1;
		off += ROCE_GRH_LEN;
		return verdict_transport(s, off, off + roce_get_be16(h + ROCE_IP6_OFF_PAYLEN));
	default:
		/* roce_decode_encap(): an MPLS label stack; MAC Control, or not RoCE */
		if (et == ROCE_ETHERTYPE_MPLS || et == ROCE_ETHERTYPE_MPLS_MC)
			return verdict_tunnel(s->frame, s->caplen, wirelen, off, et, opts, depth);
		return ROCE_ICRC_UNVERIFIED;
	}
}

/*
 * The common frame, the decoder's fast path's: untagged Ethernet, IPv4 without
 * options (both tested by the caller, with caplen >= ROCE_VERDICT_FAST_MIN).
 * The general walk's steps with the offsets constant and the tests that give
 * the same outcome (ROCE_ICRC_UNVERIFIED) merged: half its instructions.
 */
#define VF_IP ROCE_ETH_HLEN
#define VF_UDP (VF_IP + ROCE_IPV4_MIN_HLEN)
#define VF_BTH (VF_UDP + ROCE_UDP_HLEN)
#define VF_EXT (VF_BTH + ROCE_BTH_LEN)

static __attribute__((noinline)) enum roce_icrc_status verdict_general(int linktype,
	const uint8_t *frame, size_t caplen, size_t wirelen, const struct roce_decode_opts *opts,
	unsigned depth);

static inline __attribute__((always_inline)) enum roce_icrc_status verdict_fast(
	const uint8_t *f, size_t caplen, size_t wirelen, const struct roce_decode_opts *opts,
	unsigned depth)
{
	const uint8_t *ip = f + VF_IP, *u = f + VF_UDP;
	const struct roce_opcode_info *op;
	size_t tot = roce_get_be16(ip + ROCE_IPV4_OFF_TOTLEN), end = VF_IP + tot, pay;

	/* not RoCE (not UDP, a fragment, another port); BAD_LENGTH: the UDP length is
	 * not the IP header's (verdict_udp()) or leaves no room for BTH and ICRC */
	if (ip[ROCE_IPV4_OFF_PROTO] != ROCE_IPPROTO_UDP ||
	    (roce_get_be16(ip + ROCE_IPV4_OFF_FRAG) & (ROCE_IPV4_FRAG_OFF_MASK | ROCE_IPV4_MF)) ||
	    !roce_port_match(opts, roce_get_be16(u + ROCE_UDP_OFF_DPORT)) ||
	    end < VF_BTH + ROCE_BTH_LEN + ROCE_ICRC_LEN ||
	    roce_get_be16(u + ROCE_UDP_OFF_LEN) != tot - ROCE_IPV4_MIN_HLEN)
		/* (not RoCE: a tunnel, perhaps; the general walk tells) */
		return verdict_general(ROCE_LINKTYPE_ETHERNET, f, caplen, wirelen, opts, depth);
	/* the ICRC span (verdict_transport()) */
	if (end > caplen)
		return ROCE_ICRC_UNVERIFIED;
	op = &roce_opcodes[f[VF_BTH + ROCE_BTH_OFF_OPCODE]];
	if (op->name) {
		pay = VF_EXT + op->hdr_len;
		if (end < pay + ROCE_ICRC_LEN ||
		    (!(op->hdrs & ROCE_H_PAYLOAD) && end - ROCE_ICRC_LEN != pay &&
		     !(op->flags & ROCE_F_CNP)))
			return ROCE_ICRC_UNVERIFIED;    /* BAD_LENGTH */
	}
	return roce_icrc_crc_v4(ip, end - ROCE_ICRC_LEN - VF_IP) ==
	       roce_get_le32(f + end - ROCE_ICRC_LEN) ? ROCE_ICRC_OK : ROCE_ICRC_BAD;
}

/* Every other frame: the link layer and tags, then verdict_l3(). */
static __attribute__((noinline)) enum roce_icrc_status verdict_general(int linktype,
	const uint8_t *frame, size_t caplen, size_t wirelen, const struct roce_decode_opts *opts,
	unsigned depth)
{
	struct roce_icrc_span s = { .frame = frame, .caplen = caplen };
	size_t off;
	uint16_t et;
	unsigned tags = 0;

	if (linktype == ROCE_LINKTYPE_ERF) {
		/* the frame inside, as roce_decode() takes it */
		struct roce_erf erf;

		if (roce_erf_parse(frame, caplen, &erf) != ROCE_OK || erf.inner_linktype < 0 ||
		    erf.inner_linktype == ROCE_LINKTYPE_ERF)
			return ROCE_ICRC_UNVERIFIED;
		return roce_icrc_frame_verdict(erf.inner_linktype, frame + erf.hdr_len,
					       erf.inner_caplen, erf.inner_wirelen, opts);
	}
	if (roce_link_layer(linktype, frame, caplen, &et, &off) != 0)
		return ROCE_ICRC_UNVERIFIED;    /* not RoCE, or ROCE_E_LINKTYPE */

	/* 802.1Q / 802.1ad / legacy QinQ tags, as many as the decoder takes */
	if (off > 0) {
		while (et == ROCE_ETHERTYPE_8021Q || et == ROCE_ETHERTYPE_8021AD ||
		       et == ROCE_ETHERTYPE_QINQ_OLD) {
			if (tags >= ROCE_MAX_VLANS || !ROCE_SPAN_OK(caplen, off, ROCE_VLAN_TAG_LEN))
				return ROCE_ICRC_UNVERIFIED;
			tags++;
			et = roce_get_be16(frame + off + 2);
			off += ROCE_VLAN_TAG_LEN;
		}
	}
	return verdict_l3(&s, et, off, wirelen, opts, depth);
}

/* A frame inside depth tunnels (decode.c's roce_decode_any()). */
static inline __attribute__((always_inline)) enum roce_icrc_status verdict_any(int linktype,
	const uint8_t *frame, size_t caplen, size_t wirelen, const struct roce_decode_opts *opts,
	unsigned depth)
{
	if (linktype == ROCE_LINKTYPE_ETHERNET && caplen >= ROCE_VERDICT_FAST_MIN &&
	    roce_get_be16(frame + ROCE_ETH_OFF_TYPE) == ROCE_ETHERTYPE_IPV4 &&
	    frame[ROCE_ETH_HLEN] == ROCE_IPV4_VER_IHL)
		return verdict_fast(frame, caplen, wirelen, opts, depth);
	return verdict_general(linktype, frame, caplen, wirelen, opts, depth);
}

enum roce_icrc_status roce_icrc_frame_verdict(int linktype, const uint8_t *frame, size_t caplen,
					      size_t wirelen, const struct roce_decode_opts *opts)
{
	/* (an extent beyond wirelen ends beyond caplen (verdict_transport()); wirelen
	 * matters only to an encapsulation's outer length check, as in the decoder) */
	if (!frame)
		return ROCE_ICRC_UNVERIFIED;
	if (!opts)
		opts = &roce_verdict_opts;
	return verdict_any(linktype, frame, caplen, wirelen, opts, 0);
}
