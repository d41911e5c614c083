/* SPDX-License-Identifier: MIT */
/*
 * Names in a recorded trace: each variable (pid, address) is named once,
 * with its initial value, and kept; each instruction pointer is located
 * once. How a name is found is the capture path's business (symbols.c,
 * srcloc.c, a watch request, an LTTng statedump): it hands the writer a
 * struct trace_naming; a NULL function means "not known".
 *
 * Rules (docs/record.md says the same to users):
 * - Names are made valid tokens: characters outside [A-Za-z0-9_.:-] become
 *   '_', at most 64 characters.
 * - A name is unique: a second address with the same name, or a name that
 *   reads as a hex address, gets the hex address instead (with the pid when
 *   even that clashes across processes).
 * - Values are sign-extended from the access size.
 *
 * Memory: a variable no open execution uses any more is forgotten
 * (trace_names_forget), so the table holds the variables of the open
 * executions, not of the whole recording (a lab run uses fresh variables
 * in every iteration). What must outlive it is kept compactly: the
 * bytes of forgotten variables whose initial value is known, one bit each
 * (about 44 bytes per 64-byte chunk of memory touched: bounded by the data
 * of the program's files), so one used again later is "seen before" and gets
 * `init VAR ?` instead of its value from the file. Its name is found
 * again the same way (an independent execution may reuse a name).
 *
 * Mixed sizes: a trace holds one value per variable, so an access whose
 * bytes overlap a live variable's but differ from them (another size, or
 * another start: a 2-byte read of a 4-byte word, a 4-byte read of the upper
 * half of an 8-byte one) cannot be written truthfully. Both variables are
 * marked `mixed`: every event of a mixed variable is uncertain, the ones
 * written before the overlap was found included (mixed_unmarked counts
 * those). Found by a bitmap of the bytes live variables cover, per 64-byte
 * chunk (one lookup per new variable), and on a hit by a look at the
 * neighbouring addresses; an access of the variable's own size costs one
 * comparison.
 */
#ifndef VSC_CAPTURE_TRACE_NAMES_H
#define VSC_CAPTURE_TRACE_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/vsc_event.h"
#include "trace_map.h"

struct trace_naming {
	/* Name the variable at addr: fill buf, return 0; or -errno. */
	int (*var_name)(void *ctx, uint32_t pid, uint64_t addr, uint32_t size, char *buf,
			size_t len);
	/* Its initial value (raw bits): return 1 and set *value, or 0. */
	int (*init_value)(void *ctx, uint32_t pid, uint64_t addr, uint32_t size, int64_t *value);
	/* "func+off file:line" of an instruction pointer: 0 or -errno. */
	int (*locate)(void *ctx, uint32_t pid, uint64_t ip, char *buf, size_t len);
	/* Name of segment `id` (a VSC_CAP_SEGMENT event): 0 or -errno for the
	 * default (the decimal id). */
	int (*segment_name)(void *ctx, uint32_t pid, int64_t id, uint64_t name_addr, char *buf,
			    size_t len);
	void *ctx;
};

struct trace_var {
	char *name;
	size_t name_len;
	int64_t init_value; /* sign-extended */
	bool init_known;
	bool seen_before;   /* listed in an execution written earlier */
	uint32_t pid, size; /* size: of its first access */
	uint64_t addr;
	uint64_t last_mark; /* 1 + the latest serial of an execution that uses it */
	uint64_t head_mark; /* 1 + serial of the written execution that lists it */
	bool head_init;     /* that execution has an init line for it */
	uint64_t held_mark; /* 1 + serial of the held execution that listed it last */
	size_t held_pos;    /* where in that execution's list */
	uint32_t span;      /* bytes from addr its accesses cover (>= size) */
	bool mixed;         /* bytes shared with another variable or access size */
	uint64_t events;    /* its events so far */
};

struct trace_names {
	struct trace_naming naming;
	struct trace_var *vars; /* slots; a forgotten one has name NULL */
	size_t var_count, var_cap;
	uint32_t *free_vars; /* forgotten slots, for reuse */
	size_t free_count, free_cap;
	/* bytes of forgotten known-init variables: (pid, addr / 64) -> bits */
	struct trace_map seen_map;
	uint64_t *seen_bits;
	size_t seen_count, seen_cap;
	struct trace_map var_map;  /* (pid, addr) -> var */
	struct trace_map name_map; /* hash of a name -> var */
	struct trace_map loc_map;  /* (pid, ip) -> loc */
	char **locs;
	size_t loc_count, loc_cap;
	/* bytes live variables cover: (pid, addr / 64) -> bits */
	struct trace_map cover_map;
	uint64_t *cover_bits;
	size_t cover_count, cover_cap;
	uint32_t *cover_free; /* emptied slots of cover_bits */
	size_t cover_free_count, cover_free_cap;
	uint32_t max_span; /* the largest span of a variable */
	/* mixed variables, their events written before they were found mixed
	 * (not marked `value unsure`), and the first one found, in words */
	uint64_t mixed_vars, mixed_unmarked;
	char mixed_why[256];
};

void trace_names_free(struct trace_names *n);
/* The variable an event accesses, named on first sight (see "Mixed sizes"
 * above: then its `mixed` is set). 0 or -ENOMEM. */
int trace_names_var(struct trace_names *n, const struct vsc_capture_event *ev, uint32_t *index);
/* Variable index is used by no open execution any more: free its slot.
 * 0 or -ENOMEM (then it stays, maybe not covered any more: the writer
 * fails the recording). */
int trace_names_forget(struct trace_names *n, uint32_t index);
/* Variables held now (not forgotten). */
size_t trace_names_live(const struct trace_names *n);
/* The trailing location comment for ip, or NULL. */
const char *trace_names_location(struct trace_names *n, uint32_t pid, uint64_t ip);
/* The token of a segment marker's name into buf (len >= 66). */
void trace_names_segment(struct trace_names *n, const struct vsc_capture_event *marker, char *buf,
			 size_t len);

int64_t trace_sign_extend(int64_t raw, unsigned size);

#endif /* VSC_CAPTURE_TRACE_NAMES_H */
