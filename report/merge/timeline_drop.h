/*
 * timeline_drop.h - what became of the time line at rank 0 (issue 41):
 * where some rank has a histogram and rank 0 ends with no member, the
 * profile is written without it and rank 0 says why in one line, rather
 * than the member missing without a word. No MPI here: the streams'
 * outcome (timeline_file.c) decides.
 */
#ifndef HPROF_TIMELINE_DROP_H
#define HPROF_TIMELINE_DROP_H

typedef enum timeline_outcome {
    TIMELINE_NONE,      /* no rank has a histogram: no member, nothing to say */
    TIMELINE_MEMBER,    /* the member is made */
    TIMELINE_BROKEN,    /* a rank's records did not come whole */
    TIMELINE_NO_MEMORY, /* rank 0 ran out of memory */
} timeline_outcome;

/* Rank 0's outcome: histograms (some rank has one), streams (0: every
 * record came whole; -1: a stream broke; -2: rank 0 had no memory to
 * take one), member (made). */
timeline_outcome timeline_outcome_of(int histograms, int streams, int member);

/* Why the time line is dropped, for rank 0's line; NULL where it is not. */
const char *timeline_dropped_why(timeline_outcome o);

#endif
