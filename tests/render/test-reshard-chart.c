/* The Reshard chart (plx-reshard-chart.h) on plans made by hand: where the bars and
 * the memory lines go, the colour a bar is drawn in, its exports, and empty or
 * motionless input drawn without NaN. */
#include <math.h>
#include <string.h>

#include <cairo.h>
#include <glib/gstdio.h>

#include "parallax/parallax.h"
#include "plx-render-export.h"
#include "plx-reshard-chart.h"
#include "test-files.h"

#define MIB 1048576.0

/* A 4 Mi-element array of bytes on a 2-device mesh, split over x at the source
 * (2 MiB a device) and whole at the target (4 MiB): bound 4 MiB. */
static PlxReshardPlan *
hand_plan (void)
{
  PlxReshardPlan *p = g_new0 (PlxReshardPlan, 1);

  p->mesh.n_axes = 1;
  p->mesh.size[0] = 2;
  p->shape.rank = 1;
  p->shape.dim[0] = p->padded[0] = 4 * 1048576;
  p->shape.elem_bytes = 1;
  p->source.rank = p->target.rank = 1;
  p->source.n_axes[0] = 1;
  p->source.axes[0][0] = 0;
  p->steps = g_array_new (FALSE, FALSE, sizeof (PlxReshardStep));
  p->bound_bytes = 4 * MIB;
  return p;
}

static void
add_step (PlxReshardPlan *p, PlxReshardOp op, double ms, double in_mib, double out_mib)
{
  PlxReshardStep st = { 0 };

  st.op = op;
  st.after.rank = 1;
  st.in_bytes = in_mib * MIB;
  st.out_bytes = out_mib * MIB;
  st.time_s = ms * 1e-3;
  g_array_append_val (p->steps, st);
  p->time_s += st.time_s;
  p->peak_bytes = MAX (p->peak_bytes, st.in_bytes + st.out_bytes);
}

/* The plan: an all-to-all of 1 ms (2 -> 2 MiB), then an all-gather of 3 ms (2 -> 4
 * MiB, peak 6 MiB); the baseline one all-gather of 6 ms (2 -> 4 MiB). */
typedef struct
{
  PlxReshardPlan      *plan, *base;
  PlxReshardChartArray array;
} Fixture;

static void
fixture_init (Fixture *f)
{
  f->plan = hand_plan ();
  add_step (f->plan, PLX_RESHARD_ALL_TO_ALL, 1.0, 2.0, 2.0);
  add_step (f->plan, PLX_RESHARD_ALL_GATHER, 3.0, 2.0, 4.0);
  f->base = hand_plan ();
  add_step (f->base, PLX_RESHARD_ALL_GATHER, 6.0, 2.0, 4.0);
  f->array = (PlxReshardChartArray) { NULL, 1, f->plan, f->base };
}

static void
fixture_clear (Fixture *f)
{
  plx_reshard_plan_free (f->plan);
  plx_reshard_plan_free (f->base);
}

static void
test_layout (void)
{
  /* 1000 x 600 px: the time axis from 100 px to 980 px (the margins) over the longer
   * total, the baseline's 6 ms: 880 / 6 px a ms. The plan's bars end at 1 and 4 ms,
   * 246.67 and 686.67 px; the baseline's at 980 px. The rows from 60 px, 34 px high
   * 8 px apart; the memory plot from 60 + 2 x 42 + 22 (time labels) + 40 (its title)
   * = 206 px to 600 - 22 = 578 px, its top 1.12 x the largest of the peaks and the
   * bound, 6 MiB x 1.12 = 6.72 MiB. */
  Fixture f;
  g_autoptr (PlxReshardLayout) l = NULL;
  const PlxReshardBar *b;
  double top = 1.0, mem_span = (578.0 - 206.0) / 600.0;
  const GArray *line;

  fixture_init (&f);
  l = plx_reshard_layout_new (&f.array, 1, 1000, 600);
  g_assert_false (l->empty);
  g_assert_true (l->has_baseline);
  g_assert_false (l->base_time_clipped);
  g_assert_false (l->base_peak_clipped);
  g_assert_cmpfloat_with_epsilon (l->t_end_s, 6e-3, 1e-15);
  g_assert_cmpuint (l->bars->len, ==, 3);
  b = (const PlxReshardBar *) (const void *) l->bars->data;
  g_assert_cmpint (b[0].op, ==, PLX_RESHARD_ALL_TO_ALL);
  g_assert_cmpfloat_with_epsilon (b[0].x0 * 1000, 100.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (b[0].x1 * 1000, 100.0 + 880.0 / 6.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (b[1].x1 * 1000, 100.0 + 4.0 * 880.0 / 6.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (b[1].y0 * 600, 60.0, 1e-9);
  g_assert_cmpuint (b[2].row, ==, PLX_RESHARD_ROW_BASELINE);
  g_assert_cmpfloat_with_epsilon (b[2].x1 * 1000, 980.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (b[2].y0 * 600, 102.0, 1e-9);
  /* A label is estimated at 0.62 em a character at 0.9 x 12 px, plus 8 px: the 16
   * characters of "all-to-all → [-]" take 115 px, within the first bar's 147. At
   * 300 px wide (a 180 px axis, 30 px a ms) the first bar holds no text and the
   * second (90 px) its name alone, 10 characters in 75 px. */
  g_assert_cmpstr (b[1].label, ==, "all-gather → [-]");
  g_assert_cmpstr (b[0].label, ==, "all-to-all → [-]");
  g_assert_cmpuint (l->ops_used, ==, (1u << PLX_RESHARD_ALL_TO_ALL) | (1u << PLX_RESHARD_ALL_GATHER));
  g_assert_cmpint (plx_reshard_layout_hit (l, 0.5, 77.0 / 600), ==, 1);
  g_assert_cmpint (plx_reshard_layout_hit (l, 0.8, 77.0 / 600), ==, -1);
  {
    g_autoptr (PlxReshardLayout) narrow = plx_reshard_layout_new (&f.array, 1, 300, 600);
    g_assert_cmpstr (g_array_index (narrow->bars, PlxReshardBar, 0).label, ==, "");
    g_assert_cmpstr (g_array_index (narrow->bars, PlxReshardBar, 1).label, ==, "all-gather");
  }

  g_assert_cmpfloat_with_epsilon (l->mem_y0 * 600, 206.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (l->mem_max_bytes, 6.72 * MIB, 1e-6);
  /* The plan's line reaches 6 MiB (in + out of the gather) and no higher, and ends at
   * the target's 4 MiB; the bound is flat at 4 MiB. */
  line = l->mem_line[PLX_RESHARD_ROW_PLAN];
  for (guint i = 0; i < line->len; i++)
    top = MIN (top, g_array_index (line, PlxReshardPoint, i).y);
  g_assert_cmpfloat_with_epsilon (top, 578.0 / 600 - 6.0 / 6.72 * mem_span, 1e-9);
  g_assert_cmpfloat_with_epsilon (g_array_index (line, PlxReshardPoint, line->len - 1).y,
                                  578.0 / 600 - 4.0 / 6.72 * mem_span, 1e-9);
  for (guint i = 0; i < l->bound_line->len; i++)
    g_assert_cmpfloat_with_epsilon (g_array_index (l->bound_line, PlxReshardPoint, i).y,
                                    578.0 / 600 - 4.0 / 6.72 * mem_span, 1e-9);
  fixture_clear (&f);
}

static PlxColor
pixel (cairo_surface_t *s, int x, int y)
{
  guint32 v = ((guint32 *) (void *) cairo_image_surface_get_data (s))[y * cairo_image_surface_get_stride (s) / 4 + x];
  PlxColor c = { ((v >> 16) & 0xff) / 255.0, ((v >> 8) & 0xff) / 255.0, (v & 0xff) / 255.0 };

  return c;
}

static void
assert_color (PlxColor got, PlxColor want)
{
  g_assert_cmpfloat_with_epsilon (got.r, want.r, 1.5 / 255);
  g_assert_cmpfloat_with_epsilon (got.g, want.g, 1.5 / 255);
  g_assert_cmpfloat_with_epsilon (got.b, want.b, 1.5 / 255);
}

static void
test_pixels (void)
{
  /* Where the axis says: at 3 ms (100 + 3 x 880/6 = 540 px) the plan row shows the
   * all-gather, beside its label's text; at 5 ms (833 px) the plan is done (the row's
   * idle track) and the baseline still gathers. Sampled 5 px below the bars' top,
   * clear of the centred labels. */
  Fixture f;
  g_autoptr (PlxReshardLayout) l = NULL;
  cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_RGB24, 1000, 600);
  cairo_t *cr = cairo_create (s);
  PlxRenderStyle style;

  fixture_init (&f);
  plx_render_style_init (&style, FALSE, 1.0);
  l = plx_reshard_layout_new (&f.array, 1, 1000, 600);
  plx_reshard_chart_render (l, &style, cr, 1000, 600);
  cairo_surface_flush (s);
  assert_color (pixel (s, 540, 65), plx_reshard_op_color (&style, PLX_RESHARD_ALL_GATHER));
  assert_color (pixel (s, 170, 65), plx_reshard_op_color (&style, PLX_RESHARD_ALL_TO_ALL));
  assert_color (pixel (s, 833, 65), style.idle);
  assert_color (pixel (s, 833, 107), plx_reshard_op_color (&style, PLX_RESHARD_ALL_GATHER));
  cairo_destroy (cr);
  cairo_surface_destroy (s);
  fixture_clear (&f);
}

typedef struct
{
  const PlxReshardChartArray *arrays;
  guint                       n;
  const PlxRenderStyle       *style;
} DrawData;

static void
draw (cairo_t *cr, double width, double height, gpointer data)
{
  const DrawData *d = data;
  g_autoptr (PlxReshardLayout) l = plx_reshard_layout_new (d->arrays, d->n, width, height);

  plx_reshard_chart_render (l, d->style, cr, width, height);
}

static void
test_export (void)
{
  /* Each format's signature at the file's start: PNG's 8 bytes, SVG's XML prolog
   * then an <svg> element, PDF's "%PDF-". */
  static const struct
  {
    const char *name, *magic;
  } files[] = { { "r.png", "\x89PNG\r\n\x1a\n" }, { "r.svg", "<?xml" }, { "r.pdf", "%PDF-" } };
  g_autofree char *dir = test_make_tmp_dir ("plx-test-reshard");
  Fixture f;
  PlxRenderStyle style;
  DrawData d;

  fixture_init (&f);
  plx_render_style_init (&style, TRUE, 1.0);
  d = (DrawData) { &f.array, 1, &style };
  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *path = g_build_filename (dir, files[i].name, NULL);
      g_autofree char *contents = NULL;
      gsize length = 0;
      g_autoptr (GError) error = NULL;
      g_assert_true (plx_render_export (path, 900, 560, 1, &style, draw, &d, &error));
      g_assert_no_error (error);
      g_assert_true (g_file_get_contents (path, &contents, &length, NULL));
      g_assert_cmpuint (length, >, 1000);
      g_assert_cmpmem (contents, strlen (files[i].magic), files[i].magic, strlen (files[i].magic));
      if (i == 1)
        g_assert_nonnull (strstr (contents, "<svg"));
      g_unlink (path);
    }
  g_rmdir (dir);
  fixture_clear (&f);
}

static void
assert_finite_layout (const PlxReshardLayout *l)
{
  g_assert_true (isfinite (l->t_end_s) && l->t_end_s > 0.0);
  g_assert_true (isfinite (l->mem_max_bytes) && l->mem_max_bytes > 0.0);
  for (guint r = 0; r < PLX_RESHARD_N_ROWS; r++)
    for (guint i = 0; i < l->mem_line[r]->len; i++)
      {
        const PlxReshardPoint *p = &g_array_index (l->mem_line[r], PlxReshardPoint, i);
        g_assert_true (isfinite (p->x) && isfinite (p->y));
      }
  for (guint i = 0; i < l->bars->len; i++)
    g_assert_true (isfinite (g_array_index (l->bars, PlxReshardBar, i).x0));
}

static void
test_empty_and_still (void)
{
  /* No arrays: a message, nothing else. Equal layouts: a plan of no steps taking 0 s
   * (a nominal 1 ms axis), memory flat at the 2 MiB shard. Both draw into a small
   * surface without a NaN reaching cairo (which would put it in an error state). */
  PlxReshardPlan *still = hand_plan ();
  PlxReshardChartArray a = { "still", 0, still, NULL };
  g_autoptr (PlxReshardLayout) empty = plx_reshard_layout_new (NULL, 0, 10, 10);
  g_autoptr (PlxReshardLayout) flat = plx_reshard_layout_new (&a, 1, 300, 200);
  cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_RGB24, 300, 200);
  cairo_t *cr = cairo_create (s);
  PlxRenderStyle style;

  plx_render_style_init (&style, FALSE, 1.0);
  g_assert_true (empty->empty);
  g_assert_cmpuint (empty->bars->len, ==, 0);
  assert_finite_layout (empty);
  plx_reshard_chart_render (empty, &style, cr, 10, 10);
  g_assert_cmpint (cairo_status (cr), ==, CAIRO_STATUS_SUCCESS);

  g_assert_false (flat->empty);
  g_assert_false (flat->has_baseline);
  g_assert_cmpfloat (flat->t_end_s, ==, 1e-3);
  g_assert_cmpuint (flat->bars->len, ==, 0);
  assert_finite_layout (flat);
  for (guint i = 0; i < flat->mem_line[0]->len; i++)
    g_assert_cmpfloat (g_array_index (flat->mem_line[0], PlxReshardPoint, i).y, ==,
                       g_array_index (flat->mem_line[0], PlxReshardPoint, 0).y);
  plx_reshard_chart_render (flat, &style, cr, 300, 200);
  g_assert_cmpint (cairo_status (cr), ==, CAIRO_STATUS_SUCCESS);
  cairo_destroy (cr);
  cairo_surface_destroy (s);
  plx_reshard_plan_free (still);
}

static void
test_off_scale (void)
{
  /* A baseline 10 times the plan's time (past 8x) runs off the axis: the axis ends
   * at the plan's 4 ms, and the baseline's bar is cut there. */
  Fixture f;
  g_autoptr (PlxReshardLayout) l = NULL;

  fixture_init (&f);
  g_array_index (f.base->steps, PlxReshardStep, 0).time_s = 40e-3;
  f.base->time_s = 40e-3;
  l = plx_reshard_layout_new (&f.array, 1, 1000, 600);
  g_assert_true (l->base_time_clipped);
  g_assert_cmpfloat_with_epsilon (l->t_end_s, 4e-3, 1e-15);
  g_assert_cmpfloat_with_epsilon (g_array_index (l->bars, PlxReshardBar, 2).x1 * 1000, 980.0, 1e-9);
  fixture_clear (&f);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/render/reshard/layout", test_layout);
  g_test_add_func ("/render/reshard/pixels", test_pixels);
  g_test_add_func ("/render/reshard/export", test_export);
  g_test_add_func ("/render/reshard/empty", test_empty_and_still);
  g_test_add_func ("/render/reshard/off-scale", test_off_scale);
  return g_test_run ();
}
