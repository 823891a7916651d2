#include "sim_queue.h"

#include <stdlib.h>

static int before(const sim_queue_item_t *a, const sim_queue_item_t *b)
{
    return a->wake < b->wake || (a->wake == b->wake && a->order < b->order);
}

static void place(sim_queue_t *q, size_t i, sim_queue_item_t *item)
{
    q->heap[i] = item;
    item->slot = i + 1;
}

/* Moves the item at i towards the root while it is due before its parent. */
static void sift_up(sim_queue_t *q, size_t i)
{
    sim_queue_item_t *item = q->heap[i];
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!before(item, q->heap[parent]))
            break;
        place(q, i, q->heap[parent]);
        i = parent;
    }
    place(q, i, item);
}

/* Moves the item at i towards the leaves while a child is due before it. */
static void sift_down(sim_queue_t *q, size_t i)
{
    sim_queue_item_t *item = q->heap[i];
    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= q->len)
            break;
        if (child + 1 < q->len && before(q->heap[child + 1], q->heap[child]))
            child++;
        if (!before(q->heap[child], item))
            break;
        place(q, i, q->heap[child]);
        i = child;
    }
    place(q, i, item);
}

void sim_queue_free(sim_queue_t *q)
{
    for (size_t i = 0; i < q->len; i++)
        q->heap[i]->slot = 0;
    free(q->heap);
    q->heap = NULL;
    q->len = q->cap = 0;
}

int sim_queue_put(sim_queue_t *q, sim_queue_item_t *item)
{
    size_t i;
    if (item->slot != 0) {
        /* its key may have moved either way */
        i = item->slot - 1;
        sift_up(q, i);
        sift_down(q, item->slot - 1);
        return 0;
    }
    if (q->len == q->cap) {
        size_t cap = q->cap ? q->cap * 2 : 64;
        sim_queue_item_t **grown = realloc(q->heap, cap * sizeof *grown);
        if (grown == NULL)
            return -1;
        q->heap = grown;
        q->cap = cap;
    }
    i = q->len++;
    place(q, i, item);
    sift_up(q, i);
    return 0;
}

void sim_queue_remove(sim_queue_t *q, sim_queue_item_t *item)
{
    size_t i;
    sim_queue_item_t *last;
    if (item->slot == 0)
        return;
    i = item->slot - 1;
    item->slot = 0;
    last = q->heap[--q->len];
    if (last == item)
        return;
    place(q, i, last);
    sift_up(q, i);
    sift_down(q, last->slot - 1);
}
