/* The speculative-decoding options: --draft-model, --speculative-method and
 * --num-speculative-tokens (a count, parsed as counts are). */
#include <string.h>

#include "cli/options.h"
#include "cli/options_table.h"

bool opt_draft_model(const struct option_row *row, const char *arg, struct options *o,
                     struct diag *d)
{
    if (arg[0] == '\0')
        return diag_fail(d, "%s: give a model id (see kvplan list models) or none", row->flag);
    o->draft_model_id = arg;
    return true;
}

bool opt_spec_method(const struct option_row *row, const char *arg, struct options *o,
                     struct diag *d)
{
    if (!spec_method_parse(arg, &o->spec_method))
        return diag_fail(d, "%s: '%s' is not draft, mtp or none", row->flag, arg);
    return true;
}

bool options_spec_apply(const struct options *o, const struct catalog *c, struct scenario *s,
                        struct diag *d)
{
    const char *draft = OPTION_FLAG(OPT_DRAFT_MODEL), *method = OPTION_FLAG(OPT_SPEC_METHOD);
    if (o->draft_model_id && strcmp(o->draft_model_id, "none") == 0) {
        s->spec_method = SPEC_NONE;
        memset(&s->draft, 0, sizeof s->draft);
        s->spec_tokens = 0;
    } else if (o->draft_model_id) {
        const struct catalog_model *m = catalog_find_model(c, o->draft_model_id);
        if (m == NULL) {
            char near[256];
            catalog_suggest(c, PRESET_MODEL, o->draft_model_id, near, sizeof near);
            return diag_fail(d, "%s: unknown model '%s' (closest: %s; see kvplan list models)",
                             draft, o->draft_model_id, near);
        }
        s->draft = m->spec;
        s->spec_method = SPEC_DRAFT;
    }
    if (o->given[OPT_SPEC_METHOD]) {
        if (o->spec_method == SPEC_DRAFT &&
            (s->draft.layers == 0 || (o->draft_model_id == NULL && s->spec_method != SPEC_DRAFT)))
            return diag_fail(d, "%s: draft needs %s ID", method, draft);
        if (o->spec_method == SPEC_MTP && o->draft_model_id && strcmp(o->draft_model_id, "none"))
            return diag_fail(d, "%s: mtp drafts with the model's own layers; leave out %s", method,
                             draft);
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
