/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * decode_tunnel.h - the outer headers of a tunnel or mirror packet (decode_tunnel.c):
 * where the frame inside starts and how long it is.  Private to libroce;
 * decode.c decodes the inner frame.
 */
#ifndef ROCE_DECODE_TUNNEL_H
#define ROCE_DECODE_TUNNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <roce/pkt.h>

struct roce_tunnel {
	enum roce_encap kind;
	enum roce_encap_note note;  /* NONE: the inner frame below is there to decode */
	int linktype;               /* ROCE_LINKTYPE_ETHERNET or ROCE_LINKTYPE_RAW */
	size_t off;                 /* inner frame's offset in the outer frame */
	size_t caplen, wirelen;     /* inner frame's captured and wire lengths */
	bool truncated;             /* ERSPAN T bit */
	uint16_t session, vlan;     /* ERSPAN II/III */
};

/*
 * The IP header at l3 (ethertype et: IPv4 or IPv6) of a frame that was not
 * RoCE, or the MPLS label stack at l3 (et 0x8847 or 0x8848).  Returns false
 * when it is no encapsulation this decoder knows (IP protocol other than GRE
 * and MPLS, UDP to other ports than 4789 / 6081 / 6635, headers too short to
 * tell); true with *t filled otherwise, t->note saying when there is nothing
 * inside to decode.  Reads only [frame, frame + caplen).
 */
bool roce_tunnel_parse(const uint8_t *frame, size_t caplen, size_t wirelen, size_t l3,
	uint16_t et, struct roce_tunnel *t);

/*
 * decode_mpls.c: the label stack at p and what follows it (<roce/pkt.h>): t's
 * linktype and off, or its note.  t's kind, caplen and wirelen are the caller's.
 */
void roce_mpls_parse(const uint8_t *frame, size_t caplen, size_t p, struct roce_tunnel *t);

#endif /* ROCE_DECODE_TUNNEL_H */
