/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * capread_ahead.c - the mapped reader's helper thread working ahead of the
 * reader (roce_cap_set_ahead()): it maps pages ahead and gives them back
 * behind, as the page-only helper (capread_pages.c) does, and walks the packet
 * records ahead of the reader, calling the caller's function on them and
 * leaving one byte per record in a ring.
 *
 * Records are grouped in chunks of AH_CHUNK records, numbered in file order
 * (both threads walk the same records with the same rules, so chunk j is the
 * same records for both).  A chunk belongs to whoever claims it first: claims
 * go in order through one counter (claim, compare-and-swap).  The helper
 * claims the chunk it is at unless the reader has; the reader claims the
 * chunk it enters if the helper has not, and, when it catches up with the
 * helper (its chunk not finished yet), the next AH_RUN chunks after the
 * helper's, so that the two never work on the same records for long.
 * Within a helper chunk the reader takes the byte of every record the helper
 * has published (done, once per chunk) and does the work itself for the
 * others; it never waits.
 *
 * A helper at a chunk the reader claimed, or behind the reader's chunk (it
 * was not scheduled, say), would have to walk the record headers in between
 * to find its next record: one dependent load a record, slower than the
 * verifying it would save (the "skip-walk trap", docs/perf/analyze-threads.md).  In
 * pcap files it leaps instead (ah_leap()): about AH_LEAP_RECS records past
 * the reader it guesses a record start from a chain of plausible headers and
 * walks a new *segment* from there, its records labelled from a chunk number
 * above any the reader can have by then.  Record numbers ("labels") are then
 * the helper's; the reader adopts them only where one of its own records ends
 * exactly where one of the segment's does (ah_sync(), at its chunk entries):
 * from a shared record end both walk the same records, so a wrong guess (a
 * payload holding plausible headers) costs only the helper's work, never a
 * verdict.  The reader takes a chunk's bytes only if the helper walked that
 * chunk (c_tag) in a segment whose labels are the reader's (c_seg: an exact
 * segment, from the file's start or the reader's published position, or the
 * one it synced to) and its first record ends where the reader's does.
 * Where nothing plausible is found the helper goes on from the end of the
 * first record of the reader's current chunk, which the reader publishes
 * with the chunk number (rd_jump), or walks.  (pcapng: no leap, since the
 * interfaces and byte order defined in between would be unknown to the
 * helper; it walks.)
 *
 * The helper stays at most AH_NCHUNK - 1 chunks and AH_DIST bytes (two probe
 * windows while the probe runs) ahead of
 * the reader (the reader publishes where it is once per chunk), and sleeps
 * when it gets there; the reader wakes it once it is halfway back.  Cross-core
 * traffic per chunk: the verdict line(s), the claim/done line, the reader's
 * position line.
 *
 * Records shorter than the caller's min_caplen are walked but not given to
 * the caller's function (byte 0): the reader does them itself.  Whether the
 * helper's bytes pay at all depends on the machine, its load and the file,
 * so the reader measures it (the probe, capread_probe.c): after AH_PROBE_WARM
 * bytes it times up to AH_PROBE_PAIRS pairs of windows of AH_PROBE_BYTES, one
 * taking the helper's bytes, one with the helper paused (mode AH_PAUSE: page
 * work only, the reader claims every chunk), each from half a window after
 * its switch (the reader's also past what the paused helper read), and
 * keeps the helper if it was faster in most pairs and per
 * byte over all its windows: the helper walks on (pcap: it leaps ahead of
 * the reader); else it stops walking for good (AH_QUIT)
 * and the file goes on as with no helper.  The probe ends as soon as the
 * outcome is sure (3 of 5 pairs won or lost).
 *
 * The helper stops walking (for good; the reader then does every record
 * itself) at anything it does not expect: a record the reader would reject
 * (or take only with an error), a pcapng block length that is not a multiple of 4, more
 * than AH_MAX_IFACES interfaces, a page that vanished (SIGBUS on the helper:
 * capguard.c records the page, and the reader behaves as if it had faulted
 * there itself), or pages the reader already gave back (pcap: if still so
 * after it leapt or jumped ahead once, ah_thread()).  As a check that
 * both walk the same records, the helper also leaves the end offset of each
 * chunk's first record; the reader compares it with its own and stops taking
 * bytes from the helper on a mismatch.
 */
#define _GNU_SOURCE
#include "capread_ahead_int.h"
#include "capread_src.h"
#include "capguard.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <stdio.h>
#include <sched.h>
#include <stdalign.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* ---- the helper's walk ------------------------------------------------------ */

/*
 * The next pcap record at h_pos into rec: 1, or 0 where the helper stops
 * (end of file, or anything the reader would warn about or reject).
 */
static struct pcap_rec_hdr ah_rec_hdr(const struct ah_file *f, const uint8_t *p)
{
	struct pcap_rec_hdr h = { ld32(p, f->be), ld32(p + 4, f->be), ld32(p + 8, f->be),
				  ld32(p + 12, f->be) };

	if (f->lens_swap && (f->lens_swap == 2 || h.caplen > h.wirelen)) {   /* as pcap_rec_hdr() */
		uint32_t t = h.caplen;

		h.caplen = h.wirelen;
		h.wirelen = t;
	}
	return h;
}

/*
 * The pcap record at pos of f, if the walk can take it: rec's data, lengths and link type
 * set (wirelen as capr_check_lengths() makes it), *sec its seconds; the offset after it, or
 * 0 where the walk stops (no whole header, all zero, caplen above the largest record or
 * past the file).  ah_pcap_next() and ah_pcap_own() walk with it.
 */
static inline uint64_t ah_pcap_rec(const struct ah_file *f, uint64_t pos,
				   struct roce_cap_record *rec, uint32_t *sec)
{
	const uint8_t *p = f->map + pos;
	struct pcap_rec_hdr h;

	if (pos + f->hl > f->len)
		return 0;
	h = ah_rec_hdr(f, p);
	if (!(h.sec | h.sub | h.caplen | h.wirelen) || h.caplen > ROCE_CAP_MAX_RECORD ||
	    pos + f->hl + h.caplen > f->len)
		return 0;
	rec->data = p + f->hl;
	rec->caplen = h.caplen;
	rec->wirelen = h.caplen > h.wirelen ? h.caplen : h.wirelen;
	rec->linktype = f->linktype;
	*sec = h.sec;
	return pos + f->hl + h.caplen;
}

static int ah_pcap_next(struct cap_ahead *a, struct roce_cap_record *rec)
{
	uint64_t next = ah_pcap_rec(&a->f, a->h_pos, rec, &a->h_sec);

	if (!next)
		return 0;
	rec->ifindex = 0;
	rec->section = 0;
	rec->flags = 0;
	rec->ts_ns = 0;
	a->h_pos = next;
	return 1;
}

/*
 * A chunk of its own in a pcap file (chunk h, n records from its first): what
 * ah_pcap_next() and the loop in ah_thread() do for each record, with the walk's
 * position, index and the file's fields in locals.  Through the caller's
 * function, which may write any memory as far as the compiler knows, the loop
 * reloaded and stored them at every record (about a third of the helper's
 * instructions a record besides the CRC, docs/perf/analyze-threads.md).  The records
 * walked: n, or fewer where the walk stops (as ah_pcap_next()'s 0).
 */
static unsigned ah_pcap_own(struct cap_ahead *a, uint64_t h, unsigned n)
{
	const struct ah_file f = a->f;
	uint64_t pos = a->h_pos, idx = a->h_idx;
	uint32_t sec = a->h_sec;
	struct roce_cap_record rec = { 0 };
	unsigned i;

	for (i = 0; i < n; i++) {
		uint64_t next = ah_pcap_rec(&f, pos, &rec, &sec);
		uint8_t b = 0;

		if (!next)
			break;
		pos = next;
		if (rec.caplen >= f.min)
			b = f.fn(f.user, &rec);
		else
			a->st_short++;
		a->v[idx & (AH_RING - 1)] = b;
		a->end[idx & (AH_RING - 1)] = pos;
		idx++;
	}
	if (i > 0) {
		a->first_end[h & (AH_NCHUNK - 1)] = a->end[a->h_idx & (AH_RING - 1)];
		a->c_tag[h & (AH_NCHUNK - 1)] = h;
		a->c_seg[h & (AH_NCHUNK - 1)] = a->h_seg;
	}
	a->h_pos = pos;
	a->h_idx = idx;
	a->h_sec = sec;
	return i;
}

/*
 * Could a pcap record start at offset p?  A chain of AH_LEAP_CHAIN plausible
 * record headers from p (not all zero, caplen at most the snapshot length and
 * the original length, sub-second ticks below a second, seconds within a day
 * of the last record the helper walked), each landing exactly on the next
 * (or the chain ends exactly at the end of the file).  Only a guess: the
 * reader checks it (ah_sync()).
 */
static bool ah_pcap_plausible(struct cap_ahead *a, uint64_t p)
{
	const struct ah_file *f = &a->f;
	size_t hl = f->hl;
	uint32_t lim = f->lim, tick = f->tick;
	unsigned i;

	for (i = 0; i < AH_LEAP_CHAIN; i++) {
		struct pcap_rec_hdr h;

		if (p == f->len && i >= 2)
			return true;
		if (p + hl > f->len)
			return false;
		h = ah_rec_hdr(f, f->map + p);
		if (!h.caplen || h.caplen > lim || h.caplen > h.wirelen || h.sub >= tick ||
		    h.sec + 86400u < a->h_sec || h.sec > a->h_sec + 86400u)
			return false;
		p += hl + h.caplen;
	}
	return p <= f->len;
}

/* A new segment from offset pos, its first record labelled idx: published with the next done. */
static void ah_new_seg(struct cap_ahead *a, uint64_t pos, uint64_t idx, bool exact)
{
	a->h_seg = (a->h_seg | 1) + 1 + exact;  /* even: speculative, odd: exact */
	a->h_seg_s = pos;
	a->h_pos = pos;
	a->h_idx = idx;
	atomic_store_explicit(&a->seg_s, pos, memory_order_relaxed);
	atomic_store_explicit(&a->seg_l, idx, memory_order_relaxed);
	atomic_store_explicit(&a->seg_id, a->h_seg, memory_order_release);
}

/*
 * pcap: instead of walking the record headers up to a chunk far enough ahead
 * of the reader (one dependent load a record, slower than verifying), leap:
 * about AH_LEAP_RECS mean records past the reader (or the helper, if
 * further), find a record start there by ah_pcap_plausible(), and label its
 * record with a chunk's first index above any the reader can have by then
 * (its published index plus the records it can read up to there, with a
 * margin that grows while the reader does not sync).  The reader uses the
 * segment only once one of its records ends where one of the segment's does
 * (ah_sync()): from there the two walk the same records by construction,
 * whatever the file holds.  false: nothing plausible found (walk instead).
 */
static bool ah_leap(struct cap_ahead *a, uint64_t rk, uint64_t rpos)
{
	uint64_t avg = a->w_recs ? a->w_bytes / a->w_recs : 0;
	uint64_t dist = atomic_load_explicit(&a->dist, memory_order_relaxed);
	uint64_t from = a->h_pos > rpos ? a->h_pos : rpos, x, p, lim, est, l, cl, t0;

	/*
	 * Not before a chunk of its own has given the mean record size: with a
	 * guess (1 KiB), small records made the segment's labels far lower than
	 * the reader's index where it lands, and the reader never synced to it
	 * nor to the segments after it (0 verdicts taken in some runs).
	 */
	if (!avg)
		return false;
	t0 = ah_clock();

	if (avg < 16)
		avg = 16;
	x = AH_LEAP_RECS * avg;
	if (x > dist / 2)
		x = dist / 2;
	x += from;
	lim = x + AH_LEAP_SCAN;
	if (lim > a->f.len)
		lim = a->f.len;
	for (p = x; p < lim; p++)
		if (ah_pcap_plausible(a, p))
			break;
	a->st_leap_ns += ah_clock() - t0;
	a->st_leap_bytes += p - x;
	if (p >= lim || p <= a->h_pos) {
		a->st_leap_fail++;
		return false;
	}
	est = (p > rpos ? p - rpos : 0) / avg;
	est += est / 4 * (1 + a->h_unsynced) + 2 * AH_CHUNK;
	if (est > AH_RING / 2)
		est = AH_RING / 2;
	l = (rk + est + AH_CHUNK - 1) & ~(uint64_t)(AH_CHUNK - 1);
	if (l < a->h_idx)
		l = (a->h_idx + AH_CHUNK - 1) & ~(uint64_t)(AH_CHUNK - 1);
	/* the chunks in between are nobody's: the reader finds them not walked */
	cl = atomic_load(&a->claim);
	while (cl < l / AH_CHUNK && !atomic_compare_exchange_weak(&a->claim, &cl, l / AH_CHUNK))
		;
	if (cl > l / AH_CHUNK)
		l = cl * AH_CHUNK;
	if (!(a->h_seg & 1) && atomic_load_explicit(&a->rd_seg, memory_order_relaxed) != a->h_seg)
		a->h_unsynced++;
	else
		a->h_unsynced = 0;
	ah_new_seg(a, p, l, false);
	a->st_leap++;
	return true;
}

/* The next pcapng packet block (EPB, SPB, OPB) as the reader reads it: 1, or 0. */
static int ah_ng_next(struct cap_ahead *a, struct roce_cap_record *rec)
{
	for (;;) {
		const uint8_t *p = a->f.map + a->h_pos;
		uint32_t type, blen, caplen, wirelen, ifid;

		if (a->h_pos + 12 > a->f.len)
			return 0;
		type = ld32(p, a->h_be);
		if (type == NG_SHB) {
			uint32_t bom = ld32(p + 8, false);

			if (bom == NG_BOM)
				a->h_be = false;
			else if (bom == __builtin_bswap32(NG_BOM))
				a->h_be = true;
			else
				return 0;
		}
		blen = ld32(p + 4, a->h_be);
		if (blen < 12 || (blen & 3) || blen > ROCE_CAP_MAX_RECORD ||
		    a->h_pos + blen > a->f.len || ld32(p + blen - 4, a->h_be) != blen)
			return 0;
		switch (type) {
		case NG_SHB:
			if (blen < 28 || ld16(p + 12, a->h_be) != 1)
				return 0;
			a->h_nifs = 0;
			break;
		case NG_IDB:
			if (blen < 20 || a->h_nifs >= AH_MAX_IFACES)
				return 0;
			a->h_ifs[a->h_nifs].linktype = ld16(p + 8, a->h_be);
			a->h_ifs[a->h_nifs].snaplen = ld32(p + 12, a->h_be);
			a->h_nifs++;
			break;
		case NG_EPB:
		case NG_OPB:
			if (blen < 32)
				return 0;
			ifid = type == NG_EPB ? ld32(p + 8, a->h_be) : ld16(p + 8, a->h_be);
			caplen = ld32(p + 20, a->h_be);
			wirelen = ld32(p + 24, a->h_be);
			if (ifid >= a->h_nifs || caplen > blen - 32)
				return 0;
			rec->data = p + 28;
			rec->caplen = caplen;
			rec->wirelen = caplen > wirelen ? caplen : wirelen;
			rec->linktype = a->h_ifs[ifid].linktype;
			rec->ifindex = ifid;
			rec->section = 0;
			rec->flags = 0;
			rec->ts_ns = 0;
			a->h_pos += blen;
			return 1;
		case NG_SPB:
			if (blen < 16 || a->h_nifs == 0)
				return 0;
			wirelen = ld32(p + 8, a->h_be);
			caplen = wirelen;
			if (a->h_ifs[0].snaplen && caplen > a->h_ifs[0].snaplen)
				caplen = a->h_ifs[0].snaplen;
			if (caplen > blen - 16)
				return 0;
			rec->data = p + 12;
			rec->caplen = caplen;
			rec->wirelen = wirelen;
			rec->linktype = a->h_ifs[0].linktype;
			rec->ifindex = 0;
			rec->section = 0;
			rec->flags = ROCE_CAP_REC_NO_TS;
			rec->ts_ns = 0;
			a->h_pos += blen;
			return 1;
		default:
			break;  /* not a packet: skipped, as by the reader */
		}
		a->h_pos += blen;
	}
}

/* ---- the helper thread ------------------------------------------------------- */

static void ah_page_work(struct roce_capfile *c, struct cap_ahead *a, uint64_t rpos)
{
	size_t front = (size_t)(a->h_pos > rpos ? a->h_pos : rpos);
	size_t want = front + CAP_HELPER_AHEAD * CAP_RELEASE_STEP;

	if (want > a->f.len)
		want = a->f.len;
	/* one window per call: the walk goes on in between */
	if (a->populated < want) {
		uint64_t t0 = ah_clock();

		a->st_pop++;
		capr_map_prefetch(c, a->populated);
		a->populated += CAP_RELEASE_STEP;
		a->st_page_ns += ah_clock() - t0;
	}
	{
		size_t upto = capr_release_to(c, (size_t)rpos);

		if (upto > atomic_load_explicit(&c->map_released_a, memory_order_relaxed)) {
			uint64_t t0 = ah_clock();

			a->st_rel++;
			capr_map_release_upto(c, upto);
			a->st_page_ns += ah_clock() - t0;
		}
	}
}

/*
 * Sleep until the reader reaches wake_idx / wake_pos, or the position where
 * pages can be given back (the file's tail: every CAP_RELEASE_FINE bytes), or
 * a 16 MiB step, or stop.  The reader publishes rd_idx before it looks at
 * sleeping, the helper sets sleeping before it looks at rd_idx (both
 * sequentially consistent): one of them sees the other, and the signal is
 * sent under the mutex.
 */
static void ah_sleep(struct roce_capfile *c, struct cap_ahead *a, uint64_t wake_idx,
		     uint64_t wake_pos, bool paused)
{
	struct timespec ts;
	uint64_t t0 = ah_clock();
	uint64_t wake_rel = capr_release_next(c, atomic_load_explicit(&c->map_released_a,
								       memory_order_relaxed));

	pthread_mutex_lock(&c->helper_mu);
	atomic_store(&a->wake_idx, wake_idx);
	atomic_store(&a->wake_pos, wake_pos);
	atomic_store(&a->wake_rel, wake_rel);
	atomic_store(&a->sleeping, 1);
	a->st_sleep++;
	if (!atomic_load(&a->stop) && atomic_load(&a->rd_idx) < wake_idx &&
	    atomic_load(&a->rd_pos) < wake_pos && atomic_load(&a->rd_pos) < wake_rel &&
	    (!paused || atomic_load(&a->mode) == AH_PAUSE)) {
		/* the timeout is a safety net only */
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 20000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&c->helper_cv, &c->helper_mu, &ts);
	}
	atomic_store(&a->sleeping, 0);
	pthread_mutex_unlock(&c->helper_mu);
	a->st_sleep_ns += ah_clock() - t0;
}

static void *ah_thread(void *arg)
{
	struct roce_capfile *c = arg;
	struct cap_ahead *a = c->ah;
	bool walking = true, behind = false, drain;

	roce_capguard_thread(&a->fault);
	while (!atomic_load_explicit(&a->stop, memory_order_relaxed)) {
		uint64_t rk = atomic_load_explicit(&a->rd_idx, memory_order_acquire);
		uint64_t rpos = atomic_load_explicit(&a->rd_pos, memory_order_relaxed);
		uint64_t h = a->h_idx / AH_CHUNK, cl, n, dist, t0, p0;
		int mode = atomic_load_explicit(&a->mode, memory_order_relaxed);
		struct roce_cap_record rec;
		bool own = false;
		unsigned i;

		if (mode == AH_QUIT)
			walking = false;        /* the reader found itself faster alone */

		if (a->f.fmt == FMT_PCAP && walking && mode == AH_WALK &&
		    (h < rk / AH_CHUNK || (!(a->h_seg & 1) && rpos > a->h_seg_s + 2 * AH_CHUNK *
					   (a->w_recs ? a->w_bytes / a->w_recs : 1024) &&
					   atomic_load_explicit(&a->rd_seg, memory_order_relaxed) !=
					   a->h_seg))) {
			/* behind the reader's chunk, or the reader went past the start
			 * of this speculative segment without syncing to it: leap
			 * ahead of the reader, or go on from where it is */
			uint64_t jw = atomic_load_explicit(&a->rd_jump, memory_order_relaxed);

			if (h < rk / AH_CHUNK)
				a->st_lbehind++;
			else
				a->st_lunsync++;

			if (ah_leap(a, rk, rpos)) {
				h = a->h_idx / AH_CHUNK;
			} else if ((jw & 0xffff) == ((rk / AH_CHUNK) & 0xffff) &&
				   (jw >> 16) > a->h_pos) {
				ah_new_seg(a, jw >> 16, rk + 1, true);
				h = a->h_idx / AH_CHUNK;
				a->st_jump++;
			}
		}
		ah_page_work(c, a, rpos);
		if (walking && atomic_load_explicit(&a->fault, memory_order_relaxed)) {
			walking = false;        /* pages gone */
		} else if (walking && a->h_pos < atomic_load_explicit(&c->map_released_a,
								       memory_order_relaxed)) {
			/*
			 * Pages given back behind the reader.  In a pcap file only behind:
			 * paused by the probe while the reader read on past a 16 MiB step
			 * (or not scheduled), it leaps or jumps ahead at the top, once
			 * walking again, and stops for good only if it is still behind
			 * after that.  Stopping at once left the reader alone for the rest
			 * of the file in about half the runs (docs/perf/analyze-threads.md).
			 */
			if (a->f.fmt != FMT_PCAP || behind) {
				walking = false;
			} else if (mode == AH_WALK) {
				behind = true;
				continue;
			}
		} else {
			behind = false;
		}
		if (!walking || mode == AH_PAUSE) {
			/* page work only: woken by the reader at each window (capr_map_moved)
			 * and where pages can be given back (wake_rel) */
			ah_sleep(c, a, UINT64_MAX, UINT64_MAX, walking);
			continue;
		}
		dist = atomic_load_explicit(&a->dist, memory_order_relaxed);
		if (h >= rk / AH_CHUNK + AH_NCHUNK - 1 || a->h_pos > rpos + dist) {
			/* wake when the reader is halfway back on what blocks */
			uint64_t wi = UINT64_MAX, wp = UINT64_MAX;

			if (h >= rk / AH_CHUNK + AH_NCHUNK - 1)
				wi = (h - AH_NCHUNK / 2) * AH_CHUNK;
			if (a->h_pos > rpos + dist)
				wp = a->h_pos - dist / 2;
			ah_sleep(c, a, wi, wp, false);
			continue;
		}
		/* a chunk's records, or up to the next chunk after a jump */
		n = AH_CHUNK - a->h_idx % AH_CHUNK;
		cl = atomic_load(&a->claim);
		if (n == AH_CHUNK && cl == h)
			own = atomic_compare_exchange_strong(&a->claim, &cl, h + 1);
		/* never walk the reader's chunks when it can leap them */
		if (!own && a->f.fmt == FMT_PCAP && walking && ah_leap(a, rk, rpos)) {
			a->st_lclaimed++;
			continue;
		}
		t0 = 0;
		if (own) {
			a->st_own++;
		} else {
			a->st_skip++;
			t0 = ah_clock();
		}
		p0 = a->h_pos;
		i = 0;
		if (own && a->f.fmt == FMT_PCAP) {
			i = ah_pcap_own(a, h, (unsigned)n);
			if (i < n)
				walking = false;
			n = 0;  /* done: the loop below is for pcapng and others' chunks */
		}
		for (; i < n; i++) {
			int r = a->f.fmt == FMT_PCAP ? ah_pcap_next(a, &rec) : ah_ng_next(a, &rec);

			if (r <= 0) {
				walking = false;
				break;
			}
			if (own) {
				uint8_t b = 0;

				if (rec.caplen >= a->f.min)
					b = a->f.fn(a->f.user, &rec);
				else
					a->st_short++;

				a->v[a->h_idx & (AH_RING - 1)] = b;
				if (i == 0) {
					a->first_end[h & (AH_NCHUNK - 1)] = a->h_pos;
					a->c_tag[h & (AH_NCHUNK - 1)] = h;
					a->c_seg[h & (AH_NCHUNK - 1)] = a->h_seg;
				}
			}
			a->end[a->h_idx & (AH_RING - 1)] = a->h_pos;
			a->h_idx++;
		}
		if (own) {
			a->w_bytes += a->h_pos - p0;
			a->w_recs += i;
		} else {
			a->st_skip_ns += ah_clock() - t0;
			a->st_skip_recs += i;
		}
		atomic_store_explicit(&a->done, a->h_idx, memory_order_release);
	}
	pthread_mutex_lock(&c->helper_mu);
	drain = c->helper_drain;
	pthread_mutex_unlock(&c->helper_mu);
	if (drain) {
		/* roce_cap_done(): the reader is done with the file */
		a->st_left = c->map_len - atomic_load_explicit(&c->map_released_a,
							      memory_order_relaxed);
		capr_map_release_upto(c, c->map_len);
	}
	{
		struct timespec ts;

		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
		a->st_cpu_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	}
	roce_capguard_thread(NULL);
	return NULL;
}

/*
 * The helper's state (152 KiB, mostly the ring) straight from mmap(): its
 * pages come zeroed and are faulted in as they are first used, by the helper
 * mostly, instead of all 38 by a memset() on the reader before its first
 * record (a page fault costs 10-16 us on the VM of docs/perf/analyze.md).
 */
static struct cap_ahead *ah_alloc(void)
{
	void *m = mmap(NULL, sizeof(struct cap_ahead), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return m == MAP_FAILED ? NULL : m;      /* (page-aligned: alignas(64) holds) */
}

static void ah_free(struct cap_ahead *a)
{
	munmap(a, sizeof(*a));
}

bool capr_ahead_start(struct roce_capfile *c)
{
	struct cap_ahead *a = ah_alloc();

	if (!a)
		return false;
	atomic_init(&a->claim, 0);
	atomic_init(&a->done, 0);
	atomic_init(&a->rd_idx, 0);
	atomic_init(&a->rd_pos, c->pos);
	atomic_init(&a->sleeping, 0);
	atomic_init(&a->wake_idx, 0);
	atomic_init(&a->wake_pos, 0);
	atomic_init(&a->wake_rel, 0);
	atomic_init(&a->stop, false);
	atomic_init(&a->fault, 0);
	atomic_init(&a->mode, AH_WALK);
	a->h_seg = 1;                           /* from the file's start: exact */
	atomic_init(&a->seg_id, 1);
	atomic_init(&a->seg_s, 0);
	atomic_init(&a->seg_l, 0);
	atomic_init(&a->rd_seg, 0);
	capr_probe_config(c, a);
	a->f.map = (const uint8_t *)c->map;
	a->f.len = c->map_len;
	a->f.fn = c->ahead_fn;
	a->f.user = c->ahead_user;
	a->f.min = c->ahead_min;
	a->f.lim = c->snaplen && c->snaplen < ROCE_CAP_MAX_RECORD ? c->snaplen :
		   ROCE_CAP_MAX_RECORD;
	a->f.tick = c->nsec ? 1000000000u : 1000000u;
	a->f.linktype = c->linktype;
	a->f.fmt = c->fmt;
	a->f.hl = c->modified ? 24 : 16;
	a->f.be = c->be;
	a->f.lens_swap = c->lens_swap;
	a->h_pos = c->fmt == FMT_PCAP ? PCAP_HDR_LEN : 0;
	a->populated = CAP_RELEASE_STEP;        /* the first window: done at open */
	if (pthread_mutex_init(&c->helper_mu, NULL) != 0)
		goto fail;
	if (pthread_mutex_init(&c->release_mu, NULL) != 0)
		goto fail_mu;
	if (pthread_cond_init(&c->helper_cv, NULL) != 0)
		goto fail_rel;
	atomic_init(&c->map_released_a, c->map_released);
	c->ah = a;
	c->ah_fault = &a->fault;
	c->ah_k = 0;
	c->ah_fast = 0;         /* the first record enters chunk 0 */
	c->ah_v = NULL;
	c->ah_end = a->end;
	c->helper_stop = false;
	c->helper_on = true;    /* before the thread: map_release_upto locks from now on */
	if (pthread_create(&c->helper, NULL, ah_thread, c) != 0) {
		c->helper_on = false;
		c->ah = NULL;
		c->ah_fault = NULL;
		c->ah_end = NULL;
		pthread_cond_destroy(&c->helper_cv);
		goto fail_rel;
	}
	return true;
fail_rel:
	pthread_mutex_destroy(&c->release_mu);
fail_mu:
	pthread_mutex_destroy(&c->helper_mu);
fail:
	ah_free(a);
	return false;
}

void capr_ahead_done(struct roce_capfile *c)
{
	pthread_mutex_lock(&c->helper_mu);
	c->helper_drain = true;
	atomic_store(&c->ah->stop, true);
	c->helper_stop = true;
	pthread_cond_signal(&c->helper_cv);
	pthread_mutex_unlock(&c->helper_mu);
}

void capr_ahead_stop(struct roce_capfile *c)
{
	struct cap_ahead *a = c->ah;

	pthread_mutex_lock(&c->helper_mu);
	atomic_store(&a->stop, true);
	c->helper_stop = true;
	pthread_cond_signal(&c->helper_cv);
	pthread_mutex_unlock(&c->helper_mu);
	pthread_join(c->helper, NULL);
	if (getenv("ROCE_CAP_AHEAD_STATS"))
		fprintf(stderr, "ahead: helper chunks %llu own %llu skipped, %llu jumps, %llu sleeps, "
			"%llu windows populated, %llu releases (%zu KiB mapped at the end), "
			"%llu records under %u bytes; reader took %llu "
			"records; probe: %s (%u probes, the last: helper faster in %u of %u pairs; "
			"%llu ns for %llu bytes with the helper, %llu ns for %llu bytes without)\n",
			(unsigned long long)a->st_own, (unsigned long long)a->st_skip,
			(unsigned long long)a->st_jump, (unsigned long long)a->st_sleep,
			(unsigned long long)a->st_pop, (unsigned long long)a->st_rel,
			(c->helper_drain ? a->st_left :
			 c->map_len - atomic_load(&c->map_released_a)) >> 10,
			(unsigned long long)a->st_short,
			c->ahead_min, (unsigned long long)c->ahead_taken,
			a->probe == AH_P_ALONE || (a->probe == AH_P_DONE &&
						   atomic_load(&a->mode) == AH_QUIT) ? "reader alone" :
			a->probe != AH_P_DONE && !a->probes ? "not finished" :
			a->probe != AH_P_DONE ? "measuring again" :
			a->b_reader ? "helper kept" : "off", a->probes, a->helper_wins, a->pairs,
			(unsigned long long)a->t_helper, (unsigned long long)a->b_helper,
			(unsigned long long)a->t_reader, (unsigned long long)a->b_reader);
	if (getenv("ROCE_CAP_AHEAD_STATS"))
		fprintf(stderr, "ahead: helper walked %llu records of chunks not its own in "
			"%llu us, leapt %llu times (%llu found no record start, %llu us "
			"searching); reader synced %llu times\n",
			(unsigned long long)a->st_skip_recs,
			(unsigned long long)a->st_skip_ns / 1000,
			(unsigned long long)a->st_leap, (unsigned long long)a->st_leap_fail,
			(unsigned long long)a->st_leap_ns / 1000, (unsigned long long)a->st_sync);
	if (getenv("ROCE_CAP_AHEAD_STATS")) {
		struct timespec ts;

		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
		fprintf(stderr, "ahead-x: helper cpu %llu us, page work %llu us, asleep %llu us, "
			"leap scanned %llu bytes; reader cpu %llu us, chunks claimed on entry "
			"%llu, run-claimed %llu, helper's not walked/not its labels %llu, "
			"records not yet published %llu; leap tries: behind %llu unsynced %llu "
			"claimed %llu\n",
			(unsigned long long)a->st_cpu_ns / 1000,
			(unsigned long long)a->st_page_ns / 1000,
			(unsigned long long)a->st_sleep_ns / 1000,
			(unsigned long long)a->st_leap_bytes,
			(unsigned long long)((uint64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000),
			(unsigned long long)a->st_r_claim, (unsigned long long)a->st_r_run,
			(unsigned long long)a->st_r_notwalked, (unsigned long long)a->st_r_unpub,
			(unsigned long long)a->st_lbehind, (unsigned long long)a->st_lunsync,
			(unsigned long long)a->st_lclaimed);
	}
	pthread_cond_destroy(&c->helper_cv);
	pthread_mutex_destroy(&c->release_mu);
	pthread_mutex_destroy(&c->helper_mu);
	c->helper_on = false;
	c->ah = NULL;
	c->ah_fault = NULL;
	c->ah_fast = 0;
	c->ah_v = NULL;
	c->ah_end = NULL;
	ah_free(a);
}

/* ---- the reader's side ---------------------------------------------------------- */

/*
 * The reader's record k (a chunk's first by its labels) ends at c->pos: is
 * that the end of a record of the helper's speculative segment (ah_leap())?
 * Then the records after it are the same for both, whatever the file holds,
 * and the reader takes the segment's labels from there on (they only grow).
 * The match is looked for among the published records the helper cannot have
 * overwritten, and kept only if the helper walked that record's chunk in
 * this segment.  true: synced, c->ah_k relabelled (the current record is the
 * reader's own).
 */
static bool ah_sync(struct roce_capfile *c, struct cap_ahead *a, uint64_t k)
{
	uint64_t s = atomic_load_explicit(&a->seg_id, memory_order_acquire), lo, hi, d, m, j;

	if ((s & 1) || s == a->r_seg || c->pos <= atomic_load_explicit(&a->seg_s,
								      memory_order_relaxed))
		return false;
	d = atomic_load_explicit(&a->done, memory_order_acquire);
	lo = atomic_load_explicit(&a->seg_l, memory_order_relaxed);
	if (lo < k)
		lo = k;
	if (d > AH_RING - 2 * AH_CHUNK && lo < d - (AH_RING - 2 * AH_CHUNK))
		lo = d - (AH_RING - 2 * AH_CHUNK);
	/* the first record of [lo, d) ending at or after the reader's */
	hi = d;
	while (lo < hi) {
		m = lo + (hi - lo) / 2;
		if (a->end[m & (AH_RING - 1)] < c->pos)
			lo = m + 1;
		else
			hi = m;
	}
	m = lo;
	j = m / AH_CHUNK;
	if (m >= d || a->end[m & (AH_RING - 1)] != c->pos ||
	    a->c_tag[j & (AH_NCHUNK - 1)] != j || a->c_seg[j & (AH_NCHUNK - 1)] != s)
		return false;
	a->r_seg = s;
	atomic_store_explicit(&a->rd_seg, s, memory_order_relaxed);
	a->st_sync++;
	c->ah_k = m + 1;
	a->r_done = d;
	/* within the matched chunk, or at the next one's first record */
	a->r_mine = false;
	a->r_ok = (m + 1) % AH_CHUNK != 0;
	c->pf_ahead = true;
	return true;
}

/*
 * ROCE_CAP_AHEAD_RUNS (tests only): the reader, about to claim chunk j of a
 * forced run's entry (k its first record) itself, first gives the helper time
 * to publish past it (done at k + AH_CHUNK), so that chunk j is the helper's
 * and the run the reader then claims lies ahead of the helper, which leaps at
 * it; else whether the helper ever gets ahead (and leaps) is up to the
 * scheduler (a loaded machine, both threads on one CPU: "leapt 0 times" in
 * analyze_threads.sh).  Bounded: it stops waiting when the helper does page
 * work only (stopped walking, or paused) and after AH_FORCE_WAIT_NS in all
 * for the file.  The claim counter as it is then.
 */
#define AH_FORCE_WAIT_NS 1000000000u
static __attribute__((noinline, cold)) uint64_t ah_force_wait(struct cap_ahead *a, uint64_t k)
{
	uint64_t t0 = ah_clock(), t;
	unsigned i;

	for (i = 0; a->force_wait_ns < AH_FORCE_WAIT_NS; i++) {
		if (atomic_load_explicit(&a->done, memory_order_acquire) >= k + AH_CHUNK ||
		    atomic_load(&a->mode) != AH_WALK ||
		    (atomic_load(&a->sleeping) && atomic_load(&a->wake_idx) == UINT64_MAX &&
		     atomic_load(&a->wake_pos) == UINT64_MAX))
			break;
		if (i < 64) {
			sched_yield();
		} else {
			struct timespec ts = { 0, 50000 };

			nanosleep(&ts, NULL);
		}
		t = ah_clock();
		a->force_wait_ns += t - t0;
		t0 = t;
	}
	return atomic_load(&a->claim);
}

/* The reader enters chunk j (its record k is the chunk's first). */
static void ah_enter_chunk(struct roce_capfile *c, struct cap_ahead *a, uint64_t k)
{
	uint64_t j = k / AH_CHUNK, cl, d;

	atomic_store_explicit(&a->rd_pos, c->pos, memory_order_relaxed);
	if (c->pos < (1ull << 48))
		atomic_store_explicit(&a->rd_jump, c->pos << 16 | (j & 0xffff), memory_order_relaxed);
	atomic_store(&a->rd_idx, k);    /* sequentially consistent: see ah_sleep() */
	if (atomic_load(&a->sleeping) &&
	    (k >= atomic_load(&a->wake_idx) || c->pos >= atomic_load(&a->wake_pos) ||
	     c->pos >= atomic_load(&a->wake_rel))) {
		pthread_mutex_lock(&c->helper_mu);
		pthread_cond_signal(&c->helper_cv);
		pthread_mutex_unlock(&c->helper_mu);
	}
	if (unlikely(a->probe != AH_P_DONE) && !a->r_off)
		capr_probe(c, a, k);
	c->pf_ahead = false;
	if (a->r_off || (j >= a->mine_from && j < a->mine_until)) {
		a->r_mine = true;
		return;
	}
	cl = atomic_load(&a->claim);
	if (unlikely(a->probe == AH_P_READER || a->probe == AH_P_ALONE ||
		     (a->probe == AH_P_DRAIN && cl <= j))) {
		/* timing the reader alone: its chunks, claimed so that the
		 * helper does not take them when it walks on (while the probe
		 * drains, only those the paused helper did not claim: the
		 * bytes it published before the pause are taken) */
		while (cl <= j && !atomic_compare_exchange_weak(&a->claim, &cl, j + 1))
			;
		a->r_mine = true;
		return;
	}
	if (cl <= j && unlikely(a->force_run) && j % a->force_run == 0 && a->mine_until <= j)
		cl = ah_force_wait(a, k);
	while (cl <= j) {
		if (atomic_compare_exchange_weak(&a->claim, &cl, j + 1)) {
			a->st_r_claim++;
			a->mine_from = j;
			a->mine_until = j + 1;
			a->r_mine = true;
			return;
		}
	}
	/* the helper's chunk, if it walked it with the reader's labels (ah_take()) */
	a->r_mine = false;
	a->r_ok = false;
	c->pf_ahead = true;
	d = atomic_load_explicit(&a->done, memory_order_acquire);
	a->r_done = d;
	if ((d < k + AH_CHUNK || (a->force_run && j % a->force_run == 0)) && a->mine_until <= j &&
	    a->probe != AH_P_DRAIN) {
		/* caught up with the helper: take the next run after its chunks
		 * (not while it is paused: the probe drains what it published) */
		cl = atomic_load(&a->claim);
		if (atomic_compare_exchange_strong(&a->claim, &cl, cl + AH_RUN)) {
			a->st_r_run += AH_RUN;
			a->mine_from = cl;
			a->mine_until = cl + AH_RUN;
		}
	}
}

/*
 * After capr_ahead_take(): the records the reader's next calls can take
 * inline (capr_ahead_fast()), those of the current chunk before the next
 * one's first, and of the helper's chunk only those it published with
 * AH_PF_RECS more after them (what capr_ahead_take() finds before it loads
 * done again); the others come back here.
 */
static void ah_set_fast(struct roce_capfile *c, struct cap_ahead *a)
{
	uint64_t k = c->ah_k, lim = (k + AH_CHUNK - 1) & ~(uint64_t)(AH_CHUNK - 1);

	if (a->r_mine) {
		c->ah_v = NULL;
	} else if (!a->r_ok) {
		c->ah_v = a->v;
		lim = k;        /* not checked yet: the next record comes back here */
	} else {
		c->ah_v = a->v;
		if (a->r_done < lim + AH_PF_RECS)
			lim = a->r_done > AH_PF_RECS ? a->r_done - AH_PF_RECS : 0;
	}
	c->ah_fast = lim;
}

static uint8_t ah_take(struct roce_capfile *c, struct cap_ahead *a)
{
	uint64_t k = c->ah_k++, j;
	uint8_t b;

	if (unlikely(!(k & (AH_CHUNK - 1)))) {
		if (!a->r_off && c->fmt == FMT_PCAP && a->probe != AH_P_READER &&
		    a->probe != AH_P_ALONE && ah_sync(c, a, k))
			return 0;
		ah_enter_chunk(c, a, k);
	}
	if (a->r_mine)
		return 0;
	if (k + AH_PF_RECS < a->r_done)
		(void)capr_ahead_byte(a->v, a->end, c->base, k);        /* its prefetch */
	if (k >= a->r_done) {
		a->r_done = atomic_load_explicit(&a->done, memory_order_acquire);
		if (k >= a->r_done) {
			a->st_r_unpub++;
			return 0;       /* not there yet: the caller does it */
		}
	}
	j = k / AH_CHUNK;
	if (unlikely(!a->r_ok)) {
		/* the first published record of the chunk: did the helper walk this
		 * chunk (not a slot of another), in a segment whose labels are the
		 * reader's (exact, or the one it synced to), with the same first
		 * record?  If not, the chunk is the reader's. */
		uint64_t s = a->c_seg[j & (AH_NCHUNK - 1)];

		if (a->c_tag[j & (AH_NCHUNK - 1)] != j || (!(s & 1) && s != a->r_seg) ||
		    (!(k & (AH_CHUNK - 1)) && a->first_end[j & (AH_NCHUNK - 1)] != c->pos)) {
			a->st_r_notwalked++;
			a->r_mine = true;
			return 0;
		}
		a->r_ok = true;
	}
	b = a->v[k & (AH_RING - 1)];
	return b;
}

uint8_t capr_ahead_take(struct roce_capfile *c)
{
	struct cap_ahead *a = c->ah;
	uint8_t b = ah_take(c, a);

	ah_set_fast(c, a);
	return b;
}

/*
 * Would the reader, checking the record that ends at end (and reading the
 * next header of hdr bytes after it), touch a page the helper found gone?
 */
bool capr_ahead_fault_reached(const struct roce_capfile *c, uint64_t end, size_t hdr)
{
	uintptr_t f = atomic_load_explicit(&c->ah->fault, memory_order_relaxed);
	uintptr_t base = (uintptr_t)c->map;

	if (!f)
		return false;
	if (end && base + end - 1 >= f)
		return true;
	return end + hdr <= c->map_len && base + end + hdr > f;
}

int roce_cap_cpus(void)
{
	cpu_set_t set;
	long n;

	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
		return CPU_COUNT(&set);
	n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}
