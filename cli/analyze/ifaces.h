/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ifaces.h - capture interfaces of a roce-analyze run.  PFC / PAUSE act on
 * one link, so the analyzer keys them by interface too
 * (roce_analyzer_set_interface()); the run numbers its interfaces from 0 in
 * order of first appearance (of an analysed frame).  An interface is a pcapng
 * interface id with its if_name (none when the IDB has none): pcapng ids
 * restart in every section and input file, and the same id with the same name
 * there is the same interface (files rotated by dumpcap -b or roce-analyze
 * -C/-W repeat their IDBs); different ids are different interfaces.  A classic
 * pcap file and a live capture are interface id 0 without a name.
 */
#ifndef ROCE_ANALYZE_IFACES_H
#define ROCE_ANALYZE_IFACES_H

#include <stdint.h>

#include "../common/capread.h"
#include "analyze.h"

/*
 * The run's number of the interface of a record of input file `file` (pcapng
 * section, interface id; its if_name from c's metadata when c is not NULL),
 * added when it is new.
 */
uint32_t ra_iface_id(struct ra_ctx *ctx, const roce_capfile_t *c, unsigned file,
		     uint32_t section, uint32_t ifindex);
void ra_iface_free(struct ra_ctx *ctx);

#endif /* ROCE_ANALYZE_IFACES_H */
