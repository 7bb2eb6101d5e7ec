/* SPDX-License-Identifier: GPL-2.0-or-later */
/* capguard.c - SIGBUS guard for mapped capture files that shrink while being read. */
#define _GNU_SOURCE
#include "capguard.h"

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/*
 * When a mapped file is truncated, touching a page past its new end raises
 * SIGBUS.  The reader's handler (installed once per process) looks the
 * faulting address up in a small table of the reader's mappings; if it is
 * one of them, it maps anonymous zero pages over the rest of that mapping
 * (mmap MAP_FIXED: the access then completes, reading zeros) and flags the
 * handle, which the reader checks before it delivers a record.  Faults
 * elsewhere go to the previous handler, or kill the process as before.
 * Handles beyond the table's size are streamed instead of mapped.
 *
 * For the reader's caller (roce_cap_shrink_flag(), roce_cap_rec_intact()) a
 * slot may also name a word set on every fault in it, on any thread, the lowest
 * page made zeros so far, and a sentinel: a zero word near the mapping's end,
 * which the handler makes nonzero (zeros but for the word, from its page to the
 * end, prepared at roce_capguard_watch(), moved over them with mremap() before
 * the zero pages below are mapped).  A file cut below the sentinel's page loses
 * that page from every mapping before the kernel zeros the tail of the page the
 * new end falls in, so a load of the sentinel after loads that read such zeros
 * faults, and reads nonzero.
 *
 * A helper thread reading a mapping ahead of its reader registers a fault
 * slot of its own (roce_capguard_thread()): a fault on that thread stores the
 * faulting page's address there instead of flagging the handle, so that the
 * reader learns of the vanished pages only where it reaches them itself
 * (capr_map_rec_ok()), as without the helper.
 */
#define GUARD_SLOTS 64

static _Atomic(uintptr_t) guard_lo[GUARD_SLOTS], guard_hi[GUARD_SLOTS];
static _Atomic(atomic_int *) guard_flag[GUARD_SLOTS];
/* roce_capguard_watch(): set on every fault, the lowest page made zeros, the sentinel word */
static _Atomic(volatile int *) guard_cut[GUARD_SLOTS];
static _Atomic(atomic_uintptr_t *) guard_zero[GUARD_SLOTS];
static _Atomic(uintptr_t) guard_sent[GUARD_SLOTS];
/* the sentinel's page to be: zeros but the word, 1 (moved into place once, then 0) */
static _Atomic(uintptr_t) guard_tmpl[GUARD_SLOTS];
static pthread_mutex_t guard_mu = PTHREAD_MUTEX_INITIALIZER;
static struct sigaction guard_prev;
static bool guard_installed;
static uintptr_t guard_pagesize;
static _Thread_local atomic_uintptr_t *guard_thread_fault;

static void guard_sigbus(int sig, siginfo_t *si, void *uc)
{
	uintptr_t a = (uintptr_t)si->si_addr;
	struct sigaction dfl;

	for (int i = 0; i < GUARD_SLOTS; i++) {
		uintptr_t lo = atomic_load(&guard_lo[i]), hi = atomic_load(&guard_hi[i]);
		atomic_int *flag = atomic_load(&guard_flag[i]);

		if (lo && flag && a >= lo && a < hi) {
			uintptr_t pg = a & ~(guard_pagesize - 1), top = hi, z;
			uintptr_t s = atomic_load(&guard_sent[i]);
			volatile int *cut = atomic_load(&guard_cut[i]);
			atomic_uintptr_t *zf = atomic_load(&guard_zero[i]);
			atomic_uintptr_t *tf = guard_thread_fault;

			/* the watchers' words before any zero page: a thread that reads
			 * zeros where the file was finds them set after its loads */
			if (cut)
				__atomic_store_n(cut, 1, __ATOMIC_RELAXED);
			if (zf) {
				z = atomic_load(zf);
				while (pg < z && !atomic_compare_exchange_weak(zf, &z, pg))
					;
			}
			if (s && s >= pg) {
				/* the sentinel's page first, and already 1 when it appears
				 * (mremap() replaces the page in one step; a fresh zero
				 * page, written after, would read 0 for a while); by the
				 * thread that takes the page, once */
				uintptr_t t = atomic_exchange(&guard_tmpl[i], 0);

				top = s & ~(guard_pagesize - 1);
				if (t && mremap((void *)t, hi - top, hi - top, MREMAP_MAYMOVE |
						MREMAP_FIXED, (void *)top) == MAP_FAILED) {
					/* (not seen: a page of zeros, the word written after) */
					if (mmap((void *)top, hi - top, PROT_READ | PROT_WRITE,
						 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1,
						 0) == MAP_FAILED)
						break;
					__atomic_store_n((volatile int *)s, 1, __ATOMIC_RELAXED);
				}
			}
			if (pg < top && mmap((void *)pg, top - pg, PROT_READ,
					     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1,
					     0) == MAP_FAILED)
				break;
			if (tf)
				atomic_store(tf, pg);
			else if (a != s)  /* (the sentinel's own load: the reader reports
					   * the cut where it reaches it) */
				atomic_store(flag, 1);
			return;
		}
	}
	if ((guard_prev.sa_flags & SA_SIGINFO) && guard_prev.sa_sigaction) {
		guard_prev.sa_sigaction(sig, si, uc);
		return;
	}
	if (!(guard_prev.sa_flags & SA_SIGINFO) && guard_prev.sa_handler != SIG_DFL &&
	    guard_prev.sa_handler != SIG_IGN) {
		guard_prev.sa_handler(sig);
		return;
	}
	/* default action: the access faults again and the process dies of SIGBUS */
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigaction(sig, &dfl, NULL);
}

/* Register a mapping; the slot, or -1 (then the caller must not map the file). */
int roce_capguard_add(void *map, size_t len, atomic_int *flag)
{
	int slot = -1;

	pthread_mutex_lock(&guard_mu);
	if (!guard_installed) {
		struct sigaction sa;
		long ps = sysconf(_SC_PAGESIZE);

		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = guard_sigbus;
		sa.sa_flags = SA_SIGINFO | SA_RESTART;
		sigemptyset(&sa.sa_mask);
		guard_pagesize = ps > 0 ? (uintptr_t)ps : 4096;
		if (sigaction(SIGBUS, &sa, &guard_prev) == 0)
			guard_installed = true;
	}
	for (int i = 0; guard_installed && i < GUARD_SLOTS; i++) {
		if (atomic_load(&guard_lo[i]) == 0) {
			uintptr_t lo = (uintptr_t)map;
			uintptr_t hi = (lo + len + guard_pagesize - 1) & ~(guard_pagesize - 1);

			atomic_store(&guard_flag[i], flag);
			atomic_store(&guard_hi[i], hi);
			atomic_store(&guard_lo[i], lo);
			slot = i;
			break;
		}
	}
	pthread_mutex_unlock(&guard_mu);
	return slot;
}

bool roce_capguard_watch(int slot, volatile int *cut, atomic_uintptr_t *zero_from,
			 volatile int *sentinel)
{
	uintptr_t s = (uintptr_t)sentinel, top, hi;
	void *t;

	if (slot < 0)
		return false;
	atomic_store(&guard_cut[slot], cut);
	atomic_store(&guard_zero[slot], zero_from);
	hi = atomic_load(&guard_hi[slot]);
	if (!s || s < atomic_load(&guard_lo[slot]) || s + sizeof(int) > hi)
		return false;
	top = s & ~(guard_pagesize - 1);
	t = mmap(NULL, hi - top, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (t == MAP_FAILED)
		return false;
	*(int *)((uint8_t *)t + (s - top)) = 1;
	atomic_store(&guard_tmpl[slot], (uintptr_t)t);
	atomic_store(&guard_sent[slot], s);
	return true;
}

void roce_capguard_del(int slot)
{
	uintptr_t t, s;

	if (slot < 0)
		return;
	pthread_mutex_lock(&guard_mu);
	t = atomic_exchange(&guard_tmpl[slot], 0);
	s = atomic_load(&guard_sent[slot]);
	if (t)
		munmap((void *)t, atomic_load(&guard_hi[slot]) - (s & ~(guard_pagesize - 1)));
	atomic_store(&guard_lo[slot], 0);
	atomic_store(&guard_hi[slot], 0);
	atomic_store(&guard_flag[slot], NULL);
	atomic_store(&guard_cut[slot], NULL);
	atomic_store(&guard_zero[slot], NULL);
	atomic_store(&guard_sent[slot], 0);
	pthread_mutex_unlock(&guard_mu);
}

void roce_capguard_thread(atomic_uintptr_t *fault)
{
	guard_thread_fault = fault;
}
