/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * icrc.h - RoCE Invariant CRC (IBTA Vol 1 9.8.2, Annex A16/A17).
 *
 * ICRC = IEEE CRC-32 (reflected 0xEDB88320, init/final 0xFFFFFFFF, i.e.
 * gzip's CRC) over
 *     8 x 0xFF | L3 header, variant fields set to 1s | UDP, csum = 0xFFFF (v2)
 *     | BTH, byte 4 = 0xFF | extension headers | payload | pad
 * stored on the wire least-significant byte first.  Masked:
 *   IPv4: TOS (DSCP+ECN), TTL, header checksum;  IPv6: traffic class,
 *   flow label, hop limit;  GRH (v1): TClass, FlowLabel, HopLmt.
 * Ethernet header, VLAN tags, Ethernet padding and FCS are not covered.
 *
 * The CRC runs through Intel ISA-L's crc32_gzip_refl when libroce was built
 * with it (CPU-dispatched PCLMUL code), else through zlib's crc32().
 */
#ifndef ROCE_ICRC_H
#define ROCE_ICRC_H

#include <stddef.h>
#include <stdint.h>

#include <roce/pkt.h>
#include <roce/roce.h>

#ifdef __cplusplus
extern "C" {
#endif

enum roce_crc_provider {
	ROCE_CRC_AUTO = 0,  /* best available: ISA-L if built in, else zlib */
	ROCE_CRC_ZLIB,
	ROCE_CRC_ISAL
};

/* gzip CRC-32 continuation: crc = roce_crc32(crc, p, n), start with 0. */
ROCE_API uint32_t roce_crc32(uint32_t crc, const uint8_t *p, size_t n);

/* Select the CRC engine (process-wide).  ROCE_E_UNSUPPORTED when not built in. */
ROCE_API int roce_crc32_set_provider(enum roce_crc_provider p);
/* "isa-l" or "zlib". */
ROCE_API const char *roce_crc32_provider_name(void);

/*
 * Compute the ICRC of a decoded RoCE frame (pkt from roce_decode, with
 * l3_off/udp_off/bth_off/icrc_off set).  Needs every byte up to icrc_off
 * to be captured: ROCE_E_TRUNC otherwise.  *out is the CRC value (write it
 * with roce_put_le32 to get the wire bytes).
 */
ROCE_API int roce_icrc_compute(const struct roce_pkt *pkt, uint32_t *out) ROCE_NONNULL(1, 2);

/*
 * Verify the ICRC of a frame decoded with verify_icrc off (or not yet
 * verified): when it is RoCE, its ICRC bytes are captured and its length
 * fields agree, sets icrc_computed and icrc_status (OK, or BAD plus
 * ROCE_FIND_BAD_ICRC), exactly as roce_decode() with verify_icrc on would.
 * Otherwise, or when already verified, nothing changes.  Returns icrc_status.
 */
ROCE_API enum roce_icrc_status roce_icrc_verify(struct roce_pkt *pkt) ROCE_NONNULL(1);

/*
 * Take a verdict computed earlier for the same frame bytes, e.g. by another
 * thread running roce_decode() with verify_icrc on ahead of this one, for a
 * frame decoded here with verify_icrc off.  ROCE_ICRC_OK is taken as it is
 * (icrc_computed = icrc_wire; no byte of the frame is read); any other
 * verdict is checked here with roce_icrc_verify(), so that a bad ICRC's
 * computed value, like every other field, is this library's own.  When the
 * verdict was computed from the same bytes the result is exactly that of
 * roce_decode() with verify_icrc on.  Returns icrc_status.
 */
ROCE_API enum roce_icrc_status roce_icrc_take_verdict(struct roce_pkt *pkt,
						      enum roce_icrc_status verdict)
	ROCE_NONNULL(1);

/*
 * The ICRC verdict of one frame without decoding it: the icrc_status that
 * roce_decode(linktype, frame, caplen, wirelen, opts, &pkt) with verify_icrc
 * on would leave in pkt, found from the headers alone (link layer, VLAN tags,
 * GRH or IPv4 / IPv6 and UDP, the length fields and the opcode's header
 * length; no struct roce_pkt filled, no IPv4 header checksum).  Of opts only
 * udp_ports counts (NULL: the defaults).  ROCE_ICRC_OK or ROCE_ICRC_BAD
 * exactly where the decoder would compute the ICRC and come to the same;
 * ROCE_ICRC_UNVERIFIED for every other frame: not RoCE, cut before the
 * ICRC's end, length fields the decoder finds inconsistent (BAD_LENGTH), an
 * IPv4 fragment, a link type roce_decode() does not take.  For a thread that
 * verifies ahead of the one decoding (roce_icrc_take_verdict(),
 * roce_decode_opts.icrc_known_ok).  Every read is within caplen.
 */
ROCE_API enum roce_icrc_status roce_icrc_frame_verdict(int linktype, const uint8_t *frame,
						       size_t caplen, size_t wirelen,
						       const struct roce_decode_opts *opts);

#ifdef __cplusplus
}
#endif

#endif /* ROCE_ICRC_H */
