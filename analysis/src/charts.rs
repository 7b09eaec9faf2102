//! Line charts as PNG and SVG through plotters, with the DejaVu Sans font embedded in the
//! binary (registered once), so text renders on a machine with no fonts installed.

use crate::error::{AnalysisError, Result};
use plotters::coord::Shift;
use plotters::coord::ranged1d::ValueFormatter;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::FontStyle;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The font family every chart uses.
const FAMILY: &str = "sans-serif";

/// Registers the embedded DejaVu Sans (regular and bold) once; `Err` if the font is unreadable.
pub fn register_fonts() -> std::result::Result<(), String> {
    static DONE: OnceLock<std::result::Result<(), String>> = OnceLock::new();
    DONE.get_or_init(|| {
        plotters::style::register_font(FAMILY, FontStyle::Normal, dejavu::sans::regular())
            .and_then(|()| plotters::style::register_font(FAMILY, FontStyle::Bold, dejavu::sans::bold()))
            .map_err(|_| "the embedded DejaVu Sans font could not be loaded".to_string())
    })
    .clone()
}

/// How a series is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// A solid line.
    Line,
    /// A solid line with a dot at every point.
    LineAndDots,
    /// A dashed line (trend lines).
    Dashed,
    /// A shaded area, not in the legend (an interval): the points go along its lower edge
    /// from left to right, then back along its upper edge.
    Band,
}

/// One labelled series of (x, y) points; points with a NaN are left out.
#[derive(Clone, Debug)]
pub struct Series {
    /// The legend's text; a series with an empty label is left out of the legend (bands, and
    /// lines that share an entry with an earlier series of their colour).
    pub label: String,
    /// The points, in x order.
    pub points: Vec<(f64, f64)>,
    /// The colour (red, green, blue).
    pub color: (u8, u8, u8),
    /// How it is drawn.
    pub style: Style,
}

/// A line chart.
#[derive(Clone, Debug)]
pub struct Chart {
    /// The title above the chart.
    pub title: String,
    /// The x axis's description, with its unit.
    pub x_label: String,
    /// The y axis's description, with its unit.
    pub y_label: String,
    /// The series, drawn in order and listed in the legend.
    pub series: Vec<Series>,
    /// Whether the y axis starts at zero (scores) or at the data's minimum.
    pub y_from_zero: bool,
    /// Whether x values are whole numbers (epochs, generations): ticks are labelled as such.
    pub x_whole: bool,
    /// Whether the x axis is logarithmic (times that span orders of magnitude); points at x ≤ 0
    /// are left out.
    pub x_log: bool,
}

/// Colour-blind-safe colours (Okabe and Ito), in the order the charts use them.
pub const PALETTE: [(u8, u8, u8); 8] = [
    (0, 0, 0),
    (230, 159, 0),
    (0, 114, 178),
    (0, 158, 115),
    (204, 121, 167),
    (213, 94, 0),
    (86, 180, 233),
    (240, 228, 66),
];

/// Pixel size of one chart.
const SIZE: (u32, u32) = (1100, 650);

/// The points of `points` the chart can draw: finite ones, with x > 0 on a logarithmic axis.
fn drawable(points: &[(f64, f64)], x_log: bool) -> impl Iterator<Item = (f64, f64)> + Clone + '_ {
    points.iter().copied().filter(move |(x, y)| x.is_finite() && y.is_finite() && (!x_log || *x > 0.0))
}

/// The ranges to draw: all points, y with room at the top for the legend.
fn ranges(chart: &Chart) -> ((f64, f64), (f64, f64)) {
    let all: Vec<(f64, f64)> = chart.series.iter().flat_map(|s| drawable(&s.points, chart.x_log)).collect();
    let fold = |f: fn(&(f64, f64)) -> f64, init: f64, g: fn(f64, f64) -> f64| all.iter().map(f).fold(init, g);
    let (mut x0, mut x1) = (fold(|p| p.0, f64::INFINITY, f64::min), fold(|p| p.0, f64::NEG_INFINITY, f64::max));
    let (mut y0, mut y1) = (fold(|p| p.1, f64::INFINITY, f64::min), fold(|p| p.1, f64::NEG_INFINITY, f64::max));
    if all.is_empty() {
        (x0, x1, y0, y1) = (0.0, 1.0, 0.0, 1.0);
    }
    if chart.y_from_zero {
        y0 = y0.min(0.0);
    }
    if chart.x_log {
        if all.is_empty() {
            (x0, x1) = (1.0, 10.0);
        }
        // The same room left and right as a linear axis has, as a factor.
        let x_pad = (x1 / x0).max(2.0).powf(0.02);
        (x0, x1) = (x0 / x_pad, x1 * x_pad);
    } else if x1 - x0 < 1e-9 {
        (x0, x1) = (x0 - 1.0, x1 + 1.0);
    }
    if y1 - y0 < 1e-9 {
        (y0, y1) = (y0 - 1.0, y1 + 1.0);
    }
    let pad = if chart.y_from_zero { 0.0 } else { 0.05 * (y1 - y0) };
    let entries = legend_entries(chart);
    let legend_room = if entries > 1 { 0.1 * entries as f64 + 0.05 } else { 0.08 };
    // A little room left and right so the first and last points are not cut by the frame.
    let x_pad = if chart.x_log { 0.0 } else { 0.02 * (x1 - x0) };
    ((x0 - x_pad, x1 + x_pad), (y0 - pad, y1 + (y1 - y0) * legend_room))
}

/// Whether the legend lists `series`: every labelled one but the bands.
fn listed(series: &Series) -> bool {
    series.style != Style::Band && !series.label.is_empty()
}

/// How many series the legend lists.
fn legend_entries(chart: &Chart) -> usize {
    chart.series.iter().filter(|s| listed(s)).count()
}

/// A tick's label: whole numbers without decimals, others with one, or two where one would
/// print two ticks alike (0.05 apart).
fn tick(x: &f64, whole: bool) -> String {
    if whole || x.fract().abs() < 1e-9 {
        format!("{:.0}", x.round())
    } else if ((10.0 * x).round() - 10.0 * x).abs() < 1e-6 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    }
}

/// A logarithmic axis's tick label: three significant digits, trailing zeros dropped (0.001,
/// 0.25, 20).
fn tick_log(x: f64) -> String {
    if !x.is_finite() || x <= 0.0 {
        return format!("{x}");
    }
    let decimals = (2.0 - x.log10().floor()).max(0.0) as usize;
    let text = format!("{x:.decimals$}");
    if text.contains('.') { text.trim_end_matches('0').trim_end_matches('.').to_string() } else { text }
}

/// Draws `chart` on `area` (any backend).
pub fn draw<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    chart: &Chart,
    scale: f64,
) -> std::result::Result<(), String> {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let px = |s: f64| (s * scale).round() as u32;
    area.fill(&WHITE).map_err(err)?;
    let ((x0, x1), (y0, y1)) = ranges(chart);
    // Values near f64's limits give an infinite span, on which plotters' tick search never
    // ends: refused instead (finite values this large are no measurement of a run).
    if ![x0, x1, y0, y1, x1 - x0, y1 - y0].iter().all(|v| v.is_finite()) {
        return Err(format!("{}: values too large to plot (x {x0:e} to {x1:e}, y {y0:e} to {y1:e})", chart.title));
    }
    let mut builder = ChartBuilder::on(area);
    builder
        .caption(&chart.title, (FAMILY, px(26.0) as f64, FontStyle::Bold))
        .margin(px(16.0))
        .x_label_area_size(px(56.0))
        .y_label_area_size(px(80.0));
    if chart.x_log {
        let mut ctx = builder.build_cartesian_2d((x0..x1).log_scale(), y0..y1).map_err(err)?;
        plot(&mut ctx, chart, scale, 10)
    } else {
        let mut ctx = builder.build_cartesian_2d(x0..x1, y0..y1).map_err(err)?;
        // Whole-number axes get at most one tick per unit.
        let x_ticks = if chart.x_whole { ((x1 - x0).round() as usize).saturating_add(1).clamp(2, 12) } else { 10 };
        plot(&mut ctx, chart, scale, x_ticks)
    }
}

/// Draws `chart`'s mesh, series and legend on `ctx`, whose x axis is linear or logarithmic.
fn plot<'a, DB: DrawingBackend + 'a, X>(
    ctx: &mut ChartContext<'a, DB, Cartesian2d<X, RangedCoordf64>>,
    chart: &Chart,
    scale: f64,
    x_ticks: usize,
) -> std::result::Result<(), String>
where
    X: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let px = |s: f64| (s * scale).round() as u32;
    let whole = chart.x_whole;
    ctx.configure_mesh()
        .x_desc(&chart.x_label)
        .y_desc(&chart.y_label)
        .x_labels(x_ticks)
        .y_labels(10)
        .x_label_formatter(&|x| if chart.x_log { tick_log(*x) } else { tick(x, whole) })
        .y_label_formatter(&|y| tick(y, false))
        .axis_desc_style((FAMILY, px(19.0) as f64))
        .label_style((FAMILY, px(15.0) as f64))
        .light_line_style(RGBColor(235, 235, 235))
        .bold_line_style(RGBColor(210, 210, 210))
        .draw()
        .map_err(err)?;
    for s in &chart.series {
        let color = RGBColor(s.color.0, s.color.1, s.color.2);
        // Thick strokes are drawn as polygons, which spike at sharp turns: long series get 1 px.
        let width = if s.points.len() > 100 { 1 } else { px(2.0).max(1) };
        let style = color.stroke_width(width);
        let points: Vec<(f64, f64)> = drawable(&s.points, chart.x_log).collect();
        if s.style == Style::Band {
            ctx.draw_series(std::iter::once(Polygon::new(points, color.mix(0.18).filled()))).map_err(err)?;
            continue;
        }
        let legend = match s.style {
            Style::Dashed => {
                ctx.draw_series(DashedLineSeries::new(points.clone(), px(10.0), px(6.0), style)).map_err(err)?
            }
            Style::Line | Style::LineAndDots | Style::Band => {
                ctx.draw_series(LineSeries::new(points.clone(), style)).map_err(err)?
            }
        };
        // The legend's sample: a solid stroke, or two dashes for a dashed series.
        let gap = if s.style == Style::Dashed { 3 } else { 0 };
        if listed(s) {
            legend.label(s.label.clone()).legend(move |(x, y)| {
                EmptyElement::at((x, y))
                    + PathElement::new(vec![(0, 0), (12 - gap, 0)], style)
                    + PathElement::new(vec![(12 + gap, 0), (24, 0)], style)
            });
        }
        if s.style == Style::LineAndDots {
            ctx.draw_series(points.iter().map(|&p| Circle::new(p, px(3.0), color.filled()))).map_err(err)?;
        }
    }
    // One series needs no legend: the title names it.
    if legend_entries(chart) > 1 {
        ctx.configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .label_font((FAMILY, px(15.0) as f64))
            .background_style(WHITE.mix(0.9))
            .border_style(RGBColor(160, 160, 160))
            .draw()
            .map_err(err)?;
    }
    Ok(())
}

/// Draws `charts` in a grid of `columns` columns under one `title` on `root`.
fn draw_grid<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: Option<&str>,
    charts: &[Chart],
    columns: usize,
    scale: f64,
) -> std::result::Result<(), String> {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    root.fill(&WHITE).map_err(err)?;
    let body = match title {
        Some(t) => root.margin(12, 0, 0, 0).titled(t, (FAMILY, 30.0 * scale, FontStyle::Bold)).map_err(err)?,
        None => root.clone(),
    };
    let columns = columns.max(1);
    let rows = charts.len().div_ceil(columns).max(1);
    for (area, chart) in body.split_evenly((rows, columns)).iter().zip(charts) {
        draw(area, chart, scale)?;
    }
    root.present().map_err(err)
}

/// Writes `charts` (a grid of `columns` columns, one chart if there is one) as `STEM.png` and
/// `STEM.svg`, and returns the two paths.
pub fn render(stem: &Path, title: Option<&str>, charts: &[Chart], columns: usize) -> Result<Vec<PathBuf>> {
    let png = stem.with_extension("png");
    let svg = stem.with_extension("svg");
    register_fonts().map_err(|e| AnalysisError::Chart(png.clone(), e))?;
    let columns = columns.max(1).min(charts.len().max(1));
    let rows = charts.len().div_ceil(columns).max(1) as u32;
    // A grid's charts are smaller; their text is scaled down less than their size.
    let scale = if charts.len() > 1 { 0.85 } else { 1.0 };
    let w = if columns > 1 { (SIZE.0 as f64 * 0.8) as u32 * columns as u32 } else { SIZE.0 };
    let h = if rows > 1 || columns > 1 { (SIZE.1 as f64 * 0.8) as u32 * rows } else { SIZE.1 };
    let size = (w, h + if title.is_some() { 50 } else { 0 });
    {
        let root = BitMapBackend::new(&png, size).into_drawing_area();
        draw_grid(&root, title, charts, columns, scale).map_err(|e| AnalysisError::Chart(png.clone(), e))?;
    }
    {
        let root = SVGBackend::new(&svg, size).into_drawing_area();
        draw_grid(&root, title, charts, columns, scale).map_err(|e| AnalysisError::Chart(svg.clone(), e))?;
    }
    Ok(vec![png, svg])
}

/// Draws one chart of `width` × `height` pixels as an SVG document in memory (for a web page;
/// [`render`] writes files). Text is drawn as SVG text in the chart's font family.
pub fn svg_string(chart: &Chart, width: u32, height: u32) -> std::result::Result<String, String> {
    register_fonts()?;
    let mut out = String::new();
    {
        let root =
            SVGBackend::with_string(&mut out, (width.clamp(200, 4000), height.clamp(150, 4000))).into_drawing_area();
        draw(&root, chart, 1.0)?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logarithmic_ticks_keep_three_significant_digits() {
        let got: Vec<String> = [0.001, 0.0025, 0.25, 1.0, 2.5, 20.0, 200.0, 1234.0].map(tick_log).to_vec();
        assert_eq!(got, ["0.001", "0.0025", "0.25", "1", "2.5", "20", "200", "1234"]);
    }
}
