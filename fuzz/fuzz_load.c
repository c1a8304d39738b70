/* Fuzz target: the Chrome-trace loader on plain (memory-mapped) input, then the
 * analyses that `ovtrace stats` and the TUI run on whatever loaded. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    /* data starting with the gzip/zstd magic takes the streaming path: that is
     * covered (with the magic kept) by fuzz_load_compressed too, and fine here */
    fz_load_bytes(data, size);
    return 0;
}
