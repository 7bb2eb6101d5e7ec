/* SPDX-License-Identifier: GPL-2.0-or-later */
/* capio_int.h - private helpers shared by the capture reader and writer (capio_util.c). */
#ifndef ROCE_CAPIO_INT_H
#define ROCE_CAPIO_INT_H

/* printf into a caller's ROCE_ERRBUF_SIZE errbuf; errbuf may be NULL */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void capio_errbuf_printf(char *errbuf, const char *fmt, ...);

#endif /* ROCE_CAPIO_INT_H */
