/* SPDX-License-Identifier: MIT */
#include "testutil.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static void collect(void *ctx, const char *message)
{
	struct messages *m = ctx;
	if (m->count < MSG_MAX)
		snprintf(m->text[m->count], MSG_LEN, "%s", message);
	m->count++;
}

struct vsc_trace *parse_bytes(const char *buf, size_t len, struct messages *m)
{
	static struct messages ignored; /* test code only: single-threaded */
	VSC_OPTS(vsc_parse_opts, opts, .filename = "t.vsc", .on_error = collect,
		 .error_ctx = m ? m : &ignored);
	if (m)
		memset(m, 0, sizeof(*m));
	return vsc_trace_parse_buffer(buf, len, &opts);
}

struct vsc_trace *parse_text(const char *text, struct messages *m)
{
	return parse_bytes(text, strlen(text), m);
}

const struct vsc_program *only_program(const struct vsc_trace *trace)
{
	if (!trace || vsc_trace_program_count(trace) != 1)
		return NULL;
	return vsc_trace_program(trace, 0);
}

void dump_program(const char *why, const struct vsc_program *prog)
{
	fprintf(stderr, "---- %s: the program, in the text format:\n", why);
	vsc_program_write(prog, stderr);
	fprintf(stderr, "----\n");
}

struct vsc_result *decide(const struct vsc_program *p, const char *solver, long bound, int minimize)
{
	return decide_jobs(p, solver, bound, minimize, 1);
}

struct vsc_result *decide_jobs(const struct vsc_program *p, const char *solver, long bound,
			       int minimize, unsigned jobs)
{
	VSC_OPTS(vsc_check_opts, opts, .bounded = bound >= 0,
		 .preemptions = bound >= 0 ? (unsigned long)bound : 0, .minimize = minimize,
		 .want_witness = 1, .solver = solver, .jobs = jobs);
	struct vsc_result *res = NULL;

	assert_int_equal(vsc_check(p, &opts, &res), 0);
	return res;
}

void append_event(struct vsc_program *p, unsigned t, uint32_t kind, unsigned var, int64_t value,
		  int64_t new_value)
{
	struct vsc_event e = { .kind = kind, .var = var, .value = value, .new_value = new_value };

	assert_int_equal(vsc_program_append(p, t, &e, 0), 0);
}

unsigned long test_env_number(const char *name, unsigned long fallback)
{
	const char *s = getenv(name);

	return s && *s ? strtoul(s, NULL, 0) : fallback;
}

unsigned test_share(unsigned full)
{
	unsigned long percent = test_env_number("VSC_TEST_PERCENT", 100);

	if (percent == 0 || percent > 100)
		percent = 100;
	unsigned n = (unsigned)((unsigned long long)full * percent / 100);
	return n ? n : 1;
}
