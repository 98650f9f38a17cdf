#include <string.h>
#include <sys/stat.h>

#include <glib/gstdio.h>

#include "parallax/plx-error.h"
#include "base/plx-json.h"
#include "scenario/plx-hf-cache.h"

gboolean
plx_hf_is_repo_id (const char *s)
{
  guint slashes = 0;

  if (s == NULL || s[0] == '\0' || s[0] == '/' || s[0] == '.' || g_file_test (s, G_FILE_TEST_EXISTS))
    return FALSE;
  for (const char *p = s; *p != '\0'; p++)
    {
      if (*p == '/')
        {
          /* "org/name": one slash, with a part on each side. */
          if (++slashes > 1 || p == s || p[1] == '\0' || p[1] == '.')
            return FALSE;
        }
      else if (!g_ascii_isalnum (*p) && *p != '.' && *p != '_' && *p != '-')
        return FALSE;
    }
  return strstr (s, "..") == NULL && strlen (s) <= 200;
}

/* huggingface_hub's constants.py: HF_HUB_CACHE defaults to $HF_HOME/hub, HF_HOME to
 * $XDG_CACHE_HOME/huggingface, XDG_CACHE_HOME to ~/.cache (its "Manage the cache"
 * guide: the default is ~/.cache/huggingface/hub). */
char *
plx_hf_cache_dir (void)
{
  const char *hub = g_getenv ("HF_HUB_CACHE"), *home = g_getenv ("HF_HOME"), *xdg = g_getenv ("XDG_CACHE_HOME");

  if (hub != NULL && hub[0] != '\0')
    return g_strdup (hub);
  if (home != NULL && home[0] != '\0')
    return g_build_filename (home, "hub", NULL);
  if (xdg != NULL && xdg[0] != '\0')
    return g_build_filename (xdg, "huggingface", "hub", NULL);
  return g_build_filename (g_get_home_dir (), ".cache", "huggingface", "hub", NULL);
}

/* The newest snapshot directory under `snapshots` that holds a config.json. */
static char *
newest_snapshot (const char *snapshots)
{
  g_autoptr (GDir) dir = g_dir_open (snapshots, 0, NULL);
  g_autofree char *best = NULL;
  gint64 best_time = G_MININT64;
  const char *name;

  if (dir == NULL)
    return NULL;
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (snapshots, name, NULL);
      g_autofree char *config = g_build_filename (path, "config.json", NULL);
      GStatBuf st;

      if (g_stat (config, &st) != 0)
        continue;
      if ((gint64) st.st_mtime > best_time)
        {
          best_time = (gint64) st.st_mtime;
          g_free (best);
          best = g_steal_pointer (&path);
        }
    }
  return g_steal_pointer (&best);
}

char *
plx_hf_cache_snapshot (const char *repo_id,
                       GError    **error)
{
  g_autofree char *cache = plx_hf_cache_dir ();
  g_auto (GStrv) parts = g_strsplit (repo_id, "/", -1);
  g_autofree char *joined = g_strjoinv ("--", parts);
  g_autofree char *folder = g_strconcat ("models--", joined, NULL);
  g_autofree char *repo = g_build_filename (cache, folder, NULL);
  g_autofree char *ref_path = g_build_filename (repo, "refs", "main", NULL);
  g_autofree char *snapshots = g_build_filename (repo, "snapshots", NULL);
  g_autofree char *commit = NULL;
  char *found = NULL;

  GStatBuf st;

  /* refs/main holds the commit the last download of the main branch got: a line of
   * 40 hex digits, so anything large is not one. */
  if (g_stat (ref_path, &st) == 0 && S_ISREG (st.st_mode) && st.st_size < 4096 &&
      g_file_get_contents (ref_path, &commit, NULL, NULL))
    {
      g_strstrip (commit);
      if (commit[0] != '\0' && strchr (commit, '/') == NULL && strstr (commit, "..") == NULL)
        {
          g_autofree char *path = g_build_filename (snapshots, commit, NULL);
          g_autofree char *config = g_build_filename (path, "config.json", NULL);
          if (g_file_test (config, G_FILE_TEST_IS_REGULAR))
            return g_steal_pointer (&path);
        }
    }
  found = newest_snapshot (snapshots);
  if (found == NULL)
    g_set_error (error, PLX_ERROR, PLX_ERROR_NOT_FOUND,
                 "%s is not in the Hugging Face cache (no snapshot with a config.json under %s)", repo_id, snapshots);
  return found;
}

/* Bytes of one parameter stored as a config's torch_dtype. */
static double
dtype_bytes (const char *dtype)
{
  static const struct { const char *name; double bytes; } types[] = {
    { "bfloat16", 2.0 }, { "float16", 2.0 }, { "float32", 4.0 }, { "float64", 8.0 },
  };

  for (guint i = 0; dtype != NULL && i < G_N_ELEMENTS (types); i++)
    if (g_str_equal (dtype, types[i].name))
      return types[i].bytes;
  return 0.0;
}

/* metadata.total_size of the index at `path` (bytes; 0 when it has none). */
static double
read_total_size (const char *path)
{
  g_autoptr (JsonNode) index = plx_json_parse_file (path, NULL);
  JsonNode *meta, *size;

  if (index == NULL || !JSON_NODE_HOLDS_OBJECT (index))
    return 0.0;
  meta = json_object_get_member (json_node_get_object (index), "metadata");
  if (meta == NULL || !JSON_NODE_HOLDS_OBJECT (meta) ||
      (size = json_object_get_member (json_node_get_object (meta), "total_size")) == NULL || !JSON_NODE_HOLDS_VALUE (size))
    return 0.0;
  if (json_node_get_value_type (size) != G_TYPE_INT64 && json_node_get_value_type (size) != G_TYPE_DOUBLE)
    return 0.0;
  return MAX (json_node_get_double (size), 0.0);
}

/* The window resolves its scenario on every edit, and an index holds a weight_map of
 * every tensor (megabytes for a large MoE): its total size is read once per file as
 * it is on disk (path, size and modification time), from any thread. */
static double
index_total_size (const char *path)
{
  static GMutex lock;
  static char *cached_path;
  static gint64 cached_size = -1, cached_mtime;
  static double cached_total;
  GStatBuf st;
  double total;

  if (g_stat (path, &st) != 0 || !S_ISREG (st.st_mode))
    return 0.0;
  g_mutex_lock (&lock);
  if (cached_path != NULL && g_str_equal (cached_path, path) && cached_size == (gint64) st.st_size &&
      cached_mtime == (gint64) st.st_mtime)
    {
      total = cached_total;
      g_mutex_unlock (&lock);
      return total;
    }
  g_mutex_unlock (&lock);
  total = read_total_size (path);
  g_mutex_lock (&lock);
  g_free (cached_path);
  cached_path = g_strdup (path);
  cached_size = (gint64) st.st_size;
  cached_mtime = (gint64) st.st_mtime;
  cached_total = total;
  g_mutex_unlock (&lock);
  return total;
}

double
plx_hf_checkpoint_params (const char *snapshot_dir,
                          JsonNode   *config)
{
  g_autofree char *index_path = g_build_filename (snapshot_dir, "model.safetensors.index.json", NULL);
  JsonObject *c;
  JsonNode *dtype_node;
  const char *dtype = NULL;
  double bytes;

  if (config == NULL || !JSON_NODE_HOLDS_OBJECT (config))
    return 0.0;
  c = json_node_get_object (config);
  /* Newer transformers write "dtype", older "torch_dtype". */
  dtype_node = json_object_get_member (c, "torch_dtype");
  if (dtype_node == NULL)
    dtype_node = json_object_get_member (c, "dtype");
  if (dtype_node != NULL && JSON_NODE_HOLDS_VALUE (dtype_node) && json_node_get_value_type (dtype_node) == G_TYPE_STRING)
    dtype = json_node_get_string (dtype_node);
  bytes = dtype_bytes (dtype);
  if (bytes == 0.0 || json_object_has_member (c, "quantization_config"))
    return 0.0;
  return index_total_size (index_path) / bytes;
}
