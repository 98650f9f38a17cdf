#include <glib/gi18n-lib.h>

#include "plx-application.h"
#include "plx-window.h"

struct _PlxApplication
{
  AdwApplication parent_instance;
};

G_DEFINE_FINAL_TYPE (PlxApplication, plx_application, ADW_TYPE_APPLICATION)

static PlxWindow *
get_window (GApplication *app)
{
  GtkWindow *w = gtk_application_get_active_window (GTK_APPLICATION (app));
  return w != NULL && PLX_IS_WINDOW (w) ? PLX_WINDOW (w) : plx_window_new (ADW_APPLICATION (app));
}

static void
plx_application_activate (GApplication *app)
{
  gtk_window_present (GTK_WINDOW (get_window (app)));
}

static void
plx_application_open (GApplication *app, GFile **files, int n_files, const char *hint)
{
  PlxWindow *window = get_window (app);

  gtk_window_present (GTK_WINDOW (window));
  for (int i = 0; i < n_files; i++)
    {
      g_autoptr (GError) error = NULL;
      if (!plx_window_open_file (window, files[i], &error))
        {
          GtkWidget *dialog = adw_message_dialog_new (GTK_WINDOW (window), _("Cannot Open the File"), error->message);
          adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (dialog), "close", _("_Close"));
          gtk_window_present (GTK_WINDOW (dialog));
        }
    }
}

static void
about_action (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  GtkApplication *app = GTK_APPLICATION (user_data);
  const char *developers[] = { "The Parallax developers", NULL };
  GtkWidget *about = adw_about_window_new ();

  g_object_set (about,
                "transient-for", gtk_application_get_active_window (app),
                "application-name", _("Parallax"),
                "application-icon", "org.parallax.Parallax",
                "developer-name", _("The Parallax developers"),
                "developers", developers,
                "version", PACKAGE_VERSION,
                "comments", _("Plan distributed training of large models: step time, MFU and memory per GPU "
                              "for any split over data, tensor, pipeline, context and expert parallelism."),
                "license-type", GTK_LICENSE_GPL_3_0,
                NULL);
  gtk_window_present (GTK_WINDOW (about));
}

static void
quit_action (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  GtkApplication *app = GTK_APPLICATION (user_data);
  GList *windows = gtk_application_get_windows (app);

  /* Close each window, so unsaved changes are asked about. */
  for (GList *l = windows; l != NULL; l = l->next)
    gtk_window_close (GTK_WINDOW (l->data));
}

static void
plx_application_startup (GApplication *app)
{
  static const GActionEntry entries[] = {
    { "about", about_action, NULL, NULL, NULL, { 0 } },
    { "quit", quit_action, NULL, NULL, NULL, { 0 } },
  };
  const char *quit[] = { "<Control>q", NULL };
  const char *open[] = { "<Control>o", NULL };
  const char *save[] = { "<Control>s", NULL };
  const char *export[] = { "<Control>e", NULL };
  const char *pin[] = { "<Control>p", NULL };
  const char *help[] = { "<Control>question", NULL };

  G_APPLICATION_CLASS (plx_application_parent_class)->startup (app);
  g_action_map_add_action_entries (G_ACTION_MAP (app), entries, G_N_ELEMENTS (entries), app);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "app.quit", quit);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "win.open", open);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "win.save", save);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "win.export('')", export);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "win.pin", pin);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "win.show-help-overlay", help);
}

static void
plx_application_class_init (PlxApplicationClass *klass)
{
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

  app_class->activate = plx_application_activate;
  app_class->open = plx_application_open;
  app_class->startup = plx_application_startup;
}

static void
plx_application_init (PlxApplication *self)
{
}

PlxApplication *
plx_application_new (void)
{
  return g_object_new (PLX_TYPE_APPLICATION,
                       "application-id", "org.parallax.Parallax",
                       "flags", G_APPLICATION_HANDLES_OPEN | G_APPLICATION_NON_UNIQUE,
                       "resource-base-path", "/org/parallax/Parallax",
                       NULL);
}
