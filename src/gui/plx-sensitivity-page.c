/* The Sensitivity page (plx-sensitivity-page.h): the tornado chart of the step time or
 * of the HBM use, chosen in a drop-down. Two analytical runs per input, about
 * 50 in all: a few milliseconds, yet on a GTask thread so a large model never holds a
 * frame. Only the newest request's answer is shown; the page computes only while it
 * is mapped, so editing the scenario on another page costs nothing. */
#include <glib/gi18n-lib.h>
#include <math.h>

#include "plx-render-export.h"
#include "plx-render-text.h"
#include "plx-sensitivity-chart.h"
#include "plx-key-names.h"
#include "plx-latest-task.h"
#include "plx-sensitivity-page.h"

#define MAX_ROWS 16

struct _PlxSensitivityPage
{
  GtkBox            parent_instance;
  GtkDrawingArea   *chart;
  GtkDropDown      *output;      /* step time or HBM use */
  GtkSpinner       *spinner;
  GtkLabel         *status;

  PlxResult        *scenario;
  gboolean          stale;       /* the scenario changed since the layout was made */
  PlxLatestTask     task;        /* the newest request's answer is shown */
  gboolean          busy;
  PlxTornadoLayout *layout;
  gboolean          dark;
};

G_DEFINE_FINAL_TYPE (PlxSensitivityPage, plx_sensitivity_page, GTK_TYPE_BOX)

typedef struct
{
  PlxResult           *scenario;
  PlxSensitivityOutput output;
} Request;

static void
request_free (Request *q)
{
  plx_result_unref (q->scenario);
  g_free (q);
}

/* On the task's thread: the tornado's bars for the chosen output, as
 * `simulate --sensitivity --tornado` draws them. */
static void
compute_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  Request *q = data;
  const PlxScenario *sc = q->scenario->scenario;
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) s = NULL;
  PlxReport report;
  PlxTornadoLayout *l;

  if (!plx_analytic_run (sc->model, sc->cluster, sc->strategy, &report, &error) ||
      (s = plx_sensitivity_run (sc->model, sc->cluster, sc->strategy, 0, PLX_UNCERTAINTY_DEFAULT_SEED, &error)) == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  l = plx_sensitivity_chart_layout (s, &report, q->output, sc->name, MAX_ROWS);
  /* The bars are the cluster's inputs, named as the window's rows name them ("HBM
   * bandwidth", not gpu.hbm_bw_Bps); the CLI's chart keeps the file's keys. */
  for (guint i = 0; l->labels != NULL && l->labels[i] != NULL; i++)
    {
      const char *label = plx_key_label (l->labels[i]);
      if (label != NULL)
        {
          g_free (l->labels[i]);
          l->labels[i] = g_strdup (label);
        }
    }
  g_task_return_pointer (task, l, (GDestroyNotify) plx_tornado_layout_free);
}

static void
compute_done (GObject *source, GAsyncResult *res, gpointer data)
{
  PlxSensitivityPage *self = PLX_SENSITIVITY_PAGE (source);
  g_autoptr (GError) error = NULL;
  PlxTornadoLayout *l;

  if (!plx_latest_task_finish (&self->task, res))
    return;
  l = g_task_propagate_pointer (G_TASK (res), &error);
  self->busy = FALSE;
  gtk_spinner_stop (self->spinner);
  g_clear_pointer (&self->layout, plx_tornado_layout_free);
  self->layout = l;
  gtk_label_set_text (self->status, error != NULL ? error->message : "");
  gtk_widget_set_visible (GTK_WIDGET (self->status), error != NULL);
  gtk_widget_queue_draw (GTK_WIDGET (self->chart));
}

static void
compute (PlxSensitivityPage *self)
{
  Request *q;
  const PlxStrategy *st;

  self->stale = FALSE;
  plx_latest_task_supersede (&self->task);
  gtk_widget_set_visible (GTK_WIDGET (self->status), FALSE);
  g_clear_pointer (&self->layout, plx_tornado_layout_free);
  gtk_widget_queue_draw (GTK_WIDGET (self->chart));
  if (self->scenario == NULL)
    {
      self->busy = FALSE;
      gtk_spinner_stop (self->spinner);
      return;
    }
  st = self->scenario->scenario->strategy;
  /* The CLI refuses these too: the sensitivity is of a training step's closed form. */
  if (st->workload != PLX_WORKLOAD_TRAINING || st->schedule == PLX_SCHEDULE_FILE)
    {
      self->busy = FALSE;
      gtk_spinner_stop (self->spinner);
      gtk_label_set_text (self->status, _("The sensitivity is computed for training steps without a schedule file."));
      gtk_widget_set_visible (GTK_WIDGET (self->status), TRUE);
      return;
    }
  q = g_new0 (Request, 1);
  q->scenario = plx_result_ref (self->scenario);
  q->output = gtk_drop_down_get_selected (self->output) == 1 ? PLX_SENSITIVITY_HBM_USE : PLX_SENSITIVITY_STEP;
  self->busy = TRUE;
  gtk_spinner_start (self->spinner);
  plx_latest_task_start (&self->task, self, "[parallax] sensitivity", q, (GDestroyNotify) request_free, compute_thread,
                         compute_done);
}

void
plx_sensitivity_page_set_scenario (PlxSensitivityPage *self,
                                   PlxResult          *result)
{
  if (result == self->scenario)
    return;
  g_clear_pointer (&self->scenario, plx_result_unref);
  self->scenario = result != NULL ? plx_result_ref (result) : NULL;
  self->stale = TRUE;
  if (gtk_widget_get_mapped (GTK_WIDGET (self)))
    compute (self);
}

static void
on_map (GtkWidget *widget, gpointer data)
{
  PlxSensitivityPage *self = PLX_SENSITIVITY_PAGE (widget);

  if (self->stale)
    compute (self);
}

static void
on_output_changed (GObject *dropdown, GParamSpec *pspec, gpointer data)
{
  PlxSensitivityPage *self = data;

  self->stale = TRUE;
  if (gtk_widget_get_mapped (GTK_WIDGET (self)))
    compute (self);
}

static void
draw (GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer data)
{
  PlxSensitivityPage *self = data;
  PlxRenderStyle style;

  plx_render_style_init (&style, self->dark, 1.0);
  if (self->layout != NULL)
    plx_tornado_chart_render (self->layout, &style, cr, width, height);
  else
    {
      plx_render_set_color (cr, style.background);
      cairo_paint (cr);
    }
}

static void
export_draw (cairo_t *cr, double width, double height, gpointer data)
{
  PlxSensitivityPage *self = data;

  plx_tornado_chart_render (self->layout, g_object_get_data (G_OBJECT (self), "export-style"), cr, width, height);
}

gboolean
plx_sensitivity_page_export (PlxSensitivityPage *self,
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

  if (self->layout == NULL)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT, _("%s: nothing to export until the sensitivity is computed"),
                   path);
      return FALSE;
    }
  plx_render_style_init (&style, dark < 0 ? self->dark : dark != 0, scale > 0 ? scale : 1.0);
  g_object_set_data (G_OBJECT (self), "export-style", &style);
  ok = plx_render_export (path, w, h, scale > 0 ? scale : 1.0, &style, export_draw, self, error);
  g_object_set_data (G_OBJECT (self), "export-style", NULL);
  return ok;
}

void
plx_sensitivity_page_set_dark (PlxSensitivityPage *self,
                               gboolean            dark)
{
  self->dark = dark;
  gtk_widget_queue_draw (GTK_WIDGET (self->chart));
}

gboolean
plx_sensitivity_page_is_busy (PlxSensitivityPage *self)
{
  return self->busy || (self->stale && self->scenario != NULL);
}

const PlxTornadoLayout *
plx_sensitivity_page_get_layout (PlxSensitivityPage *self)
{
  return self->layout;
}

static void
plx_sensitivity_page_dispose (GObject *object)
{
  PlxSensitivityPage *self = PLX_SENSITIVITY_PAGE (object);

  /* A task still running keeps its own reference to the scenario; its answer is
   * dropped. */
  plx_latest_task_clear (&self->task);
  g_clear_pointer (&self->scenario, plx_result_unref);
  g_clear_pointer (&self->layout, plx_tornado_layout_free);
  G_OBJECT_CLASS (plx_sensitivity_page_parent_class)->dispose (object);
}

static void
plx_sensitivity_page_class_init (PlxSensitivityPageClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = plx_sensitivity_page_dispose;
}

static void
plx_sensitivity_page_init (PlxSensitivityPage *self)
{
  GtkWidget *header = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
  GtkWidget *hint = gtk_label_new (_("How much the step time, or the share of usable HBM the step needs, moves "
                                     "when one cluster input moves by 1 %. Wide bars are the inputs worth "
                                     "measuring well."));
  const char *const outputs[] = { N_("Step time"), N_("HBM use"), NULL };
  g_autoptr (GtkStringList) names = gtk_string_list_new (NULL);

  plx_latest_task_init (&self->task);
  gtk_orientable_set_orientation (GTK_ORIENTABLE (self), GTK_ORIENTATION_VERTICAL);
  gtk_box_set_spacing (GTK_BOX (self), 6);
  gtk_label_set_wrap (GTK_LABEL (hint), TRUE);
  gtk_label_set_xalign (GTK_LABEL (hint), 0.0);
  gtk_widget_set_hexpand (hint, TRUE);
  gtk_widget_add_css_class (hint, "dim-label");
  self->spinner = GTK_SPINNER (gtk_spinner_new ());
  for (guint i = 0; outputs[i] != NULL; i++)
    gtk_string_list_append (names, _(outputs[i]));
  self->output = GTK_DROP_DOWN (gtk_drop_down_new (G_LIST_MODEL (g_steal_pointer (&names)), NULL));
  gtk_widget_set_valign (GTK_WIDGET (self->output), GTK_ALIGN_CENTER);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->output),
                               _("The output the chart shows: the step time, or the peak memory over the usable HBM"));
  g_signal_connect (self->output, "notify::selected", G_CALLBACK (on_output_changed), self);
  gtk_box_append (GTK_BOX (header), hint);
  gtk_box_append (GTK_BOX (header), GTK_WIDGET (self->output));
  gtk_box_append (GTK_BOX (header), GTK_WIDGET (self->spinner));
  gtk_widget_set_margin_start (header, 12);
  gtk_widget_set_margin_end (header, 12);
  gtk_widget_set_margin_top (header, 6);
  gtk_box_append (GTK_BOX (self), header);
  self->status = GTK_LABEL (gtk_label_new (""));
  gtk_label_set_wrap (self->status, TRUE);
  gtk_widget_add_css_class (GTK_WIDGET (self->status), "error");
  gtk_widget_set_visible (GTK_WIDGET (self->status), FALSE);
  gtk_box_append (GTK_BOX (self), GTK_WIDGET (self->status));
  self->chart = GTK_DRAWING_AREA (gtk_drawing_area_new ());
  gtk_widget_set_vexpand (GTK_WIDGET (self->chart), TRUE);
  gtk_widget_set_size_request (GTK_WIDGET (self->chart), 400, 300);
  gtk_drawing_area_set_draw_func (self->chart, draw, self, NULL);
  gtk_box_append (GTK_BOX (self), GTK_WIDGET (self->chart));
  g_signal_connect (self, "map", G_CALLBACK (on_map), NULL);
}

GtkWidget *
plx_sensitivity_page_new (void)
{
  return g_object_new (PLX_TYPE_SENSITIVITY_PAGE, NULL);
}
