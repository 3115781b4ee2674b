#[gtap::function]
fn f(n: u64) -> u64 {
    n + 1
}

// Locals are tracked by name: the shadowing `let a = broadcast(a)` shares the leader-only
// `a`'s taint, and the message says to rename it.
#[gtap::function(block)]
fn g(n: u64) -> u64 {
    let mut a = 0;
    if gtap::block::is_leader() {
        a = task!(f(n));
    }
    taskwait!();
    let a = gtap::block::broadcast(a);
    if a > 3 {
        gtap::block::sync();
    }
    a
}

fn main() {}
