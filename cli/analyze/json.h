/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * json.h - a small streaming JSON writer for roce-analyze.
 *
 * Writes straight to a FILE, pretty-printed (2-space indent) or compact (one
 * line, for JSON Lines).  Keys are ASCII literals chosen by the caller;
 * string values are escaped per RFC 8259 and always valid UTF-8 (invalid
 * bytes become U+FFFD).  Fixed-point helpers print integer quantities
 * (nanoseconds, ...) as decimal numbers without going through floating
 * point, so output is exact and locale-independent.
 */
#ifndef ROCE_ANALYZE_JSON_H
#define ROCE_ANALYZE_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JW_MAX_DEPTH 16
/* Output is assembled here and handed to stdio in large writes. */
#define JW_BUF_SIZE 65536

struct jw {
	FILE *f;
	bool pretty;
	bool html;      /* also escape < > & U+2028 U+2029 (JSON inside an HTML <script>) */
	int depth;
	bool need_comma[JW_MAX_DEPTH];
	size_t len;
	uint64_t flushes;
	int frag_depth;         /* jw_frag_begin(): the layout being rendered */
	bool frag_comma;
	uint64_t frag_flushes;
	char buf[JW_BUF_SIZE];
};

void jw_init(struct jw *w, FILE *f, bool pretty);
/* After jw_init: string values safe inside an HTML <script> element (as \u003c ...). */
void jw_html_safe(struct jw *w);
/* Ends the document: a newline after the top-level value; flushes to f. */
void jw_end(struct jw *w);
/* Hands what is buffered to f (jw_end does it too). */
void jw_flush(struct jw *w);

/*
 * key == NULL inside arrays (and for the top-level value).  Keys are written
 * as given, not escaped: pass names (ASCII, no '"' or '\\'), never data.
 */
void jw_obj_begin(struct jw *w, const char *key);
void jw_obj_end(struct jw *w);
void jw_arr_begin(struct jw *w, const char *key);
void jw_arr_end(struct jw *w);

void jw_str(struct jw *w, const char *key, const char *val);  /* NULL -> null */
void jw_u64(struct jw *w, const char *key, uint64_t val);
void jw_i64(struct jw *w, const char *key, int64_t val);
void jw_bool(struct jw *w, const char *key, bool val);
void jw_null(struct jw *w, const char *key);
/* Finite doubles with %.*g-like precision; NaN/Inf -> null. */
void jw_double(struct jw *w, const char *key, double val, int precision);
/* val / 10^decimals as an exact decimal number, e.g. (12345, 3) -> 12.345. */
void jw_fixed(struct jw *w, const char *key, uint64_t val, unsigned decimals);
void jw_sfixed(struct jw *w, const char *key, int64_t val, unsigned decimals);

/*
 * Whole arrays of numbers (key as above): v[0], v[stride], ... (n values);
 * jw_i64s_or_null() writes null for element i unless lo[i] <= hi[i] (with
 * lo NULL: unless v[i] >= 0).  The same text as one call per element.
 */
void jw_u64s(struct jw *w, const char *key, const uint64_t *v, size_t n, size_t stride);
void jw_u32s(struct jw *w, const char *key, const uint32_t *v, size_t n);
void jw_i64s_or_null(struct jw *w, const char *key, const int64_t *v, size_t n,
		     const int64_t *lo, const int64_t *hi);

/*
 * A constant member (an all-zero or all-null sub-object that every row
 * repeats): rendered once by the ordinary calls, then copied as text for
 * the same layout (depth, pretty, comma before it).
 *
 *     if (!jw_frag_put(w, &fr)) {
 *             size_t at = jw_frag_begin(w);
 *             ... jw_obj_begin(w, key) ... jw_obj_end(w);
 *             jw_frag_end(w, &fr, at);
 *     }
 *
 * fr starts zeroed (static); a fragment longer than JW_FRAG_MAX is never kept.
 */
#define JW_FRAG_MAX 384
struct jw_frag {
	bool valid, pretty, comma, html;
	int depth;
	size_t len;
	char text[JW_FRAG_MAX];
};
/* true: fr held the member for this layout and it is written. */
bool jw_frag_put(struct jw *w, const struct jw_frag *fr);
/* Room for a whole fragment; returns where it starts. */
size_t jw_frag_begin(struct jw *w);
void jw_frag_end(struct jw *w, struct jw_frag *fr, size_t start);

/* Write s as a JSON string literal (with quotes) to f. */
void json_write_string(FILE *f, const char *s);

#endif /* ROCE_ANALYZE_JSON_H */
