/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * capguard.h - internal to the capture reader: a process-wide SIGBUS handler
 * that turns "the mapped file shrank" into a flag instead of a crash.
 *
 * roce_capguard_add() registers a read-only file mapping [map, map + len)
 * and the flag to set; when an access inside it faults with SIGBUS (the file
 * was truncated), the handler maps anonymous zero pages from the faulting page
 * to the end of the mapping, sets *flag to 1 and returns, so the access reads
 * zeros.  Faults elsewhere go to the handler that was installed before (or
 * the default action).  Returns the slot, or -1 when the table is full or
 * the handler could not be installed: then the file must not be mapped.
 */
#ifndef ROCE_CAPGUARD_H
#define ROCE_CAPGUARD_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

int roce_capguard_add(void *map, size_t len, atomic_int *flag);
void roce_capguard_del(int slot);

/*
 * More for a registered slot (any may be NULL): *cut set to 1 on every fault
 * in the mapping (any thread), *zero_from lowered to the first page mapped
 * with zeros, and a sentinel: a word near the mapping's end that reads 0
 * while the file is whole; when a fault takes its page away, the handler puts
 * zeros from that page to the end whose word is already 1 (before the zeros
 * below it are mapped) and, when the fault was the sentinel's own load, leaves
 * *flag alone.  Returns whether the sentinel is watched (false: none given,
 * or no memory for its page).
 */
bool roce_capguard_watch(int slot, volatile int *cut, atomic_uintptr_t *zero_from,
			 volatile int *sentinel);

/*
 * For the calling thread only (a helper reading ahead of the reader): a
 * fault in a registered mapping stores the faulting page's address in *fault
 * instead of setting the mapping's flag (zero pages are mapped all the same).
 * NULL restores the default.
 */
void roce_capguard_thread(atomic_uintptr_t *fault);

#endif /* ROCE_CAPGUARD_H */
