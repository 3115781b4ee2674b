#[gtap::function]
fn f(n: u32) -> u32 {
    let _fut = async {
        taskwait!();
    };
    n
}

fn main() {}
