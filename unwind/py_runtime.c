/*
 * py_runtime.c - see py_runtime.h. Offsets are CPython 3.11's on 64-bit
 * Linux (Include/cpython/pystate.h, Include/internal/pycore_frame.h,
 * Include/cpython/code.h, Include/cpython/unicodeobject.h), as py-spy
 * keeps them per version.
 */
#define _GNU_SOURCE
#include "py_runtime.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "cct.h"
#include "log.h"
#include "py_codes.h"

/* PyThreadState */
#define TS_CFRAME      56
#define TS_THREAD_ID   152
/* _PyCFrame */
#define CF_CURRENT     8
#define CF_PREVIOUS    16
/* _PyInterpreterFrame: the fields read, [FR_CODE, FR_END) */
#define FR_CODE        32
#define FR_PREVIOUS    48
#define FR_PREV_INSTR  56
#define FR_IS_ENTRY    68
#define FR_END         72
/* PyCodeObject: the fields read, [OB_TYPE, CO_END) */
#define OB_TYPE        8
#define CO_FIRSTLINE   72
#define CO_FILENAME    112
#define CO_QUALNAME    128
#define CO_LINETABLE   136
#define CO_END         144
#define CO_CODE        184 /* co_code_adaptive: the first instruction */
/* PyASCIIObject / PyCompactUnicodeObject, PyBytesObject */
#define STR_LENGTH     16
#define STR_STATE      32
#define STR_ASCII_DATA 48
#define STR_DATA       72
#define BYTES_SIZE     16
#define BYTES_DATA     32

#define NAME_MAX_BYTES  255
#define FILE_MAX_BYTES  511
#define LINES_MAX_BYTES 16384
#define FRAMES_MAX      4096 /* per activation: a longer chain is a loop */

int py_runtime_on, py_runtime_samples_on;

static void *(*this_thread_state)(void);
static uint64_t code_type, unicode_type, bytes_type;
static uint64_t interp_lo, interp_hi, eval_lo, eval_hi; /* the object holding the loop; the loop */
static pid_t self_pid; /* forked children never sample (lib/runtime/sampler.c): no safe reads there */

/* ---- reading ------------------------------------------------------------- */

static int plausible(uint64_t a, size_t len)
{
    return a >= 4096 && a + len > a && a + len < (1ull << 47);
}

/* len bytes at src; in a signal handler through the kernel, which says
 * EFAULT where a plain load would fault. */
static int rd(void *dst, uint64_t src, size_t len, int safe)
{
    if (!plausible(src, len))
        return -1;
    if (!safe) {
        memcpy(dst, (const void *)(uintptr_t)src, len);
        return 0;
    }
    struct iovec l = { dst, len }, r = { (void *)(uintptr_t)src, len };
    return process_vm_readv(self_pid, &l, 1, &r, 1, 0) == (ssize_t)len ? 0 : -1;
}

/* Two reads in one system call in a signal handler (a frame's code
 * object and the next frame): 2 when both succeed, 1 when the first did. */
static int rd2(void *d1, uint64_t s1, size_t l1, void *d2, uint64_t s2, size_t l2, int safe)
{
    if (!plausible(s1, l1))
        return 0;
    if (!plausible(s2, l2))
        return rd(d1, s1, l1, safe) == 0 ? 1 : 0;
    if (!safe) {
        memcpy(d1, (const void *)(uintptr_t)s1, l1);
        memcpy(d2, (const void *)(uintptr_t)s2, l2);
        return 2;
    }
    struct iovec l[2] = { { d1, l1 }, { d2, l2 } };
    struct iovec r[2] = { { (void *)(uintptr_t)s1, l1 }, { (void *)(uintptr_t)s2, l2 } };
    ssize_t n = process_vm_readv(self_pid, l, 2, r, 2, 0);
    return n == (ssize_t)(l1 + l2) ? 2 : n >= (ssize_t)l1 ? 1 : 0;
}

static uint64_t get64(const unsigned char *b, int off)
{
    uint64_t v;
    memcpy(&v, b + off, 8);
    return v;
}

static int32_t get32(const unsigned char *b, int off)
{
    int32_t v;
    memcpy(&v, b + off, 4);
    return v;
}

/* ---- copies of names ------------------------------------------------------ */

/* A str object as UTF-8 in room (NUL-terminated, at most max bytes: the
 * end of a longer one is kept when keep_tail, e.g. a file name), or NULL. */
static char *copy_str(uint64_t obj, size_t max, int keep_tail, int safe)
{
    unsigned char h[STR_DATA];
    if ((obj & 7) || rd(h, obj, sizeof h, safe) != 0 || get64(h, OB_TYPE) != unicode_type)
        return NULL;
    uint64_t len = get64(h, STR_LENGTH);
    uint32_t state = (uint32_t)get32(h, STR_STATE);
    int kind = (state >> 2) & 7, compact = (state >> 5) & 1, ascii = (state >> 6) & 1;
    if (!compact || (kind != 1 && kind != 2 && kind != 4) || len > (1u << 20))
        return NULL; /* a legacy string: not in code objects */
    /* at most max bytes of UTF-8: a char takes 1 byte in an ASCII string,
     * up to 4 in others */
    uint64_t limit = ascii ? max : max / 4, n = len < limit ? len : limit;
    uint64_t from = keep_tail ? len - n : 0;
    _Alignas(4) unsigned char chars[FILE_MAX_BYTES + 1];
    uint64_t data = obj + (ascii ? STR_ASCII_DATA : STR_DATA) + from * (uint64_t)kind;
    if (n && rd(chars, data, n * (size_t)kind, safe) != 0)
        return NULL;
    char *out = py_codes_room(ascii ? n + 1 : n * 4 + 1);
    if (!out)
        return NULL;
    size_t o = 0;
    for (uint64_t i = 0; i < n; i++) {
        uint32_t c = kind == 1 ? chars[i] : kind == 2 ? ((const uint16_t *)chars)[i] : ((const uint32_t *)chars)[i];
        if (c < 0x80) {
            out[o++] = (char)c;
        } else if (c < 0x800) {
            out[o++] = (char)(0xC0 | c >> 6), out[o++] = (char)(0x80 | (c & 63));
        } else if (c < 0x10000) {
            out[o++] = (char)(0xE0 | c >> 12), out[o++] = (char)(0x80 | ((c >> 6) & 63));
            out[o++] = (char)(0x80 | (c & 63));
        } else {
            out[o++] = (char)(0xF0 | c >> 18), out[o++] = (char)(0x80 | ((c >> 12) & 63));
            out[o++] = (char)(0x80 | ((c >> 6) & 63)), out[o++] = (char)(0x80 | (c & 63));
        }
    }
    out[o] = '\0';
    return out;
}

/* A bytes object's first bytes (up to LINES_MAX_BYTES) in room. */
static const uint8_t *copy_bytes(uint64_t obj, uint32_t *len, int safe)
{
    unsigned char h[BYTES_DATA];
    if ((obj & 7) || rd(h, obj, sizeof h, safe) != 0 || get64(h, OB_TYPE) != bytes_type)
        return NULL;
    uint64_t n = get64(h, BYTES_SIZE);
    if (n > LINES_MAX_BYTES)
        n = LINES_MAX_BYTES; /* lines past the copy: the function's first line */
    uint8_t *out = (uint8_t *)py_codes_room(n ? n : 1);
    if (!out || (n && rd(out, obj + BYTES_DATA, n, safe) != 0))
        return NULL;
    *len = (uint32_t)n;
    return out;
}

/* The code table's entry of a code object (c: its fields read), copied
 * when new. */
static uint32_t code_entry(uint64_t code, const unsigned char *c, int safe)
{
    if (get64(c, OB_TYPE) != code_type)
        return PY_CODES_NONE;
    py_code_print p = { code, get64(c, CO_QUALNAME), get64(c, CO_FILENAME), get64(c, CO_LINETABLE),
                        get32(c, CO_FIRSTLINE) };
    int fresh;
    uint32_t id = py_codes_lookup(&p, &fresh);
    if (fresh) {
        uint32_t len = 0;
        const uint8_t *lines = copy_bytes(p.linetable, &len, safe);
        py_codes_publish(id, copy_str(p.qualname, NAME_MAX_BYTES, 0, safe),
                         copy_str(p.filename, FILE_MAX_BYTES, 1, safe), lines, len);
    }
    return id;
}

/* ---- frames ---------------------------------------------------------------- */

int py_runtime_activations(py_acts *a, uint64_t lo, uint64_t hi, int safe)
{
    a->n = 0;
    if (!py_runtime_on || (safe && !py_runtime_samples_on))
        return 0;
    uint64_t ts = (uint64_t)(uintptr_t)this_thread_state();
    unsigned char t[TS_THREAD_ID + 8 - TS_CFRAME];
    if (!ts || (ts & 7) || rd(t, ts + TS_CFRAME, sizeof t, safe) != 0 ||
        get64(t, TS_THREAD_ID - TS_CFRAME) != (uint64_t)pthread_self())
        return 0;
    uint64_t cf = get64(t, 0);
    /* CFrames lie on the stack in the order of their activations; the
     * chain ends at the thread state's root CFrame, off the stack */
    uint64_t last = lo;
    while (cf >= last && cf + 24 <= hi && a->n < PY_ACTS_MAX) {
        unsigned char b[24];
        if ((cf & 7) || rd(b, cf, sizeof b, safe) != 0)
            break;
        a->cframe[a->n] = cf;
        a->frame[a->n++] = get64(b, CF_CURRENT);
        last = cf + 24;
        cf = get64(b, CF_PREVIOUS);
    }
    return a->n;
}

int py_runtime_frames(uint64_t frame, uint64_t *keys, int max, int safe)
{
    unsigned char f[FR_END], next[FR_END], c[CO_END];
    if ((frame & 7) || rd(f + FR_CODE, frame + FR_CODE, FR_END - FR_CODE, safe) != 0)
        return -1;
    for (int n = 0; n < max && n < FRAMES_MAX;) {
        uint64_t code = get64(f, FR_CODE), prev_instr = get64(f, FR_PREV_INSTR);
        uint64_t prev = f[FR_IS_ENTRY] ? 0 : get64(f, FR_PREVIOUS);
        /* the code object's fields, and the next frame with them */
        if ((code & 7) || (prev & 7))
            return -1;
        int got = rd2(c + OB_TYPE, code + OB_TYPE, CO_END - OB_TYPE, next + FR_CODE, prev + FR_CODE,
                      FR_END - FR_CODE, safe);
        uint32_t id = got ? code_entry(code, c, safe) : PY_CODES_NONE;
        if (id == PY_CODES_NONE)
            return -1;
        /* prev_instr: the code unit before the next instruction (the
         * current call's, or the code's first - 1 in a new frame) */
        uint64_t first = code + CO_CODE;
        uint64_t unit = prev_instr > first ? (prev_instr - first) / 2 : 0;
        keys[n++] = CCT_KEY_PY(id, unit > CCT_KEY_PY_OFFSET_MAX ? CCT_KEY_PY_OFFSET_MAX : unit);
        if (!prev)
            return n; /* the activation's entry frame */
        if (got < 2)
            return -1;
        memcpy(f + FR_CODE, next + FR_CODE, FR_END - FR_CODE);
    }
    return -1;
}

/* ---- finding CPython ----------------------------------------------------------- */

int py_runtime_in_eval(uint64_t pc)
{
    return pc >= eval_lo && pc < eval_hi;
}

/* The loaded object holding addr: its executable segments' range. */
static int find_object(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    uint64_t addr = *(uint64_t *)data, lo = UINT64_MAX, hi = 0;
    int holds = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
            continue;
        uint64_t s = info->dlpi_addr + ph->p_vaddr, e = s + ph->p_memsz;
        holds |= addr >= s && addr < e;
        lo = s < lo ? s : lo;
        hi = e > hi ? e : hi;
    }
    if (!holds)
        return 0;
    interp_lo = lo;
    interp_hi = hi;
    return 1;
}

/* The evaluation loop's main part, from its dynamic symbol's size. */
static void find_eval(void *eval)
{
    Dl_info info;
    const ElfW(Sym) *sym = NULL;
    if (dladdr1(eval, &info, (void **)&sym, RTLD_DL_SYMENT) && sym && sym->st_size) {
        eval_lo = (uint64_t)(uintptr_t)eval;
        eval_hi = eval_lo + sym->st_size;
    }
}

/* process_vm_readv on ourselves: refused by some sandboxes (seccomp). */
static int safe_reads_work(void)
{
    uint64_t probe = 0x5079667261ull, got = 0;
    return rd(&got, (uint64_t)(uintptr_t)&probe, sizeof got, 1) == 0 && got == probe;
}

void py_runtime_init(int enabled)
{
    const unsigned long *version = dlsym(RTLD_DEFAULT, "Py_Version");
    const char *(*version_text)(void) = (const char *(*)(void))dlsym(RTLD_DEFAULT, "Py_GetVersion");
    if (!version && !version_text)
        return; /* not a Python program */
    if (!enabled) {
        hprof_verbose(1, "Python: HPROF_PYTHON=0, call paths keep the interpreter's C frames");
        return;
    }
    if (!version || (*version >> 16) != 0x030B) {
        const char *v = version_text ? version_text() : "?"; /* "3.12.1 (main, ...)" */
        hprof_verbose(1, "Python %.*s: call paths keep the interpreter's C frames (Python functions are named "
                         "with CPython 3.11 only)", (int)strcspn(v, " "), v);
        return;
    }
    void *eval = dlsym(RTLD_DEFAULT, "_PyEval_EvalFrameDefault");
    this_thread_state = (void *(*)(void))dlsym(RTLD_DEFAULT, "PyGILState_GetThisThreadState");
    code_type = (uint64_t)(uintptr_t)dlsym(RTLD_DEFAULT, "PyCode_Type");
    unicode_type = (uint64_t)(uintptr_t)dlsym(RTLD_DEFAULT, "PyUnicode_Type");
    bytes_type = (uint64_t)(uintptr_t)dlsym(RTLD_DEFAULT, "PyBytes_Type");
    uint64_t at = (uint64_t)(uintptr_t)eval;
    if (!eval || !this_thread_state || !code_type || !unicode_type || !bytes_type ||
        !dl_iterate_phdr(find_object, &at) || py_codes_init() != 0) {
        hprof_verbose(1, "Python 3.11: its symbols were not all found; call paths keep the interpreter's C frames");
        return;
    }
    find_eval(eval);
    self_pid = getpid();
    py_runtime_samples_on = safe_reads_work();
    if (!py_runtime_samples_on)
        hprof_verbose(1, "Python 3.11: process_vm_readv is refused here: samples keep the interpreter's C frames");
    py_codes_set_interpreter(interp_lo, interp_hi);
    py_runtime_on = 1;
    hprof_verbose(1, "Python 3.11: call paths name Python functions");
}
