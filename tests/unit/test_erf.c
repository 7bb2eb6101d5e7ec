/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_erf.c - the ERF record header (LINKTYPE_ERF): timestamps, loss
 * counter vs colour, extension headers, lengths, errors; and roce_decode()
 * of ERF-wrapped frames giving the same result as the bare Ethernet frame.
 */
#include <stdlib.h>
#include <string.h>

#include <roce/buf.h>
#include <roce/erf.h>
#include <roce/pkt.h>

#include "check.h"
#include "roce_vectors.h"

/* ERF record: header (+ n_ext extension headers) (+ 2 pad for Ethernet) + frame, rlen
 * padded to 8; returns its length. */
static size_t erf_wrap(uint8_t *out, uint8_t type, unsigned n_ext, uint64_t ts, uint16_t lctr,
		       const uint8_t *f, size_t n)
{
	size_t off = 16, rlen;
	bool eth = type == 2 || type == 10 || type == 16 || type == 20;

	for (int i = 0; i < 8; i++)
		out[i] = (uint8_t)(ts >> (8 * i));
	out[8] = (uint8_t)(type | (n_ext ? 0x80 : 0));
	out[9] = 0x04;
	for (unsigned e = 0; e < n_ext; e++, off += 8) {
		memset(out + off, 0x11, 8);
		out[off] = (uint8_t)((e + 1 < n_ext ? 0x80 : 0) | 3);
	}
	if (eth) {
		out[off] = 0;
		out[off + 1] = 0;
		off += 2;
	}
	memcpy(out + off, f, n);
	rlen = off + n;
	while (rlen % 8)
		out[rlen++] = 0;
	roce_put_be16(out + 10, (uint16_t)rlen);
	roce_put_be16(out + 12, lctr);
	roce_put_be16(out + 14, (uint16_t)n);
	return rlen;
}

static void test_erf_header(void)
{
	uint8_t f[64] = { 0 }, r[128];
	struct roce_erf e;
	size_t n;

	/* 5.5 s; 2^-32 s rounds to 0 ns, 2^-31 s to 0 ns (0.47 ns), 3 * 2^-32 to 1 ns */
	n = erf_wrap(r, 2, 0, 5ull << 32 | 0x80000000u, 7, f, 60);
	CHECK_EQ_I(roce_erf_parse(r, n, &e), ROCE_OK);
	CHECK_EQ_U(e.ts_ns, 5500000000ull);
	CHECK_EQ_U(e.type, 2);
	CHECK_EQ_U(e.lctr, 7);
	CHECK_EQ_U(e.color, 0);
	CHECK_EQ_U(e.hdr_len, 18);
	CHECK_EQ_I(e.inner_linktype, ROCE_LINKTYPE_ETHERNET);
	CHECK_EQ_U(e.inner_caplen, 60);   /* the 4 bytes of record padding are not the frame's */
	CHECK_EQ_U(e.inner_wirelen, 60);
	n = erf_wrap(r, 2, 0, 5ull << 32 | 3u, 0, f, 60);
	CHECK_EQ_I(roce_erf_parse(r, n, &e), ROCE_OK);
	CHECK_EQ_U(e.ts_ns, 5000000001ull);
	n = erf_wrap(r, 2, 0, 5ull << 32 | 0xffffffffu, 0, f, 60); /* rounds up to 6 s */
	CHECK_EQ_I(roce_erf_parse(r, n, &e), ROCE_OK);
	CHECK_EQ_U(e.ts_ns, 6000000000ull);
	n = erf_wrap(r, 2, 0, UINT64_MAX, 0, f, 60);               /* 2^32 s: no overflow */
	CHECK_EQ_I(roce_erf_parse(r, n, &e), ROCE_OK);
	CHECK_EQ_U(e.ts_ns, 4294967296000000000ull);

	/* colour type: the field is a colour, not a loss count */
	n = erf_wrap(r, 10, 0, 0, 0x1234, f, 60);
	CHECK_EQ_I(roce_erf_parse(r, n, &e), ROCE_OK);
	CHECK_EQ_U(e.lctr, 0);
	CHECK_EQ_U(e.color, 0x1234);
	CHECK_EQ_I(e.inner_linktype, ROCE_LINKTYPE_ETHERNET);

	/* extension headers */
	n = erf_wrap(r, 2, 3, 0, 1, f, 60);
	CHECK_EQ_I(roce_erf_parse(r, n, &e), ROCE_OK);
	CHECK_EQ_U(e.n_ext, 3);
	CHECK_EQ_U(e.hdr_len, 16 + 24 + 2);
	CHECK_EQ_U(e.inner_caplen, 60);
	CHECK_EQ_I(roce_erf_parse(r, 16 + 23, &e), ROCE_E_TRUNC);  /* third one cut */

	/* IPv4 / IPv6 / InfiniBand / padding records */
	n = erf_wrap(r, 22, 0, 0, 0, f, 40);
	CHECK_EQ_I(roce_erf_parse(r, n, &e), ROCE_OK);
	CHECK_EQ_I(e.inner_linktype, ROCE_LINKTYPE_IPV4);
	CHECK_EQ_U(e.hdr_len, 16);
	n = erf_wrap(r, 23, 0, 0, 0, f, 40);
	CHECK_EQ_I(roce_erf_parse(r, n, &e), ROCE_OK);
	CHECK_EQ_I(e.inner_linktype, ROCE_LINKTYPE_IPV6);
	n = erf_wrap(r, 21, 0, 0, 2, f, 40);
	CHECK_EQ_I(roce_erf_parse(r, n, &e), ROCE_OK);
	CHECK_EQ_I(e.inner_linktype, -1);
	CHECK_EQ_U(e.lctr, 2);
	n = erf_wrap(r, 48, 0, 0, 0, f, 40);
	CHECK_EQ_I(roce_erf_parse(r, n, &e), ROCE_OK);
	CHECK_EQ_I(e.inner_linktype, -1);

	/* errors */
	CHECK_EQ_I(roce_erf_parse(r, 15, &e), ROCE_E_TRUNC);
	CHECK_EQ_I(roce_erf_parse(NULL, 0, &e), ROCE_E_TRUNC);
	CHECK_EQ_I(roce_erf_parse(r, 16, NULL), ROCE_E_INVAL);
	n = erf_wrap(r, 2, 0, 0, 0, f, 60);
	roce_put_be16(r + 10, 17);                                 /* rlen < header + pad */
	CHECK_EQ_I(roce_erf_parse(r, n, &e), ROCE_E_MALFORMED);
	CHECK_EQ_I(e.inner_linktype, -1);
	n = erf_wrap(r, 2, 0, 0, 0, f, 60);
	CHECK_EQ_I(roce_erf_parse(r, 40, &e), ROCE_OK);            /* snapped record */
	CHECK_EQ_U(e.inner_caplen, 22);
	CHECK_EQ_U(e.inner_wirelen, 60);
}

/* Every test vector wrapped in ERF decodes as the bare frame, and every prefix is safe. */
static void test_erf_decode(void)
{
	uint8_t f[256], r[512];

	for (size_t i = 0; i < ROCE_TEST_VECTOR_COUNT; i++) {
		size_t n = check_hex(roce_test_vectors[i].hex, f, sizeof(f));

		for (unsigned ext = 0; ext < 3; ext++) {
			struct roce_pkt a, b;
			size_t rn = erf_wrap(r, 2, ext, 1ull << 32, 0, f, n);
			int ra = roce_decode(ROCE_LINKTYPE_ETHERNET, f, n, n, NULL, &a);
			int rb = roce_decode(ROCE_LINKTYPE_ERF, r, rn, rn, NULL, &b);

			CHECK_EQ_I(rb, ra);
			CHECK_EQ_I(b.kind, a.kind);
			CHECK_EQ_U(b.bth.psn, a.bth.psn);
			CHECK_EQ_U(b.bth.dqpn, a.bth.dqpn);
			CHECK_EQ_I(b.icrc_status, a.icrc_status);
			CHECK_EQ_U(b.wirelen, n);
			for (size_t k = 0; k <= rn; k++) {
				uint8_t *copy = malloc(k ? k : 1);
				struct roce_pkt p;
				int rc;

				REQUIRE(copy);
				memcpy(copy, r, k);
				rc = roce_decode(ROCE_LINKTYPE_ERF, k ? copy : NULL, k, rn, NULL,
						 &p);
				CHECK(rc == ROCE_OK || rc == ROCE_E_TRUNC ||
				      rc == ROCE_E_MALFORMED || rc == ROCE_E_NOT_ROCE);
				if (p.kind == ROCE_KIND_ROCE &&
				    p.icrc_status != ROCE_ICRC_UNVERIFIED)
					CHECK(p.frame + p.icrc_off + 4 <= copy + k);
				free(copy);
			}
		}
	}
	CHECK(roce_linktype_supported(ROCE_LINKTYPE_ERF));
}

int main(void)
{
	RUN(test_erf_header);
	RUN(test_erf_decode);
	return check_report();
}
