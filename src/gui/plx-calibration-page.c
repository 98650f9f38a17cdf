/* The Calibration page (plx-calibration-page.h). A fit of nccl-tests output takes a
 * joint least-squares refinement (tens of milliseconds, a Kineto trace's parse
 * longer): it runs on a GTask thread and only the newest request's answer is shown.
 * The files of the last fit that worked are kept: a file that fails is named in the
 * error and dropped, not left to break every later fit. */
#include <glib/gi18n-lib.h>
#include <math.h>

#include "plx-calibration-chart.h"
#include "plx-calibration-page.h"
#include "plx-format.h"
#include "plx-latest-task.h"
#include "plx-render-export.h"
#include "base/plx-json.h"

/* Rows of the residual table; a Kineto trace may give hundreds of ops. */
#define MAX_TABLE_ROWS 200

struct _PlxCalibrationPage
{
  GtkBox          parent_instance;
  GtkStack       *stack;          /* "empty" (a status page) or "fit" */
  GtkSpinner     *spinner;
  GtkWidget      *use_button;
  GtkWidget      *save_button;
  GtkWidget      *clear_button;
  GtkWidget      *layout_box;     /* the nccl-tests group: shown for nccl-tests */
  GtkSpinButton  *gpn_spin;
  GtkSpinButton  *nodes_spin;
  GtkWidget      *curve_box;
  GtkDropDown    *curve_drop;
  GtkStringList  *curve_names;
  GtkLabel       *files_label;
  GtkLabel       *status;         /* an error */
  GtkLabel       *notice;         /* what happened to earlier files, a save */
  GtkLabel       *params;
  GtkDrawingArea *chart;
  GtkGrid        *table;
  GtkLabel       *match_title;    /* a trace's GEMMs matched to the scenario's */
  GtkGrid        *match_table;

  GPtrArray      *paths;          /* char *: the files loaded */
  GArray         *kinds;          /* PlxMeasurementKind, by path */
  GPtrArray      *fitted_paths;   /* the files of the last fit that worked */
  GArray         *fitted_kinds;
  JsonNode       *base;           /* the scenario's cluster */
  PlxResult      *result;         /* the scenario: a trace's GEMMs are matched to its model and strategy */
  char           *scenario_key;   /* its model and strategy as JSON text */
  char           *base_text;
  JsonNode       *applied;        /* the cluster this page put into the scenario */
  PlxMeasuredFit *fit;
  gboolean        layout_edited;  /* the user set the group: the files' ranks no longer override it */
  gboolean        updating;
  PlxLatestTask   task;           /* the newest fit's answer is shown */
  gboolean        busy;
  gboolean        dark;
};

G_DEFINE_FINAL_TYPE (PlxCalibrationPage, plx_calibration_page, GTK_TYPE_BOX)

enum { USE_CLUSTER, N_SIGNALS };
static guint signals[N_SIGNALS];

typedef struct
{
  char              **paths;
  GArray             *kinds;
  JsonNode           *base;
  PlxResult          *result;     /* nullable */
  guint               gpus_per_node, nodes;
  gboolean            layout_from_files;
} Request;

static void
request_free (Request *q)
{
  g_strfreev (q->paths);
  g_array_unref (q->kinds);
  json_node_unref (q->base);
  g_clear_pointer (&q->result, plx_result_unref);
  g_free (q);
}

/* ---- text ------------------------------------------------------------------------ */

static char *
curve_title (const PlxCalCurve *c)
{
  switch (c->role)
    {
    case PLX_CAL_CURVE_INTRA_NODE:
      return g_strdup (_("Intra-node link"));
    case PLX_CAL_CURVE_INTER_NODE:
      return g_strdup (_("Inter-node link"));
    case PLX_CAL_CURVE_MATMUL:
      return c->dtype != NULL ? g_strdup_printf (_("%s GEMMs"), c->dtype) : g_strdup (_("GEMMs"));
    case PLX_CAL_CURVE_MEMORY:
    default:
      return g_strdup (_("Memory-bound kernels"));
    }
}

static char *
format_size (const PlxCalCurve *c, double x)
{
  return c->x_unit == PLX_CAL_X_FLOPS ? plx_format_flops (x) : plx_format_bytes (x);
}

static char *
format_value (const PlxCalCurve *c, double v)
{
  return c->residual_is_time ? plx_format_time_short (v) : g_strdup_printf ("%.1f %%", v * 100.0);
}

/* The fitted parameters, under the chart. */
static char *
params_text (const PlxCalibrationPage *self, const PlxCalCurve *c)
{
  if (c->role == PLX_CAL_CURVE_INTRA_NODE || c->role == PLX_CAL_CURVE_INTER_NODE)
    {
      g_autofree char *lat = plx_format_time_short (c->latency_s);
      g_autofree char *latency = isfinite (c->latency_se_s)
                                   ? g_strdup_printf (_("latency %s ± %.2f µs per step"), lat, c->latency_se_s * 1e6)
                                   : g_strdup_printf (_("latency %s per step (kept: fewer than 3 sizes up to 64 KiB)"), lat);
      g_autofree char *group = g_strdup_printf (ngettext ("%u GPUs per node × %u node", "%u GPUs per node × %u nodes",
                                                          self->fit->nodes),
                                                self->fit->gpus_per_node, self->fit->nodes);
      return g_strdup_printf (_("Group %s; link peak %.0f GB/s; %s"), group, c->peak_Bps / 1e9, latency);
    }
  if (isfinite (c->e_max))
    {
      g_autofree char *half = format_size (c, c->x_half);
      if (isfinite (c->e_max_se) && isfinite (c->x_half_se))
        {
          g_autofree char *half_se = format_size (c, c->x_half_se);
          return g_strdup_printf (_("Curve e_max · x / (x + x_half): e_max %.1f ± %.1f %%, x_half %s ± %s"),
                                  c->e_max * 100.0, c->e_max_se * 100.0, half, half_se);
        }
      return g_strdup_printf (_("Curve e_max · x / (x + x_half): e_max %.1f %%, x_half %s"), c->e_max * 100.0, half);
    }
  return g_strdup (_("Measured points folded into the cluster's curve (grouped within a factor of 2 in size)"));
}

/* ---- showing a fit ----------------------------------------------------------------- */

static void
table_cell (GtkGrid *grid, const char *text, int column, int row, gboolean header, gboolean numeric)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (label), numeric ? 1.0 : 0.0);
  if (header)
    gtk_widget_add_css_class (label, "heading");
  if (numeric)
    gtk_widget_add_css_class (label, "numeric");
  gtk_label_set_selectable (GTK_LABEL (label), !header);
  gtk_grid_attach (grid, label, column, row, 1, 1);
}

static void
clear_table (PlxCalibrationPage *self)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->table))) != NULL)
    gtk_grid_remove (self->table, child);
}

/* A residual that rounds to zero reads "0.0 %", never "-0.0 %"; none reads "—". */
static char *
residual_text (double pct)
{
  if (!isfinite (pct))
    return g_strdup ("—");
  return fabs (pct) < 0.05 ? g_strdup ("0.0 %") : g_strdup_printf ("%+.1f %%", pct);
}

/* Whether some op of the link got a curve of its own (the CLI's own_curve). */
static gboolean
has_own_curves (const PlxCalCurve *c)
{
  for (guint i = 0; i < c->residuals->len; i++)
    if (isfinite (g_array_index (c->residuals, PlxCalResidual, i).own_residual_pct))
      return TRUE;
  return FALSE;
}

static void
show_curve (PlxCalibrationPage *self)
{
  const PlxCalCurve *c = plx_calibration_page_get_curve (self);
  const char *headers[6];
  g_autofree char *params = NULL;
  guint rows, columns;

  clear_table (self);
  gtk_widget_queue_draw (GTK_WIDGET (self->chart));
  if (c == NULL)
    {
      gtk_label_set_text (self->params, "");
      return;
    }
  params = params_text (self, c);
  gtk_label_set_text (self->params, params);
  headers[0] = c->role == PLX_CAL_CURVE_INTRA_NODE || c->role == PLX_CAL_CURVE_INTER_NODE ? _("Test") : _("File");
  headers[1] = c->x_unit == PLX_CAL_X_FLOPS ? _("Size (FLOPs)") : _("Size (bytes)");
  headers[2] = c->residual_is_time ? _("Measured time") : _("Measured efficiency");
  headers[3] = c->residual_is_time ? _("Fitted time") : _("Fitted efficiency");
  headers[4] = _("Residual");
  headers[5] = _("Own curve");
  columns = has_own_curves (c) ? 6 : 5;
  for (guint i = 0; i < columns; i++)
    table_cell (self->table, headers[i], i, 0, TRUE, i > 0);
  if (columns == 6)
    gtk_widget_set_tooltip_text (gtk_grid_get_child_at (self->table, 5, 0),
                                 /* xgettext:no-c-format */
                                 _("The residual against the op's own curve: the link curve is all-reduce's, and "
                                   "each op it misses by more than 2 % got a curve of its own "
                                   "(efficiency_by_collective)"));
  gtk_widget_set_tooltip_text (gtk_grid_get_child_at (self->table, 4, 0),
                               c->residual_is_time ? _("(fitted − measured) / measured: negative where the cluster "
                                                       "predicts faster than measured")
                                                   : _("measured / fitted − 1: positive where the kernel ran faster "
                                                       "than the curve"));
  rows = MIN (c->residuals->len, MAX_TABLE_ROWS);
  for (guint i = 0; i < rows; i++)
    {
      const PlxCalResidual *r = &g_array_index (c->residuals, PlxCalResidual, i);
      const PlxCalSeries *s = c->series->pdata[r->series];
      g_autofree char *size = format_size (c, r->size);
      g_autofree char *measured = format_value (c, r->measured);
      g_autofree char *fitted = format_value (c, r->fitted);
      g_autofree char *residual = residual_text (r->residual_pct);
      g_autofree char *own = residual_text (r->own_residual_pct);

      table_cell (self->table, s->label, 0, i + 1, FALSE, FALSE);
      table_cell (self->table, size, 1, i + 1, FALSE, TRUE);
      table_cell (self->table, measured, 2, i + 1, FALSE, TRUE);
      table_cell (self->table, fitted, 3, i + 1, FALSE, TRUE);
      table_cell (self->table, residual, 4, i + 1, FALSE, TRUE);
      if (columns == 6)
        table_cell (self->table, own, 5, i + 1, FALSE, TRUE);
    }
  if (c->residuals->len > rows)
    {
      g_autofree char *more = g_strdup_printf (_("… and %u more"), c->residuals->len - rows);
      table_cell (self->table, more, 0, rows + 1, FALSE, FALSE);
    }
}

/* DistSim's per-op times: each of the scenario's GEMM products, the trace's median
 * where a trace GEMM had its shape and dtype, beside the roofline it replaces. */
static void
show_match (PlxCalibrationPage *self)
{
  const PlxGemmMatch *match = self->fit != NULL ? self->fit->gemm_match : NULL;
  const char *headers[] = { N_("Op"), N_("Product"), N_("GEMM (m × k · k × n)"), N_("Measured"), N_("Roofline"),
                            N_("Measured / roofline") };
  GtkWidget *child;
  guint matched = 0, shown = 0;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->match_table))) != NULL)
    gtk_grid_remove (self->match_table, child);
  gtk_widget_set_visible (GTK_WIDGET (self->match_title), match != NULL);
  gtk_widget_set_visible (GTK_WIDGET (self->match_table), match != NULL);
  if (match == NULL)
    return;
  for (guint i = 0; i < G_N_ELEMENTS (headers); i++)
    table_cell (self->match_table, _(headers[i]), i, 0, TRUE, i > 1);
  for (guint i = 0; i < match->rows->len; i++)
    {
      const PlxGemmMatchRow *r = &g_array_index (match->rows, PlxGemmMatchRow, i);
      g_autofree char *shape = g_strdup_printf ("%.0f × %.0f · %.0f × %.0f %s", r->m, r->k, r->k, r->n,
                                                plx_dtype_to_string (r->dtype));
      g_autofree char *roofline = plx_format_time_short (r->roofline_s);
      g_autofree char *measured = r->measured_s > 0.0 ? plx_format_time_short (r->measured_s) : g_strdup ("—");
      g_autofree char *ratio = r->measured_s > 0.0 && r->roofline_s > 0.0
                                 ? g_strdup_printf ("%.2f×", r->measured_s / r->roofline_s)
                                 : g_strdup ("—");
      g_autofree char *op = g_strdup_printf ("%s (%s)", r->op, r->part);

      matched += r->measured_s > 0.0;
      if (shown >= MAX_TABLE_ROWS)
        continue;
      shown++;
      table_cell (self->match_table, op, 0, (int) shown, FALSE, FALSE);
      table_cell (self->match_table, plx_gemm_product_to_string (r->product), 1, (int) shown, FALSE, FALSE);
      table_cell (self->match_table, shape, 2, (int) shown, FALSE, TRUE);
      table_cell (self->match_table, measured, 3, (int) shown, FALSE, TRUE);
      table_cell (self->match_table, roofline, 4, (int) shown, FALSE, TRUE);
      table_cell (self->match_table, ratio, 5, (int) shown, FALSE, TRUE);
    }
  {
    g_autofree char *title = g_strdup_printf (
      ngettext ("The scenario's GEMMs: %u of %u product measured in the trace, used in place of the roofline",
                "The scenario's GEMMs: %u of %u products measured in the trace, used in place of the roofline",
                match->rows->len),
      matched, match->rows->len);
    gtk_label_set_text (self->match_title, title);
  }
}

static void
show_fit (PlxCalibrationPage *self)
{
  gboolean have = self->fit != NULL;
  gboolean nccl = self->kinds->len > 0 && g_array_index (self->kinds, PlxMeasurementKind, 0) == PLX_MEASUREMENT_NCCL_TESTS;
  g_autoptr (GString) files = g_string_new (NULL);

  self->updating = TRUE;
  gtk_string_list_splice (self->curve_names, 0, g_list_model_get_n_items (G_LIST_MODEL (self->curve_names)), NULL);
  for (guint i = 0; have && i < self->fit->curves->len; i++)
    {
      g_autofree char *t = curve_title (self->fit->curves->pdata[i]);
      gtk_string_list_append (self->curve_names, t);
    }
  gtk_drop_down_set_selected (self->curve_drop, 0);
  if (have && self->fit->nodes > 0)
    {
      gtk_spin_button_set_value (self->gpn_spin, self->fit->gpus_per_node);
      gtk_spin_button_set_value (self->nodes_spin, self->fit->nodes);
    }
  self->updating = FALSE;
  gtk_widget_set_visible (self->curve_box, have && self->fit->curves->len > 1);
  gtk_widget_set_visible (self->layout_box, nccl);
  for (guint i = 0; i < self->paths->len; i++)
    {
      g_autofree char *base = g_path_get_basename (self->paths->pdata[i]);
      g_string_append_printf (files, "%s%s (%s)", i > 0 ? ", " : "", base,
                              plx_measurement_kind_name (g_array_index (self->kinds, PlxMeasurementKind, i)));
    }
  gtk_label_set_text (self->files_label, files->str);
  gtk_widget_set_sensitive (self->use_button, have && self->base != NULL);
  gtk_widget_set_sensitive (self->save_button, have);
  gtk_widget_set_sensitive (self->clear_button, self->paths->len > 0);
  gtk_stack_set_visible_child_name (self->stack, self->paths->len > 0 ? "fit" : "empty");
  show_curve (self);
  show_match (self);
}

static void
show_error (PlxCalibrationPage *self, const char *message)
{
  gtk_label_set_text (self->status, message != NULL ? message : "");
  gtk_widget_set_visible (GTK_WIDGET (self->status), message != NULL);
}

static void
show_notice (PlxCalibrationPage *self, const char *message)
{
  gtk_label_set_text (self->notice, message != NULL ? message : "");
  gtk_widget_set_visible (GTK_WIDGET (self->notice), message != NULL);
}

/* ---- fitting ----------------------------------------------------------------------- */

static void
fit_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  Request *q = data;
  GError *error = NULL;
  const PlxScenario *sc = q->result != NULL ? q->result->scenario : NULL;
  PlxMeasuredFit *fit = plx_measured_fit (q->base, _("the scenario's cluster"), (const char *const *) q->paths,
                                          (const PlxMeasurementKind *) (void *) q->kinds->data, q->kinds->len,
                                          q->gpus_per_node, q->nodes, q->layout_from_files,
                                          sc != NULL ? sc->model : NULL, sc != NULL ? sc->strategy : NULL, &error);

  if (fit == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, fit, (GDestroyNotify) plx_measured_fit_free);
}

static void
copy_files (GPtrArray *to_paths, GArray *to_kinds, GPtrArray *from_paths, GArray *from_kinds)
{
  g_ptr_array_set_size (to_paths, 0);
  for (guint i = 0; i < from_paths->len; i++)
    g_ptr_array_add (to_paths, g_strdup (from_paths->pdata[i]));
  g_array_set_size (to_kinds, 0);
  g_array_append_vals (to_kinds, from_kinds->data, from_kinds->len);
}

static void
fit_done (GObject *source, GAsyncResult *res, gpointer data)
{
  PlxCalibrationPage *self = PLX_CALIBRATION_PAGE (source);
  g_autoptr (GError) error = NULL;
  PlxMeasuredFit *fit;

  if (!plx_latest_task_finish (&self->task, res))
    return;
  fit = g_task_propagate_pointer (G_TASK (res), &error);
  self->busy = FALSE;
  gtk_spinner_stop (self->spinner);
  if (fit == NULL)
    {
      /* Back to the files that fitted: the one at fault is named in the message. A
       * notice that the new file replaced or set aside those files is no longer
       * true. */
      copy_files (self->paths, self->kinds, self->fitted_paths, self->fitted_kinds);
      show_error (self, error->message);
      show_notice (self, NULL);
    }
  else
    {
      g_clear_pointer (&self->fit, plx_measured_fit_free);
      self->fit = fit;
      copy_files (self->fitted_paths, self->fitted_kinds, self->paths, self->kinds);
      show_error (self, NULL);
    }
  if (self->paths->len == 0)
    g_clear_pointer (&self->fit, plx_measured_fit_free);
  show_fit (self);
}

static void
refit (PlxCalibrationPage *self)
{
  Request *q;

  plx_latest_task_supersede (&self->task);
  if (self->paths->len == 0 || self->base == NULL)
    {
      self->busy = FALSE;
      gtk_spinner_stop (self->spinner);
      if (self->paths->len == 0)
        g_clear_pointer (&self->fit, plx_measured_fit_free);
      show_fit (self);
      return;
    }
  q = g_new0 (Request, 1);
  q->paths = g_new0 (char *, self->paths->len + 1);
  for (guint i = 0; i < self->paths->len; i++)
    q->paths[i] = g_strdup (self->paths->pdata[i]);
  q->kinds = g_array_copy (self->kinds);
  /* A tree of its own: json_node_copy shares the objects, whose reference counts
   * the fit's thread and this one would then change at once (a fresh CI's ASan run
   * crashed in g_slice_alloc under plx_presets_expand on the fit's thread). */
  q->base = plx_json_deep_copy (self->base);
  q->result = self->result != NULL ? plx_result_ref (self->result) : NULL;
  q->gpus_per_node = (guint) gtk_spin_button_get_value (self->gpn_spin);
  q->nodes = (guint) gtk_spin_button_get_value (self->nodes_spin);
  q->layout_from_files = !self->layout_edited;
  self->busy = TRUE;
  gtk_spinner_start (self->spinner);
  plx_latest_task_start (&self->task, self, "[parallax] calibration fit", q, (GDestroyNotify) request_free, fit_thread,
                         fit_done);
}

/* A file joins the calibration, replaces one of its kind, or starts a new one when
 * its kind does not combine with what is loaded (the CLI's rule). FALSE: not a
 * measurement file (the error names it). */
static gboolean
add_path (PlxCalibrationPage *self, const char *path, GString *notices, GError **error)
{
  PlxMeasurementKind kind;

  if (!plx_measurement_detect (path, &kind, error))
    return FALSE;
  for (guint i = 0; i < self->paths->len; i++)
    if (g_str_equal (self->paths->pdata[i], path))
      return TRUE;
  if (self->kinds->len > 0 && !plx_measurement_kinds_combine (g_array_index (self->kinds, PlxMeasurementKind, 0), kind))
    {
      g_autofree char *base = g_path_get_basename (path);
      g_string_append_printf (notices,
                              _("%s is a %s: the %s loaded before were set aside (one kind of measurement a "
                                "calibration, as in parallax-cli calibrate). Use This Cluster first, then open "
                                "the next kind to calibrate on top of it.\n"),
                              base, plx_measurement_kind_name (kind),
                              plx_measurement_kind_name (g_array_index (self->kinds, PlxMeasurementKind, 0)));
      g_ptr_array_set_size (self->paths, 0);
      g_array_set_size (self->kinds, 0);
    }
  /* One sweep of each kind and one trace: a new one replaces the old. */
  for (guint i = 0; kind != PLX_MEASUREMENT_NCCL_TESTS && i < self->paths->len; i++)
    if (g_array_index (self->kinds, PlxMeasurementKind, i) == kind)
      {
        g_autofree char *old = g_path_get_basename (self->paths->pdata[i]);
        g_string_append_printf (notices, _("Replaced %s (one %s a calibration).\n"), old, plx_measurement_kind_name (kind));
        g_ptr_array_remove_index (self->paths, i);
        g_array_remove_index (self->kinds, i);
        break;
      }
  g_ptr_array_add (self->paths, g_strdup (path));
  g_array_append_val (self->kinds, kind);
  return TRUE;
}

static void
open_files (PlxCalibrationPage *self, GListModel *files)
{
  g_autoptr (GString) notices = g_string_new (NULL);
  g_autoptr (GString) errors = g_string_new (NULL);
  guint added = 0;

  for (guint i = 0; i < g_list_model_get_n_items (files); i++)
    {
      g_autoptr (GFile) file = g_list_model_get_item (files, i);
      g_autofree char *path = g_file_get_path (file);
      g_autoptr (GError) error = NULL;

      if (path == NULL)
        {
          g_autofree char *uri = g_file_get_uri (file);
          g_string_append_printf (errors, _("%s: not a local file\n"), uri);
        }
      else if (!add_path (self, path, notices, &error))
        g_string_append_printf (errors, "%s\n", error->message);
      else
        added++;
    }
  g_strchomp (notices->str);
  g_strchomp (errors->str);
  show_notice (self, notices->len > 0 ? notices->str : NULL);
  show_error (self, errors->len > 0 ? errors->str : NULL);
  if (added > 0)
    refit (self);
}

static void
on_open_response (GtkNativeDialog *dialog, int response, PlxCalibrationPage *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GListModel) files = gtk_file_chooser_get_files (GTK_FILE_CHOOSER (dialog));
      open_files (self, files);
    }
  gtk_native_dialog_destroy (dialog);
  g_object_unref (dialog);
}

static void
on_open_clicked (GtkButton *button, PlxCalibrationPage *self)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  GtkFileChooserNative *dialog = gtk_file_chooser_native_new (_("Open Measurements"), GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL,
                                                              GTK_FILE_CHOOSER_ACTION_OPEN, _("_Open"), _("_Cancel"));
  GtkFileFilter *f = gtk_file_filter_new ();

  gtk_file_chooser_set_select_multiple (GTK_FILE_CHOOSER (dialog), TRUE);
  gtk_file_filter_set_name (f, _("Measurements (nccl-tests, CSV sweeps, Kineto JSON)"));
  gtk_file_filter_add_pattern (f, "*.txt");
  gtk_file_filter_add_pattern (f, "*.log");
  gtk_file_filter_add_pattern (f, "*.out");
  gtk_file_filter_add_pattern (f, "*.csv");
  gtk_file_filter_add_pattern (f, "*.json");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (dialog), f);
  g_object_unref (f);
  f = gtk_file_filter_new ();
  gtk_file_filter_set_name (f, _("All files"));
  gtk_file_filter_add_pattern (f, "*");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (dialog), f);
  g_object_unref (f);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (dialog), TRUE);
  g_signal_connect (dialog, "response", G_CALLBACK (on_open_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

static void
on_clear_clicked (GtkButton *button, PlxCalibrationPage *self)
{
  g_ptr_array_set_size (self->paths, 0);
  g_array_set_size (self->kinds, 0);
  g_ptr_array_set_size (self->fitted_paths, 0);
  g_array_set_size (self->fitted_kinds, 0);
  self->layout_edited = FALSE;
  show_error (self, NULL);
  show_notice (self, NULL);
  refit (self);
}

static void
on_layout_changed (GtkSpinButton *spin, PlxCalibrationPage *self)
{
  if (self->updating)
    return;
  self->layout_edited = TRUE;
  refit (self);
}

static void
on_curve_selected (GtkDropDown *drop, GParamSpec *pspec, PlxCalibrationPage *self)
{
  if (!self->updating)
    show_curve (self);
}

static void
on_use_clicked (GtkButton *button, PlxCalibrationPage *self)
{
  if (self->fit == NULL)
    return;
  g_clear_pointer (&self->applied, json_node_unref);
  self->applied = plx_json_deep_copy (self->fit->cluster);
  g_signal_emit (self, signals[USE_CLUSTER], 0, self->fit->cluster);
}

static void
on_save_response (GtkNativeDialog *dialog, int response, PlxCalibrationPage *self)
{
  if (response == GTK_RESPONSE_ACCEPT && self->fit != NULL)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      g_autofree char *path = g_file_get_path (file);
      g_autoptr (GError) error = NULL;

      /* As calibrate --out writes it (docs/formats.md, "Output files"): never half a
       * cluster file, never `1e+17.0`. */
      if (path == NULL || !plx_json_write_file (self->fit->cluster, path, &error))
        {
          g_autofree char *message = g_strdup_printf (_("Could not save the cluster: %s"),
                                                      error != NULL ? error->message : _("not a local file"));
          show_error (self, message);
        }
      else
        {
          g_autofree char *message = g_strdup_printf (_("Saved the calibrated cluster as %s"), path);
          show_error (self, NULL);
          show_notice (self, message);
        }
    }
  gtk_native_dialog_destroy (dialog);
  g_object_unref (dialog);
}

static void
on_save_clicked (GtkButton *button, PlxCalibrationPage *self)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  GtkFileChooserNative *dialog = gtk_file_chooser_native_new (_("Save Cluster"), GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL,
                                                              GTK_FILE_CHOOSER_ACTION_SAVE, _("_Save"), _("_Cancel"));

  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (dialog), "cluster.json");
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (dialog), TRUE);
  g_signal_connect (dialog, "response", G_CALLBACK (on_save_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

/* ---- public ------------------------------------------------------------------------ */

/* The model and strategy a trace's GEMMs are matched to. */
static char *
scenario_key (PlxResult *result)
{
  JsonObject *o = result != NULL && result->json != NULL && JSON_NODE_HOLDS_OBJECT (result->json)
                    ? json_node_get_object (result->json)
                    : NULL;
  JsonNode *model = o != NULL ? json_object_get_member (o, "model") : NULL;
  JsonNode *strategy = o != NULL ? json_object_get_member (o, "strategy") : NULL;
  g_autofree char *m = model != NULL ? json_to_string (model, FALSE) : NULL;
  g_autofree char *st = strategy != NULL ? json_to_string (strategy, FALSE) : NULL;

  return o != NULL ? g_strconcat (m != NULL ? m : "", "\n", st != NULL ? st : "", NULL) : NULL;
}

static gboolean
has_trace (PlxCalibrationPage *self)
{
  for (guint i = 0; i < self->kinds->len; i++)
    if (g_array_index (self->kinds, PlxMeasurementKind, i) == PLX_MEASUREMENT_KINETO)
      return TRUE;
  return FALSE;
}

void
plx_calibration_page_set_scenario (PlxCalibrationPage *self,
                                   PlxResult          *result)
{
  JsonNode *cluster = result != NULL && result->json != NULL
                        ? json_object_get_member (json_node_get_object (result->json), "cluster")
                        : NULL;
  g_autofree char *text = cluster != NULL ? json_to_string (cluster, FALSE) : NULL;
  g_autofree char *key = scenario_key (result);
  gboolean cluster_changed = g_strcmp0 (text, self->base_text) != 0;
  gboolean scenario_changed = g_strcmp0 (key, self->scenario_key) != 0;

  if (result != self->result)
    {
      g_clear_pointer (&self->result, plx_result_unref);
      self->result = result != NULL ? plx_result_ref (result) : NULL;
    }
  g_free (self->scenario_key);
  self->scenario_key = g_steal_pointer (&key);
  /* A new TP or micro-batch changes the GEMMs a trace is matched to. */
  if (!cluster_changed && !(scenario_changed && has_trace (self)))
    return;
  if (cluster_changed)
    {
      g_clear_pointer (&self->base, json_node_unref);
      g_free (self->base_text);
      self->base_text = g_steal_pointer (&text);
      self->base = cluster != NULL ? plx_json_deep_copy (cluster) : NULL;
    }
  if (result != NULL && !self->layout_edited && self->paths->len == 0)
    {
      self->updating = TRUE;
      gtk_spin_button_set_value (self->gpn_spin, result->scenario->cluster->gpus_per_node);
      gtk_spin_button_set_value (self->nodes_spin, result->scenario->cluster->num_nodes);
      self->updating = FALSE;
    }
  /* The cluster this page just put into the scenario is its own fit's result: the
   * chart stays as it is (refitting on it would show the fit as its own "before").
   * Its gpu.measured_gemms are keyed by shape, so a new strategy uses those that
   * still match without a refit. Compared as JSON, not as text: the scenario
   * panel's copy of the cluster may list its members in another order. */
  if (self->base != NULL && self->applied != NULL && json_node_equal (self->base, self->applied))
    {
      gtk_widget_set_sensitive (self->use_button, FALSE);
      return;
    }
  g_clear_pointer (&self->applied, json_node_unref);
  refit (self);
}

void
plx_calibration_page_set_dark (PlxCalibrationPage *self,
                               gboolean            dark)
{
  self->dark = dark;
  gtk_widget_queue_draw (GTK_WIDGET (self->chart));
}

gboolean
plx_calibration_page_is_busy (PlxCalibrationPage *self)
{
  return self->busy;
}

const PlxMeasuredFit *
plx_calibration_page_get_fit (PlxCalibrationPage *self)
{
  return self->fit;
}

const PlxCalCurve *
plx_calibration_page_get_curve (PlxCalibrationPage *self)
{
  guint i = gtk_drop_down_get_selected (self->curve_drop);

  if (self->fit == NULL || self->fit->curves->len == 0)
    return NULL;
  return self->fit->curves->pdata[i < self->fit->curves->len ? i : 0];
}

static char *
chart_title (PlxCalibrationPage *self)
{
  const PlxCalCurve *c = plx_calibration_page_get_curve (self);
  g_autofree char *t = c != NULL ? curve_title (c) : NULL;

  return t != NULL ? g_strdup_printf (_("Calibration: %s"), t) : g_strdup (_("Calibration"));
}

static void
draw (GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer data)
{
  PlxCalibrationPage *self = data;
  g_autofree char *title = chart_title (self);
  PlxRenderStyle style;

  plx_render_style_init (&style, self->dark, 1.0);
  plx_calibration_chart_render (plx_calibration_page_get_curve (self), title,
                                self->busy ? _("Fitting…") : _("No fitted curve"), &style, cr, width, height);
}

static void
export_draw (cairo_t *cr, double width, double height, gpointer data)
{
  PlxCalibrationPage *self = data;
  g_autofree char *title = chart_title (self);

  plx_calibration_chart_render (plx_calibration_page_get_curve (self), title, NULL,
                                g_object_get_data (G_OBJECT (self), "export-style"), cr, width, height);
}

gboolean
plx_calibration_page_export (PlxCalibrationPage *self,
                             const char         *path,
                             double              width,
                             double              height,
                             double              scale,
                             int                 dark,
                             GError            **error)
{
  PlxRenderStyle style;
  double w = width > 0 ? width : MAX (gtk_widget_get_width (GTK_WIDGET (self->chart)), 800);
  double h = height > 0 ? height : MAX (gtk_widget_get_height (GTK_WIDGET (self->chart)), 500);
  gboolean ok;

  if (plx_calibration_page_get_curve (self) == NULL)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT, _("%s: nothing to export until a measurement is fitted"),
                   path);
      return FALSE;
    }
  plx_render_style_init (&style, dark < 0 ? self->dark : dark != 0, scale > 0 ? scale : 1.0);
  g_object_set_data (G_OBJECT (self), "export-style", &style);
  ok = plx_render_export (path, w, h, scale > 0 ? scale : 1.0, &style, export_draw, self, error);
  g_object_set_data (G_OBJECT (self), "export-style", NULL);
  return ok;
}

/* ---- construction ------------------------------------------------------------------ */

static void
plx_calibration_page_dispose (GObject *object)
{
  PlxCalibrationPage *self = PLX_CALIBRATION_PAGE (object);

  /* A task still running holds its own copies; its answer is dropped. */
  plx_latest_task_clear (&self->task);
  g_clear_pointer (&self->fit, plx_measured_fit_free);
  g_clear_pointer (&self->base, json_node_unref);
  g_clear_pointer (&self->result, plx_result_unref);
  g_clear_pointer (&self->scenario_key, g_free);
  g_clear_pointer (&self->base_text, g_free);
  g_clear_pointer (&self->applied, json_node_unref);
  g_clear_pointer (&self->paths, g_ptr_array_unref);
  g_clear_pointer (&self->kinds, g_array_unref);
  g_clear_pointer (&self->fitted_paths, g_ptr_array_unref);
  g_clear_pointer (&self->fitted_kinds, g_array_unref);
  G_OBJECT_CLASS (plx_calibration_page_parent_class)->dispose (object);
}

static void
plx_calibration_page_class_init (PlxCalibrationPageClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = plx_calibration_page_dispose;
  signals[USE_CLUSTER] = g_signal_new ("use-cluster", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                                       NULL, G_TYPE_NONE, 1, JSON_TYPE_NODE);
}

/* A table appended to `box` that scrolls sideways on its own: its width must not set
 * the window's minimum. */
static GtkGrid *
scrolled_table (GtkWidget *box)
{
  GtkWidget *grid = gtk_grid_new ();
  GtkWidget *scroller = gtk_scrolled_window_new ();

  gtk_grid_set_column_spacing (GTK_GRID (grid), 24);
  gtk_grid_set_row_spacing (GTK_GRID (grid), 2);
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroller), GTK_POLICY_AUTOMATIC, GTK_POLICY_NEVER);
  gtk_scrolled_window_set_propagate_natural_height (GTK_SCROLLED_WINDOW (scroller), TRUE);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), grid);
  gtk_box_append (GTK_BOX (box), scroller);
  return GTK_GRID (grid);
}

static GtkWidget *
button (const char *label, GCallback callback, PlxCalibrationPage *self)
{
  GtkWidget *b = gtk_button_new_with_mnemonic (label);

  g_signal_connect (b, "clicked", callback, self);
  return b;
}

static GtkSpinButton *
count_spin (GtkWidget *box, const char *label, PlxCalibrationPage *self)
{
  GtkWidget *l = gtk_label_new (label);
  GtkWidget *spin = gtk_spin_button_new_with_range (1, 100000, 1);

  gtk_box_append (GTK_BOX (box), l);
  gtk_box_append (GTK_BOX (box), spin);
  gtk_accessible_update_relation (GTK_ACCESSIBLE (spin), GTK_ACCESSIBLE_RELATION_LABELLED_BY, l, NULL, -1);
  g_signal_connect (spin, "value-changed", G_CALLBACK (on_layout_changed), self);
  return GTK_SPIN_BUTTON (spin);
}

static GtkLabel *
wrapped_label (const char *css)
{
  GtkWidget *l = gtk_label_new ("");

  gtk_label_set_wrap (GTK_LABEL (l), TRUE);
  gtk_label_set_xalign (GTK_LABEL (l), 0.0);
  gtk_label_set_selectable (GTK_LABEL (l), TRUE);
  if (css != NULL)
    gtk_widget_add_css_class (l, css);
  return GTK_LABEL (l);
}

static void
plx_calibration_page_init (PlxCalibrationPage *self)
{
  GtkWidget *header = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
  GtkWidget *hint = gtk_label_new (_("Fit this cluster's curves to your own measurements: the chart shows the "
                                     "fitted curve over the measured points, the table each measurement's residual."));
  GtkWidget *controls = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
  GtkWidget *fit_box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  GtkWidget *empty = adw_status_page_new ();
  GtkWidget *open = button (_("_Open Measurements…"), G_CALLBACK (on_open_clicked), self);

  plx_latest_task_init (&self->task);
  self->paths = g_ptr_array_new_with_free_func (g_free);
  self->kinds = g_array_new (FALSE, FALSE, sizeof (PlxMeasurementKind));
  self->fitted_paths = g_ptr_array_new_with_free_func (g_free);
  self->fitted_kinds = g_array_new (FALSE, FALSE, sizeof (PlxMeasurementKind));
  gtk_orientable_set_orientation (GTK_ORIENTABLE (self), GTK_ORIENTATION_VERTICAL);
  gtk_box_set_spacing (GTK_BOX (self), 6);
  gtk_widget_set_margin_start (GTK_WIDGET (self), 12);
  gtk_widget_set_margin_end (GTK_WIDGET (self), 12);
  gtk_widget_set_margin_top (GTK_WIDGET (self), 6);
  gtk_widget_set_margin_bottom (GTK_WIDGET (self), 12);

  gtk_label_set_wrap (GTK_LABEL (hint), TRUE);
  gtk_label_set_xalign (GTK_LABEL (hint), 0.0);
  gtk_widget_set_hexpand (hint, TRUE);
  gtk_widget_add_css_class (hint, "dim-label");
  self->spinner = GTK_SPINNER (gtk_spinner_new ());
  gtk_box_append (GTK_BOX (header), hint);
  gtk_box_append (GTK_BOX (header), GTK_WIDGET (self->spinner));
  gtk_box_append (GTK_BOX (self), header);

  /* The actions, then the nccl-tests group and the curve shown; wraps on a narrow window. */
  gtk_widget_add_css_class (open, "suggested-action");
  gtk_box_append (GTK_BOX (controls), open);
  self->use_button = button (_("_Use This Cluster"), G_CALLBACK (on_use_clicked), self);
  self->save_button = button (_("_Save Cluster…"), G_CALLBACK (on_save_clicked), self);
  self->clear_button = button (_("C_lear"), G_CALLBACK (on_clear_clicked), self);
  gtk_widget_set_tooltip_text (self->use_button, _("Put the calibrated cluster into the scenario (Ctrl+Z undoes it)"));
  gtk_box_append (GTK_BOX (controls), self->use_button);
  gtk_box_append (GTK_BOX (controls), self->save_button);
  gtk_box_append (GTK_BOX (controls), self->clear_button);
  gtk_box_append (GTK_BOX (self), controls);
  {
    GtkWidget *flow = gtk_flow_box_new ();
    gtk_flow_box_set_selection_mode (GTK_FLOW_BOX (flow), GTK_SELECTION_NONE);
    gtk_flow_box_set_max_children_per_line (GTK_FLOW_BOX (flow), 2);
    gtk_flow_box_set_column_spacing (GTK_FLOW_BOX (flow), 24);
    self->layout_box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
    self->gpn_spin = count_spin (self->layout_box, _("GPUs per node"), self);
    self->nodes_spin = count_spin (self->layout_box, _("Nodes"), self);
    gtk_widget_set_tooltip_text (self->layout_box, _("The group the nccl-tests run measured (from the file when it lists "
                                                     "its ranks)"));
    self->curve_box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
    self->curve_names = gtk_string_list_new (NULL);
    self->curve_drop = GTK_DROP_DOWN (gtk_drop_down_new (G_LIST_MODEL (self->curve_names), NULL));
    gtk_box_append (GTK_BOX (self->curve_box), gtk_label_new (_("Curve")));
    gtk_box_append (GTK_BOX (self->curve_box), GTK_WIDGET (self->curve_drop));
    g_signal_connect (self->curve_drop, "notify::selected", G_CALLBACK (on_curve_selected), self);
    gtk_flow_box_append (GTK_FLOW_BOX (flow), self->layout_box);
    gtk_flow_box_append (GTK_FLOW_BOX (flow), self->curve_box);
    gtk_widget_set_visible (self->layout_box, FALSE);
    gtk_widget_set_visible (self->curve_box, FALSE);
    gtk_box_append (GTK_BOX (fit_box), flow);
  }
  self->status = wrapped_label ("error");
  self->notice = wrapped_label ("dim-label");
  gtk_widget_set_visible (GTK_WIDGET (self->status), FALSE);
  gtk_widget_set_visible (GTK_WIDGET (self->notice), FALSE);
  gtk_box_append (GTK_BOX (self), GTK_WIDGET (self->status));
  gtk_box_append (GTK_BOX (self), GTK_WIDGET (self->notice));

  self->files_label = wrapped_label ("dim-label");
  gtk_box_append (GTK_BOX (fit_box), GTK_WIDGET (self->files_label));
  self->chart = GTK_DRAWING_AREA (gtk_drawing_area_new ());
  gtk_widget_set_vexpand (GTK_WIDGET (self->chart), TRUE);
  gtk_widget_set_size_request (GTK_WIDGET (self->chart), 400, 340);
  gtk_drawing_area_set_draw_func (self->chart, draw, self, NULL);
  gtk_box_append (GTK_BOX (fit_box), GTK_WIDGET (self->chart));
  self->params = wrapped_label (NULL);
  gtk_box_append (GTK_BOX (fit_box), GTK_WIDGET (self->params));
  self->table = scrolled_table (fit_box);
  self->match_title = wrapped_label ("heading");
  gtk_widget_set_margin_top (GTK_WIDGET (self->match_title), 12);
  gtk_box_append (GTK_BOX (fit_box), GTK_WIDGET (self->match_title));
  self->match_table = scrolled_table (fit_box);

  adw_status_page_set_icon_name (ADW_STATUS_PAGE (empty), "document-open-symbolic");
  adw_status_page_set_title (ADW_STATUS_PAGE (empty), _("No Measurements"));
  adw_status_page_set_description (ADW_STATUS_PAGE (empty),
                                   _("Open nccl-tests output (all_reduce_perf and the other tests), a GEMM sweep "
                                     "or a memory-bandwidth sweep (CSV), or a PyTorch profiler trace (Kineto JSON). "
                                     "The fitted curves replace the scenario's when you press Use This Cluster."));
  self->stack = GTK_STACK (gtk_stack_new ());
  gtk_stack_add_named (self->stack, empty, "empty");
  gtk_stack_add_named (self->stack, fit_box, "fit");
  gtk_widget_set_vexpand (GTK_WIDGET (self->stack), TRUE);
  gtk_box_append (GTK_BOX (self), GTK_WIDGET (self->stack));
  show_fit (self);
}

GtkWidget *
plx_calibration_page_new (void)
{
  return g_object_new (PLX_TYPE_CALIBRATION_PAGE, NULL);
}
