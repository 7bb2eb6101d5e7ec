/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * buf.h - bounded, alignment-free big-endian extraction (and the stores of both
 * byte orders).
 *
 * Every read of packet bytes in libroce goes through a span check first
 * (ROCE_SPAN_OK) and then through these byte-shifting getters.  Fields are
 * never read through casts to wire structs: BTH sits at offset 42 of an
 * IPv4 frame, so 4-byte fields there are unaligned.
 *
 * ROCE_SPAN_OK is written overflow-safe (tcpdump ND_TTEST_LEN style):
 * it never forms a pointer or offset past the end of the buffer.
 */
#ifndef ROCE_BUF_H
#define ROCE_BUF_H

#include <stddef.h>
#include <stdint.h>

/* True when [off, off + n) lies inside a buffer of len bytes. */
#define ROCE_SPAN_OK(len, off, n) \
	((size_t)(n) <= (size_t)(len) && (size_t)(off) <= (size_t)(len) - (size_t)(n))

static inline uint16_t roce_get_be16(const uint8_t *p)
{
	return (uint16_t)((uint16_t)p[0] << 8 | p[1]);
}

static inline uint32_t roce_get_be24(const uint8_t *p)
{
	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

static inline uint32_t roce_get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* always inlined where the compiler knows how: an LTO build called it (RETH, AtomicETH) */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline uint64_t roce_get_be64(const uint8_t *p)
{
	return (uint64_t)roce_get_be32(p) << 32 | roce_get_be32(p + 4);
}

static inline uint32_t roce_get_le32(const uint8_t *p)
{
	return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

/*
 * Big-endian stores.  With GCC / Clang on a little-endian host: a byte swap
 * and one word store (__builtin_memcpy: no alignment assumed), the same bytes
 * as the byte-by-byte form below, which long functions (the frame builder)
 * defeat the compiler's store merging for.
 */
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
static inline void roce_put_be16(uint8_t *p, uint16_t v)
{
	v = __builtin_bswap16(v);
	__builtin_memcpy(p, &v, 2);
}

static inline void roce_put_be32(uint8_t *p, uint32_t v)
{
	v = __builtin_bswap32(v);
	__builtin_memcpy(p, &v, 4);
}

static inline void roce_put_be64(uint8_t *p, uint64_t v)
{
	v = __builtin_bswap64(v);
	__builtin_memcpy(p, &v, 8);
}
#else
static inline void roce_put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void roce_put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static inline void roce_put_be64(uint8_t *p, uint64_t v)
{
	roce_put_be32(p, (uint32_t)(v >> 32));
	roce_put_be32(p + 4, (uint32_t)v);
}
#endif

static inline void roce_put_be24(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 16);
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)v;
}

/* Little-endian stores (pcap headers, the ICRC), in the same two forms as above. */
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
static inline void roce_put_le16(uint8_t *p, uint16_t v)
{
	__builtin_memcpy(p, &v, 2);
}

static inline void roce_put_le32(uint8_t *p, uint32_t v)
{
	__builtin_memcpy(p, &v, 4);
}
#else
static inline void roce_put_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void roce_put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}
#endif

/*
 * 24-bit PSN serial arithmetic (IBTA; Linux rxe psn_compare):
 * > 0 when a is ahead of b by 1 .. 2^23 - 1, < 0 when behind, 0 when equal.
 */
static inline int32_t roce_psn_cmp(uint32_t a, uint32_t b)
{
	return (int32_t)((a - b) << 8) >> 8;
}

static inline uint32_t roce_psn_add(uint32_t psn, uint32_t n)
{
	return (psn + n) & 0xffffffu;
}

#endif /* ROCE_BUF_H */
