/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * decode_tunnel.c - the outer headers of a tunnel or mirror packet: GRE,
 * ERSPAN type I/II/III, VXLAN, Geneve; where the frame inside starts.
 *
 * specification: RFC 2784 and RFC 2890 (GRE, key and sequence number),
 * draft-foschiano-erspan-03 (ERSPAN type I, II and III), RFC 7348 (VXLAN),
 * RFC 8926 (Geneve).  The header diagrams are in <roce/pkt.h>.  An MPLS
 * label stack (after Ethernet, in GRE, UDP 6635 or IP protocol 137) is
 * decode_mpls.c's.
 *
 * Only decode.c's general path calls this, for an IPv4 / IPv6 frame that was
 * not RoCE: the fast path never gets here.  Every read is inside a span
 * checked against caplen; the inner frame ends where the outer IP length
 * says (clamped to what was captured), never at the end of the capture.
 * An outer length that contradicts the frame, or tunnel headers the capture
 * cut, leave nothing to decode (t->note): the frame is then not RoCE.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <roce/buf.h>
#include <roce/pkt.h>

#include "decode_tunnel.h"
#include "layout.h"

#define T_IPPROTO_GRE 47
#define T_IPPROTO_MPLS 137              /* MPLS in IP (RFC 4023) */
#define T_GRE_HLEN 4
#define T_GRE_C 0x80                    /* checksum (and reserved1) present */
#define T_GRE_R 0x40                    /* RFC 1701 routing: not supported */
#define T_GRE_K 0x20                    /* key present */
#define T_GRE_S 0x10                    /* sequence number present */
#define T_GRE_VER_MASK 0x07
#define T_GRE_PROTO_ERSPAN2 0x88be      /* type I (no sequence number) and II */
#define T_GRE_PROTO_ERSPAN3 0x22eb
#define T_GRE_PROTO_TEB 0x6558          /* transparent Ethernet bridging */
#define T_ERSPAN2_HLEN 8
#define T_ERSPAN3_HLEN 12
#define T_ERSPAN3_SUB_LEN 8             /* platform-specific subheader (O bit) */
#define T_ERSPAN3_OFF_O 11              /* ... D(1) Gra(2) O(1): the last bit */
#define T_ERSPAN_VER_SHIFT 12
#define T_ERSPAN_T_SHIFT 10
#define T_ERSPAN_SESSION_MASK 0x3ff
#define T_VXLAN_HLEN 8
#define T_GENEVE_HLEN 8
#define T_GENEVE_VER_SHIFT 6
#define T_GENEVE_OPTLEN_MASK 0x3f

static bool is_tag(uint16_t et)
{
	return et == ROCE_ETHERTYPE_8021Q || et == ROCE_ETHERTYPE_8021AD ||
	       et == ROCE_ETHERTYPE_QINQ_OLD;
}

/*
 * The length the inner frame had before an ERSPAN mirror cut it (T bit):
 * its link header and what its IP / GRH length field claims; 0 when the
 * captured bytes do not say.
 */
static size_t inner_claim(const uint8_t *f, size_t caplen, int linktype)
{
	size_t off = 0, n;
	uint16_t et;

	if (linktype == ROCE_LINKTYPE_ETHERNET) {
		if (caplen < ROCE_ETH_HLEN)
			return 0;
		et = roce_get_be16(f + ROCE_ETH_OFF_TYPE);
		off = ROCE_ETH_HLEN;
		while (is_tag(et) && ROCE_SPAN_OK(caplen, off, ROCE_VLAN_TAG_LEN)) {
			et = roce_get_be16(f + off + 2);
			off += ROCE_VLAN_TAG_LEN;
		}
	} else {
		if (caplen < 1)
			return 0;
		et = (f[0] >> 4) == 4 ? ROCE_ETHERTYPE_IPV4 :
		     (f[0] >> 4) == 6 ? ROCE_ETHERTYPE_IPV6 : 0;
	}
	if (et == ROCE_ETHERTYPE_IPV4 && ROCE_SPAN_OK(caplen, off, ROCE_IPV4_OFF_TOTLEN + 2))
		n = off + roce_get_be16(f + off + ROCE_IPV4_OFF_TOTLEN);
	else if ((et == ROCE_ETHERTYPE_IPV6 || et == ROCE_ETHERTYPE_ROCE) &&
		 ROCE_SPAN_OK(caplen, off, ROCE_IP6_OFF_PAYLEN + 2))
		n = off + ROCE_IPV6_HLEN + roce_get_be16(f + off + ROCE_IP6_OFF_PAYLEN);
	else
		return 0;
	return linktype == ROCE_LINKTYPE_ETHERNET && n < ROCE_ETH_MIN ? ROCE_ETH_MIN : n;
}

/* The inner frame's link type for a GRE / Geneve protocol type; -1 if none. */
static int inner_linktype(uint16_t proto)
{
	switch (proto) {
	case T_GRE_PROTO_TEB:
		return ROCE_LINKTYPE_ETHERNET;
	case ROCE_ETHERTYPE_IPV4:
	case ROCE_ETHERTYPE_IPV6:
		return ROCE_LINKTYPE_RAW;
	default:
		return -1;
	}
}

/* GRE at p (4 bytes captured): the encapsulation and where its payload starts. */
static void gre_parse(const uint8_t *f, size_t caplen, size_t p, struct roce_tunnel *t)
{
	uint8_t fl = f[p];
	uint16_t proto = roce_get_be16(f + p + 2), w0, w1;
	size_t h = p + T_GRE_HLEN;

	if ((f[p + 1] & T_GRE_VER_MASK) != 0 || (fl & T_GRE_R)) {
		t->note = ROCE_ENCAP_NOTE_UNSUPPORTED;
		return;
	}
	h += (fl & T_GRE_C ? 4u : 0u) + (fl & T_GRE_K ? 4u : 0u) + (fl & T_GRE_S ? 4u : 0u);
	t->linktype = ROCE_LINKTYPE_ETHERNET;
	switch (proto) {
	case T_GRE_PROTO_ERSPAN2:
		if (!(fl & T_GRE_S)) {
			t->kind = ROCE_ENCAP_ERSPAN1;   /* no ERSPAN header */
			break;
		}
		t->kind = ROCE_ENCAP_ERSPAN2;
		if (!ROCE_SPAN_OK(caplen, h, T_ERSPAN2_HLEN)) {
			t->note = ROCE_ENCAP_NOTE_TRUNCATED;
			return;
		}
		w0 = roce_get_be16(f + h);
		w1 = roce_get_be16(f + h + 2);
		if ((w0 >> T_ERSPAN_VER_SHIFT) != 1)
			t->note = ROCE_ENCAP_NOTE_UNSUPPORTED;
		t->vlan = w0 & ROCE_VLAN_VID_MASK;
		t->session = w1 & T_ERSPAN_SESSION_MASK;
		t->truncated = (w1 >> T_ERSPAN_T_SHIFT) & 1;
		h += T_ERSPAN2_HLEN;
		break;
	case T_GRE_PROTO_ERSPAN3:
		t->kind = ROCE_ENCAP_ERSPAN3;
		if (!ROCE_SPAN_OK(caplen, h, T_ERSPAN3_HLEN)) {
			t->note = ROCE_ENCAP_NOTE_TRUNCATED;
			return;
		}
		w0 = roce_get_be16(f + h);
		w1 = roce_get_be16(f + h + 2);
		if ((w0 >> T_ERSPAN_VER_SHIFT) != 2)
			t->note = ROCE_ENCAP_NOTE_UNSUPPORTED;
		t->vlan = w0 & ROCE_VLAN_VID_MASK;
		t->session = w1 & T_ERSPAN_SESSION_MASK;
		t->truncated = (w1 >> T_ERSPAN_T_SHIFT) & 1;
		h += T_ERSPAN3_HLEN + (f[h + T_ERSPAN3_OFF_O] & 1 ? T_ERSPAN3_SUB_LEN : 0u);
		break;
	case ROCE_ETHERTYPE_MPLS:
	case ROCE_ETHERTYPE_MPLS_MC:
		roce_mpls_parse(f, caplen, h, t);       /* (kind GRE, the outermost) */
		return;
	default:
		t->linktype = inner_linktype(proto);
		if (t->linktype < 0)
			t->note = ROCE_ENCAP_NOTE_UNSUPPORTED;
		break;
	}
	t->off = h;
}

/* VXLAN or Geneve at h (the UDP payload). */
static void udp_tunnel_parse(const uint8_t *f, size_t caplen, size_t h, struct roce_tunnel *t)
{
	if (!ROCE_SPAN_OK(caplen, h, T_VXLAN_HLEN)) {   /* (both 8 bytes) */
		t->note = ROCE_ENCAP_NOTE_TRUNCATED;
		return;
	}
	if (t->kind == ROCE_ENCAP_VXLAN) {
		t->linktype = ROCE_LINKTYPE_ETHERNET;
		t->off = h + T_VXLAN_HLEN;
		return;
	}
	t->linktype = inner_linktype(roce_get_be16(f + h + 2));
	if ((f[h] >> T_GENEVE_VER_SHIFT) != 0 || t->linktype < 0)
		t->note = ROCE_ENCAP_NOTE_UNSUPPORTED;
	t->off = h + T_GENEVE_HLEN + (size_t)(f[h] & T_GENEVE_OPTLEN_MASK) * 4;
}

bool roce_tunnel_parse(const uint8_t *f, size_t caplen, size_t wirelen, size_t l3,
	uint16_t et, struct roce_tunnel *t)
{
	size_t p, ip_end, hlen;
	uint8_t proto;
	bool frag = false;

	*t = (struct roce_tunnel){ .kind = ROCE_ENCAP_NONE, .linktype = -1 };
	if (et == ROCE_ETHERTYPE_MPLS || et == ROCE_ETHERTYPE_MPLS_MC) {
		/* after the link layer: the frame inside ends where the frame does */
		t->kind = ROCE_ENCAP_MPLS;
		roce_mpls_parse(f, caplen, l3, t);
		ip_end = wirelen;
		goto inner;
	}
	if (et == ROCE_ETHERTYPE_IPV4) {
		if (!ROCE_SPAN_OK(caplen, l3, ROCE_IPV4_MIN_HLEN) || (f[l3] >> 4) != 4)
			return false;
		hlen = (size_t)(f[l3] & 0xf) * 4;
		if (hlen < ROCE_IPV4_MIN_HLEN ||
		    (roce_get_be16(f + l3 + ROCE_IPV4_OFF_FRAG) & ROCE_IPV4_FRAG_OFF_MASK))
			return false;   /* (no tunnel header in a later fragment) */
		frag = (roce_get_be16(f + l3 + ROCE_IPV4_OFF_FRAG) & ROCE_IPV4_MF) != 0;
		proto = f[l3 + ROCE_IPV4_OFF_PROTO];
		ip_end = l3 + roce_get_be16(f + l3 + ROCE_IPV4_OFF_TOTLEN);
	} else if (et == ROCE_ETHERTYPE_IPV6) {
		if (!ROCE_SPAN_OK(caplen, l3, ROCE_IPV6_HLEN) || (f[l3] >> 4) != 6)
			return false;
		hlen = ROCE_IPV6_HLEN;
		proto = f[l3 + ROCE_IP6_OFF_NXT];
		ip_end = l3 + ROCE_IPV6_HLEN + roce_get_be16(f + l3 + ROCE_IP6_OFF_PAYLEN);
	} else {
		return false;
	}
	p = l3 + hlen;
	if (proto == T_IPPROTO_GRE) {
		t->kind = ROCE_ENCAP_GRE;
		if (!ROCE_SPAN_OK(caplen, p, T_GRE_HLEN))
			t->note = ROCE_ENCAP_NOTE_TRUNCATED;
		else
			gre_parse(f, caplen, p, t);
	} else if (proto == T_IPPROTO_MPLS) {
		t->kind = ROCE_ENCAP_MPLS;
		roce_mpls_parse(f, caplen, p, t);
	} else if (proto == ROCE_IPPROTO_UDP) {
		uint16_t dport;

		if (!ROCE_SPAN_OK(caplen, p, ROCE_UDP_HLEN))
			return false;
		dport = roce_get_be16(f + p + ROCE_UDP_OFF_DPORT);
		if (dport == ROCE_VXLAN_PORT)
			t->kind = ROCE_ENCAP_VXLAN;
		else if (dport == ROCE_GENEVE_PORT)
			t->kind = ROCE_ENCAP_GENEVE;
		else if (dport == ROCE_MPLS_PORT)
			t->kind = ROCE_ENCAP_MPLS;
		else
			return false;
		/* UDP Length: the IP payload exactly (checked only once IP's is sane) */
		if (ip_end >= p + ROCE_UDP_HLEN && ip_end <= wirelen &&
		    roce_get_be16(f + p + ROCE_UDP_OFF_LEN) != ip_end - p)
			t->note = ROCE_ENCAP_NOTE_BAD_LENGTH;
		if (t->kind == ROCE_ENCAP_MPLS)
			roce_mpls_parse(f, caplen, p + ROCE_UDP_HLEN, t);
		else
			udp_tunnel_parse(f, caplen, p + ROCE_UDP_HLEN, t);
	} else {
		return false;
	}
	if (t->note == ROCE_ENCAP_NOTE_NONE && frag)
		t->note = ROCE_ENCAP_NOTE_UNSUPPORTED;
inner:
	if (t->note != ROCE_ENCAP_NOTE_NONE)
		return true;
	/* the outer IP length: inside the wire frame, past the tunnel headers */
	if (ip_end > wirelen || ip_end < t->off) {
		t->note = ROCE_ENCAP_NOTE_BAD_LENGTH;
		return true;
	}
	if (t->off > caplen) {
		t->note = ROCE_ENCAP_NOTE_TRUNCATED;
		return true;
	}
	t->caplen = (ip_end < caplen ? ip_end : caplen) - t->off;
	t->wirelen = ip_end - t->off;
	if (t->truncated) {
		/* the mirror cut the frame: its wire length is what its headers say */
		size_t n = inner_claim(f + t->off, t->caplen, t->linktype);

		if (n > t->wirelen)
			t->wirelen = n;
	}
	return true;
}

static const char *const roce_encap_names[ROCE_ENCAP_COUNT] = {
	[ROCE_ENCAP_NONE] = "none",
	[ROCE_ENCAP_ERSPAN1] = "erspan1",
	[ROCE_ENCAP_ERSPAN2] = "erspan2",
	[ROCE_ENCAP_ERSPAN3] = "erspan3",
	[ROCE_ENCAP_GRE] = "gre",
	[ROCE_ENCAP_VXLAN] = "vxlan",
	[ROCE_ENCAP_GENEVE] = "geneve",
	[ROCE_ENCAP_MPLS] = "mpls",
};

const char *roce_encap_name(enum roce_encap e)
{
	return (unsigned)e < ROCE_ENCAP_COUNT ? roce_encap_names[e] : NULL;
}

enum roce_encap roce_encap_from_name(const char *name)
{
	if (!name)
		return ROCE_ENCAP_NONE;
	for (unsigned i = ROCE_ENCAP_NONE + 1; i < ROCE_ENCAP_COUNT; i++) {
		const char *a = roce_encap_names[i], *b = name;

		while (*a && *a == *b) {
			a++;
			b++;
		}
		if (!*a && !*b)
			return (enum roce_encap)i;
	}
	return ROCE_ENCAP_NONE;
}
