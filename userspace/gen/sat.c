/* SPDX-License-Identifier: MIT */
/*
 * vsc gen cnf: random k-SAT in DIMACS CNF.
 * vsc gen sat: the seed paper's reductions from CNF satisfiability to VSC
 * with 0 preemptions: Section 4.1 (3-Writer, 6n+1 threads) and Section 4.2
 * (2-Writer, one more thread per clause). The program is consistent with
 * -p 0 iff the formula is satisfiable. docs/gen.md lists every thread and
 * says which events we had to reconstruct from the lemmas.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "userspace/gen/gen.h"
#include "userspace/util/array.h"
#include "userspace/util/diag.h"

struct cnf {
	uint64_t nvars, nclauses;
	int64_t *lit;    /* all literals, clause after clause */
	uint64_t *start; /* nclauses + 1 offsets into lit */
	uint64_t nlit;
	size_t cap_lit, cap_clause;
};

static void cnf_free(struct cnf *f)
{
	free(f->lit);
	free(f->start);
}

static int cnf_push_lit(struct cnf *f, int64_t lit)
{
	if (ARRAY_RESERVE(f->lit, f->cap_lit, f->nlit + 1))
		return -1;
	f->lit[f->nlit++] = lit;
	return 0;
}

static int cnf_end_clause(struct cnf *f)
{
	if (ARRAY_RESERVE(f->start, f->cap_clause, f->nclauses + 2))
		return -1;
	if (f->nclauses == 0)
		f->start[0] = 0;
	f->start[++f->nclauses] = f->nlit;
	return 0;
}

/* DIMACS: "c" comments, "p cnf VARS CLAUSES", literals ending with 0 (a
 * clause may span lines), "%" ends the file (SATLIB style). */
/* The literals of one line into f: 0 ends a clause. */
static int cnf_read_literals(struct cnf *f, char *s, bool *open_clause)
{
	for (;;) {
		char *end;
		long long lit;
		uint64_t var;

		while (isspace((unsigned char)*s))
			s++;
		if (!*s)
			return 0;
		errno = 0;
		lit = strtoll(s, &end, 10);
		if (end == s || errno)
			return -EINVAL;
		s = end;
		if (lit == 0) {
			if (cnf_end_clause(f))
				return -ENOMEM;
			*open_clause = false;
			continue;
		}
		var = (uint64_t)(lit < 0 ? -lit : lit);
		if (var > f->nvars)
			f->nvars = var; /* be lenient with a low header */
		if (cnf_push_lit(f, lit))
			return -ENOMEM;
		*open_clause = true;
	}
}

static int cnf_read(struct cnf *f, const char *path)
{
	struct gen_dimacs d;
	bool header = false, open_clause = false;
	int err = 0;
	char *s;

	memset(f, 0, sizeof(*f));
	if (gen_dimacs_open(&d, path, "gen sat"))
		return -1;
	err = cnf_end_clause(f) ? -ENOMEM : 0; /* allocate start[0] */
	f->nclauses = 0;
	while (!err && (s = gen_dimacs_next(&d)) && *s != '%') {
		unsigned long long v, c;

		if (*s != 'p')
			err = header ? cnf_read_literals(f, s, &open_clause) : -EINVAL;
		else if (header || sscanf(s, "p cnf %llu %llu", &v, &c) != 2)
			err = -EINVAL;
		else
			header = true;
		if (!err && *s == 'p')
			f->nvars = v;
	}
	if (!err && open_clause && cnf_end_clause(f))
		err = -ENOMEM;
	if (err == -EINVAL)
		gen_dimacs_error(&d, "not DIMACS CNF");
	else if (err)
		diag("gen sat", "out of memory");
	else if (!header)
		diag("gen sat", "%s: no 'p cnf' line", path);
	gen_dimacs_close(&d);
	if (err || !header) {
		cnf_free(f);
		return -1;
	}
	return 0;
}

/* ---- the reductions ------------------------------------------------------ */

/* Clause j's chain variable t (1-based): c<j> for t = 1 (written by the
 * first two literals), d<j> for t = 2 (third literal and the link thread
 * D<j>, as in Section 4.2), d<j>_<t> beyond, for clauses longer than 3. */
static void sat_chain_var(char *buf, size_t size, uint64_t j, uint64_t t)
{
	if (t == 1)
		snprintf(buf, size, "c%llu", (unsigned long long)j);
	else if (t == 2)
		snprintf(buf, size, "d%llu", (unsigned long long)j);
	else
		snprintf(buf, size, "d%llu_%llu", (unsigned long long)j, (unsigned long long)t);
}

/* The variable literal number `pos` (0-based) of clause j writes. */
static void sat_clause_var(char *buf, size_t size, uint64_t j, uint64_t pos, int writers)
{
	if (writers == 3)
		snprintf(buf, size, "c%llu", (unsigned long long)j);
	else
		sat_chain_var(buf, size, j, pos < 2 ? 1 : pos);
}

/* Literal thread P<i> (for x_i) or N<i> (for not x_i): reads v<i>, then
 * sets every clause the literal appears in. */
static void sat_literal_thread(struct gen_out *out, const struct cnf *f, uint64_t i, bool positive,
			       int writers)
{
	const char *name = positive ? "P" : "N";
	char var[64];
	gen_out_reduction_event(out, name, i, 'r', "v", i, positive ? 1 : 0);
	for (uint64_t j = 0; j < f->nclauses; j++)
		for (uint64_t k = f->start[j]; k < f->start[j + 1]; k++) {
			int64_t lit = f->lit[k];
			if ((uint64_t)(lit < 0 ? -lit : lit) != i || (lit > 0) != positive)
				continue;
			sat_clause_var(var, sizeof(var), j + 1, k - f->start[j], writers);
			gen_out_reduction_event(out, name, i, 'w', var, UINT64_MAX, 1);
		}
}

static void sat_program(struct gen_out *out, const struct cnf *f, int writers)
{
	char var[64], prev[64];
	for (uint64_t i = 1; i <= f->nvars; i++) {
		gen_out_reduction_event(out, "S0_", i, 'w', "v", i, 0);
		gen_out_reduction_event(out, "S1_", i, 'w', "v", i, 1);
		gen_out_reduction_event(out, "H0_", i, 'r', "x", UINT64_MAX, 1);
		gen_out_reduction_event(out, "H0_", i, 'r', "v", i, 0);
		gen_out_reduction_event(out, "H1_", i, 'r', "x", UINT64_MAX, 1);
		gen_out_reduction_event(out, "H1_", i, 'r', "v", i, 1);
		sat_literal_thread(out, f, i, true, writers);
		sat_literal_thread(out, f, i, false, writers);
	}
	/* 2-Writer: link threads D<j> (and D<j>_<t>) pass "clause true" along
	 * the chain c<j> -> d<j> -> d<j>_3 ... */
	for (uint64_t j = 1; writers == 2 && j <= f->nclauses; j++) {
		uint64_t len = f->start[j] - f->start[j - 1];
		for (uint64_t t = 2; t + 1 <= len; t++) {
			char thread[64];
			if (t == 2)
				snprintf(thread, sizeof(thread), "D%llu", (unsigned long long)j);
			else
				snprintf(thread, sizeof(thread), "D%llu_%llu",
					 (unsigned long long)j, (unsigned long long)t);
			sat_chain_var(prev, sizeof(prev), j, t - 1);
			sat_chain_var(var, sizeof(var), j, t);
			gen_out_reduction_event(out, thread, UINT64_MAX, 'r', prev, UINT64_MAX, 1);
			gen_out_reduction_event(out, thread, UINT64_MAX, 'w', var, UINT64_MAX, 1);
		}
	}
	/* S_f: every clause is true, then open the guard x */
	for (uint64_t j = 1; j <= f->nclauses; j++) {
		uint64_t len = f->start[j] - f->start[j - 1];
		if (writers == 3)
			snprintf(var, sizeof(var), "c%llu", (unsigned long long)j);
		else
			sat_chain_var(var, sizeof(var), j, len > 2 ? len - 1 : 1);
		gen_out_reduction_event(out, "F", UINT64_MAX, 'r', var, UINT64_MAX, 1);
	}
	gen_out_reduction_event(out, "F", UINT64_MAX, 'w', "x", UINT64_MAX, 1);
}

static const char sat_usage[] =
	"usage: vsc gen sat [--writers 3|2] [-o FILE] CNF-FILE\n"
	"  --writers 3   Section 4.1: 3-Writer program, 6n+1 threads (default)\n"
	"  --writers 2   Section 4.2: 2-Writer program, one more thread per clause\n"
	"the program is consistent with -p 0 iff the formula is satisfiable\n";

int gen_sat(int argc, char **argv)
{
	uint64_t writers = 3, seed = 0;
	const char *outpath = NULL, *pos[1];
	size_t npos;
	const struct gen_opt opts[] = {
		{ "writers", 0, GEN_OPT_U64, &writers, NULL },
		{ "seed", 0, GEN_OPT_U64, &seed, NULL }, /* accepted, unused */
		{ "output", 'o', GEN_OPT_STR, &outpath, NULL },
	};
	int r = gen_parse_opts("sat", sat_usage, argc, argv, opts, sizeof(opts) / sizeof(opts[0]),
			       pos, 1, &npos);
	if (r)
		return r > 0 ? 0 : 2;
	if (npos != 1 || (writers != 2 && writers != 3)) {
		fputs(sat_usage, stderr);
		return 2;
	}
	struct cnf f;
	if (cnf_read(&f, pos[0]))
		return 2;
	struct gen_out *out = gen_out_start(outpath);
	if (out) {
		gen_out_trace_header(out, "sat", argc, argv);
		gen_out_str(out, writers == 3 ? "# paper Section 4.1 (3-Writer)"
					      : "# paper Section 4.2 (2-Writer)");
		gen_out_str(out, " reduction of a CNF with ");
		gen_out_u64(out, f.nvars);
		gen_out_str(out, " variables and ");
		gen_out_u64(out, f.nclauses);
		gen_out_str(out, " clauses:\n# consistent with -p 0 iff satisfiable\n");
		sat_program(out, &f, (int)writers);
	}
	cnf_free(&f);
	return gen_out_end(out);
}

/* ---- random k-SAT --------------------------------------------------------- */

/* One random clause of width distinct variables (width <= 64), each
 * negated with probability 1/2. */
static void cnf_write_clause(struct gen_out *out, struct gen_rng *rng, uint64_t nvars,
			     uint64_t width)
{
	uint64_t chosen[64];

	for (uint64_t k = 0; k < width; k++) {
		uint64_t v;
		bool again;
		do { /* distinct variables in a clause */
			v = 1 + gen_rng_below(rng, nvars);
			again = false;
			for (uint64_t q = 0; q < k; q++)
				again |= chosen[q] == v;
		} while (again);
		chosen[k] = v;
		gen_out_i64(out, gen_rng_chance(rng, 0.5) ? -(int64_t)v : (int64_t)v);
		gen_out_char(out, ' ');
	}
	gen_out_str(out, "0\n");
}

static const char cnf_usage[] =
	"usage: vsc gen cnf --vars N [--ratio R | --clauses M] [--width K] [--seed S] [-o FILE]\n"
	"  random K-SAT (default K = 3, R = 4.26): each clause has K distinct\n"
	"  variables, each negated with probability 1/2\n";

int gen_cnf(int argc, char **argv)
{
	uint64_t nvars = 20, nclauses = 0, width = 3, seed = 0;
	double ratio = 4.26;
	bool clauses_given = false;
	const char *outpath = NULL, *pos[1];
	size_t npos;
	const struct gen_opt opts[] = {
		{ "vars", 0, GEN_OPT_U64, &nvars, NULL },
		{ "ratio", 0, GEN_OPT_DOUBLE, &ratio, NULL },
		{ "clauses", 0, GEN_OPT_U64, &nclauses, &clauses_given },
		{ "width", 0, GEN_OPT_U64, &width, NULL },
		{ "seed", 0, GEN_OPT_U64, &seed, NULL },
		{ "output", 'o', GEN_OPT_STR, &outpath, NULL },
	};
	int r = gen_parse_opts("cnf", cnf_usage, argc, argv, opts, sizeof(opts) / sizeof(opts[0]),
			       pos, 0, &npos);
	if (r)
		return r > 0 ? 0 : 2;
	/* 2^53: beyond it the count is no longer exact, far beyond any use */
	if (!clauses_given && !(ratio >= 0 && ratio * (double)nvars <= 0x1p53)) {
		diag("gen cnf", "--ratio: need 0 <= ratio and ratio x --vars <= 2^53");
		return 2;
	}
	if (!clauses_given)
		nclauses = (uint64_t)(ratio * (double)nvars + 0.5);
	if (width == 0 || width > nvars || width > 64) {
		diag("gen cnf", "need 1 <= --width <= min(--vars, 64)");
		return 2;
	}
	struct gen_out *out = gen_out_start(outpath);
	if (!out)
		return 2;
	struct gen_rng rng;
	gen_rng_seed(&rng, seed);
	gen_out_dimacs_header(out, "cnf", argc, argv, "cnf", nvars, nclauses);
	for (uint64_t j = 0; j < nclauses; j++)
		cnf_write_clause(out, &rng, nvars, width);
	return gen_out_end(out);
}
