/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_decode.c - roce_decode(): every header and opcode (round trip through
 * roce_build), v1 / v2-IPv4 (with options) / v2-IPv6, VLAN and QinQ, SLL,
 * SLL2, raw IP, port rules, padding/FCS, snaplen cuts, every finding,
 * PFC/PAUSE, and the text helpers.
 */
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include <roce/buf.h>
#include <roce/build.h>
#include <roce/icrc.h>
#include <roce/pkt.h>

#include "check.h"
#include "roce_vectors.h"

static uint8_t frame[4096];

static size_t load(size_t i)
{
	return check_hex(roce_test_vectors[i].hex, frame, sizeof(frame));
}

static int dec(const uint8_t *f, size_t n, struct roce_pkt *p)
{
	return roce_decode(ROCE_LINKTYPE_ETHERNET, f, n, n, NULL, p);
}

static size_t build(const struct roce_frame_spec *s, uint8_t *buf, size_t cap)
{
	size_t len = 0;

	CHECK_EQ_I(roce_build(s, buf, cap, &len), ROCE_OK);
	return len;
}

static void fix_ip_csum(uint8_t *ip, size_t ihl)
{
	uint32_t sum = 0;

	ip[10] = ip[11] = 0;
	for (size_t i = 0; i < ihl; i += 2)
		sum += (uint32_t)ip[i] << 8 | ip[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	ip[10] = (uint8_t)(~sum >> 8);
	ip[11] = (uint8_t)~sum;
}

/* ---------------------------------------------------------------- */

static void test_vector_fields(void)
{
	struct roce_pkt p;
	char a[64];
	size_t n;

	/* V1: IPv4 RC SEND_ONLY */
	n = load(0);
	CHECK_EQ_I(dec(frame, n, &p), ROCE_OK);
	CHECK_EQ_U(p.version, 2);
	CHECK_EQ_U(p.ip_version, 4);
	CHECK_EQ_U(p.ethertype, 0x0800);
	CHECK_EQ_U(p.tclass, 0x6a);
	CHECK_EQ_U(p.ecn, 2);
	CHECK_EQ_U(p.ttl, 64);
	CHECK_EQ_U(p.ip_id, 0x1234);
	CHECK_EQ_U(p.sport, 0xc000);
	CHECK_EQ_U(p.dport, 4791);
	CHECK_EQ_U(p.l3_off, 14);
	CHECK_EQ_U(p.l3_hdr_len, 20);
	CHECK_EQ_U(p.udp_off, 34);
	CHECK_EQ_U(p.bth_off, 42);
	CHECK_EQ_U(p.ext_off, 54);
	CHECK_EQ_U(p.payload_off, 54);
	CHECK_EQ_U(p.payload_len, 16);
	CHECK_EQ_U(p.roce_end, 74);
	CHECK_EQ_U(p.bth.opcode, 0x04);
	CHECK_EQ_U(p.bth.migreq, 1);
	CHECK_EQ_U(p.bth.ackreq, 1);
	CHECK_EQ_U(p.bth.dqpn, 0x12);
	CHECK_EQ_U(p.bth.psn, 0x100);
	CHECK_EQ_U(p.bth.pkey, 0xffff);
	CHECK(p.op == &roce_opcodes[0x04]);
	CHECK(memcmp(p.payload_off + frame, "RoCE test vec 01", 16) == 0);
	roce_addr_str(p.src, a, sizeof(a));
	CHECK_STR(a, "192.168.1.1");
	roce_addr_str(p.dst, a, sizeof(a));
	CHECK_STR(a, "192.168.1.2");
	roce_mac_str(p.src_mac, a, sizeof(a));
	CHECK_STR(a, "02:00:00:00:00:01");
	roce_mac_str(p.dst_mac, a, sizeof(a));
	CHECK_STR(a, "02:00:00:00:00:02");

	/* V2: VLAN, CE, FECN, RETH, pad 3 */
	n = load(1);
	CHECK_EQ_I(dec(frame, n, &p), ROCE_OK);
	CHECK_EQ_U(p.vlan_count, 1);
	CHECK_EQ_U(p.vlan_id, 100);
	CHECK_EQ_U(p.pcp, 3);
	CHECK_EQ_U(p.ecn, 3);
	CHECK_EQ_U(p.ttl, 63);
	CHECK_EQ_U(p.bth.fecn, 1);
	CHECK_EQ_U(p.bth.padcnt, 3);
	CHECK_EQ_U(p.hdrs, ROCE_H_RETH | ROCE_H_PAYLOAD);
	CHECK_EQ_U(p.reth.va, 0x7f0000001000ull);
	CHECK_EQ_U(p.reth.rkey, 0x1234abcd);
	CHECK_EQ_U(p.reth.dma_len, 13);
	CHECK_EQ_U(p.payload_len, 13);

	/* V3: ACK, credit code 31 */
	n = load(2);
	CHECK_EQ_I(dec(frame, n, &p), ROCE_OK);
	CHECK_EQ_U(p.aeth.syndrome, 0x1f);
	CHECK_EQ_U(p.aeth.msn, 5);
	CHECK_EQ_U(roce_aeth_type(p.aeth.syndrome), ROCE_AETH_ACK);
	CHECK_STR(roce_aeth_syndrome_text(p.aeth.syndrome), "ACK");
	CHECK_EQ_I(roce_aeth_credits(p.aeth.syndrome & 0x1f), -1);
	CHECK_EQ_U(p.payload_len, 0);

	/* V4: CNP */
	n = load(3);
	CHECK_EQ_I(dec(frame, n, &p), ROCE_OK);
	CHECK_EQ_U(p.bth.opcode, ROCE_OP_CNP);
	CHECK_EQ_U(p.bth.becn, 1);
	CHECK_EQ_U(p.hdrs, ROCE_H_CNP);
	CHECK_EQ_U(p.tclass >> 2, 48);
	CHECK_EQ_U(p.findings, 0);

	/* V5: IPv6 */
	n = load(4);
	CHECK_EQ_I(dec(frame, n, &p), ROCE_OK);
	CHECK_EQ_U(p.ip_version, 6);
	CHECK_EQ_U(p.tclass, 0x68);
	CHECK_EQ_U(p.flow_label, 0x12345);
	CHECK_EQ_U(p.ttl, 64);
	CHECK_EQ_U(p.bth.dqpn, 0x34);
	CHECK_EQ_U(p.bth.psn, 0xabcd);
	CHECK_EQ_U(p.l3_hdr_len, 40);
	roce_addr_str(p.src, a, sizeof(a));
	CHECK_STR(a, "fd00::1");
	roce_addr_str(p.dst, a, sizeof(a));
	CHECK_STR(a, "fd00::2");

	/* V6: RoCE v1 */
	n = load(5);
	CHECK_EQ_I(dec(frame, n, &p), ROCE_OK);
	CHECK_EQ_U(p.version, 1);
	CHECK_EQ_U(p.ip_version, 0);
	CHECK_EQ_U(p.ethertype, 0x8915);
	CHECK_EQ_U(p.udp_off, 0);
	CHECK_EQ_U(p.bth_off, 54);
	CHECK_EQ_U(p.bth.dqpn, 0x56);
	CHECK_EQ_U(p.bth.psn, 1);
	CHECK_EQ_U(p.payload_len, 16);
	roce_addr_str(p.src, a, sizeof(a));
	CHECK_STR(a, "fe80::1");

	/* V7: NAK PSN sequence error */
	n = load(6);
	CHECK_EQ_I(dec(frame, n, &p), ROCE_OK);
	CHECK_EQ_U(p.aeth.syndrome, 0x60);
	CHECK_EQ_U(p.aeth.msn, 7);
	CHECK_EQ_U(p.bth.psn, 0x105);
	CHECK_EQ_U(roce_aeth_type(p.aeth.syndrome), ROCE_AETH_NAK);
	CHECK_STR(roce_aeth_syndrome_text(p.aeth.syndrome), "NAK PSN sequence error");

	/* V8: READ REQUEST */
	n = load(7);
	CHECK_EQ_I(dec(frame, n, &p), ROCE_OK);
	CHECK_EQ_U(p.reth.dma_len, 4096);
	CHECK_EQ_U(p.reth.rkey, 0xbeef);
	CHECK_EQ_U(p.bth.psn, 0x200);
	CHECK(p.op->flags & ROCE_F_READ);

	/* V9: READ RESPONSE ONLY at PSN 0xFFFFFF */
	n = load(8);
	CHECK_EQ_I(dec(frame, n, &p), ROCE_OK);
	CHECK_EQ_U(p.bth.psn, 0xffffff);
	CHECK_EQ_U(p.aeth.msn, 9);
	CHECK_EQ_U(p.payload_len, 8);
	CHECK(memcmp(frame + p.payload_off, "READDATA", 8) == 0);
}

static void test_aeth_helpers(void)
{
	CHECK_STR(roce_aeth_syndrome_text(0x00), "ACK");
	CHECK_STR(roce_aeth_syndrome_text(0x2e), "RNR NAK");
	CHECK_EQ_U(roce_aeth_type(0x2e), ROCE_AETH_RNR_NAK);
	CHECK_STR(roce_aeth_syndrome_text(0x61), "NAK invalid request");
	CHECK_STR(roce_aeth_syndrome_text(0x62), "NAK remote access error");
	CHECK_STR(roce_aeth_syndrome_text(0x63), "NAK remote operational error");
	CHECK_STR(roce_aeth_syndrome_text(0x64), "NAK invalid RD request");
	CHECK_STR(roce_aeth_syndrome_text(0x65), "NAK reserved");
	CHECK_STR(roce_aeth_syndrome_text(0x40), "reserved");
	CHECK_STR(roce_aeth_syndrome_text(0x80), "reserved");
	CHECK_EQ_U(roce_rnr_timer_us(0), 655360);
	CHECK_EQ_U(roce_rnr_timer_us(1), 10);
	CHECK_EQ_U(roce_rnr_timer_us(14), 1280);
	CHECK_EQ_U(roce_rnr_timer_us(31), 491520);
	CHECK_EQ_U(roce_rnr_timer_us(32), 0);
	CHECK_EQ_I(roce_aeth_credits(0), 0);
	CHECK_EQ_I(roce_aeth_credits(5), 6);
	CHECK_EQ_I(roce_aeth_credits(30), 32768);
	CHECK_EQ_I(roce_aeth_credits(31), -1);
	CHECK_EQ_I(roce_aeth_credits(99), -1);
}

static void test_rnr_nak_frame(void)
{
	struct roce_frame_spec s;
	struct roce_pkt p;
	uint8_t buf[256];
	size_t n;

	roce_frame_spec_init(&s);
	s.bth.opcode = ROCE_OP_RC_ACKNOWLEDGE;
	s.aeth.syndrome = 0x20 | 14;
	s.aeth.msn = 0xabcdef;
	n = build(&s, buf, sizeof(buf));
	CHECK_EQ_I(dec(buf, n, &p), ROCE_OK);
	CHECK_EQ_U(roce_aeth_type(p.aeth.syndrome), ROCE_AETH_RNR_NAK);
	CHECK_EQ_U(roce_rnr_timer_us(p.aeth.syndrome & 0x1f), 1280);
	CHECK_EQ_U(p.aeth.msn, 0xabcdef);
}

/* Every opcode: decoded fields == spec, for v1, v2/IPv4, v2/IPv6. */
static void fill_spec(struct roce_frame_spec *s, unsigned opcode, unsigned variant)
{
	static const uint8_t payload[41] = "the quick brown fox jumps over a lazy dog";

	roce_frame_spec_init(s);
	s->version = variant == 0 ? 1 : 2;
	s->ip_version = variant == 2 ? 6 : 4;
	if (variant == 2) {
		memset(s->src, 0x11, 16);
		memset(s->dst, 0x22, 16);
		s->flow_label = 0xfedcb;
	}
	s->tclass = 0x69;
	s->ttl = 17;
	s->bth.opcode = (uint8_t)opcode;
	s->bth.se = 1;
	s->bth.migreq = 1;
	s->bth.pkey = 0x7fff;
	s->bth.fecn = 1;
	s->bth.dqpn = 0x00c0de;
	s->bth.ackreq = 1;
	s->bth.psn = 0x123456 + opcode;
	if (roce_opcodes[opcode].flags & ROCE_F_CNP) {
		s->bth.becn = 1;
		s->bth.psn = 0;
	}
	s->rdeth_eec = 0xeec001 + opcode;
	s->deth.qkey = 0x80010000u + opcode;
	s->deth.src_qp = 0x0a0b0c;
	s->xrc_srq = 0x5a5a5a;
	s->feth = 0x00000102;
	s->reth.va = 0x8000000000001000ull + opcode;
	s->reth.rkey = 0xcafe0000u + opcode;
	s->reth.dma_len = 0x10000;
	s->atomic.va = 0x4000000000002000ull;
	s->atomic.rkey = 0x11112222;
	s->atomic.swap_add = 0x1;
	s->atomic.compare = 0xffffffffffffffffull;
	s->aeth.syndrome = 0x03;
	s->aeth.msn = 0x000100 + opcode;
	s->atomic_ack = 0x0102030405060708ull;
	s->immdt = 0xa5a5a5a5;
	s->ieth_rkey = 0x5a5a5a5a;
	if (roce_opcodes[opcode].hdrs & ROCE_H_PAYLOAD) {
		s->payload = payload;
		s->payload_len = (roce_opcodes[opcode].flags & ROCE_F_LAST) ?
			41 - (opcode & 3) : 40;
	}
}

static void check_fields(const struct roce_frame_spec *s, const struct roce_pkt *p)
{
	uint32_t h = roce_opcodes[s->bth.opcode].hdrs;

	CHECK_EQ_U(p->kind, ROCE_KIND_ROCE);
	CHECK_EQ_U(p->version, s->version);
	CHECK_EQ_U(p->ip_version, s->version == 1 ? 0 : s->ip_version);
	CHECK(memcmp(p->src, s->src, 16) == 0);
	CHECK(memcmp(p->dst, s->dst, 16) == 0);
	CHECK_EQ_U(p->tclass, s->tclass);
	CHECK_EQ_U(p->ttl, s->ttl);
	if (s->version == 1 || s->ip_version == 6)
		CHECK_EQ_U(p->flow_label, s->flow_label);
	CHECK_EQ_U(p->bth.opcode, s->bth.opcode);
	CHECK_EQ_U(p->bth.se, s->bth.se);
	CHECK_EQ_U(p->bth.migreq, s->bth.migreq);
	CHECK_EQ_U(p->bth.pkey, s->bth.pkey);
	CHECK_EQ_U(p->bth.fecn, s->bth.fecn);
	CHECK_EQ_U(p->bth.becn, s->bth.becn);
	CHECK_EQ_U(p->bth.dqpn, s->bth.dqpn);
	CHECK_EQ_U(p->bth.ackreq, s->bth.ackreq);
	CHECK_EQ_U(p->bth.psn, s->bth.psn);
	CHECK_EQ_U(p->bth.tver, 0);
	CHECK_EQ_U(p->hdrs, h);
	if (h & ROCE_H_RDETH)
		CHECK_EQ_U(p->rdeth_eec, s->rdeth_eec);
	if (h & ROCE_H_DETH) {
		CHECK_EQ_U(p->deth.qkey, s->deth.qkey);
		CHECK_EQ_U(p->deth.src_qp, s->deth.src_qp);
	}
	if (h & ROCE_H_XRCETH)
		CHECK_EQ_U(p->xrc_srq, s->xrc_srq);
	if (h & ROCE_H_FETH)
		CHECK_EQ_U(p->feth, s->feth);
	if (h & ROCE_H_RETH) {
		CHECK_EQ_U(p->reth.va, s->reth.va);
		CHECK_EQ_U(p->reth.rkey, s->reth.rkey);
		CHECK_EQ_U(p->reth.dma_len, s->reth.dma_len);
	}
	if (h & ROCE_H_ATOMICETH) {
		CHECK_EQ_U(p->atomic.va, s->atomic.va);
		CHECK_EQ_U(p->atomic.rkey, s->atomic.rkey);
		CHECK_EQ_U(p->atomic.swap_add, s->atomic.swap_add);
		CHECK_EQ_U(p->atomic.compare, s->atomic.compare);
	}
	if (h & ROCE_H_AETH) {
		CHECK_EQ_U(p->aeth.syndrome, s->aeth.syndrome);
		CHECK_EQ_U(p->aeth.msn, s->aeth.msn);
	}
	if (h & ROCE_H_ATOMICACKETH)
		CHECK_EQ_U(p->atomic_ack, s->atomic_ack);
	if (h & ROCE_H_IMMDT)
		CHECK_EQ_U(p->immdt, s->immdt);
	if (h & ROCE_H_IETH)
		CHECK_EQ_U(p->ieth_rkey, s->ieth_rkey);
	CHECK_EQ_U(p->ext_off, p->bth_off + 12);
	CHECK_EQ_U(p->payload_off, p->ext_off + roce_opcodes[s->bth.opcode].hdr_len);
	CHECK_EQ_U(p->payload_len, s->payload_len);
	CHECK_EQ_U(p->bth.padcnt, (-s->payload_len) & 3);
	CHECK_EQ_U(p->icrc_off, p->payload_off + s->payload_len + p->bth.padcnt);
	CHECK_EQ_U(p->roce_end, p->icrc_off + 4);
	CHECK_EQ_U(p->icrc_status, ROCE_ICRC_OK);
	CHECK_EQ_U(p->findings, 0);
}

static void test_every_opcode_roundtrip(void)
{
	unsigned count = 0, defined = 0;

	for (unsigned op = 0; op < 256; op++) {
		if (!roce_opcodes[op].name)
			continue;
		defined++;
		for (unsigned v = 0; v < 3; v++) {
			struct roce_frame_spec s;
			struct roce_pkt p;
			uint8_t buf[512];
			size_t n;

			fill_spec(&s, op, v);
			n = build(&s, buf, sizeof(buf));
			CHECK_EQ_I(dec(buf, n, &p), ROCE_OK);
			check_fields(&s, &p);
			if (check_cur_failed_) {
				fprintf(stderr, "  opcode 0x%02x (%s) variant %u\n", op,
					roce_opcode_name((uint8_t)op), v);
				return;
			}
			count++;
		}
	}
	CHECK_EQ_U(count, 3 * defined);
	CHECK(defined > 80);
}

/* IPv4 with 8 bytes of options: ICRC covers them (checked with plain zlib). */
static void test_ipv4_options(void)
{
	uint8_t f[256], m[256];
	struct roce_pkt p;
	size_t n = load(0), ml = 0;
	uint32_t crc;

	/* insert options after the 20-byte IP header at 14 */
	memcpy(f, frame, 34);
	memcpy(f + 34, "\x94\x04\x00\x00\x01\x01\x01\x00", 8);     /* router alert, NOP, NOP, NOP, EOL */
	memcpy(f + 42, frame + 34, n - 34);
	n += 8;
	f[14] = 0x47;
	roce_put_be16(f + 16, (uint16_t)(roce_get_be16(f + 16) + 8));
	fix_ip_csum(f + 14, 28);
	/* independent ICRC: 8 x ff | masked IP | masked UDP | masked BTH | rest */
	memset(m, 0xff, 8);
	ml = 8;
	memcpy(m + ml, f + 14, n - 4 - 14);
	m[ml + 1] = 0xff;
	m[ml + 8] = 0xff;
	m[ml + 10] = m[ml + 11] = 0xff;
	m[ml + 28 + 6] = m[ml + 28 + 7] = 0xff;
	m[ml + 36 + 4] = 0xff;
	ml += n - 4 - 14;
	crc = (uint32_t)crc32(0, m, (uInt)ml);
	roce_put_le32(f + n - 4, crc);

	CHECK_EQ_I(dec(f, n, &p), ROCE_OK);
	CHECK_EQ_U(p.l3_hdr_len, 28);
	CHECK_EQ_U(p.udp_off, 42);
	CHECK_EQ_U(p.bth_off, 50);
	CHECK_EQ_U(p.payload_len, 16);
	CHECK_EQ_U(p.icrc_status, ROCE_ICRC_OK);
	CHECK_EQ_U(p.icrc_computed, crc);
	CHECK_EQ_U(p.findings, 0);
	/* options byte is covered */
	f[36] ^= 1;
	fix_ip_csum(f + 14, 28);
	CHECK_EQ_I(dec(f, n, &p), ROCE_OK);
	CHECK_EQ_U(p.icrc_status, ROCE_ICRC_BAD);
	/* IHL < 5: not RoCE */
	f[14] = 0x44;
	CHECK_EQ_I(dec(f, n, &p), ROCE_E_NOT_ROCE);
	CHECK_EQ_U(p.kind, ROCE_KIND_NONE);
}

static void test_vlans(void)
{
	struct roce_frame_spec s;
	struct roce_pkt p;
	uint8_t buf[256], big[256];
	size_t n;

	roce_frame_spec_init(&s);
	s.vlan_count = 2;
	s.vlan_tpid[0] = 0x88a8;
	s.vlan_id[0] = 10;
	s.vlan_pcp[0] = 5;
	s.vlan_id[1] = 200;
	s.vlan_pcp[1] = 1;
	s.payload_len = 8;
	n = build(&s, buf, sizeof(buf));
	CHECK_EQ_U(roce_get_be16(buf + 12), 0x88a8);
	CHECK_EQ_U(roce_get_be16(buf + 16), 0x8100);
	CHECK_EQ_I(dec(buf, n, &p), ROCE_OK);
	CHECK_EQ_U(p.vlan_count, 2);
	CHECK_EQ_U(p.vlan_id, 10);
	CHECK_EQ_U(p.pcp, 5);
	CHECK_EQ_U(p.l3_off, 22);
	CHECK_EQ_U(p.icrc_status, ROCE_ICRC_OK);

	/* 4 tags (0x9100 outer) is the maximum; a 5th is refused */
	memcpy(big, buf, 12);
	roce_put_be16(big + 12, 0x9100);
	roce_put_be16(big + 14, 0x0001);
	roce_put_be16(big + 16, 0x88a8);
	roce_put_be16(big + 18, 0x0002);
	memcpy(big + 20, buf + 12, n - 12);
	CHECK_EQ_I(dec(big, n + 8, &p), ROCE_OK);
	CHECK_EQ_U(p.vlan_count, 4);
	CHECK_EQ_U(p.vlan_id, 1);
	CHECK_EQ_U(p.icrc_status, ROCE_ICRC_OK);
	memmove(big + 16, big + 12, n + 8 - 12);
	roce_put_be16(big + 12, 0x8100);
	roce_put_be16(big + 14, 0x0003);
	CHECK_EQ_I(dec(big, n + 12, &p), ROCE_E_NOT_ROCE);
	/* tag cut by the capture */
	CHECK_EQ_I(dec(buf, 15, &p), ROCE_E_NOT_ROCE);
}

/* Re-frame an Ethernet frame (untagged) as SLL / SLL2 / raw IP. */
static void test_cooked_and_raw(void)
{
	struct roce_pkt p;
	uint8_t f[256];
	size_t n = load(0), m;

	/* SLL: pkttype(2) arphrd(2) addr_len(2) addr(8) protocol(2) */
	memset(f, 0, 16);
	roce_put_be16(f + 0, 0);
	roce_put_be16(f + 2, 1);
	roce_put_be16(f + 4, 6);
	memcpy(f + 6, frame + 6, 6);
	roce_put_be16(f + 14, 0x0800);
	memcpy(f + 16, frame + 14, n - 14);
	m = n - 14 + 16;
	CHECK_EQ_I(roce_decode(ROCE_LINKTYPE_LINUX_SLL, f, m, m, NULL, &p), ROCE_OK);
	CHECK(p.dst_mac == NULL);
	CHECK(p.src_mac == f + 6);
	CHECK_EQ_U(p.l3_off, 16);
	CHECK_EQ_U(p.icrc_status, ROCE_ICRC_OK);
	CHECK_EQ_U(p.bth.psn, 0x100);
	roce_put_be16(f + 4, 0);        /* no link-layer address */
	CHECK_EQ_I(roce_decode(ROCE_LINKTYPE_LINUX_SLL, f, m, m, NULL, &p), ROCE_OK);
	CHECK(p.src_mac == NULL);

	/* SLL2: protocol(2) resv(2) ifindex(4) arphrd(2) pkttype(1) addr_len(1) addr(8) */
	memset(f, 0, 20);
	roce_put_be16(f + 0, 0x0800);
	roce_put_be32(f + 4, 3);
	roce_put_be16(f + 8, 1);
	f[11] = 6;
	memcpy(f + 12, frame + 6, 6);
	memcpy(f + 20, frame + 14, n - 14);
	m = n - 14 + 20;
	CHECK_EQ_I(roce_decode(ROCE_LINKTYPE_LINUX_SLL2, f, m, m, NULL, &p), ROCE_OK);
	CHECK(p.src_mac == f + 12);
	CHECK(p.dst_mac == NULL);
	CHECK_EQ_U(p.l3_off, 20);
	CHECK_EQ_U(p.icrc_status, ROCE_ICRC_OK);

	/* raw IPv4 (101 and 228) */
	m = n - 14;
	CHECK_EQ_I(roce_decode(ROCE_LINKTYPE_RAW, frame + 14, m, m, NULL, &p), ROCE_OK);
	CHECK(p.src_mac == NULL && p.dst_mac == NULL);
	CHECK_EQ_U(p.icrc_status, ROCE_ICRC_OK);
	CHECK_EQ_I(roce_decode(ROCE_LINKTYPE_IPV4, frame + 14, m, m, NULL, &p), ROCE_OK);
	CHECK_EQ_U(p.icrc_status, ROCE_ICRC_OK);
	/* raw IPv6 (101 and 229) */
	n = load(4);
	m = n - 14;
	CHECK_EQ_I(roce_decode(ROCE_LINKTYPE_RAW, frame + 14, m, m, NULL, &p), ROCE_OK);
	CHECK_EQ_U(p.ip_version, 6);
	CHECK_EQ_U(p.icrc_status, ROCE_ICRC_OK);
	CHECK_EQ_I(roce_decode(ROCE_LINKTYPE_IPV6, frame + 14, m, m, NULL, &p), ROCE_OK);
	CHECK_EQ_U(p.icrc_status, ROCE_ICRC_OK);
	/* 229 with IPv4 bytes, raw with a bad version */
	n = load(0);
	CHECK_EQ_I(roce_decode(ROCE_LINKTYPE_IPV6, frame + 14, n - 14, n - 14, NULL, &p),
		ROCE_E_NOT_ROCE);
	frame[14] = 0x55;
	CHECK_EQ_I(roce_decode(ROCE_LINKTYPE_RAW, frame + 14, n - 14, n - 14, NULL, &p),
		ROCE_E_NOT_ROCE);
}

static void test_ports(void)
{
	struct roce_frame_spec s;
	struct roce_decode_opts o;
	struct roce_pkt p;
	uint8_t buf[256];
	size_t n;

	roce_frame_spec_init(&s);
	s.sport = 69;           /* TFTP source port must not hide RoCE */
	n = build(&s, buf, sizeof(buf));
	CHECK_EQ_I(dec(buf, n, &p), ROCE_OK);
	CHECK_EQ_U(p.sport, 69);
	CHECK_EQ_U(p.icrc_status, ROCE_ICRC_OK);

	s.sport = 4791;
	s.dport = 69;           /* 4791 as source only: not RoCE */
	n = build(&s, buf, sizeof(buf));
	CHECK_EQ_I(dec(buf, n, &p), ROCE_E_NOT_ROCE);
	CHECK_EQ_U(p.kind, ROCE_KIND_NONE);
	CHECK_EQ_U(p.version, 0);

	/* a custom port list */
	s.sport = 1234;
	s.dport = 5000;
	n = build(&s, buf, sizeof(buf));
	roce_decode_opts_init(&o);
	CHECK_EQ_U(o.udp_ports[0], 4791);
	CHECK(o.verify_icrc && o.verify_ip_csum);
	CHECK_EQ_I(roce_decode(ROCE_LINKTYPE_ETHERNET, buf, n, n, &o, &p), ROCE_E_NOT_ROCE);
	o.udp_ports[1] = 5000;
	CHECK_EQ_I(roce_decode(ROCE_LINKTYPE_ETHERNET, buf, n, n, &o, &p), ROCE_OK);
	CHECK_EQ_U(p.icrc_status, ROCE_ICRC_OK);
	o.udp_ports[0] = 0;     /* 0 ends the list */
	CHECK_EQ_I(roce_decode(ROCE_LINKTYPE_ETHERNET, buf, n, n, &o, &p), ROCE_E_NOT_ROCE);

	/* not UDP, not IP */
	n = load(0);
	frame[23] = 6;
	CHECK_EQ_I(dec(frame, n, &p), ROCE_E_NOT_ROCE);
	n = load(0);
	roce_put_be16(frame + 12, 0x0806);
	CHECK_EQ_I(dec(frame, n, &p), ROCE_E_NOT_ROCE);
}

static void test_padding_fcs_snaplen(void)
{
	struct roce_pkt p;
	size_t n = load(2);     /* V3: 62 bytes, no padding */

	/* 60-byte minimum is irrelevant here; add 2 pad bytes and an FCS */
	memset(frame + n, 0, 6);
	CHECK_EQ_I(dec(frame, n + 6, &p), ROCE_OK);
	CHECK_EQ_U(p.icrc_off, n - 4);
	CHECK_EQ_U(p.icrc_status, ROCE_ICRC_OK);

	/* snaplen cut after the headers: OK, UNVERIFIED, not truncated */
	n = load(0);
	for (size_t cap = 54; cap < n; cap++) {
		CHECK_EQ_I(roce_decode(ROCE_LINKTYPE_ETHERNET, frame, cap, n, NULL, &p), ROCE_OK);
		CHECK_EQ_U(p.icrc_status, ROCE_ICRC_UNVERIFIED);
		CHECK_EQ_U(p.findings, 0);
		CHECK_EQ_U(p.payload_len, 16);
	}
	/* cut inside the BTH: TRUNC, kind/version/addresses valid */
	CHECK_EQ_I(roce_decode(ROCE_LINKTYPE_ETHERNET, frame, 50, n, NULL, &p), ROCE_E_TRUNC);
	CHECK_EQ_U(p.kind, ROCE_KIND_ROCE);
	CHECK_EQ_U(p.version, 2);
	CHECK_EQ_U(p.findings, ROCE_FIND_TRUNCATED);
	CHECK_EQ_U(p.dst[15], 2);
	CHECK_EQ_U(p.dport, 4791);
	/* cut inside the RETH of V2 */
	n = load(1);
	CHECK_EQ_I(roce_decode(ROCE_LINKTYPE_ETHERNET, frame, 60, n, NULL, &p), ROCE_E_TRUNC);
	CHECK_EQ_U(p.bth.opcode, 0x0a);
	CHECK(p.findings & ROCE_FIND_TRUNCATED);
	CHECK_EQ_U(p.hdrs, 0);
	/* v1 cut inside the GRH */
	n = load(5);
	CHECK_EQ_I(roce_decode(ROCE_LINKTYPE_ETHERNET, frame, 30, n, NULL, &p), ROCE_E_TRUNC);
	CHECK_EQ_U(p.kind, ROCE_KIND_ROCE);
	CHECK_EQ_U(p.version, 1);
}

static void test_finding_bad_tver(void)
{
	struct roce_frame_spec s;
	struct roce_pkt p;
	uint8_t buf[256];
	size_t n;

	roce_frame_spec_init(&s);
	s.bth.tver = 1;
	n = build(&s, buf, sizeof(buf));
	CHECK_EQ_I(dec(buf, n, &p), ROCE_OK);
	CHECK_EQ_U(p.findings, ROCE_FIND_BAD_TVER);
	CHECK_EQ_U(p.bth.tver, 1);
	CHECK_EQ_U(p.icrc_status, ROCE_ICRC_OK);
}

static void test_finding_bad_pad(void)
{
	struct roce_frame_spec s;
	struct roce_pkt p;
	uint8_t buf[256];
	size_t n;

	/* pad on a FIRST packet */
	roce_frame_spec_init(&s);
	s.bth.opcode = ROCE_OP_RC_SEND_FIRST;
	s.payload_len = 32;
	s.keep_padcnt = true;
	s.bth.padcnt = 2;
	n = build(&s, buf, sizeof(buf));
	CHECK_EQ_I(dec(buf, n, &p), ROCE_OK);
	CHECK_EQ_U(p.findings, ROCE_FIND_BAD_PAD);
	CHECK_EQ_U(p.icrc_status, ROCE_ICRC_OK);
	/* MIDDLE */
	s.bth.opcode = ROCE_OP_RC_RDMA_WRITE_MIDDLE;
	n = build(&s, buf, sizeof(buf));
	CHECK_EQ_I(dec(buf, n, &p), ROCE_OK);
	CHECK_EQ_U(p.findings, ROCE_FIND_BAD_PAD);
	/* LAST with pad is fine */
	s.bth.opcode = ROCE_OP_RC_SEND_LAST;
	n = build(&s, buf, sizeof(buf));
	CHECK_EQ_I(dec(buf, n, &p), ROCE_OK);
	CHECK_EQ_U(p.findings, 0);
	/* pad on an opcode without payload */
	s.bth.opcode = ROCE_OP_RC_ACKNOWLEDGE;
	s.payload_len = 0;
	s.bth.padcnt = 0;
	n = build(&s, buf, sizeof(buf));
	buf[42 + 1] |= 0x10;        /* padcnt 1 */
	CHECK_EQ_I(dec(buf, n, &p), ROCE_OK);
	CHECK(p.findings & ROCE_FIND_BAD_PAD);
	/* pad larger than payload + pad */
	roce_frame_spec_init(&s);
	s.payload_len = 0;
	n = build(&s, buf, sizeof(buf));
	buf[42 + 1] |= 0x30;        /* padcnt 3, but nothing between BTH and ICRC */
	CHECK_EQ_I(dec(buf, n, &p), ROCE_OK);
	CHECK(p.findings & ROCE_FIND_BAD_PAD);
	CHECK_EQ_U(p.payload_len, 0);
}

static void test_finding_unknown_opcode(void)
{
	struct roce_frame_spec s;
	struct roce_pkt p;
	uint8_t buf[256];
	size_t n;

	roce_frame_spec_init(&s);
	s.bth.opcode = 0x15;
	s.payload_len = 8;
	n = build(&s, buf, sizeof(buf));
	CHECK_EQ_I(dec(buf, n, &p), ROCE_OK);
	CHECK_EQ_U(p.findings, ROCE_FIND_UNKNOWN_OPCODE);
	CHECK(p.op != NULL && p.op->name == NULL);
	CHECK_STR(roce_opcode_name(p.bth.opcode), "UNKNOWN");
	CHECK_EQ_U(p.hdrs, 0);
	CHECK_EQ_U(p.icrc_status, ROCE_ICRC_OK);    /* extent known from UDP */
	s.bth.opcode = 0xe0;
	n = build(&s, buf, sizeof(buf));
	CHECK_EQ_I(dec(buf, n, &p), ROCE_OK);
	CHECK_EQ_U(p.findings, ROCE_FIND_UNKNOWN_OPCODE);
}

static void test_finding_bad_ip_csum(void)
{
	struct roce_decode_opts o;
	struct roce_pkt p;
	size_t n = load(0);

	frame[24] ^= 0x10;
	CHECK_EQ_I(dec(frame, n, &p), ROCE_OK);
	CHECK_EQ_U(p.findings, ROCE_FIND_BAD_IP_CSUM);
	CHECK_EQ_U(p.icrc_status, ROCE_ICRC_OK);    /* checksum is masked */
	roce_decode_opts_init(&o);
	o.verify_ip_csum = false;
	CHECK_EQ_I(roce_decode(ROCE_LINKTYPE_ETHERNET, frame, n, n, &o, &p), ROCE_OK);
	CHECK_EQ_U(p.findings, 0);
}

static void test_finding_bad_length(void)
{
	struct roce_pkt p;
	size_t n;

	/* IPv4 total length beyond the wire */
	n = load(0);
	roce_put_be16(frame + 16, 0x003c + 8);
	roce_put_be16(frame + 38, 0x0028 + 8);
	CHECK_EQ_I(dec(frame, n, &p), ROCE_E_MALFORMED);
	CHECK(p.findings & ROCE_FIND_BAD_LENGTH);
	CHECK_EQ_U(p.kind, ROCE_KIND_ROCE);
	CHECK_EQ_U(p.icrc_status, ROCE_ICRC_UNVERIFIED);
	/* UDP length disagrees with IP */
	n = load(0);
	roce_put_be16(frame + 38, 0x0028 - 4);
	CHECK_EQ_I(dec(frame, n, &p), ROCE_E_MALFORMED);
	CHECK(p.findings & ROCE_FIND_BAD_LENGTH);
	CHECK_EQ_U(p.roce_end, 70);                 /* the smaller one */
	n = load(0);
	roce_put_be16(frame + 38, 3);
	CHECK_EQ_I(dec(frame, n, &p), ROCE_E_MALFORMED);
	CHECK(p.findings & ROCE_FIND_BAD_LENGTH);
	/* too short for the opcode's headers: READ REQUEST with RETH cut by the length */
	n = load(7);
	roce_put_be16(frame + 16, 0x003c - 12);
	roce_put_be16(frame + 38, 0x0028 - 12);
	CHECK_EQ_I(dec(frame, n, &p), ROCE_E_MALFORMED);
	CHECK(p.findings & ROCE_FIND_BAD_LENGTH);
	CHECK_EQ_U(p.bth.opcode, 0x0c);
	/* IP total length smaller than IP + UDP */
	n = load(0);
	roce_put_be16(frame + 16, 24);
	CHECK_EQ_I(dec(frame, n, &p), ROCE_E_MALFORMED);
	CHECK(p.findings & ROCE_FIND_BAD_LENGTH);
	/* IPv6 payload length beyond the wire */
	n = load(4);
	roce_put_be16(frame + 18, 0x0100);
	CHECK_EQ_I(dec(frame, n, &p), ROCE_E_MALFORMED);
	CHECK(p.findings & ROCE_FIND_BAD_LENGTH);
	/* GRH PayLen beyond the wire; and too small for BTH + ICRC */
	n = load(5);
	roce_put_be16(frame + 18, 0x0100);
	CHECK_EQ_I(dec(frame, n, &p), ROCE_E_MALFORMED);
	CHECK(p.findings & ROCE_FIND_BAD_LENGTH);
	roce_put_be16(frame + 18, 8);
	CHECK_EQ_I(dec(frame, n, &p), ROCE_E_MALFORMED);
	CHECK(p.findings & ROCE_FIND_BAD_LENGTH);
	/* an ACK carrying data */
	n = load(2);
	roce_put_be16(frame + 16, 0x0030 + 4);
	roce_put_be16(frame + 38, 0x001c + 4);
	fix_ip_csum(frame + 14, 20);
	memset(frame + n, 0, 4);
	CHECK_EQ_I(dec(frame, n + 4, &p), ROCE_E_MALFORMED);
	CHECK(p.findings & ROCE_FIND_BAD_LENGTH);
}

static void test_finding_bad_cnp(void)
{
	struct roce_pkt p;
	size_t n;

	n = load(3);
	frame[46] &= (uint8_t)~0x40;    /* BECN = 0 (masked: ICRC still fine) */
	CHECK_EQ_I(dec(frame, n, &p), ROCE_OK);
	CHECK_EQ_U(p.findings, ROCE_FIND_BAD_CNP);
	CHECK_EQ_U(p.icrc_status, ROCE_ICRC_OK);
	n = load(3);
	frame[53] = 1;                  /* PSN != 0 */
	CHECK_EQ_I(dec(frame, n, &p), ROCE_OK);
	CHECK(p.findings & ROCE_FIND_BAD_CNP);
	/* CNP with 4 extra bytes */
	{
		struct roce_frame_spec s;
		uint8_t buf[256];

		roce_frame_spec_init(&s);
		s.bth.opcode = ROCE_OP_CNP;
		s.bth.becn = 1;
		n = build(&s, buf, sizeof(buf));
		CHECK_EQ_I(dec(buf, n, &p), ROCE_OK);
		CHECK_EQ_U(p.findings, 0);
		roce_put_be16(buf + 16, (uint16_t)(roce_get_be16(buf + 16) + 4));
		roce_put_be16(buf + 38, (uint16_t)(roce_get_be16(buf + 38) + 4));
		fix_ip_csum(buf + 14, 20);
		memset(buf + n, 0, 4);
		CHECK_EQ_I(dec(buf, n + 4, &p), ROCE_OK);
		CHECK_EQ_U(p.findings & ~ROCE_FIND_BAD_ICRC, ROCE_FIND_BAD_CNP);
		/* 8 bytes short: cannot even hold the body */
		roce_put_be16(buf + 16, (uint16_t)(roce_get_be16(buf + 16) - 12));
		roce_put_be16(buf + 38, (uint16_t)(roce_get_be16(buf + 38) - 12));
		fix_ip_csum(buf + 14, 20);
		CHECK_EQ_I(dec(buf, n + 4, &p), ROCE_E_MALFORMED);
		CHECK(p.findings & ROCE_FIND_BAD_CNP);
	}
}

static void test_finding_fragment(void)
{
	struct roce_pkt p;
	size_t n = load(0);

	frame[20] |= 0x20;              /* MF */
	fix_ip_csum(frame + 14, 20);
	CHECK_EQ_I(dec(frame, n, &p), ROCE_E_MALFORMED);
	CHECK_EQ_U(p.kind, ROCE_KIND_ROCE);
	CHECK_EQ_U(p.findings, ROCE_FIND_IP_FRAGMENT);
	CHECK_EQ_U(p.bth_off, 0);
	CHECK(p.op == NULL);
	/* a non-first fragment has no UDP header: not recognisable */
	n = load(0);
	roce_put_be16(frame + 20, 0x0010);
	fix_ip_csum(frame + 14, 20);
	CHECK_EQ_I(dec(frame, n, &p), ROCE_E_NOT_ROCE);
}

static void test_v1_not_bth(void)
{
	struct roce_pkt p;
	size_t n = load(5);

	frame[14 + 6] = 0x11;           /* GRH next header != 0x1B */
	CHECK_EQ_I(dec(frame, n, &p), ROCE_E_NOT_ROCE);
	CHECK_EQ_U(p.kind, ROCE_KIND_NONE);
	/* IPv6 with a next header other than UDP */
	n = load(4);
	frame[14 + 6] = 0;
	CHECK_EQ_I(dec(frame, n, &p), ROCE_E_NOT_ROCE);
}

static void test_pfc_pause(void)
{
	struct roce_pkt p;
	uint8_t f[128];
	size_t n;

	n = check_hex(ROCE_TEST_PFC_HEX, f, sizeof(f));
	CHECK_EQ_I(dec(f, n, &p), ROCE_OK);
	CHECK_EQ_U(p.kind, ROCE_KIND_PFC);
	CHECK_EQ_U(p.mac_opcode, 0x0101);
	CHECK_EQ_U(p.pfc_enable, 0x18);
	CHECK_EQ_U(p.pfc_reserved, 0);
	CHECK_EQ_U(p.pfc_quanta[3], 0xffff);
	CHECK_EQ_U(p.pfc_quanta[4], 0);
	CHECK_EQ_U(p.findings, 0);
	CHECK_EQ_U(p.version, 0);
	CHECK_EQ_U(p.ethertype, 0x8808);
	/* with an FCS */
	CHECK_EQ_I(dec(f, n + 4, &p), ROCE_OK);
	/* reserved octet */
	f[16] = 1;
	CHECK_EQ_I(dec(f, n, &p), ROCE_OK);
	CHECK_EQ_U(p.findings, ROCE_FIND_BAD_PFC);
	f[16] = 0;
	/* time for a disabled priority */
	f[18 + 2 * 5 + 1] = 1;
	CHECK_EQ_I(dec(f, n, &p), ROCE_OK);
	CHECK_EQ_U(p.findings, ROCE_FIND_BAD_PFC);
	f[18 + 2 * 5 + 1] = 0;
	/* too short on the wire; cut by the capture */
	CHECK_EQ_I(dec(f, 30, &p), ROCE_E_MALFORMED);
	CHECK_EQ_U(p.kind, ROCE_KIND_PFC);
	CHECK_EQ_U(p.findings, ROCE_FIND_BAD_PFC);
	CHECK_EQ_I(roce_decode(ROCE_LINKTYPE_ETHERNET, f, 30, 60, NULL, &p), ROCE_E_TRUNC);
	CHECK_EQ_U(p.findings, ROCE_FIND_TRUNCATED);
	CHECK_EQ_I(roce_decode(ROCE_LINKTYPE_ETHERNET, f, 15, 60, NULL, &p), ROCE_E_TRUNC);
	CHECK_EQ_U(p.kind, ROCE_KIND_MACCTRL);

	n = check_hex(ROCE_TEST_PAUSE_HEX, f, sizeof(f));
	CHECK_EQ_I(dec(f, n, &p), ROCE_OK);
	CHECK_EQ_U(p.kind, ROCE_KIND_PAUSE);
	CHECK_EQ_U(p.mac_opcode, 0x0001);
	CHECK_EQ_U(p.pfc_quanta[0], 0x1234);
	CHECK_EQ_U(p.pfc_quanta[1], 0);
	CHECK_EQ_U(p.findings, 0);
	/* another MAC Control opcode (GATE, 0x0002) */
	f[15] = 2;
	CHECK_EQ_I(dec(f, n, &p), ROCE_OK);
	CHECK_EQ_U(p.kind, ROCE_KIND_MACCTRL);
	CHECK_EQ_U(p.mac_opcode, 2);
}

static void test_errors(void)
{
	struct roce_pkt p;
	size_t n = load(0);

	CHECK_EQ_I(roce_decode(999, frame, n, n, NULL, &p), ROCE_E_LINKTYPE);
	CHECK_EQ_I(roce_decode(ROCE_LINKTYPE_ETHERNET, frame, n, n, NULL, NULL), ROCE_E_INVAL);
	CHECK_EQ_I(roce_decode(ROCE_LINKTYPE_ETHERNET, NULL, n, n, NULL, &p), ROCE_E_INVAL);
	CHECK_EQ_I(roce_decode(ROCE_LINKTYPE_ETHERNET, NULL, 0, 0, NULL, &p), ROCE_E_NOT_ROCE);
	CHECK(roce_linktype_supported(1));
	CHECK(roce_linktype_supported(101));
	CHECK(roce_linktype_supported(113));
	CHECK(roce_linktype_supported(228));
	CHECK(roce_linktype_supported(229));
	CHECK(roce_linktype_supported(276));
	CHECK(!roce_linktype_supported(0));
	CHECK(!roce_linktype_supported(105));
	/* wirelen smaller than caplen is treated as caplen */
	CHECK_EQ_I(roce_decode(ROCE_LINKTYPE_ETHERNET, frame, n, 0, NULL, &p), ROCE_OK);
	CHECK_EQ_U(p.wirelen, n);
}

static void test_reuse_clears_state(void)
{
	struct roce_pkt p;
	size_t n;

	n = load(1);                    /* VLAN + RETH */
	CHECK_EQ_I(dec(frame, n, &p), ROCE_OK);
	n = load(2);                    /* plain ACK */
	CHECK_EQ_I(dec(frame, n, &p), ROCE_OK);
	CHECK_EQ_U(p.vlan_count, 0);
	CHECK_EQ_U(p.reth.va, 0);
	CHECK_EQ_U(p.hdrs, ROCE_H_AETH);
	n = check_hex(ROCE_TEST_PFC_HEX, frame, sizeof(frame));
	CHECK_EQ_I(dec(frame, n, &p), ROCE_OK);
	CHECK_EQ_U(p.bth_off, 0);
	CHECK(p.op == NULL);
	CHECK_EQ_U(p.src[15], 0);
	CHECK_EQ_U(p.icrc_status, ROCE_ICRC_UNVERIFIED);
}

static void test_finding_names(void)
{
	static const char *const names[ROCE_FIND_COUNT] = {
		"truncated", "bad_length", "unknown_opcode", "bad_tver", "bad_pad",
		"bad_ip_checksum", "bad_pfc", "bad_cnp", "bad_icrc", "ip_fragment",
	};

	for (unsigned i = 0; i < ROCE_FIND_COUNT; i++) {
		CHECK_STR(roce_finding_name(1u << i), names[i]);
		CHECK(roce_finding_text(1u << i) != NULL && *roce_finding_text(1u << i));
	}
	CHECK(roce_finding_name(0) == NULL);
	CHECK(roce_finding_name(3) == NULL);
	CHECK(roce_finding_name(1u << ROCE_FIND_COUNT) == NULL);
	CHECK_STR(roce_finding_name(ROCE_FIND_BAD_ICRC), "bad_icrc");
	CHECK(roce_finding_text(0) != NULL);
	CHECK_EQ_U(ROCE_FIND_MALFORMED_MASK & ROCE_FIND_BAD_ICRC, 0);
}

static void test_addr_mac_str(void)
{
	static const struct {
		const char *hex;
		const char *want;
	} cases[] = {
		{ "00000000000000000000ffff0a000001", "10.0.0.1" },
		{ "00000000000000000000ffffffffffff", "255.255.255.255" },
		{ "00000000000000000000000000000000", "::" },
		{ "00000000000000000000000000000001", "::1" },
		{ "fe800000000000000000000000000001", "fe80::1" },
		{ "20010db8000000000001000000000001", "2001:db8::1:0:0:1" },
		{ "20010db8000000010000000000000001", "2001:db8:0:1::1" },
		{ "20010db8000100010001000100010001", "2001:db8:1:1:1:1:1:1" },
		{ "20010db8000000010001000100010001", "2001:db8:0:1:1:1:1:1" },
		{ "fe800000000000000000000000000000", "fe80::" },
		{ "00010000000000000000000000000000", "1::" },
		{ "abcd00000000ef000000000000001234", "abcd:0:0:ef00::1234" },
	};
	uint8_t a[16];
	char buf[64], tiny[5];
	static const uint8_t mac[6] = { 0x00, 0x1b, 0x21, 0xaa, 0xbb, 0xff };

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		check_hex(cases[i].hex, a, sizeof(a));
		roce_addr_str(a, buf, sizeof(buf));
		CHECK_STR(buf, cases[i].want);
	}
	roce_addr_str(a, tiny, sizeof(tiny));
	CHECK_EQ_U(strlen(tiny), 4);
	roce_mac_str(mac, buf, sizeof(buf));
	CHECK_STR(buf, "00:1b:21:aa:bb:ff");
	roce_mac_str(mac, tiny, sizeof(tiny));
	CHECK_STR(tiny, "00:1");
	roce_mac_str(NULL, buf, sizeof(buf));
	CHECK_STR(buf, "");
}

static void test_strerror_version(void)
{
	CHECK_STR(roce_strerror(ROCE_OK), "success");
	for (int s = ROCE_E_DISCARDED; s <= ROCE_OK; s++)
		CHECK(roce_strerror(s) != NULL && strcmp(roce_strerror(s), "unknown status") != 0);
	CHECK_STR(roce_strerror(-100), "unknown status");
	CHECK(strncmp(roce_version(), "libroce " ROCE_VERSION_STRING " (crc32: ",
		strlen("libroce " ROCE_VERSION_STRING " (crc32: ")) == 0);
}

int main(void)
{
	RUN(test_vector_fields);
	RUN(test_aeth_helpers);
	RUN(test_rnr_nak_frame);
	RUN(test_every_opcode_roundtrip);
	RUN(test_ipv4_options);
	RUN(test_vlans);
	RUN(test_cooked_and_raw);
	RUN(test_ports);
	RUN(test_padding_fcs_snaplen);
	RUN(test_finding_bad_tver);
	RUN(test_finding_bad_pad);
	RUN(test_finding_unknown_opcode);
	RUN(test_finding_bad_ip_csum);
	RUN(test_finding_bad_length);
	RUN(test_finding_bad_cnp);
	RUN(test_finding_fragment);
	RUN(test_v1_not_bth);
	RUN(test_pfc_pause);
	RUN(test_errors);
	RUN(test_reuse_clears_state);
	RUN(test_finding_names);
	RUN(test_addr_mac_str);
	RUN(test_strerror_version);
	return check_report();
}
