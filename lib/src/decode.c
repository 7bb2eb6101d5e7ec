/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * decode.c - roce_decode(): link layer, RoCE v1/v2, BTH, extension headers,
 * ICRC, PFC and PAUSE, plus the small text helpers of pkt.h.
 *
 * specification: IBTA Vol 1 ch. 9 (BTH and extension headers), Annex A16
 * (RoCE), Annex A17 (RoCE v2), IEEE 802.1Qbb (PFC), IEEE 802.3 Annex 31B.
 *
 * Every read is preceded by a span check against caplen.  The RoCE extent
 * (BTH .. ICRC) comes from the IP / UDP / GRH length fields, never from the
 * end of the captured frame, so Ethernet padding and a trailing FCS do not
 * matter.  Nothing here allocates or prints.
 *
 * Header layouts (lengths, offsets, BTH bits, IPv4 checksum, IPv4-mapped
 * addresses) are layout.h's, shared with the builder.
 */
#include <stddef.h>
#include <string.h>

#include <roce/buf.h>
#include <roce/erf.h>
#include <roce/icrc.h>
#include <roce/pkt.h>

#include "decode_fast.h"
#include "decode_tunnel.h"
#include "icrc_int.h"
#include "layout.h"

/* ------------------------------------------------------------------ */
/* findings, syndromes, small helpers                                  */

static const struct {
	const char *name;
	const char *text;
} roce_finding_tab[ROCE_FIND_COUNT] = {
	{ "truncated", "captured bytes end before the headers the frame needs" },
	{ "bad_length", "IP/UDP/GRH length fields inconsistent with the frame or opcode" },
	{ "unknown_opcode", "reserved or unknown BTH opcode" },
	{ "bad_tver", "BTH transport header version is not 0" },
	{ "bad_pad", "BTH pad count impossible for the opcode or payload" },
	{ "bad_ip_checksum", "IPv4 header checksum is wrong" },
	{ "bad_pfc", "malformed PFC or PAUSE frame" },
	{ "bad_cnp", "CNP with BECN=0, PSN != 0 or a wrong length" },
	{ "bad_icrc", "ICRC mismatch" },
	{ "ip_fragment", "RoCE v2 in a fragmented IPv4 datagram" },
};

static int roce_finding_index(uint32_t bit)
{
	if (bit == 0 || (bit & (bit - 1)) != 0)
		return -1;
	for (int i = 0; i < ROCE_FIND_COUNT; i++)
		if (bit == 1u << i)
			return i;
	return -1;
}

const char *roce_finding_name(uint32_t bit)
{
	int i = roce_finding_index(bit);

	return i < 0 ? NULL : roce_finding_tab[i].name;
}

const char *roce_finding_text(uint32_t bit)
{
	int i = roce_finding_index(bit);

	return i < 0 ? "unknown finding" : roce_finding_tab[i].text;
}

const char *roce_aeth_syndrome_text(uint8_t syndrome)
{
	static const char *const nak[] = {
		[ROCE_NAK_PSN_SEQ_ERR] = "NAK PSN sequence error",
		[ROCE_NAK_INVALID_REQ] = "NAK invalid request",
		[ROCE_NAK_REMOTE_ACCESS] = "NAK remote access error",
		[ROCE_NAK_REMOTE_OP] = "NAK remote operational error",
		[ROCE_NAK_INVALID_RD_REQ] = "NAK invalid RD request",
	};

	if (syndrome & 0x80)
		return "reserved";
	switch (roce_aeth_type(syndrome)) {
	case ROCE_AETH_ACK:
		return "ACK";
	case ROCE_AETH_RNR_NAK:
		return "RNR NAK";
	case ROCE_AETH_NAK:
		if ((syndrome & 0x1f) < sizeof(nak) / sizeof(nak[0]))
			return nak[syndrome & 0x1f];
		return "NAK reserved";
	default:
		return "reserved";
	}
}

/* IBTA Table 45 (RNR NAK timer field), microseconds. */
static const uint32_t roce_rnr_us[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120,
	160, 240, 320, 480, 640, 960, 1280, 1920,
	2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720,
	40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

uint32_t roce_rnr_timer_us(unsigned code)
{
	return code < 32 ? roce_rnr_us[code] : 0;
}

/* AETH ACK credit codes 0..30 (IBTA 9.7.5.1.4). */
static const uint16_t roce_credit_tab[31] = {
	0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192,
	256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288,
	16384, 24576, 32768,
};

int roce_aeth_credits(unsigned code)
{
	return code < 31 ? roce_credit_tab[code] : -1;
}

bool roce_linktype_supported(int linktype)
{
	switch (linktype) {
	case ROCE_LINKTYPE_ETHERNET:
	case ROCE_LINKTYPE_RAW:
	case ROCE_LINKTYPE_LINUX_SLL:
	case ROCE_LINKTYPE_IPV4:
	case ROCE_LINKTYPE_IPV6:
	case ROCE_LINKTYPE_LINUX_SLL2:
	case ROCE_LINKTYPE_ERF:
	case ROCE_LINKTYPE_MPLS:
		return true;
	default:
		return false;
	}
}

void roce_decode_opts_init(struct roce_decode_opts *o)
{
	if (!o)
		return;
	memset(o, 0, sizeof(*o));
	o->udp_ports[0] = ROCE_UDP_PORT;
	o->verify_icrc = true;
	o->verify_ip_csum = true;
}

static const char roce_hex[] = "0123456789abcdef";

/* Append s to buf[*pos] (NUL kept), truncating at len. */
static void roce_str_put(char *buf, size_t len, size_t *pos, const char *s, size_t n)
{
	for (size_t i = 0; i < n && *pos + 1 < len; i++)
		buf[(*pos)++] = s[i];
	buf[*pos] = '\0';
}

static size_t roce_fmt_u(char *tmp, unsigned v)
{
	char rev[4];
	size_t n = 0, k = 0;

	do {
		rev[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v && n < sizeof(rev));
	while (n)
		tmp[k++] = rev[--n];
	return k;
}

static size_t roce_fmt_x16(char *tmp, unsigned v)
{
	size_t k = 0;
	int started = 0;

	for (int sh = 12; sh >= 0; sh -= 4) {
		unsigned d = (v >> sh) & 0xf;

		if (d || started || sh == 0) {
			tmp[k++] = roce_hex[d];
			started = 1;
		}
	}
	return k;
}

void roce_addr_str(const uint8_t addr[16], char *buf, size_t len)
{
	size_t pos = 0;
	char tmp[8];

	if (!buf || len == 0)
		return;
	buf[0] = '\0';
	if (!addr)
		return;
	if (roce_is_v4mapped(addr)) {
		for (int i = ROCE_V4MAPPED_OFF; i < 16; i++) {
			if (i > ROCE_V4MAPPED_OFF)
				roce_str_put(buf, len, &pos, ".", 1);
			roce_str_put(buf, len, &pos, tmp, roce_fmt_u(tmp, addr[i]));
		}
		return;
	}

	/* RFC 5952: compress the longest (first on a tie) run of >= 2 zero groups. */
	uint16_t g[8];
	int best = -1, best_len = 0;

	for (int i = 0; i < 8; i++)
		g[i] = roce_get_be16(addr + 2 * i);
	for (int i = 0; i < 8;) {
		int j = i;

		while (j < 8 && g[j] == 0)
			j++;
		if (j - i > best_len && j - i >= 2) {
			best = i;
			best_len = j - i;
		}
		i = j > i ? j : i + 1;
	}
	for (int i = 0; i < 8; i++) {
		if (i == best) {
			roce_str_put(buf, len, &pos, "::", 2);
			i += best_len - 1;
			continue;
		}
		if (i > 0 && i != best + best_len)
			roce_str_put(buf, len, &pos, ":", 1);
		roce_str_put(buf, len, &pos, tmp, roce_fmt_x16(tmp, g[i]));
	}
}

void roce_mac_str(const uint8_t mac[6], char *buf, size_t len)
{
	size_t pos = 0;

	if (!buf || len == 0)
		return;
	buf[0] = '\0';
	if (!mac)
		return;
	for (int i = 0; i < 6; i++) {
		char t[3] = { roce_hex[mac[i] >> 4], roce_hex[mac[i] & 0xf], ':' };

		roce_str_put(buf, len, &pos, t, i < 5 ? 3 : 2);
	}
}

/* ------------------------------------------------------------------ */
/* decoder                                                             */

static const struct roce_decode_opts roce_default_opts = {
	.udp_ports = { ROCE_UDP_PORT },
	.verify_icrc = true,
	.verify_ip_csum = true,
};

/*
 * The destination of a PFC frame is the reserved 01-80-C2-00-00-01 (802.1Qbb,
 * 802.3 Annex 31D); of a PAUSE that or the peer's own (individual) address
 * (Annex 31B): any other is a finding.  Unknown without an Ethernet header.
 */
static bool macctrl_bad_da(const struct roce_pkt *pkt)
{
	static const uint8_t da[6] = { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x01 };

	if (!pkt->dst_mac || memcmp(pkt->dst_mac, da, 6) == 0)
		return false;
	return pkt->kind == ROCE_KIND_PFC || (pkt->dst_mac[0] & 1);
}

/* MAC Control (0x8808) at off: PFC, PAUSE or another opcode (layout.h). */
static int roce_decode_macctrl(struct roce_pkt *pkt, size_t off)
{
	const uint8_t *f = pkt->frame;
	size_t need;

	pkt->kind = ROCE_KIND_MACCTRL;
	pkt->l3_off = (uint32_t)off;    /* the MAC Control opcode (see pkt.h) */
	if (!ROCE_SPAN_OK(pkt->caplen, off, 2)) {
		pkt->findings |= ROCE_FIND_TRUNCATED;
		return ROCE_E_TRUNC;
	}
	pkt->mac_opcode = roce_get_be16(f + off);
	if (pkt->mac_opcode == ROCE_MACCTRL_PFC) {
		pkt->kind = ROCE_KIND_PFC;
		need = ROCE_PFC_BODY_LEN;
	} else if (pkt->mac_opcode == ROCE_MACCTRL_PAUSE) {
		pkt->kind = ROCE_KIND_PAUSE;
		need = ROCE_PAUSE_BODY_LEN;
	} else {
		return ROCE_OK;
	}
	if (!ROCE_SPAN_OK(pkt->wirelen, off, need)) {
		pkt->findings |= ROCE_FIND_BAD_PFC;
		return ROCE_E_MALFORMED;
	}
	if (!ROCE_SPAN_OK(pkt->caplen, off, need)) {
		pkt->findings |= ROCE_FIND_TRUNCATED;
		return ROCE_E_TRUNC;
	}
	if (macctrl_bad_da(pkt))
		pkt->findings |= ROCE_FIND_BAD_PFC;
	if (pkt->kind == ROCE_KIND_PAUSE) {
		pkt->pfc_quanta[0] = roce_get_be16(f + off + ROCE_PAUSE_OFF_TIME);
		return ROCE_OK;
	}
	pkt->pfc_reserved = f[off + ROCE_PFC_OFF_RESV];
	pkt->pfc_enable = f[off + ROCE_PFC_OFF_ENABLE];
	if (pkt->pfc_reserved != 0)
		pkt->findings |= ROCE_FIND_BAD_PFC;
	for (int i = 0; i < 8; i++) {
		pkt->pfc_quanta[i] = roce_get_be16(f + off + ROCE_PFC_OFF_TIME(i));
		if (!(pkt->pfc_enable & (1u << i)) && pkt->pfc_quanta[i] != 0)
			pkt->findings |= ROCE_FIND_BAD_PFC;
	}
	return ROCE_OK;
}

/*
 * Transport part: BTH at pkt->bth_off, extent ending at end (already
 * clamped to what the length fields and wirelen allow).
 */
static int roce_decode_transport(struct roce_pkt *pkt, size_t end,
	const struct roce_decode_opts *opts)
{
	const uint8_t *f = pkt->frame;
	const struct roce_opcode_info *op;
	size_t bth = pkt->bth_off, ext, pay;
	struct roce_bth *b = &pkt->bth;
	bool is_cnp;

	if (end < bth + ROCE_BTH_LEN + ROCE_ICRC_LEN)
		pkt->findings |= ROCE_FIND_BAD_LENGTH;
	if (!ROCE_SPAN_OK(pkt->caplen, bth, ROCE_BTH_LEN)) {
		pkt->findings |= ROCE_FIND_TRUNCATED;
		return roce_status_of(pkt);
	}
	if (pkt->findings & ROCE_FIND_BAD_LENGTH && end < bth + ROCE_BTH_LEN)
		return roce_status_of(pkt);

	/* ---- BTH ---- */
	ext_clear(pkt);
	roce_bth_read(f + bth, b);
	op = &roce_opcodes[b->opcode];
	pkt->op = op;
	ext = bth + ROCE_BTH_LEN;
	pkt->ext_off = (uint32_t)ext;
	if (b->tver != 0)
		pkt->findings |= ROCE_FIND_BAD_TVER;
	is_cnp = (op->flags & ROCE_F_CNP) != 0;

	if (!op->name) {
		/* Unknown layout: BTH only; the ICRC can still be checked. */
		pkt->findings |= ROCE_FIND_UNKNOWN_OPCODE;
		pay = ext;
	} else {
		if (end < ext + op->hdr_len + ROCE_ICRC_LEN) {
			pkt->findings |= is_cnp ? ROCE_FIND_BAD_CNP | ROCE_FIND_BAD_LENGTH :
				ROCE_FIND_BAD_LENGTH;
			return roce_status_of(pkt);
		}
		if (!ROCE_SPAN_OK(pkt->caplen, ext, op->hdr_len)) {
			pkt->findings |= ROCE_FIND_TRUNCATED;
			return roce_status_of(pkt);
		}
		roce_decode_ext(pkt, op);
		pay = ext + op->hdr_len;
	}
	pkt->payload_off = (uint32_t)pay;
	if (end < pay + ROCE_ICRC_LEN)
		return roce_status_of(pkt);     /* unknown opcode, no room: BAD_LENGTH set */
	return roce_decode_tail(pkt, op, pay, end, opts, false, true);
}

/*
 * Clamp the extent claimed by the length fields to the wire length.
 * Returns the usable end.
 */
static size_t roce_clamp_end(struct roce_pkt *pkt, size_t end)
{
	if (end > pkt->wirelen) {
		pkt->findings |= ROCE_FIND_BAD_LENGTH;
		end = pkt->wirelen;
	}
	pkt->roce_end = (uint32_t)end;
	return end;
}

/*
 * The GRH and the IPv6 header share one layout (layout.h).  Takes the
 * fields the analysis uses from the 40 bytes at h (frame + l3).
 */
static void roce_take_ip6_hdr(struct roce_pkt *pkt, size_t l3, const uint8_t *h)
{
	uint32_t w0 = roce_get_be32(h);

	pkt->kind = ROCE_KIND_ROCE;
	pkt->l3_off = (uint32_t)l3;
	pkt->l3_hdr_len = ROCE_IPV6_HLEN;
	pkt->tclass = (uint8_t)(w0 >> ROCE_IP6_TCLASS_SHIFT);
	pkt->ecn = pkt->tclass & 3;
	pkt->flow_label = w0 & ROCE_IP6_FLOW_MASK;
	pkt->ttl = h[ROCE_IP6_OFF_HOPS];
	memcpy(pkt->src, h + ROCE_IP6_OFF_SRC, 16);
	memcpy(pkt->dst, h + ROCE_IP6_OFF_DST, 16);
}

/* RoCE v1: GRH (40) then BTH. */
static int roce_decode_v1(struct roce_pkt *pkt, size_t l3, const struct roce_decode_opts *opts)
{
	const uint8_t *g;

	if (!ROCE_SPAN_OK(pkt->caplen, l3, ROCE_GRH_LEN)) {
		pkt->kind = ROCE_KIND_ROCE;
		pkt->version = 1;
		pkt->l3_off = (uint32_t)l3;
		pkt->findings |= ROCE_FIND_TRUNCATED;
		return ROCE_E_TRUNC;
	}
	g = pkt->frame + l3;    /* (after the check: an empty frame may have none) */
	if (g[ROCE_IP6_OFF_NXT] != ROCE_GRH_NXT_BTH)
		return ROCE_E_NOT_ROCE;
	pkt->version = 1;
	roce_take_ip6_hdr(pkt, l3, g);
	pkt->bth_off = (uint32_t)(l3 + ROCE_GRH_LEN);
	return roce_decode_transport(pkt,
		roce_clamp_end(pkt, l3 + ROCE_GRH_LEN + roce_get_be16(g + ROCE_IP6_OFF_PAYLEN)),
		opts);
}

/* UDP at udp (span already checked for 8 bytes); ip_end from the IP header. */
static int roce_decode_udp(struct roce_pkt *pkt, size_t udp, size_t ip_end,
	const struct roce_decode_opts *opts)
{
	const uint8_t *u = pkt->frame + udp;
	size_t udp_len = roce_get_be16(u + ROCE_UDP_OFF_LEN), end = ip_end;

	pkt->udp_off = (uint32_t)udp;
	pkt->bth_off = (uint32_t)(udp + ROCE_UDP_HLEN);
	if (ip_end < udp + ROCE_UDP_HLEN) {
		pkt->findings |= ROCE_FIND_BAD_LENGTH;
		end = udp + ROCE_UDP_HLEN;
	} else if (udp_len != ip_end - udp) {
		pkt->findings |= ROCE_FIND_BAD_LENGTH;
		if (udp_len >= ROCE_UDP_HLEN && udp + udp_len < ip_end)
			end = udp + udp_len;
	}
	return roce_decode_transport(pkt, roce_clamp_end(pkt, end), opts);
}

/* RoCE v2 over IPv4 (layout.h). */
static int roce_decode_ipv4(struct roce_pkt *pkt, size_t l3, const struct roce_decode_opts *opts)
{
	const uint8_t *ip;
	size_t ihl, udp;
	uint16_t frag, dport;

	if (!ROCE_SPAN_OK(pkt->caplen, l3, ROCE_IPV4_MIN_HLEN))
		return ROCE_E_NOT_ROCE;
	ip = pkt->frame + l3;   /* (after the check: an empty frame may have none) */
	ihl = (size_t)(ip[0] & 0xf) * 4;
	if ((ip[0] >> 4) != 4 || ihl < ROCE_IPV4_MIN_HLEN || ip[ROCE_IPV4_OFF_PROTO] != ROCE_IPPROTO_UDP)
		return ROCE_E_NOT_ROCE;
	frag = roce_get_be16(ip + ROCE_IPV4_OFF_FRAG);
	if (frag & ROCE_IPV4_FRAG_OFF_MASK)
		return ROCE_E_NOT_ROCE;         /* no UDP header in a non-first fragment */
	udp = l3 + ihl;
	if (!ROCE_SPAN_OK(pkt->caplen, udp, ROCE_UDP_HLEN))
		return ROCE_E_NOT_ROCE;
	dport = roce_get_be16(pkt->frame + udp + ROCE_UDP_OFF_DPORT);
	if (!roce_port_match(opts, dport))
		return ROCE_E_NOT_ROCE;

	pkt->kind = ROCE_KIND_ROCE;
	pkt->version = 2;
	pkt->ip_version = 4;
	pkt->l3_off = (uint32_t)l3;
	pkt->l3_hdr_len = (uint32_t)ihl;
	pkt->tclass = ip[ROCE_IPV4_OFF_TOS];
	pkt->ecn = ip[ROCE_IPV4_OFF_TOS] & 3;
	pkt->ip_id = roce_get_be16(ip + ROCE_IPV4_OFF_ID);
	pkt->ttl = ip[ROCE_IPV4_OFF_TTL];
	roce_v4mapped(pkt->src, ip + ROCE_IPV4_OFF_SRC);
	roce_v4mapped(pkt->dst, ip + ROCE_IPV4_OFF_DST);
	pkt->sport = roce_get_be16(pkt->frame + udp + ROCE_UDP_OFF_SPORT);
	pkt->dport = dport;
	if (opts->verify_ip_csum && roce_ipv4_csum(ip, ihl) != 0)
		pkt->findings |= ROCE_FIND_BAD_IP_CSUM;
	if (frag & ROCE_IPV4_MF) {
		pkt->udp_off = (uint32_t)udp;
		pkt->findings |= ROCE_FIND_IP_FRAGMENT;
		return ROCE_E_MALFORMED;
	}
	return roce_decode_udp(pkt, udp, l3 + roce_get_be16(ip + ROCE_IPV4_OFF_TOTLEN), opts);
}

/* RoCE v2 over IPv6 (UDP right after the fixed header). */
static int roce_decode_ipv6(struct roce_pkt *pkt, size_t l3, const struct roce_decode_opts *opts)
{
	const uint8_t *ip;
	size_t udp = l3 + ROCE_IPV6_HLEN;
	uint16_t dport;

	if (!ROCE_SPAN_OK(pkt->caplen, l3, ROCE_IPV6_HLEN + ROCE_UDP_HLEN))
		return ROCE_E_NOT_ROCE;
	ip = pkt->frame + l3;   /* (after the check: an empty frame may have none) */
	if ((ip[0] >> 4) != 6 || ip[ROCE_IP6_OFF_NXT] != ROCE_IPPROTO_UDP)
		return ROCE_E_NOT_ROCE;
	dport = roce_get_be16(pkt->frame + udp + ROCE_UDP_OFF_DPORT);
	if (!roce_port_match(opts, dport))
		return ROCE_E_NOT_ROCE;

	pkt->version = 2;
	pkt->ip_version = 6;
	roce_take_ip6_hdr(pkt, l3, ip);
	pkt->sport = roce_get_be16(pkt->frame + udp + ROCE_UDP_OFF_SPORT);
	pkt->dport = dport;
	return roce_decode_udp(pkt, udp, udp + roce_get_be16(ip + ROCE_IP6_OFF_PAYLEN), opts);
}
/* Reset what a previous decode into the same struct may have left. */
static void roce_pkt_reset(struct roce_pkt *pkt)
{
	pkt->kind = ROCE_KIND_NONE;
	pkt->findings = 0;
	pkt->version = 0;
	pkt->ip_version = 0;
	pkt->dst_mac = NULL;
	pkt->src_mac = NULL;
	pkt->vlan_count = 0;
	pkt->vlan_id = 0;
	pkt->pcp = 0;
	pkt->ethertype = 0;
	/* tclass .. roce_end are contiguous scalars */
	memset(&pkt->tclass, 0, offsetof(struct roce_pkt, roce_end) + sizeof(pkt->roce_end) -
		offsetof(struct roce_pkt, tclass));
	memset(&pkt->bth, 0, sizeof(pkt->bth));
	pkt->op = NULL;
	pkt->hdrs = 0;
	roce_pkt_clear_icrc_mac(pkt);
	memset(pkt->src, 0, sizeof(pkt->src));
	memset(pkt->dst, 0, sizeof(pkt->dst));
	pkt->encap = ROCE_ENCAP_NONE;
	pkt->encap_depth = 0;
	pkt->encap_note = ROCE_ENCAP_NOTE_NONE;
	pkt->encap_truncated = false;
	pkt->encap_off = 0;
	pkt->erspan_session = 0;
	pkt->erspan_vlan = 0;
}

/* both entry points: the general decoder (fast: ERF's frame through roce_decode()) */
int roce_decode_general(int linktype, const uint8_t *frame, size_t caplen, size_t wirelen,
	const struct roce_decode_opts *opts, struct roce_pkt *out);

static int roce_decode_encap(const uint8_t *frame, size_t caplen, size_t l3, uint16_t et,
	const struct roce_decode_opts *opts, struct roce_pkt *out, unsigned depth);

static __attribute__((noinline)) int roce_decode_any(int linktype, const uint8_t *frame,
	size_t caplen, size_t wirelen, const struct roce_decode_opts *opts, struct roce_pkt *out,
	bool fast, unsigned depth)
{
	size_t off;
	uint16_t et;
	int rc;

	if (!out)
		return ROCE_E_INVAL;
	if (!frame && caplen > 0)
		return ROCE_E_INVAL;
	if (!opts)
		opts = &roce_default_opts;
	if (linktype == ROCE_LINKTYPE_ERF) {
		/* a link-layer header of its own: decode the frame inside (the
		 * offsets of out then refer to that frame, out->frame) */
		struct roce_erf erf;
		int erc = roce_erf_parse(frame, caplen, &erf);

		if (erc != ROCE_OK || erf.inner_linktype < 0) {
			/* not RoCE-capable (InfiniBand, PoS, padding, ...) or a broken
			 * header: the record's own frame and wire length when known */
			out->frame = erc == ROCE_OK ? frame + erf.hdr_len : frame;
			out->caplen = erc == ROCE_OK ? erf.inner_caplen : caplen;
			out->wirelen = erc == ROCE_OK ? erf.inner_wirelen :
				       wirelen < caplen ? caplen : wirelen;
			roce_pkt_reset(out);
			return ROCE_E_NOT_ROCE;
		}
		return (fast ? roce_decode : roce_decode_general)(erf.inner_linktype,
				frame + erf.hdr_len, erf.inner_caplen, erf.inner_wirelen, opts, out);
	}
	out->frame = frame;
	out->caplen = caplen;
	out->wirelen = wirelen < caplen ? caplen : wirelen;
	roce_pkt_reset(out);

	switch (roce_link_layer(linktype, frame, caplen, &et, &off)) {
	case -1:
		return ROCE_E_LINKTYPE;
	case 1:
		goto not_roce;
	}
	/* the MACs the link header has: Ethernet both; SLL / SLL2 the source when
	 * its address is 6 bytes long */
	if (linktype == ROCE_LINKTYPE_ETHERNET) {
		out->dst_mac = frame + ROCE_ETH_OFF_DST;
		out->src_mac = frame + ROCE_ETH_OFF_SRC;
	} else if (linktype == ROCE_LINKTYPE_LINUX_SLL && roce_get_be16(frame + 4) == 6) {
		out->src_mac = frame + 6;
	} else if (linktype == ROCE_LINKTYPE_LINUX_SLL2 && frame[11] == 6) {
		out->src_mac = frame + 12;
	}

	/* 802.1Q / 802.1ad / legacy QinQ tags: TPID(16) PCP(3) DEI(1) VID(12) */
	if (off > 0) {
		while (et == ROCE_ETHERTYPE_8021Q || et == ROCE_ETHERTYPE_8021AD ||
		       et == ROCE_ETHERTYPE_QINQ_OLD) {
			uint16_t tci;

			if (out->vlan_count >= ROCE_MAX_VLANS ||
			    !ROCE_SPAN_OK(caplen, off, ROCE_VLAN_TAG_LEN))
				goto not_roce;
			tci = roce_get_be16(frame + off);
			if (out->vlan_count == 0) {
				out->vlan_id = tci & ROCE_VLAN_VID_MASK;
				out->pcp = (uint8_t)(tci >> ROCE_VLAN_PCP_SHIFT);
			}
			out->vlan_count++;
			et = roce_get_be16(frame + off + 2);
			off += ROCE_VLAN_TAG_LEN;
		}
	}
	out->ethertype = et;

	switch (et) {
	case ROCE_ETHERTYPE_ROCE:
		rc = roce_decode_v1(out, off, opts);
		break;
	case ROCE_ETHERTYPE_IPV4:
		rc = roce_decode_ipv4(out, off, opts);
		break;
	case ROCE_ETHERTYPE_IPV6:
		rc = roce_decode_ipv6(out, off, opts);
		break;
	case ROCE_ETHERTYPE_MACCTRL:
		rc = roce_decode_macctrl(out, off);
		break;
	default:
		rc = ROCE_E_NOT_ROCE;
		break;
	}
	if (rc != ROCE_E_NOT_ROCE)
		return rc;
	if (et == ROCE_ETHERTYPE_IPV4 || et == ROCE_ETHERTYPE_IPV6 ||
	    et == ROCE_ETHERTYPE_MPLS || et == ROCE_ETHERTYPE_MPLS_MC)
		return roce_decode_encap(frame, caplen, off, et, opts, out, depth);

not_roce:
	out->kind = ROCE_KIND_NONE;
	out->findings = 0;
	return ROCE_E_NOT_ROCE;
}

int roce_decode(int linktype, const uint8_t *frame, size_t caplen, size_t wirelen,
	const struct roce_decode_opts *opts, struct roce_pkt *out)
{
	if (linktype == ROCE_LINKTYPE_ETHERNET && out && frame) {
		int rc;

		out->frame = frame;
		out->caplen = caplen;
		out->wirelen = wirelen < caplen ? caplen : wirelen;
		rc = roce_decode_fast(out, opts ? opts : &roce_default_opts, true, false);
		if (rc != 1)
			return rc;
	}
	return roce_decode_any(linktype, frame, caplen, wirelen, opts, out, true, 0);
}

int roce_decode_rest(int linktype, const uint8_t *frame, size_t caplen, size_t wirelen,
	const struct roce_decode_opts *opts, struct roce_pkt *out)
{
	return roce_decode_any(linktype, frame, caplen, wirelen, opts, out, true, 0);
}

/* roce_decode() without the fast path: test_sweep compares the two. */
int roce_decode_general(int linktype, const uint8_t *frame, size_t caplen, size_t wirelen,
	const struct roce_decode_opts *opts, struct roce_pkt *out)
{
	return roce_decode_any(linktype, frame, caplen, wirelen, opts, out, false, 0);
}

/*
 * An IPv4 / IPv6 frame that was not RoCE, or an MPLS one: a tunnel or mirror
 * packet with RoCE (or PFC / PAUSE) inside?  decode_tunnel.c finds the inner frame, the
 * general decoder decodes it (depth: the tunnels around it), and *out takes
 * the inner frame's result with the encapsulation recorded (pkt.h).  Not
 * RoCE inside, or nothing to decode (a note), leaves *out the outer frame's
 * not-RoCE result with the encapsulation and the note.
 */
static __attribute__((noinline)) int roce_decode_encap(const uint8_t *frame, size_t caplen,
	size_t l3, uint16_t et, const struct roce_decode_opts *opts, struct roce_pkt *out,
	unsigned depth)
{
	struct roce_tunnel t;
	struct roce_pkt in;
	uint8_t note, nested = 0;
	int rc;

	out->kind = ROCE_KIND_NONE;
	out->findings = 0;
	if (!roce_tunnel_parse(frame, caplen, out->wirelen, l3, et, &t))
		return ROCE_E_NOT_ROCE;
	note = (uint8_t)t.note;
	if (note == ROCE_ENCAP_NOTE_NONE && depth >= ROCE_MAX_TUNNELS)
		note = ROCE_ENCAP_NOTE_TOO_DEEP;
	if (note == ROCE_ENCAP_NOTE_NONE) {
		rc = roce_decode_any(t.linktype, frame + t.off, t.caplen, t.wirelen, opts, &in,
				     false, depth + 1);
		if (rc != ROCE_E_NOT_ROCE && rc != ROCE_E_LINKTYPE) {
			*out = in;
			out->encap = (uint8_t)t.kind;
			out->encap_depth = (uint8_t)(in.encap_depth + 1);
			out->encap_off = (uint32_t)(t.off + in.encap_off);
			out->encap_truncated = t.truncated || in.encap_truncated;
			if (t.kind == ROCE_ENCAP_ERSPAN2 || t.kind == ROCE_ENCAP_ERSPAN3) {
				out->erspan_session = t.session;
				out->erspan_vlan = t.vlan;
			}
			return rc;
		}
		note = in.encap_note;
		nested = in.encap_depth;
	}
	out->encap = (uint8_t)t.kind;
	out->encap_depth = (uint8_t)(nested + 1);
	out->encap_note = note;
	out->encap_truncated = t.truncated;
	return ROCE_E_NOT_ROCE;
}
