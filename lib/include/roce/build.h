/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * build.h - frame builder, the decoder's inverse.
 *
 * roce_build() lays out Ethernet [+ 802.1Q/802.1ad tags] + GRH (v1) or
 * IPv4/IPv6 + UDP (v2) + BTH + the extension headers the opcode table says
 * the opcode carries + payload + pad + ICRC, computing lengths, the IPv4
 * header checksum, the pad count and the ICRC with the same code the
 * decoder uses.  Short frames are padded to the 60-byte Ethernet minimum
 * (no FCS is written).  Used by roce-gen, the tests and the sample
 * capture generator.
 */
#ifndef ROCE_BUILD_H
#define ROCE_BUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <roce/pkt.h>
#include <roce/roce.h>

#ifdef __cplusplus
extern "C" {
#endif

struct roce_frame_spec {
	uint8_t version;            /* 1 (GRH, ethertype 0x8915) or 2 (UDP) */
	uint8_t ip_version;         /* v2: 4 or 6 */
	uint8_t dst_mac[6], src_mac[6];
	uint8_t vlan_count;         /* 0..2; tag i uses vlan_tpid[i] (0 -> 0x8100) */
	uint16_t vlan_tpid[2];
	uint16_t vlan_id[2];
	uint8_t vlan_pcp[2];
	uint8_t src[16], dst[16];   /* ::ffff:a.b.c.d for IPv4 (roce_addr_v4) */
	uint8_t tclass;             /* TOS / traffic class incl. ECN bits */
	uint8_t ttl;                /* 0 -> 64 */
	uint32_t flow_label;
	uint16_t ip_id;
	bool ip_df;
	uint16_t sport;             /* 0 -> 0xC000 */
	uint16_t dport;             /* 0 -> 4791 */
	struct roce_bth bth;        /* padcnt is computed; tver normally 0 */
	bool keep_padcnt;           /* use bth.padcnt as given (fault injection) */
	/* extension header contents (used when the opcode has the header) */
	uint32_t rdeth_eec;
	struct roce_deth deth;
	uint32_t xrc_srq;
	uint32_t feth;
	struct roce_reth reth;
	struct roce_atomiceth atomic;
	struct roce_aeth aeth;
	uint64_t atomic_ack;
	uint32_t immdt;
	uint32_t ieth_rkey;
	const uint8_t *payload;     /* NULL -> payload_len zero bytes */
	uint32_t payload_len;
	bool bad_icrc;              /* flip the ICRC (fault injection) */
	bool no_min_pad;            /* do not pad to 60 bytes */
};

/* Fill a spec with sane defaults (v2/IPv4, RC_SEND_ONLY, P_Key 0xFFFF). */
ROCE_API void roce_frame_spec_init(struct roce_frame_spec *s);

/* Store an IPv4 address (host order) as ::ffff:a.b.c.d. */
ROCE_API void roce_addr_v4(uint8_t out[16], uint32_t ipv4);

/* Bytes roce_build() will write for this spec. */
ROCE_API size_t roce_build_len(const struct roce_frame_spec *s);

/* Offset in the frame roce_build() writes for this spec of the first payload byte (after
 * Ethernet, VLAN tags, GRH or IP/UDP, BTH and the opcode's extension headers); 0 when
 * the spec is invalid (roce_build() refuses it). */
ROCE_API size_t roce_build_payload_off(const struct roce_frame_spec *s);

/* Build a RoCE frame into buf; *len gets the frame length. */
ROCE_API int roce_build(const struct roce_frame_spec *s, uint8_t *buf, size_t cap, size_t *len)
	ROCE_NONNULL(1, 2, 4);

/* 802.1Qbb PFC frame: priorities in enable get quanta[i]; 60 bytes. */
ROCE_API int roce_build_pfc(const uint8_t src_mac[6], uint8_t enable, const uint16_t quanta[8],
	uint8_t *buf, size_t cap, size_t *len) ROCE_NONNULL(1, 3, 4, 6);

/* 802.3x PAUSE frame; 60 bytes. */
ROCE_API int roce_build_pause(const uint8_t src_mac[6], uint16_t quanta,
	uint8_t *buf, size_t cap, size_t *len) ROCE_NONNULL(1, 3, 5);

/*
 * Tunnel and mirror encapsulations (build_tunnel.c, the inverse of decode_tunnel.c; header
 * layouts in <roce/pkt.h>): an outer Ethernet [802.1Q] + IPv4/IPv6 header around a frame,
 * then GRE + ERSPAN I/II/III, GRE (an IP frame's IP packet, protocol 0x0800 / 0x86DD,
 * its Ethernet header dropped; any other frame whole, 0x6558), VXLAN or Geneve (UDP,
 * Ethernet inside).  The outer UDP checksum is 0, the outer IPv4 checksum computed.
 * MPLS: an outer Ethernet [802.1Q] header (EtherType 0x8847, no outer IP) and
 * a label stack (TC 0, TTL ttl), then an IP frame's IP packet (its Ethernet header
 * dropped) or, for any other frame and with mpls_pw every frame, an Ethernet
 * pseudowire: a control word of zeros (RFC 4385) and the frame whole; padded to
 * 60 bytes.
 */
struct roce_encap_spec {
	enum roce_encap encap;
	uint8_t ip_version;         /* outer IP: 4 or 6 */
	uint8_t dst_mac[6], src_mac[6];
	bool vlan_tagged;           /* an outer 802.1Q tag with vlan_id */
	uint16_t vlan_id;
	uint8_t src[16], dst[16];   /* outer addresses, ::ffff:a.b.c.d for IPv4 */
	uint8_t tclass;             /* outer TOS / traffic class (its ECN is not the RoCE one) */
	uint8_t ttl;
	uint16_t sport;             /* VXLAN / Geneve UDP source port */
	uint32_t vni;               /* VXLAN / Geneve, 24 bits */
	bool gre_csum;              /* GRE checksum field present (computed) */
	bool gre_key_present;
	uint32_t gre_key;
	bool gre_seq_present;       /* GRE sequence number (ERSPAN II/III: always) */
	uint32_t seq;
	uint16_t session_id;        /* ERSPAN II/III, 10 bits */
	uint16_t erspan_vlan;       /* ERSPAN II/III VLAN field, 12 bits */
	bool truncated;             /* ERSPAN II/III T bit: the frame was cut by the mirror */
	bool erspan3_subheader;     /* ERSPAN III O bit: an 8-byte platform subheader */
	uint8_t geneve_opt_words;   /* Geneve: one option of this many 4-byte words (0: none) */
	uint8_t mpls_count;         /* MPLS: labels, 1..ROCE_MAX_MPLS_LABELS */
	uint32_t mpls_labels[ROCE_MAX_MPLS_LABELS]; /* MPLS: outermost first, 20 bits each */
	bool mpls_pw;               /* MPLS: IP frames too as a pseudowire (control word) */
};

/*
 * Defaults for encapsulation e: outer 02:00:00:00:ee:01 -> 02:00:00:00:ee:02, IPv4
 * 192.0.2.1 -> 192.0.2.2 (TEST-NET-1), TTL 64, TOS 0, UDP source port 49152,
 * VNI 100, ERSPAN session 1, no GRE key or checksum (ERSPAN II/III: sequence 0),
 * one MPLS label, 100.
 */
ROCE_API void roce_encap_spec_init(struct roce_encap_spec *s, enum roce_encap e);

/* Wrap the frame inner (inner_len bytes, Ethernet) in s's encapsulation into buf. */
ROCE_API int roce_build_encap(const struct roce_encap_spec *s, const uint8_t *inner,
	size_t inner_len, uint8_t *buf, size_t cap, size_t *len) ROCE_NONNULL(1, 2, 4, 6);

#ifdef __cplusplus
}
#endif

#endif /* ROCE_BUILD_H */
