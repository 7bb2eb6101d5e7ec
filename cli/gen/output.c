/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * output.c - where roce-gen's frames go: a capture file (-w: pcap with
 * nanosecond timestamps, or pcapng when the name ends in .pcapng, through
 * cli/common's capture writer) or an interface (-i: the shared TX engine of
 * cli/common/tx.h, as roce-replay uses it).  The engine only sees struct
 * rg_output.
 *
 * On an interface the frames' timestamps are the schedule: frame k is due at
 * start + (ts_k - ts_0), an absolute CLOCK_MONOTONIC deadline (so --rate and
 * --pps pace the wire; the default 100G spacing is "as fast as this host
 * sends").  Frames already due are sent together, up to RG_TX_BURST per call
 * (fewer system calls per frame at top speed).  The engine builds each frame
 * where it is sent from (frame_buf): with the xdp engine in the UMEM
 * (roce_tx_slot(): the engine copies nothing), with afpacket in the batch
 * slot handed to sendmmsg(); in a classic pcap file it builds it in the
 * writer's buffer, behind the record header.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <roce/pkt.h>

#include "capread.h"
#include "gen.h"
#include "tx.h"

#define RG_TX_BURST ROCE_TX_MAX_BATCH
/* Payload from which a frame is built in an engine slot: finding its length first
 * (roce_build_len(), about 60 instructions) costs more than copying a smaller frame.
 * A batch whose first frame is that large goes through engine slots (the smaller
 * frames copied into theirs when written, so the engine's ring stays in sending
 * order); any other batch is built in our slots and copied by the engine. */
#define RG_SLOT_MIN_PAYLOAD 512u

struct rg_iface {
	roce_tx_t *tx;
	const char *ifname;
	unsigned max_frame;
	uint64_t ts0, start;
	uint64_t now;                /* last clock reading: a frame due before it is due */
	bool started;
	unsigned n;
	struct roce_tx_frame f[RG_TX_BURST];
	uint8_t *slots;              /* RG_TX_BURST slots of RG_FRAME_MAX bytes */
	uint8_t *taken;              /* engine slot frame_buf handed out, not yet written */
	bool has_slots;              /* the engine has slots of its own (xdp) */
	bool slot_batch;             /* this batch's frames are in engine slots */
};

/* Where frame n of the batch goes: a slot of the engine's (xdp: the UMEM), else ours. */
static uint8_t *iface_slot(struct rg_iface *x, uint32_t len)
{
	uint8_t *p = x->slot_batch && len <= x->max_frame ? roce_tx_slot(x->tx, len) : NULL;

	return p ? p : x->slots + (size_t)x->n * RG_FRAME_MAX;
}

static int iface_flush(struct rg_iface *x)
{
	int rc = x->n ? roce_tx_send(x->tx, x->f, x->n) : 0;

	x->n = 0;
	return rc;
}

static int iface_write(struct rg_output *o, uint64_t ts_ns, const uint8_t *frame, uint32_t len)
{
	struct rg_iface *x = o->impl;
	uint8_t *slot;
	uint64_t due;

	if (len > x->max_frame) {
		snprintf(o->err, sizeof(o->err), "frame of %u bytes is larger than %s's MTU allows "
			 "(%u bytes with the Ethernet header and two VLAN tags)", len, x->ifname,
			 x->max_frame);
		o->exit_status = RG_EXIT_USAGE;
		return -1;
	}
	if (!x->started) {
		x->ts0 = ts_ns;
		x->start = roce_tx_now_ns();
		x->now = x->start;
		x->started = true;
	}
	due = x->start + (ts_ns >= x->ts0 ? ts_ns - x->ts0 : 0);
	/* the clock is read only when the last reading does not settle it (at top speed
	 * every frame is already due: no clock read per frame) */
	if (due > x->now && due > (x->now = roce_tx_now_ns())) {
		if (iface_flush(x))
			goto fail;
		x->now = roce_tx_wait_until(due);
	}
	if (!x->n)
		x->slot_batch = x->taken && frame == x->taken;
	if (frame == x->taken) {
		/* built where it is sent from (frame_buf); an engine slot stays where it
		 * is, in sending order, when the batch before it went out above */
		slot = x->taken;
		x->taken = NULL;
	} else {
		/* built elsewhere (pause frames), or in our slot n (a small frame; every
		 * frame with afpacket): into an engine slot, in sending order, if any */
		slot = iface_slot(x, len);
		if (frame != slot)
			memmove(slot, frame, len);
	}
	x->f[x->n].data = slot;
	x->f[x->n].len = len;
	if (++x->n == RG_TX_BURST && iface_flush(x))
		goto fail;
	return 0;
fail:
	snprintf(o->err, sizeof(o->err), "send failed");
	return -1;
}

static uint8_t *iface_frame_buf(struct rg_output *o, const struct roce_frame_spec *s,
			       size_t *cap)
{
	struct rg_iface *x = o->impl;
	/* (0 for a spec roce_build() refuses: no engine slot, it says why; a small
	 * frame is built in our slot n and copied into an engine slot by write) */
	size_t len = x->has_slots && s->payload_len >= RG_SLOT_MIN_PAYLOAD &&
		(!x->n || x->slot_batch) ? roce_build_len(s) : 0;
	uint8_t *p = len && len <= x->max_frame ? roce_tx_slot(x->tx, (uint32_t)len) : NULL;

	/* an engine slot is taken now and sent in the order taken; our slot n is
	 * the one write fills next (when write first flushes a batch, the frame is
	 * not due yet, it moves the frame to slot 0: one copy, once per wait) */
	x->taken = p;
	if (!p)
		return x->slots + (size_t)x->n * RG_FRAME_MAX;
	*cap = len;
	return p;
}

static int iface_close(struct rg_output *o)
{
	struct rg_iface *x = o->impl;
	const struct roce_tx_stats *st;
	int rc = iface_flush(x);

	if (!rc)
		rc = roce_tx_flush(x->tx);
	st = roce_tx_stats(x->tx);
	o->sent = st->packets;
	o->send_errors = st->errors;
	roce_tx_close(x->tx);
	free(x->slots);
	free(x);
	o->impl = NULL;
	if (rc)
		snprintf(o->err, sizeof(o->err), "send failed");
	else if (o->send_errors)
		snprintf(o->err, sizeof(o->err), "%" PRIu64 " frames refused by the kernel",
			 o->send_errors);
	return rc || o->send_errors ? -1 : 0;
}

static const struct rg_output_ops iface_ops = {
	.write = iface_write, .close = iface_close, .frame_buf = iface_frame_buf
};

static int iface_open(struct rg_output *o, const struct rg_config *c, char *errbuf,
		      size_t errlen)
{
	struct roce_tx_opts to = { .ifname = c->iface, .engine = ROCE_TX_AUTO, .queue = 0 };
	char e[ROCE_ERRBUF_SIZE];
	struct rg_iface *x;
	int st;

	if (c->engine) {
		int eng = roce_tx_engine_parse(c->engine);

		if (eng < 0) {
			snprintf(errbuf, errlen, "engine '%s': expected auto, afpacket or xdp",
				 c->engine);
			return -1;
		}
		to.engine = (enum roce_tx_engine)eng;
	}
	x = calloc(1, sizeof(*x));
	if (!x) {
		snprintf(errbuf, errlen, "out of memory");
		return -1;
	}
	x->tx = roce_tx_open(&to, e, &st);
	if (!x->tx) {
		snprintf(errbuf, errlen, "%s", e);
		free(x);
		return -1;
	}
	x->ifname = c->iface;
	x->max_frame = roce_tx_max_frame(x->tx);
	x->has_slots = roce_tx_has_slots(x->tx);
	x->slots = malloc((size_t)RG_TX_BURST * RG_FRAME_MAX);
	if (!x->slots) {
		roce_tx_close(x->tx);
		free(x);
		snprintf(errbuf, errlen, "out of memory");
		return -1;
	}
	o->name = c->iface;
	o->impl = x;
	o->ops = &iface_ops;
	o->engine = roce_tx_name(x->tx);
	return 0;
}

/* a failed write or close says why ("No space left on device"), once: the first cause */
static int file_failed(struct rg_output *o, int rc)
{
	if (rc && !o->err[0])
		snprintf(o->err, sizeof(o->err), "%s", rc == ROCE_CAP_E_IO ?
			 strerror(errno ? errno : EIO) : roce_strerror(rc));
	return rc;
}

static int file_write(struct rg_output *o, uint64_t ts_ns, const uint8_t *frame, uint32_t len)
{
	int rc = roce_capw_write(o->impl, ts_ns, frame, len, len);

	return rc ? file_failed(o, rc) : 0;
}

static int file_close(struct rg_output *o)
{
	int rc;

	errno = 0;
	rc = roce_capw_close(o->impl);
	o->impl = NULL;
	return file_failed(o, rc);
}

static int file_write_cap(struct rg_output *o, uint64_t ts_ns, const uint8_t *frame,
			  uint32_t caplen, uint32_t len)
{
	int rc = roce_capw_write(o->impl, ts_ns, frame, caplen, len);

	return rc ? file_failed(o, rc) : 0;
}

/* the next record's place in the writer's buffer (classic pcap): no copy */
static uint8_t *file_frame_buf(struct rg_output *o, const struct roce_frame_spec *s,
			       size_t *cap)
{
	(void)s;
	(void)cap;
	return roce_capw_slot(o->impl, RG_FRAME_MAX);
}

static const struct rg_output_ops file_ops = {
	.write = file_write, .close = file_close, .write_cap = file_write_cap,
	.frame_buf = file_frame_buf
};

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

int rg_output_open(struct rg_output *o, const struct rg_config *c, char *errbuf, size_t errlen)
{
	char e[ROCE_ERRBUF_SIZE];

	memset(o, 0, sizeof(*o));
	if (c->mirror_snaplen && c->encap != ROCE_ENCAP_ERSPAN2 && c->encap != ROCE_ENCAP_ERSPAN3) {
		snprintf(errbuf, errlen, "--mirror-snaplen needs --encap erspan2 or erspan3");
		return -1;
	}
	if ((c->mpls_count || c->mpls_pw) && c->encap != ROCE_ENCAP_MPLS) {
		snprintf(errbuf, errlen, "--mpls-labels and --mpls-pw need --encap mpls");
		return -1;
	}
	if (c->iface) {
		if (iface_open(o, c, errbuf, errlen))
			return -1;
		return c->encap ? rg_encap_wrap(o, c, errbuf, errlen) : 0;
	}
	o->name = strcmp(c->write_path, "-") ? c->write_path : "<stdout>";
	if (ends_with(c->write_path, ".pcapng"))
		o->impl = roce_capw_open_pcapng(c->write_path, ROCE_LINKTYPE_ETHERNET, 65535, e);
	else
		o->impl = roce_capw_open(c->write_path, ROCE_LINKTYPE_ETHERNET, 65535,
					 c->ts_us ? 0 : 1, e);
	if (!o->impl) {
		snprintf(errbuf, errlen, "%s", e);
		return -1;
	}
	o->ops = &file_ops;
	return c->encap ? rg_encap_wrap(o, c, errbuf, errlen) : 0;
}
