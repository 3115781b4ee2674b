//! Pictures of a [`Profile`] (feature `plot`): a timeline with a row per worker (sampled, always
//! keeping the workers that finished last), the utilization over time, and a histogram of
//! per-batch working time, each as PNG and SVG.
//!
//! Text needs a TrueType font: `GTAP_FONT` names one, otherwise common system paths are tried
//! (DejaVu Sans, Liberation Sans); without one the pictures fail with an error naming
//! `GTAP_FONT`, and the CSV and JSON are still written.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use plotters::coord::Shift;
use plotters::prelude::*;

use super::Profile;

/// Rows drawn in the timeline at most (workers are sampled beyond that).
const TIMELINE_ROWS: usize = 128;
/// Of the sampled rows, this many are the workers whose last task body ended latest (the
/// ones a run's tail waits for), the rest evenly spaced.
const TIMELINE_LATEST_ROWS: usize = 16;
/// Bins of the utilization curve and of the histogram.
const UTILIZATION_BINS: usize = 400;
const HISTOGRAM_BINS: usize = 50;

fn other(e: impl std::fmt::Display) -> io::Error {
    io::Error::other(e.to_string())
}

/// Registers a system font for plotters' `sans-serif` once (for any chart drawn in this
/// process, the profile's or a caller's); the error says how to provide one.
///
/// # Errors
///
/// When no TrueType font is found: set `GTAP_FONT`.
pub fn ensure_font() -> io::Result<()> {
    static FONT: OnceLock<Result<(), String>> = OnceLock::new();
    FONT.get_or_init(|| {
        let mut candidates: Vec<PathBuf> = std::env::var_os("GTAP_FONT")
            .map(PathBuf::from)
            .into_iter()
            .collect();
        candidates.extend(
            [
                "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
                "/usr/share/fonts/dejavu/DejaVuSans.ttf",
                "/usr/share/fonts/TTF/DejaVuSans.ttf",
                "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
                "/System/Library/Fonts/Supplemental/Arial.ttf",
            ]
            .map(PathBuf::from),
        );
        for path in &candidates {
            if let Ok(bytes) = std::fs::read(path) {
                let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
                if plotters::style::register_font("sans-serif", FontStyle::Normal, bytes).is_ok() {
                    return Ok(());
                }
            }
        }
        Err("no TrueType font found for the profile pictures: set GTAP_FONT to a .ttf file".into())
    })
    .clone()
    .map_err(other)
}

/// Draws the three pictures into `dir` as PNG and SVG; returns the paths.
pub(super) fn write_all(p: &Profile, dir: &Path) -> io::Result<Vec<PathBuf>> {
    ensure_font()?;
    let mut out = Vec::new();
    for (name, size) in [
        ("timeline", (1600, 900)),
        ("utilization", (1200, 500)),
        ("batch-time-histogram", (1000, 500)),
    ] {
        let png = dir.join(format!("{name}.png"));
        let svg = dir.join(format!("{name}.svg"));
        draw(name, p, BitMapBackend::new(&png, size).into_drawing_area())?;
        draw(name, p, SVGBackend::new(&svg, size).into_drawing_area())?;
        out.push(png);
        out.push(svg);
    }
    Ok(out)
}

fn draw<DB: DrawingBackend>(
    name: &str,
    p: &Profile,
    area: DrawingArea<DB, Shift>,
) -> io::Result<()> {
    area.fill(&WHITE).map_err(other)?;
    match name {
        "timeline" => timeline(p, &area)?,
        "utilization" => utilization(p, &area)?,
        _ => histogram(p, &area)?,
    }
    area.present().map_err(other)
}

/// Merges intervals closer than `gap` so a picture stays a few thousand shapes per row.
fn merged(intervals: impl Iterator<Item = (u64, u64)>, gap: u64) -> Vec<(u64, u64)> {
    let mut out: Vec<(u64, u64)> = Vec::new();
    for (s, e) in intervals.filter(|(s, e)| e > s) {
        match out.last_mut() {
            Some(last) if s <= last.1 + gap => last.1 = last.1.max(e),
            _ => out.push((s, e)),
        }
    }
    out
}

/// The workers drawn in the timeline, in index order: all when they fit in `max`, otherwise
/// the `latest` whose last task body ended latest (so the run's tail is never sampled away)
/// and evenly spaced others.
fn timeline_rows(p: &Profile, max: usize, latest: usize) -> Vec<usize> {
    let n = p.warps.len();
    if n <= max {
        return (0..n).collect();
    }
    let last_body = |w: usize| {
        p.warps[w]
            .batches
            .iter()
            .filter(|b| b.tasks > 0)
            .map(|b| b.run_to)
            .max()
            .unwrap_or(0)
    };
    let mut by_end: Vec<usize> = (0..n).collect();
    by_end.sort_by_key(|&w| std::cmp::Reverse(last_body(w)));
    let mut rows: Vec<usize> = by_end.into_iter().take(latest.min(max)).collect();
    let even = max - rows.len();
    rows.extend((0..even).map(|i| i * n / even));
    rows.sort_unstable();
    rows.dedup();
    rows
}

fn timeline<DB: DrawingBackend>(p: &Profile, area: &DrawingArea<DB, Shift>) -> io::Result<()> {
    let (t0, t1) = p.span();
    let ms = |t: u64| (t - t0) as f64 / 1e6;
    let end_ms = ms(t1).max(1e-3);
    let n = p.warps.len();
    let rows = timeline_rows(p, TIMELINE_ROWS, TIMELINE_LATEST_ROWS);
    let caption = format!(
        "Timeline: {} of {} {}s (dark: task bodies, light: finishing, white: idle){}",
        rows.len(),
        n,
        p.worker_name(),
        if p.dropped() > 0 {
            format!(" -- {} RECORDS DROPPED", p.dropped())
        } else {
            String::new()
        }
    );
    let y_desc = format!("{} (sampled)", p.worker_name());
    let mut chart = ChartBuilder::on(area)
        .caption(caption, ("sans-serif", 22))
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0f64..end_ms, 0f64..rows.len() as f64)
        .map_err(other)?;
    chart
        .configure_mesh()
        .x_desc("time (ms)")
        .y_desc(y_desc)
        .y_label_formatter(&|y| {
            rows.get(*y as usize)
                .map_or(String::new(), ToString::to_string)
        })
        .disable_y_mesh()
        .draw()
        .map_err(other)?;
    let gap = (t1 - t0) / 3000;
    let light = RGBColor(160, 190, 230);
    let dark = RGBColor(20, 70, 160);
    for (row, &w) in rows.iter().enumerate() {
        let b = &p.warps[w].batches;
        let y0 = row as f64 + 0.1;
        let y1 = row as f64 + 0.9;
        let held = merged(
            b.iter()
                .filter(|r| r.tasks > 0)
                .map(|r| (r.run_from, r.end)),
            gap,
        );
        let exec = merged(
            b.iter()
                .filter(|r| r.tasks > 0)
                .map(|r| (r.run_from, r.run_to)),
            gap,
        );
        chart
            .draw_series(
                held.iter()
                    .map(|&(s, e)| Rectangle::new([(ms(s), y0), (ms(e), y1)], light.filled())),
            )
            .map_err(other)?;
        chart
            .draw_series(
                exec.iter()
                    .map(|&(s, e)| Rectangle::new([(ms(s), y0), (ms(e), y1)], dark.filled())),
            )
            .map_err(other)?;
    }
    Ok(())
}

fn utilization<DB: DrawingBackend>(p: &Profile, area: &DrawingArea<DB, Shift>) -> io::Result<()> {
    let points = p.utilization(UTILIZATION_BINS);
    let end_ms = points
        .last()
        .map_or(1.0, |&(t, _)| t * (1.0 + 1.0 / UTILIZATION_BINS as f64));
    let s = p.summary();
    let mut chart = ChartBuilder::on(area)
        .caption(
            format!(
                "Utilization: share of {} {}s inside task bodies (mean {:.1}%, {:.1} tasks per batch)",
                s.warps,
                p.worker_name(),
                s.executing * 100.0,
                s.tasks_per_batch
            ),
            ("sans-serif", 20),
        )
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(50)
        .build_cartesian_2d(0f64..end_ms, 0f64..1f64)
        .map_err(other)?;
    chart
        .configure_mesh()
        .x_desc("time (ms)")
        .y_desc("busy fraction")
        .draw()
        .map_err(other)?;
    chart
        .draw_series(LineSeries::new(points, BLUE.stroke_width(2)))
        .map_err(other)?;
    Ok(())
}

fn histogram<DB: DrawingBackend>(p: &Profile, area: &DrawingArea<DB, Shift>) -> io::Result<()> {
    let mut us: Vec<f64> = p
        .warps
        .iter()
        .flat_map(|w| &w.batches)
        .filter(|b| b.tasks > 0)
        .map(|b| (b.run_to - b.run_from) as f64 / 1e3)
        .collect();
    us.sort_by(f64::total_cmp);
    let top = us
        .get(us.len().saturating_sub(1) * 99 / 100)
        .copied()
        .unwrap_or(1.0)
        .max(1e-3);
    let width = top / HISTOGRAM_BINS as f64;
    let mut counts = vec![0u64; HISTOGRAM_BINS];
    for &x in &us {
        counts[((x / width) as usize).min(HISTOGRAM_BINS - 1)] += 1;
    }
    let median = us.get(us.len() / 2).copied().unwrap_or(0.0);
    let mean = us.iter().sum::<f64>() / us.len().max(1) as f64;
    let max_count = counts.iter().copied().max().unwrap_or(1).max(1);
    let mut chart = ChartBuilder::on(area)
        .caption(
            format!("Per-batch working time (task bodies), {} batches: mean {mean:.2} µs, median {median:.2} µs (last bin: p99 and above)", us.len()),
            ("sans-serif", 18),
        )
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(0f64..top, 0u64..max_count + max_count / 10)
        .map_err(other)?;
    chart
        .configure_mesh()
        .x_desc("µs")
        .y_desc("batches")
        .draw()
        .map_err(other)?;
    chart
        .draw_series(counts.iter().enumerate().map(|(i, &c)| {
            Rectangle::new(
                [(i as f64 * width, 0), ((i + 1) as f64 * width, c)],
                BLUE.mix(0.7).filled(),
            )
        }))
        .map_err(other)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::{BatchRecord, WarpTrace};

    #[test]
    fn timeline_keeps_the_workers_that_finish_last() {
        // 1000 workers; worker 777 runs a body until t = 10^6, everyone else until 10.
        let warps = (0..1000u64)
            .map(|w| WarpTrace {
                batches: vec![BatchRecord {
                    run_to: if w == 777 { 1_000_000 } else { 10 },
                    end: if w == 777 { 1_000_000 } else { 10 },
                    tasks: 1,
                    ..BatchRecord::default()
                }],
                dropped: 0,
            })
            .collect();
        let p = Profile {
            warps,
            block: 32,
            block_level: true,
        };
        let rows = timeline_rows(&p, 128, 16);
        assert!(rows.len() <= 128 && rows.len() > 100, "{}", rows.len());
        assert!(rows.contains(&777), "the last worker to finish is drawn");
        assert!(
            rows.windows(2).all(|w| w[0] < w[1]),
            "sorted, no duplicates"
        );
        assert_eq!(
            timeline_rows(&p, 2000, 16).len(),
            1000,
            "all fit: all drawn"
        );
    }
}
