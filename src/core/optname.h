/* optname: how the command line spells each option, written here once.
 *
 * The CLI's option table (cli/options_table.c) takes every getopt name,
 * help line, completion word and error message from these; the scenario's
 * messages (scenario_option_names) and the command line that reproduces a
 * scenario (io/report_command.c) take theirs from here too, so a spelling
 * cannot drift between what is parsed, printed and copied. String literals,
 * so that tables of them stay constant expressions. */
#ifndef KVPLAN_CORE_OPTNAME_H
#define KVPLAN_CORE_OPTNAME_H

/* The scenario */
#define OPTNAME_GPU "--gpu"
#define OPTNAME_GPUS "--gpus"
#define OPTNAME_MODEL "--model"
#define OPTNAME_CONTEXT "--context"
#define OPTNAME_KV_DTYPE "--kv-dtype"
#define OPTNAME_WEIGHT_DTYPE "--weight-dtype"
#define OPTNAME_KV_HEADS "--kv-heads"
#define OPTNAME_PREFIX "--prefix"
#define OPTNAME_HEADROOM "--headroom"
#define OPTNAME_AVG_CONTEXT "--avg-context"
#define OPTNAME_BLOCK_SIZE "--block-size"
#define OPTNAME_VRAM "--vram"
#define OPTNAME_WEIGHTS "--weights"
#define OPTNAME_PRICE "--price"
#define OPTNAME_CONCURRENCY "--concurrency"
#define OPTNAME_PROMPT "--prompt"
#define OPTNAME_MIN_TOK_S "--min-tok-s"
#define OPTNAME_MAX_TTFT "--max-ttft"
#define OPTNAME_MBU "--mbu"
#define OPTNAME_MFU "--mfu"
#define OPTNAME_STEP_OVERHEAD "--step-overhead"
#define OPTNAME_ENGINE_VERSION "--engine-version"
#define OPTNAME_HOST_KV "--host-kv"
#define OPTNAME_PREFIX_HIT_RATE "--prefix-hit-rate"
#define OPTNAME_FULL_ATTENTION "--full-attention"
#define OPTNAME_UNITS "--units"
#define OPTNAME_PRESETS "--presets"
#define OPTNAME_LOAD "--load"
#define OPTNAME_SCENARIO "--scenario"
#define OPTNAME_EXPORT "--export"
#define OPTNAME_EXPORT_SVG "--export-svg"
#define OPTNAME_REQUIRE_USERS "--require-users"
#define OPTNAME_FORMAT "--format"

/* Speculative decoding */
#define OPTNAME_DRAFT_MODEL "--draft-model"
#define OPTNAME_SPECULATIVE_METHOD "--speculative-method"
#define OPTNAME_NUM_SPECULATIVE_TOKENS "--num-speculative-tokens"

/* Engine profiles and their flags */
#define OPTNAME_ENGINE "--engine"
#define OPTNAME_TP "--tp"
#define OPTNAME_PP "--pp"
#define OPTNAME_DP_ATTENTION "--enable-dp-attention"
#define OPTNAME_EXPERT_PARALLEL "--enable-expert-parallel"
#define OPTNAME_MAX_LORAS "--max-loras"
#define OPTNAME_MAX_LORAS_PER_BATCH "--max-loras-per-batch"
#define OPTNAME_MAX_LORA_RANK "--max-lora-rank"
#define OPTNAME_LORA_TARGET_MODULES "--lora-target-modules"
#define OPTNAME_IMAGES "--images"
#define OPTNAME_IMAGE_TOKENS "--image-tokens"
#define OPTNAME_GPU_MEMORY_UTILIZATION "--gpu-memory-utilization"
#define OPTNAME_MAX_NUM_SEQS "--max-num-seqs"
#define OPTNAME_MAX_NUM_BATCHED_TOKENS "--max-num-batched-tokens"
#define OPTNAME_MEM_FRACTION_STATIC "--mem-fraction-static"
#define OPTNAME_CHUNKED_PREFILL_SIZE "--chunked-prefill-size"
#define OPTNAME_MAX_RUNNING_REQUESTS "--max-running-requests"
#define OPTNAME_PARALLEL "--parallel"
#define OPTNAME_FIT_TARGET "--fit-target"
#define OPTNAME_KV_DTYPE_V "--kv-dtype-v"
#define OPTNAME_FREE_GPU_MEMORY_FRACTION "--free-gpu-memory-fraction"
#define OPTNAME_GPU_TOTAL "--gpu-total"
#define OPTNAME_NON_KV "--non-kv"
#define OPTNAME_KV_MEMORY "--kv-memory"
#define OPTNAME_CALIBRATION "--calibration"

/* The planner */
#define OPTNAME_DUMP_SCREEN "--dump-screen"
#define OPTNAME_SIZE "--size"
#define OPTNAME_KEYS "--keys"
#define OPTNAME_MONO "--mono"
#define OPTNAME_ASCII "--ascii"
#define OPTNAME_DUMP_ATTRS "--dump-attrs"
#define OPTNAME_VERSION "--version"

/* solve, sweep, calibrate, import-hf; every command's --help */
#define OPTNAME_USERS "--users"
#define OPTNAME_MAX_CONTEXT "--max-context"
#define OPTNAME_UTILIZATION "--utilization"
#define OPTNAME_MAX_GPUS "--max-gpus"
#define OPTNAME_MAX_PP "--max-pp"
#define OPTNAME_MAX_PLANS "--max-plans"
#define OPTNAME_VARY "--vary"
#define OPTNAME_MAX_ROWS "--max-rows"
#define OPTNAME_SAVE "--save"
#define OPTNAME_ID "--id"
#define OPTNAME_NAME "--name"
#define OPTNAME_OUTPUT "--output"
#define OPTNAME_HF_ID "--hf-id"
/* simulate: vllm bench serve's names */
#define OPTNAME_NUM_PROMPTS "--num-prompts"
#define OPTNAME_REQUEST_RATE "--request-rate"
#define OPTNAME_BURSTINESS "--burstiness"
#define OPTNAME_RANDOM_INPUT_LEN "--random-input-len"
#define OPTNAME_RANDOM_OUTPUT_LEN "--random-output-len"
#define OPTNAME_RANDOM_RANGE_RATIO "--random-range-ratio"
#define OPTNAME_SEED "--seed"
#define OPTNAME_MAX_CONCURRENCY "--max-concurrency"
#define OPTNAME_GOODPUT "--goodput"
#define OPTNAME_ROUTER "--router"
#define OPTNAME_CAPACITY_POLICY "--capacity-scheduler-policy"
#define OPTNAME_GOODPUT_TARGET "--goodput-target"
#define OPTNAME_PARETO "--pareto"
#define OPTNAME_COMPARE "--compare"
#define OPTNAME_HELP "--help"

#endif
