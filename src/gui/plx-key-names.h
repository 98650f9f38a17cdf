/* plx-key-names.h: the window's words for the scenario's JSON keys. Errors from the
 * core name keys as a file has them ("strategy.tp", "cluster.gpu.hbm_bytes",
 * "model.n_embd"), which is right for the CLI and its files; the window shows the
 * labels of its own controls instead ("Tensor parallel", "HBM capacity"). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The label of the control for `key` (a strategy key, a cluster path such as
 * "gpu.hbm_bytes", or a model key), translated; NULL if the window has none. */
const char *plx_key_label (const char *key);
/* `message` with every key it names written as its label: "strategy.tp: 3 does not
 * divide ..." becomes "Tensor parallel: 3 does not divide ...". */
char       *plx_key_names_humanize (const char *message);

G_END_DECLS
