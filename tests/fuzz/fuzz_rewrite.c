/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_rewrite.c - libFuzzer target for roce_rewrite_frame() and
 * roce_rewrite_parse_ipmap().
 *
 * Input: byte 0 picks the edits (bit 0 VLAN set, bit 1 strip, bit 2 PCP,
 * bit 3 DSCP/ECN, bit 4 IP maps, bit 5 sport, bit 6 QP map, bit 7 PSN
 * offset), byte 1 the spare room behind the frame (0..7 bytes), the rest is
 * the Ethernet frame.  The frame is copied into a buffer of exactly its
 * length plus that room, so ASan sees any write past cap.  A rewritten RoCE
 * frame whose ICRC was recomputed must decode with the ICRC error it had.
 * The same bytes are also parsed as an IP map string.
 */
#include <stdlib.h>
#include <string.h>

#include <roce/pkt.h>
#include <roce/rewrite.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct roce_rewrite rw;
	struct roce_rw_ipmap m;
	struct roce_pkt p0, p1;
	uint8_t *buf;
	char *str;
	size_t n, cap;
	uint32_t res;
	int rc, rc0;
	uint8_t sel;

	if (size < 2)
		return 0;
	sel = data[0];
	n = size - 2;
	cap = n + (data[1] & 7);
	roce_rewrite_init(&rw);
	if (sel & 1) {
		rw.vlan = ROCE_RW_VLAN_SET;
		rw.vlan_id = 42;
	}
	if (sel & 2)
		rw.vlan = ROCE_RW_VLAN_STRIP;
	if (sel & 4)
		rw.vlan_pcp = 3;
	if (sel & 8) {
		rw.dscp = 26;
		rw.ecn = 3;
	}
	if (sel & 16) {
		roce_rewrite_parse_ipmap("10.0.0.0/8:192.168.0.0", 3, &rw.ipmaps[0]);
		roce_rewrite_parse_ipmap("[::/0]:[fd00::]", 3, &rw.ipmaps[1]);
		rw.n_ipmaps = 2;
	}
	if (sel & 32)
		rw.sport = 0x1234;
	if (sel & 64) {
		rw.qpmaps[0].from = ROCE_RW_QP_ANY;
		rw.qpmaps[0].to = 0xabcdef;
		rw.n_qpmaps = 1;
	}
	if (sel & 128)
		rw.psn_offset = 0x800001;
	buf = malloc(cap ? cap : 1);
	if (!buf)
		return 0;
	memcpy(buf, data + 2, n);
	rc0 = roce_decode(ROCE_LINKTYPE_ETHERNET, buf, n, n, NULL, &p0);
	rc = roce_rewrite_frame(&rw, ROCE_LINKTYPE_ETHERNET, buf, &n, cap, &res);
	if (rc != ROCE_OK && rc != ROCE_E_NOSPACE)
		__builtin_trap();
	if (n > cap)
		__builtin_trap();
	if (rc == ROCE_OK && (res & ROCE_RW_R_ICRC) && rc0 == ROCE_OK) {
		if (roce_decode(ROCE_LINKTYPE_ETHERNET, buf, n, n, NULL, &p1) != ROCE_OK ||
		    p1.icrc_status != p0.icrc_status ||
		    (p1.icrc_wire ^ p1.icrc_computed) != (p0.icrc_wire ^ p0.icrc_computed))
			__builtin_trap();
	}
	free(buf);

	str = malloc(size - 1);
	if (!str)
		return 0;
	memcpy(str, data + 2, size - 2);
	str[size - 2] = 0;
	if (roce_rewrite_parse_ipmap(str, 1 + (sel & 1), &m) == ROCE_OK && m.plen > 128)
		__builtin_trap();
	free(str);
	return 0;
}
