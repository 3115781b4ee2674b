//! Build-script helper: compiles a gtap device crate to PTX.
//!
//! In the host crate's `build.rs`, `fn main() { gtap_build::build_this_crate(); }`,
//!
//! and in the host code `const PTX: &str = include_str!(env!("GTAP_PTX"));`.
//!
//! # What it does
//!
//! 1. Checks the rustup components the device build needs (`rust-src`, `llvm-tools`,
//!    `llvm-bitcode-linker`). When some are missing and the toolchain is rustup's, installs them
//!    with `rustup component add --toolchain <the build's toolchain> ...` (once: a lock file
//!    keeps concurrent build scripts from installing twice, and the second one finds them
//!    there), and says so in a build warning. `GTAP_RUSTUP_INSTALL=0` turns this off (an
//!    offline machine, a read-only toolchain): the build then stops with the command to run.
//!    Any failure names the missing components and what to do. A `rust-toolchain.toml`
//!    `components` list is not enough: rustup (1.28 and later) applies it only when it installs
//!    the toolchain, not to one already installed.
//! 2. Runs a nested `cargo rustc --lib --crate-type cdylib --release
//!    --target nvptx64-nvidia-cuda -Zbuild-std=core` on the calling package (or the manifest
//!    given to [`Builder::manifest`]) with `RUSTC_BOOTSTRAP=1` (in the child only: the host
//!    build stays on stable), `-Ctarget-cpu=sm_90` (`GTAP_SM` overrides it) in
//!    `CARGO_ENCODED_RUSTFLAGS`, no debug info, and its own target directory
//!    (`<target>/gtap-device`) so that it never waits on the outer build's lock. Every
//!    inherited `CARGO_*`/`RUSTFLAGS`/wrapper variable is removed from the child's
//!    environment, and `GTAP_BUILD_NESTED` stops the child's own build script from recursing.
//! 3. Copies the PTX to `OUT_DIR` and emits `cargo:rustc-env=GTAP_PTX=<path>`.
//! 4. When `GTAP_PTXAS` names a `ptxas`, assembles the PTX for the same `sm_*` and fails the
//!    build if it is rejected (CI uses the one from the PyPI wheel `nvidia-cuda-nvcc`);
//!    `GTAP_PTXAS_VERBOSE=1` prints its register and spill report as build warnings.
//!
//! The device crate's root needs
//! `#![cfg_attr(target_arch = "nvptx64", no_std, feature(abi_ptx))]`; see `gtap::kernel!`.

use std::env;
use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The target the device code is built for.
pub const TARGET: &str = "nvptx64-nvidia-cuda";
/// The environment variable set in the nested build (its build script then does nothing).
pub const NESTED_ENV: &str = "GTAP_BUILD_NESTED";
/// The environment variable that, set to `0`, stops gtap-build from installing missing rustup
/// components itself.
pub const INSTALL_ENV: &str = "GTAP_RUSTUP_INSTALL";
/// The rustup components the device build needs (DESIGN.md §5).
pub const COMPONENTS: [&str; 3] = ["rust-src", "llvm-tools", "llvm-bitcode-linker"];

/// Builds the calling package's library for the GPU; exits the build script with a message on
/// failure. See the crate docs.
pub fn build_this_crate() {
    Builder::new().build_or_exit();
}

/// Options of a device build.
#[derive(Clone, Debug)]
pub struct Builder {
    manifest: PathBuf,
    sm: String,
    env_name: String,
}

impl Default for Builder {
    fn default() -> Self {
        Self::new()
    }
}

impl Builder {
    /// A build of the calling package (`CARGO_MANIFEST_DIR/Cargo.toml`) for `sm_90`, or the
    /// `sm_*` named by `GTAP_SM`.
    #[must_use]
    pub fn new() -> Self {
        let dir =
            env::var_os("CARGO_MANIFEST_DIR").map_or_else(|| PathBuf::from("."), PathBuf::from);
        Self {
            manifest: dir.join("Cargo.toml"),
            sm: env::var("GTAP_SM").unwrap_or_else(|_| "sm_90".to_owned()),
            env_name: "GTAP_PTX".to_owned(),
        }
    }

    /// Builds the package of this `Cargo.toml` instead of the calling one.
    #[must_use]
    pub fn manifest(mut self, path: impl Into<PathBuf>) -> Self {
        self.manifest = path.into();
        self
    }

    /// The environment variable that receives the PTX path (default `GTAP_PTX`).
    #[must_use]
    pub fn env_name(mut self, name: &str) -> Self {
        name.clone_into(&mut self.env_name);
        self
    }

    /// Runs the build; on failure prints the reason and exits the build script.
    pub fn build_or_exit(&self) {
        if let Err(e) = self.build() {
            eprintln!("{e}");
            println!(
                "cargo:warning={}",
                e.lines().next().unwrap_or("gtap device build failed")
            );
            std::process::exit(1);
        }
    }

    /// Runs the build; returns the PTX path, or a message on failure.
    ///
    /// # Errors
    ///
    /// A missing component, a failed nested build, or a PTX that `ptxas` rejects.
    pub fn build(&self) -> Result<PathBuf, String> {
        let out_dir = PathBuf::from(
            env::var_os("OUT_DIR")
                .ok_or("OUT_DIR is not set: call gtap-build from a build script")?,
        );
        println!("cargo:rerun-if-env-changed=GTAP_SM");
        println!("cargo:rerun-if-env-changed=GTAP_PTXAS");
        println!("cargo:rerun-if-env-changed=GTAP_PTXAS_VERBOSE");
        println!("cargo:rerun-if-env-changed={INSTALL_ENV}");
        if env::var_os(NESTED_ENV).is_some() {
            // Inside the device build itself: nothing to build, but keep `env!` working.
            let empty = out_dir.join("gtap-nested.ptx");
            fs::write(&empty, "").map_err(|e| format!("cannot write {}: {e}", empty.display()))?;
            println!("cargo:rustc-env={}={}", self.env_name, empty.display());
            return Ok(empty);
        }
        let pkg_dir = self
            .manifest
            .parent()
            .unwrap_or(Path::new("."))
            .to_path_buf();
        println!("cargo:rerun-if-changed={}", pkg_dir.join("src").display());
        println!("cargo:rerun-if-changed={}", self.manifest.display());
        // In this workspace the device crates are path dependencies: rebuild when they change.
        let ws = Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .map(Path::to_path_buf);
        if let Some(ws) = ws {
            for dep in ["gtap-device/src", "gtap-macros/src", "src"] {
                let d = ws.join(dep);
                if d.is_dir() {
                    println!("cargo:rerun-if-changed={}", d.display());
                }
            }
        }

        ensure_components()?;
        let target_dir = device_target_dir(&out_dir);
        let lib_name = lib_name(&self.manifest)?;
        let cargo = env::var_os("CARGO").unwrap_or_else(|| OsString::from("cargo"));
        let mut cmd = Command::new(cargo);
        cmd.arg("rustc")
            .arg("--lib")
            .args([
                "--crate-type",
                "cdylib",
                "--release",
                "--target",
                TARGET,
                "-Zbuild-std=core",
            ])
            .arg("--manifest-path")
            .arg(&self.manifest)
            .arg("--target-dir")
            .arg(&target_dir);
        for (k, _) in env::vars_os() {
            let Some(k) = k.to_str() else { continue };
            let strip = (k.starts_with("CARGO_") && k != "CARGO_HOME")
                || matches!(
                    k,
                    "RUSTFLAGS"
                        | "RUSTDOCFLAGS"
                        | "RUSTC_WRAPPER"
                        | "RUSTC_WORKSPACE_WRAPPER"
                        | "RUSTC_LINKER"
                        | "OUT_DIR"
                        | "TARGET"
                        | "HOST"
                        | "PROFILE"
                        | "OPT_LEVEL"
                        | "DEBUG"
                        | "NUM_JOBS"
                        | "RUSTC"
                        | "RUSTDOC"
                        | "CARGO"
                );
            if strip {
                cmd.env_remove(k);
            }
        }
        cmd.env("RUSTC_BOOTSTRAP", "1")
            .env(NESTED_ENV, "1")
            .env(
                "CARGO_ENCODED_RUSTFLAGS",
                format!("-Ctarget-cpu={}", self.sm),
            )
            .env("CARGO_PROFILE_RELEASE_DEBUG", "0")
            .env("CARGO_PROFILE_RELEASE_OPT_LEVEL", "3")
            .env("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "1")
            .env("CARGO_PROFILE_RELEASE_PANIC", "abort");
        let out = cmd
            .output()
            .map_err(|e| format!("gtap device build: cannot run cargo: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "gtap device build failed for {} (target {TARGET}, {}):\n{}",
                self.manifest.display(),
                self.sm,
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        let built = target_dir
            .join(TARGET)
            .join("release")
            .join(format!("{lib_name}.ptx"));
        let ptx = out_dir.join(format!("{lib_name}.ptx"));
        fs::copy(&built, &ptx)
            .map_err(|e| format!("gtap device build: no PTX at {}: {e}", built.display()))?;
        if let Some(ptxas) = env::var_os("GTAP_PTXAS") {
            run_ptxas(Path::new(&ptxas), &ptx, &self.sm, &out_dir)?;
        }
        println!("cargo:rustc-env={}={}", self.env_name, ptx.display());
        Ok(ptx)
    }
}

/// `<target>/gtap-device`, where `<target>` is the outer build's target directory (found from
/// `OUT_DIR = <target>/[<triple>/]<profile>/build/<pkg>-<hash>/out`).
fn device_target_dir(out_dir: &Path) -> PathBuf {
    let mut dir = out_dir;
    for _ in 0..4 {
        dir = dir.parent().unwrap_or(dir);
    }
    // With `--target <triple>` there is one more level; the profile dir holds `.cargo-lock`.
    if dir.join("debug").is_dir()
        || dir.join("release").is_dir()
        || dir.join("CACHEDIR.TAG").is_file()
    {
        dir.join("gtap-device")
    } else {
        dir.parent().unwrap_or(dir).join("gtap-device")
    }
}

/// The library's crate name: `[lib] name`, else the package name with `-` as `_`.
fn lib_name(manifest: &Path) -> Result<String, String> {
    let text = fs::read_to_string(manifest)
        .map_err(|e| format!("cannot read {}: {e}", manifest.display()))?;
    let mut section = String::new();
    let (mut pkg, mut lib) = (None, None);
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            section = line.to_owned();
            continue;
        }
        let Some((k, v)) = line.split_once('=') else {
            continue;
        };
        if k.trim() != "name" {
            continue;
        }
        let v = v.trim().trim_matches('"').to_owned();
        match section.as_str() {
            "[package]" => pkg = Some(v),
            "[lib]" => lib = Some(v),
            _ => {}
        }
    }
    lib.or(pkg)
        .map(|n| n.replace('-', "_"))
        .ok_or_else(|| format!("{} has no [package] name", manifest.display()))
}

/// The toolchain the build script runs under: its sysroot and, when rustup manages it, the
/// name `rustup --toolchain` takes.
struct Toolchain {
    sysroot: PathBuf,
    host: String,
    rustup_name: Option<String>,
}

impl Toolchain {
    fn current() -> Result<Self, String> {
        let rustc = env::var_os("RUSTC").unwrap_or_else(|| OsString::from("rustc"));
        let out = Command::new(&rustc)
            .args(["--print", "sysroot"])
            .output()
            .map_err(|e| format!("gtap device build: cannot run rustc: {e}"))?;
        let sysroot = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        let host = env::var("HOST").unwrap_or_else(|_| "x86_64-unknown-linux-gnu".to_owned());
        let rustup_name = rustup_name(&sysroot, env::var("RUSTUP_TOOLCHAIN").ok());
        Ok(Self {
            sysroot,
            host,
            rustup_name,
        })
    }

    /// The components of [`COMPONENTS`] this toolchain lacks, found by their files.
    fn missing(&self) -> Vec<&'static str> {
        let bin = self
            .sysroot
            .join("lib/rustlib")
            .join(&self.host)
            .join("bin");
        let mut missing = Vec::new();
        if !self
            .sysroot
            .join("lib/rustlib/src/rust/library/core")
            .is_dir()
        {
            missing.push("rust-src");
        }
        if !bin.join("llvm-link").exists() && !bin.join("llc").exists() {
            missing.push("llvm-tools");
        }
        if !bin.join("self-contained/llvm-bitcode-linker").exists()
            && !bin.join("llvm-bitcode-linker").exists()
        {
            missing.push("llvm-bitcode-linker");
        }
        missing
    }
}

/// The name `rustup --toolchain` takes for the toolchain at `sysroot`: a rustup toolchain's
/// sysroot is `<RUSTUP_HOME>/toolchains/<name>` (also when cargo was run straight from its
/// `bin/`, without the proxy); otherwise the proxy's `RUSTUP_TOOLCHAIN`, if any.
fn rustup_name(sysroot: &Path, rustup_toolchain: Option<String>) -> Option<String> {
    let in_toolchains_dir = sysroot
        .parent()
        .and_then(Path::file_name)
        .is_some_and(|d| d == "toolchains");
    if in_toolchains_dir {
        sysroot
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
    } else {
        rustup_toolchain
    }
}

/// Makes sure the toolchain has the components of [`COMPONENTS`]: installs the missing ones
/// through rustup unless `GTAP_RUSTUP_INSTALL=0`, or fails with what to do.
fn ensure_components() -> Result<(), String> {
    let tc = Toolchain::current()?;
    let missing = tc.missing();
    if missing.is_empty() {
        return Ok(());
    }
    let Some(name) = tc.rustup_name.clone() else {
        return Err(format!(
            "gtap device build needs the components {} in the Rust toolchain at {}, which is not \
             managed by rustup: install them with the tool that installed this toolchain, or use \
             a rustup toolchain (https://rustup.rs)",
            missing.join(", "),
            tc.sysroot.display()
        ));
    };
    let command = format!(
        "rustup component add --toolchain {name} {}",
        missing.join(" ")
    );
    if env::var(INSTALL_ENV).is_ok_and(|v| v == "0") {
        return Err(format!(
            "gtap device build needs the rustup components {} of toolchain {name}: run `{command}` \
             ({INSTALL_ENV}=0 is set, so gtap-build does not install them itself)",
            missing.join(", ")
        ));
    }
    // Build scripts of several gtap crates may get here at once: one installs, the others
    // wait for it and then find the components there.
    let lock_path = env::temp_dir().join(format!(
        "gtap-rustup-{:016x}.lock",
        fnv1a(tc.sysroot.to_string_lossy().as_bytes())
    ));
    // Without the lock (a temporary directory we cannot write) rustup still works; concurrent
    // installs are then rustup's to sort out.
    let _lock = fs::File::create(&lock_path)
        .and_then(|f| f.lock().map(|()| f))
        .map_err(|e| {
            println!(
                "cargo:warning=gtap-build: cannot lock {} ({e}); installing without it",
                lock_path.display()
            );
        })
        .ok();
    let missing = tc.missing();
    if missing.is_empty() {
        return Ok(());
    }
    let command = format!(
        "rustup component add --toolchain {name} {}",
        missing.join(" ")
    );
    eprintln!("gtap-build: running `{command}`");
    let rustup = rustup_binary();
    let out = Command::new(&rustup)
        .args(["component", "add", "--toolchain", &name])
        .args(&missing)
        .env_remove("RUST_BACKTRACE")
        .env_remove("RUST_LIB_BACKTRACE")
        .output()
        .map_err(|e| {
            format!(
                "gtap device build needs the rustup components {} of toolchain {name}, and cannot \
                 run {} to install them ({e}): run `{command}`",
                missing.join(", "),
                rustup.to_string_lossy()
            )
        })?;
    let still = tc.missing();
    if out.status.success() && still.is_empty() {
        println!(
            "cargo:warning=gtap-build: installed the rustup components {} that the GPU build \
             needs into toolchain {name} (`{command}`; once per toolchain, {INSTALL_ENV}=0 turns \
             this off)",
            missing.join(", ")
        );
        return Ok(());
    }
    let said = String::from_utf8_lossy(&out.stderr);
    let said: Vec<&str> = said.lines().filter(|l| !l.trim().is_empty()).collect();
    let first_error = said
        .iter()
        .find(|l| l.starts_with("error"))
        .map_or_else(|| out.status.to_string(), |l| (*l).to_owned());
    Err(format!(
        "gtap device build needs the rustup components {} of toolchain {name}, and `{command}` \
         failed: {first_error}\nOn a machine without network, run that command where rustup can \
         download (or copy a toolchain that has them) and build again. rustup said:\n{}",
        still.join(", "),
        said[said.len().saturating_sub(12)..].join("\n")
    ))
}

/// `rustup` from `PATH`, else from `$CARGO_HOME/bin` (where rustup-init puts it).
fn rustup_binary() -> OsString {
    let exe = if cfg!(windows) {
        "rustup.exe"
    } else {
        "rustup"
    };
    let on_path =
        env::var_os("PATH").is_some_and(|p| env::split_paths(&p).any(|d| d.join(exe).is_file()));
    if on_path {
        return OsString::from(exe);
    }
    env::var_os("CARGO_HOME")
        .map(|h| Path::new(&h).join("bin").join(exe))
        .filter(|p| p.is_file())
        .map_or_else(|| OsString::from(exe), PathBuf::into_os_string)
}

/// FNV-1a, for a lock-file name per toolchain.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Assembles `ptx` with `ptxas` for `sm`; fails when it is rejected.
fn run_ptxas(ptxas: &Path, ptx: &Path, sm: &str, out_dir: &Path) -> Result<(), String> {
    let cubin = out_dir.join("gtap-check.cubin");
    let out = Command::new(ptxas)
        .arg(format!("-arch={sm}"))
        .arg("-v")
        .arg(ptx)
        .arg("-o")
        .arg(&cubin)
        .output()
        .map_err(|e| format!("gtap device build: cannot run {}: {e}", ptxas.display()))?;
    let report =
        String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        return Err(format!("ptxas rejected {}:\n{report}", ptx.display()));
    }
    if env::var_os("GTAP_PTXAS_VERBOSE").is_some() {
        for line in report.lines() {
            println!("cargo:warning=ptxas: {line}");
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_components_are_found_by_their_files() {
        let root = env::temp_dir().join(format!("gtap-build-test-{}", std::process::id()));
        let tc = Toolchain {
            sysroot: root.join("toolchains/stable-x86_64-unknown-linux-gnu"),
            host: "x86_64-unknown-linux-gnu".to_owned(),
            rustup_name: None,
        };
        let bin = tc.sysroot.join("lib/rustlib/x86_64-unknown-linux-gnu/bin");
        fs::create_dir_all(bin.join("self-contained")).unwrap();
        assert_eq!(tc.missing(), COMPONENTS);
        fs::create_dir_all(tc.sysroot.join("lib/rustlib/src/rust/library/core")).unwrap();
        assert_eq!(tc.missing(), ["llvm-tools", "llvm-bitcode-linker"]);
        fs::write(bin.join("llvm-link"), "").unwrap();
        assert_eq!(tc.missing(), ["llvm-bitcode-linker"]);
        fs::write(bin.join("self-contained/llvm-bitcode-linker"), "").unwrap();
        assert!(tc.missing().is_empty());
        fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn the_toolchain_name_comes_from_the_rustup_layout_or_the_proxy() {
        let sysroot = Path::new("/home/u/.rustup/toolchains/1.95.0-x86_64-unknown-linux-gnu");
        assert_eq!(
            rustup_name(sysroot, Some("stable".to_owned())).as_deref(),
            Some("1.95.0-x86_64-unknown-linux-gnu")
        );
        let distro = Path::new("/usr");
        assert_eq!(rustup_name(distro, None), None);
        assert_eq!(
            rustup_name(distro, Some("stable".to_owned())).as_deref(),
            Some("stable")
        );
    }

    #[test]
    fn lock_names_differ_per_toolchain() {
        assert_ne!(
            fnv1a(b"/a/toolchains/stable"),
            fnv1a(b"/b/toolchains/stable")
        );
    }
}
