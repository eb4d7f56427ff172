/* A fault for the export tests (LD_PRELOAD): the first fsync sends this
 * process the signal named in KVPLAN_FAULT_SIGNAL (a number) before syncing,
 * as a Ctrl-C or `kill` landing mid-export would. Issue 9: the CLI then left
 * FILE.XXXXXX behind with the whole snapshot. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

int fsync(int fd)
{
    static int fired;
    const char *sig = getenv("KVPLAN_FAULT_SIGNAL");
    if (!fired && sig != NULL) {
        fired = 1;
        kill(getpid(), atoi(sig));
    }
    int (*real)(int) = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    return real ? real(fd) : 0;
}
