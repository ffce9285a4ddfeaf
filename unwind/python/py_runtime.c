/*
 * py_runtime.c - see py_runtime.h.
 */
#define _GNU_SOURCE
#include "unwind/python/py_runtime.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>

#include "core/cct.h"
#include "core/log.h"
#include "core/real_dl.h"
#include "unwind/python/py_codes.h"
#include "unwind/python/py_ident.h"
#include "unwind/python/py_layout.h"
#include "unwind/python/py_read.h"

#define FRAMES_MAX (1 << 20)       /* an MPI call's chain: a longer one is a loop */
#define TOP_KEPT (PY_KEYS_MAX / 2) /* innermost frames kept of a long chain, at most */
#define SEEN_SLOTS (2 * PY_KEYS_MAX)

int py_runtime_on, py_runtime_samples_on;

static void *(*this_thread_state)(void);
static uint64_t interp_lo, interp_hi, eval_lo, eval_hi; /* the object holding the loop; the loop */

/* One activation's chain as read, innermost first: its first TOP_KEPT
 * frames, and its last PY_KEYS_MAX in a ring; then the frames the walk
 * keeps (of all its activations), their distinct code objects and
 * entries. */
struct py_thread {
    py_blocks blocks;
    int frames_left, nkept;
    uint64_t top_code[TOP_KEPT], ring_code[PY_KEYS_MAX];
    uint32_t top_unit[TOP_KEPT], ring_unit[PY_KEYS_MAX];
    uint64_t kept_code[PY_KEYS_MAX], distinct[PY_KEYS_MAX];
    uint32_t kept_unit[PY_KEYS_MAX], kept_which[PY_KEYS_MAX], ids[PY_KEYS_MAX];
    uint64_t seen_code[SEEN_SLOTS];
    uint32_t seen_stamp[SEEN_SLOTS], seen_which[SEEN_SLOTS], stamp;
    const void *steps_tree;
    py_step steps[PY_KEYS_MAX];
    py_ident_work ident;
};

static uint64_t get64(const unsigned char *b, int off)
{
    uint64_t v;
    memcpy(&v, b + off, 8);
    return v;
}

/* ---- the thread's room ----------------------------------------------------- */

py_thread *py_thread_create(void)
{
    if (!py_runtime_on)
        return NULL;
    void *p = mmap(NULL, sizeof(py_thread), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

void py_thread_free(py_thread *pt)
{
    if (pt)
        munmap(pt, sizeof *pt);
}

py_step *py_thread_steps(py_thread *pt, const void *tree)
{
    if (!pt)
        return NULL;
    if (pt->steps_tree != tree) {
        memset(pt->steps, 0, sizeof pt->steps);
        pt->steps_tree = tree;
    }
    return pt->steps;
}

void py_runtime_walk_start(py_thread *pt, int safe, uint64_t top_frame)
{
    py_blocks_start(&pt->blocks, safe ? PY_WALK_READS : 0, top_frame + FR_END);
    pt->frames_left = safe ? PY_WALK_FRAMES : FRAMES_MAX;
    pt->ident.new_left = PY_WALK_NEW;
    pt->nkept = 0;
}

/* ---- activations ------------------------------------------------------------- */

int py_runtime_activations(py_acts *a, uint64_t lo, uint64_t hi, int safe)
{
    a->n = 0;
    if (!py_runtime_on || (safe && !py_runtime_samples_on))
        return 0;
    uint64_t ts = (uint64_t)(uintptr_t)this_thread_state();
    unsigned char t[TS_THREAD_ID + 8 - TS_CFRAME];
    if (!ts || (ts & 7) || py_read(t, ts + TS_CFRAME, sizeof t, safe) != 0 ||
        get64(t, TS_THREAD_ID - TS_CFRAME) != (uint64_t)pthread_self())
        return 0;
    uint64_t cf = get64(t, 0);
    /* CFrames lie on the stack in the order of their activations; the
     * chain ends at the thread state's root CFrame, off the stack. On the
     * stack, between the walk's sp and its top, plain loads are safe. */
    uint64_t last = lo;
    while (cf >= last && cf + CF_END <= hi && !(cf & 7) && a->n < PY_ACTS_MAX) {
        const unsigned char *b = (const unsigned char *)(uintptr_t)cf;
        a->cframe[a->n] = cf;
        a->frame[a->n++] = get64(b, CF_CURRENT);
        last = cf + CF_END;
        cf = get64(b, CF_PREVIOUS);
    }
    return a->n;
}

/* ---- frames ------------------------------------------------------------------- */

/* Reads the chain from frame to its entry frame into top/ring: its
 * length, or -1. */
static int read_chain(py_thread *pt, uint64_t frame, int safe)
{
    for (int n = 0;; n++) {
        if (pt->frames_left-- <= 0 || (frame & 7))
            return -1;
        const unsigned char *f = py_blocks_read(&pt->blocks, frame + FR_CODE, FR_END - FR_CODE, safe);
        if (!f)
            return -1;
        uint64_t code = get64(f, 0), prev_instr = get64(f, FR_PREV_INSTR - FR_CODE);
        uint64_t prev = f[FR_IS_ENTRY - FR_CODE] ? 0 : get64(f, FR_PREVIOUS - FR_CODE);
        if (!code || (code & 7))
            return -1;
        /* prev_instr: the code unit before the next instruction (the
         * current call's, or the code's first - 1 in a new frame) */
        uint64_t first = code + CO_CODE;
        uint64_t unit = prev_instr > first ? (prev_instr - first) / 2 : 0;
        uint32_t u = unit > CCT_KEY_PY_OFFSET_MAX ? CCT_KEY_PY_OFFSET_MAX : (uint32_t)unit;
        if (n < TOP_KEPT) {
            pt->top_code[n] = code;
            pt->top_unit[n] = u;
        }
        pt->ring_code[n % PY_KEYS_MAX] = code;
        pt->ring_unit[n % PY_KEYS_MAX] = u;
        if (!prev)
            return n + 1; /* the activation's entry frame */
        frame = prev;
    }
}

static void keep(py_thread *pt, int j, uint64_t code, uint32_t unit)
{
    pt->kept_code[pt->nkept + j] = code;
    pt->kept_unit[pt->nkept + j] = unit;
}

/* The frames kept of a chain of len, outermost first, after those kept
 * before: all of them, or its outermost room / 2 and innermost rest, with
 * code 0 between them for the ones left out. Their count. */
static int keep_frames(py_thread *pt, int len, int room)
{
    if (len <= room) {
        for (int j = 0; j < len; j++)
            keep(pt, j, pt->ring_code[len - 1 - j], pt->ring_unit[len - 1 - j]);
        return len;
    }
    int base = room / 2, top = room - base - 1, j = 0;
    for (int i = len - 1; i >= len - base; i--, j++)
        keep(pt, j, pt->ring_code[i % PY_KEYS_MAX], pt->ring_unit[i % PY_KEYS_MAX]);
    keep(pt, j++, 0, 0);
    for (int i = top - 1; i >= 0; i--, j++)
        keep(pt, j, pt->top_code[i], pt->top_unit[i]);
    return j;
}

int py_runtime_chain(py_thread *pt, uint64_t frame, int room, int safe)
{
    if (room > PY_KEYS_MAX - pt->nkept)
        room = PY_KEYS_MAX - pt->nkept;
    if (room < 3)
        return -1;
    int len = read_chain(pt, frame, safe);
    if (len <= 0)
        return -1;
    int n = keep_frames(pt, len, room);
    pt->nkept += n;
    return n;
}

/* The distinct code objects of the frames kept (a recursion has one):
 * distinct[], and kept_which[j], frame j's among them. Their count. */
static int distinct_codes(py_thread *pt)
{
    int nd = 0;
    if (++pt->stamp == 0) {
        memset(pt->seen_stamp, 0, sizeof pt->seen_stamp);
        pt->stamp = 1;
    }
    for (int j = 0; j < pt->nkept; j++) {
        uint64_t c = pt->kept_code[j];
        if (!c)
            continue;
        unsigned s = (unsigned)((c >> 4) * 0x9E3779B97F4A7C15ull >> 40) & (SEEN_SLOTS - 1);
        while (pt->seen_stamp[s] == pt->stamp && pt->seen_code[s] != c)
            s = (s + 1) & (SEEN_SLOTS - 1);
        if (pt->seen_stamp[s] != pt->stamp) {
            pt->seen_stamp[s] = pt->stamp;
            pt->seen_code[s] = c;
            pt->seen_which[s] = (uint32_t)nd;
            pt->distinct[nd++] = c;
        }
        pt->kept_which[j] = pt->seen_which[s];
    }
    return nd;
}

void py_runtime_keys(py_thread *pt, uint64_t *keys, int safe)
{
    int nd = distinct_codes(pt);
    if (safe) {
        py_ident_codes(&pt->ident, pt->distinct, nd, pt->ids);
    } else {
        for (int d = 0; d < nd; d++)
            pt->ids[d] = py_ident_plain(&pt->ident, pt->distinct[d]);
    }
    for (int j = 0; j < pt->nkept; j++) {
        uint32_t id = pt->kept_code[j] ? pt->ids[pt->kept_which[j]] : PY_CODES_LEFT_OUT;
        keys[j] = id == PY_CODES_NONE ? 0 : CCT_KEY_PY(id, pt->kept_unit[j]);
    }
}

void py_runtime_finish(void)
{
    if (!py_runtime_on)
        return;
    hprof_verbose(1, "Python: %u code objects met on call paths", py_codes_count());
    if (py_codes_full())
        hprof_say("Python: the table of code objects met is full (%u): functions met after that keep the "
                  "interpreter's C frames in their call paths",
                  PY_CODES_MAX);
    if (py_codes_lines_full())
        hprof_say(
            "Python: the %u MiB for copies of line tables are used up: call sites in functions met after "
            "that show the function's first line",
            PY_CODES_LINES_ROOM >> 20);
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

void py_runtime_init(int enabled)
{
    const unsigned long *version = hprof_dlsym(RTLD_DEFAULT, "Py_Version");
    const char *(*version_text)(void) = (const char *(*)(void))hprof_dlsym(RTLD_DEFAULT, "Py_GetVersion");
    if (!version && !version_text)
        return; /* not a Python program */
    if (!enabled) {
        hprof_verbose(1, "Python: HPROF_PYTHON=0, call paths keep the interpreter's C frames");
        return;
    }
    if (!version || (*version >> 16) != 0x030B) {
        const char *v = version_text ? version_text() : "?"; /* "3.12.1 (main, ...)" */
        hprof_verbose(1,
                      "Python %.*s: call paths keep the interpreter's C frames (Python functions are named "
                      "with CPython 3.11 only)",
                      (int)strcspn(v, " "), v);
        return;
    }
    void *eval = hprof_dlsym(RTLD_DEFAULT, "_PyEval_EvalFrameDefault");
    this_thread_state = (void *(*)(void))hprof_dlsym(RTLD_DEFAULT, "PyGILState_GetThisThreadState");
    uint64_t code_type = (uint64_t)(uintptr_t)hprof_dlsym(RTLD_DEFAULT, "PyCode_Type");
    uint64_t unicode_type = (uint64_t)(uintptr_t)hprof_dlsym(RTLD_DEFAULT, "PyUnicode_Type");
    uint64_t bytes_type = (uint64_t)(uintptr_t)hprof_dlsym(RTLD_DEFAULT, "PyBytes_Type");
    uint64_t at = (uint64_t)(uintptr_t)eval;
    if (!eval || !this_thread_state || !code_type || !unicode_type || !bytes_type ||
        hprof_loader_iterate(find_object, &at) <= 0 || py_codes_init() != 0) {
        hprof_verbose(
            1, "Python 3.11: its symbols were not all found; call paths keep the interpreter's C frames");
        return;
    }
    find_eval(eval);
    py_ident_init(code_type, unicode_type, bytes_type);
    py_runtime_samples_on = py_read_init() == 0;
    if (!py_runtime_samples_on)
        hprof_verbose(
            1, "Python 3.11: process_vm_readv is refused here: samples keep the interpreter's C frames");
    py_codes_set_interpreter(interp_lo, interp_hi);
    py_runtime_on = 1;
    hprof_verbose(1, "Python 3.11: call paths name Python functions");
}
