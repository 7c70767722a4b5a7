/* Faults of the file system for test_output, preloaded into penlim (LD_PRELOAD), each set by an
 * environment variable:
 *
 *   PENLIM_FAULT_SWAP=A:B  once penlim has opened (openat) the file at path A, the files at A and B
 *                          are swapped (renamed), as another process could between a check of A
 *                          and a second opening of it;
 *   PENLIM_FAULT_EIO=NAME  read() and pread() of a file named NAME (its last component) fail with
 *                          EIO, as on a failing disk.
 *
 * Only calls that reach the C library's exported functions are seen: penlim's own read(), pread()
 * and openat(), not the C library's internal ones (stdio's reads). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static atomic_int swapped;

static void swap_after_open(int fd)
{
    const char *spec = getenv("PENLIM_FAULT_SWAP");
    const char *colon = spec ? strchr(spec, ':') : NULL;
    if (!colon || atomic_load(&swapped))
        return;
    char a[PATH_MAX], b[PATH_MAX], tmp[PATH_MAX + 8];
    snprintf(a, sizeof a, "%.*s", (int)(colon - spec), spec);
    snprintf(b, sizeof b, "%s", colon + 1);
    struct stat opened, at_a;
    int saved = errno;
    if (fstat(fd, &opened) == 0 && stat(a, &at_a) == 0 && opened.st_dev == at_a.st_dev &&
        opened.st_ino == at_a.st_ino && !atomic_exchange(&swapped, 1)) {
        snprintf(tmp, sizeof tmp, "%s.swap", a);
        if (rename(a, tmp) != 0 || rename(b, a) != 0 || rename(tmp, b) != 0)
            abort(); /* the test cannot go on as it meant to */
    }
    errno = saved;
}

static int open_with(const char *symbol, int dirfd, const char *path, int flags, mode_t mode)
{
    int (*real)(int, const char *, int, ...) = (int (*)(int, const char *, int, ...))dlsym(RTLD_NEXT, symbol);
    int fd = real(dirfd, path, flags, mode);
    if (fd >= 0)
        swap_after_open(fd);
    return fd;
}

static mode_t mode_of(int flags, va_list ap)
{
    return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? (mode_t)va_arg(ap, int) : 0;
}

int openat(int dirfd, const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    mode_t mode = mode_of(flags, ap);
    va_end(ap);
    return open_with("openat", dirfd, path, flags, mode);
}

int openat64(int dirfd, const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    mode_t mode = mode_of(flags, ap);
    va_end(ap);
    return open_with("openat64", dirfd, path, flags, mode);
}

/* Whether reads of fd are to fail: its file's name is PENLIM_FAULT_EIO. */
static int failing(int fd)
{
    const char *name = getenv("PENLIM_FAULT_EIO");
    if (!name || !*name)
        return 0;
    char link[64], target[PATH_MAX];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    int saved = errno;
    ssize_t n = readlink(link, target, sizeof target - 1);
    errno = saved;
    if (n <= 0)
        return 0;
    target[n] = '\0';
    const char *base = strrchr(target, '/');
    return strcmp(base ? base + 1 : target, name) == 0;
}

ssize_t read(int fd, void *buf, size_t len)
{
    if (failing(fd)) {
        errno = EIO;
        return -1;
    }
    ssize_t (*real)(int, void *, size_t) = (ssize_t (*)(int, void *, size_t))dlsym(RTLD_NEXT, "read");
    return real(fd, buf, len);
}

ssize_t pread(int fd, void *buf, size_t len, off_t at)
{
    if (failing(fd)) {
        errno = EIO;
        return -1;
    }
    ssize_t (*real)(int, void *, size_t, off_t) = (ssize_t (*)(int, void *, size_t, off_t))dlsym(RTLD_NEXT, "pread");
    return real(fd, buf, len, at);
}

ssize_t pread64(int fd, void *buf, size_t len, off_t at)
{
    if (failing(fd)) {
        errno = EIO;
        return -1;
    }
    ssize_t (*real)(int, void *, size_t, off_t) =
        (ssize_t (*)(int, void *, size_t, off_t))dlsym(RTLD_NEXT, "pread64");
    return real(fd, buf, len, at);
}
