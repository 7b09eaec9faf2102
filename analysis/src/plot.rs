//! `analysis plot`: every chart of one run, as PNG and SVG.

use crate::charts::render;
use crate::error::{AnalysisError, Result};
use crate::figures::{epoch_chart, figure_charts, figure_paths, smoothed_chart, tournament_charts};
use crate::run::Run;
use crate::scores::EpochStatistic;
use std::path::{Path, PathBuf};

/// The figures to chart per generation: `figures` (paths such as `group.name`), or else every
/// number the run's generation lines carry. A path they do not have is refused, naming those
/// they have.
pub fn chosen_figures(run: &Run, figures: Option<&[String]>) -> Result<Vec<String>> {
    let reported = figure_paths(run);
    let Some(paths) = figures else { return Ok(reported) };
    match paths.iter().find(|p| !reported.contains(p)) {
        Some(missing) => {
            let has = if reported.is_empty() { "none".to_owned() } else { reported.join(", ") };
            Err(AnalysisError::Usage(format!(
                "{}: no figure `{missing}` in its generation lines (they have: {has})",
                run.name
            )))
        }
        None => Ok(paths.to_vec()),
    }
}

/// One chart file pair (PNG + SVG) and what it shows.
#[derive(Clone, Debug)]
pub struct ChartFile {
    /// The file stem's name, e.g. `mean` (files `mean.png`, `mean.svg`).
    pub name: String,
    /// A caption: what the chart shows and which thesis figure it reproduces.
    pub caption: String,
    /// The files written.
    pub files: Vec<PathBuf>,
}

/// Draws every chart of `run` into `out` (which must exist): `best`, `mean`, `median`
/// (Figures 15-17), `best-smoothed`, `mean-smoothed`, `median-smoothed` (Figures 18-19, with
/// trend lines), `tournaments` (per generation; only if there are generation lines) and
/// `figures`: the numeric figures the run's method reports per generation, one panel each (see
/// [`chosen_figures`]; only if there are any).
pub fn plot_run(run: &Run, out: &Path, figures: Option<&[String]>) -> Result<Vec<ChartFile>> {
    let chosen = chosen_figures(run, figures)?;
    let mut written = Vec::new();
    for stat in EpochStatistic::ALL {
        let figure = match stat {
            EpochStatistic::Best => "Figure 15",
            EpochStatistic::Mean => "Figure 16",
            EpochStatistic::Median => "Figure 17",
        };
        let name = stat.name().to_string();
        written.push(ChartFile {
            caption: match stat {
                EpochStatistic::Best => format!("the best network's benchmark scores of each epoch (thesis {figure})"),
                _ => format!("{} benchmark score of each epoch, by colour (thesis {figure})", stat.name()),
            },
            files: render(&out.join(&name), None, &[epoch_chart(run, stat)], 1)?,
            name,
        });
    }
    for stat in EpochStatistic::ALL {
        let figure = match stat {
            EpochStatistic::Mean => " (thesis Figure 18)",
            EpochStatistic::Median => " (thesis Figure 19)",
            EpochStatistic::Best => "",
        };
        let name = format!("{}-smoothed", stat.name());
        written.push(ChartFile {
            caption: format!("{} benchmark score after 5-point centred smoothing, with the trend{figure}", stat.name()),
            files: render(&out.join(&name), None, &[smoothed_chart(run, stat)], 1)?,
            name,
        });
    }
    let panels = tournament_charts(run);
    if !panels.is_empty() {
        let title = format!("{}: tournaments per generation", run.name);
        written.push(ChartFile {
            name: "tournaments".into(),
            caption: "tournament statistics per generation".into(),
            files: render(&out.join("tournaments"), Some(&title), &panels, 2)?,
        });
    }
    let panels = figure_charts(run, &chosen);
    if !panels.is_empty() {
        let title = format!("{}: the method's figures per generation", run.name);
        written.push(ChartFile {
            name: "figures".into(),
            caption: "the figures the run's method reports per generation (`generations.jsonl`'s `fitness`)".into(),
            files: render(&out.join("figures"), Some(&title), &panels, 2)?,
        });
    }
    Ok(written)
}
