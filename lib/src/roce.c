/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * roce.c - library version string and status-code text.
 */
#include <roce/roce.h>

const char *roce_strerror(int status)
{
	switch (status) {
	case ROCE_OK:
		return "success";
	case ROCE_E_TRUNC:
		return "frame truncated before the headers it needs";
	case ROCE_E_MALFORMED:
		return "malformed frame (inconsistent length fields)";
	case ROCE_E_NOT_ROCE:
		return "not a RoCE, PFC or PAUSE frame";
	case ROCE_E_LINKTYPE:
		return "unsupported link-layer type";
	case ROCE_E_INVAL:
		return "invalid argument";
	case ROCE_E_NOMEM:
		return "out of memory";
	case ROCE_E_NOSPACE:
		return "output buffer too small";
	case ROCE_E_UNSUPPORTED:
		return "operation not supported";
	case ROCE_E_DISCARDED:
		return "frame discarded: its bytes may be invalid";
	default:
		return "unknown status";
	}
}

const char *roce_version(void)
{
#if defined(ROCE_HAVE_ISAL) && ROCE_HAVE_ISAL
	return "libroce " ROCE_VERSION_STRING " (crc32: isa-l)";
#else
	return "libroce " ROCE_VERSION_STRING " (crc32: zlib)";
#endif
}
