//! The binary form of stored state (checkpoints and the schemes' own state): bincode 2 in its
//! standard configuration, read with a bound on what decoding allocates that grows with the
//! bytes read, so a length misread from a damaged file whose checksum still matches (or a
//! crafted one) is an error, not an allocation of up to a GiB for a file of a few KiB. The bound
//! acts only on reading: the bytes written are the same.

use serde::Serialize;
use serde::de::DeserializeOwned;

/// At most this many bytes are allocated for what stored lengths announce, whatever the input.
pub const DECODE_LIMIT: usize = 1 << 30;

/// Bytes bincode counts against its limit per byte it reads, at most: it counts each value at
/// its size in memory, and the widest (a `u128`, 16 bytes) can take a single byte on disk. So
/// an input of `n` bytes that decodes never needs a limit above 16 `n`.
const COUNTED_PER_BYTE: usize = 16;

/// The smallest limit used, so that small inputs share one instantiation of the decoder.
const MIN_LIMIT: usize = 1 << 16;

/// Why stored bytes could not be written or read.
#[derive(Debug, thiserror::Error)]
pub enum CodecError {
    /// A value could not be encoded.
    #[error("cannot encode: {0}")]
    Encode(#[source] bincode::error::EncodeError),
    /// The bytes do not decode as what they should hold.
    #[error("{0}")]
    Decode(#[source] bincode::error::DecodeError),
    /// Bytes were left over after the value.
    #[error("{0} bytes left over")]
    Trailing(usize),
}

/// The bytes of `value`.
pub fn encode<T: Serialize>(value: &T) -> Result<Vec<u8>, CodecError> {
    bincode::serde::encode_to_vec(value, bincode::config::standard()).map_err(CodecError::Encode)
}

/// The value at the start of `bytes` and how many bytes it took.
///
/// What the stored lengths may make it allocate is bounded by about 64 times the length of
/// `bytes` (at least 64 KiB, at most [`DECODE_LIMIT`]): bincode allocates a string's or a byte
/// vector's whole announced length before reading it, so a limit fixed for the largest input
/// would let a few bytes announcing a GiB allocate one.
pub fn decode_prefix<T: DeserializeOwned>(bytes: &[u8]) -> Result<(T, usize), CodecError> {
    // bincode's limit is a type parameter: the smallest of a few, spaced by factors of 4 to keep
    // the decoder's copies few, that lets every input of this length that decodes decode.
    let needed = bytes.len().saturating_mul(COUNTED_PER_BYTE).max(MIN_LIMIT);
    macro_rules! within {
        ($($shift:literal)*) => {$(
            if needed <= 1 << $shift {
                return decode_limited::<T, { 1 << $shift }>(bytes);
            }
        )*};
    }
    within!(16 18 20 22 24 26 28);
    decode_limited::<T, DECODE_LIMIT>(bytes)
}

/// The value at the start of `bytes`, bincode allocating at most `LIMIT` bytes for it.
fn decode_limited<T: DeserializeOwned, const LIMIT: usize>(bytes: &[u8]) -> Result<(T, usize), CodecError> {
    let reading = bincode::config::standard().with_limit::<LIMIT>();
    bincode::serde::decode_from_slice(bytes, reading).map_err(CodecError::Decode)
}

/// The value `bytes` hold, all of them.
pub fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, CodecError> {
    let (value, used) = decode_prefix(bytes)?;
    match bytes.len() - used {
        0 => Ok(value),
        left => Err(CodecError::Trailing(left)),
    }
}
