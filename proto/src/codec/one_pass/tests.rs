use super::*;
use loa_engine::network::SplitMix64;
use pb::deliver_reply::Answer;

/// `message` as this module writes it, after checking its measured length.
fn one_pass(message: &impl OnePass) -> Vec<u8> {
    let mut lengths = Vec::new();
    let len = message.measure(&mut lengths);
    let mut bytes = Vec::new();
    let mut next = 0;
    message.write(&lengths, &mut next, &mut bytes);
    assert_eq!(next, lengths.len(), "every measured length written once");
    assert_eq!(bytes.len(), len, "the measured length is the written one");
    bytes
}

/// A number below `n`.
fn below(rng: &mut SplitMix64, n: u64) -> u64 {
    rng.next_u64() % n
}

/// Zero a third of the time (a field proto3 leaves out), else a number of 1 to 64 bits.
fn scalar(rng: &mut SplitMix64) -> u64 {
    if below(rng, 3) == 0 { 0 } else { rng.next_u64() >> below(rng, 64) }
}

/// An enum value: unset, in use, or negative (ten bytes on the wire).
fn enumeration(rng: &mut SplitMix64) -> i32 {
    [0, 1, 2, 3, -5][below(rng, 5) as usize]
}

fn id(rng: &mut SplitMix64) -> pb::ChromosomeId {
    pb::ChromosomeId { high: scalar(rng), low: scalar(rng) }
}

fn rules(rng: &mut SplitMix64) -> Option<pb::Rules> {
    let rules = pb::Rules { both_connected: enumeration(rng), no_moves: enumeration(rng), ply_cap: scalar(rng) as u32 };
    (below(rng, 4) != 0).then_some(rules)
}

/// A network entrant with any of its fields set: by id, with weights (floats or bytes), by
/// origin, with sources.
fn entrant(rng: &mut SplitMix64) -> pb::Entrant {
    let origin = pb::Origin {
        parents: (0..below(rng, 3)).map(|_| id(rng)).collect(),
        steps: (0..below(rng, 3))
            .map(|_| pb::BreedingStep {
                state: (0..4).map(|_| rng.next_u64()).collect(),
                variation: Some(pb::breeding_step::Variation::Gaussian(pb::GaussianNoise {
                    step: 0.1,
                    probability: 0.5,
                })),
            })
            .collect(),
    };
    pb::Entrant {
        serial: scalar(rng),
        topology: if below(rng, 3) == 0 { "board-nonad-100-20-1".into() } else { String::new() },
        weights: (0..below(rng, 3) * 40).map(|i| i as f32 * -0.37).collect(),
        id: (below(rng, 5) != 0).then(|| id(rng)),
        weights_le: (0..below(rng, 3) * 150).map(|i| i as u8).collect(),
        origin: (below(rng, 3) == 0).then_some(origin),
        sources: (0..below(rng, 3)).map(|_| pb::Source { id: Some(id(rng)), peer: "10.0.0.7:5001".into() }).collect(),
    }
}

fn match_entrant(rng: &mut SplitMix64) -> pb::MatchEntrant {
    use pb::match_entrant::Kind;
    let kind = match below(rng, 4) {
        0 => None,
        1 => Some(Kind::Fixed(pb::FixedEntrant {
            serial: scalar(rng),
            kind: enumeration(rng),
            depth: scalar(rng) as u32,
            salt_or_seed: scalar(rng),
        })),
        _ => Some(Kind::Network(entrant(rng))),
    };
    pb::MatchEntrant { kind }
}

/// A task of a random kind (or none) with random fields.
fn task(rng: &mut SplitMix64) -> pb::Task {
    use pb::match_task::Format;
    let kind = match below(rng, 4) {
        0 => None,
        1 => Some(pb::task::Kind::Tournament(pb::TournamentTask {
            entrants: (0..below(rng, 5)).map(|_| entrant(rng)).collect(),
            rules: rules(rng),
            depth: scalar(rng) as u32,
            seed: scalar(rng),
        })),
        2 => Some(pb::task::Kind::Benchmark(pb::BenchmarkTask {
            entrant: (below(rng, 4) != 0).then(|| entrant(rng)),
            reference: enumeration(rng),
            reference_depth: scalar(rng) as u32,
            depth: scalar(rng) as u32,
            rules: rules(rng),
            seed: scalar(rng),
        })),
        _ => {
            let format = match below(rng, 3) {
                0 => None,
                1 => Some(Format::Knockout(pb::Knockout { seed: scalar(rng) })),
                _ => Some(Format::Pairs(pb::Pairs {
                    pairings: (0..below(rng, 4))
                        .map(|_| pb::Pairing { a: 0, b: 1, seed: scalar(rng), opening_plies: scalar(rng) as u32 })
                        .collect(),
                })),
            };
            Some(pb::task::Kind::Match(pb::MatchTask {
                entrants: (0..below(rng, 5)).map(|_| match_entrant(rng)).collect(),
                network_depth: scalar(rng) as u32,
                rules: rules(rng),
                format,
            }))
        }
    };
    pb::Task { id: scalar(rng), kind }
}

fn complete_reply(rng: &mut SplitMix64) -> pb::CompleteReply {
    pb::CompleteReply { completion: enumeration(rng), tasks: (0..below(rng, 4)).map(|_| task(rng)).collect() }
}

fn deliver_reply(rng: &mut SplitMix64) -> pb::DeliverReply {
    let answer = match below(rng, 5) {
        0 => None,
        1 => Some(Answer::Error(pb::CallError {
            code: below(rng, 22) as i32 - 2,
            message: "x".repeat(below(rng, 200) as usize),
        })),
        _ => Some(Answer::Reply(complete_reply(rng))),
    };
    pb::DeliverReply { answer }
}

#[test]
fn the_messages_written_by_hand_have_the_fields_they_write() {
    // A field added to one of them in loa.proto would be left out by `write` (and the random
    // messages here would not know to set it): this fails first.
    let proto = protox::compile(["loa.proto"], [env!("CARGO_MANIFEST_DIR")]).expect("loa.proto compiles");
    let fields = |name: &str| {
        let message = proto.file.iter().flat_map(|f| &f.message_type).find(|m| m.name() == name);
        message.map(|m| m.field.iter().map(|f| (f.number(), f.name().to_owned())).collect::<Vec<_>>())
    };
    let expect = |list: &[(i32, &str)]| Some(list.iter().map(|&(n, s)| (n, s.to_owned())).collect::<Vec<_>>());
    assert_eq!(fields("LeaseReply"), expect(&[(1, "tasks")]));
    assert_eq!(fields("CompleteReply"), expect(&[(1, "completion"), (2, "tasks")]));
    assert_eq!(fields("DeliverReply"), expect(&[(1, "reply"), (2, "error")]));
    assert_eq!(fields("DeliveryBatchReply"), expect(&[(1, "answers")]));
    assert_eq!(fields("Task"), expect(&[(1, "id"), (2, "tournament"), (3, "benchmark"), (4, "match")]));
    assert_eq!(fields("TournamentTask"), expect(&[(1, "entrants"), (2, "rules"), (3, "depth"), (4, "seed")]));
    let benchmark = [(1, "entrant"), (2, "reference"), (3, "reference_depth"), (4, "depth"), (5, "rules"), (6, "seed")];
    assert_eq!(fields("BenchmarkTask"), expect(&benchmark));
    let match_task = [(1, "entrants"), (2, "network_depth"), (3, "rules"), (4, "pairs"), (5, "knockout")];
    assert_eq!(fields("MatchTask"), expect(&match_task));
    assert_eq!(fields("MatchEntrant"), expect(&[(1, "network"), (2, "fixed")]));
    let entrant =
        [(1, "serial"), (2, "topology"), (3, "weights"), (4, "id"), (5, "weights_le"), (6, "origin"), (7, "sources")];
    assert_eq!(fields("Entrant"), expect(&entrant));
    assert_eq!(fields("ChromosomeId"), expect(&[(1, "high"), (2, "low")]));
}

#[test]
fn messages_of_every_kind_are_prost_s_bytes() {
    let mut rng = SplitMix64::new(14);
    for round in 0..400 {
        // Up to 70 answers: many replies pass 127 bytes, so lengths of two bytes and more.
        let batch =
            pb::DeliveryBatchReply { answers: (0..below(&mut rng, 70)).map(|_| deliver_reply(&mut rng)).collect() };
        assert_eq!(one_pass(&batch), batch.encode_to_vec(), "batch of round {round}");
        let deliver = deliver_reply(&mut rng);
        assert_eq!(one_pass(&deliver), deliver.encode_to_vec(), "deliver reply of round {round}");
        let complete = complete_reply(&mut rng);
        assert_eq!(one_pass(&complete), complete.encode_to_vec(), "complete reply of round {round}");
        let lease = pb::LeaseReply { tasks: (0..below(&mut rng, 5)).map(|_| task(&mut rng)).collect() };
        assert_eq!(one_pass(&lease), lease.encode_to_vec(), "lease reply of round {round}");
        let task = task(&mut rng);
        assert_eq!(one_pass(&task), task.encode_to_vec(), "task of round {round}");
    }
}

#[test]
fn varints_are_prost_s_at_every_length() {
    // Each power of two, one either side of it, and the extremes: every length from 1 to 10 bytes.
    let values = (0..64).flat_map(|k| {
        let p = 1u64 << k;
        [p - 1, p, p + 1]
    });
    for value in values.chain([u64::MAX, u64::MAX - 1, 0x7f, 0x80]) {
        let (mut ours, mut prost_s) = (Vec::new(), Vec::new());
        put_varint(value, &mut ours);
        prost::encoding::encode_varint(value, &mut prost_s);
        assert_eq!(ours, prost_s, "{value:#x}");
    }
    for (tag, wire_type) in [(1, WireType::Varint), (7, WireType::LengthDelimited), (15, WireType::SixtyFourBit)] {
        let (mut ours, mut prost_s) = (Vec::new(), Vec::new());
        put_key(tag, wire_type, &mut ours);
        prost::encoding::encode_key(tag, wire_type, &mut prost_s);
        assert_eq!(ours, prost_s, "tag {tag}");
    }
}
