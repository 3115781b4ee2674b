struct Tree {
    depth: u32,
}

#[gtap::tasks]
impl Tree {
    #[gtap::function]
    fn walk(&self, n: u32) -> u32 {
        n + self.depth
    }
}

fn main() {}
