//! The caller's end of `Deliver` (issue 14): `Complete` as one long-lived stream, so a task costs
//! the master one message each way instead of a unary call with its own HTTP/2 stream, headers
//! and trailers.
//!
//! The master answers every request, in order, with what `Complete` would have returned, so
//! [`DeliveryStream::complete`] is a drop-in for the unary call: one request in flight at a
//! time, its answer or its status. After an error that is not an answer (the stream broke), the
//! stream is done: drop it and open another, or fall back to `Complete`.

use crate::pb;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Code, Status};

/// An open `Deliver` stream.
pub struct DeliveryStream {
    requests: mpsc::Sender<pb::CompleteRequest>,
    answers: tonic::Streaming<pb::DeliverReply>,
}

/// The request half of a stream about to be opened: give the [`ReceiverStream`] to
/// `MasterClient::deliver`, then the sender and the call's answers to [`DeliveryStream::new`].
pub fn request_channel() -> (mpsc::Sender<pb::CompleteRequest>, ReceiverStream<pb::CompleteRequest>) {
    // One request is in flight at a time; one slot is enough.
    let (sender, receiver) = mpsc::channel(1);
    (sender, ReceiverStream::new(receiver))
}

impl DeliveryStream {
    /// The stream made of `requests` (from [`request_channel`]) and the master's `answers`.
    pub fn new(
        requests: mpsc::Sender<pb::CompleteRequest>,
        answers: tonic::Streaming<pb::DeliverReply>,
    ) -> DeliveryStream {
        DeliveryStream { requests, answers }
    }

    /// Sends `request` and waits for its answer: what `Complete` would have returned, or the
    /// status it would have failed with. A status the master did not send as an answer means the
    /// stream is broken: drop it.
    pub async fn complete(&mut self, request: pb::CompleteRequest) -> Result<Answer, Status> {
        if self.requests.send(request).await.is_err() {
            return Err(Status::unavailable("the delivery stream is closed"));
        }
        match self.answers.message().await? {
            Some(pb::DeliverReply { answer: Some(pb::deliver_reply::Answer::Reply(reply)) }) => Ok(Ok(reply)),
            Some(pb::DeliverReply { answer: Some(pb::deliver_reply::Answer::Error(e)) }) => {
                Ok(Err(Status::new(Code::from_i32(e.code), e.message)))
            }
            Some(pb::DeliverReply { answer: None }) => {
                Err(Status::internal("Deliver: an answer with neither a reply nor an error"))
            }
            None => Err(Status::unavailable("the master ended the delivery stream")),
        }
    }
}

/// One request's answer: `Complete`'s reply, or the status it would have failed with (the
/// stream itself is fine).
pub type Answer = Result<pb::CompleteReply, Status>;
