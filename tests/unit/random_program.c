/* SPDX-License-Identifier: MIT */
#include "random_program.h"

#include <stdio.h>
#include <stdlib.h>

uint64_t random_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1DULL;
}

unsigned random_below(uint64_t *s, unsigned n)
{
	return n ? (unsigned)(random_next(s) % n) : 0;
}

struct vsc_program *named_program(unsigned threads, unsigned vars)
{
	struct vsc_program *p = vsc_program_new();
	char name[16];

	for (unsigned t = 0; p && t < threads; t++) {
		snprintf(name, sizeof(name), "T%u", t);
		vsc_program_add_thread(p, name);
	}
	for (unsigned v = 0; p && v < vars; v++) {
		snprintf(name, sizeof(name), "x%u", v);
		vsc_program_add_var(p, name);
	}
	return p;
}

int hammer_start(struct hammer *h, unsigned k, unsigned n)
{
	*h = (struct hammer){ k, n, 2 * k * n, 0, 1 % k, calloc(k, sizeof(unsigned)), 0 };
	return h->pos ? 0 : -1;
}

unsigned hammer_thread(uint64_t *s, struct hammer *h, unsigned t)
{
	if (random_below(s, 40) == 0) { /* another pair of threads runs */
		h->a = random_below(s, h->k);
		h->b = random_below(s, h->k);
	}
	if (h->pos[t] == 2 * h->n) {
		for (t = 0; h->pos[t] == 2 * h->n; t++)
			;
		h->a = t;
	}
	return t;
}

struct vsc_event hammer_step(struct hammer *h, unsigned t)
{
	struct vsc_event ev = { .var = 0, .kind = h->pos[t] % 2 ? VSC_READ : VSC_WRITE };

	if (ev.kind == VSC_WRITE)
		h->mem = h->pos[t] / 2;
	ev.value = h->mem;
	h->pos[t]++;
	h->left--;
	return ev;
}

struct vsc_program *random_program(uint64_t *s, const struct random_shape *sh)
{
	struct vsc_program *p = sh->vars > 16 ? NULL : named_program(sh->threads, sh->vars);
	int64_t mem[16];
	int has[16];
	unsigned owner[16], second[16];

	if (!p)
		return NULL;
	for (unsigned v = 0; v < sh->vars; v++) {
		owner[v] = random_below(s, sh->threads);
		second[v] = sh->two_writers ? random_below(s, sh->threads) : owner[v];
		has[v] = 0;
		if (random_below(s, 100) < sh->init_pct) {
			mem[v] = (int64_t)random_below(s, sh->values);
			has[v] = 1;
			if (random_below(s, 2))
				vsc_program_set_init(p, v, VSC_INIT_KNOWN, mem[v]);
			else
				vsc_program_set_init(p, v, VSC_INIT_UNKNOWN, 0);
		}
	}
	for (unsigned n = 0; n < sh->events; n++) {
		unsigned t = random_below(s, sh->threads), v = random_below(s, sh->vars);
		struct vsc_event e = { .var = v };
		int may_write =
			!(sh->one_writer || sh->two_writers) || owner[v] == t || second[v] == t;
		if (may_write && random_below(s, 100) < sh->write_pct) {
			int64_t value =
				sh->unique_last && v == sh->vars - 1
					? 100 + (int64_t)n /* a counter: values identify writes */
					: (int64_t)random_below(s, sh->values);
			if (has[v] && random_below(s, 100) < sh->rmw_pct) {
				e.kind = VSC_RMW;
				e.value = mem[v];
				e.new_value = value;
			} else {
				e.kind = VSC_WRITE;
				e.value = value;
			}
			mem[v] = value;
			has[v] = 1;
		} else {
			e.kind = VSC_READ;
			e.value = has[v] ? mem[v] : (int64_t)random_below(s, sh->values);
			if (random_below(s, 100) < sh->wrong_pct)
				e.value = (int64_t)random_below(s, sh->values);
		}
		vsc_program_append(p, t, &e, sh->timestamps ? 1 + 10 * n + random_below(s, 25) : 0);
	}
	return p;
}

struct random_shape random_two_writer_shape(uint64_t *state, int i, unsigned events, unsigned vars,
					    unsigned values)
{
	struct random_shape shape = { .two_writers = 1 };

	/* one draw after another, in this order (a seed's programs stay) */
	shape.threads = 3 + (unsigned)(random_next(state) % 3);
	shape.events = events + (unsigned)(random_next(state) % 22);
	shape.vars = vars + (unsigned)(random_next(state) % 4);
	shape.values = values + (unsigned)(random_next(state) % 3);
	shape.write_pct = 30 + (unsigned)(random_next(state) % 40);
	shape.rmw_pct = i % 3 == 0 ? 40 : 0;
	shape.wrong_pct = (unsigned)(random_next(state) % 6);
	shape.init_pct = i % 2 ? 60 : 0;
	return shape;
}
