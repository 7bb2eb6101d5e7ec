// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_analyzer_invariants.c - properties the PSN analysis must have on any
 * input, checked frame by frame against the frames themselves:
 *
 *   I1 lost PSNs never exceed the PSNs the stream actually skipped (the sum
 *      of the forward jumps from one frame to the next on that stream);
 *   I2 a gap is never flagged on a frame whose PSN is the previous frame's
 *      PSN + 1 on that stream;
 *   I3 every PSN reported unrecovered is absent from the capture on that
 *      stream (roce_analyzer_flow_holes names them), and the holes plus the
 *      dropped count add up to unrecovered_psns.
 *
 * Only frames the analyzer trusts take part (ICRC not bad, no finding of
 * ROCE_FIND_UNTRUSTED_MASK).  A NAK names the PSN it expects, so for these
 * checks it stands for its PSN - 1 and carries no PSN of its own.  The
 * first READ response of a stream skipped the PSNs of its READ before it
 * (READ requests seen from the other side, with the largest N possible).
 *
 * Inputs: every pcap file in captures/ and under ../shared/captures/ (exit 77
 * when ../shared is absent and nothing failed), and seeded random RC
 * traffic with loss, duplication, reordering, corruption, go-back-N resends
 * and READ re-reads with replayed responses, plus random PSN walks.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <roce/analyzer.h>
#include <roce/buf.h>
#include <roce/build.h>
#include <roce/pkt.h>

#include "capread.h"
#include "check.h"

/* ------------------------------------------------------------- checker */

struct cstream {
	struct roce_flow_key key;
	bool have_prev;
	uint32_t prev;
	uint64_t skipped;
	uint64_t gap_on_next;   /* I2 violations */
	uint32_t *seen;
	size_t nseen, capseen;
};

/* READ requests seen (for the first response of a response stream) */
struct cread {
	uint8_t version, src[16], dst[16];
	uint32_t psn, nmax;
};

struct checker {
	roce_analyzer_t *a;
	struct cread *rd;
	size_t nrd, caprd;
	struct cstream *s;
	size_t n, cap;
	uint64_t frames;
	const char *name;
	unsigned verbose;
};

static bool ck_init(struct checker *c, const char *name, uint32_t pmtu)
{
	struct roce_analyzer_config cfg;
	char err[ROCE_ERRBUF_SIZE];

	memset(c, 0, sizeof(*c));
	c->name = name;
	c->verbose = getenv("ROCE_TEST_VERBOSE") != NULL;
	roce_analyzer_config_init(&cfg);
	cfg.pmtu = pmtu;
	c->a = roce_analyzer_create(&cfg, err);
	if (!c->a)
		fprintf(stderr, "%s: %s\n", name, err);
	return c->a != NULL;
}

static void ck_free(struct checker *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->s[i].seen);
	free(c->s);
	free(c->rd);
	roce_analyzer_destroy(c->a);
}

static struct cstream *ck_stream(struct checker *c, const struct roce_flow_key *k)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->s[i].key.version == k->version && c->s[i].key.dqpn == k->dqpn &&
		    !memcmp(c->s[i].key.src, k->src, 16) && !memcmp(c->s[i].key.dst, k->dst, 16))
			return &c->s[i];
	if (c->n == c->cap) {
		size_t nc = c->cap ? 2 * c->cap : 64;
		struct cstream *ns = realloc(c->s, nc * sizeof(*ns));

		if (!ns)
			return NULL;
		c->s = ns;
		c->cap = nc;
	}
	memset(&c->s[c->n], 0, sizeof(c->s[0]));
	c->s[c->n].key = *k;
	return &c->s[c->n++];
}

static void seen_add(struct cstream *s, uint32_t psn)
{
	if (s->nseen == s->capseen) {
		size_t nc = s->capseen ? 2 * s->capseen : 256;
		uint32_t *ns = realloc(s->seen, nc * sizeof(*ns));

		if (!ns)
			return;
		s->seen = ns;
		s->capseen = nc;
	}
	s->seen[s->nseen++] = psn;
}

static void ck_frame(struct checker *c, const uint8_t *data, size_t caplen, size_t wirelen,
	int linktype, const struct roce_decode_opts *o, uint64_t ts)
{
	struct roce_pkt pkt;
	struct roce_frame_result res;
	struct roce_flow_key k;
	struct cstream *s;
	uint32_t P, fl;
	bool nak;
	int st = roce_decode(linktype, data, caplen, wirelen, o, &pkt);

	roce_analyzer_process(c->a, &pkt, st, ts, ++c->frames, &res);
	if (pkt.kind != ROCE_KIND_ROCE || (st != ROCE_OK && st != ROCE_E_MALFORMED) || !pkt.op ||
	    !pkt.op->name || pkt.icrc_status == ROCE_ICRC_BAD ||
	    (pkt.findings & ROCE_FIND_UNTRUSTED_MASK))
		return;
	fl = pkt.op->flags;
	if (!(fl & (ROCE_F_REQ | ROCE_F_RESP | ROCE_F_ACK)))
		return;
	memset(&k, 0, sizeof(k));
	k.version = pkt.version;
	memcpy(k.src, pkt.src, 16);
	memcpy(k.dst, pkt.dst, 16);
	k.dqpn = pkt.bth.dqpn & 0xffffffu;
	s = ck_stream(c, &k);
	if (!s)
		return;
	P = pkt.bth.psn & 0xffffffu;
	nak = (pkt.hdrs & ROCE_H_AETH) && (roce_aeth_type(pkt.aeth.syndrome) == ROCE_AETH_NAK ||
		roce_aeth_type(pkt.aeth.syndrome) == ROCE_AETH_RNR_NAK);
	if ((res.events & ROCE_EV_PSN_GAP) && s->have_prev && P == roce_psn_add(s->prev, 1)) {
		s->gap_on_next++;
		fprintf(stderr, "%s: frame %llu: gap flagged on PSN %u right after PSN %u "
			"(dqpn 0x%x)\n", c->name, (unsigned long long)c->frames, P, s->prev,
			k.dqpn);
	}
	if ((fl & ROCE_F_READ) && (fl & ROCE_F_REQ)) {
		if (c->nrd == c->caprd) {
			size_t nc = c->caprd ? 2 * c->caprd : 64;
			struct cread *nr = realloc(c->rd, nc * sizeof(*nr));

			if (nr) {
				c->rd = nr;
				c->caprd = nc;
			}
		}
		if (c->nrd < c->caprd) {
			struct cread *r = &c->rd[c->nrd++];
			uint64_t len = (pkt.hdrs & ROCE_H_RETH) ? pkt.reth.dma_len : 0;

			r->version = pkt.version;
			memcpy(r->src, pkt.src, 16);
			memcpy(r->dst, pkt.dst, 16);
			r->psn = P;
			r->nmax = len ? (uint32_t)((len + 255) / 256) : 1;
		}
	}
	if (!s->have_prev && (fl & ROCE_F_RESP)) {
		/*
		 * The first response of a stream skipped the PSNs before it of a
		 * READ asked for (the most that can be: any READ from the other
		 * side whose largest possible range holds P).
		 */
		uint32_t most = 0;

		for (size_t i = 0; i < c->nrd; i++) {
			const struct cread *r = &c->rd[i];
			uint32_t back = (P - r->psn) & 0xffffffu;

			if (r->version == pkt.version && !memcmp(r->src, pkt.dst, 16) &&
			    !memcmp(r->dst, pkt.src, 16) && back < r->nmax && back > most)
				most = back;
		}
		s->skipped += most;
	}
	if (nak)
		P = roce_psn_add(P, 0xffffffu);
	else
		seen_add(s, P);
	if (s->have_prev) {
		int32_t d = roce_psn_cmp(P, s->prev);

		if (d > 1)
			s->skipped += (uint64_t)d - 1;
	}
	s->have_prev = true;
	s->prev = P;
}

static int cmp_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	return a < b ? -1 : a > b;
}

struct ck_end {
	struct checker *c;
	unsigned bad;
	uint64_t lost, unrec;
};

static int ck_flow(void *user, const struct roce_flow_stats *f)
{
	struct ck_end *e = user;
	struct checker *c = e->c;
	struct cstream *s = NULL;
	struct roce_psn_range r[64];
	uint64_t dropped = 0, listed = 0;
	int n;

	for (size_t i = 0; i < c->n; i++)
		if (!memcmp(&c->s[i].key, &f->key, sizeof(f->key)))
			s = &c->s[i];
	e->lost += f->lost_psns;
	e->unrec += f->unrecovered_psns;
	if (!s) {
		/* a stream of frames the checker does not follow (CNP only) */
		if (f->lost_psns || f->unrecovered_psns) {
			fprintf(stderr, "%s: dqpn 0x%x: lost %llu / unrecovered %llu on an unchecked "
				"stream\n", c->name, f->key.dqpn, (unsigned long long)f->lost_psns,
				(unsigned long long)f->unrecovered_psns);
			e->bad++;
		}
		return 0;
	}
	if (f->lost_psns > s->skipped) {     /* I1 */
		fprintf(stderr, "%s: dqpn 0x%x: %llu lost PSNs but only %llu skipped\n", c->name,
			f->key.dqpn, (unsigned long long)f->lost_psns,
			(unsigned long long)s->skipped);
		e->bad++;
	}
	if (s->gap_on_next)                 /* I2 */
		e->bad++;
	n = roce_analyzer_flow_holes(c->a, &f->key, r, 64, &dropped);
	if (n < 0 || n > 64) {
		fprintf(stderr, "%s: dqpn 0x%x: flow_holes returned %d\n", c->name, f->key.dqpn, n);
		e->bad++;
		return 0;
	}
	qsort(s->seen, s->nseen, sizeof(s->seen[0]), cmp_u32);
	for (int i = 0; i < n; i++) {
		listed += r[i].len;
		for (uint32_t j = 0; j < r[i].len; j++) {
			uint32_t p = roce_psn_add(r[i].start, j);

			if (bsearch(&p, s->seen, s->nseen, sizeof(p), cmp_u32)) {   /* I3 */
				fprintf(stderr, "%s: dqpn 0x%x: PSN %u reported unrecovered but "
					"present\n", c->name, f->key.dqpn, p);
				e->bad++;
				break;
			}
		}
	}
	if (listed + dropped != f->unrecovered_psns) {
		fprintf(stderr, "%s: dqpn 0x%x: holes %llu + dropped %llu != unrecovered %llu\n",
			c->name, f->key.dqpn, (unsigned long long)listed,
			(unsigned long long)dropped, (unsigned long long)f->unrecovered_psns);
		e->bad++;
	}
	if (c->verbose)
		printf("  %s dqpn 0x%x frames %llu lost %llu skipped %llu unrec %llu holes %d\n",
			c->name, f->key.dqpn, (unsigned long long)f->frames,
			(unsigned long long)f->lost_psns, (unsigned long long)s->skipped,
			(unsigned long long)f->unrecovered_psns, n);
	return 0;
}

/* Finish and check; returns the number of violations. */
static unsigned ck_end(struct checker *c, struct ck_end *out)
{
	struct ck_end e = { .c = c };
	struct roce_summary s;

	roce_analyzer_finish(c->a);
	roce_analyzer_foreach_flow(c->a, ck_flow, &e);
	roce_analyzer_summary(c->a, &s);
	if (s.evicted_flows == 0 && (e.lost != s.lost_psns || e.unrec != s.unrecovered_psns)) {
		fprintf(stderr, "%s: summary lost %llu / unrecovered %llu, streams add up to "
			"%llu / %llu\n", c->name, (unsigned long long)s.lost_psns,
			(unsigned long long)s.unrecovered_psns, (unsigned long long)e.lost,
			(unsigned long long)e.unrec);
		e.bad++;
	}
	if (out)
		*out = e;
	return e.bad;
}

/* ------------------------------------------------------------- captures */

static unsigned check_file(const char *path, const struct roce_decode_opts *o)
{
	char err[ROCE_ERRBUF_SIZE];
	struct roce_cap_record rec;
	struct checker c;
	roce_capfile_t *cf;
	unsigned bad;
	int rc;

	cf = roce_cap_open(path, err);
	if (!cf) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	if (!ck_init(&c, path, 0)) {
		roce_cap_close(cf);
		return 1;
	}
	while ((rc = roce_cap_next(cf, &rec)) == 1)
		ck_frame(&c, rec.data, rec.caplen, rec.wirelen, rec.linktype, o, rec.ts_ns);
	bad = ck_end(&c, NULL);
	if (c.verbose)
		printf("%s: %llu frames, %u violations\n", path, (unsigned long long)c.frames, bad);
	ck_free(&c);
	roce_cap_close(cf);
	return bad;
}

static unsigned nfiles;

/* Every *.pcap under dir (recursively); -1 when dir does not exist. */
static int check_dir(const char *dir, const struct roce_decode_opts *o, unsigned *bad)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		char path[4096];
		struct stat sb;
		size_t l = strlen(de->d_name);

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (stat(path, &sb))
			continue;
		if (S_ISDIR(sb.st_mode)) {
			check_dir(path, o, bad);
		} else if (l > 5 && !strcmp(de->d_name + l - 5, ".pcap")) {
			*bad += check_file(path, o);
			nfiles++;
		}
	}
	closedir(d);
	return 0;
}

static bool shared_missing;

static void test_captures(void)
{
	struct roce_decode_opts o;
	unsigned bad = 0;

	roce_decode_opts_init(&o);
	REQUIRE(check_dir(ROCE_SOURCE_DIR "/captures", &o, &bad) == 0);
	CHECK(nfiles >= 6);
	if (check_dir(ROCE_SHARED_DIR "/captures", &o, &bad) != 0)
		shared_missing = true;
	/* the same without ICRC verification */
	o.verify_icrc = false;
	check_dir(ROCE_SOURCE_DIR "/captures", &o, &bad);
	if (!shared_missing)
		check_dir(ROCE_SHARED_DIR "/captures", &o, &bad);
	CHECK_EQ_U(bad, 0);
}

/* ------------------------------------------------------- random traffic */

static uint64_t rng_state;

static uint32_t rnd(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 0x2545F4914F6CDD1Dull) >> 32);
}

static bool chance(unsigned pct)
{
	return rnd() % 100 < pct;
}

#define PMTU 1024
#define MAXF 20000

struct gframe {
	uint8_t buf[PMTU + 128];
	size_t len;
};

struct gen {
	struct gframe *f;
	size_t n;
	unsigned loss, dup, swap, corrupt;   /* percent */
};

/* Emit one frame through the fabric's impairments (before the capture point). */
static void emit(struct gen *g, const struct roce_frame_spec *sp)
{
	struct gframe *fr;
	size_t len = 0;

	if (g->n + 3 >= MAXF)
		return;
	if (chance(g->loss))
		return;
	fr = &g->f[g->n];
	if (roce_build(sp, fr->buf, sizeof(fr->buf), &len) != ROCE_OK)
		return;
	fr->len = len;
	if (chance(g->corrupt)) {
		/* a damaged copy (bit error anywhere after the Ethernet header) ... */
		g->f[g->n + 1] = *fr;
		fr->buf[14 + rnd() % (len - 14)] ^= (uint8_t)(1u << (rnd() % 8));
		/* ... goes first, the clean one (its resend) after it */
		g->n++;
		fr = &g->f[g->n];
	}
	g->n++;
	if (chance(g->dup)) {
		g->f[g->n] = *fr;
		g->n++;
	}
	if (g->n >= 2 && chance(g->swap)) {
		struct gframe t = g->f[g->n - 1];

		g->f[g->n - 1] = g->f[g->n - 2];
		g->f[g->n - 2] = t;
	}
}

static void spec(struct roce_frame_spec *sp, int ver, bool a_to_b, uint8_t op, uint32_t psn)
{
	roce_frame_spec_init(sp);
	sp->version = ver == 1 ? 1 : 2;
	sp->ip_version = ver == 4 ? 4 : 6;
	if (ver == 4) {
		roce_addr_v4(sp->src, a_to_b ? 0x0a000001u : 0x0a000002u);
		roce_addr_v4(sp->dst, a_to_b ? 0x0a000002u : 0x0a000001u);
	} else {
		memset(sp->src, 0, 16);
		memset(sp->dst, 0, 16);
		sp->src[0] = sp->dst[0] = 0xfd;
		sp->src[15] = a_to_b ? 1 : 2;
		sp->dst[15] = a_to_b ? 2 : 1;
	}
	sp->bth.opcode = op;
	sp->bth.pkey = 0xffff;
	sp->bth.dqpn = a_to_b ? 0x11 : 0x22;
	sp->bth.psn = psn & 0xffffffu;
}

static void g_resp(struct gen *g, int ver, uint8_t op, uint32_t psn, uint8_t syn, uint32_t pay)
{
	struct roce_frame_spec sp;

	spec(&sp, ver, false, op, psn);
	sp.aeth.syndrome = syn;
	sp.aeth.msn = psn;
	sp.payload_len = pay;
	emit(g, &sp);
}

/* Responses [from, to] of the READ [first, last]. */
static void g_read_resps(struct gen *g, int ver, uint32_t first, uint32_t last, uint32_t from,
	uint32_t to)
{
	first &= 0xffffffu;
	last &= 0xffffffu;
	from &= 0xffffffu;
	to &= 0xffffffu;
	for (uint32_t p = from; p != ((to + 1) & 0xffffffu); p = (p + 1) & 0xffffffu) {
		uint8_t op;

		if (first == last)
			op = ROCE_OP_RC_RDMA_READ_RESPONSE_ONLY;
		else if (p == from)
			op = ROCE_OP_RC_RDMA_READ_RESPONSE_FIRST;
		else if (p == last)
			op = ROCE_OP_RC_RDMA_READ_RESPONSE_LAST;
		else
			op = ROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE;
		g_resp(g, ver, op, p, 0x1f, PMTU);
	}
}

struct gmsg {
	uint32_t psn, npkts;
	bool read;
};

/*
 * One RC connection A -> B: messages (SEND / WRITE of 1..4 packets, READs
 * of 1..8 responses), ACKs every few requests, go-back-N from an earlier
 * message now and then, READ re-reads from the middle of an earlier READ
 * with the originals' responses still in flight.
 */
static void gen_rc(struct gen *g, int ver, uint32_t psn0, unsigned msgs)
{
	struct gmsg hist[64];
	unsigned nh = 0;
	uint32_t psn = psn0;
	struct roce_frame_spec sp;

	for (unsigned m = 0; m < msgs && g->n + 40 < MAXF; m++) {
		unsigned kind = rnd() % 10;
		struct gmsg msg = { psn, 1, false };

		if (kind < 3) {                 /* READ */
			uint32_t np = 1 + rnd() % 8;

			msg.read = true;
			msg.npkts = np;
			spec(&sp, ver, true, ROCE_OP_RC_RDMA_READ_REQUEST, psn);
			sp.reth.dma_len = np * PMTU;
			sp.bth.ackreq = 1;
			emit(g, &sp);
			g_read_resps(g, ver, psn, psn + np - 1, psn, psn + np - 1);
		} else {                        /* SEND / WRITE */
			uint32_t np = 1 + rnd() % 4;

			msg.npkts = np;
			for (uint32_t k = 0; k < np; k++) {
				uint8_t op;

				if (np == 1)
					op = kind < 6 ? ROCE_OP_RC_SEND_ONLY : ROCE_OP_RC_RDMA_WRITE_ONLY;
				else if (k == 0)
					op = kind < 6 ? ROCE_OP_RC_SEND_FIRST : ROCE_OP_RC_RDMA_WRITE_FIRST;
				else if (k == np - 1)
					op = kind < 6 ? ROCE_OP_RC_SEND_LAST : ROCE_OP_RC_RDMA_WRITE_LAST;
				else
					op = kind < 6 ? ROCE_OP_RC_SEND_MIDDLE :
						ROCE_OP_RC_RDMA_WRITE_MIDDLE;
				spec(&sp, ver, true, op, psn + k);
				sp.payload_len = k == np - 1 ? 100 : PMTU;
				sp.reth.dma_len = np * PMTU;
				sp.bth.ackreq = k == np - 1;
				emit(g, &sp);
			}
			if (chance(60))
				g_resp(g, ver, ROCE_OP_RC_ACKNOWLEDGE, psn + np - 1, 0x1f, 0);
		}
		psn = (psn + msg.npkts) & 0xffffffu;
		hist[nh++ % 64] = msg;
		if (nh > 2 && chance(8)) {
			/* go-back-N: NAK (sometimes), resend from an earlier message */
			unsigned back = 1 + rnd() % (nh < 4 ? nh - 1 : 3);
			const struct gmsg *from = &hist[(nh - 1 - back) % 64];

			if (chance(50))
				g_resp(g, ver, ROCE_OP_RC_ACKNOWLEDGE, from->psn, 0x60, 0);
			for (unsigned b = back + 1; b-- > 0;) {
				const struct gmsg *h = &hist[(nh - 1 - b) % 64];

				if (h->read) {
					/* a re-read from the middle of the READ */
					uint32_t skip = h->npkts > 1 ? rnd() % h->npkts : 0;

					spec(&sp, ver, true, ROCE_OP_RC_RDMA_READ_REQUEST,
						h->psn + skip);
					sp.reth.dma_len = (h->npkts - skip) * PMTU;
					emit(g, &sp);
					g_read_resps(g, ver, h->psn + skip, h->psn + h->npkts - 1,
						h->psn + skip, h->psn + h->npkts - 1);
				} else {
					for (uint32_t k = 0; k < h->npkts; k++) {
						spec(&sp, ver, true, h->npkts == 1 ?
							ROCE_OP_RC_SEND_ONLY : k == 0 ?
							ROCE_OP_RC_SEND_FIRST : k == h->npkts - 1 ?
							ROCE_OP_RC_SEND_LAST : ROCE_OP_RC_SEND_MIDDLE,
							h->psn + k);
						sp.payload_len = k == h->npkts - 1 ? 100 : PMTU;
						emit(g, &sp);
					}
				}
			}
		}
	}
}

static unsigned run_gen(struct gen *g, const char *name, uint32_t pmtu)
{
	struct checker c;
	struct roce_decode_opts o;
	unsigned bad;

	if (!ck_init(&c, name, pmtu))
		return 1;
	roce_decode_opts_init(&o);
	for (size_t i = 0; i < g->n; i++)
		ck_frame(&c, g->f[i].buf, g->f[i].len, g->f[i].len, ROCE_LINKTYPE_ETHERNET, &o,
			(uint64_t)(i + 1) * 1000);
	bad = ck_end(&c, NULL);
	ck_free(&c);
	return bad;
}

static void test_random_rc(void)
{
	struct gen g = { 0 };
	unsigned bad = 0;

	g.f = malloc(MAXF * sizeof(*g.f));
	REQUIRE(g.f);
	for (unsigned seed = 1; seed <= 60; seed++) {
		char name[64];

		rng_state = 0x9e3779b97f4a7c15ull * seed;
		g.n = 0;
		g.loss = seed % 4 == 0 ? 0 : 1 + rnd() % 5;
		g.dup = rnd() % 3;
		g.swap = rnd() % 3;
		g.corrupt = rnd() % 4;
		gen_rc(&g, seed % 3 == 0 ? 1 : seed % 3 == 1 ? 4 : 6,
			seed % 5 == 0 ? 0xfffff0u : rnd() & 0xffffffu, 150);
		snprintf(name, sizeof(name), "random rc seed %u", seed);
		/* with the PMTU known and learned */
		bad += run_gen(&g, name, seed % 2 ? PMTU : 0);
	}
	free(g.f);
	CHECK_EQ_U(bad, 0);
}

/* Random PSN walks on a request and a response stream: no protocol at all. */
static void test_random_walk(void)
{
	struct gen g = { 0 };
	unsigned bad = 0;

	g.f = malloc(MAXF * sizeof(*g.f));
	REQUIRE(g.f);
	for (unsigned seed = 1; seed <= 40; seed++) {
		struct roce_frame_spec sp;
		uint32_t rq = rnd() & 0xffffffu, rs = rq;
		char name[64];

		rng_state = 0x51afd7ed558ccdull * seed + 7;
		g.n = 0;
		g.corrupt = 3;
		for (unsigned i = 0; i < 400; i++) {
			int32_t step = (int32_t)(rnd() % 9) - 3;
			unsigned what = rnd() % 4;

			if (what < 2) {
				rq = (rq + (uint32_t)step) & 0xffffffu;
				spec(&sp, 4, true, chance(20) ? ROCE_OP_RC_RDMA_READ_REQUEST :
					ROCE_OP_RC_SEND_ONLY, rq);
				sp.reth.dma_len = (1 + rnd() % 6) * PMTU;
				sp.payload_len = sp.bth.opcode == ROCE_OP_RC_SEND_ONLY ? 8 : 0;
				emit(&g, &sp);
			} else if (what == 2) {
				rs = (rq + (uint32_t)step) & 0xffffffu;
				g_resp(&g, 4, chance(50) ? ROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE :
					ROCE_OP_RC_RDMA_READ_RESPONSE_ONLY, rs, 0x1f, PMTU);
			} else {
				rs = (rs + (uint32_t)step) & 0xffffffu;
				g_resp(&g, 4, ROCE_OP_RC_ACKNOWLEDGE, rs, chance(20) ? 0x60 : 0x1f, 0);
			}
		}
		snprintf(name, sizeof(name), "random walk seed %u", seed);
		bad += run_gen(&g, name, seed % 2 ? PMTU : 0);
	}
	free(g.f);
	CHECK_EQ_U(bad, 0);
}

/* roce_analyzer_flow_holes(): ranges, counting with max 0, unknown stream, dropped. */
static void test_flow_holes_api(void)
{
	struct checker c;
	struct roce_decode_opts o;
	struct roce_frame_spec sp;
	struct roce_psn_range r[4];
	struct roce_flow_key k;
	struct gframe fr;
	uint64_t dropped = 99;
	static const uint32_t psns[] = { 10, 11, 14, 15, 20, 12 };

	REQUIRE(ck_init(&c, "flow_holes", 0));
	roce_decode_opts_init(&o);
	for (unsigned i = 0; i < sizeof(psns) / sizeof(psns[0]); i++) {
		spec(&sp, 4, true, ROCE_OP_RC_SEND_ONLY, psns[i]);
		REQUIRE(roce_build(&sp, fr.buf, sizeof(fr.buf), &fr.len) == ROCE_OK);
		ck_frame(&c, fr.buf, fr.len, fr.len, ROCE_LINKTYPE_ETHERNET, &o, i * 1000);
	}
	memset(&k, 0, sizeof(k));
	k.version = 2;
	memcpy(k.src, sp.src, 16);
	memcpy(k.dst, sp.dst, 16);
	k.dqpn = 0x11;
	/* holes: [13, 14) after 12 filled [12, 14), and [16, 20) */
	CHECK_EQ_I(roce_analyzer_flow_holes(c.a, &k, NULL, 0, NULL), 2);
	CHECK_EQ_I(roce_analyzer_flow_holes(c.a, &k, r, 1, &dropped), 2);
	CHECK_EQ_U(dropped, 0);
	CHECK_EQ_I(roce_analyzer_flow_holes(c.a, &k, r, 4, NULL), 2);
	CHECK_EQ_U(r[0].start, 13);
	CHECK_EQ_U(r[0].len, 1);
	CHECK_EQ_U(r[1].start, 16);
	CHECK_EQ_U(r[1].len, 4);
	k.dqpn = 0x12;
	CHECK_EQ_I(roce_analyzer_flow_holes(c.a, &k, r, 4, NULL), -1);
	CHECK_EQ_U(ck_end(&c, NULL), 0);
	ck_free(&c);
}

int main(void)
{
	RUN(test_flow_holes_api);
	RUN(test_captures);
	RUN(test_random_rc);
	RUN(test_random_walk);
	if (shared_missing && check_failed_ == 0) {
		printf("../shared/captures not found: shared captures skipped\n");
		check_report();
		return 77;
	}
	return check_report();
}
