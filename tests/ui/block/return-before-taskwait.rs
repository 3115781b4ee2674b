#[gtap::function]
fn g(n: u32) -> u32 {
    n
}

#[gtap::function(block)]
fn f(n: u32) -> u32 {
    if gtap::block::thread_index() >= n {
        return 0;
    }
    let a = task!(g(n));
    taskwait!();
    a
}

fn main() {}
