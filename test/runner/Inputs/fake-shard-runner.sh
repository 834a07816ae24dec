#!/bin/sh
# A shard's runner for the tests of kfuse-runner --gpus, faked (no GPU here): devices 1 and
# 3 have no usable GPU (exit 4, as the runner's); on any other device it notes its device and
# arguments in the shard's ran.txt and writes the shard's results as an H200 would have.
for last in "$@"; do :; done
case "$CUDA_VISIBLE_DEVICES" in
  1 | 3)
    echo "kfuse-runner: error: no usable CUDA device: cudaErrorNoDevice (faked)" >&2
    exit 4
    ;;
esac
echo "device $CUDA_VISIBLE_DEVICES args $*" > "$last/ran.txt"
exec python3 "$(dirname "$0")/../../regress/Inputs/fake_results.py" "$last"
