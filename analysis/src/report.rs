//! `analysis report`: one run's charts and tables in a Markdown report, optionally set against
//! `loa match` series (baselines such as the random heuristic against ALoA).

use crate::charts::render;
use crate::compare::evolved;
use crate::error::{AnalysisError, Result};
use crate::figures::block_chart;
use crate::matches::MatchSeries;
use crate::noise::{NOISE_KEY, NoiseSummary, noise_table};
use crate::output::write_text;
use crate::plot::{ChartFile, plot_run};
use crate::run::Run;
use crate::scores::{EpochStatistic, Outcomes, ScoreSets};
use crate::tables::{default_detail_epochs, epoch_detail, key, record_table, score_table, trend_table, welch_table};
use std::path::{Path, PathBuf};

/// Generations the report's fitness noise is the median over (as `analysis noise`'s default).
const NOISE_GENERATIONS: usize = 50;

/// Draws the run's charts into `out` and writes `out/report.md`; returns the report's path.
/// `epochs` chooses the rows of the per-epoch tables (default: the best epoch and its
/// neighbours) and must pass [`check_epochs`].
pub fn write_report(run: &Run, baselines: &[MatchSeries], epochs: Option<&[u32]>, out: &Path) -> Result<PathBuf> {
    check_epochs(run, epochs)?;
    let charts = plot_run(run, out, None)?;
    let path = out.join("report.md");
    write_text(&path, &report_markdown(run, baselines, epochs, &charts))?;
    Ok(path)
}

/// Refuses epochs `run` did not record, naming the range it did.
pub fn check_epochs(run: &Run, epochs: Option<&[u32]>) -> Result<()> {
    let missing: Vec<u32> =
        epochs.unwrap_or_default().iter().copied().filter(|&e| !run.epochs.iter().any(|r| r.epoch == e)).collect();
    if missing.is_empty() {
        return Ok(());
    }
    let recorded = (run.epochs.first().map_or(0, |r| r.epoch), run.epochs.last().map_or(0, |r| r.epoch));
    Err(AnalysisError::EpochsNotRecorded { run: run.dir.clone(), missing, recorded })
}

fn describe_run(run: &Run) -> String {
    let c = &run.config;
    let opt = |v: Option<u64>| v.map_or("?".to_string(), |v| v.to_string());
    let last = run.epochs.last();
    format!(
        "- run directory: `{}`\n- networks `{}` on the {} board, {} start\n- population {} survivors, {} generations \
         per epoch, networks searching {} plies, benchmark against {}\n- epochs completed: {} (epoch 0 is the initial \
         random population), generations: {}\n",
        run.dir.display(),
        c.network_name(),
        c.board_name(),
        c.start_name(),
        opt(c.population),
        opt(c.generations_per_epoch),
        opt(c.network_depth),
        c.reference_name(),
        last.map_or(0, |e| e.epoch),
        last.map_or(0, |e| e.generation),
    )
}

/// The report's Markdown; chart images are referenced by their PNG file names (the report sits
/// beside them).
pub fn report_markdown(run: &Run, baselines: &[MatchSeries], epochs: Option<&[u32]>, charts: &[ChartFile]) -> String {
    let mut s = format!("# Run {}\n\n{}", run.name, describe_run(run));
    let notes: Vec<&String> = run.notes.iter().chain(baselines.iter().flat_map(|b| &b.notes)).collect();
    if !notes.is_empty() {
        s.push_str("\nNotes:\n\n");
        for n in notes {
            s.push_str(&format!("- {n}\n"));
        }
    }
    s.push_str(
        "\nScores (docs/spec.md §6): a win in m plies scores 200 − m, a loss m, a tie 100 (per game, max 199); a benchmark \
         match is one game as Black and one as White, combined max 398 (per match).\n\n## Charts\n\n",
    );
    for c in charts {
        s.push_str(&format!("![{}]({}.png)\n\n*{}.*\n\n", c.caption, c.name, c.caption));
    }
    s.push_str("## Trends (Figures 18-19)\n\n");
    s.push_str(
        "Least-squares slope per epoch of each statistic of the combined score, fitted to the raw epoch values, \
         with its 95 % interval (t with n − 2 degrees of freedom). \"No trend shown\": the interval contains 0.\n\n",
    );
    s.push_str(&trend_table(&[run]).markdown());
    if NoiseSummary::of(run, NOISE_GENERATIONS).is_some() {
        s.push_str(&format!("\n## Fitness noise\n\n{NOISE_KEY} Over the last {NOISE_GENERATIONS} generations.\n\n"));
        s.push_str(&noise_table(std::slice::from_ref(run), NOISE_GENERATIONS).markdown());
    }
    let chosen = epochs.map_or_else(|| default_detail_epochs(run), <[u32]>::to_vec);
    let list: Vec<String> = chosen.iter().map(u32::to_string).collect();
    s.push_str(&format!(
        "\n## Epochs {} in detail (Tables 1-2)\n\nMean, Median, Max: every game score of the epoch (Black and White \
         pooled); Comb.: the two-game totals.\n\n",
        list.join(", ")
    ));
    s.push_str(&epoch_detail(run, &chosen, false).markdown());
    s.push_str("\nAfter 5-point centred smoothing of each column (window cut at the first and last epochs):\n\n");
    s.push_str(&epoch_detail(run, &chosen, true).markdown());

    let sets = ScoreSets::of_epochs(evolved(run));
    let outcomes = Outcomes::of_epochs(evolved(run));
    let net_label = format!("{} networks vs {}", run.name, run.config.reference_name());
    let base: Vec<(String, ScoreSets, Outcomes)> =
        baselines.iter().map(|b| (b.label(), b.scores(), b.outcomes())).collect();
    let mut labels: Vec<&str> = vec![&net_label];
    labels.extend(base.iter().map(|b| b.0.as_str()));
    let mut score_sets: Vec<(&str, &ScoreSets)> = vec![(&net_label, &sets)];
    score_sets.extend(base.iter().map(|b| (b.0.as_str(), &b.1)));
    let mut records: Vec<(&str, &Outcomes)> = vec![(&net_label, &outcomes)];
    records.extend(base.iter().map(|b| (b.0.as_str(), &b.2)));

    s.push_str("\n## Scores by colour (Tables 3-5, 7)\n\nThe networks' benchmark games of every epoch after epoch 0");
    if !base.is_empty() {
        s.push_str("; for each match series, its first player's games");
    }
    s.push_str(". Standard deviations are sample (n − 1).\n\n");
    s.push_str(&key(&labels));
    s.push('\n');
    s.push_str(&score_table(&score_sets).markdown());
    s.push_str(
        "\n## Wins, losses and ties (Tables 6, 8)\n\nA match is won by docs/spec.md §5's criteria (1)-(3); what \
         criterion (4) would give to A by default counts as a tie. Winning percentages leave ties out, as the \
         thesis's do (2168 wins, 9089 losses, 1143 ties: 19.26 %); intervals: 95 % Wilson score.\n\n",
    );
    s.push_str(&record_table(&records).markdown());
    for (label, b, _) in &base {
        s.push_str(&format!("\n## Welch's t-test: {net_label} against {label}\n\n"));
        s.push_str(
            "Every game counts as an independent sample. A network that survives several epochs is benchmarked \
             in each, so pooled epochs are correlated and the p-values below are, if anything, too small.\n\n",
        );
        s.push_str(&key(&[&net_label, label]));
        s.push('\n');
        s.push_str(&welch_table(&sets, b).markdown());
    }
    s
}

/// Draws, for each series, its best and mean scores per block of `block` pairs (thesis Figure
/// 20) into `out` as `STEM-best` and `STEM-mean` (PNG + SVG), STEM the series file's stem.
pub fn plot_series_blocks(series: &[MatchSeries], block: usize, out: &Path) -> Result<Vec<ChartFile>> {
    let mut written = Vec::new();
    for (i, s) in series.iter().enumerate() {
        let stem = s.path.file_stem().map_or_else(|| format!("series-{i}"), |n| n.to_string_lossy().into_owned());
        for stat in [EpochStatistic::Best, EpochStatistic::Mean] {
            let name = format!("{stem}-{}", stat.name());
            written.push(ChartFile {
                caption: format!("{}: {} score per block of {block} matches", s.label(), stat.name()),
                files: render(&out.join(&name), None, &[block_chart(s, block, stat)], 1)?,
                name,
            });
        }
    }
    Ok(written)
}

/// The table of `loa match` series side by side (`analysis matches`): scores by colour, wins /
/// losses / ties with Wilson intervals, and Welch's t-test of the first series against each
/// other one. Each series is described from its first player's side.
pub fn matches_markdown(series: &[MatchSeries]) -> String {
    let labels: Vec<String> = series.iter().map(MatchSeries::label).collect();
    let sets: Vec<ScoreSets> = series.iter().map(MatchSeries::scores).collect();
    let outcomes: Vec<Outcomes> = series.iter().map(MatchSeries::outcomes).collect();
    let mut s = String::from("# Match series\n\n");
    for (m, label) in series.iter().zip(&labels) {
        let plies = if m.games.is_empty() {
            0.0
        } else {
            m.games.iter().map(|g| f64::from(g.plies)).sum::<f64>() / m.games.len() as f64
        };
        s.push_str(&format!("- `{}`: {label}, {} games, mean {plies:.1} plies\n", m.path.display(), m.games.len()));
        for n in &m.notes {
            s.push_str(&format!("  - note: {n}\n"));
        }
    }
    s.push_str("\n## Scores of each series' first player\n\n");
    let refs: Vec<&str> = labels.iter().map(String::as_str).collect();
    s.push_str(&key(&refs));
    s.push('\n');
    let pairs: Vec<(&str, &ScoreSets)> = refs.iter().copied().zip(&sets).collect();
    s.push_str(&score_table(&pairs).markdown());
    s.push_str(
        "\n## Wins, losses and ties of each series' first player\n\nWinning percentages of decided games (ties \
         left out, as in the thesis), with 95 % Wilson intervals.\n\n",
    );
    let rec: Vec<(&str, &Outcomes)> = refs.iter().copied().zip(&outcomes).collect();
    s.push_str(&record_table(&rec).markdown());
    if let Some((first, others)) = sets.split_first() {
        for (i, other) in others.iter().enumerate() {
            s.push_str(&format!("\n## Welch's t-test: {} against {}\n\n", labels[0], labels[i + 1]));
            s.push_str(&key(&[&labels[0], &labels[i + 1]]));
            s.push('\n');
            s.push_str(&welch_table(first, other).markdown());
        }
    }
    s
}
