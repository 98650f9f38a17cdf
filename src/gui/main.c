/* parallax: the desktop application. */
#include <glib/gi18n.h>
#include <locale.h>

#include "plx-application.h"

int
main (int argc, char **argv)
{
  g_autoptr (PlxApplication) app = NULL;

  setlocale (LC_ALL, "");
  /* PARALLAX_LOCALEDIR: the catalogues of an uninstalled build (tools/launch). */
  bindtextdomain (GETTEXT_PACKAGE, g_getenv ("PARALLAX_LOCALEDIR") ? g_getenv ("PARALLAX_LOCALEDIR") : LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  app = plx_application_new ();
  return g_application_run (G_APPLICATION (app), argc, argv);
}
