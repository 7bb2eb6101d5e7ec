// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * promhttp.c - roce-analyze --prometheus ADDR:PORT: /metrics served by
 * libmicrohttpd (its own thread).  The analysis thread renders the text
 * (prom.c) into a buffer at every tick; the HTTP thread only copies that
 * buffer under a mutex, never touches the analyzer.
 *
 * libmicrohttpd is opened with dlopen() when --prometheus is given, not
 * linked: it brings in GnuTLS and eight more shared objects (nettle, gmp,
 * p11-kit, libidn2, ...) whose mapping and relocation every run paid for,
 * a few milliseconds of each analysis (docs/perf/tools.md).
 */
#define _POSIX_C_SOURCE 200809L

#include <arpa/inet.h>
#include <dlfcn.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "dlopen_any.h"
#include "promhttp.h"

#ifdef ROCE_HAVE_MHD
#include <microhttpd.h>

struct ra_promhttp {
	struct MHD_Daemon *d;
	pthread_mutex_t lock;
	char *text;
	size_t len;
};

#if MHD_VERSION >= 0x00097002
#define RA_MHD_RESULT enum MHD_Result
#else
#define RA_MHD_RESULT int
#endif

/* the functions used, looked up in the shared object (mhd_load()) */
static struct {
	__typeof__(MHD_start_daemon) *start_daemon;
	__typeof__(MHD_stop_daemon) *stop_daemon;
	__typeof__(MHD_create_response_from_buffer) *create_response_from_buffer;
	__typeof__(MHD_add_response_header) *add_response_header;
	__typeof__(MHD_queue_response) *queue_response;
	__typeof__(MHD_destroy_response) *destroy_response;
} mhd;

/* Open libmicrohttpd (once; called by the analysis thread before the daemon starts). */
static int mhd_load(char *errbuf, size_t errlen)
{
	static const char *const names[] = { "libmicrohttpd.so.12", "libmicrohttpd.so" };
	char why[200];
	void *h;

	if (mhd.destroy_response)
		return 0;
	h = roce_dlopen_any(names, sizeof(names) / sizeof(names[0]), why, sizeof(why));
	if (!h) {
		snprintf(errbuf, errlen, "--prometheus: libmicrohttpd: %s", why);
		return -1;
	}
	/* POSIX: a data pointer from dlsym() converts to a function pointer */
#define MHD_SYM(field, name)                                                                \
	*(void **)&mhd.field = dlsym(h, #name);                                             \
	if (!mhd.field) {                                                                   \
		snprintf(errbuf, errlen, "--prometheus: libmicrohttpd: no %s in it", #name);   \
		return -1;                                                                  \
	}
	MHD_SYM(start_daemon, MHD_start_daemon)
	MHD_SYM(stop_daemon, MHD_stop_daemon)
	MHD_SYM(create_response_from_buffer, MHD_create_response_from_buffer)
	MHD_SYM(add_response_header, MHD_add_response_header)
	MHD_SYM(queue_response, MHD_queue_response)
	MHD_SYM(destroy_response, MHD_destroy_response)
#undef MHD_SYM
	/* the handle stays open for the life of the process */
	return 0;
}

static RA_MHD_RESULT handler(void *cls, struct MHD_Connection *c, const char *url,
			     const char *method, const char *version, const char *upload,
			     size_t *upload_len, void **state)
{
	struct ra_promhttp *h = cls;
	struct MHD_Response *r;
	RA_MHD_RESULT ret;
	char *copy;
	size_t len;
	unsigned code = MHD_HTTP_OK;

	(void)version; (void)upload; (void)upload_len; (void)state;
	if (strcmp(method, "GET") && strcmp(method, "HEAD")) {
		code = MHD_HTTP_METHOD_NOT_ALLOWED;
		copy = strdup("method not allowed\n");
	} else if (strcmp(url, "/metrics")) {
		code = MHD_HTTP_NOT_FOUND;
		copy = strdup("roce-analyze: metrics are at /metrics\n");
	} else {
		pthread_mutex_lock(&h->lock);
		copy = malloc(h->len + 1);
		if (copy) {
			memcpy(copy, h->text ? h->text : "", h->len);
			copy[h->len] = '\0';
		}
		pthread_mutex_unlock(&h->lock);
	}
	if (!copy)
		return MHD_NO;
	len = strlen(copy);
	r = mhd.create_response_from_buffer(len, copy, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(copy);
		return MHD_NO;
	}
	mhd.add_response_header(r, "Content-Type", "text/plain; version=0.0.4; charset=utf-8");
	ret = mhd.queue_response(c, code, r);
	mhd.destroy_response(r);
	return ret;
}

ra_promhttp_t *ra_promhttp_start(const char *addrport, char *errbuf, size_t errlen)
{
	struct sockaddr_storage ss;
	struct ra_promhttp *h;
	char host[256];
	const char *colon = strrchr(addrport, ':');
	unsigned long port;
	char *end;
	size_t hl;

	memset(&ss, 0, sizeof(ss));
	if (!colon || !colon[1]) {
		snprintf(errbuf, errlen, "--prometheus '%s': expected ADDR:PORT or :PORT", addrport);
		return NULL;
	}
	port = strtoul(colon + 1, &end, 10);
	hl = (size_t)(colon - addrport);
	if (*end || !port || port > 65535 || hl >= sizeof(host)) {
		snprintf(errbuf, errlen, "--prometheus '%s': bad port", addrport);
		return NULL;
	}
	memcpy(host, addrport, hl);
	host[hl] = '\0';
	if (hl >= 2 && host[0] == '[' && host[hl - 1] == ']') {
		memmove(host, host + 1, hl - 2);
		host[hl - 2] = '\0';
	}
	if (!host[0])
		strcpy(host, "127.0.0.1");      /* localhost unless told otherwise */
	if (inet_pton(AF_INET, host, &((struct sockaddr_in *)&ss)->sin_addr) == 1) {
		((struct sockaddr_in *)&ss)->sin_family = AF_INET;
		((struct sockaddr_in *)&ss)->sin_port = htons((uint16_t)port);
	} else if (inet_pton(AF_INET6, host, &((struct sockaddr_in6 *)&ss)->sin6_addr) == 1) {
		((struct sockaddr_in6 *)&ss)->sin6_family = AF_INET6;
		((struct sockaddr_in6 *)&ss)->sin6_port = htons((uint16_t)port);
	} else {
		snprintf(errbuf, errlen, "--prometheus '%s': '%s' is not an IP address", addrport,
			 host);
		return NULL;
	}
	if (mhd_load(errbuf, errlen) != 0)
		return NULL;
	h = calloc(1, sizeof(*h));
	if (!h) {
		snprintf(errbuf, errlen, "out of memory");
		return NULL;
	}
	pthread_mutex_init(&h->lock, NULL);
	h->d = mhd.start_daemon(MHD_USE_INTERNAL_POLLING_THREAD |
				(ss.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0),
				(uint16_t)port, NULL, NULL, handler, h,
				MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
				MHD_OPTION_CONNECTION_LIMIT, 16u,
				MHD_OPTION_CONNECTION_TIMEOUT, 10u,
				MHD_OPTION_END);
	if (!h->d) {
		snprintf(errbuf, errlen, "--prometheus %s: cannot listen (address in use or "
			 "not local?)", addrport);
		pthread_mutex_destroy(&h->lock);
		free(h);
		return NULL;
	}
	return h;
}

void ra_promhttp_update(ra_promhttp_t *h, const char *iface, const struct ra_snap *sn)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return;
	ra_prom_format(f, iface, sn);
	if (fclose(f) != 0) {
		free(buf);
		return;
	}
	pthread_mutex_lock(&h->lock);
	free(h->text);
	h->text = buf;
	h->len = len;
	pthread_mutex_unlock(&h->lock);
}

void ra_promhttp_stop(ra_promhttp_t *h)
{
	if (!h)
		return;
	mhd.stop_daemon(h->d);
	pthread_mutex_destroy(&h->lock);
	free(h->text);
	free(h);
}

#else /* !ROCE_HAVE_MHD */

ra_promhttp_t *ra_promhttp_start(const char *addrport, char *errbuf, size_t errlen)
{
	(void)addrport;
	snprintf(errbuf, errlen, "--prometheus: this roce-analyze was built without "
		 "libmicrohttpd");
	return NULL;
}

void ra_promhttp_update(ra_promhttp_t *h, const char *iface, const struct ra_snap *sn)
{
	(void)h; (void)iface; (void)sn;
}

void ra_promhttp_stop(ra_promhttp_t *h)
{
	(void)h;
}

#endif
