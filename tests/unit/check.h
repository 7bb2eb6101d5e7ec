/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check.h - minimal table-friendly unit test harness.
 *
 * Each test program defines test functions, lists them in main() with
 * RUN(fn), and returns check_report(): it prints "N passed, N failed" and
 * exits non-zero on any failure.  CHECK* record a failure with file:line
 * and continue; REQUIRE* also return from the current test function.
 */
#ifndef ROCE_TEST_CHECK_H
#define ROCE_TEST_CHECK_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int check_failed_ = 0, check_passed_ = 0, check_cur_failed_ = 0;

#define CHECK(cond) do { if (!(cond)) { \
	fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
	check_cur_failed_ = 1; } } while (0)

#define REQUIRE(cond) do { if (!(cond)) { \
	fprintf(stderr, "%s:%d: REQUIRE failed: %s\n", __FILE__, __LINE__, #cond); \
	check_cur_failed_ = 1; return; } } while (0)

#define CHECK_EQ_U(a, b) do { uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b); if (a_ != b_) { \
	fprintf(stderr, "%s:%d: CHECK_EQ failed: %s == %s (%" PRIu64 " vs %" PRIu64 ", 0x%" PRIx64 " vs 0x%" PRIx64 ")\n", \
		__FILE__, __LINE__, #a, #b, a_, b_, a_, b_); check_cur_failed_ = 1; } } while (0)

#define CHECK_EQ_I(a, b) do { long long a_ = (long long)(a), b_ = (long long)(b); if (a_ != b_) { \
	fprintf(stderr, "%s:%d: CHECK_EQ failed: %s == %s (%lld vs %lld)\n", \
		__FILE__, __LINE__, #a, #b, a_, b_); check_cur_failed_ = 1; } } while (0)

#define CHECK_STR(a, b) do { const char *a_ = (a), *b_ = (b); \
	if (!a_ || !b_ || strcmp(a_, b_) != 0) { \
	fprintf(stderr, "%s:%d: CHECK_STR failed: %s == %s (\"%s\" vs \"%s\")\n", \
		__FILE__, __LINE__, #a, #b, a_ ? a_ : "(null)", b_ ? b_ : "(null)"); \
	check_cur_failed_ = 1; } } while (0)

#define RUN(fn) do { check_cur_failed_ = 0; fn(); \
	if (check_cur_failed_) { check_failed_++; fprintf(stderr, "FAIL %s\n", #fn); } \
	else { check_passed_++; } } while (0)

static inline int check_report(void)
{
	printf("%d passed, %d failed\n", check_passed_, check_failed_);
	return check_failed_ ? 1 : 0;
}

/* Parse a hex string into buf; returns the byte count. */
static inline size_t check_hex(const char *hex, unsigned char *buf, size_t cap)
{
	size_t n = 0;
	while (hex[0] && hex[1] && n < cap) {
		unsigned v;
		if (sscanf(hex, "%2x", &v) != 1)
			break;
		buf[n++] = (unsigned char)v;
		hex += 2;
	}
	return n;
}

#endif /* ROCE_TEST_CHECK_H */
