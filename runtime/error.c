/*
 * error.c - the per-thread error message behind pykrt_last_error.
 *
 * Every failing pykrt function formats its message here and returns its
 * status in one step (`return pk_fail(...)`). The buffer is thread-local, so
 * threads never see each other's messages and no lock is needed; it is a
 * fixed array so that reporting an error never allocates (it may report
 * running out of memory). Long messages, such as a JIT log, are truncated.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "runtime.h"

#define PK_MESSAGE_BYTES 8192

static _Thread_local char message[PK_MESSAGE_BYTES];

pykrt_status pk_fail(pykrt_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    return status;
}

void pk_append(const char *fmt, ...)
{
    size_t used = strlen(message);
    if (used + 1 >= sizeof message)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message + used, sizeof message - used, fmt, ap);
    va_end(ap);
}

const char *pk_message(void)
{
    return message;
}

const char *pykrt_last_error(void)
{
    return message;
}

const char *pykrt_status_name(pykrt_status status)
{
    /* ORDER STATUS: as enum pykrt_status in pykrt.h. */
    static const char *const names[] = {
        "PYKRT_SUCCESS",        "PYKRT_ERROR_INVALID_ARGUMENT", "PYKRT_ERROR_NO_DRIVER",
        "PYKRT_ERROR_NO_DEVICE", "PYKRT_ERROR_OUT_OF_MEMORY",   "PYKRT_ERROR_CUDA",
        "PYKRT_ERROR_IO",       "PYKRT_ERROR_MANIFEST",         "PYKRT_ERROR_STALE",
        "PYKRT_ERROR_NO_TARGET", "PYKRT_ERROR_MODULE_LOAD",     "PYKRT_ERROR_NOT_FOUND",
        "PYKRT_ERROR_BAD_LAUNCH", "PYKRT_ERROR_INVALID_HANDLE", "PYKRT_ERROR_IN_USE",
        "PYKRT_ERROR_KERNEL_EXCEPTION", "PYKRT_ERROR_NOT_SUPPORTED",
    };
    if ((unsigned)status >= sizeof names / sizeof names[0])
        return "PYKRT_ERROR_UNKNOWN_STATUS";
    return names[status];
}
