#[gtap::function]
fn g(x: u32) -> u32 {
    x
}

// The outer `x` would be saved where the inner `let` runs, and the write through `p` before the
// join would be lost: a rename is asked for instead.
#[gtap::function]
fn f(n: u32) -> u32 {
    let mut x = [n; 2];
    let p = &mut x[0];
    {
        let x = 5u32;
        *p += 1;
        let a = task!(g(x));
        taskwait!();
        let _ = a;
    }
    x[0]
}

fn main() {}
