/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_build.c - frame builder: PFC/PAUSE byte-identical to the notes,
 * V1 rebuilt byte for byte, build -> decode -> ICRC OK for every opcode,
 * argument and buffer-size errors.
 */
#include <stdlib.h>
#include <string.h>

#include <roce/build.h>
#include <roce/icrc.h>
#include <roce/pkt.h>

#include "check.h"
#include "roce_vectors.h"

static const uint8_t mac3[6] = { 0x02, 0, 0, 0, 0, 0x03 };

static void test_pfc_identical(void)
{
	uint8_t want[64], got[64];
	uint16_t q[8] = { 7, 7, 7, 0xffff, 0, 7, 7, 7 };   /* disabled prios ignored */
	size_t wn = check_hex(ROCE_TEST_PFC_HEX, want, sizeof(want)), len = 0;

	CHECK_EQ_U(wn, 60);
	CHECK_EQ_I(roce_build_pfc(mac3, 0x18, q, got, sizeof(got), &len), ROCE_OK);
	CHECK_EQ_U(len, 60);
	CHECK(memcmp(got, want, 60) == 0);
	CHECK_EQ_I(roce_build_pfc(mac3, 0x18, q, got, 59, &len), ROCE_E_NOSPACE);
	CHECK_EQ_U(len, 0);
}

static void test_pause_identical(void)
{
	uint8_t want[64], got[64];
	size_t wn = check_hex(ROCE_TEST_PAUSE_HEX, want, sizeof(want)), len = 0;

	CHECK_EQ_U(wn, 60);
	CHECK_EQ_I(roce_build_pause(mac3, 0x1234, got, sizeof(got), &len), ROCE_OK);
	CHECK_EQ_U(len, 60);
	CHECK(memcmp(got, want, 60) == 0);
	CHECK_EQ_I(roce_build_pause(mac3, 0x1234, got, 10, &len), ROCE_E_NOSPACE);
}

/* V1 = IPv4 RC SEND_ONLY, rebuilt from its fields: must be byte-identical. */
static void test_rebuild_v1(void)
{
	uint8_t want[128], got[128];
	struct roce_frame_spec s;
	size_t wn = check_hex(roce_test_vectors[0].hex, want, sizeof(want)), len;

	roce_frame_spec_init(&s);
	roce_addr_v4(s.src, 0xc0a80101);
	roce_addr_v4(s.dst, 0xc0a80102);
	s.tclass = 0x6a;
	s.ip_id = 0x1234;
	s.sport = 0xc000;
	s.bth.opcode = ROCE_OP_RC_SEND_ONLY;
	s.bth.migreq = 1;
	s.bth.ackreq = 1;
	s.bth.dqpn = 0x12;
	s.bth.psn = 0x100;
	s.payload = (const uint8_t *)"RoCE test vec 01";
	s.payload_len = 16;
	CHECK_EQ_U(roce_build_len(&s), wn);
	CHECK_EQ_I(roce_build(&s, got, sizeof(got), &len), ROCE_OK);
	CHECK_EQ_U(len, wn);
	CHECK(memcmp(got, want, wn) == 0);
	CHECK_EQ_I(roce_build(&s, got, wn - 1, &len), ROCE_E_NOSPACE);
	s.bad_icrc = true;
	CHECK_EQ_I(roce_build(&s, got, sizeof(got), &len), ROCE_OK);
	CHECK(memcmp(got, want, wn - 4) == 0);
	CHECK(memcmp(got + wn - 4, want + wn - 4, 4) != 0);
}

/* V2: VLAN tag, CE, FECN, RDMA WRITE ONLY + RETH, 13 bytes + pad 3. */
static void test_rebuild_v2(void)
{
	uint8_t want[128], got[128];
	struct roce_frame_spec s;
	size_t wn = check_hex(roce_test_vectors[1].hex, want, sizeof(want)), len;

	roce_frame_spec_init(&s);
	s.vlan_count = 1;
	s.vlan_id[0] = 100;
	s.vlan_pcp[0] = 3;
	s.tclass = 0x6b;
	s.ttl = 63;
	s.ip_id = 0x1235;
	s.sport = 0xc001;
	s.bth.opcode = ROCE_OP_RC_RDMA_WRITE_ONLY;
	s.bth.fecn = 1;
	s.bth.dqpn = 0x12;
	s.bth.ackreq = 1;
	s.bth.psn = 0x101;
	s.reth.va = 0x7f0000001000ull;
	s.reth.rkey = 0x1234abcd;
	s.reth.dma_len = 13;
	s.payload = (const uint8_t *)"hello, world!";
	s.payload_len = 13;
	CHECK_EQ_I(roce_build(&s, got, sizeof(got), &len), ROCE_OK);
	CHECK_EQ_U(len, wn);
	CHECK(memcmp(got, want, wn) == 0);
}

static void fill_spec(struct roce_frame_spec *s, unsigned opcode, unsigned variant)
{
	static const uint8_t payload[37] = "0123456789abcdefghijklmnopqrstuvwxyz";

	roce_frame_spec_init(s);
	s->version = variant == 0 ? 1 : 2;
	s->ip_version = variant == 2 ? 6 : 4;
	if (variant != 2) {
		roce_addr_v4(s->src, 0x0a000001 + variant);
		roce_addr_v4(s->dst, 0x0a000101);
	} else {
		s->src[0] = 0xfd;
		s->src[15] = 1;
		s->dst[0] = 0xfd;
		s->dst[15] = 2;
	}
	s->bth.opcode = (uint8_t)opcode;
	s->bth.dqpn = 0xabcdef;
	s->bth.psn = 0xfffffe;
	s->bth.pkey = 0x8001;
	if (roce_opcodes[opcode].flags & ROCE_F_CNP)
		s->bth.becn = 1, s->bth.psn = 0;
	s->rdeth_eec = 0x123456;
	s->deth.qkey = 0x80010000;
	s->deth.src_qp = 0x000001;
	s->xrc_srq = 0x654321;
	s->feth = 0x00000011;
	s->reth.va = 0x1122334455667788ull;
	s->reth.rkey = 0x99aabbcc;
	s->reth.dma_len = 4096;
	s->atomic.va = 0x0102030405060708ull;
	s->atomic.rkey = 0x0a0b0c0d;
	s->atomic.swap_add = 0xfedcba9876543210ull;
	s->atomic.compare = 0x0f0e0d0c0b0a0908ull;
	s->aeth.syndrome = 0x1f;
	s->aeth.msn = 0x777777;
	s->atomic_ack = 0xdeadbeefcafef00dull;
	s->immdt = 0x13572468;
	s->ieth_rkey = 0x24681357;
	if (roce_opcodes[opcode].hdrs & ROCE_H_PAYLOAD) {
		s->payload = payload;
		/* FIRST/MIDDLE carry a multiple of 4 */
		s->payload_len = (roce_opcodes[opcode].flags & ROCE_F_LAST) ? 37 : 32;
	}
}

static void test_all_opcodes_roundtrip(void)
{
	for (unsigned op = 0; op < 256; op++) {
		if (!roce_opcodes[op].name)
			continue;
		for (unsigned variant = 0; variant < 3; variant++) {
			struct roce_frame_spec s;
			struct roce_pkt pkt;
			uint8_t buf[512];
			size_t len;

			fill_spec(&s, op, variant);
			CHECK_EQ_I(roce_build(&s, buf, sizeof(buf), &len), ROCE_OK);
			CHECK_EQ_U(len, roce_build_len(&s));
			CHECK(len >= 60);
			CHECK_EQ_I(roce_decode(ROCE_LINKTYPE_ETHERNET, buf, len, len, NULL, &pkt),
				ROCE_OK);
			CHECK_EQ_U(pkt.findings, 0);
			CHECK_EQ_U(pkt.icrc_status, ROCE_ICRC_OK);
			CHECK_EQ_U(pkt.bth.opcode, op);
			CHECK_EQ_U(pkt.version, s.version);
			CHECK_EQ_U(pkt.payload_len, s.payload_len);
			CHECK_EQ_U(pkt.bth.padcnt, (-s.payload_len) & 3);
			if (s.payload_len)
				CHECK(memcmp(buf + pkt.payload_off, s.payload, s.payload_len) == 0);
			if (check_cur_failed_) {
				fprintf(stderr, "  opcode 0x%02x variant %u\n", op, variant);
				return;
			}
		}
	}
}

/* roce_build_payload_off() is where the decoder finds the payload of the frame built, for
 * every opcode, RoCE v1 / v2 IPv4 / v2 IPv6, 0 to 2 VLAN tags; 0 for a refused spec. */
static void test_payload_off(void)
{
	for (unsigned op = 0; op < 256; op++) {
		if (!roce_opcodes[op].name)
			continue;
		for (unsigned variant = 0; variant < 3; variant++) {
			for (uint8_t vlans = 0; vlans <= 2; vlans++) {
				struct roce_frame_spec s;
				struct roce_pkt pkt;
				uint8_t buf[512];
				size_t len;

				fill_spec(&s, op, variant);
				s.vlan_count = vlans;
				CHECK_EQ_I(roce_build(&s, buf, sizeof(buf), &len), ROCE_OK);
				CHECK_EQ_I(roce_decode(ROCE_LINKTYPE_ETHERNET, buf, len, len, NULL,
						       &pkt), ROCE_OK);
				CHECK_EQ_U(roce_build_payload_off(&s), pkt.payload_off);
				if (check_cur_failed_) {
					fprintf(stderr, "  opcode 0x%02x variant %u vlans %u\n", op,
						variant, vlans);
					return;
				}
			}
		}
	}
	{
		struct roce_frame_spec s;

		roce_frame_spec_init(&s);
		CHECK_EQ_U(roce_build_payload_off(&s), 14 + 20 + 8 + 12);
		s.vlan_count = 3;
		CHECK_EQ_U(roce_build_payload_off(&s), 0);
		CHECK_EQ_U(roce_build_payload_off(NULL), 0);
	}
}

static void test_no_min_pad_and_errors(void)
{
	struct roce_frame_spec s;
	uint8_t buf[256];
	size_t len;

	roce_frame_spec_init(&s);
	s.bth.opcode = ROCE_OP_RC_SEND_ONLY;       /* zero-length SEND: 58 bytes */
	CHECK_EQ_U(roce_build_len(&s), 60);
	CHECK_EQ_I(roce_build(&s, buf, sizeof(buf), &len), ROCE_OK);
	CHECK_EQ_U(len, 60);
	CHECK(buf[58] == 0 && buf[59] == 0);
	s.no_min_pad = true;
	CHECK_EQ_U(roce_build_len(&s), 14 + 20 + 8 + 12 + 4);
	CHECK_EQ_I(roce_build(&s, buf, sizeof(buf), &len), ROCE_OK);
	CHECK_EQ_U(len, 58);

	s.version = 3;
	CHECK_EQ_U(roce_build_len(&s), 0);
	CHECK_EQ_I(roce_build(&s, buf, sizeof(buf), &len), ROCE_E_INVAL);
	s.version = 2;
	s.ip_version = 5;
	CHECK_EQ_I(roce_build(&s, buf, sizeof(buf), &len), ROCE_E_INVAL);
	s.ip_version = 4;
	s.vlan_count = 3;
	CHECK_EQ_I(roce_build(&s, buf, sizeof(buf), &len), ROCE_E_INVAL);
	s.vlan_count = 0;
	s.bth.opcode = ROCE_OP_RC_SEND_ONLY;
	s.payload_len = 65500;      /* does not fit the IPv4 total length */
	CHECK_EQ_U(roce_build_len(&s), 0);
	CHECK_EQ_I(roce_build(&s, buf, sizeof(buf), &len), ROCE_E_INVAL);
	roce_frame_spec_init(&s);
	s.payload_len = 1000;
	CHECK_EQ_I(roce_build(&s, buf, sizeof(buf), &len), ROCE_E_NOSPACE);
}

static void test_defaults(void)
{
	struct roce_frame_spec s;
	struct roce_pkt pkt;
	uint8_t buf[128];
	size_t len;
	char a[64];

	roce_frame_spec_init(&s);
	CHECK_EQ_U(s.version, 2);
	CHECK_EQ_U(s.ip_version, 4);
	CHECK_EQ_U(s.bth.opcode, ROCE_OP_RC_SEND_ONLY);
	CHECK_EQ_U(s.bth.pkey, 0xffff);
	s.sport = 0;
	s.dport = 0;
	s.ttl = 0;
	CHECK_EQ_I(roce_build(&s, buf, sizeof(buf), &len), ROCE_OK);
	CHECK_EQ_I(roce_decode(ROCE_LINKTYPE_ETHERNET, buf, len, len, NULL, &pkt), ROCE_OK);
	CHECK_EQ_U(pkt.sport, 0xc000);
	CHECK_EQ_U(pkt.dport, 4791);
	CHECK_EQ_U(pkt.ttl, 64);
	roce_addr_str(pkt.src, a, sizeof(a));
	CHECK_STR(a, "192.168.1.1");
}

int main(void)
{
	RUN(test_pfc_identical);
	RUN(test_pause_identical);
	RUN(test_rebuild_v1);
	RUN(test_rebuild_v2);
	RUN(test_all_opcodes_roundtrip);
	RUN(test_payload_off);
	RUN(test_no_min_pad_and_errors);
	RUN(test_defaults);
	if (roce_crc32_set_provider(ROCE_CRC_ZLIB) == ROCE_OK) {
		RUN(test_rebuild_v1);
		RUN(test_all_opcodes_roundtrip);
		(void)roce_crc32_set_provider(ROCE_CRC_AUTO);
	}
	return check_report();
}
