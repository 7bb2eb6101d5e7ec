/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_decode.c - libFuzzer target for roce_decode().
 *
 * Input: byte 0 picks the link type, byte 1 the options (bit 0: ICRC off,
 * bit 1: IP checksum off, bit 2: extra UDP port 0x1234, bit 3: wirelen
 * larger than caplen), the rest is the frame.  ICRC verification is on
 * unless bit 0 is set.  The frame is decoded a second time with
 * analysis_only, which must give the same status and the same values in
 * every field pkt.h says that mode fills.  roce_icrc_frame_verdict() on the
 * same bytes must give the ICRC verdict the decoder gave (ICRC on), or
 * what it would have given (ICRC off: nothing to compare, the bounds only).
 * A frame decoded inside a tunnel (corpus tunnel_*.bin: each encapsulation,
 * two and three nested, an ERSPAN T bit; mpls_*.bin: MPLS after Ethernet and a
 * tag, 8 and 9 labels, pseudowires with and without a control word, in GRE,
 * UDP and IP, a GAL) lies within the input.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <roce/icrc.h>
#include <roce/pkt.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const int fuzz_linktypes[] = {
	ROCE_LINKTYPE_ETHERNET, ROCE_LINKTYPE_RAW, ROCE_LINKTYPE_LINUX_SLL,
	ROCE_LINKTYPE_IPV4, ROCE_LINKTYPE_IPV6, ROCE_LINKTYPE_LINUX_SLL2, ROCE_LINKTYPE_ERF,
	ROCE_LINKTYPE_MPLS,     /* (last: the seeds' first bytes keep their link types) */
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct roce_decode_opts o;
	struct roce_pkt p, q;
	size_t n_lt = sizeof(fuzz_linktypes) / sizeof(fuzz_linktypes[0]);
	size_t wl;
	int lt, rc, rq;

	if (size < 2)
		return 0;
	lt = fuzz_linktypes[data[0] % n_lt];
	roce_decode_opts_init(&o);
	o.verify_icrc = !(data[1] & 1);
	o.verify_ip_csum = !(data[1] & 2);
	if (data[1] & 4)
		o.udp_ports[1] = 0x1234;
	wl = (data[1] & 8) ? size + 100 : size - 2;
	rc = roce_decode(lt, data + 2, size - 2, wl, &o, &p);
	if (rc != ROCE_OK && rc != ROCE_E_TRUNC && rc != ROCE_E_MALFORMED &&
	    rc != ROCE_E_NOT_ROCE)
		__builtin_trap();
	if (rc == ROCE_OK && p.kind == ROCE_KIND_NONE)
		__builtin_trap();
	/* inside an encapsulation: the inner frame lies within the caller's bytes */
	if (p.encap && p.kind != ROCE_KIND_NONE &&
	    (p.encap >= ROCE_ENCAP_COUNT || p.encap_depth < 1 ||
	     p.encap_depth > ROCE_MAX_TUNNELS || p.frame < data + 2 ||
	     (size_t)(p.frame - (data + 2)) + p.caplen > size - 2))
		__builtin_trap();
	if (p.kind == ROCE_KIND_ROCE && p.bth_off) {
		uint32_t v;

		/* must never read past caplen, whatever the decoder left */
		(void)roce_icrc_compute(&p, &v);
	}

	/* the ICRC verdict from the headers alone: the decoder's */
	if (roce_icrc_frame_verdict(lt, data + 2, size - 2, wl, &o) != p.icrc_status &&
	    o.verify_icrc)
		__builtin_trap();

	/* analysis_only: the same answer in what the analysis and the ICRC step read */
	memset(&q, 0xa5, sizeof(q));
	o.analysis_only = 1;
	rq = roce_decode(lt, data + 2, size - 2, wl, &o, &q);
	if (rq != rc || q.kind != p.kind || q.findings != p.findings || q.version != p.version ||
	    q.wirelen != p.wirelen || q.caplen != p.caplen)
		__builtin_trap();
	if (p.kind == ROCE_KIND_ROCE && p.bth_off) {
		const struct roce_bth *a = &p.bth, *b = &q.bth;

		if (q.ip_version != p.ip_version || memcmp(q.src, p.src, 16) ||
		    memcmp(q.dst, p.dst, 16) || q.ecn != p.ecn || q.l3_off != p.l3_off ||
		    q.udp_off != p.udp_off || q.bth_off != p.bth_off || q.ext_off != p.ext_off ||
		    q.payload_len != p.payload_len || q.icrc_off != p.icrc_off ||
		    q.icrc_status != p.icrc_status || q.icrc_wire != p.icrc_wire ||
		    (p.icrc_status != ROCE_ICRC_UNVERIFIED && q.icrc_computed != p.icrc_computed) ||
		    q.op != p.op || q.hdrs != p.hdrs)
			__builtin_trap();
		if (b->opcode != a->opcode || b->padcnt != a->padcnt || b->tver != a->tver ||
		    b->pkey != a->pkey || b->becn != a->becn || b->dqpn != a->dqpn ||
		    b->ackreq != a->ackreq || b->psn != a->psn)
			__builtin_trap();
		if (((p.hdrs & ROCE_H_AETH) &&
		     (q.aeth.syndrome != p.aeth.syndrome || q.aeth.msn != p.aeth.msn)) ||
		    ((p.hdrs & ROCE_H_RETH) &&
		     (q.reth.va != p.reth.va || q.reth.rkey != p.reth.rkey ||
		      q.reth.dma_len != p.reth.dma_len)) ||
		    ((p.hdrs & ROCE_H_DETH) &&
		     (q.deth.qkey != p.deth.qkey || q.deth.src_qp != p.deth.src_qp)))
			__builtin_trap();
	}
	return 0;
}
