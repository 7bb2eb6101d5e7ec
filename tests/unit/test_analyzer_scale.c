// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_analyzer_scale.c - the analyzer with many queue pairs, frames built
 * in memory with roce_build(): each QP sends a SEND_ONLY with AckReq, gets
 * its ACK, sends an RDMA READ and gets a READ_RESPONSE_ONLY.  Two layouts:
 * one host pair per QP, and 20,000 QPs between ONE host pair with random
 * initial PSNs.  The four phases run over all QPs in turn (every SEND, then
 * every ACK, ...), so all the request streams of a host pair wait unpaired
 * at once.  Checked: every stream found once (none lost or split), pairing
 * (>= 99.5% of ACK and READ latencies, and the right peer), heap bytes per
 * stream, and that iterating streams and PFC entries allocates nothing.
 *
 * Heap accounting wraps malloc & co. (glibc's __libc_* entry points); under
 * AddressSanitizer or ThreadSanitizer (whose runtimes own malloc) the
 * wrappers are left out and those checks are skipped.
 */
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include <roce/analyzer.h>
#include <roce/build.h>
#include <roce/pkt.h>

#include "check.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define T_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define T_SANITIZED 1
#endif
#endif

/* ------------------------------------------------------- heap accounting */

static uint64_t t_allocs;       /* allocation calls */
static int64_t t_live;          /* live bytes (usable size) */

#ifndef T_SANITIZED
extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t k, size_t n);
extern void *__libc_realloc(void *p, size_t n);
extern void *__libc_memalign(size_t al, size_t n);
extern void __libc_free(void *p);
int posix_memalign(void **out, size_t al, size_t n);

static void *t_note(void *p)
{
	if (p) {
		t_allocs++;
		t_live += (int64_t)malloc_usable_size(p);
	}
	return p;
}

void *malloc(size_t n)
{
	return t_note(__libc_malloc(n));
}

void *calloc(size_t k, size_t n)
{
	return t_note(__libc_calloc(k, n));
}

void *aligned_alloc(size_t al, size_t n)
{
	return t_note(__libc_memalign(al, n));
}

void *memalign(size_t al, size_t n)
{
	return t_note(__libc_memalign(al, n));
}

int posix_memalign(void **out, size_t al, size_t n)
{
	void *p = t_note(__libc_memalign(al, n));

	if (!p)
		return 12;      /* ENOMEM */
	*out = p;
	return 0;
}

void free(void *p)
{
	if (p)
		t_live -= (int64_t)malloc_usable_size(p);
	__libc_free(p);
}

void *realloc(void *p, size_t n)
{
	size_t old = p ? malloc_usable_size(p) : 0;
	void *q = __libc_realloc(p, n);

	if (q || !n) {
		t_live -= (int64_t)old;
		if (q) {
			t_live += (int64_t)malloc_usable_size(q);
			t_allocs++;
		}
	}
	return q;
}
#endif

/* ---------------------------------------------------------------- traffic */

struct layout {
	const char *name;
	unsigned nqp;
	bool one_pair;          /* all QPs between one host pair */
	/* UDP source ports: 0 roce_build()'s (0xC000 on every frame), PORTS_LINUX the one
	 * Linux derives from the two QPNs (both directions alike; with 20,000 QPs many
	 * collide: 16,384 values), PORTS_DIR one per direction (0xC000 + a hash of the
	 * source QP, as roce-gen writes); same_psn: every QP at PSN 1000 */
	uint8_t ports;
	bool same_psn;
};

enum { PORTS_LINUX = 1, PORTS_DIR = 2 };

/* The kernel's rdma_get_udp_sport(0, lqpn, rqpn) (include/rdma/ib_verbs.h). */
static uint16_t lx_port(uint32_t lqpn, uint32_t rqpn)
{
	uint64_t v = (uint64_t)lqpn * rqpn;
	uint32_t fl;

	v ^= v >> 20;
	v ^= v >> 40;
	fl = (uint32_t)(v & 0xfffff);
	return (uint16_t)(0xc000 | ((fl & 0x3fff) ^ (fl >> 14)));
}

static uint32_t lcg(uint32_t *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 8;
}

static uint64_t g_frame;

static void feed(roce_analyzer_t *a, const struct roce_frame_spec *s, uint64_t ts)
{
	uint8_t buf[2048];
	size_t len = 0;
	struct roce_pkt pkt;
	int st;

	if (roce_build(s, buf, sizeof(buf), &len) != ROCE_OK) {
		check_cur_failed_ = 1;
		return;
	}
	st = roce_decode(ROCE_LINKTYPE_ETHERNET, buf, len, len, NULL, &pkt);
	/* the prefetch hint, on the whole frame and on a copy cut to 0..79 bytes (on
	 * the heap, so that ASan sees a read past the end): the results checked
	 * below are those of the analysis without it */
	roce_analyzer_prefetch_stream(a, roce_analyzer_prefetch_slot(a, ROCE_LINKTYPE_ETHERNET,
								      buf, len));
	roce_analyzer_prefetch_stream(a, (uint32_t)g_frame * 0x9e3779b9u);  /* any token */
	{
		size_t cut = g_frame % 80 < len ? g_frame % 80 : len;
		uint8_t *part = malloc(cut ? cut : 1);

		if (part) {
			memcpy(part, buf, cut);
			roce_analyzer_prefetch(a, ROCE_LINKTYPE_ETHERNET, part, cut);
			free(part);
		}
	}
	roce_analyzer_process(a, &pkt, st, ts, ++g_frame, NULL);
}

/* QP i: requester address/QP and responder address/QP. */
static void qp_spec(const struct layout *l, unsigned i, bool request, uint8_t op, uint32_t psn,
	struct roce_frame_spec *s)
{
	uint32_t req_ip = 0x0a000001u + (l->one_pair ? 0 : (i << 8));
	uint32_t resp_ip = 0x0b000001u + (l->one_pair ? 0 : (i << 8));

	roce_frame_spec_init(s);
	s->src_mac[5] = request ? 0x0a : 0x0b;
	s->dst_mac[5] = request ? 0x0b : 0x0a;
	roce_addr_v4(s->src, request ? req_ip : resp_ip);
	roce_addr_v4(s->dst, request ? resp_ip : req_ip);
	s->tclass = 2;          /* ECT(0) */
	s->bth.opcode = op;
	s->bth.pkey = 0xffff;
	/* requests go to the responder's QP, responses to the requester's */
	s->bth.dqpn = request ? 0x10000u + i : 0x400000u + i;
	s->bth.psn = psn & 0xffffffu;
	if (l->ports == PORTS_LINUX)
		s->sport = lx_port(0x10000u + i, 0x400000u + i);
	else if (l->ports == PORTS_DIR)
		s->sport = (uint16_t)(0xc000u | (((request ? 0x400000u + i : 0x10000u + i) *
			0x9e3779b1u) >> 16 & 0x3fff));
}

static void run_layout(roce_analyzer_t *a, const struct layout *l, uint32_t *psn, uint64_t *ts)
{
	struct roce_frame_spec s;
	unsigned i;

	for (i = 0; i < l->nqp; i++) {
		qp_spec(l, i, true, ROCE_OP_RC_SEND_ONLY, psn[i], &s);
		s.bth.ackreq = true;
		s.payload_len = 64;
		feed(a, &s, *ts += 100);
	}
	for (i = 0; i < l->nqp; i++) {
		qp_spec(l, i, false, ROCE_OP_RC_ACKNOWLEDGE, psn[i], &s);
		s.aeth.syndrome = 0x1f;
		s.aeth.msn = 1;
		feed(a, &s, *ts += 100);
	}
	for (i = 0; i < l->nqp; i++) {
		qp_spec(l, i, true, ROCE_OP_RC_RDMA_READ_REQUEST, psn[i] + 1, &s);
		s.reth.dma_len = 128;
		feed(a, &s, *ts += 100);
	}
	for (i = 0; i < l->nqp; i++) {
		qp_spec(l, i, false, ROCE_OP_RC_RDMA_READ_RESPONSE_ONLY, psn[i] + 1, &s);
		s.aeth.syndrome = 0x1f;
		s.aeth.msn = 2;
		s.payload_len = 128;
		feed(a, &s, *ts += 100);
	}
}

struct tally {
	unsigned nqp;
	uint64_t streams, requests, frames_bad, wrong_peer, unpaired;
	uint64_t rtt, read_first, read_last;
	uint64_t allocs_in_cb;
};

static int tally_cb(void *user, const struct roce_flow_stats *f)
{
	struct tally *t = user;
	uint32_t q = f->key.dqpn;

	t->streams++;
	if (f->frames != 2)
		t->frames_bad++;
	if (!f->has_peer) {
		t->unpaired++;
	} else if (f->is_request) {
		/* request stream to 0x10000 + i pairs with responses to 0x400000 + i */
		if (q < 0x10000u || f->peer.dqpn != q - 0x10000u + 0x400000u)
			t->wrong_peer++;
	} else if (f->peer.dqpn != q - 0x400000u + 0x10000u) {
		t->wrong_peer++;
	}
	if (f->is_request)
		t->requests++;
	t->rtt += f->rtt.count;
	t->read_first += f->read_first.count;
	t->read_last += f->read_last.count;
	return 0;
}

static int pfc_cb(void *user, const struct roce_pfc_stats *p)
{
	(void)p;
	(*(uint64_t *)user)++;
	return 0;
}

static void check_layout(const struct layout *l)
{
	struct roce_analyzer_config cfg;
	char err[ROCE_ERRBUF_SIZE];
	roce_analyzer_t *a;
	struct roce_summary sum;
	struct tally t = { .nqp = l->nqp };
	uint32_t *psn = malloc(l->nqp * sizeof(*psn)), seed = 12345;
	uint64_t ts = 1700000000ull * 1000000000ull, npfc = 0, before;
	int64_t live0;

	REQUIRE(psn);
	for (unsigned i = 0; i < l->nqp; i++)
		psn[i] = l->one_pair && !l->same_psn ? lcg(&seed) & 0xfffffeu : 1000;
	live0 = t_live;
	roce_analyzer_config_init(&cfg);
	a = roce_analyzer_create(&cfg, err);
	REQUIRE(a);
	run_layout(a, l, psn, &ts);
	roce_analyzer_finish(a);
	roce_analyzer_summary(a, &sum);
	CHECK_EQ_U(sum.flows, 2ull * l->nqp);
	CHECK_EQ_U(sum.flows_active, 2ull * l->nqp);
	CHECK_EQ_U(sum.evicted_flows, 0);
	CHECK_EQ_U(sum.acks, 2ull * l->nqp);

	before = t_allocs;
	roce_analyzer_foreach_flow(a, tally_cb, &t);
	roce_analyzer_foreach_pfc(a, pfc_cb, &npfc);
	CHECK_EQ_U(t_allocs, before);   /* iteration allocates nothing */

	CHECK_EQ_U(t.streams, 2ull * l->nqp);
	CHECK_EQ_U(t.requests, l->nqp);
	CHECK_EQ_U(t.frames_bad, 0);    /* no stream lost or split */
	CHECK_EQ_U(t.wrong_peer, 0);
	/* at least 99.5% of the ACK and READ latencies paired (all of them, here) */
	CHECK(t.rtt * 1000 >= 995ull * 2 * l->nqp);    /* SEND and READ are both acked */
	CHECK(t.read_first * 1000 >= 995ull * l->nqp);
	CHECK(t.read_last * 1000 >= 995ull * l->nqp);
	CHECK(t.unpaired * 1000 <= 5ull * 2 * l->nqp);
	printf("%s: %u QPs, %llu streams, %llu unpaired, rtt %llu, read %llu/%llu",
		l->name, l->nqp, (unsigned long long)t.streams, (unsigned long long)t.unpaired,
		(unsigned long long)t.rtt, (unsigned long long)t.read_first,
		(unsigned long long)t.read_last);
	{
		/* everything the analyzer holds, per stream (tables, request state, samples):
		 * roce_analyzer_memory(), since large pool blocks are mmap()ed, not malloc()ed */
		struct roce_analyzer_memory m;
		uint64_t per;

		roce_analyzer_memory(a, &m);
		per = m.bytes / (2ull * l->nqp);
		printf(", %llu bytes per stream; in use %llu: records %llu, latency %llu, tables %llu\n",
			(unsigned long long)per, (unsigned long long)(m.in_use / m.streams),
			(unsigned long long)(m.stream_bytes / m.streams),
			(unsigned long long)(m.latency_bytes / m.streams),
			(unsigned long long)(m.table_bytes / m.streams));
		CHECK(per <= 1000);     /* 1,000,000 such streams fit in 1 GB */
		/* a request stream (160 + 160: its 256-byte request record, the rings'
		 * first entries in it, less the distributions) and its response stream
		 * (160 + 32), 256 bytes on average (at the check), plus tables (12-byte
		 * stream slots at a load between 1/4 and 1/2 and the dense array: 32 to
		 * 57 bytes; the pairing index keeps the arrays its peak of unpaired
		 * streams needed: up to 90 bytes in all here); the latency distributions
		 * of a paired request stream (96 bytes of its 256-byte request record,
		 * counted as latency) on the request streams only: 48 per stream */
		CHECK(m.stream_bytes / m.streams <= 256);
		CHECK((m.in_use - m.latency_bytes) / m.streams <= 348);
		CHECK(m.latency_bytes / m.streams <= 60);
	}
	(void)live0;
	roce_analyzer_destroy(a);
	free(psn);
}

static void t_one_host_pair_each(void)
{
	static const struct layout l = { "one host pair per QP", 5000, false, 0, false };

	check_layout(&l);
}

static void t_one_host_pair_20000(void)
{
	static const struct layout l = { "one host pair, random PSNs", 20000, true, 0, false };

	check_layout(&l);
}

/*
 * The pairing's port rule (an_pair.c pick_choice()) with port collisions: 20,000 QPs with
 * Linux's ports (thousands share a port with another QP) and random PSNs; 2,000 QPs all at
 * PSN 1000 (every request stream a candidate of every response, the responses in request
 * order) with Linux ports and with a port per direction.  Each as without ports: every
 * pair right, every latency paired.
 */
static void t_ports_collide(void)
{
	static const struct layout l[] = {
		{ "one host pair, random PSNs, Linux ports", 20000, true, PORTS_LINUX, false },
		{ "one host pair, one PSN, Linux ports", 2000, true, PORTS_LINUX, true },
		{ "one host pair, one PSN, per-direction ports", 2000, true, PORTS_DIR, true },
	};
	unsigned shared = 0;

	/* the collisions are there: QPs whose Linux port another QP of the 20,000 has */
	{
		static uint16_t seen[65536];

		memset(seen, 0, sizeof(seen));
		for (unsigned i = 0; i < 20000; i++)
			if (seen[lx_port(0x10000u + i, 0x400000u + i)]++)
				shared++;
		CHECK(shared > 1000);
	}
	for (unsigned k = 0; k < sizeof(l) / sizeof(l[0]); k++)
		check_layout(&l[k]);
}

/* Streams without latency samples: request stream + response stream, no AckReq. */
static void t_bytes_without_samples(void)
{
	static const struct layout l = { "no samples", 10000, true, 0, false };
	struct roce_analyzer_config cfg;
	char err[ROCE_ERRBUF_SIZE];
	roce_analyzer_t *a;
	struct roce_frame_spec s;
	uint32_t seed = 7;
	uint64_t ts = 1;
	int64_t live0 = t_live;

	roce_analyzer_config_init(&cfg);
	a = roce_analyzer_create(&cfg, err);
	REQUIRE(a);
	for (unsigned i = 0; i < l.nqp; i++) {
		qp_spec(&l, i, true, ROCE_OP_RC_SEND_ONLY, lcg(&seed), &s);
		feed(a, &s, ts++);
	}
	{
		struct roce_analyzer_memory m;
		uint64_t per;

		roce_analyzer_memory(a, &m);
		per = m.bytes / l.nqp;
		printf("request streams without samples: %llu bytes per stream\n",
			(unsigned long long)per);
		/* stream 160 + request state 96 + AckReq ring 24 + tables, index, pool
		 * tails; and the rest of the pools' arena's newest 2 MiB chunk (mapped
		 * whole) */
		CHECK(m.bytes <= 560ull * l.nqp + (2u << 20));
	}
	(void)live0;
	roce_analyzer_destroy(a);
}

/* ------------------------------------------- the library's own accounting */

static roce_analyzer_t *mem_analyzer(uint32_t max_flows, uint64_t max_memory)
{
	struct roce_analyzer_config cfg;
	char err[ROCE_ERRBUF_SIZE];
	roce_analyzer_t *a;

	roce_analyzer_config_init(&cfg);
	if (max_flows)
		cfg.max_flows = max_flows;
	cfg.max_memory = max_memory;
	a = roce_analyzer_create(&cfg, err);
	if (!a)
		printf("create: %s\n", err);
	return a;
}

/* One frame of QP i: a SEND_ONLY (request stream) or an ACK (response stream). */
static void mem_feed(roce_analyzer_t *a, unsigned i, bool request, uint64_t ts)
{
	static const struct layout l = { "memory", 0, false, 0, false };
	struct roce_frame_spec s;

	qp_spec(&l, i, request, request ? ROCE_OP_RC_SEND_ONLY : ROCE_OP_RC_ACKNOWLEDGE,
		1000 + i, &s);
	if (!request)
		s.aeth.syndrome = 0x1f;
	feed(a, &s, ts);
}

/*
 * Bytes per stream by roce_analyzer_memory(): a stream without latency
 * samples (here: ACKs only) is a 160-byte record, 40 bytes of response
 * sequencing and its share of the tables (12-byte slots at a load between
 * 1/4 and 1/2, plus the dense array, at most 1/8 past the streams: 32 to 57
 * bytes), so at most 258 bytes; a request stream waiting for its first
 * response (96 bytes of sequencing state on top, its first AckReq ring, and
 * its entry in the pairing index: an index record, a host-pair record and
 * table slots, here one host pair per stream) at most 560.
 */
static void t_memory_per_stream(void)
{
	struct roce_analyzer_memory m;
	roce_analyzer_t *a = mem_analyzer(0, 0);
	const unsigned n = 20000;

	REQUIRE(a);
	for (unsigned i = 0; i < n; i++)
		mem_feed(a, i, false, 1000 + i);
	roce_analyzer_memory(a, &m);
	CHECK_EQ_U(m.size, sizeof(m));
	CHECK_EQ_U(m.streams, n);
	CHECK_EQ_U(m.latency_bytes, 0);
	printf("ACK-only streams: %llu bytes per stream in use (%llu records, %llu tables)\n",
		(unsigned long long)(m.in_use / n), (unsigned long long)(m.stream_bytes / n),
		(unsigned long long)(m.table_bytes / n));
	CHECK(m.in_use / n <= 258);
	CHECK(m.bytes >= m.in_use);
	roce_analyzer_destroy(a);

	a = mem_analyzer(0, 0);
	REQUIRE(a);
	for (unsigned i = 0; i < n; i++)
		mem_feed(a, i, true, 1000 + i);
	roce_analyzer_memory(a, &m);
	CHECK_EQ_U(m.streams, n);
	printf("request streams: %llu bytes per stream in use\n",
		(unsigned long long)(m.in_use / n));
	CHECK(m.in_use / n <= 560);
	roce_analyzer_destroy(a);
}

/* A's request stream (QP 0) after its response stream was evicted: found by the tally. */
struct repair {
	uint64_t rtt, rtt_min, rtt_max, frames;
	bool has_peer;
	unsigned streams;
};

static int repair_cb(void *user, const struct roce_flow_stats *f)
{
	struct repair *r = user;

	r->streams++;
	if (f->is_request && f->key.dqpn == 0x10000u) {
		r->rtt = f->rtt.count;
		r->rtt_min = f->rtt.min_ns;
		r->rtt_max = f->rtt.max_ns;
		r->frames = f->frames;
		r->has_peer = f->has_peer;
	}
	return 0;
}

/*
 * A paired request stream whose response stream is evicted goes back into
 * the pairing index with its paired record (struct an_req_lat), keeps its
 * latencies and its outstanding AckReqs, and pairs again with the next
 * response stream:
 * SEND P, ACK P (paired, one RTT), SEND P + 1, two more QPs' streams (the
 * ACK stream, least recently active, evicted: max_flows 3), SEND P + 2, then
 * an ACK of P + 2 on a new response stream (evicting QP 1's), which pairs
 * through the index and completes both outstanding SENDs: three RTTs, of
 * 1 us (P, P + 2) and 4 us (P + 1: its AckReq entry, kept in the record
 * while the stream was in the index again).
 */
static void t_paired_record_indexed_again(void)
{
	struct roce_frame_spec s;
	struct roce_summary sum;
	struct repair r = { 0, 0, 0, 0, false, 0 };
	roce_analyzer_t *a = mem_analyzer(3, 0);
	static const struct layout l = { "repair", 0, false, 0, false };
	uint64_t ts = 1000;

	REQUIRE(a);
	for (unsigned k = 0; k < 7; k++) {
		static const struct { unsigned qp, psn; bool request; } fr[7] = {
			{ 0, 0, true }, { 0, 0, false }, { 0, 1, true }, { 1, 0, true },
			{ 2, 0, true }, { 0, 2, true }, { 0, 2, false },
		};

		qp_spec(&l, fr[k].qp, fr[k].request,
			fr[k].request ? ROCE_OP_RC_SEND_ONLY : ROCE_OP_RC_ACKNOWLEDGE,
			5000 + fr[k].psn, &s);
		if (fr[k].request) {
			s.bth.ackreq = true;
			s.payload_len = 64;
		} else {
			s.aeth.syndrome = 0x1f;
		}
		feed(a, &s, ts += 1000);
	}
	roce_analyzer_summary(a, &sum);
	CHECK_EQ_U(sum.flows, 5);
	CHECK_EQ_U(sum.evicted_flows, 2);
	roce_analyzer_foreach_flow(a, repair_cb, &r);
	CHECK_EQ_U(r.streams, 3);
	CHECK_EQ_U(r.frames, 3);
	CHECK(r.has_peer);
	CHECK_EQ_U(r.rtt, 3);
	CHECK_EQ_U(r.rtt_min, 1000);
	CHECK_EQ_U(r.rtt_max, 4000);
	roce_analyzer_destroy(a);
}

/* Evicted streams give their records back: a full table stops growing. */
static void t_memory_reused_on_eviction(void)
{
	struct roce_analyzer_memory m1, m2;
	struct roce_summary sum;
	roce_analyzer_t *a = mem_analyzer(1000, 0);
	uint64_t ts = 1;

	REQUIRE(a);
	for (unsigned i = 0; i < 2000; i++)     /* 1000 QPs: request + response stream each */
		mem_feed(a, i / 2, i % 2 == 0, ts++);
	roce_analyzer_memory(a, &m1);
	for (unsigned i = 2000; i < 40000; i++)
		mem_feed(a, i / 2, i % 2 == 0, ts++);
	roce_analyzer_memory(a, &m2);
	roce_analyzer_summary(a, &sum);
	CHECK_EQ_U(sum.flows, 40000);
	CHECK_EQ_U(sum.evicted_flows, 39000);
	CHECK_EQ_U(m2.streams, 1000);
	/* the pools did not grow: 39,000 new streams took evicted streams' records */
	/*
	 * 39,000 new streams took the records of evicted ones: the pools hold
	 * about what 1000 streams need (the mix of request and response streams
	 * among the live ones varies a little), not what 40,000 would
	 */
	printf("max_flows 1000, 40,000 streams: %llu bytes after the first 2000 frames, %llu at the end\n",
		(unsigned long long)m1.bytes, (unsigned long long)m2.bytes);
	CHECK(m2.bytes <= m1.bytes + m1.bytes / 2);
	CHECK(m2.in_use <= m1.in_use + m1.in_use / 4);
	roce_analyzer_destroy(a);
}

/* Idle expiry gives records back too. */
static void t_memory_reused_on_expiry(void)
{
	struct roce_analyzer_config cfg;
	struct roce_analyzer_memory m1, m2;
	struct roce_summary sum;
	char err[ROCE_ERRBUF_SIZE];
	roce_analyzer_t *a;
	uint64_t ts = 1000000000;

	roce_analyzer_config_init(&cfg);
	cfg.idle_timeout_ns = 1000000;  /* 1 ms */
	a = roce_analyzer_create(&cfg, err);
	REQUIRE(a);
	for (unsigned round = 0; round < 10; round++) {
		for (unsigned i = 0; i < 2000; i++)
			mem_feed(a, round * 2000 + i / 2, i % 2 == 0, ts += 10);
		roce_analyzer_advance(a, ts += 10000000);       /* all idle: expired */
		if (round == 0)
			roce_analyzer_memory(a, &m1);
	}
	roce_analyzer_memory(a, &m2);
	roce_analyzer_summary(a, &sum);
	CHECK_EQ_U(sum.flows, 20000);
	CHECK_EQ_U(sum.expired_flows, 20000);
	CHECK_EQ_U(m2.streams, 0);
	CHECK_EQ_U(m2.stream_bytes, 0);
	CHECK_EQ_U(m2.bytes, m1.bytes);
	roce_analyzer_destroy(a);
}

/* --max-memory: streams are evicted to stay under the cap, and counted. */
static void t_memory_cap(void)
{
	const uint64_t cap = 2u << 20;
	struct roce_analyzer_memory m;
	struct roce_summary sum;
	roce_analyzer_t *a = mem_analyzer(0, cap);
	uint64_t ts = 1;

	REQUIRE(a);
	for (unsigned i = 0; i < 100000; i++)
		mem_feed(a, i / 2, i % 2 == 0, ts++);
	roce_analyzer_memory(a, &m);
	roce_analyzer_summary(a, &sum);
	printf("max_memory 2 MiB: %llu streams kept, %llu evicted, %llu bytes in use\n",
		(unsigned long long)m.streams, (unsigned long long)sum.evicted_flows,
		(unsigned long long)m.in_use);
	CHECK(sum.evicted_flows > 0);
	CHECK_EQ_U(sum.flows, 100000);
	CHECK_EQ_U(sum.flows_active + sum.evicted_flows, 100000);
	CHECK(m.in_use <= cap + 4096);  /* checked at creation: one stream's records over */
	CHECK(m.streams >= 3000);       /* and it still holds what fits (about 460 bytes each) */
	roce_analyzer_destroy(a);
}

int main(void)
{
	RUN(t_one_host_pair_each);
	RUN(t_one_host_pair_20000);
	RUN(t_ports_collide);
	RUN(t_bytes_without_samples);
	RUN(t_memory_per_stream);
	RUN(t_memory_reused_on_eviction);
	RUN(t_memory_reused_on_expiry);
	RUN(t_memory_cap);
	RUN(t_paired_record_indexed_again);
	return check_report();
}
