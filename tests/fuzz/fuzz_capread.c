/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_capread.c - capture reader, its single-threaded paths: the memory path
 * read one record at a time (the reference), the memory path read in runs
 * (roce_cap_next_batch()) and the streaming path (plain, gzip, zstd, lz4:
 * compressed inputs, told by their magic, are read through the stream path
 * only), each exactly what the reference gives; errors and EOF sticky, every
 * error and warning one line naming the input (capread_fuzz.h).  No thread, no
 * file but one memfd: hundreds to thousands of inputs a second.
 *
 * The mapped file with roce_cap_set_ahead()'s helper thread, the read() path
 * with a small buffer and amplified inputs are compared with the same memory
 * path by the second target, fuzz_capread_paths.c (same seed corpus).
 */
#include "capread_fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char eb[ROCE_ERRBUF_SIZE];
	struct summary mem, str, run;
	int fd;
	/* gzip, zstd, lz4 (capread_z.c): the stream path only */
	bool gz = compressed(data, size);

	drain(roce_cap_open_mem(data, size, "fuzz", eb), eb, &mem, 0);

	/* The memory path in runs: exactly what one record at a time gives. */
	drain(roce_cap_open_mem(data, size, "fuzz", eb), eb, &run, 1 + size % 16);
	same_as_mem(&mem, &run, "runs");

	/* The same bytes through the streaming path (plain, gzip, zstd or lz4). */
	fd = memfd_of(data, size);
	if (fd < 0)
		return 0;
	if (lseek(fd, 0, SEEK_SET) != 0) {
		close(fd);
		return 0;
	}
	drain(roce_cap_open_fd(fd, "fuzz", 1, eb), eb, &str, 0);

	/* Plain input: both paths must agree exactly. */
	if (!gz)
		same_as_mem(&mem, &str, "stream");
	return 0;
}
