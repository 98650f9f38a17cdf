/* gui-input.h: drives the window as a person does. Pointer and key events are made
 * by the X server (XTest), so they travel the same path as a real mouse and keyboard:
 * GTK's event controllers, popovers, grabs and focus all take part. Widgets are found
 * by what a person sees (a label's text, a row's title) and clicked at their centre.
 *
 * Every wait has a deadline, and a watchdog aborts the test with a message if the
 * main loop stops returning (a handler that never ends: the hang this exists for). */
#pragma once

#include <X11/XKBlib.h>
#include <X11/Xlib.h>
#include <X11/extensions/XTest.h>
#include <X11/keysym.h>
#include <adwaita.h>
#include <gdk/x11/gdkx.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- watchdog ------------------------------------------------------------------- */

static volatile gint64 gi_heartbeat_us;
static const char *volatile gi_doing = "starting";

G_GNUC_UNUSED static gpointer
gi_watchdog (gpointer data)
{
  for (;;)
    {
      g_usleep (G_USEC_PER_SEC);
      if (g_get_monotonic_time () - gi_heartbeat_us > 20 * G_USEC_PER_SEC)
        {
          fprintf (stderr, "gui-input: the main loop has not returned for 20 s while %s: the window hangs\n",
                   gi_doing);
          abort ();
        }
    }
  return NULL;
}

G_GNUC_UNUSED static void
gi_beat (void)
{
  static gsize started;

  gi_heartbeat_us = g_get_monotonic_time ();
  if (g_once_init_enter (&started))
    {
      g_thread_unref (g_thread_new ("watchdog", gi_watchdog, NULL));
      g_once_init_leave (&started, 1);
    }
}

/* Runs the main loop for `ms`, returning at least every 10 ms to feed the watchdog. */
G_GNUC_UNUSED static void
gi_pump (guint ms)
{
  gint64 end = g_get_monotonic_time () + (gint64) ms * 1000;

  gi_beat ();
  while (g_get_monotonic_time () < end)
    {
      while (g_main_context_pending (NULL))
        {
          g_main_context_iteration (NULL, FALSE);
          gi_beat ();
        }
      g_usleep (2000);
      gi_beat ();
    }
}

/* Spins until `done (data)` or `ms`; returns whether it became true. */
G_GNUC_UNUSED static gboolean
gi_wait (gboolean (*done) (gpointer), gpointer data, guint ms)
{
  gint64 end = g_get_monotonic_time () + (gint64) ms * 1000;

  gi_beat ();
  while (!done (data) && g_get_monotonic_time () < end)
    gi_pump (10);
  return done (data);
}

/* ---- the X connection ----------------------------------------------------------- */

G_GNUC_UNUSED static Display *
gi_display (void)
{
  GdkDisplay *d = gdk_display_get_default ();

  g_assert_true (GDK_IS_X11_DISPLAY (d));
  return gdk_x11_display_get_xdisplay (d);
}

/* Lets the server act on what was sent, then GTK on what comes back. */
G_GNUC_UNUSED static void
gi_flush (guint ms)
{
  XSync (gi_display (), False);
  gi_pump (ms);
}

/* ---- finding widgets by what a person sees ------------------------------------ */

G_GNUC_UNUSED static gboolean
gi_is_shown (GtkWidget *w)
{
  return gtk_widget_get_mapped (w) && gtk_widget_get_width (w) > 0 && gtk_widget_get_height (w) > 0;
}

/* The first mapped descendant (depth first, `root` included) that `match` accepts. */
G_GNUC_UNUSED static GtkWidget *
gi_find (GtkWidget *root, gboolean (*match) (GtkWidget *, gconstpointer), gconstpointer data)
{
  if (root == NULL)
    return NULL;
  if (gi_is_shown (root) && match (root, data))
    return root;
  for (GtkWidget *c = gtk_widget_get_first_child (root); c != NULL; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = gi_find (c, match, data);
      if (found != NULL)
        return found;
    }
  return NULL;
}

G_GNUC_UNUSED static gboolean
gi_match_label (GtkWidget *w, gconstpointer text)
{
  return GTK_IS_LABEL (w) && g_strcmp0 (gtk_label_get_text (GTK_LABEL (w)), text) == 0;
}

G_GNUC_UNUSED static gboolean
gi_match_label_prefix (GtkWidget *w, gconstpointer text)
{
  return GTK_IS_LABEL (w) && g_str_has_prefix (gtk_label_get_text (GTK_LABEL (w)), text);
}

G_GNUC_UNUSED static gboolean
gi_match_type (GtkWidget *w, gconstpointer type)
{
  return G_TYPE_CHECK_INSTANCE_TYPE (w, *(const GType *) type);
}

G_GNUC_UNUSED static gboolean
gi_match_row_title (GtkWidget *w, gconstpointer title)
{
  return ADW_IS_PREFERENCES_ROW (w) && g_strcmp0 (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (w)), title) == 0;
}

G_GNUC_UNUSED static gboolean
gi_match_tooltip (GtkWidget *w, gconstpointer text)
{
  return g_strcmp0 (gtk_widget_get_tooltip_text (w), text) == 0;
}

G_GNUC_UNUSED static GtkWidget *
gi_find_label (GtkWidget *root, const char *text)
{
  return gi_find (root, gi_match_label, text);
}

G_GNUC_UNUSED static GtkWidget *
gi_find_type (GtkWidget *root, GType type)
{
  return gi_find (root, gi_match_type, &type);
}

/* A preferences row (combo, action, spin row) by its title. */
G_GNUC_UNUSED static GtkWidget *
gi_find_row (GtkWidget *root, const char *title)
{
  return gi_find (root, gi_match_row_title, title);
}

/* A button by its tooltip, as a person finds an icon button. */
G_GNUC_UNUSED static GtkWidget *
gi_find_tooltip (GtkWidget *root, const char *text)
{
  return gi_find (root, gi_match_tooltip, text);
}

/* The topmost popover that is open now, if any. */
G_GNUC_UNUSED static GtkWidget *
gi_open_popover (void)
{
  GListModel *tops = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (tops); i++)
    {
      g_autoptr (GtkWidget) top = g_list_model_get_item (tops, i);
      GType type = GTK_TYPE_POPOVER;
      GtkWidget *p = gi_find (top, gi_match_type, &type);
      if (p != NULL)
        return p;
    }
  return NULL;
}

/* ---- coordinates ---------------------------------------------------------------- */

/* The root-window position of (x, y) in `w`'s coordinates. */
G_GNUC_UNUSED static void
gi_to_root (GtkWidget *w, double x, double y, int *rx, int *ry)
{
  GtkNative *native = gtk_widget_get_native (w);
  graphene_point_t in = GRAPHENE_POINT_INIT ((float) x, (float) y), out;
  double sx, sy;
  Window child;
  Display *dpy = gi_display ();

  g_assert_nonnull (native);
  g_assert_true (gtk_widget_compute_point (w, GTK_WIDGET (native), &in, &out));
  gtk_native_get_surface_transform (native, &sx, &sy);
  XTranslateCoordinates (dpy, gdk_x11_surface_get_xid (gtk_native_get_surface (native)),
                         DefaultRootWindow (dpy), (int) (out.x + sx), (int) (out.y + sy), rx, ry, &child);
}

G_GNUC_UNUSED static void gi_reveal (GtkWidget *w);
G_GNUC_UNUSED static void gi_scroll (GtkWidget *w, double x, double y, gboolean up, guint clicks);

/* ---- pointer -------------------------------------------------------------------- */

G_GNUC_UNUSED static void
gi_move_to (GtkWidget *w, double x, double y)
{
  int rx, ry;

  gi_to_root (w, x, y, &rx, &ry);
  XTestFakeMotionEvent (gi_display (), -1, rx, ry, CurrentTime);
  gi_flush (15);
}

G_GNUC_UNUSED static void
gi_button (guint button, gboolean down)
{
  XTestFakeButtonEvent (gi_display (), button, down, CurrentTime);
  gi_flush (15);
}

/* A click at (x, y) of `w`: move there, press, release. Press and release go to the
 * server together, as a quick click does: pumped apart, a loaded machine (ASan, CI)
 * could hold the release back past a spin button's auto-repeat delay and count the
 * click twice (the fresh CI of 9eb5656: "+" took PP from 1 to 3). */
G_GNUC_UNUSED static void
gi_click_at (GtkWidget *w, double x, double y)
{
  g_assert_true (gi_is_shown (w));
  gi_reveal (w);
  gi_move_to (w, x, y);
  XTestFakeButtonEvent (gi_display (), 1, True, CurrentTime);
  XTestFakeButtonEvent (gi_display (), 1, False, CurrentTime);
  gi_flush (60);
}

G_GNUC_UNUSED static void
gi_click (GtkWidget *w)
{
  g_assert_nonnull (w);
  gi_click_at (w, gtk_widget_get_width (w) / 2.0, gtk_widget_get_height (w) / 2.0);
}

G_GNUC_UNUSED static void
gi_double_click (GtkWidget *w)
{
  gi_move_to (w, gtk_widget_get_width (w) / 2.0, gtk_widget_get_height (w) / 2.0);
  gi_button (1, TRUE);
  gi_button (1, FALSE);
  gi_button (1, TRUE);
  gi_button (1, FALSE);
  gi_flush (60);
}

/* Presses at (x0, y0) of `w`, moves in `steps` equal steps to (x1, y1), calling
 * `each (step, data)` after every step (so a test sees the positions in between),
 * and releases. */
G_GNUC_UNUSED static void
gi_drag (GtkWidget *w, double x0, double y0, double x1, double y1, guint steps,
         void (*each) (guint, gpointer), gpointer data)
{
  gi_reveal (w);
  gi_move_to (w, x0, y0);
  gi_button (1, TRUE);
  for (guint i = 1; i <= steps; i++)
    {
      gi_move_to (w, x0 + (x1 - x0) * i / steps, y0 + (y1 - y0) * i / steps);
      gi_pump (20);
      if (each != NULL)
        each (i, data);
    }
  gi_button (1, FALSE);
  gi_flush (60);
}

G_GNUC_UNUSED static void
gi_scroll (GtkWidget *w, double x, double y, gboolean up, guint clicks)
{
  gi_move_to (w, x, y);
  for (guint i = 0; i < clicks; i++)
    {
      gi_button (up ? 4 : 5, TRUE);
      gi_button (up ? 4 : 5, FALSE);
    }
  gi_flush (60);
}

/* Scrolls the nearest scrolled window with the mouse wheel until `w` is inside its
 * visible area, as a person does before clicking something below the fold. */
G_GNUC_UNUSED static void
gi_reveal (GtkWidget *w)
{
  GtkWidget *sw = gtk_widget_get_ancestor (w, GTK_TYPE_SCROLLED_WINDOW);

  if (sw == NULL)
    return;
  for (guint i = 0; i < 200; i++)
    {
      graphene_rect_t b;
      double h = gtk_widget_get_height (sw);
      g_assert_true (gtk_widget_compute_bounds (w, sw, &b));
      if (b.origin.y >= 0 && b.origin.y + b.size.height <= h)
        return;
      gi_scroll (sw, gtk_widget_get_width (sw) / 2.0, h / 2.0, b.origin.y < 0, 1);
      gi_pump (20);
    }
  g_error ("gui-input: could not scroll %s into view", G_OBJECT_TYPE_NAME (w));
}

/* ---- keyboard ------------------------------------------------------------------- */

/* Gives `window` the keyboard, as clicking its title bar would under a window manager. */
G_GNUC_UNUSED static void
gi_focus_window (GtkWindow *window)
{
  GdkSurface *s = gtk_native_get_surface (GTK_NATIVE (window));

  XSetInputFocus (gi_display (), gdk_x11_surface_get_xid (s), RevertToParent, CurrentTime);
  gi_flush (60);
}

G_GNUC_UNUSED static void
gi_keysym (KeySym sym, gboolean down)
{
  KeyCode code = XKeysymToKeycode (gi_display (), sym);

  g_assert_cmpuint (code, !=, 0);
  XTestFakeKeyEvent (gi_display (), code, down, CurrentTime);
}

/* Presses and releases `sym` with the modifiers held ("ctrl", "shift", "alt" in
 * `mods`, any order, e.g. "ctrl+shift"; NULL for none). */
G_GNUC_UNUSED static void
gi_key (const char *mods, KeySym sym)
{
  gboolean ctrl = mods && strstr (mods, "ctrl"), shift = mods && strstr (mods, "shift"),
           alt = mods && strstr (mods, "alt");

  if (ctrl)
    gi_keysym (XK_Control_L, TRUE);
  if (shift)
    gi_keysym (XK_Shift_L, TRUE);
  if (alt)
    gi_keysym (XK_Alt_L, TRUE);
  gi_keysym (sym, TRUE);
  gi_keysym (sym, FALSE);
  if (alt)
    gi_keysym (XK_Alt_L, FALSE);
  if (shift)
    gi_keysym (XK_Shift_L, FALSE);
  if (ctrl)
    gi_keysym (XK_Control_L, FALSE);
  gi_flush (60);
}

/* Types ASCII text key by key, with Shift where the character needs it. */
G_GNUC_UNUSED static void
gi_type (const char *text)
{
  static const struct { char c; const char *name; } named[] = {
    { '/', "slash" }, { '.', "period" }, { '-', "minus" }, { '_', "underscore" }, { ' ', "space" },
    { ':', "colon" }, { ',', "comma" }, { '+', "plus" }, { '=', "equal" }, { '[', "bracketleft" },
    { ']', "bracketright" }, { '|', "bar" }, { '*', "asterisk" }, { '(', "parenleft" }, { ')', "parenright" },
  };
  Display *dpy = gi_display ();

  for (const char *p = text; *p; p++)
    {
      char name[2] = { *p, 0 };
      KeySym sym = NoSymbol;
      KeyCode code;
      gboolean shift;

      for (guint i = 0; i < G_N_ELEMENTS (named); i++)
        if (named[i].c == *p)
          sym = XStringToKeysym (named[i].name);
      if (sym == NoSymbol)
        sym = XStringToKeysym (name);
      g_assert_true (sym != NoSymbol);
      code = XKeysymToKeycode (dpy, sym);
      g_assert_cmpuint (code, !=, 0);
      /* The symbol on the key's second level needs Shift (upper case, '_', ':'). */
      shift = XkbKeycodeToKeysym (dpy, code, 0, 0) != sym && XkbKeycodeToKeysym (dpy, code, 0, 1) == sym;
      if (shift)
        gi_keysym (XK_Shift_L, TRUE);
      XTestFakeKeyEvent (dpy, code, True, CurrentTime);
      XTestFakeKeyEvent (dpy, code, False, CurrentTime);
      if (shift)
        gi_keysym (XK_Shift_L, FALSE);
      gi_flush (5);
    }
  gi_flush (60);
}

/* ---- composite gestures ---------------------------------------------------------- */

G_GNUC_UNUSED static gboolean
gi_popover_is_open (gpointer data)
{
  return gi_open_popover () != NULL;
}

G_GNUC_UNUSED static gboolean
gi_popover_is_closed (gpointer data)
{
  return gi_open_popover () == NULL;
}

/* Waits (up to 2 s) until `w`'s centre has been at the same place on screen for three
 * looks 30 ms apart. */
G_GNUC_UNUSED static void
gi_wait_still (GtkWidget *w)
{
  int x = -1, y = -1, same = 0;
  gint64 end = g_get_monotonic_time () + 2 * G_USEC_PER_SEC;

  while (same < 3 && g_get_monotonic_time () < end)
    {
      int nx, ny;

      XSync (gi_display (), False);
      gi_to_root (w, gtk_widget_get_width (w) / 2.0, gtk_widget_get_height (w) / 2.0, &nx, &ny);
      same = nx == x && ny == y ? same + 1 : 0;
      x = nx;
      y = ny;
      gi_pump (30);
    }
}

/* In the dropdown list that is open, clicks the item whose text starts with `item`;
 * asserts the list closes again. */
G_GNUC_UNUSED static void
gi_choose_in_open_list (const char *item)
{
  GtkWidget *popover, *label;

  gi_pump (150);
  popover = gi_open_popover ();
  g_assert_nonnull (popover);
  label = gi_find (popover, gi_match_label_prefix, item);
  g_assert_nonnull (label);
  gi_doing = "choosing a dropdown item";
  /* A popover may still be placed (flipped above its row, resized to its list) on a
   * loaded machine: click only once the item has stayed put on screen. */
  /* The whole row in view, as a person scrolls the list before choosing: a row only
   * partly shown is scrolled into view by the press itself, and the release then
   * lands on the next one (a popover cut short by the screen's edge). */
  {
    GtkWidget *item_row = label;
    while (gtk_widget_get_parent (item_row) != NULL && !GTK_IS_LIST_VIEW (gtk_widget_get_parent (item_row)))
      item_row = gtk_widget_get_parent (item_row);
    if (gtk_widget_get_parent (item_row) != NULL)
      gi_reveal (item_row);
  }
  gi_wait_still (label);
  /* Press only where the item still is once the pointer got there. */
  for (guint attempt = 0; attempt < 20; attempt++)
    {
      int x0, y0, x1, y1;

      gi_reveal (label);
      gi_to_root (label, gtk_widget_get_width (label) / 2.0, gtk_widget_get_height (label) / 2.0, &x0, &y0);
      XTestFakeMotionEvent (gi_display (), -1, x0, y0, CurrentTime);
      gi_flush (40);
      gi_to_root (label, gtk_widget_get_width (label) / 2.0, gtk_widget_get_height (label) / 2.0, &x1, &y1);
      if (x0 == x1 && y0 == y1)
        break;
    }
  gi_button (1, TRUE);
  gi_button (1, FALSE);
  gi_flush (60);
  g_assert_true (gi_wait (gi_popover_is_closed, NULL, 3000));
  gi_doing = "after a dropdown choice";
}

/* Opens a dropdown's list by clicking it (a GtkDropDown, or a combo row) and clicks the
 * item whose text starts with `item`; asserts the list closes again. */
G_GNUC_UNUSED static void
gi_choose_in_dropdown (GtkWidget *row, const char *item)
{
  gboolean open = FALSE;

  g_assert_nonnull (row);
  gi_doing = "opening a dropdown";
  /* GTK 4.8 under Xvfb may swallow the first click after a list closed: clicked
   * again (at most three times) until the list is open, as a person would. */
  for (guint attempt = 0; attempt < 3 && !open; attempt++)
    {
      gi_click (row);
      open = gi_wait (gi_popover_is_open, NULL, 2000);
    }
  g_assert_true (open);
  gi_choose_in_open_list (item);
}

/* The same for the dropdown of a combo row titled `row_title` under `root`. */
G_GNUC_UNUSED static void
gi_choose_in_combo (GtkWidget *root, const char *row_title, const char *item)
{
  gi_choose_in_dropdown (gi_find_row (root, row_title), item);
}
