/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * capread_pages.c - the page-only helper of a large mapped capture file, and
 * the reader's side of the mapping window (capread_pages.h).  With
 * roce_cap_set_ahead() the helper that also walks the records
 * (capread_ahead.c) does this page work instead.
 */
#define _GNU_SOURCE
#include "capread_pages.h"
#include "capread_ahead.h"
#include "capread_src.h"
#include "capguard.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * For large mapped files a helper thread does the kernel's share of the
 * work off the reader's core: it maps the page-cache pages of the next
 * windows ahead of the reader (MADV_POPULATE_READ) and gives the pages
 * behind it back (MADV_DONTNEED).  The reader only tells it where it is,
 * once per 16 MiB window.
 */
#define CAP_HELPER_MIN (64u << 20)      /* files smaller than this: no thread */
#define CAP_SENTINEL_PAGES 16u          /* capr_map_watch(): pages looked at for a zero word */

static void *map_helper(void *arg)
{
	struct roce_capfile *c = arg;
	size_t populated = CAP_RELEASE_STEP;    /* the first window: done at open */

	pthread_mutex_lock(&c->helper_mu);
	for (;;) {
		size_t pos = c->helper_pos, want, upto;

		if (c->helper_stop) {
			bool drain = c->helper_drain;

			pthread_mutex_unlock(&c->helper_mu);
			if (drain)      /* roce_cap_done(): the reader is done with the file */
				capr_map_release_upto(c, c->map_len);
			return NULL;
		}
		want = pos + CAP_HELPER_AHEAD * CAP_RELEASE_STEP;
		if (want > c->map_len)
			want = c->map_len;
		upto = capr_release_to(c, pos);
		if (populated < want ||
		    upto > atomic_load_explicit(&c->map_released_a, memory_order_relaxed)) {
			pthread_mutex_unlock(&c->helper_mu);
			while (populated < want) {
				capr_map_prefetch(c, populated);
				populated += CAP_RELEASE_STEP;
			}
			/* (only once the reader has told a position: helper_on is set) */
			if (upto)
				capr_map_release_upto(c, upto);
			pthread_mutex_lock(&c->helper_mu);
			continue;
		}
		pthread_cond_wait(&c->helper_cv, &c->helper_mu);
	}
}

void capr_pages_start(struct roce_capfile *c)
{
	if (c->map_len < CAP_HELPER_MIN)
		return;
	if (pthread_mutex_init(&c->helper_mu, NULL) != 0)
		return;
	if (pthread_mutex_init(&c->release_mu, NULL) != 0) {
		pthread_mutex_destroy(&c->helper_mu);
		return;
	}
	if (pthread_cond_init(&c->helper_cv, NULL) != 0) {
		pthread_mutex_destroy(&c->release_mu);
		pthread_mutex_destroy(&c->helper_mu);
		return;
	}
	c->helper_pos = 0;
	c->helper_stop = false;
	atomic_init(&c->map_released_a, c->map_released);
	if (pthread_create(&c->helper, NULL, map_helper, c) != 0) {
		pthread_cond_destroy(&c->helper_cv);
		pthread_mutex_destroy(&c->release_mu);
		pthread_mutex_destroy(&c->helper_mu);
		return;
	}
	c->helper_on = true;
}

/* Tell the helper to end (drain: giving the whole mapping back first). */
static void helper_end(struct roce_capfile *c, bool drain)
{
	pthread_mutex_lock(&c->helper_mu);
	c->helper_drain |= drain;
	c->helper_stop = true;
	pthread_cond_signal(&c->helper_cv);
	pthread_mutex_unlock(&c->helper_mu);
}

void capr_pages_done(struct roce_capfile *c)
{
	if (c->ah) {
		capr_ahead_done(c);
		return;
	}
	if (c->helper_on)
		helper_end(c, true);
}

void capr_pages_stop(struct roce_capfile *c)
{
	if (c->ah) {
		capr_ahead_stop(c);
		return;
	}
	if (!c->helper_on)
		return;
	helper_end(c, false);
	pthread_join(c->helper, NULL);
	pthread_cond_destroy(&c->helper_cv);
	pthread_mutex_destroy(&c->release_mu);
	pthread_mutex_destroy(&c->helper_mu);
	c->helper_on = false;
}

void capr_map_moved(struct roce_capfile *c)
{
	if (c->helper_on) {
		size_t pos = (size_t)c->pos;

		pthread_mutex_lock(&c->helper_mu);
		c->helper_pos = pos;
		pthread_cond_signal(&c->helper_cv);
		pthread_mutex_unlock(&c->helper_mu);
		/* the helper fell behind (not scheduled, say): release here, so
		 * that resident memory stays bounded whatever the helper does */
		if (capr_release_to(c, pos) > CAP_RELEASE_LAG &&
		    capr_release_to(c, pos) - CAP_RELEASE_LAG >
		    atomic_load_explicit(&c->map_released_a, memory_order_relaxed))
			capr_map_release_upto(c, capr_release_to(c, pos));
		return;
	}
	capr_map_prefetch(c, (size_t)c->pos + CAP_RELEASE_STEP);
	if (capr_release_to(c, (size_t)c->pos) >= c->map_released + CAP_RELEASE_STEP)
		capr_map_release_upto(c, capr_release_to(c, (size_t)c->pos));
}

/*
 * Mapped file: is the record ending at offset end intact?  Cheap unless
 * something is suspect: the SIGBUS flag, or zeros where the next header
 * starts (past a cut inside its last page the file reads as zeros, without a
 * fault; a real header is never zero).  Then fstat() decides: a record that
 * ends within the new size is intact, and the next call reports the error.
 */
bool capr_map_rec_ok(struct roce_capfile *c, uint64_t end, size_t hdr)
{
	struct stat st;
	bool suspect = atomic_load_explicit(&c->sigbus, memory_order_relaxed);

	if (unlikely(c->ah) && !suspect && capr_ahead_fault_reached(c, end, hdr)) {
		/* where the helper thread found pages gone, the reader faults too */
		atomic_store(&c->sigbus, 1);
		suspect = true;
	}
	if (!suspect && end + hdr <= c->map_len) {
		uint64_t a, b = 0;

		memcpy(&a, (const uint8_t *)c->map + end, 8);
		if (hdr > 8)
			memcpy(&b, (const uint8_t *)c->map + end + 8, 8);
		suspect = (a | b) == 0 || atomic_load_explicit(&c->sigbus, memory_order_relaxed);
	}
	if (!suspect)
		return true;
	if (c->fd < 0 || fstat(c->fd, &st) != 0)
		return !atomic_load_explicit(&c->sigbus, memory_order_relaxed);
	if ((uint64_t)st.st_size >= c->map_len && !atomic_load(&c->sigbus))
		return true;  /* zeros in the file itself */
	c->shrank_seen = true;
	return end <= (uint64_t)st.st_size;
}

/* ---- the caller's side of a cut -------------------------------------------- */

/* The first zero word of the mapping's bytes [from, to), or NULL. */
static volatile int *zero_word(const uint8_t *m, size_t from, size_t to)
{
	for (size_t o = from; o + 4 <= to; o += 4) {
		uint32_t w;

		memcpy(&w, m + o, 4);
		if (!w)
			return (volatile int *)(uintptr_t)(m + o);
	}
	return NULL;
}

/*
 * Records handed out are decoded by the caller later, some a run later; a cut
 * file in between reads zeros there: where pages vanished (the SIGBUS handler
 * maps zeros over them, on whichever thread touches them first) and in the
 * tail of the page the new end falls in (the kernel zeros it; no fault).  The
 * caller reads the word of roce_cap_shrink_flag() after decoding a record
 * and before counting it: the sentinel, a word that reads 0 near the
 * mapping's end (in its last page: file bytes, else past the end; else in
 * one of the pages before it), or else (no zero word there) the word set on
 * every fault.  A cut below the sentinel's page takes that page away before
 * the tail of the page the new end falls in is zeroed, so the sentinel's load
 * after loads that found those zeros faults, and the handler makes it 1.
 * Records that end past the start of the sentinel's page (where a cut zeros
 * without a fault before the sentinel) come flagged ROCE_CAP_REC_RECHECK, for
 * roce_cap_rec_intact() every time.  When the word is set,
 * roce_cap_rec_intact() decides with fstat() and the lowest page made zeros.
 * A sentinel past the file's end turns into file bytes when the file grows:
 * found so (nothing cut, the word nonzero), the word becomes the one set on
 * faults (a cut inside a page then goes unseen until a fault, as before the
 * sentinel).
 */
void capr_map_watch(struct roce_capfile *c)
{
	long ps = sysconf(_SC_PAGESIZE);
	size_t pg = ps > 0 ? (size_t)ps : 4096, last = (c->map_len - 1) & ~(pg - 1);
	size_t top = (c->map_len + pg - 1) & ~(pg - 1), p;
	const uint8_t *m = c->map;
	volatile int *s;

	atomic_init(&c->zero_from, UINTPTR_MAX);
	/* the last page: file bytes (they stay when the file grows), else past the end;
	 * else a zero word of one of the CAP_SENTINEL_PAGES - 1 pages before it (the
	 * records that end past its page's start are then checked one by one) */
	p = last;
	s = zero_word(m, last, top);
	while (!s && p && last - p < (CAP_SENTINEL_PAGES - 1) * pg) {
		p -= pg;
		s = zero_word(m, p, p + pg);
	}
	c->check_from = p;
	c->sentinel = atomic_load(&c->sigbus) ? NULL : s;  /* cut already: the handler's zeros */
	if (!roce_capguard_watch(c->guard_slot, &c->cut, &c->zero_from, c->sentinel))
		c->sentinel = NULL;
}

const volatile int *roce_cap_shrink_flag(const roce_capfile_t *c)
{
	static const int none;

	if (!c || !c->map)
		return &none;
	return c->sentinel && !c->grown ? c->sentinel : &c->cut;
}

int roce_cap_rec_intact(roce_capfile_t *c, const struct roce_cap_record *rec)
{
	struct stat st;
	uintptr_t end;

	if (!c || !rec)
		return ROCE_E_INVAL;
	if (!c->map)
		return 1;
	end = (uintptr_t)rec->data + rec->caplen;
	if (end <= atomic_load(&c->zero_from) && c->fd >= 0 && fstat(c->fd, &st) == 0 &&
	    end - (uintptr_t)c->map <= (uint64_t)st.st_size) {
		/* nothing cut, the sentinel set: the file grew over it (it was past the end) */
		if ((uint64_t)st.st_size > c->map_len &&
		    atomic_load(&c->zero_from) == UINTPTR_MAX && c->sentinel &&
		    __atomic_load_n(c->sentinel, __ATOMIC_RELAXED))
			c->grown = true;
		return 1;
	}
	c->shrank_seen = true;
	return capr_fail_shrank_at(c, rec->frame_no);
}
