/*
 * cw_tmpfile.h - write a file under an unguessable temporary name in the
 * target's folder and move it into place only when complete.
 *
 * The temporary is created with O_CREAT|O_EXCL|O_NOFOLLOW (no symlink or
 * pre-created file can redirect it) and mode 0666 so the umask decides the
 * permissions. Commit fsyncs, then renames; when overwriting is not
 * allowed it uses renameat2(RENAME_NOREPLACE), or link()+unlink() where
 * the file system lacks it, so a file that appeared meanwhile is never
 * replaced.
 */
#ifndef HPROF_CW_TMPFILE_H
#define HPROF_CW_TMPFILE_H

#include <stddef.h>

typedef struct cw_tmpfile {
    int fd;
    char *path;     /* the target */
    char *tmp;      /* the temporary name */
    int overwrite_ok;
} cw_tmpfile;

int cw_tmp_create(cw_tmpfile *t, const char *path, int overwrite_ok, char *err, size_t errlen);
/* Fsyncs, closes and renames into place; removes the temporary on error. */
int cw_tmp_commit(cw_tmpfile *t, char *err, size_t errlen);
/* Closes and removes the temporary (safe to call twice). */
void cw_tmp_discard(cw_tmpfile *t);

#endif
