//! Breadth-first search as GTaP runs it: asynchronous label correcting. A task visits a vertex
//! at a depth; for each neighbour it lowers the neighbour's depth with an atomic min and, when
//! that improved it, spawns a visit of the neighbour. Spawns are detached (no `taskwait!()`):
//! the run ends when no task is left.
//!
//! Invariants: `depths[u]` only decreases, and a visit `(u, d)` is spawned exactly when this
//! task's `atomic_min` lowered `depths[u]` to `d`. So each vertex ends at its true hop distance
//! (the least `d` of any path; `u32::MAX` when unreachable), whatever order tasks run in: the
//! final depths equal a sequential BFS's exactly. A visit whose depth was beaten before it ran
//! returns at once (a better visit of the same vertex was spawned and relaxes the neighbours).
//!
//! Adjacency lists longer than [`CHUNK`] are split in halves by `bfs_chunk` tasks down to
//! `CHUNK` edges, so a high-degree vertex is relaxed by many threads, not one (GTaP's thread
//! mode does the same with 32-edge chunks in the example, 64 in its evaluation). Every task
//! spawns at most `CHUNK` children, well inside `Config::max_children` (default 64).
//!
//! Sources: GTaP's BFS example and evaluation (`reference/gtap-runtime.md` §11).

use gtap::{Slice, Table};

/// Edges one task relaxes at most; longer adjacency lists are split into chunk tasks.
pub const CHUNK: u32 = 32;

/// Visits vertex `v` reached at `depth`: relaxes its out-edges `targets[offsets[v]..offsets[v + 1]]`.
///
/// The caller sets `depths[v] = depth` first (the root: `depths[source] = 0`, every other
/// entry `u32::MAX`).
#[gtap::function]
pub fn bfs_visit(v: u32, depth: u32, offsets: Table<u32>, targets: Table<u32>, depths: Slice<u32>) {
    if depths.atomic_load(v as usize) < depth {
        return;
    }
    let begin = offsets.get(v as usize);
    let end = offsets.get(v as usize + 1);
    if end - begin > CHUNK {
        let mid = begin + (end - begin) / 2;
        task!(bfs_chunk(v, depth, begin, mid, offsets, targets, depths));
        task!(bfs_chunk(v, depth, mid, end, offsets, targets, depths));
        return;
    }
    let next = depth + 1;
    // One lookup of this GPU's copy for the loop, whose atomics and spawns would make
    // `targets.get` look it up again at each edge.
    let here = targets.local();
    let mut e = begin;
    while e < end {
        let u = here.get(e as usize);
        if depths.atomic_min(u as usize, next) > next {
            task!(bfs_visit(u, next, offsets, targets, depths));
        }
        e += 1;
    }
}

/// Relaxes edges `begin..end` of vertex `v` (reached at `depth`), halving the range into two
/// chunk tasks while it is longer than [`CHUNK`].
#[gtap::function]
pub fn bfs_chunk(
    v: u32,
    depth: u32,
    begin: u32,
    end: u32,
    offsets: Table<u32>,
    targets: Table<u32>,
    depths: Slice<u32>,
) {
    if depths.atomic_load(v as usize) < depth {
        return;
    }
    if end - begin > CHUNK {
        let mid = begin + (end - begin) / 2;
        task!(bfs_chunk(v, depth, begin, mid, offsets, targets, depths));
        task!(bfs_chunk(v, depth, mid, end, offsets, targets, depths));
        return;
    }
    let next = depth + 1;
    // One lookup of this GPU's copy for the loop, whose atomics and spawns would make
    // `targets.get` look it up again at each edge.
    let here = targets.local();
    let mut e = begin;
    while e < end {
        let u = here.get(e as usize);
        if depths.atomic_min(u as usize, next) > next {
            task!(bfs_visit(u, next, offsets, targets, depths));
        }
        e += 1;
    }
}

gtap::program!(
    /// `bfs_visit` and its chunk tasks.
    pub Bfs = [bfs_visit, bfs_chunk]
);

/// The block-level visit: as [`bfs_visit`], with the block's threads striding over the
/// adjacency list (thread `t` relaxes edges `t, t + B, ..`) and each thread spawning the visits
/// of the neighbours it improved (per-thread detached spawns, no join). A list longer than
/// `B * CHUNK` edges is halved by the leader into [`bfs_block_chunk`] tasks first, so no
/// thread spawns more than [`CHUNK`] children.
///
/// Threads may disagree on the stale check (another task can lower `depths[v]` between their
/// loads); no barrier follows it, and a thread that goes on relaxes with a depth that was
/// reached, so the final depths are exact either way.
#[gtap::function(block)]
pub fn bfs_block(v: u32, depth: u32, offsets: Table<u32>, targets: Table<u32>, depths: Slice<u32>) {
    if depths.atomic_load(v as usize) < depth {
        return;
    }
    let begin = offsets.get(v as usize);
    let end = offsets.get(v as usize + 1);
    let (t, size) = (gtap::block::thread_index(), gtap::block::size());
    if end - begin > size * CHUNK {
        if gtap::block::is_leader() {
            let mid = begin + (end - begin) / 2;
            task!(bfs_block_chunk(
                v, depth, begin, mid, offsets, targets, depths
            ));
            task!(bfs_block_chunk(
                v, depth, mid, end, offsets, targets, depths
            ));
        }
        return;
    }
    let next = depth + 1;
    let here = targets.local();
    let mut e = begin + t;
    while e < end {
        let u = here.get(e as usize);
        if depths.atomic_min(u as usize, next) > next {
            task!(bfs_block(u, next, offsets, targets, depths));
        }
        e += size;
    }
}

/// Relaxes edges `begin..end` of vertex `v` (reached at `depth`) on a block, halving the
/// range while it is longer than `B * CHUNK`.
#[gtap::function(block)]
pub fn bfs_block_chunk(
    v: u32,
    depth: u32,
    begin: u32,
    end: u32,
    offsets: Table<u32>,
    targets: Table<u32>,
    depths: Slice<u32>,
) {
    if depths.atomic_load(v as usize) < depth {
        return;
    }
    let (t, size) = (gtap::block::thread_index(), gtap::block::size());
    if end - begin > size * CHUNK {
        if gtap::block::is_leader() {
            let mid = begin + (end - begin) / 2;
            task!(bfs_block_chunk(
                v, depth, begin, mid, offsets, targets, depths
            ));
            task!(bfs_block_chunk(
                v, depth, mid, end, offsets, targets, depths
            ));
        }
        return;
    }
    let next = depth + 1;
    let here = targets.local();
    let mut e = begin + t;
    while e < end {
        let u = here.get(e as usize);
        if depths.atomic_min(u as usize, next) > next {
            task!(bfs_block(u, next, offsets, targets, depths));
        }
        e += size;
    }
}

gtap::program!(
    /// `bfs_block` and its chunk tasks: every visit a block task.
    pub BfsBlock = [bfs_block, bfs_block_chunk]
);

/// The mixed-granularity visit (thread-level): a vertex with at most `threshold` out-edges
/// (and at most [`CHUNK`]) is relaxed by this thread; a longer list goes to a block-level
/// [`bfs_mixed_block`] task, detached. Visits of improved neighbours are thread-level again.
#[gtap::function]
pub fn bfs_mixed(
    v: u32,
    depth: u32,
    threshold: u32,
    offsets: Table<u32>,
    targets: Table<u32>,
    depths: Slice<u32>,
) {
    if depths.atomic_load(v as usize) < depth {
        return;
    }
    let begin = offsets.get(v as usize);
    let end = offsets.get(v as usize + 1);
    if end - begin > threshold.min(CHUNK) {
        task!(bfs_mixed_block(
            v, depth, begin, end, threshold, offsets, targets, depths
        ));
        return;
    }
    let next = depth + 1;
    // One lookup of this GPU's copy for the loop, whose atomics and spawns would make
    // `targets.get` look it up again at each edge.
    let here = targets.local();
    let mut e = begin;
    while e < end {
        let u = here.get(e as usize);
        if depths.atomic_min(u as usize, next) > next {
            task!(bfs_mixed(u, next, threshold, offsets, targets, depths));
        }
        e += 1;
    }
}

/// Relaxes edges `begin..end` of vertex `v` on a block for [`bfs_mixed`]: halved by the leader
/// while longer than `B * CHUNK`, then strided over the threads, each spawning thread-level
/// visits of the neighbours it improved.
#[gtap::function(block)]
#[allow(clippy::too_many_arguments)]
pub fn bfs_mixed_block(
    v: u32,
    depth: u32,
    begin: u32,
    end: u32,
    threshold: u32,
    offsets: Table<u32>,
    targets: Table<u32>,
    depths: Slice<u32>,
) {
    if depths.atomic_load(v as usize) < depth {
        return;
    }
    let (t, size) = (gtap::block::thread_index(), gtap::block::size());
    if end - begin > size * CHUNK {
        if gtap::block::is_leader() {
            let mid = begin + (end - begin) / 2;
            task!(bfs_mixed_block(
                v, depth, begin, mid, threshold, offsets, targets, depths
            ));
            task!(bfs_mixed_block(
                v, depth, mid, end, threshold, offsets, targets, depths
            ));
        }
        return;
    }
    let next = depth + 1;
    let here = targets.local();
    let mut e = begin + t;
    while e < end {
        let u = here.get(e as usize);
        if depths.atomic_min(u as usize, next) > next {
            task!(bfs_mixed(u, next, threshold, offsets, targets, depths));
        }
        e += size;
    }
}

gtap::program!(
    /// `bfs_mixed` (thread-level visits) and `bfs_mixed_block` (block-level relaxation of
    /// long adjacency lists).
    pub BfsMixed = [bfs_mixed, bfs_mixed_block]
);
