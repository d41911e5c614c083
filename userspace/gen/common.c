/* SPDX-License-Identifier: MIT */
/* vsc gen: random numbers, fast output, option parsing. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "userspace/gen/gen.h"
#include "userspace/util/diag.h"

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void gen_rng_seed(struct gen_rng *rng, uint64_t seed)
{
	uint64_t x = seed;
	for (int i = 0; i < 4; i++)
		rng->s[i] = splitmix64(&x);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t gen_rng_next(struct gen_rng *rng)
{
	uint64_t *s = rng->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

uint64_t gen_rng_below(struct gen_rng *rng, uint64_t bound)
{
	/* Lemire's multiply-shift with rejection: unbiased and portable. */
	uint64_t threshold = (0 - bound) % bound;
	for (;;) {
		uint64_t r = gen_rng_next(rng);
		unsigned __int128 m = (unsigned __int128)r * bound;
		if ((uint64_t)m >= threshold)
			return (uint64_t)(m >> 64);
	}
}

bool gen_rng_chance(struct gen_rng *rng, double p)
{
	if (p <= 0)
		return false;
	if (p >= 1)
		return true;
	return (double)(gen_rng_next(rng) >> 11) * 0x1.0p-53 < p;
}

/* ---- output -------------------------------------------------------------- */

int gen_out_open(struct gen_out *out, const char *path)
{
	out->len = 0;
	out->failed = false;
	if (!path || strcmp(path, "-") == 0) {
		out->file = stdout;
		out->path = "<stdout>";
		return 0;
	}
	out->file = fopen(path, "w");
	out->path = path;
	if (!out->file) {
		diag("gen", "%s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

struct gen_out *gen_out_start(const char *path)
{
	struct gen_out *out = malloc(sizeof(*out));

	if (!out) {
		diag("gen", "out of memory");
		return NULL;
	}
	if (gen_out_open(out, path)) {
		free(out);
		return NULL;
	}
	return out;
}

int gen_out_end(struct gen_out *out)
{
	int status = out && gen_out_close(out) == 0 ? 0 : 2;

	free(out);
	return status;
}

static void gen_out_flush(struct gen_out *out)
{
	if (out->len && !out->failed && fwrite(out->buf, 1, out->len, out->file) != out->len)
		out->failed = true;
	out->len = 0;
}

int gen_out_close(struct gen_out *out)
{
	gen_out_flush(out);
	if (fflush(out->file) != 0)
		out->failed = true;
	if (out->file != stdout && fclose(out->file) != 0)
		out->failed = true;
	if (out->failed) {
		diag("gen", "%s: write failed: %s", out->path, strerror(errno));
		return -1;
	}
	return 0;
}

static void gen_out_reserve(struct gen_out *out, size_t n)
{
	if (out->len + n > sizeof(out->buf))
		gen_out_flush(out);
}

void gen_out_str(struct gen_out *out, const char *s)
{
	size_t n = strlen(s);
	while (n > 0) {
		gen_out_reserve(out, 1);
		size_t room = sizeof(out->buf) - out->len;
		size_t chunk = n < room ? n : room;
		memcpy(out->buf + out->len, s, chunk);
		out->len += chunk;
		s += chunk;
		n -= chunk;
	}
}

void gen_out_char(struct gen_out *out, char c)
{
	gen_out_reserve(out, 1);
	out->buf[out->len++] = c;
}

void gen_out_u64(struct gen_out *out, uint64_t v)
{
	char tmp[24];
	int n = 0;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	gen_out_reserve(out, (size_t)n);
	while (n)
		out->buf[out->len++] = tmp[--n];
}

void gen_out_i64(struct gen_out *out, int64_t v)
{
	if (v < 0) {
		gen_out_char(out, '-');
		gen_out_u64(out, (uint64_t)0 - (uint64_t)v);
	} else {
		gen_out_u64(out, (uint64_t)v);
	}
}

void gen_out_name(struct gen_out *out, const char *prefix, uint64_t n)
{
	gen_out_str(out, prefix);
	gen_out_u64(out, n);
}

/* PREFIX, or PREFIXN when n is a number (not UINT64_MAX). */
static void gen_out_maybe_numbered(struct gen_out *out, const char *prefix, uint64_t n)
{
	if (n != UINT64_MAX)
		gen_out_name(out, prefix, n);
	else
		gen_out_str(out, prefix);
}

void gen_out_event(struct gen_out *out, const char *thread_prefix, uint64_t thread, char kind,
		   const char *var_prefix, uint64_t var, int64_t value, int64_t new_value,
		   int64_t ts)
{
	gen_out_maybe_numbered(out, thread_prefix, thread);
	gen_out_char(out, ' ');
	gen_out_char(out, kind);
	gen_out_char(out, ' ');
	gen_out_maybe_numbered(out, var_prefix, var);
	gen_out_char(out, ' ');
	gen_out_i64(out, value);
	if (kind == 'u') {
		gen_out_char(out, ' ');
		gen_out_i64(out, new_value);
	}
	if (ts >= 0) {
		gen_out_str(out, " @");
		gen_out_i64(out, ts);
	}
	gen_out_char(out, '\n');
}

void gen_out_reduction_event(struct gen_out *out, const char *thread, uint64_t ti, char kind,
			     const char *var, uint64_t vi, int64_t value)
{
	gen_out_event(out, thread, ti, kind, var, vi, value, 0, -1);
}

/* ---- options ------------------------------------------------------------- */

/* Decimal, or hex with 0x: a leading 0 is not octal (010 is ten). */
static int number_base(const char *s)
{
	if (*s == '-' || *s == '+')
		s++;
	return s[0] == '0' && (s[1] == 'x' || s[1] == 'X') ? 16 : 10;
}

int gen_parse_u64(const char *s, uint64_t *v)
{
	char *end;
	if (!s || !*s || *s == '-')
		return -1;
	errno = 0;
	unsigned long long x = strtoull(s, &end, number_base(s));
	if (errno || *end)
		return -1;
	*v = x;
	return 0;
}

int gen_parse_i64(const char *s, int64_t *v)
{
	char *end;
	if (!s || !*s)
		return -1;
	errno = 0;
	long long x = strtoll(s, &end, number_base(s));
	if (errno || *end)
		return -1;
	*v = x;
	return 0;
}

int gen_parse_double(const char *s, double *v)
{
	char *end;
	if (!s || !*s)
		return -1;
	errno = 0;
	double x = strtod(s, &end);
	if (errno || *end || !isfinite(x))
		return -1;
	*v = x;
	return 0;
}

static void opt_error(const char *family, const char *format, ...)
	__attribute__((format(printf, 2, 3)));

/* "vsc gen FAMILY: ..." */
static void opt_error(const char *family, const char *format, ...)
{
	char who[64];
	va_list ap;

	snprintf(who, sizeof(who), "gen %s", family);
	va_start(ap, format);
	vdiag(who, format, ap);
	va_end(ap);
}

static const struct gen_opt *find_long(const struct gen_opt *opts, size_t nopts, const char *name,
				       size_t len)
{
	for (size_t i = 0; i < nopts; i++)
		if (strlen(opts[i].name) == len && strncmp(opts[i].name, name, len) == 0)
			return &opts[i];
	return NULL;
}

static const struct gen_opt *find_short(const struct gen_opt *opts, size_t nopts, char c)
{
	for (size_t i = 0; i < nopts; i++)
		if (opts[i].short_name && opts[i].short_name == c)
			return &opts[i];
	return NULL;
}

static int store_opt(const char *family, const struct gen_opt *opt, const char *arg)
{
	int err = 0;
	switch (opt->type) {
	case GEN_OPT_FLAG:
		*(bool *)opt->value = true;
		break;
	case GEN_OPT_U64:
		err = gen_parse_u64(arg, opt->value);
		break;
	case GEN_OPT_I64:
		err = gen_parse_i64(arg, opt->value);
		break;
	case GEN_OPT_DOUBLE:
		err = gen_parse_double(arg, opt->value);
		break;
	case GEN_OPT_FRACTION:
		err = gen_parse_double(arg, opt->value);
		if (!err && !(*(double *)opt->value >= 0 && *(double *)opt->value <= 1)) {
			opt_error(family, "--%s: '%s' is not a fraction from 0 to 1", opt->name,
				  arg);
			return -1;
		}
		break;
	case GEN_OPT_STR:
		*(const char **)opt->value = arg;
		break;
	}
	if (err) {
		opt_error(family, "--%s: bad value '%s'", opt->name, arg);
		return -1;
	}
	if (opt->seen)
		*opt->seen = true;
	return 0;
}

/* The option argv[*i] names (NULL: unknown) and its value, taken from
 * "--name=VALUE" or from the next argument (*i moves past it). 0 or -1
 * after saying why. */
static int find_opt(const char *family, const struct gen_opt *opts, size_t nopts, int argc,
		    char **argv, int *i, const struct gen_opt **opt, const char **arg)
{
	const char *a = argv[*i];

	*arg = NULL;
	if (a[1] == '-') {
		const char *eq = strchr(a + 2, '=');
		size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
		*opt = find_long(opts, nopts, a + 2, len);
		if (eq)
			*arg = eq + 1;
	} else {
		*opt = find_short(opts, nopts, a[1]);
	}
	if (!*opt)
		return 0;
	if ((*opt)->type == GEN_OPT_FLAG) {
		if (*arg) {
			opt_error(family, "--%s takes no value", (*opt)->name);
			return -1;
		}
	} else if (!*arg) {
		if (*i + 1 >= argc) {
			opt_error(family, "--%s needs a value", (*opt)->name);
			return -1;
		}
		*arg = argv[++*i];
	}
	return 0;
}

static int add_positional(const char *family, const char **positional, size_t max_positional,
			  size_t *npositional, const char *arg)
{
	if (*npositional == max_positional) {
		opt_error(family, "too many arguments");
		return -1;
	}
	positional[(*npositional)++] = arg;
	return 0;
}

int gen_parse_opts(const char *family, const char *usage, int argc, char **argv,
		   const struct gen_opt *opts, size_t nopts, const char **positional,
		   size_t max_positional, size_t *npositional)
{
	*npositional = 0;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		const struct gen_opt *opt;
		const char *arg;

		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			fputs(usage, stdout);
			return 1;
		}
		if (strcmp(a, "--") == 0) { /* operands only from here */
			for (i++; i < argc; i++)
				if (add_positional(family, positional, max_positional, npositional,
						   argv[i]))
					return -1;
			break;
		}
		if (a[0] != '-' || (a[1] != '-' && (!a[1] || a[2]))) { /* an operand */
			if (add_positional(family, positional, max_positional, npositional, a))
				return -1;
			continue;
		}
		if (find_opt(family, opts, nopts, argc, argv, &i, &opt, &arg))
			return -1;
		if (!opt) {
			opt_error(family, "unknown option '%s'", a);
			fputs(usage, stderr);
			return -1;
		}
		if (store_opt(family, opt, arg))
			return -1;
	}
	return 0;
}

/* ---- shared by the random-program families -------------------------------- */

int gen_parse_init(const char *s, enum gen_init *init)
{
	static const char *const names[] = { "none", "known", "unknown", "mix" };
	for (int i = 0; i < 4; i++)
		if (strcmp(s, names[i]) == 0) {
			*init = (enum gen_init)i;
			return 0;
		}
	diag("gen", "--init must be none, known, unknown or mix");
	return -1;
}

int gen_writers_init(struct gen_writers *gw, uint64_t threads, uint64_t vars, uint64_t writers)
{
	if (writers == 0 || writers > threads)
		writers = threads;
	gw->threads = threads;
	gw->offset = calloc(threads + 1, sizeof(*gw->offset));
	gw->var = calloc(vars * writers + 1, sizeof(*gw->var));
	if (!gw->offset || !gw->var) {
		gen_writers_free(gw);
		diag("gen", "out of memory");
		return -1;
	}
	for (uint64_t x = 0; x < vars; x++)
		for (uint64_t j = 0; j < writers; j++)
			gw->offset[(x * writers + j) % threads + 1]++;
	for (uint64_t t = 0; t < threads; t++)
		gw->offset[t + 1] += gw->offset[t];
	uint64_t *fill = calloc(threads, sizeof(*fill));
	if (!fill) {
		gen_writers_free(gw);
		diag("gen", "out of memory");
		return -1;
	}
	for (uint64_t x = 0; x < vars; x++)
		for (uint64_t j = 0; j < writers; j++) {
			uint64_t t = (x * writers + j) % threads;
			gw->var[gw->offset[t] + fill[t]++] = x;
		}
	free(fill);
	return 0;
}

void gen_writers_free(struct gen_writers *gw)
{
	free(gw->offset);
	free(gw->var);
	gw->offset = NULL;
	gw->var = NULL;
}

void gen_out_command(struct gen_out *out, const char *family, int argc, char **argv)
{
	gen_out_str(out, "# vsc gen ");
	gen_out_str(out, family);
	for (int i = 0; i < argc; i++) {
		gen_out_char(out, ' ');
		gen_out_str(out, argv[i]);
	}
	gen_out_char(out, '\n');
}

void gen_out_trace_header(struct gen_out *out, const char *family, int argc, char **argv)
{
	gen_out_str(out, "vsc 1\n");
	gen_out_command(out, family, argc, argv);
}

void gen_out_dimacs_header(struct gen_out *out, const char *family, int argc, char **argv,
			   const char *kind, uint64_t a, uint64_t b)
{
	gen_out_str(out, "c ");
	gen_out_command(out, family, argc, argv);
	gen_out_str(out, "p ");
	gen_out_str(out, kind);
	gen_out_char(out, ' ');
	gen_out_u64(out, a);
	gen_out_char(out, ' ');
	gen_out_u64(out, b);
	gen_out_char(out, '\n');
}

/* ---- DIMACS input --------------------------------------------------------- */

int gen_dimacs_open(struct gen_dimacs *d, const char *path, const char *who)
{
	d->in = strcmp(path, "-") ? fopen(path, "r") : stdin;
	d->path = path;
	d->who = who;
	d->lineno = 0;
	if (!d->in) {
		diag(who, "%s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

char *gen_dimacs_next(struct gen_dimacs *d)
{
	while (fgets(d->line, sizeof(d->line), d->in)) {
		char *s = d->line;

		d->lineno++;
		while (isspace((unsigned char)*s))
			s++;
		if (*s != 'c' && *s != 0)
			return s;
	}
	return NULL;
}

void gen_dimacs_error(const struct gen_dimacs *d, const char *what)
{
	diag(d->who, "%s:%llu: %s", d->path, (unsigned long long)d->lineno, what);
}

void gen_dimacs_close(struct gen_dimacs *d)
{
	if (d->in && d->in != stdin)
		fclose(d->in);
	d->in = NULL;
}
