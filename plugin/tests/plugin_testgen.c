/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * plugin_testgen.c - writes the captures tests/cli/plugin_*.sh check the
 * Wireshark plugin against.  Test-only; frames come from libroce's frame
 * builder (build.h), the pcap writer is the 20 lines below.
 *
 *   roce-plugin-testgen facts OUT.pcap      known-facts capture (see below)
 *   roce-plugin-testgen bench OUT.pcap N    N RoCE v2 frames for the benchmark
 *
 * Known facts of the "facts" capture (microsecond pcap, LINKTYPE_ETHERNET):
 *   - RC stream 10.0.0.1 -> 10.0.0.2 QP 0x11: SEND_ONLY PSN 100..106 with
 *     AckReq, each ACKed 10 us later by 10.0.0.2 -> 10.0.0.1 QP 0x22;
 *   - PSN 107..109 missing: the next request is PSN 110 (one gap, 3 lost);
 *   - NAK PSN sequence error (syndrome 0x60) for PSN 107, then 107..110 resent;
 *   - one request (PSN 111) with a corrupted ICRC (the only bad ICRC), never
 *     resent: dropped as the receiver drops it, so the next request (112)
 *     is a second gap of 1;
 *   - RNR NAK (syndrome 0x2e) on a second stream, then the resend;
 *   - one CE-marked request and one CNP (0x81, BECN) from 10.0.0.2;
 *   - RoCE v1 (GRH), RoCE v2 over IPv6 and an XRC SEND_ONLY (0xa4);
 *   - 800 PFC frames, priority 3, 0xFFFF quanta, every 300 us: continuous
 *     pause for 240 ms, so one storm at the default 200 ms threshold;
 *   - one 802.3x PAUSE frame with 0xFFFF quanta.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <roce/build.h>
#include <roce/pkt.h>

static FILE *out;
static uint64_t now_us = 1700000000ull * 1000000ull;

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);   /* host order: the pcap header says which */
}

static void pcap_header(void)
{
	uint8_t h[24];
	uint16_t v;

	put32(h, 0xa1b2c3d4u);
	v = 2; memcpy(h + 4, &v, 2);
	v = 4; memcpy(h + 6, &v, 2);
	put32(h + 8, 0);
	put32(h + 12, 0);
	put32(h + 16, 65535);
	put32(h + 20, 1);   /* LINKTYPE_ETHERNET */
	fwrite(h, 1, sizeof h, out);
}

static void pcap_record(const uint8_t *frame, size_t len)
{
	uint8_t h[16];

	put32(h, (uint32_t)(now_us / 1000000u));
	put32(h + 4, (uint32_t)(now_us % 1000000u));
	put32(h + 8, (uint32_t)len);
	put32(h + 12, (uint32_t)len);
	fwrite(h, 1, sizeof h, out);
	fwrite(frame, 1, len, out);
}

static void emit(const struct roce_frame_spec *s)
{
	uint8_t buf[9216];
	size_t len = 0;
	int rc = roce_build(s, buf, sizeof buf, &len);

	if (rc != ROCE_OK) {
		fprintf(stderr, "roce_build failed: %d\n", rc);
		exit(2);
	}
	pcap_record(buf, len);
}

static const uint8_t mac_a[6] = { 0x02, 0, 0, 0, 0, 0x0a };
static const uint8_t mac_b[6] = { 0x02, 0, 0, 0, 0, 0x0b };

static void spec_v4(struct roce_frame_spec *s, int from_a)
{
	roce_frame_spec_init(s);
	s->version = 2;
	s->ip_version = 4;
	memcpy(s->src_mac, from_a ? mac_a : mac_b, 6);
	memcpy(s->dst_mac, from_a ? mac_b : mac_a, 6);
	roce_addr_v4(from_a ? s->src : s->dst, 0x0a000001u);
	roce_addr_v4(from_a ? s->dst : s->src, 0x0a000002u);
	s->tclass = 0x02;   /* ECT(0) */
	s->bth.pkey = 0xffff;
}

static const uint8_t payload[64] = "roce-tools plugin test payload";

static void request(uint32_t qp, uint32_t psn, int bad_icrc, uint8_t tclass)
{
	struct roce_frame_spec s;

	spec_v4(&s, 1);
	s.tclass = tclass;
	s.bth.opcode = 0x04;    /* RC_SEND_ONLY */
	s.bth.dqpn = qp;
	s.bth.psn = psn;
	s.bth.ackreq = 1;
	s.payload = payload;
	s.payload_len = sizeof payload;
	s.bad_icrc = bad_icrc != 0;
	emit(&s);
}

static void ack(uint32_t qp, uint32_t psn, uint8_t syndrome, uint32_t msn)
{
	struct roce_frame_spec s;

	spec_v4(&s, 0);
	s.bth.opcode = 0x11;    /* RC_ACKNOWLEDGE */
	s.bth.dqpn = qp;
	s.bth.psn = psn;
	s.aeth.syndrome = syndrome;
	s.aeth.msn = msn;
	emit(&s);
}

static void gen_facts(void)
{
	struct roce_frame_spec s;
	uint16_t quanta[8] = { 0 };
	uint8_t buf[128];
	size_t len;
	uint32_t msn = 0;

	pcap_header();

	/* RC SEND_ONLY 100..106, each ACKed after 10 us */
	for (uint32_t psn = 100; psn <= 106; psn++) {
		request(0x11, psn, 0, 0x02);
		now_us += 10;
		ack(0x22, psn, 0x1f, ++msn);   /* ACK, credits "invalid" (no flow control) */
		now_us += 90;
	}
	/* 107..109 lost before the capture point */
	request(0x11, 110, 0, 0x02);
	now_us += 10;
	ack(0x22, 106, 0x60, msn);         /* NAK PSN sequence error, expecting 107 */
	now_us += 40;
	for (uint32_t psn = 107; psn <= 110; psn++) {   /* go-back-N */
		request(0x11, psn, 0, 0x02);
		now_us += 5;
	}
	now_us += 10;
	ack(0x22, 110, 0x1f, msn += 4);
	now_us += 100;

	/* bad ICRC */
	request(0x11, 111, 1, 0x02);
	now_us += 100;

	/* RNR NAK on a second stream (QP 0x12), then the resend */
	request(0x12, 500, 0, 0x02);
	now_us += 10;
	ack(0x23, 500, 0x2e, 0);           /* RNR NAK, timer code 14 */
	now_us += 1000;
	request(0x12, 500, 0, 0x02);
	now_us += 10;
	ack(0x23, 500, 0x1f, 1);
	now_us += 100;

	/* ECN CE on the wire, then the CNP back to the sender */
	request(0x11, 112, 0, 0x03);
	now_us += 10;
	spec_v4(&s, 0);
	s.bth.opcode = 0x81;               /* CNP */
	s.bth.dqpn = 0x22;
	s.bth.psn = 0;
	s.bth.becn = 1;
	emit(&s);
	now_us += 100;

	/* RoCE v1 (GRH) */
	roce_frame_spec_init(&s);
	s.version = 1;
	memcpy(s.src_mac, mac_a, 6);
	memcpy(s.dst_mac, mac_b, 6);
	memset(s.src, 0, 16);
	memset(s.dst, 0, 16);
	s.src[0] = 0xfe; s.src[1] = 0x80; s.src[15] = 1;
	s.dst[0] = 0xfe; s.dst[1] = 0x80; s.dst[15] = 2;
	s.bth.opcode = 0x04;
	s.bth.pkey = 0xffff;
	s.bth.dqpn = 0x31;
	s.bth.psn = 7;
	s.payload = payload;
	s.payload_len = 16;
	emit(&s);
	now_us += 100;

	/* RoCE v2 over IPv6 */
	roce_frame_spec_init(&s);
	s.version = 2;
	s.ip_version = 6;
	memcpy(s.src_mac, mac_a, 6);
	memcpy(s.dst_mac, mac_b, 6);
	memset(s.src, 0, 16);
	memset(s.dst, 0, 16);
	s.src[0] = 0xfd; s.src[1] = 0x77; s.src[15] = 1;
	s.dst[0] = 0xfd; s.dst[1] = 0x77; s.dst[15] = 2;
	s.bth.opcode = 0x04;
	s.bth.pkey = 0xffff;
	s.bth.dqpn = 0x41;
	s.bth.psn = 9;
	s.payload = payload;
	s.payload_len = 32;
	emit(&s);
	now_us += 100;

	/* XRC SEND_ONLY */
	spec_v4(&s, 1);
	s.bth.opcode = 0xa4;
	s.bth.dqpn = 0x51;
	s.bth.psn = 1000;
	s.xrc_srq = 0x1234;
	s.payload = payload;
	s.payload_len = 8;
	emit(&s);
	now_us += 100;

	/* PFC storm: priority 3, 0xFFFF quanta (335.539 us at 100G) every 300 us */
	quanta[3] = 0xffff;
	for (int i = 0; i < 800; i++) {
		if (roce_build_pfc(mac_b, 0x08, quanta, buf, sizeof buf, &len) != ROCE_OK) {
			fprintf(stderr, "roce_build_pfc failed\n");
			exit(2);
		}
		pcap_record(buf, len);
		now_us += 300;
	}
	/* XON on priority 3 */
	quanta[3] = 0;
	if (roce_build_pfc(mac_b, 0x08, quanta, buf, sizeof buf, &len) == ROCE_OK)
		pcap_record(buf, len);
	now_us += 1000;

	/* 802.3x PAUSE */
	if (roce_build_pause(mac_a, 0xffff, buf, sizeof buf, &len) == ROCE_OK)
		pcap_record(buf, len);
	now_us += 1000;
}

static void gen_bench(unsigned long n)
{
	uint32_t psn = 0;

	pcap_header();
	for (unsigned long i = 0; i < n; i++) {
		if (i % 16 == 15) {
			ack(0x22, psn - 1, 0x1f, (uint32_t)(i / 16));
		} else {
			struct roce_frame_spec s;
			spec_v4(&s, 1);
			s.bth.opcode = 0x04;
			s.bth.dqpn = 0x11;
			s.bth.psn = psn++ & 0xffffff;
			s.bth.ackreq = (i % 16) == 14;
			s.payload = payload;
			s.payload_len = sizeof payload;
			emit(&s);
		}
		now_us += 1;
	}
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: %s facts OUT.pcap | bench OUT.pcap N\n", argv[0]);
		return 2;
	}
	out = fopen(argv[2], "wb");
	if (out == NULL) {
		perror(argv[2]);
		return 2;
	}
	if (strcmp(argv[1], "facts") == 0) {
		gen_facts();
	} else if (strcmp(argv[1], "bench") == 0 && argc >= 4) {
		gen_bench(strtoul(argv[3], NULL, 10));
	} else {
		fprintf(stderr, "unknown mode %s\n", argv[1]);
		return 2;
	}
	if (fclose(out) != 0) {
		perror(argv[2]);
		return 2;
	}
	return 0;
}
