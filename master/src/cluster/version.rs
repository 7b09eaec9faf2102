//! Protocol version 1's registration, served only to refuse it: a worker of version 1 is told,
//! by name, that this master speaks version 2, instead of meeting an unknown service.

use super::Counters;
use loa_proto::{PROTOCOL_VERSION, v1};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use tonic::{Request, Response, Status};

/// The `loa.v1.Master` service: every registration refused.
pub struct RefuseVersionOne {
    /// Where refusals are counted.
    pub counters: Arc<Counters>,
}

/// Why a worker of another protocol version cannot join.
pub fn version_refused(worker: u32) -> String {
    format!(
        "this master speaks loa protocol v{PROTOCOL_VERSION} and the worker v{worker}: run a worker built from the \
         master's version"
    )
}

#[tonic::async_trait]
impl v1::master_server::Master for RefuseVersionOne {
    async fn register(&self, request: Request<v1::RegisterRequest>) -> Result<Response<v1::RegisterReply>, Status> {
        self.counters.invalid.fetch_add(1, Ordering::Relaxed);
        let peer = request.remote_addr().map_or_else(|| "unknown peer".to_owned(), |a| a.to_string());
        eprintln!("master: refused worker {:?} from {peer}: it speaks loa protocol v1", request.get_ref().name);
        // UNAUTHENTICATED: the one refusal a worker of version 1 does not retry; it stops and
        // prints the message.
        Err(Status::unauthenticated(version_refused(1)))
    }
}
