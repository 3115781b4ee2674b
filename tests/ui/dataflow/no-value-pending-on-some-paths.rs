#[gtap::function]
fn g(n: u64) -> u64 {
    n * n
}

#[gtap::function]
fn f(n: u64, o: Option<u64>) -> u64 {
    let mut v: u64;
    if let Some(k) = o {
        v = task!(g(k));
    } else {
        v = 5;
    }
    taskwait!();
    v + n
}

fn main() {}
