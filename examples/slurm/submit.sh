#!/bin/bash
# Expands a sweep file into DIR and submits its shards as one array job and the merge
# as a job that waits for all of them:
#   ./submit.sh SWEEP.json DIR [SHARDS] [-- SBATCH_OPTION...]
# Options after -- go to both sbatch calls, e.g. -- --partition=cpu --cpus-per-task=8
# --account=ml (a search uses every CPU Slurm gives the task; one by default).
set -euo pipefail
usage="usage: submit.sh SWEEP.json DIR [SHARDS] [-- SBATCH_OPTION...]"
SWEEP=${1:?$usage}
DIR=${2:?$usage}
shift 2
SHARDS=4
if [ $# -gt 0 ] && [ "$1" != "--" ]; then
  SHARDS=$1
  shift
fi
if [ $# -gt 0 ]; then
  if [ "$1" != "--" ]; then
    echo "$usage" >&2
    exit 2
  fi
  shift
fi
HERE=$(cd "$(dirname "$0")" && pwd)
parallax-cli sweep expand "$SWEEP" --shards "$SHARDS" --dir "$DIR"
TASKS=$(wc -l < "$DIR/tasks.txt")
ARRAY=$(sbatch --parsable "$@" --array=0-$((TASKS - 1)) "$HERE/sweep.sbatch" "$DIR")
# --parsable prints JOBID or JOBID;CLUSTER: the dependency takes the id.
sbatch "$@" --dependency=afterok:"${ARRAY%%;*}" "$HERE/merge.sbatch" "$DIR"
