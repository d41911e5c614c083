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
