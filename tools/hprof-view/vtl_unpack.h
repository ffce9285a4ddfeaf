/*
 * vtl_unpack.h - the packed timeline member, hprof.timeline.z
 * (report/merge/timeline_file.h), versions 1 and 2, read straight into the
 * store (vtl_store.h): a series the file stores once is held once.
 */
#ifndef HPROF_VTL_UNPACK_H
#define HPROF_VTL_UNPACK_H

#include <stddef.h>

#include "tools/hprof-view/vtl_store.h"

#define VTL_MEMBER_PACKED "hprof.timeline.z"

/* 0: tl filled (path_cnode holding the file's cnode ids), not finished
 * (vtl_store_finish); -1 when the member is damaged, past the limits, or
 * memory is short (tl then holds what was read: vtl_store_free it). */
int vtl_unpack(const unsigned char *z, size_t zlen, timeline *tl);

#endif
