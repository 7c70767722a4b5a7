/* Running the penlim program from a test: its path and a scratch directory (both set by the test's
 * main), "penlim ARGS" run there with stdout and stderr to files, and the files read back. */
#ifndef PL_TEST_CLI_UTIL_H
#define PL_TEST_CLI_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>

static const char *penlim;
static char dir[256];

/* Run "penlim ARGS" in dir with stdout and stderr to stdout.txt and stderr.txt; the exit status. */
static inline int run(const char *args)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "cd %s && %s %s > stdout.txt 2> stderr.txt", dir, penlim, args);
    int rc = system(cmd);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/* The contents of dir/NAME (caller frees), or NULL. */
static inline char *slurp(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
    size_t got = buf ? fread(buf, 1, (size_t)n, f) : 0;
    if (buf)
        buf[got] = '\0';
    fclose(f);
    return buf;
}

/* dir/NAME exists (a dangling symbolic link counts). */
static inline int exists(const char *name)
{
    char path[1024];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return lstat(path, &st) == 0;
}

static inline int count_lines(const char *s)
{
    int n = 0;
    for (; s && *s; s++)
        n += *s == '\n';
    return n;
}

#endif
