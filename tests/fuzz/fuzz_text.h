/* fuzz_text: the fuzzer's bytes as a NUL-terminated text, as the parsers
 * expect (caller frees; NULL when out of memory). */
#ifndef KVPLAN_FUZZ_TEXT_H
#define KVPLAN_FUZZ_TEXT_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static inline char *fuzz_text(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (text != NULL) {
        memcpy(text, data, size);
        text[size] = '\0';
    }
    return text;
}

#endif
