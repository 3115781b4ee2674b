#[gtap::function]
fn g(x: u32) -> u32 {
    x
}

#[gtap::function]
fn f(n: u32) -> u32 {
    let x = n + 1;
    {
        let x = x * 10;
        let a = task!(g(x));
        taskwait!();
        let _ = a + x;
    }
    x
}

fn main() {}
