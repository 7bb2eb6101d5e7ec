/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * roce_txtest.c - helper for the TX tests and the TX bench (not installed).
 *
 *   roce_txtest capture IFACE OUT.pcap [IDLE_MS [MAX_S [READY_FILE]]]
 *       TPACKET_V3 receiver: writes every frame arriving on IFACE to a
 *       nanosecond pcap with the kernel's receive timestamps (VLAN tags the
 *       kernel took out are put back), stops IDLE_MS (default 1000) after the
 *       last frame or after MAX_S seconds (default 60) or on SIGTERM/SIGINT,
 *       touches READY_FILE once listening, prints "frames N bytes B drops D"
 *       and "rate seconds S pps P bps B" (as the rate command computes it).
 *   roce_txtest count IFACE [IDLE_MS [MAX_S [READY_FILE]]]
 *       the same, without writing: frames and bytes only (for the bench),
 *       with one ring per CPU it may run on (PACKET_FANOUT_CPU), so that
 *       senders on several CPUs do not contend for one ring's locks; the
 *       rate is fitted over every frame sorted by receive timestamp.
 *   roce_txtest digest FILE
 *       one line per frame: "LEN FNV1A64" (the check that frames arrive
 *       byte-identical).
 *   roce_txtest rate FILE
 *       receive-side rate: "frames N rate seconds S pps P bps B", P and B
 *       the least-squares slopes of arrival time over frame index and over
 *       the L2 bytes before each frame (robust to a stall at either end).
 *   roce_txtest mkframes OUT.pcap N PAYLOAD [GAP_NS [VLAN]]
 *       N RoCE v2 RC WRITE_ONLY frames of PAYLOAD bytes built by
 *       roce_build() (16 QPs, PSNs counting up, valid ICRCs), timestamps
 *       GAP_NS apart (default 1000), optionally tagged with VLAN.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <inttypes.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <roce/build.h>
#include <roce/pkt.h>

#include "capread.h"

static volatile sig_atomic_t stop;

/*
 * Receive rate as the least-squares slope of arrival time over frame index
 * (pps) and over the bytes before each frame (bps): a stall in the middle
 * or at either end moves a few points, not the whole estimate as the
 * first-to-last span would.
 */
struct fit {
	long double n, sx, sy, sxx, sxy, sb, sby, sbb;
	uint64_t t0, bytes_before;
	bool have;
};

static void fit_add(struct fit *f, uint64_t ts, uint32_t len)
{
	long double x, y, b;

	if (!f->have) {
		f->t0 = ts;
		f->have = true;
	}
	x = f->n;
	y = (long double)(ts >= f->t0 ? ts - f->t0 : 0);
	b = (long double)f->bytes_before;
	f->sx += x;
	f->sy += y;
	f->sxx += x * x;
	f->sxy += x * y;
	f->sb += b;
	f->sby += b * y;
	f->sbb += b * b;
	f->n += 1;
	f->bytes_before += len;
}

static void fit_print(const struct fit *f, uint64_t last_ts)
{
	long double dx = f->n * f->sxx - f->sx * f->sx, db = f->n * f->sbb - f->sb * f->sb;
	long double kx = dx > 0 ? (f->n * f->sxy - f->sx * f->sy) / dx : 0;
	long double kb = db > 0 ? (f->n * f->sby - f->sb * f->sy) / db : 0;

	printf("rate seconds %.9f pps %.3f bps %.3f\n",
	       f->have ? (double)(last_ts - f->t0) / 1e9 : 0.0,
	       kx > 0 ? (double)(1e9L / kx) : 0.0, kb > 0 ? (double)(8e9L / kb) : 0.0);
}

static void on_sig(int s)
{
	stop = 1;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* One TPACKET_V3 receive ring. */
struct rxring {
	int fd;
	uint8_t *map;
	unsigned blk;
};

#define RX_BLOCK (1u << 20)
#define RX_BLOCKS 128u
#define RX_MAX_RINGS 16u

/* Open a ring on ifindex; with fanout >= 0, join PACKET_FANOUT group fanout (by CPU). */
static int rxring_open(struct rxring *r, int ifindex, const char *ifname, int fanout)
{
	struct tpacket_req3 req;
	struct sockaddr_ll sll;
	int v = TPACKET_V3;

	r->blk = 0;
	r->fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	if (r->fd < 0) {
		perror("socket");
		return -1;
	}
	if (setsockopt(r->fd, SOL_PACKET, PACKET_VERSION, &v, sizeof(v)) < 0) {
		perror("PACKET_VERSION");
		return -1;
	}
	memset(&req, 0, sizeof(req));
	req.tp_block_size = RX_BLOCK;
	req.tp_block_nr = RX_BLOCKS;
	req.tp_frame_size = 2048;
	req.tp_frame_nr = RX_BLOCK / 2048 * RX_BLOCKS;
	req.tp_retire_blk_tov = 5;
	if (setsockopt(r->fd, SOL_PACKET, PACKET_RX_RING, &req, sizeof(req)) < 0) {
		perror("PACKET_RX_RING");
		return -1;
	}
	r->map = mmap(NULL, (size_t)RX_BLOCK * RX_BLOCKS, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_LOCKED, r->fd, 0);
	if (r->map == MAP_FAILED)
		r->map = mmap(NULL, (size_t)RX_BLOCK * RX_BLOCKS, PROT_READ | PROT_WRITE,
			      MAP_SHARED, r->fd, 0);
	if (r->map == MAP_FAILED) {
		perror("mmap");
		return -1;
	}
	/*
	 * Read every page of the ring once now, before the caller says it is listening: on a
	 * VM the first access to each page costs microseconds (the hypervisor fills its own
	 * page tables: 2-7 us a page measured here), and the 32,768 first accesses of a
	 * 128 MiB ring inside a measured run took the senders' CPU and fell behind the
	 * kernel filling the ring (drops at 1024-byte frames).
	 */
	for (size_t o = 0; o < (size_t)RX_BLOCK * RX_BLOCKS; o += 4096)
		(void)*(volatile uint8_t *)(r->map + o);
	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = htons(ETH_P_ALL);
	sll.sll_ifindex = ifindex;
	if (!ifindex || bind(r->fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
		fprintf(stderr, "%s: cannot bind\n", ifname);
		return -1;
	}
	if (fanout >= 0) {
		int arg = fanout | PACKET_FANOUT_CPU << 16;

		if (setsockopt(r->fd, SOL_PACKET, PACKET_FANOUT, &arg, sizeof(arg)) < 0) {
			perror("PACKET_FANOUT");
			return -1;
		}
	}
	return 0;
}

/* Arrival time and length of one frame (count mode's fit over several rings). */
struct rxrec {
	uint64_t ts;
	uint32_t len;
};

/* Records allocated (and touched) up front: runs of up to 2,097,152 frames (32 MiB). */
#define RX_REC_INITIAL ((size_t)1 << 21)

static int rxrec_cmp(const void *a, const void *b)
{
	const struct rxrec *x = a, *y = b;

	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/*
 * Receive on ifname until idle.  out != NULL: one ring, every frame written to out in
 * arrival order.  out == NULL (count): one ring per CPU this process may run on, joined
 * in a PACKET_FANOUT_CPU group, so that senders on several CPUs (whose softirqs deliver
 * the veth pair's frames on their own CPU) do not all take one ring's lock; the rate fit
 * then runs over every frame sorted by its receive timestamp.
 */
static int capture(const char *ifname, const char *out, long idle_ms, long max_s,
		   const char *ready)
{
	struct rxring ring[RX_MAX_RINGS];
	struct pollfd pfd[RX_MAX_RINGS];
	struct tpacket_stats_v3 st;
	roce_capwriter_t *w = NULL;
	char errbuf[ROCE_ERRBUF_SIZE];
	unsigned nring = 1;
	uint8_t *frame;
	uint64_t frames = 0, bytes = 0, drops = 0, last = 0, t0 = mono_ns(), tsn = 0;
	struct rxrec *rec = NULL;
	size_t nrec = 0, caprec = 0;
	int ifindex = (int)if_nametoindex(ifname);
	struct fit ft;
	uint8_t buf[65536 + 4];

	memset(&ft, 0, sizeof(ft));
	if (!out) {
		cpu_set_t cs;

		if (!sched_getaffinity(0, sizeof(cs), &cs) && CPU_COUNT(&cs) > 1)
			nring = (unsigned)CPU_COUNT(&cs) < RX_MAX_RINGS ?
				(unsigned)CPU_COUNT(&cs) : RX_MAX_RINGS;
	}
	for (unsigned k = 0; k < nring; k++) {
		if (rxring_open(&ring[k], ifindex, ifname,
				nring > 1 ? (int)(getpid() & 0xffff) : -1) < 0)
			return 2;
		pfd[k].fd = ring[k].fd;
		pfd[k].events = POLLIN;
	}
	if (nring > 1) {
		/*
		 * The arrival records, allocated and touched before the ready file, as the
		 * rings are (below): their first touches inside a run cost the counter several
		 * microseconds a page on a VM, CPU time taken from the senders when both
		 * CPUs send (a run of 2,000,000 frames: 7,800 pages).  Longer runs grow it.
		 */
		caprec = RX_REC_INITIAL;
		rec = malloc(caprec * sizeof(*rec));
		if (!rec) {
			fprintf(stderr, "out of memory\n");
			return 2;
		}
		for (size_t o = 0; o < caprec * sizeof(*rec); o += 4096)
			((volatile uint8_t *)rec)[o] = 0;
	}
	if (out) {
		w = roce_capw_open(out, ROCE_LINKTYPE_ETHERNET, 0, 1, errbuf);
		if (!w) {
			fprintf(stderr, "%s\n", errbuf);
			return 2;
		}
	}
	if (ready) {
		FILE *f = fopen(ready, "w");

		if (f)
			fclose(f);
	}
	while (!stop) {
		uint64_t now = mono_ns();
		bool any = false;

		if (now - t0 > (uint64_t)max_s * 1000000000ull)
			break;
		if (frames && now - last > (uint64_t)idle_ms * 1000000ull)
			break;
		for (unsigned k = 0; k < nring; k++) {
			struct rxring *r = &ring[k];
			struct tpacket_block_desc *bd = (void *)(r->map + (size_t)r->blk * RX_BLOCK);

			if (!(bd->hdr.bh1.block_status & TP_STATUS_USER))
				continue;
			any = true;
			frame = (uint8_t *)bd + bd->hdr.bh1.offset_to_first_pkt;
			for (unsigned i = 0; i < bd->hdr.bh1.num_pkts; i++) {
				struct tpacket3_hdr *h = (void *)frame;
				const uint8_t *d = frame + h->tp_mac;
				uint32_t len = h->tp_snaplen;

				if (len > 65536)
					len = 65536;
				if ((h->tp_status & TP_STATUS_VLAN_VALID) && len >= 12) {
					uint16_t tpid = (h->tp_status & TP_STATUS_VLAN_TPID_VALID) ?
						h->hv1.tp_vlan_tpid : 0x8100;

					memcpy(buf, d, 12);
					buf[12] = (uint8_t)(tpid >> 8);
					buf[13] = (uint8_t)tpid;
					buf[14] = (uint8_t)(h->hv1.tp_vlan_tci >> 8);
					buf[15] = (uint8_t)h->hv1.tp_vlan_tci;
					memcpy(buf + 16, d + 12, len - 12);
					d = buf;
					len += 4;
				}
				tsn = (uint64_t)h->tp_sec * 1000000000ull + h->tp_nsec;
				if (nring > 1) {
					if (nrec == caprec) {
						size_t nc = caprec * 2;
						struct rxrec *nr = realloc(rec, nc * sizeof(*rec));

						if (!nr) {
							fprintf(stderr, "out of memory\n");
							return 2;
						}
						rec = nr;
						caprec = nc;
					}
					rec[nrec].ts = tsn;
					rec[nrec++].len = len;
				} else {
					fit_add(&ft, tsn, len);
				}
				if (w && roce_capw_write(w, tsn, d, len, len) != 0) {
					fprintf(stderr, "%s: write failed\n", out);
					return 2;
				}
				frames++;
				bytes += len;
				frame += h->tp_next_offset;
			}
			bd->hdr.bh1.block_status = TP_STATUS_KERNEL;
			r->blk = (r->blk + 1) % RX_BLOCKS;
			last = mono_ns();
		}
		if (!any)
			poll(pfd, nring, 10);
	}
	for (unsigned k = 0; k < nring; k++) {
		socklen_t sl = sizeof(st);

		memset(&st, 0, sizeof(st));
		getsockopt(ring[k].fd, SOL_PACKET, PACKET_STATISTICS, &st, &sl);
		drops += st.tp_drops;
	}
	if (w && roce_capw_close(w) != 0) {
		fprintf(stderr, "%s: close failed\n", out);
		return 2;
	}
	if (nring > 1) {
		qsort(rec, nrec, sizeof(*rec), rxrec_cmp);
		for (size_t i = 0; i < nrec; i++)
			fit_add(&ft, rec[i].ts, rec[i].len);
		tsn = nrec ? rec[nrec - 1].ts : 0;
		free(rec);
	}
	printf("frames %" PRIu64 " bytes %" PRIu64 " drops %" PRIu64 "\n", frames, bytes, drops);
	fit_print(&ft, tsn);
	return 0;
}

static int each_frame(const char *file, int mode)
{
	char errbuf[ROCE_ERRBUF_SIZE];
	roce_capfile_t *c = roce_cap_open(file, errbuf);
	struct roce_cap_record r;
	uint64_t n = 0, tn = 0;
	struct fit ft;
	int rc;

	memset(&ft, 0, sizeof(ft));

	if (!c) {
		fprintf(stderr, "%s\n", errbuf);
		return 2;
	}
	while ((rc = roce_cap_next(c, &r)) == 1) {
		if (mode == 0) {
			uint64_t h = 0xcbf29ce484222325ull;

			for (uint32_t i = 0; i < r.caplen; i++)
				h = (h ^ r.data[i]) * 0x100000001b3ull;
			printf("%u %016" PRIx64 "\n", r.caplen, h);
		} else {
			fit_add(&ft, r.ts_ns, r.caplen);
			tn = r.ts_ns;
		}
		n++;
	}
	if (rc < 0) {
		fprintf(stderr, "%s\n", roce_cap_error(c));
		return 2;
	}
	roce_cap_close(c);
	if (mode == 1) {
		printf("frames %" PRIu64 " ", n);
		fit_print(&ft, tn);
	}
	return 0;
}

static int mkframes(const char *out, unsigned long n, unsigned long payload, unsigned long gap,
		    long vlan)
{
	static uint8_t pl[9000], buf[10000];
	struct roce_frame_spec s;
	char errbuf[ROCE_ERRBUF_SIZE];
	roce_capwriter_t *w;
	uint32_t psn[16] = { 0 };
	size_t len;

	if (payload > 4096) {
		fprintf(stderr, "payload too large\n");
		return 2;
	}
	for (unsigned i = 0; i < sizeof(pl); i++)
		pl[i] = (uint8_t)(i * 13 + 7);
	w = roce_capw_open(out, ROCE_LINKTYPE_ETHERNET, 0, 1, errbuf);
	if (!w) {
		fprintf(stderr, "%s\n", errbuf);
		return 2;
	}
	for (unsigned long i = 0; i < n; i++) {
		unsigned q = (unsigned)(i % 16);

		roce_frame_spec_init(&s);
		memcpy(s.dst_mac, (uint8_t[6]){ 0x02, 0xaa, 0, 0, 0, 2 }, 6);
		memcpy(s.src_mac, (uint8_t[6]){ 0x02, 0xaa, 0, 0, 0, 1 }, 6);
		roce_addr_v4(s.src, 0x0a000001);
		roce_addr_v4(s.dst, 0x0a000002);
		s.tclass = 26 << 2 | 2;
		s.sport = (uint16_t)(0xc000 + q);
		if (vlan >= 0) {
			s.vlan_count = 1;
			s.vlan_id[0] = (uint16_t)vlan;
			s.vlan_pcp[0] = 3;
		}
		s.bth.opcode = ROCE_OP_RC_RDMA_WRITE_ONLY;
		s.bth.dqpn = 0x100 + q;
		s.bth.psn = psn[q]++;
		s.bth.ackreq = (psn[q] % 8) == 0;
		s.reth.va = 0x10000 + i * payload;
		s.reth.rkey = 0x1234;
		s.reth.dma_len = (uint32_t)payload;
		pl[0] = (uint8_t)i;
		pl[1] = (uint8_t)(i >> 8);
		pl[2] = (uint8_t)(i >> 16);
		s.payload = pl;
		s.payload_len = (uint32_t)payload;
		if (roce_build(&s, buf, sizeof(buf), &len) != ROCE_OK ||
		    roce_capw_write(w, 1700000000ull * 1000000000ull + i * gap, buf, (uint32_t)len,
				    (uint32_t)len) != 0) {
			fprintf(stderr, "%s: cannot build or write frame %lu\n", out, i + 1);
			return 2;
		}
	}
	return roce_capw_close(w) ? 2 : 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sig;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (argc >= 4 && !strcmp(argv[1], "capture"))
		return capture(argv[2], argv[3], argc > 4 ? atol(argv[4]) : 1000,
			       argc > 5 ? atol(argv[5]) : 60, argc > 6 ? argv[6] : NULL);
	if (argc >= 3 && !strcmp(argv[1], "count"))
		return capture(argv[2], NULL, argc > 3 ? atol(argv[3]) : 1000,
			       argc > 4 ? atol(argv[4]) : 60, argc > 5 ? argv[5] : NULL);
	if (argc == 3 && !strcmp(argv[1], "digest"))
		return each_frame(argv[2], 0);
	if (argc == 3 && !strcmp(argv[1], "rate"))
		return each_frame(argv[2], 1);
	if (argc >= 5 && !strcmp(argv[1], "mkframes"))
		return mkframes(argv[2], strtoul(argv[3], NULL, 10), strtoul(argv[4], NULL, 10),
				argc > 5 ? strtoul(argv[5], NULL, 10) : 1000,
				argc > 6 ? atol(argv[6]) : -1);
	fprintf(stderr, "usage: roce_txtest capture|count|digest|rate|mkframes ...\n");
	return 2;
}
