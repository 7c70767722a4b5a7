#include "solvers/cvode_driver.h"

#include <math.h>
#include <nvector/nvector_serial.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunlinsol/sunlinsol_klu.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunmatrix/sunmatrix_sparse.h>

void pl_cvode_keep_message(int code, const char *module, const char *function, char *msg, void *user)
{
    (void)code;
    snprintf(user, PL_CVODE_MESSAGE, "%s/%s: %s", module, function, msg);
}

/* The name of a return flag of `what`: the linear solver interface's (CVLS_*) for its calls, CVODE's
 * (CV_*) otherwise.  Not CVodeGetReturnFlagName, which writes into an allocation it does not check. */
static const char *flag_name(const char *what, int flag)
{
#define NAMED(f) {f, #f}
    static const struct {
        int flag;
        const char *name;
    } cv[] = {NAMED(CV_SUCCESS),           NAMED(CV_TSTOP_RETURN),      NAMED(CV_ROOT_RETURN),
              NAMED(CV_WARNING),           NAMED(CV_TOO_MUCH_WORK),     NAMED(CV_TOO_MUCH_ACC),
              NAMED(CV_ERR_FAILURE),       NAMED(CV_CONV_FAILURE),      NAMED(CV_LINIT_FAIL),
              NAMED(CV_LSETUP_FAIL),       NAMED(CV_LSOLVE_FAIL),       NAMED(CV_RHSFUNC_FAIL),
              NAMED(CV_FIRST_RHSFUNC_ERR), NAMED(CV_REPTD_RHSFUNC_ERR), NAMED(CV_UNREC_RHSFUNC_ERR),
              NAMED(CV_RTFUNC_FAIL),       NAMED(CV_NLS_INIT_FAIL),     NAMED(CV_NLS_SETUP_FAIL),
              NAMED(CV_CONSTR_FAIL),       NAMED(CV_NLS_FAIL),          NAMED(CV_MEM_FAIL),
              NAMED(CV_MEM_NULL),          NAMED(CV_ILL_INPUT),         NAMED(CV_NO_MALLOC),
              NAMED(CV_BAD_K),             NAMED(CV_BAD_T),             NAMED(CV_BAD_DKY),
              NAMED(CV_TOO_CLOSE),         NAMED(CV_VECTOROP_ERR),      NAMED(CV_PROJ_MEM_NULL),
              NAMED(CV_PROJFUNC_FAIL),     NAMED(CV_REPTD_PROJFUNC_ERR), NAMED(CV_CONTEXT_ERR),
              NAMED(CV_UNRECOGNIZED_ERR)},
      ls[] = {NAMED(CVLS_SUCCESS),   NAMED(CVLS_MEM_NULL),        NAMED(CVLS_LMEM_NULL),
              NAMED(CVLS_ILL_INPUT), NAMED(CVLS_MEM_FAIL),        NAMED(CVLS_PMEM_NULL),
              NAMED(CVLS_JACFUNC_UNRECVR), NAMED(CVLS_JACFUNC_RECVR), NAMED(CVLS_SUNMAT_FAIL),
              NAMED(CVLS_SUNLS_FAIL)};
#undef NAMED
    int linear = strcmp(what, "CVodeSetLinearSolver") == 0 || strcmp(what, "CVodeSetJacFn") == 0;
    size_t n = linear ? sizeof ls / sizeof ls[0] : sizeof cv / sizeof cv[0];
    for (size_t k = 0; k < n; k++)
        if ((linear ? ls[k].flag : cv[k].flag) == flag)
            return linear ? ls[k].name : cv[k].name;
    return "an unknown flag";
}

pl_status pl_cvode_failure(void *cvode, const char *what, int flag, const char *context, const char *message,
                           pl_error *err)
{
    const char *name = flag_name(what, flag);
    double t = NAN;
    if (cvode && CVodeGetCurrentTime(cvode, &t) != CV_SUCCESS)
        t = NAN;
    /* out of memory, not a failure of the method (CVLS_MEM_FAIL from the linear solver's set-up calls) */
    int memory = flag == CV_MEM_FAIL || (flag == CVLS_MEM_FAIL && strncmp(what, "CVodeSetLinearSolver", 20) == 0);
    pl_status s = pl_fail(err, memory ? PL_ERR_NOMEM : PL_ERR_SOLVER,
                          "CVODE %s failed with %s (%d) at t = %.17g (%s): %s", what, name, flag, t, context,
                          message && message[0] ? message : "no message");
    return s;
}

void pl_cvode_add_counters(void *mem, pl_stats *s)
{
    long v;
    if (CVodeGetNumSteps(mem, &v) == CV_SUCCESS) s->steps += v;
    if (CVodeGetNumRhsEvals(mem, &v) == CV_SUCCESS) s->rhs_evals += v;
    if (CVodeGetNumJacEvals(mem, &v) == CV_SUCCESS) s->jac_evals += v;
    if (CVodeGetNumLinSolvSetups(mem, &v) == CV_SUCCESS) s->lin_setups += v;
    if (CVodeGetNumGEvals(mem, &v) == CV_SUCCESS) s->root_evals += v;
    if (CVodeGetNumErrTestFails(mem, &v) == CV_SUCCESS) s->error_test_fails += v;
    if (CVodeGetNumNonlinSolvConvFails(mem, &v) == CV_SUCCESS) s->nonlin_conv_fails += v;
}

/* SUNDIALS 6 dereferences a failed clone: N_VClone and SUNMatClone set the result's context before
 * looking at it, so that out of memory in one of the vectors CVODE clones in its set-up (CVodeInit: the
 * Nordsieck array and the work vectors; the Newton solver; the linear solver) or of the Jacobian's
 * copy it clones at the first step would be a crash inside it.  The state vector and the Jacobian
 * therefore clone from a reserve made (and checked) in pl_cvode_create: their clone operations hand
 * out the reserve's vectors and matrix, and what they hand out clones the same way; only past the
 * reserve (CVODE_RESERVE vectors: CVODE asks for 16 with this set-up) do they allocate.  The reserve
 * rides in the vectors' content, behind the serial content that SUNDIALS's own operations read. */
#define CVODE_RESERVE 24

struct pl_cvode_reserve {
    N_Vector v[CVODE_RESERVE];
    size_t nv;   /* vectors left */
    SUNMatrix J; /* the Jacobian's copy, or NULL once handed out */
};

typedef struct {
    struct _N_VectorContent_Serial serial; /* first: what N_VDestroy_Serial and the operations read */
    pl_cvode_reserve *reserve;
} reserved_vector;

typedef struct {
    struct _SUNMatrixContent_Dense dense; /* first: what SUNMatDestroy_Dense and the operations read */
    pl_cvode_reserve *reserve;
} reserved_matrix;

typedef struct {
    struct _SUNMatrixContent_Sparse sparse; /* first, as the dense one's */
    pl_cvode_reserve *reserve;
} reserved_sparse;

static N_Vector reserved_vector_clone(N_Vector w);
static SUNMatrix reserved_matrix_clone(SUNMatrix A);

/* A serial vector of length n whose clones come from r. */
static N_Vector reserved_vector_new(sunindextype n, SUNContext sun, pl_cvode_reserve *r)
{
    N_Vector v = N_VNew_Serial(n, sun);
    reserved_vector *c = v ? malloc(sizeof *c) : NULL;
    if (!c) {
        N_VDestroy(v);
        return NULL;
    }
    /* Zero, not whatever the heap held: CVODE reads entries of the vectors it clones before it has
     * written them (valgrind: its weighted RMS norms), so that results depended on the heap's
     * earlier content: under mpirun 2 or 3 runs of 200 came out differently from one process. */
    N_VConst(0.0, v);
    c->serial = *(N_VectorContent_Serial)v->content;
    c->reserve = r;
    free(v->content);
    v->content = c;
    v->ops->nvclone = reserved_vector_clone;
    return v;
}

static N_Vector reserved_vector_clone(N_Vector w)
{
    pl_cvode_reserve *r = ((reserved_vector *)w->content)->reserve;
    if (r->nv > 0)
        return r->v[--r->nv];
    return reserved_vector_new(NV_LENGTH_S(w), w->sunctx, r);
}

/* An n x n matrix whose clone comes from r: dense, or sparse (CSC) with room for nnz entries. */
static SUNMatrix reserved_matrix_new(sunindextype n, int sparse, sunindextype nnz, SUNContext sun,
                                     pl_cvode_reserve *r)
{
    SUNMatrix A = sparse ? SUNSparseMatrix(n, n, nnz, CSC_MAT, sun) : SUNDenseMatrix(n, n, sun);
    void *c = A ? malloc(sparse ? sizeof(reserved_sparse) : sizeof(reserved_matrix)) : NULL;
    if (!c) {
        if (A)
            SUNMatDestroy(A);
        return NULL;
    }
    if (sparse) {
        reserved_sparse *rs = c;
        rs->sparse = *(SUNMatrixContent_Sparse)A->content;
        rs->sparse.rowvals = &rs->sparse.indexvals; /* CSC: views of the content's own fields */
        rs->sparse.colptrs = &rs->sparse.indexptrs;
        rs->reserve = r;
    } else {
        reserved_matrix *rd = c;
        rd->dense = *(SUNMatrixContent_Dense)A->content;
        rd->reserve = r;
    }
    free(A->content);
    A->content = c;
    A->ops->clone = reserved_matrix_clone;
    return A;
}

static SUNMatrix reserved_matrix_clone(SUNMatrix A)
{
    int sparse = SUNMatGetID(A) == SUNMATRIX_SPARSE;
    pl_cvode_reserve *r = sparse ? ((reserved_sparse *)A->content)->reserve : ((reserved_matrix *)A->content)->reserve;
    SUNMatrix B = r->J;
    r->J = NULL;
    if (B)
        return B;
    return sparse ? reserved_matrix_new(SM_ROWS_S(A), 1, SM_NNZ_S(A), A->sunctx, r)
                  : reserved_matrix_new(SM_ROWS_D(A), 0, 0, A->sunctx, r);
}

/* The reserve for a system of this size (its Jacobian dense or sparse), or NULL if out of memory. */
static pl_cvode_reserve *reserve_new(size_t size, int sparse, SUNContext sun)
{
    pl_cvode_reserve *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->J = reserved_matrix_new((sunindextype)size, sparse, (sunindextype)size, sun, r);
    while (r->J && r->nv < CVODE_RESERVE && (r->v[r->nv] = reserved_vector_new((sunindextype)size, sun, r)))
        r->nv++;
    if (r->nv < CVODE_RESERVE) {
        while (r->nv > 0)
            N_VDestroy(r->v[--r->nv]);
        if (r->J)
            SUNMatDestroy(r->J);
        free(r);
        return NULL;
    }
    return r;
}

static void reserve_free(pl_cvode_reserve *r)
{
    if (!r)
        return;
    while (r->nv > 0)
        N_VDestroy(r->v[--r->nv]);
    if (r->J)
        SUNMatDestroy(r->J);
    free(r);
}

/* KLU's factorization of I - gamma J (SUNLinSolSetup_KLU), with a singular matrix a recoverable
 * failure as it is for the dense solver (CVODE then retries with a smaller step, hence gamma),
 * where SUNDIALS's KLU interface makes one found at a first factorization fatal.  After a failure
 * KLU starts again from a new analysis: a failed factorization leaves its numeric factors unusable
 * for the next refactorization.  The reason is kept for the failure report. */
static int klu_setup(SUNLinearSolver S, SUNMatrix A)
{
    sun_klu_common *common = SUNLinSol_KLUGetCommon(S);
    pl_cvode *cv = common->user_data;
    cv->analyses += ((SUNLinearSolverContent_KLU)S->content)->first_factorize != 0;
    int flag = SUNLinSolSetup_KLU(S, A);
    if (flag == SUNLS_SUCCESS)
        return flag;
    cv->klu_status = (long)common->status;
    cv->klu_column = (long)common->singular_col;
    if (SUNLinSol_KLUReInit(S, A, 0, SUNKLU_REINIT_PARTIAL) != SUNLS_SUCCESS)
        return SUNLS_PACKAGE_FAIL_UNREC;
    return common->status == KLU_SINGULAR ? SUNLS_PACKAGE_FAIL_REC : SUNLS_PACKAGE_FAIL_UNREC;
}

/* CVODE initializes its linear solver at every (re)start, which makes SUNDIALS's KLU order the
 * matrix anew (SUNLinSolInitialize_KLU); the ordering depends on the pattern alone, which
 * pl_cvode_set_sparse watches: it is kept while the pattern is. */
static int klu_initialize(SUNLinearSolver S)
{
    ((SUNLinearSolverContent_KLU)S->content)->last_flag = SUNLS_SUCCESS;
    return SUNLS_SUCCESS;
}

/* Room for nnz entries in the sparse matrix A, its entries kept (SUNSparseMatrix_Reallocate does
 * not check its allocations). */
static int sparse_reserve(SUNMatrix A, sunindextype nnz)
{
    if (SM_NNZ_S(A) >= nnz)
        return 0;
    sunindextype *rows = realloc(SM_INDEXVALS_S(A), (size_t)nnz * sizeof *rows);
    if (!rows)
        return -1;
    SM_INDEXVALS_S(A) = rows;
    sunrealtype *data = realloc(SM_DATA_S(A), (size_t)nnz * sizeof *data);
    if (!data)
        return -1;
    SM_DATA_S(A) = data;
    SM_NNZ_S(A) = nnz;
    return 0;
}

_Static_assert(sizeof(sunindextype) == sizeof(int64_t), "pl_csc's indices are SUNDIALS's (csc.h)");

int pl_cvode_set_sparse(pl_cvode *cv, SUNMatrix J, const pl_csc *a)
{
    sunindextype nnz = (sunindextype)pl_csc_nnz(a);
    /* CVODE copies J into its saved copy without checking that copy's allocation: both grow here */
    if (sparse_reserve(J, nnz) != 0 || (cv->saved && sparse_reserve(cv->saved, nnz) != 0)) {
        cv->nomem = 1;
        return -1;
    }
    memcpy(SM_INDEXPTRS_S(J), a->colptr, (a->size + 1) * sizeof *a->colptr);
    memcpy(SM_INDEXVALS_S(J), a->rowind, (size_t)nnz * sizeof *a->rowind);
    memcpy(SM_DATA_S(J), a->values, (size_t)nnz * sizeof *a->values);
    if (pl_csc_same_pattern(a, &cv->analysed))
        return 0;
    if (pl_csc_copy_pattern(&cv->analysed, a) != 0) {
        cv->nomem = 1;
        return -1;
    }
    /* partial: the matrix keeps its storage; the factors are freed and the next setup analyses */
    return SUNLinSol_KLUReInit(cv->LS, J, nnz, SUNKLU_REINIT_PARTIAL) == SUNLS_SUCCESS ? 0 : -1;
}

static const char *klu_status_name(long status)
{
    switch (status) {
    case KLU_SINGULAR: return "KLU_SINGULAR: the matrix I - gamma J is singular";
    case KLU_OUT_OF_MEMORY: return "KLU_OUT_OF_MEMORY";
    case KLU_INVALID: return "KLU_INVALID: an invalid matrix";
    case KLU_TOO_LARGE: return "KLU_TOO_LARGE: an integer overflow";
    default: return "an unknown status";
    }
}

pl_status pl_cvode_step_failure(pl_cvode *cv, int flag, const char *context, pl_error *err)
{
    pl_status s = pl_cvode_failure(cv->mem, "CVode", flag, context, cv->message, err);
    long lin = 0;
    if (!cv->sparse || !err)
        return s;
    char first[sizeof err->message];
    memcpy(first, err->message, sizeof first);
    if (cv->nomem)
        return pl_fail(err, PL_ERR_NOMEM, "%s; out of memory for the sparse Jacobian", first);
    if (cv->klu_status == KLU_OK || CVodeGetLastLinFlag(cv->mem, &lin) != CV_SUCCESS ||
        (lin != SUNLS_PACKAGE_FAIL_REC && lin != SUNLS_PACKAGE_FAIL_UNREC))
        return s;
    if (cv->klu_status == KLU_SINGULAR)
        return pl_fail(err, s, "%s; KLU's last factorization failed with %s (zero pivot in column %ld)", first,
                       klu_status_name(cv->klu_status), cv->klu_column);
    return pl_fail(err, cv->klu_status == KLU_OUT_OF_MEMORY ? PL_ERR_NOMEM : s,
                   "%s; KLU's last factorization failed with %s (%ld)", first, klu_status_name(cv->klu_status),
                   cv->klu_status);
}

#define CHECK(call, what) PL_CVODE_CHECK(cv->mem, "set-up", cv->message, call, what)
#define SUNCONTEXT_ROOM 16384

pl_status pl_cvode_create(pl_cvode *cv, const pl_cvode_spec *s, pl_error *err)
{
    memset(cv, 0, sizeof *cv);
    /* SUNDIALS 6.4's SUNContext_Create writes through an allocation of its logger it does not check:
     * under memory pressure it is given its room first (a block freed just before, which the
     * allocator hands out again; it needs well under 1 KB), and not called when there is none. */
    void *room = malloc(SUNCONTEXT_ROOM);
    if (!room)
        return pl_fail(err, PL_ERR_NOMEM, "out of memory creating CVODE's context");
    free(room);
    if (SUNContext_Create(NULL, &cv->sun) != 0)
        return pl_fail(err, PL_ERR_NOMEM, "SUNContext_Create failed (out of memory)");
    cv->reserve = reserve_new(s->size, s->sparse, cv->sun);
    cv->saved = cv->reserve ? cv->reserve->J : NULL;
    cv->y = cv->reserve ? reserved_vector_new((sunindextype)s->size, cv->sun, cv->reserve) : NULL;
    cv->ytmp = cv->y ? N_VNew_Serial((sunindextype)s->size, cv->sun) : NULL;
    if (!cv->ytmp)
        return pl_fail(err, PL_ERR_NOMEM, "out of memory for CVODE (a system of size %zu)", s->size);
    memcpy(N_VGetArrayPointer(cv->y), s->y0, s->size * sizeof *s->y0);
    cv->mem = CVodeCreate(CV_BDF, cv->sun);
    if (!cv->mem)
        return pl_fail(err, PL_ERR_NOMEM, "CVodeCreate failed (out of memory) making the BDF stepper");
    CHECK(CVodeSetErrHandlerFn(cv->mem, pl_cvode_keep_message, cv->message), "CVodeSetErrHandlerFn");
    int flag = CVodeInit(cv->mem, s->rhs, 0.0, cv->y);
    if (flag == CV_MEM_FAIL) {
        /* SUNDIALS 6.4 frees the vectors of a CVodeInit that ran out of memory and keeps their addresses,
         * which CVodeFree would free again: CVODE's block (a few kB) is left, on a path that fails the run. */
        cv->mem = NULL;
        return pl_fail(err, PL_ERR_NOMEM, "out of memory in CVODE's set-up (CVodeInit)");
    }
    CHECK(flag, "CVodeInit");
    CHECK(CVodeSetUserData(cv->mem, s->user), "CVodeSetUserData");
    CHECK(CVodeWFtolerances(cv->mem, s->weights), "CVodeWFtolerances");
    /* the sparse matrices start with room for the diagonal; pl_cvode_set_sparse grows them */
    cv->sparse = s->sparse;
    cv->J = reserved_matrix_new((sunindextype)s->size, s->sparse, (sunindextype)s->size, cv->sun, cv->reserve);
    if (s->sparse) {
        if (pl_csc_init(&cv->analysed, s->size, s->size) != 0 || !cv->J ||
            !(cv->LS = SUNLinSol_KLU(cv->y, cv->J, cv->sun)))
            return pl_fail(err, PL_ERR_NOMEM, "out of memory for the sparse linear solver (KLU)");
        /* KLU's user_data serves its user ordering only, which is not used (SUNDIALS's default, AMD) */
        SUNLinSol_KLUGetCommon(cv->LS)->user_data = cv;
        cv->LS->ops->setup = klu_setup;
        cv->LS->ops->initialize = klu_initialize;
    } else {
        cv->LS = cv->J ? SUNLinSol_Dense(cv->y, cv->J, cv->sun) : NULL;
        if (!cv->LS)
            return pl_fail(err, PL_ERR_NOMEM, "out of memory for the dense linear solver");
    }
    CHECK(CVodeSetLinearSolver(cv->mem, cv->LS, cv->J), "CVodeSetLinearSolver");
    if (s->jacobian)
        CHECK(CVodeSetJacFn(cv->mem, s->jacobian), "CVodeSetJacFn");
    CHECK(CVodeRootInit(cv->mem, s->nroots, s->roots), "CVodeRootInit");
    CHECK(CVodeSetNoInactiveRootWarn(cv->mem), "CVodeSetNoInactiveRootWarn");
    CHECK(CVodeSetMaxNumSteps(cv->mem, -1), "CVodeSetMaxNumSteps"); /* the loop caps the work */
    CHECK(CVodeSetStopTime(cv->mem, s->t_end), "CVodeSetStopTime");
    return PL_OK;
}

#undef CHECK

void pl_cvode_free(pl_cvode *cv)
{
    if (cv->mem)
        CVodeFree(&cv->mem);
    if (cv->LS)
        SUNLinSolFree(cv->LS);
    if (cv->J)
        SUNMatDestroy(cv->J);
    if (cv->ytmp)
        N_VDestroy(cv->ytmp);
    if (cv->y)
        N_VDestroy(cv->y);
    reserve_free(cv->reserve);
    pl_csc_free(&cv->analysed);
    if (cv->sun)
        SUNContext_Free(&cv->sun);
}

const double *pl_cvode_dense(pl_cvode *cv, double t)
{
    if (CVodeGetDky(cv->mem, t, 0, cv->ytmp) != CV_SUCCESS)
        return NULL;
    return N_VGetArrayPointer(cv->ytmp);
}

