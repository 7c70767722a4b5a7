/* Models compiled by users and loaded at run time (dlopen): a shared object that exports the one
 * symbol PL_MODEL_SYMBOL, a function returning its case (include/penlim/model.h, PL_EXPORT_MODEL).
 * The case is then validated like a built-in one by pl_model_init. */
#ifndef PL_MODEL_LOADER_H
#define PL_MODEL_LOADER_H

#include "model/model.h"

/* A model built for ABI version 4 is read through an adapter: its case (the prefix of version 5's pl_case
 * before failed) copied into `adapted`, without an error channel; one built for version 3 likewise (the
 * prefix before support), without supports.  One built for version 2 likewise (the prefix
 * before law_at, with the same pl_law fields k and xi first), its parameters k, e and xi flagged
 * PL_PARAM_LAW in a copy of its table.  c then points at the copy (into this struct: a
 * pl_model_library is not to be moved once loaded). */
typedef struct {
    void *handle;        /* from dlopen; NULL when nothing is loaded */
    const pl_case *c;    /* the loaded case, valid until pl_model_library_close */
    char path[4096];     /* the file it was loaded from */
    unsigned abi_version; /* the version the model was built for */
    pl_case adapted;
    pl_param_spec adapted_params[PL_MAX_PARAMS];
} pl_model_library;

/* Load the model at `path` (a file name: with a '/', or else looked up in each directory of
 * `search_path`, a colon-separated list such as $PENLIM_MODEL_PATH, as NAME.so, or NAME if it ends
 * in .so).
 * PL_ERR_INPUT with a one-line message if it cannot be found or opened, lacks the symbol, or was
 * built for another ABI version. */
pl_status pl_model_library_open(pl_model_library *lib, const char *path, const char *search_path, pl_error *err);

/* Look NAME.so up in search_path only (for a CASE that is not built in): 1 with lib filled, 0 if
 * absent (lib untouched), -1 with err set if a file was found but could not be loaded. */
int pl_model_library_find(pl_model_library *lib, const char *name, const char *search_path, pl_error *err);

void pl_model_library_close(pl_model_library *lib);

#endif
