/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * script.h - scripted scenarios (script.c) as the scenario-file reader
 * (scenario.c) sees them: the frame groups of a loaded GKeyFile.
 */
#ifndef RG_SCRIPT_H
#define RG_SCRIPT_H

#include <glib.h>

#include "gen.h"

/* Take the [frame NAME] groups of kf (in file order, each with its
 * templates) into c->script, checking every key; lines maps "group\nkey"
 * to its line.  0, or -1 with "FILE:LINE: [group] reason". */
int rg_script_load(struct rg_config *c, GKeyFile *kf, GHashTable *lines, const char *file,
		   char *err, size_t errlen);

#endif /* RG_SCRIPT_H */
