/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * capread_ng.c - the pcapng part of the capture reader: section, interface and packet
 * blocks (EPB, SPB, OPB), skipped and oversized blocks.  Shared state: capread_int.h.
 */
#include "capread_ahead.h"
#include "capread_meta.h"
#include "capread_ng.h"
#include "capread_rec.h"
#include "capread_src.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *ng_block_name(uint32_t type)
{
	switch (type) {
	case NG_SHB:
		return "section header block";
	case NG_IDB:
		return "interface description block";
	case NG_EPB:
		return "enhanced packet block";
	case NG_SPB:
		return "simple packet block";
	case NG_OPB:
		return "packet block";
	default:
		return "block";
	}
}

static int ng_shb(struct roce_capfile *c, const uint8_t *p, uint32_t blen)
{
	uint16_t major, minor;

	if (blen < 28)
		return capr_fail(c, ROCE_E_MALFORMED,
				 "section header block too short (%" PRIu32 " bytes)",
				 blen);
	major = ld16(p + 12, c->be);
	minor = ld16(p + 14, c->be);
	if (major != 1 || (minor != 0 && minor != 2))   /* Wireshark: 1.0 and 1.2 only */
		return capr_fail(c, ROCE_E_UNSUPPORTED,
				 "unsupported pcapng version %u.%u", major, minor);
	c->nifs = 0; /* interface ids are per section */
	c->nsections++;
	/* options: comments and the capturing machine, kept as metadata (not checked:
	 * a malformed option list ends the walk, the section is read on) */
	for (const uint8_t *o = p + 24, *end = p + blen - 4; end - o >= 4;) {
		uint16_t code = ld16(o, c->be), olen = ld16(o + 2, c->be);
		size_t padded = ((size_t)olen + 3) & ~(size_t)3;

		if (code == NG_OPT_ENDOFOPT || padded > (size_t)(end - o) - 4)
			break;
		if (code >= NG_OPT_COMMENT && code <= NG_OPT_SHB_USERAPPL)
			capr_meta_add(c, code == NG_OPT_COMMENT ? ROCE_CAP_META_COMMENT :
				      code == NG_OPT_SHB_HARDWARE ? ROCE_CAP_META_HARDWARE :
				      code == NG_OPT_SHB_OS ? ROCE_CAP_META_OS :
				      ROCE_CAP_META_USERAPPL, 0, o + 4, olen);
		o += 4 + padded;
	}
	return 0;
}

static int ng_idb(struct roce_capfile *c, const uint8_t *p, uint32_t blen)
{
	const uint8_t *o, *end;
	struct cap_iface ifc = { 0 };
	int tsresol = 6;
	int64_t tsoffset = 0;
	bool have_res = false, have_off = false;       /* Wireshark: the first one counts */

	if (blen < 20)
		return capr_fail(c, ROCE_E_MALFORMED,
				 "interface description block too short (%" PRIu32 " bytes)", blen);
	ifc.linktype = ld16(p + 8, c->be);
	ifc.snaplen = ld32(p + 12, c->be);
	o = p + 16;
	end = p + blen - 4;
	while (end - o >= 4) {
		uint16_t code = ld16(o, c->be), olen = ld16(o + 2, c->be);
		size_t padded = ((size_t)olen + 3) & ~(size_t)3;

		if (padded > (size_t)(end - o) - 4)
			return capr_fail(c, ROCE_E_MALFORMED,
				"interface description block option %u length %u overruns block",
				code, olen);
		if (code == NG_OPT_ENDOFOPT)
			break;
		/* a wrong length: ignored with a warning, like Wireshark */
		if (code == NG_OPT_IF_TSRESOL) {
			if (olen != 1)
				capr_warn(c,
					"if_tsresol option length %u (expected 1): ignored", olen);
			else if (!have_res)
				tsresol = o[4];
			have_res |= olen == 1;
		} else if (code == NG_OPT_COMMENT || code == NG_OPT_IF_NAME ||
			   code == NG_OPT_IF_DESCRIPTION) {
			capr_meta_add(c, code == NG_OPT_COMMENT ? ROCE_CAP_META_IF_COMMENT :
				      code == NG_OPT_IF_NAME ? ROCE_CAP_META_IF_NAME :
				      ROCE_CAP_META_IF_DESCRIPTION, c->nifs, o + 4, olen);
		} else if (code == NG_OPT_IF_TSOFFSET) {
			if (olen != 8)
				capr_warn(c,
					"if_tsoffset option length %u (expected 8): ignored", olen);
			else if (!have_off)
				tsoffset = (int64_t)ld64(o + 4, c->be);
			have_off |= olen == 8;
		}
		o += 4 + padded;
	}
	/* every resolution is read, like Wireshark: 10^-29 s and finer (up to
	 * 10^-127 or 2^-127) make every 64-bit tick count less than 1 ns */
	if (tsresol & 0x80) {
		ifc.conv = TS_BIN;
		ifc.shift = (uint8_t)(tsresol & 0x7f);
	} else if (tsresol <= 9) {
		ifc.conv = TS_MUL;
		ifc.factor = 1;
		for (int i = tsresol; i < 9; i++)
			ifc.factor *= 10;
	} else if (tsresol <= 28) {
		ifc.conv = TS_DIV;
		ifc.factor = 1;
		for (int i = 9; i < tsresol; i++)
			ifc.factor *= 10;
	} else {
		ifc.conv = TS_ZERO;
	}
	ifc.offset_s = tsoffset;

	if (c->nifs >= MAX_IFACES)
		return capr_fail(c, ROCE_E_UNSUPPORTED,
				 "more than %u interfaces in a section", MAX_IFACES);
	if (c->nifs == c->ifs_cap) {
		uint32_t ncap = c->ifs_cap ? c->ifs_cap * 2 : 4;
		struct cap_iface *n = realloc(c->ifs, ncap * sizeof(*n));

		if (!n)
			return capr_fail(c, ROCE_E_NOMEM, "out of memory");
		c->ifs = n;
		c->ifs_cap = ncap;
	}
	c->ifs[c->nifs++] = ifc;
	if (c->linktype < 0) {
		c->linktype = ifc.linktype;
		c->snaplen = ifc.snaplen;
	}
	return 0;
}

/*
 * The options of an EPB or OPB, checked as Wireshark 4.0 checks them (it refuses the
 * file there): each option within the block, and the lengths of the ones it knows
 * (epb_flags 4, epb_dropcount and epb_packetid 8, epb_queue 4, epb_verdict at least 1,
 * 9 for the TC and XDP kinds).  Their values are not used.
 */
static int ng_packet_opts(struct roce_capfile *c, uint32_t type, const uint8_t *p,
			  uint32_t blen, uint32_t caplen)
{
	const uint8_t *o = p + 28 + ((caplen + 3) & ~3u), *end = p + blen - 4;

	while (o < end) {
		uint16_t code, olen;
		size_t padded;
		int want = -1;

		if (end - o < 4)
			return capr_fail(c, ROCE_E_MALFORMED,
					 "%s: option header overruns the block",
					 ng_block_name(type));
		code = ld16(o, c->be);
		olen = ld16(o + 2, c->be);
		padded = ((size_t)olen + 3) & ~(size_t)3;
		if (padded > (size_t)(end - o) - 4)
			return capr_fail(c, ROCE_E_MALFORMED,
					 "%s option %u length %u overruns the block",
					 ng_block_name(type), code, olen);
		if (code == NG_OPT_ENDOFOPT)
			break;
		switch (code) {
		case 2: /* epb_flags */
		case 6: /* epb_queue */
			want = 4;
			break;
		case 4: /* epb_dropcount */
		case 5: /* epb_packetid */
			want = 8;
			break;
		case 7: /* epb_verdict: a kind byte (TC 1 and XDP 2: 8 more bytes) */
			if (olen < 1)
				return capr_fail(c, ROCE_E_MALFORMED,
						 "%s verdict option length 0", ng_block_name(type));
			if (o[4] == 1 || o[4] == 2)
				want = 9;
			break;
		default:
			break;
		}
		if (want >= 0 && olen != want)
			return capr_fail(c, ROCE_E_MALFORMED,
					 "%s option %u length %u (expected %d)",
					 ng_block_name(type), code, olen, want);
		o += 4 + padded;
	}
	return 0;
}

/* EPB and OPB share the layout from offset 8 on (OPB: 16-bit interface id). */
static int ng_packet(struct roce_capfile *c, uint32_t type, const uint8_t *p, uint32_t blen,
		     struct roce_cap_record *rec)
{
	const struct cap_iface *ifc;
	uint32_t ifid, caplen, wirelen;
	uint64_t ticks;

	if (blen < 32)
		return capr_fail(c, ROCE_E_MALFORMED, "%s too short (%" PRIu32 " bytes)",
				 ng_block_name(type), blen);
	ifid = type == NG_EPB ? ld32(p + 8, c->be) : ld16(p + 8, c->be);
	if (ifid >= c->nifs)
		return capr_fail(c, ROCE_E_MALFORMED,
				 "%s refers to interface %" PRIu32 " but %" PRIu32
				 " interface(s) are defined in this section",
				 ng_block_name(type), ifid, c->nifs);
	ifc = &c->ifs[ifid];
	caplen = ld32(p + 20, c->be);
	wirelen = ld32(p + 24, c->be);
	/* with its padding, as Wireshark */
	if (caplen > blen - 32 || ((caplen + 3) & ~3u) > blen - 32)
		return capr_fail(c, ROCE_E_MALFORMED,
				 "caplen %" PRIu32 " overruns %s (%" PRIu32 " bytes)", caplen,
				 ng_block_name(type), blen);
	if (caplen > capr_max_caplen(ifc->linktype))
		return capr_fail(c, ROCE_E_MALFORMED, "caplen %" PRIu32 " exceeds limit %" PRIu32
				 " (Wireshark's for link-layer type %d)", caplen,
				 capr_max_caplen(ifc->linktype), ifc->linktype);
	if (blen - 32 - ((caplen + 3) & ~3u) && ng_packet_opts(c, type, p, blen, caplen) < 0)
		return c->status;
	rec->flags = 0;
	rec->wirelen = capr_check_lengths(c, caplen, ifc->snaplen, wirelen);
	ticks = (uint64_t)ld32(p + 12, c->be) << 32 | ld32(p + 16, c->be);
	if (!capr_iface_ts(ifc, ticks, &rec->ts_ns))
		capr_ts_out_of_range(c, rec);
	rec->data = p + 28;
	rec->caplen = caplen;
	rec->linktype = ifc->linktype;
	rec->ifindex = ifid;
	rec->section = c->nsections;
	return 1;
}

static int ng_spb(struct roce_capfile *c, const uint8_t *p, uint32_t blen,
		  struct roce_cap_record *rec)
{
	uint32_t caplen, wirelen;

	if (blen < 16)
		return capr_fail(c, ROCE_E_MALFORMED,
				 "simple packet block too short (%" PRIu32 " bytes)",
				 blen);
	if (c->nifs == 0)
		return capr_fail(c, ROCE_E_MALFORMED,
				 "simple packet block but no interface is defined in this section");
	wirelen = ld32(p + 8, c->be);
	caplen = wirelen;
	if (c->ifs[0].snaplen && caplen > c->ifs[0].snaplen)
		caplen = c->ifs[0].snaplen;
	if (caplen > blen - 16 || ((caplen + 3) & ~3u) > blen - 16)
		return capr_fail(c, ROCE_E_MALFORMED,
			"simple packet block: packet length %" PRIu32 " overruns block (%" PRIu32
			" bytes)", caplen, blen);
	if (caplen > capr_max_caplen(c->ifs[0].linktype))
		return capr_fail(c, ROCE_E_MALFORMED, "caplen %" PRIu32 " exceeds limit %" PRIu32
				 " (Wireshark's for link-layer type %d)", caplen,
				 capr_max_caplen(c->ifs[0].linktype), c->ifs[0].linktype);
	/* an SPB has no options: Wireshark reads the trailing length right after the
	 * (padded) packet data, and so does the reader */
	if (16 + ((caplen + 3) & ~3u) != blen) {
		uint32_t t = ld32(p + 12 + ((caplen + 3) & ~3u), c->be);

		if (t > UINT32_MAX - 3 || ((t + 3) & ~3u) != blen)
			return capr_fail(c, ROCE_E_MALFORMED,
				"simple packet block: %" PRIu32 " bytes of packet data (snapshot "
				"length %" PRIu32 ") but total length %" PRIu32, caplen,
				c->ifs[0].snaplen, blen);
	}
	rec->data = p + 12;
	rec->caplen = caplen;
	rec->wirelen = wirelen;
	rec->ts_ns = 0;
	rec->flags = ROCE_CAP_REC_NO_TS; /* an SPB has no timestamp */
	rec->linktype = c->ifs[0].linktype;
	rec->ifindex = 0;
	rec->section = c->nsections;
	return 1;
}

static inline bool ng_is_packet(uint32_t type)
{
	return type == NG_EPB || type == NG_SPB || type == NG_OPB;
}

/* Blocks Wireshark 4.0 numbers as frames without being packets. */
static inline bool ng_is_numbered(uint32_t type)
{
	return type == NG_CUSTOM || type == NG_CUSTOM_NOCOPY || type == NG_JOURNAL;
}

uint32_t capr_ng_block_len(const struct roce_capfile *c, const uint8_t *p, size_t avail,
			   bool *packet)
{
	uint32_t type, blen;

	*packet = false;
	if (avail < 8)
		return 0;
	type = ld32(p, c->be);
	blen = ld32(p + 4, c->be);
	*packet = ng_is_packet(type);
	if (type == NG_SHB || blen < 12 || blen > ROCE_CAP_MAX_RECORD)
		return 0;
	blen = (blen + 3) & ~3u;
	return blen <= avail ? blen : 0;
}

/*
 * Skip a block larger than ROCE_CAP_MAX_RECORD that the reader does not
 * interpret (custom, journal, name resolution, ...): Wireshark reads them,
 * so the reader steps over them without buffering (streams are read in
 * pieces).  The trailing length is still checked.
 */
static int ng_skip_large(struct roce_capfile *c, uint32_t type, uint32_t blen, uint32_t plen)
{
	uint64_t left = plen - 4u;
	size_t avail = 0;
	const uint8_t *p;

	while (left) {
		size_t k = left < STREAM_MIN_BUF ? (size_t)left : STREAM_MIN_BUF;

		if (!src_need(c, k, &avail))
			return capr_fail_short(c, ng_block_name(type),
					  (size_t)(plen - 4u - left) + avail, plen);
		src_consume(c, k);
		left -= k;
	}
	p = src_need(c, 4, &avail);
	if (!p)
		return capr_fail_short(c, ng_block_name(type), plen - 4u + avail, plen);
	if (ld32(p, c->be) != blen && ld32(p, c->be) != plen)
		return capr_fail(c, ROCE_E_MALFORMED,
			"%s trailing length %" PRIu32 " does not match total length %" PRIu32,
			ng_block_name(type), ld32(p, c->be), blen);
	src_consume(c, 4);
	return 0;
}

/*
 * Read blocks until a packet is delivered (1), clean EOF (0) or an error.
 * prescan (roce_cap_open): stop with 0 after the first interface
 * description block, or before (not consuming) the first packet block.
 */
int capr_ng_next(struct roce_capfile *c, struct roce_cap_record *rec, bool prescan)
{
	for (;;) {
		size_t avail = 0;
		const uint8_t *p = src_need(c, 8, &avail);
		uint32_t type, blen, plen, tlen;
		int r = 0;

		if (!p) {
			if (avail == 0 && !c->src_status)
				return 0;
			return capr_fail_short(c, "block header", avail, 8);
		}
		type = ld32(p, c->be);
		if (type == NG_SHB) {
			uint32_t bom;

			p = src_need(c, 12, &avail);
			if (!p)
				return capr_fail_short(c, "section header block", avail, 12);
			bom = ld32(p + 8, false);
			if (bom == NG_BOM)
				c->be = false;
			else if (bom == __builtin_bswap32(NG_BOM))
				c->be = true;
			else
				return capr_fail(c, ROCE_E_MALFORMED,
					"bad byte-order magic 0x%08" PRIx32 " in section header block",
					ld32(p + 8, true));
		} else if (prescan && ng_is_packet(type)) {
			return 0;
		}
		blen = ld32(p + 4, c->be);
		if (blen < 12)
			return capr_fail(c, ROCE_E_MALFORMED,
					 "%s total length %" PRIu32 " is less than 12",
					 ng_block_name(type), blen);
		/* not a multiple of 4: Wireshark 4.0 rounds up and reads on */
		plen = blen > UINT32_MAX - 3 ? blen : (blen + 3) & ~3u;
		if (plen != blen) {
			if (blen > UINT32_MAX - 3)
				return capr_fail(c, ROCE_E_MALFORMED,
					"%s total length %" PRIu32 " is not a multiple of 4",
					ng_block_name(type), blen);
			capr_warn(c, "%s total length %" PRIu32
				  " is not a multiple of 4 (read as %" PRIu32 ")",
				  ng_block_name(type), blen, plen);
		}
		if (plen > ROCE_CAP_MAX_RECORD) {
			if (type == NG_SHB || type == NG_IDB || ng_is_packet(type))
				return capr_fail(c, ROCE_E_MALFORMED,
						 "%s length %" PRIu32 " exceeds limit %u",
						 ng_block_name(type), blen, ROCE_CAP_MAX_RECORD);
			r = ng_skip_large(c, type, blen, plen);
			if (r < 0)
				return r;
			if (ng_is_numbered(type))
				c->frame_no++;
			continue;
		}
		p = src_need(c, plen, &avail);
		if (!p)
			return capr_fail_short(c, ng_block_name(type), avail, plen);
		tlen = ld32(p + plen - 4, c->be);
		if (tlen != blen && tlen != plen)
			return capr_fail(c, ROCE_E_MALFORMED,
				"%s trailing length %" PRIu32 " does not match total length %" PRIu32,
				ng_block_name(type), tlen, blen);
		if (c->map && !c->pf_ahead && plen >= CAP_PF_MIN)
			capr_prefetch_to(c, c->pos + plen);
		if (unlikely(c->map) && !capr_rec_intact(c, c->pos + plen, 8))
			return capr_fail_shrank(c);
		switch (type) {
		case NG_SHB:
			r = ng_shb(c, p, plen);
			break;
		case NG_IDB:
			r = ng_idb(c, p, plen);
			break;
		case NG_EPB:
		case NG_OPB:
			r = ng_packet(c, type, p, plen, rec);
			break;
		case NG_SPB:
			r = ng_spb(c, p, plen, rec);
			break;
		default:
			break; /* NRB, ISB, DSB, custom, journal...: not interpreted */
		}
		if (r < 0)
			return r;
		src_consume(c, plen);
		if (r > 0)
			return deliver(c, rec);
		if (ng_is_numbered(type))
			c->frame_no++;
		if (prescan && type == NG_IDB)
			return 0;
	}
}
