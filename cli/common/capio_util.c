/* SPDX-License-Identifier: GPL-2.0-or-later */
/* capio_util.c - small helpers shared by the capture reader and writers. */
#include "capio_int.h"
#include "capread.h"

#include <stdarg.h>
#include <stdio.h>

void capio_errbuf_printf(char *errbuf, const char *fmt, ...)
{
	va_list ap;

	if (!errbuf)
		return;
	va_start(ap, fmt);
	vsnprintf(errbuf, ROCE_ERRBUF_SIZE, fmt, ap);
	va_end(ap);
}
