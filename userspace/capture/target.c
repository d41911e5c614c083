/* SPDX-License-Identifier: MIT */
/* The recorded process: launch, attach, follow, stop, read (see target.h). */
#include "target.h"
#include "userspace/util/array.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/audit.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <elf.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

__attribute__((format(printf, 2, 3))) static void set_message(struct vsc_target_error *err,
							      const char *fmt, ...)
{
	va_list ap;
	if (!err)
		return;
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
}

/* Whether a deferred report of a stop is still tid's stop: a SIGKILL (an
 * exec of another thread, a group exit) takes a thread out of any stop
 * to its exit stop, whose own report then waits in the kernel. */
static bool report_current(pid_t tid, int status)
{
	siginfo_t si;
	if (!WIFSTOPPED(status))
		return true;
	if (ptrace(PTRACE_GETSIGINFO, tid, 0, &si))
		return false; /* not stopped any more */
	bool exit_now = si.si_code == (SIGTRAP | (PTRACE_EVENT_EXIT << 8));
	return exit_now == ((status >> 16) == PTRACE_EVENT_EXIT);
}

/* waitpid, the reports deferred by a source first (vsc_target_defer). */
static pid_t wait_report(struct vsc_target *t, pid_t which, int *status, int flags)
{
	for (size_t i = 0; i < t->deferred_count;) {
		pid_t tid = t->deferred[i].tid;
		int st = t->deferred[i].status;
		if (which != -1 && tid != which) {
			i++;
			continue;
		}
		t->deferred[i] = t->deferred[--t->deferred_count];
		if (!report_current(tid, st))
			continue; /* stale: the kernel has its next report */
		if (status)
			*status = st;
		return tid;
	}
	return waitpid(which, status, flags);
}

int vsc_target_defer(struct vsc_target *t, pid_t tid, int status)
{
	if (ARRAY_RESERVE(t->deferred, t->deferred_cap, t->deferred_count + 1))
		return -ENOMEM;
	t->deferred[t->deferred_count++] = (struct vsc_target_report){ tid, status };
	return 0;
}

static int other_threads(pid_t pid);
/* From thread tid's /proc/PID/task/TID/status: the signals pending for it
 * alone (SigPnd, not the process's shared ones), those it blocks (SigBlk)
 * and its tracer's pid (TracerPid, 0: none). */
struct thread_status {
	unsigned long long pending, blocked;
	pid_t tracer;
};
static int thread_status(pid_t pid, pid_t tid, struct thread_status *st);
static char stat_read(const char *path, unsigned long long *start, unsigned *flags);

/* /proc/PID/mem refused with ESRCH: gone, or its main thread a zombie
 * (it left by pthread_exit) while other threads run on. */
static int gone_or_headless(pid_t pid, struct vsc_target_error *err)
{
	char path[64], state;
	int others;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	state = stat_read(path, NULL, NULL);
	if ((state == 'Z' || state == 'X') && (others = other_threads(pid)) > 0)
		set_message(err,
			    "cannot record process %ld: its main thread has exited (a zombie) "
			    "while %d other threads run on, and a process is reached through "
			    "its main thread (its memory, the probes); record it from its "
			    "start (vsc record -- CMD)",
			    (long)pid, others);
	else
		set_message(err, "no such process: %ld", (long)pid);
	return -ESRCH;
}

int vsc_target_check_pid(pid_t pid, struct vsc_target_error *err)
{
	char path[64];
	if (pid <= 0) {
		set_message(err, "no such process: %ld", (long)pid);
		return -ESRCH;
	}
	if (kill(pid, 0) && errno == ESRCH) {
		set_message(err, "no such process: %ld", (long)pid);
		return -ESRCH;
	}
	/* The kernel applies the ptrace access rules (PTRACE_MODE_ATTACH) to
	 * /proc/PID/mem: the same rules that let a debugger attach. */
	snprintf(path, sizeof(path), "/proc/%ld/mem", (long)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		if (e == ENOENT) {
			set_message(err, "no such process: %ld", (long)pid);
			return -ESRCH;
		}
		if (e == ESRCH)
			return gone_or_headless(pid, err);
		set_message(err,
			    "not allowed to trace process %ld (%s): the kernel's ptrace rules "
			    "refuse it; run as its owner with ptrace allowed, or as root",
			    (long)pid, strerror(e));
		return e == EACCES ? -EPERM : -e;
	}
	close(fd);
	return 0;
}

static void read_exe(struct vsc_target *t)
{
	char link[64];
	snprintf(link, sizeof(link), "/proc/%ld/exe", (long)t->pid);
	ssize_t n = readlink(link, t->exe, sizeof(t->exe) - 1);
	t->exe[n > 0 ? n : 0] = '\0';
	char *deleted = n > 0 ? strstr(t->exe, " (deleted)") : NULL;
	if (deleted)
		*deleted = '\0';
}

/* The state letter of /proc/.../stat at path: 0 when there is no such
 * file, '?' when it cannot be read; *start and *flags (when not NULL): the
 * start time and the task's flags, 0 when not read. All follow the name in parentheses, which may
 * hold ") Z" itself: the last ')' ends the name. */
static char stat_read(const char *path, unsigned long long *start, unsigned *flags)
{
	char line[1024], *end, state = 0;
	unsigned long long at = 0;
	unsigned task_flags = 0;
	FILE *f = fopen(path, "re");

	if (start)
		*start = 0;
	if (flags)
		*flags = 0;
	if (!f)
		return 0;
	end = fgets(line, sizeof(line), f) ? strrchr(line, ')') : NULL;
	fclose(f);
	/* the state, the flags (field 9), the start time (proc(5): field 22) */
	if (!end || sscanf(end + 1,
			   " %c %*d %*d %*d %*d %*d %u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d "
			   "%*d %llu",
			   &state, &task_flags, &at) < 1)
		return '?';
	if (start)
		*start = at;
	if (flags)
		*flags = task_flags;
	return state;
}

/* The start time of process pid, 0 when it cannot be read. */
static unsigned long long start_time(pid_t pid)
{
	char path[64];
	unsigned long long start;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	stat_read(path, &start, NULL);
	return start;
}

int vsc_target_attach(struct vsc_target *t, pid_t pid, struct vsc_target_error *err)
{
	memset(t, 0, sizeof(*t));
	int e = vsc_target_check_pid(pid, err);
	if (e)
		return e;
	t->pid = pid;
	t->start_time = start_time(pid);
	read_exe(t);
	if (!t->exe[0]) {
		set_message(err, "cannot read the executable of process %ld (%s)", (long)pid,
			    strerror(errno ? errno : EPERM));
		return -EPERM;
	}
	return 0;
}

/* The child: wait until the parent has seized it, then exec; an exec
 * that fails sends its errno through fail. */
static void __attribute__((noreturn))
launch_child(const int go[2], const int fail[2], char *const argv[], bool stdout_to_stderr,
	     const sigset_t *mask)
{
	char c;

	if (mask)
		sigprocmask(SIG_SETMASK, mask, NULL);
	close(go[1]);
	close(fail[0]);
	if (read(go[0], &c, 1) != 1)
		_exit(127);
	if (stdout_to_stderr && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
		_exit(127);
	execvp(argv[0], argv);
	int e = errno;
	if (write(fail[1], &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

/* Wait for the exec stop: the new program is mapped, nothing of it ran
 * yet. */
static int wait_exec_stop(struct vsc_target *t, const char *name, struct vsc_target_error *err)
{
	for (;;) {
		int status;
		if (waitpid(t->pid, &status, __WALL) < 0) {
			int e = errno;
			set_message(err, "cannot follow %s: %s", name, strerror(e));
			return -e;
		}
		if (WIFEXITED(status) || WIFSIGNALED(status)) {
			t->ended = true;
			t->wait_status = status;
			set_message(err, "%s ended before it ran", name);
			return -ECHILD;
		}
		if (WIFSTOPPED(status) && (status >> 16) == PTRACE_EVENT_EXEC)
			return 0;
		/* anything else before the exec: pass a signal on */
		int sig = WIFSTOPPED(status) && (status >> 16) == 0 ? WSTOPSIG(status) : 0;
		ptrace(PTRACE_CONT, t->pid, 0, sig);
	}
}

int vsc_target_launch(struct vsc_target *t, char *const argv[], bool stdout_to_stderr,
		      const sigset_t *child_mask, struct vsc_target_error *err)
{
	int go[2], fail[2];
	memset(t, 0, sizeof(*t));
	if (pipe2(go, O_CLOEXEC) || pipe2(fail, O_CLOEXEC)) {
		set_message(err, "cannot make a pipe: %s", strerror(errno));
		return -errno;
	}
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		set_message(err, "cannot fork: %s", strerror(e));
		return -e;
	}
	if (pid == 0)
		launch_child(go, fail, argv, stdout_to_stderr, child_mask);
	close(go[0]);
	close(fail[1]);
	t->pid = pid;
	t->launched = true;
	int e = 0;
	if (ptrace(PTRACE_SEIZE, pid, 0, PTRACE_O_TRACEEXEC | PTRACE_O_TRACEEXIT))
		e = errno;
	if (write(go[1], "g", 1) != 1 && !e)
		e = errno;
	close(go[1]);
	int child_errno = 0;
	ssize_t n = read(fail[0], &child_errno, sizeof(child_errno));
	close(fail[0]);
	if (e || n == (ssize_t)sizeof(child_errno)) {
		if (!e)
			e = child_errno;
		set_message(err, "cannot run %s: %s", argv[0], strerror(e));
		kill(pid, SIGKILL);
		waitpid(pid, NULL, __WALL);
		t->ended = true;
		return -e;
	}
	if ((e = wait_exec_stop(t, argv[0], err)))
		return e;
	read_exe(t);
	return 0;
}

/* AT_ENTRY of the program just exec'd: where the loader jumps when every
 * library it needs is mapped and relocated. */
static int read_entry(pid_t pid, uint64_t *entry)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%ld/auxv", (long)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return -errno;
	uint64_t pair[2];
	int err = -ENOENT;
	while (fread(pair, sizeof(pair), 1, f) == 1 && pair[0] != AT_NULL)
		if (pair[0] == AT_ENTRY) {
			*entry = pair[1];
			err = 0;
			break;
		}
	fclose(f);
	return err;
}

static int get_regs(pid_t pid, struct user_regs_struct *regs)
{
	struct iovec iov = { regs, sizeof(*regs) };
	return ptrace(PTRACE_GETREGSET, pid, (void *)NT_PRSTATUS, &iov) ? -errno : 0;
}

static int set_regs(pid_t pid, struct user_regs_struct *regs)
{
	struct iovec iov = { regs, sizeof(*regs) };
	return ptrace(PTRACE_SETREGSET, pid, (void *)NT_PRSTATUS, &iov) ? -errno : 0;
}

#if defined(__x86_64__) || defined(__aarch64__)
/* Run until the trap at entry (whose first word was word): the word goes
 * back, and the program counter to entry. */
static int wait_entry_trap(struct vsc_target *t, uint64_t entry, long word)
{
	for (;;) {
		int status;
		if (waitpid(t->pid, &status, __WALL) < 0)
			return -errno;
		if (WIFEXITED(status) || WIFSIGNALED(status)) {
			t->ended = true;
			t->wait_status = status;
			return -ECHILD;
		}
		if (!WIFSTOPPED(status))
			continue;
		int event = status >> 16, sig = WSTOPSIG(status);
		if (event == PTRACE_EVENT_EXIT) {
			t->at_exit = true; /* the loader gave up */
			return -ECHILD;
		}
		struct user_regs_struct regs;
		if (event == 0 && sig == SIGTRAP && get_regs(t->pid, &regs) == 0) {
#if defined(__x86_64__)
			bool at_entry = regs.rip == entry + 1;
			regs.rip = entry;
#else
			bool at_entry = regs.pc == entry;
#endif
			if (at_entry) {
				if (ptrace(PTRACE_POKETEXT, t->pid, (void *)entry, (void *)word))
					return -errno;
				return set_regs(t->pid, &regs);
			}
		}
		ptrace(PTRACE_CONT, t->pid, 0, event ? 0 : sig);
	}
}
#endif

int vsc_target_run_to_entry(struct vsc_target *t)
{
#if defined(__x86_64__) || defined(__aarch64__)
	uint64_t entry = 0;
	int err = read_entry(t->pid, &entry);
	if (err)
		return err;
	errno = 0;
	long word = ptrace(PTRACE_PEEKTEXT, t->pid, (void *)entry, 0);
	if (errno)
		return -errno;
#if defined(__x86_64__)
	long trap = (word & ~0xffL) | 0xcc; /* int3 */
#else
	long trap = (word & ~0xffffffffL) | 0xd4200000L; /* brk #0 */
#endif
	if (ptrace(PTRACE_POKETEXT, t->pid, (void *)entry, (void *)trap))
		return -errno;
	if (ptrace(PTRACE_CONT, t->pid, 0, 0))
		return -errno;
	return wait_entry_trap(t, entry, word);
#else
	(void)t;
	return -ENOTSUP; /* probes in libraries loaded later attach at the rescan */
#endif
}

int vsc_target_start(struct vsc_target *t)
{
	return ptrace(PTRACE_CONT, t->pid, 0, 0) ? -errno : 0;
}

static bool is_stop_signal(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

/* A SIGTRAP the kernel raised for a debug exception of our watchpoints
 * rather than for the program: a breakpoint the perf handler did not take
 * (TRAP_HWBKPT), or, on x86-64, a debug exception whose DR6 names no cause
 * (TRAP_BRKPT from exc_debug, which the kernel takes for an ICEBP: seen on
 * virtual machines when DR6 is lost). int3 is SI_KERNEL and kill() SI_USER
 * or SI_TKILL, so the program's own traps differ; only an ICEBP (int1)
 * cannot be told apart, and is taken for ours. */
static bool stray_trap(pid_t tid)
{
	siginfo_t si;
	if (ptrace(PTRACE_GETSIGINFO, tid, 0, &si) || si.si_signo != SIGTRAP)
		return false;
#if defined(__x86_64__)
	return si.si_code == TRAP_HWBKPT || si.si_code == TRAP_BRKPT;
#else
	return si.si_code == TRAP_HWBKPT; /* TRAP_BRKPT is a brk of the program */
#endif
}

/* The signal a stop of tid goes on with: none for an event stop, none for
 * a trap of our watchpoints (counted in t->stray_traps), else its own; -1
 * when the source's on_signal found it at another stop since (killed
 * meanwhile: its exit stop), whose report it deferred: not to be let go
 * from here. */
static int signal_to_pass(struct vsc_target *t, pid_t tid, int status)
{
	int sig = WSTOPSIG(status);
	if ((status >> 16) != 0)
		return 0;
	if (t->on_signal)
		return t->on_signal(t->on_signal_arg, tid, sig);
	if (sig == SIGTRAP && t->trace_threads && stray_trap(tid)) {
		t->stray_traps++;
		return 0;
	}
	return sig;
}

/* A stop of tid that is not ours to keep: a group-stop stays stopped
 * until SIGCONT, as without us (PTRACE_LISTEN); any other stop (an
 * interrupt, a new thread's first stop, an event, a signal) goes on, with
 * its signal (signal_to_pass). */
static void pass_stop(struct vsc_target *t, pid_t tid, int status)
{
	int sig;
	if ((status >> 16) == PTRACE_EVENT_STOP && is_stop_signal(WSTOPSIG(status)))
		ptrace(PTRACE_LISTEN, tid, 0, 0);
	else if ((sig = signal_to_pass(t, tid, status)) >= 0)
		ptrace(PTRACE_CONT, tid, 0, sig);
}

static void reap_traced_zombies(struct vsc_target *t);

/* visit(pid, tid, arg) for each thread of process pid in /proc/PID/task
 * (the main thread too when with_main), until one returns non-zero: that
 * is returned; 0 after the last; -errno when the list cannot be read
 * (-ENOENT: the process is gone). A thread listed may be gone by the time
 * it is visited: each visitor takes that as its own answer. */
static int each_thread(pid_t pid, bool with_main, int (*visit)(pid_t pid, pid_t tid, void *arg),
		       void *arg)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%ld/task", (long)pid);
	DIR *dir = opendir(path);
	if (!dir)
		return -errno;
	int r = 0;
	struct dirent *d;
	while (!r && (d = readdir(dir))) {
		long tid = strtol(d->d_name, NULL, 10);
		if (tid > 0 && (with_main || tid != pid))
			r = visit(pid, (pid_t)tid, arg);
	}
	closedir(dir);
	return r;
}

static int count_thread(pid_t pid, pid_t tid, void *n)
{
	(void)pid, (void)tid;
	++*(int *)n;
	return 0;
}

/* Threads of the process other than its main thread (0 when it is gone). */
static int other_threads(pid_t pid)
{
	int n = 0;
	each_thread(pid, false, count_thread, &n);
	return n;
}

#define TASK_EXITING 0x4u     /* PF_EXITING in /proc/.../stat's flags */
#define KILL_PENDING 0x100ull /* SIGKILL's bit in SigPnd */

/* Whether thread tid of pid is on its way out of a group exit (exit(),
 * a fatal signal: the kernel sends every thread SIGKILL, and each sets
 * PF_EXITING as it leaves) or gone. A main thread that left by its own
 * pthread_exit leaves the others running, with neither. */
static bool thread_leaving(pid_t pid, pid_t tid)
{
	char path[96];
	struct thread_status st;
	if (thread_status(pid, tid, &st) || (st.pending & KILL_PENDING))
		return true;
	snprintf(path, sizeof(path), "/proc/%ld/task/%ld/stat", (long)pid, (long)tid);
	unsigned flags;
	char state = stat_read(path, NULL, &flags);
	return !state || state == '?' || (flags & TASK_EXITING);
}

static int thread_staying(pid_t pid, pid_t tid, void *arg)
{
	(void)arg;
	return !thread_leaving(pid, tid);
}

/* Whether every thread but the main one is leaving (thread_leaving). */
static bool others_leaving(pid_t pid)
{
	return each_thread(pid, false, thread_staying, NULL) <= 0;
}

/* A process we do not trace: 1 (and t->ended) once it is gone (its pid
 * another process's now), or a zombie whose other threads are gone too;
 * 1 and t->leader_gone (how many threads run on) while the main thread is
 * a zombie and others run; else 0. The main thread dies first
 * when the process is killed; until the last thread is gone, some may not
 * have passed the hooks that hand their logs over (record.bpf.c), and a
 * log read before that misses what they hand over later. */
static int untraced_ended(struct vsc_target *t)
{
	char path[64], state;
	unsigned long long start;
	int others = 0;

	if (kill(t->pid, 0) && errno == ESRCH) {
		t->ended = true;
		return 1;
	}
	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)t->pid);
	state = stat_read(path, &start, NULL);
	/* another start time: the pid was taken again by another process */
	if (!state || (start && t->start_time && start != t->start_time) ||
	    ((state == 'Z' || state == 'X') && !(others = other_threads(t->pid)))) {
		t->ended = true;
		return 1;
	}
	/* a group exit: the others follow the main thread out; wait for them */
	if ((state == 'Z' || state == 'X') && !others_leaving(t->pid)) {
		t->leader_gone = others;
		return 1;
	}
	return 0;
}

int vsc_target_poll(struct vsc_target *t)
{
	if (t->ended || t->at_exit)
		return 0;
	if (!t->threads_traced)
		reap_traced_zombies(t);
	if (!t->threads_traced && (!t->launched || t->launched_detached))
		return untraced_ended(t);
	/* the launched main thread, or every thread we trace */
	pid_t which = t->threads_traced ? -1 : t->pid;
	/* at most so many reports a call: a thread that stops at every
	 * access (--watch by pages) must not keep the recorder's loop from
	 * its other work (a ^C, --duration) */
	for (unsigned reports = 0; reports < 256; reports++) {
		int status;
		pid_t got = wait_report(t, which, &status, WNOHANG | __WALL);
		if (got == 0 || (got < 0 && errno == ECHILD))
			break;
		if (got < 0)
			return errno == EINTR ? 0 : -errno;
		bool main_thread = got == t->pid && t->launched;
		if (WIFEXITED(status) || WIFSIGNALED(status)) {
			if (!main_thread)
				continue; /* a thread ended */
			t->ended = true;
			t->wait_status = status;
			return 1;
		}
		if (!WIFSTOPPED(status))
			continue;
		if ((status >> 16) == PTRACE_EVENT_EXIT && main_thread) {
			t->at_exit = true;
			return 1;
		}
		if ((status >> 16) == PTRACE_EVENT_EXEC && got == t->pid) {
			/* an exec (of the main thread, or of another, which
			 * killed every other and took the main thread's id):
			 * another program, let go, not followed nor read */
			ptrace(PTRACE_DETACH, got, 0, 0);
			t->exec_done = true;
			if (t->launched)
				t->launched_detached = true;
			return 1;
		}
		/* a group-stop, an interrupt, a new thread, another thread's
		 * exit, exec of another program, or a signal to deliver */
		pass_stop(t, got, status);
	}
	return t->launched ? 0 : untraced_ended(t);
}

/* System call numbers of exit and execve, execveat (native; exit also
 * 32-bit compat's, 1: a thread blocked in write is taken for one in exit,
 * the side that waits) */
#if defined(__aarch64__)
#define SYSCALL_EXIT 93
#define SYSCALL_EXECVE 221
#define SYSCALL_EXECVEAT 281
#else
#define SYSCALL_EXIT 60
#define SYSCALL_EXECVE 59
#define SYSCALL_EXECVEAT 322
#endif
#define SYSCALL_COMPAT_EXIT 1

/* The system call a stopped or blocked thread is in (/proc/.../syscall):
 * its number, -1 when in none, -2 when not known. */
static long thread_syscall(pid_t pid, pid_t tid)
{
	char path[96], line[64];
	long nr = -2;
	snprintf(path, sizeof(path), "/proc/%ld/task/%ld/syscall", (long)pid, (long)tid);
	FILE *f = fopen(path, "re");
	if (!f)
		return -2;
	if (!fgets(line, sizeof(line), f) || sscanf(line, "%ld", &nr) != 1)
		nr = -2; /* "running" */
	fclose(f);
	return nr;
}

/* Whether stopped thread tid is in a 32-bit system call (1), a native one
 * (0), or not known (-1): the architecture ptrace gives with the system
 * call's info (the kernel's own test: x86-64's TS_COMPAT), at any stop. */
static int in_compat_call(pid_t tid)
{
#if defined(PTRACE_GET_SYSCALL_INFO) && (defined(__x86_64__) || defined(__aarch64__))
	struct __ptrace_syscall_info info;
#if defined(__x86_64__)
	const uint32_t native = AUDIT_ARCH_X86_64;
#else
	const uint32_t native = AUDIT_ARCH_AARCH64;
#endif
	memset(&info, 0, sizeof(info));
	if (ptrace(PTRACE_GET_SYSCALL_INFO, tid, (void *)sizeof(info), &info) <= 0 || !info.arch)
		return -1;
	return info.arch != native;
#else
	(void)tid;
	return -1;
#endif
}

/* Whether the main thread, at its exit stop, is in its own exit() (its
 * pthread_exit: other threads may run on), not killed by another thread's
 * exit_group or exec or a fatal signal (they all leave then). Not known:
 * taken for its own. The 32-bit exit's number is 1, a native write's on
 * x86-64: the call's architecture tells them apart (not known: taken for
 * an exit, the side that waits). */
static bool exit_of_its_own(pid_t pid)
{
	long nr = thread_syscall(pid, pid);
	int compat = nr == SYSCALL_EXIT || nr == SYSCALL_COMPAT_EXIT ? in_compat_call(pid) : -1;
	if (compat == 1)
		return nr == SYSCALL_COMPAT_EXIT;
	if (compat == 0)
		return nr == SYSCALL_EXIT;
	return nr == SYSCALL_EXIT || nr == SYSCALL_COMPAT_EXIT || nr == -2;
}

static bool stopped_has(const struct vsc_target *t, pid_t tid);
static bool stopped_or_gone(const struct vsc_target *t, pid_t tid);
static bool thread_gone(pid_t pid, pid_t tid);

/* Keep tid in t->stopped (stopped, or -tid: gone). */
static int stopped_add(struct vsc_target *t, pid_t tid)
{
	if (ARRAY_RESERVE(t->stopped, t->stopped_cap, t->stopped_count + 1))
		return -ENOMEM;
	t->stopped[t->stopped_count++] = tid;
	return 0;
}

/* Threads other than the main one that are not gone: nor, traced, at
 * their exit stop (in t->stopped); nor, killed (the main thread did not
 * leave by its own exit), in an exec that waits for the main thread's end
 * (counted in *execs: their logs were handed over as the exec began,
 * record.bpf.c). */
struct left_walk {
	const struct vsc_target *t;
	bool traced, killed;
	int left, execs;
};

static int count_left(pid_t pid, pid_t tid, void *arg)
{
	struct left_walk *w = arg;
	if (w->traced && (stopped_or_gone(w->t, tid) || thread_gone(pid, tid)))
		return 0;
	if (w->killed) {
		long nr = thread_syscall(pid, tid);
		if (nr == SYSCALL_EXECVE || nr == SYSCALL_EXECVEAT) {
			w->execs++;
			return 0;
		}
	}
	w->left++;
	return 0;
}

static int others_left(const struct vsc_target *t, bool traced, bool killed, int *execs)
{
	struct left_walk w = { t, traced, killed, 0, 0 };
	each_thread(t->pid, false, count_left, &w);
	*execs = w.execs;
	return w.left;
}

int vsc_target_wait_others(struct vsc_target *t, int timeout_ms)
{
	/* killed by a group exit or another thread's exec: every other
	 * thread leaves, and one in exec waits for the main thread's end */
	bool killed = t->at_exit && !exit_of_its_own(t->pid);
	int execs = 0, left = others_left(t, false, killed, &execs);
	for (int waited = 0; left && waited < timeout_ms; waited++) {
		usleep(1000);
		left = others_left(t, false, killed, &execs);
	}
	t->exec_waits = execs > 0;
	return left;
}

/* Whether the main thread is still held at its exit stop: neither let
 * out of it by a SIGKILL (another thread's exec or exit_group wakes it)
 * nor, that exec done, the new program at its exec stop in its place. */
static bool main_at_exit_stop(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	if (stat_read(path, NULL, NULL) != 't')
		return false;
	long nr = thread_syscall(pid, pid);
	return nr != SYSCALL_EXECVE && nr != SYSCALL_EXECVEAT;
}

int vsc_target_stop_traced_at_exit(struct vsc_target *t, int timeout_ms)
{
	if (!t->at_exit || t->ended || !t->threads_traced)
		return 0;
	if (!stopped_has(t, t->pid) && stopped_add(t, t->pid))
		return -ENOMEM;
	bool killed = !exit_of_its_own(t->pid);
	int left = 0, execs = 0;
	for (int waited = 0;; waited++) {
		int status;
		pid_t got;
		while ((got = wait_report(t, -1, &status, WNOHANG | __WALL)) > 0) {
			if (WIFEXITED(status) || WIFSIGNALED(status)) {
				if (got == t->pid) { /* killed at its exit stop */
					t->ended = true;
					t->wait_status = status;
					return 0;
				}
				continue; /* a thread ended */
			}
			if (!WIFSTOPPED(status))
				continue;
			int event = status >> 16;
			if (event == PTRACE_EVENT_EXIT) {
				/* past its last instruction: let it end. Held,
				 * it would hold up an exec of another thread,
				 * which waits for the end of every other */
				if (got != t->pid)
					ptrace(PTRACE_CONT, got, 0, 0);
			} else if (event == PTRACE_EVENT_EXEC) {
				/* another thread's exec is done (the main
				 * thread, let out of its exit stop, is gone):
				 * the new program runs on, not recorded */
				ptrace(PTRACE_DETACH, got, 0, 0);
				t->exec_waits = t->exec_done = true;
				t->launched_detached = true;
				return 0;
			} else {
				pass_stop(t, got, status);
			}
		}
		left = others_left(t, true, killed, &execs);
		/* the main thread let go: a group exit or an exec ends it */
		if ((!left && main_at_exit_stop(t->pid)) || waited >= timeout_ms)
			break;
		usleep(1000);
	}
	t->exec_waits = execs > 0;
	if (!left)
		return 0;
	/* they run on: stopped where they are, a consistent cut, and let go
	 * with the others (vsc_target_resume_all); the command then runs on */
	t->others_ran_on = true;
	int err = vsc_target_stop_all(t);
	return err ? err : left;
}

int vsc_target_finish(struct vsc_target *t)
{
	if (!t->launched || t->ended || t->launched_detached)
		return 0;
	if (t->at_exit) {
		ptrace(PTRACE_DETACH, t->pid, 0, 0);
		t->at_exit = false;
		/* the main thread left by its own pthread_exit and its other
		 * threads (not traced) run on: the process ends with the last
		 * of them, whenever that is, and the wait below waited for it
		 * (a daemon's: for ever, ^C or not). It runs on, not recorded,
		 * as after --duration. */
		if (((!t->threads_traced || t->others_ran_on) && other_threads(t->pid)) ||
		    (t->exec_waits && !t->threads_traced)) {
			t->threads_traced = false;
			t->launched_detached = true;
			return 0;
		}
	}
	/* other threads we trace stop on their way out too: let them go */
	pid_t which = t->threads_traced ? -1 : t->pid;
	for (;;) {
		int status;
		pid_t got = wait_report(t, which, &status, __WALL);
		if (got < 0)
			return errno == EINTR ? 0 : -errno;
		if (got == t->pid && (WIFEXITED(status) || WIFSIGNALED(status))) {
			t->ended = true;
			t->wait_status = status;
			t->threads_traced = false;
			return 0;
		}
		if (WIFSTOPPED(status) && t->exec_waits && (status >> 16) == PTRACE_EVENT_EXEC) {
			/* another thread's exec (t->exec_waits) done: the new
			 * program runs on, not recorded */
			ptrace(PTRACE_DETACH, got, 0, 0);
			t->threads_traced = false;
			t->launched_detached = true;
			return 0;
		}
		if (WIFSTOPPED(status)) {
			int sig = signal_to_pass(t, got, status);
			if (sig >= 0)
				ptrace(PTRACE_DETACH, got, 0, sig);
		}
	}
}

int vsc_target_stop_command(struct vsc_target *t, int sig, int timeout_ms)
{
	if (!t->launched || t->ended)
		return 0;
	if (kill(t->pid, sig))
		return -errno;
	for (int waited = 0;; waited += 10) {
		int status;
		pid_t got = wait_report(t, t->pid, &status, WNOHANG | __WALL);
		if (got < 0 && errno != EINTR)
			return -errno;
		if (got > 0 && (WIFEXITED(status) || WIFSIGNALED(status))) {
			t->ended = true;
			t->wait_status = status;
			return 0;
		}
		if (waited >= timeout_ms)
			return -ETIMEDOUT;
		usleep(10000);
	}
}

/* Whether tid is stopped (or was found gone: -tid, not tried again). */
static bool stopped_has(const struct vsc_target *t, pid_t tid)
{
	for (size_t i = 0; i < t->stopped_count; i++)
		if (t->stopped[i] == tid)
			return true;
	return false;
}

static bool stopped_or_gone(const struct vsc_target *t, pid_t tid)
{
	return stopped_has(t, tid) || stopped_has(t, -tid);
}

/* A thread that is gone or a zombie (past its exit: it cannot be seized). */
static bool thread_gone(pid_t pid, pid_t tid)
{
	char path[64], state;
	snprintf(path, sizeof(path), "/proc/%ld/task/%ld/stat", (long)pid, (long)tid);
	state = stat_read(path, NULL, NULL);
	return !state || state == 'Z' || state == 'X';
}

static bool traced_by_us(pid_t pid, pid_t tid);

/* Where tid is held in t->stopped, or -1. */
static ssize_t held_at(const struct vsc_target *t, pid_t tid)
{
	for (size_t i = 0; i < t->stopped_count; i++)
		if (t->stopped[i] == tid)
			return (ssize_t)i;
	return -1;
}

/* A report (waitpid) of a thread we trace, while vsc_target_stop_all
 * stops them, other than the one it waits for. Threads die then only of a
 * SIGKILL (another thread's exit_group or exec, a fatal signal): one we
 * trace stops at its exit stop (PTRACE_O_TRACEEXIT) and is a zombie after
 * until we reap it, and an exec waits for both (for the end of every
 * other thread). So a thread at its exit stop goes on, and an end is
 * reaped (held: gone, -tid; the main thread's end is the process's, and it
 * is gone from its exit stop on). The new program of an exec (under the
 * main thread's id) at its first stop stays there (t->exec_done), to be
 * let go; any other stop of a thread not held goes on (pass_stop). Only
 * system calls: it runs in a signal handler too (on_held_death). */
static void take_report(struct vsc_target *t, pid_t got, int status)
{
	ssize_t held = held_at(t, got);
	int event = status >> 16;

	if (WIFEXITED(status) || WIFSIGNALED(status)) {
		if (got == t->pid) {
			t->ended = true;
			t->wait_status = status;
		}
		if (held >= 0)
			t->stopped[held] = -got;
	} else if (!WIFSTOPPED(status)) {
		return;
	} else if (event == PTRACE_EVENT_EXIT) {
		ptrace(PTRACE_CONT, got, 0, 0);
		if (got == t->pid && held >= 0)
			t->stopped[held] = -got;
	} else if (got == t->pid && (held >= 0 || event == PTRACE_EVENT_EXEC)) {
		/* a held main thread stops again only as another program */
		t->exec_done = true;
		if (held < 0 && (held = held_at(t, -got)) >= 0)
			t->stopped[held] = got; /* held at its exec stop */
		else if (held < 0)
			ptrace(PTRACE_DETACH, got, 0, 0);
	} else if (held < 0) {
		pass_stop(t, got, status);
	}
}

/* Every report there is now (take_report). */
static void take_reports(struct vsc_target *t)
{
	int status;
	pid_t got;
	while ((got = wait_report(t, -1, &status, WNOHANG | __WALL)) > 0)
		take_report(t, got, status);
}

/* The target whose threads we hold while a PTRACE_SEIZE is under way.
 * The kernel makes PTRACE_SEIZE of any thread of a process wait while an
 * exec of it is under way (its cred_guard_mutex), and the exec waits for
 * the end of every other thread, held ones too: a zombie until we reap it.
 * A SIGCHLD then (a held thread died) ends the wait for the handler, which
 * reaps it. */
static struct vsc_target *volatile seizing;

static void on_held_death(int sig)
{
	int saved = errno;
	struct vsc_target *t = seizing;
	(void)sig;
	if (t)
		take_reports(t);
	errno = saved;
}

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* How long a thread may take to stop: one in the kernel in a wait that
 * only a fatal signal ends (a vfork's parent, for one) does not stop. */
#define STOP_WAIT_MS (VSC_TARGET_STOP_WAIT_S * 1000)

/* Seize (unless it is ours already) and interrupt one thread, then wait
 * for its stop, never for ever: meanwhile held threads that died are
 * reaped (an exec waits for that, seizing and the thread's stop with it:
 * on_held_death), and the main
 * thread's id no longer ours means another thread's exec took it
 * (t->exec_done). Returns 0, 1 when the thread is gone, -ETIMEDOUT. */
static int stop_thread(struct vsc_target *t, pid_t tid)
{
	bool ours = (t->launched && tid == t->pid) || t->threads_traced;
	long opts = PTRACE_O_TRACEEXEC | (t->trace_threads ? PTRACE_O_TRACECLONE : 0);
	int seized = 0;
	if (!ours) {
		seizing = t; /* from here a held thread's death is reaped at once */
		take_reports(t);
		seized = ptrace(PTRACE_SEIZE, tid, 0, opts);
		int e = errno;
		seizing = NULL;
		errno = e;
	}
	if (seized) {
		if (errno == ESRCH || (errno == EPERM && thread_gone(t->pid, tid)))
			return 1;
		/* a new thread of one we seized with PTRACE_O_TRACECLONE as it
		 * called clone: ours already */
		if (errno != EPERM || !traced_by_us(t->pid, tid))
			return -errno;
	}
	if (ptrace(PTRACE_INTERRUPT, tid, 0, 0))
		return errno == ESRCH ? 1 : -errno;
	uint64_t start = now_ms();
	for (unsigned polls = 0;; polls++) {
		int status;
		pid_t got = wait_report(t, -1, &status, WNOHANG | __WALL);
		if (got > 0 && got != tid) {
			take_report(t, got, status);
			continue;
		}
		if (got <= 0)
			got = wait_report(t, tid, &status, WNOHANG | __WALL);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return errno == ECHILD ? 1 : -errno; /* an exec's thread: its id is gone */
		if (got == 0) {
			uint64_t waited = now_ms() - start;
			if (tid == t->pid && waited >= 1 && !traced_by_us(t->pid, tid) &&
			    !thread_gone(t->pid, tid)) {
				t->exec_done = true; /* not the thread we seized */
				return 1;
			}
			if (waited >= STOP_WAIT_MS)
				return -ETIMEDOUT;
			usleep(polls < 50 ? 20 : 1000);
			continue;
		}
		if (WIFEXITED(status) || WIFSIGNALED(status)) {
			if (tid == t->pid) {
				t->ended = true;
				t->wait_status = status;
			}
			return 1;
		}
		if (!WIFSTOPPED(status))
			continue;
		int event = status >> 16;
		if (event == PTRACE_EVENT_EXIT) {
			/* killed (a group exit, an exec): past its last
			 * instruction, it goes on to its end (held, it would
			 * hold an exec up); the main thread's is the process's */
			ptrace(PTRACE_CONT, tid, 0, 0);
			return tid == t->pid;
		}
		if (event == PTRACE_EVENT_EXEC)
			t->exec_done = true; /* another program now: held to be let go */
		if (event == PTRACE_EVENT_STOP || event == PTRACE_EVENT_EXEC)
			return 0;
		/* a signal arrived first (delivered now), or another event */
		int sig = signal_to_pass(t, tid, status);
		if (sig < 0)
			continue; /* at another stop now, its report deferred */
		ptrace(PTRACE_CONT, tid, 0, sig);
		ptrace(PTRACE_INTERRUPT, tid, 0, 0);
	}
}

struct stop_walk {
	struct vsc_target *t;
	bool found_new;
};

static int stop_one(pid_t pid, pid_t tid, void *arg)
{
	struct stop_walk *w = arg;
	(void)pid;
	if (stopped_or_gone(w->t, tid))
		return 0; /* a zombie stays listed: tried once */
	if (ARRAY_RESERVE(w->t->stopped, w->t->stopped_cap, w->t->stopped_count + 1))
		return -ENOMEM;
	w->found_new = true;
	int r = stop_thread(w->t, tid);
	/* not stopped in time: the others are stopped all the same, and the
	 * error comes after them (vsc_target_stop_all) */
	if (r == -ETIMEDOUT)
		w->t->not_stopped++;
	else if (r < 0)
		return r;
	/* remembered even when gone (or not stopped), not tried again */
	w->t->stopped[w->t->stopped_count++] = r == 0 ? tid : -tid;
	return 0;
}

/* Every entry of the main thread's id taken for gone. */
static void main_gone(struct vsc_target *t)
{
	for (size_t i = 0; i < t->stopped_count; i++)
		if (t->stopped[i] == t->pid)
			t->stopped[i] = -t->pid;
}

/* Another thread's exec is done (t->exec_done): its new program, under
 * the main thread's id, is let go; held (its exec stop, stop_thread) or
 * traced (the exec's thread was ours: its first stop is due), it goes on
 * from there. */
static void let_exec_go(struct vsc_target *t)
{
	int status;
	if (stopped_has(t, t->pid)) {
		ptrace(PTRACE_DETACH, t->pid, 0, 0);
	} else if (traced_by_us(t->pid, t->pid)) {
		for (uint64_t start = now_ms(); now_ms() - start < 1000; usleep(1000)) {
			pid_t got = wait_report(t, t->pid, &status, WNOHANG | __WALL);
			if (got == t->pid && WIFSTOPPED(status))
				ptrace(PTRACE_DETACH, t->pid, 0, 0);
			if (got != 0)
				break;
		}
	}
	main_gone(t);
	if (t->launched)
		t->launched_detached = true;
}

void vsc_target_execed(struct vsc_target *t)
{
	if (t->exec_done)
		return;
	/* the new program ended too before this look: nothing to let go.
	 * Its exec killed the main thread, which left no run on. */
	if (t->ended) {
		t->exec_done = true;
		t->leader_gone = 0;
		return;
	}
	/* the exec of a process that took its pid at its end is not its own
	 * (an exec keeps the start time) */
	if (!t->launched && t->start_time && start_time(t->pid) != t->start_time) {
		t->ended = true;
		return;
	}
	t->exec_done = true;
	t->leader_gone = 0; /* killed by the exec, not gone by its own exit */
	let_exec_go(t);
}

/* After the walk: is the main thread's id still the thread we hold? An
 * exec of another thread kills every other and takes the main thread's
 * id; the old main thread's end is not reported to us. */
static void check_main(struct vsc_target *t)
{
	unsigned long msg;

	take_reports(t);
	if (!t->exec_done && stopped_has(t, t->pid) &&
	    ptrace(PTRACE_GETEVENTMSG, t->pid, 0, &msg) == 0)
		return; /* held still */
	/* not held: gone, or on its way out of a group exit; else alive,
	 * and not the thread we held */
	if (!t->exec_done && thread_leaving(t->pid, t->pid))
		return;
	t->exec_done = true;
	let_exec_go(t);
}

int vsc_target_stop_all(struct vsc_target *t)
{
	struct stop_walk w = { t, true };
	struct sigaction reap = { .sa_handler = on_held_death, .sa_flags = SA_RESTART }, saved;
	int r = 0;
	t->not_stopped = 0;
	sigemptyset(&reap.sa_mask);
	sigaction(SIGCHLD, &reap, &saved);
	while (w.found_new && r >= 0) {
		w.found_new = false;
		r = each_thread(t->pid, true, stop_one, &w);
	}
	sigaction(SIGCHLD, &saved, NULL);
	if (r == -ENOENT)
		return 0; /* the process is gone */
	if (r < 0)
		return r;
	check_main(t);
	return t->not_stopped ? -ETIMEDOUT : 0;
}

/* Thread tid's status (struct thread_status): 0, or -errno when it cannot
 * be read (gone). */
static int thread_status(pid_t pid, pid_t tid, struct thread_status *st)
{
	char path[64], line[128];
	snprintf(path, sizeof(path), "/proc/%ld/task/%ld/status", (long)pid, (long)tid);
	memset(st, 0, sizeof(*st));
	FILE *f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "SigPnd:", 7))
			st->pending = strtoull(line + 7, NULL, 16);
		else if (!strncmp(line, "SigBlk:", 7))
			st->blocked = strtoull(line + 7, NULL, 16);
		else if (!strncmp(line, "TracerPid:", 10))
			st->tracer = (pid_t)strtol(line + 10, NULL, 10);
	}
	fclose(f);
	return 0;
}

/* Whether we trace thread tid of pid. */
static bool traced_by_us(pid_t pid, pid_t tid)
{
	struct thread_status st;
	return !thread_status(pid, tid, &st) && st.tracer == getpid();
}

/* Is a SIGTRAP, SIGSEGV or SIGSTOP pending for this thread alone, and not
 * blocked (as one the kernel forces on it is)? From /proc, while the
 * thread is stopped. */
static bool trap_pending(pid_t pid, pid_t tid)
{
	unsigned long long trap =
		1ull << (SIGTRAP - 1) | 1ull << (SIGSEGV - 1) | 1ull << (SIGSTOP - 1);
	struct thread_status st;
	return !thread_status(pid, tid, &st) && (st.pending & trap & ~st.blocked);
}

/* Let one stopped thread go. A trap of our watchpoints raised just before
 * they were removed may still be pending in it (the stop came first): let
 * it arrive as a signal stop and detach from there without it, or it
 * would kill the program after we are gone. So with pages: the fault of
 * an access to a page still protected then (SIGSEGV), or the hook's word
 * of a system call that failed on one (SIGSEGV, SIGSTOP: watch_pages.c
 * takes them, the pages unprotected by then). A synchronous signal is
 * taken before any other, so that stop comes first. */
static int detach_thread(struct vsc_target *t, pid_t tid)
{
	int status;
	if (t->trace_threads && trap_pending(t->pid, tid) && !ptrace(PTRACE_CONT, tid, 0, 0)) {
		for (int stops = 0; stops < 16; stops++) {
			if (wait_report(t, tid, &status, __WALL) < 0 || !WIFSTOPPED(status))
				return -ESRCH; /* gone */
			if ((status >> 16) == 0)
				return ptrace(PTRACE_DETACH, tid, 0,
					      signal_to_pass(t, tid, status) & 0xff)
					       ? -errno
					       : 0;
			ptrace(PTRACE_CONT, tid, 0, 0); /* an interrupt that was still due */
		}
		if (ptrace(PTRACE_INTERRUPT, tid, 0, 0) || wait_report(t, tid, &status, __WALL) < 0)
			return -ESRCH;
	}
	return ptrace(PTRACE_DETACH, tid, 0, 0) ? -errno : 0;
}

void vsc_target_resume_all(struct vsc_target *t)
{
	for (size_t i = 0; i < t->stopped_count; i++) {
		pid_t tid = t->stopped[i];
		if (tid <= 0)
			continue;
		if (t->launched && tid == t->pid && t->at_exit)
			continue; /* vsc_target_finish lets it end */
		/* a thread killed while stopped (another thread's exit or
		 * exec) is a zombie we must reap, or an exec waits forever */
		if (detach_thread(t, tid) == -ESRCH && tid != t->pid)
			wait_report(t, tid, NULL, WNOHANG | __WALL);
		if (t->launched && tid == t->pid)
			t->launched_detached = true;
	}
	t->stopped_count = 0;
	if (!t->at_exit)
		t->threads_traced = false;
}

int vsc_target_trace_threads(struct vsc_target *t)
{
	long opts = PTRACE_O_TRACECLONE;
	t->trace_threads = true;
	if (t->launched) {
		/* held at its exec: the only thread there is */
		t->threads_traced = true;
		opts |= PTRACE_O_TRACEEXEC | PTRACE_O_TRACEEXIT;
		return ptrace(PTRACE_SETOPTIONS, t->pid, 0, opts) ? -errno : 0;
	}
	opts |= PTRACE_O_TRACEEXEC; /* an exec ends the recording (vsc_target_poll) */
	for (size_t i = 0; i < t->stopped_count; i++)
		if (t->stopped[i] > 0 && ptrace(PTRACE_SETOPTIONS, t->stopped[i], 0, opts) &&
		    errno != ESRCH)
			return -errno;
	return 0;
}

int vsc_target_trace_vfork(struct vsc_target *t)
{
	long opts = PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC | PTRACE_O_TRACEVFORK;
	if (t->launched)
		return ptrace(PTRACE_SETOPTIONS, t->pid, 0, opts | PTRACE_O_TRACEEXIT) ? -errno : 0;
	for (size_t i = 0; i < t->stopped_count; i++)
		if (t->stopped[i] > 0 && ptrace(PTRACE_SETOPTIONS, t->stopped[i], 0, opts) &&
		    errno != ESRCH)
			return -errno;
	return 0;
}

void vsc_target_continue_all(struct vsc_target *t)
{
	for (size_t i = 0; i < t->stopped_count; i++)
		if (t->stopped[i] > 0)
			ptrace(PTRACE_CONT, t->stopped[i], 0, 0);
	t->stopped_count = 0;
	t->threads_traced = true;
}

/* Threads of an attached process that died while we traced them stay
 * zombies until we reap them (an exec waits for that): reap them now. The
 * recorder has no children of its own when it attached with -p. */
static void reap_traced_zombies(struct vsc_target *t)
{
	if (t->launched)
		return;
	while (wait_report(t, -1, NULL, WNOHANG | __WALL) > 0)
		;
}

int vsc_target_step(struct vsc_target *t, pid_t tid)
{
	if (!stopped_has(t, tid))
		return -ESRCH;
	if (ptrace(PTRACE_SINGLESTEP, tid, 0, 0))
		return -errno;
	for (;;) {
		int status;
		if (wait_report(t, tid, &status, __WALL) < 0)
			return errno == EINTR ? 0 : -errno;
		if (WIFEXITED(status) || WIFSIGNALED(status))
			return -ESRCH;
		if (!WIFSTOPPED(status))
			continue;
		if ((status >> 16) == 0 && WSTOPSIG(status) == SIGTRAP)
			return 0;
		/* a signal came first: deliver it, as it would be without us */
		int sig = (status >> 16) == 0 ? WSTOPSIG(status) : 0;
		if (ptrace(PTRACE_SINGLESTEP, tid, 0, sig))
			return -errno;
	}
}

#if defined(__x86_64__)
#include <stddef.h>

static int poke_debugreg(pid_t tid, int n, unsigned long value)
{
	return ptrace(PTRACE_POKEUSER, tid, offsetof(struct user, u_debugreg[n]), value) ? -errno
											 : 0;
}

/* The next stop of a thread that was let run. 0, or -errno (-ESRCH: gone). */
static int wait_stop(pid_t tid, int *status)
{
	for (;;) {
		if (waitpid(tid, status, __WALL) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (WIFEXITED(*status) || WIFSIGNALED(*status))
			return -ESRCH;
		if (WIFSTOPPED(*status))
			return 0;
	}
}

/* One instruction with the data breakpoint armed: 1 when it read the
 * watched bytes, 0 when not, 2 when a signal came (delivered as it would
 * be without us: the handler's first instruction is where it stops). */
static int step_watched(pid_t tid)
{
	int status, sig = 0, err;
	bool signalled = false;
	if ((err = poke_debugreg(tid, 6, 0)))
		return err;
	for (;;) {
		if (ptrace(PTRACE_SINGLESTEP, tid, 0, sig))
			return -errno;
		if ((err = wait_stop(tid, &status)))
			return err;
		if ((status >> 16) == 0 && WSTOPSIG(status) == SIGTRAP)
			break;
		sig = (status >> 16) == 0 ? WSTOPSIG(status) : 0;
		signalled = true;
	}
	if (signalled)
		return 2;
	errno = 0;
	long dr6 = ptrace(PTRACE_PEEKUSER, tid, offsetof(struct user, u_debugreg[6]), 0);
	if (errno)
		return -errno;
	return dr6 & 1 ? 1 : 0;
}

/* Is the next instruction a system call (which may block for ever)? */
static int at_syscall(pid_t tid, bool *yes)
{
	struct user_regs_struct regs;
	if (ptrace(PTRACE_GETREGS, tid, 0, &regs))
		return -errno;
	/* stopped inside one (a restart would re-enter it) */
	if ((long)regs.orig_rax >= 0) {
		*yes = true;
		return 0;
	}
	errno = 0;
	long word = ptrace(PTRACE_PEEKTEXT, tid, regs.rip, 0);
	if (errno)
		return -errno;
	unsigned op = (unsigned)word & 0xffff;               /* little-endian: byte 0 low */
	*yes = op == 0x050f || op == 0x340f || op == 0x80cd; /* syscall, sysenter, int 0x80 */
	return 0;
}

int vsc_target_step_to_read(struct vsc_target *t, pid_t tid, uint64_t addr, unsigned size,
			    unsigned max_steps)
{
	/* DR7: breakpoint 0 enabled (L0), on data reads and writes (RW0 = 11),
	 * of 1, 2, 4 or 8 bytes (LEN0 = 00, 01, 11, 10) */
	static const unsigned long len_bits[9] = { [1] = 0, [2] = 1, [4] = 3, [8] = 2 };
	if (!stopped_has(t, tid))
		return -ESRCH;
	if (size > 8 || (size & (size - 1)) || !size || addr % size)
		return -EINVAL;
	int err = poke_debugreg(tid, 0, (unsigned long)addr);
	if (!err)
		err = poke_debugreg(tid, 7, 1ul | 3ul << 16 | len_bits[size] << 18);
	int found = 0;
	for (unsigned step = 0; !err && !found && step < max_steps; step++) {
		bool syscall = false;
		if ((err = at_syscall(tid, &syscall)) || syscall)
			break;
		int r = step_watched(tid);
		if (r < 0)
			err = r;
		else if (r == 2)
			break; /* a signal handler now runs: no claim */
		else
			found = r;
	}
	poke_debugreg(tid, 7, 0);
	poke_debugreg(tid, 0, 0);
	return err ? err : found;
}
#else
int vsc_target_step_to_read(struct vsc_target *t, pid_t tid, uint64_t addr, unsigned size,
			    unsigned max_steps)
{
	(void)t, (void)tid, (void)addr, (void)size, (void)max_steps;
	return -ENOTSUP;
}
#endif

ssize_t vsc_target_read(const struct vsc_target *t, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { buf, len }, remote = { (void *)(uintptr_t)addr, len };
	if (t->exec_done)
		return -ESRCH; /* its memory is another program's now */
	ssize_t n = process_vm_readv(t->pid, &local, 1, &remote, 1, 0);
	/* a zombie main thread has no memory any more: through a live one */
	for (size_t i = 0; n < 0 && errno == ESRCH && t->leader_gone && i < t->stopped_count; i++)
		if (t->stopped[i] > 0 && t->stopped[i] != t->pid)
			n = process_vm_readv(t->stopped[i], &local, 1, &remote, 1, 0);
	return n < 0 ? -errno : n;
}

void vsc_target_describe_end(const struct vsc_target *t, char *buf, size_t len)
{
	if (!t->ended)
		snprintf(buf, len, "still running");
	else if (WIFEXITED(t->wait_status))
		snprintf(buf, len, "exit status %d", WEXITSTATUS(t->wait_status));
	else if (WIFSIGNALED(t->wait_status))
		snprintf(buf, len, "killed by signal %d (%s)", WTERMSIG(t->wait_status),
			 strsignal(WTERMSIG(t->wait_status)));
	else
		snprintf(buf, len, "ended");
}

void vsc_target_release(struct vsc_target *t)
{
	free(t->stopped);
	t->stopped = NULL;
	t->stopped_count = t->stopped_cap = 0;
	free(t->deferred);
	t->deferred = NULL;
	t->deferred_count = t->deferred_cap = 0;
}

int vsc_target_deferred_status(struct vsc_target *t, pid_t tid, int *status, int replace)
{
	for (size_t i = 0; i < t->deferred_count; i++) {
		if (t->deferred[i].tid != tid)
			continue;
		*status = t->deferred[i].status;
		if (replace)
			t->deferred[i].status = replace;
		return 1;
	}
	return 0;
}

bool vsc_target_is_stopped(const struct vsc_target *t, pid_t tid)
{
	for (size_t i = 0; i < t->deferred_count; i++)
		if (t->deferred[i].tid == tid)
			return true;
	return stopped_has(t, tid);
}
