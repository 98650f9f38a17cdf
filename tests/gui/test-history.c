/* Undo and redo of scenario edits: steps, merging of a drag, redo dropped by a new
 * edit, the cap. No display needed. */
#include "plx-history.h"

#define MS G_TIME_SPAN_MILLISECOND

static void
test_undo_redo (void)
{
  g_autoptr (PlxHistory) h = plx_history_new ();

  plx_history_reset (h, "A");
  g_assert_false (plx_history_can_undo (h));
  g_assert_true (plx_history_record (h, "B", "tp", 0));
  g_assert_true (plx_history_record (h, "C", "pp", 10 * MS));
  /* The same state again is no step. */
  g_assert_false (plx_history_record (h, "C", "pp", 20 * MS));
  g_assert_cmpstr (plx_history_undo (h), ==, "B");
  g_assert_cmpstr (plx_history_undo (h), ==, "A");
  g_assert_null (plx_history_undo (h));
  g_assert_cmpstr (plx_history_redo (h), ==, "B");
  g_assert_cmpstr (plx_history_redo (h), ==, "C");
  g_assert_null (plx_history_redo (h));
}

static void
test_drag_is_one_step (void)
{
  g_autoptr (PlxHistory) h = plx_history_new ();

  plx_history_reset (h, "tp8");
  /* A drag: four values 100 ms apart, under the 400 ms merge window. */
  plx_history_record (h, "tp6", "tp", 0);
  plx_history_record (h, "tp4", "tp", 100 * MS);
  plx_history_record (h, "tp2", "tp", 200 * MS);
  plx_history_record (h, "tp1", "tp", 300 * MS);
  g_assert_cmpstr (plx_history_undo (h), ==, "tp8");
  g_assert_false (plx_history_can_undo (h));
  g_assert_cmpstr (plx_history_redo (h), ==, "tp1");
  /* A pause longer than the window starts a new step; another key always does. */
  plx_history_record (h, "tp2", "tp", 300 * MS + PLX_HISTORY_MERGE_US);
  plx_history_record (h, "tp2 pp4", "pp", 300 * MS + PLX_HISTORY_MERGE_US + 1);
  g_assert_cmpstr (plx_history_undo (h), ==, "tp2");
  g_assert_cmpstr (plx_history_undo (h), ==, "tp1");
}

static void
test_edit_after_undo_drops_redo (void)
{
  g_autoptr (PlxHistory) h = plx_history_new ();

  plx_history_reset (h, "A");
  plx_history_record (h, "B", NULL, 0);
  plx_history_undo (h);
  plx_history_record (h, "C", NULL, 1);
  g_assert_false (plx_history_can_redo (h));
  g_assert_cmpstr (plx_history_undo (h), ==, "A");
}

static void
test_cap (void)
{
  g_autoptr (PlxHistory) h = plx_history_new ();
  guint undos = 0;

  plx_history_reset (h, "s0");
  for (guint i = 1; i <= PLX_HISTORY_MAX + 50; i++)
    {
      g_autofree char *s = g_strdup_printf ("s%u", i);
      plx_history_record (h, s, NULL, i);
    }
  while (plx_history_undo (h) != NULL)
    undos++;
  /* PLX_HISTORY_MAX states kept: one fewer undo. The oldest reachable is s51. */
  g_assert_cmpuint (undos, ==, PLX_HISTORY_MAX - 1);
}

/* Opening a file is a step with a document of its own: undo gives back the text and
 * the document before it; edits after it belong to it; a rename on saving amends the
 * step shown without adding one. Documents are counted references. */
static gpointer
doc_ref (gpointer d)
{
  ((int *) d)[0]++;
  return d;
}

static void
doc_unref (gpointer d)
{
  ((int *) d)[0]--;
}

static void
test_documents (void)
{
  int untitled = 0, file = 0;
  PlxHistory *h = plx_history_new_full (doc_ref, doc_unref);

  g_assert_true (plx_history_record_document (h, "A", &untitled));
  plx_history_record (h, "A2", "tp", 0);
  g_assert_true (plx_history_get_document (h) == &untitled);
  /* The same text in another document is still a step. */
  g_assert_true (plx_history_record_document (h, "A2", &file));
  plx_history_record (h, "B", "tp", 1);
  g_assert_true (plx_history_get_document (h) == &file);
  plx_history_amend (h, "B named");
  g_assert_cmpstr (plx_history_undo (h), ==, "A2");
  g_assert_true (plx_history_get_document (h) == &file);
  g_assert_cmpstr (plx_history_undo (h), ==, "A2");
  g_assert_true (plx_history_get_document (h) == &untitled);
  g_assert_cmpstr (plx_history_redo (h), ==, "A2");
  g_assert_cmpstr (plx_history_redo (h), ==, "B named");
  /* Four states: A and A2 of the untitled document, A2 and B of the file. */
  g_assert_cmpint (untitled, ==, 2);
  g_assert_cmpint (file, ==, 2);
  plx_history_free (h);
  g_assert_cmpint (untitled, ==, 0);
  g_assert_cmpint (file, ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/gui/history/undo-redo", test_undo_redo);
  g_test_add_func ("/gui/history/drag-is-one-step", test_drag_is_one_step);
  g_test_add_func ("/gui/history/edit-after-undo-drops-redo", test_edit_after_undo_drops_redo);
  g_test_add_func ("/gui/history/cap", test_cap);
  g_test_add_func ("/gui/history/documents", test_documents);
  return g_test_run ();
}
