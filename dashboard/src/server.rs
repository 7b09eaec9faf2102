//! The dashboard's HTTP server: six read-only routes, a token check, and a background thread
//! with its own small tokio runtime (one async thread, two blocking threads for the providers
//! and the chart), so requests never run on the run's threads.
//!
//! | route | what |
//! | --- | --- |
//! | `/` | the page (HTML with inline CSS and JS; polls the JSON routes) |
//! | `/api/status` | [`Status`](crate::Status) as JSON |
//! | `/api/epochs` | every epoch report as a JSON array (`?summary=1`: [`EpochSummary`] each) |
//! | `/api/chart.svg` | best / mean / median combined score per epoch, raw and smoothed |
//! | `/api/validation` | every held-out validation line as a JSON array (as in `validation.jsonl`) |
//! | `/api/validation.svg` | the win rate against each validation opponent over the run's wall time (`?axis=cpu`: CPU time), with 95 % bands |
//!
//! With a token, every route needs `Authorization: Bearer TOKEN` or `?token=TOKEN` (401
//! otherwise). Other paths get 404, other methods than GET and HEAD 405, a query or URI longer
//! than [`MAX_QUERY_BYTES`] / [`MAX_URI_BYTES`] 414, a query that does not decode 400.

use crate::Provider;
use crate::model::EpochSummary;
use crate::validation::Axis;
use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use loa_analysis::{Run, RunConfig};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

/// Longest query string accepted.
pub const MAX_QUERY_BYTES: usize = 512;
/// Longest request target (path and query) accepted.
pub const MAX_URI_BYTES: usize = 2048;
/// How long a shutdown waits for requests in progress.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(2);
/// The chart's size in pixels.
const CHART_SIZE: (u32, u32) = (860, 500);
/// A validation chart's size in pixels (two side by side).
const VALIDATION_CHART_SIZE: (u32, u32) = (640, 420);

/// The page, self-contained (no external scripts, styles or fonts).
const PAGE: &str = include_str!("page.html");

/// Epoch count, last epoch, its generation and mean: when these are unchanged, so is the chart.
type ChartKey = (usize, u32, u64, u64);

struct App {
    provider: Arc<dyn Provider>,
    token: Option<String>,
    chart: Mutex<Option<(ChartKey, Arc<String>)>>,
}

/// The dashboard's routes over `provider`; with `token`, every request must present it.
pub fn router(provider: Arc<dyn Provider>, token: Option<String>) -> Router {
    let app = Arc::new(App { provider, token, chart: Mutex::new(None) });
    Router::new().fallback(dispatch).with_state(app)
}

fn reply(status: StatusCode, content_type: &'static str, body: impl Into<Body>) -> Response {
    (
        status,
        [
            (header::CONTENT_TYPE, content_type),
            (header::CACHE_CONTROL, "no-store"),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
            (header::CONTENT_SECURITY_POLICY, "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src 'self'; connect-src 'self'; frame-ancestors 'none'"),
        ],
        body.into(),
    )
        .into_response()
}

fn text(status: StatusCode, message: &str) -> Response {
    reply(status, "text/plain; charset=utf-8", format!("{message}\n"))
}

/// `%XX` and `+` decoding of one query component; `None` if malformed.
fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                // Two hex digits exactly: `from_str_radix` alone would take a sign (`%+1`).
                let hex = bytes.get(i + 1..i + 3).filter(|h| h.iter().all(u8::is_ascii_hexdigit))?;
                out.push(u8::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()?);
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

/// The query's `key=value` pairs, decoded; `None` if any does not decode.
fn query_pairs(query: &str) -> Option<Vec<(String, String)>> {
    query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            Some((percent_decode(k)?, percent_decode(v)?))
        })
        .collect()
}

/// Compares in time independent of where the strings differ.
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

fn authorised(token: &str, headers: &HeaderMap, pairs: &[(String, String)]) -> bool {
    let from_header = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .is_some_and(|t| same(t.trim(), token));
    from_header || pairs.iter().any(|(k, v)| k == "token" && same(v, token))
}

async fn dispatch(State(app): State<Arc<App>>, request: Request) -> Response {
    let uri = request.uri();
    let target_len = uri.path_and_query().map_or(0, |p| p.as_str().len());
    let query = uri.query().unwrap_or("");
    if target_len > MAX_URI_BYTES || query.len() > MAX_QUERY_BYTES {
        return text(StatusCode::URI_TOO_LONG, "request target too long");
    }
    let Some(pairs) = query_pairs(query) else {
        return text(StatusCode::BAD_REQUEST, "malformed query string");
    };
    if let Some(token) = &app.token
        && !authorised(token, request.headers(), &pairs)
    {
        let mut response = text(StatusCode::UNAUTHORIZED, "this dashboard needs its token: add ?token=... to the URL");
        response.headers_mut().insert(header::WWW_AUTHENTICATE, header::HeaderValue::from_static("Bearer"));
        return response;
    }
    if request.method() != Method::GET && request.method() != Method::HEAD {
        let mut response = text(StatusCode::METHOD_NOT_ALLOWED, "read-only: GET only");
        response.headers_mut().insert(header::ALLOW, header::HeaderValue::from_static("GET, HEAD"));
        return response;
    }
    let summary = pairs.iter().any(|(k, v)| k == "summary" && (v == "1" || v == "true"));
    let axis = pairs.iter().rfind(|(k, _)| k == "axis").map(|(_, v)| v.as_str());
    let path = uri.path().to_owned();
    match path.as_str() {
        "/" | "/index.html" => reply(StatusCode::OK, "text/html; charset=utf-8", PAGE),
        "/api/status" => blocking(app, |app| json(&app.provider.status())).await,
        "/api/epochs" => {
            blocking(app, move |app| {
                let epochs = app.provider.epochs();
                if summary {
                    json(&epochs.iter().map(|e| EpochSummary::from(e.as_ref())).collect::<Vec<_>>())
                } else {
                    json(&epochs)
                }
            })
            .await
        }
        "/api/chart.svg" => blocking(app, chart).await,
        "/api/validation" => blocking(app, |app| json(&app.provider.validation())).await,
        "/api/validation.svg" => match Axis::parse(axis) {
            Some(axis) => blocking(app, move |app| validation_chart(app, axis)).await,
            None => text(StatusCode::BAD_REQUEST, "axis must be wall or cpu, e.g. /api/validation.svg?axis=cpu"),
        },
        _ => text(
            StatusCode::NOT_FOUND,
            "no such page: try / or /api/status, /api/epochs, /api/chart.svg, /api/validation, /api/validation.svg",
        ),
    }
}

/// Runs `f` on a blocking thread (providers lock and read files).
async fn blocking(app: Arc<App>, f: impl FnOnce(&App) -> Response + Send + 'static) -> Response {
    match tokio::task::spawn_blocking(move || f(&app)).await {
        Ok(response) => response,
        Err(_) => text(StatusCode::INTERNAL_SERVER_ERROR, "the request failed"),
    }
}

fn json<T: serde::Serialize>(value: &T) -> Response {
    match serde_json::to_vec(value) {
        Ok(bytes) => reply(StatusCode::OK, "application/json", bytes),
        Err(e) => text(StatusCode::INTERNAL_SERVER_ERROR, &format!("cannot encode: {e}")),
    }
}

fn chart(app: &App) -> Response {
    let epochs = app.provider.epochs();
    let key: ChartKey = epochs.last().map_or((0, 0, 0, 0), |e| (epochs.len(), e.epoch, e.generation, e.mean.to_bits()));
    if let Ok(cache) = app.chart.lock()
        && let Some((k, svg)) = cache.as_ref()
        && *k == key
    {
        return reply(StatusCode::OK, "image/svg+xml", svg.as_str().to_owned());
    }
    let status = app.provider.status();
    let config = RunConfig::parse(&status.run.config_toml, std::path::Path::new("config.toml")).unwrap_or_default();
    let run = Run {
        dir: std::path::PathBuf::new(),
        name: status.run.name,
        config,
        epochs: epochs.iter().map(|e| e.as_ref().clone()).collect(),
        generations: Vec::new(),
        notes: Vec::new(),
    };
    let chart = loa_analysis::figures::overview_chart(&run);
    match loa_analysis::charts::svg_string(&chart, CHART_SIZE.0, CHART_SIZE.1) {
        Ok(svg) => {
            let svg = Arc::new(svg);
            if let Ok(mut cache) = app.chart.lock() {
                *cache = Some((key, Arc::clone(&svg)));
            }
            reply(StatusCode::OK, "image/svg+xml", svg.as_str().to_owned())
        }
        Err(e) => text(StatusCode::INTERNAL_SERVER_ERROR, &format!("cannot draw the chart: {e}")),
    }
}

fn validation_chart(app: &App, axis: Axis) -> Response {
    let chart = crate::validation::chart(&app.provider.validation(), axis);
    match loa_analysis::charts::svg_string(&chart, VALIDATION_CHART_SIZE.0, VALIDATION_CHART_SIZE.1) {
        Ok(svg) => reply(StatusCode::OK, "image/svg+xml", svg),
        Err(e) => text(StatusCode::INTERNAL_SERVER_ERROR, &format!("cannot draw the chart: {e}")),
    }
}

/// A running dashboard server.
pub struct Server {
    addr: SocketAddr,
    stop: tokio::sync::watch::Sender<bool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// Serves the dashboard over `provider` on `listen` (port 0: any free port, see
/// [`Server::addr`]) from a background thread. Fails at once if the address cannot be bound
/// or the token is blank.
pub fn serve(provider: Arc<dyn Provider>, listen: SocketAddr, token: Option<String>) -> std::io::Result<Server> {
    // Whatever the caller checked: an empty token would let every request in.
    if let Some(problem) = token.as_deref().and_then(|t| crate::check_token(t, false).err()) {
        return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, format!("the dashboard's token {problem}")));
    }
    let listener = std::net::TcpListener::bind(listen)?;
    listener.set_nonblocking(true)?;
    let addr = listener.local_addr()?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .max_blocking_threads(2)
        .thread_name("loa-dashboard")
        .enable_all()
        .build()?;
    let listener = {
        let _guard = runtime.enter();
        tokio::net::TcpListener::from_std(listener)?
    };
    let app = router(provider, token);
    let (stop, mut stopped) = tokio::sync::watch::channel(false);
    let thread = std::thread::Builder::new().name("loa-dashboard-main".into()).spawn(move || {
        runtime.block_on(async move {
            let mut signal = stopped.clone();
            let server = axum::serve(listener, app).with_graceful_shutdown(async move {
                let _ = signal.wait_for(|s| *s).await;
            });
            let deadline = async move {
                let _ = stopped.wait_for(|s| *s).await;
                tokio::time::sleep(SHUTDOWN_GRACE).await;
            };
            tokio::select! {
                result = server => {
                    if let Err(e) = result {
                        eprintln!("dashboard: the HTTP server stopped: {e}");
                    }
                }
                () = deadline => {}
            }
        });
        // Dropping the runtime cancels what is left (e.g. a client that never reads).
        runtime.shutdown_background();
    })?;
    Ok(Server { addr, stop, thread: Some(thread) })
}

impl Server {
    /// The address the server listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Stops accepting requests, lets those in progress finish (2 s at most) and waits for the
    /// server thread.
    pub fn shutdown(mut self) {
        self.stop_and_join();
    }

    fn stop_and_join(&mut self) {
        let _ = self.stop.send(true);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop_and_join();
    }
}

/// Where a test or the master learns the bound address (port 0).
pub type Bound = Arc<OnceLock<SocketAddr>>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_decode_or_are_refused() {
        assert_eq!(
            query_pairs("token=a%20b&summary=1&x"),
            Some(vec![("token".into(), "a b".into()), ("summary".into(), "1".into()), ("x".into(), String::new())])
        );
        assert_eq!(query_pairs("token=%zz"), None);
        assert_eq!(query_pairs("token=%4"), None);
        // A sign is no hex digit, though `u8::from_str_radix` takes one.
        assert_eq!(query_pairs("token=%+1"), None);
        assert_eq!(query_pairs("token=%-1"), None);
        assert_eq!(query_pairs("t=%ff%fe"), None);
        assert_eq!(query_pairs(""), Some(vec![]));
    }

    #[test]
    fn tokens_compare_whole() {
        assert!(same("abc", "abc"));
        assert!(!same("abc", "abd"));
        assert!(!same("abc", "abcd"));
    }
}
