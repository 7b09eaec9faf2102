//! A network of any shape in f64, with the gradient of its output: what gradient learners step.
//!
//! The layout is the chromosome's (docs/spec.md §3): each layer's weights unit-major, then its
//! biases, the output layer last, so [`Model::chromosome`] is a cast and nothing moves.

use loa_engine::network::{Chromosome, ChromosomeError, MAX_ABS_WEIGHT, SplitMix64, Topology};
use loa_engine::{Color, Position};

/// The most units a layer has (the shape's bound), so the passes keep their activations on the
/// stack.
const MAX_UNITS: usize = loa_engine::network::MAX_UNITS;

/// Why weights are not a model's.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ModelError {
    /// Not the shape's count.
    #[error("{found} weights for the shape {topology}, which has {}", topology.weight_count())]
    Count {
        /// Weights given.
        found: usize,
        /// The shape.
        topology: Topology,
    },
    /// A weight is NaN or infinite.
    #[error("weight {index} is not a finite number")]
    NotFinite {
        /// Its index.
        index: usize,
    },
}

/// A network's weights in f64 and the shape they belong to.
#[derive(Clone, Debug, PartialEq)]
pub struct Model {
    topology: Topology,
    /// The weights in the chromosome layout.
    pub weights: Vec<f64>,
}

impl Model {
    /// Every weight and bias uniform in ±`range`, from `seed`.
    pub fn init(topology: Topology, seed: u64, range: f64) -> Model {
        let mut rng = SplitMix64::new(seed);
        let weights = (0..topology.weight_count())
            .map(|_| ((rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0) * range)
            .collect();
        Model { topology, weights }
    }

    /// The model of `weights`, which must be `topology`'s count and finite.
    pub fn from_weights(topology: Topology, weights: Vec<f64>) -> Result<Model, ModelError> {
        if weights.len() != topology.weight_count() {
            return Err(ModelError::Count { found: weights.len(), topology });
        }
        if let Some(index) = weights.iter().position(|w| !w.is_finite()) {
            return Err(ModelError::NotFinite { index });
        }
        Ok(Model { topology, weights })
    }

    /// The shape.
    pub fn topology(&self) -> Topology {
        self.topology
    }

    /// The network's inputs for `pos` seen from `pov`.
    pub fn inputs(&self, pos: &Position, pov: Color) -> Vec<f64> {
        let mut x = vec![0.0f32; self.topology.input_count()];
        self.topology.encode(pos.pieces(pov), pos.pieces(pov.opponent()), &mut x);
        x.into_iter().map(f64::from).collect()
    }

    /// The output for inputs `x`.
    pub fn value(&self, x: &[f64]) -> f64 {
        self.forward(x, |_, _| ()).0
    }

    /// The output for inputs `x`, and its gradient with respect to every weight into `grad`
    /// (overwritten; of the weights' length).
    pub fn value_and_gradient(&self, x: &[f64], grad: &mut [f64]) -> f64 {
        let t = &self.topology;
        let layers = t.layer_count();
        // Activations of every layer's inputs: `acts[l]` feeds layer l (acts[0] = x).
        let mut acts = vec![[0.0f64; MAX_UNITS]; layers + 1];
        let (value, _) = self.forward(x, |layer, a| acts[layer] = *a);
        grad.iter_mut().for_each(|g| *g = 0.0);
        // dvalue / dpre of the current layer's units; the output first.
        let mut delta = [0.0f64; MAX_UNITS];
        delta[0] = 1.0 - value * value;
        for layer in (0..=layers).rev() {
            let (inputs, units) = t.layer_size(layer);
            let input = |i: usize| if layer == 0 { x[i] } else { acts[layer][i] };
            let mut below = [0.0f64; MAX_UNITS];
            for (u, &d) in delta.iter().enumerate().take(units) {
                grad[t.layer_bias_index(layer, u)] = d;
                let start = t.layer_weight_index(layer, u, 0);
                for i in 0..inputs {
                    grad[start + i] = d * input(i);
                    if layer > 0 {
                        below[i] += d * self.weights[start + i];
                    }
                }
            }
            if layer > 0 {
                for (i, b) in below.iter_mut().enumerate().take(inputs) {
                    let a = acts[layer][i];
                    *b *= 1.0 - a * a;
                }
                delta = below;
            }
        }
        value
    }

    /// The forward pass; `keep(l, a)` sees the activations that feed layer `l` (for l ≥ 1).
    /// Returns the output and the last hidden layer's activations.
    fn forward(&self, x: &[f64], mut keep: impl FnMut(usize, &[f64; MAX_UNITS])) -> (f64, [f64; MAX_UNITS]) {
        let t = &self.topology;
        let layer_output = |layer: usize, a: &[f64; MAX_UNITS]| {
            let (inputs, units) = t.layer_size(layer);
            let mut next = [0.0f64; MAX_UNITS];
            for (u, out) in next.iter_mut().enumerate().take(units) {
                let start = t.layer_weight_index(layer, u, 0);
                let mut sum = self.weights[t.layer_bias_index(layer, u)];
                for i in 0..inputs {
                    sum += self.weights[start + i] * if layer == 0 { x[i] } else { a[i] };
                }
                *out = sum.tanh();
            }
            next
        };
        let mut a = [0.0f64; MAX_UNITS];
        for layer in 0..t.layer_count() {
            a = layer_output(layer, &a);
            keep(layer + 1, &a);
        }
        (layer_output(t.layer_count(), &a)[0], a)
    }

    /// The chromosome of these weights rounded to f32 (clamped within the chromosome bound,
    /// which TD never nears; the clamp keeps the chromosome valid whatever happens).
    pub fn chromosome(&self) -> Result<Chromosome, ChromosomeError> {
        let bound = f64::from(MAX_ABS_WEIGHT);
        let weights =
            self.weights.iter().map(|&w| if w.is_finite() { w.clamp(-bound, bound) as f32 } else { 0.0 }).collect();
        Chromosome::new(self.topology, weights)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use loa_engine::network::{Inputs, ShapedNetwork};
    use loa_engine::openings::sample_positions_from;
    use loa_engine::{BoardSize, Start};

    fn shapes() -> Vec<Topology> {
        vec![
            Topology::THESIS,
            Topology::new(5, Inputs::BOARD, &[12]).unwrap(),
            Topology::new(6, Inputs { pieces: true, quads: true, euler: true, ..Inputs::THESIS }, &[8, 4]).unwrap(),
        ]
    }

    fn positions(t: Topology) -> Vec<Position> {
        let start = Start::Standard.position(BoardSize::new(t.side()).unwrap()).unwrap();
        sample_positions_from(&start, 6, 3)
    }

    /// A hand-worked network: one input, one hidden unit, the output.
    #[test]
    fn a_one_unit_network_computes_tanh_of_tanh() {
        let t = Topology::new(5, Inputs::BOARD, &[1]).unwrap();
        let mut weights = vec![0.0; t.weight_count()];
        // Only the first board input (a5, read first) feeds the hidden unit.
        weights[t.layer_weight_index(0, 0, 0)] = 2.0;
        weights[t.layer_bias_index(0, 0)] = -0.5;
        weights[t.layer_weight_index(1, 0, 0)] = 1.5;
        weights[t.layer_bias_index(1, 0)] = 0.25;
        let model = Model::from_weights(t, weights).unwrap();
        let mut x = vec![0.0; t.input_count()];
        x[0] = 0.75;
        let expected = (1.5 * (2.0f64 * 0.75 - 0.5).tanh() + 0.25).tanh();
        assert!((model.value(&x) - expected).abs() < 1e-15);
    }

    #[test]
    fn the_gradient_matches_finite_differences() {
        for t in shapes() {
            let model = Model::init(t, 7, 0.3);
            for pos in positions(t) {
                let x = model.inputs(&pos, Color::Black);
                let mut grad = vec![0.0; t.weight_count()];
                model.value_and_gradient(&x, &mut grad);
                // A spread of weights: every layer's weights and biases.
                for i in (0..t.weight_count()).step_by(t.weight_count() / 37 + 1).chain([t.weight_count() - 1]) {
                    let h = 1e-6;
                    let (mut up, mut down) = (model.clone(), model.clone());
                    up.weights[i] += h;
                    down.weights[i] -= h;
                    let numeric = (up.value(&x) - down.value(&x)) / (2.0 * h);
                    assert!((numeric - grad[i]).abs() < 1e-6, "{t}: weight {i}: {numeric} vs {}", grad[i]);
                }
            }
        }
    }

    #[test]
    fn the_f64_value_agrees_with_the_engines_evaluation_of_the_rounded_weights() {
        for t in shapes() {
            let model = Model::init(t, 11, 0.3);
            let net = ShapedNetwork::new(&model.chromosome().unwrap());
            for pos in positions(t) {
                for pov in Color::ALL {
                    let ours = model.value(&model.inputs(&pos, pov));
                    let engine = f64::from(net.evaluate_plain(&pos, pov));
                    assert!((ours - engine).abs() < 1e-4, "{t}: {ours} vs {engine}");
                }
            }
        }
    }

    #[test]
    fn a_wrong_weight_count_is_refused() {
        let err = Model::from_weights(Topology::THESIS, vec![0.0; 10]).unwrap_err().to_string();
        assert!(err.contains("10 weights") && err.contains("2041"), "{err}");
        let err = Model::from_weights(Topology::THESIS, vec![f64::NAN; 2041]).unwrap_err();
        assert_eq!(err, ModelError::NotFinite { index: 0 });
    }
}
