/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * an_internal.h - the analyzer's private state (streams, request state,
 * PFC entries, tables, distributions) and the functions its files share.
 * Not installed; every symbol here has hidden visibility (no ROCE_API).
 *
 *   analyzer.c    create/destroy, per-frame dispatch, stream lookup and
 *                 eviction, finish, summary, iteration
 *   an_request.c  request state machine: holes, ACK/READ rings, go-back-N,
 *                 gaps, AETH/NAK, READ responses, pairing (the only writer
 *                 of struct an_req)
 *   an_pfc.c      PFC / PAUSE entries and pause intervals
 *   an_pair.c     request/response pairing index
 *   an_table.c    open-addressing hash tables, first-seen order lists
 *   an_dist.c     latency distributions
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

/* ---------------------------------------------------------- distributions */

struct an_dist {
	uint64_t count, min, max;
	uint64_t *hist;         /* buckets [lo, hi); NULL while every sample equals min */
	uint16_t lo, hi;
};

void an_dist_add(struct an_dist *d, uint64_t v);
void an_dist_export(const struct an_dist *d, struct roce_dist *out);
void an_dist_free(struct an_dist *d);

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
	struct an_entry **dense;        /* dense_cap entries: grows with the slots */
	uint32_t n, cap, dense_cap;
};

/* Intrusive doubly linked list (first-seen order of streams and PFC entries). */
struct an_lnode {
	struct an_lnode *prev, *next;
};

struct an_list {
	struct an_lnode *head, *tail;
};

void an_list_append(struct an_list *l, struct an_lnode *n);
void an_list_remove(struct an_list *l, struct an_lnode *n);

#define AN_CONTAINER(ptr, type, member) \
	((type *)(void *)((char *)(ptr) - offsetof(type, member)))

int an_table_init(struct an_table *t, uint32_t cap);
void an_table_free(struct an_table *t);
int an_table_reserve(struct an_table *t);
void an_table_insert(struct an_table *t, struct an_entry *e);
void an_table_remove(struct an_table *t, struct an_entry *e);
struct an_entry *an_table_victim(const struct an_table *t, uint32_t hash);

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
	struct an_hole *holes;  /* hole_cap entries, growing up to AN_HOLES */
	/* go-back-N */
	enum roce_retx_cause gbn_cause;
	uint32_t gbn_newest;
	uint64_t gbn_start_ts, gbn_ref_frame;
	struct an_pending nak, rnr;
	/* AckReq ring (oldest at head) and READ ring, growing up to their caps */
	struct an_ackent *ack;
	struct an_readent *rd;
	uint8_t hole_cap, ack_cap, rd_cap;
	/* pairing index (an_pair.c, its only writer), while an unpaired request stream */
	uint32_t pair_bucket;
	struct an_hp *pair_hp;
	struct an_flow *hp_next, *hp_prev, *pb_next, *pb_prev;
};

/*
 * What a stream stores of its struct roce_flow_stats: the same names, less
 * what roce_analyzer_foreach_flow() computes (peer key, distributions), so
 * a stream costs a few hundred bytes.  an_flow_export() fills the public
 * struct.  Hot fields first, in the public struct's order.
 */
struct an_fstat {
	struct roce_flow_key key;
	enum roce_transport transport;
	uint32_t last_psn;
	uint32_t pmtu;
	bool is_request;
	uint16_t pkey;
	uint64_t frames, bytes, payload_bytes;
	uint64_t last_ts_ns;
	uint64_t messages;
	uint32_t first_psn;
	uint32_t src_qp;
	uint64_t first_frame;
	uint64_t first_ts_ns;
	union {                 /* the public struct's counters, same struct (AN_COUNT) */
		struct roce_counters counters;
		struct { ROCE_COUNTER_FIELDS };
	};
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
	struct an_fstat st;
	uint32_t unpaired_frames;   /* (wraps: only its value mod AN_PAIR_EVERY matters past 4) */
	bool udqp_set;
	struct an_lat *lat;     /* latency distributions and CNP timing, allocated when needed */
	struct an_lnode seen;   /* first-seen order */
};

enum an_lat_kind {
	AN_LAT_RTT = 0,         /* AckReq request -> first ACK covering it */
	AN_LAT_READ_FIRST,      /* READ request -> first response */
	AN_LAT_READ_LAST,       /* READ request -> last response */
	AN_LAT_NAK_RESPONSE,    /* NAK -> first retransmission */
	AN_LAT_RECOVERY,        /* NAK/timeout -> PSN back past the old newest */
	AN_LAT_COUNT
};

struct an_lat {
	struct an_dist d[AN_LAT_COUNT];
	uint64_t last_cnp_ts;
	uint64_t cnp_min_gap_ns;        /* shortest inter-CNP gap (0 if < 2 CNPs) */
};

/* f's struct an_lat, allocated on first use; NULL when out of memory. */
struct an_lat *an_lat_get(struct an_flow *f);

/* Add a sample to f's distribution k (allocates f->lat on the first one). */
void an_lat_add(struct an_flow *f, enum an_lat_kind k, uint64_t v);

#define AN_LINE 64
_Static_assert(offsetof(struct an_flow, st) + offsetof(struct an_fstat, last_ts_ns) +
	sizeof(uint64_t) <= 2 * AN_LINE, "stream hot fields span more than two cache lines");
_Static_assert(offsetof(struct an_req, dropped_unrec) <= AN_LINE,
	"request hot fields span more than one cache line");

/* Zeroed memory on a cache-line boundary (free() releases it). */
static inline void *an_zalloc_aligned(size_t n)
{
	size_t sz = (n + AN_LINE - 1) & ~(size_t)(AN_LINE - 1);
	void *p = aligned_alloc(AN_LINE, sz);

	if (p)
		memset(p, 0, sz);
	return p;
}

struct an_pfc {
	struct an_entry ent;
	struct an_lnode seen;   /* first-seen order */
	struct roce_pfc_stats st;
	uint64_t seq_first;
	bool paused, storm_flagged;
	uint64_t start, deadline;
	uint64_t start_frame;
};

/* Pairing index (an_pair.c): unpaired request streams by host pair and PSN. */
struct an_pairidx {
	struct an_table hp;             /* struct an_hp: host pairs with candidates */
	struct an_flow **bucket;        /* chains by (host pair, expected PSN bucket) */
	uint32_t bmask;
	uint32_t n;                     /* indexed streams */
};

struct roce_analyzer {
	struct roce_analyzer_config cfg;
	struct roce_summary sum;
	struct an_table flows, pfc;
	struct an_list flows_seen, pfc_seen;
	struct an_pairidx pair;
	uint64_t tick, seq;
	uint64_t evicted_unrec;         /* unrecovered PSNs of evicted and expired streams */
	uint64_t now;                   /* newest frame time or roce_analyzer_advance() */
	struct an_lnode *sweep;         /* idle expiry cursor in flows_seen */
	bool want_an;                   /* someone listens to anomalies */
	unsigned nobs;
	struct roce_analyzer_observer obs[ROCE_MAX_OBSERVERS];
	uint64_t last_frame;
	uint32_t pmtu_learned;
	bool finished;
};

/* Per-frame context. */
struct an_ctx {
	struct roce_analyzer *a;
	const struct roce_pkt *pkt;
	uint64_t ts, frame;
	struct roce_frame_result *res;
};

/*
 * Count n events in counter `field` (a member of struct roce_counters) on
 * the run's summary and, when the frame has a stream f (may be NULL), on
 * the stream: the one writer of both structs' counters, so an event is
 * counted once and the streams' counters add up to the summary's.
 * (unrecovered_psns alone is recomputed at finish, not counted.)
 */
#define AN_COUNT(a, f, field, n) do { \
		uint64_t an_n_ = (n); \
		struct an_flow *an_f_ = (f); \
		(a)->sum.counters.field += an_n_; \
		if (an_f_) \
			an_f_->st.counters.field += an_n_; \
	} while (0)

/* analyzer.c */
void an_flow_export(const struct an_flow *f, struct roce_flow_stats *out);
void an_init(struct roce_anomaly *an, enum roce_anomaly_type type,
	uint64_t frame, uint64_t ts, const struct an_flow *f);
void an_emit(struct roce_analyzer *a, const struct roce_anomaly *an);

/* an_request.c: the only writers of struct an_req */
void an_req_process(struct an_ctx *c, struct an_flow *f);
void an_resp_process(struct an_ctx *c, struct an_flow *f);
uint64_t an_req_unrecovered(const struct an_req *r);
void an_req_free(struct an_req *r);

/* an_pair.c */
int an_pair_init(struct an_pairidx *x, uint32_t cap);
void an_pair_free(struct an_pairidx *x);
/* Bring f's index entries up to date (after a request or a pairing change). */
void an_pair_sync(struct roce_analyzer *a, struct an_flow *f);
/* f goes away: leave the index, unlink its peer (which may become a candidate). */
void an_pair_forget(struct roce_analyzer *a, struct an_flow *f);
/* Pair the unpaired response stream f whose frame has PSN P, if a candidate fits. */
void an_pair_try(struct roce_analyzer *a, struct an_flow *f, uint32_t P);

/* observers (analyzer.c) */
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
