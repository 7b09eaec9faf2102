//! The `[selection]` table: the scheme's name and its settings as written, which only the scheme
//! parses ([`crate::selection::build`]), so a new scheme needs no change here.

use super::Named;
use serde::{Deserialize, Serialize};

/// Selection settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SelectionConfig {
    /// The scheme.
    pub scheme: SchemeConfig,
}

/// A selection scheme by name, with its settings: `scheme = "NAME"` for a scheme without
/// settings, or a `[selection.scheme.NAME]` table.
pub type SchemeConfig = Named;

impl Default for SelectionConfig {
    /// The thesis's knockout.
    fn default() -> Self {
        SelectionConfig { scheme: Named::new("knockout", toml::Table::new()) }
    }
}
