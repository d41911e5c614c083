/* SPDX-License-Identifier: MIT */
/* The USDT probe capture source (see probe_source.h). */
#include "probe_source.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "record.h"
#include "record.skel.h"
#include "usdt_notes.h"
#define VSC_PROBE_LAYOUT_ONLY
#include "vsc/probe.h"

/* The log layout is written by probe.h and read by the BPF program through
 * record.h: they must agree byte for byte. */
_Static_assert(sizeof(struct vsc_probe_entry) == sizeof(struct vsc_record_entry), "entry");
_Static_assert(sizeof(struct vsc_probe_log) == sizeof(struct vsc_record_log), "log");
_Static_assert(VSC_PROBE_LOG_CAP == VSC_RECORD_LOG_CAP, "log capacity");
_Static_assert(VSC_PROBE_LOG_MAGIC == VSC_RECORD_LOG_MAGIC, "log magic");
_Static_assert(__builtin_offsetof(struct vsc_probe_log, entries) ==
		       __builtin_offsetof(struct vsc_record_log, entries),
	       "log header");

struct segment_name {
	int64_t id;
	char name[64];
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
	size_t link_count;
	char **attached; /* paths looked at (with or without probes) */
	size_t attached_count;
	int files; /* files with vsc probes, attached */
	struct segment_name *segments;
	size_t segment_count;
	int error; /* first failure inside the ring callback */
	int moved;
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

static void remember_segment(struct vsc_probe_source *src, const struct vsc_capture_event *e)
{
	for (size_t i = 0; i < src->segment_count; i++)
		if (src->segments[i].id == e->value)
			return;
	struct segment_name *p =
		realloc(src->segments, (src->segment_count + 1) * sizeof(*p));
	if (!p)
		return; /* the segment keeps its default name */
	src->segments = p;
	struct segment_name *s = &p[src->segment_count];
	s->id = e->value;
	s->name[0] = '\0';
	if (e->addr && src->target) {
		ssize_t n = vsc_target_read(src->target, e->addr, s->name, sizeof(s->name) - 1);
		s->name[n > 0 ? n : 0] = '\0';
		s->name[strnlen(s->name, sizeof(s->name) - 1)] = '\0';
	}
	src->segment_count++;
}

static int on_event(void *ctx, void *data, size_t size)
{
	struct vsc_probe_source *src = ctx;
	const struct vsc_capture_event *e = data;
	if (size < sizeof(*e))
		return 0;
	if (e->kind == VSC_CAP_SEGMENT)
		remember_segment(src, e);
	int err = trace_writer_add(src->writer, e);
	if (err == -ENOMEM) {
		src->error = err;
		return err;
	}
	src->moved++;
	return 0;
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
	size_t ring = src->ring_size ? src->ring_size : VSC_RECORD_DEFAULT_RING;
	err = bpf_map__set_max_entries(src->skel->maps.events, (uint32_t)ring);
	if (err) {
		snprintf(why, why_len, "bad ring size %zu: %s", ring, strerror(-err));
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
	struct bpf_program *progs[2] = { src->skel->progs.vsc_batch, src->skel->progs.vsc_log };
	const char *names[2] = { "batch", "log" };
	for (int i = 0; i < 2; i++) {
		struct bpf_link **links =
			realloc(src->links, (src->link_count + 1) * sizeof(*links));
		if (!links)
			return -ENOMEM;
		src->links = links;
		struct bpf_link *link = bpf_program__attach_usdt(progs[i], src->target->pid, path,
								 "vsc", names[i], NULL);
		if (!link) {
			int err = -errno;
			snprintf(why, why_len, "cannot attach to vsc:%s in %s: %s", names[i], path,
				 strerror(-err));
			return err;
		}
		src->links[src->link_count++] = link;
	}
	src->files++;
	return 0;
}

static int remember_path(struct vsc_probe_source *src, const char *path)
{
	char **attached = realloc(src->attached, (src->attached_count + 1) * sizeof(*attached));
	if (!attached)
		return -ENOMEM;
	src->attached = attached;
	src->attached[src->attached_count] = strdup(path);
	if (!src->attached[src->attached_count])
		return -ENOMEM;
	src->attached_count++;
	return 0;
}

static int attach_files(struct vsc_probe_source *src, const char *extra_path, char *why,
			size_t why_len)
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
			if (!err && vsc_usdt_count(path, "vsc", "batch") > 0)
				err = attach_file(src, path, why, why_len);
		}
		path = NULL;
	}
	fclose(in);
	return err ? err : src->files;
}

static int poll_ring(struct vsc_probe_source *src, int timeout_ms)
{
	src->moved = 0;
	int n = timeout_ms ? ring_buffer__poll(src->ring, timeout_ms) : 0;
	/* events submitted without a wakeup are there too */
	if (n >= 0 || n == -EINTR) {
		int m = ring_buffer__consume(src->ring);
		if (m < 0)
			n = m;
	}
	if (src->error)
		return src->error;
	if (n < 0 && n != -EINTR)
		return n;
	return src->moved;
}

/* Read one thread's log; entries become events as the BPF program makes them. */
static int drain_one(struct vsc_probe_source *src, uint32_t tid, uint64_t addr)
{
	struct vsc_record_log *log = malloc(sizeof(*log));
	struct vsc_record_log again;
	const size_t header = __builtin_offsetof(struct vsc_record_log, entries);
	int added = 0;
	if (!log)
		return -ENOMEM;
	if (vsc_target_read(src->target, addr, log, header) != (ssize_t)header ||
	    log->magic != VSC_RECORD_LOG_MAGIC || log->tid != tid || log->count == 0 ||
	    log->count > VSC_RECORD_LOG_CAP)
		goto out; /* gone, reused by another thread, or empty */
	size_t bytes = log->count * sizeof(log->entries[0]);
	if (vsc_target_read(src->target, addr + header, log->entries, bytes) != (ssize_t)bytes ||
	    vsc_target_read(src->target, addr, &again, header) != (ssize_t)header ||
	    again.seq != log->seq || again.count < log->count)
		goto out; /* the thread is still running: its batches come by probe */
	for (uint32_t i = 0; i < log->count; i++) {
		const struct vsc_record_entry *en = &log->entries[i];
		struct vsc_capture_event e = {
			.seq = log->seq + i, .addr = en->addr, .value = en->value,
			.new_value = en->new_value, .ts_ns = en->ts_ns, .ip = en->ip,
			.pid = (uint32_t)src->target->pid, .tid = tid, .kind = en->kind,
			.size = en->size,
		};
		if (e.kind == VSC_CAP_SEGMENT)
			remember_segment(src, &e);
		int err = trace_writer_add(src->writer, &e);
		if (err == -ENOMEM) {
			free(log);
			return err;
		}
		added += err == 0;
	}
out:
	free(log);
	return added;
}

static int drain_logs(struct vsc_probe_source *src)
{
	int fd = bpf_map__fd(src->skel->maps.logs), total = 0;
	uint32_t key, next;
	uint32_t *prev = NULL;
	struct vsc_record_log_ref ref;
	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &ref) || ref.pid != (uint32_t)src->target->pid)
			continue;
		int n = drain_one(src, key, ref.addr);
		if (n < 0)
			return n;
		total += n;
	}
	return total;
}

static int segment_name(struct capture_source *base, int64_t id, char *buf, size_t len)
{
	const struct vsc_probe_source *src = (const struct vsc_probe_source *)base;
	for (size_t i = 0; i < src->segment_count; i++)
		if (src->segments[i].id == id && src->segments[i].name[0]) {
			snprintf(buf, len, "%s", src->segments[i].name);
			return 0;
		}
	return -ENOENT;
}

static void detach(struct vsc_probe_source *src)
{
	for (size_t i = 0; i < src->link_count; i++)
		bpf_link__destroy(src->links[i]);
	src->link_count = 0;
}

static void close_source(struct capture_source *base)
{
	struct vsc_probe_source *src = (struct vsc_probe_source *)base;
	if (!src)
		return;
	detach(src);
	free(src->links);
	for (size_t i = 0; i < src->attached_count; i++)
		free(src->attached[i]);
	free(src->attached);
	free(src->segments);
	ring_buffer__free(src->ring);
	record__destroy(src->skel);
	free(src);
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
		r = attach_files(src, src->target->exe[0] ? src->target->exe : NULL, why,
				 sizeof(why));
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

static void rescan(struct capture_source *base, struct recorder *rec)
{
	struct vsc_probe_source *src = (struct vsc_probe_source *)base;
	char why[512];
	if (attach_files(src, NULL, why, sizeof(why)) < 0)
		recorder_say(rec, "%s", why);
}

/* What the ring buffer holds, then (threads stopped) the part-filled logs;
 * the probes go before the threads run again. */
static int drain(struct capture_source *base, struct trace_writer *w, bool threads_stopped)
{
	struct vsc_probe_source *src = (struct vsc_probe_source *)base;
	uint64_t drained = 0;
	int n;
	src->writer = w;
	while ((n = poll_ring(src, 0)) > 0)
		;
	if (n >= 0 && threads_stopped) {
		n = drain_logs(src);
		drained = n > 0 ? (uint64_t)n : 0;
	}
	if (src->verbose)
		recorder_say(src->rec,
			     "%" PRIu64 " batches, %" PRIu64 " events read from logs at the end",
			     (uint64_t)src->skel->bss->batches, drained);
	detach(src);
	return n < 0 ? n : 0;
}

static uint64_t lost(const struct capture_source *base, bool *exact)
{
	const struct vsc_probe_source *src = (const struct vsc_probe_source *)base;
	*exact = true;
	return src->skel ? src->skel->bss->lost : 0;
}

static const struct capture_source_ops probe_ops = {
	.attach = attach,
	.poll = poll_source,
	.rescan = rescan,
	.drain = drain,
	.lost = lost,
	.segment_name = segment_name,
	.close = close_source,
};

struct capture_source *probe_source_new(size_t ring_size, bool verbose)
{
	struct vsc_probe_source *src = calloc(1, sizeof(*src));
	if (!src)
		return NULL;
	src->base.ops = &probe_ops;
	src->ring_size = ring_size;
	src->verbose = verbose;
	return &src->base;
}
