/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * capfilter.h - tcpdump-style BPF filters on records read by capread.h.
 *
 * The expression is compiled by libpcap's compiler (pcap_open_dead() +
 * pcap_compile()) once per link-layer type met (a pcapng file may mix
 * interfaces of several types) and applied with pcap_offline_filter(), so a
 * filter means on a file exactly what it means to tcpdump -r.  At most
 * ROCE_CAPF_MAX_LT link types are compiled; records of further types do not
 * match.  A record of a link type libpcap cannot compile the expression for
 * does not match either (tcpdump would refuse the file).
 */
#ifndef ROCE_CAPFILTER_H
#define ROCE_CAPFILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ROCE_CAPF_MAX_LT 8

typedef struct roce_capfilter roce_capfilter_t;

/*
 * Check the expression by compiling it for Ethernet; NULL and a one-line
 * message in errbuf (errlen bytes) when libpcap rejects it.
 */
roce_capfilter_t *roce_capf_new(const char *expr, char *errbuf, size_t errlen);

/* Does a record of LINKTYPE_* linktype with these bytes pass the filter? */
bool roce_capf_match(roce_capfilter_t *f, int linktype, const uint8_t *data, uint32_t caplen,
		     uint32_t wirelen);

/* The expression as given. */
const char *roce_capf_expr(const roce_capfilter_t *f);

void roce_capf_free(roce_capfilter_t *f);

#endif /* ROCE_CAPFILTER_H */
