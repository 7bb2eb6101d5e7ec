/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * output.c - where roce-gen's frames go: a capture file (-w: pcap with
 * nanosecond timestamps, or pcapng when the name ends in .pcapng, through
 * cli/common's capture writer) or an interface (-i: the shared TX engine,
 * not available in this build yet).  The engine only sees struct
 * rg_output, so the TX engine plugs in here without touching it.
 */
#include <stdlib.h>
#include <string.h>

#include <roce/pkt.h>

#include "capread.h"
#include "gen.h"

static int file_write(struct rg_output *o, uint64_t ts_ns, const uint8_t *frame, uint32_t len)
{
	return roce_capw_write(o->impl, ts_ns, frame, len, len);
}

static int file_close(struct rg_output *o)
{
	int rc = roce_capw_close(o->impl);

	o->impl = NULL;
	return rc;
}

static const struct rg_output_ops file_ops = { file_write, file_close };

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

int rg_output_open(struct rg_output *o, const struct rg_config *c, char *errbuf, size_t errlen)
{
	char e[ROCE_ERRBUF_SIZE];

	memset(o, 0, sizeof(*o));
	if (c->iface) {
		snprintf(errbuf, errlen, "-i %s: sending to an interface needs the TX engine, "
			 "which is not in this build yet; write a file with -w and replay it",
			 c->iface);
		return -1;
	}
	o->name = strcmp(c->write_path, "-") ? c->write_path : "<stdout>";
	if (ends_with(c->write_path, ".pcapng"))
		o->impl = roce_capw_open_pcapng(c->write_path, ROCE_LINKTYPE_ETHERNET, 65535, e);
	else
		o->impl = roce_capw_open(c->write_path, ROCE_LINKTYPE_ETHERNET, 65535, 1, e);
	if (!o->impl) {
		snprintf(errbuf, errlen, "%s", e);
		return -1;
	}
	o->ops = &file_ops;
	return 0;
}
