/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pkt.h - decode one captured frame: link layer, RoCE v1/v2, BTH and every
 * extension header, ICRC, PFC (802.1Qbb) and 802.3x PAUSE.
 *
 * Zero-copy and allocation-free: roce_decode() fills a caller-owned
 * struct roce_pkt whose pointers and offsets refer to the caller's frame
 * buffer; they are valid as long as that buffer is.  No byte outside
 * [frame, frame + caplen) is ever read, whatever the length fields say.
 *
 * The RoCE extent (BTH .. ICRC) is taken from the IPv4 Total Length, the
 * IPv6 Payload Length (via UDP Length) or the GRH PayLen, never from the end
 * of the captured frame: Ethernet padding and a trailing FCS do not matter.
 *
 *   Ethernet II [802.1Q/802.1ad tags]* | 0x8915 GRH(40)            | BTH ...  (v1)
 *                                      | 0x0800 IPv4 | UDP dport 4791 | BTH (v2)
 *                                      | 0x86DD IPv6 | UDP dport 4791 | BTH (v2)
 *                                      | 0x8808 MAC Control 0x0101 PFC / 0x0001 PAUSE
 */
#ifndef ROCE_PKT_H
#define ROCE_PKT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <roce/opcode.h>
#include <roce/roce.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Link-layer types we accept (values are LINKTYPE_* / DLT_* numbers). */
#define ROCE_LINKTYPE_ETHERNET   1
#define ROCE_LINKTYPE_RAW      101   /* raw IPv4/IPv6 */
#define ROCE_LINKTYPE_LINUX_SLL 113
#define ROCE_LINKTYPE_IPV4     228
#define ROCE_LINKTYPE_IPV6     229
#define ROCE_LINKTYPE_LINUX_SLL2 276
#define ROCE_LINKTYPE_ERF      197   /* Endace ERF records (roce/erf.h): Ethernet/IP ones decoded */
#define ROCE_LINKTYPE_MPLS     219   /* a frame that starts with an MPLS label stack */

/* True when roce_decode() supports this link type. */
ROCE_API bool roce_linktype_supported(int linktype);

#define ROCE_UDP_PORT 4791
#define ROCE_ETHERTYPE_ROCE 0x8915
#define ROCE_ETHERTYPE_MACCTRL 0x8808
#define ROCE_MAX_UDP_PORTS 8
#define ROCE_MAX_VLANS 4
#define ROCE_VXLAN_PORT 4789
#define ROCE_GENEVE_PORT 6081
#define ROCE_MAX_TUNNELS 2          /* nested encapsulations decoded; deeper: not RoCE */
#define ROCE_MPLS_PORT 6635         /* MPLS in UDP (RFC 7510) */
#define ROCE_MAX_MPLS_LABELS 8      /* an MPLS label stack decoded; longer: not RoCE */

/*
 * Encapsulations roce_decode() looks inside (decode_tunnel.c) when the outer
 * frame is IPv4/IPv6 but not RoCE: GRE (RFC 2784/2890, version 0, checksum,
 * key and sequence fields) carrying ERSPAN type I/II (0x88BE), ERSPAN type III
 * (0x22EB), transparent Ethernet bridging (0x6558) or IPv4/IPv6; VXLAN (RFC
 * 7348, UDP 4789); Geneve (RFC 8926, UDP 6081, Ethernet or IP inside).  And
 * an MPLS label stack (RFC 3032; decode_mpls.c) after an Ethernet / SLL header
 * and its tags (EtherType 0x8847, 0x8848), in GRE (0x8847, 0x8848), in UDP
 * (RFC 7510, port 6635) or in IP (RFC 4023, protocol 137): up to
 * ROCE_MAX_MPLS_LABELS labels, then, as Wireshark reads it, by the payload's
 * first nibble IPv4 (4), IPv6 (6) or an Ethernet pseudowire (0, RFC 4448:
 * a control word (RFC 4385) and the frame, or the frame alone when that
 * reading alone gives an EtherType decoded here, or a VLAN tag: decode_mpls.c);
 * a GAL (label 13) at the bottom or
 * any other nibble: not RoCE.  A label's TC and TTL are not looked at (the
 * inner IP header has the ECN).
 *
 *   GRE:      C R K S s Recur(3) | Flags(5) Ver(3) | Protocol(16)
 *             [Checksum(16) Reserved(16)] [Key(32)] [Sequence(32)]
 *   ERSPAN II:  Ver(4)=1 VLAN(12) | COS(3) En(2) T(1) Session(10) | Resv(12) Index(20)
 *   ERSPAN III: Ver(4)=2 VLAN(12) | COS(3) BSO(2) T(1) Session(10) | Timestamp(32)
 *               | SGT(16) P(1) FT(5) HwID(6) D(1) Gra(2) O(1) [platform subheader(64) if O]
 *   VXLAN:    Flags(8, I=0x08) Resv(24) | VNI(24) Resv(8)
 *   Geneve:   Ver(2) OptLen(6) | O C Resv(6) | Protocol(16) | VNI(24) Resv(8) | options
 *   MPLS:     Label(20) TC(3) S(1) TTL(8), S set on the last: [0000 Flags(4) FRG(2)
 *             Length(6) Sequence(16)] (pseudowire control word) then the payload
 */
enum roce_encap {
	ROCE_ENCAP_NONE = 0,
	ROCE_ENCAP_ERSPAN1,         /* GRE 0x88BE without a sequence number: no ERSPAN header */
	ROCE_ENCAP_ERSPAN2,         /* GRE 0x88BE, ERSPAN version 1 header */
	ROCE_ENCAP_ERSPAN3,         /* GRE 0x22EB, ERSPAN version 2 header */
	ROCE_ENCAP_GRE,             /* GRE 0x6558 (Ethernet), 0x0800 / 0x86DD (IP), MPLS */
	ROCE_ENCAP_VXLAN,
	ROCE_ENCAP_GENEVE,
	ROCE_ENCAP_MPLS,            /* a label stack after Ethernet, in UDP 6635 or IP 137 */
	ROCE_ENCAP_COUNT
};

/* Why a recognised encapsulation gave no frame to decode (roce_pkt.encap_note). */
enum roce_encap_note {
	ROCE_ENCAP_NOTE_NONE = 0,
	ROCE_ENCAP_NOTE_TRUNCATED,  /* the tunnel headers are cut by the capture */
	ROCE_ENCAP_NOTE_BAD_LENGTH, /* outer IP / UDP lengths contradict the frame */
	ROCE_ENCAP_NOTE_UNSUPPORTED,/* GRE version / routing, ERSPAN or Geneve version, protocol,
	                             * MPLS payload (GAL, first nibble) */
	ROCE_ENCAP_NOTE_TOO_DEEP,   /* more than ROCE_MAX_TUNNELS nested encapsulations */
	ROCE_ENCAP_NOTE_LABELS      /* more than ROCE_MAX_MPLS_LABELS MPLS labels */
};

/* "erspan1", "erspan2", "erspan3", "gre", "vxlan", "geneve", "mpls"; "none"; NULL if unknown. */
ROCE_API const char *roce_encap_name(enum roce_encap e);
/* Parses those names (not "none"); ROCE_ENCAP_NONE if unknown. */
ROCE_API enum roce_encap roce_encap_from_name(const char *name);

enum roce_kind {
	ROCE_KIND_NONE = 0,   /* not something we analyse */
	ROCE_KIND_ROCE,       /* RoCE v1 or v2; see version */
	ROCE_KIND_PFC,        /* 802.1Qbb PFC (MAC Control opcode 0x0101) */
	ROCE_KIND_PAUSE,      /* 802.3x PAUSE (MAC Control opcode 0x0001) */
	ROCE_KIND_MACCTRL     /* other MAC Control opcode */
};

enum roce_icrc_status {
	ROCE_ICRC_UNVERIFIED = 0,  /* cut by snaplen, not computed, or not enough bytes */
	ROCE_ICRC_OK,
	ROCE_ICRC_BAD
};

/*
 * Findings: "decoded but suspicious" (never an error return).  Stable names
 * come from roce_finding_name(); each maps 1:1 to an analyzer counter, an
 * anomaly type and a Wireshark expert field.
 */
#define ROCE_FIND_TRUNCATED      0x0001u /* captured bytes end before the headers the frame needs */
#define ROCE_FIND_BAD_LENGTH     0x0002u /* IP/UDP/GRH length vs captured/opcode headers inconsistent */
#define ROCE_FIND_UNKNOWN_OPCODE 0x0004u /* reserved / unknown BTH opcode */
#define ROCE_FIND_BAD_TVER       0x0008u /* BTH TVer != 0 */
#define ROCE_FIND_BAD_PAD        0x0010u /* pad count impossible for opcode / payload */
#define ROCE_FIND_BAD_IP_CSUM    0x0020u /* IPv4 header checksum wrong */
#define ROCE_FIND_BAD_PFC        0x0040u /* malformed PFC / PAUSE frame */
#define ROCE_FIND_BAD_CNP        0x0080u /* CNP with BECN=0, PSN != 0 or wrong length */
#define ROCE_FIND_BAD_ICRC       0x0100u /* ICRC mismatch */
#define ROCE_FIND_IP_FRAGMENT    0x0200u /* RoCE v2 in a fragmented IPv4 datagram */
#define ROCE_FIND_COUNT          10

/* Findings that make a frame "malformed" (bad ICRC is counted apart). */
#define ROCE_FIND_MALFORMED_MASK (ROCE_FIND_TRUNCATED | ROCE_FIND_BAD_LENGTH | \
	ROCE_FIND_UNKNOWN_OPCODE | ROCE_FIND_BAD_TVER | ROCE_FIND_BAD_PAD | \
	ROCE_FIND_BAD_IP_CSUM | ROCE_FIND_BAD_PFC | ROCE_FIND_BAD_CNP | ROCE_FIND_IP_FRAGMENT)

/*
 * Findings that make a RoCE frame's fields untrustworthy: the receiving
 * channel adapter drops such a frame, and so does the analyzer's sequencing
 * (it is counted and reported, but moves no PSN / ACK / NAK / RTT / MSN /
 * READ / CNP / PMTU / pairing state and never creates a stream).  A bad
 * ICRC (any header byte may be damaged, PSN and QPN included), lengths that
 * contradict each other or the opcode, headers cut by the capture, a
 * reserved opcode, a TVer other than 0, a wrong IPv4 header checksum (the IP
 * layer drops it before the transport sees it), an IP fragment.  bad_pad and
 * bad_cnp (fields as the sender wrote them, when the ICRC is good) and
 * bad_pfc (not RoCE) are not in the mask.
 */
#define ROCE_FIND_UNTRUSTED_MASK (ROCE_FIND_BAD_ICRC | ROCE_FIND_TRUNCATED | \
	ROCE_FIND_BAD_LENGTH | ROCE_FIND_UNKNOWN_OPCODE | ROCE_FIND_BAD_TVER | \
	ROCE_FIND_BAD_IP_CSUM | ROCE_FIND_IP_FRAGMENT)

/* "truncated", "bad_length", ... for one finding bit; NULL if not a single known bit. */
ROCE_API const char *roce_finding_name(uint32_t bit);
/* One-line human text for one finding bit. */
ROCE_API const char *roce_finding_text(uint32_t bit);

/* Decoded BTH (IBTA 9.2). */
struct roce_bth {
	uint8_t opcode;
	uint8_t se, migreq, padcnt, tver;
	uint16_t pkey;
	uint8_t fecn, becn, resv6;
	uint32_t dqpn;        /* 24 bits */
	uint8_t ackreq;
	uint8_t resv7;
	uint32_t psn;         /* 24 bits */
};

struct roce_reth { uint64_t va; uint32_t rkey; uint32_t dma_len; };
struct roce_aeth { uint8_t syndrome; uint32_t msn; };
struct roce_deth { uint32_t qkey; uint32_t src_qp; };
struct roce_atomiceth { uint64_t va; uint32_t rkey; uint64_t swap_add; uint64_t compare; };

/* AETH syndrome classes (bits 6:5). */
enum roce_aeth_type {
	ROCE_AETH_ACK = 0,
	ROCE_AETH_RNR_NAK = 1,
	ROCE_AETH_RESERVED = 2,
	ROCE_AETH_NAK = 3
};

/* NAK codes (syndrome 0x60 + code). */
enum roce_nak_code {
	ROCE_NAK_PSN_SEQ_ERR = 0,
	ROCE_NAK_INVALID_REQ = 1,
	ROCE_NAK_REMOTE_ACCESS = 2,
	ROCE_NAK_REMOTE_OP = 3,
	ROCE_NAK_INVALID_RD_REQ = 4
};

static inline enum roce_aeth_type roce_aeth_type(uint8_t syndrome)
{
	return (enum roce_aeth_type)((syndrome >> 5) & 3);
}

/* "ACK", "RNR NAK", "NAK PSN sequence error", ... for a syndrome byte. */
ROCE_API const char *roce_aeth_syndrome_text(uint8_t syndrome);
/* RNR timer code (syndrome bits 4:0) to microseconds (IBTA Table 45). */
ROCE_API uint32_t roce_rnr_timer_us(unsigned code);
/* Credit count for an ACK credit code (0..30); -1 for 31 ("invalid"). */
ROCE_API int roce_aeth_credits(unsigned code);

/*
 * One decoded frame, filled whole by roce_decode() (the caller's struct;
 * the views point into the caller's buffer).  New fields are appended at
 * the end (the encapsulation fields were, in December 2026): while libroce
 * is 0.x (soname libroce.so.0) its size may grow between releases, so a
 * program that links the shared library is rebuilt with the header of the
 * library it runs with; the static library (the tools and the plugin) has
 * no such concern.
 */
struct roce_pkt {
	/* ---- input ---- */
	const uint8_t *frame;
	size_t caplen;              /* bytes present in frame */
	size_t wirelen;             /* bytes on the wire */

	/* ---- classification ---- */
	enum roce_kind kind;
	uint32_t findings;          /* ROCE_FIND_* */
	uint8_t version;            /* RoCE 1 or 2; 0 when not RoCE */
	uint8_t ip_version;         /* 4, 6; 0 for RoCE v1 (GRH) */

	/* ---- link layer ---- */
	const uint8_t *dst_mac;     /* NULL for cooked/raw captures */
	const uint8_t *src_mac;     /* NULL when the link layer has none */
	uint8_t vlan_count;
	uint16_t vlan_id;           /* outermost tag's VID */
	uint8_t pcp;                /* outermost tag's 802.1p priority */
	uint16_t ethertype;         /* after tags */

	/* ---- L3 (RoCE) ---- */
	uint8_t src[16], dst[16];   /* IPv6 / GID; IPv4 as ::ffff:a.b.c.d */
	uint8_t tclass;             /* IPv4 TOS / IPv6 traffic class / GRH TClass */
	uint8_t ecn;                /* tclass & 3; 3 = CE */
	uint8_t ttl;                /* TTL / hop limit */
	uint32_t flow_label;
	uint16_t sport, dport;      /* v2 only */
	uint16_t ip_id;

	/* offsets into frame; 0 means absent, except l3_off, which is 0 for raw-IP
	 * link types (check ip_version / version instead) */
	uint32_t l3_off;            /* IPv4/IPv6/GRH header; for MAC Control frames
	                             * (kind PFC, PAUSE, MACCTRL) the 2-byte MAC
	                             * Control opcode after the ethertype 0x8808
	                             * (and any VLAN tags): PFC enable vector at
	                             * l3_off + 2, quanta at l3_off + 4 + 2 * prio */
	uint32_t l3_hdr_len;        /* IPv4 IHL*4, 40 for IPv6/GRH */
	uint32_t udp_off;           /* v2 only */
	uint32_t bth_off;
	uint32_t ext_off;           /* first extension header (bth_off + 12) */
	uint32_t payload_off;
	uint32_t payload_len;       /* data bytes, pad and ICRC excluded */
	uint32_t icrc_off;          /* offset of the 4 ICRC bytes */
	uint32_t roce_end;          /* end of the ICRC per the length fields */

	/* ---- transport ---- */
	struct roce_bth bth;
	const struct roce_opcode_info *op;  /* never NULL once the BTH is decoded */
	uint32_t hdrs;              /* ROCE_H_* decoded in this frame */
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

	/* ---- ICRC ---- */
	enum roce_icrc_status icrc_status;
	uint32_t icrc_wire;         /* value as stored (LSB first on the wire) */
	uint32_t icrc_computed;     /* valid unless UNVERIFIED */

	/* ---- MAC Control (PFC / PAUSE) ---- */
	uint16_t mac_opcode;
	uint8_t pfc_enable;         /* priority-enable vector e[7:0] */
	uint8_t pfc_reserved;       /* high octet of the enable vector (should be 0) */
	uint16_t pfc_quanta[8];     /* PAUSE: quanta in [0] */

	/*
	 * ---- encapsulation (decode_tunnel.c) ----
	 * encap != NONE: the caller's frame was a tunnel or mirror packet and
	 * frame, caplen, wirelen and every field and offset above describe the
	 * frame inside it (Ethernet, or IP for GRE / Geneve with IP inside: then
	 * no MACs and l3_off 0), starting encap_off bytes into the caller's
	 * buffer; the outer headers (their ECN included) are not looked at
	 * further.  With a note (kind NONE), frame .. wirelen are the outer
	 * frame's.  The fast path leaves these as zero (it only takes plain
	 * frames): it writes encap; the rest is valid when encap is set.
	 */
	uint8_t encap;              /* enum roce_encap of the outermost tunnel */
	uint8_t encap_depth;        /* nested tunnels decoded (1 or 2) */
	uint8_t encap_note;         /* enum roce_encap_note: why nothing inside was decoded */
	bool encap_truncated;       /* ERSPAN T bit: the mirror cut the frame (ICRC unverifiable) */
	uint32_t encap_off;         /* inner frame's offset in the caller's buffer */
	uint16_t erspan_session;    /* ERSPAN II/III session ID (10 bits), outermost ERSPAN */
	uint16_t erspan_vlan;       /* ERSPAN II/III VLAN field (12 bits) */
};

struct roce_decode_opts {
	uint16_t udp_ports[ROCE_MAX_UDP_PORTS];  /* RoCE v2 destination ports; 0 ends */
	bool verify_icrc;           /* compute the ICRC (default true) */
	bool verify_ip_csum;        /* check the IPv4 header checksum (default true) */
	/*
	 * For a caller that only hands the result to roce_analyzer_process()
	 * (default false): the common frame (untagged Ethernet, IPv4 without
	 * options, RoCE v2) then comes back with the fields the analysis and the
	 * ICRC steps read (frame, caplen, wirelen, kind, findings, version,
	 * ip_version, src, dst, ecn, l3_off, udp_off, bth_off, ext_off, payload_len,
	 * icrc_*, bth but for se, migreq, fecn, resv6 and resv7, op, hdrs and the
	 * extension headers hdrs names) and the others left as they were; every
	 * other frame is decoded in full.
	 */
	bool analysis_only;
	/*
	 * With verify_icrc off (default false): this frame's ICRC was found
	 * ROCE_ICRC_OK over the same bytes elsewhere (another thread running
	 * roce_decode() with verify_icrc on ahead of this one).  A frame whose
	 * ICRC verify_icrc would check comes back with icrc_computed = icrc_wire
	 * and ROCE_ICRC_OK, as with verify_icrc on, and no byte read for it: the
	 * same as roce_decode() then roce_icrc_take_verdict(ROCE_ICRC_OK),
	 * without the second pass over the result.
	 */
	bool icrc_known_ok;
};

/* Defaults: port 4791, ICRC and IPv4 checksum verification on. */
ROCE_API void roce_decode_opts_init(struct roce_decode_opts *o);

/*
 * Decode one frame.  opts may be NULL (defaults).
 * Returns:
 *   ROCE_OK          recognised (kind != NONE); findings may still be set
 *   ROCE_E_TRUNC     recognised, but cut before the BTH/headers the frame
 *                    needs; out->kind is set, ROCE_FIND_TRUNCATED is set,
 *                    fields decoded before the cut are valid
 *   ROCE_E_MALFORMED recognised, length fields inconsistent (ROCE_FIND_BAD_LENGTH)
 *   ROCE_E_NOT_ROCE  not RoCE/PFC/PAUSE (out->kind == NONE)
 *   ROCE_E_LINKTYPE  unsupported link type
 *   ROCE_E_INVAL     NULL frame with caplen > 0 or NULL out
 */
ROCE_API int roce_decode(int linktype, const uint8_t *frame, size_t caplen, size_t wirelen,
	const struct roce_decode_opts *opts, struct roce_pkt *out);

/* Address as text: dotted IPv4 for ::ffff:a.b.c.d, else compressed IPv6. */
ROCE_API void roce_addr_str(const uint8_t addr[16], char *buf, size_t len);
/* "aa:bb:cc:dd:ee:ff". */
ROCE_API void roce_mac_str(const uint8_t mac[6], char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* ROCE_PKT_H */
