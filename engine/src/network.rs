//! The 2041-weight network evaluator (SPEC §3). Being written (issue 3).
