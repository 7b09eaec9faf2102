//! The `loa-dashboard` binary's refusals, before it serves anything.

use std::process::Command;

#[test]
fn a_blank_or_short_token_is_refused() {
    for (listen, token, says) in
        [("0.0.0.0:0", "", "is empty"), ("127.0.0.1:0", " ", "is empty"), ("0.0.0.0:0", "short", "at least 16")]
    {
        let o = Command::new(env!("CARGO_BIN_EXE_loa-dashboard"))
            .args(["/nonexistent-run", "--listen", listen, "--token", token])
            .env_remove("LOA_DASHBOARD_TOKEN")
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success() && err.contains("--token ") && err.contains(says), "{token:?}: {err}");
    }
}
