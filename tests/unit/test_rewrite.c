/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_rewrite.c - frame rewriter: rewrite(build(A)) is byte-identical to
 * build(B) for every field (MACs, VLAN set/push/strip/PCP, DSCP/ECN, IPv4
 * and IPv6 prefix maps, UDP source port, destination QP, PSN offset) over
 * RoCE v2/IPv4, v2/IPv6 and v1; a bad ICRC keeps its error; UDP checksum;
 * non-RoCE frames; cut frames; buffer bounds; the map parser.
 */
#include <stdlib.h>
#include <string.h>

#include <roce/buf.h>
#include <roce/build.h>
#include <roce/icrc.h>
#include <roce/pkt.h>
#include <roce/rewrite.h>

#include "check.h"

static uint8_t payload[300];

static void spec_base(struct roce_frame_spec *s, int version, int ipv)
{
	roce_frame_spec_init(s);
	s->version = (uint8_t)version;
	s->ip_version = (uint8_t)ipv;
	memcpy(s->dst_mac, (uint8_t[6]){ 0x02, 0, 0, 0, 0, 2 }, 6);
	memcpy(s->src_mac, (uint8_t[6]){ 0x02, 0, 0, 0, 0, 1 }, 6);
	if (ipv == 4 || version == 1) {
		roce_addr_v4(s->src, 0x0a000101);
		roce_addr_v4(s->dst, 0x0a000202);
	}
	if (ipv == 6) {
		static const uint8_t a[16] = { 0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 };
		static const uint8_t b[16] = { 0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2 };

		memcpy(s->src, a, 16);
		memcpy(s->dst, b, 16);
	}
	s->tclass = 0x68 | 2;   /* DSCP 26, ECT(0) */
	s->ip_id = 0x4321;
	s->sport = 0xc123;
	s->bth.opcode = ROCE_OP_RC_RDMA_WRITE_ONLY;
	s->bth.dqpn = 0x000111;
	s->bth.psn = 0xfffffe;
	s->reth.va = 0x1000;
	s->reth.rkey = 0x77;
	s->reth.dma_len = 100;
	s->payload = payload;
	s->payload_len = 100;
}

static size_t build(const struct roce_frame_spec *s, uint8_t *buf, size_t cap)
{
	size_t len = 0;

	if (roce_build(s, buf, cap, &len) != ROCE_OK)
		return 0;
	return len;
}

/* rewrite(build(a)) must equal build(b) and decode with ICRC OK. */
static int same_after(const struct roce_frame_spec *a, const struct roce_frame_spec *b,
		      const struct roce_rewrite *rw, uint32_t want_res)
{
	uint8_t got[512], want[512];
	size_t n = build(a, got, sizeof(got)), wn = build(b, want, sizeof(want));
	uint32_t res = 0;
	struct roce_pkt p;

	if (!n || !wn)
		return 0;
	if (roce_rewrite_frame(rw, ROCE_LINKTYPE_ETHERNET, got, &n, sizeof(got), &res) != ROCE_OK)
		return 0;
	if (n != wn || memcmp(got, want, n)) {
		fprintf(stderr, "  rewritten frame differs (len %zu vs %zu)\n", n, wn);
		for (size_t i = 0; i < n && i < wn; i++)
			if (got[i] != want[i])
				fprintf(stderr, "  byte %zu: %02x vs %02x\n", i, got[i], want[i]);
		return 0;
	}
	if ((res & want_res) != want_res) {
		fprintf(stderr, "  result 0x%x lacks 0x%x\n", res, want_res);
		return 0;
	}
	if (roce_decode(ROCE_LINKTYPE_ETHERNET, got, n, n, NULL, &p) != ROCE_OK)
		return 0;
	return p.icrc_status == ROCE_ICRC_OK && !(p.findings & ROCE_FIND_MALFORMED_MASK);
}

static const int variants[3][2] = { { 2, 4 }, { 2, 6 }, { 1, 0 } };

static void test_noop(void)
{
	struct roce_rewrite rw;
	struct roce_frame_spec a;

	roce_rewrite_init(&rw);
	CHECK(!roce_rewrite_active(&rw));
	for (int v = 0; v < 3; v++) {
		spec_base(&a, variants[v][0], variants[v][1]);
		CHECK(same_after(&a, &a, &rw, 0));
	}
}

static void test_macs(void)
{
	struct roce_rewrite rw;
	struct roce_frame_spec a, b;

	roce_rewrite_init(&rw);
	rw.set_dst_mac = rw.set_src_mac = true;
	memcpy(rw.dst_mac, (uint8_t[6]){ 0xaa, 1, 2, 3, 4, 5 }, 6);
	memcpy(rw.src_mac, (uint8_t[6]){ 0xbb, 1, 2, 3, 4, 5 }, 6);
	CHECK(roce_rewrite_active(&rw));
	spec_base(&a, 2, 4);
	b = a;
	memcpy(b.dst_mac, rw.dst_mac, 6);
	memcpy(b.src_mac, rw.src_mac, 6);
	CHECK(same_after(&a, &b, &rw, ROCE_RW_R_L2));
}

static void test_vlan(void)
{
	struct roce_rewrite rw;
	struct roce_frame_spec a, b;

	for (int v = 0; v < 3; v++) {
		/* push on untagged */
		roce_rewrite_init(&rw);
		rw.vlan = ROCE_RW_VLAN_SET;
		rw.vlan_id = 100;
		rw.vlan_pcp = 3;
		spec_base(&a, variants[v][0], variants[v][1]);
		b = a;
		b.vlan_count = 1;
		b.vlan_id[0] = 100;
		b.vlan_pcp[0] = 3;
		CHECK(same_after(&a, &b, &rw, ROCE_RW_R_L2));
		/* change VID, keep PCP */
		a = b;
		rw.vlan_id = 200;
		rw.vlan_pcp = -1;
		b.vlan_id[0] = 200;
		CHECK(same_after(&a, &b, &rw, ROCE_RW_R_L2));
		/* PCP only on a tagged frame */
		roce_rewrite_init(&rw);
		rw.vlan_pcp = 5;
		a = b;
		b.vlan_pcp[0] = 5;
		CHECK(same_after(&a, &b, &rw, ROCE_RW_R_L2));
		/* PCP only on untagged: priority tag, VID 0 */
		spec_base(&a, variants[v][0], variants[v][1]);
		b = a;
		b.vlan_count = 1;
		b.vlan_pcp[0] = 5;
		CHECK(same_after(&a, &b, &rw, ROCE_RW_R_L2));
		/* strip */
		roce_rewrite_init(&rw);
		rw.vlan = ROCE_RW_VLAN_STRIP;
		a = b;
		spec_base(&b, variants[v][0], variants[v][1]);
		CHECK(same_after(&a, &b, &rw, ROCE_RW_R_L2));
		/* strip of an untagged frame changes nothing */
		CHECK(same_after(&b, &b, &rw, 0));
	}
}

static void test_strip_pads_to_60(void)
{
	struct roce_rewrite rw;
	struct roce_frame_spec a, b;

	roce_rewrite_init(&rw);
	rw.vlan = ROCE_RW_VLAN_STRIP;
	spec_base(&a, 2, 4);
	a.bth.opcode = ROCE_OP_RC_ACKNOWLEDGE;
	a.aeth.msn = 5;
	a.payload_len = 0;
	b = a;
	a.vlan_count = 1;
	a.vlan_id[0] = 7;
	/* 14 + 4 + 20 + 8 + 12 + 4 + 4 = 66 tagged, 62 untagged */
	CHECK(same_after(&a, &b, &rw, ROCE_RW_R_L2));
	a.bth.opcode = ROCE_OP_CNP;
	b.bth.opcode = ROCE_OP_CNP;
	a.bth.becn = b.bth.becn = 1;
	a.bth.psn = b.bth.psn = 0;
	CHECK(same_after(&a, &b, &rw, ROCE_RW_R_L2));
	{
		/* a 60-byte PFC frame tagged (64) and stripped again: back to the original */
		uint8_t f[128], orig[128];
		uint16_t q[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
		size_t n;

		REQUIRE(roce_build_pfc(a.src_mac, 0xff, q, orig, sizeof(orig), &n) == ROCE_OK);
		memcpy(f, orig, n);
		rw.vlan = ROCE_RW_VLAN_SET;
		rw.vlan_id = 9;
		CHECK_EQ_I(roce_rewrite_frame(&rw, ROCE_LINKTYPE_ETHERNET, f, &n, sizeof(f), NULL),
			   ROCE_OK);
		CHECK_EQ_U(n, 64);
		CHECK_EQ_U(roce_get_be16(f + 12), 0x8100);
		/* cut the tagged frame to 60 bytes, as a switch would send it: strip pads */
		n = 60;
		rw.vlan = ROCE_RW_VLAN_STRIP;
		CHECK_EQ_I(roce_rewrite_frame(&rw, ROCE_LINKTYPE_ETHERNET, f, &n, sizeof(f), NULL),
			   ROCE_OK);
		CHECK_EQ_U(n, 60);
		CHECK(memcmp(f, orig, 56) == 0);
		CHECK(f[56] == 0 && f[57] == 0 && f[58] == 0 && f[59] == 0);
	}
}

static void test_dscp_ecn(void)
{
	struct roce_rewrite rw;
	struct roce_frame_spec a, b;

	for (int v = 0; v < 3; v++) {
		roce_rewrite_init(&rw);
		rw.dscp = 46;
		spec_base(&a, variants[v][0], variants[v][1]);
		b = a;
		b.tclass = (uint8_t)(46 << 2 | (a.tclass & 3));
		CHECK(same_after(&a, &b, &rw, ROCE_RW_R_L3 | ROCE_RW_R_ICRC));
		rw.dscp = -1;
		rw.ecn = 3;
		b.tclass = (uint8_t)((a.tclass & ~3) | 3);
		CHECK(same_after(&a, &b, &rw, ROCE_RW_R_L3));
	}
}

static void test_ipmap_v4(void)
{
	struct roce_rewrite rw;
	struct roce_frame_spec a, b;

	roce_rewrite_init(&rw);
	CHECK_EQ_I(roce_rewrite_parse_ipmap("10.0.0.0/16:192.168.0.0",
					    ROCE_RW_MAP_SRC | ROCE_RW_MAP_DST, &rw.ipmaps[0]),
		   ROCE_OK);
	rw.n_ipmaps = 1;
	for (int v = 0; v < 3; v += 2) {
		spec_base(&a, variants[v][0], variants[v][1]);
		b = a;
		roce_addr_v4(b.src, 0xc0a80101);
		roce_addr_v4(b.dst, 0xc0a80202);
		CHECK(same_after(&a, &b, &rw, ROCE_RW_R_L3 | ROCE_RW_R_ICRC));
	}
	/* exact destination map only; first match wins */
	roce_rewrite_init(&rw);
	CHECK_EQ_I(roce_rewrite_parse_ipmap("10.0.2.2:172.16.0.9", ROCE_RW_MAP_DST, &rw.ipmaps[0]),
		   ROCE_OK);
	CHECK_EQ_I(roce_rewrite_parse_ipmap("0.0.0.0/0:1.1.1.1", ROCE_RW_MAP_DST, &rw.ipmaps[1]),
		   ROCE_OK);
	rw.n_ipmaps = 2;
	spec_base(&a, 2, 4);
	b = a;
	roce_addr_v4(b.dst, 0xac100009);
	CHECK(same_after(&a, &b, &rw, ROCE_RW_R_L3));
	/* an IPv4 map leaves IPv6 frames alone */
	spec_base(&a, 2, 6);
	CHECK(same_after(&a, &a, &rw, 0));
}

static void test_ipmap_v6(void)
{
	struct roce_rewrite rw;
	struct roce_frame_spec a, b;

	roce_rewrite_init(&rw);
	CHECK_EQ_I(roce_rewrite_parse_ipmap("[fd00::/64]:[2001:db8:1:2::]", ROCE_RW_MAP_SRC,
					    &rw.ipmaps[0]), ROCE_OK);
	rw.n_ipmaps = 1;
	spec_base(&a, 2, 6);
	b = a;
	b.src[0] = 0x20;
	b.src[1] = 0x01;
	b.src[2] = 0x0d;
	b.src[3] = 0xb8;
	b.src[5] = 1;
	b.src[7] = 2;
	CHECK(same_after(&a, &b, &rw, ROCE_RW_R_L3 | ROCE_RW_R_ICRC));
}

static void test_transport(void)
{
	struct roce_rewrite rw;
	struct roce_frame_spec a, b;

	for (int v = 0; v < 3; v++) {
		roce_rewrite_init(&rw);
		rw.psn_offset = 5;                 /* 0xfffffe + 5 wraps to 3 */
		rw.n_qpmaps = 2;
		rw.qpmaps[0] = (struct roce_rw_qpmap){ 0x999, 0x1 };
		rw.qpmaps[1] = (struct roce_rw_qpmap){ 0x111, 0xabcdef };
		if (variants[v][0] == 2)
			rw.sport = 0xd00d;
		spec_base(&a, variants[v][0], variants[v][1]);
		b = a;
		b.bth.psn = 3;
		b.bth.dqpn = 0xabcdef;
		if (variants[v][0] == 2)
			b.sport = 0xd00d;
		CHECK(same_after(&a, &b, &rw, ROCE_RW_R_L3 | ROCE_RW_R_ICRC));
		/* QP "any" */
		roce_rewrite_init(&rw);
		rw.n_qpmaps = 1;
		rw.qpmaps[0] = (struct roce_rw_qpmap){ ROCE_RW_QP_ANY, 0x42 };
		b = a;
		b.bth.dqpn = 0x42;
		CHECK(same_after(&a, &b, &rw, ROCE_RW_R_ICRC));
	}
}

/* A wrong ICRC stays wrong by exactly the same error. */
static void test_bad_icrc_kept(void)
{
	struct roce_rewrite rw;
	struct roce_frame_spec a, b;
	uint8_t got[512];
	struct roce_pkt p;
	uint32_t res = 0, err0;
	size_t n;

	roce_rewrite_init(&rw);
	rw.psn_offset = 100;
	spec_base(&a, 2, 4);
	a.bad_icrc = true;
	n = build(&a, got, sizeof(got));
	REQUIRE(n);
	REQUIRE(roce_decode(ROCE_LINKTYPE_ETHERNET, got, n, n, NULL, &p) == ROCE_OK);
	REQUIRE(p.icrc_status == ROCE_ICRC_BAD);
	err0 = p.icrc_wire ^ p.icrc_computed;
	CHECK_EQ_I(roce_rewrite_frame(&rw, ROCE_LINKTYPE_ETHERNET, got, &n, sizeof(got), &res),
		   ROCE_OK);
	CHECK(res & ROCE_RW_R_ICRC_WAS_BAD);
	REQUIRE(roce_decode(ROCE_LINKTYPE_ETHERNET, got, n, n, NULL, &p) == ROCE_OK);
	CHECK(p.icrc_status == ROCE_ICRC_BAD);
	CHECK_EQ_U(p.icrc_wire ^ p.icrc_computed, err0);
	CHECK_EQ_U(p.bth.psn, roce_psn_add(0xfffffe, 100));
	/* and with the fault removed from the spec, the same frame but a good ICRC */
	b = a;
	b.bad_icrc = false;
	b.bth.psn = roce_psn_add(0xfffffe, 100);
	{
		uint8_t want[512];
		size_t wn = build(&b, want, sizeof(want));

		CHECK_EQ_U(wn, n);
		CHECK(memcmp(want, got, n - 4) == 0);
	}
}

/* A bad IPv4 header checksum keeps its error too. */
static void test_bad_ip_csum_kept(void)
{
	struct roce_rewrite rw;
	struct roce_frame_spec a;
	uint8_t got[512];
	struct roce_pkt p;
	size_t n;

	roce_rewrite_init(&rw);
	rw.dscp = 10;
	spec_base(&a, 2, 4);
	n = build(&a, got, sizeof(got));
	REQUIRE(n);
	got[14 + 10] ^= 0x01;
	CHECK_EQ_I(roce_rewrite_frame(&rw, ROCE_LINKTYPE_ETHERNET, got, &n, sizeof(got), NULL),
		   ROCE_OK);
	REQUIRE(roce_decode(ROCE_LINKTYPE_ETHERNET, got, n, n, NULL, &p) == ROCE_OK);
	CHECK(p.findings & ROCE_FIND_BAD_IP_CSUM);
	CHECK_EQ_U(p.tclass >> 2, 10);
	got[14 + 10] ^= 0x01;
	REQUIRE(roce_decode(ROCE_LINKTYPE_ETHERNET, got, n, n, NULL, &p) == ROCE_OK);
	CHECK(!(p.findings & ROCE_FIND_BAD_IP_CSUM));
}

/* Sum of the UDP datagram with its pseudo-header: 0xffff when the checksum is right. */
static uint16_t udp_verify(const uint8_t *f, size_t l3, size_t udp, int v6)
{
	uint32_t sum = 0;
	size_t ulen = roce_get_be16(f + udp + 4), i;

	if (v6) {
		for (i = 0; i < 32; i += 2)
			sum += roce_get_be16(f + l3 + 8 + i);
	} else {
		for (i = 0; i < 8; i += 2)
			sum += roce_get_be16(f + l3 + 12 + i);
	}
	sum += 17 + (uint32_t)ulen;
	for (i = 0; i + 1 < ulen; i += 2)
		sum += roce_get_be16(f + udp + i);
	if (ulen & 1)
		sum += (uint32_t)f[udp + ulen - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

static void test_udp_csum(void)
{
	for (int v6 = 0; v6 < 2; v6++) {
		struct roce_rewrite rw;
		struct roce_frame_spec a;
		uint8_t f[512];
		size_t n, l3 = 14, udp = l3 + (v6 ? 40 : 20);
		uint32_t sum = 0;
		struct roce_pkt p;

		spec_base(&a, 2, v6 ? 6 : 4);
		n = build(&a, f, sizeof(f));
		REQUIRE(n);
		/* give the frame a correct UDP checksum (the ICRC masks the field) */
		roce_put_be16(f + udp + 6, 0);
		sum = (uint16_t)~udp_verify(f, l3, udp, v6);
		roce_put_be16(f + udp + 6, (uint16_t)(sum ? sum : 0xffff));
		REQUIRE(udp_verify(f, l3, udp, v6) == 0xffff);
		roce_rewrite_init(&rw);
		rw.sport = 1234;
		CHECK_EQ_I(roce_rewrite_frame(&rw, ROCE_LINKTYPE_ETHERNET, f, &n, sizeof(f), NULL),
			   ROCE_OK);
		CHECK_EQ_U(roce_get_be16(f + udp), 1234);
		CHECK_EQ_U(udp_verify(f, l3, udp, v6), 0xffff);
		REQUIRE(roce_decode(ROCE_LINKTYPE_ETHERNET, f, n, n, NULL, &p) == ROCE_OK);
		CHECK(p.icrc_status == ROCE_ICRC_OK);
	}
}

static void test_not_roce_and_cut(void)
{
	struct roce_rewrite rw;
	struct roce_frame_spec a;
	uint8_t f[512], orig[512];
	uint16_t q[8] = { 0 };
	uint32_t res;
	size_t n, cut;

	roce_rewrite_init(&rw);
	rw.set_src_mac = true;
	memcpy(rw.src_mac, (uint8_t[6]){ 0x02, 9, 9, 9, 9, 9 }, 6);
	rw.psn_offset = 1;
	REQUIRE(roce_build_pfc((uint8_t[6]){ 0x02, 0, 0, 0, 0, 1 }, 1, q, f, sizeof(f), &n) ==
		ROCE_OK);
	CHECK_EQ_I(roce_rewrite_frame(&rw, ROCE_LINKTYPE_ETHERNET, f, &n, sizeof(f), &res),
		   ROCE_OK);
	CHECK(res & ROCE_RW_R_NOT_ROCE);
	CHECK(res & ROCE_RW_R_L2);
	CHECK(memcmp(f + 6, rw.src_mac, 6) == 0);

	/* a frame cut before its ICRC: fields edited, ICRC bytes left */
	spec_base(&a, 2, 4);
	n = build(&a, orig, sizeof(orig));
	REQUIRE(n > 10);
	cut = n - 10;
	memcpy(f, orig, cut);
	CHECK_EQ_I(roce_rewrite_frame(&rw, ROCE_LINKTYPE_ETHERNET, f, &cut, sizeof(f), &res),
		   ROCE_OK);
	/* the decoder calls this truncated-at-length: only L2 edits happen */
	CHECK(res & (ROCE_RW_R_NOT_ROCE | ROCE_RW_R_ICRC_UNVERIFIED));
	CHECK(!(res & ROCE_RW_R_ICRC));

	/* non-Ethernet link type and bad arguments */
	n = 64;
	CHECK_EQ_I(roce_rewrite_frame(&rw, ROCE_LINKTYPE_RAW, f, &n, sizeof(f), NULL),
		   ROCE_E_LINKTYPE);
	n = 600;
	CHECK_EQ_I(roce_rewrite_frame(&rw, ROCE_LINKTYPE_ETHERNET, f, &n, sizeof(f), NULL),
		   ROCE_E_INVAL);
}

static void test_nospace(void)
{
	struct roce_rewrite rw;
	struct roce_frame_spec a;
	uint8_t f[512], orig[512];
	size_t n;

	roce_rewrite_init(&rw);
	rw.vlan = ROCE_RW_VLAN_SET;
	rw.vlan_id = 5;
	spec_base(&a, 2, 4);
	n = build(&a, f, sizeof(f));
	REQUIRE(n);
	memcpy(orig, f, n);
	CHECK_EQ_I(roce_rewrite_frame(&rw, ROCE_LINKTYPE_ETHERNET, f, &n, n + 3, NULL),
		   ROCE_E_NOSPACE);
	CHECK(memcmp(orig, f, n) == 0);
	CHECK_EQ_I(roce_rewrite_frame(&rw, ROCE_LINKTYPE_ETHERNET, f, &n, n + 4, NULL), ROCE_OK);
}

/* Every prefix of a frame, every option: writes stay inside the buffer (ASan). */
static void test_prefix_sweep(void)
{
	struct roce_rewrite rws[4];
	struct roce_frame_spec a;
	uint8_t full[512];
	size_t n;

	for (int i = 0; i < 4; i++)
		roce_rewrite_init(&rws[i]);
	rws[0].vlan = ROCE_RW_VLAN_SET;
	rws[0].vlan_pcp = 3;
	rws[0].dscp = 1;
	rws[0].psn_offset = 7;
	rws[1].vlan = ROCE_RW_VLAN_STRIP;
	rws[1].sport = 9;
	rws[1].n_qpmaps = 1;
	rws[1].qpmaps[0] = (struct roce_rw_qpmap){ ROCE_RW_QP_ANY, 3 };
	rws[2].set_dst_mac = true;
	rws[2].ecn = 3;
	REQUIRE(roce_rewrite_parse_ipmap("10.0.0.0/8:11.0.0.0", 3, &rws[2].ipmaps[0]) == ROCE_OK);
	rws[2].n_ipmaps = 1;
	rws[3].vlan_pcp = 1;
	for (int v = 0; v < 3; v++) {
		spec_base(&a, variants[v][0], variants[v][1]);
		a.vlan_count = 1;
		n = build(&a, full, sizeof(full));
		REQUIRE(n);
		for (size_t len = 0; len <= n; len++) {
			for (int i = 0; i < 4; i++) {
				size_t cap = len + (i == 0 ? 4 : 0), l = len;
				uint8_t *buf = malloc(cap ? cap : 1);
				int rc;

				REQUIRE(buf);
				memcpy(buf, full, len);
				rc = roce_rewrite_frame(&rws[i], ROCE_LINKTYPE_ETHERNET, buf, &l,
							cap, NULL);
				CHECK(rc == ROCE_OK || rc == ROCE_E_NOSPACE);
				CHECK(l <= cap);
				free(buf);
			}
		}
	}
}

static void test_parse(void)
{
	struct roce_rw_ipmap m;
	static const char *good[] = {
		"10.0.0.1:10.0.0.2", "10.0.0.0/8:11.0.0.0", "10.0.0.0/8:11.0.0.0/8",
		"0.0.0.0/0:1.2.3.4", "[fd00::1]:[fd00::2]", "[fd00::/16]:[2001::]",
		"[fd00::]/16:[2001::]", "[::/0]:[::1]",
	};
	static const char *badv[] = {
		"", ":", "10.0.0.1", "10.0.0.1:", ":10.0.0.1", "10.0.0.0/33:1.1.1.1",
		"10.0.0.0/8:1.1.1.1/16", "10.0.0.1:[fd00::1]", "[fd00::1]:10.0.0.1",
		"fd00::1:fd00::2", "[fd00::1]:[fd00::2", "[fd00::/129]:[::]", "10.0.0.0/-1:1.1.1.1",
		"10.0.0.0/:1.1.1.1", "10.0.0.1:10.0.0.2x", "[10.0.0.1]:[10.0.0.2]",
		"[fd00::]/16/3:[::]",
	};

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		int rc = roce_rewrite_parse_ipmap(good[i], ROCE_RW_MAP_SRC, &m);

		if (rc != ROCE_OK)
			fprintf(stderr, "  rejected good map '%s'\n", good[i]);
		CHECK_EQ_I(rc, ROCE_OK);
	}
	for (size_t i = 0; i < sizeof(badv) / sizeof(badv[0]); i++) {
		int rc = roce_rewrite_parse_ipmap(badv[i], ROCE_RW_MAP_SRC, &m);

		if (rc == ROCE_OK)
			fprintf(stderr, "  accepted bad map '%s'\n", badv[i]);
		CHECK_EQ_I(rc, ROCE_E_INVAL);
	}
	CHECK_EQ_I(roce_rewrite_parse_ipmap("10.1.2.3/8:11.0.0.0", 3, &m), ROCE_OK);
	CHECK_EQ_U(m.plen, 104);
	CHECK_EQ_U(m.from[12], 10);
	CHECK_EQ_U(m.from[13], 0);     /* host bits cleared */
	CHECK_EQ_U(m.which, 3);
	CHECK_EQ_I(roce_rewrite_parse_ipmap("10.0.0.1:10.0.0.2", 0, &m), ROCE_E_INVAL);
}

int main(void)
{
	for (size_t i = 0; i < sizeof(payload); i++)
		payload[i] = (uint8_t)(i * 7 + 1);
	RUN(test_noop);
	RUN(test_macs);
	RUN(test_vlan);
	RUN(test_strip_pads_to_60);
	RUN(test_dscp_ecn);
	RUN(test_ipmap_v4);
	RUN(test_ipmap_v6);
	RUN(test_transport);
	RUN(test_bad_icrc_kept);
	RUN(test_bad_ip_csum_kept);
	RUN(test_udp_csum);
	RUN(test_not_roce_and_cut);
	RUN(test_nospace);
	RUN(test_prefix_sweep);
	RUN(test_parse);
	return check_report();
}
