use gtap::task;

#[gtap::function]
fn sq(x: u64) -> u64 {
    x * x
}

macro_rules! spawn_sq {
    ($x:expr) => {
        task!(sq($x))
    };
}

#[gtap::function]
fn f(n: u64) -> u64 {
    let a = spawn_sq!(n);
    taskwait!();
    a
}

fn main() {}
