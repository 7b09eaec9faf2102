//! The division ALoA's incremental totals use, against integer division.

use super::*;

/// Every divisor `moved_totals` uses (`n²` and `2n` for 1 to 12 pieces) and every
/// numerator it can meet: |weight| ≤ MAX_WEIGHT times an excess ≤ 7n² (each of n pieces at
/// most 7n from the centre of mass, in units of 1/n) or a centre offset ≤ 7n.
#[test]
fn divisor_quotients_are_exact() {
    for n in 1..=12u32 {
        for (d, largest) in [(n * n, 7 * n * n), (2 * n, 7 * n)] {
            let divisor = Divisor::new(d);
            for x in 0..=MAX_WEIGHT as u32 * largest {
                assert_eq!(divisor.quotient(x), x / d, "{x} / {d}");
            }
        }
    }
}
