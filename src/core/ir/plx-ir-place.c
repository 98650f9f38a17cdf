/* Model parallelism without a pipeline (docs/partition.md, "Devices"): a training
 * graph's ops placed on devices by their forward op, with a send wherever a tensor
 * is read away from where it was made. Tavarageri et al. 2019 §3 split the training
 * graph over devices this way; independent branches then run at once. */
#include <string.h>

#include "parallax/plx-error.h"
#include "ir/plx-ir.h"

PlxIrGraph *
plx_ir_place (const PlxIrGraph *training,
              const guint      *device,
              guint             n_devices,
              const char       *source,
              GError          **error)
{
  guint n_ops = training->ops->len, n_t = training->tensors->len, n_fwd = 0;
  g_autoptr (PlxIrGraph) out = NULL;
  g_autoptr (GHashTable) names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (GHashTable) copies = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  g_autofree guint *where = g_new (guint, MAX (n_t, 1u));   /* the device a made tensor is on */
  g_autofree guint *in = NULL;

  for (guint i = 0; i < n_ops; i++)
    {
      const PlxIrOp *op = training->ops->pdata[i];
      if (op->phase == PLX_IR_PHASE_FORWARD)
        n_fwd = MAX (n_fwd, (guint) MAX (op->origin, 0) + 1);
    }
  if (n_devices == 0)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "%s: no devices to place %u ops on", source, n_ops);
      return NULL;
    }
  for (guint i = 0; i < n_fwd; i++)
    if (device[i] >= n_devices)
      {
        g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "%s: forward op %u (%s) placed on device %u, but "
                     "there are %u", source, i, ((PlxIrOp *) training->ops->pdata[i])->name, device[i], n_devices);
        return NULL;
      }
  out = plx_ir_graph_new (n_devices);
  out->overlap_slowdown = training->overlap_slowdown;
  for (guint i = 2; i < training->streams->len; i++)
    plx_ir_graph_stream (out, training->streams->pdata[i]);
  /* Tensors keep their indices; the copies sent elsewhere come after them. */
  for (guint t = 0; t < n_t; t++)
    {
      const PlxIrTensor *x = training->tensors->pdata[t];
      plx_ir_graph_add_tensor (out, x->name, x->rank, x->shape, x->dtype, x->role);
      g_hash_table_insert (names, g_strdup (x->name), NULL);
    }
  for (guint i = 0; i < n_ops; i++)
    g_hash_table_insert (names, g_strdup (((PlxIrOp *) training->ops->pdata[i])->name), NULL);

  for (guint i = 0; i < n_ops; i++)
    {
      const PlxIrOp *op = training->ops->pdata[i];
      guint dev = op->origin >= 0 && (guint) op->origin < n_fwd ? device[op->origin] : 0u;

      in = g_renew (guint, in, op->n_inputs + 1);
      for (guint j = 0; j < op->n_inputs; j++)
        {
          guint t = op->inputs[j];
          const PlxIrTensor *x = training->tensors->pdata[t];
          gint64 key;
          gpointer copy;

          in[j] = t;
          /* Graph inputs (weights, data) are held wherever they are read. */
          if (x->producer < 0 || where[t] == dev)
            continue;
          key = (gint64) t * n_devices + dev;
          copy = g_hash_table_lookup (copies, &key);
          if (copy == NULL)
            {
              g_autofree char *cname = g_strdup_printf ("%s@%u", x->name, dev);
              g_autofree char *sname = g_strdup_printf ("send:%s@%u", x->name, dev);
              const char *tn = plx_ir_unique_name (names, cname);
              guint c = plx_ir_graph_add_tensor (out, tn, x->rank, x->shape, x->dtype, PLX_IR_ROLE_DATA);
              PlxIrOp *send = plx_ir_graph_add_op (out, plx_ir_unique_name (names, sname), PLX_IR_SEND, &t, 1, &c, 1,
                                                   &where[t], 1);
              send->peers = g_new (guint, 1);
              send->peers[0] = dev;
              send->phase = op->phase;
              send->origin = op->origin;
              g_hash_table_insert (copies, g_memdup2 (&key, sizeof key), GUINT_TO_POINTER (c + 1));
              copy = GUINT_TO_POINTER (c + 1);
            }
          in[j] = GPOINTER_TO_UINT (copy) - 1;
        }
      plx_ir_graph_add_op_like (out, op, in, op->outputs, &dev, 1);
      for (guint j = 0; j < op->n_outputs; j++)
        where[op->outputs[j]] = dev;
    }
  return g_steal_pointer (&out);
}
