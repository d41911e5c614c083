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
	/* Every value an event of the variable reads or writes lies in
	 * [least, most] (least > most: none yet): kept as events are appended
	 * (program_append, the parser's fast path), so a table by value needs
	 * no pass of its own to find its size (greedy_run.c). A program made
	 * from another may copy a wider span: still true. */
	int64_t least, most;
};

/* The event's values into its variable's span. */
static inline void var_span_see(struct vsc_var_init *in, const struct vsc_event *ev)
{
	int64_t v = ev->value, w = ev->kind == VSC_RMW ? ev->new_value : v;
	int64_t lo = v < w ? v : w, hi = v < w ? w : v;

	in->least = lo < in->least ? lo : in->least;
	in->most = hi > in->most ? hi : in->most;
}

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
