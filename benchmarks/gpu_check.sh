#!/usr/bin/env bash
# The GPU check: on a machine with an NVIDIA GPU and torch, build resize_ad with its CUDA
# kernels, run the CUDA tests and the CUDA benchmark, and write the results.
#   bash benchmarks/gpu_check.sh [RESULTS_DIR]     (default: $OUT if set, else ./gpu_results)
# Needs no network: uses the python3 that holds torch, nvcc and ninja on the machine.
set -uo pipefail
cd "$(dirname "$0")/.."
RES=${1:-${OUT:-./gpu_results}}
mkdir -p "$RES"
PY=${PYTHON:-python3}
export TORCH_CUDA_ARCH_LIST=${TORCH_CUDA_ARCH_LIST:-$($PY -c "import torch;p=torch.cuda.get_device_capability();print(f'{p[0]}.{p[1]}')")}
export MAX_JOBS=${MAX_JOBS:-8} FORCE_CUDA=1 PYTHONUNBUFFERED=1
if [ -z "${CUDA_HOME:-}" ]; then
  for d in /usr/local/cuda /usr/local/cuda-*; do [ -x "$d/bin/nvcc" ] && export CUDA_HOME=$d && break; done
fi
{
  echo "== machine"; nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv 2>&1
  $PY -c "import torch;print('torch', torch.__version__, 'cuda', torch.version.cuda)"
  echo "== build (CUDA_HOME=${CUDA_HOME:-?}, arch $TORCH_CUDA_ARCH_LIST)"
  start=$(date +%s)
  $PY setup.py build_ext --inplace > "$RES/build.log" 2>&1 || { tail -40 "$RES/build.log"; echo "BUILD FAILED"; exit 1; }
  echo "built in $(( $(date +%s) - start )) s"
  $PY -c "import resize_ad; assert resize_ad.has_cuda_kernels(), 'no CUDA kernels in the build'; print('CUDA kernels: yes')"
} 2>&1 | tee "$RES/summary.txt"
[ "${PIPESTATUS[0]}" = 0 ] || exit 1
echo "== self-check" | tee -a "$RES/summary.txt"
$PY -m resize_ad --device cuda 2>&1 | tee -a "$RES/summary.txt"
echo "== CUDA tests" | tee -a "$RES/summary.txt"
$PY -m pytest tests/test_cuda.py -q -x -p no:cacheprovider 2>&1 | tail -15 | tee -a "$RES/summary.txt"
echo "== CUDA benchmark" | tee -a "$RES/summary.txt"
if [ -f benchmarks/bench_interpolate.py ]; then
  $PY benchmarks/bench_interpolate.py --device cuda --json "$RES/bench_cuda.json" 2>/dev/null | tee -a "$RES/summary.txt"
fi
echo "results in $RES"
