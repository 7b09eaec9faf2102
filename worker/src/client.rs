//! The connection to the master: the token on every call, and back-off between failed calls.

use loa_proto::pb::master_client::MasterClient;
use std::time::Duration;
use tonic::metadata::{Ascii, MetadataValue};
use tonic::service::interceptor::InterceptedService;
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Endpoint};
use tonic::{Request, Status};

/// Adds the shared token to every call.
#[derive(Clone)]
pub struct TokenInject(Option<MetadataValue<Ascii>>);

impl tonic::service::Interceptor for TokenInject {
    fn call(&mut self, mut request: Request<()>) -> Result<Request<()>, Status> {
        if let Some(value) = &self.0 {
            request.metadata_mut().insert(loa_proto::TOKEN_HEADER, value.clone());
        }
        Ok(request)
    }
}

/// A client of the master's service.
pub type Client = MasterClient<InterceptedService<Channel, TokenInject>>;

/// A client for `url` that connects lazily, so a master not up yet only makes calls fail. Errors
/// name a bad URL, token or CA certificate. An `https://` URL needs `tls_ca`, the certificate
/// that signed the master's (a cluster's is normally self-signed: no system trust store).
pub fn connect(url: &str, token: Option<&str>, tls_ca: Option<&[u8]>) -> Result<Client, String> {
    let token = token
        .map(|t| {
            MetadataValue::try_from(loa_proto::bearer(t)).map_err(|_| "the token must be printable ASCII".to_owned())
        })
        .transpose()?;
    // Without an http(s) scheme and a host every call would fail and the worker retry for ever.
    let bad = || format!("bad master URL {url:?}: give http://HOST:PORT or https://HOST:PORT");
    if !(url.starts_with("http://") || url.starts_with("https://")) {
        return Err(bad());
    }
    let mut endpoint = Endpoint::from_shared(url.to_owned()).map_err(|e| format!("{}: {e}", bad()))?;
    if endpoint.uri().host().is_none_or(str::is_empty) {
        return Err(bad());
    }
    let https = endpoint.uri().scheme_str() == Some("https");
    // A host that no name server knows is a typo, not a master yet to come: refused at once.
    let host = endpoint.uri().host().unwrap_or_default().trim_start_matches('[').trim_end_matches(']');
    let port = endpoint.uri().port_u16().unwrap_or(if https { 443 } else { 80 });
    std::net::ToSocketAddrs::to_socket_addrs(&(host, port))
        .map_err(|e| format!("cannot find the master's host {host:?} ({e}): check the host name in --master"))?;
    match (https, tls_ca) {
        (true, None) => return Err(format!("{url} is https: give the master's CA certificate with --tls-ca")),
        (false, Some(_)) => return Err(format!("--tls-ca needs an https:// master URL, not {url}")),
        (true, Some(ca)) => {
            let tls = ClientTlsConfig::new().ca_certificate(Certificate::from_pem(ca));
            endpoint = endpoint.tls_config(tls).map_err(|e| format!("TLS with the CA given: {e}"))?;
        }
        (false, None) => {}
    }
    let endpoint = endpoint
        .connect_timeout(Duration::from_secs(5))
        .tcp_nodelay(true)
        // A task is about 33 KiB: larger windows than HTTP/2's 64 KiB avoid flow-control stalls.
        .initial_stream_window_size(1 << 20)
        .initial_connection_window_size(8 << 20)
        .http2_keep_alive_interval(Duration::from_secs(20))
        .keep_alive_while_idle(true);
    Ok(MasterClient::with_interceptor(endpoint.connect_lazy(), TokenInject(token))
        .max_decoding_message_size(loa_proto::MAX_MESSAGE_BYTES))
}

/// If `status` failed because the master's certificate was not trusted, why. Found by its
/// message in the source chain: tonic does not expose rustls's error type.
pub fn certificate_refused(status: &Status) -> Option<String> {
    std::iter::successors(std::error::Error::source(status), |e| e.source())
        .map(|e| e.to_string())
        .find(|message| message.contains("invalid peer certificate") || message.contains("UnknownIssuer"))
}

/// Why a call failed, in a few words: the innermost cause (an OS error by its kind, e.g.
/// "connection refused"), else the status's message.
pub fn reason(status: &Status) -> String {
    match std::iter::successors(std::error::Error::source(status), |e| e.source()).last() {
        Some(e) => match e.downcast_ref::<std::io::Error>() {
            Some(io) if io.raw_os_error().is_some() => io.kind().to_string(),
            _ => e.to_string(),
        },
        None => status.message().to_owned(),
    }
}

/// Capped exponential back-off with jitter, so a thousand workers that lost the master do not
/// all call it again in the same millisecond when it comes back.
pub struct Backoff {
    next: Duration,
    max: Duration,
    salt: u64,
    attempt: u64,
}

/// The first pause after a failure.
const FIRST_PAUSE: Duration = Duration::from_millis(100);

impl Backoff {
    /// Back-off up to `max`; `salt` (e.g. from the worker's name) varies the jitter per worker.
    pub fn new(max: Duration, salt: u64) -> Backoff {
        Backoff { next: FIRST_PAUSE.min(max), max, salt, attempt: 0 }
    }

    /// Call after a success.
    pub fn reset(&mut self) {
        self.next = FIRST_PAUSE.min(self.max);
    }

    /// The pause before the next attempt (between half and all of the current step).
    pub fn pause(&mut self) -> Duration {
        self.attempt += 1;
        let fraction = (loa_engine::random::derive_seed(self.salt, self.attempt) >> 11) as f64 / (1u64 << 53) as f64;
        let pause = self.next.mul_f64(0.5 + 0.5 * fraction);
        self.next = (self.next * 2).min(self.max);
        pause
    }
}
