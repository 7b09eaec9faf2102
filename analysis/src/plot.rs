//! `analysis plot`: every chart of one run, as PNG and SVG.

use crate::charts::render;
use crate::error::Result;
use crate::figures::{epoch_chart, search_charts, smoothed_chart, tournament_charts};
use crate::run::Run;
use crate::scores::EpochStatistic;
use std::path::{Path, PathBuf};

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
/// trend lines), `tournaments` (per generation; only if there are generation lines) and `search`
/// (σ and λ per generation; only for a run that adapts its search distribution, CMA-ES).
pub fn plot_run(run: &Run, out: &Path) -> Result<Vec<ChartFile>> {
    let mut written = Vec::new();
    for stat in EpochStatistic::ALL {
        let figure = match stat {
            EpochStatistic::Best => "Figure 15",
            EpochStatistic::Mean => "Figure 16",
            EpochStatistic::Median => "Figure 17",
        };
        let name = stat.name().to_string();
        written.push(ChartFile {
            caption: format!("{} benchmark score of each epoch, by colour (thesis {figure})", stat.name()),
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
    let panels = search_charts(run);
    if !panels.is_empty() {
        let title = format!("{}: the search distribution per generation", run.name);
        written.push(ChartFile {
            name: "search".into(),
            caption: "CMA-ES's step size σ and candidates per generation λ (restarts double λ)".into(),
            files: render(&out.join("search"), Some(&title), &panels, 2)?,
        });
    }
    Ok(written)
}
