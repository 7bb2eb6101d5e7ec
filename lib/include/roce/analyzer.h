/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * analyzer.h - stateful analysis over decoded frames: per-stream PSN
 * sequencing (gaps, duplicates, out-of-order, go-back-N, READ PSN ranges),
 * NAK / RNR classification, ACK round-trip times, ECN CE and CNP counts, and
 * per (source MAC, priority) PFC / PAUSE timing with storm detection.
 *
 * One analyzer serves four users:
 *   - roce-analyze streams a file through roce_analyzer_process() and reads
 *     the tables at the end (roce_analyzer_foreach_flow/_pfc, _summary);
 *   - the Wireshark plugin calls it once per frame on the first pass and
 *     stores the struct roce_frame_result it returns with the frame;
 *   - live mode takes roce_analyzer_summary() snapshots at intervals;
 *   - tests drive it with frames from the frame builder (build.h).
 *
 * Streams are keyed by (RoCE version, source address, destination address,
 * destination QP); the UDP source port is not part of the key.  A request
 * stream A->B(qp X) is paired with the response stream B->A that carries
 * ACKs/NAKs/READ responses whose PSNs fall inside its PSN range.
 *
 * State is bounded: at most max_flows streams and max_pfc entries; when a
 * table is full the least recently active entry is evicted, counted in
 * evicted_flows, and reported as a ROCE_AN_FLOW_EVICTED anomaly.  Memory is
 * allocated when a stream is first seen, never per packet.
 *
 * Running analysis (live mode, generators, report writers):
 *   - roce_analyzer_summary() and the foreach functions may be called at
 *     any time: they are consistent mid-run ("now" = the newest frame time
 *     or the time given to roce_analyzer_advance()): PSNs missing so far
 *     count as unrecovered_psns, open pauses count in paused_ns up to now;
 *     roce_analyzer_finish() is needed only at the end of the input;
 *   - roce_analyzer_advance() moves time without a frame: pauses whose
 *     deadline passed close, idle streams expire;
 *   - idle_timeout_ns (config) expires streams idle that long; expired and
 *     evicted streams are handed to observers (on_flow_end) with their final
 *     stats, which stay in the summary's totals;
 *   - every stream has a stable id (roce_flow_stats.id, and
 *     roce_frame_result.stream_id for its frames);
 *   - observers (roce_analyzer_add_observer) see every frame's result,
 *     every anomaly, every closed pause interval (start, end) and every
 *     stream that ends, without changes to the analyzer.
 *
 * Struct growth: struct roce_analyzer_config, roce_summary, roce_flow_stats
 * and roce_pfc_stats start with a size member and only ever grow at the
 * end.  roce_analyzer_config_init() sets config.size; the library reads
 * only the first config.size bytes of a config (later members keep their
 * defaults), and sets size in the structs it fills to the size it filled,
 * so code built against a newer header can tell which members an older
 * library wrote.  roce_analyzer_summary_sized() fills at most the size the
 * caller passes.  struct roce_anomaly and roce_pause_event are written only
 * by the library (callbacks get them) and grow at the end too (interface).
 */
#ifndef ROCE_ANALYZER_H
#define ROCE_ANALYZER_H

#include <stdbool.h>
#include <stdint.h>

#include <roce/pkt.h>
#include <roce/roce.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct roce_analyzer roce_analyzer_t;

/*
 * The event and anomaly vocabulary is one table, <roce/anomalies.def>:
 * enum roce_anomaly_type, the ROCE_EV_* bits, their names, the summary
 * counter of each anomaly, its Wireshark expert severity and help text all
 * expand from it.
 */

/* Anomaly types: stable names via roce_anomaly_name() ("psn_gap", ...). */
enum roce_anomaly_type {
#define ROCE_ANOMALY(sym, name, ev, counter, severity, group, expert, help) ROCE_AN_##sym,
#include <roce/anomalies.def>
	ROCE_AN_COUNT
};

ROCE_API const char *roce_anomaly_name(enum roce_anomaly_type t);
/* Parse a name ("psn_gap"); -1 if unknown. */
ROCE_API int roce_anomaly_by_name(const char *name);

/* Wireshark expert severities (the plugin maps them to PI_*), in rising order. */
enum roce_severity {
	ROCE_SEV_CHAT = 1,
	ROCE_SEV_NOTE,
	ROCE_SEV_WARN,
	ROCE_SEV_ERROR
};

/* One row of anomalies.def (roce_anomaly_info()). */
struct roce_anomaly_info {
	const char *name;           /* "psn_gap" */
	uint32_t event;             /* the ROCE_EV_* bit a frame with it carries; 0 none */
	enum roce_severity severity;
	const char *expert;         /* Wireshark expert field name; NULL if none */
	const char *help;           /* one line of text */
};

/* Row t of the table; NULL if t is out of range. */
ROCE_API const struct roce_anomaly_info *roce_anomaly_info(enum roce_anomaly_type t);

struct roce_flow_key {
	uint8_t version;            /* 1 or 2 */
	uint8_t src[16], dst[16];   /* GID / IPv6 / ::ffff:IPv4 */
	uint32_t dqpn;
};

struct roce_anomaly {
	enum roce_anomaly_type type;
	uint64_t frame;             /* 1-based frame number */
	uint64_t ts_ns;
	bool has_flow;
	struct roce_flow_key flow;
	bool has_psn;
	uint32_t psn;
	bool has_expected;
	uint32_t expected_psn;
	uint64_t count;             /* lost PSNs, unrecovered PSNs, ... (0 if n/a) */
	char detail[96];            /* human text, may be empty */
	/* PFC storms */
	bool has_mac;
	uint8_t mac[6];
	int priority;               /* 0..7, -1 for 802.3x PAUSE */
	/* (members below: since 0.2; written by the library only) */
	uint32_t interface;         /* PFC storms and PFC evictions: the entry's interface */
};

typedef void (*roce_anomaly_cb)(void *user, const struct roce_anomaly *a);

struct roce_analyzer_config {
	uint32_t size;              /* sizeof(struct roce_analyzer_config), set by config_init */
	uint32_t max_flows;         /* stream table cap (default 1000000: under 1 GB) */
	uint32_t max_pfc;           /* (MAC, priority) table cap (default 4096) */
	uint32_t pmtu;              /* 0 = learn from the traffic; else 256..4096 */
	double link_speed_gbps;     /* for pause quanta -> time (default 100) */
	uint64_t pfc_storm_ns;      /* continuous pause that makes a storm (default 200 ms) */
	roce_anomaly_cb on_anomaly; /* optional */
	void *user;
	/* (members below: since 0.2) */
	uint64_t idle_timeout_ns;   /* expire streams idle this long; 0 = never (default) */
	/*
	 * Memory cap in bytes (roce_analyzer_memory().in_use); 0 = none (default).
	 * Checked when a stream is created: while the analyzer holds this much,
	 * the least recently active streams are evicted (up to 4 per new
	 * stream), exactly as when the table is full (evicted_flows,
	 * ROCE_AN_FLOW_EVICTED, on_flow_end).
	 */
	uint64_t max_memory;
	/*
	 * (members below: since 0.3) Capture copies (docs/json.md "Capture copies"): a
	 * request or response frame that repeats its stream's previous frame (same PSN),
	 * with no frame of the connection between them, less than this many ns after it,
	 * is the capture's second copy of that frame, not a resend: it counts in
	 * capture_copies and is otherwise left out of the analysis.  0 = off; config_init
	 * sets ROCE_COPY_WINDOW_NS (a caller built against an older header gets that too).
	 */
	uint64_t copy_window_ns;
};

/* The default capture-copy window: 4 us, half the smallest Local ACK Timeout (IBTA
 * 9.7.6.1.3: 4.096 us x 2^n, n >= 1), so no timeout resend comes this soon. */
#define ROCE_COPY_WINDOW_NS 4000u

ROCE_API void roce_analyzer_config_init(struct roce_analyzer_config *c);
/* NULL on failure with a message in errbuf (ROCE_ERRBUF_SIZE bytes). */
ROCE_API roce_analyzer_t *roce_analyzer_create(const struct roce_analyzer_config *c, char *errbuf)
	ROCE_WARN_UNUSED_RESULT;
ROCE_API void roce_analyzer_destroy(roce_analyzer_t *a);

/*
 * A hint that a frame (link type, its captured bytes) comes soon, e.g. the
 * capture's next record while the current one is processed: starts loading
 * the stream table's entry for the frame's stream, so that its lookup does
 * not wait for memory.  No effect on any result.  Does nothing while the
 * table is small enough to stay in the caches, and for frames it cannot
 * place cheaply (Ethernet with up to two VLAN tags, then RoCE v1, or RoCE
 * v2 over IPv4 / IPv6).
 */
ROCE_API void roce_analyzer_prefetch(roce_analyzer_t *a, int linktype, const uint8_t *frame,
	size_t caplen);
/*
 * Whether roce_analyzer_prefetch() would do anything now (the stream table
 * has outgrown the caches): a caller that has to find the next frame first
 * asks this before.
 */
ROCE_API bool roce_analyzer_prefetch_wanted(const roce_analyzer_t *a);
/*
 * Several records ahead: roce_analyzer_prefetch_slot() is
 * roce_analyzer_prefetch() and returns a token for the frame (0: nothing to
 * follow); roce_analyzer_prefetch_stream() given that token some records later
 * (the slot has arrived by then; roce-analyze asks for the slot five records
 * ahead and for the stream one record ahead) starts loading the stream record
 * the slot points to.  The analyzer remembers the newest 8 frames' hashes, so
 * a frame asked for more than 7 frames ahead of its processing loses only the
 * saved hashing.
 * No effect on any result; a token from before the table changed is harmless.
 * Both prefetch calls that read a frame remember its hash by its address
 * (hence the analyzer they take is not const): when the frame is
 * processed from that address its stream is looked up under that hash first,
 * which saves hashing its key again; the lookup compares keys, so any other
 * frame found at that address later is not misled.
 */
ROCE_API uint32_t roce_analyzer_prefetch_slot(roce_analyzer_t *a, int linktype,
	const uint8_t *frame, size_t caplen);
ROCE_API void roce_analyzer_prefetch_stream(const roce_analyzer_t *a, uint32_t token);

/*
 * Per-frame events (struct roce_frame_result.events): ROCE_EV_<SYMBOL> is
 * bit n for row n of the ROCE_EVENT rows of anomalies.def (PSN_GAP,
 * DUPLICATE, OUT_OF_ORDER, RETRANSMISSION, NAK, RNR_NAK, ECN_CE, CNP,
 * ACK_RTT, READ_FIRST_RESP, READ_LAST_RESP, PFC, PFC_XON, PFC_STORM, PAUSE,
 * GBN_RECOVERED, ICRC_BAD, MALFORMED, ACKED_UNSEEN, CAPTURE_COPY; see there for what each
 * makes valid).  ACKED_UNSEEN is on an RC/XRC response (ACK, NAK, READ
 * response, atomic ACK) that acknowledged request PSNs of its connection the
 * capture never saw (they leave the holes: acked_unseen_psns, not lost).
 * CAPTURE_COPY is on a frame the capture carried twice (the second copy:
 * roce_analyzer_config.copy_window_ns), which carries no other sequencing event.
 * Enumeration constants, not macros: test them, do not #ifdef them.
 */
enum roce_event_index {
#define ROCE_EVENT(sym, name) ROCE_EVI_##sym,
#include <roce/anomalies.def>
	ROCE_EVI_COUNT
};
enum roce_event {
	ROCE_EV_NONE = 0,
#define ROCE_EVENT(sym, name) ROCE_EV_##sym = 1 << ROCE_EVI_##sym,
#include <roce/anomalies.def>
};

/* Name of one event bit ("psn_gap", "ack_rtt", ...); NULL if not exactly one known bit. */
ROCE_API const char *roce_event_name(uint32_t bit);

enum roce_retx_cause {
	ROCE_RETX_NONE = 0,
	ROCE_RETX_NAK,      /* after a PSN sequence error NAK */
	ROCE_RETX_RNR,      /* after an RNR NAK */
	ROCE_RETX_TIMEOUT   /* no NAK seen: the requester's timer */
};
ROCE_API const char *roce_retx_cause_name(enum roce_retx_cause c); /* "nak", "rnr", "timeout" */

struct roce_frame_result {
	uint64_t stream_id;         /* the frame's stream (roce_flow_stats.id); 0 = none */
	uint32_t events;            /* ROCE_EV_* bits */
	uint32_t findings;          /* the frame's ROCE_FIND_* */
	uint32_t expected_psn;      /* PSN_GAP / OUT_OF_ORDER / DUPLICATE / RETRANSMISSION */
	uint32_t lost_psns;         /* PSN_GAP: PSNs skipped */
	enum roce_retx_cause retx_cause;
	uint8_t aeth_syndrome;      /* NAK / RNR_NAK */
	uint64_t rtt_ns;            /* ACK_RTT: request (ref_frame) -> this ACK */
	uint64_t read_ns;           /* READ_*_RESP: request (ref_frame) -> this response */
	uint64_t ref_frame;         /* related frame (acked request, NAKed original, ...); 0 = none */
	uint64_t recovery_ns;       /* GBN_RECOVERED: NAK/timeout start -> recovery */
	uint8_t storm_mask;         /* PFC_STORM: priorities that entered a storm */
	uint64_t pause_ns[8];       /* PFC: requested pause per priority; PAUSE: [0] */
	/* ACKED_UNSEEN: request PSNs the capture never carried that this frame showed
	 * acknowledged (a response; or the request that opened their gap, with PSN_GAP,
	 * when the responses came first).  (Added at the end: the struct grows while
	 * libroce is 0.x.) */
	uint32_t acked_unseen_psns;
};

/*
 * Feed one frame, in capture order.  pkt may be of any kind (non-RoCE frames
 * only count toward frames/bytes); status is roce_decode()'s return value,
 * so truncated/malformed frames are counted and reported, never dropped.
 * ts_ns is the capture timestamp in ns, frame_no the 1-based frame number.
 * res may be NULL.  Never allocates except when a new stream appears.
 */
ROCE_API void roce_analyzer_process(roce_analyzer_t *a, const struct roce_pkt *pkt, int status,
	uint64_t ts_ns, uint64_t frame_no, struct roce_frame_result *res) ROCE_NONNULL(1, 2);

/*
 * roce_decode(linktype, frame, caplen, wirelen, opts, &pkt) then
 * roce_analyzer_process(a, &pkt, status, ts_ns, frame_no, NULL) in one call,
 * for a caller that reads nothing of the decoded frame: the same analysis
 * and results, fewer instructions a frame.  opts may be NULL (roce_decode()'s
 * defaults).  Returns roce_decode()'s status, or ROCE_E_DISCARDED with
 * nothing counted (roce_analyzer_set_discard_flag()).
 */
ROCE_API int roce_analyzer_decode_process(roce_analyzer_t *a, int linktype, const uint8_t *frame,
	size_t caplen, size_t wirelen, const struct roce_decode_opts *opts, uint64_t ts_ns,
	uint64_t frame_no) ROCE_NONNULL(1);

/*
 * A caller's flag for the frames it feeds through roce_analyzer_decode_process():
 * nonzero means "the frame's bytes may be invalid, do not count it" (memory
 * that may change under the caller: a mapped file cut by another process).
 * The flag is read after the last byte of the frame was read and before
 * anything of it is counted (loads in that order); when it is set the call
 * returns ROCE_E_DISCARDED with nothing counted or learnt, and the caller
 * decides (it may feed the frame again once it knows the bytes were good).
 * One load a frame.  NULL (the default) removes the flag; the flag must stay
 * readable while it is set here.  roce_analyzer_process() does not read it
 * (its caller decoded the frame and can look itself).
 */
ROCE_API void roce_analyzer_set_discard_flag(roce_analyzer_t *a, const volatile int *flag)
	ROCE_NONNULL(1);

/*
 * The frames fed from now on come from capture interface iface (default 0;
 * the caller numbers its interfaces).  PFC and 802.3x PAUSE act on one link:
 * their entries are per (interface, source MAC, priority), so one MAC that
 * sends PFC on two interfaces (a switch's ports) makes two entries, two
 * pauses.  The interface is in roce_pfc_stats, roce_pause_event and the
 * anomalies of a PFC entry.  Streams are not keyed by interface.
 */
ROCE_API void roce_analyzer_set_interface(roce_analyzer_t *a, uint32_t iface) ROCE_NONNULL(1);

/* End of input: reports unrecovered PSNs and closes open pauses.  Idempotent. */
ROCE_API void roce_analyzer_finish(roce_analyzer_t *a) ROCE_NONNULL(1);

/*
 * The event counters the whole run (struct roce_summary) and each stream
 * (struct roce_flow_stats) share, under the same names.  The analyzer
 * counts an event once, on the run and on the frame's stream together, so
 * a stream's counter is the part of the run's total that its frames made.
 * Frames without a stream (e.g. malformed before the BTH) and evicted
 * streams count in the run's only; unrecovered_psns is set at
 * roce_analyzer_finish().
 *
 * Both structs embed them as an anonymous member, so s.psn_gaps and
 * f->psn_gaps read as before, and as a named one (s.counters, f->counters)
 * for code that serves both (C11 anonymous struct in an anonymous union).
 */
#define ROCE_COUNTER_FIELDS \
	uint64_t psn_gaps, lost_psns, duplicates, out_of_order, unrecovered_psns; \
	uint64_t retransmissions; \
	uint64_t gbn_episodes[4];   /* by enum roce_retx_cause (index 0 unused) */ \
	uint64_t naks, rnr_naks;    /* every NAK-type AETH incl. RNR; the RNR subset */ \
	uint64_t nak_codes[5];      /* by enum roce_nak_code */ \
	uint64_t acks;              /* ACK-type AETHs (ACK, ATOMIC_ACK, READ responses) */ \
	uint64_t cnps; \
	uint64_t ecn_ce, ecn_capable; /* CE-marked; ECT(0)/ECT(1)/CE RoCE frames */ \
	uint64_t icrc_bad;          /* RoCE frames with a bad ICRC */ \
	uint64_t malformed;         /* frames with a ROCE_FIND_MALFORMED_MASK finding */

struct roce_counters {
	ROCE_COUNTER_FIELDS
};

struct roce_summary {
	uint32_t size;              /* bytes of this struct the library filled */
	/* (the fields every frame updates come first: they share cache lines) */
	uint64_t frames, bytes;
	uint64_t first_ts_ns, last_ts_ns;    /* 0 when no frame yet */
	uint64_t roce_frames, rocev1_frames, rocev2_frames;
	uint64_t icrc_ok, icrc_unverified;   /* (icrc_bad: in the counters) */
	uint64_t findings[ROCE_FIND_COUNT];  /* per finding bit, in bit order */
	union {
		struct roce_counters counters;
		struct { ROCE_COUNTER_FIELDS };
	};
	uint64_t pfc_frames, pause_frames, pfc_storms;
	uint64_t evicted_flows, evicted_pfc;
	uint64_t flows, flows_active;
	uint32_t pmtu;                       /* configured or learned; 0 unknown */
	uint64_t opcodes[256];
	/* (members below: since 0.2) */
	uint64_t expired_flows;              /* streams ended by idle_timeout_ns */
	uint64_t now_ns;                     /* the analyzer's "now" (newest frame or advance) */
	/* frames decoded inside a tunnel or mirror encapsulation, per enum roce_encap of the
	 * outermost one (roce_pkt.encap; [ROCE_ENCAP_NONE] stays 0), RoCE inside or not */
	uint64_t encap_frames[ROCE_ENCAP_COUNT];
	/* (members below: since 0.3) request PSNs the capture never carried (holes: in
	 * lost_psns) that the responder acknowledged later (an ACK / READ response / atomic
	 * ACK at or past them, a NAK past them): dropped by the capture point, not by the
	 * network, and no longer counted in unrecovered_psns */
	uint64_t acked_unseen_psns;
	/* capture copies (struct roce_analyzer_config.copy_window_ns): frames the capture
	 * carried twice; counted in frames, bytes, roce_frames, opcodes and the ICRC / ECN /
	 * findings counts like any frame, in no sequencing counter */
	uint64_t capture_copies;
};

/*
 * Totals so far, consistent at any time: unrecovered_psns counts the PSNs
 * missing now (in live streams, and in streams evicted or expired); after
 * roce_analyzer_finish() it is the final count.  O(streams) per call.
 */
ROCE_API void roce_analyzer_summary(const roce_analyzer_t *a, struct roce_summary *out)
	ROCE_NONNULL(1, 2);
/* The same, filling at most size bytes of out (out->size says how many). */
ROCE_API void roce_analyzer_summary_sized(const roce_analyzer_t *a, struct roce_summary *out,
	size_t size) ROCE_NONNULL(1, 2);

/*
 * Advance the analyzer's time to ts_ns without a frame (ignored if older
 * than "now"): pauses whose deadline is <= ts_ns close (pause events,
 * storms), streams idle for idle_timeout_ns expire (on_flow_end).
 */
ROCE_API void roce_analyzer_advance(roce_analyzer_t *a, uint64_t ts_ns) ROCE_NONNULL(1);

/* The summary total of anomaly type t (the counter column of anomalies.def). */
ROCE_API uint64_t roce_anomaly_count(const struct roce_summary *s, enum roce_anomaly_type t)
	ROCE_NONNULL(1);

struct roce_dist {          /* latency distribution, ns */
	uint64_t count;
	uint64_t min_ns, p50_ns, p99_ns, max_ns;   /* 0 when count == 0 */
};

struct roce_flow_stats {
	uint32_t size;              /* bytes of this struct the library filled */
	struct roce_flow_key key;
	enum roce_transport transport;
	uint32_t last_psn;
	uint32_t pmtu;              /* learned on this stream; 0 unknown */
	bool is_request;            /* carried requests (vs ACK/response/CNP only) */
	bool has_peer;
	uint64_t frames, bytes, payload_bytes;
	uint64_t last_ts_ns;
	uint64_t messages;
	uint32_t first_psn;
	struct roce_flow_key peer;  /* paired request/response stream */
	uint64_t first_frame;
	uint64_t first_ts_ns;
	union {                     /* this stream's share of the run's counters */
		struct roce_counters counters;
		struct { ROCE_COUNTER_FIELDS };
	};
	uint64_t cnp_min_gap_ns;    /* shortest inter-CNP gap (0 if < 2 CNPs) */
	struct roce_dist rtt;       /* AckReq request -> first ACK covering it */
	struct roce_dist read_first;/* READ request -> first response */
	struct roce_dist read_last; /* READ request -> last response */
	struct roce_dist nak_response; /* NAK -> first retransmission */
	struct roce_dist recovery;  /* NAK/timeout -> PSN back past the old newest */
	uint32_t src_qp;            /* DETH source QP (UD) or 0 */
	uint16_t pkey;
	/* (members below: since 0.2) */
	uint64_t id;                /* stable stream id, unique in this analyzer (never 0) */
	/* (members below: since 0.3) this request stream's share of
	 * roce_summary.acked_unseen_psns */
	uint64_t acked_unseen_psns;
	/* this stream's share of roce_summary.capture_copies */
	uint64_t capture_copies;
};

/*
 * Calls cb for every live stream, in first-seen order; stop when cb returns
 * non-zero.  Allocates nothing; unrecovered_psns counts the PSNs missing now.
 */
typedef int (*roce_flow_cb)(void *user, const struct roce_flow_stats *f);
ROCE_API void roce_analyzer_foreach_flow(const roce_analyzer_t *a, roce_flow_cb cb, void *user)
	ROCE_NONNULL(1, 2);

/* PSNs [start, start + len), modulo 2^24. */
struct roce_psn_range {
	uint32_t start, len;
};

/*
 * The PSN ranges stream k still misses: request PSNs and READ response PSNs
 * skipped and not seen since (what unrecovered_psns counts after finish).
 * Writes at most max ranges to out (request ranges first, each direction
 * oldest first) and returns how many there are in all, so max 0 counts.
 * *dropped (may be NULL) gets the missing PSNs whose ranges the bounded hole
 * list no longer holds (counted, not listed).  -1 when there is no such
 * stream.  For tests and viewers that want to name the PSNs.
 */
ROCE_API int roce_analyzer_flow_holes(const roce_analyzer_t *a, const struct roce_flow_key *k,
	struct roce_psn_range *out, unsigned max, uint64_t *dropped) ROCE_NONNULL(1, 2);

struct roce_pfc_stats {
	uint32_t size;              /* bytes of this struct the library filled */
	uint8_t src_mac[6];
	int priority;               /* 0..7; -1 = 802.3x PAUSE */
	uint64_t first_frame;
	uint64_t frames, xoff, xon;
	uint64_t quanta;            /* sum of quanta requested */
	uint64_t paused_ns;         /* union of pause intervals (an open one: up to now) */
	uint64_t longest_pause_ns;
	uint64_t storms;
	/* (members below: since 0.2) */
	bool paused;                /* a pause is open now */
	uint64_t pause_start_ns;    /* start of the open pause */
	uint32_t interface;         /* capture interface (roce_analyzer_set_interface()) */
};

typedef int (*roce_pfc_cb)(void *user, const struct roce_pfc_stats *p);
/*
 * Every (interface, MAC, priority) entry, ordered by first frame; PAUSE
 * entries have priority -1.
 */
ROCE_API void roce_analyzer_foreach_pfc(const roce_analyzer_t *a, roce_pfc_cb cb, void *user)
	ROCE_NONNULL(1, 2);

/* ------------------------------------------------------------ observers */

/* A pause interval of one (MAC, priority), reported when it closes. */
struct roce_pause_event {
	uint8_t src_mac[6];
	int priority;               /* 0..7; -1 = 802.3x PAUSE */
	uint64_t start_ns, end_ns;  /* [start, end): XON, deadline, or finish */
	uint64_t start_frame;       /* frame that opened it */
	bool storm;                 /* lasted at least pfc_storm_ns */
	/* (members below: since 0.2; written by the library only) */
	uint32_t interface;         /* capture interface (roce_analyzer_set_interface()) */
};

enum roce_flow_end_reason {
	ROCE_FLOW_END_EVICTED = 1,  /* stream table full (also a flow_evicted anomaly) */
	ROCE_FLOW_END_EXPIRED = 2   /* idle for idle_timeout_ns */
};

/*
 * Subscribers to what the analyzer sees; every callback is optional and
 * gets the observer's user pointer.  on_frame runs after each frame was
 * analysed (res is the frame's result, also when the caller passed NULL);
 * on_anomaly sees the same anomalies as config.on_anomaly; on_pause gets
 * each pause interval when it closes; on_flow_end gets a stream's final
 * stats when it is evicted or expires (its counters stay in the summary).
 * Callbacks must not call back into the analyzer, except the read-only
 * summary/foreach functions.
 */
struct roce_analyzer_observer {
	uint32_t size;              /* sizeof(struct roce_analyzer_observer) */
	void (*on_frame)(void *user, const struct roce_pkt *pkt, uint64_t ts_ns, uint64_t frame_no,
		const struct roce_frame_result *res);
	void (*on_anomaly)(void *user, const struct roce_anomaly *an);
	void (*on_pause)(void *user, const struct roce_pause_event *ev);
	void (*on_flow_end)(void *user, const struct roce_flow_stats *f,
		enum roce_flow_end_reason why);
	void *user;
	uint32_t flags;             /* ROCE_OBS_* */
};

/*
 * ROCE_OBS_EVENT_FIELDS: on_frame reads only stream_id, events, findings and
 * storm_mask of res, and a member below only with its event: expected_psn
 * with PSN_GAP, OUT_OF_ORDER or DUPLICATE; lost_psns with PSN_GAP;
 * acked_unseen_psns with ACKED_UNSEEN; retx_cause and ref_frame with RETRANSMISSION; aeth_syndrome
 * with NAK or RNR_NAK; rtt_ns with ACK_RTT; read_ns with READ_FIRST_RESP or
 * READ_LAST_RESP; recovery_ns with GBN_RECOVERED (never pause_ns).  While
 * every observer with an on_frame says so, a frame the caller passes no res
 * for leaves the others unset (the result is not cleared whole for every
 * frame).
 */
#define ROCE_OBS_EVENT_FIELDS 0x1u

#define ROCE_MAX_OBSERVERS 8

/* Subscribe (the struct is copied); ROCE_E_INVAL when ROCE_MAX_OBSERVERS are registered. */
ROCE_API int roce_analyzer_add_observer(roce_analyzer_t *a, const struct roce_analyzer_observer *o)
	ROCE_NONNULL(1, 2);

/* ---------------------------------------------------------------- memory */

/*
 * What the analyzer holds, by its own accounting (heap bytes requested, not
 * counting the allocator's overhead).  Stream records come from pools: an
 * evicted or expired stream's records are kept for the next streams
 * (pooled_bytes), never returned to the system before destroy.
 */
struct roce_analyzer_memory {
	uint32_t size;              /* sizeof(struct roce_analyzer_memory) */
	uint64_t bytes;             /* everything: pools (used or not), tables, arrays */
	uint64_t in_use;            /* stream_bytes + latency_bytes + table_bytes (max_memory) */
	uint64_t streams;           /* live streams */
	uint64_t stream_bytes;      /* live streams' records, request/response state, rings */
	uint64_t latency_bytes;     /* latency distributions (blocks and histograms) */
	uint64_t table_bytes;       /* stream/PFC tables, PFC entries, pairing index */
	uint64_t pooled_bytes;      /* pool memory holding no live record (ended streams', unused) */
};

/* Fill *out (O(streams)). */
ROCE_API void roce_analyzer_memory(const roce_analyzer_t *a, struct roce_analyzer_memory *out)
	ROCE_NONNULL(1, 2);

/* Pause time of q quanta at the analyzer's link speed, ns (q * 512 bit times). */
ROCE_API uint64_t roce_pause_quanta_ns(double link_speed_gbps, uint32_t quanta);

#ifdef __cplusplus
}
#endif

#endif /* ROCE_ANALYZER_H */
