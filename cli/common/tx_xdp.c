/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tx_xdp.c - fast TX engine: an AF_XDP socket (libxdp) used for TX only.
 *
 * One UMEM of ROCE_XDP_UMEM bytes per handle, used as a ring of bytes
 * (tx_umem.h): a frame is copied to the ring's head, its descriptor put on
 * the TX ring, and the kernel kicked with sendto(MSG_DONTWAIT).  The UMEM is
 * registered with unaligned chunks, so small frames share pages (a batch of
 * 256 frames of 138 bytes fills 12 pages, not 256, and the kernel's copy out
 * of them costs half as much); where the kernel refuses unaligned chunks
 * every frame takes a whole 4 KiB chunk of the same ring.  Completed
 * descriptors come back on the completion ring and give their bytes back.
 * A caller that builds its frames (roce-gen -i) takes their place in the ring
 * first (roce_tx_slot()) and builds them there: those are not copied again.
 * In copy ("generic") mode the kernel transmits at most budget descriptors
 * per kick and answers EAGAIN while more are queued: that is normal and
 * means "kick again".  Ring indices are never reset, so loops and long runs
 * do not disturb them.
 *
 * No XDP program is loaded (XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD): nothing is
 * received, nothing on the interface's RX path changes.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <stdarg.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <bpf/libbpf.h>
#include <xdp/libxdp.h>
#include <xdp/xsk.h>

#include "tx.h"
#include "tx_umem.h"

#define ROCE_XDP_CHUNK ROCE_UMEM_PAGE          /* aligned mode's chunk */
#define ROCE_XDP_UMEM (4096u * ROCE_XDP_CHUNK)  /* 16 MiB */
#define ROCE_XDP_ALIGN 64u                      /* frame start in unaligned mode */
#define ROCE_XDP_RING 2048u                     /* TX and completion rings */
/* Descriptors the kernel sends per kick in copy mode: 32 unless the kernel takes
 * XDP_MAX_TX_SKB_BUDGET (Linux 6.17), which is then set to ROCE_TX_MAX_BATCH. */
#ifndef XDP_MAX_TX_SKB_BUDGET
#define XDP_MAX_TX_SKB_BUDGET 9
#endif
#define ROCE_XDP_DEFAULT_BUDGET 32u

/* Handles of several sender threads must not share a cache line: aligned, padded. */
struct xdpx {
	struct xsk_umem *umem;
	struct xsk_socket *xsk;
	struct xsk_ring_prod fq, tx;
	struct xsk_ring_cons cq, rx;
	uint8_t *area;
	unsigned budget;         /* descriptors the kernel sends per kick */
	unsigned unsent;         /* slots taken (roce_tx_slot()) and not yet sent */
	int fd;
	struct roce_umem_ring ring;
};

/* libxdp/libbpf diagnostics would add lines to our one-line errors: the
 * failure is reported through the return codes instead. */
static int quiet_xdp(enum libxdp_print_level level, const char *fmt, va_list args)
{
	return 0;
}

static int quiet_bpf(enum libbpf_print_level level, const char *fmt, va_list args)
{
	return 0;
}

static void xdpx_free(struct xdpx *x)
{
	if (x->xsk)
		xsk_socket__delete(x->xsk);
	if (x->umem)
		xsk_umem__delete(x->umem);
	if (x->area && x->area != MAP_FAILED)
		munmap(x->area, ROCE_XDP_UMEM);
	free(x);
}

static int xdp_open(struct roce_tx *tx, const struct roce_tx_opts *o, char *errbuf)
{
	struct xsk_umem_config ucfg = {
		.fill_size = 64,
		.comp_size = ROCE_XDP_RING,
		.frame_size = ROCE_XDP_CHUNK,
		.frame_headroom = 0,
		.flags = XDP_UMEM_UNALIGNED_CHUNK_FLAG,
	};
	struct xsk_socket_config scfg;
	struct xdpx *x;
	int rc;

	if (tx->max_frame > ROCE_TX_XDP_MAX_FRAME) {
		snprintf(errbuf, ROCE_ERRBUF_SIZE,
			 "AF_XDP unavailable on %s: MTU %u is above what this engine sends "
			 "(%u-byte frames)",
			 o->ifname, tx->mtu, ROCE_TX_XDP_MAX_FRAME);
		return ROCE_TX_E_NOTSUP;
	}
	libxdp_set_print(quiet_xdp);
	libbpf_set_print(quiet_bpf);
	x = aligned_alloc(64, (sizeof(*x) + 63) & ~(size_t)63);
	if (x)
		memset(x, 0, sizeof(*x));
	if (!x) {
		snprintf(errbuf, ROCE_ERRBUF_SIZE, "out of memory");
		return ROCE_E_NOMEM;
	}
	x->fd = -1;
	x->area = mmap(NULL, ROCE_XDP_UMEM, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	if (x->area == MAP_FAILED) {
		snprintf(errbuf, ROCE_ERRBUF_SIZE, "AF_XDP unavailable: UMEM: %s", strerror(errno));
		xdpx_free(x);
		return ROCE_E_NOMEM;
	}
	roce_umem_init(&x->ring, ROCE_XDP_UMEM, ROCE_XDP_ALIGN);
	rc = xsk_umem__create(&x->umem, x->area, ROCE_XDP_UMEM, &x->fq, &x->cq, &ucfg);
	if (rc == -EINVAL) {
		/* a kernel without unaligned chunks: a whole chunk per frame */
		ucfg.flags = 0;
		roce_umem_init(&x->ring, ROCE_XDP_UMEM, ROCE_XDP_CHUNK);
		rc = xsk_umem__create(&x->umem, x->area, ROCE_XDP_UMEM, &x->fq, &x->cq, &ucfg);
	}
	if (rc) {
		x->umem = NULL;
		goto fail;
	}
	memset(&scfg, 0, sizeof(scfg));
	scfg.rx_size = 0;
	scfg.tx_size = ROCE_XDP_RING;
	scfg.libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD;
	scfg.bind_flags = 0;    /* zero-copy when the driver has it, else copy */
	rc = xsk_socket__create(&x->xsk, o->ifname, o->queue, x->umem, NULL, &x->tx, &scfg);
	if (rc) {
		x->xsk = NULL;
		goto fail;
	}
	x->fd = xsk_socket__fd(x->xsk);
	x->budget = ROCE_TX_MAX_BATCH;
	if (setsockopt(x->fd, SOL_XDP, XDP_MAX_TX_SKB_BUDGET, &x->budget, sizeof(x->budget)))
		x->budget = ROCE_XDP_DEFAULT_BUDGET;
	/* Touch every page once here rather than on its first frame: on a VM the first
	 * access to a page from user space costs microseconds (the hypervisor's page
	 * tables), 4096 of them per handle, which belong to the set-up, not the run. */
	for (size_t pg = 0; pg < ROCE_XDP_UMEM; pg += ROCE_XDP_CHUNK)
		*(volatile uint8_t *)(x->area + pg) = 0;
	tx->priv = x;
	return ROCE_OK;
fail:
	xdpx_free(x);
	if (rc == -EPERM || rc == -EACCES) {
		snprintf(errbuf, ROCE_ERRBUF_SIZE,
			 "AF_XDP unavailable on %s: need CAP_NET_RAW and CAP_BPF/CAP_NET_ADMIN",
			 o->ifname);
		return ROCE_TX_E_PERM;
	}
	if (rc == -EINVAL && o->queue) {
		snprintf(errbuf, ROCE_ERRBUF_SIZE, "AF_XDP unavailable on %s: no TX queue %u: %s",
			 o->ifname, o->queue, strerror(-rc));
		return ROCE_TX_E_NOTSUP;
	}
	snprintf(errbuf, ROCE_ERRBUF_SIZE, "AF_XDP unavailable on %s (queue %u): %s", o->ifname,
		 o->queue, strerror(rc < 0 ? -rc : EINVAL));
	return ROCE_TX_E_NOTSUP;
}

/* Descriptors the kernel is done with give their UMEM bytes back. */
static void xdp_reap(struct xdpx *x)
{
	uint32_t idx;
	unsigned n = xsk_ring_cons__peek(&x->cq, ROCE_XDP_RING, &idx);

	if (!n)
		return;
	for (unsigned i = 0; i < n; i++)
		(void)roce_umem_give(&x->ring, (uint32_t)(*xsk_ring_cons__comp_addr(&x->cq, idx + i) &
							 XSK_UNALIGNED_BUF_ADDR_MASK));
	xsk_ring_cons__release(&x->cq, n);
	roce_umem_retire(&x->ring);
}

/*
 * Frames ahead of the one being copied whose bytes are prefetched: a replay's frames
 * come from a preload far larger than the caches, and a 1098-byte frame read from
 * memory costs more than its copy (user-space copy of 100,000 such frames, back to
 * back, into the chunks: about 120 ns a frame, 80-100 ns with this).
 */
#define ROCE_XDP_PREFETCH 6u

static inline void prefetch_frame(const struct roce_tx_frame *fr)
{
	const uint8_t *p = fr->data;
	uint32_t len = fr->len <= ROCE_TX_XDP_MAX_FRAME ? fr->len : 0;

	for (uint32_t o = 0; o < len; o += 64)
		__builtin_prefetch(p + o);
}

/* Ask the kernel to transmit; 0, or a negative errno for a dead interface. */
static int xdp_kick(struct roce_tx *tx, struct xdpx *x)
{
	if (sendto(x->fd, NULL, 0, MSG_DONTWAIT, NULL, 0) >= 0)
		return 0;
	switch (errno) {
	case EAGAIN:
	case EBUSY:
	case ENOBUFS:
	case EINTR:
		return 0;
	case ENETDOWN:
	case ENXIO:
	case ENODEV:
		return -errno;
	default:
		tx->st.errors++;
		return 0;
	}
}

/* Whether a frame was built in a slot of this UMEM (roce_tx_slot()): its place is taken. */
static inline bool in_umem(const struct xdpx *x, const uint8_t *p)
{
	return (uintptr_t)p - (uintptr_t)x->area < ROCE_XDP_UMEM;
}

/* A place in the UMEM ring for a frame of len bytes that the caller builds there. */
static uint8_t *xdp_slot(struct roce_tx *tx, uint32_t len)
{
	struct xdpx *x = tx->priv;

	if (!len || len > ROCE_TX_XDP_MAX_FRAME)
		return NULL;
	/* the first slot of a batch: completions give their bytes back first, so that
	 * with nothing in flight the ring starts again at the same few pages */
	if (!x->unsent)
		xdp_reap(x);
	while (!roce_umem_room(&x->ring)) {
		/* full of frames sent before (at most ROCE_TX_MAX_BATCH slots are not) */
		tx->st.retries++;
		if (xdp_kick(tx, x))
			return NULL;
		xdp_reap(x);
	}
	x->unsent++;
	return x->area + roce_umem_take(&x->ring, len);
}

static int xdp_send(struct roce_tx *tx, const struct roce_tx_frame *f, unsigned n)
{
	struct xdpx *x = tx->priv;
	unsigned done = 0;
	int rc;

	while (done < n) {
		uint32_t idx;
		unsigned want = n - done, got, room, used = 0;
		/* frames built in slots (there are none without a slot taken, as in a replay) */
		bool slots = x->unsent != 0;
		uint64_t bytes = 0;

		xdp_reap(x);
		room = roce_umem_room(&x->ring);
		if (!slots) {
			if (want > room)
				want = room;
		} else {
			/* a frame built in its slot needs no room: it was taken with the slot */
			for (want = 0; done + want < n; want++) {
				if (in_umem(x, f[done + want].data))
					continue;
				if (!room)
					break;
				room--;
			}
		}
		got = want ? xsk_ring_prod__reserve(&x->tx, want, &idx) : 0;
		if (!got) {
			/* ring or UMEM full: let the kernel work, then look again */
			tx->st.retries++;
			rc = xdp_kick(tx, x);
			if (rc)
				return rc;
			continue;
		}
		for (unsigned i = 0; i < got; i++) {
			const struct roce_tx_frame *fr = &f[done + i];
			struct xdp_desc *d;
			uint32_t addr;

			if (slots && in_umem(x, fr->data)) {
				/* built in its slot: the place is taken, nothing to copy */
				d = xsk_ring_prod__tx_desc(&x->tx, idx + used++);
				d->addr = (uint64_t)(fr->data - x->area);
				d->len = fr->len;
				bytes += fr->len;
				x->unsent--;
				continue;
			}
			if (i + ROCE_XDP_PREFETCH < got &&
			    !(slots && in_umem(x, f[done + i + ROCE_XDP_PREFETCH].data)))
				prefetch_frame(&f[done + i + ROCE_XDP_PREFETCH]);
			if (!fr->len || fr->len > ROCE_TX_XDP_MAX_FRAME) {
				/* the kernel would drop it without a completion, which
				 * would hold the ring's tail for good: refused here */
				tx->st.errors++;
				continue;
			}
			d = xsk_ring_prod__tx_desc(&x->tx, idx + used++);
			addr = roce_umem_take(&x->ring, fr->len);
			memcpy(x->area + addr, fr->data, fr->len);
			d->addr = addr;
			d->len = fr->len;
			bytes += fr->len;
		}
		x->tx.cached_prod -= got - used;   /* descriptors of refused frames */
		tx->st.bytes += bytes;
		xsk_ring_prod__submit(&x->tx, used);
		tx->st.packets += used;
		done += got;
		/* one kick sends at most budget descriptors */
		for (unsigned k = 0; k < used; k += x->budget) {
			rc = xdp_kick(tx, x);
			if (rc)
				return rc;
		}
	}
	return 0;
}

static int xdp_flush(struct roce_tx *tx)
{
	struct xdpx *x = tx->priv;
	uint64_t end = roce_tx_now_ns() + 2000000000ull;
	int rc;

	while (roce_umem_outstanding(&x->ring)) {
		rc = xdp_kick(tx, x);
		if (rc)
			return rc;
		xdp_reap(x);
		if (!roce_umem_outstanding(&x->ring))
			break;
		if (roce_tx_now_ns() > end)
			return -ETIMEDOUT;
		sched_yield();
	}
	return 0;
}

static void xdp_close(struct roce_tx *tx)
{
	struct xdpx *x = tx->priv;

	if (x) {
		(void)xdp_flush(tx);
		xdpx_free(x);
	}
	tx->priv = NULL;
}

const struct roce_tx_ops roce_tx_xdp_ops = {
	.name = "xdp",
	.open = xdp_open,
	.send = xdp_send,
	.slot = xdp_slot,
	.flush = xdp_flush,
	.close = xdp_close,
};
