/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * capread_z.h - zstd and lz4 input for the capture reader's stream source
 * (capread_z.c): detection by magic, the decompressor state, decompression
 * into the reader's output buffer.  gzip stays in capread_src.c.
 */
#ifndef ROCE_CAPREAD_Z_H
#define ROCE_CAPREAD_Z_H

#include "capread_int.h"

enum cap_z_kind { CAP_Z_NONE, CAP_Z_GZIP, CAP_Z_ZSTD, CAP_Z_LZ4 };

/* The compression the first n bytes at p start with (by magic, as Wireshark 4.0 tells). */
enum cap_z_kind capr_z_magic(const uint8_t *p, size_t n);

/* The name of a compression kind ("gzip", "zstd", "lz4"; NULL for none). */
const char *capr_z_name(enum cap_z_kind k);

/* The format name's suffix of an open file: "+gzip", "+zstd", "+lz4" or "". */
const char *capr_z_suffix(const struct roce_capfile *c);

/*
 * A zstd or lz4 stream, its first bytes in c->in: set up c->z.  false (with
 * c->src_status and c->src_err set) when it cannot be.
 */
bool capr_z_start(struct roce_capfile *c, enum cap_z_kind k);

/*
 * Up to want decompressed bytes into dst; short at the end of the input or on
 * an error (c->src_status, c->src_err), after every byte that decompressed
 * before it.
 */
size_t capr_z_read(struct roce_capfile *c, uint8_t *dst, size_t want);

/* Free c->z (NULL is fine). */
void capr_z_free(struct roce_capfile *c);

#endif /* ROCE_CAPREAD_Z_H */
