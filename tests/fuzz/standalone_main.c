/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * standalone_main.c - replays files (or every file in directories) through
 * LLVMFuzzerTestOneInput, for builds without libFuzzer (gcc).  Exit 0 when
 * every input ran; a crash is a crash.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		return -1;
	}
	uint8_t *buf = malloc(1 << 20);
	if (!buf) {
		fclose(f);
		return -1;
	}
	size_t n = fread(buf, 1, 1 << 20, f);
	fclose(f);
	/* Exact-size copy so ASan sees reads past the input. */
	uint8_t *exact = malloc(n ? n : 1);
	if (!exact) {
		free(buf);
		return -1;
	}
	memcpy(exact, buf, n);
	free(buf);
	LLVMFuzzerTestOneInput(exact, n);
	free(exact);
	return 0;
}

int main(int argc, char **argv)
{
	int ran = 0;
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) != 0) {
			perror(argv[i]);
			return 2;
		}
		if (S_ISDIR(st.st_mode)) {
			DIR *d = opendir(argv[i]);
			struct dirent *e;
			if (!d)
				return 2;
			while ((e = readdir(d)) != NULL) {
				if (e->d_name[0] == '.')
					continue;
				char p[4096];
				snprintf(p, sizeof p, "%s/%s", argv[i], e->d_name);
				if (run_file(p) == 0)
					ran++;
			}
			closedir(d);
		} else if (run_file(argv[i]) == 0) {
			ran++;
		}
	}
	printf("replayed %d inputs\n", ran);
	return ran > 0 ? 0 : 1;
}
