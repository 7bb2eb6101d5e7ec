/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_gen.c - roce-gen's option setters, scenario file parser (every bad
 * file gives its line number and a reason) and scenario engine (frame
 * sequences of segmentation, ACKs, READs and each recovery, the truth it
 * reports, timestamps, -c, determinism; UC and UD with their faults), with
 * frames captured in memory and decoded by libroce.
 */
#include <stdlib.h>
#include <string.h>

#include <roce/buf.h>
#include <roce/opcode.h>
#include <roce/pkt.h>

#include "check.h"
#include "gen.h"

/* ---- an in-memory output ----------------------------------------------------------- */

#define MAX_FRAMES 4096

struct memframe {
	uint64_t ts;
	uint32_t len;
	uint8_t data[9216];
};

static struct memframe *frames;
static unsigned nframes;

static int mem_write(struct rg_output *o, uint64_t ts, const uint8_t *f, uint32_t len)
{
	(void)o;
	if (nframes == MAX_FRAMES || len > sizeof(frames[0].data))
		return -1;
	frames[nframes].ts = ts;
	frames[nframes].len = len;
	memcpy(frames[nframes].data, f, len);
	nframes++;
	return 0;
}

static int mem_close(struct rg_output *o)
{
	(void)o;
	return 0;
}

static const struct rg_output_ops mem_ops = { .write = mem_write, .close = mem_close };

static int run(struct rg_config *c, struct rg_truth *t)
{
	struct rg_output o = { .ops = &mem_ops, .name = "mem" };
	char err[256];

	nframes = 0;
	return rg_generate(c, &o, t, err, sizeof(err));
}

/* Decode frame i (ICRC verified). */
static int dec(unsigned i, struct roce_pkt *p)
{
	return roce_decode(ROCE_LINKTYPE_ETHERNET, frames[i].data, frames[i].len, frames[i].len,
			   NULL, p);
}

static void cfg(struct rg_config *c, const char *const *kv)
{
	char err[256];

	rg_config_defaults(c);
	c->write_path = "mem";
	for (; kv && kv[0]; kv += 2)
		if (rg_config_set(c, kv[0], kv[1], err, sizeof(err)))
			fprintf(stderr, "setting %s=%s: %s\n", kv[0], kv[1], err);
}

/* "opcode/psn" string of frames [0, n) for compact sequence checks. */
static void seq(char *out, size_t cap)
{
	size_t off = 0;

	out[0] = 0;
	for (unsigned i = 0; i < nframes && off < cap; i++) {
		struct roce_pkt p;
		int rc = dec(i, &p);

		if (p.kind == ROCE_KIND_PFC)
			off += (size_t)snprintf(out + off, cap - off, "%sPFC", i ? " " : "");
		else if (p.kind == ROCE_KIND_PAUSE)
			off += (size_t)snprintf(out + off, cap - off, "%sPAUSE", i ? " " : "");
		else
			off += (size_t)snprintf(out + off, cap - off, "%s%02x/%u%s%s", i ? " " : "",
						p.bth.opcode, p.bth.psn,
						p.icrc_status == ROCE_ICRC_OK ? "" : "!",
						rc == ROCE_OK ? "" : "?");
	}
}

/* ---- option setters ---------------------------------------------------------------- */

static void test_setters(void)
{
	struct rg_config c;
	char err[256];

	rg_config_defaults(&c);
	CHECK_EQ_I(rg_config_set(&c, "verbs", "write:3,read", err, sizeof(err)), 0);
	CHECK_EQ_U(c.verb_weight[RG_WRITE], 3);
	CHECK_EQ_U(c.verb_weight[RG_READ], 1);
	CHECK_EQ_U(c.verb_weight[RG_SEND], 0);
	CHECK_EQ_I(rg_config_set(&c, "verbs", "write,bogus", err, sizeof(err)), -1);
	CHECK(strstr(err, "bogus") != NULL);
	CHECK_EQ_I(rg_config_set(&c, "msg-size", "64:3,4096", err, sizeof(err)), 0);
	CHECK_EQ_U(c.sizes.n, 2);
	CHECK_EQ_U(c.sizes.weight[0], 3);
	CHECK_EQ_I(rg_config_set(&c, "msg-size", "uniform:10-20", err, sizeof(err)), 0);
	CHECK_EQ_U(c.sizes.kind, RG_SIZE_UNIFORM);
	CHECK_EQ_I(rg_config_set(&c, "msg-size", "uniform:20-10", err, sizeof(err)), -1);
	CHECK_EQ_I(rg_config_set(&c, "msg-size", "exp:100:50", err, sizeof(err)), -1);
	CHECK_EQ_I(rg_config_set(&c, "drop-psn", "5,7-9,2/100", err, sizeof(err)), 0);
	CHECK_EQ_U(c.fault[RG_F_DROP].list.n, 5);
	CHECK_EQ_I(c.fault[RG_F_DROP].list.v[4].qp, 2);
	CHECK_EQ_U(c.fault[RG_F_DROP].list.v[4].psn, 100);
	CHECK_EQ_I(rg_config_set(&c, "drop-psn", "16777216", err, sizeof(err)), -1);
	CHECK_EQ_I(rg_config_set(&c, "loss", "2%", err, sizeof(err)), 0);
	CHECK(c.fault[RG_F_DROP].rate > 0.0199 && c.fault[RG_F_DROP].rate < 0.0201);
	CHECK_EQ_I(rg_config_set(&c, "loss", "1.1", err, sizeof(err)), -1);
	CHECK_EQ_I(rg_config_set(&c, "pfc", "prio=3,quanta=100,refresh=200us,length=1s",
				 err, sizeof(err)), 0);
	CHECK_EQ_U(c.pause[0].prio, 3);
	CHECK_EQ_U(c.pause[0].refresh_ns, 200000);
	CHECK_EQ_U(c.pause[0].length_ns, 1000000000ull);
	CHECK_EQ_I(rg_config_set(&c, "pfc", "quanta=100", err, sizeof(err)), -1);
	CHECK_EQ_I(rg_config_set(&c, "pfc", "prio=8", err, sizeof(err)), -1);
	CHECK_EQ_I(rg_config_set(&c, "rate", "10G", err, sizeof(err)), 0);
	CHECK_EQ_U(c.rate_bps, 10000000000ull);
	CHECK_EQ_I(rg_config_set(&c, "pmtu", "1000", err, sizeof(err)), -1);
	CHECK_EQ_I(rg_config_set(&c, "src-ip", "fd00::1", err, sizeof(err)), 0);
	CHECK_EQ_I(rg_config_check(&c, err, sizeof(err)), -1);      /* v2 with an IPv6 address */
	CHECK_EQ_I(rg_config_set(&c, "nonsense", "1", err, sizeof(err)), -1);
	rg_config_free(&c);
}

/* ---- scenario files -------------------------------------------------------------- */

static void bad_file(const char *text, const char *want)
{
	struct rg_config c;
	char err[512];

	rg_config_defaults(&c);
	CHECK_EQ_I(rg_scenario_load_data(&c, "s.ini", text, strlen(text), err, sizeof(err)), -1);
	if (!strstr(err, want))
		fprintf(stderr, "  got \"%s\", want \"%s\"\n", err, want);
	CHECK(strstr(err, want) != NULL);
	rg_config_free(&c);
}

static void test_scenario(void)
{
	static const char good[] =
		"# a comment\n"
		"[traffic]\n"
		"qps = 4\n"
		"verbs = write:3, read:1\n"
		"\n"
		"[faults]\n"
		"drop-psn = 10,11\n"
		"pfc = prio=3,length=250ms ; prio=4,quanta=1000\n";
	struct rg_config c;
	char err[512];

	rg_config_defaults(&c);
	CHECK_EQ_I(rg_scenario_load_data(&c, "s.ini", good, strlen(good), err, sizeof(err)), 0);
	CHECK_EQ_U(c.qps, 4);
	CHECK_EQ_U(c.verb_weight[RG_WRITE], 3);
	CHECK_EQ_U(c.fault[RG_F_DROP].list.n, 2);
	CHECK_EQ_U(c.n_pauses, 2);
	CHECK_EQ_U(c.pause[1].quanta, 1000);
	rg_config_free(&c);

	bad_file("[traffic]\nqps = 4\nthis line is wrong\n", "s.ini:3: expected KEY = VALUE");
	bad_file("qps = 4\n", "s.ini:1: KEY = VALUE before the first [group]");
	bad_file("[traffic]\n\n[trafic]\n", "s.ini:3: unknown group [trafic]");
	bad_file("[traffic]\nqps = 1\nqps = 2\n", "s.ini:3: 'qps' given twice in [traffic]");
	bad_file("[traffic]\n# x\nqps = 0\n", "s.ini:3: [traffic] qps '0'");
	bad_file("[faults]\nloss = 0.1\n\nfrobs = 1\n", "s.ini:4: [faults] unknown setting 'frobs'");
	bad_file("[faults]\npfc = prio=1 ; prio=9\n", "s.ini:2: [faults] pfc: prio '9'");
	bad_file("[traffic\n", "s.ini:1: expected [group]");
	bad_file("[traffic]\n = 3\n", "s.ini:2: empty key");
	{
		static const char bin[] = "[traffic]\nqps = 1\n\x00\x01";

		rg_config_defaults(&c);
		CHECK_EQ_I(rg_scenario_load_data(&c, "s.ini", bin, sizeof(bin), err, sizeof(err)),
			   -1);
		CHECK(strstr(err, "not a scenario file") != NULL);
		rg_config_free(&c);
	}
}

/* ---- engine ------------------------------------------------------------------------ */

static void test_segmentation(void)
{
	static const char *const kv[] = { "msg-size", "5000", "messages", "2", "pps", "1M", NULL };
	struct rg_config c;
	struct rg_truth t;
	struct roce_pkt p;
	char s[512];

	cfg(&c, kv);
	REQUIRE(run(&c, &t) == 0);
	seq(s, sizeof(s));
	CHECK_STR(s, "06/0 07/1 07/2 07/3 08/4 11/4 06/5 07/6 07/7 07/8 08/9 11/9");
	REQUIRE(nframes == 12);
	REQUIRE(dec(0, &p) == ROCE_OK);
	CHECK_EQ_U(p.reth.dma_len, 5000);
	CHECK_EQ_U(p.payload_len, 1024);
	REQUIRE(dec(4, &p) == ROCE_OK);
	CHECK_EQ_U(p.payload_len, 5000 - 4096);
	CHECK_EQ_U(p.bth.ackreq, 1);
	REQUIRE(dec(5, &p) == ROCE_OK);
	CHECK_EQ_U(p.aeth.syndrome, 0x1f);
	CHECK_EQ_U(p.aeth.msn, 1);
	CHECK_EQ_U(p.bth.dqpn, 0x100);
	CHECK_EQ_U(frames[1].ts - frames[0].ts, 1000);  /* 1 Mpps */
	CHECK_EQ_U(frames[0].ts, 1764374400ull * 1000000000ull);
	CHECK_EQ_U(t.frames, 12);
	CHECK_EQ_U(t.acks, 2);
	CHECK_EQ_U(t.icrc_ok, 12);
	rg_config_free(&c);
}

static void test_drop_nak(void)
{
	static const char *const kv[] = { "msg-size", "5000", "messages", "2", "drop-psn", "6,7",
		NULL };
	struct rg_config c;
	struct rg_truth t;
	char s[512];

	cfg(&c, kv);
	REQUIRE(run(&c, &t) == 0);
	seq(s, sizeof(s));
	/* 6 and 7 lost; 8 reveals the gap; NAK PSN 6; go back 6, 7 (fills), 8 (dup) */
	CHECK_STR(s, "06/0 07/1 07/2 07/3 08/4 11/4 06/5 07/8 11/6 07/6 07/7 07/8 08/9 11/9");
	CHECK_EQ_U(t.psn_gaps, 1);
	CHECK_EQ_U(t.lost_psns, 2);
	CHECK_EQ_U(t.out_of_order, 2);
	CHECK_EQ_U(t.duplicates, 1);
	CHECK_EQ_U(t.retransmissions, 3);
	CHECK_EQ_U(t.gbn_nak, 1);
	CHECK_EQ_U(t.naks, 1);
	CHECK_EQ_U(t.nak_seq_err, 1);
	CHECK_EQ_U(t.unrecovered_psns, 0);
	CHECK_EQ_U(t.injected[RG_F_DROP], 2);
	CHECK_EQ_U(t.dropped, 2);
	rg_config_free(&c);
}

static void test_faults_sequences(void)
{
	struct rg_config c;
	struct rg_truth t;
	char s[512];
	static const char *const rnr[] = { "verbs", "send", "msg-size", "2048", "messages", "1",
		"rnr-psn", "0", "rnr-timer", "1", NULL };
	static const char *const tmo[] = { "msg-size", "2048", "messages", "1", "timeout-psn",
		"0", "retry-timeout", "1ms", NULL };
	static const char *const dup[] = { "msg-size", "2048", "messages", "1", "dup-psn", "1",
		NULL };
	static const char *const reo[] = { "msg-size", "4096", "messages", "1", "reorder-psn",
		"0,1", NULL };
	static const char *const ce[] = { "msg-size", "3072", "messages", "1", "ce-psn", "0-2",
		"cnp-interval", "0", NULL };
	static const char *const icrc[] = { "msg-size", "3072", "messages", "1", "bad-icrc-psn",
		"1", NULL };
	static const char *const rd[] = { "verbs", "read", "msg-size", "4096", "messages", "1",
		"read-loss-psn", "1", NULL };

	cfg(&c, rnr);
	REQUIRE(run(&c, &t) == 0);
	seq(s, sizeof(s));
	CHECK_STR(s, "00/0 11/0 00/0 02/1 11/1");
	CHECK(frames[2].ts - frames[1].ts >= 10000);    /* RNR timer code 1: 0.01 ms */
	CHECK_EQ_U(t.rnr_naks, 1);
	CHECK_EQ_U(t.naks, 1);
	CHECK_EQ_U(t.gbn_rnr, 1);
	CHECK_EQ_U(t.duplicates, 1);
	rg_config_free(&c);

	cfg(&c, tmo);
	REQUIRE(run(&c, &t) == 0);
	seq(s, sizeof(s));
	CHECK_STR(s, "06/0 08/1 06/0 08/1 11/1");       /* the first ACK is lost */
	CHECK(frames[2].ts - frames[1].ts >= 1000000);
	CHECK_EQ_U(t.gbn_timeout, 1);
	CHECK_EQ_U(t.retransmissions, 2);
	CHECK_EQ_U(t.duplicates, 2);
	rg_config_free(&c);

	cfg(&c, dup);
	REQUIRE(run(&c, &t) == 0);
	seq(s, sizeof(s));
	CHECK_STR(s, "06/0 08/1 08/1 11/1");
	CHECK_EQ_U(t.duplicates, 1);
	rg_config_free(&c);

	cfg(&c, reo);
	REQUIRE(run(&c, &t) == 0);
	seq(s, sizeof(s));
	/* not the stream's first packet (nothing before it would show the gap) */
	CHECK_STR(s, "06/0 07/2 07/1 08/3 11/3");
	CHECK_EQ_U(t.psn_gaps, 1);
	CHECK_EQ_U(t.out_of_order, 1);
	rg_config_free(&c);

	cfg(&c, ce);
	REQUIRE(run(&c, &t) == 0);
	seq(s, sizeof(s));
	CHECK_STR(s, "06/0 81/0 07/1 81/0 08/2 81/0 11/2");
	CHECK_EQ_U(t.ecn_ce, 3);
	CHECK_EQ_U(t.cnps, 3);
	rg_config_free(&c);

	cfg(&c, icrc);
	REQUIRE(run(&c, &t) == 0);
	seq(s, sizeof(s));
	CHECK_STR(s, "06/0 07/1! 08/2 11/1 07/1 08/2 11/2");
	CHECK_EQ_U(t.icrc_bad, 1);
	CHECK_EQ_U(t.psn_gaps, 1);
	CHECK_EQ_U(t.out_of_order, 1);
	rg_config_free(&c);

	cfg(&c, rd);
	REQUIRE(run(&c, &t) == 0);
	seq(s, sizeof(s));
	/* READ 0..3, response 1 lost, re-read from PSN 1 for 3072 bytes */
	CHECK_STR(s, "0c/0 0d/0 0e/2 0f/3 0c/1 0d/1 0e/2 0f/3");
	{
		struct roce_pkt p;

		REQUIRE(dec(4, &p) == ROCE_OK);
		CHECK_EQ_U(p.reth.dma_len, 3072);
		REQUIRE(dec(0, &p) == ROCE_OK);
		CHECK_EQ_U(p.reth.dma_len, 4096);
	}
	CHECK_EQ_U(t.psn_gaps, 1);
	CHECK_EQ_U(t.out_of_order, 1);
	CHECK_EQ_U(t.duplicates, 3);
	rg_config_free(&c);
}

static void test_pfc_and_count(void)
{
	static const char *const kv[] = { "messages", "0", "pfc",
		"prio=3,refresh=100us,length=1ms,quanta=65535", "pause", "quanta=7,start=2ms", NULL };
	static const char *const cnt[] = { "count", "7", "verbs", "write,read,send", NULL };
	struct rg_config c;
	struct rg_truth t;
	struct roce_pkt p;

	cfg(&c, kv);
	REQUIRE(run(&c, &t) == 0);
	CHECK_EQ_U(nframes, 12);        /* 10 XOFF, XON, PAUSE */
	CHECK_EQ_U(t.pfc_frames, 11);
	CHECK_EQ_U(t.pause_frames, 1);
	REQUIRE(dec(10, &p) == ROCE_OK);
	CHECK_EQ_U(p.kind, ROCE_KIND_PFC);
	CHECK_EQ_U(roce_get_be16(frames[10].data + 18 + 6), 0);   /* XON */
	CHECK_EQ_U(frames[10].ts - frames[0].ts, 1000000);
	CHECK_EQ_U(frames[1].ts - frames[0].ts, 100000);
	rg_config_free(&c);

	cfg(&c, cnt);
	REQUIRE(run(&c, &t) == 0);
	CHECK_EQ_U(nframes, 7);
	CHECK_EQ_U(t.frames, 7);
	rg_config_free(&c);
}

static void test_deterministic(void)
{
	static const char *const kv[] = { "verbs", "write,read,send_imm,atomic,ud_send,xrc",
		"msg-size", "uniform:0-6000", "messages", "200", "qps", "5", "random-psn", "1",
		"loss", "0.05", "ce-rate", "0.05", "seed", "77", NULL };
	struct rg_config c;
	struct rg_truth t1, t2;
	uint64_t h1 = 1469598103934665603ull, h2 = h1;
	unsigned n1, bad = 0;

	cfg(&c, kv);
	REQUIRE(run(&c, &t1) == 0);
	n1 = nframes;
	for (unsigned i = 0; i < nframes; i++) {
		struct roce_pkt p;

		for (uint32_t k = 0; k < frames[i].len; k++)
			h1 = (h1 ^ frames[i].data[k]) * 1099511628211ull;
		if (dec(i, &p) != ROCE_OK || p.icrc_status != ROCE_ICRC_OK || p.findings)
			bad++;
	}
	CHECK_EQ_U(bad, 0);
	REQUIRE(run(&c, &t2) == 0);
	CHECK_EQ_U(nframes, n1);
	for (unsigned i = 0; i < nframes; i++)
		for (uint32_t k = 0; k < frames[i].len; k++)
			h2 = (h2 ^ frames[i].data[k]) * 1099511628211ull;
	CHECK_EQ_U(h1, h2);
	CHECK(memcmp(&t1, &t2, sizeof(t1)) == 0);
	CHECK(t1.injected[RG_F_DROP] > 0);
	rg_config_free(&c);
}

static void test_script(void)
{
	static const char good[] =
		"[template a]\n"
		"src-ip = 10.0.0.1\n"
		"dqpn = 0x11\n"
		"[template w]\n"
		"base = a\n"
		"opcode = RC_RDMA_WRITE_ONLY\n"
		"payload-len = 8\n"
		"payload = hex:0102030405060708\n"
		"[frame 1]\n"
		"template = w\n"
		"psn = 5\n"
		"repeat = 3\n"
		"psn-step = 2\n"
		"gap = 1us\n"
		"[frame x]\n"
		"kind = pfc\n"
		"mac = 02:00:00:00:00:5e\n"
		"enable = 0x08\n"
		"quanta = 3:100\n"
		"set = 16:1\n"
		"[frame cut]\n"
		"template = a\n"
		"psn = 9\n"
		"xor = 24:0xff\n"
		"caplen = 40\n";
	struct rg_config c;
	struct rg_truth t;
	struct roce_pkt p;
	char err[512], s[256];

	rg_config_defaults(&c);
	c.write_path = "mem";
	REQUIRE(rg_scenario_load_data(&c, "s.ini", good, strlen(good), err, sizeof(err)) == 0);
	REQUIRE(c.script != NULL);
	REQUIRE(run(&c, &t) == 0);
	CHECK_EQ_U(nframes, 5);
	CHECK_EQ_U(t.frames, 5);
	CHECK_EQ_U(t.pfc_frames, 1);
	seq(s, sizeof(s));
	CHECK(strncmp(s, "0a/5 0a/7 0a/9 PFC", 18) == 0);
	REQUIRE(dec(0, &p) == ROCE_OK);
	CHECK_EQ_U(p.payload_len, 8);
	CHECK_EQ_U(frames[0].data[p.payload_off + 7], 8);
	CHECK_EQ_U(p.bth.dqpn, 0x11);
	CHECK_EQ_U(frames[1].ts - frames[0].ts, 1000);
	CHECK_EQ_U(frames[3].data[16], 1);                 /* set */
	rg_config_free(&c);

	bad_file("[frame 1]\nopcode = RC_NOPE\n", "s.ini:2: [frame 1] opcode 'RC_NOPE'");
	bad_file("[frame 1]\ntemplate = t\n", "template 't' is not defined");
	bad_file("[template t]\nbase = t\n[frame 1]\ntemplate = t\n", "nests too deep");
	bad_file("[frame 1]\npsn = 1\n[frame 1]\npsn = 2\n", "s.ini:3: group [frame 1] given twice");
	bad_file("[template a]\n\npsn = 16777216\n[frame 1]\ntemplate = a\n",
		 "s.ini:3: [frame 1] psn '16777216'");
	bad_file("[frame 1]\nset = 100000:1\n", "s.ini:2: [frame 1] set");
}

/* ---- UC and UD: unreliable service (unrel.c) ---------------------------------------- */

/* One run of kv: the opcode/PSN sequence in s, the truth in t. */
static void run_seq(const char *const *kv, struct rg_truth *t, char *s, size_t cap)
{
	struct rg_config c;

	cfg(&c, kv);
	REQUIRE(run(&c, t) == 0);
	seq(s, cap);
	rg_config_free(&c);
}

static void test_uc_segmentation(void)
{
	static const char *const wr[] = { "verbs", "uc_write", "msg-size", "2500", "messages", "2",
		NULL };
	static const char *const sd[] = { "verbs", "uc_send_imm", "msg-size", "2500,100",
		"messages", "2", "seed", "3", NULL };
	static const char *const wi[] = { "verbs", "uc_write_imm,uc_send", "msg-size", "0",
		"messages", "6", "seed", "2", NULL };
	struct rg_truth t;
	struct roce_pkt p;
	char s[512];

	/* FIRST / MIDDLE / LAST, PSN + 1 per packet, no AckReq and no ACK */
	run_seq(wr, &t, s, sizeof(s));
	CHECK_STR(s, "26/0 27/1 28/2 26/3 27/4 28/5");
	for (unsigned i = 0; i < nframes; i++) {
		REQUIRE(dec(i, &p) == ROCE_OK);
		CHECK_EQ_U(p.bth.ackreq, 0);
		CHECK_EQ_U(p.bth.dqpn, 0x107);  /* the QP's last number of eight */
		CHECK_EQ_U(p.icrc_status, ROCE_ICRC_OK);
	}
	REQUIRE(dec(0, &p) == ROCE_OK);
	CHECK(p.hdrs & ROCE_H_RETH);
	CHECK_EQ_U(p.reth.dma_len, 2500);
	CHECK_EQ_U(p.payload_len, 1024);
	REQUIRE(dec(2, &p) == ROCE_OK);
	CHECK_EQ_U(p.payload_len, 2500 - 2048);
	CHECK_EQ_U(t.acks, 0);
	CHECK_EQ_U(t.messages, 2);

	/* SEND with immediate: ImmDt on the last packet, SE there */
	run_seq(sd, &t, s, sizeof(s));
	CHECK(strstr(s, "20/0 21/1 23/2") == s);
	REQUIRE(dec(2, &p) == ROCE_OK);
	CHECK(p.hdrs & ROCE_H_IMMDT);
	CHECK_EQ_U(p.bth.se, 1);

	/* empty messages: one ONLY packet each */
	run_seq(wi, &t, s, sizeof(s));
	for (unsigned i = 0; i < nframes; i++) {
		REQUIRE(dec(i, &p) == ROCE_OK);
		CHECK(p.bth.opcode == ROCE_OP_UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE ||
		      p.bth.opcode == ROCE_OP_UC_SEND_ONLY);
		CHECK_EQ_U(p.bth.psn, i);
	}
	CHECK_EQ_U(nframes, 6);
}

static void test_uc_faults(void)
{
	static const char *const drop[] = { "verbs", "uc_write", "msg-size", "3072", "messages",
		"2", "drop-psn", "1", NULL };
	static const char *const tail[] = { "verbs", "uc_write", "msg-size", "3072", "messages",
		"2", "drop-psn", "2", NULL };
	static const char *const first[] = { "verbs", "uc_send", "msg-size", "3072", "messages",
		"1", "drop-psn", "0", "reorder-psn", "0", "bad-icrc-psn", "0", NULL };
	static const char *const icrc[] = { "verbs", "uc_send", "msg-size", "3072", "messages",
		"1", "bad-icrc-psn", "1", NULL };
	static const char *const pay[] = { "verbs", "uc_send", "msg-size", "3072", "messages",
		"1", "bad-payload-psn", "2", NULL };
	static const char *const dup[] = { "verbs", "uc_send", "msg-size", "3072", "messages",
		"1", "dup-psn", "1", NULL };
	static const char *const reo[] = { "verbs", "uc_write", "msg-size", "2048", "messages",
		"2", "reorder-psn", "1", NULL };
	static const char *const ce[] = { "verbs", "uc_write", "msg-size", "2048", "messages",
		"1", "ce-psn", "1", NULL };
	/* faults that cannot apply to UC: no-ops */
	static const char *const none[] = { "verbs", "uc_send", "msg-size", "3072", "messages",
		"2", "timeout-psn", "0,3", "rnr-psn", "0,3", "read-loss-psn", "0-5", NULL };
	struct rg_truth t;
	struct roce_pkt p;
	char s[512];

	/* lost before the capture point: a gap, no NAK, no resend */
	run_seq(drop, &t, s, sizeof(s));
	CHECK_STR(s, "26/0 28/2 26/3 27/4 28/5");
	CHECK_EQ_U(t.psn_gaps, 1);
	CHECK_EQ_U(t.lost_psns, 1);
	CHECK_EQ_U(t.unrecovered_psns, 1);
	CHECK_EQ_U(t.retransmissions, 0);
	CHECK_EQ_U(t.naks, 0);
	CHECK_EQ_U(t.gbn_nak + t.gbn_timeout + t.gbn_rnr, 0);
	CHECK_EQ_U(t.injected[RG_F_DROP], 1);
	CHECK_EQ_U(t.by_tr[RG_TR_UC].psn_gaps, 1);
	CHECK_EQ_U(t.by_tr[RG_TR_UC].lost_psns, 1);
	CHECK_EQ_U(t.by_tr[RG_TR_RC].psn_gaps, 0);

	/* a message's last packet lost: the next message's first packet shows it */
	run_seq(tail, &t, s, sizeof(s));
	CHECK_STR(s, "26/0 27/1 26/3 27/4 28/5");
	CHECK_EQ_U(t.psn_gaps, 1);
	CHECK_EQ_U(t.unrecovered_psns, 1);

	/* nothing before a stream's first packet would show its loss */
	run_seq(first, &t, s, sizeof(s));
	CHECK_STR(s, "20/0 21/1 22/2");
	CHECK_EQ_U(t.injected[RG_F_DROP] + t.injected[RG_F_REORDER] + t.injected[RG_F_BAD_ICRC], 0);

	/* a damaged frame is written, the receiver drops it: the next one shows the gap */
	run_seq(icrc, &t, s, sizeof(s));
	CHECK_STR(s, "20/0 21/1! 22/2");
	CHECK_EQ_U(t.icrc_bad, 1);
	CHECK_EQ_U(t.by_tr[RG_TR_UC].icrc_bad, 1);
	CHECK_EQ_U(t.psn_gaps, 1);
	CHECK_EQ_U(t.lost_psns, 1);
	CHECK_EQ_U(t.unrecovered_psns, 1);
	CHECK_EQ_U(t.dropped, 0);

	/* the last packet damaged: nothing after it, no gap */
	run_seq(pay, &t, s, sizeof(s));
	CHECK_STR(s, "20/0 21/1 22/2!");
	CHECK_EQ_U(t.icrc_bad, 1);
	CHECK_EQ_U(t.psn_gaps, 0);

	/* the same packet twice: a duplicate, not a retransmission */
	run_seq(dup, &t, s, sizeof(s));
	CHECK_STR(s, "20/0 21/1 21/1 22/2");
	CHECK_EQ_U(t.duplicates, 1);
	CHECK_EQ_U(t.retransmissions, 0);
	CHECK_EQ_U(t.by_tr[RG_TR_UC].duplicates, 1);

	/* reordered with the stream's next packet: here the next message's first */
	run_seq(reo, &t, s, sizeof(s));
	CHECK_STR(s, "26/0 26/2 28/1 28/3");
	CHECK_EQ_U(t.psn_gaps, 1);
	CHECK_EQ_U(t.out_of_order, 1);
	CHECK_EQ_U(t.unrecovered_psns, 0);
	CHECK_EQ_U(t.injected[RG_F_REORDER], 1);

	/* CE: the CNP goes to the UC requester's QP */
	run_seq(ce, &t, s, sizeof(s));
	CHECK_STR(s, "26/0 28/1 81/0");
	REQUIRE(dec(2, &p) == ROCE_OK);
	CHECK_EQ_U(p.bth.dqpn, 0x107);
	CHECK_EQ_U(t.ecn_ce, 1);
	CHECK_EQ_U(t.cnps, 1);

	run_seq(none, &t, s, sizeof(s));
	CHECK_STR(s, "20/0 21/1 22/2 20/3 21/4 22/5");
	for (int k = 0; k < RG_F_COUNT; k++)
		CHECK_EQ_U(t.injected[k], 0);
}

static void test_ud_faults(void)
{
	static const char *const reo[] = { "verbs", "ud_send", "msg-size", "100", "messages", "4",
		"reorder-psn", "1", NULL };
	static const char *const last[] = { "verbs", "ud_send", "msg-size", "100", "messages",
		"4", "reorder-psn", "3", NULL };
	static const char *const mixed[] = { "verbs", "ud_send", "msg-size", "100", "messages",
		"6", "drop-psn", "1,4", "reorder-psn", "2", NULL };
	static const char *const qp[] = { "verbs", "ud_send", "msg-size", "100", "messages",
		"6", "qps", "2", "reorder-psn", "0/1", "dup-psn", "1/1", NULL };
	static const char *const end[] = { "verbs", "ud_send", "msg-size", "100", "messages",
		"4", "drop-psn", "1", "reorder-psn", "2", "bad-icrc-psn", "3", NULL };
	struct rg_truth t;
	char s[512];

	/* swapped with the next packet of the same QP, a message later */
	run_seq(reo, &t, s, sizeof(s));
	CHECK_STR(s, "64/0 64/2 64/1 64/3");
	CHECK_EQ_U(t.psn_gaps, 1);
	CHECK_EQ_U(t.lost_psns, 1);
	CHECK_EQ_U(t.out_of_order, 1);
	CHECK_EQ_U(t.by_tr[RG_TR_UD].out_of_order, 1);
	CHECK_EQ_U(t.unrecovered_psns, 0);

	/* a stream's last packet has no next one: in order, no reorder */
	run_seq(last, &t, s, sizeof(s));
	CHECK_STR(s, "64/0 64/1 64/2 64/3");
	CHECK_EQ_U(t.injected[RG_F_REORDER], 0);
	CHECK_EQ_U(t.psn_gaps + t.out_of_order, 0);

	/* 1 lost, 2 held back, 3 shows the gap of 1-2, 2 fills it; 4 lost, 5 shows it */
	run_seq(mixed, &t, s, sizeof(s));
	CHECK_STR(s, "64/0 64/3 64/2 64/5");
	CHECK_EQ_U(t.psn_gaps, 2);
	CHECK_EQ_U(t.lost_psns, 3);
	CHECK_EQ_U(t.out_of_order, 1);
	CHECK_EQ_U(t.unrecovered_psns, 2);

	/* per QP index: QP 0's PSN 1 reordered behind its PSN 2, QP 1's PSN 1 twice */
	run_seq(qp, &t, s, sizeof(s));
	CHECK_STR(s, "64/0 64/0 64/1 64/1 64/2 64/1 64/2");
	CHECK_EQ_U(t.duplicates, 1);
	CHECK_EQ_U(t.out_of_order, 1);

	/* held at the end of the run behind a loss: the gap shows at it; the loss after it
	 * (a damaged last frame) shows nowhere */
	run_seq(end, &t, s, sizeof(s));
	CHECK_STR(s, "64/0 64/3! 64/2");
	CHECK_EQ_U(t.psn_gaps, 1);
	CHECK_EQ_U(t.lost_psns, 1);
	CHECK_EQ_U(t.out_of_order, 0);
	CHECK_EQ_U(t.injected[RG_F_REORDER], 0);
	CHECK_EQ_U(t.icrc_bad, 1);
}

int main(void)
{
	frames = calloc(MAX_FRAMES, sizeof(*frames));
	if (!frames)
		return 1;
	RUN(test_setters);
	RUN(test_scenario);
	RUN(test_segmentation);
	RUN(test_drop_nak);
	RUN(test_faults_sequences);
	RUN(test_pfc_and_count);
	RUN(test_deterministic);
	RUN(test_script);
	RUN(test_uc_segmentation);
	RUN(test_uc_faults);
	RUN(test_ud_faults);
	free(frames);
	return check_report();
}
