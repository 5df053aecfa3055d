#!/usr/bin/env bash
# A Slurm job array of 4 tasks pulling from one shared queue (meshtest run
# --queue): submit with `sbatch ci/examples/slurm-queue-array.sh`. Every task
# shares the array job's id as the run id; a task that is preempted or killed
# hands its cases to the others once its lease (--queue-lease, 60 s) expires.
#SBATCH --job-name=meshtest-nightly
#SBATCH --array=1-4
#SBATCH --cpus-per-task=16
#SBATCH --output=meshtest-%A-%a.log
set -euo pipefail
: "${MESHTEST_PG_URL:?set MESHTEST_PG_URL to the shared PostgreSQL database}"
exec build/meshtest run -m "n150 and nightly" --arch n150 \
  --run-id "nightly-${SLURM_ARRAY_JOB_ID}" \
  --queue "$MESHTEST_PG_URL" --db "$MESHTEST_PG_URL" \
  --junitxml "junit-${SLURM_ARRAY_JOB_ID}-${SLURM_ARRAY_TASK_ID}.xml"
