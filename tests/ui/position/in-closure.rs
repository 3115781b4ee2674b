#[gtap::function]
fn f(n: u32) -> u32 {
    let c = || {
        taskwait!();
    };
    c();
    n
}

fn main() {}
