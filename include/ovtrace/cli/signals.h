/* The process's signal dispositions belong to the program, not to the libraries: the
 * CLI sets them (cli/signals.c). */
#ifndef OVTRACE_CLI_SIGNALS_H
#define OVTRACE_CLI_SIGNALS_H

/* While a temporary output file exists (base/atomicfile.h), a signal whose default
 * action ends the process first removes the temporary files, then ends the process as
 * it would have (the same signal, so the exit status says which). Only signals at
 * their default action are taken, and only for that time: those the program ignores
 * or handles itself (the viewer's, record's clean stop) are left alone. */
void Signals_cleanTempsOnExit(void);

#endif
