// Command sealprov-go-example is a sealing host in Go: it loads the sealprov module
// with dlopen through cgo and the published header (include/sealprov.h), proves the
// partition files it is given in one job, prints the results and verifies every proof
// with the verifying key. Curio and Lotus are Go programs; this is how one of them
// would drive the module. It is a Go module of its own (go.mod next to this file) that
// uses only "C" and the standard library, so it builds offline; from the top of the
// repository (Debian 12: apt-get install golang-go gcc):
//
//	cd examples/go && go build -o sealprov-go-example .
//	./sealprov-go-example MODULE.so CONFIG.ini CIRCUIT.params CIRCUIT.vk PARTITION.spa...
//
// Parameters and partitions for a try: `sealprov setup --constraints 2^10 --inputs 4
// --partitions 3 --out DIR`. The test suite runs these two lines as written here, with
// the placeholders filled in, when go is installed (tests/examples/go_example.sh). Exit
// status: 0 every proof made and verified, 1 a call failed or a proof does not verify,
// 2 bad usage.
package main

/*
#cgo CFLAGS: -I${SRCDIR}/../../include
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sealprov.h>

// Go cannot call C function pointers: these wrappers call the module's table for it.

// The module logs from its own threads; a C callback keeps Go's scheduler out of that.
static void host_log(void *user, int level, const char *msg) {
  (void)user;
  static const char *const names[] = {"error", "warn", "info", "debug"};
  fprintf(stderr, "[sealprov %s] %s\n", level >= 0 && level <= 3 ? names[level] : "?", msg);
}

static const sealprov_host host = {
    .struct_size = sizeof(sealprov_host), .log_level = SEALPROV_LOG_WARN, .log = host_log};

// dlopen + dlsym + init; NULL and a message in err on failure.
static const sealprov_vtable *load_module(const char *path, void **dl, char *err, size_t errlen) {
  *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (*dl == NULL) {
    snprintf(err, errlen, "dlopen %s: %s", path, dlerror());
    return NULL;
  }
  union { void *obj; sealprov_provider_init_fn fn; } entry = {.obj = dlsym(*dl, SEALPROV_ENTRY_SYMBOL)};
  if (entry.obj == NULL) {
    snprintf(err, errlen, "%s is not a sealprov module: no %s", path, SEALPROV_ENTRY_SYMBOL);
    dlclose(*dl);
    return NULL;
  }
  const sealprov_vtable *vt = NULL;
  int st = entry.fn(SEALPROV_ABI_MAJOR, SEALPROV_ABI_MINOR, &host, &vt);
  if (st != SEALPROV_OK || vt == NULL) {
    snprintf(err, errlen, "the module %s refused ABI %d.%d (status %d; see its log line)", path,
             SEALPROV_ABI_MAJOR, SEALPROV_ABI_MINOR, st);
    dlclose(*dl);
    return NULL;
  }
  return vt;
}

static const char *sp_version(const sealprov_vtable *vt) { return vt->version(); }
static const char *sp_strerror(const sealprov_vtable *vt, int st) { return vt->strerror(st); }
static const char *sp_last_error(const sealprov_vtable *vt) { return vt->last_error(); }
static int sp_open(const sealprov_vtable *vt, const char *ini, sealprov_provider **p) {
  return vt->open(ini, p);
}
static int sp_close(const sealprov_vtable *vt, sealprov_provider *p) { return vt->close(p); }
static int sp_srs_load(const sealprov_vtable *vt, sealprov_provider *p, const char *path,
                       sealprov_srs **out) {
  return vt->srs_load(p, path, out);
}
static int sp_vk_load(const sealprov_vtable *vt, sealprov_provider *p, const char *path,
                      sealprov_srs **out) {
  return vt->vk_load(p, path, out);
}
static void sp_srs_release(const sealprov_vtable *vt, sealprov_srs *s) { vt->srs_release(s); }
static int sp_prove(const sealprov_vtable *vt, sealprov_provider *p, const sealprov_job *job) {
  return vt->prove(p, job);
}
static int sp_verify(const sealprov_vtable *vt, sealprov_provider *p, const sealprov_srs *vk,
                     const void *inputs, uint64_t n, const uint8_t *proof, int *valid) {
  return vt->verify(p, vk, inputs, n, SEALPROV_SCALAR_CANONICAL_LE, proof, valid);
}
static int sp_devices(const sealprov_vtable *vt, sealprov_provider *p, sealprov_device_info *out,
                      size_t cap, size_t *count) {
  return vt->devices(p, out, cap, count);
}
*/
import "C"

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"runtime"
	"unsafe"
)

// module is a loaded sealprov module and one open provider.
type module struct {
	dl unsafe.Pointer
	vt *C.sealprov_vtable
	p  *C.sealprov_provider
}

// fail returns the status text and the calling thread's detail of a failed call.
// Detail is thread-local in the module: the caller must be on the same OS thread as
// the failed call (main locks it, see main).
func (m *module) fail(what string, st C.int) error {
	return fmt.Errorf("%s: %s: %s", what, C.GoString(C.sp_strerror(m.vt, st)),
		C.GoString(C.sp_last_error(m.vt)))
}

// partition is one .spa file copied into C memory (the module reads it while the job
// runs, so it must not be Go memory the collector could move or free).
type partition struct {
	path   string
	mem    unsafe.Pointer
	asg    C.sealprov_assignment
	inputs unsafe.Pointer // public inputs after ONE, 32 bytes each
	nInp   uint64         // their number
}

// readSpa reads a partition assignment file (docs/formats.md: header of 96 bytes,
// a, b, c, inputs, aux, three density bitmaps, XXH64). The module checks sizes and
// popcounts again at submit.
func readSpa(path string) (*partition, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(data) < 104 || string(data[:8]) != "SEALSPA1" {
		return nil, fmt.Errorf("%s: not a .spa file (no SEALSPA1 magic)", path)
	}
	le := binary.LittleEndian
	if v := le.Uint32(data[8:]); v != 1 {
		return nil, fmt.Errorf("%s: version %d at byte 8, this example reads 1", path, v)
	}
	f := make([]uint64, 9)
	for i := range f {
		f[i] = le.Uint64(data[16+8*i:])
	}
	abc, inp, aux := f[0], f[1], f[2]
	words := func(bits uint64) uint64 { return (bits + 63) / 64 }
	// Each size is bounded by the file length before any product is formed.
	n := uint64(len(data))
	if abc > n/96 || inp > n/32 || aux > n/32 || f[3] > 8*n || f[5] > 8*n || f[7] > 8*n {
		return nil, fmt.Errorf("%s: sizes in the header exceed the file (%d bytes)", path, n)
	}
	want := 96 + 32*(3*abc+inp+aux) + 8*(words(f[3])+words(f[5])+words(f[7])) + 8
	if want != n || inp == 0 {
		return nil, fmt.Errorf("%s: abc_size %d, inp_size %d, aux_size %d need %d bytes, the file has %d",
			path, abc, inp, aux, want, n)
	}
	mem := C.malloc(C.size_t(n))
	if mem == nil {
		return nil, fmt.Errorf("%s: out of memory", path)
	}
	copy(unsafe.Slice((*byte)(mem), n), data)
	at := func(off uint64) unsafe.Pointer { return unsafe.Add(mem, off) }
	off := uint64(96)
	p := &partition{path: path, mem: mem}
	a := &p.asg
	a.a = at(off)
	a.b = at(off + 32*abc)
	a.c = at(off + 64*abc)
	a.abc_size = C.uint64_t(abc)
	off += 96 * abc
	a.inp_assignment = at(off)
	a.inp_size = C.uint64_t(inp)
	p.inputs, p.nInp = at(off+32), inp-1
	off += 32 * inp
	a.aux_assignment = at(off)
	a.aux_size = C.uint64_t(aux)
	off += 32 * aux
	a.a_aux_density = (*C.uint64_t)(at(off))
	a.a_aux_bit_len, a.a_aux_popcount = C.uint64_t(f[3]), C.uint64_t(f[4])
	off += 8 * words(f[3])
	a.b_inp_density = (*C.uint64_t)(at(off))
	a.b_inp_bit_len, a.b_inp_popcount = C.uint64_t(f[5]), C.uint64_t(f[6])
	off += 8 * words(f[5])
	a.b_aux_density = (*C.uint64_t)(at(off))
	a.b_aux_bit_len, a.b_aux_popcount = C.uint64_t(f[7]), C.uint64_t(f[8])
	return p, nil
}

func run(args []string) int {
	if len(args) < 5 {
		fmt.Fprintln(os.Stderr, "usage: sealprov-go-example MODULE.so CONFIG.ini CIRCUIT.params CIRCUIT.vk PARTITION.spa...")
		return 2
	}
	modPath, ini, params, vkPath, files := args[0], args[1], args[2], args[3], args[4:]

	// 1. Load the module and negotiate the ABI.
	var m module
	var errbuf [512]C.char
	cpath := C.CString(modPath)
	defer C.free(unsafe.Pointer(cpath))
	m.vt = C.load_module(cpath, &m.dl, &errbuf[0], C.size_t(len(errbuf)))
	if m.vt == nil {
		fmt.Fprintln(os.Stderr, "error:", C.GoString(&errbuf[0]))
		return 1
	}
	defer C.dlclose(m.dl)
	fmt.Printf("module %s, ABI %d.%d\n", C.GoString(C.sp_version(m.vt)), m.vt.abi_major, m.vt.abi_minor)

	// 2. Open a provider on the INI's devices.
	cini := C.CString(ini)
	defer C.free(unsafe.Pointer(cini))
	if st := C.sp_open(m.vt, cini, &m.p); st != C.SEALPROV_OK {
		fmt.Fprintln(os.Stderr, "error:", m.fail("open "+ini, st))
		return 1
	}
	defer C.sp_close(m.vt, m.p)
	var ndev C.size_t
	C.sp_devices(m.vt, m.p, nil, 0, &ndev)
	devs := (*C.sealprov_device_info)(C.calloc(ndev+1, C.size_t(unsafe.Sizeof(C.sealprov_device_info{}))))
	defer C.free(unsafe.Pointer(devs))
	dev := unsafe.Slice(devs, ndev+1)
	for i := range dev {
		dev[i].struct_size = C.uint32_t(unsafe.Sizeof(dev[i]))
	}
	if st := C.sp_devices(m.vt, m.p, devs, ndev, &ndev); st != C.SEALPROV_OK {
		fmt.Fprintln(os.Stderr, "error:", m.fail("devices", st))
		return 1
	}
	// A module older than this header writes smaller entries, packed: step by the
	// size it reports in the first entry (docs/abi.md, devices()).
	stride := uintptr(dev[0].struct_size)
	if stride == 0 || stride > unsafe.Sizeof(dev[0]) {
		stride = unsafe.Sizeof(dev[0])
	}
	for i := 0; i < int(ndev); i++ {
		d := (*C.sealprov_device_info)(unsafe.Add(unsafe.Pointer(devs), uintptr(i)*stride))
		fmt.Printf("device %d [%s] %s\n", i, C.GoString(&d.section[0]), C.GoString(&d.name[0]))
	}

	// 3. Parameters and partitions.
	var srs *C.sealprov_srs
	cparams := C.CString(params)
	defer C.free(unsafe.Pointer(cparams))
	if st := C.sp_srs_load(m.vt, m.p, cparams, &srs); st != C.SEALPROV_OK {
		fmt.Fprintln(os.Stderr, "error:", m.fail("srs_load "+params, st))
		return 1
	}
	defer C.sp_srs_release(m.vt, srs)
	n := len(files)
	parts := make([]*partition, 0, n)
	defer func() {
		for _, p := range parts {
			C.free(p.mem)
		}
	}()
	for _, f := range files {
		p, err := readSpa(f)
		if err != nil {
			fmt.Fprintln(os.Stderr, "error:", err)
			return 1
		}
		parts = append(parts, p)
	}

	// 4. One job with every partition; everything the module reads is C memory.
	asgs := (*C.sealprov_assignment)(C.calloc(C.size_t(n), C.size_t(unsafe.Sizeof(C.sealprov_assignment{}))))
	proofs := (*C.uint8_t)(C.calloc(C.size_t(n), C.SEALPROV_PROOF_BYTES))
	results := (*C.sealprov_partition_result)(C.calloc(C.size_t(n), C.size_t(unsafe.Sizeof(C.sealprov_partition_result{}))))
	job := (*C.sealprov_job)(C.calloc(1, C.size_t(unsafe.Sizeof(C.sealprov_job{}))))
	defer C.free(unsafe.Pointer(asgs))
	defer C.free(unsafe.Pointer(proofs))
	defer C.free(unsafe.Pointer(results))
	defer C.free(unsafe.Pointer(job))
	asgSlice := unsafe.Slice(asgs, n)
	for i, p := range parts {
		asgSlice[i] = p.asg
	}
	job.struct_size = C.uint32_t(unsafe.Sizeof(*job))
	job.srs = srs
	job.partitions = asgs
	job.num_partitions = C.uint32_t(n)
	job.scalar_encoding = C.SEALPROV_SCALAR_CANONICAL_LE
	job.proofs_out = proofs
	job.results = results
	res := unsafe.Slice(results, n)
	for i := range res { // "not run" until the module says otherwise
		res[i].status, res[i].device = -1, -1
	}
	st := C.sp_prove(m.vt, m.p, job)
	proofBytes := unsafe.Slice((*byte)(unsafe.Pointer(proofs)), n*C.SEALPROV_PROOF_BYTES)
	for i := range res {
		status := "not run"
		if res[i].status >= 0 {
			status = C.GoString(C.sp_strerror(m.vt, C.int(res[i].status)))
		}
		fmt.Printf("partition %d: %s, device %d, attempts %d, %.1f ms, %s\n", i, status,
			int(res[i].device), int(res[i].attempts), float64(res[i].run_ms), parts[i].path)
	}
	if st != C.SEALPROV_OK {
		fmt.Fprintln(os.Stderr, "error:", m.fail("prove", st))
		return 1
	}

	// 5. Verify every proof against the verifying key and the partition's public inputs.
	var vk *C.sealprov_srs
	cvk := C.CString(vkPath)
	defer C.free(unsafe.Pointer(cvk))
	if st := C.sp_vk_load(m.vt, m.p, cvk, &vk); st != C.SEALPROV_OK {
		fmt.Fprintln(os.Stderr, "error:", m.fail("vk_load "+vkPath, st))
		return 1
	}
	defer C.sp_srs_release(m.vt, vk)
	good := 0
	for i, p := range parts {
		proof := proofBytes[i*C.SEALPROV_PROOF_BYTES : (i+1)*C.SEALPROV_PROOF_BYTES]
		var valid C.int
		st := C.sp_verify(m.vt, m.p, vk, p.inputs, C.uint64_t(p.nInp), (*C.uint8_t)(&proof[0]), &valid)
		if st != C.SEALPROV_OK {
			fmt.Fprintln(os.Stderr, "error:", m.fail(fmt.Sprintf("verify proof %d", i), st))
			return 1
		}
		verdict := "INVALID"
		if valid != 0 {
			verdict = "valid"
			good++
		}
		fmt.Printf("proof %d: %s... %s\n", i, hex.EncodeToString(proof[:16]), verdict)
	}
	fmt.Printf("%d of %d proofs verify\n", good, n)
	if good != n {
		return 1
	}
	return 0
}

func main() {
	// last_error() is per OS thread: keep every module call on this one, so a failed
	// call's detail is read on the thread that made it.
	runtime.LockOSThread()
	os.Exit(run(os.Args[1:]))
}
