//! Fixed-depth alpha-beta search (docs/spec.md §4) and the plain minimax it must agree with.
//!
//! Both are negamax searches over an [`Evaluator`] seen from one side, the root player's but in
//! [`alpha_beta_for`] (the "root player" below is that side). Terminal
//! positions score beyond any evaluation ([`WIN`] minus the ply at which the game ends, so a
//! faster win is better and a slower loss less bad); a draw scores 0; a position where the game
//! is over is never searched further, and neither is one at the game's ply cap.
//!
//! Among equally valued root moves the first in canonical order is chosen. Alpha-beta orders
//! moves for speed (iterative deepening at the root, killer moves and a history table inside)
//! but searches each root move that precedes the current best in canonical order with a window
//! that admits ties, so it returns exactly the move and value plain minimax returns. With an
//! evaluator that bounds its leaves cheaply ([`Evaluator::BOUNDS`], the network) most leaves are
//! valued only as far as their parent's window needs (see `Tree::fails_low_key`): the same move and
//! value, fewer exact evaluations.

mod evaluator;
mod ordering;
mod transpositions;

pub use evaluator::{EVAL_LIMIT, Evaluator};

use crate::{Color, GameEnd, Move, MoveList, NoMoves, Outcome, Position, Rules};
use ordering::{MoveTable, Ordering};
use transpositions::{Bound, ValueTable};

/// The score of a win at the root; a win `k` plies later scores `WIN - k`.
pub const WIN: f32 = 1_000_000.0;

/// What a search is asked to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchLimits {
    /// Plies to search (1 = look at the moves available and evaluate the results).
    pub depth: u32,
    /// Plies left before the game's ply cap ends it in a tie (`u32::MAX` for none).
    pub plies_left: u32,
}

impl SearchLimits {
    /// A search of `depth` plies in a game that has played `plies_played` plies under `rules`.
    pub fn new(depth: u32, rules: &Rules, plies_played: u32) -> SearchLimits {
        let plies_left = if rules.ply_cap == 0 { u32::MAX } else { rules.ply_cap.saturating_sub(plies_played) };
        SearchLimits { depth, plies_left }
    }
}

/// The result of a search.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SearchResult {
    /// The move to play: `None` if the side to move has no legal move and the rules make it
    /// lose; [`Move::PASS`] if it has none and the rules make it pass.
    pub best: Option<Move>,
    /// The value of the root for the side to move.
    pub value: f32,
    /// Positions visited, the root included.
    pub nodes: u64,
}

/// The score of a finished game for `side`, the game having ended `ply` plies below the root.
#[inline]
fn terminal_score(end: GameEnd, side: Color, ply: u32) -> f32 {
    match end.outcome {
        Outcome::Draw => 0.0,
        Outcome::Win(winner) if winner == side => WIN - ply as f32,
        Outcome::Win(_) => -(WIN - ply as f32),
    }
}

/// What the two searches share: the rules, limits, evaluator and node count.
struct Tree<'a, E: Evaluator> {
    rules: &'a Rules,
    limits: SearchLimits,
    eval: &'a E,
    pov: Color,
    nodes: u64,
    order: Ordering,
    table: MoveTable,
    /// Subtree values of this search, for path-independent evaluators only (else empty).
    values: ValueTable,
    /// The depth of the current iteration of [`alpha_beta`]'s iterative deepening.
    iteration: u32,
    /// The last answers of [`Evaluator::key_at_most`] and [`Evaluator::key_at_least`], with the
    /// values they were asked for: sibling leaves' parents mostly share their window, and the
    /// network's answer costs a logarithm.
    key_cache: [(f32, f32); 2],
}

impl<'a, E: Evaluator> Tree<'a, E> {
    fn new(rules: &'a Rules, limits: SearchLimits, eval: &'a E, pov: Color) -> Self {
        let (order, table) = (Ordering::new(), MoveTable::take());
        let values = if E::PATH_INDEPENDENT { ValueTable::take() } else { ValueTable::empty() };
        let key_cache = [(f32::NAN, f32::NAN); 2];
        Tree { rules, limits, eval, pov, nodes: 1, order, table, values, iteration: limits.depth, key_cache }
    }
}

impl<E: Evaluator> Drop for Tree<'_, E> {
    fn drop(&mut self) {
        std::mem::replace(&mut self.table, MoveTable::empty()).give_back();
        std::mem::replace(&mut self.values, ValueTable::empty()).give_back();
    }
}

impl<E: Evaluator> Tree<'_, E> {
    /// If the game is over at `child` (reached by `mv`, `ply` plies below the root) or `child`
    /// is a leaf, its value for the side to move there; otherwise `None` and the child's state.
    #[inline]
    fn settle(
        &mut self,
        child: &Position,
        mv: Move,
        state: &E::State,
        parent: &Position,
        depth: u32,
        ply: u32,
    ) -> Result<f32, E::State> {
        self.nodes += 1;
        if let Some(end) = child.connection_end_after(mv, self.rules) {
            return Ok(terminal_score(end, child.side_to_move(), ply));
        }
        if ply >= self.limits.plies_left {
            return Ok(0.0);
        }
        let child_state = self.eval.child_state(state, parent, mv);
        if depth == 0 {
            let v = self.eval.evaluate(&child_state, child);
            return Ok(if child.side_to_move() == self.pov { v } else { -v });
        }
        Err(child_state)
    }

    /// Plain minimax (negamax form): every move, no pruning.
    fn minimax(&mut self, pos: &Position, state: &E::State, depth: u32, ply: u32) -> f32 {
        let moves = match moves_or_end(pos, self.rules, ply, Position::generate_moves) {
            Ok(moves) => moves,
            Err(loss) => return loss,
        };
        let mut best = f32::NEG_INFINITY;
        for &mv in moves.iter() {
            let child = pos.play(mv);
            let v = match self.settle(&child, mv, state, pos, depth - 1, ply + 1) {
                Ok(v) => -v,
                Err(child_state) => -self.minimax(&child, &child_state, depth - 1, ply + 1),
            };
            best = best.max(v);
        }
        best
    }

    /// Fail-soft alpha-beta (negamax form) with move ordering: first the move the table holds
    /// for this position from the previous iteration, then the killer moves, then the rest by
    /// [`Ordering::sort`]. The best move found goes into the table for the next iteration.
    ///
    /// A node one ply above the leaves was a leaf in the previous iteration, so the table holds
    /// nothing for it (short of a transposition), and in the last iteration nothing will read
    /// what it would store: there, the most numerous interior nodes, the table is left alone.
    ///
    /// With a path-independent evaluator, a node first asks the value table whether the same
    /// position at the same depth and ply was searched before in this iteration with a result
    /// that answers this window (see [`transpositions`] for why that changes no result), and
    /// records its own result there. Not at those last-iteration nodes either: a transposition
    /// there saves only one node's leaves, and probing them all cost more in cache misses than
    /// it saved (ALoA(5) visits a few more nodes without, and runs faster).
    ///
    /// The root's children (ply 1) never use the value table: its key holds the ply and the
    /// depth, and each root child is searched once an iteration, so no entry there is ever read.
    /// Nor, in the iterations up to depth 3, do they probe the move table: an entry for a root
    /// child could only come from an earlier iteration where root children were interior nodes
    /// (depth 2 or more, so not before depth 4 with the iterations' parity) or from an
    /// interior node at ply 3 or deeper of this one (the same position with the same side to
    /// move; none above depth 3), so only a hash collision could answer; and they store only
    /// for a later iteration. In a 3-ply network search every such probe missed the cache too.
    fn alpha_beta(&mut self, pos: &Position, state: &E::State, depth: u32, ply: u32, alpha: f32, beta: f32) -> f32 {
        let last_iteration = self.iteration == self.limits.depth;
        if depth == 1 && last_iteration {
            return self.alpha_beta_node(pos, None, state, depth, ply, alpha, beta).0;
        }
        if ply == 1 && self.iteration <= 3 {
            let (value, best_move) = self.alpha_beta_node(pos, None, state, depth, ply, alpha, beta);
            if !last_iteration && !best_move.is_pass() {
                self.table.store(MoveTable::hash(pos), best_move);
            }
            return value;
        }
        let hash = MoveTable::hash(pos);
        if E::PATH_INDEPENDENT
            && ply > 1
            && let Some(value) = self.values.probe(hash, pos, depth, ply, alpha, beta)
        {
            return value;
        }
        let (value, best_move) = self.alpha_beta_node(pos, Some(hash), state, depth, ply, alpha, beta);
        if !best_move.is_pass() {
            self.table.store(hash, best_move);
        }
        if E::PATH_INDEPENDENT && ply > 1 {
            let bound = if value <= alpha {
                Bound::Upper
            } else if value >= beta {
                Bound::Lower
            } else {
                Bound::Exact
            };
            self.values.store(hash, pos, depth, ply, value, bound);
        }
        value
    }

    /// [`Tree::alpha_beta`]'s node: its value and best move ([`Move::PASS`] for none).
    ///
    /// The table's move and the killers are tried before the others are generated: most
    /// cutoffs come from the first move searched, and such a node then costs neither move
    /// generation nor sorting.
    #[allow(clippy::too_many_arguments)]
    fn alpha_beta_node(
        &mut self,
        pos: &Position,
        hash: Option<u64>,
        state: &E::State,
        depth: u32,
        ply: u32,
        mut alpha: f32,
        beta: f32,
    ) -> (f32, Move) {
        let mut best = f32::NEG_INFINITY;
        let mut best_move = Move::PASS;
        let [k0, k1] = self.order.killers(ply as usize);
        let table_move = hash.and_then(|h| self.table.probe(h)).unwrap_or(Move::PASS);
        if depth == 1 && beta == f32::INFINITY {
            return self.uncut_leaf_parent(pos, state, ply, alpha, [table_move, k0, k1]);
        }
        let mut tried = [table_move, k0, k1];
        for k in 0..tried.len() {
            let mv = tried[k];
            // The table's move (a hash collision could give any move) or a killer recorded in
            // a sibling position: the same move, capture flag included, if it is legal here.
            if mv.is_pass() || tried[..k].contains(&mv) || !pos.is_legal(mv) {
                tried[k] = Move::PASS;
                continue;
            }
            let v = if E::BOUNDS && depth == 1 {
                self.lone_leaf_value(pos, state, mv, ply, alpha, beta)
            } else {
                self.child_value(pos, state, mv, depth, ply, alpha, beta)
            };
            if v > best {
                (best, best_move) = (v, mv);
                if v > alpha {
                    alpha = v;
                    if alpha >= beta {
                        self.order.record_cutoff(mv, ply as usize, depth);
                        return (best, best_move);
                    }
                }
            }
        }
        // Captures first, otherwise canonical order, as generated.
        let mut moves = match moves_or_end(pos, self.rules, ply, Position::generate_moves_captures_first) {
            Ok(moves) => moves,
            Err(loss) => return (loss, Move::PASS),
        };
        if tried != [Move::PASS; 3] {
            moves.retain(|mv| !tried.contains(mv));
        }
        // One ply above the leaves most nodes search every move; sorting by history costs more
        // than the cutoffs it brings forward, and the generated order stands. Above, the sort
        // gives what it gives from canonical order: its keys put every capture before every
        // other move, and it is stable.
        if depth != 1 {
            self.order.sort(&mut moves);
        }
        if depth == 1 {
            return self.leaf_parent(pos, state, &moves, ply, alpha, beta, (best, best_move));
        }
        for &mv in moves.iter() {
            let v = self.child_value(pos, state, mv, depth, ply, alpha, beta);
            if v > best {
                (best, best_move) = (v, mv);
                if v > alpha {
                    alpha = v;
                    if alpha >= beta {
                        self.order.record_cutoff(mv, ply as usize, depth);
                        break;
                    }
                }
            }
        }
        (best, best_move)
    }

    /// A node one ply above the leaves searched with no upper bound (`beta` = +∞: in a 3-ply
    /// search the first child searched at each root child, about a third of the leaves'
    /// parents), which no move can cut off, so every move is valued. The moves are generated
    /// first and the table's move and the killers, those in the list, put in front, so they go
    /// in the first batch instead of one at a time (a lone exact evaluation costs about as much
    /// as 3.6 in a batch). The same moves in the same order as [`Tree::alpha_beta_node`] tries
    /// them (a move is legal exactly when it is generated), so the same value, best move and
    /// node count.
    fn uncut_leaf_parent(
        &mut self,
        pos: &Position,
        state: &E::State,
        ply: u32,
        alpha: f32,
        tried: [Move; 3],
    ) -> (f32, Move) {
        let mut moves = match moves_or_end(pos, self.rules, ply, Position::generate_moves_captures_first) {
            Ok(moves) => moves,
            Err(loss) => return (loss, Move::PASS),
        };
        let mut front = 0;
        for mv in tried {
            let list = moves.as_mut_slice();
            // A move already put in front is not found again: a repeated killer goes once.
            if !mv.is_pass()
                && let Some(i) = list[front..].iter().position(|&m| m == mv)
            {
                list[front..=front + i].rotate_right(1);
                front += 1;
            }
        }
        self.leaf_parent(pos, state, &moves, ply, alpha, f32::INFINITY, (f32::NEG_INFINITY, Move::PASS))
    }

    /// [`Tree::child_value`] of a leaf tried on its own at a leaves' parent (the table's move
    /// or a killer, before the moves are generated), with a bounding evaluator: its key is
    /// bounded first and the exact value computed only if the bounds do not settle it
    /// ([`Tree::fails_low_key`]). The killer cuts off at 88 % of the leaves' parents that try
    /// it, and its bounds decide that with no `tanh` of the output.
    fn lone_leaf_value(&mut self, pos: &Position, state: &E::State, mv: Move, ply: u32, alpha: f32, beta: f32) -> f32 {
        let child = pos.play(mv);
        // A depth above 0, so that `settle` stops short of evaluating the leaf.
        let child_state = match self.settle(&child, mv, state, pos, 1, ply + 1) {
            Ok(v) => return -v,
            Err(child_state) => child_state,
        };
        let (mut lo, mut hi) = ([0.0f32], [0.0f32]);
        self.eval.bound_many(std::slice::from_ref(&child_state), std::slice::from_ref(&child), &mut lo, &mut hi);
        let for_root_player = pos.side_to_move() == self.pov;
        let (low, high) = if for_root_player { (lo[0], hi[0]) } else { (-hi[0], -lo[0]) };
        // The cutoff first: it settles most of these leaves, and its key is mostly cached.
        if low >= self.cut_key(for_root_player, beta) {
            return beta;
        }
        if high <= self.fails_low_key(for_root_player, alpha) {
            return alpha;
        }
        let exact = self.eval.evaluate(&child_state, &child);
        if for_root_player { exact } else { -exact }
    }

    /// The value of `mv` at a node of [`Tree::alpha_beta`] (for the side to move at `pos`).
    #[inline]
    #[allow(clippy::too_many_arguments)]
    fn child_value(
        &mut self,
        pos: &Position,
        state: &E::State,
        mv: Move,
        depth: u32,
        ply: u32,
        alpha: f32,
        beta: f32,
    ) -> f32 {
        let child = pos.play(mv);
        match self.settle(&child, mv, state, pos, depth - 1, ply + 1) {
            Ok(v) => -v,
            Err(child_state) => -self.alpha_beta(&child, &child_state, depth - 1, ply + 1, -beta, -alpha),
        }
    }

    /// The values of the root's moves when they are leaves (the 1-ply iteration), into each
    /// entry's score: for each, the root's value of what [`Tree::settle`] gives (the same bits
    /// and node count), with the evaluations [`BATCH`] at a time instead of one by one (a lone
    /// exact evaluation costs about as much as 3.6 in a batch; there is no window to bound them
    /// against).
    fn value_root_leaves(&mut self, pos: &Position, state: &E::State, root: &mut [(Move, f32)]) {
        let mut children = [*pos; BATCH];
        let mut states = [*state; BATCH];
        for chunk in root.chunks_mut(BATCH) {
            let mut slot = [usize::MAX; BATCH];
            let mut pending = [Move::PASS; BATCH];
            let mut count = 0;
            for (i, entry) in chunk.iter_mut().enumerate() {
                self.nodes += 1;
                let child = pos.play(entry.0);
                // The children have the opponent to move: their values for it, negated.
                if let Some(end) = child.connection_end_after(entry.0, self.rules) {
                    entry.1 = -terminal_score(end, child.side_to_move(), 1);
                } else if 1 >= self.limits.plies_left {
                    entry.1 = -0.0;
                } else {
                    (pending[count], children[count], slot[i]) = (entry.0, child, count);
                    count += 1;
                }
            }
            self.eval.child_states(state, pos, &pending[..count], &mut states[..count]);
            let mut values = [0.0f32; BATCH];
            self.eval.evaluate_many(&states[..count], &children[..count], &mut values[..count]);
            // The evaluator speaks for the point of view, who mostly moves here: then `settle`
            // would give the child −value and the root negate it back.
            let for_pov = pos.side_to_move() == self.pov;
            for (entry, &s) in chunk.iter_mut().zip(&slot) {
                if s != usize::MAX {
                    entry.1 = if for_pov { values[s] } else { -values[s] };
                }
            }
        }
    }

    /// The rest of an alpha-beta node one ply above the leaves, `moves` in search order: the
    /// children are settled and evaluated [`BATCH`] at a time with [`Evaluator::evaluate_many`]
    /// (most leaves are children of nodes where every move must be searched, and evaluating
    /// several at once overlaps their latency), then taken in order exactly as one by one. A
    /// cutoff may leave some evaluated children unused; they are not counted as nodes.
    ///
    /// With an evaluator that bounds cheaply ([`Evaluator::BOUNDS`], the network) the batch
    /// gets bounds instead, and a child is evaluated exactly only when they do not decide
    /// ([`Tree::fails_low_key`]): about 3 % of a 3-ply network search's leaves.
    #[allow(clippy::too_many_arguments)]
    fn leaf_parent(
        &mut self,
        pos: &Position,
        state: &E::State,
        moves: &[Move],
        ply: u32,
        mut alpha: f32,
        beta: f32,
        (mut best, mut best_move): (f32, Move),
    ) -> (f32, Move) {
        let child_ply = ply + 1;
        // Every child has the same side to move: the one not to move at `pos`. The evaluator
        // speaks for the root player, the negamax value for the side to move here.
        let for_root_player = pos.side_to_move() == self.pov;
        let mut children = [*pos; BATCH];
        let mut states = [*state; BATCH];
        // With bounds: the keys that settle a leaf against the window, beta's for good, alpha's
        // when first needed and again after alpha rises.
        let cut_key = if E::BOUNDS { self.cut_key(for_root_player, beta) } else { f32::NAN };
        let mut low_key = None;
        for chunk in moves.chunks(BATCH) {
            // Per child: its value if settled without the evaluator, else its slot in the batch.
            let mut settled = [0.0f32; BATCH];
            let mut slot = [usize::MAX; BATCH];
            let mut pending = [Move::PASS; BATCH];
            let mut count = 0;
            for (i, &mv) in chunk.iter().enumerate() {
                // Judged from this position's sets; the child is built only if evaluated.
                if let Some(end) = pos.connection_end_of_move(mv, self.rules) {
                    settled[i] = terminal_score(end, pos.side_to_move().opponent(), child_ply);
                } else if child_ply >= self.limits.plies_left {
                    settled[i] = 0.0;
                } else {
                    pending[count] = mv;
                    children[count] = pos.play(mv);
                    slot[i] = count;
                    count += 1;
                }
            }
            self.eval.child_states(state, pos, &pending[..count], &mut states[..count]);
            // Exact values, or with a bounding evaluator bounds on keys (`values` the lower ones).
            let mut values = [0.0f32; BATCH];
            let mut upper = [0.0f32; BATCH];
            if E::BOUNDS {
                self.eval.bound_many(&states[..count], &children[..count], &mut values[..count], &mut upper[..count]);
            } else {
                self.eval.evaluate_many(&states[..count], &children[..count], &mut values[..count]);
            }
            for (i, &mv) in chunk.iter().enumerate() {
                self.nodes += 1;
                let v = match slot[i] {
                    usize::MAX => -settled[i],
                    s if E::BOUNDS => {
                        let (low, high) = if for_root_player { (values[s], upper[s]) } else { (-upper[s], -values[s]) };
                        if high <= *low_key.get_or_insert_with(|| self.fails_low_key(for_root_player, alpha)) {
                            alpha
                        } else if low >= cut_key {
                            beta
                        } else {
                            let exact = self.eval.evaluate(&states[s], &children[s]);
                            if for_root_player { exact } else { -exact }
                        }
                    }
                    s if for_root_player => values[s],
                    s => -values[s],
                };
                if v > best {
                    (best, best_move) = (v, mv);
                    if v > alpha {
                        alpha = v;
                        if alpha >= beta {
                            self.order.record_cutoff(mv, ply as usize, 1);
                            return (best, best_move);
                        }
                        low_key = None;
                    }
                }
            }
        }
        (best, best_move)
    }

    /// The key at or below which a leaf's value is at most `alpha` for the side to move at its
    /// parent, keys turned to that side: negated where it is not the root player, whose side
    /// the evaluator speaks for, so that a higher key is better for the side to move either
    /// way. NaN (which no comparison passes) if none is.
    ///
    /// With it and [`Tree::cut_key`] a leaf's parent settles a leaf from bounds on its key: a
    /// leaf that cannot rise above alpha takes the value alpha (fail-soft alpha-beta takes any
    /// value at or below alpha that is at least the true one), one that reaches beta takes beta
    /// (any value at or above beta that is at most the true one). Each leaf so keeps the
    /// contract a child's value has in fail-soft alpha-beta, so its parent's value keeps it
    /// too, and the root's move and value are exactly those of exact values: the parent cuts
    /// off at the same child, and only the value a node returns when it fails changes.
    #[inline]
    fn fails_low_key(&mut self, for_root_player: bool, alpha: f32) -> f32 {
        if for_root_player { self.key_at_most(alpha) } else { -self.key_at_least(-alpha) }
    }

    /// The key at or above which a leaf's value is at least `beta` for the side to move at its
    /// parent (keys turned as for [`Tree::fails_low_key`]).
    #[inline]
    fn cut_key(&mut self, for_root_player: bool, beta: f32) -> f32 {
        if for_root_player { self.key_at_least(beta) } else { -self.key_at_most(-beta) }
    }

    /// [`Evaluator::key_at_most`], through the tree's cache.
    #[inline]
    fn key_at_most(&mut self, value: f32) -> f32 {
        self.cached_key(0, value, E::key_at_most)
    }

    /// [`Evaluator::key_at_least`], through the tree's cache.
    #[inline]
    fn key_at_least(&mut self, value: f32) -> f32 {
        self.cached_key(1, value, E::key_at_least)
    }

    /// `answer`'s key for `value`, from cache entry `slot` if that was asked for the same value.
    #[inline(always)]
    fn cached_key(&mut self, slot: usize, value: f32, answer: fn(&E, f32) -> f32) -> f32 {
        let (asked, key) = self.key_cache[slot];
        if asked.to_bits() == value.to_bits() {
            return key;
        }
        let key = answer(self.eval, value);
        self.key_cache[slot] = (value, key);
        key
    }
}

/// Leaves evaluated together by [`Tree::leaf_parent`].
const BATCH: usize = 8;

/// The legal moves at a node `ply` plies below the root as `generate` lists them, just
/// [`Move::PASS`] if there are none and the side may pass, or the value of the loss if there are
/// none and the side loses.
#[inline]
fn moves_or_end(
    pos: &Position,
    rules: &Rules,
    ply: u32,
    generate: impl Fn(&Position, &mut MoveList),
) -> Result<MoveList, f32> {
    let mut moves = MoveList::new();
    generate(pos, &mut moves);
    if moves.is_empty() {
        match rules.no_moves {
            NoMoves::Loses => return Err(-(WIN - ply as f32)),
            NoMoves::Passes => moves.push(Move::PASS),
        }
    }
    Ok(moves)
}

/// The root's moves, or the result when the side to move has none and loses.
fn root_moves(pos: &Position, rules: &Rules) -> Result<MoveList, SearchResult> {
    moves_or_end(pos, rules, 0, Position::generate_moves).map_err(|value| SearchResult { best: None, value, nodes: 1 })
}

/// Plain minimax to `limits.depth` plies: the reference alpha-beta must agree with. Root moves
/// are tried in canonical order and only a strictly better value replaces the best, so the first
/// of equally valued moves wins. `pos` must not be a finished game.
pub fn minimax<E: Evaluator>(pos: &Position, rules: &Rules, limits: SearchLimits, eval: &E) -> SearchResult {
    let moves = match root_moves(pos, rules) {
        Ok(m) => m,
        Err(result) => return result,
    };
    let mut tree = Tree::new(rules, limits, eval, pos.side_to_move());
    let state = eval.root_state(pos, tree.pov);
    let depth = limits.depth.max(1);
    let (mut best, mut best_value) = (moves[0], f32::NEG_INFINITY);
    for &mv in moves.iter() {
        let child = pos.play(mv);
        let v = match tree.settle(&child, mv, &state, pos, depth - 1, 1) {
            Ok(v) => -v,
            Err(child_state) => -tree.minimax(&child, &child_state, depth - 1, 1),
        };
        if v > best_value {
            (best, best_value) = (mv, v);
        }
    }
    SearchResult { best: Some(best), value: best_value, nodes: tree.nodes }
}

/// Alpha-beta to `limits.depth` plies with iterative deepening (over the depths of its parity)
/// and move ordering; returns the same move and value as [`minimax`] in far fewer nodes. `pos`
/// must not be a finished game.
pub fn alpha_beta<E: Evaluator>(pos: &Position, rules: &Rules, limits: SearchLimits, eval: &E) -> SearchResult {
    alpha_beta_for(pos, rules, limits, eval, pos.side_to_move())
}

/// [`alpha_beta`] with the leaves evaluated from `pov`'s side whoever is to move: the value is
/// still the side to move's, the negation of `pov`'s where `pov` is not to move. A search of a
/// position inside another's tree, seen as that search sees it: what follows a principal
/// variation's first move from the root's point of view (the network's evaluation is not
/// antisymmetric, so the side to move's own search may reply otherwise).
pub fn alpha_beta_for<E: Evaluator>(
    pos: &Position,
    rules: &Rules,
    limits: SearchLimits,
    eval: &E,
    pov: Color,
) -> SearchResult {
    let moves = match root_moves(pos, rules) {
        Ok(m) => m,
        Err(result) => return result,
    };
    let mut tree = Tree::new(rules, limits, eval, pov);
    let state = eval.root_state(pos, tree.pov);
    // Root moves with the score of the last iteration, best first (ties in canonical order).
    let mut root: Vec<(Move, f32)> = moves.iter().map(|&m| (m, 0.0)).collect();
    let mut result = (moves[0], f32::NEG_INFINITY);
    // Iterative deepening over the depths of the final depth's parity (1, 3, 5 or 2, 4): a
    // search orders moves best after one that ended with the same side to move at its leaves
    // (the odd-even effect), and the skipped iterations cost more than they saved: on the
    // bench's positions ALoA and 3-ply networks visit fewer nodes than with every depth. A
    // 2-ply search keeps its 1-ply iteration, which orders its root for a few nodes (without
    // it, far more).
    let last = limits.depth.max(1);
    for depth in (1..=last).filter(|&d| (last - d).is_multiple_of(2) || last == 2) {
        tree.iteration = depth;
        if depth == 1 {
            tree.value_root_leaves(pos, &state, &mut root);
        }
        let (mut best, mut best_value) = (None::<Move>, f32::NEG_INFINITY);
        for entry in root.iter_mut() {
            let mv = entry.0;
            // A move before the current best in canonical order wins a tie, so search it with a
            // lower bound just below the best value: it comes back exact if it ties or beats it.
            let lower = match best {
                Some(b) if mv < b => best_value.next_down(),
                _ => best_value,
            };
            let v = if depth == 1 {
                entry.1
            } else {
                let child = pos.play(mv);
                match tree.settle(&child, mv, &state, pos, depth - 1, 1) {
                    Ok(v) => -v,
                    // After the first move, with a path-independent evaluator, a null window
                    // first (does the move beat `lower`?) and the full one only if it does
                    // (principal variation search at the root): the value table keeps what the
                    // first search learnt, and ALoA moves faster. Without the table (the
                    // network) the second search starts over, and matches were slower.
                    Err(child_state) if best.is_none() || !E::PATH_INDEPENDENT => {
                        -tree.alpha_beta(&child, &child_state, depth - 1, 1, f32::NEG_INFINITY, -lower)
                    }
                    Err(child_state) => {
                        let scout = -tree.alpha_beta(&child, &child_state, depth - 1, 1, -lower.next_up(), -lower);
                        if scout > lower {
                            -tree.alpha_beta(&child, &child_state, depth - 1, 1, f32::NEG_INFINITY, -lower)
                        } else {
                            scout
                        }
                    }
                }
            };
            entry.1 = v;
            if v > best_value || (v == best_value && best.is_some_and(|b| mv < b)) {
                (best, best_value) = (Some(mv), v);
            }
        }
        result = (best.unwrap_or(moves[0]), best_value);
        // Next iteration: best first, then by score; a stable sort keeps canonical order in ties.
        root.sort_by(|a, b| b.1.total_cmp(&a.1));
        if let Some(i) = root.iter().position(|e| e.0 == result.0) {
            root[..=i].rotate_right(1);
        }
    }
    SearchResult { best: Some(result.0), value: result.1, nodes: tree.nodes }
}
