/* util.h -- small helpers shared by the module's C files. */
#ifndef SEALPROV_UTIL_H
#define SEALPROV_UTIL_H

#include <stddef.h>

#include "sealprov.h"

/* A status-returning call that jumps to the cleanup label on failure (C and the .cu
 * files alike). */
#define SP_TRY_GOTO(expr, status, label)                                                       \
  do {                                                                                         \
    (status) = (expr);                                                                         \
    if ((status) != SEALPROV_OK) goto label;                                                   \
  } while (0)

/* A status-returning call whose failure is returned as it is. */
#define SP_TRY(expr)                                                                           \
  do {                                                                                         \
    int sp_try_st_ = (expr);                                                                   \
    if (sp_try_st_ != SEALPROV_OK) return sp_try_st_;                                          \
  } while (0)

#ifdef __cplusplus
extern "C" {
#endif

/* printf into a caller's error buffer; NULL or zero-length buffers are ignored. */
void sp_set_err(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Maps a regular file read-only (MAP_PRIVATE). On OK, *size is the file size and
 * *map the mapping (munmap(*map, *size) to release), except that a file shorter than
 * min_size is not mapped: *map is NULL so the caller can say what is missing. Other
 * failures return SEALPROV_ERR_IO with "path: why" in err. */
int sp_map_file(const char *path, size_t min_size, void **map, size_t *size, char *err,
                size_t errlen);
/* Monotonic clock in milliseconds. */
double sp_now_ms(void);

#ifdef __cplusplus
}
#endif
#endif
