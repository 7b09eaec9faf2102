//! What a usable token is. An empty one would turn authentication off without a word (the slip
//! `--token "$UNSET"`), so every place that takes a token refuses it through [`check_token`].

use std::fmt;

/// The fewest characters a token may have when its port is reachable from other hosts: a
/// guessable token is no token (the launch scripts make 32).
pub const MIN_PUBLIC_TOKEN: usize = 16;

/// Why a token cannot be used, for the flag or variable that gave it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TokenError {
    /// Empty, or only whitespace.
    Empty,
    /// A character that is not printable ASCII, or a space at either end: it cannot travel in a
    /// header as it is (servers trim the ends).
    NotPrintable,
    /// Shorter than [`MIN_PUBLIC_TOKEN`] on an address reachable from other hosts.
    TooShort(usize),
}

impl fmt::Display for TokenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TokenError::Empty => f.write_str("is empty: an empty token would let anyone in (is a variable unset?)"),
            TokenError::NotPrintable => f.write_str("must be printable ASCII, without spaces at either end"),
            TokenError::TooShort(n) => write!(
                f,
                "has {n} characters: a port reachable from other hosts needs at least {MIN_PUBLIC_TOKEN} \
                 (e.g. `head -c 24 /dev/urandom | base64`)"
            ),
        }
    }
}

impl std::error::Error for TokenError {}

/// Refuses a token that is empty or whitespace, holds anything but printable ASCII (or a space
/// at either end), or, when `public` (served beyond loopback), is shorter than
/// [`MIN_PUBLIC_TOKEN`].
pub fn check_token(token: &str, public: bool) -> Result<(), TokenError> {
    if token.trim().is_empty() {
        return Err(TokenError::Empty);
    }
    let printable = token.bytes().all(|b| b == b' ' || b.is_ascii_graphic());
    if !printable || token.trim() != token {
        return Err(TokenError::NotPrintable);
    }
    if public && token.len() < MIN_PUBLIC_TOKEN {
        return Err(TokenError::TooShort(token.len()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_blank_unprintable_and_short_public_tokens_are_refused() {
        for blank in ["", " ", "\t\n", "   "] {
            assert_eq!(check_token(blank, false), Err(TokenError::Empty), "{blank:?}");
        }
        assert_eq!(check_token(" a", false), Err(TokenError::NotPrintable));
        assert_eq!(check_token("a\tb", false), Err(TokenError::NotPrintable));
        assert_eq!(check_token("a b", false), Ok(()), "a space inside travels");
        assert_eq!(check_token("é", false), Err(TokenError::NotPrintable));
        assert_eq!(check_token("short", true), Err(TokenError::TooShort(5)));
        assert_eq!(check_token("short", false), Ok(()), "loopback takes any non-empty token");
        assert_eq!(check_token(&"k".repeat(MIN_PUBLIC_TOKEN), true), Ok(()));
    }
}
