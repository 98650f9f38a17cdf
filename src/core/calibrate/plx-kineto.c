/* plx-kineto.c: reading a PyTorch profiler trace: kernels, the CPU ops that launched
 * them, and what each op computes (docs/calibration.md "From a profiler trace"). */
#include <errno.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>

#include <glib/gstdio.h>

#include "base/plx-input.h"
#include "parallax/plx-error.h"
#include "base/plx-json.h"
#include "calibrate/plx-kineto.h"

#include "base/plx-gunzip.h"
#include "plx-kineto-classify.h"

/* A training step's trace is 10-50 MB; json-glib's tree takes about ten times the
 * file's size in memory, so a 100 MB file already needs a gigabyte. */
#define MAX_TRACE_BYTES (100 * 1024 * 1024)

typedef struct
{
  guint   thread;       /* interned "pid/tid" */
  double  start_us;
  double  end_us;
  gint    op;           /* index into ops_all, or -1 for a runtime launch */
  gint64  correlation;
} Span;

typedef struct
{
  JsonObject *event;
  guint       index;
} CpuOp;

static const char *const class_names[PLX_N_KERNEL_CLASSES] = { "gemm", "attention", "memory", "collective", "other" };

const char *
plx_kernel_class_to_string (PlxKernelClass kclass)
{
  return kclass < PLX_N_KERNEL_CLASSES ? class_names[kclass] : "?";
}

static void
kernel_clear (gpointer p)
{
  PlxKernel *k = p;
  g_free (k->name);
  g_free (k->collective);
}

static void
op_clear (gpointer p)
{
  g_free (((PlxKinetoOp *) p)->name);
}

void
plx_kineto_trace_free (PlxKinetoTrace *trace)
{
  if (trace == NULL)
    return;
  g_free (trace->source);
  g_array_unref (trace->kernels);
  g_array_unref (trace->ops);
  g_free (trace);
}

/* pid and tid are numbers or strings ("Spans"): one key for both. */
static guint
thread_of (JsonObject *e, GHashTable *threads)
{
  g_autofree char *pid = NULL, *tid = NULL;
  char *key;
  gpointer id;

  pid = json_object_has_member (e, "pid") ? plx_json_value_to_string (json_object_get_member (e, "pid")) : g_strdup ("");
  tid = json_object_has_member (e, "tid") ? plx_json_value_to_string (json_object_get_member (e, "tid")) : g_strdup ("");
  key = g_strconcat (pid, "/", tid, NULL);
  if (g_hash_table_lookup_extended (threads, key, NULL, &id))
    {
      g_free (key);
      return GPOINTER_TO_UINT (id);
    }
  g_hash_table_insert (threads, key, GUINT_TO_POINTER (g_hash_table_size (threads)));
  return g_hash_table_size (threads) - 1;
}

static gboolean
number_member (JsonObject *o, const char *key, double *value)
{
  JsonNode *n = o != NULL ? json_object_get_member (o, key) : NULL;

  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n))
    return FALSE;
  switch (json_node_get_value_type (n))
    {
    case G_TYPE_INT64:
      *value = (double) json_node_get_int (n);
      return TRUE;
    case G_TYPE_DOUBLE:
      *value = json_node_get_double (n);
      return isfinite (*value);
    default:
      return FALSE;
    }
}

static const char *
string_member (JsonObject *o, const char *key)
{
  JsonNode *n = o != NULL ? json_object_get_member (o, key) : NULL;

  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (n);
}

static JsonObject *
args_of (JsonObject *e)
{
  JsonNode *n = json_object_get_member (e, "args");
  return n != NULL && JSON_NODE_HOLDS_OBJECT (n) ? json_node_get_object (n) : NULL;
}

static gint
compare_spans (gconstpointer a, gconstpointer b)
{
  const Span *x = a, *y = b;

  if (x->thread != y->thread)
    return x->thread < y->thread ? -1 : 1;
  if (x->start_us != y->start_us)
    return x->start_us < y->start_us ? -1 : 1;
  /* At one start time the op opens before what it encloses: the longer first, and
   * ops before launches. */
  if ((x->op >= 0) != (y->op >= 0))
    return x->op >= 0 ? -1 : 1;
  if (x->end_us != y->end_us)
    return x->end_us > y->end_us ? -1 : 1;
  return 0;
}

/* One sweep per thread in time order with a stack of the ops still open: the top
 * that still encloses a launch is the innermost op around it (nested spans). Fills
 * correlation -> op index. O(n log n) for the sort. */
static void
link_launches (GArray *spans, GHashTable *launched_by)
{
  g_autoptr (GArray) stack = g_array_new (FALSE, FALSE, sizeof (Span));
  guint thread = G_MAXUINT;

  g_array_sort (spans, compare_spans);
  for (guint i = 0; i < spans->len; i++)
    {
      const Span *s = &g_array_index (spans, Span, i);

      if (s->thread != thread)
        {
          g_array_set_size (stack, 0);
          thread = s->thread;
        }
      while (stack->len > 0 && g_array_index (stack, Span, stack->len - 1).end_us < s->start_us)
        g_array_set_size (stack, stack->len - 1);
      if (s->op >= 0)
        g_array_append_val (stack, *s);
      else
        for (guint j = stack->len; j-- > 0;)
          if (g_array_index (stack, Span, j).end_us >= s->end_us)
            {
              g_hash_table_insert (launched_by, g_memdup2 (&s->correlation, sizeof (gint64)),
                                   GINT_TO_POINTER (g_array_index (stack, Span, j).op));
              break;
            }
    }
}

static gboolean
event_error (GError **error, const char *source, guint index, const char *what, const char *name)
{
  g_autofree char *safe = plx_printable (name != NULL ? name : "");
  g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "%s: traceEvents[%u]: %s \"%.80s\" %s",
               source, index, "kernel", safe, what);
  return FALSE;
}

static gboolean
read_kernel (JsonObject *e, guint index, const char *source, PlxKernel *k, GError **error)
{
  JsonObject *args = args_of (e);
  const char *name = string_member (e, "name");
  double corr;

  memset (k, 0, sizeof *k);
  if (name == NULL)
    return event_error (error, source, index, "has no name", "");
  if (!number_member (e, "ts", &k->start_us))
    return event_error (error, source, index, "has no number \"ts\"", name);
  if (!number_member (e, "dur", &k->dur_us) || k->dur_us < 0.0)
    return event_error (error, source, index, "has no \"dur\" of zero or more microseconds", name);
  k->name = g_strdup (name);
  k->event_index = index;
  k->correlation = number_member (args, "correlation", &corr) ? (gint64) corr : -1;
  k->op = -1;
  plx_kineto_read_collective (args, &k->collective, &k->message_bytes);
  return TRUE;
}

static PlxKinetoTrace *
fail (PlxKinetoTrace *t)
{
  plx_kineto_trace_free (t);
  return NULL;
}

PlxKinetoTrace *
plx_kineto_parse (JsonNode   *root,
                  const char *source,
                  GError    **error)
{
  g_autoptr (GHashTable) threads = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (GHashTable) launched_by = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  g_autoptr (GHashTable) op_slot = g_hash_table_new (g_direct_hash, g_direct_equal);
  g_autoptr (GArray) spans = g_array_new (FALSE, FALSE, sizeof (Span));
  g_autoptr (GArray) cpu_ops = g_array_new (FALSE, FALSE, sizeof (CpuOp));
  PlxKinetoTrace *t = g_new0 (PlxKinetoTrace, 1);
  JsonNode *events;
  JsonArray *list;

  t->source = g_strdup (source);
  t->kernels = g_array_new (FALSE, FALSE, sizeof (PlxKernel));
  g_array_set_clear_func (t->kernels, kernel_clear);
  t->ops = g_array_new (FALSE, FALSE, sizeof (PlxKinetoOp));
  g_array_set_clear_func (t->ops, op_clear);
  events = JSON_NODE_HOLDS_OBJECT (root) ? json_object_get_member (json_node_get_object (root), "traceEvents") : NULL;
  if (events == NULL || !JSON_NODE_HOLDS_ARRAY (events))
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE,
                   "%s: no \"traceEvents\" list: not a PyTorch profiler (Chrome) trace", source);
      return fail (t);
    }
  list = json_node_get_array (events);
  t->n_events = json_array_get_length (list);
  for (guint i = 0; i < t->n_events; i++)
    {
      JsonNode *n = json_array_get_element (list, i);
      JsonObject *e;
      const char *ph, *cat;

      if (!JSON_NODE_HOLDS_OBJECT (n))
        {
          g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE, "%s: traceEvents[%u]: not an object", source, i);
          return fail (t);
        }
      e = json_node_get_object (n);
      ph = string_member (e, "ph");
      cat = string_member (e, "cat");
      /* Complete events only; instants, flows ("ac2g") and metadata carry no time. */
      if (ph == NULL || !g_str_equal (ph, "X") || cat == NULL)
        continue;
      if (g_str_equal (cat, "kernel"))
        {
          PlxKernel k;
          if (!read_kernel (e, i, source, &k, error))
            return fail (t);
          g_array_append_val (t->kernels, k);
        }
      else if (g_str_equal (cat, "cpu_op") || g_str_equal (cat, "cuda_runtime"))
        {
          Span s = { 0 };
          double dur, corr;
          if (!number_member (e, "ts", &s.start_us) || !number_member (e, "dur", &dur) || dur < 0.0)
            continue; /* an op without its span cannot enclose anything */
          s.end_us = s.start_us + dur;
          s.thread = thread_of (e, threads);
          if (g_str_equal (cat, "cpu_op"))
            {
              CpuOp op = { e, i };
              s.op = (gint) cpu_ops->len;
              g_array_append_val (cpu_ops, op);
            }
          else if (number_member (args_of (e), "correlation", &corr))
            {
              s.op = -1;
              s.correlation = (gint64) corr;
            }
          else
            continue;
          g_array_append_val (spans, s);
        }
    }

  link_launches (spans, launched_by);
  for (guint i = 0; i < t->kernels->len; i++)
    {
      PlxKernel *k = &g_array_index (t->kernels, PlxKernel, i);
      gpointer cpu;
      const CpuOp *c = NULL;
      PlxKinetoOp *op = NULL;

      if (k->correlation >= 0 && g_hash_table_lookup_extended (launched_by, &k->correlation, NULL, &cpu))
        c = &g_array_index (cpu_ops, CpuOp, GPOINTER_TO_INT (cpu));
      if (c != NULL)
        {
          gpointer slot;
          if (g_hash_table_lookup_extended (op_slot, GUINT_TO_POINTER (c->index), NULL, &slot))
            k->op = GPOINTER_TO_INT (slot);
          else
            {
              PlxKinetoOp fresh = { 0 };
              fresh.name = g_strdup (string_member (c->event, "name"));
              fresh.event_index = c->index;
              k->op = (gint) t->ops->len;
              g_array_append_val (t->ops, fresh);
              g_hash_table_insert (op_slot, GUINT_TO_POINTER (c->index), GINT_TO_POINTER (k->op));
            }
          op = &g_array_index (t->ops, PlxKinetoOp, k->op);
        }
      k->kclass = plx_kineto_classify (k->name, op != NULL ? op->name : NULL);
      if (op != NULL)
        {
          if (op->n_kernels == 0)
            {
              op->kclass = k->kclass;
              plx_kineto_op_work (op, args_of (c->event), k->name);
            }
          op->n_kernels++;
          op->kernel_us += k->dur_us;
        }
      if (i == 0 || k->start_us < t->first_us)
        t->first_us = k->start_us;
      t->last_us = MAX (t->last_us, k->start_us + k->dur_us);
    }
  return t;
}

PlxKinetoTrace *
plx_kineto_load (const char *path,
                 GError    **error)
{
  g_autofree char *data = NULL;
  g_autoptr (JsonNode) root = NULL;
  gsize length;
  GStatBuf st;

  if (plx_input_is_stdin (path))
    {
      if (!plx_input_get_contents (path, &data, &length, error))
        return NULL;
      if (length > MAX_TRACE_BYTES)
        {
          g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "<stdin>: %" G_GSIZE_FORMAT " bytes; traces over %d MB are refused",
                       length, MAX_TRACE_BYTES / (1024 * 1024));
          return NULL;
        }
      if (plx_is_gzip (data, length))
        {
          char *plain = plx_gunzip (data, length, MAX_TRACE_BYTES, "<stdin>", &length, error);
          g_free (data);
          if ((data = plain) == NULL)
            return NULL;
        }
      root = plx_json_parse_data (data, (gssize) length, "<stdin>", error);
      return root == NULL ? NULL : plx_kineto_parse (root, "<stdin>", error);
    }
  if (g_stat (path, &st) != 0)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_NOT_FOUND, "%s: cannot read: %s", path, g_strerror (errno));
      return NULL;
    }
  if (st.st_size > MAX_TRACE_BYTES)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                   "%s: %" G_GINT64_FORMAT " bytes; traces over %d MB are refused: profile fewer steps "
                   "(torch.profiler.schedule(active=1))",
                   path, (gint64) st.st_size, MAX_TRACE_BYTES / (1024 * 1024));
      return NULL;
    }
  if (!g_file_get_contents (path, &data, &length, error))
    return NULL;
  /* The profiler's own `.json.gz` (tensorboard_trace_handler(use_gzip=True)): told by
   * its magic bytes, decompressed under the same cap as a plain trace. */
  if (plx_is_gzip (data, length))
    {
      char *plain = plx_gunzip (data, length, MAX_TRACE_BYTES, path, &length, error);
      g_free (data);
      if ((data = plain) == NULL)
        return NULL;
    }
  root = plx_json_parse_data (data, (gssize) length, path, error);
  if (root == NULL)
    return NULL;
  return plx_kineto_parse (root, path, error);
}

void
plx_kineto_summarize (const PlxKinetoTrace  *trace,
                      PlxKernelClassSummary  out[PLX_N_KERNEL_CLASSES])
{
  double total = 0.0;

  memset (out, 0, sizeof (PlxKernelClassSummary) * PLX_N_KERNEL_CLASSES);
  for (guint i = 0; i < trace->kernels->len; i++)
    {
      const PlxKernel *k = &g_array_index (trace->kernels, PlxKernel, i);
      out[k->kclass].count++;
      out[k->kclass].total_us += k->dur_us;
      total += k->dur_us;
    }
  for (guint c = 0; c < PLX_N_KERNEL_CLASSES; c++)
    out[c].share = total > 0.0 ? out[c].total_us / total : 0.0;
}
