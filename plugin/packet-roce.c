/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * packet-roce.c - Wireshark epan plugin: RoCE v1/v2 ICRC validation, PSN /
 * NAK / ECN / CNP analysis and PFC timing, as a post-dissector.
 *
 * The plugin is an adapter over libroce: it has no decoding or analysis
 * logic of its own.  On the first (sequential) pass every frame goes
 * through roce_decode() and roce_analyzer_process() exactly once; the
 * decoded facts and the analyzer's struct roce_frame_result are stored with
 * the frame (p_add_proto_data, file scope).  Every later dissection (GUI
 * clicks, tshark -2, re-filtering) renders only from that stored copy, so
 * one pass and two passes show the same thing.
 *
 * It runs as a post-dissector so the built-in "infiniband" (RoCE v1 on
 * ethertype 0x8915, RRoCE on UDP 4791) and "macc" (PFC/PAUSE) trees stay
 * as they are; the "roce" tree is added after them.
 * Reasoning: ../shared/reference/wireshark-notes.md, section 4.5.
 *
 * Specs: IBTA Vol 1 (BTH, AETH, ICRC 9.8.2), Annex A16 (RoCE), Annex A17
 * (RoCE v2, CNP), IEEE 802.1Qbb (PFC), IEEE 802.3 Annex 31B (PAUSE).
 */

#define WS_BUILD_DLL
#include <wireshark.h>
#include <ws_version.h>

#include <epan/packet.h>
#include <epan/expert.h>
#include <epan/prefs.h>
#include <epan/proto_data.h>
#include <epan/range.h>
#include <epan/tap.h>
#include <wiretap/wtap.h>

#include <roce/analyzer.h>
#include <roce/opcode.h>
#include <roce/pkt.h>
#include <roce/roce.h>

#include "packet-roce.h"

#ifndef PLUGIN_VERSION
#define PLUGIN_VERSION ROCE_VERSION_STRING
#endif

#define ROCE_WS_AT_LEAST(a, b) (WIRESHARK_VERSION_MAJOR > (a) || \
	(WIRESHARK_VERSION_MAJOR == (a) && WIRESHARK_VERSION_MINOR >= (b)))

#if ROCE_WS_AT_LEAST(4, 2)
#include <wsutil/plugins.h>
#endif

/* Preference variable types changed from gboolean to bool in 4.3+. */
#if ROCE_WS_AT_LEAST(4, 3)
typedef bool roce_pref_bool_t;
#else
typedef gboolean roce_pref_bool_t;
#endif

/* ---- value tables ---- */

/* THE opcode table (opcodes.def) as a value_string; sorted by value, so an
 * extended value_string gives binary search. */
static const value_string roce_opcode_vals[] = {
#define ROCE_OP(sym, val, hdrs, flags) { (val), #sym },
#include <roce/opcodes.def>
#undef ROCE_OP
	{ 0, NULL }
};
static value_string_ext roce_opcode_vals_ext = VALUE_STRING_EXT_INIT(roce_opcode_vals);

/* enum roce_icrc_status */
static const value_string roce_icrc_status_vals[] = {
	{ ROCE_ICRC_UNVERIFIED, "Unverified" },
	{ ROCE_ICRC_OK, "Good" },
	{ ROCE_ICRC_BAD, "Bad" },
	{ 0, NULL }
};

static const enum_val_t roce_pmtu_enum[] = {
	{ "auto", "Auto (learn from the traffic)", 0 },
	{ "256", "256", 256 },
	{ "512", "512", 512 },
	{ "1024", "1024", 1024 },
	{ "2048", "2048", 2048 },
	{ "4096", "4096", 4096 },
	{ NULL, NULL, 0 }
};

#define ROCE_PROTO_NAME "RoCE Analysis (roce-tools)"

/* ---- forward declarations ---- */

void proto_register_roce(void);
void proto_reg_handoff_roce(void);

/* ---- protocol, fields, subtrees, expert infos ---- */

static int proto_roce = -1;
static dissector_handle_t roce_handle;

static int hf_roce_version = -1;
static int hf_roce_kind = -1;
static int hf_roce_opcode = -1;
static int hf_roce_opcode_name = -1;
static int hf_roce_bth_fecn = -1;
static int hf_roce_bth_becn = -1;
static int hf_roce_dqpn = -1;
static int hf_roce_psn = -1;
static int hf_roce_xrc_srq = -1;
static int hf_roce_aeth_syndrome = -1;
static int hf_roce_aeth_kind = -1;
static int hf_roce_aeth_msn = -1;
static int hf_roce_icrc = -1;
static int hf_roce_icrc_computed = -1;
static int hf_roce_icrc_status = -1;
static int hf_roce_finding = -1;
static int hf_roce_analysis = -1;
static int hf_roce_an_expected_psn = -1;
static int hf_roce_an_lost_psns = -1;
static int hf_roce_an_acked_unseen_psns = -1;
static int hf_roce_an_retx_cause = -1;
static int hf_roce_an_nak = -1;
static int hf_roce_an_nak_syndrome = -1;
static int hf_roce_an_rtt = -1;
static int hf_roce_an_acks_frame = -1;
static int hf_roce_an_read_time = -1;
static int hf_roce_an_request_frame = -1;
static int hf_roce_an_ref_frame = -1;
static int hf_roce_an_recovery_time = -1;
static int hf_roce_pfc_enable = -1;
static int hf_roce_pfc_priority = -1;
static int hf_roce_pfc_quanta = -1;
static int hf_roce_pfc_pause_us = -1;
static int hf_roce_pfc_xon = -1;
static int hf_roce_pfc_storm_priority = -1;
static int hf_roce_pause_quanta = -1;
static int hf_roce_pause_us = -1;

static gint ett_roce = -1;
static gint ett_roce_bth = -1;
static gint ett_roce_icrc = -1;
static gint ett_roce_analysis = -1;
static gint ett_roce_pfc = -1;
static gint ett_roce_pfc_prio = -1;
static gint ett_roce_findings = -1;

/* One expert field per anomaly type of anomalies.def (types without an expert
 * name stay unregistered and unused). */
static expert_field ei_roce_an[ROCE_AN_COUNT] = {
#define ROCE_ANOMALY(sym, name, ev, counter, sev, group, expert, help) [ROCE_AN_##sym] = EI_INIT,
#include <roce/anomalies.def>
};
#define EI_ROCE(sym) (&ei_roce_an[ROCE_AN_##sym])
/* A capture copy (docs/json.md "Capture copies"): an event, not an anomaly type. */
static expert_field ei_roce_capture_copy = EI_INIT;

/* Expert group and severity of each anomaly type, from the table. */
static const struct {
	int group, severity;
} roce_an_pi[ROCE_AN_COUNT] = {
#define ROCE_ANOMALY(sym, name, ev, counter, sev, grp, expert, help) \
	[ROCE_AN_##sym] = { PI_##grp, PI_##sev },
#include <roce/anomalies.def>
};

/* ---- preferences ---- */

static roce_pref_bool_t pref_validate_icrc = TRUE;
static guint pref_link_speed_gbps = 100;
static gint pref_pmtu = 0;
static guint pref_storm_ms = 200;
static range_t *pref_udp_ports = NULL;

/* ---- per-capture state ---- */

static roce_analyzer_t *roce_an = NULL;
static int roce_tap = -1;      /* "roce" tap: tshark -z roce,qp / roce,pfc */
static struct roce_decode_opts roce_opts;

static roce_analyzer_t *roce_plugin_analyzer(void)
{
	return roce_an;
}

/*
 * The stored result of each frame, indexed by frame number (frames are
 * numbered from 1, and the first pass sees them in order).  A plain array
 * is cheaper per frame than p_add_proto_data() (a list node and a record
 * per frame, and a list walk per lookup); NULL = nothing stored.  The
 * entries are file-scope wmem blocks; the array is freed by the cleanup
 * routine, like them at the end of the file.
 */
static void **roce_frames = NULL;
static guint32 roce_frames_cap = 0;

static void roce_frames_set(guint32 num, void *fd)
{
	if (num >= roce_frames_cap) {
		guint32 cap = roce_frames_cap ? roce_frames_cap : 4096;

		while (cap <= num && cap < G_MAXUINT32 / 2)
			cap *= 2;
		if (cap <= num)
			return;
		roce_frames = (void **)g_realloc(roce_frames, (gsize)cap * sizeof *roce_frames);
		memset(roce_frames + roce_frames_cap, 0,
			(gsize)(cap - roce_frames_cap) * sizeof *roce_frames);
		roce_frames_cap = cap;
	}
	roce_frames[num] = fd;
}

static void *roce_frames_get(guint32 num)
{
	return num < roce_frames_cap ? roce_frames[num] : NULL;
}

static void roce_frames_free(void)
{
	g_free(roce_frames);
	roce_frames = NULL;
	roce_frames_cap = 0;
}

/*
 * What is kept per frame (file scope).  A compact copy of the roce_pkt
 * facts the tree shows, plus the analyzer's result when it has events.
 */
typedef struct {
	int status;                 /* roce_decode() return */
	uint8_t kind;               /* enum roce_kind */
	uint8_t version;
	uint8_t ip_version;
	uint8_t icrc_status;        /* enum roce_icrc_status */
	uint8_t ecn;
	uint8_t pfc_enable;
	uint16_t mac_opcode;
	uint32_t findings;
	uint32_t l3_off, bth_off, icrc_off, roce_end;
	uint32_t hdrs;
	struct roce_bth bth;
	uint32_t xrc_srq;
	struct roce_aeth aeth;
	uint32_t icrc_wire, icrc_computed;
	uint16_t pfc_quanta[8];
	struct roce_frame_result *res;  /* NULL when the analyzer reported no event */
} roce_frame_data_t;

/* A frame with analyzer events: the result lives in the same allocation. */
typedef struct {
	roce_frame_data_t fd;
	struct roce_frame_result res;
} roce_frame_data_ev_t;

/* Events that raise an expert info from the analysis (the others only add
 * tree items; bad ICRC and malformed frames are raised from the decoder's
 * verdict): the event bits of the anomaly types in anomalies.def. */
static const uint32_t roce_expert_events = (0u
#define ROCE_ANOMALY(sym, name, ev, counter, sev, grp, expert, help) | (uint32_t)ROCE_EV_##ev
#include <roce/anomalies.def>
	) & ~(uint32_t)(ROCE_EV_ICRC_BAD | ROCE_EV_MALFORMED);

/* ---- helpers ---- */

/* WTAP_ENCAP_* of this record -> LINKTYPE_* for roce_decode(); -1 if unsupported. */
static int roce_linktype_of(const packet_info *pinfo)
{
	int encap;

	if (pinfo->rec == NULL || pinfo->rec->rec_type != REC_TYPE_PACKET)
		return -1;
	encap = pinfo->rec->rec_header.packet_header.pkt_encap;
	switch (encap) {
	case WTAP_ENCAP_ETHERNET:
		return ROCE_LINKTYPE_ETHERNET;
	case WTAP_ENCAP_SLL:
		return ROCE_LINKTYPE_LINUX_SLL;
	case WTAP_ENCAP_SLL2:
		return ROCE_LINKTYPE_LINUX_SLL2;
	case WTAP_ENCAP_RAW_IP:
		return ROCE_LINKTYPE_RAW;
	case WTAP_ENCAP_RAW_IP4:
		return ROCE_LINKTYPE_IPV4;
	case WTAP_ENCAP_RAW_IP6:
		return ROCE_LINKTYPE_IPV6;
	default:
		return -1;
	}
}

static void roce_ns_to_nstime(uint64_t ns, nstime_t *t)
{
	t->secs = (time_t)(ns / 1000000000u);
	t->nsecs = (int)(ns % 1000000000u);
}

/* Build decode options and the analyzer from the current preferences. */
static void roce_apply_prefs_to_opts(void)
{
	unsigned n = 0;

	roce_decode_opts_init(&roce_opts);
	roce_opts.verify_icrc = pref_validate_icrc ? true : false;
	/* roce_decode_opts_init() put 4791 first; keep it, then the extra ports. */
	while (n < ROCE_MAX_UDP_PORTS && roce_opts.udp_ports[n] != 0)
		n++;
	if (pref_udp_ports != NULL) {
		for (guint r = 0; r < pref_udp_ports->nranges && n < ROCE_MAX_UDP_PORTS; r++) {
			guint32 lo = pref_udp_ports->ranges[r].low;
			guint32 hi = pref_udp_ports->ranges[r].high;
			for (guint32 p = lo; p <= hi && p <= 0xffff && n < ROCE_MAX_UDP_PORTS; p++) {
				bool dup = false;
				if (p == 0)
					continue;
				for (unsigned i = 0; i < n; i++)
					if (roce_opts.udp_ports[i] == p)
						dup = true;
				if (!dup)
					roce_opts.udp_ports[n++] = (uint16_t)p;
			}
		}
	}
	if (n < ROCE_MAX_UDP_PORTS)
		roce_opts.udp_ports[n] = 0;
}

static void roce_init_routine(void)
{
	struct roce_analyzer_config cfg;
	char errbuf[ROCE_ERRBUF_SIZE];

	roce_frames_free();      /* nothing may survive from an earlier file */
	roce_apply_prefs_to_opts();
	roce_analyzer_config_init(&cfg);
	cfg.pmtu = (uint32_t)pref_pmtu;
	cfg.link_speed_gbps = pref_link_speed_gbps ? (double)pref_link_speed_gbps : 100.0;
	cfg.pfc_storm_ns = (uint64_t)pref_storm_ms * 1000000u;
	if (roce_an != NULL)
		roce_analyzer_destroy(roce_an);
	errbuf[0] = '\0';
	roce_an = roce_analyzer_create(&cfg, errbuf);
	if (roce_an == NULL)
		ws_warning("roce: cannot create the analyzer: %s", errbuf);
}

static void roce_cleanup_routine(void)
{
	roce_frames_free();
	if (roce_an != NULL) {
		roce_analyzer_destroy(roce_an);
		roce_an = NULL;
	}
}

/* First pass: decode + analyse once, keep the result with the frame. */
/*
 * The built-in infiniband dissector's opcode table lacks CNP (0x81), the XRC
 * opcodes, FLUSH and ATOMIC WRITE: its Info column then reads "Unknown
 * OpCodeQP=0x...".  Put libroce's name there instead ("CNP QP=0x000181"),
 * keeping the rest of the text.  Opcodes that libroce does not know either
 * stay "Unknown OpCode"; a Wireshark whose table has the name is left alone.
 */
static void roce_info_opcode(packet_info *pinfo, uint8_t opcode)
{
	static const char unknown[] = "Unknown OpCode";
	const char *info, *at, *rest;
	char buf[ITEM_LABEL_LENGTH];
	size_t pre;

	if (!roce_opcodes[opcode].name)
		return;
	info = col_get_text(pinfo->cinfo, COL_INFO);
	if (!info || !(at = strstr(info, unknown)))
		return;
	pre = (size_t)(at - info);
	rest = at + sizeof(unknown) - 1;
	snprintf(buf, sizeof(buf), "%.*s%s%s%s", (int)pre, info, roce_opcode_name(opcode),
		 *rest && *rest != ' ' ? " " : "", rest);
	col_add_str(pinfo->cinfo, COL_INFO, buf);
}

static roce_frame_data_t *roce_first_pass(tvbuff_t *tvb, packet_info *pinfo)
{
	struct roce_pkt pkt;
	struct roce_frame_result res;
	roce_frame_data_t *fd;
	int linktype, status;
	guint caplen, wirelen;
	const guint8 *frame;

	linktype = roce_linktype_of(pinfo);
	if (linktype < 0)
		return NULL;
	caplen = tvb_captured_length(tvb);
	wirelen = tvb_reported_length(tvb);
	frame = caplen ? tvb_get_ptr(tvb, 0, caplen) : NULL;
	memset(&pkt, 0, sizeof pkt);
	status = roce_decode(linktype, frame, caplen, wirelen, &roce_opts, &pkt);
	if (status == ROCE_E_LINKTYPE || status == ROCE_E_INVAL)
		return NULL;

	if (roce_an != NULL) {
		uint64_t ts = (uint64_t)pinfo->abs_ts.secs * 1000000000u + (uint64_t)pinfo->abs_ts.nsecs;

		/* PFC / PAUSE act on one link: Wireshark's interface of the frame
		 * (roce_linktype_of() checked rec), its numbering across the file's sections */
		roce_analyzer_set_interface(roce_an,
			(pinfo->rec->presence_flags & WTAP_HAS_INTERFACE_ID) ?
			pinfo->rec->rec_header.packet_header.interface_id : 0);
		roce_analyzer_process(roce_an, &pkt, status, ts, pinfo->num, &res);
	} else {
		memset(&res, 0, sizeof res);
	}
	/* Nothing is stored (or shown) for frames that are not RoCE/PFC/PAUSE/MAC Control. */
	if (pkt.kind == ROCE_KIND_NONE)
		return NULL;

	/* One file-scope allocation per frame; the analyzer result rides along
	 * only when it has events. */
	if (res.events != 0) {
		roce_frame_data_ev_t *fe = wmem_new(wmem_file_scope(), roce_frame_data_ev_t);
		fe->res = res;
		fd = &fe->fd;
		fd->res = &fe->res;
	} else {
		fd = wmem_new(wmem_file_scope(), roce_frame_data_t);
		fd->res = NULL;
	}
	fd->status = status;
	fd->kind = (uint8_t)pkt.kind;
	fd->version = pkt.version;
	fd->ip_version = pkt.ip_version;
	fd->icrc_status = (uint8_t)pkt.icrc_status;
	fd->ecn = pkt.ecn;
	fd->pfc_enable = pkt.pfc_enable;
	fd->mac_opcode = pkt.mac_opcode;
	fd->findings = pkt.findings;
	fd->l3_off = pkt.l3_off;
	fd->bth_off = pkt.bth_off;
	fd->icrc_off = pkt.icrc_off;
	fd->roce_end = pkt.roce_end;
	if (pkt.encap != ROCE_ENCAP_NONE && frame != NULL) {
		/* decoded inside a tunnel or mirror packet: libroce's offsets are those of
		 * the frame inside, the tvb's start encap_off bytes earlier */
		uint32_t base = (uint32_t)(pkt.frame - frame);

		fd->l3_off += base;
		fd->bth_off += fd->bth_off ? base : 0;
		fd->icrc_off += fd->icrc_off ? base : 0;
		fd->roce_end += fd->roce_end ? base : 0;
	}
	fd->hdrs = pkt.hdrs;
	fd->bth = pkt.bth;
	fd->xrc_srq = pkt.xrc_srq;
	fd->aeth = pkt.aeth;
	fd->icrc_wire = pkt.icrc_wire;
	fd->icrc_computed = pkt.icrc_computed;
	memcpy(fd->pfc_quanta, pkt.pfc_quanta, sizeof fd->pfc_quanta);
	return fd;
}

/*
 * Labels.  With a visible tree (GUI details, -V, but also -T fields, which
 * prints none of it) a custom label is formatted eagerly for every frame,
 * and printf-style formatting was most of the plugin's cost there; so the
 * one per-frame label is put together with these instead, and the label
 * is set with a plain "%s".
 */
typedef struct {
	char buf[ITEM_LABEL_LENGTH];
	size_t n;
} roce_label_t;

static void roce_label_str(roce_label_t *l, const char *s)
{
	while (*s != '\0' && l->n + 1 < sizeof l->buf)
		l->buf[l->n++] = *s++;
	l->buf[l->n] = '\0';
}

static void roce_label_dec(roce_label_t *l, uint32_t v)
{
	char tmp[11];
	int i = (int)sizeof tmp - 1;

	tmp[i] = '\0';
	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0);
	roce_label_str(l, tmp + i);
}

/* "0x" and exactly digits hex digits */
static void roce_label_hex(roce_label_t *l, uint32_t v, int digits)
{
	static const char hex[] = "0123456789abcdef";
	char tmp[11];

	tmp[0] = '0';
	tmp[1] = 'x';
	for (int i = 0; i < digits; i++)
		tmp[2 + i] = hex[(v >> (4 * (digits - 1 - i))) & 0xf];
	tmp[2 + digits] = '\0';
	roce_label_str(l, tmp);
}

/* True when [off, off+len) is inside the captured bytes (and off is set). */
static gboolean roce_have(tvbuff_t *tvb, uint32_t off, int len)
{
	return off != 0 && tvb_bytes_exist(tvb, (gint)off, len);
}

static proto_item *roce_add_gen_uint(proto_tree *tree, int hf, tvbuff_t *tvb, uint32_t v)
{
	proto_item *it = proto_tree_add_uint(tree, hf, tvb, 0, 0, v);
	proto_item_set_generated(it);
	return it;
}

/* ---- rendering (every pass, from the stored data only) ---- */

static void roce_render_bth(proto_tree *rt, tvbuff_t *tvb, const roce_frame_data_t *fd)
{
	uint32_t b = fd->bth_off;
	proto_item *it;

	/* Values from the stored decode (the same bytes), placed on the BTH bytes;
	 * cheaper than having Wireshark fetch and decode them again. */
	if (roce_have(tvb, b, ROCE_BTH_LEN)) {
		proto_tree_add_uint(rt, hf_roce_opcode, tvb, b, 1, fd->bth.opcode);
		it = proto_tree_add_string(rt, hf_roce_opcode_name, tvb, b, 1,
			roce_opcode_name(fd->bth.opcode));
		proto_item_set_generated(it);
		/* booleans take the byte; their bitmask picks the bit */
		proto_tree_add_boolean(rt, hf_roce_bth_fecn, tvb, b + 4, 1, fd->bth.fecn ? 0x80u : 0u);
		proto_tree_add_boolean(rt, hf_roce_bth_becn, tvb, b + 4, 1, fd->bth.becn ? 0x40u : 0u);
		proto_tree_add_uint(rt, hf_roce_dqpn, tvb, b + 5, 3, fd->bth.dqpn);
		proto_tree_add_uint(rt, hf_roce_psn, tvb, b + 9, 3, fd->bth.psn);
	}
	if (fd->hdrs & ROCE_H_XRCETH) {
		it = proto_tree_add_uint(rt, hf_roce_xrc_srq, tvb, 0, 0, fd->xrc_srq);
		proto_item_set_generated(it);
	}
	if (fd->hdrs & ROCE_H_AETH) {
		roce_add_gen_uint(rt, hf_roce_aeth_syndrome, tvb, fd->aeth.syndrome);
		it = proto_tree_add_string(rt, hf_roce_aeth_kind, tvb, 0, 0,
			roce_aeth_syndrome_text(fd->aeth.syndrome));
		proto_item_set_generated(it);
		roce_add_gen_uint(rt, hf_roce_aeth_msn, tvb, fd->aeth.msn);
	}
}

static void roce_render_icrc(proto_tree *rt, tvbuff_t *tvb, packet_info *pinfo,
	const roce_frame_data_t *fd)
{
	proto_item *it, *ti;
	proto_tree *t;

	if (fd->icrc_off == 0)
		return;
	if (rt == NULL) {       /* no tree: only what the columns and experts need */
		if (fd->icrc_status == ROCE_ICRC_BAD) {
			expert_add_info_format(pinfo, NULL, EI_ROCE(ICRC),
				"Bad ICRC: 0x%08x on the wire, computed 0x%08x", fd->icrc_wire, fd->icrc_computed);
			col_append_str(pinfo->cinfo, COL_INFO, " [ICRC BAD]");
		}
		return;
	}
	if (roce_have(tvb, fd->icrc_off, ROCE_ICRC_LEN)) {
		/* stored least-significant byte first.  The verdict is in
		 * roce.icrc.status below; only a bad one is also spelled out on
		 * this line (a label costs a printf per frame on a visible tree). */
		ti = proto_tree_add_uint(rt, hf_roce_icrc, tvb, fd->icrc_off, 4, fd->icrc_wire);
		if (fd->icrc_status == ROCE_ICRC_BAD)
			proto_item_append_text(ti, " incorrect, should be 0x%08x", fd->icrc_computed);
	} else {
		ti = proto_tree_add_uint_format_value(rt, hf_roce_icrc, tvb, 0, 0, 0,
			"[not captured]");
		proto_item_set_generated(ti);
	}
	t = proto_item_add_subtree(ti, ett_roce_icrc);
	if (fd->icrc_status != ROCE_ICRC_UNVERIFIED) {
		it = proto_tree_add_uint(t, hf_roce_icrc_computed, tvb, 0, 0, fd->icrc_computed);
		proto_item_set_generated(it);
	}
	it = proto_tree_add_uint(t, hf_roce_icrc_status, tvb, 0, 0, fd->icrc_status);
	proto_item_set_generated(it);
	if (fd->icrc_status == ROCE_ICRC_BAD) {
		expert_add_info_format(pinfo, ti, EI_ROCE(ICRC),
			"Bad ICRC: 0x%08x on the wire, computed 0x%08x", fd->icrc_wire, fd->icrc_computed);
		col_append_str(pinfo->cinfo, COL_INFO, " [ICRC BAD]");
	}
}

static void roce_render_findings(proto_tree *rt, tvbuff_t *tvb, packet_info *pinfo,
	const roce_frame_data_t *fd)
{
	/* without a tree only the malformed ones matter (expert + column) */
	if ((rt != NULL ? fd->findings : fd->findings & ROCE_FIND_MALFORMED_MASK) == 0)
		return;
	for (unsigned i = 0; i < ROCE_FIND_COUNT; i++) {
		uint32_t bit = 1u << i;
		const char *name, *text;
		proto_item *it;

		if (!(fd->findings & bit))
			continue;
		name = roce_finding_name(bit);
		text = roce_finding_text(bit);
		if (name == NULL)
			name = "unknown";
		if (text == NULL)
			text = name;
		it = proto_tree_add_string_format_value(rt, hf_roce_finding, tvb, 0, 0, name,
			"%s (%s)", text, name);
		proto_item_set_generated(it);
		if (bit & ROCE_FIND_MALFORMED_MASK)
			expert_add_info_format(pinfo, it, EI_ROCE(MALFORMED), "Malformed RoCE frame: %s", text);
	}
	if (fd->findings & ROCE_FIND_MALFORMED_MASK)
		col_append_str(pinfo->cinfo, COL_INFO, " [RoCE malformed]");
}

static void roce_render_analysis(proto_tree *rt, tvbuff_t *tvb, packet_info *pinfo,
	const roce_frame_data_t *fd)
{
	const struct roce_frame_result *r = fd->res;
	proto_item *ai, *it;
	proto_tree *at;
	nstime_t t;

	if (r == NULL || (r->events & ~(ROCE_EV_PFC | ROCE_EV_PFC_XON | ROCE_EV_PFC_STORM |
			ROCE_EV_PAUSE | ROCE_EV_ICRC_BAD | ROCE_EV_MALFORMED)) == 0)
		return;
	if (rt == NULL && (r->events & (roce_expert_events | ROCE_EV_CAPTURE_COPY)) == 0)
		return;         /* no tree, and nothing for the experts or the columns */
	ai = proto_tree_add_item(rt, hf_roce_analysis, tvb, 0, 0, ENC_NA);
	proto_item_set_generated(ai);
	at = proto_item_add_subtree(ai, ett_roce_analysis);

	if (r->events & ROCE_EV_PSN_GAP) {
		roce_add_gen_uint(at, hf_roce_an_expected_psn, tvb, r->expected_psn);
		it = roce_add_gen_uint(at, hf_roce_an_lost_psns, tvb, r->lost_psns);
		expert_add_info_format(pinfo, it, EI_ROCE(PSN_GAP),
			"PSN gap: expected %u, got %u (%u PSN%s lost)", r->expected_psn, fd->bth.psn,
			r->lost_psns, r->lost_psns == 1 ? "" : "s");
		col_append_fstr(pinfo->cinfo, COL_INFO, " [PSN gap, %u lost]", r->lost_psns);
	}
	if (r->events & ROCE_EV_CAPTURE_COPY) {
		/* the analyzer took it for the capture's second copy of the stream's
		 * previous frame and analysed it no further */
		expert_add_info(pinfo, ai, &ei_roce_capture_copy);
		col_append_str(pinfo->cinfo, COL_INFO, " [Capture copy]");
	}
	if (r->events & ROCE_EV_ACKED_UNSEEN) {
		uint32_t n = r->acked_unseen_psns;

		it = roce_add_gen_uint(at, hf_roce_an_acked_unseen_psns, tvb, n);
		expert_add_info_format(pinfo, it, EI_ROCE(ACKED_UNSEEN),
			"ACKed PSN%s that wasn't captured (%u request PSN%s; common at capture start)",
			n == 1 ? "" : "s", n, n == 1 ? "" : "s");
		col_append_str(pinfo->cinfo, COL_INFO, " [ACKed unseen PSN]");
	}
	if (r->events & ROCE_EV_DUPLICATE) {
		it = roce_add_gen_uint(at, hf_roce_an_expected_psn, tvb, r->expected_psn);
		expert_add_info_format(pinfo, it, EI_ROCE(DUPLICATE),
			"Duplicate PSN %u (expected %u)", fd->bth.psn, r->expected_psn);
		col_append_str(pinfo->cinfo, COL_INFO, " [Duplicate PSN]");
	}
	if (r->events & ROCE_EV_OUT_OF_ORDER) {
		it = roce_add_gen_uint(at, hf_roce_an_expected_psn, tvb, r->expected_psn);
		expert_add_info_format(pinfo, it, EI_ROCE(OUT_OF_ORDER),
			"Out-of-order PSN %u (expected %u)", fd->bth.psn, r->expected_psn);
		col_append_str(pinfo->cinfo, COL_INFO, " [Out-of-order PSN]");
	}
	if (r->events & ROCE_EV_RETRANSMISSION) {
		const char *cause = roce_retx_cause_name(r->retx_cause);
		if (cause == NULL)
			cause = "unknown";
		if (!(r->events & (ROCE_EV_PSN_GAP | ROCE_EV_DUPLICATE | ROCE_EV_OUT_OF_ORDER)))
			roce_add_gen_uint(at, hf_roce_an_expected_psn, tvb, r->expected_psn);
		it = proto_tree_add_string(at, hf_roce_an_retx_cause, tvb, 0, 0, cause);
		proto_item_set_generated(it);
		expert_add_info_format(pinfo, it, EI_ROCE(RETRANSMISSION),
			"Retransmission of PSN %u (cause: %s)", fd->bth.psn, cause);
		col_append_fstr(pinfo->cinfo, COL_INFO, " [Retransmission (%s)]", cause);
	}
	if (r->events & (ROCE_EV_NAK | ROCE_EV_RNR_NAK)) {
		const char *kind = roce_aeth_syndrome_text(r->aeth_syndrome);
		it = proto_tree_add_string(at, hf_roce_an_nak, tvb, 0, 0, kind);
		proto_item_set_generated(it);
		roce_add_gen_uint(at, hf_roce_an_nak_syndrome, tvb, r->aeth_syndrome);
		if (r->events & ROCE_EV_NAK) {
			expert_add_info_format(pinfo, it, EI_ROCE(NAK), "NAK for PSN %u: %s",
				fd->bth.psn, kind);
			col_append_fstr(pinfo->cinfo, COL_INFO, " [%s]", kind);
		}
		if (r->events & ROCE_EV_RNR_NAK) {
			expert_add_info_format(pinfo, it, EI_ROCE(RNR_NAK), "RNR NAK for PSN %u: %s (%u us)",
				fd->bth.psn, kind, roce_rnr_timer_us(r->aeth_syndrome & 0x1f));
			if (!(r->events & ROCE_EV_NAK))
				col_append_str(pinfo->cinfo, COL_INFO, " [RNR NAK]");
		}
	}
	if (r->events & ROCE_EV_ACK_RTT) {
		roce_ns_to_nstime(r->rtt_ns, &t);
		it = proto_tree_add_time(at, hf_roce_an_rtt, tvb, 0, 0, &t);
		proto_item_set_generated(it);
		if (r->ref_frame != 0 && r->ref_frame <= G_MAXUINT32) {
			it = proto_tree_add_uint(at, hf_roce_an_acks_frame, tvb, 0, 0, (guint32)r->ref_frame);
			proto_item_set_generated(it);
		}
	}
	if (r->events & (ROCE_EV_READ_FIRST_RESP | ROCE_EV_READ_LAST_RESP)) {
		roce_ns_to_nstime(r->read_ns, &t);
		it = proto_tree_add_time(at, hf_roce_an_read_time, tvb, 0, 0, &t);
		proto_item_set_generated(it);
		if (r->ref_frame != 0 && r->ref_frame <= G_MAXUINT32) {
			it = proto_tree_add_uint(at, hf_roce_an_request_frame, tvb, 0, 0, (guint32)r->ref_frame);
			proto_item_set_generated(it);
		}
	}
	if (!(r->events & (ROCE_EV_ACK_RTT | ROCE_EV_READ_FIRST_RESP | ROCE_EV_READ_LAST_RESP)) &&
			r->ref_frame != 0 && r->ref_frame <= G_MAXUINT32) {
		it = proto_tree_add_uint(at, hf_roce_an_ref_frame, tvb, 0, 0, (guint32)r->ref_frame);
		proto_item_set_generated(it);
	}
	if (r->events & ROCE_EV_GBN_RECOVERED) {
		roce_ns_to_nstime(r->recovery_ns, &t);
		it = proto_tree_add_time(at, hf_roce_an_recovery_time, tvb, 0, 0, &t);
		proto_item_set_generated(it);
	}
	if (r->events & ROCE_EV_ECN_CE) {
		it = proto_tree_add_expert(at, pinfo, EI_ROCE(ECN_CE), tvb, 0, 0);
		proto_item_set_generated(it);
		col_append_str(pinfo->cinfo, COL_INFO, " [ECN CE]");
	}
	if (r->events & ROCE_EV_CNP) {
		it = proto_tree_add_expert(at, pinfo, EI_ROCE(CNP), tvb, 0, 0);
		proto_item_set_generated(it);
	}
}

static void roce_render_pfc(proto_tree *rt, tvbuff_t *tvb, packet_info *pinfo,
	const roce_frame_data_t *fd)
{
	const struct roce_frame_result *r = fd->res;
	/* l3_off is the MAC Control opcode for PFC/PAUSE frames (roce_decode()
	 * sets it): PFC opcode(2) enable(2) 8 x quanta(2); PAUSE opcode(2) quanta(2). */
	gboolean at_tvb = roce_have(tvb, fd->l3_off, fd->kind == ROCE_KIND_PAUSE ? 4 : 20);
	proto_item *it;
	proto_tree *pt;

	if (rt == NULL) {       /* no tree: only what the columns and experts need */
		if (r == NULL || !(r->events & ROCE_EV_PFC_STORM) || r->storm_mask == 0)
			return;
		if (fd->kind == ROCE_KIND_PAUSE) {
			expert_add_info_format(pinfo, NULL, EI_ROCE(PFC_STORM),
				"PAUSE storm: continuously paused for at least %u ms", pref_storm_ms);
			col_append_str(pinfo->cinfo, COL_INFO, " [PAUSE storm]");
		} else if (fd->kind == ROCE_KIND_PFC) {
			/* same order as with a tree: enabled priorities, then the others */
			for (int pass = 0; pass < 2; pass++)
				for (int p = 0; p < 8; p++)
					if ((r->storm_mask & (1u << p)) &&
							!(fd->pfc_enable & (1u << p)) == (pass == 1))
						expert_add_info_format(pinfo, NULL, EI_ROCE(PFC_STORM),
							"PFC storm on priority %d: continuously paused for at least %u ms",
							p, pref_storm_ms);
			col_append_str(pinfo->cinfo, COL_INFO, " [PFC storm]");
		}
		return;
	}
	if (fd->kind == ROCE_KIND_PAUSE) {
		if (at_tvb)
			it = proto_tree_add_item(rt, hf_roce_pause_quanta, tvb, fd->l3_off + 2, 2, ENC_BIG_ENDIAN);
		else
			it = roce_add_gen_uint(rt, hf_roce_pause_quanta, tvb, fd->pfc_quanta[0]);
		if (r != NULL && (r->events & ROCE_EV_PAUSE)) {
			it = proto_tree_add_double_format_value(rt, hf_roce_pause_us, tvb, 0, 0,
				(double)r->pause_ns[0] / 1000.0, "%.3f µs at %u Gb/s",
				(double)r->pause_ns[0] / 1000.0, pref_link_speed_gbps);
			proto_item_set_generated(it);
		}
		if (r != NULL && (r->events & ROCE_EV_PFC_STORM) && r->storm_mask) {
			expert_add_info_format(pinfo, it, EI_ROCE(PFC_STORM),
				"PAUSE storm: continuously paused for at least %u ms", pref_storm_ms);
			col_append_str(pinfo->cinfo, COL_INFO, " [PAUSE storm]");
		}
		return;
	}
	if (fd->kind != ROCE_KIND_PFC)
		return;

	if (at_tvb)
		it = proto_tree_add_item(rt, hf_roce_pfc_enable, tvb, fd->l3_off + 2, 2, ENC_BIG_ENDIAN);
	else
		it = roce_add_gen_uint(rt, hf_roce_pfc_enable, tvb, fd->pfc_enable);
	(void)it;
	for (int p = 0; p < 8; p++) {
		double us;
		if (!(fd->pfc_enable & (1u << p)))
			continue;
		us = (r != NULL && (r->events & ROCE_EV_PFC)) ? (double)r->pause_ns[p] / 1000.0 : 0.0;
		pt = proto_tree_add_subtree_format(rt, tvb, at_tvb ? fd->l3_off + 4 + 2 * p : 0,
			at_tvb ? 2 : 0, ett_roce_pfc_prio, NULL,
			"Priority %d: %u quanta = %.3f µs", p, fd->pfc_quanta[p], us);
		it = proto_tree_add_uint(pt, hf_roce_pfc_priority, tvb, 0, 0, (guint32)p);
		proto_item_set_generated(it);
		if (at_tvb)
			proto_tree_add_item(pt, hf_roce_pfc_quanta, tvb, fd->l3_off + 4 + 2 * p, 2, ENC_BIG_ENDIAN);
		else
			roce_add_gen_uint(pt, hf_roce_pfc_quanta, tvb, fd->pfc_quanta[p]);
		if (r != NULL && (r->events & ROCE_EV_PFC)) {
			it = proto_tree_add_double_format_value(pt, hf_roce_pfc_pause_us, tvb, 0, 0, us,
				"%.3f µs at %u Gb/s", us, pref_link_speed_gbps);
			proto_item_set_generated(it);
		}
		if (fd->pfc_quanta[p] == 0) {
			it = proto_tree_add_boolean(pt, hf_roce_pfc_xon, tvb, 0, 0, TRUE);
			proto_item_set_generated(it);
		}
		if (r != NULL && (r->events & ROCE_EV_PFC_STORM) && (r->storm_mask & (1u << p))) {
			it = proto_tree_add_uint(pt, hf_roce_pfc_storm_priority, tvb, 0, 0, (guint32)p);
			proto_item_set_generated(it);
			expert_add_info_format(pinfo, it, EI_ROCE(PFC_STORM),
				"PFC storm on priority %d: continuously paused for at least %u ms", p, pref_storm_ms);
		}
	}
	/* storm on a priority not enabled in this frame (should not happen, but show it) */
	if (r != NULL && (r->events & ROCE_EV_PFC_STORM) && (r->storm_mask & (uint8_t)~fd->pfc_enable)) {
		for (int p = 0; p < 8; p++) {
			if (!((r->storm_mask & (uint8_t)~fd->pfc_enable) & (1u << p)))
				continue;
			it = proto_tree_add_uint(rt, hf_roce_pfc_storm_priority, tvb, 0, 0, (guint32)p);
			proto_item_set_generated(it);
			expert_add_info_format(pinfo, it, EI_ROCE(PFC_STORM),
				"PFC storm on priority %d: continuously paused for at least %u ms", p, pref_storm_ms);
		}
	}
	if (r != NULL && (r->events & ROCE_EV_PFC_STORM) && r->storm_mask)
		col_append_str(pinfo->cinfo, COL_INFO, " [PFC storm]");
}

/* True when the frame raises an expert info (rare: such frames always get the tree). */
static gboolean roce_has_expert(const roce_frame_data_t *fd)
{
	return fd->icrc_status == ROCE_ICRC_BAD || (fd->findings & ROCE_FIND_MALFORMED_MASK) ||
		(fd->res != NULL && (fd->res->events & roce_expert_events));
}

static int dissect_roce_post(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data _U_)
{
	roce_frame_data_t *fd;
	proto_item *ti, *it;
	proto_tree *rt = NULL;
	guint caplen = tvb_captured_length(tvb);
	uint32_t start = 0, len = 0;

	if (!PINFO_FD_VISITED(pinfo)) {
		fd = roce_first_pass(tvb, pinfo);
		if (fd != NULL)
			roce_frames_set(pinfo->num, fd);
	} else {
		fd = (roce_frame_data_t *)roce_frames_get(pinfo->num);
	}
	if (fd == NULL)
		return 0;
	if (have_tap_listener(roce_tap))
		tap_queue_packet(roce_tap, pinfo, fd);

	/*
	 * The tree is built only when somebody can see it or filter on it: the
	 * tree is visible (GUI details, -V, -T pdml/json), a roce field is
	 * referenced (display filter, -e, a tap filter, "roce" itself), protocol
	 * items are not faked (protocol hierarchy), or the frame raises an expert
	 * info (so that _ws.expert filters find it).  Otherwise the frame only
	 * gets its Info-column tags and expert infos, as with no tree at all.
	 */
	if (tree != NULL && (proto_field_is_referenced(tree, proto_roce) || roce_has_expert(fd))) {
		gboolean visible = PTREE_DATA(tree)->visible;

		/* The roce item spans the RoCE part (BTH..ICRC) or the MAC Control payload. */
		if (fd->kind == ROCE_KIND_ROCE && fd->bth_off != 0 && fd->bth_off < caplen) {
			start = fd->bth_off;
			len = (fd->roce_end > start ? fd->roce_end : caplen) - start;
		} else if (fd->kind != ROCE_KIND_ROCE && fd->l3_off != 0 && fd->l3_off < caplen) {
			start = fd->l3_off;
			len = caplen - start;
		}
		if (start + len > caplen)
			len = caplen - start;

		ti = proto_tree_add_item(tree, proto_roce, tvb, start, len, ENC_NA);
		/* The summary is put together only for a visible tree. */
		if (visible && fd->kind != ROCE_KIND_ROCE) {
			roce_label_t l;

			l.n = 0;
			roce_label_str(&l, ", ");
			if (fd->kind == ROCE_KIND_ROCE) {
				roce_label_str(&l, "RoCE v");
				roce_label_dec(&l, fd->version);
				if (fd->bth_off != 0) {
					roce_label_str(&l, ", ");
					roce_label_str(&l, roce_opcode_name(fd->bth.opcode));
					roce_label_str(&l, ", QP ");
					roce_label_hex(&l, fd->bth.dqpn, 6);
					roce_label_str(&l, ", PSN ");
					roce_label_dec(&l, fd->bth.psn);
				}
			} else if (fd->kind == ROCE_KIND_PFC) {
				roce_label_str(&l, "PFC");
			} else if (fd->kind == ROCE_KIND_PAUSE) {
				roce_label_str(&l, "PAUSE");
			} else {
				roce_label_str(&l, "MAC Control ");
				roce_label_hex(&l, fd->mac_opcode, 4);
			}
			proto_item_append_text(ti, "%s", l.buf);
		}
		rt = proto_item_add_subtree(ti, ett_roce);
		it = proto_tree_add_string(rt, hf_roce_kind, tvb, 0, 0,
			fd->kind == ROCE_KIND_ROCE ? "roce" : fd->kind == ROCE_KIND_PFC ? "pfc" :
			fd->kind == ROCE_KIND_PAUSE ? "pause" : "mac_control");
		proto_item_set_generated(it);
		if (fd->kind == ROCE_KIND_ROCE) {
			it = proto_tree_add_uint(rt, hf_roce_version, tvb, 0, 0, fd->version);
			proto_item_set_generated(it);
			if (fd->bth_off != 0)
				roce_render_bth(rt, tvb, fd);   /* items only where the bytes exist */
		}
	}

	if (fd->kind == ROCE_KIND_ROCE) {
		roce_render_icrc(rt, tvb, pinfo, fd);
		if (fd->bth_off != 0)
			roce_info_opcode(pinfo, fd->bth.opcode);
	}
	roce_render_findings(rt, tvb, pinfo, fd);
	if (fd->kind == ROCE_KIND_ROCE)
		roce_render_analysis(rt, tvb, pinfo, fd);
	else
		roce_render_pfc(rt, tvb, pinfo, fd);
	return (int)caplen;
}

/* ---- registration ---- */

void proto_register_roce(void)
{
	static hf_register_info hf[] = {
		{ &hf_roce_version, { "RoCE version", "roce.version", FT_UINT8, BASE_DEC,
			NULL, 0x0, "1 = RoCE (ethertype 0x8915), 2 = RoCE v2 (UDP)", HFILL } },
		{ &hf_roce_kind, { "Frame kind", "roce.kind", FT_STRING, BASE_NONE,
			NULL, 0x0, "roce, pfc, pause or mac_control", HFILL } },
		{ &hf_roce_opcode, { "Opcode", "roce.opcode", FT_UINT8, BASE_HEX | BASE_EXT_STRING,
			&roce_opcode_vals_ext, 0x0, "BTH opcode (names from opcodes.def)", HFILL } },
		{ &hf_roce_opcode_name, { "Opcode name", "roce.opcode.name", FT_STRING, BASE_NONE,
			NULL, 0x0, "BTH opcode name (CNP is 0x81, XRC 0xA0..0xB7)", HFILL } },
		{ &hf_roce_bth_fecn, { "FECN", "roce.bth.fecn", FT_BOOLEAN, 8,
			NULL, 0x80, "Forward explicit congestion notification", HFILL } },
		{ &hf_roce_bth_becn, { "BECN", "roce.bth.becn", FT_BOOLEAN, 8,
			NULL, 0x40, "Backward explicit congestion notification", HFILL } },
		{ &hf_roce_dqpn, { "Destination QP", "roce.dqpn", FT_UINT24, BASE_HEX,
			NULL, 0x0, NULL, HFILL } },
		{ &hf_roce_psn, { "PSN", "roce.psn", FT_UINT24, BASE_DEC,
			NULL, 0x0, "Packet sequence number", HFILL } },
		{ &hf_roce_xrc_srq, { "XRC SRQ", "roce.xrc_srq", FT_UINT24, BASE_HEX,
			NULL, 0x0, "XRCETH shared receive queue", HFILL } },
		{ &hf_roce_aeth_syndrome, { "AETH syndrome", "roce.aeth.syndrome", FT_UINT8, BASE_HEX,
			NULL, 0x0, NULL, HFILL } },
		{ &hf_roce_aeth_kind, { "AETH kind", "roce.aeth.kind", FT_STRING, BASE_NONE,
			NULL, 0x0, "ACK, RNR NAK or NAK with its code", HFILL } },
		{ &hf_roce_aeth_msn, { "MSN", "roce.aeth.msn", FT_UINT24, BASE_DEC,
			NULL, 0x0, "Message sequence number", HFILL } },
		{ &hf_roce_icrc, { "ICRC", "roce.icrc", FT_UINT32, BASE_HEX,
			NULL, 0x0, "Invariant CRC as on the wire (least significant byte first)", HFILL } },
		{ &hf_roce_icrc_computed, { "Computed ICRC", "roce.icrc.computed", FT_UINT32, BASE_HEX,
			NULL, 0x0, NULL, HFILL } },
		{ &hf_roce_icrc_status, { "ICRC status", "roce.icrc.status", FT_UINT8, BASE_NONE,
			VALS(roce_icrc_status_vals), 0x0, "Unverified, Good or Bad", HFILL } },
		{ &hf_roce_finding, { "Finding", "roce.finding", FT_STRING, BASE_NONE,
			NULL, 0x0, "Decoder finding (malformed / suspicious frame)", HFILL } },
		{ &hf_roce_analysis, { "PSN/ACK analysis", "roce.analysis", FT_NONE, BASE_NONE,
			NULL, 0x0, "Results of the per-QP PSN/ACK analysis (like tcp.analysis)", HFILL } },
		{ &hf_roce_an_expected_psn, { "Expected PSN", "roce.analysis.expected_psn", FT_UINT24, BASE_DEC,
			NULL, 0x0, NULL, HFILL } },
		{ &hf_roce_an_lost_psns, { "Lost PSNs", "roce.analysis.lost_psns", FT_UINT32, BASE_DEC,
			NULL, 0x0, "PSNs skipped by this gap", HFILL } },
		{ &hf_roce_an_acked_unseen_psns, { "ACKed unseen PSNs", "roce.analysis.acked_unseen_psns",
			FT_UINT32, BASE_DEC, NULL, 0x0,
			"Request PSNs this response acknowledged that the capture never saw", HFILL } },
		{ &hf_roce_an_retx_cause, { "Retransmission cause", "roce.analysis.retransmission.cause",
			FT_STRING, BASE_NONE, NULL, 0x0, "nak, rnr or timeout", HFILL } },
		{ &hf_roce_an_nak, { "NAK", "roce.analysis.nak", FT_STRING, BASE_NONE,
			NULL, 0x0, "NAK kind", HFILL } },
		{ &hf_roce_an_nak_syndrome, { "NAK syndrome", "roce.analysis.nak.syndrome", FT_UINT8, BASE_HEX,
			NULL, 0x0, NULL, HFILL } },
		{ &hf_roce_an_rtt, { "ACK RTT", "roce.analysis.rtt", FT_RELATIVE_TIME, BASE_NONE,
			NULL, 0x0, "Time from the acknowledged request to this ACK", HFILL } },
		{ &hf_roce_an_acks_frame, { "This is an ACK to the request in frame", "roce.analysis.acks_frame",
			FT_FRAMENUM, BASE_NONE, FRAMENUM_TYPE(FT_FRAMENUM_ACK), 0x0, NULL, HFILL } },
		{ &hf_roce_an_read_time, { "READ response time", "roce.analysis.read_time", FT_RELATIVE_TIME,
			BASE_NONE, NULL, 0x0, "Time from the RDMA READ request to this response", HFILL } },
		{ &hf_roce_an_request_frame, { "Response to the READ request in frame",
			"roce.analysis.request_frame", FT_FRAMENUM, BASE_NONE, FRAMENUM_TYPE(FT_FRAMENUM_RESPONSE),
			0x0, NULL, HFILL } },
		{ &hf_roce_an_ref_frame, { "Related frame", "roce.analysis.ref_frame", FT_FRAMENUM, BASE_NONE,
			NULL, 0x0, "Frame this event refers to (NAK, original transmission, ...)", HFILL } },
		{ &hf_roce_an_recovery_time, { "Recovery time", "roce.analysis.recovery_time", FT_RELATIVE_TIME,
			BASE_NONE, NULL, 0x0, "NAK/timeout to go-back-N recovery", HFILL } },
		{ &hf_roce_pfc_enable, { "PFC priority enable vector", "roce.pfc.enable", FT_UINT16, BASE_HEX,
			NULL, 0x0, NULL, HFILL } },
		{ &hf_roce_pfc_priority, { "Priority", "roce.pfc.priority", FT_UINT8, BASE_DEC,
			NULL, 0x0, NULL, HFILL } },
		{ &hf_roce_pfc_quanta, { "Pause quanta", "roce.pfc.quanta", FT_UINT16, BASE_DEC,
			NULL, 0x0, NULL, HFILL } },
		{ &hf_roce_pfc_pause_us, { "Pause time (µs)", "roce.pfc.pause_us", FT_DOUBLE, BASE_NONE,
			NULL, 0x0, "Requested pause at the configured link speed", HFILL } },
		{ &hf_roce_pfc_xon, { "XON (resume)", "roce.pfc.xon", FT_BOOLEAN, BASE_NONE,
			NULL, 0x0, "Quanta 0: resume now", HFILL } },
		{ &hf_roce_pfc_storm_priority, { "Storm on priority", "roce.pfc.storm.priority", FT_UINT8,
			BASE_DEC, NULL, 0x0, NULL, HFILL } },
		{ &hf_roce_pause_quanta, { "PAUSE quanta", "roce.pause.quanta", FT_UINT16, BASE_DEC,
			NULL, 0x0, NULL, HFILL } },
		{ &hf_roce_pause_us, { "PAUSE time (µs)", "roce.pause.pause_us", FT_DOUBLE, BASE_NONE,
			NULL, 0x0, "802.3x pause at the configured link speed", HFILL } },
	};

	static gint *ett[] = {
		&ett_roce, &ett_roce_bth, &ett_roce_icrc, &ett_roce_analysis,
		&ett_roce_pfc, &ett_roce_pfc_prio, &ett_roce_findings,
	};

	/* expert infos: name, group, severity and summary from anomalies.def */
	static ei_register_info ei[ROCE_AN_COUNT];
	module_t *m;
	expert_module_t *em;
	int n_ei = 0;

	proto_roce = proto_register_protocol(ROCE_PROTO_NAME, "RoCE", "roce");
	proto_register_field_array(proto_roce, hf, array_length(hf));
	proto_register_subtree_array(ett, array_length(ett));
	em = expert_register_protocol(proto_roce);
	for (int t = 0; t < ROCE_AN_COUNT; t++) {
		const struct roce_anomaly_info *ai = roce_anomaly_info((enum roce_anomaly_type)t);

		if (ai == NULL || ai->expert == NULL)
			continue;
		ei[n_ei++] = (ei_register_info){ &ei_roce_an[t],
			{ ai->expert, roce_an_pi[t].group, roce_an_pi[t].severity, ai->help, EXPFILL } };
	}
	expert_register_field_array(em, ei, n_ei);
	{
		static ei_register_info ei_copy[] = {
			{ &ei_roce_capture_copy, { "roce.analysis.capture_copy", PI_SEQUENCE,
				PI_NOTE, "Frame captured twice (capture artefact, not a resend)",
				EXPFILL } },
		};

		expert_register_field_array(em, ei_copy, array_length(ei_copy));
	}

	m = prefs_register_protocol(proto_roce, NULL);
	prefs_register_bool_preference(m, "validate_icrc", "Validate the ICRC",
		"Compute the RoCE Invariant CRC and compare it with the one in the frame",
		&pref_validate_icrc);
	prefs_register_uint_preference(m, "link_speed", "Link speed (Gb/s)",
		"Link speed used to turn PFC/PAUSE quanta into time (1 quantum = 512 bit times)",
		10, &pref_link_speed_gbps);
	prefs_register_enum_preference(m, "pmtu", "Path MTU",
		"RoCE path MTU used to size RDMA READ responses; Auto learns it from the traffic",
		&pref_pmtu, roce_pmtu_enum, FALSE);
	prefs_register_uint_preference(m, "pfc_storm_ms", "PFC storm threshold (ms)",
		"Continuous pause time on one priority that is reported as a PFC storm",
		10, &pref_storm_ms);
	pref_udp_ports = range_empty(wmem_epan_scope());
	prefs_register_range_preference(m, "udp_ports", "Extra RoCE v2 UDP ports",
		"UDP destination ports carrying RoCE v2 besides 4791 (at most 7 are used)",
		&pref_udp_ports, 65535);

	register_init_routine(roce_init_routine);
	register_cleanup_routine(roce_cleanup_routine);

	roce_handle = create_dissector_handle(dissect_roce_post, proto_roce);
	roce_tap = register_tap("roce");
	roce_stats_register(roce_plugin_analyzer);
}

void proto_reg_handoff_roce(void)
{
	register_postdissector(roce_handle);
}

/* ---- plugin entry points (4.0 .. 4.4+, see wireshark-notes.md 4.4) ---- */

#ifndef WIRESHARK_PLUGIN_REGISTER
WS_DLL_PUBLIC_DEF const char plugin_version[] = PLUGIN_VERSION;
WS_DLL_PUBLIC_DEF const int plugin_want_major = WIRESHARK_VERSION_MAJOR;
WS_DLL_PUBLIC_DEF const int plugin_want_minor = WIRESHARK_VERSION_MINOR;
WS_DLL_PUBLIC void plugin_register(void);
#ifdef WS_PLUGIN_DESC_DISSECTOR
WS_DLL_PUBLIC uint32_t plugin_describe(void);
#endif
void plugin_register(void)
#else
static void plugin_register(void)
#endif
{
	static proto_plugin plug;

	plug.register_protoinfo = proto_register_roce;
	plug.register_handoff = proto_reg_handoff_roce;
	proto_register_plugin(&plug);
}

#ifdef WIRESHARK_PLUGIN_REGISTER
static struct ws_module roce_module = {
	.flags = WS_PLUGIN_DESC_DISSECTOR,
	.version = PLUGIN_VERSION,
	.spdx_id = "GPL-2.0-or-later",
	.home_url = "",
	.blurb = "RoCE ICRC, PSN/NAK/CNP and PFC analysis (roce-tools)",
	.register_cb = &plugin_register,
};
WIRESHARK_PLUGIN_REGISTER_EPAN(&roce_module, 0)
#elif defined(WS_PLUGIN_DESC_DISSECTOR)
uint32_t plugin_describe(void)
{
	return WS_PLUGIN_DESC_DISSECTOR;
}
#endif
