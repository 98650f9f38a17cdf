#!/usr/bin/env bash
# run-fuzz.sh HARNESS SEED_CORPUS SCRATCH SECONDS: one short libFuzzer run. New inputs
# go to SCRATCH (the seed corpus is only read); a crash, leak, timeout (5 s per input)
# or out-of-memory fails the test and leaves the input beside SCRATCH.
set -euo pipefail
harness=$1 seeds=$2 scratch=$3 seconds=$4
mkdir -p "$scratch"
exec "$harness" "$scratch" "$seeds" -max_total_time="$seconds" -timeout=5 -rss_limit_mb=2048 \
  -max_len=65536 -artifact_prefix="$scratch-" -print_final_stats=1
