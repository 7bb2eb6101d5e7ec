/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * capread.h - capture-file reader (pcap, pcap-ns, pcapng; gzip, zstd, lz4;
 * stdin) and a small classic-pcap writer, shared by the roce-tools
 * command-line tools.
 *
 * Reader:
 *   - regular uncompressed files are mmap()ed: a record's data points into
 *     the mapping, nothing is copied;
 *   - compressed files, told by their magic as Wireshark 4.0 tells them
 *     (gzip 1f 8b, zstd 28 b5 2f fd, lz4 frame 04 22 4d 18), pipes and stdin
 *     ("-") are streamed through zlib, libzstd or liblz4 into one reusable
 *     buffer, bounded by the largest record; gzip members, zstd and lz4 frames
 *     may follow one another (zstd and lz4 skippable frames are skipped);
 *     checksums are checked (a gzip trailer, zstd's and lz4's content
 *     checksums at the end of their frame, lz4 block checksums before the
 *     block), and every byte that decompressed before a damage is read; a
 *     zstd window over 128 MiB (libzstd's default limit, Wireshark's) is
 *     refused ("zstd frame <K>: window of <W> MiB exceeds the limit of 128 MiB
 *     (as Wireshark's)"); a decompression error names the compressed frame
 *     ("zstd frame <K>: compressed data ends early", "lz4 frame <K>: content
 *     checksum does not match the data") after the capture frame;
 *   - every length field is checked before use; a record or block larger
 *     than ROCE_CAP_MAX_RECORD is an error, never an allocation;
 *   - errors are sticky and described by one line:
 *       "<file>: frame <N>: <what>"  (N = 1-based number of the frame being
 *     read), or "<file>: <what>" for problems with the file header.
 *
 * Frame numbers are Wireshark 4.0's frame.number: they count packet records
 * (pcap records, pcapng EPB/SPB/OPB) and also pcapng Custom Blocks (0xBAD,
 * 0x40000BAD) and systemd Journal Export blocks, which are numbered but not
 * delivered (rec.frame_no then skips a number).  A pcapng writer must count
 * them the same way.
 *
 * Timestamps are converted to nanoseconds since the epoch (pcapng: if_tsresol,
 * decimal or power-of-two, and if_tsoffset applied, computed exactly in 128
 * bits).  A record without a timestamp (pcapng SPB) or whose timestamp lies
 * outside 1970-01-01 .. 2554-07-21 (what 64-bit nanoseconds hold) is delivered
 * with ts_ns 0 and ROCE_CAP_REC_NO_TS; an out-of-range one also raises a
 * warning.  Nothing is ever wrapped.
 *
 * Classic pcap files of the standard microsecond magic (version 2.4 and later) and of
 * the "modified" magic have their record header length decided as Wireshark 4.0 does:
 * on the first three records, 16, 24 (ss990417) or 20 bytes (Nokia), or 24 (ss991029)
 * or 28 (ss990915); not from a pipe, where a modified pcap is an error and the standard
 * magic means 16 (Wireshark reads no further ahead there).  Ixia lcap (magics 1c0001ab,
 * 1c0001ac), AIX (2.2, ifType link types, nanoseconds) and DG/UX 543.0 files are read
 * as Wireshark reads them.  pcapng: SHB versions 1.0 and 1.2; the options of EPBs and
 * OPBs are checked as Wireshark checks them; an SPB's trailing length follows its packet
 * data; the first if_tsresol and if_tsoffset of an IDB count.
 *
 * Where Wireshark reads on, so does the reader, and counts a capture-format
 * warning (roce_cap_warnings(), roce_cap_warning()): caplen above the snapshot
 * length (read in full) or above the original length (which is then raised to
 * caplen), a pcapng block length that is not a multiple of 4 (rounded up), an
 * if_tsresol/if_tsoffset option of the wrong length (ignored), pcap versions
 * other than 2.x (read as 2.4), timestamps out of range.
 *
 * A mapped file that shrinks while it is read (log rotation, a ring buffer
 * reusing the file) is an error "file shrank while being read", not SIGBUS:
 * the reader installs a SIGBUS handler (once per process, chaining to the
 * previous one for faults outside its mappings) that maps zero pages over the
 * vanished part of its own mappings and flags the handle; the reader checks
 * the flag (and, where zero bytes come from the last partial page, the file
 * size) before it delivers a record.  Records delivered but not yet decoded
 * when the file is cut (the one being decoded, or the rest of a run of
 * records taken with roce_cap_next_batch(): up to 64 records or 16 KiB in
 * roce-analyze) may show zeros where their bytes vanished, or in the tail of
 * the page the new end falls in (zeroed by the kernel, no fault): a caller
 * that must not count such bytes reads roce_cap_shrink_flag()'s word after
 * decoding a record and before counting it, and asks roce_cap_rec_intact()
 * when the word is set or the record is flagged ROCE_CAP_REC_RECHECK; that
 * names the first record cut in the error.  Otherwise the next call reports
 * the error, and records already decoded with zeros were what they read.
 */
#ifndef ROCE_CAPREAD_H
#define ROCE_CAPREAD_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include <roce/roce.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Largest record (pcap) or block (pcapng) the reader accepts, in bytes.  Packet
 * records are held to Wireshark 4.0's limit for their link-layer type too: 262144
 * bytes, except D-Bus, USB (this limit) and EBHSCR (8 MiB). */
#define ROCE_CAP_MAX_RECORD (16u << 20)

/* Read or write failure of the underlying file or compressed stream
 * (in addition to ROCE_E_TRUNC, ROCE_E_MALFORMED, ROCE_E_UNSUPPORTED,
 * ROCE_E_NOMEM, ROCE_E_INVAL from roce.h). */
#define ROCE_CAP_E_IO (-32)
/* A blocking read was interrupted and the roce_cap_set_interrupt() flag was set. */
#define ROCE_CAP_E_INTR (-33)

/* struct roce_cap_record flags */
#define ROCE_CAP_REC_NO_TS 0x1u  /* no timestamp (SPB, or out of range): ts_ns is 0 */
#define ROCE_CAP_REC_WARN  0x2u  /* warnings were raised since the previous record */
/* mapped file: the record ends in the file's last page(s), past the start of the page of the
 * reader's sentinel (roce_cap_shrink_flag()), where a cut zeros bytes without setting the
 * word: ask roce_cap_rec_intact() after decoding it */
#define ROCE_CAP_REC_RECHECK 0x4u

typedef struct roce_capfile roce_capfile_t;

struct roce_cap_record {
	const uint8_t *data;  /* caplen bytes; valid until the next roce_cap_next()/close */
	uint32_t caplen;      /* captured bytes at data */
	uint32_t wirelen;     /* original length on the wire (>= caplen) */
	uint64_t ts_ns;       /* ns since the epoch; 0 with ROCE_CAP_REC_NO_TS */
	int linktype;         /* LINKTYPE_* of the record's interface */
	uint32_t ifindex;     /* pcapng interface id within its section, 0 for pcap */
	uint64_t frame_no;    /* 1-based, Wireshark's frame.number (see above) */
	uint32_t flags;       /* ROCE_CAP_REC_* */
	uint8_t ahead;        /* roce_cap_set_ahead(): the helper's byte, 0 = none */
	uint32_t section;     /* pcapng: 1-based section header block of ifindex; 0 for pcap */
};

/*
 * Open a capture file; "-" reads stdin (plain or compressed).  On failure returns
 * NULL and writes a one-line message ("<file>: ...") to errbuf, which must
 * hold ROCE_ERRBUF_SIZE bytes (it may be NULL).  For pcapng the blocks up to
 * and including the first Interface Description Block are read here, so
 * roce_cap_linktype() is known after a successful open.
 */
roce_capfile_t *roce_cap_open(const char *path, char *errbuf);

/*
 * Read a capture held in memory (zero-copy: data must outlive the handle).
 * name is used in messages.  Compressed data is not accepted here
 * (error "gzip data not supported in memory", "zstd ...", "lz4 ...").
 */
roce_capfile_t *roce_cap_open_mem(const uint8_t *data, size_t len, const char *name,
				  char *errbuf);

/*
 * Read an already open file descriptor (ownership passes to the handle,
 * also on failure).  name is used in messages.  With stream != 0 the
 * descriptor is always read sequentially through zlib, never mmap()ed
 * (what roce_cap_open() does for pipes, compressed files and "-").
 */
roce_capfile_t *roce_cap_open_fd(int fd, const char *name, int stream, char *errbuf);

/*
 * Next packet record: 1 and *rec filled, 0 at a clean end of file, or a
 * negative status (ROCE_E_TRUNC, ROCE_E_MALFORMED, ROCE_E_UNSUPPORTED,
 * ROCE_E_NOMEM, ROCE_CAP_E_IO) with roce_cap_error() set.  Errors and EOF
 * are sticky: later calls return the same value.
 */
int roce_cap_next(roce_capfile_t *c, struct roce_cap_record *rec);

/*
 * Up to max records at once, into recs[0..]: exactly what as many calls of
 * roce_cap_next() would give (the same bytes, numbers, flags and helper
 * bytes), so that a caller may mix the two.  Returns the number of records
 * filled (1..max), 0 at a clean end of file, or a negative status as
 * roce_cap_next() (then nothing was filled).  Only classic pcap files read
 * from memory or a mapping (and files read with roce_cap_set_read_buffer(),
 * pcapng too: capread_rbuf.h) come in runs of more than one, and only while
 * every record passes the common checks with nothing to report: a record
 * that would raise a warning or an error, the last one of the file, one that
 * ends in its last page(s) (ROCE_CAP_REC_RECHECK) and the one that crosses a
 * 16 MiB window end a run, and the next call returns it
 * (or the error) on its own, as roce_cap_next() does; a run also ends 16 KiB
 * past its first record (the next call goes on).  The records of a run
 * of more than one share the file's link type and have no flags (a
 * timestamp, no warning).  The records of one run stay valid until the next
 * call or roce_cap_close().  Meant for the per-frame loop of a tool: one
 * call, and the checks that hold for the whole file made once, per run
 * instead of per record.
 */
int roce_cap_next_batch(roce_capfile_t *c, struct roce_cap_record *recs, unsigned max);

/*
 * The bytes of the record roce_cap_next() returns next, without taking it
 * or changing any state: 1 with *data and *caplen when they are cheap to
 * find (a classic pcap file read from memory or a mapping, the whole
 * record there), else 0.  A hint for prefetching only: the record may
 * still turn out bad; the bytes stay valid until the next
 * roce_cap_next() or roce_cap_close().
 */
int roce_cap_peek(const roce_capfile_t *c, const uint8_t **data, uint32_t *caplen);

/*
 * Work ahead of the reader on a second core (mapped files only: regular,
 * uncompressed pcap and pcapng files).  The reader's helper thread, which
 * already maps the pages ahead of the reader, then also walks the packet
 * records ahead of it and calls fn(user, rec) on some of them (on the helper
 * thread: fn must only read the record and what does not change while the
 * reader runs); fn's result (1..255) is handed out with that record by
 * roce_cap_next() in rec->ahead.  Records the helper has not reached when the
 * reader gets there come with rec->ahead 0, and the caller does the work
 * itself: the reader never waits for the helper, and takes runs of records
 * for itself when it catches up, so both cores share the work.  rec->ahead is
 * always 0 without this call, for streams, and for a file the helper cannot
 * walk (it stops at the first record it does not expect and the reader does
 * the rest).  Records of fewer than min_caplen captured bytes are never given
 * to fn (rec->ahead 0: for work that costs less than handing it over).
 * Whether the helper's bytes pay at all is measured on the file: after its
 * first 8 MiB the reader times five pairs of 2 MiB windows, one taking them,
 * one with the helper paused and the reader doing the work itself, and keeps
 * the helper for the rest of the file if it was faster in most pairs and
 * over all of them (a losing helper stops walking for good;
 * ROCE_CAP_AHEAD_PROBE, ROCE_CAP_AHEAD_CHOOSE and ROCE_CAP_AHEAD_MIN in
 * capread_ahead.c, for tests).  rec->ahead
 * never changes what a correct caller computes, only where: the output must
 * not depend on it.  Call before the first roce_cap_next().  Returns 1 when the
 * helper will run, 0 when not.  The mapped reader's SIGBUS handling is
 * unchanged: a fault on the helper thread only stops the helper, and the
 * reader reports a shrunk file where it reaches the missing pages itself.
 */
typedef uint8_t (*roce_cap_ahead_fn)(void *user, const struct roce_cap_record *rec);
int roce_cap_set_ahead(roce_capfile_t *c, roce_cap_ahead_fn fn, void *user, uint32_t min_caplen);

/* Records handed out so far with a helper's byte (rec->ahead != 0): for tests and tuning. */
uint64_t roce_cap_ahead_taken(const roce_capfile_t *c);

/*
 * A mapped file cut while its records are decoded (see the top of this file):
 * a word that reads 0 while the file is whole and nonzero once it may have
 * been cut under a record handed out (a fault in the mapping on any thread,
 * or a cut below the page of the word (the file's last page, or one of the
 * 15 before it when that has no zero word), noticed by the load of the word
 * itself).  Read it after the last load of a record's bytes (an acquire
 * fence between) and before counting the record; when it is set, or the
 * record has ROCE_CAP_REC_RECHECK, count the record only if
 * roce_cap_rec_intact() says so.  The word stays valid until
 * roce_cap_close(); for files that are not mapped it is a constant 0.  (A
 * pointer to it may be given to roce_analyzer_set_discard_flag().)  Ask
 * again after roce_cap_rec_intact() returned 1: a file that grew may have
 * turned the word into file bytes, and another one is used from then on.
 */
const volatile int *roce_cap_shrink_flag(const roce_capfile_t *c);

/*
 * Were the bytes of rec (a record of the current run, handed out by the last
 * roce_cap_next() or roce_cap_next_batch() call, and decoded by the caller
 * since) those of the file?  1: yes, count it; else ROCE_E_TRUNC: the file
 * was cut under it, the sticky error names its frame ("frame <N>: file shrank
 * while being read (...)") and later calls return it; the caller counts
 * neither it nor the records after it.  One fstat() (the slow path: the
 * word of roce_cap_shrink_flag() set, or ROCE_CAP_REC_RECHECK).  Files that
 * are not mapped: 1.
 */
int roce_cap_rec_intact(roce_capfile_t *c, const struct roce_cap_record *rec);

/* CPUs this process may run on (sched_getaffinity, else the online count), >= 1. */
int roce_cap_cpus(void);

/* The last error as one line, or "" when there was none. */
const char *roce_cap_error(const roce_capfile_t *c);

/* Capture-format warnings so far, and the latest one as one line
 * ("<file>: frame <N>: <what>"; "" when there was none). */
uint64_t roce_cap_warnings(const roce_capfile_t *c);
const char *roce_cap_warning(const roce_capfile_t *c);

/*
 * Make blocking reads (pipes, FIFOs, stdin) interruptible: when a read fails
 * with EINTR and *flag is non-zero, roce_cap_next() returns ROCE_CAP_E_INTR
 * (sticky, message "<file>: frame <N>: interrupted").  Install the signal
 * handler that sets the flag without SA_RESTART.  flag may be NULL (default:
 * reads are restarted).
 */
void roce_cap_set_interrupt(roce_capfile_t *c, const volatile sig_atomic_t *flag);

/* Copy name to out (outlen bytes, NUL-terminated) with control characters
 * replaced by '?', as every message of the reader does. */
void roce_cap_escape(const char *name, char *out, size_t outlen);

/* "pcap", "pcap-ns", "pcap-modified" (ss991029), "pcap-ss990915", "pcap-ss990417",
 * "pcap-nokia", "pcap-aix", "pcap-ixia", "pcapng" or "empty" (a 0-byte file: no frames,
 * like capinfos), plus "+gzip", "+zstd" or "+lz4" when the input is compressed. */
const char *roce_cap_format(const roce_capfile_t *c);

/* LINKTYPE_* of the pcap file or the first pcapng interface; -1 if none yet. */
int roce_cap_linktype(const roce_capfile_t *c);

/* Snapshot length of the pcap file or first pcapng interface (0 = none). */
uint32_t roce_cap_snaplen(const roce_capfile_t *c);

/*
 * Progress in bytes.  total is the file size, or 0 if unknown (pipes).  For
 * compressed files done is the compressed offset, so done/total is a fraction.
 */
void roce_cap_progress(const roce_capfile_t *c, uint64_t *done, uint64_t *total);

/*
 * The caller takes no more records (it reached the end, an error, or stops):
 * a large mapped file's helper thread gives back what is still mapped of the
 * file and ends, on its own core, while the caller goes on (with its report,
 * say); roce_cap_close() then waits for it and unmaps the rest.  Records
 * handed out before are no longer valid; everything else stays until
 * roce_cap_close() (roce_cap_next() returns 0, or the error it returned).
 * Without a helper thread nothing happens here.  NULL is accepted.
 */
void roce_cap_done(roce_capfile_t *c);

/* Close and free; NULL is accepted. */
void roce_cap_close(roce_capfile_t *c);

/*
 * Writer: classic pcap in little-endian byte order, magic a1b2c3d4
 * (microseconds) or a1b23c4d (nsec != 0, nanoseconds).  "-" is stdout.
 */
typedef struct roce_capwriter roce_capwriter_t;

roce_capwriter_t *roce_capw_open(const char *path, int linktype, uint32_t snaplen, int nsec,
				 char *errbuf);

/*
 * Append one record.  Returns 0, ROCE_E_INVAL (caplen > wirelen, caplen >
 * snaplen when snaplen != 0, caplen > ROCE_CAP_MAX_RECORD, or a timestamp
 * past 2106), or ROCE_CAP_E_IO.  Microsecond files truncate ts_ns.
 */
int roce_capw_write(roce_capwriter_t *w, uint64_t ts_ns, const uint8_t *data, uint32_t caplen,
		    uint32_t wirelen);

/*
 * Where the data of the next classic pcap record will go, with room for max
 * bytes: a caller that builds its packet there and passes that pointer to
 * roce_capw_write() saves the copy.  Valid until the next call on w.  NULL
 * for pcapng, after an error, or when max is more than a record may hold.
 */
uint8_t *roce_capw_slot(roce_capwriter_t *w, uint32_t max);

/*
 * roce_capw_write() with a packet comment: pcapng writes it as the EPB's
 * opt_comment (UTF-8, at most 65535 bytes, else ROCE_E_INVAL); classic pcap
 * has no place for it and writes the record without.
 */
int roce_capw_write_comment(roce_capwriter_t *w, uint64_t ts_ns, const uint8_t *data,
			    uint32_t caplen, uint32_t wirelen, const char *comment);

/* Flush and close; 0, or ROCE_CAP_E_IO if any write, flush or close failed. */
int roce_capw_close(roce_capwriter_t *w);

/*
 * pcapng metadata: the strings of section header blocks (comments, hardware,
 * OS, application) and interface description blocks (name, description,
 * comments), in file order, as far as the reader has got (the blocks up to
 * the first interface after roce_cap_open(), all of them at the end).  Each
 * is a copy of the option's bytes up to the first NUL, at most
 * ROCE_CAP_META_MAX_LEN bytes, not checked for UTF-8 (untrusted text: escape
 * it for its output); the first ROCE_CAP_MAX_META of a file are kept, the
 * others counted (roce_cap_meta_dropped()).
 */
#define ROCE_CAP_MAX_META 64
#define ROCE_CAP_META_MAX_LEN 4096

enum roce_cap_meta_kind {
	ROCE_CAP_META_COMMENT = 1,      /* shb opt_comment */
	ROCE_CAP_META_HARDWARE,         /* shb_hardware */
	ROCE_CAP_META_OS,               /* shb_os */
	ROCE_CAP_META_USERAPPL,         /* shb_userappl */
	ROCE_CAP_META_IF_NAME,          /* if_name */
	ROCE_CAP_META_IF_DESCRIPTION,   /* if_description */
	ROCE_CAP_META_IF_COMMENT        /* idb opt_comment */
};

struct roce_cap_meta {
	enum roce_cap_meta_kind kind;
	uint32_t section;               /* 1-based section header block */
	uint32_t ifindex;               /* interface id in its section (IF_* kinds) */
	const char *text;               /* valid until roce_cap_close() */
};

unsigned roce_cap_meta_count(const roce_capfile_t *c);
/* Entry i (< count); -1 when there is none. */
int roce_cap_meta_get(const roce_capfile_t *c, unsigned i, struct roce_cap_meta *out);
uint64_t roce_cap_meta_dropped(const roce_capfile_t *c);
/* "comment", "hardware", "os", "application", "if_name", "if_description", "if_comment" */
const char *roce_cap_meta_kind_name(enum roce_cap_meta_kind k);

/*
 * Writer for pcapng (little-endian; SHB, one IDB with if_tsresol 9, EPBs with
 * nanosecond timestamps); roce_capw_write()/roce_capw_close() as above.  The
 * output must be a regular file or stdout.
 */
roce_capwriter_t *roce_capw_open_pcapng(const char *path, int linktype, uint32_t snaplen,
					char *errbuf);

#ifdef __cplusplus
}
#endif

#endif /* ROCE_CAPREAD_H */
