/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rewrite.h - edit fields of a captured frame and repair what the edit breaks
 * (IPv4 header checksum, UDP checksum when one is present, RoCE ICRC).
 *
 * Used by roce-replay for switch tests: tcprewrite cannot recompute a RoCE
 * ICRC, so a frame it rewrites is dropped by every RoCE NIC.  Fields:
 *
 *   Ethernet  dst/src MAC (IEEE 802.3 clause 3)
 *   802.1Q    set VID/PCP of the outermost tag, push a tag on untagged
 *             frames, or strip the outermost tag (IEEE 802.1Q 9.6)
 *   IPv4/IPv6/GRH  DSCP (6 bits) and ECN (2 bits) of TOS / Traffic Class,
 *             source/destination address by prefix maps (CIDR, IPv4 or IPv6;
 *             RoCE v1 GIDs are rewritten like IPv6 addresses)
 *   UDP       source port (RoCE v2)
 *   BTH       destination QP (map or all), PSN + offset (24-bit wrap)
 *             (IBTA Vol 1 9.2, Annex A16/A17)
 *
 * L3 and transport edits apply to RoCE frames only (what roce_decode()
 * recognises); MAC and VLAN edits apply to every Ethernet frame.  After the
 * edits the IPv4 header checksum is recomputed, a non-zero UDP checksum is
 * recomputed when the whole datagram is captured, and the ICRC is recomputed
 * with the same code the decoder uses.  A frame whose ICRC was wrong before
 * keeps exactly the same error (new ICRC XOR old error), so replayed fault
 * captures stay faulty.  A frame whose ICRC bytes were not captured keeps
 * them as they are (result flag ROCE_RW_R_ICRC_UNVERIFIED).
 *
 * Bounded: every write lies inside [frame, frame + cap); a VLAN push needs
 * 4 spare bytes of cap.  No allocation.
 */
#ifndef ROCE_REWRITE_H
#define ROCE_REWRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <roce/roce.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ROCE_RW_MAX_MAPS 16

/* Which addresses an IP map applies to. */
#define ROCE_RW_MAP_SRC 1u
#define ROCE_RW_MAP_DST 2u

/*
 * Prefix map: an address whose first plen bits (of the 128-bit form, IPv4
 * as ::ffff:a.b.c.d, so an IPv4 /24 has plen 96 + 24) equal from's gets
 * those bits from to; the host bits stay.  plen 128 maps one address.
 */
struct roce_rw_ipmap {
	uint8_t from[16];
	uint8_t to[16];
	uint8_t plen;       /* 0..128 */
	uint8_t which;      /* ROCE_RW_MAP_SRC | ROCE_RW_MAP_DST */
};

/* Destination QP map; from ROCE_RW_QP_ANY matches every QP. */
#define ROCE_RW_QP_ANY 0xffffffffu
struct roce_rw_qpmap {
	uint32_t from;
	uint32_t to;        /* 24 bits */
};

enum roce_rw_vlan {
	ROCE_RW_VLAN_KEEP = 0,
	ROCE_RW_VLAN_SET,    /* outermost tag gets vlan_id; untagged frames get a tag */
	ROCE_RW_VLAN_STRIP   /* outermost tag removed (untagged frames unchanged) */
};

struct roce_rewrite {
	bool set_dst_mac, set_src_mac;
	uint8_t dst_mac[6], src_mac[6];
	enum roce_rw_vlan vlan;
	uint16_t vlan_id;       /* 0..4095 for ROCE_RW_VLAN_SET */
	int vlan_pcp;           /* -1 keep; 0..7: outermost tag's PCP (an untagged
	                         * frame gets a priority tag, VID 0, unless
	                         * ROCE_RW_VLAN_SET gives a VID) */
	int dscp;               /* -1 keep, 0..63 */
	int ecn;                /* -1 keep, 0..3 */
	int sport;              /* -1 keep, 0..65535 (RoCE v2 UDP source port) */
	uint32_t psn_offset;    /* added to every BTH PSN (mod 2^24) */
	unsigned n_ipmaps;
	struct roce_rw_ipmap ipmaps[ROCE_RW_MAX_MAPS];   /* first match wins */
	unsigned n_qpmaps;
	struct roce_rw_qpmap qpmaps[ROCE_RW_MAX_MAPS];   /* first match wins */
	uint16_t udp_ports[8];  /* RoCE v2 ports for the decoder; 0 ends; all 0 -> 4791 */
};

/* What roce_rewrite_frame() did to a frame. */
#define ROCE_RW_R_L2             0x01u  /* MAC or VLAN changed */
#define ROCE_RW_R_L3             0x02u  /* some RoCE header field changed */
#define ROCE_RW_R_ICRC           0x04u  /* ICRC recomputed */
#define ROCE_RW_R_ICRC_UNVERIFIED 0x08u /* RoCE, ICRC not captured: left as is */
#define ROCE_RW_R_ICRC_WAS_BAD   0x10u  /* the error of a bad ICRC was carried over */
#define ROCE_RW_R_NOT_ROCE       0x20u  /* not RoCE: only L2 edits applied */

/* Fill with "change nothing". */
ROCE_API void roce_rewrite_init(struct roce_rewrite *rw);

/* True when rw changes something (false after roce_rewrite_init()). */
ROCE_API bool roce_rewrite_active(const struct roce_rewrite *rw);

/*
 * Rewrite one Ethernet frame (LINKTYPE_ETHERNET) in place.  *len is the
 * frame's length in the buffer and is updated (+4 for a pushed tag, -4 for a
 * stripped one; a stripped frame that falls under 60 bytes is padded with
 * zeros back to 60).  cap is the buffer's size.  *result (may be NULL) gets
 * ROCE_RW_R_* bits.
 * Returns ROCE_OK, ROCE_E_NOSPACE (no room for a tag; frame unchanged),
 * ROCE_E_LINKTYPE (linktype is not Ethernet; unchanged) or ROCE_E_INVAL.
 * A frame too short for its Ethernet header is returned unchanged, ROCE_OK.
 */
ROCE_API int roce_rewrite_frame(const struct roce_rewrite *rw, int linktype, uint8_t *frame,
	size_t *len, size_t cap, uint32_t *result);

/*
 * Parse "FROM[/LEN]:TO" (IPv4) or "[FROM][/LEN]:[TO]" / "[FROM/LEN]:[TO]"
 * (IPv6 in brackets) into a map applying to `which`.  TO keeps FROM's
 * prefix length.  Returns ROCE_OK or ROCE_E_INVAL (mixed families, bad
 * address, LEN out of range).
 */
ROCE_API int roce_rewrite_parse_ipmap(const char *s, unsigned which, struct roce_rw_ipmap *out)
	ROCE_NONNULL(1, 3);

#ifdef __cplusplus
}
#endif

#endif /* ROCE_REWRITE_H */
