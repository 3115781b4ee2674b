struct Tree;

#[gtap::tasks]
impl Tree {
    #[gtap::function]
    fn sum(n: u64) -> u64 {
        let a = task!(Self::sum(n - 1));
        a + n
    }
}

fn main() {}
