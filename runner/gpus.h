/*
 * gpus.h: kfuse-runner --gpus: the shards of a bundle on the GPUs of one host.
 *
 * `kfuse bundle IN.cu -o DIR --shards N` writes N bundles DIR/shard-1..N, each the
 * reference and every N-th variant. `kfuse-runner --gpus all|N|LIST DIR` runs them, one
 * runner process per GPU at a time (CUDA_VISIBLE_DEVICES names its one device), so that no
 * two variants are ever timed on one GPU together; a shard waits for a free GPU. A device
 * whose runner finds no usable GPU (exit 4) is taken out of the pool with its reason, and
 * its shard goes to another. Each shard keeps its own results.tsv and device.tsv (which
 * names its device by PCI bus id); `kfuse import DIR` takes them all. The GPUs must be of
 * one model: a model is one population of measurements in the records.
 */
#ifndef KFUSE_RUNNER_GPUS_H
#define KFUSE_RUNNER_GPUS_H

#include "runner.h"

/* Runs o->dir's shards on the GPUs o->gpus names ("all", a count, or a list "0,2,3").
 * pass[0..npass) are the options each shard's runner gets (the driver's, without --gpus and
 * DIR). Prints a line per shard and a summary to stdout. */
enum runner_status runner_run_gpus(const runner_options *o, char **pass, int npass);

#endif
