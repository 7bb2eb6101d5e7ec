/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pcapdl.c - libpcap opened with dlopen() on first use (pcapdl.h).
 */
#define _DEFAULT_SOURCE /* u_char etc. in <pcap/pcap.h> */
#define ROCE_PCAPDL_IMPL
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "dlopen_any.h"
#include "pcapdl.h"

struct roce_pcap_fns roce_pcap_fns_;

/* The shared object's names: Debian's (libpcap0.8), upstream's, the -dev link. */
static const char *const pcap_sonames[] = { "libpcap.so.0.8", "libpcap.so.1", "libpcap.so" };

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_err[256];

static void load(void)
{
	char why[200];
	void *h = roce_dlopen_any(pcap_sonames, sizeof(pcap_sonames) / sizeof(pcap_sonames[0]),
				  why, sizeof(why));

	if (!h) {
		snprintf(load_err, sizeof(load_err), "libpcap: %s", why);
		return;
	}
	/* POSIX: a data pointer from dlsym() converts to a function pointer */
#define ROCE_PCAP_SYM(ret, name, args)                                                   \
	*(void **)&roce_pcap_fns_.name = dlsym(h, #name);                                \
	if (!roce_pcap_fns_.name) {                                                        \
		snprintf(load_err, sizeof(load_err), "libpcap: no %s in it", #name);      \
		return;                                                                    \
	}
	ROCE_PCAP_FUNCS(ROCE_PCAP_SYM)
#undef ROCE_PCAP_SYM
	/* the handle stays open for the life of the process */
}

int roce_pcap_load(char *errbuf, size_t errlen)
{
	pthread_once(&load_once, load);
	if (!load_err[0])
		return 0;
	if (errbuf && errlen)
		snprintf(errbuf, errlen, "%s", load_err);
	return -1;
}
