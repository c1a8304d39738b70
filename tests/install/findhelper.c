/* Prints where Launch_findHelper finds NAME from this binary's directory, or exits 1:
 * tests/install/prefix.sh copies it into an installed bin/ to check that the
 * installed ovtrace finds the CUDA helpers where the install put them. */
#include <stdio.h>

#include "ovtrace/collector/launch.h"

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s NAME\n", argv[0]);
        return 2;
    }
    char path[4096];
    if (!Launch_findHelper(argv[1], path, sizeof path)) return 1;
    printf("%s\n", path);
    return 0;
}
