/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * scenario.c - roce-gen scenario files: INI read by GLib's GKeyFile.
 *
 *   # comment
 *   [traffic]            groups: traffic, addresses, faults, output
 *   qps = 4              keys: the long option names (qps, verbs, loss, pfc...)
 *   pfc = prio=3,length=250ms ; prio=4,quanta=1000    (";" separates repeats)
 *
 * A line scan before GKeyFile gives every error a line number: a line that
 * is not a comment, group or KEY = VALUE, a key before any group, an
 * unknown group, a key given twice in a group; then each value goes
 * through rg_config_set(), whose complaint is reported with the key's line:
 * "FILE:LINE: [group] key: reason".
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>

#include "gen.h"
#include "script.h"

#define RG_SCENARIO_MAX (1u << 20)

static const char *const groups[] = { "traffic", "addresses", "faults", "output", NULL };

static bool known_group(const char *g)
{
	if (rg_script_group(g))
		return true;
	for (int i = 0; groups[i]; i++)
		if (!strcmp(g, groups[i]))
			return true;
	return false;
}

/* Keys whose values may be repeated with ";" in a file. */
static bool repeatable(const char *key)
{
	return !strcmp(key, "pfc") || !strcmp(key, "pause");
}

/* Line scan: syntax and line numbers of "group\nkey". */
static int scan(const char *name, const char *data, GHashTable *lines, char *err, size_t errlen)
{
	gchar **v = g_strsplit(data, "\n", -1);
	char *group = NULL;
	int rc = 0;

	for (unsigned i = 0; v[i] && !rc; i++) {
		char *l = g_strstrip(v[i]), *eq, *key;
		unsigned ln = i + 1;

		if (!*l || *l == '#')
			continue;
		if (*l == '[') {
			size_t n = strlen(l);

			if (n < 3 || l[n - 1] != ']') {
				rc = -1;
				snprintf(err, errlen, "%s:%u: expected [group]", name, ln);
				break;
			}
			l[n - 1] = 0;
			g_free(group);
			group = g_strdup(l + 1);
			if (!known_group(group)) {
				rc = -1;
				snprintf(err, errlen, "%s:%u: unknown group [%s] (known: traffic, "
					 "addresses, faults, output, frame NAME, template NAME)",
					 name, ln, group);
			} else if (g_hash_table_contains(lines, group)) {
				rc = -1;
				snprintf(err, errlen, "%s:%u: group [%s] given twice", name, ln,
					 group);
			} else {
				g_hash_table_insert(lines, g_strdup(group), GUINT_TO_POINTER(ln));
			}
			continue;
		}
		eq = strchr(l, '=');
		if (!eq) {
			rc = -1;
			snprintf(err, errlen, "%s:%u: expected KEY = VALUE, [group] or # comment",
				 name, ln);
			break;
		}
		if (!group) {
			rc = -1;
			snprintf(err, errlen, "%s:%u: KEY = VALUE before the first [group]", name,
				 ln);
			break;
		}
		*eq = 0;
		key = g_strdup_printf("%s\n%s", group, g_strstrip(l));
		if (!*g_strstrip(l)) {
			rc = -1;
			snprintf(err, errlen, "%s:%u: empty key", name, ln);
		} else if (g_hash_table_contains(lines, key)) {
			rc = -1;
			snprintf(err, errlen, "%s:%u: '%s' given twice in [%s] (separate repeated "
				 "pfc/pause trains with ';', join lists with ',')", name, ln,
				 g_strstrip(l), group);
		} else {
			g_hash_table_insert(lines, key, GUINT_TO_POINTER(ln));
			key = NULL;
		}
		g_free(key);
	}
	g_free(group);
	g_strfreev(v);
	return rc;
}

int rg_scenario_load_data(struct rg_config *c, const char *name, const char *data, size_t len,
			  char *err, size_t errlen)
{
	GHashTable *lines = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	GKeyFile *kf = g_key_file_new();
	GError *ge = NULL;
	gchar **gl = NULL;
	char *text;
	int rc = 0;

	if (len > RG_SCENARIO_MAX || memchr(data, 0, len)) {
		snprintf(err, errlen, "%s: not a scenario file (binary data or over 1 MiB)", name);
		g_hash_table_destroy(lines);
		g_key_file_free(kf);
		return -1;
	}
	text = g_strndup(data, len);
	rc = scan(name, text, lines, err, errlen);
	if (!rc && !g_key_file_load_from_data(kf, text, len, G_KEY_FILE_NONE, &ge)) {
		snprintf(err, errlen, "%s: %s", name, ge->message);
		g_error_free(ge);
		rc = -1;
	}
	if (!rc)
		gl = g_key_file_get_groups(kf, NULL);
	for (gchar **g = gl; !rc && g && *g; g++) {
		gchar **keys;

		if (rg_script_group(*g))
			continue;
		keys = g_key_file_get_keys(kf, *g, NULL, NULL);

		for (gchar **k = keys; !rc && k && *k; k++) {
			char *id = g_strdup_printf("%s\n%s", *g, *k);
			unsigned ln = GPOINTER_TO_UINT(g_hash_table_lookup(lines, id));
			gchar *val = g_key_file_get_value(kf, *g, *k, NULL);
			gchar **parts;
			char e[512];

			g_free(id);
			if (!val)
				continue;
			if (repeatable(*k))
				parts = g_strsplit(val, ";", -1);
			else
				parts = g_strsplit(val, "\n", 1);
			for (gchar **p = parts; !rc && *p; p++) {
				char *one = g_strstrip(*p);

				if (repeatable(*k) && !*one)
					continue;
				if (rg_config_set(c, *k, one, e, sizeof(e))) {
					snprintf(err, errlen, "%s:%u: [%s] %s", name, ln, *g, e);
					rc = -1;
				}
			}
			g_strfreev(parts);
			g_free(val);
		}
		g_strfreev(keys);
	}
	if (!rc)
		rc = rg_script_load(c, kf, lines, name, err, errlen);
	g_strfreev(gl);
	g_free(text);
	g_key_file_free(kf);
	g_hash_table_destroy(lines);
	return rc;
}

int rg_scenario_load(struct rg_config *c, const char *path, char *err, size_t errlen)
{
	/* at most one byte more than a scenario may have: /dev/zero or a huge file is refused
	 * after 1 MiB (g_file_get_contents() read it all, without end for /dev/zero) */
	char *data = g_malloc(RG_SCENARIO_MAX + 1);
	size_t len = 0, n;
	FILE *f = fopen(path, "rb");
	int rc;

	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		g_free(data);
		return -1;
	}
	while (len <= RG_SCENARIO_MAX && (n = fread(data + len, 1, RG_SCENARIO_MAX + 1 - len, f)))
		len += n;
	if (ferror(f)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno ? errno : EIO));
		fclose(f);
		g_free(data);
		return -1;
	}
	fclose(f);
	rc = rg_scenario_load_data(c, path, data, len, err, errlen);
	g_free(data);
	return rc;
}
