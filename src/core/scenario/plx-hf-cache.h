/* Models as Hugging Face's tools keep them on disk: a hub id ("meta-llama/Llama-3.1-8B")
 * found in the local hub cache, and a snapshot's safetensors index, whose total size
 * confirms the parameter count. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* TRUE when s reads as a hub id: "org/name" or "name", letters, digits and . _ -
 * only, and not a path that exists. */
gboolean plx_hf_is_repo_id (const char *s);

/* The hub cache: $HF_HUB_CACHE, else $HF_HOME/hub, else
 * $XDG_CACHE_HOME/huggingface/hub, else ~/.cache/huggingface/hub. */
char    *plx_hf_cache_dir (void);

/* The snapshot directory of repo_id in the hub cache: the commit refs/main names,
 * else the newest snapshot holding a config.json. NULL with an error naming where it
 * looked when the model is not there. */
char    *plx_hf_cache_snapshot (const char *repo_id,
                                GError    **error);

/* The parameters a snapshot's model.safetensors.index.json holds: metadata.total_size
 * in bytes over the bytes of one parameter of torch_dtype (the config's). 0 when
 * the directory has no index, the dtype is not a plain float type or the weights are
 * quantized (quantization_config): nothing to confirm against. */
double   plx_hf_checkpoint_params (const char *snapshot_dir,
                                   JsonNode   *config);

G_END_DECLS
