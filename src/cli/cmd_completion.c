/* completion: `kvplan completion bash|zsh|fish` prints a script that
 * completes kvplan's commands, each command's options and their values,
 * all made from the option table; the catalogue's ids are asked of kvplan
 * itself when a word is completed (`kvplan __complete ids gpu`, with any
 * --presets on the line), as kubectl and gh do, so user presets count. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options_table.h"
#include "core/engine_desc.h"
#include "core/engine.h"

/* The name a script gives cmd ("planner" for kvplan [options]). */
static const char *cmd_word(int cmd)
{
    return cli_commands[cmd].name ? cli_commands[cmd].name : "planner";
}

/* What a script offers for a row's value: "file", "dir", an id kind, or
 * "-" for the row's words alone. */
static const char *offer_kind(const struct option_row *r)
{
    switch (r->complete) {
    case COMPLETE_FILE:
        return "file";
    case COMPLETE_DIR:
        return "dir";
    case COMPLETE_GPU:
        return "gpu";
    case COMPLETE_MODEL:
        return "model";
    case COMPLETE_ENGINE:
        return "engine";
    case COMPLETE_DTYPE:
        return "dtype";
    case COMPLETE_KV_DTYPE:
        return "kv-dtype";
    default:
        return "-";
    }
}

/* A row's description for a completion menu: the first line of its help (of
 * the row it shares a line with); when the help goes on, cut at its last ';'
 * or ':' (if what is left says something) or at a parenthesis left open;
 * without the characters a shell would read inside quotes (" \ ` $); an
 * apostrophe is escaped where it is printed (print_quoted). */
static void brief(int id, char *buf, size_t size)
{
    while (id > 0 && options_table[id].help && options_table[id].help[0] == '\0')
        id--;
    const char *help = options_table[id].help ? options_table[id].help : "";
    help += strspn(help, " ");
    bool goes_on = strchr(help, '\n') != NULL;
    size_t n = 0, open = 0, cut = 0;
    int depth = 0;
    for (const char *p = help; *p && *p != '\n' && n + 1 < size; p++) {
        if (strchr("\"\\`$", *p))
            continue;
        if (*p == '(' && depth++ == 0)
            open = n;
        else if (*p == ')' && depth > 0)
            depth--;
        else if ((*p == ';' || *p == ':') && depth == 0)
            cut = n;
        buf[n++] = *p;
    }
    if (goes_on && cut >= 15)
        n = cut;
    else if (goes_on && depth > 0)
        n = open;
    while (n > 0 && strchr(" ;,:", buf[n - 1]))
        n--;
    buf[n] = '\0';
}

/* text inside single quotes, each apostrophe written as `quote` says (zsh
 * '\'', fish \'), and a colon escaped for zsh's _describe when `colons` */
static void print_quoted(FILE *out, const char *text, bool colons, const char *quote)
{
    for (const char *p = text; *p; p++) {
        if (*p == '\'')
            fputs(quote, out);
        else if (*p == ':' && colons)
            fputs("\\:", out);
        else
            fputc(*p, out);
    }
}

/* The words a command's first or second word may be, for the scripts. */
static const char *arg_spec(int cmd, int i)
{
    return cli_commands[cmd].args[i];
}

static bool takes(int id, int cmd)
{
    return options_row_takes((enum option_id)id, (enum cli_command)cmd);
}

/* Every command's options (and those taking a value) as shell words. */
static void print_option_words(FILE *out, int cmd, bool valued)
{
    const char *sep = "";
    for (int i = 0; i < OPT_COUNT; i++) {
        const struct option_row *r = &options_table[i];
        if (!takes(i, cmd) || (valued && !r->parse))
            continue;
        fprintf(out, "%s%s", sep, r->flag);
        sep = " ";
        if (r->short_name)
            fprintf(out, " -%c", r->short_name);
    }
}

/* "cmd --flag"|"cmd -o": the patterns of a row in a case of bash or zsh,
 * after sep */
static void print_patterns(FILE *out, const char *sep, int id)
{
    const struct option_row *r = &options_table[id];
    for (int c = 0; c < CMD_COUNT; c++) {
        if (!takes(id, c))
            continue;
        fprintf(out, "%s\"%s %s\"", sep, cmd_word(c), r->flag);
        sep = "|";
        if (r->short_name)
            fprintf(out, "|\"%s -%c\"", cmd_word(c), r->short_name);
    }
}

static const char bash_head[] =
    "# kvplan completion for bash: source <(kvplan completion bash), in ~/.bashrc\n"
    "_kvplan_ids() { # $1: gpu, model, engine, dtype or kv-dtype; with the line's --presets\n"
    "    local i args=()\n"
    "    for ((i = 1; i < ${#COMP_WORDS[@]}; i++)); do\n"
    "        case ${COMP_WORDS[i]} in\n"
    "        --presets=*) args+=(\"${COMP_WORDS[i]}\") ;;\n"
    "        --presets)\n"
    "            if [[ ${COMP_WORDS[i+1]} == = ]]; then args+=(--presets \"${COMP_WORDS[i+2]}\")\n"
    "            else args+=(--presets \"${COMP_WORDS[i+1]}\"); fi ;;\n"
    "        esac\n"
    "    done\n"
    "    \"${COMP_WORDS[0]}\" __complete ids \"$1\" \"${args[@]}\" 2>/dev/null\n"
    "}\n"
    "_kvplan_offer() { # $1: file, dir, an id kind or -; then words\n"
    "    local kind=$1\n"
    "    shift\n"
    "    case $kind in\n"
    "    file) compopt -o filenames 2>/dev/null; mapfile -t COMPREPLY < <(compgen -f -- \"$cur\") "
    ";;\n"
    "    dir) compopt -o filenames 2>/dev/null; mapfile -t COMPREPLY < <(compgen -d -- \"$cur\") "
    ";;\n"
    "    -) mapfile -t COMPREPLY < <(compgen -W \"$*\" -- \"$cur\") ;;\n"
    "    *) mapfile -t COMPREPLY < <(compgen -W \"$(_kvplan_ids \"$kind\") $*\" -- \"$cur\") ;;\n"
    "    esac\n"
    "}\n";

static const char bash_main[] =
    "_kvplan() {\n"
    "    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
    "    local cmd=planner first=1 opt='' pre='' i w n=0 valued\n"
    "    local -a words=()\n"
    "    if ((COMP_CWORD > 1)) && [[ \" $_kvplan_commands \" == *\" ${COMP_WORDS[1]} \"* ]]; then\n"
    "        cmd=${COMP_WORDS[1]} first=2\n"
    "    fi\n"
    "    valued=$(_kvplan_valued \"$cmd\")\n"
    "    # the option whose value this is: --opt VALUE or --opt=VALUE, = a word or not\n"
    "    if [[ $cur == --*=* ]]; then opt=${cur%%=*} pre=${cur%%=*}= cur=${cur#*=}\n"
    "    elif [[ $cur == = && $prev == -* ]]; then opt=$prev cur=\n"
    "    elif [[ $prev == = ]] && ((COMP_CWORD > 2)); then opt=${COMP_WORDS[COMP_CWORD-2]}\n"
    "    elif [[ \" $valued \" == *\" $prev \"* ]]; then opt=$prev\n"
    "    fi\n"
    "    if [[ -n $opt ]]; then\n"
    "        _kvplan_value \"$cmd\" \"$opt\"\n"
    "        [[ -n $pre ]] && COMPREPLY=(\"${COMPREPLY[@]/#/$pre}\")\n"
    "        return 0\n"
    "    fi\n"
    "    if [[ $cur == -* ]]; then\n"
    "        _kvplan_offer - \"$(_kvplan_options \"$cmd\")\"\n"
    "    elif [[ $cmd == planner ]]; then\n"
    "        ((COMP_CWORD == 1)) && _kvplan_offer - \"$_kvplan_commands\"\n"
    "    else\n"
    "        for ((i = first; i < COMP_CWORD; i++)); do # the command's words so far\n"
    "            w=${COMP_WORDS[i]}\n"
    "            if [[ ${COMP_WORDS[i+1]} == = ]]; then ((i += 2))\n"
    "            elif [[ $w == -* ]]; then [[ \" $valued \" == *\" $w \"* ]] && ((i++))\n"
    "            else words[n++]=$w; fi\n"
    "        done\n"
    "        _kvplan_args \"$cmd\" \"$n\" \"${words[0]}\"\n"
    "    fi\n"
    "    return 0\n"
    "}\n"
    "complete -F _kvplan kvplan\n";

/* What bash and zsh share, in the syntax both read: the commands, each
 * command's options (and those taking a value), the values of each option
 * of each command, each command's words. */
static void print_cases(FILE *out)
{
    fputs("_kvplan_commands=\"", out);
    for (int c = 1; c < CMD_COUNT; c++)
        fprintf(out, "%s%s", c > 1 ? " " : "", cli_commands[c].name);
    fputs("\"\n", out);
    for (int valued = 0; valued < 2; valued++) {
        fprintf(out, "_kvplan_%s() {\n    case $1 in\n", valued ? "valued" : "options");
        for (int c = 0; c < CMD_COUNT; c++) {
            fprintf(out, "    %s) printf '%%s' '", cmd_word(c));
            print_option_words(out, c, valued);
            fputs("' ;;\n", out);
        }
        fputs("    esac\n}\n", out);
    }
    fputs("_kvplan_value() { # $1: the command; $2: the option\n    case \"$1 $2\" in\n", out);
    for (int i = 0; i < OPT_COUNT; i++) {
        const struct option_row *r = &options_table[i];
        if (r->complete == COMPLETE_NONE)
            continue;
        print_patterns(out, "    ", i);
        fprintf(out, ") _kvplan_offer %s%s%s ;;\n", offer_kind(r), r->words ? " " : "",
                r->words ? r->words : "");
    }
    fputs("    esac\n}\n_kvplan_args() { # $1: the command; $2: which of its words; $3: its "
          "first\n    case \"$1 $2\" in\n",
          out);
    for (int c = 0; c < CMD_COUNT; c++)
        for (int i = 0; i < 2; i++) {
            const char *a = arg_spec(c, i);
            if (a)
                fprintf(out, "    \"%s %d\") _kvplan_offer %s%s ;;\n", cmd_word(c), i,
                        strcmp(a, "@file") == 0  ? "file"
                        : strcmp(a, "@ids") == 0 ? "\"$3\""
                                                 : "- ",
                        a[0] == '@' ? "" : a);
        }
    fputs("    esac\n}\n", out);
}

static void print_bash(FILE *out)
{
    fputs(bash_head, out);
    print_cases(out);
    fputs(bash_main, out);
}

static const char zsh_head[] =
    "#compdef kvplan\n"
    "# kvplan completion for zsh: source <(kvplan completion zsh), in ~/.zshrc after compinit\n"
    "_kvplan_ids() { # $1: gpu, model, engine, dtype or kv-dtype; with the line's --presets\n"
    "    local i\n"
    "    local -a args\n"
    "    for ((i = 2; i <= $#words; i++)); do\n"
    "        case $words[i] in\n"
    "        (--presets=*) args+=($words[i]) ;;\n"
    "        (--presets) args+=(--presets $words[i+1]) ;;\n"
    "        esac\n"
    "    done\n"
    "    ${words[1]} __complete ids $1 $args 2>/dev/null\n"
    "}\n"
    "_kvplan_offer() { # $1: file, dir, an id kind or -; then words\n"
    "    local kind=$1\n"
    "    shift\n"
    "    case $kind in\n"
    "    (file) _files ;;\n"
    "    (dir) _files -/ ;;\n"
    "    (-) compadd -- \"$@\" ;;\n"
    "    (*) compadd -- ${(f)\"$(_kvplan_ids $kind)\"} \"$@\" ;;\n"
    "    esac\n"
    "}\n";

static const char zsh_main[] =
    "_kvplan() {\n"
    "    local cmd=planner first=2 cur=$words[CURRENT] prev=$words[CURRENT-1] opt='' i w valued\n"
    "    local -a pos\n"
    "    if ((CURRENT > 2)) && [[ \" $_kvplan_commands \" == *\" $words[2] \"* ]]; then\n"
    "        cmd=$words[2] first=3\n"
    "    fi\n"
    "    valued=\" $(_kvplan_valued $cmd) \"\n"
    "    if [[ $cur == --*=* ]]; then opt=${cur%%=*}; compset -P '*='\n"
    "    elif [[ $valued == *\" $prev \"* ]]; then opt=$prev\n"
    "    fi\n"
    "    if [[ -n $opt ]]; then _kvplan_value $cmd $opt; return; fi\n"
    "    if [[ $cur == -* ]]; then _kvplan_describe $cmd; return; fi\n"
    "    if [[ $cmd == planner ]]; then ((CURRENT == 2)) && _kvplan_describe commands; return; fi\n"
    "    for ((i = first; i < CURRENT; i++)); do # the command's words so far\n"
    "        w=$words[i]\n"
    "        if [[ $w == -* ]]; then [[ $valued == *\" $w \"* ]] && ((i++))\n"
    "        else pos+=($w); fi\n"
    "    done\n"
    "    _kvplan_args $cmd $#pos \"$pos[1]\"\n"
    "}\n"
    "# sourced: register it; autoloaded from $fpath as _kvplan: complete this word\n"
    "if [[ $funcstack[1] == _kvplan ]]; then _kvplan \"$@\"; else compdef _kvplan kvplan; fi\n";

/* zsh: a menu entry 'word:description' */
static void print_zsh_item(FILE *out, const char *word, const char *about)
{
    fprintf(out, "        '%s:", word);
    print_quoted(out, about, true, "'\\''");
    fputs("'\n", out);
}

static void print_zsh_describe(FILE *out)
{
    fputs("_kvplan_describe() { # $1: a command, or commands\n    local -a d\n    case $1 in\n"
          "    (commands) d=(\n",
          out);
    for (int c = 1; c < CMD_COUNT; c++)
        print_zsh_item(out, cli_commands[c].name, cli_commands[c].about);
    fputs("    ) ;;\n", out);
    for (int c = 0; c < CMD_COUNT; c++) {
        fprintf(out, "    (%s) d=(\n", cmd_word(c));
        for (int i = 0; i < OPT_COUNT; i++) {
            char about[128];
            if (!takes(i, c))
                continue;
            brief(i, about, sizeof about);
            print_zsh_item(out, options_table[i].flag, about);
            char short_flag[3] = {'-', options_table[i].short_name, '\0'};
            if (short_flag[1])
                print_zsh_item(out, short_flag, about);
        }
        fputs("    ) ;;\n", out);
    }
    fputs("    esac\n    if [[ $1 == commands ]]; then _describe -t commands command d\n"
          "    else _describe -t options option d; fi\n}\n",
          out);
}

static void print_zsh(FILE *out)
{
    fputs(zsh_head, out);
    print_cases(out);
    print_zsh_describe(out);
    fputs(zsh_main, out);
}

static const char fish_head[] =
    "# kvplan completion for fish: kvplan completion fish | source, in config.fish\n"
    "function __kvplan_cmd\n"
    "    set -l w (commandline -opc)\n"
    "    if test (count $w) -ge 2; and contains -- $w[2] $__kvplan_commands\n"
    "        echo $w[2]\n"
    "    else\n"
    "        echo planner\n"
    "    end\n"
    "end\n"
    "function __kvplan_using\n"
    "    test (__kvplan_cmd) = $argv[1]\n"
    "end\n"
    "function __kvplan_ids # $argv[1]: gpu, model, engine, dtype or kv-dtype; with the line's "
    "--presets\n"
    "    set -l w (commandline -opc)\n"
    "    set -l args\n"
    "    for i in (seq 2 (count $w))\n"
    "        switch $w[$i]\n"
    "            case '--presets=*'\n"
    "                set -a args $w[$i]\n"
    "            case --presets\n"
    "                set -l j (math $i + 1)\n"
    "                test $j -le (count $w); and set -a args --presets $w[$j]\n"
    "        end\n"
    "    end\n"
    "    $w[1] __complete ids $argv[1] $args 2>/dev/null\n"
    "end\n";

/* fish: what a row's value completes to: files, directories, ids and words */
static void print_fish_value(FILE *out, const struct option_row *r)
{
    const char *kind = offer_kind(r), *words = r->words ? r->words : "";
    if (r->complete == COMPLETE_FILE)
        fputs(" -r -F", out);
    else if (r->complete == COMPLETE_DIR)
        fputs(" -x -a '(__fish_complete_directories)'", out);
    else if (r->complete == COMPLETE_NONE)
        fputs(" -x", out);
    else if (strcmp(kind, "-") == 0)
        fprintf(out, " -x -a '%s'", words);
    else
        fprintf(out, " -x -a '(__kvplan_ids %s)%s%s'", kind, words[0] ? " " : "", words);
}

static void print_fish_args(FILE *out, int c)
{
    const char *first = arg_spec(c, 0), *second = arg_spec(c, 1);
    if (first == NULL)
        return;
    if (strcmp(first, "@file") == 0) {
        fprintf(out, "complete -c kvplan -n '__kvplan_using %s' -F\n", cmd_word(c));
        return;
    }
    fprintf(out,
            "complete -c kvplan -n '__kvplan_using %s; and not __fish_seen_subcommand_from %s' "
            "-a '%s'\n",
            cmd_word(c), first, first);
    if (second == NULL || strcmp(second, "@ids") != 0)
        return;
    char words[64];
    snprintf(words, sizeof words, "%s", first);
    for (char *w = strtok(words, " "); w; w = strtok(NULL, " "))
        fprintf(out,
                "complete -c kvplan -n '__kvplan_using %s; and __fish_seen_subcommand_from %s' "
                "-a '(__kvplan_ids %s)'\n",
                cmd_word(c), w, w);
}

static void print_fish(FILE *out)
{
    fputs(fish_head, out);
    fputs("set -g __kvplan_commands", out);
    for (int c = 1; c < CMD_COUNT; c++)
        fprintf(out, " %s", cli_commands[c].name);
    fputs("\ncomplete -c kvplan -f\n", out);
    for (int c = 1; c < CMD_COUNT; c++) {
        fprintf(out, "complete -c kvplan -n 'test (count (commandline -opc)) -eq 1' -a %s -d '",
                cli_commands[c].name);
        print_quoted(out, cli_commands[c].about, false, "\\'");
        fputs("'\n", out);
    }
    for (int c = 0; c < CMD_COUNT; c++) {
        for (int i = 0; i < OPT_COUNT; i++) {
            const struct option_row *r = &options_table[i];
            if (!takes(i, c))
                continue;
            char about[128];
            brief(i, about, sizeof about);
            fprintf(out, "complete -c kvplan -n '__kvplan_using %s' -l %s", cmd_word(c),
                    r->flag + 2);
            if (r->short_name)
                fprintf(out, " -s %c", r->short_name);
            if (r->parse)
                print_fish_value(out, r);
            fputs(" -d '", out);
            print_quoted(out, about, false, "\\'");
            fputs("'\n", out);
        }
        print_fish_args(out, c);
    }
}

int cmd_completion(int argc, char **argv)
{
    struct options o;
    struct diag d = {0};
    int parsed = cli_parse(CMD_COMPLETION, argc, argv, &o);
    if (parsed != CLI_PARSED)
        return parsed;
    if (optind + 1 != argc) {
        options_print_help(CMD_COMPLETION, stderr);
        return 2;
    }
    const char *shell = argv[optind];
    if (strcmp(shell, "bash") == 0)
        print_bash(stdout);
    else if (strcmp(shell, "zsh") == 0)
        print_zsh(stdout);
    else if (strcmp(shell, "fish") == 0)
        print_fish(stdout);
    else {
        diag_fail(&d, "completion: '%s' is not bash, zsh or fish", shell);
        return cli_fail(d.message);
    }
    if (fflush(stdout) != 0)
        return cli_fail("cannot write to standard output");
    return 0;
}

/* The engines --engine takes, each with the rules it has ("vllm@0"). */
static void print_engines(void)
{
    for (int k = 0; k < ENGINE_COUNT; k++) {
        const struct engine_desc *e = engine_desc((enum engine_kind)k);
        puts(e->name);
        for (int i = 0; i < ENGINE_VERSIONS_MAX; i++) {
            const struct engine_version *v = &e->versions[i];
            /* a pin that is a rule of its own, under the name reports show */
            if (v->label && strcmp(v->label, e->name) != 0 &&
                strcmp(v->label, engine_label(e->kind, v->rule)) == 0)
                puts(v->label);
        }
    }
}

/* Every precision, or those a cache may take: the ones the default
 * scenario accepts as its --kv-dtype. */
static void print_dtypes(bool cache)
{
    static const struct gpu_spec gpu;
    static const struct model_spec model;
    for (int t = 0; t < DTYPE_COUNT; t++) {
        struct scenario s;
        scenario_default(&s, &gpu, &model);
        s.kv_dtype = (enum dtype)t;
        enum scenario_field field = SF_COUNT;
        struct diag d = {0};
        if (!cache || scenario_validate(&s, NULL, &field, &d) || field != SF_KV_DTYPE)
            puts(dtype_info((enum dtype)t)->name);
    }
}

/* `__complete ids KIND [--presets DIR]...`: a catalogue that does not load
 * (a directory still being typed) leaves the built-in one. */
static int complete_ids(int argc, char **argv)
{
    struct options o;
    struct diag d = {0};
    bool help;
    if (!options_parse_command(CMD_LIST, argc, argv, &o, &help, &d) || optind + 1 != argc)
        return 2;
    const char *kind = argv[optind];
    if (strcmp(kind, "engine") == 0) {
        print_engines();
        return 0;
    }
    if (strcmp(kind, "dtype") == 0 || strcmp(kind, "kv-dtype") == 0) {
        print_dtypes(strcmp(kind, "kv-dtype") == 0);
        return 0;
    }
    struct catalog c;
    catalog_init(&c);
    if (!options_load_catalog(&o, &c, &d)) {
        catalog_free(&c);
        catalog_init(&c);
        o.preset_dir_count = 0;
        diag_clear(&d);
        options_load_catalog(&o, &c, &d);
    }
    bool gpus = strcmp(kind, "gpu") == 0;
    size_t n = gpus ? c.gpu_count : strcmp(kind, "model") == 0 ? c.model_count : 0;
    for (size_t i = 0; i < n; i++)
        puts(gpus ? c.gpus[i].spec.id : c.models[i].spec.id);
    catalog_free(&c);
    return n ? 0 : 2;
}

int cmd_complete(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "ids") == 0)
        return complete_ids(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "commands") == 0) {
        for (int c = 1; c < CMD_COUNT; c++)
            puts(cli_commands[c].name);
        return 0;
    }
    if (argc != 3 || strcmp(argv[1], "options") != 0)
        return cli_fail("__complete: ids KIND, commands or options COMMAND");
    enum cli_command cmd =
        strcmp(argv[2], "planner") == 0 ? CMD_PLANNER : cli_command_find(argv[2]);
    if (cmd == CMD_COUNT)
        return cli_fail("__complete options: not a command");
    for (int i = 0; i < OPT_COUNT; i++) {
        const struct option_row *r = &options_table[i];
        if (takes(i, cmd))
            printf("%s\t%s\t%c\n", r->flag, r->parse ? r->metavar : "-",
                   r->short_name ? r->short_name : '-');
    }
    return 0;
}
