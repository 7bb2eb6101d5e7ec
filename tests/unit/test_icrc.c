/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_icrc.c - ICRC against the verified vectors V1..V9, masked/unmasked
 * mutations, VLAN/padding/FCS independence, both CRC providers.
 */
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

#include <zlib.h>

#include <roce/buf.h>
#include <roce/build.h>
#include <roce/icrc.h>
#include <roce/pkt.h>

#include "check.h"
#include "roce_vectors.h"

static uint8_t frame[2048];

static size_t load(size_t i)
{
	return check_hex(roce_test_vectors[i].hex, frame, sizeof(frame));
}

static int decode(const uint8_t *f, size_t n, struct roce_pkt *pkt)
{
	return roce_decode(ROCE_LINKTYPE_ETHERNET, f, n, n, NULL, pkt);
}

static void test_vectors_ok(void)
{
	for (size_t i = 0; i < ROCE_TEST_VECTOR_COUNT; i++) {
		struct roce_pkt pkt;
		size_t n = load(i);
		uint32_t v = 0;

		CHECK_EQ_I(decode(frame, n, &pkt), ROCE_OK);
		CHECK_EQ_U(pkt.kind, ROCE_KIND_ROCE);
		CHECK_EQ_U(pkt.icrc_status, ROCE_ICRC_OK);
		CHECK_EQ_U(pkt.icrc_wire, roce_test_vectors[i].icrc);
		CHECK_EQ_U(pkt.icrc_computed, roce_test_vectors[i].icrc);
		CHECK_EQ_U(pkt.findings, 0);
		CHECK_EQ_U(pkt.icrc_off, n - 4);
		/* recompute with the ICRC bytes zeroed: same value */
		memset(frame + n - 4, 0, 4);
		CHECK_EQ_I(roce_icrc_compute(&pkt, &v), ROCE_OK);
		CHECK_EQ_U(v, roce_test_vectors[i].icrc);
		if (check_cur_failed_)
			fprintf(stderr, "  vector %s\n", roce_test_vectors[i].id);
	}
}

/* Offsets (from the frame start) of masked fields, per encapsulation. */
static void mutate_expect(size_t vi, const size_t *offs, size_t n_offs, int expect_ok)
{
	for (size_t k = 0; k < n_offs; k++) {
		struct roce_pkt pkt;
		size_t n = load(vi);

		frame[offs[k]] ^= 0x5a;
		(void)decode(frame, n, &pkt);
		if (expect_ok)
			CHECK_EQ_U(pkt.icrc_status, ROCE_ICRC_OK);
		else
			CHECK(pkt.icrc_status == ROCE_ICRC_BAD && (pkt.findings & ROCE_FIND_BAD_ICRC));
		if (check_cur_failed_) {
			fprintf(stderr, "  vector %s offset %zu\n", roce_test_vectors[vi].id, offs[k]);
			return;
		}
	}
}

static void test_masked_fields(void)
{
	/* V1 (IPv4 at 14): TOS, TTL, IP csum, UDP csum, BTH byte 4 */
	static const size_t v4[] = { 15, 22, 24, 25, 40, 41, 46 };
	/* V5 (IPv6 at 14): TC/flow label nibbles, flow label, hop limit, UDP csum, BTH byte 4 */
	static const size_t v6[] = { 15, 16, 17, 21, 60, 61, 66 };
	/* V6 (GRH at 14): TClass/FlowLabel bytes, HopLmt, BTH byte 4 */
	static const size_t g1[] = { 15, 16, 17, 21, 58 };

	mutate_expect(0, v4, sizeof(v4) / sizeof(v4[0]), 1);
	mutate_expect(4, v6, sizeof(v6) / sizeof(v6[0]), 1);
	mutate_expect(5, g1, sizeof(g1) / sizeof(g1[0]), 1);
	/* IPv4 TOS change keeps the frame decodable (IP csum now wrong, ICRC fine) */
	{
		struct roce_pkt pkt;
		size_t n = load(0);

		frame[15] = 0x03;       /* switch marks CE */
		(void)decode(frame, n, &pkt);
		CHECK_EQ_U(pkt.ecn, 3);
		CHECK_EQ_U(pkt.icrc_status, ROCE_ICRC_OK);
		CHECK(pkt.findings & ROCE_FIND_BAD_IP_CSUM);
	}
}

static void test_unmasked_fields(void)
{
	/* V1: IP id, src addr, UDP sport, BTH opcode-adjacent flags, P_Key, QPN, PSN, payload */
	static const size_t v4[] = { 18, 19, 26, 33, 34, 35, 43, 44, 45, 48, 52, 56, 60, 65 };
	/* V5: dst addr, UDP sport, BTH P_Key, PSN, payload */
	static const size_t v6[] = { 30, 50, 62, 63, 65, 70, 73, 80 };
	/* V6: SGID, DGID, BTH P_Key, QPN, payload */
	static const size_t g1[] = { 25, 45, 56, 61, 70 };

	mutate_expect(0, v4, sizeof(v4) / sizeof(v4[0]), 0);
	mutate_expect(4, v6, sizeof(v6) / sizeof(v6[0]), 0);
	mutate_expect(5, g1, sizeof(g1) / sizeof(g1[0]), 0);
	/* the ICRC bytes themselves */
	{
		struct roce_pkt pkt;
		size_t n = load(2);

		frame[n - 1] ^= 1;
		CHECK_EQ_I(decode(frame, n, &pkt), ROCE_OK);
		CHECK_EQ_U(pkt.icrc_status, ROCE_ICRC_BAD);
		CHECK_EQ_U(pkt.icrc_computed, roce_test_vectors[2].icrc);
	}
}

static void test_vlan_stripped(void)
{
	uint8_t stripped[256];
	struct roce_pkt a, b;
	size_t n = load(1);

	CHECK_EQ_I(decode(frame, n, &a), ROCE_OK);
	CHECK_EQ_U(a.vlan_count, 1);
	CHECK_EQ_U(a.vlan_id, 100);
	CHECK_EQ_U(a.pcp, 3);
	memcpy(stripped, frame, 12);
	memcpy(stripped + 12, frame + 16, n - 16);
	CHECK_EQ_I(decode(stripped, n - 4, &b), ROCE_OK);
	CHECK_EQ_U(b.vlan_count, 0);
	CHECK_EQ_U(b.icrc_status, ROCE_ICRC_OK);
	CHECK_EQ_U(b.icrc_computed, a.icrc_computed);
	CHECK_EQ_U(b.icrc_computed, 0xbe9d369cu);
}

static void test_padding_and_fcs(void)
{
	for (size_t i = 0; i < ROCE_TEST_VECTOR_COUNT; i++) {
		struct roce_pkt pkt;
		size_t n = load(i);

		/* fake FCS */
		memcpy(frame + n, "\xde\xad\xbe\xef", 4);
		CHECK_EQ_I(decode(frame, n + 4, &pkt), ROCE_OK);
		CHECK_EQ_U(pkt.icrc_status, ROCE_ICRC_OK);
		CHECK_EQ_U(pkt.icrc_off, n - 4);
		/* Ethernet padding to 60 bytes plus an FCS, or 18 junk bytes */
		memset(frame + n, 0, 18);
		CHECK_EQ_I(decode(frame, n + 18, &pkt), ROCE_OK);
		CHECK_EQ_U(pkt.icrc_status, ROCE_ICRC_OK);
		CHECK_EQ_U(pkt.payload_off + pkt.payload_len + pkt.bth.padcnt, n - 4);
	}
}

static void test_verify_off(void)
{
	struct roce_decode_opts o;
	struct roce_pkt pkt;
	size_t n = load(0);

	roce_decode_opts_init(&o);
	o.verify_icrc = false;
	CHECK_EQ_I(roce_decode(ROCE_LINKTYPE_ETHERNET, frame, n, n, &o, &pkt), ROCE_OK);
	CHECK_EQ_U(pkt.icrc_status, ROCE_ICRC_UNVERIFIED);
	CHECK_EQ_U(pkt.icrc_wire, 0x331c4cf1u);
	/* snaplen cut inside the ICRC: headers decoded, ICRC unverified */
	CHECK_EQ_I(roce_decode(ROCE_LINKTYPE_ETHERNET, frame, n - 2, n, NULL, &pkt), ROCE_OK);
	CHECK_EQ_U(pkt.icrc_status, ROCE_ICRC_UNVERIFIED);
	CHECK_EQ_U(pkt.findings & ROCE_FIND_TRUNCATED, 0);
	/* compute on a cut frame */
	pkt.caplen = pkt.icrc_off - 1;
	{
		uint32_t v;

		CHECK_EQ_I(roce_icrc_compute(&pkt, &v), ROCE_E_TRUNC);
	}
}

static void test_compute_rejects_bad_pkt(void)
{
	struct roce_pkt pkt;
	uint32_t v;
	size_t n = load(0);

	CHECK_EQ_I(decode(frame, n, &pkt), ROCE_OK);
	pkt.bth_off = pkt.l3_off - 1;
	CHECK_EQ_I(roce_icrc_compute(&pkt, &v), ROCE_E_INVAL);
	CHECK_EQ_I(decode(frame, n, &pkt), ROCE_OK);
	pkt.kind = ROCE_KIND_PFC;
	CHECK_EQ_I(roce_icrc_compute(&pkt, &v), ROCE_E_INVAL);
	CHECK_EQ_I(decode(frame, n, &pkt), ROCE_OK);
	pkt.udp_off = 200;
	CHECK_EQ_I(roce_icrc_compute(&pkt, &v), ROCE_E_INVAL);
}

/*
 * roce_icrc_verify after a decode with verify_icrc off gives exactly what a
 * verifying decode gives: good, corrupted, snaplen-cut and non-RoCE frames;
 * calling it again changes nothing.
 */
static void test_verify_later(void)
{
	enum { PER = 4, MAXF = 4 * ROCE_TEST_VECTOR_COUNT + 2 };
	static uint8_t bufs[MAXF][256];
	static struct roce_pkt ref[MAXF], lazy[MAXF];
	struct roce_decode_opts off;
	size_t lens[MAXF], wire[MAXF], nf = 0;

	roce_decode_opts_init(&off);
	off.verify_icrc = false;
	for (size_t i = 0; i < ROCE_TEST_VECTOR_COUNT; i++) {
		size_t n = load(i);

		CHECK(n <= sizeof(bufs[0]));
		for (int k = 0; k < PER; k++) {
			memcpy(bufs[nf], frame, n);
			lens[nf] = wire[nf] = n;
			if (k == 1)
				bufs[nf][n - 5] ^= 0x01;        /* payload/header bit: bad ICRC */
			if (k == 2)
				lens[nf] = n - 2;               /* cut inside the ICRC */
			if (k == 3)
				bufs[nf][n - 1] ^= 0x80;        /* stored ICRC wrong */
			nf++;
		}
	}
	/* not RoCE: an ARP-typed frame */
	memset(bufs[nf], 0, 64);
	bufs[nf][12] = 0x08;
	bufs[nf][13] = 0x06;
	lens[nf] = wire[nf] = 64;
	nf++;
	for (size_t i = 0; i < nf; i++) {
		int r1 = roce_decode(ROCE_LINKTYPE_ETHERNET, bufs[i], lens[i], wire[i], NULL, &ref[i]);
		int r2 = roce_decode(ROCE_LINKTYPE_ETHERNET, bufs[i], lens[i], wire[i], &off, &lazy[i]);

		CHECK_EQ_I(r1, r2);
		CHECK_EQ_U(lazy[i].icrc_status, ROCE_ICRC_UNVERIFIED);
	}
	for (size_t i = 0; i < nf; i++) {
		const struct roce_pkt *p = &lazy[i];

		CHECK_EQ_U(roce_icrc_verify(&lazy[i]), ref[i].icrc_status);
		CHECK_EQ_U(roce_icrc_verify(&lazy[i]), ref[i].icrc_status);     /* no change */
		CHECK_EQ_U(p->icrc_status, ref[i].icrc_status);
		CHECK_EQ_U(p->icrc_computed, ref[i].icrc_computed);
		CHECK_EQ_U(p->icrc_wire, ref[i].icrc_wire);
		CHECK_EQ_U(p->findings, ref[i].findings);
		if (check_cur_failed_) {
			fprintf(stderr, "  frame %zu\n", i);
			break;
		}
	}
	/* the mix really covers all three outcomes */
	CHECK_EQ_U(ref[0].icrc_status, ROCE_ICRC_OK);
	CHECK_EQ_U(ref[1].icrc_status, ROCE_ICRC_BAD);
	CHECK_EQ_U(ref[2].icrc_status, ROCE_ICRC_UNVERIFIED);
	CHECK_EQ_U(ref[3].icrc_status, ROCE_ICRC_BAD);
	CHECK(ref[1].findings & ROCE_FIND_BAD_ICRC);
}

/*
 * roce_icrc_take_verdict: the verdict of a verifying decode (computed "ahead",
 * as roce-analyze's reader helper does) applied to a non-verifying decode
 * gives exactly the verifying decode's fields; a wrong OK verdict is taken
 * as it is (the caller's contract), any other verdict is checked again, and
 * a frame without a verifiable ICRC ignores the verdict.
 */
static void test_take_verdict(void)
{
	static const enum roce_icrc_status verdicts[] = {
		ROCE_ICRC_UNVERIFIED, ROCE_ICRC_OK, ROCE_ICRC_BAD
	};
	struct roce_decode_opts off;
	struct roce_pkt ref, p;
	uint8_t buf[256];
	unsigned seen[3] = { 0 };

	roce_decode_opts_init(&off);
	off.verify_icrc = false;
	for (size_t i = 0; i < ROCE_TEST_VECTOR_COUNT; i++) {
		size_t n = load(i);

		CHECK(n <= sizeof(buf));
		for (int k = 0; k < 4; k++) {
			size_t cap = k == 2 ? n - 2 : n;
			int r1, r2;

			memcpy(buf, frame, n);
			if (k == 1)
				buf[n - 5] ^= 0x01;
			if (k == 3)
				buf[n - 1] ^= 0x80;
			r1 = roce_decode(ROCE_LINKTYPE_ETHERNET, buf, cap, n, NULL, &ref);
			seen[ref.icrc_status]++;
			/* the true verdict: every field as a verifying decode */
			r2 = roce_decode(ROCE_LINKTYPE_ETHERNET, buf, cap, n, &off, &p);
			CHECK_EQ_I(r1, r2);
			CHECK_EQ_U(roce_icrc_take_verdict(&p, ref.icrc_status), ref.icrc_status);
			CHECK_EQ_U(p.icrc_computed, ref.icrc_computed);
			CHECK_EQ_U(p.icrc_wire, ref.icrc_wire);
			CHECK_EQ_U(p.findings, ref.findings);
			/* UNVERIFIED and BAD verdicts are checked again: the true result */
			for (int v = 0; v < 3; v += 2) {
				roce_decode(ROCE_LINKTYPE_ETHERNET, buf, cap, n, &off, &p);
				CHECK_EQ_U(roce_icrc_take_verdict(&p, verdicts[v]), ref.icrc_status);
				CHECK_EQ_U(p.icrc_computed, ref.icrc_computed);
				CHECK_EQ_U(p.findings, ref.findings);
			}
			/* an OK verdict is trusted where the ICRC can be verified */
			roce_decode(ROCE_LINKTYPE_ETHERNET, buf, cap, n, &off, &p);
			CHECK_EQ_U(roce_icrc_take_verdict(&p, ROCE_ICRC_OK),
				   k == 2 ? ROCE_ICRC_UNVERIFIED : ROCE_ICRC_OK);
			/* icrc_known_ok: that OK verdict taken in the decoder, byte for byte */
			for (int lean = 0; lean < 2; lean++) {
				struct roce_decode_opts o1 = off, o2;
				struct roce_pkt q;

				o1.analysis_only = lean;
				o2 = o1;
				o2.icrc_known_ok = true;
				memset(&p, 0xa5, sizeof(p));
				memset(&q, 0xa5, sizeof(q));
				r1 = roce_decode(ROCE_LINKTYPE_ETHERNET, buf, cap, n, &o1, &p);
				roce_icrc_take_verdict(&p, ROCE_ICRC_OK);
				r2 = roce_decode(ROCE_LINKTYPE_ETHERNET, buf, cap, n, &o2, &q);
				CHECK_EQ_I(r1, r2);
				/* (struct roce_aeth's padding after syndrome is unspecified: a
				 * compound-literal store may fill it with anything, as clang does) */
				memset((char *)&p.aeth + 1, 0, offsetof(struct roce_aeth, msn) - 1);
				memset((char *)&q.aeth + 1, 0, offsetof(struct roce_aeth, msn) - 1);
				CHECK(memcmp(&p, &q, sizeof(p)) == 0);
			}
			if (check_cur_failed_) {
				fprintf(stderr, "  vector %zu variant %d\n", i, k);
				return;
			}
		}
	}
	CHECK(seen[ROCE_ICRC_OK] > 0 && seen[ROCE_ICRC_BAD] > 0 && seen[ROCE_ICRC_UNVERIFIED] > 0);
}

/*
 * RoCE v2 over IPv4 without options: the decoder's and the helper's ICRC (CRC'd in
 * place, the masks applied to the CRC through icrc.c's table) against the builder's
 * (masked in place, one pass), every value of every masked byte, and lengths from the
 * bare BTH (the header alone) up.
 */
static void test_v4_masks_in_place(void)
{
	static const size_t v4[] = { 15, 22, 24, 25, 40, 41, 46 };
	static uint8_t pay[1500], buf[1600];
	uint32_t seed = 777;
	struct roce_frame_spec sp;
	struct roce_pkt pkt;
	size_t n, len, k;
	unsigned v;

	for (k = 0; k < sizeof(v4) / sizeof(v4[0]); k++) {
		for (v = 0; v < 256; v++) {
			n = load(0);
			frame[v4[k]] = (uint8_t)v;
			(void)decode(frame, n, &pkt);
			CHECK_EQ_U(pkt.icrc_status, ROCE_ICRC_OK);
			CHECK_EQ_U(roce_icrc_frame_verdict(ROCE_LINKTYPE_ETHERNET, frame, n, n, NULL),
				   ROCE_ICRC_OK);
			if (check_cur_failed_) {
				fprintf(stderr, "  offset %zu value %u\n", v4[k], v);
				return;
			}
		}
	}
	for (k = 0; k < sizeof(pay); k++) {
		seed = seed * 1103515245u + 12345u;
		pay[k] = (uint8_t)(seed >> 16);
	}
	for (n = 0; n <= sizeof(pay); n += n < 300 ? 1 : 37) {
		roce_frame_spec_init(&sp);
		sp.tclass = (uint8_t)(n * 7);
		sp.ttl = (uint8_t)(n * 13 + 1);
		sp.ip_id = (uint16_t)(n * 1009);
		sp.sport = (uint16_t)(0xc000 + n);
		sp.bth.fecn = n & 1;
		sp.bth.becn = (n >> 1) & 1;
		sp.payload = pay;
		sp.payload_len = (uint32_t)n;
		sp.no_min_pad = true;
		CHECK_EQ_I(roce_build(&sp, buf, sizeof(buf), &len), ROCE_OK);
		buf[40] = (uint8_t)n;   /* a UDP checksum: masked too */
		(void)decode(buf, len, &pkt);
		CHECK_EQ_U(pkt.icrc_status, ROCE_ICRC_OK);
		CHECK_EQ_U(roce_icrc_frame_verdict(ROCE_LINKTYPE_ETHERNET, buf, len, len, NULL),
			   ROCE_ICRC_OK);
		buf[len - 5] ^= 0x10;   /* the last byte before the ICRC: not masked */
		(void)decode(buf, len, &pkt);
		CHECK_EQ_U(pkt.icrc_status, ROCE_ICRC_BAD);
		CHECK_EQ_U(roce_icrc_frame_verdict(ROCE_LINKTYPE_ETHERNET, buf, len, len, NULL),
			   ROCE_ICRC_BAD);
		if (check_cur_failed_) {
			fprintf(stderr, "  payload %zu\n", n);
			return;
		}
	}
}

static void test_crc32_random(void)
{
	static uint8_t buf[5000];
	uint32_t seed = 12345;

	for (size_t i = 0; i < sizeof(buf); i++) {
		seed = seed * 1103515245u + 12345u;
		buf[i] = (uint8_t)(seed >> 16);
	}
	CHECK_EQ_U(roce_crc32(0, (const uint8_t *)"123456789", 9), 0xcbf43926u);
	CHECK_EQ_U(roce_crc32(0, (const uint8_t *)"\xff\xff\xff\xff\xff\xff\xff\xff", 8),
		0x2144df1cu);
	for (size_t len = 0; len < 300; len += 7) {
		for (size_t off = 0; off < 16; off += 3) {
			uint32_t z = (uint32_t)crc32(0, buf + off, (uInt)len);
			uint32_t r = roce_crc32(0, buf + off, len);

			CHECK_EQ_U(r, z);
			/* continuation */
			r = roce_crc32(roce_crc32(0, buf + off, len / 3), buf + off + len / 3,
				len - len / 3);
			CHECK_EQ_U(r, z);
		}
	}
	CHECK_EQ_U(roce_crc32(0, buf, sizeof(buf)), (uint32_t)crc32(0, buf, sizeof(buf)));
	CHECK_EQ_U(roce_crc32(0x1234, NULL, 0), 0x1234);
}

static void run_all(const char *label)
{
	fprintf(stderr, "-- provider %s (%s)\n", label, roce_crc32_provider_name());
	RUN(test_vectors_ok);
	RUN(test_masked_fields);
	RUN(test_v4_masks_in_place);
	RUN(test_unmasked_fields);
	RUN(test_vlan_stripped);
	RUN(test_padding_and_fcs);
	RUN(test_verify_off);
	RUN(test_compute_rejects_bad_pkt);
	RUN(test_verify_later);
	RUN(test_take_verdict);
	RUN(test_crc32_random);
}

int main(void)
{
	int rc;

	CHECK_EQ_I(roce_crc32_set_provider(ROCE_CRC_ZLIB), ROCE_OK);
	CHECK_STR(roce_crc32_provider_name(), "zlib");
	run_all("zlib");
	rc = roce_crc32_set_provider(ROCE_CRC_ISAL);
	if (rc == ROCE_OK) {
		CHECK_STR(roce_crc32_provider_name(), "isa-l");
		run_all("isa-l");
	} else {
		CHECK_EQ_I(rc, ROCE_E_UNSUPPORTED);
		printf("SKIP isa-l provider: not built in\n");
	}
	CHECK_EQ_I(roce_crc32_set_provider(ROCE_CRC_AUTO), ROCE_OK);
	CHECK_EQ_I(roce_crc32_set_provider((enum roce_crc_provider)42), ROCE_E_INVAL);
	return check_report();
}
