/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_tx.c - TX engine pieces that need no interface: engine names, the
 * open errors for a missing interface (exit-2 class), the pacing clock and
 * the deadline-deviation histogram's quantiles.  Sending is tested by
 * tests/cli/replay_*.sh on a private veth pair.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "tx.h"

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

int main(void)
{
	RUN(test_engine_names);
	RUN(test_open_errors);
	RUN(test_wait_until);
	RUN(test_dev_quantiles);
	return check_report();
}
