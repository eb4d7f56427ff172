/* hostmem: this machine's RAM (see hostmem.h). */
#include "io/hostmem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__APPLE__)
#include <sys/sysctl.h>
#include <sys/types.h>
#endif

bool hostmem_parse(const char *text, uint64_t *bytes)
{
    const char *at = text ? strstr(text, "MemTotal:") : NULL;
    if (at == NULL)
        return false;
    char *end = NULL;
    unsigned long long kb = strtoull(at + strlen("MemTotal:"), &end, 10);
    while (end && *end == ' ')
        end++;
    if (kb == 0 || kb > (1ull << 44) || end == NULL || strncmp(end, "kB", 2) != 0)
        return false;
    *bytes = (uint64_t)kb * 1024;
    return true;
}

static bool read_file(const char *path, uint64_t *bytes)
{
    FILE *f = path[0] ? fopen(path, "r") : NULL;
    if (f == NULL)
        return false;
    char buf[4096];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return hostmem_parse(buf, bytes);
}

bool hostmem_read(uint64_t *bytes)
{
    const char *path = getenv("KVPLAN_MEMINFO");
    if (path)
        return read_file(path, bytes);
#if defined(__APPLE__)
    uint64_t size = 0;
    size_t len = sizeof size;
    if (sysctlbyname("hw.memsize", &size, &len, NULL, 0) == 0 && size > 0) {
        *bytes = size;
        return true;
    }
    return false;
#else
    return read_file("/proc/meminfo", bytes);
#endif
}
