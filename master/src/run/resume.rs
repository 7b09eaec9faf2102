//! Resuming a run: the checkpoint it continues from, what a resume from an earlier epoch sets
//! aside, and the run directory's `config.toml` checked against the checkpoint's configuration.

use super::error::io;
use super::events::utc_now;
use super::{RunDir, RunError, RunLog, RunOptions, RunSummary, execute, load};
use crate::checkpoint::RunState;
use crate::config::{ConfigError, ExperimentConfig};
use crate::selection::normalized;
use loa_records::jsonl::{truncate_after, truncate_after_epoch, write_atomically, write_lines};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Resumes the run in `dir` from its latest checkpoint, or from the end of `from_epoch`; runs
/// `more_epochs` more epochs if given, else up to the configuration's `epochs`. The metrics files
/// are cut back to the checkpoint, so they continue exactly as an uninterrupted run's; what a
/// resume from an earlier epoch drops is set aside first, in `checkpoints/abandoned-TIME/`.
pub fn resume(
    dir: &Path,
    from_epoch: Option<u32>,
    more_epochs: Option<u32>,
    options: &RunOptions,
) -> Result<RunSummary, RunError> {
    let dir = run_dir(dir)?;
    let mut state = match from_epoch {
        Some(epoch) if !dir.epoch_checkpoint(epoch).exists() => {
            let kept = epoch_checkpoints(&dir).into_iter().map(|(e, _)| e).collect();
            return Err(RunError::EpochNotKept { epoch, kept });
        }
        Some(epoch) => load(dir.epoch_checkpoint(epoch))?,
        None => load(dir.latest_checkpoint()).map_err(|error| match newest_usable_epoch(&dir) {
            Some(epoch) => RunError::LatestUnusable { error: Box::new(error), dir: dir.root().into(), epoch },
            None => error,
        })?,
    };
    let log = RunLog::new(dir.clone(), Instant::now());
    let say = |message: &str| {
        eprintln!("master: {message}");
        log.line(message);
    };
    // Refused before anything is changed: a sum that does not fit, or no epoch at all, would be
    // saved in every checkpoint after and make the run unreadable.
    let bad = |why: String| RunError::Config(ConfigError::Invalid { key: "--epochs".into(), why });
    if more_epochs == Some(0) {
        return Err(bad("must be at least 1".into()));
    }
    let too_many = |more| bad(format!("{more} more after epoch {} is too many", state.epoch));
    let target = more_epochs.map(|more| state.epoch.checked_add(more).ok_or_else(|| too_many(more))).transpose()?;
    // What this tool last wrote to config.toml is the latest checkpoint's configuration, its
    // target included: from an earlier epoch, a file that matches it was not edited.
    let written = from_epoch.and_then(|_| load(dir.latest_checkpoint()).ok()).map(|latest| latest.config);
    check_config(&dir, &state.config, written.as_ref(), &say)?;
    state.config.epochs = target.unwrap_or(state.config.epochs);
    if let Some(epoch) = from_epoch {
        set_aside(&dir, epoch, state.config.epochs, &say)?;
    }
    truncate_after(&dir.generations(), state.generation).map_err(io(&dir.generations()))?;
    // The checkpoint holds every epoch report so far: the file is exactly those.
    write_lines(&dir.epochs(), &state.epochs).map_err(io(&dir.epochs()))?;
    // Validation is part of its epoch's step: the lines of epochs the checkpoint has not
    // finished (none at all before the first benchmark) are redone.
    let finished = state.epochs.last().map(|r| r.epoch);
    truncate_after_epoch(&dir.validation(), finished).map_err(io(&dir.validation()))?;
    // The configuration the run goes on with, its target included.
    std::fs::write(dir.config(), state.config.to_toml()).map_err(io(&dir.config()))?;
    execute(&dir, state, options)
}

/// The run directory at `dir`, which must exist.
pub(crate) fn run_dir(dir: &Path) -> Result<RunDir, RunError> {
    if dir.is_dir() { Ok(RunDir::new(dir)) } else { Err(RunError::NoRunDir(dir.to_path_buf())) }
}

/// The epoch checkpoints in `dir`, by epoch.
pub fn epoch_checkpoints(dir: &RunDir) -> Vec<(u32, PathBuf)> {
    let Ok(entries) = std::fs::read_dir(dir.checkpoints()) else { return Vec::new() };
    let mut found: Vec<(u32, PathBuf)> = entries
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name().into_string().ok()?;
            Some((name.strip_prefix("epoch-")?.strip_suffix(".ckpt")?.parse().ok()?, entry.path()))
        })
        .collect();
    found.sort();
    found
}

/// Deletes all but the `keep` newest epoch checkpoints (at least one is kept); a file that
/// cannot be deleted is said through `say` and left, as it costs only space.
pub fn prune(dir: &RunDir, keep: usize, say: &dyn Fn(&str)) {
    let found = epoch_checkpoints(dir);
    let surplus = found.len().saturating_sub(keep.max(1));
    for (epoch, path) in &found[..surplus] {
        if let Err(e) = std::fs::remove_file(path) {
            say(&format!("cannot delete epoch {epoch}'s checkpoint for --keep-checkpoints: {}: {e}", path.display()));
        }
    }
}

/// The newest epoch whose checkpoint loads.
pub fn newest_usable_epoch(dir: &RunDir) -> Option<u32> {
    epoch_checkpoints(dir).into_iter().rev().find(|(_, path)| RunState::load(path).is_ok()).map(|(epoch, _)| epoch)
}

/// Before a resume from the end of `epoch`: moves what the run recorded after it (the later
/// epoch checkpoints and `latest.ckpt`) and copies the metrics files as they were into
/// `checkpoints/abandoned-TIME/`, so nothing is lost and nothing later is read as the run's.
/// `latest.ckpt` becomes the epoch's checkpoint. Says what went where, and the epoch the run
/// now goes to (`target`).
fn set_aside(dir: &RunDir, epoch: u32, target: u32, say: &dyn Fn(&str)) -> Result<(), RunError> {
    let ours = dir.epoch_checkpoint(epoch);
    let bytes = std::fs::read(&ours).map_err(io(&ours))?;
    let said = std::cell::Cell::new(false);
    set_aside_after(dir, Some(epoch), &bytes, &|what, aside| {
        said.set(true);
        say(&format!(
            "resuming from epoch {epoch}: dropping {what}; their checkpoints and the metrics files as they were \
             are kept in {}. The run now goes to epoch {target}",
            aside.display()
        ))
    })?;
    if !said.get() {
        say(&format!("resuming from epoch {epoch}, the last one recorded: the run now goes to epoch {target}"));
    }
    Ok(())
}

/// [`set_aside`] for a run that goes on from the checkpoint `bytes`, at the end of `epoch`
/// (`None`: before any epoch's end): the epoch checkpoints after it, and `latest.ckpt` unless it
/// is `bytes`, are moved aside, and `latest.ckpt` becomes `bytes`. `say` is told what was
/// dropped and where it is kept, if anything was.
pub(super) fn set_aside_after(
    dir: &RunDir,
    epoch: Option<u32>,
    bytes: &[u8],
    say: &dyn Fn(&str, &Path),
) -> Result<(), RunError> {
    let later: Vec<(u32, PathBuf)> =
        epoch_checkpoints(dir).into_iter().filter(|(e, _)| epoch.is_none_or(|epoch| *e > epoch)).collect();
    let latest = dir.latest_checkpoint();
    let moved_on = std::fs::read(&latest).is_ok_and(|latest| latest != bytes);
    if later.is_empty() && !moved_on {
        return Ok(());
    }
    // A second resume within the same second sets aside into a directory of its own.
    let stamp = format!("abandoned-{}", utc_now().replace(':', ""));
    let names = (1..1000).map(|n| if n == 1 { stamp.clone() } else { format!("{stamp}-{n}") });
    let aside = names.map(|name| dir.checkpoints().join(name)).find(|p| !p.exists()).unwrap_or_default();
    std::fs::create_dir(&aside).map_err(io(&aside))?;
    let into_aside = |path: &Path| aside.join(path.file_name().unwrap_or_default());
    for path in later.iter().map(|(_, p)| p).chain(moved_on.then_some(&latest)) {
        std::fs::rename(path, into_aside(path)).map_err(io(path))?;
    }
    for path in [dir.generations(), dir.epochs(), dir.validation()].iter().filter(|p| p.exists()) {
        std::fs::copy(path, into_aside(path)).map_err(io(path))?;
    }
    if moved_on {
        write_atomically(&latest, bytes).map_err(io(&latest))?;
    }
    let what = match (later.as_slice(), epoch) {
        ([], Some(epoch)) => format!("the generations after epoch {epoch}"),
        ([], None) => "the generations so far".to_owned(),
        ([(only, _)], _) => format!("epoch {only}"),
        ([(first, _), .., (last, _)], _) => format!("epochs {first}..{last} ({} epochs)", later.len()),
    };
    say(&what, &aside);
    Ok(())
}

/// Checks the run directory's `config.toml` against the configuration `checkpoint` holds, which
/// a resume always uses: a run keeps its configuration, or its results could not be reproduced.
/// A file that differs or does not read is set aside as `config.toml.ignored`; the caller then
/// writes the checkpoint's (also when the file is missing). Each case is said. A file equal to
/// `written`, what this tool last wrote there, was not edited: it is replaced without a word.
fn check_config(
    dir: &RunDir,
    checkpoint: &ExperimentConfig,
    written: Option<&ExperimentConfig>,
    say: &dyn Fn(&str),
) -> Result<(), RunError> {
    let path = dir.config();
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            say("config.toml is missing: it is written again from the checkpoint's configuration");
            return Ok(());
        }
        Err(e) => return Err(RunError::Io(path, e)),
    };
    let (why, detail) = match ExperimentConfig::from_toml(&text).and_then(|c| normalized(&c)) {
        Ok(c)
            if [Some(checkpoint), written].into_iter().flatten().any(|ours| normalized(ours).is_ok_and(|o| o == c)) =>
        {
            return Ok(());
        }
        Ok(_) => {
            (format!("differs from the checkpoint's configuration in {}", differing_keys(&text, checkpoint)), None)
        }
        Err(e) => ("is not a valid configuration".to_owned(), Some(e)),
    };
    let aside = path.with_extension("toml.ignored");
    std::fs::rename(&path, &aside).map_err(io(&path))?;
    say(&format!(
        "config.toml {why}: a run keeps its configuration, so the checkpoint's is used and written to config.toml; \
         the edited file is now {aside}. To run more epochs use `master resume {dir} --epochs N`; for other \
         changes start a new run: `master run --config {aside} --out NEW_DIR`{detail}",
        aside = aside.display(),
        dir = dir.root().display(),
        detail = detail.map_or(String::new(), |e| format!(". What is wrong with it: {e}"))
    ));
    Ok(())
}

/// The top-level keys whose values differ between a configuration's TOML `text` and `config`.
fn differing_keys(text: &str, config: &ExperimentConfig) -> String {
    let (ours, theirs): (toml::Table, toml::Table) =
        (toml::from_str(&config.to_toml()).unwrap_or_default(), toml::from_str(text).unwrap_or_default());
    let mut keys: Vec<&String> = ours.keys().chain(theirs.keys()).filter(|k| ours.get(*k) != theirs.get(*k)).collect();
    keys.sort();
    keys.dedup();
    keys.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ")
}
