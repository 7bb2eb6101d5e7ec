/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * icrc_int.h - library-internal ICRC entries: the frame builder's (icrc.c), the
 * verdict steps icrc.c and the decoder (decode.c) share, and the CRC of a span
 * found from the headers (icrc_frame.c).
 */
#ifndef ROCE_ICRC_INT_H
#define ROCE_ICRC_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <roce/buf.h>
#include <roce/pkt.h>

/* Whether roce_icrc_verify() has something to do (see icrc.h). */
static inline bool roce_icrc_pending(const struct roce_pkt *pkt)
{
	return pkt->kind == ROCE_KIND_ROCE && pkt->icrc_status == ROCE_ICRC_UNVERIFIED &&
		pkt->icrc_off != 0 && ROCE_SPAN_OK(pkt->caplen, pkt->icrc_off, ROCE_ICRC_LEN) &&
		!(pkt->findings & ROCE_FIND_BAD_LENGTH);
}

/* An ICRC found OK elsewhere, taken (icrc_wire already read). */
static inline void roce_icrc_take_ok(struct roce_pkt *pkt)
{
	pkt->icrc_computed = pkt->icrc_wire;
	pkt->icrc_status = ROCE_ICRC_OK;
}

/*
 * ICRC of a frame the builder is laying out: l3 points at the GRH / IP
 * header, n bytes run up to the ICRC field, and every variant field in them
 * (IPv4 TOS, TTL, header checksum; IPv6 / GRH traffic class, flow label, hop
 * limit; UDP checksum; BTH byte 4) already holds 1s, as icrc.h lists them.
 * Same value as roce_icrc_compute() over the finished frame.
 */
uint32_t roce_icrc_build_masked(const uint8_t *l3, size_t n);

/*
 * roce_icrc_verify() for the decoder's fast path: pkt is RoCE v2 over IPv4
 * without options (UDP at l3_off + 20, the BTH right after it), its ICRC
 * bytes are captured and its ICRC step has not run (icrc_status UNVERIFIED),
 * so of roce_icrc_verify()'s checks only the length finding remains.  The
 * same result, in one CRC pass for frames of up to ROCE_ICRC_ONE_PASS bytes
 * from the IP header to the ICRC.
 */
enum roce_icrc_status roce_icrc_verify_v4(struct roce_pkt *pkt);

/*
 * Where a frame's ICRC input lies, without a struct roce_pkt: frame[l3_off]
 * starts the GRH (version 1) or the IP header (version 2, ip_version 4 or 6,
 * UDP at udp_off), the BTH is at bth_off and the ICRC at icrc_off; caplen
 * bytes of frame are captured.  (roce_icrc_frame_verdict() fills one from
 * the headers, roce_icrc_compute() from a decoded frame.)
 */
struct roce_icrc_span {
	const uint8_t *frame;
	size_t caplen;
	uint32_t l3_off, udp_off, bth_off, icrc_off;
	uint8_t version, ip_version;
};

/*
 * roce_icrc_compute() of the span: the same checks of the offsets (ROCE_E_INVAL,
 * ROCE_E_TRUNC when the bytes up to icrc_off are not all captured) and the
 * same value.
 */
int roce_icrc_compute_at(const struct roce_icrc_span *s, uint32_t *out);

/*
 * The ICRC of RoCE v2 over IPv4 without options, n (>= 40) bytes from the IP
 * header at l3 up to the ICRC, all captured: roce_icrc_verify_v4()'s pass.
 */
uint32_t roce_icrc_crc_v4(const uint8_t *l3, size_t n);

#endif /* ROCE_ICRC_INT_H */
