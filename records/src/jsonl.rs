//! JSON-lines files: one record per line, each carrying the record format version.
//!
//! Writing: [`append_line`] adds a line and syncs it; [`write_lines`] replaces a whole file
//! atomically ([`write_atomically`]: temporary file, fsync, rename, directory fsync), so a crash
//! leaves the old file or the new one. [`truncate_after`] cuts a file back to a generation when a
//! run resumes from a checkpoint.
//!
//! Reading: [`read`] parses every line into a record. A last line cut off by a crash (no final
//! newline and not valid JSON) is reported in [`JsonLines::torn`] and skipped; any other bad line
//! is an error naming the file and the line. A line of a newer format version than
//! [`FORMAT_VERSION`] is refused; a line without a version was written before versions existed
//! and reads as version 1.

use serde::Serialize;
use serde::de::DeserializeOwned;
use std::fs::{self, File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

/// The record format version this build writes (the `format` field of every line).
pub const FORMAT_VERSION: u32 = 1;

/// A record as written: the format version first, then the record's own fields.
#[derive(Serialize)]
struct Versioned<'a, T> {
    format: u32,
    #[serde(flatten)]
    record: &'a T,
}

/// The text of one line for `record`, without the newline.
pub fn line<T: Serialize>(record: &T) -> std::io::Result<String> {
    serde_json::to_string(&Versioned { format: FORMAT_VERSION, record }).map_err(std::io::Error::other)
}

/// Appends one line for `record` to `path` (created if missing) and syncs it.
pub fn append_line<T: Serialize>(path: &Path, record: &T) -> std::io::Result<()> {
    let text = line(record)?;
    let mut file = OpenOptions::new().create(true).append(true).open(path)?;
    writeln!(file, "{text}")?;
    file.sync_data()
}

/// Replaces `path` with one line per record, atomically.
pub fn write_lines<T: Serialize>(path: &Path, records: &[T]) -> std::io::Result<()> {
    let mut text = String::new();
    for r in records {
        text.push_str(&line(r)?);
        text.push('\n');
    }
    write_atomically(path, text.as_bytes())
}

/// Writes `bytes` to `path` atomically: temporary file, fsync, rename, fsync of the directory.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = dir.join(format!(".{name}.tmp"));
    let written = File::create(&tmp).and_then(|mut file| {
        file.write_all(bytes)?;
        file.sync_all()
    });
    if let Err(e) = written {
        // A full disk keeps no half-written copy: the space goes back, the file is as it was.
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    fs::rename(&tmp, path)?;
    // Make the rename itself durable.
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// Keeps only the lines of a JSON-lines file whose `generation` is at most `generation` (used on
/// resume, so a resumed run's metrics continue from its checkpoint). A last line without a
/// generation (torn by a crash) is dropped; any other is an error naming its line, and the file
/// is left as it was (it was damaged some other way, and dropping it would lose records
/// silently). A missing file is fine.
pub fn truncate_after(path: &Path, generation: u64) -> std::io::Result<()> {
    truncate_by(path, "generation", generation)
}

/// [`truncate_after`] by the lines' `epoch`: keeps those of epochs up to `epoch`, or none for
/// `None` (not even epoch 0 is finished).
pub fn truncate_after_epoch(path: &Path, epoch: Option<u32>) -> std::io::Result<()> {
    match epoch {
        Some(epoch) => truncate_by(path, "epoch", u64::from(epoch)),
        None if path.exists() => write_atomically(path, b""),
        None => Ok(()),
    }
}

/// Keeps the lines whose number `key` is at most `max` (see [`truncate_after`]).
fn truncate_by(path: &Path, key: &str, max: u64) -> std::io::Result<()> {
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    let lines = BufReader::new(file).lines().collect::<std::io::Result<Vec<String>>>()?;
    let mut kept = String::new();
    for (i, line) in lines.iter().enumerate() {
        let value: Option<u64> =
            serde_json::from_str::<serde_json::Value>(line).ok().and_then(|v| v.get(key).and_then(|g| g.as_u64()));
        match value {
            Some(g) if g <= max => {
                kept.push_str(line);
                kept.push('\n');
            }
            Some(_) => {}
            None if i + 1 == lines.len() => {}
            None => {
                let why = format!("line {}: not a record with `{key}`, and not the last (torn) line", i + 1);
                return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, why));
            }
        }
    }
    write_atomically(path, kept.as_bytes())
}

/// The records of a JSON-lines file.
#[derive(Clone, Debug, PartialEq)]
pub struct JsonLines<T> {
    /// Every complete record, in file order.
    pub records: Vec<T>,
    /// The 1-based number of a last line that was cut off (a run still writing, or a crash) and
    /// skipped.
    pub torn: Option<usize>,
}

/// Why a records file could not be read.
#[derive(Debug)]
pub enum RecordError {
    /// The file could not be read.
    Io(PathBuf, std::io::Error),
    /// A line (1-based) is not JSON.
    NotJson {
        /// The file.
        path: PathBuf,
        /// The line number.
        line: usize,
        /// The parser's message.
        why: String,
    },
    /// A line has a format version this build does not read.
    Format {
        /// The file.
        path: PathBuf,
        /// The line number.
        line: usize,
        /// The version found.
        version: u64,
    },
    /// A line is JSON but not the expected record.
    Shape {
        /// The file.
        path: PathBuf,
        /// The line number.
        line: usize,
        /// What is wrong.
        why: String,
    },
}

impl std::fmt::Display for RecordError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RecordError::Io(p, e) => write!(f, "{}: {e}", p.display()),
            RecordError::NotJson { path, line, why } => write!(f, "{}:{line}: not JSON: {why}", path.display()),
            RecordError::Format { path, line, version } => write!(
                f,
                "{}:{line}: record format version {version}, this build reads up to {FORMAT_VERSION}",
                path.display()
            ),
            RecordError::Shape { path, line, why } => write!(f, "{}:{line}: {why}", path.display()),
        }
    }
}

impl std::error::Error for RecordError {}

/// Reads every record of the JSON-lines file at `path` (see the module documentation for torn
/// lines and versions). Blank lines are skipped.
pub fn read<T: DeserializeOwned>(path: &Path) -> Result<JsonLines<T>, RecordError> {
    let bytes = fs::read(path).map_err(|e| RecordError::Io(path.to_path_buf(), e))?;
    parse(&bytes, path)
}

/// Parses JSON-lines `bytes` (`path` names them in errors).
pub fn parse<T: DeserializeOwned>(bytes: &[u8], path: &Path) -> Result<JsonLines<T>, RecordError> {
    let text = String::from_utf8_lossy(bytes);
    let ends_with_newline = text.ends_with('\n');
    let lines: Vec<&str> = text.lines().collect();
    let mut records = Vec::with_capacity(lines.len());
    let mut torn = None;
    for (i, raw) in lines.iter().enumerate() {
        let number = i + 1;
        let raw = raw.trim();
        if raw.is_empty() {
            continue;
        }
        let value: serde_json::Value = match serde_json::from_str(raw) {
            Ok(v) => v,
            Err(_) if number == lines.len() && !ends_with_newline => {
                torn = Some(number);
                break;
            }
            Err(e) => return Err(RecordError::NotJson { path: path.to_path_buf(), line: number, why: e.to_string() }),
        };
        let version = match value.get("format") {
            None => 1,
            Some(v) => v.as_u64().ok_or_else(|| RecordError::Shape {
                path: path.to_path_buf(),
                line: number,
                why: format!("`format` must be a whole number, not {v}"),
            })?,
        };
        if version == 0 || version > u64::from(FORMAT_VERSION) {
            return Err(RecordError::Format { path: path.to_path_buf(), line: number, version });
        }
        // The record from the text, not the value: a value's objects sort their keys, and a
        // record may keep an object's order ([`crate::Figures`]).
        let record = serde_json::from_str(raw).map_err(|e| RecordError::Shape {
            path: path.to_path_buf(),
            line: number,
            why: within_line(&e),
        })?;
        records.push(record);
    }
    Ok(JsonLines { records, torn })
}

/// serde_json's message for an error in one line's text, placed by its column (the line is
/// the file's, which the error names already).
fn within_line(error: &serde_json::Error) -> String {
    let text = error.to_string();
    match text.rfind(" at line ") {
        Some(at) if error.line() > 0 => format!("{} (column {})", &text[..at], error.column()),
        _ => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Rec {
        generation: u64,
        x: f64,
    }

    #[test]
    fn lines_carry_the_format_first_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.jsonl");
        append_line(&path, &Rec { generation: 1, x: 0.5 }).unwrap();
        append_line(&path, &Rec { generation: 2, x: 1.5 }).unwrap();
        let text = fs::read_to_string(&path).unwrap();
        assert_eq!(text, "{\"format\":1,\"generation\":1,\"x\":0.5}\n{\"format\":1,\"generation\":2,\"x\":1.5}\n");
        let back: JsonLines<Rec> = read(&path).unwrap();
        assert_eq!(back.records, [Rec { generation: 1, x: 0.5 }, Rec { generation: 2, x: 1.5 }]);
        assert_eq!(back.torn, None);
        write_lines(&path, &back.records[..1]).unwrap();
        assert_eq!(read::<Rec>(&path).unwrap().records.len(), 1);
    }

    #[test]
    fn a_torn_last_line_is_reported_and_skipped_and_other_bad_lines_are_named() {
        let p = Path::new("runs/x/epochs.jsonl");
        let ok: JsonLines<Rec> = parse(b"{\"generation\":1,\"x\":2}\n{\"genera", p).unwrap();
        assert_eq!((ok.records.len(), ok.torn), (1, Some(2)));
        let err = parse::<Rec>(b"{\"generation\":1,\"x\":2}\nnot json\n{\"generation\":1,\"x\":2}\n", p).unwrap_err();
        assert!(err.to_string().starts_with("runs/x/epochs.jsonl:2: not JSON"), "{err}");
        let err = parse::<Rec>(b"{\"format\":9,\"generation\":1,\"x\":2}\n", p).unwrap_err();
        assert_eq!(err.to_string(), "runs/x/epochs.jsonl:1: record format version 9, this build reads up to 1");
        let err = parse::<Rec>(b"{\"generation\":\"one\",\"x\":2}\n", p).unwrap_err();
        assert!(err.to_string().starts_with("runs/x/epochs.jsonl:1: invalid type"), "{err}");
        assert!(err.to_string().ends_with("expected u64 (column 19)"), "{err}");
        // A line without a version predates versions: version 1.
        assert_eq!(parse::<Rec>(b"{\"generation\":1,\"x\":2}\n", p).unwrap().records.len(), 1);
    }

    #[test]
    fn truncation_keeps_earlier_generations_drops_a_torn_line_and_names_a_damaged_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("g.jsonl");
        fs::write(&path, "{\"generation\":1}\n{\"generation\":2}\n{\"generation\":3}\n{\"genera").unwrap();
        truncate_after(&path, 2).unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "{\"generation\":1}\n{\"generation\":2}\n");
        truncate_after(&dir.path().join("missing.jsonl"), 2).unwrap();
        // A damaged line before the last is named, and the file left as it was.
        let damaged = "{\"generation\":1}\nnot json\n{\"generation\":2}\n";
        fs::write(&path, damaged).unwrap();
        let err = truncate_after(&path, 2).unwrap_err();
        assert!(err.to_string().contains("line 2"), "{err}");
        assert_eq!(fs::read_to_string(&path).unwrap(), damaged);
    }

    #[test]
    fn truncation_by_epoch_keeps_the_lines_of_earlier_epochs_whatever_their_generation() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v.jsonl");
        let lines = "{\"epoch\":0,\"generation\":0}\n{\"epoch\":1,\"generation\":2}\n{\"epoch\":2,\"generation\":4}\n";
        fs::write(&path, lines).unwrap();
        // Generation 4 is checkpointed but epoch 2's benchmark is pending: its line goes.
        truncate_after_epoch(&path, Some(1)).unwrap();
        assert_eq!(
            fs::read_to_string(&path).unwrap(),
            "{\"epoch\":0,\"generation\":0}\n{\"epoch\":1,\"generation\":2}\n"
        );
        fs::write(&path, "{\"generation\":1}\n{\"epoch\":0}\n").unwrap();
        let err = truncate_after_epoch(&path, Some(1)).unwrap_err();
        assert!(err.to_string().contains("line 1: not a record with `epoch`"), "{err}");
        // Before the first benchmark no epoch is finished: no line stays.
        truncate_after_epoch(&path, None).unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "");
        truncate_after_epoch(&dir.path().join("missing.jsonl"), None).unwrap();
        assert!(!dir.path().join("missing.jsonl").exists());
    }
}
