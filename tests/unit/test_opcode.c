/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_opcode.c - the opcode table against an independent, hand-written
 * table of header lengths (IBTA Vol 1 Table 38 / notes section 2.2), name
 * hygiene, canonical header order and the by-name parser.
 */
#include <ctype.h>
#include <string.h>

#include <roce/opcode.h>

#include "check.h"

/*
 * Written from the spec tables, NOT derived from opcodes.def:
 * bytes of extension headers between the BTH and the payload.
 */
static const struct {
	uint8_t op;
	uint8_t len;
} expect_len[] = {
	/* RC */
	{ 0x00, 0 }, { 0x01, 0 }, { 0x02, 0 }, { 0x03, 4 }, { 0x04, 0 }, { 0x05, 4 },
	{ 0x06, 16 }, { 0x07, 0 }, { 0x08, 0 }, { 0x09, 4 }, { 0x0a, 16 }, { 0x0b, 20 },
	{ 0x0c, 16 }, { 0x0d, 4 }, { 0x0e, 0 }, { 0x0f, 4 }, { 0x10, 4 }, { 0x11, 4 },
	{ 0x12, 12 }, { 0x13, 28 }, { 0x14, 28 }, { 0x16, 4 }, { 0x17, 4 }, { 0x1c, 20 },
	{ 0x1d, 16 },
	/* UC */
	{ 0x20, 0 }, { 0x21, 0 }, { 0x22, 0 }, { 0x23, 4 }, { 0x24, 0 }, { 0x25, 4 },
	{ 0x26, 16 }, { 0x27, 0 }, { 0x28, 0 }, { 0x29, 4 }, { 0x2a, 16 }, { 0x2b, 20 },
	/* RD: RDETH(4) always, DETH(8) on requests */
	{ 0x40, 12 }, { 0x41, 12 }, { 0x42, 12 }, { 0x43, 16 }, { 0x44, 12 }, { 0x45, 16 },
	{ 0x46, 28 }, { 0x47, 12 }, { 0x48, 12 }, { 0x49, 16 }, { 0x4a, 28 }, { 0x4b, 32 },
	{ 0x4c, 28 }, { 0x4d, 8 }, { 0x4e, 4 }, { 0x4f, 8 }, { 0x50, 8 }, { 0x51, 8 },
	{ 0x52, 16 }, { 0x53, 40 }, { 0x54, 40 }, { 0x55, 12 },
	/* UD */
	{ 0x64, 8 }, { 0x65, 12 },
	/* CNP */
	{ 0x81, 16 },
	/* XRC: XRCETH(4) on requests */
	{ 0xa0, 4 }, { 0xa1, 4 }, { 0xa2, 4 }, { 0xa3, 8 }, { 0xa4, 4 }, { 0xa5, 8 },
	{ 0xa6, 20 }, { 0xa7, 4 }, { 0xa8, 4 }, { 0xa9, 8 }, { 0xaa, 20 }, { 0xab, 24 },
	{ 0xac, 20 }, { 0xad, 4 }, { 0xae, 0 }, { 0xaf, 4 }, { 0xb0, 4 }, { 0xb1, 4 },
	{ 0xb2, 12 }, { 0xb3, 32 }, { 0xb4, 32 }, { 0xb6, 8 }, { 0xb7, 8 },
};
#define N_EXPECT (sizeof(expect_len) / sizeof(expect_len[0]))

static void test_lengths_match_spec(void)
{
	unsigned defined = 0;

	for (size_t i = 0; i < N_EXPECT; i++) {
		const struct roce_opcode_info *o = roce_opcode_info(expect_len[i].op);

		CHECK(o->name != NULL);
		CHECK_EQ_U(o->hdr_len, expect_len[i].len);
		if (check_cur_failed_) {
			fprintf(stderr, "  opcode 0x%02x\n", expect_len[i].op);
			return;
		}
	}
	for (unsigned op = 0; op < 256; op++)
		if (roce_opcodes[op].name)
			defined++;
	/* every defined opcode is in the hand table, and vice versa */
	CHECK_EQ_U(defined, N_EXPECT);
}

static void test_specific_offsets(void)
{
	const struct roce_opcode_info *o;

	o = roce_opcode_info(ROCE_OP_RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE);
	CHECK_EQ_U(o->off[ROCE_HDR_RETH], 0);
	CHECK_EQ_U(o->off[ROCE_HDR_IMMDT], 16);
	o = roce_opcode_info(ROCE_OP_RD_RDMA_WRITE_ONLY_WITH_IMMEDIATE);
	CHECK_EQ_U(o->off[ROCE_HDR_RDETH], 0);
	CHECK_EQ_U(o->off[ROCE_HDR_DETH], 4);
	CHECK_EQ_U(o->off[ROCE_HDR_RETH], 12);
	CHECK_EQ_U(o->off[ROCE_HDR_IMMDT], 28);
	o = roce_opcode_info(ROCE_OP_RC_FLUSH);
	CHECK_EQ_U(o->off[ROCE_HDR_FETH], 0);
	CHECK_EQ_U(o->off[ROCE_HDR_RETH], 4);
	o = roce_opcode_info(ROCE_OP_RD_ATOMIC_ACKNOWLEDGE);
	CHECK_EQ_U(o->off[ROCE_HDR_AETH], 4);
	CHECK_EQ_U(o->off[ROCE_HDR_ATOMICACKETH], 8);
	o = roce_opcode_info(ROCE_OP_XRC_RDMA_WRITE_ONLY_WITH_IMMEDIATE);
	CHECK_EQ_U(o->off[ROCE_HDR_XRCETH], 0);
	CHECK_EQ_U(o->off[ROCE_HDR_RETH], 4);
	CHECK_EQ_U(o->off[ROCE_HDR_IMMDT], 20);
	o = roce_opcode_info(ROCE_OP_XRC_SEND_ONLY_WITH_INVALIDATE);
	CHECK_EQ_U(o->off[ROCE_HDR_IETH], 4);
	o = roce_opcode_info(ROCE_OP_UD_SEND_ONLY_WITH_IMMEDIATE);
	CHECK_EQ_U(o->off[ROCE_HDR_DETH], 0);
	CHECK_EQ_U(o->off[ROCE_HDR_IMMDT], 8);
	o = roce_opcode_info(ROCE_OP_CNP);
	CHECK_EQ_U(o->off[ROCE_HDR_CNP], 0);
	CHECK(o->flags & ROCE_F_CNP);
}

static void test_canonical_order(void)
{
	for (unsigned op = 0; op < 256; op++) {
		const struct roce_opcode_info *o = &roce_opcodes[op];
		unsigned run = 0;

		if (!o->name)
			continue;
		for (unsigned h = 0; h < ROCE_HDR_COUNT; h++) {
			if (!(o->hdrs & (1u << h))) {
				CHECK_EQ_U(o->off[h], 0);
				continue;
			}
			CHECK_EQ_U(o->off[h], run);
			run += roce_hdr_len((enum roce_hdr)h);
		}
		CHECK_EQ_U(o->hdr_len, run);
		/* no unknown header bits */
		CHECK_EQ_U(o->hdrs & ~((1u << ROCE_HDR_COUNT) - 1u) & ~ROCE_H_PAYLOAD, 0);
		if (check_cur_failed_) {
			fprintf(stderr, "  opcode 0x%02x\n", op);
			return;
		}
	}
}

static void test_names(void)
{
	for (unsigned a = 0; a < 256; a++) {
		const char *n = roce_opcodes[a].name;

		if (!n) {
			CHECK_STR(roce_opcode_name((uint8_t)a), "UNKNOWN");
			CHECK_EQ_U(roce_opcodes[a].hdrs, 0);
			CHECK_EQ_U(roce_opcodes[a].hdr_len, 0);
			continue;
		}
		CHECK(*n != '\0');
		for (const char *p = n; *p; p++)
			CHECK(isupper((unsigned char)*p) || isdigit((unsigned char)*p) || *p == '_');
		CHECK_STR(roce_opcode_name((uint8_t)a), n);
		for (unsigned b = a + 1; b < 256; b++)
			if (roce_opcodes[b].name)
				CHECK(strcmp(n, roce_opcodes[b].name) != 0);
		/* name prefix matches the transport */
		CHECK(strncmp(n, roce_transport_name(roce_opcode_transport((uint8_t)a)),
			strlen(roce_transport_name(roce_opcode_transport((uint8_t)a)))) == 0);
	}
	CHECK(roce_opcodes[0x15].name == NULL);
	CHECK(roce_opcodes[0x80].name == NULL);
	CHECK(roce_opcodes[0xff].name == NULL);
	CHECK_STR(roce_opcode_name(0x0a), "RC_RDMA_WRITE_ONLY");
	CHECK_STR(roce_opcode_name(0x81), "CNP");
}

static void test_by_name(void)
{
	for (unsigned a = 0; a < 256; a++) {
		char lower[64];
		const char *n = roce_opcodes[a].name;
		size_t i;

		if (!n)
			continue;
		CHECK_EQ_I(roce_opcode_by_name(n), a);
		for (i = 0; n[i] && i + 1 < sizeof(lower); i++)
			lower[i] = (char)tolower((unsigned char)n[i]);
		lower[i] = '\0';
		CHECK_EQ_I(roce_opcode_by_name(lower), a);
	}
	CHECK_EQ_I(roce_opcode_by_name("rc_send_only"), 0x04);
	CHECK_EQ_I(roce_opcode_by_name("Rc_Send_Only"), 0x04);
	CHECK_EQ_I(roce_opcode_by_name("0x04"), 0x04);
	CHECK_EQ_I(roce_opcode_by_name("0X81"), 0x81);
	CHECK_EQ_I(roce_opcode_by_name("4"), 4);
	CHECK_EQ_I(roce_opcode_by_name("255"), 255);
	CHECK_EQ_I(roce_opcode_by_name("256"), -1);
	CHECK_EQ_I(roce_opcode_by_name("0x100"), -1);
	CHECK_EQ_I(roce_opcode_by_name("0x"), -1);
	CHECK_EQ_I(roce_opcode_by_name("4x"), -1);
	CHECK_EQ_I(roce_opcode_by_name("-1"), -1);
	CHECK_EQ_I(roce_opcode_by_name(""), -1);
	CHECK_EQ_I(roce_opcode_by_name(NULL), -1);
	CHECK_EQ_I(roce_opcode_by_name("RC_SEND_ONLYX"), -1);
	CHECK_EQ_I(roce_opcode_by_name("RC_SEND_ONL"), -1);
	CHECK_EQ_I(roce_opcode_by_name("UNKNOWN"), -1);
}

static void test_transport_and_hdr_names(void)
{
	CHECK_EQ_U(roce_opcode_transport(0x04), ROCE_TRANSPORT_RC);
	CHECK_EQ_U(roce_opcode_transport(0x24), ROCE_TRANSPORT_UC);
	CHECK_EQ_U(roce_opcode_transport(0x44), ROCE_TRANSPORT_RD);
	CHECK_EQ_U(roce_opcode_transport(0x64), ROCE_TRANSPORT_UD);
	CHECK_EQ_U(roce_opcode_transport(0x81), ROCE_TRANSPORT_CNP);
	CHECK_EQ_U(roce_opcode_transport(0xa4), ROCE_TRANSPORT_XRC);
	CHECK_EQ_U(roce_opcode_transport(0xc0), ROCE_TRANSPORT_VENDOR);
	CHECK_EQ_U(roce_opcode_transport(0xff), ROCE_TRANSPORT_VENDOR);
	CHECK_STR(roce_transport_name(ROCE_TRANSPORT_XRC), "XRC");
	CHECK_STR(roce_transport_name(ROCE_TRANSPORT_VENDOR), "VENDOR");
	CHECK_STR(roce_transport_name((enum roce_transport)99), "VENDOR");
	CHECK_STR(roce_hdr_name(ROCE_HDR_RETH), "RETH");
	CHECK_STR(roce_hdr_name(ROCE_HDR_ATOMICACKETH), "AtomicAckETH");
	CHECK_EQ_U(roce_hdr_len(ROCE_HDR_ATOMICETH), 28);
	CHECK_EQ_U(roce_hdr_len(ROCE_HDR_CNP), 16);
	CHECK_EQ_U(roce_hdr_len(ROCE_HDR_COUNT), 0);
	CHECK_STR(roce_hdr_name(ROCE_HDR_COUNT), "UNKNOWN");
}

static void test_flags_sane(void)
{
	for (unsigned a = 0; a < 256; a++) {
		const struct roce_opcode_info *o = &roce_opcodes[a];

		if (!o->name)
			continue;
		/* exactly one of REQ / RESP / ACK / CNP */
		unsigned kinds = !!(o->flags & ROCE_F_REQ) + !!(o->flags & ROCE_F_RESP) +
			!!(o->flags & ROCE_F_ACK) + !!(o->flags & ROCE_F_CNP);
		CHECK_EQ_U(kinds, 1);
		/* MIDDLE excludes FIRST/LAST */
		if (o->flags & ROCE_F_MIDDLE)
			CHECK_EQ_U(o->flags & ROCE_F_ONLY, 0);
		/* immediate data flag <=> ImmDt header; invalidate <=> IETH */
		CHECK_EQ_U(!!(o->flags & ROCE_F_IMM), !!(o->hdrs & ROCE_H_IMMDT));
		CHECK_EQ_U(!!(o->flags & ROCE_F_INV), !!(o->hdrs & ROCE_H_IETH));
		if (check_cur_failed_) {
			fprintf(stderr, "  opcode 0x%02x\n", a);
			return;
		}
	}
}

int main(void)
{
	RUN(test_lengths_match_spec);
	RUN(test_specific_offsets);
	RUN(test_canonical_order);
	RUN(test_names);
	RUN(test_by_name);
	RUN(test_transport_and_hdr_names);
	RUN(test_flags_sane);
	return check_report();
}
