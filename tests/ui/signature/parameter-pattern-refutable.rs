#[gtap::function]
fn f((0, b): (u64, u64)) -> u64 {
    b
}

#[gtap::function]
fn caller(n: u64) -> u64 {
    let r = task!(f((0, n)));
    taskwait!();
    r
}

gtap::program!(P = [f, caller]);

fn main() {}
