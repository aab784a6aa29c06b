#!/usr/bin/env bash
# Memory-safety run: builds resize_ad with AddressSanitizer + UndefinedBehaviorSanitizer
# (setup.py honours RESIZE_AD_SANITIZE=1: -O1 -g -fsanitize=address,undefined) in a separate
# copy of the working tree, then runs the test suite there with the ASan runtime preloaded
# (python and torch are not instrumented, so the runtime must come first: LD_PRELOAD).
#
#   tools/sanitize.sh                 # CPU build, whole test suite
#   tools/sanitize.sh tests/test_errors.py -k op_level   # any pytest arguments
#   SANITIZE_DIR=/path tools/sanitize.sh                  # where the copy goes (default: a temp dir)
#
# Exit status: pytest's, or 1 when the log holds any sanitizer report. The summary lines are
# printed at the end; the full log is $SANITIZE_DIR/sanitize.log.
#
# CUDA (documented only; needs a GPU): the CUDA kernels are checked with compute-sanitizer
# instead of ASan, on a normal (non-ASan) CUDA build:
#   compute-sanitizer --tool memcheck --leak-check full --error-exitcode 1 \
#       python -m pytest tests -q -x -m cuda
#   (and --tool racecheck / --tool initcheck the same way)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIR="${SANITIZE_DIR:-$(mktemp -d -t resize_ad_asan.XXXXXX)}"
mkdir -p "$DIR"
LOG="$DIR/sanitize.log"

echo "== copying the working tree (tracked and untracked, not ignored) to $DIR"
(cd "$ROOT" && git ls-files -z --cached --others --exclude-standard) |
  (cd "$ROOT" && xargs -0 cp --parents -t "$DIR")

echo "== building with -fsanitize=address,undefined (log: $DIR/build.log)"
(cd "$DIR" && RESIZE_AD_SANITIZE=1 RESIZE_AD_CPU_ONLY=1 MAX_JOBS="${MAX_JOBS:-2}" \
   python setup.py build_ext --inplace > "$DIR/build.log" 2>&1) || { tail -30 "$DIR/build.log"; exit 2; }
SO="$(ls "$DIR"/resize_ad/_C*.so)"
if ! ldd "$SO" | grep -q libasan; then
  echo "error: $SO is not linked against libasan"; exit 2
fi

LIBASAN="$(gcc -print-file-name=libasan.so)"
LIBUBSAN="$(gcc -print-file-name=libubsan.so)"
export LD_PRELOAD="$LIBASAN:$LIBUBSAN"
# Reports also go to files: pytest captures fd 2 during a test, and a report written there is
# lost when the sanitizer ends the process.
rm -f "$DIR"/asan.* "$DIR"/ubsan.*
export ASAN_OPTIONS="detect_leaks=0:halt_on_error=1:abort_on_error=1:detect_stack_use_after_return=1:check_initialization_order=1:allocator_may_return_null=1:log_path=$DIR/asan"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$DIR/ubsan"
export PYTHONPATH="$DIR"
cd "$DIR"
python -c "import resize_ad, sys; f = resize_ad._C.__file__; print('using', f); sys.exit(0 if f.startswith('$DIR') else 1)"
echo "== running tests under $LIBASAN"
set +e
python -m pytest "${@:-tests}" -q -p no:cacheprovider -W ignore::DeprecationWarning > "$LOG" 2>&1
RC=$?
set -e
unset LD_PRELOAD

REPORTS=$(cat "$LOG" "$DIR"/asan.* "$DIR"/ubsan.* 2>/dev/null |
  grep -cE "ERROR: AddressSanitizer|runtime error:|ERROR: LeakSanitizer" || true)
echo "== summary"
tail -3 "$LOG"
echo "sanitizer reports: $REPORTS (log: $LOG)"
cat "$LOG" "$DIR"/asan.* "$DIR"/ubsan.* 2>/dev/null | grep -E -A20 "ERROR: AddressSanitizer|runtime error:" | head -60 || true
if [ "$REPORTS" != "0" ]; then exit 1; fi
exit $RC
