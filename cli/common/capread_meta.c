// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * capread_meta.c - the pcapng metadata strings the reader keeps (capread.h):
 * section and interface comments, names, descriptions.  Bounded: at most
 * ROCE_CAP_MAX_META strings of ROCE_CAP_META_MAX_LEN bytes per file.
 */
#include "capread_meta.h"

#include <stdlib.h>
#include <string.h>

void capr_meta_add(struct roce_capfile *c, int kind, uint32_t ifindex, const uint8_t *s,
		   size_t len)
{
	struct cap_meta *m;
	const uint8_t *nul = memchr(s, 0, len);

	if (nul)
		len = (size_t)(nul - s);
	if (len > ROCE_CAP_META_MAX_LEN)
		len = ROCE_CAP_META_MAX_LEN;
	if (c->nmeta >= ROCE_CAP_MAX_META) {
		c->meta_dropped++;
		return;
	}
	if (!c->meta) {
		c->meta = calloc(ROCE_CAP_MAX_META, sizeof(*c->meta));
		if (!c->meta) {
			c->meta_dropped++;
			return;
		}
	}
	m = &c->meta[c->nmeta];
	m->text = malloc(len + 1);
	if (!m->text) {
		c->meta_dropped++;
		return;
	}
	memcpy(m->text, s, len);
	m->text[len] = '\0';
	m->kind = (uint8_t)kind;
	m->section = c->nsections;
	m->ifindex = ifindex;
	c->nmeta++;
}

void capr_meta_free(struct roce_capfile *c)
{
	for (uint32_t i = 0; i < c->nmeta; i++)
		free(c->meta[i].text);
	free(c->meta);
	c->meta = NULL;
	c->nmeta = 0;
}

unsigned roce_cap_meta_count(const roce_capfile_t *c)
{
	return c ? c->nmeta : 0;
}

int roce_cap_meta_get(const roce_capfile_t *c, unsigned i, struct roce_cap_meta *out)
{
	if (!c || i >= c->nmeta)
		return -1;
	out->kind = (enum roce_cap_meta_kind)c->meta[i].kind;
	out->section = c->meta[i].section;
	out->ifindex = c->meta[i].ifindex;
	out->text = c->meta[i].text;
	return 0;
}

uint64_t roce_cap_meta_dropped(const roce_capfile_t *c)
{
	return c ? c->meta_dropped : 0;
}

const char *roce_cap_meta_kind_name(enum roce_cap_meta_kind k)
{
	switch (k) {
	case ROCE_CAP_META_COMMENT: return "comment";
	case ROCE_CAP_META_HARDWARE: return "hardware";
	case ROCE_CAP_META_OS: return "os";
	case ROCE_CAP_META_USERAPPL: return "application";
	case ROCE_CAP_META_IF_NAME: return "if_name";
	case ROCE_CAP_META_IF_DESCRIPTION: return "if_description";
	case ROCE_CAP_META_IF_COMMENT: return "if_comment";
	}
	return "unknown";
}
