//! A TOML error said in the file's terms: the key at fault and the values it takes, where
//! serde would say "expected usize", and the nearest valid key for a misspelt one.

/// `error`'s text, its last line (serde's message) replaced by one that names the key of `text`
/// it points at and what that key takes.
pub fn explain(text: &str, error: &toml::de::Error) -> String {
    let full = error.to_string();
    let message = error.message();
    let plain = match plain_message(message, key_at(text, error.span()).as_deref()) {
        Some(plain) => plain,
        None => return full,
    };
    match full.rfind(message) {
        Some(at) => format!("{}{plain}{}", &full[..at], &full[at + message.len()..]),
        None => format!("{full}\n{plain}"),
    }
}

/// The dotted key (`section.key`) on the line where `span` starts, under the last table
/// header before it.
fn key_at(text: &str, span: Option<std::ops::Range<usize>>) -> Option<String> {
    let start = span?.start.min(text.len());
    let before = text.get(..start)?;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let line = text[line_start..].lines().next()?;
    let key = line.split_once('=')?.0.trim().trim_matches('"');
    let table = before[..line_start]
        .lines()
        .rev()
        .map(str::trim)
        .find(|l| l.starts_with('[') && l.ends_with(']'))
        .map(|l| l.trim_matches(['[', ']']).trim());
    Some(match table {
        Some(table) if !key.is_empty() => format!("{table}.{key}"),
        _ => key.to_owned(),
    })
}

/// The range of an unsigned type serde names, as words.
fn unsigned_range(ty: &str) -> Option<String> {
    let max = match ty {
        "u8" => u64::from(u8::MAX),
        "u16" => u64::from(u16::MAX),
        "u32" => u64::from(u32::MAX),
        "u64" | "usize" => u64::MAX,
        _ => return None,
    };
    Some(format!("a whole number from 0 to {max} (docs/config.md gives each key's range)"))
}

/// serde's `message` said plainly, for the key `key` (if known); `None` if it is already plain.
fn plain_message(message: &str, key: Option<&str>) -> Option<String> {
    let named = |what: String| match key {
        Some(key) => format!("`{key}` {what}"),
        None => what,
    };
    if let Some(rest) = message.strip_prefix("unknown field `") {
        let (unknown, expected) = rest.split_once('`')?;
        let valid: Vec<&str> = expected.split('`').skip(1).step_by(2).collect();
        let hint = nearest(unknown, &valid).map_or(String::new(), |k| format!("; did you mean `{k}`?"));
        let list = valid.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ");
        let place = key.and_then(|k| k.rsplit_once('.')).map_or(String::new(), |(table, _)| format!(" in [{table}]"));
        return Some(format!("unknown key `{unknown}`{place}{hint} (the keys here: {list})"));
    }
    // "invalid value: integer `-5`, expected usize", "invalid type: string \"x\", expected u32"
    let (found, ty) = message.rsplit_once(", expected ")?;
    let found = found.strip_prefix("invalid value: ").or_else(|| found.strip_prefix("invalid type: "))?;
    let value = found.split('`').nth(1).map_or(found.to_owned(), str::to_owned);
    let takes = match ty {
        "f32" | "f64" => "a number".to_owned(),
        "a boolean" | "bool" => "true or false".to_owned(),
        "i64" | "i32" => "a whole number".to_owned(),
        other => unsigned_range(other)?,
    };
    Some(named(format!("must be {takes}, not {value}")))
}

/// serde's `message` about a value said plainly (`must be a whole number from 0 to …, not
/// -5`), or as it is if it is already plain.
pub(crate) fn plain_value(message: &str) -> String {
    plain_message(message, None).unwrap_or_else(|| message.to_owned())
}

/// The valid key nearest to `unknown` by edit distance, if near enough to be a slip.
pub(crate) fn nearest<'a>(unknown: &str, valid: &[&'a str]) -> Option<&'a str> {
    let best = valid.iter().map(|k| (edit_distance(unknown, k), *k)).min()?;
    (best.0 <= 2.max(unknown.chars().count() / 3)).then_some(best.1)
}

/// Levenshtein distance: insertions, deletions and substitutions of characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let next = (row[j + 1] + 1).min(row[j] + 1).min(diagonal + usize::from(ca != *cb));
            diagonal = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances_by_hand() {
        assert_eq!(edit_distance("sigmaa", "sigma"), 1);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(nearest("sigmaa", &["seed", "sigma", "lambda"]), Some("sigma"));
        assert_eq!(nearest("zzzzzz", &["seed", "sigma"]), None);
    }

    #[test]
    fn keys_are_found_under_their_table() {
        let text = "seed = 1\n[benchmark]\ndepth = -3\n";
        let at = text.find("-3").unwrap();
        assert_eq!(key_at(text, Some(at..at + 2)).as_deref(), Some("benchmark.depth"));
        assert_eq!(key_at(text, Some(0..4)).as_deref(), Some("seed"));
    }
}
