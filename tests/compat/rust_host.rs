// rust_host.rs -- libsealprov_c2 called from Rust, through the extern declarations of
// the supraseal-c2 crate and sppark's cuda::Error. Built twice by tests/compat/c2_rust.sh
// with plain rustc (no crates; Debian 12's rustc 1.63 is enough):
//
//   rustc --cfg curio    current Curio's extern/supraseal-c2/src/lib.rs (Curio e0294b0f,
//                        2026-08-20; every release since v1.28.0-rc1): the 8-argument
//                        generate_groth16_proofs_c, the split API whose start takes
//                        gpu_index before pending_out, create/destroy_gpu_mutex. Run with
//                        SEALPROV_C2_ARGS=8.
//   rustc                upstream supra_seal c2/src/lib.rs (c2ff1acf): the 6-argument
//                        generate_groth16_proofs_c.
//
// Both declare SRS, create/clone/evict/drop_SRS and Assignment as the crates do. The
// extern blocks below are the crates' own, item for item (names, argument order and
// types, return types).
//
//   rust_host PARAMS DUMP     DUMP from `c2_host --dump` (the job as Montgomery limbs and
//                             the vtable's proofs as affine points)
//
// Checks: the error struct by value (code, message freed by Drop with libc free), the
// SRS by reference and clone_SRS by value, create_SRS's bool, 10 proofs through every
// proving entry point equal to the vtable's, calls with num_circuits = 0 and the
// dangling pointers of Rust's empty slices, and a dropped SRS and a destroyed mutex
// passed again: error structs, no crash. Exit 0 when all hold.
#![allow(non_snake_case)]

use std::ffi::CString;
use std::os::raw::c_char;

// sppark::cuda_error!() expands to this module.
mod cuda {
    #[repr(C)]
    pub struct Error {
        pub code: i32,
        str: Option<core::ptr::NonNull<i8>>,
    }

    impl Drop for Error {
        fn drop(&mut self) {
            extern "C" {
                fn free(str: Option<core::ptr::NonNull<i8>>);
            }
            unsafe { free(self.str) };
            self.str = None;
        }
    }

    impl From<Error> for String {
        fn from(status: Error) -> Self {
            match status.str {
                Some(p) => unsafe { std::ffi::CStr::from_ptr(p.as_ptr() as *const _) }
                    .to_str()
                    .unwrap_or("(message is not UTF-8)")
                    .to_string(),
                None => format!("error #{} without a message", status.code),
            }
        }
    }
}

#[repr(C)]
pub struct SRS {
    ptr: *const core::ffi::c_void,
}

impl Default for SRS {
    fn default() -> Self {
        Self { ptr: core::ptr::null() }
    }
}

impl SRS {
    fn try_new(path: &str, cache: bool) -> Result<Self, cuda::Error> {
        extern "C" {
            fn create_SRS(ret: &mut SRS, srs_path: *const c_char, cache: bool) -> cuda::Error;
        }
        let c_path = CString::new(path).unwrap();
        let mut ret = SRS::default();
        let err = unsafe { create_SRS(&mut ret, c_path.as_ptr(), cache) };
        if err.code != 0 {
            Err(err)
        } else {
            Ok(ret)
        }
    }

    fn evict(&self) {
        extern "C" {
            fn evict_SRS(by_ref: &SRS);
        }
        unsafe { evict_SRS(self) };
    }
}

impl Drop for SRS {
    fn drop(&mut self) {
        extern "C" {
            fn drop_SRS(by_ref: &SRS);
        }
        unsafe { drop_SRS(self) };
        self.ptr = core::ptr::null();
    }
}

impl Clone for SRS {
    fn clone(&self) -> Self {
        extern "C" {
            fn clone_SRS(by_ref: &SRS) -> SRS;
        }
        unsafe { clone_SRS(self) }
    }
}

#[repr(C)]
pub struct Assignment<Scalar> {
    // Density of queries
    pub a_aux_density: *const usize,
    pub a_aux_bit_len: usize,
    pub a_aux_popcount: usize,

    pub b_inp_density: *const usize,
    pub b_inp_bit_len: usize,
    pub b_inp_popcount: usize,

    pub b_aux_density: *const usize,
    pub b_aux_bit_len: usize,
    pub b_aux_popcount: usize,

    // Evaluations of A, B, C polynomials
    pub a: *const Scalar,
    pub b: *const Scalar,
    pub c: *const Scalar,
    pub abc_size: usize,

    // Assignments of variables
    pub inp_assignment_data: *const Scalar,
    pub inp_assignment_size: usize,

    pub aux_assignment_data: *const Scalar,
    pub aux_assignment_size: usize,
}

// upstream supra_seal c2/src/lib.rs
#[cfg(not(curio))]
extern "C" {
    fn generate_groth16_proofs_c(
        provers: *const core::ffi::c_void,
        num_circuits: usize,
        r_s: *const core::ffi::c_void,
        s_s: *const core::ffi::c_void,
        proofs: *mut core::ffi::c_void,
        srs: &SRS,
    ) -> cuda::Error;
}

// current Curio, extern/supraseal-c2/src/lib.rs: its three extern blocks after SRS's
#[cfg(curio)]
extern "C" {
    fn create_gpu_mutex() -> *mut core::ffi::c_void;
    fn destroy_gpu_mutex(mtx: *mut core::ffi::c_void);
}

#[cfg(curio)]
extern "C" {
    fn generate_groth16_proofs_start_c(
        provers: *const core::ffi::c_void,
        num_circuits: usize,
        r_s: *const core::ffi::c_void,
        s_s: *const core::ffi::c_void,
        srs: &SRS,
        gpu_mtx: *mut core::ffi::c_void,
        gpu_index: i32,
        pending_out: *mut *mut core::ffi::c_void,
    ) -> cuda::Error;

    fn finalize_groth16_proof_c(
        handle: *mut core::ffi::c_void,
        proofs: *mut core::ffi::c_void,
    ) -> cuda::Error;

    fn destroy_pending_proof(handle: *mut core::ffi::c_void);
}

#[cfg(curio)]
extern "C" {
    fn generate_groth16_proofs_c(
        provers: *const core::ffi::c_void,
        num_circuits: usize,
        r_s: *const core::ffi::c_void,
        s_s: *const core::ffi::c_void,
        proofs: *mut core::ffi::c_void,
        srs: &SRS,
        gpu_mtx: *mut core::ffi::c_void,
        gpu_index: i32,
    ) -> cuda::Error;
}

#[derive(Clone, Copy, PartialEq, Debug)]
#[repr(C)]
struct Fr([u64; 4]);

#[derive(Clone, Copy, PartialEq)]
#[repr(C)]
struct Proof([u64; 48]); // G1 affine (12) + G2 affine (24) + G1 affine (12)

struct Partition {
    sizes: [usize; 6],
    scalars: Vec<Fr>,
    a_aux: Vec<usize>,
    b_inp: Vec<usize>,
    b_aux: Vec<usize>,
}

struct Reader {
    words: Vec<u64>,
    at: usize,
}

impl Reader {
    fn take(&mut self, n: usize) -> &[u64] {
        let s = &self.words[self.at..self.at + n];
        self.at += n;
        s
    }
    fn one(&mut self) -> usize {
        self.take(1)[0] as usize
    }
    fn frs(&mut self, n: usize) -> Vec<Fr> {
        self.take(4 * n).chunks(4).map(|c| Fr([c[0], c[1], c[2], c[3]])).collect()
    }
    fn usizes(&mut self, n: usize) -> Vec<usize> {
        self.take(n).iter().map(|w| *w as usize).collect()
    }
}

struct Checker {
    failures: usize,
}

impl Checker {
    fn check(&mut self, ok: bool, what: &str) {
        if !ok {
            eprintln!("FAIL: {what}");
            self.failures += 1;
        }
    }
    fn ok(&mut self, err: cuda::Error, what: &str) -> bool {
        if err.code != 0 {
            self.check(false, &format!("{what}: {}", String::from(err)));
            return false;
        }
        true
    }
    fn error(&mut self, err: cuda::Error, what: &str, want: &str) {
        let code = err.code;
        let msg = String::from(err);
        println!("  {what} -> code {code}: {msg}");
        self.check(code != 0, &format!("{what}: code 0, expected an error"));
        self.check(msg.contains(want), &format!("{what}: message lacks '{want}': {msg}"));
    }
    fn proofs(&mut self, got: &[Proof], want: &[Proof], what: &str) {
        for (i, (g, w)) in got.iter().zip(want.iter()).enumerate() {
            self.check(g == w, &format!("{what}: proof {i} differs from the vtable's"));
        }
    }
}

fn read_dump(path: &str) -> (Vec<Partition>, Vec<Fr>, Vec<Fr>, Vec<Proof>) {
    let bytes = std::fs::read(path).expect("read the dump");
    let words = bytes.chunks(8).map(|c| u64::from_le_bytes(c.try_into().unwrap())).collect();
    let mut rd = Reader { words, at: 0 };
    let n = rd.one();
    let mut parts = Vec::new();
    for _ in 0..n {
        let mut sizes = [0usize; 6];
        for s in sizes.iter_mut() {
            *s = rd.one();
        }
        let (abc, inp, aux) = (sizes[0], sizes[1], sizes[2]);
        let scalars = rd.frs(3 * abc + inp + aux);
        let a_aux = rd.usizes((aux + 63) / 64);
        let b_inp = rd.usizes((inp + 63) / 64);
        let b_aux = rd.usizes((aux + 63) / 64);
        parts.push(Partition { sizes, scalars, a_aux, b_inp, b_aux });
    }
    let r = rd.frs(n);
    let s = rd.frs(n);
    let expected = (0..n)
        .map(|_| {
            let mut p = [0u64; 48];
            p.copy_from_slice(rd.take(48));
            Proof(p)
        })
        .collect();
    (parts, r, s, expected)
}

fn assignments(parts: &[Partition]) -> Vec<Assignment<Fr>> {
    parts
        .iter()
        .map(|p| {
            let (abc, inp, aux) = (p.sizes[0], p.sizes[1], p.sizes[2]);
            let base = p.scalars.as_ptr();
            unsafe {
                Assignment {
                    a_aux_density: p.a_aux.as_ptr(),
                    a_aux_bit_len: aux,
                    a_aux_popcount: p.sizes[3],
                    b_inp_density: p.b_inp.as_ptr(),
                    b_inp_bit_len: inp,
                    b_inp_popcount: p.sizes[4],
                    b_aux_density: p.b_aux.as_ptr(),
                    b_aux_bit_len: aux,
                    b_aux_popcount: p.sizes[5],
                    a: base,
                    b: base.add(abc),
                    c: base.add(2 * abc),
                    abc_size: abc,
                    inp_assignment_data: base.add(3 * abc),
                    inp_assignment_size: inp,
                    aux_assignment_data: base.add(3 * abc + inp),
                    aux_assignment_size: aux,
                }
            }
        })
        .collect()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 3 {
        eprintln!("usage: rust_host PARAMS DUMP");
        std::process::exit(2);
    }
    let flavour = if cfg!(curio) { "current Curio" } else { "upstream" };
    let mut ck = Checker { failures: 0 };

    // errors by value: code, message, freed by Drop
    match SRS::try_new("/nonexistent/rust-host.params", false) {
        Ok(_) => ck.check(false, "create_SRS of a missing file succeeded"),
        Err(e) => ck.error(e, "missing .params", "/nonexistent/rust-host.params"),
    }

    let srs = match SRS::try_new(&args[1], true) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("FAIL: create_SRS: {}", String::from(e));
            std::process::exit(1);
        }
    };
    ck.check(!srs.ptr.is_null(), "create_SRS left the SRS empty");
    let copy = srs.clone();
    ck.check(copy.ptr == srs.ptr, "clone_SRS returned another pointer");
    srs.evict();
    drop(srs);

    let (parts, r, s, expected) = read_dump(&args[2]);
    let n = parts.len();
    let provers = assignments(&parts);
    let mut proofs = vec![Proof([0u64; 48]); n];

    // Rust's empty slices: as_ptr() is a dangling, aligned, non-null pointer
    let no_provers: Vec<Assignment<Fr>> = Vec::new();
    let no_frs: Vec<Fr> = Vec::new();
    let mut no_proofs: Vec<Proof> = Vec::new();

    // a dropped SRS, its pointer passed again (its Drop then calls drop_SRS once more,
    // which the library ignores)
    let gone = SRS::try_new(&args[1], false).unwrap_or_default();
    let dropped = SRS { ptr: gone.ptr };
    drop(gone);

    #[cfg(not(curio))]
    {
        let err = unsafe {
            generate_groth16_proofs_c(
                provers.as_ptr() as *const _,
                n,
                r.as_ptr() as *const _,
                s.as_ptr() as *const _,
                proofs.as_mut_ptr() as *mut _,
                &copy,
            )
        };
        if ck.ok(err, "generate_groth16_proofs_c") {
            ck.proofs(&proofs, &expected, "6 arguments");
        }
        println!("bad input ({flavour}):");
        let empty = SRS::default();
        let err = unsafe {
            generate_groth16_proofs_c(
                provers.as_ptr() as *const _,
                n,
                r.as_ptr() as *const _,
                s.as_ptr() as *const _,
                proofs.as_mut_ptr() as *mut _,
                &empty,
            )
        };
        ck.error(err, "empty SRS", "SRS is empty");
        let err = unsafe {
            generate_groth16_proofs_c(
                no_provers.as_ptr() as *const _,
                0,
                no_frs.as_ptr() as *const _,
                no_frs.as_ptr() as *const _,
                no_proofs.as_mut_ptr() as *mut _,
                &copy,
            )
        };
        ck.error(err, "num_circuits 0, empty slices", "num_circuits is 0");
        let err = unsafe {
            generate_groth16_proofs_c(
                provers.as_ptr() as *const _,
                n,
                r.as_ptr() as *const _,
                s.as_ptr() as *const _,
                proofs.as_mut_ptr() as *mut _,
                &dropped,
            )
        };
        ck.error(err, "a dropped SRS", "is not a live SRS");
    }

    #[cfg(curio)]
    {
        let mut parts = parts; // overwritten after start below (provers point into it)
        let mtx = unsafe { create_gpu_mutex() };
        ck.check(!mtx.is_null(), "create_gpu_mutex returned NULL");

        // the synchronous call as bellperson's prover makes it (no mutex, -1), and as
        // cuzk's workers do (their GPU's mutex and ordinal)
        for &(m, gpu) in [(core::ptr::null_mut(), -1), (mtx, 1)].iter() {
            proofs.iter_mut().for_each(|p| *p = Proof([0u64; 48]));
            let err = unsafe {
                generate_groth16_proofs_c(
                    provers.as_ptr() as *const _,
                    n,
                    r.as_ptr() as *const _,
                    s.as_ptr() as *const _,
                    proofs.as_mut_ptr() as *mut _,
                    &copy,
                    m,
                    gpu,
                )
            };
            let what = format!("generate_groth16_proofs_c (8 arguments, gpu_index {gpu})");
            if ck.ok(err, &what) {
                ck.proofs(&proofs, &expected, &what);
            }
        }

        // the split API: start, then a, b and c overwritten (Curio frees them right
        // after start returns), then finalize
        for &gpu in [0, -1].iter() {
            let mut pending: *mut core::ffi::c_void = core::ptr::null_mut();
            let err = unsafe {
                generate_groth16_proofs_start_c(
                    provers.as_ptr() as *const _,
                    n,
                    r.as_ptr() as *const _,
                    s.as_ptr() as *const _,
                    &copy,
                    mtx,
                    gpu,
                    &mut pending,
                )
            };
            let what = format!("start (gpu_index {gpu}) / finalize");
            if !ck.ok(err, &what) {
                continue;
            }
            ck.check(!pending.is_null(), &format!("{what}: start gave no handle"));
            let saved: Vec<Vec<Fr>> = parts.iter().map(|p| p.scalars.clone()).collect();
            for p in parts.iter_mut() {
                let abc = p.sizes[0];
                p.scalars[..3 * abc].iter_mut().for_each(|f| *f = Fr([0xA5A5_A5A5_A5A5_A5A5; 4]));
            }
            proofs.iter_mut().for_each(|p| *p = Proof([0u64; 48]));
            let err = unsafe { finalize_groth16_proof_c(pending, proofs.as_mut_ptr() as *mut _) };
            if ck.ok(err, &what) {
                ck.proofs(&proofs, &expected, &what);
            }
            for (p, v) in parts.iter_mut().zip(saved) {
                p.scalars.copy_from_slice(&v);
            }
            // the handle is consumed: passed again, it is refused
            let err = unsafe { finalize_groth16_proof_c(pending, proofs.as_mut_ptr() as *mut _) };
            ck.error(err, "a finalized handle passed again", "is not a pending proof");
        }
        let mut pending: *mut core::ffi::c_void = core::ptr::null_mut();
        let err = unsafe {
            generate_groth16_proofs_start_c(
                provers.as_ptr() as *const _,
                n,
                r.as_ptr() as *const _,
                s.as_ptr() as *const _,
                &copy,
                core::ptr::null_mut(),
                -1,
                &mut pending,
            )
        };
        if ck.ok(err, "start then destroy_pending_proof") {
            unsafe { destroy_pending_proof(pending) };
        }

        println!("bad input ({flavour}):");
        // num_circuits 0 with the empty slices' dangling pointers: an error, *pending_out
        // NULL (the library writes through pending_out, never through the others)
        let mut pending: *mut core::ffi::c_void = &mut proofs as *mut _ as *mut _;
        let err = unsafe {
            generate_groth16_proofs_start_c(
                no_provers.as_ptr() as *const _,
                0,
                no_frs.as_ptr() as *const _,
                no_frs.as_ptr() as *const _,
                &copy,
                mtx,
                -1,
                &mut pending,
            )
        };
        ck.error(err, "start, num_circuits 0, empty slices", "num_circuits is 0");
        ck.check(pending.is_null(), "a failed start did not set *pending_out to NULL");
        let err = unsafe {
            generate_groth16_proofs_c(
                no_provers.as_ptr() as *const _,
                0,
                no_frs.as_ptr() as *const _,
                no_frs.as_ptr() as *const _,
                no_proofs.as_mut_ptr() as *mut _,
                &copy,
                mtx,
                -1,
            )
        };
        ck.error(err, "8 arguments, num_circuits 0, empty slices", "num_circuits is 0");
        let empty = SRS::default();
        let err = unsafe {
            generate_groth16_proofs_start_c(
                provers.as_ptr() as *const _,
                n,
                r.as_ptr() as *const _,
                s.as_ptr() as *const _,
                &empty,
                mtx,
                -1,
                &mut pending,
            )
        };
        ck.error(err, "start, empty SRS", "SRS is empty");
        let err = unsafe {
            generate_groth16_proofs_start_c(
                provers.as_ptr() as *const _,
                n,
                r.as_ptr() as *const _,
                s.as_ptr() as *const _,
                &dropped,
                mtx,
                -1,
                &mut pending,
            )
        };
        ck.error(err, "start, a dropped SRS", "is not a live SRS");
        let err = unsafe {
            generate_groth16_proofs_c(
                provers.as_ptr() as *const _,
                n,
                r.as_ptr() as *const _,
                s.as_ptr() as *const _,
                proofs.as_mut_ptr() as *mut _,
                &dropped,
                mtx,
                -1,
            )
        };
        ck.error(err, "8 arguments, a dropped SRS", "is not a live SRS");
        let err = unsafe {
            generate_groth16_proofs_start_c(
                provers.as_ptr() as *const _,
                n,
                r.as_ptr() as *const _,
                s.as_ptr() as *const _,
                &copy,
                mtx,
                -2,
                &mut pending,
            )
        };
        ck.error(err, "start, gpu_index -2", "gpu_index -2");
        let destroyed = unsafe { create_gpu_mutex() };
        unsafe { destroy_gpu_mutex(destroyed) };
        let err = unsafe {
            generate_groth16_proofs_start_c(
                provers.as_ptr() as *const _,
                n,
                r.as_ptr() as *const _,
                s.as_ptr() as *const _,
                &copy,
                destroyed,
                -1,
                &mut pending,
            )
        };
        ck.error(err, "start, a destroyed mutex", "is not a mutex from create_gpu_mutex");
        unsafe { destroy_gpu_mutex(mtx) };
    }

    drop(dropped);
    drop(copy);
    if ck.failures > 0 {
        eprintln!("rust_host ({flavour}): {} check(s) failed", ck.failures);
        std::process::exit(1);
    }
    println!("rust_host ({flavour}): {n} proofs through the crate's Rust declarations equal the vtable's");
}
