/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tx.c - TX engine selection, interface checks, pacing clock and the
 * deadline-deviation histogram (engines: tx_afpacket.c, tx_xdp.c).
 */
#define _GNU_SOURCE

#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "tx.h"

int roce_tx_engine_parse(const char *s)
{
	if (!s)
		return -1;
	if (!strcmp(s, "auto"))
		return ROCE_TX_AUTO;
	if (!strcmp(s, "afpacket") || !strcmp(s, "af_packet"))
		return ROCE_TX_AFPACKET;
	if (!strcmp(s, "xdp") || !strcmp(s, "af_xdp"))
		return ROCE_TX_XDP;
	return -1;
}

bool roce_tx_have_xdp(void)
{
#ifdef ROCE_HAVE_XDP
	return true;
#else
	return false;
#endif
}

/* Interface index, MTU and up state, without privileges. */
static int tx_ifinfo(struct roce_tx *tx, const char *ifname, char *errbuf)
{
	struct ifreq ifr;
	int fd;

	if (!ifname || !*ifname || strlen(ifname) >= IFNAMSIZ) {
		snprintf(errbuf, ROCE_ERRBUF_SIZE, "%s: not an interface name",
			 ifname ? ifname : "");
		return ROCE_TX_E_NODEV;
	}
	tx->ifindex = (int)if_nametoindex(ifname);
	if (!tx->ifindex) {
		snprintf(errbuf, ROCE_ERRBUF_SIZE, "%s: no such interface", ifname);
		return ROCE_TX_E_NODEV;
	}
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(errbuf, ROCE_ERRBUF_SIZE, "%s: socket: %s", ifname, strerror(errno));
		return ROCE_TX_E_IO;
	}
	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, ifname, strlen(ifname));
	if (ioctl(fd, SIOCGIFMTU, &ifr) < 0) {
		snprintf(errbuf, ROCE_ERRBUF_SIZE, "%s: cannot read the MTU: %s", ifname,
			 strerror(errno));
		close(fd);
		return ROCE_TX_E_NODEV;
	}
	tx->mtu = (unsigned)ifr.ifr_mtu;
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0 || !(ifr.ifr_flags & IFF_UP)) {
		snprintf(errbuf, ROCE_ERRBUF_SIZE, "%s: interface is down", ifname);
		close(fd);
		return ROCE_TX_E_NODEV;
	}
	close(fd);
	/* Ethernet header + up to two VLAN tags on top of the L3 MTU, as NICs accept */
	tx->max_frame = tx->mtu + 14 + 8;
	return ROCE_OK;
}

static int tx_try(struct roce_tx *tx, const struct roce_tx_ops *ops, const struct roce_tx_opts *o,
		  char *errbuf)
{
	tx->ops = ops;
	return ops->open(tx, o, errbuf);
}

roce_tx_t *roce_tx_open(const struct roce_tx_opts *o, char *errbuf, int *status)
{
	char eb[ROCE_ERRBUF_SIZE], tmp[ROCE_ERRBUF_SIZE];
	struct roce_tx *tx;
	int rc;

	if (!errbuf)
		errbuf = eb;
	errbuf[0] = 0;
	tx = calloc(1, sizeof(*tx));
	if (!tx) {
		snprintf(errbuf, ROCE_ERRBUF_SIZE, "out of memory");
		if (status)
			*status = ROCE_E_NOMEM;
		return NULL;
	}
	rc = tx_ifinfo(tx, o->ifname, errbuf);
	if (rc != ROCE_OK)
		goto fail;
	switch (o->engine) {
	case ROCE_TX_XDP:
#ifdef ROCE_HAVE_XDP
		rc = tx_try(tx, &roce_tx_xdp_ops, o, tmp);
		if (rc != ROCE_OK)
			snprintf(errbuf, ROCE_ERRBUF_SIZE, "%.200s (try --engine afpacket)", tmp);
#else
		snprintf(errbuf, ROCE_ERRBUF_SIZE,
			 "AF_XDP unavailable: built without libxdp (try --engine afpacket)");
		rc = ROCE_TX_E_NOTSUP;
#endif
		break;
	case ROCE_TX_AFPACKET:
		rc = tx_try(tx, &roce_tx_afpacket_ops, o, errbuf);
		break;
	default:
#ifdef ROCE_HAVE_XDP
		rc = tx_try(tx, &roce_tx_xdp_ops, o, tmp);
		if (rc == ROCE_OK)
			break;
		snprintf(tx->note, sizeof(tx->note), "%.200s; using afpacket", tmp);
#else
		snprintf(tx->note, sizeof(tx->note),
			 "AF_XDP unavailable: built without libxdp; using afpacket");
#endif
		rc = tx_try(tx, &roce_tx_afpacket_ops, o, errbuf);
		break;
	}
	if (rc != ROCE_OK)
		goto fail;
	if (status)
		*status = ROCE_OK;
	return tx;
fail:
	if (status)
		*status = rc;
	free(tx);
	return NULL;
}

const char *roce_tx_name(const roce_tx_t *tx)
{
	return tx->ops->name;
}

const char *roce_tx_note(const roce_tx_t *tx)
{
	return tx->note;
}

unsigned roce_tx_max_frame(const roce_tx_t *tx)
{
	return tx->max_frame;
}

int roce_tx_send(roce_tx_t *tx, const struct roce_tx_frame *f, unsigned n)
{
	if (!n)
		return 0;
	return tx->ops->send(tx, f, n > ROCE_TX_MAX_BATCH ? ROCE_TX_MAX_BATCH : n);
}

uint8_t *roce_tx_slot(roce_tx_t *tx, uint32_t len)
{
	return tx->ops->slot ? tx->ops->slot(tx, len) : NULL;
}

bool roce_tx_has_slots(const roce_tx_t *tx)
{
	return tx->ops->slot != NULL;
}

int roce_tx_flush(roce_tx_t *tx)
{
	return tx->ops->flush(tx);
}

const struct roce_tx_stats *roce_tx_stats(const roce_tx_t *tx)
{
	return &tx->st;
}

void roce_tx_close(roce_tx_t *tx)
{
	if (!tx)
		return;
	tx->ops->close(tx);
	free(tx);
}

/* ---- pacing ---------------------------------------------------------------- */

uint64_t roce_tx_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t roce_tx_wait_until(uint64_t deadline_ns)
{
	uint64_t now = roce_tx_now_ns();

	while (now < deadline_ns) {
		if (deadline_ns - now > ROCE_TX_SPIN_NS) {
			/* wake up early enough that the timer slack stays inside the spin */
			uint64_t t = deadline_ns - ROCE_TX_SPIN_NS;
			struct timespec ts = {
				.tv_sec = (time_t)(t / 1000000000ull),
				.tv_nsec = (long)(t % 1000000000ull),
			};

			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		} else {
#if defined(__x86_64__) || defined(__i386__)
			__builtin_ia32_pause();
#endif
		}
		now = roce_tx_now_ns();
	}
	return now;
}

void roce_tx_dev_merge(struct roce_tx_dev *a, const struct roce_tx_dev *b)
{
	for (unsigned i = 0; i < ROCE_TX_DEV_BUCKETS + ROCE_TX_DEV_LOG_BUCKETS; i++)
		a->bucket[i] += b->bucket[i];
	a->n += b->n;
	a->sum_ns += b->sum_ns;
	if (b->max_ns > a->max_ns)
		a->max_ns = b->max_ns;
}

uint64_t roce_tx_dev_quantile(const struct roce_tx_dev *d, double q)
{
	uint64_t want, acc = 0;

	if (!d->n)
		return 0;
	want = (uint64_t)(q * (double)d->n);
	if (want >= d->n)
		want = d->n - 1;
	for (unsigned i = 0; i < ROCE_TX_DEV_BUCKETS + ROCE_TX_DEV_LOG_BUCKETS; i++) {
		acc += d->bucket[i];
		if (acc > want) {
			uint64_t hi;

			if (i < ROCE_TX_DEV_BUCKETS)
				hi = (uint64_t)(i + 1) * ROCE_TX_DEV_BUCKET_NS;
			else if (i + 1 < ROCE_TX_DEV_BUCKETS + ROCE_TX_DEV_LOG_BUCKETS)
				hi = (uint64_t)ROCE_TX_DEV_BUCKETS * ROCE_TX_DEV_BUCKET_NS
					<< (i - ROCE_TX_DEV_BUCKETS + 1);
			else
				hi = d->max_ns;
			return hi < d->max_ns ? hi : d->max_ns;
		}
	}
	return d->max_ns;
}
