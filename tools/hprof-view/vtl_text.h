/*
 * vtl_text.h - the time line member of profiles before the packed one, the
 * text hprof.timeline (its lines: report/merge/timeline_file.h), read into
 * the store (vtl_store.h), each row a series of its own.
 */
#ifndef HPROF_VTL_TEXT_H
#define HPROF_VTL_TEXT_H

#include <stddef.h>

#include "tools/hprof-view/vtl_store.h"

#define VTL_MEMBER "hprof.timeline"

/* text: the member, len bytes, NUL-terminated; changed while read. 0: tl
 * filled (path_cnode holding the file's cnode ids), not finished
 * (vtl_store_finish); -1 when malformed or memory is short (tl then holds
 * what was read: vtl_store_free it). */
int vtl_text_read(char *text, size_t len, timeline *tl);

#endif
