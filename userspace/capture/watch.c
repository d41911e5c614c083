/* SPDX-License-Identifier: MIT */
/*
 * vsc record --watch (see watch_source.h): a capture source for the recorder
 * (recorder.h). With the target stopped: one breakpoint per variable per
 * thread, each running watch.bpf.c; while it runs: poll the ring buffer,
 * decode each hit (watch_events.c); at the end (every thread stopped):
 * detach, then read what the ring buffer still holds. Target handling,
 * the loop, symbols and the writer are the recorder's.
 */
#include "watch_source.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "decode.h"
#include "foreign.h"
#include "forks.h"
#include "pid_max_map.h"
#include "recorder.h"
#include "watch.skel.h"
#include "watch_events.h"
#include "watch_fires.h"
#include "watch_pages.h"
#include "userspace/util/diag.h"
#include "userspace/util/array.h"

struct watch_target {
	char name[128];
	uint64_t addr;
	unsigned len;
	int64_t initial; /* value when recording began (all threads stopped) */
	bool initial_known;
};

struct watch_run {
	struct capture_source base; /* first: the recorder's view */
	const struct watch_opts *opts;
	struct recorder *rec;
	struct vsc_target *target;
	struct watch_target targets[WATCH_MAX_REQUESTS];
	size_t target_count;
	struct vsc_symbols *syms;
	struct watch_events *events;
	struct watch *skel;
	struct ring_buffer *rb;
	struct bpf_link **links;
	size_t link_count, link_cap;
	struct fork_watch forks;
	struct foreign_watch foreign; /* stores and mappings from outside */
	struct bpf_link *sys_enter;   /* its hook (foreign.h) */
	struct bpf_link *sys_exit;    /* by pages: EFAULTs (watch.bpf.c) */
	struct bpf_link *page_fault;  /* by pages: faults with SIGSEGV blocked */
	struct bpf_link *deliver;     /* by pages: signal frames on the pages */
	struct watch_pages *pages;    /* by pages (watch_pages.h), else NULL */
	bool by_pages;
	bool execs_seen; /* the exec hook's count stands (fork hooks for shared memory) */
};

int watch_slot_limit(void)
{
#if defined(__x86_64__)
	return 4; /* DR0..DR3 */
#else
	return WATCH_MAX_SLOTS;     /* refined per target by arm64_slot_limit() */
#endif
}

#if defined(__aarch64__)
#include <elf.h>
#include <asm/ptrace.h>
/* ARM64 says how many watchpoints it has in NT_ARM_HW_WATCH (low byte of
 * dbg_info), readable from a thread we trace. */
static int arm64_slot_limit(pid_t tid)
{
	struct user_hwdebug_state st;
	struct iovec iov = { .iov_base = &st, .iov_len = sizeof(st) };

	if (ptrace(PTRACE_GETREGSET, tid, NT_ARM_HW_WATCH, &iov) < 0)
		return -errno;
	return st.dbg_info & 0xff;
}
#endif

/* ---- requests: SYMBOL[:SIZE] | ADDR[:SIZE] ---------------------------- */

/* Where a named target is: a hex address, or a global object's symbol
 * (its size when no SIZE was given). */
static int locate_request(struct watch_run *run, const char *text, uint64_t size,
			  struct watch_target *t)
{
	uint64_t sym_size = 0;
	char *end;

	if (strncmp(t->name, "0x", 2) == 0) {
		errno = 0;
		t->addr = strtoull(t->name, &end, 16);
		if (errno || *end) {
			diag("record", "--watch %s: bad address", text);
			return -EINVAL;
		}
		t->len = size ? (unsigned)size : 8;
		return 0;
	}
	if (vsc_symbols_find(run->syms, t->name, &t->addr, &sym_size) < 0) {
		diag("record",
		     "--watch %s: no global object '%s' in the executable "
		     "or its loaded libraries",
		     text, t->name);
		return -ENOENT;
	}
	if (!size && sym_size > 8) {
		diag("record",
		     "--watch %s: '%s' is %" PRIu64 " bytes; a watchpoint "
		     "covers 1, 2, 4 or 8: give NAME:SIZE to watch its first bytes",
		     text, t->name, sym_size);
		return -EINVAL;
	}
	t->len = size ? (unsigned)size : (unsigned)sym_size;
	return 0;
}

/* What the hardware can watch: 1, 2, 4 or 8 aligned bytes, no two
 * watchpoints over the same byte. */
static int check_request(const struct watch_run *run, const char *text, uint64_t size,
			 const struct watch_target *t)
{
	if (size > 8 || (t->len != 1 && t->len != 2 && t->len != 4 && t->len != 8)) {
		diag("record",
		     "--watch %s: length %u: hardware watchpoints cover 1, 2, 4 "
		     "or 8 bytes",
		     text, t->len);
		return -EINVAL;
	}
	if (t->addr % t->len) {
		diag("record",
		     "--watch %s: address 0x%" PRIx64 " is not aligned to its "
		     "length %u, which the hardware requires",
		     text, t->addr, t->len);
		return -EINVAL;
	}
	for (size_t i = 0; i < run->target_count; i++) {
		const struct watch_target *o = &run->targets[i];
		if (t->addr < o->addr + o->len && o->addr < t->addr + t->len) {
			diag("record", "--watch %s overlaps --watch %s", text, o->name);
			return -EINVAL;
		}
	}
	return 0;
}

static int parse_request(struct watch_run *run, const char *text, struct watch_target *t)
{
	const char *colon = strrchr(text, ':');
	size_t name_len = colon ? (size_t)(colon - text) : strlen(text);
	uint64_t size = 0;
	char *end;
	int err;

	if (colon) {
		errno = 0;
		size = strtoull(colon + 1, &end, 0);
		if (errno || *end || colon[1] == '\0') {
			diag("record", "--watch %s: bad size '%s'", text, colon + 1);
			return -EINVAL;
		}
	}
	if (name_len == 0 || name_len >= sizeof(t->name)) {
		diag("record", "--watch '%s': expected SYMBOL[:SIZE] or ADDR[:SIZE]", text);
		return -EINVAL;
	}
	memcpy(t->name, text, name_len);
	t->name[name_len] = '\0';
	if ((err = locate_request(run, text, size, t)))
		return err;
	return check_request(run, text, size, t);
}

/* ---- breakpoints -------------------------------------------------------- */

static int open_breakpoint(const struct watch_target *t, pid_t tid)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_BREAKPOINT,
		.bp_type = HW_BREAKPOINT_RW, /* x86 cannot watch reads alone */
		.bp_addr = t->addr,
		.bp_len = t->len,
		.sample_period = 1,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.inherit = 1,
		.inherit_thread = 1, /* threads only, not forked processes */
		.remove_on_exec = 1, /* addresses mean nothing after exec */
	};
	int fd = (int)syscall(SYS_perf_event_open, &attr, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static int keep_link(struct watch_run *run, struct bpf_link *link)
{
	if (ARRAY_RESERVE(run->links, run->link_cap, run->link_count + 1))
		return -ENOMEM;
	run->links[run->link_count++] = link;
	return 0;
}

static int attach_thread(struct watch_run *run, pid_t tid)
{
	for (size_t i = 0; i < run->target_count; i++) {
		const struct watch_target *t = &run->targets[i];
		int fd = open_breakpoint(t, tid);
		if (fd == -ESRCH)
			return 0; /* the thread is gone */
		if (fd < 0) {
			if (fd == -ENOSPC)
				diag("record",
				     "no free debug register for --watch %s on "
				     "thread %d: this CPU has %d and something else (a "
				     "debugger, another recorder) holds some",
				     t->name, (int)tid, watch_slot_limit());
			else if (fd == -EINVAL)
				diag("record",
				     "the kernel refused a %u-byte watchpoint at "
				     "0x%" PRIx64 " (--watch %s)",
				     t->len, t->addr, t->name);
			else
				diag("record", "perf_event_open(breakpoint) on thread %d: %s%s",
				     (int)tid, strerror(-fd),
				     fd == -EACCES || fd == -EPERM
					     ? " (needs root or CAP_PERFMON, and ptrace rights)"
					     : "");
			return fd;
		}
		struct bpf_link *link =
			bpf_program__attach_perf_event(run->skel->progs.watch_hit, fd);
		if (!link) {
			int err = -errno;
			close(fd);
			diag("record",
			     "cannot attach the BPF program to a "
			     "breakpoint: %s",
			     strerror(-err));
			return err;
		}
		/* the link owns fd: bpf_link__destroy closes it */
		if (keep_link(run, link) < 0) {
			bpf_link__destroy(link);
			return -ENOMEM;
		}
	}
	return 0;
}

static void read_initial_values(struct watch_run *run)
{
	for (size_t i = 0; i < run->target_count; i++) {
		struct watch_target *t = &run->targets[i];
		uint64_t raw = 0;
		if (vsc_target_read(run->target, t->addr, &raw, t->len) == (ssize_t)t->len) {
			t->initial = (int64_t)raw; /* the writer sign-extends */
			t->initial_known = true;
		}
	}
}

/* ---- naming: the requests' own names and values first ------------------ */

static int initial_value(struct capture_source *base, uint64_t addr, int64_t *value)
{
	struct watch_run *run = (struct watch_run *)base;
	for (size_t i = 0; i < run->target_count; i++) {
		if (run->targets[i].addr == addr && run->targets[i].initial_known) {
			*value = run->targets[i].initial;
			return 1;
		}
	}
	return 0;
}

static int name_var(struct capture_source *base, uint64_t addr, char *buf, size_t len)
{
	struct watch_run *run = (struct watch_run *)base;
	for (size_t i = 0; i < run->target_count; i++) {
		if (run->targets[i].addr == addr && strncmp(run->targets[i].name, "0x", 2)) {
			snprintf(buf, len, "%s", run->targets[i].name);
			return 0;
		}
	}
	return -ENOENT; /* the recorder asks the symbols */
}

static int locate(struct capture_source *base, uint32_t pid, uint64_t ip, char *buf, size_t len)
{
	struct watch_run *run = (struct watch_run *)base;
	return watch_events_locate(run->events, pid, ip, buf, len);
}

/* ---- set up ---------------------------------------------------------------- */

static size_t ring_bytes(size_t want)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), size = page;
	if (!want)
		want = WATCH_DEFAULT_RING;
	while (size < want)
		size <<= 1; /* a power of two pages */
	return size;
}

/* A watched variable in a shared mapping: a forked child can write it
 * unwatched, so children are counted (forks.h). Globals and the heap are
 * private: a child writes its own copy. A mapping that cannot be read
 * counts as shared. */
static bool watches_shared_memory(const struct watch_run *run)
{
	for (size_t i = 0; i < run->target_count; i++)
		if (fork_watch_shared((int)run->target->pid, run->targets[i].addr,
				      run->targets[i].len) != 0)
			return true;
	return false;
}

static int load_bpf(struct watch_run *run)
{
	run->skel = watch__open();
	if (!run->skel) {
		int err = -errno;
		diag("record", "cannot open the BPF object: %s", strerror(-err));
		return err;
	}
	for (size_t i = 0; i < run->target_count; i++) {
		run->skel->rodata->slots[i].addr = run->targets[i].addr;
		run->skel->rodata->slots[i].len = run->targets[i].len;
	}
	run->skel->rodata->slot_count = (uint32_t)run->target_count;
	run->skel->rodata->target_pid = (uint32_t)run->target->pid;
	run->skel->rodata->recorder_pid = (uint32_t)getpid();
	run->skel->rodata->has_find_vma = foreign_has_find_vma();
	bpf_map__set_max_entries(run->skel->maps.events,
				 (uint32_t)ring_bytes(run->opts->ring_size));
	int err = pid_max_map_fit(run->skel->maps.threads);
	if (err) {
		diag("record", "cannot size the map of threads: %s", strerror(-err));
		return err;
	}
	if (watch__load(run->skel)) {
		err = -errno;
		diag("record",
		     "cannot load the BPF program (%s): this needs "
		     "root or CAP_BPF+CAP_PERFMON and a kernel with BPF",
		     strerror(-err));
		return err;
	}
	run->sys_enter = bpf_program__attach(run->skel->progs.vsc_sys_enter);
	if (run->by_pages) {
		run->sys_exit = bpf_program__attach(run->skel->progs.vsc_sys_exit);
#if defined(__x86_64__)
		run->page_fault = bpf_program__attach(run->skel->progs.vsc_page_fault);
		run->deliver = bpf_program__attach(run->skel->progs.vsc_signal_deliver);
		bool faults = run->page_fault && run->deliver;
#else
		bool faults = true; /* no pages there (watch_pages.h) */
#endif
		if (!run->sys_enter || !run->sys_exit || !faults) {
			/* its count of system calls that met a protected page */
			err = -errno;
			diag("record",
			     "--watch by pages: cannot attach the system call, page fault and "
			     "signal hooks: %s",
			     strerror(-err));
			return err;
		}
	}
	foreign_watch_init(&run->foreign, &run->skel->bss->foreign, run->skel->maps.shared_mappers,
			   run->sys_enter != NULL);
	foreign_watch_attach_vmas(&run->foreign, run->skel->progs.vsc_shared_vmas,
				  (int)run->target->pid);
	bool shared = watches_shared_memory(run);
	/* by pages, a child forked without exec has the pages protected in
	 * its copy of memory, untraced: counted too (docs/watch.md) */
	if (shared || run->by_pages)
		fork_watch_attach(&run->forks, run->skel->progs.vsc_fork,
				  run->skel->progs.vsc_exec);
	run->execs_seen = shared;
	if (shared && !run->target->launched) /* -p: children it had before we came */
		fork_watch_count_existing(&run->forks, (int)run->target->pid);
	watch_events_set_exact_map(run->events, bpf_map__fd(run->skel->maps.exact_ips));
	run->rb = ring_buffer__new(bpf_map__fd(run->skel->maps.events), watch_events_on_record,
				   run->events, NULL);
	if (!run->rb)
		return -errno;
	return 0;
}

static void note_u64(struct trace_writer *w, const char *key, uint64_t v)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	trace_writer_note(w, key, buf);
}

/* Children that ran the program's code without exec (forks.h). */
static uint64_t children_unrecorded(const struct watch_run *run)
{
	return run->skel ? run->skel->bss->children_forked - run->skel->bss->children_execed : 0;
}

/* By pages: system calls of the target that failed with EFAULT while
 * the pages were protected (watch.bpf.c). */
static uint64_t pages_efaults(const struct watch_run *run)
{
	return run->by_pages && run->skel ? run->skel->bss->efault_calls : 0;
}

/* The name of an x86-64 system call the page hooks look at (watch.bpf.c). */
static const char *call_name(uint64_t nr)
{
	static const struct {
		uint64_t nr;
		const char *name;
	} names[] = {
		{ 9, "mmap MAP_FIXED" },
		{ 10, "mprotect" },
		{ 11, "munmap" },
		{ 12, "brk" },
		{ 25, "mremap" },
		{ 28, "madvise" },
		{ 30, "shmat SHM_REMAP" },
		{ 56, "clone" },
		{ 60, "exit" },
		{ 67, "shmdt" },
		{ 131, "sigaltstack" },
		{ 216, "remap_file_pages" },
		{ 218, "set_tid_address" },
		{ 273, "set_robust_list" },
		{ 329, "pkey_mprotect" },
		{ 334, "rseq" },
		{ 435, "clone3" },
		{ 512, "a signal's frame" },
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].nr == nr)
			return names[i].name;
	return "system call";
}

/* By pages: what may have touched the watched bytes unseen (a system
 * call the kernel refused on a protected page, the program's own change
 * of the pages, a write the kernel would make to them outside system
 * calls, a thread that did not stop for a step, a step that could not be
 * made). Appended to buf after n bytes; returns the new length. */
/* Appends "; " (after a first part) and one formatted part to
 * part[0..size) holding m bytes; a part that does not fit is cut, and
 * nothing is added once it is full (m stays below size). */
static int __attribute__((format(printf, 4, 5)))
append_part(char *part, size_t size, int m, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (m < 0 || (size_t)m + 1 >= size)
		return m;
	if (m)
		m += snprintf(part + m, size - (size_t)m, "; ");
	if ((size_t)m + 1 >= size)
		return (int)size - 1;
	va_start(ap, fmt);
	k = vsnprintf(part + m, size - (size_t)m, fmt, ap);
	va_end(ap);
	if (k < 0)
		return m;
	return (size_t)m + (size_t)k >= size ? (int)size - 1 : m + k;
}

static int pages_why(const struct watch_run *run, char *buf, size_t len, int n)
{
	if (!run->pages || !run->skel)
		return n;
	const struct watch_pages_stats *ps = watch_pages_stats(run->pages);
	uint64_t calls = run->skel->bss->page_calls;
	uint64_t kernel_writes = run->skel->bss->kernel_write_calls;
	char part[1024];
	int m = 0;
	if (pages_efaults(run))
		m = append_part(part, sizeof(part), m,
				"%" PRIu64 " system calls of the program failed with EFAULT while "
				"the watched pages were protected (the last: number %" PRIu64
				"): an access of the kernel's to them is not recorded, and the "
				"program saw an error",
				pages_efaults(run), (uint64_t)run->skel->bss->efault_last_nr);
	if (calls)
		m = append_part(part, sizeof(part), m,
				"%" PRIu64
				" calls of the program changed, replaced or dropped a watched page "
				"(the last: %s, number %" PRIu64
				"): what it holds or is there since "
				"may have changed unrecorded",
				calls, call_name(run->skel->bss->page_last_nr),
				(uint64_t)run->skel->bss->page_last_nr);
	if (run->skel->bss->segv_actions_reset)
		m = append_part(
			part, sizeof(part), m,
			"%" PRIu64 " accesses to a watched page by a thread that blocked or "
			"ignored SIGSEGV with an action of its own: the kernel set SIGSEGV to "
			"its default action (a later SIGSEGV kills the program)",
			(uint64_t)run->skel->bss->segv_actions_reset);
	if (kernel_writes)
		m = append_part(part, sizeof(part), m,
				"%" PRIu64
				" calls of the program gave the kernel an address on a watched "
				"page to write outside system calls (the last: %s, number %" PRIu64
				"; thread ids of clone, set_tid_address, robust futex lists, rseq, "
				"sigaltstack, signal frames): "
				"such a write fails there unseen, and the program may hang",
				kernel_writes, call_name(run->skel->bss->kernel_write_last_nr),
				(uint64_t)run->skel->bss->kernel_write_last_nr);
	if (ps->not_stopped)
		m = append_part(part, sizeof(part), m,
				"%" PRIu64 " times a thread did not stop for a step (it could "
				"touch the page unprotected)",
				ps->not_stopped);
	if (ps->failed)
		m = append_part(part, sizeof(part), m,
				"%" PRIu64 " steps over a watched page could not be made",
				ps->failed);
	if (ps->calls_failed)
		m = append_part(part, sizeof(part), m,
				"%" PRIu64 " system calls that failed with EFAULT were not run "
				"again (no argument near a watched page, or it could not be done)",
				ps->calls_failed);
	if (ps->calls_consumed)
		m = append_part(
			part, sizeof(part), m,
			"%" PRIu64 " system calls run again may have consumed what they could "
			"not copy the first time (a child's exit status, an eventfd count, a "
			"datagram, a connection, a signal): the program got what a second "
			"call gives (ECHILD, EAGAIN, a wait)",
			ps->calls_consumed);
	if (ps->calls_blocked)
		m = append_part(part, sizeof(part), m,
				"%" PRIu64 " system calls run again blocked elsewhere than in a "
				"futex wait (the kernel may touch a watched page after it was "
				"protected again)",
				ps->calls_blocked);
	if (!m || (size_t)n >= len)
		return n;
	return n + snprintf(buf + n, len - (size_t)n, "%s%s", n ? "; " : "", part);
}

/* Why the number of lost events is not known, when it is not. */
static bool loss_why(const struct watch_run *run, char *buf, size_t len)
{
	int n = foreign_watch_why(&run->foreign, buf, len, 0);
	n = fork_watch_why(&run->forks, children_unrecorded(run), buf, len, n);
	return pages_why(run, buf, len, n) > 0;
}

static void add_notes(struct capture_source *base, struct trace_writer *w)
{
	struct watch_run *run = (struct watch_run *)base;
	const struct watch_value_stats *st = watch_events_stats(run->events);
	char buf[1024];
	size_t off = 0;

	for (size_t i = 0; i < run->target_count && off < sizeof(buf); i++)
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%s@0x%" PRIx64 ":%u",
					i ? " " : "", run->targets[i].name, run->targets[i].addr,
					run->targets[i].len);
	trace_writer_note(w, "watch", buf);
	note_u64(w, "watchpoint hits", watch_events_hits(run->events));
	note_u64(w, "values read from memory after the fact", st->unsure);
	note_u64(w, "memory changed before the BPF read", st->raced);
	note_u64(w, "accesses not decoded", st->unknown);
	note_u64(w, "debug traps kept from the program", run->target->stray_traps);
	trace_writer_note(w, "watch by",
			  run->by_pages ? "pages (page protection and single steps: hardware "
					  "watchpoints do not fire here, or --watch-by pages)"
					: "breakpoints (hardware watchpoints)");
	if (run->pages) {
		const struct watch_pages_stats *ps = watch_pages_stats(run->pages);
		note_u64(w, "page accesses stepped over", ps->faults);
		note_u64(w, "page accesses outside the watched bytes", ps->outside);
		note_u64(w, "system calls run again on unprotected pages", ps->calls_again);
	}
	char why[1536] = "";
	if (loss_why(run, why, sizeof(why)))
		trace_writer_note(w, "loss not known exactly", why);
}

static void detach_all(struct watch_run *run)
{
	if (run->pages) {
		watch_pages_disarm(run->pages);
		if (run->skel)
			run->skel->bss->pages_armed = 0;
	}
	bpf_link__destroy(run->sys_exit);
	run->sys_exit = NULL;
	bpf_link__destroy(run->page_fault);
	run->page_fault = NULL;
	bpf_link__destroy(run->deliver);
	run->deliver = NULL;
	for (size_t i = 0; i < run->link_count; i++)
		bpf_link__destroy(run->links[i]);
	run->link_count = 0;
	fork_watch_detach(&run->forks);
	bpf_link__destroy(run->sys_enter);
	run->sys_enter = NULL;
}

static void close_source(struct capture_source *base)
{
	struct watch_run *run = (struct watch_run *)base;
	detach_all(run);
	watch_pages_free(run->pages);
	foreign_watch_detach(&run->foreign);
	free(run->links);
	ring_buffer__free(run->rb);
	watch__destroy(run->skel);
	watch_events_free(run->events);
	free(run);
}

static int check_slots(const struct watch_run *run)
{
	int limit = watch_slot_limit();
#if defined(__aarch64__)
	limit = arm64_slot_limit(run->target->pid);
	if (limit < 0) {
		diag("record", "cannot read the watchpoint count: %s", strerror(-limit));
		return limit;
	}
#endif
	if ((int)run->opts->watch_count > limit) {
		diag("record",
		     "%zu --watch given, but this CPU has %d hardware "
		     "watchpoints",
		     run->opts->watch_count, limit);
		return -E2BIG;
	}
	return 0;
}

/* Breakpoints where they fire, pages where they do not (x86-64), or as
 * --watch-by says. */
static int choose_source(struct watch_run *run)
{
	int by = run->opts->watch_by;
	int fires = by == WATCH_BY_PAGES ? 1 : watch_breakpoints_fire();
#if defined(__x86_64__)
	if (by == WATCH_BY_PAGES || (by == WATCH_BY_AUTO && fires == 0)) {
		run->by_pages = true;
		return 0;
	}
#else
	if (by == WATCH_BY_PAGES) {
		diag("record", "--watch-by pages: only on x86-64 (docs/watch.md)");
		return -ENOTSUP;
	}
#endif
	if (fires == 0) {
		diag("record",
		     "hardware watchpoints do not fire on this machine: a write to a "
		     "variable of its own that the recorder watched was not seen (a virtual "
		     "machine that does not pass the debug registers through?), so --watch "
		     "would record no access and the trace would look whole%s",
		     by == WATCH_BY_BREAKPOINTS ? " (--watch-by pages works without them)" : "");
		return -ENOTSUP;
	}
	return 0;
}

/* The thread that runs our mprotect calls tells the BPF hooks so. */
static void on_inject(void *arg, pid_t tid)
{
	struct watch_run *run = arg;
	run->skel->bss->injecting_tid = (uint32_t)tid;
}

/* The BPF hook's word that tid's system call failed with EFAULT. */
static bool syscall_failed(void *arg, pid_t tid, long *nr)
{
	struct watch_run *run = arg;
	uint32_t key = (uint32_t)tid;
	uint64_t value = 0;
	int fd = bpf_map__fd(run->skel->maps.efault_threads);
	if (bpf_map_lookup_elem(fd, &key, &value))
		return false;
	bpf_map_delete_elem(fd, &key);
	*nr = (long)value;
	return true;
}

/* The BPF hook's word that tid blocked SIGSEGV at its fault on a page. */
static bool fault_blocked(void *arg, pid_t tid)
{
	struct watch_run *run = arg;
	uint32_t key = (uint32_t)tid, value = 0;
	int fd = bpf_map__fd(run->skel->maps.fault_segv);
	if (bpf_map_lookup_elem(fd, &key, &value))
		return false;
	bpf_map_delete_elem(fd, &key);
	return value & 1;
}

/* By pages: protect the watched variables' pages, through the launched
 * command's only thread or a held one. */
static int arm_pages(struct watch_run *run)
{
	struct watch_slot slots[WATCH_MAX_REQUESTS];
	for (size_t i = 0; i < run->target_count; i++)
		slots[i] = (struct watch_slot){ run->targets[i].addr, run->targets[i].len };
	watch_events_set_writer(run->events, recorder_writer(run->rec));
	run->pages = watch_pages_new(run->target, slots, run->target_count, watch_events_on_record,
				     watch_events_mem_size, run->events);
	if (!run->pages) {
		int err = -errno;
		diag("record", "--watch by pages: %s", strerror(-err));
		return err;
	}
	struct watch_pages_hooks hooks = { on_inject, syscall_failed, fault_blocked, run };
	watch_pages_set_hooks(run->pages, &hooks);
	uint64_t lo[WATCH_MAX_SLOTS], map_lo[WATCH_MAX_SLOTS];
	size_t n = watch_pages_ranges(run->pages, lo, NULL, WATCH_MAX_SLOTS);
	for (size_t i = 0; i < n; i++)
		run->skel->bss->page_lo[i] = lo[i];
	run->skel->bss->page_count = (uint32_t)n;
	run->skel->bss->page_size = (uint64_t)sysconf(_SC_PAGESIZE);
	pid_t tid = 0;
	if (run->target->launched)
		tid = run->target->pid;
	for (size_t i = 0; !tid && i < run->target->stopped_count; i++)
		if (run->target->stopped[i] > 0)
			tid = run->target->stopped[i];
	if (!tid) {
		diag("record", "--watch by pages: no thread of %d to protect its pages with",
		     (int)run->target->pid);
		return -ESRCH;
	}
	int err = vsc_target_trace_vfork(run->target);
	if (err) {
		diag("record", "--watch by pages: cannot trace the threads of %d: %s",
		     (int)run->target->pid, strerror(-err));
		return err;
	}
	err = watch_pages_arm(run->pages, tid);
	if (err)
		return err;
	n = watch_pages_ranges(run->pages, lo, map_lo, WATCH_MAX_SLOTS);
	for (size_t i = 0; i < n; i++)
		run->skel->bss->page_map_lo[i] = map_lo[i];
	run->skel->bss->pages_armed = 1;
	return 0;
}

/* Everything between a stopped target and one that runs watched. */
static int attach(struct capture_source *base, struct recorder *rec)
{
	struct watch_run *run = (struct watch_run *)base;
	const struct watch_opts *opts = run->opts;
	run->rec = rec;
	run->target = recorder_target(rec);
	run->syms = recorder_symbols(rec);
	int err = check_slots(run);
	if (err)
		return err;
	for (size_t i = 0; i < opts->watch_count; i++) {
		err = parse_request(run, opts->watch[i], &run->targets[i]);
		if (err)
			return err;
		run->target_count++;
	}
#if defined(__aarch64__)
	run->events = watch_events_new(run->target->pid, WATCH_ARCH_ARM64, run->syms);
#else
	run->events = watch_events_new(run->target->pid, WATCH_ARCH_X86_64, run->syms);
#endif
	if (!run->events) {
		err = -errno;
		diag("record", "cannot set up the decoder: %s",
		     watch_capstone_error() ? watch_capstone_error() : strerror(-err));
		return err;
	}
	err = load_bpf(run);
	if (err)
		return err;
	read_initial_values(run);
	if (run->by_pages) {
		err = arm_pages(run);
	} else if (run->target->launched) {
		err = attach_thread(run, run->target->pid); /* its only thread */
	} else {
		for (size_t i = 0; i < run->target->stopped_count && !err; i++)
			if (run->target->stopped[i] > 0) /* else gone */
				err = attach_thread(run, run->target->stopped[i]);
	}
	if (!err)
		diag("record", "watching %zu variable%s in process %d", run->target_count,
		     run->target_count == 1 ? "" : "s", (int)run->target->pid);
	return err;
}

/* By pages there is no ring buffer: every access is a stop of a thread
 * (its fault), taken by the target's loop (vsc_target_poll, and the
 * hook, watch_pages.h). Wait until a thread reports one (SIGCHLD), at
 * most timeout_ms; a stop signal (SIGINT) ends the wait too. */
static int wait_for_stops(int timeout_ms)
{
	sigset_t chld, old;
	siginfo_t si;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &old);
	memset(&si, 0, sizeof(si));
	/* a report there already (WNOWAIT: left for the target's loop) */
	if (waitid(P_ALL, 0, &si, WEXITED | WSTOPPED | WNOHANG | WNOWAIT | __WALL) == 0 &&
	    si.si_pid == 0) {
		struct timespec ts = { timeout_ms / 1000, (long)(timeout_ms % 1000) * 1000000L };
		sigtimedwait(&chld, NULL, &ts);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return 0;
}

static int poll_source(struct capture_source *base, struct trace_writer *w, int timeout_ms)
{
	struct watch_run *run = (struct watch_run *)base;
	watch_events_set_writer(run->events, w);
	if (run->by_pages) {
		if (timeout_ms)
			wait_for_stops(timeout_ms);
		return watch_events_error(run->events);
	}
	/* The BPF side wakes us only when the ring is filling up; the timeout
	 * is the usual wake-up, then we read whatever is there. */
	int n = recorder_read_ring(run->rb, timeout_ms);
	if (watch_events_error(run->events))
		return watch_events_error(run->events);
	return n;
}

/* Every thread is stopped (or the process at its exit) before the
 * breakpoints go, so no thread runs on unwatched while another is still
 * recorded; then what the ring buffer holds is read. */
static int drain(struct capture_source *base, struct trace_writer *w, bool threads_stopped)
{
	struct watch_run *run = (struct watch_run *)base;
	(void)threads_stopped;
	if (run->target->ended || run->target->exec_done)
		watch_events_target_gone(run->events);
	detach_all(run);
	int n = poll_source(base, w, 0);
	return n < 0 ? n : 0;
}

static uint64_t lost(const struct capture_source *base, bool *exact)
{
	const struct watch_run *run = (const struct watch_run *)base;
	char why[8];
	*exact = foreign_watch_exact(&run->foreign) &&
		 fork_watch_exact(&run->forks, children_unrecorded(run)) &&
		 pages_why(run, why, sizeof(why), 0) == 0;
	/* a stray trap is a hit whose record the kernel never made: lost */
	return (run->skel ? run->skel->bss->lost_events + run->skel->bss->lost_threads : 0) +
	       run->target->stray_traps + watch_events_stale(run->events);
}

static void report(struct capture_source *base)
{
	struct watch_run *run = (struct watch_run *)base;
	const struct watch_value_stats *st = watch_events_stats(run->events);
	diag("record", "%" PRIu64 " watchpoint hits", watch_events_hits(run->events));
	if (run->target->stray_traps)
		diag("record",
		     "%" PRIu64 " of the lost events are watchpoint hits whose debug "
		     "exception came without its cause (the kernel raised a SIGTRAP, "
		     "kept from the program, instead of recording them; not the ring "
		     "buffer; see docs/watch.md)",
		     run->target->stray_traps);
	if (st->unsure)
		diag("record",
		     "%" PRIu64 " values were read from memory after the "
		     "access (marked 'value unsure'; see docs/watch.md)",
		     st->unsure);
	if (st->unknown)
		diag("record",
		     "%" PRIu64 " accesses whose instruction was not "
		     "decoded (recorded as reads, marked)",
		     st->unknown);
	char why[1536];
	if (loss_why(run, why, sizeof(why)))
		diag("record", "lost events not counted exactly: %s", why);
}

/* The writers its BPF program sees that it cannot record (foreign.h). */
static const struct foreign_watch *foreign_of(const struct capture_source *base)
{
	return &((const struct watch_run *)base)->foreign;
}

static bool execed(const struct capture_source *base)
{
	const struct watch_run *run = (const struct watch_run *)base;
	/* by pages on private memory the fork hooks count children only: an
	 * exec is seen by ptrace, as without them */
	return run->skel && run->skel->bss->target_execs && run->execs_seen;
}

static const struct capture_source_ops watch_ops = {
	.attach = attach,
	.poll = poll_source,
	.drain = drain,
	.lost = lost,
	.notes = add_notes,
	.report = report,
	.var_name = name_var,
	.init_value = initial_value,
	.locate = locate,
	.foreign = foreign_of,
	.execed = execed,
	.close = close_source,
};

int watch_record(const struct watch_opts *opts)
{
	char how[256];
	if (!opts->watch_count || (!opts->pid) == (!opts->argv)) {
		diag("record --watch", "give --watch VAR and one of -p PID or -- CMD");
		return 2;
	}
	if (opts->watch_count > WATCH_MAX_REQUESTS || (int)opts->watch_count > watch_slot_limit()) {
		diag("record",
		     "%zu --watch given, but this CPU has %d hardware "
		     "watchpoints",
		     opts->watch_count, watch_slot_limit());
		return 2;
	}
	if (!opts->verbose)
		libbpf_set_print(NULL);
	struct watch_run *run = calloc(1, sizeof(*run));
	if (!run) {
		diag("record", "out of memory");
		return 2;
	}
	run->base.ops = &watch_ops;
	run->opts = opts;
	if (choose_source(run)) {
		free(run);
		return 2;
	}
	snprintf(how, sizeof(how),
		 "vsc record --watch: hardware watchpoints (perf_event_open breakpoints, "
		 "BPF ring buffer of %zu bytes) or, where they do not fire, page "
		 "protection and single steps (# watch by), access kinds decoded with Capstone",
		 ring_bytes(opts->ring_size));
	struct recorder_opts ro = {
		.who = "record",
		.pid = opts->pid,
		.argv = opts->argv,
		.output = opts->output,
		.duration_s = opts->duration_s,
		.how = how,
		.hold_attached = true,
		/* by pages, a command's pages are protected at its entry: an
		 * mprotect cannot be run from its exec stop (inside execve) */
		.run_to_entry = run->by_pages,
		.trace_threads = true, /* stray traps of our breakpoints: target.h */
		.need_symbols = true,
		.no_locations = opts->no_locations,
		.no_timestamps = opts->no_timestamps,
		.stop_signal = opts->stop_signal,
		.verbose = opts->verbose,
	};
	return recorder_run(&ro, &run->base);
}
