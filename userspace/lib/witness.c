/* SPDX-License-Identifier: MIT */
/* The witness verifier: a separate, simple path that shares nothing with the
 * solvers. It replays the interleaving over a map of variable -> last value. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>

#include "solver.h"

struct cell {
	int state; /* 0: no value, 1: unknown initial value not yet read, 2: value */
	int64_t value;
};

static int fail(char *why, size_t why_len, const char *fmt, ...)
{
	va_list ap;
	if (why && why_len) {
		va_start(ap, fmt);
		vsnprintf(why, why_len, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

long count_preemptions(const struct vsc_program *p, const uint32_t *witness, size_t length)
{
	uint32_t k = program_threads(p);
	uint32_t *done = calloc(k ? k : 1, sizeof(*done));
	long preemptions = 0;

	if (!done)
		return -ENOMEM;
	for (size_t j = 0; j < length; j++) {
		uint32_t t = witness[j];
		done[t]++;
		if (j + 1 < length && witness[j + 1] != t && done[t] < p->threads[t].length)
			preemptions++;
	}
	free(done);
	return preemptions;
}

int vsc_witness_verify(const struct vsc_program *p, const uint32_t *threads, size_t length,
		       long *preemptions, char *why, size_t why_len)
{
	uint32_t k = program_threads(p), nvars = program_vars(p);
	uint32_t *next = calloc(k ? k : 1, sizeof(*next));
	struct cell *mem = calloc(nvars ? nvars : 1, sizeof(*mem));
	enum packing packed;
	int err = 0;

	if (!next || !mem) {
		free(next);
		free(mem);
		return -ENOMEM;
	}
	packed = program_read_begin(p); /* a parsed program's events need no unpacking here */
	for (uint32_t v = 0; v < nvars; v++) {
		mem[v].state = p->inits[v].kind == VSC_INIT_KNOWN     ? 2
			       : p->inits[v].kind == VSC_INIT_UNKNOWN ? 1
								      : 0;
		mem[v].value = p->inits[v].value;
	}
	if (length != p->event_count)
		err = fail(why, why_len, "witness has %zu steps, the program %zu events", length,
			   p->event_count);
	for (size_t j = 0; j < length && !err; j++) {
		uint32_t t = threads[j];
		if (t >= k || next[t] >= p->threads[t].length) {
			err = fail(why, why_len, "step %zu: thread %u has no event left", j, t);
			break;
		}
		const struct vsc_event ev = thread_event(&p->threads[t], packed, next[t]), *e = &ev;
		struct cell *c = &mem[e->var];
		if (e->kind != VSC_WRITE) {
			if (c->state == 0 || (c->state == 2 && c->value != e->value)) {
				err = fail(why, why_len,
					   "step %zu: %s[%u] reads %s = %lld but it holds %s", j,
					   p->thread_names.names[t], next[t],
					   p->var_names.names[e->var], (long long)e->value,
					   c->state ? "another value" : "no value");
				break;
			}
			c->state = 2;
			c->value = e->value;
		}
		if (e->kind != VSC_READ) {
			c->state = 2;
			c->value = e->kind == VSC_RMW ? e->new_value : e->value;
		}
		next[t]++;
	}
	program_read_end(p);
	if (!err && preemptions)
		*preemptions = count_preemptions(p, threads, length);
	free(next);
	free(mem);
	return err;
}
