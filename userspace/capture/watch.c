/* SPDX-License-Identifier: MIT */
/*
 * vsc record --watch (see watch.h): set up -> stop the target -> open one
 * breakpoint per variable per thread, each running watch.bpf.c -> let the
 * target run -> poll the ring buffer, decode each hit -> write the trace.
 */
#include "watch.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <bpf/libbpf.h>

#include "decode.h"
#include "srcloc.h"
#include "symbols.h"
#include "trace_writer.h"
#include "watch.skel.h"

#define MAX_THREADS 4096

struct watch_target {
	char name[128];
	uint64_t addr;
	unsigned len;
	int64_t initial; /* value when recording began (all threads stopped) */
	bool initial_known;
};

/* ip -> decoded instruction, and tid -> sequence renumbering. */
struct insn_entry {
	uint64_t ip; /* 0: empty */
	struct watch_insn insn;
	int found;
};

struct thread_seq {
	uint32_t tid; /* 0: empty */
	uint64_t next_bpf;
	uint64_t next_out;
};

struct watch_run {
	const struct watch_opts *opts;
	pid_t pid;
	bool launched;
	struct watch_target targets[WATCH_MAX_REQUESTS];
	size_t target_count;
	struct vsc_symbols *syms;
	struct srcloc *srcloc;
	struct watch_decoder *dec;
	struct watch_bpf *skel;
	struct ring_buffer *rb;
	struct bpf_link **links;
	size_t link_count, link_cap;
	struct vsc_trace_writer *writer;
	struct insn_entry *insns;
	size_t insn_cap, insn_count;
	struct thread_seq *seqs;
	size_t seq_cap, seq_count;
	struct watch_value_stats stats;
	uint64_t hits;
	int error; /* first error while handling records */
	bool target_gone;
};

static volatile sig_atomic_t stop_requested;

static void on_stop_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

int watch_slot_limit(void)
{
#if defined(__x86_64__)
	return 4; /* DR0..DR3 */
#else
	return WATCH_MAX_SLOTS; /* refined per target by arm64_slot_limit() */
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

static int parse_request(struct watch_run *run, const char *text, struct watch_target *t)
{
	const char *colon = strrchr(text, ':');
	size_t name_len = colon ? (size_t)(colon - text) : strlen(text);
	uint64_t size = 0;
	char *end;

	if (colon) {
		errno = 0;
		size = strtoull(colon + 1, &end, 0);
		if (errno || *end || colon[1] == '\0') {
			fprintf(stderr, "vsc record: --watch %s: bad size '%s'\n", text, colon + 1);
			return -EINVAL;
		}
	}
	if (name_len == 0 || name_len >= sizeof(t->name)) {
		fprintf(stderr, "vsc record: --watch '%s': expected SYMBOL[:SIZE] or ADDR[:SIZE]\n",
			text);
		return -EINVAL;
	}
	memcpy(t->name, text, name_len);
	t->name[name_len] = '\0';
	if (strncmp(t->name, "0x", 2) == 0) {
		errno = 0;
		t->addr = strtoull(t->name, &end, 16);
		if (errno || *end) {
			fprintf(stderr, "vsc record: --watch %s: bad address\n", text);
			return -EINVAL;
		}
		t->len = size ? (unsigned)size : 8;
	} else {
		uint64_t sym_size = 0;
		if (vsc_symbols_find(run->syms, t->name, &t->addr, &sym_size) < 0) {
			fprintf(stderr,
				"vsc record: --watch %s: no global object '%s' in the executable "
				"or its loaded libraries\n", text, t->name);
			return -ENOENT;
		}
		if (!size && sym_size > 8) {
			fprintf(stderr,
				"vsc record: --watch %s: '%s' is %" PRIu64 " bytes; a watchpoint "
				"covers 1, 2, 4 or 8: give NAME:SIZE to watch its first bytes\n",
				text, t->name, sym_size);
			return -EINVAL;
		}
		t->len = size ? (unsigned)size : (unsigned)sym_size;
	}
	if (size > 8 || (t->len != 1 && t->len != 2 && t->len != 4 && t->len != 8)) {
		fprintf(stderr,
			"vsc record: --watch %s: length %u: hardware watchpoints cover 1, 2, 4 "
			"or 8 bytes\n", text, t->len);
		return -EINVAL;
	}
	if (t->addr % t->len) {
		fprintf(stderr,
			"vsc record: --watch %s: address 0x%" PRIx64 " is not aligned to its "
			"length %u, which the hardware requires\n", text, t->addr, t->len);
		return -EINVAL;
	}
	for (size_t i = 0; i < run->target_count; i++) {
		const struct watch_target *o = &run->targets[i];
		if (t->addr < o->addr + o->len && o->addr < t->addr + t->len) {
			fprintf(stderr, "vsc record: --watch %s overlaps --watch %s\n", text,
				o->name);
			return -EINVAL;
		}
	}
	return 0;
}

/* ---- stopping and releasing the target -------------------------------- */

static int list_threads(pid_t pid, pid_t *tids, size_t cap, size_t *count)
{
	char path[64];
	DIR *dir;
	struct dirent *de;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir)
		return -errno;
	*count = 0;
	while ((de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		if (*count == cap) {
			closedir(dir);
			return -E2BIG;
		}
		tids[(*count)++] = (pid_t)atoi(de->d_name);
	}
	closedir(dir);
	return 0;
}

static bool contains(const pid_t *v, size_t n, pid_t x)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

/* A thread that is exiting refuses PTRACE_SEIZE with EPERM. */
static bool thread_exiting(pid_t pid, pid_t tid)
{
	char path[64], state = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)tid);
	f = fopen(path, "r");
	if (!f)
		return true;
	if (fscanf(f, "%*d (%*[^)]) %c", &state) != 1)
		state = 0;
	fclose(f);
	return state == 'Z' || state == 'X';
}

/* Seize and interrupt every thread until /proc/PID/task stops changing:
 * then no thread runs, so none can start one we would miss. */
static int stop_all_threads(pid_t pid, pid_t *stopped, size_t *count)
{
	pid_t now[MAX_THREADS];
	size_t n = 0;
	bool grew = true;

	*count = 0;
	while (grew) {
		int err = list_threads(pid, now, MAX_THREADS, &n);
		if (err)
			return err;
		grew = false;
		for (size_t i = 0; i < n; i++) {
			if (contains(stopped, *count, now[i]))
				continue;
			if (ptrace(PTRACE_SEIZE, now[i], 0, 0) < 0) {
				if (errno == ESRCH || thread_exiting(pid, now[i]))
					continue; /* exited meanwhile */
				return -errno;
			}
			stopped[(*count)++] = now[i];
			grew = true;
			ptrace(PTRACE_INTERRUPT, now[i], 0, 0);
			int status;
			while (waitpid(now[i], &status, __WALL) < 0 && errno == EINTR)
				;
		}
	}
	return 0;
}

static void release_threads(const pid_t *tids, size_t count)
{
	for (size_t i = 0; i < count; i++)
		ptrace(PTRACE_DETACH, tids[i], 0, 0);
}

/* Start argv stopped at its exec, so nothing runs before the breakpoints. */
static pid_t launch_stopped(char *const *argv)
{
	int status;
	pid_t child = fork();

	if (child < 0)
		return -errno;
	if (child == 0) {
		if (ptrace(PTRACE_TRACEME, 0, 0, 0) < 0)
			_exit(127);
		execvp(argv[0], argv);
		fprintf(stderr, "vsc record: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (waitpid(child, &status, 0) < 0)
		return -errno;
	if (!WIFSTOPPED(status)) { /* exec failed: the child said why */
		return -ENOEXEC;
	}
	return child;
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
	if (run->link_count == run->link_cap) {
		size_t cap = run->link_cap ? run->link_cap * 2 : 16;
		struct bpf_link **v = realloc(run->links, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		run->links = v;
		run->link_cap = cap;
	}
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
				fprintf(stderr,
					"vsc record: no free debug register for --watch %s on "
					"thread %d: this CPU has %d and something else (a "
					"debugger, another recorder) holds some\n",
					t->name, (int)tid, watch_slot_limit());
			else if (fd == -EINVAL)
				fprintf(stderr,
					"vsc record: the kernel refused a %u-byte watchpoint at "
					"0x%" PRIx64 " (--watch %s)\n", t->len, t->addr, t->name);
			else
				fprintf(stderr,
					"vsc record: perf_event_open(breakpoint) on thread %d: %s%s\n",
					(int)tid, strerror(-fd),
					fd == -EACCES || fd == -EPERM
						? " (needs root or CAP_PERFMON, and ptrace rights)"
						: "");
			return fd;
		}
		struct bpf_link *link = bpf_program__attach_perf_event(run->skel->progs.watch_hit, fd);
		if (!link) {
			int err = -errno;
			close(fd);
			fprintf(stderr, "vsc record: cannot attach the BPF program to a "
					"breakpoint: %s\n", strerror(-err));
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
		struct iovec local = { .iov_base = &raw, .iov_len = t->len };
		struct iovec remote = { .iov_base = (void *)(uintptr_t)t->addr,
					.iov_len = t->len };
		if (process_vm_readv(run->pid, &local, 1, &remote, 1, 0) == (ssize_t)t->len) {
			t->initial = (int64_t)raw; /* the writer sign-extends */
			t->initial_known = true;
		}
	}
}

/* ---- from records to events --------------------------------------------- */

static uint64_t hash64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

/* Open addressing; the tables only grow. Returns NULL on ENOMEM. */
static struct insn_entry *insn_slot(struct watch_run *run, uint64_t ip)
{
	if ((run->insn_count + 1) * 2 > run->insn_cap) {
		size_t cap = run->insn_cap ? run->insn_cap * 2 : 256;
		struct insn_entry *v = calloc(cap, sizeof(*v));
		if (!v)
			return NULL;
		for (size_t i = 0; i < run->insn_cap; i++) {
			struct insn_entry *e = &run->insns[i];
			if (!e->ip)
				continue;
			size_t j = hash64(e->ip) & (cap - 1);
			while (v[j].ip)
				j = (j + 1) & (cap - 1);
			v[j] = *e;
		}
		free(run->insns);
		run->insns = v;
		run->insn_cap = cap;
	}
	size_t j = hash64(ip) & (run->insn_cap - 1);
	while (run->insns[j].ip && run->insns[j].ip != ip)
		j = (j + 1) & (run->insn_cap - 1);
	return &run->insns[j];
}

static struct thread_seq *seq_slot(struct watch_run *run, uint32_t tid)
{
	if ((run->seq_count + 1) * 2 > run->seq_cap) {
		size_t cap = run->seq_cap ? run->seq_cap * 2 : 64;
		struct thread_seq *v = calloc(cap, sizeof(*v));
		if (!v)
			return NULL;
		for (size_t i = 0; i < run->seq_cap; i++) {
			struct thread_seq *e = &run->seqs[i];
			if (!e->tid)
				continue;
			size_t j = hash64(e->tid) & (cap - 1);
			while (v[j].tid)
				j = (j + 1) & (cap - 1);
			v[j] = *e;
		}
		free(run->seqs);
		run->seqs = v;
		run->seq_cap = cap;
	}
	size_t j = hash64(tid) & (run->seq_cap - 1);
	while (run->seqs[j].tid && run->seqs[j].tid != tid)
		j = (j + 1) & (run->seq_cap - 1);
	if (!run->seqs[j].tid) {
		run->seqs[j].tid = tid;
		run->seq_count++;
	}
	return &run->seqs[j];
}

static int decode_ip(struct watch_run *run, uint64_t ip, struct watch_insn *insn)
{
	struct insn_entry *e = insn_slot(run, ip);
	struct srcloc_function fn;
	enum watch_arch arch = watch_decoder_arch(run->dec);
	/* x86 reports the next instruction: look up the function of ip - 1. */
	uint64_t probe = arch == WATCH_ARCH_X86_64 ? ip - 1 : ip;
	int err;

	if (!e)
		return -ENOMEM;
	if (e->ip) {
		*insn = e->insn;
		return e->found;
	}
	err = srcloc_function(run->srcloc, probe, &fn);
	if (err && !run->target_gone && srcloc_refresh(run->srcloc) == 0)
		err = srcloc_function(run->srcloc, probe, &fn);
	if (err) {
		memset(insn, 0, sizeof(*insn));
		snprintf(insn->text, sizeof(insn->text), "no code found at ip");
	} else {
		bool from_start = fn.name != NULL;
		err = watch_decoder_find(run->dec, fn.code, fn.code_len, fn.start, ip,
					 (size_t)fn.size, from_start, insn);
	}
	e->ip = ip;
	e->insn = *insn;
	e->found = err;
	run->insn_count++;
	return err;
}

static int on_record(void *ctx, void *data, size_t size)
{
	struct watch_run *run = ctx;
	const struct watch_record *rec = data;
	struct vsc_capture_event out[2];
	struct watch_insn insn;
	struct thread_seq *ts;
	int n;

	if (size < sizeof(*rec))
		return 0;
	run->hits++;
	decode_ip(run, rec->ev.ip, &insn);
	n = watch_access_values(watch_decoder_arch(run->dec), &insn, rec, out, &run->stats);

	/* One hit may give two events (plain read then write); renumber so
	 * the writer sees holes only where BPF lost records. */
	ts = seq_slot(run, rec->ev.tid);
	if (!ts) {
		run->error = -ENOMEM;
		return -ENOMEM;
	}
	if (rec->ev.seq > ts->next_bpf)
		ts->next_out += rec->ev.seq - ts->next_bpf;
	ts->next_bpf = rec->ev.seq + 1;
	for (int i = 0; i < n; i++) {
		out[i].seq = ts->next_out++;
		if (insn.addr)
			out[i].ip = insn.addr; /* the accessing instruction itself */
		int err = vsc_trace_writer_add(run->writer, &out[i]);
		if (err) {
			run->error = err;
			return err;
		}
	}
	return 0;
}

/* Trailing comment: "func+0xOFF (file) file.c:LINE: instruction". */
static int locate(void *ctx, uint32_t pid, uint64_t ip, char *buf, size_t len)
{
	struct watch_run *run = ctx;
	char where[160] = "", line[96] = "";
	const char *text = "";
	(void)pid;

	if (vsc_symbols_locate(run->syms, ip, where, sizeof(where)) < 0)
		snprintf(where, sizeof(where), "0x%" PRIx64, ip);
	srcloc_line(run->srcloc, ip, line, sizeof(line));
	for (size_t i = 0; i < run->insn_cap; i++) {
		if (run->insns[i].ip && run->insns[i].insn.addr == ip) {
			text = run->insns[i].insn.text;
			break;
		}
	}
	snprintf(buf, len, "%s%s%s%s%s", where, line[0] ? " " : "", line,
		 text[0] ? ": " : "", text);
	return 0;
}

static int initial_value(void *ctx, uint32_t pid, uint64_t addr, uint32_t size,
			 int64_t *value)
{
	struct watch_run *run = ctx;
	(void)pid;
	(void)size;

	for (size_t i = 0; i < run->target_count; i++) {
		if (run->targets[i].addr == addr && run->targets[i].initial_known) {
			*value = run->targets[i].initial;
			return 1;
		}
	}
	return 0;
}

static int name_var(void *ctx, uint32_t pid, uint64_t addr, uint32_t size, char *buf,
		    size_t len)
{
	struct watch_run *run = ctx;
	(void)pid;
	(void)size;

	for (size_t i = 0; i < run->target_count; i++) {
		if (run->targets[i].addr == addr && strncmp(run->targets[i].name, "0x", 2)) {
			snprintf(buf, len, "%s", run->targets[i].name);
			return 0;
		}
	}
	return vsc_symbols_name(run->syms, addr, buf, len);
}

/* ---- the recorder ------------------------------------------------------- */

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static size_t ring_bytes(size_t want)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), size = page;
	if (!want)
		want = 16u << 20;
	while (size < want)
		size <<= 1; /* a power of two pages */
	return size;
}

static int load_bpf(struct watch_run *run)
{
	run->skel = watch_bpf__open();
	if (!run->skel) {
		fprintf(stderr, "vsc record: cannot open the BPF object: %s\n", strerror(errno));
		return -errno;
	}
	for (size_t i = 0; i < run->target_count; i++) {
		run->skel->rodata->slots[i].addr = run->targets[i].addr;
		run->skel->rodata->slots[i].len = run->targets[i].len;
	}
	run->skel->rodata->slot_count = (uint32_t)run->target_count;
	bpf_map__set_max_entries(run->skel->maps.events, (uint32_t)ring_bytes(run->opts->ring_size));
	if (watch_bpf__load(run->skel)) {
		int err = -errno;
		fprintf(stderr, "vsc record: cannot load the BPF program (%s): this needs "
				"root or CAP_BPF+CAP_PERFMON and a kernel with BPF\n",
			strerror(-err));
		return err;
	}
	run->rb = ring_buffer__new(bpf_map__fd(run->skel->maps.events), on_record, run, NULL);
	if (!run->rb)
		return -errno;
	return 0;
}

static bool target_alive(struct watch_run *run, int *exit_status)
{
	int status;

	if (run->launched) {
		pid_t r = waitpid(run->pid, &status, WNOHANG);
		if (r == run->pid && (WIFEXITED(status) || WIFSIGNALED(status))) {
			*exit_status = WIFEXITED(status) ? WEXITSTATUS(status)
							 : 128 + WTERMSIG(status);
			return false;
		}
		return r == 0;
	}
	/* not our child: gone when kill fails or it is a zombie */
	if (kill(run->pid, 0) < 0 && errno == ESRCH)
		return false;
	char path[64], state = 0;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)run->pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	if (fscanf(f, "%*d (%*[^)]) %c", &state) != 1)
		state = 0;
	fclose(f);
	return state != 'Z' && state != 'X';
}

static void add_notes(struct watch_run *run, int exit_status)
{
	char buf[512];
	size_t off = 0;

	for (size_t i = 0; i < run->target_count && off < sizeof(buf); i++)
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%s@0x%" PRIx64 ":%u",
					i ? " " : "", run->targets[i].name,
					run->targets[i].addr, run->targets[i].len);
	vsc_trace_writer_note(run->writer, "watch", buf);
	snprintf(buf, sizeof(buf), "%" PRIu64, run->hits);
	vsc_trace_writer_note(run->writer, "watchpoint hits", buf);
	snprintf(buf, sizeof(buf), "%" PRIu64, run->stats.unsure);
	vsc_trace_writer_note(run->writer, "values read from memory after the fact", buf);
	snprintf(buf, sizeof(buf), "%" PRIu64, run->stats.raced);
	vsc_trace_writer_note(run->writer, "memory changed before the BPF read", buf);
	snprintf(buf, sizeof(buf), "%" PRIu64, run->stats.unknown);
	vsc_trace_writer_note(run->writer, "accesses not decoded", buf);
	if (exit_status >= 0) {
		snprintf(buf, sizeof(buf), "%d", exit_status);
		vsc_trace_writer_note(run->writer, "exit status", buf);
	}
}

static void what_line(const struct watch_opts *opts, pid_t pid, char *buf, size_t len)
{
	size_t off = 0;
	if (!opts->argv) {
		snprintf(buf, len, "pid %d", (int)pid);
		return;
	}
	for (size_t i = 0; opts->argv[i] && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? " " : "", opts->argv[i]);
}

static void run_free(struct watch_run *run)
{
	for (size_t i = 0; i < run->link_count; i++)
		bpf_link__destroy(run->links[i]);
	free(run->links);
	ring_buffer__free(run->rb);
	watch_bpf__destroy(run->skel);
	vsc_trace_writer_free(run->writer);
	watch_decoder_free(run->dec);
	srcloc_free(run->srcloc);
	vsc_symbols_free(run->syms);
	free(run->insns);
	free(run->seqs);
}

static int start_target(struct watch_run *run, pid_t *stopped, size_t *stopped_count)
{
	const struct watch_opts *opts = run->opts;
	int err;

	if (opts->argv) {
		pid_t child = launch_stopped(opts->argv);
		if (child < 0) {
			if (child != -ENOEXEC)
				fprintf(stderr, "vsc record: cannot start %s: %s\n", opts->argv[0],
					strerror(-child));
			return child;
		}
		run->pid = child;
		run->launched = true;
		stopped[0] = child;
		*stopped_count = 1;
		return 0;
	}
	run->pid = opts->pid;
	if (kill(run->pid, 0) < 0 && errno == ESRCH) {
		fprintf(stderr, "vsc record: no process %d\n", (int)run->pid);
		return -ESRCH;
	}
	err = stop_all_threads(run->pid, stopped, stopped_count);
	if (err) {
		release_threads(stopped, *stopped_count);
		*stopped_count = 0;
		fprintf(stderr, "vsc record: cannot stop process %d to attach: %s%s\n",
			(int)run->pid, strerror(-err),
			err == -EPERM ? " (the kernel's ptrace rules refuse it: another "
					"tracer, or not your process)" : "");
		return err;
	}
	return 0;
}

static int setup(struct watch_run *run, pid_t *stopped, size_t stopped_count)
{
	const struct watch_opts *opts = run->opts;
	int limit = watch_slot_limit();

#if defined(__aarch64__)
	limit = arm64_slot_limit(stopped[0]);
	if (limit < 0) {
		fprintf(stderr, "vsc record: cannot read the watchpoint count: %s\n",
			strerror(-limit));
		return limit;
	}
#endif
	if ((int)opts->watch_count > limit) {
		fprintf(stderr, "vsc record: %zu --watch given, but this CPU has %d hardware "
				"watchpoints\n", opts->watch_count, limit);
		return -E2BIG;
	}
	run->syms = vsc_symbols_new(run->pid);
	if (!run->syms) {
		fprintf(stderr, "vsc record: cannot read the symbols of process %d: %s\n",
			(int)run->pid, strerror(errno));
		return -errno;
	}
	for (size_t i = 0; i < opts->watch_count; i++) {
		int err = parse_request(run, opts->watch[i], &run->targets[i]);
		if (err)
			return err;
		run->target_count++;
	}
	run->srcloc = srcloc_new(run->pid);
	run->dec = watch_decoder_new(
#if defined(__aarch64__)
		WATCH_ARCH_ARM64
#else
		WATCH_ARCH_X86_64
#endif
	);
	if (!run->srcloc || !run->dec) {
		fprintf(stderr, "vsc record: cannot set up the decoder: %s\n", strerror(errno));
		return -errno;
	}
	int err = load_bpf(run);
	if (err)
		return err;
	read_initial_values(run);
	for (size_t i = 0; i < stopped_count; i++) {
		err = attach_thread(run, stopped[i]);
		if (err)
			return err;
	}
	return 0;
}

int watch_record(const struct watch_opts *opts)
{
	struct watch_run run = { .opts = opts };
	pid_t *stopped = calloc(MAX_THREADS, sizeof(*stopped));
	size_t stopped_count = 0;
	int exit_status = -1, err, status = 2;
	char what[512];
	struct sigaction sa = { .sa_handler = on_stop_signal };

	if (!opts->watch_count || (!opts->pid) == (!opts->argv)) {
		fprintf(stderr, "vsc record --watch: give --watch VAR and one of -p PID or -- CMD\n");
		return 2;
	}
	if (opts->watch_count > WATCH_MAX_REQUESTS ||
	    (int)opts->watch_count > watch_slot_limit()) {
		fprintf(stderr, "vsc record: %zu --watch given, but this CPU has %d hardware "
				"watchpoints\n", opts->watch_count, watch_slot_limit());
		return 2;
	}
	if (!stopped)
		return 1;
	libbpf_set_print(NULL);
	err = start_target(&run, stopped, &stopped_count);
	if (err) {
		free(stopped);
		return 2;
	}
	err = setup(&run, stopped, stopped_count);
	if (err) {
		if (run.launched) {
			kill(run.pid, SIGKILL);
			release_threads(stopped, stopped_count);
			waitpid(run.pid, NULL, 0);
		} else {
			release_threads(stopped, stopped_count);
		}
		run_free(&run);
		free(stopped);
		return 2;
	}

	what_line(opts, run.pid, what, sizeof(what));
	struct vsc_trace_writer_opts wopts = {
		.sz = sizeof(wopts),
		.what = what,
		.how = "hardware watchpoints (perf_event_open breakpoints + BPF), "
		       "access kinds decoded with Capstone",
		.name_var = name_var,
		.init_value = initial_value,
		.locate = locate,
		.ctx = &run,
		.no_timestamps = opts->no_timestamps,
	};
	run.writer = vsc_trace_writer_new(&wopts);
	if (!run.writer) {
		fprintf(stderr, "vsc record: %s\n", strerror(errno));
		release_threads(stopped, stopped_count);
		run_free(&run);
		free(stopped);
		return 1;
	}

	stop_requested = 0;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	release_threads(stopped, stopped_count); /* the target runs from here */
	fprintf(stderr, "vsc record: watching %zu variable%s in %zu thread%s of pid %d\n",
		run.target_count, run.target_count == 1 ? "" : "s", stopped_count,
		stopped_count == 1 ? "" : "s", (int)run.pid);

	double deadline = opts->duration_s > 0 ? now_s() + opts->duration_s : 0;
	while (!stop_requested && !run.error) {
		ring_buffer__poll(run.rb, 100);
		if (deadline && now_s() >= deadline)
			break;
		if (!target_alive(&run, &exit_status)) {
			run.target_gone = true;
			break;
		}
	}
	/* Detach first so no hit arrives after the final drain. */
	for (size_t i = 0; i < run.link_count; i++)
		bpf_link__destroy(run.links[i]);
	run.link_count = 0;
	ring_buffer__consume(run.rb);

	uint64_t lost = run.skel->bss->lost_events + run.skel->bss->lost_threads;
	vsc_trace_writer_add_lost(run.writer, lost);
	add_notes(&run, exit_status);
	if (run.error) {
		fprintf(stderr, "vsc record: %s\n", strerror(-run.error));
		status = 1;
	} else if (vsc_trace_writer_write_file(run.writer, opts->output ? opts->output : "-")) {
		fprintf(stderr, "vsc record: cannot write %s: %s\n",
			opts->output ? opts->output : "-", strerror(errno));
		status = 1;
	} else {
		status = 0;
		uint64_t total_lost = vsc_trace_writer_lost(run.writer);
		fprintf(stderr, "vsc record: %zu events from %" PRIu64 " watchpoint hits, %" PRIu64
				" lost%s\n", vsc_trace_writer_event_count(run.writer), run.hits,
			total_lost, total_lost ? " (the trace says so; vsc check will warn)" : "");
		if (run.stats.unsure)
			fprintf(stderr, "vsc record: %" PRIu64 " values read from memory after "
					"the access (marked 'value unsure', see docs/watch.md)\n",
				run.stats.unsure);
		if (run.stats.unknown)
			fprintf(stderr, "vsc record: %" PRIu64 " accesses whose instruction was not "
					"decoded (recorded as reads, marked)\n", run.stats.unknown);
	}
	if (run.launched && exit_status < 0 && !stop_requested)
		fprintf(stderr, "vsc record: %s still runs, no longer watched\n", what);
	if (exit_status >= 0 && opts->verbose)
		fprintf(stderr, "vsc record: %s exited with status %d\n", what, exit_status);
	sa.sa_handler = SIG_DFL;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	run_free(&run);
	free(stopped);
	return status;
}
