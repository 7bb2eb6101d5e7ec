/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_capread_paths.c - capture reader, the paths that cost a thread, many
 * read() calls or megabytes per input (fuzz_capread.c has the cheap ones):
 * each compared with the memory path read one record at a time (the
 * reference, capread_fuzz.h), exactly:
 *  - the mapped file with roce_cap_set_ahead()'s helper thread (leaps forced),
 *    every helper's byte the record's own;
 *  - the file read with read() into a small reused buffer
 *    (roce_cap_set_read_buffer(), pcap and pcapng), every verdict byte the
 *    record's own;
 *  - one small input in 64 (its last byte's low 6 bits 0) amplified to 2 MiB
 *    and read through the memory path and the helper thread.
 * Compressed inputs (gzip, zstd, lz4) are read through the stream path only:
 * fuzz_capread.c; here they are skipped.  Same seed corpus as fuzz_capread.
 */
#include "capread_fuzz.h"
#include "capread_rbuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * The bytes as a mapped file with roce_cap_set_ahead()'s helper thread walking
 * (and, with ROCE_CAP_AHEAD_RUNS, leaping) ahead of the reader: exactly what the
 * memory path gave (mem), and every helper's byte the record's own (take()).
 */
static void helper_path(const uint8_t *data, size_t size, const struct summary *mem,
			unsigned batch)
{
	char eb[ROCE_ERRBUF_SIZE];
	struct summary ahd;
	roce_capfile_t *c;
	int fd = memfd_of(data, size);

	if (fd < 0)
		return;
	c = roce_cap_open_fd(fd, "fuzz", 0, eb);
	if (c)
		(void)roce_cap_set_ahead(c, ahead_byte, NULL, 0);
	drain(c, eb, &ahd, batch);
	same_as_mem(mem, &ahd, "helper");
}

/*
 * The bytes as a file read with read() into one reused buffer
 * (roce_cap_set_read_buffer()) of a few dozen to a few hundred bytes, so
 * that records and pcapng blocks straddle its end and outgrow it: exactly
 * what the memory path gave (mem), and every verdict byte the record's own.
 */
static void read_path(const uint8_t *data, size_t size, const struct summary *mem,
		      unsigned batch)
{
	char eb[ROCE_ERRBUF_SIZE], buf[16];
	struct summary rd;
	roce_capfile_t *c;
	int fd = memfd_of(data, size);

	if (fd < 0)
		return;
	snprintf(buf, sizeof(buf), "%u", (unsigned)(24 + (size * 7 + batch) % 500));
	setenv("ROCE_CAP_READ_BUF", buf, 1);
	c = roce_cap_open_fd(fd, "fuzz", 0, eb);
	if (c)
		(void)roce_cap_set_read_buffer(c, ahead_byte, NULL, 0, 0);
	drain(c, eb, &rd, batch);
	same_as_mem(mem, &rd, "read()");
}

/*
 * The helper leaps about a thousand mean records past the reader, 1 MiB before
 * it knows their size: one small input in 64 is also read with its bytes
 * after the first 24 (a pcap file header) repeated to at least 2 MiB, tens of
 * thousands of records of whatever the input holds.
 */
static void amplified(const uint8_t *data, size_t size)
{
	char eb[ROCE_ERRBUF_SIZE];
	struct summary mem;
	size_t body = size - 24, k = ((2u << 20) + body - 1) / body, n = 24 + body * k;
	uint8_t *big = malloc(n);

	if (!big)
		return;
	memcpy(big, data, 24);
	for (size_t i = 0; i < k; i++)
		memcpy(big + 24 + i * body, data + 24, body);
	drain(roce_cap_open_mem(big, n, "fuzz", eb), eb, &mem, 0);
	helper_path(big, n, &mem, 16);
	free(big);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char eb[ROCE_ERRBUF_SIZE];
	struct summary mem;
	/* gzip, zstd, lz4 (capread_z.c): the stream path only (fuzz_capread.c) */
	bool gz = compressed(data, size);
	static bool env_set;

	if (gz)
		return 0;
	if (!env_set) {
		/* the helper's bytes always taken; the reader claims chunks ahead of the
		 * helper every 2nd chunk it enters, so that the helper leaps */
		setenv("ROCE_CAP_AHEAD_PROBE", "0", 1);
		setenv("ROCE_CAP_AHEAD_RUNS", "2", 1);
		env_set = true;
	}

	drain(roce_cap_open_mem(data, size, "fuzz", eb), eb, &mem, 0);

	/* The mapped file with the helper thread, as it is and amplified. */
	helper_path(data, size, &mem, 1 + size % 16);
	read_path(data, size, &mem, size % 17);
	if (size > 24 && size < 4096 && (data[size - 1] & 63) == 0)
		amplified(data, size);
	return 0;
}
