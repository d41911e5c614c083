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

#include "llsc_guard.h"
#include "srcloc.h"
#include "symbols.h"
#include "trace_writer.h"

/* ip -> decoded instruction */
struct insn_entry {
	uint64_t ip; /* 0: empty */
	struct watch_insn insn;
	int found;
};

/* tid -> sequence renumbering */
struct thread_seq {
	uint32_t tid; /* 0: empty */
	uint64_t next_bpf;
	uint64_t next_out;
	struct llsc_guard llsc;
};

struct watch_events {
	enum watch_arch arch;
	const struct vsc_symbols *syms;
	struct trace_writer *writer;
	int exact_map_fd;
	struct srcloc *srcloc;
	struct watch_decoder *dec;
	struct insn_entry *insns;
	size_t insn_cap, insn_count;
	struct thread_seq *seqs;
	size_t seq_cap, seq_count;
	struct watch_value_stats stats;
	uint64_t hits;
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
	free(we->insns);
	free(we->seqs);
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

const struct watch_value_stats *watch_events_stats(const struct watch_events *we)
{
	return &we->stats;
}

int watch_events_error(const struct watch_events *we)
{
	return we->error;
}

static uint64_t hash64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

/* Open addressing, at most half full; the tables only grow. NULL: ENOMEM. */
static struct insn_entry *insn_slot(struct watch_events *we, uint64_t ip)
{
	if ((we->insn_count + 1) * 2 > we->insn_cap) {
		size_t cap = we->insn_cap ? we->insn_cap * 2 : 256;
		struct insn_entry *v = calloc(cap, sizeof(*v));
		if (!v)
			return NULL;
		for (size_t i = 0; i < we->insn_cap; i++) {
			if (!we->insns[i].ip)
				continue;
			size_t j = hash64(we->insns[i].ip) & (cap - 1);
			while (v[j].ip)
				j = (j + 1) & (cap - 1);
			v[j] = we->insns[i];
		}
		free(we->insns);
		we->insns = v;
		we->insn_cap = cap;
	}
	size_t j = hash64(ip) & (we->insn_cap - 1);
	while (we->insns[j].ip && we->insns[j].ip != ip)
		j = (j + 1) & (we->insn_cap - 1);
	return &we->insns[j];
}

static struct thread_seq *seq_slot(struct watch_events *we, uint32_t tid)
{
	if ((we->seq_count + 1) * 2 > we->seq_cap) {
		size_t cap = we->seq_cap ? we->seq_cap * 2 : 64;
		struct thread_seq *v = calloc(cap, sizeof(*v));
		if (!v)
			return NULL;
		for (size_t i = 0; i < we->seq_cap; i++) {
			if (!we->seqs[i].tid)
				continue;
			size_t j = hash64(we->seqs[i].tid) & (cap - 1);
			while (v[j].tid)
				j = (j + 1) & (cap - 1);
			v[j] = we->seqs[i];
		}
		free(we->seqs);
		we->seqs = v;
		we->seq_cap = cap;
	}
	size_t j = hash64(tid) & (we->seq_cap - 1);
	while (we->seqs[j].tid && we->seqs[j].tid != tid)
		j = (j + 1) & (we->seq_cap - 1);
	if (!we->seqs[j].tid) {
		we->seqs[j].tid = tid;
		we->seq_count++;
	}
	return &we->seqs[j];
}

static int decode_ip(struct watch_events *we, uint64_t ip, struct watch_insn *insn)
{
	struct insn_entry *e = insn_slot(we, ip);
	struct srcloc_function fn;
	/* x86 reports the next instruction: look up the function of ip - 1. */
	uint64_t probe = we->arch == WATCH_ARCH_X86_64 ? ip - 1 : ip;
	int err;

	if (!e)
		return -ENOMEM;
	if (e->ip) {
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
	e->ip = ip;
	e->insn = *insn;
	e->found = err;
	we->insn_count++;
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
	fprintf(stderr,
		"vsc record --watch: thread %u is stuck at a load-exclusive on the watched "
		"address 0x%" PRIx64 " (%s): %u hits in %.1f s, each reading the same value. "
		"A watchpoint clears the exclusive monitor, so a load/store-exclusive loop "
		"(atomics built for ARMv8.0) never finishes under it. The recording stops "
		"here. Record this variable with probes (<vsc/probe.h>), or build the "
		"program for ARMv8.1 or later (LSE atomics: -march=armv8.1-a); see "
		"docs/watch.md.\n",
		(unsigned)rec->ev.tid, (uint64_t)rec->ev.addr, where, g->hits,
		(double)(rec->ev.ts_ns - g->first_ns) / 1e9);
}

int watch_events_on_record(void *ctx, void *data, size_t size)
{
	struct watch_events *we = ctx;
	const struct watch_record *rec = data;
	struct vsc_capture_event out[2];
	struct watch_insn insn;
	struct thread_seq *ts;
	int n;

	if (size < sizeof(*rec) || we->error)
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
	ts = seq_slot(we, rec->ev.tid);
	if (!ts) {
		we->error = -ENOMEM;
		return -ENOMEM;
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
	for (size_t i = 0; i < we->insn_cap; i++) {
		if (we->insns[i].ip && we->insns[i].insn.addr == ip) {
			text = we->insns[i].insn.text;
			break;
		}
	}
	snprintf(buf, len, "%s%s%s%s%s", where, line[0] ? " " : "", line, text[0] ? ": " : "",
		 text);
	return 0;
}
