//! The process's record of each CUDA device's primary context: how many GPU engines
//! ([`Inner`](super::Inner)s) use it, and whether a fault lost it.
//!
//! Every `Inner` of a device shares the device's primary context. A fault the runtime cannot
//! stop (an illegal address in a task's `unsafe` code, a kernel that never exits) leaves that
//! context unusable for everyone in the process, so:
//!
//! - the `Inner` that saw the fault marks the device lost ([`Use::lose`]); every other `Inner`
//!   on it sees the mark before its next run or transfer ([`Use::current`]) and answers
//!   [`Error::ContextLost`] instead of failing in the driver's words;
//! - a new `Inner` on a lost device is refused ([`Use::enter`]) while any other still uses it;
//!   once none does, the next one resets the context (`cuDevicePrimaryCtxReset`: every
//!   allocation in it is destroyed), clears the mark and gets a fresh context;
//! - nothing made in a lost context is freed or destroyed through it afterwards: pools,
//!   buffers, streams and pinned memory check their [`Token`] and leak instead (the reset
//!   reclaims them; a free after it would hand the driver a stale handle).
//!
//! Invariant: `live` counts the `Use`s of the device that exist; `generation` only grows, by
//! one per loss, so a [`Token`] of an earlier generation never becomes current again.

use std::sync::{Mutex, MutexGuard};

use cudarc::driver::sys;

use crate::error::{Error, Result};

#[derive(Clone, Copy, Debug, Default)]
struct Device {
    live: u32,
    lost: bool,
    generation: u64,
}

static DEVICES: Mutex<Vec<Device>> = Mutex::new(Vec::new());

fn devices() -> MutexGuard<'static, Vec<Device>> {
    // Nothing panics while holding the lock; a poisoned lock still holds consistent counts.
    DEVICES
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn device(all: &mut Vec<Device>, ordinal: u32) -> &mut Device {
    let i = ordinal as usize;
    if all.len() <= i {
        all.resize(i + 1, Device::default());
    }
    &mut all[i]
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
        let mut all = devices();
        let d = device(&mut all, self.ordinal);
        d.generation == self.generation && !d.lost
    }
}

impl Use {
    /// Registers a new user of device `ordinal`, before its context is retained.
    ///
    /// # Errors
    ///
    /// [`Error::ContextLost`] when a fault lost the device's context and another runtime (or
    /// another GPU of one) still uses it.
    pub(super) fn enter(ordinal: u32) -> Result<Self> {
        let mut all = devices();
        let d = device(&mut all, ordinal);
        if d.lost {
            if d.live > 0 {
                return Err(Error::ContextLost);
            }
            let mut dev: sys::CUdevice = 0;
            // SAFETY: plain driver calls on an ordinal that was opened before; no `Inner` uses
            // the context (resources made in it never touch it again, see the module doc).
            unsafe {
                if sys::cuDeviceGet(&raw mut dev, ordinal as i32) == sys::CUresult::CUDA_SUCCESS {
                    let _ = sys::cuDevicePrimaryCtxReset_v2(dev);
                }
            }
            d.lost = false;
        }
        d.live += 1;
        Ok(Self {
            token: Token {
                ordinal,
                generation: d.generation,
            },
        })
    }

    /// What resources made by this user check before they free themselves.
    pub(super) fn token(&self) -> Token {
        self.token
    }

    /// Whether the context is as this user found it (no fault lost it since).
    pub(super) fn current(&self) -> bool {
        self.token.current()
    }

    /// Marks the device's context lost: a fault this user saw.
    pub(super) fn lose(&self) {
        let mut all = devices();
        let d = device(&mut all, self.token.ordinal);
        if d.generation == self.token.generation {
            d.lost = true;
            d.generation += 1;
        }
    }
}

impl Drop for Use {
    fn drop(&mut self) {
        let mut all = devices();
        device(&mut all, self.token.ordinal).live -= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Ordinals no machine has, so that the registry is exercised without a driver (the reset
    // path, which calls the driver, is the GPU check's: `soak`'s last part).
    const A: u32 = 900;
    const B: u32 = 901;

    #[test]
    fn a_loss_reaches_every_user_and_refuses_new_ones() {
        let first = Use::enter(A).unwrap();
        let second = Use::enter(A).unwrap();
        let made_before = first.token();
        let elsewhere = Use::enter(B).unwrap();
        assert!(first.current() && second.current() && made_before.current());
        first.lose();
        assert!(!first.current(), "the user that saw the fault");
        assert!(!second.current(), "another user of the same device");
        assert!(!made_before.current(), "a resource made before the loss");
        assert!(elsewhere.current(), "another device is untouched");
        assert!(matches!(Use::enter(A), Err(Error::ContextLost)));
        // A second report of the same loss changes nothing.
        second.lose();
        assert_eq!(devices()[A as usize].generation, 1);
        drop(first);
        assert!(
            matches!(Use::enter(A), Err(Error::ContextLost)),
            "one user left"
        );
        drop(second);
        assert_eq!(devices()[A as usize].live, 0);
        assert!(devices()[A as usize].lost, "reset only by the next runtime");
    }
}
