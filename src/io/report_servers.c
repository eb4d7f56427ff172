/* report_servers: the commands a launch line splits into over several nodes
 * or servers (core/launch.h) in the text and Markdown reports and the JSON
 * result. */
#include "report_parts.h"
#include "snapshot_parts.h"

#include <stdio.h>

#include "core/launch.h"
#include "io/markdown.h"

/* Command k, or why it is not written out: past LAUNCH_SERVERS_SHOWN, or too long. */
static const char *command(const struct plan_result *r, int k, char *buf, size_t size)
{
    if (!launch_server(r, k, buf, size))
        snprintf(buf, size, "(command %d is longer than kvplan holds: not shown)", k + 1);
    return buf;
}

static int shown(const struct plan_result *r)
{
    int n = launch_servers(r);
    return n < LAUNCH_SERVERS_SHOWN ? n : LAUNCH_SERVERS_SHOWN;
}

void report_servers_text(FILE *out, const struct plan_result *r)
{
    static char line[ENGINE_LAUNCH_MAX + 1024];
    int n = launch_servers(r);
    for (int k = 0; k < shown(r); k++)
        fprintf(out, "  %-19s %s\n", k == 0 ? "Per server" : "", command(r, k, line, sizeof line));
    if (n > LAUNCH_SERVERS_SHOWN)
        fprintf(out, "  %-19s ... and %d more, each as the one before with its own rank\n", "",
                n - LAUNCH_SERVERS_SHOWN);
}

void report_servers_markdown(FILE *out, const struct plan_result *r)
{
    static char line[ENGINE_LAUNCH_MAX + 1024], code[MD_CODE_SIZE(ENGINE_LAUNCH_MAX + 1024)];
    int n = launch_servers(r);
    if (n == 0)
        return;
    fprintf(out, "\nPer server, one command each:\n\n");
    for (int k = 0; k < shown(r); k++)
        fprintf(out, "- %s\n", md_code(command(r, k, line, sizeof line), code, sizeof code));
    if (n > LAUNCH_SERVERS_SHOWN)
        fprintf(out, "- ... and %d more, each as the one before with its own rank\n",
                n - LAUNCH_SERVERS_SHOWN);
}

cJSON *report_servers_json(const struct plan_result *r)
{
    int n = launch_servers(r);
    if (n == 0)
        return NULL;
    cJSON *a = cJSON_CreateArray();
    static char line[ENGINE_LAUNCH_MAX + 1024];
    for (int k = 0; a && k < n; k++)
        if (!launch_server(r, k, line, sizeof line) ||
            !cJSON_AddItemToArray(a, cJSON_CreateString(line))) {
            cJSON_Delete(a);
            return NULL;
        }
    return a;
}
