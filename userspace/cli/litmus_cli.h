/* SPDX-License-Identifier: MIT */
/* vsc litmus: the command (litmus.c), running a test (litmus_run.c) and
 * deciding and reporting it (litmus_report.c). */
#ifndef VSC_CLI_LITMUS_H
#define VSC_CLI_LITMUS_H

#include <stdbool.h>
#include <stdint.h>

#include "userspace/litmus/litmus.h"

struct litmus_opts {
	long iterations;
	bool record; /* under vsc record (eBPF), with vsc check's verdicts */
	bool json;
	bool generate; /* write the C test to stdout and stop */
	bool build_only;
	long jobs;
	const char *keep_dir; /* keep each test's files in DIR/NAME */
	const char *cc;
	const char *qemu;
	const char *include_dir;
};

/* litmus_run.c */
int litmus_self_exe(char *buf, size_t len);
int litmus_find_include(const struct litmus_opts *o, char *buf, size_t len);
bool litmus_native(enum litmus_arch arch);
int litmus_spawn(char *const argv[], const char *log);
int litmus_workdir(const struct litmus_opts *o, const struct litmus_test *t, char *dir, size_t len);
void litmus_workdir_remove(const struct litmus_opts *o, const char *dir);
int litmus_build(const struct litmus_test *t, const struct litmus_opts *o, const char *dir,
		 const char *include, char *err, size_t err_len);
int litmus_execute(const struct litmus_test *t, const struct litmus_opts *o, const char *dir,
		   bool record, char *err, size_t err_len);
int litmus_read_outcomes(const char *dir, long iterations, size_t width, int64_t *values, char *err,
			 size_t err_len);

/* litmus_report.c: decide every outcome and execution, print, and return
 * the exit status (0 verdicts agree with the outcomes' SC-ness, 1 some
 * disagree, 3 some unknown or the recording incomplete). */
int litmus_report(const struct litmus_test *t, const struct litmus_opts *o, const char *path,
		  const char *dir, bool recorded, const int64_t *values);

#endif
