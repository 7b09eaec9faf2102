//! `analysis noise`: how much of the spread of a run's fitness is noise, from the `noise_sd`,
//! `signal_sd` and `reliability` its generation lines carry when the run sets `report_noise`.

use crate::run::Run;
use crate::stats::median;
use crate::tables::{Table, num};
use loa_records::Figures;

/// The medians of one run's fitness noise over its last generations that report it.
#[derive(Clone, Debug, PartialEq)]
pub struct NoiseSummary {
    /// Generations the medians are over.
    pub generations: usize,
    /// The fitness's unit (`points` or `benchmark-score`), per game.
    pub unit: String,
    /// The median noise: the standard deviation of a candidate's mean score were it judged
    /// again on other games.
    pub noise_sd: f64,
    /// The median signal: the standard deviation of the candidates' mean scores.
    pub signal_sd: f64,
    /// The median reliability, max(0, signal² − noise²) / signal², over the generations whose
    /// candidates' means differed (NaN if none did).
    pub reliability: f64,
}

impl NoiseSummary {
    /// The medians over the last `last` generations of `run` that report the noise, if any does.
    pub fn of(run: &Run, last: usize) -> Option<NoiseSummary> {
        let reported: Vec<&Figures> = run
            .generations
            .iter()
            .filter_map(|g| g.figures.as_ref())
            .filter(|f| f.number("noise_sd").is_some() && f.number("signal_sd").is_some())
            .collect();
        let tail = &reported[reported.len().saturating_sub(last)..];
        let first = tail.first()?;
        let column = |name: &str| median(&tail.iter().filter_map(|f| f.number(name)).collect::<Vec<_>>());
        Some(NoiseSummary {
            generations: tail.len(),
            unit: first.text("unit").unwrap_or("–").to_owned(),
            noise_sd: column("noise_sd"),
            signal_sd: column("signal_sd"),
            reliability: column("reliability"),
        })
    }
}

/// One row per run: the medians over its last `last` generations, or a note that it does not
/// report the noise.
pub fn noise_table(runs: &[Run], last: usize) -> Table {
    let headers = ["run", "generations", "unit", "noise sd", "signal sd", "reliability"];
    let rows = runs
        .iter()
        .map(|run| match NoiseSummary::of(run, last) {
            Some(s) => vec![
                run.name.clone(),
                s.generations.to_string(),
                s.unit,
                num(s.noise_sd, 3),
                num(s.signal_sd, 3),
                num(s.reliability, 3),
            ],
            None => {
                let why = "not reported: set report_noise = true".to_string();
                vec![run.name.clone(), "0".into(), why, "–".into(), "–".into(), "–".into()]
            }
        })
        .collect();
    Table { headers: headers.map(String::from).to_vec(), rows }
}

/// The mean reliability of each run over blocks of `block` generations (1..=block,
/// block+1..=2·block, ...): one row per block up to the longest run, one column per run, "–"
/// where a run has no generation in the block that reports it. Means rather than medians,
/// since a block of a stalled run is mostly zeros and its median says only that.
pub fn reliability_by_block(runs: &[Run], block: usize) -> Table {
    let block = block.max(1);
    let per_run: Vec<Vec<(f64, usize)>> = runs
        .iter()
        .map(|run| {
            let mut sums = Vec::new();
            for g in &run.generations {
                let Some(r) = g.figures.as_ref().and_then(|f| f.number("reliability")) else { continue };
                let i = (g.generation.max(1) as usize - 1) / block;
                if sums.len() <= i {
                    sums.resize(i + 1, (0.0, 0));
                }
                sums[i].0 += r;
                sums[i].1 += 1;
            }
            sums
        })
        .collect();
    let blocks = per_run.iter().map(Vec::len).max().unwrap_or(0);
    let mut headers = vec!["generations".to_string()];
    headers.extend(runs.iter().map(|r| r.name.clone()));
    let rows = (0..blocks)
        .map(|i| {
            let mut row = vec![format!("{}-{}", i * block + 1, (i + 1) * block)];
            row.extend(per_run.iter().map(|sums| match sums.get(i) {
                Some(&(sum, n)) if n > 0 => num(sum / n as f64, 2),
                _ => "–".into(),
            }));
            row
        })
        .collect();
    Table { headers, rows }
}

/// What the table's columns mean, for a reader.
pub const NOISE_KEY: &str = "Medians over each run's last generations. Noise: the standard deviation of a \
     candidate's mean score were it judged again on other games; signal: the standard deviation of the candidates' \
     mean scores (noise included), both per game in the fitness's unit; reliability: max(0, signal² − noise²) / \
     signal², the share of the spread selection sees that is not noise (docs/evolving.md).";

#[cfg(test)]
mod tests {
    use super::*;
    use loa_records::GenerationRecord;

    fn line(noise: Option<f64>, signal: f64, reliability: Option<f64>) -> GenerationRecord {
        let figures = Figures::new()
            .with("unit", "points")
            .with("best", 1.0)
            .with("mean", 0.5)
            .with("vs_fixed", None::<f64>)
            .with_some("noise_sd", noise)
            .with_some("signal_sd", noise.map(|_| signal))
            .with_some("reliability", reliability);
        GenerationRecord {
            generation: 1,
            epoch: 1,
            tournaments: Vec::new(),
            survivors_kept: 0,
            games: 10,
            mean_plies: 40.0,
            seconds: 1.0,
            games_per_second: 10.0,
            workers: 1,
            worker_detail: Vec::new(),
            figures: Some(figures),
        }
    }

    fn run(generations: Vec<GenerationRecord>) -> Run {
        Run {
            dir: "r".into(),
            name: "r".into(),
            config: Default::default(),
            epochs: Vec::new(),
            generations,
            notes: Vec::new(),
        }
    }

    #[test]
    fn medians_are_over_the_last_generations_that_report_the_noise() {
        // The first line is outside the last 3; the one without noise is skipped; the one
        // without reliability counts for the noise and the signal only.
        let r = run(vec![
            line(Some(9.0), 9.0, Some(0.9)),
            line(Some(1.0), 4.0, Some(0.5)),
            line(None, 0.0, None),
            line(Some(3.0), 2.0, None),
            line(Some(2.0), 3.0, Some(0.3)),
        ]);
        let s = NoiseSummary::of(&r, 3).unwrap();
        assert_eq!((s.generations, s.unit.as_str()), (3, "points"));
        assert_eq!((s.noise_sd, s.signal_sd, s.reliability), (2.0, 3.0, 0.4));
        assert_eq!(NoiseSummary::of(&run(vec![line(None, 0.0, None)]), 3), None);
        let table = noise_table(&[r, run(Vec::new())], 3).markdown();
        assert!(table.contains("| r | 3 | points | 2.000 | 3.000 | 0.400 |"), "{table}");
        assert!(table.contains("not reported: set report_noise = true"), "{table}");
    }

    #[test]
    fn block_means_are_over_the_generations_of_each_block_that_report_a_reliability() {
        let numbered = |gens: Vec<(u64, Option<f64>)>| {
            let lines = gens
                .into_iter()
                .map(|(generation, r)| GenerationRecord { generation, ..line(Some(1.0), 2.0, r) })
                .collect();
            run(lines)
        };
        // Blocks of 2: generations 1-2 average 0.5 and 0.1; generation 3's missing reliability
        // leaves 4's 0.2 alone; the second run has nothing in 3-4 and stops before 5-6.
        let a = numbered(vec![(1, Some(0.5)), (2, Some(0.1)), (3, None), (4, Some(0.2)), (6, Some(0.0))]);
        let mut b = numbered(vec![(2, Some(0.9)), (3, None)]);
        b.name = "b".into();
        let table = reliability_by_block(&[a, b], 2).markdown();
        assert!(table.contains("| generations | r | b |"), "{table}");
        assert!(table.contains("| 1-2 | 0.30 | 0.90 |"), "{table}");
        assert!(table.contains("| 3-4 | 0.20 | – |"), "{table}");
        assert!(table.contains("| 5-6 | 0.00 | – |"), "{table}");
        assert_eq!(table.lines().count(), 5, "{table}");
    }
}
