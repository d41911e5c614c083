/* SPDX-License-Identifier: MIT */
/* --watch by page protection and single steps (see watch_pages.h). */
#include "watch_pages.h"

#include <dirent.h>
#include <sched.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "target.h"
#include "userspace/util/diag.h"
#include "userspace/util/hash.h"

#if defined(__x86_64__)
#include <sys/user.h>
#include <sys/syscall.h>

#define PAGES_MAX WATCH_MAX_SLOTS
/* how long another thread may take to stop for a step */
#define STOP_WAIT_NS 1000000000ull

struct page {
	uint64_t lo;
	uint64_t map_lo; /* the start of its mapping when it was protected */
	int prot;        /* its own protection (from /proc/PID/maps) */
};

/* A signal of the program's that stopped a thread in a call of ours, sent
 * to it again with tgkill (whose siginfo says SI_TKILL from us): its own
 * siginfo, put back at the stop of the one sent again. */
struct resent {
	pid_t tid;
	int sig;
	siginfo_t si;
};
#define RESENT_MAX 64

/* tid -> its sequence, of the instance-th thread with this id */
struct page_thread {
	uint64_t next_seq;
	unsigned long long start; /* start time (/proc/.../stat): an id used again */
	uint32_t instance;
};

struct watch_pages {
	struct vsc_target *t;
	int mem_fd; /* /proc/PID/mem: reads what a PROT_NONE page holds */
	size_t page_size;
	struct watch_slot slots[WATCH_MAX_SLOTS];
	size_t slot_count;
	struct page pages[PAGES_MAX];
	size_t page_count;
	uint64_t syscall_at; /* bytes 0f 05 (syscall) in the target: its vDSO */
	bool armed;
	watch_pages_emit emit;
	watch_pages_size_of size_of;
	void *ctx;
	struct watch_pages_hooks hooks;
	pid_t sleepers[64]; /* threads in a call run again, asleep in it (PTRACE_SYSCALL) */
	size_t sleeper_count;
	struct hash_map threads; /* pid_t -> struct page_thread */
	struct watch_pages_stats stats;
	pid_t *held; /* threads stopped for a step */
	size_t held_count, held_cap;
	pid_t stuck[16]; /* threads that did not stop in time once (a vfork's wait) */
	size_t stuck_count;
	struct resent resent[RESENT_MAX]; /* oldest first */
	size_t resent_count;
};

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- the target's memory map ------------------------------------------ */

/* The protection of the mapping that holds addr, or -ENOENT, its start in
 * *start (not NULL); with vdso_hi, the bounds of the [vdso] mapping
 * instead (*start, *vdso_hi). */
static int maps_lookup(pid_t pid, uint64_t addr, uint64_t *start, uint64_t *vdso_hi)
{
	char path[64], line[512];
	snprintf(path, sizeof(path), "/proc/%ld/maps", (long)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return -errno;
	int r = -ENOENT;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi;
		char perms[8];
		if (sscanf(line, "%llx-%llx %7s", &lo, &hi, perms) != 3)
			continue;
		if (vdso_hi) {
			if (strstr(line, "[vdso]")) {
				*start = lo;
				*vdso_hi = hi;
				r = 0;
				break;
			}
		} else if (addr >= lo && addr < hi) {
			r = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
			    (perms[2] == 'x' ? PROT_EXEC : 0);
			if (start)
				*start = lo;
			break;
		}
	}
	fclose(f);
	return r;
}

/* Bytes 0f 05 in the target's vDSO: a syscall instruction to run ours
 * from (executed there, any two such bytes are one). */
static int find_syscall(struct watch_pages *wp)
{
	uint64_t lo, hi;
	int err = maps_lookup(wp->t->pid, 0, &lo, &hi);
	if (err)
		return err;
	size_t len = (size_t)(hi - lo);
	uint8_t *buf = malloc(len);
	if (!buf)
		return -ENOMEM;
	ssize_t n = pread(wp->mem_fd, buf, len, (off_t)lo);
	err = -ENOENT;
	for (ssize_t i = 0; i + 1 < n; i++) {
		if (buf[i] == 0x0f && buf[i + 1] == 0x05) {
			wp->syscall_at = lo + (uint64_t)i;
			err = 0;
			break;
		}
	}
	free(buf);
	return err;
}

/* waitpid's status of an interrupt's stop (PTRACE_EVENT_STOP) */
#define INTERRUPT_STOP ((((PTRACE_EVENT_STOP << 8) | SIGTRAP) << 8) | 0x7f)

static const struct page *page_of(const struct watch_pages *wp, uint64_t addr)
{
	for (size_t i = 0; i < wp->page_count; i++)
		if (addr >= wp->pages[i].lo && addr - wp->pages[i].lo < wp->page_size)
			return &wp->pages[i];
	return NULL;
}

/* ---- one system call run by a stopped thread --------------------------- */

/* The thread's stop after it was let run (single step). 0 with *status,
 * or -ESRCH when it ended (its report deferred for the target's loops). */
static int wait_own(struct watch_pages *wp, pid_t tid, int *status)
{
	for (;;) {
		pid_t got = waitpid(tid, status, __WALL);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return -errno;
		/* its end (an exit stop, killed: a group exit) is the
		 * target's loops' to take */
		if (WIFEXITED(*status) || WIFSIGNALED(*status) ||
		    (WIFSTOPPED(*status) && ((*status >> 16) == PTRACE_EVENT_EXIT ||
					     (*status >> 16) == PTRACE_EVENT_EXEC))) {
			vsc_target_defer(wp->t, tid, *status);
			return -ESRCH;
		}
		if (WIFSTOPPED(*status))
			return 0;
	}
}

/* Whether a SIGTRAP stop is the end of our single step (the kernel's
 * trap: TRAP_TRACE, or TRAP_BRKPT after a system call), not a signal of
 * the program's (raise, kill: SI_TKILL, SI_USER; int3: SI_KERNEL). */
static bool step_done(pid_t tid, int status)
{
	siginfo_t si;
	if ((status >> 16) != 0 || WSTOPSIG(status) != SIGTRAP)
		return false;
	if (ptrace(PTRACE_GETSIGINFO, tid, 0, &si))
		return false;
	return si.si_code == TRAP_TRACE || si.si_code == TRAP_BRKPT;
}

/* Whether stopped thread tid is at its exit stop (killed: an exec of
 * another thread, a group exit; SIGKILL takes a thread out of any other
 * stop) or at an exec's: never to be let run by us from there, which
 * would let it end (the target's loops take those stops). */
static bool leaving(pid_t tid)
{
	siginfo_t si;
	if (ptrace(PTRACE_GETSIGINFO, tid, 0, &si))
		return true; /* not stopped any more */
	return si.si_code == (SIGTRAP | (PTRACE_EVENT_EXIT << 8)) ||
	       si.si_code == (SIGTRAP | (PTRACE_EVENT_EXEC << 8));
}

/* ---- signals sent again -------------------------------------------------- */

static bool resent_take(struct watch_pages *wp, pid_t tid, int sig, siginfo_t *si)
{
	for (size_t i = 0; i < wp->resent_count; i++) {
		if (wp->resent[i].tid == tid && wp->resent[i].sig == sig) {
			*si = wp->resent[i].si;
			memmove(&wp->resent[i], &wp->resent[i + 1],
				(wp->resent_count - i - 1) * sizeof(wp->resent[0]));
			wp->resent_count--;
			return true;
		}
	}
	return false;
}

/* Whether siginfo si (of signal sig, stopping tid) is one we sent again
 * with tgkill: then *si becomes the signal's own (taken). */
static bool resent_own(struct watch_pages *wp, pid_t tid, int sig, siginfo_t *si)
{
	return si->si_code == SI_TKILL && si->si_pid == getpid() && resent_take(wp, tid, sig, si);
}

/* Send signal sig, with its siginfo si (NULL: not known), to thread tid
 * again: pending, delivered as it would have been when it runs. With
 * rt_tgsigqueueinfo where the kernel lets another process give the
 * siginfo (a timer's, sigqueue's: si_code < 0 but SI_TKILL), else with
 * tgkill, the siginfo kept for that signal's stop (restore_siginfo). */
static void resend(struct watch_pages *wp, pid_t tid, int sig, const siginfo_t *si)
{
	siginfo_t own;
	if (si) {
		own = *si;
		resent_own(wp, tid, sig, &own); /* sent again before */
		if (own.si_code < 0 && own.si_code != SI_TKILL &&
		    syscall(SYS_rt_tgsigqueueinfo, wp->t->pid, tid, sig, &own) == 0)
			return;
	}
	if (syscall(SYS_tgkill, wp->t->pid, tid, sig) || !si)
		return;
	/* those of threads gone meanwhile go (their ids may come again) */
	size_t kept = 0;
	for (size_t i = 0; i < wp->resent_count; i++)
		if (syscall(SYS_tgkill, wp->t->pid, wp->resent[i].tid, 0) == 0)
			wp->resent[kept++] = wp->resent[i];
	wp->resent_count = kept;
	if (wp->resent_count == RESENT_MAX) { /* the oldest is forgotten */
		memmove(&wp->resent[0], &wp->resent[1], (RESENT_MAX - 1) * sizeof(wp->resent[0]));
		wp->resent_count--;
	}
	wp->resent[wp->resent_count++] = (struct resent){ tid, sig, own };
}

/* At a signal's stop of tid: when it is one we sent again, its own
 * siginfo is put back (the program gets it, not ours). */
static void restore_siginfo(struct watch_pages *wp, pid_t tid, int sig, siginfo_t *si)
{
	if (resent_own(wp, tid, sig, si))
		ptrace(PTRACE_SETSIGINFO, tid, 0, si);
}

/* Run system call nr(a0, a1, a2) in stopped thread tid, its registers
 * saved and put back. Signals that came first are sent to it again
 * (resend: pending, delivered when it runs, with their own siginfo). 0
 * with *ret, or -errno. */
#define AGAIN_MAX 8
static int inject(struct watch_pages *wp, pid_t tid, long nr, uint64_t a0, uint64_t a1, uint64_t a2,
		  long *ret)
{
	struct user_regs_struct saved, r;
	int status, err = 0, deferred = 0;
	struct {
		int sig;
		bool known;
		siginfo_t si;
	} again[AGAIN_MAX];
	size_t again_count = 0;
	siginfo_t deferred_si;
	bool deferred_signal = false;
	if (leaving(tid) || ptrace(PTRACE_GETREGS, tid, 0, &saved))
		return -ESRCH;
	if (vsc_target_deferred_status(wp->t, tid, &deferred, 0) && (deferred >> 16) == 0)
		deferred_signal = ptrace(PTRACE_GETSIGINFO, tid, 0, &deferred_si) == 0;
	r = saved;
	r.rax = (unsigned long long)nr;
	r.orig_rax = (unsigned long long)-1; /* no system call to restart */
	r.rdi = a0;
	r.rsi = a1;
	r.rdx = a2;
	r.rip = wp->syscall_at;
	if (ptrace(PTRACE_SETREGS, tid, 0, &r))
		return -errno;
	if (wp->hooks.inject)
		wp->hooks.inject(wp->hooks.arg, tid);
	for (;;) {
		if (ptrace(PTRACE_SINGLESTEP, tid, 0, 0)) {
			err = -errno;
			break;
		}
		if ((err = wait_own(wp, tid, &status)))
			break;
		if (step_done(tid, status))
			break;
		/* a signal before it ran: again, and the signal after; a
		 * fault of its own on our page that was pending runs again
		 * (and faults again) */
		siginfo_t si;
		bool known = (status >> 16) == 0 && ptrace(PTRACE_GETSIGINFO, tid, 0, &si) == 0;
		if ((status >> 16) == 0 &&
		    !(WSTOPSIG(status) == SIGSEGV && known && si.si_code == SEGV_ACCERR &&
		      page_of(wp, (uint64_t)(uintptr_t)si.si_addr))) {
			size_t k = again_count < AGAIN_MAX ? again_count++ : AGAIN_MAX - 1;
			again[k].sig = WSTOPSIG(status);
			again[k].known = known;
			if (known)
				again[k].si = si;
		}
	}
	if (wp->hooks.inject)
		wp->hooks.inject(wp->hooks.arg, 0);
	if (err)
		return err;
	if (ptrace(PTRACE_GETREGS, tid, 0, &r))
		return -errno;
	*ret = (long)r.rax;
	if (ptrace(PTRACE_SETREGS, tid, 0, &saved))
		return -errno;
	/* A thread whose report waits (deferred) stops at our step's trap
	 * now: a signal's stop too (the signal's own information put back,
	 * the report left as it was: the signal goes on from here), an
	 * event's as an interrupt's (it goes on without a signal) */
	if (deferred_signal)
		ptrace(PTRACE_SETSIGINFO, tid, 0, &deferred_si);
	else if (deferred)
		vsc_target_deferred_status(wp->t, tid, &deferred, INTERRUPT_STOP);
	for (size_t k = 0; k < again_count; k++)
		resend(wp, tid, again[k].sig, again[k].known ? &again[k].si : NULL);
	return 0;
}

static int set_protection(struct watch_pages *wp, pid_t tid, const struct page *p, int prot)
{
	long ret = 0;
	int err = inject(wp, tid, SYS_mprotect, p->lo, wp->page_size, (uint64_t)prot, &ret);
	if (!err && ret < 0)
		err = (int)ret;
	return err;
}

/* ---- stopping the others ------------------------------------------------ */

static int held_add(struct watch_pages *wp, pid_t tid)
{
	if (wp->held_count == wp->held_cap) {
		size_t cap = wp->held_cap ? wp->held_cap * 2 : 16;
		pid_t *p = realloc(wp->held, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		wp->held = p;
		wp->held_cap = cap;
	}
	wp->held[wp->held_count++] = tid;
	return 0;
}

static char *task_file(pid_t pid, pid_t tid, const char *name, char *buf, size_t len);

/* Whether thread tid is in execve or execveat (/proc/.../syscall). */
static bool in_exec(pid_t pid, pid_t tid)
{
	char buf[64];
	long nr = -1;
	return task_file(pid, tid, "syscall", buf, sizeof(buf)) && sscanf(buf, "%ld", &nr) == 1 &&
	       (nr == SYS_execve || nr == SYS_execveat);
}

/* Stop every thread but tid for a step: each one running is interrupted
 * and its report deferred for the target's loops (vsc_target_defer), so it
 * stays stopped until they let it go, as they would have after taking
 * the report themselves. A thread that has not stopped in time (one in a
 * vfork's wait) is counted: it could touch the page unprotected. A thread
 * started meanwhile waits at its first stop. */
static void stop_others(struct watch_pages *wp, pid_t tid)
{
	char path[64];
	wp->held_count = 0;
	snprintf(path, sizeof(path), "/proc/%ld/task", (long)wp->t->pid);
	DIR *dir = opendir(path);
	if (!dir)
		return;
	struct dirent *d;
	while ((d = readdir(dir))) {
		pid_t other = (pid_t)strtol(d->d_name, NULL, 10);
		if (other <= 0 || other == tid || vsc_target_is_stopped(wp->t, other))
			continue;
		if (ptrace(PTRACE_INTERRUPT, other, 0, 0))
			continue; /* gone, or a zombie */
		if (held_add(wp, other))
			break;
	}
	closedir(dir);
	uint64_t start = now_ns();
	for (size_t i = 0; i < wp->held_count; i++) {
		/* one that did not stop before is given 10 ms (each step
		 * would wait its full time for it, its wait may be long) */
		uint64_t wait_ns = STOP_WAIT_NS;
		for (size_t k = 0; k < wp->stuck_count; k++)
			if (wp->stuck[k] == wp->held[i])
				wait_ns = 10000000ull;
		for (unsigned polls = 0;; polls++) {
			int status;
			pid_t got = waitpid(wp->held[i], &status, __WALL | WNOHANG);
			if (got < 0 && errno == EINTR)
				continue;
			if (got > 0) {
				vsc_target_defer(wp->t, got, status);
				break;
			}
			if (got < 0)
				break; /* gone */
			/* one in an exec (killing the others, waiting for their
			 * end) runs no code of this memory again */
			if (polls == 200 && in_exec(wp->t->pid, wp->held[i]))
				break;
			if (now_ns() - start > wait_ns) {
				wp->stats.not_stopped++;
				if (wait_ns == STOP_WAIT_NS)
					wp->stuck[wp->stuck_count < 16 ? wp->stuck_count++ : 15] =
						wp->held[i];
				break;
			}
			if (polls < 100)
				sched_yield();
			else
				usleep(100);
		}
	}
}

/* ---- the threads' sequences --------------------------------------------- */

/* /proc/PID/task/TID/NAME into buf (a string), or NULL. */
static char *task_file(pid_t pid, pid_t tid, const char *name, char *buf, size_t len)
{
	char path[96];
	snprintf(path, sizeof(path), "/proc/%ld/task/%ld/%s", (long)pid, (long)tid, name);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	ssize_t n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	return buf;
}

static unsigned long long thread_start(pid_t pid, pid_t tid)
{
	char buf[1024];
	if (!task_file(pid, tid, "stat", buf, sizeof(buf)))
		return 0;
	char *p = strrchr(buf, ')'); /* the name may hold anything */
	if (!p)
		return 0;
	unsigned long long start = 0;
	/* after ") ": state is field 3, starttime field 22 */
	int field = 2;
	for (char *s = p + 1; *s && field < 22; s++)
		if (*s == ' ' && ++field == 22)
			start = strtoull(s + 1, NULL, 10);
	return start;
}

static struct page_thread *thread_of(struct watch_pages *wp, pid_t tid)
{
	bool added;
	struct page_thread *pt = hash_map_put(&wp->threads, &tid, &added);
	if (!pt)
		return NULL;
	unsigned long long start = thread_start(wp->t->pid, tid);
	if (added) {
		pt->start = start;
	} else if (start && pt->start && start != pt->start) {
		/* the id's old thread has ended: this is another one */
		pt->start = start;
		pt->next_seq = 0;
		pt->instance++;
	}
	return pt;
}

/* ---- one access ----------------------------------------------------------- */

static uint64_t read_value(struct watch_pages *wp, uint64_t addr, unsigned len)
{
	uint64_t v = 0;
	if (pread(wp->mem_fd, &v, len, (off_t)addr) != (ssize_t)len)
		return 0;
	return v; /* little-endian: zero-extended */
}

/* The records of one access (as watch.bpf.c makes them, after the access):
 * one per watched variable that the bytes [addr, addr + size) touch. */
static int emit_records(struct watch_pages *wp, pid_t tid, uint64_t addr,
			const struct user_regs_struct *regs, const uint64_t *before)
{
	unsigned size = 0;
	wp->size_of(wp->ctx, regs->rip, &size);
	if (!size)
		size = 8; /* not decoded: a read of what it may have touched, marked */
	int n = 0;
	for (size_t i = 0; i < wp->slot_count; i++) {
		const struct watch_slot *s = &wp->slots[i];
		if (!(addr < s->addr + s->len && s->addr < addr + size))
			continue;
		struct page_thread *pt = thread_of(wp, tid);
		if (!pt)
			return -ENOMEM;
		struct watch_record rec = { 0 };
		rec.ev.seq = pt->next_seq++;
		rec.ev.addr = s->addr;
		rec.ev.value = read_value(wp, s->addr, (unsigned)s->len);
		rec.ev.new_value = before[i];
		rec.rec_flags = WATCH_REC_MEM_READ | WATCH_REC_MEM_STILL;
		rec.instance = pt->instance;
		rec.ev.ts_ns = now_ns();
		rec.ev.ip = regs->rip;
		rec.ev.pid = (uint32_t)wp->t->pid;
		rec.ev.tid = (uint32_t)tid;
		rec.ev.kind = VSC_CAP_LOAD;
		rec.ev.size = (uint32_t)s->len;
		rec.ev.flags = VSC_CAP_F_VALUE_UNSURE;
		/* struct user_regs_struct begins with struct pt_regs' 21 words */
		memcpy(rec.regs, regs, 21 * sizeof(uint64_t));
		int err = wp->emit(wp->ctx, &rec, sizeof(rec));
		if (err)
			return err;
		n++;
	}
	if (!n)
		wp->stats.outside++;
	return 0;
}

/* The step over one access to a protected page. Returns the signal tid
 * goes on with: 0, or one that came instead of the step's trap (the
 * instruction did not run: it runs again, and faults again, after it). */
static int protect_all(struct watch_pages *wp, pid_t via);

/* Every page unprotected (an instruction may touch two: one across their
 * boundary, a movs between them), through tid. 0, or -errno with the
 * pages protected again. */
static int unprotect_all(struct watch_pages *wp, pid_t tid)
{
	for (size_t i = 0; i < wp->page_count; i++) {
		int err = set_protection(wp, tid, &wp->pages[i], wp->pages[i].prot);
		if (err) {
			protect_all(wp, tid);
			return err;
		}
	}
	return 0;
}

/* Protect every page again through tid, or, when it cannot run our call
 * any more (killed: an exec, a group exit), through another thread held
 * for the step. */
static void protect_again(struct watch_pages *wp, pid_t tid)
{
	int err = protect_all(wp, tid);
	bool killed = err == -ESRCH;
	for (size_t i = 0; err && i < wp->held_count; i++) {
		int st;
		if (vsc_target_deferred_status(wp->t, wp->held[i], &st, 0) &&
		    ((st >> 16) == PTRACE_EVENT_STOP || (st >> 16) == 0)) {
			err = protect_all(wp, wp->held[i]);
			killed = killed && (!err || err == -ESRCH);
		}
	}
	/* every thread killed (an exec, a group exit): none runs this
	 * memory's code again */
	if (err && !killed)
		wp->stats.failed++;
}

static int step_over(struct watch_pages *wp, pid_t tid, uint64_t addr)
{
	int sig = 0, status, err = 0;
	stop_others(wp, tid);
	if ((err = unprotect_all(wp, tid))) {
		/* killed meanwhile: the instruction never runs */
		if (err != -ESRCH)
			wp->stats.failed++;
		return 0;
	}
	wp->stats.faults++;
	/* every variable as it is before the access (nothing else runs) */
	uint64_t before[WATCH_MAX_SLOTS] = { 0 };
	for (size_t i = 0; i < wp->slot_count; i++)
		before[i] = read_value(wp, wp->slots[i].addr, (unsigned)wp->slots[i].len);
	if (leaving(tid) || ptrace(PTRACE_SINGLESTEP, tid, 0, 0)) {
		protect_again(wp, tid); /* killed: the instruction never runs */
		return 0;
	}
	if (wait_own(wp, tid, &status)) {
		/* killed as it ran: whether the access was made is not known */
		wp->stats.failed++;
		protect_again(wp, tid);
		return 0;
	}
	if (step_done(tid, status)) {
		struct user_regs_struct regs;
		if (ptrace(PTRACE_GETREGS, tid, 0, &regs) == 0)
			err = emit_records(wp, tid, addr, &regs, before);
		else
			wp->stats.failed++;
		if (err < 0)
			wp->stats.failed++;
	} else {
		wp->stats.faults--;
		/* another signal first, or the instruction faulted otherwise */
		sig = (status >> 16) == 0 ? WSTOPSIG(status) : 0;
	}
	/* its siginfo, which the calls of protect_again replace: put back
	 * (the thread goes on with sig from the last one's stop, whose
	 * siginfo it takes when it is sig's) */
	siginfo_t si;
	bool known = sig && ptrace(PTRACE_GETSIGINFO, tid, 0, &si) == 0;
	if (known)
		resent_own(wp, tid, sig, &si);
	protect_again(wp, tid);
	if (known)
		ptrace(PTRACE_SETSIGINFO, tid, 0, &si);
	return sig;
}

/* ---- system calls that met a protected page ------------------------------ */

/* Whether a system call's arguments may point into a protected page (a
 * buffer that ends there: up to 1 MiB before it). */
static bool near_pages(const struct watch_pages *wp, const struct user_regs_struct *r)
{
	const unsigned long long args[6] = { r->rdi, r->rsi, r->rdx, r->r10, r->r8, r->r9 };
	for (size_t i = 0; i < 6; i++)
		for (size_t p = 0; p < wp->page_count; p++)
			if (args[i] < wp->pages[p].lo + wp->page_size &&
			    args[i] + (1ull << 20) > wp->pages[p].lo)
				return true;
	return false;
}

/* What thread tid is doing in the kernel: its state (/proc/.../stat) and
 * whether it waits in a futex (/proc/.../wchan). */
static char sleeping_in(pid_t pid, pid_t tid, bool *futex)
{
	char buf[512];
	*futex = false;
	if (!task_file(pid, tid, "stat", buf, sizeof(buf)))
		return 0;
	char *p = strrchr(buf, ')');
	char state = p && p[1] ? p[2] : 0;
	*futex = task_file(pid, tid, "wchan", buf, sizeof(buf)) && strstr(buf, "futex");
	return state;
}

static bool sleeper_take(struct watch_pages *wp, pid_t tid)
{
	for (size_t i = 0; i < wp->sleeper_count; i++) {
		if (wp->sleepers[i] == tid) {
			wp->sleepers[i] = wp->sleepers[--wp->sleeper_count];
			return true;
		}
	}
	return false;
}

/* Protect every page again, through thread via (stopped). */
static int protect_all(struct watch_pages *wp, pid_t via)
{
	int err = 0;
	for (size_t p = 0; p < wp->page_count; p++) {
		int e = set_protection(wp, via, &wp->pages[p], PROT_NONE);
		if (e && !err)
			err = e;
	}
	return err;
}

/* A system call of tid failed with EFAULT while the pages were protected
 * (the kernel may not read or write them either): with every other
 * thread stopped, the pages unprotected, it runs again from its syscall
 * instruction (PTRACE_SYSCALL, to its end). A call that sleeps in it
 * instead: a futex wait has read its word by then (the others, stopped,
 * cannot wake it), so the pages are protected again through another
 * thread, and the others go on; its end is a syscall stop taken later
 * (on_signal). What the kernel read or wrote there is not recorded (as
 * with breakpoints, which exclude the kernel). */
/* Whether the socket fd of process pid is of a kind whose data a failed
 * copy drops (datagrams, records, raw): asked of a copy of it (pidfd_getfd),
 * true when that cannot be done. */
static bool socket_drops(pid_t pid, int fd)
{
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0), type = 0;
	socklen_t len = sizeof(type);
	if (pidfd < 0)
		return true;
	int copy = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
	close(pidfd);
	if (copy < 0)
		return true;
	bool got = getsockopt(copy, SOL_SOCKET, SO_TYPE, &type, &len) == 0;
	close(copy);
	return !got || type != SOCK_STREAM;
}

/* Whether system call nr(r) of process pid, which failed with EFAULT,
 * may have consumed what it could not copy (run again, it gives something
 * else): a child's exit status (wait4, waitid), a connection (accept), a
 * signal (rt_sigtimedwait), a message (mq_timedreceive, msgrcv), or a read
 * or receive from anything but a regular file, a directory, a pipe or a
 * stream socket (which keep what a failed copy did not take): an eventfd's,
 * timerfd's or signalfd's count, an inotify event, a datagram, a tty's
 * line. */
static bool call_consumes(pid_t pid, long nr, const struct user_regs_struct *r)
{
	switch (nr) {
	case SYS_wait4:
	case SYS_waitid:
	case SYS_accept:
	case SYS_accept4:
	case SYS_rt_sigtimedwait:
	case SYS_mq_timedreceive:
	case SYS_msgrcv:
		return true;
	case SYS_read:
	case SYS_readv:
	case SYS_pread64:
	case SYS_preadv:
	case SYS_preadv2:
	case SYS_recvfrom:
	case SYS_recvmsg:
	case SYS_recvmmsg: {
		char path[64];
		struct stat st;
		int fd = (int)r->rdi;
		snprintf(path, sizeof(path), "/proc/%ld/fd/%d", (long)pid, fd);
		if (stat(path, &st))
			return true;
		if (S_ISSOCK(st.st_mode))
			return socket_drops(pid, fd);
		return !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode) && !S_ISFIFO(st.st_mode);
	}
	default:
		return false;
	}
}

static int call_again(struct watch_pages *wp, pid_t tid, long nr)
{
	struct user_regs_struct r;
	int status;
	if (ptrace(PTRACE_GETREGS, tid, 0, &r) || (long)r.orig_rax != nr ||
	    (long)r.rax != -EFAULT || !near_pages(wp, &r) || wp->sleeper_count == 64) {
		wp->stats.calls_failed++;
		return 0; /* its EFAULT stands */
	}
	if (call_consumes(wp->t->pid, nr, &r))
		wp->stats.calls_consumed++;
	stop_others(wp, tid);
	if (unprotect_all(wp, tid)) {
		wp->stats.calls_failed++;
		return 0;
	}
	r.rax = r.orig_rax;
	r.rip -= 2; /* syscall: 0f 05 */
	bool ok = ptrace(PTRACE_SETREGS, tid, 0, &r) == 0;
	if (wp->hooks.inject)
		wp->hooks.inject(wp->hooks.arg, tid);
	/* to its entry stop, then into it */
	ok = ok && !leaving(tid) && !ptrace(PTRACE_SYSCALL, tid, 0, 0) &&
	     !wait_own(wp, tid, &status) && WIFSTOPPED(status) && WSTOPSIG(status) == SIGTRAP &&
	     !ptrace(PTRACE_SYSCALL, tid, 0, 0);
	bool asleep = false, done = false;
	uint64_t start = now_ns();
	for (unsigned polls = 0; ok && !done && !asleep; polls++) {
		pid_t got = waitpid(tid, &status, __WALL | WNOHANG);
		if (got == tid) {
			if (WIFEXITED(status) || WIFSIGNALED(status)) {
				vsc_target_defer(wp->t, tid, status);
				ok = false;
			} else if (WSTOPSIG(status) == SIGTRAP && (status >> 16) == 0) {
				done = true; /* its exit stop */
			} else {
				/* another stop in it (a signal): later */
				vsc_target_defer(wp->t, tid, status);
				asleep = true;
			}
			break;
		}
		bool futex = false;
		char state = sleeping_in(wp->t->pid, tid, &futex);
		if (state == 'S' && (futex || now_ns() - start > 50000000ull)) {
			if (!futex)
				wp->stats.calls_blocked++;
			asleep = true;
			sleeper_take(wp, tid);
			wp->sleepers[wp->sleeper_count++] = tid;
		} else if (polls > 100) {
			usleep(50);
		}
	}
	if (wp->hooks.inject)
		wp->hooks.inject(wp->hooks.arg, 0);
	wp->stats.calls_again++;
	pid_t via = done ? tid : 0;
	/* another thread, one stopped by an interrupt best (no signal to
	 * send it again) */
	for (int pass = 0; pass < 2 && !via; pass++) {
		for (size_t i = 0; !via && i < wp->held_count; i++) {
			int st;
			if (vsc_target_deferred_status(wp->t, wp->held[i], &st, 0) &&
			    ((st >> 16) == PTRACE_EVENT_STOP || (pass && (st >> 16) == 0)))
				via = wp->held[i];
		}
	}
	if (!via && asleep) {
		/* no other thread to do it: wait for its end */
		if (wait_own(wp, tid, &status) == 0 && WSTOPSIG(status) == SIGTRAP) {
			sleeper_take(wp, tid);
			via = tid;
			done = true;
		}
	}
	if (!via || protect_all(wp, via)) {
		wp->stats.failed++;
		return 0;
	}
	if (!ok)
		wp->stats.calls_failed++;
	return 0;
}

static int take_signal(struct watch_pages *wp, pid_t tid, int sig);

/* target.h's on_signal. A thread killed while we stepped it (an exec of
 * another thread, a group exit) is at its exit stop now: that stop's
 * report is deferred, and the thread not let go from here (-1), or its
 * end would go unseen (the exit stop is where the recorder learns of an
 * exec or an exit). */
static int on_signal(void *arg, pid_t tid, int sig)
{
	struct watch_pages *wp = arg;
	int r = take_signal(wp, tid, sig);
	siginfo_t si;
	if (ptrace(PTRACE_GETSIGINFO, tid, 0, &si) == 0 &&
	    si.si_code == (SIGTRAP | (PTRACE_EVENT_EXIT << 8)))
		return -1; /* its report is there to be taken (or deferred) */
	return r;
}

static int take_signal(struct watch_pages *wp, pid_t tid, int sig)
{
	siginfo_t si;
	if (ptrace(PTRACE_GETSIGINFO, tid, 0, &si))
		return sig;
	restore_siginfo(wp, tid, sig, &si);
	/* the end of a call run again that slept (call_again) */
	if (sig == SIGTRAP && si.si_code == SIGTRAP && sleeper_take(wp, tid))
		return 0;
	/* the BPF hook's SIGSEGV after a system call that failed with
	 * EFAULT (SI_TKILL: sent again by inject(), which came upon it
	 * first): the thread stops on the way out of that call (SIGSEGV is
	 * taken before any other signal) */
	struct user_regs_struct r;
	long nr;
	bool regs = (sig == SIGSEGV || sig == SIGSTOP) &&
		    (si.si_code == SI_KERNEL || si.si_code == SI_TKILL) &&
		    ptrace(PTRACE_GETREGS, tid, 0, &r) == 0;
	if (sig == SIGSEGV && regs && (long)r.orig_rax >= 0 && (long)r.rax == -EFAULT) {
		if (wp->hooks.syscall_failed)
			wp->hooks.syscall_failed(wp->hooks.arg, tid, &nr); /* taken */
		return wp->armed ? call_again(wp, tid, (long)r.orig_rax) : 0;
	}
	/* or its SIGSTOP when the thread blocks SIGSEGV: ours when the hook
	 * says so, never passed on (it would stop the program); a signal
	 * below SIGSTOP that was pending too came first, its handler ran,
	 * and the call cannot be run again: its EFAULT stands (counted) */
	if (sig == SIGSTOP && si.si_code == SI_KERNEL && wp->hooks.syscall_failed &&
	    wp->hooks.syscall_failed(wp->hooks.arg, tid, &nr)) {
		if (regs && (long)r.orig_rax == nr && (long)r.rax == -EFAULT)
			return wp->armed ? call_again(wp, tid, nr) : 0;
		wp->stats.calls_failed++;
		return 0;
	}
	if (sig != SIGSEGV || si.si_code != SEGV_ACCERR)
		return sig;
	uint64_t addr = (uint64_t)(uintptr_t)si.si_addr;
	const struct page *p = page_of(wp, addr);
	if (!p)
		return sig; /* not ours: the program's own */
	/* a fault unblocks SIGSEGV (force_sig_fault): blocked again */
	bool blocked = wp->hooks.fault_blocked && wp->hooks.fault_blocked(wp->hooks.arg, tid);
	/* not armed: protected when it ran, not now: it runs again */
	int go_on = wp->armed ? step_over(wp, tid, addr) : 0;
	uint64_t mask;
	if (blocked && ptrace(PTRACE_GETSIGMASK, tid, sizeof(mask), &mask) == 0) {
		mask |= 1ull << (SIGSEGV - 1);
		ptrace(PTRACE_SETSIGMASK, tid, sizeof(mask), &mask);
	}
	return go_on;
}

/* ---- set up ---------------------------------------------------------------- */

struct watch_pages *watch_pages_new(struct vsc_target *t, const struct watch_slot *slots,
				    size_t count, watch_pages_emit emit,
				    watch_pages_size_of size_of, void *ctx)
{
	char path[64];
	struct watch_pages *wp = calloc(1, sizeof(*wp));
	if (!wp)
		return NULL;
	wp->t = t;
	wp->page_size = (size_t)sysconf(_SC_PAGESIZE);
	wp->emit = emit;
	wp->size_of = size_of;
	wp->ctx = ctx;
	hash_map_init(&wp->threads, sizeof(pid_t), sizeof(struct page_thread));
	snprintf(path, sizeof(path), "/proc/%ld/mem", (long)t->pid);
	wp->mem_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (wp->mem_fd < 0) {
		int err = errno;
		watch_pages_free(wp);
		errno = err;
		return NULL;
	}
	for (size_t i = 0; i < count && i < WATCH_MAX_SLOTS; i++) {
		wp->slots[wp->slot_count++] = slots[i];
		uint64_t lo = slots[i].addr & ~(uint64_t)(wp->page_size - 1);
		if (!page_of(wp, lo))
			wp->pages[wp->page_count++] = (struct page){ .lo = lo };
	}
	return wp;
}

void watch_pages_free(struct watch_pages *wp)
{
	if (!wp)
		return;
	if (wp->t && wp->t->on_signal_arg == wp) {
		wp->t->on_signal = NULL;
		wp->t->on_signal_arg = NULL;
	}
	if (wp->mem_fd >= 0)
		close(wp->mem_fd);
	hash_map_free(&wp->threads);
	free(wp->held);
	free(wp);
}

int watch_pages_arm(struct watch_pages *wp, pid_t tid)
{
	int err = find_syscall(wp);
	if (err) {
		diag("record",
		     "--watch by pages: no syscall instruction found in the vDSO of %d: %s",
		     (int)wp->t->pid, strerror(-err));
		return err;
	}
	for (size_t i = 0; i < wp->page_count; i++) {
		int prot = maps_lookup(wp->t->pid, wp->pages[i].lo, &wp->pages[i].map_lo, NULL);
		if (prot < 0) {
			diag("record", "--watch by pages: no mapping at 0x%" PRIx64 " in %d",
			     wp->pages[i].lo, (int)wp->t->pid);
			return prot;
		}
		wp->pages[i].prot = prot;
	}
	wp->t->on_signal = on_signal;
	wp->t->on_signal_arg = wp;
	for (size_t i = 0; i < wp->page_count; i++) {
		if ((err = set_protection(wp, tid, &wp->pages[i], PROT_NONE))) {
			diag("record",
			     "--watch by pages: cannot protect the page at 0x%" PRIx64 ": %s",
			     wp->pages[i].lo, strerror(-err));
			for (size_t j = 0; j < i; j++)
				set_protection(wp, tid, &wp->pages[j], wp->pages[j].prot);
			return err;
		}
	}
	wp->armed = true;
	return 0;
}

void watch_pages_disarm(struct watch_pages *wp)
{
	if (!wp || !wp->armed)
		return;
	struct vsc_target *t = wp->t;
	bool done = t->ended || t->exec_done;
	for (size_t i = 0; i < t->stopped_count && !done; i++) {
		pid_t tid = t->stopped[i];
		if (tid <= 0 || (tid == t->pid && t->at_exit))
			continue; /* gone, or past its last instruction */
		done = true;
		for (size_t p = 0; p < wp->page_count && done; p++)
			if (set_protection(wp, tid, &wp->pages[p], wp->pages[p].prot))
				done = false;
	}
	/* none could: the process is on its way out (its threads at their
	 * exit stops), and nothing of it runs its code again */
	wp->armed = false;
}

bool watch_pages_armed(const struct watch_pages *wp)
{
	return wp && wp->armed;
}

size_t watch_pages_ranges(const struct watch_pages *wp, uint64_t *lo, uint64_t *map_lo, size_t max)
{
	size_t n = 0;
	for (; n < wp->page_count && n < max; n++) {
		lo[n] = wp->pages[n].lo;
		if (map_lo)
			map_lo[n] = wp->pages[n].map_lo;
	}
	return n;
}

void watch_pages_set_hooks(struct watch_pages *wp, const struct watch_pages_hooks *hooks)
{
	wp->hooks = *hooks;
}

const struct watch_pages_stats *watch_pages_stats(const struct watch_pages *wp)
{
	return &wp->stats;
}

#else /* not x86-64: breakpoints only */

struct watch_pages *watch_pages_new(struct vsc_target *t, const struct watch_slot *slots,
				    size_t count, watch_pages_emit emit,
				    watch_pages_size_of size_of, void *ctx)
{
	(void)t, (void)slots, (void)count, (void)emit, (void)size_of, (void)ctx;
	errno = ENOTSUP;
	return NULL;
}
void watch_pages_free(struct watch_pages *wp)
{
	(void)wp;
}
int watch_pages_arm(struct watch_pages *wp, pid_t tid)
{
	(void)wp, (void)tid;
	return -ENOTSUP;
}
void watch_pages_disarm(struct watch_pages *wp)
{
	(void)wp;
}
bool watch_pages_armed(const struct watch_pages *wp)
{
	(void)wp;
	return false;
}
size_t watch_pages_ranges(const struct watch_pages *wp, uint64_t *lo, uint64_t *map_lo, size_t max)
{
	(void)wp, (void)lo, (void)map_lo, (void)max;
	return 0;
}
void watch_pages_set_hooks(struct watch_pages *wp, const struct watch_pages_hooks *hooks)
{
	(void)wp, (void)hooks;
}
const struct watch_pages_stats *watch_pages_stats(const struct watch_pages *wp)
{
	static const struct watch_pages_stats none;
	(void)wp;
	return &none;
}
#endif
