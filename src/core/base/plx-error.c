#include "parallax/plx-error.h"

G_DEFINE_QUARK (plx-error-quark, plx_error)
