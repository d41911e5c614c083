/* SPDX-License-Identifier: MIT */
#include <stdarg.h>
#include <stdio.h>

#include "userspace/util/diag.h"

void vdiag(const char *who, const char *format, va_list ap)
{
	char message[4096];

	/* One fprintf per message, so lines from worker threads do not mix. */
	vsnprintf(message, sizeof(message), format, ap);
	if (who)
		fprintf(stderr, "vsc %s: %s\n", who, message);
	else
		fprintf(stderr, "vsc: %s\n", message);
}

void diag(const char *who, const char *format, ...)
{
	va_list ap;

	va_start(ap, format);
	vdiag(who, format, ap);
	va_end(ap);
}

void diag_parse_error(void *ctx, const char *message)
{
	(void)ctx;
	fprintf(stderr, "%s\n", message);
}

void diag_progress(void *ctx, const char *line)
{
	(void)ctx;
	fprintf(stderr, "vsc: %s\n", line);
}
