//! A run's disk: `--keep-checkpoints N` keeps the newest N epoch checkpoints (and `--from-epoch`
//! names the kept ones when asked for another), and a run that runs out of room (here a
//! file-size limit, `ulimit -f`) stops with a clear message, its last checkpoint intact, and
//! resumes to the checkpoints of a run that never stopped.

#![cfg(target_os = "linux")]

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const CONFIG: &str = "seed = 5\nepochs = 4\npopulation = 4\ngenerations_per_epoch = 1\nnetwork_depth = 1\n\
                      [benchmark]\ndepth = 1\n[rules]\nply_cap = 30\n";

fn master(args: &[&str], setup: impl FnOnce(&mut Command)) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_master"));
    command.args(args).env_remove("LOA_TOKEN");
    if args[0] != "show" {
        command.args(["--threads", "1", "--quiet"]);
    }
    setup(&mut command);
    command.output().unwrap()
}

fn run(config: &Path, out: &Path, more: &[&str], setup: impl FnOnce(&mut Command)) -> Output {
    let args = [&["run", "--config", config.to_str().unwrap(), "--out", out.to_str().unwrap()][..], more].concat();
    master(&args, setup)
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The epoch checkpoints in `out`, by name.
fn epochs(out: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(out.join("checkpoints"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("epoch-"))
        .collect();
    names.sort();
    names
}

fn read(path: PathBuf) -> Vec<u8> {
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn keep_checkpoints_keeps_the_newest_and_from_epoch_names_them() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("c.toml");
    std::fs::write(&config, CONFIG).unwrap();
    let (all, kept) = (dir.path().join("all"), dir.path().join("kept"));
    assert!(run(&config, &all, &[], |_| {}).status.success());
    let o = run(&config, &kept, &["--keep-checkpoints", "2"], |_| {});
    assert!(o.status.success(), "{}", stderr(&o));
    let (every, newest) = (epochs(&all), epochs(&kept));
    assert_eq!(every.len(), 5, "{every:?}");
    assert_eq!(newest, every[3..], "the two newest");
    for name in &newest {
        assert_eq!(read(kept.join("checkpoints").join(name)), read(all.join("checkpoints").join(name)), "{name}");
    }
    assert_eq!(read(kept.join("checkpoints/latest.ckpt")), read(all.join("checkpoints/latest.ckpt")));
    let o = master(&["resume", kept.to_str().unwrap(), "--from-epoch", "1"], |_| {});
    let err = stderr(&o);
    assert!(!o.status.success() && err.contains("epoch 1 has no checkpoint"), "{err}");
    assert!(err.contains("epochs with checkpoints: 3, 4"), "{err}");
}

#[test]
fn a_run_out_of_room_stops_with_its_last_checkpoint_intact_and_resumes_identically() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("c.toml");
    std::fs::write(&config, CONFIG).unwrap();
    let (reference, limited) = (dir.path().join("reference"), dir.path().join("limited"));
    assert!(run(&config, &reference, &[], |_| {}).status.success());
    // Checkpoints grow with the epochs' reports: a file-size limit between epoch 2's and epoch
    // 3's is reached mid-run, in the middle of writing a checkpoint.
    let size =
        |epoch: u32| std::fs::metadata(reference.join(format!("checkpoints/epoch-{epoch:05}.ckpt"))).unwrap().len();
    let limit = (size(2) + size(3)) / 2;
    assert!(size(2) < limit && limit < size(3));
    let o = run(&config, &limited, &[], |command| {
        // SAFETY: only setrlimit, which is async-signal-safe, runs between fork and exec.
        unsafe {
            command.pre_exec(move || {
                let rlimit = libc::rlimit { rlim_cur: limit, rlim_max: limit };
                match libc::setrlimit(libc::RLIMIT_FSIZE, &rlimit) {
                    0 => Ok(()),
                    _ => Err(std::io::Error::last_os_error()),
                }
            });
        }
    });
    let err = stderr(&o);
    // An error naming the file and the cause, not a kill by SIGXFSZ.
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("File too large") && err.contains("the disk is full"), "{err}");
    assert!(err.contains(&format!("master resume {}", limited.display())), "{err}");
    let o = master(&["show", limited.to_str().unwrap()], |_| {});
    assert!(o.status.success(), "the last checkpoint loads: {}", stderr(&o));
    let o = master(&["resume", limited.to_str().unwrap()], |_| {});
    assert!(o.status.success(), "{}", stderr(&o));
    for name in epochs(&reference) {
        let path = |run: &Path| run.join("checkpoints").join(&name);
        assert_eq!(read(path(&limited)), read(path(&reference)), "{name}");
    }
    assert_eq!(read(limited.join("epochs.jsonl")), read(reference.join("epochs.jsonl")));
}
