/* options_help: the text of the scenario options, shared by `kvplan plan
 * --help` and the planner's --help (kept beside, not inside, the parser). */
#include "cli/options.h"

#include <stdio.h>

/* in two parts: C99 compilers need only take string literals of 4,095 characters */
static const char scenario_part[] =
           "Scenario options:\n"
           "  --gpu ID               GPU preset (default " DEFAULT_GPU_ID "; kvplan list gpus);\n"
           "                         auto: this machine's, from nvidia-smi or rocm-smi\n"
           "  --gpus N               GPUs in all (default 1): one TP group unless --tp or\n"
           "                         --pp split them into replicas\n"
           "  --model ID             model preset (default " DEFAULT_MODEL_ID
           "; kvplan list models)\n"
           "  --context TOKENS       context per user: 4000, 8k, 128k, 1M (default 8k)\n"
           "  --kv-dtype D           cache precision: auto, fp32, fp16, bf16, fp8, int8, int4,\n"
           "                         q8_0, q4_0, fp4 (default auto = the model's bf16/fp16);\n"
           "                         an engine takes only its own (vLLM/SGLang fp8, llama.cpp\n"
           "                         q8_0/q4_0, TensorRT-LLM fp8/int8)\n"
           "  --weight-dtype D       weight precision (default auto = as released)\n"
           "  --kv-heads N           KV heads, a divisor of the attention heads (1 = MQA)\n"
           "  --prefix TOKENS        shared prefix stored once for all users (default 0)\n"
           "  --headroom PERCENT     memory kept free for activations (default 10)\n"
           "  --avg-context TOKENS   tokens actually in use per user (default: --context)\n"
           "  --block-size TOKENS    paged allocation block (default 16)\n"
           "  --vram SIZE            memory per GPU instead of the preset's: 80GB, 80GiB\n"
           "  --weights SIZE         weights of the whole model instead of params x dtype\n"
           "  --price USD            price per GPU-hour instead of the preset's\n"
           "  --concurrency N        users decoding at once for the speed (default: all that fit)\n"
           "  --prompt TOKENS        the prompt whose time to first token is reported (default:\n"
           "                         --context)\n"
           "  --min-tok-s X          service level: tokens per second each user keeps\n"
           "  --max-ttft SECONDS     service level: the longest time to the first token\n"
           "  --mbu F, --mfu F       achievable fractions of bandwidth and compute (default:\n"
           "                         the GPU family's measured MBU, else 0.7; MFU 0.5)\n"
           "  --host-kv SIZE         a second tier: host memory for KV per GPU (each rank's\n"
           "                         pool); users parked there, reload over the host link\n"
           "                         and recompute by prefill (0 = none)\n"
           "  --prefix-hit-rate P    with --host-kv: share of returning users (0 to 1) found\n"
           "                         in host memory; gives their expected restore time\n"
           "  --full-attention       treat sliding-window layers as global\n"
           "  --units gib|gb         display unit (default gib; JSON is always bytes)\n"
           "  --presets DIR          add or override presets from DIR (repeatable)\n"
           "  --load FILE            start from a snapshot (other options then change it)\n"
           "  --scenario LABEL       with --load: the session's scenario of that name\n"
           "  --export FILE          write the snapshot to FILE atomically\n"
           "  --require-users N      exit with status 1 when fewer than N users fit\n"
           "                         (with --min-tok-s or --max-ttft: keep that level)\n"
           "  --format F             text, json or markdown (default text)\n"
           ;
static const char spec_part[] =
           "Speculative decoding (the draft's weights and KV, N lookahead slots a user):\n"
           "  --draft-model ID       a draft model from the catalogue (none: off)\n"
           "  --speculative-method M draft, mtp (the model's MTP layers) or none\n"
           "  --num-speculative-tokens N  tokens a step, 1 to 64 (default: the MTP\n"
           "                         layers; llama.cpp 16; else 1)\n";
static const char engine_part[] =
           "Engine profiles (defaults are each engine's own):\n"
           "  --engine E             generic, vllm, sglang, llama.cpp, trtllm (vllm@0 = V0,\n"
           "                         llama.cpp@pre-mla = DeepSeek before MLA support,\n"
           "                         trtllm@trt = TensorRT engine path, 64-token blocks)\n"
           "  --tp N                 tensor parallel per replica (default all GPUs);\n"
           "                         replicas = --gpus / (--tp x --pp)\n"
           "  --pp N                 pipeline stages per replica: layers, their KV and\n"
           "                         weights split across N stages (vLLM, SGLang, TRT-LLM)\n"
           "  --enable-dp-attention  SGLang: every TP rank holds its own requests' whole KV\n"
           "  --enable-expert-parallel  vLLM: MoE experts spread over every GPU of the\n"
           "                         data-parallel group (TP x replicas)\n"
           "  --max-loras N          LoRA adapter slots held on every GPU (vLLM --max-loras,\n"
           "                         SGLang --max-loras-per-batch; not llama.cpp or TRT-LLM)\n"
           "  --max-lora-rank R      the largest rank the slots hold (default 16)\n"
           "  --lora-target-modules M  q_proj,k_proj,v_proj,o_proj,gate_proj,up_proj,down_proj\n"
           "                         (default all of them; on MoE models attention only, and\n"
           "                         MLP modules, so `all`, are refused: experts not modelled;\n"
           "                         vLLM and SGLang allocate qkv_proj and gate_up_proj whole)\n"
           "  --images N             images in every request: their tokens add to each\n"
           "                         user's context (vLLM V1 also holds an encoder cache)\n"
           "  --image-tokens T       tokens of one image (default: the model's, Gemma 3: 256);\n"
           "                         alone it means 1 image; --images 0 means none\n"
           "  --gpu-memory-utilization F, --max-num-seqs N, --max-num-batched-tokens N  (vLLM)\n"
           "  --mem-fraction-static F, --chunked-prefill-size N, --max-running-requests N  (SGLang)\n"
           "  --parallel N (-np slots, at most 256), --fit-target SIZE, --kv-dtype-v D  (llama.cpp)\n"
           "  --free-gpu-memory-fraction F  (TensorRT-LLM)\n"
           "  --gpu-total SIZE, --non-kv SIZE, --kv-memory SIZE   what a log said, per GPU\n"
           "  --calibration FILE     use a saved calibration (kvplan calibrate --save)\n"
           "Planner only:\n"
           "  --dump-screen FILE     render the planner to FILE (- = stdout), no terminal\n"
           "  --size WxH             screen size for --dump-screen (default 80x24)\n"
           "  --keys KEYS            keys to press first: text and <Right>, <Enter>, ...\n"
           "  --mono, --ascii        monochrome / ASCII glyphs (also NO_COLOR)\n"
           "  --dump-attrs           add the attribute grid to --dump-screen\n";

const char *options_help(void)
{
    static char text[sizeof scenario_part + sizeof spec_part + sizeof engine_part];
    if (text[0] == '\0')
        snprintf(text, sizeof text, "%s%s%s", scenario_part, spec_part, engine_part);
    return text;
}
