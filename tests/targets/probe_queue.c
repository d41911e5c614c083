/* SPDX-License-Identifier: MIT */
/* A bounded lock-free multi-producer multi-consumer queue (per-cell sequence
 * numbers, compare-and-swap on the positions), 2 producers and 2 consumers
 * passing ITERATIONS values each. The cells are one global array, so the
 * trace names them queue_cells:OFFSET. Every run is sequentially consistent
 * on any hardware: a full fence follows every access (EXP_FENCED,
 * expect.h); the relaxed helpers alone would be enough on x86-64 only. */
#include <sched.h>

#define EXP_FENCED
#include "expect.h"

#define CELLS 16 /* a power of 2 */
struct cell {
	int64_t seq;
	int64_t value;
};
struct cell queue_cells[CELLS];
int64_t enqueue_pos, dequeue_pos;
static long iterations;
static int64_t consumed_sum[2];

#define OFF(c, field) (unsigned)((char *)&(c)->field - (char *)queue_cells)

static int enqueue(int64_t v)
{
	int64_t pos = t_load(&enqueue_pos, "enqueue_pos", 0);
	struct cell *c;
	for (;;) {
		c = &queue_cells[pos & (CELLS - 1)];
		int64_t seq = t_load(&c->seq, "queue_cells", OFF(c, seq));
		if (seq == pos) {
			if (t_cas(&enqueue_pos, &pos, pos + 1, "enqueue_pos", 0))
				break;
		} else if (seq < pos) {
			return 0; /* full */
		} else {
			pos = t_load(&enqueue_pos, "enqueue_pos", 0);
		}
	}
	t_store(&c->value, v, "queue_cells", OFF(c, value));
	t_store(&c->seq, pos + 1, "queue_cells", OFF(c, seq));
	return 1;
}

static int dequeue(int64_t *v)
{
	int64_t pos = t_load(&dequeue_pos, "dequeue_pos", 0);
	struct cell *c;
	for (;;) {
		c = &queue_cells[pos & (CELLS - 1)];
		int64_t seq = t_load(&c->seq, "queue_cells", OFF(c, seq));
		if (seq == pos + 1) {
			if (t_cas(&dequeue_pos, &pos, pos + 1, "dequeue_pos", 0))
				break;
		} else if (seq < pos + 1) {
			return 0; /* empty */
		} else {
			pos = t_load(&dequeue_pos, "dequeue_pos", 0);
		}
	}
	*v = t_load(&c->value, "queue_cells", OFF(c, value));
	t_store(&c->seq, pos + CELLS, "queue_cells", OFF(c, seq));
	return 1;
}

static void *producer(void *arg)
{
	int64_t base = (intptr_t)arg * 1000000;
	for (long i = 1; i <= iterations; i++)
		while (!enqueue(base + i))
			sched_yield(); /* full: let a consumer run */
	return NULL;
}

static void *consumer(void *arg)
{
	int me = (int)(intptr_t)arg;
	int64_t v;
	for (long got = 0; got < iterations; got++) {
		while (!dequeue(&v))
			sched_yield(); /* empty: let a producer run */
		consumed_sum[me] += v;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t p[2], c[2];
	iterations = exp_start(argc, argv);
	if (iterations <= 0) {
		fprintf(stderr, "probe_queue: ITERATIONS must be > 0\n");
		return 2;
	}
	for (int i = 0; i < CELLS; i++)
		t_store(&queue_cells[i].seq, i, "queue_cells", OFF(&queue_cells[i], seq));
	for (int i = 0; i < 2; i++) {
		pthread_create(&p[i], NULL, producer, (void *)(intptr_t)(i + 1));
		pthread_create(&c[i], NULL, consumer, (void *)(intptr_t)i);
	}
	for (int i = 0; i < 2; i++) {
		pthread_join(p[i], NULL);
		pthread_join(c[i], NULL);
	}
	int64_t want = 0;
	for (long i = 1; i <= iterations; i++)
		want += 1000000 + i + 2000000 + i;
	if (consumed_sum[0] + consumed_sum[1] != want) {
		fprintf(stderr, "probe_queue: lost or doubled values\n");
		return 1;
	}
	exp_finish(argv[1]);
	return 0;
}
