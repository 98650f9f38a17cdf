/* Readers of GEMM and memory-bandwidth sweeps (CSV). Header names are matched
 * after lowering their case and dropping everything but letters and digits, so
 * "TFLOP/s", "tflops" and "TFLOPS" are one name, as are "time (us)" and "time_us";
 * docs/formats.md lists the names. A value is a positive finite number, and a GEMM
 * dimension a whole one: anything else is an error naming file, line, column and
 * value. */
#include <math.h>
#include <string.h>

#include "base/plx-input.h"
#include "parallax/plx-error.h"
#include "calibrate/plx-sweep.h"
#include "base/plx-csv.h"

typedef enum
{
  COL_IGNORED,
  COL_BATCH,
  COL_M,
  COL_N,
  COL_K,
  COL_DTYPE,
  COL_TIME,   /* scale: to seconds */
  COL_RATE,   /* scale: to FLOP/s */
  COL_BYTES,
  COL_BW,     /* scale: to bytes/s */
  N_COLS
} ColKind;

typedef struct
{
  const char *name;   /* normalised */
  ColKind     kind;
  double      scale;
} ColName;

static const ColName gemm_names[] = {
  { "b", COL_BATCH, 1 }, { "batch", COL_BATCH, 1 }, { "batchsize", COL_BATCH, 1 },
  { "m", COL_M, 1 }, { "n", COL_N, 1 }, { "k", COL_K, 1 },
  { "dtype", COL_DTYPE, 1 }, { "type", COL_DTYPE, 1 }, { "datatype", COL_DTYPE, 1 },
  { "precision", COL_DTYPE, 1 },
  { "tflops", COL_RATE, 1e12 }, { "tflopsec", COL_RATE, 1e12 }, { "gflops", COL_RATE, 1e9 },
  { "gflopsec", COL_RATE, 1e9 },
};

static const ColName membw_names[] = {
  { "bytes", COL_BYTES, 1 }, { "size", COL_BYTES, 1 }, { "sizebytes", COL_BYTES, 1 },
  { "sizeb", COL_BYTES, 1 }, { "nbytes", COL_BYTES, 1 },
  { "gbs", COL_BW, 1e9 }, { "gbps", COL_BW, 1e9 }, { "gbsec", COL_BW, 1e9 },
  { "gbytess", COL_BW, 1e9 }, { "bandwidthgbs", COL_BW, 1e9 }, { "bwgbs", COL_BW, 1e9 },
  { "tbs", COL_BW, 1e12 }, { "mbs", COL_BW, 1e6 }, { "mbytess", COL_BW, 1e6 },
  { "mbytessec", COL_BW, 1e6 },
};

static const ColName time_names[] = {
  { "times", COL_TIME, 1 }, { "seconds", COL_TIME, 1 }, { "timesec", COL_TIME, 1 },
  { "timeseconds", COL_TIME, 1 }, { "latencys", COL_TIME, 1 },
  { "timems", COL_TIME, 1e-3 }, { "ms", COL_TIME, 1e-3 }, { "latencyms", COL_TIME, 1e-3 },
  { "timeus", COL_TIME, 1e-6 }, { "us", COL_TIME, 1e-6 }, { "usec", COL_TIME, 1e-6 },
  { "timeusec", COL_TIME, 1e-6 }, { "latencyus", COL_TIME, 1e-6 },
};

/* Bigger than any dimension a BLAS takes (32-bit signed). */
#define MAX_DIM 2147483647.0

static char *
normalise (const char *field)
{
  GString *s = g_string_new (NULL);

  for (const char *p = field; *p != '\0'; p++)
    if (g_ascii_isalnum (*p))
      g_string_append_c (s, g_ascii_tolower (*p));
  return g_string_free (s, FALSE);
}

static const ColName *
find_name (const char *norm, const ColName *names, gsize n)
{
  for (gsize i = 0; i < n; i++)
    if (g_str_equal (norm, names[i].name))
      return &names[i];
  return NULL;
}

/* One CSV field as a value (plx_csv_next_record has undone its quotes): without
 * surrounding spaces, which a quoted number may still carry. */
static char *
field_text (const char *raw)
{
  return g_strstrip (g_strdup (raw));
}

typedef struct
{
  const char *source;
  guint       line;
  int         index[N_COLS];     /* field index of each kind, -1 if absent */
  double      scale[N_COLS];
  char       *header[N_COLS];    /* the header's own spelling, for messages */
  guint       n_fields;
} Header;

static void
header_clear (Header *h)
{
  for (guint i = 0; i < N_COLS; i++)
    g_free (h->header[i]);
}

static gboolean
read_header (Header       *h,
             char        **fields,
             gboolean      gemm,
             GError      **error)
{
  for (guint i = 0; i < N_COLS; i++)
    h->index[i] = -1;
  h->n_fields = g_strv_length (fields);
  for (guint i = 0; i < h->n_fields; i++)
    {
      g_autofree char *text = field_text (fields[i]);
      g_autofree char *norm = normalise (text);
      const ColName *c = gemm ? find_name (norm, gemm_names, G_N_ELEMENTS (gemm_names))
                              : find_name (norm, membw_names, G_N_ELEMENTS (membw_names));

      if (c == NULL)
        c = find_name (norm, time_names, G_N_ELEMENTS (time_names));
      if (c == NULL && g_str_equal (norm, "time"))
        {
          g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE,
                       "%s:%u: column \"%s\" has no unit: name it time_s, time_ms or time_us", h->source,
                       h->line, text);
          return FALSE;
        }
      if (c == NULL)
        continue;  /* other columns (notes, transposes, in/out dtypes) are not needed */
      if (h->index[c->kind] >= 0)
        {
          g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE, "%s:%u: columns \"%s\" and \"%s\" both give the %s",
                       h->source, h->line, h->header[c->kind], text,
                       c->kind == COL_TIME ? "time" : c->kind == COL_RATE ? "throughput"
                       : c->kind == COL_BW ? "bandwidth" : "same value");
          return FALSE;
        }
      h->index[c->kind] = (int) i;
      h->scale[c->kind] = c->scale;
      h->header[c->kind] = g_strdup (text);
    }
  return TRUE;
}

static gboolean
require (const Header *h,
         ColKind       kind,
         const char   *what,
         const char   *header_line,
         GError      **error)
{
  if (h->index[kind] >= 0)
    return TRUE;
  g_set_error (error, PLX_ERROR, PLX_ERROR_MISSING_KEY, "%s:%u: no %s column in the header \"%.200s\"", h->source,
               h->line, what, header_line);
  return FALSE;
}

static gboolean
field_number (const Header *h,
              char        **fields,
              ColKind       kind,
              gboolean      whole,
              double       *value,
              GError      **error)
{
  g_autofree char *text = field_text (fields[h->index[kind]]);
  char *end = NULL;
  double v = g_ascii_strtod (text, &end);

  if (text[0] == '\0' || end == NULL || *end != '\0' || !isfinite (v) || v <= 0.0)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "%s:%u: column \"%s\": \"%.40s\" is not a positive number",
                   h->source, h->line, h->header[kind], text);
      return FALSE;
    }
  if (whole && (v != floor (v) || v > MAX_DIM))
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                   "%s:%u: column \"%s\": \"%.40s\" is not a whole number from 1 to %.0f", h->source, h->line,
                   h->header[kind], text, MAX_DIM);
      return FALSE;
    }
  *value = v;
  return TRUE;
}

/* The names sweep tools print for each dtype (PyTorch, NumPy, XLA, cuBLASLt). */
static gboolean
parse_dtype (const char *text,
             PlxDtype   *dtype)
{
  static const struct { const char *name; PlxDtype dtype; } aliases[] = {
    { "bfloat16", PLX_DTYPE_BF16 }, { "torchbfloat16", PLX_DTYPE_BF16 },
    { "float16", PLX_DTYPE_FP16 }, { "half", PLX_DTYPE_FP16 }, { "f16", PLX_DTYPE_FP16 },
    { "torchfloat16", PLX_DTYPE_FP16 },
    { "float8", PLX_DTYPE_FP8 }, { "e4m3", PLX_DTYPE_FP8 }, { "fp8e4m3", PLX_DTYPE_FP8 },
    { "float8e4m3fn", PLX_DTYPE_FP8 }, { "e5m2", PLX_DTYPE_FP8 }, { "fp8e5m2", PLX_DTYPE_FP8 },
    { "tensorfloat32", PLX_DTYPE_TF32 },
    { "float32", PLX_DTYPE_FP32 }, { "f32", PLX_DTYPE_FP32 }, { "float", PLX_DTYPE_FP32 },
    { "torchfloat32", PLX_DTYPE_FP32 },
  };
  g_autofree char *norm = normalise (text);

  if (plx_dtype_from_string (norm, dtype))
    return TRUE;
  for (gsize i = 0; i < G_N_ELEMENTS (aliases); i++)
    if (g_str_equal (norm, aliases[i].name))
      {
        *dtype = aliases[i].dtype;
        return TRUE;
      }
  return FALSE;
}

double
plx_gemm_row_flops (const PlxGemmRow *row)
{
  return 2.0 * row->batch * row->m * row->n * row->k;
}

/* Calls `row_fn` with each data line's fields, after the header; skips blank lines
 * and lines starting with '#'. */
typedef gboolean (*RowFn) (Header *h, char **fields, gpointer data, GError **error);

static gboolean
parse_csv (const char *text,
           const char *source,
           gboolean    gemm,
           RowFn       row_fn,
           gpointer    data,
           guint      *n_rows,
           GError    **error)
{
  Header h = { .source = source };
  g_autofree char *header_line = NULL;
  gboolean ok = TRUE;
  gsize pos = 0;
  guint lines = 0;

  *n_rows = 0;
  while (ok)
    {
      g_autoptr (GError) bad = NULL;
      g_auto (GStrv) fields = plx_csv_next_record (text, &pos, &lines, &h.line, source, &bad);
      const char *line;

      if (fields == NULL)
        {
          /* The end of the text, or a record that does not read. */
          ok = bad == NULL;
          if (bad != NULL)
            g_propagate_error (error, g_steal_pointer (&bad));
          break;
        }
      if (header_line == NULL)
        {
          line = header_line = g_strjoinv (",", fields);
          ok = read_header (&h, fields, gemm, error);
          if (ok && gemm)
            ok = require (&h, COL_M, "m", line, error) && require (&h, COL_N, "n", line, error) &&
                 require (&h, COL_K, "k", line, error) && require (&h, COL_DTYPE, "dtype", line, error);
          else if (ok)
            ok = require (&h, COL_BYTES, "bytes", line, error);
          if (ok && h.index[COL_TIME] < 0 && h.index[gemm ? COL_RATE : COL_BW] < 0)
            {
              g_set_error (error, PLX_ERROR, PLX_ERROR_MISSING_KEY,
                           "%s:%u: no time column (time_s, time_ms, time_us) and no %s column in the header \"%.200s\"",
                           source, h.line, gemm ? "throughput (tflops, gflops)" : "bandwidth (GB/s)", line);
              ok = FALSE;
            }
          continue;
        }
      if (g_strv_length (fields) != h.n_fields)
        {
          g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE, "%s:%u: %u fields where the header has %u", source, h.line,
                       g_strv_length (fields), h.n_fields);
          ok = FALSE;
          continue;
        }
      ok = row_fn (&h, fields, data, error);
      (*n_rows)++;
    }
  if (ok && header_line == NULL)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE, "%s: no header line", source);
      ok = FALSE;
    }
  else if (ok && *n_rows == 0)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE, "%s: a header and no rows", source);
      ok = FALSE;
    }
  header_clear (&h);
  return ok;
}

/* A row's time: its time column, or else its work over its rate column (FLOPs over
 * FLOP/s, bytes over bytes/s), each in the unit its header named. */
static gboolean
row_time (Header *h, char **fields, ColKind rate_col, double work, double *time_s, GError **error)
{
  double rate;

  if (h->index[COL_TIME] >= 0)
    {
      if (!field_number (h, fields, COL_TIME, FALSE, time_s, error))
        return FALSE;
      *time_s *= h->scale[COL_TIME];
      return TRUE;
    }
  if (!field_number (h, fields, rate_col, FALSE, &rate, error))
    return FALSE;
  *time_s = work / (rate * h->scale[rate_col]);
  return TRUE;
}

static gboolean
gemm_row (Header  *h,
          char   **fields,
          gpointer data,
          GError **error)
{
  PlxGemmSweep *sweep = data;
  PlxGemmRow row = { .batch = 1.0, .line = h->line };
  g_autofree char *dtype = field_text (fields[h->index[COL_DTYPE]]);

  if (h->index[COL_BATCH] >= 0 && !field_number (h, fields, COL_BATCH, TRUE, &row.batch, error))
    return FALSE;
  if (!field_number (h, fields, COL_M, TRUE, &row.m, error) || !field_number (h, fields, COL_N, TRUE, &row.n, error) ||
      !field_number (h, fields, COL_K, TRUE, &row.k, error))
    return FALSE;
  if (!parse_dtype (dtype, &row.dtype))
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                   "%s:%u: column \"%s\": \"%.40s\" is not a dtype (bf16, fp16, fp8, tf32, fp32)", h->source, h->line,
                   h->header[COL_DTYPE], dtype);
      return FALSE;
    }
  if (!row_time (h, fields, COL_RATE, plx_gemm_row_flops (&row), &row.time_s, error))
    return FALSE;
  g_array_append_val (sweep->rows, row);
  return TRUE;
}

static gboolean
membw_row (Header  *h,
           char   **fields,
           gpointer data,
           GError **error)
{
  PlxMembwSweep *sweep = data;
  PlxMembwRow row = { .line = h->line };

  if (!field_number (h, fields, COL_BYTES, FALSE, &row.bytes, error))
    return FALSE;
  if (!row_time (h, fields, COL_BW, row.bytes, &row.time_s, error))
    return FALSE;
  g_array_append_val (sweep->rows, row);
  return TRUE;
}

PlxGemmSweep *
plx_gemm_sweep_parse (const char *text,
                      const char *source,
                      GError    **error)
{
  g_autoptr (PlxGemmSweep) sweep = g_new0 (PlxGemmSweep, 1);
  guint n;

  sweep->source = g_strdup (source);
  sweep->rows = g_array_new (FALSE, FALSE, sizeof (PlxGemmRow));
  if (!parse_csv (text, source, TRUE, gemm_row, sweep, &n, error))
    return NULL;
  return g_steal_pointer (&sweep);
}

PlxMembwSweep *
plx_membw_sweep_parse (const char *text,
                       const char *source,
                       GError    **error)
{
  g_autoptr (PlxMembwSweep) sweep = g_new0 (PlxMembwSweep, 1);
  guint n;

  sweep->source = g_strdup (source);
  sweep->rows = g_array_new (FALSE, FALSE, sizeof (PlxMembwRow));
  if (!parse_csv (text, source, FALSE, membw_row, sweep, &n, error))
    return NULL;
  return g_steal_pointer (&sweep);
}

static char *
load_text (const char *path,
           GError    **error)
{
  char *text = NULL;
  gsize len = 0;

  if (!plx_input_get_contents (path, &text, &len, error))
    return NULL;
  if (memchr (text, '\0', len) != NULL)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE, "%s: not a text file (it holds a NUL byte)", plx_input_name (path));
      g_free (text);
      return NULL;
    }
  return text;
}

PlxGemmSweep *
plx_gemm_sweep_load (const char *path,
                     GError    **error)
{
  g_autofree char *text = load_text (path, error);

  return text == NULL ? NULL : plx_gemm_sweep_parse (text, plx_input_name (path), error);
}

PlxMembwSweep *
plx_membw_sweep_load (const char *path,
                      GError    **error)
{
  g_autofree char *text = load_text (path, error);

  return text == NULL ? NULL : plx_membw_sweep_parse (text, plx_input_name (path), error);
}

void
plx_gemm_sweep_free (PlxGemmSweep *sweep)
{
  if (sweep == NULL)
    return;
  g_free (sweep->source);
  g_array_unref (sweep->rows);
  g_free (sweep);
}

void
plx_membw_sweep_free (PlxMembwSweep *sweep)
{
  if (sweep == NULL)
    return;
  g_free (sweep->source);
  g_array_unref (sweep->rows);
  g_free (sweep);
}
