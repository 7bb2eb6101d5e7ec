// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * psnref - a deliberately simple reference model of the PSN rules, used to
 * check the analyzer (lib/src/analyzer*.c) independently.
 *
 *   psnref [--pmtu=BYTES] [--no-icrc] FILE...
 *
 * Prints one JSON object per stream and line, with the same keys as the
 * "qps" rows of `roce-analyze --json` for the counters it models.
 *
 * Written from docs/json.md and the IBTA rules summarised in the protocol
 * notes, NOT from the analyzer's source: it shares only the frame decoder
 * (roce_decode) and the capture reader with it.  Slow and clear on purpose:
 * every stream keeps the set of every PSN it has seen and the list of every
 * RDMA READ range ever requested; nothing is bounded or evicted.
 *
 * The rules (each one is a sentence of docs/json.md or of the spec):
 *
 *  R0 A stream is (RoCE version, source, destination, destination QP).
 *     Only frames with a BTH belong to one.  A damaged frame (bad ICRC, or
 *     a finding that makes its headers untrustworthy: truncated, bad_length,
 *     unknown_opcode, bad_tver, bad_ip_checksum, ip_fragment) is dropped, as
 *     the receiver drops it: counted (frames, icrc_bad) on its stream if that
 *     stream exists, never opening one, and otherwise ignored: no PSN, ACK,
 *     NAK, CNP or PMTU learning (docs/json.md, "Damaged frames").
 *  R1 Sequencing applies to RC, UC, RD, XRC and UD (not CNP, not vendor
 *     opcodes).  UC and UD never retransmit: a request frame behind
 *     "expected" is a duplicate or out of order only (R4), never a
 *     retransmission or an episode, and "expected" stays.  A UD stream
 *     sequences the frames of its first DETH source QP: once a frame from
 *     another source QP arrives (several senders share the destination QP)
 *     the stream has no sequence any more: no PSN counter changes after it,
 *     PSNs already skipped stay unrecovered (docs/json.md).
 *  R2 Request frames (SEND/WRITE/ATOMIC: 1 PSN; RDMA READ request:
 *     max(1, ceil(DMA length / PMTU)) PSNs) form the stream's request
 *     sequence.  "expected" = PSN after the previous request frame.
 *     A forward jump of the frame's PSN against "expected" is a gap; its
 *     size is added to lost_psns ("against the previous packet, including
 *     resent packets lost again inside a go-back-N run").
 *  R3 READ responses, ACKs and NAKs form the stream's response sequence:
 *     the PSNs the responder has shown it sent (a READ response's or an
 *     ACK's PSN; for a NAK the PSNs before its PSN, which it expects).  The
 *     PSN after the newest of them is the reference; a frame ahead of it is
 *     a gap when READ ranges known from the reverse direction's request
 *     streams lie between: lost_psns += the number of PSNs of those ranges
 *     skipped ("jumps inside a READ's range").  A frame behind the newest
 *     (a re-read, or a response still in flight after a re-read burst) is
 *     never a gap.  The first READ response of a stream counts as reference
 *     the start of the READ range that holds it, and the first frame of a
 *     stream the start of the earliest READ range wholly behind that,
 *     less than 2^22 PSNs away, of the request stream whose request it
 *     answers (R3a: responses come in PSN order, so those READs'
 *     responses went by before it, lost).  An ACK's PSN counts as
 *     seen (sent); ACKs and NAKs are never duplicates or out of order.
 *  R4 duplicate: the frame's (first) PSN was already seen on that sequence.
 *     out_of_order: not seen, behind the newest PSN (fills a gap).
 *  R4a A NAK (PSN sequence error) names one PSN: the last one seen from a
 *     responder is its pending NAK (a newer one replaces it) until it is
 *     answered: by a go-back-N episode starting (R6), or by a request frame
 *     carrying that PSN.
 *  R4b A request frame that jumps backwards against "expected", fills a gap,
 *     and whose PSN no pending NAK names is, outside a go-back-N episode, a
 *     late frame (reordered, or a resend that cannot be told from one): it
 *     is out-of-order only, not a retransmission, starts no episode, and
 *     "expected" stays where it was, so the next in-order frame is no gap.
 *     (Otherwise a reordered pair would count its PSN as lost twice.)
 *     Inside an episode it is a resend reordered within the run: a
 *     retransmission (R4c) that starts no episode, "expected" stays.
 *  R4c retransmissions (request sequences only: "go-back-N resends"): request
 *     frames behind the newest PSN that are not late frames (R4b).
 *  R5 unrecovered_psns: PSNs skipped by a gap that were never seen up to
 *     the end of the capture, on both sequences.
 *  R5a acked_unseen_psns (RC, XRC): a response frame (ACK, READ response,
 *     ATOMIC ACK: PSN n; NAK, RNR NAK: PSN n - 1) tells that the responder
 *     received every request PSN up to n of the request stream in the reverse
 *     direction (IBTA 9.7.5.1); a request PSN skipped by a gap and not seen
 *     that it covers reached the responder (the capture missed it): it counts
 *     there, and from then on it counts as seen (not unrecovered; a frame
 *     carrying it later is a duplicate).  Not when n is RESTART PSNs or more
 *     from that sequence's newest PSN (another connection).  A gap of the request
 *     stream opened after such a frame (the capture missed the requests past
 *     the newest it saw) is checked against the newest n of the response
 *     sequence so far: its PSNs up to n count there at once.
 *  R6 gbn episodes (total only): request frames that jump backwards against
 *     "expected" to a PSN seen before or named by a pending NAK.  An episode
 *     lasts until a request frame reaches the PSN after the newest seen when
 *     it began (a new one inside it keeps that end).
 *  R7 acks: frames whose AETH syndrome is of the ACK class; naks: NAK class
 *     and RNR NAK; rnr_naks: RNR NAK; cnps: opcode 0x81.
 *  R8 A frame 2^22 PSNs or more ahead of or behind its sequence's newest PSN
 *     (the PSN after the newest request; the newest PSN the responder showed
 *     it sent) belongs to a new connection on a reused QP number: that
 *     sequence starts over at it as at a stream's first frame, with no
 *     event; the PSNs it was missing stay unrecovered.  A request sequence
 *     that starts over forgets its READ ranges, episode and the other side's
 *     pending NAKs.
 *  PMTU: --pmtu, or the largest payload of a FIRST/MIDDLE packet anywhere in
 *     the input (those carry exactly one PMTU), found in a first pass.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <roce/opcode.h>
#include <roce/pkt.h>

#include "capread.h"

#define PSN_MASK 0xffffffu

static int32_t psn_diff(uint32_t a, uint32_t b)
{
	uint32_t d = (a - b) & PSN_MASK;

	return d & 0x800000u ? (int32_t)d - 0x1000000 : (int32_t)d;
}

/* ---- a growable set of 24-bit PSNs (open addressing, key + 1, 0 = empty) ---- */
struct pset {
	uint32_t *slot;
	size_t cap, n;
};

static bool pset_has(const struct pset *s, uint32_t psn)
{
	if (!s->cap)
		return false;
	for (size_t i = (psn * 2654435761u) & (s->cap - 1);; i = (i + 1) & (s->cap - 1)) {
		if (s->slot[i] == 0)
			return false;
		if (s->slot[i] == psn + 1)
			return true;
	}
}

static void pset_add(struct pset *s, uint32_t psn);

static void pset_grow(struct pset *s)
{
	struct pset t = { calloc(s->cap ? s->cap * 2 : 64, sizeof(uint32_t)),
			  s->cap ? s->cap * 2 : 64, 0 };

	if (!t.slot) {
		perror("psnref");
		exit(3);
	}
	for (size_t i = 0; i < s->cap; i++)
		if (s->slot[i])
			pset_add(&t, s->slot[i] - 1);
	free(s->slot);
	*s = t;
}

static void pset_add(struct pset *s, uint32_t psn)
{
	if ((s->n + 1) * 2 > s->cap)
		pset_grow(s);
	for (size_t i = (psn * 2654435761u) & (s->cap - 1);; i = (i + 1) & (s->cap - 1)) {
		if (s->slot[i] == psn + 1)
			return;
		if (s->slot[i] == 0) {
			s->slot[i] = psn + 1;
			s->n++;
			return;
		}
	}
}

/* ---- one PSN sequence (requests or READ responses of a stream) ---- */
struct seq {
	bool started;
	uint32_t expected;   /* PSN after the previous frame (R2) */
	uint32_t newest_end; /* PSN after the newest frame */
	struct pset seen;
	struct pset skipped; /* PSNs some gap jumped over */
	uint64_t dropped;    /* unrecovered PSNs of the sequences before a restart (R8) */
};

struct range {
	uint32_t start, n;
};

struct stream {
	uint8_t version;
	uint8_t src[16], dst[16];
	uint32_t dqpn;
	uint64_t frames, icrc_bad;
	uint64_t gaps, lost, dups, ooo, retx, episodes;
	uint64_t acks, naks, rnr_naks, cnps;
	uint64_t acked_unseen; /* R5a, on the request stream */
	struct seq req, resp;
	bool run;             /* a go-back-N episode is active (R6) ... */
	uint32_t run_end;     /* ... until a request frame reaches this PSN */
	bool nak_pending;     /* a NAK (PSN sequence error) sent on this stream, R4a */
	uint32_t nak_psn;
	struct range *reads;  /* every READ request's PSN range, in order */
	size_t nreads, capreads;
	bool ud_src_set;      /* UD: ud_src is the first DETH source QP (R1) */
	bool no_seq;          /* UD: another source QP seen, no sequence (R1) */
	uint32_t ud_src;
};

static uint64_t unrecovered(const struct seq *q)
{
	uint64_t n = q->dropped;

	for (size_t i = 0; i < q->skipped.cap; i++)
		if (q->skipped.slot[i] && !pset_has(&q->seen, q->skipped.slot[i] - 1))
			n++;
	return n;
}

/* R8: a frame this far from the sequence's newest PSN starts it over */
#define RESTART (1 << 22)

static void seq_restart(struct seq *q)
{
	uint64_t u = unrecovered(q);

	free(q->seen.slot);
	free(q->skipped.slot);
	memset(q, 0, sizeof(*q));
	q->dropped = u;
}

static bool trace;        /* --trace: one line per event on stderr */
static uint64_t frame_no;  /* 1-based, per file */
#define EVENT(s, what) \
	do { if (trace) fprintf(stderr, "%llu %u %s\n", (unsigned long long)frame_no, \
				(s)->dqpn, what); } while (0)

static struct stream *streams;
static size_t nstreams, capstreams;

static struct stream *stream_find(const struct roce_pkt *p)
{
	for (size_t i = 0; i < nstreams; i++) {
		struct stream *s = &streams[i];

		if (s->version == p->version && s->dqpn == p->bth.dqpn &&
		    !memcmp(s->src, p->src, 16) && !memcmp(s->dst, p->dst, 16))
			return s;
	}
	return NULL;
}

static struct stream *stream_get(const struct roce_pkt *p)
{
	struct stream *f = stream_find(p);

	if (f)
		return f;
	if (nstreams == capstreams) {
		capstreams = capstreams ? capstreams * 2 : 16;
		streams = realloc(streams, capstreams * sizeof(*streams));
		if (!streams) {
			perror("psnref");
			exit(3);
		}
	}
	struct stream *s = &streams[nstreams++];

	memset(s, 0, sizeof(*s));
	s->version = p->version;
	memcpy(s->src, p->src, 16);
	memcpy(s->dst, p->dst, 16);
	s->dqpn = p->bth.dqpn;
	return s;
}

static bool in_range(const struct range *r, uint32_t psn)
{
	int32_t d = psn_diff(psn, r->start);

	return d >= 0 && (uint32_t)d < r->n;
}

/* The READ range holding psn among the request streams in the reverse direction
 * (the latest such request wins); *owner gets its stream. */
static const struct range *read_range_of(const struct stream *resp, uint32_t psn,
					 const struct stream **owner)
{
	for (size_t i = 0; i < nstreams; i++) {
		const struct stream *s = &streams[i];

		if (s->version != resp->version || memcmp(s->src, resp->dst, 16) ||
		    memcmp(s->dst, resp->src, 16))
			continue;
		for (size_t k = s->nreads; k-- > 0;)
			if (in_range(&s->reads[k], psn)) {
				*owner = s;
				return &s->reads[k];
			}
	}
	return NULL;
}

/* PSNs in [from, to) that lie in a READ range of a request stream in the
 * reverse direction of resp (counted once each). */
static uint32_t read_psns_between(const struct stream *resp, uint32_t from, uint32_t to,
				  struct pset *mark)
{
	uint32_t n = 0;
	int32_t len = psn_diff(to, from);

	for (int32_t k = 0; k < len; k++) {
		uint32_t q = (from + (uint32_t)k) & PSN_MASK;
		const struct stream *owner;

		if (read_range_of(resp, q, &owner)) {
			n++;
			pset_add(mark, q);
		}
	}
	return n;
}

enum cls { NEW, DUP, OOO };

/* R4 for a frame covering [psn, psn + n) on sequence q: counts it as a
 * duplicate or out-of-order frame and marks its PSNs seen. */
static enum cls classify(struct stream *s, struct seq *q, uint32_t psn, uint32_t n)
{
	enum cls c = NEW;

	if (pset_has(&q->seen, psn)) {
		c = DUP;
		s->dups++;
		EVENT(s, "duplicate");
	} else if (psn_diff(psn, q->newest_end) < 0) {
		c = OOO;
		s->ooo++;
		EVENT(s, "out_of_order");
	}
	for (uint32_t k = 0; k < n; k++)
		pset_add(&q->seen, (psn + k) & PSN_MASK);
	if (psn_diff((psn + n) & PSN_MASK, q->newest_end) > 0)
		q->newest_end = (psn + n) & PSN_MASK;
	return c;
}

static bool reverse(const struct stream *a, const struct stream *b)
{
	return a->version == b->version && !memcmp(a->src, b->dst, 16) &&
	       !memcmp(a->dst, b->src, 16);
}

/* R4a: does a pending NAK of the other side name a PSN of [psn, psn + n)? */
static bool nak_names(const struct stream *s, uint32_t psn, uint32_t n)
{
	for (size_t i = 0; i < nstreams; i++) {
		const struct stream *r = &streams[i];
		struct range rg = { psn, n };

		if (reverse(r, s) && r->nak_pending && in_range(&rg, r->nak_psn))
			return true;
	}
	return false;
}

/* R4a: the other side's pending NAKs naming [psn, psn + n) (all: n == 0) are answered. */
static void nak_answer(const struct stream *s, uint32_t psn, uint32_t n)
{
	for (size_t i = 0; i < nstreams; i++) {
		struct stream *r = &streams[i];
		struct range rg = { psn, n };

		if (reverse(r, s) && r->nak_pending && (!n || in_range(&rg, r->nak_psn)))
			r->nak_pending = false;
	}
}

/* R8 for a request frame at psn (before its READ range is kept) */
static void request_restart(struct stream *s, uint32_t psn)
{
	struct seq *q = &s->req;
	int32_t d = psn_diff(psn, q->newest_end);

	if (q->started && (d >= RESTART || d <= -RESTART)) {
		EVENT(s, "restart");
		seq_restart(q);
		s->run = false;
		s->nreads = 0;
		nak_answer(s, 0, 0);
	}
}

/* R2, R4-R6 for a request frame; reliable: RC, RD, XRC (UC and UD never go back, R1) */
static void acked(const struct stream *resp, uint32_t upto);

/* R5a for a gap: what the responder of the stream in the reverse direction acknowledged
 * already (the PSN after the newest it showed it sent) covers the PSNs just skipped. */
static void gap_acked(const struct stream *s)
{
	for (size_t i = 0; i < nstreams; i++) {
		const struct stream *r = &streams[i];

		if (reverse(r, s) && r->resp.started) {
			acked(r, r->resp.newest_end);
			break;
		}
	}
}

static void request(struct stream *s, uint32_t psn, uint32_t n, bool reliable, bool acks)
{
	struct seq *q = &s->req;
	bool late = false, move = true;

	if (!q->started) {
		q->started = true;
		q->newest_end = psn;
		q->expected = psn;
	}
	if (s->run && psn_diff(psn, s->run_end) >= 0)
		s->run = false; /* R6: the episode is over */
	int32_t d = psn_diff(psn, q->expected);
	bool seen = pset_has(&q->seen, psn);
	bool behind = psn_diff(psn, q->newest_end) < 0;

	if (d > 0) { /* R2 */
		s->gaps++;
		EVENT(s, "psn_gap");
		s->lost += (uint32_t)d;
		for (int32_t k = 0; k < d; k++)
			pset_add(&q->skipped, (q->expected + (uint32_t)k) & PSN_MASK);
		if (acks)
			gap_acked(s);
	} else if (d < 0) {
		if (!reliable) {
			move = false; /* R1: a duplicate or out of order only */
			late = true;
		} else if (seen || !behind || nak_names(s, psn, n)) {
			s->episodes++; /* R6 */
			EVENT(s, "gbn");
			if (!s->run) {
				s->run = true;
				s->run_end = q->newest_end;
			}
			nak_answer(s, 0, 0);
		} else {
			move = false; /* R4b: late, or reordered within the run */
			late = !s->run;
		}
	}
	if (classify(s, q, psn, n) != NEW && !late) {
		s->retx++;
		EVENT(s, "retransmission");
	}
	nak_answer(s, psn, n);
	if (move)
		q->expected = (psn + n) & PSN_MASK;
}

/* R3a: a response sequence's first frame, whose responses start at from, answers the
 * request answered (the request stream in the reverse direction that saw it): the
 * responder answers in PSN order, so the responses of that stream's READs wholly behind
 * from (less than RESTART PSNs) went by before it.  Returns the first such READ's start,
 * or from. */
static uint32_t first_from(const struct stream *resp, uint32_t from, uint32_t answered)
{
	uint32_t best = from;

	for (size_t i = 0; i < nstreams; i++) {
		const struct stream *s = &streams[i];

		if (!reverse(s, resp) || !pset_has(&s->req.seen, answered))
			continue;
		for (size_t k = 0; k < s->nreads; k++) {
			const struct range *r = &s->reads[k];
			int32_t back = psn_diff(from, r->start);

			if (back > 0 && back < RESTART && (uint32_t)back >= r->n &&
			    back > psn_diff(from, best))
				best = r->start;
		}
		break;
	}
	return best;
}

/* R5a: the responder of stream resp received every request PSN before upto (of the
 * request stream in the reverse direction whose newest PSN is closest to upto). */
static void acked(const struct stream *resp, uint32_t upto)
{
	struct stream *best = NULL;
	int32_t bd = RESTART;

	for (size_t i = 0; i < nstreams; i++) {
		struct stream *s = &streams[i];
		int32_t d = psn_diff(upto, s->req.newest_end);

		if (d < 0)
			d = -d;
		if (reverse(s, resp) && s->req.started && d < bd) {
			best = s;
			bd = d;
		}
	}
	if (!best)
		return;
	for (size_t k = 0; k < best->req.skipped.cap; k++) {
		uint32_t x = best->req.skipped.slot[k];

		if (x && !pset_has(&best->req.seen, x - 1) && psn_diff(x - 1, upto) < 0) {
			pset_add(&best->req.seen, x - 1);
			best->acked_unseen++;
			EVENT(best, "acked_unseen");
		}
	}
}

static void response_seq(struct stream *s, uint32_t psn, bool resp, bool nak);

/* R3: a READ response (resp), an ACK or a NAK with PSN psn on stream s; R5a with acks. */
static void response(struct stream *s, uint32_t psn, bool resp, bool nak, bool acks)
{
	response_seq(s, psn, resp, nak);
	if (acks)
		acked(s, nak ? psn : (psn + 1) & PSN_MASK);
}

static void response_seq(struct stream *s, uint32_t psn, bool resp, bool nak)
{
	struct seq *q = &s->resp;
	const struct stream *owner = NULL;

	if (q->started) {
		int32_t d = psn_diff(psn, (q->newest_end - 1) & PSN_MASK);

		if (d >= RESTART || d <= -RESTART) {
			EVENT(s, "restart");
			seq_restart(q); /* R8 */
		}
	}
	const struct range *r = resp ? read_range_of(s, psn, &owner) : NULL;
	uint32_t from = q->started ? q->newest_end : r ? r->start : psn;

	if (!q->started)
		from = first_from(s, from, nak ? (psn - 1) & PSN_MASK : psn);
	uint32_t end = nak ? psn : (psn + 1) & PSN_MASK; /* after the newest shown sent */

	if (psn_diff(psn, from) > 0) {
		uint32_t lost = read_psns_between(s, from, psn, &q->skipped);

		if (lost) {
			s->gaps++;
			EVENT(s, "psn_gap");
			s->lost += lost;
		}
	}
	if (!q->started) {
		q->started = true;
		q->newest_end = resp ? psn : end;
	}
	if (resp) {
		classify(s, q, psn, 1);
		return;
	}
	if (!nak)
		pset_add(&q->seen, psn);
	if (psn_diff(end, q->newest_end) > 0)
		q->newest_end = end;
}

static uint32_t pmtu;

static uint32_t read_npsn(uint32_t dma_len)
{
	if (!pmtu || dma_len == 0)
		return 1;
	return (dma_len + pmtu - 1) / pmtu;
}

/* findings that make the headers untrustworthy (docs/json.md, "Damaged frames") */
#define UNTRUSTED (ROCE_FIND_TRUNCATED | ROCE_FIND_BAD_LENGTH | ROCE_FIND_UNKNOWN_OPCODE | \
		   ROCE_FIND_BAD_TVER | ROCE_FIND_BAD_IP_CSUM | ROCE_FIND_IP_FRAGMENT)

/* docs/json.md "Damaged frames": the receiver drops the frame. */
static bool damaged(const struct roce_pkt *p)
{
	return p->icrc_status == ROCE_ICRC_BAD || (p->findings & UNTRUSTED);
}

static void frame(const struct roce_pkt *p)
{
	struct stream *s;

	if (p->kind != ROCE_KIND_ROCE || p->bth_off == 0 || !p->op)
		return;
	if (damaged(p)) {
		/* counted on its stream if that exists; never opens one */
		s = stream_find(p);
		if (s) {
			s->frames++;
			s->icrc_bad += p->icrc_status == ROCE_ICRC_BAD;
		}
		return;
	}
	s = stream_get(p);
	s->frames++;
	uint32_t f = p->op->flags;

	if (f & ROCE_F_CNP)
		s->cnps++;
	if (p->hdrs & ROCE_H_AETH) {
		switch (roce_aeth_type(p->aeth.syndrome)) {
		case ROCE_AETH_ACK:
			s->acks++;
			break;
		case ROCE_AETH_RNR_NAK:
			s->rnr_naks++;
			s->naks++;
			break;
		case ROCE_AETH_NAK:
			s->naks++;
			if ((p->aeth.syndrome & 0x1f) == ROCE_NAK_PSN_SEQ_ERR) {
				s->nak_pending = true; /* R4a */
				s->nak_psn = p->bth.psn;
			}
			break;
		default:
			break;
		}
	}
	enum roce_transport t = roce_opcode_transport(p->bth.opcode);

	if (t != ROCE_TRANSPORT_RC && t != ROCE_TRANSPORT_UC && t != ROCE_TRANSPORT_RD &&
	    t != ROCE_TRANSPORT_XRC && t != ROCE_TRANSPORT_UD)
		return;
	if (t == ROCE_TRANSPORT_UD && (p->hdrs & ROCE_H_DETH)) {
		if (!s->ud_src_set) {
			s->ud_src_set = true;
			s->ud_src = p->deth.src_qp;
		} else if (p->deth.src_qp != s->ud_src) {
			s->no_seq = true;
		}
	}
	if (s->no_seq)
		return;
	bool acks = t == ROCE_TRANSPORT_RC || t == ROCE_TRANSPORT_XRC;

	if (f & ROCE_F_REQ) {
		uint32_t n = 1;

		request_restart(s, p->bth.psn);
		if (f & ROCE_F_READ) {
			n = read_npsn(p->reth.dma_len);
			if (s->nreads == s->capreads) {
				s->capreads = s->capreads ? s->capreads * 2 : 16;
				s->reads = realloc(s->reads, s->capreads * sizeof(*s->reads));
				if (!s->reads) {
					perror("psnref");
					exit(3);
				}
			}
			s->reads[s->nreads++] = (struct range){ p->bth.psn, n };
		}
		request(s, p->bth.psn, n, t != ROCE_TRANSPORT_UC && t != ROCE_TRANSPORT_UD,
			acks);
	} else if (f & ROCE_F_RESP) {
		response(s, p->bth.psn, true, false, acks);
	} else if (p->hdrs & ROCE_H_AETH) {
		enum roce_aeth_type a = roce_aeth_type(p->aeth.syndrome);

		if (a == ROCE_AETH_ACK || a == ROCE_AETH_NAK || a == ROCE_AETH_RNR_NAK)
			response(s, p->bth.psn, false, a != ROCE_AETH_ACK, acks);
	}
}

typedef void (*frame_fn)(const struct roce_pkt *p);

static int each_frame(int nfiles, char **files, const struct roce_decode_opts *o, frame_fn fn)
{
	for (int i = 0; i < nfiles; i++) {
		char err[ROCE_ERRBUF_SIZE];
		roce_capfile_t *c = roce_cap_open(files[i], err);
		struct roce_cap_record rec;
		int rc;

		if (!c) {
			fprintf(stderr, "psnref: %s\n", err);
			return 2;
		}
		while ((rc = roce_cap_next(c, &rec)) == 1) {
			struct roce_pkt p;

			frame_no = rec.frame_no;
			if (roce_decode(rec.linktype, rec.data, rec.caplen, rec.wirelen, o, &p) ==
			    ROCE_E_LINKTYPE)
				continue;
			fn(&p);
		}
		if (rc < 0)
			fprintf(stderr, "psnref: %s\n", roce_cap_error(c));
		roce_cap_close(c);
	}
	return 0;
}

static void learn_pmtu(const struct roce_pkt *p)
{
	if (p->kind == ROCE_KIND_ROCE && p->bth_off && p->op &&
	    !damaged(p) &&
	    (p->op->flags & (ROCE_F_FIRST | ROCE_F_MIDDLE)) &&
	    !(p->op->flags & ROCE_F_LAST) && p->payload_len > pmtu)
		pmtu = p->payload_len;
}

int main(int argc, char **argv)
{
	struct roce_decode_opts o;
	int first = 1;

	roce_decode_opts_init(&o);
	for (; first < argc && argv[first][0] == '-' && argv[first][1] == '-'; first++) {
		if (!strncmp(argv[first], "--pmtu=", 7))
			pmtu = (uint32_t)strtoul(argv[first] + 7, NULL, 10);
		else if (!strcmp(argv[first], "--trace"))
			trace = true;
		else if (!strcmp(argv[first], "--no-icrc"))
			o.verify_icrc = false;
		else {
			fprintf(stderr, "usage: psnref [--pmtu=BYTES] [--no-icrc] FILE...\n");
			return 2;
		}
	}
	if (first >= argc) {
		fprintf(stderr, "usage: psnref [--pmtu=BYTES] [--no-icrc] FILE...\n");
		return 2;
	}
	if (!pmtu && each_frame(argc - first, argv + first, &o, learn_pmtu))
		return 2;
	if (each_frame(argc - first, argv + first, &o, frame))
		return 2;
	for (size_t i = 0; i < nstreams; i++) {
		const struct stream *s = &streams[i];
		char src[64], dst[64];

		roce_addr_str(s->src, src, sizeof(src));
		roce_addr_str(s->dst, dst, sizeof(dst));
		printf("{\"version\": %u, \"src\": \"%s\", \"dst\": \"%s\", \"dqpn\": %u, "
		       "\"frames\": %llu, \"icrc_bad\": %llu, \"psn_gaps\": %llu, "
		       "\"lost_psns\": %llu, \"duplicates\": %llu, \"out_of_order\": %llu, "
		       "\"unrecovered_psns\": %llu, \"retransmissions\": %llu, "
		       "\"gbn_episodes_total\": %llu, \"acks\": %llu, \"naks\": %llu, "
		       "\"rnr_naks\": %llu, \"cnps\": %llu, \"acked_unseen_psns\": %llu}\n",
		       s->version, src, dst, s->dqpn, (unsigned long long)s->frames,
		       (unsigned long long)s->icrc_bad, (unsigned long long)s->gaps,
		       (unsigned long long)s->lost, (unsigned long long)s->dups,
		       (unsigned long long)s->ooo,
		       (unsigned long long)(unrecovered(&s->req) + unrecovered(&s->resp)),
		       (unsigned long long)s->retx, (unsigned long long)s->episodes,
		       (unsigned long long)s->acks, (unsigned long long)s->naks,
		       (unsigned long long)s->rnr_naks, (unsigned long long)s->cnps,
		       (unsigned long long)s->acked_unseen);
	}
	return 0;
}
