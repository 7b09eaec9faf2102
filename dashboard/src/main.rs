//! `loa-dashboard RUN [--listen ADDR]`: the run dashboard, read-only, from a run directory
//! (finished, or being written by a master elsewhere). The page is the one `master run
//! --dashboard` serves live.

use clap::Parser;
use loa_dashboard::{RunDirProvider, serve};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

/// Serves a run directory's dashboard until interrupted.
#[derive(Parser)]
#[command(name = "loa-dashboard", version, about = "loa-evolve dashboard of a run directory (read-only)")]
struct Cli {
    /// The run directory.
    run: PathBuf,
    /// Address to serve on.
    #[arg(long, default_value = "127.0.0.1:8080")]
    listen: SocketAddr,
    /// Token the page asks for (default: the LOA_DASHBOARD_TOKEN environment variable). Required
    /// on an address other than loopback.
    #[arg(long, env = "LOA_DASHBOARD_TOKEN", hide_env_values = true)]
    token: Option<String>,
    /// Serve a non-loopback address without a token: anyone who can reach it sees the run.
    #[arg(long, conflicts_with = "token")]
    insecure: bool,
}

fn run(cli: Cli) -> Result<(), String> {
    if let Some(token) = &cli.token {
        loa_dashboard::check_token(token, !cli.listen.ip().is_loopback()).map_err(|e| format!("--token {e}"))?;
    }
    if cli.token.is_none() && !cli.listen.ip().is_loopback() && !cli.insecure {
        return Err(format!(
            "--listen {} is reachable from other hosts: set --token (or LOA_DASHBOARD_TOKEN), or pass --insecure",
            cli.listen
        ));
    }
    let provider = RunDirProvider::new(&cli.run)?;
    let with_token = cli.token.is_some();
    let server =
        serve(Arc::new(provider), cli.listen, cli.token).map_err(|e| format!("cannot serve on {}: {e}", cli.listen))?;
    let hint = if with_token { "?token=..." } else { "" };
    eprintln!("serving {} on http://{}/{hint} (Ctrl-C to stop)", cli.run.display(), server.addr());
    let (tx, rx) = std::sync::mpsc::channel();
    ctrlc_free_wait(tx);
    let _ = rx.recv();
    server.shutdown();
    Ok(())
}

/// Waits for SIGINT/SIGTERM on a small runtime of its own and then signals `tx`.
fn ctrlc_free_wait(tx: std::sync::mpsc::Sender<()>) {
    std::thread::spawn(move || {
        let Ok(runtime) = tokio::runtime::Builder::new_current_thread().enable_all().build() else {
            return;
        };
        runtime.block_on(async {
            let _ = tokio::signal::ctrl_c().await;
        });
        let _ = tx.send(());
    });
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("loa-dashboard: error: {message}");
            ExitCode::FAILURE
        }
    }
}
