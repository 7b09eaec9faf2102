//! Chromosome files: `{"topology": "board-nonad-100-20-1", "weights": [2041 numbers]}`.
//!
//! Weights are written in Rust's shortest round-trip form, so a written file reads back bit for
//! bit. Reading checks everything and reports typed errors; writing is atomic (temporary file in
//! the same directory, fsync, rename), so a crash never leaves half a chromosome behind.

use super::{Chromosome, ChromosomeError, Topology};
use serde::de::{self, Deserialize, Deserializer, MapAccess, Visitor};
use serde::ser::{Serialize, SerializeStruct, Serializer};
use std::ffi::OsString;
use std::fmt::{self, Write as _};
use std::fs::{self, File};
use std::io::{self, Write as _};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

/// The largest chromosome file read: the thesis's 2041 weights take about 50 KB as JSON, so this
/// leaves room for far larger networks and still refuses a device or a runaway file.
const MAX_FILE_BYTES: u64 = 64 << 20;

impl Chromosome {
    /// The chromosome as one line of JSON: `{"topology": "...", "weights": [...]}`.
    pub fn to_json(&self) -> String {
        let mut out = String::with_capacity(40 + 14 * self.weights().len());
        out.push_str("{\"topology\": \"");
        out.push_str(&self.topology().name());
        out.push_str("\", \"weights\": [");
        for (i, w) in self.weights().iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            // `{:?}` prints the shortest text that parses back to the same f32, in a form JSON
            // accepts (`0.5`, `-1.0`, `1e-7`). Writing to a String cannot fail.
            let _ = write!(out, "{w:?}");
        }
        out.push_str("]}");
        out
    }

    /// Parses and validates a chromosome from JSON text.
    pub fn from_json(text: &str) -> Result<Chromosome, ChromosomeError> {
        serde_json::from_str::<RawChromosome>(text).map_err(ChromosomeError::Json)?.validate()
    }

    /// Reads a chromosome file. Errors about the contents name the file.
    pub fn read(path: impl AsRef<Path>) -> Result<Chromosome, ChromosomeError> {
        let path = path.as_ref();
        let text = crate::files::read_text_at_most(path, MAX_FILE_BYTES).map_err(|source| ChromosomeError::Io {
            action: "read",
            path: path.to_path_buf(),
            source,
        })?;
        Chromosome::from_json(&text)
            .map_err(|e| ChromosomeError::InFile { path: path.to_path_buf(), source: Box::new(e) })
    }

    /// Writes the chromosome to `path` atomically, replacing any file there.
    pub fn write(&self, path: impl AsRef<Path>) -> Result<(), ChromosomeError> {
        let path = path.as_ref();
        let io_error = |source| ChromosomeError::Io { action: "write", path: path.to_path_buf(), source };
        let file_name =
            path.file_name().ok_or_else(|| io_error(io::Error::new(io::ErrorKind::InvalidInput, "no file name")))?;
        let dir = match path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => Path::new("."),
        };
        // Unique per process and call, so concurrent writers never share a temporary file.
        static WRITES: AtomicU64 = AtomicU64::new(0);
        let mut temp_name = OsString::from(".");
        temp_name.push(file_name);
        temp_name.push(format!(".tmp-{}-{}", std::process::id(), WRITES.fetch_add(1, Ordering::Relaxed)));
        let temp = dir.join(temp_name);
        let mut text = self.to_json();
        text.push('\n');
        let written = (|| {
            let mut file = File::create(&temp)?;
            file.write_all(text.as_bytes())?;
            file.sync_all()?;
            fs::rename(&temp, path)
        })();
        if let Err(source) = written {
            let _ = fs::remove_file(&temp);
            return Err(io_error(source));
        }
        // Make the rename durable too; some filesystems cannot sync a directory, which is harmless.
        if let Ok(dir) = File::open(dir) {
            let _ = dir.sync_all();
        }
        Ok(())
    }
}

/// A chromosome file as parsed, before validation: unknown and missing fields are recorded,
/// not raised as serde errors, so they get their own [`ChromosomeError`] variants.
#[derive(Default)]
struct RawChromosome {
    topology: Option<String>,
    weights: Option<Vec<f32>>,
    unknown: Vec<String>,
}

impl RawChromosome {
    fn validate(self) -> Result<Chromosome, ChromosomeError> {
        if !self.unknown.is_empty() {
            return Err(ChromosomeError::UnknownFields { names: self.unknown });
        }
        let name = self.topology.ok_or(ChromosomeError::MissingField { name: "topology" })?;
        let weights = self.weights.ok_or(ChromosomeError::MissingField { name: "weights" })?;
        let topology = name.parse::<Topology>().map_err(ChromosomeError::Shape)?;
        Chromosome::new(topology, weights)
    }
}

impl<'de> Deserialize<'de> for RawChromosome {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(RawVisitor)
    }
}

struct RawVisitor;

impl<'de> Visitor<'de> for RawVisitor {
    type Value = RawChromosome;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a chromosome object {\"topology\": \"...\", \"weights\": [...]}")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawChromosome, A::Error> {
        let mut raw = RawChromosome::default();
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "topology" if raw.topology.is_some() => {
                    return Err(de::Error::duplicate_field("topology"));
                }
                "weights" if raw.weights.is_some() => {
                    return Err(de::Error::duplicate_field("weights"));
                }
                "topology" => raw.topology = Some(map.next_value()?),
                "weights" => raw.weights = Some(map.next_value()?),
                _ => {
                    map.next_value::<de::IgnoredAny>()?;
                    raw.unknown.push(key);
                }
            }
        }
        Ok(raw)
    }
}

/// The file's object, so chromosomes can travel inside other serde messages.
impl Serialize for Chromosome {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut object = serializer.serialize_struct("Chromosome", 2)?;
        object.serialize_field("topology", &self.topology())?;
        object.serialize_field("weights", self.weights())?;
        object.end()
    }
}

/// Validated like [`Chromosome::from_json`]; errors carry the [`ChromosomeError`] message.
impl<'de> Deserialize<'de> for Chromosome {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        RawChromosome::deserialize(deserializer)?.validate().map_err(de::Error::custom)
    }
}
