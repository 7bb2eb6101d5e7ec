// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * json.c - a small streaming JSON writer (see json.h).
 */
#include "json.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

void jw_init(struct jw *w, FILE *f, bool pretty)
{
	memset(w, 0, sizeof(*w));
	w->f = f;
	w->pretty = pretty;
}

void jw_end(struct jw *w)
{
	fputc('\n', w->f);
}

/* Length of a valid UTF-8 sequence at s (1..4), 0 if invalid. */
static size_t utf8_seq_len(const unsigned char *s)
{
	unsigned char c = s[0];
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n, i;

	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

void json_write_string(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	const unsigned char *run = s;

	fputc('"', f);
	while (*s) {
		unsigned char c = *s;
		const char *esc = NULL;
		char ubuf[8];
		size_t n;

		if (c >= 0x20 && c != '"' && c != '\\' && c < 0x80) {
			s++;
			continue;
		}
		if (c >= 0x80) {
			n = utf8_seq_len(s);
			if (n) {
				s += n;
				continue;
			}
			esc = "\\ufffd";
		} else {
			switch (c) {
			case '"': esc = "\\\""; break;
			case '\\': esc = "\\\\"; break;
			case '\n': esc = "\\n"; break;
			case '\r': esc = "\\r"; break;
			case '\t': esc = "\\t"; break;
			case '\b': esc = "\\b"; break;
			case '\f': esc = "\\f"; break;
			default:
				snprintf(ubuf, sizeof(ubuf), "\\u%04x", c);
				esc = ubuf;
				break;
			}
		}
		fwrite(run, 1, (size_t)(s - run), f);
		fputs(esc, f);
		s++;
		run = s;
	}
	fwrite(run, 1, (size_t)(s - run), f);
	fputc('"', f);
}

static void newline_indent(struct jw *w)
{
	int i;

	fputc('\n', w->f);
	for (i = 0; i < w->depth; i++)
		fputs("  ", w->f);
}

/* Comma, indentation and "key": before a value. */
static void jw_prefix(struct jw *w, const char *key)
{
	if (w->depth > 0) {
		if (w->need_comma[w->depth])
			fputc(',', w->f);
		if (w->pretty)
			newline_indent(w);
		w->need_comma[w->depth] = true;
	}
	if (key) {
		json_write_string(w->f, key);
		fputs(w->pretty ? ": " : ":", w->f);
	}
}

static void jw_open(struct jw *w, const char *key, char c)
{
	jw_prefix(w, key);
	fputc(c, w->f);
	if (w->depth < JW_MAX_DEPTH - 1)
		w->depth++;
	w->need_comma[w->depth] = false;
}

static void jw_close(struct jw *w, char c)
{
	bool empty = !w->need_comma[w->depth];

	if (w->depth > 0)
		w->depth--;
	if (w->pretty && !empty)
		newline_indent(w);
	fputc(c, w->f);
}

void jw_obj_begin(struct jw *w, const char *key) { jw_open(w, key, '{'); }
void jw_obj_end(struct jw *w) { jw_close(w, '}'); }
void jw_arr_begin(struct jw *w, const char *key) { jw_open(w, key, '['); }
void jw_arr_end(struct jw *w) { jw_close(w, ']'); }

void jw_str(struct jw *w, const char *key, const char *val)
{
	jw_prefix(w, key);
	if (val)
		json_write_string(w->f, val);
	else
		fputs("null", w->f);
}

void jw_u64(struct jw *w, const char *key, uint64_t val)
{
	jw_prefix(w, key);
	fprintf(w->f, "%" PRIu64, val);
}

void jw_i64(struct jw *w, const char *key, int64_t val)
{
	jw_prefix(w, key);
	fprintf(w->f, "%" PRId64, val);
}

void jw_bool(struct jw *w, const char *key, bool val)
{
	jw_prefix(w, key);
	fputs(val ? "true" : "false", w->f);
}

void jw_null(struct jw *w, const char *key)
{
	jw_prefix(w, key);
	fputs("null", w->f);
}

void jw_double(struct jw *w, const char *key, double val, int precision)
{
	char buf[64];

	jw_prefix(w, key);
	if (!isfinite(val)) {
		fputs("null", w->f);
		return;
	}
	snprintf(buf, sizeof(buf), "%.*g", precision, val);
	/* %g may print "1e+06": valid JSON.  Never prints a bare "." or "inf". */
	fputs(buf, w->f);
}

static const uint64_t pow10_tab[] = {
	1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000
};

static void put_fixed(FILE *f, uint64_t val, unsigned decimals)
{
	uint64_t p;

	if (decimals > 9)
		decimals = 9;
	if (!decimals) {
		fprintf(f, "%" PRIu64, val);
		return;
	}
	p = pow10_tab[decimals];
	fprintf(f, "%" PRIu64 ".%0*" PRIu64, val / p, (int)decimals, val % p);
}

void jw_fixed(struct jw *w, const char *key, uint64_t val, unsigned decimals)
{
	jw_prefix(w, key);
	put_fixed(w->f, val, decimals);
}

void jw_sfixed(struct jw *w, const char *key, int64_t val, unsigned decimals)
{
	jw_prefix(w, key);
	if (val < 0) {
		fputc('-', w->f);
		put_fixed(w->f, (uint64_t)0 - (uint64_t)val, decimals);
	} else {
		put_fixed(w->f, (uint64_t)val, decimals);
	}
}
