/* SPDX-License-Identifier: MIT */
/* Watchpoint records -> trace events (see watch_events.h). */
#include "watch_events.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>

#include "userspace/util/diag.h"
#include "userspace/util/hash.h"

#include "llsc_guard.h"
#include "srcloc.h"
#include "symbols.h"
#include "trace_writer.h"

/* ip -> decoded instruction */
struct insn_entry {
	struct watch_insn insn;
	int found;
};

/* tid -> sequence renumbering, of the instance-th thread with this id */
struct thread_seq {
	uint64_t next_bpf;
	uint64_t next_out;
	uint32_t instance;
	struct llsc_guard llsc;
};

struct watch_events {
	enum watch_arch arch;
	const struct vsc_symbols *syms;
	struct trace_writer *writer;
	int exact_map_fd;
	struct srcloc *srcloc;
	struct watch_decoder *dec;
	struct hash_map insns; /* uint64_t ip -> struct insn_entry */
	struct hash_map seqs;  /* uint32_t tid -> struct thread_seq */
	struct watch_value_stats stats;
	uint64_t hits;
	uint64_t stale; /* hits of a thread after a newer one with its id: unplaceable */
	int error;
	bool target_gone;
};

struct watch_events *watch_events_new(pid_t pid, enum watch_arch arch,
				      const struct vsc_symbols *syms)
{
	struct watch_events *we = calloc(1, sizeof(*we));

	if (!we)
		return NULL;
	we->arch = arch;
	we->syms = syms;
	we->exact_map_fd = -1;
	hash_map_init(&we->insns, sizeof(uint64_t), sizeof(struct insn_entry));
	hash_map_init(&we->seqs, sizeof(uint32_t), sizeof(struct thread_seq));
	we->srcloc = srcloc_new(pid);
	we->dec = watch_decoder_new(arch);
	if (!we->srcloc || !we->dec) {
		int err = errno;
		watch_events_free(we);
		errno = err;
		return NULL;
	}
	return we;
}

void watch_events_free(struct watch_events *we)
{
	if (!we)
		return;
	srcloc_free(we->srcloc);
	watch_decoder_free(we->dec);
	hash_map_free(&we->insns);
	hash_map_free(&we->seqs);
	free(we);
}

void watch_events_set_writer(struct watch_events *we, struct trace_writer *writer)
{
	we->writer = writer;
}

void watch_events_set_exact_map(struct watch_events *we, int map_fd)
{
	we->exact_map_fd = map_fd;
}

void watch_events_target_gone(struct watch_events *we)
{
	we->target_gone = true;
}

uint64_t watch_events_hits(const struct watch_events *we)
{
	return we->hits;
}

uint64_t watch_events_stale(const struct watch_events *we)
{
	return we->stale;
}

const struct watch_value_stats *watch_events_stats(const struct watch_events *we)
{
	return &we->stats;
}

int watch_events_error(const struct watch_events *we)
{
	return we->error;
}

static int decode_ip(struct watch_events *we, uint64_t ip, struct watch_insn *insn)
{
	bool added;
	struct insn_entry *e = hash_map_put(&we->insns, &ip, &added);
	struct srcloc_function fn;
	/* x86 reports the next instruction: look up the function of ip - 1. */
	uint64_t probe = we->arch == WATCH_ARCH_X86_64 ? ip - 1 : ip;
	int err;

	if (!e)
		return -ENOMEM;
	if (!added) {
		*insn = e->insn;
		return e->found;
	}
	err = srcloc_function(we->srcloc, probe, &fn);
	if (err && !we->target_gone && srcloc_refresh(we->srcloc) == 0)
		err = srcloc_function(we->srcloc, probe, &fn); /* a library loaded since */
	if (err) {
		memset(insn, 0, sizeof(*insn));
		insn->reg = insn->reg2 = insn->pre_reg = -1;
		snprintf(insn->text, sizeof(insn->text), "no code found at ip");
	} else {
		err = watch_decoder_find(we->dec, fn.code, fn.code_len, fn.start, ip,
					 (size_t)fn.size, fn.bounded, insn);
	}
	e->insn = *insn;
	e->found = err;
	return err;
}

/* The recording stops (the poll fails); detaching the watchpoints then
 * lets the loop finish. */
static void report_llsc_livelock(struct watch_events *we, const struct watch_record *rec,
				 const struct watch_insn *insn, const struct llsc_guard *g)
{
	char where[320] = "";
	watch_events_locate(we, rec->ev.pid, insn->addr ? insn->addr : rec->ev.ip, where,
			    sizeof(where));
	diag("record --watch",
	     "thread %u is stuck at a load-exclusive on the watched "
	     "address 0x%" PRIx64 " (%s): %u hits in %.1f s, each reading the same value. "
	     "A watchpoint clears the exclusive monitor, so a load/store-exclusive loop "
	     "(atomics built for ARMv8.0) never finishes under it. The recording stops "
	     "here. Record this variable with probes (<vsc/probe.h>), or build the "
	     "program for ARMv8.1 or later (LSE atomics: -march=armv8.1-a); see "
	     "docs/watch.md.",
	     (unsigned)rec->ev.tid, (uint64_t)rec->ev.addr, where, g->hits,
	     (double)(rec->ev.ts_ns - g->first_ns) / 1e9);
}

/* The renumbering of the record's thread. A thread id used again (pid_max)
 * is another thread, whose sequence starts again: the writer ends the old
 * one and writes the new one as TID.INSTANCE. NULL with we->error set when
 * out of memory. */
static struct thread_seq *thread_seq_of(struct watch_events *we, const struct watch_record *rec)
{
	struct thread_seq *ts = hash_map_put(&we->seqs, &rec->ev.tid, NULL);
	int err;

	if (!ts) {
		we->error = -ENOMEM;
		return NULL;
	}
	if (rec->instance <= ts->instance)
		return ts;
	err = trace_writer_thread_instance(we->writer, rec->ev.pid, rec->ev.tid, rec->instance);
	if (err < 0) {
		we->error = err;
		return NULL;
	}
	*ts = (struct thread_seq){ .instance = rec->instance };
	return ts;
}

int watch_events_on_record(void *ctx, void *data, size_t size)
{
	struct watch_events *we = ctx;
	const struct watch_record *rec = data;
	struct vsc_capture_event out[2];
	struct watch_insn insn;
	struct thread_seq *ts;
	int n;

	if (size < sizeof(*rec) || we->error || !we->writer)
		return 0;
	we->hits++;
	if (decode_ip(we, rec->ev.ip, &insn) == -ENOMEM) {
		we->error = -ENOMEM;
		return -ENOMEM;
	}
	n = watch_access_values(we->arch, &insn, rec, out, &we->stats);
	if ((rec->rec_flags & WATCH_REC_MEM_READ) && we->exact_map_fd >= 0 &&
	    watch_insn_values_exact(we->arch, &insn, rec->ev.size)) {
		/* from now on the BPF program need not read this variable here */
		struct watch_exact_key key = { .ip = rec->ev.ip, .addr = rec->ev.addr };
		uint8_t one = 1;
		bpf_map_update_elem(we->exact_map_fd, &key, &one, BPF_ANY);
	}

	/* One hit may give two events (plain read then write); renumber so
	 * the writer sees holes only where BPF lost records. */
	ts = thread_seq_of(we, rec);
	if (!ts)
		return we->error;
	if (rec->instance != ts->instance) {
		we->stale++; /* an old thread's hit after its id's next thread's */
		return 0;
	}
	if (llsc_guard_stuck(&ts->llsc, insn.access, rec->ev.ip, rec->ev.value, rec->ev.ts_ns)) {
		report_llsc_livelock(we, rec, &insn, &ts->llsc);
		we->error = -EDEADLK;
		return -EDEADLK;
	}
	if (rec->ev.seq > ts->next_bpf)
		ts->next_out += rec->ev.seq - ts->next_bpf;
	ts->next_bpf = rec->ev.seq + 1;
	for (int i = 0; i < n; i++) {
		out[i].seq = ts->next_out++;
		if (insn.addr)
			out[i].ip = insn.addr; /* the accessing instruction itself */
		int err = trace_writer_add(we->writer, &out[i]);
		if (err) {
			we->error = err;
			return err;
		}
	}
	return 0;
}

void watch_events_mem_size(void *ctx, uint64_t ip, unsigned *size)
{
	struct watch_events *we = ctx;
	struct watch_insn insn;
	*size = decode_ip(we, ip, &insn) == 0 ? insn.mem_size : 0;
}

int watch_events_locate(void *ctx, uint32_t pid, uint64_t ip, char *buf, size_t len)
{
	struct watch_events *we = ctx;
	char where[160] = "", line[96] = "";
	const char *text = "";
	(void)pid;

	if (vsc_symbols_locate(we->syms, ip, where, sizeof(where)) < 0)
		snprintf(where, sizeof(where), "0x%" PRIx64, ip);
	srcloc_line(we->srcloc, ip, line, sizeof(line));
	/* the writer asks once per distinct ip */
	for (size_t i = 0; i < we->insns.count; i++) {
		const struct insn_entry *e = hash_map_value_at(&we->insns, i);

		if (e->insn.addr == ip) {
			text = e->insn.text;
			break;
		}
	}
	snprintf(buf, len, "%s%s%s%s%s", where, line[0] ? " " : "", line, text[0] ? ": " : "",
		 text);
	return 0;
}
