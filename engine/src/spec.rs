//! The text that names a player, shared by the `loa` command and the master's experiments:
//! `aloa:D`, `aloa-normal:D`, `random:D[:SALT]`, `randomann:D[:SEED]`,
//! `randomann-printed:D[:SEED]`, `net:D:FILE`. A caller may accept more kinds of its own (the
//! experiments' `run:`): [`PlayerText::Other`] hands them back with their depth parsed.

use crate::aloa::AloaKind;
use crate::players::MAX_DEPTH;
use crate::tasks::FixedPlayer;
use std::path::PathBuf;

/// A player spec, parsed, before any file is read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlayerText {
    /// A player that is the same in every match (ALoA, the random heuristic, a seeded RandomANN).
    Fixed(FixedPlayer),
    /// `randomann:D` / `randomann-printed:D` without a seed: a fresh RandomANN for every match.
    FreshRandomAnn {
        /// Search depth.
        depth: u32,
        /// Whether it reads the board with the thesis's printed encoding.
        printed: bool,
    },
    /// `net:D:FILE`: the network in a chromosome JSON file.
    Net {
        /// Search depth.
        depth: u32,
        /// The chromosome file.
        path: PathBuf,
    },
    /// A kind this module does not know, for the caller to accept or refuse.
    Other {
        /// The kind, before the first `:`.
        kind: String,
        /// Its depth (checked like every depth).
        depth: u32,
        /// The text after the depth, if any.
        rest: Option<String>,
    },
}

/// Parses `text`; the error says why, for the caller to put in its own message (with the forms
/// it accepts).
pub fn parse_player(text: &str) -> Result<PlayerText, String> {
    let mut parts = text.splitn(3, ':');
    let kind = parts.next().unwrap_or_default();
    let depth: u32 = match parts.next() {
        Some(d) => d.parse().map_err(|_| "the depth must be a whole number".to_owned())?,
        None => return Err("missing the search depth".into()),
    };
    if depth == 0 || depth > MAX_DEPTH {
        return Err(format!("the depth must be 1..={MAX_DEPTH}"));
    }
    let extra = parts.next();
    let number = |what: &str| -> Result<Option<u64>, String> {
        extra.map(|s| s.parse::<u64>().map_err(|_| format!("the {what} must be a whole number"))).transpose()
    };
    let no_extra = |p: FixedPlayer| {
        if extra.is_some() { Err("unexpected text after the depth".to_owned()) } else { Ok(PlayerText::Fixed(p)) }
    };
    let ann = |printed: bool| -> Result<PlayerText, String> {
        Ok(match number("seed")? {
            Some(seed) if printed => PlayerText::Fixed(FixedPlayer::RandomAnnPrinted { depth, seed }),
            Some(seed) => PlayerText::Fixed(FixedPlayer::RandomAnn { depth, seed }),
            None => PlayerText::FreshRandomAnn { depth, printed },
        })
    };
    match kind {
        "random" => Ok(PlayerText::Fixed(FixedPlayer::Random { depth, salt: number("salt")?.unwrap_or(0) })),
        "aloa" => no_extra(FixedPlayer::Aloa { evaluator: AloaKind::Quad, depth }),
        "aloa-normal" => no_extra(FixedPlayer::Aloa { evaluator: AloaKind::Normal, depth }),
        "randomann" => ann(false),
        "randomann-printed" => ann(true),
        "net" => match extra {
            Some(path) if !path.is_empty() => Ok(PlayerText::Net { depth, path: PathBuf::from(path) }),
            _ => Err("missing the chromosome file".into()),
        },
        other => Ok(PlayerText::Other { kind: other.to_owned(), depth, rest: extra.map(str::to_owned) }),
    }
}

/// A fixed player from its spec, e.g. `aloa:3` or `random:2:7` (the form [`FixedPlayer`]'s
/// `Display` writes is one of them); other players (`net:`, an unseeded `randomann:`) are
/// refused, naming the spec.
impl std::str::FromStr for FixedPlayer {
    type Err = String;

    fn from_str(text: &str) -> Result<FixedPlayer, String> {
        match parse_player(text) {
            Ok(PlayerText::Fixed(player)) => Ok(player),
            Ok(_) => Err(format!("`{text}` is not a fixed player")),
            Err(why) => Err(format!("`{text}`: {why}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_and_errors_say_why() {
        let p = |t: &str| parse_player(t).unwrap();
        assert_eq!(p("aloa:5"), PlayerText::Fixed(FixedPlayer::Aloa { evaluator: AloaKind::Quad, depth: 5 }));
        assert_eq!(p("random:3"), PlayerText::Fixed(FixedPlayer::Random { depth: 3, salt: 0 }));
        assert_eq!(p("randomann:3:9"), PlayerText::Fixed(FixedPlayer::RandomAnn { depth: 3, seed: 9 }));
        assert_eq!(p("randomann-printed:2"), PlayerText::FreshRandomAnn { depth: 2, printed: true });
        assert_eq!(p("net:2:a:b.json"), PlayerText::Net { depth: 2, path: "a:b.json".into() });
        assert_eq!(p("run:3:x"), PlayerText::Other { kind: "run".into(), depth: 3, rest: Some("x".into()) });
        let why = |t: &str| parse_player(t).unwrap_err();
        assert_eq!(why("aloa"), "missing the search depth");
        assert_eq!(why("aloa:x"), "the depth must be a whole number");
        assert_eq!(why("aloa:13"), "the depth must be 1..=12");
        assert_eq!(why("aloa:5:3"), "unexpected text after the depth");
        assert_eq!(why("random:3:s"), "the salt must be a whole number");
        assert_eq!(why("net:3"), "missing the chromosome file");
    }

    #[test]
    fn fixed_players_are_written_as_specs_that_parse_back() {
        let players = [
            FixedPlayer::Aloa { evaluator: AloaKind::Quad, depth: 5 },
            FixedPlayer::Aloa { evaluator: AloaKind::Normal, depth: 1 },
            FixedPlayer::Random { depth: 3, salt: 0 },
            FixedPlayer::Random { depth: 2, salt: 7 },
            FixedPlayer::RandomAnn { depth: 3, seed: 9 },
            FixedPlayer::RandomAnnPrinted { depth: 12, seed: u64::MAX },
        ];
        let written = players.map(|p| p.to_string());
        assert_eq!(written[..3], ["aloa:5", "aloa-normal:1", "random:3:0"]);
        for (player, text) in players.iter().zip(&written) {
            assert_eq!(text.parse::<FixedPlayer>().as_ref(), Ok(player));
        }
        assert_eq!("net:3:x.json".parse::<FixedPlayer>(), Err("`net:3:x.json` is not a fixed player".into()));
        assert_eq!("randomann:3".parse::<FixedPlayer>(), Err("`randomann:3` is not a fixed player".into()));
        assert_eq!("aloa:0".parse::<FixedPlayer>(), Err("`aloa:0`: the depth must be 1..=12".into()));
    }
}
