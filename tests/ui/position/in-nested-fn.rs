#[gtap::function]
fn g(n: u32) -> u32 {
    n
}

#[gtap::function]
fn f(n: u32) -> u32 {
    fn helper(n: u32) -> u32 {
        let x = task!(g(n));
        taskwait!();
        x
    }
    helper(n)
}

fn main() {}
