#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sealprov.h"

#include "util.h"

void sp_set_err(char *err, size_t errlen, const char *fmt, ...)
{
  if (!err || errlen == 0)
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}

double sp_now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int sp_map_file(const char *path, size_t min_size, void **map, size_t *size, char *err,
                size_t errlen)
{
  *map = NULL;
  *size = 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    sp_set_err(err, errlen, "%s: cannot open: %s", path, strerror(errno));
    return SEALPROV_ERR_IO;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    sp_set_err(err, errlen, "%s: not a regular file", path);
    close(fd);
    return SEALPROV_ERR_IO;
  }
  *size = (size_t)st.st_size;
  if (*size < min_size || *size == 0) { /* mmap of 0 bytes fails: report it as short */
    close(fd);
    return SEALPROV_OK;
  }
  void *m = mmap(NULL, *size, PROT_READ, MAP_PRIVATE, fd, 0);
  int saved = errno;
  close(fd);
  if (m == MAP_FAILED) {
    sp_set_err(err, errlen, "%s: cannot map %zu bytes: %s", path, *size, strerror(saved));
    return SEALPROV_ERR_IO;
  }
  *map = m;
  return SEALPROV_OK;
}
