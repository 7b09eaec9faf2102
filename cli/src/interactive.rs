//! A person against a player in the terminal (`loa play`), over any input and output so that
//! tests can script it.

use crate::describe::diagram;
use loa_engine::game::Player;
use loa_engine::{Color, Move, NoMoves, Position, Rules};
use std::io::{self, BufRead, Write};

/// Plays a game between a person typing moves on `input` and `opponent`; the person has
/// `human`, from `start`. Illegal or malformed input is refused with the reason and the legal
/// moves, never a crash. `quit` or the end of input stops the game. Returns the final position.
pub fn play_interactive(
    opponent: &dyn Player,
    human: Color,
    rules: &Rules,
    seed: u64,
    start: Position,
    mut input: impl BufRead,
    mut out: impl Write,
) -> io::Result<Position> {
    let mut pos = start;
    let mut moves = Vec::new();
    writeln!(out, "You play {human}. Type moves like c8-c6 or d1xa4; `moves` lists them, `quit` stops.")?;
    loop {
        let plies = moves.len() as u32;
        write!(out, "\n{}", diagram(&pos))?;
        if let Some(end) = pos.game_end(rules) {
            writeln!(out, "Game over after {plies} plies: {end}.")?;
            return Ok(pos);
        }
        if rules.ply_cap > 0 && plies >= rules.ply_cap {
            writeln!(out, "Game over: {plies} plies played, a tie at the ply cap.")?;
            return Ok(pos);
        }
        let mv = if pos.side_to_move() == human {
            match read_move(&pos, rules, &mut input, &mut out)? {
                Some(mv) => mv,
                None => {
                    writeln!(out, "Stopped.")?;
                    return Ok(pos);
                }
            }
        } else {
            // The game from its start: an external engine counts the plies from its moves.
            let result = opponent.choose_in_game(&start, &moves, &pos, rules, seed);
            let mv = result.best.unwrap_or(Move::PASS);
            writeln!(out, "{} plays {mv} (value {:.4}, {} nodes)", pos.side_to_move(), result.value, result.nodes)?;
            mv
        };
        pos = pos.play(mv);
        moves.push(mv);
    }
}

/// Reads lines until one is a legal move (or `pass` when allowed); `None` on `quit` or end of input.
fn read_move(
    pos: &Position,
    rules: &Rules,
    input: &mut impl BufRead,
    out: &mut impl Write,
) -> io::Result<Option<Move>> {
    let legal = pos.legal_moves();
    let list = || legal.iter().map(|m| m.to_string()).collect::<Vec<_>>().join(" ");
    if legal.is_empty() && rules.no_moves == NoMoves::Passes {
        writeln!(out, "You have no legal move and pass.")?;
        return Ok(Some(Move::PASS));
    }
    loop {
        write!(out, "{} to move> ", pos.side_to_move())?;
        out.flush()?;
        let mut line = String::new();
        if input.read_line(&mut line)? == 0 {
            return Ok(None);
        }
        match line.trim() {
            "" => continue,
            "quit" | "exit" => return Ok(None),
            "moves" | "help" | "?" => writeln!(out, "Legal moves: {}", list())?,
            text => match pos.parse_move(text) {
                Ok(mv) if !mv.is_pass() => return Ok(Some(mv)),
                Ok(_) => writeln!(out, "You may not pass. Legal moves: {}", list())?,
                Err(e) => writeln!(out, "{e}.\nLegal moves: {}", list())?,
            },
        }
    }
}
