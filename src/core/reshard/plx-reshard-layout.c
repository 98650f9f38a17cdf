/* Layouts for redistribution: the mesh and sharding notation (parse, format), and the
 * per-device shard size with padding. */
#include <string.h>

#include "parallax/plx-error.h"
#include "parallax/plx-reshard.h"

#define MESH_AXIS_MAX 65536u

static const char axis_names[PLX_MESH_MAX_AXES] = { 'x', 'y', 'z' };

guint
plx_mesh_n_devices (const PlxMesh *mesh)
{
  guint n = 1;

  for (guint a = 0; a < mesh->n_axes; a++)
    n *= mesh->size[a];
  return n;
}

guint
plx_mesh_stride (const PlxMesh *mesh,
                 guint          axis)
{
  guint s = 1;

  for (guint a = axis + 1; a < mesh->n_axes; a++)
    s *= mesh->size[a];
  return s;
}

guint
plx_mesh_coord (const PlxMesh *mesh,
                guint          device,
                guint          axis)
{
  return device / plx_mesh_stride (mesh, axis) % mesh->size[axis];
}

gboolean
plx_mesh_parse (const char *text,
                PlxMesh    *mesh,
                GError    **error)
{
  g_auto (GStrv) parts = NULL;
  guint n;

  memset (mesh, 0, sizeof *mesh);
  if (text == NULL || *text == '\0')
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE, "mesh '': empty, expected sizes like 8x8");
      return FALSE;
    }
  parts = g_strsplit (text, "x", -1);
  n = g_strv_length (parts);
  if (n > PLX_MESH_MAX_AXES)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                   "mesh '%s': %u axes, at most %u (x, y, z)", text, n, PLX_MESH_MAX_AXES);
      return FALSE;
    }
  for (guint a = 0; a < n; a++)
    {
      guint64 v = 0;

      if (!g_ascii_string_to_unsigned (parts[a], 10, 1, MESH_AXIS_MAX, &v, NULL))
        {
          g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                       "mesh '%s': axis %c size '%s' is not a whole number from 1 to %u",
                       text, axis_names[a], parts[a], MESH_AXIS_MAX);
          return FALSE;
        }
      mesh->size[a] = (guint) v;
    }
  mesh->n_axes = n;
  if ((guint64) mesh->size[0] * (n > 1 ? mesh->size[1] : 1) * (n > 2 ? mesh->size[2] : 1) > G_MAXINT32)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "mesh '%s': over 2^31 devices", text);
      return FALSE;
    }
  return TRUE;
}

char *
plx_mesh_format (const PlxMesh *mesh)
{
  GString *s = g_string_new (NULL);

  for (guint a = 0; a < mesh->n_axes; a++)
    g_string_append_printf (s, "%s%u", a ? "x" : "", mesh->size[a]);
  return g_string_free (s, FALSE);
}

static int
axis_of_name (char c, const PlxMesh *mesh)
{
  for (guint a = 0; a < mesh->n_axes; a++)
    if (axis_names[a] == c)
      return (int) a;
  return -1;
}

/* The axis letter `c` of sharding `text`, found where `where` says: its index, marked
 * in `used`; or -1 and an error when the mesh lacks it or it is used already. */
static int
take_axis (const char *text, char c, const char *where, const PlxMesh *mesh, gboolean *used, GError **error)
{
  int a = axis_of_name (c, mesh);

  if (a < 0)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                   "sharding '%s': '%c' %s is not an axis of a %u-axis mesh", text, c, where, mesh->n_axes);
      return -1;
    }
  if (used[a])
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT, "sharding '%s': axis %c is used twice", text, c);
      return -1;
    }
  used[a] = TRUE;
  return a;
}

/* The axis letters after a sharding's '+', marked in `mask`. */
static gboolean
parse_partial (const char *text, const char *letters, const PlxMesh *mesh, gboolean *used,
               guint *mask, GError **error)
{
  if (*letters == '\0')
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE,
                   "sharding '%s': '+' names no axis, write e.g. [x,-]+y for a partial sum over y", text);
      return FALSE;
    }
  for (const char *c = letters; *c; c++)
    {
      int a = take_axis (text, *c, "after +", mesh, used, error);

      if (a < 0)
        return FALSE;
      *mask |= 1u << a;
    }
  return TRUE;
}

gboolean
plx_sharding_parse (const char    *text,
                    const PlxMesh *mesh,
                    guint          rank,
                    PlxSharding   *sharding,
                    GError       **error)
{
  g_autofree char *inner = NULL;
  g_auto (GStrv) entries = NULL;
  gboolean used[PLX_MESH_MAX_AXES] = { FALSE };
  const char *close, *plus;
  size_t len;
  guint n;

  memset (sharding, 0, sizeof *sharding);
  close = text ? strrchr (text, ']') : NULL;
  plus = close ? close + 1 : NULL;
  len = close ? (size_t) (close - text) + 1 : 0;
  if (len < 2 || text[0] != '[' || (*plus != '\0' && *plus != '+'))
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE,
                   "sharding '%s': expected one entry per dimension in brackets, like [x,-] "
                   "(and +y for a partial sum over y)",
                   text ? text : "");
      return FALSE;
    }
  if (rank == 0 || rank > PLX_RESHARD_MAX_RANK)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                   "sharding '%s': array rank %u, expected 1 to %u", text, rank, PLX_RESHARD_MAX_RANK);
      return FALSE;
    }
  inner = g_strndup (text + 1, len - 2);
  if (strchr (inner, '[') != NULL || strchr (inner, ']') != NULL)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE,
                   "sharding '%s': one pair of brackets, like [x,-]", text);
      return FALSE;
    }
  entries = g_strsplit (inner, ",", -1);
  n = g_strv_length (entries);
  if (n != rank)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT,
                   "sharding '%s': %u entries for an array of rank %u", text, n, rank);
      return FALSE;
    }
  sharding->rank = rank;
  for (guint d = 0; d < rank; d++)
    {
      const char *e = g_strstrip (entries[d]);

      if (strcmp (e, "-") == 0)
        continue;
      if (*e == '\0')
        {
          g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE,
                       "sharding '%s': dimension %u is empty, write - for not split", text, d);
          return FALSE;
        }
      for (const char *c = e; *c; c++)
        {
          g_autofree char *where = g_strdup_printf ("in dimension %u", d);
          int a = take_axis (text, *c, where, mesh, used, error);

          if (a < 0)
            return FALSE;
          sharding->axes[d][sharding->n_axes[d]++] = (guint) a;
        }
    }
  if (*plus == '+' && !parse_partial (text, plus + 1, mesh, used, &sharding->partial, error))
    return FALSE;
  return TRUE;
}

char *
plx_sharding_format (const PlxSharding *sharding)
{
  GString *s = g_string_new ("[");

  for (guint d = 0; d < sharding->rank; d++)
    {
      if (d)
        g_string_append_c (s, ',');
      if (sharding->n_axes[d] == 0)
        g_string_append_c (s, '-');
      for (guint i = 0; i < sharding->n_axes[d]; i++)
        g_string_append_c (s, axis_names[sharding->axes[d][i]]);
    }
  g_string_append_c (s, ']');
  for (guint a = 0; a < PLX_MESH_MAX_AXES; a++)
    if (sharding->partial & (1u << a))
      g_string_append_printf (s, "%s%c", (sharding->partial & ((1u << a) - 1)) ? "" : "+", axis_names[a]);
  return g_string_free (s, FALSE);
}

gboolean
plx_sharding_equal (const PlxSharding *a,
                    const PlxSharding *b)
{
  if (a->rank != b->rank || a->partial != b->partial)
    return FALSE;
  for (guint d = 0; d < a->rank; d++)
    {
      if (a->n_axes[d] != b->n_axes[d])
        return FALSE;
      for (guint i = 0; i < a->n_axes[d]; i++)
        if (a->axes[d][i] != b->axes[d][i])
          return FALSE;
    }
  return TRUE;
}

guint
plx_sharding_dim_shards (const PlxSharding *sharding,
                         const PlxMesh     *mesh,
                         guint              dim)
{
  guint n = 1;

  for (guint i = 0; i < sharding->n_axes[dim]; i++)
    n *= mesh->size[sharding->axes[dim][i]];
  return n;
}

double
plx_reshard_shard_bytes (const PlxReshardPlan *plan,
                         const PlxSharding    *sharding)
{
  double bytes = plan->shape.elem_bytes;

  for (guint d = 0; d < plan->shape.rank; d++)
    bytes *= (double) (plan->padded[d] / plx_sharding_dim_shards (sharding, &plan->mesh, d));
  return bytes;
}

const char *
plx_reshard_op_name (PlxReshardOp op)
{
  switch (op)
    {
    case PLX_RESHARD_ALL_GATHER:
      return "all-gather";
    case PLX_RESHARD_ALL_TO_ALL:
      return "all-to-all";
    case PLX_RESHARD_SLICE:
      return "dynamic-slice";
    case PLX_RESHARD_PERMUTE:
      return "collective-permute";
    case PLX_RESHARD_REDUCE_SCATTER:
      return "reduce-scatter";
    case PLX_RESHARD_ALL_REDUCE:
      return "all-reduce";
    case PLX_RESHARD_N_OPS:
    default:
      g_return_val_if_reached ("?");
    }
}

/* Who sends to `receiver` in a permute of dimension `dim` from `before` to
 * st->after: the device with the receiver's coordinates on every other axis whose
 * block of `dim` under `before` is the receiver's under `after`. It holds, whole,
 * the shard the receiver needs (the other dimensions' blocks are the receiver's),
 * and it differs from the receiver only on the reordered axes. The planner prices
 * these pairs and the lowering sends along them. The executor (run_permute) may take another
 * holder of that shard, the lowest-numbered, on a replicated axis; the data is
 * the same. */
guint
plx_reshard_permute_sender (const PlxMesh     *mesh,
                            const PlxSharding *before,
                            const PlxSharding *after,
                            guint              dim,
                            guint              receiver)
{
  guint64 block = 0;
  guint sender = receiver;

  /* The receiver's block of dim under the new order: mixed radix, first axis most
   * significant (block_index in plx-reshard-exec.c). */
  for (guint i = 0; i < after->n_axes[dim]; i++)
    block = block * mesh->size[after->axes[dim][i]] + plx_mesh_coord (mesh, receiver, after->axes[dim][i]);
  /* Read back in the old order, least significant axis last. */
  for (gint i = (gint) before->n_axes[dim] - 1; i >= 0; i--)
    {
      guint a = before->axes[dim][i];
      guint want = (guint) (block % mesh->size[a]);

      block /= mesh->size[a];
      sender = sender - plx_mesh_coord (mesh, sender, a) * plx_mesh_stride (mesh, a) + want * plx_mesh_stride (mesh, a);
    }
  return sender;
}
