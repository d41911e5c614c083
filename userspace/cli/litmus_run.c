/* SPDX-License-Identifier: MIT */
/* vsc litmus, the running part: write the C test, build it, run it (under
 * `vsc record`, or qemu-user for another architecture), and read back the
 * outcome of every iteration. */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "litmus_cli.h"

/* The directory of the running vsc ("/usr/local/bin", "build"). */
static int self_dir(char *buf, size_t len)
{
	char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
	if (n < 0)
		return -errno;
	path[n] = '\0';
	snprintf(buf, len, "%s", dirname(path));
	return 0;
}

int litmus_self_exe(char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

/* Where <vsc/lab.h> is: --include, else ../include next to vsc (the build
 * tree and an installed prefix alike). */
int litmus_find_include(const struct litmus_opts *o, char *buf, size_t len)
{
	char dir[PATH_MAX], probe[PATH_MAX + 32];

	if (o->include_dir) {
		snprintf(buf, len, "%s", o->include_dir);
		return 0;
	}
	if (self_dir(dir, sizeof(dir)))
		return -ENOENT;
	snprintf(probe, sizeof(probe), "%s/../include/vsc/lab.h", dir);
	if (access(probe, R_OK))
		return -ENOENT;
	snprintf(buf, len, "%s/../include", dir);
	return 0;
}

bool litmus_native(enum litmus_arch arch)
{
	struct utsname u;
	if (uname(&u))
		return false;
	if (arch == LITMUS_X86)
		return strcmp(u.machine, "x86_64") == 0;
	return strcmp(u.machine, "aarch64") == 0;
}

/* Run argv with stdout and stderr into log; returns its exit status, or
 * -1 (with the reason in the log) when it could not run or was killed. */
int litmus_spawn(char *const argv[], const char *log)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		FILE *f = freopen(log, "w", stdout);
		if (!f || dup2(fileno(stdout), STDERR_FILENO) < 0)
			_exit(127);
		execvp(argv[0], argv);
		fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	FILE *f = fopen(log, "a");
	if (f) {
		fprintf(f, "%s: killed by signal %d\n", argv[0], WTERMSIG(status));
		fclose(f);
	}
	return -1;
}

static bool uses_swap(const struct litmus_test *t)
{
	for (int th = 0; th < t->thread_count; th++)
		for (int k = 0; k < t->thread[th].insn_count; k++)
			if (t->thread[th].insn[k].op == LITMUS_SWAP)
				return true;
	return false;
}

int litmus_build(const struct litmus_test *t, const struct litmus_opts *o, const char *dir,
		 const char *include, char *err, size_t err_len)
{
	char src[PATH_MAX], bin[PATH_MAX], log[PATH_MAX], inc[PATH_MAX + 2];
	const char *cc = o->cc;
	FILE *out;

	snprintf(src, sizeof(src), "%s/test.c", dir);
	snprintf(bin, sizeof(bin), "%s/test", dir);
	snprintf(log, sizeof(log), "%s/build.log", dir);
	snprintf(inc, sizeof(inc), "-I%s", include);
	out = fopen(src, "w");
	if (!out) {
		snprintf(err, err_len, "%s: %s", src, strerror(errno));
		return -errno;
	}
	int rc = litmus_gen_c(t, o->iterations, out, err, err_len);
	if (fclose(out) && !rc)
		rc = -EIO;
	if (rc)
		return rc;
	if (!cc)
		cc = litmus_native(t->arch) ? "cc" : "aarch64-linux-gnu-gcc";
	char *argv[16] = { (char *)cc, "-std=gnu11", "-O2", "-pthread", inc, "-o", bin, src };
	int n = 8;
	if (!litmus_native(t->arch))
		argv[n++] = "-static"; /* runs under qemu-user without a loader */
	if (t->arch == LITMUS_AARCH64 && uses_swap(t))
		argv[n++] = "-march=armv8.1-a";
	argv[n] = NULL;
	if (litmus_spawn(argv, log) != 0) {
		snprintf(err, err_len, "building the C test failed (%s %s: see %s)", cc, src, log);
		return -EINVAL;
	}
	return 0;
}

int litmus_execute(const struct litmus_test *t, const struct litmus_opts *o, const char *dir,
		   bool record, char *err, size_t err_len)
{
	char bin[PATH_MAX], outcomes[PATH_MAX], trace[PATH_MAX], log[PATH_MAX], self[PATH_MAX];
	char *argv[12];
	int n = 0;

	snprintf(bin, sizeof(bin), "%s/test", dir);
	snprintf(outcomes, sizeof(outcomes), "%s/outcomes.txt", dir);
	snprintf(trace, sizeof(trace), "%s/trace.vsc", dir);
	snprintf(log, sizeof(log), "%s/run.log", dir);
	if (record) {
		if (litmus_self_exe(self, sizeof(self)))
			return -ENOENT;
		argv[n++] = self;
		argv[n++] = "record";
		argv[n++] = "-o";
		argv[n++] = trace;
		argv[n++] = "--";
	} else if (!litmus_native(t->arch)) {
		argv[n++] = (char *)(o->qemu ? o->qemu : "qemu-aarch64");
	}
	argv[n++] = bin;
	argv[n++] = outcomes;
	argv[n] = NULL;
	if (litmus_spawn(argv, log) != 0) {
		snprintf(err, err_len, "running the test failed (see %s)", log);
		return -EIO;
	}
	return 0;
}

/* The outcomes file: N lines "i v1 v2 ..." in iteration order. */
int litmus_read_outcomes(const char *dir, long iterations, size_t width, int64_t *values, char *err,
			 size_t err_len)
{
	char path[PATH_MAX];
	FILE *f;
	long i = 0;

	snprintf(path, sizeof(path), "%s/outcomes.txt", dir);
	f = fopen(path, "r");
	if (!f) {
		snprintf(err, err_len, "%s: %s", path, strerror(errno));
		return -EIO;
	}
	for (; i < iterations; i++) {
		long index;
		if (fscanf(f, "%ld", &index) != 1 || index != i)
			break;
		size_t k = 0;
		for (; k < width; k++) {
			long long v;
			if (fscanf(f, "%lld", &v) != 1)
				break;
			values[(size_t)i * width + k] = v;
		}
		if (k < width)
			break;
	}
	fclose(f);
	if (i < iterations) {
		snprintf(err, err_len, "%s: iteration %ld missing or malformed", path, i);
		return -EIO;
	}
	return 0;
}

/* mkdir -p for one level below an existing directory, or a fresh one. */
int litmus_workdir(const struct litmus_opts *o, const struct litmus_test *t, char *dir, size_t len)
{
	if (o->keep_dir) {
		if (mkdir(o->keep_dir, 0755) && errno != EEXIST)
			return -errno;
		snprintf(dir, len, "%s/%s", o->keep_dir, t->name);
		if (mkdir(dir, 0755) && errno != EEXIST)
			return -errno;
		return 0;
	}
	const char *tmp = getenv("TMPDIR");
	snprintf(dir, len, "%s/vsc-litmus-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	return mkdtemp(dir) ? 0 : -errno;
}

void litmus_workdir_remove(const struct litmus_opts *o, const char *dir)
{
	static const char *const files[] = { "test.c",    "test",      "outcomes.txt",
					     "trace.vsc", "build.log", "run.log" };
	char path[PATH_MAX];

	if (o->keep_dir)
		return;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		unlink(path);
	}
	rmdir(dir);
}
