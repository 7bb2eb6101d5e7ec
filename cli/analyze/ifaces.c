// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ifaces.c - the run's capture interfaces (ifaces.h).  Looked up only when a
 * record's interface differs from the previous record's (main.c): a hash
 * lookup of (file, section, id); the first time, its if_name from the file's
 * metadata and the run's number of (id, if_name).
 */
#include <string.h>

#include <glib.h>

#include "ifaces.h"

struct iface_key {
	unsigned file;
	uint32_t section, ifindex;
};

static guint key_hash(gconstpointer p)
{
	const struct iface_key *k = p;
	uint64_t h = ((uint64_t)k->file * 0x9e3779b97f4a7c15ull) ^
		((uint64_t)k->section << 21) ^ k->ifindex;

	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	return (guint)(h ^ h >> 32);
}

static gboolean key_equal(gconstpointer a, gconstpointer b)
{
	const struct iface_key *x = a, *y = b;

	return x->file == y->file && x->section == y->section && x->ifindex == y->ifindex;
}

static const char *if_name(const roce_capfile_t *c, uint32_t section, uint32_t ifindex)
{
	struct roce_cap_meta m;

	for (unsigned i = 0; c && i < roce_cap_meta_count(c); i++)
		if (roce_cap_meta_get(c, i, &m) == 0 && m.kind == ROCE_CAP_META_IF_NAME &&
		    m.section == section && m.ifindex == ifindex)
			return m.text;
	return NULL;
}

/* the run's interfaces (struct ra_iface, keys of iface_ids) */
static guint id_hash(gconstpointer p)
{
	const struct ra_iface *f = p;

	return (f->name ? g_str_hash(f->name) * 31u : 0x5bd1e995u) ^ f->ifindex * 0x9e3779b1u;
}

static gboolean id_equal(gconstpointer a, gconstpointer b)
{
	const struct ra_iface *x = a, *y = b;

	return x->ifindex == y->ifindex && (x->name && y->name ? strcmp(x->name, y->name) == 0 :
					   x->name == y->name);
}

static uint32_t run_id(struct ra_ctx *ctx, uint32_t ifindex, const char *name)
{
	struct ra_iface k = { .ifindex = ifindex, .name = (char *)name }, *nk;
	gpointer v;

	if (!ctx->iface_ids)
		ctx->iface_ids = g_hash_table_new_full(id_hash, id_equal, g_free, NULL);
	v = g_hash_table_lookup(ctx->iface_ids, &k);
	if (v)
		return (uint32_t)(GPOINTER_TO_SIZE(v) - 1);
	if (ctx->n_ifaces == ctx->cap_ifaces) {
		ctx->cap_ifaces = ctx->cap_ifaces ? 2 * ctx->cap_ifaces : 4;
		ctx->ifaces = g_renew(struct ra_iface, ctx->ifaces, ctx->cap_ifaces);
	}
	ctx->ifaces[ctx->n_ifaces].ifindex = ifindex;
	ctx->ifaces[ctx->n_ifaces].name = g_strdup(name);
	nk = g_new(struct ra_iface, 1);
	*nk = ctx->ifaces[ctx->n_ifaces];       /* (the name is the table's entry's) */
	g_hash_table_insert(ctx->iface_ids, nk, GSIZE_TO_POINTER((gsize)ctx->n_ifaces + 1));
	return ctx->n_ifaces++;
}

uint32_t ra_iface_id(struct ra_ctx *ctx, const roce_capfile_t *c, unsigned file,
		     uint32_t section, uint32_t ifindex)
{
	struct iface_key k = { .file = file, .section = section, .ifindex = ifindex };
	uint32_t id;
	gpointer v;

	if (!ctx->iface_idx)
		ctx->iface_idx = g_hash_table_new_full(key_hash, key_equal, g_free, NULL);
	v = g_hash_table_lookup(ctx->iface_idx, &k);
	if (v)
		return (uint32_t)(GPOINTER_TO_SIZE(v) - 1);
	id = run_id(ctx, ifindex, if_name(c, section, ifindex));
	g_hash_table_insert(ctx->iface_idx, g_memdup2(&k, sizeof(k)),
			    GSIZE_TO_POINTER((gsize)id + 1));
	return id;
}

void ra_iface_free(struct ra_ctx *ctx)
{
	if (ctx->iface_idx)
		g_hash_table_destroy(ctx->iface_idx);
	if (ctx->iface_ids)
		g_hash_table_destroy(ctx->iface_ids);
	for (uint32_t i = 0; i < ctx->n_ifaces; i++)
		g_free(ctx->ifaces[i].name);
	g_free(ctx->ifaces);
	ctx->ifaces = NULL;
	ctx->iface_idx = ctx->iface_ids = NULL;
	ctx->n_ifaces = ctx->cap_ifaces = 0;
}
