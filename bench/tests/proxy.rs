//! `loa-bench proxy` end to end: it says where it listens, takes control lines, forwards bytes,
//! and refuses addresses of other machines.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Command, Stdio};

#[test]
fn the_proxy_forwards_and_takes_commands_on_its_control_port() {
    let upstream = TcpListener::bind("127.0.0.1:0").unwrap();
    let upstream_addr = upstream.local_addr().unwrap().to_string();
    let mut proxy = Command::new(env!("CARGO_BIN_EXE_loa-bench"))
        .args(["proxy", "--listen", "127.0.0.1:0", "--upstream", &upstream_addr, "--control", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(proxy.stdout.take().unwrap()).read_line(&mut first).unwrap();
    // "proxy: LISTEN -> UPSTREAM, control on CONTROL"
    let words: Vec<&str> = first.split_whitespace().collect();
    assert_eq!(
        (words[0], words[2], &words[3][..words[3].len() - 1]),
        ("proxy:", "->", upstream_addr.as_str()),
        "{first}"
    );
    let (listen, control) = (words[1], words[6]);
    let mut client = TcpStream::connect(listen).unwrap();
    client.write_all(b"hello").unwrap();
    let (mut server, _) = upstream.accept().unwrap();
    let mut got = [0u8; 5];
    server.read_exact(&mut got).unwrap();
    assert_eq!(&got, b"hello");
    let mut control = TcpStream::connect(control).unwrap();
    control.write_all(b"resets 0.5\nlatency x\n").unwrap();
    let mut replies = BufReader::new(control);
    let (mut ok, mut error) = (String::new(), String::new());
    replies.read_line(&mut ok).unwrap();
    replies.read_line(&mut error).unwrap();
    proxy.kill().unwrap();
    proxy.wait().unwrap();
    assert!(ok.starts_with("ok: ") && ok.contains("resets 0.5/s") && ok.contains("1 connections"), "{ok}");
    assert!(error.starts_with("error: \"latency x\": the latency (ms) must be a number"), "{error}");
}

#[test]
fn the_proxy_refuses_an_address_of_another_machine() {
    let o = Command::new(env!("CARGO_BIN_EXE_loa-bench"))
        .args(["proxy", "--listen", "127.0.0.1:0", "--upstream", "192.0.2.7:50051", "--control", "127.0.0.1:0"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(stderr.contains("--upstream 192.0.2.7:50051: not an address of this machine"), "{stderr}");
}
