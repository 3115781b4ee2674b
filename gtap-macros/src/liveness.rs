//! Data flow over the graph of [`crate::cfg`]: which task results are pending, and which locals
//! are live across each `taskwait!()`.
//!
//! 1. **Pending results** (forward, may and must): a `task!` into `x` makes `x` pending; a
//!    `taskwait!()` joins every pending result. Reading or assigning a possibly-pending `x`,
//!    spawning into it again, or leaving its scope or the function while it may be pending are
//!    errors.
//!    A local that receives results into its fields or elements (`x[i] = task!(..)`) is
//!    pending like a whole result (not read, assigned or left before the join), but may receive
//!    more results into its elements while pending.
//! 2. **Liveness** (backward gen/kill): `live_in = uses ∪ (live_out − defs)`, where a
//!    `taskwait!()` defines the whole results that are surely pending there (they are written
//!    by the children and read back from the task-data struct); a place root is not defined
//!    there (its other elements keep their values), so it is saved like any live local. The set saved across wait `w` is
//!    `live_out(w)` minus those results; the set restored after it is `live_out(w)`.
//!
//! # Convergence
//!
//! Both analyses are monotone over finite lattices (bitsets over the locals; pending: `may`
//! only grows and `must` only shrinks from "all"), so the round-robin iteration terminates.

use crate::{
    cfg::{Body, LocalId, NodeKind},
    diag::Ctxt,
};
use report::report;

mod report;

/// A set of locals.
#[derive(Clone, PartialEq, Eq, Default, Debug)]
pub(crate) struct BitSet {
    words: Vec<u64>,
}

impl BitSet {
    pub(crate) fn insert(&mut self, l: LocalId) {
        let (w, b) = (l.0 / 64, l.0 % 64);
        if self.words.len() <= w {
            self.words.resize(w + 1, 0);
        }
        self.words[w] |= 1 << b;
    }
    pub(crate) fn remove(&mut self, l: LocalId) {
        if let Some(w) = self.words.get_mut(l.0 / 64) {
            *w &= !(1 << (l.0 % 64));
        }
    }
    pub(crate) fn contains(&self, l: LocalId) -> bool {
        self.words
            .get(l.0 / 64)
            .is_some_and(|w| w & (1 << (l.0 % 64)) != 0)
    }
    fn union_with(&mut self, o: &BitSet) {
        if self.words.len() < o.words.len() {
            self.words.resize(o.words.len(), 0);
        }
        for (a, b) in self.words.iter_mut().zip(&o.words) {
            *a |= b;
        }
    }
    fn intersect_with(&mut self, o: &BitSet) {
        for (i, a) in self.words.iter_mut().enumerate() {
            *a &= o.words.get(i).copied().unwrap_or(0);
        }
    }
    fn normalized(mut self) -> Self {
        while self.words.last() == Some(&0) {
            self.words.pop();
        }
        self
    }
    /// The members, ascending.
    pub(crate) fn iter(&self) -> impl Iterator<Item = LocalId> + '_ {
        self.words.iter().enumerate().flat_map(|(w, bits)| {
            (0..64)
                .filter(move |b| bits & (1u64 << b) != 0)
                .map(move |b| LocalId(w * 64 + b))
        })
    }
}

/// The result of the analyses, per wait (in [`Body::waits`] order).
pub(crate) struct LivenessInfo {
    /// Locals live right after each wait: restored when it resumes.
    pub(crate) live_after: Vec<BitSet>,
    /// Task results joined by each wait (surely pending there): not saved, read back from
    /// their slots.
    pub(crate) joined: Vec<BitSet>,
    /// Locals named (read or written) on some path after each wait before their scope ends:
    /// those that are not live are declared without a value (`let x;`) in the resume code.
    pub(crate) mentioned_after: Vec<BitSet>,
    /// Locals read on some path after each wait before their scope ends.
    pub(crate) read_after: Vec<BitSet>,
    /// Live task results that no wait saves, because their task-data field holds their
    /// value: those declared without a value, not `mut`, and written only by tasks (`let v;`,
    /// `let v = if c { task!(..) } else { .. }`, see [`Body::only_task_writes`]), or by tasks
    /// and plain values that are stored into the field too ([`Body::stored_writes`]).
    pub(crate) unsaved_results: Vec<BitSet>,
    /// Of those, the ones not spawned yet on some path at each wait: they have no value there,
    /// so the code after the wait reads them only after a later join, and their resume state
    /// does not restore them (the field would be read before any child wrote it).
    pub(crate) unset_results: Vec<BitSet>,
    /// Per wait, the locals it would save that a nested block's `let` of the same name hides
    /// there (`let x = ..; { let x = ..; taskwait!(); } x`): the wait cannot name them, so the
    /// lowering saves each right before the `let` that hides it ([`Self::hider_saves`]).
    pub(crate) saved_at_hider: Vec<BitSet>,
    /// `(hider, hidden)`: save `hidden` right before the `let` (or spawn) that declares
    /// `hider`, see `crate::lower::hidden`.
    pub(crate) hider_saves: Vec<(LocalId, LocalId)>,
}

#[derive(Clone)]
struct Pending {
    may: BitSet,
    must: BitSet,
    /// Locals that only task results write ([`Body::only_task_writes`]), declared and not yet
    /// spawned into on some path: they have no value there.
    unset: BitSet,
}

/// Runs both analyses and reports the dataflow errors.
pub(crate) fn analyze(cx: &mut Ctxt, body: &Body) -> LivenessInfo {
    let n = body.nodes.len();
    // ---- pending results: forward ----
    let mut input: Vec<Option<Pending>> = vec![None; n];
    if n > 0 {
        input[0] = Some(Pending {
            may: BitSet::default(),
            must: BitSet::default(),
            unset: BitSet::default(),
        });
    }
    let only_task_writes: Vec<bool> = body
        .locals
        .iter()
        .map(|d| d.no_value && !d.mutable && body.only_task_writes(&d.ident))
        .collect();
    let stored: Vec<bool> = (0..body.locals.len())
        .map(|i| body.stored_writes(LocalId(i)))
        .collect();
    let transfer = |k: usize, p: &Pending| -> Pending {
        let node = &body.nodes[k];
        let mut out = p.clone();
        for (d, _) in &node.defs {
            out.may.remove(*d);
            out.must.remove(*d);
            // Its one def is its declaration.
            if only_task_writes[d.0] {
                out.unset.insert(*d);
            }
            // Its declaration, or a plain value (`v = e`, stored into its field too).
            if stored[d.0] {
                if node.assigns {
                    out.unset.remove(*d);
                } else {
                    out.unset.insert(*d);
                }
            }
        }
        for l in &node.scope_end {
            out.may.remove(*l);
            out.must.remove(*l);
            out.unset.remove(*l);
        }
        match node.kind {
            NodeKind::Spawn {
                target: Some(t), ..
            } => {
                out.may.insert(t);
                out.must.insert(t);
                out.unset.remove(t);
            }
            NodeKind::Wait { .. } => {
                out.may = BitSet::default();
                out.must = BitSet::default();
            }
            _ => {}
        }
        out
    };
    // Forward to a fixed point from what `input` holds.
    let fixpoint = |input: &mut Vec<Option<Pending>>| {
        let mut changed = true;
        while changed {
            changed = false;
            for k in 0..n {
                let Some(p) = input[k].clone() else { continue };
                let out = transfer(k, &p);
                for s in &body.nodes[k].succs {
                    let merged = match &input[s.0] {
                        None => out.clone(),
                        Some(old) => {
                            let mut m = old.clone();
                            m.may.union_with(&out.may);
                            m.must.intersect_with(&out.must);
                            m.unset.union_with(&out.unset);
                            m
                        }
                    };
                    let merged = Pending {
                        may: merged.may.normalized(),
                        must: merged.must.normalized(),
                        unset: merged.unset.normalized(),
                    };
                    let differs = input[s.0].as_ref().is_none_or(|old| {
                        old.may != merged.may
                            || old.must != merged.must
                            || old.unset != merged.unset
                    });
                    if differs {
                        input[s.0] = Some(merged);
                        changed = true;
                    }
                }
            }
        }
    };
    fixpoint(&mut input);
    // The results a wait joins whole: surely pending there, and not place roots (a local
    // that receives results into its elements keeps its other elements: it is saved and
    // restored like any live local, the children write into its saved copy).
    let must_at = |k: usize| {
        let mut m = input[k]
            .as_ref()
            .map(|p| p.must.clone())
            .unwrap_or_default();
        for (i, d) in body.locals.iter().enumerate() {
            if d.place_spawn {
                m.remove(LocalId(i));
            }
        }
        m.normalized()
    };

    // ---- liveness: backward ----
    let mut live_in = vec![BitSet::default(); n];
    let live_out_of = |live_in: &[BitSet], k: usize| {
        let mut out = BitSet::default();
        for s in &body.nodes[k].succs {
            out.union_with(&live_in[s.0]);
        }
        out
    };
    let mut changed = true;
    while changed {
        changed = false;
        for k in (0..n).rev() {
            let node = &body.nodes[k];
            let mut l = live_out_of(&live_in, k);
            for (d, _) in &node.defs {
                l.remove(*d);
            }
            if let NodeKind::Wait { .. } = node.kind {
                for j in must_at(k).iter() {
                    l.remove(j);
                }
            }
            // `let x = task!(..)` declares `x`: no earlier use can read this one.
            if let NodeKind::Spawn {
                target: Some(t), ..
            } = node.kind
            {
                if body.locals[t.0].declared_by_spawn {
                    l.remove(t);
                }
            }
            for (u, _) in &node.uses {
                l.insert(*u);
            }
            let l = l.normalized();
            if l != live_in[k] {
                live_in[k] = l;
                changed = true;
            }
        }
    }

    // ---- mentions: backward, killed only at the end of the local's scope ----
    let mut ment_in = vec![BitSet::default(); n];
    let mut changed = true;
    while changed {
        changed = false;
        for k in (0..n).rev() {
            let node = &body.nodes[k];
            let mut m = live_out_of(&ment_in, k);
            for l in &node.scope_end {
                m.remove(*l);
            }
            for (u, _) in node.uses.iter().chain(&node.defs) {
                m.insert(*u);
            }
            let m = m.normalized();
            if m != ment_in[k] {
                ment_in[k] = m;
                changed = true;
            }
        }
    }

    // ---- reads: as mentions, uses only ----
    let mut read_in = vec![BitSet::default(); n];
    let mut changed = true;
    while changed {
        changed = false;
        for k in (0..n).rev() {
            let node = &body.nodes[k];
            let mut m = live_out_of(&read_in, k);
            for l in &node.scope_end {
                m.remove(*l);
            }
            for (u, _) in &node.uses {
                m.insert(*u);
            }
            let m = m.normalized();
            if m != read_in[k] {
                read_in[k] = m;
                changed = true;
            }
        }
    }

    let info = LivenessInfo {
        read_after: body
            .waits
            .iter()
            .map(|w| live_out_of(&read_in, w.node.0).normalized())
            .collect(),
        mentioned_after: body
            .waits
            .iter()
            .map(|w| live_out_of(&ment_in, w.node.0).normalized())
            .collect(),
        live_after: body
            .waits
            .iter()
            .map(|w| live_out_of(&live_in, w.node.0).normalized())
            .collect(),
        joined: body.waits.iter().map(|w| must_at(w.node.0)).collect(),
        unsaved_results: Vec::new(),
        unset_results: Vec::new(),
        saved_at_hider: Vec::new(),
        hider_saves: Vec::new(),
    };
    let info = keep_loop_outer(body, info);
    let info = unsaved_results(body, &input, info);
    let info = hidden_saves(body, info);
    report(cx, body, &input, &info);
    info
}

/// Per node, in how many states' code it is emitted: the states start at the entry and after
/// each wait, and run until the next wait.
fn states_reaching(body: &Body) -> Vec<usize> {
    let n = body.nodes.len();
    let mut count = vec![0usize; n];
    let starts = std::iter::once(None).chain(body.waits.iter().map(|w| Some(w.node.0)));
    for start in starts {
        let mut seen = vec![false; n];
        let mut stack: Vec<usize> = match start {
            None if n > 0 => vec![0],
            None => Vec::new(),
            Some(w) => body.nodes[w].succs.iter().map(|s| s.0).collect(),
        };
        while let Some(k) = stack.pop() {
            if seen[k] {
                continue;
            }
            seen[k] = true;
            count[k] += 1;
            if !matches!(body.nodes[k].kind, NodeKind::Wait { .. }) {
                stack.extend(body.nodes[k].succs.iter().map(|s| s.0));
            }
        }
    }
    count
}

/// The local that hides `l` at `wait`: declared after it with the same name in a scope around
/// the wait (a nested block's `let a` over an outer `a`). The wait's save of `l` would name
/// that one instead, so a live `l` hidden there is an error. (A local shadowed in its own
/// scope is never live: nothing can name it any more.)
fn hidden_at(body: &Body, wait: &crate::cfg::WaitPoint, l: LocalId) -> Option<LocalId> {
    let ident = &body.locals[l.0].ident;
    wait.visible
        .iter()
        .flatten()
        .copied()
        .find(|m| m.0 > l.0 && body.locals[m.0].ident == *ident)
}

/// Fills [`LivenessInfo::saved_at_hider`] and [`LivenessInfo::hider_saves`]: a local that
/// a wait saves ([`saved_at_wait`]) but that a `let` of a nested block hides at the wait is
/// saved right before that `let` instead. Nothing can change it in between: no code in the
/// hider's scope can name it, and a local whose address the body may take
/// ([`Body::address_taken`]) is not saved this way (a write through that address would be
/// lost). A hider bound by a pattern (a `match` arm, `if let`, `for`) has no statement to put
/// the save before: that stays the error of [`report`], as does a borrowed local.
fn hidden_saves(body: &Body, mut info: LivenessInfo) -> LivenessInfo {
    for (w, wait) in body.waits.iter().enumerate() {
        let mut at_hider = BitSet::default();
        for l in info.live_after[w].iter() {
            let decl = &body.locals[l.0];
            let saved = saved_at_wait(body, &info, w, l);
            let Some(hider) = hidden_at(body, wait, l) else {
                continue;
            };
            let address_taken = body.address_taken.contains(&decl.ident.to_string());
            if saved && body.locals[hider.0].let_path.is_some() && !address_taken {
                at_hider.insert(l);
                if !info.hider_saves.contains(&(hider, l)) {
                    info.hider_saves.push((hider, l));
                }
            }
        }
        info.saved_at_hider.push(at_hider.normalized());
    }
    info
}

/// Whether wait `w` has to save local `l`, live after it, into its field: not joined there, not
/// a parameter that stays in `args`, not a result whose field already holds it.
fn saved_at_wait(body: &Body, info: &LivenessInfo, w: usize, l: LocalId) -> bool {
    let decl = &body.locals[l.0];
    !info.joined[w].contains(l)
        && (decl.param.is_none() || decl.mutable)
        && !info.unsaved_results[w].contains(l)
}

/// Fills [`LivenessInfo::unsaved_results`]: the live locals that only task results write (or
/// task results and plain values stored into their fields too, [`Body::stored_writes`]),
/// pending at a wait on some paths only. Rust would refuse the wait's save on the paths where
/// the result is pending (the local has no value there), and the save is not needed: the
/// local's task-data field holds its value on every path.
fn unsaved_results(body: &Body, input: &[Option<Pending>], mut info: LivenessInfo) -> LivenessInfo {
    for (w, wait) in body.waits.iter().enumerate() {
        let (mut unsaved, mut unset) = (BitSet::default(), BitSet::default());
        if let Some(p) = &input[wait.node.0] {
            for l in info.live_after[w].iter() {
                let decl = &body.locals[l.0];
                if info.joined[w].contains(l) {
                    continue;
                }
                if decl.no_value
                    && !decl.mutable
                    && (body.only_task_writes(&decl.ident) || body.stored_writes(l))
                {
                    // Never saved (its `let` is dropped, so a save could name it where it
                    // is not declared). Not `mut`: nothing changes it after its join (a
                    // `let mut v;` may be changed by `v += 1`, which `only_task_writes` does
                    // not count, so its field would miss the change).
                    if p.unset.contains(l) {
                        unset.insert(l);
                    }
                    unsaved.insert(l);
                }
            }
        }
        info.unsaved_results.push(unsaved.normalized());
        info.unset_results.push(unset.normalized());
    }
    info
}

/// A local declared outside a loop that contains wait `w`, and written after `w` on every path
/// before it is read again, is not live after `w`; but the resume state mirrors the loop as
/// `loop { if first { REST } else { FULL } }`, and rustc cannot see that `FULL` runs only after
/// `REST` assigned it (E0381). Such locals are saved and restored like live ones.
fn keep_loop_outer(body: &Body, mut info: LivenessInfo) -> LivenessInfo {
    for (w, wait) in body.waits.iter().enumerate() {
        let Some(k) = wait
            .path
            .iter()
            .rposition(|(_, step)| *step == crate::cfg::PathStep::LoopBody)
        else {
            continue;
        };
        // `visible[i + 1]` is the block holding `path[i]`: levels `..=k + 1` are outside the loop.
        for level in wait.visible.iter().take(k + 2) {
            for l in level {
                // The temporaries of `let v = loop { .. }` are only assigned in the loop (by
                // its breaks) and read after it: never read by `FULL`, and unset at the wait.
                let temp = body.locals[l.0]
                    .ident
                    .to_string()
                    .starts_with("__gtap_value_");
                if !temp
                    && info.read_after[w].contains(*l)
                    && !info.live_after[w].contains(*l)
                    && !info.joined[w].contains(*l)
                {
                    info.live_after[w].insert(*l);
                }
            }
        }
    }
    info
}
