/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the .litmus reader of vsc litmus. Any input either
 * parses or gets one FILE:LINE:COL message; a test that parses is taken
 * through everything that follows the parse without running it: the C
 * generator (into memory), the outcome layout, the condition, and the vsc
 * program of an outcome (decided under a tiny time limit). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "userspace/litmus/litmus.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct litmus_test t;
	char err[512];
	int64_t values[4 * LITMUS_MAX_THREADS * LITMUS_MAX_INSNS + LITMUS_MAX_LOCS] = { 0 };

	if (litmus_parse((const char *)data, size, "fuzz.litmus", &t, err, sizeof(err))) {
		if (strncmp(err, "fuzz.litmus:", 12) != 0)
			abort(); /* every refusal says where */
		return 0;
	}
	if (t.thread_count < 1 || t.thread_count > LITMUS_MAX_THREADS)
		abort();
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	if (!out)
		return 0;
	int rc = litmus_gen_c(&t, 10, out, err, sizeof(err));
	fclose(out);
	if (rc == 0 && (len == 0 || !strstr(text, "vsc_lab_emit")))
		abort();
	free(text);
	size_t width = litmus_outcome_width(&t);
	if (width > sizeof(values) / sizeof(values[0]))
		abort();
	for (size_t k = 0; k < width; k++)
		values[k] = (int64_t)(k % 3);
	(void)litmus_outcome_matches(&t, values);
	struct vsc_program *p = litmus_outcome_program(&t, values);
	if (p) {
		VSC_OPTS(vsc_check_opts, opts, .timeout_s = 0.02);
		struct vsc_result *res = NULL;
		if (vsc_check(p, &opts, &res) == 0)
			vsc_result_free(res);
		vsc_program_free(p);
	}
	return 0;
}
