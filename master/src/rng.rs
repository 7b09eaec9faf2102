//! The master's random number generator, xoshiro256** with a state that checkpoints save: the
//! engine's [`BreedingRng`](loa_engine::breeding::BreedingRng), so that workers can draw the
//! numbers of a breeding step again from the state a chromosome's origin records.

/// The run's generator.
pub type GaRng = loa_engine::breeding::BreedingRng;
