#!/usr/bin/env bash
# The whole GPU validation in one call, for a session lent the GPU machine (/work/.library/device:
# 15 minutes of device time a session, machine start included). CI never has a GPU: every CUDA
# check skips there, and this is where they run. Proves issues 10 and 19: references score 100 %
# with their CUDA checks run (not skipped), stubs 0, every known mistake caught, and the sandbox
# and probe tests that need CUDA pass.
#
# That machine has Python 3.12 with its own torch (2.11+cu130, not our pinned 2.13: say so with
# every figure), numpy, pytest, click, rich, cloudpickle, onnx, onnxruntime, torchvision and
# tensorboard; the grader runs from the working tree (PYTHONPATH), and the two pure-Python
# packages it lacks travel as wheels. Once, here, in the repository's root:
#
#   echo /.whl/ >> .git/info/exclude
#   python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
#       -d .whl junit-xml==1.9 docker==7.1.0
#
# then call the device tool's `run` with command "bash benchmarks/gpu_check.sh", carry [".whl"],
# timeout_s 560. What comes back under $OUT: env.txt (the GPU, torch, CUDA), validate.txt
# (`grader validate` over every exercise), solutions.json and solutions.txt (the references graded
# with --require-gpu: every check's outcome, CUDA ones included), pytest.txt (the CUDA-touching
# tests). Each step has its own time limit, so a slow one leaves the others' results.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-$(mktemp -d /tmp/gpu-check.XXXXXX)}
mkdir -p "$OUT"
if compgen -G ".whl/*.whl" >/dev/null; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/grader-site \
    .whl/*.whl || { echo "installing the carried wheels failed" >&2; exit 1; }
fi
export PYTHONPATH="$PWD:/tmp/grader-site${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
jobs=$(( $(nproc) / 2 > 0 ? $(nproc) / 2 : 1 ))

step() {  # step NAME SECONDS COMMAND...: run with a time limit, output and exit status to $OUT/NAME.txt
  local name=$1 limit=$2; shift 2
  local started=$SECONDS
  timeout "$limit" "$@" > "$OUT/$name.txt" 2>&1
  echo "== $name: exit $? after $((SECONDS - started)) s" | tee -a "$OUT/$name.txt"
}

{
  nvidia-smi || true
  python3 -c "import sys, torch; print(sys.version); print('torch', torch.__version__, 'cuda', torch.version.cuda,
'available', torch.cuda.is_available(), torch.cuda.get_device_name(0) if torch.cuda.is_available() else '')"
  uname -a
} > "$OUT/env.txt" 2>&1
cat "$OUT/env.txt"

# GPU_CHECK_EXERCISES="05 64": validate only these (a trial run here, without a GPU)
# shellcheck disable=SC2086
step validate 240 python3 -m grader validate --jobs "$jobs" ${GPU_CHECK_EXERCISES:-}
step solutions 120 python3 -m grader grade solutions --runtime local --require-gpu \
  --json "$OUT/solutions.json"
step pytest 150 python3 -m pytest -q -p no:cacheprovider -m "not docker" -x \
  tests/test_sandbox_profile.py tests/test_probe_helpers.py tests/test_template.py tests/test_callwatch.py
tail -n 3 "$OUT"/*.txt
