//! Statistics, each tested against independent published or hand-worked values.
//!
//! - [`describe`]: mean, median, sample standard deviation ([`Summary`]); centred smoothing.
//! - [`trend`]: the least-squares line and its slope's 95 % interval ([`Trend`]).
//! - [`proportion`]: wins / losses / ties ([`WinLossTie`]) and the Wilson interval.
//! - [`welch`](mod@welch): Welch's t-test ([`Welch`]).
//! - [`dist`]: Student's t distribution (incomplete beta, quantile).

pub mod describe;
pub mod dist;
pub mod proportion;
pub mod trend;
pub mod welch;

pub use describe::{Summary, mean, median, sample_sd, smooth_centred};
pub use proportion::{WinLossTie, wilson95};
pub use trend::{Trend, least_squares};
pub use welch::{Welch, welch};
