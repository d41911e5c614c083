/* SPDX-License-Identifier: MIT */
/*
 * vsc gen graph: a random simple graph in DIMACS edge format.
 * vsc gen indset: the seed paper's Section 4.3 reduction from k-independent
 * set: a program consistent with -p 3k iff the graph has an independent set
 * of k vertices (and with no bound at all iff it does, Lemma 5).
 *
 * Graph format (DIMACS edge): "c ..." comments, "p edge N M" (or
 * "p col N M"), then "e U V" per edge with vertices 1..N. Self-loops are
 * refused; a repeated edge is kept (it only adds a variable).
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "userspace/gen/gen.h"
#include "userspace/util/array.h"
#include "userspace/util/diag.h"

struct graph {
	uint64_t nvertices, nedges;
	uint64_t (*edge)[2]; /* 0-based endpoints */
	size_t cap;
	uint64_t *inc_start; /* nvertices + 1 offsets into inc */
	uint64_t *inc;       /* incident "edge variables" per vertex */
	uint64_t nvars;      /* edges, plus one loop variable per isolated vertex */
};

static void graph_free(struct graph *g)
{
	free(g->edge);
	free(g->inc_start);
	free(g->inc);
}

static int graph_add_edge(struct graph *g, uint64_t u, uint64_t v)
{
	if (ARRAY_RESERVE(g->edge, g->cap, g->nedges + 1))
		return -1;
	g->edge[g->nedges][0] = u;
	g->edge[g->nedges][1] = v;
	g->nedges++;
	return 0;
}

static int graph_read(struct graph *g, const char *path)
{
	struct gen_dimacs d;
	bool header = false;
	char *s;

	memset(g, 0, sizeof(*g));
	if (gen_dimacs_open(&d, path, "gen indset"))
		return -1;
	while ((s = gen_dimacs_next(&d))) {
		unsigned long long a, b;
		char kind[16];

		if (*s == 'p') {
			if (header || (sscanf(s, "p edge %llu %llu", &a, &b) != 2 &&
				       sscanf(s, "p col %llu %llu", &a, &b) != 2))
				goto bad;
			header = true;
			g->nvertices = a;
			continue;
		}
		if (!header || sscanf(s, "%15s %llu %llu", kind, &a, &b) != 3 ||
		    strcmp(kind, "e") || a < 1 || b < 1 || a > g->nvertices || b > g->nvertices)
			goto bad;
		if (a == b) {
			gen_dimacs_error(&d, "self-loop not supported");
			goto fail;
		}
		if (graph_add_edge(g, a - 1, b - 1)) {
			diag("gen indset", "out of memory");
			goto fail;
		}
	}
	gen_dimacs_close(&d);
	if (!header) {
		diag("gen indset", "%s: no 'p edge' line", path);
		return -1;
	}
	return 0;
bad:
	gen_dimacs_error(&d, "not DIMACS edge format");
fail:
	gen_dimacs_close(&d);
	return -1;
}

/* Incidence lists. An isolated vertex gets a variable of its own, as if
 * it had a loop: without it two selectors could pick the same isolated
 * vertex (the paper assumes a connected graph, where this cannot happen). */
static int graph_index(struct graph *g)
{
	uint64_t n = g->nvertices;
	uint64_t *deg = calloc(n + 1, sizeof(*deg));
	g->inc_start = calloc(n + 1, sizeof(*g->inc_start));
	if (!deg || !g->inc_start)
		goto nomem;
	for (uint64_t e = 0; e < g->nedges; e++) {
		deg[g->edge[e][0]]++;
		deg[g->edge[e][1]]++;
	}
	g->nvars = g->nedges;
	for (uint64_t v = 0; v < n; v++)
		g->inc_start[v + 1] = g->inc_start[v] + (deg[v] ? deg[v] : 1);
	g->inc = calloc(g->inc_start[n] + 1, sizeof(*g->inc));
	if (!g->inc)
		goto nomem;
	memset(deg, 0, (n + 1) * sizeof(*deg));
	for (uint64_t e = 0; e < g->nedges; e++)
		for (int side = 0; side < 2; side++) {
			uint64_t v = g->edge[e][side];
			g->inc[g->inc_start[v] + deg[v]++] = e;
		}
	for (uint64_t v = 0; v < n; v++)
		if (!deg[v])
			g->inc[g->inc_start[v]] = g->nvars++;
	free(deg);
	return 0;
nomem:
	free(deg);
	diag("gen indset", "out of memory");
	return -1;
}

/* Table 2 of the paper. Edge variables are y<e> (1-based). */
static void indset_program(struct gen_out *out, const struct graph *g, uint64_t k)
{
	for (uint64_t e = 0; e < g->nvars; e++)
		gen_out_reduction_event(out, "Init", UINT64_MAX, 'w', "y", e + 1, 0);
	for (uint64_t j = 1; j <= k; j++)
		gen_out_reduction_event(out, "Init", UINT64_MAX, 'w', "x", j, 1);
	gen_out_reduction_event(out, "Init", UINT64_MAX, 'w', "s", UINT64_MAX, 1);
	gen_out_reduction_event(out, "Init", UINT64_MAX, 'w', "p", 0, 1);
	for (uint64_t j = 1; j <= k; j++) {
		gen_out_reduction_event(out, "Checker", j, 'r', "p", j - 1, 1);
		if (j != k)
			gen_out_reduction_event(out, "Checker", j, 'w', "s", UINT64_MAX, 0);
		gen_out_reduction_event(out, "Checker", j, 'r', "x", j, 0);
		if (j == k)
			gen_out_reduction_event(out, "Checker", j, 'w', "s", UINT64_MAX, 1);
		gen_out_reduction_event(out, "Checker", j, 'w', "p", j, 1);
	}
	for (uint64_t j = 1; j <= k; j++)
		for (uint64_t v = 0; v < g->nvertices; v++) {
			const uint64_t *inc = g->inc + g->inc_start[v];
			uint64_t deg = g->inc_start[v + 1] - g->inc_start[v];
			for (uint64_t i = 0; i < deg; i++) { /* Start block */
				gen_out_reduction_event(out, "Sel", j, 'r', "y", inc[i] + 1, 0);
				gen_out_reduction_event(out, "Sel", j, 'w', "y", inc[i] + 1,
							(int64_t)j);
			}
			gen_out_reduction_event(out, "Sel", j, 'r', "s", UINT64_MAX, 1);
			gen_out_reduction_event(out, "Sel", j, 'w', "x", j, 0);
			gen_out_reduction_event(out, "Sel", j, 'w', "x", j, 1);
			for (uint64_t i = 0; i < deg; i++) {
				gen_out_reduction_event(out, "Sel", j, 'r', "y", inc[i] + 1,
							(int64_t)j);
				gen_out_reduction_event(out, "Sel", j, 'w', "y", inc[i] + 1, 0);
			}
		}
}

static const char indset_usage[] = "usage: vsc gen indset --k K [-o FILE] GRAPH-FILE\n"
				   "  GRAPH-FILE in DIMACS edge format (p edge N M / e U V)\n"
				   "  the program is consistent with -p 3K iff the graph has an\n"
				   "  independent set of K vertices\n";

int gen_indset(int argc, char **argv)
{
	uint64_t k = 0, seed = 0;
	const char *outpath = NULL, *pos[1];
	size_t npos;
	const struct gen_opt opts[] = {
		{ "k", 'k', GEN_OPT_U64, &k, NULL },
		{ "seed", 0, GEN_OPT_U64, &seed, NULL }, /* accepted, unused */
		{ "output", 'o', GEN_OPT_STR, &outpath, NULL },
	};
	int r = gen_parse_opts("indset", indset_usage, argc, argv, opts,
			       sizeof(opts) / sizeof(opts[0]), pos, 1, &npos);
	if (r)
		return r > 0 ? 0 : 2;
	if (npos != 1 || k < 1) {
		fputs(indset_usage, stderr);
		return 2;
	}
	struct graph g;
	struct gen_out *out = NULL;
	if (graph_read(&g, pos[0]) || graph_index(&g) || !(out = gen_out_start(outpath)))
		goto done;
	gen_out_trace_header(out, "indset", argc, argv);
	gen_out_str(out, "# paper Section 4.3 reduction: ");
	gen_out_u64(out, g.nvertices);
	gen_out_str(out, " vertices, ");
	gen_out_u64(out, g.nedges);
	gen_out_str(out, " edges, k = ");
	gen_out_u64(out, k);
	gen_out_str(out, "\n# consistent with -p ");
	gen_out_u64(out, 3 * k);
	gen_out_str(out, " iff the graph has an independent set of size k\n");
	indset_program(out, &g, k);
done:
	graph_free(&g);
	return gen_out_end(out);
}

/* ---- random graphs -------------------------------------------------------- */

static const char graph_usage[] =
	"usage: vsc gen graph --vertices N --edges M [--seed S] [-o FILE]\n"
	"  a random simple graph (no loops, no repeated edges), DIMACS edge format\n";

int gen_graph(int argc, char **argv)
{
	uint64_t n = 6, m = 6, seed = 0;
	const char *outpath = NULL, *pos[1];
	size_t npos;
	const struct gen_opt opts[] = {
		{ "vertices", 0, GEN_OPT_U64, &n, NULL },
		{ "edges", 0, GEN_OPT_U64, &m, NULL },
		{ "seed", 0, GEN_OPT_U64, &seed, NULL },
		{ "output", 'o', GEN_OPT_STR, &outpath, NULL },
	};
	int r = gen_parse_opts("graph", graph_usage, argc, argv, opts,
			       sizeof(opts) / sizeof(opts[0]), pos, 0, &npos);
	if (r)
		return r > 0 ? 0 : 2;
	if (n < 2 || n > 100000 || m > n * (n - 1) / 2) {
		diag("gen graph", "need 2 <= N <= 100000 and M <= N(N-1)/2");
		return 2;
	}
	/* pick M of the N(N-1)/2 pairs by selection sampling, in order */
	uint64_t pairs = n * (n - 1) / 2, need = m;
	struct gen_rng rng;
	gen_rng_seed(&rng, seed);
	struct gen_out *out = gen_out_start(outpath);
	if (!out)
		return 2;
	gen_out_dimacs_header(out, "graph", argc, argv, "edge", n, m);
	for (uint64_t u = 1; u < n && need; u++)
		for (uint64_t v = u + 1; v <= n && need; v++, pairs--)
			if (gen_rng_below(&rng, pairs) < need) {
				gen_out_str(out, "e ");
				gen_out_u64(out, u);
				gen_out_char(out, ' ');
				gen_out_u64(out, v);
				gen_out_char(out, '\n');
				need--;
			}
	return gen_out_end(out);
}
