/* Lazy rank overview. With many rank files the viewer first loads only
 * their GPU lanes (LoadOptions.gpu_only: everything the overview draws and counts), shows
 * the overview, and loads the full model (CPU ops, runtime calls, flows, counters) on a
 * background thread at low priority. Between frames LazyLoad_poll swaps the full model
 * in, with its collectives already matched, keeping the overview or the expanded rank.
 * Until then whatever needs CPU events says "loading" instead of showing partial data. */
#ifndef OVTRACE_TUI_LAZYLOAD_H
#define OVTRACE_TUI_LAZYLOAD_H
#include <stdbool.h>
#include <stddef.h>

#include "ovtrace/read/load.h"

struct App;

/* Whether `view` should open these inputs lazily: at least OVERVIEW_MIN_RANKS trace files
 * (a directory counts its files) and 64 MB or more. mode (view --lazy): -1 auto, 0 off,
 * 1 on at any size. */
bool LazyLoad_wanted(const char *const *paths, size_t n, int mode);
/* a->t is a GPU-only model of paths: takes ownership of it (and of the full model later;
 * App_free frees both) and starts the full load with opt (copied; its progress, cancel and
 * observe fields are replaced). delay_ms holds the full load back (tests). Between frames
 * the full model is swapped in when it is ready; until then the title says how far the
 * load is. */
void LazyLoad_start(struct App *a, const char *const *paths, size_t n, const LoadOptions *opt, int delay_ms);
/* The App's model belongs to the lazy load (App_free frees it). */
bool LazyLoad_ownsModel(const struct App *a);

#endif
