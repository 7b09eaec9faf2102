//! A failure a worker reports is a claim the master checks by playing the task itself: a
//! forged one neither ends the run nor changes its results.

mod common;
use common::*;

use loa_engine::tasks::TaskFailure;
use loa_master::run::RunDir;
use std::time::Duration;

#[test]
fn a_forged_failure_is_played_by_the_master_and_the_run_goes_on_to_the_embedded_results() {
    let (_tmp, reference, cluster) = dirs();
    let config = tiny(1, 1);
    let expected = embedded(&config, &reference);
    let m = master(&config, &cluster, Duration::from_secs(60));
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let mut c = raw(m.addr, Some(TOKEN)).await;
        let mut liar = RawStream::register(&mut c, registration("liar", 0), 1).await;
        let task_id = liar.tasks(1).await.remove(0).id;
        let forged = Err(TaskFailure::Reported("forged: out of memory".into()));
        let receipt = liar.deliver(vec![loa_proto::convert::outcome_to_proto(task_id, &forged, 0)], 0).await.unwrap();
        assert_eq!((receipt.accepted, receipt.refused.len()), (1, 0), "{receipt:?}");
        liar.leave().await;
    });
    let honest = worker(m.addr, "honest", TOKEN);
    let summary = m.thread.join().unwrap();
    honest.stop().unwrap();
    assert_eq!(summary, expected);
    same_run(&reference, &cluster, 1);
    let log = String::from_utf8(read(&RunDir::new(&cluster).log())).unwrap();
    assert!(log.contains("0 failed, 1 reported failures played by the master (0 reproduced)"), "{log}");
}
