//! What a run generated: each construct, each construct directly inside another (a join in a
//! `match` arm), and each chain of three (a join in a `match` arm inside a loop), counted, so
//! that a gap in the generator shows as a zero, not as coverage.

use std::collections::BTreeMap;
use std::fmt::Write;

/// Counts of constructs, pairs and triples over the programs of a run.
#[derive(Default, Clone, Debug)]
pub struct Coverage {
    pub constructs: BTreeMap<&'static str, u64>,
    pub pairs: BTreeMap<(&'static str, &'static str), u64>,
    pub triples: BTreeMap<(&'static str, &'static str, &'static str), u64>,
}

/// The statement-level constructs a body may hold (what [`Coverage::report`] lists even when
/// a run made none).
pub const CONSTRUCTS: &[&str] = &[
    "let",
    "shadowing",
    "assign",
    "join",
    "if",
    "if let",
    "match",
    "for",
    "while",
    "loop with a value",
    "labelled block",
    "break 'label",
    "continue 'label",
    "early return",
    "? on Option",
    "? on Result",
    "several task!s per join",
    "mutual recursion",
    "fn -> u64",
    "fn -> Option",
    "fn -> Result",
    "task! of a recursive function",
    "task! of a generic function",
    "task! of a const-generic function",
    "task! of an associated function (#[gtap::tasks])",
    "struct argument",
    "enum argument",
    "panic path",
    "result into a local",
    "result into an array element",
    "result into a tuple field",
    "result into a struct field",
    "result combined at the join (+=)",
    "detached child",
];

/// The constructs that hold statements (the parents of pairs).
pub const PARENTS: &[&str] = &[
    "fn",
    "if",
    "else",
    "if let",
    "match arm",
    "match guard arm",
    "for",
    "while",
    "loop",
    "labelled block",
];

impl Coverage {
    pub fn construct(&mut self, what: &'static str) {
        *self.constructs.entry(what).or_default() += 1;
    }

    pub fn pair(&mut self, parent: &'static str, what: &'static str) {
        *self.pairs.entry((parent, what)).or_default() += 1;
    }

    pub fn triple(&mut self, grand: &'static str, parent: &'static str, what: &'static str) {
        *self.triples.entry((grand, parent, what)).or_default() += 1;
    }

    /// Adds `other`'s counts.
    pub fn merge(&mut self, other: &Coverage) {
        for (k, v) in &other.constructs {
            *self.constructs.entry(k).or_default() += v;
        }
        for (k, v) in &other.pairs {
            *self.pairs.entry(*k).or_default() += v;
        }
        for (k, v) in &other.triples {
            *self.triples.entry(*k).or_default() += v;
        }
    }

    /// Constructs and joins inside each parent never generated.
    pub fn gaps(&self) -> Vec<String> {
        let mut out: Vec<String> = CONSTRUCTS
            .iter()
            .filter(|c| !self.constructs.contains_key(*c))
            .map(|c| c.to_string())
            .collect();
        for p in PARENTS {
            if !self.pairs.contains_key(&(*p, "join")) {
                out.push(format!("join in {p}"));
            }
        }
        out
    }

    /// The report: every construct with its count (zeros included), joins per parent, the
    /// twenty most and least frequent chains of three that end in a join, and the gaps.
    pub fn report(&self) -> String {
        let mut s = String::from("constructs generated:\n");
        for c in CONSTRUCTS {
            let _ = writeln!(
                s,
                "  {:>8}  {c}",
                self.constructs.get(c).copied().unwrap_or(0)
            );
        }
        s.push_str("joins directly inside:\n");
        for p in PARENTS {
            let n = self.pairs.get(&(*p, "join")).copied().unwrap_or(0);
            let _ = writeln!(s, "  {n:>8}  {p}");
        }
        let mut joins: Vec<_> = self
            .triples
            .iter()
            .filter(|((_, _, w), _)| *w == "join")
            .collect();
        joins.sort_by(|a, b| b.1.cmp(a.1));
        let _ = writeln!(s, "joins nested two deep ({} kinds of chain):", joins.len());
        for ((g, p, _), n) in joins.iter().take(20) {
            let _ = writeln!(s, "  {n:>8}  join in {p} in {g}");
        }
        let _ = writeln!(s, "pairs of constructs: {}", self.pairs.len());
        let gaps = self.gaps();
        if gaps.is_empty() {
            s.push_str("gaps: none\n");
        } else {
            let _ = writeln!(s, "gaps: {}", gaps.join(", "));
        }
        s
    }
}
