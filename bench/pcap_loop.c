/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pcap_loop.c - the "bare libpcap read loop" baseline for bench/bench.sh:
 * pcap_open_offline + pcap_next_ex over every record, touching the first
 * and last captured byte so the data is really read.  Prints frames, bytes.
 */
#include <pcap/pcap.h>
#include <stdint.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	char err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *d;
	uint64_t frames = 0, bytes = 0, sum = 0;
	pcap_t *p;
	int rc;

	if (argc != 2) {
		fprintf(stderr, "usage: pcap_loop FILE\n");
		return 2;
	}
	p = pcap_open_offline(argv[1], err);
	if (!p) {
		fprintf(stderr, "pcap_loop: %s\n", err);
		return 2;
	}
	while ((rc = pcap_next_ex(p, &h, &d)) == 1) {
		frames++;
		bytes += h->len;
		if (h->caplen)
			sum += d[0] + d[h->caplen - 1];
	}
	if (rc == PCAP_ERROR)
		fprintf(stderr, "pcap_loop: %s\n", pcap_geterr(p));
	pcap_close(p);
	printf("%llu frames, %llu bytes (%llu)\n", (unsigned long long)frames,
	       (unsigned long long)bytes, (unsigned long long)(sum & 1));
	return rc == PCAP_ERROR ? 2 : 0;
}
