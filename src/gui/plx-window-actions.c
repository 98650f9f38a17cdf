/* Every action of the window and its keyboard shortcut, in one table
 * (plx-window-private.h). The header bar, the menus of ui/plx-window.ui and the
 * shortcuts window (ui/help-overlay.ui) name these actions; what each one does lives
 * with its part of the window. */
#include "plx-window-private.h"

static void
open_action (GtkWidget *widget, const char *action, GVariant *param)
{
  plx_window_choose_file_to_open (PLX_WINDOW (widget));
}

static void
save_action (GtkWidget *widget, const char *action, GVariant *param)
{
  plx_window_save (PLX_WINDOW (widget));
}

static void
save_as_action (GtkWidget *widget, const char *action, GVariant *param)
{
  plx_window_save_as (PLX_WINDOW (widget), THEN_NOTHING);
}

/* New: the built-in default scenario, as a step that undo can take back; asks first
 * when the scenario has unsaved changes. */
static void
new_action (GtkWidget *widget, const char *action, GVariant *param)
{
  plx_window_ask_then_replace (PLX_WINDOW (widget), NULL);
}

static void
open_recent_action (GtkWidget *widget, const char *action, GVariant *param)
{
  PlxWindow *self = PLX_WINDOW (widget);
  g_autoptr (GFile) file = g_file_new_for_path (g_variant_get_string (param, NULL));

  plx_window_ask_then_replace (self, file);
}

/* Ctrl+E (the target "") exports what is on screen. */
static void
export_action (GtkWidget *widget, const char *action, GVariant *param)
{
  plx_window_choose_export (PLX_WINDOW (widget), param ? g_variant_get_string (param, NULL) : NULL);
}

static void
export_compare_action (GtkWidget *widget, const char *action, GVariant *param)
{
  gtk_widget_activate_action (widget, "win.export", "s", "compare");
}

static void
export_scatter_action (GtkWidget *widget, const char *action, GVariant *param)
{
  gtk_widget_activate_action (widget, "win.export", "s", "scatter");
}

static void
dismiss_file_error_action (GtkWidget *widget, const char *action, GVariant *param)
{
  PlxWindow *self = PLX_WINDOW (widget);

  gtk_revealer_set_reveal_child (self->file_revealer, FALSE);
}

static void
undo_action (GtkWidget *widget, const char *action, GVariant *param)
{
  plx_window_undo (PLX_WINDOW (widget));
}

static void
redo_action (GtkWidget *widget, const char *action, GVariant *param)
{
  plx_window_redo (PLX_WINDOW (widget));
}

static void
pin_action (GtkWidget *widget, const char *action, GVariant *param)
{
  plx_window_pin (PLX_WINDOW (widget));
}

static void
compare_action (GtkWidget *widget, const char *action, GVariant *param)
{
  PlxWindow *self = PLX_WINDOW (widget);

  if (self->pinned == NULL)
    plx_window_pin (self);
  adw_view_stack_set_visible_child_name (self->stack, "compare");
}

static void
swap_action (GtkWidget *widget, const char *action, GVariant *param)
{
  plx_window_swap (PLX_WINDOW (widget));
}

static void
undo_choice_action (GtkWidget *widget, const char *action, GVariant *param)
{
  plx_window_undo_choice (PLX_WINDOW (widget));
}

static void
search_action (GtkWidget *widget, const char *action, GVariant *param)
{
  PlxWindow *self = PLX_WINDOW (widget);

  adw_view_stack_set_visible_child_name (self->stack, "search");
}

/* An action, its parameter type, and its shortcut: `key` + `mods` (and `key_also`,
 * the same with Shift's capital) as the window's own binding, which works in any
 * window, with or without the application; `menu_accel` as the accelerator the
 * application sets, which the menus show beside the item. A NULL `activate` is an
 * action GTK provides (the shortcuts window). The bindings are added in the table's
 * order. */
typedef struct
{
  const char                 *name;
  const char                 *param_type;
  GtkWidgetActionActivateFunc activate;
  guint                       key, key_also;
  GdkModifierType             mods;
  const char                 *target;      /* the binding's "s" parameter, or NULL */
  const char                 *menu_accel;
} WindowAction;

#define CTRL       GDK_CONTROL_MASK
#define CTRL_SHIFT (GDK_CONTROL_MASK | GDK_SHIFT_MASK)

static const WindowAction actions[] = {
  /* name                     param activate                   key        key_also   mods        target menu accel */
  { "win.undo",               NULL, undo_action,               GDK_KEY_z, 0,         CTRL,       NULL, NULL },
  { "win.redo",               NULL, redo_action,               GDK_KEY_z, GDK_KEY_Z, CTRL_SHIFT, NULL, NULL },
  { "win.new",                NULL, new_action,                GDK_KEY_n, 0,         CTRL,       NULL, NULL },
  { "win.open",               NULL, open_action,               GDK_KEY_o, 0,         CTRL,       NULL, "<Control>o" },
  { "win.save",               NULL, save_action,               GDK_KEY_s, 0,         CTRL,       NULL, "<Control>s" },
  { "win.pin",                NULL, pin_action,                GDK_KEY_p, 0,         CTRL,       NULL, "<Control>p" },
  { "win.search",             NULL, search_action,             GDK_KEY_f, 0,         CTRL,       NULL, "<Control>f" },
  { "win.export",             "s",  export_action,             GDK_KEY_e, 0,         CTRL,       "",   "<Control>e" },
  { "win.save-as",            NULL, save_as_action,            0,         0,         0,          NULL, NULL },
  { "win.compare",            NULL, compare_action,            0,         0,         0,          NULL, NULL },
  { "win.open-recent",        "s",  open_recent_action,        0,         0,         0,          NULL, NULL },
  { "win.swap",               NULL, swap_action,               0,         0,         0,          NULL, NULL },
  { "win.undo-choice",        NULL, undo_choice_action,        0,         0,         0,          NULL, NULL },
  { "win.dismiss-file-error", NULL, dismiss_file_error_action, 0,         0,         0,          NULL, NULL },
  { "win.export-compare",     NULL, export_compare_action,     0,         0,         0,          NULL, NULL },
  { "win.export-scatter",     NULL, export_scatter_action,     0,         0,         0,          NULL, NULL },
  { "win.show-help-overlay",  NULL, NULL,                      0,         0,         0,          NULL, "<Control>question" },
};

void
plx_window_actions_install (GtkWidgetClass *widget_class)
{
  for (guint i = 0; i < G_N_ELEMENTS (actions); i++)
    if (actions[i].activate != NULL)
      gtk_widget_class_install_action (widget_class, actions[i].name, actions[i].param_type, actions[i].activate);
  for (guint i = 0; i < G_N_ELEMENTS (actions); i++)
    {
      const WindowAction *a = &actions[i];

      if (a->key == 0)
        continue;
      if (a->target != NULL)
        gtk_widget_class_add_binding_action (widget_class, a->key, a->mods, a->name, "s", a->target);
      else
        gtk_widget_class_add_binding_action (widget_class, a->key, a->mods, a->name, NULL);
      if (a->key_also != 0)
        gtk_widget_class_add_binding_action (widget_class, a->key_also, a->mods, a->name, NULL);
    }
}

void
plx_window_set_accels_for_app (GtkApplication *app)
{
  for (guint i = 0; i < G_N_ELEMENTS (actions); i++)
    if (actions[i].menu_accel != NULL)
      {
        const char *accels[] = { actions[i].menu_accel, NULL };
        g_autofree char *detailed = actions[i].target != NULL ? g_strdup_printf ("%s('%s')", actions[i].name,
                                                                                 actions[i].target)
                                                              : g_strdup (actions[i].name);
        gtk_application_set_accels_for_action (app, detailed, accels);
      }
}

/* ---- when an action can run --------------------------------------------------------- */

void
plx_window_actions_update_history (PlxWindow *self)
{
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.undo", plx_history_can_undo (self->history));
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.redo", plx_history_can_redo (self->history));
}

/* Swap and exporting the comparison need a pinned scenario A. */
void
plx_window_actions_update_pin (PlxWindow *self)
{
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.swap", self->pinned != NULL);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.export-compare", self->pinned != NULL);
}

/* The scatter plot exists once a search has results: before, its menu item would
 * open a file chooser only to say there is nothing to export. */
void
plx_window_actions_update_scatter (GListModel *rows, guint position, guint removed, guint added, PlxWindow *self)
{
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.export-scatter", g_list_model_get_n_items (rows) > 0);
}
