/* The Reshard page (plx-reshard-page.h). Every change replans at once on the UI
 * thread: a plan takes under 1 ms and a whole GPT-3 checkpoint 0.05 ms (bench-reshard),
 * far below a frame, so there is no worker to cancel. */
#include <glib/gi18n-lib.h>
#include <math.h>

#include "plx-render-export.h"
#include "plx-reshard-chart.h"
#include "plx-reshard-page.h"

enum { ENTRY_SHAPE, ENTRY_MESH, ENTRY_FROM, ENTRY_TO, N_ENTRIES };

static const char *const entry_names[N_ENTRIES] = { "shape", "mesh", "from", "to" };
/* The dtypes parallax-cli reshard takes, in its order. */
static const char *const dtype_names[] = { "bf16", "fp16", "fp8", "fp32", NULL };

struct _PlxReshardPage
{
  GtkBox           parent_instance;
  GtkToggleButton *mode_array, *mode_checkpoint;
  GtkStack        *controls;
  GtkEntry        *entry[N_ENTRIES];
  GtkLabel        *entry_error[N_ENTRIES];
  GtkDropDown     *dtype;
  GtkLabel        *source;         /* the scenario's TP x PP, the checkpoint's start */
  GtkSpinButton   *tp, *pp;
  GtkSwitch       *optimizer;
  GtkLabel        *plan_error;     /* what the planner refused */
  GtkLabel        *totals;
  GtkDrawingArea  *chart;

  PlxResult       *scenario;
  guint            source_tp, source_pp;
  PlxReshardPlan  *plan, *baseline;        /* one array */
  PlxReshardModel *model;                  /* the checkpoint */
  GPtrArray       *model_baselines;        /* PlxReshardPlan, one per model array */
  GPtrArray       *names;                  /* char *, one per model array */
  GArray          *chart_arrays;           /* PlxReshardChartArray */
  PlxReshardLayout *layout;                /* the last drawn, for tooltips */
  char            *error;
  double           time_s, peak_bytes, base_time_s, base_peak_bytes;
  gboolean         planned;
  gboolean         dark;
  gboolean         setting;
};

G_DEFINE_FINAL_TYPE (PlxReshardPage, plx_reshard_page, GTK_TYPE_BOX)

/* "12288x49152": 1 to PLX_RESHARD_MAX_RANK whole numbers from 1 to 2^40, as
 * parallax-cli reshard --shape takes them. */
static gboolean
parse_shape (const char *text, PlxArrayShape *shape, GError **error)
{
  g_auto (GStrv) parts = g_strsplit (text, "x", -1);
  guint n = g_strv_length (parts);

  if (n < 1 || n > PLX_RESHARD_MAX_RANK)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                   _("Shape \"%s\" is not 1 to %u dimensions like 12288x49152"), text, PLX_RESHARD_MAX_RANK);
      return FALSE;
    }
  shape->rank = n;
  for (guint i = 0; i < n; i++)
    {
      char *end = NULL;
      guint64 v = g_ascii_strtoull (parts[i], &end, 10);
      if (end == parts[i] || *end != '\0' || parts[i][0] == '-' || v < 1 || v > (G_GUINT64_CONSTANT (1) << 40))
        {
          g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                       _("Dimension %u of shape \"%s\" (\"%s\") is not a whole number from 1 to 2^40"), i + 1, text,
                       parts[i]);
          return FALSE;
        }
      shape->dim[i] = v;
    }
  return TRUE;
}

static void
clear_plans (PlxReshardPage *self)
{
  g_clear_pointer (&self->plan, plx_reshard_plan_free);
  g_clear_pointer (&self->baseline, plx_reshard_plan_free);
  g_clear_pointer (&self->model, plx_reshard_model_free);
  g_ptr_array_set_size (self->model_baselines, 0);
  g_ptr_array_set_size (self->names, 0);
  g_array_set_size (self->chart_arrays, 0);
  g_clear_pointer (&self->layout, plx_reshard_layout_free);
  g_clear_pointer (&self->error, g_free);
  self->planned = FALSE;
  self->time_s = self->peak_bytes = self->base_time_s = self->base_peak_bytes = 0.0;
}

static void
mark_entry (PlxReshardPage *self, guint i, const GError *error)
{
  if (error != NULL)
    gtk_widget_add_css_class (GTK_WIDGET (self->entry[i]), "error");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self->entry[i]), "error");
  gtk_label_set_text (self->entry_error[i], error != NULL ? error->message : "");
  gtk_widget_set_visible (GTK_WIDGET (self->entry_error[i]), error != NULL);
}

static const PlxCluster *
cluster (PlxReshardPage *self, GError **error)
{
  if (self->scenario == NULL)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT,
                   _("The scenario has an error: fix it to plan on its cluster"));
      return NULL;
    }
  return self->scenario->scenario->cluster;
}

/* One array: each entry checked in turn (a layout needs the mesh and the shape's
 * rank), the first fault marked on its entry; then both plans. */
static gboolean
plan_array (PlxReshardPage *self, GError **error)
{
  PlxArrayShape shape = { 0 };
  PlxMesh mesh = { 0 };
  PlxSharding from, to;
  PlxDtype dtype = PLX_DTYPE_BF16;
  g_autoptr (GError) local = NULL;
  const PlxCluster *c;
  guint bad = N_ENTRIES;
  PlxReshardChartArray a = { NULL, 1, NULL, NULL };

  plx_dtype_from_string (dtype_names[MIN (gtk_drop_down_get_selected (self->dtype), 3u)], &dtype);
  shape.elem_bytes = (guint) plx_dtype_bytes (dtype);
  if (!parse_shape (gtk_editable_get_text (GTK_EDITABLE (self->entry[ENTRY_SHAPE])), &shape, &local))
    bad = ENTRY_SHAPE;
  else if (!plx_mesh_parse (gtk_editable_get_text (GTK_EDITABLE (self->entry[ENTRY_MESH])), &mesh, &local))
    bad = ENTRY_MESH;
  else if (!plx_sharding_parse (gtk_editable_get_text (GTK_EDITABLE (self->entry[ENTRY_FROM])), &mesh, shape.rank,
                                &from, &local))
    bad = ENTRY_FROM;
  else if (!plx_sharding_parse (gtk_editable_get_text (GTK_EDITABLE (self->entry[ENTRY_TO])), &mesh, shape.rank, &to,
                                &local))
    bad = ENTRY_TO;
  for (guint i = 0; i < N_ENTRIES; i++)
    mark_entry (self, i, i == bad ? local : NULL);
  if (bad < N_ENTRIES)
    {
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
  c = cluster (self, error);
  if (c == NULL)
    return FALSE;
  self->plan = plx_reshard_plan (c, &mesh, &shape, &from, &to, error);
  if (self->plan == NULL)
    return FALSE;
  self->baseline = plx_reshard_plan_baseline (c, &mesh, &shape, &from, &to, error);
  if (self->baseline == NULL)
    return FALSE;
  self->time_s = self->plan->time_s;
  self->peak_bytes = self->plan->peak_bytes;
  self->base_time_s = self->baseline->time_s;
  self->base_peak_bytes = self->baseline->peak_bytes;
  a.plan = self->plan;
  a.baseline = self->baseline;
  g_array_append_val (self->chart_arrays, a);
  return TRUE;
}

/* The checkpoint: plx_reshard_model's plans, and beside each the baseline on the
 * same mesh, which the core does not make for a model; its totals are summed the
 * way the model's are (one array after another, the peak the largest). */
static gboolean
plan_checkpoint (PlxReshardPage *self, GError **error)
{
  const PlxCluster *c = cluster (self, error);
  const PlxScenario *sc;

  if (c == NULL)
    return FALSE;
  sc = self->scenario->scenario;
  self->model = plx_reshard_scenario (sc, (guint) gtk_spin_button_get_value_as_int (self->tp),
                                      (guint) gtk_spin_button_get_value_as_int (self->pp),
                                      gtk_switch_get_active (self->optimizer), error);
  if (self->model == NULL)
    return FALSE;
  for (guint i = 0; i < self->model->arrays->len; i++)
    {
      const PlxReshardArray *ra = &g_array_index (self->model->arrays, PlxReshardArray, i);
      PlxReshardPlan *base = plx_reshard_plan_baseline (c, &ra->plan->mesh, &ra->shape, &ra->from, &ra->to, error);
      if (base == NULL)
        return FALSE;
      g_ptr_array_add (self->model_baselines, base);
      g_ptr_array_add (self->names, g_strdup_printf ("%s %s", ra->name, ra->shape.elem_bytes == 4 ? "fp32" : "bf16"));
      self->base_time_s += MAX (ra->count, 1u) * base->time_s;
      self->base_peak_bytes = MAX (self->base_peak_bytes, base->peak_bytes);
    }
  for (guint i = 0; i < self->model->arrays->len; i++)
    {
      const PlxReshardArray *ra = &g_array_index (self->model->arrays, PlxReshardArray, i);
      PlxReshardChartArray a = { self->names->pdata[i], ra->count, ra->plan, self->model_baselines->pdata[i] };
      g_array_append_val (self->chart_arrays, a);
    }
  self->time_s = self->model->time_s;
  self->peak_bytes = self->model->peak_bytes;
  return TRUE;
}

static void
show_totals (PlxReshardPage *self)
{
  g_autofree char *text = NULL;

  if (!self->planned)
    text = g_strdup ("–");
  else
    {
      /* The CLI's precision: three decimals for one array, one for a checkpoint. */
      int decimals = self->model != NULL ? 1 : 3;
      g_autofree char *ratio = self->time_s > 0.0 ? g_strdup_printf ("%.2f×", self->base_time_s / self->time_s)
                                                   : g_strdup ("–");
      g_autofree char *mem = self->peak_bytes > 0.0 ? g_strdup_printf ("%.2f×", self->base_peak_bytes / self->peak_bytes)
                                                     : g_strdup ("–");
      /* TRANSLATORS: the plan's time in ms and peak MiB per GPU, the XLA-style
       * baseline's, then its time divided by the plan's and its peak by the plan's. */
      char base_peak[32];
      /* A baseline of seconds in seconds, as the chart writes it. */
      g_autofree char *base_time = self->base_time_s >= 1.0 ? g_strdup_printf (_("%.2f s"), self->base_time_s)
                                                            : g_strdup_printf (_("%.*f ms"), decimals,
                                                                               self->base_time_s * 1e3);
      plx_reshard_format_bytes (self->base_peak_bytes, base_peak, sizeof base_peak);
      text = g_strdup_printf (_("Plan: %.*f ms, peak %.1f MiB per GPU · XLA-style: %s, peak %s · "
                                "speed-up %s, memory ratio %s"),
                              decimals, self->time_s * 1e3, self->peak_bytes / 1048576.0, base_time, base_peak,
                              ratio, mem);
    }
  gtk_label_set_text (self->totals, text);
}

static void
replan (PlxReshardPage *self)
{
  g_autoptr (GError) error = NULL;
  gboolean checkpoint = gtk_toggle_button_get_active (self->mode_checkpoint);

  if (self->setting)
    return;
  clear_plans (self);
  if (checkpoint)
    for (guint i = 0; i < N_ENTRIES; i++)
      mark_entry (self, i, NULL);
  self->planned = checkpoint ? plan_checkpoint (self, &error) : plan_array (self, &error);
  if (!self->planned)
    {
      g_array_set_size (self->chart_arrays, 0);
      self->error = g_strdup (error != NULL ? error->message : "?");
    }
  /* An entry's fault shows beside it; the planner's (and the checkpoint's) below. */
  {
    gboolean beside = FALSE;
    for (guint i = 0; i < N_ENTRIES; i++)
      beside |= gtk_widget_get_visible (GTK_WIDGET (self->entry_error[i]));
    gtk_label_set_text (self->plan_error, self->error != NULL && !beside ? self->error : "");
    gtk_widget_set_visible (GTK_WIDGET (self->plan_error), self->error != NULL && !beside);
  }
  show_totals (self);
  gtk_widget_queue_draw (GTK_WIDGET (self->chart));
}

static void
on_mode (PlxReshardPage *self)
{
  gtk_stack_set_visible_child_name (self->controls,
                                    gtk_toggle_button_get_active (self->mode_checkpoint) ? "checkpoint" : "array");
  replan (self);
}

/* ---- the chart ---------------------------------------------------------------------- */

static void
draw_chart (GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer data)
{
  PlxReshardPage *self = data;
  PlxRenderStyle style;

  plx_render_style_init (&style, self->dark, 1.0);
  g_clear_pointer (&self->layout, plx_reshard_layout_free);
  self->layout = plx_reshard_layout_new ((const PlxReshardChartArray *) (const void *) self->chart_arrays->data,
                                         self->chart_arrays->len, width, height);
  /* The reason, when there is one, is written out above the chart, whole. */
  plx_reshard_chart_render (self->layout, &style, cr, width, height);
}

static gboolean
on_query_tooltip (GtkWidget *widget, int x, int y, gboolean keyboard, GtkTooltip *tooltip, gpointer data)
{
  PlxReshardPage *self = data;
  const PlxReshardLayout *l = self->layout;
  const PlxReshardBar *b;
  const PlxReshardChartArray *a;
  const PlxReshardPlan *p;
  const PlxReshardStep *st;
  g_autofree char *after = NULL, *text = NULL;
  char peak[32];
  gint i;

  (void) keyboard;
  if (l == NULL || (i = plx_reshard_layout_hit (l, x / l->width_px, y / l->height_px)) < 0)
    return FALSE;
  b = &g_array_index (l->bars, PlxReshardBar, i);
  a = &g_array_index (self->chart_arrays, PlxReshardChartArray, b->array);
  p = b->row == PLX_RESHARD_ROW_PLAN ? a->plan : a->baseline;
  st = &g_array_index (p->steps, PlxReshardStep, b->step);
  after = plx_sharding_format (&st->after);
  plx_reshard_format_bytes (b->peak_bytes, peak, sizeof peak);
  /* TRANSLATORS: the array (may be empty), the collective, the layout it leaves,
   * its time in ms and the bytes per GPU it holds while it runs. */
  text = g_strdup_printf (_("%s%s%s → %s\n%.3f ms, %s per GPU while it runs"), a->name != NULL ? a->name : "",
                          a->name != NULL ? ": " : "", plx_reshard_op_name (st->op), after, st->time_s * 1e3, peak);
  gtk_tooltip_set_text (tooltip, text);
  return TRUE;
}

static void
export_draw (cairo_t *cr, double width, double height, gpointer data)
{
  PlxReshardPage *self = data;
  g_autoptr (PlxReshardLayout) l =
    plx_reshard_layout_new ((const PlxReshardChartArray *) (const void *) self->chart_arrays->data,
                            self->chart_arrays->len, width, height);
  PlxRenderStyle *style = g_object_get_data (G_OBJECT (self), "export-style");

  plx_reshard_chart_render (l, style, cr, width, height);
}

gboolean
plx_reshard_page_export (PlxReshardPage *self,
                         const char     *path,
                         double          width,
                         double          height,
                         double          scale,
                         int             dark,
                         GError        **error)
{
  PlxRenderStyle style;
  double w = width > 0 ? width : MAX (gtk_widget_get_width (GTK_WIDGET (self->chart)), 800);
  double h = height > 0 ? height : MAX (gtk_widget_get_height (GTK_WIDGET (self->chart)), 500);
  gboolean ok;

  if (!self->planned)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT, _("%s: nothing to export: %s"), path,
                   self->error != NULL ? self->error : _("no plan"));
      return FALSE;
    }
  plx_render_style_init (&style, dark < 0 ? self->dark : dark != 0, scale > 0 ? scale : 1.0);
  g_object_set_data (G_OBJECT (self), "export-style", &style);
  ok = plx_render_export (path, w, h, scale > 0 ? scale : 1.0, &style, export_draw, self, error);
  g_object_set_data (G_OBJECT (self), "export-style", NULL);
  return ok;
}

/* ---- construction ------------------------------------------------------------------- */

static GtkWidget *
caption (const char *text)
{
  GtkWidget *l = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (l), 1.0);
  gtk_widget_add_css_class (l, "dim-label");
  return l;
}

static GtkLabel *
error_label (void)
{
  GtkWidget *l = gtk_label_new ("");

  gtk_label_set_xalign (GTK_LABEL (l), 0.0);
  gtk_label_set_wrap (GTK_LABEL (l), TRUE);
  gtk_label_set_selectable (GTK_LABEL (l), TRUE);
  gtk_widget_set_hexpand (l, TRUE);
  gtk_widget_add_css_class (l, "error");
  gtk_widget_set_visible (l, FALSE);
  return GTK_LABEL (l);
}

static GtkWidget *
build_array_controls (PlxReshardPage *self)
{
  static const char *const defaults[N_ENTRIES] = { "8192x8192", "8x8", "[x,y]", "[y,-]" };
  const char *captions[N_ENTRIES] = { _("Shape"), _("Mesh"), _("From"), _("To") };
  const char *hints[N_ENTRIES] = {
    _("The array's dimensions, 1 to 4: 12288x49152"),
    _("The device mesh, axes x, y (and z) laid row-major onto the cluster's GPUs: 8x8"),
    _("Per dimension the mesh axes it is split over, outermost first; '-' not split: [x,y]"),
    _("The layout to reach, in the same notation: [y,-]"),
  };
  GtkWidget *grid = gtk_grid_new ();
  guint row = 0;

  gtk_grid_set_row_spacing (GTK_GRID (grid), 6);
  gtk_grid_set_column_spacing (GTK_GRID (grid), 10);
  for (guint i = 0; i < N_ENTRIES; i++, row++)
    {
      GtkWidget *e = gtk_entry_new ();
      gtk_widget_set_name (e, entry_names[i]);
      gtk_editable_set_text (GTK_EDITABLE (e), defaults[i]);
      gtk_editable_set_width_chars (GTK_EDITABLE (e), 16);
      gtk_widget_set_tooltip_text (e, hints[i]);
      self->entry[i] = GTK_ENTRY (e);
      self->entry_error[i] = error_label ();
      gtk_grid_attach (GTK_GRID (grid), caption (captions[i]), 0, row, 1, 1);
      gtk_grid_attach (GTK_GRID (grid), e, 1, row, 1, 1);
      gtk_grid_attach (GTK_GRID (grid), GTK_WIDGET (self->entry_error[i]), 2, row, 1, 1);
      g_signal_connect_swapped (e, "changed", G_CALLBACK (replan), self);
      if (i == ENTRY_SHAPE)
        {
          /* The element type beside the shape it sizes. */
          GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
          self->dtype = GTK_DROP_DOWN (gtk_drop_down_new_from_strings (dtype_names));
          gtk_widget_set_name (GTK_WIDGET (self->dtype), "dtype");
          gtk_widget_set_tooltip_text (GTK_WIDGET (self->dtype), _("The element type"));
          g_signal_connect_swapped (self->dtype, "notify::selected", G_CALLBACK (replan), self);
          g_object_ref (e);
          gtk_grid_remove (GTK_GRID (grid), e);
          gtk_box_append (GTK_BOX (box), e);
          g_object_unref (e);
          gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->dtype));
          gtk_grid_attach (GTK_GRID (grid), box, 1, row, 1, 1);
        }
    }
  return grid;
}

static GtkWidget *
spin (const char *name, const char *tooltip)
{
  GtkWidget *s = gtk_spin_button_new_with_range (1, 65536, 1);

  gtk_widget_set_name (s, name);
  gtk_spin_button_set_numeric (GTK_SPIN_BUTTON (s), TRUE);
  gtk_widget_set_tooltip_text (s, tooltip);
  return s;
}

static GtkWidget *
build_checkpoint_controls (PlxReshardPage *self)
{
  GtkWidget *grid = gtk_grid_new (), *w;

  gtk_grid_set_row_spacing (GTK_GRID (grid), 6);
  gtk_grid_set_column_spacing (GTK_GRID (grid), 10);
  self->source = GTK_LABEL (gtk_label_new (""));
  gtk_label_set_xalign (self->source, 0.0);
  gtk_grid_attach (GTK_GRID (grid), caption (_("From")), 0, 0, 1, 1);
  gtk_grid_attach (GTK_GRID (grid), GTK_WIDGET (self->source), 1, 0, 3, 1);
  w = spin ("tp", _("Tensor-parallel degree of the target layout"));
  self->tp = GTK_SPIN_BUTTON (w);
  gtk_grid_attach (GTK_GRID (grid), caption (_("To TP")), 0, 1, 1, 1);
  gtk_grid_attach (GTK_GRID (grid), w, 1, 1, 1, 1);
  w = spin ("pp", _("Pipeline-parallel degree of the target layout"));
  self->pp = GTK_SPIN_BUTTON (w);
  gtk_grid_attach (GTK_GRID (grid), caption (_("PP")), 2, 1, 1, 1);
  gtk_grid_attach (GTK_GRID (grid), w, 3, 1, 1, 1);
  self->optimizer = GTK_SWITCH (gtk_switch_new ());
  gtk_widget_set_name (GTK_WIDGET (self->optimizer), "optimizer");
  gtk_switch_set_active (self->optimizer, TRUE);
  gtk_widget_set_halign (GTK_WIDGET (self->optimizer), GTK_ALIGN_START);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->optimizer),
                               _("Move each weight's fp32 master copy and Adam moments too"));
  gtk_grid_attach (GTK_GRID (grid), caption (_("With optimizer state")), 0, 2, 1, 1);
  gtk_grid_attach (GTK_GRID (grid), GTK_WIDGET (self->optimizer), 1, 2, 1, 1);
  g_signal_connect_swapped (self->tp, "value-changed", G_CALLBACK (replan), self);
  g_signal_connect_swapped (self->pp, "value-changed", G_CALLBACK (replan), self);
  g_signal_connect_swapped (self->optimizer, "notify::active", G_CALLBACK (replan), self);
  return grid;
}

static void
plx_reshard_page_dispose (GObject *object)
{
  PlxReshardPage *self = PLX_RESHARD_PAGE (object);

  if (self->chart_arrays != NULL)
    clear_plans (self);
  g_clear_pointer (&self->scenario, plx_result_unref);
  G_OBJECT_CLASS (plx_reshard_page_parent_class)->dispose (object);
}

static void
plx_reshard_page_finalize (GObject *object)
{
  PlxReshardPage *self = PLX_RESHARD_PAGE (object);

  g_ptr_array_unref (self->model_baselines);
  g_ptr_array_unref (self->names);
  g_array_unref (self->chart_arrays);
  G_OBJECT_CLASS (plx_reshard_page_parent_class)->finalize (object);
}

static void
plx_reshard_page_class_init (PlxReshardPageClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = plx_reshard_page_dispose;
  G_OBJECT_CLASS (klass)->finalize = plx_reshard_page_finalize;
}

static void
plx_reshard_page_init (PlxReshardPage *self)
{
  GtkWidget *modes = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0), *top, *w;

  self->model_baselines = g_ptr_array_new_with_free_func ((GDestroyNotify) plx_reshard_plan_free);
  self->names = g_ptr_array_new_with_free_func (g_free);
  self->chart_arrays = g_array_new (FALSE, FALSE, sizeof (PlxReshardChartArray));
  self->setting = TRUE;

  gtk_orientable_set_orientation (GTK_ORIENTABLE (self), GTK_ORIENTATION_VERTICAL);
  gtk_box_set_spacing (GTK_BOX (self), 10);
  gtk_widget_set_margin_start (GTK_WIDGET (self), 18);
  gtk_widget_set_margin_end (GTK_WIDGET (self), 18);
  gtk_widget_set_margin_top (GTK_WIDGET (self), 14);
  gtk_widget_set_margin_bottom (GTK_WIDGET (self), 12);

  /* The mode: two linked toggles, one of them always down. */
  gtk_widget_add_css_class (modes, "linked");
  w = gtk_toggle_button_new_with_label (_("One array"));
  gtk_widget_set_name (w, "mode-array");
  self->mode_array = GTK_TOGGLE_BUTTON (w);
  gtk_box_append (GTK_BOX (modes), w);
  w = gtk_toggle_button_new_with_label (_("The scenario's checkpoint"));
  gtk_widget_set_name (w, "mode-checkpoint");
  self->mode_checkpoint = GTK_TOGGLE_BUTTON (w);
  gtk_toggle_button_set_group (self->mode_checkpoint, self->mode_array);
  gtk_box_append (GTK_BOX (modes), w);
  gtk_toggle_button_set_active (self->mode_array, TRUE);
  g_signal_connect_swapped (self->mode_checkpoint, "toggled", G_CALLBACK (on_mode), self);
  gtk_widget_set_halign (modes, GTK_ALIGN_START);

  top = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 24);
  gtk_box_append (GTK_BOX (top), modes);
  gtk_box_append (GTK_BOX (self), top);

  self->controls = GTK_STACK (gtk_stack_new ());
  gtk_stack_set_hhomogeneous (self->controls, FALSE);
  gtk_stack_set_vhomogeneous (self->controls, FALSE);
  gtk_stack_add_named (self->controls, build_array_controls (self), "array");
  gtk_stack_add_named (self->controls, build_checkpoint_controls (self), "checkpoint");
  gtk_box_append (GTK_BOX (self), GTK_WIDGET (self->controls));

  self->plan_error = error_label ();
  gtk_box_append (GTK_BOX (self), GTK_WIDGET (self->plan_error));
  self->totals = GTK_LABEL (gtk_label_new ("–"));
  gtk_label_set_xalign (self->totals, 0.0);
  gtk_label_set_wrap (self->totals, TRUE);
  gtk_label_set_selectable (self->totals, TRUE);
  gtk_widget_add_css_class (GTK_WIDGET (self->totals), "heading");
  gtk_box_append (GTK_BOX (self), GTK_WIDGET (self->totals));

  self->chart = GTK_DRAWING_AREA (gtk_drawing_area_new ());
  gtk_widget_set_vexpand (GTK_WIDGET (self->chart), TRUE);
  gtk_widget_set_hexpand (GTK_WIDGET (self->chart), TRUE);
  gtk_widget_set_size_request (GTK_WIDGET (self->chart), 400, 320);
  gtk_drawing_area_set_draw_func (self->chart, draw_chart, self, NULL);
  gtk_widget_set_has_tooltip (GTK_WIDGET (self->chart), TRUE);
  g_signal_connect (self->chart, "query-tooltip", G_CALLBACK (on_query_tooltip), self);
  gtk_box_append (GTK_BOX (self), GTK_WIDGET (self->chart));
  self->setting = FALSE;
  replan (self);
}

GtkWidget *
plx_reshard_page_new (void)
{
  return g_object_new (PLX_TYPE_RESHARD_PAGE, NULL);
}

void
plx_reshard_page_set_scenario (PlxReshardPage *self,
                               PlxResult      *result)
{
  if (result != NULL)
    plx_result_ref (result);
  g_clear_pointer (&self->scenario, plx_result_unref);
  self->scenario = result;
  if (result != NULL)
    {
      const PlxStrategy *s = result->scenario->strategy;
      g_autofree char *text = NULL;
      if (s->tp != self->source_tp || s->pp != self->source_pp)
        {
          /* A new starting layout: offer the move issue 14 names, half the TP ranks
           * and twice the stages, where TP halves. */
          self->source_tp = s->tp;
          self->source_pp = s->pp;
          self->setting = TRUE;
          gtk_spin_button_set_value (self->tp, s->tp % 2 == 0 ? s->tp / 2 : s->tp);
          gtk_spin_button_set_value (self->pp, s->tp % 2 == 0 ? s->pp * 2 : s->pp);
          self->setting = FALSE;
        }
      /* TRANSLATORS: the scenario's model, TP and PP degrees and GPUs per model copy. */
      text = g_strdup_printf (_("%s at TP %u × PP %u (%u GPUs a model copy)"), result->scenario->model->name, s->tp,
                              s->pp, s->tp * s->pp);
      gtk_label_set_text (self->source, text);
    }
  else
    gtk_label_set_text (self->source, _("The scenario has an error"));
  replan (self);
}

void
plx_reshard_page_set_dark (PlxReshardPage *self,
                           gboolean        dark)
{
  self->dark = dark;
  gtk_widget_queue_draw (GTK_WIDGET (self->chart));
}

GtkWidget *
plx_reshard_page_get_control (PlxReshardPage *self,
                              const char     *name)
{
  GtkWidget *controls[] = { GTK_WIDGET (self->mode_array), GTK_WIDGET (self->mode_checkpoint),
                            GTK_WIDGET (self->entry[ENTRY_SHAPE]), GTK_WIDGET (self->dtype),
                            GTK_WIDGET (self->entry[ENTRY_MESH]), GTK_WIDGET (self->entry[ENTRY_FROM]),
                            GTK_WIDGET (self->entry[ENTRY_TO]), GTK_WIDGET (self->tp), GTK_WIDGET (self->pp),
                            GTK_WIDGET (self->optimizer) };

  for (guint i = 0; i < G_N_ELEMENTS (controls); i++)
    if (g_str_equal (gtk_widget_get_name (controls[i]), name))
      return controls[i];
  return NULL;
}

gboolean
plx_reshard_page_get_totals (PlxReshardPage *self,
                             double         *time_s,
                             double         *peak_bytes,
                             double         *base_time_s,
                             double         *base_peak_bytes)
{
  if (time_s != NULL)
    *time_s = self->time_s;
  if (peak_bytes != NULL)
    *peak_bytes = self->peak_bytes;
  if (base_time_s != NULL)
    *base_time_s = self->base_time_s;
  if (base_peak_bytes != NULL)
    *base_peak_bytes = self->base_peak_bytes;
  return self->planned;
}

const char *
plx_reshard_page_get_error (PlxReshardPage *self)
{
  return self->error;
}

const char *
plx_reshard_page_get_totals_text (PlxReshardPage *self)
{
  return gtk_label_get_text (self->totals);
}
