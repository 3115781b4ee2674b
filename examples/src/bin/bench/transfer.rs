//! The transfer paths of `gtap::Transfer` on 400 MB (`only=transfer`).

use super::*;

impl Bench {
    /// The transfer paths side by side (GPU only): 10^8 u32 (400 MB, cilksort's keys) into a
    /// device buffer that exists and back into a slice that exists, for each path and lane
    /// count of `Config::transfer`; the measurement behind the default (`gtap::Transfer`).
    pub(crate) fn transfer(&mut self) -> Result<(), String> {
        if !self.gpu {
            println!("\ntransfer paths: GPU only (the CPU executor's buffers are host memory)");
            return Ok(());
        }
        let n = 100_000_000usize;
        let keys = reference::random_keys(n, 5);
        let mut back = vec![0u32; n];
        let d = Transfer::default();
        let mut paths: Vec<(String, Transfer)> = [1, 2, 4, 8, 16]
            .into_iter()
            .map(|threads| {
                let t = Transfer { threads, ..d };
                (format!("staged, {threads} lane(s), 4 MiB chunks"), t)
            })
            .collect();
        for (mib, name) in [(1, "1 MiB"), (16, "16 MiB")] {
            let t = Transfer {
                threads: 8,
                chunk_bytes: mib << 20,
                ..d
            };
            paths.push((format!("staged, 8 lanes, {name} chunks"), t));
        }
        for (path, name) in [
            (TransferPath::Registered, "registered (pinned per call)"),
            (TransferPath::Direct, "direct (pageable, the driver stages)"),
        ] {
            paths.push((name.to_string(), Transfer { path, ..d }));
        }
        println!(
            "\ntransfer paths: {n} u32 ({} MB) up and down, medians of {} reps (default: {d:?})",
            n * 4 / 1_000_000,
            self.reps
        );
        println!(
            "  {:<40} {:>11} {:>7} {:>11} {:>7}",
            "path", "upload ms", "GB/s", "download ms", "GB/s"
        );
        for (name, transfer) in paths {
            let config = Config {
                backend: Backend::Gpu,
                transfer,
                ..Config::default()
            };
            let t = Runtime::with_ptx(config, host::PTX)
                .and_then(|rt| Ok((rt.alloc_zeroed::<u32>(n)?, rt)))
                .map_err(err)
                .and_then(|(mut buf, rt)| {
                    measure_split(&name, self.reps, |ph| {
                        ph.upload(|| rt.upload_into(&mut buf, &keys)).map_err(err)?;
                        ph.download(|| rt.download_into(&buf, &mut back))
                            .map_err(err)?;
                        if ph.check(|| back == keys) {
                            Ok(())
                        } else {
                            Err(format!("transfer {name}: the data came back different"))
                        }
                    })
                });
            // A path the machine does not support is reported and the others still run; the
            // default path must work.
            let s = match t {
                Ok(t) => t.split.ok_or("no split")?,
                Err(e) if transfer.path != TransferPath::Staged => {
                    println!("  {name:<40} failed: {e}");
                    continue;
                }
                Err(e) => return Err(e),
            };
            let gbs = |ms: f64| (n * 4) as f64 / ms / 1e6;
            println!(
                "  {name:<40} {:>11.2} {:>7.1} {:>11.2} {:>7.1}",
                s.upload,
                gbs(s.upload),
                s.download,
                gbs(s.download)
            );
        }
        Ok(())
    }
}
