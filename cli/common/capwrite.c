/* SPDX-License-Identifier: GPL-2.0-or-later */
/* capwrite.c - classic pcap and pcapng writers (little-endian). */
#define _GNU_SOURCE
#include "capread.h"
#include "capio_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <roce/buf.h>

#define PCAP_MAGIC_US 0xa1b2c3d4u
#define PCAP_MAGIC_NS 0xa1b23c4du
#define PCAP_HDR_LEN 24u
#define PCAP_MAXSNAP 262144u

/*
 * Classic pcap records are gathered in the writer's own buffer and handed
 * to stdio in large pieces (one fwrite() per CAPW_BUF bytes, which glibc
 * passes straight to write()), instead of two fwrite() calls per record:
 * that was a tenth of roce-gen -w's time on small frames.
 */
#define CAPW_BUF (1024u * 1024u)

struct roce_capwriter {
	FILE *f;
	uint32_t snaplen;
	uint32_t maxcap;        /* the longest record: snaplen, at most ROCE_CAP_MAX_RECORD */
	bool nsec;
	int status;
	bool ng;        /* pcapng (roce_capw_open_pcapng) */
	size_t used;    /* bytes waiting in buf */
	uint8_t *buf;   /* CAPW_BUF bytes (classic pcap records) */
};

/* Hand the gathered records to stdio; 0 or ROCE_CAP_E_IO (kept in status). */
static int capw_drain(struct roce_capwriter *w)
{
	if (w->used && fwrite(w->buf, 1, w->used, w->f) != w->used)
		w->status = ROCE_CAP_E_IO;
	w->used = 0;
	return w->status;
}

static int capw_write_ng(roce_capwriter_t *w, uint64_t ts_ns, const uint8_t *data,
			 uint32_t caplen, uint32_t wirelen);

roce_capwriter_t *roce_capw_open(const char *path, int linktype, uint32_t snaplen, int nsec,
				 char *errbuf)
{
	struct roce_capwriter *w;
	uint8_t h[PCAP_HDR_LEN];
	const char *name = path && strcmp(path, "-") != 0 ? path : "<stdout>";

	if (!path || linktype < 0) {
		capio_errbuf_printf(errbuf, "%s: invalid argument", name);
		return NULL;
	}
	w = calloc(1, sizeof(*w));
	if (w)
		w->buf = malloc(CAPW_BUF);
	if (!w || !w->buf) {
		capio_errbuf_printf(errbuf, "%s: out of memory", name);
		free(w);
		return NULL;
	}
	if (strcmp(path, "-") == 0) {
		int fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);

		w->f = fd >= 0 ? fdopen(fd, "wb") : NULL;
		if (!w->f && fd >= 0)
			close(fd);
	} else {
		w->f = fopen(path, "wbe");
	}
	if (!w->f) {
		capio_errbuf_printf(errbuf, "%s: %s", name, strerror(errno));
		free(w->buf);
		free(w);
		return NULL;
	}
	setvbuf(w->f, NULL, _IOFBF, 256 * 1024);
	w->snaplen = snaplen ? snaplen : PCAP_MAXSNAP;
	w->maxcap = w->snaplen < ROCE_CAP_MAX_RECORD ? w->snaplen : ROCE_CAP_MAX_RECORD;
	w->nsec = nsec != 0;
	roce_put_le32(h, w->nsec ? PCAP_MAGIC_NS : PCAP_MAGIC_US);
	roce_put_le16(h + 4, 2);
	roce_put_le16(h + 6, 4);
	roce_put_le32(h + 8, 0);
	roce_put_le32(h + 12, 0);
	roce_put_le32(h + 16, w->snaplen);
	roce_put_le32(h + 20, (uint32_t)linktype);
	if (fwrite(h, 1, sizeof(h), w->f) != sizeof(h)) {
		capio_errbuf_printf(errbuf, "%s: %s", name, strerror(errno));
		fclose(w->f);
		free(w->buf);
		free(w);
		return NULL;
	}
	return w;
}

/* roce_capw_slot() when the buffer is too full for the slot: drain it first. */
static __attribute__((noinline)) uint8_t *capw_slot_drain(roce_capwriter_t *w)
{
	return capw_drain(w) ? NULL : w->buf + 16;
}

uint8_t *roce_capw_slot(roce_capwriter_t *w, uint32_t max)
{
	if (!w || w->ng || w->status || max > w->maxcap || 16u + max > CAPW_BUF)
		return NULL;
	if (CAPW_BUF - w->used < 16u + max)
		return capw_slot_drain(w);
	return w->buf + w->used + 16;
}

/* The last nanosecond a classic pcap timestamp (32-bit seconds) can hold, plus one. */
#define CAPW_TS_END ((UINT64_C(0xffffffff) + 1) * 1000000000u)

/* The record header (16 bytes) at h. */
static inline void capw_rec_header(const struct roce_capwriter *w, uint8_t *h, uint64_t ts_ns,
				   uint32_t caplen, uint32_t wirelen)
{
	uint64_t sec = ts_ns / 1000000000u;
	uint32_t sub = (uint32_t)(ts_ns - sec * 1000000000u);

	roce_put_le32(h, (uint32_t)sec);
	roce_put_le32(h + 4, w->nsec ? sub : sub / 1000u);
	roce_put_le32(h + 8, caplen);
	roce_put_le32(h + 12, wirelen);
}

/* Everything but a plain record that fits the buffer: pcapng, errors, a drain. */
static __attribute__((noinline)) int capw_write_slow(roce_capwriter_t *w, uint64_t ts_ns,
						     const uint8_t *data, uint32_t caplen,
						     uint32_t wirelen)
{
	uint8_t *h;

	if (!w || (!data && caplen))
		return ROCE_E_INVAL;
	if (w->status)
		return w->status;
	if (w->ng)
		return capw_write_ng(w, ts_ns, data, caplen, wirelen);
	if (caplen > wirelen || caplen > w->maxcap || ts_ns >= CAPW_TS_END)
		return ROCE_E_INVAL;
	if (CAPW_BUF - w->used < 16u + caplen && capw_drain(w))
		return w->status;
	h = w->buf + w->used;
	capw_rec_header(w, h, ts_ns, caplen, wirelen);
	if (16u + caplen > CAPW_BUF) {
		/* a record larger than the buffer (big snaplen): straight to stdio */
		if (fwrite(h, 1, 16, w->f) != 16 || fwrite(data, 1, caplen, w->f) != caplen)
			w->status = ROCE_CAP_E_IO;
		return w->status;
	}
	if (caplen && data != h + 16)   /* else built in place (roce_capw_slot()) */
		memcpy(h + 16, data, caplen);
	w->used += 16u + caplen;
	return 0;
}

/* The record's data into the buffer; 0 (a tail call: roce_capw_write() saves no registers
 * for it when the frame was built in place). */
static __attribute__((noinline)) int capw_copy(uint8_t *to, const uint8_t *data, uint32_t n)
{
	memcpy(to, data, n);
	return 0;
}

int roce_capw_write(roce_capwriter_t *w, uint64_t ts_ns, const uint8_t *data, uint32_t caplen,
		    uint32_t wirelen)
{
	uint8_t *h;

	/* the usual record: valid, and room for it in the buffer */
	if (!w || w->status || w->ng || !data || caplen > wirelen || caplen > w->maxcap ||
	    ts_ns >= CAPW_TS_END || CAPW_BUF - w->used < 16u + caplen)
		return capw_write_slow(w, ts_ns, data, caplen, wirelen);
	h = w->buf + w->used;
	capw_rec_header(w, h, ts_ns, caplen, wirelen);
	w->used += 16u + caplen;
	if (data != h + 16)             /* else built in place (roce_capw_slot()) */
		return capw_copy(h + 16, data, caplen);
	return 0;
}

int roce_capw_close(roce_capwriter_t *w)
{
	int r;

	if (!w)
		return ROCE_E_INVAL;
	r = capw_drain(w);
	if (fflush(w->f) != 0 || ferror(w->f))
		r = ROCE_CAP_E_IO;
	if (fclose(w->f) != 0)
		r = ROCE_CAP_E_IO;
	free(w->buf);
	free(w);
	return r;
}

/*
 * pcapng writer: Section Header Block, one Interface Description Block
 * (linktype, snaplen, if_tsresol = 9: nanoseconds) and one Enhanced Packet
 * Block per record, little-endian.
 */
#define PCAPNG_SHB 0x0a0d0d0au
#define PCAPNG_IDB 0x00000001u
#define PCAPNG_EPB 0x00000006u

roce_capwriter_t *roce_capw_open_pcapng(const char *path, int linktype, uint32_t snaplen,
					char *errbuf)
{
	roce_capwriter_t *w = roce_capw_open(path, linktype, snaplen, 1, errbuf);
	uint8_t b[28 + 32];
	const char *name = path && strcmp(path, "-") != 0 ? path : "<stdout>";

	if (!w)
		return NULL;
	/* replace the pcap header roce_capw_open() wrote (still in the buffer) */
	if (fflush(w->f) != 0 || (ftell(w->f) == PCAP_HDR_LEN && fseek(w->f, 0, SEEK_SET) != 0)) {
		capio_errbuf_printf(errbuf, "%s: %s", name, strerror(errno));
		roce_capw_close(w);
		return NULL;
	}
	if (ftell(w->f) != 0) {
		capio_errbuf_printf(errbuf, "%s: pcapng output needs a seekable file", name);
		roce_capw_close(w);
		return NULL;
	}
	roce_put_le32(b, PCAPNG_SHB);
	roce_put_le32(b + 4, 28);
	roce_put_le32(b + 8, 0x1a2b3c4du);
	roce_put_le16(b + 12, 1);
	roce_put_le16(b + 14, 0);
	roce_put_le32(b + 16, 0xffffffffu);      /* section length unknown */
	roce_put_le32(b + 20, 0xffffffffu);
	roce_put_le32(b + 24, 28);
	roce_put_le32(b + 28, PCAPNG_IDB);
	roce_put_le32(b + 32, 32);
	roce_put_le16(b + 36, (uint16_t)linktype);
	roce_put_le16(b + 38, 0);
	roce_put_le32(b + 40, w->snaplen);
	roce_put_le16(b + 44, 9);                /* if_tsresol */
	roce_put_le16(b + 46, 1);
	b[48] = 9;                      /* 10^-9 */
	b[49] = b[50] = b[51] = 0;
	roce_put_le32(b + 52, 0);                /* opt_endofopt */
	roce_put_le32(b + 56, 32);
	if (fwrite(b, 1, sizeof(b), w->f) != sizeof(b)) {
		capio_errbuf_printf(errbuf, "%s: %s", name, strerror(errno));
		roce_capw_close(w);
		return NULL;
	}
	w->ng = true;
	return w;
}

static int capw_write_ng_opt(roce_capwriter_t *w, uint64_t ts_ns, const uint8_t *data,
			     uint32_t caplen, uint32_t wirelen, const char *comment)
{
	static const uint8_t zero[4];
	uint8_t h[28], t[4], o[4];
	size_t clen = comment ? strlen(comment) : 0;
	uint32_t pad = (4 - (caplen & 3)) & 3, cpad, optlen, total;

	if (caplen > wirelen || caplen > w->snaplen || caplen > ROCE_CAP_MAX_RECORD ||
	    clen > 0xffffu)
		return ROCE_E_INVAL;
	cpad = (4 - (uint32_t)(clen & 3)) & 3;
	/* opt_comment (code 1) and opt_endofopt, when there is a comment */
	optlen = clen ? 4 + (uint32_t)clen + cpad + 4 : 0;
	total = 32 + caplen + pad + optlen;
	roce_put_le32(h, PCAPNG_EPB);
	roce_put_le32(h + 4, total);
	roce_put_le32(h + 8, 0);
	roce_put_le32(h + 12, (uint32_t)(ts_ns >> 32));
	roce_put_le32(h + 16, (uint32_t)ts_ns);
	roce_put_le32(h + 20, caplen);
	roce_put_le32(h + 24, wirelen);
	roce_put_le32(t, total);
	if (fwrite(h, 1, sizeof(h), w->f) != sizeof(h) ||
	    (caplen && fwrite(data, 1, caplen, w->f) != caplen) ||
	    (pad && fwrite(zero, 1, pad, w->f) != pad))
		goto io;
	if (clen) {
		roce_put_le16(o, 1);
		roce_put_le16(o + 2, (uint16_t)clen);
		if (fwrite(o, 1, 4, w->f) != 4 || fwrite(comment, 1, clen, w->f) != clen ||
		    (cpad && fwrite(zero, 1, cpad, w->f) != cpad) || fwrite(zero, 1, 4, w->f) != 4)
			goto io;
	}
	if (fwrite(t, 1, 4, w->f) != 4)
		goto io;
	return 0;
io:
	w->status = ROCE_CAP_E_IO;
	return w->status;
}

static int capw_write_ng(roce_capwriter_t *w, uint64_t ts_ns, const uint8_t *data,
			 uint32_t caplen, uint32_t wirelen)
{
	return capw_write_ng_opt(w, ts_ns, data, caplen, wirelen, NULL);
}

int roce_capw_write_comment(roce_capwriter_t *w, uint64_t ts_ns, const uint8_t *data,
			    uint32_t caplen, uint32_t wirelen, const char *comment)
{
	if (!w || (!data && caplen))
		return ROCE_E_INVAL;
	if (w->status)
		return w->status;
	if (!w->ng || !comment || !*comment)
		return roce_capw_write(w, ts_ns, data, caplen, wirelen);
	return capw_write_ng_opt(w, ts_ns, data, caplen, wirelen, comment);
}
