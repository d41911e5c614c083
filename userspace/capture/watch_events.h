/* SPDX-License-Identifier: MIT */
/*
 * From watchpoint records (bpf/watch.h) to trace events: decode the
 * instruction of each hit (cached per IP), rebuild exact values from the
 * registers where possible, renumber each thread's events (one hit can be a
 * read and a write), and hand them to the shared trace writer. Also the
 * writer's location callback: "func+0xOFF (file) file.c:LINE: instruction".
 */
#ifndef VSC_CAPTURE_WATCH_EVENTS_H
#define VSC_CAPTURE_WATCH_EVENTS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "decode.h"

struct vsc_symbols;
struct trace_writer;
struct watch_events;

/* Returns NULL and sets errno. syms and writer stay the caller's. */
struct watch_events *watch_events_new(pid_t pid, enum watch_arch arch,
				      const struct vsc_symbols *syms);
void watch_events_free(struct watch_events *we);
void watch_events_set_writer(struct watch_events *we, struct trace_writer *writer);

/* The BPF map of (ip, addr) whose values come from registers alone (see
 * struct watch_exact_key); -1: none. */
void watch_events_set_exact_map(struct watch_events *we, int map_fd);

/* The process is gone: do not look for new libraries any more. */
void watch_events_target_gone(struct watch_events *we);

/* ring_buffer__new callback (ctx: the struct watch_events). */
int watch_events_on_record(void *ctx, void *data, size_t size);

/* How many bytes the instruction reported at ip (a hit's: x86-64, the
 * next one's address) reads or writes; 0 when not decoded (ctx: the
 * struct watch_events; watch_pages.h's size_of). */
void watch_events_mem_size(void *ctx, uint64_t ip, unsigned *size);

/* trace writer location function (ctx: the struct watch_events). */
int watch_events_locate(void *ctx, uint32_t pid, uint64_t ip, char *buf, size_t len);

uint64_t watch_events_hits(const struct watch_events *we);
/* Hits of a thread that came after those of a newer thread with the same
 * id (they cannot be placed: lost). */
uint64_t watch_events_stale(const struct watch_events *we);
const struct watch_value_stats *watch_events_stats(const struct watch_events *we);
/* First error met while handling records (0 if none). */
int watch_events_error(const struct watch_events *we);

#endif /* VSC_CAPTURE_WATCH_EVENTS_H */
