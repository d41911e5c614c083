/* SPDX-License-Identifier: MIT */
/*
 * Inside the watchpoint decoder (decode.c): the decoder handle, the
 * register slots of the copied pt_regs, and the two instruction finders,
 * x86-64 (decode_x86.c) and ARM64 (decode_arm64.c).
 */
#ifndef VSC_CAPTURE_DECODE_ARCH_H
#define VSC_CAPTURE_DECODE_ARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <capstone/capstone.h>

#include "decode.h"

struct watch_decoder {
	enum watch_arch arch;
	csh cs;
	cs_insn *insn; /* one instruction buffer for cs_disasm_iter */
};

/* x86-64 struct pt_regs order (arch/x86/include/uapi/asm/ptrace.h). */
enum {
	X_R15 = 0,
	X_R14,
	X_R13,
	X_R12,
	X_RBP,
	X_RBX,
	X_R11,
	X_R10,
	X_R9,
	X_R8,
	X_RAX,
	X_RCX,
	X_RDX,
	X_RSI,
	X_RDI,
	X_ORIG_RAX,
	X_RIP,
	X_CS,
	X_EFLAGS,
	X_RSP,
	X_SS,
};

#define X86_CF (1u << 0)
#define X86_ZF (1u << 6)

/* ARM64 struct user_pt_regs: x0..x30, sp, pc, pstate. */
#define A64_SP 31
#define A64_PC 32
#define A64_PSTATE 33
#define A64_ZR 64 /* not a slot: reads as zero */

/* "mnemonic operands" of a decoded instruction into out->text. */
void decode_insn_text(struct watch_insn *out, const cs_insn *ci);

/* The instruction of a hit at ip in code (read from code_addr), with what
 * it accesses and where its values are. 0, or -ENOENT with out->text
 * saying why. x86-64 reports the next instruction: the one ending at ip
 * is found by decoding forward from the function's start (fn_len bytes
 * of it; from_start: code starts at a symbol). */
int decode_find_x86(struct watch_decoder *dec, const uint8_t *code, size_t len, size_t fn_len,
		    uint64_t code_addr, uint64_t ip, bool from_start, struct watch_insn *out);
/* ARM64 reports the accessing instruction itself. */
int decode_find_a64(struct watch_decoder *dec, const uint8_t *code, size_t len, uint64_t code_addr,
		    uint64_t ip, struct watch_insn *out);

#endif /* VSC_CAPTURE_DECODE_ARCH_H */
