/* SPDX-License-Identifier: MIT */
/* The text trace parser (shared/CONTRACT.md section 1). One pass over a
 * buffer holding the whole file; no allocation per line: tokens point into
 * the buffer, names are interned, events go into growing per-thread arrays. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "opts.h"
#include "read_progress.h"
#include "solver.h"
#include "trace.h"
#include "userspace/util/array.h"

#define MAX_TOKENS 7
#define MAX_NAME 64
#define NAME_CACHE_BITS 8
#define NAME_CACHE (1 << NAME_CACHE_BITS) /* direct-mapped, per kind of name */

struct token {
	const char *s;
	uint32_t len;
	uint32_t col;   /* 1-based */
	uint32_t clean; /* every byte is a name character (so check_name passes) */
	uint32_t hash;  /* name_hash() of the bytes, when clean */
};

/* Byte classes for the tokenizer's fast path (struct parser.cls). */
enum {
	CC_SPACE = 1, /* ' ', '\t': between tokens */
	CC_TOKEN = 2, /* printable, not '#': continues a token */
	CC_NAME = 4,  /* [A-Za-z0-9_.:-] */
};

/* A name seen recently (it points into the buffer being parsed) and its id
 * in the current program. */
struct cached_name {
	const char *s;
	uint32_t len;
	int id;
};

/* A name of at most 8 bytes, as one number (0: empty), and its id. */
struct packed_name {
	uint64_t bytes;
	int id;
};

struct global_init {
	char name[MAX_NAME + 1];
	uint8_t kind;
	uint32_t line;
	int64_t value;
};

struct parser {
	const char *filename;
	vsc_error_fn on_error;
	void *error_ctx;
	unsigned max_errors;
	unsigned errors;
	uint32_t line;
	int seen_item;    /* a non-comment line was seen */
	int seen_segment; /* a segment line was seen */
	struct vsc_trace *trace;
	struct vsc_program *cur;
	struct global_init *globals;
	size_t nglobals, globals_cap;
	/* names already interned in the current program, by a hash of their
	 * bytes: most lines name a thread and a variable seen recently */
	struct cached_name threads[NAME_CACHE], vars[NAME_CACHE];
	struct packed_name threads8[NAME_CACHE], vars8[NAME_CACHE]; /* the fast path's */
	uint8_t cls[256];                                           /* CC_* of each byte */
	struct timespec deadline;                                   /* tv_sec == 0: none */
};

#define LINES_PER_CLOCK_LOOK 65536

/* Without the caller's on_error the messages go nowhere: the library never
 * prints (the command passes a printer). */
static void drop_message(void *ctx, const char *message)
{
	(void)ctx;
	(void)message;
}

static void report(struct parser *ps, uint32_t col, const char *fmt, ...)
{
	char what[512], small[1024], *msg = small;
	size_t size = sizeof(small), need;
	va_list ap;

	ps->errors++;
	if (ps->errors > ps->max_errors)
		return;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	/* The file name can be a path of any length: size the message for it. */
	need = strlen(ps->filename) + strlen(what) + 32;
	if (need > size) {
		char *big = malloc(need);
		if (big) {
			msg = big;
			size = need;
		}
	}
	snprintf(msg, size, "%s:%u:%u: %s", ps->filename, ps->line, col, what);
	ps->on_error(ps->error_ctx, msg);
	if (ps->errors == ps->max_errors) {
		snprintf(msg, size, "%s: too many errors, stopping", ps->filename);
		ps->on_error(ps->error_ctx, msg);
	}
	if (msg != small)
		free(msg);
}

static int name_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '.' || c == ':' || c == '-';
}

/* A thread, variable or segment token: 1 to 64 characters of [A-Za-z0-9_.:-]. */
static int check_name(struct parser *ps, const struct token *t, const char *what)
{
	if (t->clean && t->len <= MAX_NAME)
		return 0;
	if (t->len > MAX_NAME) {
		report(ps, t->col, "%s name is %u characters long; at most %d are allowed", what,
		       t->len, MAX_NAME);
		return -1;
	}
	for (uint32_t i = 0; i < t->len; i++) {
		if (!name_char((unsigned char)t->s[i])) {
			report(ps, t->col + i, "character '%c' is not allowed in a %s name",
			       t->s[i], what);
			return -1;
		}
	}
	return 0;
}

static int digit_value(unsigned char c, int base)
{
	int d = c >= '0' && c <= '9'   ? c - '0'
		: c >= 'a' && c <= 'f' ? c - 'a' + 10
		: c >= 'A' && c <= 'F' ? c - 'A' + 10
				       : 99;
	return d < base ? d : -1;
}

/* [-]digits, at most 18 of them (so no overflow): the common case. Returns
 * 0, or -1 when the token is anything else. */
static int short_decimal(const struct token *t, int64_t *out)
{
	uint32_t i = t->len > 0 && t->s[0] == '-';
	int64_t v = 0;

	if (t->len - i == 0 || t->len - i > 18)
		return -1;
	for (; i < t->len; i++) {
		unsigned d = (unsigned)(unsigned char)t->s[i] - '0';
		if (d > 9)
			return -1;
		v = v * 10 + (int64_t)d;
	}
	*out = t->s[0] == '-' ? -v : v;
	return 0;
}

/* A signed 64-bit value: [-]digits or [-]0xhexdigits, exact, no overflow. */
static int parse_value(struct parser *ps, const struct token *t, int64_t *out)
{
	const char *s = t->s;
	uint32_t i = 0, len = t->len;
	int negative = 0, base = 10;
	uint64_t v = 0, limit;

	if (short_decimal(t, out) == 0)
		return 0;
	if (len > 0 && s[0] == '-') {
		negative = 1;
		i = 1;
	}
	if (len - i > 2 && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
		base = 16;
		i += 2;
	}
	if (i == len) {
		report(ps, t->col, "expected a value, found '%.*s'", (int)(len > 40 ? 40 : len), s);
		return -1;
	}
	limit = negative ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	for (; i < len; i++) {
		int d = digit_value((unsigned char)s[i], base);
		if (d < 0) {
			report(ps, t->col, "expected a value, found '%.*s'",
			       (int)(len > 40 ? 40 : len), s);
			return -1;
		}
		if (v > (limit - (uint64_t)d) / (uint64_t)base) {
			report(ps, t->col, "value does not fit in a signed 64-bit integer");
			return -1;
		}
		v = v * (uint64_t)base + (uint64_t)d;
	}
	*out = negative ? (int64_t)(0 - v) : (int64_t)v;
	return 0;
}

/* @ts: an unsigned 64-bit decimal number of nanoseconds. */
static int parse_timestamp(struct parser *ps, const struct token *t, uint64_t *out)
{
	uint64_t v = 0;

	if (t->len < 2) {
		report(ps, t->col, "expected a timestamp after '@'");
		return -1;
	}
	for (uint32_t i = 1; i < t->len; i++) {
		int d = digit_value((unsigned char)t->s[i], 10);
		if (d < 0) {
			report(ps, t->col + i, "a timestamp is '@' and decimal digits");
			return -1;
		}
		if (v > (UINT64_MAX - (uint64_t)d) / 10) {
			report(ps, t->col, "timestamp does not fit in 64 bits");
			return -1;
		}
		v = v * 10 + (uint64_t)d;
	}
	*out = v;
	return 0;
}

static int token_is(const struct token *t, const char *word)
{
	size_t n = strlen(word);
	return t->len == n && memcmp(t->s, word, n) == 0;
}

static int op_of(const struct token *t)
{
	if (t->len != 1)
		return -1;
	switch (t->s[0]) {
	case 'r':
		return VSC_READ;
	case 'w':
		return VSC_WRITE;
	case 'u':
		return VSC_RMW;
	default:
		return -1;
	}
}

static int trace_add_program(struct vsc_trace *trace, struct vsc_program *p)
{
	if (ARRAY_RESERVE_FROM(trace->programs, trace->cap, trace->count + 1, 4))
		return -ENOMEM;
	trace->programs[trace->count++] = p;
	return 0;
}

static int set_init(struct vsc_program *p, const char *name, size_t len, uint8_t kind,
		    int64_t value, int global, uint32_t line)
{
	int v = program_var(p, name, len);
	if (v < 0)
		return v;
	p->inits[v].kind = kind;
	p->inits[v].value = value;
	p->inits[v].global = (uint8_t)global;
	p->inits[v].line = line;
	return 0;
}

static void forget_names(struct parser *ps)
{
	memset(ps->threads, 0, sizeof(ps->threads));
	memset(ps->vars, 0, sizeof(ps->vars));
	memset(ps->threads8, 0, sizeof(ps->threads8));
	memset(ps->vars8, 0, sizeof(ps->vars8));
}

static int start_segment(struct parser *ps, const struct token *name)
{
	struct vsc_program *p = vsc_program_new();

	if (!p)
		return -ENOMEM;
	p->name = strndup(name->s, name->len);
	if (!p->name) {
		vsc_program_free(p);
		return -ENOMEM;
	}
	/* The unnamed execution before the first segment is kept only when it
	 * has events of its own. */
	if (!ps->seen_segment && ps->cur->event_count == 0) {
		vsc_program_free(ps->cur);
	} else if (trace_add_program(ps->trace, ps->cur)) {
		vsc_program_free(p);
		return -ENOMEM;
	}
	ps->cur = p;
	ps->seen_segment = 1;
	forget_names(ps); /* ids are per program */
	for (size_t i = 0; i < ps->nglobals; i++) {
		struct global_init *g = &ps->globals[i];
		int err = set_init(p, g->name, strlen(g->name), g->kind, g->value, 1, g->line);
		if (err)
			return err;
	}
	return 0;
}

static int remember_global(struct parser *ps, const struct token *var, uint8_t kind, int64_t value)
{
	struct global_init *g;

	for (size_t i = 0; i < ps->nglobals; i++) {
		if (strlen(ps->globals[i].name) == var->len &&
		    memcmp(ps->globals[i].name, var->s, var->len) == 0) {
			ps->globals[i].kind = kind;
			ps->globals[i].value = value;
			return 0;
		}
	}
	if (ARRAY_RESERVE_FROM(ps->globals, ps->globals_cap, ps->nglobals + 1, 8))
		return -ENOMEM;
	g = &ps->globals[ps->nglobals++];
	memcpy(g->name, var->s, var->len);
	g->name[var->len] = '\0';
	g->kind = kind;
	g->value = value;
	g->line = ps->line;
	return 0;
}

static int parse_init(struct parser *ps, const struct token *tok)
{
	int64_t value = 0;
	uint8_t kind = VSC_INIT_KNOWN;
	int v;

	if (check_name(ps, &tok[1], "variable"))
		return 0;
	if (token_is(&tok[2], "?"))
		kind = VSC_INIT_UNKNOWN;
	else if (parse_value(ps, &tok[2], &value))
		return 0;
	v = intern_find(&ps->cur->var_names, tok[1].s, tok[1].len);
	if (v >= 0 && ps->cur->inits[v].kind != VSC_INIT_NONE &&
	    !(ps->seen_segment && ps->cur->inits[v].global)) {
		report(ps, tok[1].col, "'%.*s' already has an initial value (line %u)",
		       (int)tok[1].len, tok[1].s, ps->cur->inits[v].line);
		return 0;
	}
	if (!ps->seen_segment && remember_global(ps, &tok[1], kind, value))
		return -ENOMEM;
	return set_init(ps->cur, tok[1].s, tok[1].len, kind, value, !ps->seen_segment, ps->line);
}

static uint32_t name_hash_step(uint32_t h, unsigned char c)
{
	return h * 31 + c;
}

static uint32_t name_hash(const struct token *t)
{
	uint32_t h = 0;

	for (uint32_t i = 0; i < t->len; i++)
		h = name_hash_step(h, (unsigned char)t->s[i]);
	return h;
}

static int same_bytes(const char *a, const char *b, uint32_t len)
{
	for (uint32_t i = 0; i < len; i++)
		if (a[i] != b[i])
			return 0;
	return 1;
}

/* The id of a thread (is_thread) or variable name in the current program,
 * added when new; the cache spares most lookups in the program's table. */
static int intern_cached(struct parser *ps, const struct token *t, int is_thread)
{
	struct cached_name *cache = is_thread ? ps->threads : ps->vars;
	uint32_t h = t->clean ? t->hash : name_hash(t);
	int id;

	cache += (h ^ (h >> 8)) & (NAME_CACHE - 1);
	if (cache->s && cache->len == t->len && same_bytes(cache->s, t->s, t->len))
		return cache->id;
	id = is_thread ? program_thread(ps->cur, t->s, t->len) : program_var(ps->cur, t->s, t->len);
	if (id >= 0)
		*cache = (struct cached_name){ t->s, t->len, id };
	return id;
}

static int parse_event(struct parser *ps, const struct token *tok, int ntok, int op)
{
	struct vsc_event ev = { .kind = (uint32_t)op };
	int want = op == VSC_RMW ? 5 : 4;
	uint64_t ts = 0;
	int t, v;

	if (ntok > want && tok[ntok - 1].s[0] == '@') {
		if (parse_timestamp(ps, &tok[ntok - 1], &ts))
			return 0;
		ntok--;
	}
	if (ntok < want) {
		uint32_t col = tok[ntok - 1].col + tok[ntok - 1].len;
		report(ps, col, "%s event needs %s",
		       op == VSC_RMW    ? "a 'u'"
		       : op == VSC_READ ? "an 'r'"
					: "a 'w'",
		       op == VSC_RMW ? "a variable, an old and a new value"
				     : "a variable and a value");
		return 0;
	}
	if (ntok > want) {
		report(ps, tok[want].col, "unexpected '%.*s' after the event",
		       (int)(tok[want].len > 40 ? 40 : tok[want].len), tok[want].s);
		return 0;
	}
	if (check_name(ps, &tok[0], "thread") || check_name(ps, &tok[2], "variable") ||
	    parse_value(ps, &tok[3], &ev.value) ||
	    (op == VSC_RMW && parse_value(ps, &tok[4], &ev.new_value)))
		return 0;
	if (ps->errors)
		return 0; /* nothing will be decided: save the work */
	t = intern_cached(ps, &tok[0], 1);
	v = intern_cached(ps, &tok[2], 0);
	if (t < 0 || v < 0)
		return t < 0 ? t : v;
	ev.var = (uint32_t)v;
	if (ps->cur->threads[t].length == UINT32_MAX) {
		report(ps, tok[0].col, "thread has too many events");
		return 0;
	}
	return program_append(ps->cur, (uint32_t)t, &ev, ts, ps->line);
}

/* A name token of the fast path: 1 to MAX_NAME name bytes, then one space;
 * *packed: its bytes as a number when there are at most 8 (a name has no
 * zero byte, so the number tells the names apart). Returns the byte after
 * the space, or NULL when the line is anything else (parse_line() then
 * takes it). */
static const char *plain_name(const struct parser *ps, const char *p, const char *end,
			      struct token *t, uint64_t *packed)
{
	const char *start = p;
	uint64_t bytes = 0;

	while (p < end && (ps->cls[(unsigned char)*p] & CC_NAME))
		bytes = bytes << 8 | (unsigned char)*p++;
	if (p == start || p - start > MAX_NAME || p == end || *p != ' ')
		return NULL;
	*t = (struct token){ start, (uint32_t)(p - start), 0, 0, 0 };
	*packed = bytes;
	return p + 1;
}

/* [-]digits, at most 18 (no overflow), ending at end, a space or a newline
 * (*p then). Returns the byte after the digits, or NULL. */
static const char *plain_decimal(const char *p, const char *end, int64_t *out)
{
	int negative = p < end && *p == '-';
	const char *start = p += negative;
	int64_t v = 0;

	while (p < end && (unsigned)(unsigned char)*p - '0' <= 9 && p - start < 18)
		v = v * 10 + (*p++ - '0');
	if (p == start || (p < end && *p != ' ' && *p != '\n'))
		return NULL; /* a 19th digit too: parse_value() takes it */
	*out = negative ? -v : v;
	return p;
}

/* intern_cached() behind a cache of names of at most 8 bytes by their
 * bytes as one number: one comparison on a hit. */
static int intern_packed(struct parser *ps, const struct token *t, uint64_t packed, int is_thread)
{
	struct packed_name *cache = is_thread ? ps->threads8 : ps->vars8;
	int id;

	if (t->len > 8)
		return intern_cached(ps, t, is_thread);
	cache += (packed * 0x9e3779b97f4a7c15ULL) >> (64 - NAME_CACHE_BITS);
	if (cache->bytes == packed)
		return cache->id;
	id = intern_cached(ps, t, is_thread);
	if (id >= 0)
		*cache = (struct packed_name){ packed, id };
	return id;
}

/* program_append() without its checks when the thread has room, line
 * numbers and no timestamps (the common case). */
static int append_plain(struct parser *ps, uint32_t t, const struct vsc_event *ev)
{
	struct vsc_thread *th = &ps->cur->threads[t];

	if (th->length < th->cap && th->lines && !th->ts) {
		th->events[th->length] = *ev;
		th->lines[th->length++] = ps->line;
		ps->cur->event_count++;
		return 0;
	}
	return program_append(ps->cur, t, ev, 0, ps->line);
}

/* The event lines a recorder or generator writes, "T r x 5" (single
 * spaces, decimal values, no timestamp, comment or carriage return), parsed
 * without tokens, from p (a line start) up to its newline or end. Returns
 * the next line's start when the line was one (and is appended), else NULL
 * with *err 0 (parse_line() takes the line: same result) or a negative
 * errno. */
static const char *parse_plain_event(struct parser *ps, const char *p, const char *end, int *err)
{
	struct token thread, var;
	struct vsc_event ev = { 0 };
	uint64_t thread_bytes, var_bytes;
	int t, v;

	if (ps->errors || !(p = plain_name(ps, p, end, &thread, &thread_bytes)) || end - p < 2 ||
	    p[1] != ' ')
		return NULL;
	switch (*p) {
	case 'r':
		ev.kind = VSC_READ;
		break;
	case 'w':
		ev.kind = VSC_WRITE;
		break;
	case 'u':
		ev.kind = VSC_RMW;
		break;
	default:
		return NULL;
	}
	if (!(p = plain_name(ps, p + 2, end, &var, &var_bytes)) ||
	    !(p = plain_decimal(p, end, &ev.value)))
		return NULL;
	if (ev.kind == VSC_RMW &&
	    (p == end || *p != ' ' || !(p = plain_decimal(p + 1, end, &ev.new_value))))
		return NULL;
	if (p != end && *p != '\n')
		return NULL;
	t = intern_packed(ps, &thread, thread_bytes, 1);
	v = intern_packed(ps, &var, var_bytes, 0);
	if (t < 0 || v < 0) {
		*err = t < 0 ? t : v;
		return NULL;
	}
	if (ps->cur->threads[t].length == UINT32_MAX)
		return NULL; /* parse_line() reports it */
	ev.var = (uint32_t)v;
	ps->seen_item = 1;
	ps->trace->comp.last_item_line = ps->line;
	*err = append_plain(ps, (uint32_t)t, &ev);
	return *err ? NULL : p + (p != end);
}

/* Split one line into tokens. Returns the count, or -1 after reporting. */
static int tokenize(struct parser *ps, const char *s, const char *end, struct token *tok)
{
	int n = 0;
	const char *p = s;

	while (p < end) {
		unsigned char c = (unsigned char)*p;
		if (c == ' ' || c == '\t') {
			p++;
			continue;
		}
		if (c == '#') {
			if (n == 0)
				completeness_note_comment(ps->trace, p + 1, end, ps->line,
							  ps->trace->comp.last_item_line == 0);
			else
				completeness_note_event_comment(ps->trace, p + 1, end);
			break;
		}
		if (c == '\r' && p + 1 == end)
			break;
		const char *start = p;
		while (p < end) {
			c = (unsigned char)*p;
			if (c == ' ' || c == '\t' || c == '#' || (c == '\r' && p + 1 == end))
				break;
			if (c < 0x20 || c >= 0x7f) {
				report(ps, (uint32_t)(p - s) + 1,
				       c == 0 ? "NUL byte: this is not a text trace"
					      : "unexpected byte 0x%02x",
				       c);
				return -1;
			}
			p++;
		}
		if (n == MAX_TOKENS) {
			report(ps, (uint32_t)(start - s) + 1, "too many fields on this line");
			return -1;
		}
		tok[n].s = start;
		tok[n].len = (uint32_t)(p - start) > UINT32_MAX / 2 ? UINT32_MAX / 2
								    : (uint32_t)(p - start);
		tok[n].col = (uint32_t)(start - s) + 1;
		tok[n].clean = 0;
		tok[n].hash = 0;
		n++;
	}
	return n;
}

/* The tokenizer's fast path, for lines of plain tokens: -1 when the line
 * has anything else (a comment, a carriage return, a byte that is not
 * printable ASCII, too many or too long tokens), which tokenize() then
 * handles and reports. Tokens are as tokenize() would make them. */
static int quick_tokenize(const struct parser *ps, const char *s, const char *end,
			  struct token *tok)
{
	const char *p = s;
	int n = 0;

	if (end - s > 65536)
		return -1;
	for (;;) {
		uint8_t c = 0, all = CC_NAME;
		uint32_t h = 0;
		while (p < end && ps->cls[(unsigned char)*p] == CC_SPACE)
			p++;
		if (p == end)
			return n;
		const char *start = p;
		while (p < end && ((c = ps->cls[(unsigned char)*p]) & CC_TOKEN)) {
			all &= c;
			h = name_hash_step(h, (unsigned char)*p);
			p++;
		}
		if (p == start || (p < end && c != CC_SPACE) || n == MAX_TOKENS)
			return -1;
		tok[n++] = (struct token){ start, (uint32_t)(p - start), (uint32_t)(start - s) + 1,
					   all != 0, h };
	}
}

static void init_classes(struct parser *ps)
{
	for (int c = 0; c < 256; c++)
		ps->cls[c] = c == ' ' || c == '\t'              ? CC_SPACE
			     : c > 0x20 && c < 0x7f && c != '#' ? CC_TOKEN
								: 0;
	for (int c = 0; c < 256; c++)
		if (name_char((unsigned char)c))
			ps->cls[c] |= CC_NAME;
}

static int parse_line(struct parser *ps, const char *s, const char *end)
{
	struct token tok[MAX_TOKENS];
	int ntok = quick_tokenize(ps, s, end, tok);
	int op;

	if (ntok < 0)
		ntok = tokenize(ps, s, end, tok);
	if (ntok <= 0)
		return 0;
	op = ntok >= 2 ? op_of(&tok[1]) : -1;
	if (op >= 0 && ntok >= 4) {
		ps->seen_item = 1;
		ps->trace->comp.last_item_line = ps->line;
		return parse_event(ps, tok, ntok, op);
	}
	if (token_is(&tok[0], "vsc") && ntok == 2) {
		if (ps->seen_item)
			report(ps, tok[0].col, "the 'vsc' version line must be the first line");
		else if (!token_is(&tok[1], "1"))
			report(ps, tok[1].col,
			       "unsupported format version '%.*s' (this is version 1)",
			       (int)(tok[1].len > 20 ? 20 : tok[1].len), tok[1].s);
		ps->seen_item = 1;
		return 0;
	}
	ps->seen_item = 1;
	ps->trace->comp.last_item_line = ps->line;
	if (token_is(&tok[0], "init") && ntok == 3)
		return parse_init(ps, tok);
	if (token_is(&tok[0], "segment") && ntok == 2) {
		if (check_name(ps, &tok[1], "segment"))
			return 0;
		return start_segment(ps, &tok[1]);
	}
	if (token_is(&tok[0], "init"))
		report(ps, tok[0].col,
		       "an init line is 'init VARIABLE VALUE' or 'init VARIABLE ?'");
	else if (token_is(&tok[0], "segment"))
		report(ps, tok[0].col, "a segment line is 'segment NAME'");
	else if (op >= 0)
		parse_event(ps, tok, ntok, op); /* reports what is missing */
	else if (ntok >= 2)
		report(ps, tok[1].col, "expected 'r', 'w' or 'u' after the thread, found '%.*s'",
		       (int)(tok[1].len > 40 ? 40 : tok[1].len), tok[1].s);
	else
		report(ps, tok[0].col, "expected an event, 'init' or 'segment' line");
	return 0;
}

/* Parse buf with the loaded options o; rp: progress, started by the caller
 * (reading came first) or here. */
static struct vsc_trace *parse_loaded(const char *buf, size_t len, const struct vsc_parse_opts *o,
				      struct read_progress *rp)
{
	struct parser ps = {
		.filename = "<input>",
		.on_error = drop_message,
		.max_errors = 20,
	};
	const char *p = buf, *end = buf + len;
	int err = 0;

	if (o->filename)
		ps.filename = o->filename;
	if (o->on_error) {
		ps.on_error = o->on_error;
		ps.error_ctx = o->error_ctx;
	}
	if (o->max_errors)
		ps.max_errors = o->max_errors;
	ps.deadline = deadline_after(o->timeout_s);
	init_classes(&ps);
	ps.trace = calloc(1, sizeof(*ps.trace));
	ps.cur = vsc_program_new();
	if (!ps.trace || !ps.cur) {
		err = -ENOMEM;
		goto out;
	}
	while (p < end && !err && ps.errors < ps.max_errors) {
		const char *nl, *next;
		if (ps.line == UINT32_MAX) {
			report(&ps, 1, "too many lines");
			break;
		}
		ps.line++;
		if (ps.line % LINES_PER_CLOCK_LOOK == 0) {
			if (ps.deadline.tv_sec && seconds_until(&ps.deadline) <= 0) {
				err = -ETIME;
				break;
			}
			read_progress_note(rp, ps.line, (size_t)(p - buf), len);
		}
		next = parse_plain_event(&ps, p, end, &err);
		if (next) {
			p = next;
			continue;
		}
		if (err)
			break;
		nl = memchr(p, '\n', (size_t)(end - p));
		err = parse_line(&ps, p, nl ? nl : end);
		p = nl ? nl + 1 : end;
	}
	if (!err && !ps.errors) {
		err = trace_add_program(ps.trace, ps.cur);
		if (!err)
			ps.cur = NULL;
	}
	if (!err && !ps.errors)
		completeness_finish(ps.trace);
out:
	free(ps.globals);
	vsc_program_free(ps.cur);
	if (err || ps.errors) {
		vsc_trace_free(ps.trace);
		errno = err ? -err : EINVAL;
		return NULL;
	}
	return ps.trace;
}

struct vsc_trace *vsc_trace_parse_buffer(const char *buf, size_t len,
					 const struct vsc_parse_opts *opts)
{
	struct vsc_parse_opts o;
	struct read_progress rp;

	if (OPTS_LOAD(o, opts)) {
		errno = EINVAL;
		return NULL;
	}
	read_progress_init(&rp, &o, o.filename ? o.filename : "<input>");
	return parse_loaded(buf, len, &o, &rp);
}

/* Double a read buffer; on failure free it and return NULL with ENOMEM. */
static char *grow_buffer(char *buf, size_t *cap)
{
	if (ARRAY_RESERVE(buf, *cap, *cap + 1)) {
		free(buf);
		errno = ENOMEM;
		return NULL;
	}
	return buf;
}

/* Wait until fd has something to read (or its end); -1 with ETIME once the
 * deadline has passed. Regular files are always ready. */
static int wait_readable(int fd, const struct timespec *deadline)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	for (;;) {
		int ms = -1, r;
		if (deadline->tv_sec) {
			double left = seconds_until(deadline);
			if (left <= 0) {
				errno = ETIME;
				return -1;
			}
			ms = left > 1e6 ? 1000000000 : (int)(left * 1000) + 1;
		}
		r = poll(&pfd, 1, ms);
		if (r > 0)
			return 0;
		if (r < 0 && errno != EINTR)
			return -1;
	}
}

/* The whole of fd. A pipe or FIFO is waited on with poll() so that the
 * deadline bounds an input that never ends (or never starts). */
static char *read_all(int fd, size_t *len, const struct timespec *deadline,
		      struct read_progress *rp)
{
	struct stat st;
	size_t cap = 1 << 16, n = 0, total = 0;
	char *buf;

	if (fstat(fd, &st) == 0) {
		if (S_ISDIR(st.st_mode)) {
			errno = EISDIR;
			return NULL;
		}
		if (S_ISREG(st.st_mode) && st.st_size > 0)
			cap = total = (size_t)st.st_size + 1;
	}
	buf = malloc(cap);
	if (!buf)
		return NULL;
	for (;;) {
		ssize_t got;
		if (n == cap && !(buf = grow_buffer(buf, &cap)))
			return NULL;
		got = wait_readable(fd, deadline) ? -1 : read(fd, buf + n, cap - n);
		if (got < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (got < 0) {
			int saved = errno;
			free(buf);
			errno = saved;
			return NULL;
		}
		if (got == 0)
			break;
		n += (size_t)got;
		read_progress_note(rp, 0, n, total ? total - 1 : 0);
	}
	*len = n;
	return buf;
}

static struct vsc_trace *parse_fd(int fd, const char *name, const struct vsc_parse_opts *opts)
{
	struct vsc_parse_opts o;
	struct vsc_trace *trace;
	struct timespec deadline;
	struct read_progress rp;
	size_t len = 0;
	char *buf;
	int saved;

	if (OPTS_LOAD(o, opts)) {
		errno = EINVAL;
		return NULL;
	}
	if (!o.filename)
		o.filename = name;
	deadline = deadline_after(o.timeout_s);
	read_progress_init(&rp, &o, o.filename);
	buf = read_all(fd, &len, &deadline, &rp);
	if (!buf)
		return NULL;
	if (deadline.tv_sec) {
		o.timeout_s = seconds_until(&deadline); /* parsing gets what is left */
		if (o.timeout_s <= 0) {
			free(buf);
			errno = ETIME;
			return NULL;
		}
	}
	trace = parse_loaded(buf, len, &o, &rp);
	saved = errno;
	free(buf);
	errno = saved;
	return trace;
}

/* Read a stdio stream to its end through stdio itself: the stream may have
 * no descriptor (fmemopen) or hold bytes already buffered (ungetc). */
static char *read_stream(FILE *stream, size_t *len)
{
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);

	if (!buf)
		return NULL;
	for (;;) {
		if (n == cap && !(buf = grow_buffer(buf, &cap)))
			return NULL;
		size_t got = fread(buf + n, 1, cap - n, stream);
		n += got;
		if (got == 0 || feof(stream))
			break;
	}
	if (ferror(stream)) {
		free(buf);
		errno = EIO;
		return NULL;
	}
	*len = n;
	return buf;
}

struct vsc_trace *vsc_trace_parse_stream(FILE *stream, const struct vsc_parse_opts *opts)
{
	struct vsc_parse_opts o;
	struct vsc_trace *trace;
	size_t len = 0;
	char *buf;
	int saved;

	if (!stream) {
		errno = EINVAL;
		return NULL;
	}
	if (OPTS_LOAD(o, opts)) {
		errno = EINVAL;
		return NULL;
	}
	if (!o.filename)
		o.filename = "<stream>";
	buf = read_stream(stream, &len);
	if (!buf)
		return NULL;
	trace = vsc_trace_parse_buffer(buf, len, &o);
	saved = errno;
	free(buf);
	errno = saved;
	return trace;
}

struct vsc_trace *vsc_trace_parse_file(const char *path, const struct vsc_parse_opts *opts)
{
	struct vsc_trace *trace;
	int fd, saved;

	if (!path) {
		errno = EINVAL;
		return NULL;
	}
	if (strcmp(path, "-") == 0)
		return parse_fd(STDIN_FILENO, "<stdin>", opts);
	/* O_NONBLOCK: opening a FIFO would wait for a writer, past any
	 * deadline; read_all waits with poll() instead */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return NULL;
	trace = parse_fd(fd, path, opts);
	saved = errno;
	close(fd);
	errno = saved;
	return trace;
}

void vsc_trace_free(struct vsc_trace *trace)
{
	if (!trace)
		return;
	for (size_t i = 0; i < trace->count; i++)
		vsc_program_free(trace->programs[i]);
	free(trace->programs);
	free(trace);
}

size_t vsc_trace_program_count(const struct vsc_trace *trace)
{
	return trace->count;
}

const struct vsc_program *vsc_trace_program(const struct vsc_trace *trace, size_t index)
{
	return index < trace->count ? trace->programs[index] : NULL;
}

uint64_t vsc_trace_lost_events(const struct vsc_trace *trace)
{
	return trace->lost_events;
}
