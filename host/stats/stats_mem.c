/* What the views show of memory (docs/usage.md, "Memory"): the figures a device's HELLO says it
 * measures, in bytes, and nothing it does not. */
#include "stats.h"

#include "aioprof_wire.h"

void stats_mem_of(const stats_t *s, const stats_figures_t *f, stats_mem_t *m)
{
    stats_mem_figures(s->device.mem, s->elapsed_us, f, m);
}

void stats_mem_figures(uint32_t mem, uint64_t elapsed_us, const stats_figures_t *f, stats_mem_t *m)
{
    uint64_t unit = mem >> AIOPROF_MEM_UNIT_SHIFT;
    m->alloc_known = (mem & (AIOPROF_MEM_ALLOC_EXACT | AIOPROF_MEM_ALLOC_LOWER)) != 0 && unit != 0;
    m->alloc_lower = (mem & AIOPROF_MEM_ALLOC_EXACT) == 0;
    /* a hostile amount and unit cannot wrap: saturated */
    m->alloc_bytes = m->alloc_known ? (f->alloc > UINT64_MAX / unit ? UINT64_MAX : f->alloc * unit) : 0;
    m->alloc_per_s = m->alloc_known && elapsed_us ? (double)m->alloc_bytes * 1e6 / (double)elapsed_us : 0.0;
    m->gc_known = (mem & (AIOPROF_MEM_GC_COUNT | AIOPROF_MEM_GC_SOME)) != 0;
    m->gc_at_least = (mem & AIOPROF_MEM_GC_COUNT) == 0;
    m->gc_count = m->gc_known ? f->gc_count : 0;
    m->gc_timed = m->gc_known && (mem & AIOPROF_MEM_GC_TIME) != 0;
    m->gc_us = m->gc_timed ? f->gc_us : 0;
}

int stats_mem_known(const stats_t *s)
{
    stats_mem_t m;
    stats_figures_t none = {0};
    stats_mem_of(s, &none, &m);
    return m.alloc_known || m.gc_known;
}
