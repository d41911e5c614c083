/* SPDX-License-Identifier: MIT */
/* The program model: threads of events, interned variables, initial values.
 * Internal to libvsc; solvers read these arrays directly. */
#ifndef VSC_PROGRAM_H
#define VSC_PROGRAM_H

#include "intern.h"
#include "packed.h"
#include "vsc/vsc.h"

struct vsc_thread {
	struct vsc_event *events; /* NULL while the program is packed only */
	void *packed;             /* the parser's packed events (packed.h), or NULL */
	uint64_t *ts;             /* NULL until the first @ts of the thread */
	uint32_t *lines;          /* trace line of each event, NULL when built by API */
	uint32_t length;
	uint32_t cap;
	/* bytes of the mappings of events, packed events and lines when big
	 * (program.c), 0 while on the heap */
	size_t events_mapped, lines_mapped, packed_mapped;
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

/* A value into its variable's span. */
static inline void var_span_add(struct vsc_var_init *in, int64_t v)
{
	in->least = v < in->least ? v : in->least;
	in->most = v > in->most ? v : in->most;
}

/* The event's values into its variable's span. */
static inline void var_span_see(struct vsc_var_init *in, const struct vsc_event *ev)
{
	var_span_add(in, ev->value);
	if (ev->kind == VSC_RMW)
		var_span_add(in, ev->new_value);
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
	size_t unsure_values; /* its lines marked `value unsure` (the parser's) */
	/* enum packing: not PACKING_NONE while the events are in the
	 * threads' packed arrays only (events NULL); PACKING_NONE: in events
	 * (packed, if any, is a stale copy kept for a reader that started
	 * before program_unpack(): see there). */
	uint32_t packed;
	uint32_t packed_readers; /* between program_read_begin() and _end() */
};

/* The form a reader of p's events reads them in (packed.h), from now
 * until program_read_end(): packed arrays read from here stay until then
 * (program_unpack() on another thread frees them only when no reader
 * holds them). Both atomics are sequentially consistent: the unpacking
 * sets the form, then counts readers; a reader counts itself, then reads
 * the form; so one of them sees the other. */
static inline enum packing program_read_begin(const struct vsc_program *p)
{
	__atomic_fetch_add((uint32_t *)&p->packed_readers, 1, __ATOMIC_SEQ_CST);
	return (enum packing)__atomic_load_n(&p->packed, __ATOMIC_SEQ_CST);
}

static inline void program_read_end(const struct vsc_program *p)
{
	__atomic_fetch_sub((uint32_t *)&p->packed_readers, 1, __ATOMIC_SEQ_CST);
}

/* Whether p's events are packed now (for a test: a reader must use
 * program_read_begin()). */
static inline enum packing program_packed(const struct vsc_program *p)
{
	return (enum packing)__atomic_load_n(&p->packed, __ATOMIC_SEQ_CST);
}

/* Event i of th, from its packed array (k: program_packed() of its
 * program, read once) or its events. */
static inline __attribute__((always_inline)) struct vsc_event
thread_event(const struct vsc_thread *th, enum packing k, uint32_t i)
{
	return k ? packed_get(th->packed, k, i) : th->events[i];
}

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
/* Make the threads' events arrays of a packed program (a no-op when it
 * is not), with room for their events only, and free the packed arrays
 * unless a reader holds them (then they stay until vsc_program_free()).
 * Safe to call from threads that share p: the first makes them, under a
 * lock. Returns 0 or -ENOMEM (p unchanged). */
int program_unpack(const struct vsc_program *p);
/* A new program whose events are appended packed while they fit (the
 * parser's): the first that does not fit unpacks it. */
struct vsc_program *program_new_packed(void);
/* A zeroed array of bytes for a solver's table: from BIG_BYTES on, a
 * mapping of its own backed by huge pages like the events (the kernel
 * zeroes a 2 MiB page for a fraction of the cost of 512 small ones); NULL
 * when there is no memory. Freed by zeroed_array_free() with the same
 * bytes. */
void *zeroed_array(size_t bytes);
void zeroed_array_free(void *array, size_t bytes);
/* Append with an optional line number (0: none). */
int program_append(struct vsc_program *p, uint32_t thread, const struct vsc_event *ev, uint64_t ts,
		   uint32_t line);

#endif
