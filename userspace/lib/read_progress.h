/* SPDX-License-Identifier: MIT */
/* Progress lines while a trace is read and parsed (vsc_parse_opts.progress):
 * about once a second, how far reading has come. */
#ifndef VSC_READ_PROGRESS_H
#define VSC_READ_PROGRESS_H

#include <stddef.h>

#include "vsc/vsc.h"

struct read_progress {
	vsc_progress_fn fn; /* NULL: no progress asked for */
	void *ctx;
	const char *name;
	double started, last; /* seconds, monotonic */
};

void read_progress_init(struct read_progress *rp, const struct vsc_parse_opts *o, const char *name);
/* Report, if a second has passed since the last line: lines parsed so far
 * (0 while only reading), bytes done, of total (0: not known). Cheap to call
 * often: one clock read. */
void read_progress_note(struct read_progress *rp, unsigned long long lines, size_t done,
			size_t total);

#endif
