/* SPDX-License-Identifier: MIT */
/* Helpers shared by the trace writer's tests (see tw_test.h). */
#include "tw_test.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct vsc_capture_event tw_event(uint32_t tid, uint64_t seq, int kind, uint64_t addr,
				  int64_t value, int64_t new_value, unsigned size)
{
	return (struct vsc_capture_event){ .seq = seq,
					   .addr = addr,
					   .value = value,
					   .new_value = new_value,
					   .ts_ns = 100 + seq * 10 + tid,
					   .pid = 7,
					   .tid = tid,
					   .kind = (uint16_t)kind,
					   .size = (uint16_t)size };
}

char *tw_temp_path(void)
{
	char tmpl[] = "/tmp/vsc-tw-XXXXXX";
	int fd = mkstemp(tmpl);
	assert_true(fd >= 0);
	close(fd);
	unlink(tmpl);
	return strdup(tmpl);
}

char *tw_slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	rewind(f);
	char *text = malloc((size_t)n + 1);
	assert_non_null(text);
	assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
	text[n] = '\0';
	fclose(f);
	return text;
}

char *tw_body(const char *text)
{
	size_t cap = strlen(text) + 1, used = 0;
	char *out = calloc(1, cap), *copy = strdup(text);
	assert_non_null(out);
	assert_non_null(copy);
	for (char *line = strtok(copy, "\n"); line; line = strtok(NULL, "\n")) {
		char *hash = strstr(line, " #");
		if (line[0] == '#' || strcmp(line, "vsc 1") == 0)
			continue;
		if (hash)
			*hash = '\0';
		used += (size_t)snprintf(out + used, cap - used, "%s\n", line);
	}
	free(copy);
	return out;
}

char *tw_finish_text(struct trace_writer *w)
{
	char *path = tw_temp_path();
	assert_int_equal(trace_writer_finish_file(w, path), 0);
	trace_writer_free(w);
	char *text = tw_slurp(path);
	unlink(path);
	free(path);
	return text;
}

long long tw_header(const char *text, const char *key)
{
	char pattern[128];
	snprintf(pattern, sizeof(pattern), "\n# %s: ", key);
	const char *at = strstr(text, pattern);
	return at ? strtoll(at + strlen(pattern), NULL, 10) : -1;
}
