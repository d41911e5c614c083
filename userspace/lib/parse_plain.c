/* SPDX-License-Identifier: MIT */
/* The parser's fast path: the event lines a recorder or generator writes,
 * "T r x 5" (single spaces, decimal values of at most 16 digits, no
 * timestamp, comment or carriage return), parsed eight bytes at a time
 * without tokens. A line it does not take goes to the general path
 * (parse.c), which gives the same result for it. It reads only whole
 * 8-byte words inside the input, so the last few bytes of an input always
 * take the general path. */
#include <errno.h>
#include <string.h>

#include "parse.h"

/* The hot functions are inlined into the one loop, parse_plain_lines(). */
#define HOT static inline __attribute__((always_inline))

#define ONES 0x0101010101010101ULL
#define HIGHS 0x8080808080808080ULL

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define PLAIN_WORDS 1
#else
#define PLAIN_WORDS 0 /* the words below assume the first byte is the lowest */
#endif

/* The 8 bytes at p, the first one lowest; false when they are not all
 * inside the input. */
HOT bool load_word(const char *p, const char *end, uint64_t *w)
{
	if (end - p < 8)
		return false;
	memcpy(w, p, 8);
	return true;
}

/* The high bit of the lowest zero byte of x (and maybe of bytes above
 * it, which no caller looks at); 0 when x has no zero byte. */
HOT uint64_t zero_bytes(uint64_t x)
{
	return (x - ONES) & ~x & HIGHS;
}

/* The number of bytes below the lowest one that mask marks (8: none). */
HOT unsigned bytes_before(uint64_t mask)
{
	return mask ? (unsigned)__builtin_ctzll(mask) / 8 : 8;
}

HOT uint64_t low_bytes(unsigned n)
{
	return n >= 8 ? ~0ULL : (1ULL << (8 * n)) - 1;
}

/* A name token of an event line: its id when the cache knew it, else the
 * bytes to intern once the whole line is known to be a plain event (a line
 * such as "init x 0" must not add a thread "init"). */
struct name_ref {
	const char *s;
	uint32_t len;
	int id; /* -1: not known yet */
};

/* The cache's slot for a name of at most 8 bytes, as one number. */
HOT struct packed_name *cache_slot(struct packed_name *cache, uint64_t bytes)
{
	return cache + ((bytes * 0x9e3779b97f4a7c15ULL) >> (64 - NAME_CACHE_BITS));
}

/* A name of 9 to MAX_NAME bytes at p, ended by a space: checked a byte at
 * a time. Returns the byte after the space, or NULL. */
static const char *long_name(const struct parser *ps, const char *p, const char *end,
			     struct name_ref *ref)
{
	const char *start = p;

	while (p < end && (ps->cls[(unsigned char)*p] & CC_NAME))
		p++;
	if (p - start > MAX_NAME || p == end || *p != ' ')
		return NULL;
	*ref = (struct name_ref){ start, (uint32_t)(p - start), -1 };
	return p + 1;
}

static bool all_name_bytes(const struct parser *ps, const char *p, unsigned len)
{
	for (unsigned i = 0; i < len; i++)
		if (!(ps->cls[(unsigned char)p[i]] & CC_NAME))
			return false;
	return true;
}

/* The name token at p (1 to MAX_NAME name bytes, then one space). A name
 * of at most 8 bytes is found by its bytes as one number in a
 * direct-mapped cache: a name has no zero byte, so the number tells the
 * names apart. Returns the byte after the space, or NULL. */
HOT const char *plain_name(const struct parser *ps, const char *p, const char *end,
			   struct packed_name *cache, struct name_ref *ref)
{
	struct packed_name *slot;
	uint64_t w, bytes;
	unsigned len;

	if (!load_word(p, end, &w))
		return NULL;
	/* the first space or zero byte: a name has no zero byte */
	len = bytes_before(zero_bytes(w ^ (ONES * ' ')) | zero_bytes(w));
	if (len == 8 && (end - p == 8 || p[8] != ' '))
		return long_name(ps, p, end, ref);
	if (len == 0 || p[len] != ' ')
		return NULL;
	bytes = w & low_bytes(len);
	slot = cache_slot(cache, bytes);
	if (slot->bytes == bytes)
		ref->id = slot->id;
	else if (all_name_bytes(ps, p, len))
		*ref = (struct name_ref){ p, len, -1 };
	else
		return NULL;
	return p + len + 1;
}

/* The id of a name the cache did not know: interned (and cached) now.
 * Returns the id or a negative errno. */
static int name_id_missed(struct parser *ps, const struct name_ref *ref, int is_thread)
{
	struct token t = { ref->s, ref->len, 0, 0, 0 };
	int id = parser_intern(ps, &t, is_thread);
	uint64_t bytes = 0;

	if (id >= 0 && ref->len <= 8) {
		memcpy(&bytes, ref->s, ref->len); /* the first byte lowest, as loaded */
		*cache_slot(is_thread ? ps->threads8 : ps->vars8, bytes) =
			(struct packed_name){ bytes, id };
	}
	return id;
}

/* The value of the n (1 to 8) decimal digits in the low bytes of x (digit
 * values, not characters, the first digit lowest): pairs, then fours,
 * then all eight, each step a multiply. */
HOT uint64_t digits_value(uint64_t x, unsigned n)
{
	x <<= 8 * (8 - n); /* leading zeros: 8 digits in all */
	x = x * 10 + (x >> 8);
	return (((x & 0x000000ff000000ffULL) * (100 + (1000000ULL << 32))) +
		(((x >> 16) & 0x000000ff000000ffULL) * (1 + (10000ULL << 32)))) >>
	       32;
}

/* How many of the low bytes of w are decimal digits; *x: w with each
 * digit byte turned into its value. */
HOT unsigned digit_run(uint64_t w, uint64_t *x)
{
	uint64_t v = w ^ (ONES * '0'); /* a digit byte is now 0 to 9 */
	uint64_t low = (v & (ONES * 0x0f)) + ONES * 6;

	*x = v;
	return bytes_before((v | low) & (ONES * 0xf0));
}

/* [-]digits (1 to 16 of them) at p, ended by the byte stop. Returns the
 * byte after stop, or NULL (anything else: parse_value() takes it). */
HOT const char *plain_decimal(const char *p, const char *end, char stop, int64_t *out)
{
	uint64_t w, x, value;
	unsigned n, more;
	bool negative;

	if (!load_word(p, end, &w))
		return NULL;
	negative = (char)w == '-';
	if (negative && !load_word(++p, end, &w))
		return NULL;
	n = digit_run(w, &x);
	if (n == 0)
		return NULL;
	value = digits_value(x, n);
	if (n == 8) {
		if (!load_word(p + 8, end, &w) || (more = digit_run(w, &x)) == 8)
			return NULL;
		if (more)
			value = value * (uint64_t)(more == 1   ? 10
						   : more == 2 ? 100
						   : more == 3 ? 1000
						   : more == 4 ? 10000
						   : more == 5 ? 100000
						   : more == 6 ? 1000000
							       : 10000000) +
				digits_value(x, more);
		n += more;
	}
	if (p[n] != stop)
		return NULL;
	*out = negative ? -(int64_t)value : (int64_t)value;
	return p + n + 1;
}

/* The event into th's room as packed words of form k (a constant where
 * it is inlined): false when it does not fit them. */
HOT bool put_packed(struct vsc_program *p, struct vsc_thread *th, enum packing k, uint32_t kind,
		    uint32_t var, int64_t value)
{
	if (!packing_fits(k, kind, var, value))
		return false;
	packed_put(th->packed, k, th->length, packing_word(k, kind, var, value));
	var_span_add(&p->inits[var], value);
	return true;
}

/* The event into th's room as a struct vsc_event, written field by field:
 * copied whole from a struct just built on the stack by narrower stores,
 * its 16-byte load waited on them (store forwarding fails there), a third
 * of this loop's time. */
HOT void put_event(struct vsc_program *p, struct vsc_thread *th, uint32_t kind, uint32_t var,
		   int64_t value, int64_t new_value)
{
	struct vsc_event *e = &th->events[th->length];

	e->kind = kind;
	e->var = var;
	e->value = value;
	e->new_value = new_value;
	var_span_see(&p->inits[var], e);
}

/* The event into th's room in p's form (packed.h), each form its own
 * code: false when it does not fit. */
HOT bool put_in_form(struct vsc_program *p, struct vsc_thread *th, uint32_t kind, uint32_t var,
		     int64_t value, int64_t new_value)
{
	switch (p->packed) {
	case PACKING_NARROW:
		return put_packed(p, th, PACKING_NARROW, kind, var, value);
	case PACKING_WIDE:
		return put_packed(p, th, PACKING_WIDE, kind, var, value);
	default:
		put_event(p, th, kind, var, value, new_value);
		return true;
	}
}

/* program_append() without its checks when the thread has room and no
 * timestamps (the common case). Returns 0, a negative errno, or 1 when
 * the thread is full (the line is left to the general path). */
HOT int append_plain(struct parser *ps, uint32_t t, uint32_t kind, uint32_t var, int64_t value,
		     int64_t new_value)
{
	struct vsc_program *p = ps->cur;
	struct vsc_thread *th = &p->threads[t];

	/* a thread's first event takes program_append(), which makes the line
	 * array when line numbers are kept: after it, th->lines says whether;
	 * an event that does not fit a packed program too (it repacks it) */
	if (th->length < th->cap && !th->ts && put_in_form(p, th, kind, var, value, new_value)) {
		if (th->lines)
			th->lines[th->length] = ps->line;
		th->length++;
		p->event_count++;
		return 0;
	}
	if (th->length == UINT32_MAX)
		return 1; /* parse_line() reports it */
	return program_append(p, t, &(struct vsc_event){ kind, var, value, new_value }, 0,
			      ps->event_lines ? ps->line : 0);
}

/* The kind of the operation at p ('r', 'w' or 'u' and a space), or -1.
 * Without a branch on which letter: reads and writes alternate at random,
 * and a branch on them was mispredicted on every other line (~7% of the
 * parser's time). The letters are 'r' + 0, 3 and 5; each kind sits in two
 * bits of KINDS at twice its letter's offset. */
HOT int op_kind(const char *p)
{
	enum {
		LETTERS = 1 << 0 | 1 << ('u' - 'r') | 1 << ('w' - 'r'),
		KINDS = VSC_READ | VSC_RMW << 2 * ('u' - 'r') | VSC_WRITE << 2 * ('w' - 'r'),
	};
	unsigned at = (unsigned char)p[0] - 'r';
	bool known = at < 8 && (LETTERS >> at & 1) && p[1] == ' ';

	return known ? (int)(KINDS >> 2 * (at & 7) & 3) : -1;
}

/* The thread of the line before, when its name and the space after it
 * fit in a word: lines of one thread come in runs, and a line that starts
 * with the same bytes needs no look-up. */
struct last_thread {
	uint64_t bytes, mask; /* the name and its space; mask 0: none */
	uint32_t len;         /* with the space */
	int id;
};

/* The thread name at p, by the line before's when it is the same. */
HOT const char *thread_name(struct parser *ps, const char *p, const char *end,
			    struct last_thread *last, struct name_ref *ref)
{
	uint64_t w;
	const char *next;

	if (!load_word(p, end, &w))
		return NULL;
	if (last->mask && (w & last->mask) == last->bytes) {
		ref->id = last->id;
		return p + last->len;
	}
	next = plain_name(ps, p, end, ps->threads8, ref);
	last->mask = 0; /* the line after takes this name's id, if it fits */
	if (next && next - p <= 8) {
		last->len = (uint32_t)(next - p);
		last->mask = low_bytes(last->len);
		last->bytes = w & last->mask;
		last->id = ref->id; /* < 0 until the line is taken: then set */
	}
	return next;
}

/* One plain event line at p (numbered ps->line), appended. Returns the
 * next line's start, or NULL with *err 0 (not a plain line) or a negative
 * errno. */
HOT const char *plain_event(struct parser *ps, const char *p, const char *end,
			    struct last_thread *last, int *err)
{
	struct name_ref thread = { NULL, 0, -1 }, var = { NULL, 0, -1 };
	int64_t value, new_value = 0;
	int kind, appended;

	if (!(p = thread_name(ps, p, end, last, &thread)) || end - p < 2 ||
	    (kind = op_kind(p)) < 0 || !(p = plain_name(ps, p + 2, end, ps->vars8, &var)) ||
	    !(p = plain_decimal(p, end, kind == VSC_RMW ? ' ' : '\n', &value)) ||
	    (kind == VSC_RMW && !(p = plain_decimal(p, end, '\n', &new_value)))) {
		last->mask = 0; /* its id may be unknown */
		return NULL;
	}
	if ((thread.id < 0 && (thread.id = last->id = name_id_missed(ps, &thread, 1)) < 0) ||
	    (var.id < 0 && (var.id = name_id_missed(ps, &var, 0)) < 0)) {
		*err = thread.id < 0 ? thread.id : var.id;
		last->mask = 0;
		return NULL;
	}
	appended = append_plain(ps, (uint32_t)thread.id, (uint32_t)kind, (uint32_t)var.id, value,
				new_value);
	*err = appended < 0 ? appended : 0;
	return appended ? NULL : p;
}

#ifdef __SSE2__
#include <emmintrin.h>

/* The offset of the first newline in the 32 bytes at p; 32 when there is
 * none, or fewer than 32 bytes are left. */
HOT unsigned newline_within(const char *p, const char *end)
{
	const __m128i nl = _mm_set1_epi8('\n');
	uint32_t low, high;

	if (end - p < 32)
		return 32;
	low = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const void *)p), nl));
	high = (uint32_t)_mm_movemask_epi8(
		_mm_cmpeq_epi8(_mm_loadu_si128((const void *)(p + 16)), nl));
	return low | high << 16 ? (unsigned)__builtin_ctz(low | high << 16) : 32;
}
#else
HOT unsigned newline_within(const char *p, const char *end)
{
	(void)p;
	(void)end;
	return 32; /* each line where plain_event() ends it */
}
#endif

/* Bytes left that narrow_lines() needs: its line (under 32 bytes) and
 * the word it loads at the line's value. */
#define NARROW_SLACK 64
/* After this many looks in turn at narrow_lines() that took no line, the
 * main loop takes 2^(this - 1) lines one by one before the next (a
 * thread's first lines name variables the cache does not know yet; some
 * traces have few lines it takes). */
#define NARROW_MISSES_MOST 7
#ifdef __SSE2__
#define NARROW_LINES 1
#else
#define NARROW_LINES 0 /* newline_within() finds no line's end */
#endif

/* The operation "r " or "w " as the two bytes loaded, the first lowest. */
#define READ_OP ('r' | ' ' << 8)
#define WRITE_OP ('w' | ' ' << 8)

/* The 8 bytes at p, which the caller knows are inside the input. */
HOT uint64_t word_at(const char *p)
{
	uint64_t w;

	memcpy(&w, p, 8);
	return w;
}

/* The high bit of the lowest byte of x below '!' (a space, newline or
 * zero byte ends a name; every name byte is above it), and maybe of bytes
 * above it; 0 when none. */
HOT uint64_t name_ends(uint64_t x)
{
	return (x - ONES * '!') & ~x & HIGHS;
}

/* Whether the n (1 to 8) low bytes of v, each a byte xor '0', are all
 * decimal digits. */
HOT bool all_digits(uint64_t v, unsigned n)
{
	uint64_t low = (v & (ONES * 0x0f)) + ONES * 6;

	return ((v | low) & (ONES * 0xf0) & low_bytes(n)) == 0;
}

/* Whether narrow_lines() may take the lines after: the line before was
 * a plain event of a thread whose events it appends as they are. */
HOT bool can_go_narrow(const struct parser *ps, const struct last_thread *last)
{
	const struct vsc_thread *th;

	if (!NARROW_LINES || !last->mask || last->id < 0 || ps->cur->packed != PACKING_NARROW)
		return false;
	th = &ps->cur->threads[last->id];
	return th->length > 0 && th->length < th->cap && !th->ts;
}

/* The thread's lines narrow_lines() takes as they come: each starts with
 * the thread's name, a space and "r " or "w " (at most 8 bytes in all). */
struct narrow_head {
	uint64_t mask;  /* of those bytes */
	uint64_t read;  /* the bytes of a read */
	uint64_t write; /* what the bytes of a write differ from them by */
	unsigned len;   /* of those bytes: where the variable starts */
};

/* The head of last's lines: false when it is longer than a word. */
HOT bool narrow_head_of(const struct last_thread *last, struct narrow_head *h)
{
	if (last->len > 6)
		return false;
	h->len = last->len + 2;
	h->mask = low_bytes(h->len);
	h->read = last->bytes | (uint64_t)READ_OP << 8 * last->len;
	h->write = (uint64_t)(READ_OP ^ WRITE_OP) << 8 * last->len;
	return true;
}

/* narrow_lines() with or without line numbers to keep (a constant where
 * it is inlined): at most `count` lines; i is the thread's length. */
HOT const char *narrow_run(struct parser *ps, const char *p, const char *last_start,
			   const struct narrow_head *h, struct vsc_thread *th, uint32_t count,
			   bool keep_lines)
{
	const struct packed_name *vars = ps->vars8;
	struct vsc_var_init *inits = ps->cur->inits;
	uint32_t *out = th->packed, *lines = th->lines;
	uint32_t i = th->length, stop = th->length + count, line = ps->line - i;

	while (i < stop && p <= last_start) {
		unsigned nl = newline_within(p, p + 32), len, n;
		uint64_t op = (word_at(p) & h->mask) ^ h->read, name, digits, ends;
		uint32_t kind = op == h->write, var;
		const struct packed_name *slot;
		const char *value_at;

		name = word_at(p + h->len);
		ends = name_ends(name);
		if (nl == 32 || (op && !kind) || !ends)
			break;
		len = (unsigned)__builtin_ctzll(ends) / 8;
		if (len == 0 || (uint8_t)(name >> 8 * len) != ' ')
			break;
		name &= low_bytes(len);
		slot = cache_slot((struct packed_name *)vars, name);
		value_at = p + h->len + len + 1;
		n = (unsigned)(p + nl - value_at);
		var = (uint32_t)slot->id;
		/* at most 6 digits: below 2^21, the narrow form's values */
		if (slot->bytes != name || var >= 1U << packing_var_bits(PACKING_NARROW) ||
		    n - 1 >= 6)
			break;
		digits = word_at(value_at) ^ ONES * '0';
		if (!all_digits(digits, n))
			break;
		packed_put(
			out, PACKING_NARROW, i,
			packing_word(PACKING_NARROW, kind, var, (int64_t)digits_value(digits, n)));
		var_span_add(&inits[var], (int64_t)digits_value(digits, n));
		if (keep_lines)
			lines[i] = line + i + 1;
		i++;
		p += nl + 1;
	}
	ps->cur->event_count += i - th->length;
	ps->line += i - th->length;
	th->length = i;
	return p;
}

/* The lines of the thread of the line before, while they are plain
 * events ("r" or "w", at most 6 digits) of variables the cache knows,
 * which fit the narrow form (packed.h): most lines of a big recording.
 * A loop of its own keeps the thread's room, length and line in
 * registers, with none of the checks the line before already made (the
 * thread's room, timestamps, form), and the thread's name and the
 * operation checked as one word: about 40% fewer instructions a line
 * than plain_event(), which reloads what each store may have changed.
 * Stops before the first line it does not take, which the caller takes
 * the usual way; returns where. Not inlined: inside the caller's loop
 * its values spilled to the stack (3 ms more at 10^7). */
static __attribute__((noinline)) const char *
narrow_lines(struct parser *ps, const char *p, const char *end, const struct last_thread *last)
{
	struct vsc_thread *th = &ps->cur->threads[last->id];
	uint64_t to_look = LINES_PER_CLOCK_LOOK - 1 - ps->line % LINES_PER_CLOCK_LOOK;
	uint32_t count = th->cap - th->length < to_look ? th->cap - th->length : (uint32_t)to_look;
	struct narrow_head h;

	if (end - p < NARROW_SLACK || !narrow_head_of(last, &h))
		return p;
	return th->lines ? narrow_run(ps, p, end - NARROW_SLACK, &h, th, count, true)
			 : narrow_run(ps, p, end - NARROW_SLACK, &h, th, count, false);
}

const char *parse_plain_lines(struct parser *ps, const char *p, const char *end, int *err)
{
	uint32_t first = ps->line, wait = 0, misses = 0;
	struct last_thread last = { 0 };

	*err = 0;
	if (!PLAIN_WORDS || ps->errors)
		return p;
	while ((ps->line + 1) % LINES_PER_CLOCK_LOOK != 0) {
		if (wait) {
			wait--;
		} else {
			const char *from = p;
			if (can_go_narrow(ps, &last))
				p = narrow_lines(ps, p, end, &last);
			/* none taken, or none it may take (a wide program, long
			 * thread names): wait 1, 2, 4 ... lines before the next
			 * look, so that such traces pay one every 65 lines */
			misses = p == from ? misses + (misses < NARROW_MISSES_MOST) : 0;
			wait = (1U << misses) >> 1;
			if ((ps->line + 1) % LINES_PER_CLOCK_LOOK == 0)
				break;
		}
		/* The next line starts after the first newline, which a line that
		 * plain_event() takes ends at: found apart, from one load, so
		 * that the next line's work does not wait for this line's fields
		 * (the processor overlaps lines) */
		unsigned nl = newline_within(p, end);
		const char *next;
		ps->line++;
		if (nl < 32 && plain_event(ps, p, end, &last, err)) {
			p += nl + 1;
			continue;
		}
		next = nl < 32 ? NULL : plain_event(ps, p, end, &last, err);
		if (!next) {
			ps->line--;
			break;
		}
		p = next;
	}
	if (ps->line != first) {
		ps->seen_item = 1;
		ps->trace->comp.last_item_line = ps->line;
	}
	return p;
}
