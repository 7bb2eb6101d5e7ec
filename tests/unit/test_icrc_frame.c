/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_icrc_frame.c - roce_icrc_frame_verdict() against roce_decode() with
 * verify_icrc on: the same verdict (OK, BAD or UNVERIFIED) on every prefix of
 * the ICRC vectors V1..V9, PFC and PAUSE and of built frames of every opcode
 * (v1, v2/IPv4 with a VLAN tag, v2/IPv6, v2/IPv4 with options), re-framed as
 * SLL, SLL2, raw IP and ERF; on hostile length fields and every extent length
 * under four opcodes; on every frame of
 * captures/ and ../shared/captures/ (skipped when absent); on generated
 * mixes (small, large, bad ICRCs, v1, v6, VLAN), where every frame must be
 * verified; and on random damage (bit flips, cut frames, wire lengths and
 * length fields that lie).  Every frame is given from an exactly-sized heap
 * copy, so ASan catches a read past caplen.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <roce/buf.h>
#include <roce/build.h>
#include <roce/icrc.h>
#include <roce/opcode.h>
#include <roce/pkt.h>

#include "capread.h"
#include "check.h"
#include "gen.h"
#include "linkwrap.h"
#include "roce_vectors.h"

static unsigned long n_cmp, n_ok, n_bad;
static struct roce_decode_opts opts_port;       /* an extra UDP port, 0x1234 */

/* The verdict and the decoder's on the same bytes (a heap copy of caplen bytes). */
static enum roce_icrc_status compare(int lt, const uint8_t *f, size_t caplen, size_t wirelen,
				     const struct roce_decode_opts *o, const char *what)
{
	uint8_t *copy = malloc(caplen ? caplen : 1);
	struct roce_pkt p;
	enum roce_icrc_status v;

	if (!copy) {
		CHECK(copy != NULL);
		return ROCE_ICRC_UNVERIFIED;
	}
	memcpy(copy, f, caplen);
	memset(&p, 0x5a, sizeof(p));
	(void)roce_decode(lt, caplen ? copy : NULL, caplen, wirelen, o, &p);
	v = roce_icrc_frame_verdict(lt, caplen ? copy : NULL, caplen, wirelen, o);
	n_cmp++;
	if (v != p.icrc_status) {
		CHECK_EQ_U(v, p.icrc_status);
		fprintf(stderr, "  %s: link %d caplen %zu wirelen %zu kind %d findings 0x%x\n",
			what, lt, caplen, wirelen, p.kind, p.findings);
	}
	n_ok += v == ROCE_ICRC_OK;
	n_bad += v == ROCE_ICRC_BAD;
	free(copy);
	return v;
}

/* Every prefix, with the wire length the whole frame's and a larger one. */
static void sweep(int lt, const uint8_t *f, size_t n, const char *what)
{
	for (size_t k = 0; k <= n && !check_cur_failed_; k++) {
		compare(lt, f, k, n, NULL, what);
		compare(lt, f, k, n + 100, k & 1 ? &opts_port : NULL, what);
	}
}

/* The frame as Ethernet, and re-framed for the other link types (linkwrap.h). */
static void sweep_all_links(const uint8_t *f, size_t n, const char *what)
{
	sweep_links(sweep, f, n, what);
}

/* ---- sample frames ----------------------------------------------------------------- */

#define MAX_SAMPLES 1200
#define SAMPLE_MAX 2200

struct sample {
	size_t n;
	uint8_t f[SAMPLE_MAX];
};

static struct sample *samples;
static size_t n_samples;

static void add_sample(const uint8_t *f, size_t n)
{
	if (n_samples < MAX_SAMPLES && n <= SAMPLE_MAX) {
		memcpy(samples[n_samples].f, f, n);
		samples[n_samples++].n = n;
	}
}

/*
 * Vector i with nopt bytes of IPv4 options (IHL and Total Length updated, the
 * header checksum and the ICRC recomputed): a layout the fast path never sees.
 */
static size_t with_options(size_t i, size_t nopt, uint8_t *g)
{
	uint8_t f[256];
	size_t n = check_hex(roce_test_vectors[i].hex, f, sizeof(f));
	size_t l3 = roce_get_be16(f + 12) == 0x8100 ? 18 : 14;
	struct roce_pkt p;
	uint32_t crc;

	if (roce_get_be16(f + l3 - 2) != 0x0800 || f[l3] != 0x45)
		return 0;
	memcpy(g, f, l3 + 20);
	memset(g + l3 + 20, 0x01, nopt);        /* NOP options */
	memcpy(g + l3 + 20 + nopt, f + l3 + 20, n - l3 - 20);
	g[l3] = (uint8_t)(0x40 | (20 + nopt) / 4);
	roce_put_be16(g + l3 + 2, (uint16_t)(roce_get_be16(f + l3 + 2) + nopt));
	roce_put_be16(g + l3 + 10, 0);
	{
		uint32_t sum = 0;

		for (size_t k = 0; k < 20 + nopt; k += 2)
			sum += roce_get_be16(g + l3 + k);
		while (sum >> 16)
			sum = (sum & 0xffff) + (sum >> 16);
		roce_put_be16(g + l3 + 10, (uint16_t)~sum);
	}
	n += nopt;
	if (roce_decode(ROCE_LINKTYPE_ETHERNET, g, n, n, NULL, &p) != ROCE_OK ||
	    roce_icrc_compute(&p, &crc) != ROCE_OK)
		return 0;
	roce_put_le32(g + p.icrc_off, crc);
	return n;
}

static void build_samples(void)
{
	static const uint8_t payload[45] = "verdict payload verdict payload verdict 1234";
	uint8_t f[2048];
	size_t n;

	n_samples = 0;
	for (size_t i = 0; i < ROCE_TEST_VECTOR_COUNT; i++) {
		n = check_hex(roce_test_vectors[i].hex, f, sizeof(f));
		add_sample(f, n);
		memset(f + n, 0xee, 4);                 /* with an FCS */
		add_sample(f, n + 4);
		for (size_t nopt = 4; nopt <= 40; nopt += 36) {
			n = with_options(i, nopt, f);
			if (n)
				add_sample(f, n);
		}
	}
	n = check_hex(ROCE_TEST_PFC_HEX, f, sizeof(f));
	add_sample(f, n);
	n = check_hex(ROCE_TEST_PAUSE_HEX, f, sizeof(f));
	add_sample(f, n);
	for (unsigned op = 0; op < 256; op++) {
		if (!roce_opcodes[op].name && op != 0x15)
			continue;
		for (unsigned v = 0; v < 4; v++) {
			if (build_opcode_frame(op, v, payload, f, sizeof(f), &n) != ROCE_OK) {
				CHECK(0);
				return;
			}
			add_sample(f, n);
		}
	}
}

static void test_vectors_valid(void)
{
	uint8_t f[256];

	for (size_t i = 0; i < ROCE_TEST_VECTOR_COUNT; i++) {
		size_t n = check_hex(roce_test_vectors[i].hex, f, sizeof(f));

		CHECK_EQ_U(roce_icrc_frame_verdict(ROCE_LINKTYPE_ETHERNET, f, n, n, NULL),
			   ROCE_ICRC_OK);
		f[n - 1] ^= 1;
		CHECK_EQ_U(roce_icrc_frame_verdict(ROCE_LINKTYPE_ETHERNET, f, n, n, NULL),
			   ROCE_ICRC_BAD);
		/* an unknown link type, no frame */
		CHECK_EQ_U(roce_icrc_frame_verdict(12345, f, n, n, NULL), ROCE_ICRC_UNVERIFIED);
		CHECK_EQ_U(roce_icrc_frame_verdict(ROCE_LINKTYPE_ETHERNET, NULL, 0, n, NULL),
			   ROCE_ICRC_UNVERIFIED);
	}
	for (size_t i = 0; i < n_samples; i++) {
		/* every sample but PFC / PAUSE verifies */
		enum roce_icrc_status v = compare(ROCE_LINKTYPE_ETHERNET, samples[i].f,
						  samples[i].n, samples[i].n, NULL, "sample");
		uint16_t et = roce_get_be16(samples[i].f + 12);

		if (et != 0x8808)
			CHECK_EQ_U(v, ROCE_ICRC_OK);
	}
}

static void test_prefixes_all_links(void)
{
	for (size_t i = 0; i < n_samples && !check_cur_failed_; i++)
		sweep_all_links(samples[i].f, samples[i].n, "prefix");
}

/* g with its IP length already moved by d: the UDP length at off moved too. */
static void both_lengths(uint8_t *g, size_t n, size_t off, int d)
{
	uint16_t u = roce_get_be16(g + off);

	roce_put_be16(g + off, (uint16_t)(u + d));
	compare(ROCE_LINKTYPE_ETHERNET, g, n, n, NULL, "lengths");
	compare(ROCE_LINKTYPE_ETHERNET, g, n, n + 8, NULL, "lengths");
	roce_put_be16(g + off, u);
}

/* Hostile length fields on every vector: huge, zero, off by one or four. */
static void test_hostile_lengths(void)
{
	static const int deltas[] = { -5, -4, -1, 1, 3, 4, 8 };
	static const uint16_t vals[] = { 0, 1, 7, 8, 12, 19, 20, 28, 40, 0x7fff, 0xffff };

	for (size_t i = 0; i < n_samples; i++) {
		uint8_t *f = samples[i].f, g[SAMPLE_MAX];
		size_t n = samples[i].n, l3 = 14, fields[3], nf = 0;
		uint16_t et = roce_get_be16(f + 12);

		while (et == 0x8100 && l3 + 4 <= n) {
			et = roce_get_be16(f + l3 + 2);
			l3 += 4;
		}
		if (et == 0x0800) {
			fields[nf++] = l3 + 2;
			fields[nf++] = l3 + (f[l3] & 0xf) * 4 + 4;
		} else if (et == 0x86dd) {
			fields[nf++] = l3 + 4;
			fields[nf++] = l3 + 44;
		} else if (et == 0x8915) {
			fields[nf++] = l3 + 4;
		}
		for (size_t fi = 0; fi < nf; fi++) {
			uint16_t was = roce_get_be16(f + fields[fi]);

			memcpy(g, f, n);
			for (size_t vi = 0; vi < sizeof(vals) / sizeof(vals[0]); vi++) {
				roce_put_be16(g + fields[fi], vals[vi]);
				compare(ROCE_LINKTYPE_ETHERNET, g, n, n, NULL, "length");
			}
			for (size_t di = 0; di < sizeof(deltas) / sizeof(deltas[0]); di++) {
				roce_put_be16(g + fields[fi], (uint16_t)(was + deltas[di]));
				compare(ROCE_LINKTYPE_ETHERNET, g, n, n, NULL, "length");
				compare(ROCE_LINKTYPE_ETHERNET, g, n, n + 8, NULL, "length");
				if (nf == 2 && fi == 0)
					both_lengths(g, n, fields[1], deltas[di]);
			}
		}
		if (check_cur_failed_)
			return;
	}
}

/*
 * Every extent from nothing to past the frame, the IP and UDP (or GRH) lengths
 * agreeing, under the sample's own opcode, an unknown one, an ACK and a CNP
 * (the opcodes whose room for payload decides).
 */
static void test_every_extent(void)
{
	int unknown = -1;

	for (unsigned op = 0; op < 256 && unknown < 0; op++)
		if (!roce_opcodes[op].name)
			unknown = (int)op;
	REQUIRE(unknown >= 0);
	for (size_t i = 0; i < n_samples && !check_cur_failed_; i++) {
		const int ops[] = { -1, unknown, 0x11, 0x81 };
		uint8_t *f = samples[i].f, g[SAMPLE_MAX];
		size_t n = samples[i].n, l3 = 14, udp = 0, bth;
		uint16_t et = roce_get_be16(f + 12);

		while (et == 0x8100 && l3 + 4 <= n) {
			et = roce_get_be16(f + l3 + 2);
			l3 += 4;
		}
		if (et == 0x0800)
			udp = l3 + (f[l3] & 0xf) * 4;
		else if (et == 0x86dd)
			udp = l3 + 40;
		else if (et != 0x8915)
			continue;
		bth = udp ? udp + 8 : l3 + 40;
		for (size_t oi = 0; oi < sizeof(ops) / sizeof(ops[0]); oi++) {
			memcpy(g, f, n);
			if (ops[oi] >= 0)
				g[bth] = (uint8_t)ops[oi];
			for (size_t x = 0; bth + x <= n + 4; x++) {
				if (et == 0x0800)
					roce_put_be16(g + l3 + 2, (uint16_t)(bth - l3 + x));
				else
					roce_put_be16(g + l3 + 4, (uint16_t)(bth - l3 - 40 + x));
				if (udp)
					roce_put_be16(g + udp + 4, (uint16_t)(8 + x));
				compare(ROCE_LINKTYPE_ETHERNET, g, n, n, NULL, "extent");
			}
		}
	}
}

/* ---- random damage ----------------------------------------------------------------- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(uint32_t n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)((rng_state >> 11) % n);
}

/* One to three random changes to the n bytes at g (room for 8 more); the new length. */
static size_t damage(uint8_t *g, size_t n)
{
	/* length fields: IPv4 Total Length, UDP Length, IPv6 / GRH PayLen, at 0-2 tags */
	static const size_t len_offs[] = { 16, 20, 18, 22, 42, 46, 62, 66 };
	unsigned k = 1 + rnd(3);
	uint32_t v;
	size_t o;

	while (k--) {
		switch (rnd(6)) {
		case 0:         /* a bit of the headers */
			g[rnd((uint32_t)(n < 100 ? n : 100))] ^= (uint8_t)(1u << rnd(8));
			break;
		case 1:         /* a bit anywhere */
			g[rnd((uint32_t)n)] ^= (uint8_t)(1u << rnd(8));
			break;
		case 2:         /* a length field: off by a little, or anything */
		case 3:
			o = len_offs[rnd(sizeof(len_offs) / sizeof(len_offs[0]))];
			if (o + 2 > n)
				break;
			v = rnd(4) ? roce_get_be16(g + o) + rnd(17) - 8 : rnd(0x10000);
			roce_put_be16(g + o, (uint16_t)v);
			break;
		case 4:         /* a byte replaced */
			g[rnd((uint32_t)n)] = (uint8_t)rnd(256);
			break;
		default:        /* padding after the frame */
			memset(g + n, (int)rnd(256), 8);
			n += rnd(9);
			break;
		}
	}
	return n;
}

/* The Ethernet frame g (cap bytes captured, wire on the wire) as link type lt. */
static enum roce_icrc_status compare_as(int lt, const uint8_t *g, size_t cap, size_t wire,
					const struct roce_decode_opts *o)
{
	uint8_t h[SAMPLE_MAX + 64];
	size_t l3 = 14;
	uint16_t et = roce_get_be16(g + 12);

	if (lt == ROCE_LINKTYPE_ETHERNET || cap < l3)
		return compare(ROCE_LINKTYPE_ETHERNET, g, cap, wire, o, "damaged");
	while (et == 0x8100 && l3 + 4 <= cap) {
		et = roce_get_be16(g + l3 + 2);
		l3 += 4;
	}
	wire = wire > l3 ? wire - l3 : 0;
	if (lt != ROCE_LINKTYPE_LINUX_SLL)
		return compare(lt, g + l3, cap - l3, wire, o, "damaged");
	/* 16 bytes of SLL header in place of the Ethernet header and tags */
	memset(h, 0, 16);
	roce_put_be16(h + 14, et);
	memcpy(h + 16, g + l3, cap - l3);
	return compare(lt, h, cap - l3 + 16, wire + 16, o, "damaged");
}

static void test_random_damage(void)
{
	static const int lts[] = { ROCE_LINKTYPE_ETHERNET, ROCE_LINKTYPE_ETHERNET,
		ROCE_LINKTYPE_ETHERNET, ROCE_LINKTYPE_RAW, ROCE_LINKTYPE_LINUX_SLL };
	unsigned long verified = 0, rounds = 200000;

	for (unsigned long it = 0; it < rounds && !check_cur_failed_; it++) {
		const struct sample *s = &samples[rnd((uint32_t)n_samples)];
		uint8_t g[SAMPLE_MAX + 64];
		size_t n, cap, wire;

		memcpy(g, s->f, s->n);
		n = damage(g, s->n);
		cap = rnd(4) ? n : rnd((uint32_t)n + 1);
		wire = rnd(3) ? n : cap + rnd(64) - (cap > 16 ? rnd(16) : 0);
		verified += compare_as(lts[rnd(sizeof(lts) / sizeof(lts[0]))], g, cap, wire,
				       rnd(2) ? &opts_port : NULL) != ROCE_ICRC_UNVERIFIED;
	}
	printf("random damage: %lu frames, %lu verified (OK or BAD)\n", rounds, verified);
	CHECK(verified > rounds / 10);
}

/* ---- captures ------------------------------------------------------------------------ */

static unsigned long cap_files, cap_frames;

static void check_file(const char *path)
{
	char err[ROCE_ERRBUF_SIZE];
	struct roce_cap_record rec;
	roce_capfile_t *c = roce_cap_open(path, err);
	int r;

	if (!c)
		return;         /* not a capture this reader takes (the verdicts do not apply) */
	cap_files++;
	while ((r = roce_cap_next(c, &rec)) == 1 && !check_cur_failed_) {
		compare(rec.linktype, rec.data, rec.caplen, rec.wirelen, NULL, path);
		cap_frames++;
	}
	roce_cap_close(c);
}

static void walk(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)) != NULL) {
		char path[4096];
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (stat(path, &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode))
			walk(path);
		else if (strstr(e->d_name, ".pcap"))
			check_file(path);
	}
	closedir(d);
}

static void test_captures(void)
{
	unsigned long ok0 = n_ok, bad0 = n_bad;

	walk(ROCE_SOURCE_DIR "/captures");
	walk(ROCE_SHARED_DIR "/captures");      /* absent: nothing */
	printf("captures: %lu files, %lu frames, %lu OK, %lu BAD\n", cap_files, cap_frames,
	       n_ok - ok0, n_bad - bad0);
	CHECK(cap_files >= 6);
}

/* ---- generated mixes ----------------------------------------------------------------- */

#define GEN_MAX 6000

static struct sample *gen_frames;
static unsigned gen_n;

static int mem_write(struct rg_output *o, uint64_t ts, const uint8_t *f, uint32_t len)
{
	(void)o;
	(void)ts;
	if (gen_n == GEN_MAX || len > SAMPLE_MAX)
		return -1;
	memcpy(gen_frames[gen_n].f, f, len);
	gen_frames[gen_n++].n = len;
	return 0;
}

static int mem_close(struct rg_output *o)
{
	(void)o;
	return 0;
}

static const struct rg_output_ops mem_ops = { .write = mem_write, .close = mem_close };

/* Generate with kv; every RoCE frame must be verified, and as the decoder says. */
static void gen_mix(const char *const *kv, const char *what)
{
	struct rg_output o = { .ops = &mem_ops, .name = "mem" };
	struct rg_config c;
	struct rg_truth t;
	char err[256];
	unsigned long ok = 0, bad = 0, roce = 0;

	rg_config_defaults(&c);
	c.write_path = "mem";
	for (; kv[0]; kv += 2)
		if (rg_config_set(&c, kv[0], kv[1], err, sizeof(err))) {
			fprintf(stderr, "%s: %s=%s: %s\n", what, kv[0], kv[1], err);
			CHECK(0);
			return;
		}
	gen_n = 0;
	CHECK_EQ_I(rg_generate(&c, &o, &t, err, sizeof(err)), 0);
	for (unsigned i = 0; i < gen_n; i++) {
		const struct sample *s = &gen_frames[i];
		enum roce_icrc_status v = compare(ROCE_LINKTYPE_ETHERNET, s->f, s->n, s->n, NULL,
						  what);
		uint16_t et = roce_get_be16(s->f + 12);

		if (et == 0x8100)
			et = roce_get_be16(s->f + 16);
		if (et == 0x8808)
			continue;
		roce++;
		ok += v == ROCE_ICRC_OK;
		bad += v == ROCE_ICRC_BAD;
	}
	printf("%s: %u frames, %lu RoCE, %lu OK, %lu BAD\n", what, gen_n, roce, ok, bad);
	CHECK(roce > 0);
	CHECK_EQ_U(ok + bad, roce);     /* none unverified */
}

static void test_generated(void)
{
	static const char *const small[] = { "count", "3000", "qps", "4", "hosts", "16",
		"verbs", "write", "pps", "1M", "msg-size", "64", "ack-every", "16",
		"bad-icrc-rate", "0.01", NULL };
	static const char *const large[] = { "count", "3000", "qps", "4", "hosts", "16",
		"verbs", "write", "pps", "1M", "msg-size", "16384", "pmtu", "1024",
		"bad-icrc-rate", "0.01", NULL };
	static const char *const v6[] = { "count", "2000", "roce", "v6", "vlan", "5",
		"verbs", "write,send,read,atomic,ud_send,xrc", "msg-size", "uniform:1-5000",
		"bad-icrc-rate", "0.02", "bad-payload-rate", "0.02", "ce-rate", "0.02", NULL };
	static const char *const v1[] = { "count", "2000", "roce", "v1",
		"verbs", "write_imm,send_imm,read", "msg-size", "uniform:1-3000",
		"bad-icrc-rate", "0.02", "pfc", "prio=3", NULL };
	static const char *const v2[] = { "count", "2000", "vlan", "9:3",
		"verbs", "write,send,read,atomic", "msg-size", "exp:2000",
		"bad-icrc-rate", "0.05", "loss", "0.01", "dup-rate", "0.01", NULL };

	gen_frames = calloc(GEN_MAX, sizeof(*gen_frames));
	REQUIRE(gen_frames != NULL);
	gen_mix(small, "small mix");
	gen_mix(large, "large mix");
	gen_mix(v6, "v6 + VLAN mix");
	gen_mix(v1, "v1 mix");
	gen_mix(v2, "v2 + VLAN mix");
	free(gen_frames);
}

int main(void)
{
	samples = calloc(MAX_SAMPLES, sizeof(*samples));
	if (!samples)
		return 1;
	roce_decode_opts_init(&opts_port);
	opts_port.udp_ports[1] = 0x1234;
	build_samples();
	RUN(test_vectors_valid);
	RUN(test_prefixes_all_links);
	RUN(test_hostile_lengths);
	RUN(test_every_extent);
	RUN(test_random_damage);
	RUN(test_captures);
	RUN(test_generated);
	printf("%lu comparisons, %lu OK, %lu BAD\n", n_cmp, n_ok, n_bad);
	free(samples);
	return check_report();
}
