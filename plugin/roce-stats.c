/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * roce-stats.c - the Wireshark plugin's statistics: tshark -z roce,qp and
 * -z roce,pfc (text tables) and the stats_trees of Statistics > RoCE (also
 * tshark -z roce_qp,tree and -z roce_pfc,tree).
 *
 * Every value is the analyzer's own (roce_analyzer_foreach_flow() and
 * roce_analyzer_foreach_pfc() on the analyzer packet-roce.c runs over the
 * file's first pass, read through the getter packet-roce.c hands to
 * roce_stats_register()): the counters roce-analyze reports, computed once
 * by libroce and only printed or copied here.  packet-roce.c registers the
 * "roce" tap and calls roce_stats_register(); this file calls nothing there.
 */

#define WS_BUILD_DLL
#include <wireshark.h>
#include <ws_version.h>

#include <epan/packet.h>
#include <epan/stat_tap_ui.h>
#include <epan/stats_tree.h>
#include <epan/tap.h>

#include <roce/analyzer.h>
#include <roce/roce.h>

#include "packet-roce.h"

/* packet-roce.c's analyzer of the current file (roce_stats_register()'s argument) */
static roce_analyzer_t *(*roce_stats_analyzer)(void);

/* A -z statistic's init callback says whether it started from Wireshark 4.6
 * on (4.4: void; the 4.5 development series made the change). */
#if WIRESHARK_VERSION_MAJOR > 4 || (WIRESHARK_VERSION_MAJOR == 4 && WIRESHARK_VERSION_MINOR >= 5)
typedef bool roce_stat_init_ret;
#define ROCE_STAT_INIT_RETURN(ok) return (ok)
#else
typedef void roce_stat_init_ret;
#define ROCE_STAT_INIT_RETURN(ok) return
#endif

/* ---- statistics: tshark -z roce,qp and -z roce,pfc ---- */

/*
 * The tables are the analyzer's own per-stream and per-(MAC, priority)
 * statistics, read when the statistic is drawn (after the first pass): the
 * same counters roce-analyze reports, computed once by libroce, never
 * recounted here.  The statistic therefore takes no display filter (the
 * counters cover every frame of the file, as roce-analyze's do); the tap
 * listener is only there so tshark calls the draw routine at the end.
 */
typedef struct {
	int which;              /* 0 = qp, 1 = pfc */
} roce_stat_t;

/*
 * A listener on the "roce" tap for owner (a g_malloc()ed block, freed here
 * when the listener cannot be registered): true when registered.
 */
static bool roce_tap_listen(void *owner, tap_packet_cb packet, tap_draw_cb draw,
	tap_finish_cb finish)
{
	GString *err = register_tap_listener("roce", owner, NULL, TL_REQUIRES_NOTHING, NULL,
		packet, draw, finish);

	if (err == NULL)
		return true;
	ws_warning("roce: cannot register the statistic: %s", err->str);
	g_string_free(err, TRUE);
	g_free(owner);
	return false;
}

static tap_packet_status roce_stat_packet(void *tapdata _U_, packet_info *pinfo _U_,
	epan_dissect_t *edt _U_, const void *data _U_, tap_flags_t flags _U_)
{
	return TAP_PACKET_DONT_REDRAW;
}

static void roce_stat_us(uint64_t ns, char *buf, size_t len)
{
	snprintf(buf, len, "%" PRIu64 ".%03" PRIu64, ns / 1000u, ns % 1000u);
}

static int roce_stat_qp_row(void *user _U_, const struct roce_flow_stats *f)
{
	char src[64], dst[64], p50[32], p99[32];

	roce_addr_str(f->key.src, src, sizeof src);
	roce_addr_str(f->key.dst, dst, sizeof dst);
	if (f->rtt.count) {
		roce_stat_us(f->rtt.p50_ns, p50, sizeof p50);
		roce_stat_us(f->rtt.p99_ns, p99, sizeof p99);
	} else {
		snprintf(p50, sizeof p50, "-");
		snprintf(p99, sizeof p99, "-");
	}
	printf("v%u %s > %s qp 0x%06x  %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
		" %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %s %s\n",
		f->key.version, src, dst, f->key.dqpn, f->frames, f->bytes, f->psn_gaps,
		f->lost_psns, f->duplicates, f->out_of_order, f->retransmissions, f->naks,
		f->rnr_naks, f->cnps, f->ecn_ce, p50, p99);
	return 0;
}

static int roce_stat_pfc_row(void *user _U_, const struct roce_pfc_stats *p)
{
	char mac[24], paused[32], longest[32];

	roce_mac_str(p->src_mac, mac, sizeof mac);
	roce_stat_us(p->paused_ns, paused, sizeof paused);
	roce_stat_us(p->longest_pause_ns, longest, sizeof longest);
	if (p->priority < 0)
		printf("%s pause ", mac);
	else
		printf("%s %d ", mac, p->priority);
	printf(" %" PRIu64 " %" PRIu64 " %" PRIu64 " %s %s %" PRIu64 "\n",
		p->frames, p->xoff, p->xon, paused, longest, p->storms);
	return 0;
}

static void roce_stat_draw(void *tapdata)
{
	const roce_stat_t *st = (const roce_stat_t *)tapdata;
	roce_analyzer_t *an = roce_stats_analyzer();
	static const char rule[] =
		"===================================================================";

	printf("\n%s\n", rule);
	if (an == NULL) {
		printf("RoCE statistics: no analysis (the roce protocol is disabled?)\n%s\n", rule);
		return;
	}
	/* End of input for the analyzer: closes open pauses, as roce-analyze does. */
	roce_analyzer_finish(an);
	if (st->which == 0) {
		printf("RoCE Queue Pairs (roce-tools; counters as roce-analyze's qps table)\n");
		printf("Stream  Frames Bytes Gaps Lost Dup OOO Retx NAKs RNR CNPs CE "
			"RTT_p50_us RTT_p99_us\n");
		roce_analyzer_foreach_flow(an, roce_stat_qp_row, NULL);
	} else {
		printf("RoCE PFC/PAUSE (roce-tools; per source MAC and priority)\n");
		printf("Source_MAC Priority  Frames XOFF XON Paused_us Longest_us Storms\n");
		roce_analyzer_foreach_pfc(an, roce_stat_pfc_row, NULL);
	}
	printf("%s\n", rule);
}

static void roce_stat_finish(void *tapdata)
{
	g_free(tapdata);
}

static roce_stat_init_ret roce_stat_init(const char *opt_arg, void *userdata)
{
	roce_stat_t *st = g_new0(roce_stat_t, 1);
	int which = GPOINTER_TO_INT(userdata);
	const char *prefix = which == 0 ? "roce,qp" : "roce,pfc";

	st->which = which;
	if (opt_arg != NULL && strcmp(opt_arg, prefix) != 0)
		ws_warning("roce: -z %s takes no filter; the counters cover the whole file",
			prefix);
	if (!roce_tap_listen(st, roce_stat_packet, roce_stat_draw, roce_stat_finish))
		ROCE_STAT_INIT_RETURN(false);
	ROCE_STAT_INIT_RETURN(true);
}

static stat_tap_ui roce_stat_qp_ui = {
	REGISTER_STAT_GROUP_GENERIC, "RoCE Queue Pairs", "roce,qp", roce_stat_init, 0, NULL
};
static stat_tap_ui roce_stat_pfc_ui = {
	REGISTER_STAT_GROUP_GENERIC, "RoCE PFC/PAUSE", "roce,pfc", roce_stat_init, 0, NULL
};

/* ---- statistics in the GUI: Statistics > RoCE > Queue Pairs / PFC and PAUSE ---- */

/*
 * stats_trees (also tshark -z roce_qp,tree and -z roce_pfc,tree): one node
 * per stream (its count: the stream's frames) with a child per counter, or
 * per (source MAC, priority).  As for -z roce,qp the values are the
 * analyzer's own, copied into the tree when it is drawn: each tree gets a
 * helper listener on the "roce" tap, registered in the tree's init routine,
 * so after the tree's own listener, and therefore drawn before it (the tap
 * list is drawn newest first).  stats_tree counts are 32-bit: larger values
 * show as 2147483647 (tshark -z roce,qp has them exact).
 */
typedef struct {
	stats_tree *st;
	int which;              /* 0 = qp, 1 = pfc */
} roce_st_helper_t;

static GHashTable *roce_st_helpers = NULL;     /* stats_tree * -> roce_st_helper_t * */

static gint roce_st_int(uint64_t v)
{
	return v > (uint64_t)G_MAXINT ? G_MAXINT : (gint)v;
}

static void roce_st_set(stats_tree *st, const char *name, int parent, uint64_t v)
{
	stats_tree_manip_node_int(MN_SET, st, name, parent, FALSE, roce_st_int(v));
}

static int roce_st_qp_row(void *user, const struct roce_flow_stats *f)
{
	stats_tree *st = (stats_tree *)user;
	char src[64], dst[64], name[192];
	int id;

	roce_addr_str(f->key.src, src, sizeof src);
	roce_addr_str(f->key.dst, dst, sizeof dst);
	snprintf(name, sizeof name, "v%u %s > %s qp 0x%06x", f->key.version, src, dst,
		f->key.dqpn);
	id = stats_tree_manip_node_int(MN_SET, st, name, 0, TRUE, roce_st_int(f->frames));
	roce_st_set(st, "Bytes", id, f->bytes);
	roce_st_set(st, "PSN gaps", id, f->psn_gaps);
	roce_st_set(st, "Lost PSNs", id, f->lost_psns);
	roce_st_set(st, "Unrecovered PSNs", id, f->unrecovered_psns);
	roce_st_set(st, "ACKed unseen PSNs", id, f->acked_unseen_psns);
	roce_st_set(st, "Duplicates", id, f->duplicates);
	roce_st_set(st, "Out of order", id, f->out_of_order);
	roce_st_set(st, "Retransmissions", id, f->retransmissions);
	roce_st_set(st, "NAKs", id, f->naks);
	roce_st_set(st, "RNR NAKs", id, f->rnr_naks);
	roce_st_set(st, "CNPs", id, f->cnps);
	roce_st_set(st, "ECN CE", id, f->ecn_ce);
	if (f->rtt.count) {
		roce_st_set(st, "RTT p50 (us)", id, f->rtt.p50_ns / 1000u);
		roce_st_set(st, "RTT p99 (us)", id, f->rtt.p99_ns / 1000u);
	}
	return 0;
}

static int roce_st_pfc_row(void *user, const struct roce_pfc_stats *p)
{
	stats_tree *st = (stats_tree *)user;
	char mac[24], name[64];
	int id;

	roce_mac_str(p->src_mac, mac, sizeof mac);
	if (p->priority < 0)
		snprintf(name, sizeof name, "%s PAUSE", mac);
	else
		snprintf(name, sizeof name, "%s priority %d", mac, p->priority);
	id = stats_tree_manip_node_int(MN_SET, st, name, 0, TRUE, roce_st_int(p->frames));
	roce_st_set(st, "XOFF", id, p->xoff);
	roce_st_set(st, "XON", id, p->xon);
	roce_st_set(st, "Paused (us)", id, p->paused_ns / 1000u);
	roce_st_set(st, "Longest pause (us)", id, p->longest_pause_ns / 1000u);
	roce_st_set(st, "Storms", id, p->storms);
	return 0;
}

static tap_packet_status roce_st_helper_packet(void *tapdata _U_, packet_info *pinfo _U_,
	epan_dissect_t *edt _U_, const void *data _U_, tap_flags_t flags _U_)
{
	return TAP_PACKET_REDRAW;
}

static void roce_st_helper_draw(void *tapdata)
{
	roce_st_helper_t *h = (roce_st_helper_t *)tapdata;
	roce_analyzer_t *an = roce_stats_analyzer();

	if (an == NULL)
		return;
	roce_analyzer_finish(an);  /* end of input, as for -z roce,qp */
	if (h->which == 0)
		roce_analyzer_foreach_flow(an, roce_st_qp_row, h->st);
	else
		roce_analyzer_foreach_pfc(an, roce_st_pfc_row, h->st);
}

static void roce_st_init(stats_tree *st, int which)
{
	roce_st_helper_t *h;

	if (roce_st_helpers == NULL)
		roce_st_helpers = g_hash_table_new(g_direct_hash, g_direct_equal);
	if (g_hash_table_lookup(roce_st_helpers, st) != NULL)
		return;         /* re-initialised: the helper is there */
	h = g_new0(roce_st_helper_t, 1);
	h->st = st;
	h->which = which;
	if (!roce_tap_listen(h, roce_st_helper_packet, roce_st_helper_draw, NULL))
		return;
	g_hash_table_insert(roce_st_helpers, st, h);
}

static void roce_st_qp_init(stats_tree *st)
{
	roce_st_init(st, 0);
}

static void roce_st_pfc_init(stats_tree *st)
{
	roce_st_init(st, 1);
}

static void roce_st_cleanup(stats_tree *st)
{
	roce_st_helper_t *h;

	if (roce_st_helpers == NULL)
		return;
	h = (roce_st_helper_t *)g_hash_table_lookup(roce_st_helpers, st);
	if (h == NULL)
		return;
	g_hash_table_remove(roce_st_helpers, st);
	remove_tap_listener(h);
	g_free(h);
}

static tap_packet_status roce_st_packet(stats_tree *st _U_, packet_info *pinfo _U_,
	epan_dissect_t *edt _U_, const void *data _U_, tap_flags_t flags _U_)
{
	return TAP_PACKET_REDRAW;
}

/* ---- registration (called by proto_register_roce()) ---- */

void roce_stats_register(roce_analyzer_t *(*analyzer)(void))
{
	roce_stats_analyzer = analyzer;
	register_stat_tap_ui(&roce_stat_qp_ui, GINT_TO_POINTER(0));
	register_stat_tap_ui(&roce_stat_pfc_ui, GINT_TO_POINTER(1));
	stats_tree_register_plugin("roce", "roce_qp", "RoCE/Queue Pairs", 0, roce_st_packet,
		roce_st_qp_init, roce_st_cleanup);
	stats_tree_register_plugin("roce", "roce_pfc", "RoCE/PFC and PAUSE", 0, roce_st_packet,
		roce_st_pfc_init, roce_st_cleanup);
}
