/* SPDX-License-Identifier: MIT */
/*
 * vsc gen ring: K threads pass a token M times. Value i (1..M) is written
 * by thread (i-1) mod K and read by thread i mod K, which then writes i+1.
 * Every value is written once, so reads-from and program order force the
 * one interleaving w1 r1 w2 r2 ... wM rM; it switches threads M times, and
 * a switch is a preemption unless the thread left has finished. The last K
 * runs are the last ones of their threads, so the least number of
 * preemptions is exactly M - K + 1 (M >= K).
 */
#include <stdlib.h>
#include <string.h>

#include "userspace/gen/gen.h"
#include "userspace/util/diag.h"

struct ring_params {
	uint64_t threads, passes, local;
	bool own_vars, interleaved, timestamps;
};

static void ring_token_var(const struct ring_params *p, uint64_t value, const char **prefix,
			   uint64_t *index)
{
	/* shared: one variable "tok" (K writers); own: writer w writes t<w> */
	if (p->own_vars) {
		*prefix = "t";
		*index = (value - 1) % p->threads;
	} else {
		*prefix = "tok";
		*index = 0;
	}
}

static void ring_event(struct gen_out *out, const struct ring_params *p, uint64_t thread, char kind,
		       uint64_t value, int64_t ts)
{
	const char *prefix;
	uint64_t index;
	ring_token_var(p, value, &prefix, &index);
	gen_out_name(out, "T", thread);
	gen_out_char(out, ' ');
	gen_out_char(out, kind);
	gen_out_char(out, ' ');
	if (p->own_vars)
		gen_out_name(out, prefix, index);
	else
		gen_out_str(out, prefix);
	gen_out_char(out, ' ');
	gen_out_u64(out, value);
	if (ts >= 0) {
		gen_out_str(out, " @");
		gen_out_i64(out, ts);
	}
	gen_out_char(out, '\n');
}

/* Private work between receiving and passing the token: it never changes
 * which interleavings are SC, only how long the runs are. */
static void ring_local(struct gen_out *out, const struct ring_params *p, uint64_t thread,
		       uint64_t round, int64_t *ts)
{
	for (uint64_t j = 0; j < p->local; j++) {
		char kind = (j & 1) ? 'r' : 'w';
		int64_t v = (int64_t)(round * p->local + j / 2);
		gen_out_event(out, "T", thread, kind, "p", thread, v, 0,
			      *ts >= 0 ? (*ts += 1000) : -1);
	}
}

/* The events of one round: thread (i mod K) reads i (if i > 0), does its
 * local work, and writes i+1 (if i < M). */
static void ring_round(struct gen_out *out, const struct ring_params *p, uint64_t i, int64_t *ts)
{
	uint64_t t = i % p->threads;
	if (i > 0)
		ring_event(out, p, t, 'r', i, *ts >= 0 ? (*ts += 1000) : -1);
	ring_local(out, p, t, i, ts);
	if (i < p->passes)
		ring_event(out, p, t, 'w', i + 1, *ts >= 0 ? (*ts += 1000) : -1);
}

static const char ring_usage[] =
	"usage: vsc gen ring [options]\n"
	"  --threads K     threads in the ring (default 2)\n"
	"  --passes M      token values written, M >= K (default 100)\n"
	"  --own-vars      each thread writes its own token variable (1-Writer)\n"
	"  --local L       L private events per round (default 0)\n"
	"  --order O       thread (default) | interleaved (the only SC order)\n"
	"  --timestamps    add @ts hints\n"
	"  -o FILE\n"
	"least preemptions = M - K + 1\n";

/* Every round, in the order of the interleaving or thread by thread (then
 * with the timestamps of the interleaving). */
static void ring_rounds(struct gen_out *out, const struct ring_params *p)
{
	if (p->interleaved) {
		int64_t ts = p->timestamps ? 0 : -1;
		for (uint64_t i = 0; i <= p->passes; i++)
			ring_round(out, p, i, &ts);
		return;
	}
	for (uint64_t t = 0; t < p->threads; t++)
		for (uint64_t i = t; i <= p->passes; i += p->threads) {
			/* the timestamp of round i in the interleaving */
			uint64_t before = i ? i * (p->local + 2) - 1 : 0;
			int64_t ts = p->timestamps ? (int64_t)(1000 * before) : -1;
			ring_round(out, p, i, &ts);
		}
}

int gen_ring(int argc, char **argv)
{
	struct ring_params p = { .threads = 2, .passes = 100 };
	const char *order = "thread", *outpath = NULL, *pos[1];
	uint64_t seed = 0;
	size_t npos;
	const struct gen_opt opts[] = {
		{ "threads", 0, GEN_OPT_U64, &p.threads, NULL },
		{ "passes", 0, GEN_OPT_U64, &p.passes, NULL },
		{ "own-vars", 0, GEN_OPT_FLAG, &p.own_vars, NULL },
		{ "local", 0, GEN_OPT_U64, &p.local, NULL },
		{ "order", 0, GEN_OPT_STR, &order, NULL },
		{ "timestamps", 0, GEN_OPT_FLAG, &p.timestamps, NULL },
		{ "seed", 0, GEN_OPT_U64, &seed, NULL }, /* accepted, unused */
		{ "output", 'o', GEN_OPT_STR, &outpath, NULL },
	};
	int r = gen_parse_opts("ring", ring_usage, argc, argv, opts, sizeof(opts) / sizeof(opts[0]),
			       pos, 0, &npos);
	if (r)
		return r > 0 ? 0 : 2;
	p.interleaved = strcmp(order, "interleaved") == 0;
	if (!p.interleaved && strcmp(order, "thread")) {
		diag("gen ring", "--order must be thread or interleaved");
		return 2;
	}
	if (p.threads < 2 || p.passes < p.threads) {
		diag("gen ring", "need --threads >= 2 and --passes >= --threads");
		return 2;
	}
	struct gen_out *out = gen_out_start(outpath);
	if (!out)
		return 2;
	gen_out_trace_header(out, "ring", argc, argv);
	gen_out_str(out, "# least preemptions: ");
	gen_out_u64(out, p.passes - p.threads + 1);
	gen_out_str(out, " (passes - threads + 1)\n");
	ring_rounds(out, &p);
	return gen_out_end(out);
}
