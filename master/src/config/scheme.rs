//! The `[selection]` table: the scheme's name and its settings as written, which only the scheme
//! parses ([`crate::selection::build`]), so a new scheme needs no change here.

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Selection settings.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SelectionConfig {
    /// The scheme.
    pub scheme: SchemeConfig,
}

/// A selection scheme by name, with its settings. In TOML: `scheme = "NAME"` for a scheme
/// without settings, or a `[selection.scheme.NAME]` table.
#[derive(Clone, Debug, PartialEq)]
pub struct SchemeConfig {
    /// The scheme's name, e.g. `mu-plus-lambda`.
    pub name: String,
    /// Its settings (empty for a scheme without any).
    pub settings: toml::Table,
}

impl SchemeConfig {
    /// The scheme `name` with `settings`.
    pub fn new(name: &str, settings: toml::Table) -> SchemeConfig {
        SchemeConfig { name: name.to_owned(), settings }
    }
}

impl Default for SchemeConfig {
    /// The thesis's knockout.
    fn default() -> Self {
        SchemeConfig::new("knockout", toml::Table::new())
    }
}

impl Serialize for SchemeConfig {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if self.settings.is_empty() {
            serializer.serialize_str(&self.name)
        } else {
            std::collections::BTreeMap::from([(&self.name, &self.settings)]).serialize(serializer)
        }
    }
}

impl<'de> Deserialize<'de> for SchemeConfig {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<SchemeConfig, D::Error> {
        match toml::Value::deserialize(deserializer)? {
            toml::Value::String(name) => Ok(SchemeConfig { name, settings: toml::Table::new() }),
            toml::Value::Table(table) if table.len() == 1 => match table.into_iter().next() {
                Some((name, toml::Value::Table(settings))) => Ok(SchemeConfig { name, settings }),
                _ => Err(D::Error::custom("a [selection.scheme.NAME] table must hold the scheme's settings")),
            },
            _ => Err(D::Error::custom("expected `scheme = \"NAME\"` or one [selection.scheme.NAME] table")),
        }
    }
}
