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
    /// The command line of an external engine that is the reference instead (`[benchmark]
    /// engine`).
    pub reference_engine: Option<String>,
    /// The ply cap of the rules.
    pub ply_cap: Option<u64>,
    /// The networks' shape name (absent: the thesis's, which the master does not write out).
    pub network: Option<String>,
    /// The start position's name (absent: the usual start).
    pub start: Option<String>,
}

/// The thesis's shape, which a run's configuration leaves out.
pub const THESIS_NETWORK: &str = "board-nonad-100-20-1";

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
            reference_engine: sub("benchmark")
                .and_then(|t| t.get("engine"))
                .and_then(|v| v.as_str())
                .map(str::to_string),
            ply_cap: int(sub("rules"), "ply_cap"),
            network: value.get("network").and_then(|v| v.as_str()).map(str::to_string),
            start: value.get("start").and_then(|v| v.as_str()).map(str::to_string),
        })
    }

    /// The networks' shape name.
    pub fn network_name(&self) -> &str {
        self.network.as_deref().unwrap_or(THESIS_NETWORK)
    }

    /// The board the networks read, e.g. `5x5`: a shape's name starts with its board unless the
    /// board is 8×8 (docs/spec.md §3).
    pub fn board_name(&self) -> String {
        let name = self.network_name();
        match name.split('-').next() {
            Some(first) if first.contains('x') => first.to_string(),
            _ => "8x8".to_string(),
        }
    }

    /// The start position's name.
    pub fn start_name(&self) -> &str {
        self.start.as_deref().unwrap_or("standard")
    }

    /// The reference player as a spec-like name, e.g. `aloa:5` or `engine:CMD` (`the reference`
    /// if unknown).
    pub fn reference_name(&self) -> String {
        if let Some(command) = &self.reference_engine {
            return format!("engine:{command}");
        }
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
        let engine =
            RunConfig::parse("[benchmark]\nengine = \"loa engine --player aloa:5\"\n", Path::new("x")).unwrap();
        assert_eq!(engine.reference_name(), "engine:loa engine --player aloa:5");
        assert_eq!(RunConfig::parse("", Path::new("x")).unwrap(), RunConfig::default());
        assert_eq!((c.network_name(), c.board_name(), c.start_name()), (THESIS_NETWORK, "8x8".into(), "standard"));
        let small = RunConfig::parse("network = \"6x6-board-nonad-52-12-1\"\nseed = 2\n", Path::new("x")).unwrap();
        assert_eq!((small.network_name(), small.board_name()), ("6x6-board-nonad-52-12-1", "6x6".into()));
        let eggs = RunConfig::parse("start = \"scrambled-eggs\"\n", Path::new("x")).unwrap();
        assert_eq!((eggs.board_name(), eggs.start_name()), ("8x8".into(), "scrambled-eggs"));
        let err = RunConfig::parse("seed = 1\npopulation = = 3\n", Path::new("r/config.toml")).unwrap_err();
        assert!(err.to_string().starts_with("r/config.toml:2: bad TOML"), "{err}");
    }
}
