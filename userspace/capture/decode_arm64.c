/* SPDX-License-Identifier: MIT */
/*
 * The watchpoint decoder, ARM64: register ids, what an instruction
 * accesses (LSE atomics by hand: Capstone 4 predates them), and the
 * instruction at the reported ip. See decode.h.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "decode_arch.h"

static int a64_reg_index(unsigned r)
{
	if (r >= ARM64_REG_X0 && r <= ARM64_REG_X28)
		return (int)(r - ARM64_REG_X0);
	if (r >= ARM64_REG_W0 && r <= ARM64_REG_W30)
		return (int)(r - ARM64_REG_W0);
	switch (r) {
	case ARM64_REG_X29:
		return 29;
	case ARM64_REG_X30:
		return 30;
	case ARM64_REG_SP:
	case ARM64_REG_WSP:
		return A64_SP;
	case ARM64_REG_XZR:
	case ARM64_REG_WZR:
		return A64_ZR;
	default:
		return -1;
	}
}

/* ---- ARM64 ------------------------------------------------------------- */

/* ARMv8.1 LSE atomics are newer than Capstone 4; decode them by hand.
 * Returns true when word is one of them. */
static bool a64_lse(uint32_t word, struct watch_insn *out)
{
	unsigned size = 1u << (word >> 30);
	unsigned rs = (word >> 16) & 31, rt = word & 31;

	out->mem_size = (uint8_t)size;
	if ((word & 0x3f200c00u) == 0x38200000u) { /* LDADD..LDUMIN, SWP */
		unsigned o3 = (word >> 15) & 1, opc = (word >> 12) & 7;
		static const enum watch_op ops[8] = {
			WATCH_OP_ADD,      WATCH_OP_LDCLR,    WATCH_OP_LDEOR,    WATCH_OP_LDSET,
			WATCH_OP_LDMINMAX, WATCH_OP_LDMINMAX, WATCH_OP_LDMINMAX, WATCH_OP_LDMINMAX,
		};
		if (o3 && opc)
			return false;
		out->op = o3 ? WATCH_OP_XCHG : ops[opc];
		out->access = WATCH_ACCESS_RMW;
		out->reg = rs == 31 ? A64_ZR : (int16_t)rs;
		out->reg2 = rt == 31 ? A64_ZR : (int16_t)rt;
		snprintf(out->text, sizeof(out->text), "lse-atomic%s x%u, x%u", o3 ? "-swp" : "",
			 rs, rt);
		return true;
	}
	if ((word & 0x3fa07c00u) == 0x08a07c00u) { /* CAS, CASA, CASL, CASAL */
		out->op = WATCH_OP_CMPXCHG;
		out->access = WATCH_ACCESS_RMW;
		out->reg = rt == 31 ? A64_ZR : (int16_t)rt;  /* new value */
		out->reg2 = rs == 31 ? A64_ZR : (int16_t)rs; /* expected */
		snprintf(out->text, sizeof(out->text), "cas x%u, x%u", rs, rt);
		return true;
	}
	return false;
}

static bool a64_load_exclusive(unsigned id)
{
	switch (id) {
	case ARM64_INS_LDXR:
	case ARM64_INS_LDXRB:
	case ARM64_INS_LDXRH:
	case ARM64_INS_LDAXR:
	case ARM64_INS_LDAXRB:
	case ARM64_INS_LDAXRH:
	case ARM64_INS_LDXP:
	case ARM64_INS_LDAXP:
		return true;
	default:
		return false;
	}
}

/* Access width from the mnemonic suffix and the register width (wzr is a
 * W register: `str wzr` stores 4 zero bytes; ldrsw loads a word into an X
 * register). */
static uint8_t a64_access_width(const char *m, arm64_reg r0)
{
	size_t n = strlen(m);

	if (m[n - 1] == 'b')
		return 1;
	if (m[n - 1] == 'h')
		return 2;
	if ((r0 >= ARM64_REG_W0 && r0 <= ARM64_REG_W30) || r0 == ARM64_REG_WZR ||
	    (n >= 2 && strcmp(m + n - 2, "sw") == 0))
		return 4;
	return 8;
}

static void a64_classify(const cs_insn *ci, struct watch_insn *out)
{
	const cs_arm64 *a = &ci->detail->arm64;
	unsigned id = ci->id;
	const char *m = ci->mnemonic;

	out->reg = -1;
	out->reg2 = -1;
	if (a->op_count < 2 || a->operands[0].type != ARM64_OP_REG) {
		out->access = WATCH_ACCESS_UNKNOWN;
		return;
	}
	switch (id) {
	case ARM64_INS_STXR:
	case ARM64_INS_STXRB:
	case ARM64_INS_STXRH:
	case ARM64_INS_STLXR:
	case ARM64_INS_STLXRB:
	case ARM64_INS_STLXRH:
		/* stxr ws, xt, [xn]: stores xt if the monitor still holds. */
		out->access = WATCH_ACCESS_STORE_EXCL;
		out->op = WATCH_OP_MOV_STORE;
		out->reg = (int16_t)a64_reg_index(a->operands[1].reg);
		return;
	default:
		break;
	}
	if (strncmp(m, "ld", 2) == 0 && strncmp(m, "ldp", 3) != 0) {
		out->access = WATCH_ACCESS_LOAD;
		out->op = WATCH_OP_MOV_LOAD;
		out->reg = (int16_t)a64_reg_index(a->operands[0].reg);
	} else if (strncmp(m, "st", 2) == 0 && strncmp(m, "stp", 3) != 0) {
		out->access = WATCH_ACCESS_STORE;
		out->op = WATCH_OP_MOV_STORE;
		out->reg = (int16_t)a64_reg_index(a->operands[0].reg);
	} else if (strncmp(m, "ldp", 3) == 0) {
		out->access = WATCH_ACCESS_LOAD; /* which of the pair: unknown */
	} else if (strncmp(m, "stp", 3) == 0) {
		out->access = WATCH_ACCESS_STORE;
	} else {
		out->access = WATCH_ACCESS_UNKNOWN;
	}
	if (a64_load_exclusive(id))
		out->access = WATCH_ACCESS_LOAD_EXCL; /* ldxp/ldaxp: which of the pair unknown */
	out->mem_size = a64_access_width(m, a->operands[0].reg);
	out->sign_extend = strncmp(m, "ldrs", 4) == 0 || strncmp(m, "ldurs", 5) == 0;
}

int decode_find_a64(struct watch_decoder *dec, const uint8_t *code, size_t len, uint64_t code_addr,
		    uint64_t ip, struct watch_insn *out)
{
	const uint8_t *p;
	size_t left = 4;
	uint64_t addr = ip;
	uint32_t word;

	if (ip < code_addr || ip - code_addr + 4 > len || (ip & 3)) {
		snprintf(out->text, sizeof(out->text), "ip outside the code read");
		return -ENOENT;
	}
	p = code + (ip - code_addr);
	memcpy(&word, p, 4);
	out->addr = ip;
	out->len = 4;
	if (a64_lse(word, out))
		return 0;
	if (!cs_disasm_iter(dec->cs, &p, &left, &addr, dec->insn)) {
		snprintf(out->text, sizeof(out->text), "undecodable word %08x", word);
		return -ENOENT;
	}
	decode_insn_text(out, dec->insn);
	a64_classify(dec->insn, out);
	return out->access == WATCH_ACCESS_UNKNOWN ? -ENOENT : 0;
}
