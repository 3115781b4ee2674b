#[gtap::function]
fn sq(x: u64) -> u64 {
    x * x
}

#[gtap::function]
fn f(n: u64) -> u64 {
    let mut acc = 0;
    for i in 0..n {
        let shift = move |v: u64| v + i;
        let r = task!(sq(i));
        taskwait!();
        acc += shift(r);
    }
    acc
}

fn main() {}
