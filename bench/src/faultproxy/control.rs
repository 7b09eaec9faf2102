//! The control interface: a line protocol on a local TCP port. Each line is a [`Command`]; each
//! gets one line back, `ok: ` and the faults in force and the counts, or `error: ` and why.
//! From a shell:
//!
//! ```text
//! exec 3<>/dev/tcp/127.0.0.1/PORT; echo "latency 200 50" >&3; read -r reply <&3
//! ```

use super::{Command, Served};
use std::time::Instant;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

/// The longest control line read; longer ones are refused, not buffered.
const MAX_LINE: usize = 256;

/// Serves control connections until the proxy stops.
pub(crate) async fn serve(listener: TcpListener, served: Served) {
    loop {
        match listener.accept().await {
            Ok((stream, _)) => drop(tokio::spawn(session(stream, served.clone()))),
            Err(_) => tokio::time::sleep(std::time::Duration::from_millis(50)).await,
        }
    }
}

/// Answers one control connection's lines until it closes (or sends a line too long or not
/// text).
async fn session(stream: TcpStream, served: Served) {
    let (read, mut write) = stream.into_split();
    let mut lines = BufReader::new(read);
    let mut line = String::new();
    loop {
        line.clear();
        let (reply, go_on) = match (&mut lines).take(MAX_LINE as u64 + 1).read_line(&mut line).await {
            Ok(0) => return,
            Ok(_) if line.len() > MAX_LINE => (format!("error: a line longer than {MAX_LINE} bytes"), false),
            Ok(_) => (answer(&line, &served), true),
            Err(e) => (format!("error: {e}; send commands as lines of text"), false),
        };
        if write.write_all(format!("{reply}\n").as_bytes()).await.is_err() || !go_on {
            return;
        }
    }
}

/// The reply to one control line, after applying it.
pub(crate) fn answer(line: &str, served: &Served) -> String {
    match line.parse::<Command>() {
        Ok(command) => {
            let now = Instant::now();
            served.faults.send_modify(|f| command.apply(f, now));
            format!("ok: {}; {}", served.faults.borrow().describe(now), served.counters.snapshot())
        }
        Err(e) => format!("error: {e}"),
    }
}
