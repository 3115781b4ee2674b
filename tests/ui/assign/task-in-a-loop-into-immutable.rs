#[gtap::function]
fn g(n: u64) -> u64 {
    n
}

#[gtap::function]
fn f(n: u64) -> u64 {
    let a;
    let mut i = 0;
    loop {
        a = task!(g(n + i));
        taskwait!();
        i += 1;
        if i == 3 {
            break;
        }
    }
    a
}
fn main() {}
