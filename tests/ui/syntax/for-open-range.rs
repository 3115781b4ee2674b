#[gtap::function]
fn g(n: u64) -> u64 {
    n
}

#[gtap::function]
fn f(n: u64) -> u64 {
    let mut total = 0;
    for i in n.. {
        let a = task!(g(i));
        taskwait!();
        total += a;
        if total > 100 {
            break;
        }
    }
    total
}
fn main() {}
