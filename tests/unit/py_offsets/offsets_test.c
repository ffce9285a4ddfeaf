/* py_offsets: unwind/python/py_layout.h's CPython 3.11 offsets (its #defines,
 * pasted in by py_offsets.sh as offsets.h) against the interpreter's own
 * headers. Prints one ok/not ok line. */
#define Py_BUILD_CORE 1
#include <Python.h>
#include <internal/pycore_frame.h>
#include <stddef.h>
#include <stdio.h>

#include "offsets.h"

static int bad;
static char first[200];

static void same(const char *what, size_t header, size_t ours)
{
    if (header != ours && bad++ == 0)
        snprintf(first, sizeof first, "%s is at %zu in the headers, %zu in py_layout.h", what, header, ours);
}

#define SAME(type, field, ours) same(#type "." #field, offsetof(type, field), ours)

int main(void)
{
    SAME(PyThreadState, cframe, TS_CFRAME);
    SAME(PyThreadState, thread_id, TS_THREAD_ID);
    SAME(_PyCFrame, current_frame, CF_CURRENT);
    SAME(_PyCFrame, previous, CF_PREVIOUS);
    same("_PyCFrame's size", sizeof(_PyCFrame), CF_END);
    SAME(_PyInterpreterFrame, f_code, FR_CODE);
    SAME(_PyInterpreterFrame, previous, FR_PREVIOUS);
    SAME(_PyInterpreterFrame, prev_instr, FR_PREV_INSTR);
    SAME(_PyInterpreterFrame, is_entry, FR_IS_ENTRY);
    same("_PyInterpreterFrame.is_entry's end",
         offsetof(_PyInterpreterFrame, is_entry) + 1 <= FR_END ? FR_END : 0, FR_END);
    SAME(PyObject, ob_type, OB_TYPE);
    SAME(PyVarObject, ob_size, OB_SIZE);
    SAME(PyCodeObject, co_firstlineno, CO_FIRSTLINE);
    SAME(PyCodeObject, co_filename, CO_FILENAME);
    SAME(PyCodeObject, co_qualname, CO_QUALNAME);
    SAME(PyCodeObject, co_linetable, CO_LINETABLE);
    same("PyCodeObject.co_linetable's end", offsetof(PyCodeObject, co_linetable) + 8, CO_END);
    SAME(PyCodeObject, co_code_adaptive, CO_CODE);
    SAME(PyASCIIObject, length, STR_LENGTH);
    SAME(PyASCIIObject, state, STR_STATE);
    same("PyASCIIObject's size (ASCII data)", sizeof(PyASCIIObject), STR_ASCII_DATA);
    same("PyCompactUnicodeObject's size (data)", sizeof(PyCompactUnicodeObject), STR_DATA);
    SAME(PyVarObject, ob_size, BYTES_SIZE);
    SAME(PyBytesObject, ob_sval, BYTES_DATA);
    /* the state bits read: kind 2..4, compact 5, ascii 6 */
    PyASCIIObject o = { 0 };
    o.state.kind = 7;
    o.state.compact = 1;
    o.state.ascii = 1;
    unsigned bits;
    memcpy(&bits, (const char *)&o + STR_STATE, sizeof bits);
    same("PyASCIIObject.state's kind, compact and ascii bits", bits & 0x7C, 0x7C);
    if (bad)
        printf("not ok - py_offsets: %d offsets differ from CPython 3.11's headers; first: %s\n", bad, first);
    else
        printf("ok - py_offsets: unwind/python/py_layout.h's offsets are CPython %s's (its headers)\n",
               PY_VERSION);
    return 0;
}
