struct Tree;

#[gtap::tasks]
impl Tree {
    #[gtap::function]
    fn walk<T: Copy>(x: T) -> T {
        x
    }
}

fn main() {}
