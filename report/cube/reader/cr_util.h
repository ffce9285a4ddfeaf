/*
 * cr_util.h - small helpers shared by the CUBE reader's modules: one-line
 * error formatting and overflow-checked array growth.
 */
#ifndef HPROF_CR_UTIL_H
#define HPROF_CR_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* Formats a one-line message into err (newlines replaced). Returns -1. */
int cr_err(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Makes room for one more element in *arr (count *n, capacity *cap).
 * Returns 0, or -1 when out of memory or past max elements. */
int cr_grow(void **arr, int n, int *cap, size_t elem, int max);

/* A zeroed array of n doubles for metric values. Large arrays ask for
 * transparent huge pages: page faults, not arithmetic, dominate loading
 * big profiles. Release with free(). NULL when out of memory. */
double *cr_alloc_values(size_t n);

/* strdup that returns NULL only for NULL input or out of memory. */
char *cr_strdup(const char *s);
/* Copies len bytes into a new NUL-terminated string. */
char *cr_strndup(const char *s, size_t len);

/* Byte-order helpers: read a value stored in the file's byte order. */
uint16_t cr_get16(const unsigned char *p, int swap);
uint32_t cr_get32(const unsigned char *p, int swap);
uint64_t cr_get64(const unsigned char *p, int swap);

#endif
