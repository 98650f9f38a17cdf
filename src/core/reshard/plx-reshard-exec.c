/* The SPMD mini-executor behind plx_reshard_verify: one buffer per simulated device,
 * each step applied by moving real elements between buffers the way the collective
 * does, checked after every step against the shard the step's layout prescribes. */
#include <string.h>

#include "parallax/plx-error.h"
#include "parallax/plx-reshard.h"

#define MAX_ELEMENTS (G_GUINT64_CONSTANT (1) << 22)
#define MAX_ELEMENTS_ALL_DEVICES (G_GUINT64_CONSTANT (1) << 24)
#define PADDING (-1)

typedef struct
{
  guint64 ext[PLX_RESHARD_MAX_RANK];
  gint64 *data;
} Buffer;

typedef struct
{
  const PlxReshardPlan *plan;
  guint                 n_dev;
  guint                 rank;
  Buffer               *buf;
} Machine;

static guint64
box_elements (const guint64 *ext, guint rank)
{
  guint64 n = 1;

  for (guint d = 0; d < rank; d++)
    n *= ext[d];
  return n;
}

static guint
with_coord (const PlxMesh *mesh, guint dev, guint axis, guint value)
{
  guint stride = plx_mesh_stride (mesh, axis);

  return dev - plx_mesh_coord (mesh, dev, axis) * stride + value * stride;
}

/* The block of dim `d` a device holds: mixed radix over the dim's axes, first axis
 * most significant. */
static guint64
block_index (const PlxMesh *mesh, const PlxSharding *s, guint dev, guint d)
{
  guint64 idx = 0;

  for (guint i = 0; i < s->n_axes[d]; i++)
    idx = idx * mesh->size[s->axes[d][i]] + plx_mesh_coord (mesh, dev, s->axes[d][i]);
  return idx;
}

static void
local_extents (const PlxReshardPlan *plan, const PlxSharding *s, guint64 *ext)
{
  for (guint d = 0; d < plan->shape.rank; d++)
    ext[d] = plan->padded[d] / plx_sharding_dim_shards (s, &plan->mesh, d);
}

/* Copies the box of extents `box` at `src_off` in `src` to `dst_off` in `dst`, both
 * row-major. */
static void
copy_box (const Buffer *src, const guint64 *src_off, Buffer *dst, const guint64 *dst_off,
          const guint64 *box, guint rank)
{
  guint64 idx[PLX_RESHARD_MAX_RANK] = { 0 };
  guint64 n = box_elements (box, rank);

  for (guint64 e = 0; e < n; e++)
    {
      guint64 si = 0, di = 0;

      for (guint d = 0; d < rank; d++)
        {
          si = si * src->ext[d] + src_off[d] + idx[d];
          di = di * dst->ext[d] + dst_off[d] + idx[d];
        }
      dst->data[di] = src->data[si];
      for (gint d = (gint) rank - 1; d >= 0; d--)
        {
          if (++idx[d] < box[d])
            break;
          idx[d] = 0;
        }
    }
}

/* What a device must hold under `s`: element value = its linear index in the
 * unpadded global array, PADDING where the padded extent runs past the array. */
static Buffer
expected_shard (const PlxReshardPlan *plan, const PlxSharding *s, guint dev)
{
  guint rank = plan->shape.rank;
  Buffer b;
  guint64 idx[PLX_RESHARD_MAX_RANK] = { 0 }, base[PLX_RESHARD_MAX_RANK], n;

  local_extents (plan, s, b.ext);
  n = box_elements (b.ext, rank);
  b.data = g_new (gint64, n);
  for (guint d = 0; d < rank; d++)
    base[d] = block_index (&plan->mesh, s, dev, d) * b.ext[d];
  for (guint64 e = 0; e < n; e++)
    {
      gint64 v = 0;

      for (guint d = 0; d < rank && v >= 0; d++)
        {
          guint64 g = base[d] + idx[d];

          v = g < plan->shape.dim[d] ? v * (gint64) plan->shape.dim[d] + (gint64) g : PADDING;
        }
      b.data[e] = v;
      for (gint d = (gint) rank - 1; d >= 0; d--)
        {
          if (++idx[d] < b.ext[d])
            break;
          idx[d] = 0;
        }
    }
  return b;
}

/* The device's index among those that share its partial sums: mixed radix over the
 * partial axes, and how many share them. */
static guint
partial_index (const PlxMesh *mesh, guint partial, guint dev, guint *count)
{
  guint idx = 0, n = 1;

  for (guint a = 0; a < mesh->n_axes; a++)
    if (partial & (1u << a))
      {
        idx = idx * mesh->size[a] + plx_mesh_coord (mesh, dev, a);
        n *= mesh->size[a];
      }
  if (count != NULL)
    *count = n;
  return idx;
}

/* Part `c` of `n` of value v: small pseudo-random numbers, the last part what makes
 * them add up to v, so a sum that drops or repeats a part is caught. */
static gint64
part_of (gint64 v, guint c, guint n)
{
  gint64 rest = v;

  for (guint i = 0; i + 1 < n; i++)
    {
      gint64 p = (gint64) (((guint64) (v + 7) * 2654435761u + i * 40503u) % 1021u) - 510;

      if (i == c)
        return p;
      rest -= p;
    }
  return rest;
}

/* The source as the plan starts from it: each device's expected shard, split into
 * parts over the source's partial axes. */
static Buffer
source_shard (const PlxReshardPlan *plan, guint dev)
{
  Buffer b = expected_shard (plan, &plan->source, dev);
  guint n, c = partial_index (&plan->mesh, plan->source.partial, dev, &n);

  if (n > 1)
    for (guint64 e = 0; e < box_elements (b.ext, plan->shape.rank); e++)
      b.data[e] = part_of (b.data[e], c, n);
  return b;
}

static Buffer
buffer_new (const guint64 *ext, guint rank)
{
  Buffer b;

  memcpy (b.ext, ext, sizeof b.ext);
  b.data = g_new (gint64, box_elements (ext, rank));
  return b;
}

static void
replace_all (Machine *m, Buffer *next)
{
  for (guint dev = 0; dev < m->n_dev; dev++)
    {
      g_free (m->buf[dev].data);
      m->buf[dev] = next[dev];
    }
  g_free (next);
}

static void
run_gather (Machine *m, const PlxReshardStep *st)
{
  const PlxMesh *mesh = &m->plan->mesh;
  guint s = mesh->size[st->axis];
  Buffer *next = g_new (Buffer, m->n_dev);

  for (guint dev = 0; dev < m->n_dev; dev++)
    {
      guint64 ext[PLX_RESHARD_MAX_RANK], zero[PLX_RESHARD_MAX_RANK] = { 0 }, off[PLX_RESHARD_MAX_RANK] = { 0 };

      memcpy (ext, m->buf[dev].ext, sizeof ext);
      ext[st->dim] *= s;
      next[dev] = buffer_new (ext, m->rank);
      /* Concatenate along the dim in the order of the axis coordinate. */
      for (guint j = 0; j < s; j++)
        {
          const Buffer *peer = &m->buf[with_coord (mesh, dev, st->axis, j)];

          off[st->dim] = j * peer->ext[st->dim];
          copy_box (peer, zero, &next[dev], off, peer->ext, m->rank);
        }
    }
  replace_all (m, next);
}

static void
run_all_to_all (Machine *m, const PlxReshardStep *st)
{
  const PlxMesh *mesh = &m->plan->mesh;
  guint s = mesh->size[st->axis];
  Buffer *next = g_new (Buffer, m->n_dev);

  for (guint dev = 0; dev < m->n_dev; dev++)
    {
      guint c = plx_mesh_coord (mesh, dev, st->axis);
      guint64 ext[PLX_RESHARD_MAX_RANK], box[PLX_RESHARD_MAX_RANK];

      memcpy (ext, m->buf[dev].ext, sizeof ext);
      ext[st->dim] *= s;
      ext[st->to_dim] /= s;
      next[dev] = buffer_new (ext, m->rank);
      /* Sender j cuts its buffer into s blocks along to_dim and sends block c here;
       * the blocks land side by side along dim in the order of j. */
      for (guint j = 0; j < s; j++)
        {
          const Buffer *peer = &m->buf[with_coord (mesh, dev, st->axis, j)];
          guint64 src_off[PLX_RESHARD_MAX_RANK] = { 0 }, dst_off[PLX_RESHARD_MAX_RANK] = { 0 };

          memcpy (box, peer->ext, sizeof box);
          box[st->to_dim] /= s;
          src_off[st->to_dim] = c * box[st->to_dim];
          dst_off[st->dim] = j * box[st->dim];
          copy_box (peer, src_off, &next[dev], dst_off, box, m->rank);
        }
    }
  replace_all (m, next);
}

static void
run_slice (Machine *m, const PlxReshardStep *st)
{
  guint s = m->plan->mesh.size[st->axis];
  Buffer *next = g_new (Buffer, m->n_dev);

  for (guint dev = 0; dev < m->n_dev; dev++)
    {
      guint64 ext[PLX_RESHARD_MAX_RANK], src_off[PLX_RESHARD_MAX_RANK] = { 0 }, zero[PLX_RESHARD_MAX_RANK] = { 0 };

      memcpy (ext, m->buf[dev].ext, sizeof ext);
      ext[st->dim] /= s;
      next[dev] = buffer_new (ext, m->rank);
      src_off[st->dim] = plx_mesh_coord (&m->plan->mesh, dev, st->axis) * ext[st->dim];
      copy_box (&m->buf[dev], src_off, &next[dev], zero, ext, m->rank);
    }
  replace_all (m, next);
}

/* Sums the buffers of the group along the partial `axis` (devices that differ only
 * in its coordinate); with `scatter`, device c keeps block c of the sum along `dim`. */
static void
run_reduce (Machine *m, const PlxReshardStep *st, gboolean scatter)
{
  const PlxMesh *mesh = &m->plan->mesh;
  guint s = mesh->size[st->axis];
  Buffer *next = g_new (Buffer, m->n_dev);

  for (guint dev = 0; dev < m->n_dev; dev++)
    {
      guint64 ext[PLX_RESHARD_MAX_RANK], off[PLX_RESHARD_MAX_RANK] = { 0 }, zero[PLX_RESHARD_MAX_RANK] = { 0 };
      Buffer sum = buffer_new (m->buf[dev].ext, m->rank);
      guint64 n = box_elements (sum.ext, m->rank);

      memset (sum.data, 0, n * sizeof (gint64));
      for (guint j = 0; j < s; j++)
        {
          const Buffer *peer = &m->buf[with_coord (mesh, dev, st->axis, j)];

          for (guint64 e = 0; e < n; e++)
            sum.data[e] += peer->data[e];
        }
      if (!scatter)
        {
          next[dev] = sum;
          continue;
        }
      memcpy (ext, sum.ext, sizeof ext);
      ext[st->dim] /= s;
      next[dev] = buffer_new (ext, m->rank);
      off[st->dim] = plx_mesh_coord (mesh, dev, st->axis) * ext[st->dim];
      copy_box (&sum, off, &next[dev], zero, ext, m->rank);
      g_free (sum.data);
    }
  replace_all (m, next);
}

static gboolean
run_permute (Machine *m, const PlxSharding *before, const PlxReshardStep *st, GError **error)
{
  const PlxMesh *mesh = &m->plan->mesh;
  Buffer *next = g_new (Buffer, m->n_dev);

  for (guint dev = 0; dev < m->n_dev; dev++)
    {
      guint from = G_MAXUINT;
      guint64 zero[PLX_RESHARD_MAX_RANK] = { 0 };

      /* The sender is a device that holds, under the old layout, the blocks this
       * one must hold under the new - and the same part of a partial sum. */
      for (guint src = 0; src < m->n_dev && from == G_MAXUINT; src++)
        {
          gboolean same = partial_index (mesh, before->partial, src, NULL) ==
                          partial_index (mesh, before->partial, dev, NULL);

          for (guint d = 0; d < m->rank && same; d++)
            same = block_index (mesh, before, src, d) == block_index (mesh, &st->after, dev, d);
          if (same)
            from = src;
        }
      if (from == G_MAXUINT)
        {
          for (guint d = 0; d < dev; d++)
            g_free (next[d].data);
          g_free (next);
          g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT,
                       "collective-permute: no device holds device %u's new shard", dev);
          return FALSE;
        }
      next[dev] = buffer_new (m->buf[from].ext, m->rank);
      copy_box (&m->buf[from], zero, &next[dev], zero, m->buf[from].ext, m->rank);
    }
  replace_all (m, next);
  return TRUE;
}

/* Each device holds its shard of `s`, `bytes` of it; where `s` has partial sums,
 * the buffers of the devices that share them add up to the shard. */
static gboolean
check_layout (Machine *m, const PlxSharding *s, double bytes, const char *when, GError **error)
{
  const PlxMesh *mesh = &m->plan->mesh;

  for (guint dev = 0; dev < m->n_dev; dev++)
    {
      Buffer want = expected_shard (m->plan, s, dev);
      guint64 n = box_elements (want.ext, m->rank);
      gboolean same = (double) n * m->plan->shape.elem_bytes == bytes;
      guint first = dev;

      /* The partial group: devices that differ from this one only on partial axes;
       * checked once, from its first member. */
      for (guint a = 0; a < mesh->n_axes; a++)
        if (s->partial & (1u << a))
          first = with_coord (mesh, first, a, 0);
      for (guint peer = 0; same && peer < m->n_dev; peer++)
        {
          guint base = peer;

          for (guint a = 0; a < mesh->n_axes; a++)
            if (s->partial & (1u << a))
              base = with_coord (mesh, base, a, 0);
          if (base == first)
            same = box_elements (m->buf[peer].ext, m->rank) == n;
        }
      if (same && first == dev)
        {
          gint64 *sum = g_new0 (gint64, n);

          for (guint peer = 0; peer < m->n_dev; peer++)
            {
              guint base = peer;

              for (guint a = 0; a < mesh->n_axes; a++)
                if (s->partial & (1u << a))
                  base = with_coord (mesh, base, a, 0);
              if (base == first)
                for (guint64 e = 0; e < n; e++)
                  sum[e] += m->buf[peer].data[e];
            }
          same = memcmp (want.data, sum, n * sizeof (gint64)) == 0;
          g_free (sum);
        }
      g_free (want.data);
      if (!same)
        {
          g_autofree char *layout = plx_sharding_format (s);

          g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT,
                       "%s: device %u does not hold its %s of %s (%.0f bytes per the plan)",
                       when, dev, s->partial ? "part of the sum" : "shard", layout, bytes);
          return FALSE;
        }
    }
  return TRUE;
}

gboolean
plx_reshard_verify (const PlxReshardPlan *plan,
                    GError              **error)
{
  Machine m = { .plan = plan, .n_dev = plx_mesh_n_devices (&plan->mesh), .rank = plan->shape.rank };
  double total = 1.0;
  PlxSharding cur = plan->source;
  gboolean ok;

  /* In doubles: four extents of up to 2^40 overflow 64 bits. */
  for (guint d = 0; d < plan->shape.rank; d++)
    total *= (double) plan->padded[d];
  if (total > (double) MAX_ELEMENTS || total * m.n_dev > (double) MAX_ELEMENTS_ALL_DEVICES)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                   "verify: %.0f padded elements on %u devices, the executor takes "
                   "at most 2^22 and 2^24 over all devices", total, m.n_dev);
      return FALSE;
    }
  m.buf = g_new (Buffer, m.n_dev);
  for (guint dev = 0; dev < m.n_dev; dev++)
    m.buf[dev] = source_shard (plan, dev);
  ok = TRUE;
  for (guint i = 0; ok && i < plan->steps->len; i++)
    {
      const PlxReshardStep *st = &g_array_index (plan->steps, PlxReshardStep, i);
      g_autofree char *when = g_strdup_printf ("step %u (%s)", i + 1, plx_reshard_op_name (st->op));

      switch (st->op)
        {
        case PLX_RESHARD_ALL_GATHER:
          run_gather (&m, st);
          break;
        case PLX_RESHARD_ALL_TO_ALL:
          run_all_to_all (&m, st);
          break;
        case PLX_RESHARD_SLICE:
          run_slice (&m, st);
          break;
        case PLX_RESHARD_PERMUTE:
          ok = run_permute (&m, &cur, st, error);
          break;
        case PLX_RESHARD_REDUCE_SCATTER:
          run_reduce (&m, st, TRUE);
          break;
        case PLX_RESHARD_ALL_REDUCE:
          run_reduce (&m, st, FALSE);
          break;
        case PLX_RESHARD_N_OPS:
        default:
          g_assert_not_reached ();
        }
      ok = ok && check_layout (&m, &st->after, st->out_bytes, when, error);
      cur = st->after;
    }
  if (ok && !plx_sharding_equal (&cur, &plan->target))
    {
      g_autofree char *got = plx_sharding_format (&cur);
      g_autofree char *want = plx_sharding_format (&plan->target);

      g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT, "the plan ends at %s, not %s", got, want);
      ok = FALSE;
    }
  ok = ok && check_layout (&m, &plan->target, plx_reshard_shard_bytes (plan, &plan->target), "end", error);
  for (guint dev = 0; dev < m.n_dev; dev++)
    g_free (m.buf[dev].data);
  g_free (m.buf);
  return ok;
}
