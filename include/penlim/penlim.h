/* penlim: penalty approximations of mechanical systems with unilateral constraints, and their
 * limit mu -> infinity (Miller and Bentsman, "Generalized solutions in systems with active
 * unilateral constraints", Nonlinear Analysis: Hybrid Systems 1 (2007)).
 *
 * The whole public API.  Link with -lpenlim (pkg-config penlim, or CMake find_package(penlim) and
 * the target penlim::penlim).  Call pl_library_init once before anything else.
 *
 * Pointers: every function checks its pointer arguments.  A NULL handle or a NULL output that a
 * function must fill gives PL_ERR_INPUT (with a message when it takes a pl_error; err itself may be
 * NULL), and the functions that return no status give 0 from a count, NAN from a value, NULL from
 * a pointer, and nothing from a destructor.  What cannot be checked: a handle freed or not made by
 * this library, an array shorter than the count given with it, a case whose callbacks crash. */
#ifndef PENLIM_H
#define PENLIM_H

#include "penlim/status.h"
#include "penlim/model.h"
#include "penlim/solve.h"
#include "penlim/study.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PL_VERSION_MAJOR 0
#define PL_VERSION_MINOR 2
#define PL_VERSION_PATCH 0

/* The version of the library linked ("0.2.0"), which may differ from the headers'. */
PL_API const char *pl_version(void);

/* Process-wide settings, once, before any other call (not thread-safe itself): GSL's error handler
 * is turned off, so that GSL reports through return codes instead of aborting. */
PL_API void pl_library_init(void);

#ifdef __cplusplus
}
#endif

#endif
