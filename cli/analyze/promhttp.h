/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * promhttp.h - roce-analyze --prometheus ADDR:PORT: serve /metrics over HTTP
 * (libmicrohttpd), the text of prom.h, refreshed by the analysis loop.
 */
#ifndef ROCE_ANALYZE_PROMHTTP_H
#define ROCE_ANALYZE_PROMHTTP_H

#include <stddef.h>

#include "prom.h"

typedef struct ra_promhttp ra_promhttp_t;

/* Listen on ADDR:PORT (":PORT" = 127.0.0.1; "[v6]:PORT"); NULL + message on failure. */
ra_promhttp_t *ra_promhttp_start(const char *addrport, char *errbuf, size_t errlen);
/* Replace the text served (called by the analysis thread). */
void ra_promhttp_update(ra_promhttp_t *h, const char *iface, const struct ra_snap *sn);
void ra_promhttp_stop(ra_promhttp_t *h);

#endif /* ROCE_ANALYZE_PROMHTTP_H */
