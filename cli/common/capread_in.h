/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * capread_in.h - stream input of the capture reader (capread_in.c).
 */
#ifndef ROCE_CAPREAD_IN_H
#define ROCE_CAPREAD_IN_H

#include "capread_int.h"

/* The source's error: status and message (reported when the reader reaches it). */
void capr_src_error(struct roce_capfile *c, int status, const char *msg);
/* More input into c->in: the unconsumed bytes kept, read after them.  >0 read, 0 end of
 * input, <0 error (set). */
int capr_in_fill(struct roce_capfile *c);

#endif
