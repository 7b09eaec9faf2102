//! Perft on every board size and from Scrambled Eggs, against an independent count: a plain
//! move generator over a 2-D array, written from the rules of docs/spec.md §1 (no bitboards, no
//! tables, nothing of the engine's but the position text it is handed).

use loa_engine::perft::perft;
use loa_engine::{BoardSize, Position, Start};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Cell {
    Empty,
    Black,
    White,
}

/// A board as a grid: `cells[y][x]`, rank 1 = y 0, file a = x 0.
#[derive(Clone, Debug)]
struct Grid {
    n: i32,
    cells: Vec<Vec<Cell>>,
    black_to_move: bool,
}

impl Grid {
    /// LOA's usual start: Black inside the first and last rank, White inside the first and last
    /// file, Black to move.
    fn usual_start(n: i32) -> Grid {
        let mut cells = vec![vec![Cell::Empty; n as usize]; n as usize];
        for i in 1..n - 1 {
            cells[0][i as usize] = Cell::Black;
            cells[(n - 1) as usize][i as usize] = Cell::Black;
            cells[i as usize][0] = Cell::White;
            cells[i as usize][(n - 1) as usize] = Cell::White;
        }
        Grid { n, cells, black_to_move: true }
    }

    /// Scrambled Eggs as the project defines it (docs/spec.md §1): the usual 8×8 squares, the
    /// colours alternating around the edge starting with White on b8.
    fn scrambled_eggs() -> Grid {
        let mut g = Grid::usual_start(8);
        // Walk the ring clockwise from b8, corners skipped, alternating White, Black, ...
        let mut ring = Vec::new();
        ring.extend((1..7).map(|x| (x, 7)));
        ring.extend((1..7).rev().map(|y| (7, y)));
        ring.extend((1..7).rev().map(|x| (x, 0)));
        ring.extend((1..7).map(|y| (0, y)));
        for (i, (x, y)) in ring.into_iter().enumerate() {
            g.cells[y as usize][x as usize] = if i % 2 == 0 { Cell::White } else { Cell::Black };
        }
        g
    }

    /// Position text, written out directly.
    fn text(&self) -> String {
        let ranks: Vec<String> = (0..self.n)
            .rev()
            .map(|y| {
                self.cells[y as usize]
                    .iter()
                    .map(|c| match c {
                        Cell::Empty => '.',
                        Cell::Black => 'b',
                        Cell::White => 'w',
                    })
                    .collect()
            })
            .collect();
        format!("{} {}", ranks.join("/"), if self.black_to_move { 'b' } else { 'w' })
    }

    fn at(&self, x: i32, y: i32) -> Option<Cell> {
        (x >= 0 && y >= 0 && x < self.n && y < self.n).then(|| self.cells[y as usize][x as usize])
    }

    /// Every legal move as ((x, y), (x, y)): a piece moves along a line exactly as many squares
    /// as there are pieces on the whole line, over its own pieces but no enemy's, onto an empty
    /// square or an enemy piece.
    fn moves(&self) -> Vec<((i32, i32), (i32, i32))> {
        let (own, enemy) = if self.black_to_move { (Cell::Black, Cell::White) } else { (Cell::White, Cell::Black) };
        let mut out = Vec::new();
        for y in 0..self.n {
            for x in 0..self.n {
                if self.at(x, y) != Some(own) {
                    continue;
                }
                for (dx, dy) in [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1), (-1, 1), (1, -1)] {
                    // Pieces on the whole line through (x, y) in this direction and its opposite.
                    let mut on_line = 1;
                    for sign in [1, -1] {
                        let mut k = 1;
                        while let Some(c) = self.at(x + sign * k * dx, y + sign * k * dy) {
                            on_line += i32::from(c != Cell::Empty);
                            k += 1;
                        }
                    }
                    let (tx, ty) = (x + on_line * dx, y + on_line * dy);
                    let Some(target) = self.at(tx, ty) else { continue };
                    let jumps_enemy = (1..on_line).any(|k| self.at(x + k * dx, y + k * dy) == Some(enemy));
                    if !jumps_enemy && target != own {
                        out.push(((x, y), (tx, ty)));
                    }
                }
            }
        }
        out
    }

    fn play(&self, ((x, y), (tx, ty)): ((i32, i32), (i32, i32))) -> Grid {
        let mut g = self.clone();
        g.cells[ty as usize][tx as usize] = g.cells[y as usize][x as usize];
        g.cells[y as usize][x as usize] = Cell::Empty;
        g.black_to_move = !g.black_to_move;
        g
    }

    /// Leaves of the full tree of depth `depth` (no game end: docs/spec.md §1's perft).
    fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        self.moves().into_iter().map(|m| self.play(m).perft(depth - 1)).sum()
    }
}

/// The engine's counts equal the grid's from `grid`, depth 1 to `depth`, and the engine reads
/// and writes the grid's text.
fn check(grid: &Grid, depth: u32) -> Vec<u64> {
    let pos: Position = grid.text().parse().unwrap();
    assert_eq!(pos.to_string(), grid.text());
    (1..=depth)
        .map(|d| {
            let want = grid.perft(d);
            assert_eq!(perft(&pos, d), want, "{} depth {d}", grid.text());
            want
        })
        .collect()
}

fn size(n: u8) -> BoardSize {
    BoardSize::new(n).unwrap()
}

impl Grid {
    /// The grid of position text (the tests' own reading of it).
    fn from_text(text: &str) -> Grid {
        let (board, side) = text.split_once(' ').unwrap();
        let ranks: Vec<&str> = board.split('/').collect();
        let n = ranks.len() as i32;
        let cells = ranks
            .iter()
            .rev()
            .map(|r| {
                r.chars()
                    .map(|c| match c {
                        'b' => Cell::Black,
                        'w' => Cell::White,
                        _ => Cell::Empty,
                    })
                    .collect()
            })
            .collect();
        Grid { n, cells, black_to_move: side == "b" }
    }
}

/// Mid-game positions of random playouts on every size: the engine's moves, in canonical order
/// (from-square, then to-square, by index 8·rank + file), are the grid's.
#[test]
fn moves_of_playout_positions_on_every_size() {
    let mut checked = 0;
    for size in BoardSize::ALL {
        let start = Start::Standard.position(size).unwrap();
        for pos in loa_engine::openings::sample_positions_from(&start, 3000, 21) {
            let grid = Grid::from_text(&pos.to_string());
            let index = |(x, y): (i32, i32)| 8 * y + x;
            let mut want: Vec<(i32, i32)> = grid.moves().into_iter().map(|(f, t)| (index(f), index(t))).collect();
            want.sort();
            let got: Vec<(i32, i32)> =
                pos.legal_moves().iter().map(|m| (m.from().index() as i32, m.to().index() as i32)).collect();
            assert_eq!(got, want, "{pos}");
            assert_eq!(pos.count_moves() as usize, want.len(), "{pos}");
            checked += 1;
        }
    }
    assert_eq!(checked, 12_000);
}

#[test]
fn usual_start_on_5x5() {
    let grid = Grid::usual_start(5);
    assert_eq!(Start::Standard.position(size(5)).unwrap().to_string(), grid.text());
    assert_eq!(check(&grid, 6), [18, 280, 4_164, 56_332, 752_484, 9_660_392]);
}

#[test]
fn usual_start_on_6x6() {
    let grid = Grid::usual_start(6);
    assert_eq!(Start::Standard.position(size(6)).unwrap().to_string(), grid.text());
    assert_eq!(check(&grid, 5), [24, 524, 11_440, 234_560, 4_853_792]);
}

#[test]
fn usual_start_on_7x7() {
    let grid = Grid::usual_start(7);
    assert_eq!(Start::Standard.position(size(7)).unwrap().to_string(), grid.text());
    assert_eq!(check(&grid, 4), [30, 848, 25_012, 698_880]);
}

#[test]
fn usual_start_on_8x8_gives_the_published_counts() {
    let grid = Grid::usual_start(8);
    assert_eq!(Position::start().to_string(), grid.text());
    assert_eq!(check(&grid, 4), [36, 1_244, 44_952, 1_563_208]);
}

#[test]
fn scrambled_eggs() {
    let grid = Grid::scrambled_eggs();
    assert_eq!(Start::ScrambledEggs.position(size(8)).unwrap().to_string(), grid.text());
    assert_eq!(check(&grid, 4), [32, 992, 32_000, 1_002_260]);
}
