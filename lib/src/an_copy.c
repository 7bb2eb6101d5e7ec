/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * an_copy.c - capture copies: a frame the capture carried twice (tcpdump -i any
 * with a VLAN sub-interface or a bridge, a pcapng whose two interfaces tap the
 * same link, a mirror port copying both ingress and egress) told from a resend.
 *
 * The rule (docs/json.md "Capture copies"): a request, response or CNP frame X'
 * is the capture's copy of an earlier frame X of its stream when
 *   1. it carries the same PSN and opcode (an ACKNOWLEDGE: an ACK of an ACK, a
 *      NAK or RNR NAK of one with its syndrome; a CNP: its reserved PSN field
 *      too), X being the newest such frame of the stream (newer frames of the
 *      stream with other PSNs, NAKs too, may lie between: a mirror's copies lag
 *      by more than two NAKs' spacing),
 *   2. it follows X by less than copy_window_ns (default 4 us), and
 *   3. nothing between X and X' could have made the sender send it again.
 * A resend without a NAK waits for the Local ACK Timeout, 4.096 us x 2^n with
 * n >= 1 (IBTA Vol. 1 9.7.6.1.3), at least 8.192 us (Linux rxe arms its
 * retransmit timer in jiffies, milliseconds; mlx5 firmware uses the QP's
 * timeout, 14 by default: 67 ms), an RNR resend the RNR timer (10 us at least)
 * after an RNR NAK (Linux rxe: that many jiffies at least; mlx5: the encoded
 * time): outside the default window.  What can make a sender repeat a frame
 * inside it, by direction (condition 3):
 *   - a request: a NAK or RNR NAK of the peer, after which the requester goes
 *     back to the PSN the NAK names (those before it were received), or an
 *     implicit NAK: a response or ACK beyond a READ or ATOMIC whose response
 *     the requester missed (IBTA 9.7.5.1.5), after which it re-issues that
 *     READ / ATOMIC and resends what followed it (the stream going back,
 *     below).  So X' is no copy if between them the peer has a NAK at X's
 *     PSN, or an RNR NAK at X's PSN at least its timer (the AETH's 5 bits,
 *     which the NAK's entry keeps: 10 us at least, 655.36 ms for 0) before X'
 *     (the requester resends the refused request when the timer has run, so
 *     no frame before is its resend, wherever the capture point is: with the
 *     default window an RNR NAK never stops a copy; a mirror's copy of the
 *     request it refused comes after it), or, X' being a READ or ATOMIC (the
 *     re-issue itself), a frame with a PSN after X's before any with X's PSN
 *     (X's first response).  A
 *     NAK or RNR NAK before X's PSN makes the requester resend that PSN first
 *     (an RNR NAK after its timer, 10 us at least): a frame of the stream
 *     before X's, which stops X' (below); before it, X' is X's copy: a
 *     mirror's copy of the request that showed a gap follows the NAK it
 *     caused.  The peer's ACKs, its responses to other requests and its CNPs
 *     do not stop it: a bidirectional mirror puts them between a request and
 *     its copy.
 *   - an ACK, a READ response or an ATOMIC ACK: the responder answers again a
 *     request it receives again (a duplicate), whose PSN is at or before the
 *     response's.  So X' is no copy if between them the peer has a request at
 *     or before X's PSN; the requests in flight behind X (later PSNs) do not
 *     stop it.
 *   - a NAK (sequence error; the fatal NAKs alike): a responder that NAKs
 *     every out-of-sequence request (the IBTA asks for one NAK per sequence
 *     error, Linux rxe keeps to it with its sent_psn_nak flag; not every
 *     implementation may) repeats it for a request after X's PSN that arrives
 *     while X's PSN is still missing.  So X' is no copy if between them the
 *     peer has a request after X's PSN before any at X's PSN (the go-back's
 *     first resend, after which no NAK names that PSN again), or the stream a
 *     NAK or RNR NAK at X's PSN with another syndrome (the responder had X's
 *     PSN again and refused it: an RNR NAK of the go-back's first resend, then
 *     the NAK of a later request).  Its NAKs of later PSNs do not stop X': it
 *     received X's PSN.
 *   - an RNR NAK: the responder refuses X's request again when it comes again
 *     (or a go-back resends it): a request of the peer at or before X's PSN
 *     between them stops it (and, as for a NAK, one of the stream at X's PSN
 *     with another syndrome); a copy of that request is none (above).
 *   - a CNP: the notification point sends one for a CE-marked frame it
 *     receives, whose mark may come after the capture point (a congested hop
 *     behind the mirror): as before, any frame of the peer between them (but
 *     its CNPs) stops it.  Only on a stream with a peer (RC, UC, XRC: on UD
 *     the CE-marked frames that make CNPs go to another stream, which the rule
 *     cannot watch).
 * In every direction a frame of the stream itself between them with a PSN
 * before X's stops it (but for CNPs): the stream went back, a go-back that may
 * resend X (its trigger may come before X: a NAK that overtook the requests
 * in flight, a READ re-issued while its responses were still on their way).
 * Not a late request, reordered on the way (a mirror of a link that reorders
 * puts it between the frame that overtook it and that frame's copy), which
 * the capture tells from a resend: it is the first capture of its PSN and
 * fills a gap (the analysis counts it out of order, no retransmission: no
 * go-back under way, no pending NAK naming it), and on UC and UD (no resends)
 * that is all; on RC, XRC and RD the capture carries the peer's frames when X'
 * comes (a capture of one direction holds no NAK: the go-back a NAK asked for
 * would read as late; late_counts()), no NAK or RNR NAK of the peer at or
 * before its PSN was pending (it may be the go-back's first resend, or a later
 * one whose first the capture missed), and a request of its stream before its PSN came less than
 * 8.192 us (the shortest Local ACK Timeout) before it: had that one's PSN been
 * unacknowledged when the timer ran, the go-back would resend it first; its
 * ACK restarts the requester's timer (Linux rxe: mod_timer() in the completer
 * while requests are outstanding), which then runs past the late request.  So
 * a request reordered right after 8.192 us of its stream's silence before its
 * PSN stops X' still (the capture cannot rule out a timeout's resend whose NAK
 * it missed).  an_copy_late() marks its entry so on that rare path
 * (AN_COPY_LATE).  A late READ response stops X' still (a re-issued READ's
 * responses fill gaps too), and so does a late request of the peer between a
 * response and its copy (a request at or before its PSN).  A frame dropped for
 * damage (bad ICRC, untrusted findings: the analysis reads none of its fields)
 * between them does not stop it, of either stream: its receiver drops it too,
 * silently (the IBTA: no NAK for a packet that fails its checks; Linux rxe
 * drops a bad ICRC in rxe_icrc_check(), mlx5 in hardware), so nothing it
 * carried (a NAK at X's PSN, a request again) makes anyone send again, and its
 * header, PSN included, may lie, so it tells nothing of where its stream is;
 * the resend its loss leads to follows a NAK of a later PSN (which the rules
 * above see) or a timeout (outside the window).  But it may be the only trace
 * of a go-back: a damaged frame of the stream after a NAK (an RNR NAK from its
 * timer on) of the peer at a PSN before a request X's stops X' (the go-back's
 * first resend, of the NAK's PSN, damaged, then X's PSN again: the search,
 * backwards, meets the damaged frame first: dmg); a damaged frame of the peer
 * between a CNP and its copy stops it still (a notification point may answer
 * the CE mark before it checks the ICRC).  The rule trusts a damaged frame to have been
 * damaged on the way (one the capture alone damaged, the receiver having had
 * it whole, is like a frame the capture missed, below); a go-back's damaged
 * resend without a NAK between X and it (an implicit NAK, a NAK before X, a
 * timeout that ran out past X) lets a resend read as a copy, as a missed one
 * does.  A damaged frame is no copy itself: it counts each time it comes.
 * Copies between them, of either stream, do not count: they are left out of
 * the recent frames.
 * The length and ICRC of X are not kept: the analysis reads no payload byte
 * (issue #9's two-thread reader); a PSN names one packet of a connection (a
 * resend of it has the same opcode and length), and the conditions above are
 * what a resend cannot meet.  The rule trusts the capture to hold what the
 * sender saw: a NAK (or a re-issued READ, or a resend at the PSN a NAK names)
 * the capture missed lets a resend inside the window read as a copy
 * (--copy-window=1 or 0 is then the remedy).
 *
 * The recent frames (struct roce_analyzer.copies, written by an_copy_note() for
 * every analysed frame of a stream, on the in-order and predicted paths too)
 * are AN_COPY_RING entries: X must be among the AN_COPY_RING - 1 frames before
 * X' (of all streams; 4 us at 100 Gb/s is ~600 frames of 64 bytes).  What an
 * entry costs a frame on those paths (callgrind an_bench, docs/performance.md):
 * three stores and no arithmetic but the ring position's, which counts in bytes
 * (copy_pos); the word (PSN | opcode << 24) is the one stored as the stream's
 * newest PSN and opcode (struct an_fstat.last); the tag is the low 32 bits of
 * the stream's creation number as they are, a dropped frame's word has opcode
 * 0xff (no analysed frame's: it has no name).  A NAK's entry is rewritten on
 * its own (rare) path, an_copy_mark_nak() from aeth_nak(): its tag with bit 31
 * flipped (AN_COPY_NAK: the mark never changes which stream an entry is of,
 * the other bits say it), its word PSN | syndrome << 24 (its opcode an
 * ACKNOWLEDGE's: an ATOMIC ACKNOWLEDGE with a NAK syndrome could pass for a
 * NAK's copy; the mark, not the byte, tells it from a dropped frame or a CNP);
 * a late request's (an_copy_late(), from an_request.c) its tag with bit 30
 * flipped (AN_COPY_LATE).  So streams 2^30 apart in creation, both with frames in
 * the window, could be taken for one.
 * They are searched backwards from X' only where X' failed its stream's
 * in-order test (roce_process() before an_req_process() / an_resp_process()),
 * on the CNP path and for a CE-marked frame, never on the in-order paths, and
 * only when the stream's newest frame is inside the window (an_copy_is(), inline
 * in the callers: the common answer on the rare path costs no call; then
 * an_copy_find()); the search stops at the first entry older than the window,
 * and looks an entry's opcode up (a CNP's?) only for the stream's and its
 * peer's entries.  A copy is then
 * counted as a frame (frames, bytes, payload bytes, ICRC verdict, opcode, the
 * stream's last_ts: roce_process() did so before) and in capture_copies, and is
 * otherwise not analysed: no duplicate, retransmission, out-of-order, go-back-N
 * episode, round trip, ACK, CNP, ECN-capable or CE count; the stream's newest
 * PSN and opcode stay those of the frame before it, and it leaves the recent
 * frames.
 */
#include "an_internal.h"

/* b - a on the 24-bit PSN circle, -2^23..2^23 - 1 */
static inline int32_t psn_diff(uint32_t b, uint32_t a)
{
	return (int32_t)((b - a) << 8) >> 8;
}

/* a request that opens a READ-like exchange: a READ, an ATOMIC, a FLUSH (answered by a
 * response the requester may miss, then re-issued: an implicit NAK) */
static bool readlike(uint8_t opcode)
{
	uint32_t fl = roce_opcode_info(opcode)->flags;

	return (fl & ROCE_F_REQ) && ((fl & (ROCE_F_READ | ROCE_F_ATOMIC | ROCE_F_FLUSH)) ||
				     !(fl & (ROCE_F_SEND | ROCE_F_WRITE)));
}

/* the ring entry e is a dropped frame's (opcode 0xff: no analysed frame's, it has no name) */
static inline bool ent_drop(const struct an_copy_ent *e)
{
	return e->word >> 24 == 0xffu;
}

/* the ring entry e is a CNP's (whose PSN field is reserved: no PSN of the stream) */
static inline bool ent_cnp(const struct an_copy_ent *e)
{
	return roce_opcode_info(e->word >> 24)->flags & ROCE_F_CNP;
}

/* the NAK entry e (an_copy_mark_nak()) at a request's PSN stops the request's copy at ts: a
 * NAK always (the requester goes back at once), an RNR NAK only when ts is at least its timer
 * (its syndrome's 5 bits, IBTA table "RNR NAK timer field encodings") after it: the requester
 * resends the refused request when the timer has run, so no earlier frame is that resend */
static bool nak_stops(const struct an_copy_ent *e, uint64_t ts)
{
	uint8_t syn = e->word >> 24;

	if (roce_aeth_type(syn) != ROCE_AETH_RNR_NAK)
		return true;
	return ts >= e->ts && ts - e->ts >= (uint64_t)roce_rnr_timer_us(syn & 0x1f) * 1000;
}

/* the shortest Local ACK Timeout, 4.096 us x 2^1 (IBTA 9.7.6.1.3) */
#define AN_COPY_LAT_NS 8192u

/* a late request of f (AN_COPY_LATE) is no resend: on UC and UD (no resends), and on a
 * reliable stream whose peer the capture carries (a capture of one direction holds no NAK:
 * the go-back a NAK asked for would read as late; asked when a copy is looked for, so a
 * peer whose first frame came after the late request counts) */
static bool late_counts(const struct an_flow *f)
{
	uint32_t t = f->st.transport;

	return f->peer || !(t == ROCE_TRANSPORT_RC || t == ROCE_TRANSPORT_XRC ||
			    t == ROCE_TRANSPORT_RD);
}

bool an_copy_find(const struct an_ctx *c, const struct an_flow *f)
{
	const struct roce_analyzer *a = c->a;
	uint64_t win = a->cfg.copy_window_ns, n, lim;
	uint64_t written = a->copy_pos / sizeof(struct an_copy_ent);
	const struct roce_pkt *pkt = c->pkt;
	uint32_t flags = pkt->op->flags;
	uint32_t psn = pkt->bth.psn & 0xffffffu;
	uint32_t word = psn | (uint32_t)pkt->bth.opcode << 24;
	uint32_t tag = (uint32_t)f->ent.seq, ptag = 0;
	bool cnp = flags & ROCE_F_CNP, req = flags & ROCE_F_REQ, nak = false, rnr = false;
	bool rl, gap = false, dmg = false;
	uint64_t dmg_ts = 0;    /* the newest damaged frame of f after X (dmg) */

	/* (an_copy_is() found the stream's newest frame before it inside the window) */
	if (f->st.frames < 2 || written < 2)
		return false;
	if (f->peer)
		ptag = (uint32_t)f->peer->ent.seq;
	else if (cnp)
		return false;   /* UD: the CE marks that make CNPs travel on other streams */
	rl = req && readlike(pkt->bth.opcode);
	if (flags & ROCE_F_ACK) {
		uint8_t syn = pkt->aeth.syndrome;

		nak = roce_aeth_type(syn) != ROCE_AETH_ACK;
		rnr = roce_aeth_type(syn) == ROCE_AETH_RNR_NAK;
		/* a NAK: a copy only of a NAK with its syndrome, which its entry has for its
		 * opcode (an_copy_mark_nak()) */
		if (nak)
			word = psn | (uint32_t)syn << 24;
	}
	/* (the newest entry, n = 0, is the frame's own) */
	lim = written < AN_COPY_RING ? written : AN_COPY_RING;
	for (n = 1; n < lim; n++) {
		const struct an_copy_ent *e = &a->copies[(written - 1 - n) & (AN_COPY_RING - 1)];
		/* (only AN_COPY_MARKS bits, or 0: an entry of f; its NAK / late marks) */
		uint32_t et = e->tag ^ tag, ep = e->tag ^ ptag;

		if (e->ts <= c->ts && c->ts - e->ts >= win)
			return false;           /* older than the window */
		if (!(et & ~AN_COPY_MARKS)) {
			int32_t d = psn_diff(e->word & 0xffffffu, psn);
			bool enak = et & AN_COPY_NAK;

			/* (a NAK's entry: no dropped frame's, no CNP's, whatever its syndrome) */
			if (!enak && ent_drop(e)) {
				/* damaged on the way (its receiver dropped it: it asks for no
				 * resend; its header, PSN included, may lie): a go-back's
				 * resend perhaps, which a NAK before X's PSN between X and it
				 * tells (the peer's entries, below) */
				if (!dmg) {
					dmg = true;
					dmg_ts = e->ts;
				}
				continue;
			}
			if (e->word == word && enak == nak)
				/* X: not stamped after X' */
				return !gap && e->ts <= c->ts;
			/* a NAK of X's PSN with another syndrome: the responder had X's
			 * request, or a later one, again (an RNR NAK of the go-back's first
			 * resend, then a NAK of a later request that found X's PSN missing
			 * still); its NAKs of other PSNs (after X's: it received X's PSN)
			 * do not stop X' */
			if (nak && enak && d == 0)
				return false;
			/* the stream went back (a go-back-N resend, a re-executed READ, a
			 * re-ACK); not a late request (reordered on the way: an_copy_late()) */
			if (!cnp && d < 0 && !((et & AN_COPY_LATE) && late_counts(f)) &&
			    (enak || !ent_cnp(e)))
				return false;
		} else if (f->peer && !(ep & ~AN_COPY_MARKS)) {
			int32_t d = psn_diff(e->word & 0xffffffu, psn);
			bool enak = ep & AN_COPY_NAK;

			/* a damaged frame: its receiver, X's sender, dropped it (a NAK at X's
			 * PSN, a request again: nothing it carried asks for a resend); but a
			 * notification point may answer a CE mark before it checks the ICRC */
			if (!enak && ent_drop(e)) {
				if (cnp)
					return false;
				continue;
			}
			if (!enak && ent_cnp(e)) {
				continue;       /* (a CNP makes no one resend) */
			} else if (rnr) {
				/* X's request again (refused again), or a go-back before it */
				if (d <= 0)
					return false;
			} else if (nak) {
				/* a request after X's PSN before X's own arrives (seen backwards:
				 * X's own clears the later ones): NAKed again by a responder
				 * that NAKs every out-of-sequence request */
				if (d >= 0)
					gap = d > 0;
			} else if (cnp) {
				return false;
			} else if (req) {
				/* a NAK or RNR NAK at X's PSN: the requester goes back to it
				 * (a NAK names the PSN it expects, an RNR NAK the request it
				 * refused).  One before X's PSN makes it resend that PSN
				 * first: a frame of the stream before X's, which stops X'
				 * above; until then X' is X's copy (a mirror's copy of the
				 * request that showed a gap comes after the NAK it caused).
				 * An RNR NAK only from its timer on (10 us at least): the
				 * requester resends when the timer has run, so nothing
				 * before is its resend (nak_stops()) */
				if (enak && d == 0 && nak_stops(e, c->ts))
					return false;
				/* one before X's PSN, a damaged frame of f after it: perhaps the
				 * go-back's first resend (of the NAK's PSN), then X's PSN again
				 * (an RNR NAK's from its timer on, at the damaged frame) */
				if (enak && d < 0 && dmg && nak_stops(e, dmg_ts))
					return false;
				/* a response beyond X's PSN before X's own (an implicit NAK:
				 * seen backwards, X's own clears the later ones) */
				if (rl && d >= 0)
					gap = d > 0;
			} else if (d <= 0) {
				return false;   /* a request the responder may answer again */
			}
		}
	}
	return false;
}

void an_copy_late(struct an_ctx *c, const struct an_flow *f, const struct an_req *r, uint32_t p,
	bool reliable)
{
	struct roce_analyzer *a = c->a;
	uint64_t written = a->copy_pos / sizeof(struct an_copy_ent), n, lim;
	uint32_t tag = (uint32_t)f->ent.seq;
	const struct an_req_err *er = r->err;
	struct an_copy_ent *e;

	if (!a->cfg.copy_window_ns || written < 2)
		return;
	if (!reliable)
		goto late;      /* (UC, UD: no resends) */
	/* a NAK or RNR NAK at or before p asked for it (the go-back's first resend, or a
	 * later one whose first the capture missed) */
	if (er && ((er->nak.valid && psn_diff(p, er->nak.psn) >= 0) ||
		   (er->rnr.valid && psn_diff(p, er->rnr.psn) >= 0)))
		return;
	/* a resend without a NAK (its NAK missed) follows a Local ACK Timeout (AN_COPY_LAT_NS
	 * at least): a request before p less than that before it would be resent first were
	 * it unacknowledged, and its ACK restarted the timer (the header comment) */
	lim = written < AN_COPY_RING ? written : AN_COPY_RING;
	for (n = 1; n < lim; n++) {
		e = &a->copies[(written - 1 - n) & (AN_COPY_RING - 1)];
		if (e->ts <= c->ts && c->ts - e->ts >= AN_COPY_LAT_NS)
			return;
		/* (a request of f: no NAK's entry, no dropped frame's, no ACK's) */
		if (!((e->tag ^ tag) & ~AN_COPY_LATE) && !ent_drop(e) &&
		    (roce_opcode_info(e->word >> 24)->flags & ROCE_F_REQ) &&
		    psn_diff(e->word & 0xffffffu, p) < 0)
			break;
	}
	if (n == lim)
		return;
late:
	e = &a->copies[(written - 1) & (AN_COPY_RING - 1)];
	e->tag ^= AN_COPY_LATE;
}

void an_copy_nak(struct an_ctx *c, struct an_flow *f, uint8_t syn)
{
	if (c->a->cfg.copy_window_ns)
		an_copy_mark_nak(c->a, f, syn);
}

void an_copy_count(struct an_ctx *c, struct an_flow *f)
{
	struct roce_analyzer *a = c->a;
	struct roce_counters *k = an_flow_ctr(a, f);

	c->res->events |= ROCE_EV_CAPTURE_COPY;
	a->sum.capture_copies++;
	/* (the newest of the recent frames: as if never captured) */
	a->copy_pos -= sizeof(struct an_copy_ent);
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
