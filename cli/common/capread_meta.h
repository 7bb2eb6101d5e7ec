/* SPDX-License-Identifier: GPL-2.0-or-later */
/* capread_meta.h - pcapng metadata strings (capread_meta.c). */
#ifndef ROCE_CAPREAD_META_H
#define ROCE_CAPREAD_META_H

#include "capread_int.h"

/* keep a copy (bounded), free them all */
void capr_meta_add(struct roce_capfile *c, int kind, uint32_t ifindex, const uint8_t *s,
		   size_t len);
void capr_meta_free(struct roce_capfile *c);

#endif /* ROCE_CAPREAD_META_H */
