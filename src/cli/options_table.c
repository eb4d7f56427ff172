/* options_table: every option of every command, one row each (see
 * options_table.h; the commands are in command_table.c). The rows are in the
 * order --help lists them; a row's help is its description, continuation
 * lines after '\n'. */
#include "cli/options_table.h"

#include "core/optname.h"
#include "core/sim.h"

#define AT(member) offsetof(struct options, member)
#define FIELD(f) ((f) + 1) /* 0: no scenario field */

/* The commands that plan a scenario, and those that also show it. */
#define PLANS (CMD_BIT(CMD_PLANNER) | CMD_BIT(CMD_PLAN))
#define SCENARIO \
    (PLANS | CMD_BIT(CMD_SOLVE) | CMD_BIT(CMD_SWEEP) | CMD_BIT(CMD_SIMULATE) | CMD_BIT(CMD_CALIBRATE))
#define SIMULATE CMD_BIT(CMD_SIMULATE)
/* the workload's options: simulate, and solve and sweep when they simulate */
#define WORKLOAD (SIMULATE | CMD_BIT(CMD_SOLVE) | CMD_BIT(CMD_SWEEP))
#define CATALOG (SCENARIO | CMD_BIT(CMD_LIST) | CMD_BIT(CMD_SHOW) | CMD_BIT(CMD_CALIBRATE))

#define COUNT(lo_, hi_) .parse = opt_count32, .min = (lo_), .max = (hi_)
#define COUNT64(lo_, hi_) .parse = opt_count64, .min = (lo_), .max = (hi_)
#define NUMBER(lo_, hi_) .parse = opt_number, .lo = (lo_), .hi = (hi_)
#define FRACTION .parse = opt_fraction, .lo = 0.01, .hi = 1.0, .metavar = "F"

const struct option_row options_table[OPT_COUNT] = {
    [OPT_GPU] = {OPTNAME_GPU, .commands = PLANS | CMD_BIT(CMD_SWEEP) | SIMULATE, .parse = opt_string,
                 .offset = AT(gpu_id), .field = FIELD(SF_GPU), .metavar = "ID",
                 .section = "Scenario options:\n",
                 .help = "GPU preset (default " DEFAULT_GPU_ID "; kvplan list gpus);\n"
                         "auto: this machine's, from nvidia-smi or rocm-smi",
                 .complete = COMPLETE_GPU, .words = "auto"},
    [OPT_GPUS] = {OPTNAME_GPUS, .commands = SCENARIO, COUNT(1, GPUS_MAX), .offset = AT(gpus),
                  .field = FIELD(SF_GPUS), .metavar = "N",
                  .help = "GPUs in all (default 1); without --tp or --pp, the\n"
                          "layout of those that run (TP within a node, stages,\n"
                          "replicas) that serves the most users, each planned"},
    [OPT_MODEL] = {OPTNAME_MODEL, .commands = SCENARIO | CMD_BIT(CMD_CALIBRATE),
                   .parse = opt_string, .offset = AT(model_id), .field = FIELD(SF_MODEL),
                   .metavar = "ID",
                   .help = "model preset (default " DEFAULT_MODEL_ID "; kvplan list models)",
                   .complete = COMPLETE_MODEL},
    [OPT_CONTEXT] = {OPTNAME_CONTEXT, .commands = SCENARIO, .parse = opt_tokens, .min = 1,
                     .offset = AT(context), .field = FIELD(SF_CONTEXT), .metavar = "TOKENS",
                     .help = "context per user: 4000, 8k, 128k, 1M (default 8k)"},
    [OPT_KV_DTYPE] = {OPTNAME_KV_DTYPE, .commands = SCENARIO | CMD_BIT(CMD_CALIBRATE),
                      .parse = opt_dtype, .offset = AT(kv_dtype), .field = FIELD(SF_KV_DTYPE),
                      .metavar = "D", .complete = COMPLETE_KV_DTYPE,
                      .help = "cache precision: auto, fp32, fp16, bf16, fp8, int8, int4,\n"
                              "q8_0, q4_0, fp4 (default auto = the model's bf16/fp16);\n"
                              "an engine takes only its own (vLLM/SGLang fp8, llama.cpp\n"
                              "q8_0/q4_0, TensorRT-LLM fp8/int8)"},
    [OPT_WEIGHT_DTYPE] = {OPTNAME_WEIGHT_DTYPE, .commands = SCENARIO, .parse = opt_dtype,
                          .offset = AT(weight_dtype), .field = FIELD(SF_WEIGHT_DTYPE),
                          .metavar = "D", .complete = COMPLETE_DTYPE,
                          .help = "weight precision (default auto = as released)"},
    [OPT_KV_HEADS] = {OPTNAME_KV_HEADS, .commands = SCENARIO, COUNT(1, 100000),
                      .offset = AT(kv_heads), .field = FIELD(SF_KV_HEADS), .metavar = "N",
                      .help = "KV heads, a divisor of the attention heads (1 = MQA)"},
    [OPT_PREFIX] = {OPTNAME_PREFIX, .commands = SCENARIO, .parse = opt_tokens, .min = 0,
                    .offset = AT(prefix), .field = FIELD(SF_PREFIX), .metavar = "TOKENS",
                    .help = "shared prefix stored once for all users (default 0)"},
    [OPT_HEADROOM] = {OPTNAME_HEADROOM, .commands = SCENARIO, NUMBER(0.0, 99.999),
                      .offset = AT(headroom), .field = FIELD(SF_HEADROOM), .metavar = "PERCENT",
                      .help = "memory kept free for activations (default 10)"},
    [OPT_AVG] = {OPTNAME_AVG_CONTEXT, .commands = SCENARIO, .parse = opt_tokens, .min = 1,
                 .offset = AT(avg), .field = FIELD(SF_AVG), .metavar = "TOKENS",
                 .help = "tokens actually in use per user (default: --context)"},
    [OPT_BLOCK] = {OPTNAME_BLOCK_SIZE, .commands = SCENARIO, .parse = opt_tokens, .min = 1,
                   .max = BLOCK_TOKENS_MAX, .offset = AT(block), .field = FIELD(SF_BLOCK),
                   .metavar = "TOKENS",
                   .help = "paged block, as the engine takes it (default 16, its own)"},
    [OPT_VRAM] = {OPTNAME_VRAM, .commands = SCENARIO, .parse = opt_size, .min = 1,
                  .offset = AT(vram), .field = FIELD(SF_VRAM), .metavar = "SIZE",
                  .help = "memory per GPU instead of the preset's: 80GB, 80GiB"},
    [OPT_WIRED_LIMIT] = {OPTNAME_WIRED_LIMIT_MB, .commands = PLANS | WORKLOAD,
                         COUNT(1, 1u << 24),
                         .offset = AT(wired_limit_mb), .field = FIELD(SF_WIRED_LIMIT),
                         .metavar = "MIB",
                         .help = "Apple silicon: the GPU's wired limit in MiB, as sudo sysctl\n"
                                 "iogpu.wired_limit_mb=MIB sets it (default: macOS's, 2/3 of\n"
                                 "unified memory up to 32 GiB, 3/4 above)"},
    [OPT_WEIGHTS] = {OPTNAME_WEIGHTS, .commands = SCENARIO, .parse = opt_size,
                     .offset = AT(weights), .field = FIELD(SF_WEIGHTS), .metavar = "SIZE",
                     .help = "weights of the whole model instead of params x dtype"},
    [OPT_PRICE] = {OPTNAME_PRICE, .commands = SCENARIO, NUMBER(0.0, 1e6), .offset = AT(price),
                   .field = FIELD(SF_PRICE), .metavar = "USD",
                   .help = "price per GPU-hour instead of the preset's"},
    [OPT_CONCURRENCY] = {OPTNAME_CONCURRENCY, .commands = SCENARIO, COUNT64(1, 100000000),
                         .offset = AT(concurrency), .field = FIELD(SF_CONCURRENCY), .metavar = "N",
                         .help = "users decoding at once for the speed (default: all that fit, or with a target those that keep it)"},
    [OPT_PROMPT] = {OPTNAME_PROMPT, .commands = SCENARIO, .parse = opt_tokens, .min = 1,
                    .offset = AT(prompt), .field = FIELD(SF_PROMPT), .metavar = "TOKENS",
                    .help = "the prompt whose time to first token is reported (default:\n"
                            "--context)"},
    /* not simulate's (its requests have --random-output-len) nor calibrate's
     * (a benchmark's own lengths) */
    [OPT_OUTPUT_LEN] = {OPTNAME_OUTPUT_LEN, .commands = PLANS | CMD_BIT(CMD_SOLVE) | CMD_BIT(CMD_SWEEP), .parse = opt_tokens, .min = 0,
                        .offset = AT(output_tokens), .field = FIELD(SF_OUTPUT), .metavar = "TOKENS",
                        .help = "tokens each request generates: the speed is then a closed\n"
                                "loop's, as vllm bench serve --max-concurrency measures TPOT:\n"
                                "each user at the prompt plus half its output, its steps\n"
                                "carrying the others' prompts (default, or 0: the step alone)"},
    [OPT_MIN_TOK_S] = {OPTNAME_MIN_TOK_S, .commands = SCENARIO, NUMBER(0.001, 1e6),
                       .offset = AT(min_tok_s), .field = FIELD(SF_MIN_TOK_S), .metavar = "X",
                       .help = "service level: tokens per second each user keeps"},
    [OPT_MAX_TTFT] = {OPTNAME_MAX_TTFT, .commands = SCENARIO, NUMBER(0.001, 86400),
                      .offset = AT(max_ttft), .field = FIELD(SF_MAX_TTFT), .metavar = "SECONDS",
                      .help = "service level: the longest time to the first token"},
    [OPT_MBU] = {OPTNAME_MBU, .commands = SCENARIO, NUMBER(0.01, 1.0), .offset = AT(mbu),
                 .field = FIELD(SF_MBU), .metavar = "F",
                 .help = "achievable fractions of bandwidth and compute (default:\n"
                         "the GPU family's measured MBU, else 0.7; MFU 0.5)"},
    [OPT_MFU] = {OPTNAME_MFU, .commands = SCENARIO, NUMBER(0.01, 1.0), .offset = AT(mfu),
                 .field = FIELD(SF_MFU), .metavar = "F", .help = ""},
    [OPT_STEP_OVERHEAD] = {OPTNAME_STEP_OVERHEAD, .commands = SCENARIO, NUMBER(0.0, STEP_OVERHEAD_MAX_S),
                           .offset = AT(step_overhead), .field = FIELD(SF_STEP_OVERHEAD),
                           .metavar = "SECONDS",
                           .help = "the fixed cost of each step: scheduler, sampling, graph\n"
                                   "launch (default: the engine's fitted 0.0009; llama.cpp 0)"},
    [OPT_HOST_KV] = {OPTNAME_HOST_KV, .commands = SCENARIO, .parse = opt_host_kv,
                     .offset = AT(host_kv), .field = FIELD(SF_HOST_KV), .metavar = "SIZE",
                     .help = "a second tier: host memory for KV per GPU (each rank's\n"
                             "pool); users parked there, reload over the host link\n"
                             "and recompute by prefill (0 = none)"},
    [OPT_HIT_RATE] = {OPTNAME_PREFIX_HIT_RATE, .commands = SCENARIO, .parse = opt_hit_rate,
                      .lo = 0.0, .hi = 1.0, .offset = AT(hit_rate),
                      .field = FIELD(SF_PREFIX_HIT_RATE), .metavar = "P",
                      .help = "with --host-kv: share of returning users (0 to 1) found\n"
                              "in host memory; gives their expected restore time"},
    [OPT_FULL_ATTENTION] = {OPTNAME_FULL_ATTENTION, .commands = SCENARIO,
                            .help = "treat sliding-window layers as global"},
    [OPT_UNITS] = {OPTNAME_UNITS, .commands = SCENARIO, .parse = opt_units, .metavar = "gib|gb",
                   .help = "display unit (default gib; JSON is always bytes)",
                   .complete = COMPLETE_WORDS, .words = "gib gb"},
    [OPT_PRESETS] = {OPTNAME_PRESETS, .commands = CATALOG, .parse = opt_presets, .metavar = "DIR",
                     .help = "add or override presets from DIR (repeatable)",
                     .complete = COMPLETE_DIR},
    [OPT_LOAD] = {OPTNAME_LOAD, .commands = SCENARIO, .parse = opt_string, .offset = AT(load_path),
                  .metavar = "FILE", .complete = COMPLETE_FILE,
                  .help = "start from a snapshot (other options then change it)"},
    [OPT_SCENARIO] = {OPTNAME_SCENARIO, .commands = SCENARIO, .parse = opt_string,
                      .offset = AT(scenario_label), .metavar = "LABEL",
                      .help = "with --load: the session's scenario of that name"},
    [OPT_EXPORT] = {OPTNAME_EXPORT, .commands = PLANS, .parse = opt_nonempty,
                    .offset = AT(export_path), .metavar = "FILE", .complete = COMPLETE_FILE,
                    .help = "write the snapshot to FILE atomically"},
    [OPT_EXPORT_SVG] = {OPTNAME_EXPORT_SVG, .commands = PLANS, .parse = opt_nonempty,
                        .offset = AT(export_svg_path), .metavar = "FILE",
                        .complete = COMPLETE_FILE,
                        .help = "write the memory bar and the users-against-context\n"
                                "chart as SVG to FILE atomically"},
    [OPT_REQUIRE_USERS] = {OPTNAME_REQUIRE_USERS, .commands = PLANS, COUNT64(0, (uint64_t)1 << 53),
                           .offset = AT(require_users), .metavar = "N",
                           .help = "exit with status 1 when fewer than N users fit\n"
                                   "(with --min-tok-s or --max-ttft: keep that level)"},
    [OPT_FORMAT] = {OPTNAME_FORMAT, .commands = PLANS, .parse = opt_plan_format, .metavar = "F",
                    .help = "text, json or markdown (default text)", .complete = COMPLETE_WORDS,
                    .words = "text json markdown"},
    [OPT_DRAFT_MODEL] = {OPTNAME_DRAFT_MODEL, .commands = SCENARIO, .parse = opt_draft_model,
                         .field = FIELD(SF_DRAFT_MODEL), .metavar = "ID",
                         .section = "Speculative decoding (the draft's weights and KV, N "
                                    "lookahead slots a user):\n",
                         .help = "a draft model from the catalogue (none: off)",
                         .complete = COMPLETE_MODEL, .words = "none"},
    [OPT_SPEC_METHOD] = {OPTNAME_SPECULATIVE_METHOD, .commands = SCENARIO, .parse = opt_spec_method,
                         .field = FIELD(SF_SPEC_METHOD), .metavar = "M",
                         .help = "draft, mtp (the model's MTP layers) or none",
                         .complete = COMPLETE_WORDS, .words = "draft mtp none"},
    [OPT_SPEC_TOKENS] = {OPTNAME_NUM_SPECULATIVE_TOKENS, .commands = SCENARIO,
                         COUNT(1, SPEC_TOKENS_MAX), .offset = AT(spec_tokens),
                         .field = FIELD(SF_SPEC_TOKENS), .metavar = "N",
                         .help = "tokens a step, 1 to 64 (default: the MTP\n"
                                 "layers; llama.cpp 16; else 1)"},
    [OPT_ENGINE] = {OPTNAME_ENGINE, .commands = SCENARIO, .parse = opt_engine,
                    .field = FIELD(SF_ENGINE), .metavar = "E",
                    .section = "Engine profiles (defaults are each engine's own):\n",
                    .help = "generic, vllm, sglang, llama.cpp, trtllm, ollama\n"
                            "(vllm@0 = V0, llama.cpp@pre-mla = DeepSeek before MLA\n"
                            "support, trtllm@trt = TensorRT engine path, 64-token\n"
                            "blocks)",
                    .complete = COMPLETE_ENGINE},
    [OPT_TP] = {OPTNAME_TP, .commands = SCENARIO | CMD_BIT(CMD_CALIBRATE), COUNT(1, GPUS_MAX),
                .offset = AT(tp), .field = FIELD(SF_TP), .metavar = "N",
                .help = "tensor parallel per replica (default all GPUs);\n"
                        "replicas = --gpus / (--tp x --pp)"},
    [OPT_PP] = {OPTNAME_PP, .commands = SCENARIO, COUNT(1, GPUS_MAX), .offset = AT(pp),
                .field = FIELD(SF_PP), .metavar = "N",
                .help = "pipeline stages per replica: layers, their KV and\n"
                        "weights split across N stages (vLLM, SGLang, TRT-LLM)"},
    [OPT_DP_ATTENTION] = {OPTNAME_DP_ATTENTION, .commands = SCENARIO,
                          .field = FIELD(SF_DP_ATTENTION),
                          .help = "SGLang: every TP rank holds its own requests' whole KV"},
    [OPT_EXPERT_PARALLEL] = {OPTNAME_EXPERT_PARALLEL, .commands = SCENARIO,
                             .field = FIELD(SF_EXPERT_PARALLEL),
                             .help = "vLLM: MoE experts spread over every GPU of the\n"
                                     "data-parallel group (TP x replicas); SGLang:\n"
                                     "its EP size TP, whole experts over the TP ranks"},
    [OPT_ALLOW_LONG_CONTEXT] = {OPTNAME_ALLOW_LONG_CONTEXT, .commands = SCENARIO,
                                .field = FIELD(SF_ALLOW_LONG_CONTEXT),
                                .help = "vLLM, SGLang: a --context past the model's longest,\n"
                                        "which they refuse, planned with the variable that\n"
                                        "lets them start (VLLM_ALLOW_LONG_MAX_MODEL_LEN=1,\n"
                                        "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1)"},
    [OPT_MAX_LORAS] = {OPTNAME_MAX_LORAS, .commands = SCENARIO, COUNT(0, LORA_SLOTS_MAX),
                       .offset = AT(max_loras), .field = FIELD(SF_MAX_LORAS), .metavar = "N",
                       .help = "LoRA adapter slots held on every GPU (vLLM --max-loras,\n"
                               "SGLang --max-loras-per-batch; not llama.cpp or TRT-LLM)"},
    [OPT_MAX_LORAS_PER_BATCH] = {OPTNAME_MAX_LORAS_PER_BATCH, .commands = SCENARIO,
                                 COUNT(0, LORA_SLOTS_MAX), .offset = AT(max_loras),
                                 .field = FIELD(SF_MAX_LORAS), .metavar = "N", .unlisted = true,
                                 .help = "SGLang's name of --max-loras"},
    [OPT_MAX_LORA_RANK] = {OPTNAME_MAX_LORA_RANK, .commands = SCENARIO, COUNT(1, LORA_RANK_MAX),
                           .offset = AT(max_lora_rank), .field = FIELD(SF_MAX_LORA_RANK),
                           .metavar = "R", .help = "the largest rank the slots hold (default 16)"},
    [OPT_LORA_TARGETS] = {OPTNAME_LORA_TARGET_MODULES, .commands = SCENARIO,
                          .parse = opt_lora_targets, .field = FIELD(SF_LORA_TARGETS),
                          .metavar = "M", .complete = COMPLETE_WORDS,
                          .words = "all attention q_proj k_proj v_proj o_proj gate_proj "
                                   "up_proj down_proj",
                          .help = "q_proj,k_proj,v_proj,o_proj,gate_proj,up_proj,down_proj\n"
                                  "(default all of them; on MoE models attention only, and\n"
                                  "MLP modules, so `all`, are refused: experts not modelled;\n"
                                  "vLLM and SGLang allocate qkv_proj and gate_up_proj whole)"},
    [OPT_IMAGES] = {OPTNAME_IMAGES, .commands = SCENARIO, COUNT(0, 1000), .offset = AT(images),
                    .field = FIELD(SF_IMAGES), .metavar = "N",
                    .help = "images in every request: their tokens add to each\n"
                            "user's context (vLLM V1 also holds an encoder cache)"},
    [OPT_IMAGE_TOKENS] = {OPTNAME_IMAGE_TOKENS, .commands = SCENARIO, COUNT(1, 1000000),
                          .offset = AT(image_tokens), .field = FIELD(SF_IMAGE_TOKENS),
                          .metavar = "T",
                          .help = "tokens of one image (default: the model's, Gemma 3: 256);\n"
                                  "alone it means 1 image; --images 0 means none"},
    [OPT_UTIL] = {OPTNAME_GPU_MEMORY_UTILIZATION, .commands = SCENARIO, FRACTION,
                  .offset = AT(flags.gpu_memory_utilization),
                  .field = FIELD(SF_GPU_MEMORY_UTILIZATION), .help = "(vLLM)"},
    [OPT_MAX_SEQS] = {OPTNAME_MAX_NUM_SEQS, .commands = SCENARIO, COUNT(1, 1000000),
                      .offset = AT(flags.max_num_seqs), .field = FIELD(SF_MAX_NUM_SEQS),
                      .metavar = "N", .help = ""},
    [OPT_MAX_BATCHED] = {OPTNAME_MAX_NUM_BATCHED_TOKENS, .commands = SCENARIO, .parse = opt_tokens,
                         .min = 1, .offset = AT(flags.max_num_batched_tokens),
                         .field = FIELD(SF_MAX_NUM_BATCHED_TOKENS), .metavar = "N", .help = ""},
    [OPT_MEM_FRACTION] = {OPTNAME_MEM_FRACTION_STATIC, .commands = SCENARIO, FRACTION,
                          .offset = AT(flags.mem_fraction_static),
                          .field = FIELD(SF_MEM_FRACTION_STATIC), .help = "(SGLang)"},
    [OPT_CHUNKED] = {OPTNAME_CHUNKED_PREFILL_SIZE, .commands = SCENARIO, .parse = opt_tokens,
                     .min = 1, .offset = AT(flags.chunked_prefill_size), .metavar = "N",
                     .help = ""},
    [OPT_MAX_RUNNING] = {OPTNAME_MAX_RUNNING_REQUESTS, .commands = SCENARIO, COUNT(1, 1000000),
                         .offset = AT(flags.max_num_seqs), .field = FIELD(SF_MAX_NUM_SEQS),
                         .metavar = "N", .help = ""},
    [OPT_PARALLEL] = {OPTNAME_PARALLEL, .commands = SCENARIO, .parse = opt_engine_count32, .min = 1,
                      .offset = AT(flags.parallel), .field = FIELD(SF_PARALLEL),
                      .metavar = "N (-np slots, at most 256)", .help = "(llama.cpp)"},
    [OPT_FIT_TARGET] = {OPTNAME_FIT_TARGET, .commands = SCENARIO, .parse = opt_logged_size,
                        .offset = AT(flags.fit_target_bytes), .metavar = "SIZE", .help = ""},
    [OPT_KV_DTYPE_V] = {OPTNAME_KV_DTYPE_V, .commands = SCENARIO, .parse = opt_dtype,
                        .offset = AT(flags.v_dtype), .metavar = "D", .help = "",
                        .complete = COMPLETE_KV_DTYPE},
    [OPT_N_GPU_LAYERS] = {OPTNAME_N_GPU_LAYERS, .commands = SCENARIO, .parse = opt_ngl,
                          .field = FIELD(SF_N_GPU_LAYERS), .metavar = "N",
                          .help = "llama.cpp (-ngl): the last N layers on the GPUs, the\n"
                                  "output layer the last of them (999 or all: every one;\n"
                                  "default: all that fit, searched as llama.cpp's fit does)"},
    [OPT_N_CPU_MOE] = {OPTNAME_N_CPU_MOE, .commands = SCENARIO, .parse = opt_n_cpu_moe,
                       .field = FIELD(SF_N_CPU_MOE), .metavar = "N",
                       .help = "llama.cpp (-ncmoe): the experts of the first N layers\n"
                               "kept in host memory"},
    [OPT_NO_KV_OFFLOAD] = {OPTNAME_NO_KV_OFFLOAD, .commands = SCENARIO,
                           .field = FIELD(SF_NO_KV_OFFLOAD),
                           .help = "llama.cpp (-nkvo): the KV cache in host memory"},
    [OPT_UBATCH] = {OPTNAME_UBATCH, .commands = SCENARIO, .parse = opt_ubatch,
                    .field = FIELD(SF_UBATCH), .metavar = "N",
                    .help = "llama.cpp (-ub): the micro-batch, in tokens (default\n"
                            "512): a prefill's copies of host layers, its buffers"},
    [OPT_HOST_MEMORY] = {OPTNAME_HOST_MEMORY, .commands = SCENARIO, .parse = opt_host_memory,
                         .field = FIELD(SF_HOST_MEMORY), .metavar = "SIZE",
                         .help = "the host's RAM for llama.cpp's CPU layers (default: this\n"
                                 "machine's; auto; 0 = unknown, not checked)"},
    [OPT_HOST_BANDWIDTH] = {OPTNAME_HOST_BANDWIDTH, .commands = SCENARIO,
                            .parse = opt_host_bandwidth, .field = FIELD(SF_HOST_BANDWIDTH),
                            .metavar = "GB/s",
                            .help = "host memory bandwidth the CPU layers read at (default:\n"
                                    "--cpu ddr5-4800-2ch, 76.8 GB/s)"},
    [OPT_CPU] = {OPTNAME_CPU, .commands = SCENARIO, .parse = opt_cpu, .metavar = "PRESET",
                 .help = "host memory preset: ddr4-3200-2ch, ddr5-4800-2ch,\n"
                         "ddr5-5600-2ch, ddr5-6400-2ch, ddr4-3200-8ch, ddr5-4800-8ch,\n"
                         "ddr5-4800-12ch, ddr5-6400-12ch",
                 .complete = COMPLETE_WORDS,
                 .words = "ddr4-3200-2ch ddr5-4800-2ch ddr5-5600-2ch ddr5-6400-2ch ddr4-3200-8ch "
                          "ddr5-4800-8ch ddr5-4800-12ch ddr5-6400-12ch"},
    [OPT_FREE_FRACTION] = {OPTNAME_FREE_GPU_MEMORY_FRACTION, .commands = SCENARIO, FRACTION,
                           .offset = AT(flags.free_gpu_memory_fraction),
                           .field = FIELD(SF_FREE_GPU_MEMORY_FRACTION), .help = "(TensorRT-LLM)"},
    /* three spaces, as this line has always had them */
    [OPT_GPU_TOTAL] = {OPTNAME_GPU_TOTAL, .commands = SCENARIO, .parse = opt_logged_size,
                       .offset = AT(flags.gpu_total_bytes), .field = FIELD(SF_LOGGED),
                       .metavar = "SIZE", .help = " what a log said, per GPU"},
    [OPT_NON_KV] = {OPTNAME_NON_KV, .commands = SCENARIO, .parse = opt_logged_size,
                    .offset = AT(flags.non_kv_bytes), .field = FIELD(SF_LOGGED), .metavar = "SIZE",
                    .help = ""},
    [OPT_KV_MEMORY] = {OPTNAME_KV_MEMORY, .commands = SCENARIO, .parse = opt_logged_size,
                       .offset = AT(flags.kv_memory_bytes), .field = FIELD(SF_LOGGED),
                       .metavar = "SIZE", .help = ""},
    [OPT_CALIBRATION] = {OPTNAME_CALIBRATION, .commands = SCENARIO, .parse = opt_string,
                         .offset = AT(calibration_path), .metavar = "FILE",
                         .complete = COMPLETE_FILE,
                         .help = "use a saved calibration (kvplan calibrate --save)"},
    [OPT_DUMP] = {OPTNAME_DUMP_SCREEN, .commands = PLANS, .parse = opt_nonempty,
                  .offset = AT(dump_path), .metavar = "FILE", .section = "Planner only:\n",
                  .help = "render the planner to FILE (- = stdout), no terminal",
                  .complete = COMPLETE_FILE},
    [OPT_SIZE] = {OPTNAME_SIZE, .commands = PLANS, .parse = opt_screen_size, .metavar = "WxH",
                  .help = "screen size for --dump-screen (default 80x24)"},
    [OPT_KEYS] = {OPTNAME_KEYS, .commands = PLANS, .parse = opt_string, .offset = AT(keys),
                  .metavar = "KEYS", .help = "keys to press first: text and <Right>, <Enter>, ..."},
    [OPT_MONO] = {OPTNAME_MONO, .commands = PLANS,
                  .help = "monochrome / ASCII glyphs (also NO_COLOR)"},
    [OPT_ASCII] = {OPTNAME_ASCII, .commands = PLANS, .help = ""},
    [OPT_DUMP_ATTRS] = {OPTNAME_DUMP_ATTRS, .commands = PLANS,
                        .help = "add the attribute grid to --dump-screen"},
    [OPT_VERSION] = {OPTNAME_VERSION, 'V', .commands = CMD_BIT(CMD_PLANNER), .unlisted = true,
                     .help = "print kvplan's version"},
    /* solve: its --gpu is repeatable, each a GPU type to compare */
    [OPT_USERS] = {OPTNAME_USERS, .commands = CMD_BIT(CMD_SOLVE), COUNT64(1, 1000000000000ull),
                   .offset = AT(users), .metavar = "N",
                   .help = "the users to serve (this question, or --request-rate's)"},
    [OPT_MAX_CONTEXT] = {OPTNAME_MAX_CONTEXT, .commands = CMD_BIT(CMD_SOLVE),
                         .help = "the longest context that serves them on --gpu x --gpus"},
    [OPT_UTILIZATION] = {OPTNAME_UTILIZATION, .commands = CMD_BIT(CMD_SOLVE),
                         .help = "the smallest --gpu-memory-utilization that does (vLLM)"},
    [OPT_SOLVE_GPU] = {OPTNAME_GPU, .commands = CMD_BIT(CMD_SOLVE), .parse = opt_solve_gpu,
                       .field = FIELD(SF_GPU), .metavar = "ID", .complete = COMPLETE_GPU,
                       .help = "a GPU type to compare (repeatable; default: every type);\n"
                               "with --max-context or --utilization, the one GPU"},
    [OPT_MAX_GPUS] = {OPTNAME_MAX_GPUS, .commands = CMD_BIT(CMD_SOLVE), COUNT(1, 4096),
                      .offset = AT(max_gpus), .metavar = "N",
                      .help = "GPUs to consider per type (default 256; 64 with\n"
                              "--request-rate)"},
    [OPT_MAX_PP] = {OPTNAME_MAX_PP, .commands = CMD_BIT(CMD_SOLVE), COUNT(1, 64),
                    .offset = AT(max_pp), .metavar = "N",
                    .help = "also consider N pipeline stages or fewer (layouts past one\n"
                            "node; the fewest stages that serve N users are chosen)"},
    [OPT_MAX_PLANS] = {OPTNAME_MAX_PLANS, .commands = CMD_BIT(CMD_SOLVE), COUNT64(1, UINT64_MAX),
                       .offset = AT(max_plans), .metavar = "N",
                       .help = "layouts to try in all before giving up (default 1000000,\n"
                               "a few seconds; with --request-rate, 200 simulations)"},
    [OPT_SOLVE_FORMAT] = {OPTNAME_FORMAT, .commands = CMD_BIT(CMD_SOLVE), .parse = opt_solve_format,
                          .metavar = "text|json|markdown",
                          .help = "the answer as text (default) or JSON (doc/FORMATS.md);\n"
                                  "the GPU table also as Markdown",
                          .complete = COMPLETE_WORDS, .words = "text json markdown"},
    [OPT_VARY] = {OPTNAME_VARY, .commands = CMD_BIT(CMD_SWEEP), .parse = opt_vary,
                  .metavar = "AXIS", .complete = COMPLETE_WORDS,
                  .help = "an axis to vary (AXIS above)",
                  .words = "context=1k..128k concurrency=1..256 gpus=1..8 kv-dtype=all gpu=all "
                           "model=all request-rate=1..40 max-concurrency=1..256"},
    [OPT_SWEEP_FORMAT] = {OPTNAME_FORMAT, .commands = CMD_BIT(CMD_SWEEP), .parse = opt_sweep_format,
                          .metavar = "F", .complete = COMPLETE_WORDS,
                          .words = "table csv markdown json",
                          .help = "table (default), csv, markdown or json"},
    [OPT_MAX_ROWS] = {OPTNAME_MAX_ROWS, .commands = CMD_BIT(CMD_SWEEP), COUNT64(1, UINT64_MAX),
                      .offset = AT(max_rows), .metavar = "N",
                      .help = "rows to allow (default 100000, 1000 when rows are\n"
                              "simulated; more is refused)"},
    [OPT_LOG_GPU] = {OPTNAME_GPU, .commands = CMD_BIT(CMD_CALIBRATE), .parse = opt_string,
                     .offset = AT(gpu_id), .metavar = "ID", .complete = COMPLETE_GPU,
                     .unlisted = true,
                     .help = "the GPU the log is of (default " DEFAULT_GPU_ID ")"},
    [OPT_SAVE] = {OPTNAME_SAVE, .commands = CMD_BIT(CMD_CALIBRATE), .parse = opt_nonempty,
                  .offset = AT(save_path), .metavar = "FILE", .complete = COMPLETE_FILE,
                  .unlisted = true, .help = "write a calibration for plan --calibration"},
    [OPT_ENGINE_VERSION] = {OPTNAME_ENGINE_VERSION, .commands = CMD_BIT(CMD_CALIBRATE),
                            .parse = opt_nonempty, .offset = AT(engine_version), .metavar = "V",
                            .unlisted = true,
                            .help = "the engine's version the benchmark ran (saved with it)"},
    [OPT_ID] = {OPTNAME_ID, .commands = CMD_BIT(CMD_IMPORT_HF) | CMD_BIT(CMD_IMPORT_GGUF), .parse = opt_string,
                .offset = AT(hf_id), .metavar = "ID", .unlisted = true,
                .help = "the preset's id (default: from the config)"},
    [OPT_NAME] = {OPTNAME_NAME, .commands = CMD_BIT(CMD_IMPORT_HF) | CMD_BIT(CMD_IMPORT_GGUF), .parse = opt_string,
                  .offset = AT(hf_name), .metavar = "NAME", .unlisted = true,
                  .help = "the preset's name (default: from the config)"},
    [OPT_OUTPUT] = {OPTNAME_OUTPUT, 'o', .commands = CMD_BIT(CMD_IMPORT_HF) | CMD_BIT(CMD_IMPORT_GGUF), .parse = opt_nonempty,
                    .offset = AT(output_path), .metavar = "FILE", .complete = COMPLETE_FILE,
                    .unlisted = true,
                    .help = "write the preset to FILE (default: standard output)"},
    [OPT_HF_ID] = {OPTNAME_HF_ID, .commands = CMD_BIT(CMD_IMPORT_HF), .parse = opt_string,
                   .offset = AT(hf_repo), .metavar = "ID", .unlisted = true,
                   .help = "the Hugging Face id launch lines serve (default: the config's "
                           "_name_or_path)"},
    [OPT_CATALOG_FORMAT] = {OPTNAME_FORMAT, .commands = CMD_BIT(CMD_LIST) | CMD_BIT(CMD_SHOW),
                            .parse = opt_catalog_format, .metavar = "F", .complete = COMPLETE_WORDS,
                            .words = "text json", .unlisted = true,
                            .help = "text (default) or json"},
    /* simulate: vllm bench serve's options, as it names and means them */
    [OPT_NUM_PROMPTS] = {OPTNAME_NUM_PROMPTS, .commands = WORKLOAD, COUNT64(1, SIM_MAX_REQUESTS),
                         .offset = AT(num_prompts), .metavar = "N",
                         .section = "The workload (vllm bench serve's random dataset):\n",
                         .help = "requests to send (default 1000, at most 1000000)"},
    [OPT_REQUEST_RATE] = {OPTNAME_REQUEST_RATE, .commands = WORKLOAD, .parse = opt_rate,
                          .offset = AT(request_rate), .metavar = "R",
                          .help = "requests a second (default inf: all at once); the gaps\n"
                                  "are gamma-distributed, scaled to end at N / R"},
    [OPT_BURSTINESS] = {OPTNAME_BURSTINESS, .commands = WORKLOAD, .parse = opt_rate,
                        .offset = AT(burstiness), .metavar = "B",
                        .help = "the gamma's shape (default 1: Poisson; below 1 burstier,\n"
                                "above more even, inf evenly spaced)"},
    [OPT_RANDOM_INPUT_LEN] = {OPTNAME_RANDOM_INPUT_LEN, .commands = WORKLOAD, .parse = opt_tokens,
                              .min = 1, .offset = AT(input_len), .metavar = "TOKENS",
                              .help = "prompt tokens a request (default 1024), after --prefix"},
    [OPT_RANDOM_OUTPUT_LEN] = {OPTNAME_RANDOM_OUTPUT_LEN, .commands = WORKLOAD,
                               .parse = opt_tokens, .min = 1, .offset = AT(output_len),
                               .metavar = "TOKENS",
                               .help = "tokens a request generates (default 128), all of\n"
                                       "them (vLLM's ignore_eos)"},
    [OPT_RANDOM_RANGE_RATIO] = {OPTNAME_RANDOM_RANGE_RATIO, .commands = WORKLOAD,
                                .parse = opt_range_ratio, .offset = AT(range_ratio),
                                .metavar = "F",
                                .help = "lengths uniform in [len x (1 - F), len x (1 + F)],\n"
                                        "0 <= F < 1 (default 0)"},
    [OPT_SEED] = {OPTNAME_SEED, .commands = WORKLOAD, COUNT64(0, UINT64_MAX), .offset = AT(seed),
                  .metavar = "N", .help = "the generator's seed (default 0): same seed, same run"},
    [OPT_MAX_CONCURRENCY] = {OPTNAME_MAX_CONCURRENCY, .commands = WORKLOAD,
                             COUNT64(1, SIM_MAX_REQUESTS), .offset = AT(max_concurrency),
                             .metavar = "N",
                             .help = "the client sends a request only while fewer than N are\n"
                                     "in flight (default: no cap)"},
    [OPT_GOODPUT] = {OPTNAME_GOODPUT, .commands = WORKLOAD, .parse = opt_goodput,
                     .metavar = "KEY:MS",
                     .help = "service level objectives: ttft:MS tpot:MS e2el:MS (one or\n"
                             "more, after one --goodput or each after its own); reports\n"
                             "the requests a second that keep them all"},
    [OPT_ROUTER] = {OPTNAME_ROUTER, .commands = SIMULATE, .parse = opt_router,
                    .metavar = "R", .complete = COMPLETE_WORDS,
                    .words = "round-robin least-outstanding prefix-aware",
                    .help = "how several replicas share the requests: round-robin,\n"
                            "least-outstanding or prefix-aware (SGLang's router,\n"
                            "cache-aware); default the engine's own (vLLM's DP load\n"
                            "balancer, the others' round robin)"},
    [OPT_CAPACITY_POLICY] = {OPTNAME_CAPACITY_POLICY, .commands = SIMULATE,
                             .parse = opt_capacity_policy, .metavar = "P",
                             .complete = COMPLETE_WORDS,
                             .words = "GUARANTEED_NO_EVICT MAX_UTILIZATION",
                             .help = "TensorRT-LLM's capacity scheduler: GUARANTEED_NO_EVICT\n"
                                     "(default: a request starts when its whole life fits)\n"
                                     "or MAX_UTILIZATION (a step at a time, pausing the\n"
                                     "newest when short)"},
    [OPT_SCHEDULER_RECV_INTERVAL] = {OPTNAME_SCHEDULER_RECV_INTERVAL, .commands = SIMULATE,
                                     COUNT(1, 1000000), .offset = AT(recv_interval),
                                     .metavar = "N",
                                     .help = "SGLang's: the scheduler takes new requests only every\n"
                                             "N decode steps (after a prefill, or idle, at once);\n"
                                             "default 1: every step"},
    [OPT_MAX_PREFILL_TOKENS] = {OPTNAME_MAX_PREFILL_TOKENS, .commands = SIMULATE,
                                COUNT(1, 100000000), .offset = AT(max_prefill_tokens),
                                .metavar = "TOKENS",
                                .help = "SGLang's: the prompt tokens one prefill batch takes\n"
                                        "(default 16384)"},
    [OPT_WARM_PROMPTS] = {OPTNAME_WARM_PROMPTS, .commands = SIMULATE,
                          COUNT64(1, SIM_MAX_REQUESTS), .offset = AT(warm_prompts),
                          .metavar = "N",
                          .help = "vLLM's prefix cache: the first N prompts sent are\n"
                                  "cached from an earlier run on the same server (the\n"
                                  "same seed's prompts), all of their whole blocks but\n"
                                  "the last token's found"},
    [OPT_GOODPUT_TARGET] = {OPTNAME_GOODPUT_TARGET, .commands = CMD_BIT(CMD_SOLVE),
                            .parse = opt_share, .offset = AT(goodput_target), .metavar = "F",
                            .help = "solve: the share of requests that must keep --goodput's\n"
                                    "objectives, above 0 and at most 1 (default 0.95)"},
    [OPT_PARETO] = {OPTNAME_PARETO, .commands = CMD_BIT(CMD_SWEEP),
                    .help = "with a simulated sweep: only the rows on the frontier of\n"
                            "output tok/s per GPU against tok/s per user"},
    [OPT_COMPARE] = {OPTNAME_COMPARE, .commands = SIMULATE, .parse = opt_string,
                     .offset = AT(compare_path), .metavar = "FILE", .complete = COMPLETE_FILE,
                     .help = "a measured run (vllm bench serve's saved result JSON,\n"
                             "sglang.bench_serving's JSONL): its workload, unless options\n"
                             "say otherwise, and each figure beside kvplan's, with the error"},
    [OPT_DATASET] = {OPTNAME_DATASET, .commands = WORKLOAD, .parse = opt_string,
                     .offset = AT(dataset_path), .metavar = "NAME|FILE", .complete = COMPLETE_FILE,
                     .help = "a length profile (kvplan list datasets: azure-conv-2023,\n"
                             "azure-code-2023, kimi-conv-2025), each request's lengths\n"
                             "drawn from its trace by --seed; or (simulate) a request\n"
                             "trace: CSV with a header (input_len,output_len and\n"
                             "optionally arrival, seconds or a date and time, and\n"
                             "prefix_id; an Azure trace's TIMESTAMP,ContextTokens,\n"
                             "GeneratedTokens) or JSONL of the same keys: its lengths\n"
                             "(and its arrivals, unless --request-rate) in place of the\n"
                             "random dataset's"},
    [OPT_SIM_FORMAT] = {OPTNAME_FORMAT, .commands = SIMULATE, .parse = opt_sim_format,
                        .metavar = "text|json", .complete = COMPLETE_WORDS, .words = "text json",
                        .help = "a table (default) or JSON: the plan's snapshot with\n"
                                "result.simulation (vllm bench serve's keys)"},
    DISAGG_OPTION_ROWS
    [OPT_HELP] = {OPTNAME_HELP, 'h', .commands = ~0u, .unlisted = true, .help = "this help"},
};

bool options_row_takes(enum option_id id, enum cli_command cmd)
{
    return (options_table[id].commands & CMD_BIT(cmd)) != 0;
}
