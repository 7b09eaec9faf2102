//! The proxy against an echo server on loopback, each fault measured from the client's side.

use super::*;
use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream as StdStream;
use std::time::Duration;

/// An echo server on an ephemeral loopback port, on a thread of its own.
fn echo_server() -> SocketAddr {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || {
                let mut stream = stream;
                let mut buffer = [0u8; 8192];
                while let Ok(n) = stream.read(&mut buffer) {
                    if n == 0 || stream.write_all(&buffer[..n]).is_err() {
                        return;
                    }
                }
            });
        }
    });
    addr
}

fn proxy(control: bool) -> FaultProxy {
    let any = "127.0.0.1:0".parse().unwrap();
    FaultProxy::start(&ProxyOptions { listen: any, upstream: echo_server(), control: control.then_some(any), seed: 1 })
        .unwrap()
}

fn connect(proxy: &FaultProxy) -> StdStream {
    let stream = StdStream::connect(proxy.addr()).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    stream
}

/// Sends `bytes` bytes and reads them back; how long the round trip took.
fn round_trip(stream: &mut StdStream, bytes: usize) -> Duration {
    let began = Instant::now();
    let sent = vec![7u8; bytes];
    stream.write_all(&sent).unwrap();
    let mut back = vec![0u8; bytes];
    stream.read_exact(&mut back).unwrap();
    assert_eq!(back, sent);
    began.elapsed()
}

#[test]
fn latency_with_jitter_delays_each_way() {
    let proxy = proxy(false);
    let mut stream = connect(&proxy);
    assert!(round_trip(&mut stream, 1) < Duration::from_millis(100), "slow before any fault");
    proxy.apply(&Command::Latency { latency: Duration::from_millis(100), jitter: Duration::from_millis(50) });
    let trips: Vec<Duration> = (0..5).map(|_| round_trip(&mut stream, 1)).collect();
    for trip in &trips {
        // 100 ms each way, plus at most 50 ms of jitter each way (and some scheduling).
        assert!(*trip >= Duration::from_millis(200) && *trip < Duration::from_millis(600), "{trips:?}");
    }
    assert!(trips.iter().any(|t| *t != trips[0]), "no jitter in {trips:?}");
}

#[test]
fn a_stall_holds_bytes_on_an_open_connection_until_switched_off() {
    let proxy = proxy(false);
    let mut stream = connect(&proxy);
    round_trip(&mut stream, 1);
    proxy.apply(&Command::Stall(true));
    stream.write_all(b"x").unwrap();
    stream.set_read_timeout(Some(Duration::from_millis(400))).unwrap();
    let mut byte = [0u8];
    let early = stream.read(&mut byte).unwrap_err();
    assert!(matches!(early.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut), "{early}");
    proxy.apply(&Command::Stall(false));
    stream.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    stream.read_exact(&mut byte).unwrap();
    assert_eq!(&byte, b"x");
    assert!(proxy.counts().held >= 1, "{}", proxy.counts());
}

#[test]
fn a_partition_refuses_new_connections_and_heals_by_itself() {
    let proxy = proxy(false);
    let mut open = connect(&proxy);
    round_trip(&mut open, 1);
    proxy.apply(&Command::Partition(Duration::from_millis(600)));
    let mut refused = connect(&proxy);
    let mut byte = [0u8];
    // The proxy accepted, then reset: the read ends (an error or end of stream), no echo comes.
    let _ = refused.write_all(b"x");
    assert!(!matches!(refused.read(&mut byte), Ok(1)), "a connection passed during the partition");
    let began = Instant::now();
    let during = round_trip(&mut open, 1);
    assert!(during >= Duration::from_millis(400), "bytes passed {during:?} into a partition of 600 ms");
    assert!(began.elapsed() < Duration::from_secs(3));
    let mut after = connect(&proxy);
    round_trip(&mut after, 1);
    let counts = proxy.counts();
    assert_eq!((counts.refused, counts.connections), (1, 2), "{counts}");
}

#[test]
fn random_resets_break_connections() {
    let proxy = proxy(false);
    let mut stream = connect(&proxy);
    round_trip(&mut stream, 1);
    proxy.apply(&Command::Resets(20.0));
    let began = Instant::now();
    let broken = loop {
        assert!(began.elapsed() < Duration::from_secs(5), "no reset in 5 s at 20 a second");
        let mut byte = [0u8];
        match stream.write_all(b"x").and_then(|()| stream.read(&mut byte)) {
            Ok(1) => std::thread::sleep(Duration::from_millis(10)),
            Ok(_) => break ErrorKind::UnexpectedEof,
            Err(e) => break e.kind(),
        }
    };
    assert!(matches!(broken, ErrorKind::ConnectionReset | ErrorKind::UnexpectedEof | ErrorKind::BrokenPipe));
    assert_eq!(proxy.counts().resets, 1);
}

#[test]
fn a_bandwidth_cap_slows_bulk_bytes() {
    let proxy = proxy(false);
    let mut stream = connect(&proxy);
    assert!(round_trip(&mut stream, 64 * 1024) < Duration::from_millis(400), "slow before the cap");
    proxy.apply(&Command::Bandwidth(Some(100_000)));
    // 50 000 bytes at 100 000 B/s each way: half a second at least.
    let capped = round_trip(&mut stream, 50_000);
    assert!(capped >= Duration::from_millis(480) && capped < Duration::from_secs(3), "{capped:?}");
}

#[test]
fn the_control_port_takes_commands_and_explains_bad_ones() {
    let proxy = proxy(true);
    let control = StdStream::connect(proxy.control_addr().unwrap()).unwrap();
    let mut reader = std::io::BufReader::new(control.try_clone().unwrap());
    let mut ask = |line: &str| {
        (&control).write_all(format!("{line}\n").as_bytes()).unwrap();
        let mut reply = String::new();
        std::io::BufRead::read_line(&mut reader, &mut reply).unwrap();
        reply
    };
    let reply = ask("latency 30 10");
    assert!(reply.starts_with("ok: latency 30 ms jitter 10 ms"), "{reply}");
    assert_eq!(proxy.faults().latency, Duration::from_millis(30));
    let reply = ask("stall sideways");
    assert!(reply.starts_with("error: ") && reply.contains("stall on|off"), "{reply}");
    let reply = ask("clear");
    assert!(reply.contains("latency 0 ms"), "{reply}");
    assert_eq!(proxy.faults(), Faults::default());
}

#[test]
fn addresses_of_other_machines_are_refused() {
    let local = "127.0.0.1:0".parse().unwrap();
    for (listen, upstream, what) in
        [(local, "192.0.2.1:80", "--upstream"), ("0.0.0.0:0".parse().unwrap(), "127.0.0.1:1", "--listen")]
    {
        let options = ProxyOptions { listen, upstream: upstream.parse().unwrap(), control: None, seed: 0 };
        let e = FaultProxy::start(&options).err().expect("an address of another machine was taken").to_string();
        assert!(e.starts_with(what) && e.contains("not an address of this machine"), "{e}");
    }
}

#[test]
fn a_server_that_closes_or_resets_during_a_stall_is_heard_of_once_it_heals() {
    for reset in [false, true] {
        // A server that closes (or resets) each connection 200 ms after accepting it.
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let upstream = listener.local_addr().unwrap();
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
            let _inside = runtime.enter();
            for stream in listener.incoming().flatten() {
                std::thread::sleep(Duration::from_millis(200));
                stream.set_nonblocking(true).unwrap();
                let stream = TcpStream::from_std(stream).unwrap();
                if reset {
                    stream.set_zero_linger().unwrap();
                }
            }
        });
        let any = "127.0.0.1:0".parse().unwrap();
        let proxy = FaultProxy::start(&ProxyOptions { listen: any, upstream, control: None, seed: 1 }).unwrap();
        proxy.apply(&Command::Stall(true));
        let mut stream = connect(&proxy);
        stream.set_read_timeout(Some(Duration::from_millis(700))).unwrap();
        let mut byte = [0u8];
        let held = stream.read(&mut byte).unwrap_err();
        assert!(matches!(held.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut), "reset {reset}: {held}");
        proxy.apply(&Command::Stall(false));
        stream.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        match stream.read(&mut byte) {
            Ok(0) => assert!(!reset, "a reset came through as a close"),
            Err(e) if e.kind() == ErrorKind::ConnectionReset => assert!(reset, "a close came through as a reset"),
            other => panic!("reset {reset}: {other:?}"),
        }
    }
}
