/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_decode_tunnel.c - RoCE inside GRE / ERSPAN I-III / VXLAN / Geneve
 * (decode_tunnel.c, build_tunnel.c): every encapsulation decodes to the
 * frame inside it (fields, offsets, ICRC verdict), on every prefix and
 * every wire cut, lying outer lengths, nesting depth, the ERSPAN T bit.
 */
#include "tunnel_testlib.h"

static const enum roce_encap all_encaps[] = {
	ROCE_ENCAP_ERSPAN1, ROCE_ENCAP_ERSPAN2, ROCE_ENCAP_ERSPAN3, ROCE_ENCAP_GRE,
	ROCE_ENCAP_VXLAN, ROCE_ENCAP_GENEVE,
};
#define N_ENCAPS (sizeof(all_encaps) / sizeof(all_encaps[0]))

/* Every encapsulation, outer IPv4 and IPv6, with and without an outer tag, GRE key and
 * checksum, ERSPAN III subheader, Geneve options: the same decode as the inner frame. */
static void test_each_encap(void)
{
	static uint8_t in[BUFSZ], w[BUFSZ];

	for (unsigned k = 0; k < N_INNER; k++) {
		size_t n = inner_frame(k, in, 200);
		struct roce_pkt pi, pw;
		int irc;

		REQUIRE(n > 0);
		irc = roce_decode(ROCE_LINKTYPE_ETHERNET, in, n, n, NULL, &pi);
		CHECK_EQ_U(pi.encap, ROCE_ENCAP_NONE);
		for (unsigned e = 0; e < N_ENCAPS; e++) {
			for (unsigned v = 0; v < 4; v++) {
				struct roce_encap_spec s;
				size_t wn;
				int wrc;
				bool ip_in;

				roce_encap_spec_init(&s, all_encaps[e]);
				s.ip_version = v & 1 ? 6 : 4;
				if (v & 1) {
					memset(s.src, 0, 16);
					s.src[0] = 0xfd;
					s.src[15] = 1;
					memcpy(s.dst, s.src, 16);
					s.dst[15] = 2;
				}
				if (v & 2) {
					s.vlan_tagged = true;
					s.vlan_id = 99;
					s.gre_key_present = true;
					s.gre_key = 0xdeadbeef;
					s.gre_csum = true;
					s.erspan3_subheader = true;
					s.geneve_opt_words = 3;
				}
				s.tclass = 3;           /* outer CE: not the RoCE frame's */
				s.session_id = 0x2a5;
				s.erspan_vlan = 0x123;
				REQUIRE(roce_build_encap(&s, in, n, w, sizeof(w), &wn) == ROCE_OK);
				wrc = decode_exact(w, wn, wn, &pw, false);
				ip_in = all_encaps[e] == ROCE_ENCAP_GRE && k != 2 && k != 4;
				check_same(&pi, &pw, irc, wrc, ip_in);
				CHECK_EQ_U(pw.encap, all_encaps[e]);
				CHECK_EQ_U(pw.encap_depth, 1);
				CHECK_EQ_U(pw.encap_note, ROCE_ENCAP_NOTE_NONE);
				CHECK(!pw.encap_truncated);
				CHECK(pw.frame == w + pw.encap_off);
				CHECK_EQ_U(pw.caplen, wn - pw.encap_off);
				if (all_encaps[e] == ROCE_ENCAP_ERSPAN2 ||
				    all_encaps[e] == ROCE_ENCAP_ERSPAN3) {
					CHECK_EQ_U(pw.erspan_session, 0x2a5);
					CHECK_EQ_U(pw.erspan_vlan, 0x123);
				} else {
					CHECK_EQ_U(pw.erspan_session, 0);
				}
				/* the general decoder alone gives the same */
				{
					struct roce_pkt pg;
					int grc = roce_decode_general(ROCE_LINKTYPE_ETHERNET, w, wn,
								      wn, NULL, &pg);

					CHECK_EQ_I(grc, wrc);
					CHECK_EQ_U(pg.encap, pw.encap);
					CHECK_EQ_U(pg.icrc_status, pw.icrc_status);
				}
			}
		}
	}
}

/* Each encapsulation cut at every byte (snap length) and every wire length: bounded, and a
 * clean result; the full frame decodes with its ICRC. */
static void test_prefix_and_wire_cuts(void)
{
	static uint8_t in[BUFSZ], w[BUFSZ];
	size_t n = inner_frame(0, in, 300);

	REQUIRE(n > 0);
	for (unsigned e = 0; e < N_ENCAPS; e++) {
		struct roce_encap_spec s;
		struct roce_pkt p;
		size_t wn;

		roce_encap_spec_init(&s, all_encaps[e]);
		s.gre_key_present = true;
		s.erspan3_subheader = true;
		s.geneve_opt_words = 2;
		REQUIRE(roce_build_encap(&s, in, n, w, sizeof(w), &wn) == ROCE_OK);
		for (size_t c = 0; c <= wn; c++) {
			for (int g = 0; g < 2; g++) {
				/* snap length c of a wn-byte frame */
				int rc = decode_snap(w, c, wn, &p, g);

				/* (GRE: its 4 bytes; VXLAN / Geneve: the UDP header) */
				if (p.kind == ROCE_KIND_NONE && c >= (all_encaps[e] >=
				    ROCE_ENCAP_VXLAN ? 34u + 8 : 34u + 4))
					CHECK_EQ_U(p.encap, all_encaps[e]);
				if (p.kind == ROCE_KIND_NONE && p.encap)
					CHECK(p.frame == w);    /* the outer frame's view */
				/* wire length c: the outer IP length lies (too long) */
				rc = decode_exact(w, c, c, &p, g);
				if (c < wn) {
					CHECK_EQ_I(rc, ROCE_E_NOT_ROCE);
					CHECK_EQ_U(p.kind, ROCE_KIND_NONE);
				}
			}
		}
	}
}

static void put_be16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* Outer IPv4 total length and UDP length one off either way. */
static void test_lying_lengths(void)
{
	static uint8_t in[BUFSZ], w[BUFSZ];
	size_t n = inner_frame(0, in, 100);

	for (unsigned e = 0; e < N_ENCAPS; e++) {
		struct roce_encap_spec s;
		size_t wn;

		roce_encap_spec_init(&s, all_encaps[e]);
		REQUIRE(roce_build_encap(&s, in, n, w, sizeof(w), &wn) == ROCE_OK);
		for (int d = -8; d <= 8; d += 16) {
			static uint8_t x[BUFSZ];
			struct roce_pkt p;
			int rc;

			/* IPv4 Total Length at 14 + 2 */
			memcpy(x, w, wn);
			put_be16(x + 16, (unsigned)((int)roce_get_be16(w + 16) + d));
			rc = decode_exact(x, wn, wn, &p, false);
			if (d > 0) {
				CHECK_EQ_I(rc, ROCE_E_NOT_ROCE);
				CHECK_EQ_U(p.encap_note, ROCE_ENCAP_NOTE_BAD_LENGTH);
			} else {
				/* the inner frame is shorter than its own IP header says */
				CHECK(rc != ROCE_OK);
				CHECK(p.kind == ROCE_KIND_NONE ||
				      (p.findings & ROCE_FIND_BAD_LENGTH));
				CHECK(p.icrc_status != ROCE_ICRC_OK);
			}
			if (all_encaps[e] != ROCE_ENCAP_VXLAN && all_encaps[e] != ROCE_ENCAP_GENEVE)
				continue;
			/* UDP Length at 14 + 20 + 4 */
			memcpy(x, w, wn);
			put_be16(x + 38, (unsigned)((int)roce_get_be16(w + 38) + d));
			rc = decode_exact(x, wn, wn, &p, false);
			CHECK_EQ_I(rc, ROCE_E_NOT_ROCE);
			CHECK_EQ_U(p.encap, all_encaps[e]);
			CHECK_EQ_U(p.encap_note, ROCE_ENCAP_NOTE_BAD_LENGTH);
		}
	}
}

/* Two nested tunnels decode; a third is not RoCE (too deep). */
static void test_nesting(void)
{
	static uint8_t in[BUFSZ], a[BUFSZ], b[BUFSZ], c[BUFSZ];
	struct roce_encap_spec s1, s2, s3;
	struct roce_pkt pi, p;
	size_t n = inner_frame(0, in, 64), na, nb, nc;
	int irc, rc;

	irc = roce_decode(ROCE_LINKTYPE_ETHERNET, in, n, n, NULL, &pi);
	roce_encap_spec_init(&s1, ROCE_ENCAP_ERSPAN3);
	s1.session_id = 17;
	roce_encap_spec_init(&s2, ROCE_ENCAP_VXLAN);
	roce_encap_spec_init(&s3, ROCE_ENCAP_GRE);
	REQUIRE(roce_build_encap(&s1, in, n, a, sizeof(a), &na) == ROCE_OK);
	REQUIRE(roce_build_encap(&s2, a, na, b, sizeof(b), &nb) == ROCE_OK);
	REQUIRE(roce_build_encap(&s3, b, nb, c, sizeof(c), &nc) == ROCE_OK);

	rc = decode_exact(b, nb, nb, &p, false);
	check_same(&pi, &p, irc, rc, false);
	CHECK_EQ_U(p.encap, ROCE_ENCAP_VXLAN);
	CHECK_EQ_U(p.encap_depth, 2);
	CHECK_EQ_U(p.erspan_session, 17);
	CHECK(p.frame == b + p.encap_off);
	CHECK_EQ_U(p.encap_off, nb - n);

	rc = decode_exact(c, nc, nc, &p, false);
	CHECK_EQ_I(rc, ROCE_E_NOT_ROCE);
	CHECK_EQ_U(p.kind, ROCE_KIND_NONE);
	CHECK_EQ_U(p.encap, ROCE_ENCAP_GRE);
	CHECK_EQ_U(p.encap_note, ROCE_ENCAP_NOTE_TOO_DEEP);
	CHECK(p.frame == c);
	CHECK_EQ_U(p.wirelen, nc);
	for (size_t k = 0; k <= nc; k++)
		decode_exact(c, k, nc, &p, false);      /* bounded at every cut */
}

/* ERSPAN T bit: the mirror cut the frame; its ICRC is unverifiable, not a bad length. */
static void test_erspan_truncated(void)
{
	static uint8_t in[BUFSZ], w[BUFSZ];
	size_t n = inner_frame(1, in, 1024), cut = 128, wn;
	struct roce_pkt pi, p;
	struct roce_encap_spec s;
	int irc, rc;

	REQUIRE(n > cut);
	irc = roce_decode(ROCE_LINKTYPE_ETHERNET, in, cut, n, NULL, &pi);  /* snaplen cut */
	CHECK_EQ_I(irc, ROCE_OK);
	for (int e = ROCE_ENCAP_ERSPAN2; e <= ROCE_ENCAP_ERSPAN3; e++) {
		roce_encap_spec_init(&s, (enum roce_encap)e);
		s.truncated = true;
		REQUIRE(roce_build_encap(&s, in, cut, w, sizeof(w), &wn) == ROCE_OK);
		rc = decode_exact(w, wn, wn, &p, false);
		check_same(&pi, &p, irc, rc, false);
		CHECK_EQ_U(p.icrc_status, ROCE_ICRC_UNVERIFIED);
		CHECK(p.encap_truncated);
		CHECK_EQ_U(p.wirelen, n);
		CHECK_EQ_U(p.caplen, cut);
		/* the same cut without the T bit: the inner frame lies about its length */
		s.truncated = false;
		REQUIRE(roce_build_encap(&s, in, cut, w, sizeof(w), &wn) == ROCE_OK);
		rc = decode_exact(w, wn, wn, &p, false);
		CHECK_EQ_I(rc, ROCE_E_MALFORMED);
		CHECK(p.findings & ROCE_FIND_BAD_LENGTH);
	}
}

/* Versions and protocols the decoder does not take: not RoCE, with the reason. */
static void test_unsupported(void)
{
	static uint8_t in[BUFSZ], w[BUFSZ], x[BUFSZ];
	size_t n = inner_frame(0, in, 64), wn;
	struct roce_encap_spec s;
	struct roce_pkt p;
	int rc;

	/* GRE version 1 (PPTP) */
	roce_encap_spec_init(&s, ROCE_ENCAP_GRE);
	REQUIRE(roce_build_encap(&s, in, n, w, sizeof(w), &wn) == ROCE_OK);
	memcpy(x, w, wn);
	x[34 + 1] |= 1;
	rc = decode_exact(x, wn, wn, &p, false);
	CHECK_EQ_I(rc, ROCE_E_NOT_ROCE);
	CHECK_EQ_U(p.encap, ROCE_ENCAP_GRE);
	CHECK_EQ_U(p.encap_note, ROCE_ENCAP_NOTE_UNSUPPORTED);
	/* GRE protocol PPP */
	memcpy(x, w, wn);
	put_be16(x + 34 + 2, 0x880b);
	rc = decode_exact(x, wn, wn, &p, false);
	CHECK_EQ_U(p.encap_note, ROCE_ENCAP_NOTE_UNSUPPORTED);
	/* ERSPAN II header with version 2 */
	roce_encap_spec_init(&s, ROCE_ENCAP_ERSPAN2);
	REQUIRE(roce_build_encap(&s, in, n, w, sizeof(w), &wn) == ROCE_OK);
	memcpy(x, w, wn);
	x[34 + 8] = (uint8_t)((x[34 + 8] & 0x0f) | 0x20);
	rc = decode_exact(x, wn, wn, &p, false);
	CHECK_EQ_I(rc, ROCE_E_NOT_ROCE);
	CHECK_EQ_U(p.encap, ROCE_ENCAP_ERSPAN2);
	CHECK_EQ_U(p.encap_note, ROCE_ENCAP_NOTE_UNSUPPORTED);
	/* Geneve version 1 */
	roce_encap_spec_init(&s, ROCE_ENCAP_GENEVE);
	REQUIRE(roce_build_encap(&s, in, n, w, sizeof(w), &wn) == ROCE_OK);
	memcpy(x, w, wn);
	x[42] |= 0x40;
	rc = decode_exact(x, wn, wn, &p, false);
	CHECK_EQ_U(p.encap, ROCE_ENCAP_GENEVE);
	CHECK_EQ_U(p.encap_note, ROCE_ENCAP_NOTE_UNSUPPORTED);
	/* UDP to 4790: no tunnel at all */
	roce_encap_spec_init(&s, ROCE_ENCAP_VXLAN);
	REQUIRE(roce_build_encap(&s, in, n, w, sizeof(w), &wn) == ROCE_OK);
	memcpy(x, w, wn);
	put_be16(x + 36, 4790);
	rc = decode_exact(x, wn, wn, &p, false);
	CHECK_EQ_I(rc, ROCE_E_NOT_ROCE);
	CHECK_EQ_U(p.encap, ROCE_ENCAP_NONE);
	/* VXLAN with a TCP frame inside: an encapsulation, not RoCE, no note */
	memcpy(x, w, wn);
	x[50 + 14 + 9] = 6;
	rc = decode_exact(x, wn, wn, &p, false);
	CHECK_EQ_I(rc, ROCE_E_NOT_ROCE);
	CHECK_EQ_U(p.encap, ROCE_ENCAP_VXLAN);
	CHECK_EQ_U(p.encap_note, ROCE_ENCAP_NOTE_NONE);
	CHECK(p.frame == x);
	CHECK_EQ_U(p.wirelen, wn);
}

/* Raw-IP link type: the tunnel starts at the IP header. */
static void test_raw_ip(void)
{
	static uint8_t in[BUFSZ], w[BUFSZ];
	size_t n = inner_frame(0, in, 64), wn;
	struct roce_encap_spec s;
	struct roce_pkt p;
	int rc;

	roce_encap_spec_init(&s, ROCE_ENCAP_VXLAN);
	REQUIRE(roce_build_encap(&s, in, n, w, sizeof(w), &wn) == ROCE_OK);
	rc = roce_decode(ROCE_LINKTYPE_RAW, w + 14, wn - 14, wn - 14, NULL, &p);
	CHECK_EQ_I(rc, ROCE_OK);
	CHECK_EQ_U(p.encap, ROCE_ENCAP_VXLAN);
	CHECK_EQ_U(p.icrc_status, ROCE_ICRC_OK);
	CHECK(p.frame == w + 14 + p.encap_off);
}

/* The fast path writes encap: a struct holding an old result does not keep it. */
static void test_fast_path_clears(void)
{
	static uint8_t in[BUFSZ];
	size_t n = inner_frame(0, in, 64);
	struct roce_pkt p;
	struct roce_decode_opts o;

	memset(&p, 0xff, sizeof(p));
	CHECK_EQ_I(roce_decode(ROCE_LINKTYPE_ETHERNET, in, n, n, NULL, &p), ROCE_OK);
	CHECK_EQ_U(p.encap, ROCE_ENCAP_NONE);
	roce_decode_opts_init(&o);
	o.analysis_only = true;
	memset(&p, 0xff, sizeof(p));
	CHECK_EQ_I(roce_decode(ROCE_LINKTYPE_ETHERNET, in, n, n, &o, &p), ROCE_OK);
	CHECK_EQ_U(p.encap, ROCE_ENCAP_NONE);
}

/* roce_rewrite_frame() leaves RoCE inside a tunnel alone (not RoCE: L2 edits only). */
static void test_rewrite_leaves_tunnels(void)
{
	static uint8_t in[BUFSZ], w[BUFSZ];
	size_t n = inner_frame(0, in, 64), wn;
	struct roce_encap_spec s;

	roce_encap_spec_init(&s, ROCE_ENCAP_VXLAN);
	REQUIRE(roce_build_encap(&s, in, n, w, sizeof(w), &wn) == ROCE_OK);
	check_rewrite_leaves(w, wn);
}

static void test_names(void)
{
	for (unsigned e = 0; e < N_ENCAPS; e++)
		CHECK_EQ_U(roce_encap_from_name(roce_encap_name(all_encaps[e])), all_encaps[e]);
	CHECK_STR(roce_encap_name(ROCE_ENCAP_VXLAN), "vxlan");
	CHECK_EQ_U(roce_encap_from_name("none"), ROCE_ENCAP_NONE);
	CHECK_EQ_U(roce_encap_from_name("vxla"), ROCE_ENCAP_NONE);
	CHECK_EQ_U(roce_encap_from_name("vxlanx"), ROCE_ENCAP_NONE);
	CHECK(roce_encap_name((enum roce_encap)ROCE_ENCAP_COUNT) == NULL);
}

int main(void)
{
	RUN(test_each_encap);
	RUN(test_prefix_and_wire_cuts);
	RUN(test_lying_lengths);
	RUN(test_nesting);
	RUN(test_erspan_truncated);
	RUN(test_unsupported);
	RUN(test_raw_ip);
	RUN(test_fast_path_clears);
	RUN(test_rewrite_leaves_tunnels);
	RUN(test_names);
	return check_report();
}
