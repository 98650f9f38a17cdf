/* The stdout of NVIDIA nccl-tests (github.com/NVIDIA/nccl-tests, src/common.cu prints
 * it): '#' comment lines (the test's name, its parameters, one line per rank, the
 * column header), one row per size - size count type redop [root] | out-of-place
 * time algbw busbw #wrong | in-place time algbw busbw #wrong, in bytes, us and GB/s -
 * and "# Avg bus bandwidth : X". Versions before 2.10 have no root column; #wrong is
 * "N/A" where a test does not check. A file may hold several tests one after another;
 * anything else (launcher noise, NCCL's own lines) is skipped, and so is the prefix
 * mpirun --tag-output or srun --label puts on every line. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/plx-input.h"
#include "parallax/plx-error.h"
#include "calibrate/plx-nccl-tests.h"

/* Nothing nccl-tests runs comes near these; past them a number is garbage. */
#define MAX_BYTES 1e15        /* 1 PB */
#define MAX_TIME_US 1e10      /* almost three hours per collective */
#define MAX_BUSBW_GBPS 1e6    /* 1 PB/s */

static const struct
{
  const char        *names[3];
  PlxCollectiveKind  kind;
} tests[] = {
  { { "all_reduce", "allreduce", NULL }, PLX_COLLECTIVE_ALL_REDUCE },
  { { "all_gather", "allgather", NULL }, PLX_COLLECTIVE_ALL_GATHER },
  { { "reduce_scatter", "reducescatter", NULL }, PLX_COLLECTIVE_REDUCE_SCATTER },
  { { "alltoall", "all_to_all", NULL }, PLX_COLLECTIVE_ALL_TO_ALL },
  { { "sendrecv", "send_recv", NULL }, PLX_COLLECTIVE_SEND_RECV },
};

static gboolean
kind_of_name (const char *name, PlxCollectiveKind *kind)
{
  g_autofree char *lower = g_ascii_strdown (name, -1);

  for (guint t = 0; t < G_N_ELEMENTS (tests); t++)
    for (guint n = 0; tests[t].names[n] != NULL; n++)
      if (strstr (lower, tests[t].names[n]) != NULL)
        {
          *kind = tests[t].kind;
          return TRUE;
        }
  return FALSE;
}

static void
table_free (PlxNcclTable *t)
{
  g_free (t->test);
  g_array_unref (t->rows);
  g_free (t);
}

void
plx_nccl_file_free (PlxNcclFile *file)
{
  if (file == NULL)
    return;
  g_free (file->source);
  g_ptr_array_unref (file->tables);
  g_free (file);
}

double
plx_nccl_row_time_s (const PlxNcclRow *row)
{
  /* Both columns run the same algorithm on the same sizes; what tells them apart is
   * interference (another job, a clock dip), which only ever slows a run. The model
   * predicts an undisturbed collective, so the faster is the better estimate; a mean
   * would carry half of every outlier (e.g. 170 us against 350 us in the GH200 file). */
  if (isnan (row->oop_time_s))
    return row->ip_time_s;
  if (isnan (row->ip_time_s))
    return row->oop_time_s;
  return MIN (row->oop_time_s, row->ip_time_s);
}

static PlxNcclTable *
table_new (const char *test, PlxCollectiveKind kind)
{
  PlxNcclTable *t = g_new0 (PlxNcclTable, 1);

  t->test = g_strdup (test);
  t->kind = kind;
  t->rows = g_array_new (FALSE, TRUE, sizeof (PlxNcclRow));
  t->avg_busbw_Bps = NAN;
  return t;
}

/* A number of the table: finite, in [lo, hi]; "N/A" where allowed (NAN). */
static gboolean
parse_number (const char *field, const char *column, double lo, double hi, gboolean na_ok,
              const char *source, guint line, double *out, GError **error)
{
  char *end = NULL;
  double v;

  if (na_ok && g_str_equal (field, "N/A"))
    {
      *out = NAN;
      return TRUE;
    }
  errno = 0;
  v = g_ascii_strtod (field, &end);
  if (end == field || *end != '\0' || errno == ERANGE || !isfinite (v))
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE, "%s: line %u: %s \"%.40s\" is not a number",
                   source, line, column, field);
      return FALSE;
    }
  if (!(v >= lo && v <= hi))
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "%s: line %u: %s %g is outside [%g, %g]",
                   source, line, column, v, lo, hi);
      return FALSE;
    }
  *out = v;
  return TRUE;
}

static gboolean
parse_row (char **f, guint n, gboolean has_root, const char *source, guint line,
           PlxNcclRow *row, GError **error)
{
  /* Out-of-place time, algbw, busbw start after size count type redop [root]. */
  guint o = has_root ? 5 : 4;
  double algbw, count;

  if (n != o + 8)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE,
                   "%s: line %u: a row of %u columns, expected %u (size count type redop%s, then time algbw busbw "
                   "#wrong out of place and in place)",
                   source, line, n, o + 8, has_root ? " root" : "");
      return FALSE;
    }
  row->line = line;
  if (!parse_number (f[0], "size", 1.0, MAX_BYTES, FALSE, source, line, &row->bytes, error) ||
      !parse_number (f[1], "count", 0.0, MAX_BYTES, FALSE, source, line, &count, error) ||
      !parse_number (f[o], "out-of-place time", 1e-3, MAX_TIME_US, TRUE, source, line, &row->oop_time_s, error) ||
      !parse_number (f[o + 1], "out-of-place algbw", 0.0, MAX_BUSBW_GBPS, TRUE, source, line, &algbw, error) ||
      !parse_number (f[o + 2], "out-of-place busbw", 0.0, MAX_BUSBW_GBPS, TRUE, source, line, &row->oop_busbw_Bps, error) ||
      !parse_number (f[o + 4], "in-place time", 1e-3, MAX_TIME_US, TRUE, source, line, &row->ip_time_s, error) ||
      !parse_number (f[o + 5], "in-place algbw", 0.0, MAX_BUSBW_GBPS, TRUE, source, line, &algbw, error) ||
      !parse_number (f[o + 6], "in-place busbw", 0.0, MAX_BUSBW_GBPS, TRUE, source, line, &row->ip_busbw_Bps, error))
    return FALSE;
  /* A side is measured only with both its time and its busbw: a busbw of "N/A" beside
   * a time would reach the fit as NaN (issue 34: "nan" in the printed table and
   * `nan.0` in the written cluster file). */
  if (isnan (row->oop_busbw_Bps))
    row->oop_time_s = NAN;
  if (isnan (row->ip_busbw_Bps))
    row->ip_time_s = NAN;
  if (isnan (row->oop_time_s) && isnan (row->ip_time_s))
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "%s: line %u: size %.0f has no time with its busbw (N/A)",
                   source, line, row->bytes);
      return FALSE;
    }
  row->oop_time_s *= 1e-6;
  row->ip_time_s *= 1e-6;
  row->oop_busbw_Bps *= 1e9;
  row->ip_busbw_Bps *= 1e9;
  return TRUE;
}

/* "#  Rank  3 Group  0 Pid 204202 on  nid005471 device  3 [...] NAME": the host. */
static void
note_rank (PlxNcclTable *t, GHashTable *hosts, const char *rest)
{
  const char *on = strstr (rest, " on ");
  g_auto (GStrv) words = NULL;

  t->n_ranks++;
  if (on == NULL)
    return;
  words = g_strsplit_set (on + 4, " \t", -1);
  for (guint i = 0; words[i] != NULL; i++)
    if (words[i][0] != '\0')
      {
        g_hash_table_add (hosts, g_strdup (words[i]));
        break;
      }
  t->n_hosts = g_hash_table_size (hosts);
}

/* A launcher's per-line prefix, skipped: Open MPI's `mpirun --tag-output`
 * "[JOB,RANK]<stdout>:" (or <stderr>), and Slurm's `srun --label` "RANK: " (the
 * task number, padded to the width of the largest). A table row starts with digits
 * and a space, never digits and a colon, so the two cannot be mistaken. */
static char *
skip_launcher_prefix (char *s)
{
  char *p = s;

  if (*p == '[')
    {
      p++;
      p += strspn (p, "0123456789");
      if (*p == ',')
        {
          p++;
          p += strspn (p, "0123456789");
          if (g_str_has_prefix (p, "]<stdout>:") || g_str_has_prefix (p, "]<stderr>:"))
            return p + strlen ("]<stdout>:");
        }
      return s;
    }
  p += strspn (p, " ");
  if (g_ascii_isdigit (*p))
    {
      p += strspn (p, "0123456789");
      if (*p == ':' && (p[1] == ' ' || p[1] == '\0'))
        return p + 1;
    }
  return s;
}

PlxNcclFile *
plx_nccl_file_parse (const char  *text,
                     gsize        length,
                     const char  *source,
                     GError     **error)
{
  g_autoptr (PlxNcclFile) file = g_new0 (PlxNcclFile, 1);
  g_autoptr (GHashTable) hosts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autofree char *copy = NULL;
  g_auto (GStrv) lines = NULL;
  g_autofree char *base = g_path_get_basename (source);
  PlxNcclTable *current = NULL;
  gboolean has_root = TRUE;
  guint n_rows = 0;

  file->source = g_strdup (source);
  file->tables = g_ptr_array_new_with_free_func ((GDestroyNotify) table_free);
  if (memchr (text, '\0', length) != NULL)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE, "%s: a binary file, not nccl-tests output", source);
      return NULL;
    }
  copy = g_strndup (text, length);
  lines = g_strsplit (copy, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      guint line = i + 1;
      char *s = g_strstrip (skip_launcher_prefix (lines[i]));

      if (s[0] == '#')
        {
          const char *rest = s + 1 + strspn (s + 1, " \t");
          PlxCollectiveKind kind;

          if (g_str_has_prefix (rest, "Collective test starting:"))
            {
              g_autofree char *name = g_strstrip (g_strdup (rest + strlen ("Collective test starting:")));
              if (!kind_of_name (name, &kind))
                {
                  g_set_error (error, PLX_ERROR, PLX_ERROR_UNSUPPORTED,
                               "%s: line %u: test \"%.40s\" is not one the model has (all_reduce_perf, "
                               "all_gather_perf, reduce_scatter_perf, alltoall_perf, sendrecv_perf)",
                               source, line, name);
                  return NULL;
                }
              current = table_new (name, kind);
              g_ptr_array_add (file->tables, current);
              g_hash_table_remove_all (hosts);
            }
          else if (g_str_has_prefix (rest, "Rank ") && current != NULL)
            note_rank (current, hosts, rest);
          else if (g_str_has_prefix (rest, "size"))
            has_root = strstr (rest, "root") != NULL;
          else if (g_str_has_prefix (rest, "Avg bus bandwidth") && current != NULL)
            {
              const char *colon = strchr (rest, ':');
              g_autofree char *value = g_strstrip (g_strdup (colon != NULL ? colon + 1 : ""));
              double v;
              if (!parse_number (value, "average bus bandwidth", 0.0, MAX_BUSBW_GBPS, FALSE, source, line, &v, error))
                return NULL;
              current->avg_busbw_Bps = v * 1e9;
            }
          continue;
        }
      if (!g_ascii_isdigit (s[0]))
        continue; /* launcher and NCCL lines between the tables */
      {
        g_auto (GStrv) fields = g_strsplit_set (s, " \t", -1);
        char *f[16];
        guint n = 0;
        PlxNcclRow row;

        for (guint k = 0; fields[k] != NULL; k++)
          if (fields[k][0] != '\0')
            {
              if (n == G_N_ELEMENTS (f))
                {
                  g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE, "%s: line %u: more than %u columns, not a "
                               "nccl-tests row", source, line, (guint) G_N_ELEMENTS (f));
                  return NULL;
                }
              f[n++] = fields[k];
            }
        if (current == NULL)
          {
            /* Versions that do not name the test: the file name must. */
            PlxCollectiveKind kind;
            if (!kind_of_name (base, &kind))
              {
                g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE,
                             "%s: line %u: a row before any \"# Collective test starting:\" line, and the file name "
                             "does not say which test (all_reduce, all_gather, reduce_scatter, alltoall, sendrecv)",
                             source, line);
                return NULL;
              }
            current = table_new (base, kind);
            g_ptr_array_add (file->tables, current);
          }
        if (!parse_row (f, n, has_root, source, line, &row, error))
          return NULL;
        g_array_append_val (current->rows, row);
        n_rows++;
      }
    }
  if (n_rows == 0)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE, "%s: no nccl-tests table (no row of size, count, type, ... "
                   "time algbw busbw)", source);
      return NULL;
    }
  for (guint t = 0; t < file->tables->len; t++)
    if (((PlxNcclTable *) file->tables->pdata[t])->rows->len == 0)
      {
        g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE, "%s: test \"%s\" has no rows", source,
                     ((PlxNcclTable *) file->tables->pdata[t])->test);
        return NULL;
      }
  return g_steal_pointer (&file);
}

PlxNcclFile *
plx_nccl_file_load (const char  *path,
                    GError     **error)
{
  g_autofree char *text = NULL;
  gsize length = 0;
  g_autoptr (GError) local = NULL;

  if (!plx_input_get_contents (path, &text, &length, &local))
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_NOT_FOUND, "%s", local->message);
      return NULL;
    }
  return plx_nccl_file_parse (text, length, plx_input_name (path), error);
}
