#!/usr/bin/env bash
# Installs resize_ad and what it needs into the current Python, on a fresh machine.
#   bash tools/setup.sh          torch, numpy, ninja, then the extension (editable)
#   bash tools/setup.sh test     the same plus the test dependencies (pytest, hypothesis,
#                                pillow, expecttest, torchvision, opencv-python-headless, jax)
# Builds the CUDA kernels when torch has CUDA and a CUDA toolkit is found (CUDA_HOME, or the
# toolkit behind the nvcc on PATH); RESIZE_AD_CPU_ONLY=1 skips them. The CUDA architectures are
# torch's choice (the visible GPU's, or torch's default list when none is visible) unless
# TORCH_CUDA_ARCH_LIST says otherwise. An unchanged tree is not rebuilt.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
say() { echo "resize_ad setup: $*"; }

TORCH_SPEC=${RESIZE_AD_TORCH:-torch==2.14.1}
if ! $PY -c "import torch" 2>/dev/null; then
  say "installing $TORCH_SPEC (a large wheel: a minute or more)"
  $PY -m pip install --quiet "$TORCH_SPEC"
fi
say "installing numpy, ninja"
$PY -m pip install --quiet numpy ninja
if [ "${1:-}" = "test" ]; then
  TV_SPEC=${RESIZE_AD_TORCHVISION:-torchvision==0.29.1}
  say "installing the test dependencies (pytest, hypothesis, pillow, expecttest, $TV_SPEC, opencv-python-headless, jax)"
  $PY -m pip install --quiet pytest hypothesis pillow expecttest "$TV_SPEC" opencv-python-headless jax
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
if [ -n "${CUDA_HOME:-}" ] && [ -z "${TORCH_CUDA_ARCH_LIST:-}" ]; then
  # torch's build targets the visible GPUs; with none visible it has no list of its own, so
  # take the architectures this torch was built for (its kernels run there, ours should too).
  archs=$($PY -c "import torch
if torch.cuda.device_count() == 0:
    print(';'.join(f'{a[3:-1]}.{a[-1]}' for a in torch.cuda.get_arch_list() if a.startswith('sm_')))" 2>/dev/null || true)
  if [ -n "$archs" ]; then export TORCH_CUDA_ARCH_LIST="$archs"; fi
fi
if [ -n "${CUDA_HOME:-}" ]; then
  say "CUDA toolkit at $CUDA_HOME (architectures: ${TORCH_CUDA_ARCH_LIST:-those of the visible GPUs})"
fi
export MAX_JOBS=${MAX_JOBS:-2}

# The build's inputs: the sources, the build script, torch, and the switches that change it.
stamp_file=resize_ad/.build_stamp
stamp=$( { cat setup.py; find csrc -type f | sort | xargs cat;
           $PY -c "import torch; print(torch.__version__, torch.version.cuda)";
           echo "${CUDA_HOME:-} ${TORCH_CUDA_ARCH_LIST:-} ${RESIZE_AD_CPU_ONLY:-} ${FORCE_CUDA:-} ${RESIZE_AD_SANITIZE:-}"; } \
         | sha256sum | cut -d' ' -f1)
# Up to date only if this checkout is the one installed: imported from outside the tree, the
# package must resolve here (an editable install of another copy would shadow it).
here=$(pwd -P)
if [ -f "$stamp_file" ] && [ "$(cat "$stamp_file")" = "$stamp" ] && \
   (cd / && $PY -c "import os, sys, resize_ad
sys.exit(os.path.dirname(os.path.dirname(os.path.realpath(resize_ad.__file__))) != sys.argv[1])" "$here") 2>/dev/null; then
  say "build is up to date"
else
  say "building the extension (a few minutes; each CUDA file adds about two)"
  # --no-build-isolation: build against the torch installed above (isolation would fetch a
  # second torch and can break the ABI).
  log=$(mktemp)
  rm -f "$stamp_file"
  set +e
  $PY -m pip install --no-build-isolation --no-deps -v -e . 2>&1 | tee "$log" | \
    grep --line-buffered -oE "\[[0-9]+/[0-9]+\] .*csrc/[A-Za-z0-9_/]+\.(cpp|cu)" | \
    sed -u -E 's/^(\[[0-9]+\/[0-9]+\]).*(csrc\/[A-Za-z0-9_\/]+\.(cpp|cu))$/  \1 \2/'
  rc=${PIPESTATUS[0]}
  set -e
  if [ "$rc" != 0 ]; then
    tail -n 60 "$log"
    say "build failed (full log: $log)" >&2
    exit 1
  fi
  echo "$stamp" > "$stamp_file"
fi
$PY -c "import resize_ad, torch; print('resize_ad', resize_ad.__version__, 'built; torch', torch.__version__, '; CUDA kernels:', resize_ad.has_cuda_kernels())"
