/* plx-json.h: typed, range-checked reads of JSON members with errors that name the
 * source, the key path and the value. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

JsonNode *plx_json_parse_file (const char *path,
                               GError    **error);
/* A file's bytes as the JSON loaders read them ("-": standard input): a regular file
 * of at most 64 MiB, never a FIFO or a device (which would be read forever), NUL-
 * terminated; for the line formats that sit beside JSON (part files, merge lists). */
char     *plx_json_read_text_file (const char *path,
                                   gsize      *length,
                                   GError    **error);
JsonNode *plx_json_parse_data (const char *data,
                               gssize      length,
                               const char *source,
                               GError    **error);
JsonNode *plx_json_deep_copy (JsonNode *node);
/* Sets `key` to a normal distribution as the uncertainty engine reads it: {"mean": m,
 * "sd": s} (docs/uncertainty.md). */
void        plx_json_set_normal (JsonObject *object,
                                 const char *key,
                                 double      mean,
                                 double      sd);
/* `key`'s object, made (empty, replacing what is not an object) if there is none. */
JsonObject *plx_json_object_member_made (JsonObject *object,
                                         const char *key);
/* JSON text laid out as json-glib's generator does (two-space indent when `pretty`),
 * but with numbers JSON accepts: a double printed without a point or an exponent gets
 * ".0" (3.0), never after an exponent (1e+17); NaN and infinities are refused with an
 * error naming the key path. Every JSON Parallax writes goes through it. */
char     *plx_json_to_text (JsonNode  *node,
                            gboolean   pretty,
                            GError   **error);
/* The same, pretty, as the file `path` (plx_output_write_file). */
gboolean  plx_json_write_file (JsonNode   *node,
                               const char *path,
                               GError    **error);
/* `v` as JSON writes it into `buf`; FALSE (nothing written) when it is not finite. */
gboolean  plx_json_format_double (double  v,
                                  char   *buf,
                                  gsize   size);
/* Deep merge: members of `overrides` replace or (for objects) merge into `base`. */
JsonNode *plx_json_merge (JsonNode *base,
                          JsonNode *overrides);
char     *plx_json_value_to_string (JsonNode *node);
/* A line format's parse error (TOML, YAML): PLX_ERROR_PARSE with "SOURCE:LINE: WHAT:
 * "TEXT"", TEXT the line from `text` to its end (at most 120 bytes, blanks stripped)
 * and WHAT `fmt` with `ap`. */
void      plx_json_set_line_error (GError    **error,
                                   const char *source,
                                   guint       line,
                                   const char *text,
                                   const char *fmt,
                                   va_list     ap) G_GNUC_PRINTF (5, 0);
/* `text` safe to print on a terminal: control characters (C0 but for nothing, DEL,
 * C1) as \u00xx (lower case, as JSON writes them), bytes that are not UTF-8 as \xXX. Newly allocated. */
char     *plx_printable (const char *text);

/* Each returns TRUE and leaves *out untouched when the member is absent and not
 * required. `path` is the key's dotted prefix for messages ("cluster.gpu"). */
/* Every key of `obj` is one of `known` (NULL-terminated), or the error names the first
 * that is not, with the closest known key when one is near (a misspelt key would
 * otherwise run another strategy without a word). */
gboolean plx_json_check_keys (JsonObject        *obj,
                              const char        *source,
                              const char        *path,
                              const char *const *known,
                              GError           **error);
/* The known key nearest to `key` in edit distance, if it is near enough to be a typo
 * of it (at most a third of its length, and at least 1 and at most 3 edits); NULL. */
/* As plx_json_check_keys, but only a key a typo away from a known one is an error:
 * for formats that carry keys of their own (Hugging Face configs). */
gboolean plx_json_check_near_keys (JsonObject        *obj,
                                   const char        *source,
                                   const char        *path,
                                   const char *const *known,
                                   GError           **error);
const char *plx_json_closest_key (const char        *key,
                                  const char *const *known);
gboolean plx_json_get_uint (JsonObject *obj, const char *source, const char *path,
                            const char *key, gboolean required, guint64 min,
                            guint64 max, guint64 *out, GError **error);
gboolean plx_json_get_double (JsonObject *obj, const char *source, const char *path,
                              const char *key, gboolean required, double min,
                              double max, double *out, GError **error);
gboolean plx_json_get_bool (JsonObject *obj, const char *source, const char *path,
                            const char *key, gboolean *out, GError **error);
gboolean plx_json_get_string (JsonObject *obj, const char *source, const char *path,
                              const char *key, gboolean required, const char **out,
                              GError **error);
JsonObject *plx_json_get_object (JsonObject *obj, const char *source, const char *path,
                                 const char *key, gboolean required, GError **error);

G_END_DECLS
