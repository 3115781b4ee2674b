#[gtap::function]
fn g(n: u32) -> u32 {
    n
}

#[gtap::function]
fn f(n: u32) -> u32 {
    let mut s = 0;
    for i in [1u32, 2, 3].iter() {
        let a = task!(g(*i + n));
        taskwait!();
        s += a;
    }
    s
}

fn main() {}
