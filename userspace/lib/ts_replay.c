/* SPDX-License-Identifier: MIT */
/* Recorded traces carry a timestamp hint on every event (`@N`), and the
 * order of the hints is usually an order the memory saw. So when every
 * event has one, the events are first replayed in that order: each thread
 * in program order, and at each step the thread whose next event has the
 * least hint (ties: the lower thread number), by a k-way merge on a binary
 * heap. If every read sees, in that order, the value last written (or the
 * initial value), the order is an SC interleaving: a witness, with the
 * preemptions it has. A hint never changes the answer: a replay that fails
 * (or has more preemptions than the bound asks) concludes nothing, and the
 * other solvers decide. Linear in events (log threads per step), a word per
 * thread: a worker pool of 10^5 threads is one pass, where the search's
 * state key holds a word per thread and the saturation a vector of every
 * thread per event (docs/solvers.md, "Timestamp replay"). */
#include "ts_replay.h"

#include <errno.h>
#include <stdlib.h>

#define TS_REPLAY_CHUNK 4096 /* steps between looks at the budget */

struct replay {
	const struct vsc_program *p;
	uint32_t *heap; /* threads with events left, least next hint first */
	uint32_t *pos;  /* per thread: events replayed */
	uint32_t nheap;
	int64_t *value; /* per variable: its value, when state is 2 */
	uint8_t *state; /* per variable: 0 no value yet, 1 unknown initial value, 2 value */
};

static uint64_t next_hint(const struct replay *rp, uint32_t t)
{
	return rp->p->threads[t].ts[rp->pos[t]];
}

static int before(const struct replay *rp, uint32_t a, uint32_t b)
{
	uint64_t ha = next_hint(rp, a), hb = next_hint(rp, b);

	return ha < hb || (ha == hb && a < b);
}

static void sift_down(struct replay *rp, uint32_t i)
{
	for (;;) {
		uint32_t least = i, l = 2 * i + 1, r = l + 1, t;
		if (l < rp->nheap && before(rp, rp->heap[l], rp->heap[least]))
			least = l;
		if (r < rp->nheap && before(rp, rp->heap[r], rp->heap[least]))
			least = r;
		if (least == i)
			return;
		t = rp->heap[i];
		rp->heap[i] = rp->heap[least];
		rp->heap[least] = t;
		i = least;
	}
}

/* Does event e see the value memory holds? Then run it. */
static int replay_event(struct replay *rp, const struct vsc_event *e)
{
	uint32_t x = e->var;

	if (e->kind != VSC_WRITE) {
		if (rp->state[x] == 0 || (rp->state[x] == 2 && rp->value[x] != e->value))
			return 0;
		rp->state[x] = 2; /* init x ?: the first read fixes it */
		rp->value[x] = e->value;
	}
	if (e->kind != VSC_READ) {
		rp->state[x] = 2;
		rp->value[x] = e->kind == VSC_RMW ? e->new_value : e->value;
	}
	return 1;
}

/* Every thread with events has a hint on each (a thread's hints are all
 * present or all absent: the model keeps them per thread, 0 where a line
 * had none, and a 0 is a hint like any other). */
static int all_hinted(const struct vsc_program *p)
{
	for (uint32_t t = 0; t < program_threads(p); t++)
		if (p->threads[t].length && !p->threads[t].ts)
			return 0;
	return 1;
}

/* The replay into witness: 1 when every read saw its value, 0 when one
 * did not, -ETIME. */
static int replay(struct replay *rp, struct budget *b, uint32_t *witness)
{
	const struct vsc_program *p = rp->p;

	for (uint32_t t = 0; t < program_threads(p); t++)
		if (p->threads[t].length)
			rp->heap[rp->nheap++] = t;
	for (uint32_t i = rp->nheap / 2; i-- > 0;)
		sift_down(rp, i);
	for (size_t done = 0; rp->nheap > 0; done++) {
		uint32_t t = rp->heap[0];
		if (!replay_event(rp, &p->threads[t].events[rp->pos[t]]))
			return 0;
		witness[done] = t;
		if (++rp->pos[t] == p->threads[t].length)
			rp->heap[0] = rp->heap[--rp->nheap];
		sift_down(rp, 0);
		if ((done + 1) % TS_REPLAY_CHUNK == 0 && budget_spend(b, TS_REPLAY_CHUNK))
			return -ETIME;
	}
	return 1;
}

/* Does a witness with pre preemptions answer q? (--min: only when it has
 * none, the least there is.) */
static int answers(const struct query *q, long pre)
{
	if (q->minimize)
		return pre == 0;
	return q->bound < 0 || pre <= q->bound;
}

int ts_replay_witness(const struct vsc_program *p, struct budget *b, uint32_t **witness,
		      long *preemptions)
{
	uint32_t k = program_threads(p), nvars = program_vars(p);
	struct replay rp = { .p = p };
	uint32_t *order;
	long pre;
	int r = -ENOMEM;

	*witness = NULL;
	if (p->event_count == 0 || !all_hinted(p))
		return 0;
	rp.heap = malloc(((size_t)k + 1) * sizeof(uint32_t));
	rp.pos = calloc((size_t)k + 1, sizeof(uint32_t));
	rp.value = malloc(((size_t)nvars + 1) * sizeof(int64_t));
	rp.state = malloc((size_t)nvars + 1);
	order = malloc(p->event_count * sizeof(uint32_t));
	if (rp.heap && rp.pos && rp.value && rp.state && order) {
		for (uint32_t x = 0; x < nvars; x++) {
			rp.state[x] = p->inits[x].kind == VSC_INIT_KNOWN     ? 2
				      : p->inits[x].kind == VSC_INIT_UNKNOWN ? 1
									     : 0;
			rp.value[x] = p->inits[x].value;
		}
		r = replay(&rp, b, order);
	}
	if (r == 1) {
		pre = count_preemptions(p, order, p->event_count);
		if (pre < 0) {
			r = (int)pre;
		} else {
			*witness = order;
			*preemptions = pre;
			order = NULL;
		}
	}
	free(order);
	free(rp.heap);
	free(rp.pos);
	free(rp.value);
	free(rp.state);
	return r;
}

int ts_replay_solve(const struct vsc_program *p, const struct query *q, struct budget *b,
		    struct vsc_result *res)
{
	uint32_t *witness;
	long pre;
	int r = ts_replay_witness(p, b, &witness, &pre);

	if (r < 0)
		return r;
	if (r == 0 || !answers(q, pre)) {
		free(witness);
		return TS_REPLAY_OPEN;
	}
	res->verdict = VSC_CONSISTENT;
	res->witness = witness;
	res->witness_length = p->event_count;
	res->preemptions = res->lower = pre;
	return TS_REPLAY_DECIDED;
}
