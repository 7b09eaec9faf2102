//! ALoA, the reference evaluator after Winands' quad evaluator. Being written (issue 3).
