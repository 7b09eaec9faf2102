//! Origins (how a chromosome was bred) and sources (peers that hold a chromosome) on the wire.
//! Coming in, each is checked whole, counts bounded first, so [`Origin::make`] never meets a
//! malformed origin.

use super::{id_from_proto, id_to_proto};
use crate::{ProtoError, each, pb};
use loa_engine::breeding::{self, MAX_STEPS, Origin, Step};
use loa_engine::network::ChromosomeId;

/// Most sources one entrant names.
pub const MAX_SOURCES: usize = 8;
/// Longest peer address (`host:port`).
pub const MAX_PEER_ADDRESS: usize = 300;

/// The wire form of an origin.
pub fn origin_to_proto(origin: &Origin) -> pb::Origin {
    pb::Origin {
        parents: origin.parents().iter().map(|&id| id_to_proto(id)).collect(),
        steps: origin.steps().iter().map(step_to_proto).collect(),
    }
}

fn step_to_proto(step: &Step) -> pb::BreedingStep {
    pb::BreedingStep {
        state: step.state.to_vec(),
        operator: step.variation.name().to_owned(),
        parameters: step.variation.parameters().to_vec(),
    }
}

/// An origin from the wire, checked (field paths relative to the origin).
pub fn origin_from_proto(origin: &pb::Origin) -> Result<Origin, ProtoError> {
    if origin.parents.len() > 2 {
        return Err(ProtoError::new("parents", format!("{} parents: an origin has at most 2", origin.parents.len())));
    }
    if origin.steps.is_empty() || origin.steps.len() > MAX_STEPS {
        let n = origin.steps.len();
        return Err(ProtoError::new("steps", format!("{n} steps: an origin has 1 to {MAX_STEPS}")));
    }
    let steps = each("steps", &origin.steps, step_from_proto)?;
    let parents = origin.parents.iter().map(id_from_proto).collect();
    // The engine's own checks (parent count, later steps mutations, parameters' ranges).
    Origin::new(parents, steps).map_err(|e| ProtoError::new("", e.to_string()))
}

fn step_from_proto(step: &pb::BreedingStep) -> Result<Step, ProtoError> {
    let state: [u64; 4] = step
        .state
        .as_slice()
        .try_into()
        .map_err(|_| ProtoError::new("state", format!("{} words: the generator's state is 4", step.state.len())))?;
    let variation = breeding::variation(&step.operator, &step.parameters)
        .map_err(|e| ProtoError::new("operator", e.to_string()))?;
    Ok(Step { variation, state })
}

/// The wire form of a source: chromosome `id` at the peer `peer` (`host:port`).
pub fn source_to_proto(id: ChromosomeId, peer: &str) -> pb::Source {
    pb::Source { id: Some(id_to_proto(id)), peer: peer.to_owned() }
}

/// Sources from the wire, checked: at most [`MAX_SOURCES`], each with an id and a peer address
/// `host:port` of at most [`MAX_PEER_ADDRESS`] bytes (field paths relative to the entrant).
pub fn sources_from_proto(sources: &[pb::Source]) -> Result<Vec<(ChromosomeId, String)>, ProtoError> {
    if sources.len() > MAX_SOURCES {
        return Err(ProtoError::new("sources", format!("{} sources: at most {MAX_SOURCES}", sources.len())));
    }
    each("sources", sources, |s| {
        let id = s.id.as_ref().ok_or_else(|| ProtoError::new("id", "missing"))?;
        check_peer_address("peer", &s.peer)?;
        Ok((id_from_proto(id), s.peer.clone()))
    })
}

/// Checks that `address`, given as `field`, is a peer address `host:port` of at most
/// [`MAX_PEER_ADDRESS`] bytes with a port above 0.
pub fn check_peer_address(field: &str, address: &str) -> Result<(), ProtoError> {
    let refuse = |why: String| Err(ProtoError::new(field, why));
    if address.len() > MAX_PEER_ADDRESS {
        return refuse(format!("longer than {MAX_PEER_ADDRESS} bytes"));
    }
    match address.parse::<tonic::codegen::http::uri::Authority>() {
        Err(e) => refuse(format!("{address:?} is not host:port ({e})")),
        Ok(a) if a.port_u16().is_some_and(|p| p > 0) && a.as_str() == address && !a.host().is_empty() => Ok(()),
        Ok(_) => refuse(format!("{address:?} is not host:port with a port above 0")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use loa_engine::breeding::operators::{gaussian, uniform_reset};
    use loa_engine::breeding::{BreedingRng, OPERATORS, Variation};
    use loa_engine::network::random_uniform;

    fn step(variation: Variation) -> Step {
        Step { variation, state: [1, 2, 3, 4] }
    }

    #[test]
    fn origins_round_trip() {
        let (a, b) = (random_uniform(1).id(), random_uniform(2).id());
        let mut rng = BreedingRng::from_seed(3);
        rng.next_u64();
        let gaussian = gaussian::variation(0.125, 0.5);
        let mut origins =
            vec![Origin::new(vec![a], vec![Step { variation: uniform_reset::variation(0.15), state: rng.state() }])];
        for variation in OPERATORS.iter().map(|o| o.example()) {
            let parents = [vec![], vec![a], vec![b, a]][variation.parents()].clone();
            origins.push(Origin::new(parents.clone(), vec![step(variation)]));
            origins.push(Origin::new(parents, vec![step(variation), step(gaussian)]));
        }
        for origin in origins {
            let origin = origin.unwrap();
            assert_eq!(origin_from_proto(&origin_to_proto(&origin)), Ok(origin));
        }
    }

    /// The error for `o` changed by `change`: its field and problem.
    fn refused(change: impl FnOnce(&mut pb::Origin)) -> (String, String) {
        let a = random_uniform(1).id();
        let mut o = origin_to_proto(&Origin::new(vec![a], vec![step(uniform_reset::variation(0.2))]).unwrap());
        change(&mut o);
        let e = origin_from_proto(&o).unwrap_err();
        (e.field, e.problem)
    }

    #[test]
    fn malformed_origins_are_refused_naming_the_field() {
        let id = id_to_proto(random_uniform(5).id());
        assert_eq!(refused(|o| o.parents = vec![id; 3]).0, "parents");
        assert_eq!(refused(|o| o.steps.clear()).0, "steps");
        assert_eq!(refused(|o| o.steps = vec![o.steps[0].clone(); 3]).0, "steps");
        assert_eq!(refused(|o| o.steps[0].state.truncate(3)).0, "steps[0].state");
        let (field, problem) = refused(|o| o.steps[0].operator = "no-such-operator".into());
        assert_eq!(
            (field.as_str(), problem.as_str()),
            ("steps[0].operator", "no variation operator is named \"no-such-operator\"")
        );
        let (field, problem) = refused(|o| o.steps[0].parameters.push(0.5));
        assert_eq!(
            (field.as_str(), problem.as_str()),
            ("steps[0].operator", "uniform-reset takes 1 parameters, got 2")
        );
        // The engine's checks, about the origin as a whole.
        let (field, problem) = refused(|o| o.parents.push(id));
        assert_eq!(field, "");
        assert!(problem.contains("2 parents, but the first step takes 1"), "{problem}");
        assert!(refused(|o| o.steps[0].parameters = vec![f64::NAN]).1.contains("probability NaN"));
        // xoshiro's fixed point: a Gaussian step from it would draw 0 forever, never ending.
        assert!(refused(|o| o.steps[0].state = vec![0; 4]).1.contains("all zeros"));
    }

    #[test]
    fn sources_are_bounded_and_name_peers_by_host_and_port() {
        let id = random_uniform(1).id();
        let good = ["127.0.0.1:5", "[::1]:7", "node-3.cluster:50052"];
        let sources: Vec<pb::Source> = good.iter().map(|p| source_to_proto(id, p)).collect();
        let back = sources_from_proto(&sources).unwrap();
        assert_eq!(back, good.iter().map(|p| (id, (*p).to_owned())).collect::<Vec<_>>());
        let long = format!("{}:1", "h".repeat(MAX_PEER_ADDRESS));
        for bad in ["", "host", "host:0", "host:99999", "a b:1", "http://h:1", "h:1/x", long.as_str()] {
            let e = sources_from_proto(&[source_to_proto(id, bad)]).unwrap_err();
            assert_eq!(e.field, "sources[0].peer", "{bad:?}: {e}");
        }
        let e = sources_from_proto(&[pb::Source { id: None, peer: "h:1".into() }]).unwrap_err();
        assert_eq!(e.field, "sources[0].id");
        let e = sources_from_proto(&vec![source_to_proto(id, "h:1"); MAX_SOURCES + 1]).unwrap_err();
        assert_eq!(e.field, "sources");
    }
}
