//! Streamable HTTP at `/mcp`: rmcp's service behind axum, with the guards a local server
//! needs. Requests pass, in order: the bearer token (401, before anything is read), the body
//! limit (413, with a JSON-RPC error that names the limit) and the screen that stdio uses too
//! (400 with a JSON-RPC error for a body that is not one readable message), then the `Host`
//! and `Origin` checks against DNS rebinding (403). A request refused at any step reaches no
//! tool.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::rejection::{BytesRejection, FailedToBufferBody};
use axum::extract::{DefaultBodyLimit, FromRequest, Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::serve::ListenerExt;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

use crate::server::OutlServer;
use crate::stdio::{Verdict, screen_message, too_large_response};

/// The largest request body accepted; a bigger one gets 413.
pub const MAX_BODY_BYTES: usize = 4 * 1024 * 1024;

/// Where and how `outl serve` listens.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    pub addr: SocketAddr,
    /// Required as `Authorization: Bearer <token>` on every request when set.
    pub token: Option<String>,
    /// `Host` values accepted besides the loopback names (`localhost`, `127.0.0.1`, `::1`).
    pub extra_hosts: Vec<String>,
    /// Browser origins accepted besides loopback ones (`http://localhost:*` and the like).
    pub extra_origins: Vec<String>,
}

const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "::1"];
const LOOPBACK_ORIGINS: [&str; 6] = [
    "http://localhost:*",
    "http://127.0.0.1:*",
    "http://[::1]:*",
    "https://localhost:*",
    "https://127.0.0.1:*",
    "https://[::1]:*",
];

/// Serves until Ctrl-C (or SIGTERM), then lets requests in flight finish.
pub async fn serve(server: OutlServer, options: HttpOptions) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind(options.addr).await?;
    let local = listener.local_addr()?;
    let shutdown = CancellationToken::new();
    let router = router(server, &options, local, shutdown.child_token());
    let stop = shutdown_signal()?;
    // Scripts and tests read the actual port (`--port 0`) from this line.
    eprintln!("outl: serving MCP at http://{local}/mcp");
    if !local.ip().is_loopback() && options.token.is_none() {
        eprintln!(
            "outl: warning: {} is reachable from other machines and --token is not set: \
             anyone who can connect can read and change this workspace",
            local.ip()
        );
    }
    // A reply goes out in a few small writes (SSE head, event, end); with Nagle's algorithm on,
    // each write after the first waits for the client's delayed ACK, about 40 ms per call.
    let listener = listener.tap_io(|tcp| {
        if let Err(e) = tcp.set_nodelay(true) {
            tracing::debug!("cannot set TCP_NODELAY: {e}");
        }
    });
    axum::serve(listener, router)
        .with_graceful_shutdown(async move {
            stop.await;
            tracing::info!("shutting down");
            // Ends open SSE streams, which would otherwise hold the graceful shutdown open.
            shutdown.cancel();
        })
        .await
}

fn router(
    server: OutlServer,
    options: &HttpOptions,
    local: SocketAddr,
    ct: CancellationToken,
) -> Router {
    let mut hosts: Vec<String> = LOOPBACK_HOSTS.iter().map(|h| (*h).to_owned()).collect();
    if !local.ip().is_unspecified() && !local.ip().is_loopback() {
        hosts.push(local.ip().to_string());
    }
    hosts.extend(options.extra_hosts.iter().cloned());
    let origins = LOOPBACK_ORIGINS
        .iter()
        .map(|o| (*o).to_owned())
        .chain(options.extra_origins.iter().cloned());
    let config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(hosts)
        .with_allowed_origins(origins)
        .enforce_origin_validation()
        .with_max_request_body_bytes(MAX_BODY_BYTES)
        .with_cancellation_token(ct);
    let mcp = StreamableHttpService::new(
        move || Ok(server.for_new_session()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let router = Router::new()
        .route_service("/mcp", mcp)
        .layer(middleware::from_fn(session_end_no_content))
        .layer(middleware::from_fn(screen_body))
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES));
    match &options.token {
        Some(token) => {
            let expected = Arc::new(blake3::hash(token.as_bytes()));
            router.layer(middleware::from_fn_with_state(expected, require_bearer))
        }
        None => router,
    }
}

/// rmcp answers the DELETE that ends a session with an empty 202; the MCP Python SDK takes
/// anything but 200 or 204 for a failed termination and logs a warning on every close.
async fn session_end_no_content(request: Request, next: Next) -> Response {
    let is_delete = request.method() == Method::DELETE;
    let mut response = next.run(request).await;
    if is_delete && response.status() == StatusCode::ACCEPTED {
        *response.status_mut() = StatusCode::NO_CONTENT;
    }
    response
}

/// Reads a POSTed JSON body and answers, as stdio does, what rmcp would refuse with a bare
/// 415: non-JSON gets -32700, JSON that is not one message -32600 (batches included), a known
/// method with unfitting params -32602, each as a 400 whose body is the JSON-RPC error.
async fn screen_body(request: Request, next: Next) -> Response {
    // A body announced as too large is refused before it is waited for.
    let announced = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse::<u64>().ok());
    if announced.is_some_and(|len| len > MAX_BODY_BYTES as u64) {
        return payload_too_large();
    }
    let is_json = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| {
            let essence = value.split(';').next().unwrap_or_default().trim();
            essence.eq_ignore_ascii_case("application/json")
        });
    if request.method() != Method::POST || !is_json {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    let limited = Request::from_parts(parts.clone(), body);
    let bytes = match Bytes::from_request(limited, &()).await {
        Ok(bytes) => bytes,
        Err(BytesRejection::FailedToBufferBody(FailedToBufferBody::LengthLimitError(_))) => {
            return payload_too_large();
        }
        Err(rejection) => return rejection.into_response(),
    };
    match screen_message(&bytes) {
        Verdict::Forward { repaired, .. } => {
            let body = repaired.map_or_else(|| Body::from(bytes), Body::from);
            next.run(Request::from_parts(parts, body)).await
        }
        Verdict::Answer(error) => (
            StatusCode::BAD_REQUEST,
            [(header::CONTENT_TYPE, "application/json")],
            error.to_string(),
        )
            .into_response(),
        Verdict::Ignore => (
            StatusCode::BAD_REQUEST,
            "Bad Request: an empty body, or a notification or response outl cannot read",
        )
            .into_response(),
    }
}

fn payload_too_large() -> Response {
    (
        StatusCode::PAYLOAD_TOO_LARGE,
        [(header::CONTENT_TYPE, "application/json")],
        too_large_response("the request body", MAX_BODY_BYTES).to_string(),
    )
        .into_response()
}

/// Compares digests, whose equality check is constant-time, so the comparison does not
/// leak how much of a guessed token was right.
async fn require_bearer(
    State(expected): State<Arc<blake3::Hash>>,
    request: Request,
    next: Next,
) -> Response {
    let presented = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.split_once(' '))
        // The scheme is case-insensitive (RFC 9110 §11.1); the token is compared exactly.
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
        .map(|(_, token)| token);
    match presented {
        Some(token) if blake3::hash(token.trim().as_bytes()) == *expected => {
            next.run(request).await
        }
        _ => {
            let mut response = (
                StatusCode::UNAUTHORIZED,
                "Unauthorized: send Authorization: Bearer <token>",
            )
                .into_response();
            response.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Bearer realm=\"outl\""),
            );
            response
        }
    }
}

/// Resolves on Ctrl-C or SIGTERM. The handlers are installed here, before the server starts,
/// not when the returned future is first polled: a signal that came in between would be lost.
fn shutdown_signal() -> std::io::Result<impl Future<Output = ()>> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut interrupt = signal(SignalKind::interrupt())?;
        let mut terminate = signal(SignalKind::terminate())?;
        Ok(async move {
            tokio::select! {
                _ = interrupt.recv() => {}
                _ = terminate.recv() => {}
            }
        })
    }
    #[cfg(not(unix))]
    {
        let mut ctrl_c = tokio::signal::windows::ctrl_c()?;
        Ok(async move {
            ctrl_c.recv().await;
        })
    }
}
