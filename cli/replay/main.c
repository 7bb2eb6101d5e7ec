// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * main.c - roce-replay: send the frames of pcap/pcapng captures on an
 * interface with their original timing, at a rate or as fast as possible,
 * optionally rewritten (MACs, VLAN, DSCP/ECN, addresses, UDP port, QP, PSN)
 * with IPv4 checksum and ICRC recomputed by libroce.
 *
 * This file parses options (GOptionEntry, as roce-analyze), loads or
 * streams the frames, and runs the sender threads; sending is the shared
 * TX engine's (cli/common/tx.h), rewriting libroce's (roce/rewrite.h),
 * statistics are stats.c's.
 *
 * The schedule is absolute: frame g (0-based over all loops) is due at
 * start + off(g), where off(g) is
 *   original  (capture time - first capture time, per file, files and loops
 *             one after another with the mean gap between them) / multiplier
 *   --pps     g / pps
 *   --mbps    (bytes of frames 0..g-1) * 8 / rate, L2 or L1 bytes
 * so rounding never accumulates and threads need no coordination: the frames
 * are cut in blocks of --burst, and thread t of N sends the frames of blocks
 * t, t + N, ... at their deadlines (a thread reads runs of consecutive frames,
 * not every N-th one, whose neighbours its caches would fetch for nothing).
 * A sender waits for the next deadline by sleeping when it is far and
 * spinning when it is near; frames already due are sent together
 * (micro-batches of up to --burst), which is how a rate near the CPU limit
 * is still met.
 *
 * Exit status: 0 every frame sent, 1 some frames were refused by the kernel,
 * 2 usage, input or interface error.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <inttypes.h>
#include <locale.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>

#include <roce/pkt.h>
#include <roce/rewrite.h>
#include <roce/roce.h>

#include "capread.h"
#include "opts.h"
#include "replay.h"
#include "tx.h"

static struct rr_opts O;
static GPtrArray *opt_files;
static gboolean opt_version, opt_strip, opt_line_rate, opt_preload;
static gboolean opt_quiet, opt_json, opt_verbose;
static volatile sig_atomic_t g_stop;

/* ---- option parsing ------------------------------------------------------ */

/*
 * The pacing options exclude each other, as tcpreplay's do: the first one given (as typed)
 * and its long name; the same option again is a new value for it (the last counts), another
 * one a usage error naming both, --multiplier 1 too (a multiplier of 1 is still a
 * request for the original timing, which a rate would silently replace).
 */
static char pace_typed[16];
static const char *pace_long;

static gboolean set_pacing(const char *name, const char *long_name, enum rr_mode m,
			   GError **err)
{
	if (pace_long && strcmp(pace_long, long_name)) {
		g_set_error(err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
			    "%s and %s: only one of --multiplier, --pps, --mbps, --gbps, --topspeed",
			    pace_typed, name);
		return FALSE;
	}
	if (!pace_long)
		g_strlcpy(pace_typed, name, sizeof(pace_typed));
	pace_long = long_name;
	O.mode = m;
	return TRUE;
}

static gboolean opt_file_cb(const char *name, const char *val, gpointer data, GError **err)
{
	return roce_opt_add_file(opt_files, val, err);
}

static gboolean opt_iface_cb(const char *name, const char *val, gpointer data, GError **err)
{
	/* as roce-analyze: the second -i was silently the only one */
	if (!*val || O.ifname) {
		g_set_error(err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, *val ?
			    "%s given more than once" : "%s '': empty interface name", name);
		return FALSE;
	}
	O.ifname = g_strdup(val);
	return TRUE;
}

static gboolean opt_mult_cb(const char *name, const char *val, gpointer data, GError **err)
{
	return set_pacing(name, "--multiplier", RR_ORIGINAL, err) &&
	       roce_opt_double(name, val, 1e-6, 1e9, &O.multiplier, err);
}

static gboolean opt_pps_cb(const char *name, const char *val, gpointer data, GError **err)
{
	return set_pacing(name, "--pps", RR_PPS, err) &&
	       roce_opt_double(name, val, 1e-3, 1e10, &O.pps, err);
}

static gboolean opt_topspeed_cb(const char *name, const char *val, gpointer data, GError **err)
{
	return set_pacing(name, "--topspeed", RR_TOPSPEED, err);
}

static gboolean opt_mbps_cb(const char *name, const char *val, gpointer data, GError **err)
{
	double v;

	if (!set_pacing(name, "--mbps", RR_BPS, err) ||
	    !roce_opt_double(name, val, 1e-6, 1e7, &v, err))
		return FALSE;
	O.bps = v * 1e6;
	return TRUE;
}

static gboolean opt_gbps_cb(const char *name, const char *val, gpointer data, GError **err)
{
	double v;

	if (!set_pacing(name, "--gbps", RR_BPS, err) ||
	    !roce_opt_double(name, val, 1e-9, 1e4, &v, err))
		return FALSE;
	O.bps = v * 1e9;
	return TRUE;
}

static gboolean opt_loop_cb(const char *name, const char *val, gpointer data, GError **err)
{
	return roce_opt_u64(name, val, 0, UINT64_MAX, &O.loops, err);
}

static gboolean opt_limit_cb(const char *name, const char *val, gpointer data, GError **err)
{
	return roce_opt_u64(name, val, 1, UINT64_MAX, &O.limit, err);
}

static gboolean opt_duration_cb(const char *name, const char *val, gpointer data, GError **err)
{
	return roce_opt_double(name, val, 1e-6, 1e9, &O.duration, err);
}

static gboolean opt_threads_cb(const char *name, const char *val, gpointer data, GError **err)
{
	uint64_t v;

	if (!roce_opt_u64(name, val, 1, 64, &v, err))
		return FALSE;
	O.threads = (unsigned)v;
	return TRUE;
}

static gboolean opt_burst_cb(const char *name, const char *val, gpointer data, GError **err)
{
	uint64_t v;

	if (!roce_opt_u64(name, val, 1, ROCE_TX_MAX_BATCH, &v, err))
		return FALSE;
	O.burst = (unsigned)v;
	return TRUE;
}

static gboolean opt_engine_cb(const char *name, const char *val, gpointer data, GError **err)
{
	O.engine = roce_tx_engine_parse(val);
	if (O.engine < 0) {
		g_set_error(err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
			    "%s '%s': expected auto, afpacket or xdp", name, val);
		return FALSE;
	}
	return TRUE;
}

static gboolean opt_stats_cb(const char *name, const char *val, gpointer data, GError **err)
{
	return roce_opt_double(name, val, 0, 86400, &O.stats_interval, err);
}

static gboolean parse_mac(const char *name, const char *val, uint8_t mac[6], GError **err)
{
	if (roce_parse_mac(val, mac)) {
		g_set_error(err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
			    "%s '%s': expected a MAC address aa:bb:cc:dd:ee:ff", name, val);
		return FALSE;
	}
	return TRUE;
}

static gboolean opt_dmac_cb(const char *name, const char *val, gpointer data, GError **err)
{
	O.rw.set_dst_mac = TRUE;
	return parse_mac(name, val, O.rw.dst_mac, err);
}

static gboolean opt_smac_cb(const char *name, const char *val, gpointer data, GError **err)
{
	O.rw.set_src_mac = TRUE;
	return parse_mac(name, val, O.rw.src_mac, err);
}

static gboolean opt_vlan_cb(const char *name, const char *val, gpointer data, GError **err)
{
	uint64_t v;

	if (!roce_opt_u64(name, val, 0, 4094, &v, err))
		return FALSE;
	O.rw.vlan = ROCE_RW_VLAN_SET;
	O.rw.vlan_id = (uint16_t)v;
	return TRUE;
}

static gboolean opt_pcp_cb(const char *name, const char *val, gpointer data, GError **err)
{
	uint64_t v;

	if (!roce_opt_u64(name, val, 0, 7, &v, err))
		return FALSE;
	O.rw.vlan_pcp = (int)v;
	return TRUE;
}

static gboolean opt_dscp_cb(const char *name, const char *val, gpointer data, GError **err)
{
	uint64_t v;

	if (!roce_opt_u64(name, val, 0, 63, &v, err))
		return FALSE;
	O.rw.dscp = (int)v;
	return TRUE;
}

static gboolean opt_ecn_cb(const char *name, const char *val, gpointer data, GError **err)
{
	uint64_t v;

	if (!roce_opt_u64(name, val, 0, 3, &v, err))
		return FALSE;
	O.rw.ecn = (int)v;
	return TRUE;
}

static gboolean opt_sport_cb(const char *name, const char *val, gpointer data, GError **err)
{
	uint64_t v;

	if (!roce_opt_u64(name, val, 0, 65535, &v, err))
		return FALSE;
	O.rw.sport = (int)v;
	return TRUE;
}

static gboolean add_ipmap(const char *name, const char *val, unsigned which, GError **err)
{
	if (O.rw.n_ipmaps >= ROCE_RW_MAX_MAPS) {
		g_set_error(err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
			    "%s: at most %d address maps", name, ROCE_RW_MAX_MAPS);
		return FALSE;
	}
	if (roce_rewrite_parse_ipmap(val, which, &O.rw.ipmaps[O.rw.n_ipmaps]) != ROCE_OK) {
		g_set_error(err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
			    "%s '%s': expected FROM[/LEN]:TO (IPv4) or [FROM/LEN]:[TO] (IPv6)",
			    name, val);
		return FALSE;
	}
	O.rw.n_ipmaps++;
	return TRUE;
}

static gboolean opt_ipmap_cb(const char *name, const char *val, gpointer data, GError **err)
{
	return add_ipmap(name, val, ROCE_RW_MAP_SRC | ROCE_RW_MAP_DST, err);
}

static gboolean opt_srcipmap_cb(const char *name, const char *val, gpointer data, GError **err)
{
	return add_ipmap(name, val, ROCE_RW_MAP_SRC, err);
}

static gboolean opt_dstipmap_cb(const char *name, const char *val, gpointer data, GError **err)
{
	return add_ipmap(name, val, ROCE_RW_MAP_DST, err);
}

static gboolean opt_qp_cb(const char *name, const char *val, gpointer data, GError **err)
{
	const char *colon = strchr(val, ':');
	uint64_t from = ROCE_RW_QP_ANY, to;

	if (O.rw.n_qpmaps >= ROCE_RW_MAX_MAPS) {
		g_set_error(err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
			    "%s: at most %d QP maps", name, ROCE_RW_MAX_MAPS);
		return FALSE;
	}
	if (colon) {
		char *f = g_strndup(val, (gsize)(colon - val));
		gboolean ok = roce_opt_u64(name, f, 0, 0xffffff, &from, err);

		g_free(f);
		if (!ok)
			return FALSE;
		val = colon + 1;
	}
	if (!roce_opt_u64(name, val, 0, 0xffffff, &to, err))
		return FALSE;
	O.rw.qpmaps[O.rw.n_qpmaps].from = (uint32_t)from;
	O.rw.qpmaps[O.rw.n_qpmaps].to = (uint32_t)to;
	O.rw.n_qpmaps++;
	return TRUE;
}

static gboolean opt_psn_cb(const char *name, const char *val, gpointer data, GError **err)
{
	uint64_t v;

	if (!roce_opt_u64(name, val, 0, 0xffffff, &v, err))
		return FALSE;
	O.rw.psn_offset = (uint32_t)v;
	return TRUE;
}

static gboolean opt_udp_port_cb(const char *name, const char *val, gpointer data, GError **err)
{
	uint64_t v;
	unsigned i;

	if (!roce_opt_u64(name, val, 1, 65535, &v, err))
		return FALSE;
	for (i = 0; i < 8 && O.rw.udp_ports[i]; i++)
		if (O.rw.udp_ports[i] == v)
			return TRUE;
	if (i >= 8) {
		g_set_error(err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
			    "%s: at most 7 extra ports besides %d", name, ROCE_UDP_PORT);
		return FALSE;
	}
	O.rw.udp_ports[i] = (uint16_t)v;
	return TRUE;
}

#define CB(f) G_OPTION_ARG_CALLBACK, (gpointer)(f)

static const GOptionEntry entries[] = {
	{ "interface", 'i', 0, CB(opt_iface_cb), "Send on interface IFACE (required)", "IFACE" },
	{ "multiplier", 'x', 0, CB(opt_mult_cb),
	  "Original timing sped up by F (2 = twice as fast)", "F" },
	{ "pps", 'p', 0, CB(opt_pps_cb), "Send N packets per second", "N" },
	{ "mbps", 'M', 0, CB(opt_mbps_cb), "Send at R Mbit/s (L2 bytes; see --line-rate)", "R" },
	{ "gbps", 0, 0, CB(opt_gbps_cb), "Send at R Gbit/s (L2 bytes; see --line-rate)", "R" },
	{ "line-rate", 0, 0, G_OPTION_ARG_NONE, &opt_line_rate,
	  "--mbps/--gbps count L1 bytes: frame + FCS + preamble/SFD + IFG (24 bytes, 84 at least)",
	  NULL },
	{ "topspeed", 't', G_OPTION_FLAG_NO_ARG, CB(opt_topspeed_cb), "Send as fast as possible",
	  NULL },
	{ "loop", 'l', 0, CB(opt_loop_cb), "Send the files N times (0 = until stopped; default 1)",
	  "N" },
	{ "limit", 'L', 0, CB(opt_limit_cb), "Stop after N frames in all", "N" },
	{ "duration", 0, 0, CB(opt_duration_cb), "Stop after S seconds (deadlines in the schedule)",
	  "S" },
	{ "preload", 'K', 0, G_OPTION_ARG_NONE, &opt_preload,
	  "Read (and rewrite) every frame into memory before sending", NULL },
	{ "threads", 0, 0, CB(opt_threads_cb),
	  "N sender threads, each with its own socket and TX queue (implies --preload)", "N" },
	{ "burst", 0, 0, CB(opt_burst_cb),
	  "At most N frames per send call (1..256, default 256; frames already due go together)", "N" },
	{ "engine", 0, 0, CB(opt_engine_cb), "TX engine: auto (default), afpacket, xdp", "NAME" },
	{ "stats", 0, 0, CB(opt_stats_cb),
	  "Statistics line on stderr every S seconds (default 1, 0 = off)", "S" },
	{ "quiet", 'q', 0, G_OPTION_ARG_NONE, &opt_quiet, "No periodic statistics", NULL },
	{ "json", 0, 0, G_OPTION_ARG_NONE, &opt_json, "Final statistics as JSON on stdout", NULL },
	{ "verbose", 'v', 0, G_OPTION_ARG_NONE, &opt_verbose, "Say which engine and why", NULL },
	{ "dmac", 0, 0, CB(opt_dmac_cb), "Rewrite the destination MAC", "MAC" },
	{ "smac", 0, 0, CB(opt_smac_cb), "Rewrite the source MAC", "MAC" },
	{ "vlan", 0, 0, CB(opt_vlan_cb),
	  "Set the outermost VLAN ID; untagged frames get a tag", "VID" },
	{ "pcp", 0, 0, CB(opt_pcp_cb),
	  "Set the outermost tag's priority; untagged frames get a tag (VID 0 unless --vlan)",
	  "N" },
	{ "vlan-strip", 0, 0, G_OPTION_ARG_NONE, &opt_strip, "Remove the outermost VLAN tag",
	  NULL },
	{ "dscp", 0, 0, CB(opt_dscp_cb), "Rewrite the DSCP of RoCE frames (0..63)", "N" },
	{ "ecn", 0, 0, CB(opt_ecn_cb), "Rewrite the ECN bits of RoCE frames (0..3, 3 = CE)", "N" },
	{ "ipmap", 0, 0, CB(opt_ipmap_cb),
	  "Map source and destination addresses, FROM[/LEN]:TO or [FROM/LEN]:[TO] (repeat)",
	  "MAP" },
	{ "srcipmap", 0, 0, CB(opt_srcipmap_cb), "Map source addresses only (repeat)", "MAP" },
	{ "dstipmap", 0, 0, CB(opt_dstipmap_cb), "Map destination addresses only (repeat)", "MAP" },
	{ "sport", 0, 0, CB(opt_sport_cb), "Rewrite the UDP source port of RoCE v2 frames", "N" },
	{ "dest-qp", 0, 0, CB(opt_qp_cb),
	  "Rewrite the BTH destination QP: TO for all, or FROM:TO (repeat)", "[FROM:]TO" },
	{ "psn-offset", 0, 0, CB(opt_psn_cb), "Add N to every BTH PSN (mod 2^24)", "N" },
	{ "udp-port", 0, 0, CB(opt_udp_port_cb),
	  "Also treat UDP destination port N as RoCE v2 for rewrites (repeat)", "N" },
	{ "version", 'V', 0, G_OPTION_ARG_NONE, &opt_version,
	  "Print program and libroce versions and exit", NULL },
	{ G_OPTION_REMAINING, 0, 0, CB(opt_file_cb), NULL, "-i IFACE FILE..." },
	{ NULL, 0, 0, 0, NULL, NULL, NULL }
};

static const char description[] =
	"Timing: original capture timing by default (--multiplier to scale it), or one of\n"
	"--pps, --mbps/--gbps, --topspeed.  Rates count L2 bytes (frames as captured, no\n"
	"FCS, as tcpreplay does) unless --line-rate.  Deadlines are absolute (CLOCK_MONOTONIC).\n"
	"Two different pacing options (--multiplier 1 too) are a usage error.\n"
	"\n"
	"Rewrites recompute the IPv4 header checksum, a non-zero UDP checksum and the RoCE\n"
	"ICRC; a frame whose ICRC was bad keeps the same error.\n"
	"\n"
	"Exit status: 0 all frames sent, 1 the kernel refused some frames, 2 usage, input\n"
	"or interface error (missing interface, no CAP_NET_RAW, frame larger than the MTU).\n";

static void G_GNUC_NORETURN usage_error(const char *msg)
{
	roce_usage_error(RR_PROG, msg, EXIT_USAGE);
}

static void parse_args(int argc, char **argv)
{
	GOptionContext *oc;
	unsigned stdin_uses = 0;

	O.loops = 1;
	O.threads = 1;
	O.burst = 0;
	O.multiplier = 1.0;
	O.stats_interval = 1.0;
	O.engine = ROCE_TX_AUTO;
	roce_rewrite_init(&O.rw);
	opt_files = g_ptr_array_new_with_free_func(g_free);

	oc = g_option_context_new(NULL);        /* usage: G_OPTION_REMAINING's text */
	g_option_context_set_summary(oc,
		"Send the frames of pcap/pcapng captures (gzip, zstd, lz4 too) on an interface:\n"
		"original timing, a rate or top speed; optional rewrites with the RoCE ICRC\n"
		"recomputed.");
	g_option_context_set_description(oc, description);
	g_option_context_add_main_entries(oc, entries, NULL);
	roce_opt_parse_or_exit(oc, &argc, &argv, RR_PROG, EXIT_USAGE);

	if (opt_version) {
		printf("%s %s (roce-tools)\n%s\nTX engines: afpacket%s\n", RR_PROG,
		       ROCE_VERSION_STRING, roce_version(), roce_tx_have_xdp() ? ", xdp" : "");
		exit(EXIT_OK);
	}
	if (opt_line_rate && O.mode != RR_BPS)
		usage_error("--line-rate needs --mbps or --gbps");
	if (opt_strip) {
		if (O.rw.vlan == ROCE_RW_VLAN_SET || O.rw.vlan_pcp >= 0)
			usage_error("--vlan-strip cannot be combined with --vlan or --pcp");
		O.rw.vlan = ROCE_RW_VLAN_STRIP;
	}
	if (!O.ifname || !*O.ifname)
		usage_error("no interface (give -i IFACE; roce-replay sends only where told)");
	if (!opt_files->len)
		usage_error("no input file");
	for (unsigned i = 0; i < opt_files->len; i++)
		if (!strcmp(g_ptr_array_index(opt_files, i), "-"))
			stdin_uses++;
	if (stdin_uses > 1)
		usage_error("stdin (-) given more than once");
	O.line_rate = opt_line_rate;
	O.preload = opt_preload || O.threads > 1 || (stdin_uses && O.loops != 1);
	O.quiet = opt_quiet;
	O.json = opt_json;
	O.verbose = opt_verbose;
	if (O.quiet)
		O.stats_interval = 0;
	if (!O.burst)
		O.burst = ROCE_TX_MAX_BATCH;
	O.files = (const char **)opt_files->pdata;
	O.n_files = opt_files->len;
}

/* ---- frames: preloaded or streamed ------------------------------------------ */

/* Original-timing accumulator: per file, relative time, monotone; files and
 * loops follow each other with the file's mean gap in between. */
struct rr_tacc {
	uint64_t first_ts, last_rel, base, nseg;
	bool have_first;
};

static uint64_t tacc_add(struct rr_tacc *a, uint64_t ts)
{
	uint64_t r;

	if (!a->have_first) {
		a->first_ts = ts;
		a->have_first = true;
	}
	r = ts >= a->first_ts ? ts - a->first_ts : 0;
	if (r < a->last_rel)
		r = a->last_rel;
	a->last_rel = r;
	a->nseg++;
	return a->base + r;
}

static void tacc_end_file(struct rr_tacc *a)
{
	if (a->nseg)
		a->base += a->last_rel + (a->nseg > 1 ? a->last_rel / (a->nseg - 1) : 0);
	a->last_rel = 0;
	a->nseg = 0;
	a->have_first = false;
}

struct rr_rwstats {
	uint64_t rewritten, icrc_fixed, icrc_kept_bad, not_roce, icrc_unverified;
};

/*
 * Preloaded frames, back to back in one arena.  The arena is one reservation of
 * address space as large as the machine's memory (MAP_NORESERVE: only the pages
 * written cost memory) that never moves, backed by 2 MiB pages where the kernel
 * has them (MADV_HUGEPAGE): sending reads the whole preload again and again, and
 * with 4 KiB pages the TLB misses alone cost more than the copy on a VM.  The
 * unused tail is given back after the preload (the engines copy each frame
 * from here into their own buffers: sending straight from the arena was
 * slower on veth, see docs/perf/tools.md).  Where the reservation is
 * refused (vm.overcommit_memory=2) the arena grows with realloc() instead.
 */
#define RR_HUGE_PAGE ((size_t)2 << 20)
static struct {
	uint8_t *arena;
	size_t used, cap;
	uint8_t *map;          /* the reservation (NULL: arena is malloc()ed) */
	size_t map_len;
	uint64_t *off;         /* into arena */
	uint32_t *len;
	uint64_t *rel;         /* original timing, ns */
	uint64_t *cum;         /* weight bytes before the frame */
	uint64_t n, alloc;
	uint64_t total_w;      /* weight bytes of one pass */
	uint64_t period;       /* ns of one pass (original timing) */
} P;

static unsigned g_max_frame;

static uint64_t frame_weight(uint32_t len)
{
	return O.line_rate ? rr_l1_bytes(len) : len;
}

/*
 * Check, copy and rewrite one record into buf (cap bytes).  Returns 0, or
 * 2 after printing the one-line error.
 */
static int prepare(const char *file, const struct roce_cap_record *r, uint8_t *buf, size_t cap,
		   uint32_t *out_len, struct rr_rwstats *rs)
{
	size_t len = r->caplen;
	uint32_t res = 0;

	if (r->linktype != ROCE_LINKTYPE_ETHERNET) {
		fprintf(stderr, "%s: %s: frame %" PRIu64 ": link type %d cannot be sent on an "
			"Ethernet interface\n", RR_PROG, file, r->frame_no, r->linktype);
		return EXIT_USAGE;
	}
	if (len < 14) {
		fprintf(stderr, "%s: %s: frame %" PRIu64 ": %zu bytes, shorter than an Ethernet "
			"header\n", RR_PROG, file, r->frame_no, len);
		return EXIT_USAGE;
	}
	if (len > cap - 4) {
		fprintf(stderr, "%s: %s: frame %" PRIu64 ": %zu bytes is larger than %s's MTU "
			"allows (%u bytes with the Ethernet header and two VLAN tags)\n", RR_PROG,
			file, r->frame_no, len, O.ifname, g_max_frame);
		return EXIT_USAGE;
	}
	memcpy(buf, r->data, len);
	if (roce_rewrite_active(&O.rw)) {
		if (roce_rewrite_frame(&O.rw, ROCE_LINKTYPE_ETHERNET, buf, &len, cap, &res) !=
		    ROCE_OK)
			res = 0;
		if (res & (ROCE_RW_R_L2 | ROCE_RW_R_L3))
			rs->rewritten++;
		if (res & ROCE_RW_R_ICRC)
			rs->icrc_fixed++;
		if (res & ROCE_RW_R_ICRC_WAS_BAD)
			rs->icrc_kept_bad++;
		if (res & ROCE_RW_R_ICRC_UNVERIFIED)
			rs->icrc_unverified++;
		if (res & ROCE_RW_R_NOT_ROCE)
			rs->not_roce++;
	}
	if (len > g_max_frame) {
		fprintf(stderr, "%s: %s: frame %" PRIu64 ": %zu bytes%s is larger than %s's MTU "
			"allows (%u bytes with the Ethernet header and two VLAN tags)\n", RR_PROG,
			file, r->frame_no, len, res & ROCE_RW_R_L2 ? " after rewriting" : "",
			O.ifname, g_max_frame);
		return EXIT_USAGE;
	}
	*out_len = (uint32_t)len;
	return 0;
}

/* Reserve the arena (see P); false: use realloc() growth. */
static bool arena_reserve(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
	size_t len, head;

	if (pages <= 0 || psz <= 0)
		return false;
	len = ((size_t)pages * (size_t)psz + RR_HUGE_PAGE - 1) & ~(RR_HUGE_PAGE - 1);
	P.map = mmap(NULL, len + RR_HUGE_PAGE, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (P.map == MAP_FAILED) {
		P.map = NULL;
		return false;
	}
	P.map_len = len + RR_HUGE_PAGE;
	head = (RR_HUGE_PAGE - ((uintptr_t)P.map & (RR_HUGE_PAGE - 1))) & (RR_HUGE_PAGE - 1);
	P.arena = P.map + head;
	P.cap = len;
	(void)madvise(P.arena, P.cap, MADV_HUGEPAGE);
	return true;
}

/* After the preload: give back the reservation's unused tail. */
static void arena_trim(void)
{
	size_t keep;

	if (!P.map)
		return;
	keep = (size_t)(P.arena - P.map) + ((P.used + RR_HUGE_PAGE - 1) & ~(RR_HUGE_PAGE - 1));
	if (!keep)
		keep = RR_HUGE_PAGE;
	if (keep < P.map_len && !munmap(P.map + keep, P.map_len - keep)) {
		P.map_len = keep;
		P.cap = keep - (size_t)(P.arena - P.map);
	}
}

static void arena_free(void)
{
	if (P.map)
		munmap(P.map, P.map_len);
	else
		free(P.arena);
}

static bool grow(void **p, size_t elem, uint64_t n)
{
	void *q = realloc(*p, elem * n);

	if (!q)
		return false;
	*p = q;
	return true;
}

static int preload_all(struct rr_rwstats *rs)
{
	struct rr_tacc ta = { 0 };
	char errbuf[ROCE_ERRBUF_SIZE];

	(void)arena_reserve();
	for (unsigned fi = 0; fi < O.n_files; fi++) {
		roce_capfile_t *c = roce_cap_open(O.files[fi], errbuf);
		struct roce_cap_record r;
		int rc;

		if (!c) {
			fprintf(stderr, "%s: %s\n", RR_PROG, errbuf);
			return EXIT_USAGE;
		}
		while ((rc = roce_cap_next(c, &r)) == 1) {
			uint32_t len;
			int e;

			if (P.n == P.alloc) {
				uint64_t na = P.alloc ? P.alloc * 2 : 4096;

				if (!grow((void **)&P.off, sizeof(*P.off), na) ||
				    !grow((void **)&P.len, sizeof(*P.len), na) ||
				    !grow((void **)&P.rel, sizeof(*P.rel), na) ||
				    !grow((void **)&P.cum, sizeof(*P.cum), na))
					goto nomem;
				P.alloc = na;
			}
			if (P.cap - P.used < (size_t)g_max_frame + 4) {
				size_t nc = P.cap ? P.cap * 2 : (size_t)4 << 20;

				if (P.map || !grow((void **)&P.arena, 1, nc))
					goto nomem;
				P.cap = nc;
			}
			e = prepare(O.files[fi], &r, P.arena + P.used, (size_t)g_max_frame + 4,
				    &len, rs);
			if (e) {
				roce_cap_close(c);
				return e;
			}
			P.off[P.n] = P.used;
			P.len[P.n] = len;
			P.rel[P.n] = tacc_add(&ta, r.ts_ns);
			P.cum[P.n] = P.total_w;
			P.total_w += frame_weight(len);
			P.used += len;
			P.n++;
			continue;
nomem:
			fprintf(stderr, "%s: %s: frame %" PRIu64
				": out of memory while preloading\n", RR_PROG, O.files[fi],
				r.frame_no);
			roce_cap_close(c);
			return EXIT_USAGE;
		}
		if (rc < 0) {
			fprintf(stderr, "%s: %s\n", RR_PROG, roce_cap_error(c));
			roce_cap_close(c);
			return EXIT_USAGE;
		}
		roce_cap_close(c);
		tacc_end_file(&ta);
	}
	P.period = ta.base;
	arena_trim();
	return 0;
}

/* ---- sender threads ------------------------------------------------------- */

struct rr_thread {
	unsigned idx;
	pthread_t th;
	roce_tx_t *tx;
	struct rr_live *live;
	struct roce_tx_dev *dev;
	struct rr_rwstats rs;
	uint64_t last_ns;
	int fatal;          /* negative errno from the engine */
	int input_err;      /* streaming: exit status of a bad frame */
	/* streaming state (thread 0 only) */
	roce_capfile_t *cap;
	unsigned file;
	uint64_t loop;
	uint64_t frames_this_loop;
	struct rr_tacc ta;
	uint64_t cum;
	uint8_t *slots;
};

static uint64_t g_start_ns;

/* Deadline of frame g from the start, rounded to the nearest ns (1 us / 0.001 is 1 ms). */
static uint64_t sched_off(uint64_t g, uint64_t rel, uint64_t cumw)
{
	switch (O.mode) {
	case RR_ORIGINAL:
		return (uint64_t)((long double)rel / O.multiplier + 0.5L);
	case RR_PPS:
		return (uint64_t)((long double)g * 1e9L / O.pps + 0.5L);
	case RR_BPS:
		return (uint64_t)((long double)cumw * 8e9L / O.bps + 0.5L);
	default:
		return 0;
	}
}

/* Next frame of a preloaded run for thread t: 1, or 0 at the end. */
static int next_preloaded(struct rr_thread *t, uint64_t g, struct roce_tx_frame *fr,
			  uint64_t *off)
{
	uint64_t loop, i;

	if (!P.n)
		return 0;
	loop = g / P.n;
	i = g % P.n;
	if (O.loops && loop >= O.loops)
		return 0;
	fr->data = P.arena + P.off[i];
	fr->len = P.len[i];
	/* top speed has no schedule: its two arrays are not read */
	*off = O.mode == RR_TOPSPEED ? 0 :
		sched_off(g, loop * P.period + P.rel[i], loop * P.total_w + P.cum[i]);
	return 1;
}

/*
 * A streamed run: an input that cannot be opened is refused before anything is sent,
 * as with --preload (and as tcpreplay checks its files first): one line, exit 2, no
 * statistics.  The first input stays open for the sender; the other regular files are
 * opened again when their turn comes (pipes and stdin are read once: not tried here).
 */
static int open_inputs(struct rr_thread *t0)
{
	char errbuf[ROCE_ERRBUF_SIZE];
	struct stat st;

	for (unsigned fi = 0; fi < O.n_files; fi++) {
		roce_capfile_t *c;

		/* stdin, a pipe or a device after the first: read once, when its turn comes */
		if (fi && (!strcmp(O.files[fi], "-") ||
			   (stat(O.files[fi], &st) == 0 && !S_ISREG(st.st_mode))))
			continue;
		c = roce_cap_open(O.files[fi], errbuf);
		if (!c) {
			fprintf(stderr, "%s: %s\n", RR_PROG, errbuf);
			return EXIT_USAGE;
		}
		if (fi)
			roce_cap_close(c);
		else
			t0->cap = c;
	}
	return 0;
}

/* Next frame of a streamed run (one thread): 1, 0 at the end, -1 on an input error. */
static int next_streamed(struct rr_thread *t, uint64_t g, uint8_t *slot,
			 struct roce_tx_frame *fr, uint64_t *off)
{
	char errbuf[ROCE_ERRBUF_SIZE];
	struct roce_cap_record r;
	uint32_t len;
	int rc;

	for (;;) {
		if (!t->cap) {
			if (t->file == O.n_files) {
				if (!t->frames_this_loop)
					return 0;      /* nothing to send in a whole pass */
				t->loop++;
				t->file = 0;
				t->frames_this_loop = 0;
			}
			if (O.loops && t->loop >= O.loops)
				return 0;
			t->cap = roce_cap_open(O.files[t->file], errbuf);
			if (!t->cap) {
				fprintf(stderr, "%s: %s\n", RR_PROG, errbuf);
				t->input_err = EXIT_USAGE;
				return -1;
			}
		}
		rc = roce_cap_next(t->cap, &r);
		if (rc == 1)
			break;
		if (rc < 0) {
			fprintf(stderr, "%s: %s\n", RR_PROG, roce_cap_error(t->cap));
			t->input_err = EXIT_USAGE;
			return -1;
		}
		roce_cap_close(t->cap);
		t->cap = NULL;
		t->file++;
		tacc_end_file(&t->ta);
	}
	rc = prepare(O.files[t->file], &r, slot, (size_t)g_max_frame + 4, &len, &t->rs);
	if (rc) {
		t->input_err = rc;
		return -1;
	}
	fr->data = slot;
	fr->len = len;
	*off = sched_off(g, tacc_add(&t->ta, r.ts_ns), t->cum);
	t->cum += frame_weight(len);
	t->frames_this_loop++;
	return 1;
}

static void publish(struct rr_thread *t)
{
	const struct roce_tx_stats *s = roce_tx_stats(t->tx);

	atomic_store_explicit(&t->live->packets, s->packets, memory_order_relaxed);
	atomic_store_explicit(&t->live->bytes, s->bytes, memory_order_relaxed);
	atomic_store_explicit(&t->live->errors, s->errors, memory_order_relaxed);
	atomic_store_explicit(&t->live->retries, s->retries, memory_order_relaxed);
}

static int send_batch(struct rr_thread *t, struct roce_tx_frame *b, uint64_t *dl, unsigned n,
		      uint64_t *l1)
{
	uint64_t now = roce_tx_now_ns();
	int rc;

	if (O.mode != RR_TOPSPEED)
		for (unsigned i = 0; i < n; i++)
			roce_tx_dev_add(t->dev, now > dl[i] ? now - dl[i] : 0, 1);
	for (unsigned i = 0; i < n; i++)
		*l1 += rr_l1_bytes(b[i].len);
	rc = roce_tx_send(t->tx, b, n);
	atomic_store_explicit(&t->live->l1_bytes, *l1, memory_order_relaxed);
	publish(t);
	return rc;
}

/* how long after the end of --duration a sender behind its schedule may still send */
#define RR_DURATION_GRACE_NS 1000000000ull

static void *sender(void *arg)
{
	struct rr_thread *t = arg;
	struct roce_tx_frame b[ROCE_TX_MAX_BATCH];
	uint64_t dl[ROCE_TX_MAX_BATCH];
	/* frames in blocks of --burst, block k sent by thread k mod N */
	uint64_t skip = (uint64_t)(O.threads - 1) * O.burst;
	uint64_t g = (uint64_t)t->idx * O.burst, now, l1 = 0, seq = 0;
	unsigned in_blk = 0;
	uint64_t dur_ns = O.duration > 0 ? (uint64_t)(O.duration * 1e9 + 0.5) : 0;
	unsigned n = 0;
	int rc = 0;

	now = roce_tx_wait_until(g_start_ns);
	for (; !g_stop; g += ++in_blk == O.burst ? (in_blk = 0, 1 + skip) : 1) {
		struct roce_tx_frame fr;
		uint64_t off;
		int r;

		if (O.limit && g >= O.limit)
			break;
		if (O.preload) {
			r = next_preloaded(t, g, &fr, &off);
		} else {
			size_t slot = (size_t)(seq++ % (ROCE_TX_MAX_BATCH + 1));

			r = next_streamed(t, g, t->slots + slot * (g_max_frame + 4), &fr, &off);
		}
		if (r <= 0)
			break;
		if (O.mode == RR_TOPSPEED) {
			b[n++] = fr;
			if (n == O.burst) {
				rc = send_batch(t, b, dl, n, &l1);
				n = 0;
				if (rc)
					break;
				if (dur_ns && roce_tx_now_ns() - g_start_ns >= dur_ns)
					break;
			}
			continue;
		}
		/* the end of --duration: no frame due after it; a sender that has fallen
		 * behind (a rate above the host's) stops RR_DURATION_GRACE_NS after it, the
		 * rest unsent, while one stalled for a moment still sends every frame due
		 * (now: the clock at the last wait or send) */
		if (dur_ns && (off >= dur_ns || now - g_start_ns >= dur_ns + RR_DURATION_GRACE_NS))
			break;
		if (g_start_ns + off > now) {
			if (n) {
				rc = send_batch(t, b, dl, n, &l1);
				n = 0;
				if (rc)
					break;
			}
			/* long gaps in slices, so a signal is noticed */
			while (!g_stop && g_start_ns + off > roce_tx_now_ns() + 200000000ull)
				roce_tx_wait_until(roce_tx_now_ns() + 100000000ull);
			if (g_stop)
				break;
			now = roce_tx_wait_until(g_start_ns + off);
		}
		b[n] = fr;
		dl[n] = g_start_ns + off;
		n++;
		if (n == O.burst) {
			rc = send_batch(t, b, dl, n, &l1);
			n = 0;
			if (rc)
				break;
			now = roce_tx_now_ns();
		}
	}
	if (n && !rc)
		rc = send_batch(t, b, dl, n, &l1);
	if (!rc)
		rc = roce_tx_flush(t->tx);
	t->fatal = rc;
	t->last_ns = roce_tx_now_ns();
	publish(t);
	if (t->cap)
		roce_cap_close(t->cap);
	atomic_store_explicit(&t->live->done, 1, memory_order_release);
	return NULL;
}

/*
 * With several sender threads, thread i runs on the i-th CPU this process may use
 * (when it may use at least as many CPUs as there are threads): the threads do not
 * share a CPU or move between CPUs, as trafgen -P does with its processes.
 */
static void pin_thread(pthread_attr_t *attr, unsigned i)
{
	cpu_set_t allowed, one;
	unsigned seen = 0;

	if (O.threads < 2 || sched_getaffinity(0, sizeof(allowed), &allowed) ||
	    (unsigned)CPU_COUNT(&allowed) < O.threads)
		return;
	for (unsigned c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, &allowed))
			continue;
		if (seen++ == i) {
			CPU_ZERO(&one);
			CPU_SET(c, &one);
			(void)pthread_attr_setaffinity_np(attr, sizeof(one), &one);
			return;
		}
	}
}

static void on_signal(int sig)
{
	g_stop = 1;
}

int main(int argc, char **argv)
{
	struct rr_thread *th;
	struct rr_live *live;
	struct rr_final fin;
	struct rr_rwstats rs = { 0 };
	char errbuf[ROCE_ERRBUF_SIZE];
	struct sigaction sa;
	uint64_t next_report;
	int status = EXIT_OK;

	setlocale(LC_CTYPE, "");       /* not LC_NUMERIC: the statistics and --json print "." */
	parse_args(argc, argv);

	th = calloc(O.threads, sizeof(*th));
	live = aligned_alloc(_Alignof(struct rr_live), O.threads * sizeof(*live));
	if (live)
		memset(live, 0, O.threads * sizeof(*live));
	memset(&fin, 0, sizeof(fin));
	if (!th || !live) {
		fprintf(stderr, "%s: out of memory\n", RR_PROG);
		status = EXIT_USAGE;
		goto out;
	}
	for (unsigned i = 0; i < O.threads; i++) {
		struct roce_tx_opts to = { .ifname = O.ifname, .engine = O.engine, .queue = i };
		int st;

		th[i].idx = i;
		th[i].live = &live[i];
		th[i].tx = roce_tx_open(&to, errbuf, &st);
		if (!th[i].tx) {
			fprintf(stderr, "%s: %s\n", RR_PROG, errbuf);
			status = EXIT_USAGE;
			goto out;
		}
		if (i && strcmp(roce_tx_name(th[i].tx), roce_tx_name(th[0].tx))) {
			/* auto: xdp on queue 0 but not on queue i (too few queues): all afpacket */
			if (O.verbose)
				fprintf(stderr, "%s: %s: thread %u: %s; every thread uses "
					"afpacket\n", RR_PROG, O.ifname, i, roce_tx_note(th[i].tx));
			for (unsigned j = 0; j <= i; j++) {
				roce_tx_close(th[j].tx);
				th[j].tx = NULL;
				free(th[j].dev);
				th[j].dev = NULL;
			}
			O.engine = ROCE_TX_AFPACKET;
			i = (unsigned)-1;      /* the loop starts again at thread 0 */
			continue;
		}
		th[i].dev = calloc(1, sizeof(*th[i].dev));
		if (!th[i].dev) {
			fprintf(stderr, "%s: out of memory\n", RR_PROG);
			status = EXIT_USAGE;
			goto out;
		}
	}
	g_max_frame = roce_tx_max_frame(th[0].tx);
	fin.engine = roce_tx_name(th[0].tx);
	fin.engine_note = roce_tx_note(th[0].tx);
	fin.threads = O.threads;
	if (O.verbose)
		fprintf(stderr, "%s: %s: engine %s, %u thread%s%s%s\n", RR_PROG, O.ifname,
			fin.engine, O.threads, O.threads == 1 ? "" : "s",
			*fin.engine_note ? "; " : "", fin.engine_note);

	if (O.preload) {
		status = preload_all(&rs);
		if (status)
			goto out;
	} else {
		status = open_inputs(&th[0]);
		if (status)
			goto out;
		/* the frames of one batch plus the one being read: never the same slot */
		th[0].slots = malloc((size_t)(ROCE_TX_MAX_BATCH + 1) * (g_max_frame + 4));
		if (!th[0].slots) {
			fprintf(stderr, "%s: out of memory\n", RR_PROG);
			status = EXIT_USAGE;
			goto out;
		}
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	/* all threads start on the same deadline, a little ahead */
	g_start_ns = roce_tx_now_ns() + 2000000ull;
	for (unsigned i = 0; i < O.threads; i++) {
		pthread_attr_t attr;
		int prc;

		pthread_attr_init(&attr);
		pin_thread(&attr, i);
		prc = pthread_create(&th[i].th, &attr, sender, &th[i]);
		pthread_attr_destroy(&attr);
		if (prc) {
			fprintf(stderr, "%s: cannot start sender thread %u\n", RR_PROG, i);
			g_stop = 1;
			for (unsigned j = 0; j < i; j++)
				pthread_join(th[j].th, NULL);
			status = EXIT_USAGE;
			goto out;
		}
	}
	next_report = g_start_ns + (uint64_t)(O.stats_interval * 1e9);
	for (;;) {
		unsigned done = 0;
		struct timespec ts = { 0, 20000000 };
		uint64_t now;

		for (unsigned i = 0; i < O.threads; i++)
			done += (unsigned)atomic_load_explicit(&live[i].done, memory_order_acquire);
		if (done == O.threads)
			break;
		nanosleep(&ts, NULL);
		now = roce_tx_now_ns();
		if (O.stats_interval > 0 && now >= next_report) {
			rr_stats_live(&O, live, O.threads, g_start_ns, now);
			next_report += (uint64_t)(O.stats_interval * 1e9);
		}
	}
	for (unsigned i = 0; i < O.threads; i++) {
		const struct roce_tx_stats *s;

		pthread_join(th[i].th, NULL);
		s = roce_tx_stats(th[i].tx);
		fin.packets += s->packets;
		fin.bytes += s->bytes;
		fin.errors += s->errors;
		fin.retries += s->retries;
		fin.l1_bytes += atomic_load(&live[i].l1_bytes);
		roce_tx_dev_merge(&fin.dev, th[i].dev);
		if (th[i].last_ns - g_start_ns > fin.elapsed_ns && th[i].last_ns > g_start_ns)
			fin.elapsed_ns = th[i].last_ns - g_start_ns;
		rs.rewritten += th[i].rs.rewritten;
		rs.icrc_fixed += th[i].rs.icrc_fixed;
		rs.icrc_kept_bad += th[i].rs.icrc_kept_bad;
		rs.icrc_unverified += th[i].rs.icrc_unverified;
		rs.not_roce += th[i].rs.not_roce;
		if (th[i].fatal && !fin.fatal) {
			fin.fatal = th[i].fatal;
			fprintf(stderr, "%s: %s: send failed: %s\n", RR_PROG, O.ifname,
				strerror(-th[i].fatal));
		}
		if (th[i].input_err)
			status = th[i].input_err;
	}
	fin.rewritten = rs.rewritten;
	fin.icrc_fixed = rs.icrc_fixed;
	fin.icrc_kept_bad = rs.icrc_kept_bad;
	fin.icrc_unverified = rs.icrc_unverified;
	fin.not_roce = rs.not_roce;
	rr_stats_final(&O, &fin);
	if (!status && fin.fatal)
		status = EXIT_USAGE;
	if (!status && fin.errors)
		status = EXIT_SENDERR;
out:
	for (unsigned i = 0; th && i < O.threads; i++) {
		roce_tx_close(th[i].tx);
		free(th[i].dev);
		free(th[i].slots);
	}
	free(th);
	free(live);
	arena_free();
	free(P.off);
	free(P.len);
	free(P.rel);
	free(P.cum);
	g_ptr_array_free(opt_files, TRUE);
	g_free((char *)O.ifname);
	return status;
}
