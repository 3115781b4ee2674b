struct Tree;

trait Walk {
    fn walk(n: u32) -> u32;
}

#[gtap::tasks]
impl Walk for Tree {
    #[gtap::function]
    fn walk(n: u32) -> u32 {
        n
    }
}

fn main() {}
