// SPDX-License-Identifier: Apache-2.0 OR MIT
// build.rs -- the build script of the supraseal-c2 crate, replaced so that the crate's
// `extern "C"` functions link libsealprov_c2 (sealprov's docs/integration.md) instead
// of compiling supraseal's CUDA sources. One script for both copies of the crate that
// Curio builds: crates.io's supraseal-c2 0.1.2 (upstream's 6-argument form, patched into
// filecoin-ffi with [patch.crates-io]) and Curio's extern/supraseal-c2 (cuzk). It uses
// std only, so the crate's Cargo.toml, build-dependencies included, stays as it is.
//
// Where libsealprov_c2 is, the first that answers:
//   SEALPROV_C2_LIB_DIR   an absolute directory holding libsealprov_c2.so
//   pkg-config            the moduledir of sealprov-c2.pc ($PKG_CONFIG names another
//                         pkg-config; PKG_CONFIG_PATH finds a .pc outside the default
//                         places, e.g. /usr/local/lib/pkgconfig)
// Found: prints cargo:rustc-link-search=native=DIR and
// cargo:rustc-link-lib=dylib=sealprov_c2, and warns when the runtime loader will not
// find the library by itself (no rpath, directory not registered with ldconfig).
// Not found, or a target the library is not built for: the build stops with a
// message that says what to install or set.
//
// Written for Rust 1.63 and later (Debian 12's rustc compiles it in sealprov's tests).

use std::env;
use std::path::{Path, PathBuf};
use std::process::{exit, Command};

const LIB_DIR_VAR: &str = "SEALPROV_C2_LIB_DIR";
const PC_NAME: &str = "sealprov-c2";
const LINK_NAME: &str = "libsealprov_c2.so"; // what the linker opens for -lsealprov_c2
const RUN_NAME: &str = "libsealprov_c2.so.0"; // what a linked program loads

fn fail(lines: &[String]) -> ! {
    eprintln!("error: supraseal-c2 (sealprov's build.rs): {}", lines[0]);
    for l in &lines[1..] {
        eprintln!("  {}", l);
    }
    exit(1);
}

fn env_var(name: &str) -> Option<String> {
    match env::var(name) {
        Ok(v) if !v.is_empty() => Some(v),
        _ => None,
    }
}

// The library is built for 64-bit Linux (x86-64, AArch64) only.
fn check_target() {
    let os = env_var("CARGO_CFG_TARGET_OS").unwrap_or_else(|| {
        fail(&["CARGO_CFG_TARGET_OS is not set: this is a build script, run by cargo".into()])
    });
    let target = env_var("TARGET").unwrap_or_else(|| "?".into());
    let width = env_var("CARGO_CFG_TARGET_POINTER_WIDTH").unwrap_or_else(|| "?".into());
    if os != "linux" || width != "64" {
        fail(&[format!(
            "target {} ({}, {}-bit): libsealprov_c2 is built for 64-bit Linux only",
            target, os, width
        )]);
    }
}

// sealprov-c2.pc's moduledir, through pkg-config.
fn from_pkg_config() -> Result<PathBuf, Vec<String>> {
    let cross = env_var("TARGET") != env_var("HOST");
    if cross {
        return Err(vec![format!(
            "cross-compiling (TARGET {}, HOST {}): the host's pkg-config describes the host; set {} \
             to the target's directory of libsealprov_c2",
            env_var("TARGET").unwrap_or_default(),
            env_var("HOST").unwrap_or_default(),
            LIB_DIR_VAR
        )]);
    }
    let pc = env_var("PKG_CONFIG").unwrap_or_else(|| "pkg-config".into());
    let out = match Command::new(&pc).args(["--variable=moduledir", PC_NAME]).output() {
        Ok(o) => o,
        Err(e) => {
            return Err(vec![format!(
                "{} is not set, and {} could not run ({}): install pkg-config or set {}",
                LIB_DIR_VAR, pc, e, LIB_DIR_VAR
            )])
        }
    };
    let dir = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if !out.status.success() || dir.is_empty() {
        let why = String::from_utf8_lossy(&out.stderr).trim().to_string();
        return Err(vec![
            format!(
                "libsealprov_c2 not found: {} is not set and `{} --variable=moduledir {}` gave \
                 nothing{}",
                LIB_DIR_VAR,
                pc,
                PC_NAME,
                if why.is_empty() { String::new() } else { format!(" ({})", why) }
            ),
            "install sealprov (./configure && make && sudo make install puts sealprov-c2.pc in \
             $(libdir)/pkgconfig and the library in $(libdir)/sealprov),"
                .into(),
            format!(
                "then set PKG_CONFIG_PATH to that pkgconfig directory if it is not a default one \
                 (e.g. PKG_CONFIG_PATH=/usr/local/lib/pkgconfig), or set {} to the library's \
                 directory",
                LIB_DIR_VAR
            ),
        ]);
    }
    Ok(PathBuf::from(dir))
}

fn find_dir() -> (PathBuf, String) {
    if let Some(d) = env_var(LIB_DIR_VAR) {
        let dir = PathBuf::from(&d);
        if !dir.is_absolute() {
            fail(&[format!("{}={}: must be an absolute directory", LIB_DIR_VAR, d)]);
        }
        return (dir, LIB_DIR_VAR.to_string());
    }
    match from_pkg_config() {
        Ok(dir) => (dir, format!("pkg-config {}", PC_NAME)),
        Err(lines) => fail(&lines),
    }
}

fn check_dir(dir: &Path, source: &str) {
    if dir.join(LINK_NAME).is_file() {
        return;
    }
    let shown = dir.display();
    if !dir.is_dir() {
        fail(&[format!("{} (from {}) is not a directory", shown, source)]);
    }
    if dir.join(RUN_NAME).is_file() {
        fail(&[format!(
            "{} (from {}) has {} but not {}, the name the linker needs: install sealprov with \
             `make install` (which puts both), or link {} to {} there",
            shown, source, RUN_NAME, LINK_NAME, LINK_NAME, RUN_NAME
        )]);
    }
    fail(&[format!("{} (from {}) has no {}", shown, source, LINK_NAME)]);
}

// Does the runtime loader's cache (ldconfig -p) hold the library from dir?
fn loader_finds(dir: &Path) -> bool {
    let want = format!("=> {}", dir.join(RUN_NAME).display());
    for ldconfig in ["ldconfig", "/sbin/ldconfig", "/usr/sbin/ldconfig"] {
        if let Ok(o) = Command::new(ldconfig).arg("-p").output() {
            if o.status.success() {
                return String::from_utf8_lossy(&o.stdout).lines().any(|l| l.trim_end().ends_with(&want));
            }
        }
    }
    false
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    for v in [LIB_DIR_VAR, "PKG_CONFIG", "PKG_CONFIG_PATH", "PKG_CONFIG_LIBDIR", "PKG_CONFIG_SYSROOT_DIR"] {
        println!("cargo:rerun-if-env-changed={}", v);
    }
    check_target();
    let (dir, source) = find_dir();
    check_dir(&dir, &source);
    let shown = dir.display();
    println!("cargo:rerun-if-changed={}", dir.join(LINK_NAME).display());
    println!("cargo:rustc-link-search=native={}", shown);
    println!("cargo:rustc-link-lib=dylib=sealprov_c2");
    if !loader_finds(&dir) {
        println!(
            "cargo:warning=libsealprov_c2 from {} ({}): the runtime loader does not know that \
             directory; programs linked with it need an rpath (RUSTFLAGS=\"-C \
             link-arg=-Wl,-rpath,{}\", or for Go CGO_LDFLAGS=\"-L{} -Wl,-rpath,{}\") or the \
             directory registered (echo {} | sudo tee /etc/ld.so.conf.d/sealprov.conf; sudo \
             ldconfig)",
            shown, source, shown, shown, shown, shown
        );
    }
}
