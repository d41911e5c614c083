/* SPDX-License-Identifier: MIT */
/* libFuzzer target: parse, then decide every program that parses with every
 * solver under a tiny time limit. Every witness must pass the verifier with
 * the preemptions the result claims, within the bound; solvers that decide
 * (not unknown, not "does not apply") must agree on the verdict and, with
 * --min, on the least number of preemptions. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vsc/vsc.h"

#define MAX_EVENTS 64
#define TIME_LIMIT_S 0.02

static void quiet(void *ctx, const char *message)
{
	(void)ctx;
	(void)message;
}

static void check_witness(const struct vsc_program *p, const struct vsc_result *res, long bound)
{
	const uint32_t *w;
	size_t n = vsc_result_witness(res, &w);
	long pre = -1;
	char why[128];

	if (vsc_result_verdict(res) != VSC_CONSISTENT) {
		if (n || vsc_result_preemptions(res) != -1)
			abort();
		return;
	}
	if (n != vsc_program_event_count(p))
		abort();
	if (vsc_witness_verify(p, w, n, &pre, why, sizeof(why))) {
		fprintf(stderr, "bad witness from %s: %s\n", vsc_result_solver(res), why);
		abort();
	}
	if (pre != vsc_result_preemptions(res) || (bound >= 0 && pre > bound))
		abort();
}

static void decide(const struct vsc_program *p, unsigned mode, long bound)
{
	int verdict = -1;
	long least = -2;

	for (const char *const *name = vsc_solver_names(); *name; name++) {
		struct vsc_result *res;
		VSC_OPTS(vsc_check_opts, o, .solver = *name, .timeout_s = TIME_LIMIT_S,
			 .want_witness = true, .minimize = mode & 1, .bounded = bound >= 0,
			 .preemptions = bound >= 0 ? (unsigned long)bound : 0);
		int err = vsc_check(p, &o, &res);
		if (err == -EINVAL || err == -ENOTSUP || err == -ENOMEM)
			continue;
		if (err)
			abort();
		if (vsc_result_verdict(res) != VSC_UNKNOWN) {
			check_witness(p, res, bound);
			if (verdict >= 0 && (int)vsc_result_verdict(res) != verdict) {
				fprintf(stderr, "solvers disagree on the verdict (%s)\n", *name);
				abort();
			}
			verdict = (int)vsc_result_verdict(res);
			if (mode & 1) {
				if (least != -2 && vsc_result_preemptions(res) != least) {
					fprintf(stderr, "solvers disagree on the least (%s)\n",
						*name);
					abort();
				}
				least = vsc_result_preemptions(res);
			}
		}
		vsc_result_free(res);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	VSC_OPTS(vsc_parse_opts, opts, .filename = "f.vsc", .on_error = quiet);
	struct vsc_trace *trace;
	unsigned mode = size ? data[0] : 0;

	trace = vsc_trace_parse_buffer((const char *)data, size, &opts);
	if (!trace)
		return 0;
	for (size_t i = 0; i < vsc_trace_program_count(trace) && i < 4; i++) {
		const struct vsc_program *p = vsc_trace_program(trace, i);
		if (vsc_program_event_count(p) > MAX_EVENTS)
			continue;
		decide(p, mode, -1);
		decide(p, mode | 1, -1);
		decide(p, 0, (long)(mode % 4));
	}
	vsc_trace_free(trace);
	return 0;
}
