//! The process's record of each CUDA device's primary context: how many GPU engines
//! ([`Inner`](super::Inner)s) use it, and whether a fault lost it.
//!
//! Every `Inner` of a device shares the device's primary context. A fault the runtime cannot
//! stop (an illegal address in a task's `unsafe` code, a kernel that never exits) leaves the
//! CUDA driver unusable for the whole process: on H100s with driver 580, after an illegal
//! address on one GPU, retaining any GPU's context (the same one after
//! `cuDevicePrimaryCtxReset`, or another GPU's) answers the fault's error
//! (`docs/runs/context-reset-probe-h100.txt`). So:
//!
//! - the `Inner` that saw the fault marks every device lost ([`Use::lose`]), those not yet
//!   opened included; every other `Inner` sees the mark before its next run or transfer
//!   ([`Use::current`]) and answers [`Error::ContextLost`] instead of failing in the driver's
//!   words;
//! - a new `Inner` on a lost device is refused ([`Use::enter`]) while any other still uses it;
//!   once none does, the next one resets the context (every allocation in it is destroyed)
//!   and asks the driver for it again. Where the driver hands out a context, the mark is
//!   cleared; where it does not (CUDA's drivers after an illegal address), the device stays
//!   lost and every new `Inner` on it gets [`Error::ContextLost`]: only a new process uses
//!   the GPU again;
//! - nothing made in a lost context is freed or destroyed through it afterwards: pools,
//!   buffers, streams and pinned memory check their [`Token`] and leak instead (the reset
//!   reclaims them; a free after it would hand the driver a stale handle).
//!
//! Invariant: `live` counts the `Use`s of the device that exist; `generation` only grows, by
//! one each time the device goes from usable to lost, so a [`Token`] of an earlier generation
//! never becomes current again.

use std::sync::{Mutex, MutexGuard};

use cudarc::driver::sys;

use crate::error::{Error, Result};

#[derive(Clone, Copy, Debug, Default)]
struct Device {
    live: u32,
    lost: bool,
    generation: u64,
}

/// Every device the process opened, and whether a fault was seen (devices opened after it
/// start lost).
#[derive(Debug, Default)]
struct Registry {
    devices: Vec<Device>,
    faulted: bool,
}

impl Registry {
    const fn new() -> Self {
        Self {
            devices: Vec::new(),
            faulted: false,
        }
    }

    fn device(&mut self, ordinal: u32) -> &mut Device {
        let i = ordinal as usize;
        if self.devices.len() <= i {
            let fresh = Device {
                lost: self.faulted,
                ..Device::default()
            };
            self.devices.resize(i + 1, fresh);
        }
        &mut self.devices[i]
    }

    /// A new user of `ordinal`; `reset` resets a lost context and says whether the driver
    /// gives it back.
    fn enter(&mut self, ordinal: u32, reset: impl FnOnce(u32) -> bool) -> Result<Token> {
        let d = self.device(ordinal);
        if d.lost {
            if d.live > 0 || !reset(ordinal) {
                return Err(Error::ContextLost);
            }
            d.lost = false;
        }
        d.live += 1;
        Ok(Token {
            ordinal,
            generation: d.generation,
        })
    }

    fn leave(&mut self, ordinal: u32) {
        self.device(ordinal).live -= 1;
    }

    fn current(&mut self, token: Token) -> bool {
        let d = self.device(token.ordinal);
        d.generation == token.generation && !d.lost
    }

    /// A fault seen through `token`'s context: every device is lost, once per fault.
    fn lose(&mut self, token: Token) {
        if self.current(token) {
            self.lose_all();
        }
    }

    /// A fault seen by a driver call (its sticky error): every device not lost yet is lost.
    fn lose_all(&mut self) {
        self.faulted = true;
        for d in &mut self.devices {
            if !d.lost {
                d.lost = true;
                d.generation += 1;
            }
        }
    }
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry::new());

fn registry() -> MutexGuard<'static, Registry> {
    // Nothing panics while holding the lock; a poisoned lock still holds consistent counts.
    REGISTRY
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// One `Inner`'s use of a device's primary context.
#[derive(Debug)]
pub(super) struct Use {
    token: Token,
}

/// Which context a resource was made in: the device and its generation then.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Token {
    ordinal: u32,
    generation: u64,
}

impl Token {
    /// Whether the context is still the one this token was taken in and not lost: only then
    /// may a resource made in it be freed through it.
    pub(crate) fn current(self) -> bool {
        registry().current(self)
    }
}

impl Use {
    /// Registers a new user of device `ordinal`, before its context is retained.
    ///
    /// # Errors
    ///
    /// [`Error::ContextLost`] when a fault lost the device's context and another runtime (or
    /// another GPU of one) still uses it, or when the driver does not give the context back
    /// after resetting it.
    pub(super) fn enter(ordinal: u32) -> Result<Self> {
        let token = registry().enter(ordinal, reset_and_retry)?;
        Ok(Self { token })
    }

    /// What resources made by this user check before they free themselves.
    pub(super) fn token(&self) -> Token {
        self.token
    }

    /// Whether the context is as this user found it (no fault lost it since).
    pub(super) fn current(&self) -> bool {
        self.token.current()
    }

    /// Marks the contexts lost: a fault this user saw.
    pub(super) fn lose(&self) {
        registry().lose(self.token);
    }
}

/// Marks every device lost: a driver call answered a sticky error (`super::is_sticky`), so a
/// kernel faulted in this process whichever call saw it first.
pub(super) fn fault_seen() {
    registry().lose_all();
}

impl Drop for Use {
    fn drop(&mut self) {
        registry().leave(self.token.ordinal);
    }
}

/// Resets device `ordinal`'s primary context and asks for it again: whether the driver gives
/// back a context that works. Called with the registry locked and no `Inner` on the device.
fn reset_and_retry(ordinal: u32) -> bool {
    let mut dev: sys::CUdevice = 0;
    let mut ctx: sys::CUcontext = std::ptr::null_mut();
    // SAFETY: plain driver calls on an ordinal that was opened before. No `Inner` uses the
    // context (resources made in it never touch it again, see the module doc); the retain
    // taken here to test the reset is released before returning, so the retain count is as
    // the reset left it and `CudaContext::new` takes its own.
    unsafe {
        if sys::cuDeviceGet(&raw mut dev, ordinal as i32) != sys::CUresult::CUDA_SUCCESS
            || sys::cuDevicePrimaryCtxReset_v2(dev) != sys::CUresult::CUDA_SUCCESS
            || sys::cuDevicePrimaryCtxRetain(&raw mut ctx, dev) != sys::CUresult::CUDA_SUCCESS
        {
            return false;
        }
        let _ = sys::cuDevicePrimaryCtxRelease_v2(dev);
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_loss_reaches_every_user_and_device_and_refuses_new_users() {
        let mut r = Registry::new();
        let first = r.enter(0, |_| unreachable!()).unwrap();
        let second = r.enter(0, |_| unreachable!()).unwrap();
        let elsewhere = r.enter(1, |_| unreachable!()).unwrap();
        assert!(r.current(first) && r.current(second) && r.current(elsewhere));
        r.lose(first);
        assert!(!r.current(first), "the user that saw the fault");
        assert!(!r.current(second), "another user of the same device");
        assert!(!r.current(elsewhere), "a user of another device");
        assert!(r.device(7).lost, "a device not yet opened");
        // A second report of the same loss changes nothing.
        r.lose(second);
        r.lose(elsewhere);
        assert_eq!(r.device(0).generation, 1);
        assert_eq!(r.device(1).generation, 1);
        assert!(matches!(
            r.enter(0, |_| unreachable!()),
            Err(Error::ContextLost)
        ));
        r.leave(0);
        assert!(
            matches!(r.enter(0, |_| unreachable!()), Err(Error::ContextLost)),
            "one user left"
        );
        r.leave(0);
        assert_eq!(r.device(0).live, 0);
        assert!(r.device(0).lost, "reset only by the next user");
    }

    #[test]
    fn a_sticky_error_loses_every_device_once() {
        let mut r = Registry::new();
        let a = r.enter(0, |_| unreachable!()).unwrap();
        let b = r.enter(1, |_| unreachable!()).unwrap();
        r.lose_all();
        assert!(!r.current(a) && !r.current(b));
        r.lose_all();
        r.lose(a);
        assert_eq!(
            r.device(0).generation,
            1,
            "one loss, however many calls saw it"
        );
        assert!(r.device(3).lost, "a device not yet opened");
    }

    #[test]
    fn the_next_user_resets_and_stays_refused_when_the_driver_keeps_the_fault() {
        let mut r = Registry::new();
        let before = r.enter(0, |_| unreachable!()).unwrap();
        r.lose(before);
        r.leave(0);
        let mut resets = 0;
        let mut keeps = |_| {
            resets += 1;
            false
        };
        assert!(matches!(r.enter(0, &mut keeps), Err(Error::ContextLost)));
        assert!(matches!(r.enter(0, &mut keeps), Err(Error::ContextLost)));
        assert_eq!(resets, 2, "each new user tries the reset again");
        assert_eq!(r.device(0).live, 0, "a refused user is not counted");
        let after = r.enter(0, |ordinal| ordinal == 0).unwrap();
        assert!(r.current(after), "a driver that gives the context back");
        assert!(
            !r.current(before),
            "a resource of the lost context stays stale"
        );
    }
}
