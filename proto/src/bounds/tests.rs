use super::*;
use crate::limits::{MAX_FAILURE_BYTES, MAX_TASKS_PER_MESSAGE};
use prost::Message;

/// The largest game summary: the largest enum values and ply count.
fn game() -> pb::GameSummary {
    pb::GameSummary { outcome: 3, reason: 4, plies: u32::MAX }
}

/// A match with `games` games between the two highest entrant indices.
fn summary(games: usize) -> pb::MatchSummary {
    let last = MAX_ENTRANTS as u32 - 1;
    pb::MatchSummary { a: last, b: last - 1, winner: 2, criterion: 4, games: vec![game(); games] }
}

/// An outcome of `n` matches, its ids the longest varints.
fn played(n: usize) -> pb::Outcome {
    let matches = pb::MatchOutcome { matches: vec![summary(2); n] };
    pb::Outcome { task_id: u64::MAX, result: Some(pb::outcome::Result::Match(matches)), leased_to: u64::MAX }
}

fn failed(bytes: usize) -> pb::Outcome {
    let failure = pb::outcome::Result::Failure("x".repeat(bytes));
    pb::Outcome { task_id: u64::MAX, result: Some(failure), leased_to: u64::MAX }
}

fn message(outcomes: Vec<pb::Outcome>) -> pb::WorkerMessage {
    pb::WorkerMessage { worker_id: u64::MAX, outcomes, want: u32::MAX }
}

fn refused<M: WireBounds>(message: &impl Message) -> String {
    M::check_wire(&message.encode_to_vec()).expect_err("refused").to_string()
}

#[test]
fn the_largest_legal_requests_fit_the_bound_with_room_and_pass_the_counts() {
    let matches = message(vec![played(MAX_MATCHES); MAX_TASKS_PER_MESSAGE]);
    let failures = message(vec![failed(MAX_FAILURE_BYTES); MAX_TASKS_PER_MESSAGE]);
    let largest = matches.encoded_len().max(failures.encoded_len());
    assert!(largest <= MAX_REQUEST_BYTES, "{largest} bytes do not fit in {MAX_REQUEST_BYTES}");
    // Not loose: a bound twice what legal messages need would let garbage through for nothing.
    assert!(2 * largest > MAX_REQUEST_BYTES, "{largest} bytes is less than half of {MAX_REQUEST_BYTES}");
    for legal in [&matches, &failures] {
        assert_eq!(pb::WorkerMessage::check_wire(&legal.encode_to_vec()), Ok(()));
    }
    let fetch = pb::FetchChromosomesRequest {
        task_ids: vec![u64::MAX; MAX_TASKS_PER_MESSAGE],
        ids: vec![pb::ChromosomeId { high: u64::MAX, low: u64::MAX }; MAX_TASKS_PER_MESSAGE * MAX_ENTRANTS],
    };
    assert!(fetch.encoded_len() < MAX_REQUEST_BYTES);
    assert_eq!(pb::FetchChromosomesRequest::check_wire(&fetch.encode_to_vec()), Ok(()));
    let peers = pb::PeerRequest { ids: vec![pb::ChromosomeId::default(); MAX_PEER_IDS] };
    assert_eq!(pb::PeerRequest::check_wire(&peers.encode_to_vec()), Ok(()));
}

#[test]
fn repeated_fields_past_their_bounds_are_refused_before_decoding() {
    // Half a million empty outcomes: a 1 MiB message that would build about 40 MiB of them.
    let flood = pb::WorkerMessage { outcomes: vec![pb::Outcome::default(); 500_000], ..Default::default() };
    let why = refused::<pb::WorkerMessage>(&flood);
    assert_eq!(why, "outcomes: more than 64 elements, the most a legal message holds: refused unread");
    assert!(refused::<pb::WorkerMessage>(&message(vec![failed(1); 65])).starts_with("outcomes: more than 64"));

    // 257 matches, over two occurrences of the `match` field that prost would merge.
    let mut two_halves = played(200).encode_to_vec();
    two_halves.extend(played(57).encode_to_vec());
    let outcome = pb::Outcome::decode(&two_halves[..]).unwrap();
    assert_eq!(
        outcome.result.as_ref().map(|r| matches!(r, pb::outcome::Result::Match(m) if m.matches.len() == 257)),
        Some(true)
    );
    let why = refused::<pb::WorkerMessage>(&message(vec![played(1), outcome]));
    assert!(why.starts_with("outcomes[1].match.matches: more than 256 elements"), "{why}");

    let mut three_games = played(3);
    let Some(pb::outcome::Result::Match(m)) = &mut three_games.result else { unreachable!() };
    m.matches[2] = summary(3);
    let why = refused::<pb::WorkerMessage>(&message(vec![three_games]));
    assert!(why.starts_with("outcomes[0].match.matches[2].games: more than 2 elements"), "{why}");

    // Task ids packed (as prost sends them) and unpacked (as a hand-made message may).
    let packed = pb::FetchChromosomesRequest { task_ids: vec![1; 65], ids: vec![] };
    assert!(refused::<pb::FetchChromosomesRequest>(&packed).starts_with("task_ids: more than 64"));
    let unpacked: Vec<u8> = (0..65).flat_map(|_| [0x08, 0x01]).collect();
    assert!(pb::FetchChromosomesRequest::check_wire(&unpacked).is_err());
    assert_eq!(pb::FetchChromosomesRequest::check_wire(&unpacked[..128]), Ok(()));
    let ids = pb::FetchChromosomesRequest { task_ids: vec![], ids: vec![pb::ChromosomeId::default(); 1025] };
    assert!(refused::<pb::FetchChromosomesRequest>(&ids).starts_with("ids: more than 1024"));
    let peers = pb::PeerRequest { ids: vec![pb::ChromosomeId::default(); MAX_PEER_IDS + 1] };
    assert!(refused::<pb::PeerRequest>(&peers).starts_with("ids: more than 16"));
}

#[test]
fn bytes_that_do_not_parse_are_left_to_prost() {
    // An outcome claiming 16 bytes where 1 follows: the count cannot see it, prost refuses it.
    let truncated = [0x12, 0x10, 0x01];
    assert_eq!(pb::WorkerMessage::check_wire(&truncated), Ok(()));
    assert!(pb::WorkerMessage::decode(&truncated[..]).is_err());
}

#[test]
fn long_failures_are_cut_by_workers_and_refused_by_the_master() {
    use loa_engine::tasks::TaskFailure;
    // Two-byte characters, so the cut must find a character boundary.
    let long = Err(TaskFailure::Panicked("é".repeat(MAX_FAILURE_BYTES)));
    let sent = crate::convert::outcome_to_proto(1, &long, 0);
    let Some(pb::outcome::Result::Failure(message)) = &sent.result else { panic!("{sent:?}") };
    assert!(message.len() <= MAX_FAILURE_BYTES && message.len() > MAX_FAILURE_BYTES - 8, "{}", message.len());
    assert!(message.starts_with("playing it panicked: éé") && message.ends_with("é…"), "{message}");
    assert!(crate::convert::outcome_from_proto(&sent).is_ok());

    let why = crate::convert::outcome_from_proto(&failed(MAX_FAILURE_BYTES + 1)).unwrap_err().to_string();
    assert_eq!(why, "failure: 4097 bytes, more than the 4096 a worker sends");
}

/// A self-play outcome of `games` games sharing `moves` moves, each with a full variation of
/// the deepest search: the largest a legal outcome can be for that many moves.
fn self_played(games: usize, moves: usize) -> pb::Outcome {
    let per_game = moves / games;
    let depth = loa_engine::players::MAX_DEPTH as usize;
    let game = pb::PlayedGame {
        outcome: 3,
        reason: 4,
        moves: vec![0xFF; 2 * per_game / depth],
        leaves: vec![0xFF; (per_game / depth) * (1 + 2 * (depth - 1))],
    };
    let outcome = pb::SelfPlayOutcome { games: vec![game; games] };
    pb::Outcome { task_id: u64::MAX, result: Some(pb::outcome::Result::SelfPlay(outcome)), leased_to: u64::MAX }
}

#[test]
fn the_largest_self_play_outcome_fits_a_message_and_too_many_games_are_refused_unread() {
    use loa_engine::tasks::{MAX_SELF_PLAY_GAMES, MAX_SELF_PLAY_MOVES};
    let largest = message(vec![self_played(MAX_SELF_PLAY_GAMES, MAX_SELF_PLAY_MOVES as usize)]);
    assert!(largest.encoded_len() < MAX_REQUEST_BYTES / 4, "{} bytes", largest.encoded_len());
    assert_eq!(pb::WorkerMessage::check_wire(&largest.encode_to_vec()), Ok(()));
    let flood = message(vec![self_played(MAX_SELF_PLAY_GAMES + 1, 0)]);
    let why = refused::<pb::WorkerMessage>(&flood);
    assert!(why.starts_with("outcomes[0].self_play.games: more than 64 elements"), "{why}");
}
