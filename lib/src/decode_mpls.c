/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * decode_mpls.c - an MPLS label stack and what follows it: where the frame
 * inside starts, read as Wireshark 4.0 reads it.
 *
 * specification: RFC 3032 (label stack entry), RFC 4385 (pseudowire control
 * word, first nibble 0000), RFC 4448 (Ethernet pseudowire), RFC 5586 (GAL,
 * label 13, with an associated channel: first nibble 0001), RFC 7510 (MPLS
 * in UDP), RFC 4023 (MPLS in IP and GRE).  The diagram is in <roce/pkt.h>.
 *
 *   Label(20) TC(3) S(1) TTL(8)   ... until S = 1 (bottom of stack)
 *   payload: first nibble 4: IPv4; 6: IPv6; 0: an Ethernet pseudowire,
 *            [0000 Flags(4) FRG(2) Length(6) Sequence(16)] then the frame;
 *            anything else (1: an associated channel): not decoded.
 *
 * Wireshark chooses between a pseudowire with and without a control word by
 * its table of vendor address blocks (both addresses of a known vendor: no
 * control word).  libroce has no such table: it takes the control word
 * unless the reading without one gives an EtherType roce_decode() decodes
 * (IPv4 / IPv6 followed by a header of that version, RoCE v1 followed by a
 * GRH, MAC Control, a VLAN tag, MPLS) and the reading with one does not, or
 * the reading without one has a VLAN tag (whose EtherType the other reading
 * would take for the frame's: no evidence for it).  The two agree on the
 * frames of known vendors' NICs; with locally administered addresses
 * Wireshark may take the wrong reading where this one does not.
 *
 * Only decode_tunnel.c calls this, from the general path.  Every read is
 * inside a span checked against caplen.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <roce/buf.h>
#include <roce/pkt.h>

#include "decode_tunnel.h"
#include "layout.h"

#define M_LSE_LEN 4
#define M_LSE_LABEL_SHIFT 12
#define M_LSE_S 0x100u
#define M_LABEL_GAL 13
#define M_CW_LEN 4

/* eth_plausible()'s answers */
#define M_NO 0
#define M_YES 1
#define M_TAG 2

/* An Ethernet frame at o that roce_decode() would look into (see above): M_YES, M_TAG
 * (a VLAN tag first) or M_NO. */
static int eth_plausible(const uint8_t *f, size_t caplen, size_t o)
{
	unsigned v;

	if (!ROCE_SPAN_OK(caplen, o, ROCE_ETH_HLEN + 1))
		return M_NO;
	v = f[o + ROCE_ETH_HLEN] >> 4;
	switch (roce_get_be16(f + o + ROCE_ETH_OFF_TYPE)) {
	case ROCE_ETHERTYPE_IPV4:
		return v == 4 ? M_YES : M_NO;
	case ROCE_ETHERTYPE_IPV6:
	case ROCE_ETHERTYPE_ROCE:
		return v == 6 ? M_YES : M_NO;
	case ROCE_ETHERTYPE_MACCTRL:
	case ROCE_ETHERTYPE_MPLS:
	case ROCE_ETHERTYPE_MPLS_MC:
		return M_YES;
	case ROCE_ETHERTYPE_8021Q:
	case ROCE_ETHERTYPE_8021AD:
	case ROCE_ETHERTYPE_QINQ_OLD:
		return M_TAG;
	default:
		return M_NO;
	}
}

void roce_mpls_parse(const uint8_t *f, size_t caplen, size_t p, struct roce_tunnel *t)
{
	uint32_t lse = 0;
	unsigned n;

	for (n = 0; !(lse & M_LSE_S); n++) {
		if (n == ROCE_MAX_MPLS_LABELS) {
			t->note = ROCE_ENCAP_NOTE_LABELS;
			return;
		}
		if (!ROCE_SPAN_OK(caplen, p, M_LSE_LEN)) {
			t->note = ROCE_ENCAP_NOTE_TRUNCATED;
			return;
		}
		lse = roce_get_be32(f + p);
		p += M_LSE_LEN;
	}
	if ((lse >> M_LSE_LABEL_SHIFT) == M_LABEL_GAL) {
		t->note = ROCE_ENCAP_NOTE_UNSUPPORTED;  /* an associated channel */
		return;
	}
	if (!ROCE_SPAN_OK(caplen, p, 1)) {
		t->note = ROCE_ENCAP_NOTE_TRUNCATED;
		return;
	}
	switch (f[p] >> 4) {
	case 4:
	case 6:
		t->linktype = ROCE_LINKTYPE_RAW;
		t->off = p;
		return;
	case 0: {
		int bare = eth_plausible(f, caplen, p);

		t->linktype = ROCE_LINKTYPE_ETHERNET;
		t->off = p + M_CW_LEN;
		if (bare == M_TAG || (bare == M_YES && !eth_plausible(f, caplen, p + M_CW_LEN)))
			t->off = p;
		return;
	}
	default:
		t->note = ROCE_ENCAP_NOTE_UNSUPPORTED;
		return;
	}
}
