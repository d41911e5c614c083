/* SPDX-License-Identifier: MIT */
/* vsc gen: the instance generators (not part of libvsc). The command shell
 * userspace/cli/gen.c picks a family; each family is a file here, and
 * common.c holds what they share (random numbers, output, options). */
#ifndef VSC_GEN_GEN_H
#define VSC_GEN_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* xoshiro256** seeded through splitmix64: fast, and the same stream on
 * every platform for a given --seed. */
struct gen_rng {
	uint64_t s[4];
};

void gen_rng_seed(struct gen_rng *rng, uint64_t seed);
uint64_t gen_rng_next(struct gen_rng *rng);
/* Uniform in [0, bound), bound > 0. */
uint64_t gen_rng_below(struct gen_rng *rng, uint64_t bound);
/* True with probability p (0 <= p <= 1). */
bool gen_rng_chance(struct gen_rng *rng, double p);

/* A buffered writer that formats numbers by hand: generating 10^7 events
 * through fprintf would cost more than solving them. */
struct gen_out {
	FILE *file;
	const char *path; /* for messages */
	char buf[1 << 16];
	size_t len;
	bool failed;
};

int gen_out_open(struct gen_out *out, const char *path); /* NULL or "-": stdout */
int gen_out_close(struct gen_out *out);                  /* 0, or -1 after an error */
void gen_out_str(struct gen_out *out, const char *s);
void gen_out_char(struct gen_out *out, char c);
void gen_out_i64(struct gen_out *out, int64_t v);
void gen_out_u64(struct gen_out *out, uint64_t v);
/* "PREFIXN", e.g. "T3" or "x17". */
void gen_out_name(struct gen_out *out, const char *prefix, uint64_t n);

/* One event line: "THREAD KIND VAR VALUE [NEW] [@TS]\n", the names
 * PREFIXN (or PREFIX alone when N is UINT64_MAX). kind is 'r', 'w' or 'u'.
 * ts < 0 means no timestamp. */
void gen_out_event(struct gen_out *out, const char *thread_prefix, uint64_t thread, char kind,
		   const char *var_prefix, uint64_t var, int64_t value, int64_t new_value,
		   int64_t ts);

/* One event line of the paper's reductions, "THREAD KIND VAR VALUE" (no
 * RMW, no timestamp): the thread and variable names take the number ti /
 * vi unless it is UINT64_MAX (a name of its own, such as Init or s). */
void gen_out_reduction_event(struct gen_out *out, const char *thread, uint64_t ti, char kind,
			     const char *var, uint64_t vi, int64_t value);

/* The output of a family: gen_out_start() allocates and opens (NULL after
 * saying why), gen_out_end() closes and frees, and returns the exit status
 * (0, or 2 when out is NULL or writing failed). */
struct gen_out *gen_out_start(const char *path);
int gen_out_end(struct gen_out *out);
/* "# vsc gen FAMILY ARGS..." */
void gen_out_command(struct gen_out *out, const char *family, int argc, char **argv);
/* The first lines of a trace: "vsc 1" and the command. */
void gen_out_trace_header(struct gen_out *out, const char *family, int argc, char **argv);
/* The first lines of a DIMACS file: the command as a comment, then
 * "p KIND A B" ("p cnf VARS CLAUSES", "p edge VERTICES EDGES"). */
void gen_out_dimacs_header(struct gen_out *out, const char *family, int argc, char **argv,
			   const char *kind, uint64_t a, uint64_t b);

/* ---- DIMACS input --------------------------------------------------------- */

/* A DIMACS text file ("-": standard input) read line by line. */
struct gen_dimacs {
	FILE *in;
	const char *path;
	const char *who; /* "gen sat": for messages */
	uint64_t lineno;
	char line[4096];
};

/* 0, or -1 after saying why. */
int gen_dimacs_open(struct gen_dimacs *d, const char *path, const char *who);
/* The next line that holds something (not blank, not a 'c' comment), its
 * leading blanks skipped; NULL at the end. */
char *gen_dimacs_next(struct gen_dimacs *d);
/* "vsc WHO: PATH:LINE: what" */
void gen_dimacs_error(const struct gen_dimacs *d, const char *what);
void gen_dimacs_close(struct gen_dimacs *d);

/* ---- command-line options ------------------------------------------------ */

/* A tiny long-option parser: "--name VALUE", "--name=VALUE", "-o FILE",
 * flags without value. Positional arguments are collected in order. */
enum gen_opt_type {
	GEN_OPT_FLAG,
	GEN_OPT_U64,
	GEN_OPT_I64,
	GEN_OPT_DOUBLE,   /* finite */
	GEN_OPT_FRACTION, /* a double from 0 to 1 (a probability) */
	GEN_OPT_STR,
};

struct gen_opt {
	const char *name; /* long name without "--" */
	char short_name;  /* 0 if none */
	enum gen_opt_type type;
	void *value; /* bool*, uint64_t*, int64_t*, double*, const char** */
	bool *seen;  /* optional: set when given */
};

/* Returns 0; 1 after printing usage for --help/-h; or -1 after printing
 * "vsc gen FAMILY: ..." to stderr. positional receives up to
 * max_positional arguments. */
int gen_parse_opts(const char *family, const char *usage, int argc, char **argv,
		   const struct gen_opt *opts, size_t nopts, const char **positional,
		   size_t max_positional, size_t *npositional);

/* Parse one value; 0 or -1 (a double must be finite: not nan, not inf). */
int gen_parse_u64(const char *s, uint64_t *v);
int gen_parse_i64(const char *s, int64_t *v);
int gen_parse_double(const char *s, double *v);

/* ---- families ------------------------------------------------------------ */
int gen_random(int argc, char **argv);
int gen_sc(int argc, char **argv);
int gen_cnf(int argc, char **argv);
int gen_sat(int argc, char **argv);
int gen_graph(int argc, char **argv);
int gen_indset(int argc, char **argv);
int gen_ring(int argc, char **argv);

/* ---- shared by the random-program families -------------------------------- */

enum gen_init {
	GEN_INIT_NONE,
	GEN_INIT_KNOWN,
	GEN_INIT_UNKNOWN,
	GEN_INIT_MIX
};

/* "none", "known", "unknown", "mix"; 0 or -1. */
int gen_parse_init(const char *s, enum gen_init *init);

/* The options of a random program's shape, shared by `gen random` and
 * `gen sc`, and --seed: rows of their gen_opt tables, for a params struct p
 * with these fields and the --init string init. */
#define GEN_SHAPE_OPTS(p, init)                                              \
	{ "threads", 0, GEN_OPT_U64, &(p)->threads, NULL },                  \
		{ "events", 0, GEN_OPT_U64, &(p)->events, NULL },            \
		{ "total", 0, GEN_OPT_U64, &(p)->total, &(p)->total_given }, \
		{ "vars", 0, GEN_OPT_U64, &(p)->vars, NULL },                \
		{ "values", 0, GEN_OPT_U64, &(p)->values, NULL },            \
		{ "writers", 0, GEN_OPT_U64, &(p)->writers, NULL },          \
		{ "reads", 0, GEN_OPT_FRACTION, &(p)->reads, NULL },         \
		{ "rmw", 0, GEN_OPT_FRACTION, &(p)->rmw, NULL },             \
		{ "init", 0, GEN_OPT_STR, &(init), NULL },                   \
	{                                                                    \
		"seed", 0, GEN_OPT_U64, &(p)->seed, NULL                     \
	}

/* Which threads may write which variable: variable x is written by threads
 * (x*w + j) mod k for j < w, so every thread writes something as soon as
 * vars*w >= k. writable[t] lists the variables thread t may write. */
struct gen_writers {
	uint64_t threads;
	uint64_t *offset; /* threads + 1 entries into var */
	uint64_t *var;
};

int gen_writers_init(struct gen_writers *gw, uint64_t threads, uint64_t vars,
		     uint64_t writers); /* writers 0: every thread */
void gen_writers_free(struct gen_writers *gw);
static inline uint64_t gen_writers_count(const struct gen_writers *gw, uint64_t t)
{
	return gw->offset[t + 1] - gw->offset[t];
}

/* Write "# vsc gen ARGS..." so a file says how it was made. */
void gen_out_command(struct gen_out *out, const char *family, int argc, char **argv);

#endif
