//! The moving average of a learner's weights, which smooths the swings of self-play's latest
//! weights (Polyak averaging): the network a run validates and exports when `average_games` is
//! set. Self-play keeps playing with the latest weights; only what is measured is averaged.

use super::model::Model;

/// Folds the weights after a batch into `average`.
///
/// Over the first `horizon` games it is the plain mean of the weights after each batch (each
/// weighted by its batch's games); after that an exponential moving average whose step is
/// `batch_games / horizon`, so its memory is about `horizon` games. `games` counts the batch.
pub fn fold_in(average: &mut Model, latest: &Model, batch_games: u64, games: u64, horizon: u64) {
    let step = batch_games as f64 / games.min(horizon).max(batch_games) as f64;
    for (a, w) in average.weights.iter_mut().zip(&latest.weights) {
        *a += step * (w - *a);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use loa_engine::network::{Inputs, Topology};

    fn model(weights: &[f64]) -> Model {
        let t = Topology::new(5, Inputs::BOARD, &[1]).unwrap();
        let mut all = vec![0.0; t.weight_count()];
        all[..weights.len()].copy_from_slice(weights);
        Model::from_weights(t, all).unwrap()
    }

    /// Before the horizon: the mean of the weights after each batch, the initial ones left out.
    #[test]
    fn within_the_horizon_it_is_the_mean_of_the_batches() {
        let mut average = model(&[100.0, -7.0]);
        for (k, w) in [[1.0, 2.0], [3.0, 6.0], [8.0, 1.0]].iter().enumerate() {
            fold_in(&mut average, &model(w), 4, 4 * (k as u64 + 1), 1000);
        }
        assert!((average.weights[0] - 4.0).abs() < 1e-12);
        assert!((average.weights[1] - 3.0).abs() < 1e-12);
    }

    /// Past the horizon: each batch moves the average by batch/horizon of the way.
    #[test]
    fn past_the_horizon_it_is_an_exponential_average() {
        let mut average = model(&[1.0]);
        fold_in(&mut average, &model(&[5.0]), 8, 1_000_000, 32);
        assert!((average.weights[0] - 2.0).abs() < 1e-12, "{}", average.weights[0]);
        // A short last batch moves it less.
        fold_in(&mut average, &model(&[6.0]), 4, 1_000_004, 32);
        assert!((average.weights[0] - 2.5).abs() < 1e-12, "{}", average.weights[0]);
    }
}
