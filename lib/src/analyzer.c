// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * analyzer.c - stateful RoCE analysis: per-stream PSN sequencing, go-back-N
 * and its cause, NAK / RNR classification, ACK and READ latencies, ECN CE,
 * CNP, and per (source MAC, priority) PFC / PAUSE timing with storms.
 *
 * Tables
 *   Streams and PFC entries live in open-addressing hash tables (linear
 *   probing, backward-shift deletion, capacity a power of two >= 2 * cap).
 *   Each slot points to an entry calloc'ed when the stream first appears; a
 *   dense array of the live entries makes scans and iteration O(live).
 *   Stream key: (RoCE version, src, dst, dqpn), hashed word-wise (flow_hash).
 *   When a table is full, the least recently active entry among the first
 *   16 occupied slots probed from the new key's home slot is evicted
 *   (ROCE_AN_FLOW_EVICTED, evicted_flows / evicted_pfc).  Summary counters
 *   are kept apart and stay correct; PSN holes of an evicted stream are
 *   carried into summary.unrecovered_psns at finish.  Streams are iterated
 *   in first-seen order (sorted index array, built at foreach time).
 *
 * Request streams (ROCE_F_REQ opcodes; UD only while the DETH source QP is
 * the one first seen)
 *   Every request consumes 1 PSN except an RDMA READ request:
 *   N = max(1, ceil(dma_len / pmtu)).  pmtu = configured, else learned from
 *   the stream (or its peer): the payload of FIRST/MIDDLE packets, which carry
 *   exactly one PMTU.  With the pmtu unknown N lies in
 *   [ceil(len/4096), ceil(len/256)]: the expected PSN is set from the lower
 *   bound and the difference is kept as "slack"; the next request anywhere
 *   in the slack is in order and pins N (so does the READ's LAST/ONLY
 *   response).  A READ's PSN range never yields a gap.
 *   State: expected PSN e, newest = e - 1, up to 16 holes (missing PSN
 *   ranges, oldest first).  When a 17th hole is needed the oldest is dropped
 *   and its PSNs are counted as unrecovered right away (conservative: a late
 *   fill of such a PSN then counts as a duplicate).
 *     p == e           in order
 *     p ahead of e     gap: psn_gaps++, lost_psns += p - e, new hole [e, p)
 *     p behind e       in a hole: a fill, out_of_order++ (retransmitted or
 *                      not: the definition), else duplicates++ (every
 *                      re-seen PSN, like a NIC's duplicate_request)
 *   Inside a go-back-N resend run the PSN expected after the previous packet
 *   (pnext) trails e; a forward jump against pnext is a gap as well
 *   (lost_psns += the jump): a resent packet lost again.  This is what the
 *   Soft-RoCE capture README counts as "req_psn_jump_forward".
 *   A forward or backward jump of more than 2^22 PSNs is taken as a new
 *   connection on a reused QPN: the sequence state restarts, no event.
 *
 * Go-back-N (RC, XRC, RD only; UC/UD never retransmit)
 *   A request behind the newest PSN is a retransmission when an episode is
 *   active or starts at it.  With no episode active, a go-back starts at the
 *   first such packet when a NAK / RNR NAK seen on the paired stream is
 *   still unanswered (cause NAK / RNR), or when the packet is not a hole
 *   fill (cause TIMEOUT).  While an episode is active, resends move forward;
 *   a packet that does not advance past the previous packet's PSN is a new
 *   go-back (cause: the unanswered NAK, else TIMEOUT).  The NAK's PSN is not
 *   required to be <= p: rxe restarts whole messages, sometimes before the
 *   NAKed PSN (rc_send_rnr.pcap).  A NAK that arrives while resends move
 *   forward is answered by the next backward jump, not by them.  A hole
 *   fill with no episode and no NAK pending is plain reordering.  If both a
 *   sequence-error NAK and an RNR NAK are pending, the older one names the
 *   cause (an RNR NAK is
 *   normally followed by sequence-error NAKs for the packets that were in
 *   flight behind it; the requester's reaction is the RNR wait).  Each go-back
 *   counts once in gbn_episodes[cause] and raises one ROCE_AN_RETRANSMISSION
 *   (at its first packet); every retransmitted packet counts in
 *   retransmissions.  A go-back inside an active episode keeps the episode's
 *   recovery start.  The episode ends when the PSN passes the newest PSN seen
 *   before it began (ROCE_EV_GBN_RECOVERED, recovery dist from the first NAK,
 *   or from the first retransmission for a timeout).  nak_response = NAK ->
 *   first retransmission that answers it.
 *   RTT: request packets with AckReq (and every READ / atomic) enter a ring
 *   of 64 outstanding (psn, ts, frame); the first ACK / READ response /
 *   ATOMIC_ACK with PSN P completes every entry with psn <= P, one rtt sample
 *   each, res->rtt_ns/ref_frame from the newest completed entry.  A NAK
 *   completes the entries before its PSN without samples.  Retransmitted
 *   requests are not timed and cancel outstanding entries at/after their PSN
 *   (Karn's rule).  READs: a ring of 16 outstanding READs (psn, N, ts, frame)
 *   gives read_first (response PSN == psn) and read_last (LAST/ONLY), and
 *   checks response PSNs inside [psn, psn + N): a forward jump is a gap on
 *   the response stream, a PSN behind the next expected one a duplicate.
 *
 * Response streams: ACK/NAK PSNs are coalesced, so no gap accounting.  Every
 *   AETH (ACK, ATOMIC_ACK, READ_RESPONSE FIRST/LAST/ONLY) is counted by its
 *   syndrome class: ACK -> acks; RNR NAK -> naks and rnr_naks (naks counts
 *   every NAK-type AETH, rnr_naks is the RNR subset); NAK -> naks and
 *   nak_codes[code] (codes > 4 only in naks).  An RNR NAK sets ROCE_EV_RNR_NAK
 *   and raises ROCE_AN_RNR_NAK only (not ROCE_EV_NAK / ROCE_AN_NAK).
 *   Pairing: an unpaired response stream B->A looks (at its first 4 frames,
 *   then every 64th) for the unpaired request stream A->B whose PSN window
 *   [first PSN, expected PSN + slack] holds the response PSN (closest newest
 *   PSN wins); failing that, the only unpaired request stream A->B.  Peers
 *   link both ways and are unlinked on eviction.
 *
 * Latency distributions: exact count/min/max plus a log-linear histogram,
 *   16 sub-buckets per power of two (values < 16 ns exact), values up to 2^40
 *   ns (larger ones share the last bucket); p50/p99 report the midpoint of the
 *   bucket holding the rank ceil(q * count), clamped to [min, max]: relative
 *   error <= 1/32.  Histograms are allocated with the first sample.
 *
 * PFC / PAUSE: per (source MAC, priority; -1 = 802.3x PAUSE).  paused_ns is
 *   the union of pause intervals: a frame at t with q > 0 while not paused
 *   opens [t, t + d); while paused a frame replaces the deadline with t + d;
 *   q == 0 ends the interval at t; a frame at t >= deadline first closes the
 *   interval at its deadline; finish closes open intervals at their
 *   deadlines.  A storm is flagged once per interval, at the first frame of
 *   the entry with t - start >= pfc_storm_ns while still paused, or when the
 *   interval closes with a length >= pfc_storm_ns.  PAUSE storms use bit 0 of
 *   res->storm_mask.  Time stamps that go backwards never underflow.
 *
 * finish() computes unrecovered PSNs and closes pauses; calling it twice in
 * a row does nothing, processing more frames re-arms it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <roce/analyzer.h>
#include <roce/buf.h>
#include <roce/opcode.h>
#include <roce/pkt.h>

#define AN_DEF_MAX_FLOWS   65536u
#define AN_DEF_MAX_PFC     4096u
#define AN_DEF_SPEED_GBPS  100.0
#define AN_DEF_STORM_NS    200000000ull
#define AN_MAX_CAP         (1u << 26)
#define AN_EVICT_PROBE     16
#define AN_HOLES           16
#define AN_ACK_RING        64
#define AN_READ_RING       16
#define AN_RESYNC          (1 << 22)   /* PSN jump taken as a new connection */
#define AN_MAX_READ_N      (1u << 22)
#define AN_PAIR_EVERY      64
#define AN_PAIR_FIRST      4

/* ---------------------------------------------------------------- names */

/* (anomaly and event names: anomaly.c, from anomalies.def) */

const char *roce_retx_cause_name(enum roce_retx_cause c)
{
	switch (c) {
	case ROCE_RETX_NAK: return "nak";
	case ROCE_RETX_RNR: return "rnr";
	case ROCE_RETX_TIMEOUT: return "timeout";
	default: return "none";
	}
}

uint64_t roce_pause_quanta_ns(double link_speed_gbps, uint32_t quanta)
{
	double v;

	/* one quantum = 512 bit times; Gb/s == bits per ns */
	if (!(link_speed_gbps > 0) || isinf(link_speed_gbps))
		return 0;
	v = (double)quanta * 512.0 / link_speed_gbps;
	if (!(v < 1.8e19))
		return UINT64_MAX;
	return (uint64_t)(v + 0.5);
}

/* ---------------------------------------------------------- distributions */

#define H_SUB_BITS 4
#define H_SUB      (1u << H_SUB_BITS)
#define H_MAX_EXP  39
#define H_BUCKETS  (H_SUB + (H_MAX_EXP - H_SUB_BITS + 1) * H_SUB)

struct an_dist {
	uint64_t count, min, max;
	uint64_t *hist;         /* H_BUCKETS, allocated with the first sample */
};

static unsigned h_index(uint64_t v)
{
	unsigned e;

	if (v < H_SUB)
		return (unsigned)v;
	e = 63u - (unsigned)__builtin_clzll(v);
	if (e > H_MAX_EXP)
		return H_BUCKETS - 1;
	return H_SUB + (e - H_SUB_BITS) * H_SUB +
		(unsigned)((v >> (e - H_SUB_BITS)) & (H_SUB - 1));
}

static uint64_t h_mid(unsigned idx)
{
	unsigned e, sub;
	uint64_t low, width;

	if (idx < H_SUB)
		return idx;
	e = (idx - H_SUB) / H_SUB + H_SUB_BITS;
	sub = (idx - H_SUB) % H_SUB;
	width = 1ull << (e - H_SUB_BITS);
	low = (uint64_t)(H_SUB + sub) * width;
	return low + width / 2;
}

static void dist_add(struct an_dist *d, uint64_t v)
{
	if (!d->hist) {
		d->hist = calloc(H_BUCKETS, sizeof(*d->hist));
		if (!d->hist)
			return;         /* no memory: the sample is dropped */
	}
	if (d->count == 0 || v < d->min)
		d->min = v;
	if (d->count == 0 || v > d->max)
		d->max = v;
	d->count++;
	d->hist[h_index(v)]++;
}

static uint64_t dist_quantile(const struct an_dist *d, unsigned pct)
{
	uint64_t rank = (d->count * pct + 99) / 100, cum = 0, v;

	if (rank == 0)
		rank = 1;
	for (unsigned i = 0; i < H_BUCKETS; i++) {
		cum += d->hist[i];
		if (cum >= rank) {
			v = h_mid(i);
			if (v < d->min)
				v = d->min;
			if (v > d->max)
				v = d->max;
			return v;
		}
	}
	return d->max;
}

static void dist_export(const struct an_dist *d, struct roce_dist *out)
{
	memset(out, 0, sizeof(*out));
	if (!d->count || !d->hist)
		return;
	out->count = d->count;
	out->min_ns = d->min;
	out->max_ns = d->max;
	out->p50_ns = dist_quantile(d, 50);
	out->p99_ns = dist_quantile(d, 99);
}

static void dist_free(struct an_dist *d)
{
	free(d->hist);
	d->hist = NULL;
}

/* ------------------------------------------------------------- hash table */

struct an_entry {
	uint32_t hash;
	uint32_t dense;         /* index in the dense array */
	uint64_t tick;          /* last activity (analyzer frame counter) */
	uint64_t seq;           /* creation order */
};

struct an_table {
	struct an_entry **slots;
	uint32_t mask;
	uint32_t max_size;      /* slots at the cap: a power of two >= 2 * cap */
	struct an_entry **dense;
	uint32_t n, cap;
};

/*
 * The slot array starts small and doubles at half load up to max_size:
 * memory follows the streams actually seen, and with few streams their
 * slots share a few cache lines instead of being scattered over a 1 MiB
 * array sized for the cap.
 */
#define AN_TABLE_MIN 64u

static int table_init(struct an_table *t, uint32_t cap)
{
	uint32_t max = AN_TABLE_MIN;

	while (max < 2u * cap)
		max <<= 1;
	t->slots = calloc(AN_TABLE_MIN, sizeof(*t->slots));
	t->dense = calloc(cap, sizeof(*t->dense));
	if (!t->slots || !t->dense)
		return -1;
	t->mask = AN_TABLE_MIN - 1;
	t->max_size = max;
	t->cap = cap;
	t->n = 0;
	return 0;
}

static void table_free(struct an_table *t)
{
	free(t->slots);
	free(t->dense);
}

/* Slot holding e (it is in the table). */
static uint32_t table_slot_of(const struct an_table *t, const struct an_entry *e)
{
	uint32_t i = e->hash & t->mask;

	while (t->slots[i] != e)
		i = (i + 1) & t->mask;
	return i;
}

/*
 * Room for one more entry: grow the slot array when the insert would pass
 * half load.  -1 when there is no room at all (growing failed: no memory).
 */
static int table_reserve(struct an_table *t)
{
	uint32_t size = t->mask + 1, nsize;
	struct an_entry **ns;

	if (2u * (t->n + 1) <= size || size >= t->max_size)
		return t->n + 1 < size ? 0 : -1;
	nsize = size * 2;
	ns = calloc(nsize, sizeof(*ns));
	if (!ns)
		return t->n + 1 < size ? 0 : -1;
	for (uint32_t k = 0; k < t->n; k++) {
		uint32_t i = t->dense[k]->hash & (nsize - 1);

		while (ns[i])
			i = (i + 1) & (nsize - 1);
		ns[i] = t->dense[k];
	}
	free(t->slots);
	t->slots = ns;
	t->mask = nsize - 1;
	return 0;
}

static void table_insert(struct an_table *t, struct an_entry *e)
{
	uint32_t i = e->hash & t->mask;

	while (t->slots[i])
		i = (i + 1) & t->mask;
	t->slots[i] = (struct an_entry *)e;
	e->dense = t->n;
	t->dense[t->n++] = e;
}

/* Backward-shift deletion: no tombstones, probe chains stay short. */
static void table_remove(struct an_table *t, struct an_entry *e)
{
	uint32_t i = table_slot_of(t, e), j = i, k;
	struct an_entry *last;

	t->slots[i] = NULL;
	for (;;) {
		j = (j + 1) & t->mask;
		if (!t->slots[j])
			break;
		k = t->slots[j]->hash & t->mask;
		/* move slots[j] back to i unless its home lies cyclically in (i, j] */
		if (((j - k) & t->mask) >= ((j - i) & t->mask)) {
			t->slots[i] = t->slots[j];
			t->slots[j] = NULL;
			i = j;
		}
	}
	last = t->dense[--t->n];
	last->dense = e->dense;
	t->dense[e->dense] = last;
}

/* Least recently active entry among the first occupied slots from home. */
static struct an_entry *table_victim(const struct an_table *t, uint32_t hash)
{
	struct an_entry *best = NULL;
	uint32_t i = hash & t->mask, seen = 0;

	for (uint32_t step = 0; step <= t->mask && seen < AN_EVICT_PROBE; step++) {
		struct an_entry *e = t->slots[(i + step) & t->mask];

		if (!e)
			continue;
		seen++;
		if (!best || e->tick < best->tick)
			best = e;
	}
	return best;
}

static uint32_t fnv1a(uint32_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 16777619u;
	}
	return h;
}

/* ---------------------------------------------------------------- streams */

struct an_hole {
	uint32_t start, len;    /* missing PSNs [start, start + len) mod 2^24 */
};

struct an_ackent {
	uint32_t psn;
	uint64_t ts, frame;
};

struct an_readent {
	uint32_t psn, n, nmax;  /* n == nmax once N is known */
	uint32_t next_resp;     /* next expected response PSN */
	uint64_t ts, frame;
	bool first_done, live;
};

struct an_pending {
	bool valid;
	uint32_t psn;
	uint64_t ts, frame;
	uint32_t timer_us;      /* RNR */
};

/*
 * Request-side sequencing state, allocated with the stream's first request.
 * What every request frame reads or writes comes first (one cache line).
 */
struct an_req {
	bool init, off;
	bool gbn_active;        /* go-back-N resend run in progress */
	unsigned nholes;
	uint32_t next, pnext;   /* pnext: PSN expected after the previous packet (== next outside resends) */
	uint32_t slack, slack_read_psn, prev, first_psn;
	unsigned ack_head, ack_n;
	unsigned rd_next;
	uint64_t dropped_unrec;
	struct an_hole holes[AN_HOLES];
	/* go-back-N */
	enum roce_retx_cause gbn_cause;
	uint32_t gbn_newest;
	uint64_t gbn_start_ts, gbn_ref_frame;
	struct an_pending nak, rnr;
	/* AckReq ring (oldest at head) and READ ring */
	struct an_ackent ack[AN_ACK_RING];
	struct an_readent rd[AN_READ_RING];
};

/*
 * A stream.  Allocated on a cache-line boundary, so that the table entry,
 * the request-state and peer pointers, the key and the counters every frame
 * updates (st's first members) sit in the first two lines: with many streams and
 * the frames streaming through the cache, each frame then costs two lines
 * of stream state instead of eight.
 */
struct an_flow {
	struct an_entry ent;    /* first member */
	struct an_req *req;
	struct an_flow *peer;
	struct roce_flow_stats st;
	bool transport_set, udqp_set;
	uint64_t unpaired_frames;
	uint64_t last_cnp_ts;
	struct an_dist rtt, read_first, read_last, nak_response, recovery;
};

#define AN_LINE 64
_Static_assert(offsetof(struct an_flow, st) + offsetof(struct roce_flow_stats, last_ts_ns) +
	sizeof(uint64_t) <= 2 * AN_LINE, "stream hot fields span more than two cache lines");
_Static_assert(offsetof(struct an_req, dropped_unrec) <= AN_LINE,
	"request hot fields span more than one cache line");

/* Zeroed memory on a cache-line boundary (free() releases it). */
static void *an_zalloc_aligned(size_t n)
{
	size_t sz = (n + AN_LINE - 1) & ~(size_t)(AN_LINE - 1);
	void *p = aligned_alloc(AN_LINE, sz);

	if (p)
		memset(p, 0, sz);
	return p;
}

struct an_pfc {
	struct an_entry ent;
	struct roce_pfc_stats st;
	uint64_t seq_first;
	bool paused, storm_flagged;
	uint64_t start, deadline;
};

struct roce_analyzer {
	struct roce_analyzer_config cfg;
	struct roce_summary sum;
	struct an_table flows, pfc;
	uint64_t tick, seq;
	uint64_t evicted_unrec;
	uint64_t last_frame;
	uint32_t pmtu_learned;
	bool finished;
};

void roce_analyzer_config_init(struct roce_analyzer_config *c)
{
	if (!c)
		return;
	memset(c, 0, sizeof(*c));
	c->max_flows = AN_DEF_MAX_FLOWS;
	c->max_pfc = AN_DEF_MAX_PFC;
	c->pmtu = 0;
	c->link_speed_gbps = AN_DEF_SPEED_GBPS;
	c->pfc_storm_ns = AN_DEF_STORM_NS;
}

static void set_err(char *errbuf, const char *msg)
{
	if (errbuf)
		snprintf(errbuf, ROCE_ERRBUF_SIZE, "%s", msg);
}

static bool pmtu_valid(uint32_t v)
{
	return v == 256 || v == 512 || v == 1024 || v == 2048 || v == 4096;
}

roce_analyzer_t *roce_analyzer_create(const struct roce_analyzer_config *c, char *errbuf)
{
	struct roce_analyzer *a;
	struct roce_analyzer_config cfg;

	if (c)
		cfg = *c;
	else
		roce_analyzer_config_init(&cfg);
	if (cfg.max_flows == 0)
		cfg.max_flows = AN_DEF_MAX_FLOWS;
	if (cfg.max_pfc == 0)
		cfg.max_pfc = AN_DEF_MAX_PFC;
	if (cfg.link_speed_gbps == 0)
		cfg.link_speed_gbps = AN_DEF_SPEED_GBPS;
	if (cfg.pfc_storm_ns == 0)
		cfg.pfc_storm_ns = AN_DEF_STORM_NS;
	if (cfg.max_flows > AN_MAX_CAP || cfg.max_pfc > AN_MAX_CAP) {
		set_err(errbuf, "analyzer: max_flows / max_pfc too large (limit 67108864)");
		return NULL;
	}
	if (cfg.pmtu && !pmtu_valid(cfg.pmtu)) {
		set_err(errbuf, "analyzer: pmtu must be 0 or one of 256, 512, 1024, 2048, 4096");
		return NULL;
	}
	if (!(cfg.link_speed_gbps > 0) || isinf(cfg.link_speed_gbps)) {
		set_err(errbuf, "analyzer: link speed must be a positive number of Gb/s");
		return NULL;
	}
	a = calloc(1, sizeof(*a));
	if (!a) {
		set_err(errbuf, "analyzer: out of memory");
		return NULL;
	}
	a->cfg = cfg;
	if (table_init(&a->flows, cfg.max_flows) || table_init(&a->pfc, cfg.max_pfc)) {
		table_free(&a->flows);
		table_free(&a->pfc);
		free(a);
		set_err(errbuf, "analyzer: out of memory");
		return NULL;
	}
	a->sum.pmtu = cfg.pmtu;
	return a;
}

static void flow_free(struct an_flow *f)
{
	free(f->req);
	dist_free(&f->rtt);
	dist_free(&f->read_first);
	dist_free(&f->read_last);
	dist_free(&f->nak_response);
	dist_free(&f->recovery);
	free(f);
}

void roce_analyzer_destroy(roce_analyzer_t *a)
{
	if (!a)
		return;
	for (uint32_t i = 0; i < a->flows.n; i++)
		flow_free((struct an_flow *)a->flows.dense[i]);
	for (uint32_t i = 0; i < a->pfc.n; i++)
		free(a->pfc.dense[i]);
	table_free(&a->flows);
	table_free(&a->pfc);
	free(a);
}

/* -------------------------------------------------------------- anomalies */

static void an_init(struct roce_anomaly *an, enum roce_anomaly_type type,
	uint64_t frame, uint64_t ts, const struct an_flow *f)
{
	memset(an, 0, sizeof(*an));
	an->type = type;
	an->frame = frame;
	an->ts_ns = ts;
	an->priority = -1;
	if (f) {
		an->has_flow = true;
		an->flow = f->st.key;
	}
}

static void an_emit(struct roce_analyzer *a, const struct roce_anomaly *an)
{
	if (a->cfg.on_anomaly)
		a->cfg.on_anomaly(a->cfg.user, an);
}

/* Per-frame context. */
struct an_ctx {
	struct roce_analyzer *a;
	const struct roce_pkt *pkt;
	uint64_t ts, frame;
	struct roce_frame_result *res;
};

/* ---------------------------------------------------------- flow lookup */

static inline uint64_t hash_round(uint64_t h, uint64_t w)
{
	h ^= w * 0x9e3779b97f4a7c15ull;
	h = (h << 31 | h >> 33) * 0xc2b2ae3d27d4eb4full;
	return h;
}

/* Word-wise multiply/rotate hash of the 37-byte key with a murmur3 finaliser. */
static uint32_t flow_hash(const struct roce_flow_key *k)
{
	uint64_t w[4];
	uint64_t h = (uint64_t)k->version << 32 | (k->dqpn & 0xffffffu);

	memcpy(&w[0], k->src, 8);
	memcpy(&w[1], k->src + 8, 8);
	memcpy(&w[2], k->dst, 8);
	memcpy(&w[3], k->dst + 8, 8);
	h = hash_round(h, w[0]);
	h = hash_round(h, w[1]);
	h = hash_round(h, w[2]);
	h = hash_round(h, w[3]);
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return (uint32_t)h;
}

static bool key_eq(const struct roce_flow_key *x, const struct roce_flow_key *y)
{
	return x->version == y->version && x->dqpn == y->dqpn &&
		memcmp(x->src, y->src, 16) == 0 && memcmp(x->dst, y->dst, 16) == 0;
}

static struct an_flow *flow_find(struct roce_analyzer *a, const struct roce_flow_key *k, uint32_t h)
{
	struct an_table *t = &a->flows;
	uint32_t i = h & t->mask;

	while (t->slots[i]) {
		struct an_flow *f = (struct an_flow *)t->slots[i];

		if (f->ent.hash == h && key_eq(&f->st.key, k))
			return f;
		i = (i + 1) & t->mask;
	}
	return NULL;
}

static uint64_t req_unrecovered(const struct an_req *r)
{
	uint64_t n = r->dropped_unrec;

	for (unsigned i = 0; i < r->nholes; i++)
		n += r->holes[i].len;
	return n;
}

static void flow_evict(struct roce_analyzer *a, struct an_flow *f, uint64_t frame, uint64_t ts)
{
	struct roce_anomaly an;

	if (f->peer)
		f->peer->peer = NULL;
	if (f->req)
		a->evicted_unrec += req_unrecovered(f->req);
	a->sum.evicted_flows++;
	an_init(&an, ROCE_AN_FLOW_EVICTED, frame, ts, f);
	snprintf(an.detail, sizeof(an.detail),
		"stream table full (%u): least recently active stream dropped after %llu frames",
		a->cfg.max_flows, (unsigned long long)f->st.frames);
	an_emit(a, &an);
	table_remove(&a->flows, &f->ent);
	flow_free(f);
}

static struct an_flow *flow_get(struct an_ctx *c)
{
	struct roce_analyzer *a = c->a;
	const struct roce_pkt *p = c->pkt;
	struct roce_flow_key k;
	struct an_flow *f;
	uint32_t h;

	memset(&k, 0, sizeof(k));
	k.version = p->version;
	memcpy(k.src, p->src, 16);
	memcpy(k.dst, p->dst, 16);
	k.dqpn = p->bth.dqpn & 0xffffffu;
	h = flow_hash(&k);
	f = flow_find(a, &k, h);
	if (f)
		return f;
	if (a->flows.n >= a->flows.cap) {
		struct an_flow *v = (struct an_flow *)table_victim(&a->flows, h);

		if (!v)
			return NULL;
		flow_evict(a, v, c->frame, c->ts);
	}
	if (table_reserve(&a->flows))
		return NULL;
	f = an_zalloc_aligned(sizeof(*f));
	if (!f)
		return NULL;
	f->ent.hash = h;
	f->ent.seq = a->seq++;
	f->st.key = k;
	f->st.first_frame = c->frame;
	f->st.first_ts_ns = c->ts;
	f->st.first_psn = p->bth.psn;
	f->st.pkey = p->bth.pkey;
	f->st.transport = roce_opcode_transport(p->bth.opcode);
	table_insert(&a->flows, &f->ent);
	a->sum.flows++;
	return f;
}

/* ----------------------------------------------------------------- holes */

static bool psn_in(uint32_t p, uint32_t start, uint32_t len)
{
	return ((p - start) & 0xffffffu) < len;
}

static void hole_drop_oldest(struct an_req *r)
{
	r->dropped_unrec += r->holes[0].len;
	memmove(&r->holes[0], &r->holes[1], (r->nholes - 1) * sizeof(r->holes[0]));
	r->nholes--;
}

static void hole_add(struct an_req *r, uint32_t start, uint32_t len)
{
	if (!len)
		return;
	if (r->nholes == AN_HOLES)
		hole_drop_oldest(r);
	r->holes[r->nholes].start = start & 0xffffffu;
	r->holes[r->nholes].len = len;
	r->nholes++;
}

/* Remove PSN p from the holes; true when it was missing. */
static bool hole_fill(struct an_req *r, uint32_t p)
{
	for (unsigned i = 0; i < r->nholes; i++) {
		struct an_hole *h = &r->holes[i];
		uint32_t off;

		if (!psn_in(p, h->start, h->len))
			continue;
		off = (p - h->start) & 0xffffffu;
		if (off == 0) {
			h->start = roce_psn_add(h->start, 1);
			h->len--;
		} else if (off == h->len - 1) {
			h->len--;
		} else {
			struct an_hole tail = { roce_psn_add(p, 1), h->len - off - 1 };

			h->len = off;
			if (r->nholes == AN_HOLES) {
				hole_drop_oldest(r);
				/* i may have moved; append the tail anyway */
			}
			r->holes[r->nholes++] = tail;
			return true;
		}
		if (h->len == 0) {
			memmove(h, h + 1, (r->nholes - i - 1) * sizeof(*h));
			r->nholes--;
		}
		return true;
	}
	return false;
}

/* ------------------------------------------------------------------ rings */

static void ack_push(struct an_req *r, uint32_t psn, uint64_t ts, uint64_t frame)
{
	unsigned idx;

	if (r->ack_n == AN_ACK_RING) {  /* full: forget the oldest */
		r->ack_head = (r->ack_head + 1) % AN_ACK_RING;
		r->ack_n--;
	}
	idx = (r->ack_head + r->ack_n) % AN_ACK_RING;
	r->ack[idx].psn = psn;
	r->ack[idx].ts = ts;
	r->ack[idx].frame = frame;
	r->ack_n++;
}

/*
 * Complete outstanding entries covered by P (psn <= P, or psn < P when
 * !inclusive).  Samples go to dist when non-NULL; returns the newest
 * completed entry's (ts, frame) through *last.
 */
static bool ack_complete(struct an_req *r, uint32_t P, bool inclusive, struct an_dist *dist,
	uint64_t now, struct an_ackent *last)
{
	bool any = false;
	unsigned keep = 0;
	struct an_ackent tmp[AN_ACK_RING];

	for (unsigned i = 0; i < r->ack_n; i++) {
		struct an_ackent *e = &r->ack[(r->ack_head + i) % AN_ACK_RING];
		int32_t d = roce_psn_cmp(e->psn, P);

		if (d < 0 || (inclusive && d == 0)) {
			if (dist) {
				dist_add(dist, now >= e->ts ? now - e->ts : 0);
				if (!any || roce_psn_cmp(e->psn, last->psn) >= 0)
					*last = *e;
				any = true;
			}
		} else {
			tmp[keep++] = *e;
		}
	}
	memcpy(r->ack, tmp, keep * sizeof(tmp[0]));
	r->ack_head = 0;
	r->ack_n = keep;
	return any;
}

/* Karn: drop outstanding entries at or after a retransmitted PSN. */
static void ack_cancel_from(struct an_req *r, uint32_t p)
{
	unsigned keep = 0;
	struct an_ackent tmp[AN_ACK_RING];

	for (unsigned i = 0; i < r->ack_n; i++) {
		struct an_ackent *e = &r->ack[(r->ack_head + i) % AN_ACK_RING];

		if (roce_psn_cmp(e->psn, p) < 0)
			tmp[keep++] = *e;
	}
	memcpy(r->ack, tmp, keep * sizeof(tmp[0]));
	r->ack_head = 0;
	r->ack_n = keep;
}

static struct an_readent *read_find(struct an_req *r, uint32_t psn_first)
{
	for (unsigned i = 0; i < AN_READ_RING; i++) {
		struct an_readent *e = &r->rd[i];

		if (e->live && e->psn == psn_first)
			return e;
	}
	return NULL;
}

/* Newest live READ whose (possible) range holds response PSN P. */
static struct an_readent *read_match(struct an_req *r, uint32_t P)
{
	for (unsigned k = 1; k <= AN_READ_RING; k++) {
		struct an_readent *e = &r->rd[(r->rd_next + AN_READ_RING - k) % AN_READ_RING];

		if (e->live && psn_in(P, e->psn, e->nmax))
			return e;
	}
	return NULL;
}

static void read_push(struct an_req *r, uint32_t psn, uint32_t n, uint32_t nmax,
	uint64_t ts, uint64_t frame)
{
	struct an_readent *e = &r->rd[r->rd_next];

	r->rd_next = (r->rd_next + 1) % AN_READ_RING;
	memset(e, 0, sizeof(*e));
	e->live = true;
	e->psn = psn;
	e->n = n;
	e->nmax = nmax;
	e->next_resp = psn;
	e->ts = ts;
	e->frame = frame;
}

/* --------------------------------------------------------------- requests */

static uint32_t flow_pmtu(const struct roce_analyzer *a, const struct an_flow *f)
{
	if (a->cfg.pmtu)
		return a->cfg.pmtu;
	return f->st.pmtu;
}

static uint32_t div_up(uint64_t len, uint32_t d)
{
	uint64_t n = (len + d - 1) / d;

	if (n < 1)
		n = 1;
	if (n > AN_MAX_READ_N)
		n = AN_MAX_READ_N;
	return (uint32_t)n;
}

/* An anomaly of the frame in c on stream f, at PSN p where e was expected. */
static void an_init_psn(struct roce_anomaly *an, const struct an_ctx *c, enum roce_anomaly_type type,
	const struct an_flow *f, uint32_t p, uint32_t e)
{
	an_init(an, type, c->frame, c->ts, f);
	an->has_psn = true;
	an->psn = p;
	an->has_expected = true;
	an->expected_psn = e;
}

static void retx_anomaly(struct an_ctx *c, struct an_flow *f, uint32_t p, uint32_t e,
	enum roce_retx_cause cause, const struct an_pending *pend)
{
	struct roce_anomaly an;

	if (!c->a->cfg.on_anomaly)
		return;
	an_init_psn(&an, c, ROCE_AN_RETRANSMISSION, f, p, e);
	if (cause == ROCE_RETX_NAK)
		snprintf(an.detail, sizeof(an.detail), "go-back-N after NAK at PSN %u (frame %llu)",
			pend->psn, (unsigned long long)pend->frame);
	else if (cause == ROCE_RETX_RNR)
		snprintf(an.detail, sizeof(an.detail),
			"resend after RNR NAK at PSN %u (frame %llu), waited %.3f ms, timer %.2f ms",
			pend->psn, (unsigned long long)pend->frame,
			(double)(c->ts >= pend->ts ? c->ts - pend->ts : 0) / 1e6,
			(double)pend->timer_us / 1e3);
	else
		snprintf(an.detail, sizeof(an.detail), "go-back-N to PSN %u without NAK (timeout)", p);
	an_emit(c->a, &an);
}

static void gbn_maybe_recover(struct an_ctx *c, struct an_flow *f, struct an_req *r, uint32_t p)
{
	uint64_t d;

	if (!r->gbn_active || roce_psn_cmp(p, r->gbn_newest) <= 0)
		return;
	r->gbn_active = false;
	d = c->ts >= r->gbn_start_ts ? c->ts - r->gbn_start_ts : 0;
	dist_add(&f->recovery, d);
	c->res->events |= ROCE_EV_GBN_RECOVERED;
	c->res->recovery_ns = d;
}

/* p is behind the expected PSN e on a reliable transport. */
static bool gbn_classify(struct an_ctx *c, struct an_flow *f, struct an_req *r, uint32_t p,
	uint32_t e, bool fill)
{
	/*
	 * Any unanswered NAK counts, whatever its PSN: requesters go back to
	 * the start of the oldest unfinished message (rxe restarts whole WQEs,
	 * sometimes before the NAKed PSN), so p < NAK PSN is common.
	 */
	struct an_pending *nak = r->nak.valid ? &r->nak : NULL;
	struct an_pending *rnr = r->rnr.valid ? &r->rnr : NULL;
	struct an_pending *pend = NULL;
	enum roce_retx_cause cause = ROCE_RETX_TIMEOUT;
	bool new_gbn;

	if (nak && rnr) {
		pend = rnr->ts <= nak->ts ? rnr : nak;
	} else {
		pend = nak ? nak : rnr;
	}
	if (r->gbn_active) {
		/*
		 * Resends move forward from the go-back point; a NAK that
		 * arrives meanwhile is answered by the next backward jump.
		 */
		new_gbn = roce_psn_cmp(p, r->prev) <= 0;
	} else {
		new_gbn = pend || !fill;
	}
	if (!new_gbn)
		pend = NULL;
	if (pend)
		cause = pend == &r->rnr ? ROCE_RETX_RNR : ROCE_RETX_NAK;

	if (!new_gbn && !r->gbn_active)
		return false;           /* plain reordering */

	if (new_gbn) {
		if (!r->gbn_active) {
			r->gbn_active = true;
			r->gbn_newest = roce_psn_add(e, 0xffffffu);   /* e - 1 */
			r->gbn_start_ts = pend ? pend->ts : c->ts;
		}
		r->gbn_cause = cause;
		r->gbn_ref_frame = pend ? pend->frame : 0;
		f->st.gbn_episodes[cause]++;
		c->a->sum.gbn_episodes[cause]++;
		if (pend) {
			uint64_t d = c->ts >= pend->ts ? c->ts - pend->ts : 0;

			dist_add(&f->nak_response, d);
		}
		retx_anomaly(c, f, p, e, cause, pend);
		/* a go-back answers every NAK that covers its PSN */
		if (nak)
			nak->valid = false;
		if (rnr)
			rnr->valid = false;
	}
	f->st.retransmissions++;
	c->a->sum.retransmissions++;
	c->res->events |= ROCE_EV_RETRANSMISSION;
	c->res->retx_cause = r->gbn_cause;
	c->res->ref_frame = r->gbn_ref_frame;
	ack_cancel_from(r, p);
	return true;
}

static void gap_report(struct an_ctx *c, struct an_flow *f, uint32_t p, uint32_t e, uint32_t lost)
{
	struct roce_analyzer *a = c->a;

	f->st.psn_gaps++;
	f->st.lost_psns += lost;
	a->sum.psn_gaps++;
	a->sum.lost_psns += lost;
	c->res->events |= ROCE_EV_PSN_GAP;
	c->res->expected_psn = e;
	c->res->lost_psns = lost;
	if (a->cfg.on_anomaly) {
		struct roce_anomaly an;

		an_init_psn(&an, c, ROCE_AN_PSN_GAP, f, p, e);
		an.count = lost;
		snprintf(an.detail, sizeof(an.detail), "%u PSN%s missing (%u..%u)", lost,
			lost == 1 ? "" : "s", e, roce_psn_add(p, 0xffffffu));
		an_emit(a, &an);
	}
}

static void simple_anomaly(struct an_ctx *c, struct an_flow *f, enum roce_anomaly_type t,
	uint32_t p, uint32_t e, const char *detail)
{
	struct roce_anomaly an;

	if (!c->a->cfg.on_anomaly)
		return;
	an_init_psn(&an, c, t, f, p, e);
	snprintf(an.detail, sizeof(an.detail), "%s", detail);
	an_emit(c->a, &an);
}

/* Pin the N of the READ that left slack: it consumed up to PSN end (exclusive). */
static void read_pin(struct an_req *r, uint32_t end)
{
	struct an_readent *e = read_find(r, r->slack_read_psn);

	if (e) {
		uint32_t n = (end - e->psn) & 0xffffffu;

		if (n >= 1 && n <= e->nmax)
			e->n = e->nmax = n;
	}
	r->slack = 0;
}

static void req_process(struct an_ctx *c, struct an_flow *f)
{
	const struct roce_pkt *pkt = c->pkt;
	const struct roce_opcode_info *op = pkt->op;
	struct an_req *r = f->req;
	uint32_t p = pkt->bth.psn & 0xffffffu, n = 1, nmax = 1, e;
	bool is_read = (op->flags & ROCE_F_READ) != 0;
	bool reliable, retx = false;
	int32_t d;

	if (!r) {
		r = f->req = an_zalloc_aligned(sizeof(*r));
		if (!r)
			return;
	}
	if (r->off)
		return;
	if (f->st.transport == ROCE_TRANSPORT_UD && (pkt->hdrs & ROCE_H_DETH)) {
		if (!f->udqp_set) {
			f->udqp_set = true;
			f->st.src_qp = pkt->deth.src_qp;
		} else if (pkt->deth.src_qp != f->st.src_qp) {
			r->off = true;  /* several senders share this QP: no sequence */
			return;
		}
	}
	if (is_read) {
		uint64_t len = (pkt->hdrs & ROCE_H_RETH) ? pkt->reth.dma_len : 0;
		uint32_t pmtu = flow_pmtu(c->a, f);

		if (pmtu) {
			n = nmax = div_up(len, pmtu);
		} else {
			n = div_up(len, 4096);
			nmax = div_up(len, 256);
		}
	}
	reliable = f->st.transport == ROCE_TRANSPORT_RC || f->st.transport == ROCE_TRANSPORT_XRC ||
		f->st.transport == ROCE_TRANSPORT_RD;

	if (!r->init) {
		r->init = true;
		r->first_psn = p;
		goto advance;
	}
	e = r->next;
	d = roce_psn_cmp(p, e);
	if (d >= AN_RESYNC || d <= -AN_RESYNC) {
		/* new connection on a reused QPN: start over, old holes stay lost */
		uint64_t unrec = req_unrecovered(r);

		memset(r, 0, sizeof(*r));
		r->dropped_unrec = unrec;
		r->init = true;
		r->first_psn = p;
		goto advance;
	}
	/*
	 * Gaps are forward jumps against the previous packet (pnext), as seen
	 * on the wire: inside a go-back-N resend run pnext trails the newest
	 * PSN, and a resent packet that is lost again is a gap too (the
	 * Soft-RoCE README's "req_psn_jump_forward").  Outside a go-back run a
	 * jump back to the newest PSN after a reordered fill is not a loss.
	 * Holes (PSNs never seen) are tracked against the newest PSN (next).
	 */
	bool gap_done = false;

	if (r->gbn_active && r->pnext != e) {
		int32_t dp = roce_psn_cmp(p, r->pnext);

		if (dp > 0) {
			gap_report(c, f, p, r->pnext, (uint32_t)dp);
			gap_done = true;
		}
	}
	if (d == 0) {
		if (r->slack)
			read_pin(r, p);
	} else if (d > 0) {
		if (r->slack && (uint32_t)d <= r->slack) {
			read_pin(r, p);         /* inside the READ's possible range */
		} else {
			uint32_t from = e;

			if (r->slack) {
				from = roce_psn_add(e, r->slack);
				read_pin(r, from);
			}
			uint32_t lost = (p - from) & 0xffffffu;

			hole_add(r, from, lost);
			if (!gap_done)
				gap_report(c, f, p, from, lost);
		}
	} else {
		/* behind: a fill, a duplicate and/or a retransmission */
		bool fill = hole_fill(r, p);

		c->res->expected_psn = e;
		if (reliable)
			retx = gbn_classify(c, f, r, p, e, fill);
		r->pnext = roce_psn_add(p, n);
		if (roce_psn_cmp(r->pnext, e) > 0)
			r->pnext = e;
		if (fill) {
			/* a PSN behind the newest that had not been seen: it fills a gap */
			f->st.out_of_order++;
			c->a->sum.out_of_order++;
			c->res->events |= ROCE_EV_OUT_OF_ORDER;
			if (!retx)
				simple_anomaly(c, f, ROCE_AN_OUT_OF_ORDER, p, e, "PSN fills an earlier gap");
		} else {
			f->st.duplicates++;
			c->a->sum.duplicates++;
			c->res->events |= ROCE_EV_DUPLICATE;
			if (!retx)
				simple_anomaly(c, f, ROCE_AN_DUPLICATE, p, e, "PSN already seen");
		}
		if (is_read)
			read_push(r, p, n, nmax, c->ts, c->frame);  /* re-issued READ */
		r->prev = p;
		return;
	}
advance:
	gbn_maybe_recover(c, f, r, p);
	r->next = roce_psn_add(p, n);
	r->pnext = r->next;
	r->slack = nmax - n;
	r->slack_read_psn = p;
	r->prev = p;
	if (is_read)
		read_push(r, p, n, nmax, c->ts, c->frame);
	if (pkt->bth.ackreq || is_read || (op->flags & ROCE_F_ATOMIC))
		ack_push(r, p, c->ts, c->frame);
}

/* -------------------------------------------------------------- responses */

static bool req_window_has(const struct an_req *r, uint32_t P)
{
	return r->init && !r->off && roce_psn_cmp(P, r->first_psn) >= 0 &&
		roce_psn_cmp(P, roce_psn_add(r->next, r->slack)) <= 0;
}

static void peer_link(struct roce_analyzer *a, struct an_flow *f, struct an_flow *g)
{
	f->peer = g;
	g->peer = f;
	f->st.has_peer = g->st.has_peer = true;
	f->st.peer = g->st.key;
	g->st.peer = f->st.key;
	if (!f->st.pmtu)
		f->st.pmtu = g->st.pmtu;
	if (!g->st.pmtu)
		g->st.pmtu = f->st.pmtu;
}

static void try_pair(struct roce_analyzer *a, struct an_flow *f, uint32_t P)
{
	struct an_flow *best = NULL, *only = NULL;
	unsigned ncand = 0;
	uint32_t bestdist = 0;

	for (uint32_t i = 0; i < a->flows.n; i++) {
		struct an_flow *g = (struct an_flow *)a->flows.dense[i];
		uint32_t dist;

		if (g == f || g->peer || !g->req || !g->req->init || g->req->off ||
		    g->st.key.version != f->st.key.version ||
		    memcmp(g->st.key.src, f->st.key.dst, 16) != 0 ||
		    memcmp(g->st.key.dst, f->st.key.src, 16) != 0)
			continue;
		ncand++;
		only = g;
		if (!req_window_has(g->req, P))
			continue;
		dist = (g->req->next - P) & 0xffffffu;
		if (!best || dist < bestdist) {
			best = g;
			bestdist = dist;
		}
	}
	if (!best && ncand == 1)
		best = only;
	if (best)
		peer_link(a, f, best);
}

static void aeth_process(struct an_ctx *c, struct an_flow *f, struct an_req *r)
{
	struct roce_analyzer *a = c->a;
	const struct roce_pkt *pkt = c->pkt;
	uint8_t s = pkt->aeth.syndrome;
	uint32_t P = pkt->bth.psn & 0xffffffu;
	struct roce_anomaly an;

	c->res->aeth_syndrome = s;
	switch (roce_aeth_type(s)) {
	case ROCE_AETH_ACK:
		f->st.acks++;
		a->sum.acks++;
		break;
	case ROCE_AETH_RNR_NAK: {
		uint32_t us = roce_rnr_timer_us(s & 0x1f);

		f->st.naks++;
		f->st.rnr_naks++;
		a->sum.naks++;
		a->sum.rnr_naks++;
		c->res->events |= ROCE_EV_RNR_NAK;
		if (r) {
			ack_complete(r, P, false, NULL, c->ts, NULL);
			if (!r->rnr.valid) {
				r->rnr.valid = true;
				r->rnr.psn = P;
				r->rnr.ts = c->ts;
				r->rnr.frame = c->frame;
				r->rnr.timer_us = us;
			}
		}
		if (a->cfg.on_anomaly) {
			an_init(&an, ROCE_AN_RNR_NAK, c->frame, c->ts, f);
			an.has_psn = true;
			an.psn = P;
			snprintf(an.detail, sizeof(an.detail), "RNR NAK, timer %.2f ms, MSN %u",
				(double)us / 1e3, pkt->aeth.msn);
			an_emit(a, &an);
		}
		break;
	}
	case ROCE_AETH_NAK: {
		unsigned code = s & 0x1f;

		f->st.naks++;
		a->sum.naks++;
		if (code < 5) {
			f->st.nak_codes[code]++;
			a->sum.nak_codes[code]++;
		}
		c->res->events |= ROCE_EV_NAK;
		if (r) {
			ack_complete(r, P, false, NULL, c->ts, NULL);
			if (code == ROCE_NAK_PSN_SEQ_ERR && !r->nak.valid) {
				r->nak.valid = true;
				r->nak.psn = P;
				r->nak.ts = c->ts;
				r->nak.frame = c->frame;
			}
		}
		if (a->cfg.on_anomaly) {
			const char *txt = roce_aeth_syndrome_text(s);

			an_init(&an, ROCE_AN_NAK, c->frame, c->ts, f);
			an.has_psn = true;
			an.psn = P;
			snprintf(an.detail, sizeof(an.detail), "%s, MSN %u", txt ? txt : "NAK",
				pkt->aeth.msn);
			an_emit(a, &an);
		}
		break;
	}
	default:
		break;
	}
}

static void read_resp_process(struct an_ctx *c, struct an_flow *f, struct an_req *r)
{
	const struct roce_pkt *pkt = c->pkt;
	uint32_t flags = pkt->op->flags, P = pkt->bth.psn & 0xffffffu;
	struct an_readent *e = read_match(r, P);
	int32_t d;

	if (!e)
		return;
	if (P == e->psn && !e->first_done) {
		uint64_t dt = c->ts >= e->ts ? c->ts - e->ts : 0;

		e->first_done = true;
		dist_add(&f->peer->read_first, dt);
		c->res->events |= ROCE_EV_READ_FIRST_RESP;
		c->res->read_ns = dt;
		c->res->ref_frame = e->frame;
	}
	d = roce_psn_cmp(P, e->next_resp);
	if (d > 0) {
		gap_report(c, f, P, e->next_resp, (uint32_t)d);
	} else if (d < 0) {
		f->st.duplicates++;
		c->a->sum.duplicates++;
		c->res->events |= ROCE_EV_DUPLICATE;
		c->res->expected_psn = e->next_resp;
		simple_anomaly(c, f, ROCE_AN_DUPLICATE, P, e->next_resp, "READ response PSN already seen");
	}
	if (d >= 0)
		e->next_resp = roce_psn_add(P, 1);
	if (flags & ROCE_F_LAST) {
		uint64_t dt = c->ts >= e->ts ? c->ts - e->ts : 0;
		uint32_t n = ((P - e->psn) & 0xffffffu) + 1;

		dist_add(&f->peer->read_last, dt);
		c->res->events |= ROCE_EV_READ_LAST_RESP;
		c->res->read_ns = dt;
		c->res->ref_frame = e->frame;
		/* the last response pins N; fix the request stream's expectation */
		if (e->n != e->nmax && r->slack && r->slack_read_psn == e->psn) {
			r->next = roce_psn_add(e->psn, n);
			r->pnext = r->next;
			r->slack = 0;
		}
		e->n = e->nmax = n;
		e->live = false;
	}
}

static void resp_process(struct an_ctx *c, struct an_flow *f)
{
	const struct roce_pkt *pkt = c->pkt;
	uint32_t flags = pkt->op->flags, P = pkt->bth.psn & 0xffffffu;
	struct an_req *r;

	if (!f->peer) {
		if (f->unpaired_frames < AN_PAIR_FIRST || f->unpaired_frames % AN_PAIR_EVERY == 0)
			try_pair(c->a, f, P);
		f->unpaired_frames++;
	}
	r = f->peer ? f->peer->req : NULL;
	if (r && (!r->init || r->off))
		r = NULL;
	if (pkt->hdrs & ROCE_H_AETH)
		aeth_process(c, f, r);
	if (!r)
		return;
	/* ACK-type AETH or a READ response completes requests up to P */
	if (!(pkt->hdrs & ROCE_H_AETH) || roce_aeth_type(pkt->aeth.syndrome) == ROCE_AETH_ACK) {
		struct an_ackent last = {0};

		if (ack_complete(r, P, true, &f->peer->rtt, c->ts, &last)) {
			c->res->events |= ROCE_EV_ACK_RTT;
			c->res->rtt_ns = c->ts >= last.ts ? c->ts - last.ts : 0;
			c->res->ref_frame = last.frame;
		}
	}
	if (flags & ROCE_F_RESP)
		read_resp_process(c, f, r);
}

/* ------------------------------------------------------------------- PFC */

static uint32_t pfc_hash(const uint8_t mac[6], int prio)
{
	uint8_t pr = (uint8_t)(prio + 1);
	uint32_t h = fnv1a(2166136261u, mac, 6);

	h = fnv1a(h, &pr, 1);
	h ^= h >> 16;
	h *= 0x7feb352du;
	h ^= h >> 15;
	return h;
}

static struct an_pfc *pfc_get(struct an_ctx *c, const uint8_t mac[6], int prio)
{
	struct roce_analyzer *a = c->a;
	struct an_table *t = &a->pfc;
	uint32_t h = pfc_hash(mac, prio), i = h & t->mask;
	struct an_pfc *e;

	while (t->slots[i]) {
		e = (struct an_pfc *)t->slots[i];
		if (e->ent.hash == h && e->st.priority == prio && memcmp(e->st.src_mac, mac, 6) == 0)
			return e;
		i = (i + 1) & t->mask;
	}
	if (t->n >= t->cap) {
		struct an_pfc *v = (struct an_pfc *)table_victim(t, h);

		if (!v)
			return NULL;
		a->sum.evicted_pfc++;
		if (a->cfg.on_anomaly) {
			struct roce_anomaly an;

			an_init(&an, ROCE_AN_FLOW_EVICTED, c->frame, c->ts, NULL);
			an.has_mac = true;
			memcpy(an.mac, v->st.src_mac, 6);
			an.priority = v->st.priority;
			snprintf(an.detail, sizeof(an.detail),
				"PFC table full (%u): least recently active entry dropped", a->cfg.max_pfc);
			an_emit(a, &an);
		}
		table_remove(t, &v->ent);
		free(v);
	}
	if (table_reserve(t))
		return NULL;
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->ent.hash = h;
	e->ent.seq = a->seq++;
	memcpy(e->st.src_mac, mac, 6);
	e->st.priority = prio;
	e->st.first_frame = c->frame;
	table_insert(t, &e->ent);
	return e;
}

static void pfc_storm(struct roce_analyzer *a, struct an_pfc *e, uint64_t frame, uint64_t ts,
	uint64_t len, struct roce_frame_result *res)
{
	e->storm_flagged = true;
	e->st.storms++;
	a->sum.pfc_storms++;
	if (res) {
		res->events |= ROCE_EV_PFC_STORM;
		res->storm_mask |= (uint8_t)(1u << (e->st.priority < 0 ? 0 : e->st.priority));
	}
	if (a->cfg.on_anomaly) {
		struct roce_anomaly an;

		an_init(&an, ROCE_AN_PFC_STORM, frame, ts, NULL);
		an.has_mac = true;
		memcpy(an.mac, e->st.src_mac, 6);
		an.priority = e->st.priority;
		an.count = 0;   /* the duration is in detail; count is for PSNs */
		if (e->st.priority < 0)
			snprintf(an.detail, sizeof(an.detail),
				"802.3x PAUSE: link paused continuously for %.3f ms", (double)len / 1e6);
		else
			snprintf(an.detail, sizeof(an.detail),
				"priority %d paused continuously for %.3f ms", e->st.priority,
				(double)len / 1e6);
		an_emit(a, &an);
	}
}

static void pfc_close(struct roce_analyzer *a, struct an_pfc *e, uint64_t end, uint64_t frame,
	uint64_t ts, struct roce_frame_result *res)
{
	uint64_t len = end >= e->start ? end - e->start : 0;

	e->paused = false;
	e->st.paused_ns += len;
	if (len > e->st.longest_pause_ns)
		e->st.longest_pause_ns = len;
	if (len >= a->cfg.pfc_storm_ns && !e->storm_flagged)
		pfc_storm(a, e, frame, ts, len, res);
}

static void pfc_apply(struct an_ctx *c, struct an_pfc *e, uint16_t q, uint64_t d)
{
	struct roce_analyzer *a = c->a;
	uint64_t t = c->ts;

	e->ent.tick = a->tick;
	e->st.frames++;
	e->st.quanta += q;
	if (e->paused && t >= e->deadline)
		pfc_close(a, e, e->deadline, c->frame, t, c->res);
	if (q == 0) {
		e->st.xon++;
		if (e->paused)
			pfc_close(a, e, t < e->deadline ? t : e->deadline, c->frame, t, c->res);
		return;
	}
	e->st.xoff++;
	if (!e->paused) {
		e->paused = true;
		e->storm_flagged = false;
		e->start = t;
	}
	e->deadline = UINT64_MAX - t < d ? UINT64_MAX : t + d;
	if (!e->storm_flagged && t >= e->start && t - e->start >= a->cfg.pfc_storm_ns)
		pfc_storm(a, e, c->frame, t, t - e->start, c->res);
}

static void pfc_process(struct an_ctx *c)
{
	static const uint8_t zero_mac[6];
	const struct roce_pkt *pkt = c->pkt;
	const uint8_t *mac = pkt->src_mac ? pkt->src_mac : zero_mac;
	struct roce_analyzer *a = c->a;

	if (pkt->kind == ROCE_KIND_PAUSE) {
		uint16_t q = pkt->pfc_quanta[0];
		uint64_t d = roce_pause_quanta_ns(a->cfg.link_speed_gbps, q);
		struct an_pfc *e;

		a->sum.pause_frames++;
		c->res->events |= ROCE_EV_PAUSE;
		c->res->pause_ns[0] = d;
		e = pfc_get(c, mac, -1);
		if (e)
			pfc_apply(c, e, q, d);
		return;
	}
	a->sum.pfc_frames++;
	c->res->events |= ROCE_EV_PFC;
	for (int i = 0; i < 8; i++) {
		uint16_t q = pkt->pfc_quanta[i];
		uint64_t d;
		struct an_pfc *e;

		if (!(pkt->pfc_enable & (1u << i)))
			continue;
		d = roce_pause_quanta_ns(a->cfg.link_speed_gbps, q);
		c->res->pause_ns[i] = d;
		if (q == 0)
			c->res->events |= ROCE_EV_PFC_XON;
		e = pfc_get(c, mac, i);
		if (e)
			pfc_apply(c, e, q, d);
	}
}

/* ------------------------------------------------------------ per frame */

static void malformed_report(struct an_ctx *c, struct an_flow *f)
{
	const struct roce_pkt *pkt = c->pkt;
	uint32_t m = pkt->findings & ROCE_FIND_MALFORMED_MASK;
	struct roce_anomaly an;
	size_t used = 0;

	if (!c->a->cfg.on_anomaly)
		return;
	an_init(&an, ROCE_AN_MALFORMED, c->frame, c->ts, f);
	if (pkt->kind == ROCE_KIND_ROCE && pkt->op) {
		an.has_psn = true;
		an.psn = pkt->bth.psn & 0xffffffu;
		if (!f) {
			an.has_flow = true;
			an.flow.version = pkt->version;
			memcpy(an.flow.src, pkt->src, 16);
			memcpy(an.flow.dst, pkt->dst, 16);
			an.flow.dqpn = pkt->bth.dqpn & 0xffffffu;
		}
	}
	if ((pkt->kind == ROCE_KIND_PFC || pkt->kind == ROCE_KIND_PAUSE) && pkt->src_mac) {
		an.has_mac = true;
		memcpy(an.mac, pkt->src_mac, 6);
	}
	for (unsigned b = 0; b < ROCE_FIND_COUNT; b++) {
		const char *txt;
		int w;

		if (!(m & (1u << b)))
			continue;
		txt = roce_finding_text(1u << b);
		if (!txt)
			txt = roce_finding_name(1u << b);
		if (!txt)
			continue;
		w = snprintf(an.detail + used, sizeof(an.detail) - used, "%s%s", used ? "; " : "", txt);
		if (w < 0 || (size_t)w >= sizeof(an.detail) - used)
			break;
		used += (size_t)w;
	}
	an_emit(c->a, &an);
}

static void learn_pmtu(struct roce_analyzer *a, struct an_flow *f, const struct roce_pkt *pkt)
{
	uint32_t fl = pkt->op->flags, v = pkt->payload_len;

	if (!(fl & (ROCE_F_REQ | ROCE_F_RESP)) || !(fl & (ROCE_F_FIRST | ROCE_F_MIDDLE)) ||
	    (fl & ROCE_F_LAST) || !pmtu_valid(v))
		return;
	if (f->st.pmtu == v && a->pmtu_learned == v && (a->cfg.pmtu || a->sum.pmtu == v) &&
	    (!f->peer || f->peer->st.pmtu == v))
		return;                 /* nothing would change: write nothing */
	f->st.pmtu = v;
	if (f->peer)
		f->peer->st.pmtu = v;
	a->pmtu_learned = v;
	if (!a->cfg.pmtu)
		a->sum.pmtu = v;
}

static void roce_process(struct an_ctx *c, int status)
{
	struct roce_analyzer *a = c->a;
	const struct roce_pkt *pkt = c->pkt;
	const struct roce_opcode_info *op = pkt->op;
	struct an_flow *f = NULL;
	struct roce_anomaly an;

	a->sum.roce_frames++;
	if (pkt->version == 1)
		a->sum.rocev1_frames++;
	else if (pkt->version == 2)
		a->sum.rocev2_frames++;
	switch (pkt->icrc_status) {
	case ROCE_ICRC_OK: a->sum.icrc_ok++; break;
	case ROCE_ICRC_BAD: a->sum.icrc_bad++; break;
	default: a->sum.icrc_unverified++; break;
	}
	if (pkt->ecn) {
		a->sum.ecn_capable++;
		if (pkt->ecn == 3)
			a->sum.ecn_ce++;
	}
	if (op)
		a->sum.opcodes[pkt->bth.opcode]++;

	if (op && op->name && (status == ROCE_OK || status == ROCE_E_MALFORMED) &&
	    (op->flags & (ROCE_F_REQ | ROCE_F_RESP | ROCE_F_ACK | ROCE_F_CNP)))
		f = flow_get(c);
	if (f) {
		f->ent.tick = a->tick;
		f->st.frames++;
		f->st.bytes += pkt->wirelen;
		f->st.payload_bytes += pkt->payload_len;
		if (f->st.last_ts_ns < c->ts)
			f->st.last_ts_ns = c->ts;
		if (f->st.transport == ROCE_TRANSPORT_CNP && !(op->flags & ROCE_F_CNP))
			f->st.transport = roce_opcode_transport(pkt->bth.opcode);
		f->st.last_psn = pkt->bth.psn & 0xffffffu;
		if (pkt->ecn)
			f->st.ecn_capable++;
		if (pkt->findings & ROCE_FIND_MALFORMED_MASK)
			f->st.malformed++;
		if (pkt->icrc_status == ROCE_ICRC_BAD)
			f->st.icrc_bad++;
	}
	if (pkt->findings & ROCE_FIND_MALFORMED_MASK)
		malformed_report(c, f);
	if (pkt->icrc_status == ROCE_ICRC_BAD) {
		c->res->events |= ROCE_EV_ICRC_BAD;
		if (a->cfg.on_anomaly) {
			an_init(&an, ROCE_AN_ICRC, c->frame, c->ts, f);
			if (op) {
				an.has_psn = true;
				an.psn = pkt->bth.psn & 0xffffffu;
			}
			snprintf(an.detail, sizeof(an.detail), "ICRC 0x%08x, computed 0x%08x",
				pkt->icrc_wire, pkt->icrc_computed);
			an_emit(a, &an);
		}
	}
	if (pkt->ecn == 3) {
		c->res->events |= ROCE_EV_ECN_CE;
		if (f)
			f->st.ecn_ce++;
		if (a->cfg.on_anomaly) {
			an_init(&an, ROCE_AN_ECN_CE, c->frame, c->ts, f);
			if (op) {
				an.has_psn = true;
				an.psn = pkt->bth.psn & 0xffffffu;
			}
			snprintf(an.detail, sizeof(an.detail), "IP ECN Congestion Experienced");
			an_emit(a, &an);
		}
	}
	if (!f)
		return;

	if (op->flags & ROCE_F_CNP) {
		f->st.cnps++;
		a->sum.cnps++;
		if (f->st.cnps > 1) {
			uint64_t gap = c->ts >= f->last_cnp_ts ? c->ts - f->last_cnp_ts : 0;

			if (f->st.cnps == 2 || gap < f->st.cnp_min_gap_ns)
				f->st.cnp_min_gap_ns = gap;
		}
		f->last_cnp_ts = c->ts;
		c->res->events |= ROCE_EV_CNP;
		if (a->cfg.on_anomaly) {
			an_init(&an, ROCE_AN_CNP, c->frame, c->ts, f);
			snprintf(an.detail, sizeof(an.detail), "congestion notification to QP 0x%06x",
				pkt->bth.dqpn & 0xffffffu);
			an_emit(a, &an);
		}
		return;
	}
	learn_pmtu(a, f, pkt);
	if (op->flags & ROCE_F_REQ) {
		f->st.is_request = true;
		req_process(c, f);
		/* a message ends with LAST/ONLY; a LAST seen again is not a new message */
		if ((op->flags & ROCE_F_LAST) && !(c->res->events & ROCE_EV_DUPLICATE))
			f->st.messages++;
	} else {
		resp_process(c, f);
	}
}

/*
 * Field by field: a memset() or a zero compound literal of the struct
 * compiles to "rep stos" here, whose start-up cost was a fifth of the
 * analyzer's time per frame; these stores are a handful of vector moves.
 */
static inline void frame_result_clear(struct roce_frame_result *r, uint32_t findings)
{
	r->events = 0;
	r->findings = findings;
	r->expected_psn = 0;
	r->lost_psns = 0;
	r->retx_cause = ROCE_RETX_NONE;
	r->aeth_syndrome = 0;
	r->rtt_ns = 0;
	r->read_ns = 0;
	r->ref_frame = 0;
	r->recovery_ns = 0;
	r->storm_mask = 0;
	for (unsigned i = 0; i < 8; i++)
		r->pause_ns[i] = 0;
}

void roce_analyzer_process(roce_analyzer_t *a, const struct roce_pkt *pkt, int status,
	uint64_t ts_ns, uint64_t frame_no, struct roce_frame_result *res)
{
	struct roce_frame_result tmp;
	struct an_ctx c;

	if (!res)
		res = &tmp;
	frame_result_clear(res, pkt->findings);
	a->finished = false;
	a->tick++;
	if (frame_no > a->last_frame)
		a->last_frame = frame_no;
	c.a = a;
	c.pkt = pkt;
	c.ts = ts_ns;
	c.frame = frame_no;
	c.res = res;

	a->sum.frames++;
	a->sum.bytes += pkt->wirelen;
	if (a->sum.frames == 1 || ts_ns < a->sum.first_ts_ns)
		a->sum.first_ts_ns = ts_ns;
	if (ts_ns > a->sum.last_ts_ns)
		a->sum.last_ts_ns = ts_ns;
	if (status == ROCE_E_NOT_ROCE || status == ROCE_E_LINKTYPE || status == ROCE_E_INVAL)
		return;

	if (pkt->findings & ROCE_FIND_MALFORMED_MASK) {
		a->sum.malformed++;
		res->events |= ROCE_EV_MALFORMED;
	}
	if (pkt->findings)
		for (unsigned b = 0; b < ROCE_FIND_COUNT; b++)
			if (pkt->findings & (1u << b))
				a->sum.findings[b]++;

	switch (pkt->kind) {
	case ROCE_KIND_ROCE:
		roce_process(&c, status);
		break;
	case ROCE_KIND_PFC:
	case ROCE_KIND_PAUSE:
		if (pkt->findings & ROCE_FIND_MALFORMED_MASK)
			malformed_report(&c, NULL);
		if (status == ROCE_OK || status == ROCE_E_MALFORMED)
			pfc_process(&c);
		break;
	default:
		if (pkt->findings & ROCE_FIND_MALFORMED_MASK)
			malformed_report(&c, NULL);
		break;
	}
}

/* ------------------------------------------------------------------ end */

void roce_analyzer_finish(roce_analyzer_t *a)
{
	uint64_t total;

	if (a->finished)
		return;
	a->finished = true;
	total = a->evicted_unrec;
	for (uint32_t i = 0; i < a->flows.n; i++) {
		struct an_flow *f = (struct an_flow *)a->flows.dense[i];
		uint64_t n;

		if (!f->req)
			continue;
		n = req_unrecovered(f->req);
		f->st.unrecovered_psns = n;
		total += n;
		if (n && a->cfg.on_anomaly) {
			struct roce_anomaly an;

			/* reported at the end of the capture: last frame number seen */
			an_init(&an, ROCE_AN_UNRECOVERED, a->last_frame, a->sum.last_ts_ns, f);
			an.count = n;
			if (f->req->nholes) {
				an.has_psn = true;
				an.psn = f->req->holes[0].start;
			}
			snprintf(an.detail, sizeof(an.detail),
				"%llu PSN%s never seen (%u hole%s left)", (unsigned long long)n,
				n == 1 ? "" : "s", f->req->nholes, f->req->nholes == 1 ? "" : "s");
			an_emit(a, &an);
		}
	}
	a->sum.unrecovered_psns = total;
	for (uint32_t i = 0; i < a->pfc.n; i++) {
		struct an_pfc *e = (struct an_pfc *)a->pfc.dense[i];

		if (e->paused)
			pfc_close(a, e, e->deadline, a->last_frame, a->sum.last_ts_ns, NULL);
	}
}

void roce_analyzer_summary(const roce_analyzer_t *a, struct roce_summary *out)
{
	*out = a->sum;
	out->flows_active = a->flows.n;
	if (!a->cfg.pmtu)
		out->pmtu = a->pmtu_learned;
}

/* ------------------------------------------------------------ iteration */

static int cmp_entry(const void *x, const void *y)
{
	const struct an_entry *const *p = x, *const *q = y;

	return (*p)->seq < (*q)->seq ? -1 : (*p)->seq > (*q)->seq;
}

/* Live entries in creation (first-seen) order; *tofree must be freed. */
static struct an_entry **sorted(const struct an_table *t, struct an_entry ***tofree)
{
	struct an_entry **v;

	*tofree = NULL;
	if (!t->n)
		return t->dense;
	v = malloc(t->n * sizeof(*v));
	if (!v)
		return t->dense;        /* no memory: unsorted but complete */
	memcpy(v, t->dense, t->n * sizeof(*v));
	qsort(v, t->n, sizeof(*v), cmp_entry);
	*tofree = v;
	return v;
}

void roce_analyzer_foreach_flow(const roce_analyzer_t *a, roce_flow_cb cb, void *user)
{
	struct an_entry **tofree, **v = sorted(&a->flows, &tofree);
	uint32_t n = a->flows.n;

	for (uint32_t i = 0; i < n; i++) {
		const struct an_flow *f = (const struct an_flow *)v[i];
		struct roce_flow_stats st = f->st;

		if (!f->peer)
			st.has_peer = false;
		dist_export(&f->rtt, &st.rtt);
		dist_export(&f->read_first, &st.read_first);
		dist_export(&f->read_last, &st.read_last);
		dist_export(&f->nak_response, &st.nak_response);
		dist_export(&f->recovery, &st.recovery);
		if (cb(user, &st))
			break;
	}
	free(tofree);
}

void roce_analyzer_foreach_pfc(const roce_analyzer_t *a, roce_pfc_cb cb, void *user)
{
	struct an_entry **tofree, **v = sorted(&a->pfc, &tofree);
	uint32_t n = a->pfc.n;

	for (uint32_t i = 0; i < n; i++) {
		const struct an_pfc *e = (const struct an_pfc *)v[i];

		if (cb(user, &e->st))
			break;
	}
	free(tofree);
}
