#[gtap::function]
fn g(n: u64) -> u64 {
    n
}

// `break` leaves the scope of `a` while its task runs: the join after the loop comes too late.
#[gtap::function]
fn f(n: u64) -> u64 {
    let mut total = 0;
    let mut i = 0;
    while i < n {
        let a = task!(g(i));
        i += 1;
        if i > 3 {
            break;
        }
        taskwait!();
        total += a;
    }
    taskwait!();
    total
}

fn main() {}
