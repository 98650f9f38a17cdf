/* Chrome trace-event format (the "JSON Array/Object Format" of Google's Trace Event
 * Format document): complete events ("ph": "X") with microsecond timestamps, process
 * and thread names as metadata ("ph": "M"), memory as counters ("ph": "C").
 * Perfetto and chrome://tracing open it. Written through plx_output: a temporary file
 * beside the target renamed over it, so a failure never leaves a partial trace, or
 * written through to a device or pipe. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/stat.h>
#include <string.h>

#include <glib/gstdio.h>

#include "parallax/plx-error.h"
#include "base/plx-output.h"
#include "parallax/plx-sim.h"

static void
write_string (FILE *f, const char *s)
{
  fputc ('"', f);
  for (; *s; s++)
    {
      unsigned char c = (unsigned char) *s;
      if (c == '"' || c == '\\')
        fprintf (f, "\\%c", c);
      else if (c < 0x20)
        fprintf (f, "\\u%04x", c);
      else
        fputc (c, f);
    }
  fputc ('"', f);
}

/* printf's %f and %g follow LC_NUMERIC: under de_DE they write "1,5", which is not
 * JSON. Numbers go through g_ascii_formatd, which always writes a point. */
typedef char Num[G_ASCII_DTOSTR_BUF_SIZE];

static const char *
num (Num buf, const char *format, double v)
{
  return g_ascii_formatd (buf, G_ASCII_DTOSTR_BUF_SIZE, format, isfinite (v) ? v : 0.0);
}

/* Refuses a trace of more than PLX_TRACE_MAX_EVENTS events before writing any: the
 * timeline stops at a million events, but the memory counters went on (9 million
 * events, 1.3 GB and 86 s for one trace), and a deep pipeline names six tracks a
 * stage. */
static gboolean
check_trace_size (const PlxTimeline *timeline, const PlxMemoryTrace *trace, const char *path, GError **error)
{
  guint64 events = plx_timeline_n_events (timeline), samples = 0;
  guint64 tracks = (guint64) timeline->n_ranks * (2 + PLX_N_STREAMS);

  for (guint r = 0; trace != NULL && r < trace->n_ranks; r++)
    samples += 1 + plx_memory_trace_n_samples (trace, r);
  if (tracks + events + samples <= PLX_TRACE_MAX_EVENTS)
    return TRUE;
  g_set_error (error, PLX_ERROR, PLX_ERROR_UNSUPPORTED,
               "%.200s: %" G_GUINT64_FORMAT " timeline events, %" G_GUINT64_FORMAT " memory samples and %" G_GUINT64_FORMAT
               " track names of %u stages are more than a trace's %d million events; simulate fewer micro-batches "
               "or stages", path, events, samples, tracks, timeline->n_ranks, PLX_TRACE_MAX_EVENTS / 1000000);
  return FALSE;
}

gboolean
plx_timeline_write_chrome_trace (const PlxTimeline    *timeline,
                                 const PlxMemoryTrace *trace,
                                 const char           *path,
                                 GError              **error)
{
  /* The size is checked before any file is made (bounds on work, docs/robustness.md). */
  PlxOutput *out = check_trace_size (timeline, trace, path, error) ? plx_output_open (path, error) : NULL;
  FILE *f;
  gboolean first = TRUE;
  Num a, b, n3;
  PlxTimelineIter iter;
  PlxTimelineEvent event;

  if (out == NULL)
    return FALSE;
  f = plx_output_stream (out);

#define SEP() G_STMT_START { fputs (first ? "\n" : ",\n", f); first = FALSE; } G_STMT_END
  fputs ("{\"displayTimeUnit\": \"ms\", \"traceEvents\": [", f);
  for (guint r = 0; r < timeline->n_ranks; r++)
    {
      SEP ();
      fprintf (f, "{\"ph\": \"M\", \"pid\": %u, \"name\": \"process_name\", \"args\": {\"name\": \"stage %u\"}}", r, r);
      SEP ();
      fprintf (f, "{\"ph\": \"M\", \"pid\": %u, \"name\": \"process_sort_index\", \"args\": {\"sort_index\": %u}}", r, r);
      for (guint st = 0; st < PLX_N_STREAMS; st++)
        {
          SEP ();
          fprintf (f, "{\"ph\": \"M\", \"pid\": %u, \"tid\": %u, \"name\": \"thread_name\", \"args\": {\"name\": \"%s\"}}",
                   r, st, plx_stream_to_string (st));
        }
    }
  plx_timeline_iter_init (&iter, timeline);
  while (plx_timeline_iter_next (&iter, &event))
    {
      const PlxTimelineEvent *ev = &event;
      SEP ();
      fputs ("{\"ph\": \"X\", \"name\": ", f);
      write_string (f, ev->label);
      fprintf (f, ", \"cat\": \"%s\", \"pid\": %u, \"tid\": %u, \"ts\": %s, \"dur\": %s, \"args\": {",
               plx_task_kind_to_string (ev->kind), ev->rank, ev->stream, num (a, "%.3f", ev->start_s * 1e6),
               num (b, "%.3f", (ev->end_s - ev->start_s) * 1e6));
      if (ev->micro_batch != PLX_NO_MICRO_BATCH)
        fprintf (f, "\"micro_batch\": %u, ", ev->micro_batch);
      fprintf (f, "\"chunk\": %u, \"flops\": %s, \"bytes\": %s}}", ev->chunk, num (a, "%.6g", ev->flops),
               num (b, "%.6g", ev->bytes));
    }
  if (trace != NULL)
    for (guint r = 0; r < trace->n_ranks; r++)
      {
        double base = 0.0;
        PlxMemoryTraceIter it;
        PlxMemorySample sm;

        for (guint c = 0; c < PLX_N_MEM; c++)
          base += trace->static_bytes[(gsize) r * PLX_N_MEM + c];
        SEP ();
        fprintf (f, "{\"ph\": \"C\", \"name\": \"memory\", \"pid\": %u, \"ts\": 0, \"args\": {\"static_bytes\": %s, \"activation_bytes\": 0}}",
                 r, num (a, "%.0f", base));
        plx_memory_trace_iter_init (&it, trace, r);
        while (plx_memory_trace_iter_next (&it, &sm))
          {
            SEP ();
            fprintf (f, "{\"ph\": \"C\", \"name\": \"memory\", \"pid\": %u, \"ts\": %s, \"args\": {\"static_bytes\": %s, \"activation_bytes\": %s}}",
                     r, num (a, "%.3f", sm.time_s * 1e6), num (b, "%.0f", base),
                     num (n3, "%.0f", MAX (sm.activation_bytes, 0.0)));
          }
      }
  fputs ("\n]}\n", f);
#undef SEP

  return plx_output_close (out, error);
}
