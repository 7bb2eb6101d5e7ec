/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rewrite.c - field edits on a captured Ethernet frame with IPv4/UDP
 * checksums and the RoCE ICRC repaired afterwards (see rewrite.h).
 *
 * Order: decode (offsets, old ICRC status) -> L3/transport edits at the
 * decoder's offsets -> IPv4 checksum -> ICRC -> UDP checksum (it covers the
 * ICRC; the ICRC masks it) -> MAC and VLAN edits (not covered by the ICRC),
 * which may move the bytes after the MAC addresses by 4.
 */
#define _POSIX_C_SOURCE 200809L

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include <roce/buf.h>
#include <roce/icrc.h>
#include <roce/pkt.h>
#include <roce/rewrite.h>

#include "layout.h"

#define ETH_HDR ROCE_ETH_HLEN
#define ETH_MIN ROCE_ETH_MIN
#define TAG_LEN ROCE_VLAN_TAG_LEN
#define OFF_TAGS ROCE_ETH_OFF_TYPE     /* the first tag's TPID sits where the type was */

void roce_rewrite_init(struct roce_rewrite *rw)
{
	memset(rw, 0, sizeof(*rw));
	rw->vlan = ROCE_RW_VLAN_KEEP;
	rw->vlan_pcp = -1;
	rw->dscp = -1;
	rw->ecn = -1;
	rw->sport = -1;
}

static bool rw_l3_active(const struct roce_rewrite *rw)
{
	return rw->dscp >= 0 || rw->ecn >= 0 || rw->sport >= 0 || rw->psn_offset % (1u << 24) ||
		rw->n_ipmaps || rw->n_qpmaps;
}

bool roce_rewrite_active(const struct roce_rewrite *rw)
{
	return rw->set_dst_mac || rw->set_src_mac || rw->vlan != ROCE_RW_VLAN_KEEP ||
		rw->vlan_pcp >= 0 || rw_l3_active(rw);
}

static bool is_tpid(uint16_t t)
{
	return t == ROCE_ETHERTYPE_8021Q || t == ROCE_ETHERTYPE_8021AD ||
		t == ROCE_ETHERTYPE_QINQ_OLD;
}

/* One's-complement sum of n bytes (n even or odd), folded to 16 bits. */
static uint32_t csum_add(uint32_t sum, const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		sum += roce_get_be16(p + i);
	if (n & 1)
		sum += (uint32_t)p[n - 1] << 8;
	return sum;
}

static uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* Correct IPv4 header checksum for the header at p (the field taken as 0). */
static uint16_t ipv4_csum(uint8_t *p, size_t ihl)
{
	uint16_t old = roce_get_be16(p + ROCE_IPV4_OFF_CSUM), c;

	roce_put_be16(p + ROCE_IPV4_OFF_CSUM, 0);
	c = roce_ipv4_csum(p, ihl);
	roce_put_be16(p + ROCE_IPV4_OFF_CSUM, old);
	return c;
}

/* Correct UDP checksum (field taken as 0); 0 is sent as 0xFFFF. */
static uint16_t udp_csum(const struct roce_pkt *pkt, const uint8_t *f, uint32_t udp_len)
{
	const uint8_t *l3 = f + pkt->l3_off, *udp = f + pkt->udp_off;
	uint32_t sum = 0;
	uint16_t c;

	if (pkt->ip_version == 4)
		sum = csum_add(sum, l3 + ROCE_IPV4_OFF_SRC, 8);
	else
		sum = csum_add(sum, l3 + ROCE_IP6_OFF_SRC, 32);
	sum += ROCE_IPPROTO_UDP + udp_len;
	sum = csum_add(sum, udp, ROCE_UDP_OFF_CSUM);
	sum = csum_add(sum, udp + ROCE_UDP_HLEN, udp_len - ROCE_UDP_HLEN);
	c = csum_fold(sum);
	return c ? c : 0xffff;
}

static bool map_is_v4(const struct roce_rw_ipmap *m)
{
	return m->plen >= 8 * ROCE_V4MAPPED_OFF && roce_is_v4mapped(m->from);
}

static bool prefix_eq(const uint8_t *a, const uint8_t *b, unsigned plen)
{
	unsigned full = plen / 8, rest = plen % 8;

	if (memcmp(a, b, full))
		return false;
	if (rest) {
		uint8_t m = (uint8_t)(0xff << (8 - rest));

		return (a[full] & m) == (b[full] & m);
	}
	return true;
}

static void prefix_set(uint8_t *a, const uint8_t *to, unsigned plen)
{
	unsigned full = plen / 8, rest = plen % 8;

	memcpy(a, to, full);
	if (rest) {
		uint8_t m = (uint8_t)(0xff << (8 - rest));

		a[full] = (uint8_t)((a[full] & ~m) | (to[full] & m));
	}
}

/* Map one address in place (16-byte form); true when it changed. */
static bool map_addr(const struct roce_rewrite *rw, unsigned which, bool v4, uint8_t a[16])
{
	uint8_t old[16];

	for (unsigned i = 0; i < rw->n_ipmaps && i < ROCE_RW_MAX_MAPS; i++) {
		const struct roce_rw_ipmap *m = &rw->ipmaps[i];

		if (!(m->which & which) || map_is_v4(m) != v4 || m->plen > 128)
			continue;
		if (!prefix_eq(a, m->from, m->plen))
			continue;
		memcpy(old, a, 16);
		prefix_set(a, m->to, m->plen);
		return memcmp(old, a, 16) != 0;
	}
	return false;
}

/* Rewrite the source or destination address field at p (4 or 16 bytes). */
static bool rw_addr_field(const struct roce_rewrite *rw, unsigned which, bool v4, uint8_t *p)
{
	uint8_t a[16];

	if (v4)
		roce_v4mapped(a, p);
	else
		memcpy(a, p, 16);
	/* a 16-byte field (IPv6, GRH GID) may hold a v4-mapped address */
	if (!map_addr(rw, which, v4 || roce_is_v4mapped(a), a))
		return false;
	memcpy(p, v4 ? a + ROCE_V4MAPPED_OFF : a, v4 ? 4 : 16);
	return true;
}

/* L3 and BTH edits on a decoded RoCE frame; ROCE_RW_R_* bits. */
static uint32_t rw_roce(const struct roce_rewrite *rw, uint8_t *f, size_t len, struct roce_pkt *pkt)
{
	uint8_t *l3 = f + pkt->l3_off;
	bool v4 = pkt->ip_version == 4;
	bool changed = false, csum_ok = false;
	uint16_t ip_err = 0, udp_old = 0;
	uint32_t udp_len = 0, icrc_err = 0, res = 0;
	enum roce_icrc_status st = pkt->icrc_status;

	/* Everything we touch was decoded, so it lies inside len; check anyway. */
	if (!ROCE_SPAN_OK(len, pkt->l3_off, pkt->l3_hdr_len) ||
	    !ROCE_SPAN_OK(len, pkt->bth_off, ROCE_BTH_LEN) ||
	    pkt->l3_hdr_len < (v4 ? ROCE_IPV4_MIN_HLEN : ROCE_IPV6_HLEN))
		return ROCE_RW_R_NOT_ROCE;
	if (st == ROCE_ICRC_BAD)
		icrc_err = pkt->icrc_wire ^ pkt->icrc_computed;
	if (v4)
		ip_err = (uint16_t)(roce_get_be16(l3 + ROCE_IPV4_OFF_CSUM) ^
				    ipv4_csum(l3, pkt->l3_hdr_len));
	if (pkt->version == 2 && ROCE_SPAN_OK(len, pkt->udp_off, ROCE_UDP_HLEN)) {
		udp_old = roce_get_be16(f + pkt->udp_off + ROCE_UDP_OFF_CSUM);
		udp_len = roce_get_be16(f + pkt->udp_off + ROCE_UDP_OFF_LEN);
		if (udp_old && udp_len >= ROCE_UDP_HLEN && ROCE_SPAN_OK(len, pkt->udp_off, udp_len))
			csum_ok = udp_csum(pkt, f, udp_len) == udp_old;
	}

	if (rw->dscp >= 0 || rw->ecn >= 0) {
		uint8_t tc = pkt->tclass;

		if (rw->dscp >= 0)
			tc = (uint8_t)((tc & 3) | (rw->dscp & 63) << 2);
		if (rw->ecn >= 0)
			tc = (uint8_t)((tc & ~3) | (rw->ecn & 3));
		if (tc != pkt->tclass) {
			if (v4) {
				l3[ROCE_IPV4_OFF_TOS] = tc;
			} else {
				/* version(4) | tclass(8) | flow label(20) */
				l3[0] = (uint8_t)((l3[0] & 0xf0) | tc >> 4);
				l3[1] = (uint8_t)((l3[1] & 0x0f) | (tc & 0x0f) << 4);
			}
			changed = true;
		}
	}
	if (rw->n_ipmaps) {
		changed |= rw_addr_field(rw, ROCE_RW_MAP_SRC, v4,
					 l3 + (v4 ? ROCE_IPV4_OFF_SRC : ROCE_IP6_OFF_SRC));
		changed |= rw_addr_field(rw, ROCE_RW_MAP_DST, v4,
					 l3 + (v4 ? ROCE_IPV4_OFF_DST : ROCE_IP6_OFF_DST));
	}
	if (rw->sport >= 0 && pkt->version == 2 && ROCE_SPAN_OK(len, pkt->udp_off, 2) &&
	    roce_get_be16(f + pkt->udp_off + ROCE_UDP_OFF_SPORT) != (uint16_t)rw->sport) {
		roce_put_be16(f + pkt->udp_off + ROCE_UDP_OFF_SPORT, (uint16_t)rw->sport);
		changed = true;
	}
	for (unsigned i = 0; i < rw->n_qpmaps && i < ROCE_RW_MAX_MAPS; i++) {
		const struct roce_rw_qpmap *m = &rw->qpmaps[i];

		if (m->from != ROCE_RW_QP_ANY && m->from != pkt->bth.dqpn)
			continue;
		if ((m->to & ROCE_QPN_MASK) != pkt->bth.dqpn) {
			roce_put_be24(f + pkt->bth_off + ROCE_BTH_OFF_DQPN, m->to & ROCE_QPN_MASK);
			changed = true;
		}
		break;
	}
	if (rw->psn_offset % (1u << 24)) {
		roce_put_be24(f + pkt->bth_off + ROCE_BTH_OFF_PSN,
			      roce_psn_add(pkt->bth.psn, rw->psn_offset));
		changed = true;
	}
	if (!changed)
		return 0;
	res |= ROCE_RW_R_L3;

	if (v4)
		roce_put_be16(l3 + ROCE_IPV4_OFF_CSUM,
			      (uint16_t)(ipv4_csum(l3, pkt->l3_hdr_len) ^ ip_err));
	if (st == ROCE_ICRC_UNVERIFIED || !ROCE_SPAN_OK(len, pkt->icrc_off, 4)) {
		res |= ROCE_RW_R_ICRC_UNVERIFIED;
	} else {
		uint32_t crc;

		if (roce_icrc_compute(pkt, &crc) == ROCE_OK) {
			roce_put_le32(f + pkt->icrc_off, crc ^ icrc_err);
			res |= ROCE_RW_R_ICRC;
			if (icrc_err)
				res |= ROCE_RW_R_ICRC_WAS_BAD;
		} else {
			res |= ROCE_RW_R_ICRC_UNVERIFIED;
		}
	}
	/* the UDP checksum covers the ICRC (and the ICRC masks the checksum): last */
	if (csum_ok)
		roce_put_be16(f + pkt->udp_off + ROCE_UDP_OFF_CSUM, udp_csum(pkt, f, udp_len));
	return res;
}

/* MAC and VLAN edits; ntag tags start at OFF_TAGS.  Returns ROCE_RW_R_L2 or 0. */
static uint32_t rw_l2(const struct roce_rewrite *rw, uint8_t *f, size_t *len, unsigned ntag)
{
	uint32_t res = 0;
	size_t n = *len;

	if (rw->set_dst_mac && memcmp(f + ROCE_ETH_OFF_DST, rw->dst_mac, 6)) {
		memcpy(f + ROCE_ETH_OFF_DST, rw->dst_mac, 6);
		res = ROCE_RW_R_L2;
	}
	if (rw->set_src_mac && memcmp(f + ROCE_ETH_OFF_SRC, rw->src_mac, 6)) {
		memcpy(f + ROCE_ETH_OFF_SRC, rw->src_mac, 6);
		res = ROCE_RW_R_L2;
	}
	if (rw->vlan == ROCE_RW_VLAN_STRIP) {
		if (ntag) {
			memmove(f + OFF_TAGS, f + OFF_TAGS + TAG_LEN, n - OFF_TAGS - TAG_LEN);
			n -= TAG_LEN;
			if (n < ETH_MIN && *len >= ETH_MIN) {
				memset(f + n, 0, ETH_MIN - n);
				n = ETH_MIN;
			}
			res = ROCE_RW_R_L2;
		}
	} else if (rw->vlan == ROCE_RW_VLAN_SET || rw->vlan_pcp >= 0) {
		uint16_t tci;

		if (ntag) {
			uint16_t old = roce_get_be16(f + OFF_TAGS + 2);

			tci = old;
			if (rw->vlan == ROCE_RW_VLAN_SET)
				tci = (uint16_t)((tci & ~ROCE_VLAN_VID_MASK) |
						 (rw->vlan_id & ROCE_VLAN_VID_MASK));
			if (rw->vlan_pcp >= 0)
				tci = (uint16_t)((tci & ~(7u << ROCE_VLAN_PCP_SHIFT)) |
						 (rw->vlan_pcp & 7) << ROCE_VLAN_PCP_SHIFT);
			if (tci != old) {
				roce_put_be16(f + OFF_TAGS + 2, tci);
				res = ROCE_RW_R_L2;
			}
		} else {
			tci = (uint16_t)(rw->vlan == ROCE_RW_VLAN_SET ?
					 rw->vlan_id & ROCE_VLAN_VID_MASK : 0);
			if (rw->vlan_pcp >= 0)
				tci |= (uint16_t)((rw->vlan_pcp & 7) << ROCE_VLAN_PCP_SHIFT);
			memmove(f + OFF_TAGS + TAG_LEN, f + OFF_TAGS, n - OFF_TAGS);
			roce_put_be16(f + OFF_TAGS, ROCE_ETHERTYPE_8021Q);
			roce_put_be16(f + OFF_TAGS + 2, tci);
			n += TAG_LEN;
			res = ROCE_RW_R_L2;
		}
	}
	*len = n;
	return res;
}

int roce_rewrite_frame(const struct roce_rewrite *rw, int linktype, uint8_t *frame,
		       size_t *len, size_t cap, uint32_t *result)
{
	struct roce_decode_opts o;
	struct roce_pkt pkt;
	unsigned ntag = 0;
	uint32_t res = 0;
	size_t n;
	bool push;
	int rc;

	if (result)
		*result = 0;
	if (!rw || !frame || !len || *len > cap)
		return ROCE_E_INVAL;
	if (linktype != ROCE_LINKTYPE_ETHERNET)
		return ROCE_E_LINKTYPE;
	n = *len;
	if (n < ETH_HDR)
		return ROCE_OK;
	while (ntag < ROCE_MAX_VLANS && ROCE_SPAN_OK(n, OFF_TAGS + TAG_LEN * ntag, 2 + TAG_LEN) &&
	       is_tpid(roce_get_be16(frame + OFF_TAGS + TAG_LEN * ntag)))
		ntag++;
	push = !ntag && rw->vlan != ROCE_RW_VLAN_STRIP &&
		(rw->vlan == ROCE_RW_VLAN_SET || rw->vlan_pcp >= 0);
	if (push && cap - n < TAG_LEN)
		return ROCE_E_NOSPACE;

	if (rw_l3_active(rw)) {
		roce_decode_opts_init(&o);
		for (unsigned i = 0; i < 8 && rw->udp_ports[i]; i++)
			o.udp_ports[i] = rw->udp_ports[i];
		rc = roce_decode(ROCE_LINKTYPE_ETHERNET, frame, n, n, &o, &pkt);
		/* (RoCE inside a tunnel: its offsets are the inner frame's and its
		 * outer lengths would not follow an edit; left alone, as before) */
		if (rc == ROCE_OK && pkt.kind == ROCE_KIND_ROCE && pkt.encap == ROCE_ENCAP_NONE &&
		    !(pkt.findings & (ROCE_FIND_TRUNCATED | ROCE_FIND_BAD_LENGTH)))
			res |= rw_roce(rw, frame, n, &pkt);
		else
			res |= ROCE_RW_R_NOT_ROCE;
	}
	res |= rw_l2(rw, frame, len, ntag);
	if (result)
		*result = res;
	return ROCE_OK;
}

/* Parse "ADDR[/LEN]" (no brackets) into the 16-byte form; family from the text. */
static int parse_prefix(const char *s, size_t n, uint8_t out[16], int *plen, bool *v4)
{
	char buf[64];
	const char *slash;
	uint8_t v4a[4];
	size_t alen;

	if (n == 0 || n >= sizeof(buf))
		return ROCE_E_INVAL;
	memcpy(buf, s, n);
	buf[n] = 0;
	slash = strchr(buf, '/');
	alen = slash ? (size_t)(slash - buf) : n;
	buf[alen] = 0;
	*plen = -1;
	if (slash) {
		char *end;
		long v;

		if (!slash[1])
			return ROCE_E_INVAL;
		v = strtol(slash + 1, &end, 10);
		if (*end || v < 0 || v > 128 || slash[1] == '-' || slash[1] == '+')
			return ROCE_E_INVAL;
		*plen = (int)v;
	}
	if (inet_pton(AF_INET, buf, v4a) == 1) {
		roce_v4mapped(out, v4a);
		*v4 = true;
		if (*plen > 32)
			return ROCE_E_INVAL;
		*plen = *plen < 0 ? 128 : 96 + *plen;
		return ROCE_OK;
	}
	if (inet_pton(AF_INET6, buf, out) == 1) {
		*v4 = false;
		if (*plen < 0)
			*plen = 128;
		return ROCE_OK;
	}
	return ROCE_E_INVAL;
}

/* One side of a map: "[A/L]", "[A]/L", or "A/L"; *s advances past it. */
static int parse_side(const char **s, bool first, uint8_t out[16], int *plen, bool *v4)
{
	const char *p = *s, *e;
	char tmp[64];
	size_t n;
	int rc;

	if (*p == '[') {
		e = strchr(p, ']');
		if (!e)
			return ROCE_E_INVAL;
		n = (size_t)(e - p - 1);
		if (n >= sizeof(tmp))
			return ROCE_E_INVAL;
		memcpy(tmp, p + 1, n);
		p = e + 1;
		if (*p == '/') {     /* "[A]/L": append the length */
			size_t m = strcspn(p, first ? ":" : "");

			if (n + m >= sizeof(tmp) || memchr(tmp, '/', n))
				return ROCE_E_INVAL;
			memcpy(tmp + n, p, m);
			n += m;
			p += m;
		}
		rc = parse_prefix(tmp, n, out, plen, v4);
		if (rc == ROCE_OK && *v4)
			return ROCE_E_INVAL;    /* brackets are for IPv6 */
	} else {
		n = first ? strcspn(p, ":") : strlen(p);
		rc = parse_prefix(p, n, out, plen, v4);
		if (rc == ROCE_OK && !*v4)
			return ROCE_E_INVAL;    /* IPv6 needs brackets */
		p += n;
	}
	*s = p;
	return rc;
}

int roce_rewrite_parse_ipmap(const char *s, unsigned which, struct roce_rw_ipmap *out)
{
	const char *p = s;
	int plen_from, plen_to;
	bool v4_from, v4_to;
	uint8_t from[16], to[16];

	if (!(which & (ROCE_RW_MAP_SRC | ROCE_RW_MAP_DST)) || which & ~3u)
		return ROCE_E_INVAL;
	if (parse_side(&p, true, from, &plen_from, &v4_from) != ROCE_OK || *p != ':')
		return ROCE_E_INVAL;
	p++;
	if (parse_side(&p, false, to, &plen_to, &v4_to) != ROCE_OK || *p)
		return ROCE_E_INVAL;
	if (v4_from != v4_to)
		return ROCE_E_INVAL;
	/* "TO" without a length takes FROM's; with one, it must agree */
	if (plen_to != 128 && plen_to != plen_from)
		return ROCE_E_INVAL;
	memset(out, 0, sizeof(*out));
	memcpy(out->from, from, 16);
	memcpy(out->to, to, 16);
	out->plen = (uint8_t)plen_from;
	out->which = (uint8_t)which;
	/* host bits of "from" do not take part in the match */
	for (unsigned i = 0; i < 16; i++) {
		int bits = plen_from - (int)i * 8;
		uint8_t m = bits >= 8 ? 0xff : bits <= 0 ? 0 : (uint8_t)(0xff << (8 - bits));

		out->from[i] &= m;
	}
	return ROCE_OK;
}
