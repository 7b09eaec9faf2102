//! Requests over the master's bounds, sent by hand: one larger than any legal request, and ones
//! whose repeated fields hold more elements than a legal message. Each is refused with a status
//! naming the bound, and the master goes on serving.

use loa_master::cluster::{self, ClusterOptions};
use loa_master::scheduler::Scheduler;
use loa_proto::bounds::MAX_REQUEST_BYTES;
use loa_proto::pb::{self, master_client::MasterClient};
use std::sync::Arc;
use std::time::Duration;
use tonic::Code;

fn registration(name: &str) -> pb::RegisterRequest {
    pb::RegisterRequest { protocol: loa_proto::PROTOCOL_VERSION, name: name.into(), slots: 1, ..Default::default() }
}

fn failure(task_id: u64) -> pb::Outcome {
    pb::Outcome { task_id, result: Some(pb::outcome::Result::Failure("no".into())), leased_to: 0 }
}

#[test]
fn requests_over_the_bounds_are_refused_by_name_and_the_master_serves_on() {
    let scheduler = Arc::new(Scheduler::new(Duration::from_secs(30)));
    let server = cluster::serve(&scheduler, &ClusterOptions::new("127.0.0.1:0".parse().unwrap(), None)).unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let mut client = MasterClient::connect(format!("http://{}", server.addr)).await.unwrap();

        // Larger than any legal request: 40 000 ids of 20 bytes.
        let ids = vec![pb::ChromosomeId { high: 1, low: 2 }; 40_000];
        let huge = pb::FetchChromosomesRequest { task_ids: vec![], ids };
        assert!(prost::Message::encoded_len(&huge) > MAX_REQUEST_BYTES);
        let status = client.fetch_chromosomes(huge).await.unwrap_err();
        assert_eq!(status.code(), Code::OutOfRange, "{status:?}");
        assert!(status.message().contains(&MAX_REQUEST_BYTES.to_string()), "{status:?}");

        // Small, but with more task ids than a legal fetch: refused before the service sees it
        // (whose own check words it differently).
        let many = pb::FetchChromosomesRequest { task_ids: (0..65).collect(), ids: vec![] };
        let status = client.fetch_chromosomes(many).await.unwrap_err();
        assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
        assert!(status.message().starts_with("task_ids: more than 64 elements"), "{status:?}");

        // A worker's stream delivering 65 outcomes at once: refused unread, the stream ends.
        let flooder = client.register(registration("flooder")).await.unwrap().into_inner();
        let worker_id = flooder.worker_id;
        let (send, outbound) = tokio::sync::mpsc::channel(4);
        send.send(pb::WorkerMessage { worker_id, outcomes: vec![], want: 0 }).await.unwrap();
        let outbound = tokio_stream::wrappers::ReceiverStream::new(outbound);
        let mut inbound =
            client.work(loa_proto::with_credential(outbound, &flooder.credential)).await.unwrap().into_inner();
        send.send(pb::WorkerMessage { worker_id: 0, outcomes: (0..65).map(failure).collect(), want: 0 }).await.unwrap();
        let status = loop {
            match tokio::time::timeout(Duration::from_secs(20), inbound.message()).await.expect("an answer") {
                Ok(Some(_)) => continue,
                Ok(None) => panic!("the stream ended without a status"),
                Err(status) => break status,
            }
        };
        assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
        assert!(status.message().contains("outcomes: more than 64 elements"), "{status:?}");

        // The master serves on.
        let again = client.register(registration("honest")).await.unwrap().into_inner();
        assert_ne!(again.worker_id, worker_id);
        let fine = pb::FetchChromosomesRequest { task_ids: vec![1], ids: vec![] };
        let fine = loa_proto::with_credential(fine, &again.credential);
        assert_eq!(client.fetch_chromosomes(fine).await.unwrap().into_inner().chromosomes, vec![]);
    });
    scheduler.close();
    drop(server);
}
