/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_capread_ng.c - capture reader, pcapng: sections, interfaces, block types, errors. */
#define _GNU_SOURCE
#include "capread_testlib.h"

static void test_pcapng(void)
{
	static struct bb b;
	size_t bounds[32];
	int nb, recs_at[32];
	struct result res, mem, str;
	char eb[ROCE_ERRBUF_SIZE];
	roce_capfile_t *c;

	build_pcapng(&b, bounds, &nb, recs_at);
	REQUIRE(write_file(tpath("multi.pcapng"), b.b, b.n));
	c = roce_cap_open(tpath("multi.pcapng"), eb);
	REQUIRE(c);
	CHECK_STR(roce_cap_format(c), "pcapng");
	CHECK_EQ_I(roce_cap_linktype(c), 1);
	drain(c, "", &res, NULL, NULL);
	CHECK_EQ_I(res.status, 0);
	check_pcapng_records(&res);
	read_mem(b.b, b.n, "multi", &mem);
	read_stream(b.b, b.n, "multi", &str);
	CHECK(same_records(&res, &mem));
	CHECK(same_records(&res, &str));
}

static void test_errors_pcapng(void)
{
	static struct bb b;
	size_t at;

	good_ng(&b);
	b.n = 2;
	expect_err("nghdr", &b, 0, 1, -1, "truncated file header (2 of 24 bytes)");
	good_ng(&b);
	b.n = 10;
	expect_err("nghdr10", &b, 0, 1, -1, "truncated section header block (10 of 12 bytes)");

	good_ng(&b);
	b.b[8] = 0x11; /* byte-order magic */
	expect_err("bom", &b, 0, 1, -1, "bad byte-order magic 0x11");

	good_ng(&b);
	at = b.n;
	ng_shb(&b, false);
	b.b[at + 9] = 0x77;
	expect_err("bom2", &b, 1, ROCE_E_MALFORMED, 2, "bad byte-order magic");

	good_ng(&b);
	at = b.n;
	ng_other(&b, 0xBAD, 8);
	set32(&b, at + 4, 22);
	/* read as 24 (Wireshark rounds up): then the file is 2 bytes short, as tshark says */
	expect_err("mult4", &b, 1, ROCE_E_TRUNC, 2, "truncated block (20 of 24 bytes)");

	good_ng(&b);
	at = b.n;
	ng_other(&b, 0xBAD, 0);
	set32(&b, at + 4, 8);
	expect_err("lt12", &b, 1, ROCE_E_MALFORMED, 2, "total length 8 is less than 12");

	good_ng(&b);
	at = b.n;
	ng_epb(&b, 0, 6, payload, 30, 30);
	set32(&b, b.n - 4, 999);
	expect_err("trail", &b, 1, ROCE_E_MALFORMED, 2,
		   "trailing length 999 does not match total length");

	good_ng(&b); /* a huge custom block is skipped, like Wireshark: here it is cut short */
	at = b.n;
	ng_other(&b, 0xBAD, 0);
	set32(&b, at + 4, 0x7ffffff0);
	expect_err("nghuge", &b, 1, ROCE_E_TRUNC, 2, "truncated block (12 of 2147483632 bytes)");

	good_ng(&b); /* a huge packet block is an error */
	at = b.n;
	ng_epb(&b, 0, 6, payload, 30, 30);
	set32(&b, at + 4, 0x7ffffff0);
	expect_err("nghugeepb", &b, 1, ROCE_E_MALFORMED, 2, "length 2147483632 exceeds limit");

	good_ng(&b);
	at = b.n;
	ng_other(&b, 0xBAD, 0);
	set32(&b, at + 4, 400);
	expect_err("ngtrunc", &b, 1, ROCE_E_TRUNC, 2, "truncated block (12 of 400 bytes)");

	good_ng(&b);
	putbytes(&b, payload, 5);
	expect_err("ngtrunchdr", &b, 1, ROCE_E_TRUNC, 2, "truncated block header (5 of 8 bytes)");

	b.n = 0;
	ng_shb(&b, false);
	ng_epb(&b, 0, 5, payload, 60, 60);
	expect_err("noidb", &b, 0, ROCE_E_MALFORMED, 1,
		   "enhanced packet block refers to interface 0 but 0 interface(s)");

	good_ng(&b);
	ng_epb(&b, 3, 5, payload, 60, 60);
	expect_err("badif", &b, 1, ROCE_E_MALFORMED, 2, "refers to interface 3 but 1 interface(s)");

	good_ng(&b);
	ng_shb(&b, true); /* new section forgets the interfaces */
	ng_epb(&b, 0, 5, payload, 60, 60);
	expect_err("sectif", &b, 1, ROCE_E_MALFORMED, 2, "interface 0 but 0 interface(s)");

	good_ng(&b);
	at = b.n;
	ng_idb(&b, 1, 0, -1, 0);
	set32(&b, at + 16, (200u << 16) | 2); /* if_name length 200 */
	expect_err("optover", &b, 1, ROCE_E_MALFORMED, 2, "option 2 length 200 overruns block");

	b.n = 0; /* IDB is read by open: the error fails open, but names frame 1 */
	ng_shb(&b, false);
	at = b.n;
	ng_idb(&b, 1, 0, 9, 0);
	set32(&b, at + 24, (9u << 16) | 9); /* if_tsresol length 9: overruns */
	expect_err("tsresol", &b, 0, 1, 1, "option 9 length 9 overruns block");

	good_ng(&b);
	at = b.n;
	ng_epb(&b, 0, 5, payload, 60, 60);
	set32(&b, at + 20, 73); /* caplen beyond the block (60 + 12 bytes of options) */
	set32(&b, at + 24, 100);
	expect_err("epbover", &b, 1, ROCE_E_MALFORMED, 2, "caplen 73 overruns enhanced packet block");

	good_ng(&b);
	at = b.n;
	ng_spb(&b, payload, 60);
	set32(&b, at + 8, 65);
	expect_err("spbover", &b, 1, ROCE_E_MALFORMED, 2, "packet length 65 overruns block");

	b.n = 0;
	ng_shb(&b, false);
	ng_spb(&b, payload, 60);
	expect_err("spbnoif", &b, 0, ROCE_E_MALFORMED, 1, "no interface is defined");

	good_ng(&b);
	at = b.n;
	ng_shb(&b, false);
	b.b[at + 12] = 2; /* version 2.0 */
	expect_err("ngvers", &b, 1, ROCE_E_UNSUPPORTED, 2, "unsupported pcapng version 2.0");
}

/* More than 65,536 interfaces, and a block over 16 MiB (skipped, numbered as a frame). */
static void test_big_sections(void)
{
	const uint32_t nif = 65537;
	size_t cap = 256 + (size_t)nif * 64 + 200 + (17u << 20) + 200, n = 0;
	uint8_t *d = calloc(1, cap);
	static struct bb h;
	static struct result r;

	REQUIRE(d);
	h.n = 0;
	ng_shb(&h, false);
	memcpy(d, h.b, h.n);
	n = h.n;
	for (uint32_t i = 0; i < nif; i++) {
		h.n = 0;
		ng_idb(&h, 1, 0, -1, 0);
		memcpy(d + n, h.b, h.n);
		n += h.n;
	}
	h.n = 0;
	ng_epb(&h, nif - 1, 1, payload, 60, 60);
	memcpy(d + n, h.b, h.n);
	n += h.n;
	{ /* a 17 MiB custom block */
		uint32_t bl = (17u << 20) + 12;

		memcpy(d + n, "\xad\x0b\0\0", 4);
		memcpy(d + n + 4, &bl, 4);
		memcpy(d + n + bl - 4, &bl, 4);
		n += bl;
	}
	h.n = 0;
	ng_epb(&h, 0, 2, payload, 60, 60);
	memcpy(d + n, h.b, h.n);
	n += h.n;
	REQUIRE(write_file(tpath("bigsect.pcapng"), d, n));
	read_path(tpath("bigsect.pcapng"), &r);
	CHECK_EQ_I(r.status, 0);
	CHECK_EQ_I(r.n, 2);
	CHECK_EQ_U(r.r[0].ifindex, nif - 1);
	CHECK_EQ_U(r.r[1].frame_no, 3);
	read_stream(d, n, "bigsect", &r);
	CHECK_EQ_I(r.status, 0);
	CHECK_EQ_I(r.n, 2);
	CHECK_EQ_U(r.r[1].frame_no, 3);
	free(d);
}

int main(void)
{
	int r;

	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_capread_ng.XXXXXX");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	init_payload();
	RUN(test_pcapng);
	RUN(test_errors_pcapng);
	RUN(test_big_sections);
	r = check_report();
	cleanup();
	return r;
}
