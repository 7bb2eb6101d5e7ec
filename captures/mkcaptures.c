/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mkcaptures.c - reproducible generator of the sample captures in captures/.
 *
 *   roce-mkcaptures OUTDIR
 *
 * Every frame is built by libroce's frame builder (roce_build, the decoder's
 * inverse) and written with the project's pcap writer, with fixed
 * timestamps, so the output is byte-identical on every run.  Each scenario
 * below documents the ground truth it plants; tests/cli/captures_expected.sh
 * checks roce-analyze's JSON summary of every file against
 * captures/<name>.summary.json, and the unit tests check the same facts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <roce/buf.h>
#include <roce/build.h>
#include <roce/opcode.h>
#include <roce/pkt.h>

#include "capread.h"

#define NS_PER_US 1000ull
#define BASE_TS (1764374400ull * 1000000000ull) /* 2025-11-29 00:00:00 UTC */

static const uint8_t MAC_A[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x0a};
static const uint8_t MAC_B[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x0b};
static const uint8_t MAC_SW[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x5e};

struct out {
	roce_capwriter_t *w;
	uint64_t ts;
	unsigned frames;
};

static int open_out(struct out *o, const char *dir, const char *name)
{
	char path[4096], err[ROCE_ERRBUF_SIZE];

	snprintf(path, sizeof path, "%s/%s", dir, name);
	o->w = roce_capw_open(path, ROCE_LINKTYPE_ETHERNET, 65535, 1, err);
	if (!o->w) {
		fprintf(stderr, "roce-mkcaptures: %s\n", err);
		return -1;
	}
	o->ts = BASE_TS;
	o->frames = 0;
	return 0;
}

static int close_out(struct out *o)
{
	return roce_capw_close(o->w);
}

static void emit_raw(struct out *o, const uint8_t *buf, size_t len, size_t caplen)
{
	if (roce_capw_write(o->w, o->ts, buf, (uint32_t)caplen, (uint32_t)len) < 0) {
		fprintf(stderr, "roce-mkcaptures: write failed\n");
		exit(2);
	}
	o->frames++;
}

static void emit(struct out *o, const struct roce_frame_spec *s, uint64_t gap_ns)
{
	uint8_t buf[9200];
	size_t len;

	o->ts += gap_ns;
	if (roce_build(s, buf, sizeof buf, &len) != ROCE_OK) {
		fprintf(stderr, "roce-mkcaptures: build failed (opcode 0x%02x)\n", s->bth.opcode);
		exit(2);
	}
	emit_raw(o, buf, len, len);
}

static void spec_v4(struct roce_frame_spec *s, int a_to_b, uint8_t opcode, uint32_t dqpn, uint32_t psn)
{
	roce_frame_spec_init(s);
	s->version = 2;
	s->ip_version = 4;
	memcpy(s->src_mac, a_to_b ? MAC_A : MAC_B, 6);
	memcpy(s->dst_mac, a_to_b ? MAC_B : MAC_A, 6);
	roce_addr_v4(s->src, a_to_b ? 0xc0a80a01 : 0xc0a80a02);  /* 192.168.10.1 / .2 */
	roce_addr_v4(s->dst, a_to_b ? 0xc0a80a02 : 0xc0a80a01);
	s->tclass = 0x6a;  /* DSCP 26, ECT(0) */
	s->sport = 0xc123;
	s->bth.opcode = opcode;
	s->bth.dqpn = dqpn;
	s->bth.psn = psn & 0xffffff;
	s->bth.pkey = 0xffff;
}

static void ack(struct out *o, int a_to_b, uint32_t dqpn, uint32_t psn, uint8_t syndrome,
	uint32_t msn, uint64_t gap_ns)
{
	struct roce_frame_spec s;

	spec_v4(&s, a_to_b, ROCE_OP_RC_ACKNOWLEDGE, dqpn, psn);
	s.tclass = 0x68;
	s.aeth.syndrome = syndrome;
	s.aeth.msn = msn;
	emit(o, &s, gap_ns);
}

/*
 * rocev2_write_loss.pcap - RC RDMA WRITE, IPv4, requester A (QP 0x12) ->
 * responder B (QP 0x11), captured at the responder, PMTU 1024.
 *   - 8 messages of 4 packets (FIRST, MIDDLE, MIDDLE, LAST, AckReq on LAST),
 *     PSN 100.., each LAST acknowledged ~8 us later;
 *   - message 3 (PSN 108..111): 108 and 109 are lost before the capture
 *     point: one gap of 2 seen at PSN 110; B NAKs (PSN sequence error,
 *     PSN 108); A goes back to 108 and resends 108..109 (out of order: they
 *     fill the gap) and 110..111 (duplicates): 4 retransmissions, cause NAK;
 *   - message 5 frames carry ECN CE, and B sends 2 CNPs to A's QP 0x12;
 *   - the last packet of message 7 (PSN 127) has a corrupted ICRC: the
 *     receiver drops it, so 127 is lost (a gap of 1 at 128, unrecovered) and
 *     message 7 does not complete.
 */
static int mk_write_loss(const char *dir)
{
	struct out o;
	struct roce_frame_spec s;
	uint8_t pay[1024];
	uint32_t psn = 100, msn = 0;

	for (size_t i = 0; i < sizeof pay; i++)
		pay[i] = (uint8_t)(i * 7);
	if (open_out(&o, dir, "rocev2_write_loss.pcap"))
		return -1;
	for (int m = 0; m < 8; m++) {
		uint32_t first = psn;
		for (int k = 0; k < 4; k++) {
			static const uint8_t ops[4] = {ROCE_OP_RC_RDMA_WRITE_FIRST, ROCE_OP_RC_RDMA_WRITE_MIDDLE,
				ROCE_OP_RC_RDMA_WRITE_MIDDLE, ROCE_OP_RC_RDMA_WRITE_LAST};
			uint32_t p = first + (uint32_t)k;
			if (m == 2 && (k == 0 || k == 1)) { /* lost before the capture point */
				psn++;
				continue;
			}
			spec_v4(&s, 1, ops[k], 0x11, p);
			s.payload = pay;
			s.payload_len = k == 3 ? 1000 : 1024;
			s.reth.va = 0x7f0000000000ull + (uint64_t)m * 4096;
			s.reth.rkey = 0xabc;
			s.reth.dma_len = 3 * 1024 + 1000;
			s.bth.ackreq = k == 3;
			if (m == 4)
				s.tclass = 0x6b; /* CE */
			if (m == 6 && k == 3)
				s.bad_icrc = true;
			emit(&o, &s, 2 * NS_PER_US);
			psn++;
		}
		if (m == 2) {
			/* B saw 112 while expecting 110: NAK, then A goes back to 110. */
			ack(&o, 0, 0x12, first, 0x60, msn, 3 * NS_PER_US);
			for (int k = 0; k < 4; k++) {
				static const uint8_t ops[4] = {ROCE_OP_RC_RDMA_WRITE_FIRST, ROCE_OP_RC_RDMA_WRITE_MIDDLE,
					ROCE_OP_RC_RDMA_WRITE_MIDDLE, ROCE_OP_RC_RDMA_WRITE_LAST};
				spec_v4(&s, 1, ops[k], 0x11, first + (uint32_t)k);
				s.payload = pay;
				s.payload_len = k == 3 ? 1000 : 1024;
				s.reth.dma_len = 3 * 1024 + 1000;
				s.bth.ackreq = k == 3;
				emit(&o, &s, 2 * NS_PER_US);
			}
		}
		if (m == 4) {
			struct roce_frame_spec c;
			for (int n = 0; n < 2; n++) {
				spec_v4(&c, 0, ROCE_OP_CNP, 0x12, 0);
				c.tclass = 0xc0; /* DSCP 48 */
				c.bth.becn = 1;
				emit(&o, &c, 1 * NS_PER_US + (uint64_t)n * 50 * NS_PER_US);
			}
		}
		ack(&o, 0, 0x12, psn - 1, 0x1f, ++msn, 8 * NS_PER_US);
	}
	return close_out(&o);
}

/*
 * rocev2_ipv6_read.pcap - RC RDMA READ over IPv6 with PSN wrap, PMTU 1024.
 * A (fd00::a, QP 0x21) reads from B (fd00::b, QP 0x22): 4 READ requests of
 * 4096 bytes starting at PSN 0xfffff8 (each consumes 4 PSNs, the third
 * crosses 0xffffff -> 0), each answered by FIRST, 2 x MIDDLE, LAST.
 * The last READ's second MIDDLE response is missing (1 lost response PSN).
 */
static int mk_ipv6_read(const char *dir)
{
	struct out o;
	struct roce_frame_spec s;
	uint8_t pay[1024];
	uint32_t psn = 0xfffff8;

	memset(pay, 0x5a, sizeof pay);
	if (open_out(&o, dir, "rocev2_ipv6_read.pcap"))
		return -1;
	for (int r = 0; r < 4; r++) {
		static const uint8_t rsp[4] = {ROCE_OP_RC_RDMA_READ_RESPONSE_FIRST, ROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE,
			ROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE, ROCE_OP_RC_RDMA_READ_RESPONSE_LAST};
		roce_frame_spec_init(&s);
		s.version = 2;
		s.ip_version = 6;
		memcpy(s.src_mac, MAC_A, 6);
		memcpy(s.dst_mac, MAC_B, 6);
		memset(s.src, 0, 16);
		memset(s.dst, 0, 16);
		s.src[0] = 0xfd; s.src[15] = 0x0a;
		s.dst[0] = 0xfd; s.dst[15] = 0x0b;
		s.tclass = 0x68;
		s.flow_label = 0x12345;
		s.bth.opcode = ROCE_OP_RC_RDMA_READ_REQUEST;
		s.bth.dqpn = 0x22;
		s.bth.psn = psn;
		s.bth.ackreq = 1;
		s.reth.va = 0x7f0000100000ull + (uint64_t)r * 4096;
		s.reth.rkey = 0x77;
		s.reth.dma_len = 4096;
		emit(&o, &s, 5 * NS_PER_US);
		for (int k = 0; k < 4; k++) {
			struct roce_frame_spec t = s;
			memcpy(t.src_mac, MAC_B, 6);
			memcpy(t.dst_mac, MAC_A, 6);
			memcpy(t.src, s.dst, 16);
			memcpy(t.dst, s.src, 16);
			t.bth.opcode = rsp[k];
			t.bth.dqpn = 0x21;
			t.bth.psn = roce_psn_add(psn, (uint32_t)k);
			t.bth.ackreq = 0;
			t.aeth.syndrome = 0x1f;
			t.aeth.msn = (uint32_t)r + 1;
			t.payload = pay;
			t.payload_len = 1024;
			if (r == 3 && k == 2)
				continue; /* lost response */
			emit(&o, &t, 3 * NS_PER_US);
		}
		psn = roce_psn_add(psn, 4);
	}
	return close_out(&o);
}

/*
 * rocev1_send.pcap - RoCE v1 (GRH, ethertype 0x8915) RC SEND_ONLY x 6 from
 * fe80::a to fe80::b (QP 0x31) with ACKs; PSN 5 is duplicated (resent
 * without a NAK: a timeout retransmission).
 */
static int mk_v1(const char *dir)
{
	struct out o;
	struct roce_frame_spec s;
	uint8_t pay[64];
	static const uint32_t psns[7] = {1, 2, 3, 4, 5, 5, 6};

	memset(pay, 0x11, sizeof pay);
	if (open_out(&o, dir, "rocev1_send.pcap"))
		return -1;
	for (int i = 0; i < 7; i++) {
		roce_frame_spec_init(&s);
		s.version = 1;
		memcpy(s.src_mac, MAC_A, 6);
		memcpy(s.dst_mac, MAC_B, 6);
		memset(s.src, 0, 16);
		memset(s.dst, 0, 16);
		s.src[0] = 0xfe; s.src[1] = 0x80; s.src[15] = 0x0a;
		s.dst[0] = 0xfe; s.dst[1] = 0x80; s.dst[15] = 0x0b;
		s.bth.opcode = ROCE_OP_RC_SEND_ONLY;
		s.bth.dqpn = 0x31;
		s.bth.psn = psns[i];
		s.bth.ackreq = 1;
		s.payload = pay;
		s.payload_len = (uint32_t)(13 + i); /* exercises pad counts */
		emit(&o, &s, i == 5 ? 500 * NS_PER_US : 4 * NS_PER_US);
		if (i != 4) {
			struct roce_frame_spec a = s;
			memcpy(a.src_mac, MAC_B, 6);
			memcpy(a.dst_mac, MAC_A, 6);
			memcpy(a.src, s.dst, 16);
			memcpy(a.dst, s.src, 16);
			a.bth.opcode = ROCE_OP_RC_ACKNOWLEDGE;
			a.bth.dqpn = 0x32;
			a.bth.ackreq = 0;
			a.aeth.syndrome = 0x1f;
			a.aeth.msn = (uint32_t)i + 1;
			a.payload = NULL;
			a.payload_len = 0;
			emit(&o, &a, 6 * NS_PER_US);
		}
	}
	return close_out(&o);
}

/*
 * pfc_storm.pcap - 802.1Qbb PFC from a switch port MAC_SW plus VLAN-tagged
 * RoCE v2 traffic (VID 100, PCP 3).
 *   - priority 3: XOFF 0xFFFF quanta (335.5 us) refreshed every 200 us for 250 ms
 *     (a storm at the 200 ms default), then XON;
 *   - priority 4: one XOFF of 1000 quanta (5.12 us at 100 Gb/s), then XON
 *     2 us later (paused 2 us);
 *   - one 802.3x PAUSE of 0x1234 quanta from MAC_B.
 */
static int mk_pfc(const char *dir)
{
	struct out o;
	uint8_t buf[128];
	size_t len;
	uint16_t q[8];
	struct roce_frame_spec s;

	if (open_out(&o, dir, "pfc_storm.pcap"))
		return -1;
	/* some tagged RoCE traffic first */
	for (int i = 0; i < 4; i++) {
		spec_v4(&s, 1, ROCE_OP_RC_SEND_ONLY, 0x41, (uint32_t)(1000 + i));
		s.vlan_count = 1;
		s.vlan_id[0] = 100;
		s.vlan_pcp[0] = 3;
		s.payload_len = 32;
		emit(&o, &s, 1 * NS_PER_US);
	}
	memset(q, 0, sizeof q);
	q[4] = 1000;
	o.ts += 10 * NS_PER_US;
	roce_build_pfc(MAC_SW, 1u << 4, q, buf, sizeof buf, &len);
	emit_raw(&o, buf, len, len);
	q[4] = 0;
	o.ts += 2 * NS_PER_US;
	roce_build_pfc(MAC_SW, 1u << 4, q, buf, sizeof buf, &len);
	emit_raw(&o, buf, len, len);
	/* priority 3 storm: 1250 refreshes, 200 us apart = 250 ms */
	memset(q, 0, sizeof q);
	q[3] = 0xffff;
	for (int i = 0; i < 1250; i++) {
		o.ts += 200 * NS_PER_US;
		roce_build_pfc(MAC_SW, 1u << 3, q, buf, sizeof buf, &len);
		emit_raw(&o, buf, len, len);
	}
	q[3] = 0;
	o.ts += 100 * NS_PER_US;
	roce_build_pfc(MAC_SW, 1u << 3, q, buf, sizeof buf, &len);
	emit_raw(&o, buf, len, len);
	o.ts += 1000 * NS_PER_US;
	roce_build_pause(MAC_B, 0x1234, buf, sizeof buf, &len);
	emit_raw(&o, buf, len, len);
	return close_out(&o);
}

/*
 * malformed.pcap - one frame per validation finding, each otherwise valid:
 *   1 good RC SEND_ONLY; 2 TVer = 1; 3 PadCnt 2 on a SEND_FIRST; 4 reserved
 *   opcode 0x15; 5 IPv4 header checksum wrong; 6 IP total length larger than
 *   the frame (bad_length); 7 captured only 48 bytes (truncated inside the
 *   BTH); 8 snaplen cut after the headers (ICRC unverified, not malformed);
 *   9 CNP with BECN = 0; 10 PFC with reserved octet set; 11 bad ICRC.
 * Each RoCE frame goes to its own dest QP (0x50 + PSN) so no PSN analysis links them.
 */
static int mk_malformed(const char *dir)
{
	struct out o;
	struct roce_frame_spec s;
	uint8_t buf[2048], pay[256];
	size_t len;
	uint16_t q[8] = {0};

	memset(pay, 0xee, sizeof pay);
	if (open_out(&o, dir, "malformed.pcap"))
		return -1;
#define BASE(op, p) do { spec_v4(&s, 1, (op), 0x50 + (p), (p)); s.payload = pay; s.payload_len = 64; } while (0)
	BASE(ROCE_OP_RC_SEND_ONLY, 1);
	emit(&o, &s, NS_PER_US);
	BASE(ROCE_OP_RC_SEND_ONLY, 2);
	s.bth.tver = 1;
	emit(&o, &s, NS_PER_US);
	BASE(ROCE_OP_RC_SEND_FIRST, 3);
	s.bth.padcnt = 2;
	s.keep_padcnt = true;
	emit(&o, &s, NS_PER_US);
	BASE(0x15, 4);
	s.payload_len = 0;
	emit(&o, &s, NS_PER_US);
	/* 5: corrupt the IPv4 checksum (ICRC masks it, so the ICRC stays good) */
	BASE(ROCE_OP_RC_SEND_ONLY, 5);
	roce_build(&s, buf, sizeof buf, &len);
	buf[14 + 10] ^= 0xff;
	o.ts += NS_PER_US;
	emit_raw(&o, buf, len, len);
	/* 6: IPv4 total length claims 64 bytes more than the frame has */
	BASE(ROCE_OP_RC_SEND_ONLY, 6);
	roce_build(&s, buf, sizeof buf, &len);
	{
		unsigned tl = (unsigned)buf[16] << 8 | buf[17];
		unsigned sum;
		tl += 64;
		buf[16] = (uint8_t)(tl >> 8);
		buf[17] = (uint8_t)tl;
		buf[24] = buf[25] = 0;
		sum = 0;
		for (int i = 0; i < 20; i += 2)
			sum += (unsigned)buf[14 + i] << 8 | buf[15 + i];
		while (sum >> 16)
			sum = (sum & 0xffff) + (sum >> 16);
		sum = ~sum & 0xffff;
		buf[24] = (uint8_t)(sum >> 8);
		buf[25] = (uint8_t)sum;
	}
	o.ts += NS_PER_US;
	emit_raw(&o, buf, len, len);
	/* 7: only 48 bytes captured: cut inside the BTH */
	BASE(ROCE_OP_RC_SEND_ONLY, 7);
	roce_build(&s, buf, sizeof buf, &len);
	o.ts += NS_PER_US;
	emit_raw(&o, buf, len, 48);
	/* 8: headers captured, payload cut: analysed, ICRC unverified */
	BASE(ROCE_OP_RC_SEND_ONLY, 8);
	roce_build(&s, buf, sizeof buf, &len);
	o.ts += NS_PER_US;
	emit_raw(&o, buf, len, 14 + 20 + 8 + 12 + 16);
	/* 9: CNP without BECN */
	spec_v4(&s, 0, ROCE_OP_CNP, 0x52, 0);
	s.bth.becn = 0;
	emit(&o, &s, NS_PER_US);
	/* 10: PFC with the reserved octet of the enable vector set */
	q[0] = 100;
	roce_build_pfc(MAC_SW, 1, q, buf, sizeof buf, &len);
	buf[16] = 0x01;
	o.ts += NS_PER_US;
	emit_raw(&o, buf, len, len);
	/* 11: bad ICRC */
	BASE(ROCE_OP_RC_SEND_ONLY, 9);
	s.bad_icrc = true;
	emit(&o, &s, NS_PER_US);
#undef BASE
	return close_out(&o);
}

/*
 * all_opcodes.pcap - one frame of every opcode in the table (opcodes.def),
 * in table order, v2/IPv4, each to its own dest QP (0x100 + opcode) so no
 * PSN analysis links them; payload 8 bytes where the opcode carries data.
 */
static int mk_all_opcodes(const char *dir)
{
	struct out o;
	struct roce_frame_spec s;
	uint8_t pay[8] = {0xa5, 0xa5, 0xa5, 0xa5, 0x5a, 0x5a, 0x5a, 0x5a};

	if (open_out(&o, dir, "all_opcodes.pcap"))
		return -1;
	for (unsigned op = 0; op < 256; op++) {
		const struct roce_opcode_info *info = roce_opcode_info((uint8_t)op);
		if (!info->name)
			continue;
		spec_v4(&s, 1, (uint8_t)op, 0x100 + op, 7);
		if (info->hdrs & ROCE_H_PAYLOAD) {
			s.payload = pay;
			s.payload_len = sizeof pay;
		}
		if (info->flags & ROCE_F_CNP)
			s.bth.becn = 1, s.bth.psn = 0;
		s.aeth.syndrome = 0x1f;
		s.deth.qkey = 0x11111111;
		s.deth.src_qp = 0x99;
		s.reth.dma_len = info->flags & ROCE_F_READ ? 8 : sizeof pay;
		emit(&o, &s, NS_PER_US);
	}
	return close_out(&o);
}

/*
 * --bulk FILE MB [PAYLOAD]: a large RC WRITE capture for benchmarks
 * (bench/bench.sh): 64 QPs between 16 host pairs, PAYLOAD-byte payloads
 * (default 1024, at most 1024), messages of 16 packets, one ACK per
 * message, 1 us apart.  Not a committed sample.
 */
static int mk_bulk(const char *path, unsigned long mb, unsigned payload)
{
	char err[ROCE_ERRBUF_SIZE];
	roce_capwriter_t *w = roce_capw_open(path, ROCE_LINKTYPE_ETHERNET, 65535, 1, err);
	uint8_t pay[1024], buf[2048];
	uint32_t psn[64] = {0};
	uint64_t ts = BASE_TS, bytes = 0, limit = (uint64_t)mb << 20;
	struct roce_frame_spec s;
	size_t len;

	if (!w) {
		fprintf(stderr, "roce-mkcaptures: %s\n", err);
		return -1;
	}
	memset(pay, 0x3c, sizeof pay);
	for (unsigned long n = 0; bytes < limit; n++) {
		unsigned qp = (unsigned)(n % 64);
		unsigned k = psn[qp] % 16;
		static const uint8_t ops[3] = {ROCE_OP_RC_RDMA_WRITE_FIRST, ROCE_OP_RC_RDMA_WRITE_MIDDLE,
			ROCE_OP_RC_RDMA_WRITE_LAST};

		spec_v4(&s, 1, ops[k == 0 ? 0 : k == 15 ? 2 : 1], 0x1000 + qp, psn[qp]);
		roce_addr_v4(s.src, 0x0a000001 + (qp % 16));
		roce_addr_v4(s.dst, 0x0a000101 + (qp % 16));
		s.payload = pay;
		s.payload_len = payload;
		s.reth.dma_len = 16 * payload;
		s.bth.ackreq = k == 15;
		if (roce_build(&s, buf, sizeof buf, &len) || roce_capw_write(w, ts, buf, (uint32_t)len, (uint32_t)len) < 0)
			return -1;
		bytes += len + 16;
		ts += 1000;
		if (k == 15) {
			spec_v4(&s, 0, ROCE_OP_RC_ACKNOWLEDGE, 0x2000 + qp, psn[qp]);
			roce_addr_v4(s.src, 0x0a000101 + (qp % 16));
			roce_addr_v4(s.dst, 0x0a000001 + (qp % 16));
			s.aeth.syndrome = 0x1f;
			s.aeth.msn = psn[qp] / 16 + 1;
			if (roce_build(&s, buf, sizeof buf, &len) || roce_capw_write(w, ts, buf, (uint32_t)len, (uint32_t)len) < 0)
				return -1;
			bytes += len + 16;
		}
		psn[qp] = roce_psn_add(psn[qp], 1);
	}
	return roce_capw_close(w);
}

int main(int argc, char **argv)
{
	if ((argc == 4 || argc == 5) && strcmp(argv[1], "--bulk") == 0) {
		unsigned long payload = argc == 5 ? strtoul(argv[4], NULL, 10) : 1024;

		if (payload < 4 || payload > 1024 || payload % 4) {
			fprintf(stderr, "roce-mkcaptures: PAYLOAD must be a multiple of 4 in 4..1024\n");
			return 2;
		}
		return mk_bulk(argv[2], strtoul(argv[3], NULL, 10), (unsigned)payload) ? 1 : 0;
	}
	if (argc != 2 || argv[1][0] == '-') {
		fprintf(stderr, "usage: roce-mkcaptures OUTDIR\n"
			"       roce-mkcaptures --bulk FILE MEGABYTES [PAYLOAD]\n");
		return 2;
	}
	if (mk_write_loss(argv[1]) || mk_ipv6_read(argv[1]) || mk_v1(argv[1]) || mk_pfc(argv[1]) ||
	    mk_malformed(argv[1]) || mk_all_opcodes(argv[1]))
		return 1;
	return 0;
}
