#!/usr/bin/env bash
# Randomised input testing at scale: every decoder's property of the crates' tests/fuzz.rs run
# with CASES cases each (default a million; CI runs 10 000), one process per decoder, niced,
# under /usr/bin/time -v for its peak resident set. Prints a table: decoder, cases, failures,
# the slowest case, the peak bytes allocated while decoding one case, the process's peak RSS
# and the wall time. A decoder that fails shows its failure count and the run goes on; the
# minimal failing input is in LOG_DIR/<crate>-<test>.log.
#
#   experiments/fuzz/million.sh [CASES [CRATE...]]     # crates: engine proto master records cli analysis
#
# Environment: LOG_DIR (default target/fuzz-logs).
set -euo pipefail
cd "$(dirname "$0")/../.."

cases=${1:-1000000}
shift || true
crates=("$@")
[ ${#crates[@]} -gt 0 ] || crates=(master proto engine records cli analysis)
log_dir=${LOG_DIR:-target/fuzz-logs}
mkdir -p "$log_dir"
[ -x /usr/bin/time ] || { echo "million.sh: /usr/bin/time is missing (Debian: apt-get install time)" >&2; exit 1; }

# The fuzz test binary of a crate, built once (release, as every test here).
binary() {
    cargo test --release -p "loa-$1" --test fuzz --no-run --message-format=json 2>/dev/null |
        python3 -c 'import json,sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] == "fuzz":
        print(m["executable"])'
}

printf '%-42s %10s %8s %13s %15s %13s %9s\n' decoder cases failures "max case µs" "peak alloc KiB" "peak RSS MiB" "wall s"
status=0
for crate in "${crates[@]}"; do
    bin=$(binary "$crate")
    [ -n "$bin" ] || { echo "million.sh: no fuzz tests built for loa-$crate" >&2; status=1; continue; }
    for test in $("$bin" --list 2>/dev/null | sed -n 's/: test$//p'); do
        log="$log_dir/$crate-$test.log"
        start=$(date +%s)
        if LOA_FUZZ_CASES=$cases nice -n 19 /usr/bin/time -v "$bin" --exact "$test" --nocapture --test-threads 1 >"$log" 2>&1; then
            failed=0
        else
            failed=1
            status=1
        fi
        wall=$(($(date +%s) - start))
        rss_kib=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$log")
        line=$(grep -o 'fuzz: decoder=.*' "$log" || true)
        if [ -z "$line" ]; then
            # A fixed case (a regression test), not a property: its pass or failure only.
            printf '%-42s %10s %8s %13s %15s %13s %9s\n' "$crate: $test" 1 "$failed" - - "$((rss_kib / 1024))" "$wall"
            continue
        fi
        field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$line"; }
        decoder=$(sed -n 's/^fuzz: decoder=\(.*\) cases=.*/\1/p' <<<"$line")
        printf '%-42s %10s %8s %13s %15s %13s %9s\n' "$decoder" "$(field cases)" "$(field failures)" \
            "$(field max_case_us)" "$(($(field peak_alloc_bytes) / 1024))" "$((rss_kib / 1024))" "$wall"
    done
done
exit $status
