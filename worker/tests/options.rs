//! Worker options refused before any call, each with a message naming the flag or URL: a
//! master URL without an http(s) scheme and host (every call would fail and the worker retry
//! for ever) and slot counts out of range (each slot is a thread with its own stack).

use loa_worker::options::MAX_SLOTS;
use loa_worker::{Control, WorkerError, WorkerOptions, run};

/// The message `run` refuses `options` with.
fn refused(options: WorkerOptions) -> String {
    match run(options, Control::default()) {
        Err(WorkerError::Options(message)) => message,
        Err(other) => panic!("refused for another reason: {other}"),
        Ok(report) => panic!("not refused: {report:?}"),
    }
}

#[test]
fn master_urls_without_an_http_scheme_and_host_are_refused() {
    for url in ["localhost:50051", "node001", "ftp://node001:50051", "http://", "unix:/tmp/master.sock"] {
        let message = refused(WorkerOptions::new(url).unwrap());
        assert!(message.contains("master URL") && message.contains(url), "{url}: {message}");
    }
}

#[test]
fn slot_counts_out_of_range_are_refused() {
    for slots in [0, MAX_SLOTS + 1, 100_000_000] {
        let mut options = WorkerOptions::new("http://127.0.0.1:1").unwrap();
        options.slots = slots;
        let message = refused(options);
        assert!(message.contains("--slots") && message.contains(&slots.to_string()), "{slots}: {message}");
    }
}
