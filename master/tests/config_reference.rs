//! docs/config.md documents every key of a run configuration and of a match experiment, and
//! nothing else. The keys come from the code, so a key added there fails here until it has an
//! entry: every table's fields as serde lists them when it refuses an unknown key, the settings of
//! every registered scheme and of every form of every operator as a configuration writes them
//! out, and every configuration committed under `experiments/`.
//!
//! An entry is a table row starting `` | `KEY` | `` under a `###` or `####` heading that names
//! the key's table in backticks (`` `[mutation]` ``; "Top-level keys" for the top level), inside
//! the `##` part of its kind of file. A scheme or operator given by name needs a heading naming
//! its table, `` `[selection.scheme.NAME]` ``, even when it has no settings.

use loa_engine::breeding::OPERATORS;
use loa_master::config::{CrossoverConfig, ExperimentConfig, MutationConfig, MutationOperator, Named};
use loa_master::experiment::MatchExperiment;
use loa_master::selection::{self, SCHEMES, cma_es, evolution_strategies, mu_plus_lambda, tournament};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

const DOC: &str = include_str!("../../docs/config.md");
const RUN: &str = "## Run configuration";
const EXPERIMENT: &str = "## Match experiments";

/// Keys whose value is a name, or a table of one name holding its settings ([`Named`]).
const NAMED: [&str; 3] = ["mutation.operator", "crossover.operator", "selection.scheme"];

/// A key: the table it is written in ("" for the top level) and its name there.
type Key = (String, String);

/// What a kind of file holds: its keys, and the tables of things given by name.
#[derive(Default)]
struct Keys {
    keys: BTreeSet<Key>,
    named: BTreeSet<String>,
}

impl Keys {
    fn add(&mut self, table: &str, key: &str) {
        self.keys.insert((table.to_owned(), key.to_owned()));
    }

    /// Every key of a configuration's TOML, below the table `path`.
    fn walk(&mut self, table: &toml::Table, path: &str) {
        for (key, value) in table {
            self.add(path, key);
            let full = join(path, key);
            match value {
                toml::Value::String(name) if NAMED.contains(&full.as_str()) => {
                    self.named.insert(join(&full, name));
                }
                toml::Value::Table(named) if NAMED.contains(&full.as_str()) => {
                    for (name, settings) in named {
                        let settings = settings.as_table().expect("a name's settings are a table");
                        self.named.insert(join(&full, name));
                        self.walk(settings, &join(&full, name));
                    }
                }
                toml::Value::Table(inner) => self.walk(inner, &full),
                _ => {}
            }
        }
    }

    /// The fields of the table at `path` and below, as the error names them when `parse` refuses
    /// an unknown key there: "unknown key `x` (the keys here: `a`, `b`)", or as serde names them
    /// where the error is serde's: "unknown field `x`, expected one of `a`, `b`".
    fn probe(&mut self, path: &str, parse: &dyn Fn(&str) -> Option<String>) {
        let unknown = "zz_not_a_key";
        let text = if path.is_empty() { format!("{unknown} = 1\n") } else { format!("[{path}]\n{unknown} = 1\n") };
        let Some(error) = parse(&text) else { panic!("`{text}` parsed") };
        let listed = error.contains(&format!("unknown key `{unknown}`")).then(|| error.split_once("(the keys here: "));
        let serde = || error.split_once(&format!("unknown field `{unknown}`, expected "));
        let Some((_, expected)) = listed.flatten().or_else(serde) else {
            return; // Not a table of fields (a name, a number, ...).
        };
        let line = expected.lines().next().unwrap_or("");
        let fields: Vec<&str> = line.split('`').skip(1).step_by(2).collect();
        assert!(!fields.is_empty(), "no fields in serde's message: {error}");
        for field in fields {
            self.add(path, field);
            self.probe(&join(path, field), parse);
        }
    }
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() { key.to_owned() } else { format!("{path}.{key}") }
}

/// The `###` and `####` sections of the part of docs/config.md under the heading `part`: each
/// heading with the lines below it.
fn sections(part: &str) -> Vec<(&'static str, Vec<&'static str>)> {
    let mut sections = Vec::new();
    let mut inside = false;
    for line in DOC.lines() {
        if line.starts_with("## ") {
            inside = line.starts_with(part);
        } else if inside && line.starts_with("###") {
            sections.push((line, Vec::new()));
        } else if let (true, Some((_, body))) = (inside, sections.last_mut()) {
            body.push(line);
        }
    }
    assert!(!sections.is_empty(), "docs/config.md has no part `{part}` with sections");
    sections
}

/// The heading text that names `table`'s section.
fn heading_of(table: &str) -> String {
    if table.is_empty() { "Top-level keys".to_owned() } else { format!("`[{table}]`") }
}

/// The row that documents `key`.
fn row_of(key: &str) -> String {
    format!("| `{key}` |")
}

/// Checks that `part` documents exactly `found`'s keys and names every named table.
fn check(part: &str, found: &Keys) {
    let sections = sections(part);
    let mut problems = Vec::new();
    for (table, key) in &found.keys {
        let (heading, row) = (heading_of(table), row_of(key));
        if !sections.iter().any(|(h, body)| h.contains(&heading) && body.iter().any(|l| l.starts_with(&row))) {
            problems.push(format!("no entry for `{}`: a row `{row}` under a heading with {heading}", join(table, key)));
        }
    }
    for table in &found.named {
        if !sections.iter().any(|(h, _)| h.contains(&heading_of(table))) {
            problems.push(format!("no heading naming `[{table}]`"));
        }
    }
    // And every row under a table's heading is a key of that table (or of one of the tables the
    // heading names).
    for (heading, body) in &sections {
        let tables: Vec<String> = match heading.contains("Top-level keys") {
            true => vec![String::new()],
            false => {
                heading.split("`[").skip(1).filter_map(|s| s.split_once("]`")).map(|(t, _)| t.to_owned()).collect()
            }
        };
        let rows = body.iter().filter_map(|l| l.strip_prefix("| `")).filter_map(|l| l.split_once("` |"));
        for (key, _) in rows {
            for table in &tables {
                if !found.keys.contains(&(table.clone(), key.to_owned())) {
                    problems.push(format!("`{}` under \"{heading}\" is not a key", join(table, key)));
                }
            }
        }
    }
    assert!(problems.is_empty(), "docs/config.md, {part}:\n{}", problems.join("\n"));
}

/// Every form of `[mutation]` a configuration can express: each one-parent operator of the
/// engine's, and the two schedules.
fn mutations() -> Vec<MutationOperator> {
    let mut forms: Vec<MutationOperator> =
        OPERATORS.iter().filter(|o| o.parents == 1).map(|o| MutationOperator::Fixed(o.example())).collect();
    forms.push(MutationOperator::Gaussian { sigma: 0.1, decay: 0.9, probability: 0.5 });
    forms.push(MutationOperator::SelfAdaptive { sigma: 0.1, tau: 0.1, probability: 0.5 });
    for form in &forms {
        // A new form must be listed above: without it this match does not compile.
        match form {
            MutationOperator::Fixed(_) | MutationOperator::Gaussian { .. } | MutationOperator::SelfAdaptive { .. } => {}
        }
    }
    forms
}

/// Every `.toml` file under `dir`.
fn toml_files(dir: &Path, files: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            toml_files(&path, files);
        } else if path.extension().is_some_and(|e| e == "toml") {
            files.push(path);
        }
    }
}

/// The keys of a run configuration, from the code and from every committed configuration, and
/// those of a match experiment.
fn keys_of_the_code() -> (Keys, Keys) {
    let (mut run, mut experiment) = (Keys::default(), Keys::default());
    let parse_run = |text: &str| ExperimentConfig::from_toml(text).err().map(|e| e.to_string());
    let parse_experiment = |text: &str| MatchExperiment::from_toml(text).err().map(|e| e.to_string());
    run.probe("", &parse_run);
    experiment.probe("", &parse_experiment);

    let mut configs = Vec::new();
    // Every mutation and crossover a configuration can express (the engine's plain `gaussian`
    // cannot: the schedule has its name).
    for operator in mutations() {
        let mutation = MutationConfig { operator, ..MutationConfig::default() };
        configs.push(ExperimentConfig { mutation, ..ExperimentConfig::default() });
    }
    for operator in OPERATORS.iter().filter(|o| o.parents == 2) {
        let crossover = CrossoverConfig { operator: operator.example() };
        configs.push(ExperimentConfig { crossover, ..ExperimentConfig::default() });
    }
    // Every registered scheme, its settings written out in full.
    for (name, build) in SCHEMES {
        let settings = build(&toml::Table::new()).unwrap_or_else(|e| panic!("{name} from no settings: {e}")).settings();
        let mut config = ExperimentConfig::default();
        config.selection.scheme = Named::new(name, settings);
        configs.push(config);
    }
    for config in configs {
        if ExperimentConfig::from_toml(&config.to_toml()).is_ok() {
            run.walk(&toml::from_str(&config.to_toml()).unwrap(), "");
        }
    }
    // Settings left out of a table when absent (`Option`s): JSON writes them as null.
    let json = [
        (mu_plus_lambda::NAME, serde_json::to_value(mu_plus_lambda::MuPlusLambdaConfig::default())),
        (evolution_strategies::NAME, serde_json::to_value(evolution_strategies::EsConfig::default())),
        (tournament::NAME, serde_json::to_value(tournament::TournamentConfig::default())),
        (cma_es::NAME, serde_json::to_value(cma_es::CmaEsConfig::default())),
    ];
    for (name, settings) in json {
        for key in settings.unwrap().as_object().expect("settings are an object").keys() {
            run.add(&join("selection.scheme", name), key);
        }
    }

    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    toml_files(&root.join("experiments"), &mut files);
    assert!(files.len() > 10, "committed configurations: {files:?}");
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        match (ExperimentConfig::from_toml(&text), MatchExperiment::from_toml(&text)) {
            (Ok(config), _) => {
                let full = selection::normalized(&config).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
                run.walk(&toml::from_str(&full.to_toml()).unwrap(), "");
            }
            (_, Ok(_)) => experiment.walk(&toml::from_str(&text).unwrap(), ""),
            (Err(a), Err(b)) => panic!("{} is neither kind of configuration: {a}; {b}", file.display()),
        }
    }
    (run, experiment)
}

#[test]
fn every_key_has_an_entry_and_every_entry_is_a_key() {
    let (run, experiment) = keys_of_the_code();
    // What the probes and walks must have found, as independent facts: the thesis's settings,
    // a scheme's own setting, an optional one, an operator's parameter, and an experiment's.
    for (table, key) in [
        ("", "population"),
        ("mutation", "probability"),
        ("rules", "ply_cap"),
        ("selection.scheme.tournament", "size"),
        ("selection.scheme.mu-plus-lambda", "elitism"),
        ("selection.scheme.evolution-strategies", "fixed_opponents"),
        ("mutation.operator.self-adaptive", "tau"),
        ("crossover.operator.blend", "alpha"),
    ] {
        assert!(run.keys.contains(&(table.to_owned(), key.to_owned())), "{table}.{key} not found in the code");
    }
    assert!(run.named.contains("selection.scheme.knockout") && run.named.contains("crossover.operator.uniform"));
    for key in ["a", "b", "matches", "swap_colours", "rules"] {
        assert!(experiment.keys.contains(&(String::new(), key.to_owned())), "{key}");
    }
    assert!(experiment.keys.contains(&("rules".to_owned(), "no_moves".to_owned())));
    check(RUN, &run);
    check(EXPERIMENT, &experiment);
}

#[test]
fn a_missing_or_stale_entry_is_named() {
    // The check itself: a key the document lacks, and a row that is no key.
    let mut keys = Keys::default();
    keys.add("", "population");
    keys.add("rules", "no_such_key");
    keys.named.insert("selection.scheme.no-such-scheme".to_owned());
    let error = std::panic::catch_unwind(|| check(RUN, &keys)).unwrap_err();
    let message = error.downcast_ref::<String>().unwrap();
    assert!(message.contains("no entry for `rules.no_such_key`"), "{message}");
    assert!(message.contains("no heading naming `[selection.scheme.no-such-scheme]`"), "{message}");
    assert!(message.contains("`seed` under \"### Top-level keys of a run configuration\" is not a key"), "{message}");
    assert!(!message.contains("`population`"), "{message}");
}

#[test]
fn the_quick_configuration_shown_is_the_file() {
    let file = include_str!("../../experiments/quick.toml");
    let keys: Vec<&str> = file.lines().filter(|l| !l.starts_with('#')).collect();
    let shown = DOC.split("`experiments/quick.toml` (its comments left out)").nth(1).expect("the quick.toml block");
    let block = shown.split("```toml\n").nth(1).and_then(|b| b.split("```").next()).expect("a toml block");
    assert_eq!(
        block.trim_end().lines().collect::<Vec<_>>(),
        keys[..].join("\n").trim_end().lines().collect::<Vec<_>>()
    );
}
