/*
 * py_layout.h - where CPython 3.11 keeps what the Python frame readers
 * read, on 64-bit Linux (Include/cpython/pystate.h,
 * Include/internal/pycore_frame.h, Include/cpython/code.h,
 * Include/cpython/unicodeobject.h, Include/cpython/bytesobject.h), as
 * py-spy keeps them per version. tests/unit/py_offsets.sh checks every
 * #define here against the interpreter's own headers.
 */
#ifndef HPROF_PY_LAYOUT_H
#define HPROF_PY_LAYOUT_H

/* PyThreadState */
#define TS_CFRAME 56
#define TS_THREAD_ID 152
/* _PyCFrame */
#define CF_CURRENT 8
#define CF_PREVIOUS 16
#define CF_END 24
/* _PyInterpreterFrame: the fields read, [FR_CODE, FR_END) */
#define FR_CODE 32
#define FR_PREVIOUS 48
#define FR_PREV_INSTR 56
#define FR_IS_ENTRY 68
#define FR_END 72
/* PyCodeObject: the fields read, [OB_TYPE, CO_END) */
#define OB_TYPE 8
#define OB_SIZE 16 /* a code object's: its instructions, in code units */
#define CO_FIRSTLINE 72
#define CO_FILENAME 112
#define CO_QUALNAME 128
#define CO_LINETABLE 136
#define CO_END 144
#define CO_CODE 184 /* co_code_adaptive: the first instruction */
/* PyASCIIObject / PyCompactUnicodeObject, PyBytesObject */
#define STR_LENGTH 16
#define STR_STATE 32
#define STR_ASCII_DATA 48
#define STR_DATA 72
#define BYTES_SIZE 16
#define BYTES_DATA 32

#endif
