/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * encap.c - roce-gen --encap: every frame written wrapped in a tunnel or
 * mirror encapsulation (roce_build_encap()), as a remote mirror session or a
 * tunnel endpoint delivers it: an output layered over the file or interface
 * output (the frames' timestamps are those of the frames inside).  The outer
 * headers are fixed (docs/roce-gen.md): 02:00:00:00:ee:01 -> 02:00:00:00:ee:02,
 * 192.0.2.1 -> 192.0.2.2, UDP source port 49152, VNI 100, ERSPAN session 1
 * with a GRE sequence number counting the frames from 0; MPLS: the same outer
 * Ethernet and --mpls-labels (default one label, 100), --mpls-pw.
 * --mirror-snaplen N (ERSPAN II/III) cuts each inner frame to N bytes and sets
 * the T bit.
 */
#include <stdlib.h>
#include <string.h>

#include <roce/build.h>
#include <roce/pkt.h>

#include "gen.h"

/* The outer headers' bytes at most: Ethernet, IPv6, GRE with every field, ERSPAN III
 * with its subheader (or UDP + Geneve). */
#define RG_ENCAP_MAX_HDR 128

struct rg_encap {
	struct rg_output inner;         /* the file or interface output */
	struct roce_encap_spec spec;
	uint32_t snaplen;               /* --mirror-snaplen; 0: none */
	uint8_t buf[RG_FRAME_MAX + RG_ENCAP_MAX_HDR];
};

static int encap_fail(struct rg_output *o, struct rg_encap *e, int rc)
{
	if (e->inner.err[0])
		memcpy(o->err, e->inner.err, sizeof(o->err));
	o->exit_status = e->inner.exit_status;
	return rc;
}

/* frame wrapped into e->buf (*out bytes), or -1 with o's error line */
static int encap_build(struct rg_output *o, struct rg_encap *e, const uint8_t *frame,
		       uint32_t len, size_t *out)
{
	uint32_t inner = len;

	e->spec.truncated = e->snaplen && len > e->snaplen;
	if (e->spec.truncated)
		inner = e->snaplen;
	if (roce_build_encap(&e->spec, frame, inner, e->buf, sizeof(e->buf), out) != ROCE_OK) {
		snprintf(o->err, sizeof(o->err), "frame of %u bytes too large to encapsulate", len);
		return -1;
	}
	e->spec.seq++;
	return 0;
}

static int encap_write(struct rg_output *o, uint64_t ts_ns, const uint8_t *frame, uint32_t len)
{
	struct rg_encap *e = o->impl;
	size_t n;
	int rc;

	if (encap_build(o, e, frame, len, &n))
		return -1;
	rc = e->inner.ops->write(&e->inner, ts_ns, e->buf, (uint32_t)n);
	o->sent = e->inner.sent;
	o->send_errors = e->inner.send_errors;
	return rc ? encap_fail(o, e, rc) : 0;
}

/* a record cut to caplen: the whole frame wrapped, the capture cut as many bytes later */
static int encap_write_cap(struct rg_output *o, uint64_t ts_ns, const uint8_t *frame,
			   uint32_t caplen, uint32_t len)
{
	struct rg_encap *e = o->impl;
	size_t n;
	int rc;

	if (encap_build(o, e, frame, len, &n))
		return -1;
	caplen += (uint32_t)n - (e->spec.truncated ? e->snaplen : len);
	rc = e->inner.ops->write_cap(&e->inner, ts_ns, e->buf, caplen < n ? caplen : (uint32_t)n,
				     (uint32_t)n);
	return rc ? encap_fail(o, e, rc) : 0;
}

static int encap_close(struct rg_output *o)
{
	struct rg_encap *e = o->impl;
	int rc = e->inner.ops->close(&e->inner);

	o->sent = e->inner.sent;
	o->send_errors = e->inner.send_errors;
	if (rc)
		encap_fail(o, e, rc);
	free(e);
	o->impl = NULL;
	return rc;
}

static const struct rg_output_ops encap_ops = {
	.write = encap_write, .close = encap_close,
};

static const struct rg_output_ops encap_ops_cap = {
	.write = encap_write, .close = encap_close, .write_cap = encap_write_cap,
};

int rg_encap_wrap(struct rg_output *o, const struct rg_config *c, char *errbuf, size_t errlen)
{
	struct rg_encap *e = calloc(1, sizeof(*e));

	if (!e) {
		snprintf(errbuf, errlen, "out of memory");
		o->ops->close(o);
		return -1;
	}
	e->inner = *o;
	roce_encap_spec_init(&e->spec, (enum roce_encap)c->encap);
	if (c->mpls_count) {
		e->spec.mpls_count = c->mpls_count;
		memcpy(e->spec.mpls_labels, c->mpls_labels, sizeof(e->spec.mpls_labels));
	}
	e->spec.mpls_pw = c->mpls_pw;
	e->snaplen = c->mirror_snaplen;
	o->impl = e;
	o->ops = e->inner.ops->write_cap ? &encap_ops_cap : &encap_ops;
	return 0;
}
