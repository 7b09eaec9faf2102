//! How a generation's judged candidates scored ([`FitnessSummary`]), and the figures a judged
//! scheme reports from it for `generations.jsonl`.

use loa_records::Figures;

/// How a generation's candidates scored, per game, in the unit of the run's fitness (points:
/// win 1, draw ½; benchmark score: 0 to 200).
#[derive(Clone, Debug, PartialEq)]
pub struct FitnessSummary {
    /// The fitness: `points` or `benchmark-score`.
    pub unit: &'static str,
    /// The best candidate's mean score per game.
    pub best: f64,
    /// The mean over candidates of their mean score per game.
    pub mean: f64,
    /// The mean score per game of all candidates against the fixed opponents and the ladder's
    /// rung (the curriculum), if any: the same yardstick every generation, so its course is a
    /// learning curve.
    pub vs_fixed: Option<f64>,
    /// The ladder's rung the candidates met (0-based), if the run climbs a ladder.
    pub rung: Option<u32>,
    /// Their mean points per game (win 1, draw ½) against it.
    pub vs_rung: Option<f64>,
    /// If the run reports it (`report_noise`): the standard deviation of a candidate's mean
    /// score were it judged again on other games, as a root mean square over candidates.
    pub noise_sd: Option<f64>,
    /// If the run reports it: the standard deviation of the candidates' mean scores (the spread
    /// selection sees, noise included).
    pub signal_sd: Option<f64>,
    /// If the run reports it: max(0, signal_sd² − noise_sd²) / signal_sd², the share of the
    /// spread that is not noise (1: candidates ranked by strength alone; 0: by chance).
    pub reliability: Option<f64>,
}

impl FitnessSummary {
    /// The scheme's figures for the generation: these, by the names above, with the scheme's
    /// `own` (a mean mutation step, a search distribution) after the scores and before the
    /// noise. `vs_fixed` is always there (`null` without fixed opponents); the other optional
    /// ones only when they have a value. Runs' `generations.jsonl` files have had this order.
    pub fn figures(&self, own: Figures) -> Figures {
        Figures::new()
            .with("unit", self.unit)
            .with("best", self.best)
            .with("mean", self.mean)
            .with("vs_fixed", self.vs_fixed)
            .with_some("rung", self.rung)
            .with_some("vs_rung", self.vs_rung)
            .with_all(own)
            .with_some("noise_sd", self.noise_sd)
            .with_some("signal_sd", self.signal_sd)
            .with_some("reliability", self.reliability)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary() -> FitnessSummary {
        FitnessSummary {
            unit: "benchmark-score",
            best: 125.375,
            mean: 101.146875,
            vs_fixed: Some(102.625),
            rung: Some(0),
            vs_rung: Some(0.515625),
            noise_sd: Some(4.454725095224127),
            signal_sd: Some(10.248923615085495),
            reliability: Some(0.8110767951083296),
        }
    }

    #[test]
    fn the_figures_are_the_lines_runs_have_written() {
        // The `fitness` of a (μ + λ) run's first generation with self-adaptive steps, a ladder and
        // the noise reported, as the build before figures wrote it.
        let line = r#"{"unit":"benchmark-score","best":125.375,"mean":101.146875,"vs_fixed":102.625,"rung":0,"vs_rung":0.515625,"mean_step":0.051165670406448066,"noise_sd":4.454725095224127,"signal_sd":10.248923615085495,"reliability":0.8110767951083296}"#;
        let own = Figures::new().with("mean_step", 0.051165670406448066);
        assert_eq!(serde_json::to_string(&summary().figures(own)).unwrap(), line);
        // Without fixed opponents, ladder or noise: a null and nothing else.
        let bare = FitnessSummary {
            unit: "points",
            best: 0.5,
            mean: 0.5,
            vs_fixed: None,
            rung: None,
            vs_rung: None,
            noise_sd: None,
            signal_sd: None,
            reliability: None,
        };
        let line = r#"{"unit":"points","best":0.5,"mean":0.5,"vs_fixed":null}"#;
        assert_eq!(serde_json::to_string(&bare.figures(Figures::new())).unwrap(), line);
    }
}
