/* print_vars.c - the configuration table seen from outside (config_vars.sh).
 *   print_vars names   one line per row: "user NAME" or "test NAME"
 *   print_vars load    loads the environment, prints the settings */
#include <stdio.h>
#include <string.h>

#include "core/config.h"

static void print_names(void)
{
    int n;
    const hprof_var *v = hprof_config_vars(&n);
    for (int i = 0; i < n; i++)
        printf("%s %s\n",
               v[i].flags & HPROF_VAR_TEST_KNOB  ? "test"
               : v[i].flags & HPROF_VAR_INTERNAL ? "internal"
                                                 : "user",
               v[i].name);
}

static void print_settings(void)
{
    hprof_config_load();
    const hprof_config_t *c = &hprof_config;
    printf("output=%s hz=%d clock=%d nounwind=%s thunks=%d metrics=%s verbose=%d "
           "max_nodes=%d compress=%d buckets=%d\n",
           c->output ? c->output : "-", c->sampling_hz, c->sampling_clock, c->nounwind ? c->nounwind : "-",
           c->thunks, c->metrics ? c->metrics : "-", c->verbose, c->max_nodes, c->compress, c->time_buckets);
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "names") == 0)
        print_names();
    else if (argc == 2 && strcmp(argv[1], "load") == 0)
        print_settings();
    else
        return 2;
    return 0;
}
