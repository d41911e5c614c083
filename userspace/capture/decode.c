/* SPDX-License-Identifier: MIT */
/*
 * Watchpoint hit -> instruction -> access kind and exact values (Capstone).
 * See decode.h for the x86-64 / ARM64 difference and docs/watch.md for what
 * is and is not faithful.
 */
#include "decode.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <capstone/capstone.h>

struct watch_decoder {
	enum watch_arch arch;
	csh cs;
	cs_insn *insn; /* one instruction buffer for cs_disasm_iter */
};

/* ---- registers: Capstone ids -> index into the copied pt_regs --------- */

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

static int x86_reg_index(x86_reg r, uint8_t *shift)
{
	*shift = 0;
	switch (r) {
	case X86_REG_AH:
		*shift = 8; /* fall through */
	case X86_REG_AL:
	case X86_REG_AX:
	case X86_REG_EAX:
	case X86_REG_RAX:
		return X_RAX;
	case X86_REG_BH:
		*shift = 8; /* fall through */
	case X86_REG_BL:
	case X86_REG_BX:
	case X86_REG_EBX:
	case X86_REG_RBX:
		return X_RBX;
	case X86_REG_CH:
		*shift = 8; /* fall through */
	case X86_REG_CL:
	case X86_REG_CX:
	case X86_REG_ECX:
	case X86_REG_RCX:
		return X_RCX;
	case X86_REG_DH:
		*shift = 8; /* fall through */
	case X86_REG_DL:
	case X86_REG_DX:
	case X86_REG_EDX:
	case X86_REG_RDX:
		return X_RDX;
	case X86_REG_SIL:
	case X86_REG_SI:
	case X86_REG_ESI:
	case X86_REG_RSI:
		return X_RSI;
	case X86_REG_DIL:
	case X86_REG_DI:
	case X86_REG_EDI:
	case X86_REG_RDI:
		return X_RDI;
	case X86_REG_BPL:
	case X86_REG_BP:
	case X86_REG_EBP:
	case X86_REG_RBP:
		return X_RBP;
	case X86_REG_SPL:
	case X86_REG_SP:
	case X86_REG_ESP:
	case X86_REG_RSP:
		return X_RSP;
	case X86_REG_R8B:
	case X86_REG_R8W:
	case X86_REG_R8D:
	case X86_REG_R8:
		return X_R8;
	case X86_REG_R9B:
	case X86_REG_R9W:
	case X86_REG_R9D:
	case X86_REG_R9:
		return X_R9;
	case X86_REG_R10B:
	case X86_REG_R10W:
	case X86_REG_R10D:
	case X86_REG_R10:
		return X_R10;
	case X86_REG_R11B:
	case X86_REG_R11W:
	case X86_REG_R11D:
	case X86_REG_R11:
		return X_R11;
	case X86_REG_R12B:
	case X86_REG_R12W:
	case X86_REG_R12D:
	case X86_REG_R12:
		return X_R12;
	case X86_REG_R13B:
	case X86_REG_R13W:
	case X86_REG_R13D:
	case X86_REG_R13:
		return X_R13;
	case X86_REG_R14B:
	case X86_REG_R14W:
	case X86_REG_R14D:
	case X86_REG_R14:
		return X_R14;
	case X86_REG_R15B:
	case X86_REG_R15W:
	case X86_REG_R15D:
	case X86_REG_R15:
		return X_R15;
	default:
		return -1;
	}
}

/* ARM64 struct user_pt_regs: x0..x30, sp, pc, pstate. */
#define A64_SP 31
#define A64_PC 32
#define A64_PSTATE 33
#define A64_ZR 64 /* not a slot: reads as zero */

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

/* ---- decoder handle --------------------------------------------------- */

struct watch_decoder *watch_decoder_new(enum watch_arch arch)
{
	struct watch_decoder *dec = calloc(1, sizeof(*dec));
	cs_err err;

	if (!dec)
		return NULL;
	dec->arch = arch;
	if (arch == WATCH_ARCH_X86_64)
		err = cs_open(CS_ARCH_X86, CS_MODE_64, &dec->cs);
	else if (arch == WATCH_ARCH_ARM64)
		err = cs_open(CS_ARCH_ARM64, CS_MODE_ARM, &dec->cs);
	else
		err = CS_ERR_ARCH;
	if (err != CS_ERR_OK) {
		free(dec);
		errno = ENOTSUP;
		return NULL;
	}
	cs_option(dec->cs, CS_OPT_DETAIL, CS_OPT_ON);
	dec->insn = cs_malloc(dec->cs);
	if (!dec->insn) {
		cs_close(&dec->cs);
		free(dec);
		errno = ENOMEM;
		return NULL;
	}
	return dec;
}

void watch_decoder_free(struct watch_decoder *dec)
{
	if (!dec)
		return;
	cs_free(dec->insn, 1);
	cs_close(&dec->cs);
	free(dec);
}

enum watch_arch watch_decoder_arch(const struct watch_decoder *dec)
{
	return dec->arch;
}

static void insn_text(struct watch_insn *out, const cs_insn *ci)
{
	snprintf(out->text, sizeof(out->text), "%.16s%s%.60s", ci->mnemonic,
		 ci->op_str[0] ? " " : "", ci->op_str);
}

/* ---- x86-64 ------------------------------------------------------------ */

static const cs_x86_op *x86_mem_operand(const cs_x86 *x)
{
	for (int i = 0; i < x->op_count; i++)
		if (x->operands[i].type == X86_OP_MEM)
			return &x->operands[i];
	return NULL;
}

/* The first operand that is not the memory one: the value source or the
 * destination register. */
static const cs_x86_op *x86_other_operand(const cs_x86 *x)
{
	for (int i = 0; i < x->op_count; i++)
		if (x->operands[i].type != X86_OP_MEM)
			return &x->operands[i];
	return NULL;
}

static void x86_set_source(struct watch_insn *out, const cs_x86_op *op)
{
	if (!op)
		return;
	if (op->type == X86_OP_REG) {
		out->reg = (int16_t)x86_reg_index(op->reg, &out->reg_shift);
	} else if (op->type == X86_OP_IMM) {
		out->has_imm = true;
		out->imm = op->imm;
	}
}

static enum watch_op x86_arith_op(unsigned id)
{
	switch (id) {
	case X86_INS_ADD:
	case X86_INS_INC:
		return WATCH_OP_ADD;
	case X86_INS_SUB:
	case X86_INS_DEC:
		return WATCH_OP_SUB;
	case X86_INS_XOR:
		return WATCH_OP_XOR;
	case X86_INS_AND:
		return WATCH_OP_AND;
	case X86_INS_OR:
		return WATCH_OP_OR;
	case X86_INS_NEG:
		return WATCH_OP_NEG;
	case X86_INS_NOT:
		return WATCH_OP_NOT;
	case X86_INS_BTS:
		return WATCH_OP_BTS;
	case X86_INS_BTR:
		return WATCH_OP_BTR;
	case X86_INS_BTC:
		return WATCH_OP_BTC;
	case X86_INS_XADD:
		return WATCH_OP_XADD;
	case X86_INS_XCHG:
		return WATCH_OP_XCHG;
	case X86_INS_CMPXCHG:
		return WATCH_OP_CMPXCHG;
	default:
		return WATCH_OP_NONE;
	}
}

static void x86_classify(const cs_insn *ci, struct watch_insn *out)
{
	const cs_x86 *x = &ci->detail->x86;
	const cs_x86_op *mem = x86_mem_operand(x);
	const cs_x86_op *other = x86_other_operand(x);
	bool locked = x->prefix[0] == X86_PREFIX_LOCK;
	unsigned id = ci->id;

	out->reg = -1;
	out->reg2 = -1;
	if (!mem || id == X86_INS_LEA || id == X86_INS_NOP) {
		out->access = WATCH_ACCESS_UNKNOWN;
		return;
	}
	out->mem_size = mem->size;
	out->op = WATCH_OP_NONE;

	/* xchg with memory is atomic without a lock prefix. */
	if (id == X86_INS_XCHG || (locked && x86_arith_op(id) != WATCH_OP_NONE)) {
		out->access = WATCH_ACCESS_RMW;
		out->op = x86_arith_op(id);
	} else if (id == X86_INS_MOV || id == X86_INS_MOVABS || id == X86_INS_MOVZX ||
		   id == X86_INS_MOVSX || id == X86_INS_MOVSXD) {
		/* Intel operand order: the destination comes first. */
		if (&x->operands[0] == mem) {
			out->access = WATCH_ACCESS_STORE;
			out->op = WATCH_OP_MOV_STORE;
		} else {
			out->access = WATCH_ACCESS_LOAD;
			out->op = WATCH_OP_MOV_LOAD;
			out->sign_extend = id == X86_INS_MOVSX || id == X86_INS_MOVSXD;
		}
	} else if (id == X86_INS_CMP || id == X86_INS_TEST || id == X86_INS_BT) {
		out->access = WATCH_ACCESS_LOAD;
	} else {
		bool r = mem->access & CS_AC_READ, w = mem->access & CS_AC_WRITE;

		out->access = r && w ? WATCH_ACCESS_LOAD_STORE
			      : w    ? WATCH_ACCESS_STORE
			      : r    ? WATCH_ACCESS_LOAD
				     : WATCH_ACCESS_UNKNOWN;
		/* Plain read-modify-write (not atomic): same value recovery. */
		if (out->access == WATCH_ACCESS_LOAD_STORE)
			out->op = x86_arith_op(id);
	}

	switch (out->op) {
	case WATCH_OP_MOV_LOAD:
	case WATCH_OP_MOV_STORE:
	case WATCH_OP_XCHG:
	case WATCH_OP_XADD:
	case WATCH_OP_ADD:
	case WATCH_OP_SUB:
	case WATCH_OP_XOR:
	case WATCH_OP_AND:
	case WATCH_OP_OR:
	case WATCH_OP_BTS:
	case WATCH_OP_BTR:
	case WATCH_OP_BTC:
		x86_set_source(out, other);
		break;
	case WATCH_OP_CMPXCHG:
		x86_set_source(out, other);
		out->reg2 = X_RAX;
		break;
	default:
		break;
	}
	if (id == X86_INS_INC || id == X86_INS_DEC) {
		out->has_imm = true;
		out->imm = 1;
	}
	/* A register we cannot read (xmm...) leaves only the memory value. */
	if ((out->op == WATCH_OP_MOV_LOAD || out->op == WATCH_OP_MOV_STORE) && out->reg < 0 &&
	    !out->has_imm)
		out->op = WATCH_OP_NONE;
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
	/* Access width from the mnemonic suffix and the register width
	 * (wzr is a W register: `str wzr` stores 4 zero bytes; ldrsw loads a
	 * word into an X register). */
	size_t n = strlen(m);
	arm64_reg r0 = a->operands[0].reg;
	if (m[n - 1] == 'b')
		out->mem_size = 1;
	else if (m[n - 1] == 'h')
		out->mem_size = 2;
	else if ((r0 >= ARM64_REG_W0 && r0 <= ARM64_REG_W30) || r0 == ARM64_REG_WZR ||
		 (n >= 2 && strcmp(m + n - 2, "sw") == 0))
		out->mem_size = 4;
	else
		out->mem_size = 8;
	out->sign_extend = strncmp(m, "ldrs", 4) == 0 || strncmp(m, "ldurs", 5) == 0;
}

/* ---- finding the instruction ------------------------------------------ */

/* What the sweep remembers of each instruction, for the look back. */
struct x86_step {
	uint64_t addr;
	uint32_t writes; /* bit per regs[] index the instruction writes */
	bool ends_block; /* a jump, call or return */
	bool mov_imm;    /* mov reg, imm */
	bool mov_reg;    /* mov reg, reg (same width, or 32-bit zero-extending) */
	int8_t dst, src; /* regs[] indices */
	int64_t imm;
};

#define X86_LOOKBACK 16

static void x86_step_info(csh cs, const cs_insn *ci, struct x86_step *st)
{
	const cs_x86 *x = &ci->detail->x86;
	cs_regs rd, wr;
	uint8_t nrd = 0, nwr = 0;
	uint8_t shift;

	memset(st, 0, sizeof(*st));
	st->addr = ci->address;
	st->dst = st->src = -1;
	st->ends_block = cs_insn_group(cs, ci, CS_GRP_JUMP) || cs_insn_group(cs, ci, CS_GRP_CALL) ||
			 cs_insn_group(cs, ci, CS_GRP_RET);
	if (cs_regs_access(cs, ci, rd, &nrd, wr, &nwr) == CS_ERR_OK) {
		for (int i = 0; i < nwr; i++) {
			int r = x86_reg_index(wr[i], &shift);
			if (r >= 0)
				st->writes |= 1u << r;
		}
	} else {
		st->writes = ~0u; /* unknown: assume it writes everything */
	}
	if (ci->id == X86_INS_MOV && x->op_count == 2 && x->operands[0].type == X86_OP_REG) {
		int d = x86_reg_index(x->operands[0].reg, &shift);
		if (d < 0 || shift || x->operands[0].size < 4)
			return; /* partial writes keep the old upper bits */
		st->dst = (int8_t)d;
		if (x->operands[1].type == X86_OP_IMM) {
			st->mov_imm = true;
			st->imm = x->operands[1].imm;
		} else if (x->operands[1].type == X86_OP_REG) {
			int s = x86_reg_index(x->operands[1].reg, &shift);
			if (s >= 0 && !shift && x->operands[1].size == x->operands[0].size) {
				st->mov_reg = true;
				st->src = (int8_t)s;
			}
		}
	}
}

/* Direct branch targets inside the function, and whether it has indirect
 * jumps (which could land anywhere). */
struct x86_targets {
	uint64_t *v;
	size_t len, cap;
	bool indirect;
};

static bool is_target(const struct x86_targets *t, uint64_t addr)
{
	for (size_t i = 0; i < t->len; i++)
		if (t->v[i] == addr)
			return true;
	return false;
}

static int collect_targets(struct watch_decoder *dec, const uint8_t *code, size_t len,
			   uint64_t code_addr, struct x86_targets *t)
{
	const uint8_t *p = code;
	size_t left = len;
	uint64_t addr = code_addr;

	while (left && cs_disasm_iter(dec->cs, &p, &left, &addr, dec->insn)) {
		const cs_insn *ci = dec->insn;
		const cs_x86 *x = &ci->detail->x86;
		if (!cs_insn_group(dec->cs, ci, CS_GRP_JUMP))
			continue;
		if (x->op_count == 1 && x->operands[0].type == X86_OP_IMM) {
			if (t->len == t->cap) {
				size_t cap = t->cap ? t->cap * 2 : 32;
				uint64_t *v = realloc(t->v, cap * sizeof(*v));
				if (!v)
					return -ENOMEM;
				t->v = v;
				t->cap = cap;
			}
			t->v[t->len++] = (uint64_t)x->operands[0].imm;
		} else {
			t->indirect = true;
		}
	}
	return 0;
}

/* For xchg/xadd: what did the source register hold before the instruction?
 * steps[0..n) are the instructions before it, oldest first. */
static void x86_pre_value(const struct x86_step *steps, size_t n, uint64_t rmw_addr,
			  const struct x86_targets *targets, struct watch_insn *out)
{
	uint32_t written_after = 0; /* registers written between def and use */
	int want = out->reg;

	if (want < 0 || out->reg_shift || targets->indirect || is_target(targets, rmw_addr))
		return;
	written_after |= 1u << want; /* the xchg/xadd itself writes it */
	for (size_t k = n; k-- > 0;) {
		const struct x86_step *st = &steps[k];
		if (st->ends_block)
			return;
		if (st->writes & (1u << want)) {
			if (st->dst != want)
				return;
			if (st->mov_imm) {
				out->has_pre_imm = true;
				out->pre_imm = st->imm;
			} else if (st->mov_reg && !(written_after & (1u << st->src))) {
				out->pre_reg = st->src;
			}
			return;
		}
		written_after |= st->writes;
		if (is_target(targets, st->addr))
			return; /* control can enter between def and use */
	}
}

static int find_x86(struct watch_decoder *dec, const uint8_t *code, size_t len, size_t fn_len,
		    uint64_t code_addr, uint64_t ip, bool from_start, struct watch_insn *out)
{
	const uint8_t *p = code;
	size_t left = len;
	uint64_t addr = code_addr;

	if (from_start && ip > code_addr && ip - code_addr <= len) {
		/* Linear sweep: compilers put no data inside x86-64 functions. */
		struct x86_step steps[X86_LOOKBACK];
		size_t nsteps = 0;

		left = ip - code_addr;
		while (left && cs_disasm_iter(dec->cs, &p, &left, &addr, dec->insn)) {
			if (addr == ip) {
				out->addr = dec->insn->address;
				out->len = (uint8_t)dec->insn->size;
				insn_text(out, dec->insn);
				x86_classify(dec->insn, out);
				if (out->op == WATCH_OP_XCHG || out->op == WATCH_OP_XADD) {
					struct x86_targets t = { 0 };
					if (collect_targets(dec, code, fn_len, code_addr, &t) == 0)
						x86_pre_value(steps, nsteps, out->addr, &t, out);
					free(t.v);
				}
				return out->access == WATCH_ACCESS_UNKNOWN ? -ENOENT : 0;
			}
			if (nsteps == X86_LOOKBACK) {
				memmove(steps, steps + 1, sizeof(steps) - sizeof(steps[0]));
				nsteps--;
			}
			x86_step_info(dec->cs, dec->insn, &steps[nsteps++]);
		}
		/* ip is not an instruction boundary of this function: the
		 * symbol is wrong or the code holds data. Do not guess. */
		out->access = WATCH_ACCESS_UNKNOWN;
		snprintf(out->text, sizeof(out->text), "no instruction of the function ends at ip");
		return -ENOENT;
	}
	/* No symbol: the instruction that ends at ip and touches memory, if
	 * exactly one length fits. */
	int found = 0;
	struct watch_insn cand = { 0 };
	for (unsigned k = 1; k <= 15 && k <= ip - code_addr && ip - code_addr <= len; k++) {
		p = code + (ip - code_addr - k);
		left = k;
		addr = ip - k;
		if (!cs_disasm_iter(dec->cs, &p, &left, &addr, dec->insn) || left)
			continue;
		struct watch_insn w = { .addr = ip - k, .len = (uint8_t)k };
		insn_text(&w, dec->insn);
		x86_classify(dec->insn, &w);
		if (w.access != WATCH_ACCESS_UNKNOWN) {
			cand = w;
			found++;
		}
	}
	if (found == 1) {
		*out = cand;
		return 0;
	}
	out->access = WATCH_ACCESS_UNKNOWN;
	snprintf(out->text, sizeof(out->text), "%s",
		 found ? "ambiguous instruction before ip" : "no instruction ends at ip");
	return -ENOENT;
}

static int find_a64(struct watch_decoder *dec, const uint8_t *code, size_t len, uint64_t code_addr,
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
	insn_text(out, dec->insn);
	a64_classify(dec->insn, out);
	return out->access == WATCH_ACCESS_UNKNOWN ? -ENOENT : 0;
}

int watch_decoder_find(struct watch_decoder *dec, const uint8_t *code, size_t len,
		       uint64_t code_addr, uint64_t ip, size_t fn_size, bool from_symbol_start,
		       struct watch_insn *insn)
{
	memset(insn, 0, sizeof(*insn));
	insn->reg = insn->reg2 = insn->pre_reg = -1;
	if (dec->arch == WATCH_ARCH_ARM64)
		return find_a64(dec, code, len, code_addr, ip, insn);
	return find_x86(dec, code, len, fn_size && fn_size < len ? fn_size : len, code_addr, ip,
			from_symbol_start, insn);
}

/* ---- values ------------------------------------------------------------ */

int64_t watch_value_normalize(uint64_t raw, unsigned size)
{
	if (size >= 8)
		return (int64_t)raw;
	unsigned bits = size * 8;
	uint64_t m = (1ull << bits) - 1, sign = 1ull << (bits - 1);
	raw &= m;
	return (int64_t)((raw ^ sign) - sign);
}

static uint64_t reg_value(enum watch_arch arch, const struct watch_record *rec, int reg,
			  unsigned shift)
{
	if (arch == WATCH_ARCH_ARM64 && reg == A64_ZR)
		return 0;
	if (reg < 0 || reg >= WATCH_NREGS)
		return 0;
	return rec->regs[reg] >> shift;
}

static bool flag(enum watch_arch arch, const struct watch_record *rec, unsigned bit)
{
	return arch == WATCH_ARCH_X86_64 && (rec->regs[X_EFLAGS] & bit);
}

bool watch_insn_values_exact(enum watch_arch arch, const struct watch_insn *insn, unsigned size)
{
	bool src_known = insn->has_imm || insn->reg >= 0;

	if (arch != WATCH_ARCH_X86_64 || insn->mem_size != size)
		return false;
	switch (insn->access) {
	case WATCH_ACCESS_LOAD:
		return insn->op == WATCH_OP_MOV_LOAD && insn->reg >= 0;
	case WATCH_ACCESS_STORE:
		return insn->op == WATCH_OP_MOV_STORE && src_known;
	case WATCH_ACCESS_RMW:
		if (insn->op == WATCH_OP_CMPXCHG)
			return src_known;
		if (insn->op == WATCH_OP_XCHG || insn->op == WATCH_OP_XADD)
			return insn->reg >= 0 && !insn->reg_shift &&
			       (insn->has_pre_imm || insn->pre_reg >= 0);
		return false;
	default:
		return false;
	}
}

int watch_access_values(enum watch_arch arch, const struct watch_insn *insn,
			const struct watch_record *rec, struct vsc_capture_event out[2],
			struct watch_value_stats *stats)
{
	unsigned size = rec->ev.size;
	bool exact_width = insn->mem_size == size;
	int64_t mem = watch_value_normalize((uint64_t)rec->ev.value, size);
	uint64_t src = insn->has_imm ? (uint64_t)insn->imm
				     : reg_value(arch, rec, insn->reg, insn->reg_shift);
	bool src_known = insn->has_imm || insn->reg >= 0;
	bool after = arch == WATCH_ARCH_X86_64; /* memory read after the access */
	/* no memory value: BPF skipped the read (watch_insn_values_exact) */
	bool have_mem = rec->rec_flags & WATCH_REC_MEM_READ;
	int64_t old = mem, new = mem;
	bool exact = false;     /* every value of the event came from a register */
	bool pre_known = false; /* xchg/xadd: the source's value before is known */

	out[0] = rec->ev;
	out[0].flags &= ~(uint32_t)VSC_CAP_F_VALUE_UNSURE;
	if (!have_mem && !watch_insn_values_exact(arch, insn, size)) {
		/* cannot happen when BPF and the decoder agree; never guess */
		out[0].kind = VSC_CAP_LOAD;
		out[0].flags |= VSC_CAP_F_VALUE_UNSURE;
		stats->unknown++;
		return 1;
	}

	switch (insn->access) {
	case WATCH_ACCESS_LOAD:
	case WATCH_ACCESS_LOAD_EXCL:
		out[0].kind = VSC_CAP_LOAD;
		if (insn->op == WATCH_OP_MOV_LOAD && exact_width && insn->reg >= 0) {
			/* x86: the register holds the loaded value after the
			 * access. ARM64: the load has not happened yet. */
			if (after) {
				old = watch_value_normalize(src, size);
				exact = true;
			}
		}
		out[0].value = old;
		break;
	case WATCH_ACCESS_STORE:
	case WATCH_ACCESS_STORE_EXCL:
		out[0].kind = VSC_CAP_STORE;
		if (insn->op == WATCH_OP_MOV_STORE && exact_width && src_known) {
			new = watch_value_normalize(src, size);
			/* A store-exclusive may fail: not sure it happened. */
			exact = insn->access == WATCH_ACCESS_STORE;
		}
		out[0].value = new;
		break;
	case WATCH_ACCESS_RMW:
	case WATCH_ACCESS_LOAD_STORE: {
		int64_t s = watch_value_normalize(src, size);
		bool ok = exact_width;
		/* x86: mem is the new value; ARM64: mem is the old one. */
		switch (insn->op) {
		case WATCH_OP_CMPXCHG: {
			int64_t expected =
				watch_value_normalize(reg_value(arch, rec, insn->reg2, 0), size);
			bool success = after ? flag(arch, rec, X86_ZF) : expected == mem;
			if (!success) {
				/* A failed compare-and-swap only reads. x86: the
				 * accumulator holds what was read. */
				out[0].kind = VSC_CAP_LOAD;
				out[0].value = after ? expected : mem;
				exact = after && ok;
				goto done;
			}
			/* It wrote: without the source register the value
			 * written comes from memory, so it is unsure (it was
			 * recorded as an exact read before). */
			old = expected;
			new = src_known ? s : mem;
			ok = ok && src_known;
			break;
		}
		case WATCH_OP_XCHG:
		case WATCH_OP_XADD:
			if (after) {
				old = s; /* the register received the old value */
				new = mem;
				if (insn->has_pre_imm || insn->pre_reg >= 0) {
					uint64_t pre =
						insn->has_pre_imm
							? (uint64_t)insn->pre_imm
							: reg_value(arch, rec, insn->pre_reg, 0);
					new = watch_value_normalize(insn->op == WATCH_OP_XCHG
									    ? pre
									    : (uint64_t)old + pre,
								    size);
					pre_known = true;
				}
			} else {
				new = insn->op == WATCH_OP_XCHG ? s : old + s;
			}
			break;
		case WATCH_OP_ADD:
			if (after)
				old = (int64_t)((uint64_t) new - (uint64_t)s);
			else
				new = (int64_t)((uint64_t)old + (uint64_t)s);
			ok = ok && src_known;
			break;
		case WATCH_OP_SUB:
			if (after)
				old = (int64_t)((uint64_t) new + (uint64_t)s);
			else
				new = (int64_t)((uint64_t)old - (uint64_t)s);
			ok = ok && src_known;
			break;
		case WATCH_OP_XOR:
		case WATCH_OP_LDEOR:
			if (after)
				old = new ^ s;
			else
				new = old ^ s;
			ok = ok && src_known;
			break;
		case WATCH_OP_NEG:
			if (after)
				old = watch_value_normalize(-(uint64_t) new, size);
			else
				new = watch_value_normalize(-(uint64_t)old, size);
			break;
		case WATCH_OP_NOT:
			if (after)
				old = watch_value_normalize(~(uint64_t) new, size);
			else
				new = watch_value_normalize(~(uint64_t)old, size);
			break;
		case WATCH_OP_BTS:
		case WATCH_OP_BTR:
		case WATCH_OP_BTC: {
			uint64_t bit = 1ull << (src & (size * 8 - 1));
			uint64_t was = flag(arch, rec, X86_CF) ? bit : 0;
			old = watch_value_normalize(((uint64_t) new & ~bit) | was, size);
			ok = ok && src_known;
			break;
		}
		case WATCH_OP_LDSET:
			new = old | s;
			break;
		case WATCH_OP_LDCLR:
			new = old & ~s;
			break;
		default:
			/* and/or after the fact, min/max, anything else: the old
			 * value cannot be rebuilt; record the write and say so. */
			ok = false;
			if (after) {
				out[0].kind = VSC_CAP_STORE;
				out[0].value = new;
				out[0].flags |= VSC_CAP_F_VALUE_UNSURE;
				stats->unsure++;
				return 1;
			}
			break;
		}
		/* Exact: a successful x86 cmpxchg, and xchg/xadd whose source
		 * was set in the same block; every other RMW takes a value from
		 * the memory read. */
		if (!(ok && after && (insn->op == WATCH_OP_CMPXCHG || pre_known))) {
			out[0].flags |= VSC_CAP_F_VALUE_UNSURE;
			stats->unsure++;
		} else if (have_mem && new != mem) {
			stats->raced++; /* another thread wrote before the BPF read */
		}
		if (insn->access == WATCH_ACCESS_RMW) {
			out[0].kind = VSC_CAP_RMW;
			out[0].value = old;
			out[0].new_value = new;
			return 1;
		}
		out[0].kind = VSC_CAP_LOAD;
		out[0].value = old;
		out[1] = out[0];
		out[1].kind = VSC_CAP_STORE;
		out[1].value = new;
		return 2;
	}
	default:
		out[0].kind = VSC_CAP_LOAD;
		out[0].value = mem;
		out[0].flags |= VSC_CAP_F_VALUE_UNSURE;
		stats->unknown++;
		return 1;
	}
done:
	if (!exact) {
		out[0].flags |= VSC_CAP_F_VALUE_UNSURE;
		stats->unsure++;
	} else if (after && have_mem && out[0].value != mem) {
		/* Another thread wrote between the access and the BPF read. */
		stats->raced++;
	}
	return 1;
}
