#include "model/loader.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static int is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The first DIR/NAME.so over the directories of search_path into out (DIR/NAME when NAME ends in
 * ".so"); 0 if none.  Empty components are skipped. */
static int search(const char *name, const char *search_path, char *out, size_t len)
{
    if (!search_path)
        return 0;
    size_t nl = strlen(name);
    const char *suffix = nl > 3 && strcmp(name + nl - 3, ".so") == 0 ? "" : ".so";
    for (const char *d = search_path; *d;) {
        size_t dl = strcspn(d, ":");
        if (dl > 0) {
            int w = snprintf(out, len, "%.*s/%s%s", (int)dl, d, name, suffix);
            if (w > 0 && (size_t)w < len && is_file(out))
                return 1;
        }
        d += dl + (d[dl] == ':');
    }
    return 0;
}

static pl_status load(pl_model_library *lib, const char *file, pl_error *err)
{
    /* RTLD_LOCAL: two models may define the same internal names; RTLD_NOW: a missing symbol is
     * reported here, not in the middle of a run. */
    void *h = dlopen(file, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *why = dlerror();
        return pl_fail(err, PL_ERR_INPUT, "cannot load model %s: %s", file, why ? why : "dlopen failed");
    }
    const pl_case *(*entry)(void);
    void *sym = dlsym(h, PL_MODEL_SYMBOL);
    /* POSIX: a function pointer converts through void * (memcpy keeps -Wpedantic quiet). */
    memcpy(&entry, &sym, sizeof entry);
    if (!sym) {
        dlclose(h);
        return pl_fail(err, PL_ERR_INPUT, "model %s does not export %s (define it with PL_EXPORT_MODEL)", file,
                       PL_MODEL_SYMBOL);
    }
    const pl_case *c = entry();
    if (!c) {
        dlclose(h);
        return pl_fail(err, PL_ERR_INPUT, "model %s: %s returned no case", file, PL_MODEL_SYMBOL);
    }
    /* Read nothing but the version before it is known to match: the rest of the layout may differ. */
    if (c->abi_version != PL_ABI_VERSION) {
        unsigned v = c->abi_version;
        dlclose(h);
        return pl_fail(err, PL_ERR_INPUT, "model %s was built for penlim ABI version %u, this penlim has %u: "
                       "rebuild it against this penlim's headers", file, v, (unsigned)PL_ABI_VERSION);
    }
    lib->handle = h;
    lib->c = c;
    snprintf(lib->path, sizeof lib->path, "%s", file);
    return PL_OK;
}

pl_status pl_model_library_open(pl_model_library *lib, const char *path, const char *search_path, pl_error *err)
{
    memset(lib, 0, sizeof *lib);
    char file[4096];
    if (!path || !*path)
        return pl_fail(err, PL_ERR_INPUT, "--model needs a file name");
    if (strlen(path) >= sizeof file)
        return pl_fail(err, PL_ERR_INPUT, "model file name too long");
    if (strchr(path, '/')) {
        if (!is_file(path))
            return pl_fail(err, PL_ERR_INPUT, "model file %s does not exist", path);
        snprintf(file, sizeof file, "%s", path);
    } else if (!search(path, search_path, file, sizeof file)) {
        return pl_fail(err, PL_ERR_INPUT, "model %s not found in the model path (%s); give a path such as ./%s",
                       path, search_path && *search_path ? search_path : "PENLIM_MODEL_PATH is not set", path);
    }
    return load(lib, file, err);
}

int pl_model_library_find(pl_model_library *lib, const char *name, const char *search_path, pl_error *err)
{
    char file[4096];
    if (strchr(name, '/') || !search(name, search_path, file, sizeof file))
        return 0;
    pl_model_library tmp;
    memset(&tmp, 0, sizeof tmp);
    if (load(&tmp, file, err) != PL_OK)
        return -1;
    *lib = tmp;
    return 1;
}

void pl_model_library_close(pl_model_library *lib)
{
    if (lib->handle)
        dlclose(lib->handle);
    memset(lib, 0, sizeof *lib);
}
