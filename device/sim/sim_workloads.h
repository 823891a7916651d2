/* The named workloads: what the simulated application does. Each one creates its first task; the
 * tasks' step functions do the rest. */
#ifndef SIM_WORKLOADS_H
#define SIM_WORKLOADS_H

#include <stdio.h>

struct sim;

/* The busy workload's number of tasks unless --tasks says otherwise. */
#define SIM_BUSY_TASKS 40u

typedef struct sim_workload {
    const char *name;
    const char *about;
    void (*start)(struct sim *s);
} sim_workload_t;

/* NULL when there is no workload of that name. */
const sim_workload_t *sim_workload_find(const char *name);

/* "seed, instances, busy or nested" */
void sim_workloads_print_names(FILE *f);

/* One line per workload: its name and what it does. */
void sim_workloads_print_help(FILE *f);

#endif
