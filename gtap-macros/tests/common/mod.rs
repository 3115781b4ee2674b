//! What the run tests share: running a task function on the CPU executor and comparing its
//! result with the plain Rust twin's.

/// Runs `f(args)` as program `P` on the CPU executor (`gtap::run`) and asserts that the result
/// is `want`.
pub fn check<P: gtap::Program, T: gtap::TaskFn>(f: T, args: T::Args, want: T::Output)
where
    T::Output: PartialEq + std::fmt::Debug,
{
    let got = gtap::run::<P, T>(f, args).expect("runs on the CPU executor");
    assert_eq!(got, want, "{}", T::NAME);
}
