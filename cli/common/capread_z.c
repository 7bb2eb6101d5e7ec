/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * capread_z.c - zstd- and lz4-compressed captures, streamed like gzip ones
 * (capread_src.c): read() into the reader's input buffer, decompressed with
 * the libraries (ZSTD_decompressStream(), LZ4F_decompress()) into its output
 * buffer, from which the record parsers take their bytes.  Declared in
 * capread_z.h.
 *
 * What Wireshark 4.0 reads (libwiretap links libzstd and liblz4): a file that
 * starts with the zstd frame magic (28 b5 2f fd) or the lz4 frame magic
 * (04 22 4d 18), whatever its name.  Frames may follow one another, with
 * skippable frames (magic 184d2a5x) between them; the decompressed frames are
 * one capture.  One compression per file: after a frame, the next one must be
 * of the same kind or skippable (as tshark says for zstd: "Unknown frame
 * descriptor").  Checksums are verified when the frame has them (zstd's
 * content checksum; lz4's content and block checksums).
 *
 * Every byte that decompressed before a problem is handed out before the
 * problem shows, so that every capture frame before the damage is analysed.
 * A call of either library that fails returns none of the bytes it
 * decompressed, so each call is given no more input than one step needs: the
 * library's own hint for its next input (a block, a block header, a
 * checksum), less the next block's header that the hint includes (the header
 * of a damaged block then fails a call of its own, after the block before it
 * came out).  A content checksum is checked at the end of its frame, after
 * that frame's bytes were handed out, as a gzip trailer is.
 *
 * Memory is bounded: lz4 blocks are at most 4 MiB (the format's largest
 * block size), and a zstd frame whose window is larger than ZSTD_WINDOW_LOG_MAX
 * (128 MiB, libzstd's default limit, which tshark keeps) is refused with a
 * message that says so, before anything is allocated for it.
 */
#define _GNU_SOURCE
#define ZSTD_STATIC_LINKING_ONLY        /* ZSTD_getFrameHeader(): the window a frame claims */
#include "capread_z.h"
#include "capread_in.h"

#include <inttypes.h>
#include <lz4frame.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#include <zstd_errors.h>

#define ZSTD_WINDOW_LOG_MAX 27                  /* 128 MiB */
#define ZSTD_MAGIC 0xfd2fb528u                  /* bytes 28 b5 2f fd */
#define LZ4_MAGIC 0x184d2204u                   /* bytes 04 22 4d 18 */
#define SKIPPABLE_MASK 0xfffffff0u
#define SKIPPABLE_MAGIC 0x184d2a50u             /* zstd and lz4 alike: 184d2a50..5f */
#define ZSTD_FIRST_IN 5                         /* a frame header's first bytes (the prefix) */
#define LZ4_FIRST_IN LZ4F_HEADER_SIZE_MIN
#define ZSTD_BLOCK_HEADER 3                     /* what a library's hint adds for the next */
#define LZ4_BLOCK_HEADER 4                      /* block's header */

struct cap_z {
	enum cap_z_kind kind;
	ZSTD_DCtx *zd;
	LZ4F_dctx *ld;
	uint64_t frame;         /* compressed frames begun (skippable ones too): 1-based */
	bool in_frame;          /* between the first byte of frame `frame` and its end */
	size_t hint;            /* input the next call is given at most */
};

enum cap_z_kind capr_z_magic(const uint8_t *p, size_t n)
{
	if (n >= 2 && p[0] == 0x1f && p[1] == 0x8b)
		return CAP_Z_GZIP;
	if (n < 4)
		return CAP_Z_NONE;
	if (ld32(p, false) == ZSTD_MAGIC)
		return CAP_Z_ZSTD;
	if (ld32(p, false) == LZ4_MAGIC)
		return CAP_Z_LZ4;
	return CAP_Z_NONE;
}

const char *capr_z_name(enum cap_z_kind k)
{
	switch (k) {
	case CAP_Z_GZIP:
		return "gzip";
	case CAP_Z_ZSTD:
		return "zstd";
	case CAP_Z_LZ4:
		return "lz4";
	default:
		return NULL;
	}
}

const char *capr_z_suffix(const struct roce_capfile *c)
{
	if (c->gzip)
		return "+gzip";
	if (c->z)
		return c->z->kind == CAP_Z_ZSTD ? "+zstd" : "+lz4";
	return "";
}

static void z_error(struct roce_capfile *c, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void z_error(struct roce_capfile *c, int status, const char *fmt, ...)
{
	va_list ap;

	c->src_status = status;
	va_start(ap, fmt);
	vsnprintf(c->src_err, sizeof(c->src_err), fmt, ap);
	va_end(ap);
}

bool capr_z_start(struct roce_capfile *c, enum cap_z_kind k)
{
	struct cap_z *z = calloc(1, sizeof(*z));
	const char *name = capr_z_name(k);

	c->z = z;
	if (z) {
		z->kind = k;
		c->zout = malloc(GZ_BUFFER);
	}
	if (z && c->zout && k == CAP_Z_ZSTD) {
		z->zd = ZSTD_createDCtx();
		if (z->zd && ZSTD_isError(ZSTD_DCtx_setParameter(z->zd, ZSTD_d_windowLogMax,
								 ZSTD_WINDOW_LOG_MAX)))
			name = NULL;
		else if (z->zd)
			return true;
	} else if (z && c->zout && k == CAP_Z_LZ4) {
		if (!LZ4F_isError(LZ4F_createDecompressionContext(&z->ld, LZ4F_VERSION)))
			return true;
		z->ld = NULL;
	}
	if (name)
		z_error(c, ROCE_E_NOMEM, "%s: out of memory", name);
	else
		z_error(c, ROCE_E_UNSUPPORTED, "zstd: cannot set the window limit");
	return false;
}

void capr_z_free(struct roce_capfile *c)
{
	if (!c->z)
		return;
	ZSTD_freeDCtx(c->z->zd);
	if (c->z->ld)
		LZ4F_freeDecompressionContext(c->z->ld);
	free(c->z);
	c->z = NULL;
}

/* At least n bytes in c->in from c->in_pos, unless the input ends first (or fails). */
static size_t z_have(struct roce_capfile *c, size_t n)
{
	while (c->in_len - c->in_pos < n && capr_in_fill(c) > 0)
		;
	return c->in_len - c->in_pos;
}

/*
 * Between frames, with input left: the next frame begins.  false when it cannot
 * (the input ends inside its magic, or it is not a frame of this kind: the
 * error set).
 */
static bool z_frame_begin(struct roce_capfile *c, struct cap_z *z)
{
	const char *name = capr_z_name(z->kind);
	size_t n = z_have(c, 4);
	uint32_t m;

	z->frame++;
	if (c->src_status)
		return false;
	if (n < 4) {
		z_error(c, ROCE_E_TRUNC, "%s frame %" PRIu64 ": compressed data ends early", name,
			z->frame);
		return false;
	}
	m = ld32(c->in + c->in_pos, false);
	if ((m & SKIPPABLE_MASK) != SKIPPABLE_MAGIC &&
	    m != (z->kind == CAP_Z_ZSTD ? ZSTD_MAGIC : LZ4_MAGIC)) {
		z_error(c, ROCE_E_MALFORMED,
			"after %s frame %" PRIu64 ": not a %s frame (magic 0x%08" PRIx32 ")",
			name, z->frame - 1, name, m);
		return false;
	}
	if (z->kind == CAP_Z_ZSTD && m == ZSTD_MAGIC) {
		/* the window it claims: refused here, with its size, before libzstd allocates it */
		ZSTD_frameHeader fh;
		size_t r;

		n = z_have(c, ZSTD_FRAMEHEADERSIZE_MAX);
		r = ZSTD_getFrameHeader(&fh, c->in + c->in_pos, n);
		if (c->src_status)
			return false;
		if (r == 0 && fh.windowSize > (1ull << ZSTD_WINDOW_LOG_MAX)) {
			z_error(c, ROCE_E_UNSUPPORTED,
				"zstd frame %" PRIu64 ": window of %llu MiB exceeds the limit of "
				"%u MiB (as Wireshark's)", z->frame,
				(unsigned long long)((fh.windowSize + (1u << 20) - 1) >> 20),
				1u << (ZSTD_WINDOW_LOG_MAX - 20));
			return false;
		}
	}
	z->in_frame = true;
	z->hint = z->kind == CAP_Z_ZSTD ? ZSTD_FIRST_IN : LZ4_FIRST_IN;
	return true;
}

static void zstd_fail(struct roce_capfile *c, struct cap_z *z, size_t ret)
{
	switch (ZSTD_getErrorCode(ret)) {
	case ZSTD_error_checksum_wrong:
		z_error(c, ROCE_E_MALFORMED,
			"zstd frame %" PRIu64 ": checksum does not match the data", z->frame);
		break;
	case ZSTD_error_memory_allocation:
		z_error(c, ROCE_E_NOMEM, "zstd: out of memory");
		break;
	case ZSTD_error_frameParameter_windowTooLarge:
		z_error(c, ROCE_E_UNSUPPORTED,
			"zstd frame %" PRIu64 ": window exceeds the limit of %u MiB (as Wireshark's)",
			z->frame, 1u << (ZSTD_WINDOW_LOG_MAX - 20));
		break;
	default:
		z_error(c, ROCE_E_MALFORMED, "zstd frame %" PRIu64 ": %s", z->frame,
			ZSTD_getErrorName(ret));
		break;
	}
}

static void lz4_fail(struct roce_capfile *c, struct cap_z *z, size_t ret)
{
	static const struct {
		const char *code, *text;
	} known[] = {
		{ "contentChecksum_invalid", "content checksum does not match the data" },
		{ "blockChecksum_invalid", "block checksum does not match the data" },
		{ "headerChecksum_invalid", "frame header checksum does not match" },
		{ "frameSize_wrong", "content size does not match the frame header" },
		{ "decompressionFailed", "corrupt block" },
	};
	const char *e = LZ4F_getErrorName(ret);

	if (!strncmp(e, "ERROR_", 6))
		e += 6;
	if (!strcmp(e, "allocation_failed")) {
		z_error(c, ROCE_E_NOMEM, "lz4: out of memory");
		return;
	}
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(e, known[i].code)) {
			e = known[i].text;
			break;
		}
	z_error(c, ROCE_E_MALFORMED, "lz4 frame %" PRIu64 ": %s", z->frame, e);
}

/*
 * One decompressor call on at most z->hint bytes of input: *in_used and
 * *out_made set; false on an error (set).  At the end of a frame z->in_frame
 * is cleared.
 */
static bool z_step(struct roce_capfile *c, struct cap_z *z, uint8_t *dst, size_t room,
		   size_t *in_used, size_t *out_made)
{
	size_t avail = c->in_len - c->in_pos, give = avail < z->hint ? avail : z->hint, ret;

	if (z->kind == CAP_Z_ZSTD) {
		ZSTD_inBuffer in = { c->in + c->in_pos, give, 0 };
		ZSTD_outBuffer out = { dst, room, 0 };

		ret = ZSTD_decompressStream(z->zd, &out, &in);
		if (ZSTD_isError(ret)) {
			zstd_fail(c, z, ret);
			return false;
		}
		*in_used = in.pos;
		*out_made = out.pos;
	} else {
		size_t src = give, out = room;

		ret = LZ4F_decompress(z->ld, dst, &out, c->in + c->in_pos, &src, NULL);
		if (LZ4F_isError(ret)) {
			lz4_fail(c, z, ret);
			return false;
		}
		*in_used = src;
		*out_made = out;
	}
	c->in_pos += *in_used;
	if (ret == 0) {
		z->in_frame = false;    /* the frame ended (and its checksum matched) */
	} else {
		size_t bh = z->kind == CAP_Z_ZSTD ? ZSTD_BLOCK_HEADER : LZ4_BLOCK_HEADER;

		z->hint = ret > bh ? ret - bh : ret;
	}
	return true;
}

size_t capr_z_read(struct roce_capfile *c, uint8_t *dst, size_t want)
{
	struct cap_z *z = c->z;
	size_t got = 0;

	while (got < want && !c->src_status) {
		size_t used, made;

		if (!z->in_frame) {
			/* between frames: the end of the input is a clean end */
			if (c->in_pos == c->in_len && capr_in_fill(c) <= 0)
				break;
			if (!z_frame_begin(c, z))
				break;
		}
		if (!z_step(c, z, dst + got, want - got, &used, &made))
			break;
		got += made;
		if (used || made || !z->in_frame)
			continue;
		/* the decompressor needs more input than it was given */
		if (c->in_len - c->in_pos > z->hint) {
			z->hint = SIZE_MAX;     /* (it was given too little) */
			continue;
		}
		if (c->in_pos == 0 && c->in_len == GZ_BUFFER) {
			z_error(c, ROCE_E_MALFORMED, "%s frame %" PRIu64 ": decompressor stalled",
				capr_z_name(z->kind), z->frame);
			break;
		}
		if (capr_in_fill(c) == 0)
			z_error(c, ROCE_E_TRUNC, "%s frame %" PRIu64 ": compressed data ends early",
				capr_z_name(z->kind), z->frame);
	}
	return got;
}
