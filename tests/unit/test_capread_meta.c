// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_capread_meta.c - the pcapng metadata strings of the capture reader
 * (roce_cap_meta_get()): section comments, hardware, OS, application,
 * interface names, descriptions and comments, per section, in file order;
 * a NUL ends a string, long ones are cut, at most ROCE_CAP_MAX_META are kept
 * (the rest counted); a section's option list that overruns its block ends the
 * walk without failing the file; big-endian sections too.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "capread.h"
#include "check.h"

struct bb {
	uint8_t d[1 << 17];
	size_t n;
	bool be;
};

static void p16(struct bb *b, uint16_t v)
{
	if (b->be) {
		b->d[b->n++] = (uint8_t)(v >> 8);
		b->d[b->n++] = (uint8_t)v;
	} else {
		b->d[b->n++] = (uint8_t)v;
		b->d[b->n++] = (uint8_t)(v >> 8);
	}
}

static void p32(struct bb *b, uint32_t v)
{
	if (b->be) {
		p16(b, (uint16_t)(v >> 16));
		p16(b, (uint16_t)v);
	} else {
		p16(b, (uint16_t)v);
		p16(b, (uint16_t)(v >> 16));
	}
}

static void opt(struct bb *b, uint16_t code, const void *s, size_t len)
{
	p16(b, code);
	p16(b, (uint16_t)len);
	memcpy(b->d + b->n, s, len);
	b->n += len;
	while (b->n & 3)
		b->d[b->n++] = 0;
}

static void opt_s(struct bb *b, uint16_t code, const char *s)
{
	opt(b, code, s, strlen(s));
}

/* Start a block; returns its offset for end_block(). */
static size_t begin_block(struct bb *b, uint32_t type)
{
	size_t at = b->n;

	p32(b, type);
	p32(b, 0);
	return at;
}

static void end_block(struct bb *b, size_t at)
{
	size_t save;
	uint32_t len = (uint32_t)(b->n + 4 - at);

	p32(b, len);
	save = b->n;
	b->n = at + 4;
	p32(b, len);
	b->n = save;
}

static size_t shb_begin(struct bb *b)
{
	size_t at = begin_block(b, 0x0A0D0D0A);

	p32(b, 0x1A2B3C4D);
	p16(b, 1);
	p16(b, 0);
	p32(b, 0xffffffff);
	p32(b, 0xffffffff);
	return at;
}

static size_t idb_begin(struct bb *b)
{
	size_t at = begin_block(b, 1);

	p16(b, 1);      /* Ethernet */
	p16(b, 0);
	p32(b, 65535);
	return at;
}

static void epb(struct bb *b)
{
	size_t at = begin_block(b, 6);
	static const uint8_t frame[60] = { 0x02, 0, 0, 0, 0, 1, 0x02, 0, 0, 0, 0, 2, 0x08, 0x00 };

	p32(b, 0);
	p32(b, 0);
	p32(b, 1);
	p32(b, sizeof(frame));
	p32(b, sizeof(frame));
	memcpy(b->d + b->n, frame, sizeof(frame));
	b->n += sizeof(frame);
	end_block(b, at);
}

static void end_opts(struct bb *b)
{
	p32(b, 0);
}

static unsigned read_all(roce_capfile_t *c)
{
	struct roce_cap_record rec;
	unsigned n = 0;

	while (roce_cap_next(c, &rec) > 0)
		n++;
	return n;
}

static void t_kinds(void)
{
	static struct bb b;
	char err[ROCE_ERRBUF_SIZE];
	struct roce_cap_meta m;
	roce_capfile_t *c;
	size_t at;
	static const char nul[] = { 'a', 'b', 0, 'c' };

	memset(&b, 0, sizeof(b));
	at = shb_begin(&b);
	opt_s(&b, 1, "<script>alert(1)</script>");
	opt_s(&b, 2, "hw");
	opt_s(&b, 3, "Linux");
	opt_s(&b, 4, "app 1.0");
	opt(&b, 1, nul, sizeof(nul));
	end_opts(&b);
	end_block(&b, at);
	at = idb_begin(&b);
	opt_s(&b, 2, "eth0");
	opt_s(&b, 3, "<img src=x onerror=alert(2)>");
	opt_s(&b, 1, "if comment");
	opt(&b, 9, "\x06", 1);  /* if_tsresol */
	end_opts(&b);
	end_block(&b, at);
	at = idb_begin(&b);
	opt_s(&b, 2, "eth1");
	end_opts(&b);
	end_block(&b, at);
	epb(&b);
	/* a second section, big-endian */
	b.be = true;
	at = shb_begin(&b);
	opt_s(&b, 1, "second section");
	end_opts(&b);
	end_block(&b, at);
	at = idb_begin(&b);
	opt_s(&b, 2, "ens1f0");
	end_opts(&b);
	end_block(&b, at);
	epb(&b);

	c = roce_cap_open_mem(b.d, b.n, "meta.pcapng", err);
	REQUIRE(c != NULL);
	CHECK_EQ_U(roce_cap_meta_count(c), 8);  /* up to the first IDB after open */
	CHECK_EQ_U(read_all(c), 2);
	REQUIRE(roce_cap_meta_count(c) == 11);
	CHECK_EQ_U(roce_cap_meta_dropped(c), 0);
	REQUIRE(roce_cap_meta_get(c, 0, &m) == 0);
	CHECK_EQ_U(m.kind, ROCE_CAP_META_COMMENT);
	CHECK_EQ_U(m.section, 1);
	CHECK_STR(m.text, "<script>alert(1)</script>");
	REQUIRE(roce_cap_meta_get(c, 1, &m) == 0);
	CHECK_EQ_U(m.kind, ROCE_CAP_META_HARDWARE);
	CHECK_STR(m.text, "hw");
	REQUIRE(roce_cap_meta_get(c, 2, &m) == 0);
	CHECK_STR(roce_cap_meta_kind_name(m.kind), "os");
	REQUIRE(roce_cap_meta_get(c, 3, &m) == 0);
	CHECK_STR(roce_cap_meta_kind_name(m.kind), "application");
	REQUIRE(roce_cap_meta_get(c, 4, &m) == 0);
	CHECK_STR(m.text, "ab");                /* up to the NUL */
	REQUIRE(roce_cap_meta_get(c, 5, &m) == 0);
	CHECK_EQ_U(m.kind, ROCE_CAP_META_IF_NAME);
	CHECK_EQ_U(m.ifindex, 0);
	CHECK_STR(m.text, "eth0");
	REQUIRE(roce_cap_meta_get(c, 6, &m) == 0);
	CHECK_EQ_U(m.kind, ROCE_CAP_META_IF_DESCRIPTION);
	CHECK_STR(m.text, "<img src=x onerror=alert(2)>");
	REQUIRE(roce_cap_meta_get(c, 7, &m) == 0);
	CHECK_EQ_U(m.kind, ROCE_CAP_META_IF_COMMENT);
	REQUIRE(roce_cap_meta_get(c, 8, &m) == 0);
	CHECK_EQ_U(m.ifindex, 1);
	CHECK_STR(m.text, "eth1");
	REQUIRE(roce_cap_meta_get(c, 9, &m) == 0);
	CHECK_EQ_U(m.section, 2);
	CHECK_STR(m.text, "second section");
	REQUIRE(roce_cap_meta_get(c, 10, &m) == 0);
	CHECK_EQ_U(m.section, 2);
	CHECK_EQ_U(m.ifindex, 0);
	CHECK_STR(m.text, "ens1f0");
	CHECK(roce_cap_meta_get(c, 11, &m) == -1);
	roce_cap_close(c);
}

static void t_bounds(void)
{
	static struct bb b;
	static char big[6000];
	char err[ROCE_ERRBUF_SIZE];
	struct roce_cap_meta m;
	roce_capfile_t *c;
	size_t at;

	memset(&b, 0, sizeof(b));
	memset(big, 'x', sizeof(big));
	at = shb_begin(&b);
	opt(&b, 1, big, 5000);
	for (int i = 0; i < 70; i++)
		opt_s(&b, 1, "c");
	end_opts(&b);
	end_block(&b, at);
	at = idb_begin(&b);
	end_opts(&b);
	end_block(&b, at);
	epb(&b);
	c = roce_cap_open_mem(b.d, b.n, "bounds.pcapng", err);
	REQUIRE(c != NULL);
	CHECK_EQ_U(read_all(c), 1);
	CHECK_EQ_U(roce_cap_meta_count(c), ROCE_CAP_MAX_META);
	CHECK_EQ_U(roce_cap_meta_dropped(c), 71 - ROCE_CAP_MAX_META);
	REQUIRE(roce_cap_meta_get(c, 0, &m) == 0);
	CHECK_EQ_U(strlen(m.text), ROCE_CAP_META_MAX_LEN);
	roce_cap_close(c);

	/* an option longer than its section header block: the walk stops, reading goes on */
	memset(&b, 0, sizeof(b));
	at = shb_begin(&b);
	opt_s(&b, 1, "kept");
	p16(&b, 1);
	p16(&b, 200);
	end_block(&b, at);
	at = idb_begin(&b);
	end_opts(&b);
	end_block(&b, at);
	epb(&b);
	c = roce_cap_open_mem(b.d, b.n, "overrun.pcapng", err);
	REQUIRE(c != NULL);
	CHECK_EQ_U(read_all(c), 1);
	CHECK_STR(roce_cap_error(c), "");
	CHECK_EQ_U(roce_cap_meta_count(c), 1);
	roce_cap_close(c);
	CHECK_EQ_U(roce_cap_meta_count(NULL), 0);
}

int main(void)
{
	RUN(t_kinds);
	RUN(t_bounds);
	return check_report();
}
