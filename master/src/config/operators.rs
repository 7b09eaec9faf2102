//! Variation operators in the configuration: `operator = "NAME"` or an `operator.NAME` table of
//! its parameters, NAME an operator of the engine's registry ([`loa_engine::breeding::OPERATORS`])
//! whose parameter specs check the table, so a new operator needs no change here.

use super::{ConfigError, Named};
use loa_engine::breeding::{self, OPERATORS, Operator, Parameter, Variation};
use serde::{Deserialize, Serialize};

/// Crossover settings, `[crossover]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "CrossoverTable", into = "CrossoverTable")]
pub struct CrossoverConfig {
    /// A two-parent operator of the engine's with its parameters.
    pub operator: Variation,
}

impl Default for CrossoverConfig {
    /// The thesis's single-point crossover (it takes no parameters, so its example is it).
    fn default() -> Self {
        CrossoverConfig { operator: breeding::operators::single_point::OPERATOR.example() }
    }
}

impl CrossoverConfig {
    /// Checks that the operator crosses two parents and its parameters are in range (errors name
    /// the key).
    pub fn check(&self) -> Result<(), ConfigError> {
        check_variation("crossover", &self.operator, 2, "a crossover takes two", &[])
    }
}

/// The `[crossover]` table as written.
#[derive(Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct CrossoverTable {
    operator: Named,
}

impl Default for CrossoverTable {
    fn default() -> Self {
        CrossoverConfig::default().into()
    }
}

impl TryFrom<CrossoverTable> for CrossoverConfig {
    type Error = ConfigError;

    fn try_from(table: CrossoverTable) -> Result<CrossoverConfig, ConfigError> {
        let operator = operator("crossover", &table.operator.name, 2, &[])?;
        Ok(CrossoverConfig { operator: variation("crossover", operator, &table.operator.settings, |_| None)? })
    }
}

impl From<CrossoverConfig> for CrossoverTable {
    fn from(config: CrossoverConfig) -> CrossoverTable {
        CrossoverTable { operator: Named::of(&config.operator, |_| false) }
    }
}

impl Named {
    /// `variation`'s name and its parameters, but those `skip` says another key gives.
    pub(super) fn of(variation: &Variation, skip: impl Fn(&str) -> bool) -> Named {
        let settings = variation
            .operator()
            .parameters
            .iter()
            .zip(variation.parameters())
            .filter(|(p, _)| !skip(p.name))
            .map(|(p, &value)| (p.name.to_owned(), toml::Value::Float(value)))
            .collect();
        Named { name: variation.name().to_owned(), settings }
    }
}

/// The operator `name` of the engine's registry, which must take `parents` parents (`table` is
/// the configuration's table, for errors; `also` other names the table accepts).
pub(super) fn operator(
    table: &str,
    name: &str,
    parents: usize,
    also: &[&str],
) -> Result<&'static Operator, ConfigError> {
    let key = format!("{table}.operator");
    let Some(operator) = breeding::find(name).filter(|o| o.parents == parents) else {
        let known: Vec<&str> =
            OPERATORS.iter().filter(|o| o.parents == parents).map(|o| o.name).chain(also.iter().copied()).collect();
        let why = match breeding::find(name) {
            Some(o) => format!("`{name}` takes {} parents, not {parents}: use {}", o.parents, known.join(", ")),
            None => format!("unknown operator `{name}`: use {}", known.join(", ")),
        };
        return Err(ConfigError::Invalid { key, why });
    };
    Ok(operator)
}

/// `operator` with the parameters `settings` gives (see [`values`]). Ranges are checked by
/// [`check_variation`].
pub(super) fn variation(
    table: &str,
    operator: &'static Operator,
    settings: &toml::Table,
    given: impl Fn(&str) -> Option<f64>,
) -> Result<Variation, ConfigError> {
    let parameters: Vec<(&str, Option<f64>)> = operator.parameters.iter().map(|p| (p.name, p.default)).collect();
    let values = values(table, operator.name, &parameters, settings, given)?;
    // As many values as parameters, by construction.
    operator.with(&values).map_err(|e| ConfigError::Invalid { key: format!("{table}.operator"), why: e.to_string() })
}

/// The values of the operator `name`'s `parameters` (name, default) in `table`: as written in
/// `settings`, or else `given` (a value another key of the table supplies, which must not be
/// written twice), or else the default. `settings` must name only parameters; errors name the
/// key `TABLE.operator.NAME.PARAMETER`.
pub(super) fn values(
    table: &str,
    name: &str,
    parameters: &[(&str, Option<f64>)],
    settings: &toml::Table,
    given: impl Fn(&str) -> Option<f64>,
) -> Result<Vec<f64>, ConfigError> {
    let error = |p: &str, why: String| ConfigError::Invalid { key: format!("{table}.operator.{name}.{p}"), why };
    if let Some(unknown) = settings.keys().find(|k| !parameters.iter().any(|(p, _)| p == k)) {
        let names: Vec<&str> = parameters.iter().map(|(p, _)| *p).collect();
        let takes = if names.is_empty() { "no parameters".to_owned() } else { names.join(", ") };
        return Err(error(unknown, format!("unknown parameter: {name} takes {takes}")));
    }
    let value = |&(p, default): &(&str, Option<f64>)| match (settings.get(p), given(p)) {
        (Some(_), Some(_)) => Err(error(p, format!("is given by `{table}.{p}`"))),
        (Some(toml::Value::Float(x)), None) => Ok(*x),
        (Some(toml::Value::Integer(n)), None) => Ok(*n as f64),
        (Some(other), None) => Err(error(p, format!("must be a number, got {other}"))),
        (None, Some(x)) => Ok(x),
        (None, None) => default.ok_or_else(|| error(p, "missing (it has no default)".to_owned())),
    };
    parameters.iter().map(value).collect()
}

/// Checks that `variation` takes `parents` parents (`why` says why it must) and that its
/// parameters are in their ranges: a parameter `p` is the key `TABLE.operator.NAME.p`, or
/// `TABLE.p` if it is one of `beside` (given beside the operator, as a mutation's
/// `probability`).
pub(super) fn check_variation(
    table: &str,
    variation: &Variation,
    parents: usize,
    why: &str,
    beside: &[&str],
) -> Result<(), ConfigError> {
    if variation.parents() != parents {
        let why = format!("`{}` takes {} parents: {why}", variation.name(), variation.parents());
        return Err(ConfigError::Invalid { key: format!("{table}.operator"), why });
    }
    match variation.out_of_range() {
        None => Ok(()),
        Some((p, value)) => {
            let key = match beside.contains(&p.name) {
                true => format!("{table}.{}", p.name),
                false => format!("{table}.operator.{}.{}", variation.name(), p.name),
            };
            Err(ConfigError::Invalid { key, why: format!("must be in {}, got {value}", interval(p)) })
        }
    }
}

/// A parameter's range as the configuration's errors write it, e.g. `[0, 1]`.
pub(super) fn interval(p: &Parameter) -> String {
    format!("[{}, {}]", p.range.start(), p.range.end())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ExperimentConfig;

    fn crossover(text: &str) -> Result<Variation, String> {
        ExperimentConfig::from_toml(text).map(|c| c.crossover.operator).map_err(|e| e.to_string())
    }

    #[test]
    fn every_two_parent_operator_is_a_crossover_by_its_name() {
        assert_eq!(crossover(""), Ok(breeding::operators::single_point::OPERATOR.example()));
        for operator in OPERATORS.iter().filter(|o| o.parents == 2) {
            let v = operator.example();
            // By name alone when every parameter has a default, and always as a table of them.
            if operator.parameters.iter().all(|p| p.default.is_some()) {
                assert_eq!(crossover(&format!("[crossover]\noperator = \"{}\"", v.name())), Ok(v));
            }
            let values: Vec<String> =
                operator.parameters.iter().zip(v.parameters()).map(|(p, x)| format!("{} = {x:?}\n", p.name)).collect();
            let text = format!("[crossover.operator.{}]\n{}", v.name(), values.concat());
            assert_eq!(crossover(&text), Ok(v), "{text}");
            let config = ExperimentConfig::from_toml(&text).unwrap();
            assert_eq!(ExperimentConfig::from_toml(&config.to_toml()).unwrap(), config);
        }
    }

    #[test]
    fn bad_crossovers_are_named() {
        let unknown = crossover("[crossover]\noperator = \"two-point\"").unwrap_err();
        assert!(
            unknown.contains("`crossover.operator`: unknown operator `two-point`: use single-point, uniform"),
            "{unknown}"
        );
        let mutation = crossover("[crossover]\noperator = \"uniform-reset\"").unwrap_err();
        assert!(mutation.contains("`uniform-reset` takes 1 parents, not 2"), "{mutation}");
        let extra = crossover("[crossover.operator.uniform]\nrate = 0.5").unwrap_err();
        assert!(
            extra.contains("`crossover.operator.uniform.rate`: unknown parameter: uniform takes no parameters"),
            "{extra}"
        );
        let number = crossover("[crossover]\noperator = 3").unwrap_err();
        assert!(number.contains("operator = 3") && number.contains("NAME table"), "{number}");
        assert!(crossover("[crossover]\nrate = 3").unwrap_err().contains("rate"));
        // Ranges come from the operator's parameter specs; the check names the key.
        let wide = breeding::operators::gaussian::variation(2.0e6, 0.5);
        let err = check_variation("mutation", &wide, 1, "", &["probability"]).unwrap_err().to_string();
        assert_eq!(err, "invalid `mutation.operator.gaussian.step`: must be in [0, 1000000], got 2000000");
        let err = check_variation("crossover", &wide, 2, "a crossover takes two", &[]).unwrap_err().to_string();
        assert_eq!(err, "invalid `crossover.operator`: `gaussian` takes 1 parents: a crossover takes two");
    }
}
