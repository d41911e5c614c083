/* SPDX-License-Identifier: MIT */
#include "read_progress.h"

#include <stdio.h>

#include "userspace/util/clock.h"

#define MB (1024.0 * 1024.0)

void read_progress_init(struct read_progress *rp, const struct vsc_parse_opts *o, const char *name)
{
	rp->fn = o->progress ? o->on_progress : NULL;
	rp->ctx = o->progress_ctx;
	rp->name = name;
	rp->started = rp->last = rp->fn ? clock_now_s() : 0;
}

void read_progress_note(struct read_progress *rp, unsigned long long lines, size_t done,
			size_t total)
{
	char line[256], of[64] = "";
	double now;

	if (!rp->fn)
		return;
	now = clock_now_s();
	if (now - rp->last < 1.0)
		return;
	rp->last = now;
	if (total)
		snprintf(of, sizeof(of), " of %.0f", (double)total / MB);
	if (lines)
		snprintf(line, sizeof(line), "reading %s: %.0f s, %llu lines, %.0f%s MB", rp->name,
			 now - rp->started, lines, (double)done / MB, of);
	else
		snprintf(line, sizeof(line), "reading %s: %.0f s, %.0f%s MB", rp->name,
			 now - rp->started, (double)done / MB, of);
	rp->fn(rp->ctx, line);
}
