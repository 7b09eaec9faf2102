#!/usr/bin/env python3
"""Where the master's gRPC threads spend a dispatch (docs/bench.md).

Reads `perf script` output of a `perf record --call-graph dwarf` of `loa-bench dispatch` and
prints the share of the `loa-rpc` threads' samples by the first of these groups found anywhere in
each sample's stack (so a sample in h2 called from the scheduler counts as the scheduler's):

    perf record -e cpu-clock -F 2500 --call-graph dwarf,32768 -o perf.data -- \\
        target/release/loa-bench dispatch --tasks 40000 --clients 32 --samples 1 \\
        --reuse repeat --batch 8 --light-stubs
    perf script -i perf.data --comm loa-rpc | experiments/cluster/perf-groups.py

With --innermost, a sample counts instead for the group of the innermost frame that matches
any group (so time in prost called from the scheduler's caller counts as prost's), and a
second column gives the part of it spent in the memory allocator (malloc, free, mimalloc, the
kernel zeroing fresh pages), found among the sample's ten innermost frames.

With --under PATTERN, it prints instead the share of samples with PATTERN in a frame of their
stack, and the part of those in the allocator, e.g.
    ... | experiments/cluster/perf-groups.py --under 'grow_one<loa_proto::pb::GameSummary'
"""
import collections
import re
import sys

GROUPS = [
    ("scheduler (lease, record)", "loa_master::scheduler::"),
    ("encoding tasks (to_wire)", "to_wire"),
    ("outcomes: protobuf to engine types", "_from_proto"),
    ("prost decoding", "Message>::decode"),
    ("prost decoding", "merge_loop"),
    ("prost encoding", "encode_raw"),
    ("prost encoding", "ReservingCodec"),
    ("prost encoding", "encoded_len"),
    ("dropping protobuf messages", "drop_in_place<loa_proto"),
    ("the rest of a worker's stream", "WorkerStream"),
    ("h2 framing", "h2::"),
    ("hyper", "hyper::"),
    ("tonic", "tonic::"),
    ("kernel write", "writev"),
    ("kernel read", "recv"),
    ("epoll", "epoll_wait"),
    ("futex", "futex"),
    ("tokio", "tokio::"),
]

INNERMOST = "--innermost" in sys.argv[1:]
UNDER = sys.argv[sys.argv.index("--under") + 1] if "--under" in sys.argv[1:-1] else None
ALLOCATOR = re.compile(r"malloc|free|realloc|tcache|_int_|mi_|clear_page|do_anonymous|mprotect")

counts = collections.Counter()
allocating = collections.Counter()
samples = 0
for stack in sys.stdin.read().split("\n\n"):
    if not stack.strip():
        continue
    samples += 1
    if UNDER is not None:
        frames = stack.strip().split("\n")[1:]
        if any(UNDER in f for f in frames):
            counts["under"] += 1
            allocating["under"] += any(ALLOCATOR.search(f) for f in frames[:10])
        continue
    if INNERMOST:
        # perf script prints the innermost frame first, after the sample's header line.
        frames = stack.strip().split("\n")[1:]
        group = next(
            (name for frame in frames for name, pattern in GROUPS if pattern in frame),
            "other",
        )
        allocating[group] += any(ALLOCATOR.search(f) for f in frames[:10])
    else:
        group = next((name for name, pattern in GROUPS if pattern in stack), "other")
    counts[group] += 1
if UNDER is not None:
    print(f"{100 * counts['under'] / samples:5.1f} %  under {UNDER}", end="")
    print(f", of which allocator {100 * allocating['under'] / samples:4.1f} %  ({samples} samples)")
    sys.exit(0)
for name, n in counts.most_common():
    extra = f"   of which allocator {100 * allocating[name] / samples:4.1f} %" if INNERMOST else ""
    print(f"{100 * n / samples:5.1f} %  {name}{extra}")
print(f"({samples} samples)")
