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
  size_t len;
  guint n;

  memset (sharding, 0, sizeof *sharding);
  len = text ? strlen (text) : 0;
  if (len < 2 || text[0] != '[' || text[len - 1] != ']')
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE,
                   "sharding '%s': expected one entry per dimension in brackets, like [x,-]",
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
          int a = axis_of_name (*c, mesh);

          if (a < 0)
            {
              g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                           "sharding '%s': '%c' in dimension %u is not an axis of a %u-axis mesh",
                           text, *c, d, mesh->n_axes);
              return FALSE;
            }
          if (used[a])
            {
              g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT,
                           "sharding '%s': axis %c is used twice", text, *c);
              return FALSE;
            }
          used[a] = TRUE;
          sharding->axes[d][sharding->n_axes[d]++] = (guint) a;
        }
    }
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
  return g_string_free (s, FALSE);
}

gboolean
plx_sharding_equal (const PlxSharding *a,
                    const PlxSharding *b)
{
  if (a->rank != b->rank)
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
    default:
      g_return_val_if_reached ("?");
    }
}
