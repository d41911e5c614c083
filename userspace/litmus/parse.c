/* SPDX-License-Identifier: MIT */
/* The .litmus reader: header line, initial state, the program table and
 * the final condition, in the subset docs/litmus.md describes. Every
 * problem is reported as FILE:LINE:COL and nothing is guessed. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "litmus.h"

struct cursor {
	const char *p, *end;
	unsigned line, col;
	const char *file;
	char *err;
	size_t err_len;
	bool failed;
};

static int fail_at(struct cursor *c, unsigned line, unsigned col, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (c->failed)
		return -EINVAL;
	c->failed = true;
	n = snprintf(c->err, c->err_len, "%s:%u:%u: ", c->file, line, col);
	if (n < 0 || (size_t)n >= c->err_len)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(c->err + n, c->err_len - (size_t)n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}
#define FAIL(c, ...) fail_at((c), (c)->line, (c)->col, __VA_ARGS__)

static int peek(const struct cursor *c)
{
	return c->p < c->end ? (unsigned char)*c->p : -1;
}

static void advance(struct cursor *c)
{
	if (c->p >= c->end)
		return;
	if (*c->p == '\n') {
		c->line++;
		c->col = 1;
	} else {
		c->col++;
	}
	c->p++;
}

/* Skip blanks, newlines (when `lines`) and (* comments *). */
static int skip_space(struct cursor *c, bool lines)
{
	for (;;) {
		int ch = peek(c);
		if (ch == ' ' || ch == '\t' || ch == '\r' || (lines && ch == '\n')) {
			advance(c);
		} else if (ch == '(' && c->p + 1 < c->end && c->p[1] == '*') {
			unsigned line = c->line, col = c->col;
			advance(c);
			advance(c);
			while (peek(c) >= 0 &&
			       !(peek(c) == '*' && c->p + 1 < c->end && c->p[1] == ')'))
				advance(c);
			if (peek(c) < 0)
				return fail_at(c, line, col, "comment not closed");
			advance(c);
			advance(c);
		} else {
			return 0;
		}
	}
}

static bool is_name_char(int ch)
{
	return ch >= 0 && (isalnum(ch) || ch == '_' || ch == '.' || ch == '+' || ch == '-');
}

/* A name of [A-Za-z0-9_.+-]; returns its length (0: none there). */
static size_t read_name(struct cursor *c, char *buf, size_t len)
{
	size_t n = 0;
	while (is_name_char(peek(c))) {
		if (n + 1 < len)
			buf[n] = *c->p;
		n++;
		advance(c);
	}
	buf[n < len ? n : len - 1] = '\0';
	return n;
}

static int read_int(struct cursor *c, int64_t *out)
{
	char buf[32];
	char *end;
	unsigned line = c->line, col = c->col;
	size_t n = 0;

	if (peek(c) == '-' || peek(c) == '+')
		buf[n++] = *c->p, advance(c);
	while (peek(c) >= 0 && isalnum(peek(c)) && n + 1 < sizeof(buf))
		buf[n++] = *c->p, advance(c);
	buf[n] = '\0';
	errno = 0;
	long long v = strtoll(buf, &end, 0);
	if (n == 0 || *end || errno || end == buf)
		return fail_at(c, line, col, "expected an integer, found '%s'", buf);
	*out = v;
	return 0;
}

static int expect_char(struct cursor *c, int ch)
{
	if (skip_space(c, true))
		return -EINVAL;
	if (peek(c) != ch)
		return FAIL(c, "expected '%c'", ch);
	advance(c);
	return 0;
}

const char *litmus_arch_name(enum litmus_arch arch)
{
	return arch == LITMUS_X86 ? "X86" : "AArch64";
}

/* ---- names: locations and registers ----------------------------------- */

static int find_loc(const struct litmus_test *t, const char *name)
{
	for (int i = 0; i < t->loc_count; i++)
		if (strcmp(t->loc[i].name, name) == 0)
			return i;
	return -1;
}

static int add_loc(struct cursor *c, struct litmus_test *t, const char *name)
{
	int i = find_loc(t, name);
	if (i >= 0)
		return i;
	if (!isalpha((unsigned char)name[0]) && name[0] != '_')
		return FAIL(c, "'%s' is not a location name", name);
	if (t->loc_count == LITMUS_MAX_LOCS)
		return FAIL(c, "more than %d locations", LITMUS_MAX_LOCS);
	snprintf(t->loc[t->loc_count].name, sizeof(t->loc[0].name), "%s", name);
	t->loc[t->loc_count].init = 0;
	return t->loc_count++;
}

/* Registers of the architecture, normalised ("W3"/"X3" -> "X3", "eax" ->
 * "EAX"); false for anything else. */
static bool normalise_reg(enum litmus_arch arch, const char *name, char out[8])
{
	static const char *const x86[] = { "EAX", "EBX", "ECX", "EDX", "ESI", "EDI" };
	if (arch == LITMUS_X86) {
		for (size_t i = 0; i < sizeof(x86) / sizeof(x86[0]); i++)
			if (strcasecmp(name, x86[i]) == 0) {
				strcpy(out, x86[i]);
				return true;
			}
		return false;
	}
	if ((name[0] == 'W' || name[0] == 'X' || name[0] == 'w' || name[0] == 'x') &&
	    isdigit((unsigned char)name[1])) {
		char *end;
		long n = strtol(name + 1, &end, 10);
		if (*end || n < 0 || n > 30)
			return false;
		snprintf(out, 8, "X%ld", n);
		return true;
	}
	return false;
}

static bool is_w_reg(const char *name)
{
	return name[0] == 'W' || name[0] == 'w';
}

static int find_reg(const struct litmus_thread *th, const char *norm)
{
	for (int i = 0; i < th->reg_count; i++)
		if (strcmp(th->reg[i].name, norm) == 0)
			return i;
	return -1;
}

/* The register `name` of thread th (added when new); negative if not one. */
static int thread_reg(struct cursor *c, struct litmus_test *t, int th, const char *name)
{
	char norm[8];
	struct litmus_thread *thr = &t->thread[th];
	int i;

	if (!normalise_reg(t->arch, name, norm))
		return FAIL(c, "'%s' is not a %s register this reader knows", name,
			    litmus_arch_name(t->arch));
	i = find_reg(thr, norm);
	if (i >= 0)
		return i;
	if (thr->reg_count == LITMUS_MAX_REGS)
		return FAIL(c, "more than %d registers in thread %d", LITMUS_MAX_REGS, th);
	strcpy(thr->reg[thr->reg_count].name, norm);
	thr->reg[thr->reg_count].init = 0;
	thr->reg[thr->reg_count].init_loc = -1;
	return thr->reg_count++;
}

/* ---- header and initial state ------------------------------------------ */

static int parse_header(struct cursor *c, struct litmus_test *t)
{
	char arch[32];

	if (skip_space(c, true))
		return -EINVAL;
	if (!read_name(c, arch, sizeof(arch)))
		return FAIL(c, "expected the architecture (X86 or AArch64)");
	if (strcasecmp(arch, "X86") == 0 || strcasecmp(arch, "X86_64") == 0)
		t->arch = LITMUS_X86;
	else if (strcasecmp(arch, "AArch64") == 0)
		t->arch = LITMUS_AARCH64;
	else
		return FAIL(c, "architecture '%s' is not supported (X86, AArch64)", arch);
	if (skip_space(c, false))
		return -EINVAL;
	if (!read_name(c, t->name, sizeof(t->name)))
		return FAIL(c, "expected the test's name");
	/* the rest until '{' is information (doc string, key=value lines) */
	while (peek(c) >= 0 && peek(c) != '{') {
		if (peek(c) == '"') {
			unsigned line = c->line, col = c->col;
			advance(c);
			while (peek(c) >= 0 && peek(c) != '"')
				advance(c);
			if (peek(c) < 0)
				return fail_at(c, line, col, "string not closed");
		}
		advance(c);
		if (skip_space(c, true))
			return -EINVAL;
	}
	return expect_char(c, '{');
}

/* `T:REG=V`, `T:REG=loc` (AArch64 address), `x=V`, `[x]=V`, with an
 * optional C type before it. */
/* THREAD:REGISTER = a value, or a location's name (the register then
 * holds its address). */
static int parse_reg_init(struct cursor *c, struct litmus_test *t, int thread, const char *reg)
{
	char rhs[LITMUS_NAME_MAX];
	int r, l;

	if (thread >= t->thread_count)
		t->thread_count = thread + 1;
	r = thread_reg(c, t, thread, reg);
	if (r < 0)
		return r;
	if (!isalpha(peek(c)) && peek(c) != '_')
		return read_int(c, &t->thread[thread].reg[r].init);
	read_name(c, rhs, sizeof(rhs));
	l = add_loc(c, t, rhs);
	if (l < 0)
		return l;
	t->thread[thread].reg[r].init_loc = l;
	return 0;
}

static int parse_init_item(struct cursor *c, struct litmus_test *t)
{
	char lhs[LITMUS_NAME_MAX];
	unsigned line = c->line, col = c->col;
	bool bracket = false;
	int64_t thread = -1;

	if (peek(c) == '[')
		bracket = true, advance(c);
	if (!read_name(c, lhs, sizeof(lhs)))
		return FAIL(c, "expected a location or THREAD:REGISTER");
	if (!bracket && (strcmp(lhs, "int") == 0 || strcmp(lhs, "int32_t") == 0 ||
			 strcmp(lhs, "uint32_t") == 0)) {
		if (skip_space(c, false))
			return -EINVAL;
		return parse_init_item(c, t);
	}
	if (peek(c) == ':' && !bracket) {
		char *end;
		thread = strtol(lhs, &end, 10);
		if (*end || thread < 0 || thread >= LITMUS_MAX_THREADS)
			return fail_at(c, line, col, "'%s' is not a thread number", lhs);
		advance(c);
		if (!read_name(c, lhs, sizeof(lhs)))
			return FAIL(c, "expected a register");
	}
	if (bracket && peek(c) != ']')
		return FAIL(c, "expected ']'");
	if (bracket)
		advance(c);
	if (expect_char(c, '=') || skip_space(c, false))
		return -EINVAL;
	if (thread >= 0)
		return parse_reg_init(c, t, (int)thread, lhs);
	int l = add_loc(c, t, lhs);
	if (l < 0)
		return l;
	return read_int(c, &t->loc[l].init);
}

static int parse_init(struct cursor *c, struct litmus_test *t)
{
	for (;;) {
		if (skip_space(c, true))
			return -EINVAL;
		if (peek(c) == '}') {
			advance(c);
			return 0;
		}
		if (peek(c) == ';') {
			advance(c);
			continue;
		}
		if (peek(c) < 0)
			return FAIL(c, "initial state not closed with '}'");
		if (parse_init_item(c, t))
			return -EINVAL;
		if (skip_space(c, true))
			return -EINVAL;
		if (peek(c) != ';' && peek(c) != '}')
			return FAIL(c, "expected ';' or '}' after an initial value");
	}
}

/* ---- instructions ------------------------------------------------------ */

/* An operand as written: "[x]", "$1", "#1", "EAX", "W0". */
struct operand {
	char text[LITMUS_NAME_MAX];
	bool memory, immediate;
	int64_t imm;
};

static int read_operand(struct cursor *c, struct operand *o)
{
	memset(o, 0, sizeof(*o));
	if (skip_space(c, false))
		return -EINVAL;
	if (peek(c) == '[') {
		advance(c);
		if (skip_space(c, false))
			return -EINVAL;
		if (!read_name(c, o->text, sizeof(o->text)))
			return FAIL(c, "expected a location or register inside [ ]");
		if (skip_space(c, false))
			return -EINVAL;
		if (peek(c) != ']')
			return FAIL(
				c,
				"expected ']' (offsets and indexed addresses are not supported)");
		advance(c);
		o->memory = true;
		return 0;
	}
	if (peek(c) == '$' || peek(c) == '#') {
		advance(c);
		o->immediate = true;
		return read_int(c, &o->imm);
	}
	if (!read_name(c, o->text, sizeof(o->text)))
		return FAIL(c, "expected an operand");
	return 0;
}

static int operand_reg(struct cursor *c, struct litmus_test *t, int th, const struct operand *o)
{
	if (o->memory || o->immediate)
		return FAIL(c, "expected a register, found %s",
			    o->memory ? "memory" : "an immediate");
	return thread_reg(c, t, th, o->text);
}

static int operand_value(struct cursor *c, struct litmus_test *t, int th, const struct operand *o,
			 struct litmus_value *v)
{
	if (o->immediate) {
		v->reg = -1;
		v->imm = o->imm;
		return 0;
	}
	v->reg = operand_reg(c, t, th, o);
	return v->reg < 0 ? v->reg : 0;
}

/* The location a memory operand names: [x] on x86, [Xn] holding &x on AArch64. */
static int operand_loc(struct cursor *c, struct litmus_test *t, int th, const struct operand *o)
{
	if (!o->memory)
		return FAIL(c, "expected a memory operand [...]");
	if (t->arch == LITMUS_X86)
		return add_loc(c, t, o->text);
	int r = thread_reg(c, t, th, o->text);
	if (r < 0)
		return r;
	if (t->thread[th].reg[r].init_loc < 0)
		return FAIL(c,
			    "register %s of thread %d holds no location's address (say %d:%s=x "
			    "in the initial state)",
			    o->text, th, th, o->text);
	return t->thread[th].reg[r].init_loc;
}

static int check_data_reg(struct cursor *c, const struct litmus_test *t, const struct operand *o)
{
	if (t->arch == LITMUS_AARCH64 && !o->immediate && !is_w_reg(o->text))
		return FAIL(c, "data registers are 32-bit here: write W%s, not %s", o->text + 1,
			    o->text);
	return 0;
}

static int read_operands(struct cursor *c, struct operand *ops, int n)
{
	for (int i = 0; i < n; i++) {
		if (i) {
			if (skip_space(c, false))
				return -EINVAL;
			if (peek(c) != ',')
				return FAIL(c, "expected ','");
			advance(c);
		}
		if (read_operand(c, &ops[i]))
			return -EINVAL;
	}
	return 0;
}

static int parse_x86(struct cursor *c, struct litmus_test *t, int th, const char *op,
		     struct litmus_insn *in)
{
	struct operand o[2];

	if (strcasecmp(op, "MFENCE") == 0) {
		in->op = LITMUS_FENCE;
		strcpy(in->fence, "MFENCE");
		return 0;
	}
	if (strcasecmp(op, "MOV") == 0) {
		if (read_operands(c, o, 2))
			return -EINVAL;
		if (o[0].memory && o[1].memory)
			return FAIL(c, "MOV from memory to memory");
		if (o[0].memory) {
			in->op = LITMUS_STORE;
			in->loc = operand_loc(c, t, th, &o[0]);
			return in->loc < 0 ? -EINVAL : operand_value(c, t, th, &o[1], &in->src);
		}
		in->dst = operand_reg(c, t, th, &o[0]);
		if (in->dst < 0)
			return -EINVAL;
		if (o[1].memory) {
			in->op = LITMUS_LOAD;
			in->loc = operand_loc(c, t, th, &o[1]);
			return in->loc < 0 ? -EINVAL : 0;
		}
		in->op = LITMUS_MOVE;
		return operand_value(c, t, th, &o[1], &in->src);
	}
	if (strcasecmp(op, "XCHG") == 0) {
		if (read_operands(c, o, 2))
			return -EINVAL;
		const struct operand *mem = o[0].memory ? &o[0] : &o[1];
		const struct operand *reg = o[0].memory ? &o[1] : &o[0];
		if (!mem->memory || reg->memory)
			return FAIL(c, "XCHG needs one memory operand and one register");
		in->op = LITMUS_SWAP;
		in->loc = operand_loc(c, t, th, mem);
		in->dst = operand_reg(c, t, th, reg);
		in->src = (struct litmus_value){ .reg = in->dst };
		return in->loc < 0 || in->dst < 0 ? -EINVAL : 0;
	}
	return FAIL(c, "X86 instruction '%s' is not supported (MOV, XCHG, MFENCE)", op);
}

/* DMB OPTION */
static int parse_a64_dmb(struct cursor *c, struct litmus_insn *in)
{
	static const char *const kinds[] = { "SY", "ISH", "ISHLD", "ISHST", "LD", "ST" };
	char kind[16];

	if (skip_space(c, false) || !read_name(c, kind, sizeof(kind)))
		return FAIL(c, "expected DMB's option (SY, ISH, ISHLD, ISHST, LD, ST)");
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strcasecmp(kind, kinds[i]) == 0) {
			in->op = LITMUS_FENCE;
			snprintf(in->fence, sizeof(in->fence), "DMB %s", kinds[i]);
			return 0;
		}
	return FAIL(c, "DMB %s is not supported", kind);
}

/* LDR, LDAR, STR, STLR: a register and a location. */
static int parse_a64_load_store(struct cursor *c, struct litmus_test *t, int th, const char *op,
				bool load, struct litmus_insn *in)
{
	struct operand o[2];

	if (read_operands(c, o, 2) || check_data_reg(c, t, &o[0]))
		return -EINVAL;
	in->loc = operand_loc(c, t, th, &o[1]);
	if (in->loc < 0)
		return -EINVAL;
	in->flags = toupper((unsigned char)op[2]) == 'A'   ? LITMUS_ACQUIRE
		    : toupper((unsigned char)op[2]) == 'L' ? LITMUS_RELEASE
							   : 0;
	if (load) {
		in->op = LITMUS_LOAD;
		in->dst = operand_reg(c, t, th, &o[0]);
		return in->dst < 0 ? -EINVAL : 0;
	}
	in->op = LITMUS_STORE;
	return operand_value(c, t, th, &o[0], &in->src);
}

/* SWP Ws, Wt, [Xn]: [Xn] gets Ws, Wt gets the old value. */
static int parse_a64_swap(struct cursor *c, struct litmus_test *t, int th, unsigned flags,
			  struct litmus_insn *in)
{
	struct operand o[3];

	if (read_operands(c, o, 3) || check_data_reg(c, t, &o[0]) || check_data_reg(c, t, &o[1]))
		return -EINVAL;
	in->op = LITMUS_SWAP;
	in->flags = flags;
	in->loc = operand_loc(c, t, th, &o[2]);
	if (in->loc < 0 || operand_value(c, t, th, &o[0], &in->src))
		return -EINVAL;
	if (in->src.reg < 0)
		return FAIL(c, "SWP stores a register, not an immediate");
	in->dst = operand_reg(c, t, th, &o[1]);
	return in->dst < 0 ? -EINVAL : 0;
}

static int parse_aarch64(struct cursor *c, struct litmus_test *t, int th, const char *op,
			 struct litmus_insn *in)
{
	static const struct {
		const char *name;
		unsigned flags;
	} swaps[] = { { "SWP", 0 },
		      { "SWPA", LITMUS_ACQUIRE },
		      { "SWPL", LITMUS_RELEASE },
		      { "SWPAL", LITMUS_ACQUIRE | LITMUS_RELEASE } };
	struct operand o[2];

	if (strcasecmp(op, "DMB") == 0)
		return parse_a64_dmb(c, in);
	if (strcasecmp(op, "MOV") == 0) {
		if (read_operands(c, o, 2) || check_data_reg(c, t, &o[0]) ||
		    check_data_reg(c, t, &o[1]))
			return -EINVAL;
		in->op = LITMUS_MOVE;
		in->dst = operand_reg(c, t, th, &o[0]);
		return in->dst < 0 ? -EINVAL : operand_value(c, t, th, &o[1], &in->src);
	}
	if (strcasecmp(op, "LDR") == 0 || strcasecmp(op, "LDAR") == 0)
		return parse_a64_load_store(c, t, th, op, true, in);
	if (strcasecmp(op, "STR") == 0 || strcasecmp(op, "STLR") == 0)
		return parse_a64_load_store(c, t, th, op, false, in);
	for (size_t i = 0; i < sizeof(swaps) / sizeof(swaps[0]); i++)
		if (strcasecmp(op, swaps[i].name) == 0)
			return parse_a64_swap(c, t, th, swaps[i].flags, in);
	return FAIL(c,
		    "AArch64 instruction '%s' is not supported (MOV, LDR, LDAR, STR, STLR, "
		    "SWP[A][L], DMB)",
		    op);
}

/* One cell of the program table: empty, or one instruction. */
static int parse_cell(struct cursor *c, struct litmus_test *t, int th)
{
	char op[16];
	struct litmus_thread *thr = &t->thread[th];
	struct litmus_insn *in;

	if (skip_space(c, false))
		return -EINVAL;
	if (peek(c) == '|' || peek(c) == ';')
		return 0;
	unsigned line = c->line, col = c->col;
	if (!read_name(c, op, sizeof(op)))
		return FAIL(c, "expected an instruction, '|' or ';'");
	if (strcasecmp(op, "LOCK") == 0) /* LOCK XCHG: XCHG is locked anyway */
		if (skip_space(c, false) || !read_name(c, op, sizeof(op)))
			return FAIL(c, "expected an instruction after LOCK");
	if (thr->insn_count == LITMUS_MAX_INSNS)
		return FAIL(c, "more than %d instructions in thread %d", LITMUS_MAX_INSNS, th);
	in = &thr->insn[thr->insn_count];
	memset(in, 0, sizeof(*in));
	in->loc = in->dst = -1;
	in->src.reg = -1;
	in->line = line;
	in->col = col;
	if ((t->arch == LITMUS_X86 ? parse_x86 : parse_aarch64)(c, t, th, op, in))
		return -EINVAL;
	thr->insn_count++;
	if (skip_space(c, false))
		return -EINVAL;
	if (peek(c) != '|' && peek(c) != ';')
		return FAIL(c, "expected '|' or ';' after the instruction (one per cell)");
	return 0;
}

static bool at_condition(struct cursor *c)
{
	static const char *const words[] = { "exists", "~exists", "forall", "locations", "filter" };
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		size_t n = strlen(words[i]);
		if ((size_t)(c->end - c->p) >= n && strncmp(c->p, words[i], n) == 0 &&
		    !is_name_char(c->p + n < c->end ? (unsigned char)c->p[n] : -1))
			return true;
	}
	return false;
}

static int parse_program(struct cursor *c, struct litmus_test *t)
{
	int threads = 0;

	/* the first row names the threads: P0 | P1 | ... ; */
	for (;;) {
		char name[16];
		if (skip_space(c, true))
			return -EINVAL;
		if (!read_name(c, name, sizeof(name)) || name[0] != 'P' ||
		    atoi(name + 1) != threads)
			return FAIL(c, "expected P%d in the row of thread names", threads);
		if (++threads > LITMUS_MAX_THREADS)
			return FAIL(c, "more than %d threads", LITMUS_MAX_THREADS);
		if (skip_space(c, false))
			return -EINVAL;
		if (peek(c) == ';') {
			advance(c);
			break;
		}
		if (peek(c) != '|')
			return FAIL(c, "expected '|' or ';'");
		advance(c);
	}
	if (t->thread_count > threads)
		return FAIL(c, "the initial state names thread %d of %d", t->thread_count - 1,
			    threads);
	t->thread_count = threads;
	for (;;) {
		if (skip_space(c, true))
			return -EINVAL;
		if (peek(c) < 0 || at_condition(c))
			return 0;
		for (int th = 0; th < threads; th++) {
			if (parse_cell(c, t, th))
				return -EINVAL;
			if (peek(c) == ';' && th + 1 < threads)
				return FAIL(c, "this row has %d cells, the test %d threads", th + 1,
					    threads);
			if (peek(c) == '|' && th + 1 == threads)
				return FAIL(c, "this row has more cells than the test has threads");
			advance(c);
		}
	}
}

/* ---- the condition ----------------------------------------------------- */

static int new_node(struct cursor *c, struct litmus_test *t, struct litmus_cond node)
{
	if (t->cond_count == (int)(sizeof(t->cond) / sizeof(t->cond[0])))
		return FAIL(c, "the condition is too long");
	t->cond[t->cond_count] = node;
	return t->cond_count++;
}

static int parse_or(struct cursor *c, struct litmus_test *t, int depth);

/* THREAD:REGISTER of a condition atom, thread already read into name (at
 * line:col), the cursor on ':'. */
static int read_cond_reg(struct cursor *c, struct litmus_test *t, char *name, unsigned line,
			 unsigned col, struct litmus_cond *node)
{
	char *end, norm[8];
	long th = strtol(name, &end, 10);

	if (*end || th < 0 || th >= t->thread_count)
		return fail_at(c, line, col, "'%s' is not a thread of this test", name);
	advance(c);
	if (!read_name(c, name, LITMUS_NAME_MAX))
		return FAIL(c, "expected a register");
	if (!normalise_reg(t->arch, name, norm) || (node->reg = find_reg(&t->thread[th], norm)) < 0)
		return fail_at(c, line, col, "thread %ld has no register %s", th, name);
	node->kind = COND_REG;
	node->thread = (int)th;
	return 0;
}

static int parse_atom(struct cursor *c, struct litmus_test *t, int depth)
{
	char name[LITMUS_NAME_MAX];
	struct litmus_cond node = { 0 };

	if (skip_space(c, true))
		return -EINVAL;
	if (depth > 32)
		return FAIL(c, "the condition nests too deep");
	if (peek(c) == '(') {
		advance(c);
		int inner = parse_or(c, t, depth + 1);
		if (inner < 0 || expect_char(c, ')'))
			return -EINVAL;
		return inner;
	}
	if (peek(c) == '~') {
		advance(c);
		node.kind = COND_NOT;
		node.left = parse_atom(c, t, depth + 1);
		return node.left < 0 ? -EINVAL : new_node(c, t, node);
	}
	unsigned line = c->line, col = c->col;
	bool bracket = peek(c) == '[';
	if (bracket)
		advance(c);
	if (!read_name(c, name, sizeof(name)))
		return FAIL(c, "expected THREAD:REGISTER=VALUE or LOCATION=VALUE");
	if (!bracket && strcmp(name, "true") == 0) {
		node.kind = COND_TRUE;
		return new_node(c, t, node);
	}
	if (!bracket && peek(c) == ':') {
		if (read_cond_reg(c, t, name, line, col, &node))
			return -EINVAL;
	} else {
		if (bracket && peek(c) != ']')
			return FAIL(c, "expected ']'");
		if (bracket)
			advance(c);
		node.kind = COND_LOC;
		node.loc = find_loc(t, name);
		if (node.loc < 0)
			return fail_at(c, line, col, "'%s' is no location of this test", name);
	}
	if (expect_char(c, '=') || skip_space(c, false) || read_int(c, &node.value))
		return -EINVAL;
	return new_node(c, t, node);
}

static int parse_binary(struct cursor *c, struct litmus_test *t, int depth, const char *op,
			enum litmus_cond_kind kind,
			int (*operand)(struct cursor *, struct litmus_test *, int))
{
	int left = operand(c, t, depth);
	while (left >= 0) {
		if (skip_space(c, true))
			return -EINVAL;
		if ((size_t)(c->end - c->p) < 2 || strncmp(c->p, op, 2) != 0)
			return left;
		advance(c);
		advance(c);
		int right = operand(c, t, depth);
		if (right < 0)
			return -EINVAL;
		left = new_node(c, t,
				(struct litmus_cond){ .kind = kind, .left = left, .right = right });
	}
	return -EINVAL;
}

static int parse_and(struct cursor *c, struct litmus_test *t, int depth)
{
	return parse_binary(c, t, depth, "/\\", COND_AND, parse_atom);
}

static int parse_or(struct cursor *c, struct litmus_test *t, int depth)
{
	return parse_binary(c, t, depth, "\\/", COND_OR, parse_and);
}

static int parse_condition(struct cursor *c, struct litmus_test *t)
{
	char word[16];
	const char *start;

	if (skip_space(c, true))
		return -EINVAL;
	if (peek(c) == '~') {
		advance(c);
		t->quantifier = LITMUS_NOT_EXISTS;
	} else {
		t->quantifier = LITMUS_EXISTS;
	}
	if (!read_name(c, word, sizeof(word)))
		return FAIL(c, "expected the final condition (exists, ~exists or forall)");
	if (strcmp(word, "forall") == 0 && t->quantifier == LITMUS_EXISTS)
		t->quantifier = LITMUS_FORALL;
	else if (strcmp(word, "exists") != 0)
		return FAIL(c, "'%s' is not supported; expected exists, ~exists or forall", word);
	if (skip_space(c, true))
		return -EINVAL;
	start = c->p;
	t->cond_root = parse_or(c, t, 0);
	if (t->cond_root < 0)
		return -EINVAL;
	const char *stop = c->p;
	while (stop > start && isspace((unsigned char)stop[-1]))
		stop--;
	snprintf(t->cond_text, sizeof(t->cond_text), "%s%s %.*s",
		 t->quantifier == LITMUS_NOT_EXISTS ? "~" : "", word, (int)(stop - start), start);
	if (skip_space(c, true))
		return -EINVAL;
	if (peek(c) >= 0)
		return FAIL(c, "unexpected text after the condition");
	return 0;
}

int litmus_parse(const char *text, size_t len, const char *filename, struct litmus_test *t,
		 char *err, size_t err_len)
{
	struct cursor c = { .p = text,
			    .end = text + len,
			    .line = 1,
			    .col = 1,
			    .file = filename ? filename : "<input>",
			    .err = err,
			    .err_len = err_len };

	memset(t, 0, sizeof(*t));
	if (err_len)
		err[0] = '\0';
	if (memchr(text, '\0', len))
		return fail_at(&c, 1, 1, "the file holds a NUL byte");
	if (parse_header(&c, t) || parse_init(&c, t) || parse_program(&c, t) ||
	    parse_condition(&c, t))
		return -EINVAL;
	for (int th = 0; th < t->thread_count; th++)
		if (t->thread[th].insn_count == 0)
			return fail_at(&c, c.line, c.col, "thread P%d has no instruction", th);
	return 0;
}
