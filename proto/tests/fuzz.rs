//! Randomised input testing of every message the master and the worker decode: mutated valid
//! messages and arbitrary bytes go through the codec's decoding (wire bounds, then prost) and
//! the conversions to the engine's types, which must accept them or refuse them with a message,
//! within time and memory bounds (`../engine/tests/support/fuzz.rs`). Generated tasks and
//! outcomes must arrive as sent.

#[path = "../../engine/tests/support/fuzz.rs"]
mod fuzz;

use fuzz::{Decoder, inputs};
use loa_engine::aloa::AloaKind;
use loa_engine::network::{Chromosome, ChromosomeId, random_uniform};
use loa_engine::rules::{BothConnected, NoMoves, Rules};
use loa_engine::tasks::{FixedPlayer, MatchEntrant, MatchFormat, MatchTask, Pairing, Task, TaskFailure, TaskResult};
use loa_proto::codec::decode_from;
use loa_proto::convert::{
    Sending, check_peer_address, chromosome_from_proto, chromosome_to_proto, id_from_proto, id_to_proto,
    outcome_from_proto, outcome_to_proto, sources_from_proto, task_from_proto, task_to_proto,
};
use loa_proto::{bounds::WireBounds, pb, v1};
use proptest::prelude::*;
use prost::Message;
use std::sync::Arc;

/// Bytes of any kind: a message's own fields are varints, lengths and text.
const ANY: &str = "[\\x00-\\x7f]{0,64}";

/// `bytes` decoded as a `M` exactly as a peer's message is, the status's message on refusal.
fn decode<M: Message + Default + WireBounds>(bytes: &[u8]) -> Result<M, String> {
    let mut buf = bytes;
    // The status's own message must say what is wrong; its code alone does not.
    decode_from::<M>(&mut buf).map_err(|s| if s.message().trim().is_empty() { String::new() } else { s.to_string() })
}

fn rules() -> Rules {
    Rules { both_connected: BothConnected::MoverWins, no_moves: NoMoves::Passes, ply_cap: 30 }
}

/// A knockout of four networks, as the master leases them (from Scrambled Eggs, so the start
/// field is not its default).
fn knockout(seed: u64) -> MatchTask {
    MatchTask {
        entrants: (10..14)
            .map(|serial| MatchEntrant::Network { serial, chromosome: Arc::new(random_uniform(serial)) })
            .collect(),
        network_depth: 1,
        rules: rules(),
        board: loa_engine::BoardSize::STANDARD,
        start: loa_engine::Start::ScrambledEggs,
        format: MatchFormat::Knockout { seed },
    }
}

/// Round-robin pairs of two networks and two fixed players.
fn pairs() -> MatchTask {
    let mut entrants: Vec<MatchEntrant> =
        (20..22).map(|serial| MatchEntrant::Network { serial, chromosome: Arc::new(random_uniform(serial)) }).collect();
    entrants
        .push(MatchEntrant::Fixed { serial: 30, player: FixedPlayer::Aloa { evaluator: AloaKind::Quad, depth: 1 } });
    entrants.push(MatchEntrant::Fixed { serial: 31, player: FixedPlayer::Random { depth: 1, salt: 5 } });
    let pairings = [(0, 1), (2, 3), (1, 3), (0, 2)]
        .into_iter()
        .enumerate()
        .map(|(i, (a, b))| Pairing { a, b, seed: 77 + i as u64, opening_plies: 2 * i as u32 })
        .collect();
    MatchTask {
        entrants,
        network_depth: 1,
        rules: Rules::default(),
        board: Default::default(),
        start: Default::default(),
        format: MatchFormat::Pairs(pairings),
    }
}

/// Real outcomes of a few tasks, a failure and a panic's message.
fn results() -> Vec<TaskResult> {
    let mut all: Vec<TaskResult> =
        vec![Ok(knockout(3).run().expect("plays").into()), Ok(pairs().run().expect("plays").into())];
    all.push(Err(TaskFailure::Reported("a worker ran out of memory".into())));
    all
}

fn worker_messages() -> Vec<Vec<u8>> {
    let outcomes: Vec<pb::Outcome> =
        results().iter().enumerate().map(|(i, r)| outcome_to_proto(100 + i as u64, r, (7 << 32) | 3)).collect();
    let mut seeds = vec![pb::WorkerMessage { worker_id: (7 << 32) | 3, outcomes: vec![], want: 64 }.encode_to_vec()];
    for n in 1..=outcomes.len() {
        let message = pb::WorkerMessage { worker_id: (7 << 32) | 3, outcomes: outcomes[..n].to_vec(), want: 4 };
        seeds.push(message.encode_to_vec());
    }
    seeds
}

#[test]
fn worker_message_as_the_master_reads_it() {
    Decoder::new("proto: WorkerMessage (master)").check(inputs(worker_messages(), ANY), |bytes| {
        let message = decode::<pb::WorkerMessage>(bytes)?;
        for outcome in &message.outcomes {
            outcome_from_proto(outcome).map_err(|e| fuzz::message(&e))?.2.ok();
        }
        Ok(())
    });
}

/// Every network the seeds hold, for the worker's cache to resolve ids with.
fn known() -> Vec<Arc<Chromosome>> {
    (10..14).chain(20..22).map(|s| Arc::new(random_uniform(s))).collect()
}

fn master_messages() -> Vec<Vec<u8>> {
    let mut seeds = Vec::new();
    for (id, task) in [knockout(5), pairs()].iter().enumerate() {
        for sending in [Sending::Weights, Sending::Id] {
            let t = task_to_proto(id as u64 + 1, &Task::Match(task.clone()), &mut |_| sending.clone());
            seeds.push(pb::MasterMessage { tasks: vec![t.clone()], ..Default::default() }.encode_to_vec());
        }
    }
    let both = [knockout(9), pairs()]
        .iter()
        .map(|t| task_to_proto(9, &Task::Match(t.clone()), &mut |_| Sending::Id))
        .collect();
    seeds.push(pb::MasterMessage { tasks: both, ..Default::default() }.encode_to_vec());
    seeds
}

#[test]
fn master_message_as_the_worker_reads_it() {
    let known = known();
    let resolve = move |id: ChromosomeId| known.iter().find(|c| c.id() == id).cloned();
    Decoder::new("proto: MasterMessage (worker)").check(inputs(master_messages(), ANY), |bytes| {
        let message = decode::<pb::MasterMessage>(bytes)?;
        for task in message.tasks {
            task_from_proto(task, &resolve).map_err(|e| fuzz::message(&e))?;
        }
        Ok(())
    });
}

fn fetch_replies() -> Vec<Vec<u8>> {
    let entrants: Vec<pb::Entrant> = known().iter().map(|c| chromosome_to_proto(c)).collect();
    vec![
        pb::FetchChromosomesReply { chromosomes: entrants[..1].to_vec() }.encode_to_vec(),
        pb::FetchChromosomesReply { chromosomes: entrants[..3].to_vec() }.encode_to_vec(),
    ]
}

#[test]
fn fetched_chromosomes_as_the_worker_reads_them() {
    Decoder::new("proto: FetchChromosomesReply (worker)").check(inputs(fetch_replies(), ANY), |bytes| {
        let reply = decode::<pb::FetchChromosomesReply>(bytes)?;
        for entrant in &reply.chromosomes {
            chromosome_from_proto(entrant).map_err(|e| fuzz::message(&e))?;
            sources_from_proto(&entrant.sources).map_err(|e| fuzz::message(&e))?;
        }
        Ok(())
    });
}

fn ids(n: u64) -> Vec<pb::ChromosomeId> {
    (0..n).map(|s| id_to_proto(random_uniform(s).id())).collect()
}

#[test]
fn fetch_request_as_the_master_reads_it() {
    let seeds = vec![
        pb::FetchChromosomesRequest { task_ids: vec![1, 2, u64::MAX], ids: ids(3) }.encode_to_vec(),
        pb::FetchChromosomesRequest { task_ids: (0..64).collect(), ids: vec![] }.encode_to_vec(),
    ];
    Decoder::new("proto: FetchChromosomesRequest (master)").check(inputs(seeds, ANY), |bytes| {
        let request = decode::<pb::FetchChromosomesRequest>(bytes)?;
        request.ids.iter().for_each(|id| {
            let _ = id_from_proto(id);
        });
        Ok(())
    });
}

#[test]
fn peer_request_as_a_worker_reads_it() {
    let seeds = vec![pb::PeerRequest { ids: ids(4) }.encode_to_vec()];
    Decoder::new("proto: PeerRequest (worker)").check(inputs(seeds, ANY), |bytes| {
        decode::<pb::PeerRequest>(bytes)?.ids.iter().for_each(|id| {
            let _ = id_from_proto(id);
        });
        Ok(())
    });
}

#[test]
fn registration_as_the_master_reads_it() {
    let request = |host: &str| pb::RegisterRequest {
        protocol: loa_proto::PROTOCOL_VERSION,
        name: "node-7/worker 2".into(),
        slots: 8,
        chromosome_cache: 4096,
        peer_port: 7071,
        peer_host: host.into(),
    };
    let seeds =
        vec![request("").encode_to_vec(), request("10.0.0.7").encode_to_vec(), request("[::1]").encode_to_vec()];
    Decoder::new("proto: RegisterRequest (master)").check(inputs(seeds, ANY), |bytes| {
        let request = decode::<pb::RegisterRequest>(bytes)?;
        if !request.peer_host.is_empty() {
            check_peer_address("peer_host", &format!("{}:{}", request.peer_host, request.peer_port))
                .map_err(|e| fuzz::message(&e))?;
        }
        Ok(())
    });
}

#[test]
fn version_one_registration_as_the_master_reads_it() {
    let seeds = vec![v1::RegisterRequest::default().encode_to_vec(), vec![0x08, 0x01, 0x12, 0x01, b'x']];
    Decoder::new("proto: v1 RegisterRequest (master)")
        .check(inputs(seeds, ANY), |bytes| decode::<v1::RegisterRequest>(bytes).map(drop));
}

#[test]
fn registration_reply_as_the_worker_reads_it() {
    let reply = pb::RegisterReply {
        worker_id: (3 << 32) | 9,
        lease_seconds: 30,
        peer_token: "f00d".repeat(8),
        credential: format!("{:016x}{}", (3u64 << 32) | 9, "c0de".repeat(8)),
    };
    Decoder::new("proto: RegisterReply (worker)")
        .check(inputs(vec![reply.encode_to_vec()], ANY), |bytes| decode::<pb::RegisterReply>(bytes).map(drop));
}

/// A valid task: 2 to 6 entrants of both kinds, any rules, pairs or (for 2 or 4) a knockout.
fn task() -> impl Strategy<Value = MatchTask> {
    let entrant = prop_oneof![
        (0..1000u64).prop_map(Err),
        (1..4u32, any::<u64>()).prop_map(|(depth, seed)| Ok(FixedPlayer::RandomAnn { depth, seed })),
        (1..4u32, any::<u64>()).prop_map(|(depth, salt)| Ok(FixedPlayer::Random { depth, salt })),
        (1..4u32).prop_map(|depth| Ok(FixedPlayer::Aloa { evaluator: AloaKind::Normal, depth })),
    ];
    let rules = (any::<bool>(), any::<bool>(), any::<u32>()).prop_map(|(b, n, ply_cap)| Rules {
        both_connected: if b { BothConnected::Draw } else { BothConnected::MoverWins },
        no_moves: if n { NoMoves::Loses } else { NoMoves::Passes },
        ply_cap,
    });
    let pairing = (any::<prop::sample::Index>(), 1..6usize, any::<u64>(), 0..=40u32);
    (
        proptest::collection::vec(entrant, 2..=6),
        1..=4u32,
        rules,
        proptest::option::of(proptest::collection::vec(pairing, 1..12)),
        any::<u64>(),
    )
        .prop_map(|(kinds, network_depth, rules, pairings, seed)| {
            let n = kinds.len();
            let entrants = kinds
                .into_iter()
                .enumerate()
                .map(|(i, kind)| match kind {
                    Err(s) => MatchEntrant::Network { serial: i as u64, chromosome: Arc::new(random_uniform(s)) },
                    Ok(player) => MatchEntrant::Fixed { serial: i as u64, player },
                })
                .collect();
            let format = match pairings {
                None if n.is_power_of_two() => MatchFormat::Knockout { seed },
                None => MatchFormat::Pairs(vec![Pairing { a: 0, b: 1, seed, opening_plies: 0 }]),
                Some(pairings) => MatchFormat::Pairs(
                    pairings
                        .into_iter()
                        .map(|(a, step, seed, opening_plies)| {
                            let a = a.index(n);
                            Pairing { a, b: (a + step % (n - 1) + 1) % n, seed, opening_plies }
                        })
                        .collect(),
                ),
            };
            MatchTask { entrants, network_depth, rules, board: Default::default(), start: Default::default(), format }
        })
}

#[test]
fn tasks_arrive_as_sent() {
    Decoder::new("proto: task round trip").round_trip(task(), |task| {
        prop_assert!(task.validate().is_ok(), "a generated task is valid: {:?}", task.validate());
        let message = pb::MasterMessage {
            tasks: vec![task_to_proto(42, &Task::Match(task.clone()), &mut |_| Sending::Weights)],
            ..Default::default()
        };
        let mut arrived = decode::<pb::MasterMessage>(&message.encode_to_vec()).map_err(TestCaseError::fail)?;
        prop_assert_eq!(arrived.tasks.len(), 1);
        let back =
            task_from_proto(arrived.tasks.remove(0), &|_| None).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(back, (42, Task::Match(task)));
        Ok(())
    });
}

#[test]
fn outcomes_arrive_as_sent() {
    let results = results();
    let result = prop_oneof![
        any::<prop::sample::Index>().prop_map(move |i| results[i.index(results.len())].clone()),
        "\\PC{1,200}".prop_map(|m| Err(TaskFailure::Reported(m))),
    ];
    Decoder::new("proto: outcome round trip").round_trip(
        (any::<u64>(), any::<u64>(), result),
        |(id, leased, result)| {
            let message =
                pb::WorkerMessage { worker_id: 1, outcomes: vec![outcome_to_proto(id, &result, leased)], want: 0 };
            let arrived = decode::<pb::WorkerMessage>(&message.encode_to_vec()).map_err(TestCaseError::fail)?;
            let back = outcome_from_proto(&arrived.outcomes[0]).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(back, (id, leased, result));
            Ok(())
        },
    );
}
