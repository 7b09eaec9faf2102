//! A method's figures: the numbers (and a few texts) a selection or learning method reports
//! about a generation, by name, in the method's own order. The readers of a run (the log, the
//! dashboard, `analysis`) show and chart them without knowing which method made them.
//!
//! [`Figures`] is written as a JSON object in its own order and read from any JSON object whose
//! values are numbers, texts, nulls or objects, so a line read and written again is the same
//! text: integers stay integers, `1.0` stays `1.0`, nulls stay, keys keep their order (floats
//! are read as serde_json reads every record's, to within a unit in the last place).

use serde::de::{self, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::collections::HashSet;
use std::fmt;

/// One figure's value.
#[derive(Clone, Debug, PartialEq)]
pub enum Figure {
    /// A number with a fraction (a JSON number with a point or an exponent). A number that is
    /// not finite is written as `null`, as serde_json writes every float, and reads back as
    /// [`Figure::Absent`].
    Number(f64),
    /// A whole number (a JSON integer; any in the range of `i64` or `u64`).
    Whole(i128),
    /// A text, e.g. a unit or the name of a criterion.
    Text(String),
    /// A figure the method reports with no value this time (JSON `null`).
    Absent,
    /// Figures grouped under one name (a JSON object), e.g. a search distribution's.
    Group(Figures),
}

/// A method's figures: named values in the method's order, names unique (see the module
/// documentation).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Figures(Vec<(String, Figure)>);

impl Figures {
    /// No figures.
    pub fn new() -> Figures {
        Figures::default()
    }

    /// These figures with `name` set to `value`: in its place if the name is taken, else last.
    pub fn with(mut self, name: impl Into<String>, value: impl Into<Figure>) -> Figures {
        self.set(name, value);
        self
    }

    /// These figures with `name` set to `value` if there is one, else as they are (the figure
    /// is left out, not written as `null`).
    pub fn with_some<T: Into<Figure>>(self, name: impl Into<String>, value: Option<T>) -> Figures {
        match value {
            Some(value) => self.with(name, value),
            None => self,
        }
    }

    /// These figures followed by `more`'s (a name already here takes its value from `more`, in
    /// its place here).
    pub fn with_all(mut self, more: Figures) -> Figures {
        for (name, value) in more.0 {
            self.set(name, value);
        }
        self
    }

    /// Sets `name` to `value`: in its place if the name is taken, else last.
    pub fn set(&mut self, name: impl Into<String>, value: impl Into<Figure>) {
        let (name, value) = (name.into(), value.into());
        match self.0.iter_mut().find(|(n, _)| *n == name) {
            Some(slot) => slot.1 = value,
            None => self.0.push((name, value)),
        }
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// How many there are at the top level (a group counts as one).
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// The top-level figures with their names, in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Figure)> {
        self.0.iter().map(|(name, value)| (name.as_str(), value))
    }

    /// The figure at `path`: a name, or names through groups joined by dots (`group.name`).
    /// A name that holds a dot itself is found whole first.
    pub fn get(&self, path: &str) -> Option<&Figure> {
        if let Some((_, value)) = self.0.iter().find(|(name, _)| name == path) {
            return Some(value);
        }
        let (group, rest) = path.split_once('.')?;
        match self.get(group)? {
            Figure::Group(inner) => inner.get(rest),
            _ => None,
        }
    }

    /// The number at `path` (see [`Figures::get`]), a whole number as a float too.
    pub fn number(&self, path: &str) -> Option<f64> {
        self.get(path)?.as_number()
    }

    /// The whole number at `path` (see [`Figures::get`]).
    pub fn whole(&self, path: &str) -> Option<i128> {
        match self.get(path)? {
            Figure::Whole(n) => Some(*n),
            _ => None,
        }
    }

    /// The text at `path` (see [`Figures::get`]).
    pub fn text(&self, path: &str) -> Option<&str> {
        match self.get(path)? {
            Figure::Text(text) => Some(text),
            _ => None,
        }
    }

    /// Every figure that is not a group, with its path (groups' names and theirs joined by
    /// dots), in order.
    pub fn leaves(&self) -> Vec<(String, &Figure)> {
        let mut out = Vec::new();
        self.push_leaves("", &mut out);
        out
    }

    fn push_leaves<'a>(&'a self, prefix: &str, out: &mut Vec<(String, &'a Figure)>) {
        for (name, value) in &self.0 {
            let path = if prefix.is_empty() { name.clone() } else { format!("{prefix}.{name}") };
            match value {
                Figure::Group(inner) => inner.push_leaves(&path, out),
                leaf => out.push((path, leaf)),
            }
        }
    }

    /// Every number (whole ones too) with its path, in order (see [`Figures::leaves`]).
    pub fn numbers(&self) -> Vec<(String, f64)> {
        self.leaves().into_iter().filter_map(|(path, value)| Some((path, value.as_number()?))).collect()
    }
}

impl Figure {
    /// The value as a number, if it is one (a whole number too).
    pub fn as_number(&self) -> Option<f64> {
        match self {
            Figure::Number(x) => Some(*x),
            Figure::Whole(n) => Some(*n as f64),
            _ => None,
        }
    }
}

/// `x` to 4 significant digits, without trailing zeros: `0.2474`, `112.2`, `3.142e-5`.
fn short(x: f64) -> String {
    if !x.is_finite() || x == 0.0 {
        return x.to_string();
    }
    let magnitude = x.abs().log10().floor();
    if !(-3.0..5.0).contains(&magnitude) {
        let text = format!("{x:.3e}");
        let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
        return format!("{}e{exponent}", trimmed(mantissa));
    }
    let decimals = (3.0 - magnitude).max(0.0) as usize;
    trimmed(&format!("{x:.decimals$}")).to_owned()
}

/// A decimal's text without the zeros that end its fraction (and without a bare point).
fn trimmed(text: &str) -> &str {
    if text.contains('.') { text.trim_end_matches('0').trim_end_matches('.') } else { text }
}

/// A number to 4 significant digits, a whole number and a text as they are, an absent value as
/// `–`, a group as its figures in parentheses.
impl fmt::Display for Figure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Figure::Number(x) => f.write_str(&short(*x)),
            Figure::Whole(n) => write!(f, "{n}"),
            Figure::Text(text) => f.write_str(text),
            Figure::Absent => f.write_str("–"),
            Figure::Group(inner) => write!(f, "({inner})"),
        }
    }
}

/// Every leaf as `path value`, joined by commas: `unit points, best 0.5, group.step 0.2474`.
impl fmt::Display for Figures {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (path, value)) in self.leaves().into_iter().enumerate() {
            let comma = if i == 0 { "" } else { ", " };
            write!(f, "{comma}{path} {value}")?;
        }
        Ok(())
    }
}

impl From<f64> for Figure {
    fn from(x: f64) -> Figure {
        Figure::Number(x)
    }
}

impl From<u32> for Figure {
    fn from(n: u32) -> Figure {
        Figure::Whole(n.into())
    }
}

impl From<u64> for Figure {
    fn from(n: u64) -> Figure {
        Figure::Whole(n.into())
    }
}

impl From<i64> for Figure {
    fn from(n: i64) -> Figure {
        Figure::Whole(n.into())
    }
}

impl From<usize> for Figure {
    fn from(n: usize) -> Figure {
        // usize is at most 64 bits on every target Rust supports.
        Figure::Whole(n as i128)
    }
}

impl From<&str> for Figure {
    fn from(text: &str) -> Figure {
        Figure::Text(text.to_owned())
    }
}

impl From<String> for Figure {
    fn from(text: String) -> Figure {
        Figure::Text(text)
    }
}

impl From<Figures> for Figure {
    fn from(group: Figures) -> Figure {
        Figure::Group(group)
    }
}

/// `None` is a figure with no value ([`Figure::Absent`], JSON `null`).
impl<T: Into<Figure>> From<Option<T>> for Figure {
    fn from(value: Option<T>) -> Figure {
        value.map_or(Figure::Absent, Into::into)
    }
}

impl Serialize for Figures {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (name, value) in &self.0 {
            map.serialize_entry(name, value)?;
        }
        map.end()
    }
}

impl Serialize for Figure {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Figure::Number(x) => serializer.serialize_f64(*x),
            Figure::Whole(n) => match (i64::try_from(*n), u64::try_from(*n)) {
                (Ok(n), _) => serializer.serialize_i64(n),
                (_, Ok(n)) => serializer.serialize_u64(n),
                _ => serializer.serialize_i128(*n),
            },
            Figure::Text(text) => serializer.serialize_str(text),
            Figure::Absent => serializer.serialize_unit(),
            Figure::Group(inner) => inner.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for Figures {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Figures, D::Error> {
        deserializer.deserialize_map(FiguresVisitor)
    }
}

impl<'de> Deserialize<'de> for Figure {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Figure, D::Error> {
        deserializer.deserialize_any(FigureVisitor)
    }
}

struct FiguresVisitor;

impl<'de> Visitor<'de> for FiguresVisitor {
    type Value = Figures;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object of figures")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Figures, A::Error> {
        let mut figures = Vec::with_capacity(map.size_hint().unwrap_or(0).min(64));
        // A set, so that a line of many names (a damaged file) is not read in quadratic time.
        let mut names = HashSet::new();
        while let Some((name, value)) = map.next_entry::<String, Figure>()? {
            if !names.insert(name.clone()) {
                return Err(de::Error::custom(format!("the figure `{name}` twice")));
            }
            figures.push((name, value));
        }
        Ok(Figures(figures))
    }
}

struct FigureVisitor;

impl<'de> Visitor<'de> for FigureVisitor {
    type Value = Figure;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a figure: a number, a text, null or an object of figures")
    }

    fn visit_f64<E: de::Error>(self, x: f64) -> Result<Figure, E> {
        Ok(Figure::Number(x))
    }

    fn visit_i64<E: de::Error>(self, n: i64) -> Result<Figure, E> {
        Ok(Figure::Whole(n.into()))
    }

    fn visit_u64<E: de::Error>(self, n: u64) -> Result<Figure, E> {
        Ok(Figure::Whole(n.into()))
    }

    fn visit_i128<E: de::Error>(self, n: i128) -> Result<Figure, E> {
        Ok(Figure::Whole(n))
    }

    fn visit_u128<E: de::Error>(self, n: u128) -> Result<Figure, E> {
        i128::try_from(n).map(Figure::Whole).map_err(|_| E::custom(format!("the whole number {n} is too large")))
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Figure, E> {
        Ok(Figure::Text(text.to_owned()))
    }

    fn visit_string<E: de::Error>(self, text: String) -> Result<Figure, E> {
        Ok(Figure::Text(text))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Figure, E> {
        Ok(Figure::Absent)
    }

    fn visit_none<E: de::Error>(self) -> Result<Figure, E> {
        Ok(Figure::Absent)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Figure, D::Error> {
        Figure::deserialize(deserializer)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Figure, A::Error> {
        FiguresVisitor.visit_map(map).map(Figure::Group)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Figures as a method might write them: a nested group with a whole number and a text, a
    /// `1.0`, a null, and extremes of the whole numbers. Their floats are ones serde_json reads
    /// exactly (`tests/lines.rs` has runs' own lines).
    const LINES: [&str; 3] = [
        r#"{"unit":"points","best":0.5,"mean":0.5,"vs_fixed":0.5,"group":{"step":0.3,"size":256,"count":1,"why":"stalled"}}"#,
        r#"{"unit":"points","best":1.0,"mean":0.25,"vs_fixed":null,"rung":0}"#,
        r#"{"z":-3,"a":{"b":{"c":1e-7}},"big":18446744073709551615,"low":-9223372036854775808,"t":""}"#,
    ];

    #[test]
    fn lines_read_and_written_again_are_the_same_text() {
        for line in LINES {
            let figures: Figures = serde_json::from_str(line).unwrap();
            assert_eq!(serde_json::to_string(&figures).unwrap(), line);
        }
        let figures: Figures = serde_json::from_str(LINES[2]).unwrap();
        assert_eq!(figures.whole("big"), Some(u64::MAX.into()));
        assert_eq!(figures.whole("low"), Some(i64::MIN.into()));
    }

    #[test]
    fn whole_numbers_floats_and_nulls_keep_their_kinds() {
        let figures: Figures = serde_json::from_str(LINES[0]).unwrap();
        assert_eq!(figures.get("best"), Some(&Figure::Number(0.5)));
        assert_eq!(figures.get("group.size"), Some(&Figure::Whole(256)));
        assert_eq!(figures.text("group.why"), Some("stalled"));
        let figures: Figures = serde_json::from_str(LINES[1]).unwrap();
        assert_eq!(figures.get("best"), Some(&Figure::Number(1.0)));
        assert_eq!(figures.get("vs_fixed"), Some(&Figure::Absent));
        assert_eq!((figures.number("vs_fixed"), figures.whole("rung")), (None, Some(0)));
        assert_eq!(figures.get("mean_step"), None);
    }

    #[test]
    fn the_builder_writes_what_a_derived_struct_would() {
        let group = Figures::new().with("step", 0.3).with("size", 256u32).with("count", 1u32);
        let group = group.with_some("why", Some("stalled"));
        let figures = Figures::new()
            .with("unit", "points")
            .with("best", 0.5)
            .with("mean", 0.5)
            .with("vs_fixed", Some(0.5))
            .with_some("rung", None::<u32>)
            .with("group", group);
        assert_eq!(serde_json::to_string(&figures).unwrap(), LINES[0]);
        let none = Figures::new().with("vs_fixed", None::<f64>);
        assert_eq!(serde_json::to_string(&none).unwrap(), r#"{"vs_fixed":null}"#);
        // A name set again keeps its place.
        let again = figures.clone().with("unit", "benchmark-score").with_all(Figures::new().with("best", 1.0));
        assert_eq!(again.iter().map(|(n, _)| n).collect::<Vec<_>>(), ["unit", "best", "mean", "vs_fixed", "group"]);
        assert_eq!((again.text("unit"), again.number("best")), (Some("benchmark-score"), Some(1.0)));
    }

    #[test]
    fn paths_reach_into_groups_and_numbers_are_listed_with_theirs() {
        let figures: Figures = serde_json::from_str(LINES[0]).unwrap();
        assert_eq!(figures.number("group.step"), Some(0.3));
        assert_eq!(figures.number("group.size"), Some(256.0));
        assert_eq!(figures.number("group.nothing"), None);
        assert_eq!(figures.number("unit.step"), None);
        let numbers: Vec<String> = figures.numbers().into_iter().map(|(path, _)| path).collect();
        assert_eq!(numbers, ["best", "mean", "vs_fixed", "group.step", "group.size", "group.count"]);
        let dotted = Figures::new().with("a.b", 1.0);
        assert_eq!(dotted.number("a.b"), Some(1.0));
    }

    #[test]
    fn figures_print_as_paths_and_short_values() {
        let figures: Figures = serde_json::from_str(LINES[0]).unwrap();
        assert_eq!(
            figures.to_string(),
            "unit points, best 0.5, mean 0.5, vs_fixed 0.5, group.step 0.3, group.size 256, group.count 1, \
             group.why stalled"
        );
        let shown: Vec<String> =
            [112.15238095238095, 0.24740367220156328, 3.14159e-5, 123456.7, -2.0, 0.0].map(short).to_vec();
        assert_eq!(shown, ["112.2", "0.2474", "3.142e-5", "1.235e5", "-2", "0"]);
        assert_eq!(Figure::Absent.to_string(), "–");
    }

    #[test]
    fn what_is_not_a_figure_is_refused_by_name() {
        for (text, why) in [
            (r#"{"a":true}"#, "a figure: a number, a text, null or an object of figures"),
            (r#"{"a":[1]}"#, "a figure"),
            (r#"{"a":1,"a":2}"#, "the figure `a` twice"),
            (r#"[1]"#, "an object of figures"),
        ] {
            let err = serde_json::from_str::<Figures>(text).unwrap_err().to_string();
            assert!(err.contains(why), "{text}: {err}");
        }
        let infinite = Figures::new().with("x", f64::INFINITY);
        assert_eq!(serde_json::to_string(&infinite).unwrap(), r#"{"x":null}"#);
    }
}
