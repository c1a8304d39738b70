/* Output that went nowhere is a failure: stdout is buffered, so a full disk or
 * /dev/full often shows only at the final flush, after every printf "succeeded". */
#include <errno.h>
#include <string.h>

#include "cli.h"

int cli_finishStdout(int rc) {
    errno = 0;
    bool flush_failed = fflush(stdout) != 0;
    int err = errno;
    if (!flush_failed && !ferror(stdout)) return rc;
    cli_error("cannot write to standard output: %s", flush_failed && err ? strerror(err) : "write error");
    clearerr(stdout);
    return rc ? rc : 1;
}
