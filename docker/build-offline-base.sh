#!/usr/bin/env bash
# Build a stand-in for the official PyTorch base image with no container registry at all:
# debootstrap a Debian root filesystem with Python, `docker import` it, then install a CPU build of
# torch (and its dependencies) from the wheelhouse. CI and air-gapped sites use it.
#
#   docker/build-offline-base.sh [TAG]          (default TAG: torch-grader-base:offline)
#
# Environment: WHEELHOUSE (default docker/wheelhouse; filled with `pip download` when torch is
# missing from it), MIRROR (Debian mirror, default http://deb.debian.org/debian), SUITE (bookworm,
# whose python3 is 3.11 like the pinned torch wheel). Reuses TAG when it already exists.
set -euo pipefail
cd "$(dirname "$0")/.."

TAG=${1:-torch-grader-base:offline}
WHEELHOUSE=${WHEELHOUSE:-docker/wheelhouse}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
SUITE=${SUITE:-bookworm}
PYTHON=${PYTHON:-python3}
TORCH_SPEC=$(grep -E '^torch==' constraints.txt)

if docker image inspect "$TAG" >/dev/null 2>&1; then
  echo "offline base image $TAG exists: reusing it"
  exit 0
fi

mkdir -p "$WHEELHOUSE"
if ! ls "$WHEELHOUSE"/torch-*.whl >/dev/null 2>&1; then
  echo "== filling $WHEELHOUSE with $TORCH_SPEC and its dependencies"
  "$PYTHON" -m pip download --quiet --only-binary=:all: --python-version 3.11 --platform manylinux_2_28_x86_64 \
    --platform manylinux2014_x86_64 --platform any -d "$WHEELHOUSE" "$TORCH_SPEC"
fi

rootfs=$(mktemp -d /tmp/grader-rootfs.XXXXXX)
ctx=$(mktemp -d /tmp/grader-basectx.XXXXXX)
trap 'rm -rf "$rootfs" "$ctx"' EXIT

echo "== debootstrap $SUITE (minbase + python3 + g++ for torch.compile) into $rootfs"
debootstrap --variant=minbase --include=python3,python3-pip,passwd,ca-certificates,g++ "$SUITE" "$rootfs" "$MIRROR" \
  > "$ctx/debootstrap.log" 2>&1 || { tail -30 "$ctx/debootstrap.log"; exit 1; }
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* "$rootfs"/usr/share/doc/* \
  "$rootfs"/usr/share/man/* "$rootfs"/usr/share/locale/*

echo "== docker import"
tar -C "$rootfs" -c . | docker import --change 'ENV LANG=C.UTF-8' - "${TAG%:*}:rootfs" >/dev/null

echo "== installing $TORCH_SPEC from the wheelhouse"
mkdir "$ctx/wheels"
cp "$WHEELHOUSE"/*.whl "$ctx/wheels/"
cat > "$ctx/Dockerfile" <<DOCKERFILE
FROM ${TAG%:*}:rootfs
COPY wheels /tmp/wheels
RUN python3 -m pip install --no-cache-dir --break-system-packages --no-index --find-links /tmp/wheels \
      "$TORCH_SPEC" && rm -rf /tmp/wheels && python3 -c "import torch; print('torch', torch.__version__)"
DOCKERFILE
docker build --quiet -t "$TAG" "$ctx" >/dev/null
docker image rm "${TAG%:*}:rootfs" >/dev/null
echo "== built $TAG"
