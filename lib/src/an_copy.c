/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * an_copy.c - capture copies: a frame the capture carried twice (tcpdump -i any
 * with a VLAN sub-interface or a bridge, a pcapng whose two interfaces tap the
 * same link, a mirror port copying both ingress and egress) told from a resend.
 *
 * The rule (docs/json.md "Capture copies"): a request or response frame is the
 * capture's copy of its stream's previous frame when
 *   - it carries the same PSN and opcode (struct an_fstat keeps the newest
 *     frame's, in one word; in-order frames take the in-order paths, which
 *     never call here),
 *   - no frame of the connection came between them: the peer stream's newest
 *     frame is not later than the previous one (a NAK, an RNR NAK or a response
 *     that made the requester resend would be one), and
 *   - it follows it by less than copy_window_ns (default 4 us): a resend
 *     without a NAK waits for the Local ACK Timeout, 4.096 us x 2^n with
 *     n >= 1 (IBTA Vol. 1 9.7.6.1.3), at least 8.192 us (Linux rxe arms its
 *     retransmit timer in jiffies, milliseconds; mlx5 firmware uses the QP's
 *     timeout, 14 by default: 67 ms), and an RNR resend waits for the RNR timer
 *     after a captured RNR NAK.
 * The length and ICRC of the previous frame are not kept: the analysis reads no
 * payload byte (issue #9's two-thread reader) and the 144-byte stream record has
 * no room; a PSN names one packet of a connection (a resend of it has the same
 * opcode and length), and the two conditions above are what a resend cannot
 * meet.
 *
 * An ACKNOWLEDGE is an ACK, a NAK or an RNR NAK: a NAK (its syndrome and time
 * kept by an_copy_nak() from aeth_nak(), the rare path) is a copy only of a NAK
 * with its syndrome, an ACK only of an ACK.
 * A CNP (its PSN field is reserved) is a copy when the stream's newest frame was
 * a CNP (its last CNP time is that frame's), under the same two conditions, on a
 * stream with a peer (RC, UC, XRC: on UD the CE-marked frames that make CNPs go
 * to another stream, which condition 2 cannot watch).
 * The previous frame may have been dropped (a bad ICRC, malformed): its opcode
 * is then kept as 0xff, which no frame analysed further repeats.
 *
 * Asked only where a frame failed its stream's in-order test (roce_process()
 * before an_req_process() / an_resp_process()), on the CNP path and for a
 * CE-marked frame, never on the in-order paths: clean traffic pays nothing for
 * it.  A copy is then counted as a frame (frames, bytes, payload bytes, ICRC
 * verdict, opcode: roce_process() did so before) and in capture_copies, and is
 * otherwise not analysed: no duplicate, retransmission, out-of-order, go-back-N
 * episode, round trip, ACK, CNP, ECN-capable or CE count.
 */
#include "an_internal.h"

bool an_copy_is(const struct an_ctx *c, const struct an_flow *f, uint32_t prev_psn,
	uint64_t prev_ts)
{
	uint64_t win = c->a->cfg.copy_window_ns;

	if (!win || f->st.frames < 2 || c->ts < prev_ts || c->ts - prev_ts >= win)
		return false;
	if (c->pkt->op->flags & ROCE_F_CNP) {
		/* a CNP's PSN is reserved: the stream's newest frame was a CNP */
		const struct an_lat_x *l = an_flow_lat_x(f);

		/* (on a stream without a peer, UD, a CE-marked frame of the other direction
		 * between two CNPs cannot be seen: no copy) */
		if (!f->peer || !l || !l->cnps || l->last_cnp_ts != prev_ts)
			return false;
	} else if (((c->pkt->bth.psn & 0xffffffu) | (uint32_t)c->pkt->bth.opcode << 24) !=
		   prev_psn) {
		return false;
	} else if (c->pkt->op->flags & ROCE_F_ACK) {
		/* an ACKNOWLEDGE: an ACK, a NAK or an RNR NAK, one opcode; the previous one
		 * was a NAK when the stream's newest NAK has its time */
		const struct an_lat_x *l = an_flow_lat_x(f);
		uint8_t prev = l && l->last_nak_syn && l->last_nak_ts == prev_ts ?
			l->last_nak_syn : 0;
		uint8_t syn = c->pkt->aeth.syndrome;

		if (roce_aeth_type(syn) == ROCE_AETH_ACK ? prev != 0 : prev != (syn ? syn : 0xff))
			return false;
	}
	/* a frame of the peer stream since the previous one: a resend may answer it */
	return !(f->peer && f->peer->st.last_ts_ns > prev_ts);
}

void an_copy_nak(struct an_ctx *c, struct an_flow *f, uint8_t syn)
{
	struct an_lat_x *l;

	if (!c->a->cfg.copy_window_ns || !(l = an_lat_x_get(c->a, f)))
		return;
	l->last_nak_ts = c->ts;
	l->last_nak_syn = syn ? syn : 0xff;   /* (0 is an ACK's syndrome: never a NAK's) */
}

void an_copy_count(struct an_ctx *c, struct an_flow *f)
{
	struct roce_analyzer *a = c->a;
	struct roce_counters *k = an_flow_ctr(a, f);

	c->res->events |= ROCE_EV_CAPTURE_COPY;
	a->sum.capture_copies++;
	if (k)
		((struct an_ctr *)k)->capture_copies++;
	if (c->pkt->ecn) {
		/* roce_process() counted it ECN-capable (AN_COUNT_HOT): taken back, so that
		 * ecn_ce over ecn_capable stays the capture's ratio (a CE copy's mark is
		 * not counted) */
		a->sum.ecn_capable--;
		if (f->st.ecn_capable) {
			f->st.ecn_capable--;
		} else if (f->ctr && f->ctr->ecn_capable) {
			/* that count wrapped st.ecn_capable: the carry taken back */
			f->ctr->ecn_capable -= UINT64_C(1) << 32;
			f->st.ecn_capable = UINT32_MAX;
		}
	}
}
