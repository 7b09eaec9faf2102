//! Reading files a user names, bounded: a path to a device or a runaway file (`/dev/zero`, a
//! log given by mistake) must end in an error, not in reading until memory runs out.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// Reads `path` whole, or fails with [`io::ErrorKind::InvalidData`] once it holds more than
/// `limit` bytes (without reading further than one byte past it).
pub fn read_at_most(path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    File::open(path)?.take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("larger than {limit} bytes, the most it may be"),
        ));
    }
    Ok(bytes)
}

/// [`read_at_most`] for a text file: UTF-8 or an [`io::ErrorKind::InvalidData`] error.
pub fn read_text_at_most(path: &Path, limit: u64) -> io::Result<String> {
    String::from_utf8(read_at_most(path, limit)?)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, format!("not UTF-8 text: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_at_the_limit_is_read_and_one_past_it_is_refused() {
        let dir = std::env::temp_dir().join(format!("loa-files-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("ten");
        std::fs::write(&path, b"0123456789").unwrap();
        assert_eq!(read_at_most(&path, 10).unwrap(), b"0123456789");
        let refused = read_at_most(&path, 9).unwrap_err();
        assert_eq!(refused.kind(), io::ErrorKind::InvalidData);
        assert!(refused.to_string().contains("larger than 9 bytes"), "{refused}");
        std::fs::write(&path, [0xff, 0xfe]).unwrap();
        assert_eq!(read_text_at_most(&path, 10).unwrap_err().kind(), io::ErrorKind::InvalidData);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn an_endless_device_ends_in_an_error() {
        let refused = read_at_most(Path::new("/dev/zero"), 1 << 20).unwrap_err();
        assert_eq!(refused.kind(), io::ErrorKind::InvalidData);
    }
}
