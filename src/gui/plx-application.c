#include <glib/gi18n-lib.h>

#include "plx-application.h"
#include "plx-window.h"

struct _PlxApplication
{
  AdwApplication parent_instance;
  GSettings     *settings;   /* NULL when the schema is not installed */
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

static const char *const schemes[] = { "default", "light", "dark" };

static void
apply_color_scheme (PlxApplication *self)
{
  g_autofree char *scheme = g_settings_get_string (self->settings, "color-scheme");
  AdwColorScheme value = g_str_equal (scheme, "light") ? ADW_COLOR_SCHEME_FORCE_LIGHT
                         : g_str_equal (scheme, "dark") ? ADW_COLOR_SCHEME_FORCE_DARK : ADW_COLOR_SCHEME_DEFAULT;

  adw_style_manager_set_color_scheme (adw_style_manager_get_default (), value);
}

static void
on_scheme_selected (AdwComboRow *row, GParamSpec *pspec, PlxApplication *self)
{
  guint sel = adw_combo_row_get_selected (row);

  if (sel < G_N_ELEMENTS (schemes))
    g_settings_set_string (self->settings, "color-scheme", schemes[sel]);
}

static const char *const chart_styles[] = { "follow", "light", "dark" };

static void
on_chart_style_selected (AdwComboRow *row, GParamSpec *pspec, PlxApplication *self)
{
  guint sel = adw_combo_row_get_selected (row);

  if (sel < G_N_ELEMENTS (chart_styles))
    g_settings_set_string (self->settings, "chart-style", chart_styles[sel]);
}

static void
preferences_action (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  PlxApplication *self = PLX_APPLICATION (user_data);
  const char *labels[] = { _("Follow the system"), _("Light"), _("Dark"), NULL };
  g_autoptr (GtkStringList) list = gtk_string_list_new (labels);
  GtkWidget *window = adw_preferences_window_new ();
  GtkWidget *page = adw_preferences_page_new ();
  GtkWidget *group = adw_preferences_group_new ();
  GtkWidget *style = adw_combo_row_new ();
  const char *chart_labels[] = { _("Follow the window"), _("Light"), _("Dark"), NULL };
  g_autoptr (GtkStringList) chart_list = gtk_string_list_new (chart_labels);
  GtkWidget *charts = adw_combo_row_new ();
  g_autofree char *scheme = NULL;

  gtk_window_set_transient_for (GTK_WINDOW (window), gtk_application_get_active_window (GTK_APPLICATION (self)));
  adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (group), _("Appearance"));
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (style), _("Style"));
  adw_combo_row_set_model (ADW_COMBO_ROW (style), G_LIST_MODEL (list));
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (charts), _("Charts"));
  adw_action_row_set_subtitle (ADW_ACTION_ROW (charts), _("Background of the charts, on screen and exported"));
  adw_combo_row_set_model (ADW_COMBO_ROW (charts), G_LIST_MODEL (chart_list));
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), style);
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), charts);
  adw_preferences_page_add (ADW_PREFERENCES_PAGE (page), ADW_PREFERENCES_GROUP (group));
  adw_preferences_window_add (ADW_PREFERENCES_WINDOW (window), ADW_PREFERENCES_PAGE (page));

  if (self->settings != NULL)
    {
      scheme = g_settings_get_string (self->settings, "color-scheme");
      adw_combo_row_set_selected (ADW_COMBO_ROW (style),
                                  g_str_equal (scheme, "light") ? 1 : g_str_equal (scheme, "dark") ? 2 : 0);
      g_signal_connect (style, "notify::selected", G_CALLBACK (on_scheme_selected), self);
      {
        g_autofree char *cs = g_settings_get_string (self->settings, "chart-style");
        adw_combo_row_set_selected (ADW_COMBO_ROW (charts),
                                    g_str_equal (cs, "light") ? 1 : g_str_equal (cs, "dark") ? 2 : 0);
        g_signal_connect (charts, "notify::selected", G_CALLBACK (on_chart_style_selected), self);
      }
    }
  else
    gtk_widget_set_sensitive (page, FALSE);
  gtk_window_present (GTK_WINDOW (window));
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
    { "preferences", preferences_action, NULL, NULL, NULL, { 0 } },
    { "quit", quit_action, NULL, NULL, NULL, { 0 } },
  };
  const char *quit[] = { "<Control>q", NULL };
  const char *prefs[] = { "<Control>comma", NULL };
  PlxApplication *self = PLX_APPLICATION (app);
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
  GSettingsSchema *schema = source ? g_settings_schema_source_lookup (source, "org.parallax.Parallax", TRUE) : NULL;

  G_APPLICATION_CLASS (plx_application_parent_class)->startup (app);
  if (schema != NULL)
    {
      self->settings = g_settings_new ("org.parallax.Parallax");
      g_signal_connect_swapped (self->settings, "changed::color-scheme", G_CALLBACK (apply_color_scheme), self);
      apply_color_scheme (self);
      g_settings_schema_unref (schema);
    }
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "app.preferences", prefs);
  g_action_map_add_action_entries (G_ACTION_MAP (app), entries, G_N_ELEMENTS (entries), app);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "app.quit", quit);
  plx_window_set_accels_for_app (GTK_APPLICATION (app));
}

static void
plx_application_dispose (GObject *object)
{
  g_clear_object (&PLX_APPLICATION (object)->settings);
  G_OBJECT_CLASS (plx_application_parent_class)->dispose (object);
}

/* --version answers before any display is opened (GTK starts in startup, which
 * comes after the local options), so it works over ssh and in package checks. */
static int
plx_application_handle_local_options (GApplication *app, GVariantDict *options)
{
  if (g_variant_dict_contains (options, "version"))
    {
      g_print ("parallax %s\n", PACKAGE_VERSION);
      return 0;
    }
  return -1;
}

static void
plx_application_class_init (PlxApplicationClass *klass)
{
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

  G_OBJECT_CLASS (klass)->dispose = plx_application_dispose;
  app_class->activate = plx_application_activate;
  app_class->open = plx_application_open;
  app_class->startup = plx_application_startup;
  app_class->handle_local_options = plx_application_handle_local_options;
}

static void
plx_application_init (PlxApplication *self)
{
  g_application_add_main_option (G_APPLICATION (self), "version", 0, G_OPTION_FLAG_NONE, G_OPTION_ARG_NONE,
                                 _("Print the version and exit"), NULL);
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
