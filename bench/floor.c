/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * floor.c - the "floor" rows of bench/bench.sh: the least work any tool that
 * verifies every ICRC of a capture must do, i.e. read every byte of the
 * (cached) file once.  The file is mapped with MAP_POPULATE (its page-cache
 * pages mapped in one go, as roce-analyze's helper thread does window by
 * window) and its 64-bit words are summed by 1 or 2 threads, each over one
 * half.  Prints the sum so that nothing is optimised away.
 *
 * "read" instead of THREADS: one thread read()s the file into one reused
 * buffer of 256 KiB and sums its words, buffer by buffer: the floor of a tool
 * that reads with read() (roce-analyze's classic-pcap reader,
 * roce_cap_set_read_buffer()); on a PVM guest a new mapping's first access to
 * a page costs more than read()'s copy (docs/perf/analyze-threads.md).
 *
 *   floor FILE [THREADS | read]
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct part {
	const uint64_t *p;
	size_t n;
	uint64_t sum;
};

static void *sum_part(void *arg)
{
	struct part *pt = arg;
	uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
	size_t i = 0;

	for (; i + 4 <= pt->n; i += 4) {
		s0 += pt->p[i];
		s1 += pt->p[i + 1];
		s2 += pt->p[i + 2];
		s3 += pt->p[i + 3];
	}
	for (; i < pt->n; i++)
		s0 += pt->p[i];
	pt->sum = s0 + s1 + s2 + s3;
	return NULL;
}

#define READ_BUF (256u << 10)

/* One thread, read() into a reused buffer, each word summed once. */
static int floor_read(int fd, const char *name)
{
	uint64_t *buf = aligned_alloc(4096, READ_BUF), total = 0, sum = 0;
	struct part pt;
	ssize_t r;

	if (!buf) {
		perror("aligned_alloc");
		return 2;
	}
	while ((r = read(fd, buf, READ_BUF)) > 0) {
		pt = (struct part){ buf, (size_t)r / 8, 0 };
		sum_part(&pt);
		sum += pt.sum;
		total += (uint64_t)r;
	}
	if (r < 0) {
		perror(name);
		return 2;
	}
	printf("%llu bytes, sum %016llx (read)\n", (unsigned long long)total,
	       (unsigned long long)sum);
	free(buf);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	struct part parts[2];
	pthread_t th;
	struct stat st;
	size_t words, half;
	void *map;
	int fd, nt;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: floor FILE [THREADS | read]\n");
		return 2;
	}
	if (argc == 3 && !strcmp(argv[2], "read")) {
		fd = open(argv[1], O_RDONLY);
		if (fd < 0) {
			perror(argv[1]);
			return 2;
		}
		return floor_read(fd, argv[1]);
	}
	nt = argc == 3 ? atoi(argv[2]) : 1;
	if (nt != 1 && nt != 2) {
		fprintf(stderr, "floor: THREADS must be 1 or 2\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || fstat(fd, &st) != 0 || st.st_size < 8) {
		perror(argv[1]);
		return 2;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
	if (map == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	words = (size_t)st.st_size / 8;
	half = nt == 2 ? words / 2 : words;
	parts[0] = (struct part){ map, half, 0 };
	parts[1] = (struct part){ (const uint64_t *)map + half, words - half, 0 };
	if (nt == 2 && pthread_create(&th, NULL, sum_part, &parts[1]) != 0) {
		perror("pthread_create");
		return 2;
	}
	sum_part(&parts[0]);
	if (nt == 2)
		pthread_join(th, NULL);
	else
		sum_part(&parts[1]);
	printf("%zu bytes, sum %016llx\n", (size_t)st.st_size,
	       (unsigned long long)(parts[0].sum + parts[1].sum));
	munmap(map, (size_t)st.st_size);
	close(fd);
	return 0;
}
