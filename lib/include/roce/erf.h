/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * erf.h - the record header of Endace's Extensible Record Format (ERF), as
 * carried in pcap/pcapng records of link type LINKTYPE_ERF (197), the format
 * DAG capture cards write.  specification: Endace "ERF types" reference
 * (EDM11-01), as implemented by libpcap and Wireshark's erf dissector.
 *
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |       timestamp: 64-bit little-endian, seconds << 32 |        |
 *  +        binary fraction of a second (2^-32 s)                  +
 *  |                                                               |
 *  +-+-------------+---------------+-------------------------------+
 *  |X|    type     |     flags     |     rlen (record length, BE)  |
 *  +-+-------------+---------------+-------------------------------+
 *  |  lctr (loss counter) or color |  wlen (wire length, BE)       |
 *  +-------------------------------+-------------------------------+
 *  |  extension headers, 8 bytes each, while X / the previous one's |
 *  |  bit 7 of byte 0 is set                                        |
 *  +---------------------------------------------------------------+
 *  |  Ethernet types: offset(1) pad(1), then the Ethernet frame     |
 *  +---------------------------------------------------------------+
 *
 * Ethernet records (ERF_TYPE_ETH 2 and its colour variants 10, 16, 20) and
 * raw IPv4/IPv6 records (22, 23) carry frames roce_decode() understands;
 * everything else (native InfiniBand 21/25, PoS, ATM, padding 48, ...) is
 * not RoCE and decodes as ROCE_E_NOT_ROCE.  For the colour variants the
 * 16-bit field after rlen is a colour, not a loss counter.
 */
#ifndef ROCE_ERF_H
#define ROCE_ERF_H

#include <stddef.h>
#include <stdint.h>

#include <roce/roce.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ROCE_ERF_HLEN 16u

#define ROCE_ERF_TYPE_ETH            2
#define ROCE_ERF_TYPE_COLOR_ETH      10
#define ROCE_ERF_TYPE_DSM_COLOR_ETH  16
#define ROCE_ERF_TYPE_COLOR_HASH_ETH 20
#define ROCE_ERF_TYPE_INFINIBAND     21
#define ROCE_ERF_TYPE_IPV4           22
#define ROCE_ERF_TYPE_IPV6           23
#define ROCE_ERF_TYPE_PAD            48

struct roce_erf {
	uint64_t ts_ns;         /* the record's timestamp, ns since the epoch (rounded) */
	uint8_t type;           /* record type, extension bit removed */
	uint8_t flags;          /* bits 0-1 interface, 3 truncated, 4 rx error, 5 ds error */
	uint16_t rlen;          /* record length, header included */
	uint16_t wlen;          /* length on the wire */
	uint16_t lctr;          /* records lost before this one; 0 for colour types */
	uint16_t color;         /* colour types: the field's value; 0 otherwise */
	uint8_t n_ext;          /* extension headers */
	uint32_t hdr_len;       /* bytes before the link-layer frame (16 + 8 * n_ext [+ 2]) */
	int inner_linktype;     /* LINKTYPE_* of the frame inside, or -1 (not RoCE-capable) */
	uint32_t inner_caplen;  /* captured bytes of that frame (within caplen and rlen) */
	uint32_t inner_wirelen; /* its length on the wire (>= inner_caplen) */
};

/*
 * Parse the ERF header of one record (caplen bytes at rec).  Returns ROCE_OK,
 * ROCE_E_TRUNC (fewer bytes than the header and its extension headers), or
 * ROCE_E_MALFORMED (rlen shorter than the headers); out is filled as far as
 * the header was read.  Reads nothing outside [rec, rec + caplen).
 */
ROCE_API int roce_erf_parse(const uint8_t *rec, size_t caplen, struct roce_erf *out);

#ifdef __cplusplus
}
#endif

#endif /* ROCE_ERF_H */
