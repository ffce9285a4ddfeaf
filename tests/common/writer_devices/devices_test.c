/* devices_test.c - the CUBE writer's temporary file and commit never
 * replace, truncate or write through anything but a regular file: a target
 * that is a device node (a private mknod copy of /dev/null, c 1 3), a FIFO
 * or a socket is refused before anything is created (a symbolic link is
 * replaced itself, never followed), also
 * when the profile may replace what is there (HPROF_OUTPUT), and a device
 * that takes the name while the profile is written is left alone at the
 * commit. No temporary is left behind.
 *
 *   devices_test DIR     prints ok/not ok lines
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <dirent.h>
#include <unistd.h>

#include "report/cube/writer/cw_tmpfile.h"

static int failed;
static const char *dir;

static void check(int cond, const char *name, const char *why)
{
    printf("%s - writer devices: %s%s%s\n", cond ? "ok" : "not ok", name, cond ? "" : ": ", cond ? "" : why);
    failed |= !cond;
}

/* the folder's entries but the ones named in keep (space-separated) */
static void strays(char *out, size_t len, const char *keep)
{
    out[0] = '\0';
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char w[300];
        snprintf(w, sizeof w, " %s ", e->d_name);
        char k[600];
        snprintf(k, sizeof k, " %s ", keep);
        if (!strstr(k, w))
            snprintf(out + strlen(out), len - strlen(out), "%s ", e->d_name);
    }
    if (d)
        closedir(d);
}

static int is_null_device(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 && S_ISCHR(st.st_mode) && major(st.st_rdev) == 1 && minor(st.st_rdev) == 3;
}

static int has_mode(const char *path, mode_t type)
{
    struct stat st;
    return lstat(path, &st) == 0 && (st.st_mode & S_IFMT) == type;
}

/* create + write + commit at path; returns create's or commit's status, err */
static int write_at(const char *path, int overwrite_ok, char *err, size_t len, const char *made_meanwhile)
{
    cw_tmpfile t;
    err[0] = '\0';
    if (cw_tmp_create(&t, path, overwrite_ok, err, len) != 0)
        return -1;
    if (write(t.fd, "profile", 7) != 7)
        return -2;
    if (made_meanwhile && mknod(made_meanwhile, S_IFCHR | 0666, makedev(1, 3)) != 0)
        return -3;
    return cw_tmp_commit(&t, err, len);
}

static void refused(const char *name, const char *file, const char *kind, mode_t type, int overwrite_ok)
{
    char path[4096], err[512], left[2048], why[3000];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    int rc = write_at(path, overwrite_ok, err, sizeof err, NULL);
    strays(left, sizeof left, "null fifo sock link");
    int same = type == S_IFCHR ? is_null_device(path) : has_mode(path, type);
    snprintf(why, sizeof why, "status %d, err '%s', still %s: %d, left in the folder: '%s'", rc, err, kind,
             same, left);
    check(rc == -1 && strstr(err, kind) && same && !left[0], name, why);
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    dir = argv[1];
    char path[4096], err[512], left[2048], why[3000];
    int root = geteuid() == 0;

    snprintf(path, sizeof path, "%s/null", dir);
    if (root && mknod(path, S_IFCHR | 0666, makedev(1, 3)) == 0) {
        refused("a character device given to replace (HPROF_OUTPUT): refused, left as it was", "null",
                "a character device", S_IFCHR, 1);
        refused("a character device as a new name: refused", "null", "a character device", S_IFCHR, 0);
    } else {
        printf("ok - writer devices: a character device # skip: mknod needs root\n");
    }
    snprintf(path, sizeof path, "%s/fifo", dir);
    if (mkfifo(path, 0666) == 0)
        refused("a FIFO given to replace: refused, left as it was", "fifo", "a FIFO", S_IFIFO, 1);
    else
        check(0, "a FIFO", strerror(errno));
    snprintf(path, sizeof path, "%s/sock", dir);
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    if (strlen(path) < sizeof a.sun_path && s >= 0) {
        snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
        if (bind(s, (struct sockaddr *)&a, sizeof a) == 0)
            refused("a socket given to replace: refused, left as it was", "sock", "a socket", S_IFSOCK, 1);
        else
            check(0, "a socket", strerror(errno));
    } else {
        printf("ok - writer devices: a socket # skip: the folder's path is too long for a socket\n");
    }
    if (s >= 0)
        close(s);
    /* a symbolic link (to the FIFO) is replaced itself, never followed */
    snprintf(path, sizeof path, "%s/link", dir);
    if (symlink("fifo", path) == 0) {
        char fifo[4096];
        snprintf(fifo, sizeof fifo, "%s/fifo", dir);
        int rc = write_at(path, 1, err, sizeof err, NULL);
        snprintf(why, sizeof why, "status %d, err '%s', a regular file now: %d, the FIFO still: %d", rc, err,
                 has_mode(path, S_IFREG), has_mode(fifo, S_IFIFO));
        check(rc == 0 && has_mode(path, S_IFREG) && has_mode(fifo, S_IFIFO),
              "a symbolic link to a FIFO given to replace: the link replaced, the FIFO untouched", why);
    }

    /* a regular file given to replace is replaced */
    snprintf(path, sizeof path, "%s/plain", dir);
    FILE *f = fopen(path, "w");
    if (f)
        fputs("old", f), fclose(f);
    int rc = write_at(path, 1, err, sizeof err, NULL);
    struct stat st;
    check(rc == 0 && stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 7,
          "a regular file given to replace: replaced", err);

    /* a device that takes the name while the profile is written */
    if (root) {
        snprintf(path, sizeof path, "%s/late", dir);
        rc = write_at(path, 1, err, sizeof err, path);
        strays(left, sizeof left, "null fifo sock link plain late");
        snprintf(why, sizeof why, "status %d, err '%s', still the device: %d, left: '%s'", rc, err,
                 is_null_device(path), left);
        check(rc == -1 && strstr(err, "a character device") && is_null_device(path) && !left[0],
              "a device made at the name while writing: left alone, the temporary removed", why);
    }
    return failed;
}
