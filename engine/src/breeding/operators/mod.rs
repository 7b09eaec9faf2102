//! The variation operators, one file each: its [`Operator`] (name, parents, parameters with
//! their ranges, and how it makes alleles), its documentation and its statistical test.
//!
//! A new operator is its file here and one line in the `register!` list below; the wire, the
//! worker and the master's configuration find it by its name (see `docs/extending.md`).

use super::{MAX_PARAMETERS, MAX_PARENTS, Operator, Variation, VariationError};

/// Declares each listed file as a module and lists its `OPERATOR` in [`OPERATORS`], in order.
/// A [`Variation`] holds its parents and parameters inline, so the build refuses an operator
/// with more than [`MAX_PARENTS`] or [`MAX_PARAMETERS`].
macro_rules! register {
    ($($operator:ident,)*) => {
        $(
            pub mod $operator;
            const _: () = assert!(
                $operator::OPERATOR.parents <= MAX_PARENTS && $operator::OPERATOR.parameters.len() <= MAX_PARAMETERS
            );
        )*

        /// Every variation operator.
        pub const OPERATORS: &[&Operator] = &[$(&$operator::OPERATOR),*];
    };
}

register! {
    random,
    uniform_reset,
    gaussian,
    single_point,
    uniform,
    per_neuron,
    blend,
}

/// The operator named `name`, if any.
pub fn find(name: &str) -> Option<&'static Operator> {
    OPERATORS.iter().copied().find(|operator| operator.name == name)
}

/// The operator named `name` with `values` for its parameters (as [`Variation::name`] and
/// [`Variation::parameters`] give them: the wire's form). Their ranges are checked where a step
/// becomes part of an origin ([`super::Origin::new`]).
pub fn variation(name: &str, values: &[f64]) -> Result<Variation, VariationError> {
    find(name).ok_or_else(|| VariationError::UnknownOperator(name.to_owned()))?.with(values)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::breeding::BreedingRng;
    use std::collections::HashSet;

    #[test]
    fn every_operator_is_well_formed() {
        let names: HashSet<&str> = OPERATORS.iter().map(|o| o.name).collect();
        assert_eq!(names.len(), OPERATORS.len(), "names are distinct");
        for operator in OPERATORS {
            let name = operator.name;
            let parameters: HashSet<&str> = operator.parameters.iter().map(|p| p.name).collect();
            assert_eq!(parameters.len(), operator.parameters.len(), "{name}'s parameter names are distinct");
            for p in operator.parameters {
                assert!(p.range.start() <= p.range.end() && !p.doc.is_empty(), "{name}.{}", p.name);
                assert!(p.default.is_none_or(|d| p.range.contains(&d)), "{name}.{}'s default", p.name);
            }
            // Kebab-case, as configurations write names.
            assert!(name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'), "{name}");
        }
    }

    #[test]
    fn every_operator_is_made_again_from_its_name_and_parameters() {
        for operator in OPERATORS {
            let v = operator.example();
            assert_eq!(variation(v.name(), v.parameters()), Ok(v));
            assert!(v.out_of_range().is_none(), "{v:?}");
            let too_many = [v.parameters(), &[0.5]].concat();
            assert_eq!(
                variation(v.name(), &too_many),
                Err(VariationError::ParameterCount {
                    operator: v.name(),
                    expected: v.parameters().len(),
                    found: too_many.len()
                })
            );
        }
        assert_eq!(
            variation("gaussian", &[0.1]),
            Err(VariationError::ParameterCount { operator: "gaussian", expected: 2, found: 1 })
        );
        let unknown = variation("no-such-operator", &[0.5]).unwrap_err();
        assert_eq!(unknown.to_string(), "no variation operator is named \"no-such-operator\"");
    }

    #[test]
    fn every_operator_makes_alleles_of_its_parents_length() {
        let (a, b) = (vec![0.25f32; 2041], vec![-0.5f32; 2041]);
        let mut rng = BreedingRng::from_seed(3);
        for operator in OPERATORS {
            let parents: [&[f32]; 2] = [&a, &b];
            let made = operator.example().apply(2041, &parents[..operator.parents], &mut rng);
            assert_eq!(made.len(), 2041, "{}", operator.name);
            assert!(made.iter().all(|w| w.is_finite()), "{}", operator.name);
        }
    }

    #[test]
    fn variations_print_their_operator_and_parameters() {
        let v = gaussian::variation(0.25, 1.0);
        assert_eq!(format!("{v:?}"), "gaussian { step: 0.25, probability: 1.0 }");
        assert_eq!(v.parameter("probability"), Some(1.0));
        assert_eq!(v.parameter("alpha"), None);
        assert_eq!(
            gaussian::variation(-1.0, 1.0).out_of_range().map(|(p, value)| (p.name, value)),
            Some(("step", -1.0))
        );
        assert_ne!(v, gaussian::variation(0.25, 0.5));
    }
}
