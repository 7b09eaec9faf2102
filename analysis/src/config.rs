//! The few fields of a run's `config.toml` the charts and tables need, read loosely (a missing
//! field is `None`), so analysis does not depend on the master.

use crate::error::{AnalysisError, Result};
use std::path::Path;

/// What analysis reads from a run's configuration.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunConfig {
    /// The run's seed.
    pub seed: Option<u64>,
    /// Survivors per generation (the thesis: 62).
    pub population: Option<u64>,
    /// Generations per epoch (the thesis: 10).
    pub generations_per_epoch: Option<u64>,
    /// Epochs asked for.
    pub epochs: Option<u64>,
    /// The networks' search depth.
    pub network_depth: Option<u64>,
    /// The benchmark's reference player, e.g. `aloa`.
    pub reference: Option<String>,
    /// The reference player's search depth.
    pub reference_depth: Option<u64>,
    /// The ply cap of the rules.
    pub ply_cap: Option<u64>,
}

impl RunConfig {
    /// Parses configuration text (`path` names it in errors).
    pub fn parse(text: &str, path: &Path) -> Result<RunConfig> {
        let value: toml::Table = text.parse().map_err(|e: toml::de::Error| {
            let line = e.span().map_or(1, |s| text.bytes().take(s.start).filter(|&b| b == b'\n').count() + 1);
            AnalysisError::Config { path: path.to_path_buf(), line, why: e.message().trim().to_string() }
        })?;
        let int = |table: Option<&toml::Table>, key: &str| {
            table.and_then(|t| t.get(key)).and_then(|v| v.as_integer()).and_then(|i| u64::try_from(i).ok())
        };
        let sub = |key: &str| value.get(key).and_then(|v| v.as_table());
        let top = Some(&value);
        Ok(RunConfig {
            seed: int(top, "seed"),
            population: int(top, "population"),
            generations_per_epoch: int(top, "generations_per_epoch"),
            epochs: int(top, "epochs"),
            network_depth: int(top, "network_depth"),
            reference: sub("benchmark").and_then(|t| t.get("reference")).and_then(|v| v.as_str()).map(str::to_string),
            reference_depth: int(sub("benchmark"), "depth"),
            ply_cap: int(sub("rules"), "ply_cap"),
        })
    }

    /// The reference player as a spec-like name, e.g. `aloa:5` (`the reference` if unknown).
    pub fn reference_name(&self) -> String {
        match (&self.reference, self.reference_depth) {
            (Some(r), Some(d)) => format!("{r}:{d}"),
            (Some(r), None) => r.clone(),
            _ => "the reference".to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_fields_it_needs_and_names_the_line_of_an_error() {
        let text = "seed = 1\npopulation = 24\ngenerations_per_epoch = 5\n[benchmark]\nreference = \"aloa\"\ndepth = 5\n[rules]\nply_cap = 100\n";
        let c = RunConfig::parse(text, Path::new("r/config.toml")).unwrap();
        assert_eq!((c.population, c.generations_per_epoch, c.ply_cap), (Some(24), Some(5), Some(100)));
        assert_eq!(c.reference_name(), "aloa:5");
        assert_eq!(RunConfig::parse("", Path::new("x")).unwrap(), RunConfig::default());
        let err = RunConfig::parse("seed = 1\npopulation = = 3\n", Path::new("r/config.toml")).unwrap_err();
        assert!(err.to_string().starts_with("r/config.toml:2: bad TOML"), "{err}");
    }
}
