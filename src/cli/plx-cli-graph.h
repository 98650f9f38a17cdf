/* plx-cli-graph.h: simulate and plan on a graph model or a distributed program. */
#pragma once

#include <glib.h>

/* Whether the command's arguments name a graph model (--model FILE.json with ops)
 * or a program (--program). */
gboolean plx_cli_graph_wanted (int argc, char **argv);
/* Runs simulate (or plan) on it; returns the exit status. */
int      plx_cli_graph (int argc, char **argv, gboolean plan);
/* search --model GRAPH --devices N: DistIR's grid of dp x tp x pp and micro-batches. */
int      plx_cli_graph_search (int argc, char **argv);
/* partition --model GRAPH --devices N: the chain split (docs/partition.md). */
int      plx_cli_graph_partition (int argc, char **argv);
/* fuse GRAPH --dp N: DisCo's op and tensor fusion searched (docs/fusion.md). */
int      plx_cli_graph_fuse (int argc, char **argv);
