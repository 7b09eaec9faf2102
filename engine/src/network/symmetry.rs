//! The board's eight symmetries and weight tyings that make a network's evaluation invariant
//! under them.
//!
//! LOA's rules (moves along lines, connection through the eight neighbours) are the same after
//! any rotation or reflection of the board (the dihedral group D4), so the value of a position
//! is too. A network of the default topology has no such prior: it must learn every pattern on
//! every square separately. A [`Tying`] makes groups of weights equal so that the evaluation is
//! invariant by construction, which also leaves evolution far fewer free parameters to search
//! (2 041 → 361 or 277): each class of [`Tying::classes`] is one free parameter.
//!
//! - [`WeightTying::Invariant`]: every hidden unit is invariant. Its weights on squares of one
//!   D4 orbit are equal (10 orbits of the 8 × 8 board, 6 of the 6 × 6 nonad centres): each unit
//!   is a function of a piece-square table's sum.
//! - [`WeightTying::Equivariant`]: hidden units 0-15 form two groups of eight; unit `8k + g` is
//!   group k's one free unit seen through symmetry g (its weight on input i is the group's
//!   weight on input gᵢ), with the group's bias and output weight. A group detects one pattern,
//!   unrestricted, wherever a symmetry puts it; units 16-19 are invariant as above.
//!
//! Inputs are in the chromosome's order (docs/spec.md §3): board inputs row by row from a8, then nonad
//! centres row by row from b7. Both grids are square, so a symmetry acts on (row, column) of
//! either the same way; the nonad windows' weights are themselves symmetric, so moving a window's
//! centre moves the window.

use super::{BOARD_INPUTS, HIDDEN, INPUTS};
use std::collections::HashMap;

/// The number of the board's symmetries (rotations and reflections).
pub const SYMMETRIES: usize = 8;

/// Symmetry `g` (0..8) applied to `(row, column)` of an `n × n` grid: bit 2 transposes, then
/// bit 1 reflects the rows and bit 0 the columns. Every element of D4 is one of these eight.
pub const fn transform(g: usize, row: usize, column: usize, n: usize) -> (usize, usize) {
    let (mut r, mut c) = if g & 4 != 0 { (column, row) } else { (row, column) };
    if g & 2 != 0 {
        r = n - 1 - r;
    }
    if g & 1 != 0 {
        c = n - 1 - c;
    }
    (r, c)
}

/// The input that symmetry `g` moves input `i` (of the default topology's 100) to.
pub const fn transform_input(g: usize, i: usize) -> usize {
    if i < BOARD_INPUTS {
        let (r, c) = transform(g, i / 8, i % 8, 8);
        r * 8 + c
    } else {
        let k = i - BOARD_INPUTS;
        let (r, c) = transform(g, k / 6, k % 6, 6);
        BOARD_INPUTS + r * 6 + c
    }
}

/// The smallest input that some symmetry moves `i` to: one name per orbit.
fn orbit(i: usize) -> usize {
    (0..SYMMETRIES).map(|g| transform_input(g, i)).min().unwrap_or(i)
}

/// How a network's weights are tied (`none`, `invariant` or `equivariant` in configurations).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WeightTying {
    /// No tying: every weight is free.
    #[default]
    None,
    /// Every hidden unit invariant under the board's symmetries (361 free parameters).
    Invariant,
    /// Two groups of eight hidden units mapped onto each other by the symmetries, and four
    /// invariant units (277 free parameters).
    Equivariant,
}

impl WeightTying {
    /// Every tying, in the order error messages list them.
    pub const ALL: [WeightTying; 3] = [WeightTying::None, WeightTying::Invariant, WeightTying::Equivariant];

    /// Its name in configurations and flags.
    pub const fn name(self) -> &'static str {
        match self {
            WeightTying::None => "none",
            WeightTying::Invariant => "invariant",
            WeightTying::Equivariant => "equivariant",
        }
    }
}

impl std::str::FromStr for WeightTying {
    type Err = String;

    fn from_str(text: &str) -> Result<WeightTying, String> {
        WeightTying::ALL
            .into_iter()
            .find(|t| t.name() == text)
            .ok_or_else(|| format!("unknown weight tying `{text}`: use none, invariant or equivariant"))
    }
}

/// What one weight of the chromosome is tied to (a class's key).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Key {
    Weight { unit: usize, input: usize },
    GroupWeight { group: usize, input: usize },
    Bias(usize),
    GroupBias(usize),
    Output(usize),
    GroupOutput(usize),
    OutputBias,
}

/// The classes of a [`WeightTying`] over the default topology's 2 041 weights: weights of one
/// class are equal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tying {
    classes: Vec<u32>,
    count: usize,
}

/// Hidden units in the equivariant tying's groups.
const GROUPED_UNITS: usize = 2 * SYMMETRIES;

/// Weights of the default topology.
const WEIGHTS: usize = HIDDEN * INPUTS + 2 * HIDDEN + 1;

impl Tying {
    /// The classes of `kind`, numbered in order of their first weight.
    pub fn new(kind: WeightTying) -> Tying {
        let hidden_key = |unit: usize, input: usize| match kind {
            WeightTying::None => Key::Weight { unit, input },
            WeightTying::Equivariant if unit < GROUPED_UNITS => {
                Key::GroupWeight { group: unit / SYMMETRIES, input: transform_input(unit % SYMMETRIES, input) }
            }
            _ => Key::Weight { unit, input: orbit(input) },
        };
        let grouped = |unit: usize| kind == WeightTying::Equivariant && unit < GROUPED_UNITS;
        let mut keys = Vec::with_capacity(WEIGHTS);
        for unit in 0..HIDDEN {
            keys.extend((0..INPUTS).map(|input| hidden_key(unit, input)));
        }
        keys.extend((0..HIDDEN).map(|u| if grouped(u) { Key::GroupBias(u / SYMMETRIES) } else { Key::Bias(u) }));
        keys.extend((0..HIDDEN).map(|u| if grouped(u) { Key::GroupOutput(u / SYMMETRIES) } else { Key::Output(u) }));
        keys.push(Key::OutputBias);
        let mut ids: HashMap<Key, u32> = HashMap::new();
        let classes = keys
            .into_iter()
            .map(|key| {
                let next = ids.len() as u32;
                *ids.entry(key).or_insert(next)
            })
            .collect();
        Tying { classes, count: ids.len() }
    }

    /// The class of every weight, in the chromosome's order.
    pub fn classes(&self) -> &[u32] {
        &self.classes
    }

    /// The number of classes (free parameters).
    pub fn count(&self) -> usize {
        self.count
    }

    /// Every weight's value from its class's (`free` has one value per class).
    pub fn expand(&self, free: &[f64]) -> Vec<f64> {
        self.classes.iter().map(|&c| free[c as usize]).collect()
    }

    /// The nearest tied weights (least squares): each weight becomes its class's mean. Classes
    /// have 1, 4 or 8 members and the sums are taken in f64, so tied weights come back bit for
    /// bit (projecting is idempotent).
    pub fn project(&self, weights: &[f32]) -> Vec<f32> {
        let mut values: Vec<f64> = weights.iter().map(|&w| f64::from(w)).collect();
        self.average_classes(&mut values);
        values.into_iter().map(|v| v as f32).collect()
    }

    /// Replaces every value by its class's sum: a gradient with respect to the weights becomes
    /// the gradient with respect to the class's one free parameter, given to each member (so
    /// an optimiser that treats members alike keeps them equal).
    pub fn sum_classes(&self, values: &mut [f64]) {
        let mut sums = vec![0.0f64; self.count];
        for (&c, &v) in self.classes.iter().zip(values.iter()) {
            sums[c as usize] += v;
        }
        for (v, &c) in values.iter_mut().zip(&self.classes) {
            *v = sums[c as usize];
        }
    }

    /// Replaces every value by its class's mean.
    pub fn average_classes(&self, values: &mut [f64]) {
        let mut sums = vec![(0.0f64, 0u32); self.count];
        for (&c, &v) in self.classes.iter().zip(values.iter()) {
            let s = &mut sums[c as usize];
            *s = (s.0 + v, s.1 + 1);
        }
        for (v, &c) in values.iter_mut().zip(&self.classes) {
            let (sum, n) = sums[c as usize];
            *v = sum / f64::from(n);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_eight_transforms_are_distinct_permutations_closed_under_composition() {
        let perm = |g: usize| (0..INPUTS).map(|i| transform_input(g, i)).collect::<Vec<_>>();
        let perms: Vec<Vec<usize>> = (0..SYMMETRIES).map(perm).collect();
        for p in &perms {
            let mut sorted = p.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, (0..INPUTS).collect::<Vec<_>>(), "a permutation");
        }
        for a in 0..SYMMETRIES {
            for b in 0..a {
                assert_ne!(perms[a], perms[b], "{a} and {b} differ");
            }
            for b in 0..SYMMETRIES {
                let composed: Vec<usize> = (0..INPUTS).map(|i| perms[a][perms[b][i]]).collect();
                assert!(perms.contains(&composed), "{a} after {b} is a symmetry");
            }
        }
        // a8 (input 0) goes to the four corners; a rotation by a quarter turn takes a8 to h8.
        let corners: std::collections::BTreeSet<usize> = (0..SYMMETRIES).map(|g| transform_input(g, 0)).collect();
        assert_eq!(corners.into_iter().collect::<Vec<_>>(), [0, 7, 56, 63]);
    }

    #[test]
    fn class_counts_match_the_hand_counted_orbits() {
        // 8 × 8 board: 10 orbits (4 diagonal ones of 4 squares, 6 of 8); 6 × 6 centres: 6.
        let orbits: std::collections::BTreeSet<usize> = (0..BOARD_INPUTS).map(orbit).collect();
        assert_eq!(orbits.len(), 10);
        let nonads: std::collections::BTreeSet<usize> = (BOARD_INPUTS..INPUTS).map(orbit).collect();
        assert_eq!(nonads.len(), 6);
        assert_eq!(Tying::new(WeightTying::None).count(), WEIGHTS);
        // 20 units × (10 + 6 + bias) + 20 output weights + output bias.
        assert_eq!(Tying::new(WeightTying::Invariant).count(), 20 * 17 + 21);
        // 2 groups × (100 + bias + output weight) + 4 units × (16 + bias + output weight) + 1.
        assert_eq!(Tying::new(WeightTying::Equivariant).count(), 2 * 102 + 4 * 18 + 1);
        for kind in [WeightTying::Invariant, WeightTying::Equivariant] {
            let tying = Tying::new(kind);
            let mut sizes = vec![0; tying.count()];
            tying.classes().iter().for_each(|&c| sizes[c as usize] += 1);
            assert!(sizes.iter().all(|s| [1, 4, 8].contains(s)), "{kind:?}: class sizes {sizes:?}");
        }
    }

    #[test]
    fn projecting_averages_classes_and_is_idempotent_bit_for_bit() {
        let tying = Tying::new(WeightTying::Equivariant);
        let mut state = 7u64;
        let weights: Vec<f32> = (0..WEIGHTS)
            .map(|_| {
                state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                super::super::weight_from_bits(state)
            })
            .collect();
        let tied = tying.project(&weights);
        assert_ne!(tied, weights);
        assert_eq!(tying.project(&tied), tied);
        // The output bias is alone in its class; a group's output weight is the mean of eight.
        assert_eq!(tied[2040], weights[2040]);
        let mean = weights[2020..2028].iter().map(|&w| f64::from(w)).sum::<f64>() / 8.0;
        assert_eq!(tied[2023], mean as f32);
        // Expanding free values ties them: two weights of one class are equal.
        let free: Vec<f64> = (0..tying.count()).map(|c| c as f64).collect();
        let full = tying.expand(&free);
        // Symmetry 3 (both reflections) is its own inverse: unit 3's weight on g₃(5) is unit 0's
        // on 5.
        assert_eq!(full[100 * 3 + transform_input(3, 5)], full[5]);
        // Sums and means over classes: a group's eight output weights.
        let mut values: Vec<f64> = (0..WEIGHTS).map(|i| i as f64).collect();
        tying.sum_classes(&mut values);
        assert_eq!(values[2020], (2020..2028).sum::<usize>() as f64);
        assert_eq!(values[2040], 2040.0);
        let mut values: Vec<f64> = (0..WEIGHTS).map(|i| i as f64).collect();
        tying.average_classes(&mut values);
        assert_eq!(values[2027], 2023.5);
    }
}

#[cfg(test)]
mod invariance {
    use super::*;
    use crate::network::{Chromosome, Network, Topology};
    use crate::{Bitboard, Color, Position, Square};

    /// `pos` after symmetry `g`, computed on files and ranks (not on input indices): row 7 − rank,
    /// column file.
    fn transformed(pos: &Position, g: usize) -> Position {
        let map = |bb: Bitboard| {
            let mut out = 0u64;
            for sq in Square::all().filter(|&sq| bb.contains(sq)) {
                let (r, c) = transform(g, 7 - sq.rank() as usize, sq.file() as usize, 8);
                out |= Square::from_coords(c as i32, 7 - r as i32).map_or(0, |s| s.bit());
            }
            Bitboard(out)
        };
        Position::from_pieces(map(pos.pieces(Color::Black)), map(pos.pieces(Color::White)), pos.side_to_move())
            .expect("a symmetry keeps a position valid")
    }

    /// Positions of a seeded random game from the start.
    fn positions(seed: u64) -> Vec<Position> {
        let (mut pos, mut state, mut out) = (Position::start(), seed, Vec::new());
        for _ in 0..40 {
            let moves = pos.legal_moves();
            if moves.is_empty() || pos.game_end(&crate::Rules::default()).is_some() {
                break;
            }
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            pos = pos.play(moves[(state >> 33) as usize % moves.len()]);
            out.push(pos);
        }
        out
    }

    /// The largest difference between a network's value of a position and of its seven images.
    fn largest_asymmetry(weights: Vec<f32>) -> f32 {
        let net = Network::new(&Chromosome::new(Topology::default(), weights).unwrap());
        let mut largest = 0.0f32;
        for pos in positions(3).into_iter().chain(positions(4)) {
            for pov in [Color::Black, Color::White] {
                let value = net.evaluate_plain(&pos, pov);
                for g in 1..SYMMETRIES {
                    largest = largest.max((net.evaluate_plain(&transformed(&pos, g), pov) - value).abs());
                }
            }
        }
        largest
    }

    #[test]
    fn tied_networks_value_a_position_and_its_images_alike_and_free_ones_do_not() {
        let mut state = 11u64;
        let free = crate::network::random_uniform(5).into_weights();
        for kind in [WeightTying::Invariant, WeightTying::Equivariant] {
            let tying = Tying::new(kind);
            let params: Vec<f64> = (0..tying.count())
                .map(|_| {
                    state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    f64::from(crate::network::weight_from_bits(state)) * 0.3
                })
                .collect();
            let weights: Vec<f32> = tying.expand(&params).into_iter().map(|w| w as f32).collect();
            // Equal up to the order of the float sums.
            let asymmetry = largest_asymmetry(weights);
            assert!(asymmetry < 1e-5, "{kind:?}: {asymmetry}");
            let projected = largest_asymmetry(tying.project(&free));
            assert!(projected < 1e-5, "{kind:?} projection: {projected}");
        }
        assert!(largest_asymmetry(free) > 1e-2, "an untied network is not invariant");
    }
}
