/* SPDX-License-Identifier: GPL-2.0-or-later */
/* capread_ng.h - pcapng records (capread_ng.c). */
#ifndef ROCE_CAPREAD_NG_H
#define ROCE_CAPREAD_NG_H

#include "capread_int.h"

/* pcapng: the next record; prescan: only count, rec unused */
int capr_ng_next(struct roce_capfile *c, struct roce_cap_record *rec, bool prescan);

#endif /* ROCE_CAPREAD_NG_H */
