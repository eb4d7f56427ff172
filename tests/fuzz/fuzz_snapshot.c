/* libFuzzer target: scenario snapshots; whatever loads must compute and export. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_text.h"

#include "io/snapshot.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    if (text == NULL)
        return 0;
    struct scenario s;
    struct diag d = {0};
    if (snapshot_parse("fuzz.json", text, size, &s, &d)) {
        struct plan_result r;
        static struct explain x;
        struct diag d2 = {0};
        if (plan_compute(&s, &x, NULL, &r, &d2)) {
            char *json = snapshot_to_json(&s, &r, &x, "fuzz");
            struct scenario back;
            struct diag d3 = {0};
            if (json && !snapshot_parse("again.json", json, strlen(json), &back, &d3))
                abort(); /* an exported snapshot must load */
            free(json);
        }
    } else if (d.message[0] == '\0') {
        abort();
    }
    free(text);
    return 0;
}
