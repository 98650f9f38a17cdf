/* plx-application.h: the Parallax desktop application. */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define PLX_TYPE_APPLICATION (plx_application_get_type ())
G_DECLARE_FINAL_TYPE (PlxApplication, plx_application, PLX, APPLICATION, AdwApplication)

PlxApplication *plx_application_new (void);

G_END_DECLS
