#[gtap::function]
fn g(n: u64) -> u64 {
    n
}

#[gtap::function]
fn f(n: u64) -> u64 {
    let v = loop {
        let a = task!(g(n));
        if n > 3 {
            break 1;
        }
        taskwait!();
        break a;
    };
    v
}
fn main() {}
