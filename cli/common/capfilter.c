// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * capfilter.c - tcpdump-style BPF filters on capture records (capfilter.h).
 */
#define _DEFAULT_SOURCE /* u_char etc. in <pcap/pcap.h>, strdup() */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capfilter.h"
#include "pcapdl.h"

#define CAPF_SNAPLEN 262144

struct capf_prog {
	int linktype;
	bool ok;                    /* compiled; false: never matches */
	struct bpf_program prog;
};

struct roce_capfilter {
	char *expr;
	unsigned n;
	struct capf_prog progs[ROCE_CAPF_MAX_LT];
};

/* LINKTYPE_* (file headers) to DLT_* (pcap_open_dead()): equal but for a few. */
static int linktype_to_dlt(int lt)
{
	switch (lt) {
	case 101:
		return DLT_RAW;
	case 100:
		return DLT_ATM_RFC1483;
	case 102:
		return DLT_SLIP_BSDOS;
	case 103:
		return DLT_PPP_BSDOS;
	default:
		return lt;
	}
}

static bool capf_compile(struct capf_prog *p, const char *expr, int linktype, char *errbuf,
			 size_t errlen)
{
	pcap_t *pd = pcap_open_dead(linktype_to_dlt(linktype), CAPF_SNAPLEN);

	p->linktype = linktype;
	p->ok = false;
	if (!pd) {
		if (errbuf)
			snprintf(errbuf, errlen, "cannot set up the filter compiler");
		return false;
	}
	if (pcap_compile(pd, &p->prog, expr, 1, PCAP_NETMASK_UNKNOWN) == 0) {
		p->ok = true;
	} else if (errbuf) {
		snprintf(errbuf, errlen, "%s", pcap_geterr(pd));
	}
	pcap_close(pd);
	return p->ok;
}

roce_capfilter_t *roce_capf_new(const char *expr, char *errbuf, size_t errlen)
{
	roce_capfilter_t *f;

	if (roce_pcap_load(errbuf, errlen))
		return NULL;
	f = calloc(1, sizeof(*f));
	if (!f || !(f->expr = strdup(expr))) {
		free(f);
		if (errbuf)
			snprintf(errbuf, errlen, "out of memory");
		return NULL;
	}
	/* Ethernet first: a syntax error is reported before any file is read */
	if (!capf_compile(&f->progs[0], expr, 1, errbuf, errlen)) {
		roce_capf_free(f);
		return NULL;
	}
	f->n = 1;
	return f;
}

bool roce_capf_match(roce_capfilter_t *f, int linktype, const uint8_t *data, uint32_t caplen,
		     uint32_t wirelen)
{
	struct pcap_pkthdr h;
	struct capf_prog *p = NULL;

	for (unsigned i = 0; i < f->n; i++)
		if (f->progs[i].linktype == linktype) {
			p = &f->progs[i];
			break;
		}
	if (!p) {
		if (f->n == ROCE_CAPF_MAX_LT)
			return false;
		p = &f->progs[f->n++];
		capf_compile(p, f->expr, linktype, NULL, 0);
	}
	if (!p->ok)
		return false;
	memset(&h, 0, sizeof(h));
	h.caplen = caplen;
	h.len = wirelen;
	return pcap_offline_filter(&p->prog, &h, data) != 0;
}

const char *roce_capf_expr(const roce_capfilter_t *f)
{
	return f->expr;
}

void roce_capf_free(roce_capfilter_t *f)
{
	if (!f)
		return;
	for (unsigned i = 0; i < f->n; i++)
		if (f->progs[i].ok)
			pcap_freecode(&f->progs[i].prog);
	free(f->expr);
	free(f);
}
