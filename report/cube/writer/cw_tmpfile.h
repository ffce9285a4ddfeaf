/*
 * cw_tmpfile.h - write a file under an unguessable temporary name in the
 * target's folder and move it into place only when complete.
 *
 * The temporary is created with O_CREAT|O_EXCL|O_NOFOLLOW (no symlink or
 * pre-created file can redirect it) and mode 0666 so the umask decides the
 * permissions. Commit fsyncs, then renames; when overwriting is not
 * allowed it uses renameat2(RENAME_NOREPLACE), or link()+unlink() where
 * the file system lacks it, so a file that appeared meanwhile is never
 * replaced: the commit moves on to the next free numbered name instead
 * (a.cubex -> a.1.cubex, a.2.cubex, ...).
 *
 * Only a regular file, or a symbolic link itself (never what it points
 * to), is ever replaced: a target that is a device node, a FIFO, a socket
 * or a directory is refused before anything is created (no temporary is
 * left beside it), and again at the commit should one have taken the name
 * meanwhile. Nothing is ever opened at the target itself, so nothing is
 * written through it or truncated.
 */
#ifndef HPROF_CW_TMPFILE_H
#define HPROF_CW_TMPFILE_H

#include <stddef.h>

typedef struct cw_tmpfile {
    int fd;
    char *path; /* the target */
    char *tmp;  /* the temporary name */
    int overwrite_ok;
} cw_tmpfile;

int cw_tmp_create(cw_tmpfile *t, const char *path, int overwrite_ok, char *err, size_t errlen);
/* What path is when it exists and is neither a regular file nor a
 * symbolic link ("a character device", "a FIFO", ...), else NULL. */
const char *cw_special_file(const char *path);
/* Fsyncs, closes and renames into place (a name that must not be replaced
 * and was taken meanwhile: the next free numbered one, then written into the
 * buffer given to cw_tmp_report_name_to, if any); removes the temporary on
 * error. */
int cw_tmp_commit(cw_tmpfile *t, char *err, size_t errlen);
/* Where commits report a name they moved on to (the caller's buffer for
 * the path it prints; NULL: nowhere). Process-wide: profiles are committed
 * one at a time. */
void cw_tmp_report_name_to(char *buf, size_t len);
/* Closes and removes the temporary (safe to call twice). */
void cw_tmp_discard(cw_tmpfile *t);
/* Removes the temporary being written, if any, from any thread or a
 * signal handler (unlink only): a process that dies while it writes (an
 * MPI_Abort during MPI_Finalize's merge) leaves nothing behind. The writer
 * then fails at its commit; a file already being committed is complete
 * and stays. */
void cw_tmp_drop_open(void);

#endif
