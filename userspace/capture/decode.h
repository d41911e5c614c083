/* SPDX-License-Identifier: MIT */
/*
 * Which instruction made a hardware watchpoint fire, and what did it do?
 *
 * On x86-64 a data breakpoint fires after the access: the reported IP is the
 * next instruction, so the decoder walks the containing function from its
 * symbol's start and takes the instruction that ends at the IP. On ARM64 the
 * exception comes before the access: the IP is the accessing instruction.
 * The decoder classifies the access (load, store, atomic read-modify-write,
 * or a plain read then write) and says where its exact values live (a
 * register, an immediate), so watch_access_values() can rebuild the events
 * from the registers the BPF program copied.
 */
#ifndef VSC_CAPTURE_DECODE_H
#define VSC_CAPTURE_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/watch.h"

enum watch_arch {
	WATCH_ARCH_X86_64 = 1,
	WATCH_ARCH_ARM64 = 2,
};

enum watch_access {
	WATCH_ACCESS_UNKNOWN = 0, /* no instruction found, or not understood */
	WATCH_ACCESS_LOAD,
	WATCH_ACCESS_STORE,
	WATCH_ACCESS_RMW,        /* atomic: lock prefix, xchg, LSE atomics */
	WATCH_ACCESS_LOAD_STORE, /* plain read then write (addl $1, x) */
	WATCH_ACCESS_STORE_EXCL, /* ARM64 store-exclusive: may not happen */
	WATCH_ACCESS_LOAD_EXCL,  /* ARM64 load-exclusive: opens an LL/SC loop */
};

/* How the exact values of an access can be recovered. */
enum watch_op {
	WATCH_OP_NONE = 0,  /* only the memory the BPF program read */
	WATCH_OP_MOV_LOAD,  /* reg := mem (zero or sign extended) */
	WATCH_OP_MOV_STORE, /* mem := reg or imm */
	WATCH_OP_XCHG,      /* reg := old; mem := previous reg */
	WATCH_OP_XADD,      /* reg := old; mem := old + previous reg */
	WATCH_OP_CMPXCHG,   /* success (ZF / equal): mem := src; else a read */
	WATCH_OP_ADD,       /* mem += src (imm or reg; inc is +1) */
	WATCH_OP_SUB,       /* mem -= src (dec is -1) */
	WATCH_OP_XOR,
	WATCH_OP_AND, /* old not recoverable from new */
	WATCH_OP_OR,  /* old not recoverable from new */
	WATCH_OP_NEG,
	WATCH_OP_NOT,
	WATCH_OP_BTS, /* old bit in CF */
	WATCH_OP_BTR,
	WATCH_OP_BTC,
	WATCH_OP_LDSET, /* ARM64 LSE: old in Rt after, mem op= Rs */
	WATCH_OP_LDCLR,
	WATCH_OP_LDEOR,
	WATCH_OP_LDMINMAX,
};

struct watch_insn {
	uint64_t addr;     /* address of the accessing instruction */
	uint8_t len;       /* its length in bytes */
	uint8_t access;    /* enum watch_access */
	uint8_t op;        /* enum watch_op */
	uint8_t mem_size;  /* bytes the instruction reads or writes */
	int16_t reg;       /* regs[] index of the value register, -1: none */
	int16_t reg2;      /* second register (cmpxchg: the accumulator) */
	uint8_t reg_shift; /* 8 for ah/bh/ch/dh */
	bool has_imm;
	bool sign_extend; /* movsx: the register holds the value sign-extended */
	int64_t imm;
	/* xchg/xadd on x86-64 overwrite their source register with the old
	 * value; when the instruction that set it is in the same basic block
	 * (`mov $1, %edx; lock xadd %rdx, x` or `mov %rdx, %rcx; xchg %rcx, x`),
	 * the value it held is known: an immediate, or a register not written
	 * since (pre_reg, read at the trap). */
	int16_t pre_reg;
	bool has_pre_imm;
	int64_t pre_imm;
	char text[80]; /* "lock xadd dword ptr [rip + 0x2ee5], eax" */
};

struct watch_decoder;

/* Returns NULL and sets errno on failure (ENOTSUP: no such arch, or
 * Capstone could not be loaded: see watch_capstone_error()). */
struct watch_decoder *watch_decoder_new(enum watch_arch arch);

/* Why the first decoder could not load Capstone (capstone_lazy.c); NULL
 * when it did, or none was made yet. */
const char *watch_capstone_error(void);
void watch_decoder_free(struct watch_decoder *dec);
enum watch_arch watch_decoder_arch(const struct watch_decoder *dec);

/* Find the accessing instruction for a hit reported at ip, given the bytes
 * code[0..len) found at address code_addr (the containing function from its
 * start, when known; else any window that ends at or after ip; fn_size is
 * the function's size from its symbol, 0 if unknown). Fills *insn
 * and returns 0, or -ENOENT when no instruction fits (insn->access is then
 * WATCH_ACCESS_UNKNOWN and insn->text says why). */
int watch_decoder_find(struct watch_decoder *dec, const uint8_t *code, size_t len,
		       uint64_t code_addr, uint64_t ip, size_t fn_size, bool from_symbol_start,
		       struct watch_insn *insn);

/* Statistics of the value recovery, summed by the caller. */
struct watch_value_stats {
	uint64_t unsure;  /* a value came from memory, not from a register */
	uint64_t raced;   /* exact value differs from the memory read by BPF */
	uint64_t unknown; /* access kind unknown */
};

/* Turn one record into trace events (a plain read-then-write gives two: a
 * load and a store). Values are truncated to the watched size and sign
 * extended from it. Returns the number of events written to out[0..2). */
int watch_access_values(enum watch_arch arch, const struct watch_insn *insn,
			const struct watch_record *rec, struct vsc_capture_event out[2],
			struct watch_value_stats *stats);

/* True when watch_access_values() takes every value of this access to a
 * watched variable of size bytes from the registers, so the BPF program
 * need not read the variable (x86-64 only). */
bool watch_insn_values_exact(enum watch_arch arch, const struct watch_insn *insn, unsigned size);

/* Sign-extend the low size bytes of raw. */
int64_t watch_value_normalize(uint64_t raw, unsigned size);

#endif /* VSC_CAPTURE_DECODE_H */
