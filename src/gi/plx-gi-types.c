/* The core's structs as boxed types (plx-gi.h): a binding copies and frees them
 * with the core's own copy and free functions. */
#include "parallax/plx-gi.h"

/**
 * PlxScenario:
 *
 * A model, a cluster and a strategy, resolved: what a scenario file holds.
 * It keeps the file's JSON, so that changing a key of the strategy rebuilds it as
 * `parallax-cli simulate FILE --key value` does.
 */
G_DEFINE_BOXED_TYPE (PlxScenario, plx_scenario, plx_scenario_copy, plx_scenario_free)

/**
 * PlxModel:
 *
 * A transformer: its layers, widths and operations.
 */
G_DEFINE_BOXED_TYPE (PlxModel, plx_model, plx_model_copy, plx_model_free)

/**
 * PlxCluster:
 *
 * GPUs, how fast they run, and the links between them.
 */
G_DEFINE_BOXED_TYPE (PlxCluster, plx_cluster, plx_cluster_copy, plx_cluster_free)

/**
 * PlxStrategy:
 *
 * How a run is split over the cluster: the degrees, micro-batching, schedule,
 * recomputation and ZeRO stage (docs/formats.md §1, "strategy").
 */
G_DEFINE_BOXED_TYPE (PlxStrategy, plx_strategy, plx_strategy_copy, plx_strategy_free)

/**
 * PlxReport:
 *
 * What an engine predicts for one training step: the figures of
 * `parallax-cli simulate --json` (docs/formats.md §3).
 */
G_DEFINE_BOXED_TYPE (PlxReport, plx_report, plx_report_copy, plx_report_free)

/**
 * PlxSearchResult:
 *
 * One strategy a search found, with its predicted step time, MFU and memory.
 */
G_DEFINE_BOXED_TYPE (PlxSearchResult, plx_search_result, plx_search_result_copy, plx_search_result_free)

/* The error codes as an enum type, so that bindings raise GLib.Error with codes
 * they can name (Parallax.Error.NOT_FOUND). */
G_DEFINE_ENUM_TYPE (PlxError, plx_error,
  G_DEFINE_ENUM_VALUE (PLX_ERROR_PARSE, "parse"),
  G_DEFINE_ENUM_VALUE (PLX_ERROR_MISSING_KEY, "missing-key"),
  G_DEFINE_ENUM_VALUE (PLX_ERROR_INVALID_VALUE, "invalid-value"),
  G_DEFINE_ENUM_VALUE (PLX_ERROR_UNSUPPORTED, "unsupported"),
  G_DEFINE_ENUM_VALUE (PLX_ERROR_INCONSISTENT, "inconsistent"),
  G_DEFINE_ENUM_VALUE (PLX_ERROR_NOT_FOUND, "not-found"),
  G_DEFINE_ENUM_VALUE (PLX_ERROR_IO, "io"),
  G_DEFINE_ENUM_VALUE (PLX_ERROR_UNKNOWN_KEY, "unknown-key"))
