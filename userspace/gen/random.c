/* SPDX-License-Identifier: MIT */
/*
 * vsc gen random: a random program. Each thread's events are drawn on
 * their own, values uniformly from 0..D-1, so the program is usually not
 * SC (more so with more events): use it to test solvers, not to expect a
 * verdict. `vsc gen sc` makes executions that are SC by construction.
 */
#include <stdlib.h>

#include "userspace/gen/gen.h"
#include "userspace/util/diag.h"

struct random_params {
	uint64_t threads, events, total, vars, values, writers, seed;
	double reads, rmw;
	bool total_given;
	enum gen_init init;
};

static void random_inits(struct gen_out *out, const struct random_params *p, struct gen_rng *rng)
{
	for (uint64_t x = 0; x < p->vars; x++) {
		enum gen_init kind = p->init;
		if (kind == GEN_INIT_MIX)
			kind = (enum gen_init)gen_rng_below(rng, 3);
		if (kind == GEN_INIT_NONE)
			continue;
		gen_out_name(out, "init x", x);
		gen_out_char(out, ' ');
		if (kind == GEN_INIT_UNKNOWN)
			gen_out_char(out, '?');
		else
			gen_out_u64(out, gen_rng_below(rng, p->values));
		gen_out_char(out, '\n');
	}
}

static void random_thread(struct gen_out *out, const struct random_params *p,
			  const struct gen_writers *gw, struct gen_rng *rng, uint64_t t, uint64_t n)
{
	uint64_t nw = gen_writers_count(gw, t);
	for (uint64_t e = 0; e < n; e++) {
		int64_t value = (int64_t)gen_rng_below(rng, p->values);
		if (nw && !gen_rng_chance(rng, p->reads)) {
			uint64_t x = gw->var[gw->offset[t] + gen_rng_below(rng, nw)];
			if (gen_rng_chance(rng, p->rmw)) {
				int64_t v = (int64_t)gen_rng_below(rng, p->values);
				gen_out_event(out, "T", t, 'u', "x", x, value, v, -1);
			} else {
				gen_out_event(out, "T", t, 'w', "x", x, value, 0, -1);
			}
		} else {
			uint64_t x = gen_rng_below(rng, p->vars);
			gen_out_event(out, "T", t, 'r', "x", x, value, 0, -1);
		}
	}
}

static const char random_usage[] =
	"usage: vsc gen random [options]\n"
	"  --threads K     threads (default 3)\n"
	"  --events N      events per thread (default 10)\n"
	"  --total N       events in all, spread evenly (instead of --events)\n"
	"  --vars V        variables (default 2)\n"
	"  --values D      values 0..D-1 (default 2)\n"
	"  --writers W     at most W writer threads per variable; 0 = all (default 0)\n"
	"  --reads R       fraction of reads (default 0.5)\n"
	"  --rmw R         fraction of writes that are read-modify-writes (default 0)\n"
	"  --init M        none | known | unknown | mix (default mix)\n"
	"  --seed S, -o FILE\n";

int gen_random(int argc, char **argv)
{
	struct random_params p = {
		.threads = 3, .events = 10, .vars = 2, .values = 2, .reads = 0.5
	};
	const char *init = "mix", *outpath = NULL, *pos[1];
	size_t npos;
	const struct gen_opt opts[] = {
		GEN_SHAPE_OPTS(&p, init),
		{ "output", 'o', GEN_OPT_STR, &outpath, NULL },
	};
	int r = gen_parse_opts("random", random_usage, argc, argv, opts,
			       sizeof(opts) / sizeof(opts[0]), pos, 0, &npos);
	if (r)
		return r > 0 ? 0 : 2;
	if (gen_parse_init(init, &p.init))
		return 2;
	if (!p.threads || !p.vars || !p.values) {
		diag("gen random", "need threads, vars and values >= 1");
		return 2;
	}
	struct gen_writers gw = { 0 };
	struct gen_out *out = NULL;
	if (gen_writers_init(&gw, p.threads, p.vars, p.writers) || !(out = gen_out_start(outpath)))
		goto done;
	struct gen_rng rng;
	gen_rng_seed(&rng, p.seed);
	gen_out_trace_header(out, "random", argc, argv);
	random_inits(out, &p, &rng);
	for (uint64_t t = 0; t < p.threads; t++) {
		uint64_t n =
			p.total_given ? p.total / p.threads + (t < p.total % p.threads) : p.events;
		random_thread(out, &p, &gw, &rng, t, n);
	}
done:
	gen_writers_free(&gw);
	return gen_out_end(out);
}
