/* SPDX-License-Identifier: MIT */
/* The text trace parser (shared/CONTRACT.md section 1). One pass over a
 * buffer holding the whole file; no allocation per line: tokens point into
 * the buffer, names are interned, events go into growing per-thread arrays. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "opts.h"
#include "parse.h"
#include "solver.h"
#include "userspace/util/array.h"

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

/* An execution read whole: into the trace, or to the caller's on_program,
 * which owns it from then on (it is freed here when it is not taken: after
 * an error the input gives no verdict, so nothing more is decided). */
static int complete_program(struct parser *ps, struct vsc_program *p)
{
	if (!ps->on_program) {
		int err = trace_add_program(ps->trace, p);
		if (err)
			vsc_program_free(p);
		return err;
	}
	if (ps->errors) {
		vsc_program_free(p);
		return 0;
	}
	program_trim(p);
	ps->trace->handed_events += p->event_count;
	return ps->on_program(ps->program_ctx, p);
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
	struct vsc_program *p = program_new_packed(), *done = ps->cur;
	int err = 0;

	if (!p)
		return -ENOMEM;
	p->name = strndup(name->s, name->len);
	if (!p->name) {
		vsc_program_free(p);
		return -ENOMEM;
	}
	ps->cur = p;
	/* The unnamed execution before the first segment is kept only when it
	 * has events of its own. */
	if (!ps->seen_segment && done->event_count == 0)
		vsc_program_free(done);
	else
		err = complete_program(ps, done);
	ps->seen_segment = 1;
	forget_names(ps); /* ids are per program */
	for (size_t i = 0; i < ps->nglobals && !err; i++) {
		struct global_init *g = &ps->globals[i];
		err = set_init(p, g->name, strlen(g->name), g->kind, g->value, 1, g->line);
	}
	return err;
}

static int remember_global(struct parser *ps, const struct token *var, uint8_t kind, int64_t value)
{
	struct global_init *g;

	/* no search for an earlier one: parse_init refuses a second initial
	 * value of a name before it gets here (a search made 80 k `init'
	 * lines take 14 s, a recorded trace of 2.5 M variables hours) */
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
int parser_intern(struct parser *ps, const struct token *t, int is_thread)
{
	struct cached_name *cache = is_thread ? ps->threads : ps->vars;
	const struct intern *names = is_thread ? &ps->cur->thread_names : &ps->cur->var_names;
	uint32_t h = t->clean ? t->hash : name_hash(t);
	int id;

	cache += (h ^ (h >> 8)) & (NAME_CACHE - 1);
	if (cache->s && cache->len == t->len && same_bytes(cache->s, t->s, t->len))
		return cache->id;
	id = is_thread ? program_thread(ps->cur, t->s, t->len) : program_var(ps->cur, t->s, t->len);
	if (id >= 0)
		*cache = (struct cached_name){ names->names[id], t->len, id };
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
	t = parser_intern(ps, &tok[0], 1);
	v = parser_intern(ps, &tok[2], 0);
	if (t < 0 || v < 0)
		return t < 0 ? t : v;
	ev.var = (uint32_t)v;
	if (ps->cur->threads[t].length == UINT32_MAX) {
		report(ps, tok[0].col, "thread has too many events");
		return 0;
	}
	return program_append(ps->cur, (uint32_t)t, &ev, ts, ps->event_lines ? ps->line : 0);
}

/* A whole-line comment at hash (the line starts at s): a count of the
 * recorded-trace header that cannot be read is an error. */
static void note_comment(struct parser *ps, const char *s, const char *hash, const char *end)
{
	struct bad_count bad;

	if (completeness_note_comment(ps->trace, hash + 1, end, ps->line,
				      ps->trace->comp.last_item_line == 0, &bad))
		return;
	int shown = (int)(bad.end - bad.s > 40 ? 40 : bad.end - bad.s);

	report(ps, (uint32_t)(bad.s - s) + 1,
	       "`# %s` needs a count: N, `at least N` or `see end of trace` (N decimal, "
	       "below 2^64), not %s%.*s%s",
	       bad.key, shown ? "`" : "nothing", shown, bad.s, shown ? "`" : "");
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
				note_comment(ps, s, p, end);
			else
				ps->line_unsure =
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

/* A line marked `value unsure` in the execution that holds it: an event
 * line, or an init line of a segment (one before the first segment is
 * every segment's, and a segment line or a bad one no execution's). A
 * verdict on an execution without one does not rest on a value read
 * wrong (docs/format.md, "Opt-in"). */
static void note_unsure(struct parser *ps, const struct token *tok, int ntok, bool event)
{
	if (!ps->line_unsure)
		return;
	if (event || (ps->seen_segment && ntok == 3 && token_is(&tok[0], "init")))
		ps->cur->unsure_values++;
	else
		ps->trace->comp.unsure_shared++;
}

static int parse_line(struct parser *ps, const char *s, const char *end)
{
	struct token tok[MAX_TOKENS];
	int ntok = quick_tokenize(ps, s, end, tok);
	int op;

	ps->line_unsure = false;
	if (ntok < 0)
		ntok = tokenize(ps, s, end, tok);
	if (ntok <= 0)
		return 0;
	op = ntok >= 2 ? op_of(&tok[1]) : -1;
	note_unsure(ps, tok, ntok, op >= 0 && ntok >= 4);
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

struct parser *parser_new(const struct vsc_parse_opts *o, struct read_progress *rp)
{
	struct parser *ps = calloc(1, sizeof(*ps));

	if (!ps)
		return NULL;
	ps->filename = o->filename ? o->filename : "<input>";
	ps->on_error = o->on_error ? o->on_error : drop_message;
	ps->error_ctx = o->on_error ? o->error_ctx : NULL;
	ps->max_errors = o->max_errors ? o->max_errors : 20;
	ps->deadline = deadline_after(o->timeout_s);
	ps->event_lines = !o->no_event_lines;
	ps->on_program = o->on_program;
	ps->program_ctx = o->program_ctx;
	ps->progress = rp;
	init_classes(ps);
	ps->trace = calloc(1, sizeof(*ps->trace));
	ps->cur = program_new_packed();
	if (!ps->trace || !ps->cur) {
		vsc_program_free(ps->cur);
		free(ps->trace);
		free(ps);
		errno = ENOMEM;
		return NULL;
	}
	return ps;
}

/* Count the line that starts at p; now and then look at the clock (the
 * deadline, progress). Returns 0, -ETIME, or 1 when there are too many
 * lines (reported). */
static int count_line(struct parser *ps, const char *p, const char *piece)
{
	if (ps->line == UINT32_MAX) {
		report(ps, 1, "too many lines");
		return 1;
	}
	ps->line++;
	if (ps->line % LINES_PER_CLOCK_LOOK == 0) {
		if (ps->deadline.tv_sec && seconds_until(&ps->deadline) <= 0)
			return -ETIME;
		read_progress_note(ps->progress, ps->line, ps->bytes_before + (size_t)(p - piece),
				   ps->bytes_total);
	}
	return 0;
}

int parser_lines(struct parser *ps, const char *p, const char *end)
{
	const char *piece = p;
	int err = 0;

	while (p < end && !err && !parser_stopped(ps)) {
		const char *nl;
		p = parse_plain_lines(ps, p, end, &err);
		if (p == end || err || (err = count_line(ps, p, piece)))
			break;
		nl = memchr(p, '\n', (size_t)(end - p));
		err = parse_line(ps, p, nl ? nl : end);
		p = nl ? nl + 1 : end;
	}
	ps->bytes_before += (size_t)(end - piece);
	return err < 0 ? err : 0;
}

struct vsc_trace *parser_finish(struct parser *ps, int err)
{
	struct vsc_trace *trace = ps->trace;

	if (!err && !ps->errors) {
		struct vsc_program *last = ps->cur;
		ps->cur = NULL;
		err = complete_program(ps, last);
	}
	if (!err && !ps->errors) {
		completeness_finish(trace);
		for (size_t i = 0; i < trace->count; i++)
			program_trim(trace->programs[i]);
	}
	free(ps->globals);
	vsc_program_free(ps->cur);
	if (err || ps->errors) {
		vsc_trace_free(trace);
		trace = NULL;
		errno = err ? -err : EINVAL;
	}
	free(ps);
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
