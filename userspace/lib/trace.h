/* SPDX-License-Identifier: MIT */
/* A parsed trace file: one program per execution (segment). */
#ifndef VSC_TRACE_H
#define VSC_TRACE_H

#include "program.h"

struct vsc_trace {
	struct vsc_program **programs;
	size_t count;
	size_t cap;
	uint64_t lost_events; /* from a `# lost events: N` header comment */
};

#endif
