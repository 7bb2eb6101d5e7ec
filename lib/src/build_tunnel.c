/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * build_tunnel.c - roce_build_encap(): a frame wrapped in GRE / ERSPAN I-III
 * / VXLAN / Geneve behind an outer Ethernet and IPv4/IPv6 header, or in an
 * MPLS label stack behind an outer Ethernet header, the inverse of
 * decode_tunnel.c and decode_mpls.c (layouts in <roce/pkt.h>).
 *
 * specification: RFC 2784, RFC 2890 (GRE), draft-foschiano-erspan-03,
 * RFC 7348 (VXLAN), RFC 8926 (Geneve), RFC 791 / RFC 8200 (outer IP),
 * RFC 3032 (MPLS), RFC 4385 / RFC 4448 (Ethernet pseudowire).
 */
#include <stddef.h>
#include <string.h>

#include <roce/buf.h>
#include <roce/build.h>
#include <roce/pkt.h>

#include "layout.h"

#define B_IPPROTO_GRE 47

void roce_encap_spec_init(struct roce_encap_spec *s, enum roce_encap e)
{
	static const uint8_t dmac[6] = { 0x02, 0, 0, 0, 0xee, 0x02 };
	static const uint8_t smac[6] = { 0x02, 0, 0, 0, 0xee, 0x01 };

	if (!s)
		return;
	memset(s, 0, sizeof(*s));
	s->encap = e;
	s->ip_version = 4;
	memcpy(s->dst_mac, dmac, 6);
	memcpy(s->src_mac, smac, 6);
	roce_addr_v4(s->src, 0xc0000201u);
	roce_addr_v4(s->dst, 0xc0000202u);
	s->ttl = 64;
	s->sport = 0xc000;
	s->vni = 100;
	s->session_id = 1;
	s->gre_seq_present = e == ROCE_ENCAP_ERSPAN2 || e == ROCE_ENCAP_ERSPAN3;
	s->mpls_count = 1;
	s->mpls_labels[0] = 100;
}

/* Where the IP packet of an Ethernet frame starts (after tags), its ethertype and length. */
static size_t inner_ip(const uint8_t *f, size_t n, uint16_t *et, size_t *ip_len)
{
	size_t off = ROCE_ETH_HLEN;

	*et = 0;
	if (n < ROCE_ETH_HLEN)
		return 0;
	*et = roce_get_be16(f + ROCE_ETH_OFF_TYPE);
	while ((*et == ROCE_ETHERTYPE_8021Q || *et == ROCE_ETHERTYPE_8021AD ||
		*et == ROCE_ETHERTYPE_QINQ_OLD) && ROCE_SPAN_OK(n, off, ROCE_VLAN_TAG_LEN)) {
		*et = roce_get_be16(f + off + 2);
		off += ROCE_VLAN_TAG_LEN;
	}
	if (*et == ROCE_ETHERTYPE_IPV4 && ROCE_SPAN_OK(n, off, ROCE_IPV4_MIN_HLEN))
		*ip_len = roce_get_be16(f + off + ROCE_IPV4_OFF_TOTLEN);
	else if (*et == ROCE_ETHERTYPE_IPV6 && ROCE_SPAN_OK(n, off, ROCE_IPV6_HLEN))
		*ip_len = ROCE_IPV6_HLEN + (size_t)roce_get_be16(f + off + ROCE_IP6_OFF_PAYLEN);
	else
		return 0;
	if (*ip_len > n - off)
		*ip_len = n - off;
	return off;
}

/* RFC 1071 over any span (the GRE checksum). */
static uint16_t csum_any(const uint8_t *p, size_t n)
{
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		sum += roce_get_be16(p + i);
	if (i < n)
		sum += (uint32_t)p[i] << 8;
	return (uint16_t)~roce_csum_fold(sum);
}

/* The outer Ethernet [802.1Q] header of s, EtherType et, at buf (l2 bytes). */
static void outer_eth(const struct roce_encap_spec *s, uint8_t *buf, size_t l2, uint16_t et)
{
	memcpy(buf + ROCE_ETH_OFF_DST, s->dst_mac, 6);
	memcpy(buf + ROCE_ETH_OFF_SRC, s->src_mac, 6);
	if (s->vlan_tagged) {
		roce_put_be16(buf + ROCE_ETH_OFF_TYPE, ROCE_ETHERTYPE_8021Q);
		roce_put_be16(buf + ROCE_ETH_HLEN, s->vlan_id & ROCE_VLAN_VID_MASK);
	}
	roce_put_be16(buf + l2 - 2, et);
}

/* MPLS: Ethernet, the label stack, [a control word and] the frame or its IP packet. */
static int build_mpls(const struct roce_encap_spec *s, const uint8_t *inner, size_t inner_len,
	uint8_t *buf, size_t cap, size_t *len)
{
	size_t l2 = ROCE_ETH_HLEN + (s->vlan_tagged ? ROCE_VLAN_TAG_LEN : 0u);
	size_t n = s->mpls_count, pay_off = 0, pay_len = inner_len, cw = 4, ip_len = 0, tot, p;
	uint16_t et;

	if (n < 1 || n > ROCE_MAX_MPLS_LABELS)
		return ROCE_E_INVAL;
	if (!s->mpls_pw) {
		size_t o = inner_ip(inner, inner_len, &et, &ip_len);

		if (o) {
			pay_off = o;
			pay_len = ip_len;
			cw = 0;
		}
	}
	tot = l2 + 4 * n + cw + pay_len;
	if ((tot < ROCE_ETH_MIN ? ROCE_ETH_MIN : tot) > cap)
		return ROCE_E_NOSPACE;
	memset(buf, 0, l2 + 4 * n + cw);
	outer_eth(s, buf, l2, ROCE_ETHERTYPE_MPLS);
	p = l2;
	for (size_t i = 0; i < n; i++, p += 4)
		roce_put_be32(buf + p, (s->mpls_labels[i] & 0xfffffu) << 12 |
			      (i + 1 == n ? 0x100u : 0u) | (s->ttl ? s->ttl : 64u));
	memcpy(buf + p + cw, inner + pay_off, pay_len);
	if (tot < ROCE_ETH_MIN) {
		memset(buf + tot, 0, ROCE_ETH_MIN - tot);
		tot = ROCE_ETH_MIN;
	}
	*len = tot;
	return ROCE_OK;
}

int roce_build_encap(const struct roce_encap_spec *s, const uint8_t *inner, size_t inner_len,
	uint8_t *buf, size_t cap, size_t *len)
{
	size_t l2 = ROCE_ETH_HLEN + (s->vlan_tagged ? ROCE_VLAN_TAG_LEN : 0u);
	size_t l3hl = s->ip_version == 6 ? ROCE_IPV6_HLEN : ROCE_IPV4_MIN_HLEN;
	size_t th, pay_off = 0, pay_len = inner_len, ip_len, tot, p, h;
	uint16_t proto = 0x6558, et = 0;
	bool udp = s->encap == ROCE_ENCAP_VXLAN || s->encap == ROCE_ENCAP_GENEVE;
	bool seq = s->gre_seq_present || s->encap == ROCE_ENCAP_ERSPAN2 ||
		   s->encap == ROCE_ENCAP_ERSPAN3;
	uint8_t *ip, *t;

	*len = 0;
	if (s->encap == ROCE_ENCAP_MPLS)
		return build_mpls(s, inner, inner_len, buf, cap, len);
	if ((s->ip_version != 4 && s->ip_version != 6) || s->encap <= ROCE_ENCAP_NONE ||
	    s->encap >= ROCE_ENCAP_COUNT ||
	    (s->ip_version == 4 && (!roce_is_v4mapped(s->src) || !roce_is_v4mapped(s->dst))))
		return ROCE_E_INVAL;
	if (s->encap == ROCE_ENCAP_GRE) {
		size_t o = inner_ip(inner, inner_len, &et, &ip_len);

		if (o) {
			proto = et;
			pay_off = o;
			pay_len = ip_len;
		}
	}
	if (udp) {
		th = ROCE_UDP_HLEN + 8 + (s->encap == ROCE_ENCAP_GENEVE ?
					  4u * s->geneve_opt_words : 0u);
		if (s->geneve_opt_words > 63)
			return ROCE_E_INVAL;
	} else {
		th = 4 + (s->gre_csum ? 4u : 0u) + (s->gre_key_present ? 4u : 0u) + (seq ? 4u : 0u);
		if (s->encap == ROCE_ENCAP_ERSPAN2)
			th += 8;
		else if (s->encap == ROCE_ENCAP_ERSPAN3)
			th += 12 + (s->erspan3_subheader ? 8u : 0u);
	}
	tot = l3hl + th + pay_len;
	if (tot > 0xffff + (s->ip_version == 6 ? ROCE_IPV6_HLEN : 0u))
		return ROCE_E_INVAL;
	if (l2 + tot > cap)
		return ROCE_E_NOSPACE;
	memset(buf, 0, l2 + tot - pay_len);

	outer_eth(s, buf, l2, s->ip_version == 6 ? ROCE_ETHERTYPE_IPV6 : ROCE_ETHERTYPE_IPV4);

	/* outer IP */
	ip = buf + l2;
	if (s->ip_version == 4) {
		ip[0] = ROCE_IPV4_VER_IHL;
		ip[ROCE_IPV4_OFF_TOS] = s->tclass;
		roce_put_be16(ip + ROCE_IPV4_OFF_TOTLEN, (uint16_t)tot);
		roce_put_be16(ip + ROCE_IPV4_OFF_FRAG, ROCE_IPV4_DF);
		ip[ROCE_IPV4_OFF_TTL] = s->ttl ? s->ttl : 64;
		ip[ROCE_IPV4_OFF_PROTO] = udp ? ROCE_IPPROTO_UDP : B_IPPROTO_GRE;
		memcpy(ip + ROCE_IPV4_OFF_SRC, s->src + ROCE_V4MAPPED_OFF, 4);
		memcpy(ip + ROCE_IPV4_OFF_DST, s->dst + ROCE_V4MAPPED_OFF, 4);
		roce_put_be16(ip + ROCE_IPV4_OFF_CSUM, roce_ipv4_csum(ip, ROCE_IPV4_MIN_HLEN));
	} else {
		roce_put_be32(ip, roce_ip6_word0(s->tclass, 0));
		roce_put_be16(ip + ROCE_IP6_OFF_PAYLEN, (uint16_t)(tot - ROCE_IPV6_HLEN));
		ip[ROCE_IP6_OFF_NXT] = udp ? ROCE_IPPROTO_UDP : B_IPPROTO_GRE;
		ip[ROCE_IP6_OFF_HOPS] = s->ttl ? s->ttl : 64;
		memcpy(ip + ROCE_IP6_OFF_SRC, s->src, 16);
		memcpy(ip + ROCE_IP6_OFF_DST, s->dst, 16);
	}

	p = l2 + l3hl;
	t = buf + p;
	if (udp) {
		roce_put_be16(t + ROCE_UDP_OFF_SPORT, s->sport);
		roce_put_be16(t + ROCE_UDP_OFF_DPORT, s->encap == ROCE_ENCAP_VXLAN ?
			      ROCE_VXLAN_PORT : ROCE_GENEVE_PORT);
		roce_put_be16(t + ROCE_UDP_OFF_LEN, (uint16_t)(th + pay_len));
		h = ROCE_UDP_HLEN;
		if (s->encap == ROCE_ENCAP_VXLAN) {
			t[h] = 0x08;                                    /* I */
		} else {
			t[h] = (uint8_t)(s->geneve_opt_words & 0x3f);   /* Ver 0, OptLen */
			roce_put_be16(t + h + 2, proto);
			if (s->geneve_opt_words) {
				/* Class 0xffff (experimental) Type 0 R Len(5): words - 1 */
				roce_put_be16(t + h + 8, 0xffff);
				t[h + 11] = (uint8_t)((s->geneve_opt_words - 1) & 0x1f);
			}
		}
		roce_put_be32(t + h + 4, (s->vni & 0xffffffu) << 8);
	} else {
		uint8_t fl = (s->gre_csum ? 0x80 : 0) | (s->gre_key_present ? 0x20 : 0) |
			     (seq ? 0x10 : 0);

		if (s->encap == ROCE_ENCAP_ERSPAN1 || s->encap == ROCE_ENCAP_ERSPAN2)
			proto = 0x88be;
		else if (s->encap == ROCE_ENCAP_ERSPAN3)
			proto = 0x22eb;
		t[0] = fl;
		roce_put_be16(t + 2, proto);
		h = 4 + (s->gre_csum ? 4u : 0u);
		if (s->gre_key_present) {
			roce_put_be32(t + h, s->gre_key);
			h += 4;
		}
		if (seq) {
			roce_put_be32(t + h, s->seq);
			h += 4;
		}
		if (s->encap == ROCE_ENCAP_ERSPAN2 || s->encap == ROCE_ENCAP_ERSPAN3) {
			uint16_t ver = s->encap == ROCE_ENCAP_ERSPAN2 ? 1 : 2;

			roce_put_be16(t + h, (uint16_t)(ver << 12 | (s->erspan_vlan & 0xfff)));
			roce_put_be16(t + h + 2, (uint16_t)((s->truncated ? 1u << 10 : 0u) |
							    (s->session_id & 0x3ffu)));
			if (s->encap == ROCE_ENCAP_ERSPAN3 && s->erspan3_subheader)
				t[h + 11] |= 1;                 /* O */
		}
	}
	memcpy(buf + l2 + tot - pay_len, inner + pay_off, pay_len);
	if (!udp && s->gre_csum)
		roce_put_be16(t + 4, csum_any(t, tot - l3hl));
	*len = l2 + tot;
	return ROCE_OK;
}
