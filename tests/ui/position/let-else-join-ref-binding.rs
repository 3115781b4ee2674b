#[gtap::function]
fn g(n: u64) -> u64 {
    n
}

#[gtap::function]
fn f(o: Option<u64>) -> u64 {
    let Some(ref k) = o else {
        let r = task!(g(1));
        taskwait!();
        return r;
    };
    *k
}

fn main() {}
