/* SPDX-License-Identifier: MIT */
/*
 * The process a recorder captures, for every capture path (USDT probes,
 * watchpoints): launch a command stopped at its exec, check that an existing
 * process may be traced, follow the launched command to its end (forwarding
 * its signals), stop every thread for a consistent end of recording, and read
 * its memory.
 *
 * A launched command is ptrace-seized (PTRACE_O_TRACEEXEC | TRACEEXIT) on
 * its main thread only, so the recorder sees its exec and its exit while its
 * memory is still there. Nothing is ever injected into the target: stops are
 * ptrace stops, and if the recorder dies the kernel detaches it.
 */
#ifndef VSC_CAPTURE_TARGET_H
#define VSC_CAPTURE_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <sys/types.h>

struct vsc_target {
	pid_t pid;
	bool launched;          /* we started it (-- CMD) */
	bool at_exit;           /* main thread stopped in PTRACE_EVENT_EXIT */
	bool ended;             /* the process is gone */
	int leader_gone;        /* -p: threads running on, the main thread a zombie */
	bool launched_detached; /* we no longer follow the launched command */
	int wait_status;        /* of a launched command that ended */
	char exe[4096];         /* path of the executable (as /proc/PID/exe says) */
	pid_t *stopped;         /* threads stopped by vsc_target_stop_all */
	size_t stopped_count, stopped_cap;
	bool trace_threads;   /* vsc_target_trace_threads was called */
	bool threads_traced;  /* every thread is ours now, running or not */
	bool others_ran_on;   /* traced threads ran on at the main thread's exit */
	bool exec_waits;      /* at the exit stop: another thread's exec waits for its end */
	bool exec_done;       /* ... or is done: another program runs (not read, not followed) */
	uint64_t stray_traps; /* SIGTRAPs of our watchpoints kept from the program */
	unsigned not_stopped; /* vsc_target_stop_all: threads that did not stop in time */
	unsigned long long start_time; /* an attached process's (/proc/PID/stat), 0:
					* not known; another: its pid was taken again */
	/* A capture source's say over the signal stops of the threads we
	 * trace (--watch by pages takes its own page faults there,
	 * watch_pages.h): returns the signal the thread goes on with. NULL:
	 * none (then a trap of our breakpoints is kept: stray_traps). */
	int (*on_signal)(void *arg, pid_t tid, int sig);
	void *on_signal_arg;
	/* Reports (waitpid) a source took while it stopped the other
	 * threads (vsc_target_defer): handed out again before any new one. */
	struct vsc_target_report {
		pid_t tid;
		int status;
	} * deferred;
	size_t deferred_count, deferred_cap;
};

/* Why a target cannot be recorded, as a message for the user. */
struct vsc_target_error {
	char message[512];
};

/* Check that pid exists and that we may trace it (the kernel's ptrace access
 * rules, as for /proc/PID/mem). 0, or -ESRCH / -EPERM / -errno with a
 * message. */
int vsc_target_check_pid(pid_t pid, struct vsc_target_error *err);
/* Attach to an existing process (fills pid and exe). */
int vsc_target_attach(struct vsc_target *t, pid_t pid, struct vsc_target_error *err);
/* Start argv[0] (searched in PATH) stopped right after its exec. With
 * stdout_to_stderr its standard output is our standard error (when the
 * trace goes to our standard output, the program's own output must not
 * land in it). The command runs with child_mask as its blocked signals
 * (NULL: ours), so signals we block while setting up are not its. */
int vsc_target_launch(struct vsc_target *t, char *const argv[], bool stdout_to_stderr,
		      const sigset_t *child_mask, struct vsc_target_error *err);
/* Run a launched command from its exec stop to its entry point (a one-shot
 * breakpoint, then the original instruction back): the loader has mapped
 * every library it needs by then, and none of the program's own code ran.
 * x86-64 and ARM64; -ENOTSUP elsewhere. 0 or -errno. */
int vsc_target_run_to_entry(struct vsc_target *t);
/* Let a launched command run from its exec (or entry) stop. */
int vsc_target_start(struct vsc_target *t);

/* Look at the target without blocking: for a launched command, handle its
 * ptrace stops (forward signals; at the exit stop set at_exit and leave it
 * stopped); for an attached process, notice that it is gone; an exec seen
 * by ptrace (a launched command's main thread, or any thread when they are
 * all traced) sets exec_done, the new program let go. Returns 1 when
 * something changed (ended, at_exit or exec_done), 0 otherwise, -errno on
 * failure. */
int vsc_target_poll(struct vsc_target *t);
/* The process ran exec (the kernel said so: sched_process_exec), seen
 * otherwise than by vsc_target_poll: set t->exec_done and let the new
 * program go (taken from its exec stop when it is traced by us). Its
 * memory is not read as the old one's from then on. An attached process
 * whose start time is no longer its own ended, and its pid runs another
 * process: t->ended instead. One that ended already (the new program's
 * end came before this look) gets exec_done too. Either way the main
 * thread was killed by the exec: leader_gone is cleared. */
void vsc_target_execed(struct vsc_target *t);
/* At the exit stop: wait until the other threads are gone (those of a
 * process that ends run their end there), at most timeout_ms. Returns how
 * many are left (threads that run on after the main thread's own exit).
 * A thread whose exec waits for the main thread (it killed the main
 * thread: exec is a group exit of the others) is not waited for, and sets
 * t->exec_waits. */
int vsc_target_wait_others(struct vsc_target *t, int timeout_ms);
/* The same with every thread traced (--watch): wait until the other
 * threads have reached their own exit stops or are gone (handling their
 * other stops as vsc_target_poll does), at most timeout_ms. The main
 * thread stays stopped (t->stopped); the others go on from their exit
 * stops to their end (held there, a thread would hold up another's exec,
 * which waits for every other thread's end). An exec of another thread
 * done meanwhile (it lets the main thread out of its exit stop) ends the
 * wait: the new program is let go, not followed nor read (t->exec_done,
 * t->launched_detached). When
 * some still run after that, they are stopped too (a consistent cut;
 * t->others_ran_on) and how many is returned; vsc_target_resume_all lets
 * every one go, and vsc_target_finish then lets the command run on
 * without waiting for its end. 0, that count, or -errno. */
int vsc_target_stop_traced_at_exit(struct vsc_target *t, int timeout_ms);
/* After the exit stop: let the launched command finish and reap it; when
 * threads we do not trace are still there, let it go on without waiting
 * (t->launched_detached: it runs on, not recorded). */
int vsc_target_finish(struct vsc_target *t);
/* A launched command that runs on after the recording (resumed, no longer
 * followed): send it sig and reap it, waiting at most timeout_ms. 0 when it
 * ended (t->ended, wait_status), -ETIMEDOUT when it runs on, -errno. */
int vsc_target_stop_command(struct vsc_target *t, int sig, int timeout_ms);

/* Stop every thread (ptrace seize + interrupt), taking in threads created
 * meanwhile. Returns 0 or -errno. A thread that does not stop within 5 s
 * (one in a wait in the kernel that only its end or a fatal signal ends:
 * a vfork) is counted in t->not_stopped and passed over: the others are
 * stopped all the same, and -ETIMEDOUT is returned after them. It stays
 * ours, to stop whenever it leaves that wait, until the recorder exits.
 * vsc_target_resume_all detaches them all
 * (a launched command too: we stop following it, unless it is at its exit
 * stop, which vsc_target_finish ends). */
int vsc_target_stop_all(struct vsc_target *t);
#define VSC_TARGET_STOP_WAIT_S 5 /* how long a thread may take to stop */
void vsc_target_resume_all(struct vsc_target *t);

/* Hardware watchpoints: keep every thread traced while it is recorded, new
 * ones too (PTRACE_O_TRACECLONE), so that a SIGTRAP the kernel raises for
 * one of our breakpoints instead of for the program is seen and not
 * delivered (counted in stray_traps; see signal_to_pass in target.c).
 * Called with the target held: a launched command at its exec, or every
 * thread stopped by vsc_target_stop_all. Then vsc_target_continue_all (an
 * attached process) or vsc_target_start (a command) lets it run traced;
 * vsc_target_stop_all and vsc_target_resume_all end it as usual, and
 * no trap of ours stays pending in a thread we let go. 0 or -errno. */
int vsc_target_trace_threads(struct vsc_target *t);
void vsc_target_continue_all(struct vsc_target *t);
/* After vsc_target_trace_threads, with the target held the same way: a
 * thread started with CLONE_VFORK (and a vfork'd child, which shares the
 * memory) is traced too (PTRACE_O_TRACEVFORK): --watch by pages, where an
 * untraced thread's fault on a protected page would kill the program. */
int vsc_target_trace_vfork(struct vsc_target *t);

/* Let one thread stopped by vsc_target_stop_all run one instruction (and
 * stop again). 0 or -errno. */
int vsc_target_step(struct vsc_target *t, pid_t tid);

/* Run one stopped thread an instruction at a time, at most max_steps,
 * until it has executed an instruction that reads (or writes) the size
 * bytes at addr (a hardware data breakpoint: x86-64). Stops early without
 * a claim before a system call instruction, inside one, or when a signal
 * comes. 1: it has just read them (and stays stopped there); 0: no such
 * read seen; -ENOTSUP on other architectures, or -errno. */
int vsc_target_step_to_read(struct vsc_target *t, pid_t tid, uint64_t addr, unsigned size,
			    unsigned max_steps);

/* A report of a traced thread (waitpid's status) that a source's
 * on_signal took: the thread stays stopped, and the loops here take the
 * report as if waitpid gave it now. 0 or -ENOMEM. */
int vsc_target_defer(struct vsc_target *t, pid_t tid, int status);
/* The deferred report of tid in *status (1), or 0 when there is none;
 * with replace non-zero, the report becomes that status (the thread was
 * made to stop otherwise since). */
int vsc_target_deferred_status(struct vsc_target *t, pid_t tid, int *status, int replace);
/* Whether tid is stopped with a deferred report, or held by
 * vsc_target_stop_all: stopped, its report taken. */
bool vsc_target_is_stopped(const struct vsc_target *t, pid_t tid);

/* Read target memory. Returns bytes read or -errno. */
ssize_t vsc_target_read(const struct vsc_target *t, uint64_t addr, void *buf, size_t len);
/* Describe how a launched command ended: "exit status 0", "killed by signal 9". */
void vsc_target_describe_end(const struct vsc_target *t, char *buf, size_t len);
void vsc_target_release(struct vsc_target *t);

#endif /* VSC_CAPTURE_TARGET_H */
