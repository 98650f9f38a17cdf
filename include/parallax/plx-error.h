/* plx-error.h: the PLX_ERROR domain shared by every core function that can fail.
 * Installed with plx-gi.h (docs/library.md): it includes GLib alone. */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

#define PLX_ERROR (plx_error_quark ())
#define PLX_TYPE_ERROR (plx_error_get_type ())

/**
 * PlxError:
 * @PLX_ERROR_PARSE: not JSON, or the wrong JSON type for a key
 * @PLX_ERROR_MISSING_KEY: a required key is absent
 * @PLX_ERROR_INVALID_VALUE: a value outside its allowed range
 * @PLX_ERROR_UNSUPPORTED: a model_type, schedule or option this build cannot model
 * @PLX_ERROR_INCONSISTENT: values that are fine alone but contradict each other
 * @PLX_ERROR_NOT_FOUND: unknown preset, missing file
 * @PLX_ERROR_IO: reading or writing a file failed
 * @PLX_ERROR_UNKNOWN_KEY: a key the format does not have (a typo, most often)
 *
 * The codes of the %PLX_ERROR domain. The message of every error names the file,
 * key and value at fault.
 */
typedef enum
{
  PLX_ERROR_PARSE,
  PLX_ERROR_MISSING_KEY,
  PLX_ERROR_INVALID_VALUE,
  PLX_ERROR_UNSUPPORTED,
  PLX_ERROR_INCONSISTENT,
  PLX_ERROR_NOT_FOUND,
  PLX_ERROR_IO,
  PLX_ERROR_UNKNOWN_KEY,
} PlxError;

/**
 * plx_error_quark:
 *
 * Returns: the quark of the %PLX_ERROR domain ("plx-error-quark")
 */
GQuark plx_error_quark (void);

/**
 * plx_error_get_type:
 *
 * Returns: the #GType of #PlxError
 */
GType plx_error_get_type (void) G_GNUC_CONST;

G_END_DECLS
