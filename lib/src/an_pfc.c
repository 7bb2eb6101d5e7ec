// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * an_pfc.c - per (interface, source MAC, priority) PFC / PAUSE timing and storms.
 *
 * PFC / PAUSE: per (interface, source MAC, priority; -1 = 802.3x PAUSE): a
 *   pause acts on one link (roce_analyzer_set_interface() names it).  paused_ns is
 *   the union of pause intervals: a frame at t with q > 0 while not paused
 *   opens [t, t + d); while paused a frame replaces the deadline with t + d;
 *   q == 0 ends the interval at t; a frame at t > deadline first closes the
 *   interval at its deadline (a refresh at exactly the deadline continues
 *   it: the half-open intervals touch); finish closes open intervals at their
 *   deadlines.  A storm is flagged once per interval, at the first frame of
 *   the entry with t - start >= pfc_storm_ns while still paused, or when the
 *   interval closes with a length >= pfc_storm_ns.  PAUSE storms use bit 0 of
 *   res->storm_mask.
 *   A frame older than the entry's newest one (reordered time stamps) was
 *   sent before the frames already applied (pfc_late()): it is counted, ends
 *   nothing and moves no deadline; an XOFF whose interval reaches the open
 *   pause's start starts that pause earlier, not before the entry's previous
 *   pause ended; so does a new pause (roce_analyzer_advance() may have closed
 *   the previous one past the frame's time).  Time stamps that go backwards
 *   never underflow.
 */
#include <math.h>
#include <stdio.h>

#include "an_internal.h"

uint64_t roce_pause_quanta_ns(double link_speed_gbps, uint32_t quanta)
{
	double v;

	/* one quantum = 512 bit times; Gb/s == bits per ns */
	if (!(link_speed_gbps > 0) || isinf(link_speed_gbps))
		return 0;
	v = (double)quanta * 512.0 / link_speed_gbps;
	if (!(v < 1.8e19))
		return UINT64_MAX;
	return (uint64_t)(v + 0.5);
}

static uint32_t fnv1a(uint32_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 16777619u;
	}
	return h;
}

/* ------------------------------------------------------------------- PFC */

void roce_analyzer_set_interface(roce_analyzer_t *a, uint32_t iface)
{
	a->iface = iface;
}

static uint32_t pfc_hash(uint32_t iface, const uint8_t mac[6], int prio)
{
	uint8_t pr = (uint8_t)(prio + 1);
	uint32_t h = fnv1a(2166136261u, mac, 6);

	h = fnv1a(h, &pr, 1);
	if (iface)      /* interface 0 hashes as before the interface was in the key */
		h = fnv1a(h, &iface, sizeof(iface));
	h ^= h >> 16;
	h *= 0x7feb352du;
	h ^= h >> 15;
	return h;
}

static struct an_pfc *pfc_get(struct an_ctx *c, const uint8_t mac[6], int prio)
{
	struct roce_analyzer *a = c->a;
	struct an_table *t = &a->pfc;
	uint32_t iface = a->iface, h = pfc_hash(iface, mac, prio), i = h & t->mask;
	struct an_pfc *e;

	while (t->slots[i].e) {
		e = (struct an_pfc *)t->slots[i].e;
		if (t->slots[i].hash == h && e->st.priority == prio && e->st.interface == iface &&
		    memcmp(e->st.src_mac, mac, 6) == 0)
			return e;
		i = (i + 1) & t->mask;
	}
	if (t->n >= t->cap) {
		struct an_pfc *v = (struct an_pfc *)an_table_victim(t, h, offsetof(struct an_pfc, tick));

		if (!v)
			return NULL;
		a->sum.evicted_pfc++;
		if (a->want_an) {
			struct roce_anomaly an;

			an_init(&an, ROCE_AN_FLOW_EVICTED, c->frame, c->ts, NULL);
			an.has_mac = true;
			memcpy(an.mac, v->st.src_mac, 6);
			an.priority = v->st.priority;
			an.interface = v->st.interface;
			snprintf(an.detail, sizeof(an.detail),
				"PFC table full (%u): least recently active entry dropped", a->cfg.max_pfc);
			an_emit(a, &an);
		}
		an_table_remove(t, &v->ent, v->hash);
		free(v);
	}
	if (an_table_reserve(t))
		return NULL;
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->hash = h;
	e->ent.seq = a->seq++;
	memcpy(e->st.src_mac, mac, 6);
	e->st.priority = prio;
	e->st.interface = iface;
	e->st.first_frame = c->frame;
	an_table_insert(t, &e->ent, h);
	return e;
}

static void pfc_storm(struct roce_analyzer *a, struct an_pfc *e, uint64_t frame, uint64_t ts,
	uint64_t len, struct roce_frame_result *res)
{
	e->storm_flagged = true;
	e->st.storms++;
	a->sum.pfc_storms++;
	if (res) {
		res->events |= ROCE_EV_PFC_STORM;
		res->storm_mask |= (uint8_t)(1u << (e->st.priority < 0 ? 0 : e->st.priority));
	}
	if (a->want_an) {
		struct roce_anomaly an;

		an_init(&an, ROCE_AN_PFC_STORM, frame, ts, NULL);
		an.has_mac = true;
		memcpy(an.mac, e->st.src_mac, 6);
		an.priority = e->st.priority;
		an.interface = e->st.interface;
		an.count = 0;   /* the duration is in detail; count is for PSNs */
		if (e->st.priority < 0)
			snprintf(an.detail, sizeof(an.detail),
				"802.3x PAUSE: link paused continuously for %.3f ms", (double)len / 1e6);
		else
			snprintf(an.detail, sizeof(an.detail),
				"priority %d paused continuously for %.3f ms", e->st.priority,
				(double)len / 1e6);
		an_emit(a, &an);
	}
}

void an_pfc_close(struct roce_analyzer *a, struct an_pfc *e, uint64_t end, uint64_t frame,
	uint64_t ts, struct roce_frame_result *res)
{
	uint64_t len = end >= e->start ? end - e->start : 0;

	if (a->nobs) {
		struct roce_pause_event ev;

		memset(&ev, 0, sizeof(ev));
		memcpy(ev.src_mac, e->st.src_mac, 6);
		ev.priority = e->st.priority;
		ev.interface = e->st.interface;
		ev.start_ns = e->start;
		ev.end_ns = e->start + len;
		ev.start_frame = e->start_frame;
		ev.storm = len >= a->cfg.pfc_storm_ns;
		an_notify_pause(a, &ev);
	}
	e->paused = false;
	e->last_end = e->start + len;
	e->st.paused_ns += len;
	if (len > e->st.longest_pause_ns)
		e->st.longest_pause_ns = len;
	if (len >= a->cfg.pfc_storm_ns && !e->storm_flagged)
		pfc_storm(a, e, frame, ts, len, res);
}

/*
 * A frame at t older than the entry's newest frame: sent before the frames
 * already applied, which replaced its timer (or ended it).  An XON was
 * overtaken by a later frame: it ends nothing.  An XOFF moves no deadline;
 * if its interval [t, t + d) reaches the open pause's start, the pause
 * began at t (the frame that opened it refreshed this one), but not before
 * the entry's previous pause ended (that time is counted and reported).
 */
static void pfc_late(struct an_ctx *c, struct an_pfc *e, uint16_t q, uint64_t d)
{
	uint64_t t = c->ts, start;

	if (q == 0) {
		e->st.xon++;
		return;
	}
	e->st.xoff++;
	if (!e->paused || t >= e->start || UINT64_MAX - t < d || t + d < e->start)
		return;
	start = t > e->last_end ? t : e->last_end;
	if (start < e->start) {
		e->start = start;
		e->start_frame = c->frame;
	}
}

static void pfc_apply(struct an_ctx *c, struct an_pfc *e, uint16_t q, uint64_t d)
{
	struct roce_analyzer *a = c->a;
	uint64_t t = c->ts;

	e->tick = a->tick;
	e->st.quanta += q;
	if (e->st.frames++ && t < e->newest) {
		pfc_late(c, e, q, d);
		return;
	}
	e->newest = t;
	if (e->paused && t > e->deadline)
		an_pfc_close(a, e, e->deadline, c->frame, t, c->res);
	if (q == 0) {
		e->st.xon++;
		if (e->paused)
			an_pfc_close(a, e, t < e->deadline ? t : e->deadline, c->frame, t, c->res);
		return;
	}
	e->st.xoff++;
	if (!e->paused) {
		/* roce_analyzer_advance() (live: the wall clock) may have closed the last
		 * pause past t: [t, last_end) is counted already */
		uint64_t s = t > e->last_end ? t : e->last_end;

		if (UINT64_MAX - t >= d && t + d <= s)
			return;
		e->paused = true;
		e->storm_flagged = false;
		e->start = s;
		e->start_frame = c->frame;
	}
	e->deadline = UINT64_MAX - t < d ? UINT64_MAX : t + d;
	if (!e->storm_flagged && t >= e->start && t - e->start >= a->cfg.pfc_storm_ns)
		pfc_storm(a, e, c->frame, t, t - e->start, c->res);
}

void an_pfc_process(struct an_ctx *c)
{
	static const uint8_t zero_mac[6];
	const struct roce_pkt *pkt = c->pkt;
	const uint8_t *mac = pkt->src_mac ? pkt->src_mac : zero_mac;
	struct roce_analyzer *a = c->a;

	if (pkt->kind == ROCE_KIND_PAUSE) {
		uint16_t q = pkt->pfc_quanta[0];
		uint64_t d = roce_pause_quanta_ns(a->cfg.link_speed_gbps, q);
		struct an_pfc *e;

		a->sum.pause_frames++;
		c->res->events |= ROCE_EV_PAUSE;
		c->res->pause_ns[0] = d;
		e = pfc_get(c, mac, -1);
		if (e)
			pfc_apply(c, e, q, d);
		return;
	}
	a->sum.pfc_frames++;
	c->res->events |= ROCE_EV_PFC;
	for (int i = 0; i < 8; i++) {
		uint16_t q = pkt->pfc_quanta[i];
		uint64_t d;
		struct an_pfc *e;

		if (!(pkt->pfc_enable & (1u << i)))
			continue;
		d = roce_pause_quanta_ns(a->cfg.link_speed_gbps, q);
		c->res->pause_ns[i] = d;
		if (q == 0)
			c->res->events |= ROCE_EV_PFC_XON;
		e = pfc_get(c, mac, i);
		if (e)
			pfc_apply(c, e, q, d);
	}
}

void an_pfc_advance(struct roce_analyzer *a)
{
	uint64_t t = a->now;

	for (uint32_t i = 0; i < a->pfc.len; i++) {
		struct an_pfc *e = (struct an_pfc *)an_dense_at(&a->pfc, i);

		if (!e || !e->paused)
			continue;
		if (t > e->deadline)
			an_pfc_close(a, e, e->deadline, a->last_frame, t, NULL);
		else if (!e->storm_flagged && t >= e->start && t - e->start >= a->cfg.pfc_storm_ns)
			pfc_storm(a, e, a->last_frame, t, t - e->start, NULL);
	}
}

void an_pfc_export(const struct roce_analyzer *a, const struct an_pfc *e,
	struct roce_pfc_stats *out)
{
	*out = e->st;
	out->size = sizeof(*out);
	out->paused = e->paused;
	out->pause_start_ns = e->paused ? e->start : 0;
	if (e->paused) {
		/* the open pause, up to now (or its deadline if that came first) */
		uint64_t end = a->now < e->deadline ? a->now : e->deadline;
		uint64_t len = end > e->start ? end - e->start : 0;

		out->paused_ns += len;
		if (len > out->longest_pause_ns)
			out->longest_pause_ns = len;
	}
}
