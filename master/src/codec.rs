//! The binary form of stored state (checkpoints and the schemes' own state): bincode 2 in its
//! standard configuration, read with a bound on what decoding allocates, so a length misread
//! from a damaged file whose checksum still matches is an error, not an allocation that aborts
//! the process. The bound acts only on reading: the bytes written are the same.

use serde::Serialize;
use serde::de::DeserializeOwned;

/// At most this many bytes are allocated for what stored lengths announce.
pub const DECODE_LIMIT: usize = 1 << 30;

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
pub fn decode_prefix<T: DeserializeOwned>(bytes: &[u8]) -> Result<(T, usize), CodecError> {
    let reading = bincode::config::standard().with_limit::<DECODE_LIMIT>();
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
