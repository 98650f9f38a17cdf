#include "plx-engine.h"
#include "base/plx-json.h"
#include "calibrate/plx-uncertainty.h"
#include "optimize/plx-advice.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif

/* One worker thread per engine, always the same one (docs/gui-latency.md): glibc gives
 * each thread its own malloc arena, and a simulation on a thread whose arena is cold
 * touches its timeline's megabytes for the first time - 8-17 ms instead of 1-2 ms for
 * GPT-3 175B on 1024 GPUs, measured on one change in twenty when GIO's shared pool ran
 * the work on whichever thread was free. The same thread reuses the same warm memory.
 *
 * Only the newest request matters: a request waiting for the worker is replaced by a
 * newer one, and a request already running finishes but is not delivered. The
 * outcome sits in the slot shared with the worker: the main thread takes it either
 * from an idle callback the worker queues or, to get it into the frame being drawn,
 * by waiting a few milliseconds for it (plx_engine_deliver_within). Whichever comes
 * first delivers; the other finds it delivered.
 *
 * A cluster with uncertain inputs also gets a p5-p95 band from PLX_GUI_UNCERTAINTY_SAMPLES
 * draws of the analytical engine. The worker samples after it has handed over the
 * nominal result: the band follows in a later frame ("sampled"), and the draws never
 * stand between a change and the frame with its charts, however many there are.
 *
 * Warm memory needs one more thing: glibc hands the free end of a thread's heap back
 * to the kernel once it exceeds 128 KiB, so freeing the previous result gave the next
 * simulation fresh pages to fault in (600-1200 faults, 12-17 ms, on one change in
 * thirty). The window keeps up to 256 MiB of freed memory for reuse instead.
 *
 * The timeline chart's layout (1.4 ms for GPT-3 175B on 1024 GPUs) is built by the
 * worker too, for the size the chart had at the change, after it has handed the
 * result over: the main thread meanwhile shows the numbers and GTK lays out the
 * window (about 3 ms), and the chart takes the layout when it draws, waiting for it
 * if it is not done yet. Built on the main thread instead, it came after all that. */

typedef struct _Job Job;

typedef struct
{
  GMutex        lock;
  GCond         work;        /* to the worker: a job is queued, or quit */
  GCond         done;        /* to the main thread: the newest outcome is ready */
  guint64       latest;      /* generation of the newest request */
  guint64       ready;       /* generation whose outcome is below */
  PlxResult    *result;      /* one of the two until delivered, then neither */
  char         *error;
  Job          *queued;      /* the newest request, not yet started */
  gboolean      quit;
  GMainContext *context;     /* where outcomes are delivered */
  guint64       band_generation;  /* whose band is below; 0: none */
  gboolean      band_ok;
  PlxUncertaintyResult band;
  PlxEngine    *engine;      /* main thread only; NULL once the engine is gone */
} Slot;

struct _Job
{
  JsonNode *json;
  char     *base_dir;
  char     *source;
  guint64   generation;
  /* The timeline chart's size, its height with the fit advice hidden [0] and shown [1]
   * (the advice shows when the result does not fit); 0: no layout. */
  int       layout_width, layout_height[2];
};

/* A result's layout as the worker builds it: `done` once it is built or will not be. */
struct _PlxPrebuilt
{
  GMutex             lock;
  GCond              built;
  gboolean           done;
  PlxTimelineLayout *layout;   /* NULL once taken */
  int                width, height;  /* what it is built for: set before the result is handed over */
};

struct _PlxEngine
{
  GObject  parent_instance;
  Slot    *slot;          /* atomic rc box, shared with the worker and its idles */
  guint64  latest;        /* generation of the newest compute() */
  guint64  delivered;     /* generation last emitted (or found stale) */
  PlxResult *shown;       /* the result last emitted, for its band */
  int      layout_width, layout_height[2];
};

G_DEFINE_FINAL_TYPE (PlxEngine, plx_engine, G_TYPE_OBJECT)

enum { COMPUTED, FAILED, SAMPLED, N_SIGNALS };
static guint signals[N_SIGNALS];

static void
job_free (Job *job)
{
  if (job == NULL)
    return;
  json_node_unref (job->json);
  g_free (job->base_dir);
  g_free (job->source);
  g_free (job);
}

static void
slot_clear (Slot *slot)
{
  g_clear_pointer (&slot->result, plx_result_unref);
  g_clear_pointer (&slot->error, g_free);
  g_clear_pointer (&slot->queued, job_free);
  g_main_context_unref (slot->context);
  g_mutex_clear (&slot->lock);
  g_cond_clear (&slot->work);
  g_cond_clear (&slot->done);
}

static void
slot_release (Slot *slot)
{
  g_atomic_rc_box_release_full (slot, (GDestroyNotify) slot_clear);
}

static void
prebuilt_free (struct _PlxPrebuilt *p)
{
  if (p->layout != NULL)
    plx_timeline_layout_free (p->layout);
  g_mutex_clear (&p->lock);
  g_cond_clear (&p->built);
  g_free (p);
}

/* On the worker. */
static void
prebuilt_finish (struct _PlxPrebuilt *p, PlxTimelineLayout *layout)
{
  g_mutex_lock (&p->lock);
  p->layout = layout;
  p->done = TRUE;
  g_cond_broadcast (&p->built);
  g_mutex_unlock (&p->lock);
}

/* The chart view's layout of the whole step at this size (plx-chart-view.c,
 * build_layout: default options, the window 0 .. step time). */
static PlxTimelineLayout *
whole_step_layout (const PlxTimeline *tl, int width, int height)
{
  PlxTimelineOptions o;

  plx_timeline_options_init (&o, width, height);
  o.t0_s = 0.0;
  o.t1_s = tl->step_time_s;
  return plx_timeline_layout_new (tl, &o);
}

PlxTimelineLayout *
plx_result_take_layout (PlxResult *result,
                        double     width,
                        double     height,
                        double     t0_s,
                        double     t1_s)
{
  struct _PlxPrebuilt *p = result->prebuilt;
  PlxTimelineLayout *l;

  /* Another size or window: not built for it, no need to wait to know. */
  if (p == NULL || width != p->width || height != p->height || t0_s != 0.0 || t1_s != result->timeline->step_time_s)
    return NULL;
  g_mutex_lock (&p->lock);
  while (!p->done)
    g_cond_wait (&p->built, &p->lock);
  /* Built, if at all, by whole_step_layout for p's size: the options checked above. */
  l = g_steal_pointer (&p->layout);
  g_mutex_unlock (&p->lock);
  return l;
}

static void
result_clear (PlxResult *r)
{
  g_clear_pointer (&r->prebuilt, prebuilt_free);
  plx_scenario_free (r->scenario);
  if (r->json != NULL)
    json_node_unref (r->json);
  plx_timeline_free (r->timeline);
  plx_memory_trace_free (r->trace);
  g_clear_pointer (&r->fit_fixes, g_ptr_array_unref);
  g_free (r->scenario_dir);
}

PlxResult *
plx_result_ref (PlxResult *result)
{
  return g_atomic_rc_box_acquire (result);
}

void
plx_result_unref (PlxResult *result)
{
  g_atomic_rc_box_release_full (result, (GDestroyNotify) result_clear);
}

/* The step-time band and the OOM risk of a cluster with ranges or distributions,
 * beside the nominal result; the same draws and seed as `simulate --samples`, so the
 * window and the CLI agree. Inference and schedule files have no such band (the CLI
 * refuses them too). */
static gboolean
wants_band (const PlxResult *r)
{
  const PlxScenario *sc = r->scenario;

  return sc->cluster->uncertain != NULL && sc->cluster->uncertain->len > 0 &&
         sc->strategy->workload == PLX_WORKLOAD_TRAINING && sc->strategy->schedule != PLX_SCHEDULE_FILE;
}

static gboolean
sample_band (const PlxResult *r, PlxUncertaintyResult *out, GError **error)
{
  const PlxScenario *sc = r->scenario;

  return plx_uncertainty_sample (sc->model, sc->cluster, sc->strategy, PLX_GUI_UNCERTAINTY_SAMPLES,
                                 PLX_UNCERTAINTY_DEFAULT_SEED, out, error);
}

/* Everything but the band. */
static PlxResult *
compute_nominal (JsonNode   *scenario,
                 const char *base_dir,
                 const char *source,
                 GError    **error)
{
  g_autoptr (PlxResult) r = g_atomic_rc_box_new0 (PlxResult);
  gint64 t0 = g_get_monotonic_time ();

  r->json = plx_json_deep_copy (scenario);
  r->scenario_dir = g_strdup (base_dir ? base_dir : ".");
  r->scenario = plx_scenario_new_from_json (r->json, base_dir, source, error);
  if (r->scenario == NULL)
    return NULL;
  if (!plx_sim_run_scenario (r->scenario->model, r->scenario->cluster, r->scenario->strategy, &r->report, NULL,
                             &r->timeline, &r->trace, error))
    return NULL;
  /* The advice the window shows beside the charts is computed here too, off the main
   * thread: a strategy that does not fit asks the closed form about dozens of
   * alternatives, which would otherwise cost the frame that shows the new charts. */
  r->max_micro_batch = G_MAXUINT64;
  if (r->scenario->strategy->schedule != PLX_SCHEDULE_FILE)
    {
      if (!plx_analytic_max_micro_batch_size (r->scenario->model, r->scenario->cluster, r->scenario->strategy,
                                              &r->max_micro_batch, error))
        return NULL;
      if (!r->report.fits_in_memory)
        r->fit_fixes = plx_advice_fit_fixes (r->scenario->model, r->scenario->cluster, r->scenario->strategy, 6);
    }
  r->compute_s = (g_get_monotonic_time () - t0) / 1e6;
  return g_steal_pointer (&r);
}

PlxResult *
plx_engine_compute_sync (JsonNode   *scenario,
                         const char *base_dir,
                         const char *source,
                         GError    **error)
{
  g_autoptr (PlxResult) r = compute_nominal (scenario, base_dir, source, error);

  if (r == NULL)
    return NULL;
  if (wants_band (r))
    {
      if (!sample_band (r, &r->uncertainty, error))
        return NULL;
      r->sampled = TRUE;
    }
  return g_steal_pointer (&r);
}

/* Puts the worker's band on the result shown, if it is that result's. */
static void
apply_band (PlxEngine *self)
{
  Slot *slot = self->slot;
  gboolean ok = FALSE, have = FALSE;
  PlxUncertaintyResult band;

  if (self->shown == NULL || !self->shown->band_pending)
    return;
  g_mutex_lock (&slot->lock);
  if (slot->band_generation != 0 && slot->band_generation == self->delivered)
    {
      have = TRUE;
      ok = slot->band_ok;
      band = slot->band;
      slot->band_generation = 0;
    }
  g_mutex_unlock (&slot->lock);
  if (!have)
    return;
  self->shown->band_pending = FALSE;
  /* A draw the engine refuses leaves the result without a band, as the CLI's
   * --samples would say why; the nominal result stands. */
  if (ok)
    {
      self->shown->uncertainty = band;
      self->shown->sampled = TRUE;
    }
  g_signal_emit (self, signals[SAMPLED], 0, self->shown);
}

/* Emits the newest outcome if it is ready and nobody has yet; with `wait_us` > 0,
 * waits that long for it first. */
static gboolean
deliver (PlxEngine *self, gint64 wait_us)
{
  Slot *slot = self->slot;
  g_autoptr (PlxResult) r = NULL;
  g_autofree char *error = NULL;
  gint64 end = g_get_monotonic_time () + wait_us;

  g_mutex_lock (&slot->lock);
  while (wait_us > 0 && slot->ready != slot->latest)
    if (!g_cond_wait_until (&slot->done, &slot->lock, end))
      break;
  if (slot->ready == slot->latest)
    {
      r = g_steal_pointer (&slot->result);
      error = g_steal_pointer (&slot->error);
      self->delivered = slot->ready;
    }
  g_mutex_unlock (&slot->lock);
  if (r != NULL || error != NULL)
    g_clear_pointer (&self->shown, plx_result_unref);
  if (r != NULL)
    {
      self->shown = plx_result_ref (r);
      g_signal_emit (self, signals[COMPUTED], 0, r);
      /* Its band may be ready already. */
      if (self->slot != NULL)
        apply_band (self);
    }
  else if (error != NULL)
    g_signal_emit (self, signals[FAILED], 0, error);
  return r != NULL || error != NULL;
}

/* On the main thread, after the worker sampled a band. */
static gboolean
band_done_idle (gpointer data)
{
  Slot *slot = data;

  if (slot->engine != NULL)
    apply_band (slot->engine);
  return G_SOURCE_REMOVE;
}

static void
queue_idle (Slot *slot, GSourceFunc func, const char *name)
{
  GSource *idle = g_idle_source_new ();

  g_source_set_priority (idle, G_PRIORITY_DEFAULT);
  g_source_set_callback (idle, func, g_atomic_rc_box_acquire (slot), (GDestroyNotify) slot_release);
  g_source_set_static_name (idle, name);
  g_source_attach (idle, slot->context);
  g_source_unref (idle);
}

/* On the main thread, after the worker finished a job. */
static gboolean
job_done_idle (gpointer data)
{
  Slot *slot = data;

  if (slot->engine != NULL)
    deliver (slot->engine, 0);
  return G_SOURCE_REMOVE;
}

static gpointer
worker_main (gpointer data)
{
  Slot *slot = data;

  g_mutex_lock (&slot->lock);
  for (;;)
    {
      Job *job;
      GError *error = NULL;
      PlxResult *r;
      gboolean band;

      while (!slot->quit && slot->queued == NULL)
        g_cond_wait (&slot->work, &slot->lock);
      if (slot->quit)
        break;
      job = g_steal_pointer (&slot->queued);
      g_mutex_unlock (&slot->lock);

      r = compute_nominal (job->json, job->base_dir, job->source, &error);
      band = r != NULL && wants_band (r);
      if (band)
        r->band_pending = TRUE;
      if (r != NULL && r->timeline != NULL && job->layout_width > 0 &&
          job->layout_height[!r->report.fits_in_memory] > 0)
        {
          r->prebuilt = g_new0 (struct _PlxPrebuilt, 1);
          g_mutex_init (&r->prebuilt->lock);
          g_cond_init (&r->prebuilt->built);
          r->prebuilt->width = job->layout_width;
          r->prebuilt->height = job->layout_height[!r->report.fits_in_memory];
        }

      g_mutex_lock (&slot->lock);
      if (job->generation == slot->latest)
        {
          g_clear_pointer (&slot->result, plx_result_unref);
          g_clear_pointer (&slot->error, g_free);
          slot->result = r != NULL ? plx_result_ref (r) : NULL;
          slot->error = r == NULL ? g_strdup (error->message) : NULL;
          slot->ready = job->generation;
          g_cond_broadcast (&slot->done);
          queue_idle (slot, job_done_idle, "[parallax] engine outcome");
        }
      /* Not for a result already replaced, nor while a newer request waits: the chart
       * then builds it itself if it draws this result at all. */
      if (r != NULL && r->prebuilt != NULL)
        {
          gboolean wanted = job->generation == slot->latest && slot->queued == NULL;
          g_mutex_unlock (&slot->lock);
          prebuilt_finish (r->prebuilt,
                           wanted ? whole_step_layout (r->timeline, r->prebuilt->width, r->prebuilt->height) : NULL);
          g_mutex_lock (&slot->lock);
        }
      /* No band for a result a newer request already replaces. */
      if (band && job->generation == slot->latest)
        {
          /* Only the scenario is read, which nobody changes: the main thread may be
           * drawing this result meanwhile. */
          PlxUncertaintyResult u;
          gboolean ok;

          g_mutex_unlock (&slot->lock);
          ok = sample_band (r, &u, NULL);
          g_mutex_lock (&slot->lock);
          if (job->generation == slot->latest)
            {
              slot->band = u;
              slot->band_ok = ok;
              slot->band_generation = job->generation;
              queue_idle (slot, band_done_idle, "[parallax] engine band");
            }
        }
      g_clear_pointer (&r, plx_result_unref);
      g_clear_error (&error);
      job_free (job);
    }
  g_mutex_unlock (&slot->lock);
  slot_release (slot);
  return NULL;
}

gboolean
plx_engine_deliver_within (PlxEngine *self,
                           guint      max_us)
{
  if (!plx_engine_is_busy (self))
    return FALSE;
  return deliver (self, max_us);
}

void
plx_engine_compute (PlxEngine  *self,
                    JsonNode   *scenario,
                    const char *base_dir,
                    const char *source)
{
  Job *job = g_new0 (Job, 1);

  job->json = plx_json_deep_copy (scenario);
  job->base_dir = g_strdup (base_dir ? base_dir : ".");
  job->source = g_strdup (source ? source : "scenario");
  job->layout_width = self->layout_width;
  job->layout_height[0] = self->layout_height[0];
  job->layout_height[1] = self->layout_height[1];
  g_mutex_lock (&self->slot->lock);
  job->generation = self->latest = ++self->slot->latest;
  /* A request the worker has not started yet is replaced. */
  g_clear_pointer (&self->slot->queued, job_free);
  self->slot->queued = job;
  g_cond_signal (&self->slot->work);
  g_mutex_unlock (&self->slot->lock);
}

void
plx_engine_set_timeline_size (PlxEngine *self,
                              int        width,
                              int        height_fits,
                              int        height_not_fits)
{
  self->layout_width = MAX (width, 0);
  self->layout_height[0] = MAX (height_fits, 0);
  self->layout_height[1] = MAX (height_not_fits, 0);
}

gboolean
plx_engine_is_busy (PlxEngine *self)
{
  return self->delivered != self->latest;
}

gboolean
plx_engine_is_sampling (PlxEngine *self)
{
  return self->shown != NULL && self->shown->band_pending && self->delivered == self->latest;
}

static void
plx_engine_dispose (GObject *object)
{
  PlxEngine *self = PLX_ENGINE (object);

  if (self->slot != NULL)
    {
      /* The worker finishes the job it may be running, then ends by itself; no join,
       * so closing a window never waits for a simulation. */
      g_mutex_lock (&self->slot->lock);
      self->slot->quit = TRUE;
      g_cond_signal (&self->slot->work);
      g_mutex_unlock (&self->slot->lock);
      self->slot->engine = NULL;
      slot_release (g_steal_pointer (&self->slot));
    }
  g_clear_pointer (&self->shown, plx_result_unref);
  G_OBJECT_CLASS (plx_engine_parent_class)->dispose (object);
}

static void
keep_freed_memory (void)
{
#ifdef __GLIBC__
  /* Setting the trim threshold also fixes the mmap threshold glibc would otherwise
   * move; set both: blocks up to 32 MiB (glibc's ceiling) come from the heap. */
  mallopt (M_MMAP_THRESHOLD, 32 * 1024 * 1024);
  mallopt (M_TRIM_THRESHOLD, 256 * 1024 * 1024);
#endif
}

static void
plx_engine_class_init (PlxEngineClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  keep_freed_memory ();
  object_class->dispose = plx_engine_dispose;
  signals[COMPUTED] = g_signal_new ("computed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                    G_TYPE_NONE, 1, G_TYPE_POINTER);
  /* The result already emitted by "computed", now with its band (or with none if
   * sampling failed). */
  signals[SAMPLED] = g_signal_new ("sampled", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                   G_TYPE_NONE, 1, G_TYPE_POINTER);
  signals[FAILED] = g_signal_new ("failed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                  G_TYPE_NONE, 1, G_TYPE_STRING);
}

static void
plx_engine_init (PlxEngine *self)
{
  Slot *slot = g_atomic_rc_box_new0 (Slot);

  g_mutex_init (&slot->lock);
  g_cond_init (&slot->work);
  g_cond_init (&slot->done);
  slot->context = g_main_context_ref_thread_default ();
  slot->engine = self;
  self->slot = slot;
  /* The worker holds its own reference to the slot. */
  g_thread_unref (g_thread_new ("plx-engine", worker_main, g_atomic_rc_box_acquire (slot)));
}

PlxEngine *
plx_engine_new (void)
{
  return g_object_new (PLX_TYPE_ENGINE, NULL);
}
