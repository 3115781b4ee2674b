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

/// The source of a crate module holding programs `progs` in both builds, their shared
/// definitions, and a table of entries (`PROGRAMS`) that a runner iterates: each entry's seed,
/// the task build's run on a runtime, the reference's result, and the program's text.
pub fn programs_module(progs: &[Program]) -> String {
    let mut s = String::new();
    s.push_str("pub mod common {\n");
    s.push_str(render::COMMON);
    s.push_str("}\n\n");
    for (i, p) in progs.iter().enumerate() {
        s.push_str(&render::module(p, Build::Tasks, &format!("t{i}")));
        s.push_str(&render::module(p, Build::Reference, &format!("r{i}")));
    }
    s.push_str("pub static PROGRAMS: &[crate::Entry] = &[\n");
    for (i, p) in progs.iter().enumerate() {
        let text = render::module(p, Build::Tasks, "program");
        s.push_str(&format!(
            "    crate::Entry {{ seed: {}, statements: {}, depth: {}, x: {}, \
             run: |rt, d, x| rt.run::<t{i}::Prog, _>(t{i}::f0, (d, x)), \
             reference: r{i}::f0, text: {:?} }},\n",
            p.seed,
            shrink::size(p),
            p.depth,
            p.x,
            text
        ));
    }
    s.push_str("];\n");
    s
}
