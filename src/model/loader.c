#define _GNU_SOURCE /* dladdr1: the ELF symbol behind an address */
#include "model/loader.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "laws/law.h"

static int is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Whether the bytes [p, p + len) lie in one segment of a loaded object (the model's own, or a
 * library it uses): what can be checked of a pointer without reading through it.  A pointer to the
 * heap or to nothing fails; dladdr knows the objects' mapped segments. */
static int in_loaded_object(const void *p, size_t len)
{
    Dl_info a, b;
    if (!p || len == 0 || !dladdr(p, &a))
        return 0;
    const char *last = (const char *)p + len - 1;
    return (const char *)p <= last && dladdr(last, &b) && a.dli_fbase == b.dli_fbase;
}

/* The model's entry point must be a function: a data symbol of that name would be "called" and
 * crash.  The dynamic symbol table says which it is. */
static int symbol_is_function(void *sym)
{
    Dl_info info;
    const ElfW(Sym) *entry = NULL;
    if (!dladdr1(sym, &info, (void **)&entry, RTLD_DL_SYMENT) || !entry)
        return 0;
    int type = ELF64_ST_TYPE(entry->st_info); /* the same bits as ELF32_ST_TYPE */
    return type == STT_FUNC || type == STT_GNU_IFUNC;
}

/* What the loader can check of a case before pl_model_init reads it: the case, its parameter table
 * (nparams entries, at most PL_MAX_PARAMS) and their strings lie in a loaded object, and so do its
 * callbacks.  A table shorter than nparams is caught when the entries past its end hold no valid
 * pointers, which is the common case, not always: docs/library.md says what cannot be checked.
 * Reading those entries is the point (they are mapped: in_loaded_object says so first), so
 * AddressSanitizer is told not to count them as overflows of the model's array. */
__attribute__((no_sanitize_address)) static const char *case_layout_problem(const pl_case *c, size_t size)
{
    if (!in_loaded_object(c, size))
        return "the case it returns is not in the model's static storage (return the address of a static "
               "pl_case, as PL_EXPORT_MODEL does)";
    if (!in_loaded_object(c->name, 1) || !in_loaded_object(c->summary, 1))
        return "its name or summary is not a string in the model's storage";
    if (c->nparams > PL_MAX_PARAMS)
        return "it declares more parameters than a case may have (nparams > 32)";
    if (c->nparams > 0 && !in_loaded_object(c->params, c->nparams * sizeof *c->params))
        return "its parameter table does not hold nparams entries in the model's storage (is nparams larger "
               "than the params array?)";
    for (size_t k = 0; k < c->nparams; k++)
        if (!in_loaded_object(c->params[k].name, 1) ||
            (c->params[k].description && !in_loaded_object(c->params[k].description, 1)))
            return "a parameter's name or description is not a string in the model's storage (is nparams larger "
                   "than the params array?)";
    const void *callbacks[] = {(const void *)c->initial_state, (const void *)c->accel, (const void *)c->force,
                               (const void *)c->gap, (const void *)c->scales, (const void *)c->sizes,
                               (const void *)c->law, (const void *)c->check, (const void *)c->mass,
                               (const void *)c->mass_dq, (const void *)c->velocity_map, (const void *)c->input,
                               (const void *)c->limit_value, (const void *)c->forcing_time,
                               (const void *)c->valid_until,
                               size > offsetof(pl_case, law_at) ? (const void *)c->law_at : NULL,
                               size > offsetof(pl_case, support) ? (const void *)c->support : NULL,
                               size > offsetof(pl_case, support) ? (const void *)c->candidates : NULL,
                               size > offsetof(pl_case, support) ? (const void *)c->gap_bounds : NULL,
                               size > offsetof(pl_case, failed) ? (const void *)c->failed : NULL};
    for (size_t k = 0; k < sizeof callbacks / sizeof callbacks[0]; k++)
        if (callbacks[k] && !in_loaded_object(callbacks[k], 1))
            return "one of its callbacks points outside every loaded object";
    return NULL;
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

/* ABI 2's pl_case: version 5's up to law_at; ABI 3's: up to support; ABI 4's: up to failed. */
#define ABI2_CASE_SIZE offsetof(pl_case, law_at)
#define ABI3_CASE_SIZE offsetof(pl_case, support)
#define ABI4_CASE_SIZE offsetof(pl_case, failed)

/* An ABI 2 case's table with k, e and xi flagged as the law's defaults (PL_PARAM_LAW), its other
 * parameters named like a law's flagged as its own (PL_PARAM_MODEL_OWN), and c at the copy. */
static void point_at_adapted(pl_model_library *lib)
{
    if (lib->abi_version == 3u || lib->abi_version == 4u)
        lib->c = &lib->adapted;
    if (lib->abi_version != 2u)
        return;
    const pl_case *orig = lib->c == &lib->adapted ? NULL : lib->c;
    if (orig) {
        for (size_t k = 0; k < orig->nparams && k < PL_MAX_PARAMS; k++) {
            lib->adapted_params[k] = orig->params[k];
            const char *nm = orig->params[k].name;
            if (strcmp(nm, "k") == 0 || strcmp(nm, "e") == 0 || strcmp(nm, "xi") == 0)
                lib->adapted_params[k].flags |= PL_PARAM_LAW;
            else if (pl_law_type_owning(nm))
                lib->adapted_params[k].flags |= PL_PARAM_MODEL_OWN;
        }
    }
    lib->adapted.params = lib->adapted.nparams ? lib->adapted_params : NULL;
    lib->c = &lib->adapted;
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
    if (!symbol_is_function(sym)) {
        dlclose(h);
        return pl_fail(err, PL_ERR_INPUT, "model %s exports %s as data, not as a function (define it with "
                       "PL_EXPORT_MODEL)", file, PL_MODEL_SYMBOL);
    }
    const pl_case *c = entry();
    if (!c) {
        dlclose(h);
        return pl_fail(err, PL_ERR_INPUT, "model %s: %s returned no case", file, PL_MODEL_SYMBOL);
    }
    /* Read nothing but the version before it is known to match: the rest of the layout may differ. */
    if (!in_loaded_object(c, sizeof c->abi_version)) {
        dlclose(h);
        return pl_fail(err, PL_ERR_INPUT, "model %s: %s returned a pointer outside the model's storage", file,
                       PL_MODEL_SYMBOL);
    }
    unsigned v = c->abi_version;
    if (v != PL_ABI_VERSION && v != 2u && v != 3u && v != 4u) {
        dlclose(h);
        return pl_fail(err, PL_ERR_INPUT, "model %s was built for penlim ABI version %u, this penlim has %u (and "
                       "reads 2 to 4): rebuild it against this penlim's headers", file, v, (unsigned)PL_ABI_VERSION);
    }
    size_t size = v == 2u ? ABI2_CASE_SIZE : v == 3u ? ABI3_CASE_SIZE : v == 4u ? ABI4_CASE_SIZE : sizeof *c;
    const char *problem = case_layout_problem(c, size);
    if (problem) {
        dlclose(h);
        return pl_fail(err, PL_ERR_INPUT, "model %s: %s", file, problem);
    }
    lib->handle = h;
    lib->c = c;
    lib->abi_version = v;
    if (v != PL_ABI_VERSION) { /* read as this version, without what later versions added */
        memset(&lib->adapted, 0, sizeof lib->adapted);
        memcpy(&lib->adapted, c, size);
        lib->adapted.abi_version = PL_ABI_VERSION;
    }
    point_at_adapted(lib);
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
        struct stat st;
        if (stat(path, &st) != 0)
            return errno == ENOENT ? pl_fail(err, PL_ERR_INPUT, "model file %s does not exist", path)
                                   : pl_fail(err, PL_ERR_INPUT, "model file %s: %s", path, strerror(errno));
        if (!S_ISREG(st.st_mode))
            return pl_fail(err, PL_ERR_INPUT, "model file %s is %s, not a shared object", path,
                           S_ISDIR(st.st_mode) ? "a directory" : "not a regular file");
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
    if (lib->abi_version != PL_ABI_VERSION) /* into lib's own copy */
        lib->c = &lib->adapted, point_at_adapted(lib);
    return 1;
}

void pl_model_library_close(pl_model_library *lib)
{
    if (lib->handle)
        dlclose(lib->handle);
    memset(lib, 0, sizeof *lib);
}
