//! `Evaluator`: candidates' fitness by the master's own judging, played as its match tasks on
//! the master's scheduler (embedded threads, and remote workers when it listens).

use crate::network::Network;
use crate::network::{topology, weight_rows, weight_vector};
use crate::value_error;
use loa_engine::network::symmetry::{Tying, WeightTying};
use loa_engine::network::{Chromosome, Topology};
use loa_engine::random::derive_seed;
use loa_engine::tasks::Task;
use loa_master::cluster::{ClusterOptions, TlsIdentity};
use loa_master::config::ExperimentConfig;
use loa_master::pool::WorkerPool;
use loa_master::population::{Individual, SerialCounter};
use loa_master::rng::GaRng;
use loa_master::run::runner::task_id;
use loa_master::scheduler::{TaskId, VerifyRate};
use loa_master::selection::Breeding;
use loa_master::selection::judging::{self, Fitness, JudgingConfig, JudgingState};
use numpy::PyArray1;
use pyo3::exceptions::{PyOSError, PyRuntimeError};
use pyo3::prelude::*;
use std::cell::RefCell;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, TryLockError};

/// Keeps the Evaluator's draws of opponents apart from a run's with the same seed.
const EVALUATOR_TAG: u64 = 0xE7A1_0A7E;

/// What changes from call to call.
struct Calls {
    /// Calls that returned fitness (the next is generation `done + 1`).
    done: u64,
    /// The ladder's rung.
    judging: JudgingState,
}

/// A fitness function with an ask/tell shape: ``evaluate(population)`` judges each row of a 2-D
/// array of weights (one candidate a row, ``weight_count(shape)`` columns) as a master's scheme
/// judges its candidates, and returns their fitness: the mean score per game (points, win 1 draw
/// ½, with ``fitness="points"``; the benchmark score with ``"benchmark-score"``).
///
/// The settings are those of the schemes' judging (docs/config.md): ``opponents`` drawn peers,
/// ``fixed_opponents`` (player specs such as ``"random:1"``) met in ``fixed_matches`` matches,
/// ``groups``, a ``ladder`` with ``promote_at``, ``opening_plies``; ``depth`` is the networks'
/// search depth; the board is the one ``shape`` reads (``board``, if given, must be it). With
/// ``symmetry="invariant"`` or ``"equivariant"`` (the thesis's shape only) a row holds one value
/// per class of weights tied by the board's symmetries (``dimension``: 361 or 277), as the
/// master's evolution strategies and CMA-ES search them.
///
/// The matches are the master's match tasks, played on ``threads`` embedded threads (every core
/// if None; with ``listen``, none unless given) and, with ``listen`` (``"127.0.0.1:0"``: any
/// free port, see ``address``) and ``token``, on remote ``worker`` processes that join as they
/// join a master, their outcomes verified by replay at the share ``verify``; with ``tls_cert``
/// and ``tls_key`` (PEM files, as the master's ``--tls-cert`` and ``--tls-key``) over TLS, the
/// workers joining at ``https://`` with ``--tls-ca``. Fitness depends on
/// the seed, the call's index and the population only, whoever plays. Calls release the GIL;
/// Ctrl-C stops one and raises KeyboardInterrupt, and the call's index is not used up.
#[pyclass(frozen, module = "loa_evolve._native")]
pub struct Evaluator {
    config: ExperimentConfig,
    judging: JudgingConfig,
    tying: Option<Tying>,
    calls: Mutex<Calls>,
    /// `calls`' count and rung, for the getters, which must not wait for a running call.
    done: AtomicU64,
    rung: AtomicU32,
    /// The last call's games (high half) and plies (low half).
    last: AtomicU64,
    pool: Mutex<Option<WorkerPool>>,
    address: Option<String>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

#[pymethods]
impl Evaluator {
    #[new]
    #[pyo3(signature = (
        shape = "board-nonad-100-20-1", *, opponents = 4, fixed_opponents = Vec::new(), fixed_matches = 1,
        opening_plies = 0, fitness = "points", groups = 0, ladder = Vec::new(), promote_at = 0.5, seed = 1,
        depth = 1, board = None, start = "standard", threads = None, listen = None, token = None,
        verify = "0.03", symmetry = "none", tls_cert = None, tls_key = None
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        shape: &str,
        opponents: u32,
        fixed_opponents: Vec<String>,
        fixed_matches: u32,
        opening_plies: u32,
        fitness: &str,
        groups: u32,
        ladder: Vec<String>,
        promote_at: f64,
        seed: u64,
        depth: u32,
        board: Option<&Bound<'_, PyAny>>,
        start: &str,
        threads: Option<usize>,
        listen: Option<&str>,
        token: Option<String>,
        verify: &str,
        symmetry: &str,
        tls_cert: Option<PathBuf>,
        tls_key: Option<PathBuf>,
    ) -> PyResult<Evaluator> {
        let network = topology(shape)?;
        let tying = match symmetry.parse::<WeightTying>().map_err(|e| value_error(format!("symmetry: {e}")))? {
            WeightTying::None => None,
            _ if network != Topology::THESIS => {
                let why = format!(
                    "symmetry: weights are tied on the thesis's shape {} only, not {network}",
                    Topology::THESIS
                );
                return Err(value_error(why));
            }
            kind => Some(Tying::new(kind)),
        };
        let config = ExperimentConfig {
            seed,
            network_depth: depth,
            network,
            start: crate::args::start(start)?,
            ..ExperimentConfig::default()
        };
        if let Some(board) = board {
            let size = crate::args::board(board)?;
            loa_engine::players::network_plays_on(network, size).map_err(value_error)?;
        }
        let fitness = match fitness {
            "points" => Fitness::Points,
            "benchmark-score" => Fitness::BenchmarkScore,
            other => return Err(value_error(format!("fitness: `{other}` is not points or benchmark-score"))),
        };
        let judging = JudgingConfig {
            opponents,
            fixed_opponents,
            fitness,
            opening_plies,
            fixed_matches,
            groups,
            ladder,
            promote_at,
            ..JudgingConfig::default()
        };
        // The checks a run makes; those that depend on the population are made again per call.
        check(&config, &judging, usize::MAX)?;
        let tls = match (tls_cert, tls_key, listen) {
            (None, None, _) => None,
            (Some(cert), Some(key), Some(_)) => {
                Some(TlsIdentity::read(&cert, &key).map_err(|e| PyOSError::new_err(e.to_string()))?)
            }
            (Some(_), Some(_), None) => return Err(value_error("tls_cert: needs listen (TLS is for remote workers)")),
            (Some(_), None, _) => return Err(value_error("tls_cert: needs tls_key, its private key")),
            (None, Some(_), _) => return Err(value_error("tls_key: needs tls_cert, its certificate")),
        };
        let cluster = match listen {
            None => None,
            Some(listen) => {
                let addr: std::net::SocketAddr =
                    listen.parse().map_err(|e| value_error(format!("listen: `{listen}`: {e}")))?;
                // The master's rules for its --token: a port other hosts reach needs a real one.
                let public = !addr.ip().is_loopback();
                match token.as_deref() {
                    Some(t) => loa_proto::check_token(t, public).map_err(|e| value_error(format!("token {e}")))?,
                    None if public => {
                        return Err(value_error(format!("token: required to listen on {addr}, which is not loopback")));
                    }
                    None => {}
                }
                let mut options = ClusterOptions::new(addr, token);
                options.tls = tls;
                options.verify = verify.parse::<VerifyRate>().map_err(|e| value_error(format!("verify: {e}")))?;
                Some(options)
            }
        };
        let threads = match (threads, &cluster) {
            (Some(0), None) => {
                return Err(value_error("threads must be at least 1 (or serve remote workers with listen)"));
            }
            (Some(n), _) => n,
            (None, Some(_)) => 0,
            (None, None) => crate::args::threads(None)?,
        };
        let pool = WorkerPool::start(threads, cluster.as_ref()).map_err(value_error)?;
        let address = pool.server.as_ref().map(|s| s.addr.to_string());
        let calls = Calls { done: 0, judging: JudgingState::default() };
        Ok(Evaluator {
            config,
            judging,
            tying,
            calls: Mutex::new(calls),
            done: AtomicU64::new(0),
            rung: AtomicU32::new(0),
            last: AtomicU64::new(0),
            pool: Mutex::new(Some(pool)),
            address,
        })
    }

    /// The fitness of each row of ``population`` (a 2-D float32 or float64 array), as a float64
    /// array: higher is fitter. Releases the GIL while the games are played.
    fn evaluate<'py>(&self, py: Python<'py>, population: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let rows = weight_rows("population", population)?;
        let n = rows.len();
        check(&self.config, &self.judging, n)?;
        let candidates = rows
            .into_iter()
            .enumerate()
            .map(|(i, row)| {
                let chromosome = self.chromosome(row).map_err(|e| value_error(format!("population row {i}: {e}")))?;
                Ok(Individual { serial: i as u64, chromosome: Arc::new(chromosome) })
            })
            .collect::<PyResult<Vec<_>>>()?;
        let scheduler = {
            let pool = lock(&self.pool);
            let pool = pool.as_ref().ok_or_else(|| value_error("the evaluator is closed"))?;
            Arc::clone(&pool.scheduler)
        };
        // One call at a time: the call's index is its generation. Not waited for: a thread
        // waiting here would hold the GIL the running call takes back to check for signals.
        let mut calls = match self.calls.try_lock() {
            Ok(calls) => calls,
            Err(TryLockError::Poisoned(poisoned)) => poisoned.into_inner(),
            Err(TryLockError::WouldBlock) => {
                return Err(PyRuntimeError::new_err("Evaluator.evaluate is already running in another thread"));
            }
        };
        let generation = calls.done + 1;
        let mut rng = GaRng::from_seed(derive_seed(self.config.seed ^ EVALUATOR_TAG, generation));
        let mut serials = SerialCounter::starting_at(n as u64);
        let mut breeding = Breeding { config: &self.config, generation, rng: &mut rng, serials: &mut serials };
        let (judged, tasks) = judging::plan(candidates, &self.judging, &calls.judging, &mut breeding);
        let tasks: Vec<(TaskId, Task)> =
            tasks.into_iter().enumerate().map(|(i, t)| (task_id(generation, false, i), Task::Match(t))).collect();
        let ids: Vec<TaskId> = tasks.iter().map(|(id, _)| *id).collect();
        let (results, interrupt) = py.detach(|| {
            scheduler.submit(tasks);
            let interrupt: RefCell<Option<PyErr>> = RefCell::new(None);
            // About every 100 ms: Ctrl-C is seen by Python's handler, which only Python code reads.
            let stop = || {
                if interrupt.borrow().is_some() {
                    return true;
                }
                match Python::attach(|py| py.check_signals()) {
                    Ok(()) => false,
                    Err(e) => {
                        *interrupt.borrow_mut() = Some(e);
                        true
                    }
                }
            };
            let results = scheduler.collect(&ids, stop, |_| {});
            if results.is_none() {
                scheduler.abandon(&ids);
            }
            (results, interrupt.into_inner())
        });
        let Some(results) = results else {
            return Err(
                interrupt.unwrap_or_else(|| PyRuntimeError::new_err("the evaluator was closed during the call"))
            );
        };
        let mut outcomes = Vec::with_capacity(results.len());
        let (mut games, mut plies) = (0u64, 0u64);
        for result in results {
            let outcome = result.map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
            (games, plies) = (games + u64::from(outcome.game_count()), plies + u64::from(outcome.plies()));
            outcomes.push(
                outcome
                    .into_match()
                    .ok_or_else(|| PyRuntimeError::new_err("a match task came back with another kind of outcome"))?,
            );
        }
        let scores =
            judged.scores(self.judging.fitness, &outcomes).map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
        calls.judging.promote(&self.judging, &scores);
        calls.done = generation;
        self.done.store(generation, Ordering::Release);
        self.rung.store(calls.judging.rung, Ordering::Release);
        self.last.store(games << 32 | plies.min(u64::from(u32::MAX)), Ordering::Release);
        // In the fitness's own unit, as the run's records report it: points, not the half-points
        // judging counts in (halving is exact, so the order is the master's).
        let scale = match self.judging.fitness {
            Fitness::Points => 0.5,
            Fitness::BenchmarkScore => 1.0,
        };
        Ok(PyArray1::from_vec(py, scores.means().into_iter().map(|m| m * scale).collect()))
    }

    /// The network a row stands for (its tied weights expanded, with ``symmetry``): a 1-D
    /// float32 or float64 array of ``dimension`` values.
    fn network(&self, row: &Bound<'_, PyAny>) -> PyResult<Network> {
        let row = weight_vector("row", row)?;
        Ok(Network::of(self.chromosome(row).map_err(|e| value_error(format!("row: {e}")))?))
    }

    /// Calls that returned fitness so far: the next call is judged as generation ``calls + 1``.
    #[getter]
    fn calls(&self) -> u64 {
        self.done.load(Ordering::Acquire)
    }

    /// The values per candidate: ``weight_count(shape)``, or the free parameters of the tying.
    #[getter]
    fn dimension(&self) -> usize {
        self.tying.as_ref().map_or(self.config.network.weight_count(), Tying::count)
    }

    /// The network shape's name.
    #[getter]
    fn shape(&self) -> String {
        self.config.network.to_string()
    }

    /// The address remote workers join (``worker --master http://ADDRESS``), if listening.
    #[getter]
    fn address(&self) -> Option<String> {
        self.address.clone()
    }

    /// The games the last call played (0 before the first).
    #[getter]
    fn last_games(&self) -> u64 {
        self.last.load(Ordering::Acquire) >> 32
    }

    /// The plies of the last call's games, all told (for speed figures: plies per second).
    #[getter]
    fn last_plies(&self) -> u64 {
        self.last.load(Ordering::Acquire) & u64::from(u32::MAX)
    }

    /// The ladder's current rung (index into ``ladder``).
    #[getter]
    fn rung(&self) -> u32 {
        self.rung.load(Ordering::Acquire)
    }

    /// Workers registered now (embedded threads and remote workers).
    #[getter]
    fn workers(&self) -> usize {
        lock(&self.pool).as_ref().map_or(0, |p| p.scheduler.workers().len())
    }

    /// Stops the worker threads and the service for remote workers; later calls are refused.
    fn close(&self, py: Python<'_>) {
        let pool = lock(&self.pool).take();
        if let Some(pool) = pool {
            py.detach(|| {
                pool.finish();
            });
        }
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*_args))]
    fn __exit__(&self, py: Python<'_>, _args: &Bound<'_, pyo3::types::PyTuple>) {
        self.close(py);
    }

    fn __repr__(&self) -> String {
        format!("Evaluator(shape={:?}, calls={})", self.shape(), self.calls())
    }
}

impl Evaluator {
    /// A candidate's chromosome from its row: the weights, or with a tying its classes' values.
    fn chromosome(&self, row: Vec<f32>) -> Result<Chromosome, String> {
        let weights = match &self.tying {
            None => row,
            Some(tying) if row.len() != tying.count() => {
                return Err(format!("{} values, the tied weights have {} free parameters", row.len(), tying.count()));
            }
            Some(tying) => tying.classes().iter().map(|&c| row[c as usize]).collect(),
        };
        Chromosome::new(self.config.network, weights).map_err(|e| e.to_string())
    }
}

impl Drop for Evaluator {
    fn drop(&mut self) {
        if let Some(pool) = lock(&self.pool).take() {
            pool.finish();
        }
    }
}

/// The judging settings' checks for `candidates` candidates (the master's words, the settings
/// named as the Evaluator's arguments).
fn check(config: &ExperimentConfig, judging: &JudgingConfig, candidates: usize) -> PyResult<()> {
    if candidates == 0 {
        return Err(value_error("population: no rows"));
    }
    if config.network_depth == 0 || config.network_depth > loa_engine::players::MAX_DEPTH {
        let most = loa_engine::players::MAX_DEPTH;
        return Err(value_error(format!("depth must be 1 to {most}, not {}", config.network_depth)));
    }
    judging.validate("Evaluator", candidates, config.board()).map_err(value_error)
}
