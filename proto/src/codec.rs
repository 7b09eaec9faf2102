//! The gRPC codec: prost's, except that each message's buffer is reserved whole before it is
//! encoded (issue 14).
//!
//! tonic encodes into a buffer of 8 KiB that grows as the message is written, and each growth
//! copies what is already there: a lease of a knockout (three networks of 8 KiB) was copied about
//! twice over on its way into the buffer. Reserving the message's encoded length first (a walk
//! over its fields, without copying) leaves one copy, the encoding itself. Decoding is prost's.

use prost::Message;
use std::marker::PhantomData;
use tonic::Status;
use tonic::codec::{Codec, EncodeBuf, Encoder};
use tonic_prost::ProstDecoder;

/// [`tonic_prost::ProstCodec`] with a [`ReservingEncoder`]; the generated client and server use
/// it for every call (`codec_path` in `build.rs`).
pub struct ReservingCodec<T, U>(PhantomData<(T, U)>);

impl<T, U> Default for ReservingCodec<T, U> {
    fn default() -> Self {
        ReservingCodec(PhantomData)
    }
}

impl<T, U> Clone for ReservingCodec<T, U> {
    fn clone(&self) -> Self {
        ReservingCodec(PhantomData)
    }
}

impl<T, U> Codec for ReservingCodec<T, U>
where
    T: Message + Send + 'static,
    U: Message + Default + Send + 'static,
{
    type Encode = T;
    type Decode = U;
    type Encoder = ReservingEncoder<T>;
    type Decoder = ProstDecoder<U>;

    fn encoder(&mut self) -> Self::Encoder {
        ReservingEncoder(PhantomData)
    }

    fn decoder(&mut self) -> Self::Decoder {
        ProstDecoder::default()
    }
}

/// Encodes a message with prost into a buffer first reserved to the message's encoded length.
pub struct ReservingEncoder<T>(PhantomData<T>);

impl<T: Message> Encoder for ReservingEncoder<T> {
    type Item = T;
    type Error = Status;

    fn encode(&mut self, item: T, buf: &mut EncodeBuf<'_>) -> Result<(), Status> {
        buf.reserve(item.encoded_len());
        item.encode(buf).map_err(|e| Status::internal(format!("encoding: {e}")))
    }
}
