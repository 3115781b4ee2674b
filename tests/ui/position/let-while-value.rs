#[gtap::function]
fn g(n: u64) -> u64 {
    n
}

#[gtap::function]
fn f(n: u64) -> u64 {
    let mut i = 0;
    let v = while i < n {
        let a = task!(g(i));
        taskwait!();
        i += a;
    };
    let _ = v;
    i
}
fn main() {}
