/* The simulator's run queue: the tasks that are ready or sleeping, ordered by when they are due
 * (wake) and, among tasks due together, first come first served (order). A binary heap, so that
 * picking the next task costs O(log n) and a workload of thousands of tasks (--tasks) runs as
 * fast as one of forty; the order it picks in is the one a scan of every task would give, since
 * no two items have the same (wake, order).
 *
 * The queue knows items, not tasks: a task embeds one item (sim_sched.h) and the queue keeps
 * the item's place in it, so that the item can be moved or taken out without a search. */
#ifndef SIM_QUEUE_H
#define SIM_QUEUE_H

#include <stddef.h>
#include <stdint.h>

typedef struct sim_queue_item {
    uint64_t wake;   /* due at this device time */
    uint64_t order;  /* unique: first come, first served among items due together */
    size_t slot;     /* the queue's: 0 when not queued, else the place in the heap plus one */
} sim_queue_item_t;

typedef struct sim_queue {
    sim_queue_item_t **heap;
    size_t len;
    size_t cap;
} sim_queue_t;

void sim_queue_free(sim_queue_t *q);

/* Puts the item in the queue, or moves it there after its wake or order changed. Returns 0, or
 * -1 when out of memory (the item is then not queued). */
int sim_queue_put(sim_queue_t *q, sim_queue_item_t *item);

/* Takes the item out of the queue; nothing happens when it is not queued. */
void sim_queue_remove(sim_queue_t *q, sim_queue_item_t *item);

/* The item due first, left in the queue; NULL when the queue is empty. */
static inline sim_queue_item_t *sim_queue_first(const sim_queue_t *q)
{
    return q->len ? q->heap[0] : NULL;
}

#endif
