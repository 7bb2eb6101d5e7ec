/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tx.h - the TX engine shared by roce-replay and roce-gen -i: send batches of
 * complete Ethernet frames (no FCS) on one interface, plus the pacing clock.
 *
 * Engines sit behind one ops table, so another one (DPDK, io_uring...) is a
 * new file and a row in tx.c's table; the tools only see roce_tx_*():
 *
 *   afpacket  AF_PACKET SOCK_RAW, protocol 0 (no self-delivery tap),
 *             PACKET_QDISC_BYPASS, batched sendmmsg(); needs CAP_NET_RAW.
 *             Works everywhere.
 *   xdp       AF_XDP TX-only socket (libxdp), one UMEM per handle, copy mode
 *             unless the driver does zero-copy; no XDP program is loaded.
 *             Needs CAP_NET_RAW + CAP_BPF/CAP_NET_ADMIN, CONFIG_XDP_SOCKETS,
 *             frames of at most ROCE_TX_XDP_MAX_FRAME bytes.
 *   auto      xdp when it opens, else afpacket (the reason xdp was not
 *             taken is kept in roce_tx_note()).
 *
 * One handle belongs to one thread.  For N sender threads open N handles;
 * handle i uses TX queue i where the engine binds to a queue (xdp).
 *
 * roce_tx_send() queues frames and returns when all n were handed to the
 * kernel (the data may be reused right away: both engines copy); frames the
 * kernel refused with a hard error are counted in stats.errors and
 * skipped.  ENOBUFS/EAGAIN are waited out (stats.retries counts them).
 * roce_tx_flush() waits until the engine's own queue is empty (xdp
 * completions); call it before reading the far end's counters.
 *
 * roce_tx_slot() offers a place in the engine's own memory (xdp: the UMEM)
 * for a caller that builds its frames (roce-gen -i): a frame built there is
 * passed to roce_tx_send() as any other and is not copied again.
 */
#ifndef ROCE_TX_H
#define ROCE_TX_H

#include <stdbool.h>
#include <stdint.h>

#include <roce/roce.h>

#ifdef __cplusplus
extern "C" {
#endif

enum roce_tx_engine {
	ROCE_TX_AUTO = 0,
	ROCE_TX_AFPACKET,
	ROCE_TX_XDP
};

/* Frames per roce_tx_send() call an engine takes at once. */
#define ROCE_TX_MAX_BATCH 256
/* Largest frame the xdp engine sends (UMEM chunk of 4096 bytes less headroom). */
#define ROCE_TX_XDP_MAX_FRAME 3840

struct roce_tx_frame {
	const uint8_t *data;
	uint32_t len;
};

struct roce_tx_stats {
	uint64_t packets;   /* frames handed to the kernel */
	uint64_t bytes;     /* their bytes (L2, no FCS) */
	uint64_t errors;    /* frames refused with a hard error */
	uint64_t retries;   /* ENOBUFS/EAGAIN waits */
};

struct roce_tx_opts {
	const char *ifname;
	enum roce_tx_engine engine;
	unsigned queue;          /* TX queue / thread index */
};

struct roce_tx;
typedef struct roce_tx roce_tx_t;

/* What an engine implements.  priv is the engine's own state. */
struct roce_tx_ops {
	const char *name;
	int (*open)(struct roce_tx *tx, const struct roce_tx_opts *o, char *errbuf);
	int (*send)(struct roce_tx *tx, const struct roce_tx_frame *f, unsigned n);
	/* optional: a place for the next frame of len bytes (roce_tx_slot()) */
	uint8_t *(*slot)(struct roce_tx *tx, uint32_t len);
	int (*flush)(struct roce_tx *tx);
	void (*close)(struct roce_tx *tx);
};

struct roce_tx {
	const struct roce_tx_ops *ops;
	void *priv;
	int ifindex;
	unsigned mtu;           /* interface MTU (L3) */
	unsigned max_frame;     /* largest frame accepted: mtu + 14 + 8 (two tags) */
	struct roce_tx_stats st;
	char note[ROCE_ERRBUF_SIZE];
};

/* Exit-status class of an open failure (both are exit 2 in the tools). */
#define ROCE_TX_E_NODEV  (-40)   /* no such interface */
#define ROCE_TX_E_PERM   (-41)   /* missing CAP_NET_RAW (or CAP_BPF for xdp) */
#define ROCE_TX_E_NOTSUP (-42)   /* engine not built in / not supported here */
#define ROCE_TX_E_IO     (-43)   /* other socket error */

/* "afpacket", "xdp", "auto" -> engine; -1 if unknown. */
int roce_tx_engine_parse(const char *s);
/* Whether the xdp engine was compiled in. */
bool roce_tx_have_xdp(void);

/*
 * Open an engine on an interface.  NULL on failure with a one-line message
 * in errbuf (ROCE_ERRBUF_SIZE) and the class in *status (may be NULL).
 */
roce_tx_t *roce_tx_open(const struct roce_tx_opts *o, char *errbuf, int *status);

/* "afpacket" or "xdp". */
const char *roce_tx_name(const roce_tx_t *tx);
/* Why auto did not take xdp, or "" (for a verbose line). */
const char *roce_tx_note(const roce_tx_t *tx);
/* Largest frame this handle sends (interface MTU + Ethernet header and two tags). */
unsigned roce_tx_max_frame(const roce_tx_t *tx);

/*
 * A place in the engine's memory for the next frame of len bytes, or NULL (the engine
 * has none, as afpacket, or len is out of its range: build the frame elsewhere).  The
 * frame built there must be passed to roce_tx_send() with a len of at most that len,
 * slots in the order they were taken, each once, before roce_tx_flush(); at most
 * ROCE_TX_MAX_BATCH slots may be taken and not yet sent.
 */
uint8_t *roce_tx_slot(roce_tx_t *tx, uint32_t len);
/* Whether the engine offers slots at all (xdp). */
bool roce_tx_has_slots(const roce_tx_t *tx);

/* Send n (<= ROCE_TX_MAX_BATCH) frames; 0, or a negative errno-style fatal error. */
int roce_tx_send(roce_tx_t *tx, const struct roce_tx_frame *f, unsigned n);
int roce_tx_flush(roce_tx_t *tx);
const struct roce_tx_stats *roce_tx_stats(const roce_tx_t *tx);
void roce_tx_close(roce_tx_t *tx);

/* Engine tables (tx_afpacket.c, tx_xdp.c). */
extern const struct roce_tx_ops roce_tx_afpacket_ops;
#ifdef ROCE_HAVE_XDP
extern const struct roce_tx_ops roce_tx_xdp_ops;
#endif

/* ---- pacing ---------------------------------------------------------------- */

/* CLOCK_MONOTONIC in ns. */
uint64_t roce_tx_now_ns(void);

/*
 * Wait until CLOCK_MONOTONIC reaches deadline_ns: sleep (absolute
 * clock_nanosleep) while more than ROCE_TX_SPIN_NS remain, then busy-poll.
 * Returns the time read when the deadline was reached (>= deadline_ns).
 */
#define ROCE_TX_SPIN_NS 100000ull
uint64_t roce_tx_wait_until(uint64_t deadline_ns);

/*
 * Deviation histogram of send time minus deadline: 64 ns buckets up to
 * 1 ms, then power-of-two buckets (1-2 ms, 2-4 ms, ... up to about 9
 * minutes, the last one open); fixed size, no allocation.
 */
#define ROCE_TX_DEV_BUCKET_NS 64u
#define ROCE_TX_DEV_BUCKETS 16384u       /* linear part: 16384 x 64 ns = 1.05 ms */
#define ROCE_TX_DEV_LOG_BUCKETS 20u
struct roce_tx_dev {
	uint64_t n;
	uint64_t max_ns;
	uint64_t sum_ns;
	uint32_t bucket[ROCE_TX_DEV_BUCKETS + ROCE_TX_DEV_LOG_BUCKETS];
};

static inline void roce_tx_dev_add(struct roce_tx_dev *d, uint64_t dev_ns, uint32_t count)
{
	uint64_t b = dev_ns / ROCE_TX_DEV_BUCKET_NS;

	if (b >= ROCE_TX_DEV_BUCKETS) {
		uint64_t q = b / ROCE_TX_DEV_BUCKETS;     /* >= 1 */
		unsigned k = 0;

		while (q >>= 1)
			k++;
		if (k >= ROCE_TX_DEV_LOG_BUCKETS)
			k = ROCE_TX_DEV_LOG_BUCKETS - 1;
		b = ROCE_TX_DEV_BUCKETS + k;
	}
	d->bucket[b] += count;
	d->n += count;
	d->sum_ns += dev_ns * count;
	if (dev_ns > d->max_ns)
		d->max_ns = dev_ns;
}

/* Add b into a. */
void roce_tx_dev_merge(struct roce_tx_dev *a, const struct roce_tx_dev *b);
/* Quantile q (0..1) in ns: the upper bound of its bucket, at most max_ns. */
uint64_t roce_tx_dev_quantile(const struct roce_tx_dev *d, double q);

#ifdef __cplusplus
}
#endif

#endif /* ROCE_TX_H */
