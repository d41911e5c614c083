/* SPDX-License-Identifier: MIT */
/* What an outcome of a litmus test is: the values its loads read (thread
 * by thread, in program order) and the final values of the locations the
 * condition names; whether it satisfies the condition; and the execution it
 * stands for, as a vsc program, so that libvsc decides whether it is SC. */
#include <inttypes.h>
#include <stdbool.h>
#include <string.h>

#include "litmus.h"

static bool reads(const struct litmus_insn *in)
{
	return in->op == LITMUS_LOAD || in->op == LITMUS_SWAP;
}

void litmus_finals(const struct litmus_test *t, struct litmus_final *f)
{
	bool named[LITMUS_MAX_LOCS] = { false };

	for (int i = 0; i < t->cond_count; i++)
		if (t->cond[i].kind == COND_LOC)
			named[t->cond[i].loc] = true;
	f->count = 0;
	for (int l = 0; l < t->loc_count; l++)
		if (named[l])
			f->locs[f->count++] = l;
}

static size_t read_count(const struct litmus_test *t)
{
	size_t n = 0;
	for (int th = 0; th < t->thread_count; th++)
		for (int k = 0; k < t->thread[th].insn_count; k++)
			n += reads(&t->thread[th].insn[k]);
	return n;
}

size_t litmus_outcome_width(const struct litmus_test *t)
{
	struct litmus_final f;
	litmus_finals(t, &f);
	return read_count(t) + (size_t)f.count;
}

/* Replay thread th with the values its reads saw (from *next on): each
 * register's final value, and per instruction the value a store writes. */
static void replay(const struct litmus_test *t, int th, const int64_t *values, size_t *next,
		   int64_t regs[LITMUS_MAX_REGS], int64_t written[LITMUS_MAX_INSNS])
{
	const struct litmus_thread *thr = &t->thread[th];

	for (int r = 0; r < thr->reg_count; r++)
		regs[r] = thr->reg[r].init;
	for (int k = 0; k < thr->insn_count; k++) {
		const struct litmus_insn *in = &thr->insn[k];
		int64_t src = in->src.reg >= 0 ? regs[in->src.reg] : in->src.imm;
		written[k] = src;
		switch (in->op) {
		case LITMUS_LOAD:
			regs[in->dst] = values[(*next)++];
			break;
		case LITMUS_SWAP:
			regs[in->dst] = values[(*next)++];
			break;
		case LITMUS_MOVE:
			regs[in->dst] = src;
			break;
		default:
			break;
		}
	}
}

static bool eval(const struct litmus_test *t, int node,
		 int64_t regs[LITMUS_MAX_THREADS][LITMUS_MAX_REGS], const int64_t *finals)
{
	const struct litmus_cond *c = &t->cond[node];
	switch (c->kind) {
	case COND_TRUE:
		return true;
	case COND_REG:
		return regs[c->thread][c->reg] == c->value;
	case COND_LOC:
		return finals[c->loc] == c->value;
	case COND_AND:
		return eval(t, c->left, regs, finals) && eval(t, c->right, regs, finals);
	case COND_OR:
		return eval(t, c->left, regs, finals) || eval(t, c->right, regs, finals);
	case COND_NOT:
		return !eval(t, c->left, regs, finals);
	}
	return false;
}

int litmus_outcome_matches(const struct litmus_test *t, const int64_t *values)
{
	int64_t regs[LITMUS_MAX_THREADS][LITMUS_MAX_REGS];
	int64_t written[LITMUS_MAX_INSNS];
	int64_t finals[LITMUS_MAX_LOCS] = { 0 };
	struct litmus_final f;
	size_t next = 0;

	for (int th = 0; th < t->thread_count; th++)
		replay(t, th, values, &next, regs[th], written);
	litmus_finals(t, &f);
	for (int i = 0; i < f.count; i++)
		finals[f.locs[i]] = values[next + (size_t)i];
	return eval(t, t->cond_root, regs, finals);
}

void litmus_outcome_print(const struct litmus_test *t, const int64_t *values, FILE *out)
{
	struct litmus_final f;
	size_t next = 0;
	const char *sep = "";

	for (int th = 0; th < t->thread_count; th++)
		for (int k = 0; k < t->thread[th].insn_count; k++) {
			const struct litmus_insn *in = &t->thread[th].insn[k];
			if (!reads(in))
				continue;
			fprintf(out, "%s%d:%s=%" PRId64 ";", sep, th,
				t->thread[th].reg[in->dst].name, values[next++]);
			sep = " ";
		}
	litmus_finals(t, &f);
	for (int i = 0; i < f.count; i++) {
		fprintf(out, "%s%s=%" PRId64 ";", sep, t->loc[f.locs[i]].name, values[next++]);
		sep = " ";
	}
}

static int append(struct vsc_program *p, int thread, enum vsc_kind kind, int var, int64_t value,
		  int64_t new_value)
{
	struct vsc_event ev = {
		.kind = kind, .var = (uint32_t)var, .value = value, .new_value = new_value
	};
	return vsc_program_append(p, (size_t)thread, &ev, 0);
}

/* The threads' events with the values of the outcome. */
static int add_threads(const struct litmus_test *t, const int64_t *values, size_t *next,
		       struct vsc_program *p)
{
	for (int th = 0; th < t->thread_count; th++) {
		char name[16];
		int64_t regs[LITMUS_MAX_REGS], written[LITMUS_MAX_INSNS];
		size_t first = *next, cursor = first;
		snprintf(name, sizeof(name), "P%d", th);
		if (vsc_program_add_thread(p, name) != th)
			return -1;
		replay(t, th, values, next, regs, written);
		for (int k = 0; k < t->thread[th].insn_count; k++) {
			const struct litmus_insn *in = &t->thread[th].insn[k];
			int err = 0;
			if (in->op == LITMUS_LOAD)
				err = append(p, th, VSC_READ, in->loc, values[cursor++], 0);
			else if (in->op == LITMUS_STORE)
				err = append(p, th, VSC_WRITE, in->loc, written[k], 0);
			else if (in->op == LITMUS_SWAP)
				err = append(p, th, VSC_RMW, in->loc, values[cursor++], written[k]);
			if (err)
				return err;
		}
	}
	return 0;
}

/* Final values: every thread writes done.Pn = 1 last; an observer reads all
 * of them as 1 and then the locations: it comes after every other event. */
static int add_observer(const struct litmus_test *t, const struct litmus_final *f,
			const int64_t *values, size_t next, struct vsc_program *p)
{
	int observer = vsc_program_add_thread(p, "final");
	if (observer < 0)
		return observer;
	for (int th = 0; th < t->thread_count; th++) {
		char name[32];
		snprintf(name, sizeof(name), "done.P%d", th);
		int var = vsc_program_add_var(p, name);
		if (var < 0 || vsc_program_set_init(p, (size_t)var, VSC_INIT_KNOWN, 0) ||
		    append(p, th, VSC_WRITE, var, 1, 0) || append(p, observer, VSC_READ, var, 1, 0))
			return -1;
	}
	for (int i = 0; i < f->count; i++)
		if (append(p, observer, VSC_READ, f->locs[i], values[next + (size_t)i], 0))
			return -1;
	return 0;
}

struct vsc_program *litmus_outcome_program(const struct litmus_test *t, const int64_t *values)
{
	struct vsc_program *p = vsc_program_new();
	struct litmus_final f;
	size_t next = 0;

	if (!p)
		return NULL;
	for (int l = 0; l < t->loc_count; l++)
		if (vsc_program_add_var(p, t->loc[l].name) != l ||
		    vsc_program_set_init(p, (size_t)l, VSC_INIT_KNOWN, t->loc[l].init))
			goto fail;
	if (add_threads(t, values, &next, p))
		goto fail;
	litmus_finals(t, &f);
	if (f.count && add_observer(t, &f, values, next, p))
		goto fail;
	return p;
fail:
	vsc_program_free(p);
	return NULL;
}
