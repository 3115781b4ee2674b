#[gtap::function]
fn g(x: u32) -> u32 {
    x
}

// A `let` that hides `x` is fine (the outer `x` is saved right before it); a pattern's binding
// has no statement to save it before.
#[gtap::function]
fn f(n: u32, o: Option<u32>) -> u32 {
    let x = n + 1;
    if let Some(x) = o {
        let a = task!(g(x));
        taskwait!();
        let _ = a + x;
    }
    x
}

fn main() {}
