/* SPDX-License-Identifier: MIT */
/* A litmus test in the subset of the herd/litmus7 `.litmus` syntax that
 * `vsc litmus` reads (docs/litmus.md): x86 and AArch64, stores, loads,
 * fences, exchanges, registers, the initial state and one final condition.
 * Parsing (parse.c), the C test it becomes (gen_c.c) and what an outcome
 * of it is (outcome.c). */
#ifndef VSC_LITMUS_H
#define VSC_LITMUS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "vsc/vsc.h"

#define LITMUS_MAX_THREADS 8
#define LITMUS_MAX_INSNS 32 /* per thread */
#define LITMUS_MAX_REGS 16  /* per thread */
#define LITMUS_MAX_LOCS 16
#define LITMUS_MAX_ATOMS 32 /* in the condition */
#define LITMUS_NAME_MAX 64

enum litmus_arch {
	LITMUS_X86,
	LITMUS_AARCH64
};

enum litmus_op {
	LITMUS_LOAD,  /* dst = [loc] */
	LITMUS_STORE, /* [loc] = src (register or immediate) */
	LITMUS_SWAP,  /* dst = [loc], [loc] = src, indivisibly (XCHG, SWP) */
	LITMUS_FENCE, /* MFENCE, DMB */
	LITMUS_MOVE,  /* dst = src (register or immediate) */
};

/* A value: an immediate, or the register `reg` (>= 0) of the thread. */
struct litmus_value {
	int reg; /* -1: immediate */
	int64_t imm;
};

struct litmus_insn {
	enum litmus_op op;
	int loc;                 /* LOAD, STORE, SWAP: the location */
	int dst;                 /* LOAD, SWAP, MOVE: the register written */
	struct litmus_value src; /* STORE, SWAP, MOVE */
	unsigned flags;          /* LITMUS_ACQUIRE, LITMUS_RELEASE (AArch64) */
	char fence[16];          /* FENCE: the instruction as written ("MFENCE", "DMB ISH") */
	unsigned line, col;
};
#define LITMUS_ACQUIRE 1u
#define LITMUS_RELEASE 2u

struct litmus_reg {
	char name[8]; /* normalised: "EAX", "X0" (AArch64 W0 and X0 are one) */
	int64_t init; /* initial value when init_loc < 0 */
	int init_loc; /* AArch64: holds the address of this location, or -1 */
};

struct litmus_thread {
	struct litmus_insn insn[LITMUS_MAX_INSNS];
	int insn_count;
	struct litmus_reg reg[LITMUS_MAX_REGS];
	int reg_count;
};

struct litmus_loc {
	char name[LITMUS_NAME_MAX];
	int64_t init;
};

/* The condition, in a tree of atoms, /\, \/ and ~ (array nodes). */
enum litmus_cond_kind {
	COND_TRUE,
	COND_REG,
	COND_LOC,
	COND_AND,
	COND_OR,
	COND_NOT
};
struct litmus_cond {
	enum litmus_cond_kind kind;
	int thread, reg, loc; /* COND_REG: thread:reg; COND_LOC: loc */
	int64_t value;
	int left, right; /* AND, OR: both; NOT: left */
};

enum litmus_quantifier {
	LITMUS_EXISTS,
	LITMUS_NOT_EXISTS,
	LITMUS_FORALL
};

struct litmus_test {
	enum litmus_arch arch;
	char name[LITMUS_NAME_MAX];
	struct litmus_thread thread[LITMUS_MAX_THREADS];
	int thread_count;
	struct litmus_loc loc[LITMUS_MAX_LOCS];
	int loc_count;
	enum litmus_quantifier quantifier;
	struct litmus_cond cond[2 * LITMUS_MAX_ATOMS];
	int cond_count, cond_root;
	char cond_text[512]; /* as written, for the report */
};

/* Parse a .litmus text. Returns 0, or -EINVAL after writing
 * "FILE:LINE:COL: what is wrong" into err. */
int litmus_parse(const char *text, size_t len, const char *filename, struct litmus_test *t,
		 char *err, size_t err_len);
const char *litmus_arch_name(enum litmus_arch arch);

/* ---- outcomes (outcome.c) ------------------------------------------------
 * An execution's outcome is every value a load or swap read, thread by
 * thread in program order, then the final value of each location the
 * condition names: `values` of litmus_outcome_width() entries. The C test
 * prints them in this order. */
struct litmus_final {
	int locs[LITMUS_MAX_LOCS]; /* locations the condition names */
	int count;
};
void litmus_finals(const struct litmus_test *t, struct litmus_final *f);
size_t litmus_outcome_width(const struct litmus_test *t);
/* Does the outcome satisfy the condition's proposition? */
int litmus_outcome_matches(const struct litmus_test *t, const int64_t *values);
/* litmus7-style text of an outcome: "0:EAX=0; 1:EAX=1; x=2;" */
void litmus_outcome_print(const struct litmus_test *t, const int64_t *values, FILE *out);
/* The execution the outcome stands for as a vsc program (final values read
 * by an observer thread that runs after every thread's last event). */
struct vsc_program *litmus_outcome_program(const struct litmus_test *t, const int64_t *values);

/* ---- the C test (gen_c.c) ------------------------------------------------ */
/* Write the C source of the test (`iterations` of it), logged with
 * <vsc/lab.h>. Returns 0, or -EINVAL with a message in err (a test this
 * subset cannot express), "LINE:COL: what" when one instruction is why. */
int litmus_gen_c(const struct litmus_test *t, long iterations, FILE *out, char *err,
		 size_t err_len);

#endif
