/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * capread_open.c - the capture reader's top (capread.h): opening a file, a
 * descriptor, memory or a stream, format detection, classic pcap records,
 * the record loop that dispatches to pcapng (capread_ng.c) and takes the
 * helper's verdicts (capread_ahead.c), warnings and close.  The byte source
 * underneath is capread_src.c.
 */
#define _GNU_SOURCE
#include "capread.h"
#include "capguard.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "capread_ahead.h"
#include "capread_int.h"
#include "capread_pages.h"
#include "capread_meta.h"
#include "capread_rbuf.h"
#include "capread_ng.h"
#include "capread_rec.h"
#include "capread_src.h"
#include "capread_z.h"

/* ---- pcap ------------------------------------------------------------------ */

static int pcap_next(struct roce_capfile *c, struct roce_cap_record *rec)
{
	size_t hl = c->rec_hl, avail = 0;
	const uint8_t *p = src_need(c, hl, &avail);
	uint32_t sec, sub, caplen, wirelen;
	struct pcap_rec_hdr h;

	if (!p) {
		if (avail == 0 && !c->src_status)
			return 0;
		return capr_fail_short(c, "record header", avail, hl);
	}
	h = pcap_rec_hdr(c, p);
	sec = h.sec;
	sub = h.sub;
	caplen = h.caplen;
	wirelen = h.wirelen;
	if (unlikely(c->map && !(sec | sub | caplen | wirelen)) && capr_map_shrunk(c))
		return capr_fail_shrank(c); /* zeros past the new end of the file */
	if (caplen > c->max_caplen)
		return capr_fail(c, ROCE_E_MALFORMED,
				 "record length %" PRIu32 " exceeds limit %" PRIu32
				 " (Wireshark's for link-layer type %d)", caplen, c->max_caplen,
				 c->linktype);
	p = src_need(c, hl + caplen, &avail);
	if (!p)
		return capr_fail_short(c, "record data", avail - hl, caplen);
	rec->flags = 0;
	rec->wirelen = capr_check_lengths(c, caplen, c->snaplen, wirelen);
	rec->data = p + hl;
	rec->caplen = caplen;
	/* at most 2^32 s + 2^32 us: no overflow */
	rec->ts_ns = (uint64_t)sec * 1000000000u + (c->nsec ? sub : (uint64_t)sub * 1000u);
	rec->linktype = c->linktype;
	rec->ifindex = 0;
	rec->section = 0;
	if (c->map) {
		if (!c->pf_ahead && caplen >= CAP_PF_MIN)
			capr_prefetch_to(c, c->pos + hl + caplen);
		/* touch the record's end: a vanished page faults here, not in the caller */
		if (caplen)
			(void)*(volatile const uint8_t *)(p + hl + caplen - 1);
		if (!capr_rec_intact(c, c->pos + hl + caplen, hl))
			return capr_fail_shrank(c);
	}
	src_consume(c, hl + caplen);
	return deliver(c, rec);
}


/* ---- open / close ---------------------------------------------------------- */

/* Copy a message to a caller's errbuf; if too long, keep its end ("...tail"). */
static void copy_err(char *errbuf, const char *msg)
{
	size_t n = strlen(msg);

	if (!errbuf)
		return;
	if (n < ROCE_ERRBUF_SIZE) {
		memcpy(errbuf, msg, n + 1);
		return;
	}
	memcpy(errbuf, "...", 3);
	memcpy(errbuf + 3, msg + n - (ROCE_ERRBUF_SIZE - 4), ROCE_ERRBUF_SIZE - 4);
	errbuf[ROCE_ERRBUF_SIZE - 1] = '\0';
}


static struct roce_capfile *cap_alloc(const char *name, char *errbuf)
{
	struct roce_capfile *c = calloc(1, sizeof(*c));

	if (c)
		c->name = strdup(name ? name : "(capture)");
	if (!c || !c->name) {
		free(c);
		capio_errbuf_printf(errbuf, "%s: out of memory", name ? name : "(capture)");
		return NULL;
	}
	for (char *q = c->name; *q; q++)
		if ((unsigned char)*q < 0x20 || *q == 0x7f)
			*q = '?'; /* messages stay on one line */
	c->fd = -1;
	c->guard_slot = -1;
	c->linktype = -1;
	c->check_from = UINT64_MAX;
	return c;
}

void roce_cap_escape(const char *name, char *out, size_t outlen)
{
	size_t i = 0;

	if (!out || !outlen)
		return;
	for (; name && name[i] && i + 1 < outlen; i++)
		out[i] = (unsigned char)name[i] < 0x20 || name[i] == 0x7f ? '?' : name[i];
	out[i] = '\0';
}

static bool pcap_magic(uint32_t m)
{
	return m == PCAP_MAGIC_US || m == PCAP_MAGIC_NS || m == PCAP_MAGIC_MOD ||
	       m == PCAP_MAGIC_IXIA_HW || m == PCAP_MAGIC_IXIA_SW;
}

/*
 * Wireshark 4.0's figure of demerit of a record header length hl on the first three
 * records (libpcap.c, libpcap_try()): 0 when they look right or the file ends cleanly,
 * else the number of things wrong with the first record that looks wrong (1 for a short
 * read).  Nothing is consumed.
 */
static int pcap_try(struct roce_capfile *c, size_t hl)
{
	size_t off = 0, avail = 0;

	for (int i = 0; i < 3; i++) {
		const uint8_t *p = src_need(c, off + hl, &avail);
		struct pcap_rec_hdr h;
		int ret;

		if (!p)
			return avail == off && !c->src_status ? 0 : 1;
		h = pcap_rec_hdr(c, p + off);
		ret = (h.sub >= 1000000) + (h.caplen > c->max_caplen) +
		      (h.wirelen > (128u << 20)) + (h.caplen > c->snaplen) + (h.caplen > h.wirelen);
		if (ret)
			return ret;
		if (off + hl + h.caplen > 2 * (size_t)ROCE_CAP_MAX_RECORD)
			return 0;       /* bounded look-ahead (only USB records get here) */
		if (!src_need(c, off + hl + h.caplen, &avail))
			return 1;
		off += hl + h.caplen;
	}
	return 0;
}

/*
 * Which record header a pcap file of the standard microsecond magic (2.4 and later)
 * or the "modified" magic has, as Wireshark 4.0 decides it (not for pipes): the
 * first of the candidates whose first records look right, else the least bad
 * (standard: 16 bytes, 24 of Red Hat's ss990417 patch, 20 of Nokia; modified: 24
 * of ss991029, 28 of SuSE's ss990915).
 */
static int pcap_variant(struct roce_capfile *c)
{
	static const uint8_t std[] = { 16, 24, 20 }, mod[] = { 24, 28 };
	const uint8_t *v = c->modified ? mod : std;
	int n = c->modified ? 2 : 3, best = INT32_MAX;

	for (int i = 0; i < n; i++) {
		int merit = pcap_try(c, v[i]);

		if (merit < best) {
			best = merit;
			c->rec_hl = v[i];
		}
		if (!merit)
			break;
	}
	if (c->src_status == ROCE_E_NOMEM)
		return capr_fail(c, c->src_status, "%s", c->src_err);
	return 0;
}

static bool magic_prefix(const uint8_t *p, size_t n)
{
	static const uint32_t magics[] = { PCAP_MAGIC_US, PCAP_MAGIC_NS, PCAP_MAGIC_MOD,
					   PCAP_MAGIC_IXIA_HW, PCAP_MAGIC_IXIA_SW, NG_SHB };

	for (size_t i = 0; i < sizeof(magics) / sizeof(magics[0]); i++) {
		uint8_t le[4], be[4];

		st32(le, magics[i]);
		for (int k = 0; k < 4; k++)
			be[k] = le[3 - k];
		if (!memcmp(p, le, n) || !memcmp(p, be, n))
			return true;
	}
	return false;
}

/* Parse the file header (and, for pcapng, up to the first IDB). */
static int cap_start(struct roce_capfile *c)
{
	size_t avail = 0;
	const uint8_t *p = src_need(c, 4, &avail);
	uint32_t m, lt;
	size_t hlen;
	bool ixia, known, aix = false;

	if (!p) {
		if (c->src_status)
			return capr_fail(c, c->src_status, "%s", c->src_err);
		if (avail == 0) {
			/* a 0-byte file has no frames (capinfos: 0 packets) */
			c->fmt = FMT_EMPTY;
			snprintf(c->fmtname, sizeof(c->fmtname), "empty%s", capr_z_suffix(c));
			c->status = 1;
			return 0;
		}
		p = c->mem ? c->base : c->buf;
		if (magic_prefix(p, avail))
			return capr_fail(c, ROCE_E_TRUNC,
					 "truncated file header (%zu of %u bytes)", avail,
					 PCAP_HDR_LEN);
		m = 0;
		for (size_t i = 0; i < avail; i++)
			m = m << 8 | p[i];
		return capr_fail(c, ROCE_E_MALFORMED,
				 "not a pcap or pcapng file (magic 0x%0*" PRIx32 ")",
				 (int)avail * 2, m);
	}
	m = ld32(p, false);
	if (m == NG_SHB) {
		int r;

		c->fmt = FMT_PCAPNG;
		snprintf(c->fmtname, sizeof(c->fmtname), "pcapng%s", capr_z_suffix(c));
		r = capr_ng_next(c, NULL, true);
		return r < 0 ? r : 0;
	}
	if (pcap_magic(m))
		c->be = false;
	else if (pcap_magic(ld32(p, true)))
		c->be = true;
	else
		return capr_fail(c, ROCE_E_MALFORMED,
				 "not a pcap or pcapng file (magic 0x%08" PRIx32 ")",
				 ld32(p, true));
	m = ld32(p, c->be);
	ixia = m == PCAP_MAGIC_IXIA_HW || m == PCAP_MAGIC_IXIA_SW;
	hlen = PCAP_HDR_LEN + (ixia ? 4 : 0);
	c->fmt = FMT_PCAP;
	c->nsec = m == PCAP_MAGIC_NS;
	c->modified = m == PCAP_MAGIC_MOD;
	c->rec_hl = c->modified ? 24 : 16;
	/* the record header is known, else tried on the first records (pcap_variant()) */
	known = !c->modified && m != PCAP_MAGIC_US;
	p = src_need(c, hlen, &avail);
	if (!p)
		return capr_fail_short(c, "file header", avail, hlen);
	{
		uint16_t major = ld16(p + 4, c->be), minor = ld16(p + 6, c->be);

		/* Wireshark reads any major version >= 2 (libpcap refuses > 2) */
		if (major < 2)
			return capr_fail(c, ROCE_E_UNSUPPORTED,
					 "unsupported pcap version %u.%u", major,
					 minor);
		if (major == 543) {
			/* DG/UX tcpdump: lengths in the pre-2.3 order */
			c->lens_swap = 2;
			known = true;
		} else if (major > 2) {
			capr_warn(c,
				  "pcap version %u.%u (read as 2.4, like Wireshark)", major, minor);
			c->lens_swap = 0;
		} else {
			c->lens_swap = minor < 3 ? 2 : minor == 3 ? 1 : 0;
			known |= minor <= 3;
		}
		c->snaplen = ld32(p + 16, c->be);
		lt = ld32(p + 20, c->be);
		/* AIX: version 2.2, RFC 1573 ifType values, nanoseconds (as Wireshark) */
		if (m == PCAP_MAGIC_US && major == 2 && minor == 2 &&
		    (lt == 6 || lt == 9 || lt == 15 || lt == 24)) {
			lt = lt == 6 ? 1 : lt == 9 ? 6 : lt == 15 ? 10 : 0;
			c->nsec = true;
			aix = true;
		}
	}
	if (lt & 0x03ff0000u)
		return capr_fail(c, ROCE_E_UNSUPPORTED,
				 "link-layer type field 0x%08" PRIx32 ": reserved bits not zero",
				 lt);
	c->linktype = (int)(lt & 0xffffu);
	c->max_caplen = capr_max_caplen(c->linktype);
	src_consume(c, hlen);
	if (!known && c->ispipe) {
		/* Wireshark cannot tell the two modified formats apart without reading ahead */
		if (c->modified)
			return capr_fail(c, ROCE_E_UNSUPPORTED,
					 "modified pcap (magic 0x%08" PRIx32 ") cannot be read "
					 "from a pipe (as Wireshark)", m);
	} else if (!known) {
		int r = pcap_variant(c);

		if (r < 0)
			return r;
	}
	snprintf(c->fmtname, sizeof(c->fmtname), "%s%s",
		 aix ? "pcap-aix" : ixia ? "pcap-ixia" : c->nsec ? "pcap-ns" :
		 c->modified ? (c->rec_hl == 24 ? "pcap-modified" : "pcap-ss990915") :
		 c->rec_hl == 24 ? "pcap-ss990417" : c->rec_hl == 20 ? "pcap-nokia" : "pcap",
		 capr_z_suffix(c));
	return 0;
}

static roce_capfile_t *cap_finish_open(struct roce_capfile *c, char *errbuf)
{
	if (cap_start(c) < 0) {
		copy_err(errbuf, c->err);
		roce_cap_close(c);
		return NULL;
	}
	return c;
}

roce_capfile_t *roce_cap_open_mem(const uint8_t *data, size_t len, const char *name,
				  char *errbuf)
{
	struct roce_capfile *c = cap_alloc(name, errbuf);

	if (!c)
		return NULL;
	c->mem = true;
	c->base = data;
	c->len = data ? len : 0;
	c->file_size = c->len;
	if (capr_z_magic(c->base, c->len) != CAP_Z_NONE) {
		capr_fail(c, ROCE_E_UNSUPPORTED, "%s data not supported in memory",
			  capr_z_name(capr_z_magic(c->base, c->len)));
		copy_err(errbuf, c->err);
		roce_cap_close(c);
		return NULL;
	}
	return cap_finish_open(c, errbuf);
}

roce_capfile_t *roce_cap_open_fd(int fd, const char *name, int stream, char *errbuf)
{
	struct roce_capfile *c = cap_alloc(name, errbuf);
	struct stat st;

	if (!c) {
		close(fd);
		return NULL;
	}
	c->fd = fd;
	if (fstat(fd, &st) != 0) {
		capr_fail(c, ROCE_CAP_E_IO, "%s", strerror(errno));
		goto err;
	}
	if (S_ISREG(st.st_mode) && st.st_size > 0)
		c->file_size = (uint64_t)st.st_size;
	c->ispipe = !S_ISREG(st.st_mode);      /* Wireshark: a FIFO (stdin may be a file) */
	if (!stream && S_ISREG(st.st_mode)) {
		uint8_t m[4];
		ssize_t n;

		n = st.st_size ? pread(fd, m, sizeof(m), 0) : 0;
		if (n < 0) {
			capr_fail(c, ROCE_CAP_E_IO, "read error: %s", strerror(errno));
			goto err;
		}
		if (capr_z_magic(m, n > 0 ? (size_t)n : 0) == CAP_Z_NONE && st.st_size > 0 &&
		    (uint64_t)st.st_size <= (uint64_t)SIZE_MAX) {
			void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);

			if (map != MAP_FAILED) {
				/* registered with the SIGBUS handler, or streamed */
				c->guard_slot = roce_capguard_add(map, (size_t)st.st_size,
								  &c->sigbus);
				if (c->guard_slot < 0) {
					munmap(map, (size_t)st.st_size);
					goto stream;
				}
				madvise(map, (size_t)st.st_size, MADV_SEQUENTIAL);
				c->map = map;
				c->map_len = (size_t)st.st_size;
				capr_map_watch(c);
				c->test_cut = capr_test_cut_config();
				/* the first window is populated by the first roce_cap_next()
				 * (not if roce_cap_set_read_buffer() unmaps the file first);
				 * the second is the helper's, or the reader's without one */
				atomic_init(&c->map_keep, CAP_RELEASE_KEEP);
				c->helper_pending = true;
				c->mem = true;
				c->base = map;
				c->len = c->map_len;
				/* fd stays open: fstat() tells whether the file shrank */
				return cap_finish_open(c, errbuf);
			}
		}
		/* gzip, zstd, lz4, or mmap impossible: stream it. */
	}
stream:
	return cap_finish_open(c, errbuf);
err:
	copy_err(errbuf, c->err);
	roce_cap_close(c);
	return NULL;
}

roce_capfile_t *roce_cap_open(const char *path, char *errbuf)
{
	int fd;

	if (!path) {
		capio_errbuf_printf(errbuf, "(null): no file name");
		return NULL;
	}
	if (strcmp(path, "-") == 0) {
		fd = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3);
		if (fd < 0) {
			capio_errbuf_printf(errbuf, "<stdin>: %s", strerror(errno));
			return NULL;
		}
		return roce_cap_open_fd(fd, "<stdin>", 1, errbuf);
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		char safe[ROCE_ERRBUF_SIZE];
		int e = errno;

		roce_cap_escape(path, safe, sizeof(safe));
		capio_errbuf_printf(errbuf, "%s: %s", safe, strerror(e));
		return NULL;
	}
	return roce_cap_open_fd(fd, path, 0, errbuf);
}

int roce_cap_next(roce_capfile_t *c, struct roce_cap_record *rec)
{
	int r;

	if (!c || !rec)
		return ROCE_E_INVAL;
	if (c->rb)
		return capr_rbuf_next(c, rec, 1);       /* capread_rbuf.c */
	if (c->status)
		return c->status < 0 ? c->status : 0;
	if (unlikely(c->helper_pending)) {
		c->helper_pending = false;
		capr_map_prefetch(c, 0);
		capr_map_keep_set(c);   /* the header read: the snapshot length known */
		if (!c->ahead_fn || !capr_ahead_start(c))
			capr_pages_start(c);
		if (!c->helper_on)
			capr_map_prefetch(c, CAP_RELEASE_STEP);
	}
	/* the file shrank while the caller had the previous record */
	if (unlikely(c->map) && (c->shrank_seen ||
				 atomic_load_explicit(&c->sigbus, memory_order_relaxed)))
		return capr_fail_shrank(c);
	r = c->fmt == FMT_PCAP ? pcap_next(c, rec) : capr_ng_next(c, rec, false);
	if (r <= 0 && unlikely(c->map) && capr_map_shrunk(c))
		r = capr_fail_shrank(c);  /* not a clean end or a corrupt record: the file shrank */
	if (r > 0 && unlikely(c->pos > c->check_from))
		rec->flags |= ROCE_CAP_REC_RECHECK;     /* past the sentinel's page start */
	if (r == 0)
		c->status = 1;
	else if (r > 0 && !c->ah)
		rec->ahead = 0;
	else if (r > 0 && (rec->ahead = capr_ahead_next(c)) != 0)
		c->ahead_taken++;
	return r;
}

/*
 * roce_cap_next_batch()'s run: classic little-endian pcap 2.4 (16-byte
 * record headers) in memory or a mapping.  A record is taken here only when
 * pcap_next() would take it without a word (no warning, no error) and the
 * next record's header lies within the current 16 MiB window (so that
 * src_consume() would not move the window) and is not all zeros: with the
 * SIGBUS flag and the helper's fault checked after the loads, what
 * capr_rec_intact() asks of a mapping.  Anything else ends the run, and
 * roce_cap_next() takes that record.  Each record is committed (position,
 * frame number, the helper's byte) in the order roce_cap_next() does it.
 *
 * With roce_cap_set_ahead()'s helper, ah says where the helper's bytes come
 * from: RUN_AH_MINE and RUN_AH_HELPER are runs within c->ah_fast (the
 * reader's chunk, byte 0; the helper's, capr_ahead_byte()), RUN_AH a run of
 * records that need capr_ahead_take() (a chunk's first, or one the helper may
 * not have published), which ends after the first record that leaves the next
 * one to the inline runs.
 *
 * A run also ends CAP_RUN_BYTES past its first record's end (a record that
 * ends later starts the next run): what 16 records of the large mix span, the
 * run the reader's prefetch distance was measured with; runs of small records
 * may hold more of them (roce-analyze asks for 64).
 */
enum { RUN_NO_AH, RUN_AH, RUN_AH_MINE, RUN_AH_HELPER };
#define CAP_RUN_BYTES (16u << 10)

static inline __attribute__((always_inline)) unsigned pcap_run_as(struct roce_capfile *c,
	struct roce_cap_record *recs, unsigned max, const bool map, const int ah)
{
	const uint8_t *const base = c->base;
	/* capr_check_lengths() has nothing to say, and pcap_next() no error */
	const uint32_t lim = c->snaplen && c->snaplen < c->max_caplen ? c->snaplen :
			     c->max_caplen;
	const uint64_t mul = c->nsec ? 1u : 1000u;
	const int lt = c->linktype;
	uint64_t pos = c->pos, stop = c->len, frame_no = c->frame_no, h0, h1;
	_Atomic uintptr_t *const ah_fault = c->ah_fault;
	const uint64_t *const ah_end = c->ah_end;
	const uint8_t *const v = c->ah_v;
	uint64_t k = c->ah_k, taken = 0;
	bool pf_ahead = c->pf_ahead;
	const size_t map_len = c->map_len, pf_top = capr_pf_top(map_len);
	size_t pf = c->pf_next;         /* capr_prefetch_pos(), in a register for the run */
	struct roce_cap_record *rec = recs, *const rec_end = recs + max;

	if (map && (pos / CAP_RELEASE_STEP + 1) * CAP_RELEASE_STEP < stop)
		stop = (pos / CAP_RELEASE_STEP + 1) * CAP_RELEASE_STEP;
	if (pos + 32 > stop)
		return 0;
	stop -= 16;     /* a record must end here at the latest: the next header follows */
	if (map && stop > c->check_from)
		stop = c->check_from;   /* the last pages' records: one at a time, flagged */
	/* a header as two words: seconds and ticks, captured and original length */
	h0 = ld64(base + pos, false);
	h1 = ld64(base + pos + 8, false);
	/* mapped: a header after the first is known not to be zeros (tested below) */
	if (map && !(h0 | h1))
		return 0;
	if (pos + 16 + (uint32_t)h1 + CAP_RUN_BYTES < stop)
		stop = pos + 16 + (uint32_t)h1 + CAP_RUN_BYTES;
	for (; rec < rec_end; rec++) {
		const uint32_t caplen = (uint32_t)h1, wirelen = (uint32_t)(h1 >> 32);
		const uint64_t end = pos + 16 + caplen;
		uint64_t n0, n1;

		if ((!map && !(h0 | h1)) || caplen > wirelen || caplen > lim || end > stop)
			break;
		if (map) {
			if (caplen >= CAP_PF_MIN && (ah == RUN_NO_AH || !pf_ahead))
				pf = capr_prefetch_pos(base, pf, end, pf_top, map_len);
		}
		/*
		 * Mapped: these loads are the record's end touched, where a vanished
		 * page faults (pcap_next() touches the record's last byte, here the next
		 * header's first ones, past it): pages vanish from an offset to the
		 * mapping's end (a file shrinks from its end; capguard maps zeros from
		 * the faulting page on, for the helper thread's faults too), so if the
		 * next header's page is there, every page of the record is.
		 */
		n0 = ld64(base + end, false);
		n1 = ld64(base + end + 8, false);
		if (map && (!(n0 | n1) || atomic_load_explicit(&c->sigbus, memory_order_relaxed) ||
			    (ah != RUN_NO_AH && atomic_load_explicit(ah_fault,
								     memory_order_relaxed))))
			break;
		rec->data = base + pos + 16;
		rec->caplen = caplen;
		rec->wirelen = wirelen;
		rec->ts_ns = (h0 & 0xffffffffu) * 1000000000u + (h0 >> 32) * mul;
		rec->linktype = lt;
		rec->ifindex = 0;
		rec->section = 0;
		rec->flags = 0;
		rec->frame_no = ++frame_no;
		if (ah != RUN_AH_HELPER)
			rec->ahead = 0;
		pos = end;
		if (ah == RUN_AH_MINE) {
			k++;
		} else if (ah == RUN_AH_HELPER) {
			/* v is not NULL here (pcap_run()) */
			uint8_t b = capr_ahead_byte(v, ah_end, base, k++);

			rec->ahead = b;
			taken += b != 0;
		} else if (ah == RUN_AH) {
			uint8_t b;

			/* the chunk work reads the position of the record taken */
			c->pos = pos;
			c->frame_no = frame_no;
			c->pf_next = pf;
			b = capr_ahead_take(c);
			rec->ahead = b;
			taken += b != 0;
			pf_ahead = c->pf_ahead;
			if (c->ah_k < c->ah_fast) {
				rec++;
				break;  /* the next ones inline */
			}
		}
		h0 = n0;
		h1 = n1;
	}
	c->pos = pos;
	c->frame_no = frame_no;
	c->have = 0;
	if (map)
		c->pf_next = pf;
	if (ah == RUN_AH_MINE || ah == RUN_AH_HELPER)
		c->ah_k = k;
	if (ah != RUN_NO_AH)
		c->ahead_taken += taken;
	return (unsigned)(rec - recs);
}

/* One loop for each source (a call per run: the loop keeps its own registers). */
#define PCAP_RUN_COPY(name, mapped, mode)                                                      \
	static __attribute__((noinline)) unsigned name(struct roce_capfile *c,               \
		struct roce_cap_record *recs, unsigned max)                                  \
	{                                                                                    \
		return pcap_run_as(c, recs, max, mapped, mode);                              \
	}
PCAP_RUN_COPY(pcap_run_mem, false, RUN_NO_AH)
PCAP_RUN_COPY(pcap_run_map, true, RUN_NO_AH)
PCAP_RUN_COPY(pcap_run_ah, true, RUN_AH)
PCAP_RUN_COPY(pcap_run_ah_mine, true, RUN_AH_MINE)
PCAP_RUN_COPY(pcap_run_ah_helper, true, RUN_AH_HELPER)
#undef PCAP_RUN_COPY

static unsigned pcap_run(struct roce_capfile *c, struct roce_cap_record *recs, unsigned max)
{
	const uint64_t start = c->pos;
	unsigned n, got;

	if (!c->map)
		return pcap_run_mem(c, recs, max);
	if (!c->ah)
		return pcap_run_map(c, recs, max);
	/* the helper's bytes: runs within one chunk inline, the chunk work between them
	 * (each within CAP_RUN_BYTES, and no new one after that many bytes) */
	for (n = 0; n < max && c->pos - start < CAP_RUN_BYTES; n += got) {
		uint64_t k = c->ah_k, f = c->ah_fast;
		unsigned m = max - n;

		if (k >= f) {
			got = pcap_run_ah(c, recs + n, m);
			if (!got)
				break;
			continue;       /* it stops where the next record is inline */
		}
		if (f - k < m)
			m = (unsigned)(f - k);
		if (c->ah_v)
			got = pcap_run_ah_helper(c, recs + n, m);
		else
			got = pcap_run_ah_mine(c, recs + n, m);
		if (got < m) {
			n += got;
			break;
		}
	}
	return n;
}

int roce_cap_next_batch(roce_capfile_t *c, struct roce_cap_record *recs, unsigned max)
{
	int n = 0;

	if (!c || !recs || !max)
		return ROCE_E_INVAL;
	if (c->rb)
		return capr_rbuf_next(c, recs, max);    /* capread_rbuf.c */
	if (c->mem && !c->status && c->fmt == FMT_PCAP && !c->be && c->rec_hl == 16 &&
	    !c->lens_swap && !c->helper_pending && !c->warn_pending && !c->shrank_seen)
		n = (int)pcap_run(c, recs, max);
	if (!n)
		n = roce_cap_next(c, recs);
	if (unlikely(c->test_cut) && n > 0 && c->test_cut - recs[0].frame_no < (unsigned)n)
		capr_test_cut(c, &recs[c->test_cut - recs[0].frame_no]);
	return n;
}

int roce_cap_peek(const roce_capfile_t *c, const uint8_t **data, uint32_t *caplen)
{
	size_t hl, left;
	struct pcap_rec_hdr h;

	if (c && c->rb)
		return capr_rbuf_peek(c, data, caplen);
	if (!c || c->status || !c->mem || c->fmt != FMT_PCAP || c->shrank_seen ||
	    atomic_load_explicit(&c->sigbus, memory_order_relaxed))
		return 0;
	hl = c->rec_hl;
	left = c->len - (size_t)c->pos;
	if (left < hl)
		return 0;
	h = pcap_rec_hdr(c, c->base + c->pos);
	if (h.caplen > left - hl)
		return 0;
	*data = c->base + c->pos + hl;
	*caplen = h.caplen;
	return 1;
}

uint64_t roce_cap_ahead_taken(const roce_capfile_t *c)
{
	return c ? c->ahead_taken : 0;
}

int roce_cap_set_ahead(roce_capfile_t *c, roce_cap_ahead_fn fn, void *user, uint32_t min_caplen)
{
	if (!c || !fn || !c->map || !c->helper_pending || c->status ||
	    (c->fmt != FMT_PCAP && c->fmt != FMT_PCAPNG))
		return 0;
	/* the helper walks 16- and 24-byte record headers only (capread_ahead.c) */
	if (c->fmt == FMT_PCAP && c->rec_hl != (c->modified ? 24 : 16))
		return 0;
	c->ahead_fn = fn;
	c->ahead_user = user;
	c->ahead_min = min_caplen;
	return 1;
}

uint64_t roce_cap_warnings(const roce_capfile_t *c)
{
	return c ? c->warnings : 0;
}

const char *roce_cap_warning(const roce_capfile_t *c)
{
	return c && c->warnings ? c->warn : "";
}

void roce_cap_set_interrupt(roce_capfile_t *c, const volatile sig_atomic_t *flag)
{
	if (c)
		c->intr = flag;
}

const char *roce_cap_error(const roce_capfile_t *c)
{
	return c && c->status < 0 ? c->err : "";
}

const char *roce_cap_format(const roce_capfile_t *c)
{
	return c ? c->fmtname : "";
}

int roce_cap_linktype(const roce_capfile_t *c)
{
	return c ? c->linktype : -1;
}

uint32_t roce_cap_snaplen(const roce_capfile_t *c)
{
	return c ? c->snaplen : 0;
}

void roce_cap_progress(const roce_capfile_t *c, uint64_t *done, uint64_t *total)
{
	uint64_t d = 0, t = 0;

	if (c && c->mem) {
		d = c->pos;
		t = c->len;
	} else if (c) {
		if (c->file_size) {
			/* input bytes consumed (compressed ones for gzip) */
			d = c->in_read - (c->in_len - c->in_pos);
			t = c->file_size;
			if (d > t)
				d = t;
		} else {
			d = c->pos;
		}
	}
	if (done)
		*done = d;
	if (total)
		*total = t;
}

void roce_cap_done(roce_capfile_t *c)
{
	if (!c)
		return;
	if (!c->status)
		c->status = 1;
	capr_pages_done(c);
}

void roce_cap_close(roce_capfile_t *c)
{
	if (!c)
		return;
	capr_pages_stop(c);
	capr_rbuf_free(c);
	roce_capguard_del(c->guard_slot);
	if (c->map)
		munmap(c->map, c->map_len);
	if (c->zinit)
		inflateEnd(&c->zs);
	capr_z_free(c);
	if (c->fd >= 0)
		close(c->fd);
	free(c->in);
	free(c->zout);
	free(c->buf);
	free(c->ifs);
	capr_meta_free(c);
	free(c->name);
	free(c);
}
