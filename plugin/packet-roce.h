/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * packet-roce.h - what the Wireshark plugin's files share: the statistics'
 * registration (roce-stats.c), handed a getter of the analyzer of the file
 * being dissected (packet-roce.c owns it).  Plugin-internal: nothing here is exported
 * (plugin.map).
 */
#ifndef ROCE_PLUGIN_PACKET_ROCE_H
#define ROCE_PLUGIN_PACKET_ROCE_H

#include <roce/analyzer.h>

/* Registers -z roce,qp / roce,pfc and the RoCE stats_trees (from
 * proto_register_roce(), after the "roce" tap); analyzer() gives the analyzer
 * of the current file's first pass when a statistic is drawn (NULL when the
 * protocol is disabled or the analyzer could not be created). */
void roce_stats_register(roce_analyzer_t *(*analyzer)(void));

#endif
