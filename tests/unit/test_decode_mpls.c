/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_decode_mpls.c - RoCE inside an MPLS label stack (decode_mpls.c,
 * build_tunnel.c): IPv4 / IPv6 inside, an Ethernet pseudowire with and
 * without a control word, tags before the stack, 1 to ROCE_MAX_MPLS_LABELS
 * labels and one more refused, GAL and other payloads, MPLS in GRE, UDP and
 * IP, SLL, LINKTYPE_MPLS, nesting with the tunnels; every prefix and wire cut; the ICRC
 * verdict from the headers alone always the decoder's.
 */
#include "tunnel_testlib.h"

/* Ethernet [+ tag] + an MPLS stack of n labels around in (spec's defaults otherwise). */
static size_t wrap_mpls(const uint8_t *in, size_t n_in, unsigned n, bool pw, bool tag,
	uint8_t *w)
{
	struct roce_encap_spec s;
	size_t wn = 0;

	roce_encap_spec_init(&s, ROCE_ENCAP_MPLS);
	s.mpls_count = (uint8_t)n;
	for (unsigned i = 0; i < n; i++)
		s.mpls_labels[i] = 16 + 1000 * i;
	s.mpls_pw = pw;
	s.vlan_tagged = tag;
	s.vlan_id = 99;
	if (roce_build_encap(&s, in, n_in, w, BUFSZ, &wn) != ROCE_OK)
		return 0;
	return wn;
}

/* Every inner frame, IP inside or a pseudowire, 1, 3 and 8 labels, with and without a
 * tag before the stack, EtherType 0x8847 and 0x8848, label TC bits set: the inner
 * frame's decode. */
static void test_each_inner(void)
{
	static uint8_t in[BUFSZ], w[BUFSZ];
	static const unsigned counts[] = { 1, 3, ROCE_MAX_MPLS_LABELS };

	for (unsigned k = 0; k < N_INNER; k++) {
		size_t n = inner_frame(k, in, 200);
		struct roce_pkt pi, pw;
		int irc;

		REQUIRE(n > 0);
		irc = roce_decode(ROCE_LINKTYPE_ETHERNET, in, n, n, NULL, &pi);
		CHECK(pi.kind != ROCE_KIND_NONE);
		for (unsigned v = 0; v < 3 * 2 * 2 * 2; v++) {
			unsigned labels = counts[v % 3];
			bool pwire = (v / 3) & 1, tag = (v / 6) & 1, mc = (v / 12) & 1;
			bool ip_in = !pwire && k != 2 && k != 4;
			size_t wn = wrap_mpls(in, n, labels, pwire, tag, w), l2 = tag ? 18 : 14;
			int wrc;

			REQUIRE(wn > 0);
			CHECK_EQ_U(roce_get_be16(w + l2 - 2), 0x8847);
			if (mc)
				w[l2 - 1] = 0x48;
			/* TC (EXP) bits of every label: not looked at */
			for (unsigned i = 0; i < labels; i++)
				w[l2 + 4 * i + 2] |= 0x0e;
			CHECK_EQ_U(wn, l2 + 4 * labels + (ip_in ? n - pi.l3_off : 4 + n));
			wrc = decode_exact(w, wn, wn, &pw, false);
			check_same(&pi, &pw, irc, wrc, ip_in);
			CHECK_EQ_U(pw.encap, ROCE_ENCAP_MPLS);
			CHECK_EQ_U(pw.encap_depth, 1);
			CHECK_EQ_U(pw.encap_note, ROCE_ENCAP_NOTE_NONE);
			CHECK_EQ_U(pw.encap_off, l2 + 4 * labels + (ip_in ? 0 : 4));
			CHECK(pw.frame == w + pw.encap_off);
			CHECK_EQ_U(pw.caplen, wn - pw.encap_off);
			CHECK_EQ_U(pw.wirelen, wn - pw.encap_off);
			{
				struct roce_pkt pg;
				int grc = decode_exact(w, wn, wn, &pg, true);

				CHECK_EQ_I(grc, wrc);
				CHECK_EQ_U(pg.encap, pw.encap);
				CHECK_EQ_U(pg.icrc_status, pw.icrc_status);
			}
		}
	}
}

/* One label more than ROCE_MAX_MPLS_LABELS: not RoCE, with the reason. */
static void test_too_many_labels(void)
{
	static uint8_t in[BUFSZ], w[BUFSZ], x[BUFSZ];
	size_t n = inner_frame(0, in, 64), wn = wrap_mpls(in, n, ROCE_MAX_MPLS_LABELS, false,
							   false, w);
	struct roce_pkt p;
	int rc;

	REQUIRE(wn > 0);
	/* a copy of the first label (no S bit) in front */
	memcpy(x, w, 14);
	memcpy(x + 14, w + 14, 4);
	memcpy(x + 18, w + 14, wn - 14);
	rc = decode_exact(x, wn + 4, wn + 4, &p, false);
	CHECK_EQ_I(rc, ROCE_E_NOT_ROCE);
	CHECK_EQ_U(p.kind, ROCE_KIND_NONE);
	CHECK_EQ_U(p.encap, ROCE_ENCAP_MPLS);
	CHECK_EQ_U(p.encap_note, ROCE_ENCAP_NOTE_LABELS);
	CHECK(p.frame == x);
	CHECK_EQ_U(p.wirelen, wn + 4);
	/* a stack whose S bit never comes: the same */
	memset(x + 14, 0, 4 * (ROCE_MAX_MPLS_LABELS + 1));
	rc = decode_exact(x, wn + 4, wn + 4, &p, false);
	CHECK_EQ_U(p.encap_note, ROCE_ENCAP_NOTE_LABELS);
	/* ... cut before the eighth label: truncated */
	rc = decode_exact(x, 14 + 4 * 7 + 2, wn + 4, &p, false);
	CHECK_EQ_I(rc, ROCE_E_NOT_ROCE);
	CHECK_EQ_U(p.encap_note, ROCE_ENCAP_NOTE_TRUNCATED);
}

/* A pseudowire without a control word: the reading that gives an EtherType decoded. */
static void test_pw_without_cw(void)
{
	static uint8_t in[BUFSZ], w[BUFSZ], x[BUFSZ];

	for (unsigned k = 0; k < N_INNER; k++) {
		size_t n = inner_frame(k, in, 100), wn = wrap_mpls(in, n, 2, true, false, w);
		struct roce_pkt pi, p;
		int irc, rc;

		REQUIRE(wn > 0);
		irc = roce_decode(ROCE_LINKTYPE_ETHERNET, in, n, n, NULL, &pi);
		/* the 4 control word bytes out */
		memcpy(x, w, 14 + 8);
		memcpy(x + 22, w + 26, wn - 26);
		rc = decode_exact(x, wn - 4, wn - 4, &p, false);
		check_same(&pi, &p, irc, rc, false);
		CHECK_EQ_U(p.encap_off, 22);
		/* with the control word: the control word's reading */
		rc = decode_exact(w, wn, wn, &p, false);
		check_same(&pi, &p, irc, rc, false);
		CHECK_EQ_U(p.encap_off, 26);
	}
	/* a frame whose destination starts with 4 (no control word): read as IPv4, as
	 * Wireshark does, so not RoCE */
	{
		size_t n = inner_frame(0, in, 100), wn;
		struct roce_pkt p;

		in[0] = 0x40;
		wn = wrap_mpls(in, n, 1, true, false, w);
		memcpy(x, w, 18);
		memcpy(x + 18, w + 22, wn - 22);
		CHECK_EQ_I(decode_exact(x, wn - 4, wn - 4, &p, false), ROCE_E_NOT_ROCE);
		CHECK_EQ_U(p.encap, ROCE_ENCAP_MPLS);
		CHECK_EQ_U(p.encap_note, ROCE_ENCAP_NOTE_NONE);
	}
}

/* GAL (13) at the bottom, first nibbles 1 and 5: unsupported; a GAL above: decoded. */
static void test_payload_kinds(void)
{
	static uint8_t in[BUFSZ], w[BUFSZ], x[BUFSZ];
	size_t n = inner_frame(0, in, 64), wn = wrap_mpls(in, n, 2, false, false, w);
	struct roce_pkt p;

	REQUIRE(wn > 0);
	memcpy(x, w, wn);
	x[18] = 0;
	x[19] = 0;
	x[20] = (uint8_t)((13 << 4) | (x[20] & 0x0f));     /* the bottom label 13 */
	CHECK_EQ_I(decode_exact(x, wn, wn, &p, false), ROCE_E_NOT_ROCE);
	CHECK_EQ_U(p.encap, ROCE_ENCAP_MPLS);
	CHECK_EQ_U(p.encap_note, ROCE_ENCAP_NOTE_UNSUPPORTED);
	memcpy(x, w, wn);
	x[14] = 0;
	x[15] = 0;
	x[16] = (uint8_t)((13 << 4) | (x[16] & 0x0f));     /* the top label 13 */
	CHECK_EQ_I(decode_exact(x, wn, wn, &p, false), ROCE_OK);
	CHECK_EQ_U(p.icrc_status, ROCE_ICRC_OK);
	for (unsigned nib = 1; nib < 16; nib++) {
		int rc;

		if (nib == 4 || nib == 6)
			continue;
		memcpy(x, w, wn);
		x[22] = (uint8_t)(nib << 4 | (x[22] & 0x0f));
		rc = decode_exact(x, wn, wn, &p, false);
		CHECK_EQ_I(rc, ROCE_E_NOT_ROCE);
		CHECK_EQ_U(p.encap, ROCE_ENCAP_MPLS);
		CHECK_EQ_U(p.encap_note, ROCE_ENCAP_NOTE_UNSUPPORTED);
	}
}

static uint16_t csum20(const uint8_t *p)
{
	uint32_t sum = 0;

	for (int i = 0; i < 20; i += 2)
		sum += roce_get_be16(p + i);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static void put_ipv4(uint8_t *ip, uint8_t proto, size_t tot)
{
	memset(ip, 0, 20);
	ip[0] = 0x45;
	roce_put_be16(ip + 2, (uint16_t)tot);
	roce_put_be16(ip + 6, 0x4000);
	ip[8] = 64;
	ip[9] = proto;
	roce_put_be32(ip + 12, 0xc0000201u);
	roce_put_be32(ip + 16, 0xc0000202u);
	roce_put_be16(ip + 10, csum20(ip));
}

/*
 * The label stack and payload of the Ethernet MPLS frame m (mn bytes) carried in
 * IPv4: GRE 0x8847 (how 0), UDP to 6635 (1), IP protocol 137 (2), GRE 0x8848 (3).
 */
static size_t wrap_in_ip(const uint8_t *m, size_t mn, unsigned how, uint8_t *x)
{
	size_t st = mn - 14, th = how == 1 ? 8 : how == 2 ? 0 : 4;

	memcpy(x, m, 12);
	roce_put_be16(x + 12, 0x0800);
	put_ipv4(x + 14, how == 1 ? 17 : how == 2 ? 137 : 47, 20 + th + st);
	memset(x + 34, 0, th);
	if (how == 1) {
		roce_put_be16(x + 34, 49152);
		roce_put_be16(x + 36, ROCE_MPLS_PORT);
		roce_put_be16(x + 38, (uint16_t)(8 + st));
	} else if (how != 2) {
		roce_put_be16(x + 36, how == 3 ? 0x8848 : 0x8847);
	}
	memcpy(x + 34 + th, m + 14, st);
	return 34 + th + st;
}

/* MPLS in GRE, UDP and IP: the inner frame's decode; GRE counts as gre. */
static void test_in_ip(void)
{
	static uint8_t in[BUFSZ], w[BUFSZ], x[BUFSZ];

	for (unsigned k = 0; k < N_INNER; k++) {
		size_t n = inner_frame(k, in, 150);
		struct roce_pkt pi;
		int irc = roce_decode(ROCE_LINKTYPE_ETHERNET, in, n, n, NULL, &pi);

		for (unsigned how = 0; how < 4; how++) {
			for (int pwire = 0; pwire < 2; pwire++) {
				size_t wn = wrap_mpls(in, n, 2, pwire, false, w), xn;
				bool ip_in = !pwire && k != 2 && k != 4;
				struct roce_pkt p;
				int rc;

				REQUIRE(wn > 0);
				xn = wrap_in_ip(w, wn, how, x);
				rc = decode_exact(x, xn, xn, &p, false);
				check_same(&pi, &p, irc, rc, ip_in);
				CHECK_EQ_U(p.encap, how == 0 || how == 3 ? ROCE_ENCAP_GRE :
					   ROCE_ENCAP_MPLS);
				CHECK_EQ_U(p.encap_depth, 1);
				CHECK(p.frame == x + p.encap_off);
				/* on raw IP as well */
				rc = decode_lt(ROCE_LINKTYPE_RAW, x + 14, xn - 14, xn - 14, &p,
					       false);
				check_same(&pi, &p, irc, rc, ip_in);
			}
		}
	}
	/* the UDP length one off: a bad length, nothing decoded */
	{
		size_t n = inner_frame(0, in, 64), wn = wrap_mpls(in, n, 1, false, false, w), xn;
		struct roce_pkt p;

		xn = wrap_in_ip(w, wn, 1, x);
		roce_put_be16(x + 38, (uint16_t)(roce_get_be16(x + 38) + 1));
		CHECK_EQ_I(decode_exact(x, xn, xn, &p, false), ROCE_E_NOT_ROCE);
		CHECK_EQ_U(p.encap, ROCE_ENCAP_MPLS);
		CHECK_EQ_U(p.encap_note, ROCE_ENCAP_NOTE_BAD_LENGTH);
	}
}

/* Linux cooked capture (SLL) with protocol 0x8847. */
static void test_sll(void)
{
	static uint8_t in[BUFSZ], w[BUFSZ], x[BUFSZ];
	size_t n = inner_frame(1, in, 64), wn = wrap_mpls(in, n, 1, false, false, w);
	struct roce_pkt pi, p;
	int irc = roce_decode(ROCE_LINKTYPE_ETHERNET, in, n, n, NULL, &pi), rc;

	memset(x, 0, 16);
	roce_put_be16(x + 2, 1);
	roce_put_be16(x + 4, 6);
	memcpy(x + 6, w + 6, 6);
	roce_put_be16(x + 14, 0x8847);
	memcpy(x + 16, w + 14, wn - 14);
	rc = decode_lt(ROCE_LINKTYPE_LINUX_SLL, x, wn + 2, wn + 2, &p, false);
	check_same(&pi, &p, irc, rc, true);
	CHECK_EQ_U(p.encap, ROCE_ENCAP_MPLS);
	CHECK_EQ_U(p.encap_off, 20);
}

/* LINKTYPE_MPLS (219): the frame starts with the label stack; IP inside and a pseudowire
 * with and without a control word decode as after Ethernet (both paths, the header-only
 * verdict equal); every snap length bounded; a stack of nothing but labels, not RoCE. */
static void test_linktype_mpls(void)
{
	static uint8_t in[BUFSZ], w[BUFSZ];

	CHECK(roce_linktype_supported(ROCE_LINKTYPE_MPLS));
	for (unsigned k = 0; k < N_INNER; k++) {
		for (unsigned v = 0; v < 2 * 2; v++) {
			size_t n = inner_frame(k, in, 100), wn;
			bool pwire = v & 1, ip_in = !pwire && k != 2 && k != 4;
			unsigned labels = v & 2 ? 3 : 1;
			struct roce_pkt pi, pe, pm;
			int irc = roce_decode(ROCE_LINKTYPE_ETHERNET, in, n, n, NULL, &pi), erc, rc;

			wn = wrap_mpls(in, n, labels, pwire, false, w);
			REQUIRE(wn > 14);
			erc = decode_exact(w, wn, wn, &pe, false);
			for (int g = 0; g < 2; g++) {
				rc = decode_lt(ROCE_LINKTYPE_MPLS, w + 14, wn - 14, wn - 14, &pm, g);
				check_same(&pi, &pm, irc, rc, ip_in);
				CHECK_EQ_I(rc, erc);
				CHECK_EQ_U(pm.encap, ROCE_ENCAP_MPLS);
				CHECK_EQ_U(pm.encap_depth, 1);
				CHECK_EQ_U(pm.encap_off, pe.encap_off - 14);
				CHECK_EQ_U(pm.icrc_status, pe.icrc_status);
				CHECK(pm.dst_mac == NULL || !ip_in);
			}
			for (size_t c = 0; c < wn - 14; c++) {
				rc = decode_lt(ROCE_LINKTYPE_MPLS, w + 14, c, wn - 14, &pm, c & 1);
				CHECK(rc == ROCE_OK || rc == ROCE_E_TRUNC || rc == ROCE_E_NOT_ROCE);
				if (pm.kind == ROCE_KIND_ROCE)
					CHECK_EQ_U(pm.icrc_status, ROCE_ICRC_UNVERIFIED);
			}
		}
	}
	/* labels only, the last without the bottom-of-stack bit: not RoCE, truncated */
	{
		static const uint8_t lab[8] = { 0x00, 0x01, 0x00, 0x40, 0x00, 0x02, 0x00, 0x40 };
		struct roce_pkt p;

		CHECK_EQ_I(decode_lt(ROCE_LINKTYPE_MPLS, lab, 8, 8, &p, false), ROCE_E_NOT_ROCE);
		CHECK_EQ_U(p.encap, ROCE_ENCAP_MPLS);
		CHECK_EQ_U(p.encap_note, ROCE_ENCAP_NOTE_TRUNCATED);
		CHECK_EQ_I(decode_lt(ROCE_LINKTYPE_MPLS, lab, 0, 0, &p, true), ROCE_E_NOT_ROCE);
	}
}

/* Every snap length and every wire length of each form: bounded, a clean result. */
static void test_prefix_and_wire_cuts(void)
{
	static uint8_t in[BUFSZ], w[BUFSZ], x[BUFSZ];

	for (unsigned form = 0; form < 6; form++) {
		size_t n = inner_frame(form == 2 ? 1 : 0, in, 300), wn, l;
		const uint8_t *f = w;

		wn = wrap_mpls(in, n, form == 3 ? ROCE_MAX_MPLS_LABELS : 2, form == 1, form == 2,
			       w);
		REQUIRE(wn > 0);
		if (form >= 4) {        /* GRE, UDP */
			wn = wrap_in_ip(w, wn, form - 4, x);
			f = x;
		}
		for (size_t c = 0; c <= wn; c++) {
			for (int g = 0; g < 2; g++) {
				struct roce_pkt p;
				int rc = decode_snap(f, c, wn, &p, g);

				l = form >= 4 ? 34u + (form == 5 ? 8u : 4u) : form == 2 ? 18u : 14u;
				if (p.kind == ROCE_KIND_NONE && c >= l)
					CHECK(p.encap != ROCE_ENCAP_NONE);
				if (p.kind == ROCE_KIND_NONE && p.encap)
					CHECK(p.frame == f);
				/* wire length c: the inner frame lies about its length */
				rc = decode_exact(f, c, c, &p, g);
				if (c < wn)
					CHECK(p.icrc_status != ROCE_ICRC_OK);
				CHECK(rc == ROCE_OK || rc == ROCE_E_TRUNC || rc == ROCE_E_NOT_ROCE ||
				      rc == ROCE_E_MALFORMED);
			}
		}
	}
}

/* MPLS and the tunnels share the depth limit: MPLS, a pseudowire with VXLAN inside, then
 * RoCE: two; one tunnel more: too deep. */
static void test_nesting(void)
{
	static uint8_t in[BUFSZ], a[BUFSZ], b[BUFSZ], c[BUFSZ];
	struct roce_encap_spec s;
	struct roce_pkt pi, p;
	size_t n = inner_frame(0, in, 64), na, nb, nc;
	int irc, rc;

	irc = roce_decode(ROCE_LINKTYPE_ETHERNET, in, n, n, NULL, &pi);
	roce_encap_spec_init(&s, ROCE_ENCAP_VXLAN);
	REQUIRE(roce_build_encap(&s, in, n, a, sizeof(a), &na) == ROCE_OK);
	nb = wrap_mpls(a, na, 1, false, false, b);          /* (VXLAN's IP packet inside) */
	rc = decode_exact(b, nb, nb, &p, false);
	check_same(&pi, &p, irc, rc, false);
	CHECK_EQ_U(p.encap, ROCE_ENCAP_MPLS);
	CHECK_EQ_U(p.encap_depth, 2);
	CHECK(p.frame == b + p.encap_off);
	/* VXLAN around an MPLS frame: two */
	na = wrap_mpls(in, n, 3, true, false, a);
	REQUIRE(roce_build_encap(&s, a, na, b, sizeof(b), &nb) == ROCE_OK);
	rc = decode_exact(b, nb, nb, &p, false);
	check_same(&pi, &p, irc, rc, false);
	CHECK_EQ_U(p.encap, ROCE_ENCAP_VXLAN);
	CHECK_EQ_U(p.encap_depth, 2);
	/* and MPLS around that: too deep */
	nc = wrap_mpls(b, nb, 1, false, false, c);
	rc = decode_exact(c, nc, nc, &p, false);
	CHECK_EQ_I(rc, ROCE_E_NOT_ROCE);
	CHECK_EQ_U(p.encap, ROCE_ENCAP_MPLS);
	CHECK_EQ_U(p.encap_note, ROCE_ENCAP_NOTE_TOO_DEEP);
	CHECK(p.frame == c);
	for (size_t k = 0; k <= nc; k++)
		decode_exact(c, k, nc, &p, false);      /* bounded at every cut */
}

/* roce_rewrite_frame() leaves RoCE inside MPLS alone (not RoCE: L2 edits only). */
static void test_rewrite_leaves_mpls(void)
{
	static uint8_t in[BUFSZ], w[BUFSZ];
	size_t n = inner_frame(0, in, 64), wn = wrap_mpls(in, n, 2, false, false, w);

	check_rewrite_leaves(w, wn);
}

/* The builder: label values, S on the last only, TTL, the padding, its limits. */
static void test_build(void)
{
	static uint8_t in[BUFSZ], w[BUFSZ];
	struct roce_encap_spec s;
	size_t wn, n = inner_frame(0, in, 0);

	roce_encap_spec_init(&s, ROCE_ENCAP_MPLS);
	CHECK_EQ_U(s.mpls_count, 1);
	CHECK_EQ_U(s.mpls_labels[0], 100);
	s.mpls_count = 3;
	s.mpls_labels[0] = 0xfffff;
	s.mpls_labels[1] = 0;
	s.mpls_labels[2] = 77;
	REQUIRE(roce_build_encap(&s, in, n, w, sizeof(w), &wn) == ROCE_OK);
	CHECK_EQ_U(roce_get_be32(w + 14), 0xfffff000u | 64);
	CHECK_EQ_U(roce_get_be32(w + 18), 64);
	CHECK_EQ_U(roce_get_be32(w + 22), 77u << 12 | 0x100 | 64);
	CHECK_EQ_U(w[26] >> 4, 4);
	CHECK(wn >= 60);
	s.mpls_count = 0;
	CHECK_EQ_I(roce_build_encap(&s, in, n, w, sizeof(w), &wn), ROCE_E_INVAL);
	s.mpls_count = ROCE_MAX_MPLS_LABELS + 1;
	CHECK_EQ_I(roce_build_encap(&s, in, n, w, sizeof(w), &wn), ROCE_E_INVAL);
	s.mpls_count = 1;
	CHECK_EQ_I(roce_build_encap(&s, in, n, w, 30, &wn), ROCE_E_NOSPACE);
	/* a short IP packet: padded to 60 bytes, still decoded */
	{
		uint8_t ip[60];
		struct roce_pkt p;

		memcpy(ip, in, 14);
		put_ipv4(ip + 14, 6, 20);
		REQUIRE(roce_build_encap(&s, ip, 34, w, sizeof(w), &wn) == ROCE_OK);
		CHECK_EQ_U(wn, 60);
		CHECK_EQ_I(decode_exact(w, wn, wn, &p, false), ROCE_E_NOT_ROCE);
		CHECK_EQ_U(p.encap, ROCE_ENCAP_MPLS);
		CHECK_EQ_U(p.encap_note, ROCE_ENCAP_NOTE_NONE);
	}
}

static void test_names(void)
{
	CHECK_STR(roce_encap_name(ROCE_ENCAP_MPLS), "mpls");
	CHECK_EQ_U(roce_encap_from_name("mpls"), ROCE_ENCAP_MPLS);
	CHECK_EQ_U(roce_encap_from_name("mpl"), ROCE_ENCAP_NONE);
}

int main(void)
{
	RUN(test_each_inner);
	RUN(test_too_many_labels);
	RUN(test_pw_without_cw);
	RUN(test_payload_kinds);
	RUN(test_in_ip);
	RUN(test_sll);
	RUN(test_linktype_mpls);
	RUN(test_prefix_and_wire_cuts);
	RUN(test_nesting);
	RUN(test_rewrite_leaves_mpls);
	RUN(test_build);
	RUN(test_names);
	return check_report();
}
