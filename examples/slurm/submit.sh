#!/bin/bash
# Expands a sweep file into DIR and submits its shards as one array job and the merge
# as a job that waits for all of them:  ./submit.sh sweep.json DIR [SHARDS]
set -euo pipefail
SWEEP=${1:?usage: submit.sh SWEEP.json DIR [SHARDS]}
DIR=${2:?usage: submit.sh SWEEP.json DIR [SHARDS]}
SHARDS=${3:-4}
HERE=$(cd "$(dirname "$0")" && pwd)
parallax-cli sweep expand "$SWEEP" --shards "$SHARDS" --dir "$DIR"
TASKS=$(wc -l < "$DIR/tasks.txt")
ARRAY=$(sbatch --parsable --array=0-$((TASKS - 1)) "$HERE/sweep.sbatch" "$DIR")
sbatch --dependency=afterok:"$ARRAY" "$HERE/merge.sbatch" "$DIR"
