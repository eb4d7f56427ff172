/* hfdefaults: what transformers' configuration class of a model_type gives a
 * field a published config.json leaves out (the class defaults of the named
 * transformers commit), so import-hf reads the config as transformers loads
 * it. The architecture's shape (layers, hidden size, attention heads) is
 * never defaulted: a config without it is refused. */
#ifndef KVPLAN_IO_HFDEFAULTS_H
#define KVPLAN_IO_HFDEFAULTS_H

#include <stdbool.h>
#include <stddef.h>

#include <cJSON.h>

/* What was defaulted in one object, for the user: "vocab_size 262208, ..." and the
 * class. */
struct hf_defaulted {
    char fields[320];
    const char *cls; /* "Gemma3TextConfig @008f5c8", NULL when none */
    int count;
};

/* Adds to obj each default of model_type's class that obj lacks, when no
 * other spelling of the field is there either (spellings: NULL-terminated
 * lists of a field's keys, the list ending in NULL). A key present as null
 * is transformers' None and keeps no default. root is true for the outer
 * object of a multimodal config (its own class's defaults). */
void hfdefaults_apply(cJSON *obj, const char *model_type, bool root,
                      const char *const *const *spellings, struct hf_defaulted *out);

/* The class whose defaults model_type takes, or NULL when kvplan has none. */
const char *hfdefaults_class(const char *model_type);

#endif
