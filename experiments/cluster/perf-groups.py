#!/usr/bin/env python3
"""Where the master's gRPC threads spend a dispatch (README, "A master for thousands of workers").

Reads `perf script` output of a `perf record --call-graph dwarf` of `master bench-dispatch` and
prints the share of the `loa-rpc` threads' samples by the first of these groups found anywhere in
each sample's stack (so a sample in h2 called from the scheduler counts as the scheduler's):

    perf record -e cpu-clock -F 2500 --call-graph dwarf,32768 -o perf.data -- \\
        target/release/master bench-dispatch --tasks 40000 --clients 32 --samples 1 \\
        --reuse repeat --batch 8 --light-stubs
    perf script -i perf.data --comm loa-rpc | experiments/cluster/perf-groups.py
"""
import collections
import sys

GROUPS = [
    ("scheduler (lease, complete)", "loa_master::scheduler::"),
    ("encoding tasks (to_wire)", "to_wire"),
    ("outcomes: protobuf to engine types", "_from_proto"),
    ("prost decoding", "Message>::decode"),
    ("prost decoding", "merge_loop"),
    ("prost encoding", "encode_raw"),
    ("prost encoding", "ReservingCodec"),
    ("prost encoding", "encoded_len"),
    ("dropping protobuf messages", "drop_in_place<loa_proto"),
    ("the rest of answering a batch", "answer_batch"),
    ("h2 framing", "h2::"),
    ("hyper", "hyper::"),
    ("tonic", "tonic::"),
    ("kernel write", "writev"),
    ("kernel read", "recv"),
    ("epoll", "epoll_wait"),
    ("futex", "futex"),
    ("tokio", "tokio::"),
]

counts = collections.Counter()
samples = 0
for stack in sys.stdin.read().split("\n\n"):
    if not stack.strip():
        continue
    samples += 1
    counts[next((name for name, pattern in GROUPS if pattern in stack), "other")] += 1
for name, n in counts.most_common():
    print(f"{100 * n / samples:5.1f} %  {name}")
print(f"({samples} samples)")
