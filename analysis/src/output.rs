//! Where analysis writes: an output directory that is never inside a run directory.

use crate::error::{AnalysisError, Result};
use std::path::{Component, Path, PathBuf};

/// `path` made absolute and free of `.`/`..` and symbolic links, as far as it exists (the part
/// that does not exist yet is appended as written).
fn resolve(path: &Path) -> PathBuf {
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().map_or_else(|_| path.to_path_buf(), |d| d.join(path))
    };
    // Lexically first (`a/x/../b` is `a/b`), then resolve links in the part that exists.
    let mut lexical = PathBuf::new();
    for c in absolute.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                lexical.pop();
            }
            other => lexical.push(other),
        }
    }
    let mut existing = lexical.clone();
    let mut rest = Vec::new();
    while !existing.exists() {
        match (existing.file_name().map(|n| n.to_os_string()), existing.parent()) {
            (Some(name), Some(parent)) => {
                rest.push(name);
                existing = parent.to_path_buf();
            }
            _ => break,
        }
    }
    let mut out = existing.canonicalize().unwrap_or(existing);
    for part in rest.iter().rev() {
        out.push(part);
    }
    out
}

/// The default output directory of a run: `RUN-analysis` beside it.
pub fn default_for_run(run: &Path) -> PathBuf {
    let resolved = resolve(run);
    let name = resolved.file_name().map_or_else(|| "run".into(), |n| n.to_string_lossy().into_owned());
    resolved.with_file_name(format!("{name}-analysis"))
}

/// Checks that `out` is not inside (or equal to) any of `runs`, then creates it.
pub fn prepare(out: &Path, runs: &[&Path]) -> Result<PathBuf> {
    let target = resolve(out);
    for run in runs {
        let run_dir = resolve(run);
        if target.starts_with(&run_dir) {
            return Err(AnalysisError::OutputInsideRun { out: out.to_path_buf(), run: run.to_path_buf() });
        }
    }
    std::fs::create_dir_all(out).map_err(|e| AnalysisError::Write(out.to_path_buf(), e))?;
    Ok(out.to_path_buf())
}

/// Writes `text` to `path`, naming it in an error.
pub fn write_text(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).map_err(|e| AnalysisError::Write(path.to_path_buf(), e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_inside_a_run_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let run = dir.path().join("run");
        std::fs::create_dir(&run).unwrap();
        for bad in [run.clone(), run.join("plots"), run.join("x/../y"), dir.path().join("other/../run/z")] {
            let err = prepare(&bad, &[&run]).unwrap_err();
            assert!(err.to_string().contains("is inside the run directory"), "{bad:?}: {err}");
        }
        assert!(!run.join("plots").exists());
        let ok = dir.path().join("run-analysis");
        assert_eq!(prepare(&ok, &[&run]).unwrap(), ok);
        assert!(ok.is_dir());
        assert_eq!(default_for_run(&run), resolve(&dir.path().join("run-analysis")));
    }
}
