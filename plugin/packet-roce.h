/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * packet-roce.h - what the Wireshark plugin's files share: the analyzer of
 * the file being dissected (packet-roce.c owns it) and the statistics'
 * registration (roce-stats.c).  Plugin-internal: nothing here is exported
 * (plugin.map).
 */
#ifndef ROCE_PLUGIN_PACKET_ROCE_H
#define ROCE_PLUGIN_PACKET_ROCE_H

#include <roce/analyzer.h>

/* The analyzer of the current file's first pass; NULL when the protocol is
 * disabled or the analyzer could not be created. */
roce_analyzer_t *roce_plugin_analyzer(void);

/* Registers -z roce,qp / roce,pfc and the RoCE stats_trees
 * (from proto_register_roce(), after the "roce" tap). */
void roce_stats_register(void);

#endif
