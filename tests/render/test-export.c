/* test-export.c: plx_render_export writes a chart as PNG, SVG or PDF of the asked
 * size, chosen by the file's extension, atomically: a failure leaves no partial or
 * temporary file and keeps an existing one byte for byte.
 *
 * The chart is the timeline of a small simulated step: gpt2 on one DGX A100 node,
 * pp 4, dp 2. Sizes are read back with cairo (PNG), rsvg-convert (SVG) and
 * pdftoppm/pdfinfo (PDF). */
#include <math.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cairo.h>
#include <glib/gstdio.h>

#include "parallax/parallax.h"
#include "test-home.h"

#include "plx-render-export.h"
#include "plx-render-style.h"
#include "plx-timeline-chart.h"
#include "test-files.h"
#include "test-tools.h"
#include "base/plx-json.h"

#define SCENARIO_JSON \
  "{\"model\": {\"preset\": \"gpt2\"}," \
  " \"cluster\": {\"preset\": \"dgx-a100-80gb\", \"num_nodes\": 1}," \
  " \"strategy\": {\"seq_length\": 1024, \"global_batch_size\": 16, \"pp\": 4, \"dp\": 2}}"

/* The simulated step, built once in main. */
static PlxScenario    *fixture_scenario;
static PlxTimeline    *fixture_timeline;
static PlxMemoryTrace *fixture_trace;
static PlxReport       fixture_report;

typedef struct
{
  const PlxTimeline    *timeline;
  const PlxRenderStyle *style;
  guint                 calls;
  double                width;     /* as last passed to the draw function */
  double                height;
  double                ctm_xx;    /* the device scale it drew under */
  double                ctm_yy;
  guint                 n_bars;    /* bars in the layout it drew */
  gboolean              break_cr;  /* leave the cairo_t in an error state */
} DrawData;

/* As draw_timeline in parallax-cli: lay out at the size given, then render. */
static void
draw_timeline (cairo_t *cr,
               double   width,
               double   height,
               gpointer data)
{
  DrawData *d = data;
  PlxTimelineOptions o;
  g_autoptr (PlxTimelineLayout) layout = NULL;
  cairo_matrix_t m;

  d->calls++;
  d->width = width;
  d->height = height;
  cairo_get_matrix (cr, &m);
  d->ctm_xx = m.xx;
  d->ctm_yy = m.yy;

  plx_timeline_options_init (&o, width, height);
  o.title = "gpt2, pp 4, dp 2";
  layout = plx_timeline_layout_new (d->timeline, &o);
  d->n_bars = layout->bars->len + layout->shares->len;
  plx_timeline_chart_render (layout, d->style, cr, width, height);
  if (d->break_cr)
    cairo_restore (cr); /* no matching save: CAIRO_STATUS_INVALID_RESTORE */
}

static void
draw_data_init (DrawData             *d,
                const PlxRenderStyle *style)
{
  memset (d, 0, sizeof *d);
  d->timeline = fixture_timeline;
  d->style = style;
}

/* Exports the fixture's timeline in the light style. */
static gboolean
export_timeline (const char *path,
                 double      width,
                 double      height,
                 double      scale,
                 DrawData   *d,
                 GError    **error)
{
  static PlxRenderStyle style;

  plx_render_style_init (&style, FALSE, scale);
  draw_data_init (d, &style);
  return plx_render_export (path, width, height, scale, &style, draw_timeline, d, error);
}

static cairo_surface_t *
load_png (const char *path)
{
  cairo_surface_t *surface = cairo_image_surface_create_from_png (path);

  g_assert_cmpint (cairo_surface_status (surface), ==, CAIRO_STATUS_SUCCESS);
  return surface;
}

static void
assert_png_size (const char *path,
                 int         width,
                 int         height)
{
  cairo_surface_t *surface = load_png (path);

  g_assert_cmpint (cairo_image_surface_get_width (surface), ==, width);
  g_assert_cmpint (cairo_image_surface_get_height (surface), ==, height);
  cairo_surface_destroy (surface);
}

/* 0xRRGGBB of a pixel of an RGB24 surface, or of an opaque one of an ARGB32 surface. */
static guint32
pixel_at (cairo_surface_t *surface,
          int              x,
          int              y)
{
  const unsigned char *data;
  guint32 argb;

  cairo_surface_flush (surface);
  data = cairo_image_surface_get_data (surface);
  argb = *(const guint32 *) (const void *) (data + (gsize) y * cairo_image_surface_get_stride (surface) + (gsize) x * 4);
  if (cairo_image_surface_get_format (surface) == CAIRO_FORMAT_ARGB32)
    g_assert_cmphex (argb >> 24, ==, 0xff);
  return argb & 0xffffff;
}

static guint32
color_rgb (PlxColor c)
{
  return ((guint32) lround (c.r * 255.0) << 16) | ((guint32) lround (c.g * 255.0) << 8) |
         (guint32) lround (c.b * 255.0);
}

/* Pixels of exactly `rgb`. */
static guint
count_color (cairo_surface_t *surface,
             guint32          rgb)
{
  int w = cairo_image_surface_get_width (surface);
  int h = cairo_image_surface_get_height (surface);
  guint n = 0;

  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      if (pixel_at (surface, x, y) == rgb)
        n++;
  return n;
}

static char *
read_file (const char *path,
           gsize      *len)
{
  g_autoptr (GError) error = NULL;
  char *contents = NULL;

  g_file_get_contents (path, &contents, len, &error);
  g_assert_no_error (error);
  return contents;
}

static void
write_file (const char *path,
            const char *contents)
{
  g_autoptr (GError) error = NULL;

  g_file_set_contents (path, contents, -1, &error);
  g_assert_no_error (error);
}

static void
assert_error_names (const GError *error,
                    gint          code,
                    const char   *path)
{
  g_assert_error (error, PLX_ERROR, code);
  if (error != NULL)
    {
      g_test_message ("error: %s", error->message);
      g_assert_nonnull (strstr (error->message, path));
    }
}

/* ---- PNG ----------------------------------------------------------------------------- */

static void
test_png_size (void)
{
  g_autofree char *dir = test_make_tmp_dir ("plx-test-export");
  g_autofree char *path = g_build_filename (dir, "t.png", NULL);
  g_autoptr (GError) error = NULL;
  PlxRenderStyle style;
  cairo_surface_t *surface;
  DrawData d;

  g_assert_true (export_timeline (path, 800, 450, 1, &d, &error));
  g_assert_no_error (error);
  /* Drawn once, in user units of the chart's size, at device scale 1. */
  g_assert_cmpuint (d.calls, ==, 1);
  g_assert_cmpfloat (d.width, ==, 800.0);
  g_assert_cmpfloat (d.height, ==, 450.0);
  g_assert_cmpfloat (d.ctm_xx, ==, 1.0);
  g_assert_cmpfloat (d.ctm_yy, ==, 1.0);
  g_assert_cmpuint (d.n_bars, >, 0);

  surface = load_png (path);
  /* Opaque throughout: cairo writes it as RGB, read back as RGB24. */
  g_assert_cmpint (cairo_image_surface_get_format (surface), ==, CAIRO_FORMAT_RGB24);
  g_assert_cmpint (cairo_image_surface_get_width (surface), ==, 800);
  g_assert_cmpint (cairo_image_surface_get_height (surface), ==, 450);
  /* The light background in the corner, and forward passes drawn in their colour. */
  plx_render_style_init (&style, FALSE, 1.0);
  g_assert_cmphex (pixel_at (surface, 0, 0), ==, color_rgb (style.background));
  g_assert_cmphex (pixel_at (surface, 799, 449), ==, color_rgb (style.background));
  g_assert_cmpuint (count_color (surface, color_rgb (style.kind[PLX_KIND_FORWARD])), >, 100);
  g_assert_cmpuint (count_color (surface, color_rgb (style.kind[PLX_KIND_BACKWARD])), >, 100);
  cairo_surface_destroy (surface);

  /* Only the chart: the temporary file was renamed onto it. */
  {
    g_autofree char *listing = test_dir_listing (dir);
    g_assert_cmpstr (listing, ==, "t.png");
  }
  test_rm_rf (dir);
}

static void
test_png_scale2 (void)
{
  g_autofree char *dir = test_make_tmp_dir ("plx-test-export");
  g_autofree char *path = g_build_filename (dir, "t@2x.png", NULL);
  g_autoptr (GError) error = NULL;
  DrawData d;

  g_assert_true (export_timeline (path, 800, 450, 2, &d, &error));
  g_assert_no_error (error);
  /* The chart is laid out at 800 x 450 and drawn under a device scale of 2. */
  g_assert_cmpfloat (d.width, ==, 800.0);
  g_assert_cmpfloat (d.height, ==, 450.0);
  g_assert_cmpfloat (d.ctm_xx, ==, 2.0);
  g_assert_cmpfloat (d.ctm_yy, ==, 2.0);
  assert_png_size (path, 1600, 900);
  test_rm_rf (dir);
}

/* A fractional size rounds up to whole pixels. */
static void
test_png_fractional (void)
{
  g_autofree char *dir = test_make_tmp_dir ("plx-test-export");
  g_autofree char *path = g_build_filename (dir, "t.png", NULL);
  g_autoptr (GError) error = NULL;
  DrawData d;

  g_assert_true (export_timeline (path, 300.5, 200.25, 1.5, &d, &error));
  g_assert_no_error (error);
  assert_png_size (path, 451, 301);
  test_rm_rf (dir);
}

/* Tiny charts still lay out and render: narrower than the timeline's row labels
 * (a negative plot width once asked for 256 GiB of columns), shorter than its title. */
static void
test_png_smallest (void)
{
  static const struct
  {
    double width, height;
  } sizes[] = { { 16, 16 }, { 100, 300 }, { 133, 16 }, { 134, 40 }, { 800, 16 }, { 16, 800 } };
  g_autofree char *dir = test_make_tmp_dir ("plx-test-export");
  g_autofree char *path = g_build_filename (dir, "tiny.png", NULL);

  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      g_autoptr (GError) error = NULL;
      DrawData d;

      g_test_message ("%g x %g", sizes[i].width, sizes[i].height);
      g_assert_true (export_timeline (path, sizes[i].width, sizes[i].height, 1, &d, &error));
      g_assert_no_error (error);
      g_assert_cmpuint (d.calls, ==, 1);
      assert_png_size (path, (int) sizes[i].width, (int) sizes[i].height);
    }
  test_rm_rf (dir);
}

/* The dark style paints its own background. */
static void
test_png_dark (void)
{
  g_autofree char *dir = test_make_tmp_dir ("plx-test-export");
  g_autofree char *path = g_build_filename (dir, "dark.png", NULL);
  g_autoptr (GError) error = NULL;
  PlxRenderStyle style;
  cairo_surface_t *surface;
  DrawData d;

  plx_render_style_init (&style, TRUE, 1.0);
  draw_data_init (&d, &style);
  g_assert_true (plx_render_export (path, 400, 300, 1, &style, draw_timeline, &d, &error));
  g_assert_no_error (error);
  surface = load_png (path);
  g_assert_cmpint (cairo_image_surface_get_width (surface), ==, 400);
  g_assert_cmpint (cairo_image_surface_get_height (surface), ==, 300);
  g_assert_cmphex (pixel_at (surface, 0, 0), ==, 0x1e1e1e);
  g_assert_cmphex (pixel_at (surface, 0, 0), ==, color_rgb (style.background));
  cairo_surface_destroy (surface);
  test_rm_rf (dir);
}

/* ---- SVG and PDF --------------------------------------------------------------------- */

static void
test_svg_size (void)
{
  g_autofree char *dir = test_make_tmp_dir ("plx-test-export");
  g_autofree char *path = g_build_filename (dir, "t.svg", NULL);
  g_autofree char *png = g_build_filename (dir, "out.png", NULL);
  g_autofree char *contents = NULL;
  g_autoptr (GError) error = NULL;
  DrawData d;

  g_assert_true (export_timeline (path, 800, 450, 1, &d, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (d.calls, ==, 1);
  g_assert_cmpfloat (d.ctm_xx, ==, 1.0);

  contents = read_file (path, NULL);
  g_assert_true (g_str_has_prefix (contents, "<?xml"));
  g_assert_nonnull (strstr (contents, "<svg"));
  g_assert_nonnull (strstr (contents, "width=\"800px\""));
  g_assert_nonnull (strstr (contents, "height=\"450px\""));

  if (!test_have_tool ("rsvg-convert"))
    {
      test_rm_rf (dir);
      return;
    }
  {
    const char *argv[] = { "rsvg-convert", "-o", png, path, NULL };
    g_assert_cmpint (test_run_tool (argv, NULL), ==, 0);
  }
  assert_png_size (png, 800, 450);
  test_rm_rf (dir);
}

/* `scale` is for PNG only: a vector file keeps the chart's size and draws at scale 1. */
static void
test_svg_ignores_scale (void)
{
  g_autofree char *dir = test_make_tmp_dir ("plx-test-export");
  g_autofree char *path = g_build_filename (dir, "t.svg", NULL);
  g_autofree char *png = g_build_filename (dir, "out.png", NULL);
  g_autoptr (GError) error = NULL;
  DrawData d;

  g_assert_true (export_timeline (path, 640, 360, 2, &d, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (d.ctm_xx, ==, 1.0);
  g_assert_cmpfloat (d.width, ==, 640.0);
  if (!test_have_tool ("rsvg-convert"))
    {
      test_rm_rf (dir);
      return;
    }
  {
    const char *argv[] = { "rsvg-convert", "-o", png, path, NULL };
    g_assert_cmpint (test_run_tool (argv, NULL), ==, 0);
  }
  assert_png_size (png, 640, 360);
  test_rm_rf (dir);
}

static void
test_pdf_size (void)
{
  g_autofree char *dir = test_make_tmp_dir ("plx-test-export");
  g_autofree char *path = g_build_filename (dir, "t.pdf", NULL);
  g_autofree char *prefix = g_build_filename (dir, "out", NULL);
  g_autofree char *png = g_build_filename (dir, "out.png", NULL);
  g_autofree char *info = NULL;
  g_autofree char *contents = NULL;
  g_autoptr (GError) error = NULL;
  DrawData d;

  g_assert_true (export_timeline (path, 800, 450, 1, &d, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (d.calls, ==, 1);
  g_assert_cmpfloat (d.ctm_xx, ==, 1.0);
  contents = read_file (path, NULL);
  g_assert_true (g_str_has_prefix (contents, "%PDF-"));

  if (!test_have_tool ("pdfinfo") || !test_have_tool ("pdftoppm"))
    {
      test_rm_rf (dir);
      return;
    }
  {
    const char *argv[] = { "pdfinfo", path, NULL };
    g_assert_cmpint (test_run_tool (argv, &info), ==, 0);
    g_assert_nonnull (info);
    g_assert_nonnull (strstr (info, "Pages:"));
    g_assert_true (g_regex_match_simple ("^Pages: +1$", info, G_REGEX_MULTILINE, 0));
    /* One point per unit. */
    g_assert_true (g_regex_match_simple ("^Page size: +800 x 450 pts", info, G_REGEX_MULTILINE, 0));
  }
  {
    const char *argv[] = { "pdftoppm", "-png", "-r", "72", "-singlefile", path, prefix, NULL };
    g_assert_cmpint (test_run_tool (argv, NULL), ==, 0);
  }
  assert_png_size (png, 800, 450);
  test_rm_rf (dir);
}

/* ---- errors ------------------------------------------------------------------------- */

static void
test_format_for_path (void)
{
  g_autoptr (GError) error = NULL;
  PlxExportFormat format = PLX_EXPORT_PDF;

  g_assert_true (plx_export_format_for_path ("a/b.png", &format, NULL));
  g_assert_cmpint (format, ==, PLX_EXPORT_PNG);
  g_assert_true (plx_export_format_for_path ("CHART.SVG", &format, NULL));
  g_assert_cmpint (format, ==, PLX_EXPORT_SVG);
  g_assert_true (plx_export_format_for_path ("x.Pdf", &format, NULL));
  g_assert_cmpint (format, ==, PLX_EXPORT_PDF);

  g_assert_false (plx_export_format_for_path ("chart.png.bak", &format, &error));
  assert_error_names (error, PLX_ERROR_INVALID_VALUE, "chart.png.bak");
  g_clear_error (&error);
  g_assert_false (plx_export_format_for_path ("png", &format, &error));
  assert_error_names (error, PLX_ERROR_INVALID_VALUE, "png");
}

static void
test_unknown_extension (void)
{
  g_autofree char *dir = test_make_tmp_dir ("plx-test-export");
  g_autofree char *path = g_build_filename (dir, "t.bmp", NULL);
  g_autofree char *listing = NULL;
  g_autoptr (GError) error = NULL;
  DrawData d;

  g_assert_false (export_timeline (path, 800, 450, 1, &d, &error));
  assert_error_names (error, PLX_ERROR_INVALID_VALUE, path);
  g_assert_cmpuint (d.calls, ==, 0);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  listing = test_dir_listing (dir);
  g_assert_cmpstr (listing, ==, "");
  test_rm_rf (dir);
}

static void
test_unwritable (void)
{
  const char *paths[] = { "/nonexistent-dir/x.png", "/nonexistent-dir/x.svg", "/nonexistent-dir/x.pdf" };

  g_assert_false (g_file_test ("/nonexistent-dir", G_FILE_TEST_EXISTS));
  for (guint i = 0; i < G_N_ELEMENTS (paths); i++)
    {
      g_autoptr (GError) error = NULL;
      DrawData d;

      g_assert_false (export_timeline (paths[i], 800, 450, 1, &d, &error));
      assert_error_names (error, PLX_ERROR_IO, paths[i]);
      g_assert_cmpuint (d.calls, ==, 0);
      g_assert_false (g_file_test (paths[i], G_FILE_TEST_EXISTS));
    }
  g_assert_false (g_file_test ("/nonexistent-dir", G_FILE_TEST_EXISTS));
}

/* The target is a directory: the rename fails, the directory and what it holds stay,
 * and the temporary file is removed. */
static void
test_onto_directory (void)
{
  g_autofree char *dir = test_make_tmp_dir ("plx-test-export");
  g_autofree char *target = g_build_filename (dir, "t.png", NULL);
  g_autofree char *inside = g_build_filename (target, "keep", NULL);
  g_autofree char *listing = NULL;
  g_autoptr (GError) error = NULL;
  DrawData d;

  g_assert_cmpint (g_mkdir (target, 0700), ==, 0);
  write_file (inside, "x");
  g_assert_false (export_timeline (target, 800, 450, 1, &d, &error));
  assert_error_names (error, PLX_ERROR_IO, target);
  g_assert_true (g_file_test (target, G_FILE_TEST_IS_DIR));
  g_assert_true (g_file_test (inside, G_FILE_TEST_IS_REGULAR));
  listing = test_dir_listing (dir);
  g_assert_cmpstr (listing, ==, "t.png");
  test_rm_rf (dir);
}

/* ---- atomic replacement ---------------------------------------------------------------- */

static void
test_overwrite (void)
{
  g_autofree char *dir = test_make_tmp_dir ("plx-test-export");
  g_autofree char *path = g_build_filename (dir, "t.png", NULL);
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autofree char *listing = NULL;
  g_autoptr (GError) error = NULL;
  gsize before_len = 0, after_len = 0;
  DrawData d;

  /* An existing file is replaced by the chart. */
  write_file (path, "stale, not a PNG");
  g_assert_true (export_timeline (path, 800, 450, 1, &d, &error));
  g_assert_no_error (error);
  assert_png_size (path, 800, 450);
  listing = test_dir_listing (dir);
  g_assert_cmpstr (listing, ==, "t.png");
  g_clear_pointer (&listing, g_free);

  /* A failed export leaves it byte for byte, and no temporary file. */
  before = read_file (path, &before_len);
  g_assert_false (export_timeline (path, 5, 450, 1, &d, &error));
  assert_error_names (error, PLX_ERROR_INVALID_VALUE, path);
  g_assert_cmpuint (d.calls, ==, 0);
  after = read_file (path, &after_len);
  g_assert_cmpmem (before, before_len, after, after_len);
  listing = test_dir_listing (dir);
  g_assert_cmpstr (listing, ==, "t.png");
  test_rm_rf (dir);
}

/* A failure after the temporary file exists (drawing leaves cairo in an error state)
 * is PLX_ERROR_IO; the old file stays and the temporary one is removed. */
static void
test_draw_error_keeps_old (void)
{
  const char *names[] = { "t.png", "t.svg", "t.pdf" };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *dir = test_make_tmp_dir ("plx-test-export");
      g_autofree char *path = g_build_filename (dir, names[i], NULL);
      g_autofree char *after = NULL;
      g_autofree char *listing = NULL;
      g_autoptr (GError) error = NULL;
      PlxRenderStyle style;
      DrawData d;

      write_file (path, "the old chart");
      plx_render_style_init (&style, FALSE, 1.0);
      draw_data_init (&d, &style);
      d.break_cr = TRUE;
      g_assert_false (plx_render_export (path, 320, 200, 1, &style, draw_timeline, &d, &error));
      assert_error_names (error, PLX_ERROR_IO, path);
      g_assert_cmpuint (d.calls, ==, 1);
      after = read_file (path, NULL);
      g_assert_cmpstr (after, ==, "the old chart");
      listing = test_dir_listing (dir);
      g_assert_cmpstr (listing, ==, names[i]);
      test_rm_rf (dir);
    }
}

/* A disk that fills up while the chart is written (here: a 4 KiB file size limit,
 * whose EFBIG is what a full disk's ENOSPC is to cairo): the export fails naming the
 * file, the old chart stays as it was and no temporary file is left. */
static void
test_full_disk_keeps_old (void)
{
  const char *names[] = { "t.png", "t.svg", "t.pdf" };
  struct rlimit saved, small;

  g_assert_cmpint (getrlimit (RLIMIT_FSIZE, &saved), ==, 0);
  signal (SIGXFSZ, SIG_IGN);
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *dir = test_make_tmp_dir ("plx-test-export");
      g_autofree char *path = g_build_filename (dir, names[i], NULL);
      g_autofree char *after = NULL;
      g_autofree char *listing = NULL;
      g_autoptr (GError) error = NULL;
      PlxRenderStyle style;
      DrawData d;
      gboolean ok;

      write_file (path, "the old chart");
      plx_render_style_init (&style, FALSE, 1.0);
      draw_data_init (&d, &style);
      small = saved;
      small.rlim_cur = 4096;
      g_assert_cmpint (setrlimit (RLIMIT_FSIZE, &small), ==, 0);
      ok = plx_render_export (path, 1600, 1000, 1, &style, draw_timeline, &d, &error);
      g_assert_cmpint (setrlimit (RLIMIT_FSIZE, &saved), ==, 0);
      g_assert_false (ok);
      assert_error_names (error, PLX_ERROR_IO, path);
      after = read_file (path, NULL);
      g_assert_cmpstr (after, ==, "the old chart");
      listing = test_dir_listing (dir);
      g_assert_cmpstr (listing, ==, names[i]);
      test_rm_rf (dir);
    }
  signal (SIGXFSZ, SIG_DFL);
}

/* A file name without a directory goes to the working directory, its temporary file
 * too. */
static void
test_relative_path (void)
{
  g_autofree char *dir = test_make_tmp_dir ("plx-test-export");
  g_autofree char *cwd = g_get_current_dir ();
  g_autofree char *listing = NULL;
  g_autofree char *path = g_build_filename (dir, "rel.png", NULL);
  g_autoptr (GError) error = NULL;
  DrawData d;

  g_assert_cmpint (chdir (dir), ==, 0);
  g_assert_true (export_timeline ("rel.png", 200, 100, 1, &d, &error));
  g_assert_no_error (error);
  g_assert_cmpint (chdir (cwd), ==, 0);
  assert_png_size (path, 200, 100);
  listing = test_dir_listing (dir);
  g_assert_cmpstr (listing, ==, "rel.png");
  test_rm_rf (dir);
}

/* ---- sizes ------------------------------------------------------------------------- */

static void
test_size_range (void)
{
  static const struct
  {
    double width, height, scale;
  } bad[] = {
    { 5, 450, 1 },
    { 800, 20000, 1 },
    { 800, 450, 0.5 },
    { 800, 450, 5 },
    { 15.9, 450, 1 },
    { 800, 16385, 1 },
    { 0, 0, 1 },
    { -800, 450, 1 },
    { NAN, 450, 1 },
    { 800, INFINITY, 1 },
    { 800, 450, 0 },
    { 800, 450, NAN },
    /* In range alone, but 8192 x 4 = 32768 pixels: more than cairo's image limit
     * (only bad for PNG, which index 12, even, writes). */
    { 8192, 100, 4 },
  };
  g_autofree char *dir = test_make_tmp_dir ("plx-test-export");
  g_autofree char *path = g_build_filename (dir, "t.png", NULL);
  g_autofree char *svg = g_build_filename (dir, "t.svg", NULL);
  g_autofree char *listing = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      const char *target = i % 2 == 0 ? path : svg;
      g_autoptr (GError) error = NULL;
      DrawData d;

      g_test_message ("%g x %g at scale %g", bad[i].width, bad[i].height, bad[i].scale);
      g_assert_false (export_timeline (target, bad[i].width, bad[i].height, bad[i].scale, &d, &error));
      assert_error_names (error, PLX_ERROR_INVALID_VALUE, target);
      g_assert_cmpuint (d.calls, ==, 0);
    }
  listing = test_dir_listing (dir);
  g_assert_cmpstr (listing, ==, "");

  /* The bounds themselves are allowed. */
  {
    g_autoptr (GError) error = NULL;
    DrawData d;

    g_assert_true (export_timeline (path, 16, 40, 4, &d, &error));
    g_assert_no_error (error);
    assert_png_size (path, 64, 160);
    g_assert_true (export_timeline (svg, 16384, 16, 1, &d, &error));
    g_assert_no_error (error);
  }
  g_clear_pointer (&listing, g_free);
  listing = test_dir_listing (dir);
  g_assert_cmpstr (listing, ==, "t.png t.svg");
  test_rm_rf (dir);
}

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) node = NULL;
  int status;

  test_init_private_home (&argc, &argv);

  node = plx_json_parse_data (SCENARIO_JSON, -1, "test scenario", &error);
  g_assert_no_error (error);
  fixture_scenario = plx_scenario_new_from_json (node, ".", "test scenario", &error);
  g_assert_no_error (error);
  plx_sim_run_scenario (fixture_scenario->model, fixture_scenario->cluster, fixture_scenario->strategy,
                        &fixture_report, NULL, &fixture_timeline, &fixture_trace, &error);
  g_assert_no_error (error);
  g_assert_nonnull (fixture_timeline);

  g_test_add_func ("/export/png-size", test_png_size);
  g_test_add_func ("/export/png-scale2", test_png_scale2);
  g_test_add_func ("/export/png-fractional", test_png_fractional);
  g_test_add_func ("/export/png-smallest", test_png_smallest);
  g_test_add_func ("/export/png-dark", test_png_dark);
  g_test_add_func ("/export/svg-size", test_svg_size);
  g_test_add_func ("/export/svg-ignores-scale", test_svg_ignores_scale);
  g_test_add_func ("/export/pdf-size", test_pdf_size);
  g_test_add_func ("/export/format-for-path", test_format_for_path);
  g_test_add_func ("/export/unknown-extension", test_unknown_extension);
  g_test_add_func ("/export/unwritable", test_unwritable);
  g_test_add_func ("/export/onto-directory", test_onto_directory);
  g_test_add_func ("/export/overwrite", test_overwrite);
  g_test_add_func ("/export/draw-error-keeps-old", test_draw_error_keeps_old);
  g_test_add_func ("/export/full-disk-keeps-old", test_full_disk_keeps_old);
  g_test_add_func ("/export/relative-path", test_relative_path);
  g_test_add_func ("/export/size-range", test_size_range);

  status = g_test_run ();

  g_clear_pointer (&fixture_timeline, plx_timeline_free);
  g_clear_pointer (&fixture_trace, plx_memory_trace_free);
  g_clear_pointer (&fixture_scenario, plx_scenario_free);
  return status;
}
