/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_scenario.c - libFuzzer target for roce-gen's scenario-file parser
 * (rg_scenario_load_data: line scan, GKeyFile, every setter, scripted
 * frames) and, when a file loads, a bounded run of what it describes (at
 * most 64 frames, written nowhere).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gen.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int null_write(struct rg_output *o, uint64_t ts, const uint8_t *f, uint32_t len)
{
	(void)o;
	(void)ts;
	return f && len ? 0 : -1;
}

static int null_close(struct rg_output *o)
{
	(void)o;
	return 0;
}

static const struct rg_output_ops null_ops = { .write = null_write, .close = null_close };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rg_config c;
	struct rg_truth t;
	struct rg_output o = { .ops = &null_ops, .name = "null" };
	char err[512];

	rg_config_defaults(&c);
	if (rg_scenario_load_data(&c, "fuzz.ini", (const char *)data, size, err, sizeof(err)) == 0) {
		c.count_frames = 64;
		c.count_messages_set = false;
		if ((uint64_t)c.qps * c.hosts <= 4096)
			rg_generate(&c, &o, &t, err, sizeof(err));
	}
	rg_config_free(&c);
	return 0;
}
