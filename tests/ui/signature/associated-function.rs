#[gtap::function]
fn g(n: u64) -> u64 {
    n
}

struct Tree;

impl Tree {
    #[gtap::function]
    fn sum(n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        let a = task!(Self::sum(n - 1));
        taskwait!();
        a + n
    }
}
fn main() {}
