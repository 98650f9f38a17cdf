/* plx-error.h: the PLX_ERROR domain shared by every core function that can fail. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define PLX_ERROR (plx_error_quark ())

typedef enum
{
  PLX_ERROR_PARSE,         /* not JSON, or the wrong JSON type for a key */
  PLX_ERROR_MISSING_KEY,   /* a required key is absent */
  PLX_ERROR_INVALID_VALUE, /* a value outside its allowed range */
  PLX_ERROR_UNSUPPORTED,   /* a model_type, schedule or option this build cannot model */
  PLX_ERROR_INCONSISTENT,  /* values that are fine alone but contradict each other */
  PLX_ERROR_NOT_FOUND,     /* unknown preset, missing file */
  PLX_ERROR_IO,            /* reading or writing a file failed */
  PLX_ERROR_UNKNOWN_KEY,   /* a key the format does not have (a typo, most often) */
} PlxErrorCode;

GQuark plx_error_quark (void);

G_END_DECLS
