/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_tx.c - TX engine pieces that need no interface: engine names, the
 * open errors for a missing interface (exit-2 class), the pacing clock and
 * the deadline-deviation histogram's quantiles, the xdp engine's UMEM ring
 * (tx_umem.h).  Sending is tested by
 * tests/cli/replay_*.sh on a private veth pair.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "tx.h"
#include "tx_umem.h"

static void test_engine_names(void)
{
	CHECK_EQ_I(roce_tx_engine_parse("auto"), ROCE_TX_AUTO);
	CHECK_EQ_I(roce_tx_engine_parse("afpacket"), ROCE_TX_AFPACKET);
	CHECK_EQ_I(roce_tx_engine_parse("xdp"), ROCE_TX_XDP);
	CHECK_EQ_I(roce_tx_engine_parse("dpdk"), -1);
	CHECK_EQ_I(roce_tx_engine_parse(""), -1);
	CHECK_EQ_I(roce_tx_engine_parse(NULL), -1);
}

static void test_open_errors(void)
{
	char eb[ROCE_ERRBUF_SIZE];
	struct roce_tx_opts o = { .ifname = "no-such-if0", .engine = ROCE_TX_AFPACKET };
	int st = 0;

	CHECK(roce_tx_open(&o, eb, &st) == NULL);
	CHECK_EQ_I(st, ROCE_TX_E_NODEV);
	CHECK_STR(eb, "no-such-if0: no such interface");
	o.ifname = "";
	CHECK(roce_tx_open(&o, eb, &st) == NULL);
	CHECK_EQ_I(st, ROCE_TX_E_NODEV);
	o.ifname = "a-name-far-too-long-for-linux";
	CHECK(roce_tx_open(&o, eb, &st) == NULL);
	CHECK_EQ_I(st, ROCE_TX_E_NODEV);
	CHECK(strstr(eb, "not an interface name") != NULL);
}

static void test_wait_until(void)
{
	uint64_t t = roce_tx_now_ns(), d = t + 300000, got;

	got = roce_tx_wait_until(d);       /* sleeps, then spins */
	CHECK(got >= d);
	got = roce_tx_wait_until(t);       /* already past: returns now */
	CHECK(got >= d);
}

static void test_dev_quantiles(void)
{
	struct roce_tx_dev *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));

	REQUIRE(a && b);
	CHECK_EQ_U(roce_tx_dev_quantile(a, 0.99), 0);
	for (int i = 0; i < 98; i++)
		roce_tx_dev_add(a, 100, 1);        /* bucket 64..128 */
	roce_tx_dev_add(a, 5000, 1);
	roce_tx_dev_add(a, 3000000, 1);       /* 3 ms: log bucket 2..4 ms */
	CHECK_EQ_U(a->n, 100);
	CHECK_EQ_U(a->max_ns, 3000000);
	CHECK_EQ_U(roce_tx_dev_quantile(a, 0.5), 128);
	CHECK_EQ_U(roce_tx_dev_quantile(a, 0.98), 5056);
	CHECK_EQ_U(roce_tx_dev_quantile(a, 1.0), 3000000);
	/* a run that is always behind: quantiles stay apart, not all "max" */
	for (int i = 0; i < 50; i++)
		roce_tx_dev_add(b, 1500000, 1);    /* 1-2 ms */
	for (int i = 0; i < 50; i++)
		roce_tx_dev_add(b, 900000000, 1);  /* 0.9 s */
	CHECK_EQ_U(roce_tx_dev_quantile(b, 0.25), 2097152);
	CHECK_EQ_U(roce_tx_dev_quantile(b, 0.99), 900000000);
	/* beyond the last bucket: counted, reported as max */
	roce_tx_dev_add(b, 3600ull * 1000000000ull, 1);
	CHECK_EQ_U(roce_tx_dev_quantile(b, 1.0), 3600ull * 1000000000ull);
	roce_tx_dev_merge(a, b);
	CHECK_EQ_U(a->n, 201);
	CHECK_EQ_U(a->max_ns, 3600ull * 1000000000ull);
	free(a);
	free(b);
}

/* Frames packed 64-byte aligned, never across a page, back to the start when all are back. */
static void test_umem_pack(void)
{
	static const uint32_t first5[] = { 0, 1152, 2304, 4096, 8192 };
	static struct roce_umem_ring r;

	roce_umem_init(&r, 4 * ROCE_UMEM_PAGE, 64);
	CHECK_EQ_U(roce_umem_room(&r), 2);      /* 16 KiB at 8 KiB worst per frame */
	CHECK_EQ_U(roce_umem_take(&r, 138), 0);
	CHECK_EQ_U(roce_umem_take(&r, 138), 192);
	CHECK_EQ_U(roce_umem_take(&r, 1), 384);
	CHECK_EQ_U(roce_umem_outstanding(&r), 3);
	/* 1098-byte frames: three to a page, the fourth on the next page */
	roce_umem_init(&r, 4 * ROCE_UMEM_PAGE, 64);
	CHECK_EQ_U(roce_umem_take(&r, 1098), 0);
	CHECK_EQ_U(roce_umem_take(&r, 1098), 1152);
	CHECK_EQ_U(roce_umem_take(&r, 1098), 2304);
	CHECK_EQ_U(roce_umem_take(&r, 1098), 4096);
	CHECK_EQ_U(roce_umem_take(&r, 3840), 8192);
	CHECK_EQ_U(roce_umem_take(&r, 64), 12032);
	for (uint32_t a = 0; a < 5; a++)
		CHECK_EQ_I(roce_umem_give(&r, first5[a]), 1);
	roce_umem_retire(&r);
	CHECK_EQ_U(roce_umem_outstanding(&r), 1);
	CHECK_EQ_U(roce_umem_take(&r, 64), 12096);      /* one still out: no restart */
	CHECK_EQ_I(roce_umem_give(&r, 12032), 1);
	CHECK_EQ_I(roce_umem_give(&r, 12096), 1);
	CHECK_EQ_I(roce_umem_give(&r, 12096), 0);       /* not outstanding any more */
	roce_umem_retire(&r);
	CHECK_EQ_U(roce_umem_outstanding(&r), 0);
	CHECK_EQ_U(roce_umem_take(&r, 100), 0);         /* all back: the start again */
	/* aligned chunks: every frame on its own chunk */
	roce_umem_init(&r, 4 * ROCE_UMEM_PAGE, ROCE_UMEM_PAGE);
	CHECK_EQ_U(roce_umem_take(&r, 138), 0);
	CHECK_EQ_U(roce_umem_take(&r, 138), 4096);
	CHECK_EQ_U(roce_umem_take(&r, 4096), 8192);
}

/* Given back out of order: the tail waits for the oldest; no overlap across the wrap. */
static void test_umem_order(void)
{
	static struct roce_umem_ring r;
	uint32_t a[3];

	roce_umem_init(&r, 4 * ROCE_UMEM_PAGE, 64);
	for (int i = 0; i < 3; i++)
		a[i] = roce_umem_take(&r, 2000);        /* 2048 each: two to a page */
	CHECK_EQ_U(a[2], 4096);
	CHECK_EQ_I(roce_umem_give(&r, a[1]), 1);
	CHECK_EQ_I(roce_umem_give(&r, a[2]), 1);
	roce_umem_retire(&r);
	CHECK_EQ_U(roce_umem_outstanding(&r), 3);       /* a[0] holds the tail */
	CHECK_EQ_U(r.tail, 0);
	CHECK_EQ_I(roce_umem_give(&r, 999), 0);         /* unknown address: ignored */
	CHECK_EQ_I(roce_umem_give(&r, a[0]), 1);
	roce_umem_retire(&r);
	CHECK_EQ_U(roce_umem_outstanding(&r), 0);
	CHECK_EQ_U(r.head, 0);

	/* A long run with up to 7 frames out, given back in a shuffled order: every
	 * frame inside the UMEM, within one page, never on bytes still out. */
	{
		static uint8_t owner[4 * ROCE_UMEM_PAGE];
		uint32_t out_addr[8], out_len[8];
		unsigned nout = 0, seed = 12345, wrapped = 0;

		roce_umem_init(&r, 4 * ROCE_UMEM_PAGE, 64);
		memset(owner, 0, sizeof(owner));
		for (unsigned step = 0; step < 20000; step++) {
			seed = seed * 1103515245u + 12345u;
			if (nout < 7 && roce_umem_room(&r) && (seed >> 16) % 3) {
				uint32_t len = 1 + (seed >> 8) % 3840, ad = roce_umem_take(&r, len);

				CHECK(ad + len <= 4 * ROCE_UMEM_PAGE);
				CHECK_EQ_U(ad / ROCE_UMEM_PAGE, (ad + len - 1) / ROCE_UMEM_PAGE);
				CHECK_EQ_U(ad % 64, 0);
				for (uint32_t b = 0; b < len; b++)
					CHECK(!owner[ad + b]);
				memset(owner + ad, 1, len);
				out_addr[nout] = ad;
				out_len[nout++] = len;
				if (r.head > 4 * ROCE_UMEM_PAGE)
					wrapped = 1;
			} else if (nout) {
				unsigned k = (seed >> 4) % nout;

				CHECK_EQ_I(roce_umem_give(&r, out_addr[k]), 1);
				memset(owner + out_addr[k], 0, out_len[k]);
				out_addr[k] = out_addr[nout - 1];
				out_len[k] = out_len[--nout];
				roce_umem_retire(&r);
			}
		}
		CHECK(wrapped);
	}
}

int main(void)
{
	RUN(test_engine_names);
	RUN(test_open_errors);
	RUN(test_wait_until);
	RUN(test_dev_quantiles);
	RUN(test_umem_pack);
	RUN(test_umem_order);
	return check_report();
}
