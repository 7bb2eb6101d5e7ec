// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * an_predict.c - header prediction (after Van Jacobson's for TCP): bulk RDMA
 * traffic comes in runs of one queue pair (WRITE_FIRST, MIDDLE .. MIDDLE,
 * LAST, then the responder's ACK), so the frame after a request is most
 * often the same stream's next PSN.  roce_analyzer_decode_process() remembers,
 * per stream, the headers of the last request frame the full path took in
 * order (its Ethernet, IPv4, UDP and BTH bytes, 54) in a direct-mapped table
 * (AN_PRED_SLOTS entries, the slot from the destination address and QP); a
 * frame whose header bytes are the same as those of the last stream predicted
 * (tried first) or of its slot's entry (the next message's FIRST after another
 * queue pair's run; streams taking turns frame by frame), but for those that
 * change from frame to frame of one stream, and that is that stream's next PSN
 * with nothing pending, is analysed here: the counters and stream state the
 * full path would update for it, without the generic decode, the stream
 * lookup and the dispatch.  An entry goes when its stream is freed
 * (an_predict_forget()); a stream learnt into an occupied slot takes it.
 *
 * What may differ from the remembered frame: the IPv4 total length, ID and
 * header checksum, the UDP length and checksum, the BTH opcode, its SE and
 * MigReq bits (the analysis reads neither), AckReq and PSN.  The rest (MACs,
 * EtherType, IPv4 version / IHL, TOS with ECN, flags and fragment offset,
 * TTL, protocol, addresses, ports, BTH pad count and TVer, P_Key, FECN /
 * BECN, destination QP, reserved bits) must be equal.  The remembered frame
 * had no finding, pad count 0, TVer 0, no CE, no ICRC verdict of BAD.
 *
 * Taken here only when, besides: the opcode is a request that carries
 * payload and no extension header but a RETH (SEND / WRITE FIRST, MIDDLE,
 * LAST, ONLY; the request code's in-order branch does not depend on the
 * opcode sequence, so any of them may follow any other), the lengths agree
 * and fit as roce_decode_fast() requires, the port is a RoCE port of these
 * options, the IPv4 checksum is right when checked, the stream's transport
 * is known (not CNP-only) and an_req_inorder_ok() holds (next PSN, no
 * go-back, NAK, slack or READ pending, AckReq ring with room).  Everything
 * else, and every frame in doubt, goes to the full path: nothing is written
 * before the decision.  The ICRC is verified here when the options ask for
 * it (a bad one goes to the full path, which reports it), or an OK verdict
 * from elsewhere (icrc_known_ok) is taken as the decoder takes it.  The
 * caller has no observer and no idle timeout.  test_decode_process compares
 * both ways.
 *
 * A frame that is not the predicted stream's may be its responder's ACK (the
 * answer to a request with AckReq, the frame after a message's LAST in bulk
 * traffic): pred_ack() takes an RC ACKNOWLEDGE of the predicted stream's peer
 * that an_resp_inorder() would take (an_resp_inorder_ok()), checked as
 * roce_decode_fast() checks it, without the decode and the lookup.
 */
#include "an_internal.h"
#include "decode_fast.h"
#include "layout.h"

/*
 * The bytes that must match, as six loads: 0-7 and 8-15 (MACs, EtherType,
 * version / IHL, TOS), 20-23 (flags / fragment offset, TTL, protocol), 26-33
 * (addresses), 34-37 (ports), 43-50 (BTH SE M Pad TVer, P_Key, F B Resv6,
 * destination QP, A Resv7) less SE, MigReq and AckReq.  (Native byte order:
 * only equality is asked.)
 */
#define PRED_Q3_OFF 43

static inline __attribute__((always_inline)) uint64_t pred_q3(const uint8_t *fr)
{
	uint64_t w;
	static const uint8_t m[8] = { 0x3f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f };
	uint64_t mw;

	memcpy(&w, fr + PRED_Q3_OFF, 8);
	memcpy(&mw, m, 8);
	return w & mw;
}

static inline __attribute__((always_inline)) uint64_t pred_ld64(const uint8_t *p)
{
	uint64_t w;

	memcpy(&w, p, 8);
	return w;
}

static inline __attribute__((always_inline)) uint32_t pred_ld32(const uint8_t *p)
{
	uint32_t w;

	memcpy(&w, p, 4);
	return w;
}

/*
 * The IPv4 total length, ID and header checksum words' one's complement sum
 * (in native byte order: the same up to a byte swap, which keeps equality mod
 * 0xffff).  Never 0 (the total length is not), so a value in 1..0xffff: one
 * per class mod 0xffff.  The other seven words match the learnt header's, so
 * when that header's checksum was right this one's is exactly when the sums
 * are equal (the full sum is then a nonzero multiple of 0xffff: word 0 is not
 * zero).
 */
static inline __attribute__((always_inline)) uint32_t pred_csum3(const uint8_t *ip)
{
	uint32_t v = pred_ld32(ip + ROCE_IPV4_OFF_TOTLEN);     /* total length, ID */
	uint16_t c;
	uint32_t s;

	memcpy(&c, ip + ROCE_IPV4_OFF_CSUM, 2);
	s = (v & 0xffffu) + (v >> 16) + c;
	s = (s & 0xffffu) + (s >> 16);
	return (s & 0xffffu) + (s >> 16);
}

/*
 * Per opcode: 0, not predicted; else PRED_OK and what an_predict() needs of
 * the opcode.  Predicted: a request that carries payload and no extension
 * header but a RETH, not a READ, atomic or CNP (from opcodes.def).
 */
#define PRED_OK     1u
#define PRED_RETH   2u          /* a RETH (16 bytes) before the payload */
#define PRED_LAST   4u          /* ends a message */
#define PRED_PMTU   8u          /* FIRST / MIDDLE: its payload is the path MTU */

#define PRED_CODE(h, f) \
	(((f) & ROCE_F_REQ) && !((f) & (ROCE_F_READ | ROCE_F_ATOMIC | ROCE_F_CNP)) && \
	 ((h) & ROCE_H_PAYLOAD) && !((h) & ~(ROCE_H_PAYLOAD | ROCE_H_RETH)) ? \
	 PRED_OK | ((h) & ROCE_H_RETH ? PRED_RETH : 0) | ((f) & ROCE_F_LAST ? PRED_LAST : 0) | \
	 ((f) & (ROCE_F_FIRST | ROCE_F_MIDDLE) && !((f) & ROCE_F_LAST) ? PRED_PMTU : 0) : 0)

static const uint8_t pred_op[256] = {
#define ROCE_OP(sym, val, hdrs, flags) [val] = PRED_CODE(hdrs, flags),
#include <roce/opcodes.def>
#undef ROCE_OP
};

/* Not this frame: the full path.  Many misses in a row: stop predicting a while. */
static inline int pred_miss(struct an_pred *pr)
{
	if (++pr->miss >= AN_PRED_MISSES) {
		pr->f = NULL;
		pr->skip = AN_PRED_BACKOFF;
		pr->miss = 0;
	}
	return 1;
}

void an_predict_enable(roce_analyzer_t *a, bool on)
{
	a->pred.off = !on;
	a->pred.f = NULL;
}

uint64_t an_predict_hits(const roce_analyzer_t *a)
{
	return a->pred.hits;
}

/*
 * The table slot of the stream with IPv4 destination address dst (its four
 * bytes as they are in the frame, loaded in native order) and destination
 * QP dqpn: the same from a frame and from the stream's key.
 */
static inline __attribute__((always_inline)) uint32_t pred_slot(uint32_t dst, uint32_t dqpn)
{
	/* (a sum of two products: runs of consecutive QPs and hosts spread, where
	 * one product of dst ^ dqpn put eight pairs of bulk streams in one slot) */
	return (dst * 0x9e3779b1u + dqpn * 0x85ebca6bu) >> (32 - 8);
}

_Static_assert(AN_PRED_SLOTS == 1u << 8, "pred_slot() makes 8 bits");

static inline __attribute__((always_inline)) uint32_t pred_slot_fr(const uint8_t *fr)
{
	return pred_slot(pred_ld32(fr + ROCE_FAST_L3 + ROCE_IPV4_OFF_DST),
			 roce_get_be24(fr + ROCE_FAST_BTH + ROCE_BTH_OFF_DQPN));
}

void an_predict_forget(struct roce_analyzer *a, const struct an_flow *f)
{
	struct an_pred_ent *e;

	if (a->pred.f == f)
		a->pred.f = NULL;
	/* (an entry's stream is the one of the frame it was learnt from: that slot) */
	e = &a->pred.tab[pred_slot(pred_ld32(f->st.key.dst + 12), f->st.key.dqpn & 0xffffffu)];
	if (e->f == f)
		e->f = NULL;
}

void an_predict_learn(struct roce_analyzer *a, const struct roce_pkt *pkt, int st,
	const uint8_t *fr, size_t caplen)
{
	struct an_pred *pr = &a->pred;
	const uint8_t *ip = fr + ROCE_FAST_L3;
	struct an_pred_ent *e;

	if (pr->skip) {
		pr->skip--;
		return;
	}
	/* (pkt->frame != fr: decoded inside an encapsulation, not at the fixed offsets) */
	if (pr->off || st != ROCE_OK || pkt->findings || pkt->kind != ROCE_KIND_ROCE ||
	    pkt->frame != fr ||
	    pkt->version != 2 || pkt->icrc_status == ROCE_ICRC_BAD || caplen < AN_PRED_HDR ||
	    roce_get_be16(fr + ROCE_ETH_OFF_TYPE) != ROCE_ETHERTYPE_IPV4 || ip[0] != 0x45 ||
	    (ip[ROCE_IPV4_OFF_TOS] & 3) == 3 || (fr[ROCE_FAST_BTH + ROCE_BTH_OFF_FLAGS] & 0x3f))
		return;
	e = &pr->tab[pred_slot_fr(fr)];
	e->f = pr->cand;
	e->q[0] = pred_ld64(fr);
	e->q[1] = pred_ld64(fr + 8);
	e->q[2] = pred_ld64(fr + 26);
	e->q[3] = pred_q3(fr);
	e->d[0] = pred_ld32(fr + 20);
	e->d[1] = pred_ld32(fr + 34);
	e->csum_ok = roce_ipv4_hdr20_ok(ip);
	e->csum3 = pred_csum3(ip);
	pr->cur = e;
	pr->f = pr->cand;
}

/* The header bytes of fr that must match are e's. */
static inline __attribute__((always_inline)) bool pred_match(const struct an_pred_ent *e,
	const uint8_t *fr)
{
	return ((pred_ld64(fr) ^ e->q[0]) | (pred_ld64(fr + 8) ^ e->q[1]) |
		(pred_ld64(fr + 26) ^ e->q[2]) | (pred_q3(fr) ^ e->q[3]) |
		((pred_ld32(fr + 20) ^ e->d[0]) | (pred_ld32(fr + 34) ^ e->d[1]))) == 0;
}

/*
 * The ACK of the predicted stream's responder (its peer g): an RC ACKNOWLEDGE
 * of g's next response PSN with an ACK-type syndrome (an_resp_inorder_ok()),
 * as bulk traffic answers a request frame with AckReq at once.  Its header is
 * checked against what the decoder's fast path requires and g's key (the
 * stream the lookup would find); the updates are process_frame()'s and
 * roce_process()'s for it, then an_resp_inorder() itself (the pkt it reads:
 * opcode, AETH, PSN).  Anything else, or in doubt: 1, the full path; the
 * caller's discard flag set once the frame was read: ROCE_E_DISCARDED, nothing
 * counted (an_discard()).
 */
/*
 * A predicted frame (pred_ack() or an_predict()) counted as process_frame() and roce_process()
 * count it: the frame, its ICRC status and opcode, and f's frames, bytes, time, PSN and ECN.
 */
static inline __attribute__((always_inline)) void pred_count(struct roce_analyzer *a,
	struct an_flow *f, uint64_t ts, uint64_t no, size_t wirelen, bool ok, uint8_t opcode,
	uint32_t psn, uint8_t tos)
{
	a->pred.hits++;
	a->pred.miss = 0;
	an_count_frame(a, ts, no, wirelen);
	a->sum.roce_frames++;
	a->sum.rocev2_frames++;
	if (ok)
		a->sum.icrc_ok++;
	else
		a->sum.icrc_unverified++;
	a->sum.opcodes[opcode]++;
	an_count_frame_of(a, f);
	f->st.bytes += wirelen;
	if (f->st.last_ts_ns < ts)
		f->st.last_ts_ns = ts;
	f->st.last = psn | (uint32_t)opcode << 24;
	an_copy_note(a, f, ts, f->st.last);
	if (tos & 3)
		AN_COUNT_HOT(a, f, ecn_capable, 1);
}

static int pred_ack(struct roce_analyzer *a, struct an_flow *g, const uint8_t *fr,
	size_t caplen, size_t wirelen, const struct roce_decode_opts *opts, uint64_t ts,
	uint64_t no)
{
	const uint8_t *ip = fr + ROCE_FAST_L3, *u = fr + ROCE_FAST_UDP, *t = fr + ROCE_FAST_BTH;
	const size_t end = ROCE_FAST_EXT + ROCE_AETH_LEN + ROCE_ICRC_LEN;
	struct roce_frame_result res;
	struct roce_pkt pkt;
	struct an_ctx c;
	uint8_t m[32], syn;
	uint64_t w[4], k[4];
	uint32_t psn;
	bool ok;

	if (caplen < ROCE_FAST_EXT + ROCE_AETH_LEN || a->inorder_off ||
	    roce_get_be16(fr + ROCE_ETH_OFF_TYPE) != ROCE_ETHERTYPE_IPV4 || ip[0] != 0x45 ||
	    ip[ROCE_IPV4_OFF_PROTO] != ROCE_IPPROTO_UDP ||
	    (roce_get_be16(ip + ROCE_IPV4_OFF_FRAG) & (ROCE_IPV4_FRAG_OFF_MASK | ROCE_IPV4_MF)) ||
	    (ip[ROCE_IPV4_OFF_TOS] & 3) == 3 ||
	    roce_get_be16(ip + ROCE_IPV4_OFF_TOTLEN) != end - ROCE_FAST_L3 ||
	    roce_get_be16(u + ROCE_UDP_OFF_LEN) != end - ROCE_FAST_UDP || end > wirelen ||
	    (t[ROCE_BTH_OFF_FLAGS] & 0x3f) ||           /* pad count, TVer */
	    !roce_port_match(opts, roce_get_be16(u + ROCE_UDP_OFF_DPORT)) ||
	    (opts->verify_ip_csum && !roce_ipv4_hdr20_ok(ip)))
		return 1;
	/* g is the stream flow_get() finds: its key is the frame's */
	roce_v4mapped(m, ip + ROCE_IPV4_OFF_SRC);
	roce_v4mapped(m + 16, ip + ROCE_IPV4_OFF_DST);
	memcpy(w, m, 32);
	memcpy(&k[0], g->st.key.src, 16);
	memcpy(&k[2], g->st.key.dst, 16);
	psn = roce_get_be24(t + ROCE_BTH_OFF_PSN);
	syn = t[ROCE_BTH_LEN + ROCE_AETH_OFF_SYNDROME];
	if (g->st.key.version != 2 || g->st.key.dqpn != roce_get_be24(t + ROCE_BTH_OFF_DQPN) ||
	    ((w[0] ^ k[0]) | (w[1] ^ k[1]) | (w[2] ^ k[2]) | (w[3] ^ k[3])) ||
	    !an_resp_inorder_ok(g, psn, true, syn, false))
		return 1;
	ok = caplen >= end;
	if (opts->verify_icrc) {
		if (ok && roce_icrc_crc_v4(ip, end - ROCE_ICRC_LEN - ROCE_FAST_L3) !=
		    roce_get_le32(fr + end - ROCE_ICRC_LEN))
			return 1;
	} else {
		ok = ok && opts->icrc_known_ok;
	}

	if (an_discard(a))
		return ROCE_E_DISCARDED;
	/* what process_frame() and roce_process() do for it, in their order (the
	 * stream's transport is reliable, never CNP-only; an ACK teaches no PMTU) */
	pred_count(a, g, ts, no, wirelen, ok, t[ROCE_BTH_OFF_OPCODE], psn, ip[ROCE_IPV4_OFF_TOS]);
	pkt.op = &roce_opcodes[t[ROCE_BTH_OFF_OPCODE]];
	pkt.hdrs = pkt.op->hdrs;
	pkt.bth.psn = psn;
	pkt.aeth.syndrome = syn;
	c.a = a;
	c.pkt = &pkt;
	c.ts = ts;
	c.frame = no;
	c.res = &res;
	res.events = 0;
	an_resp_inorder(&c, g);
	return ROCE_OK;
}

int an_predict(struct roce_analyzer *a, const uint8_t *fr, size_t caplen, size_t wirelen,
	const struct roce_decode_opts *opts, uint64_t ts, uint64_t no)
{
	const uint8_t *ip = fr + ROCE_FAST_L3, *u = fr + ROCE_FAST_UDP, *t = fr + ROCE_FAST_BTH;
	struct an_pred *pr = &a->pred;
	struct an_pred_ent *e = pr->cur;
	struct an_flow *f;
	uint32_t code, psn, pay;
	size_t end, hl;
	uint16_t tot;
	bool ack, ok;

	if (caplen < AN_PRED_HDR)
		return pred_miss(pr);
	if (wirelen < caplen)
		wirelen = caplen;
	if (!pred_match(e, fr)) {
		/* not cur's stream: its responder's ACK? */
		if (t[ROCE_BTH_OFF_OPCODE] == ROCE_OP_RC_ACKNOWLEDGE && pr->f->peer) {
			int r = pred_ack(a, pr->f->peer, fr, caplen, wirelen, opts, ts, no);

			if (r != 1)
				return r;       /* taken, or discarded */
		}
		/* the next frame of another stream learnt */
		e = &pr->tab[pred_slot_fr(fr)];
		if (!e->f || !pred_match(e, fr))
			return pred_miss(pr);
	}
	f = e->f;
	tot = roce_get_be16(ip + ROCE_IPV4_OFF_TOTLEN);
	end = ROCE_FAST_L3 + (size_t)tot;
	code = pred_op[t[ROCE_BTH_OFF_OPCODE]];
	hl = (code & PRED_RETH) ? ROCE_RETH_LEN : 0;
	if (!code || tot < ROCE_IPV4_MIN_HLEN + ROCE_UDP_HLEN ||
	    roce_get_be16(u + ROCE_UDP_OFF_LEN) != tot - ROCE_IPV4_MIN_HLEN || end > wirelen ||
	    end < (size_t)AN_PRED_HDR + hl + ROCE_ICRC_LEN || caplen < AN_PRED_HDR + hl ||
	    f->st.transport == ROCE_TRANSPORT_CNP ||
	    !roce_port_match(opts, roce_get_be16(u + ROCE_UDP_OFF_DPORT)) ||
	    (opts->verify_ip_csum && (!e->csum_ok || pred_csum3(ip) != e->csum3)))
		return pred_miss(pr);
	psn = roce_get_be24(t + ROCE_BTH_OFF_PSN);
	ack = t[ROCE_BTH_OFF_ACK] >> ROCE_BTH_ACKREQ_SHIFT;
	if (!an_req_inorder_ok(f, psn, ack, 0))
		return pred_miss(pr);
	/* the ICRC step of roce_decode_tail(): verified here when asked (a bad one is
	 * the full path's to report), or an OK found elsewhere taken */
	ok = caplen >= end;
	if (opts->verify_icrc) {
		if (ok && roce_icrc_crc_v4(ip, end - ROCE_ICRC_LEN - ROCE_FAST_L3) !=
		    roce_get_le32(fr + end - ROCE_ICRC_LEN))
			return pred_miss(pr);
	} else {
		ok = ok && opts->icrc_known_ok;         /* roce_icrc_pending() */
	}

	if (an_discard(a))
		return ROCE_E_DISCARDED;
	/* what process_frame() and roce_process() do for it, in their order */
	pay = (uint32_t)(end - ROCE_ICRC_LEN - (AN_PRED_HDR + hl));    /* pad count 0 */
	pr->cur = e;
	pr->f = f;
	pred_count(a, f, ts, no, wirelen, ok, t[ROCE_BTH_OFF_OPCODE], psn, ip[ROCE_IPV4_OFF_TOS]);
	f->st.payload_bytes += pay;
	an_req_advance(a, f->req, psn, ack, false, (code & PRED_LAST) != 0, ts, no);
	f->st.is_request = true;
	if (code & PRED_PMTU)
		an_learn_pmtu(a, f, ROCE_F_REQ | ROCE_F_MIDDLE, pay);
	if (!f->peer || f->req->pn)
		an_pair_sync(a, f);
	return ROCE_OK;
}
