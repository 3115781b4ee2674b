#[gtap::function]
fn g(n: u64) -> u64 {
    n * n
}

#[gtap::function]
fn f(o: Option<u64>) -> u64 {
    match &o {
        Some(k) => {
            let r = task!(g(*k));
            taskwait!();
            r + *k
        }
        None => 0,
    }
}

fn main() {}
