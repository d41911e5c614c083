/* SPDX-License-Identifier: MIT */
/*
 * Code and source locations of a live process (libdw's Dwfl over
 * /proc/PID/maps): the function containing an instruction pointer, its
 * bytes (read from the ELF file, so this keeps working after the process
 * has exited), and file:line where debug information exists.
 */
#ifndef VSC_CAPTURE_SRCLOC_H
#define VSC_CAPTURE_SRCLOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct srcloc;

struct srcloc_function {
	uint64_t start;      /* run-time address of the function's first byte */
	uint64_t size;       /* 0 when the symbol has no size */
	const uint8_t *code; /* its bytes (owned by the srcloc handle) */
	size_t code_len;     /* bytes available from start (may exceed size) */
	const char *name;    /* NULL when no symbol covers the address */
	bool bounded;        /* start is the function's first instruction: from
				 its symbol, or (stripped code) from the call
				 frame information (.eh_frame FDE) */
};

/* Returns NULL and sets errno on failure. */
struct srcloc *srcloc_new(pid_t pid);
void srcloc_free(struct srcloc *sl);

/* Look up the modules of the process again (libraries loaded since). */
int srcloc_refresh(struct srcloc *sl);

/* The function containing ip. Returns 0 or -ENOENT (no module or no code
 * at ip; fn->code is then NULL). */
int srcloc_function(struct srcloc *sl, uint64_t ip, struct srcloc_function *fn);

/* "file.c:42" (base name of the file) for the instruction at ip, written to
 * buf; returns 0 or -ENOENT when there is no line information. */
int srcloc_line(struct srcloc *sl, uint64_t ip, char *buf, size_t len);

#endif /* VSC_CAPTURE_SRCLOC_H */
