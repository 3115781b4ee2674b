// A replicated table (`Runtime::replicate`) is read-only: every GPU holds a copy, and a write
// to one copy would leave the others stale, so `Table` has no setter.
use gtap::Table;

#[gtap::function]
fn scale(t: Table<u32>, i: u32) -> u32 {
    t.set(i as usize, 0);
    t.get(i as usize)
}

gtap::program!(Scale = [scale]);

fn main() {}
