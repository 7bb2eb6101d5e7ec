/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * capread_int.h - private to the capture reader: the open file's state, the
 * formats' constants and byte loaders, shared by capread_src.c (byte source),
 * capread_ahead.c (helper threads), capread_ng.c (pcapng), capread_meta.c and
 * capread_open.c (pcap, open/close).  Types and inline loaders only: each of
 * those files declares its functions in its own header.  Not installed.
 */
#ifndef ROCE_CAPREAD_INT_H
#define ROCE_CAPREAD_INT_H

#include "capread.h"
#include "capio_int.h"

#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <zlib.h>

#define PCAP_MAGIC_US 0xa1b2c3d4u
#define PCAP_MAGIC_NS 0xa1b23c4du
#define PCAP_MAGIC_MOD 0xa1b2cd34u /* Alexey Kuznetzov's "modified" pcap */
#define PCAP_MAGIC_IXIA_HW 0x1c0001acu /* Ixia lcap: 4 more file header bytes */
#define PCAP_MAGIC_IXIA_SW 0x1c0001abu
#define PCAP_HDR_LEN 24u

#define NG_SHB 0x0a0d0d0au
#define NG_IDB 0x00000001u
#define NG_OPB 0x00000002u
#define NG_SPB 0x00000003u
#define NG_EPB 0x00000006u
#define NG_JOURNAL 0x00000009u  /* systemd Journal Export block */
#define NG_CUSTOM 0x00000badu
#define NG_CUSTOM_NOCOPY 0x40000badu
#define NG_BOM 0x1a2b3c4du

#define NG_OPT_ENDOFOPT 0
#define NG_OPT_COMMENT 1
#define NG_OPT_SHB_HARDWARE 2
#define NG_OPT_SHB_OS 3
#define NG_OPT_SHB_USERAPPL 4
#define NG_OPT_IF_NAME 2
#define NG_OPT_IF_DESCRIPTION 3
#define NG_OPT_IF_TSRESOL 9
#define NG_OPT_IF_TSOFFSET 14

/* Interfaces per section: Wireshark has no limit; this one bounds the table
 * (32 bytes each) at 32 MiB. */
#define MAX_IFACES (1u << 20)
#define STREAM_MIN_BUF (64u * 1024u)
#define STREAM_FIRST_BUF (4u * 1024u)   /* stream: the record buffer's first size */
#define GZ_BUFFER (128u * 1024u)
#define ERR_LEN 1024

#define unlikely(x) __builtin_expect(!!(x), 0)

enum cap_fmt { FMT_PCAP, FMT_PCAPNG, FMT_EMPTY };
enum ts_conv { TS_MUL, TS_DIV, TS_BIN, TS_ZERO };

__extension__ typedef __int128 cap_i128;
__extension__ typedef unsigned __int128 cap_u128;

struct cap_iface {
	int linktype;
	uint32_t snaplen;
	uint8_t conv;       /* enum ts_conv; TS_ZERO: ticks below 10^-29 s are < 1 ns */
	uint8_t shift;      /* TS_BIN: ticks are 2^-shift s */
	uint64_t factor;    /* TS_MUL: ns per tick; TS_DIV: ticks per ns */
	int64_t offset_s;   /* if_tsoffset, seconds */
};

/* One pcapng metadata string (roce_cap_meta_get()). */
struct cap_meta {
	uint8_t kind;       /* enum roce_cap_meta_kind */
	uint32_t section, ifindex;
	char *text;
};

/*
 * roce_cap_set_read_buffer(): the file read with pread() into one reused
 * buffer (capread_rfill.c: the bytes; capread_rbuf.c: the records).  The
 * buffer: slack bytes, then room bytes (the read() target).  [lo, hi) are
 * the bytes read and not yet consumed, lo at the reader's position; hi at
 * file offset rd_off.
 */
struct cap_rbuf {
	uint8_t *mem;           /* slack, then room bytes */
	size_t slack, room, bufsize;
	const uint8_t *lo, *hi;
	const uint8_t *wend;    /* pcap: the records in [lo, wend) are whole and walked */
	uint64_t rd_off;        /* file offset of hi */
	uint64_t size;          /* the file's size at the switch: never read past it */
	uint8_t *v;             /* pcap: fn's byte of the records walked, v[vk] lo's */
	size_t vcap, vk, vn;
	bool eof;               /* a read came short: nothing more to read */
	uint64_t test_cut;      /* ROCE_CAP_TEST_CUT_AT_FRAME (capr_test_cut()), 0 none */
	roce_cap_ahead_fn fn;
	void *user;
	uint32_t min;
	/* pcapng: a record read after the first of a run that cannot join it (flags,
	 * another link type), handed out first by the next call */
	bool pend;
	struct roce_cap_record pend_rec;
};

struct roce_capfile {
	/* Source: a memory window (mmap or caller's) or a zlib stream. */
	bool mem;
	const uint8_t *base; /* mem: whole input */
	size_t len;
	uint64_t pos;        /* bytes consumed (uncompressed offset) */
	void *map;           /* mmap()ed region to unmap, or NULL */
	size_t map_len;
	size_t map_released; /* bytes at the start of map already given back */
	size_t pf_next;      /* mapped: bytes [0, pf_next) prefetched (capr_prefetch_to()) */
	bool pf_ahead;       /* the helper's records: their lines are prefetched from its
			      * offsets (capr_ahead_take()), not every line */
	/* page helper thread for large mapped files (see map_helper) */
	bool helper_on;
	pthread_t helper;
	pthread_mutex_t helper_mu;
	pthread_cond_t helper_cv;
	size_t helper_pos;   /* reader position as last told to the helper */
	pthread_mutex_t release_mu;  /* map_released: helper, or reader if the helper lags */
	atomic_size_t map_released_a;  /* map_released, for lock-free peeking */
	atomic_size_t map_keep;        /* bytes kept mapped behind the reader (capr_release_to()) */
	bool helper_stop;
	bool helper_drain;   /* roce_cap_done(): give the whole mapping back, then end */
	bool helper_pending; /* start the helper at the first roce_cap_next() */
	struct cap_ahead *ah;          /* roce_cap_set_ahead(): shared with the helper */
	struct cap_rbuf *rb;           /* roce_cap_set_read_buffer(): read(), not the mapping */
	_Atomic uintptr_t *ah_fault;   /* the helper's fault page (0 none), read inline */
	roce_cap_ahead_fn ahead_fn;
	uint64_t ahead_taken;          /* records handed out with a helper's byte */
	void *ahead_user;
	uint32_t ahead_min;            /* shorter records: not given to ahead_fn */
	/* the helper's bytes taken inline (capr_ahead_next(), capread_ahead.h): records
	 * [ah_k, ah_fast) are within the reader's current chunk and need no chunk work;
	 * ah_v NULL: the reader's chunk (byte 0), else the helper's published bytes */
	uint64_t ah_k;                 /* index of the next record handed out */
	uint64_t ah_fast;
	const uint8_t *ah_v;           /* the helper's byte ring, or NULL */
	const uint64_t *ah_end;        /* the helper's record end offsets (prefetch) */
	int fd;              /* stream source, or the mapped file (for fstat) */
	atomic_int sigbus;   /* mapped file: a page vanished (set by the SIGBUS handler) */
	bool shrank_seen;    /* mapped file: found shorter than mapped */
	int guard_slot;      /* slot in the SIGBUS handler's table, -1 none */
	/* the caller's side of a cut (roce_cap_shrink_flag(), roce_cap_rec_intact()):
	 * a fault in the mapping on any thread, the lowest page made zeros (UINTPTR_MAX
	 * none), the zero word of the last page the handler makes nonzero (NULL none) */
	volatile int cut;
	atomic_uintptr_t zero_from;
	volatile int *sentinel;
	bool grown;          /* the sentinel (past the end) became file bytes: &cut instead */
	uint64_t check_from; /* records ending past this offset: ROCE_CAP_REC_RECHECK */
	uint64_t test_cut;   /* ROCE_CAP_TEST_CUT_AT_FRAME (capr_test_cut()), 0 none */
	/* stream: input buffer, and zlib when the input is gzip (zstd, lz4: z) */
	uint8_t *in;
	size_t in_pos, in_len;
	size_t in_cap;       /* in's size: GZ_BUFFER, less at first for a small file (capr_in_fill) */
	uint64_t in_read;    /* input bytes read so far */
	bool in_eof, started, gzip, zinit, zend;
	z_stream zs;
	struct cap_z *z;     /* zstd or lz4 input (capread_z.c), else NULL */
	uint8_t *zout;       /* gzip, zstd, lz4: decompressed bytes not yet handed out */
	size_t zout_pos, zout_len;
	const volatile sig_atomic_t *intr;
	uint8_t *buf;        /* stream: bytes of the current record, from buf[0] */
	size_t have, cap;
	size_t pend_off, pend_len; /* stream: bytes read ahead, at buf + pend_off (src_consume()) */
	uint64_t file_size;  /* 0 when unknown */
	int src_status;      /* status of the last short stream read, 0 = plain EOF */
	char src_err[160];

	/* Format state. */
	int fmt;
	bool be;             /* file / current section is big-endian */
	bool modified;       /* pcap: 24-byte record headers (rec_hl 24) */
	uint8_t rec_hl;      /* pcap: record header bytes, 16 (20 Nokia, 24 or 28 modified) */
	bool ispipe;         /* stdin or not a regular file: no look ahead at open */
	uint32_t max_caplen; /* pcap: capr_max_caplen() of the file's link type */
	bool nsec;           /* pcap: nanosecond timestamps */
	uint8_t lens_swap;   /* pcap < 2.3: caplen/len swapped (2); 2.3: maybe (1) */
	int linktype;        /* pcap header or first interface ever seen */
	uint32_t snaplen;
	struct cap_iface *ifs;
	uint32_t nifs, ifs_cap;

	uint64_t frame_no;   /* frames numbered (delivered, custom, journal) */
	int status;          /* 0 running, 1 EOF, < 0 sticky error */
	uint64_t warnings;
	bool warn_pending;   /* a warning since the last delivered record */
	/* pcapng metadata strings (capread_meta.c) */
	struct cap_meta *meta;
	uint32_t nmeta, nsections;
	uint64_t meta_dropped;
	char *name;
	char fmtname[24];
	char err[ERR_LEN];
	char warn[ERR_LEN];
};

/*
 * The largest captured length Wireshark 4.0 reads for a link-layer type
 * (wtap_max_snaplen_for_encap(): 262144, more for D-Bus, EBHSCR and USB), at most
 * ROCE_CAP_MAX_RECORD: a longer record is an error, as it is for Wireshark and libpcap.
 */
static inline uint32_t capr_max_caplen(int linktype)
{
	switch (linktype) {
	case 231:       /* DBUS */
	case 186:       /* USB_FREEBSD */
	case 189:       /* USB_LINUX */
	case 220:       /* USB_LINUX_MMAPPED */
	case 249:       /* USBPCAP */
	case 266:       /* USB_DARWIN */
		return ROCE_CAP_MAX_RECORD;     /* Wireshark: 128 MiB */
	case 279:       /* EBHSCR */
		return 8u << 20;
	default:
		return 262144u;
	}
}

/* Byte-order helpers: explicit, no host assumptions. */
static inline uint16_t ld16(const uint8_t *p, bool be)
{
	return be ? (uint16_t)(p[0] << 8 | p[1]) : (uint16_t)(p[1] << 8 | p[0]);
}

static inline uint32_t ld32(const uint8_t *p, bool be)
{
	uint32_t v;

	memcpy(&v, p, 4);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return be ? __builtin_bswap32(v) : v;
#elif defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return be ? v : __builtin_bswap32(v);
#else
	(void)v;
	return be ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
		  : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
#endif
}

static inline uint64_t ld64(const uint8_t *p, bool be)
{
	uint64_t a = ld32(p, be), b = ld32(p + 4, be);

	return be ? a << 32 | b : b << 32 | a;
}

/*
 * A classic pcap record header at p (both the reader and its helper read
 * them): seconds, sub-second ticks, captured and original length, the last
 * two swapped back for the old format versions that wrote them the other way.
 */
struct pcap_rec_hdr {
	uint32_t sec, sub, caplen, wirelen;
};

static inline struct pcap_rec_hdr pcap_rec_hdr(const struct roce_capfile *c, const uint8_t *p)
{
	struct pcap_rec_hdr h = { ld32(p, c->be), ld32(p + 4, c->be), ld32(p + 8, c->be),
				  ld32(p + 12, c->be) };

	if (c->lens_swap && (c->lens_swap == 2 || h.caplen > h.wirelen)) {
		uint32_t t = h.caplen;

		h.caplen = h.wirelen;
		h.wirelen = t;
	}
	return h;
}

static inline void st32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/* mapped files: pages are given back in steps, a window behind the reader kept */
#define CAP_RELEASE_STEP (16u << 20)
#define CAP_PF_DIST 4096u             /* bytes the reader prefetches ahead */
#define CAP_PF_MIN 256u               /* shorter records: left to the hardware prefetcher */
#define CAP_RELEASE_KEEP (2u * ROCE_CAP_MAX_RECORD)     /* the keep window at most */
#define CAP_RELEASE_KEEP_MIN (1u << 20)                 /* ... and at least */
#define CAP_RELEASE_LAG (4u * CAP_RELEASE_STEP)  /* helper this far behind: reader releases */
#define CAP_RELEASE_TAIL (2u * CAP_RELEASE_STEP) /* the file's last bytes: released ... */
#define CAP_RELEASE_FINE (2u << 20)              /* ... in these steps */

/*
 * How far the pages behind a reader at pos may be given back: up to pos less
 * the keep window (map_keep: more than the bytes of the records one call hands
 * out, capr_map_keep()), in 16 MiB steps, and in CAP_RELEASE_FINE steps over
 * the file's last CAP_RELEASE_TAIL bytes, so that a helper thread gives back
 * nearly all of the mapping while the reader still works and little is left
 * for roce_cap_close()'s munmap() (docs/perf/analyze-threads.md).  0: nothing yet.
 * (A page given back too early costs a page fault, never a wrong byte: the
 * mapping is a private read-only one of the file.)
 */
static inline size_t capr_release_to(struct roce_capfile *c, size_t pos)
{
	size_t keep = atomic_load_explicit(&c->map_keep, memory_order_relaxed);
	size_t step = pos + CAP_RELEASE_TAIL >= c->map_len ? CAP_RELEASE_FINE : CAP_RELEASE_STEP;

	return pos > keep ? (pos - keep) & ~(step - 1) : 0;
}

/*
 * The least reader position in the file's tail at which capr_release_to()
 * passes released, SIZE_MAX before the tail (where the reader's 16 MiB steps
 * wake a helper anyway, capr_map_moved()).
 */
static inline size_t capr_release_next(struct roce_capfile *c, size_t released)
{
	size_t keep = atomic_load_explicit(&c->map_keep, memory_order_relaxed);
	size_t p = released + CAP_RELEASE_FINE + keep;

	return p + CAP_RELEASE_TAIL >= c->map_len ? p : SIZE_MAX;
}

#endif /* ROCE_CAPREAD_INT_H */
