/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tx_afpacket.c - portable TX engine: AF_PACKET SOCK_RAW bound with protocol
 * 0 (so the kernel does not clone each sent frame back to our own tap, the
 * cost tcpreplay pays with ETH_P_ALL), PACKET_QDISC_BYPASS, and sendmmsg()
 * of up to ROCE_TX_MAX_BATCH frames per system call.
 *
 * PACKET_TX_RING (TPACKET_V2) was measured against this on a veth pair and
 * was slower (see docs/perf/tools.md); it is not used.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tx.h"

struct afp {
	int fd;
	struct mmsghdr msgs[ROCE_TX_MAX_BATCH];
	struct iovec iov[ROCE_TX_MAX_BATCH];
};

static int afp_open(struct roce_tx *tx, const struct roce_tx_opts *o, char *errbuf)
{
	struct sockaddr_ll sll;
	struct afp *a;
	int one = 1, sndbuf = 4 << 20;

	a = calloc(1, sizeof(*a));
	if (!a) {
		snprintf(errbuf, ROCE_ERRBUF_SIZE, "out of memory");
		return ROCE_E_NOMEM;
	}
	a->fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (a->fd < 0) {
		int e = errno;

		free(a);
		if (e == EPERM || e == EACCES) {
			snprintf(errbuf, ROCE_ERRBUF_SIZE,
				 "%s: cannot open a packet socket: need CAP_NET_RAW (run as root)",
				 o->ifname);
			return ROCE_TX_E_PERM;
		}
		snprintf(errbuf, ROCE_ERRBUF_SIZE, "%s: packet socket: %s", o->ifname, strerror(e));
		return ROCE_TX_E_IO;
	}
	/* best effort: a kernel without it still sends through the qdisc */
	(void)setsockopt(a->fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one));
	if (setsockopt(a->fd, SOL_SOCKET, SO_SNDBUFFORCE, &sndbuf, sizeof(sndbuf)) < 0)
		(void)setsockopt(a->fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_ifindex = tx->ifindex;
	sll.sll_protocol = 0;
	if (bind(a->fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
		snprintf(errbuf, ROCE_ERRBUF_SIZE, "%s: bind: %s", o->ifname, strerror(errno));
		close(a->fd);
		free(a);
		return ROCE_TX_E_IO;
	}
	for (unsigned i = 0; i < ROCE_TX_MAX_BATCH; i++) {
		a->msgs[i].msg_hdr.msg_iov = &a->iov[i];
		a->msgs[i].msg_hdr.msg_iovlen = 1;
	}
	tx->priv = a;
	return ROCE_OK;
}

static int afp_send(struct roce_tx *tx, const struct roce_tx_frame *f, unsigned n)
{
	struct afp *a = tx->priv;
	unsigned done = 0, spins = 0;

	for (unsigned i = 0; i < n; i++) {
		a->iov[i].iov_base = (void *)f[i].data;
		a->iov[i].iov_len = f[i].len;
	}
	while (done < n) {
		int r = sendmmsg(a->fd, a->msgs + done, n - done, 0);

		if (r > 0) {
			for (int i = 0; i < r; i++)
				tx->st.bytes += f[done + (unsigned)i].len;
			tx->st.packets += (unsigned)r;
			done += (unsigned)r;
			spins = 0;
			continue;
		}
		if (r == 0)
			continue;
		switch (errno) {
		case EINTR:
			break;
		case ENOBUFS:
		case EAGAIN:
			/* queue full, or the far end's backlog dropped it: send it again */
			tx->st.retries++;
			if (++spins > 64) {
				struct pollfd p = { .fd = a->fd, .events = POLLOUT };

				(void)poll(&p, 1, 1);
			} else {
				sched_yield();
			}
			break;
		case ENETDOWN:
		case ENXIO:
		case ENODEV:
			return -errno;
		default:
			/* this frame is refused (EMSGSIZE, EINVAL...): count and skip it */
			tx->st.errors++;
			done++;
			break;
		}
	}
	return 0;
}

static int afp_flush(struct roce_tx *tx)
{
	return 0;
}

static void afp_close(struct roce_tx *tx)
{
	struct afp *a = tx->priv;

	if (a) {
		close(a->fd);
		free(a);
	}
	tx->priv = NULL;
}

const struct roce_tx_ops roce_tx_afpacket_ops = {
	.name = "afpacket",
	.open = afp_open,
	.send = afp_send,
	.flush = afp_flush,
	.close = afp_close,
};
