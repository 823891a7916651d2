/* The simulator's only source of randomness: splitmix64, so that one --seed gives the same
 * workload, the same bytes and the same ground truth on every machine. */
#ifndef SIM_RNG_H
#define SIM_RNG_H

#include <stdint.h>

typedef struct sim_rng {
    uint64_t state;
} sim_rng_t;

static inline void sim_rng_seed(sim_rng_t *r, uint64_t seed)
{
    r->state = seed;
}

static inline uint64_t sim_rng_next(sim_rng_t *r)
{
    uint64_t z = (r->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in [lo, hi] (hi >= lo). The modulo bias is far below anything a test could see. */
static inline uint64_t sim_rng_range(sim_rng_t *r, uint64_t lo, uint64_t hi)
{
    return lo + sim_rng_next(r) % (hi - lo + 1u);
}

/* 1 with probability percent/100. */
static inline int sim_rng_chance(sim_rng_t *r, unsigned percent)
{
    return sim_rng_next(r) % 100u < percent;
}

#endif
