/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * erf.c - roce_erf_parse(): the ERF record header of LINKTYPE_ERF records
 * (see erf.h for the layout).  Bounded reads only; no allocation.
 */
#include <stdbool.h>
#include <string.h>

#include <roce/buf.h>
#include <roce/erf.h>
#include <roce/pkt.h>

#define ERF_EXT_BIT 0x80u
#define ERF_EXT_LEN 8u
#define ERF_ETH_PAD 2u

static bool erf_is_color(uint8_t type)
{
	/* colour variants: the lctr field holds a colour */
	switch (type) {
	case 7:   /* COLOR_HDLC_POS */
	case ROCE_ERF_TYPE_COLOR_ETH:
	case 15:  /* DSM_COLOR_HDLC_POS */
	case ROCE_ERF_TYPE_DSM_COLOR_ETH:
	case 17:  /* COLOR_MC_HDLC_POS */
	case 19:  /* COLOR_HASH_POS */
	case ROCE_ERF_TYPE_COLOR_HASH_ETH:
		return true;
	default:
		return false;
	}
}

static bool erf_is_eth(uint8_t type)
{
	return type == ROCE_ERF_TYPE_ETH || type == ROCE_ERF_TYPE_COLOR_ETH ||
		type == ROCE_ERF_TYPE_DSM_COLOR_ETH || type == ROCE_ERF_TYPE_COLOR_HASH_ETH;
}

int roce_erf_parse(const uint8_t *rec, size_t caplen, struct roce_erf *out)
{
	uint64_t ts, frac;
	uint16_t field;
	size_t off, end;
	uint8_t more;

	if (!out)
		return ROCE_E_INVAL;
	memset(out, 0, sizeof(*out));
	out->inner_linktype = -1;
	if (!rec || caplen < ROCE_ERF_HLEN)
		return ROCE_E_TRUNC;
	/* the timestamp is little-endian: seconds in the high 32 bits */
	ts = 0;
	for (int i = 7; i >= 0; i--)
		ts = ts << 8 | rec[i];
	frac = (ts & 0xffffffffu) * 1000000000u + 0x80000000u;  /* < 2^62: no overflow */
	out->ts_ns = (ts >> 32) * 1000000000u + (frac >> 32);   /* at most 2^32 s: fits */
	out->type = rec[8] & 0x7fu;
	out->flags = rec[9];
	out->rlen = roce_get_be16(rec + 10);
	field = roce_get_be16(rec + 12);
	out->wlen = roce_get_be16(rec + 14);
	if (erf_is_color(out->type))
		out->color = field;
	else
		out->lctr = field;

	off = ROCE_ERF_HLEN;
	more = rec[8] & ERF_EXT_BIT;
	while (more) {
		if (!ROCE_SPAN_OK(caplen, off, ERF_EXT_LEN))
			return ROCE_E_TRUNC;
		more = rec[off] & ERF_EXT_BIT;
		off += ERF_EXT_LEN;
		out->n_ext++;
		if (out->n_ext == 255 && more)
			return ROCE_E_MALFORMED;
	}
	if (erf_is_eth(out->type)) {
		if (!ROCE_SPAN_OK(caplen, off, ERF_ETH_PAD))
			return ROCE_E_TRUNC;
		off += ERF_ETH_PAD;
		out->inner_linktype = ROCE_LINKTYPE_ETHERNET;
	} else if (out->type == ROCE_ERF_TYPE_IPV4) {
		out->inner_linktype = ROCE_LINKTYPE_IPV4;
	} else if (out->type == ROCE_ERF_TYPE_IPV6) {
		out->inner_linktype = ROCE_LINKTYPE_IPV6;
	}
	out->hdr_len = (uint32_t)off;
	if (out->rlen < off) {
		out->inner_linktype = -1;
		return ROCE_E_MALFORMED;
	}
	/* the frame ends at the record length (padded to 8 bytes), the captured
	 * length or its wire length, whichever comes first */
	end = caplen < out->rlen ? caplen : out->rlen;
	out->inner_caplen = (uint32_t)(end - off);
	if (out->inner_caplen > out->wlen)
		out->inner_caplen = out->wlen;
	out->inner_wirelen = out->wlen > out->inner_caplen ? out->wlen : out->inner_caplen;
	return ROCE_OK;
}
