/* check.c - rank 0's outcome of the time line's streams and its line
 * (report/merge/timeline_drop.c): prints "drop ok N" or what is wrong. */
#include <stdio.h>
#include <string.h>

#include "report/merge/timeline_drop.h"

typedef struct expect {
    int histograms, streams, member;
    timeline_outcome outcome;
    const char *why; /* a word the line must hold; NULL: no line */
} expect;

static const expect cases[] = {
    { 0, 0, 0, TIMELINE_NONE, NULL },             /* no rank has a histogram */
    { 1, 0, 1, TIMELINE_MEMBER, NULL },           /* all came */
    { 1, -1, 0, TIMELINE_BROKEN, "failed send" }, /* a rank's stream broke */
    { 1, -2, 0, TIMELINE_NO_MEMORY, "memory" },   /* rank 0 could not take a stream */
    { 1, 0, 0, TIMELINE_NO_MEMORY, "memory" },    /* rank 0's pack or deflate failed */
};

int main(void)
{
    int n = (int)(sizeof cases / sizeof cases[0]), bad = 0;
    for (int i = 0; i < n; i++) {
        const expect *c = &cases[i];
        timeline_outcome o = timeline_outcome_of(c->histograms, c->streams, c->member);
        const char *why = timeline_dropped_why(o);
        if (o != c->outcome || (c->why ? !why || !strstr(why, c->why) : why != NULL)) {
            printf("case %d (histograms %d, streams %d, member %d): outcome %d, line '%s'\n", i,
                   c->histograms, c->streams, c->member, (int)o, why ? why : "(none)");
            bad++;
        }
    }
    if (!bad)
        printf("drop ok %d cases\n", n);
    return bad != 0;
}
