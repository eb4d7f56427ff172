/* The speculative-decoding options: --draft-model, --speculative-method and
 * --num-speculative-tokens. */
#include <string.h>

#include "cli/options.h"

bool options_spec_parse(int opt, const char *arg, struct options *o, struct diag *d)
{
    uint64_t n = 0;
    switch (opt) {
    case OPT_DRAFT_MODEL:
        if (arg[0] == '\0')
            return diag_fail(d, "--draft-model: give a model id (see kvplan list models) or none");
        o->draft_model_id = arg;
        return true;
    case OPT_SPEC_TOKENS:
        if (!options_parse_count("--num-speculative-tokens", arg, 1, SPEC_TOKENS_MAX, &n, d))
            return false;
        o->spec_tokens = (uint32_t)n;
        return true;
    case OPT_SPEC_METHOD:
        if (!spec_method_parse(arg, &o->spec_method))
            return diag_fail(d, "--speculative-method: '%s' is not draft, mtp or none", arg);
        o->has_spec_method = true;
        return true;
    default:
        return diag_fail(d, "unknown option (see --help)");
    }
}

bool options_spec_apply(const struct options *o, const struct catalog *c, struct scenario *s,
                        struct diag *d)
{
    if (o->draft_model_id && strcmp(o->draft_model_id, "none") == 0) {
        s->spec_method = SPEC_NONE;
        memset(&s->draft, 0, sizeof s->draft);
        s->spec_tokens = 0;
    } else if (o->draft_model_id) {
        const struct catalog_model *m = catalog_find_model(c, o->draft_model_id);
        if (m == NULL) {
            char near[256];
            catalog_suggest(c, PRESET_MODEL, o->draft_model_id, near, sizeof near);
            return diag_fail(d, "--draft-model: unknown model '%s' (closest: %s; see kvplan "
                             "list models)", o->draft_model_id, near);
        }
        s->draft = m->spec;
        s->spec_method = SPEC_DRAFT;
    }
    if (o->has_spec_method) {
        if (o->spec_method == SPEC_DRAFT && s->draft.layers == 0)
            return diag_fail(d, "--speculative-method: draft needs --draft-model ID");
        if (o->spec_method == SPEC_DRAFT && o->draft_model_id == NULL && s->spec_method != SPEC_DRAFT)
            return diag_fail(d, "--speculative-method: draft needs --draft-model ID");
        if (o->spec_method == SPEC_MTP && o->draft_model_id && strcmp(o->draft_model_id, "none"))
            return diag_fail(d, "--speculative-method: mtp drafts with the model's own layers; "
                             "leave out --draft-model");
        s->spec_method = o->spec_method;
        if (o->spec_method != SPEC_DRAFT)
            memset(&s->draft, 0, sizeof s->draft);
        if (o->spec_method == SPEC_NONE)
            s->spec_tokens = 0;
    }
    if (o->spec_tokens)
        s->spec_tokens = o->spec_tokens;
    return true;
}
