//! Counting the requests the codec refuses. A message that does not decode (or is over its
//! bounds) is refused before any handler sees the call, so [`CountMalformed`] counts them from
//! the response: a status the codec marked ([`loa_proto::codec::MALFORMED_KEY`]), or the
//! OUT_OF_RANGE tonic gives a message over the size limit. Refusals inside a stream go in its
//! trailers, which are not read here: the stream counts those itself.

use super::Counters;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::task::{Context, Poll};
use tonic::codegen::{BoxFuture, Service, http};
use tonic::server::NamedService;

/// `S`, counting in `counter` the calls answered with the codec's refusal.
#[derive(Clone)]
pub struct CountMalformed<S> {
    inner: S,
    counters: Arc<Counters>,
}

impl<S> CountMalformed<S> {
    /// Wraps `inner`, counting in `counters.invalid`.
    pub fn new(inner: S, counters: Arc<Counters>) -> CountMalformed<S> {
        CountMalformed { inner, counters }
    }
}

/// Whether the response's headers say the codec refused the request.
fn refused_by_codec(headers: &http::HeaderMap) -> bool {
    let out_of_range = headers.get("grpc-status").is_some_and(|v| v.as_bytes() == b"11");
    headers.contains_key(loa_proto::codec::MALFORMED_KEY) || out_of_range
}

impl<S, B, R> Service<http::Request<B>> for CountMalformed<S>
where
    S: Service<http::Request<B>, Response = http::Response<R>>,
    S::Future: Send + 'static,
{
    type Response = http::Response<R>;
    type Error = S::Error;
    type Future = BoxFuture<Self::Response, Self::Error>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        let answer = self.inner.call(request);
        let counters = Arc::clone(&self.counters);
        Box::pin(async move {
            let response = answer.await?;
            if refused_by_codec(response.headers()) {
                counters.invalid.fetch_add(1, Ordering::Relaxed);
            }
            Ok(response)
        })
    }
}

impl<S: NamedService> NamedService for CountMalformed<S> {
    const NAME: &'static str = S::NAME;
}
