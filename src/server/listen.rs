//! The connections: axum's router served over hyper as `axum::serve` serves it, with the limits
//! it leaves unset. A request's headers must arrive within 10 s of the connection opening (or of
//! the previous answer), so slow, silent or idle clients cannot hold connections open without
//! end; a body's arrival is bounded by the router's size limit. Answers that
//! stream (run progress, chat turns, file changes) and long waits are not cut: once the headers
//! are in, the handler decides how long it takes.

use axum::extract::connect_info::IntoMakeServiceWithConnectInfo;
use axum::Router;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto::Builder;
use hyper_util::service::TowerToHyperService;
use std::future::Future;
use std::net::SocketAddr;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tower::Service;

/// How long a request's headers may take to arrive.
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// Serves `app` on `listener` until `shutdown`, then lets the open connections finish.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let mut make_service: IntoMakeServiceWithConnectInfo<Router, SocketAddr> =
        app.into_make_service_with_connect_info::<SocketAddr>();
    // Dropping `stop_rx` tells every connection to finish (they wait for the sender to close);
    // each holds a `done_rx` until it has, which `done` waits for.
    let (stop, stop_rx) = watch::channel(());
    let (done, done_rx) = watch::channel(());
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    // Out of file descriptors and the like: wait, as axum::serve does.
                    tracing::warn!("accepting a connection failed: {error}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        // Without TCP_NODELAY, streamed answers (small SSE writes) wait ~40 ms for delayed ACKs.
        let _ = stream.set_nodelay(true);
        let Ok(service) = make_service.call(peer).await;
        let (stop, done_rx) = (stop.clone(), done_rx.clone());
        tokio::spawn(async move {
            // hyper's timer starts at a request's first byte: a connection that sends none is
            // closed here, after the same wait.
            let mut first = [0u8; 1];
            if let Ok(Ok(1..)) = tokio::time::timeout(HEADER_READ_TIMEOUT, stream.peek(&mut first)).await {
                serve_connection(TokioIo::new(stream), TowerToHyperService::new(service), stop).await;
            }
            drop(done_rx);
        });
    }
    drop(stop_rx);
    drop(done_rx);
    done.closed().await;
    Ok(())
}

/// One connection, HTTP/1 or HTTP/2, until it ends or `stop`'s receivers are gone.
async fn serve_connection<S>(io: TokioIo<tokio::net::TcpStream>, service: S, stop: watch::Sender<()>)
where
    S: hyper::service::Service<
            axum::http::Request<hyper::body::Incoming>,
            Response = axum::response::Response,
            Error = std::convert::Infallible,
        > + Send
        + 'static,
    S::Future: Send + 'static,
{
    let mut builder = Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(HEADER_READ_TIMEOUT);
    builder.http2().timer(TokioTimer::new());
    let connection = builder.serve_connection_with_upgrades(io, service);
    tokio::pin!(connection);
    tokio::select! {
        _ = connection.as_mut() => return,
        () = stop.closed() => connection.as_mut().graceful_shutdown(),
    }
    let _ = connection.await;
}
