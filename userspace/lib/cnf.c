/* SPDX-License-Identifier: MIT */
#include "cnf.h"
#include "userspace/util/array.h"

#include <errno.h>
#include <stdlib.h>

int cnf_new_var(struct cnf *f)
{
	return ++f->nvars;
}

void cnf_add(struct cnf *f, int lit)
{
	if (ARRAY_RESERVE_FROM(f->lits, f->cap, f->count + 1, 4096)) {
		f->failed = 1;
		return;
	}
	f->lits[f->count++] = lit;
	if (lit == 0)
		f->nclauses++;
}

void cnf_clause2(struct cnf *f, int a, int b)
{
	cnf_add(f, a);
	cnf_add(f, b);
	cnf_add(f, 0);
}

void cnf_clause3(struct cnf *f, int a, int b, int c)
{
	cnf_add(f, a);
	cnf_add(f, b);
	cnf_add(f, c);
	cnf_add(f, 0);
}

void cnf_free(struct cnf *f)
{
	free(f->lits);
	f->lits = NULL;
	f->count = f->cap = f->nclauses = 0;
	f->nvars = 0;
}

int cnf_write_dimacs(const struct cnf *f, FILE *out, const char *comment)
{
	if (comment)
		fprintf(out, "c %s\n", comment);
	fprintf(out, "p cnf %d %zu\n", f->nvars, f->nclauses);
	for (size_t i = 0; i < f->count; i++)
		fprintf(out, f->lits[i] ? "%d " : "0\n", f->lits[i]);
	return ferror(out) ? -EIO : 0;
}
