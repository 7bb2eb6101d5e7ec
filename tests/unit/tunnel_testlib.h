/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tunnel_testlib.h - what test_decode_tunnel.c and test_decode_mpls.c share:
 * the inner frames they wrap, a decode of a buffer of exactly the captured
 * bytes (ASan sees any read past it) with the header-only ICRC verdict
 * checked against the decoder's, the check that a wrapped frame decodes to
 * its inner frame, and the check that roce-replay's rewrite leaves it alone.
 */
#ifndef ROCE_TESTS_TUNNEL_TESTLIB_H
#define ROCE_TESTS_TUNNEL_TESTLIB_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <roce/build.h>
#include <roce/buf.h>
#include <roce/icrc.h>
#include <roce/pkt.h>
#include <roce/rewrite.h>

#include "check.h"

/* lib/src/decode.c, internal: roce_decode() without its fast path */
int roce_decode_general(int linktype, const uint8_t *frame, size_t caplen, size_t wirelen,
	const struct roce_decode_opts *opts, struct roce_pkt *out);

#define BUFSZ 12000

/* Inner frames: 0 v2/IPv4 SEND, 1 v2/IPv6 WRITE with a tag, 2 v1 ACK, 3 v2 bad ICRC,
 * 4 PFC, 5 v2/IPv4 with ECN CE.  A vendor's addresses (0c:42:a1), as an MPLS
 * pseudowire's frames have (first nibble 0; Wireshark guesses by them). */
#define N_INNER 6

static inline size_t inner_frame(unsigned k, uint8_t *buf, size_t payload)
{
	struct roce_frame_spec s;
	size_t len = 0;
	uint16_t q[8] = { 0, 0, 0, 100 };
	static uint8_t pay[9000];

	for (size_t i = 0; i < sizeof(pay); i++)
		pay[i] = (uint8_t)(i * 7 + 1);
	roce_frame_spec_init(&s);
	s.payload = pay;
	s.payload_len = (uint32_t)payload;
	s.bth.dqpn = 0x123456;
	s.bth.psn = 0xabcde + k;
	s.tclass = 0x68 | 2;    /* DSCP 26, ECT(0) */
	memcpy(s.src_mac, (const uint8_t[6]){ 0x0c, 0x42, 0xa1, 0, 0, 1 }, 6);
	memcpy(s.dst_mac, (const uint8_t[6]){ 0x0c, 0x42, 0xa1, 0, 0, 2 }, 6);
	switch (k) {
	case 1:
		s.ip_version = 6;
		s.vlan_count = 1;
		s.vlan_id[0] = 7;
		s.bth.opcode = ROCE_OP_RC_RDMA_WRITE_ONLY;
		s.reth.dma_len = (uint32_t)payload;
		s.reth.va = 0x1000;
		s.reth.rkey = 0x77;
		break;
	case 2:
		s.version = 1;
		s.bth.opcode = ROCE_OP_RC_ACKNOWLEDGE;
		s.payload_len = 0;
		break;
	case 3:
		s.bad_icrc = true;
		break;
	case 4:
		if (roce_build_pfc(s.src_mac, 0x08, q, buf, BUFSZ, &len) != ROCE_OK)
			return 0;
		return len;
	case 5:
		s.tclass = 0x68 | 3;
		break;
	default:
		break;
	}
	if (roce_build(&s, buf, BUFSZ, &len) != ROCE_OK)
		return 0;
	return len;
}

/* roce_decode() (general: roce_decode_general()) of a copy of exactly caplen bytes; the
 * ICRC verdict from the headers alone (--threads 2) must be the decoder's; the pointers
 * into the copy are rebased to f for the caller. */
static inline int decode_lt(int lt, const uint8_t *f, size_t caplen, size_t wirelen,
	struct roce_pkt *p, bool general)
{
	uint8_t *c = malloc(caplen ? caplen : 1);
	int rc;

	memcpy(c, f, caplen);
	rc = general ? roce_decode_general(lt, c, caplen, wirelen, NULL, p) :
		       roce_decode(lt, c, caplen, wirelen, NULL, p);
	CHECK_EQ_U(roce_icrc_frame_verdict(lt, c, caplen, wirelen, NULL), p->icrc_status);
	if (p->frame)
		p->frame = f + (p->frame - c);
	p->dst_mac = p->dst_mac ? f + (p->dst_mac - c) : NULL;
	p->src_mac = p->src_mac ? f + (p->src_mac - c) : NULL;
	free(c);
	return rc;
}

static inline int decode_exact(const uint8_t *f, size_t caplen, size_t wirelen,
	struct roce_pkt *p, bool general)
{
	return decode_lt(ROCE_LINKTYPE_ETHERNET, f, caplen, wirelen, p, general);
}

/* decode_exact() of f cut to c of its wn bytes (snap length c): a clean result; a RoCE
 * frame cut short has its ICRC unverified, the whole frame decodes with its ICRC ok. */
static inline int decode_snap(const uint8_t *f, size_t c, size_t wn, struct roce_pkt *p,
	bool general)
{
	int rc = decode_exact(f, c, wn, p, general);

	CHECK(rc == ROCE_OK || rc == ROCE_E_TRUNC || rc == ROCE_E_NOT_ROCE);
	if (c < wn && p->kind == ROCE_KIND_ROCE)
		CHECK_EQ_U(p->icrc_status, ROCE_ICRC_UNVERIFIED);
	if (c == wn) {
		CHECK_EQ_I(rc, ROCE_OK);
		CHECK_EQ_U(p->icrc_status, ROCE_ICRC_OK);
	}
	return rc;
}

/* The decode of the wrapped frame w is the decode of the inner frame i (ip_inside: its
 * Ethernet header, l3_off bytes, dropped). */
static inline void check_same(const struct roce_pkt *i, const struct roce_pkt *w, int irc,
	int wrc, bool ip_inside)
{
	CHECK_EQ_I(wrc, irc);
	CHECK_EQ_U(w->kind, i->kind);
	CHECK_EQ_U(w->findings, i->findings);
	CHECK_EQ_U(w->version, i->version);
	CHECK_EQ_U(w->ip_version, i->ip_version);
	CHECK_EQ_U(w->icrc_status, i->icrc_status);
	CHECK_EQ_U(w->icrc_wire, i->icrc_wire);
	CHECK_EQ_U(w->icrc_computed, i->icrc_computed);
	CHECK_EQ_U(w->ecn, i->ecn);
	CHECK_EQ_U(w->tclass, i->tclass);
	CHECK_EQ_U(w->ttl, i->ttl);
	CHECK(memcmp(w->src, i->src, 16) == 0);
	CHECK(memcmp(w->dst, i->dst, 16) == 0);
	CHECK_EQ_U(w->bth.psn, i->bth.psn);
	CHECK_EQ_U(w->bth.dqpn, i->bth.dqpn);
	CHECK_EQ_U(w->bth.opcode, i->bth.opcode);
	CHECK_EQ_U(w->payload_len, i->payload_len);
	CHECK_EQ_U(w->hdrs, i->hdrs);
	if (i->hdrs & ROCE_H_RETH)
		CHECK_EQ_U(w->reth.dma_len, i->reth.dma_len);
	if (i->hdrs & ROCE_H_AETH)
		CHECK_EQ_U(w->aeth.syndrome, i->aeth.syndrome);
	CHECK_EQ_U(w->pfc_enable, i->pfc_enable);
	CHECK_EQ_U(w->pfc_quanta[3], i->pfc_quanta[3]);
	if (i->kind == ROCE_KIND_ROCE)
		CHECK(memcmp(w->frame + w->bth_off, i->frame + i->bth_off, 12) == 0);
	if (!ip_inside) {
		CHECK_EQ_U(w->wirelen, i->wirelen);
		CHECK_EQ_U(w->caplen, i->caplen);
		CHECK_EQ_U(w->bth_off, i->bth_off);
		CHECK_EQ_U(w->icrc_off, i->icrc_off);
		CHECK_EQ_U(w->vlan_count, i->vlan_count);
		CHECK_EQ_U(w->vlan_id, i->vlan_id);
		CHECK(w->src_mac && memcmp(w->src_mac, i->src_mac, 6) == 0);
	} else {
		CHECK(w->src_mac == NULL);
		CHECK_EQ_U(w->bth_off + i->l3_off, i->bth_off);
		CHECK_EQ_U(w->wirelen + i->l3_off, i->wirelen);
	}
}

/* roce_rewrite_frame() leaves a wrapped frame alone (not RoCE: the L2 edits only, none
 * asked for here): the DSCP and PSN edits change nothing. */
static inline void check_rewrite_leaves(const uint8_t *w, size_t wn)
{
	static uint8_t x[BUFSZ];
	struct roce_rewrite rw;
	uint32_t res = 0;
	size_t xn = wn;

	roce_rewrite_init(&rw);
	rw.dscp = 10;
	rw.psn_offset = 5;
	memcpy(x, w, wn);
	CHECK_EQ_I(roce_rewrite_frame(&rw, ROCE_LINKTYPE_ETHERNET, x, &xn, sizeof(x), &res),
		   ROCE_OK);
	CHECK(res & ROCE_RW_R_NOT_ROCE);
	CHECK_EQ_U(xn, wn);
	CHECK(memcmp(x, w, wn) == 0);
}

#endif
