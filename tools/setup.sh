#!/usr/bin/env bash
# Installs resize_ad and what it needs into the current Python, on a fresh machine.
#   bash tools/setup.sh          torch, numpy, ninja, then the extension (editable)
#   bash tools/setup.sh test     the same plus the test dependencies
# Builds the CUDA kernels when torch has CUDA and a CUDA toolkit is found (CUDA_HOME, or the
# toolkit behind the nvcc on PATH); RESIZE_AD_CPU_ONLY=1 skips them.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}

TORCH_SPEC=${RESIZE_AD_TORCH:-torch==2.14.1}
if ! $PY -c "import torch" 2>/dev/null; then
  $PY -m pip install --quiet "$TORCH_SPEC"
fi
$PY -m pip install --quiet numpy ninja
if [ "${1:-}" = "test" ]; then
  $PY -m pip install --quiet pytest hypothesis pillow expecttest
fi

# torch's build guesses CUDA_HOME from the nvcc on PATH; when that nvcc is a wrapper script
# the guess is wrong (link fails: cannot find -lcudart). Find the toolkit's own root.
if [ -z "${CUDA_HOME:-}" ] && [ "${RESIZE_AD_CPU_ONLY:-0}" != "1" ]; then
  for d in /usr/local/cuda-13.0 /usr/local/cuda /usr/local/cuda-*; do
    if [ -x "$d/bin/nvcc" ] && [ -f "$d/include/cuda_runtime.h" ] && [ -e "$d/lib64/libcudart.so" ]; then
      export CUDA_HOME="$d"
      break
    fi
  done
fi
if [ -n "${CUDA_HOME:-}" ]; then
  echo "resize_ad setup: CUDA toolkit at $CUDA_HOME"
  export TORCH_CUDA_ARCH_LIST=${TORCH_CUDA_ARCH_LIST:-9.0}
fi
export MAX_JOBS=${MAX_JOBS:-2}

# --no-build-isolation: build against the torch installed above (isolation would fetch a
# second torch and can break the ABI).
log=$(mktemp)
if ! $PY -m pip install --no-build-isolation --no-deps -v -e . >"$log" 2>&1; then
  tail -n 60 "$log"
  echo "resize_ad setup: build failed (full log: $log)" >&2
  exit 1
fi
echo "resize_ad setup: compiled"
grep -E "\[[0-9]+/[0-9]+\]" "$log" | grep -oE "csrc/[A-Za-z0-9_/]+\.(cpp|cu)" | sort -u | sed 's/^/  /' || true
$PY -c "import resize_ad, torch; print('resize_ad', resize_ad.__version__, 'built; torch', torch.__version__, '; CUDA kernels:', resize_ad.has_cuda_kernels())"
