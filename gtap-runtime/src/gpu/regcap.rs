//! The automatic register cap: a kernel that needs more than [`AUTO_REGISTER_CAP`] registers
//! per thread is compiled a second time with that cap, so that a task body's heavy code does
//! not take the worker loop's occupancy down with it.
//!
//! A recursive sequential helper in a body (fib's cutoff: `if n <= cutoff { return
//! seq_fib(n) }`, the usual shape) is a call the compiler must keep the loop's live values
//! across. `FibCutoff`'s parkable kernel needed 208 registers, 9 warps per SM; capped at 168
//! it ran EPAQ fib(40) at cutoff 9 in 5.9 ms instead of 10.0 (H200; `docs/benchmarks.md`,
//! tenth session). Since the warp view keeps only hot fields in registers (`gtap-device`'s
//! `gpu/warp.rs`) it needs 144 and no example kernel needs the cap; a user's heavier body
//! still can.
//!
//! # Invariants
//!
//! - Only a kernel above the cap is recompiled, and only when [`Config::max_registers`] is
//!   `None`: every other kernel keeps the code the compiler gave it (a cap changes the
//!   schedule even of kernels below it, so the cap is not applied module-wide).
//! - The recompiled module is the same PTX less every other entry, with one `.maxnreg`
//!   directive added to the one entry; the kernel taken from it is the same function, with
//!   fewer registers, and its JIT compiles one kernel, not the crate's hundreds.
//!
//! [`Config::max_registers`]: crate::Config::max_registers

/// Registers per thread above which a kernel is recompiled with this cap: 12 warps of 32
/// threads per SM (65,536 registers), the occupancy of the heaviest example kernel that needs
/// no cap (the pruned tree's, at 168).
pub(super) const AUTO_REGISTER_CAP: u32 = 168;

/// `ptx` with a `.maxnreg regs` directive on the entry named `entry` (between its parameter
/// list and its body, where PTX takes performance directives), or `None` when the module has
/// no such entry or the entry already has a register directive.
pub(super) fn with_maxnreg(ptx: &str, entry: &str, regs: u32) -> Option<String> {
    let start = find_entry(ptx, entry)?;
    // The parameter list ends at the first line that starts with `)`.
    let close = start + ptx[start..].find("\n)")? + 1;
    let line_end = close + ptx[close..].find('\n')?;
    let rest = &ptx[line_end..];
    let body = rest.find('{')?;
    if rest[..body].contains(".maxnreg") || rest[..body].contains(".maxntid") {
        return None;
    }
    let mut out = String::with_capacity(ptx.len() + 16);
    out.push_str(&ptx[..line_end]);
    out.push_str(&format!("\n.maxnreg {regs}"));
    out.push_str(rest);
    Some(out)
}

/// `ptx` with every kernel entry but `entry` left out: the declarations, globals and device
/// functions stay, so the module still links, and its JIT compiles one kernel instead of
/// every kernel of the crate (about a minute for the examples' 216). `None` when the module
/// has no such entry.
pub(super) fn only_entry(ptx: &str, entry: &str) -> Option<String> {
    find_entry(ptx, entry)?;
    let mut out = String::with_capacity(ptx.len() / 8);
    let mut skipping = false;
    for line in ptx.split_inclusive('\n') {
        if skipping {
            // An entry's body ends at the first `}` in the first column (LLVM indents the
            // body's own scopes).
            if line.trim_end() == "}" {
                skipping = false;
            }
            continue;
        }
        if let Some(rest) = line.strip_prefix(".visible .entry ") {
            if !rest.starts_with(&format!("{entry}(")) {
                skipping = true;
                continue;
            }
        }
        out.push_str(line);
    }
    Some(out)
}

/// The byte offset of `.entry NAME(` in `ptx`, matching the whole name.
fn find_entry(ptx: &str, entry: &str) -> Option<usize> {
    let needle = format!(".entry {entry}(");
    ptx.find(&needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PTX: &str = ".version 8.4\n.target sm_90\n\n\
        .visible .entry k_small(\n\t.param .u64 k_small_param_0\n)\n{\n\tret;\n}\n\n\
        .visible .entry k_big(\n\t.param .u64 .ptr .align 1 k_big_param_0\n)                                       // @k_big\n{\n\t.reg .b32 %r<3>;\n\tret;\n}\n";

    #[test]
    fn adds_the_directive_to_the_named_entry_only() {
        let out = with_maxnreg(PTX, "k_big", 168).expect("k_big is in the module");
        assert_eq!(out.matches(".maxnreg").count(), 1);
        let big = out.find(".entry k_big(").unwrap();
        let directive = out.find(".maxnreg 168").unwrap();
        let body = big + out[big..].find('{').unwrap();
        assert!(big < directive && directive < body, "{out}");
        // Everything else is unchanged.
        assert_eq!(out.replace("\n.maxnreg 168", ""), PTX);
    }

    #[test]
    fn the_first_entry_keeps_its_body() {
        let out = with_maxnreg(PTX, "k_small", 64).unwrap();
        assert!(out.contains(".entry k_small(\n\t.param .u64 k_small_param_0\n)\n.maxnreg 64\n{"));
    }

    #[test]
    fn names_must_match_whole() {
        assert!(with_maxnreg(PTX, "k_bi", 168).is_none());
        assert!(with_maxnreg(PTX, "missing", 168).is_none());
    }

    #[test]
    fn only_the_named_entry_is_kept() {
        let ptx = format!("{PTX}.visible .func helper(\n)\n{{\n\t{{\n\tret;\n\t}}\n}}\n");
        let out = only_entry(&ptx, "k_big").unwrap();
        assert!(!out.contains("k_small"), "{out}");
        assert!(
            out.contains(".entry k_big(") && out.contains(".func helper("),
            "{out}"
        );
        assert!(out.starts_with(".version 8.4\n.target sm_90\n"), "{out}");
        // The kept parts are verbatim: the whole module less the other entry.
        let small = ".visible .entry k_small(\n\t.param .u64 k_small_param_0\n)\n{\n\tret;\n}\n";
        assert_eq!(out, ptx.replace(small, ""));
        assert!(only_entry(&ptx, "k_bi").is_none());
    }

    #[test]
    fn an_entry_with_a_directive_is_left_alone() {
        let once = with_maxnreg(PTX, "k_big", 168).unwrap();
        assert!(with_maxnreg(&once, "k_big", 128).is_none());
    }
}
