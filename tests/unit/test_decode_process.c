// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_decode_process.c - roce_analyzer_decode_process() is roce_decode()
 * then roce_analyzer_process() with no result: every capture in captures/
 * and ../shared/captures/ (each record as captured, with a damaged copy and a
 * cut copy after it) goes through two analyzers, one each way, with the
 * decoder options roce-analyze uses (and NULL), with and without an observer
 * and an idle timeout (the entry's other paths); the statuses of every frame,
 * the summaries, every stream's stats, every PFC entry and every anomaly must
 * be the same.  A third analyzer takes the same call with header prediction
 * off (an_predict.c), and bulk WRITE streams built here check that the
 * prediction takes the next in-order frame and that a frame differing from it
 * in one field (PSN, opcode, a header bit, CE, pad, lengths, a short capture)
 * falls back to the full path with the same result.  The discard flag
 * (roce_analyzer_set_discard_flag()): every frame discarded first, on every
 * path, counts nothing.  Skips (77) when no capture is found.
 */
#define _DEFAULT_SOURCE         /* DT_DIR */

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include <roce/analyzer.h>
#include <roce/build.h>
#include <roce/opcode.h>
#include <roce/pkt.h>

#include "capread.h"
#include "check.h"

/* libroce internals (lib/src/an_internal.h), for this test: header prediction */
void an_predict_enable(roce_analyzer_t *a, bool on);
uint64_t an_predict_hits(const roce_analyzer_t *a);
void an_inorder_enable(roce_analyzer_t *a, bool on);

#define MAX_FILES 128
#define MAX_AN 4096

static char *files[MAX_FILES];
static unsigned nfiles;

static void find_captures(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)) != NULL && nfiles < MAX_FILES) {
		size_t n = strlen(dir) + strlen(e->d_name) + 2;
		char *p;

		if (e->d_name[0] == '.')
			continue;
		p = malloc(n);
		if (!p)
			break;
		snprintf(p, n, "%s/%s", dir, e->d_name);
		if (e->d_type == DT_DIR) {
			find_captures(p);
			free(p);
		} else if (strstr(e->d_name, ".pcap")) {
			files[nfiles++] = p;
		} else {
			free(p);
		}
	}
	closedir(d);
}

struct side {
	roce_analyzer_t *a;
	struct roce_anomaly an[MAX_AN];
	unsigned nan;
	uint64_t obs_frames, obs_events;
	struct roce_flow_stats *flows;
	unsigned nflows, capflows;
	struct roce_pfc_stats pfc[64];
	unsigned npfc;
};

static void on_anomaly(void *user, const struct roce_anomaly *an)
{
	struct side *s = user;

	if (s->nan < MAX_AN)
		s->an[s->nan++] = *an;
}

static void on_frame(void *user, const struct roce_pkt *pkt, uint64_t ts_ns, uint64_t frame_no,
	const struct roce_frame_result *res)
{
	struct side *s = user;

	(void)pkt;
	s->obs_frames += frame_no ^ ts_ns;
	s->obs_events += res->events ^ res->findings ^ res->stream_id;
}

static int collect_flow(void *user, const struct roce_flow_stats *f)
{
	struct side *s = user;

	if (s->nflows == s->capflows) {
		unsigned n = s->capflows ? s->capflows * 2 : 64;
		struct roce_flow_stats *p = realloc(s->flows, n * sizeof(*p));

		if (!p)
			return 1;
		s->flows = p;
		s->capflows = n;
	}
	s->flows[s->nflows++] = *f;
	return 0;
}

static int collect_pfc(void *user, const struct roce_pfc_stats *p)
{
	struct side *s = user;

	if (s->npfc < 64)
		s->pfc[s->npfc++] = *p;
	return 0;
}

static bool side_init(struct side *s, bool observer, uint64_t idle_ns, uint32_t max_flows)
{
	struct roce_analyzer_config cfg;
	char err[ROCE_ERRBUF_SIZE];

	memset(s, 0, sizeof(*s));
	roce_analyzer_config_init(&cfg);
	cfg.on_anomaly = on_anomaly;
	cfg.user = s;
	cfg.idle_timeout_ns = idle_ns;
	cfg.max_flows = max_flows;
	s->a = roce_analyzer_create(&cfg, err);
	if (!s->a)
		return false;
	if (observer) {
		struct roce_analyzer_observer o = {
			.size = sizeof(o), .on_frame = on_frame, .user = s,
			.flags = ROCE_OBS_EVENT_FIELDS,
		};

		roce_analyzer_add_observer(s->a, &o);
	}
	return true;
}

static void side_end(struct side *s)
{
	roce_analyzer_finish(s->a);
	roce_analyzer_foreach_flow(s->a, collect_flow, s);
	roce_analyzer_foreach_pfc(s->a, collect_pfc, s);
}

static void side_free(struct side *s)
{
	roce_analyzer_destroy(s->a);
	free(s->flows);
}

/* sa: roce_decode() + roce_analyzer_process(); sb: roce_analyzer_decode_process();
 * sc: the same with header prediction and the in-order shortcuts of an_request.c and
 * an_response.c off (an_req_inorder(), an_resp_inorder()): every frame through the
 * general request and response code */
static struct side sa, sb, sc;

static bool sides_init(bool observer, uint64_t idle_ns, uint32_t max_flows)
{
	if (!side_init(&sa, observer, idle_ns, max_flows) ||
	    !side_init(&sb, observer, idle_ns, max_flows) ||
	    !side_init(&sc, observer, idle_ns, max_flows))
		return false;
	an_predict_enable(sc.a, false);
	an_inorder_enable(sc.a, false);
	return true;
}

/*
 * test_discard(): each frame first fed to sb and sc with their discard flag set
 * (roce_analyzer_set_discard_flag()): ROCE_E_DISCARDED, nothing counted (the
 * summary as it was), then as usual.
 */
static bool discard_first;

static void feed_discarded(struct side *s, int linktype, const uint8_t *d, size_t cap,
	size_t wire, const struct roce_decode_opts *opts, uint64_t ts, uint64_t no)
{
	static const int set = 1;
	struct roce_summary p, q;

	roce_analyzer_summary(s->a, &p);
	roce_analyzer_set_discard_flag(s->a, &set);
	CHECK_EQ_I(roce_analyzer_decode_process(s->a, linktype, d, cap, wire, opts, ts, no),
		   ROCE_E_DISCARDED);
	roce_analyzer_set_discard_flag(s->a, NULL);
	roce_analyzer_summary(s->a, &q);
	CHECK(memcmp(&p, &q, sizeof(p)) == 0);
}

/* One frame to the three sides; returns the status. */
static int feed(int linktype, const uint8_t *d, size_t cap, size_t wire,
	const struct roce_decode_opts *opts, uint64_t ts, uint64_t no)
{
	struct roce_pkt pkt;
	int st, st2, st3;

	if (discard_first) {
		feed_discarded(&sb, linktype, d, cap, wire, opts, ts, no);
		feed_discarded(&sc, linktype, d, cap, wire, opts, ts, no);
	}
	st = roce_decode(linktype, d, cap, wire, opts, &pkt);
	roce_analyzer_process(sa.a, &pkt, st, ts, no, NULL);
	st2 = roce_analyzer_decode_process(sb.a, linktype, d, cap, wire, opts, ts, no);
	st3 = roce_analyzer_decode_process(sc.a, linktype, d, cap, wire, opts, ts, no);
	CHECK_EQ_I(st, st2);
	CHECK_EQ_I(st, st3);
	return st;
}

static void sides_compare(const struct side *x, const struct side *y, uint64_t frames)
{
	struct roce_summary p, q;

	roce_analyzer_summary(x->a, &p);
	roce_analyzer_summary(y->a, &q);
	CHECK(memcmp(&p, &q, sizeof(p)) == 0);
	CHECK_EQ_U(p.frames, frames);
	CHECK_EQ_U(x->nflows, y->nflows);
	for (unsigned i = 0; i < x->nflows && i < y->nflows; i++)
		CHECK(memcmp(&x->flows[i], &y->flows[i], sizeof(x->flows[i])) == 0);
	CHECK_EQ_U(x->npfc, y->npfc);
	for (unsigned i = 0; i < x->npfc && i < y->npfc; i++)
		CHECK(memcmp(&x->pfc[i], &y->pfc[i], sizeof(x->pfc[i])) == 0);
	CHECK_EQ_U(x->nan, y->nan);
	for (unsigned i = 0; i < x->nan && i < y->nan; i++) {
		const struct roce_anomaly *m = &x->an[i], *n = &y->an[i];

		CHECK_EQ_I(m->type, n->type);
		CHECK_EQ_U(m->frame, n->frame);
		CHECK_EQ_U(m->ts_ns, n->ts_ns);
		CHECK_EQ_U(m->psn, n->psn);
		CHECK_EQ_U(m->expected_psn, n->expected_psn);
		CHECK_EQ_U(m->count, n->count);
		CHECK_STR(m->detail, n->detail);
	}
	CHECK_EQ_U(x->obs_frames, y->obs_frames);
	CHECK_EQ_U(x->obs_events, y->obs_events);
}

/* Finish the three sides, compare them with sa, free them. */
static void sides_end(uint64_t frames)
{
	side_end(&sa);
	side_end(&sb);
	side_end(&sc);
	sides_compare(&sa, &sb, frames);
	sides_compare(&sa, &sc, frames);
	CHECK_EQ_U(an_predict_hits(sc.a), 0);
	side_free(&sa);
	side_free(&sb);
	side_free(&sc);
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 16);
}

/* One file both ways; returns the frames fed to each side. */
static uint64_t run_both(const char *path, const struct roce_decode_opts *opts, bool observer,
	uint64_t idle_ns)
{
	char err[ROCE_ERRBUF_SIZE];
	roce_capfile_t *cf = roce_cap_open(path, err);
	struct roce_cap_record rec;
	static uint8_t copy[65536];
	uint64_t no = 0;
	int rc;

	if (!cf)
		return 0;
	if (!sides_init(observer, idle_ns, 0)) {
		roce_cap_close(cf);
		return 0;
	}
	while ((rc = roce_cap_next(cf, &rec)) == 1) {
		for (int v = 0; v < 3; v++) {
			const uint8_t *d = rec.data;
			size_t cap = rec.caplen, wire = rec.wirelen;

			if (v > 0) {
				if (cap > sizeof(copy) || !cap)
					break;
				memcpy(copy, rec.data, cap);
				d = copy;
				if (v == 1) {
					/* a byte of the headers (or anywhere) damaged */
					size_t span = cap < 96 || (rnd() & 1) ? cap : 96;
					size_t at = rnd() % span;

					copy[at] ^= (uint8_t)(1u << (rnd() % 8));
				} else {
					cap = rnd() % cap;      /* cut */
				}
			}
			no++;
			feed(rec.linktype, d, cap, wire, opts, rec.ts_ns + no, no);
		}
	}
	CHECK_EQ_I(rc, 0);
	roce_cap_close(cf);
	sides_end(no);
	return no;
}

/* ---- header prediction: built bulk WRITE streams ---- */

#define REQ_IP 0x0a000001u
#define RSP_IP 0x0a000002u
#define REQ_QP 0x000111u        /* the requester's QP: the ACKs' destination */
#define RSP_QP 0x000222u
#define PMTU 1024u

struct wspec {
	uint8_t opcode;
	uint32_t psn, dqpn, src_ip;
	uint32_t pay;
	bool ackreq, se;
	uint8_t tclass, ttl, tver, becn;
	uint16_t dport, pkey, ip_id;
};

static void wspec_init(struct wspec *w, uint8_t opcode, uint32_t psn)
{
	memset(w, 0, sizeof(*w));
	w->opcode = opcode;
	w->psn = psn;
	w->dqpn = RSP_QP;
	w->src_ip = REQ_IP;
	w->pay = (roce_opcodes[opcode].flags & ROCE_F_LAST) ? 512 : PMTU;
	w->tclass = 26 << 2 | 2;        /* DSCP 26, ECT(0) */
	w->pkey = 0xffff;
	w->ip_id = (uint16_t)(psn * 7);
}

static size_t wbuild(const struct wspec *w, uint8_t *buf, size_t cap)
{
	struct roce_frame_spec s;
	size_t len = 0;

	roce_frame_spec_init(&s);
	memcpy(s.dst_mac, "\x02\x00\x00\x00\x00\x02", 6);
	memcpy(s.src_mac, "\x02\x00\x00\x00\x00\x01", 6);
	roce_addr_v4(s.src, w->src_ip);
	roce_addr_v4(s.dst, w->src_ip == REQ_IP ? RSP_IP : REQ_IP);
	s.tclass = w->tclass;
	s.ttl = w->ttl;
	s.ip_id = w->ip_id;
	s.dport = w->dport;
	s.bth.opcode = w->opcode;
	s.bth.psn = w->psn;
	s.bth.dqpn = w->dqpn;
	s.bth.ackreq = w->ackreq;
	s.bth.se = w->se;
	s.bth.tver = w->tver;
	s.bth.becn = w->becn;
	s.bth.pkey = w->pkey;
	s.reth.va = 0x10000;
	s.reth.rkey = 0x1234;
	s.reth.dma_len = 16 * PMTU;
	s.aeth.msn = 1;
	s.payload_len = w->pay;
	CHECK(roce_build(&s, buf, cap, &len) == ROCE_OK);
	return len;
}

static uint8_t fbuf[4096];
static uint64_t fno;

static int wfeed(const struct wspec *w, const struct roce_decode_opts *opts)
{
	size_t n = wbuild(w, fbuf, sizeof(fbuf));

	fno++;
	return feed(ROCE_LINKTYPE_ETHERNET, fbuf, n, n, opts, 1000000 + fno * 1000, fno);
}

/*
 * A message of n frames from PSN psn (FIRST, MIDDLE.., LAST with AckReq), then its ACK; on
 * the queue pairs RSP_QP + qoff and REQ_QP + qoff.
 */
static void wmessage_q(uint32_t psn, unsigned n, const struct roce_decode_opts *opts,
	uint32_t qoff)
{
	struct wspec w;

	for (unsigned i = 0; i < n; i++) {
		wspec_init(&w, i == 0 ? ROCE_OP_RC_RDMA_WRITE_FIRST : i + 1 == n ?
			   ROCE_OP_RC_RDMA_WRITE_LAST : ROCE_OP_RC_RDMA_WRITE_MIDDLE, psn + i);
		w.ackreq = i + 1 == n;
		w.dqpn += qoff;
		wfeed(&w, opts);
	}
	wspec_init(&w, ROCE_OP_RC_ACKNOWLEDGE, psn + n - 1);
	w.src_ip = RSP_IP;
	w.dqpn = REQ_QP + qoff;
	w.pay = 0;
	wfeed(&w, opts);
}

static void wmessage(uint32_t psn, unsigned n, const struct roce_decode_opts *opts)
{
	wmessage_q(psn, n, opts, 0);
}

/* Bytes of the 54 header bytes that may differ from the predicted frame's (an_predict.c). */
static bool may_differ(unsigned byte, unsigned bit)
{
	return (byte >= 16 && byte <= 19) || byte == 24 || byte == 25 ||
		(byte >= 38 && byte <= 42) || (byte == 43 && bit >= 6) ||
		(byte == 50 && bit == 7) || byte >= 51;
}

enum variant {
	V_PSN_NEXT, V_PSN_PREV, V_CE, V_ECT1, V_PAD, V_TVER, V_DPORT, V_TTL, V_QP, V_SRC,
	V_PKEY, V_BECN, V_OP_READ, V_OP_ACK, V_OP_ATOMIC, V_OP_IMM, V_OP_UNKNOWN, V_OP_CNP,
	V_OP_SEND_ONLY_UD, V_CUT_53, V_CUT_HDR, V_IPLEN, V_WIRE, V_IPCSUM, V_LENS_LONG,
	V_COUNT,
	/* may be taken, same result */
	V_OK_LAST, V_OK_SE, V_OK_ACKREQ, V_OK_SEND, V_OK_NOICRC,
	V_BAD_ICRC,             /* taken unless verified */
	V_OK_COUNT
};

/* Variant v of the request frame w (v -1: header bit bit flipped) into fbuf. */
static void vbuild(int v, int bit, struct wspec *w, size_t *cap, size_t *wire)
{
	size_t n;

	switch (v) {
	case V_PSN_NEXT: w->psn++; break;
	case V_PSN_PREV: w->psn--; break;
	case V_CE: w->tclass |= 3; break;
	case V_ECT1: w->tclass = (w->tclass & ~3) | 1; break;
	case V_PAD: w->pay--; break;
	case V_TVER: w->tver = 1; break;
	case V_DPORT: w->dport = 4792; break;
	case V_TTL: w->ttl = 63; break;
	case V_QP: w->dqpn++; break;
	case V_SRC: w->src_ip++; break;
	case V_PKEY: w->pkey = 0x7fff; break;
	case V_BECN: w->becn = 1; break;
	case V_OP_READ: w->opcode = ROCE_OP_RC_RDMA_READ_REQUEST; w->pay = 0; break;
	case V_OP_ACK: w->opcode = ROCE_OP_RC_ACKNOWLEDGE; w->pay = 0; break;
	case V_OP_ATOMIC: w->opcode = ROCE_OP_RC_FETCH_ADD; w->pay = 0; break;
	case V_OP_IMM: w->opcode = ROCE_OP_RC_RDMA_WRITE_LAST_WITH_IMMEDIATE; break;
	case V_OP_CNP: w->opcode = ROCE_OP_CNP; w->pay = 0; w->becn = 1; break;
	case V_OP_SEND_ONLY_UD: w->opcode = ROCE_OP_UD_SEND_ONLY; break;
	case V_OK_LAST: w->opcode = ROCE_OP_RC_RDMA_WRITE_LAST; break;
	case V_OK_SE: w->se = true; break;
	case V_OK_ACKREQ: w->ackreq = true; break;
	case V_OK_SEND: w->opcode = ROCE_OP_RC_SEND_MIDDLE; break;
	default: break;
	}
	n = wbuild(w, fbuf, sizeof(fbuf));
	*cap = *wire = n;
	switch (v) {
	case V_OP_UNKNOWN: fbuf[42] = 0x1f; break;      /* no opcode there */
	case V_CUT_53: *cap = 53; break;
	case V_CUT_HDR: fbuf[42] = ROCE_OP_RC_RDMA_WRITE_FIRST; *cap = 54 + 8; break;
	case V_IPLEN: fbuf[17]++; break;                /* IPv4 and UDP lengths disagree */
	case V_WIRE: *wire = n - 8; *cap = *wire; break; /* IPv4 length beyond the wire */
	case V_IPCSUM: fbuf[25] ^= 0x10; break;
	case V_LENS_LONG: fbuf[17] += 4; fbuf[39] += 4; fbuf[25] -= 4; break;
	case V_OK_NOICRC: *cap = n - 4; break;          /* ICRC not captured */
	case V_BAD_ICRC: fbuf[n - 1] ^= 0x01; break;
	default: break;
	}
	if (v == -1) {
		/* one header bit flipped */
		fbuf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
	}
}

/*
 * Variant v (bit: the header bit flipped, for v -1) of request w fed as the
 * next frame: a variant below V_COUNT must fall back, one that only changes
 * what may differ within a stream is taken (a bad ICRC falls back when it is
 * verified).
 */
static void feed_variant(int v, int bit, struct wspec *w, const struct roce_decode_opts *opts)
{
	uint64_t h = an_predict_hits(sb.a);
	size_t cap, wire;

	vbuild(v, bit, w, &cap, &wire);
	fno++;
	feed(ROCE_LINKTYPE_ETHERNET, fbuf, cap, wire, opts, 1000000 + fno * 1000, fno);
	if (v >= 0 && v < V_COUNT)
		CHECK_EQ_U(an_predict_hits(sb.a), h);           /* fell back */
	if (v == -1 && !may_differ((unsigned)bit / 8, (unsigned)bit % 8))
		CHECK_EQ_U(an_predict_hits(sb.a), h);
	if (v > V_COUNT)
		CHECK_EQ_U(an_predict_hits(sb.a),
			   h + (v == V_BAD_ICRC && opts->verify_icrc ? 0 : 1));
}

/*
 * Prediction taken for the third frame of a message; the fourth is variant v
 * of the next in-order MIDDLE; then the rest of the traffic.  The three sides
 * agree (sides_end()); a variant below V_COUNT must fall back.
 */
static void run_variant(int v, int bit, const struct roce_decode_opts *opts)
{
	struct wspec w;
	uint64_t h;

	if (!sides_init(false, 0, 0))
		return;
	fno = 0;
	wmessage(100, 16, opts);                /* a first message, its ACK */
	wspec_init(&w, ROCE_OP_RC_RDMA_WRITE_FIRST, 116);
	wfeed(&w, opts);
	wspec_init(&w, ROCE_OP_RC_RDMA_WRITE_MIDDLE, 117);
	wfeed(&w, opts);
	h = an_predict_hits(sb.a);
	wspec_init(&w, ROCE_OP_RC_RDMA_WRITE_MIDDLE, 118);
	wfeed(&w, opts);
	CHECK_EQ_U(an_predict_hits(sb.a), h + 1);              /* taken */

	wspec_init(&w, ROCE_OP_RC_RDMA_WRITE_MIDDLE, 119);
	feed_variant(v, bit, &w, opts);
	/* the rest of the message and more */
	for (uint32_t p = 120; p < 131; p++) {
		wspec_init(&w, p == 130 ? ROCE_OP_RC_RDMA_WRITE_LAST : ROCE_OP_RC_RDMA_WRITE_MIDDLE,
			   p);
		w.ackreq = p == 130;
		wfeed(&w, opts);
	}
	wmessage(131, 16, opts);
	wmessage(147, 3, opts);
	sides_end(fno);
}

/* ---- the next frame of another stream learnt (an_predict.c's table) ---- */

#define QOFF 0x10u              /* stream Y's queue pairs: RSP_QP + QOFF, REQ_QP + QOFF */

/*
 * Two request streams X and Y, each with a message learnt, then X's next
 * message (its FIRST taken from the table: the last stream predicted was Y's)
 * and variant v of Y's next FIRST (the last stream predicted: X's); then more
 * of both.  The three sides agree; a variant below V_COUNT must fall back.
 */
static void run_switch_variant(int v, int bit, const struct roce_decode_opts *opts)
{
	struct wspec w;
	uint64_t h;

	if (!sides_init(false, 0, 0))
		return;
	fno = 0;
	wmessage(100, 16, opts);
	wmessage_q(500, 16, opts, QOFF);
	h = an_predict_hits(sb.a);
	wmessage(116, 16, opts);
	CHECK_EQ_U(an_predict_hits(sb.a), h + 17);             /* all of it taken */

	wspec_init(&w, ROCE_OP_RC_RDMA_WRITE_FIRST, 516);
	w.dqpn += QOFF;
	feed_variant(v, bit, &w, opts);
	/* the rest of Y's message, and more of both */
	for (uint32_t p = 517; p < 532; p++) {
		wspec_init(&w, p == 531 ? ROCE_OP_RC_RDMA_WRITE_LAST : ROCE_OP_RC_RDMA_WRITE_MIDDLE,
			   p);
		w.ackreq = p == 531;
		w.dqpn += QOFF;
		wfeed(&w, opts);
	}
	wmessage(132, 16, opts);
	wmessage_q(532, 16, opts, QOFF);
	wmessage(148, 3, opts);
	sides_end(fno);
}

/*
 * Stream Y learnt, then evicted by a new stream Z (a table of 2) that gets its
 * record and reaches the PSN of Y's next frame: Y's next frame is not Z's.
 */
static void run_switch_evicted(const struct roce_decode_opts *opts)
{
	struct wspec w;

	if (!sides_init(false, 0, 2))
		return;
	fno = 0;
	wmessage_q(500, 16, opts, QOFF);
	for (uint32_t p = 514; p < 516; p++) {
		wspec_init(&w, ROCE_OP_RC_RDMA_WRITE_MIDDLE, p);
		w.dqpn = 0x900;
		wfeed(&w, opts);
	}
	wspec_init(&w, ROCE_OP_RC_RDMA_WRITE_FIRST, 516);
	w.dqpn += QOFF;
	wfeed(&w, opts);
	wmessage(116, 4, opts);
	sides_end(fno);
}

/* ---- the ACK of the predicted stream's responder (an_predict.c, pred_ack()) ---- */

/* Header bits of an ACK whose change must send it to the full path. */
static bool ack_must_fall(unsigned byte, unsigned bit)
{
	return byte == 12 || byte == 13 || byte == 14 || byte == 16 || byte == 17 ||
		(byte == 20 && bit <= 5) || byte == 21 || byte == 23 ||
		(byte >= 26 && byte <= 33) || byte == 36 || byte == 37 || byte == 38 ||
		byte == 39 || byte == 42 || (byte == 43 && bit < 6) ||
		(byte >= 47 && byte <= 49) || byte == 51 || byte == 52 ||
		(byte == 54 && (bit == 5 || bit == 6));
}

enum ack_variant {
	A_PSN_SAME, A_PSN_AHEAD, A_PSN_BACK, A_NAK, A_RNR, A_CE, A_PAD, A_TVER, A_DPORT, A_QP,
	A_SRC, A_CUT, A_IPLEN, A_WIRE, A_IPCSUM, A_LONG, A_READ_SEEN, A_HOLE,
	A_COUNT,
	/* may be taken, same result */
	A_OK, A_OK_NEXT, A_OK_TTL, A_OK_ECT1, A_OK_PKEY, A_OK_NOICRC,
	A_BAD_ICRC,             /* taken unless verified */
	A_OK_COUNT
};

/*
 * A message and its ACK (the full path pairs the streams), a second message of
 * four frames (taken) and variant v of its ACK (coalesced: PSN 119 after 115);
 * then more traffic.  The three sides agree; a variant below A_COUNT must fall
 * back, A_OK.. be taken.
 */
static void run_ack_variant(int v, int bit, const struct roce_decode_opts *opts)
{
	struct wspec w;
	size_t n, cap, wire;
	uint64_t h;

	if (!sides_init(false, 0, 0))
		return;
	fno = 0;
	wmessage(100, 16, opts);
	if (v == A_READ_SEEN) {
		/* a READ of one PSN, answered: the request stream has a READ ring */
		wspec_init(&w, ROCE_OP_RC_RDMA_READ_REQUEST, 116);
		w.pay = 0;
		wfeed(&w, opts);
		wspec_init(&w, ROCE_OP_RC_RDMA_READ_RESPONSE_ONLY, 116);
		w.src_ip = RSP_IP;
		w.dqpn = REQ_QP;
		w.pay = 64;
		wfeed(&w, opts);
	}
	for (uint32_t p = 116; p < 120; p++) {
		if (v == A_READ_SEEN && p == 116)
			continue;
		if (v == A_HOLE && p == 117)
			continue;       /* lost: a hole in the request stream */
		wspec_init(&w, p == 116 ? ROCE_OP_RC_RDMA_WRITE_FIRST : p == 119 ?
			   ROCE_OP_RC_RDMA_WRITE_LAST : ROCE_OP_RC_RDMA_WRITE_MIDDLE, p);
		w.ackreq = p == 119;
		wfeed(&w, opts);
	}
	h = an_predict_hits(sb.a);
	wspec_init(&w, ROCE_OP_RC_ACKNOWLEDGE, 119);
	w.src_ip = RSP_IP;
	w.dqpn = REQ_QP;
	w.pay = 0;
	switch (v) {
	case A_PSN_SAME: w.psn = 115; break;
	case A_PSN_AHEAD: w.psn = 120; break;
	case A_PSN_BACK: w.psn = 110; break;
	case A_CE: w.tclass |= 3; break;
	case A_TVER: w.tver = 1; break;
	case A_DPORT: w.dport = 4792; break;
	case A_QP: w.dqpn++; break;
	case A_SRC: w.src_ip = RSP_IP + 1; break;
	case A_LONG: w.pay = 4; break;
	case A_OK_NEXT: w.psn = 116; break;
	case A_OK_TTL: w.ttl = 63; break;
	case A_OK_ECT1: w.tclass = (w.tclass & ~3) | 1; break;
	case A_OK_PKEY: w.pkey = 0x7fff; break;
	default: break;
	}
	n = wbuild(&w, fbuf, sizeof(fbuf));
	cap = wire = n;
	switch (v) {
	case A_NAK: fbuf[54] = 0x60; break;             /* NAK, PSN sequence error */
	case A_RNR: fbuf[54] = 0x21; break;
	case A_PAD: fbuf[43] |= 0x10; break;
	case A_CUT: cap = 57; break;
	case A_IPLEN: fbuf[17]++; break;
	case A_WIRE: wire = n - 2; cap = wire; break;
	case A_IPCSUM: fbuf[25] ^= 0x10; break;
	case A_OK_NOICRC: cap = n - 4; break;
	case A_BAD_ICRC: fbuf[n - 1] ^= 0x01; break;
	default: break;
	}
	if (v == -1)
		fbuf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
	fno++;
	feed(ROCE_LINKTYPE_ETHERNET, fbuf, cap, wire, opts, 1000000 + fno * 1000, fno);
	if (v >= 0 && v < A_COUNT)
		CHECK_EQ_U(an_predict_hits(sb.a), h);           /* fell back */
	if (v == -1 && ack_must_fall((unsigned)bit / 8, (unsigned)bit % 8))
		CHECK_EQ_U(an_predict_hits(sb.a), h);
	if (v > A_COUNT)
		CHECK_EQ_U(an_predict_hits(sb.a),
			   h + (v == A_BAD_ICRC && opts->verify_icrc ? 0 : 1));
	/* more traffic: the next ACKs are taken again */
	wmessage(120, 16, opts);
	wmessage(136, 3, opts);
	sides_end(fno);
}

static void test_prediction(void)
{
	struct roce_decode_opts o[3];
	uint64_t frames = 0;

	for (int i = 0; i < 3; i++) {
		roce_decode_opts_init(&o[i]);
		o[i].analysis_only = true;
	}
	o[1].verify_icrc = false;               /* --no-icrc */
	o[2].verify_icrc = false;               /* --threads 2, the helper's OK */
	o[2].icrc_known_ok = true;
	for (int i = 0; i < 3; i++) {
		for (int v = 0; v < V_OK_COUNT; v++)
			if (v != V_COUNT)
				run_variant(v, 0, &o[i]);
		for (int bit = 0; bit < 54 * 8; bit++)
			run_variant(-1, bit, &o[i]);
		for (int v = 0; v < V_OK_COUNT; v++)
			if (v != V_COUNT)
				run_switch_variant(v, 0, &o[i]);
		for (int bit = 0; bit < 54 * 8; bit++)
			run_switch_variant(-1, bit, &o[i]);
		run_switch_evicted(&o[i]);
		for (int v = 0; v < A_OK_COUNT; v++)
			if (v != A_COUNT)
				run_ack_variant(v, 0, &o[i]);
		for (int bit = 0; bit < 58 * 8; bit++)
			run_ack_variant(-1, bit, &o[i]);
	}

	/* bulk traffic: most frames taken; more streams than the table holds */
	for (int i = 0; i < 3; i++) {
		uint64_t h;

		if (!sides_init(false, 0, 0))
			return;
		fno = 0;
		for (uint32_t m = 0; m < 50; m++)
			wmessage(1000 + m * 16, 16, &o[i]);
		h = an_predict_hits(sb.a);
		CHECK(h >= 50 * 14);            /* 15 requests and the ACK, but the first */
		frames += fno;
		sides_end(fno);
	}
	{
		struct wspec w;

		/* the predicted stream evicted (a table of 2) and its record reused */
		if (!sides_init(false, 0, 2))
			return;
		fno = 0;
		wmessage(10, 8, &o[1]);         /* requester stream and the ACKs' */
		for (uint32_t q = 0; q < 3; q++) {
			wspec_init(&w, ROCE_OP_RC_RDMA_WRITE_MIDDLE, 500 + q);
			w.dqpn = 0x900 + q;
			wfeed(&w, &o[1]);
			wfeed(&w, &o[1]);
		}
		for (uint32_t p = 18; p < 24; p++) {
			wspec_init(&w, ROCE_OP_RC_RDMA_WRITE_MIDDLE, p);
			wfeed(&w, &o[1]);
		}
		frames += fno;
		sides_end(fno);
	}
	CHECK(frames > 0);
}

static void test_same_as_two_calls(void)
{
	struct roce_decode_opts o[4];
	uint64_t total = 0;

	for (int i = 0; i < 4; i++) {
		roce_decode_opts_init(&o[i]);
		o[i].analysis_only = i > 0;
	}
	o[2].verify_icrc = false;               /* --no-icrc */
	o[3].verify_icrc = false;               /* --threads 2, the helper's OK */
	o[3].icrc_known_ok = true;
	for (unsigned f = 0; f < nfiles; f++) {
		total += run_both(files[f], NULL, false, 0);
		for (int i = 0; i < 4; i++)
			total += run_both(files[f], &o[i], false, 0);
		total += run_both(files[f], &o[2], true, 0);
		total += run_both(files[f], &o[1], false, 1000000);
	}
	CHECK(total > 0);
	printf("%u captures, %" PRIu64 " frames both ways\n", nfiles, total);
}

/*
 * The discard flag: every frame of the captures and of bulk WRITE traffic
 * (taken by the prediction: its request and ACK paths) first discarded, then
 * fed; the results are those of the two calls without it.
 */
static void test_discard(void)
{
	struct roce_decode_opts o;
	uint64_t total = 0, h;

	roce_decode_opts_init(&o);
	o.analysis_only = true;
	discard_first = true;
	if (sides_init(false, 0, 0)) {
		fno = 0;
		for (uint32_t m = 0; m < 20; m++)
			wmessage(1000 + m * 16, 16, &o);
		h = an_predict_hits(sb.a);
		CHECK(h >= 20 * 14);
		total += fno;
		sides_end(fno);
	}
	for (unsigned f = 0; f < nfiles; f++) {
		total += run_both(files[f], &o, false, 0);
		total += run_both(files[f], NULL, true, 0);
	}
	discard_first = false;
	CHECK(total > 0);
}

int main(void)
{
	find_captures(ROCE_SOURCE_DIR "/captures");
	find_captures(ROCE_SHARED_DIR "/captures");
	RUN(test_prediction);
	RUN(test_discard);
	if (!nfiles)
		return 77;
	RUN(test_same_as_two_calls);
	for (unsigned f = 0; f < nfiles; f++)
		free(files[f]);
	return check_report();
}
