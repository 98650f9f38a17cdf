/* plx-sim-memory-trace-store.h: how a PlxMemoryTrace holds its samples
 * (plx-memory-trace.c), for the event engine (plx-sim.c) that records them a pass at a
 * time. Not installed. */
#pragma once

#include "parallax/plx-sim.h"

/* What one pass of a virtual stage does to its stage's activation memory: up to three
 * changes, each at the pass's start or its end. The event engine applies these very
 * deltas and a reader adds them again in the same order, so both sums are the same. */
typedef struct
{
  double duration_s;       /* the pass's: its end is start + duration_s, as the engine's */
  double delta[3];
  guint8 n_changes;
  guint8 at_end;           /* bit i: change i is at the pass's end, else at its start */
  guint8 sends;            /* the stage stays busy send_s after the pass */
} PlxMemoryPassEffect;

/* A pass's code is chunk * 3 + pass, with this bit when the pass started as soon as
 * its stage was free (its start is then the previous pass's end, plus the send). */
#define PLX_MEMORY_FROM_FREE 0x80u
/* Codes below this fit beside the bit; more chunks than that keep the samples whole. */
#define PLX_MEMORY_MAX_CODES 0x80u

/* Starts are kept in blocks of this many: growing one array would copy it (and leave
 * the old copy's pages resident in the heap), and the number needed is known only at
 * the end. */
#define PLX_MEMORY_STARTS_PER_BLOCK 4096u

typedef struct
{
  guint8  *codes;          /* one a pass, in the order the stage ran them */
  gsize    n_passes;
  gsize    max_passes;     /* room in codes: no block of starts needs more */
  double **start_blocks;   /* the starts of the passes without PLX_MEMORY_FROM_FREE */
  gsize    n_starts;
  GArray  *whole;          /* PlxMemorySample, when the samples are kept whole */
  guint64  n_samples;
} PlxMemoryTraceRank;

struct _PlxMemoryTraceStore
{
  guint                pp;
  double               send_s;
  PlxMemoryPassEffect *effects;  /* (chunk * pp + stage) * 3 + pass; NULL: samples whole */
  guint                n_effects;
  PlxMemoryTraceRank  *ranks;
};

/* Sets the trace up for the event engine's passes: `effects` (K x 3, copied), at most
 * `passes[r]` passes on rank r. */
void plx_memory_trace_store_init_passes (PlxMemoryTrace            *trace,
                                         const PlxMemoryPassEffect *effects,
                                         guint                      n_effects,
                                         double                     send_s,
                                         const gsize               *passes);
/* Gives back the room in each rank's last block of starts beyond those recorded. */
void plx_memory_trace_store_trim (PlxMemoryTrace *trace);

/* Appends a pass of `n_changes` samples that started at `start_s` (not kept when
 * `code` has PLX_MEMORY_FROM_FREE). */
static inline void
plx_memory_trace_store_add_pass (PlxMemoryTraceRank *rank, guint8 code, double start_s, guint n_changes)
{
  rank->codes[rank->n_passes++] = code;
  rank->n_samples += n_changes;
  if (code & PLX_MEMORY_FROM_FREE)
    return;
  /* A block no larger than the passes left: a stage of a 100,000-stage pipeline runs
   * a few dozen, and 32 KB blocks came to gigabytes. */
  if (rank->n_starts % PLX_MEMORY_STARTS_PER_BLOCK == 0)
    rank->start_blocks[rank->n_starts / PLX_MEMORY_STARTS_PER_BLOCK] =
      g_new (double, MIN (PLX_MEMORY_STARTS_PER_BLOCK, rank->max_passes - rank->n_starts));
  rank->start_blocks[rank->n_starts / PLX_MEMORY_STARTS_PER_BLOCK][rank->n_starts % PLX_MEMORY_STARTS_PER_BLOCK] =
    start_s;
  rank->n_starts++;
}
