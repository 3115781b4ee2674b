#[gtap::function]
fn f((ref a, b): (u64, u64)) -> u64 {
    *a + b
}

#[gtap::function]
fn caller(n: u64) -> u64 {
    let r = task!(f((n, n)));
    taskwait!();
    r
}

gtap::program!(P = [f, caller]);

fn main() {}
