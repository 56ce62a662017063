// rust_host.rs -- libsealprov_c2 called from Rust, through the declarations of the
// supraseal-c2 crate (upstream c2/src/lib.rs: SRS, create/clone/evict/drop_SRS,
// generate_groth16_proofs_c) and sppark's cuda::Error. Built by tests/compat/c2.sh with
// plain rustc when it is installed (no crates needed):
//
//   rust_host PARAMS DUMP     DUMP from `c2_host --dump` (the job as Montgomery limbs and
//                             the vtable's proofs as affine points)
//
// Checks: the error struct by value (code, message freed by Drop with libc free), the
// SRS by reference and clone_SRS by value, create_SRS's bool, and 10 proofs through the
// 6-argument generate_groth16_proofs_c equal to the vtable's. Exit 0 when all hold.
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
    pub a_aux_density: *const usize,
    pub a_aux_bit_len: usize,
    pub a_aux_popcount: usize,
    pub b_inp_density: *const usize,
    pub b_inp_bit_len: usize,
    pub b_inp_popcount: usize,
    pub b_aux_density: *const usize,
    pub b_aux_bit_len: usize,
    pub b_aux_popcount: usize,
    pub a: *const Scalar,
    pub b: *const Scalar,
    pub c: *const Scalar,
    pub abc_size: usize,
    pub inp_assignment_data: *const Scalar,
    pub inp_assignment_size: usize,
    pub aux_assignment_data: *const Scalar,
    pub aux_assignment_size: usize,
}

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

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 3 {
        eprintln!("usage: rust_host PARAMS DUMP");
        std::process::exit(2);
    }
    let mut failures = 0;
    let mut check = |ok: bool, what: &str| {
        if !ok {
            eprintln!("FAIL: {what}");
            failures += 1;
        }
    };

    // errors by value: code, message, freed by Drop
    match SRS::try_new("/nonexistent/rust-host.params", false) {
        Ok(_) => check(false, "create_SRS of a missing file succeeded"),
        Err(e) => {
            check(e.code != 0, "error code is 0");
            let msg = String::from(e);
            println!("missing .params -> {msg}");
            check(msg.contains("/nonexistent/rust-host.params"), "message lacks the path");
        }
    }

    let srs = match SRS::try_new(&args[1], true) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("FAIL: create_SRS: {}", String::from(e));
            std::process::exit(1);
        }
    };
    check(!srs.ptr.is_null(), "create_SRS left the SRS empty");
    let copy = srs.clone();
    check(copy.ptr == srs.ptr, "clone_SRS returned another pointer");
    srs.evict();
    drop(srs);

    // the job of the dump
    let bytes = std::fs::read(&args[2]).expect("read the dump");
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
    let expected: Vec<Proof> = (0..n)
        .map(|_| {
            let w = rd.take(48);
            let mut p = [0u64; 48];
            p.copy_from_slice(w);
            Proof(p)
        })
        .collect();

    let provers: Vec<Assignment<Fr>> = parts
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
        .collect();

    let mut proofs = vec![Proof([0u64; 48]); n];
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
    if err.code != 0 {
        check(false, &format!("generate_groth16_proofs_c: {}", String::from(err)));
    } else {
        drop(err);
        for (i, (got, want)) in proofs.iter().zip(expected.iter()).enumerate() {
            check(got == want, &format!("proof {i} differs from the vtable's"));
        }
    }

    // an empty SRS: an error, not a crash
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
    check(err.code != 0, "an empty SRS was accepted");
    let msg = String::from(err);
    println!("empty SRS -> {msg}");
    check(msg.contains("SRS is empty"), "empty SRS message");
    drop(copy);

    if failures > 0 {
        eprintln!("rust_host: {failures} check(s) failed");
        std::process::exit(1);
    }
    println!("rust_host: {n} proofs through the supraseal-c2 Rust declarations equal the vtable's");
}
