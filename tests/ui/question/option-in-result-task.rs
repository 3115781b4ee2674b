#[gtap::function]
fn g(n: u64) -> u64 {
    n
}

#[gtap::function]
fn f(n: u64) -> Result<u64, u32> {
    let a = task!(g(n));
    taskwait!();
    let b = a.checked_sub(1)?;
    Ok(b)
}
fn main() {}
