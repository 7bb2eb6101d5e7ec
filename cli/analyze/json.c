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
	/* The buffer itself needs no clearing: len says what is valid. */
	w->f = f;
	w->pretty = pretty;
	w->html = false;
	w->depth = 0;
	memset(w->need_comma, 0, sizeof(w->need_comma));
	w->len = 0;
	w->flushes = 0;
}

void jw_html_safe(struct jw *w)
{
	w->html = true;
}

void jw_flush(struct jw *w)
{
	if (w->len)
		fwrite(w->buf, 1, w->len, w->f);
	w->len = 0;
	w->flushes++;
}

/* Room for n more bytes (n <= JW_BUF_SIZE). */
static inline char *jw_reserve(struct jw *w, size_t n)
{
	if (w->len + n > JW_BUF_SIZE)
		jw_flush(w);
	return w->buf + w->len;
}

static inline void jw_putc(struct jw *w, char c)
{
	*jw_reserve(w, 1) = c;
	w->len++;
}

static void jw_write_slow(struct jw *w, const char *s, size_t n)
{
	while (n) {
		size_t room, k;

		if (w->len == JW_BUF_SIZE)
			jw_flush(w);
		room = JW_BUF_SIZE - w->len;
		k = n < room ? n : room;
		memcpy(w->buf + w->len, s, k);
		w->len += k;
		s += k;
		n -= k;
	}
}

static inline void jw_write(struct jw *w, const char *s, size_t n)
{
	if (w->len + n <= JW_BUF_SIZE) {
		memcpy(w->buf + w->len, s, n);
		w->len += n;
	} else {
		jw_write_slow(w, s, n);
	}
}

static inline void jw_puts(struct jw *w, const char *s)
{
	jw_write(w, s, strlen(s));
}

void jw_end(struct jw *w)
{
	jw_putc(w, '\n');
	jw_flush(w);
}

/* Decimal digits of v, right-aligned ending at end; returns the first digit. */
static inline char *fmt_u64(char *end, uint64_t v)
{
	char *p = end;

	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return p;
}

static inline unsigned u64_digits(uint64_t v)
{
	unsigned n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

/* v in decimal, written in place (no temporary, no memcpy call). */
static inline void jw_put_u64(struct jw *w, uint64_t v)
{
	unsigned n = u64_digits(v);
	char *p = jw_reserve(w, 20);

	fmt_u64(p + n, v);
	w->len += n;
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

static void jw_string(struct jw *w, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	const unsigned char *run = s;

	jw_putc(w, '"');
	while (*s) {
		unsigned char c = *s;
		const char *esc = NULL;
		char ubuf[8];
		size_t n;

		if (c >= 0x20 && c != '"' && c != '\\' && c < 0x80 &&
		    !(w->html && (c == '<' || c == '>' || c == '&'))) {
			s++;
			continue;
		}
		if (c >= 0x80) {
			n = utf8_seq_len(s);
			if (n == 3 && w->html && c == 0xe2 && s[1] == 0x80 &&
			    (s[2] == 0xa8 || s[2] == 0xa9)) {
				/* U+2028 / U+2029: line terminators in older JavaScript */
				esc = s[2] == 0xa8 ? "\\u2028" : "\\u2029";
				jw_write(w, (const char *)run, (size_t)(s - run));
				jw_puts(w, esc);
				s += 3;
				run = s;
				continue;
			}
			if (n) {
				s += n;
				continue;
			}
			esc = "\\ufffd";
		} else {
			switch (c) {
			case '<': esc = "\\u003c"; break;
			case '>': esc = "\\u003e"; break;
			case '&': esc = "\\u0026"; break;
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
		jw_write(w, (const char *)run, (size_t)(s - run));
		jw_puts(w, esc);
		s++;
		run = s;
	}
	jw_write(w, (const char *)run, (size_t)(s - run));
	jw_putc(w, '"');
}

void json_write_string(FILE *f, const char *str)
{
	struct jw w;

	jw_init(&w, f, false);
	jw_string(&w, str);
	jw_flush(&w);
}

static bool frag_fits(const struct jw *w, const struct jw_frag *fr)
{
	bool comma = w->depth > 0 && w->need_comma[w->depth];

	return fr->valid && fr->depth == w->depth && fr->pretty == w->pretty &&
		fr->html == w->html && fr->comma == comma;
}

bool jw_frag_put(struct jw *w, const struct jw_frag *fr)
{
	if (!frag_fits(w, fr))
		return false;
	jw_write(w, fr->text, fr->len);
	if (w->depth > 0)
		w->need_comma[w->depth] = true;         /* as jw_prefix() leaves it */
	return true;
}

size_t jw_frag_begin(struct jw *w)
{
	if (w->len + JW_FRAG_MAX + 256 > JW_BUF_SIZE)
		jw_flush(w);
	/* the layout the fragment is rendered for */
	w->frag_comma = w->depth > 0 && w->need_comma[w->depth];
	w->frag_depth = w->depth;
	w->frag_flushes = w->flushes;
	return w->len;
}

void jw_frag_end(struct jw *w, struct jw_frag *fr, size_t start)
{
	size_t n = w->len - start;

	if (w->flushes != w->frag_flushes || n > JW_FRAG_MAX || w->depth != w->frag_depth)
		return;         /* (too long: written, not kept) */
	memcpy(fr->text, w->buf + start, n);
	fr->len = n;
	fr->depth = w->frag_depth;
	fr->comma = w->frag_comma;
	fr->pretty = w->pretty;
	fr->html = w->html;
	fr->valid = true;
}

static const char jw_spaces[2 * JW_MAX_DEPTH + 1] =
	"                                ";

static void newline_indent(struct jw *w)
{
	size_t n = 2 * (size_t)w->depth;
	char *p = jw_reserve(w, 1 + sizeof(jw_spaces));

	p[0] = '\n';
	memcpy(p + 1, jw_spaces, sizeof(jw_spaces));   /* (fixed size: two stores) */
	w->len += 1 + n;
}

/*
 * Comma, indentation and "key": before a value, in one reservation.  Keys
 * are written as given, never escaped: every caller passes a name from the
 * program or from libroce's tables (ASCII identifiers, json.h).
 */
#define JW_KEY_INLINE 64

static void jw_prefix(struct jw *w, const char *key)
{
	size_t d = 2 * (size_t)w->depth;
	char *p = jw_reserve(w, 2 + sizeof(jw_spaces) + JW_KEY_INLINE + 4);

	if (w->depth > 0) {
		if (w->need_comma[w->depth])
			*p++ = ',';
		if (w->pretty) {
			*p++ = '\n';
			memcpy(p, jw_spaces, sizeof(jw_spaces));   /* (fixed size: two stores) */
			p += d;
		}
		w->need_comma[w->depth] = true;
	}
	if (key) {
		size_t n = strlen(key);

		*p++ = '"';
		if (n <= JW_KEY_INLINE) {
			memcpy(p, key, n);
			p += n;
		} else {        /* a longer key: the rest in pieces */
			w->len = (size_t)(p - w->buf);
			jw_write(w, key, n);
			p = jw_reserve(w, 4);
		}
		*p++ = '"';
		*p++ = ':';
		if (w->pretty)
			*p++ = ' ';
	}
	w->len = (size_t)(p - w->buf);
}

static void jw_open(struct jw *w, const char *key, char c)
{
	jw_prefix(w, key);
	jw_putc(w, c);
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
	jw_putc(w, c);
}

void jw_obj_begin(struct jw *w, const char *key) { jw_open(w, key, '{'); }
void jw_obj_end(struct jw *w) { jw_close(w, '}'); }
void jw_arr_begin(struct jw *w, const char *key) { jw_open(w, key, '['); }
void jw_arr_end(struct jw *w) { jw_close(w, ']'); }

void jw_str(struct jw *w, const char *key, const char *val)
{
	jw_prefix(w, key);
	if (val)
		jw_string(w, val);
	else
		jw_write(w, "null", 4);
}

void jw_u64(struct jw *w, const char *key, uint64_t val)
{
	jw_prefix(w, key);
	jw_put_u64(w, val);
}

void jw_i64(struct jw *w, const char *key, int64_t val)
{
	jw_prefix(w, key);
	if (val < 0) {
		jw_putc(w, '-');
		jw_put_u64(w, (uint64_t)0 - (uint64_t)val);
	} else {
		jw_put_u64(w, (uint64_t)val);
	}
}

void jw_bool(struct jw *w, const char *key, bool val)
{
	jw_prefix(w, key);
	jw_puts(w, val ? "true" : "false");
}

void jw_null(struct jw *w, const char *key)
{
	jw_prefix(w, key);
	jw_write(w, "null", 4);
}

void jw_double(struct jw *w, const char *key, double val, int precision)
{
	char buf[64];

	jw_prefix(w, key);
	if (!isfinite(val)) {
		jw_write(w, "null", 4);
		return;
	}
	snprintf(buf, sizeof(buf), "%.*g", precision, val);
	/* %g may print "1e+06": valid JSON.  Never prints a bare "." or "inf". */
	jw_puts(w, buf);
}

static const uint64_t pow10_tab[] = {
	1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000
};

static void put_fixed(struct jw *w, uint64_t val, unsigned decimals)
{
	uint64_t ip, frac;
	unsigned n;
	char *p;

	if (decimals > 9)
		decimals = 9;
	if (!decimals) {
		jw_put_u64(w, val);
		return;
	}
	ip = val / pow10_tab[decimals];
	frac = val % pow10_tab[decimals];
	n = u64_digits(ip);
	/* "ip.frac" in place: at most 20 + 1 + 9 bytes */
	p = jw_reserve(w, 32);
	fmt_u64(p + n, ip);
	p += n;
	*p = '.';
	for (unsigned i = decimals; i > 0; i--) {
		p[i] = (char)('0' + frac % 10);
		frac /= 10;
	}
	w->len += n + 1 + decimals;
}

void jw_fixed(struct jw *w, const char *key, uint64_t val, unsigned decimals)
{
	jw_prefix(w, key);
	put_fixed(w, val, decimals);
}

void jw_sfixed(struct jw *w, const char *key, int64_t val, unsigned decimals)
{
	jw_prefix(w, key);
	if (val < 0) {
		jw_putc(w, '-');
		put_fixed(w, (uint64_t)0 - (uint64_t)val, decimals);
	} else {
		put_fixed(w, (uint64_t)val, decimals);
	}
}

/* ---- whole arrays of numbers ----------------------------------------------- */

static const char dig2[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* v in decimal at p, two digits a step; returns the end. */
static inline char *put_u64_at(char *p, uint64_t v)
{
	char *e, *q;

	if (v < 10) {
		*p = (char)('0' + v);
		return p + 1;
	}
	e = p + u64_digits(v);
	q = e;
	while (v >= 100) {
		uint64_t d = v / 100;
		unsigned r = (unsigned)(v - d * 100);

		q -= 2;
		q[0] = dig2[2 * r];
		q[1] = dig2[2 * r + 1];
		v = d;
	}
	if (v >= 10) {
		q[-2] = dig2[2 * v];
		q[-1] = dig2[2 * v + 1];
	} else {
		q[-1] = (char)('0' + v);
	}
	return e;
}

/*
 * The arrays below write, in compact mode, exactly what jw_arr_begin(),
 * one jw_u64() / jw_i64() / jw_null() per element and jw_arr_end() write,
 * with one reservation per element instead of a prefix call; pretty output
 * goes through those calls.
 */
static inline char *jw_elem(struct jw *w, size_t i)
{
	char *p = jw_reserve(w, 22);

	if (i)
		*p++ = ',';
	return p;
}

static void jw_elems_done(struct jw *w, size_t n)
{
	if (n)
		w->need_comma[w->depth] = true;
	jw_arr_end(w);
}

void jw_u64s(struct jw *w, const char *key, const uint64_t *v, size_t n, size_t stride)
{
	jw_arr_begin(w, key);
	if (w->pretty) {
		for (size_t i = 0; i < n; i++)
			jw_u64(w, NULL, v[i * stride]);
		jw_arr_end(w);
		return;
	}
	for (size_t i = 0; i < n; i++)
		w->len = (size_t)(put_u64_at(jw_elem(w, i), v[i * stride]) - w->buf);
	jw_elems_done(w, n);
}

void jw_u32s(struct jw *w, const char *key, const uint32_t *v, size_t n)
{
	jw_arr_begin(w, key);
	if (w->pretty) {
		for (size_t i = 0; i < n; i++)
			jw_u64(w, NULL, v[i]);
		jw_arr_end(w);
		return;
	}
	for (size_t i = 0; i < n; i++)
		w->len = (size_t)(put_u64_at(jw_elem(w, i), v[i]) - w->buf);
	jw_elems_done(w, n);
}

static inline bool i64_shown(const int64_t *v, const int64_t *lo, const int64_t *hi, size_t i)
{
	return lo ? lo[i] <= hi[i] : v[i] >= 0;
}

void jw_i64s_or_null(struct jw *w, const char *key, const int64_t *v, size_t n,
		     const int64_t *lo, const int64_t *hi)
{
	jw_arr_begin(w, key);
	if (w->pretty) {
		for (size_t i = 0; i < n; i++) {
			if (i64_shown(v, lo, hi, i))
				jw_i64(w, NULL, v[i]);
			else
				jw_null(w, NULL);
		}
		jw_arr_end(w);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		char *p = jw_elem(w, i);

		if (!i64_shown(v, lo, hi, i)) {
			memcpy(p, "null", 4);
			p += 4;
		} else if (v[i] < 0) {
			*p++ = '-';
			p = put_u64_at(p, (uint64_t)0 - (uint64_t)v[i]);
		} else {
			p = put_u64_at(p, (uint64_t)v[i]);
		}
		w->len = (size_t)(p - w->buf);
	}
	jw_elems_done(w, n);
}
