#[gtap::function]
fn g(n: u64) -> u64 {
    n
}

#[gtap::function]
fn f(n: u64) -> u64 {
    let mut v = [0u64; 2];
    v[1] = if n > 3 { task!(g(n)) } else { task!(g(1)) };
    taskwait!();
    let mut t = 0;
    t += match n {
        0 => task!(g(2)),
        _ => 5,
    };
    taskwait!();
    v[1] + t
}

fn main() {}
