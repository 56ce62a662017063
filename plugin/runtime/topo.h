/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* topo.h -- host topology from sysfs: NUMA nodes and their CPUs, a PCI device's NUMA
 * node and PCIe link, and the CPU set a device's worker threads are bound to.
 *
 * Everything is read from sysfs under a root that is "/sys" unless the environment
 * variable SEALPROV_SYSFS_ROOT names another absolute directory (a testing knob: the
 * tests describe hosts with 2 nodes and 4 GPUs by a fake tree; docs/configuration.md).
 *   <root>/devices/system/node/nodeN/cpulist          the CPUs of node N
 *   <root>/bus/pci/devices/<bus id>/numa_node         -1 when the firmware says none
 *   <root>/bus/pci/devices/<bus id>/{current,max}_link_{speed,width}
 * A missing file means "unknown", never an error: a host with one node, a VM without
 * NUMA information, or a kernel without these files simply gets no placement. Files
 * are opened without blocking (a FIFO in a fake tree cannot hang) and only regular
 * files are read, at most 16 KiB.
 */
#ifndef SEALPROV_TOPO_H
#define SEALPROV_TOPO_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* cpu_set_t */
#endif
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SP_TOPO_MAX_NODE 1023 /* the kernel's largest MAX_NUMNODES */

/* A PCIe link as sysfs reports it; 0 = unknown. */
typedef struct sp_pcie_link {
  unsigned cur_gen, cur_width; /* generation 1..7, lanes */
  unsigned max_gen, max_width;
} sp_pcie_link;

/* What the scheduler knows about one device's place on the host (filled by
 * sp_topo_place, at pool start, before the device's workers start). */
typedef struct sp_topo_dev {
  int numa_node;      /* -1: unknown, or a host with one node */
  bool node_from_ini; /* numa_node came from the device section's numa_node key */
  sp_pcie_link link;  /* CUDA devices with a PCI bus id; zeros for CPU devices */
  bool bind;          /* workers are bound to cpus */
  unsigned ncpus;     /* CPUs in cpus when bind */
  cpu_set_t cpus;     /* the node's CPUs that the process may use */
  char note[320];     /* why there is no binding, or what it is (for the log) */
} sp_topo_dev;

/* The sysfs root: $SEALPROV_SYSFS_ROOT when it is an absolute path shorter than 512
 * bytes, else "/sys". *ignored is set when the variable is set but not usable. */
const char *sp_topo_root(bool *ignored);

/* Parses a kernel cpulist ("0-3,8,10-11", blanks and a newline around it allowed; ""
 * is the empty set). CPUs must be below CPU_SETSIZE. false with err on bad text. */
bool sp_cpulist_parse(const char *s, cpu_set_t *out, char *err, size_t errlen);
/* Formats a set as a cpulist ("0-3,8"); "" for the empty set; cut with "..." to fit. */
void sp_cpulist_format(const cpu_set_t *set, char *buf, size_t cap);

/* Number of NUMA nodes that have CPUs (1 when the node directory is missing).
 * *max_node gets the highest such node (0 if none found). */
int sp_topo_node_count(const char *root, int *max_node);
/* The CPUs of node n. false with err (naming the file) when it is missing or bad. */
bool sp_topo_node_cpus(const char *root, int n, cpu_set_t *out, char *err, size_t errlen);

/* The NUMA node (-1 unknown) and link of the PCI device bus_id ("0000:65:00.0",
 * any case, a domain of 4 or 8 hex digits or none). false when bus_id is not a PCI
 * address or the device has no sysfs directory; the link fields stay 0 where a file
 * is missing or says "Unknown". */
bool sp_topo_pci(const char *root, const char *bus_id, int *numa_node, sp_pcie_link *link);

/* The PCIe generation of a link speed text ("16.0 GT/s PCIe", "8 GT/s"): 1..7, 0 when
 * unknown. */
unsigned sp_pcie_gen_of_speed(const char *speed);

/* Decides where one device's workers go.
 *   numa_on      [provider] numa = auto (true) or off
 *   ini_node     the device section's numa_node (-1: not set)
 *   pci_bus_id   the device's PCI bus id ("" for CPU devices)
 *   allowed      the CPUs the process may use (the opening thread's affinity)
 * The node is ini_node when set, else the PCI device's numa_node. No binding when
 * numa is off, the host has one node, the node is unknown or has no cpulist, or the
 * node's CPUs and allowed do not intersect (*warn is then set: the log says so as a
 * warning). out->note says which. Never fails. */
void sp_topo_place(const char *root, bool numa_on, int ini_node, const char *pci_bus_id,
                   const cpu_set_t *allowed, sp_topo_dev *out, bool *warn);

#ifdef __cplusplus
}
#endif
#endif
