/* A memory limit for test_memory, preloaded into penlim (LD_PRELOAD): from the start of main, an
 * allocation that would bring the bytes allocated and not yet freed (all threads) above
 * PENLIM_MEMORY_LIMIT fails, returning NULL with errno ENOMEM, as under a limit the process has
 * reached (ulimit -v, a container's).  Memory freed is available again, as under a real limit.
 * What the libraries allocate while they are loaded, before main, is not counted: a process that
 * cannot load its libraries is not penlim's to handle.  PENLIM_MEMORY_PEAK=FILE writes the largest
 * number of bytes held at once, the number of allocations refused and the number made, to FILE at
 * exit (or _exit).
 * PENLIM_MEMORY_FAIL_AT=N instead fails one allocation alone: the first, from the N-th on (counted
 * from main, all threads), made by penlim's own code (the program or libpenlim, jansson's through
 * the program's hook), so that every recovery path of penlim's is met in turn.  Those made inside
 * the other libraries are passed over: GSL 2.7 and glibc's NSS do not survive a failure followed by
 * successes (penlim allocates their blocks first where it can, which only a real limit honours).
 * The C library's own allocator does the work (glibc exports it as __libc_malloc etc.). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <string.h>
#include <errno.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void __libc_free(void *p);

static atomic_long held, peak, refused;
static atomic_long limit = -2; /* -2: not read yet, -1: none */
static atomic_long fail_at = -2, allocations;
static atomic_int failed_once;
static atomic_int armed;       /* main has started */

/* Whether the caller (a return address) is penlim's: the program or libpenlim. */
static int from_penlim(void *caller)
{
    Dl_info info;
    if (!dladdr(caller, &info) || !info.dli_fname)
        return 0;
    const char *name = strrchr(info.dli_fname, '/');
    name = name ? name + 1 : info.dli_fname;
    return strcmp(name, "penlim") == 0 || strncmp(name, "libpenlim", 9) == 0;
}

/* PENLIM_MEMORY_FAIL_AT: whether this allocation, made from `caller`, is the one to fail. */
static int fail_this(void *caller)
{
    long at = atomic_load(&fail_at);
    if (at == -2) {
        const char *v = getenv("PENLIM_MEMORY_FAIL_AT");
        at = v && *v ? strtol(v, NULL, 10) : -1;
        atomic_store(&fail_at, at);
    }
    long index = atomic_fetch_add(&allocations, 1) + 1;
    if (at < 0 || index < at || atomic_load(&failed_once) || !from_penlim(caller))
        return 0;
    int expected = 0;
    return atomic_compare_exchange_strong(&failed_once, &expected, 1);
}

/* Whether `size` more bytes may be taken; if so they are counted as held. */
static int take_from(size_t size, void *caller)
{
    if (!atomic_load(&armed))
        return 1;
    if (fail_this(caller)) {
        atomic_fetch_add(&refused, 1);
        errno = ENOMEM;
        return 0;
    }
    long at = atomic_load(&limit);
    if (at == -2) { /* getenv allocates nothing */
        const char *v = getenv("PENLIM_MEMORY_LIMIT");
        at = v && *v ? strtol(v, NULL, 10) : -1;
        atomic_store(&limit, at);
    }
    long now = atomic_fetch_add(&held, (long)size) + (long)size;
    if (at >= 0 && now > at) {
        atomic_fetch_sub(&held, (long)size);
        atomic_fetch_add(&refused, 1);
        errno = ENOMEM;
        return 0;
    }
    for (long p = atomic_load(&peak); now > p && !atomic_compare_exchange_weak(&peak, &p, now);)
        ;
    return 1;
}

/* The block's real size replaces the size asked for (or is given back if it could not be had). */
static void *settle(void *p, size_t asked)
{
    if (!atomic_load(&armed))
        return p;
    if (!p) {
        atomic_fetch_sub(&held, (long)asked);
        return NULL;
    }
    atomic_fetch_add(&held, (long)malloc_usable_size(p) - (long)asked);
    return p;
}

static void give_back(void *p)
{
    if (p && atomic_load(&armed))
        atomic_fetch_sub(&held, (long)malloc_usable_size(p));
}

#define take(size) take_from((size), __builtin_return_address(0))

void *malloc(size_t size)
{
    return take(size) ? settle(__libc_malloc(size), size) : NULL;
}

void *calloc(size_t n, size_t size)
{
    size_t total = n && size > (size_t)-1 / n ? (size_t)-1 : n * size;
    return take(total) ? settle(__libc_calloc(n, size), total) : NULL;
}

void *realloc(void *p, size_t size)
{
    if (!p)
        return take(size) ? settle(__libc_malloc(size), size) : NULL;
    if (size == 0) {
        free(p);
        return NULL;
    }
    size_t old = malloc_usable_size(p);
    if (!take(size))
        return NULL;
    void *q = __libc_realloc(p, size);
    if (!q)
        return settle(NULL, size);
    if (atomic_load(&armed))
        atomic_fetch_sub(&held, (long)old);
    return settle(q, size);
}

void *memalign(size_t alignment, size_t size)
{
    return take(size) ? settle(__libc_memalign(alignment, size), size) : NULL;
}

void *aligned_alloc(size_t alignment, size_t size)
{
    return memalign(alignment, size);
}

int posix_memalign(void **out, size_t alignment, size_t size)
{
    void *p = memalign(alignment, size);
    if (!p)
        return ENOMEM;
    *out = p;
    return 0;
}

void *valloc(size_t size)
{
    return memalign((size_t)sysconf(_SC_PAGESIZE), size);
}

void free(void *p)
{
    give_back(p);
    __libc_free(p);
}

/* The bytes allocated and not yet freed now (all threads), for a test that loads the library into an
 * interpreter (python/tests): it asks before and after creating and dropping many handles. */
__attribute__((visibility("default"))) long penlim_memory_held(void)
{
    return atomic_load(&held);
}

static void report(void)
{
    const char *path = getenv("PENLIM_MEMORY_PEAK");
    if (!path || !*path)
        return;
    FILE *f = fopen(path, "w");
    if (f) {
        fprintf(f, "%ld %ld %ld\n", atomic_load(&peak), atomic_load(&refused), atomic_load(&allocations));
        fclose(f);
    }
}

__attribute__((destructor)) static void report_at_exit(void)
{
    report();
}

/* penlim leaves with _exit (past the exit handlers of its libraries): reported there too. */
void _exit(int status)
{
    report();
    syscall(SYS_exit_group, status);
    for (;;)
        ;
}

/* Counting starts with main: glibc's __libc_start_main calls it, and is wrapped here. */
typedef int (*main_fn)(int, char **, char **);
static main_fn real_main;

static int counted_main(int argc, char **argv, char **envp)
{
    atomic_store(&armed, 1);
    return real_main(argc, argv, envp);
}

int __libc_start_main(main_fn main, int argc, char **argv, void (*init)(void), void (*fini)(void),
                      void (*rtld_fini)(void), void *stack_end)
{
    typedef int (*start_fn)(main_fn, int, char **, void (*)(void), void (*)(void), void (*)(void), void *);
    start_fn real = (start_fn)dlsym(RTLD_NEXT, "__libc_start_main");
    real_main = main;
    return real(counted_main, argc, argv, init, fini, rtld_fini, stack_end);
}
