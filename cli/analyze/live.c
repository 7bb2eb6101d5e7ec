// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * live.c - roce-analyze -i: live capture with libpcap (live.h).
 *
 * The handle is made with pcap_create()/pcap_activate() with nanosecond
 * timestamps, non-blocking: the loop poll()s the selectable descriptor for
 * at most 100 ms at a time, so a signal, --duration or an interval tick is
 * never late by more than that.
 *
 * On Linux libpcap uses a TPACKET_V3 ring: frames packed into blocks of
 * 256 KiB, a block handed over when full or after the read timeout
 * (LIVE_BLOCK_MS).  Immediate mode (--immediate-mode) is not the default:
 * libpcap then falls back to TPACKET_V2, one fixed slot per frame sized
 * from the snap length (64 KiB and more), so the default 2 MiB buffer
 * holds a few dozen frames and a busy host drops many.  At a stop by
 * signal or --duration the block being filled is waited for (drain()), so
 * the report covers every frame the kernel took before the stop.  -w writes through pcap_dump
 * (the capture's link type and snap length, nanosecond pcap), rotated as tcpdump -C/-W do.
 * -w - writes to stdout (libpcap's own "-"), flushed after every batch the kernel hands over
 * so a reader of the pipe gets the frames as they come; when that reader has gone (EPIPE;
 * the driver ignores SIGPIPE then) the capture ends as at a stop, not as a failure.
 * -U (tcpdump's, pcap_dump_flush() after each pcap_dump()): every -w output, stdout and
 * files (each rotated one too), gets its file header as soon as it is opened and each record
 * as soon as it is written, not when stdio's buffer fills or (-w -) the batch ends.
 */
#define _DEFAULT_SOURCE /* u_char etc. in <pcap/pcap.h> */

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "live.h"
#include "pcapdl.h"

#define LIVE_SNAPLEN_DEFAULT 262144
#define LIVE_POLL_MS 100
#define LIVE_BLOCK_MS 100          /* TPACKET_V3 block timeout (libpcap read timeout) */

struct ra_live {
	pcap_t *p;
	char *filter;
	int linktype;
	const struct ra_live_opts *o;
	pcap_dumper_t *dump;
	unsigned file_no;            /* current -w file: 0, 1, ... (mod -W) */
	bool write_failed;
	bool to_stdout;              /* -w - */
	bool out_closed;             /* -w -: the reader of stdout has gone (EPIPE) */
	char werr[256];

	/* during ra_live_run() */
	ra_live_fn fn;
	void *user;
	uint64_t frames;
	bool count_reached;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The default filter: RoCE v1, RoCE v2 on its ports, MAC control; also VLAN-tagged. */
static char *default_filter(const struct ra_live_opts *o)
{
	char inner[1024];
	size_t n;
	char *f;

	n = (size_t)snprintf(inner, sizeof(inner), "ether proto 0x8915 or ether proto 0x8808");
	for (unsigned i = 0; i < o->n_udp_ports && n < sizeof(inner); i++)
		n += (size_t)snprintf(inner + n, sizeof(inner) - n, " or udp dst port %u",
				      (unsigned)o->udp_ports[i]);
	f = malloc(3 * sizeof(inner) + (o->filter ? strlen(o->filter) : 0) + 64);
	if (!f)
		return NULL;
	if (o->filter && *o->filter)
		sprintf(f, "((%s) or (vlan and (%s))) and (%s)", inner, inner, o->filter);
	else
		sprintf(f, "(%s) or (vlan and (%s))", inner, inner);
	return f;
}

/* tcpdump's file names: FILE, FILE1, FILE2... ; with -W N, FILE0..FILE<N-1>, zero-padded. */
static void file_name(const struct ra_live_opts *o, unsigned no, char *out, size_t len)
{
	unsigned digits = 0;

	if (o->rotate_files)
		for (unsigned v = o->rotate_files - 1; ; v /= 10) {
			digits++;
			if (v < 10)
				break;
		}
	if (!digits && !no)
		snprintf(out, len, "%s", o->write);
	else
		snprintf(out, len, "%s%0*u", o->write, (int)digits, no);
}

static bool flush_stdout(ra_live_t *l);

/* -U, -w FILE: what pcap_dump() gathered to the file; false (and the reason) if that failed */
static bool flush_file(ra_live_t *l)
{
	errno = 0;
	if (pcap_dump_flush(l->dump) == 0)
		return true;
	if (!l->write_failed) {
		l->write_failed = true;
		snprintf(l->werr, sizeof(l->werr), "%s", strerror(errno ? errno : EIO));
	}
	return false;
}

static int open_dump(ra_live_t *l, char *errbuf, size_t errlen)
{
	char name[4096];

	file_name(l->o, l->file_no, name, sizeof(name));
	l->dump = pcap_dump_open(l->p, name);
	if (!l->dump) {
		snprintf(errbuf, errlen, "%s", pcap_geterr(l->p));
		return -1;
	}
	/* -U: the file header at once, as tcpdump: a reader of the pipe can start (a reader
	 * that has gone already ends the run as later) */
	if (l->o->packet_buffered &&
	    (l->to_stdout ? !flush_stdout(l) && l->write_failed : !flush_file(l))) {
		char why[sizeof(l->werr)];

		memcpy(why, l->werr, sizeof(why));     /* errbuf may be l->werr (rotate()) */
		if (l->to_stdout)
			snprintf(errbuf, errlen, "%s", why);
		else if (snprintf(errbuf, errlen, "%s: %s", name, why) >= (int)errlen)
			memcpy(errbuf + errlen - 4, "...", 4);     /* a long name: cut */
		return -1;
	}
	return 0;
}

/*
 * -w -: stdout (libpcap's "-" is the stdout stream) is in error: its reader has gone (EPIPE)
 * or writing failed.  errno is the failed write's: stdio drops what it could not write, so a
 * later flush would succeed and tell nothing.
 */
static void stdout_failed(ra_live_t *l, int err)
{
	if (err == EPIPE) {
		l->out_closed = true;
	} else {
		l->write_failed = true;
		snprintf(l->werr, sizeof(l->werr), "stdout: %s", strerror(err ? err : EIO));
	}
}

/* -w -: hand what pcap_dump() gathered to the pipe; false once stdout is in error. */
static bool flush_stdout(ra_live_t *l)
{
	if (!l->to_stdout || !l->dump)
		return true;
	if (l->out_closed || l->write_failed)
		return false;
	errno = 0;
	if (fflush(stdout) == 0 && !ferror(stdout))
		return true;
	stdout_failed(l, errno);
	return false;
}

static int rotate(ra_live_t *l)
{
	if (pcap_dump_flush(l->dump) != 0)
		l->write_failed = true;
	pcap_dump_close(l->dump);
	l->dump = NULL;
	l->file_no++;
	if (l->o->rotate_files && l->file_no >= l->o->rotate_files)
		l->file_no = 0;
	return open_dump(l, l->werr, sizeof(l->werr));
}

ra_live_t *ra_live_open(const struct ra_live_opts *o, enum ra_live_err *err, char *errbuf,
			size_t errlen)
{
	char pe[PCAP_ERRBUF_SIZE] = "";
	struct bpf_program prog;
	ra_live_t *l;
	int r;

	*err = RA_LIVE_E_OTHER;
	l = calloc(1, sizeof(*l));
	if (!l) {
		snprintf(errbuf, errlen, "%s: out of memory", o->iface);
		return NULL;
	}
	l->o = o;
	l->to_stdout = o->write && !strcmp(o->write, "-");
	l->filter = default_filter(o);
	if (!l->filter) {
		snprintf(errbuf, errlen, "%s: out of memory", o->iface);
		goto fail;
	}
	if (roce_pcap_load(errbuf, errlen))
		goto fail;
	l->p = pcap_create(o->iface, pe);
	if (!l->p) {
		snprintf(errbuf, errlen, "%s: %s", o->iface, pe);
		goto fail;
	}
	pcap_set_snaplen(l->p, o->snaplen ? (int)o->snaplen : LIVE_SNAPLEN_DEFAULT);
	pcap_set_promisc(l->p, 1);
	if (o->immediate)
		pcap_set_immediate_mode(l->p, 1);
	pcap_set_timeout(l->p, LIVE_BLOCK_MS);
	if (o->buffer_kib)
		pcap_set_buffer_size(l->p, (int)(o->buffer_kib * 1024u));
	pcap_set_tstamp_precision(l->p, PCAP_TSTAMP_PRECISION_NANO);
	r = pcap_activate(l->p);
	if (r < 0) {
		const char *why = pcap_geterr(l->p);

		if (r == PCAP_ERROR_NO_SUCH_DEVICE) {
			*err = RA_LIVE_E_NODEV;
			snprintf(errbuf, errlen, "%s: no such interface", o->iface);
		} else if (r == PCAP_ERROR_PERM_DENIED) {
			*err = RA_LIVE_E_PERM;
			snprintf(errbuf, errlen, "%s: permission denied: live capture needs "
				 "CAP_NET_RAW (run as root, or give the program the capability)",
				 o->iface);
		} else {
			snprintf(errbuf, errlen, "%s: %s", o->iface,
				 why && *why ? why : pcap_statustostr(r));
		}
		goto fail;
	}
	l->linktype = pcap_datalink(l->p);
	if (pcap_compile(l->p, &prog, l->filter, 1, PCAP_NETMASK_UNKNOWN) != 0) {
		snprintf(errbuf, errlen, "%s: filter '%s': %s", o->iface,
			 o->filter ? o->filter : l->filter, pcap_geterr(l->p));
		goto fail;
	}
	r = pcap_setfilter(l->p, &prog);
	pcap_freecode(&prog);
	if (r != 0) {
		snprintf(errbuf, errlen, "%s: cannot set the filter: %s", o->iface,
			 pcap_geterr(l->p));
		goto fail;
	}
	if (pcap_setnonblock(l->p, 1, pe) != 0) {
		snprintf(errbuf, errlen, "%s: %s", o->iface, pe);
		goto fail;
	}
	*err = RA_LIVE_OK;
	return l;
fail:
	if (l->p)
		pcap_close(l->p);
	free(l->filter);
	free(l);
	return NULL;
}

int ra_live_start_write(ra_live_t *l, char *errbuf, size_t errlen)
{
	char e[PCAP_ERRBUF_SIZE + 64];

	if (!l->o->write || l->dump)
		return 0;
	if (open_dump(l, e, sizeof(e)) != 0) {
		snprintf(errbuf, errlen, "%s", e);
		return -1;
	}
	return 0;
}

const char *ra_live_filter(const ra_live_t *l)
{
	return l->filter;
}

int ra_live_linktype(const ra_live_t *l)
{
	return l->linktype;
}

void ra_live_describe(const ra_live_t *l, char *buf, size_t len)
{
	const char *name = pcap_datalink_val_to_name(l->linktype);
	const char *desc = pcap_datalink_val_to_description(l->linktype);

	snprintf(buf, len, "listening on %s, link-type %s (%s), snapshot length %d bytes",
		 l->o->iface, name ? name : "unknown", desc ? desc : "unknown",
		 pcap_snapshot(l->p));
}

static void on_packet(u_char *user, const struct pcap_pkthdr *h, const u_char *bytes)
{
	ra_live_t *l = (ra_live_t *)user;
	struct roce_cap_record rec;

	if (l->count_reached)
		return;
	if (l->to_stdout && l->dump && !l->out_closed && !l->write_failed) {
		errno = 0;
		pcap_dump((u_char *)l->dump, h, bytes);
		if (ferror(stdout))
			stdout_failed(l, errno);
		else if (l->o->packet_buffered)
			flush_stdout(l);
	} else if (l->dump && !l->to_stdout) {
		if (l->o->rotate_bytes && pcap_dump_ftell64(l->dump) > (int64_t)l->o->rotate_bytes &&
		    rotate(l) != 0) {
			l->write_failed = true;
		}
		if (l->dump) {
			pcap_dump((u_char *)l->dump, h, bytes);
			if (l->o->packet_buffered)
				flush_file(l);
		}
	}
	memset(&rec, 0, sizeof(rec));
	rec.data = bytes;
	rec.caplen = h->caplen;
	rec.wirelen = h->len < h->caplen ? h->caplen : h->len;
	/* nanosecond precision was asked for: tv_usec holds nanoseconds */
	rec.ts_ns = (uint64_t)h->ts.tv_sec * 1000000000ull + (uint64_t)h->ts.tv_usec;
	rec.linktype = l->linktype;
	rec.frame_no = ++l->frames;
	l->fn(l->user, &rec);
	if (l->o->count && l->frames >= l->o->count) {
		l->count_reached = true;
		pcap_breakloop(l->p);
	}
}

/*
 * After a stop by signal or --duration: what the kernel took before it is
 * handed over within one block timeout; analyse it (and what comes in the
 * meantime).  Bounded by twice the block timeout.
 */
static int drain(ra_live_t *l, struct pollfd *pfd)
{
	uint64_t end = mono_ns() + 2ull * LIVE_BLOCK_MS * 1000000ull, now;
	int r;

	while (!l->count_reached && (now = mono_ns()) < end) {
		if (pfd->fd >= 0) {
			r = poll(pfd, 1, (int)((end - now) / 1000000ull) + 1);
			if (r < 0 && errno != EINTR)
				return -1;
			if (r <= 0)
				continue;
		}
		if (pcap_dispatch(l->p, -1, on_packet, (u_char *)l) == PCAP_ERROR)
			return -1;
		if (!flush_stdout(l))
			break;
		if (l->o->immediate)
			break;      /* nothing is held back */
	}
	return 0;
}

int ra_live_run(ra_live_t *l, ra_live_fn fn, void (*tick)(void *user, uint64_t mono_ns),
		void *user, const volatile sig_atomic_t *stop, bool *stopped_by_count,
		char *errbuf, size_t errlen)
{
	struct pollfd pfd;
	uint64_t start = mono_ns(), now;
	int r;

	l->fn = fn;
	l->user = user;
	pfd.fd = pcap_get_selectable_fd(l->p);
	pfd.events = POLLIN;
	for (;;) {
		if (l->count_reached || l->out_closed)
			break;      /* -c; -w -: the reader had gone before a frame (-U) */
		now = mono_ns();
		if (*stop || (l->o->duration_ns && now - start >= l->o->duration_ns)) {
			if (drain(l, &pfd) != 0) {
				snprintf(errbuf, errlen, "%s: %s", l->o->iface, pcap_geterr(l->p));
				return -1;
			}
			break;
		}
		if (tick)
			tick(user, now);
		if (pfd.fd >= 0) {
			r = poll(&pfd, 1, LIVE_POLL_MS);
			if (r < 0 && errno != EINTR) {
				snprintf(errbuf, errlen, "%s: poll: %s", l->o->iface, strerror(errno));
				return -1;
			}
			if (r <= 0)
				continue;
		}
		r = pcap_dispatch(l->p, -1, on_packet, (u_char *)l);
		if (r == PCAP_ERROR) {
			snprintf(errbuf, errlen, "%s: %s", l->o->iface, pcap_geterr(l->p));
			return -1;
		}
		if (!flush_stdout(l) && l->out_closed)
			break;      /* -w -: the reader has gone */
		if (l->write_failed) {
			snprintf(errbuf, errlen, "%s: writing the capture file: %s", l->o->iface,
				 l->werr[0] ? l->werr : "write failed");
			return -1;
		}
	}
	if (stopped_by_count)
		*stopped_by_count = l->count_reached;
	return 0;
}

bool ra_live_output_closed(const ra_live_t *l)
{
	return l->out_closed;
}

void ra_live_stats(ra_live_t *l, uint64_t *drops, uint64_t *received)
{
	struct pcap_stat st;

	memset(&st, 0, sizeof(st));
	if (pcap_stats(l->p, &st) == 0) {
		*drops = (uint64_t)st.ps_drop + st.ps_ifdrop;
	} else {
		*drops = 0;
	}
	*received = l->frames;
}

int ra_live_close(ra_live_t *l, char *errbuf, size_t errlen)
{
	int r = 0;

	if (!l)
		return 0;
	if (l->dump) {
		if (l->to_stdout)
			flush_stdout(l);
		else if (pcap_dump_flush(l->dump) != 0)
			l->write_failed = true;
		pcap_dump_close(l->dump);   /* -w -: closes stdout, the reader sees the end */
	}
	if (l->write_failed) {
		snprintf(errbuf, errlen, "%s: writing the capture file failed", l->o->iface);
		r = -1;
	}
	pcap_close(l->p);
	free(l->filter);
	free(l);
	return r;
}
