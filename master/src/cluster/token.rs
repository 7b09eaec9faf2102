//! The shared-token check in front of every call.

use super::Counters;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use tonic::{Request, Status};

/// Refuses calls without the right `authorization: Bearer <token>` metadata (when a token is set).
#[derive(Clone)]
pub struct TokenCheck {
    expected: Option<Arc<[u8]>>,
    counters: Arc<Counters>,
}

impl TokenCheck {
    /// A check for `token` (`None`: every call passes).
    pub fn new(token: Option<&str>, counters: Arc<Counters>) -> TokenCheck {
        TokenCheck { expected: token.map(|t| Arc::from(loa_proto::bearer(t).into_bytes())), counters }
    }
}

impl tonic::service::Interceptor for TokenCheck {
    fn call(&mut self, request: Request<()>) -> Result<Request<()>, Status> {
        let Some(expected) = &self.expected else { return Ok(request) };
        let given = request.metadata().get(loa_proto::TOKEN_HEADER).map(|v| v.as_bytes());
        if given.is_some_and(|g| loa_proto::same_token(g, expected)) {
            return Ok(request);
        }
        let refused = self.counters.refused.fetch_add(1, Ordering::Relaxed) + 1;
        // Logged, but not once per call: a misconfigured worker retries in a loop.
        if refused == 1 || refused.is_multiple_of(100) {
            let peer = request.remote_addr().map_or_else(|| "unknown peer".to_owned(), |a| a.to_string());
            eprintln!("master: refused a call from {peer} with a missing or wrong token ({refused} so far)");
        }
        Err(Status::unauthenticated("missing or wrong token"))
    }
}
