//! The master's configuration files, read by kind. Above both [`crate::config`] and
//! [`crate::experiment`], this is the one place that knows every kind, so that a file of one kind
//! given to the command of another is named for what it is, with the command that takes it.

use crate::config::{ConfigError, ExperimentConfig, FileKind, read_toml};
use crate::experiment::MatchExperiment;
use std::path::Path;

/// Every kind of configuration file, in the order a refused file is tried against them.
pub const KINDS: [FileKind; 2] = [ExperimentConfig::FILE, MatchExperiment::FILE];

impl ExperimentConfig {
    /// Reads, parses and validates a TOML file.
    pub fn read(path: &Path) -> Result<ExperimentConfig, ConfigError> {
        read_toml(path, ExperimentConfig::from_toml, &KINDS)
    }
}

impl MatchExperiment {
    /// Reads, parses and validates a TOML file.
    pub fn read(path: &Path) -> Result<MatchExperiment, ConfigError> {
        read_toml(path, MatchExperiment::from_toml, &KINDS)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_of_the_other_kind_is_named_with_its_command() {
        let dir = tempfile::tempdir().unwrap();
        let (run, experiment, neither) =
            (dir.path().join("run.toml"), dir.path().join("e.toml"), dir.path().join("neither.toml"));
        std::fs::write(&run, "population = 8\n").unwrap();
        std::fs::write(&experiment, "a = \"aloa:1\"\nb = \"random:1\"\nmatches = 2\n").unwrap();
        std::fs::write(&neither, "colour = \"red\"\n").unwrap();
        assert!(ExperimentConfig::read(&run).is_ok() && MatchExperiment::read(&experiment).is_ok());

        let err = MatchExperiment::read(&run).unwrap_err();
        assert!(matches!(err, ConfigError::OtherKind(_, "a run configuration", "run", "RUN_DIR")), "{err}");
        let text = format!(
            "{} is a run configuration, which this command does not take: use `master run --config {} --out RUN_DIR`",
            run.display(),
            run.display()
        );
        assert_eq!(err.to_string(), text);
        let err = ExperimentConfig::read(&experiment).unwrap_err();
        assert!(matches!(err, ConfigError::OtherKind(_, "a match experiment", "experiment", "GAMES.jsonl")), "{err}");

        // A file of no kind is a parse error naming the file and the key.
        for err in [
            ExperimentConfig::read(&neither).map(drop).unwrap_err(),
            MatchExperiment::read(&neither).map(drop).unwrap_err(),
        ] {
            assert!(matches!(err, ConfigError::Parse(Some(ref p), ..) if *p == neither), "{err}");
            assert!(err.to_string().contains("colour"), "{err}");
        }
        // A file of the right kind with a bad value is that value's error, not another kind's.
        std::fs::write(&run, "population = 0\n").unwrap();
        assert!(matches!(MatchExperiment::read(&run).unwrap_err(), ConfigError::OtherKind(..)));
        assert!(matches!(ExperimentConfig::read(&run).unwrap_err(), ConfigError::Invalid { .. }));
    }
}
