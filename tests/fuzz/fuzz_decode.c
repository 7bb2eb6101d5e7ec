/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_decode.c - libFuzzer target for roce_decode().
 *
 * Input: byte 0 picks the link type, byte 1 the options (bit 0: ICRC off,
 * bit 1: IP checksum off, bit 2: extra UDP port 0x1234, bit 3: wirelen
 * larger than caplen), the rest is the frame.  ICRC verification is on
 * unless bit 0 is set.
 */
#include <stddef.h>
#include <stdint.h>

#include <roce/icrc.h>
#include <roce/pkt.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const int fuzz_linktypes[] = {
	ROCE_LINKTYPE_ETHERNET, ROCE_LINKTYPE_RAW, ROCE_LINKTYPE_LINUX_SLL,
	ROCE_LINKTYPE_IPV4, ROCE_LINKTYPE_IPV6, ROCE_LINKTYPE_LINUX_SLL2, ROCE_LINKTYPE_ERF,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct roce_decode_opts o;
	struct roce_pkt p;
	size_t n_lt = sizeof(fuzz_linktypes) / sizeof(fuzz_linktypes[0]);
	int lt, rc;

	if (size < 2)
		return 0;
	lt = fuzz_linktypes[data[0] % n_lt];
	roce_decode_opts_init(&o);
	o.verify_icrc = !(data[1] & 1);
	o.verify_ip_csum = !(data[1] & 2);
	if (data[1] & 4)
		o.udp_ports[1] = 0x1234;
	rc = roce_decode(lt, data + 2, size - 2, (data[1] & 8) ? size + 100 : size - 2, &o, &p);
	if (rc != ROCE_OK && rc != ROCE_E_TRUNC && rc != ROCE_E_MALFORMED &&
	    rc != ROCE_E_NOT_ROCE)
		__builtin_trap();
	if (rc == ROCE_OK && p.kind == ROCE_KIND_NONE)
		__builtin_trap();
	if (p.kind == ROCE_KIND_ROCE && p.bth_off) {
		uint32_t v;

		/* must never read past caplen, whatever the decoder left */
		(void)roce_icrc_compute(&p, &v);
	}
	return 0;
}
