/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * anomaly.c - the event and anomaly vocabulary, expanded from
 * <roce/anomalies.def>: names, name lookup, the per-type table row
 * (event bit, expert severity, help text) and the summary total.
 */
#include <stddef.h>
#include <string.h>

#include <roce/analyzer.h>

static const struct roce_anomaly_info an_info[ROCE_AN_COUNT] = {
#define ROCE_ANOMALY(sym, nm, ev, counter, sev, group, ex, hl) \
	[ROCE_AN_##sym] = { .name = #nm, .event = ROCE_EV_##ev, .severity = ROCE_SEV_##sev, \
			    .expert = ex, .help = hl },
#include <roce/anomalies.def>
};

static const char *const ev_names[ROCE_EVI_COUNT] = {
#define ROCE_EVENT(sym, nm) [ROCE_EVI_##sym] = #nm,
#include <roce/anomalies.def>
};

const char *roce_anomaly_name(enum roce_anomaly_type t)
{
	if ((unsigned)t >= ROCE_AN_COUNT)
		return "unknown";
	return an_info[t].name;
}

int roce_anomaly_by_name(const char *name)
{
	if (!name)
		return -1;
	for (int i = 0; i < ROCE_AN_COUNT; i++)
		if (strcmp(name, an_info[i].name) == 0)
			return i;
	return -1;
}

const struct roce_anomaly_info *roce_anomaly_info(enum roce_anomaly_type t)
{
	if ((unsigned)t >= ROCE_AN_COUNT)
		return NULL;
	return &an_info[t];
}

uint64_t roce_anomaly_count(const struct roce_summary *s, enum roce_anomaly_type t)
{
	switch (t) {
#define ROCE_ANOMALY(sym, nm, ev, counter, sev, group, ex, hl) \
	case ROCE_AN_##sym: return (counter);
#include <roce/anomalies.def>
	default:
		return 0;
	}
}

const char *roce_event_name(uint32_t bit)
{
	if (bit == 0 || (bit & (bit - 1)) != 0)
		return NULL;
	for (unsigned i = 0; i < ROCE_EVI_COUNT; i++)
		if (bit == 1u << i)
			return ev_names[i];
	return NULL;
}
