//! Going back past a liar's outcomes: when a quarantined worker's first unverified outcome is
//! already in the run's state, the run goes on from the latest state that holds nothing from
//! that task on: an epoch checkpoint, or the state the session began with. Its metrics files are
//! cut back to that state as a resume cuts them, the later epoch checkpoints are set aside, and
//! `latest.ckpt` becomes that state, so a crash from here on resumes from a state with no lie in
//! it. Tasks are deterministic: played again without the liar, the steps give an honest run's
//! checkpoints and metrics.

use super::error::io;
use super::resume::{epoch_checkpoints, set_aside_after};
use super::{RunDir, RunError};
use crate::checkpoint::RunState;
use crate::scheduler::TaskId;
use loa_records::jsonl::{truncate_after, truncate_after_epoch, write_lines};

/// The highest task id whose outcome `state` holds (`None`: none, the initial population before
/// its benchmark). A generation's tasks are numbered from `generation << 24`, its benchmark's
/// and validation's from that with bit 23 set (see [`super::runner::task_id`]).
pub fn last_task(state: &RunState) -> Option<TaskId> {
    if state.epochs.is_empty() {
        return None;
    }
    let benchmarked = state.generation / u64::from(state.config.generations_per_epoch) <= u64::from(state.epoch);
    let within = if benchmarked { (1 << 24) - 1 } else { (1 << 23) - 1 };
    Some((state.generation << 24) | within)
}

/// The state to go on from, without the outcome of task `first` or any after it: the latest
/// epoch checkpoint before it, or `start` (the session's first state) if that is later. It is
/// made the run directory's `latest.ckpt`, and the files past it are cut back or set aside.
/// `say` is told what was set aside, and where.
pub fn rewind(dir: &RunDir, start: &RunState, first: TaskId, say: &dyn Fn(&str)) -> Result<RunState, RunError> {
    let before = |s: &RunState| last_task(s).is_none_or(|last| last < first);
    let mut chosen = (None, start.clone());
    for (epoch, path) in epoch_checkpoints(dir).into_iter().rev() {
        let Ok(state) = RunState::load(&path) else { continue };
        if before(&state) {
            if last_task(&state) > last_task(start) || !before(start) {
                chosen = (Some(epoch), state);
            }
            break;
        }
    }
    let (epoch, state) = chosen;
    if !before(&state) {
        return Err(RunError::Outcome(format!(
            "a liar's outcome of task {first} is in every state this run can go back to: start the run again"
        )));
    }
    let latest = dir.latest_checkpoint();
    let bytes = state.encode().map_err(|e| crate::checkpoint::CheckpointError::Encode(latest, e))?;
    set_aside_after(dir, epoch, &bytes, &|what, aside| {
        say(&format!(
            "verification: dropping {what}, which hold a liar's outcomes; their checkpoints and the metrics files \
             as they were are kept in {}",
            aside.display()
        ))
    })?;
    truncate_after(&dir.generations(), state.generation).map_err(io(&dir.generations()))?;
    write_lines(&dir.epochs(), &state.epochs).map_err(io(&dir.epochs()))?;
    let finished = state.epochs.last().map(|r| r.epoch);
    truncate_after_epoch(&dir.validation(), finished).map_err(io(&dir.validation()))?;
    Ok(state)
}
