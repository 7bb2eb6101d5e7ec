/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_sweep.c - decode every prefix (caplen 0..n, wirelen n) of every
 * sample frame from an exactly-sized heap copy, so ASan catches any read
 * past caplen; the status must always be one of the documented ones.
 * Samples: V1..V9, PFC, PAUSE and built frames of every opcode (v1,
 * v2/IPv4 with a VLAN tag, v2/IPv6), for Ethernet and re-framed as SLL,
 * SLL2, raw IP and ERF.  Every Ethernet decode is also done by the general
 * decoder without roce_decode()'s fast path (roce_decode_general()), and the
 * two results must agree field by field; randomly damaged untagged RoCE v2
 * frames (the fast path's case and its edges) are compared the same way.
 */
#include <stdlib.h>
#include <string.h>

#include <roce/buf.h>
#include <roce/build.h>
#include <roce/pkt.h>

#include "check.h"
#include "linkwrap.h"
#include "roce_vectors.h"

static unsigned long n_decodes, n_compared, n_fast_ok;

/* lib/src/decode.c, internal: roce_decode() without its fast path */
int roce_decode_general(int linktype, const uint8_t *frame, size_t caplen, size_t wirelen,
	const struct roce_decode_opts *opts, struct roce_pkt *out);

/* Do a and b hold the same decode (every field, padding aside)? */
static bool pkt_same(const struct roce_pkt *a, const struct roce_pkt *b)
{
#define SAME(x) (a->x == b->x)
#define SAME_MEM(x) (memcmp(&a->x, &b->x, sizeof(a->x)) == 0)
	return SAME(frame) && SAME(caplen) && SAME(wirelen) && SAME(kind) && SAME(findings) &&
	       SAME(version) && SAME(ip_version) && SAME(dst_mac) && SAME(src_mac) &&
	       SAME(vlan_count) && SAME(vlan_id) && SAME(pcp) && SAME(ethertype) &&
	       SAME_MEM(src) && SAME_MEM(dst) && SAME(tclass) && SAME(ecn) && SAME(ttl) &&
	       SAME(flow_label) && SAME(sport) && SAME(dport) && SAME(ip_id) && SAME(l3_off) &&
	       SAME(l3_hdr_len) && SAME(udp_off) && SAME(bth_off) && SAME(ext_off) &&
	       SAME(payload_off) && SAME(payload_len) && SAME(icrc_off) && SAME(roce_end) &&
	       SAME(bth.opcode) && SAME(bth.se) && SAME(bth.migreq) && SAME(bth.padcnt) &&
	       SAME(bth.tver) && SAME(bth.pkey) && SAME(bth.fecn) && SAME(bth.becn) &&
	       SAME(bth.resv6) && SAME(bth.dqpn) && SAME(bth.ackreq) && SAME(bth.resv7) &&
	       SAME(bth.psn) && SAME(op) && SAME(hdrs) && SAME(rdeth_eec) && SAME(deth.qkey) &&
	       SAME(deth.src_qp) && SAME(xrc_srq) && SAME(feth) && SAME(reth.va) &&
	       SAME(reth.rkey) && SAME(reth.dma_len) && SAME(atomic.va) && SAME(atomic.rkey) &&
	       SAME(atomic.swap_add) && SAME(atomic.compare) && SAME(aeth.syndrome) &&
	       SAME(aeth.msn) && SAME(atomic_ack) && SAME(immdt) && SAME(ieth_rkey) &&
	       SAME(icrc_status) && SAME(icrc_wire) && SAME(icrc_computed) && SAME(mac_opcode) &&
	       SAME(pfc_enable) && SAME(pfc_reserved) && SAME_MEM(pfc_quanta) && SAME(encap);
#undef SAME
#undef SAME_MEM
}

/*
 * The fields roce_decode_opts.analysis_only promises (pkt.h): the analysis's and the
 * ICRC steps', the extension headers only where hdrs names them.
 */
static bool pkt_same_analysis(const struct roce_pkt *a, const struct roce_pkt *b)
{
#define SAME(x) (a->x == b->x)
#define SAME_MEM(x) (memcmp(&a->x, &b->x, sizeof(a->x)) == 0)
	uint32_t h = a->hdrs;

	if (!(SAME(frame) && SAME(caplen) && SAME(wirelen) && SAME(kind) && SAME(findings) &&
	      SAME(version) && SAME(ip_version) && SAME_MEM(src) && SAME_MEM(dst) && SAME(ecn) &&
	      SAME(l3_off) && SAME(udp_off) && SAME(bth_off) && SAME(ext_off) &&
	      SAME(payload_len) && SAME(icrc_off) && SAME(icrc_status) && SAME(icrc_wire) &&
	      SAME(icrc_computed) && SAME(bth.opcode) && SAME(bth.padcnt) && SAME(bth.tver) &&
	      SAME(bth.pkey) && SAME(bth.becn) && SAME(bth.dqpn) && SAME(bth.ackreq) &&
	      SAME(bth.psn) && SAME(op) && SAME(hdrs)))
		return false;
	return (!(h & ROCE_H_RETH) || (SAME(reth.va) && SAME(reth.rkey) && SAME(reth.dma_len))) &&
	       (!(h & ROCE_H_AETH) || (SAME(aeth.syndrome) && SAME(aeth.msn))) &&
	       (!(h & ROCE_H_DETH) || (SAME(deth.qkey) && SAME(deth.src_qp))) &&
	       (!(h & ROCE_H_RDETH) || SAME(rdeth_eec)) &&
	       (!(h & ROCE_H_XRCETH) || SAME(xrc_srq)) && (!(h & ROCE_H_FETH) || SAME(feth)) &&
	       (!(h & ROCE_H_ATOMICETH) || (SAME(atomic.va) && SAME(atomic.rkey) &&
						 SAME(atomic.swap_add) && SAME(atomic.compare))) &&
	       (!(h & ROCE_H_ATOMICACKETH) || SAME(atomic_ack)) &&
	       (!(h & ROCE_H_IMMDT) || SAME(immdt)) && (!(h & ROCE_H_IETH) || SAME(ieth_rkey));
#undef SAME
#undef SAME_MEM
}

/* roce_decode() and the general decoder on the same bytes: same status, same fields. */
static int decode_both(int linktype, const uint8_t *f, size_t caplen, size_t wirelen,
		       const struct roce_decode_opts *o, struct roce_pkt *p)
{
	struct roce_pkt g;
	int rc, grc;

	/* the same garbage in both: what the general decoder leaves alone (the
	 * headers a frame does not have) the fast path must leave alone too */
	memset(p, 0x5a, sizeof(*p));
	memset(&g, 0x5a, sizeof(g));
	rc = roce_decode(linktype, f, caplen, wirelen, o, p);
	grc = roce_decode_general(linktype, f, caplen, wirelen, o, &g);
	n_compared++;
	if (rc != grc || !pkt_same(p, &g)) {
		CHECK_EQ_I(rc, grc);
		CHECK(pkt_same(p, &g));
		fprintf(stderr, "  fast path differs: link %d caplen %zu wirelen %zu\n", linktype,
			caplen, wirelen);
	}
	{
		/* analysis_only, over other garbage: the same where pkt.h promises it */
		struct roce_decode_opts lo;
		struct roce_pkt l;
		int lrc;

		if (o)
			lo = *o;
		else
			roce_decode_opts_init(&lo);
		lo.analysis_only = true;
		memset(&l, 0xa5, sizeof(l));
		lrc = roce_decode(linktype, f, caplen, wirelen, &lo, &l);
		if (lrc != grc || !pkt_same_analysis(&l, &g)) {
			CHECK_EQ_I(lrc, grc);
			CHECK(pkt_same_analysis(&l, &g));
			fprintf(stderr, "  analysis_only differs: link %d caplen %zu wirelen %zu\n",
				linktype, caplen, wirelen);
		}
	}
	return rc;
}

static int status_ok(int rc)
{
	return rc == ROCE_OK || rc == ROCE_E_TRUNC || rc == ROCE_E_MALFORMED ||
		rc == ROCE_E_NOT_ROCE;
}

/*
 * Sweep one frame; full_rc is the status of the complete frame.  Every
 * prefix must decode to a documented status and the kind must never
 * change from NONE to something else once the frame is complete.
 */
static void sweep(int linktype, const uint8_t *f, size_t n, const char *what)
{
	struct roce_decode_opts o;

	roce_decode_opts_init(&o);
	for (size_t k = 0; k <= n; k++) {
		uint8_t *copy = malloc(k ? k : 1);
		struct roce_pkt p;
		int rc;

		if (!copy) {
			CHECK(copy != NULL);
			return;
		}
		memcpy(copy, f, k);
		rc = decode_both(linktype, k ? copy : NULL, k, n, k & 1 ? &o : NULL, &p);
		n_decodes++;
		if (!status_ok(rc)) {
			CHECK(status_ok(rc));
			fprintf(stderr, "  %s link %d caplen %zu/%zu rc %d\n", what, linktype, k, n, rc);
		}
		/* invariants of the result */
		CHECK(rc != ROCE_OK || p.kind != ROCE_KIND_NONE);
		CHECK(rc != ROCE_E_NOT_ROCE || p.kind == ROCE_KIND_NONE);
		CHECK(rc != ROCE_E_TRUNC || (p.findings & ROCE_FIND_TRUNCATED));
		if (p.kind == ROCE_KIND_ROCE && p.icrc_status != ROCE_ICRC_UNVERIFIED)
			CHECK(p.icrc_off + 4 <= k);
		if (p.op) {
			CHECK(p.bth_off + 12 <= k);
			CHECK(p.op == &roce_opcodes[p.bth.opcode]);
		}
		if (p.hdrs && p.op)
			CHECK(p.ext_off + p.op->hdr_len <= k);
		free(copy);
		if (check_cur_failed_) {
			fprintf(stderr, "  %s link %d caplen %zu/%zu rc %d\n", what, linktype, k, n, rc);
			return;
		}
	}
}

/* The frame as Ethernet, and re-framed for the other link types (linkwrap.h). */
static void sweep_all_links(const uint8_t *f, size_t n, const char *what)
{
	sweep_links(sweep, f, n, what);
}

static void test_sweep_vectors(void)
{
	uint8_t f[256];

	for (size_t i = 0; i < ROCE_TEST_VECTOR_COUNT; i++) {
		size_t n = check_hex(roce_test_vectors[i].hex, f, sizeof(f));
		struct roce_pkt p;

		CHECK_EQ_I(roce_decode(ROCE_LINKTYPE_ETHERNET, f, n, n, NULL, &p), ROCE_OK);
		sweep_all_links(f, n, roce_test_vectors[i].id);
		/* with 4 bytes of FCS */
		memset(f + n, 0xee, 4);
		sweep(ROCE_LINKTYPE_ETHERNET, f, n + 4, roce_test_vectors[i].id);
	}
}

static void test_sweep_pfc_pause(void)
{
	uint8_t f[128];
	size_t n;

	n = check_hex(ROCE_TEST_PFC_HEX, f, sizeof(f));
	sweep_all_links(f, n, "PFC");
	n = check_hex(ROCE_TEST_PAUSE_HEX, f, sizeof(f));
	sweep_all_links(f, n, "PAUSE");
}

static void test_sweep_every_opcode(void)
{
	static const uint8_t payload[45] = "sweep payload sweep payload sweep payload 12";

	for (unsigned op = 0; op < 256; op++) {
		if (!roce_opcodes[op].name && op != 0x15)
			continue;
		for (unsigned v = 0; v < 3; v++) {
			uint8_t buf[512];
			size_t len;

			if (build_opcode_frame(op, v, payload, buf, sizeof(buf), &len) != ROCE_OK) {
				CHECK(0);
				return;
			}
			sweep_all_links(buf, len, roce_opcode_name((uint8_t)op));
			if (check_cur_failed_)
				return;
		}
	}
}

/* Hostile length fields on every vector: huge, zero, off by one. */
static void test_sweep_hostile_lengths(void)
{
	static const uint16_t vals[] = { 0, 1, 7, 8, 19, 20, 0x7fff, 0xffff };
	uint8_t f[256];

	for (size_t i = 0; i < ROCE_TEST_VECTOR_COUNT; i++) {
		size_t n = check_hex(roce_test_vectors[i].hex, f, sizeof(f));
		size_t l3 = roce_get_be16(f + 12) == 0x8100 ? 18 : 14;
		uint16_t et = roce_get_be16(f + l3 - 2);
		size_t fields[3], nf = 0;

		if (et == 0x0800) {
			fields[nf++] = l3 + 2;                  /* total length */
			fields[nf++] = l3 + (f[l3] & 0xf) * 4 + 4;  /* UDP length */
		} else {
			fields[nf++] = l3 + 4;                  /* payload length / PayLen */
			if (et == 0x86dd)
				fields[nf++] = l3 + 44;         /* UDP length */
		}
		for (size_t fi = 0; fi < nf; fi++) {
			for (size_t vi = 0; vi < sizeof(vals) / sizeof(vals[0]); vi++) {
				uint8_t g[256];

				memcpy(g, f, n);
				roce_put_be16(g + fields[fi], vals[vi]);
				sweep(ROCE_LINKTYPE_ETHERNET, g, n, roce_test_vectors[i].id);
			}
		}
		/* IHL 15 with a short frame */
		if (et == 0x0800) {
			uint8_t g[256];

			memcpy(g, f, n);
			g[l3] = 0x4f;
			sweep(ROCE_LINKTYPE_ETHERNET, g, n, roce_test_vectors[i].id);
		}
	}
}

/* xorshift64: the damage below is random but the same on every run */
static uint64_t rnd_state = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(uint32_t n)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return (uint32_t)(rnd_state >> 32) % n;
}

/*
 * The fast path's case (untagged Ethernet, IPv4, UDP, known opcode) on every
 * opcode, damaged at random: bytes of the headers and the ICRC, the length
 * fields, captured and wire lengths, the options.  Every decode from an
 * exactly-sized copy (ASan), compared with the general decoder.
 */
static void test_sweep_fast_path_damaged(void)
{
	static const uint8_t payload[64] = "fast path payload fast path payload fast path 0123456789";
	static const size_t hot[] = { 12, 13, 14, 16, 17, 20, 21, 23, 36, 37, 38, 39, 42, 43 };

	for (unsigned op = 0; op < 256; op++) {
		struct roce_frame_spec s;
		uint8_t buf[512];
		size_t len;

		if (!roce_opcodes[op].name)
			continue;
		roce_frame_spec_init(&s);
		s.version = 2;
		s.ip_version = 4;
		s.bth.opcode = (uint8_t)op;
		s.bth.becn = 1;
		if (roce_opcodes[op].hdrs & ROCE_H_PAYLOAD) {
			s.payload = payload;
			s.payload_len = (roce_opcodes[op].flags & ROCE_F_LAST) ? 61 : 64;
		}
		if (roce_build(&s, buf, sizeof(buf), &len) != ROCE_OK) {
			CHECK(0);
			return;
		}
		for (unsigned t = 0; t < 400; t++) {
			struct roce_decode_opts o;
			uint8_t g[512], *copy;
			size_t caplen = len, wirelen = len;
			struct roce_pkt p;
			unsigned nd = t ? 1 + rnd(3) : 0;

			memcpy(g, buf, len);
			for (unsigned d = 0; d < nd; d++) {
				unsigned w = rnd(8);
				size_t at = w < 4 ? hot[rnd(sizeof(hot) / sizeof(hot[0]))] :
					    w < 6 ? rnd(60) : w < 7 ? len - 1 - rnd(6) : rnd((uint32_t)len);

				if (rnd(4) == 0 && at + 1 < len)
					roce_put_be16(g + at, (uint16_t)(roce_get_be16(g + at) +
									 rnd(9) - 4));
				else
					g[at] ^= (uint8_t)(1u << rnd(8));
			}
			if (rnd(4) == 0)
				caplen = rnd((uint32_t)len + 1);
			if (rnd(4) == 0)
				wirelen = caplen + rnd(8);
			else if (rnd(8) == 0)
				wirelen = rnd((uint32_t)caplen + 1);
			roce_decode_opts_init(&o);
			o.verify_icrc = rnd(4) != 0;
			o.verify_ip_csum = rnd(4) != 0;
			if (rnd(8) == 0)
				o.udp_ports[1] = (uint16_t)(4791 + rnd(3));
			if (rnd(16) == 0)
				o.udp_ports[0] = 4792;
			copy = malloc(caplen ? caplen : 1);
			if (!copy) {
				CHECK(copy != NULL);
				return;
			}
			memcpy(copy, g, caplen);
			if (decode_both(ROCE_LINKTYPE_ETHERNET, caplen ? copy : NULL, caplen, wirelen,
					rnd(8) ? &o : NULL, &p) == ROCE_OK && p.kind == ROCE_KIND_ROCE &&
			    p.icrc_status == ROCE_ICRC_OK)
				n_fast_ok++;
			free(copy);
			if (check_cur_failed_) {
				fprintf(stderr, "  opcode %u, damage round %u\n", op, t);
				return;
			}
		}
	}
	/* the undamaged frames and many damaged ones took the fast path's way */
	CHECK(n_fast_ok > 1000);
}

int main(void)
{
	RUN(test_sweep_vectors);
	RUN(test_sweep_pfc_pause);
	RUN(test_sweep_every_opcode);
	RUN(test_sweep_hostile_lengths);
	RUN(test_sweep_fast_path_damaged);
	printf("%lu decodes, %lu compared with the general decoder (%lu damaged frames still "
	       "verified)\n", n_decodes, n_compared, n_fast_ok);
	return check_report();
}
