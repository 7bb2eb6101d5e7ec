// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * refgen - seeded random RC, UC and UD traffic with impairments, for the reference-model
 * test (tests/cli/refmodel.sh).
 *
 *   refgen SEED OUT.pcap [OPS [IMPAIRMENTS]]
 *
 * IMPAIRMENTS picks some of: l loss, c corruption (bad ICRC), d duplication,
 * o reordering, r RNR NAKs, t timeouts, x READ re-reads ("-" for none;
 * default all).
 *
 * Three RC connections (RoCE v1, v2/IPv4, v2/IPv6), each a requester A and a
 * responder B: SEND / RDMA WRITE messages of 1..4 packets, RDMA READs with
 * their responses, coalesced ACKs, CNPs; a UC connection (SEND / RDMA WRITE
 * messages, never resent) and a UD one (SEND_ONLY with a DETH; in half of
 * the seeds a second source QP of host A sends to the same UD QP once, late
 * in the run) between other hosts over v2/IPv4; in a third of the seeds one
 * connection starts over half way with PSNs 2^23 or more away (a new
 * connection on the same QP numbers); and as impairments: loss before the
 * capture point, duplicated frames, adjacent frames swapped, frames with a
 * bad ICRC (half of them with a corrupted PSN too; the receiver drops them,
 * so they are lost as well), NAK (PSN sequence error) and RNR NAK followed by
 * go-back-N resends, resends after a timeout, and RDMA READ re-reads from the
 * middle of a message (the first missing response onwards, shorter DMA
 * length) with the original responses still in flight after the re-read.
 * PMTU 256.
 *
 * Minimal on purpose: it will be replaced by roce-gen scenarios once
 * roce-gen has landed.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <roce/build.h>
#include <roce/opcode.h>

#include "capread.h"

#define PMTU 256
#define MAXF 200000

static uint64_t rng_state;

static uint32_t rnd(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 2685821657736338717ull) >> 32);
}

static bool chance(unsigned percent) { return rnd() % 1000 < percent * 10; }
static bool chance_pm(unsigned permille) { return rnd() % 1000 < permille; }

/* impairments switched on (refgen's 4th argument): loss, corruption,
 * duplication, reordering, RNR NAKs, timeouts, READ re-reads */
static bool imp_loss = true, imp_corrupt = true, imp_dup = true, imp_reorder = true,
	imp_rnr = true, imp_timeout = true, imp_reread = true;

enum kind { RC, UC, UD };

struct conn {
	enum kind kind;
	struct roce_frame_spec a2b, b2a; /* templates */
	uint32_t npsn;                    /* next new request PSN */
	uint32_t msn;
};

struct out {
	struct roce_frame_spec spec;
	int conn;
};

static struct out *frames;
static size_t nframes;
static int cur_conn;

/* Impairments decided per transmitted frame: returns true when the frame
 * reached the receiver (it may still be captured corrupted). */
static bool emit(const struct roce_frame_spec *s)
{
	if (nframes + 3 >= MAXF)
		return true;
	if (chance_pm(30) && imp_loss) /* lost before the capture point */
		return false;
	struct out *o = &frames[nframes++];

	o->spec = *s;
	o->conn = cur_conn;
	if (chance_pm(15) && imp_corrupt) {
		/* corrupted: captured with a bad ICRC, dropped by the receiver */
		o->spec.bad_icrc = true;
		if (chance(50))
			o->spec.bth.psn = (o->spec.bth.psn + 1 + rnd() % 300) & 0xffffff;
		return false;
	}
	if (chance_pm(15) && imp_dup) { /* duplicated on the wire */
		frames[nframes] = *o;
		nframes++;
	}
	return true;
}

static struct roce_frame_spec req(struct conn *c, uint8_t op, uint32_t psn, uint32_t paylen)
{
	struct roce_frame_spec s = c->a2b;

	s.bth.opcode = op;
	s.bth.psn = psn & 0xffffff;
	s.payload_len = paylen;
	s.bth.ackreq = (roce_opcodes[op].flags & ROCE_F_LAST) != 0;
	return s;
}

static struct roce_frame_spec rsp(struct conn *c, uint8_t op, uint32_t psn, uint8_t syndrome)
{
	struct roce_frame_spec s = c->b2a;

	s.bth.opcode = op;
	s.bth.psn = psn & 0xffffff;
	s.aeth.syndrome = syndrome;
	s.aeth.msn = c->msn;
	return s;
}

/* One request packet (SEND/WRITE/ATOMIC): transmitted with its PSN. */
struct sent {
	uint8_t op;
	uint32_t psn, paylen, dma_len;
};

static struct sent hist[4096];
static size_t nhist;

static bool send_req(struct conn *c, const struct sent *p)
{
	struct roce_frame_spec s = req(c, p->op, p->psn, p->paylen);

	if (roce_opcodes[p->op].hdrs & ROCE_H_RETH) {
		s.reth.va = 0x10000 + (uint64_t)p->psn * PMTU;
		s.reth.rkey = 0x1234;
		s.reth.dma_len = p->dma_len;
	}
	return emit(&s);
}

/* go-back-N from hist index i: resend every packet from there (again lossy) */
static void go_back(struct conn *c, size_t i, int depth)
{
	bool lost = false;
	size_t first_lost = 0;

	for (size_t k = i; k < nhist; k++) {
		if (!send_req(c, &hist[k]) && !lost) {
			lost = true;
			first_lost = k;
		}
	}
	if (lost && depth < 3) {
		if (chance(70)) { /* NAK again, else the requester times out */
			struct roce_frame_spec n = rsp(c, ROCE_OP_RC_ACKNOWLEDGE,
						       hist[first_lost].psn, 0x60);

			emit(&n);
		}
		go_back(c, first_lost, depth + 1);
	}
}

static void message(struct conn *c, bool write)
{
	unsigned npk = 1 + rnd() % 4;
	size_t start = nhist;
	bool lost = false;
	size_t first_lost = 0;

	if (nhist + npk >= sizeof(hist) / sizeof(hist[0]))
		nhist = start = 0;
	for (unsigned k = 0; k < npk; k++) {
		struct sent *p = &hist[nhist++];
		bool last = k + 1 == npk;

		if (npk == 1)
			p->op = write ? ROCE_OP_RC_RDMA_WRITE_ONLY : ROCE_OP_RC_SEND_ONLY;
		else if (k == 0)
			p->op = write ? ROCE_OP_RC_RDMA_WRITE_FIRST : ROCE_OP_RC_SEND_FIRST;
		else if (last)
			p->op = write ? ROCE_OP_RC_RDMA_WRITE_LAST : ROCE_OP_RC_SEND_LAST;
		else
			p->op = write ? ROCE_OP_RC_RDMA_WRITE_MIDDLE : ROCE_OP_RC_SEND_MIDDLE;
		p->psn = c->npsn++ & 0xffffff;
		p->paylen = last ? 1 + rnd() % PMTU : PMTU;
		p->dma_len = (npk - 1) * PMTU + 16;
		if (!send_req(c, p) && !lost) {
			lost = true;
			first_lost = nhist - 1;
		}
	}
	if (lost) {
		/* the responder NAKs the first missing PSN, or the requester times out */
		if (chance(70)) {
			struct roce_frame_spec n = rsp(c, ROCE_OP_RC_ACKNOWLEDGE,
						       hist[first_lost].psn, 0x60);
			emit(&n);
		}
		go_back(c, first_lost, 0);
	} else if (chance(5) && imp_rnr && start < nhist) {
		/* RNR NAK on the message's first packet, then go back to it */
		struct roce_frame_spec n = rsp(c, ROCE_OP_RC_ACKNOWLEDGE, hist[start].psn, 0x20 | 5);

		emit(&n);
		go_back(c, start, 0);
	} else if (chance(3) && imp_timeout && nhist) {
		/* a timeout with nothing lost: resend from a recent packet */
		go_back(c, nhist - 1 - rnd() % (nhist < 6 ? nhist : 6), 0);
	}
	c->msn++;
	if (chance(60)) {
		struct roce_frame_spec a = rsp(c, ROCE_OP_RC_ACKNOWLEDGE, c->npsn - 1, 0x1f);

		emit(&a);
	}
	nhist = nhist > 64 ? 0 : nhist; /* everything acknowledged now and then */
}

/* A UC SEND or RDMA WRITE message of 1..4 packets: a lost packet is not resent. */
static void uc_message(struct conn *c, bool write)
{
	unsigned npk = 1 + rnd() % 4;

	for (unsigned k = 0; k < npk; k++) {
		struct sent p;
		bool last = k + 1 == npk;

		if (npk == 1)
			p.op = write ? ROCE_OP_UC_RDMA_WRITE_ONLY : ROCE_OP_UC_SEND_ONLY;
		else if (k == 0)
			p.op = write ? ROCE_OP_UC_RDMA_WRITE_FIRST : ROCE_OP_UC_SEND_FIRST;
		else if (last)
			p.op = write ? ROCE_OP_UC_RDMA_WRITE_LAST : ROCE_OP_UC_SEND_LAST;
		else
			p.op = write ? ROCE_OP_UC_RDMA_WRITE_MIDDLE : ROCE_OP_UC_SEND_MIDDLE;
		p.psn = c->npsn++ & 0xffffff;
		p.paylen = last ? 1 + rnd() % PMTU : PMTU;
		p.dma_len = (npk - 1) * PMTU + 16;
		send_req(c, &p);
	}
}

/* A UD SEND_ONLY from source QP src_qp (the connection's own QP: its PSN sequence). */
static void ud_send(struct conn *c, uint32_t src_qp, uint32_t psn)
{
	struct roce_frame_spec s = req(c, ROCE_OP_UD_SEND_ONLY, psn, 1 + rnd() % PMTU);

	s.deth.qkey = 0x11111111;
	s.deth.src_qp = src_qp;
	emit(&s);
}

struct readop {
	uint32_t psn, n, len;
	bool got[64];
};

/* Responses [from, to) of READ r, answering the request that asked for
 * [base, n): opcodes FIRST/MIDDLE/LAST/ONLY count from base. */
static void read_responses(struct conn *c, struct readop *r, uint32_t base, uint32_t from,
			   uint32_t to)
{
	for (uint32_t k = from; k < to; k++) {
		uint8_t op;

		if (r->n - base == 1)
			op = ROCE_OP_RC_RDMA_READ_RESPONSE_ONLY;
		else if (k == base)
			op = ROCE_OP_RC_RDMA_READ_RESPONSE_FIRST;
		else if (k + 1 == r->n)
			op = ROCE_OP_RC_RDMA_READ_RESPONSE_LAST;
		else
			op = ROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE;
		struct roce_frame_spec s = rsp(c, op, r->psn + k, 0x1f);

		s.payload_len = k + 1 == r->n ? r->len - k * PMTU : PMTU;
		if (emit(&s))
			r->got[k] = true;
	}
}

static void read_request(struct conn *c, struct readop *r, uint32_t from)
{
	struct roce_frame_spec s = req(c, ROCE_OP_RC_RDMA_READ_REQUEST, r->psn + from, 0);

	s.reth.va = 0x200000 + (uint64_t)from * PMTU;
	s.reth.rkey = 0x4321;
	s.reth.dma_len = r->len - from * PMTU;
	s.bth.ackreq = 1;
	emit(&s);
}

/* Two READs back to back; the first one's missing responses are re-read from
 * the first missing one while the second one's responses are in flight. */
static void reads(struct conn *c)
{
	struct readop r[2];

	for (int i = 0; i < 2; i++) {
		memset(&r[i], 0, sizeof(r[i]));
		r[i].len = 1 + rnd() % (6 * PMTU);
		r[i].n = (r[i].len + PMTU - 1) / PMTU;
		r[i].psn = c->npsn & 0xffffff;
		c->npsn += r[i].n;
		read_request(c, &r[i], 0);
	}
	nhist = 0; /* go-back-N never crosses a READ here */
	read_responses(c, &r[0], 0, 0, r[0].n);
	uint32_t half = r[1].n / 2;

	read_responses(c, &r[1], 0, 0, half);
	uint32_t m = 0;

	while (m < r[0].n && r[0].got[m])
		m++;
	if (m == r[0].n || !imp_reread) {
		read_responses(c, &r[1], 0, half, r[1].n);
	} else {
		/* re-read burst: READ 0 from its first missing response, READ 1 whole */
		read_request(c, &r[0], m);
		read_request(c, &r[1], 0);
		read_responses(c, &r[1], 0, half, r[1].n); /* originals still in flight */
		read_responses(c, &r[0], m, m, r[0].n);
		read_responses(c, &r[1], 0, 0, r[1].n);
		/* a second re-read of READ 0 if a response was lost again */
		for (m = 0; m < r[0].n && r[0].got[m];)
			m++;
		if (m < r[0].n) {
			read_request(c, &r[0], m);
			read_responses(c, &r[0], m, m, r[0].n);
		}
	}
	c->msn += 2;
}

/* A connection between A (QP qa) and B (QP qb); IPv4 hosts 192.168.net.1 and .2. */
static void conn_init(struct conn *c, enum kind kind, int version, int ipv, uint32_t net,
		      uint32_t qa, uint32_t qb)
{
	struct roce_frame_spec *s[2] = { &c->a2b, &c->b2a };

	c->kind = kind;
	for (int d = 0; d < 2; d++) {
		roce_frame_spec_init(s[d]);
		s[d]->version = (uint8_t)version;
		s[d]->ip_version = (uint8_t)ipv;
		memcpy(s[d]->src_mac, d ? "\x02\0\0\0\0\x02" : "\x02\0\0\0\0\x01", 6);
		memcpy(s[d]->dst_mac, d ? "\x02\0\0\0\0\x01" : "\x02\0\0\0\0\x02", 6);
		s[d]->bth.dqpn = d ? qa : qb;
		s[d]->bth.pkey = 0xffff;
		s[d]->sport = (uint16_t)(0xc000 + qa);
	}
	if (ipv == 4) {
		roce_addr_v4(c->a2b.src, 0xc0a80001 | net << 8);
		roce_addr_v4(c->a2b.dst, 0xc0a80002 | net << 8);
	} else {
		static const uint8_t a6[16] = { 0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 };
		static const uint8_t a1[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 };

		memcpy(c->a2b.src, ipv == 6 ? a6 : a1, 16);
		memcpy(c->a2b.dst, ipv == 6 ? a6 : a1, 16);
		c->a2b.dst[15] = 2;
	}
	memcpy(c->b2a.src, c->a2b.dst, 16);
	memcpy(c->b2a.dst, c->a2b.src, 16);
	c->npsn = rnd() & 0xffffff;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: refgen SEED OUT.pcap [OPS [IMPAIRMENTS]]\n");
		return 2;
	}
	if (argc > 4) { /* l c d o r t x, or "-" for none */
		const char *m = argv[4];

		imp_loss = strchr(m, 'l');
		imp_corrupt = strchr(m, 'c');
		imp_dup = strchr(m, 'd');
		imp_reorder = strchr(m, 'o');
		imp_rnr = strchr(m, 'r');
		imp_timeout = strchr(m, 't');
		imp_reread = strchr(m, 'x');
	}
	rng_state = strtoull(argv[1], NULL, 0) * 0x9E3779B97F4A7C15ull + 1;
	unsigned ops = argc > 3 ? (unsigned)strtoul(argv[3], NULL, 10) : 300;
#define NCONN 5
	struct conn c[NCONN];
	struct out *lists[NCONN];
	size_t nl[NCONN];

	frames = calloc(MAXF, sizeof(*frames));
	if (!frames)
		return 3;
	conn_init(&c[0], RC, 1, 0, 0, 0x31, 0x32);
	conn_init(&c[1], RC, 2, 4, 10, 0x41, 0x42);
	conn_init(&c[2], RC, 2, 6, 0, 0x51, 0x52);
	conn_init(&c[3], UC, 2, 4, 20, 0x61, 0x62);
	conn_init(&c[4], UD, 2, 4, 30, 0x71, 0x72);
	/* UD: in half of the seeds a second source QP sends once, 3/4 into the run */
	unsigned ud_other = chance(50) ? ops * 3 / 4 : ops;
	/* a third of the seeds: connection `reuse` starts over half way (QP numbers reused) */
	int reuse = chance(33) ? (int)(rnd() % NCONN) : -1;

	/* each connection on its own, then interleaved at random (order kept per connection) */
	for (int i = 0; i < NCONN; i++) {
		size_t base = nframes;

		cur_conn = i;
		nhist = 0;
		for (unsigned k = 0; k < ops; k++) {
			unsigned what = rnd() % 100;

			if (i == reuse && k == ops / 2) {
				c[i].npsn += (1u << 23) + rnd() % (1u << 20);
				nhist = 0;
			}
			if (c[i].kind == UD && k == ud_other)
				ud_send(&c[i], 0x73, rnd());
			if (c[i].kind == UC && what < 92)
				uc_message(&c[i], what < 46);
			else if (c[i].kind == UD && what < 92)
				ud_send(&c[i], 0x71, c[i].npsn++);
			else if (what < 35)
				message(&c[i], false);
			else if (what < 70)
				message(&c[i], true);
			else if (what < 92)
				reads(&c[i]);
			else {
				struct roce_frame_spec s = c[i].b2a;

				s.bth.opcode = ROCE_OP_CNP;
				s.bth.becn = 1;
				s.bth.psn = 0;
				emit(&s);
			}
		}
		lists[i] = &frames[base];
		nl[i] = nframes - base;
		/* swap adjacent frames now and then (reordering) */
		for (size_t k = 0; k + 1 < nl[i]; k++)
			if (chance_pm(10) && imp_reorder) {
				struct out t = lists[i][k];

				lists[i][k] = lists[i][k + 1];
				lists[i][k + 1] = t;
				k++;
			}
	}
	char err[ROCE_ERRBUF_SIZE];
	roce_capwriter_t *w = roce_capw_open(argv[2], 1, 65535, 1, err);

	if (!w) {
		fprintf(stderr, "refgen: %s\n", err);
		return 2;
	}
	size_t pos[NCONN] = { 0 };
	uint64_t ts = 1795961453000000000ull;
	uint8_t buf[2048];

	for (;;) {
		size_t left = 0;

		for (int k = 0; k < NCONN; k++)
			left += nl[k] - pos[k];
		if (!left)
			break;
		size_t pick = rnd() % left;
		int i = 0;

		while (pick >= nl[i] - pos[i]) {
			pick -= nl[i] - pos[i];
			i++;
		}
		size_t len;

		const struct roce_bth *b = &lists[i][pos[i]].spec.bth;
		/* a frame repeating one of its connection's last 8 frames (a duplicate on the
		 * wire, a resend the model makes at once, two CNPs): 10 us after the frame
		 * written before it, past roce-analyze's capture-copy window (docs/json.md
		 * "Capture copies": a copy of an earlier frame of its stream, other frames
		 * between), as the model has no capture copies; frames are 1 us apart */
		bool late = false;

		for (size_t k = 1; k <= 8 && k <= pos[i] && !late; k++) {
			const struct roce_bth *o = &lists[i][pos[i] - k].spec.bth;

			late = o->psn == b->psn && o->opcode == b->opcode && o->dqpn == b->dqpn;
		}

		if (roce_build(&lists[i][pos[i]++].spec, buf, sizeof(buf), &len) != 0) {
			fprintf(stderr, "refgen: roce_build failed\n");
			return 2;
		}
		ts += late ? 10000 : 1000;
		if (roce_capw_write(w, ts, buf, (uint32_t)len, (uint32_t)len) != 0) {
			fprintf(stderr, "refgen: write failed\n");
			return 2;
		}
	}
	return roce_capw_close(w) ? 2 : 0;
}
