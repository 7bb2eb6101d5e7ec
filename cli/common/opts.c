/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * opts.c - option-parsing helpers shared by the tools (opts.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <roce/build.h>

#include "opts.h"

/*
 * What a value that is not a plain unsigned integer is: a number written otherwise (a sign,
 * a fraction, an exponent, more digits than 64 bits hold) outside min..max is -2, one inside
 * it -3; anything else (NaN too) is not a number, -1.
 */
static int num_kind(const char *s, uint64_t min, uint64_t max)
{
	char *end;
	double d;

	errno = 0;
	d = g_ascii_strtod(s, &end);
	if (end == s || *end || isnan(d))
		return -1;
	/* (double)UINT64_MAX is 2^64: a value that rounds to it is past every maximum */
	if (d < (double)min || d >= 0x1p64 || d > (double)max)
		return -2;
	return -3;
}

int roce_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;
	int base = 10;

	if (!s || !*s || *s == '+' || g_ascii_isspace(*s))
		return -1;
	if (*s == '-')
		return num_kind(s, min, max);
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		/* strtoull would take "0x" alone, or "0x-1", as a number */
		if (!g_ascii_isxdigit(s[2]))
			return -1;
	}
	errno = 0;
	v = strtoull(s, &end, base);
	if (*end)
		return base == 10 ? num_kind(s, min, max) : -1;
	if (errno == ERANGE)
		return -2;      /* digits past 2^64 - 1 */
	if (errno)
		return -1;
	if (v < min || v > max)
		return -2;
	*out = v;
	return 0;
}

int roce_parse_mac(const char *s, uint8_t mac[6])
{
	for (int i = 0; i < 6; i++) {
		unsigned v = 0;
		int digits = 0;

		for (; digits < 2 && g_ascii_isxdigit(*s); digits++, s++)
			v = v * 16 + (unsigned)g_ascii_xdigit_value(*s);
		if (!digits || *s != (i < 5 ? ':' : '\0'))
			return -1;
		mac[i] = (uint8_t)v;
		if (i < 5)
			s++;
	}
	return 0;
}

int roce_parse_ip(const char *s, uint8_t out[16], bool *v6)
{
	struct in_addr a4;
	struct in6_addr a6;

	if (inet_pton(AF_INET, s, &a4) == 1) {
		roce_addr_v4(out, ntohl(a4.s_addr));
		if (v6)
			*v6 = false;
		return 0;
	}
	if (inet_pton(AF_INET6, s, &a6) == 1) {
		memcpy(out, a6.s6_addr, 16);
		if (v6)
			*v6 = true;
		return 0;
	}
	return -1;
}

gboolean roce_opt_u64(const char *opt, const char *val, uint64_t min, uint64_t max,
		      uint64_t *out, GError **err)
{
	int rc = roce_parse_u64(val, min, max, out);

	if (rc == -2)
		g_set_error(err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
			    "%s %s: out of range (%" PRIu64 "..%" PRIu64 ")", opt, val, min, max);
	else if (rc == -3)
		g_set_error(err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
			    "%s '%s': not a whole number in digits (or 0x and hex digits)", opt,
			    val);
	else if (rc)
		g_set_error(err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
			    "%s '%s': not a number", opt, val ? val : "");
	return rc == 0;
}

gboolean roce_opt_double(const char *opt, const char *val, double min, double max,
			 double *out, GError **err)
{
	char *end;
	double v;

	errno = 0;
	v = val ? g_ascii_strtod(val, &end) : 0;
	if (!val || !*val || *end || errno || !(v >= min) || !(v <= max)) {
		g_set_error(err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
			    "%s '%s': expected a number in %g..%g", opt, val ? val : "", min, max);
		return FALSE;
	}
	*out = v;
	return TRUE;
}

gboolean roce_opt_add_file(GPtrArray *files, const char *val, GError **err)
{
	if (!val || !*val) {
		g_set_error(err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "empty file name");
		return FALSE;
	}
	g_ptr_array_add(files, g_strdup(val));
	return TRUE;
}

void roce_usage_error(const char *prog, const char *msg, int status)
{
	fprintf(stderr, "%s: %s\nTry '%s --help' for more information.\n", prog, msg, prog);
	exit(status);
}

void roce_opt_parse_or_exit(GOptionContext *oc, int *argc, char ***argv, const char *prog,
			    int status)
{
	GError *err = NULL;

	if (!g_option_context_parse(oc, argc, argv, &err)) {
		char *msg = g_strdup(err->message);

		g_error_free(err);
		g_option_context_free(oc);
		roce_usage_error(prog, msg, status);
	}
	g_option_context_free(oc);
}
