//! Networks from NumPy weights and a shape, and weights read from NumPy arrays.

use crate::position::Position;
use crate::value_error;
use loa_engine::network::{Chromosome, ShapedNetwork, Topology};
use numpy::{PyArray1, PyArray2, PyArrayMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::prelude::*;
use std::sync::Arc;

/// A network shape by name, e.g. ``board-nonad-100-20-1`` (the thesis's) or ``5x5-board-25-12-1``.
pub(crate) fn topology(shape: &str) -> PyResult<Topology> {
    shape.parse::<Topology>().map_err(|e| value_error(format!("shape: {e}")))
}

/// The number of weights of the network shape ``shape`` (2041 for ``board-nonad-100-20-1``).
#[pyfunction]
pub fn weight_count(shape: &str) -> PyResult<usize> {
    Ok(topology(shape)?.weight_count())
}

/// Rows of weights from a 2-D float32 or float64 NumPy array (`name` says which argument in an
/// error). float32 rows that are contiguous are read in place; float64 ones are converted.
pub(crate) fn weight_rows(name: &str, value: &Bound<'_, PyAny>) -> PyResult<Vec<Vec<f32>>> {
    let array = value
        .cast::<PyUntypedArray>()
        .map_err(|_| value_error(format!("{name}: expected a 2-D NumPy array, got {}", type_name(value))))?;
    if array.ndim() != 2 {
        return Err(value_error(format!(
            "{name}: expected a 2-D array (one row per candidate), got {} dimensions",
            array.ndim()
        )));
    }
    if let Ok(a) = value.cast::<PyArray2<f32>>() {
        let a = a.readonly();
        return Ok(a.as_array().rows().into_iter().map(|r| r.iter().copied().collect()).collect());
    }
    if let Ok(a) = value.cast::<PyArray2<f64>>() {
        let a = a.readonly();
        return Ok(a.as_array().rows().into_iter().map(|r| r.iter().map(|&w| w as f32).collect()).collect());
    }
    Err(value_error(format!("{name}: dtype {} is not float32 or float64", array.dtype())))
}

/// Weights from a 1-D float32 or float64 NumPy array, or a sequence of numbers (`name` says
/// which argument in an error).
pub(crate) fn weight_vector(name: &str, value: &Bound<'_, PyAny>) -> PyResult<Vec<f32>> {
    let Ok(array) = value.cast::<PyUntypedArray>() else {
        let numbers: Vec<f64> = value.extract().map_err(|_| {
            value_error(format!("{name}: expected a 1-D NumPy array or a list of numbers, got {}", type_name(value)))
        })?;
        return Ok(numbers.into_iter().map(|w| w as f32).collect());
    };
    if array.ndim() != 1 {
        return Err(value_error(format!("{name}: expected a 1-D array, got {} dimensions", array.ndim())));
    }
    if let Ok(a) = value.cast::<PyArray1<f32>>() {
        let a = a.readonly();
        // In place when contiguous: one copy, into the chromosome that owns its weights.
        return Ok(match a.as_slice() {
            Ok(slice) => slice.to_vec(),
            Err(_) => a.as_array().iter().copied().collect(),
        });
    }
    if let Ok(a) = value.cast::<PyArray1<f64>>() {
        return Ok(a.readonly().as_array().iter().map(|&w| w as f32).collect());
    }
    Err(value_error(format!("{name}: dtype {} is not float32 or float64", array.dtype())))
}

fn type_name(value: &Bound<'_, PyAny>) -> String {
    value.get_type().name().map_or_else(|_| "?".to_owned(), |n| n.to_string())
}

/// A network: a shape and its weights, checked (length, finite, at most 1e6 in magnitude).
///
/// ``Network(weights, shape="board-nonad-100-20-1")`` takes the weights as a 1-D float32 or
/// float64 NumPy array (or a list) in the layout of docs/spec.md §3; ``Network.read(path)`` a
/// chromosome JSON file.
#[pyclass(frozen, module = "loa_evolve._native")]
pub struct Network {
    pub(crate) chromosome: Arc<Chromosome>,
    net: ShapedNetwork,
}

impl Network {
    /// The network of a checked chromosome.
    pub(crate) fn of(chromosome: Chromosome) -> Network {
        let net = ShapedNetwork::new(&chromosome);
        Network { chromosome: Arc::new(chromosome), net }
    }
}

#[pymethods]
impl Network {
    #[new]
    #[pyo3(signature = (weights, shape = "board-nonad-100-20-1"))]
    fn new(weights: &Bound<'_, PyAny>, shape: &str) -> PyResult<Network> {
        let topology = topology(shape)?;
        let chromosome = Chromosome::new(topology, weight_vector("weights", weights)?).map_err(value_error)?;
        Ok(Network::of(chromosome))
    }

    /// The network in a chromosome JSON file (as ``net:D:FILE`` reads it).
    #[staticmethod]
    fn read(path: std::path::PathBuf) -> PyResult<Network> {
        Ok(Network::of(Chromosome::read(&path).map_err(value_error)?))
    }

    /// Writes the network as a chromosome JSON file, for ``net:D:FILE`` and the other programs.
    fn write(&self, path: std::path::PathBuf) -> PyResult<()> {
        self.chromosome.write(&path).map_err(value_error)
    }

    /// The network's output for ``position`` from the side to move's point of view (in
    /// (-1, 1)), as ``loa eval`` prints it. The position must be on the board the shape reads.
    fn evaluate(&self, position: &Position) -> PyResult<f32> {
        let pos = position.inner;
        self.check_board(&pos)?;
        Ok(self.net.evaluate_plain(&pos, pos.side_to_move()))
    }

    /// ``evaluate`` over a sequence of positions, as a float32 array. Releases the GIL.
    fn evaluate_many<'py>(
        &self,
        py: Python<'py>,
        positions: Vec<PyRef<'py, Position>>,
    ) -> PyResult<Bound<'py, PyArray1<f32>>> {
        let positions: Vec<loa_engine::Position> = positions.iter().map(|p| p.inner).collect();
        for pos in &positions {
            self.check_board(pos)?;
        }
        let net = &self.net;
        let values: Vec<f32> =
            py.detach(|| positions.iter().map(|pos| net.evaluate_plain(pos, pos.side_to_move())).collect());
        Ok(PyArray1::from_vec(py, values))
    }

    /// A copy of the weights, as a float32 array.
    #[getter]
    fn weights<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f32>> {
        PyArray1::from_slice(py, self.chromosome.weights())
    }

    /// The shape's name, e.g. ``board-nonad-100-20-1``.
    #[getter]
    fn shape(&self) -> String {
        self.chromosome.topology().to_string()
    }

    /// The board the network reads, e.g. ``"8x8"``.
    #[getter]
    fn board(&self) -> PyResult<String> {
        let size = loa_engine::BoardSize::new(self.chromosome.topology().side()).map_err(value_error)?;
        Ok(size.to_string())
    }

    /// The chromosome's content address (32 hex digits), as runs and workers name it.
    #[getter]
    fn id(&self) -> String {
        self.chromosome.id().to_string()
    }

    fn __len__(&self) -> usize {
        self.chromosome.weights().len()
    }

    fn __repr__(&self) -> String {
        format!("Network(shape={:?}, weights={})", self.shape(), self.chromosome.weights().len())
    }
}

impl Network {
    fn check_board(&self, pos: &loa_engine::Position) -> PyResult<()> {
        loa_engine::players::network_plays_on(self.chromosome.topology(), pos.size()).map_err(value_error)
    }
}
