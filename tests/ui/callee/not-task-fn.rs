fn plain(n: u32) -> u32 {
    n
}

#[gtap::function]
fn f(n: u32) -> u32 {
    let a = task!(plain(n));
    taskwait!();
    a
}

fn main() {}
