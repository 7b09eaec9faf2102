//! The epoch list of a `run:` spec: epochs or ranges `FIRST-LAST[/STEP]` separated by commas,
//! e.g. `0-30/10` or `0,5,10`.

use std::fmt;

/// Most epochs one `run:` spec may name.
pub const MAX_EPOCHS: usize = 10_000;

/// Why an epoch list does not parse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EpochListError {
    /// An item is not an epoch number.
    NotANumber(String),
    /// A range's step is 0.
    ZeroStep,
    /// A range ends before it starts.
    Empty(u32, u32),
    /// More epochs than [`MAX_EPOCHS`].
    TooMany,
}

impl fmt::Display for EpochListError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EpochListError::NotANumber(item) => write!(f, "`{item}` is not an epoch number"),
            EpochListError::ZeroStep => f.write_str("a range's step must be at least 1"),
            EpochListError::Empty(first, last) => write!(f, "the range {first}-{last} is empty"),
            EpochListError::TooMany => write!(f, "at most {MAX_EPOCHS} epochs"),
        }
    }
}

impl std::error::Error for EpochListError {}

/// The epochs `list` names, in the order given, each once.
pub fn parse_epochs(list: &str) -> Result<Vec<u32>, EpochListError> {
    let mut epochs: Vec<u32> = Vec::new();
    for item in list.split(',') {
        let number = |s: &str| s.trim().parse::<u32>().map_err(|_| EpochListError::NotANumber(s.to_owned()));
        let (range, step) = match item.split_once('/') {
            Some((r, s)) => (r, number(s)?),
            None => (item, 1),
        };
        if step == 0 {
            return Err(EpochListError::ZeroStep);
        }
        let (first, last) = range.split_once('-').unwrap_or((range, range));
        let (first, last) = (number(first)?, number(last)?);
        if last < first {
            return Err(EpochListError::Empty(first, last));
        }
        for e in (first..=last).step_by(step as usize) {
            if !epochs.contains(&e) {
                epochs.push(e);
            }
            if epochs.len() > MAX_EPOCHS {
                return Err(EpochListError::TooMany);
            }
        }
    }
    Ok(epochs)
}

/// The list that [`parse_epochs`] reads back as `epochs` (which hold each epoch once): three or
/// more evenly spaced rising epochs as one range, the others one by one.
pub(super) fn write_epochs(epochs: &[u32]) -> String {
    let mut items = Vec::new();
    let mut rest = epochs;
    while let [first, tail @ ..] = rest {
        // The longest run first, first + step, first + 2 step, ... with a positive step.
        let step = tail.first().and_then(|next| next.checked_sub(*first)).filter(|s| *s > 0);
        let run =
            step.map_or(1, |step| 1 + rest.windows(2).take_while(|w| w[0].checked_add(step) == Some(w[1])).count());
        if let (Some(step), true) = (step, run >= 3) {
            let last = rest[run - 1];
            items.push(if step == 1 { format!("{first}-{last}") } else { format!("{first}-{last}/{step}") });
            rest = &rest[run..];
        } else {
            items.push(first.to_string());
            rest = tail;
        }
    }
    items.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_parse_in_order_each_epoch_once() {
        assert_eq!(parse_epochs("0-30/10,5,10"), Ok(vec![0, 10, 20, 30, 5]));
        assert_eq!(parse_epochs("3"), Ok(vec![3]));
        assert_eq!(parse_epochs("2-4, 7"), Ok(vec![2, 3, 4, 7]));
        assert_eq!(parse_epochs("0-9/4"), Ok(vec![0, 4, 8]));
    }

    #[test]
    fn bad_lists_say_why() {
        assert_eq!(parse_epochs("x"), Err(EpochListError::NotANumber("x".into())));
        assert_eq!(parse_epochs(""), Err(EpochListError::NotANumber("".into())));
        assert_eq!(parse_epochs("0-9/0"), Err(EpochListError::ZeroStep));
        assert_eq!(parse_epochs("5-1"), Err(EpochListError::Empty(5, 1)));
        assert_eq!(parse_epochs("0-4294967295"), Err(EpochListError::TooMany));
        assert_eq!(EpochListError::Empty(5, 1).to_string(), "the range 5-1 is empty");
    }

    #[test]
    fn written_lists_read_back_as_the_same_epochs() {
        for (epochs, text) in [
            (vec![0, 10, 20, 30, 5], "0-30/10,5"),
            (vec![0, 1, 2, 3], "0-3"),
            (vec![4, 2], "4,2"),
            (vec![1, 2], "1,2"),
            (vec![9, 6, 3, 0], "9,6,3,0"),
            (vec![0, 5, 10, 11, 12, 13], "0-10/5,11-13"),
            (vec![u32::MAX - 2, u32::MAX - 1, u32::MAX], "4294967293-4294967295"),
            (vec![], ""),
        ] {
            assert_eq!(write_epochs(&epochs), text);
            if !epochs.is_empty() {
                assert_eq!(parse_epochs(text), Ok(epochs));
            }
        }
        let many: Vec<u32> = (0..MAX_EPOCHS as u32).map(|e| e * 3 % 10_007).collect();
        assert_eq!(parse_epochs(&write_epochs(&many)), Ok(many));
    }
}
