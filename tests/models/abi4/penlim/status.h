/* penlim: status codes and error messages returned by every library call.
 * The library never prints or exits: it fills a pl_error and returns its status. */
#ifndef PENLIM_STATUS_H
#define PENLIM_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

/* Marks the functions of the public API: the only symbols libpenlim.so exports. */
#if defined(__GNUC__)
#define PL_API __attribute__((visibility("default")))
#else
#define PL_API
#endif

typedef enum {
    PL_OK = 0,
    PL_ERR_IO = 1,     /* a file could not be written or read */
    PL_ERR_INPUT = 2,  /* bad input: unknown name, value out of range, malformed number, invalid model */
    PL_ERR_SOLVER = 3, /* a numerical solver failed; the message carries its reason */
    PL_ERR_NOMEM = 4
} pl_status;

/* A status and its one-line message (empty for PL_OK). */
typedef struct {
    pl_status status;
    char message[512];
} pl_error;

#ifdef __cplusplus
}
#endif

#endif
