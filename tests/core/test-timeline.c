/* The timeline's compact storage (plx-timeline.c): events kept whole come back as
 * given; a pass of the event engine comes back as run_pass laid it out (task by task
 * from the pass's start, then its send), and random access agrees with the iterator
 * event for event. */
#include <string.h>

#include "parallax/parallax.h"

#include "test-util.h"

/* GPT-2 on 4 stages, 8 micro-batches per data-parallel rank: every stage sends. */
#define SMALL_PIPELINE \
  "{ \"model\": { \"preset\": \"gpt2\" }, \"cluster\": { \"preset\": \"dgx-a100-80gb\", \"num_nodes\": 1 }," \
  "  \"strategy\": { \"seq_length\": 1024, \"global_batch_size\": 16, \"pp\": 4, \"dp\": 2 } }"

static gboolean
same_event (const PlxTimelineEvent *a, const PlxTimelineEvent *b)
{
  /* Field by field: the struct's padding is not part of the event. */
  return a->rank == b->rank && a->stream == b->stream && a->kind == b->kind && a->chunk == b->chunk &&
         a->micro_batch == b->micro_batch && g_strcmp0 (a->label, b->label) == 0 &&
         memcmp (&a->start_s, &b->start_s, sizeof (double)) == 0 &&
         memcmp (&a->end_s, &b->end_s, sizeof (double)) == 0 && memcmp (&a->flops, &b->flops, sizeof (double)) == 0 &&
         memcmp (&a->bytes, &b->bytes, sizeof (double)) == 0;
}

/* Every event read in order equals the one read by its index; returns how many. */
static guint64
check_random_access (const PlxTimeline *tl)
{
  PlxTimelineIter iter;
  PlxTimelineEvent ev, at;
  guint64 n = 0;

  plx_timeline_iter_init (&iter, tl);
  while (plx_timeline_iter_next (&iter, &ev))
    {
      g_assert_true (plx_timeline_get_event (tl, n, &at));
      g_assert_true (same_event (&ev, &at));
      n++;
      g_assert_cmpuint (iter.index, ==, n);
    }
  g_assert_cmpuint (n, ==, plx_timeline_n_events (tl));
  g_assert_false (plx_timeline_get_event (tl, n, &at));
  return n;
}

static void
test_whole_events (void)
{
  g_autoptr (PlxTimeline) tl = plx_timeline_new (2, 5.0);
  PlxTimelineEvent in[3] = { { 0 } }, out;
  PlxTimelineIter iter;
  guint i = 0;

  for (guint k = 0; k < 3; k++)
    {
      in[k].rank = k % 2;
      in[k].stream = PLX_STREAM_DP;
      in[k].kind = PLX_KIND_DP_COMM;
      in[k].micro_batch = PLX_NO_MICRO_BATCH;
      in[k].label = "bucket";
      in[k].start_s = k;
      in[k].end_s = k + 0.5;
      in[k].bytes = 1e6 * (k + 1);
      plx_timeline_append (tl, &in[k]);
    }
  g_assert_cmpuint (plx_timeline_n_events (tl), ==, 3);
  plx_timeline_iter_init (&iter, tl);
  while (plx_timeline_iter_next (&iter, &out))
    g_assert_true (same_event (&out, &in[i++]));
  g_assert_cmpuint (i, ==, 3);
  g_assert_true (plx_timeline_get_event (tl, 1, &out));
  g_assert_true (same_event (&out, &in[1]));
  g_assert_false (plx_timeline_get_event (tl, 3, &out));
  g_assert_cmpuint (tl->dropped, ==, 0);
  g_assert_cmpfloat (tl->recorded_until_s, ==, 5.0);
  /* Three whole events of 56 bytes at least. */
  g_assert_cmpuint (plx_timeline_get_size (tl), >=, 3 * sizeof (PlxTimelineEvent));
}

/* 1F1B on 4 stages: stage 0's first entry is micro-batch 0's forward, at time 0 (its
 * input is there, the stage is free). So the timeline begins with that pass's tasks,
 * each starting where the one before ended (t = 0; t += d, as run_pass sums), and
 * its send of activations from 0 + the pass's duration for send_s. */
static void
test_pass_layout (void)
{
  g_autoptr (PlxScenario) sc = test_scenario_from_string (SMALL_PIPELINE);
  g_autoptr (PlxPlan) plan = NULL;
  g_autoptr (PlxTimeline) tl = NULL;
  g_autoptr (GError) error = NULL;
  const PlxPlanPass *f;
  PlxTimelineEvent ev;
  PlxReport r;
  double t = 0.0;
  guint i;

  g_assert_true (plx_sim_run_scenario (sc->model, sc->cluster, sc->strategy, &r, &plan, &tl, NULL, &error));
  g_assert_no_error (error);
  f = &plan->chunks[0].pass[PLX_PASS_FORWARD];
  g_assert_cmpuint (f->n_tasks, >, 1);
  g_assert_cmpfloat (plan->send_s, >, 0.0);
  for (i = 0; i < f->n_tasks; i++)
    {
      g_assert_true (plx_timeline_get_event (tl, i, &ev));
      g_assert_cmpuint (ev.rank, ==, 0);
      g_assert_cmpuint (ev.micro_batch, ==, 0);
      g_assert_cmpuint (ev.kind, ==, f->tasks[i].kind);
      g_assert_cmpuint (ev.stream, ==, f->tasks[i].stream);
      g_assert_cmpstr (ev.label, ==, f->tasks[i].label);
      g_assert_cmpfloat (ev.flops, ==, f->tasks[i].flops);
      g_assert_cmpfloat (ev.start_s, ==, t);
      g_assert_cmpfloat (ev.end_s, ==, t + f->tasks[i].duration_s);
      t += f->tasks[i].duration_s;
    }
  g_assert_true (plx_timeline_get_event (tl, i, &ev));
  g_assert_cmpuint (ev.kind, ==, PLX_KIND_PP_SEND);
  g_assert_cmpstr (ev.label, ==, "send activations");
  g_assert_cmpfloat (ev.start_s, ==, 0.0 + f->duration_s);
  g_assert_cmpfloat (ev.end_s, ==, f->duration_s + plan->send_s);
  g_assert_cmpfloat (ev.bytes, ==, plan->send_bytes);
  check_random_access (tl);
}

/* Interleaved chunks, split weight gradients (W passes, no send after them), ZeRO-1's
 * gather after the optimizer: the pass records and the whole events after them read
 * the same in order and by index. */
static void
test_random_access (void)
{
  static const char *const scenarios[] = {
    "{ \"model\": { \"preset\": \"gpt2\" }, \"cluster\": { \"preset\": \"dgx-a100-80gb\", \"num_nodes\": 2 },"
    "  \"strategy\": { \"seq_length\": 1024, \"global_batch_size\": 32, \"pp\": 4, \"dp\": 4,"
    "                \"virtual_stages\": 3, \"schedule\": \"interleaved-1f1b\" } }",
    "{ \"model\": { \"preset\": \"gpt2\" }, \"cluster\": { \"preset\": \"dgx-a100-80gb\", \"num_nodes\": 1 },"
    "  \"strategy\": { \"seq_length\": 1024, \"global_batch_size\": 16, \"pp\": 4, \"dp\": 2,"
    "                \"schedule\": \"zero-bubble-h1\", \"zero_stage\": 1 } }",
  };

  for (guint i = 0; i < G_N_ELEMENTS (scenarios); i++)
    {
      g_autoptr (PlxScenario) sc = test_scenario_from_string (scenarios[i]);
      g_autoptr (PlxTimeline) tl = NULL;
      g_autoptr (GError) error = NULL;
      PlxReport r;

      g_assert_true (plx_sim_run_scenario (sc->model, sc->cluster, sc->strategy, &r, NULL, &tl, NULL, &error));
      g_assert_no_error (error);
      g_assert_cmpuint (check_random_access (tl), >, 100);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/timeline/whole-events", test_whole_events);
  g_test_add_func ("/timeline/pass-layout", test_pass_layout);
  g_test_add_func ("/timeline/random-access", test_random_access);
  return g_test_run ();
}
