/* timeline_drop.c - why rank 0 has no time line member. */
#include "report/merge/timeline_drop.h"

#include <stddef.h>

timeline_outcome timeline_outcome_of(int histograms, int streams, int member)
{
    if (!histograms)
        return TIMELINE_NONE;
    if (member)
        return TIMELINE_MEMBER;
    return streams == -1 ? TIMELINE_BROKEN : TIMELINE_NO_MEMORY;
}

const char *timeline_dropped_why(timeline_outcome o)
{
    switch (o) {
    case TIMELINE_BROKEN:
        return "a rank's records did not arrive whole (out of memory or a failed send on their way)";
    case TIMELINE_NO_MEMORY: return "rank 0 ran out of memory packing it";
    default: return NULL;
    }
}
