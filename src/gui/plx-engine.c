#include "plx-engine.h"

/* The newest computation's outcome, shared with the worker threads: the main thread
 * takes it either from the GTask callback or, to get it into the frame being drawn,
 * by waiting a few milliseconds for it (plx_engine_deliver_within). Whichever comes
 * first delivers; the other finds it delivered. */
typedef struct
{
  GMutex     lock;
  GCond      cond;
  guint64    latest;      /* generation of the newest compute() */
  guint64    ready;       /* generation whose outcome is below */
  PlxResult *result;      /* one of the two until delivered, then neither */
  char      *error;
} Slot;

struct _PlxEngine
{
  GObject       parent_instance;
  GCancellable *cancellable;   /* of the newest computation */
  guint         pending;
  Slot         *slot;          /* atomic rc box */
};

G_DEFINE_FINAL_TYPE (PlxEngine, plx_engine, G_TYPE_OBJECT)

enum { COMPUTED, FAILED, N_SIGNALS };
static guint signals[N_SIGNALS];

typedef struct
{
  JsonNode *json;
  char     *base_dir;
  char     *source;
  Slot     *slot;
  guint64   generation;
} Job;

static void
slot_clear (Slot *slot)
{
  g_clear_pointer (&slot->result, plx_result_unref);
  g_clear_pointer (&slot->error, g_free);
  g_mutex_clear (&slot->lock);
  g_cond_clear (&slot->cond);
}

static void
job_free (Job *job)
{
  g_atomic_rc_box_release_full (job->slot, (GDestroyNotify) slot_clear);
  json_node_unref (job->json);
  g_free (job->base_dir);
  g_free (job->source);
  g_free (job);
}

static void
result_clear (PlxResult *r)
{
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

PlxResult *
plx_engine_compute_sync (JsonNode   *scenario,
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

static void
compute_thread (GTask        *task,
                gpointer      source_object,
                gpointer      task_data,
                GCancellable *cancellable)
{
  Job *job = task_data;
  GError *error = NULL;
  PlxResult *r;

  if (g_task_return_error_if_cancelled (task))
    return;
  r = plx_engine_compute_sync (job->json, job->base_dir, job->source, &error);
  g_mutex_lock (&job->slot->lock);
  if (job->generation == job->slot->latest)
    {
      g_clear_pointer (&job->slot->result, plx_result_unref);
      g_clear_pointer (&job->slot->error, g_free);
      job->slot->result = r != NULL ? plx_result_ref (r) : NULL;
      job->slot->error = r == NULL ? g_strdup (error->message) : NULL;
      job->slot->ready = job->generation;
      g_cond_broadcast (&job->slot->cond);
    }
  g_mutex_unlock (&job->slot->lock);
  g_clear_pointer (&r, plx_result_unref);
  g_clear_error (&error);
  /* The outcome travels in the slot; the task only says the work is over. */
  g_task_return_boolean (task, TRUE);
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
    if (!g_cond_wait_until (&slot->cond, &slot->lock, end))
      break;
  if (slot->ready == slot->latest)
    {
      r = g_steal_pointer (&slot->result);
      error = g_steal_pointer (&slot->error);
    }
  g_mutex_unlock (&slot->lock);
  if (r != NULL)
    g_signal_emit (self, signals[COMPUTED], 0, r);
  else if (error != NULL)
    g_signal_emit (self, signals[FAILED], 0, error);
  return r != NULL || error != NULL;
}

static void
compute_done (GObject      *object,
              GAsyncResult *res,
              gpointer      user_data)
{
  PlxEngine *self = PLX_ENGINE (object);

  self->pending--;
  /* Cancelled tasks (replaced by a newer computation) end here too: the slot only
   * ever holds the newest's outcome, so there is nothing stale to deliver. */
  g_task_propagate_boolean (G_TASK (res), NULL);
  if (self->slot != NULL)
    deliver (self, 0);
}

gboolean
plx_engine_deliver_within (PlxEngine *self,
                           guint      max_us)
{
  if (self->pending == 0 || self->slot == NULL)
    return FALSE;
  return deliver (self, max_us);
}

void
plx_engine_compute (PlxEngine  *self,
                    JsonNode   *scenario,
                    const char *base_dir,
                    const char *source)
{
  g_autoptr (GTask) task = NULL;
  Job *job = g_new0 (Job, 1);

  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->cancellable = g_cancellable_new ();

  g_mutex_lock (&self->slot->lock);
  job->generation = ++self->slot->latest;
  g_mutex_unlock (&self->slot->lock);
  job->slot = g_atomic_rc_box_acquire (self->slot);
  job->json = plx_json_deep_copy (scenario);
  job->base_dir = g_strdup (base_dir ? base_dir : ".");
  job->source = g_strdup (source ? source : "scenario");
  task = g_task_new (self, self->cancellable, compute_done, NULL);
  g_task_set_source_tag (task, plx_engine_compute);
  g_task_set_task_data (task, job, (GDestroyNotify) job_free);
  g_task_set_return_on_cancel (task, TRUE);
  self->pending++;
  g_task_run_in_thread (task, compute_thread);
}

gboolean
plx_engine_is_busy (PlxEngine *self)
{
  return self->pending > 0;
}

static void
plx_engine_dispose (GObject *object)
{
  PlxEngine *self = PLX_ENGINE (object);

  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  if (self->slot != NULL)
    {
      g_atomic_rc_box_release_full (self->slot, (GDestroyNotify) slot_clear);
      self->slot = NULL;
    }
  G_OBJECT_CLASS (plx_engine_parent_class)->dispose (object);
}

static void
plx_engine_class_init (PlxEngineClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = plx_engine_dispose;
  signals[COMPUTED] = g_signal_new ("computed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                    G_TYPE_NONE, 1, G_TYPE_POINTER);
  signals[FAILED] = g_signal_new ("failed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                  G_TYPE_NONE, 1, G_TYPE_STRING);
}

static void
plx_engine_init (PlxEngine *self)
{
  self->slot = g_atomic_rc_box_new0 (Slot);
  g_mutex_init (&self->slot->lock);
  g_cond_init (&self->slot->cond);
}

PlxEngine *
plx_engine_new (void)
{
  return g_object_new (PLX_TYPE_ENGINE, NULL);
}
