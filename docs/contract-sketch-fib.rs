#![allow(non_camel_case_types)]
use gtap::__private as g;

// ---- what #[gtap::function] fn fib(n: u32) -> u64 { if n<2 {return n as u64;} let a = task!(fib(n-1)); let b = task!(fib(n-2)); taskwait!(); a + b } expands to
#[derive(Clone, Copy)]
pub struct __gtap_fib_marker;
pub const fib: __gtap_fib_marker = __gtap_fib_marker;

#[repr(C)]
pub struct __gtap_fib_frame<L0, L1> { args: (u32,), a: L0, b: L1 }

unsafe impl g::TaskFn for __gtap_fib_marker {
    type Args = (u32,);
    type Output = u64;
    const ID: g::KindId = gtap::task::kind_id(concat!(module_path!(), "::fib"));
    const NAME: &'static str = "fib";
    const JOINS: bool = true;
    const CALLEES: &'static [g::KindId] = &[gtap::task::kind_of(&fib), gtap::task::kind_of(&fib)];
    unsafe fn step<C: g::Context>(ctx: &mut C) -> g::Step {
        let frame = ctx.frame() as *mut __gtap_fib_frame<_, _>;
        if C::PROBE {
            let (s, a) = g::frame_layout::<_, { g::DEFAULT_MAX_FRAME_BYTES }>(frame);
            ctx.report_layout(s, a);
            return g::Step::Done;
        }
        let result = ctx.result_dst() as *mut u64;
        match ctx.state() {
            0 => {
                let (n,) = unsafe { (*frame).args };
                if n < 2 {
                    unsafe { g::write_result(result, n as u64) };
                    return g::Step::Done;
                }
                if !unsafe { g::spawn::<_, 1, _>(ctx, &fib, 0, &raw mut (*frame).a, (n - 1,)) } { return g::Step::Aborted; }
                if !unsafe { g::spawn::<_, 1, _>(ctx, &fib, 0, &raw mut (*frame).b, (n - 2,)) } { return g::Step::Aborted; }
                if ctx.wait(1, 0) { return g::Step::Suspended; }
                let a = unsafe { (*frame).a };
                let b = unsafe { (*frame).b };
                unsafe { g::write_result(result, a + b) };
                g::Step::Done
            }
            1 => {
                let a = unsafe { (*frame).a };
                let b = unsafe { (*frame).b };
                unsafe { g::write_result(result, a + b) };
                g::Step::Done
            }
            _ => ctx.unknown_kind(0),
        }
    }
}
impl g::Arity<1> for __gtap_fib_marker {}

fn plain(x: u32) -> u32 { x }

gtap::program!(pub Fib = [fib]);

// ---- a toy sequential scheduler to exercise the contract
struct Probe { size: usize }
unsafe impl g::Context for Probe {
    const PROBE: bool = true;
    fn state(&self) -> u32 { 0 }
    fn frame(&self) -> *mut u8 { std::ptr::null_mut() }
    fn result_dst(&self) -> *mut u8 { std::ptr::null_mut() }
    unsafe fn spawn_raw(&mut self, _: g::KindId, _: u32, _: *mut u8) -> *mut u8 { std::ptr::null_mut() }
    fn wait(&mut self, _: u32, _: u32) -> bool { false }
    fn report_layout(&mut self, s: usize, _: usize) { self.size = s; }
    fn unknown_kind(&mut self, _: g::KindId) -> g::Step { g::Step::Aborted }
}
struct Task { kind: u32, state: u32, frame: Box<[u128; 4]>, dst: *mut u8, parent: usize, pending: u32 }
struct Seq { tasks: Vec<Task>, cur: usize, spawned: Vec<usize> }
unsafe impl g::Context for Seq {
    fn state(&self) -> u32 { self.tasks[self.cur].state }
    fn frame(&self) -> *mut u8 { self.tasks[self.cur].frame.as_ptr() as *mut u8 }
    fn result_dst(&self) -> *mut u8 { self.tasks[self.cur].dst }
    unsafe fn spawn_raw(&mut self, k: g::KindId, _: u32, d: *mut u8) -> *mut u8 {
        self.tasks.push(Task { kind: k, state: 0, frame: Box::new([0; 4]), dst: d, parent: self.cur, pending: 0 });
        self.spawned.push(self.tasks.len() - 1);
        self.tasks.last().unwrap().frame.as_ptr() as *mut u8
    }
    fn wait(&mut self, r: u32, _: u32) -> bool {
        if self.spawned.is_empty() { return false; }
        let t = &mut self.tasks[self.cur]; t.state = r; t.pending = self.spawned.len() as u32; true
    }
    fn report_layout(&mut self, _: usize, _: usize) {}
    fn unknown_kind(&mut self, _: g::KindId) -> g::Step { g::Step::Aborted }
}
fn run_seq(n: u32) -> u64 {
    let mut out = 0u64;
    let mut s = Seq { tasks: vec![], cur: 0, spawned: vec![] };
    s.tasks.push(Task { kind: <__gtap_fib_marker as g::TaskFn>::ID, state: 0, frame: Box::new([0; 4]), dst: &raw mut out as *mut u8, parent: usize::MAX, pending: 0 });
    unsafe { *(s.tasks[0].frame.as_ptr() as *mut (u32,)) = (n,) };
    let mut ready = vec![0usize];
    while let Some(t) = ready.pop() {
        s.cur = t; s.spawned.clear();
        let kind = s.tasks[t].kind;
        match unsafe { <Fib as gtap::Program>::dispatch(&mut s, kind) } {
            g::Step::Suspended => ready.extend(s.spawned.iter().copied()),
            g::Step::Done => { let p = s.tasks[t].parent; if p != usize::MAX { s.tasks[p].pending -= 1; if s.tasks[p].pending == 0 { ready.push(p) } } }
            g::Step::Aborted => panic!(),
        }
    }
    out
}
fn main() {
    let mut p = Probe { size: 0 };
    let _ = unsafe { <Fib as gtap::Program>::dispatch(&mut p, <__gtap_fib_marker as g::TaskFn>::ID) };
    println!("frame size {} fib(20)={}", p.size, run_seq(20));
    #[cfg(feature = "bad1")] { let mut s = Seq { tasks: vec![], cur: 0, spawned: vec![] }; unsafe { g::spawn::<_, 1, _>(&mut s, &plain, 0, std::ptr::null_mut(), (1,)); } }
    #[cfg(feature = "bad2")] { let mut s = Seq { tasks: vec![], cur: 0, spawned: vec![] }; unsafe { g::spawn::<_, 2, _>(&mut s, &fib, 0, std::ptr::null_mut(), (1, 2)); } }
    #[cfg(feature = "bad3")] { let v = vec![1]; unsafe { g::save(std::ptr::null_mut(), v) } }
}
