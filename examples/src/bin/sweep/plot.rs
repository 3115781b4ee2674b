//! `sweep plot`: each experiment of a sweep CSV drawn log-log beside GTaP's published curves,
//! with the ideal 1/P line from each of our curves' first point, as PNG and SVG.

use super::*;

/// Series name → points, for one chart.
type Series = BTreeMap<String, Vec<(f64, f64)>>;

fn read_csv(path: &Path) -> Result<Vec<Vec<String>>, String> {
    let text =
        std::fs::read_to_string(path).map_err(|e| format!("reading {}: {e}", path.display()))?;
    Ok(text
        .lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.split(',').map(str::to_owned).collect())
        .collect())
}

fn num(s: &str, what: &str) -> Result<f64, String> {
    s.trim().parse().map_err(|e| format!("{what}: `{s}`: {e}"))
}

pub(crate) fn plot(ours: &Path, anchors: &Path, img: &Path) -> Result<(), String> {
    gtap::profile::ensure_font().map_err(|e| e.to_string())?;
    std::fs::create_dir_all(img).map_err(|e| e.to_string())?;
    let rows = read_csv(ours)?;
    for (workload, file, title) in [
        ("fib", "fib_scaling_results.csv", "fib(35)"),
        ("nqueens", "nq_scaling_results.csv", "nqueens(16), cutoff 7"),
        ("cilksort", "cilksort_scaling_results.csv", "cilksort(2e7)"),
    ] {
        let mut series = Series::new();
        for r in rows
            .iter()
            .filter(|r| r[0] == "scaling" && r[1] == workload)
        {
            let variant = match r[4].as_str() {
                "single" => "one CAS per entry",
                v => v,
            };
            series
                .entry(format!("gtap-rs {variant}, block {}", r[2]))
                .or_default()
                .push((num(&r[3], "threads")?, num(&r[6], "ms")?));
        }
        // GTaP: block_size,total_threads,grid_size,max_tasks_per_warp,ws_med,..,gq_med,..,chaselev_med
        for r in read_csv(&anchors.join(file))? {
            if r[0] != "32" && r[0] != "256" {
                continue;
            }
            let threads = num(&r[1], "total_threads")?;
            for (col, name) in [(4, "ws"), (7, "gq"), (10, "chaselev")] {
                let ms = num(&r[col], name)?;
                if ms > 0.0 {
                    series
                        .entry(format!("GTaP {name}, block {}", r[0]))
                        .or_default()
                        .push((threads, ms));
                }
            }
        }
        write_png_svg(
            &LogLog {
                series: &series,
                title: &format!("{title}: kernel ms vs threads (GTaP: GH200, published)"),
                x_desc: "threads (grid x block)",
            },
            &img.join(format!("scaling-{workload}")),
            (1100, 700),
        )?;
    }
    for (workload, file, title) in [
        (
            "compute",
            "tree_compute_heavy_scaling_results.csv",
            "compute-heavy (c 1024, m 64)",
        ),
        (
            "memory",
            "tree_memory_heavy_scaling_results.csv",
            "memory-heavy (c 64, m 1024)",
        ),
    ] {
        let mut series = Series::new();
        for r in rows
            .iter()
            .filter(|r| r[0] == "tree-scaling" && r[1] == workload)
        {
            series
                .entry(format!("gtap-rs {}, block {}", r[4], r[2]))
                .or_default()
                .push((num(&r[5], "workers")?, num(&r[6], "ms")?));
        }
        if series.is_empty() {
            continue;
        }
        // GTaP: block_size,total_workers,grid_size,max_tasks_per_block,ws_med,..,gq_med,..
        for r in read_csv(&anchors.join(file))? {
            if r[0] != "32" && r[0] != "256" {
                continue;
            }
            let workers = num(&r[1], "total_workers")?;
            for (col, name) in [(4, "ws"), (7, "gq")] {
                let ms = num(&r[col], name)?;
                if ms > 0.0 {
                    series
                        .entry(format!("GTaP {name}, block {}", r[0]))
                        .or_default()
                        .push((workers, ms));
                }
            }
        }
        write_png_svg(
            &LogLog {
                series: &series,
                title: &format!(
                    "block-level tree, depth 20, {title}: kernel ms vs workers (GTaP: GH200, published)"
                ),
                x_desc: "block-level workers (blocks of the grid)",
            },
            &img.join(format!("tree-scaling-{workload}")),
            (1100, 700),
        )?;
    }
    for (workload, file, title, many, log2) in [
        (
            "fib",
            "epaq_performance_results_fib.csv",
            "fib(40), 1 vs 3 queues",
            "3queue",
            false,
        ),
        (
            "nqueens",
            "epaq_performance_results_nq.csv",
            "nqueens(16), 1 vs 2 queues",
            "2queue",
            false,
        ),
        (
            "cilksort",
            "epaq_performance_results_cilksort.csv",
            "cilksort(5e7), 1 vs 3 queues",
            "3queue",
            true,
        ),
    ] {
        // Cutoffs that double (cilksort) are drawn on a log2 axis.
        let x = |v: f64| if log2 { v.log2() } else { v };
        let mut series = Series::new();
        for r in rows.iter().filter(|r| r[0] == "epaq" && r[1] == workload) {
            series
                .entry(format!("gtap-rs {}", r[4]))
                .or_default()
                .push((x(num(&r[5], "cutoff")?), num(&r[6], "ms")?));
        }
        if series.is_empty() {
            continue;
        }
        for r in read_csv(&anchors.join(file))? {
            let cutoff = x(num(&r[0], "cutoff")?);
            series
                .entry("GTaP 1queue".into())
                .or_default()
                .push((cutoff, num(&r[1], "1queue")?));
            series
                .entry(format!("GTaP {many}"))
                .or_default()
                .push((cutoff, num(&r[4], many)?));
        }
        let title = format!("EPAQ on {title}: kernel ms vs cutoff (GTaP: GH200, published)");
        let axis = if log2 { "log2(cutoff)" } else { "cutoff" };
        let picture = Epaq {
            series: &series,
            title: &title,
            axis,
        };
        write_png_svg(&picture, &img.join(format!("epaq-{workload}")), (1000, 600))?;
    }
    Ok(())
}

fn colour(i: usize) -> RGBColor {
    const C: [RGBColor; 12] = [
        RGBColor(31, 119, 180),
        RGBColor(255, 127, 14),
        RGBColor(44, 160, 44),
        RGBColor(214, 39, 40),
        RGBColor(148, 103, 189),
        RGBColor(140, 86, 75),
        RGBColor(227, 119, 194),
        RGBColor(127, 127, 127),
        RGBColor(188, 189, 34),
        RGBColor(23, 190, 207),
        RGBColor(0, 0, 128),
        RGBColor(128, 128, 0),
    ];
    C[i % C.len()]
}

/// One picture, drawable on any plotters backend.
trait Picture {
    fn draw<DB: DrawingBackend>(
        &self,
        area: DrawingArea<DB, plotters::coord::Shift>,
    ) -> Result<(), Box<dyn std::error::Error + 'static>>
    where
        DB::ErrorType: 'static;
}

/// Writes `picture` as `stem.png` and `stem.svg`.
fn write_png_svg(picture: &impl Picture, stem: &Path, size: (u32, u32)) -> Result<(), String> {
    for ext in ["png", "svg"] {
        let path = stem.with_extension(ext);
        let r = if ext == "png" {
            picture.draw(BitMapBackend::new(&path, size).into_drawing_area())
        } else {
            picture.draw(SVGBackend::new(&path, size).into_drawing_area())
        };
        r.map_err(|e| format!("{}: {e}", path.display()))?;
        println!("wrote {}", path.display());
    }
    Ok(())
}

/// Kernel ms over the worker count, log-log, with the ideal 1/P line under each of our
/// curves.
struct LogLog<'a> {
    series: &'a Series,
    title: &'a str,
    /// The x axis' label.
    x_desc: &'a str,
}

/// Kernel ms over the cutoff, 1 vs several EPAQ queues.
struct Epaq<'a> {
    series: &'a Series,
    title: &'a str,
    axis: &'a str,
}

impl Picture for LogLog<'_> {
    fn draw<DB: DrawingBackend>(
        &self,
        area: DrawingArea<DB, plotters::coord::Shift>,
    ) -> Result<(), Box<dyn std::error::Error + 'static>>
    where
        DB::ErrorType: 'static,
    {
        let (series, title) = (self.series, self.title);
        area.fill(&WHITE)?;
        let pts = series.values().flatten();
        let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, 0f64, f64::MAX, 0f64);
        for &(x, y) in pts {
            (x0, x1, y0, y1) = (x0.min(x), x1.max(x), y0.min(y), y1.max(y));
        }
        let mut chart = ChartBuilder::on(&area)
            .caption(title, ("sans-serif", 20))
            .margin(10)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d(
                (x0 * 0.8..x1 * 1.25).log_scale(),
                (y0 * 0.5..y1 * 2.0).log_scale(),
            )?;
        chart
            .configure_mesh()
            .x_desc(self.x_desc)
            .y_desc("kernel ms")
            .draw()?;
        for (i, (name, points)) in series.iter().enumerate() {
            let c = colour(i);
            let style = if name.starts_with("GTaP") {
                c.stroke_width(1)
            } else {
                c.stroke_width(3)
            };
            chart
                .draw_series(LineSeries::new(points.iter().copied(), style))?
                .label(name.clone())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2))
                });
            if name.starts_with("gtap-rs") {
                if let Some(&(px, py)) = points.first() {
                    let ideal: Vec<(f64, f64)> =
                        points.iter().map(|&(x, _)| (x, py * px / x)).collect();
                    chart.draw_series(DashedLineSeries::new(
                        ideal,
                        4,
                        4,
                        c.mix(0.6).stroke_width(1),
                    ))?;
                }
            }
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()?;
        area.present()?;
        Ok(())
    }
}

impl Picture for Epaq<'_> {
    fn draw<DB: DrawingBackend>(
        &self,
        area: DrawingArea<DB, plotters::coord::Shift>,
    ) -> Result<(), Box<dyn std::error::Error + 'static>>
    where
        DB::ErrorType: 'static,
    {
        let (series, title, axis) = (self.series, self.title, self.axis);
        area.fill(&WHITE)?;
        let pts = || series.values().flatten();
        let top = pts().map(|p| p.1).fold(0f64, f64::max);
        let bottom = pts().map(|p| p.1).fold(f64::MAX, f64::min);
        let (x0, x1) = pts().fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.0), b.max(p.0)));
        let mut chart = ChartBuilder::on(&area)
            .caption(title, ("sans-serif", 20))
            .margin(10)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d(x0 - 0.5..x1 + 0.5, (bottom * 0.7..top * 1.5).log_scale())?;
        chart
            .configure_mesh()
            .x_desc(axis)
            .y_desc("kernel ms")
            .draw()?;
        for (i, (name, points)) in series.iter().enumerate() {
            let c = colour(i);
            chart
                .draw_series(LineSeries::new(
                    points.iter().copied(),
                    c.stroke_width(if name.starts_with("GTaP") { 1 } else { 3 }),
                ))?
                .label(name.clone())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2))
                });
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()?;
        area.present()?;
        Ok(())
    }
}
