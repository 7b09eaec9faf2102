use super::*;
use crate::game::Player;
use crate::network::random_uniform;
use crate::{Position, Rules};

fn spec(text: &str) -> PlayerSpec {
    text.parse().unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn why(text: &str) -> String {
    match parse(text) {
        Err(problem) => problem.to_string(),
        Ok(spec) => panic!("{text} parsed as {spec:?}"),
    }
}

#[test]
fn every_form_parses_to_its_player() {
    assert_eq!(spec("aloa:5"), PlayerSpec::Fixed(FixedPlayer::Aloa { evaluator: AloaKind::Quad, depth: 5 }));
    assert_eq!(spec("aloa-normal:2"), PlayerSpec::Fixed(FixedPlayer::Aloa { evaluator: AloaKind::Normal, depth: 2 }));
    assert_eq!(spec("random:3"), PlayerSpec::Fixed(FixedPlayer::Random { depth: 3, salt: 0 }));
    assert_eq!(spec("random:3:7"), PlayerSpec::Fixed(FixedPlayer::Random { depth: 3, salt: 7 }));
    assert_eq!(spec("randomann:3:9"), PlayerSpec::Fixed(FixedPlayer::RandomAnn { depth: 3, seed: 9 }));
    assert_eq!(spec("randomann:3"), PlayerSpec::FreshRandomAnn { depth: 3, printed: false });
    assert_eq!(spec("randomann-printed:2"), PlayerSpec::FreshRandomAnn { depth: 2, printed: true });
    assert_eq!(spec("randomann-printed:3:9"), PlayerSpec::Fixed(FixedPlayer::RandomAnnPrinted { depth: 3, seed: 9 }));
    assert_eq!(spec("net:2:a:b.json"), PlayerSpec::Net { depth: 2, path: "a:b.json".into() });
    assert_eq!(
        spec("run:3:runs/x:y:epochs=0-30/10,5,10"),
        PlayerSpec::Run { depth: 3, dir: "runs/x:y".into(), epochs: vec![0, 10, 20, 30, 5] }
    );
}

#[test]
fn every_form_prints_a_spec_that_parses_back() {
    for (text, printed) in [
        ("aloa:5", "aloa:5"),
        ("aloa-normal:12", "aloa-normal:12"),
        ("random:3", "random:3"),
        ("random:3:0", "random:3"),
        ("random:2:7", "random:2:7"),
        ("randomann:3", "randomann:3"),
        ("randomann:3:18446744073709551615", "randomann:3:18446744073709551615"),
        ("randomann-printed:1", "randomann-printed:1"),
        ("randomann-printed:4:2", "randomann-printed:4:2"),
        ("net:3:x.json", "net:3:x.json"),
        ("net:2:a:b.json", "net:2:a:b.json"),
        ("run:3:runs/x:epochs=0-30/10,5,10", "run:3:runs/x:epochs=0-30/10,5"),
        ("run:1:r:epochs=7", "run:1:r:epochs=7"),
    ] {
        let parsed = spec(text);
        assert_eq!(parsed.to_string(), printed, "{text}");
        assert_eq!(spec(printed), parsed, "{printed}");
    }
    // The parser knows the kind of every form listed.
    for form in FORMS {
        let kind = form.text.split(':').next().unwrap_or_default();
        assert!(!matches!(parse(&format!("{kind}:1")), Err(SpecProblem::UnknownKind(_))), "{kind}");
    }
}

#[test]
fn depths_are_read_and_replaced() {
    assert_eq!(spec("net:3:x.json").depth(), 3);
    assert_eq!(spec("net:3:x.json").with_depth(5).to_string(), "net:5:x.json");
    assert_eq!(spec("random:2:7").with_depth(4).to_string(), "random:4:7");
    assert_eq!(spec("randomann-printed:2:1").with_depth(6).depth(), 6);
    assert_eq!(spec("run:2:r:epochs=1").with_depth(3).to_string(), "run:3:r:epochs=1");
    assert_eq!((spec("run:2:r:epochs=1").network_depth(), spec("aloa:2").network_depth()), (Some(2), None));
}

#[test]
fn errors_say_why() {
    assert_eq!(why(""), "no player named");
    assert_eq!(why("aloa"), "missing the search depth");
    assert_eq!(why("aloa:x"), "the depth must be a whole number");
    assert_eq!(why("aloa:0"), "the depth must be 1..=12");
    assert_eq!(why("aloa:13"), "the depth must be 1..=12");
    assert_eq!(why("aloa:5:3"), "unexpected text after the depth");
    assert_eq!(why("random:3:s"), "the salt must be a whole number");
    assert_eq!(why("randomann-printed:3:s"), "the seed must be a whole number");
    assert_eq!(why("net:3"), "missing the chromosome file");
    assert_eq!(why("net:3:"), "missing the chromosome file");
    assert_eq!(why("chess:3"), "unknown player kind `chess`");
    assert_eq!(why("chess"), "unknown player kind `chess`");
    assert_eq!(why("run:3"), "missing the run directory");
    assert_eq!(why("run:3:dir"), "missing `:epochs=LIST`");
    assert_eq!(why("run:3::epochs=1"), "missing the run directory");
    assert_eq!(why("run:3:dir:epochs=5-1"), "the range 5-1 is empty");
    assert_eq!(why("run:3:dir:epochs=0-9/0"), "a range's step must be at least 1");
    assert_eq!(why("run:3:dir:epochs=x"), "`x` is not an epoch number");
    assert_eq!(why("run:3:dir:epochs=0-4294967295"), "at most 10000 epochs");
}

#[test]
fn messages_name_the_spec_and_the_forms_the_place_takes() {
    let every = "chess:3".parse::<PlayerSpec>().unwrap_err().to_string();
    assert_eq!(
        every,
        "bad player `chess:3`: unknown player kind `chess` (use aloa:D, aloa-normal:D, random:D[:SALT], \
         randomann:D[:SEED], randomann-printed:D[:SEED], net:D:FILE, run:D:DIR:epochs=LIST or \
         engine:CMD)"
    );
    let playable = PlayerSpec::parse_in("run:3:r:epochs=1", Accepts::Playable).unwrap_err();
    assert!(matches!(playable.problem, SpecProblem::RunOutsideExperiment));
    let text = playable.to_string();
    assert!(text.starts_with("bad player `run:3:r:epochs=1`: a run's survivors") && text.ends_with("or engine:CMD)"));
    let fixed = "net:3:x.json".parse::<FixedPlayer>().unwrap_err();
    assert_eq!(
        fixed.to_string(),
        "bad player `net:3:x.json`: not a fixed player (the same in every match) (use aloa:D, aloa-normal:D, \
         random:D[:SALT], randomann:D:SEED or randomann-printed:D:SEED)"
    );
    assert!(matches!("randomann:3".parse::<FixedPlayer>().unwrap_err().problem, SpecProblem::NotFixed));
    assert!(matches!("aloa:0".parse::<FixedPlayer>().unwrap_err().problem, SpecProblem::DepthOutOfRange));
    assert_eq!(
        PlayerSpec::parse_in("random:2:7", Accepts::Fixed).map(|s| s.fixed()).ok().flatten(),
        Some(FixedPlayer::Random { depth: 2, salt: 7 })
    );
}

#[test]
fn fixed_players_are_written_as_specs_that_parse_back() {
    let players = [
        FixedPlayer::Aloa { evaluator: AloaKind::Quad, depth: 5 },
        FixedPlayer::Aloa { evaluator: AloaKind::Normal, depth: 1 },
        FixedPlayer::Random { depth: 3, salt: 0 },
        FixedPlayer::Random { depth: 2, salt: 7 },
        FixedPlayer::RandomAnn { depth: 3, seed: 9 },
        FixedPlayer::RandomAnnPrinted { depth: 12, seed: u64::MAX },
    ];
    let written = players.map(|p| p.to_string());
    assert_eq!(written[..3], ["aloa:5", "aloa-normal:1", "random:3:0"]);
    for (player, text) in players.iter().zip(&written) {
        assert_eq!(text.parse::<FixedPlayer>().ok().as_ref(), Some(player));
        assert_eq!(spec(text).fixed().as_ref(), Some(player));
    }
}

#[test]
fn networks_play_the_board_their_shape_reads() {
    let six = BoardSize::new(6).unwrap();
    let dir = std::env::temp_dir().join(format!("loa-spec-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let small: Topology = "6x6-board-36-4-1".parse().unwrap();
    let small_file = dir.join("six.json");
    Chromosome::new(small, vec![0.1; small.weight_count()]).unwrap().write(&small_file).unwrap();
    let thesis_file = dir.join("thesis.json");
    random_uniform(3).write(&thesis_file).unwrap();
    let (thesis_net, small_net) =
        (format!("net:3:{}", thesis_file.display()), format!("net:3:{}", small_file.display()));
    for (text, refused, allowed) in [
        (thesis_net.as_str(), six, BoardSize::STANDARD),
        ("randomann:2", six, BoardSize::STANDARD),
        ("randomann-printed:2:5", six, BoardSize::STANDARD),
        (small_net.as_str(), BoardSize::STANDARD, six),
    ] {
        let spec = spec(text);
        let err = spec.plays_on(refused).unwrap_err();
        assert!(matches!(err.problem, SpecProblem::Board(e) if e.size == refused), "{err}");
        let msg = spec.prepare_on(refused).map(|_| ()).unwrap_err().to_string();
        assert!(msg.starts_with(&format!("player `{text}`: ")) && msg.contains(&format!("not {refused}")), "{msg}");
        assert!(spec.plays_on(allowed).is_ok() && spec.prepare_on(allowed).is_ok(), "{text} on {allowed}");
        // Without a board, the player is built for whichever board it reads.
        assert!(spec.prepare().is_ok(), "{text}");
    }
    for text in ["aloa:2", "aloa-normal:2", "random:2:3"] {
        for size in BoardSize::ALL {
            assert!(spec(text).plays_on(size).is_ok() && spec(text).prepare_on(size).is_ok(), "{text} {size}");
        }
    }
    let missing = spec("net:3:/no/such/file.json").prepare().map(|_| ()).unwrap_err();
    assert!(matches!(missing.problem, SpecProblem::Chromosome(_)));
    let text = missing.to_string();
    assert!(
        text.starts_with("cannot read chromosome file /no/such/file.json") && text.ends_with("`loa imitate` write)")
    );
    let run = spec("run:3:r:epochs=1");
    let refused = run.prepare().map(|_| ()).unwrap_err();
    assert!(matches!(refused.problem, SpecProblem::RunOutsideExperiment));
    assert!(refused.to_string().ends_with("or engine:CMD)"), "{refused}");
    assert!(matches!(run.plays_on(BoardSize::STANDARD).unwrap_err().problem, SpecProblem::RunOutsideExperiment));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// What a player chooses over a few positions and seeds: equal for players that play alike.
fn choices(player: &dyn Player) -> Vec<(String, u64)> {
    let rules = Rules::default();
    let mut pos = Position::start();
    let mut seen = Vec::new();
    for ply in 0..6u64 {
        let result = player.choose(&pos, &rules, ply as u32, 11 + ply);
        let Some(mv) = result.best else { break };
        seen.push((format!("{mv} {}", result.value), result.nodes));
        pos = pos.play(mv);
    }
    seen
}

#[test]
fn built_players_play_as_the_players_built_by_hand() {
    use crate::aloa::Aloa;
    use crate::network::{Encoding, Network};
    use crate::players::{AloaPlayer, RandomPlayer, RememberingPlayer, ShapedPlayer};
    use std::sync::Arc;
    let printed = Arc::new(Network::with_encoding(&random_uniform(9), Encoding::Printed));
    let file = std::env::temp_dir().join(format!("loa-spec-built-{}.json", std::process::id()));
    random_uniform(5).write(&file).unwrap();
    let by_hand: [(String, Box<dyn Player>); 6] = [
        ("aloa:2".into(), Box::new(AloaPlayer { eval: Aloa::new(AloaKind::Quad), depth: 2 })),
        ("aloa-normal:1".into(), Box::new(AloaPlayer { eval: Aloa::new(AloaKind::Normal), depth: 1 })),
        ("random:2:5".into(), Box::new(RandomPlayer { depth: 2, salt: 5 })),
        ("randomann:2:9".into(), Box::new(RememberingPlayer::new(Arc::new(Network::new(&random_uniform(9))), 2))),
        ("randomann-printed:2:9".into(), Box::new(RememberingPlayer::new(printed, 2))),
        (format!("net:2:{}", file.display()), Box::new(ShapedPlayer::new(&random_uniform(5), 2))),
    ];
    for (text, player) in &by_hand {
        let built = spec(text).prepare().unwrap().for_match(3);
        assert_eq!(choices(&*built), choices(&**player), "{text}");
    }
    assert_ne!(choices(&*by_hand[3].1), choices(&*by_hand[4].1), "the encodings differ");
    std::fs::remove_file(&file).unwrap();
}

#[test]
fn a_fresh_random_ann_is_drawn_from_each_match_seed() {
    for printed in [false, true] {
        let spec = PlayerSpec::FreshRandomAnn { depth: 2, printed };
        let prepared = spec.prepare().unwrap();
        let expected = spec.fixed_for_match(77, FRESH_ANN_LABEL).unwrap();
        let seed = crate::random::derive_seed(77, 0xA11);
        let by_hand = if printed {
            FixedPlayer::RandomAnnPrinted { depth: 2, seed }
        } else {
            FixedPlayer::RandomAnn { depth: 2, seed }
        };
        assert_eq!(expected, by_hand);
        assert_eq!(choices(&*prepared.for_match(77)), choices(&*by_hand.player()));
        assert_ne!(choices(&*prepared.for_match(77)), choices(&*prepared.for_match(78)));
        assert_eq!(spec.fixed_for_match(77, 0xA12).map(|p| p == by_hand), Some(false));
    }
    assert_eq!(PlayerSpec::Net { depth: 1, path: "x".into() }.fixed_for_match(1, 1), None);
}

#[test]
fn the_forms_list_reads_as_a_sentence() {
    assert_eq!(
        Accepts::Playable.forms(),
        "aloa:D, aloa-normal:D, random:D[:SALT], randomann:D[:SEED], randomann-printed:D[:SEED], net:D:FILE or \
         engine:CMD"
    );
    assert_eq!(FORMS.iter().filter(|f| f.fixed.is_some()).count(), 5);
}

#[test]
fn an_external_engine_is_its_command_line_and_plays_as_an_opponent_but_not_in_judging() {
    let text = "engine:target/release/loa engine --player net:3:a:b.json";
    let spec = PlayerSpec::parse_in(text, Accepts::Playable).unwrap();
    assert_eq!(spec, PlayerSpec::Engine { command: "target/release/loa engine --player net:3:a:b.json".into() });
    assert_eq!(PlayerSpec::parse_in(&spec.to_string(), Accepts::Playable).unwrap(), spec);
    assert!(spec.uses_seed() && spec.fixed().is_none() && spec.plays_on(BoardSize::MIN).is_ok());
    // An experiment and a run's opponents take it: the master plays its matches itself.
    assert_eq!(text.parse::<PlayerSpec>().unwrap(), spec);
    assert_eq!(PlayerSpec::parse_in(text, Accepts::Opponent).unwrap(), spec);
    assert!(Accepts::Every.forms().contains("engine:") && Accepts::Opponent.forms().contains("engine:"));
    // Judging's fixed players go to the workers with training's tasks: no engine there.
    assert!(!Accepts::Fixed.forms().contains("engine:"));
    assert!(matches!(PlayerSpec::parse_in(text, Accepts::Fixed).unwrap_err().problem, SpecProblem::NotFixed));
    assert!(matches!(text.parse::<FixedPlayer>().unwrap_err().problem, SpecProblem::NotFixed));
    let net = PlayerSpec::parse_in("net:3:x.json", Accepts::Opponent).unwrap_err();
    assert!(matches!(net.problem, SpecProblem::NotFixed) && net.to_string().contains("or engine:CMD"), "{net}");
    let empty = PlayerSpec::parse_in("engine: ", Accepts::Playable).unwrap_err();
    assert!(matches!(empty.problem, SpecProblem::MissingCommand), "{empty}");
}
