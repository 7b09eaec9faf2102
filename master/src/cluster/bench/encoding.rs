//! The codec's share: what encoding a reply of leased tasks costs a task, on one thread, with
//! the codec's one pass ([`loa_proto::codec::encode_to`]) and as prost alone wrote it before
//! (issue 14), both timed in the same run.

use loa_proto::convert::{Sending, task_to_proto_sending};
use loa_proto::pb;
use prost::Message;
use prost::bytes::{BufMut, BytesMut};
use std::time::Instant;

/// Tasks encoded each way in a round (in replies of the batch's answers).
const TASKS: usize = 64_000;

/// Rounds, alternating the two ways; the best round of each counts.
const ROUNDS: usize = 7;

/// Microseconds a task of encoding a `DeliveryBatchReply` of `batch` answers, each accepting an
/// outcome and leasing one knockout of four networks by id (the repeat workload's reply): with
/// the codec, then with prost as the codec called it before (the message's length measured
/// twice, then the message written into the thread's buffer and copied in).
///
/// # Errors
/// If the two ways write different bytes.
pub fn reply_microseconds_per_task(batch: usize, depth: u32) -> Result<(f64, f64), String> {
    let task = super::workload::tournament(0, depth);
    let answers = (0..batch.max(1) as u64)
        .map(|id| pb::DeliverReply {
            answer: Some(pb::deliver_reply::Answer::Reply(pb::CompleteReply {
                completion: pb::Completion::Accepted as i32,
                tasks: vec![task_to_proto_sending(id << 20, &task, &mut |_| Sending::Id, true)],
            })),
        })
        .collect();
    let reply = pb::DeliveryBatchReply { answers };
    let mut out = BytesMut::new();
    loa_proto::codec::encode_to(&reply, &mut out).map_err(|e| e.to_string())?;
    if out[..] != reply.encode_to_vec()[..] {
        return Err("the codec's reply differs from prost's".into());
    }
    let mut scratch = Vec::new();
    // Alternately, the best of several rounds each: the stubs' process may still be exiting.
    let replies = TASKS.div_ceil(reply.answers.len());
    let mut time = |encode: &mut dyn FnMut(&mut BytesMut)| {
        let begun = Instant::now();
        for _ in 0..replies {
            out.clear();
            encode(&mut out);
            std::hint::black_box(&out[..]);
        }
        begun.elapsed().as_secs_f64() * 1e6 / (replies * reply.answers.len()) as f64
    };
    let (mut one_pass, mut prost) = (f64::INFINITY, f64::INFINITY);
    for _ in 0..ROUNDS {
        // Into a buffer that grows, which cannot fail (checked above).
        one_pass = one_pass.min(time(&mut |out| {
            let _ = loa_proto::codec::encode_to(&reply, out);
        }));
        prost = prost.min(time(&mut |out| {
            out.reserve(reply.encoded_len());
            let len = reply.encoded_len();
            scratch.clear();
            scratch.reserve(len);
            reply.encode_raw(&mut scratch);
            out.put_slice(&scratch);
        }));
    }
    Ok((one_pass, prost))
}
