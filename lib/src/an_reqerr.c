// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * an_reqerr.c - the request state's damaged-traffic block (struct an_req_err:
 * the pending NAK and RNR NAK, the go-back run, the PSNs behind the stream's
 * first, the older AckReqs, the ACKed-ahead mark): allocated on first use,
 * so that a stream of clean traffic never has one, and freed as soon as
 * nothing in it is in use, its bytes counted in the memory accounting
 * (err_bytes).  Called by an_request.c, an_response.c and the rings of
 * an_ring.h; its own file so that those three depend on it and not on one
 * another.
 */
#include <stdlib.h>

#include "an_internal.h"

struct an_req_err *an_req_err(struct roce_analyzer *a, struct an_req *r)
{
	if (!r->err && (r->err = calloc(1, sizeof(*r->err))) != NULL)
		a->err_bytes += sizeof(*r->err);
	return r->err;
}

void an_req_err_free(struct roce_analyzer *a, struct an_req *r)
{
	if (!r->err)
		return;
	a->err_bytes -= sizeof(*r->err);
	if (r->err->pre) {
		free(r->err->pre->unseen.holes);
		free(r->err->pre);
	}
	free(r->err);
	r->err = NULL;
}

/* r's block freed when nothing in it is in use: no go-back run, no pending NAK or RNR
 * NAK, no PSNs behind the first, no older AckReqs (an_ring.h) */
void an_req_err_release(struct roce_analyzer *a, struct an_req *r)
{
	const struct an_req_err *er = r->err;

	if (er && !r->gbn_active && !er->nak.valid && !er->rnr.valid && !er->pre && !er->ackold.n &&
	    !er->ahead)
		an_req_err_free(a, r);
}
