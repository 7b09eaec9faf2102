//! `loa-bench dispatch` end to end: small runs whose counts are known, the flags it refuses, and
//! the side-by-side comparison.

use std::process::{Command, Output};

fn bench(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_loa-bench")).args(args).output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The number just before `before` on the line of `out` starting with `line`.
fn number(out: &str, line: &str, before: &str) -> u64 {
    let l = out.lines().find(|l| l.trim_start().starts_with(line)).unwrap_or_else(|| panic!("{line}: {out}"));
    let head = l.split(before).next().unwrap_or_default();
    head.rsplit([' ', ',', '(']).find(|w| !w.is_empty()).and_then(|w| w.parse().ok()).unwrap_or_else(|| panic!("{out}"))
}

#[test]
fn dispatch_counts_ids_steps_and_compares_side_by_side() {
    // Every task the same four networks: each stub gets them with weights once, then by id; one
    // message each way a task, and the first message of each stub's stream.
    let o =
        bench(&["dispatch", "--tasks", "60", "--clients", "2", "--samples", "1", "--depth", "1", "--reuse", "repeat"]);
    let out = stdout(&o);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(out.contains("networks sent: 232 by id, 8 with weights; 0 fetched"), "{out}");
    assert!(out.contains("2 stub workers over 1 connection in"), "{out}");
    assert_eq!(number(&out, "messages:", " from the stubs"), 62, "{out}");
    assert!(number(&out, "messages:", " from the master") >= 60, "{out}");
    assert!(out.contains("master CPU ") && out.contains("=> one master core keeps about"), "{out}");
    // A connection each, as real workers have; and batches: 30 tasks a message at most, so at
    // least two messages of outcomes a stub.
    let o = bench(&["dispatch", "--tasks", "60", "--clients", "2", "--connections", "2", "--samples", "1"]);
    let out = stdout(&o);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(out.contains("2 stub workers over 2 connections in"), "{out}");
    let args = ["dispatch", "--tasks", "61", "--clients", "2", "--samples", "1", "--depth", "1"];
    let o = bench(&[&args[..], &["--reuse", "repeat", "--batch", "30"]].concat());
    let out = stdout(&o);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(out.contains("at most 30 outcomes each"), "{out}");
    let messages = number(&out, "messages:", " from the stubs");
    assert!((2 + 3..=2 + 61).contains(&messages), "{out}");
    // In three steps, one after another: every task dispatched, the networks cached across steps.
    let o = bench(&[&args[..], &["--reuse", "repeat", "--steps", "3"]].concat());
    let out = stdout(&o);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(out.contains("dispatch: 61 tasks in 3 steps to 2 stub workers"), "{out}");
    assert!(out.contains("networks sent: 236 by id, 8 with weights; 0 fetched"), "{out}");
    for steps in ["0", "62"] {
        let o = bench(&[&args[..], &["--reuse", "repeat", "--steps", steps]].concat());
        assert!(!o.status.success() && stderr(&o).contains("--steps: must be in 1..=61"), "{}", stderr(&o));
    }
    let o = bench(&[&args[..], &["--reuse", "knockout", "--steps", "2"]].concat());
    assert!(!o.status.success() && stderr(&o).contains("steps are its generations"), "{}", stderr(&o));
    for (flag, value, why) in [
        ("--batch", "65", "--batch: must be in 1..=64"),
        ("--depth", "0", "--depth: must be in 1..=12"),
        ("--chromosome-cache", "0", "--peers: needs a chromosome cache"),
    ] {
        let o = bench(&[&args[..7], &[flag, value, "--peers"]].concat());
        assert!(!o.status.success() && stderr(&o).contains(why), "{flag}: {}", stderr(&o));
    }
    // After an untimed step of the first step's size: its 20 tasks dispatched too (80 more
    // networks by id, none more with weights), and said so.
    let o = bench(&[&args[..], &["--reuse", "repeat", "--steps", "3", "--warm-up"]].concat());
    let out = stdout(&o);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(out.contains("dispatch: 61 tasks in 3 steps after an untimed step of 20 (counted"), "{out}");
    assert!(out.contains("networks sent: 316 by id, 8 with weights; 0 fetched"), "{out}");
    let o = bench(&[&args[..], &["--warm-up"]].concat());
    assert!(!o.status.success() && stderr(&o).contains("--warm-up: the knockout"), "{}", stderr(&o));
    // Side by side with itself (as with another build's binary): one round, both figures, the
    // ratios, and every workload flag given to both.
    let me = env!("CARGO_BIN_EXE_loa-bench");
    let args = ["dispatch", "--tasks", "40", "--clients", "2", "--samples", "1", "--depth", "1"];
    let o = bench(&[&args[..], &["--baseline", me, "--rounds", "1"]].concat());
    let out = stdout(&o);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(out.contains("1 interleaved rounds") && out.contains("master CPU per task, median"), "{out}");
    assert!(out.contains("master CPU per task, best") && out.contains("old/new"), "{out}");
    assert!(out.contains("collecting thread, median") && out.contains("both, best"), "{out}");
    assert!(out.contains(" dispatch --tasks 40 --clients 2 --samples 1 --depth 1 --reuse knockout"), "{out}");
    assert!(out.contains("--chromosome-cache 4096 --batch 1 --connections 1"), "{out}");
    let o = bench(&[&args[..], &["--baseline", "/bin/true"]].concat());
    assert!(!o.status.success() && stderr(&o).contains("/bin/true: runs no dispatch benchmark"), "{}", stderr(&o));
}

#[test]
fn dispatch_sends_new_networks_as_origins_made_from_parents_the_stubs_serve_each_other() {
    // Ten generations of 8 knockouts: after the first (whose parents nobody holds yet), the new
    // networks go as their origins and the stubs make them from parents they fetch from each
    // other; the weights are the first population's and some of the first generation's.
    let args = ["dispatch", "--tasks", "80", "--clients", "4", "--samples", "1", "--depth", "1"];
    let o = bench(&[&args[..], &["--reuse", "knockout", "--population", "8", "--peers"]].concat());
    let out = stdout(&o);
    assert!(o.status.success(), "{}", stderr(&o));
    let (by_id, with_weights) =
        (number(&out, "networks sent", " by id"), number(&out, "networks sent", " with weights"));
    let (by_origin, made) = (number(&out, "origins:", " networks sent as"), number(&out, "origins:", ", fetched"));
    let from_peers = number(&out, "origins:", " by id from peers");
    let peer_fetched = number(&out, "origins:", " chromosomes from");
    let fetched = number(&out, "networks sent", " fetched;");
    assert_eq!(by_id + with_weights + by_origin + from_peers, 80 * 4, "{out}");
    assert!(with_weights <= 8 + 24 && by_origin >= 9 * 24 - 8, "{out}");
    assert!(made <= by_origin && by_origin - made <= fetched && peer_fetched > 0, "{out}");
    // Light stubs take the networks as sent: the master sends the same way, nothing is made.
    let o = bench(&[&args[..], &["--reuse", "knockout", "--population", "8", "--peers", "--light-stubs"]].concat());
    let out = stdout(&o);
    assert!(o.status.success() && out.contains("light stubs (nothing made or fetched)"), "{out}");
}

#[cfg(unix)]
#[test]
fn side_by_side_with_a_master_that_carried_the_benchmark_passes_only_the_flags_it_takes() {
    use std::os::unix::fs::PermissionsExt;
    // A stand-in for such a master: its `bench-dispatch` takes three of the workload's flags,
    // records the arguments it got and prints a report it once printed; it has no `dispatch`.
    let dir = std::env::temp_dir().join(format!("loa-bench-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (master, calls) = (dir.join("master"), dir.join("calls"));
    let report = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/master-bench-dispatch.txt");
    let script = format!(
        "#!/bin/sh\ncase \"$1 $2\" in\n  'bench-dispatch --help') printf 'Usage: master bench-dispatch [OPTIONS]\\n      \
         --tasks <TASKS>\\n      --clients <CLIENTS>\\n      --reuse <REUSE>\\n' ;;\n  bench-dispatch*) echo \"$@\" >> \
         {calls} ; cat {report} ;;\n  *) echo \"error: unrecognized subcommand '$1'\" >&2 ; exit 2 ;;\nesac\n",
        calls = calls.display()
    );
    std::fs::write(&master, script).unwrap();
    std::fs::set_permissions(&master, std::fs::Permissions::from_mode(0o755)).unwrap();
    let args = ["dispatch", "--tasks", "40", "--clients", "2", "--samples", "1", "--depth", "1", "--reuse", "repeat"];
    let o = bench(&[&args[..], &["--baseline", master.to_str().unwrap(), "--rounds", "2"]].concat());
    let out = stdout(&o);
    let recorded = std::fs::read_to_string(&calls).unwrap_or_default();
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let taken = "bench-dispatch --tasks 40 --clients 2 --reuse repeat";
    assert_eq!(recorded, format!("{taken}\n{taken}\n"));
    assert!(out.contains(&format!("master {taken}\n")), "{out}");
    assert!(
        out.contains("2 interleaved rounds") && out.contains(" dispatch --tasks 40 --clients 2 --samples 1"),
        "{out}"
    );
    // The baseline's figures are its report's: 35.0 µs a task, 14005 tasks/s, in both rounds.
    let row = |name: &str| out.lines().find(|l| l.starts_with(name)).unwrap_or_else(|| panic!("{name}: {out}"));
    let baseline = |name: &str| row(name).split_whitespace().rev().nth(2).unwrap().to_owned();
    assert_eq!(baseline("master CPU per task, median"), "35.0", "{out}");
    assert_eq!(baseline("master CPU per task, best"), "35.0", "{out}");
    assert_eq!(baseline("tasks/s, median"), "14005", "{out}");
}
