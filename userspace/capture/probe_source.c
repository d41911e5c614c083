/* SPDX-License-Identifier: MIT */
/* The USDT probe capture source (see probe_source.h). */
#include "probe_source.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "foreign.h"
#include "forks.h"
#include "pid_max_map.h"
#include "record.h"
#include "record.skel.h"
#include "usdt_notes.h"
#define VSC_PROBE_LAYOUT_ONLY
#include "vsc/probe.h"
#include "userspace/util/array.h"
#include "userspace/util/diag.h"

/* The log layout is written by probe.h and read by the BPF program through
 * record.h: they must agree byte for byte. */
_Static_assert(sizeof(struct vsc_probe_entry) == sizeof(struct vsc_record_entry), "entry");
_Static_assert(sizeof(struct vsc_probe_log) == sizeof(struct vsc_record_log), "log");
_Static_assert(VSC_PROBE_LOG_CAP == VSC_RECORD_LOG_CAP, "log capacity");
_Static_assert(VSC_PROBE_LOG_MAGIC == VSC_RECORD_LOG_MAGIC, "log magic");
_Static_assert(__builtin_offsetof(struct vsc_probe_log, entries) ==
		       __builtin_offsetof(struct vsc_record_log, entries),
	       "log header");

/* "every entry below seq was read": written into the log at addr */
struct ack {
	uint64_t addr, seq;
};

struct vsc_probe_source {
	struct capture_source base; /* first: the recorder's view */
	size_t ring_size;
	bool verbose;
	struct recorder *rec;
	struct record *skel;
	struct ring_buffer *ring;
	struct trace_writer *writer; /* while polling or draining */
	struct vsc_target *target;
	struct bpf_link **links;
	size_t link_count, link_cap;
	char **attached; /* paths looked at (with or without probes) */
	size_t attached_count, attached_cap;
	int files;                     /* files with vsc probes, attached */
	struct bpf_link *end_links[2]; /* sys_enter, signal_deliver */
	struct fork_watch forks;
	struct foreign_watch foreign;  /* stores and mappings from outside */
	struct bpf_link **block_links; /* vsc:block, one per file */
	size_t block_link_count, block_link_cap;
	struct ack *acks; /* to write into the target after a poll */
	size_t ack_count, ack_cap;
	bool block;                 /* threads wait for acknowledgements */
	char no_block_why[512];     /* why back-pressure stopped */
	uint64_t end_batches;       /* records made at a thread's end */
	uint64_t drain_lost;        /* entries of ended threads nobody could read, or
				      of an old thread after its id was used again */
	uint64_t drain_rmw_unknown; /* stores or RMWs announced at the end, performed or not */
	uint64_t drain_unread;      /* logs that could not be read at the end */
	uint64_t drained;           /* events read from logs at the end */
	uint64_t records;           /* ring records read */
	uint64_t records_late;      /* of them after the logs were read at the end */
	int error;                  /* first failure inside the ring callback */
	int moved;
	uint64_t unsupported; /* probe events of a size no trace holds (16 bytes) */
	unsigned unsupported_size;
	size_t late_files; /* files with probes first found after the start */
	char late_path[256];
	char split_obj[2][256]; /* split_logs' two probe sites' files, once known */
	pid_t *exact_start;     /* -p: threads stepped past a look at the probe */
	size_t exact_count, exact_cap;
	size_t start_threads; /* -p: threads stopped at the start */
};

static int print_quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level, (void)fmt, (void)ap;
	return 0;
}

static int print_verbose(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

/* One log entry as the capture event the writer takes. */
static struct vsc_capture_event event_of(const struct vsc_record_entry *en, uint64_t seq,
					 uint32_t pid, uint32_t tid)
{
	return (struct vsc_capture_event){
		.seq = seq,
		.addr = en->addr,
		.value = en->value,
		.new_value = en->new_value,
		.ts_ns = en->ts_ns,
		.ip = en->ip,
		.pid = pid,
		.tid = tid,
		.kind = en->kind,
		.size = en->size,
		.flags = en->flags & VSC_RECORD_F_AT_START ? VSC_CAP_F_AT_START : 0,
	};
}

static bool start_is_exact(const struct vsc_probe_source *src, uint32_t tid)
{
	for (size_t i = 0; i < src->exact_count; i++)
		if ((uint32_t)src->exact_start[i] == tid)
			return true;
	return false;
}

/* Entries [from, log->count) of the log of the instance-th thread with id
 * tid into the writer (a thread id used again starts its sequence again). */
static int add_entries(struct vsc_probe_source *src, const struct vsc_record_log *log,
		       uint32_t from, uint32_t pid, uint32_t tid, uint32_t instance)
{
	int stale = trace_writer_thread_instance(src->writer, pid, tid, instance);
	if (stale < 0)
		return stale;
	if (stale) { /* an older thread's entries after a newer one's: unplaceable */
		src->drain_lost += log->count > from ? log->count - from : 0;
		return 0;
	}
	for (uint32_t i = from; i < log->count; i++) {
		struct vsc_capture_event e = event_of(&log->entries[i], log->seq + i, pid, tid);
		/* the thread was stepped past a look at the probe before it came
		 * on: its first look that saw it off came before the start and
		 * the access after it lies after the start (see exact_start) */
		if ((e.flags & VSC_CAP_F_AT_START) && start_is_exact(src, tid))
			e.flags &= ~(uint32_t)VSC_CAP_F_AT_START;
		if (e.kind < VSC_CAP_SEGMENT && e.size != 1 && e.size != 2 && e.size != 4 &&
		    e.size != 8) {
			/* a probe on a 16-byte object: no trace holds it; counted
			 * lost here (a gap, or none at a thread's start or end) */
			src->unsupported++;
			src->unsupported_size = e.size;
			continue;
		}
		int err = trace_writer_add(src->writer, &e);
		if (err == -ENOMEM)
			return err;
		src->moved += err == 0;
	}
	return 0;
}

static int queue_ack(struct vsc_probe_source *src, uint64_t addr, uint64_t seq)
{
	for (size_t i = 0; i < src->ack_count; i++)
		if (src->acks[i].addr == addr) {
			if (src->acks[i].seq < seq)
				src->acks[i].seq = seq;
			return 0;
		}
	if (array_reserve((void **)&src->acks, &src->ack_cap, src->ack_count + 1,
			  sizeof(*src->acks), 64))
		return -ENOMEM;
	src->acks[src->ack_count++] = (struct ack){ addr, seq };
	return 0;
}

/* Stop making threads wait: they see the semaphore drop, fire their batch
 * once more without blocking, and what does not fit is counted lost. */
static void stop_blocking(struct vsc_probe_source *src, const char *why)
{
	if (!src->block)
		return;
	snprintf(src->no_block_why, sizeof(src->no_block_why), "%s", why);
	src->block = false;
	for (size_t i = 0; i < src->block_link_count; i++)
		bpf_link__destroy(src->block_links[i]);
	src->block_link_count = 0;
	diag("record",
	     "WARNING: back-pressure stopped (%s); events that do not fit "
	     "from now on are lost and counted",
	     why);
}

/* Tell the threads which batches were read (their wait ends). A thread
 * that is gone meanwhile is no failure; a refusal ends back-pressure. */
static void write_acks(struct vsc_probe_source *src)
{
	for (size_t i = 0; i < src->ack_count; i++) {
		const size_t at = __builtin_offsetof(struct vsc_record_log, acked);
		uint64_t seq = src->acks[i].seq;
		struct iovec local = { &seq, sizeof(seq) };
		struct iovec remote = { (void *)(uintptr_t)(src->acks[i].addr + at), sizeof(seq) };
		if (process_vm_writev(src->target->pid, &local, 1, &remote, 1, 0) < 0 &&
		    (errno == EPERM || errno == EACCES)) {
			char why[128];
			snprintf(why, sizeof(why), "cannot write into process %ld: %s",
				 (long)src->target->pid, strerror(errno));
			stop_blocking(src, why);
			break;
		}
	}
	src->ack_count = 0;
}

static int on_event(void *ctx, void *data, size_t size)
{
	struct vsc_probe_source *src = ctx;
	const struct vsc_record_batch *b = data;
	src->records++;
	if (size < sizeof(*b) || b->log.count > VSC_RECORD_LOG_CAP)
		return 0;
	if (b->origin != VSC_RECORD_FROM_BATCH)
		src->end_batches++;
	int err = add_entries(src, &b->log, b->skip, b->pid, b->tid, b->instance);
	if (!err && b->origin == VSC_RECORD_FROM_BATCH && src->block)
		err = queue_ack(src, b->log_addr, b->log.seq + b->log.count);
	if (err) {
		src->error = err;
		return err;
	}
	return 0;
}

/* Acknowledgements are written into the target as a debugger would; a
 * write of nothing tells whether the kernel allows it. */
static int can_acknowledge(const struct vsc_target *t)
{
	char probe = 0;
	struct iovec local = { &probe, 0 }, remote = { NULL, 0 };
	if (!t)
		return -ESRCH;
	return process_vm_writev(t->pid, &local, 1, &remote, 1, 0) < 0 ? -errno : 0;
}

/* Hand over the logs of threads that end (exit, kill, exec) while their
 * memory is there. Without these hooks such logs are counted, not read. */
static void attach_end_hooks(struct vsc_probe_source *src)
{
	struct bpf_program *progs[2] = { src->skel->progs.vsc_sys_enter,
					 src->skel->progs.vsc_signal_deliver };
	for (int i = 0; i < 2; i++) {
		src->end_links[i] = bpf_program__attach(progs[i]);
		if (!src->end_links[i])
			diag("record",
			     "warning: cannot attach %s (%s): logs of threads "
			     "ending that way are counted as lost, not read",
			     bpf_program__section_name(progs[i]), strerror(errno));
	}
	foreign_watch_init(&src->foreign, &src->skel->bss->foreign, src->skel->maps.shared_mappers,
			   src->end_links[0] != NULL);
	foreign_watch_attach_vmas(&src->foreign, src->skel->progs.vsc_shared_vmas,
				  (int)src->target->pid);
	fork_watch_attach(&src->forks, src->skel->progs.vsc_fork, src->skel->progs.vsc_exec);
	if (!src->target->launched) /* -p: children it had before we came */
		fork_watch_count_existing(&src->forks, (int)src->target->pid);
}

/* The writers its BPF program sees that it cannot record (foreign.h). */
static const struct foreign_watch *foreign_of(const struct capture_source *base)
{
	return &((const struct vsc_probe_source *)base)->foreign;
}

/* Children that ran the program's code without exec (forks.h). */
static uint64_t children_unrecorded(const struct vsc_probe_source *src)
{
	return src->skel ? src->skel->bss->children_forked - src->skel->bss->children_execed : 0;
}

static int probe_source_open(struct vsc_probe_source *src, char *why, size_t why_len)
{
	int err;
	libbpf_set_print(src->verbose ? print_verbose : print_quiet);
	src->skel = record__open();
	if (!src->skel) {
		err = -errno;
		snprintf(why, why_len, "cannot open the BPF object: %s", strerror(-err));
		goto fail;
	}
	src->skel->rodata->target_pid = (uint32_t)src->target->pid;
	src->skel->rodata->recorder_pid = (uint32_t)getpid();
	src->skel->rodata->has_find_vma = foreign_has_find_vma();
	size_t ring = src->ring_size ? src->ring_size : VSC_RECORD_DEFAULT_RING;
	err = bpf_map__set_max_entries(src->skel->maps.events, (uint32_t)ring);
	if (err) {
		snprintf(why, why_len, "bad ring size %zu: %s", ring, strerror(-err));
		goto fail;
	}
	err = pid_max_map_fit(src->skel->maps.logs); /* a full map leaves a thread waiting */
	if (err) {
		snprintf(why, why_len, "cannot size the map of thread logs: %s", strerror(-err));
		goto fail;
	}
	err = record__load(src->skel);
	if (err) {
		snprintf(why, why_len,
			 "cannot load the BPF programs: %s (needs root or CAP_BPF+CAP_PERFMON, "
			 "a kernel with BPF ring buffers (5.8+); --ring-size must be a power of 2 "
			 "multiple of the page size)",
			 strerror(-err));
		goto fail;
	}
	src->ring = ring_buffer__new(bpf_map__fd(src->skel->maps.events), on_event, src, NULL);
	if (!src->ring) {
		err = -errno;
		snprintf(why, why_len, "cannot open the BPF ring buffer: %s", strerror(-err));
		goto fail;
	}
	if (src->block && (err = can_acknowledge(src->target)) < 0) {
		char reason[128];
		snprintf(reason, sizeof(reason), "cannot write into process %ld: %s",
			 (long)src->target->pid, strerror(-err));
		stop_blocking(src, reason);
	}
	attach_end_hooks(src);
	return 0;
fail:
	return err;
}

static bool already_attached(const struct vsc_probe_source *src, const char *path)
{
	for (size_t i = 0; i < src->attached_count; i++)
		if (strcmp(src->attached[i], path) == 0)
			return true;
	return false;
}

static int attach_file(struct vsc_probe_source *src, const char *path, char *why, size_t why_len)
{
	struct bpf_program *progs[3] = { src->skel->progs.vsc_block, src->skel->progs.vsc_log,
					 src->skel->progs.vsc_batch };
	const char *names[3] = { "block", "log", "batch" };
	if (vsc_usdt_count(path, "vsc", "block") <= 0) {
		snprintf(
			why, why_len,
			"%s was built with an older <vsc/probe.h> (no vsc:block probe): rebuild it",
			path);
		return -ENOEXEC;
	}
	/* vsc:block's semaphore tells the threads to wait for acknowledgements:
	 * it goes up first, so no batch is fired without it; vsc:batch's goes
	 * last, as it switches logging on */
	for (int i = src->block ? 0 : 1; i < 3; i++) {
		struct bpf_link ***set = i == 0 ? &src->block_links : &src->links;
		size_t *count = i == 0 ? &src->block_link_count : &src->link_count;
		size_t *cap = i == 0 ? &src->block_link_cap : &src->link_cap;
		if (array_reserve((void **)set, cap, *count + 1, sizeof(**set), 4))
			return -ENOMEM;
		struct bpf_link **links = *set;
		struct bpf_link *link = bpf_program__attach_usdt(progs[i], src->target->pid, path,
								 "vsc", names[i], NULL);
		if (!link) {
			int err = -errno;
			snprintf(why, why_len, "cannot attach to vsc:%s in %s: %s", names[i], path,
				 strerror(-err));
			return err;
		}
		links[(*count)++] = link;
	}
	src->files++;
	return 0;
}

static int remember_path(struct vsc_probe_source *src, const char *path)
{
	if (ARRAY_RESERVE(src->attached, src->attached_cap, src->attached_count + 1))
		return -ENOMEM;
	src->attached[src->attached_count] = strdup(path);
	if (!src->attached[src->attached_count])
		return -ENOMEM;
	src->attached_count++;
	return 0;
}

/* How attach_files treats a file with probes it has not seen yet. */
enum scan_mode {
	SCAN_START, /* mapped at the start: attach */
	SCAN_LATE,  /* mapped since (dlopen): attach, and note it was late */
	SCAN_LOOK,  /* the last look, the threads stopped: only note it */
};

/* A file with probes mapped after the recording began: its probes were
 * off until it was found (the recorder looks every 500 ms), so its
 * accesses before are not recorded, and nothing counts them. (With its
 * semaphores and log its own, the file cannot tell whether it ran.) */
static void note_late(struct vsc_probe_source *src, const char *path)
{
	if (!src->late_files++)
		snprintf(src->late_path, sizeof(src->late_path), "%s", path);
}

static int attach_files(struct vsc_probe_source *src, const char *extra_path, enum scan_mode mode,
			char *why, size_t why_len)
{
	char maps[64], line[4096 + 256];
	int err = 0;

	snprintf(maps, sizeof(maps), "/proc/%ld/maps", (long)src->target->pid);
	FILE *in = fopen(maps, "re");
	if (!in) {
		snprintf(why, why_len, "cannot read %s: %s", maps, strerror(errno));
		return -errno;
	}
	/* the extra path first (the executable of a launched command) */
	const char *path = extra_path;
	while (!err) {
		if (!path) {
			if (!fgets(line, sizeof(line), in))
				break;
			char *slash = strchr(line, '/');
			if (!slash)
				continue;
			slash[strcspn(slash, "\n")] = '\0';
			if (strstr(slash, " (deleted)"))
				continue;
			path = slash;
		}
		if (!already_attached(src, path)) {
			err = remember_path(src, path);
			if (!err && vsc_usdt_count(path, "vsc", "batch") > 0) {
				if (mode != SCAN_START)
					note_late(src, path);
				if (mode != SCAN_LOOK)
					err = attach_file(src, path, why, why_len);
			}
		}
		path = NULL;
	}
	fclose(in);
	return err ? err : src->files;
}

static int poll_ring(struct vsc_probe_source *src, int timeout_ms)
{
	src->moved = 0;
	int n = recorder_read_ring(src->ring, timeout_ms);
	if (src->ack_count)
		write_acks(src);
	if (src->error)
		return src->error;
	return n < 0 ? n : src->moved;
}

/* The log of one thread, read from the target's memory; 0, or -1 when it
 * is not there (gone, reused by another thread) or moves while read. */
static int read_log(struct vsc_probe_source *src, uint32_t tid, uint64_t addr,
		    struct vsc_record_log *log)
{
	const size_t header = __builtin_offsetof(struct vsc_record_log, entries);
	struct vsc_record_log again;
	if (vsc_target_read(src->target, addr, log, header) != (ssize_t)header ||
	    log->magic != VSC_RECORD_LOG_MAGIC || log->tid != tid ||
	    log->count > VSC_RECORD_LOG_CAP)
		return -1;
	size_t bytes = log->count * sizeof(log->entries[0]);
	if (vsc_target_read(src->target, addr + header, log->entries, bytes) != (ssize_t)bytes ||
	    vsc_target_read(src->target, addr, &again, header) != (ssize_t)header ||
	    again.seq != log->seq || again.count != log->count || again.pending != log->pending)
		return -1;
	return 0;
}

/* A store or RMW announced and not published (pending) may have been
 * performed: let the stopped thread run a few instructions until it is
 * published. */
static int settle_pending(struct vsc_probe_source *src, uint32_t tid, uint64_t addr,
			  struct vsc_record_log *log)
{
	for (int step = 0; step < 100000 && log->pending > log->count; step++) {
		if (vsc_target_step(src->target, (pid_t)tid) || read_log(src, tid, addr, log))
			return -1;
	}
	return log->pending > log->count ? -1 : 0;
}

/* Read one thread's log from next_seq on (what the ring did not carry). */
static int drain_one(struct vsc_probe_source *src, uint32_t tid,
		     const struct vsc_record_log_ref *ref)
{
	struct vsc_record_log *log = malloc(sizeof(*log));
	bool ended = ref->flags & (VSC_RECORD_LOG_ENDED | VSC_RECORD_LOG_EXECED);
	int err = 0;
	if (!log)
		return -ENOMEM;
	if (read_log(src, tid, ref->addr, log) == 0 && (!ended || log->seq <= ref->next_seq)) {
		if (log->pending > log->count &&
		    (ended || settle_pending(src, tid, ref->addr, log)))
			src->drain_rmw_unknown++;
		uint64_t skip = ref->next_seq > log->seq ? ref->next_seq - log->seq : 0;
		err = add_entries(src, log, skip < log->count ? (uint32_t)skip : log->count,
				  ref->pid, tid, ref->instance);
	} else if (ended && (ref->flags & VSC_RECORD_LOG_UNREAD)) {
		/* its memory is gone, and its end could not read it either */
		src->drain_unread++;
	} else if (ended) {
		/* its memory is gone: the thread-end hook said what it held */
		src->drain_lost += ref->unsent;
		if (ref->flags & VSC_RECORD_LOG_PENDING)
			src->drain_rmw_unknown++;
	} else {
		/* a live thread whose log cannot be read: how much it held is
		 * unknown */
		src->drain_unread++;
	}
	free(log);
	return err;
}

static int drain_logs(struct vsc_probe_source *src)
{
	int fd = bpf_map__fd(src->skel->maps.logs);
	uint32_t key, next;
	uint32_t *prev = NULL;
	struct vsc_record_log_ref ref;
	src->moved = 0;
	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &ref) || ref.pid != (uint32_t)src->target->pid)
			continue;
		int err = drain_one(src, key, &ref);
		if (err < 0)
			return err;
	}
	return src->moved;
}

/* A segment's name, read from the target when the writer first meets its
 * marker (once per segment: no table of names to search). */
static int segment_name(struct capture_source *base, int64_t id, uint64_t name_addr, char *buf,
			size_t len)
{
	const struct vsc_probe_source *src = (const struct vsc_probe_source *)base;
	(void)id;
	if (!name_addr || !src->target || len < 2)
		return -ENOENT;
	size_t want = len - 1 < 64 ? len - 1 : 64;
	ssize_t n = vsc_target_read(src->target, name_addr, buf, want);
	if (n <= 0)
		return -ENOENT;
	buf[n] = '\0';
	return buf[0] ? 0 : -ENOENT;
}

static void detach(struct vsc_probe_source *src)
{
	for (size_t i = 0; i < src->link_count; i++)
		bpf_link__destroy(src->links[i]);
	src->link_count = 0;
	for (size_t i = 0; i < src->block_link_count; i++)
		bpf_link__destroy(src->block_links[i]);
	src->block_link_count = 0;
	for (int i = 0; i < 2; i++) {
		bpf_link__destroy(src->end_links[i]);
		src->end_links[i] = NULL;
	}
	fork_watch_detach(&src->forks);
}

static void close_source(struct capture_source *base)
{
	struct vsc_probe_source *src = (struct vsc_probe_source *)base;
	if (!src)
		return;
	detach(src);
	foreign_watch_detach(&src->foreign);
	free(src->links);
	free(src->block_links);
	free(src->acks);
	free(src->exact_start);
	for (size_t i = 0; i < src->attached_count; i++)
		free(src->attached[i]);
	free(src->attached);
	ring_buffer__free(src->ring);
	record__destroy(src->skel);
	free(src);
}

/* -p: every thread is stopped and the probes are still off. A thread may
 * be stopped inside a helper's access, between its look at the probe (off)
 * and its second look: that access would then be marked as straddling the
 * start, its place unknown. Run each thread, one instruction at a time, to
 * just after its next look at the probe (a hardware data breakpoint on
 * vsc_batch_semaphore): an access whose second look is still to come is
 * performed before the start (and not logged), and an access marked later
 * comes after the thread's last look that saw the probe off, which was
 * before the start: after it. A thread that makes no look within the steps
 * (in a system call, a signal, code without probes) keeps the sound marking
 * (it can only matter if it was inside a helper after all). */
#define START_STEPS 4096

static void exact_start(struct vsc_probe_source *src, struct recorder *rec)
{
	uint64_t addr, size;
	struct vsc_target *t = src->target;
	struct vsc_symbols *syms = recorder_symbols(rec);
	if (t->launched || !t->stopped_count || !syms ||
	    vsc_symbols_find(syms, "vsc_batch_semaphore", &addr, &size) || size != 2)
		return;
	for (size_t i = 0; i < t->stopped_count; i++) {
		pid_t tid = t->stopped[i];
		if (tid <= 0)
			continue;
		src->start_threads++;
		int r = vsc_target_step_to_read(t, tid, addr, 2, START_STEPS);
		if (r == 1 &&
		    !ARRAY_RESERVE(src->exact_start, src->exact_cap, src->exact_count + 1))
			src->exact_start[src->exact_count++] = tid;
		if (r < 0 && r != -ESRCH && src->verbose)
			recorder_say(rec, "thread %ld: cannot step it to the probe: %s", (long)tid,
				     strerror(-r));
	}
}

/* ---- the recorder's interface (recorder.h) ----------------------------- */

static int attach(struct capture_source *base, struct recorder *rec)
{
	struct vsc_probe_source *src = (struct vsc_probe_source *)base;
	char why[512];
	src->rec = rec;
	src->target = recorder_target(rec);
	int r = probe_source_open(src, why, sizeof(why));
	if (!r)
		exact_start(src, rec);
	if (!r)
		r = attach_files(src, src->target->exe[0] ? src->target->exe : NULL, SCAN_START,
				 why, sizeof(why));
	if (r > 0)
		return 0;
	if (r == 0)
		recorder_say(rec,
			     "no vsc probes in %s or its loaded libraries (build it with #include "
			     "<vsc/probe.h> and use its VSC_PROBE_* macros or vsc_* helpers)",
			     src->target->exe);
	else
		recorder_say(rec, "%s", why);
	return r ? r : -ENOENT;
}

static int poll_source(struct capture_source *base, struct trace_writer *w, int timeout_ms)
{
	struct vsc_probe_source *src = (struct vsc_probe_source *)base;
	src->writer = w;
	return poll_ring(src, timeout_ms);
}

/* The file mapped at ip in the target (its path), or "" when not known. */
static void file_at(const struct vsc_probe_source *src, uint64_t ip, char *buf, size_t len)
{
	char maps[64], line[4096 + 256];
	unsigned long long lo, hi;
	buf[0] = '\0';
	snprintf(maps, sizeof(maps), "/proc/%ld/maps", (long)src->target->pid);
	FILE *in = fopen(maps, "re");
	if (!in)
		return;
	while (fgets(line, sizeof(line), in)) {
		char *slash = strchr(line, '/');
		if (sscanf(line, "%llx-%llx", &lo, &hi) != 2 || ip < lo || ip >= hi || !slash)
			continue;
		slash[strcspn(slash, "\n")] = '\0';
		snprintf(buf, len, "%s", slash);
		break;
	}
	fclose(in);
}

/* Name the files of the probe sites of a thread's two logs (split_logs)
 * while the process is there. */
static void name_split(struct vsc_probe_source *src)
{
	if (!src->skel || !src->skel->bss->split_logs || src->split_obj[0][0])
		return;
	for (int i = 0; i < 2; i++)
		file_at(src, src->skel->bss->split_ip[i], src->split_obj[i],
			sizeof(src->split_obj[i]));
}

static void rescan(struct capture_source *base, struct recorder *rec)
{
	struct vsc_probe_source *src = (struct vsc_probe_source *)base;
	char why[512];
	if (attach_files(src, NULL, SCAN_LATE, why, sizeof(why)) < 0)
		recorder_say(rec, "%s", why);
	name_split(src);
}

/* With every thread stopped or gone, no record can come after the logs
 * were read: one that does (a thread that ended meanwhile), or one made
 * and not read, would be a loss nobody counted. Read what is there, and
 * count the rest as unknown. */
static int read_late(struct vsc_probe_source *src)
{
	uint64_t before = src->records;
	int n = poll_ring(src, 0);
	if (n < 0)
		return n;
	src->records_late = src->records - before;
	uint64_t made = src->skel->bss->batches;
	if (made > src->records)
		src->records_late += made - src->records;
	return 0;
}

/* What the ring buffer holds, then the part-filled logs from where the
 * ring left off: of stopped threads, or (the process gone) as the thread-end
 * hooks left them, counted; the probes go before the threads run again. */
static int drain(struct capture_source *base, struct trace_writer *w, bool threads_stopped)
{
	struct vsc_probe_source *src = (struct vsc_probe_source *)base;
	int n;
	src->writer = w;
	/* the last look: a file with probes mapped since the last rescan (a
	 * library loaded by dlopen just now) was never attached */
	if (threads_stopped && !src->target->ended && !src->target->exec_done) {
		char why[512];
		(void)attach_files(src, NULL, SCAN_LOOK, why, sizeof(why));
	}
	name_split(src);
	while ((n = poll_ring(src, 0)) > 0)
		;
	if (n >= 0 && (threads_stopped || src->target->ended)) {
		n = drain_logs(src);
		src->drained = n > 0 ? (uint64_t)n : 0;
		if (n >= 0)
			n = read_late(src);
	} else if (n >= 0) {
		/* threads that could not be stopped: their logs are not read */
		src->drain_unread++;
	}
	if (src->verbose)
		recorder_say(src->rec,
			     "%" PRIu64 " batches (%" PRIu64 " at a thread's end), %" PRIu64
			     " waits for room, %" PRIu64 " events read from logs at the end",
			     (uint64_t)src->skel->bss->batches, src->end_batches,
			     (uint64_t)src->skel->bss->waits, src->drained);
	detach(src);
	return n < 0 ? n : 0;
}

/* -p: the main thread left by its own exit while others lived
 * (record.bpf.c's main_left), and the recorder did not see it itself
 * (target.h's leader_gone: the threads were gone by its next look). */
static bool main_left_unnoted(const struct vsc_probe_source *src)
{
	return src->skel && src->skel->bss->main_left && !src->target->launched &&
	       !src->target->leader_gone;
}

static uint64_t lost(const struct capture_source *base, bool *exact)
{
	const struct vsc_probe_source *src = (const struct vsc_probe_source *)base;
	if (!src->skel) {
		*exact = true;
		return 0;
	}
	*exact = src->skel->bss->maybe_lost == 0 && src->drain_rmw_unknown == 0 &&
		 src->drain_unread == 0 && foreign_watch_exact(&src->foreign) &&
		 fork_watch_exact(&src->forks, children_unrecorded(src));
	*exact = *exact && src->skel->bss->unread_logs == 0 && src->records_late == 0 &&
		 !main_left_unnoted(src) && src->skel->bss->split_logs == 0 && src->late_files == 0;
	return src->skel->bss->lost + src->drain_lost + src->unsupported;
}

/* Why the number of lost events is not known, when it is not: said on
 * stderr and in the trace's header (a program killed mid-run, SIGKILL,
 * leaves RMWs half done and logs nobody can read). */
static int unknown_loss_why(const struct vsc_probe_source *src, char *buf, size_t len)
{
	uint64_t rmw = src->skel ? src->skel->bss->maybe_lost + src->drain_rmw_unknown : 0;
	int n = 0;
	if (rmw)
		n = snprintf(buf, len,
			     "%" PRIu64 " threads ended or stopped inside a store or "
			     "read-modify-write "
			     "(announced, not published: whether it was performed is unknown)",
			     rmw);
	uint64_t unread = src->skel ? src->skel->bss->unread_logs : 0;
	if (unread && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n,
			      "%s%" PRIu64 " thread logs could not be read where they were "
			      "handed over (at a thread's end, or in drop mode)",
			      n ? "; " : "", unread);
	if (src->records_late && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n,
			      "%s%" PRIu64 " ring records came after the logs were read at "
			      "the end, or were not read",
			      n ? "; " : "", src->records_late);
	if (src->drain_unread && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n,
			      "%s%" PRIu64 " thread logs could not be read at the end "
			      "(threads not stopped, or memory gone: what they held is unknown)",
			      n ? "; " : "", src->drain_unread);
	if (main_left_unnoted(src) && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n,
			      "%sthe main thread exited while %u threads ran on (gone by the "
			      "recorder's next look): the kernel drops the probes of a "
			      "process whose main thread is gone, so what they did after "
			      "is not recorded",
			      n ? "; " : "", (unsigned)src->skel->bss->main_left_threads);
	uint64_t split = src->skel ? src->skel->bss->split_logs : 0;
	if (split && n >= 0 && (size_t)n < len) {
		const char *a = src->split_obj[0][0] ? src->split_obj[0] : "one file";
		const char *b = src->split_obj[1][0] ? src->split_obj[1] : "another";
		n += snprintf(buf + n, len - (size_t)n,
			      "%sa thread used two probe logs (thread %u, %" PRIu64
			      " switches; probes of %s and %s): a library with its own copy of "
			      "the probes' per-thread state (-fvisibility=hidden, or dlopen "
			      "without -rdynamic) logs apart, the order between the logs is lost",
			      n ? "; " : "", (unsigned)src->skel->bss->split_tid, split,
			      strcmp(a, b) ? a : "one file", strcmp(a, b) ? b : "itself");
	}
	if (src->late_files && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n,
			      "%s%zu file%s with probes mapped after the recording began (%s%s, "
			      "a dlopen?): %s accesses before the recorder found %s are not "
			      "recorded (link the library or LD_PRELOAD it, so it is there at "
			      "the start)",
			      n ? "; " : "", src->late_files, src->late_files == 1 ? "" : "s",
			      src->late_files == 1 ? "" : "the first ", src->late_path,
			      src->late_files == 1 ? "its" : "their",
			      src->late_files == 1 ? "it" : "them");
	n = foreign_watch_why(&src->foreign, buf, len, n);
	n = fork_watch_why(&src->forks, children_unrecorded(src), buf, len, n);
	return n > 0;
}

/* Probe events of an access size the trace cannot hold (dropped, and
 * their sequence numbers counted lost: the ring buffer is not the cause). */
static int unsupported_why(const struct vsc_probe_source *src, char *buf, size_t len)
{
	if (!src->unsupported)
		return 0;
	snprintf(buf, len,
		 "%" PRIu64 " probe events of an unsupported access size (%u bytes; "
		 "the probes record 1, 2, 4 or 8) were dropped and are counted lost: "
		 "record such an access as two 8-byte ones",
		 src->unsupported, src->unsupported_size);
	return 1;
}

static void report(struct capture_source *base)
{
	struct vsc_probe_source *src = (struct vsc_probe_source *)base;
	char why[2048];
	if (unsupported_why(src, why, sizeof(why)))
		recorder_say(src->rec, "%s", why);
	if (unknown_loss_why(src, why, sizeof(why)))
		recorder_say(src->rec, "lost events not counted exactly: %s", why);
}

/* Said in the header when back-pressure had to stop. */
static void notes(struct capture_source *base, struct trace_writer *w)
{
	struct vsc_probe_source *src = (struct vsc_probe_source *)base;
	if (src->no_block_why[0])
		trace_writer_note(w, "back-pressure stopped", src->no_block_why);
	if (src->start_threads) {
		char text[160];
		snprintf(text, sizeof(text),
			 "%zu threads stopped, %zu of them stepped past a look at the probe",
			 src->start_threads, src->exact_count);
		trace_writer_note(w, "start of recording", text);
	}
	char why[2048];
	if (unsupported_why(src, why, sizeof(why)))
		trace_writer_note(w, "unsupported access size", why);
	if (unknown_loss_why(src, why, sizeof(why)))
		trace_writer_note(w, "loss not known exactly", why);
}

static bool execed(const struct capture_source *base)
{
	const struct vsc_probe_source *src = (const struct vsc_probe_source *)base;
	return src->skel && src->skel->bss->target_execs;
}

static const struct capture_source_ops probe_ops = {
	.attach = attach,
	.poll = poll_source,
	.rescan = rescan,
	.drain = drain,
	.lost = lost,
	.notes = notes,
	.report = report,
	.segment_name = segment_name,
	.foreign = foreign_of,
	.execed = execed,
	.close = close_source,
};

struct capture_source *probe_source_new(size_t ring_size, bool lossy, bool verbose)
{
	struct vsc_probe_source *src = calloc(1, sizeof(*src));
	if (!src)
		return NULL;
	src->base.ops = &probe_ops;
	src->ring_size = ring_size;
	src->block = !lossy;
	src->verbose = verbose;
	return &src->base;
}
