/* SPDX-License-Identifier: MIT */
/* Helpers shared by the unit tests: parse text while collecting the error
 * messages, build programs from text, decide with a solver. */
#ifndef VSC_TESTUTIL_H
#define VSC_TESTUTIL_H

#include <stddef.h>
#include <stdint.h>

#include "vsc/vsc.h"

#define MSG_MAX 32
#define MSG_LEN 1024

struct messages {
	char text[MSG_MAX][MSG_LEN];
	int count;
};

/* Parse len bytes as file "t.vsc"; messages (may be NULL) collects errors. */
struct vsc_trace *parse_bytes(const char *buf, size_t len, struct messages *m);
struct vsc_trace *parse_text(const char *text, struct messages *m);
/* The first (only) program of a trace. */
const struct vsc_program *only_program(const struct vsc_trace *trace);
/* vsc_check() with solver (NULL: auto), a bound (-1: none), --min, and
 * the witness asked for; the test fails when it returns an error. */
struct vsc_result *decide(const struct vsc_program *p, const char *solver, long bound,
			  int minimize);
/* The same with `jobs` threads for the independent parts. */
struct vsc_result *decide_jobs(const struct vsc_program *p, const char *solver, long bound,
			       int minimize, unsigned jobs);
/* Append an event to thread t (the test fails when it cannot). */
void append_event(struct vsc_program *p, unsigned t, uint32_t kind, unsigned var, int64_t value,
		  int64_t new_value);
/* Print a program in the text format to stderr (to reproduce a failure). */
void dump_program(const char *why, const struct vsc_program *prog);
/* The number in environment variable name (a seed or count for an
 * offline stress run), or fallback when it is unset or empty. */
unsigned long test_env_number(const char *name, unsigned long fallback);
/* How many of its full count of random programs a property test runs:
 * VSC_TEST_PERCENT percent of full (1-100, default 100), at least one.
 * The emulated ARM64 run and the sanitizer run take a sample: they check
 * that their build computes what the plain one does, on fixed seeds, where
 * the plain run has already checked the algorithms on every program. */
unsigned test_share(unsigned full);

#endif
