/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * roce.h - libroce umbrella header: version, status codes, API attributes.
 *
 * libroce decodes and validates RoCE v1 (IBTA Vol 1 Annex A16) and RoCE v2
 * (Annex A17) frames, PFC (IEEE 802.1Qbb) and 802.3x PAUSE frames, computes
 * the ICRC and runs per-queue-pair PSN / NAK / ECN / CNP and per-priority PFC
 * analysis.  The core is plain C11: no GLib, libpcap or Wireshark inside.
 *
 * Conventions (docs/STYLE.md):
 *   - status codes are int: ROCE_OK (0) or a negative ROCE_E_*;
 *   - decoded data is returned through caller-owned out-parameters;
 *   - nothing in the per-packet path allocates;
 *   - views point into the caller's buffer and live as long as it does.
 */
#ifndef ROCE_ROCE_H
#define ROCE_ROCE_H

#include <stddef.h>
#include <stdint.h>

/* ROCE_VERSION_MAJOR/MINOR/PATCH/STRING, generated from the project version */
#include <roce/version.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define ROCE_API __attribute__((visibility("default")))
#define ROCE_WARN_UNUSED_RESULT __attribute__((warn_unused_result))
#define ROCE_NONNULL(...) __attribute__((nonnull(__VA_ARGS__)))
#else
#define ROCE_API
#define ROCE_WARN_UNUSED_RESULT
#define ROCE_NONNULL(...)
#endif

/* Size of caller-owned error buffers (like PCAP_ERRBUF_SIZE). */
#define ROCE_ERRBUF_SIZE 256

/* Status codes.  Errors are negative; ROCE_OK is zero. */
enum roce_status {
	ROCE_OK = 0,
	ROCE_E_TRUNC = -1,       /* recognised, but the captured bytes end too early */
	ROCE_E_MALFORMED = -2,   /* recognised, but length fields are inconsistent */
	ROCE_E_NOT_ROCE = -3,    /* not a RoCE, PFC or PAUSE frame */
	ROCE_E_LINKTYPE = -4,    /* link-layer type not supported */
	ROCE_E_INVAL = -5,       /* invalid argument */
	ROCE_E_NOMEM = -6,       /* allocation failed (set-up only, never per packet) */
	ROCE_E_NOSPACE = -7,     /* output buffer too small (frame builder) */
	ROCE_E_UNSUPPORTED = -8, /* valid request the library cannot serve */
	ROCE_E_DISCARDED = -9    /* frame not counted: the caller's flag said its bytes may be
				  * invalid (roce_analyzer_set_discard_flag()) */
};

/* Human-readable text for a status code; never NULL. */
ROCE_API const char *roce_strerror(int status);

/* Library version string, e.g. "libroce 0.1.0 (crc32: isa-l)". */
ROCE_API const char *roce_version(void);

#ifdef __cplusplus
}
#endif

#endif /* ROCE_ROCE_H */
