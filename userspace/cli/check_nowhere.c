/* SPDX-License-Identifier: MIT */
/* vsc check: a recorded execution that reads a value from nowhere. A read
 * (or an RMW's read) of a value that no recorded write of its variable
 * wrote can only read the initial value. Where that is impossible, some
 * writer was not recorded (memory reused after free, a stack frame of an
 * earlier call, an access without a probe), and the inconsistency is one
 * of missing data, not of the program: docs/format.md, "Values from
 * nowhere". Such a value V of x read by T[i] proves it when
 *   - x's initial value is known and is not V, or
 *   - another read of x gets another such value (one initial value), or
 *   - T wrote x before T[i], or read x with a value other than V: the
 *     initial value comes before every write of x in x's coherence
 *     order, and no coherent machine (x86-64, ARMv8: SC per location)
 *     reads it after its own write or a write it read.
 * Each of those makes the execution inconsistent anyway, so only
 * inconsistent executions of recorded traces are searched for one. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "report.h"

struct written {
	uint32_t var;
	int64_t value;
};

static int cmp_written(const void *a, const void *b)
{
	const struct written *x = a, *y = b;

	if (x->var != y->var)
		return x->var < y->var ? -1 : 1;
	return x->value < y->value ? -1 : x->value > y->value;
}

static bool was_written(const struct written *w, size_t n, uint32_t var, int64_t value)
{
	struct written key = { var, value };

	return bsearch(&key, w, n, sizeof(*w), cmp_written) != NULL;
}

/* Per variable: the first value from nowhere seen, and what the thread
 * being scanned did to it so far (thread + 1 in `thread`: 0 is none). */
struct var_state {
	bool has_nowhere;
	int64_t nowhere;
	size_t nowhere_thread, nowhere_index;
	size_t thread;
	bool wrote, has_read, reads_differ;
	int64_t first_read;
};

/* The sorted values each variable is written, or NULL (no memory). */
static struct written *collect_writes(const struct vsc_program *prog, size_t *n)
{
	size_t threads = vsc_program_thread_count(prog), k = 0;
	struct written *w = malloc((vsc_program_event_count(prog) + 1) * sizeof(*w));

	for (size_t t = 0; w && t < threads; t++) {
		const struct vsc_event *ev = vsc_program_events(prog, t);
		size_t len = vsc_program_thread_length(prog, t);

		if (!ev && len) {
			free(w);
			return NULL;
		}
		for (size_t i = 0; i < len; i++)
			if (ev[i].kind != VSC_READ)
				w[k++] = (struct written){ ev[i].var, ev[i].kind == VSC_RMW
									      ? ev[i].new_value
									      : ev[i].value };
	}
	if (w)
		qsort(w, k, sizeof(*w), cmp_written);
	*n = k;
	return w;
}

/* Why a read of ev (T[i]) from nowhere proves an unrecorded writer, into
 * because (true), or false; s is its variable's state, updated. */
static bool proof(char *because, size_t len, const struct vsc_program *prog, struct var_state *s,
		  const struct vsc_event *ev, size_t t, size_t i)
{
	const char *name = vsc_program_thread_name(prog, t);
	int64_t init = 0;

	if (vsc_program_var_init(prog, ev->var, &init) == VSC_INIT_KNOWN && ev->value != init)
		snprintf(because, len, "its initial value is %lld", (long long)init);
	else if (s->has_nowhere && s->nowhere != ev->value)
		snprintf(because, len,
			 "%s[%zu] reads %lld from it, written by no recorded event either, and "
			 "only one can be its initial value",
			 vsc_program_thread_name(prog, s->nowhere_thread), s->nowhere_index,
			 (long long)s->nowhere);
	else if (s->wrote)
		snprintf(
			because, len,
			"%s wrote it before: no coherent machine reads the initial value after that",
			name);
	else if (s->reads_differ || (s->has_read && s->first_read != ev->value))
		snprintf(because, len,
			 "%s read another value of it before: no coherent machine reads the "
			 "initial value after that",
			 name);
	else {
		if (!s->has_nowhere) {
			s->has_nowhere = true;
			s->nowhere = ev->value;
			s->nowhere_thread = t;
			s->nowhere_index = i;
		}
		return false;
	}
	return true;
}

static void note_access(struct var_state *s, const struct vsc_event *ev)
{
	if (ev->kind != VSC_WRITE) {
		s->reads_differ = s->reads_differ || (s->has_read && s->first_read != ev->value);
		if (!s->has_read)
			s->first_read = ev->value;
		s->has_read = true;
	}
	if (ev->kind != VSC_READ)
		s->wrote = true;
}

int check_find_nowhere(const struct vsc_program *prog, char *why, size_t len)
{
	size_t nw = 0, vars = vsc_program_var_count(prog);
	size_t threads = vsc_program_thread_count(prog);
	struct written *w = collect_writes(prog, &nw);
	struct var_state *vs = calloc(vars + 1, sizeof(*vs));
	int found = 0;

	if (!w || !vs) {
		free(w);
		free(vs);
		return -ENOMEM;
	}
	for (size_t t = 0; t < threads && !found; t++) {
		const struct vsc_event *ev = vsc_program_events(prog, t);
		size_t n = ev ? vsc_program_thread_length(prog, t) : 0;

		for (size_t i = 0; i < n && !found; i++) {
			struct var_state *s = &vs[ev[i].var];
			char because[300];

			if (s->thread != t + 1)
				*s = (struct var_state){ .has_nowhere = s->has_nowhere,
							 .nowhere = s->nowhere,
							 .nowhere_thread = s->nowhere_thread,
							 .nowhere_index = s->nowhere_index,
							 .thread = t + 1 };
			if (ev[i].kind != VSC_WRITE &&
			    !was_written(w, nw, ev[i].var, ev[i].value) &&
			    proof(because, sizeof(because), prog, s, &ev[i], t, i)) {
				const char *seg = vsc_program_name(prog);
				snprintf(
					why, len,
					"%s%s%s%s[%zu] reads %lld from %s, a value no recorded event "
					"wrote and not its initial value (%s): an unrecorded writer "
					"(reused memory? an access without a probe?)",
					seg ? "segment " : "", seg ? seg : "", seg ? ": " : "",
					vsc_program_thread_name(prog, t), i, (long long)ev[i].value,
					vsc_program_var_name(prog, ev[i].var), because);
				found = 1;
			}
			note_access(s, &ev[i]);
		}
	}
	free(w);
	free(vs);
	return found;
}
