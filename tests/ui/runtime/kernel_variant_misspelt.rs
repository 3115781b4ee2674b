// `gtap::kernel!(P, only = [..])` lists the kernel variants a device crate emits; a name it
// does not have is a compile error on the host too, not only in the device build.
#[gtap::function]
fn leaf(x: u64) -> u64 {
    x
}

gtap::program!(Leaf = [leaf]);
gtap::kernel!(Leaf, only = [default, clone]);

fn main() {}
