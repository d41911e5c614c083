/* SPDX-License-Identifier: MIT */
/*
 * Watchpoint hit -> instruction -> access kind and exact values (Capstone).
 * See decode.h for the x86-64 / ARM64 difference and docs/watch.md for what
 * is and is not faithful.
 */
#include "decode_arch.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

void decode_insn_text(struct watch_insn *out, const cs_insn *ci)
{
	snprintf(out->text, sizeof(out->text), "%.16s%s%.60s", ci->mnemonic,
		 ci->op_str[0] ? " " : "", ci->op_str);
}

int watch_decoder_find(struct watch_decoder *dec, const uint8_t *code, size_t len,
		       uint64_t code_addr, uint64_t ip, size_t fn_size, bool from_symbol_start,
		       struct watch_insn *insn)
{
	memset(insn, 0, sizeof(*insn));
	insn->reg = insn->reg2 = insn->pre_reg = -1;
	if (dec->arch == WATCH_ARCH_ARM64)
		return decode_find_a64(dec, code, len, code_addr, ip, insn);
	return decode_find_x86(dec, code, len, fn_size && fn_size < len ? fn_size : len, code_addr,
			       ip, from_symbol_start, insn);
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

/* What one watchpoint hit gives to rebuild its values from. */
struct access_ctx {
	enum watch_arch arch;
	const struct watch_insn *insn;
	const struct watch_record *rec;
	struct watch_value_stats *stats;
	unsigned size;
	bool exact_width; /* the instruction accesses the watched size */
	bool src_known;   /* its source operand (register or immediate) is known */
	bool after;       /* memory was read after the access (x86), else before */
	bool have_mem;    /* BPF read memory (else watch_insn_values_exact holds) */
	int64_t mem;      /* what BPF read */
	uint64_t src;     /* the source operand */
};

/* The values of a read-modify-write. */
struct rmw_values {
	int64_t old, new;
	bool ok;        /* they do not rest on the memory read alone */
	bool pre_known; /* xchg/xadd: the source's value before the access is known */
};

/* An access whose value cannot be known: recorded as a read, marked. */
static int unknown_access(const struct access_ctx *a, struct vsc_capture_event *ev)
{
	ev->kind = VSC_CAP_LOAD;
	ev->flags |= VSC_CAP_F_VALUE_UNSURE;
	a->stats->unknown++;
	return 1;
}

/* One event whose value is set: marked unless exact. */
static int finish_one(const struct access_ctx *a, struct vsc_capture_event *ev, bool exact)
{
	if (!exact) {
		ev->flags |= VSC_CAP_F_VALUE_UNSURE;
		a->stats->unsure++;
	} else if (a->after && a->have_mem && ev->value != a->mem) {
		/* Another thread wrote between the access and the BPF read. */
		a->stats->raced++;
	}
	return 1;
}

static int load_values(const struct access_ctx *a, struct vsc_capture_event *ev)
{
	const struct watch_insn *insn = a->insn;
	bool exact = false;

	ev->kind = VSC_CAP_LOAD;
	ev->value = a->mem;
	/* x86: the register holds the loaded value after the access. ARM64:
	 * the load has not happened yet. */
	if (insn->op == WATCH_OP_MOV_LOAD && a->exact_width && insn->reg >= 0 && a->after) {
		ev->value = watch_value_normalize(a->src, a->size);
		exact = true;
	}
	return finish_one(a, ev, exact);
}

static int store_values(const struct access_ctx *a, struct vsc_capture_event *ev)
{
	const struct watch_insn *insn = a->insn;
	bool exact = false;

	ev->kind = VSC_CAP_STORE;
	ev->value = a->mem;
	if (insn->op == WATCH_OP_MOV_STORE && a->exact_width && a->src_known) {
		ev->value = watch_value_normalize(a->src, a->size);
		/* A store-exclusive may fail: not sure it happened. */
		exact = insn->access == WATCH_ACCESS_STORE;
	}
	return finish_one(a, ev, exact);
}

/* Compare-and-swap. One that failed only reads: ev is then the whole
 * event (1). One that wrote gives old and new (0). */
static int cmpxchg_values(const struct access_ctx *a, int64_t s, struct rmw_values *v,
			  struct vsc_capture_event *ev)
{
	int64_t expected =
		watch_value_normalize(reg_value(a->arch, a->rec, a->insn->reg2, 0), a->size);
	bool success = a->after ? flag(a->arch, a->rec, X86_ZF) : expected == a->mem;

	if (!success) {
		/* x86: the accumulator holds what was read. */
		ev->kind = VSC_CAP_LOAD;
		ev->value = a->after ? expected : a->mem;
		return finish_one(a, ev, a->after && v->ok);
	}
	/* It wrote: without the source register the value written comes from
	 * memory, so it is unsure (it was recorded as an exact read before). */
	v->old = expected;
	v->new = a->src_known ? s : a->mem;
	v->ok = v->ok && a->src_known;
	return 0;
}

/* xchg/xadd. x86: the register received the old value; the new one is
 * known when the source was set in the same block. ARM64: from the old. */
static void exchange_values(const struct access_ctx *a, int64_t s, struct rmw_values *v)
{
	const struct watch_insn *insn = a->insn;
	uint64_t pre;

	if (!a->after) {
		v->new = insn->op == WATCH_OP_XCHG ? s : v->old + s;
		return;
	}
	v->old = s;
	v->new = a->mem;
	if (!insn->has_pre_imm && insn->pre_reg < 0)
		return;
	pre = insn->has_pre_imm ? (uint64_t)insn->pre_imm
				: reg_value(a->arch, a->rec, insn->pre_reg, 0);
	v->new = watch_value_normalize(insn->op == WATCH_OP_XCHG ? pre : (uint64_t)v->old + pre,
				       a->size);
	v->pre_known = true;
}

/* Arithmetic op on x with operand s, or undone from its result x. */
static uint64_t arith(unsigned op, bool undo, uint64_t x, uint64_t s, unsigned size)
{
	switch (op) {
	case WATCH_OP_ADD:
		return undo ? x - s : x + s;
	case WATCH_OP_SUB:
		return undo ? x + s : x - s;
	case WATCH_OP_NEG:
		return (uint64_t)watch_value_normalize(-x, size);
	case WATCH_OP_NOT:
		return (uint64_t)watch_value_normalize(~x, size);
	default: /* xor, ldeor */
		return x ^ s;
	}
}

/* x86 bts/btr/btc: CF held the bit before. */
static void bit_test_values(const struct access_ctx *a, struct rmw_values *v)
{
	uint64_t bit = 1ull << (a->src & (a->size * 8 - 1));
	uint64_t was = flag(a->arch, a->rec, X86_CF) ? bit : 0;

	v->old = watch_value_normalize(((uint64_t)v->new & ~bit) | was, a->size);
	v->ok = v->ok && a->src_known;
}

/* Old and new of an RMW other than cmpxchg, from the one value memory gave
 * (x86: the new one; ARM64: the old one). false: they cannot be rebuilt. */
static bool rebuild_rmw(const struct access_ctx *a, int64_t s, struct rmw_values *v)
{
	unsigned op = a->insn->op;

	switch (op) {
	case WATCH_OP_XCHG:
	case WATCH_OP_XADD:
		exchange_values(a, s, v);
		return true;
	case WATCH_OP_ADD:
	case WATCH_OP_SUB:
	case WATCH_OP_XOR:
	case WATCH_OP_LDEOR:
		v->ok = v->ok && a->src_known;
		/* fall through */
	case WATCH_OP_NEG:
	case WATCH_OP_NOT:
		if (a->after)
			v->old = (int64_t)arith(op, true, (uint64_t)v->new, (uint64_t)s, a->size);
		else
			v->new = (int64_t)arith(op, false, (uint64_t)v->old, (uint64_t)s, a->size);
		return true;
	case WATCH_OP_BTS:
	case WATCH_OP_BTR:
	case WATCH_OP_BTC:
		bit_test_values(a, v);
		return true;
	case WATCH_OP_LDSET:
		v->new = v->old | s;
		return true;
	case WATCH_OP_LDCLR:
		v->new = v->old & ~s;
		return true;
	default:
		return false;
	}
}

/* The events of an RMW whose values are rebuilt: one RMW, or a load and a
 * store (a load/store pair of instructions). */
static int rmw_events(const struct access_ctx *a, const struct rmw_values *v,
		      struct vsc_capture_event out[2])
{
	/* Exact: a successful x86 cmpxchg, and xchg/xadd whose source was set
	 * in the same block; every other RMW takes a value from the memory
	 * read. */
	if (!(v->ok && a->after && (a->insn->op == WATCH_OP_CMPXCHG || v->pre_known))) {
		out[0].flags |= VSC_CAP_F_VALUE_UNSURE;
		a->stats->unsure++;
	} else if (a->have_mem && v->new != a->mem) {
		a->stats->raced++; /* another thread wrote before the BPF read */
	}
	if (a->insn->access == WATCH_ACCESS_RMW) {
		out[0].kind = VSC_CAP_RMW;
		out[0].value = v->old;
		out[0].new_value = v->new;
		return 1;
	}
	out[0].kind = VSC_CAP_LOAD;
	out[0].value = v->old;
	out[1] = out[0];
	out[1].kind = VSC_CAP_STORE;
	out[1].value = v->new;
	return 2;
}

static int rmw_values(const struct access_ctx *a, struct vsc_capture_event out[2])
{
	int64_t s = watch_value_normalize(a->src, a->size);
	struct rmw_values v = { .old = a->mem, .new = a->mem, .ok = a->exact_width };

	if (a->insn->op == WATCH_OP_CMPXCHG) {
		if (cmpxchg_values(a, s, &v, &out[0]))
			return 1;
	} else if (!rebuild_rmw(a, s, &v)) {
		/* and/or after the fact, min/max, anything else: the old value
		 * cannot be rebuilt; record the write and say so. */
		v.ok = false;
		if (a->after) {
			out[0].kind = VSC_CAP_STORE;
			out[0].value = v.new;
			out[0].flags |= VSC_CAP_F_VALUE_UNSURE;
			a->stats->unsure++;
			return 1;
		}
	}
	return rmw_events(a, &v, out);
}

/* By pages (WATCH_REC_MEM_STILL): memory before and after the access,
 * nothing else running, gives every value exactly; only the kind comes of
 * the instruction (a cmpxchg that failed only read: ZF). */
static int still_values(const struct access_ctx *a, struct vsc_capture_event out[2])
{
	int64_t before = watch_value_normalize((uint64_t)a->rec->ev.new_value, a->size);
	out[0].new_value = 0;
	switch (a->insn->access) {
	case WATCH_ACCESS_LOAD:
	case WATCH_ACCESS_LOAD_EXCL:
		out[0].kind = VSC_CAP_LOAD;
		out[0].value = a->mem;
		return 1;
	case WATCH_ACCESS_STORE:
	case WATCH_ACCESS_STORE_EXCL:
		out[0].kind = VSC_CAP_STORE;
		out[0].value = a->mem;
		return 1;
	case WATCH_ACCESS_RMW:
		if (a->insn->op == WATCH_OP_CMPXCHG && !flag(a->arch, a->rec, X86_ZF)) {
			out[0].kind = VSC_CAP_LOAD;
			out[0].value = before;
			return 1;
		}
		out[0].kind = VSC_CAP_RMW;
		out[0].value = before;
		out[0].new_value = a->mem;
		return 1;
	case WATCH_ACCESS_LOAD_STORE:
		out[0].kind = VSC_CAP_LOAD;
		out[0].value = before;
		out[1] = out[0];
		out[1].kind = VSC_CAP_STORE;
		out[1].value = a->mem;
		return 2;
	default:
		out[0].value = a->mem;
		return unknown_access(a, &out[0]);
	}
}

int watch_access_values(enum watch_arch arch, const struct watch_insn *insn,
			const struct watch_record *rec, struct vsc_capture_event out[2],
			struct watch_value_stats *stats)
{
	unsigned size = rec->ev.size;
	const struct access_ctx a = {
		.arch = arch,
		.insn = insn,
		.rec = rec,
		.stats = stats,
		.size = size,
		.exact_width = insn->mem_size == size,
		.src_known = insn->has_imm || insn->reg >= 0,
		.after = arch == WATCH_ARCH_X86_64,
		.have_mem = rec->rec_flags & WATCH_REC_MEM_READ,
		.mem = watch_value_normalize((uint64_t)rec->ev.value, size),
		.src = insn->has_imm ? (uint64_t)insn->imm
				     : reg_value(arch, rec, insn->reg, insn->reg_shift),
	};

	out[0] = rec->ev;
	out[0].flags &= ~(uint32_t)VSC_CAP_F_VALUE_UNSURE;
	/* no memory value: cannot happen when BPF and the decoder agree;
	 * never guess */
	if (!a.have_mem && !watch_insn_values_exact(arch, insn, size))
		return unknown_access(&a, &out[0]);
	if (rec->rec_flags & WATCH_REC_MEM_STILL)
		return still_values(&a, out);
	switch (insn->access) {
	case WATCH_ACCESS_LOAD:
	case WATCH_ACCESS_LOAD_EXCL:
		return load_values(&a, &out[0]);
	case WATCH_ACCESS_STORE:
	case WATCH_ACCESS_STORE_EXCL:
		return store_values(&a, &out[0]);
	case WATCH_ACCESS_RMW:
	case WATCH_ACCESS_LOAD_STORE:
		return rmw_values(&a, out);
	default:
		out[0].value = a.mem;
		return unknown_access(&a, &out[0]);
	}
}
