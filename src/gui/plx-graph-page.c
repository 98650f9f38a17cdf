/* The window's page for a graph or ONNX model (plx-graph-page.h). The program is
 * what `parallax-cli simulate --model FILE --dp .. --tp .. --pp ..` runs: the
 * backward pass and optimizer written (plx_ir_training_graph), spread
 * (plx_ir_parallelize), simulated (plx_ir_simulate), drawn (plx_ir_run_charts).
 * A data-parallel program may be fused first (plx-ir-fuse.h), as `parallax-cli fuse`
 * searches it. */
#include <string.h>

#include <glib/gi18n.h>

#include "plx-chart-view.h"
#include "plx-format.h"
#include "plx-graph-page.h"
#include "plx-graph-run.h"
#include "plx-latest-task.h"
#include "plx-partition-view.h"
#include "plx-tooltip.h"
#include "ir/plx-ir-fuse.h"
#include "ir/plx-ir-timeline.h"
#include "ir/plx-ir.h"
#include "ir/plx-onnx.h"
#include "ir/plx-partition-dag.h"

/* A run shorter than this shows no busy sign: it would only flicker. */
#define BUSY_DELAY_MS 250
/* Stage boundaries by hand: one spin button per boundary, for up to this many parts. */
#define MAX_HAND_CHUNKS 64

/* The Split dropdown's items: plx_ir_parallelize's PLX_IR_SPLIT_*. */
enum { SPLIT_NEAREST, SPLIT_OPTIMAL, SPLIT_DAG, SPLIT_BY_HAND };

struct _PlxGraphPage
{
  GtkBox        parent_instance;
  GtkLabel     *facts;
  GtkLabel     *numbers;
  GtkLabel     *error;
  GtkSpinButton *dp, *tp, *pp, *micro_batches, *chunks;
  GtkDropDown  *schedule, *optimizer, *fusion, *split;
  GtkWidget    *bounds_row;  /* "Stage starts": a spin button per boundary, by hand */
  GtkWidget    *bounds_label;
  GtkWidget    *bounds;
  GPtrArray    *bound_spins;
  guint        *shown_firsts; /* the split of the run on show, to start editing from */
  guint         shown_chunks;
  GtkStack     *views;
  PlxPartitionView *partition;
  GtkWidget    *status;      /* a spinner and what runs, while it runs */
  GtkLabel     *status_text;
  guint         status_timeout;
  GtkEntry     *sizes;       /* an ONNX model's symbolic sizes: "batch=8, sequence=1024" */
  PlxChartView *timeline, *memory;
  PlxGraphForward *forward;
  char         *path;
  PlxCluster   *cluster;
  PlxResult    *result;
  PlxLatestTask task;        /* runs for the controls' latest values */
  gboolean      pending;
  PlxGraphFusion running;      /* what the running job fuses */
  GStrv         fact_rows;   /* title, value, title, value, ... for the model panel */
};

G_DEFINE_FINAL_TYPE (PlxGraphPage, plx_graph_page, GTK_TYPE_BOX)

enum { LOADED, N_SIGNALS };
static guint signals[N_SIGNALS];

static void start (PlxGraphPage *self);
static void show_busy (PlxGraphPage *self);
static void on_sizes_activate (PlxGraphPage *self);

/* "Fusion (searched): 74 kernels, 147 gradients in 7 all-reduces · 5.7 % faster than
 * with none (253.28 ms)". */
static char *
describe_fusion (const PlxGraphRun *c)
{
  static const char *const what[] = { NULL, N_("DDP buckets"), N_("every elementwise chain"),
                                      N_("searched") };
  g_autofree char *unfused = plx_format_time (c->unfused_s);
  double step = c->result->report.step_time_s;
  double gain = c->unfused_s > 0.0 ? (c->unfused_s - step) / c->unfused_s * 100.0 : 0.0;

  if (gain >= 0.0)
    /* TRANSLATORS: the fusion chosen; fused kernels; gradients; the all-reduces they
     * travel in; how much shorter the step is than with nothing fused, and that step. */
    return g_strdup_printf (_("Fusion (%s): %u kernels, %u gradients in %u all-reduces · %.1f %% faster than "
                              "with none (%s)"),
                            _(what[c->fusion]), c->kernels, c->gradients, c->all_reduces, gain, unfused);
  /* TRANSLATORS: as above, when fusing made the step longer. */
  return g_strdup_printf (_("Fusion (%s): %u kernels, %u gradients in %u all-reduces · %.1f %% slower than "
                            "with none (%s)"),
                          _(what[c->fusion]), c->kernels, c->gradients, c->all_reduces, -gain, unfused);
}

/* The forward ops coloured by stage: op i is in the last chunk starting at or
 * before it, on stage chunk % pp. */
static void
show_partition (PlxGraphPage *self, const PlxGraphRun *c)
{
  const PlxIrGraph *g = self->forward->graph;
  g_autofree guint *stage = g_new0 (guint, MAX (g->ops->len, 1));

  if (c->chunk_of != NULL)
    for (guint i = 0; i < g->ops->len && i < c->n_fwd; i++)
      stage[i] = c->chunk_of[i] % c->pp;
  else if (c->firsts != NULL)
    for (guint i = 0, k = 0; i < g->ops->len; i++)
      {
        while (k + 1 < c->n_chunks && c->firsts[k + 1] <= i)
          k++;
        stage[i] = k % c->pp;
      }
  plx_partition_view_set (self->partition, g, stage, c->firsts != NULL || c->chunk_of != NULL ? c->pp : 1);
  g_clear_pointer (&self->shown_firsts, g_free);
  self->shown_chunks = 0;
  if (c->firsts != NULL)
    {
      self->shown_firsts = g_memdup2 (c->firsts, c->n_chunks * sizeof (guint));
      self->shown_chunks = c->n_chunks;
    }
}

static void
show_result (PlxGraphPage *self, const PlxGraphRun *c)
{
  PlxResult *r = c->result;
  const PlxReport *rep = &r->report;
  g_autofree char *step = plx_format_time (rep->step_time_s);
  g_autofree char *peak = plx_format_bytes ((double) rep->peak_memory_bytes);
  g_autofree char *usable = plx_format_bytes ((double) rep->hbm_usable_bytes);
  g_autofree char *text = NULL;
  gint64 batch = plx_ir_graph_batch (self->forward->graph);
  /* TRANSLATORS: step time, samples per second, MFU, peak memory on one GPU, which
   * GPU, usable memory, and whether it fits. */
  g_autofree char *rate = plx_format_count (rep->step_time_s > 0.0 ? (double) batch / rep->step_time_s : 0.0);
  text = g_strdup_printf (_("Step %s · %s samples/s · MFU %.1f %% · peak %s on GPU %u of %s usable: %s"), step,
                          rate, rep->mfu * 100.0, peak,
                          rep->reported_stage, usable, rep->fits_in_memory ? _("fits") : _("does not fit"));
  if (c->fusion != PLX_GRAPH_FUSION_NONE)
    {
      g_autofree char *fusion = describe_fusion (c);
      char *both = g_strconcat (text, "\n", fusion, NULL);
      g_free (text);
      text = both;
    }
  gtk_label_set_text (self->numbers, text);
  show_partition (self, c);
  g_clear_pointer (&self->result, plx_result_unref);
  self->result = plx_result_ref (r);
  plx_chart_view_set_error (self->timeline, NULL);
  plx_chart_view_set_error (self->memory, NULL);
  plx_chart_view_set_result (self->timeline, r);
  plx_chart_view_set_result (self->memory, r);
  gtk_widget_set_visible (GTK_WIDGET (self->error), FALSE);
}

static void
show_error (PlxGraphPage *self, const char *message)
{
  gtk_label_set_text (self->error, message);
  gtk_widget_set_visible (GTK_WIDGET (self->error), TRUE);
  /* The last good charts stay, greyed, with the reason over them. */
  plx_chart_view_set_error (self->timeline, message);
  plx_chart_view_set_error (self->memory, message);
}

static void
on_computed (GObject *source, GAsyncResult *res, gpointer data)
{
  PlxGraphPage *self = PLX_GRAPH_PAGE (source);
  PlxGraphJob *job = g_task_get_task_data (G_TASK (res));
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxGraphRun) c = NULL;

  (void) data;
  /* Only the controls' latest values are shown; newer ones start now. */
  if (plx_latest_task_finish (&self->task, res) && job->forward == self->forward)
    {
      c = g_task_propagate_pointer (G_TASK (res), &error);
      if (c != NULL)
        show_result (self, c);
      else
        show_error (self, error->message);
    }
  if (self->pending)
    start (self);
  show_busy (self);
}

/* Model chunks the forward ops are cut into: pp, times the chunks per stage when
 * interleaved. */
static guint
n_chunks (PlxGraphPage *self)
{
  guint pp = (guint) gtk_spin_button_get_value_as_int (self->pp);
  gboolean interleaved = gtk_drop_down_get_selected (self->schedule) == 2;

  return pp * (interleaved ? (guint) gtk_spin_button_get_value_as_int (self->chunks) : 1u);
}

/* The boundaries typed by hand as each chunk's first op (0 first); NULL with an error
 * naming the boundary and its value if they do not increase within the ops. */
static guint *
hand_firsts (PlxGraphPage *self, GError **error)
{
  guint k = n_chunks (self), n_ops = self->forward->graph->ops->len;
  gboolean interleaved = k > (guint) gtk_spin_button_get_value_as_int (self->pp);
  g_autofree guint *first = g_new0 (guint, k);

  if (k > MAX_HAND_CHUNKS || self->bound_spins->len + 1 != k)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                   _("Stage boundaries by hand: %u stages (model chunks) are more than the %u this page takes; "
                     "choose Nearest or Optimal"), k, MAX_HAND_CHUNKS);
      return NULL;
    }
  for (guint b = 1; b < k; b++)
    {
      gint v = gtk_spin_button_get_value_as_int (self->bound_spins->pdata[b - 1]);
      if (v < 1 || (guint) v >= n_ops)
        {
          g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                       interleaved ? _("Chunk %u's first op %d is outside 1 to %u (the graph's forward ops)")
                                   : _("Stage %u's first op %d is outside 1 to %u (the graph's forward ops)"),
                       b, v, n_ops - 1);
          return NULL;
        }
      if ((guint) v <= first[b - 1])
        {
          g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                       interleaved ? _("Chunk %u's first op %d is not after chunk %u's (%u): each boundary must be "
                                       "further on than the one before")
                                   : _("Stage %u's first op %d is not after stage %u's (%u): each boundary must be "
                                       "further on than the one before"),
                       b, v, b - 1, first[b - 1]);
          return NULL;
        }
      first[b] = (guint) v;
    }
  return g_steal_pointer (&first);
}

static void
start (PlxGraphPage *self)
{
  PlxGraphJob *job;
  g_autofree guint *firsts = NULL;

  if (self->forward == NULL || self->cluster == NULL)
    {
      self->pending = FALSE;
      return;
    }
  if (plx_latest_task_is_running (&self->task))
    {
      self->pending = TRUE;
      return;
    }
  self->pending = FALSE;
  if (gtk_drop_down_get_selected (self->split) == SPLIT_BY_HAND && n_chunks (self) > 1)
    {
      g_autoptr (GError) error = NULL;
      firsts = hand_firsts (self, &error);
      if (firsts == NULL)
        {
          /* Said, and nothing run: the last good run stays, greyed. */
          plx_latest_task_supersede (&self->task);
          show_error (self, error->message);
          return;
        }
    }
  job = g_new0 (PlxGraphJob, 1);
  job->forward = g_atomic_rc_box_acquire (self->forward);
  job->par.dp = (guint) gtk_spin_button_get_value_as_int (self->dp);
  job->par.tp = (guint) gtk_spin_button_get_value_as_int (self->tp);
  job->par.pp = (guint) gtk_spin_button_get_value_as_int (self->pp);
  job->par.micro_batches = (guint) gtk_spin_button_get_value_as_int (self->micro_batches);
  switch (gtk_drop_down_get_selected (self->schedule))
    {
    case 1:
      job->par.schedule = PLX_IR_SCHEDULE_GPIPE;
      break;
    case 2:
      job->par.schedule = PLX_IR_SCHEDULE_INTERLEAVED;
      job->par.virtual_stages = (guint) gtk_spin_button_get_value_as_int (self->chunks);
      break;
    default:
      job->par.schedule = PLX_IR_SCHEDULE_1F1B;
      break;
    }
  job->optimizer = gtk_drop_down_get_selected (self->optimizer) == 1 ? PLX_IR_OPTIMIZER_SGD : PLX_IR_OPTIMIZER_ADAM;
  job->fusion = (PlxGraphFusion) gtk_drop_down_get_selected (self->fusion);
  job->par.split = gtk_drop_down_get_selected (self->split) == SPLIT_OPTIMAL ? PLX_IR_SPLIT_OPTIMAL
                  : gtk_drop_down_get_selected (self->split) == SPLIT_DAG     ? PLX_IR_SPLIT_DAG
                                                                              : PLX_IR_SPLIT_NEAREST;
  if (gtk_drop_down_get_selected (self->split) == SPLIT_BY_HAND && n_chunks (self) > 1)
    {
      job->par.split = PLX_IR_SPLIT_GIVEN;
      job->chunk_first = g_steal_pointer (&firsts);
      job->par.chunk_first = job->chunk_first;
    }
  self->running = plx_graph_fusion_applies (&job->par) ? job->fusion : PLX_GRAPH_FUSION_NONE;
  job->cluster = plx_cluster_copy (self->cluster);
  job->source = g_strdup (self->path);
  plx_latest_task_start (&self->task, self, "[parallax] graph run", job, (GDestroyNotify) plx_graph_job_free,
                         plx_graph_job_run, on_computed);
  show_busy (self);
}

/* ---- busy ------------------------------------------------------------------------ */

static gboolean
on_status_timeout (gpointer data)
{
  PlxGraphPage *self = data;

  self->status_timeout = 0;
  gtk_label_set_text (self->status_text, self->running == PLX_GRAPH_FUSION_SEARCHED
                                           ? _("Searching fusion plans (up to 2000 simulations)…")
                                           : _("Simulating…"));
  gtk_widget_set_visible (self->status, TRUE);
  return G_SOURCE_REMOVE;
}

/* A spinner and what runs, once a run has taken a moment; gone when it is done. */
static void
show_busy (PlxGraphPage *self)
{
  if (!plx_latest_task_is_running (&self->task))
    {
      g_clear_handle_id (&self->status_timeout, g_source_remove);
      gtk_widget_set_visible (self->status, FALSE);
      return;
    }
  if (gtk_widget_get_visible (self->status))
    on_status_timeout (self);
  else if (self->status_timeout == 0)
    self->status_timeout = g_timeout_add (BUSY_DELAY_MS, on_status_timeout, self);
}

/* PlxGraphFusion is offered for a data-parallel run only; otherwise it says why (only then:
 * over an open list a tooltip would hide its items), and a choice made falls back
 * to None so the numbers never claim a fusion not made. */
static void
update_fusion_sensitivity (PlxGraphPage *self)
{
  PlxIrParallel par = { 0 };
  gboolean dp_only;

  par.tp = (guint) gtk_spin_button_get_value_as_int (self->tp);
  par.pp = (guint) gtk_spin_button_get_value_as_int (self->pp);
  par.micro_batches = (guint) gtk_spin_button_get_value_as_int (self->micro_batches);
  dp_only = plx_graph_fusion_applies (&par);
  gtk_widget_set_sensitive (GTK_WIDGET (self->fusion), dp_only);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->fusion),
                               dp_only ? NULL
                                       : _("Fusion is for data-parallel runs: set tensor parallel, pipeline "
                                           "stages and micro-batches to 1"));
  if (!dp_only && gtk_drop_down_get_selected (self->fusion) != PLX_GRAPH_FUSION_NONE)
    gtk_drop_down_set_selected (self->fusion, PLX_GRAPH_FUSION_NONE);
}

/* A spin button's tooltip names the op it starts its stage with. */
static void
name_bound (PlxGraphPage *self, GtkSpinButton *spin, guint b)
{
  gint v = gtk_spin_button_get_value_as_int (spin);
  const PlxIrGraph *g = self->forward != NULL ? self->forward->graph : NULL;
  gboolean interleaved = n_chunks (self) > (guint) gtk_spin_button_get_value_as_int (self->pp);
  g_autofree char *text = NULL;

  if (g != NULL && v >= 0 && (guint) v < g->ops->len)
    text = g_strdup_printf (interleaved ? _("Chunk %u starts with op %d, %s") : _("Stage %u starts with op %d, %s"), b,
                            v, ((const PlxIrOp *) g->ops->pdata[v])->name);
  plx_tooltip_set (GTK_WIDGET (spin), text, FALSE);
}

static void
on_bound_changed (GtkSpinButton *spin, PlxGraphPage *self)
{
  guint b = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (spin), "boundary"));

  name_bound (self, spin, b);
  plx_latest_task_supersede (&self->task);
  start (self);
}

/* One spin button per boundary (the first op of stage 1, 2, ...), starting from the
 * split on show when it has as many, else from an even split of the ops. */
static void
rebuild_bounds (PlxGraphPage *self, guint k)
{
  guint n_ops = self->forward != NULL ? self->forward->graph->ops->len : 0;
  gboolean interleaved = k > (guint) gtk_spin_button_get_value_as_int (self->pp);

  gtk_label_set_text_with_mnemonic (GTK_LABEL (self->bounds_label),
                                    interleaved ? _("Chunk starts (op inde_x)") : _("Stage starts (op inde_x)"));
  if (self->bound_spins->len + 1 == k && n_ops > 0 &&
      gtk_adjustment_get_upper (gtk_spin_button_get_adjustment (self->bound_spins->pdata[0])) + 1 == n_ops)
    return;
  while (gtk_widget_get_first_child (self->bounds) != NULL)
    gtk_flow_box_remove (GTK_FLOW_BOX (self->bounds), gtk_widget_get_first_child (self->bounds));
  g_ptr_array_set_size (self->bound_spins, 0);
  if (k < 2 || k > MAX_HAND_CHUNKS || n_ops < k)
    return;
  for (guint b = 1; b < k; b++)
    {
      GtkWidget *spin = gtk_spin_button_new_with_range (1.0, n_ops - 1, 1.0);
      g_autofree char *name = g_strdup_printf ("boundary-%u", b);
      guint v = self->shown_chunks == k && self->shown_firsts != NULL ? self->shown_firsts[b]
                                                                        : (guint) ((guint64) b * n_ops / k);
      gtk_widget_set_name (spin, name);
      gtk_spin_button_set_numeric (GTK_SPIN_BUTTON (spin), TRUE);
      gtk_spin_button_set_value (GTK_SPIN_BUTTON (spin), v);
      g_object_set_data (G_OBJECT (spin), "boundary", GUINT_TO_POINTER (b));
      name_bound (self, GTK_SPIN_BUTTON (spin), b);
      g_signal_connect (spin, "value-changed", G_CALLBACK (on_bound_changed), self);
      gtk_flow_box_append (GTK_FLOW_BOX (self->bounds), spin);
      g_ptr_array_add (self->bound_spins, spin);
    }
  gtk_label_set_mnemonic_widget (GTK_LABEL (self->bounds_label), self->bound_spins->pdata[0]);
}

/* The split is a choice only with two or more stages; by hand, the boundaries show. */
static void
update_split_controls (PlxGraphPage *self)
{
  guint k = n_chunks (self);
  gboolean by_hand = gtk_drop_down_get_selected (self->split) == SPLIT_BY_HAND;

  gtk_widget_set_sensitive (GTK_WIDGET (self->split), k > 1);
  /* Said only while greyed: over an open list a tooltip would hide its items. */
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->split), k > 1 ? NULL : _("The split needs two or more pipeline stages"));
  if (by_hand && k > 1)
    rebuild_bounds (self, k);
  gtk_widget_set_visible (self->bounds_row, by_hand && k > 1);
}

static void
on_control_changed (PlxGraphPage *self)
{
  if (self->fusion != NULL)
    update_fusion_sensitivity (self);
  if (self->bounds_row != NULL)
    update_split_controls (self);
  plx_latest_task_supersede (&self->task);
  start (self);
}

/* Model chunks mean something only to the interleaved schedule, which needs two. */
static void
on_schedule_changed (PlxGraphPage *self)
{
  gboolean interleaved = gtk_drop_down_get_selected (self->schedule) == 2;

  gtk_widget_set_sensitive (GTK_WIDGET (self->chunks), interleaved);
  if (interleaved && gtk_spin_button_get_value_as_int (self->chunks) < 2)
    gtk_spin_button_set_value (self->chunks, 2.0);
}

/* ---- building ------------------------------------------------------------------- */

static GtkWidget *
labelled (const char *label, GtkWidget *control)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *l = gtk_label_new_with_mnemonic (label);

  gtk_label_set_mnemonic_widget (GTK_LABEL (l), control);
  gtk_box_append (GTK_BOX (box), l);
  gtk_box_append (GTK_BOX (box), control);
  return box;
}

static GtkSpinButton *
degree (PlxGraphPage *self, GtkWidget *flow, const char *label, const char *name, double max)
{
  GtkWidget *spin = gtk_spin_button_new_with_range (1.0, max, 1.0);

  gtk_widget_set_name (spin, name);
  gtk_spin_button_set_numeric (GTK_SPIN_BUTTON (spin), TRUE);
  g_signal_connect_swapped (spin, "value-changed", G_CALLBACK (on_control_changed), self);
  gtk_flow_box_append (GTK_FLOW_BOX (flow), labelled (label, spin));
  return GTK_SPIN_BUTTON (spin);
}

static GtkDropDown *
choice (PlxGraphPage *self, GtkWidget *flow, const char *label, const char *name, const char *const *items)
{
  GtkWidget *dd = gtk_drop_down_new_from_strings (items);

  gtk_widget_set_name (dd, name);
  g_signal_connect_swapped (dd, "notify::selected", G_CALLBACK (on_control_changed), self);
  gtk_flow_box_append (GTK_FLOW_BOX (flow), labelled (label, dd));
  return GTK_DROP_DOWN (dd);
}

static void
plx_graph_page_dispose (GObject *object)
{
  PlxGraphPage *self = PLX_GRAPH_PAGE (object);

  plx_latest_task_clear (&self->task);
  g_clear_handle_id (&self->status_timeout, g_source_remove);
  g_clear_pointer (&self->bound_spins, g_ptr_array_unref);
  g_clear_pointer (&self->shown_firsts, g_free);
  g_clear_pointer (&self->forward, plx_graph_forward_unref);
  g_clear_pointer (&self->cluster, plx_cluster_free);
  g_clear_pointer (&self->result, plx_result_unref);
  g_clear_pointer (&self->path, g_free);
  g_clear_pointer (&self->fact_rows, g_strfreev);
  G_OBJECT_CLASS (plx_graph_page_parent_class)->dispose (object);
}

static void
plx_graph_page_class_init (PlxGraphPageClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = plx_graph_page_dispose;
  /* A graph was read (opened, or its ONNX sizes changed): its facts are new. */
  signals[LOADED] = g_signal_new ("loaded", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                  G_TYPE_NONE, 0);
}

static void
plx_graph_page_init (PlxGraphPage *self)
{
  static const char *const schedules[] = { "1F1B", "GPipe", N_("Interleaved 1F1B"), NULL };
  const char *schedule_labels[G_N_ELEMENTS (schedules)];
  static const char *const optimizers[] = { "Adam", "SGD", NULL };
  static const char *const fusions[] = { N_("None"), N_("DDP buckets (25 MiB)"), N_("Every elementwise chain"),
                                         N_("Searched (DisCo)"), NULL };
  const char *fusion_labels[G_N_ELEMENTS (fusions)];
  static const char *const splits[] = { N_("Nearest"), N_("Optimal (chain DP)"), N_("DAG (least cut)"), N_("By hand"),
                                        NULL };
  const char *split_labels[G_N_ELEMENTS (splits)];
  GtkWidget *flow = gtk_flow_box_new ();
  GtkWidget *paned = gtk_paned_new (GTK_ORIENTATION_VERTICAL);

  plx_latest_task_init (&self->task);
  gtk_orientable_set_orientation (GTK_ORIENTABLE (self), GTK_ORIENTATION_VERTICAL);
  gtk_box_set_spacing (GTK_BOX (self), 6);
  gtk_widget_set_margin_start (GTK_WIDGET (self), 12);
  gtk_widget_set_margin_end (GTK_WIDGET (self), 12);
  gtk_widget_set_margin_top (GTK_WIDGET (self), 6);

  self->facts = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_wrap (self->facts, TRUE);
  gtk_label_set_xalign (self->facts, 0.0);
  gtk_label_set_selectable (self->facts, TRUE);
  gtk_box_append (GTK_BOX (self), GTK_WIDGET (self->facts));

  gtk_flow_box_set_selection_mode (GTK_FLOW_BOX (flow), GTK_SELECTION_NONE);
  gtk_flow_box_set_max_children_per_line (GTK_FLOW_BOX (flow), 7);
  gtk_flow_box_set_column_spacing (GTK_FLOW_BOX (flow), 12);
  self->dp = degree (self, flow, _("_Data parallel"), "dp", 4096);
  self->tp = degree (self, flow, _("_Tensor parallel"), "tp", 1024);
  self->pp = degree (self, flow, _("_Pipeline stages"), "pp", 1024);
  self->micro_batches = degree (self, flow, _("_Micro-batches"), "micro-batches", 65536);
  for (guint i = 0; i < G_N_ELEMENTS (schedules); i++)
    schedule_labels[i] = schedules[i] != NULL ? _(schedules[i]) : NULL;
  self->schedule = choice (self, flow, _("_Schedule"), "schedule", schedule_labels);
  self->chunks = degree (self, flow, _("_Chunks per stage"), "chunks", 64);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->chunks), _("Model chunks per pipeline stage, for the interleaved "
                                                            "schedule (Megatron-LM's virtual pipeline stages)"));
  gtk_widget_set_sensitive (GTK_WIDGET (self->chunks), FALSE);
  g_signal_connect_swapped (self->schedule, "notify::selected", G_CALLBACK (on_schedule_changed), self);
  self->optimizer = choice (self, flow, _("_Optimizer"), "optimizer", optimizers);
  for (guint i = 0; i < G_N_ELEMENTS (fusions); i++)
    fusion_labels[i] = fusions[i] != NULL ? _(fusions[i]) : NULL;
  self->fusion = choice (self, flow, _("_Fusion"), "fusion", fusion_labels);
  update_fusion_sensitivity (self);
  for (guint i = 0; i < G_N_ELEMENTS (splits); i++)
    split_labels[i] = splits[i] != NULL ? _(splits[i]) : NULL;
  self->split = choice (self, flow, _("S_plit"), "split", split_labels);
  self->sizes = GTK_ENTRY (gtk_entry_new ());
  gtk_widget_set_name (GTK_WIDGET (self->sizes), "sizes");
  gtk_entry_set_placeholder_text (self->sizes, "batch=8, sequence=1024");
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->sizes), _("An ONNX model's symbolic sizes, as NAME=N, comma-separated; "
                                                           "Enter applies them"));
  g_signal_connect_swapped (self->sizes, "activate", G_CALLBACK (on_sizes_activate), self);
  gtk_flow_box_append (GTK_FLOW_BOX (flow), labelled (_("Si_zes"), GTK_WIDGET (self->sizes)));
  gtk_box_append (GTK_BOX (self), flow);

  self->bound_spins = g_ptr_array_new ();
  self->bounds_row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  self->bounds_label = gtk_label_new (NULL);
  gtk_widget_set_valign (self->bounds_label, GTK_ALIGN_START);
  gtk_widget_set_margin_top (self->bounds_label, 8);
  gtk_box_append (GTK_BOX (self->bounds_row), self->bounds_label);
  self->bounds = gtk_flow_box_new ();
  gtk_flow_box_set_selection_mode (GTK_FLOW_BOX (self->bounds), GTK_SELECTION_NONE);
  gtk_flow_box_set_max_children_per_line (GTK_FLOW_BOX (self->bounds), 16);
  gtk_flow_box_set_homogeneous (GTK_FLOW_BOX (self->bounds), TRUE);
  gtk_widget_set_hexpand (self->bounds, TRUE);
  gtk_box_append (GTK_BOX (self->bounds_row), self->bounds);
  gtk_widget_set_visible (self->bounds_row, FALSE);
  gtk_box_append (GTK_BOX (self), self->bounds_row);
  update_split_controls (self);

  self->numbers = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_xalign (self->numbers, 0.0);
  gtk_label_set_wrap (self->numbers, TRUE);
  gtk_label_set_selectable (self->numbers, TRUE);
  gtk_widget_add_css_class (GTK_WIDGET (self->numbers), "heading");
  gtk_box_append (GTK_BOX (self), GTK_WIDGET (self->numbers));
  self->status = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  {
    GtkWidget *spinner = gtk_spinner_new ();
    gtk_spinner_set_spinning (GTK_SPINNER (spinner), TRUE);
    gtk_box_append (GTK_BOX (self->status), spinner);
  }
  self->status_text = GTK_LABEL (gtk_label_new (NULL));
  gtk_widget_add_css_class (GTK_WIDGET (self->status_text), "dim-label");
  gtk_box_append (GTK_BOX (self->status), GTK_WIDGET (self->status_text));
  gtk_widget_set_visible (self->status, FALSE);
  gtk_box_append (GTK_BOX (self), self->status);
  self->error = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_xalign (self->error, 0.0);
  gtk_label_set_wrap (self->error, TRUE);
  gtk_label_set_selectable (self->error, TRUE);
  gtk_widget_add_css_class (GTK_WIDGET (self->error), "error");
  gtk_widget_set_visible (GTK_WIDGET (self->error), FALSE);
  gtk_box_append (GTK_BOX (self), GTK_WIDGET (self->error));

  self->timeline = PLX_CHART_VIEW (plx_chart_view_new (PLX_CHART_TIMELINE));
  self->memory = PLX_CHART_VIEW (plx_chart_view_new (PLX_CHART_MEMORY));
  gtk_widget_set_size_request (GTK_WIDGET (self->timeline), -1, 220);
  gtk_widget_set_size_request (GTK_WIDGET (self->memory), -1, 320);
  gtk_paned_set_start_child (GTK_PANED (paned), GTK_WIDGET (self->timeline));
  gtk_paned_set_end_child (GTK_PANED (paned), GTK_WIDGET (self->memory));
  gtk_paned_set_resize_start_child (GTK_PANED (paned), TRUE);
  gtk_paned_set_shrink_start_child (GTK_PANED (paned), FALSE);
  gtk_paned_set_shrink_end_child (GTK_PANED (paned), FALSE);
  gtk_widget_set_vexpand (paned, TRUE);

  /* The run, or the partition of the graph it ran. */
  self->views = GTK_STACK (gtk_stack_new ());
  gtk_stack_add_titled (self->views, paned, "run", _("Timeline and memory"));
  self->partition = PLX_PARTITION_VIEW (plx_partition_view_new ());
  gtk_widget_set_size_request (GTK_WIDGET (self->partition), -1, 420);
  gtk_stack_add_titled (self->views, GTK_WIDGET (self->partition), "partition", _("Partition"));
  {
    GtkWidget *switcher = gtk_stack_switcher_new ();
    gtk_stack_switcher_set_stack (GTK_STACK_SWITCHER (switcher), self->views);
    gtk_widget_set_halign (switcher, GTK_ALIGN_START);
    gtk_box_append (GTK_BOX (self), switcher);
  }
  gtk_widget_set_vexpand (GTK_WIDGET (self->views), TRUE);
  gtk_box_append (GTK_BOX (self), GTK_WIDGET (self->views));
}

GtkWidget *
plx_graph_page_new (void)
{
  return g_object_new (PLX_TYPE_GRAPH_PAGE, NULL);
}

/* ---- opening ---------------------------------------------------------------------- */

/* The graph's facts: a sentence for the page, and title/value rows for the model
 * panel (plx_scenario_panel_show_graph). */
static char *
describe (const char *path, const PlxIrGraph *g, GStrv *rows)
{
  g_autofree char *base = g_path_get_basename (path);
  g_autofree char *params = NULL, *flops = NULL, *batch_text = NULL;
  GPtrArray *b = g_ptr_array_new ();
  double n_params = 0.0, fwd = 0.0;
  guint weights = 0;
  gint64 batch = plx_ir_graph_batch (g);

  for (guint t = 0; t < g->tensors->len; t++)
    {
      const PlxIrTensor *x = g->tensors->pdata[t];
      if (x->producer < 0 && x->role == PLX_IR_ROLE_WEIGHT)
        {
          weights++;
          n_params += (double) plx_ir_tensor_elements (x);
        }
    }
  for (guint i = 0; i < g->ops->len; i++)
    fwd += plx_ir_op_flops (g, g->ops->pdata[i]);
  params = plx_format_count (n_params);
  flops = plx_format_flops (fwd);
  batch_text = plx_format_count ((double) batch);
  g_ptr_array_add (b, g_strdup (_("Graph")));
  g_ptr_array_add (b, g_strdup (base));
  g_ptr_array_add (b, g_strdup (_("Operations")));
  g_ptr_array_add (b, g_strdup_printf ("%u", g->ops->len));
  g_ptr_array_add (b, g_strdup (_("Weights")));
  /* TRANSLATORS: weight tensors, and their parameters. */
  g_ptr_array_add (b, g_strdup_printf (_("%u tensors, %s parameters"), weights, params));
  g_ptr_array_add (b, g_strdup (_("Batch")));
  g_ptr_array_add (b, g_strdup (batch_text));
  g_ptr_array_add (b, g_strdup (_("Forward pass")));
  g_ptr_array_add (b, g_strdup_printf (_("%s per batch"), flops));
  g_ptr_array_add (b, NULL);
  *rows = (GStrv) g_ptr_array_free (b, FALSE);
  /* TRANSLATORS: file name, ops, weight tensors, parameters, batch, forward FLOPs. */
  return g_strdup_printf (_("%s: a graph of %u ops, %u weights (%s parameters), batch %s, forward pass %s. Its "
                            "backward pass and optimizer are written, it is spread over data × tensor × pipeline "
                            "parallel GPUs of the scenario's cluster, and simulated."),
                          base, g->ops->len, weights, params, batch_text, flops);
}

/* "batch=8, sequence=1024" as names and values; an error names the part. */
static gboolean
parse_sizes (const char *text, GPtrArray *names, GArray *values, GError **error)
{
  g_auto (GStrv) parts = g_strsplit_set (text, ",;", -1);

  for (guint i = 0; parts[i] != NULL; i++)
    {
      g_autofree char *part = g_strstrip (g_strdup (parts[i]));
      const char *eq = strchr (part, '=');
      char *end = NULL;
      gint64 n;

      if (part[0] == '\0')
        continue;
      n = eq != NULL ? g_ascii_strtoll (eq + 1, &end, 10) : 0;
      if (eq == NULL || eq == part || end == eq + 1 || *end != '\0' || n < 1 || n > (G_GINT64_CONSTANT (1) << 40))
        {
          g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                       _("Sizes: \"%s\" is not NAME=N with N a whole number from 1 to 2^40"), part);
          return FALSE;
        }
      g_ptr_array_add (names, g_strstrip (g_strndup (part, eq - part)));
      g_array_append_val (values, n);
    }
  return TRUE;
}

/* Reads the graph at the sizes given; on success it is the page's and computes. */
static gboolean
load (PlxGraphPage *self, GError **error)
{
  PlxIrGraph *g;
  PlxGraphForward *f;
  g_autofree char *facts = NULL;

  if (g_str_has_suffix (self->path, ".onnx"))
    {
      g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
      g_autoptr (GArray) values = g_array_new (FALSE, FALSE, sizeof (gint64));
      PlxOnnxOptions opts;
      if (!parse_sizes (gtk_editable_get_text (GTK_EDITABLE (self->sizes)), names, values, error))
        return FALSE;
      opts = (PlxOnnxOptions) { (const char *const *) names->pdata, (const gint64 *) (const void *) values->data,
                                names->len, TRUE };
      g = plx_onnx_import (self->path, &opts, error);
    }
  else
    g = plx_ir_graph_new_from_file (self->path, error);
  if (g == NULL)
    return FALSE;
  f = g_atomic_rc_box_new0 (PlxGraphForward);
  f->graph = g;
  g_clear_pointer (&self->forward, plx_graph_forward_unref);
  self->forward = f;
  g_clear_pointer (&self->fact_rows, g_strfreev);
  facts = describe (self->path, g, &self->fact_rows);
  gtk_label_set_text (self->facts, facts);
  g_clear_pointer (&self->shown_firsts, g_free);
  self->shown_chunks = 0;
  update_split_controls (self);
  plx_latest_task_supersede (&self->task);
  start (self);
  g_signal_emit (self, signals[LOADED], 0);
  return TRUE;
}

static void
on_sizes_activate (PlxGraphPage *self)
{
  g_autoptr (GError) error = NULL;

  if (self->path != NULL && !load (self, &error))
    show_error (self, error->message);
}

/* The Sizes field, for an ONNX model only. */
static void
show_sizes (PlxGraphPage *self, gboolean onnx)
{
  gtk_widget_set_visible (gtk_widget_get_parent (gtk_widget_get_parent (GTK_WIDGET (self->sizes))), onnx);
}

gboolean
plx_graph_page_open (PlxGraphPage      *self,
                     const char        *path,
                     const PlxCluster  *cluster,
                     GError           **error)
{
  g_autoptr (GError) local = NULL;
  gboolean onnx = g_str_has_suffix (path, ".onnx");
  gboolean same = g_strcmp0 (path, self->path) == 0;
  g_autofree char *old_path = g_steal_pointer (&self->path);
  g_autofree char *old_sizes = g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->sizes)));

  self->path = g_strdup (path);
  g_clear_pointer (&self->cluster, plx_cluster_free);
  self->cluster = plx_cluster_copy (cluster);
  show_sizes (self, onnx);
  /* Another model's sizes are not this one's: "batch=8" typed for the last ONNX file
   * would silently shape the next. */
  if (!same)
    gtk_editable_set_text (GTK_EDITABLE (self->sizes), "");
  if (load (self, &local))
    return TRUE;
  /* An ONNX model whose sizes are symbolic opens, and says which to give. Nothing of
   * the graph before stays: not its facts, its numbers, its charts or its partition. */
  if (onnx && g_error_matches (local, PLX_ERROR, PLX_ERROR_MISSING_KEY))
    {
      g_autofree char *base = g_path_get_basename (path);
      g_autofree char *message = g_strdup_printf (_("%s Type it under Sizes and press Enter."), local->message);
      const char *rows[] = { _("Graph"), base, NULL };

      g_clear_pointer (&self->forward, plx_graph_forward_unref);
      g_clear_pointer (&self->result, plx_result_unref);
      g_clear_pointer (&self->shown_firsts, g_free);
      self->shown_chunks = 0;
      plx_latest_task_supersede (&self->task);
      g_strfreev (self->fact_rows);
      self->fact_rows = g_strdupv ((char **) rows);
      gtk_label_set_text (self->facts, base);
      gtk_label_set_text (self->numbers, "");
      plx_chart_view_set_result (self->timeline, NULL);
      plx_chart_view_set_result (self->memory, NULL);
      plx_partition_view_set (self->partition, NULL, NULL, 0);
      show_error (self, message);
      g_signal_emit (self, signals[LOADED], 0);
      return TRUE;
    }
  /* Not opened: the page keeps the graph it had, and the file it came from. */
  g_free (self->path);
  self->path = g_steal_pointer (&old_path);
  gtk_editable_set_text (GTK_EDITABLE (self->sizes), old_sizes);
  show_sizes (self, self->path != NULL && g_str_has_suffix (self->path, ".onnx"));
  g_propagate_error (error, g_steal_pointer (&local));
  return FALSE;
}

void
plx_graph_page_set_cluster (PlxGraphPage     *self,
                            const PlxCluster *cluster)
{
  g_clear_pointer (&self->cluster, plx_cluster_free);
  self->cluster = plx_cluster_copy (cluster);
  plx_latest_task_supersede (&self->task);
  start (self);
}

const char *
plx_graph_page_get_path (PlxGraphPage *self)
{
  return self->path;
}

GtkWidget *
plx_graph_page_get_control (PlxGraphPage *self,
                            const char   *name)
{
  GtkWidget *controls[] = { GTK_WIDGET (self->dp), GTK_WIDGET (self->tp), GTK_WIDGET (self->pp),
                            GTK_WIDGET (self->micro_batches), GTK_WIDGET (self->schedule),
                            GTK_WIDGET (self->chunks), GTK_WIDGET (self->optimizer), GTK_WIDGET (self->fusion),
                            GTK_WIDGET (self->split) };

  for (guint i = 0; i < G_N_ELEMENTS (controls); i++)
    if (g_str_equal (gtk_widget_get_name (controls[i]), name))
      return controls[i];
  for (guint i = 0; i < self->bound_spins->len; i++)
    if (g_str_equal (gtk_widget_get_name (self->bound_spins->pdata[i]), name))
      return self->bound_spins->pdata[i];
  return NULL;
}

const char *const *
plx_graph_page_get_fact_rows (PlxGraphPage *self)
{
  return (const char *const *) self->fact_rows;
}

const char *
plx_graph_page_get_facts (PlxGraphPage *self)
{
  return gtk_label_get_text (self->facts);
}

const char *
plx_graph_page_get_numbers (PlxGraphPage *self)
{
  return gtk_label_get_text (self->numbers);
}

const char *
plx_graph_page_get_error (PlxGraphPage *self)
{
  return gtk_widget_get_visible (GTK_WIDGET (self->error)) ? gtk_label_get_text (self->error) : NULL;
}

PlxResult *
plx_graph_page_get_result (PlxGraphPage *self)
{
  return self->result;
}

gboolean
plx_graph_page_is_busy (PlxGraphPage *self)
{
  return plx_latest_task_is_running (&self->task) || self->pending;
}

GtkWidget *
plx_graph_page_get_partition_view (PlxGraphPage *self)
{
  return GTK_WIDGET (self->partition);
}

void
plx_graph_page_set_dark (PlxGraphPage *self,
                         gboolean      dark)
{
  plx_chart_view_set_dark (self->timeline, dark);
  plx_chart_view_set_dark (self->memory, dark);
  plx_partition_view_set_dark (self->partition, dark);
}
