/*
 * vtl_unpack.h - the packed timeline member, hprof.timeline.z
 * (report/merge/timeline_file.h), turned into the text form of the member
 * hprof.timeline that profiles before it hold, which vtl_data.c reads:
 * one reader of the content for both.
 */
#ifndef HPROF_VTL_UNPACK_H
#define HPROF_VTL_UNPACK_H

#include <stddef.h>

#define VTL_MEMBER_PACKED "hprof.timeline.z"

/* The text (malloc'd, NUL-terminated, *len its length), or NULL when the
 * member is damaged, would unpack past the limits, or memory is short. */
char *vtl_unpack_text(const unsigned char *z, size_t zlen, size_t *len);

#endif
