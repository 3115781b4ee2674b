//! Random task programs for differential testing of `#[gtap::function]` and the executors
//! (`docs/frontend.md`, "Random programs"): [`gen::program`] makes a program from a seed,
//! [`render::module`] writes it as the macro's input or as the plain-Rust reference,
//! [`coverage`] counts what a run generated, and [`shrink`] proposes smaller variants of a
//! failing one.

pub mod ast;
pub mod coverage;
pub mod gen;
pub mod render;
pub mod shrink;

pub use ast::Program;
pub use coverage::Coverage;
pub use render::Build;

/// Where a module of programs is compiled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// The host only: the CPU executor runs the task builds.
    Cpu,
    /// Also `nvptx64-nvidia-cuda`: each program gets its default and clones kernels
    /// (`gtap::kernel!(SeedN, only = [default, clones])`), and the references and the entry
    /// table are host-only.
    Gpu,
}

/// The name of the `gtap::program!` of the program of `seed`: unique in a set, since a
/// program's GPU kernels are named after it.
pub fn program_name(seed: u64) -> String {
    format!("Seed{seed}")
}

/// The source of a crate module holding programs `progs` in both builds, their shared
/// definitions, and a table of entries (`PROGRAMS`) that a runner iterates: each entry's seed,
/// the task build's run on a runtime, the reference's result, and the program's text.
pub fn programs_module(progs: &[Program]) -> String {
    programs_module_for(progs, Target::Cpu)
}

/// [`programs_module`] for `target`. The seeds must differ (programs are named after them).
pub fn programs_module_for(progs: &[Program], target: Target) -> String {
    let host_only = match target {
        Target::Cpu => "",
        Target::Gpu => "#[cfg(not(target_arch = \"nvptx64\"))]\n",
    };
    let mut s = String::new();
    s.push_str("pub mod common {\n");
    s.push_str(render::COMMON);
    s.push_str("}\n\n");
    for (i, p) in progs.iter().enumerate() {
        s.push_str(&render::module(p, Build::Tasks, &format!("t{i}")));
        if target == Target::Gpu {
            s.push_str(&format!(
                "gtap::kernel!({}, only = [default, clones]);\n",
                program_name(p.seed)
            ));
            s.push_str(&format!("use t{i}::{};\n", program_name(p.seed)));
        }
        s.push_str(host_only);
        s.push_str(&render::module(p, Build::Reference, &format!("r{i}")));
    }
    s.push_str(host_only);
    s.push_str("pub static PROGRAMS: &[crate::Entry] = &[\n");
    for (i, p) in progs.iter().enumerate() {
        let text = render::module(p, Build::Tasks, "program");
        s.push_str(&format!(
            "    crate::Entry {{ seed: {}, statements: {}, depth: {}, x: {}, \
             run: |rt, d, x| rt.run::<t{i}::{}, _>(t{i}::f0, (d, x)), \
             reference: r{i}::f0, text: {:?} }},\n",
            p.seed,
            shrink::size(p),
            p.depth,
            p.x,
            program_name(p.seed),
            text
        ));
    }
    s.push_str("];\n");
    s
}
