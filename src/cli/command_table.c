/* command_table: the table of kvplan's commands (see options_table.h):
 * each one's name, the function that runs it, its line of `kvplan --help`,
 * the text of its own --help and how a shell completes its words. The
 * options the commands take are the rows of options_table.c. */
#include "cli/options_table.h"

#include <string.h>

#include "cli/commands.h"

#define SCENARIO_TAIL "Scenario options as for kvplan plan (see kvplan plan --help).\n"

const struct cli_command_info cli_commands[CMD_COUNT] = {
    [CMD_PLANNER] =
        {NULL, .run = cmd_planner, .help_width = 23, .synopsis = "[options]",
         .about = "open the planner",
         .head = "How many concurrent users fit on a GPU, and why: the KV cache of every token\n"
                 "of every open conversation, in every layer, against the memory left after the\n"
                 "weights. `kvplan COMMAND --help` describes each command.\n\n"},
    [CMD_PLAN] = {"plan", .synopsis = "plan [options]",
                  .about = "print the plan (text, json or markdown)", .run = cmd_plan,
                  .help_width = 23,
                  .head = "Usage: kvplan plan [options]\n\n"
                          "How many concurrent users fit, and why, for one GPU setup and "
                          "model.\n\n"},
    [CMD_LIST] = {"list", .synopsis = "list gpus|models|engines|datasets",
                  .about = "the preset catalogue, the engines and their versions, the length profiles",
                  .run = cmd_list, .takes_words = true, .args = {"gpus models engines datasets"},
                  .head = "Usage: kvplan list gpus|models|engines|datasets [--format text|json] "
                          "[--presets DIR]\n"},
    [CMD_SHOW] = {"show", .synopsis = "show gpu|model ID", .about = "one preset as JSON",
                  .run = cmd_show, .takes_words = true, .args = {"gpu model", "@ids"},
                  .head = "Usage: kvplan show gpu|model ID [--format text|json] "
                          "[--presets DIR]\n"},
    [CMD_CALIBRATE] =
        {"calibrate", .synopsis = "calibrate FILE", .about = "a startup log's memory, a benchmark's speed",
         .run = cmd_calibrate, .takes_words = true, .args = {"@file"},
         .head = "Usage: kvplan calibrate LOGFILE [--model ID] [--gpu ID] [--tp N] "
                 "[--kv-dtype D] [--save FILE]\n"
                 "                        [--presets DIR]\n"
                 "       kvplan calibrate BENCHMARK... --model ID [--gpu ID] [--engine-version V]\n"
                 "                        [--save FILE] [scenario options]\n\n"
                 "Reads a startup log of vLLM (V0, V1), SGLang, llama.cpp, Ollama or TGI and\n"
                 "reports every figure it prints, the KV bytes per token it implies against\n"
                 "the model's, the memory outside weights and KV, and what kvplan predicts\n"
                 "without the log, at the layout its launch line states (its tensor,\n"
                 "pipeline and data parallel sizes, memory fraction) and for the model it\n"
                 "names (else --model). --save\n"
                 "writes a calibration for plan --calibration, with the version and date\n"
                 "the log states.\n\n"
                 "Or reads a benchmark's output (vllm bench serve, sglang.bench_serving,\n"
                 "llama-bench, genai-perf; the format from its content) and fits the MBU, MFU\n"
                 "and step overhead that make kvplan's step meet its TPOT and TTFT for the\n"
                 "scenario given as for plan; --mbu, --mfu, --step-overhead hold a figure as\n"
                 "given, --engine-version names the engine's release, --save writes them.\n"
                 "Several benchmark outputs (a sweep's runs at several concurrencies) are\n"
                 "fitted on as one, each file's error naming it; --save lists them all.\n",
         .tail = SCENARIO_TAIL},
    [CMD_SOLVE] =
        {"solve", .synopsis = "solve --users N ...",
         .about = "the GPUs, context or utilisation for N users", .run = cmd_solve,
         .help_width = 15, .exact = true, .takes_words = true,
         .head = "Usage: kvplan solve --users N --context L --model M [--gpu ID ...] "
                 "[--engine E]\n"
                 "       kvplan solve --users N --max-context --gpu ID --gpus G [...]\n"
                 "       kvplan solve --users N --utilization --engine vllm --gpu ID [...]\n"
                 "       kvplan solve --request-rate R --goodput KEY:MS ... [--goodput-target F]\n"
                 "                    [workload options] [--gpu ID] [...]\n\n"
                 "The smallest GPU count and tensor-parallel x replica split of each GPU type\n"
                 "that serves N users, sorted by cost; or the longest context, or the smallest\n"
                 "--gpu-memory-utilization, that still serves N users. With --request-rate,\n"
                 "the fewest GPUs and replicas x TP whose simulated run of that stream keeps\n"
                 "the --goodput objectives for a share of the requests (default 0.95).\n",
         .tail = "Options are spelled out in full: an abbreviation is refused.\n" SCENARIO_TAIL},
    [CMD_SWEEP] =
        {"sweep", .synopsis = "sweep --vary AXIS ...",
         .about = "a table over context, GPU count, dtype, GPU or model", .run = cmd_sweep,
         .help_width = 14, .takes_words = true,
         .head = "Usage: kvplan sweep --vary AXIS [--vary AXIS ...] [scenario options]\n"
                 "                    [--format table|csv|markdown|json]\n"
                 "  AXIS: context=1k..1M (powers of two) or context=1k..1M:64 (64 points on a\n"
                 "        log scale), concurrency=1..256 (users decoding at once, powers of "
                 "two),\n"
                 "        gpus=1..8, kv-dtype=all, gpu=all, model=all; up to three\n"
                 "        axes, nested in the order given\n"
                 "  simulated rows (with a workload option, or these axes): request-rate=1..40\n"
                 "        (steps of 1; 1..40:8 points; or a list 1,5,20), max-concurrency=1..256\n"
                 "        (powers of two, or a list); --pareto keeps the frontier's rows\n",
         .tail = SCENARIO_TAIL},
    [CMD_IMPORT_HF] =
        {"import-hf", .synopsis = "import-hf config.json",
         .about = "a model preset from a Hugging Face config", .run = cmd_import_hf,
         .takes_words = true, .args = {"@file"},
         .head = "Usage: kvplan import-hf config.json [--id ID] [--name NAME] [--hf-id ID]\n"
                 "                        [-o|--output FILE]\n\n"
                 "Writes a model preset (JSON) computed from a local Hugging Face config:\n"
                 "dimensions, KV heads, head_dim, MLA ranks, sliding windows, MoE experts,\n"
                 "tied embeddings and precision; the parameter count comes from the\n"
                 "dimensions, a field the config leaves out from transformers' class\n"
                 "defaults. The weights' exact bytes come from model.safetensors.index.json\n"
                 "or the *.safetensors headers beside the config, when there. Put the\n"
                 "file in ~/.config/kvplan/presets to use it.\n"},
    [CMD_IMPORT_GGUF] =
        {"import-gguf", .synopsis = "import-gguf FILE.gguf",
         .about = "a model preset from a GGUF file's header", .run = cmd_import_gguf,
         .takes_words = true, .args = {"@file"},
         .head = "Usage: kvplan import-gguf FILE.gguf [--id ID] [--name NAME] "
                 "[-o|--output FILE]\n\n"
                 "Writes a model preset (JSON) from a GGUF file's header, never reading its\n"
                 "tensor data: the architecture's dimensions from its metadata, the\n"
                 "parameters and the weights' exact bytes from its tensors, so the plan\n"
                 "takes the file's size rather than parameters x a precision. Put the file\n"
                 "in ~/.config/kvplan/presets to use it.\n"},
    [CMD_COMPLETION] =
        {"completion", .synopsis = "completion bash|zsh|fish", .about = "a shell completion script",
         .run = cmd_completion, .takes_words = true, .args = {"bash zsh fish"},
         .head = "Usage: kvplan completion bash|zsh|fish\n\n"
                 "Prints a script that completes kvplan's commands, their options and the\n"
                 "catalogue's ids (GPUs, models, engines, precisions) in that shell:\n"
                 "  source <(kvplan completion bash)     in ~/.bashrc\n"
                 "  source <(kvplan completion zsh)      in ~/.zshrc\n"
                 "  kvplan completion fish | source      in ~/.config/fish/config.fish\n"},
    [CMD_SIMULATE] =
        {"simulate", .synopsis = "simulate [options]",
         .about = "serve a stream of requests, step by step", .run = cmd_simulate,
         .help_width = 24, .takes_words = true,
         .head = "Usage: kvplan simulate [scenario options] [workload options]\n"
                 "                       [--goodput KEY:MS ...] [--compare FILE]\n"
                 "                       [--format text|json]\n\n"
                 "Serves a stream of requests, as `vllm bench serve` sends them, on the plan's\n"
                 "deployment: the engine's scheduler (vLLM V1's, SGLang's, llama.cpp's server's,\n"
                 "TensorRT-LLM's), step by step, on the plan's KV pool, each step as long as\n"
                 "kvplan's step time says. Reports what vllm bench serve does (TTFT, TPOT, ITL,\n"
                 "E2EL, throughput, goodput), the queue (running and waiting requests, the KV\n"
                 "cache's peak, preemptions) and how far its mean TTFT and TPOT were off on\n"
                 "public runs of the same kind (doc/LOAD-BANDS.md).\n\n",
         .tail = SCENARIO_TAIL},
};

enum cli_command cli_command_find(const char *name)
{
    for (int c = 0; c < CMD_COUNT; c++)
        if (cli_commands[c].name && strcmp(cli_commands[c].name, name) == 0)
            return (enum cli_command)c;
    return CMD_COUNT;
}
