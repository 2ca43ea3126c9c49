#!/usr/bin/env bash
# Measure this GPU box for tpsim: builds tpsim-calibrate with GPU support and runs `bench`, which
# writes measurements/<host>.json (schema tpsim-measurements/1) at the repository root.
#
# Usage:   calibrate/run-on-gpu.sh [bench flags]      e.g. --quick, --only mem,gemm, --sizes 4K..64M
# Needs:   an NVIDIA driver (libcuda), cuBLAS and NVRTC from a CUDA 12 toolkit (or the pip wheels
#          nvidia-cublas-cu12 / nvidia-cuda-nvrtc-cu12 that PyTorch installs), NCCL for the allreduce
#          sweep, and at least 2 GPUs for the p2p and nccl benchmarks. CUDA 13 libraries (`.so.13`,
#          e.g. PyTorch cu130 wheels) are detected and built against with the `cuda13` feature.
# Offline: on a box with no Rust toolchain or no crates.io, build elsewhere (same CPU architecture,
#          same glibc or older) with `cargo build --release -p tpsim-calibrate --features cuda` (or
#          `cuda13`), copy target/release/tpsim-calibrate over and point TPSIM_CALIBRATE_BIN at it.
# Next:    the measurement file is the input of `tpsim-calibrate fit measurements/<host>.json`, which
#          fits a hardware profile (TOML) that scenarios load with `[hardware] profile = "..."`; its
#          options are listed by `tpsim-calibrate fit --help`.
set -euo pipefail
cd "$(dirname "$0")/.."

host=$(hostname -s 2>/dev/null || hostname)
out="measurements/${host}.json"
mkdir -p measurements

# CUDA libraries from pip wheels (site-packages/nvidia/*/lib) are not on the loader path by default.
if command -v python3 >/dev/null 2>&1; then
  pip_libs=$(python3 - <<'PY' 2>/dev/null || true
import glob, os
try:
    import nvidia
    for root in nvidia.__path__:
        for d in sorted(glob.glob(os.path.join(root, "*", "lib"))):
            print(d)
except ImportError:
    pass
PY
)
  for d in $pip_libs; do
    LD_LIBRARY_PATH="${d}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  done
fi

# cudarc loads NCCL as `libnccl.so`; runtime packages (apt libnccl2, pip nvidia-nccl-cu12) ship only
# `libnccl.so.2`. Give it the name cudarc looks for, in a temporary directory.
find_nccl2() {
  ldconfig -p 2>/dev/null | awk '/libnccl\.so\.2 /{print $NF; exit}'
  local IFS=:
  for d in ${LD_LIBRARY_PATH:-}; do
    if [ -e "$d/libnccl.so.2" ]; then echo "$d/libnccl.so.2"; fi
  done
}
have_nccl_so() {
  ldconfig -p 2>/dev/null | grep 'libnccl\.so ' >/dev/null && return 0
  local IFS=:
  for d in ${LD_LIBRARY_PATH:-}; do [ -e "$d/libnccl.so" ] && return 0; done
  return 1
}
if ! have_nccl_so; then
  nccl2=$(find_nccl2 | head -n 1 || true)
  if [ -n "$nccl2" ]; then
    shim=$(mktemp -d)
    trap 'rm -rf "$shim"' EXIT
    ln -s "$nccl2" "$shim/libnccl.so"
    LD_LIBRARY_PATH="${shim}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  fi
fi
export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:-}"

# cudarc binds one CUDA major version: CUDA 13 libraries need the `cuda13` feature.
has_lib() {
  ldconfig -p 2>/dev/null | grep "$1 " >/dev/null && return 0
  local IFS=:
  for d in ${LD_LIBRARY_PATH:-}; do [ -e "$d/$1" ] && return 0; done
  return 1
}
feature=cuda
if has_lib libcublas.so.13 && ! has_lib libcublas.so.12; then feature=cuda13; fi

if [ -n "${TPSIM_CALIBRATE_BIN:-}" ]; then
  echo "using the prebuilt $TPSIM_CALIBRATE_BIN (this box's CUDA libraries want --features $feature)"
  "$TPSIM_CALIBRATE_BIN" bench --out "$out" "$@"
else
  cargo build --release --locked -p tpsim-calibrate --features "$feature"
  cargo run --release --locked -q -p tpsim-calibrate --features "$feature" -- bench --out "$out" "$@"
fi
echo "measurements written to $out"
