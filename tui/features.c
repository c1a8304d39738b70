/* The registry of the viewer's features (feature.h). Its order is the order of the ?
 * screen; the operations say where else it matters. */
#include "feature.h"

/* One line per feature: F(X) stands for X_feature, defined in the feature's file.
 * Nav: time, lanes, events and the mouse (keys.c); Session: redraw, resize, quit. */
#define FEATURE_LIST(F)                                                                                                \
    F(Nav)                                                                                                             \
    F(Search)                                                                                                          \
    F(Partner)                                                                                                         \
    F(CollView)                                                                                                        \
    F(Overview)                                                                                                        \
    F(Panel)                                                                                                           \
    F(ExportKey)                                                                                                       \
    F(Compare)                                                                                                         \
    F(Live)                                                                                                            \
    F(KTable)                                                                                                          \
    F(Help)                                                                                                            \
    F(Session)

#define DECLARE(X) extern const Feature X##_feature;
#define ENTRY(X)   &X##_feature,
FEATURE_LIST(DECLARE)
const Feature *const FEATURES[] = {FEATURE_LIST(ENTRY)};
const size_t N_FEATURES = sizeof FEATURES / sizeof FEATURES[0];
