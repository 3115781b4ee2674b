// A paused run's handle borrows its runtime: the runtime cannot be dropped (or used for
// another run) while the handle lives.
use gtap::{Config, Outcome, RunOptions, Runtime};

#[gtap::function]
fn leaf(n: u32) -> u32 {
    n
}

gtap::program!(Leaf = [leaf]);

fn main() {
    let mut rt = Runtime::cpu(Config::default()).unwrap();
    let outcome = rt.start::<Leaf, _>(leaf, (1,), &RunOptions::default()).unwrap();
    drop(rt);
    if let Outcome::Paused(paused) = outcome {
        let _ = paused.resume(&RunOptions::default());
    }
}
