/* hostmem: this machine's RAM, the default of --host-memory: MemTotal of
 * /proc/meminfo on Linux, sysctl hw.memsize on macOS; unknown (false)
 * elsewhere or when it cannot be read. KVPLAN_MEMINFO names another file
 * in /proc/meminfo's format to read instead (tests; empty: unknown). */
#ifndef KVPLAN_IO_HOSTMEM_H
#define KVPLAN_IO_HOSTMEM_H

#include <stdbool.h>
#include <stdint.h>

bool hostmem_read(uint64_t *bytes);

/* MemTotal in a text of /proc/meminfo's format ("MemTotal: 65852224 kB"). */
bool hostmem_parse(const char *text, uint64_t *bytes);

#endif
