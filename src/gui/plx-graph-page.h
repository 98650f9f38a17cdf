/* plx-graph-page.h: the window's page for a model opened as a graph of ops or an
 * ONNX file (docs/graph-format.md): the graph's facts, its data, tensor and pipeline
 * parallel degrees, micro-batches, schedule and optimizer as controls, and the run
 * of its distributed program on the scenario's cluster as numbers, a timeline (a
 * row per GPU) and memory per GPU; a data-parallel program fused as chosen (DDP's
 * buckets, every elementwise chain, or DisCo's search); the forward ops drawn as a DAG
 * coloured by stage, the stage boundaries nearest, optimal or typed by hand. Computed
 * off the UI thread; a change while one runs replaces what comes after it. */
#pragma once

#include <adwaita.h>

#include "plx-result.h"

G_BEGIN_DECLS

#define PLX_TYPE_GRAPH_PAGE (plx_graph_page_get_type ())
G_DECLARE_FINAL_TYPE (PlxGraphPage, plx_graph_page, PLX, GRAPH_PAGE, GtkBox)

GtkWidget  *plx_graph_page_new (void);
/* Reads the graph (.onnx: imported, a loss put on its first output) and computes it
 * on `cluster` (copied). Errors name the file. */
gboolean    plx_graph_page_open (PlxGraphPage      *self,
                                 const char        *path,
                                 const PlxCluster  *cluster,
                                 GError           **error);
/* The cluster the program runs on (copied); recomputes. */
void        plx_graph_page_set_cluster (PlxGraphPage     *self,
                                        const PlxCluster *cluster);
const char *plx_graph_page_get_path (PlxGraphPage *self);
/* The controls, by name: "dp", "tp", "pp", "micro-batches", "chunks", and with the
 * split by hand "boundary-1", "boundary-2", ... (each stage's first op; GtkSpinButton),
 * "schedule", "optimizer", "fusion", "split" (GtkDropDown). */
GtkWidget  *plx_graph_page_get_control (PlxGraphPage *self,
                                        const char   *name);
/* What the labels say: the graph's facts, the run's numbers, the last error (NULL
 * when the program ran). */
const char *plx_graph_page_get_facts (PlxGraphPage *self);
/* The same facts as title, value pairs (NULL-terminated), or NULL before a graph
 * was read; "loaded" is emitted when they change. */
const char *const *plx_graph_page_get_fact_rows (PlxGraphPage *self);
const char *plx_graph_page_get_numbers (PlxGraphPage *self);
const char *plx_graph_page_get_error (PlxGraphPage *self);
/* The last run (report, timeline, memory), or NULL. */
PlxResult  *plx_graph_page_get_result (PlxGraphPage *self);
gboolean    plx_graph_page_is_busy (PlxGraphPage *self);
/* The forward ops coloured by stage (PlxPartitionView), on the "Partition" tab. */
GtkWidget  *plx_graph_page_get_partition_view (PlxGraphPage *self);
/* Charts drawn light or dark, as the window's. */
void        plx_graph_page_set_dark (PlxGraphPage *self,
                                     gboolean      dark);

G_END_DECLS
