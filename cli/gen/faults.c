/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faults.c - roce-gen's fault injector: which request packet or message a
 * fault hits (exact PSN lists, then a probability drawn from the fault RNG
 * stream), and the PFC / 802.3x PAUSE trains (frame times, frames built by
 * libroce's roce_build_pfc()/roce_build_pause(), storms for the summary).
 *
 * The recovery that follows a fault (NAK, go-back-N, RNR wait, timeout,
 * re-read) is the engine's (engine.c).
 */
#include <stdlib.h>
#include <string.h>

#include <roce/build.h>

#include "faults.h"

static int item_cmp(const void *a, const void *b)
{
	const struct rg_psn_item *x = a, *y = b;

	if (x->psn != y->psn)
		return x->psn < y->psn ? -1 : 1;
	return (x->qp > y->qp) - (x->qp < y->qp);
}

int rg_faults_init(struct rg_faults *f, const struct rg_config *c)
{
	memset(f, 0, sizeof(*f));
	f->c = c;
	rg_rng_seed(&f->rng, c->seed ^ 0x6661756c74730000ull);  /* "faults" */
	rg_rng_seed(&f->urng, c->seed ^ 0x756e72656c000000ull); /* "unrel" */
	for (int k = 0; k < RG_F_COUNT; k++) {
		const struct rg_psn_list *l = &c->fault[k].list;

		if (!l->n)
			continue;
		f->list[k] = malloc(l->n * sizeof(*l->v));
		if (!f->list[k])
			return -1;
		memcpy(f->list[k], l->v, l->n * sizeof(*l->v));
		qsort(f->list[k], l->n, sizeof(*l->v), item_cmp);
		f->n[k] = l->n;
	}
	for (int k = 0; k < RG_F_COUNT; k++)
		if (f->n[k] || c->fault[k].rate > 0)
			f->any = true;
	return 0;
}

void rg_faults_free(struct rg_faults *f)
{
	for (int k = 0; k < RG_F_COUNT; k++)
		free(f->list[k]);
	memset(f, 0, sizeof(*f));
}

static bool in_list(const struct rg_psn_item *v, unsigned n, uint32_t qp, uint32_t psn)
{
	unsigned lo = 0, hi = n;

	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;

		if (v[mid].psn < psn)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < n && v[lo].psn == psn; lo++)
		if (v[lo].qp < 0 || (uint32_t)v[lo].qp == qp)
			return true;
	return false;
}

static bool hits(struct rg_faults *f, struct rg_rng *r, enum rg_fault_kind k, uint32_t qp,
		 uint32_t psn)
{
	if (f->n[k] && in_list(f->list[k], f->n[k], qp, psn))
		return true;
	return f->c->fault[k].rate > 0 && rg_rng_chance(r, f->c->fault[k].rate);
}

bool rg_fault_hits(struct rg_faults *f, enum rg_fault_kind k, uint32_t qp, uint32_t psn)
{
	return hits(f, &f->rng, k, qp, psn);
}

enum rg_pkt_fate rg_fault_fate(struct rg_faults *f, uint32_t qp, uint32_t psn, bool rc,
			       bool has_payload, bool can_reorder)
{
	if (!f->any)
		return RG_FATE_NONE;
	if (rc) {
		if (rg_fault_hits(f, RG_F_DROP, qp, psn))
			return RG_FATE_DROP;
		if (rg_fault_hits(f, RG_F_BAD_ICRC, qp, psn))
			return RG_FATE_BAD_ICRC;
		if (has_payload && rg_fault_hits(f, RG_F_BAD_PAYLOAD, qp, psn))
			return RG_FATE_BAD_PAYLOAD;
		if (rg_fault_hits(f, RG_F_DUP, qp, psn))
			return RG_FATE_DUP;
		if (can_reorder && rg_fault_hits(f, RG_F_REORDER, qp, psn))
			return RG_FATE_REORDER;
	}
	if (rg_fault_hits(f, RG_F_CE, qp, psn))
		return RG_FATE_CE;
	return RG_FATE_NONE;
}

enum rg_pkt_fate rg_fault_fate_unrel(struct rg_faults *f, uint32_t qp, uint32_t psn,
				     bool has_payload, bool can_lose, bool can_reorder)
{
	enum rg_pkt_fate ce;

	if (!f->any)
		return RG_FATE_NONE;
	ce = rg_fault_fate(f, qp, psn, false, false, false);
	if (can_lose) {
		if (hits(f, &f->urng, RG_F_DROP, qp, psn))
			return RG_FATE_DROP;
		if (hits(f, &f->urng, RG_F_BAD_ICRC, qp, psn))
			return RG_FATE_BAD_ICRC;
		if (has_payload && hits(f, &f->urng, RG_F_BAD_PAYLOAD, qp, psn))
			return RG_FATE_BAD_PAYLOAD;
	}
	if (hits(f, &f->urng, RG_F_DUP, qp, psn))
		return RG_FATE_DUP;
	if (can_lose && can_reorder && hits(f, &f->urng, RG_F_REORDER, qp, psn))
		return RG_FATE_REORDER;
	return ce;
}

/* ---- pause trains ------------------------------------------------------------ */

void rg_pauses_init(struct rg_pauses *ps, const struct rg_config *c, uint64_t t0)
{
	memset(ps, 0, sizeof(*ps));
	ps->c = c;
	ps->n = c->n_pauses;
	for (unsigned i = 0; i < ps->n; i++) {
		struct rg_pause_state *s = &ps->s[i];
		const struct rg_pause *p = &c->pause[i];

		s->p = p;
		s->t0 = t0 + p->start_ns;
		s->n_xoff = p->length_ns ? (p->length_ns + p->refresh_ns - 1) / p->refresh_ns : 1;
		s->next = 0;
	}
}

static uint64_t frame_time(const struct rg_pause_state *s, uint64_t k)
{
	if (k < s->n_xoff)
		return s->t0 + k * s->p->refresh_ns;
	/* XON: at the end of the length, or right after a single XOFF */
	return s->t0 + (s->p->length_ns ? s->p->length_ns : s->p->refresh_ns ? s->p->refresh_ns :
			1000);
}

static uint64_t train_frames(const struct rg_pause_state *s)
{
	return s->n_xoff + (s->p->pfc && s->p->xon ? 1 : 0);
}

bool rg_pauses_next(const struct rg_pauses *ps, uint64_t *ts, unsigned *which)
{
	bool found = false;

	for (unsigned i = 0; i < ps->n; i++) {
		const struct rg_pause_state *s = &ps->s[i];
		uint64_t t;

		if (s->next >= train_frames(s))
			continue;
		t = frame_time(s, s->next);
		if (!found || t < *ts) {
			*ts = t;
			*which = i;
			found = true;
		}
	}
	return found;
}

int rg_pauses_build(struct rg_pauses *ps, unsigned i, uint8_t *buf, size_t cap, size_t *len)
{
	struct rg_pause_state *s = &ps->s[i];
	const struct rg_pause *p = s->p;
	const uint8_t *mac = p->mac_set ? p->mac : ps->c->mac_b;
	uint16_t q[8] = { 0 };
	bool xon = s->next >= s->n_xoff;
	int rc;

	if (p->pfc) {
		q[p->prio] = xon ? 0 : p->quanta;
		rc = roce_build_pfc(mac, (uint8_t)(1u << p->prio), q, buf, cap, len);
	} else {
		rc = roce_build_pause(mac, p->quanta, buf, cap, len);
	}
	s->next++;
	return rc;
}

/*
 * Storms: walk the frames written of each train; a new XOFF extends the
 * pause to t + quanta time (union of the requested intervals), an XON ends
 * it; a continuous pause of at least storm_ns is one storm.  Trains are
 * taken one at a time (two trains on one priority are not merged).
 */
void rg_pauses_truth(const struct rg_pauses *ps, struct rg_truth *t)
{
	const struct rg_config *c = ps->c;

	for (unsigned i = 0; i < ps->n; i++) {
		const struct rg_pause_state *s = &ps->s[i];
		uint64_t qt = (uint64_t)s->p->quanta * 512 / c->link_gbps;
		uint64_t start = 0, end = 0;
		bool active = false;

		for (uint64_t k = 0; k < s->next; k++) {
			uint64_t ts = frame_time(s, k);

			if (k >= s->n_xoff || !s->p->quanta) {  /* XON */
				if (active && ts < end)
					end = ts;
				if (active && end - start >= c->storm_ns)
					t->pfc_storms++;
				active = false;
				continue;
			}
			if (active && ts <= end) {
				if (ts + qt > end)
					end = ts + qt;
				continue;
			}
			if (active && end - start >= c->storm_ns)
				t->pfc_storms++;
			active = true;
			start = ts;
			end = ts + qt;
		}
		if (active && end - start >= c->storm_ns)
			t->pfc_storms++;
	}
}
