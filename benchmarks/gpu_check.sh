#!/usr/bin/env bash
# The GPU check: on a fresh machine with an NVIDIA GPU, the python3 that holds torch, nvcc and
# ninja (no network needed), build resize_ad with its CUDA kernels and check it in one run of at
# most ~8 minutes:
#   1 machine     nvidia-smi, torch and toolkit versions
#   2 build       TORCH_CUDA_ARCH_LIST from the device, all cores
#   3 import      the build has CUDA kernels
#   4 tests       tests/test_cuda.py (parity with native CUDA, determinism, graph capture, 2nd GPU)
#   5 graph       CUDA graph capture and replay of forward and backward (benchmarks/cuda_smoke.py)
#   6 memcheck    compute-sanitizer memcheck on a small subset (when compute-sanitizer is found)
#   7 racecheck   compute-sanitizer racecheck on the same subset
#   8 bench       benchmarks/bench_interpolate.py --device cuda --quick --deterministic
#   9 report      report.md and gpu_check.json in the results folder
#
#   bash benchmarks/gpu_check.sh [RESULTS_DIR]     (default: $OUT if set, else ./gpu_results)
#
# Every step has its own time limit and the run goes on after a failing step; the report says
# which failed. The exit status is 0 only when every step that ran passed.
set -u
cd "$(dirname "$0")/.." || exit 2
RES=${1:-${OUT:-./gpu_results}}
mkdir -p "$RES"
PY=${PYTHON:-python3}
export PYTHONUNBUFFERED=1 FORCE_CUDA=1
export MAX_JOBS=${MAX_JOBS:-$(nproc 2>/dev/null || echo 8)}
T0=$(date +%s)
# The whole run stays within BUDGET seconds: a step gets at most what is left (less a reserve
# for the report), and is skipped when too little is.
BUDGET=${GPU_CHECK_BUDGET:-470}
STEPS=()    # name|status|seconds|log

# run_step NAME LIMIT_S CMD...: runs CMD under `timeout`, its output to $RES/NAME.log, records
# pass / FAIL (rc) / TIMEOUT.
run_step() {
  local name=$1 limit=$2
  shift 2
  local log="$RES/$name.log" start rc status left
  start=$(date +%s)
  left=$(( T0 + BUDGET - start - 10 ))
  if [ $left -lt 15 ]; then
    STEPS+=("$name|SKIPPED: out of time|0|")
    echo "== $name: skipped (out of time)"
    return 1
  fi
  [ "$limit" -gt $left ] && limit=$left
  echo "== $name (limit ${limit}s, at +$((start - T0))s)"
  timeout --kill-after=10 "$limit" "$@" > "$log" 2>&1
  rc=$?
  if [ $rc -eq 0 ]; then status=pass
  elif [ $rc -eq 124 ] || [ $rc -eq 137 ]; then status=TIMEOUT
  else status="FAIL(rc=$rc)"; fi
  STEPS+=("$name|$status|$(( $(date +%s) - start ))|$log")
  tail -n 15 "$log"
  echo "-- $name: $status in $(( $(date +%s) - start ))s"
  [ "$status" = pass ]
}

skip_step() {
  STEPS+=("$1|skipped: $2|0|")
  echo "== $1: skipped ($2)"
}

if [ -z "${CUDA_HOME:-}" ]; then
  for d in /usr/local/cuda /usr/local/cuda-*; do
    if [ -x "$d/bin/nvcc" ]; then export CUDA_HOME=$d; break; fi
  done
fi
[ -n "${CUDA_HOME:-}" ] && export PATH="$CUDA_HOME/bin:$PATH"
if [ -z "${TORCH_CUDA_ARCH_LIST:-}" ]; then
  TORCH_CUDA_ARCH_LIST=$(timeout 60 "$PY" -c "import torch;p=torch.cuda.get_device_capability();print(f'{p[0]}.{p[1]}')" 2>/dev/null)
  export TORCH_CUDA_ARCH_LIST=${TORCH_CUDA_ARCH_LIST:-9.0}
fi

run_step machine 60 bash -c "nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv; \
  '$PY' -c \"import torch;print('torch', torch.__version__, 'cuda', torch.version.cuda, 'devices', torch.cuda.device_count())\"; \
  echo CUDA_HOME=${CUDA_HOME:-?} arch=$TORCH_CUDA_ARCH_LIST MAX_JOBS=$MAX_JOBS; nvcc --version | tail -2; \
  command -v compute-sanitizer || ls ${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer 2>/dev/null || echo 'no compute-sanitizer'"

BUILT=0
if run_step build 240 "$PY" setup.py build_ext --inplace && \
   run_step import 60 "$PY" -c "import resize_ad; assert resize_ad.has_cuda_kernels(), 'no CUDA kernels in the build'; print(resize_ad.__file__, 'CUDA kernels: yes')"; then
  BUILT=1
fi

if [ $BUILT = 1 ]; then
  run_step tests 170 "$PY" -m pytest tests/test_cuda.py -q -p no:cacheprovider -rfE
  run_step graph 40 "$PY" benchmarks/cuda_smoke.py graph
  SAN=$(command -v compute-sanitizer || true)
  [ -z "$SAN" ] && [ -x "${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer" ] && SAN="${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer"
  if [ -n "$SAN" ]; then
    # --error-exitcode: a reported error fails the step; the subset is small (sanitized kernels
    # run 10-100x slower, and torch's start-up under the tool takes most of the time).
    run_step memcheck 70 "$SAN" --tool memcheck --error-exitcode 3 --leak-check no "$PY" benchmarks/cuda_smoke.py subset
    run_step racecheck 70 "$SAN" --tool racecheck --error-exitcode 3 "$PY" benchmarks/cuda_smoke.py subset
  else
    skip_step memcheck "compute-sanitizer not found"
    skip_step racecheck "compute-sanitizer not found"
  fi
  # the benchmark's markdown table is its stdout, the progress its stderr: both in bench.log
  run_step bench 90 "$PY" benchmarks/bench_interpolate.py --device cuda --quick --deterministic --json "$RES/bench_cuda.json"
  [ -f "$RES/bench.log" ] && grep -a '^|\|^#\|^geomean' "$RES/bench.log" > "$RES/bench_cuda.md"
else
  for s in tests graph memcheck racecheck bench; do skip_step $s "no build"; done
fi

# Report: markdown and JSON.
FAILED=0
{
  echo "# resize_ad GPU check"
  echo
  echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(( $(date +%s) - T0 )) s in all, arch $TORCH_CUDA_ARCH_LIST"
  echo
  head -3 "$RES/machine.log" 2>/dev/null | sed 's/^/    /'
  echo
  echo "| step | status | seconds | log |"
  echo "|---|---|---:|---|"
  for s in "${STEPS[@]}"; do
    IFS='|' read -r n st sec lg <<< "$s"
    echo "| $n | $st | $sec | $(basename "${lg:-none}") |"
    case $st in pass|skipped:*) ;; *) FAILED=1 ;; esac
  done
  echo
  if [ -f "$RES/tests.log" ]; then
    echo "## CUDA tests"; echo; tail -n 25 "$RES/tests.log" | sed 's/^/    /'; echo
  fi
  if [ -f "$RES/bench_cuda.md" ]; then
    echo "## Benchmark against native"; echo; cat "$RES/bench_cuda.md"; echo
  fi
  for s in memcheck racecheck graph; do
    if [ -f "$RES/$s.log" ]; then echo "## $s"; echo; tail -n 8 "$RES/$s.log" | sed 's/^/    /'; echo; fi
  done
} > "$RES/report.md"
"$PY" - "$RES" "${STEPS[@]}" <<'EOF' || true
import json, sys
res, steps = sys.argv[1], sys.argv[2:]
out = {"steps": [dict(zip(("name", "status", "seconds", "log"), s.split("|", 3))) for s in steps]}
try:
    out["bench"] = json.load(open(f"{res}/bench_cuda.json"))
except (OSError, ValueError):
    out["bench"] = None
json.dump(out, open(f"{res}/gpu_check.json", "w"), indent=1)
EOF
echo "report: $RES/report.md ($(( $(date +%s) - T0 )) s)"
exit $FAILED
