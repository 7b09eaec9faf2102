//! Moves applied to a position one by one, as `loa apply` and `loa engine`'s `position` command
//! take them: each move must be legal where it is played and written as the board has it
//! (`c8-c6` to an empty square, `d1xa4` onto an enemy piece).

use loa_engine::{GameEnd, MoveError, Position, Rules};
use std::fmt;

/// Why a move of a list was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApplyError {
    /// The move's place in the list, from 1.
    pub index: usize,
    /// The move as written.
    pub text: String,
    /// What is wrong with it.
    pub reason: ApplyReason,
    /// The position it was to be played in.
    pub position: Position,
}

/// What is wrong with a refused move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ApplyReason {
    /// Not move text, not legal, or written with the wrong separator.
    Move(MoveError),
    /// The game had already ended before this move.
    GameOver(GameEnd),
}

impl fmt::Display for ApplyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ApplyError { index, text, reason, position } = self;
        write!(f, "move {index} `{text}`: ")?;
        match reason {
            ApplyReason::GameOver(end) => {
                write!(f, "the game is already over in {position} ({end}); drop this move and the ones after it")
            }
            // These say what to write instead; the legal moves would add nothing.
            ApplyReason::Move(e @ (MoveError::Syntax { .. } | MoveError::WrongSeparator { .. })) => write!(f, "{e}"),
            ApplyReason::Move(e) => write!(f, "{e} (in {position}); {}", legal_hint(position, text)),
        }
    }
}

impl std::error::Error for ApplyError {}

/// The legal moves from the square the move text starts on, or all legal moves if that square
/// has none.
fn legal_hint(position: &Position, text: &str) -> String {
    let legal = position.legal_moves();
    let from: Vec<String> = legal
        .iter()
        .filter(|m| text.get(0..2).is_some_and(|sq| m.from().to_string() == sq))
        .map(|m| m.to_string())
        .collect();
    if !from.is_empty() {
        return format!("legal moves from {}: {}", &text[0..2], from.join(" "));
    }
    let all: Vec<String> = legal.iter().map(|m| m.to_string()).collect();
    format!("legal moves: {}", all.join(" "))
}

/// Plays `moves` from `start`, each checked in the position it is played in; the first move
/// that is malformed, illegal, wrongly written or played after the game ended is refused.
pub fn apply_moves<S: AsRef<str>>(start: Position, moves: &[S], rules: &Rules) -> Result<Position, ApplyError> {
    let mut pos = start;
    for (i, text) in moves.iter().enumerate() {
        let text = text.as_ref();
        let refuse = |reason| ApplyError { index: i + 1, text: text.to_string(), reason, position: pos };
        if let Some(end) = pos.game_end(rules) {
            return Err(refuse(ApplyReason::GameOver(end)));
        }
        let mv = pos.parse_move(text).map_err(|e| refuse(ApplyReason::Move(e)))?;
        pos = pos.play(mv);
    }
    Ok(pos)
}

#[cfg(test)]
mod tests {
    use super::*;
    use loa_engine::Color;

    const START: &str = ".bbbbbb./w......w/w......w/w......w/w......w/w......w/w......w/.bbbbbb. b";

    fn apply(moves: &[&str]) -> Result<Position, ApplyError> {
        apply_moves(START.parse().unwrap(), moves, &Rules::default())
    }

    #[test]
    fn moves_are_played_in_turn() {
        // Worked by hand. The b-file holds b1 and b8, two pieces: b1 goes two squares to the
        // empty b3. Rank 2 holds a2 and h2, two pieces: h2 goes two squares to the empty f2.
        let pos = apply(&["b1-b3", "h2-f2"]).unwrap();
        assert_eq!(pos.to_string(), ".bbbbbb./w......w/w......w/w......w/w......w/wb.....w/w....w../..bbbbb. b");
        assert_eq!(pos.side_to_move(), Color::Black);
        assert_eq!(apply(&[] as &[&str]).unwrap().to_string(), START);
    }

    #[test]
    fn a_refused_move_is_named_with_its_place_and_why() {
        // The c-file holds c1 and c8: c1 must move two squares, not three.
        let e = apply(&["b1-b3", "h2-f2", "c1-c4"]).unwrap_err();
        assert_eq!(e.index, 3);
        let text = e.to_string();
        assert!(text.starts_with("move 3 `c1-c4`: c1-c4 is illegal here: there are 2 pieces on that line"), "{text}");
        assert!(text.contains("legal moves from c1: "), "{text}");
        assert!(text.contains(" c1-c3"), "{text}");
        let e = apply(&["c1xc3"]).unwrap_err();
        assert_eq!(e.to_string(), "move 1 `c1xc3`: `c1xc3` goes to the empty square c3: write it with `-`, as c1-c3");
        let e = apply(&["b1-b3", "zz"]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "move 2 `zz`: `zz` is not move text: write e.g. c8-c6 for a move or d1xa4 for a capture"
        );
    }

    #[test]
    fn no_move_is_played_after_the_game_ended() {
        // Black's b1 and c2 touch: Black, who has just moved, is connected and has won;
        // White's a8 and h8 are apart.
        let won = "w......w/......../......../......../......../......../..b...../.b...... w";
        let e = apply_moves(won.parse().unwrap(), &["a8-a7"], &Rules::default()).unwrap_err();
        assert!(matches!(e.reason, ApplyReason::GameOver(_)), "{e}");
        assert!(e.to_string().contains("the game is already over"), "{e}");
    }
}
