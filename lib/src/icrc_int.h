/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * icrc_int.h - library-internal ICRC entry for the frame builder (icrc.c).
 */
#ifndef ROCE_ICRC_INT_H
#define ROCE_ICRC_INT_H

#include <stdint.h>

#include <roce/pkt.h>

/*
 * ICRC of a frame the builder has just laid out (pkt: frame, version,
 * ip_version, l3_off, udp_off, bth_off, icrc_off set and consistent),
 * computed in one pass with the variant fields masked in place and
 * restored before returning.  Same value as roce_icrc_compute().
 */
uint32_t roce_icrc_build_inplace(uint8_t *frame, const struct roce_pkt *pkt);

#endif /* ROCE_ICRC_INT_H */
