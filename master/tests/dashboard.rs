//! The live dashboard: a master serving `/`, `/api/status`, `/api/epochs`, `/api/chart.svg`
//! and the validation routes on loopback, checked against the run's own metrics files; the
//! statuses of bad requests; a run's checkpoints byte-identical with and without it; the
//! read-only page of a run directory.
#![cfg(feature = "dashboard")]

use loa_master::config::{ExperimentConfig, ValidationConfig};
use loa_master::run::dashboard::DashboardOptions;
use loa_master::run::{RunDir, RunOptions, WorkOptions, resume, start};
use loa_records::{EpochReport, GenerationRecord, ValidationRecord, jsonl};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

const TOKEN: &str = "s3cret token";

fn tiny(epochs: u32) -> ExperimentConfig {
    let mut c = ExperimentConfig {
        seed: 12345,
        epochs,
        population: 4,
        generations_per_epoch: 2,
        network_depth: 1,
        ..Default::default()
    };
    c.benchmark.depth = 1;
    c.rules.ply_cap = 40;
    c
}

/// A status code and body from a minimal HTTP/1.1 client (`Connection: close`).
fn request(addr: SocketAddr, method: &str, target: &str, auth: Option<&str>) -> std::io::Result<(u16, String)> {
    let mut stream = TcpStream::connect(addr)?;
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    let auth = auth.map_or(String::new(), |t| format!("Authorization: Bearer {t}\r\n"));
    write!(stream, "{method} {target} HTTP/1.1\r\nHost: test\r\n{auth}Connection: close\r\n\r\n")?;
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw)?;
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let code = head.split(' ').nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
    let body =
        if head.to_ascii_lowercase().contains("transfer-encoding: chunked") { dechunk(body) } else { body.into() };
    Ok((code, body))
}

fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 {
            break;
        }
        out.push_str(&rest[..n]);
        body = &rest[n + 2..];
    }
    out
}

fn get(addr: SocketAddr, target: &str) -> (u16, String) {
    request(addr, "GET", target, Some(TOKEN)).unwrap()
}

fn json<T: serde::de::DeserializeOwned>(addr: SocketAddr, target: &str) -> T {
    let (code, body) = get(addr, target);
    assert_eq!(code, 200, "{target}: {body}");
    serde_json::from_str(&body).unwrap_or_else(|e| panic!("{target}: {e}: {body}"))
}

fn wait_bound(options: &DashboardOptions) -> SocketAddr {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(addr) = options.bound.get() {
            return *addr;
        }
        assert!(Instant::now() < deadline, "the dashboard never listened");
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn dashboard(linger: Duration) -> DashboardOptions {
    let (listen, token) = ("127.0.0.1:0".parse().unwrap(), Some(TOKEN.into()));
    DashboardOptions { listen, token, bound: Default::default(), linger }
}

fn epochs_file(dir: &Path) -> Vec<EpochReport> {
    jsonl::read(&RunDir::new(dir).epochs()).unwrap().records
}

fn bad_requests_get_statuses(addr: SocketAddr) {
    assert_eq!(request(addr, "GET", "/api/status", None).unwrap().0, 401, "no token");
    assert_eq!(request(addr, "GET", "/api/status", Some("wrong")).unwrap().0, 401, "wrong token");
    assert_eq!(request(addr, "GET", "/api/status?token=wrong", None).unwrap().0, 401, "wrong token in the query");
    assert_eq!(request(addr, "GET", "/api/status?token=s3cret%20token", None).unwrap().0, 200, "token in the query");
    assert_eq!(get(addr, "/nothing/here").0, 404);
    assert_eq!(get(addr, "/api/status/../../etc/passwd").0, 404);
    assert_eq!(get(addr, &format!("/api/status?x={}", "a".repeat(5000))).0, 414);
    assert_eq!(get(addr, "/api/status?token=%zz").0, 400);
    assert_eq!(request(addr, "POST", "/api/status", Some(TOKEN)).unwrap().0, 405);
    assert_eq!(request(addr, "DELETE", "/", Some(TOKEN)).unwrap().0, 405);
}

#[test]
fn a_resumed_run_serves_its_whole_history_and_matches_its_files() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    start(tiny(2), &run, &RunOptions::embedded(2)).unwrap();
    let options = dashboard(Duration::from_secs(120));
    let stop = Arc::new(AtomicBool::new(false));
    let work = WorkOptions { stop: Arc::clone(&stop), ..WorkOptions::embedded(2) };
    let run_options = RunOptions { work, dashboard: Some(options.clone()), ..RunOptions::default() };
    std::thread::scope(|s| {
        let running = s.spawn(|| resume(&run, None, Some(2), &run_options));
        let addr = wait_bound(&options);
        // While it runs: every answer is well-formed, and its epochs are a prefix of the file's
        // (the metrics file is written before the dashboard hears of an epoch).
        let deadline = Instant::now() + Duration::from_secs(120);
        let mut states = Vec::new();
        let status = loop {
            let status: loa_dashboard::Status = json(addr, "/api/status");
            let served: Vec<EpochReport> = json(addr, "/api/epochs");
            let file = epochs_file(&run);
            assert!(
                served.len() >= 3 && served.len() <= file.len(),
                "{} served, {} in the file",
                served.len(),
                file.len()
            );
            assert_eq!(served[..], file[..served.len()]);
            states.push(status.state.clone());
            if status.state == "finished" {
                break status;
            }
            assert!(Instant::now() < deadline, "the run did not finish: {states:?}");
            std::thread::sleep(Duration::from_millis(10));
        };
        // Finished and lingering: the elapsed time stopped at the end, everything matches the files.
        let elapsed = status.progress.elapsed_seconds;
        std::thread::sleep(Duration::from_millis(300));
        let later: loa_dashboard::Status = json(addr, "/api/status");
        assert!(elapsed.is_some() && later.progress.elapsed_seconds == elapsed, "{elapsed:?}");
        let served: Vec<EpochReport> = json(addr, "/api/epochs");
        assert_eq!(served, epochs_file(&run));
        assert_eq!(served.iter().map(|e| e.epoch).collect::<Vec<_>>(), [0, 1, 2, 3, 4], "the whole history");
        let summary: Vec<loa_dashboard::EpochSummary> = json(addr, "/api/epochs?summary=1");
        assert_eq!(summary, served.iter().map(loa_dashboard::EpochSummary::from).collect::<Vec<_>>());
        let generations: Vec<GenerationRecord> = jsonl::read(&RunDir::new(&run).generations()).unwrap().records;
        let rates: Vec<(u64, f64)> = generations.iter().map(|g| (g.generation, g.games_per_second)).collect();
        let shown: Vec<(u64, f64)> =
            status.games_per_second.iter().map(|g| (g.generation, g.games_per_second)).collect();
        assert_eq!(shown, rates);
        assert_eq!(
            (status.source.as_str(), status.generation, status.epoch, status.epochs_recorded),
            ("live", 8, 4, 5)
        );
        assert_eq!(status.progress.fraction, 1.0);
        assert_eq!(status.run.seed, Some(12345));
        // The configuration in force: the resume's target of 4 epochs.
        assert!(status.run.config_toml.contains("seed = 12345") && status.run.config_toml.contains("epochs = 4"));
        assert_eq!((status.run.target_epochs, status.run.population), (Some(4), Some(4)));
        let counts = status.counts.clone().unwrap();
        assert_eq!((counts.duplicates, counts.unknown, counts.dropped_workers), (0, 0, None));
        assert!(counts.completed > 0);
        // The embedded threads register in whichever order they start.
        let mut names: Vec<(&str, Option<u32>)> = status.workers.iter().map(|w| (w.name.as_str(), w.slots)).collect();
        names.sort_unstable();
        assert_eq!(names, [("embedded-0", Some(1)), ("embedded-1", Some(1))]);
        let (code, page) = get(addr, "/");
        assert!(code == 200 && page.contains("<title>") && page.contains("/api/status"), "{code}");
        assert!(!page.contains("<script src") && !page.contains("<link"), "the page loads nothing from elsewhere");
        let (code, svg) = get(addr, "/api/chart.svg");
        assert!(code == 200 && svg.starts_with("<svg") && svg.contains("median, smoothed"), "{code}: {svg:.200}");
        bad_requests_get_statuses(addr);
        stop.store(true, Ordering::Release);
        let summary = running.join().unwrap().unwrap();
        assert_eq!((summary.epoch, summary.stopped), (4, false));
        assert!(request(addr, "GET", "/", Some(TOKEN)).is_err(), "the server is gone after the run");
    });
    // The same page read-only from the run directory.
    let server = loa_dashboard::serve(
        Arc::new(loa_dashboard::RunDirProvider::new(&run).unwrap()),
        "127.0.0.1:0".parse().unwrap(),
        Some(TOKEN.into()),
    )
    .unwrap();
    let addr = server.addr();
    let served: Vec<EpochReport> = json(addr, "/api/epochs");
    assert_eq!(served, epochs_file(&run));
    let status: loa_dashboard::Status = json(addr, "/api/status");
    assert_eq!(
        (status.source.as_str(), status.generation, status.epoch, status.epochs_recorded),
        ("run directory", 8, 4, 5)
    );
    assert_eq!(status.run.seed, Some(12345));
    let (code, svg) = get(addr, "/api/chart.svg");
    assert!(code == 200 && svg.contains("best, smoothed"));
    bad_requests_get_statuses(addr);
    server.shutdown();
}

fn checkpoints(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<_> = std::fs::read_dir(RunDir::new(dir).checkpoints())
        .unwrap()
        .map(|e| {
            let path = e.unwrap().path();
            (path.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&path).unwrap())
        })
        .collect();
    files.sort();
    files
}

#[test]
fn a_run_with_the_dashboard_writes_the_same_checkpoints() {
    let tmp = tempfile::tempdir().unwrap();
    let (plain, watched) = (tmp.path().join("plain"), tmp.path().join("watched"));
    start(tiny(2), &plain, &RunOptions::embedded(2)).unwrap();
    let options = dashboard(Duration::ZERO);
    let run_options = RunOptions { dashboard: Some(options.clone()), ..RunOptions::embedded(2) };
    let done = AtomicBool::new(false);
    std::thread::scope(|s| {
        // Pages, charts and bad requests, as fast as they come, while it runs.
        s.spawn(|| {
            let addr = wait_bound(&options);
            let targets = ["/api/status", "/api/epochs", "/api/chart.svg", "/", "/x", "/api/status?token=bad"];
            while !done.load(Ordering::Acquire) {
                for t in targets {
                    let _ = request(addr, "GET", t, Some(TOKEN));
                }
                let _ = request(addr, "POST", "/api/status", None);
            }
        });
        let result = start(tiny(2), &watched, &run_options);
        done.store(true, Ordering::Release);
        result.unwrap();
    });
    let (a, b) = (checkpoints(&plain), checkpoints(&watched));
    assert_eq!(a.len(), 4, "epochs 0-2 and latest");
    assert!(a == b, "checkpoints differ with the dashboard on");
    assert_eq!(epochs_file(&plain), epochs_file(&watched));
}

fn validation_file(dir: &Path) -> Vec<ValidationRecord> {
    jsonl::read(&RunDir::new(dir).validation()).unwrap().records
}

/// `tiny` validated every epoch against two fixed players.
fn validating(epochs: u32) -> ExperimentConfig {
    let mut c = tiny(epochs);
    let opponents = vec!["aloa:1".into(), "random:1".into()];
    c.validation = Some(ValidationConfig { opponents, matches: 4, seed: 9, ..ValidationConfig::default() });
    c
}

#[test]
fn validation_lines_are_served_live_and_from_the_run_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    let options = dashboard(Duration::from_secs(120));
    let stop = Arc::new(AtomicBool::new(false));
    let work = WorkOptions { stop: Arc::clone(&stop), ..WorkOptions::embedded(2) };
    let run_options = RunOptions { work, dashboard: Some(options.clone()), ..RunOptions::default() };
    std::thread::scope(|s| {
        let running = s.spawn(|| start(validating(2), &run, &run_options));
        let addr = wait_bound(&options);
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            let status: loa_dashboard::Status = json(addr, "/api/status");
            assert!(status.validating, "the run has [validation] from its start");
            if status.state == "finished" {
                break;
            }
            assert!(Instant::now() < deadline, "the run did not finish");
            std::thread::sleep(Duration::from_millis(20));
        }
        // Epochs 0, 1 and 2 against both opponents, as the file has them.
        let served: Vec<ValidationRecord> = json(addr, "/api/validation");
        let file = validation_file(&run);
        assert_eq!(file.len(), 6);
        assert_eq!(served, file);
        let status: loa_dashboard::Status = json(addr, "/api/status");
        assert_eq!(status.validations_recorded, 6);
        stop.store(true, Ordering::Release);
        assert!(!running.join().unwrap().unwrap().stopped);
    });
    let served = |dir: &Path| {
        let provider = loa_dashboard::RunDirProvider::new(dir).unwrap();
        let server = loa_dashboard::serve(Arc::new(provider), "127.0.0.1:0".parse().unwrap(), Some(TOKEN.into()));
        let server = server.unwrap();
        let addr = server.addr();
        let records: Vec<ValidationRecord> = json(addr, "/api/validation");
        let status: loa_dashboard::Status = json(addr, "/api/status");
        let charts = ["/api/validation.svg", "/api/validation.svg?axis=cpu", "/api/validation.svg?axis=gpu"]
            .map(|t| get(addr, t));
        server.shutdown();
        (records, status, charts)
    };
    let (records, status, [wall, cpu, bad]) = served(&run);
    assert_eq!(records, validation_file(&run));
    assert_eq!((status.validating, status.validations_recorded), (true, 6));
    for (code, svg) in [wall, cpu] {
        assert!(code == 200 && svg.starts_with("<svg") && svg.contains("aloa:1") && svg.contains("random:1"), "{code}");
    }
    assert_eq!(bad.0, 400, "an unknown axis: {}", bad.1);
    // A run without validation serves none and says so.
    let plain = tmp.path().join("plain");
    start(tiny(1), &plain, &RunOptions::embedded(2)).unwrap();
    let (records, status, _) = served(&plain);
    assert!(records.is_empty());
    assert_eq!((status.validating, status.validations_recorded), (false, 0));
}

/// What a judged scheme reports about its latest generation is served live and from the run
/// directory as the line has it, in the scheme's order; a run whose scheme reports nothing
/// serves none.
#[test]
fn the_latest_generations_figures_are_served_live_and_from_the_run_directory() {
    let text = "seed = 3\nepochs = 1\npopulation = 4\ngenerations_per_epoch = 2\nnetwork_depth = 1\n\
                [benchmark]\ndepth = 1\n[rules]\nply_cap = 40\n\
                [selection.scheme.evolution-strategies]\nopponents = 1\nfixed_opponents = [\"random:1\"]\n";
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    let options = dashboard(Duration::from_secs(120));
    let stop = Arc::new(AtomicBool::new(false));
    let work = WorkOptions { stop: Arc::clone(&stop), ..WorkOptions::embedded(2) };
    let run_options = RunOptions { work, dashboard: Some(options.clone()), ..RunOptions::default() };
    // The figures served, and the JSON text of the status.
    let served = |addr| {
        let status: loa_dashboard::Status = json(addr, "/api/status");
        (status.figures, get(addr, "/api/status").1)
    };
    let live = std::thread::scope(|s| {
        let running = s.spawn(|| start(ExperimentConfig::from_toml(text).unwrap(), &run, &run_options));
        let addr = wait_bound(&options);
        let deadline = Instant::now() + Duration::from_secs(120);
        while json::<loa_dashboard::Status>(addr, "/api/status").state != "finished" {
            assert!(Instant::now() < deadline, "the run did not finish");
            std::thread::sleep(Duration::from_millis(20));
        }
        let live = served(addr);
        stop.store(true, Ordering::Release);
        assert!(!running.join().unwrap().unwrap().stopped);
        live
    });
    let lines: Vec<GenerationRecord> = jsonl::read(&RunDir::new(&run).generations()).unwrap().records;
    let last = lines.last().and_then(|g| g.figures.clone()).expect("evolution strategies report figures");
    // The last line's `fitness` object as the run wrote it: the end of the line.
    let text = std::fs::read_to_string(RunDir::new(&run).generations()).unwrap();
    let line = text.lines().last().unwrap();
    let written = &line[line.find("\"fitness\":").unwrap() + "\"fitness\":".len()..line.len() - 1];
    let provider = loa_dashboard::RunDirProvider::new(&run).unwrap();
    let server = loa_dashboard::serve(Arc::new(provider), "127.0.0.1:0".parse().unwrap(), Some(TOKEN.into())).unwrap();
    let recorded = served(server.addr());
    server.shutdown();
    for (figures, body) in [live, recorded] {
        assert_eq!(figures.as_ref(), Some(&last));
        assert!(body.contains(&format!("\"figures\":{written},")), "the line's text, in its order: {body}");
    }
    let plain = tmp.path().join("plain");
    start(tiny(1), &plain, &RunOptions::embedded(2)).unwrap();
    let provider = loa_dashboard::RunDirProvider::new(&plain).unwrap();
    let server = loa_dashboard::serve(Arc::new(provider), "127.0.0.1:0".parse().unwrap(), Some(TOKEN.into())).unwrap();
    assert_eq!(served(server.addr()).0, None, "the knockout reports no figures");
    server.shutdown();
}
