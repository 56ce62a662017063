/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* topo.c -- NUMA nodes, PCIe links and worker placement from sysfs (topo.h). */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include "runtime/topo.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TOPO_MAX_FILE (16u << 10) /* CPU_SETSIZE CPUs as "0,2,4,...": under 5 KiB */

const char *sp_topo_root(bool *ignored) {
  const char *r = getenv("SEALPROV_SYSFS_ROOT");
  if (ignored) *ignored = false;
  if (r == NULL || r[0] == '\0') return "/sys";
  if (r[0] != '/' || strlen(r) >= 512) {
    if (ignored) *ignored = true;
    return "/sys";
  }
  return r;
}

/* Reads a small sysfs attribute into buf (NUL-terminated, trailing blanks and newline
 * cut). false when it is missing, not a regular file, empty, or larger than cap - 1. */
static bool read_attr(const char *path, char *buf, size_t cap) {
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return false;
  struct stat sb;
  if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
    close(fd);
    return false;
  }
  size_t len = 0;
  for (;;) {
    if (len + 1 >= cap) { /* no room left: too long for what we expect here */
      close(fd);
      return false;
    }
    ssize_t n = read(fd, buf + len, cap - 1 - len);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      close(fd);
      return false;
    }
    if (n == 0) break;
    len += (size_t)n;
  }
  close(fd);
  buf[len] = '\0';
  while (len > 0 && isspace((unsigned char)buf[len - 1])) buf[--len] = '\0';
  return true;
}

bool sp_cpulist_parse(const char *s, cpu_set_t *out, char *err, size_t errlen) {
  CPU_ZERO(out);
  const char *p = s;
  while (isspace((unsigned char)*p)) p++;
  if (*p == '\0') return true;
  for (;;) {
    unsigned long a, b;
    char *end;
    if (!isdigit((unsigned char)*p)) goto bad;
    errno = 0;
    a = strtoul(p, &end, 10);
    if (errno != 0) goto big;
    p = end;
    b = a;
    if (*p == '-') {
      p++;
      if (!isdigit((unsigned char)*p)) goto bad;
      errno = 0;
      b = strtoul(p, &end, 10);
      if (errno != 0) goto big;
      p = end;
      if (b < a) {
        snprintf(err, errlen, "range %lu-%lu runs backwards", a, b);
        return false;
      }
    }
    if (b >= CPU_SETSIZE) goto big;
    for (unsigned long c = a; c <= b; c++) CPU_SET((size_t)c, out);
    while (isspace((unsigned char)*p)) p++;
    if (*p == '\0') return true;
    if (*p != ',') goto bad;
    p++;
    while (isspace((unsigned char)*p)) p++;
  }
bad:
  snprintf(err, errlen, "not a CPU list at \"%.20s\" (expected e.g. 0-3,8)", p);
  return false;
big:
  snprintf(err, errlen, "a CPU number at or past %d, the most this build handles", CPU_SETSIZE);
  return false;
}

void sp_cpulist_format(const cpu_set_t *set, char *buf, size_t cap) {
  if (cap == 0) return;
  buf[0] = '\0';
  size_t used = 0;
  for (int c = 0; c < CPU_SETSIZE; c++) {
    if (!CPU_ISSET(c, set)) continue;
    int e = c;
    while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, set)) e++;
    char part[32];
    int n = e > c ? snprintf(part, sizeof part, "%s%d-%d", used ? "," : "", c, e)
                  : snprintf(part, sizeof part, "%s%d", used ? "," : "", c);
    if (n < 0 || used + (size_t)n + 1 > cap) {
      /* does not fit: end with "..." where there is room for it */
      size_t at = used + 4 <= cap ? used : (cap >= 4 ? cap - 4 : 0);
      if (cap >= 4)
        memcpy(buf + at, "...", 4);
      else
        buf[0] = '\0';
      return;
    }
    memcpy(buf + used, part, (size_t)n + 1);
    used += (size_t)n;
    c = e;
  }
}

/* "nodeN" with N decimal, no sign, no leading zero; -1 otherwise. */
static int node_number(const char *name) {
  if (strncmp(name, "node", 4) != 0 || !isdigit((unsigned char)name[4])) return -1;
  if (name[4] == '0' && name[5] != '\0') return -1;
  long v = 0;
  for (const char *p = name + 4; *p; p++) {
    if (!isdigit((unsigned char)*p)) return -1;
    v = v * 10 + (*p - '0');
    if (v > SP_TOPO_MAX_NODE) return -1;
  }
  return (int)v;
}

bool sp_topo_node_cpus(const char *root, int n, cpu_set_t *out, char *err, size_t errlen) {
  char path[700];
  CPU_ZERO(out);
  snprintf(path, sizeof path, "%s/devices/system/node/node%d/cpulist", root, n);
  char *text = malloc(TOPO_MAX_FILE); /* not on the stack: this runs on a host's thread */
  if (text == NULL) {
    snprintf(err, errlen, "%s: out of memory", path);
    return false;
  }
  bool ok = read_attr(path, text, TOPO_MAX_FILE);
  char why[128];
  if (!ok)
    snprintf(err, errlen, "%s: missing, unreadable or over %u bytes", path, TOPO_MAX_FILE);
  else if (!(ok = sp_cpulist_parse(text, out, why, sizeof why)))
    snprintf(err, errlen, "%s: %s", path, why);
  free(text);
  return ok;
}

int sp_topo_node_count(const char *root, int *max_node) {
  char path[700];
  snprintf(path, sizeof path, "%s/devices/system/node", root);
  if (max_node) *max_node = 0;
  DIR *d = opendir(path);
  if (d == NULL) return 1;
  int count = 0, hi = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    int n = node_number(e->d_name);
    if (n < 0) continue;
    cpu_set_t s;
    char why[8];
    /* a node without CPUs (memory only: HBM, CXL) is no place for a thread */
    if (!sp_topo_node_cpus(root, n, &s, why, sizeof why) || CPU_COUNT(&s) == 0) continue;
    count++;
    if (n > hi) hi = n;
  }
  closedir(d);
  if (max_node) *max_node = hi;
  return count > 0 ? count : 1;
}

unsigned sp_pcie_gen_of_speed(const char *speed) {
  /* "2.5 GT/s", "5.0 GT/s", "8.0 GT/s PCIe", "16.0 GT/s", "32.0 GT/s", "64.0 GT/s" */
  if (!isdigit((unsigned char)speed[0])) return 0;
  char *end;
  double gt = strtod(speed, &end);
  while (*end == ' ') end++;
  if (strncmp(end, "GT/s", 4) != 0) return 0;
  static const struct {
    double gt;
    unsigned gen;
  } g[] = {{2.5, 1}, {5.0, 2}, {8.0, 3}, {16.0, 4}, {32.0, 5}, {64.0, 6}, {128.0, 7}};
  for (size_t i = 0; i < sizeof g / sizeof g[0]; i++)
    if (gt > g[i].gt * 0.9 && gt < g[i].gt * 1.1) return g[i].gen;
  return 0;
}

static unsigned width_of(const char *text) {
  const char *p = text;
  if (*p == 'x' || *p == 'X') p++; /* some tools print x16 */
  if (!isdigit((unsigned char)*p)) return 0;
  char *end;
  unsigned long w = strtoul(p, &end, 10);
  return *end == '\0' && w <= 64 ? (unsigned)w : 0;
}

/* "[DDDD:|DDDDDDDD:]BB:DD.F" (hex, any case) -> the kernel's "%04x:%02x:%02x.%x". */
static bool pci_sysfs_name(const char *id, char *out, size_t cap) {
  unsigned dom = 0, bus, dev, fn;
  char tail;
  const char *first = strchr(id, ':');
  if (first == NULL) return false;
  const char *second = strchr(first + 1, ':');
  const char *bdf = id;
  if (second != NULL) {
    size_t dl = (size_t)(first - id);
    if (dl != 4 && dl != 8) return false;
    for (size_t i = 0; i < dl; i++)
      if (!isxdigit((unsigned char)id[i])) return false;
    dom = (unsigned)strtoul(id, NULL, 16);
    bdf = first + 1;
  }
  if (strlen(bdf) != 7) return false;
  for (int i = 0; i < 7; i++) {
    char c = bdf[i];
    bool ok = i == 2 ? c == ':' : i == 5 ? c == '.' : isxdigit((unsigned char)c) != 0;
    if (!ok) return false;
  }
  if (sscanf(bdf, "%2x:%2x.%1x%c", &bus, &dev, &fn, &tail) != 3 || dev > 0x1f || fn > 7)
    return false;
  snprintf(out, cap, "%04x:%02x:%02x.%x", dom, bus, dev, fn);
  return true;
}

bool sp_topo_pci(const char *root, const char *bus_id, int *numa_node, sp_pcie_link *link) {
  char name[32], dir[700], path[760], text[128];
  *numa_node = -1;
  memset(link, 0, sizeof *link);
  if (bus_id == NULL || !pci_sysfs_name(bus_id, name, sizeof name)) return false;
  snprintf(dir, sizeof dir, "%s/bus/pci/devices/%s", root, name);
  struct stat sb;
  if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) return false;
  snprintf(path, sizeof path, "%s/numa_node", dir);
  if (read_attr(path, text, sizeof text)) {
    char *end;
    long n = strtol(text, &end, 10);
    if (*end == '\0' && end != text && n >= 0 && n <= SP_TOPO_MAX_NODE) *numa_node = (int)n;
  }
  snprintf(path, sizeof path, "%s/current_link_speed", dir);
  if (read_attr(path, text, sizeof text)) link->cur_gen = sp_pcie_gen_of_speed(text);
  snprintf(path, sizeof path, "%s/max_link_speed", dir);
  if (read_attr(path, text, sizeof text)) link->max_gen = sp_pcie_gen_of_speed(text);
  snprintf(path, sizeof path, "%s/current_link_width", dir);
  if (read_attr(path, text, sizeof text)) link->cur_width = width_of(text);
  snprintf(path, sizeof path, "%s/max_link_width", dir);
  if (read_attr(path, text, sizeof text)) link->max_width = width_of(text);
  return true;
}

void sp_topo_place(const char *root, bool numa_on, int ini_node, const char *pci_bus_id,
                   const cpu_set_t *allowed, sp_topo_dev *out, bool *warn) {
  memset(out, 0, sizeof *out);
  out->numa_node = -1;
  *warn = false;
  int pci_node = -1;
  bool have_pci = pci_bus_id != NULL && pci_bus_id[0] != '\0' &&
                  sp_topo_pci(root, pci_bus_id, &pci_node, &out->link);
  int nodes = sp_topo_node_count(root, NULL);
  if (nodes <= 1) {
    /* one node: nothing to place, and no node to show */
    snprintf(out->note, sizeof out->note, "one NUMA node on this host: not bound");
    return;
  }
  out->node_from_ini = ini_node >= 0;
  out->numa_node = ini_node >= 0 ? ini_node : pci_node;
  if (out->numa_node < 0) {
    snprintf(out->note, sizeof out->note, "%s",
             have_pci ? "NUMA node unknown (sysfs numa_node is -1): not bound"
             : pci_bus_id != NULL && pci_bus_id[0] != '\0'
                 ? "no sysfs entry for its PCI bus id: NUMA node unknown, not bound"
                 : "no numa_node set: not bound");
    return;
  }
  if (!numa_on) {
    snprintf(out->note, sizeof out->note, "NUMA node %d; numa = off: not bound", out->numa_node);
    return;
  }
  cpu_set_t node;
  char why[160];
  if (!sp_topo_node_cpus(root, out->numa_node, &node, why, sizeof why)) {
    *warn = true;
    snprintf(out->note, sizeof out->note, "NUMA node %d has no CPU list (%.120s): not bound",
             out->numa_node, why);
    return;
  }
  CPU_AND(&out->cpus, &node, allowed);
  int n = CPU_COUNT(&out->cpus);
  if (n == 0) {
    *warn = true;
    char nl[64], al[64];
    sp_cpulist_format(&node, nl, sizeof nl);
    sp_cpulist_format(allowed, al, sizeof al);
    snprintf(out->note, sizeof out->note,
             "NUMA node %d's CPUs (%s) are none of the CPUs this process may use (%s): not "
             "bound",
             out->numa_node, nl, al);
    return;
  }
  out->bind = true;
  out->ncpus = (unsigned)n;
  char cl[96];
  sp_cpulist_format(&out->cpus, cl, sizeof cl);
  snprintf(out->note, sizeof out->note, "NUMA node %d%s: bound to %d CPU%s (%s)", out->numa_node,
           out->node_from_ini ? " (numa_node in the INI)" : "", n, n == 1 ? "" : "s", cl);
}
