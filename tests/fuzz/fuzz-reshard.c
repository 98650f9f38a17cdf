/* A redistribution from text: four lines, the mesh ("2x3x2"), the array's shape
 * ("5x7x3"), the source and the target layout ("[x,-,yz]", "[-,zx,y]+"). Whatever
 * they say: a plan or a PLX_ERROR. A plan keeps every layout within its bound, runs
 * through the SPMD executor when small enough to, and lowers into a program the IR's
 * checker accepts. */
#include "fuzz-common.h"
#include "ir/plx-ir.h"
#include "reshard/plx-reshard-ir.h"

#define MAX_VERIFIED_ELEMENTS 4096u

static gboolean
parse_shape (const char *text, PlxArrayShape *shape)
{
  gchar **parts = g_strsplit (text, "x", -1);
  guint n = g_strv_length (parts);
  gboolean ok = n >= 1 && n <= PLX_RESHARD_MAX_RANK;

  shape->rank = n;
  shape->elem_bytes = 2;
  for (guint i = 0; ok && i < n; i++)
    {
      guint64 v = 0;

      ok = g_ascii_string_to_unsigned (parts[i], 10, 1, G_GUINT64_CONSTANT (1) << 40, &v, NULL);
      shape->dim[i] = v;
    }
  g_strfreev (parts);
  return ok;
}

/* Any plan, the synthesised or the baseline: right when run, and a valid program. */
static void
check_plan (const PlxReshardPlan *p)
{
  double elements = 1.0;
  GError *error = NULL;
  PlxIrGraph *g;

  for (guint d = 0; d < p->shape.rank; d++)
    elements *= (double) p->padded[d];
  if (elements <= MAX_VERIFIED_ELEMENTS && plx_mesh_n_devices (&p->mesh) <= 64 && !plx_reshard_verify (p, &error))
    abort ();
  fuzz_check_error (error);
  g = plx_reshard_plan_to_graph (p, &error);
  fuzz_check_error (error);
  if (g != NULL)
    {
      if (!plx_ir_graph_check (g, "fuzz", &error))
        abort ();
      plx_ir_graph_free (g);
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  static PlxCluster *cluster;
  gchar *text, **lines;
  PlxMesh mesh;
  PlxArrayShape shape = { 0 };
  PlxSharding from, to;
  GError *error = NULL;

  if (size > 4096)
    return 0;
  if (cluster == NULL)
    {
      cluster = plx_cluster_new_preset ("dgx-a100-80gb", NULL);
      cluster->num_nodes = 8;
    }
  text = g_strndup ((const char *) data, size);
  lines = g_strsplit (text, "\n", 5);
  if (g_strv_length (lines) >= 4 && plx_mesh_parse (lines[0], &mesh, &error) && parse_shape (lines[1], &shape) &&
      plx_sharding_parse (lines[2], &mesh, shape.rank, &from, &error) &&
      plx_sharding_parse (lines[3], &mesh, shape.rank, &to, &error))
    {
      PlxReshardPlan *p = plx_reshard_plan (cluster, &mesh, &shape, &from, &to, &error);
      PlxReshardPlan *b;

      fuzz_check_error (error);
      error = NULL;
      b = plx_reshard_plan_baseline (cluster, &mesh, &shape, &from, &to, &error);
      fuzz_check_error (error);
      error = NULL;
      if (p != NULL)
        {
          /* The plan's every layout within the bound, so no step holds over twice it. */
          for (guint i = 0; i < p->steps->len; i++)
            if (plx_reshard_shard_bytes (p, &g_array_index (p->steps, PlxReshardStep, i).after) > p->bound_bytes)
              abort ();
          check_plan (p);
          plx_reshard_plan_free (p);
        }
      if (b != NULL)
        {
          check_plan (b);
          plx_reshard_plan_free (b);
        }
    }
  fuzz_check_error (error);
  g_strfreev (lines);
  g_free (text);
  return 0;
}
