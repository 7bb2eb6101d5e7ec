/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * main.c - roce-gen: generate RoCE v1/v2 traffic with chosen faults into a
 * capture file (-w) or onto an interface (-i).  Options are declared once
 * in a GOptionEntry table (parsing and --help); each one is applied by
 * rg_config_set() under its long name, the same keys a scenario file uses.
 *
 * Exit status: 0 ok, 1 writing the output failed, 2 usage error or bad
 * scenario file.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <inttypes.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include <roce/roce.h>

#include "gen.h"
#include "opts.h"

static struct rg_config cfg;
static gboolean opt_version, opt_json, opt_quiet;

static gboolean set_cb(const char *name, const char *val, gpointer data, GError **err)
{
	char e[512];
	const char *key = name + 2;     /* "--qps" -> "qps" */

	if (name[1] != '-') {           /* short options */
		switch (name[1]) {
		case 'w': key = "write"; break;
		case 'i': key = "interface"; break;
		case 'c': key = "count"; break;
		case 'm': key = "messages"; break;
		case 's': key = "seed"; break;
		default: break;
		}
	}
	if (!strcmp(key, "random-psn") || !strcmp(key, "mpls-pw"))
		val = "1";
	if (rg_config_set(&cfg, key, val, e, sizeof(e))) {
		size_t kl = strlen(key);

		/* the option as typed ("-c '0': ..."), not the scenario key ("count '0': ...") */
		if (!strncmp(e, key, kl) && (e[kl] == ' ' || e[kl] == ':'))
			g_set_error(err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "%s%s", name,
				    e + kl);
		else
			g_set_error(err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "%s: %s", name,
				    e);
		return FALSE;
	}
	return TRUE;
}

static gboolean scenario_cb(const char *name, const char *val, gpointer data, GError **err)
{
	char e[512];

	if (rg_scenario_load(&cfg, val, e, sizeof(e))) {
		g_set_error(err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "%s %s", name, e);
		return FALSE;
	}
	return TRUE;
}

/*
 * -V/--version prints the program version and exits 0, as in tcpdump and tcpreplay; it never
 * takes a value ("-V v1" prints the version too).  Older roce-gen also took the RoCE version
 * there ("--version v1", "--version=v6"): the spelling with a space is now the version
 * request plus a stray word (a note on stderr names --roce), the one with "=", which cannot
 * be read as the version request, still sets it, as a deprecated alias of --roce with a
 * warning (an unknown value is refused, naming --roce).
 */
static bool roce_version_word(const char *w)
{
	static const char *const rv[] = { "v1", "v2", "v6", "1", "2", "6", "v4" };

	for (size_t k = 0; k < G_N_ELEMENTS(rv); k++)
		if (!strcmp(w, rv[k]))
			return true;
	return false;
}

/* "--version=V" (before any "--") becomes "--roce=V", in place (it is the shorter). */
static void rewrite_version(int argc, char **argv)
{
	static const char old[] = "--version=", new[] = "--roce=";
	char e[256];

	for (int i = 1; i < argc; i++) {
		char *a = argv[i];
		const char *v = a + sizeof(old) - 1;

		if (!strcmp(a, "--"))
			return;
		if (strncmp(a, old, sizeof(old) - 1))
			continue;
		if (!roce_version_word(v)) {
			snprintf(e, sizeof(e), "%s: --version takes no value (the RoCE version is "
				 "--roce v1, v2 or v6)", a);
			roce_usage_error(RG_PROG, e, RG_EXIT_USAGE);
		}
		fprintf(stderr, "%s: warning: %s is deprecated, use --roce %s\n", RG_PROG, a, v);
		memmove(a + sizeof(new) - 1, v, strlen(v) + 1);
		memcpy(a, new, sizeof(new) - 1);
	}
}

#define CB G_OPTION_ARG_CALLBACK, (gpointer)set_cb
#define NOARG G_OPTION_FLAG_NO_ARG

static const GOptionEntry out_entries[] = {
	{ "write", 'w', 0, CB, "Write frames to FILE (pcap, nanosecond timestamps; pcapng when "
	  "FILE ends in .pcapng; - = stdout)", "FILE" },
	{ "interface", 'i', 0, CB, "Send frames on IFACE, paced by their timestamps (see --rate)",
	  "IFACE" },
	{ "engine", 0, 0, CB, "With -i: TX engine auto (default), afpacket or xdp", "NAME" },
	{ "scenario", 0, 0, G_OPTION_ARG_CALLBACK, (gpointer)scenario_cb,
	  "Read settings from a scenario FILE (INI; see roce-gen(1)); options given after it "
	  "override it", "FILE" },
	{ "count", 'c', 0, CB, "Stop after N frames", "N" },
	{ "messages", 'm', 0, CB, "Generate N messages (default 1000 when -c is not given)", "N" },
	{ "seed", 's', 0, CB, "Seed of the traffic and fault choices (default 1)", "N" },
	{ "json", 0, 0, G_OPTION_ARG_NONE, &opt_json,
	  "Print the summary as JSON (roce-analyze --json counter names)", NULL },
	{ "quiet", 'q', 0, G_OPTION_ARG_NONE, &opt_quiet, "Print no summary", NULL },
	{ "version", 'V', 0, G_OPTION_ARG_NONE, &opt_version,
	  "Print the program version and exit (the RoCE version is --roce)", NULL },
	{ NULL, 0, 0, 0, NULL, NULL, NULL }
};

static const GOptionEntry traffic_entries[] = {
	{ "roce", 0, 0, CB, "RoCE version: v1 (GRH), v2 (IPv4, default) or v6 (v2 over IPv6)",
	  "V" },
	{ "qps", 0, 0, CB, "QPs per host pair (default 1)", "N" },
	{ "hosts", 0, 0, CB, "Host pairs (default 1)", "N" },
	{ "verbs", 0, 0, CB, "Verbs mix: write, write_imm, send, send_imm, read, atomic, "
	  "ud_send, xrc, uc_write, uc_write_imm, uc_send, uc_send_imm, each with an optional "
	  ":WEIGHT (default write)", "LIST" },
	{ "msg-size", 0, 0, CB, "Message size: N, a list N,M,... (with :WEIGHT), "
	  "uniform:MIN-MAX or exp:MEAN[:MAX] (default 4096)", "SPEC" },
	{ "pmtu", 0, 0, CB, "Path MTU: 256, 512, 1024 (default), 2048, 4096", "BYTES" },
	{ "ack-every", 0, 0, CB, "AckReq (and one ACK) every N messages per QP (default 1)", "N" },
	{ "random-psn", 0, NOARG, CB, "Random initial PSN per QP (from the seed)", NULL },
	{ "first-psn", 0, 0, CB, "Initial PSN of every QP (default 0)", "PSN" },
	{ "qpn", 0, 0, CB, "First QP number (default 0x100; 8 numbers per QP)", "N" },
	{ "rate", 0, 0, CB, "Timestamps spaced at this line rate in bit/s, frame + FCS + "
	  "preamble + IFG (default 100G)", "BPS" },
	{ "pps", 0, 0, CB, "Timestamps spaced at this many frames per second", "PPS" },
	{ "start-time", 0, 0, CB, "First timestamp, seconds since the epoch (default "
	  "1764374400)", "SECONDS" },
	{ NULL, 0, 0, 0, NULL, NULL, NULL }
};

static const GOptionEntry addr_entries[] = {
	{ "src-mac", 0, 0, CB, "Requester MAC (+ pair index; default 02:00:00:00:00:0a)", "MAC" },
	{ "dst-mac", 0, 0, CB, "Responder MAC (+ pair index; default 02:00:00:00:00:0b)", "MAC" },
	{ "src-ip", 0, 0, CB, "Requester address (+ pair index)", "ADDR" },
	{ "dst-ip", 0, 0, CB, "Responder address (+ pair index)", "ADDR" },
	{ "sport", 0, 0, CB, "UDP source port (default: 0xC000 + a hash of the QP)", "PORT" },
	{ "vlan", 0, 0, CB, "802.1Q tag VID[:PCP]", "VID" },
	{ "pcp", 0, 0, CB, "802.1p priority of the tag", "PCP" },
	{ "dscp", 0, 0, CB, "DSCP of RoCE frames (default 26)", "N" },
	{ "ecn", 0, 0, CB, "ECN bits: 0..3, not-ect, ect0 (default), ect1, ce", "ECN" },
	{ "cnp-dscp", 0, 0, CB, "DSCP of CNPs (default 48)", "N" },
	{ "encap", 0, 0, CB, "Wrap every frame: erspan1, erspan2, erspan3, gre, vxlan, geneve "
	  "(outer 192.0.2.1 -> 192.0.2.2), mpls", "TYPE" },
	{ "mpls-labels", 0, 0, CB, "--encap mpls: the label stack, outermost first "
	  "(default 100; at most 8)", "L,..." },
	{ "mpls-pw", 0, NOARG, CB, "--encap mpls: IP frames too as an Ethernet pseudowire "
	  "(control word and the whole frame)", NULL },
	{ "mirror-snaplen", 0, 0, CB, "ERSPAN II/III: the mirror cuts frames to N bytes (T bit)",
	  "N" },
	{ NULL, 0, 0, 0, NULL, NULL, NULL }
};

static const GOptionEntry fault_entries[] = {
	{ "drop-psn", 0, 0, CB, "Lose these request PSNs before the capture point (RC, XRC: "
	  "NAK, go-back-N; UC, UD: a gap that stays); LIST: PSN, A-B or QP/PSN, comma "
	  "separated", "LIST" },
	{ "loss", 0, 0, CB, "Lose request packets with probability P (0.02 or 2%)", "P" },
	{ "drop-rate", 0, 0, CB, "Same as --loss", "P" },
	{ "timeout-psn", 0, 0, CB, "Lose the ACK of the messages starting at these PSNs "
	  "(retry timeout, resend; RC and XRC only)", "LIST" },
	{ "timeout-rate", 0, 0, CB, "... of messages with probability P", "P" },
	{ "rnr-psn", 0, 0, CB, "RNR NAK the SEND starting at these PSNs (RC and XRC only)",
	  "LIST" },
	{ "rnr-rate", 0, 0, CB, "... SENDs with probability P", "P" },
	{ "dup-psn", 0, 0, CB, "Duplicate these request packets", "LIST" },
	{ "dup-rate", 0, 0, CB, "... with probability P", "P" },
	{ "reorder-psn", 0, 0, CB, "Swap these request packets with the next one", "LIST" },
	{ "reorder-rate", 0, 0, CB, "... with probability P", "P" },
	{ "read-loss-psn", 0, 0, CB, "Lose the READ responses with these PSNs (re-read)",
	  "LIST" },
	{ "read-loss-rate", 0, 0, CB, "... with probability P", "P" },
	{ "bad-icrc-psn", 0, 0, CB, "Corrupt the ICRC of these request packets", "LIST" },
	{ "bad-icrc-rate", 0, 0, CB, "... with probability P", "P" },
	{ "bad-payload-psn", 0, 0, CB, "Flip a payload bit of these request packets", "LIST" },
	{ "bad-payload-rate", 0, 0, CB, "... with probability P", "P" },
	{ "ce-psn", 0, 0, CB, "Mark these request packets ECN CE (answered by CNPs)", "LIST" },
	{ "ce-rate", 0, 0, CB, "... with probability P", "P" },
	{ "cnp-interval", 0, 0, CB, "At most one CNP per QP per interval (default 50us)", "TIME" },
	{ "rnr-timer", 0, 0, CB, "RNR timer code in the RNR NAK (default 14)", "CODE" },
	{ "retry-timeout", 0, 0, CB, "Requester retry timeout (default 4096us)", "TIME" },
	{ "pfc", 0, 0, CB, "PFC pause train: prio=P[,quanta=Q][,refresh=T][,length=T]"
	  "[,start=T][,xon=0|1][,mac=MAC]; repeatable", "SPEC" },
	{ "pause", 0, 0, CB, "802.3x PAUSE train: same keys without prio", "SPEC" },
	{ "link-speed", 0, 0, CB, "Link speed for pause quanta in the summary, Gbit/s "
	  "(default 100)", "GBPS" },
	{ "pfc-storm-ms", 0, 0, CB, "Continuous pause that counts as a storm in the summary "
	  "(default 200)", "MS" },
	{ NULL, 0, 0, 0, NULL, NULL, NULL }
};

static const char description[] =
	"Every frame is built by libroce's frame builder (valid ICRC, lengths and\n"
	"checksums unless a fault says otherwise).  The same seed and options give\n"
	"the same bytes.  Settings apply in command-line order.\n"
	"\n"
	"Exit status:\n"
	"  0  generated (-i: every frame sent)\n"
	"  1  writing the output failed (-i: the kernel refused frames)\n"
	"  2  usage error, bad scenario file, the output could not be opened\n"
	"     (-i: missing or down interface, no CAP_NET_RAW, a frame over the MTU)\n"
	"\n"
	"Examples:\n"
	"  roce-gen -w rc.pcap --qps 16 --verbs write:3,read:1 -m 10000\n"
	"  roce-gen -w loss.pcapng --loss 0.01 --seed 7 --json\n"
	"  roce-gen -w storm.pcap -m 100 --pfc prio=3,refresh=200us,length=250ms\n"
	"  roce-gen --scenario captures/rocev2_write_loss.ini -w out.pcap\n"
	"\n"
	"See roce-gen(1) and docs/roce-gen.md.\n";

int main(int argc, char **argv)
{
	GOptionContext *oc;
	struct rg_output out;
	struct rg_truth truth;
	char e[512];
	int rc;
	FILE *sf;

	setlocale(LC_CTYPE, "");       /* glib's messages in the user's charset; numbers stay C */
	rg_config_defaults(&cfg);
	rewrite_version(argc, argv);
	oc = g_option_context_new("-w FILE | -i IFACE");
	g_option_context_set_summary(oc,
		"Generate RoCE v1/v2 traffic (RC/UC/UD/XRC verbs, PMTU segmentation, ACKs, READ\n"
		"responses) with chosen faults: loss and go-back-N, RNR, timeouts, duplicates,\n"
		"reordering, READ re-reads, bad ICRC/payload, ECN CE and CNPs, PFC and PAUSE.\n"
		"Loss, damage, duplicates, reordering and CE hit UC and UD packets too (no\n"
		"recovery: unreliable service); timeouts, RNR and READ loss hit RC/XRC only.");
	g_option_context_set_description(oc, description);
	g_option_context_add_main_entries(oc, out_entries, NULL);
	g_option_context_add_main_entries(oc, traffic_entries, NULL);
	g_option_context_add_main_entries(oc, addr_entries, NULL);
	g_option_context_add_main_entries(oc, fault_entries, NULL);
	roce_opt_parse_or_exit(oc, &argc, &argv, RG_PROG, RG_EXIT_USAGE);
	if (opt_version) {
		for (int i = 1; i < argc; i++) {
			if (!roce_version_word(argv[i]))
				continue;
			fprintf(stderr, "%s: note: -V/--version takes no value: '%s' is not "
				"read as the RoCE version (that is --roce %s)\n", RG_PROG,
				argv[i], argv[i]);
		}
		printf("%s %s (roce-tools)\n%s\n", RG_PROG, ROCE_VERSION_STRING, roce_version());
		return RG_EXIT_OK;
	}
	if (argc > 1) {
		snprintf(e, sizeof(e), "unexpected argument '%s'", argv[1]);
		roce_usage_error(RG_PROG, e, RG_EXIT_USAGE);
	}
	if (rg_config_check(&cfg, e, sizeof(e)))
		roce_usage_error(RG_PROG, e, RG_EXIT_USAGE);
	if (rg_output_open(&out, &cfg, e, sizeof(e))) {
		fprintf(stderr, "%s: %s\n", RG_PROG, e);
		return RG_EXIT_USAGE;
	}
	rc = rg_generate(&cfg, &out, &truth, e, sizeof(e));
	if (out.ops->close(&out) && !rc) {
		snprintf(e, sizeof(e), "%s: write failed", out.name);
		rc = -1;
	}
	if (rc) {
		fprintf(stderr, "%s: %s: %s\n", RG_PROG, out.name, out.err[0] ? out.err : e);
		rg_config_free(&cfg);
		return out.exit_status ? out.exit_status : RG_EXIT_FAIL;
	}
	if (cfg.iface)
		fprintf(stderr, "%s: %s: %" PRIu64 " frames sent (engine %s), %" PRIu64
			" send errors\n", RG_PROG, cfg.iface, out.sent, out.engine, out.send_errors);
	/* the summary goes to stdout unless the frames do */
	sf = cfg.write_path && !strcmp(cfg.write_path, "-") ? stderr : stdout;
	if (!opt_quiet)
		rg_summary_print(&cfg, &truth, opt_json, sf);
	rg_config_free(&cfg);
	/* the summary is output too: "roce-gen ... > /dev/full" is not a success */
	if (fflush(sf) != 0 || ferror(sf)) {
		fprintf(stderr, "%s: error writing the summary: %s\n", RG_PROG,
			g_strerror(errno ? errno : EIO));
		return RG_EXIT_FAIL;
	}
	return RG_EXIT_OK;
}
