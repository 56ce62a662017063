/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* fatbin_archs.c -- lists the device code in a shared object's CUDA fatbinary: one line
 * per entry, "CONTAINER elf sm_NN" or "CONTAINER ptx compute_NN", in file order.
 *
 * tests/cuda/fatbin_archs.sh checks the built module with it against the architectures
 * configure chose. cuobjdump (--list-elf, --list-ptx) says the same, but it is not part
 * of every CUDA installation (the toolkit of the pip wheels, which CI has, lacks it), so
 * the test reads the section itself and compares with cuobjdump where there is one.
 *
 * The layout (ELF64 little-endian; the .nv_fatbin section holds one container per
 * translation unit, each 8-byte aligned):
 *   container: u32 magic 0xBA55ED50, u16 version 1, u16 header size (16),
 *              u64 size of the entries that follow;
 *   entry:     u16 kind (1 PTX, 2 ELF), u16, u32 entry header size, u64 payload size
 *              (padded), ..., u32 architecture (e.g. 90) at byte 28;
 *              the payload follows the entry header.
 * Every length is checked against the section before it is used. Exit status: 0 listed
 * (at least one entry), 1 no fatbinary or a malformed one, 2 usage or unreadable file. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FATBIN_MAGIC 0xBA55ED50u

static uint16_t rd16(const unsigned char *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t rd32(const unsigned char *p) {
  return (uint32_t)rd16(p) | (uint32_t)rd16(p + 2) << 16;
}
static uint64_t rd64(const unsigned char *p) {
  return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

static unsigned char *read_all(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) {
    fprintf(stderr, "fatbin_archs: %s: %s\n", path, strerror(errno));
    return NULL;
  }
  size_t cap = 1 << 20, n = 0;
  unsigned char *buf = malloc(cap);
  while (buf != NULL) {
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (n < cap) break;
    unsigned char *bigger = realloc(buf, cap * 2);
    if (bigger == NULL) {
      free(buf);
      buf = NULL;
      break;
    }
    buf = bigger;
    cap *= 2;
  }
  if (buf == NULL || ferror(f)) {
    fprintf(stderr, "fatbin_archs: %s: cannot read it\n", path);
    free(buf);
    fclose(f);
    return NULL;
  }
  fclose(f);
  *len = n;
  return buf;
}

/* The .nv_fatbin section of an ELF64 little-endian file: 0 found, -1 not ELF64 LE or no
 * such section (message printed). */
static int find_section(const unsigned char *b, size_t n, const char *path, uint64_t *off,
                        uint64_t *size) {
  if (n < 64 || memcmp(b, "\177ELF", 4) != 0 || b[4] != 2 || b[5] != 1) {
    fprintf(stderr, "fatbin_archs: %s: not a 64-bit little-endian ELF file\n", path);
    return -1;
  }
  uint64_t shoff = rd64(b + 0x28);
  uint16_t shentsize = rd16(b + 0x3a), shnum = rd16(b + 0x3c), shstrndx = rd16(b + 0x3e);
  if (shentsize < 64 || shoff > n || (uint64_t)shnum * shentsize > n - shoff || shstrndx >= shnum) {
    fprintf(stderr, "fatbin_archs: %s: section headers past the end of the file\n", path);
    return -1;
  }
  const unsigned char *strsh = b + shoff + (uint64_t)shstrndx * shentsize;
  uint64_t stroff = rd64(strsh + 0x18), strsize = rd64(strsh + 0x20);
  if (stroff > n || strsize > n - stroff) {
    fprintf(stderr, "fatbin_archs: %s: section names past the end of the file\n", path);
    return -1;
  }
  for (unsigned i = 0; i < shnum; i++) {
    const unsigned char *sh = b + shoff + (uint64_t)i * shentsize;
    uint32_t name = rd32(sh);
    if (name >= strsize) continue;
    const char *nm = (const char *)b + stroff + name;
    size_t room = strsize - name;
    if (strnlen(nm, room) == room || strcmp(nm, ".nv_fatbin") != 0) continue;
    *off = rd64(sh + 0x18);
    *size = rd64(sh + 0x20);
    if (*off > n || *size > n - *off) {
      fprintf(stderr, "fatbin_archs: %s: .nv_fatbin past the end of the file\n", path);
      return -1;
    }
    return 0;
  }
  fprintf(stderr, "fatbin_archs: %s: no .nv_fatbin section (no device code)\n", path);
  return -1;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: fatbin_archs FILE.so\n");
    return 2;
  }
  size_t n = 0;
  unsigned char *b = read_all(argv[1], &n);
  if (b == NULL) return 2;
  uint64_t off, size;
  if (find_section(b, n, argv[1], &off, &size) != 0) {
    free(b);
    return 1;
  }
  const unsigned char *sec = b + off;
  uint64_t p = 0;
  unsigned containers = 0, entries = 0;
  int rc = 0;
  while (p + 16 <= size) {
    if (rd32(sec + p) != FATBIN_MAGIC) {
      /* containers are 8-byte aligned; what lies between them is zero padding */
      p += 8 - (p % 8);
      continue;
    }
    uint16_t hsize = rd16(sec + p + 6);
    uint64_t body = rd64(sec + p + 8);
    if (hsize < 16 || hsize > size - p || body > size - p - hsize) {
      fprintf(stderr,
              "fatbin_archs: %s: container at section offset %llu runs past the "
              "section\n",
              argv[1], (unsigned long long)p);
      rc = 1;
      break;
    }
    uint64_t e = p + hsize, end = p + hsize + body;
    containers++;
    while (e + 32 <= end) {
      uint16_t kind = rd16(sec + e);
      uint32_t ehsize = rd32(sec + e + 4);
      uint64_t payload = rd64(sec + e + 8);
      uint32_t arch = rd32(sec + e + 28);
      if (ehsize < 32 || ehsize > end - e || payload > end - e - ehsize) {
        fprintf(stderr,
                "fatbin_archs: %s: entry at section offset %llu runs past its "
                "container\n",
                argv[1], (unsigned long long)e);
        rc = 1;
        break;
      }
      if (kind == 1)
        printf("%u ptx compute_%u\n", containers, arch);
      else if (kind == 2)
        printf("%u elf sm_%u\n", containers, arch);
      else
        printf("%u kind%u %u\n", containers, kind, arch);
      entries++;
      e += ehsize + payload;
    }
    if (rc) break;
    p = end;
  }
  free(b);
  if (rc == 0 && entries == 0) {
    fprintf(stderr, "fatbin_archs: %s: .nv_fatbin holds no entries\n", argv[1]);
    rc = 1;
  }
  return rc;
}
