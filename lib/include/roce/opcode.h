/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * opcode.h - the table-driven view of BTH opcodes (IBTA Vol 1, Table 38).
 *
 * roce_opcodes[] is indexed directly by the 8-bit BTH opcode.  Entries for
 * reserved or unknown opcodes have name == NULL.  Decoder, frame builder,
 * name strings and the Wireshark plugin's value strings all come from
 * opcodes.def through this header.
 *
 *   opcode byte:  7 6 5 | 4 3 2 1 0
 *                 prefix| operation
 *   prefix: 000 RC, 001 UC, 010 RD, 011 UD, 100 CNP, 101 XRC
 */
#ifndef ROCE_OPCODE_H
#define ROCE_OPCODE_H

#include <stdint.h>

#include <roce/roce.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Extension headers after the BTH.  Bit order == canonical wire order. */
enum roce_hdr {
	ROCE_HDR_RDETH = 0,     /*  4: Resv(8) EE-Context(24) */
	ROCE_HDR_DETH,          /*  8: Q_Key(32) Resv(8) SrcQP(24) */
	ROCE_HDR_XRCETH,        /*  4: Resv(8) XRC SRQ(24) */
	ROCE_HDR_FETH,          /*  4: FLUSH selectivity / placement type */
	ROCE_HDR_RETH,          /* 16: VA(64) R_Key(32) DMA Length(32) */
	ROCE_HDR_ATOMICETH,     /* 28: VA(64) R_Key(32) Swap/Add(64) Compare(64) */
	ROCE_HDR_AETH,          /*  4: Syndrome(8) MSN(24) */
	ROCE_HDR_ATOMICACKETH,  /*  8: original remote data(64) */
	ROCE_HDR_IMMDT,         /*  4: immediate data(32) */
	ROCE_HDR_IETH,          /*  4: R_Key to invalidate(32) */
	ROCE_HDR_CNP,           /* 16: CNP reserved bytes */
	ROCE_HDR_COUNT
};

#define ROCE_H_RDETH        (1u << ROCE_HDR_RDETH)
#define ROCE_H_DETH         (1u << ROCE_HDR_DETH)
#define ROCE_H_XRCETH       (1u << ROCE_HDR_XRCETH)
#define ROCE_H_FETH         (1u << ROCE_HDR_FETH)
#define ROCE_H_RETH         (1u << ROCE_HDR_RETH)
#define ROCE_H_ATOMICETH    (1u << ROCE_HDR_ATOMICETH)
#define ROCE_H_AETH         (1u << ROCE_HDR_AETH)
#define ROCE_H_ATOMICACKETH (1u << ROCE_HDR_ATOMICACKETH)
#define ROCE_H_IMMDT        (1u << ROCE_HDR_IMMDT)
#define ROCE_H_IETH         (1u << ROCE_HDR_IETH)
#define ROCE_H_CNP          (1u << ROCE_HDR_CNP)
#define ROCE_H_PAYLOAD      (1u << ROCE_HDR_COUNT)   /* opcode may carry payload */

#define ROCE_BTH_LEN          12
#define ROCE_RDETH_LEN         4
#define ROCE_DETH_LEN          8
#define ROCE_XRCETH_LEN        4
#define ROCE_FETH_LEN          4
#define ROCE_RETH_LEN         16
#define ROCE_ATOMICETH_LEN    28
#define ROCE_AETH_LEN          4
#define ROCE_ATOMICACKETH_LEN  8
#define ROCE_IMMDT_LEN         4
#define ROCE_IETH_LEN          4
#define ROCE_CNP_LEN          16
#define ROCE_ICRC_LEN          4

/* Semantic flags: code asks (info->flags & ROCE_F_LAST), never switches on opcodes. */
#define ROCE_F_REQ     0x0001u  /* request: consumes PSN(s) on the request stream */
#define ROCE_F_RESP    0x0002u  /* RDMA READ response */
#define ROCE_F_ACK     0x0004u  /* ACKNOWLEDGE / ATOMIC_ACKNOWLEDGE (coalesced PSNs) */
#define ROCE_F_CNP     0x0008u
#define ROCE_F_FIRST   0x0010u
#define ROCE_F_MIDDLE  0x0020u
#define ROCE_F_LAST    0x0040u
#define ROCE_F_ONLY    (ROCE_F_FIRST | ROCE_F_LAST)
#define ROCE_F_SEND    0x0100u
#define ROCE_F_WRITE   0x0200u
#define ROCE_F_READ    0x0400u
#define ROCE_F_ATOMIC  0x0800u
#define ROCE_F_IMM     0x1000u
#define ROCE_F_INV     0x2000u
#define ROCE_F_FLUSH   0x4000u

enum roce_transport {
	ROCE_TRANSPORT_RC = 0,
	ROCE_TRANSPORT_UC = 1,
	ROCE_TRANSPORT_RD = 2,
	ROCE_TRANSPORT_UD = 3,
	ROCE_TRANSPORT_CNP = 4,
	ROCE_TRANSPORT_XRC = 5,
	ROCE_TRANSPORT_VENDOR = 6   /* 0xC0..0xFF: not a standard transport */
};

enum roce_opcode {
#define ROCE_OP(sym, val, hdrs, flags) ROCE_OP_##sym = (val),
#include <roce/opcodes.def>
#undef ROCE_OP
	ROCE_OP_COUNT_ = 256
};

struct roce_opcode_info {
	const char *name;           /* "RC_SEND_FIRST"; NULL = reserved/unknown */
	uint32_t hdrs;              /* ROCE_H_* presence mask */
	uint32_t flags;             /* ROCE_F_* */
	uint8_t hdr_len;            /* bytes of extension headers after the BTH */
	uint8_t off[ROCE_HDR_COUNT];/* offset of each present header after the BTH */
};

ROCE_API extern const struct roce_opcode_info roce_opcodes[256];

/* Length of one extension header (ROCE_HDR_*), 0 for an invalid index. */
ROCE_API unsigned roce_hdr_len(enum roce_hdr h);
/* Short name of an extension header ("RETH"). */
ROCE_API const char *roce_hdr_name(enum roce_hdr h);

static inline const struct roce_opcode_info *roce_opcode_info(uint8_t opcode)
{
	return &roce_opcodes[opcode];
}

static inline enum roce_transport roce_opcode_transport(uint8_t opcode)
{
	unsigned p = opcode >> 5;
	return p <= 5 ? (enum roce_transport)p : ROCE_TRANSPORT_VENDOR;
}

/* "RC_SEND_FIRST", or "UNKNOWN" for reserved opcodes. */
ROCE_API const char *roce_opcode_name(uint8_t opcode);
/* "RC", "UC", "RD", "UD", "CNP", "XRC", "VENDOR". */
ROCE_API const char *roce_transport_name(enum roce_transport t);
/* Opcode by name (case-insensitive; "RC_SEND_ONLY" or "0x04"); -1 if unknown. */
ROCE_API int roce_opcode_by_name(const char *name);

#ifdef __cplusplus
}
#endif

#endif /* ROCE_OPCODE_H */
