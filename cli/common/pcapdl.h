/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pcapdl.h - libpcap, loaded when first needed.
 *
 * roce-analyze reads capture files with its own reader (capread_*.c) and needs
 * libpcap only to compile a BPF filter (capfilter.c) and for live capture
 * (live.c).  Linked at start-up, Debian's libpcap brings in libdbus and with it
 * libsystemd, libgcrypt, liblz4, libzstd, liblzma and libcap: mapping and
 * relocating them took about 10 ms of every run on the benchmark VMs, a sixth
 * of analysing a 256 MiB capture.  So the tool opens libpcap with dlopen() the
 * first time a filter or an interface asks for it.
 *
 * A file that includes this header (instead of <pcap/pcap.h>) calls the
 * libpcap functions by their usual names: each name below is a macro for a
 * pointer that roce_pcap_load() fills.  Call roce_pcap_load() (any thread, any
 * number of times) before the first of them; libpcap's types and constants
 * come from its header as usual.
 */
#ifndef ROCE_PCAPDL_H
#define ROCE_PCAPDL_H

#include <stddef.h>
#include <stdint.h>

#include <pcap/pcap.h>

/* return type, name, parameters: every libpcap function the tools call */
#define ROCE_PCAP_FUNCS(X)                                                                \
	X(pcap_t *, pcap_create, (const char *, char *))                                   \
	X(pcap_t *, pcap_open_dead, (int, int))                                            \
	X(int, pcap_set_snaplen, (pcap_t *, int))                                          \
	X(int, pcap_set_promisc, (pcap_t *, int))                                          \
	X(int, pcap_set_immediate_mode, (pcap_t *, int))                                   \
	X(int, pcap_set_timeout, (pcap_t *, int))                                          \
	X(int, pcap_set_buffer_size, (pcap_t *, int))                                      \
	X(int, pcap_set_tstamp_precision, (pcap_t *, int))                                 \
	X(int, pcap_activate, (pcap_t *))                                                  \
	X(const char *, pcap_statustostr, (int))                                           \
	X(char *, pcap_geterr, (pcap_t *))                                                 \
	X(int, pcap_datalink, (pcap_t *))                                                  \
	X(const char *, pcap_datalink_val_to_name, (int))                                  \
	X(const char *, pcap_datalink_val_to_description, (int))                           \
	X(int, pcap_snapshot, (pcap_t *))                                                  \
	X(int, pcap_compile, (pcap_t *, struct bpf_program *, const char *, int, bpf_u_int32)) \
	X(int, pcap_setfilter, (pcap_t *, struct bpf_program *))                           \
	X(void, pcap_freecode, (struct bpf_program *))                                     \
	X(int, pcap_offline_filter, (const struct bpf_program *, const struct pcap_pkthdr *, \
				     const u_char *))                                      \
	X(int, pcap_setnonblock, (pcap_t *, int, char *))                                  \
	X(int, pcap_get_selectable_fd, (pcap_t *))                                         \
	X(int, pcap_dispatch, (pcap_t *, int, pcap_handler, u_char *))                     \
	X(void, pcap_breakloop, (pcap_t *))                                                \
	X(int, pcap_stats, (pcap_t *, struct pcap_stat *))                                 \
	X(void, pcap_close, (pcap_t *))                                                    \
	X(pcap_dumper_t *, pcap_dump_open, (pcap_t *, const char *))                       \
	X(void, pcap_dump, (u_char *, const struct pcap_pkthdr *, const u_char *))         \
	X(int, pcap_dump_flush, (pcap_dumper_t *))                                         \
	X(int64_t, pcap_dump_ftell64, (pcap_dumper_t *))                                   \
	X(void, pcap_dump_close, (pcap_dumper_t *))

struct roce_pcap_fns {
#define ROCE_PCAP_PTR(ret, name, args) ret (*name) args;
	ROCE_PCAP_FUNCS(ROCE_PCAP_PTR)
#undef ROCE_PCAP_PTR
};

extern struct roce_pcap_fns roce_pcap_fns_;

/*
 * Open libpcap and look up every function above (once; later calls return
 * the first result).  0, or -1 with "libpcap: REASON" in errbuf (errlen
 * bytes) when it is not installed or lacks a function.
 */
int roce_pcap_load(char *errbuf, size_t errlen);

#ifndef ROCE_PCAPDL_IMPL
#define pcap_create (*roce_pcap_fns_.pcap_create)
#define pcap_open_dead (*roce_pcap_fns_.pcap_open_dead)
#define pcap_set_snaplen (*roce_pcap_fns_.pcap_set_snaplen)
#define pcap_set_promisc (*roce_pcap_fns_.pcap_set_promisc)
#define pcap_set_immediate_mode (*roce_pcap_fns_.pcap_set_immediate_mode)
#define pcap_set_timeout (*roce_pcap_fns_.pcap_set_timeout)
#define pcap_set_buffer_size (*roce_pcap_fns_.pcap_set_buffer_size)
#define pcap_set_tstamp_precision (*roce_pcap_fns_.pcap_set_tstamp_precision)
#define pcap_activate (*roce_pcap_fns_.pcap_activate)
#define pcap_statustostr (*roce_pcap_fns_.pcap_statustostr)
#define pcap_geterr (*roce_pcap_fns_.pcap_geterr)
#define pcap_datalink (*roce_pcap_fns_.pcap_datalink)
#define pcap_datalink_val_to_name (*roce_pcap_fns_.pcap_datalink_val_to_name)
#define pcap_datalink_val_to_description (*roce_pcap_fns_.pcap_datalink_val_to_description)
#define pcap_snapshot (*roce_pcap_fns_.pcap_snapshot)
#define pcap_compile (*roce_pcap_fns_.pcap_compile)
#define pcap_setfilter (*roce_pcap_fns_.pcap_setfilter)
#define pcap_freecode (*roce_pcap_fns_.pcap_freecode)
#define pcap_offline_filter (*roce_pcap_fns_.pcap_offline_filter)
#define pcap_setnonblock (*roce_pcap_fns_.pcap_setnonblock)
#define pcap_get_selectable_fd (*roce_pcap_fns_.pcap_get_selectable_fd)
#define pcap_dispatch (*roce_pcap_fns_.pcap_dispatch)
#define pcap_breakloop (*roce_pcap_fns_.pcap_breakloop)
#define pcap_stats (*roce_pcap_fns_.pcap_stats)
#define pcap_close (*roce_pcap_fns_.pcap_close)
#define pcap_dump_open (*roce_pcap_fns_.pcap_dump_open)
#define pcap_dump (*roce_pcap_fns_.pcap_dump)
#define pcap_dump_flush (*roce_pcap_fns_.pcap_dump_flush)
#define pcap_dump_ftell64 (*roce_pcap_fns_.pcap_dump_ftell64)
#define pcap_dump_close (*roce_pcap_fns_.pcap_dump_close)
#endif

#endif /* ROCE_PCAPDL_H */
