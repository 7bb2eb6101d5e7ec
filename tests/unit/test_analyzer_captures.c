// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_analyzer_captures.c - run the real Soft-RoCE (rdma_rxe) captures and a
 * public RoCE v2 capture through roce_decode + the analyzer and check the
 * counters their README states (ICRC, opcodes, NAK/RNR counts, PSN events,
 * READ PSN ranges, learned PMTU).  Skips (77) when the captures are absent.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <roce/analyzer.h>
#include <roce/buf.h>
#include <roce/pkt.h>

#include "capread.h"
#include "check.h"

#define SOFTROCE ROCE_SHARED_DIR "/captures/softroce/"
#define PUBLIC ROCE_SHARED_DIR "/captures/public/"

#define MAX_FLOWS 16

struct run {
	struct roce_summary s;
	struct roce_flow_stats f[MAX_FLOWS];
	unsigned nflows;
	uint64_t anomalies[ROCE_AN_COUNT];
	uint64_t ev_retx, ev_gap, ev_dup, ev_ooo, ev_recovered, ev_rtt, ev_read_first;
	uint64_t sport69;       /* frames whose UDP source port is 69 */
	/* README-style PSN events on A->B requests: jumps vs the previous packet */
	uint64_t fwd_jumps, back_jumps;
	bool have_prev;
	uint32_t prev_psn;
	int ok;
};

static void on_anomaly(void *user, const struct roce_anomaly *an)
{
	struct run *r = user;

	if ((unsigned)an->type < ROCE_AN_COUNT)
		r->anomalies[an->type]++;
	if (getenv("ROCE_TEST_VERBOSE"))
		fprintf(stderr, "  anomaly %s frame %llu psn %u exp %u count %llu: %s\n",
			roce_anomaly_name(an->type), (unsigned long long)an->frame, an->psn,
			an->expected_psn, (unsigned long long)an->count, an->detail);
}

static int collect(void *user, const struct roce_flow_stats *f)
{
	struct run *r = user;

	if (r->nflows < MAX_FLOWS)
		r->f[r->nflows++] = *f;
	return 0;
}

static int run_file(const char *path, struct run *r)
{
	char err[ROCE_ERRBUF_SIZE];
	struct roce_analyzer_config cfg;
	roce_capfile_t *cf;
	roce_analyzer_t *a;
	struct roce_cap_record rec;
	int rc;

	memset(r, 0, sizeof(*r));
	cf = roce_cap_open(path, err);
	if (!cf) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	roce_analyzer_config_init(&cfg);
	cfg.on_anomaly = on_anomaly;
	cfg.user = r;
	a = roce_analyzer_create(&cfg, err);
	if (!a) {
		roce_cap_close(cf);
		return -1;
	}
	while ((rc = roce_cap_next(cf, &rec)) == 1) {
		struct roce_pkt pkt;
		struct roce_frame_result res;
		int st = roce_decode(rec.linktype, rec.data, rec.caplen, rec.wirelen, NULL, &pkt);

		roce_analyzer_process(a, &pkt, st, rec.ts_ns, rec.frame_no, &res);
		if (pkt.kind == ROCE_KIND_ROCE && pkt.sport == 69)
			r->sport69++;
		if (st == ROCE_OK && pkt.kind == ROCE_KIND_ROCE && pkt.op &&
		    (pkt.op->flags & ROCE_F_REQ) && pkt.src[15] == 1) {
			if (r->have_prev) {
				int32_t d = roce_psn_cmp(pkt.bth.psn, r->prev_psn);

				r->fwd_jumps += d > 1;
				r->back_jumps += d < 0;
			}
			r->have_prev = true;
			r->prev_psn = pkt.bth.psn;
		}
		r->ev_retx += !!(res.events & ROCE_EV_RETRANSMISSION);
		r->ev_gap += !!(res.events & ROCE_EV_PSN_GAP);
		r->ev_dup += !!(res.events & ROCE_EV_DUPLICATE);
		r->ev_ooo += !!(res.events & ROCE_EV_OUT_OF_ORDER);
		r->ev_recovered += !!(res.events & ROCE_EV_GBN_RECOVERED);
		r->ev_rtt += !!(res.events & ROCE_EV_ACK_RTT);
		r->ev_read_first += !!(res.events & ROCE_EV_READ_FIRST_RESP);
	}
	roce_analyzer_finish(a);
	roce_analyzer_summary(a, &r->s);
	roce_analyzer_foreach_flow(a, collect, r);
	roce_analyzer_destroy(a);
	roce_cap_close(cf);
	if (rc != 0) {
		fprintf(stderr, "%s: read error %d\n", path, rc);
		return -1;
	}
	r->ok = 1;
	if (getenv("ROCE_TEST_VERBOSE")) {
		const struct roce_summary *s = &r->s;

		printf("%s: frames %llu roce %llu icrc ok/bad/unv %llu/%llu/%llu malformed %llu "
			"gaps %llu lost %llu dup %llu ooo %llu unrec %llu retx %llu gbn nak/rnr/to "
			"%llu/%llu/%llu naks %llu (seq %llu) rnr %llu acks %llu pmtu %u flows %llu\n",
			path, (unsigned long long)s->frames, (unsigned long long)s->roce_frames,
			(unsigned long long)s->icrc_ok, (unsigned long long)s->icrc_bad,
			(unsigned long long)s->icrc_unverified, (unsigned long long)s->malformed,
			(unsigned long long)s->psn_gaps, (unsigned long long)s->lost_psns,
			(unsigned long long)s->duplicates, (unsigned long long)s->out_of_order,
			(unsigned long long)s->unrecovered_psns, (unsigned long long)s->retransmissions,
			(unsigned long long)s->gbn_episodes[1], (unsigned long long)s->gbn_episodes[2],
			(unsigned long long)s->gbn_episodes[3], (unsigned long long)s->naks,
			(unsigned long long)s->nak_codes[0], (unsigned long long)s->rnr_naks,
			(unsigned long long)s->acks, s->pmtu, (unsigned long long)s->flows);
		for (unsigned i = 0; i < r->nflows; i++) {
			const struct roce_flow_stats *f = &r->f[i];

			printf("   flow dqpn 0x%x req %d peer %d frames %llu msgs %llu gaps %llu "
				"dup %llu retx %llu rtt n=%llu p50=%llu read_first n=%llu p50=%llu "
				"read_last n=%llu nak_resp n=%llu recov n=%llu pmtu %u\n",
				f->key.dqpn, f->is_request, f->has_peer,
				(unsigned long long)f->frames, (unsigned long long)f->messages,
				(unsigned long long)f->psn_gaps, (unsigned long long)f->duplicates,
				(unsigned long long)f->retransmissions,
				(unsigned long long)f->rtt.count, (unsigned long long)f->rtt.p50_ns,
				(unsigned long long)f->read_first.count,
				(unsigned long long)f->read_first.p50_ns,
				(unsigned long long)f->read_last.count,
				(unsigned long long)f->nak_response.count,
				(unsigned long long)f->recovery.count, f->pmtu);
		}
	}
	return 0;
}

static void check_clean(const struct run *r, uint64_t frames, uint32_t pmtu)
{
	const struct roce_summary *s = &r->s;

	CHECK_EQ_U(s->frames, frames);
	CHECK_EQ_U(s->roce_frames, frames);
	CHECK_EQ_U(s->rocev2_frames, frames);
	CHECK_EQ_U(s->icrc_ok, frames);
	CHECK_EQ_U(s->icrc_bad, 0);
	CHECK_EQ_U(s->icrc_unverified, 0);
	CHECK_EQ_U(s->malformed, 0);
	CHECK_EQ_U(s->psn_gaps, 0);
	CHECK_EQ_U(s->lost_psns, 0);
	CHECK_EQ_U(s->duplicates, 0);
	CHECK_EQ_U(s->out_of_order, 0);
	CHECK_EQ_U(s->unrecovered_psns, 0);
	CHECK_EQ_U(s->retransmissions, 0);
	CHECK_EQ_U(s->naks, 0);
	CHECK_EQ_U(s->ecn_ce, 0);
	CHECK_EQ_U(s->cnps, 0);
	CHECK_EQ_U(r->anomalies[ROCE_AN_PSN_GAP] + r->anomalies[ROCE_AN_DUPLICATE] +
		r->anomalies[ROCE_AN_RETRANSMISSION] + r->anomalies[ROCE_AN_ICRC], 0);
	if (pmtu)
		CHECK_EQ_U(s->pmtu, pmtu);
}

static const struct roce_flow_stats *flow_by(const struct run *r, uint32_t dqpn, bool req)
{
	for (unsigned i = 0; i < r->nflows; i++)
		if (r->f[i].key.dqpn == dqpn && r->f[i].is_request == req)
			return &r->f[i];
	return NULL;
}

static void test_rc_write(void)
{
	struct run r;
	const struct roce_flow_stats *f;

	REQUIRE(run_file(SOFTROCE "rc_write.pcap", &r) == 0);
	check_clean(&r, 1800, 1024);
	CHECK_EQ_U(r.s.acks, 200);
	CHECK_EQ_U(r.s.opcodes[0x06], 200);
	CHECK_EQ_U(r.s.opcodes[0x07], 1200);
	CHECK_EQ_U(r.s.opcodes[0x08], 200);
	CHECK_EQ_U(r.s.opcodes[0x11], 200);
	CHECK_EQ_U(r.s.flows, 2);
	f = flow_by(&r, 0x11, true);
	REQUIRE(f);
	CHECK_EQ_U(f->frames, 1600);
	CHECK_EQ_U(f->messages, 200);
	CHECK(f->has_peer);
	CHECK_EQ_U(f->pmtu, 1024);
	/* every WRITE_LAST asks for an ACK and gets one */
	CHECK_EQ_U(f->rtt.count, 200);
	CHECK(f->rtt.min_ns <= f->rtt.p50_ns && f->rtt.p50_ns <= f->rtt.p99_ns &&
		f->rtt.p99_ns <= f->rtt.max_ns);
	/* first seen first */
	CHECK(r.nflows == 2 && r.f[0].is_request && !r.f[1].is_request);
}

static void test_rc_read(void)
{
	struct run r;
	const struct roce_flow_stats *f;

	REQUIRE(run_file(SOFTROCE "rc_read.pcap", &r) == 0);
	check_clean(&r, 3400, 1024);
	CHECK_EQ_U(r.s.acks, 400);          /* AETH on READ_RESPONSE FIRST and LAST */
	CHECK_EQ_U(r.s.opcodes[0x0c], 200);
	CHECK_EQ_U(r.s.opcodes[0x0e], 2800);
	f = flow_by(&r, 0x12, true);
	REQUIRE(f);
	CHECK(f->has_peer);
	CHECK_EQ_U(f->read_first.count, 200);
	CHECK_EQ_U(f->read_last.count, 200);
	CHECK_EQ_U(r.ev_read_first, 200);
	CHECK(f->read_first.max_ns <= f->read_last.max_ns);
}

static void test_rc_send(void)
{
	struct run r;

	REQUIRE(run_file(SOFTROCE "rc_send.pcap", &r) == 0);
	check_clean(&r, 1000, 1024);
	CHECK_EQ_U(r.s.acks, 200);
}

static void test_rc_imm_ipv6(void)
{
	struct run r;

	REQUIRE(run_file(SOFTROCE "rc_imm_ipv6.pcap", &r) == 0);
	check_clean(&r, 110, 1024);
	CHECK_EQ_U(r.s.acks, 40);
	CHECK_EQ_U(r.s.flows, 2);
}

static void test_ud_send(void)
{
	struct run r;

	REQUIRE(run_file(SOFTROCE "ud_send.pcap", &r) == 0);
	check_clean(&r, 200, 0);
	CHECK_EQ_U(r.s.opcodes[0x64], 200);
	CHECK_EQ_U(r.s.flows, 1);
	REQUIRE(r.nflows == 1);
	CHECK(r.f[0].src_qp != 0);
	CHECK_EQ_U(r.f[0].transport, ROCE_TRANSPORT_UD);
}

static void test_rc_write_mtu4096(void)
{
	struct run r;

	REQUIRE(run_file(SOFTROCE "rc_write_mtu4096.pcap", &r) == 0);
	check_clean(&r, 500, 4096);
	CHECK_EQ_U(r.s.acks, 100);
}

static void test_atomic_fadd(void)
{
	struct run r;
	const struct roce_flow_stats *f;

	REQUIRE(run_file(SOFTROCE "atomic_fadd.pcap", &r) == 0);
	check_clean(&r, 400, 0);
	CHECK_EQ_U(r.s.acks, 200);
	f = flow_by(&r, 0x17, true);
	REQUIRE(f);
	CHECK_EQ_U(f->rtt.count, 200);      /* every atomic is timed by its ATOMIC_ACK */
}

static void test_rping(void)
{
	struct run r;

	REQUIRE(run_file(SOFTROCE "rping_ipv4.pcap", &r) == 0);
	check_clean(&r, 125, 0);
	CHECK_EQ_U(r.s.acks, 60);
	CHECK_EQ_U(r.s.flows, 4);
}

static void test_rc_write_loss2(void)
{
	struct run r;

	REQUIRE(run_file(SOFTROCE "rc_write_loss2.pcap", &r) == 0);
	CHECK_EQ_U(r.s.frames, 4896);
	CHECK_EQ_U(r.s.icrc_ok, 4896);
	CHECK_EQ_U(r.s.icrc_bad, 0);
	CHECK_EQ_U(r.s.malformed, 0);
	CHECK_EQ_U(r.s.acks, 200);
	CHECK_EQ_U(r.s.naks, 29);
	CHECK_EQ_U(r.s.nak_codes[ROCE_NAK_PSN_SEQ_ERR], 29);
	CHECK_EQ_U(r.s.rnr_naks, 0);
	/*
	 * The README's "req_psn_jump_forward(gap) x96" counts forward jumps
	 * against the previous packet's PSN, and "backwards x30" backward ones.
	 * psn_gaps follows it: 31 jumps past the newest PSN (32 PSNs never seen
	 * before, later filled by retransmissions: out_of_order) plus 65 resent
	 * packets lost again inside go-back-N runs.
	 */
	CHECK_EQ_U(r.fwd_jumps, 96);
	CHECK_EQ_U(r.back_jumps, 30);
	CHECK_EQ_U(r.s.psn_gaps, 96);
	CHECK_EQ_U(r.s.lost_psns, 98);
	CHECK_EQ_U(r.s.unrecovered_psns, 0);
	CHECK_EQ_U(r.s.out_of_order, 32);
	/* 30 go-backs: 29 answer a NAK, one (frame 4397, 19.6 ms idle) is a timeout */
	CHECK_EQ_U(r.s.gbn_episodes[ROCE_RETX_NAK], 29);
	CHECK_EQ_U(r.s.gbn_episodes[ROCE_RETX_TIMEOUT], 1);
	CHECK_EQ_U(r.s.gbn_episodes[ROCE_RETX_RNR], 0);
	CHECK_EQ_U(r.anomalies[ROCE_AN_RETRANSMISSION], 30);
	CHECK_EQ_U(r.anomalies[ROCE_AN_NAK], 29);
	CHECK_EQ_U(r.anomalies[ROCE_AN_PSN_GAP], 96);
	CHECK_EQ_U(r.anomalies[ROCE_AN_UNRECOVERED], 0);
	CHECK(r.s.retransmissions >= r.s.duplicates && r.s.retransmissions > 1000);
	REQUIRE(r.nflows == 2);
	CHECK_EQ_U(r.f[0].nak_response.count, 29);
	CHECK(r.f[0].recovery.count > 0);
	CHECK(r.ev_recovered == r.f[0].recovery.count);
}

static void test_rc_send_rnr(void)
{
	struct run r;

	REQUIRE(run_file(SOFTROCE "rc_send_rnr.pcap", &r) == 0);
	CHECK_EQ_U(r.s.frames, 3111);
	CHECK_EQ_U(r.s.icrc_ok, 3111);
	CHECK_EQ_U(r.s.acks, 250);
	CHECK_EQ_U(r.s.rnr_naks, 29);
	CHECK_EQ_U(r.s.nak_codes[ROCE_NAK_PSN_SEQ_ERR], 29);
	CHECK_EQ_U(r.s.naks, 58);           /* naks counts RNR NAKs too */
	/* 29 go-backs (README: backwards x29), each after an RNR NAK */
	CHECK_EQ_U(r.back_jumps, 29);
	CHECK_EQ_U(r.s.gbn_episodes[ROCE_RETX_RNR], 29);
	CHECK_EQ_U(r.s.gbn_episodes[ROCE_RETX_NAK], 0);
	CHECK_EQ_U(r.s.gbn_episodes[ROCE_RETX_TIMEOUT], 0);
	CHECK_EQ_U(r.s.psn_gaps, 0);
	CHECK_EQ_U(r.s.unrecovered_psns, 0);
	CHECK(r.s.duplicates > 1000);       /* "many duplicate SEND packets" */
	CHECK_EQ_U(r.anomalies[ROCE_AN_RNR_NAK], 29);
	CHECK_EQ_U(r.anomalies[ROCE_AN_NAK], 29);
}

static void test_public_oferby(void)
{
	struct run r;

	REQUIRE(run_file(PUBLIC "rocev2_ipv4_rc_send_imm_oferby-proxy.pcap", &r) == 0);
	CHECK_EQ_U(r.s.roce_frames, 105);
	CHECK_EQ_U(r.s.icrc_ok, 105);
	CHECK_EQ_U(r.s.icrc_bad, 0);
	CHECK(r.sport69 > 0);
	CHECK_EQ_U(r.s.malformed, 0);
	CHECK_EQ_U(r.s.psn_gaps, 0);
	CHECK_EQ_U(r.s.duplicates, 0);
	CHECK_EQ_U(r.s.retransmissions, 0);
	CHECK_EQ_U(r.s.flows, 2);
}

int main(void)
{
	struct stat sb;

	if (stat(ROCE_SHARED_DIR "/captures", &sb) != 0) {
		printf("SKIP: %s absent\n", ROCE_SHARED_DIR "/captures");
		return 77;
	}
	RUN(test_rc_write);
	RUN(test_rc_read);
	RUN(test_rc_send);
	RUN(test_rc_imm_ipv6);
	RUN(test_ud_send);
	RUN(test_rc_write_mtu4096);
	RUN(test_atomic_fadd);
	RUN(test_rping);
	RUN(test_rc_write_loss2);
	RUN(test_rc_send_rnr);
	RUN(test_public_oferby);
	return check_report();
}
