// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * an_event.c - what the analyzer's files share to report and count events:
 * anomaly records (an_init), their delivery to the on_anomaly callback and
 * the observers (an_emit), pause events to the observers, and a stream's
 * event-counter block (an_flow_ctr, behind AN_COUNT).  Kept apart from
 * analyzer.c so that an_request.c, an_response.c and an_pfc.c, which
 * analyzer.c calls, never call back into it.
 */
#include "an_internal.h"

void an_init(struct roce_anomaly *an, enum roce_anomaly_type type,
	uint64_t frame, uint64_t ts, const struct an_flow *f)
{
	memset(an, 0, sizeof(*an));
	an->type = type;
	an->frame = frame;
	an->ts_ns = ts;
	an->priority = -1;
	if (f) {
		an->has_flow = true;
		an->flow = f->st.key;
	}
}

void an_emit(struct roce_analyzer *a, const struct roce_anomaly *an)
{
	if (a->cfg.on_anomaly)
		a->cfg.on_anomaly(a->cfg.user, an);
	for (unsigned i = 0; i < a->nobs; i++)
		if (a->obs[i].on_anomaly)
			a->obs[i].on_anomaly(a->obs[i].user, an);
}

void an_notify_pause(struct roce_analyzer *a, const struct roce_pause_event *ev)
{
	for (unsigned i = 0; i < a->nobs; i++)
		if (a->obs[i].on_pause)
			a->obs[i].on_pause(a->obs[i].user, ev);
}

struct roce_counters *an_flow_ctr(struct roce_analyzer *a, struct an_flow *f)
{
	if (!f->ctr)
		f->ctr = an_pool_get(&a->pool.ctr);
	return f->ctr;
}

void an_flow_carry(struct roce_analyzer *a, struct an_flow *f, bool ecn)
{
	struct roce_counters *c = an_flow_ctr(a, f);

	if (!c)
		return;
	if (ecn)
		c->ecn_capable += UINT64_C(1) << 32;
	else
		((struct an_ctr *)c)->frames_hi += UINT64_C(1) << 32;
}
