/* SPDX-License-Identifier: MIT */
/* Helpers shared by the trace writer's tests: events, writing to a file and
 * reading it back. */
#ifndef VSC_TESTS_TW_TEST_H
#define VSC_TESTS_TW_TEST_H

#include <stdint.h>
#include <stdio.h>

#include "userspace/capture/trace_writer.h"

struct vsc_capture_event tw_event(uint32_t tid, uint64_t seq, int kind, uint64_t addr,
				  int64_t value, int64_t new_value, unsigned size);
/* A fresh temporary path (the file does not exist); free() it. */
char *tw_temp_path(void);
/* The whole file, NUL-terminated; free() it. */
char *tw_slurp(const char *path);
/* The event, init and segment lines of text, without comments. */
char *tw_body(const char *text);
/* Finish w into a temporary file and return its text (w freed). */
char *tw_finish_text(struct trace_writer *w);
/* The number after "KEY: " in a "# KEY: N" line, or -1. */
long long tw_header(const char *text, const char *key);

#endif /* VSC_TESTS_TW_TEST_H */
