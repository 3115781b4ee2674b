//! One run on several GPUs ([`Devices`]): a persistent kernel per GPU, launched together,
//! watched together, stopped together.
//!
//! # What the host does
//!
//! 1. [`ordinals`]: the CUDA devices of the run (or device 0 several times, for
//!    [`Devices::Partitions`], each partition's grid a share of the device's resident grid so
//!    that all are co-resident). [`enable_peer_access`] maps every GPU's memory into every
//!    other's (`cuCtxEnablePeerAccess`): the task records, queues and control words the
//!    kernels share, the root's result, and the user's buffers, which live on the first GPU
//!    (peer-mapped, not replicated: a buffer is one allocation, so a task writes it wherever
//!    it runs, and `download` reads it from one place). Read-only tables
//!    (`Runtime::replicate`) have a copy on every GPU instead (`replicas.rs`).
//! 2. [`run`]: each GPU's pools, params and control block are prepared (the root's slot on
//!    the first), then every GPU gets the same peer table (`layout::PeerInfo`: where each
//!    GPU's control block, slots, overflow queues and completion inbox are), then the kernels
//!    are launched one after the other without waiting.
//! 3. The host polls every stream. The first GPU that records an error (its host-mapped
//!    record) or faults stops the others through their abort words; a run with no progress
//!    on any GPU for `Config::watchdog` stops them all with [`Error::Hang`]. The root's
//!    completion stores `done` on every GPU (`gtap-device`'s `gpu/peer`), so all kernels
//!    exit.
//! 4. The result is read from the first GPU; the error, if any, is the first GPU's (by index)
//!    that recorded or hit one, wrapped in [`Error::OnGpu`] naming it.

use std::time::{Duration, Instant};

use cudarc::driver::sys;
use gtap_device::gpu::layout::{Control, PeerInfo};
use gtap_device::task::{Program, TaskFn};

use super::pools::{record_serves, slot_bytes};
use super::{check, CuResult, Inner, Launch, Part, OK};
use crate::config::{Devices, MAX_GPUS};
use crate::error::{Error, Result};
use crate::stats::RunStats;
use crate::stop::Stop;

/// The CUDA device ordinals of a run and the partition share of each (1, or `n` for
/// [`Devices::Partitions`]`(n)`).
pub(super) fn ordinals(devices: &Devices) -> Result<(Vec<u32>, u32)> {
    let count = || -> Result<u32> {
        if !super::available() {
            return Err(Error::NoGpu {
                reason: "no CUDA driver or no CUDA device".into(),
            });
        }
        let mut n = 0i32;
        // SAFETY: an out-pointer; the driver is initialized by `available`.
        check("cuDeviceGetCount", unsafe {
            sys::cuDeviceGetCount(&raw mut n)
        })?;
        Ok(n.max(0) as u32)
    };
    Ok(match devices {
        Devices::One => (vec![0], 1),
        Devices::All => {
            let n = count()?.min(MAX_GPUS as u32);
            ((0..n).collect(), 1)
        }
        Devices::List(list) => {
            let n = count()?;
            if let Some(&d) = list.iter().find(|&&d| d >= n) {
                return Err(Error::InvalidConfig {
                    field: "devices",
                    value: format!("{devices:?} (device {d}; this host has {n})"),
                    expected: "ordinals of CUDA devices of this host",
                });
            }
            (list.clone(), 1)
        }
        Devices::Partitions(n) => (vec![0; *n as usize], *n),
    })
}

/// Turns on peer access between every two distinct devices of the run (both directions).
pub(super) fn enable_peer_access(first: &Inner, others: &[Inner]) -> Result<()> {
    let all: Vec<&Inner> = std::iter::once(first).chain(others.iter()).collect();
    for a in &all {
        for b in &all {
            if a.ordinal == b.ordinal {
                continue;
            }
            let mut can = 0i32;
            // SAFETY: out-pointer; valid device handles.
            check("cuDeviceCanAccessPeer", unsafe {
                sys::cuDeviceCanAccessPeer(&raw mut can, a.ctx.cu_device(), b.ctx.cu_device())
            })?;
            if can == 0 {
                return Err(Error::InvalidConfig {
                    field: "devices",
                    value: format!("devices {} and {}", a.ordinal, b.ordinal),
                    expected: "GPUs with peer access between every two of them (NVLink or PCIe peer-to-peer)",
                });
            }
            a.bind()?;
            // SAFETY: `a`'s context is bound; `b`'s context is valid.
            let r = unsafe { sys::cuCtxEnablePeerAccess(b.ctx.cu_ctx(), 0) };
            if r != OK && r != CuResult::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED {
                check("cuCtxEnablePeerAccess", r)?;
            }
        }
    }
    Ok(())
}

/// The task record size of a run on several GPUs, one for all of them: a courier reads a
/// peer's record at the peer's index times its own size. It is the size every GPU's pools
/// already have when that serves the program (its `need` bytes fit, and at most twice that:
/// programs taking turns keep their pools), else the program's own (every GPU reallocates).
fn shared_record_bytes(all: &[&mut Inner], need: usize) -> u32 {
    let need = u32::try_from(need).unwrap_or(u32::MAX);
    agreed_record_bytes(
        all.iter().map(|i| i.pools.as_ref().map(|p| p.slot_bytes)),
        need,
    )
}

/// [`shared_record_bytes`] over each GPU's pools' record size (`None`: no pools yet).
fn agreed_record_bytes(mut sizes: impl Iterator<Item = Option<u32>>, need: u32) -> u32 {
    match sizes.next().flatten() {
        Some(s) if record_serves(s, need) && sizes.all(|x| x == Some(s)) => s,
        _ => need,
    }
}

/// Runs the root task `args` on the GPUs `first` and `others` together.
pub(super) fn run<P: Program, T: TaskFn>(
    first: &mut Inner,
    others: &mut [Inner],
    args: T::Args,
    stride: usize,
    stop: &Stop,
) -> Result<(T::Output, RunStats)> {
    let t0 = Instant::now();
    let gpus = 1 + others.len() as u32;
    let mut all: Vec<&mut Inner> = std::iter::once(first).chain(others.iter_mut()).collect();
    let record_bytes = shared_record_bytes(&all, slot_bytes(stride));
    let mut launches = Vec::with_capacity(all.len());
    for (i, inner) in all.iter_mut().enumerate() {
        let part = Part {
            gpus,
            gpu: i as u32,
            record_bytes,
        };
        let mut l = inner
            .prepare::<P, T>(args, stride, part)
            .map_err(|e| on_gpu(inner, e))?;
        inner.queue_setup(&mut l).map_err(|e| on_gpu(inner, e))?;
        launches.push(l);
    }
    let table: Vec<PeerInfo> = all.iter().map(|i| i.peer_info()).collect();
    for inner in &all {
        inner.write_peers(&table).map_err(|e| on_gpu(inner, e))?;
    }
    // Every GPU's setup is queued on its stream; the kernels start one after the other (a
    // GPU that starts early finds nothing to import yet and waits).
    for inner in &all {
        inner.bind()?;
        // SAFETY: a valid stream.
        check("cuStreamSynchronize", unsafe {
            sys::cuStreamSynchronize(inner.stream)
        })
        .map_err(|e| on_gpu(inner, e))?;
    }
    if let Some(reason) = stop.requested() {
        return Err(stop.error(reason));
    }
    for (inner, l) in all.iter_mut().zip(&launches) {
        inner.launch(l).map_err(|e| on_gpu(inner, e))?;
    }
    wait_all(&mut all, &launches, stop)?;

    let mut output = None;
    let mut stats = RunStats {
        backend: "gpu",
        gpus: all.len(),
        ..RunStats::default()
    };
    let mut first_error = None;
    let mut kernel = Duration::ZERO;
    for (inner, l) in all.iter_mut().zip(launches) {
        match inner.finish::<P, T>(l) {
            Ok(f) => {
                if f.output.is_some() {
                    output = f.output;
                }
                let s = &f.stats;
                stats.workers += s.workers;
                stats.tasks += s.tasks;
                stats.steps += s.steps;
                stats.gpu_steps.push(s.steps);
                stats
                    .gpu_hungry
                    .push(Duration::from_micros(u64::from(f.control.hungry_us)));
                stats.cross_requests += u64::from(f.control.asks);
                stats.steals += s.steals;
                stats.cross_steals += s.cross_steals;
                stats.cross_tasks += s.cross_tasks;
                stats.cross_bytes += s.cross_bytes;
                kernel = kernel.max(s.kernel_time.unwrap_or_default());
            }
            Err(e) => {
                if first_error.is_none() {
                    first_error = Some(on_gpu(inner, e));
                }
            }
        }
    }
    if let Some(e) = first_error {
        return Err(e);
    }
    stats.kernel_time = Some(kernel);
    stats.elapsed = t0.elapsed();
    match output {
        Some(out) => Ok((out, stats)),
        None => Err(Error::Protocol {
            task: T::NAME,
            detail: "the GPU workers exited before the root task finished",
        }),
    }
}

/// `e`, from GPU `inner` of a multi-GPU run.
fn on_gpu(inner: &Inner, e: Error) -> Error {
    match e {
        Error::OnGpu { .. } => e,
        e => Error::OnGpu {
            gpu: inner.gpu_index,
            device: inner.ordinal,
            error: Box::new(e),
        },
    }
}

/// Waits for every GPU's kernel. A GPU that records an error or faults, or no progress on
/// any GPU for the watchdog's time, stops the others (their abort words); the error is
/// returned (faults and hangs here, recorded errors by [`Inner::finish`]).
fn wait_all(all: &mut [&mut Inner], launches: &[Launch], stop: &Stop) -> Result<()> {
    let mut running: Vec<bool> = vec![true; all.len()];
    let mut last_sum = 0u64;
    let mut last_change = Instant::now();
    let mut next_poll = Instant::now() + Duration::from_millis(10);
    let mut sleep_us = 5;
    let mut stopping = false;
    let mut fault = None;
    let watchdog = all[0].config.watchdog;
    while running.iter().any(|&r| r) {
        for (i, inner) in all.iter_mut().enumerate() {
            if !running[i] {
                continue;
            }
            inner.bind()?;
            // SAFETY: a valid stream.
            let r = unsafe { sys::cuStreamQuery(inner.stream) };
            if r == OK {
                running[i] = false;
            } else if r != CuResult::CUDA_ERROR_NOT_READY {
                running[i] = false;
                if fault.is_none() {
                    let e = inner.fault(r);
                    fault = Some(on_gpu(inner, e));
                }
            }
            // SAFETY: host-mapped memory, valid while `inner` lives.
            let recorded = unsafe { (*inner.error_host).code } != 0;
            if recorded || fault.is_some() {
                // A GPU with an error: the others must not wait for completions it will never
                // send. (A clean exit needs nothing: the root finished and `done` reached
                // every GPU.)
                stopping = true;
            }
        }
        if let Some(reason) = stop.requested() {
            abort_running(all, &running);
            wait_exit(all, &mut running);
            return Err(stop.error(reason));
        }
        if stopping {
            abort_running(all, &running);
        }
        let now = Instant::now();
        if now >= next_poll && !stopping {
            next_poll = now + Duration::from_millis(10);
            let mut sum = 0u64;
            for (inner, l) in all.iter_mut().zip(launches) {
                sum += inner.progress_sum(l.warps).map_err(|e| on_gpu(inner, e))?;
            }
            if sum != last_sum {
                last_sum = sum;
                last_change = now;
            } else if now - last_change > watchdog {
                let after = now - last_change;
                abort_running(all, &running);
                wait_exit(all, &mut running);
                return Err(on_gpu(all[0], Error::Hang { after }));
            }
        }
        std::thread::sleep(Duration::from_micros(sleep_us));
        sleep_us = (sleep_us * 2).min(if stop.armed() {
            super::STOP_POLL_US
        } else {
            200
        });
    }
    match fault {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Sets the abort word of every GPU whose kernel still runs.
fn abort_running(all: &mut [&mut Inner], running: &[bool]) {
    for (inner, _) in all.iter_mut().zip(running).filter(|(_, &r)| r) {
        inner.request_abort();
    }
}

/// After aborts: waits up to 5 s for the kernels to exit; those that do not are poisoned.
fn wait_exit(all: &mut [&mut Inner], running: &mut [bool]) {
    let deadline = Instant::now() + Duration::from_secs(5);
    while running.iter().any(|&r| r) && Instant::now() < deadline {
        for (i, inner) in all.iter_mut().enumerate() {
            if running[i] && inner.bind().is_ok() {
                // SAFETY: a valid stream.
                let r = unsafe { sys::cuStreamQuery(inner.stream) };
                if r != CuResult::CUDA_ERROR_NOT_READY {
                    running[i] = false;
                }
            }
        }
        std::thread::sleep(Duration::from_micros(20));
    }
    for (i, inner) in all.iter_mut().enumerate() {
        if running[i] {
            inner.poison();
        }
    }
}

// The control block's layout is shared with the device; the abort word is what stops it.
const _: () = assert!(core::mem::size_of::<Control>() == 64);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partitions_and_one_need_no_driver() {
        assert_eq!(ordinals(&Devices::One).unwrap(), (vec![0], 1));
        assert_eq!(
            ordinals(&Devices::Partitions(3)).unwrap(),
            (vec![0, 0, 0], 3)
        );
    }

    #[test]
    fn errors_name_the_gpu() {
        let e = Error::OnGpu {
            gpu: 1,
            device: 3,
            error: Box::new(Error::Hang {
                after: Duration::from_secs(2),
            }),
        };
        assert!(matches!(e.innermost(), Error::Hang { .. }));
        let msg = e.to_string();
        assert!(msg.starts_with("on GPU 1 of the run (CUDA device 3): no task made progress"));
    }

    #[test]
    fn several_gpus_agree_on_one_record_size() {
        let agree = |sizes: &[Option<u32>], need| agreed_record_bytes(sizes.iter().copied(), need);
        assert_eq!(
            agree(&[Some(256), Some(256)], 192),
            256,
            "pools that serve: kept"
        );
        assert_eq!(
            agree(&[Some(256), Some(256)], 128),
            256,
            "twice the need: kept"
        );
        assert_eq!(
            agree(&[Some(256), Some(256)], 127),
            127,
            "more than twice: reallocated"
        );
        assert_eq!(
            agree(&[Some(128), Some(128)], 192),
            192,
            "too small: reallocated"
        );
        assert_eq!(
            agree(&[Some(256), Some(192)], 192),
            192,
            "GPUs that differ: all the need"
        );
        assert_eq!(agree(&[Some(256), None], 192), 192, "a GPU without pools");
        assert_eq!(
            agree(&[None, Some(256)], 192),
            192,
            "the first without pools"
        );
    }
}
