//! The gRPC codec: prost's, with each message written and read through a contiguous slice
//! rather than field by field through tonic's buffers, where every write or read is a call into
//! `BytesMut`, not inlined. With thousands of workers delivering 64 outcomes a message, the
//! master's gRPC threads spend most of their time here; `loa-bench dispatch` measures what this
//! saves (docs/bench.md).

use crate::bounds::WireBounds;
use prost::Message;
use prost::bytes::{Buf, BufMut};
use std::cell::RefCell;
use std::marker::PhantomData;
use tonic::Status;
use tonic::codec::{Codec, DecodeBuf, Decoder, EncodeBuf, Encoder};

/// Largest message encoded into the thread's buffer first (bytes): a reply of 64 tasks of ids
/// (about 10 KiB) goes through it, one with the weights of two networks (16.4 KiB) does not.
pub const CONTIGUOUS_LIMIT: usize = 16 * 1024;

/// Prost's codec with a [`ContiguousEncoder`] and a [`ContiguousDecoder`]; the generated client
/// and server use it for every call (`codec_path` in `build.rs`).
#[derive(Clone, Default)]
pub struct ReservingCodec<T, U>(PhantomData<(T, U)>);

impl<T, U> Codec for ReservingCodec<T, U>
where
    T: Message + Send + 'static,
    U: Message + Default + WireBounds + Send + 'static,
{
    type Encode = T;
    type Decode = U;
    type Encoder = ContiguousEncoder<T>;
    type Decoder = ContiguousDecoder<U>;

    fn encoder(&mut self) -> Self::Encoder {
        ContiguousEncoder(PhantomData)
    }

    fn decoder(&mut self) -> Self::Decoder {
        ContiguousDecoder(PhantomData)
    }
}

/// Encodes a message with prost into tonic's buffer, reserved whole first (growing it copies),
/// through the thread's buffer up to [`CONTIGUOUS_LIMIT`] bytes.
pub struct ContiguousEncoder<T>(PhantomData<T>);

impl<T: Message> Encoder for ContiguousEncoder<T> {
    type Item = T;
    type Error = Status;

    fn encode(&mut self, item: T, buf: &mut EncodeBuf<'_>) -> Result<(), Status> {
        let len = item.encoded_len();
        buf.reserve(len);
        encode_into(&item, len, buf)
    }
}

thread_local! {
    /// Each thread's buffer for messages up to [`CONTIGUOUS_LIMIT`], kept between messages: a
    /// fresh one per message would cost an allocation of kilobytes, which glibc's malloc pays with a
    /// consolidation of its free lists.
    static SCRATCH: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// `item`'s encoding, `len` bytes, appended to `buf`: through this thread's scratch buffer up
/// to [`CONTIGUOUS_LIMIT`] bytes, and beyond (mostly weights: a few large fields) straight in.
fn encode_into(item: &impl Message, len: usize, buf: &mut impl BufMut) -> Result<(), Status> {
    let through_scratch = len <= CONTIGUOUS_LIMIT
        && SCRATCH.with(|scratch| {
            // Busy only if an encoding on this thread encoded another message (none does).
            let Ok(mut bytes) = scratch.try_borrow_mut() else { return false };
            bytes.clear();
            bytes.reserve(len);
            item.encode_raw(&mut *bytes);
            buf.put_slice(&bytes);
            true
        });
    if through_scratch {
        return Ok(());
    }
    item.encode(buf).map_err(|e| Status::internal(format!("encoding: {e}")))
}

/// The message that is all of `buf`, read from its first chunk if that holds all of it; its
/// repeated fields counted first ([`WireBounds`]), a message over their bounds refused as
/// `INVALID_ARGUMENT` before anything is built from it. Public so that tests can hand it bytes
/// exactly as a peer's message reaches it.
pub fn decode_from<U: Message + Default + WireBounds>(buf: &mut impl Buf) -> Result<U, Status> {
    let len = buf.remaining();
    let refuse = |e: crate::ProtoError| malformed(e.to_string());
    let decoded = if buf.chunk().len() == len {
        U::check_wire(buf.chunk()).map_err(refuse)?;
        let decoded = U::decode(buf.chunk());
        buf.advance(len);
        decoded
    } else {
        let whole = buf.copy_to_bytes(len);
        U::check_wire(&whole).map_err(refuse)?;
        U::decode(whole)
    };
    // The sender's fault, not the server's: INVALID_ARGUMENT, where tonic's prost codec says INTERNAL.
    decoded.map_err(|e| malformed(format!("the message does not decode: {e}")))
}

/// The metadata key the codec puts on its refusals, so a server can count them as malformed
/// requests: they are answered before any handler sees the call.
pub const MALFORMED_KEY: &str = "loa-malformed";

/// A refusal of a message that does not decode or is over its bounds, marked with [`MALFORMED_KEY`].
fn malformed(message: String) -> Status {
    let mut status = Status::invalid_argument(message);
    status.metadata_mut().insert(MALFORMED_KEY, tonic::metadata::MetadataValue::from_static("1"));
    status
}

/// Decodes a message with prost from the contiguous slice it arrives in, whole (through tonic's
/// buffer only if it ever arrives in pieces).
pub struct ContiguousDecoder<U>(PhantomData<U>);

impl<U: Message + Default + WireBounds> Decoder for ContiguousDecoder<U> {
    type Item = U;
    type Error = Status;

    fn decode(&mut self, buf: &mut DecodeBuf<'_>) -> Result<Option<U>, Status> {
        decode_from(buf).map(Some)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pb;
    use prost::bytes::{Bytes, BytesMut};

    impl WireBounds for pb::Entrant {}

    /// `message` encoded as the codec does, then decoded from the buffer in `pieces` parts.
    fn round_trip<M: Message + Default + WireBounds>(message: &M, pieces: usize) -> M {
        let mut buf = BytesMut::new();
        encode_into(message, message.encoded_len(), &mut buf).map_err(|e| e.to_string()).unwrap();
        assert_eq!(&buf[..], &message.encode_to_vec()[..], "prost's encoding, byte for byte");
        let bytes = buf.freeze();
        let step = bytes.len().div_ceil(pieces).max(1);
        let parts: Vec<Bytes> =
            (0..bytes.len()).step_by(step).map(|at| bytes.slice(at..(at + step).min(bytes.len()))).collect();
        let mut chained: Box<dyn Buf> = Box::new(Bytes::new());
        for part in parts {
            chained = Box::new(chained.chain(part));
        }
        let decoded = decode_from::<M>(&mut chained).map_err(|e| e.to_string()).unwrap();
        assert_eq!(chained.remaining(), 0, "the whole message read");
        decoded
    }

    #[test]
    fn messages_small_and_large_come_back_as_sent_whole_or_in_pieces() {
        let small = pb::WorkerMessage { worker_id: (7 << 32) | 3, outcomes: vec![], want: 64 };
        // Large: 100 KiB of weights, straight into the buffer.
        let weights: Vec<u8> = (0..100 * 1024).map(|i| (i * 31 % 251) as u8).collect();
        let large = pb::Entrant { serial: 9, topology: "t".into(), weights, ..Default::default() };
        // Medium: 10 KiB, through the thread's buffer after the small one (which it must not
        // carry along: the buffer is reused).
        let medium = pb::Entrant { weights: large.weights[..10 * 1024].to_vec(), ..large.clone() };
        assert!(large.encoded_len() > CONTIGUOUS_LIMIT && medium.encoded_len() < CONTIGUOUS_LIMIT);
        for pieces in [1, 3] {
            assert_eq!(round_trip(&small, pieces), small);
            assert_eq!(round_trip(&medium, pieces), medium);
            assert_eq!(round_trip(&small, pieces), small);
            assert_eq!(round_trip(&large, pieces), large);
        }
    }

    #[test]
    fn a_message_that_does_not_parse_is_refused_as_invalid_and_marked() {
        // Field 1 of MasterMessage (a task) claiming 16 bytes where 1 follows.
        let mut whole = Bytes::from_static(&[0x0a, 0x10, 0x01]);
        let refused = decode_from::<pb::MasterMessage>(&mut whole).expect_err("truncated");
        assert_eq!(refused.code(), tonic::Code::InvalidArgument, "{refused:?}");
        assert!(refused.message().contains("does not decode"), "{refused:?}");
        assert!(refused.metadata().get(MALFORMED_KEY).is_some(), "{refused:?}");
    }
}
