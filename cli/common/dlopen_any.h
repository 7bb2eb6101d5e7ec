/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dlopen_any.h - open the first of a shared object's names that loads, for
 * the libraries the tools open only when an option needs them (libpcap in
 * pcapdl.c, libmicrohttpd in cli/analyze/promhttp.c).
 */
#ifndef ROCE_DLOPEN_ANY_H
#define ROCE_DLOPEN_ANY_H

#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>

/*
 * dlopen() names[0], names[1], ... (RTLD_NOW | RTLD_LOCAL) and return the
 * first handle that opens.  If none does, NULL, and why holds the first
 * name's reason (copied: the next dlopen() frees dlerror()'s text).
 */
static inline void *roce_dlopen_any(const char *const *names, size_t n, char *why,
				    size_t whylen)
{
	void *h = NULL;

	snprintf(why, whylen, "not found");
	for (size_t i = 0; !h && i < n; i++) {
		h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
		if (!h && i == 0) {
			const char *e = dlerror();

			snprintf(why, whylen, "%s", e ? e : "not found");
		}
	}
	return h;
}

#endif /* ROCE_DLOPEN_ANY_H */
