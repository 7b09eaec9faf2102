//! The caller's end of `Deliver` and `DeliverBatches` (issue 14): `Complete` as one long-lived
//! stream, so a task costs the master one message each way instead of a unary call with its own
//! HTTP/2 stream, headers and trailers; and, with batches, one message each way for all the
//! outcomes a worker reports together.
//!
//! The master answers every request (or batch), in order, with what `Complete` would have
//! returned, so [`DeliveryStream::complete`] is a drop-in for the unary call: one request in
//! flight at a time, its answer or its status. After an error that is not an answer (the stream
//! broke), the stream is done: drop it and open another, or fall back to `Complete`.

use crate::pb;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Code, Status};

/// An open stream of requests `Q` answered in order by replies `R`, one in flight at a time.
pub struct Turns<Q, R> {
    requests: mpsc::Sender<Q>,
    answers: tonic::Streaming<R>,
}

/// An open `Deliver` stream.
pub type DeliveryStream = Turns<pb::CompleteRequest, pb::DeliverReply>;

/// An open `DeliverBatches` stream.
pub type BatchStream = Turns<pb::DeliveryBatch, pb::DeliveryBatchReply>;

/// The request half of a stream about to be opened: give the [`ReceiverStream`] to
/// `MasterClient::deliver` (or `deliver_batches`), then the sender and the call's answers to
/// [`Turns::new`].
pub fn request_channel<Q>() -> (mpsc::Sender<Q>, ReceiverStream<Q>) {
    // One request is in flight at a time; one slot is enough.
    let (sender, receiver) = mpsc::channel(1);
    (sender, ReceiverStream::new(receiver))
}

impl<Q, R> Turns<Q, R> {
    /// The stream made of `requests` (from [`request_channel`]) and the master's `answers`.
    pub fn new(requests: mpsc::Sender<Q>, answers: tonic::Streaming<R>) -> Turns<Q, R> {
        Turns { requests, answers }
    }

    /// Sends `request` and waits for its reply; an error means the stream is broken.
    async fn turn(&mut self, request: Q) -> Result<R, Status> {
        if self.requests.send(request).await.is_err() {
            return Err(Status::unavailable("the delivery stream is closed"));
        }
        self.answers.message().await?.ok_or_else(|| Status::unavailable("the master ended the delivery stream"))
    }
}

impl DeliveryStream {
    /// Sends `request` and waits for its answer: what `Complete` would have returned, or the
    /// status it would have failed with. A status the master did not send as an answer means the
    /// stream is broken: drop it.
    pub async fn complete(&mut self, request: pb::CompleteRequest) -> Result<Answer, Status> {
        answer(self.turn(request).await?)
    }
}

impl BatchStream {
    /// Sends `requests` as one batch and waits for their answers, one per request in order (each
    /// what `Complete` would have returned for it, or the status it would have failed with). A
    /// status that is not an answer, or a reply with another number of answers, means the
    /// stream is broken: drop it.
    ///
    /// With `wait_ms` above 0, a master that leases nothing after the last request to a worker
    /// left with no task may hold the reply that long for the next tasks (see `DeliveryBatch`).
    pub async fn complete_all(
        &mut self,
        requests: Vec<pb::CompleteRequest>,
        wait_ms: u32,
    ) -> Result<Vec<Answer>, Status> {
        let sent = requests.len();
        let reply = self.turn(pb::DeliveryBatch { requests, wait_ms }).await?;
        if reply.answers.len() != sent {
            return Err(Status::internal(format!(
                "DeliverBatches: {} answers to a batch of {sent}",
                reply.answers.len()
            )));
        }
        reply.answers.into_iter().map(answer).collect()
    }
}

/// What one `DeliverReply` says: `Complete`'s reply, or the status it would have failed with.
fn answer(reply: pb::DeliverReply) -> Result<Answer, Status> {
    match reply.answer {
        Some(pb::deliver_reply::Answer::Reply(reply)) => Ok(Ok(reply)),
        Some(pb::deliver_reply::Answer::Error(e)) => Ok(Err(Status::new(Code::from_i32(e.code), e.message))),
        None => Err(Status::internal("Deliver: an answer with neither a reply nor an error")),
    }
}

/// One request's answer: `Complete`'s reply, or the status it would have failed with (the
/// stream itself is fine).
pub type Answer = Result<pb::CompleteReply, Status>;
