/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * opcode.c - the BTH opcode table, expanded from opcodes.def.
 *
 * Header lengths and per-header offsets are derived from the presence mask
 * by constant expressions in canonical IBA order:
 *
 *   BTH | RDETH | DETH | XRCETH | FETH | RETH | AtomicETH | AETH |
 *       AtomicAckETH | ImmDt | IETH | CNP | payload | pad | ICRC
 *
 * so the offset of a header is the sum of the lengths of the present
 * headers before it, and hdr_len is the offset just past the last one.
 * Nothing here is summed by hand.
 */
#include <ctype.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <roce/opcode.h>

/* Length of header h when the mask m has it, else 0. */
#define ROCE_HL_(m, h, len) ((((uint32_t)(m)) & (1u << (h))) ? (len) : 0)

/* End offset (after the BTH) of each header position, chained in order. */
#define ROCE_END_RDETH_(m)        ROCE_HL_(m, ROCE_HDR_RDETH, ROCE_RDETH_LEN)
#define ROCE_END_DETH_(m)         (ROCE_END_RDETH_(m) + ROCE_HL_(m, ROCE_HDR_DETH, ROCE_DETH_LEN))
#define ROCE_END_XRCETH_(m)       (ROCE_END_DETH_(m) + ROCE_HL_(m, ROCE_HDR_XRCETH, ROCE_XRCETH_LEN))
#define ROCE_END_FETH_(m)         (ROCE_END_XRCETH_(m) + ROCE_HL_(m, ROCE_HDR_FETH, ROCE_FETH_LEN))
#define ROCE_END_RETH_(m)         (ROCE_END_FETH_(m) + ROCE_HL_(m, ROCE_HDR_RETH, ROCE_RETH_LEN))
#define ROCE_END_ATOMICETH_(m)    (ROCE_END_RETH_(m) + ROCE_HL_(m, ROCE_HDR_ATOMICETH, ROCE_ATOMICETH_LEN))
#define ROCE_END_AETH_(m)         (ROCE_END_ATOMICETH_(m) + ROCE_HL_(m, ROCE_HDR_AETH, ROCE_AETH_LEN))
#define ROCE_END_ATOMICACKETH_(m) (ROCE_END_AETH_(m) + ROCE_HL_(m, ROCE_HDR_ATOMICACKETH, ROCE_ATOMICACKETH_LEN))
#define ROCE_END_IMMDT_(m)        (ROCE_END_ATOMICACKETH_(m) + ROCE_HL_(m, ROCE_HDR_IMMDT, ROCE_IMMDT_LEN))
#define ROCE_END_IETH_(m)         (ROCE_END_IMMDT_(m) + ROCE_HL_(m, ROCE_HDR_IETH, ROCE_IETH_LEN))
#define ROCE_END_CNP_(m)          (ROCE_END_IETH_(m) + ROCE_HL_(m, ROCE_HDR_CNP, ROCE_CNP_LEN))

/* Offset of a present header = end of the previous position; 0 when absent. */
#define ROCE_OFF_(m, h, prev_end) ((((uint32_t)(m)) & (1u << (h))) ? (prev_end) : 0)

#define ROCE_OP(sym, val, hdrs_, flags_) \
	[val] = { \
		.name = #sym, \
		.hdrs = (hdrs_), \
		.flags = (flags_), \
		.hdr_len = ROCE_END_CNP_(hdrs_), \
		.off = { \
			[ROCE_HDR_RDETH] = ROCE_OFF_(hdrs_, ROCE_HDR_RDETH, 0), \
			[ROCE_HDR_DETH] = ROCE_OFF_(hdrs_, ROCE_HDR_DETH, ROCE_END_RDETH_(hdrs_)), \
			[ROCE_HDR_XRCETH] = ROCE_OFF_(hdrs_, ROCE_HDR_XRCETH, ROCE_END_DETH_(hdrs_)), \
			[ROCE_HDR_FETH] = ROCE_OFF_(hdrs_, ROCE_HDR_FETH, ROCE_END_XRCETH_(hdrs_)), \
			[ROCE_HDR_RETH] = ROCE_OFF_(hdrs_, ROCE_HDR_RETH, ROCE_END_FETH_(hdrs_)), \
			[ROCE_HDR_ATOMICETH] = ROCE_OFF_(hdrs_, ROCE_HDR_ATOMICETH, ROCE_END_RETH_(hdrs_)), \
			[ROCE_HDR_AETH] = ROCE_OFF_(hdrs_, ROCE_HDR_AETH, ROCE_END_ATOMICETH_(hdrs_)), \
			[ROCE_HDR_ATOMICACKETH] = ROCE_OFF_(hdrs_, ROCE_HDR_ATOMICACKETH, ROCE_END_AETH_(hdrs_)), \
			[ROCE_HDR_IMMDT] = ROCE_OFF_(hdrs_, ROCE_HDR_IMMDT, ROCE_END_ATOMICACKETH_(hdrs_)), \
			[ROCE_HDR_IETH] = ROCE_OFF_(hdrs_, ROCE_HDR_IETH, ROCE_END_IMMDT_(hdrs_)), \
			[ROCE_HDR_CNP] = ROCE_OFF_(hdrs_, ROCE_HDR_CNP, ROCE_END_IETH_(hdrs_)), \
		}, \
	},

const struct roce_opcode_info roce_opcodes[256] = {
#include <roce/opcodes.def>
};
#undef ROCE_OP

static const struct {
	const char *name;
	uint8_t len;
} roce_hdr_tab[ROCE_HDR_COUNT] = {
	[ROCE_HDR_RDETH] = { "RDETH", ROCE_RDETH_LEN },
	[ROCE_HDR_DETH] = { "DETH", ROCE_DETH_LEN },
	[ROCE_HDR_XRCETH] = { "XRCETH", ROCE_XRCETH_LEN },
	[ROCE_HDR_FETH] = { "FETH", ROCE_FETH_LEN },
	[ROCE_HDR_RETH] = { "RETH", ROCE_RETH_LEN },
	[ROCE_HDR_ATOMICETH] = { "AtomicETH", ROCE_ATOMICETH_LEN },
	[ROCE_HDR_AETH] = { "AETH", ROCE_AETH_LEN },
	[ROCE_HDR_ATOMICACKETH] = { "AtomicAckETH", ROCE_ATOMICACKETH_LEN },
	[ROCE_HDR_IMMDT] = { "ImmDt", ROCE_IMMDT_LEN },
	[ROCE_HDR_IETH] = { "IETH", ROCE_IETH_LEN },
	[ROCE_HDR_CNP] = { "CNP", ROCE_CNP_LEN },
};

unsigned roce_hdr_len(enum roce_hdr h)
{
	if ((unsigned)h >= ROCE_HDR_COUNT)
		return 0;
	return roce_hdr_tab[h].len;
}

const char *roce_hdr_name(enum roce_hdr h)
{
	if ((unsigned)h >= ROCE_HDR_COUNT)
		return "UNKNOWN";
	return roce_hdr_tab[h].name;
}

const char *roce_opcode_name(uint8_t opcode)
{
	const char *n = roce_opcodes[opcode].name;

	return n ? n : "UNKNOWN";
}

const char *roce_transport_name(enum roce_transport t)
{
	static const char *const names[] = {
		[ROCE_TRANSPORT_RC] = "RC",
		[ROCE_TRANSPORT_UC] = "UC",
		[ROCE_TRANSPORT_RD] = "RD",
		[ROCE_TRANSPORT_UD] = "UD",
		[ROCE_TRANSPORT_CNP] = "CNP",
		[ROCE_TRANSPORT_XRC] = "XRC",
		[ROCE_TRANSPORT_VENDOR] = "VENDOR",
	};

	if ((unsigned)t >= sizeof(names) / sizeof(names[0]))
		return "VENDOR";
	return names[t];
}

static int roce_strcaseeq(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
			return 0;
	return *a == *b;
}

/*
 * "RC_SEND_ONLY" (any case) -> 0x04.  A number ("4", "0x04", "0x81") is taken
 * literally when it fits in 8 bits, even for a reserved opcode, so fault
 * injection can ask for one.
 */
int roce_opcode_by_name(const char *name)
{
	if (!name || !*name)
		return -1;
	if (isdigit((unsigned char)name[0])) {
		char *end;
		unsigned long v;

		if (name[0] == '0' && (name[1] == 'x' || name[1] == 'X')) {
			if (!isxdigit((unsigned char)name[2]))
				return -1;
			v = strtoul(name + 2, &end, 16);
		} else {
			v = strtoul(name, &end, 10);
		}
		if (*end != '\0' || v > 0xff)
			return -1;
		return (int)v;
	}
	for (unsigned i = 0; i < 256; i++)
		if (roce_opcodes[i].name && roce_strcaseeq(name, roce_opcodes[i].name))
			return (int)i;
	return -1;
}
