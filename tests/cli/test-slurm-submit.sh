#!/bin/bash
# examples/slurm/submit.sh against a stand-in sbatch that records its arguments: the
# options after -- reach both sbatch calls, the array covers the task list (4 scenarios
# x 2 shards = 8 tasks: 0-7), the merge waits on the array's id (cluster suffix of
# --parsable dropped), and the job files ask for no more than one CPU themselves
# (issue 34, item 13: --cpus-per-task=4 pended forever on smaller partitions).
# Args: PARALLAX_CLI EXAMPLES_DIR.
set -euo pipefail
cli=$1 examples=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/plx-slurm-XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/bin"
ln -s "$cli" "$work/bin/parallax-cli"
cat > "$work/bin/sbatch" <<'FAKE'
#!/bin/sh
echo "$*" >> "$SBATCH_LOG"
echo "4242;cluster-a"
FAKE
chmod +x "$work/bin/sbatch"
export SBATCH_LOG="$work/sbatch.log"
PATH="$work/bin:$PATH" "$examples/slurm/submit.sh" "$examples/slurm/sweep.json" "$work/sweep" 2 \
  -- --partition=cpu --cpus-per-task=8 > /dev/null
here=$(cd "$examples/slurm" && pwd)
expected="--parsable --partition=cpu --cpus-per-task=8 --array=0-7 $here/sweep.sbatch $work/sweep
--partition=cpu --cpus-per-task=8 --dependency=afterok:4242 $here/merge.sbatch $work/sweep"
if [ "$(cat "$SBATCH_LOG")" != "$expected" ]; then
  printf 'sbatch was called as:\n%s\nexpected:\n%s\n' "$(cat "$SBATCH_LOG")" "$expected"
  exit 1
fi
# Without options and shards: 4 shards a scenario, 16 tasks.
rm "$SBATCH_LOG"
PATH="$work/bin:$PATH" "$examples/slurm/submit.sh" "$examples/slurm/sweep.json" "$work/sweep4" > /dev/null
grep -q -- "^--parsable --array=0-15 " "$SBATCH_LOG" || { cat "$SBATCH_LOG"; exit 1; }
if grep -n '^#SBATCH --cpus-per-task' "$examples"/slurm/*.sbatch; then
  echo "a job file asks for CPUs of its own"
  exit 1
fi
echo "1 passed, 0 failed"
