/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gen.h - roce-gen: shared types of the option/scenario parser (options.c,
 * scenario.c), the traffic engine (engine.c), the fault injector
 * (faults.c), the outputs (output.c) and the summary (summary.c).
 *
 * Data flow: options and/or a scenario file fill struct rg_config; the
 * engine walks the QPs and builds every frame with libroce's roce_build()
 * (roce_build_pfc()/roce_build_pause() for MAC Control frames), asks the
 * fault injector what happens to each request packet, stamps it with a
 * deterministic timestamp and hands it to the output.  Everything that
 * makes a counter visible at the capture point is tallied in struct
 * rg_truth under the counter names of roce-analyze --json.
 */
#ifndef RG_GEN_H
#define RG_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <roce/build.h>

#define RG_PROG "roce-gen"

#define RG_EXIT_OK 0
#define RG_EXIT_FAIL 1      /* output error while writing */
#define RG_EXIT_USAGE 2     /* usage error, bad scenario file */

/* Verbs of the mix (index into rg_config.verb_weight). */
enum rg_verb {
	RG_WRITE = 0,
	RG_WRITE_IMM,
	RG_SEND,
	RG_SEND_IMM,
	RG_READ,
	RG_ATOMIC,
	RG_UD_SEND,
	RG_XRC,
	RG_UC_WRITE,         /* UC (unreliable connection): never acknowledged, never resent */
	RG_UC_WRITE_IMM,
	RG_UC_SEND,
	RG_UC_SEND_IMM,
	RG_VERB_COUNT
};

/* Message-size chooser. */
enum rg_size_kind { RG_SIZE_LIST = 0, RG_SIZE_UNIFORM, RG_SIZE_EXP };

#define RG_MAX_SIZES 32

struct rg_sizes {
	enum rg_size_kind kind;
	unsigned n;                     /* list entries */
	uint32_t size[RG_MAX_SIZES];
	uint32_t weight[RG_MAX_SIZES];
	uint32_t min, max;              /* uniform range; exp: max cap */
	uint32_t mean;                  /* exp */
};

/* A list of exact PSNs a fault applies to: "PSN" (every QP) or "QP/PSN". */
struct rg_psn_item {
	int32_t qp;                     /* -1: every QP */
	uint32_t psn;
};

struct rg_psn_list {
	unsigned n, cap;
	struct rg_psn_item *v;
};

/* One fault kind: a probability and/or an exact PSN list. */
struct rg_fault {
	double rate;                    /* 0..1 per eligible packet / message */
	struct rg_psn_list list;
};

enum rg_fault_kind {
	RG_F_DROP = 0,       /* lost before the capture point -> NAK + go-back-N */
	RG_F_TIMEOUT,        /* the message's ACK is lost -> timeout, resend */
	RG_F_RNR,            /* RNR NAK, RNR timer, resend */
	RG_F_DUP,            /* packet duplicated in the network */
	RG_F_REORDER,        /* packet swapped with the next one */
	RG_F_READ_LOSS,      /* READ response lost -> re-read from the middle */
	RG_F_BAD_ICRC,       /* ICRC corrupted (receiver drops it -> NAK) */
	RG_F_BAD_PAYLOAD,    /* payload byte flipped after the ICRC */
	RG_F_CE,             /* ECN CE mark, answered by a CNP */
	RG_F_COUNT
};

/* A PFC or PAUSE pause train. */
struct rg_pause {
	bool pfc;                       /* false: 802.3x PAUSE */
	uint8_t prio;                   /* PFC priority 0..7 */
	uint16_t quanta;
	uint64_t refresh_ns;            /* XOFF refresh interval */
	uint64_t length_ns;             /* 0: one XOFF frame */
	uint64_t start_ns;              /* offset from the first frame */
	bool xon;                       /* send XON (quanta 0) at the end (PFC) */
	uint8_t mac[6];
	bool mac_set;
};

#define RG_MAX_PAUSES 16

struct rg_script;       /* script.c: frames listed one by one */

struct rg_config {
	/* traffic */
	unsigned qps;                   /* QPs per host pair */
	unsigned hosts;                 /* host pairs */
	unsigned version;               /* 1, 2 (IPv4), 6 (v2 over IPv6) */
	uint32_t verb_weight[RG_VERB_COUNT];
	struct rg_sizes sizes;
	uint32_t pmtu;
	unsigned ack_every;             /* AckReq on every Nth message's last packet */
	uint64_t seed;
	uint64_t count_frames;          /* -c; 0 = not set */
	uint64_t count_messages;        /* --messages */
	bool count_messages_set;
	bool random_psn;
	uint32_t first_psn;
	uint32_t qpn_base;
	/* timing */
	uint64_t pps;                   /* 0 = use rate_bps */
	uint64_t rate_bps;              /* line rate (frame + FCS + preamble + IFG) */
	uint64_t start_ns;
	uint32_t rnr_timer;             /* RNR timer code 0..31 */
	uint64_t timeout_ns;            /* requester retry timeout */
	uint64_t cnp_interval_ns;       /* NP: at most one CNP per QP per interval */
	uint64_t link_gbps;             /* PFC quanta -> time (truth) */
	uint64_t storm_ns;              /* storm threshold (truth) */
	/* L2/L3 */
	uint16_t vlan;                  /* 0 = untagged */
	bool vlan_set;
	uint8_t pcp;
	uint8_t dscp, ecn, cnp_dscp;
	uint8_t mac_a[6], mac_b[6];
	uint8_t ip_a[16], ip_b[16];     /* base addresses (+ pair index) */
	bool ip_a_set, ip_b_set;
	uint16_t sport;                 /* 0: per-QP 0xC000 + hash */
	uint8_t encap;                  /* --encap: enum roce_encap, 0 = none (encap.c) */
	uint32_t mirror_snaplen;        /* --mirror-snaplen: ERSPAN mirror cut (T bit) */
	uint8_t mpls_count;             /* --mpls-labels: 0 = the default (one label, 100) */
	uint32_t mpls_labels[ROCE_MAX_MPLS_LABELS];
	bool mpls_pw;                   /* --mpls-pw: every frame as an Ethernet pseudowire */
	/* faults */
	struct rg_fault fault[RG_F_COUNT];
	struct rg_pause pause[RG_MAX_PAUSES];
	unsigned n_pauses;
	/* output */
	const char *write_path;
	const char *iface;
	const char *engine;             /* -i: TX engine name (auto, afpacket, xdp) */
	char *owned[3];                 /* copies behind the three above, freed by rg_config_free() */
	bool ts_us;                     /* pcap with microsecond timestamps */
	struct rg_script *script;       /* scripted scenario: replaces the engine */
	bool json;
	bool quiet;
};

/* Transports of the per-transport truth (rg_truth.by_tr; roce-analyze --json's qps[]
 * "transport"). */
enum rg_transport { RG_TR_RC = 0, RG_TR_UC, RG_TR_UD, RG_TR_XRC, RG_TR_COUNT };

/* The sequencing counters of the streams of one transport, summed. */
struct rg_seq {
	uint64_t psn_gaps, lost_psns, duplicates, out_of_order, icrc_bad;
	uint64_t frames;        /* written RoCE frames of the transport (CNPs: none) */
};

/* What a correct analyzer must count on the generated file (names as in
 * roce-analyze --json), plus what was injected. */
struct rg_truth {
	uint64_t frames, bytes, roce_frames, rocev1_frames, rocev2_frames;
	uint64_t icrc_ok, icrc_bad;
	uint64_t messages;
	uint64_t psn_gaps, lost_psns, duplicates, out_of_order, unrecovered_psns;
	uint64_t retransmissions, gbn_nak, gbn_rnr, gbn_timeout;
	uint64_t acks, naks, rnr_naks, nak_seq_err;
	uint64_t cnps, ecn_ce;
	uint64_t pfc_frames, pause_frames, pfc_storms;
	uint64_t injected[RG_F_COUNT];
	uint64_t holes_filled;          /* out_of_order that fill a drop */
	uint64_t dropped;               /* frames never written (lost before the capture) */
	struct rg_seq by_tr[RG_TR_COUNT];       /* the sequencing counters by transport */
};

/* ---- output (output.c) ---------------------------------------------------- */

struct rg_output;

struct rg_output_ops {
	int (*write)(struct rg_output *o, uint64_t ts_ns, const uint8_t *frame, uint32_t len);
	int (*close)(struct rg_output *o);
	/* optional: a record cut to caplen bytes (capture files only) */
	int (*write_cap)(struct rg_output *o, uint64_t ts_ns, const uint8_t *frame,
			 uint32_t caplen, uint32_t len);
	/* optional: where to build the next frame, the one of spec s, so that write
	 * finds it in place and does not copy it (interfaces: the TX engine's memory,
	 * the xdp engine's UMEM, or the next batch slot; pcap files: the writer's
	 * buffer); *cap (RG_FRAME_MAX on entry) gets the bytes there when fewer;
	 * NULL: build it elsewhere.  The next write must be that frame. */
	uint8_t *(*frame_buf)(struct rg_output *o, const struct roce_frame_spec *s, size_t *cap);
};

/* --encap: layer the encapsulating output over o (encap.c); closes o on failure. */
int rg_encap_wrap(struct rg_output *o, const struct rg_config *c, char *errbuf, size_t errlen);

/* Largest frame the generator builds (jumbo). */
#define RG_FRAME_MAX 9216

struct rg_output {
	const struct rg_output_ops *ops;
	void *impl;
	const char *name;
	/* interface output (-i): set by write/close */
	const char *engine;             /* TX engine name */
	uint64_t sent, send_errors;
	int exit_status;                /* non-zero: exit with this (RG_EXIT_USAGE for MTU) */
	char err[256];                  /* why write failed, when it says */
};

/* Open the output named by the config (-w FILE or -i IFACE); errbuf gets a
 * one-line reason. */
int rg_output_open(struct rg_output *o, const struct rg_config *c, char *errbuf, size_t errlen);

/* ---- options and scenario files (options.c, scenario.c) ------------------- */

void rg_config_defaults(struct rg_config *c);
void rg_config_free(struct rg_config *c);

/* Apply one option by its long name ("qps", "drop-psn", ...) as given on the
 * command line or as a key of a scenario file.  0, or -1 with errbuf. */
int rg_config_set(struct rg_config *c, const char *key, const char *val, char *err, size_t errlen);

/* Load a scenario file (GKeyFile INI).  0, or -1 with "FILE:LINE: reason". */
int rg_scenario_load(struct rg_config *c, const char *path, char *err, size_t errlen);
int rg_scenario_load_data(struct rg_config *c, const char *name, const char *data, size_t len,
			  char *err, size_t errlen);

/* Final consistency checks after all options; 0 or -1 with errbuf. */
int rg_config_check(struct rg_config *c, char *err, size_t errlen);

/* ---- engine (engine.c) ------------------------------------------------------ */

/* Generate the whole scenario into out; fills truth.  0, or an output error. */
int rg_generate(const struct rg_config *c, struct rg_output *out, struct rg_truth *t,
		char *err, size_t errlen);

/* ---- scripted scenarios (script.c) -------------------------------------------- */

/* Group names of scripts: "frame NAME", "template NAME". */
bool rg_script_group(const char *group);
void rg_script_free(struct rg_script *sc);
int rg_script_run(const struct rg_config *c, struct rg_output *out, struct rg_truth *t,
		  char *err, size_t errlen);

/* ---- deterministic random numbers (engine.c) ------------------------------- */

struct rg_rng {
	uint64_t s[4];
};

void rg_rng_seed(struct rg_rng *r, uint64_t seed);
uint64_t rg_rng_next(struct rg_rng *r);
/* Uniform in [0, n). */
uint64_t rg_rng_below(struct rg_rng *r, uint64_t n);
/* True with probability p. */
bool rg_rng_chance(struct rg_rng *r, double p);

/* ---- summary (summary.c) ---------------------------------------------------- */

void rg_summary_print(const struct rg_config *c, const struct rg_truth *t, bool json,
		      FILE *f);

const char *rg_fault_name(enum rg_fault_kind k);
const char *rg_verb_name(enum rg_verb v);
const char *rg_transport_name(enum rg_transport tr);

#endif /* RG_GEN_H */
