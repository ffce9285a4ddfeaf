#include "core/nounwind.h"

#include <stdlib.h>
#include <string.h>

#include "core/fn_table.h"
#include "core/log.h"

static void set_default(unsigned char *flags)
{
    for (int i = 0; i < hprof_fn_count; i++)
        flags[i] = (hprof_fn_table[i].flags & HPROF_FN_NOUNWIND_DEFAULT) != 0;
}

/* Applies one token; returns 0 if it named something. */
static int apply_token(unsigned char *flags, const char *tok)
{
    int found = 0;
    if (strcmp(tok, "none") == 0)
        return 0;
    if (strcmp(tok, "default") == 0) {
        for (int i = 0; i < hprof_fn_count; i++)
            flags[i] |= (hprof_fn_table[i].flags & HPROF_FN_NOUNWIND_DEFAULT) != 0;
        return 0;
    }
    for (int i = 0; i < hprof_fn_count; i++) {
        if (strcmp(tok, "all") == 0 || strcasecmp(tok, hprof_fn_table[i].name) == 0 ||
            strcmp(tok, hprof_fn_table[i].group) == 0) {
            flags[i] = 1;
            found = 1;
        }
    }
    return found ? 0 : -1;
}

unsigned char *nounwind_parse(const char *spec)
{
    unsigned char *flags = calloc((size_t)hprof_fn_count + 1, 1);
    if (!flags)
        return NULL;
    if (!spec) {
        set_default(flags);
        return flags;
    }
    char tok[128];
    const char *p = spec;
    while (*p) {
        size_t n = strcspn(p, ",");
        if (n > 0 && n < sizeof tok) {
            memcpy(tok, p, n);
            tok[n] = '\0';
        }
        if (n == 0 || n >= sizeof tok || apply_token(flags, tok) != 0) {
            hprof_say("HPROF_NOUNWIND='%s': '%.*s' is not an MPI function, group, 'default', 'all' "
                      "or 'none'; using the default set",
                      spec, (int)n, p);
            set_default(flags);
            return flags;
        }
        p += n;
        if (*p == ',')
            p++;
    }
    return flags;
}
