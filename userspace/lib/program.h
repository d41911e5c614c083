/* SPDX-License-Identifier: MIT */
/* The program model: threads of events, interned variables, initial values.
 * Internal to libvsc; solvers read these arrays directly. */
#ifndef VSC_PROGRAM_H
#define VSC_PROGRAM_H

#include "intern.h"
#include "vsc/vsc.h"

struct vsc_thread {
	struct vsc_event *events;
	uint64_t *ts;    /* NULL until the first @ts of the thread */
	uint32_t *lines; /* trace line of each event, NULL when built by API */
	uint32_t length;
	uint32_t cap;
	/* bytes of the mappings of events and lines when they are big
	 * (program.c), 0 while on the heap */
	size_t events_mapped, lines_mapped;
};

struct vsc_var_init {
	uint8_t kind;   /* enum vsc_init */
	uint8_t global; /* came from an init line before the first segment */
	uint32_t line;  /* the init line of the trace, 0 when none */
	int64_t value;
};

struct vsc_program {
	char *name; /* segment name or NULL */
	struct intern thread_names;
	struct intern var_names;
	struct vsc_thread *threads; /* thread_names.count of them */
	uint32_t threads_cap;
	struct vsc_var_init *inits; /* var_names.count of them */
	uint32_t inits_cap;
	size_t event_count;
};

static inline uint32_t program_threads(const struct vsc_program *p)
{
	return p->thread_names.count;
}

static inline uint32_t program_vars(const struct vsc_program *p)
{
	return p->var_names.count;
}

/* Intern a thread or variable by a name that is not NUL-ended. */
int program_thread(struct vsc_program *p, const char *name, size_t len);
int program_var(struct vsc_program *p, const char *name, size_t len);
/* Give back the room of the big arrays past the last event (they grow in
 * huge pages, which are filled whole): once a trace is read. */
void program_trim(struct vsc_program *p);
/* Append with an optional line number (0: none). */
int program_append(struct vsc_program *p, uint32_t thread, const struct vsc_event *ev, uint64_t ts,
		   uint32_t line);

#endif
