/* cw_tmpfile.c - temporary file creation and atomic commit. */
#define _GNU_SOURCE
#include "report/cube/writer/cw_tmpfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

static int errf(char *err, size_t errlen, const char *fmt, const char *a, const char *b)
{
    if (err && errlen)
        snprintf(err, errlen, fmt, a, b);
    return -1;
}

/* dir/.base.<16 hex>.tmp; the base is shortened to stay under NAME_MAX. */
static char *temp_name(const char *path)
{
    unsigned char rnd[8];
    if (getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd)
        return NULL;
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    int dirlen = slash ? (int)(slash - path) + 1 : 0;
    size_t len = strlen(path) + 64;
    char *t = malloc(len);
    if (!t)
        return NULL;
    snprintf(t, len, "%.*s.%.200s.%02x%02x%02x%02x%02x%02x%02x%02x.tmp", dirlen, path, base, rnd[0], rnd[1],
             rnd[2], rnd[3], rnd[4], rnd[5], rnd[6], rnd[7]);
    return t;
}

const char *cw_special_file(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0 || S_ISREG(st.st_mode) || S_ISLNK(st.st_mode))
        return NULL;
    if (S_ISDIR(st.st_mode))
        return "a directory";
    if (S_ISCHR(st.st_mode))
        return "a character device";
    if (S_ISBLK(st.st_mode))
        return "a block device";
    if (S_ISFIFO(st.st_mode))
        return "a FIFO";
    if (S_ISSOCK(st.st_mode))
        return "a socket";
    return "not a regular file";
}

static int refuse_kind(const char *path, const char *kind, char *err, size_t errlen)
{
    if (err && errlen)
        snprintf(err, errlen, "%s is %s: hprof writes only a regular file or a new name", path, kind);
    return -1;
}

static int check_target(const char *path, int overwrite_ok, char *err, size_t errlen)
{
    struct stat st;
    if (path[0] == '\0' || path[strlen(path) - 1] == '/')
        return errf(err, errlen, "cannot create %s: %s", path, "not a file name");
    if (lstat(path, &st) != 0)
        return 0;
    const char *kind = cw_special_file(path);
    if (kind)
        return refuse_kind(path, kind, err, errlen);
    if (!overwrite_ok)
        return errf(err, errlen, "cannot create %s: %s", path, strerror(EEXIST));
    return 0;
}

/* The temporary being written (one at a time), for cw_tmp_drop_open(). */
static char open_tmp[4096];
static volatile int have_open_tmp;
/* cw_tmp_drop_open() came in this process (an abort in another thread,
 * while the merge goes on): a temporary the process creates from then on,
 * or while it ran, goes at once. A child forked to write a rank's partial
 * profile is another process: its files stay. */
static volatile pid_t dropping;

static void note_open(const char *tmp)
{
    have_open_tmp = 0;
    if (tmp && strlen(tmp) < sizeof open_tmp) {
        memcpy(open_tmp, tmp, strlen(tmp) + 1);
        __atomic_store_n(&have_open_tmp, 1, __ATOMIC_SEQ_CST);
    }
    /* Against a drop that ran between the open and the store above: one
     * of the two sees the other's store (both sequentially consistent). */
    if (__atomic_load_n(&dropping, __ATOMIC_SEQ_CST) == getpid())
        cw_tmp_drop_open();
}

void cw_tmp_drop_open(void)
{
    __atomic_store_n(&dropping, getpid(), __ATOMIC_SEQ_CST);
    if (__atomic_exchange_n(&have_open_tmp, 0, __ATOMIC_SEQ_CST))
        unlink(open_tmp);
}

int cw_tmp_create(cw_tmpfile *t, const char *path, int overwrite_ok, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    t->fd = -1;
    if (check_target(path, overwrite_ok, err, errlen) < 0)
        return -1;
    t->path = strdup(path);
    t->overwrite_ok = overwrite_ok;
    int e = ENOMEM;
    for (int tries = 0; t->path && tries < 16; tries++) {
        free(t->tmp);
        t->tmp = temp_name(path);
        if (!t->tmp)
            break;
        t->fd = open(t->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (t->fd >= 0) {
            note_open(t->tmp);
            return 0;
        }
        e = errno;
        if (e != EEXIST) /* EEXIST: a name collision, draw again */
            break;
    }
    free(t->tmp), free(t->path);
    memset(t, 0, sizeof *t);
    t->fd = -1;
    return errf(err, errlen, "cannot create %s: %s", path, strerror(e));
}

/* Best effort: make the rename itself durable. */
static void sync_dir(const char *path)
{
    char *d = strdup(path);
    if (!d)
        return;
    char *slash = strrchr(d, '/');
    const char *dir = slash ? (slash == d ? "/" : (*slash = '\0', d)) : ".";
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
    free(d);
}

/* Where a commit that moved on to a numbered name writes that name. */
static char *final_name;
static size_t final_len;

void cw_tmp_report_name_to(char *buf, size_t len)
{
    final_name = buf;
    final_len = len;
}

/* Renames tmp to path unless path exists (EEXIST then). */
static int rename_noreplace(const char *tmp, const char *path)
{
    if (renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE) == 0)
        return 0;
    if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP)
        return -1;
    if (link(tmp, path) != 0) /* fails with EEXIST, never replaces */
        return -1;
    unlink(tmp);
    return 0;
}

/* The n-th numbered variant of path: a.cubex -> a.<n>.cubex (a.3.cubex ->
 * a.<n>.cubex: an existing number is replaced), other names get .<n>. */
static char *numbered(const char *path, int n)
{
    size_t len = strlen(path), ext = 0;
    if (len > 6 && strcmp(path + len - 6, ".cubex") == 0)
        ext = 6;
    size_t stem = len - ext, d = stem;
    while (d > 0 && path[d - 1] >= '0' && path[d - 1] <= '9')
        d--;
    const char *slash = strrchr(path, '/');
    size_t base = slash ? (size_t)(slash - path) + 1 : 0;
    if (d < stem && d > base + 1 && path[d - 1] == '.')
        stem = d - 1;
    char *p = malloc(len + 16);
    if (p)
        snprintf(p, len + 16, "%.*s.%d%s", (int)stem, path, n, path + len - ext);
    return p;
}

/* A name that must not be replaced and was taken while we wrote (two jobs
 * started at once in one folder, a parent and its spawned children): move
 * on to .1, .2, ... so that both keep their profiles; t->path follows. */
static int move_into_place(cw_tmpfile *t)
{
    if (t->overwrite_ok) {
        /* what took the name while we wrote is replaced only if it is a
         * regular file or a link (a device node made meanwhile is left alone) */
        if (cw_special_file(t->path)) {
            errno = EEXIST;
            return -1;
        }
        return rename(t->tmp, t->path);
    }
    if (rename_noreplace(t->tmp, t->path) == 0)
        return 0;
    if (errno != EEXIST)
        return -1;
    for (int n = 1; n < 10000; n++) {
        char *p = numbered(t->path, n);
        if (!p)
            return -1;
        if (rename_noreplace(t->tmp, p) == 0) {
            if (final_name && final_len)
                snprintf(final_name, final_len, "%s", p);
            free(t->path);
            t->path = p;
            return 0;
        }
        free(p);
        if (errno != EEXIST)
            return -1;
    }
    return -1;
}

int cw_tmp_commit(cw_tmpfile *t, char *err, size_t errlen)
{
    int rc = 0;
    note_open(NULL); /* from here on the file is complete */
    if (fsync(t->fd) != 0)
        rc = errf(err, errlen, "write failed: %s%s", strerror(errno), "");
    if (close(t->fd) != 0 && rc == 0)
        rc = errf(err, errlen, "write failed: %s%s", strerror(errno), "");
    t->fd = -1;
    const char *kind;
    if (rc == 0 && move_into_place(t) != 0)
        rc = t->overwrite_ok && (kind = cw_special_file(t->path)) != NULL
                 ? refuse_kind(t->path, kind, err, errlen)
                 : errf(err, errlen, "cannot create %s: %s", t->path, strerror(errno));
    if (rc == 0) {
        sync_dir(t->path);
        free(t->tmp); /* the name is gone: nothing to remove */
        t->tmp = NULL;
    }
    cw_tmp_discard(t);
    return rc;
}

void cw_tmp_discard(cw_tmpfile *t)
{
    note_open(NULL);
    if (t->fd >= 0)
        close(t->fd);
    if (t->tmp)
        unlink(t->tmp); /* after a commit the name is gone: harmless */
    free(t->tmp), free(t->path);
    t->tmp = t->path = NULL;
    t->fd = -1;
}
