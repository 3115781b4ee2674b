//! The kernels of a program: which variant a run needs (`Variant`), the module loaded with
//! the JIT's log and an optional register cap, and the launch shape from the occupancy query
//! (every block resident: a persistent grid that is not co-resident can deadlock).

use super::*;

impl Inner {
    /// The kernel of program `P`, sized on first use.
    pub(super) fn kernel<P: Program>(&mut self, multi: bool) -> Result<Kernel> {
        let program = core::any::type_name::<P>();
        let variant = match Variant::of(&self.config, multi) {
            // Block-level workers run no clones (`Config::gpu_clones`).
            Variant::Clones if P::HAS_BLOCK => Variant::Plain,
            v => v,
        };
        let profiled = variant.profiled();
        if let Some(k) = self.kernels.get(&(program, variant)) {
            return Ok(*k);
        }
        let short = program.rsplit("::").next().unwrap_or(program);
        let name = format!("{}{short}", variant.prefix(P::HAS_BLOCK));
        let cname =
            CString::new(name.clone()).map_err(|_| Error::Driver("bad kernel name".into()))?;
        let mut func: sys::CUfunction = null_mut();
        // SAFETY: valid module and out-pointer.
        let r = unsafe { sys::cuModuleGetFunction(&raw mut func, self.module, cname.as_ptr()) };
        if r != OK && r != CuResult::CUDA_ERROR_NOT_FOUND {
            return Err(driver("cuModuleGetFunction", r));
        }
        if r != OK {
            let fix = if variant == Variant::Clones {
                format!("Config::gpu_clones needs `gtap::kernel!({short}, clones);` in the device crate (or set gpu_clones to false)")
            } else {
                format!("add `gtap::kernel!({short});` to the device crate")
            };
            return Err(Error::NoGpu {
                reason: format!("the PTX module has no kernel `{name}`: {fix}"),
            });
        }
        if self.config.max_registers.is_none() {
            func = self.capped_if_heavy(func, &name, &cname)?;
        }
        let (block, smem, workers_per_block) = if P::HAS_BLOCK {
            let profile = if profiled {
                layout::PROFILE_SMEM_BYTES
            } else {
                0
            };
            (
                self.config.block_threads,
                layout::BLOCK_SMEM_BYTES + profile,
                1,
            )
        } else {
            let block = self.config.block;
            let smem = (block / 32) * layout::smem_per_warp_of(self.config.queues, profiled);
            (block, smem, block / 32)
        };
        let mut per_sm = 0;
        // SAFETY: valid function handle and out-pointer.
        check("cuOccupancyMaxActiveBlocksPerMultiprocessor", unsafe {
            sys::cuOccupancyMaxActiveBlocksPerMultiprocessor(
                &raw mut per_sm,
                func,
                block as i32,
                smem as usize,
            )
        })?;
        // Partitions of one device share its SMs: each gets its part of the resident grid.
        let sms = self
            .config
            .sms
            .map_or(self.sm_count, |s| s.min(self.sm_count));
        let max_grid = per_sm.max(0) as u32 * sms / self.share;
        if max_grid == 0 {
            return Err(Error::InvalidConfig {
                field: "block",
                value: block.to_string(),
                expected:
                    "a block size the kernel can launch with (its registers per thread limit it)",
            });
        }
        let grid = match self.config.grid {
            None => max_grid,
            Some(g) if g <= max_grid => g,
            Some(g) => {
                return Err(Error::InvalidConfig {
                    field: "grid",
                    value: format!("Some({g}) (only {max_grid} blocks of {block} threads fit on the device at once)"),
                    expected: "a grid whose blocks are all co-resident; None sizes it from the occupancy query",
                })
            }
        };
        let mut local = 0i32;
        // SAFETY: a valid function handle and out-pointer.
        check("cuFuncGetAttribute", unsafe {
            sys::cuFuncGetAttribute(
                &raw mut local,
                sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES,
                func,
            )
        })?;
        let k = Kernel {
            func,
            grid,
            smem,
            block,
            workers_per_block,
            per_sm: per_sm.max(1) as u32,
            local_bytes: local.max(0) as u32,
            clones: variant == Variant::Clones,
        };
        self.kernels.insert((program, variant), k);
        Ok(k)
    }

    /// `func` (the kernel `name` of the module), or, when it needs more than
    /// [`regcap::AUTO_REGISTER_CAP`] registers per thread, the same kernel compiled again
    /// with that cap, from a module of that one kernel (`regcap.rs`).
    pub(super) fn capped_if_heavy(
        &mut self,
        func: sys::CUfunction,
        name: &str,
        cname: &CString,
    ) -> Result<sys::CUfunction> {
        let mut regs = 0i32;
        // SAFETY: a valid function handle and out-pointer.
        check("cuFuncGetAttribute", unsafe {
            sys::cuFuncGetAttribute(
                &raw mut regs,
                sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_NUM_REGS,
                func,
            )
        })?;
        if regs.max(0) as u32 <= regcap::AUTO_REGISTER_CAP {
            return Ok(func);
        }
        let Some(ptx) = regcap::only_entry(self.ptx, name)
            .and_then(|one| regcap::with_maxnreg(&one, name, regcap::AUTO_REGISTER_CAP))
        else {
            return Ok(func);
        };
        let module = load_module(&ptx, None)?;
        self.capped.push(module);
        let mut capped: sys::CUfunction = null_mut();
        // SAFETY: valid module and out-pointer.
        check("cuModuleGetFunction", unsafe {
            sys::cuModuleGetFunction(&raw mut capped, module, cname.as_ptr())
        })?;
        Ok(capped)
    }
}

/// Loads `ptx` with the JIT's error log, so that a rejected module says why, and with the
/// register cap `max_registers` when one is given.
pub(super) fn load_module(ptx: &str, max_registers: Option<u32>) -> Result<sys::CUmodule> {
    let src = CString::new(ptx).map_err(|_| Error::NoGpu {
        reason: "the PTX text contains a NUL byte".into(),
    })?;
    let mut log = vec![0u8; 16 * 1024];
    let mut opts = vec![
        sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER,
        sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
    ];
    // The driver reads each option's value from the pointer-sized slot itself.
    let mut vals = vec![log.as_mut_ptr().cast::<c_void>(), log.len() as *mut c_void];
    if let Some(regs) = max_registers {
        opts.push(sys::CUjit_option::CU_JIT_MAX_REGISTERS);
        vals.push(regs as usize as *mut c_void);
    }
    let mut module: sys::CUmodule = null_mut();
    // SAFETY: NUL-terminated PTX; option arrays of equal length; the log buffer outlives the call.
    let r = unsafe {
        sys::cuModuleLoadDataEx(
            &raw mut module,
            src.as_ptr().cast(),
            opts.len() as u32,
            opts.as_mut_ptr(),
            vals.as_mut_ptr(),
        )
    };
    if r == OK {
        return Ok(module);
    }
    if is_sticky(r) {
        return Err(driver("loading the PTX module", r));
    }
    let end = log.iter().position(|&b| b == 0).unwrap_or(log.len());
    Err(Error::Driver(format!(
        "loading the PTX module failed ({r:?}): {}",
        String::from_utf8_lossy(&log[..end]).trim()
    )))
}
