#[gtap::function]
fn g(n: u32) -> u32 {
    n
}

#[gtap::function(block)]
fn f(n: u32) -> u32 {
    let t = gtap::block::thread_index();
    let mut a = 0;
    if t < 4 {
        a = task!(g(n));
        taskwait!();
    }
    gtap::block::broadcast(a)
}

fn main() {}
