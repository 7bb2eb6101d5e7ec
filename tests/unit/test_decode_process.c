// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_decode_process.c - roce_analyzer_decode_process() is roce_decode()
 * then roce_analyzer_process() with no result: every capture in captures/
 * and ../shared/captures/ (each record as captured, with a damaged copy and a
 * cut copy after it) goes through two analyzers, one each way, with the
 * decoder options roce-analyze uses (and NULL), with and without an observer
 * and an idle timeout (the entry's other paths); the statuses of every frame,
 * the summaries, every stream's stats, every PFC entry and every anomaly must
 * be the same.  Skips (77) when no capture is found.
 */
#define _DEFAULT_SOURCE         /* DT_DIR */

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include <roce/analyzer.h>
#include <roce/pkt.h>

#include "capread.h"
#include "check.h"

#define MAX_FILES 128
#define MAX_AN 4096

static char *files[MAX_FILES];
static unsigned nfiles;

static void find_captures(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)) != NULL && nfiles < MAX_FILES) {
		size_t n = strlen(dir) + strlen(e->d_name) + 2;
		char *p;

		if (e->d_name[0] == '.')
			continue;
		p = malloc(n);
		if (!p)
			break;
		snprintf(p, n, "%s/%s", dir, e->d_name);
		if (e->d_type == DT_DIR) {
			find_captures(p);
			free(p);
		} else if (strstr(e->d_name, ".pcap")) {
			files[nfiles++] = p;
		} else {
			free(p);
		}
	}
	closedir(d);
}

struct side {
	roce_analyzer_t *a;
	struct roce_anomaly an[MAX_AN];
	unsigned nan;
	uint64_t obs_frames, obs_events;
	struct roce_flow_stats *flows;
	unsigned nflows, capflows;
	struct roce_pfc_stats pfc[64];
	unsigned npfc;
};

static void on_anomaly(void *user, const struct roce_anomaly *an)
{
	struct side *s = user;

	if (s->nan < MAX_AN)
		s->an[s->nan++] = *an;
}

static void on_frame(void *user, const struct roce_pkt *pkt, uint64_t ts_ns, uint64_t frame_no,
	const struct roce_frame_result *res)
{
	struct side *s = user;

	(void)pkt;
	s->obs_frames += frame_no ^ ts_ns;
	s->obs_events += res->events ^ res->findings ^ res->stream_id;
}

static int collect_flow(void *user, const struct roce_flow_stats *f)
{
	struct side *s = user;

	if (s->nflows == s->capflows) {
		unsigned n = s->capflows ? s->capflows * 2 : 64;
		struct roce_flow_stats *p = realloc(s->flows, n * sizeof(*p));

		if (!p)
			return 1;
		s->flows = p;
		s->capflows = n;
	}
	s->flows[s->nflows++] = *f;
	return 0;
}

static int collect_pfc(void *user, const struct roce_pfc_stats *p)
{
	struct side *s = user;

	if (s->npfc < 64)
		s->pfc[s->npfc++] = *p;
	return 0;
}

static bool side_init(struct side *s, bool observer, uint64_t idle_ns)
{
	struct roce_analyzer_config cfg;
	char err[ROCE_ERRBUF_SIZE];

	memset(s, 0, sizeof(*s));
	roce_analyzer_config_init(&cfg);
	cfg.on_anomaly = on_anomaly;
	cfg.user = s;
	cfg.idle_timeout_ns = idle_ns;
	s->a = roce_analyzer_create(&cfg, err);
	if (!s->a)
		return false;
	if (observer) {
		struct roce_analyzer_observer o = {
			.size = sizeof(o), .on_frame = on_frame, .user = s,
			.flags = ROCE_OBS_EVENT_FIELDS,
		};

		roce_analyzer_add_observer(s->a, &o);
	}
	return true;
}

static void side_end(struct side *s)
{
	roce_analyzer_finish(s->a);
	roce_analyzer_foreach_flow(s->a, collect_flow, s);
	roce_analyzer_foreach_pfc(s->a, collect_pfc, s);
}

static void side_free(struct side *s)
{
	roce_analyzer_destroy(s->a);
	free(s->flows);
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 16);
}

static struct side sa, sb;

/* One file both ways; returns the frames fed to each side. */
static uint64_t run_both(const char *path, const struct roce_decode_opts *opts, bool observer,
	uint64_t idle_ns)
{
	char err[ROCE_ERRBUF_SIZE];
	roce_capfile_t *cf = roce_cap_open(path, err);
	struct roce_cap_record rec;
	static uint8_t copy[65536];
	uint64_t no = 0;
	int rc;

	if (!cf)
		return 0;
	if (!side_init(&sa, observer, idle_ns) || !side_init(&sb, observer, idle_ns)) {
		roce_cap_close(cf);
		return 0;
	}
	while ((rc = roce_cap_next(cf, &rec)) == 1) {
		for (int v = 0; v < 3; v++) {
			const uint8_t *d = rec.data;
			size_t cap = rec.caplen, wire = rec.wirelen;
			struct roce_pkt pkt;
			int st, st2;

			if (v > 0) {
				if (cap > sizeof(copy) || !cap)
					break;
				memcpy(copy, rec.data, cap);
				d = copy;
				if (v == 1) {
					/* a byte of the headers (or anywhere) damaged */
					size_t span = cap < 96 || (rnd() & 1) ? cap : 96;
					size_t at = rnd() % span;

					copy[at] ^= (uint8_t)(1u << (rnd() % 8));
				} else {
					cap = rnd() % cap;      /* cut */
				}
			}
			no++;
			st = roce_decode(rec.linktype, d, cap, wire, opts, &pkt);
			roce_analyzer_process(sa.a, &pkt, st, rec.ts_ns + no, no, NULL);
			st2 = roce_analyzer_decode_process(sb.a, rec.linktype, d, cap, wire, opts,
							   rec.ts_ns + no, no);
			CHECK_EQ_I(st, st2);
		}
	}
	CHECK_EQ_I(rc, 0);
	roce_cap_close(cf);
	side_end(&sa);
	side_end(&sb);
	{
		struct roce_summary x, y;

		roce_analyzer_summary(sa.a, &x);
		roce_analyzer_summary(sb.a, &y);
		CHECK(memcmp(&x, &y, sizeof(x)) == 0);
		CHECK_EQ_U(x.frames, no);
	}
	CHECK_EQ_U(sa.nflows, sb.nflows);
	for (unsigned i = 0; i < sa.nflows && i < sb.nflows; i++)
		CHECK(memcmp(&sa.flows[i], &sb.flows[i], sizeof(sa.flows[i])) == 0);
	CHECK_EQ_U(sa.npfc, sb.npfc);
	for (unsigned i = 0; i < sa.npfc && i < sb.npfc; i++)
		CHECK(memcmp(&sa.pfc[i], &sb.pfc[i], sizeof(sa.pfc[i])) == 0);
	CHECK_EQ_U(sa.nan, sb.nan);
	for (unsigned i = 0; i < sa.nan && i < sb.nan; i++) {
		const struct roce_anomaly *x = &sa.an[i], *y = &sb.an[i];

		CHECK_EQ_I(x->type, y->type);
		CHECK_EQ_U(x->frame, y->frame);
		CHECK_EQ_U(x->ts_ns, y->ts_ns);
		CHECK_EQ_U(x->psn, y->psn);
		CHECK_EQ_U(x->expected_psn, y->expected_psn);
		CHECK_EQ_U(x->count, y->count);
		CHECK_STR(x->detail, y->detail);
	}
	CHECK_EQ_U(sa.obs_frames, sb.obs_frames);
	CHECK_EQ_U(sa.obs_events, sb.obs_events);
	side_free(&sa);
	side_free(&sb);
	return no;
}

static void test_same_as_two_calls(void)
{
	struct roce_decode_opts o[4];
	uint64_t total = 0;

	for (int i = 0; i < 4; i++) {
		roce_decode_opts_init(&o[i]);
		o[i].analysis_only = i > 0;
	}
	o[2].verify_icrc = false;               /* --no-icrc */
	o[3].verify_icrc = false;               /* --threads 2, the helper's OK */
	o[3].icrc_known_ok = true;
	for (unsigned f = 0; f < nfiles; f++) {
		total += run_both(files[f], NULL, false, 0);
		for (int i = 0; i < 4; i++)
			total += run_both(files[f], &o[i], false, 0);
		total += run_both(files[f], &o[2], true, 0);
		total += run_both(files[f], &o[1], false, 1000000);
	}
	CHECK(total > 0);
	printf("%u captures, %" PRIu64 " frames both ways\n", nfiles, total);
}

int main(void)
{
	find_captures(ROCE_SOURCE_DIR "/captures");
	find_captures(ROCE_SHARED_DIR "/captures");
	if (!nfiles)
		return 77;
	RUN(test_same_as_two_calls);
	for (unsigned f = 0; f < nfiles; f++)
		free(files[f]);
	return check_report();
}
