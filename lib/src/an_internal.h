/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * an_internal.h - the analyzer's private state (streams, request state,
 * PFC entries, tables, distributions) and the functions its files share.
 * Not installed; every symbol here has hidden visibility (no ROCE_API).
 *
 *   analyzer.c    create/destroy, per-frame dispatch, stream lookup and
 *                 eviction, time advance, a stream's holes
 *   an_export.c   memory accounting, finish, summary, stream and PFC
 *                 iteration
 *   an_request.c  request state machine: request PSN sequencing, ACK/READ
 *                 rings (an_ring.h), go-back-N, gaps, the in-order request
 *                 path
 *   an_response.c its response side: AETH/NAK, READ responses, response-side
 *                 sequencing, pairing (with an_request.c the only writer of
 *                 struct an_req and struct an_rsp)
 *   an_holes.c    a stream's PSN holes (struct an_holeset)
 *   an_reqerr.c   the request state's damaged-traffic block (struct an_req_err)
 *   an_pfc.c      PFC / PAUSE entries and pause intervals
 *   an_pair.c     request/response pairing index
 *   an_table.c    open-addressing hash tables and their dense arrays
 *   an_pool.c     fixed-size record pools (streams, request state, ...)
 *   an_event.c    anomaly records and their delivery, observer calls,
 *                 event-counter blocks (AN_COUNT)
 *   an_dist.c     latency distributions
 *   an_copy.c     capture copies: a frame the capture carried twice, told from
 *                 a resend (roce_process(), off the in-order paths)
 *   an_predict.c  header prediction: the next in-order request frame of the
 *                 stream of an earlier one, and its responder's in-order
 *                 ACK, analysed without decoding and lookup
 *                 (roce_analyzer_decode_process())
 */
#ifndef ROCE_AN_INTERNAL_H
#define ROCE_AN_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <roce/analyzer.h>
#include <roce/buf.h>
#include <roce/opcode.h>
#include <roce/pkt.h>

#define AN_HOLES           16
#define AN_ACK_RING        64
#define AN_READ_RING       16
#define AN_ACK_FIRST       1    /* entries of the first rings (records of pools ack1, rd1) */
#define AN_READ_FIRST      1
/* i modulo a ring's capacity: the AckReq and READ rings' capacities are powers of two
 * (AN_*_FIRST, doubled up to AN_*_RING), so a mask, not a division */
#define AN_RING_AT(i, cap) ((unsigned)(i) & ((unsigned)(cap) - 1u))

#define AN_LINE 64

/*
 * Hints to load p's cache line, to read (AN_PREFETCH) or to write
 * (AN_PREFETCH_W); no effect on the result, none without GCC/Clang.
 */
#if defined(__GNUC__) || defined(__clang__)
#define AN_PREFETCH(p) __builtin_prefetch(p)
#define AN_PREFETCH_W(p) __builtin_prefetch((p), 1)
/*
 * In a function whose only effect is AN_PREFETCH(): GCC counts a prefetch as
 * no side effect, so it takes such a function for a pure one and, with LTO,
 * drops every call whose result is unused (the CLI's roce_analyzer_prefetch()
 * calls were gone from the LTO build).  An empty volatile asm is an effect.
 */
#define AN_PREFETCH_KEEP() __asm__ volatile("")
#else
#define AN_PREFETCH(p) ((void)(p))
#define AN_PREFETCH_W(p) ((void)(p))
#define AN_PREFETCH_KEEP() ((void)0)
#endif

/* ------------------------------------------------------------------ pools */

/*
 * Shared 2 MiB chunks (transparent huge pages on Linux) from which the pools
 * carve their blocks below 2 MiB: the first streams of a run then touch one
 * huge page instead of a few hundred 4 KiB pages of a dozen small blocks
 * (on a virtual machine each new 4 KiB page costs microseconds).
 */
struct an_arena {
	char *cur, *end;        /* unused part of the newest chunk */
	void *chunks;           /* every chunk, linked through its first word */
	void *freed;            /* table arrays given back, for the next blocks and arrays */
	uint64_t bytes;         /* mapped bytes of all chunks */
	uint64_t given;         /* bytes handed out (pool blocks, table arrays) */
	uint64_t dead;          /* bytes of those not handed out again */
};

/* Free every chunk (the pools that used it are freed first). */
void an_arena_free(struct an_arena *ar);

/* Records of one size: blocks carved by a bump pointer, a free list for reuse. */
struct an_pool {
	struct an_arena *arena; /* blocks below 2 MiB come from there (NULL: own blocks) */
	uint32_t size;          /* record bytes (rounded up to the alignment) */
	void *free;             /* given-back records, linked through their first word */
	char *cur, *end;        /* unused part of the newest block */
	bool zeroed;            /* that block came zeroed (mmap): no memset() */
	void *blocks;           /* every block, linked (freed at destroy) */
	size_t next_block;      /* smallest block: room for at least 4 records */
	uint64_t live;          /* records handed out and not given back */
	bool closing;           /* an_pool_free() follows: an_pool_put() does nothing */
	uint64_t block_bytes;   /* bytes of all blocks */
};

void an_pool_init(struct an_pool *p, size_t size, size_t align);
/* A zeroed record; NULL when out of memory (an_pool_get() when the record needs work). */
void *an_pool_get_slow(struct an_pool *p);
/* The same, not cleared (a record given back keeps its old bytes): for a caller that sets
 * every member. */
void *an_pool_take(struct an_pool *p);

/* A zeroed record; NULL when out of memory.  Inline while the newest block, zeroed by the
 * kernel or the arena, has room (most of a new stream's records: no call each). */
static inline void *an_pool_get(struct an_pool *p)
{
	if (!p->free && p->zeroed && (size_t)(p->end - p->cur) >= p->size) {
		char *o = p->cur;

		p->cur += p->size;
		p->live++;
		/* the next record's lines, for writing: new memory, long out of every cache
		 * since the kernel cleared it (no fault: prefetches never fault) */
		AN_PREFETCH_W(o + p->size);
		AN_PREFETCH_W(o + 2 * p->size - 1);
		return o;
	}
	return an_pool_get_slow(p);
}
/* Give back o (NULL: nothing). */
void an_pool_put(struct an_pool *p, void *o);
void an_pool_free(struct an_pool *p);
/* Zeroed memory for a large array (mmap()ed and prefaulted from 64 KiB on
 * Linux, calloc() below); an_zfree() needs the same n. */
void *an_zalloc(size_t n);
void an_zfree(void *p, size_t n);
/* Bytes an_zalloc(n) maps beyond n (from 2 MiB: whole huge pages), for the memory totals. */
size_t an_zalloc_pad(size_t n);
/* The same, arrays of 64 KiB up to 2 MiB taken from the arena ar (NULL: none):
 * the tables' slot arrays as they double.  An array given back stays in the
 * arena, which hands its memory out again (cleared) for the next pool blocks
 * and arrays: memory already touched, not new pages. */
void *an_zalloc_in(struct an_arena *ar, size_t n);
void an_zfree_in(struct an_arena *ar, void *p, size_t n);
/* Advise the 2 MiB-aligned part of [p, p + n) as transparent huge pages (Linux). */
void an_advise_huge(void *p, size_t n);
/* n bytes of address space, not backed until populated (advised as huge pages; Linux; NULL
 * elsewhere or without memory): an array that grows in place (a table's dense array). */
void *an_map_reserve(size_t n);
/* Back bytes [from, to) of a reserved mapping p, zeroed, in one call (no fault per page). */
void an_map_populate(void *p, size_t from, size_t to);
void an_map_release(void *p, size_t n);

/* ---------------------------------------------------------- distributions */

/*
 * A distribution keeps count, min and max; while the samples take at most
 * two values those are the values, and the count of samples at min is kept
 * with the count, so the histogram is allocated with the third value
 * (never for a constant latency, nor for one of two values: most of a
 * long-lived many-QP capture's, docs/perf/many-qps-memory.md).  With a histogram,
 * its bucket range is kept here, next to the count, not in the array: a
 * sample's bucket is then one load from the distribution.
 */
struct an_dist {
	/* the count in bits 20-63 (AN_DIST_ONE); bits 0-19: with a histogram its
	 * bucket range [lo, hi) (bits 0-9, 10-19), else the samples at min when
	 * min < max (at most 2^20 - 1: one more makes a histogram), 0 when equal */
	uint64_t cw;
	uint64_t min, max;
	/* NULL while the samples take at most two values; else the counts of
	 * buckets lo..hi-1 */
	uint64_t *hist;
};

#define AN_DIST_ONE ((uint64_t)1 << 20)

/* d's sample count. */
static inline uint64_t an_dist_count(const struct an_dist *d)
{
	return d->cw >> 20;
}

struct roce_analyzer;
/* Add v; the analyzer's hist_bytes follows the histogram's growth. */
void an_dist_add(struct roce_analyzer *a, struct an_dist *d, uint64_t v);
void an_dist_export(const struct an_dist *d, struct roce_dist *out);
/* Release the histogram; the analyzer's hist_bytes drops by its size. */
void an_dist_free(struct roce_analyzer *a, struct an_dist *d);

/* ------------------------------------------------------------- hash table */

/*
 * A table entry: the first member of a stream, PFC entry or pairing host pair.
 * Its hash lives in its slot (and is recomputed by the owner to remove it),
 * its place in the dense array is found from seq (the array is in creation
 * order), and how recently it was active is the owner's (an_table_victim()).
 */
struct an_entry {
	uint64_t seq;           /* creation order */
};

/*
 * A slot keeps the entry's hash next to the pointer: probes compare hashes
 * without touching the entries (a cache miss each with many streams), and
 * growing rehashes from the slots alone.  12 bytes, packed on 4-byte
 * alignment (no padding after the hash: a quarter less table per stream);
 * x86 and ARMv8 load the unaligned pointer with one instruction.
 */
#if defined(__GNUC__) || defined(__clang__)
#define AN_SLOT_PACKED __attribute__((packed, aligned(4)))
#else
#define AN_SLOT_PACKED
#endif
struct AN_SLOT_PACKED an_slot {
	struct an_entry *e;     /* NULL: empty */
	uint32_t hash;
};

/*
 * The dense array lists the live entries in creation order (seq ascending):
 * iteration, the idle sweep and the walks over every entry read it instead
 * of the entries.  A removed entry leaves a gap that keeps its seq (so that
 * removals find their place by a search on seq); the gaps go when the array
 * is full (compacted in place, or grown and compacted).  len: used elements
 * (live and gaps; the last one is live or len is 0).
 */
struct an_table {
	struct an_arena *arena; /* the slot arrays' (an_zalloc_in()); NULL: none */
	struct an_slot *slots;
	uint32_t mask;
	uint32_t max_size;      /* slots at the cap: a power of two >= 2 * cap */
	uint64_t *dense;        /* an entry's address, or a gap: seq << 1 | 1 */
	uint32_t n, cap;        /* live entries, the cap */
	uint32_t len, dense_cap;
	uint32_t cursor;        /* a walker's next index (idle sweep), < len or 0 */
	/* elements of the address space reserved for dense (an_map_reserve(): it grows in
	 * place, populated in steps); 0: dense is from malloc() */
	uint32_t dense_res;
};

/* The live entry at dense index i, NULL for a gap. */
static inline struct an_entry *an_dense_at(const struct an_table *t, uint32_t i)
{
	uint64_t v = t->dense[i];

	return v & 1 ? NULL : (struct an_entry *)(uintptr_t)v;
}

int an_table_init(struct an_table *t, uint32_t cap);
void an_table_free(struct an_table *t);
/* Room for one more entry (0), or none (-1: no memory). */
int an_table_reserve(struct an_table *t);
/* an_table_reserve() inline while the insert stays below half load with room in the dense
 * array (every insert but those that grow: no call per new stream). */
static inline int an_table_room(struct an_table *t)
{
	if (2u * (t->n + 1) <= t->mask + 1 && t->len < t->dense_cap)
		return 0;
	return an_table_reserve(t);
}
/* e (its seq above every live entry's) with its key's hash h; after an_table_reserve(). */
void an_table_insert(struct an_table *t, struct an_entry *e, uint32_t h);
/* e, inserted with hash h, leaves the table (its dense index becomes a gap). */
void an_table_remove(struct an_table *t, struct an_entry *e, uint32_t h);
/* e, inserted with hash h, under a new key with hash nh and a new seq (above every live
 * entry's): an_table_remove(), an_table_reserve() and an_table_insert() in one step, cheaper
 * for the newest entry; -1: no room for it (it is out of the table then). */
int an_table_rekey(struct an_table *t, struct an_entry *e, uint32_t h, uint32_t nh, uint64_t seq);
/* The entry with the least 64-bit value at byte offset age_off (its last activity)
 * among the first occupied slots from h's home slot. */
struct an_entry *an_table_victim(const struct an_table *t, uint32_t h, size_t age_off);

/* ---------------------------------------------------------------- streams */

struct an_hole {
	uint32_t start, len;    /* missing PSNs [start, start + len) mod 2^24 */
};

struct an_ackent {
	uint32_t psn;
	bool own;               /* a READ or atomic: only its own response times it */
	uint64_t ts, frame;
};

struct an_readent {
	uint32_t psn : 24;
	uint32_t first_done : 1, last_done : 1, live : 1;   /* live: the slot holds a READ */
	uint32_t resp_seen : 1; /* a response stream carried one of its responses */
	uint32_t n, nmax;       /* n == nmax once N is known */
	uint32_t len;           /* RETH DMA length (pins N once the PMTU is known) */
	uint64_t ts, frame;
};

/* Missing PSN ranges, oldest first, growing up to AN_HOLES; then the oldest is dropped
 * (counted: 48 bits, 2^24 PSNs per dropped hole, so 2^24 dropped holes at the least). */
struct an_holeset {
	struct an_hole *holes;  /* cap entries */
	uint64_t dropped_unrec : 48;
	uint8_t nholes, cap;
};

struct an_pending {
	uint32_t psn;
	uint32_t timer_us : 31; /* RNR (at most 491,520 us) */
	uint32_t valid : 1;
	uint64_t ts, frame;
};

/* Request PSNs behind a stream's first PSN: the lowest one seen (lo) and, between
 * lo and the first PSN, those still not seen (unseen, counted nowhere). */
struct an_pre {
	uint32_t lo;
	struct an_holeset unseen;
};

/*
 * AckReq requests pushed out of the full AckReq ring (AN_ACK_RING entries),
 * all older than the ring's: how many, the PSN and time of the oldest and the
 * newest, the newest's frame, and the sum of their times after the oldest's;
 * the ACK that covers the newest completes them all (an_ring.h).  n == 0: none;
 * while n > 0 the ring is full.
 */
struct an_ackold {
	uint64_t oldest_ts, newest_ts, newest_frame, sum_dt;
	uint32_t n, oldest_psn, newest_psn;
};

/*
 * What a request stream needs only after a NAK, an RNR NAK or a go-back-N
 * resend, when PSNs arrive behind its first one (damaged traffic), or while
 * more AckReq requests wait for their ACK than the ring holds: allocated with
 * the first such event, so that ordinary request state fits two cache lines.
 */
struct an_req_err {
	uint64_t gbn_start_ts, gbn_ref_frame;   /* go-back-N run */
	struct an_pending nak, rnr;
	/* PSNs behind the stream's first one (its first frames damaged, or the capture
	 * started inside a go-back): allocated with the first such request */
	struct an_pre *pre;
	struct an_ackold ackold;
	/* the responder acknowledged up to acked_ahead (an ACK, response or NAK captured
	 * before the requests it answers): requests up to it get no AckReq entry (an_ring.h
	 * ack_acked_ahead()) */
	uint32_t acked_ahead;
	bool ahead;
};

enum an_lat_kind {
	AN_LAT_RTT = 0,         /* AckReq request -> first ACK covering it */
	AN_LAT_READ_FIRST,      /* READ request -> first response */
	AN_LAT_READ_LAST,       /* READ request -> last response */
	AN_LAT_NAK_RESPONSE,    /* NAK -> first retransmission */
	AN_LAT_RECOVERY,        /* NAK/timeout -> PSN back past the old newest */
	AN_LAT_COUNT
};

/*
 * Request-side sequencing state, allocated with the stream's first request:
 * 96 bytes.  What every request frame reads or writes comes first (one
 * cache line).  A paired stream's is the first part of a struct an_req_lat
 * (dists set), which holds its first ring entries and its ACK and READ
 * latency distributions too.
 */
struct an_req {
	bool init : 1, off : 1;
	bool gbn_active : 1;    /* go-back-N resend run in progress */
	bool dists : 1;         /* the record is a struct an_req_lat (not sequence state) */
	bool udqp_set : 1;      /* src_qp holds the UD stream's first DETH source QP */
	/* a fatal NAK (invalid request, remote access or operational error) ended the
	 * connection: a request that does not continue its sequence starts a new one */
	bool fatal : 1;
	uint8_t gbn_cause;      /* enum roce_retx_cause of the run */
	/* AckReq ring (oldest at head) and READ ring, growing up to their caps (<= 64) */
	uint8_t ack_head, ack_n, ack_cap;
	uint8_t rd_next, rd_cap;
	uint32_t next, pnext;   /* pnext: PSN expected after the previous packet (== next outside resends) */
	uint32_t slack, slack_read_psn, prev, first_psn;
	uint32_t gbn_newest;    /* go-back-N */
	uint32_t src_qp;        /* (struct roce_flow_stats.src_qp) */
	struct an_holeset hs;
	uint64_t messages;      /* (struct roce_flow_stats.messages) */
	struct an_ackent *ack;
	struct an_readent *rd;
	struct an_req_err *err; /* NULL until the first NAK / RNR / go-back / PSN behind the first */
	/* the stream's entry in the pairing index (an_pair.c, its only writer) while it
	 * is an unpaired request stream; NULL otherwise */
	struct an_pnode *pn;
};

/*
 * The request state of a paired stream, its first AckReq and READ ring
 * entries and its ACK and READ latency distributions (the response stream's
 * samples): 256 bytes, a pool record on a cache-line boundary.  Line 1 holds
 * the ring pointers, which every request that waits for a response reads,
 * and the READ ring's first entry; line 2 the AckReq ring's first entry and
 * the ACK round trip's distribution, line 3 the two READ latencies.  A
 * response's samples go to its peer's record, whose lines 0-2 the request, a
 * frame or a few before, left in the cache, so an ACK costs no line of its
 * own and a READ response one.  (In a block of their own, 104 bytes reached
 * through the stream record, the distributions were two thirds of the
 * response path's cache misses with 100,000 long-lived streams; the first
 * ring entries were pool records of their own, docs/perf/many-qps-memory.md.)  The
 * rings use the entries in line while they hold one (ack_cap / rd_cap ==
 * AN_ACK_FIRST / AN_READ_FIRST: r->ack / r->rd point here) and move to the
 * heap when they grow, as an unpaired stream's pool records do.  A stream's
 * request state becomes one when the stream is paired (an_req_pair()): an
 * unpaired stream's samples have nowhere to come from, and one-way captures
 * keep the 96-byte record.
 */
struct an_req_lat {
	struct an_req r;
	struct an_readent rd1[AN_READ_FIRST];   /* (an_ring.h) */
	struct an_ackent ack1[AN_ACK_FIRST];
	uint64_t spare;
	struct an_dist d[AN_LAT_NAK_RESPONSE];  /* (an_dist.c, their only writer) */
};

/* r's distributions, NULL when r is not a struct an_req_lat. */
static inline struct an_dist *an_req_dists(struct an_req *r)
{
	return r->dists ? ((struct an_req_lat *)r)->d : NULL;
}

/*
 * Response-side sequencing (ACK / NAK / READ response PSNs), allocated with
 * the stream's first trusted response-type frame.  newest: the highest PSN
 * the responder has shown it sent; holes: READ response PSNs it skipped.
 */
struct an_rsp {
	uint32_t newest : 24;   /* a PSN */
	uint32_t init : 1;
	/* unpaired: the stream's last look for its request stream found no candidate on its
	 * host pair, when the index had opened pair_seen (mod 64) host pairs (an_pairidx
	 * .opened): it looks again at its next frame after another one opens */
	uint32_t pair_wait : 1;
	uint32_t pair_seen : 6;
	/* (struct roce_flow_stats.acks) its low 32 bits: each wrap carries 2^32 into
	 * the event-counter block's acks, an_flow_export() adds both (32 bytes) */
	uint32_t acks;
	struct an_holeset hs;
	/* the PSN sets below, allocated with the first such PSN (damaged traffic only) */
	struct an_rsp_x *x;
};

/* A response stream's passed PSNs that are not holes (yet).  unseen: PSNs the
 * responder passed without a frame of the stream carrying them whose READ may
 * be unknown (request PSNs not seen on the paired request stream): a READ
 * response carrying one later is out of order, not a duplicate.  pend: passed
 * PSNs between a known READ's smallest and largest N while its N was unknown:
 * holes (lost) once N covers them, out of order (and lost) when a READ response
 * carries one (an_response.c). */
struct an_rsp_x {
	struct an_holeset unseen, pend;
};

/*
 * What every stream stores of its struct roce_flow_stats: the same names,
 * less what roce_analyzer_foreach_flow() computes (peer key, distributions)
 * and what only some streams have (messages and the UD source QP: struct
 * an_req; acks: struct an_rsp; cnps: struct an_lat_x), so a stream costs
 * 144 bytes.  an_flow_export() fills the public struct.  Hot fields first.
 * Of the counters, ecn_capable counts ordinary traffic and is kept here;
 * the event counters (gaps, NAKs, ...), zero for most streams, live in a
 * block allocated with the stream's first event (struct an_flow.ctr).
 * frames and ecn_capable keep their low 32 bits here: each wrap carries
 * 2^32 into the event-counter block (an_flow_carry(): struct an_ctr's
 * frames_hi, struct roce_counters.ecn_capable), an_flow_export() adds both,
 * as it does for struct an_rsp.acks.
 */
struct an_fstat {
	struct roce_flow_key key;
	/* the PSN | opcode << 24 of the stream's newest frame (a CNP's opcode only, a
	 * dropped frame's opcode as 0xff; capture copies not: an_copy.c): the word of its
	 * entry in the recent frames, one store for both (no bit-field merge) */
	uint32_t last;
	uint32_t first_psn : 24;
	uint32_t transport : 7; /* enum roce_transport */
	bool is_request : 1;
	uint16_t pkey;
	uint16_t pmtu;          /* 0 or 256..4096 */
	uint16_t unpaired_frames;   /* (wraps: only its value mod AN_PAIR_EVERY matters past 4) */
	/* RoCE v2: the UDP source port of the stream's first frame (kept if a later frame
	 * has another); 0: none (RoCE v1).  The pairing's tie-break (an_pair.c consider()). */
	uint16_t sport;
	uint32_t frames;        /* (low 32 bits: an_flow_frames()) */
	uint32_t ecn_capable;   /* (low 32 bits: AN_COUNT_HOT()) */
	uint64_t bytes, last_ts_ns, payload_bytes;
	uint64_t first_frame;
	uint64_t first_ts_ns;
};

/*
 * A stream: 144 bytes, a pool record on a 16-byte boundary (records start
 * at any quarter of a cache line; two records are 4.5 lines, not 5 as at
 * 160 bytes).  The table entry, the request-state, peer and response-state
 * pointers, the key and what every frame updates (st up to payload_bytes)
 * come first, in the record's first 128 bytes: with many streams and the
 * frames streaming through the cache, each frame costs two or three lines
 * of stream state.  flow_new() writes the record up to st.first_ts_ns, so a
 * new stream's lines are first touched there, none later by a read of the
 * response path (rsp after st: a quarter of the records had their third
 * line first read by it, docs/perf/many-qps-newstream.md).  No first-seen
 * links (the table's dense array is in creation order), no hash
 * (recomputed from the key to remove the stream) and no activity tick (the
 * least recently active stream is the one with the oldest st.last_ts_ns).
 * The NAK-response / recovery latencies and CNPs (struct an_lat_x) hang off
 * the event-counter block (struct an_ctr.lat_x): both are rare, one pointer
 * here serves them.
 */
struct an_flow {
	struct an_entry ent;    /* first member */
	struct an_req *req;
	struct an_flow *peer;
	struct an_rsp *rsp;     /* response-side sequencing, NULL until needed */
	struct an_fstat st;
	/* event counters and the struct an_lat_x pointer (struct an_ctr), NULL until the
	 * first event (AN_COUNT), counter wrap or an_lat_x_get() */
	struct roce_counters *ctr;
};

#define AN_FLOW_ALIGN 16

/* The distributions of damaged traffic (NAK response, recovery) and the CNP
 * count and timing: allocated with the first such sample or CNP. */
struct an_lat_x {
	struct an_dist d[AN_LAT_COUNT - AN_LAT_NAK_RESPONSE];
	uint64_t cnps;                  /* (struct roce_flow_stats.cnps) */
	uint64_t last_cnp_ts;
	uint64_t cnp_min_gap_ns;        /* shortest inter-CNP gap (0 if < 2 CNPs) */
};

/* f's struct an_lat_x, allocated on first use; NULL when out of memory. */
struct an_lat_x *an_lat_x_get(struct roce_analyzer *a, struct an_flow *f);
/* f's distribution k, NULL while it has none (no request state, no struct an_lat_x). */
const struct an_dist *an_lat_dist(const struct an_flow *f, enum an_lat_kind k);

/* Add a sample to f's distribution k: those of ordinary traffic (k < AN_LAT_NAK_RESPONSE)
 * need f's request state (none: the sample is dropped), the others allocate f->lat_x. */
void an_lat_add(struct roce_analyzer *a, struct an_flow *f, enum an_lat_kind k, uint64_t v);
/* an_lat_add() of an ACK or READ sample (k < AN_LAT_NAK_RESPONSE) to the stream whose request
 * state is r (the response path holds r). */
void an_lat_req_add(struct roce_analyzer *a, struct an_req *r, enum an_lat_kind k, uint64_t v);
/* Release the histograms of the distributions d (struct an_req_lat, an_req_free()). */
void an_lat_req_free(struct roce_analyzer *a, struct an_dist *d);
/* Release f's struct an_lat_x and its histograms. */
void an_lat_free(struct roce_analyzer *a, struct an_flow *f);

_Static_assert(offsetof(struct an_flow, st) + offsetof(struct an_fstat, payload_bytes) +
	sizeof(uint64_t) <= 2 * AN_LINE, "stream hot fields past the record's first 128 bytes");
_Static_assert(sizeof(struct an_flow) % AN_FLOW_ALIGN == 0, "stream record size");
_Static_assert(offsetof(struct an_req, hs) <= AN_LINE,
	"request hot fields span more than one cache line");
_Static_assert(sizeof(struct an_req) <= 96, "request state past 96 bytes");
_Static_assert(offsetof(struct an_req_lat, rd1) == 96 &&
	offsetof(struct an_req_lat, ack1) == 2 * AN_LINE &&
	offsetof(struct an_req_lat, d[AN_LAT_RTT]) == 2 * AN_LINE + 32 &&
	offsetof(struct an_req_lat, d[AN_LAT_READ_FIRST]) == 3 * AN_LINE &&
	sizeof(struct an_req_lat) == 4 * AN_LINE,
	"lines 1-3 of a paired request record: READ entry; AckReq entry, RTT; READ latencies");
_Static_assert(sizeof(struct an_flow) == 144, "stream record past 144 bytes");
_Static_assert(sizeof(struct an_holeset) == 16, "hole set past 16 bytes");
#if defined(__GNUC__) || defined(__clang__)
_Static_assert(sizeof(struct an_slot) == sizeof(void *) + 4, "table slot padded");
#endif
_Static_assert(sizeof(struct an_readent) == 32, "READ ring entry past 32 bytes");
_Static_assert(sizeof(struct an_rsp) == 32, "response state past 32 bytes");
_Static_assert(AN_ACK_RING <= UINT8_MAX && AN_READ_RING <= UINT8_MAX, "ring indexes are bytes");

/* f has a request or response hole array (those stay until f is freed). */
static inline bool an_flow_holed(const struct an_flow *f)
{
	return (f->req && f->req->hs.cap) || (f->rsp && f->rsp->hs.cap);
}

/* Heap bytes of the growable arrays (holes, rings past their pooled first size) of
 * request / response state (the NAK / go-back blocks: roce_analyzer.err_bytes). */
static inline uint64_t an_req_var_bytes(const struct an_req *r)
{
	if (!r)
		return 0;
	return r->hs.cap * sizeof(struct an_hole) +
		(r->ack_cap > AN_ACK_FIRST ? r->ack_cap * sizeof(struct an_ackent) : 0) +
		(r->rd_cap > AN_READ_FIRST ? r->rd_cap * sizeof(struct an_readent) : 0) +
		(r->err && r->err->pre ? sizeof(*r->err->pre) +
			r->err->pre->unseen.cap * sizeof(struct an_hole) : 0);
}

static inline uint64_t an_rsp_var_bytes(const struct an_rsp *s)
{
	return s ? s->hs.cap * sizeof(struct an_hole) +
		(s->x ? sizeof(*s->x) + (s->x->unseen.cap + s->x->pend.cap) *
			sizeof(struct an_hole) : 0) : 0;
}

struct an_pfc {
	struct an_entry ent;
	uint32_t hash;          /* its slot's (to remove it) */
	uint64_t tick;          /* last activity (analyzer frame counter: an_table_victim()) */
	struct roce_pfc_stats st;
	uint64_t seq_first;
	bool paused, storm_flagged;
	uint64_t start, deadline;
	uint64_t start_frame;
	uint64_t newest;        /* time of the entry's newest frame (late frames: an_pfc.c) */
	uint64_t last_end;      /* end of the entry's last closed pause */
};

/* Pairing index (an_pair.c): unpaired request streams by host pair and PSN. */
struct an_pairidx {
	struct an_table hp;             /* struct an_hp: host pairs with candidates */
	struct an_pool hp_pool;         /* their records */
	struct an_pool pn_pool;         /* the indexed streams' entries (struct an_pnode) */
	struct an_pnode **bucket;       /* chains by (host pair, expected PSN bucket) */
	uint32_t bmask;
	uint32_t n;                     /* indexed streams in the buckets */
	uint64_t seq;                   /* host pairs created (their entries' seq) */
	/* host pairs that got a candidate when they had none (new, or emptied before) */
	uint32_t opened;
	struct an_hp *spare;            /* the last host pair left empty, kept (an_pair.c) */
	struct an_hp *last;             /* the host pair found or added last (NULL: none) */
};

/* The record pools (an_pool.c), one per kind. */
/* Histograms of 1 .. AN_HIST_POOLS octaves come from pools (an_dist.c), wider ones from the heap */
#define AN_HIST_POOLS 6

struct an_pools {
	struct an_pool flow, req, req_lat, rsp, lat_x, ctr;
	/* an unpaired request stream's first AckReq / READ rings (AN_ACK_FIRST, AN_READ_FIRST) */
	struct an_pool ack1, rd1;
	struct an_pool hist[AN_HIST_POOLS];     /* histogram arrays of 1, 2, ... octaves */
};

/*
 * Header prediction (an_predict.c): the Ethernet, IPv4, UDP and BTH bytes of
 * the last frame that went through the full path into a stream's in-order
 * request branch with the common layout and nothing to report, one entry per
 * stream in a small direct-mapped table (its slot from the destination
 * address and QP: pred_slot()); cur the entry of the last stream predicted or
 * learnt.  An entry is cleared when its stream is freed.
 */
#define AN_PRED_HDR 54          /* Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 */
#define AN_PRED_MISSES 8
#define AN_PRED_BACKOFF 1024
#define AN_PRED_SLOTS 256       /* (56-byte entries: 14 KiB) */

struct an_pred_ent {
	/* the header bytes that must match, as an_predict() loads them */
	uint64_t q[4];
	uint32_t d[2];
	struct an_flow *f;      /* NULL: empty */
	/* the one's complement sum of the learnt frame's IPv4 total length, ID and
	 * checksum words; its IPv4 header checksum was right */
	uint32_t csum3;
	bool csum_ok;
};

struct an_pred {
	struct an_flow *f;      /* NULL: nothing predicted; else cur->f */
	struct an_pred_ent *cur;
	struct an_flow *cand;   /* the stream roce_process() last took in order */
	bool off;               /* an_predict_enable(a, false): the full path only */
	uint64_t hits;          /* frames analysed by an_predict() (an_predict_hits()) */
	/* predictions missed in a row; after AN_PRED_MISSES, nothing is learnt for
	 * the next skip in-order frames (traffic that interleaves streams frame by
	 * frame pays a few instructions a frame, not a miss and a copy) */
	uint32_t miss, skip;
	struct an_pred_ent tab[AN_PRED_SLOTS];
};

/*
 * The stream-table hashes that roce_analyzer_prefetch_slot() computed for the
 * frames it was given, by the frame's address, the newest AN_HINTS of them:
 * flow_get() looks its frame's stream up under that hash first instead of hashing
 * the key again.  A hint, never trusted: a stream found under it has the frame's
 * key (the table compares keys), so it is the frame's stream whatever the hint
 * was; a frame not found under it gets its real hash, and a second lookup if that
 * differs (analyzer.c, flow_get()).  So an entry gone stale (the buffer reused for
 * another frame, the frame skipped) costs a lookup, not a result, and the table's
 * growth changes no hash.
 */
#define AN_HINTS 8u             /* a power of 2, above run_prefetch.h's ROCE_RUN_AHEAD */

struct an_hint {
	const uint8_t *frame;
	uint32_t h;
};

/*
 * The recent frames (an_copy.c): every analysed frame of a stream, copies
 * excepted, in arrival order, AN_COPY_RING of them (a power of two).  tag is
 * the low 32 bits of the stream's seq, bit 31 XORed with AN_COPY_NAK for a NAK,
 * bit 30 with AN_COPY_LATE for a late request (so the stream is its other 30
 * bits); word the frame's PSN | opcode << 24, a
 * NAK's PSN | AETH syndrome << 24 (an_copy_mark_nak(): its opcode an
 * ACKNOWLEDGE's), a dropped frame's 0xff << 24 (no analysed frame has opcode
 * 0xff; a NAK's syndrome may be 0xff: its mark tells it).
 */
#define AN_COPY_RING    4096u
/* XORed into an entry's tag: an ACKNOWLEDGE with a syndrome other than an ACK's */
#define AN_COPY_NAK     (1u << 31)
/* XORed into an entry's tag: a late request, the first of its PSN, that filled a gap
 * with no NAK before it and the stream's frame before its PSN less than a Local ACK
 * Timeout earlier (a frame reordered on the way, no resend: an_copy_late()) */
#define AN_COPY_LATE    (1u << 30)
/* the marks: the tag's other 30 bits say which stream an entry is of */
#define AN_COPY_MARKS   (AN_COPY_NAK | AN_COPY_LATE)

struct an_copy_ent {
	uint64_t ts;
	uint32_t word;
	uint32_t tag;
};

/* the byte offsets of the entries of copies[] (struct roce_analyzer.copy_pos) */
#define AN_COPY_MASK    ((uint64_t)AN_COPY_RING * sizeof(struct an_copy_ent) - 1)

struct roce_analyzer {
	struct roce_analyzer_config cfg;
	struct roce_summary sum;
	struct an_table flows, pfc;
	struct an_pools pool;
	struct an_arena arena;          /* the pools' smaller blocks */
	uint64_t hist_bytes;            /* histogram arrays (an_dist.c) */
	uint64_t var_bytes;             /* holes and rings, tracked only with max_memory */
	uint64_t err_bytes;             /* NAK / go-back blocks (struct an_req_err) */
	/* streams whose request or response state has a hole array: with none, no
	 * stream misses a PSN (holes_missing() needs one), so finish() and summary()
	 * skip their walk over every stream */
	uint32_t holed;
	struct an_pairidx pair;
	uint64_t tick;                  /* frames processed (PFC entries' activity) */
	uint64_t seq;                   /* streams and PFC entries created (ids) */
	uint64_t evicted_unrec;         /* unrecovered PSNs of evicted and expired streams */
	uint64_t now;                   /* newest frame time or roce_analyzer_advance() */
	bool want_an;                   /* someone listens to anomalies */
	unsigned nobs;
	bool obs_full;                  /* an on_frame reads all of the result */
	struct roce_analyzer_observer obs[ROCE_MAX_OBSERVERS];
	uint64_t last_frame;
	uint32_t pmtu_learned;
	bool finished;
	/* tests (an_inorder_enable()): no in-order shortcut, an_req_inorder() and
	 * an_resp_inorder() decline every frame, the general path takes it */
	bool inorder_off;
	/* roce_analyzer_set_discard_flag(): the caller's flag, never NULL (a zero
	 * of the library's when none); read by an_discard() */
	const volatile int *discard;
	uint32_t iface;                 /* roce_analyzer_set_interface(): PFC entries' key */
	struct an_pred pred;
	struct an_hint hint[AN_HINTS];  /* written by the prefetch calls */
	uint32_t hint_n;                /* hints written */
	/* the frames written to copies[] times sizeof(struct an_copy_ent): the next entry's
	 * byte offset in copies[] before AN_COPY_MASK (an_copy_note() adds no scaling) */
	uint64_t copy_pos;
	struct an_copy_ent copies[AN_COPY_RING];
};

/*
 * What every frame counts first, whatever it is: the analyzer's clock, its
 * activity tick, the newest frame number, the summary's frames, bytes and
 * first and last time.  The one writer of these for process_frame() and
 * an_predict().
 */
static inline __attribute__((always_inline)) void an_count_frame(struct roce_analyzer *a,
	uint64_t ts, uint64_t no, uint64_t wirelen)
{
	if (ts > a->now)
		a->now = ts;
	a->finished = false;
	a->tick++;
	if (no > a->last_frame)
		a->last_frame = no;
	a->sum.frames++;
	a->sum.bytes += wirelen;
	if (a->sum.frames == 1 || ts < a->sum.first_ts_ns)
		a->sum.first_ts_ns = ts;
	if (ts > a->sum.last_ts_ns)
		a->sum.last_ts_ns = ts;
}

/* Per-frame context. */
struct an_ctx {
	struct roce_analyzer *a;
	const struct roce_pkt *pkt;
	uint64_t ts, frame;
	struct roce_frame_result *res;
};

/* f's event counters, allocated with its first event; NULL when out of memory. */
struct roce_counters *an_flow_ctr(struct roce_analyzer *a, struct an_flow *f);

/* The event-counter block (a pool record; an_flow_ctr() returns &c): the counters of
 * struct roce_counters and those a stream's struct roce_flow_stats has past them. */
struct an_ctr {
	struct roce_counters c;
	uint64_t acked_unseen_psns;     /* (struct roce_flow_stats.acked_unseen_psns) */
	uint64_t capture_copies;        /* (struct roce_flow_stats.capture_copies) */
	uint64_t frames_hi;             /* the wraps of struct an_fstat.frames (2^32 each) */
	struct an_lat_x *lat_x;         /* NAK-response / recovery latencies, CNPs: when needed */
};

/* f's struct an_lat_x, NULL while it has none. */
static inline struct an_lat_x *an_flow_lat_x(const struct an_flow *f)
{
	return f->ctr ? ((const struct an_ctr *)f->ctr)->lat_x : NULL;
}

/* Carry a wrap of f's st.frames (ecn: of st.ecn_capable) into its event-counter block
 * (no memory: the 2^32 are lost for the stream, the run's totals keep them). */
void an_flow_carry(struct roce_analyzer *a, struct an_flow *f, bool ecn);

/* f's frames (struct roce_flow_stats.frames). */
static inline uint64_t an_flow_frames(const struct an_flow *f)
{
	return f->st.frames + (f->ctr ? ((const struct an_ctr *)f->ctr)->frames_hi : 0);
}

/* Count one frame of f (its st.frames). */
static inline void an_count_frame_of(struct roce_analyzer *a, struct an_flow *f)
{
	if (__builtin_expect(++f->st.frames == 0, 0))
		an_flow_carry(a, f, false);
}

/* an_acked.c: the responder acknowledged every request PSN of rf (request state r)
 * before upto; those still in r's holes were dropped by the capture point (counted,
 * ROCE_EV_ACKED_UNSEEN on c's frame, an acked_unseen anomaly). */
void an_req_acked(struct an_ctx *c, struct an_flow *rf, struct an_req *r, uint32_t upto);
/* an_acked.c: c's request frame of stream f (state r) opened a hole; the PSNs of it the
 * peer's responses acknowledged already are ACKed unseen (an_req_acked() on this frame). */
void an_req_gap_acked(struct an_ctx *c, struct an_flow *f, struct an_req *r);

/*
 * an_copy.c: a frame of stream f at ts (PSN | opcode << 24: word; 0xff << 24: dropped)
 * into the recent frames (every analysed frame of a stream, but the copies: their
 * an_copy_count() takes it back).
 */
static inline __attribute__((always_inline)) void an_copy_note(struct roce_analyzer *a,
	const struct an_flow *f, uint64_t ts, uint32_t word)
{
	uint64_t p = a->copy_pos;
	struct an_copy_ent *e = (struct an_copy_ent *)((char *)a->copies + (p & AN_COPY_MASK));

	a->copy_pos = p + sizeof(*e);
	e->ts = ts;
	e->word = word;
	e->tag = (uint32_t)f->ent.seq;
}

/* Mark the newest frame of the recent frames (c's, of stream f) as a NAK (AN_COPY_NAK) with
 * the AETH syndrome syn in its word for its opcode. */
static inline void an_copy_mark_nak(struct roce_analyzer *a, const struct an_flow *f, uint8_t syn)
{
	struct an_copy_ent *e = (struct an_copy_ent *)((char *)a->copies +
		((a->copy_pos - sizeof(*e)) & AN_COPY_MASK));

	e->word = (e->word & 0xffffffu) | (uint32_t)syn << 24;
	e->tag = (uint32_t)f->ent.seq ^ AN_COPY_NAK;
}

/*
 * an_copy.c: c's request frame of f (PSN p; r: f's request state; reliable: RC, XRC, RD)
 * filled a gap and is no retransmission (an_request.c): marked late (AN_COPY_LATE) in the
 * recent frames (a frame reordered on the way, which stops no copy of a reliable stream
 * only while the capture carries its peer: an_copy.c) on UC and UD, and on a reliable
 * transport when no NAK or RNR NAK at or before p is pending and a request of f before p
 * is less than a Local ACK Timeout older.
 */
void an_copy_late(struct an_ctx *c, const struct an_flow *f, const struct an_req *r, uint32_t p,
	bool reliable);

/*
 * an_copy.c: c's request, response or CNP frame of stream f (counted: f has had
 * st.frames frames, this one included; the newest of the recent frames) repeats an
 * earlier frame of f closely enough, with nothing between them that could have
 * made its sender resend it, to be the capture's copy of it
 * (struct roce_analyzer_config.copy_window_ns; prev_ts: f's newest frame time before
 * c's); no effect.  Inline: the common answer on the rare path (f's newest frame
 * before c's, copies too, older than the window: none of its recent frames is inside
 * it) costs no call; an_copy_find() searches the recent frames.
 */
bool an_copy_find(const struct an_ctx *c, const struct an_flow *f);

static inline bool an_copy_is(const struct an_ctx *c, const struct an_flow *f, uint64_t prev_ts)
{
	uint64_t win = c->a->cfg.copy_window_ns;

	if (!win || (c->ts >= prev_ts && c->ts - prev_ts >= win))
		return false;
	return an_copy_find(c, f);
}

/* c's frame of f is a NAK or RNR NAK (syndrome syn): marked so in the recent frames, so that
 * an ACK with its PSN is no copy of it, nor it of an ACK, and a NAK its copy only with its
 * syndrome (aeth_nak()). */
void an_copy_nak(struct an_ctx *c, struct an_flow *f, uint8_t syn);
/* Count c's frame of f as a capture copy (capture_copies, ROCE_EV_CAPTURE_COPY) and take
 * it out of the recent frames. */
void an_copy_count(struct an_ctx *c, struct an_flow *f);

/*
 * Count n events in counter `field` (a member of struct roce_counters) on
 * the run's summary and, when the frame has a stream f (may be NULL), on
 * the stream: the one writer of both structs' counters, so an event is
 * counted once and the streams' counters add up to the summary's.
 * (unrecovered_psns alone is recomputed when read, not counted.)
 * AN_COUNT_HOT is the same for the counter of ordinary traffic that a
 * stream keeps in its record (ecn_capable, its low 32 bits): no event block
 * but for the carry of a wrap.  Two more
 * such counters live in the block of the streams that have them, next to
 * what goes with them: acks in struct an_rsp (aeth_process()), cnps in
 * struct an_lat_x with the CNP timing (roce_process()).  an_flow_export()
 * adds every place, so the split only decides where the stream's count is
 * stored.  Without memory for its block the stream's count is lost, the
 * run's is not.
 */
#define AN_COUNT(a, f, field, n) do { \
		uint64_t an_n_ = (n); \
		struct an_flow *an_f_ = (f); \
		struct roce_counters *an_c_; \
		(a)->sum.counters.field += an_n_; \
		if (an_f_ && (an_c_ = an_flow_ctr((a), an_f_)) != NULL) \
			an_c_->field += an_n_; \
	} while (0)

/* (AN_COUNT_HOT(a, f, ecn_capable, 1): the record keeps the low 32 bits) */
#define AN_COUNT_HOT(a, f, field, n) do { \
		uint32_t an_n_ = (n); \
		struct an_flow *an_f_ = (f); \
		(a)->sum.counters.field += an_n_; \
		if (an_f_ && __builtin_expect((an_f_->st.field += an_n_) < an_n_, 0)) \
			an_flow_carry((a), an_f_, true); \
	} while (0)

/* an_export.c */
void an_flow_export(const struct an_flow *f, struct roce_flow_stats *out);
uint64_t an_mem_in_use(const struct roce_analyzer *a);

/*
 * Walks over every stream (destroy, finish, summary) read records that are
 * no longer in any cache: load the records a few streams ahead, and the
 * request / response state of the next ones.
 */
static inline void an_flows_prefetch(const struct an_table *t, uint32_t i)
{
	if (i + 8 < t->len && an_dense_at(t, i + 8))
		AN_PREFETCH(an_dense_at(t, i + 8));
	if (i + 4 < t->len && an_dense_at(t, i + 4)) {
		const struct an_flow *g = (const struct an_flow *)an_dense_at(t, i + 4);

		if (g->req)
			AN_PREFETCH(g->req);
		if (g->rsp)
			AN_PREFETCH(g->rsp);
	}
}

static inline bool an_pmtu_valid(uint32_t v)
{
	return v == 256 || v == 512 || v == 1024 || v == 2048 || v == 4096;
}

/*
 * A request or response FIRST / MIDDLE frame's payload length (op flags fl,
 * v bytes) as the path MTU of f, its peer and the run.  (Always inlined:
 * with two callers it became a call a frame, 8 instructions.)
 */
static inline __attribute__((always_inline)) void an_learn_pmtu(struct roce_analyzer *a,
	struct an_flow *f, uint32_t fl, uint32_t v)
{
	if (!(fl & (ROCE_F_REQ | ROCE_F_RESP)) || !(fl & (ROCE_F_FIRST | ROCE_F_MIDDLE)) ||
	    (fl & ROCE_F_LAST))
		return;
	/* nothing would change (whether v is a valid MTU or not): write nothing; the
	 * common case, asked before the five comparisons of an_pmtu_valid() */
	if (f->st.pmtu == v && a->pmtu_learned == v && (a->cfg.pmtu || a->sum.pmtu == v) &&
	    (!f->peer || f->peer->st.pmtu == v))
		return;
	if (!an_pmtu_valid(v))
		return;
	f->st.pmtu = v;
	if (f->peer)
		f->peer->st.pmtu = v;
	a->pmtu_learned = v;
	if (!a->cfg.pmtu)
		a->sum.pmtu = v;
}

/*
 * roce_analyzer_decode_process(): after the frame's bytes were read, before
 * anything of it is counted: does the caller's flag say they may not have
 * been the frame's?  The fence keeps the flag's load after the frame's loads
 * (no instruction on x86, whose loads stay in order).
 */
#ifdef __SANITIZE_THREAD__
/* (GCC's ThreadSanitizer takes no thread fence; loads stay in order on x86, where it runs) */
#define AN_LOAD_FENCE() __atomic_signal_fence(__ATOMIC_ACQUIRE)
#else
#define AN_LOAD_FENCE() __atomic_thread_fence(__ATOMIC_ACQUIRE)
#endif
static inline __attribute__((always_inline)) bool an_discard(const struct roce_analyzer *a)
{
	AN_LOAD_FENCE();
	/* (atomic: the word may be set by a signal handler on another thread) */
	return __builtin_expect(__atomic_load_n(a->discard, __ATOMIC_RELAXED) != 0, 0);
}

/* an_predict.c */
/*
 * The frame analysed as the next of the predicted stream (the whole of
 * roce_analyzer_decode_process() for it, with no observer, no idle timeout
 * and no ICRC to compute), returning its status; or 1 with nothing done, or
 * ROCE_E_DISCARDED (an_discard()) with nothing counted.
 */
int an_predict(struct roce_analyzer *a, const uint8_t *frame, size_t caplen, size_t wirelen,
	const struct roce_decode_opts *opts, uint64_t ts_ns, uint64_t frame_no);
/* After the full path analysed pkt (status st): remember it if it qualifies. */
void an_predict_learn(struct roce_analyzer *a, const struct roce_pkt *pkt, int st,
	const uint8_t *frame, size_t caplen);
/* Prediction on (the default) or off (tests compare both). */
void an_predict_enable(roce_analyzer_t *a, bool on);
/* f is freed: its prediction goes (the record may come back as another stream). */
void an_predict_forget(struct roce_analyzer *a, const struct an_flow *f);
/* Tests: the in-order shortcuts of an_request.c and an_response.c on (the default) or off. */
void an_inorder_enable(roce_analyzer_t *a, bool on);
/* Frames an_predict() analysed (for tests). */
uint64_t an_predict_hits(const roce_analyzer_t *a);

/* an_event.c */
void an_init(struct roce_anomaly *an, enum roce_anomaly_type type,
	uint64_t frame, uint64_t ts, const struct an_flow *f);
void an_emit(struct roce_analyzer *a, const struct roce_anomaly *an);

/* A PSN jump of this much or more, either way, is taken as a new connection. */
#define AN_RESYNC (1 << 22)
#define AN_MAX_READ_N      (1u << 22)

/* p in [start, start + len), 24-bit PSNs */
static inline bool an_psn_in(uint32_t p, uint32_t start, uint32_t len)
{
	return ((p - start) & 0xffffffu) < len;
}

/* f's path MTU: configured, else learned (0: unknown) */
static inline uint32_t an_flow_pmtu(const struct roce_analyzer *a, const struct an_flow *f)
{
	if (a->cfg.pmtu)
		return a->cfg.pmtu;
	return f->st.pmtu;
}

/* ceil(len / d), at least 1, at most AN_MAX_READ_N: a READ's N */
static inline uint32_t an_div_up(uint64_t len, uint32_t d)
{
	uint64_t n = (len + d - 1) / d;

	if (n < 1)
		n = 1;
	if (n > AN_MAX_READ_N)
		n = AN_MAX_READ_N;
	return (uint32_t)n;
}

/* an_holes.c: a stream's PSN holes */
/* PSNs missing in r: its holes and the dropped ones. */
uint64_t an_holes_missing(const struct an_holeset *r);
/* [start, start + len) is missing (the oldest hole dropped when there is no room). */
void an_hole_add(struct an_holeset *r, uint32_t start, uint32_t len);
/* Remove PSN p from the holes; true when it was missing. */
bool an_hole_fill(struct an_holeset *r, uint32_t p);
/* Remove [p, p + n) from the holes; true when any of them was missing. */
bool an_hole_fill_range(struct an_holeset *r, uint32_t p, uint32_t n);
/* Remove [p, p + n) from the holes and add what was missing of it to to (when not NULL);
 * returns how many PSNs that was. */
uint32_t an_hole_take(struct an_holeset *r, uint32_t p, uint32_t n, struct an_holeset *to);
/* PSNs a stream still misses: request holes plus skipped READ response PSNs. */
uint64_t an_flow_unrecovered(const struct an_flow *f);

/* an_request.c and an_response.c: the only writers of struct an_req and struct an_rsp */
/* an_reqerr.c: r's NAK / go-back block (struct an_req_err), allocated on first use;
 * NULL without memory */
struct an_req_err *an_req_err(struct roce_analyzer *a, struct an_req *r);
/* (an_reqerr.c) that block freed when nothing in it is in use any more */
void an_req_err_release(struct roce_analyzer *a, struct an_req *r);
/* (an_reqerr.c) that block freed now (the request state is reset or freed) */
void an_req_err_free(struct roce_analyzer *a, struct an_req *r);
/* (an_request.c) a gap at c's frame (PSN p) on f: lost PSNs missing, the first e, the last
 * last: counted, the event, the anomaly */
void an_gap_report_span(struct an_ctx *c, struct an_flow *f, uint32_t p, uint32_t e,
	uint32_t last, uint32_t lost);
/* (an_request.c) anomaly t of c's frame on f at PSN p where e was expected, text detail */
void an_simple_anomaly(struct an_ctx *c, struct an_flow *f, enum roce_anomaly_type t,
	uint32_t p, uint32_t e, const char *detail);
void an_req_process(struct an_ctx *c, struct an_flow *f);
/*
 * The request frame in c is the next PSN of f's request stream with nothing
 * pending (no go-back, NAK, slack, UD source check; an AckReq ring with room;
 * a READ only with its N known and the READ ring's next slot free):
 * an_req_process() done for it, true; it changes no hole, event, latency or
 * array size.  Otherwise nothing done, false.
 */
bool an_req_inorder(struct an_ctx *c, struct an_flow *f);

/*
 * an_req_inorder()'s test: request PSN p (AckReq, READ or atomic: ack; opcode
 * flags fl, a READ's flag masked by an_req_inorder(), which checks its ring
 * itself) of f is the next with nothing pending.  an_req_advance() is what
 * an_req_inorder() then does for a request other than a READ (the one code for
 * both and an_predict()).
 */
static inline __attribute__((always_inline)) bool an_req_inorder_ok(const struct an_flow *f,
	uint32_t p, bool ack, uint32_t fl)
{
	const struct an_req *r = f->req;

	return !(!r || !r->init || r->off || r->gbn_active || r->slack || r->err ||
		 r->next != p || (fl & ROCE_F_READ) || f->st.transport == ROCE_TRANSPORT_UD ||
		 (ack && r->ack_n >= r->ack_cap));
}

/* (own: an atomic, timed by its ATOMIC ACK only) */
void an_req_advance(struct roce_analyzer *a, struct an_req *r, uint32_t p, bool ack, bool own,
	bool last, uint64_t ts, uint64_t frame);
/*
 * The response frame in c is the PSN after the newest of f's initialised
 * response sequence, f paired with a followed request stream, reliable
 * transport, an ACK-type AETH or none: an_resp_process() done for it, true
 * (latencies and events as there); it changes no hole or array size.
 * Otherwise nothing done, false.
 */
bool an_resp_inorder(struct an_ctx *c, struct an_flow *f);

/*
 * an_resp_inorder()'s test: a response of f at PSN P with AETH syndrome syn
 * (aeth: it has an AETH) is after the newest of f's initialised response
 * sequence, f paired with a followed request stream, reliable transport, an
 * ACK-type AETH or none.  The next PSN; or, for an ACK (not a READ response:
 * resp false), a later one (a coalesced ACK) that passes nothing the response
 * code would keep as unseen or skipped: the request stream has no hole, never
 * had a READ, and is past P.  (The one test for an_resp_inorder() and
 * an_predict().)  PSNs pending on a READ's N (an_rsp_read_pinned()) settle on
 * the general path only: they are behind the newest PSN, so a READ response
 * past it is of no READ that has any (responses come in PSN order).
 */
static inline __attribute__((always_inline)) bool an_resp_inorder_ok(const struct an_flow *f,
	uint32_t P, bool aeth, uint8_t syn, bool resp)
{
	const struct an_rsp *s = f->rsp;
	const struct an_req *r;
	int32_t d;

	if (!f->peer || !s || !s->init || (aeth && roce_aeth_type(syn) != ROCE_AETH_ACK) ||
	    (f->st.transport != ROCE_TRANSPORT_RC && f->st.transport != ROCE_TRANSPORT_XRC &&
	     f->st.transport != ROCE_TRANSPORT_RD))
		return false;
	r = f->peer->req;
	if (!r || !r->init || r->off)
		return false;
	d = roce_psn_cmp(P, s->newest);
	return d == 1 || (d > 1 && d < AN_RESYNC && !resp && !r->hs.nholes && !r->rd_cap &&
			  roce_psn_cmp(r->next, P) > 0);
}
/* (an_response.c) */
void an_resp_process(struct an_ctx *c, struct an_flow *f);
/*
 * READ e's N is known now (it was nmax0 at the most): the PSNs of the response
 * stream f that passed it while N was not known (pending, struct an_rsp_x) are
 * missing READ responses when inside [e->psn, e->psn + N): holes, counted in
 * lost_psns now (no psn_gap event: their gap was reported, with the PSNs known
 * then); those past it are no longer the READ's.  (an_response.c; an_request.c
 * when the request after the READ pins N.)
 */
void an_rsp_read_pinned(struct an_ctx *c, struct an_flow *f, const struct an_readent *e,
	uint32_t nmax0);
void an_req_free(struct roce_analyzer *a, struct an_req *r);
/* f is paired: its request state, if any, becomes a struct an_req_lat (f->req moves; without
 * memory it stays, and its samples are dropped). */
void an_req_pair(struct roce_analyzer *a, struct an_flow *f);
/* (an_response.c) */
void an_rsp_free(struct roce_analyzer *a, struct an_rsp *s);

/* an_pair.c */
int an_pair_init(struct an_pairidx *x, uint32_t cap);
void an_pair_free(struct an_pairidx *x);
/* Heap bytes of the index (tables, buckets, host pairs). */
uint64_t an_pair_bytes(const struct an_pairidx *x);
/* Bring f's index entries up to date (after a request or a pairing change). */
void an_pair_sync(struct roce_analyzer *a, struct an_flow *f);
/* f goes away: leave the index, unlink its peer (which may become a candidate). */
void an_pair_forget(struct roce_analyzer *a, struct an_flow *f);
/* Pair the unpaired response stream f whose frame has PSN P, if a candidate fits (then
 * f->peer is set; the caller, an_response.c, moves both request states: an_req_pair()).
 * false: f's host pair had no candidate (no unpaired request stream A -> B). */
bool an_pair_try(struct roce_analyzer *a, struct an_flow *f, uint32_t P);

/* observers (an_event.c) */
void an_notify_pause(struct roce_analyzer *a, const struct roce_pause_event *ev);

/* an_pfc.c */
void an_pfc_process(struct an_ctx *c);
/* Time moved to a->now without a frame: close passed pauses, flag storms. */
void an_pfc_advance(struct roce_analyzer *a);
void an_pfc_export(const struct roce_analyzer *a, const struct an_pfc *e,
	struct roce_pfc_stats *out);
void an_pfc_close(struct roce_analyzer *a, struct an_pfc *e, uint64_t end, uint64_t frame,
	uint64_t ts, struct roce_frame_result *res);

#endif /* ROCE_AN_INTERNAL_H */
