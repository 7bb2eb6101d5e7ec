/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * icrc.c - CRC-32 engines (ISA-L / zlib) and the RoCE Invariant CRC.
 *
 * The ICRC input is (IBTA Vol 1 9.8.2, Annex A16/A17):
 *
 *   8 x 0xFF | L3 header (variant fields = 1s) | UDP (csum = 0xFFFF, v2)
 *            | BTH (byte 4 = 0xFF) | ext headers | payload | pad
 *
 * The variant part (L3 + UDP + BTH, at most 60 + 8 + 12 bytes) is copied to
 * the stack and masked; the rest is CRC'd in place from the frame.  IPv4
 * without options, the usual case, is CRC'd all in place and the masks
 * applied to the CRC (icrc_crc_v4(), icrc_mask_tab.h).  The 8 x 0xFF prefix
 * is folded into a precomputed start value.
 */
#include <stdbool.h>
#include <string.h>

#include <zlib.h>

#if defined(ROCE_HAVE_ISAL) && ROCE_HAVE_ISAL
#include <isa-l/crc.h>
#endif

#include <roce/buf.h>
#include <roce/icrc.h>

#include "icrc_int.h"
#include "icrc_mask_tab.h"
#include "layout.h"

/* gzip CRC of 8 x 0xFF (raw register 0xDEBB20E3, inverted). */
#define ROCE_ICRC_PREFIX_CRC 0x2144df1cu

/* Largest masked copy: IPv4 with options (60) + UDP (8) + BTH (12). */
#define ROCE_ICRC_HDR_MAX (ROCE_IPV4_MAX_HLEN + ROCE_UDP_HLEN + ROCE_BTH_LEN)
/* The usual one: IPv4 without options + UDP + BTH. */
#define ROCE_ICRC_HDR_V4 (ROCE_IPV4_MIN_HLEN + ROCE_UDP_HLEN + ROCE_BTH_LEN)

static uint32_t roce_crc32_zlib(uint32_t crc, const uint8_t *p, size_t n)
{
	/* zlib takes uInt lengths: feed huge buffers in pieces. */
	while (n > 0) {
		uInt chunk = n > 0x40000000u ? 0x40000000u : (uInt)n;

		crc = (uint32_t)crc32(crc, p, chunk);
		p += chunk;
		n -= chunk;
	}
	return crc;
}

#if defined(ROCE_HAVE_ISAL) && ROCE_HAVE_ISAL
static uint32_t roce_crc32_isal(uint32_t crc, const uint8_t *p, size_t n)
{
	while (n > 0) {
		uint64_t chunk = n > 0x40000000u ? 0x40000000u : n;

		crc = crc32_gzip_refl(crc, p, chunk);
		p += chunk;
		n -= (size_t)chunk;
	}
	return crc;
}
#define ROCE_CRC_DEFAULT_FN roce_crc32_isal
#define ROCE_CRC_DEFAULT_NAME "isa-l"
#else
#define ROCE_CRC_DEFAULT_FN roce_crc32_zlib
#define ROCE_CRC_DEFAULT_NAME "zlib"
#endif

static uint32_t (*roce_crc_fn)(uint32_t, const uint8_t *, size_t) = ROCE_CRC_DEFAULT_FN;
static const char *roce_crc_name = ROCE_CRC_DEFAULT_NAME;

/*
 * CRC of one frame's bytes (n < 1 GiB: no chunking): straight into ISA-L
 * when it is the provider, skipping the generic wrapper's pointer and loop
 * (about a third of the per-frame ICRC instructions for 130-byte frames).
 */
static inline uint32_t crc_frame(uint32_t crc, const uint8_t *p, size_t n)
{
#if defined(ROCE_HAVE_ISAL) && ROCE_HAVE_ISAL
	if (roce_crc_fn == roce_crc32_isal)
		return crc32_gzip_refl(crc, p, n);
#endif
	return roce_crc_fn(crc, p, n);
}

uint32_t roce_crc32(uint32_t crc, const uint8_t *p, size_t n)
{
	if (n == 0)
		return crc;
	return roce_crc_fn(crc, p, n);
}

int roce_crc32_set_provider(enum roce_crc_provider p)
{
	switch (p) {
	case ROCE_CRC_AUTO:
		roce_crc_fn = ROCE_CRC_DEFAULT_FN;
		roce_crc_name = ROCE_CRC_DEFAULT_NAME;
		return ROCE_OK;
	case ROCE_CRC_ZLIB:
		roce_crc_fn = roce_crc32_zlib;
		roce_crc_name = "zlib";
		return ROCE_OK;
	case ROCE_CRC_ISAL:
#if defined(ROCE_HAVE_ISAL) && ROCE_HAVE_ISAL
		roce_crc_fn = roce_crc32_isal;
		roce_crc_name = "isa-l";
		return ROCE_OK;
#else
		return ROCE_E_UNSUPPORTED;
#endif
	default:
		return ROCE_E_INVAL;
	}
}

const char *roce_crc32_provider_name(void)
{
	return roce_crc_name;
}

/* The ICRC's masks (variant fields set to 1s) of an IPv4 header, of a UDP header at udp. */
static inline void icrc_mask_ipv4(uint8_t *ip)
{
	ip[ROCE_IPV4_OFF_TOS] = 0xff;           /* DSCP + ECN */
	ip[ROCE_IPV4_OFF_TTL] = 0xff;
	ip[ROCE_IPV4_OFF_CSUM] = 0xff;
	ip[ROCE_IPV4_OFF_CSUM + 1] = 0xff;
}

static inline void icrc_mask_udp(uint8_t *udp)
{
	udp[ROCE_UDP_OFF_CSUM] = 0xff;
	udp[ROCE_UDP_OFF_CSUM + 1] = 0xff;
}

/*
 * Check that the offsets describe an ICRC-covered region of s->frame and copy
 * its variant part (L3 + UDP + BTH) to hdr with the variant fields set to 1s.
 * *n gets the copied length.  ROCE_OK, ROCE_E_TRUNC or ROCE_E_INVAL.
 */
static int icrc_prepare_at(const struct roce_icrc_span *s, uint8_t hdr[ROCE_ICRC_HDR_MAX],
			   size_t *np)
{
	size_t l3 = s->l3_off, bth = s->bth_off, icrc = s->icrc_off;
	size_t n, udp_rel = 0;
	bool v2 = s->version == 2;

	if (bth < l3 || icrc < bth + ROCE_BTH_LEN)
		return ROCE_E_INVAL;
	n = bth + ROCE_BTH_LEN - l3;
	if (n > ROCE_ICRC_HDR_MAX)
		return ROCE_E_INVAL;
	if (v2) {
		if (s->udp_off < l3 || s->udp_off + ROCE_UDP_HLEN != bth)
			return ROCE_E_INVAL;
		udp_rel = s->udp_off - l3;
		if (s->ip_version == 4 && udp_rel < ROCE_IPV4_MIN_HLEN)
			return ROCE_E_INVAL;
		if (s->ip_version == 6 && udp_rel != ROCE_IPV6_HLEN)
			return ROCE_E_INVAL;
		if (s->ip_version != 4 && s->ip_version != 6)
			return ROCE_E_INVAL;
	} else if (s->version != 1 || n != ROCE_GRH_LEN + ROCE_BTH_LEN) {
		return ROCE_E_INVAL;
	}
	if (icrc > s->caplen)
		return ROCE_E_TRUNC;

	if (n == ROCE_ICRC_HDR_V4)              /* IPv4 without options: inlined copy */
		memcpy(hdr, s->frame + l3, ROCE_ICRC_HDR_V4);
	else
		memcpy(hdr, s->frame + l3, n);
	if (v2 && s->ip_version == 4) {
		icrc_mask_ipv4(hdr);
	} else {
		/* IPv6 or GRH: traffic class, flow label, hop limit */
		hdr[0] |= 0x0f;
		hdr[1] = 0xff;
		hdr[2] = 0xff;
		hdr[3] = 0xff;
		hdr[ROCE_IP6_OFF_HOPS] = 0xff;
	}
	if (v2)
		icrc_mask_udp(hdr + udp_rel);
	hdr[n - ROCE_BTH_LEN + ROCE_BTH_OFF_CN] = 0xff;  /* FECN | BECN | Resv6 */
	*np = n;
	return ROCE_OK;
}

int roce_icrc_compute_at(const struct roce_icrc_span *s, uint32_t *out)
{
	uint8_t hdr[ROCE_ICRC_HDR_MAX];
	size_t n, from = (size_t)s->bth_off + ROCE_BTH_LEN;
	int rc = icrc_prepare_at(s, hdr, &n);

	if (rc != ROCE_OK)
		return rc;
	/* the part after the masked copy: BTH end .. ICRC, CRC'd in place */
	*out = crc_frame(crc_frame(ROCE_ICRC_PREFIX_CRC, hdr, n), s->frame + from,
			 s->icrc_off - from);
	return ROCE_OK;
}

int roce_icrc_compute(const struct roce_pkt *pkt, uint32_t *out)
{
	struct roce_icrc_span sp;

	if (!pkt->frame || pkt->kind != ROCE_KIND_ROCE || pkt->bth_off == 0)
		return ROCE_E_INVAL;
	sp = (struct roce_icrc_span){
		.frame = pkt->frame, .caplen = pkt->caplen, .l3_off = pkt->l3_off,
		.udp_off = pkt->udp_off, .bth_off = pkt->bth_off, .icrc_off = pkt->icrc_off,
		.version = pkt->version, .ip_version = pkt->ip_version,
	};
	return roce_icrc_compute_at(&sp, out);
}

/*
 * The frame builder's ICRC: the builder lays the frame out with the variant
 * fields already set to 1s (the masks of icrc_prepare()) and stores their real
 * values after this call, so one CRC pass covers L3 up to the ICRC field (no
 * header copy, one CRC call instead of two).
 */
uint32_t roce_icrc_build_masked(const uint8_t *l3, size_t n)
{
	return crc_frame(ROCE_ICRC_PREFIX_CRC, l3, n);
}

/* Stored value read after the CRC: the CRC has just pulled its line into the cache. */
static inline enum roce_icrc_status icrc_settle(struct roce_pkt *pkt, uint32_t crc)
{
	pkt->icrc_wire = roce_get_le32(pkt->frame + pkt->icrc_off);
	pkt->icrc_computed = crc;
	if (crc == pkt->icrc_wire) {
		pkt->icrc_status = ROCE_ICRC_OK;
	} else {
		pkt->icrc_status = ROCE_ICRC_BAD;
		pkt->findings |= ROCE_FIND_BAD_ICRC;
	}
	return pkt->icrc_status;
}

/*
 * What the ICRC's masks of IPv4 (no options) + UDP + BTH change in the CRC of those
 * 40 bytes: the CRC is linear, so the CRC of the masked bytes is that of the bytes as
 * they are XOR the (linear) CRC of their difference, which is zero but at the 7 masked
 * bytes; the table holds that CRC by masked byte and its value.
 */
static inline uint32_t icrc_v4_mask_fix(const uint8_t *l3)
{
	return icrc_v4_mask_tab[0][l3[ROCE_IPV4_OFF_TOS]] ^
	       icrc_v4_mask_tab[1][l3[ROCE_IPV4_OFF_TTL]] ^
	       icrc_v4_mask_tab[2][l3[ROCE_IPV4_OFF_CSUM]] ^
	       icrc_v4_mask_tab[3][l3[ROCE_IPV4_OFF_CSUM + 1]] ^
	       icrc_v4_mask_tab[4][l3[ROCE_IPV4_MIN_HLEN + ROCE_UDP_OFF_CSUM]] ^
	       icrc_v4_mask_tab[5][l3[ROCE_IPV4_MIN_HLEN + ROCE_UDP_OFF_CSUM + 1]] ^
	       icrc_v4_mask_tab[6][l3[ROCE_IPV4_MIN_HLEN + ROCE_UDP_HLEN + ROCE_BTH_OFF_CN]];
}

/*
 * The ICRC of RoCE v2 over IPv4 without options: n (>= 40) bytes from the IP header at
 * l3 to the ICRC, all CRC'd in place: the header's CRC corrected for the masks
 * (icrc_v4_mask_fix()), then the rest.  No masked copy: the CRC's vector loads of a
 * copy just stored on the stack missed store-to-load forwarding and waited for the
 * stores (docs/perf/analyze-threads.md: 49 ns a 1 KiB frame in cache with the copy, 30 without).
 */
static inline uint32_t icrc_crc_v4(const uint8_t *l3, size_t n)
{
	uint32_t crc = crc_frame(ROCE_ICRC_PREFIX_CRC, l3, ROCE_ICRC_HDR_V4) ^ icrc_v4_mask_fix(l3);

	if (n == ROCE_ICRC_HDR_V4)
		return crc;
	return crc_frame(crc, l3 + ROCE_ICRC_HDR_V4, n - ROCE_ICRC_HDR_V4);
}

uint32_t roce_icrc_crc_v4(const uint8_t *l3, size_t n)
{
	return icrc_crc_v4(l3, n);
}

enum roce_icrc_status roce_icrc_verify_v4(struct roce_pkt *pkt)
{
	if (pkt->findings & ROCE_FIND_BAD_LENGTH)
		return pkt->icrc_status;
	/* n >= ROCE_ICRC_HDR_V4 */
	return icrc_settle(pkt, icrc_crc_v4(pkt->frame + pkt->l3_off,
					    (size_t)pkt->icrc_off - pkt->l3_off));
}

enum roce_icrc_status roce_icrc_verify(struct roce_pkt *pkt)
{
	uint32_t crc;

	if (!roce_icrc_pending(pkt))
		return pkt->icrc_status;
	if (roce_icrc_compute(pkt, &crc) != ROCE_OK)
		return pkt->icrc_status;
	return icrc_settle(pkt, crc);
}

enum roce_icrc_status roce_icrc_take_verdict(struct roce_pkt *pkt, enum roce_icrc_status verdict)
{
	if (!roce_icrc_pending(pkt))
		return pkt->icrc_status;
	if (verdict != ROCE_ICRC_OK)
		return roce_icrc_verify(pkt);
	/* decoded with verify_icrc off: icrc_wire is already read */
	roce_icrc_take_ok(pkt);
	return ROCE_ICRC_OK;
}
