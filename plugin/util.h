/* util.h -- small helpers shared by the module's C files. */
#ifndef SEALPROV_UTIL_H
#define SEALPROV_UTIL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* printf into a caller's error buffer; NULL or zero-length buffers are ignored. */
void sp_set_err(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Monotonic clock in milliseconds. */
double sp_now_ms(void);

#ifdef __cplusplus
}
#endif
#endif
