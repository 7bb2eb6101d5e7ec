/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_opts.c - the option helpers roce-gen and roce-replay share
 * (cli/common/opts.c): number syntax and ranges with their messages, file
 * lists, MAC and IP addresses.  The usage-error exit is tested through the tools (gen_basic.sh,
 * replay_errors.sh).
 */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "opts.h"

static void test_parse_u64(void)
{
	uint64_t v = 7;

	CHECK_EQ_I(roce_parse_u64("0", 0, 10, &v), 0);
	CHECK_EQ_U(v, 0);
	CHECK_EQ_I(roce_parse_u64("4096", 256, 4096, &v), 0);
	CHECK_EQ_U(v, 4096);
	CHECK_EQ_I(roce_parse_u64("0x10", 0, 100, &v), 0);
	CHECK_EQ_U(v, 16);
	CHECK_EQ_I(roce_parse_u64("0XfF", 0, 1000, &v), 0);
	CHECK_EQ_U(v, 255);
	/* decimal even with a leading zero (no octal surprise) */
	CHECK_EQ_I(roce_parse_u64("010", 0, 100, &v), 0);
	CHECK_EQ_U(v, 10);
	CHECK_EQ_I(roce_parse_u64("18446744073709551615", 0, UINT64_MAX, &v), 0);
	CHECK_EQ_U(v, UINT64_MAX);
	v = 7;
	/* numbers out of range: -2, however they are written */
	CHECK_EQ_I(roce_parse_u64("18446744073709551616", 0, UINT64_MAX, &v), -2);
	CHECK_EQ_I(roce_parse_u64("99999999999999999999", 0, UINT64_MAX, &v), -2);
	CHECK_EQ_I(roce_parse_u64("0x10000000000000000", 0, UINT64_MAX, &v), -2);
	CHECK_EQ_I(roce_parse_u64("1e30", 0, UINT64_MAX, &v), -2);
	CHECK_EQ_I(roce_parse_u64("1.8446744073709552e19", 0, UINT64_MAX, &v), -2);
	CHECK_EQ_I(roce_parse_u64("1e308", 0, 10, &v), -2);
	CHECK_EQ_I(roce_parse_u64("1e400", 0, 10, &v), -2);
	CHECK_EQ_I(roce_parse_u64("inf", 0, 10, &v), -2);
	CHECK_EQ_I(roce_parse_u64("4097", 256, 4096, &v), -2);
	CHECK_EQ_I(roce_parse_u64("255", 256, 4096, &v), -2);
	CHECK_EQ_I(roce_parse_u64("-1", 0, UINT64_MAX, &v), -2);
	CHECK_EQ_I(roce_parse_u64("0.5", 1, 10, &v), -2);
	/* numbers in range, not written as unsigned integers: -3 */
	CHECK_EQ_I(roce_parse_u64("1.5", 0, 10, &v), -3);
	CHECK_EQ_I(roce_parse_u64("1e3", 0, 10000, &v), -3);
	/* not numbers: -1 */
	CHECK_EQ_I(roce_parse_u64("", 0, 10, &v), -1);
	CHECK_EQ_I(roce_parse_u64(NULL, 0, 10, &v), -1);
	CHECK_EQ_I(roce_parse_u64("nan", 0, 10, &v), -1);
	CHECK_EQ_I(roce_parse_u64("-", 0, 10, &v), -1);
	CHECK_EQ_I(roce_parse_u64("99999999999999999999x", 0, UINT64_MAX, &v), -1);
	CHECK_EQ_I(roce_parse_u64("+1", 0, 10, &v), -1);
	CHECK_EQ_I(roce_parse_u64(" 1", 0, 10, &v), -1);
	CHECK_EQ_I(roce_parse_u64("1 ", 0, 10, &v), -1);
	CHECK_EQ_I(roce_parse_u64("1k", 0, 10000, &v), -1);
	CHECK_EQ_I(roce_parse_u64("0x", 0, 10, &v), -1);
	CHECK_EQ_I(roce_parse_u64("0x-1", 0, UINT64_MAX, &v), -1);
	CHECK_EQ_I(roce_parse_u64("0x 1", 0, UINT64_MAX, &v), -1);
	CHECK_EQ_U(v, 7);               /* untouched on failure */
}

static void test_opt_u64(void)
{
	GError *err = NULL;
	uint64_t v = 0;

	CHECK(roce_opt_u64("--loop", "3", 0, 10, &v, &err));
	CHECK_EQ_U(v, 3);
	CHECK(err == NULL);
	CHECK(!roce_opt_u64("--loop", "x3", 0, 10, &v, &err));
	CHECK(err != NULL);
	if (err) {
		CHECK_STR(err->message, "--loop 'x3': not a number");
		g_clear_error(&err);
	}
	CHECK(!roce_opt_u64("--vlan", "4095", 0, 4094, &v, &err));
	if (err) {
		CHECK_STR(err->message, "--vlan 4095: out of range (0..4094)");
		g_clear_error(&err);
	}
	CHECK(!roce_opt_u64("--loop", "99999999999999999999", 0, 10, &v, &err));
	if (err) {
		CHECK_STR(err->message, "--loop 99999999999999999999: out of range (0..10)");
		g_clear_error(&err);
	}
	CHECK(!roce_opt_u64("--loop", "2.5", 0, 10, &v, &err));
	if (err) {
		CHECK_STR(err->message,
			  "--loop '2.5': not a whole number in digits (or 0x and hex digits)");
		g_clear_error(&err);
	}
	CHECK_EQ_U(v, 3);
}

static void test_opt_double(void)
{
	GError *err = NULL;
	double d = 0;

	CHECK(roce_opt_double("--gbps", "2.5", 1e-9, 1e4, &d, &err));
	CHECK(d == 2.5);
	CHECK(!roce_opt_double("--gbps", "0", 1e-9, 1e4, &d, &err));
	if (err) {
		CHECK(strstr(err->message, "--gbps '0': expected a number in") != NULL);
		g_clear_error(&err);
	}
	CHECK(!roce_opt_double("--gbps", "nan", 0, 1e4, &d, &err));
	g_clear_error(&err);
	CHECK(!roce_opt_double("--gbps", "1e400", 0, 1e4, &d, &err));
	g_clear_error(&err);
	CHECK(!roce_opt_double("--gbps", "", 0, 1e4, &d, &err));
	g_clear_error(&err);
	CHECK(!roce_opt_double("--gbps", "3x", 0, 1e4, &d, &err));
	g_clear_error(&err);
	CHECK(d == 2.5);
}

static void test_add_file(void)
{
	GPtrArray *a = g_ptr_array_new_with_free_func(g_free);
	GError *err = NULL;

	CHECK(roce_opt_add_file(a, "x.pcap", &err));
	CHECK(roce_opt_add_file(a, "-", &err));
	CHECK(!roce_opt_add_file(a, "", &err));
	if (err) {
		CHECK_STR(err->message, "empty file name");
		g_clear_error(&err);
	}
	CHECK_EQ_U(a->len, 2);
	CHECK_STR(g_ptr_array_index(a, 0), "x.pcap");
	CHECK_STR(g_ptr_array_index(a, 1), "-");
	g_ptr_array_free(a, TRUE);
}

static void test_parse_addr(void)
{
	static const uint8_t mapped[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 7 };
	uint8_t mac[6], ip[16];
	bool v6 = true;

	CHECK_EQ_I(roce_parse_mac("02:00:0A:ff:00:01", mac), 0);
	CHECK_EQ_U(mac[0], 0x02);
	CHECK_EQ_U(mac[2], 0x0a);
	CHECK_EQ_U(mac[3], 0xff);
	CHECK_EQ_U(mac[5], 0x01);
	CHECK_EQ_I(roce_parse_mac("2:0:a:b:c:d", mac), 0);   /* one digit per byte */
	CHECK_EQ_U(mac[5], 0x0d);
	CHECK_EQ_I(roce_parse_mac("02:00:0a:ff:00", mac), -1);
	CHECK_EQ_I(roce_parse_mac("02:00:0a:ff:00:01:", mac), -1);
	CHECK_EQ_I(roce_parse_mac("02:00:0a:ff:00:011", mac), -1);
	CHECK_EQ_I(roce_parse_mac("02:00:0a:ff:00:1g", mac), -1);
	CHECK_EQ_I(roce_parse_mac("02-00-0a-ff-00-01", mac), -1);
	CHECK_EQ_I(roce_parse_mac("", mac), -1);

	CHECK_EQ_I(roce_parse_ip("10.0.0.7", ip, &v6), 0);
	CHECK(!v6);
	CHECK(memcmp(ip, mapped, 16) == 0);
	CHECK_EQ_I(roce_parse_ip("fe80::1", ip, &v6), 0);
	CHECK(v6);
	CHECK_EQ_U(ip[0], 0xfe);
	CHECK_EQ_U(ip[15], 1);
	CHECK_EQ_I(roce_parse_ip("10.0.0.256", ip, NULL), -1);
	CHECK_EQ_I(roce_parse_ip("host", ip, NULL), -1);
}

int main(void)
{
	RUN(test_parse_u64);
	RUN(test_opt_u64);
	RUN(test_opt_double);
	RUN(test_add_file);
	RUN(test_parse_addr);
	return check_report();
}
