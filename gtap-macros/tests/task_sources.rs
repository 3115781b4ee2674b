//! `TaskFn::SOURCE` and `Program::task_at`: the lines a task function spans, by which the
//! runtime names the task of a panic on the GPU (whose handler knows only the location).

use gtap::__private::TaskFn;
use gtap::program;
use gtap::Program;

const FIRST: u32 = line!() + 2;
#[gtap::function]
pub fn halves(n: u32) -> u32 {
    if n < 2 {
        return n;
    }
    let a = task!(halves(n / 2));
    taskwait!();
    a + 1
}
const LAST: u32 = line!() - 1;

#[gtap::function]
pub fn other(n: u32) -> u32 {
    n
}

program!(pub Halves = [halves, other]);

#[test]
fn source_spans_the_function() {
    let s = <halves as TaskFn>::SOURCE;
    assert!(s.file.ends_with("task_sources.rs"), "{s:?}");
    assert_eq!((s.first_line, s.last_line), (FIRST, LAST));
    let o = <other as TaskFn>::SOURCE;
    assert_eq!(o.first_line, LAST + 4);
}

#[test]
fn task_at_names_the_function_of_a_line() {
    // The GPU keeps the end of a long path; a host build may see a longer form of it.
    for file in [
        "tests/task_sources.rs",
        "task_sources.rs",
        "/home/user/project/gtap-macros/tests/task_sources.rs",
    ] {
        assert_eq!(Halves::task_at(file, FIRST), Some("halves"), "{file}");
        assert_eq!(Halves::task_at(file, LAST), Some("halves"), "{file}");
        assert_eq!(Halves::task_at(file, LAST + 4), Some("other"), "{file}");
    }
    assert_eq!(Halves::task_at("task_sources.rs", FIRST - 2), None);
    assert_eq!(Halves::task_at("other_file.rs", FIRST), None);
    assert_eq!(Halves::task_at("", FIRST), None);
}
