/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * opts.h - option-parsing helpers shared by the tools' GOptionEntry
 * callbacks and their scenario/config parsers: numbers with a range and a
 * one-line reason, input file lists, and the usage-error exit that every
 * tool prints the same way ("PROG: MSG" + "Try 'PROG --help' ...").
 */
#ifndef ROCE_OPTS_H
#define ROCE_OPTS_H

#include <stdbool.h>
#include <stdint.h>

#include <glib.h>

/*
 * Unsigned integer in decimal, or hexadecimal with a 0x prefix, within
 * min..max; no sign, no leading blank, nothing after it: 0.  Otherwise
 * *out is untouched and the value is -1 not a number, -2 a number outside
 * min..max (also past 2^64 - 1, negative, or written as 1e30), -3 a number
 * within min..max not written as such an integer (1.5, 1e3).
 */
int roce_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/*
 * roce_parse_u64() for an option's value: FALSE with "OPT VAL: out of range
 * (MIN..MAX)", "OPT 'VAL': not a whole number in digits (...)" or "OPT
 * 'VAL': not a number" in err.
 */
gboolean roce_opt_u64(const char *opt, const char *val, uint64_t min, uint64_t max,
		      uint64_t *out, GError **err);

/*
 * A MAC address "aa:bb:cc:dd:ee:ff" (one or two hex digits per byte, ':'
 * between them, nothing after): 0, or -1.
 */
int roce_parse_mac(const char *s, uint8_t mac[6]);

/*
 * An IPv4 address "a.b.c.d" (stored as ::ffff:a.b.c.d, the analyzer's form)
 * or an IPv6 address; *v6 (if v6 is not NULL) tells which.  0, or -1.
 */
int roce_parse_ip(const char *s, uint8_t out[16], bool *v6);

/* A finite number within min..max (C locale): FALSE with a reason in err. */
gboolean roce_opt_double(const char *opt, const char *val, double min, double max,
			 double *out, GError **err);

/* Append a non-empty file name (a copy) to files; FALSE for an empty one. */
gboolean roce_opt_add_file(GPtrArray *files, const char *val, GError **err);

/* "PROG: MSG" and the --help hint on stderr, then exit(status). */
G_GNUC_NORETURN void roce_usage_error(const char *prog, const char *msg, int status);

/*
 * g_option_context_parse(), then free oc; a parse error is a usage error
 * (roce_usage_error(prog, message, status)).
 */
void roce_opt_parse_or_exit(GOptionContext *oc, int *argc, char ***argv, const char *prog,
			    int status);

#endif /* ROCE_OPTS_H */
