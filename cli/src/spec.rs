//! The text specs that name players on the command line: `aloa:5`, `aloa-normal:5`, `random:3`,
//! `randomann:3:SEED`, `net:3:FILE`.

use loa_engine::BoardSize;
use loa_engine::aloa::{Aloa, AloaKind};
use loa_engine::game::Player;
use loa_engine::network::{Chromosome, ChromosomeError, Network, Topology, random_uniform};
use loa_engine::players::{
    AloaPlayer, NetworkBoardError, RandomPlayer, RememberingPlayer, ShapedPlayer, network_plays_on,
};
use loa_engine::random::derive_seed;
use loa_engine::spec::{PlayerText, parse_player};
use loa_engine::tasks::FixedPlayer;
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

/// A player named on the command line, before any file is read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlayerSpec {
    /// `random:D[:SALT]`: the random heuristic searching D plies; its values are keyed by the
    /// game's seed (and the optional salt).
    Random {
        /// Search depth.
        depth: u32,
        /// Mixed into the game seed, so two random players in one series differ.
        salt: u64,
    },
    /// `aloa:D` (quad evaluator) or `aloa-normal:D` (Winands' normal evaluator).
    Aloa {
        /// Which evaluator.
        kind: AloaKind,
        /// Search depth.
        depth: u32,
    },
    /// `randomann:D[:SEED]`: a network with weights uniform in [-1, 1); without a seed, a fresh
    /// network for every match (drawn from the match's seed).
    RandomAnn {
        /// Search depth.
        depth: u32,
        /// Weight seed; `None` for a fresh network per match.
        seed: Option<u64>,
    },
    /// `net:D:FILE`: the network in a chromosome JSON file.
    Net {
        /// Search depth.
        depth: u32,
        /// The chromosome file.
        path: PathBuf,
    },
}

/// Why a player spec was rejected.
#[derive(Debug)]
pub enum PlayerError {
    /// Not of a known form.
    Syntax(String),
    /// The chromosome file could not be used.
    Chromosome(PathBuf, ChromosomeError),
    /// A network player asked to play a board it cannot read.
    Board(String, NetworkBoardError),
}

impl fmt::Display for PlayerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlayerError::Syntax(msg) => f.write_str(msg),
            // The chromosome error names the file already.
            PlayerError::Chromosome(_, e) => {
                write!(f, "{e} (net:D:FILE reads a chromosome JSON file, as `master export` and `loa imitate` write)")
            }
            PlayerError::Board(spec, e) => write!(f, "`{spec}`: {e}"),
        }
    }
}

impl std::error::Error for PlayerError {}

const FORMS: &str = "aloa:D, aloa-normal:D, random:D[:SALT], randomann:D[:SEED] or net:D:FILE";

impl std::str::FromStr for PlayerSpec {
    type Err = PlayerError;

    fn from_str(text: &str) -> Result<PlayerSpec, PlayerError> {
        let err = |why: &str| PlayerError::Syntax(format!("bad player `{text}`: {why} (use {FORMS})"));
        Ok(match parse_player(text).map_err(|why| err(&why))? {
            PlayerText::Fixed(FixedPlayer::Random { depth, salt }) => PlayerSpec::Random { depth, salt },
            PlayerText::Fixed(FixedPlayer::Aloa { evaluator, depth }) => PlayerSpec::Aloa { kind: evaluator, depth },
            PlayerText::Fixed(FixedPlayer::RandomAnn { depth, seed }) => {
                PlayerSpec::RandomAnn { depth, seed: Some(seed) }
            }
            PlayerText::FreshRandomAnn { depth, printed: false } => PlayerSpec::RandomAnn { depth, seed: None },
            PlayerText::Net { depth, path } => PlayerSpec::Net { depth, path },
            PlayerText::Fixed(FixedPlayer::RandomAnnPrinted { .. })
            | PlayerText::FreshRandomAnn { printed: true, .. } => {
                return Err(err("randomann-printed is for experiments (`master experiment`)"));
            }
            PlayerText::Other { kind, .. } => return Err(err(&format!("unknown player kind `{kind}`"))),
        })
    }
}

impl fmt::Display for PlayerSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlayerSpec::Random { depth, salt: 0 } => write!(f, "random:{depth}"),
            PlayerSpec::Random { depth, salt } => write!(f, "random:{depth}:{salt}"),
            PlayerSpec::Aloa { kind: AloaKind::Quad, depth } => write!(f, "aloa:{depth}"),
            PlayerSpec::Aloa { kind: AloaKind::Normal, depth } => write!(f, "aloa-normal:{depth}"),
            PlayerSpec::RandomAnn { depth, seed: None } => write!(f, "randomann:{depth}"),
            PlayerSpec::RandomAnn { depth, seed: Some(s) } => write!(f, "randomann:{depth}:{s}"),
            PlayerSpec::Net { depth, path } => write!(f, "net:{depth}:{}", path.display()),
        }
    }
}

/// A spec with its files read, ready to make players for each match.
#[derive(Clone, Debug)]
pub enum PreparedPlayer {
    /// A player that is the same in every match.
    Fixed(Arc<dyn PlayerDebug>),
    /// A fresh random network per match.
    FreshRandomAnn {
        /// Search depth.
        depth: u32,
    },
}

/// A [`Player`] that can also be printed for debugging.
pub trait PlayerDebug: Player + fmt::Debug + Send {}
impl<T: Player + fmt::Debug + Send> PlayerDebug for T {}

impl PlayerSpec {
    /// The search depth the spec names.
    pub fn depth(&self) -> u32 {
        match self {
            PlayerSpec::Random { depth, .. }
            | PlayerSpec::Aloa { depth, .. }
            | PlayerSpec::RandomAnn { depth, .. }
            | PlayerSpec::Net { depth, .. } => *depth,
        }
    }

    /// The same player searching `depth` plies.
    pub fn with_depth(&self, depth: u32) -> PlayerSpec {
        let mut spec = self.clone();
        match &mut spec {
            PlayerSpec::Random { depth: d, .. }
            | PlayerSpec::Aloa { depth: d, .. }
            | PlayerSpec::RandomAnn { depth: d, .. }
            | PlayerSpec::Net { depth: d, .. } => *d = depth,
        }
        spec
    }

    /// Whether this player can play on the `size` board: a network only on the board its shape
    /// reads (a RandomANN has the thesis's, 8×8; a file's network is read to know).
    pub fn plays_on(&self, size: BoardSize) -> Result<(), PlayerError> {
        let shape = match self {
            PlayerSpec::Random { .. } | PlayerSpec::Aloa { .. } => return Ok(()),
            PlayerSpec::RandomAnn { .. } => Topology::THESIS,
            PlayerSpec::Net { path, .. } => {
                Chromosome::read(path).map_err(|e| PlayerError::Chromosome(path.clone(), e))?.topology()
            }
        };
        network_plays_on(shape, size).map_err(|e| PlayerError::Board(self.to_string(), e))
    }

    /// [`PlayerSpec::prepare`] for games on the `size` board: an error if the player cannot
    /// play there.
    pub fn prepare_on(&self, size: BoardSize) -> Result<PreparedPlayer, PlayerError> {
        self.plays_on(size)?;
        self.prepare()
    }

    /// Reads any file the spec names and builds what can be built once (for the 8×8 board;
    /// [`PlayerSpec::prepare_on`] checks another board first).
    pub fn prepare(&self) -> Result<PreparedPlayer, PlayerError> {
        Ok(match self {
            PlayerSpec::Random { depth, salt } => {
                PreparedPlayer::Fixed(Arc::new(RandomPlayer { depth: *depth, salt: *salt }))
            }
            PlayerSpec::Aloa { kind, depth } => {
                PreparedPlayer::Fixed(Arc::new(AloaPlayer { eval: Aloa::new(*kind), depth: *depth }))
            }
            PlayerSpec::RandomAnn { depth, seed: Some(seed) } => {
                let net = Arc::new(Network::new(&random_uniform(*seed)));
                PreparedPlayer::Fixed(Arc::new(RememberingPlayer::new(net, *depth)))
            }
            PlayerSpec::RandomAnn { depth, seed: None } => PreparedPlayer::FreshRandomAnn { depth: *depth },
            PlayerSpec::Net { depth, path } => {
                let chromosome = Chromosome::read(path).map_err(|e| PlayerError::Chromosome(path.clone(), e))?;
                PreparedPlayer::Fixed(Arc::new(ShapedPlayer::new(&chromosome, *depth)))
            }
        })
    }
}

impl PreparedPlayer {
    /// The player for the match with seed `match_seed`.
    pub fn for_match(&self, match_seed: u64) -> Arc<dyn PlayerDebug> {
        match self {
            PreparedPlayer::Fixed(p) => Arc::clone(p),
            PreparedPlayer::FreshRandomAnn { depth } => {
                let net = Arc::new(Network::new(&random_uniform(derive_seed(match_seed, 0xA11))));
                Arc::new(RememberingPlayer::new(net, *depth))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_and_print() {
        for text in
            ["aloa:5", "aloa-normal:4", "random:3", "random:3:7", "randomann:3", "randomann:3:99", "net:3:x.json"]
        {
            let spec: PlayerSpec = text.parse().unwrap();
            assert_eq!(spec.to_string(), text);
        }
        let net: PlayerSpec = "net:3:x.json".parse().unwrap();
        assert_eq!((net.depth(), net.with_depth(5).to_string()), (3, "net:5:x.json".to_string()));
        assert_eq!("random:2:7".parse::<PlayerSpec>().unwrap().with_depth(4).to_string(), "random:4:7");
        assert_eq!(
            "net:2:a:b.json".parse::<PlayerSpec>().unwrap(),
            PlayerSpec::Net { depth: 2, path: "a:b.json".into() }
        );
    }

    #[test]
    fn bad_specs_are_named() {
        let msg = |t: &str| t.parse::<PlayerSpec>().unwrap_err().to_string();
        assert!(msg("aloa").contains("missing the search depth"));
        assert!(msg("aloa:x").contains("whole number"));
        assert!(msg("aloa:0").contains("1..=12"));
        assert!(msg("aloa:5:3").contains("unexpected text"));
        assert!(msg("chess:3").contains("unknown player kind `chess`"));
        assert!(msg("net:3").contains("missing the chromosome file"));
        assert!(msg("randomann:3:seed").contains("seed must be a whole number"));
    }

    #[test]
    fn network_players_refuse_boards_their_shape_does_not_read() {
        let six = BoardSize::new(6).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let small: Topology = "6x6-board-36-4-1".parse().unwrap();
        let small_file = dir.path().join("six.json");
        Chromosome::new(small, vec![0.1; small.weight_count()]).unwrap().write(&small_file).unwrap();
        let thesis_file = dir.path().join("thesis.json");
        random_uniform(3).write(&thesis_file).unwrap();
        let thesis_net = format!("net:3:{}", thesis_file.display());
        let small_net = format!("net:3:{}", small_file.display());
        for (text, refused, allowed) in [
            (thesis_net.as_str(), six, BoardSize::STANDARD),
            ("randomann:2", six, BoardSize::STANDARD),
            ("randomann:2:5", six, BoardSize::STANDARD),
            (small_net.as_str(), BoardSize::STANDARD, six),
        ] {
            let spec: PlayerSpec = text.parse().unwrap();
            let err = spec.prepare_on(refused).map(|_| ()).unwrap_err();
            assert!(matches!(err, PlayerError::Board(_, NetworkBoardError { size, .. }) if size == refused), "{err}");
            let msg = err.to_string();
            assert!(msg.contains(text) && msg.contains(&format!("not {refused}")), "{msg}");
            assert!(spec.prepare_on(allowed).is_ok(), "{text} on {allowed}");
        }
        for text in ["aloa:2", "aloa-normal:2", "random:2"] {
            let spec: PlayerSpec = text.parse().unwrap();
            for size in BoardSize::ALL {
                assert!(spec.prepare_on(size).is_ok(), "{text} {size}");
            }
        }
    }
}
