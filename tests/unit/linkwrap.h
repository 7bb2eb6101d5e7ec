/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * linkwrap.h - test helpers for the tests that sweep every prefix of a frame
 * on every link type (test_sweep, test_icrc_frame): a frame of each opcode
 * built in a few variants, and an Ethernet frame handed to a callback as it
 * is and re-framed for the other link types roce_decode() takes (Linux SLL
 * and SLL2, ERF with an extension header and pad, RAW, IPv4 / IPv6).
 */
#ifndef ROCE_TEST_LINKWRAP_H
#define ROCE_TEST_LINKWRAP_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <roce/buf.h>
#include <roce/build.h>
#include <roce/opcode.h>
#include <roce/pkt.h>

/*
 * A frame of opcode op (0x15, which has no name, too) in variant v: 0 RoCE v1,
 * 1 v2 IPv4 with one tag (VLAN 7), 2 v2 IPv6, 3 v2 IPv4 untagged; BECN set; a
 * payload of 44 bytes (45 on a LAST or ONLY opcode) from payload where the
 * opcode carries one.  roce_build()'s status.
 */
static inline int build_opcode_frame(unsigned op, unsigned v, const uint8_t payload[45],
				     uint8_t *buf, size_t size, size_t *len)
{
	struct roce_frame_spec s;

	roce_frame_spec_init(&s);
	s.version = v == 0 ? 1 : 2;
	s.ip_version = v == 2 ? 6 : 4;
	s.vlan_count = v == 1;
	s.vlan_id[0] = 7;
	s.bth.opcode = (uint8_t)op;
	s.bth.becn = 1;
	if (roce_opcodes[op].hdrs & ROCE_H_PAYLOAD || op == 0x15) {
		s.payload = payload;
		s.payload_len = (roce_opcodes[op].flags & ROCE_F_LAST) ? 45 : 44;
	}
	return roce_build(&s, buf, size, len);
}

typedef void (*link_sweep_fn)(int linktype, const uint8_t *f, size_t n, const char *what);

/* f (an Ethernet frame of n bytes) given to sweep as it is and re-framed for the other
 * link types. */
static inline void sweep_links(link_sweep_fn sweep, const uint8_t *f, size_t n, const char *what)
{
	uint8_t g[2048];
	size_t l3 = 14;
	uint16_t et = roce_get_be16(f + 12);

	sweep(ROCE_LINKTYPE_ETHERNET, f, n, what);
	while ((et == 0x8100 || et == 0x88a8) && l3 + 4 <= n) {
		et = roce_get_be16(f + l3 + 2);
		l3 += 4;
	}
	if (n - l3 + 20 > sizeof(g))
		return;
	/* SLL */
	memset(g, 0, 16);
	roce_put_be16(g + 4, 6);
	memcpy(g + 6, f + 6, 6);
	roce_put_be16(g + 14, et);
	memcpy(g + 16, f + l3, n - l3);
	sweep(ROCE_LINKTYPE_LINUX_SLL, g, n - l3 + 16, what);
	/* SLL2 */
	memset(g, 0, 20);
	roce_put_be16(g, et);
	g[11] = 6;
	memcpy(g + 12, f + 6, 6);
	memcpy(g + 20, f + l3, n - l3);
	sweep(ROCE_LINKTYPE_LINUX_SLL2, g, n - l3 + 20, what);
	/* ERF (type 2 ETH, one extension header, 2 bytes of pad) */
	if (n + 26 + 8 <= sizeof(g)) {
		size_t rl = 26 + n;

		memset(g, 0, 26);
		g[4] = 1;               /* 1 s */
		g[8] = 0x80 | 2;
		roce_put_be16(g + 10, (uint16_t)(rl + (-rl & 7)));
		roce_put_be16(g + 14, (uint16_t)n);
		g[16] = 3;              /* extension header, the last one */
		memcpy(g + 26, f, n);
		memset(g + rl, 0, -rl & 7);
		sweep(ROCE_LINKTYPE_ERF, g, rl + (-rl & 7), what);
	}
	if (et == 0x0800 || et == 0x86dd) {
		sweep(ROCE_LINKTYPE_RAW, f + l3, n - l3, what);
		sweep(et == 0x0800 ? ROCE_LINKTYPE_IPV4 : ROCE_LINKTYPE_IPV6, f + l3, n - l3,
			what);
	}
}

#endif /* ROCE_TEST_LINKWRAP_H */
