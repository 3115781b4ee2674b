use gtap::Slice;

#[gtap::function(block)]
fn f(n: u32, out: Slice<u32>) {
    let t = gtap::block::thread_index();
    let u = t * 2;
    while u < n {
        out.set(u as usize, t);
        gtap::block::sync();
    }
}

fn main() {}
