// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * health.c - interval metrics, thresholds and --check (health.h).
 *
 * Every metric is a difference of two analyzer snapshots: the same counters,
 * with the same definitions, as the final report (docs/json.md).
 */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <glib.h>

#include "health.h"

/* ---- snapshots and metrics ------------------------------------------------- */

static int pfc_cb(void *user, const struct roce_pfc_stats *p)
{
	struct ra_snap *sn = user;
	int i = p->priority < 0 ? 8 : p->priority;

	if (i >= 0 && i < RA_PRIOS && p->paused_ns > sn->paused_ns[i])
		sn->paused_ns[i] = p->paused_ns;
	return 0;
}

void ra_snap_take(const struct ra_ctx *ctx, uint64_t drops, struct ra_snap *out)
{
	memset(out, 0, sizeof(*out));
	roce_analyzer_summary(ctx->an, &out->s);
	roce_analyzer_foreach_pfc(ctx->an, pfc_cb, out);
	out->drops = drops;
}

#define D(f) (b->s.f - a->s.f)

void ra_metrics_delta(const struct ra_snap *a, const struct ra_snap *b, double secs,
		      struct ra_metrics *m)
{
	memset(m, 0, sizeof(*m));
	m->secs = secs;
	m->frames = D(frames);
	m->bytes = D(bytes);
	m->icrc_bad = D(icrc_bad);
	m->psn_gaps = D(psn_gaps);
	m->lost_psns = D(lost_psns);
	m->acked_unseen_psns = D(acked_unseen_psns);
	m->duplicates = D(duplicates);
	m->naks = D(naks);
	m->rnr_naks = D(rnr_naks);
	m->cnps = D(cnps);
	m->ecn_ce = D(ecn_ce);
	m->ecn_capable = D(ecn_capable);
	m->pfc_storms = D(pfc_storms);
	m->evicted_flows = D(evicted_flows);
	m->expired_flows = D(expired_flows);
	m->capture_drops = b->drops - a->drops;
	if (secs > 0) {
		m->gbps = (double)m->bytes * 8.0 / secs / 1e9;
		m->cnp_per_s = (double)m->cnps / secs;
		m->lost_psns_per_s = (double)m->lost_psns / secs;
	}
	m->ce_ratio = m->ecn_capable ? (double)m->ecn_ce / (double)m->ecn_capable : 0.0;
	for (int i = 0; i < RA_PRIOS; i++) {
		double r = 0.0;

		if (secs > 0)
			r = (double)(b->paused_ns[i] - a->paused_ns[i]) / (secs * 1e9);
		if (r > 1.0)
			r = 1.0;    /* a pause requested past the end of the interval */
		m->paused_ratio[i] = r;
		if (r > m->pfc_paused_ratio)
			m->pfc_paused_ratio = r;
	}
}

#undef D

/* ---- metric table ------------------------------------------------------------ */

struct metric_def {
	const char *name;
	bool is_int;
	size_t off;
};

#define MI(n) { #n, true, offsetof(struct ra_metrics, n) }
#define MD(n) { #n, false, offsetof(struct ra_metrics, n) }

static const struct metric_def metrics[] = {
	MI(frames), MD(gbps), MI(icrc_bad), MI(psn_gaps), MI(lost_psns), MD(lost_psns_per_s),
	MI(acked_unseen_psns), MI(duplicates), MI(naks), MI(rnr_naks), MI(cnps), MD(cnp_per_s),
	MD(ce_ratio), MD(pfc_paused_ratio), MI(pfc_storms), MI(capture_drops), MI(evicted_flows),
	MI(expired_flows),
};

static double metric_value(const struct ra_metrics *m, const struct metric_def *d)
{
	const char *p = (const char *)m + d->off;

	return d->is_int ? (double)*(const uint64_t *)(const void *)p :
			   *(const double *)(const void *)p;
}

static const struct metric_def *metric_find(const char *name)
{
	for (size_t i = 0; i < G_N_ELEMENTS(metrics); i++)
		if (!strcmp(metrics[i].name, name))
			return &metrics[i];
	return NULL;
}

const char *ra_metric_names(void)
{
	static char buf[512];

	if (!buf[0]) {
		size_t n = 0;

		for (size_t i = 0; i < G_N_ELEMENTS(metrics) && n < sizeof(buf); i++)
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s", i ? ", " : "",
					      metrics[i].name);
	}
	return buf;
}

/* ---- --interval ----------------------------------------------------------------- */

void ra_interval_print(FILE *f, bool json, uint64_t wall_ns, const struct ra_metrics *m)
{
	char ts[48];
	time_t t = (time_t)(wall_ns / 1000000000ull);
	struct tm tm;
	size_t n;

	gmtime_r(&t, &tm);
	n = strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(ts + n, sizeof(ts) - n, ".%03uZ", (unsigned)(wall_ns / 1000000u % 1000u));
	if (json) {
		fprintf(f, "{\"time\": \"%s\", \"interval_s\": %.3f", ts, m->secs);
		for (size_t i = 0; i < G_N_ELEMENTS(metrics); i++) {
			double v = metric_value(m, &metrics[i]);

			if (metrics[i].is_int)
				fprintf(f, ", \"%s\": %" PRIu64, metrics[i].name, (uint64_t)v);
			else
				fprintf(f, ", \"%s\": %.6g", metrics[i].name, v);
		}
		fputs(", \"pfc_paused_ratio_by_priority\": {", f);
		for (int i = 0; i < RA_PRIOS; i++) {
			if (i == 8)
				fprintf(f, ", \"pause\": %.6g", m->paused_ratio[i]);
			else
				fprintf(f, "%s\"%d\": %.6g", i ? ", " : "", i, m->paused_ratio[i]);
		}
		fputs("}}\n", f);
	} else {
		fprintf(f, "%s frames %" PRIu64 " %.3f Gb/s icrc_bad %" PRIu64 " psn_gaps %" PRIu64
			" lost %" PRIu64 " acked_unseen %" PRIu64 " dup %" PRIu64 " naks %" PRIu64
			" rnr %" PRIu64 " cnp/s %.1f ce %.4f storms %" PRIu64 " drops %" PRIu64
			" evicted %" PRIu64 " expired %" PRIu64 " paused",
			ts, m->frames, m->gbps, m->icrc_bad, m->psn_gaps, m->lost_psns,
			m->acked_unseen_psns, m->duplicates, m->naks, m->rnr_naks, m->cnp_per_s,
			m->ce_ratio, m->pfc_storms, m->capture_drops, m->evicted_flows,
			m->expired_flows);
		for (int i = 0; i < 8; i++)
			fprintf(f, "%s%.3f", i ? "/" : " ", m->paused_ratio[i]);
		fputc('\n', f);
	}
	fflush(f);
}

/* ---- thresholds and --check ---------------------------------------------------- */

enum thr_op { OP_GT, OP_GE, OP_LT, OP_LE };

struct thr {
	const struct metric_def *m;
	enum thr_op op;
	double v;
	char text[96];
	bool crit;
};

struct ra_thresholds {
	struct thr *t;
	unsigned n;
};

struct ra_thresholds *ra_thr_new(void)
{
	return g_new0(struct ra_thresholds, 1);
}

void ra_thr_free(struct ra_thresholds *t)
{
	if (t)
		g_free(t->t);
	g_free(t);
}

bool ra_thr_empty(const struct ra_thresholds *t)
{
	return !t->n;
}

bool ra_thr_add(struct ra_thresholds *t, bool crit, const char *list, char *err, size_t errlen)
{
	gchar **items = g_strsplit(list, ",", -1);
	bool ok = true;

	for (gchar **it = items; *it && ok; it++) {
		char *s = g_strstrip(*it), *op, *end, name[64];
		struct thr th = { .crit = crit };
		size_t nl;

		if (!*s)
			continue;
		op = strpbrk(s, "<>");
		nl = op ? (size_t)(op - s) : 0;
		if (!op || !nl || nl >= sizeof(name)) {
			snprintf(err, errlen, "'%s': expected METRIC>VALUE (or >=, <, <=)", s);
			ok = false;
			break;
		}
		memcpy(name, s, nl);
		name[nl] = '\0';
		g_strstrip(name);
		th.m = metric_find(name);
		if (!th.m) {
			snprintf(err, errlen, "'%s': unknown metric '%s' (known: %s)", s, name,
				 ra_metric_names());
			ok = false;
			break;
		}
		if (op[0] == '>')
			th.op = op[1] == '=' ? OP_GE : OP_GT;
		else
			th.op = op[1] == '=' ? OP_LE : OP_LT;
		op += op[1] == '=' ? 2 : 1;
		th.v = g_ascii_strtod(op, &end);
		if (end == op || *g_strstrip(end) || !isfinite(th.v)) {
			snprintf(err, errlen, "'%s': '%s' is not a number", s, op);
			ok = false;
			break;
		}
		snprintf(th.text, sizeof(th.text), "%s", s);
		t->t = g_renew(struct thr, t->t, t->n + 1);
		t->t[t->n++] = th;
	}
	g_strfreev(items);
	return ok;
}

static bool thr_hit(const struct thr *th, double v)
{
	switch (th->op) {
	case OP_GT:
		return v > th->v;
	case OP_GE:
		return v >= th->v;
	case OP_LT:
		return v < th->v;
	default:
		return v <= th->v;
	}
}

/* Nagios performance data: 'label'=value;warn;crit (the first threshold of each kind). */
static void perfdata(FILE *f, const struct ra_thresholds *t, const struct ra_metrics *m)
{
	fputs(" |", f);
	for (size_t i = 0; i < G_N_ELEMENTS(metrics); i++) {
		const struct metric_def *d = &metrics[i];
		double v = metric_value(m, d), w = NAN, c = NAN;

		for (unsigned k = 0; k < t->n; k++) {
			if (t->t[k].m != d)
				continue;
			if (t->t[k].crit && isnan(c))
				c = t->t[k].v;
			if (!t->t[k].crit && isnan(w))
				w = t->t[k].v;
		}
		if (d->is_int)
			fprintf(f, " %s=%" PRIu64 "%s", d->name, (uint64_t)v,
				d->is_int && !strcmp(d->name, "frames") ? "c" : "");
		else
			fprintf(f, " %s=%.6g", d->name, v);
		fputc(';', f);
		if (!isnan(w))
			fprintf(f, "%g", w);
		fputc(';', f);
		if (!isnan(c))
			fprintf(f, "%g", c);
	}
}

enum ra_state ra_check_report(FILE *f, const struct ra_thresholds *t, const struct ra_metrics *m,
			      const char *unknown_reason)
{
	static const char *const names[] = { "OK", "WARNING", "CRITICAL", "UNKNOWN" };
	enum ra_state st = RA_OK;
	GString *why = g_string_new(NULL);

	if (unknown_reason) {
		fprintf(f, "ROCE UNKNOWN - %s\n", unknown_reason);
		g_string_free(why, TRUE);
		fflush(f);
		return RA_UNKNOWN;
	}
	for (int pass = 1; pass >= 0; pass--) {       /* critical ones first */
		for (unsigned k = 0; k < t->n; k++) {
			const struct thr *th = &t->t[k];
			double v = metric_value(m, th->m);

			if (th->crit != (pass == 1) || !thr_hit(th, v))
				continue;
			if (st == RA_OK)
				st = pass ? RA_CRITICAL : RA_WARNING;
			g_string_append_printf(why, "%s%s (%s=%g)", why->len ? ", " : "",
					       th->text, th->m->name, v);
		}
	}
	if (m->capture_drops) {
		/* frames the analysis never saw: no verdict can be trusted */
		fprintf(f, "ROCE UNKNOWN - the capture dropped %" PRIu64 " frames%s%s",
			m->capture_drops, why->len ? "; seen: " : "", why->str);
		st = RA_UNKNOWN;
	} else if (st == RA_OK) {
		fprintf(f, "ROCE OK - %" PRIu64 " frames, %.3f Gb/s, no threshold crossed",
			m->frames, m->gbps);
	} else {
		fprintf(f, "ROCE %s - %s", names[st], why->str);
	}
	perfdata(f, t, m);
	fputc('\n', f);
	fflush(f);
	g_string_free(why, TRUE);
	return st;
}
