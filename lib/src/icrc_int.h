/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * icrc_int.h - library-internal ICRC entry for the frame builder (icrc.c).
 */
#ifndef ROCE_ICRC_INT_H
#define ROCE_ICRC_INT_H

#include <stddef.h>
#include <stdint.h>

#include <roce/pkt.h>

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

#endif /* ROCE_ICRC_INT_H */
