#!/bin/sh
# The real binary: options, malformed presets, golden outputs, export and
# load. Usage: run.sh path/to/kvplan. Ends with "N passed, N failed".
K=${1:?usage: run.sh KVPLAN}
case $K in /*) ;; *) K=$(pwd)/$K ;; esac
HERE=$(cd "$(dirname "$0")/.." && pwd)
T=$(mktemp -d /tmp/kvplan-cli.XXXXXX)
trap 'chmod -R u+w "$T" 2>/dev/null; rm -rf "$T"' EXIT
# A private, empty user preset directory, so the machine's own presets never leak in.
export XDG_CONFIG_HOME="$T/config"
# and a private recent-files list: the files the tests open are not the user's
export XDG_STATE_HOME="$T/state"
pass=0
failed=0
ok() { pass=$((pass + 1)); }
# printed OUT ARGS...: keeps what a command printed for check_printable.py
printed() {
    n=$((n + 1))
    printf '%s' "$1" > "$T/printed.$n"
    shift
    printf '%s ' "$@" > "$T/printed.$n.args"
}
n=0
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }
# skip WHY: a check this machine cannot make, said rather than passed over
skipped=0
skip() { skipped=$((skipped + 1)); echo "SKIP: $*"; }

# expect STATUS SUBSTRING ARGS...: exit status and a substring of stdout+stderr.
expect() {
    want=$1 text=$2
    shift 2
    # a timeout on every command: a FIFO that blocks a read is a failure, not a hang
    out=$(timeout 30 "$K" "$@" 2>&1)
    got=$?
    printed "$out" "$@"
    if [ "$got" != "$want" ]; then
        bad "kvplan $*: exit $got, expected $want"; echo "$out" | head -5
    elif ! printf '%s' "$out" | grep -qF -- "$text"; then
        bad "kvplan $*: no '$text' in:"; echo "$out" | head -5
    else
        ok
    fi
}

# expect_not SUBSTRING ARGS...: exit 0 and SUBSTRING nowhere in stdout+stderr.
expect_not() {
    text=$1
    shift
    out=$("$K" "$@" 2>&1)
    got=$?
    printed "$out" "$@"
    if [ "$got" != 0 ]; then bad "kvplan $*: exit $got"; echo "$out" | head -5
    elif printf '%s' "$out" | grep -qF -- "$text"; then bad "kvplan $*: '$text' in the output"
    else ok; fi
}

# json_field FIELD ARGS...: the integer value of "FIELD" in plan --format json.
json_field() {
    field=$1
    shift
    "$K" plan --format json "$@" | sed -n "s/^[[:space:]]*\"$field\":[[:space:]]*\([0-9.a-z]*\),*$/\1/p" | head -1
}
expect_field() {
    want=$1 field=$2
    shift 2
    got=$(json_field "$field" "$@")
    if [ "$got" = "$want" ]; then ok; else bad "plan $* : $field = $got, expected $want"; fi
}

# --- the seed article's figures through the command line
expect_field 524288 kv_bytes_per_token_per_gpu --model llama-2-7b
expect_field 131072 kv_bytes_per_token_per_gpu --model llama-3-8b
expect_field 17179869184 user_bytes_per_gpu --model llama-3-8b --context 128k
expect_field 31 max_users --model llama-2-7b --context 4000 --vram 80GB --weights 14GB --headroom 0
expect_field 27 max_users --model llama-2-7b --context 4000 --vram 80GB --weights 14GB
expect_field 61 max_users --model llama-2-7b --context 4000 --vram 80GB --weights 14GB --headroom 0 --prefix 2000
expect_field 131072 kv_bytes_per_token_per_gpu --model llama-2-7b --kv-heads 8
expect_field 262144 kv_bytes_per_token_per_gpu --model llama-2-7b --kv-dtype fp8
expect_field 70272 kv_bytes_per_token_per_gpu --model deepseek-v3
expect_field 70272 kv_bytes_per_token_per_gpu --model deepseek-v3 --gpus 8
expect_field 562176 kv_bytes_per_token_per_replica --model deepseek-v3 --gpus 8
# DeepSeek-V3.2: 61 x (1,152 latent + 132 indexer key) bf16; fp8 61 x (656 + 132)
# (vllm models/deepseek_v2.py Indexer, flashmla_sparse.py fp8_ds_mla)
expect_field 78324 kv_bytes_per_token_per_gpu --model deepseek-v3.2 --gpus 8
expect_field 48068 kv_bytes_per_token_per_gpu --model deepseek-v3.2 --gpus 8 --kv-dtype fp8
expect 0 "132 B indexer key" plan --model deepseek-v3.2 --gpu h200 --gpus 8
expect 0 "sparse attention reads every indexer key and the top 2048 latents" plan --model deepseek-v3.2 --gpu h200 --gpus 8 --context 128k
expect 0 "256 B indexer K (f16)" plan --model deepseek-v3.2 --gpu h200 --gpus 8 --engine llama.cpp --weight-dtype q4_k_m --context 8k
expect 0 "index_topk" show model deepseek-v3.2 --format json
expect_field 40960 kv_bytes_per_token_per_gpu --model llama-3.1-70b --gpus 8
expect_field 40960 kv_bytes_per_token_per_gpu --model llama-3.1-70b --gpus 16 --tp 16
expect_field 655360 kv_bytes_per_token_per_replica --model llama-3.1-70b --gpus 16 --tp 16
expect_field 11173625856 user_bytes_per_gpu --model gemma-3-27b --context 131072
expect_field 66571993088 user_bytes_per_gpu --model gemma-3-27b --context 131072 --full-attention
expect_field 69632 kv_bytes_per_token_per_gpu --model llama-3-8b --kv-dtype q8_0
expect_field 85520809984 memory_bytes_per_gpu --gpu h100-sxm
expect_field 85899345920 memory_bytes_per_gpu --gpu a100-80gb
expect_field false fits --model llama-3.1-405b --gpu h100-sxm

# --- one answer: three replicas of TP 4, under every profile, give the same count
# in the text headline, the markdown, the JSON, the explain rows and the exit gate
for eng in generic vllm sglang llama.cpp trtllm; do
    args="--model llama-3.1-70b --gpu h100-sxm --gpus 12 --tp 4 --context 32k --engine $eng"
    users=$(json_field max_users $args)
    per=$(json_field users_per_replica $args)
    if [ -n "$users" ] && [ "$users" = "$((per * 3))" ]; then ok; else bad "$eng: max_users $users is not 3 x $per"; fi
    nf=$(printf "%'d" "$users" 2>/dev/null || echo "$users")
    expect 0 "$nf users fit at 32,768 tokens each" plan $args
    expect 0 "**$nf users fit" plan $args --format markdown
    expect 0 "= $nf all replicas" plan $args
    expect 0 "(3 replicas x $per)" plan $args
    expect 1 "--require-users: $users users fit, $((users + 1)) required" plan $args --require-users $((users + 1))
    expect 0 "" plan $args --require-users "$users"
    # the replicas multiply the one replica's tokens; cost is over all 12 GPUs
    t=$(json_field kv_tokens $args); tr=$(json_field kv_tokens_per_replica $args)
    if [ "$t" = "$((tr * 3))" ]; then ok; else bad "$eng: kv_tokens $t is not 3 x $tr"; fi
done
expect 0 "KV per token        81,920 B (80 KiB) per GPU x 4 GPUs" plan --model llama-3.1-70b --gpu h100-sxm --gpus 12 --tp 4
expect 0 '"profile":	"vllm"' plan --engine vllm --format json
expect 0 '"generic":' plan --engine vllm --format json
expect 0 "Generic rule        " plan --engine sglang
expect 0 "llama-server -m llama-3.1-8b.gguf -c " plan --engine llama.cpp

# --- --gpu auto: this machine's GPU from the driver, matched to a preset by name
mkdir -p "$T/bin"
printf '#!/bin/sh\necho "NVIDIA H100 80GB HBM3, 81559"\necho "NVIDIA H100 80GB HBM3, 81559"\n' > "$T/bin/nvidia-smi"
chmod +x "$T/bin/nvidia-smi"
out=$(PATH="$T/bin:$PATH" "$K" plan --gpu auto 2>&1)
if printf '%s' "$out" | grep -q "2 x NVIDIA H100 SXM5 80GB, 79.65 GiB each (this machine (nvidia-smi: 81559 MiB"; then ok; else bad "--gpu auto with nvidia-smi: $out" ; fi
# same memory as the SXM part: the driver's name tells them apart (src/io/localgpu.c)
printf '#!/bin/sh\necho "NVIDIA H100 PCIe, 81559"\n' > "$T/bin/nvidia-smi"
out=$(PATH="$T/bin:$PATH" "$K" plan --gpu auto 2>&1)
if printf '%s' "$out" | grep -q "1 x NVIDIA H100 PCIe 80GB"; then ok; else bad "--gpu auto, H100 PCIe: $out" ; fi
out=$(PATH=/nonexistent "$K" plan --gpu auto 2>&1); st=$?
if [ $st = 2 ] && printf '%s' "$out" | grep -q "no GPU found on this machine"; then ok; else bad "--gpu auto without a driver: $st $out"; fi
expect 0 "Llama 3.1 8B on 1 x NVIDIA H100" plan --gpu H100-SXM --model LLAMA-3.1-8B
expect 2 "show: say what 'llama-3.1-8b' is: kvplan show model llama-3.1-8b" show llama-3.1-8b

# --- the service level: speed at a concurrency, the first token, users that keep a speed
expect_field 64 concurrency --model llama-3.1-8b --context 2k --concurrency 64
expect 0 "keep 60 tok/s each (decode binds)" plan --model llama-3.1-8b --context 2k --min-tok-s 60
expect 0 "Speed (64 users decoding at once; MBU 0.62, MFU 0.50)" plan --model llama-3.1-8b --context 2k --concurrency 64
# SGLang DP attention: every rank holds the attention (61 x 187,105,280 params) and
# the embedding (129,280 x 7,168) whole (sglang models/deepseek_v2.py: the
# attention TP group is TP / DP; VocabParallelEmbedding(enable_tp=not is_dp_attention_enabled()))
expect 0 "+ 11.49 GiB attention and embedding" plan --model deepseek-v3 --engine sglang --gpu h200 --gpus 8 --enable-dp-attention --context 32k
expect 0 "64 users fit at 32,768 tokens" plan --model deepseek-v3 --engine sglang --gpu h200 --gpus 8 --enable-dp-attention --context 32k
expect 2 "--enable-dp-attention: spreads requests over the TP ranks: it needs --tp above 1" plan --model deepseek-v3 --engine sglang --gpu h200 --gpus 2 --tp 1 --enable-dp-attention
# SGLang's DeepSeek V4 (core/policy_sglang_dsv4.c, pool_configurator.py DSV4PoolConfigurator):
# the full token pool and its log, 256 max_running_requests; releases before 0.5.12 refused
expect 0 "DSV4 pool sizes: full=14473984, swa=1447168, c4=3618496, c128=113078" plan --model deepseek-v4-flash --engine sglang --gpu h200 --gpus 8 --tp 8
expect 0 "max_total_num_tokens=14,473,984, max_running_requests=256" plan --model deepseek-v4-flash --engine sglang --gpu h200 --gpus 8 --tp 8
expect 2 "SGLang 0.5.6 predates DeepSeek V4, which it serves from 0.5.12" plan --model deepseek-v4-flash --engine sglang@0.5.6 --gpu h200 --gpus 8
expect 2 "SGLang 0.5.x holds releases before DeepSeek V4" plan --model deepseek-v4-flash --engine sglang@0.5.x --gpu h200 --gpus 8
expect 2 "a bf16 cache being its NPU geometry" plan --model deepseek-v4-flash --engine sglang --gpu h200 --gpus 8 --kv-dtype bf16
# its bytes a token in bytes; a request too long for what the c128 states leave, said with both
expect 0 "= 7,705.45 B per GPU" plan --model deepseek-v4-flash --engine sglang --gpu h200 --gpus 8 --tp 8
expect 0 "one needs 7.53 GiB per GPU, the pool holds 4.55 GiB for requests (7.07 GiB less 2.53 GiB set aside)" plan --model deepseek-v4-flash --gpu b200 --engine sglang --context 1M
expect 2 "is a compressed-attention layer, whose weights and cache kvplan has no rule for yet" plan --model deepseek-v4-flash --gpu h200 --gpus 8 --tp 8 --speculative-method mtp
# LoRA slots (core/lora.h): 32 layers x 16 rank x 81,920 features x 2 B = 80 MiB a slot
expect 0 "= 83,886,080 B (80 MiB) per GPU" plan --model llama-3.1-8b --engine vllm --max-loras 4
expect 0 "= 320.00 MiB per GPU" plan --model llama-3.1-8b --engine vllm --max-loras 4
expect 0 "--enable-lora --max-loras 4 --max-lora-rank 16" plan --model llama-3.1-8b --engine vllm --max-loras 4
expect 0 "LoRA slots           320.00 MiB    0.4 %" plan --model llama-3.1-8b --max-loras 4
expect 0 '"lora_bytes_per_gpu":	335544320' plan --model llama-3.1-8b --max-loras 4 --format json
expect 0 '"max_loras":	4' plan --model llama-3.1-8b --max-loras 4 --format json
expect 0 "| LoRA | 4 slots x rank 16" plan --model llama-3.1-8b --max-loras 4 --format markdown
# SGLang stacks q, k, v into qkv_proj (lora/utils.py get_normalized_target_modules): q and v take k too
expect 0 "--max-loras-per-batch 2 --max-lora-rank 64 --lora-target-modules q_proj k_proj v_proj" plan --engine sglang --max-loras-per-batch 2 --max-lora-rank 64 --lora-target-modules q_proj,v_proj
expect 0 "packed qkv_proj and gate_up_proj are allocated whole" plan --engine vllm --max-loras 2 --lora-target-modules q_proj
expect 0 "--max-lora-rank 16 --lora-target-modules q_proj k_proj v_proj o_proj" plan --engine vllm --model mixtral-8x7b --gpus 2 --max-loras 2
# Falcon, OPT, MPT: two MLP matrices (preset "mlp": "ungated")
expect 0 "2 max-loras x 74,579,968 B (72,832 KiB) per slot" plan --engine vllm --model falcon-7b --max-loras 2
expect 0 "on q_proj,k_proj,v_proj,o_proj,up_proj,down_proj" plan --engine vllm --model opt-13b --max-loras 2
expect 0 "the MoE experts carry none" plan --model mixtral-8x7b --gpus 2 --max-loras 2
expect 2 "--max-loras: llama.cpp keeps no adapter slots" plan --engine llama.cpp --max-loras 2
expect 2 "--max-loras: TensorRT-LLM keeps adapters in its PEFT cache" plan --engine trtllm --max-loras 2
expect 2 "--max-loras: DeepSeek-V3 / R1 has MLA attention" plan --model deepseek-v3 --gpu h200 --gpus 8 --max-loras 2
expect 2 "--lora-target-modules: the MLP of Mixtral 8x7B is MoE experts" plan --model mixtral-8x7b --gpus 2 --max-loras 2 --lora-target-modules all
expect 2 "--lora-target-modules: 'lm_head' is not a module" plan --max-loras 2 --lora-target-modules q_proj,lm_head
expect 2 "--max-lora-rank: sizes LoRA slots: give --max-loras N too" plan --max-lora-rank 32
expect 2 "--max-loras: " plan --max-loras 5000
expect 2 "--max-lora-rank: " plan --max-loras 1 --max-lora-rank 0
# images (core/images.h): Gemma 3's config gives 256 tokens an image; 2 images add 512 tokens,
# and vLLM V1 holds max(8,192 batched, 256) x 5,376 hidden x 2 B = 88,080,384 B of encoder cache
expect 0 "at 8,704 tokens each" plan --model gemma-3-27b --images 2 --engine vllm
expect 0 "2 images x 256 tokens = 512 tokens per user, added to the context" plan --model gemma-3-27b --images 2
expect 0 "= 84.00 MiB per GPU" plan --model gemma-3-27b --images 2 --engine vllm
expect 0 "encoder cache         84.00 MiB" plan --model gemma-3-27b --images 2 --engine vllm
expect 0 '"encoder_cache_bytes_per_gpu":	88080384' plan --model gemma-3-27b --images 2 --engine vllm --format json
expect 0 "| Images | 2 images x 256 tokens" plan --model gemma-3-27b --images 2 --format markdown
expect 0 "--max-model-len 9216" plan --model llama-3.1-8b --engine vllm --image-tokens 1024
expect 2 "--images: Llama 3.1 8B gives no tokens per image: give --image-tokens T" plan --images 2
expect 2 "--images: " plan --model gemma-3-27b --images 5000
expect 2 "--image-tokens: " plan --model gemma-3-27b --image-tokens 0
# the planner's Images control (vision models): Up five times from Context wraps to it
# llama.cpp splits layers over its GPUs (split mode layer, its default), not tensors
expect 0 "Layout         one replica, layers split over 2 GPUs" plan --engine llama.cpp --gpus 2
expect 0 "| Layout | 2 replicas, each with layers split over 2 GPUs |" plan --engine llama.cpp --gpus 4 --tp 2 --format markdown
expect 0 "Layout         one replica, tensor parallel 2" plan --engine vllm --gpus 2
expect 0 "one replica, layers split over 2 GPUs" --engine llama.cpp --gpus 2 --dump-screen - --size 100x30
# the info line drops whole facts when narrow, never cuts a number (70x22: not "3.3")
for m in llama-3.1-8b gemma-3-27b qwen3-next-80b-a3b deepseek-v3; do
    for w in 70 76 84 100; do
        line=$("$K" --model $m --dump-screen - --size ${w}x22 | sed -n 2p | sed 's/ *$//')
        case "$line" in
        *" | "*GiB | *" | "*TB/s | *" | "*fp8) ok ;;
        *) bad "info line of $m at ${w}x22 cut: '$line'" ;;
        esac
    done
done
# narrow versus and compare titles: a shorter hint whole, never one cut mid-word
expect 0 "versus: 3 scenarios against A  (Esc back)" --dump-screen - --size 70x22 --keys bnv
expect_not "v or Esc" --dump-screen - --size 70x22 --keys bnv
expect 0 "Compare: A (reference) against B (Esc returns, Up/Down) " --dump-screen - --size 70x22 --keys "b<Right>c"
expect_not "Up/Down scr" --dump-screen - --size 70x22 --keys "b<Right>c"
# the help at 70x22 scrolls (it says so) rather than dropping keys; at 80x24 its
# two columns keep two blanks between them
expect 0 "more: PgDn; any other key closes" --dump-screen - --size 70x22 --keys "?"
expect 0 "Ctrl-L  repaint" --dump-screen - --size 70x22 --keys "?<PgDn>"
expect 0 "the end (PgUp back)" --dump-screen - --size 70x22 --keys "?<PgDn><PgDn>"
expect 0 "q       quit" --dump-screen - --size 70x22 --keys "?<PgDn><PgUp><PgUp>"
expect 0 "GPUs        " --dump-screen - --size 70x22 --keys "?x"
# two columns at 80x24, two blanks between them (the full explain key beside the reference key)
expect 0 "edit copy  x       explain rows, full screen" --dump-screen - --size 80x24 --keys "?"
expect 0 "L       latency against request rate" --dump-screen - --size 80x24 --keys "?"
expect 0 "any key closes this help" --dump-screen - --size 80x24 --keys "?"
# q with unexported scenarios asks, on a too small screen too (never unseen)
expect 0 "Quit? 3 scenarios not exported: y quits, e exports, N stays. (y/e/N)" --dump-screen - --size 100x30 --keys bnq
expect 0 "Quit? 3 scenarios not exported (y quits, e exports, N stays)" --dump-screen - --size 60x20 --keys bnq
expect 0 "not quitting: e exports the session" --dump-screen - --size 100x30 --keys bnqn
# --keys: an unknown <NAME> is refused with the names it knows, never typed in
expect 2 "--keys: '<Bogus>' is not a key name (known: <Right> <Left>" --dump-screen - --keys "<Bogus>"
expect 2 "--keys: '<C-u>' is not a key name" --dump-screen - --keys "ab<C-u>"
expect 0 "Name of scenario 1: <b" --dump-screen - --keys "a<b"
# the dump's shaping options alone would do nothing: refused naming the option
expect 2 "--size: only with --dump-screen" --size 80x24
expect 2 "--keys: only with --dump-screen" --keys q
expect 2 "--dump-attrs: only with --dump-screen" plan --dump-attrs
expect 0 "2 x 256 tok" --model gemma-3-27b --engine vllm --dump-screen - --size 100x30 --keys "<Up><Up><Up><Up><Up><Up><Right><Right>"
expect 0 "3 x 576 tok" --model gemma-3-27b --dump-screen - --size 100x30 --keys "<Up><Up><Up><Up><Up><Up><Enter>3x576<Enter>"
expect 0 "--images 3 --image-tokens 576" --model gemma-3-27b --dump-screen - --size 200x40 --keys "<Up><Up><Up><Up><Up><Up><Enter>3x576<Enter>y"
expect 0 "Images: '3y' is not a whole number" --model gemma-3-27b --dump-screen - --size 100x30 --keys "<Up><Up><Up><Up><Up><Up><Enter>3y<Enter>"
# a snapshot keeps the slots; a bad module is named with its file, line and field
"$K" plan --max-loras 2 --lora-target-modules q_proj --export "$T/lora.json" > /dev/null 2>&1
sed 's/"lora_target_modules":	"q_proj"/"lora_target_modules":	"q_proj,bogus"/' "$T/lora.json" > "$T/lora-bad.json"
expect 0 "2 slots x rank 16, bf16, on q_proj" plan --load "$T/lora.json"
expect 2 "lora_target_modules: 'bogus' is not a module" plan --load "$T/lora-bad.json"
# the planner's LoRA control: Up five times from Context wraps to it; "4x32" is 4 slots at rank 32
expect 0 "4 x r32" --engine vllm --dump-screen - --size 100x30 --keys "<Up><Up><Up><Up><Up><Up><Enter>4x32<Enter>"
expect 0 "= 640.00 MiB per GPU" --engine vllm --dump-screen - --size 100x44 --keys "<Up><Up><Up><Up><Up><Up><Enter>4x32<Enter>"
expect 0 "LoRA: rank: '9999' is not a whole number from 1 to 1024" --engine vllm --dump-screen - --size 100x30 --keys "<Up><Up><Up><Up><Up><Up><Enter>4x9999<Enter>"
expect 0 "2 x r16" --engine vllm --dump-screen - --size 100x30 --keys "<Up><Up><Up><Up><Up><Up><Right><Right>"
expect 0 "--max-loras 2" --engine vllm --dump-screen - --size 100x30 --keys "<Up><Up><Up><Up><Up><Up><Right><Right>y"
# a damaged session is refused whole, by plan and by the planner, never opened in part
"$K" --dump-screen /dev/null --keys "ne$T/sess.json<Enter>" > /dev/null 2>&1
sed 's/"current":	1/"current":	7/' "$T/sess.json" > "$T/sess-bad.json"
expect 0 "opened $T/sess.json: 2 scenarios" --dump-screen - --size 100x30 --keys "o$T/sess.json<Enter>"
expect 2 "session.current: 7 is out of range (0 to 1)" plan --load "$T/sess-bad.json"
expect 2 "session.current: 7 is out of range (0 to 1)" --load "$T/sess-bad.json" --dump-screen /dev/null
# with a service level the gate counts the users who keep it (108 fit, 84 keep 30 tok/s)
expect 1 "--require-users: 95 users keep the service level (108 fit), 100 required" plan --kv-dtype fp8 --engine vllm --min-tok-s 30 --require-users 100
expect 0 "" plan --kv-dtype fp8 --engine vllm --require-users 100
expect 2 "--export: give a file name" plan --export ''
# llama.cpp loads GGUF: DeepSeek's fp8 checkpoint must be converted first
expect 0 "llama.cpp loads GGUF weights (f16, bf16, q8_0, q6_k, q5_k_m, q4_k_m, q4_0): choose one with --weight-dtype" plan --engine llama.cpp --model deepseek-v3 --gpu h200 --gpus 8
expect_not "llama.cpp loads GGUF" plan --engine llama.cpp --model deepseek-v3 --gpu h200 --gpus 8 --weight-dtype q4_k_m
# MLA keeps one latent, but its 128 query heads still split by TP: 13 does not divide them
expect 0 "the tensor-parallel size does not divide the model's heads evenly" plan --model deepseek-v3 --gpu h200 --gpus 26 --tp 13
# a sweep's labels are CSV fields: no grouping comma in 1625
expect 0 "1625,h100-sxm," sweep --vary context=1k..4k:4 --format csv
# a single snapshot holds one scenario, named after its file
"$K" plan --export "$T/one.json" > /dev/null
expect 2 "it holds one scenario, named 'one' after the file" plan --load "$T/one.json" --scenario A
# an engine's knob given to another engine is refused, not ignored
expect 2 "--mem-fraction-static: is an SGLang option (--engine sglang)" plan --engine vllm --mem-fraction-static 0.8
expect 2 "--gpu-memory-utilization: is a vLLM option (--engine vllm)" plan --engine sglang --gpu-memory-utilization 0.8
expect 2 "--parallel: is a llama.cpp option (--engine llama.cpp)" plan --engine vllm --parallel 4
expect 2 "--free-gpu-memory-fraction: is a TensorRT-LLM option" plan --engine llama.cpp --free-gpu-memory-fraction 0.8
expect 2 "--max-num-seqs: llama.cpp counts slots: use --parallel" plan --engine llama.cpp --max-num-seqs 4
# llama.cpp src/llama-cparams.h LLAMA_MAX_SEQ: at most 256 slots, given or picked
expect 2 "--parallel: '257' is not a whole number from 1 to 256" plan --engine llama.cpp --parallel 257
expect 0 "-np 256 -ngl" plan --model granite-4.0-h-tiny --engine llama.cpp --context 1k
# over 2 GPUs the first holds 17 of the 32 layers (llama.cpp's load_tensors: whole layers)
expect 0 "x 32 layers / 17 on the fullest GPU / 144.63 MiB per slot), 256 LLAMA_MAX_SEQ) = min(361, 256); llama.cpp's slot cap (LLAMA_MAX_SEQ) binds before memory" plan --model jamba-1.5-mini --gpus 2 --engine llama.cpp
# the family's measured fraction (presets/gpus/*.json achievable_mbu), the default where none was measured
expect 0 "MBU 0.62: Hopper family: fitted with the all-reduce hop (2.5 us) to 3 dense decode" plan --model llama-3.1-8b --concurrency 8
expect 0 "Speed (8 users decoding at once; MBU 0.70, MFU 0.50)" plan --gpu a100-80gb --model llama-3.1-8b --concurrency 8
expect 0 "fine-grained MoE: its speed rests on a fit by GPU family to DeepSeek-R1" plan --gpu h200 --gpus 8 --model deepseek-v3
# each family's own terms in the step's rows (src/core/speedfamily.c): the experts' read fraction,
# MLA decode's reach reading the cache, the MoE layer's kernels; FP4 GEMMs at the FP4 peak
expect 0 "less: experts read at 85% of peak) / (4.80 TB/s bandwidth x 0.620 MBU)" plan --gpu h200 --gpus 8 --model deepseek-v3
expect 0 "more: MLA decode reads KV at 25% of MBU) / (5.30 TB/s bandwidth x 0.330 MBU)" plan --gpu mi300x --gpus 8 --model deepseek-v3
expect 0 "58 MoE layers x 126.2 us each" plan --gpu mi300x --gpus 8 --model deepseek-v3
expect 0 "GEMMs / (9.00 PFLOP per s (fp4 peak) x 0.500 MFU) +" plan --gpu b200 --gpus 8 --model deepseek-v3 --weight-dtype fp4
expect 0 '"binding_limit":	"prefill"' plan --model llama-3.1-70b --gpus 4 --context 32k --max-ttft 0.5 --format json
expect 0 '"users_at_service_level":	0' plan --model llama-3.1-70b --gpus 4 --context 32k --max-ttft 0.5 --format json
expect 0 "MBU 0.55, MFU 0.40" plan --mbu 0.55 --mfu 0.4
expect 2 "--mbu: '1.5' is out of range" plan --mbu 1.5
expect 2 "--min-tok-s: 'fast' is not a number" plan --min-tok-s fast
expect 2 "--prompt: 9000 tokens is more than --context (8192 tokens)" plan --prompt 9000
expect 2 "--concurrency: '2.5' is not a whole number" plan --concurrency 2.5
expect 0 "16 users " sweep --vary concurrency=1..64 --model llama-3.1-8b --context 4k
expect 0 "Each user keeping 40 tok/s" solve --users 100 --context 8k --model llama-3.1-8b --min-tok-s 40 --gpu h100-sxm
# review 1: --concurrency beyond the fit is warned, in the option's own name; sweep marks such rows
expect 0 "more users decoding at once (--concurrency 500) than fit in memory (56): the speed is for a batch that cannot be held" plan --model llama-3.1-8b --context 8k --concurrency 500
expect 0 "more users decoding at once (--concurrency 500) than fit" plan --model llama-3.1-8b --context 8k --concurrency 500 --format json
expect_not "than fit in memory" plan --model llama-3.1-8b --context 8k --concurrency 56
expect 0 "* more users decoding at once (--concurrency) than fit in memory (USERS)" sweep --vary concurrency=1..256 --model llama-3.1-8b --context 8k
expect 0 "64 users,h100-sxm,llama-3.1-8b,1,8192,bf16,true,56,56,131072,1073741824,60908206490,464692,64,false," sweep --vary concurrency=32..64 --model llama-3.1-8b --context 8k --format csv
# review 2: every sweep format carries the speed columns; a target adds the users that keep it
expect 0 ",concurrency,concurrency_fits,tokens_per_s_per_user,tokens_per_s_total,ttft_seconds" sweep --vary concurrency=1..4 --format csv
expect 0 "| concurrency | concurrency_fits | tokens_per_s_per_user | tokens_per_s_total | ttft_seconds |" sweep --vary concurrency=1..4 --format markdown
expect 0 '"tokens_per_s_total":' sweep --vary concurrency=1..4 --format json
expect 0 ",cost_per_million_input_tokens,cost_per_user_hour,tokens_per_s_per_user_low,tokens_per_s_per_user_high,ttft_seconds_low,ttft_seconds_high" sweep --vary concurrency=1..4 --format csv
expect 0 ",ttft_seconds,users_at_service_level" sweep --vary concurrency=1..4 --min-tok-s 40 --format csv
expect 0 "| ttft_seconds | users_at_service_level |" sweep --vary concurrency=1..4 --max-ttft 1 --format markdown
expect 0 "AT LEVEL: the users that keep 40 tok/s each" sweep --vary concurrency=1..4 --model llama-3.1-8b --context 8k --min-tok-s 40
expect_not "users_at_service_level" sweep --vary concurrency=1..4 --format json
# review 3: only the targets given are named
expect 0 "no speed target; first token within 0.2 s amid the others' decodes (the queue under a request rate: kvplan simulate): the most users that keep it" plan --max-ttft 0.2 --prompt 2k
expect 0 "get the first token within 0.2 s (no speed target; memory binds)" plan --max-ttft 0.2 --prompt 2k
expect_not "keep 0 tok/s" plan --max-ttft 0.2 --prompt 2k
expect 0 "keep 40 tok/s each and the first token within 1 s" plan --min-tok-s 40 --max-ttft 1
expect 0 "Each user keeping 40 tok/s (no first-token target)." solve --users 10 --model llama-3.1-8b --min-tok-s 40 --gpu h100-sxm
expect_not "any 0 s" solve --users 10 --model llama-3.1-8b --min-tok-s 40 --gpu h100-sxm
expect 0 "Each user's first token within 0.5 s (no speed target)." solve --users 10 --model llama-3.1-8b --max-ttft 0.5 --gpu h100-sxm
# review 4: grammar with one of a thing, and "an" before 8,192
expect 0 "Speed (1 user decoding at once;" plan --concurrency 1
expect 0 "1 user x " plan --concurrency 1
expect 0 "an 8,192-token prompt prefilled" plan --context 8k
expect 0 "a 2,048-token prompt prefilled" plan --prompt 2k
expect 0 "an 11,000-token prompt prefilled" plan --context 16k --prompt 11000
expect 0 "1 user at 8k tokens of" solve --users 1 --model llama-3.1-8b --gpu h100-sxm
# an explicit --images 0 means no images; --image-tokens on a model with no tokens per image is noted
expect_not "Images" plan --model llama-3.1-8b --images 0 --image-tokens 100
expect 0 "1 image x 100 tokens = 100 tokens per user" plan --model llama-3.1-8b --image-tokens 100
expect 0 "Llama 3.1 8B's config gives no tokens per image: kvplan counts --image-tokens as given" plan --model llama-3.1-8b --images 2 --image-tokens 100
expect_not "config gives no tokens per image" plan --model gemma-3-27b --images 2
# the sweep header says what is per GPU: under llama.cpp KV/TOKEN is all GPUs' (layer split)
expect 0 "KV/TOKEN is for all GPUs (llama.cpp splits layers across them); KV/USER and POOL are per GPU" sweep --vary gpus=1..4 --engine llama.cpp
expect 0 "vLLM 0.21; KV/TOKEN, KV/USER and POOL are per GPU" sweep --vary gpus=1..2 --engine vllm
# the Copied box closes on the next key, which also acts; help still swallows its key
expect 0 "Context     ━━━━━━━━━━●──────────────── 16k" --dump-screen - --size 100x30 --keys "y<Right>"
expect 0 "Export to: kvplan-llama-3.1-8b" --dump-screen - --size 100x30 --keys "ye"
expect 0 "Context     ━━━━━━━━●────────────────── 8k" --dump-screen - --size 100x30 --keys "?<Right>"
expect 0 "Context     ━━━━━━━━●────────────────── 8k" --dump-screen - --size 100x30 --keys "y<Esc>"
# the planner says when an engine or model drops LoRA slots or images, and z brings them back
expect 0 "LoRA (8 slots x rank 64) is off with this engine: z brings it back" --engine vllm --max-loras 8 --max-lora-rank 64 --dump-screen - --size 100x30 --keys "<Down><Down><Down><Down><Down><Down><Right><Right><Right><Right><Right><Right>"
expect 0 "8 x r64" --engine vllm --max-loras 8 --max-lora-rank 64 --dump-screen - --size 100x40 --keys "<Down><Down><Down><Down><Down><Down><Right><Right><Right><Right><Right>z"
expect 0 "LoRA (8 slots x rank 16) is off with this model: z brings it back" --engine vllm --max-loras 8 --dump-screen - --size 100x30 --keys "<Up><Enter>deepseek-v3<Enter>"
expect 0 "LoRA (4 slots x rank 16) is off with this model: z brings it back" --engine vllm --max-loras 4 --dump-screen - --size 100x30 --keys "<Up><Enter>jamba<Enter>"
expect 0 "image input (2 x 256 tokens) is off with this model: z brings it back" --model gemma-3-27b --images 2 --dump-screen - --size 100x30 --keys "<Up><Enter>llama-3.1-8b<Enter>"
# solve --format json writes JSON (doc/FORMATS.md); options are not abbreviated
expect 0 '"gpu":	"h100-sxm",
			"solved":	true,
			"gpus":	1,' solve --users 10 --model llama-3.1-8b --gpu h100-sxm --format json
expect 0 '"mode":	"max_context"' solve --users 10 --model llama-3.1-8b --max-context --gpu h100-sxm --format=json
expect 0 '"gpu_memory_utilization":' solve --users 10 --model llama-3.1-8b --utilization --engine vllm --gpu h100-sxm --format json
expect 2 "solve: '--for' is not an option (options are not abbreviated: --format?)" solve --users 10 --for context
expect 2 "solve: '--zzz' is not an option" solve --users 10 --zzz 3
expect 0 "| GPU | GPUs | TP x PP x replicas | Users | \$/hour | \$/1M output | \$/1M input | \$/user-hour | tok/s per user | tok/s band | TTFT | TTFT band |" solve --users 10 --gpu h100-sxm --format markdown
expect 2 "--format markdown: only the GPU table of solve --users N is Markdown" solve --users 10 --max-context --format markdown
expect 2 "--format: solve writes text, json or markdown, not xml" solve --users 10 --format xml
expect 2 "--format: solve writes text, json or markdown, not xml" solve --users 10 --format=xml
expect 0 "8,192 cells per slot x 1 slot" plan --engine llama.cpp --parallel 1 --gpu rtx-4090 --model llama-3.1-8b
expect_not "windowed layers read at most their window" plan --model llama-3.1-8b
expect 0 "2 stages x 1 GPU: TP 1, PP 2" plan --model llama-3.1-70b --gpus 2 --pp 2 --engine vllm
expect 0 "(8192 batched tokens, 1 sequence)" plan --engine vllm --max-num-seqs 1
expect 0 "/ 1 GPU (TP))" plan --model qwen3-30b-a3b --gpus 2 --tp 1 --engine vllm
expect 0 "+ 1 user on this rank x" plan --model deepseek-v3 --gpu h200 --gpus 16 --tp 8 --engine sglang --enable-dp-attention --concurrency 1
expect 0 "windowed layers read at most their window" plan --model gemma-3-27b --gpus 2
# review 5: the service-level inputs are listed, with where the MBU came from
expect 0 "  Min tok/s      40 tok/s per user (--min-tok-s)" plan --min-tok-s 40 --max-ttft 1
expect 0 "  Max TTFT       1 s to the first token (--max-ttft)" plan --min-tok-s 40 --max-ttft 1
expect 0 "  MBU            0.62 of peak bandwidth (measured: Hopper family" plan --min-tok-s 40
expect 0 "  MBU            0.70 of peak bandwidth (the default: no measurement" plan --gpu a100-80gb
expect 0 "  MBU            0.60 of peak bandwidth (--mbu)" plan --mbu 0.6
expect 0 "| Concurrency | 31 users decoding at once (those that keep the service level) |" plan --min-tok-s 40 --max-ttft 1 --format markdown
expect 0 "| Max TTFT | 1 s to the first token (--max-ttft) |" plan --min-tok-s 40 --max-ttft 1 --format markdown
expect 0 "| MFU | 0.50 of peak compute (the default) |" plan --min-tok-s 40 --format markdown
# review 7: tensor parallel past one node: network all-reduce, a warning, and solve keeps TP in a node with stages
expect 0 "ring over 16 GPUs across 2 nodes at 50 GB/s (network) plus 60 us (25 us + 2 x 7 hops of 2.5 us)" plan --model llama-3.1-70b --gpus 16 --tp 16
expect 0 "tensor parallel across nodes (--tp 16 over 8-GPU nodes): engines use pipeline stages (--pp) between nodes" plan --model llama-3.1-70b --gpus 16 --tp 16
expect_not "tensor parallel across nodes" plan --model llama-3.1-70b --gpus 16
expect_not "tensor parallel across nodes" plan --model llama-3.1-70b --gpus 16 --tp 8
expect 1 "h100-sxm             -            -        - (needs more GPUs)" solve --users 10 --model llama-3.1-70b --min-tok-s 200 --gpu h100-sxm
expect 0 "h100-sxm            40        8 x 5" solve --users 10 --model llama-3.1-70b --min-tok-s 65 --gpu h100-sxm --max-pp 4 --max-gpus 96
expect 0 "(TP 64 spans nodes of 8 GPUs: its all-reduces run over the network; --max-pp" solve --users 10 --model llama-3.1-70b --min-tok-s 70 --gpu h100-sxm --max-gpus 64
# a GPU with no compute figure cannot check a first-token target: solve never picks it, and says why
expect 1 "NVIDIA A10G (AWS) has no compute figure: the --max-ttft target cannot be checked, so no context serves 2 users" solve --users 2 --max-context --gpu a10g --max-ttft 0.05 --model llama-3.1-8b
expect 0 "; the 0.05 s first-token target cannot be checked (no compute figure for this GPU): 0 users counted" plan --gpu a10g --max-ttft 0.05
expect 0 "a10g                 -            -        - (no compute figure: the --max-ttft target cannot be checked)" solve --users 10 --model llama-3.1-8b --context 8k --max-ttft 0.05
expect 1 "(no compute figure: the --max-ttft target cannot be checked)" solve --users 10 --model llama-3.1-8b --context 8k --max-ttft 0.05 --gpu a10g
# a q4_k_m checkpoint (4.90 bits a weight) reads less per step than bf16: faster per user
q4=$(json_field tokens_per_s_per_user --model llama-3.1-8b --context 8k --concurrency 32 --weight-dtype q4_k_m)
bf=$(json_field tokens_per_s_per_user --model llama-3.1-8b --context 8k --concurrency 32)
if awk -v a="$q4" -v b="$bf" 'BEGIN { exit !(a > b && b > 0) }'; then ok; else bad "q4_k_m $q4 tok/s is not above bf16 $bf"; fi

# --- commands and formats
expect 0 "users fit at 4,000 tokens" plan --model llama-2-7b --context 4000
expect 0 "2 (K,V) x 32 KV heads x 128 head_dim x 2 B (fp16)" plan --model llama-2-7b
expect 0 "| Users |" plan --format markdown
expect 0 '"format":	"kvplan-scenario"' plan --format json
expect 0 "h100-sxm" list gpus
expect 0 "deepseek-v3" list models
expect 0 '"id":	"mi300x"' list gpus --format json
expect 0 '"num_kv_heads":	8' show model llama-3-8b
# standard output is JSON alone (its file on standard error)
if "$K" show gpu h100-sxm 2>/dev/null | python3 -c 'import json,sys; json.load(sys.stdin)'; then ok; else bad "show gpu: standard output is not JSON"; fi
expect 0 "kvplan 0." --version
expect 0 "Usage: kvplan plan" plan --help
expect 0 "DOES NOT FIT" plan --model llama-3.1-405b
# Falcon 7B's 71 heads: --tp 2 as asked warns; without it 2 GPUs are TP 1 x PP 2,
# one copy of the weights (2,087 users; 2 replicas of TP 1 hold 1,880)
expect 0 "the tensor-parallel size does not divide the model's heads" plan --model falcon-7b --gpus 2 --tp 2
expect 0 "Layout         2 stages x 1 GPU: TP 1, PP 2" plan --model falcon-7b --gpus 2
expect 0 "Layout         2 replicas of tensor parallel 1" plan --model falcon-7b --gpus 2 --tp 1
expect 0 "FP8 cache on a GPU without native FP8" plan --gpu a100-80gb --kv-dtype fp8
expect 0 "74.51 GiB each" plan --vram 80GB
expect 0 "80.00 GB each" plan --vram 80GB --units gb

# --- bad options: exit 2 and a message naming the option and value
expect 2 "--gpu: unknown GPU 'h100' (closest: h100-nvl, h100-pcie, h100-sxm" plan --gpu h100
expect 2 "--model: unknown model 'llama3-8b' (closest: llama-3-8b" plan --model llama3-8b
expect 2 "--context: '0': the token count must be at least 1" plan --context 0
expect 2 "--context: '99999999999999' is too many tokens" plan --context 99999999999999
expect 2 "--context: 'lots' is not a token count" plan --context lots
expect 2 "--vram: '80' needs a unit" plan --vram 80
expect 2 "--headroom: '100' is out of range" plan --headroom 100
expect 2 "--headroom: '-1' is out of range" plan --headroom -1
expect 2 "--gpus: '0' is not a whole number from 1 to 65536" plan --gpus 0
expect 2 "--gpus: '100000' is not a whole number" plan --gpus 100000
# a prefix that reaches the context is held to it less one token (doc/MODEL.md, section 4)
expect 0 "--prefix 5000 tokens reaches --context (4000 tokens): held to 3999" plan --context 4000 --prefix 5000
expect 2 "--kv-heads: 7 does not divide the 32 attention heads" plan --kv-heads 7
expect 2 "--kv-heads: DeepSeek-V3 / R1 caches one MLA latent" plan --model deepseek-v3 --kv-heads 8
expect 2 "--kv-dtype: unknown precision 'fp7'" plan --kv-dtype fp7
expect 2 "--format: 'yaml' is not text, json or markdown" plan --format yaml
expect 2 "--avg-context: 9000 tokens is more than --context" plan --context 8000 --avg-context 9000
expect 2 "--bogus: unknown option" plan --bogus
expect 2 "--gpu: needs a value" plan --gpu
expect 2 "'frobnicate' is not a command" frobnicate
expect 2 "--presets: '$T/none' is not a directory" plan --presets "$T/none"
expect 2 "list: 'tpus' is not gpus, models, engines or datasets" list tpus
expect 0 "vllm@0.13" list engines
expect 0 "CUTLASS MLA on Blackwell" list engines
expect 0 '"version":	"trtllm@trt"' list engines --format json
expect 2 "show: unknown model 'llama'" show model llama

# "-0" is zero, never "$-0.00/h" or "-0 %"
expect_not '-0' plan --price -0 --headroom -0
expect 0 '$0.00/h per GPU x 1 GPU' plan --price -0
expect_field 1000 memory_bytes_per_gpu --vram 1,000B
expect_field 131072 context_tokens --context 131,072

# --- engine profiles: each engine's rule, its log lines and launch command
expect 0 "# GPU blocks: 5693" plan --engine vllm@0 --model llama-3-8b --gpu a100-40gb --context 8192 --gpu-total 39.50GiB --non-kv 24.43GiB
expect 0 "Maximum concurrency for 8,192 tokens per request: 11.12x" plan --engine vllm@0 --model llama-3-8b --gpu a100-40gb --context 8192 --gpu-total 39.50GiB --non-kv 24.43GiB
expect 0 "vllm serve meta-llama/Llama-3.1-8B --max-model-len 32768 --gpu-memory-utilization 0.85 --kv-cache-dtype fp8 -tp 2" plan --engine vllm --gpus 2 --context 32k --kv-dtype fp8 --gpu-memory-utilization 0.85
expect 0 "--data-parallel-size 2" plan --engine vllm --gpus 4 --tp 2 --model llama-3.1-70b
expect 0 "KV Cache is allocated. #tokens: 2794979" plan --engine sglang --model llama-3.3-70b --gpu h200 --gpus 8 --context 128k --kv-memory 106.62GiB
expect 0 "python -m sglang.launch_server --model-path meta-llama/Llama-3.3-70B-Instruct --context-length 131072" plan --engine sglang --model llama-3.3-70b --gpu h200 --gpus 8 --context 128k
expect 0 "K (q4_0): 6588.00 MiB, V (f16): 15616.00 MiB" plan --engine llama.cpp@pre-mla --model deepseek-v3 --gpu a100-80gb --gpus 7 --context 8192 --kv-dtype q4_0 --kv-dtype-v fp16
expect 0 "K (f16): 274.50 MiB, V (f16): 0.00 MiB" plan --engine llama.cpp --model deepseek-v3 --gpu a100-80gb --gpus 8 --context 4096 --parallel 1
expect 0 "llama-server -m llama-3.1-8b.gguf -c 32768 -np 4 -ctk q8_0 -ctv q8_0 -fa on" plan --engine llama.cpp --context 8k --parallel 4 --kv-dtype q8_0
expect 0 "trtllm-serve meta-llama/Llama-3.1-8B --max_seq_len 8192 --kv_cache_free_gpu_memory_fraction 0.90" plan --engine trtllm
expect_field 2 replicas --gpus 4 --tp 2 --model llama-3.1-70b
expect 2 "--engine: 'vllx' is not an engine" plan --engine vllx
expect 0 "NO USER FITS at 1,099,511,627,776 tokens under vLLM 0.21" plan --engine vllm --gpus 65536 --tp 128 --context 1099511627776 --allow-long-context --model llama-3.1-405b
expect 2 "--kv-dtype: vllm has no q8_0 cache (auto, fp16, bf16 or fp8)" plan --engine vllm --kv-dtype q8_0
expect 2 "--kv-dtype: q4_k_m is a weight format" plan --kv-dtype q4_k_m
expect 2 "--kv-dtype: trtllm has no q4_0 cache" plan --engine trtllm --kv-dtype q4_0
expect 0 "this engine on this GPU is outside what kvplan models (the serving engines on NVIDIA and AMD GPUs, TensorRT-LLM on NVIDIA's only)" plan --engine trtllm --gpu mi300x --model llama-3.1-70b --gpus 8 --tp 4
expect 0 "this engine on this GPU is outside what kvplan models" plan --engine vllm --gpu gaudi3 --model llama-3.1-8b
expect 0 "the draft is more than a quarter of the model's size" plan --model llama-3.1-8b --draft-model llama-3.1-70b
expect_not "more than a quarter" plan --model llama-3.1-70b --gpus 4 --draft-model llama-3.2-1b
expect 0 "kv_cache_config: dtype: fp8" plan --engine trtllm --kv-dtype fp8
# import-hf reads torch's own spellings of a precision
printf '{"model_type":"llama","num_hidden_layers":2,"hidden_size":64,"num_attention_heads":4,"num_key_value_heads":2,"intermediate_size":128,"vocab_size":100,"max_position_embeddings":512,"torch_dtype":"float8_e4m3fn"}' > "$T/f8.json"
expect 0 '"weight_dtype":	"fp8"' import-hf "$T/f8.json"
# --export - is the output itself, one JSON document; the planner exports with e
expect 0 '"format":	"kvplan-scenario"' plan --export - --format json
expect 2 "--export: writes the snapshot of \`kvplan plan\`" --export "$T/x.json" --dump-screen -
# a target kvplan cannot check is null in JSON, and the gate says why
expect 0 '"users_at_service_level":	null' plan --gpu a10g --max-ttft 1 --format json
expect 1 "--require-users: the service level cannot be checked (no compute figure for a10g)" plan --gpu a10g --max-ttft 1 --require-users 1
# per replica: a GPU holds its stage's layers; under DP attention a token lives on one rank
expect_field 516096 kv_bytes_per_token_per_replica --model llama-3.1-405b --gpu h200 --gpus 16 --tp 8 --pp 2
expect_field 70272 kv_bytes_per_token_per_replica --model deepseek-v3 --engine sglang --gpu h200 --gpus 8 --enable-dp-attention
# the generic comparison stays when engine flags are given
expect 0 '"generic":' plan --engine vllm --max-num-seqs 4 --format json
# another engine than a loaded snapshot's drops that engine's flags
"$K" plan --engine vllm --gpu-memory-utilization 0.8 --kv-dtype fp8 --export "$T/g.json" >/dev/null 2>&1
expect 0 "under SGLang 0.5" plan --load "$T/g.json" --engine sglang
expect 0 "under llama.cpp" plan --load "$T/g.json" --engine llama.cpp
# every report names the release its engine's rule is of (doc/ENGINES.md), the newest by default
expect 0 '"engine_version":	"0.21",' plan --engine vllm --format json
# "GPU KV cache size" by release (issue 22): 0.21.0 on int(max_concurrency x
# max_model_len), 0.18 to 0.20 num_blocks // groups x 16 (test_vllm_log_rule.c)
expect 0 "GPU KV cache size: 1,095,405 tokens" plan --model gpt-oss-120b --gpu h200 --context 131072 --kv-memory 40GiB --engine vllm@0.21.0
expect 0 "GPU KV cache size: 582,528 tokens" plan --model gpt-oss-120b --gpu h200 --context 131072 --kv-memory 40GiB --engine vllm@0.20.1
expect 0 "vllm@0.20          0.20               0.18 to 0.20" list engines
expect 0 '"engine_title":	"TensorRT-LLM 0.19",' plan --engine trtllm@0.19 --format json
expect 0 '"engine_version":	null,' plan --format json
expect 0 "Engine: vLLM 0.13" plan --engine vllm@0.13
# a release as run keeps the rule's name and says the release asked for (issue 22):
# vllm@0.11 is planned with the vllm@0.13 rule, and the reports, JSON and snapshots say 0.11
expect 0 "H100 SXM5 80GB, vLLM 0.13 rule, for 0.11" plan --engine vllm@0.11
expect 0 "Engine: vLLM 0.13 rule, for 0.11" plan --engine vllm@0.11
expect 0 "under SGLang 0.5 rule, for 0.5.6" plan --engine sglang@0.5.6
expect 0 '"release_asked":	"0.11"' plan --engine vllm@0.11 --format json
expect 0 '"name":	"vllm@0.13",' plan --engine vllm@0.11 --format json
expect_not "release_asked" plan --engine vllm@0.13 --format json
expect_not "rule, for" plan --engine vllm@1
"$K" plan --engine vllm@0.11 --export "$T/asked.json" >/dev/null 2>&1
expect 0 "vLLM 0.13 rule, for 0.11" plan --load "$T/asked.json"
sed 's/"release_asked":\t"0.11"/"release_asked":\t"0.20"/' "$T/asked.json" >"$T/asked2.json"
expect 2 "release_asked: '0.20' is not a release of the vllm@0.13 rule" plan --load "$T/asked2.json"
expect 0 "| Budget | SGLang 0.5's rule |" plan --engine sglang --format markdown
expect 0 "trtllm@0.7         0.7                a model's own build.py" list engines
expect 0 "llama.cpp@mla-kv" __complete ids engine
# sweep's kv-dtype axis is the engine's own cache types, in every format
expect_not "int4" sweep --vary kv-dtype=all --engine vllm --format csv
expect 0 "fp8," sweep --vary kv-dtype=all --engine vllm --format csv
expect_not "q4_k_m" sweep --vary kv-dtype=all
# a bad file in a --presets directory names the option
mkdir -p "$T/badpresets" && printf "{" > "$T/badpresets/bad.json"
expect 2 "--presets: $T/badpresets/bad.json:1:2" plan --presets "$T/badpresets"
# the host tier's parked user leaves out the shared prefix, and says so
expect 0 "less the 2,048-token shared prefix" plan --engine vllm --host-kv 100GB --avg-context 4k --prefix 2k
# SGLang under DP attention: each rank takes max_running_requests // dp_size (tp_worker.py)
expect 0 "40 users fit at 1,024 tokens each under SGLang 0.5" plan --engine sglang --enable-dp-attention --gpus 4 --model qwen3-30b-a3b --context 1k --max-running-requests 40
expect 0 "48 users fit at 4,096 tokens each under SGLang 0.5" plan --engine sglang --enable-dp-attention --gpus 8 --gpu h200 --model deepseek-v3 --speculative-method mtp --context 4k
# a sweep over models with an option some lack: those rows say why, the others plan
expect 0 "deepseek-v3.2 " sweep --vary model=all --speculative-method mtp --gpu h200 --gpus 8
expect 0 "(--speculative-method: mtp: the preset of falcon-7b holds no MTP layers" sweep --vary model=all --speculative-method mtp --gpu h200 --gpus 8
expect 0 "each model on NVIDIA H200 SXM 141GB" sweep --vary model=all --gpu h200 --gpus 8
# the default layout is the one serving the most users (core/scenario_layout.c best_layout): the
# plan says so, of how many that run, and --help no longer says "one TP group"
expect 0 "Layout basis   the one serving the most users of the 4 that run, TP in a node before stages (MLA's latent kept at TP, as engines deploy it; T offers stages); --tp/--pp to pin" plan --model deepseek-v3 --engine vllm --gpus 8 --gpu h200
expect 0 '"layout_basis":	"most_users",
		"layouts_run":	4,' plan --model deepseek-v3 --engine vllm --gpus 8 --gpu h200 --format json
expect 0 "| Layout basis | the one serving the most users of the 4 that run, TP in a node before stages (MLA's latent kept at TP, as engines deploy it; T offers stages); --tp/--pp to pin |" plan --model deepseek-v3 --engine vllm --gpus 8 --gpu h200 --format markdown
expect 0 '"layout_basis":	"given",' plan --model deepseek-v3 --engine vllm --gpus 8 --gpu h200 --tp 8 --format json
expect 0 '"layout_basis":	"only",' plan --format json
expect 0 "layout of those that run (TP within a node, stages," plan --help
# SGLang sets max_running_requests to 48 for EAGLE/STANDALONE drafting (server_args.py _handle_speculative_decoding)
expect 0 "48 max_running_requests (48 with a draft)" plan --engine sglang --model deepseek-v3 --gpu h200 --gpus 8 --speculative-method mtp
# ... and with state layers as many state slots, the whole name (it was cut at 47 bytes)
expect 0 "48 max_running_requests (48 with a draft = slots)) = min(60, 48)" plan --model qwen3-next-80b-a3b --engine sglang --gpus 4 --speculative-method mtp --context 32k
# the host tier counts users on the GPUs at the tokens in use, as it sizes parked caches
expect 0 "; 8 more parked in host memory" plan --context 32k --avg-context 8k --host-kv 64GiB
expect 2 "--engine: 'vllm@seven': not a release of vllm" plan --engine vllm@seven
expect 2 "--tp: 3 does not divide --gpus 4" plan --gpus 4 --tp 3
expect 2 "--gpu-memory-utilization: '1.5' is not a fraction" plan --engine vllm --gpu-memory-utilization 1.5
expect 2 "--non-kv: '12' needs a unit" plan --engine vllm --non-kv 12

# bytes past 2^53 stay exact in JSON (written as digits, not rounded doubles)
expect 0 '"user_bytes_per_gpu":	70272000000000000' plan --engine vllm --context 1000000000000 --allow-long-context --model deepseek-v3 --format json

# --- calibrate: real logs, and logs that are cut, mixed or unknown
L="$HERE/data/logs"
expect 0 "vLLM V0 log, 4 lines" calibrate "$L/vllm-03.log"
expect 0 "matches: the log implies 131128 B" calibrate "$L/vllm-03.log" --model llama-3-8b --gpu a100-40gb
expect 0 "Outside weights and KV: 24.43 GiB per GPU" calibrate "$L/vllm-03.log" --model llama-3-8b --gpu a100-40gb
expect 0 "KV bytes per token the log implies: 40957 B" calibrate "$L/sglang-02.log"
expect 0 "KV bytes per token the log implies: 2842112 B" calibrate "$L/llamacpp-03.log"
expect 0 "MISMATCH" calibrate "$L/llamacpp-03.log" --model deepseek-v3
expect 0 "Ollama (llama.cpp) log" calibrate "$L/ollama.log"
expect 0 "matches: the log implies 69632 B" calibrate "$L/llamacpp-new.log" --model llama-3.1-8b
expect 0 "TGI log" calibrate "$L/tgi-01.log"
expect 0 "Not in this log (truncated or trimmed?):" calibrate "$L/truncated.log"
expect 2 "no engine recognised in 3 lines" calibrate "$L/unknown.log"
expect 2 "lines from several engines (vLLM V0, SGLang)" calibrate "$L/mixed.log"
expect 2 "cannot open" calibrate "$L/none.log"
"$K" calibrate "$L/vllm-03.log" --model llama-3-8b --gpu a100-40gb --save "$T/cal.json" > /dev/null
expect 0 "11 users fit at 8,192 tokens each under vLLM V0" plan --model llama-3-8b --gpu a100-40gb --context 8192 --calibration "$T/cal.json"
# a V1 log gives no memory total, only the tokens its cache holds: the plan holds as many
"$K" calibrate "$L/vllm-v1-startup.log" --model llama-3.1-8b --save "$T/v1.json" > /dev/null
expect 0 '"kv_tokens":	442432,' plan --model llama-3.1-8b --context 32k --calibration "$T/v1.json" --format json
expect 2 "model: the log is of llama-3.1-8b, this plan of llama-3.1-70b" plan --model llama-3.1-70b --calibration "$T/v1.json"
# a windowed model under vLLM 0.21 (a log made of kvplan's own figures for Gemma 3 27B on an
# H100 at 32k): its "GPU KV cache size" is max concurrency x max model len, no token of the
# pool, so the bytes a token it implies are not compared with the model's; the line is
expect 0 "which for windowed layers counts no token of the pool" calibrate "$L/vllm-gemma3-windowed.log" --model gemma-3-27b --gpu h100-sxm
expect 0 "KV tokens: predicted 79511, logged 79511 (+0.0%)" calibrate "$L/vllm-gemma3-windowed.log" --model gemma-3-27b --gpu h100-sxm
# a log that states no release (an excerpt) is read with the newest rule, said so, and
# --engine ENGINE@RELEASE names its own (the log's engine only, never over a release the log
# states); its KV memory set beside kvplan's; a log of another model than --model's is named
expect 0 "the log states no release: the newest rule; --engine vllm@RELEASE plans the log's own" calibrate "$L/vllm-09.log" --model gpt-oss-120b --gpu h100-sxm
expect 0 "KV memory: predicted 2.37 GiB, logged 1.71 GiB (+38.6%)" calibrate "$L/vllm-09.log" --model gpt-oss-120b --gpu h100-sxm
expect 0 "kvplan without the log (vllm@0.13, h100-sxm)" calibrate "$L/vllm-09.log" --model gpt-oss-120b --gpu h100-sxm --engine vllm@0.11
expect 2 "is a vLLM V1 log; --engine names the release of a log that states none" calibrate "$L/vllm-09.log" --model gpt-oss-120b --gpu h100-sxm --engine sglang
expect 2 "states its release (0.8.5), whose rule it is read with" calibrate "$L/vllm-v1-startup.log" --model llama-3.1-8b --engine vllm@0.21
expect 0 "vLLM V1 log, 1 line" calibrate "$L/vllm-09.log" --model gpt-oss-120b --gpu h100-sxm
expect 0 "names the model llama-3.3-70b ('meta-llama/Llama-3.3-70B-Instruct', from its Hugging Face id), not deepseek-v4-flash" calibrate "$L/sglang-02.log" --model deepseek-v4-flash --gpu h200
expect 0 "the log's weights (14.96 GiB a GPU) are not gemma-3-27b's (51.10 GiB): a log of another model" calibrate "$L/vllm-03.log" --model gemma-3-27b
expect 0 "Weights: predicted 14.96 GiB, logged 14.96 GiB (-0.0%)" calibrate "$L/vllm-03.log" --model llama-3-8b --gpu a100-40gb
# a log that states no utilization: vLLM's default said, --gpu-memory-utilization gives the log's
# (vllm-09 at 0.95 under 0.11's rule: 1.83 GiB against the logged 1.71); refused over a log's own
expect 0 "KV memory: predicted 1.83 GiB, logged 1.71 GiB (+6.9%)" calibrate "$L/vllm-09.log" --model gpt-oss-120b --gpu h100-sxm --engine vllm@0.11 --gpu-memory-utilization 0.95
expect 0 "(the log states no gpu_memory_utilization: vLLM's default; --gpu-memory-utilization gives the log's)" calibrate "$L/vllm-09.log" --model gpt-oss-120b --gpu h100-sxm
expect 2 "--gpu-memory-utilization: $L/vllm-03.log states its own (0.9, line 1)" calibrate "$L/vllm-03.log" --model llama-3-8b --gpu a100-40gb --gpu-memory-utilization 0.95
# a release candidate before the first a model is served from (1.3.0rc9) is refused
expect 2 "TensorRT-LLM 1.3.0rc8 predates it, which it serves from 1.3.0rc9" plan --model qwen3.6-35b-a3b --engine trtllm@1.3.0rc8
expect 0 "TensorRT-LLM 1.x rule, for 1.3.0rc10" plan --model qwen3.6-35b-a3b --engine trtllm@1.3.0rc10
# SGLang logs K and V sizes per rank: 2 x 53.31 GB, more than an H100 holds (an H200's)
"$K" calibrate "$L/sglang-02.log" --model llama-3.3-70b --gpu h200 --save "$T/sg.json" > /dev/null
expect 0 '"kv_tokens":	2794979,' plan --model llama-3.3-70b --gpu h200 --gpus 8 --calibration "$T/sg.json" --format json
printf '{"format": "kvplan-calibration", "format_version": 1, "engine": "vllm", "figures": {}}\n' > "$T/emptycal.json"
expect 2 "nothing to calibrate" plan --calibration "$T/emptycal.json"
printf '{"format": "kvplan-calibration", "format_version": 1, "engine": "vllx"}\n' > "$T/badcal.json"
expect 2 "badcal.json:1:55: engine: 'vllx' is not an engine" plan --calibration "$T/badcal.json"
# --save holds for one model (it wrote "model": "" and applied to any), whole bytes, and
# refuses a log plan --calibration would refuse
expect 2 "calibrate: --save needs --model ID" calibrate "$L/vllm-03.log" --save "$T/nomodel.json"
if [ -e "$T/nomodel.json" ]; then bad "calibrate --save without --model wrote a file"; else ok; fi
# a floor's argument with the decimals that floor as the result does (53,450,826,820 B /
# 452,984,832 B = 117.9966: "floor(118.00) = 117" did not compute)
expect 0 "= floor(117.997)" plan --model llama-3.1-70b --gpus 12 --tp 2 --pp 3
# a benchmark that names its model (vllm bench serve's model='meta-llama/Llama-3.1-8B-Instruct')
# saves without --model: the model is the preset the file names
expect 0 "saved $T/benchmodel.json (use: kvplan plan --model llama-3.1-8b" \
    calibrate "$HERE/data/bench/vllm-serve.txt" --save "$T/benchmodel.json"
"$K" calibrate "$L/vllm-03.log" --model llama-3-8b --gpu a100-40gb --save "$T/whole.json" > /dev/null
if grep -qF '"weights":	16063177687,' "$T/whole.json" && grep -qF '"model":	"llama-3-8b",' "$T/whole.json"; then ok
else bad "calibrate --save: sizes not whole bytes or no model in $T/whole.json"; fi
expect 2 "truncated.log: nothing to calibrate: the log gives neither the GPU's total and the memory outside the KV cache nor the KV cache's size (truncated or trimmed?); $T/cut.json not saved" calibrate "$L/truncated.log" --model llama-3.1-8b --save "$T/cut.json"
if [ -e "$T/cut.json" ]; then bad "calibrate --save wrote a log with nothing to calibrate"; else ok; fi

# file names are printed escaped, never as controls
esc=$(printf '\033')
cp "$L/vllm-03.log" "$T/x${esc}[2J.log"
expect 0 'x\x1b[2J.log: vLLM V0 log' calibrate "$T/x${esc}[2J.log"
mkdir -p "$T/escdir" && cp "$HERE/hostile/data/dup-a.json" "$T/escdir/y${esc}]2;t.json"
expect 0 'y\x1b]2;t.json' show model h --presets "$T/escdir"

# --- layouts past one node
expect 0 "Layout         2 stages x 8 GPUs: TP 8, PP 2" plan --model llama-3.1-405b --gpu h100-sxm --gpus 16 --tp 8 --pp 2 --engine vllm --context 128k
expect 0 "-tp 8 -pp 2" plan --model llama-3.1-405b --gpu h100-sxm --gpus 16 --tp 8 --pp 2 --engine vllm --context 128k
expect 2 "--pp: 3 stages do not divide --gpus 16" plan --model llama-3.1-405b --gpus 16 --pp 3
expect 2 "--pp: '0' is not a whole number" plan --model llama-3-8b --pp 0
expect 2 "--pp: llama.cpp already splits layers" plan --model llama-3-8b --gpus 2 --pp 2 --engine llama.cpp
# A replica over nodes (issue 21, item 2): vLLM spreads one evenly over its
# nodes (vllm/config/parallel.py, ParallelConfig.__post_init__ asserts
# world_size % nnodes == 0), so 13 GPUs of TP 1 x PP 13 over nodes of 8 and
# 5 are refused, and 12 as TP 4 x PP 3 (6 a node) would split a TP group;
# the default of 12 is TP 2 x PP 6, each node's line with its 6 GPUs and
# ranks. TensorRT-LLM's mpirun takes unequal nodes: its -H names each one's.
expect 2 "--pp: vLLM spreads a replica over its nodes evenly" plan --model llama-3.1-70b --gpus 13 --tp 1 --pp 13 --engine vllm
expect 2 "puts 6 GPUs on each of its 2 nodes, a TP group split between two" plan --model llama-3.1-70b --gpus 12 --tp 4 --pp 3 --engine vllm
expect 0 "# node 1 of 2 (6 GPUs, ranks 6-11)" plan --model llama-3.1-70b --gpus 12 --engine vllm
expect 0 'mpirun -H "$NODE_1":8,"$NODE_2":5' plan --model llama-3.1-70b --gpus 13 --engine trtllm
expect 0 "(1 x TP 4 x PP 3)" plan --model llama-3.1-70b --gpus 12
expect 2 "--tp: 4 x 2 stages (--pp) does not divide --gpus 4" plan --model llama-3-8b --gpus 4 --tp 4 --pp 2
expect 2 "--enable-dp-attention: is an SGLang option" plan --model deepseek-v3 --gpus 8 --enable-dp-attention --engine vllm
expect 0 "DP attention over the TP ranks" plan --model deepseek-v3 --gpu h200 --gpus 8 --engine sglang --enable-dp-attention
expect 0 "experts over all 16 GPUs" plan --model deepseek-v3 --gpu h200 --gpus 16 --tp 8 --engine vllm --enable-expert-parallel --context 32k
expect 2 "--enable-expert-parallel: llama-3-8b has no MoE experts to spread" plan --model llama-3-8b --engine vllm --enable-expert-parallel
expect 2 "--enable-expert-parallel: is an option of vLLM's V1 engine" plan --model mixtral-8x7b --engine trtllm --enable-expert-parallel
# SGLang's --ep-size (server_args.py, 0.5): whole experts over the TP ranks
expect 2 "--enable-expert-parallel: SGLang places whole experts on each TP rank: it needs --tp above 1" plan --model mixtral-8x7b --engine sglang --enable-expert-parallel
expect 0 " --tp 8 --ep-size 8" plan --model mixtral-8x7b --gpus 8 --engine sglang --enable-expert-parallel

# speculative decoding: a draft model, DeepSeek's MTP layer, and their errors
expect 0 "Draft KV per token  16 draft layers x 2 (K,V) x 8 KV heads x 64 head_dim x 2 B (bf16)" plan --model llama-3.1-8b --draft-model llama-3.2-1b
expect 0 "= 32,768 B (32 KiB) per GPU" plan --model llama-3.1-8b --draft-model llama-3.2-1b
expect 0 "draft model" plan --model llama-3.1-70b --gpus 4 --draft-model llama-3.2-1b --num-speculative-tokens 4
expect 0 "Tokens + lookahead  8,192 context + 4 speculative tokens" plan --model llama-3.1-70b --gpus 4 --draft-model llama-3.2-1b --num-speculative-tokens 4
expect_field 55 max_users --model llama-3.1-70b --gpus 4 --draft-model llama-3.2-1b --num-speculative-tokens 4
expect_field 62 max_users --model llama-3.1-70b --gpus 4
expect_field 617907200 draft_weights_bytes_per_gpu --model llama-3.1-70b --gpus 4 --draft-model llama-3.2-1b --num-speculative-tokens 4
expect_field 8192 draft_kv_bytes_per_token_per_gpu --model llama-3.1-70b --gpus 4 --draft-model llama-3.2-1b
expect_field 1451258528 draft_weights_bytes_per_gpu --model deepseek-v3 --gpu h200 --gpus 8 --speculative-method mtp
expect 0 "MTP head" plan --model deepseek-v3 --gpu h200 --gpus 8 --speculative-method mtp --engine sglang
expect 0 "--speculative-algorithm EAGLE --speculative-num-steps 1" plan --model deepseek-v3 --gpu h200 --gpus 8 --speculative-method mtp --engine sglang
expect 0 '"method":"draft_model","model":"meta-llama/Llama-3.2-1B","num_speculative_tokens":3' plan --model llama-3.1-8b --draft-model llama-3.2-1b --num-speculative-tokens 3 --engine vllm
expect 0 "-md llama-3.2-1b.gguf --draft-max 16" plan --model llama-3.1-8b --draft-model llama-3.2-1b --engine llama.cpp
expect 0 "| Speculative | draft Llama 3.2 1B (llama-3.2-1b), 3 speculative tokens per step" plan --model llama-3.1-8b --draft-model llama-3.2-1b --num-speculative-tokens 3 --format markdown
expect 0 "vocabulary is not the model's" plan --model llama-3.1-8b --draft-model qwen2.5-0.5b
expect_not "Draft" plan --model llama-3.1-8b
expect 2 "--draft-model: unknown model 'llama-3.2-1' (closest: llama-3.2-1b" plan --draft-model llama-3.2-1
expect 2 "--num-speculative-tokens: " plan --draft-model llama-3.2-1b --num-speculative-tokens 65
expect 2 "--num-speculative-tokens: " plan --draft-model llama-3.2-1b --num-speculative-tokens 0
expect 2 "--num-speculative-tokens: needs --draft-model or --speculative-method mtp" plan --num-speculative-tokens 3
expect 2 "--speculative-method: mtp: the preset of llama-3.1-8b holds no MTP layers" plan --speculative-method mtp
expect 2 "--speculative-method: 'eagle9' is not draft, mtp or none" plan --speculative-method eagle9
expect 2 "--speculative-method: draft needs --draft-model ID" plan --speculative-method draft
# the host memory tier: users parked in host memory and what one costs to bring back
expect 0 "14 users fit at 32,768 tokens each; 50 more parked in host memory" plan --context 32k --host-kv 256GiB
expect 0 "= 67.11 ms" plan --context 32k --host-kv 256GiB
expect 0 "Returning user" plan --context 32k --host-kv 256GiB --prefix-hit-rate 0.8
expect 0 '"users_beyond_gpus":	50' plan --context 32k --host-kv 256GiB --format json
expect 0 "--kv-offloading-backend native --kv-offloading-size 512" plan --context 32k --gpus 2 --tp 2 --engine vllm --host-kv 256GiB
expect 0 "--enable-hierarchical-cache --hicache-size 274" plan --context 32k --engine sglang --host-kv 256GiB
expect 0 "| Host KV | 256.00 GiB of host memory per GPU" plan --context 32k --host-kv 256GiB --format markdown
expect 2 "--host-kv: '-64GiB' is not a size" plan --host-kv -64GiB
expect 2 "--host-kv: 'lots' is not a size" plan --host-kv lots
expect 2 "--host-kv: '2048TiB' is more than 1 PiB per GPU" plan --host-kv 2048TiB
expect 2 "--prefix-hit-rate: '1.5' is out of range (0 to 1)" plan --host-kv 64GiB --prefix-hit-rate 1.5
expect 2 "--prefix-hit-rate: '-0.1' is out of range (0 to 1)" plan --host-kv 64GiB --prefix-hit-rate -0.1
expect 2 "--prefix-hit-rate: 'half' is not a number" plan --host-kv 64GiB --prefix-hit-rate half
expect 2 "--prefix-hit-rate: the share of returning users found in host memory needs a host tier" plan --prefix-hit-rate 0.5
# a tier needs a server: none when no user fits, none under llama.cpp; SGLang's whole GB
# and its refusal of a host pool no larger than the device's (memory_pool_host.py)
expect 0 '"users_beyond_gpus":	0' plan --model llama-3.1-70b --gpu l4 --host-kv 100GiB --format json
expect 0 "no user fits on the GPUs: no server runs to park caches for" plan --model llama-3.1-70b --gpu l4 --host-kv 100GiB
expect 0 "; llama.cpp has no host tier" plan --engine llama.cpp --host-kv 256GiB --context 32k
expect 0 "SGLang refuses a host pool that holds no more tokens than the GPU's pool" plan --model llama-3.1-70b --gpus 4 --engine sglang --host-kv 100MB
expect 0 "1.00 GB host pool (--hicache-size)" plan --model llama-3.1-70b --gpus 4 --engine sglang --host-kv 100MB --units gb
expect_not "SGLang refuses a host pool" plan --model llama-3.1-70b --gpus 4 --engine sglang --host-kv 1TB
expect 0 "kv_cache_config: host_cache_size: 68719476736" plan --engine trtllm --host-kv 64GiB
expect 0 "speculative_config: decoding_type DraftTarget, max_draft_len 4" plan --model llama-3.1-70b --gpus 4 --engine trtllm --draft-model llama-3.2-1b --num-speculative-tokens 4
expect 0 "= n/a" plan --model llama-3.1-70b --gpu b200 --gpus 4 --context 32k --host-kv 100GB
expect 0 "56 users fit" plan --host-kv 0
# SGLang's default mem-fraction-static, term by term (server_args.py): 14 GiB + 6 GiB for a draft
expect 0 "= 20.00 GiB per GPU" plan --model llama-3.1-70b --gpus 4 --engine sglang --draft-model llama-3.2-1b
expect 0 "= 0.749" plan --model llama-3.1-70b --gpus 4 --engine sglang --draft-model llama-3.2-1b
expect 0 "h100-sxm            32        8x4x1" solve --users 20 --context 128k --model llama-3.1-405b --gpu h100-sxm --engine vllm --max-gpus 32 --max-pp 4

# --- solve and sweep
# the current rule's profile masks top-k/top-p with Triton (no sort, vllm PR #33538):
# 6 H200 replicas hold 504 users at 32k (under vllm@0.17's sort, 4.65 GiB a GPU, 7 are
# needed)
expect 0 "h200                48        8 x 6      504" solve --users 500 --context 32k --model llama-3.1-70b --gpu h100-sxm --gpu h200 --engine vllm
expect 0 "h200                56        8 x 7      574" solve --users 500 --context 32k --model llama-3.1-70b --gpu h100-sxm --gpu h200 --engine vllm@0.17
expect 0 "(needs more GPUs)" solve --users 500 --context 32k --model llama-3.1-70b --gpu t4 --gpu h200
expect 0 "longest context serving 10 users on 1 x NVIDIA H100 SXM5 80GB (generic): 46,469 tokens" solve --users 10 --max-context --model llama-3.1-8b --gpu h100-sxm
expect 0 "longest context serving 10 users on 1 x NVIDIA L4" solve --users 10 --gpu l4 --max-context --model llama-3.1-8b
expect 1 "no --gpu-memory-utilization serves 40 users" solve --users 40 --utilization --engine vllm --model llama-3.1-8b --context 16k
expect 0 "smallest --gpu-memory-utilization serving 20 users at 16384 tokens" solve --users 20 --utilization --engine vllm --model llama-3.1-8b --context 16k
expect 2 "solve: --users N is required" solve --model llama-3.1-8b
expect 0 "16k,h100-sxm,llama-3.1-8b,1,16384,bf16,true,28,28,131072,2147483648" sweep --vary context=1k..16k --model llama-3.1-8b --format csv
expect 0 "| fp8 | h100-sxm |" sweep --vary kv-dtype=all --format markdown
expect 0 '"value":	"deepseek-v3"' sweep --vary model=all --format json
expect 0 "mi300x" sweep --vary gpu=all
expect 2 "--vary: 'colour' is not context, gpus, concurrency, kv-dtype, gpu, model, request-rate or max-concurrency" sweep --vary colour=all
expect 2 "--vary: 'context=8k..1k'" sweep --vary context=8k..1k
expect 2 "--vary: 'gpus=1..8' and 'gpus=1..4' vary the same axis: give each axis once" sweep --vary gpus=1..8 --vary gpus=1..4
expect 2 "--vary: 'gpus=0..8': the GPU count must be at least 1" sweep --vary gpus=0..8
expect 2 "--vary: 'concurrency=0..8': the number of users must be at least 1" sweep --vary concurrency=0..8

# sweep --format json streams its rows (640k rows took 1.2 GB held in
# one array): 100k rows stay in a few MiB, and the whole output is one array
rows=$("$K" sweep --vary model=all --vary gpus=1..4 --format json | /usr/bin/python3 -c 'import json, sys; print(len(json.load(sys.stdin)))')
if [ "$rows" = "$(( $("$K" list models | tail -n +2 | wc -l) * 4 ))" ]; then ok; else bad "sweep json: $rows rows"; fi
if ! ldd "$K" 2>/dev/null | grep -q libasan; then
    kib=$(/usr/bin/python3 -c 'import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$K" sweep --vary context=1k..1M:50000 --vary gpus=1..2 --format json)
    if [ "$kib" -lt 32768 ]; then ok; else bad "sweep json of 100k rows used $kib KiB"; fi
fi

# --- import-hf errors
printf '{"model_type": "llama", "hidden_size": 4096}\n' > "$T/cfg.json"
expect 2 "cfg.json:1:1: num_hidden_layers: missing" import-hf "$T/cfg.json"
printf '{"model_type": "rwkv", "num_hidden_layers": 4}\n' > "$T/cfg2.json"
expect 2 "cfg2.json:1:2: model_type: 'rwkv' is not a family kvplan can count" import-hf "$T/cfg2.json"
expect 0 '"windowed_layers":	52' import-hf "$HERE/data/hf/gemma-3-27b.json"
expect 0 "sliding_window 2047 left out" import-hf "$HERE/data/hf/phi-3-mini-4k.json"
expect 0 "deepseek family, 1026.408B parameters" import-hf "$HERE/data/hf/kimi-k2.json"
expect 0 "glm4_moe family, 106.852B parameters" import-hf "$HERE/data/hf/glm-4.5-air.json"
expect 0 "minimax_m2 family, 228.690B parameters" import-hf "$HERE/data/hf/minimax-m2.json"
# glm4_moe by hand: 2 layers (1 dense), h 8, 2 heads / 1 kv of 4, 4 experts of 4 + 1 shared, vocab 10:
# attention 192 + q/k/v biases 16 + q/k norms 8; dense MLP 384; MoE 384 + 96 + router 32 + bias 4;
# norms 16 a layer, embeddings 160, final norm 8 = 1532; without biases and q/k norms 1484
glm='"model_type": "glm4_moe", "num_hidden_layers": 2, "hidden_size": 8, "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 4, "intermediate_size": 16, "vocab_size": 10, "n_routed_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 4, "n_shared_experts": 1, "first_k_dense_replace": 1, "tie_word_embeddings": false'
printf '{%s, "attention_bias": true, "use_qk_norm": true}\n' "$glm" > "$T/glm.json"
expect 0 '"params":	1532,' import-hf "$T/glm.json"
printf '{%s}\n' "$glm" > "$T/glm2.json"
expect 0 '"params":	1484,' import-hf "$T/glm2.json"
# minimax_m2 by hand: 1 layer, h 8, 2 heads / 1 kv of 4, 4 experts of 4 (intermediate_size), vocab 10:
# attention 192 + q/k norms over all heads 12; experts 384 + router 32 + bias 4; norms 16; 160 + 8 = 808
printf '{"model_type": "minimax_m2", "num_hidden_layers": 1, "hidden_size": 8, "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 4, "intermediate_size": 4, "vocab_size": 10, "num_local_experts": 4, "num_experts_per_tok": 2}\n' > "$T/mm.json"
expect 0 '"params":	808,' import-hf "$T/mm.json"

# --- hybrids of attention and state layers (doc/MODEL.md, state-space layers)
# qwen3_next by hand: 4 layers (interval 4: 1 attention, 3 gated DeltaNet), h 8, 2 heads / 1 kv
# of 4, key heads 1 x 2, value heads 2 x 2, conv 2, 2 experts of 4 top-1, shared 4, vocab 10:
# attention 192 + output gate 64 + q/k norms 8 = 264; DeltaNet qkvz 96 + ba 32 + conv 16 +
# A/dt 4 + norm 2 + out 32 = 182; MoE 192 + router 16 + shared 96 + its gate 8 + norms 16 = 328;
# 160 + 264 + 3 x 182 + 4 x 328 + 8 = 2290
printf '{"model_type": "qwen3_next", "num_hidden_layers": 4, "hidden_size": 8, "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 4, "vocab_size": 10, "num_experts": 2, "num_experts_per_tok": 1, "moe_intermediate_size": 4, "shared_expert_intermediate_size": 4, "full_attention_interval": 4, "linear_conv_kernel_dim": 2, "linear_num_key_heads": 1, "linear_key_head_dim": 2, "linear_num_value_heads": 2, "linear_value_head_dim": 2}\n' > "$T/q3n.json"
expect 0 '"params":	2290,' import-hf "$T/q3n.json"
expect 0 '"layers":	3,' import-hf "$T/q3n.json"
# nemotron_h by hand: "M*-", h 8, 2 heads / 1 kv of 4, Mamba-2 2 heads x 2, 1 group, d_state 2,
# conv 2 with bias, MLP 4, vocab 10: mamba in_proj 112 + conv 16 + bias 8 + A/D/dt 6 + norm 4 +
# out 32 = 178; attention 192; MLP 64; a norm per block 24; 160 + 178 + 192 + 64 + 24 + 8 = 626
nem='"model_type": "nemotron_h", "num_hidden_layers": 3, "hidden_size": 8, "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 4, "intermediate_size": 4, "vocab_size": 10, "mamba_num_heads": 2, "mamba_head_dim": 2, "n_groups": 1, "ssm_state_size": 2, "conv_kernel": 2'
printf '{%s, "hybrid_override_pattern": "M*-"}\n' "$nem" > "$T/nem.json"
expect 0 '"params":	626,' import-hf "$T/nem.json"
expect 0 '"plain_layers":	1,' import-hf "$T/nem.json"
# review: the groups must divide the heads (3 groups for 2 heads)
sed 's/"n_groups": 1/"n_groups": 3/' "$T/nem.json" > "$T/nem-groups.json"
expect 2 "n_groups: 3 groups do not divide mamba_num_heads 2" import-hf "$T/nem-groups.json"
# review: the default id is the file's name without ".json"
cp "$T/nem.json" "$T/nemotronh.json"
expect 0 '"id":	"nemotronh",' import-hf "$T/nemotronh.json"
printf '{%s, "hybrid_override_pattern": "M*E"}\n' "$nem" > "$T/nem2.json"
expect 2 "hybrid_override_pattern: block 3 is 'E'" import-hf "$T/nem2.json"
printf '{%s, "hybrid_override_pattern": "M*"}\n' "$nem" > "$T/nem3.json"
expect 2 "hybrid_override_pattern: 2 blocks for num_hidden_layers 3" import-hf "$T/nem3.json"
printf '{%s, "hybrid_override_pattern": "MM-"}\n' "$nem" > "$T/nem4.json"
expect 2 "hybrid_override_pattern: no attention layer" import-hf "$T/nem4.json"
# a field given as 0 or an unknown precision is refused, not defaulted with a note
hf0='"model_type": "llama", "num_hidden_layers": 2, "hidden_size": 8, "num_attention_heads": 2, "vocab_size": 10, "intermediate_size": 4'
printf '{%s, "head_dim": 0}\n' "$hf0" > "$T/hd0.json"
expect 2 "hd0.json:1:135: head_dim: must be positive (leave it out for hidden_size / num_attention_heads)" import-hf "$T/hd0.json"
printf '{%s, "max_position_embeddings": 0}\n' "$hf0" > "$T/mpe0.json"
expect 2 "mpe0.json:1:135: max_position_embeddings: must be positive" import-hf "$T/mpe0.json"
printf '{%s, "torch_dtype": "float77"}\n' "$hf0" > "$T/f77.json"
expect 2 "f77.json: torch_dtype: 'float77' is not a precision kvplan knows" import-hf "$T/f77.json"
printf '{%s}\n' "$hf0" > "$T/hfabsent.json"
expect 0 "note: torch_dtype '' not understood: assumed bf16" import-hf "$T/hfabsent.json"
expect 0 "defaulted as transformers' LlamaConfig @008e574 (not in the config): max_position_embeddings 2048" import-hf "$T/hfabsent.json"
printf '{%s, "index_head_dim": 4, "index_n_heads": 2, "index_topk": 16, "kv_lora_rank": 0}\n' "$(printf '%s' "$hf0" | sed 's/"llama"/"deepseek_v32"/')" > "$T/dsa0.json"
expect 2 "kv_lora_rank: sparse attention needs index_head_dim and index_topk on an MLA model" import-hf "$T/dsa0.json"
# a snapshot's model with a state kind kvplan cannot size is refused, naming the field
"$K" plan --model granite-4.0-h-tiny --export "$T/gran.json" > /dev/null
sed 's/"kind":	"mamba2"/"kind":	"lstm"/' "$T/gran.json" > "$T/gran-lstm.json"
expect 2 "gran-lstm.json:42:5: state.kind: 'lstm' is not mamba, mamba2, gated-deltanet or kda" plan --load "$T/gran-lstm.json"
# granitemoehybrid by hand: mamba + attention, 2 heads of 4 = mamba_expand 1 x hidden 8 channels:
# in_proj 8 x (16 + 4 + 2) = 176 + conv 24 + bias 12 + A/D/dt 6 + norm 8 + out 64 = 290,
# attention 192, each layer MoE 208 + shared 96 + norms 16 = 320; tied 80 + 290 + 192 + 640 + 8 = 1210
gr='"model_type": "granitemoehybrid", "num_hidden_layers": 2, "hidden_size": 8, "num_attention_heads": 2, "num_key_value_heads": 1, "intermediate_size": 4, "shared_intermediate_size": 4, "num_local_experts": 2, "num_experts_per_tok": 1, "vocab_size": 10, "tie_word_embeddings": true, "mamba_n_heads": 2, "mamba_d_head": 4, "mamba_expand": 1, "mamba_n_groups": 1, "mamba_d_state": 2, "mamba_d_conv": 2'
printf '{%s, "layer_types": ["mamba", "attention"]}\n' "$gr" > "$T/gr.json"
expect 0 '"params":	1210,' import-hf "$T/gr.json"
# review: heads x head dim must be mamba_expand x hidden (2 x 4 is not 2 x 8)
sed 's/"mamba_expand": 1, //' "$T/gr.json" > "$T/gr-dims.json"
expect 2 "mamba_d_head: 2 heads of 4 are not mamba_expand 2 x hidden_size 8" import-hf "$T/gr-dims.json"
printf '{%s, "layer_types": ["mamba", "sliding"]}\n' "$gr" > "$T/gr2.json"
expect 2 'layer_types: entry 2 is not "mamba" or "attention"' import-hf "$T/gr2.json"
printf '{%s}\n' "$gr" > "$T/gr3.json"
expect 2 "layer_types: missing" import-hf "$T/gr3.json"
printf '{%s, "layer_types": ["mamba", "attention"], "mamba_ssm_cache_dtype": "float7"}\n' "$gr" > "$T/gr4.json"
expect 2 "mamba_ssm_cache_dtype: 'float7' is not a precision" import-hf "$T/gr4.json"
sed 's/"linear_num_value_heads": 2, //' "$T/q3n.json" > "$T/q3n-missing.json"
# a field the config leaves out takes Qwen3NextConfig's default, and says so
expect 0 "max_position_embeddings 32768, linear_num_value_heads 32" import-hf "$T/q3n-missing.json"
# a hybrid field no class defaults stays required
sed 's/"n_groups": 1, //' "$T/nem.json" > "$T/nem-nogroups.json"
expect 2 "n_groups: missing" import-hf "$T/nem-nogroups.json"
# jamba by hand: 2 layers (attention at i % 2 == 1, MoE at i % 2 == 1), h 8, d_inner 16, d_state 2,
# conv 2, dt_rank 1, 2 heads / 1 kv of 4, 2 experts of 4 top-1, vocab 10: Mamba-1 in_proj 256 +
# conv 32 + bias 16 + x_proj 80 + dt_proj 32 + A_log 32 + D 16 + out 128 + dt/B/C norms 5 = 597;
# attention 192; MoE 208; dense MLP 96; norms 32; 160 + 597 + 192 + 208 + 96 + 32 + 8 = 1293
jam='"model_type": "jamba", "num_hidden_layers": 2, "hidden_size": 8, "num_attention_heads": 2, "num_key_value_heads": 1, "intermediate_size": 4, "vocab_size": 10, "num_experts": 2, "num_experts_per_tok": 1, "expert_layer_period": 2, "expert_layer_offset": 1, "attn_layer_period": 2, "mamba_d_state": 2, "mamba_d_conv": 2, "mamba_dt_rank": 1'
printf '{%s, "attn_layer_offset": 1}\n' "$jam" > "$T/jam.json"
expect 0 '"params":	1293,' import-hf "$T/jam.json"
printf '{%s, "attn_layer_offset": 2}\n' "$jam" > "$T/jam2.json"
expect 2 "attn_layer_offset: 2 is not less than attn_layer_period 2" import-hf "$T/jam2.json"
# falcon_h1 by hand: 1 layer with attention and Mamba-2 side by side, h 8, 2 heads / 1 kv of 4,
# mamba_d_ssm 4 in 2 heads of 2, 1 group, d_state 2, conv 2 with bias, MLP 4, vocab 10: attention
# 192; mixer in_proj 112 + conv 16 + bias 8 + A/D/dt 6 + out 32 = 174 (+ 4 with mamba_rms_norm);
# MLP 96; norms 16; 160 + 192 + 174 + 96 + 16 + 8 = 646
fh='"model_type": "falcon_h1", "num_hidden_layers": 1, "hidden_size": 8, "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 4, "intermediate_size": 4, "vocab_size": 10, "mamba_d_ssm": 4, "mamba_n_heads": 2, "mamba_n_groups": 1, "mamba_d_state": 2, "mamba_d_conv": 2'
printf '{%s, "mamba_d_head": 2}\n' "$fh" > "$T/fh.json"
expect 0 '"params":	646,' import-hf "$T/fh.json"
expect 0 '"parallel":	true' import-hf "$T/fh.json"
printf '{%s, "mamba_d_head": 2, "mamba_rms_norm": true}\n' "$fh" > "$T/fh2.json"
expect 0 '"params":	650,' import-hf "$T/fh2.json"
printf '{%s, "mamba_d_head": 3}\n' "$fh" > "$T/fh3.json"
expect 2 "mamba_d_head: 2 heads of 3 are not mamba_d_ssm 4" import-hf "$T/fh3.json"
expect 0 "qwen3_next family, 79.674B parameters" import-hf "$HERE/data/hf/qwen3-next-80b-a3b.json"
# the plan at TP 4 (given: the default stages the 2 KV heads, TP 2 x PP 2): 36
# state layers x (12,288 + 262,144) B; vLLM's block 16 x ceil(274,432 /
# (16 x 1,024)) = 272 tokens; SGLang's state slots (of the pool less the 72 MiB of router
# gates every GPU holds whole); llama.cpp's F32 cells
expect_field 9879552 bytes_per_user_per_gpu --model qwen3-next-80b-a3b --gpus 4 --tp 4
expect_field 272 unit_tokens --model qwen3-next-80b-a3b --gpus 4 --tp 4 --engine vllm
expect_field 718 slots_per_replica --model qwen3-next-80b-a3b --gpus 4 --tp 4 --engine sglang --context 32k
expect_field 145539072 bytes_per_user_per_gpu --model nemotron-9b-v2 --gpu rtx-4090 --engine llamacpp
expect 0 "State per user      36 state layers" plan --model qwen3-next-80b-a3b --gpus 4 --tp 4
expect 0 "users' state" plan --model qwen3-next-80b-a3b --gpus 4
expect 0 "MambaHybridCacheManager" plan --model granite-4.0-h-tiny --engine trtllm
# review fixes (doc/MODEL.md, section 3). vLLM V1 with 4 draft tokens: a state group keeps 1 + 4 blocks a
# sequence (MambaSpec num_speculative_blocks); Qwen3-Next's MTP layer (1,650,471,424 params);
# SGLang caps a larger --max-running-requests at slots / 3 (174 / 3 = 58) and says so; the
# users' states are 58 x 143,548,416 B = 8,325,808,128 B, the 116 idle slots spare
expect 0 "(1 running state + 4 speculative tokens' states)" plan --model qwen3-next-80b-a3b --gpus 4 --engine vllm --draft-model qwen3-8b --num-speculative-tokens 4
expect 0 "\"mtp_params\":	1650471424," show model qwen3-next-80b-a3b --format json
expect 0 "MTP, 1 layer of Qwen3-Next 80B-A3B" plan --model qwen3-next-80b-a3b --gpus 4 --engine vllm --speculative-method mtp
expect 0 "SGLang caps max_running_requests at 58, its 174 state slots / 3" plan --model nemotron-9b-v2 --engine sglang --max-running-requests 300
expect_field 8325808128 used_bytes_per_gpu --model nemotron-9b-v2 --engine sglang
expect_field 24977424384 pool_bytes_per_gpu --model nemotron-9b-v2 --engine sglang
expect 0 "spare KV+state        34.17 GiB" plan --model nemotron-9b-v2 --engine sglang
expect 0 "its 1,024 state slots take 69.40 GiB per GPU, the pool holds 50.89 GiB" plan --model nemotron-9b-v2 --engine vllm@0 --max-num-seqs 1024
expect 0 "(1 + that ratio)" plan --model nemotron-9b-v2 --engine sglang
expect 0 "KV in 672-token blocks, enlarged from the block size 16" plan --model nemotron-9b-v2 --engine vllm --block-size 16
expect_not "enlarged from the block size" plan --model nemotron-9b-v2 --engine vllm@0
# --block-size as each engine starts with it (core/engine_desc.h refuses_block), exit 2
# and nothing written otherwise; 16, kvplan's default, stands for the engine's own.
# vLLM up to 0.17: vllm serve's choices, vllm/config/cache.py CacheConfig.block_size's
# BlockSize literal (256 from 0.11); from 0.18 an int; V1's attention kernels a
# multiple of 16 (vllm/v1/worker/utils.py select_common_block_size); V0 8, 16 or 32
expect 2 "kvplan: --block-size: 48 tokens a block under vLLM 0.13: refused at startup: not one of vllm serve's --block-size choices" plan --engine vllm@0.13 --block-size 48
expect 2 "256 tokens a block under vLLM 0.13 rule, for 0.10.2: refused at startup" plan --engine vllm@0.10.2 --block-size 256
expect 0 "KV in 256-token blocks" plan --engine vllm@0.11 --block-size 256
expect 0 "vllm serve meta-llama/Llama-3.1-8B --max-model-len 8192 --gpu-memory-utilization 0.90 --block-size 48" plan --engine vllm --block-size 48
expect 2 "8 tokens a block under vLLM 0.21: refused at startup: its attention kernels take a multiple of 16" plan --engine vllm --block-size 8
expect 2 "V0's paged-attention kernels take 8, 16 or 32" plan --engine vllm@0 --block-size 64
# an MLA backend's own block: FlashMLA's 64 over the 8 given (vllm/platforms/cuda.py), said
expect 0 "kvplan: warning: --block-size 8: vLLM 0.21 plans 64-token blocks instead: FlashMLA on Hopper takes a multiple of 64" plan --model deepseek-v3 --gpu h200 --gpus 8 --engine vllm --block-size 8
expect_not "kvplan: warning: --block-size" plan --model deepseek-v3 --gpu h200 --gpus 8 --engine vllm --block-size 128
# TensorRT-LLM: tokens_per_block a power of two (cpp/tensorrt_llm/kernels/kvCacheUtils.h)
expect 2 "48 tokens a block under TensorRT-LLM 1.x: refused: tokens_per_block must be a power of two" plan --engine trtllm --block-size 48
expect 0 "KV blocks           floor(54.72 GiB pool / (64 tokens per block" plan --engine trtllm --block-size 64
# SGLang's --page-size above 1 is not modelled; llama-server (llama.cpp, Ollama) has no block
expect 2 "64 tokens a block under SGLang 0.5: not modelled: it is SGLang's --page-size" plan --engine sglang --block-size 64
expect 0 "under SGLang 0.5" plan --engine sglang --block-size 1
expect 2 "32 tokens a block under llama.cpp 2026 builds: no block to size" plan --engine llama.cpp --block-size 32
expect 2 "32 tokens a block under Ollama 0.32: no block to size" plan --engine ollama --block-size 32
expect 0 "ceil(8,192 tokens in use / 7 per block)" plan --block-size 7
expect 2 "tokens_per_block must be a power of two" plan --engine trtllm --block-size 48 --export "$T/blk-none.json"
if [ -e "$T/blk-none.json" ]; then bad "a refused --block-size wrote its --export"; else ok; fi
# a snapshot's block is checked as the option is, naming the file and the option
"$K" plan --engine vllm --block-size 48 --export "$T/blk.json" > /dev/null 2>&1
sed 's/"name":\t"vllm"/"name":\t"vllm@0.13"/' "$T/blk.json" > "$T/blk13.json"
expect 0 "KV in 48-token blocks" plan --load "$T/blk.json"
expect 2 "blk13.json: scenario: --block-size: 48 tokens a block under vLLM 0.13: refused at startup" plan --load "$T/blk13.json"
# ... and another engine than the snapshot's takes its own block, as its cache type
expect 0 "in 32-token blocks" plan --load "$T/blk.json" --engine trtllm
expect 2 "tokens_per_block must be a power of two" plan --load "$T/blk.json" --engine trtllm --block-size 48
# --block-size 16 given is 16, not "the engine's own": TensorRT-LLM plans it and its launch
# line passes it (kv_cache_config.tokens_per_block); SGLang and llama.cpp refuse it as any
expect 0 "KV blocks           floor(54.72 GiB pool / (16 tokens per block" plan --engine trtllm --block-size 16
expect 0 "# --extra_llm_api_options: kv_cache_config: tokens_per_block: 16" plan --engine trtllm --block-size 16
expect 0 "KV blocks           floor(54.72 GiB pool / (32 tokens per block" plan --engine trtllm
expect 0 "the engine built with --tokens_per_block 128" plan --engine trtllm@trt --block-size 128
expect 2 "16 tokens a block under SGLang 0.5: not modelled" plan --engine sglang --block-size 16
expect 2 "16 tokens a block under llama.cpp 2026 builds: no block to size" plan --engine llama.cpp --block-size 16
# ... and a snapshot keeps it given (block_size_given), the copied command line too
"$K" plan --engine trtllm --block-size 16 --export "$T/blk16.json" > /dev/null 2>&1
expect 0 "(16 tokens per block" plan --load "$T/blk16.json"
"$K" plan --engine trtllm --export "$T/blk-own.json" > /dev/null 2>&1
expect 0 "(32 tokens per block" plan --load "$T/blk-own.json"
expect 0 "prefix caching keeps a hybrid model's states at block boundaries" plan --model nemotron-9b-v2 --engine vllm --prefix 1024
# SGLang with a draft: 48 x 5 draft tokens x 19,316,736 B = 4,636,016,640 B set aside first
expect_field 4636016640 spec_bytes_per_gpu --model qwen3-next-80b-a3b --gpus 4 --engine sglang --draft-model qwen3-8b --num-speculative-tokens 4
expect 0 "Mamba Cache is allocated" plan --model granite-4.0-h-tiny --engine sglang
expect_not "users' state" plan --model llama-3-8b

# --- make only checks its packages; it never runs apt-get (even as root)
mkdir -p "$T/fakebin"
printf '#!/bin/sh\ntouch "%s/apt-get-ran"\n' "$T" > "$T/fakebin/apt-get"
chmod +x "$T/fakebin/apt-get"
out=$(PATH="$T/fakebin:$PATH" sh "$HERE/../tools/deps.sh" cmd:kvplan-no-such-tool=kvplan-no-such-package 2>&1)
st=$?
if [ $st = 1 ] && [ ! -e "$T/apt-get-ran" ] &&
    printf '%s' "$out" | grep -qF "sudo apt-get install kvplan-no-such-package"; then ok
else bad "deps.sh: exit $st, apt-get ran: $([ -e "$T/apt-get-ran" ] && echo yes), $out"; fi

# the set-up path says what it installs: every package of tools/packages
out=$(sh "$HERE/../tools/setup.sh" --test --dry-run)
if printf '%s' "$out" | grep -qF "apt-get install -y --no-install-recommends gcc make pkg-config libncurses-dev libcjson-dev libcmocka-dev python3-pyte python3-pil tmux ncurses-bin procps"; then ok
else bad "setup.sh --test --dry-run: $out"; fi

# --- the --require-users gate for CI
expect 0 "users fit" plan --model llama-2-7b --context 4000 --require-users 20
expect 1 "--require-users: 27 users fit, 28 required" plan --model llama-2-7b --context 4000 --vram 80GB --weights 14GB --require-users 28

# --- malformed presets: every file in tests/data/bad-presets with its message
for f in "$HERE"/data/bad-presets/*.json; do
    name=$(basename "$f" .json)
    mkdir -p "$T/bad/$name"
    cp "$f" "$T/bad/$name/"
    want=$(cat "$HERE/data/bad-presets/$name.expect")
    out=$(cd "$T/bad" && "$K" list models --presets "$name" 2>&1)
    got=$?
    if [ $got = 2 ] && printf '%s' "$out" | grep -qF -- "$name/$want"; then ok
    else bad "bad preset $name: exit $got, message: $out (expected: $name/$want)"; fi
done
# a preset in the user's XDG directory is picked up (and errors there name it)
mkdir -p "$XDG_CONFIG_HOME/kvplan/presets"
sed 's/"id": "bad"/"id": "my-model"/' "$HERE/data/bad-presets/zero-layers.json" | sed 's/"num_layers": 0/"num_layers": 2/' > "$XDG_CONFIG_HOME/kvplan/presets/mine.json"
expect 0 "my-model" list models
cp "$HERE/data/bad-presets/zero-layers.json" "$XDG_CONFIG_HOME/kvplan/presets/broken.json"
expect 2 "kvplan/presets/broken.json:8:3: num_layers: 0 is out of range" list models
rm -rf "$XDG_CONFIG_HOME/kvplan"

# --- golden outputs (regenerate with `make golden` after checking the diff)
for g in "$HERE"/golden/*.args; do
    name=$(basename "$g" .args)
    for ext in txt json md; do
        [ -f "$HERE/golden/$name.$ext" ] || continue
        case $ext in txt) fmt=text ;; md) fmt=markdown ;; *) fmt=json ;; esac
        # shellcheck disable=SC2046
        if "$K" plan --format $fmt $(cat "$g") > "$T/out" 2>&1 && cmp -s "$T/out" "$HERE/golden/$name.$ext"; then ok
        else bad "golden $name.$ext differs:"; diff "$HERE/golden/$name.$ext" "$T/out" | head -10; fi
    done
done

# --- golden screens of the planner, rendered headless (text and attributes)
for g in "$HERE"/golden/screens/*.args; do
    name=$(basename "$g" .args)
    # shellcheck disable=SC2046
    if env -u NO_COLOR LC_ALL=C.UTF-8 "$K" --dump-screen "$T/screen" --dump-attrs $(cat "$g") 2>"$T/err" &&
        cmp -s "$T/screen" "$HERE/golden/screens/$name.screen"; then ok
    else bad "golden screen $name differs:"; cat "$T/err"; diff "$HERE/golden/screens/$name.screen" "$T/screen" | head -20; fi
done

# --- export and load: the file is what --format json prints; load reproduces it
"$K" plan --model gemma-3-27b --gpu h200 --gpus 2 --context 32k --prefix 1k --kv-dtype fp8 --format json > "$T/stdout.json"
"$K" plan --model gemma-3-27b --gpu h200 --gpus 2 --context 32k --prefix 1k --kv-dtype fp8 --export "$T/snap.json" > /dev/null
if cmp -s "$T/stdout.json" "$T/snap.json"; then ok; else bad "export differs from --format json"; fi
"$K" plan --load "$T/snap.json" --format json > "$T/loaded.json"
if cmp -s "$T/snap.json" "$T/loaded.json"; then ok; else bad "--load does not reproduce the snapshot"; fi
expect_field 65536 context_tokens --load "$T/snap.json" --context 64k
# a snapshot keeps its own specs: a preset directory overriding the model changes nothing
mkdir -p "$T/over"
sed 's/"id": "bad"/"id": "gemma-3-27b"/; s/"num_layers": 32/"num_layers": 2/' "$HERE/data/bad-presets/zero-layers.json" | sed 's/"num_layers": 0/"num_layers": 2/' > "$T/over/g.json"
"$K" plan --load "$T/snap.json" --presets "$T/over" --format json > "$T/loaded2.json"
if cmp -s "$T/snap.json" "$T/loaded2.json"; then ok; else bad "--load used the presets instead of the snapshot's specs"; fi
# failed exports leave the old file intact
echo "precious" > "$T/keep.json"
mkdir -p "$T/ro" && echo "precious" > "$T/ro/keep.json" && chmod 555 "$T/ro"
expect 2 "is a directory" plan --export "$T"
if [ "$(id -u)" != 0 ]; then
    expect 2 "cannot create a file" plan --export "$T/ro/keep.json"
else
    skip "export into a read-only directory: root may write there (checked below as nobody)"
fi
expect 2 "cannot create a file in its directory" plan --export "$T/no/such/dir/x.json"
# the message names the option, not only the file
expect 2 "kvplan: --export: $T/no/such/dir/x.json: cannot create" plan --export "$T/no/such/dir/x.json"
if [ "$(cat "$T/keep.json")" = precious ] && [ "$(cat "$T/ro/keep.json")" = precious ]; then ok; else bad "a failed export changed a file"; fi
chmod 755 "$T/ro"
# faults that must lose nothing: a full disk, a device that is full, a
# directory we may not write to (as an unprivileged user), a target that is a directory
expect 2 "/dev/full: is a character device, not a regular file: kvplan writes only regular files" plan --export /dev/full
if [ -c /dev/full ]; then ok; else bad "/dev/full was replaced by a file"; fi

# --- only regular files are written, and read
mkfifo "$T/fifo.json"
expect 2 "fifo.json: is a FIFO, not a regular file: kvplan writes only regular files" plan --export "$T/fifo.json"
# a planted symlink to a FIFO (or a device) is replaced by the file, never followed
ln -s "$T/fifo.json" "$T/planted.json"
expect 0 "users fit" plan --export "$T/planted.json"
if [ -f "$T/planted.json" ] && [ ! -L "$T/planted.json" ] && [ -p "$T/fifo.json" ]; then ok
else bad "the symlink to a FIFO was followed"; ls -la "$T"; fi
for cmd in "plan --export" "calibrate $HERE/data/logs/vllm-03.log --model llama-3-8b --save" \
           "import-hf $HERE/data/hf/gemma-3-27b.json -o" "--dump-screen"; do
    # shellcheck disable=SC2086
    expect 2 "fifo.json: is a FIFO, not a regular file" $cmd "$T/fifo.json"
done
expect 0 '"format":	"kvplan-scenario"' plan --export /dev/stdout
expect 0 "Context" --dump-screen - --size 80x24
# reading: every input refuses a FIFO at once (tests/hostile/cases), the
# user's XDG preset directory included
mkdir -p "$T/xdgfifo/kvplan/presets" && mkfifo "$T/xdgfifo/kvplan/presets/x.json"
out=$(XDG_CONFIG_HOME="$T/xdgfifo" timeout 30 "$K" plan 2>&1)
if [ $? = 2 ] && printf '%s' "$out" | grep -qF "x.json: is a FIFO"; then ok; else bad "XDG FIFO: $out"; fi
# preset directories with links back to themselves: each real directory once
# (one link reported a duplicate id of itself; six took 18 s)
mkdir -p "$T/loop" && cp "$HERE/hostile/data/dup-a.json" "$T/loop/"
ln -s . "$T/loop/l1"
expect 0 '"id":	"h"' list models --format json --presets "$T/loop"
for i in 2 3 4 5 6; do ln -s . "$T/loop/l$i"; done
mkdir -p "$T/loop/sub" && ln -s .. "$T/loop/sub/back"
expect 0 '"id":	"h"' list models --format json --presets "$T/loop"
# permissions: umask 077 gives 0600; a replaced file keeps its bits, never setuid
(umask 077 && "$K" plan --export "$T/private.json" > /dev/null)
if [ "$(stat -c %a "$T/private.json")" = 600 ]; then ok; else bad "umask 077 export is $(stat -c %a "$T/private.json")"; fi
chmod 4755 "$T/private.json"
"$K" plan --export "$T/private.json" > /dev/null
if [ "$(stat -c %a "$T/private.json")" = 755 ]; then ok; else bad "replaced export is $(stat -c %a "$T/private.json")"; fi
# a 254-character name: the temporary name beside it must fit too
long=$(printf '%0249d' 0).json
expect 0 "users fit" plan --export "$T/$long"
if [ -f "$T/$long" ]; then ok; else bad "no file with a 254-character name"; fi
rm -f "$T/$long" "$T/private.json" "$T/planted.json"
# signals mid-export (fault: a SIGTERM or SIGINT from inside fsync) leave no temporary file
FAULT="$T/signal_in_fsync.so"
if ${CC:-cc} -shared -fPIC -o "$FAULT" "$HERE/fault/signal_in_fsync.c" -ldl 2>/dev/null; then
    for sig in 15 2; do
        mkdir -p "$T/sig$sig" && echo precious > "$T/sig$sig/keep.json"
        ASAN_OPTIONS=verify_asan_link_order=0 LD_PRELOAD="$FAULT" KVPLAN_FAULT_SIGNAL=$sig \
            "$K" plan --export "$T/sig$sig/keep.json" > /dev/null 2>&1
        st=$?
        if [ $st = $((128 + sig)) ] && [ "$(ls "$T/sig$sig")" = keep.json ] &&
            [ "$(cat "$T/sig$sig/keep.json")" = precious ]; then ok
        else bad "signal $sig mid-export: exit $st, left: $(ls "$T/sig$sig")"; fi
    done
else
    bad "cannot build the signal fault library"
fi
if [ "$(id -u)" = 0 ] && mkdir -p "$T/small" && mount -t tmpfs -o size=16k tmpfs "$T/small" 2>/dev/null; then
    echo "precious" > "$T/small/keep.json"
    head -c 12000 /dev/zero > "$T/small/filler"
    expect 2 "write failed: No space left on device (the existing file, if any, is unchanged)" plan --model deepseek-v3 --export "$T/small/keep.json"
    if [ "$(cat "$T/small/keep.json")" = precious ] && [ "$(ls "$T/small" | wc -l)" = 2 ]; then ok
    else bad "a full disk changed the old file or left a temporary one"; ls -la "$T/small"; fi
    umount "$T/small"
else
    skip "a full disk: needs root and a tmpfs mount"
fi
if command -v setpriv >/dev/null && [ "$(id -u)" = 0 ]; then
    mkdir -p "$T/locked" && echo "precious" > "$T/locked/keep.json" && chmod 555 "$T/locked" && chmod 755 "$T"
    out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$K" plan --export "$T/locked/keep.json" 2>&1)
    st=$?
    if [ $st = 2 ] && printf '%s' "$out" | grep -qF "cannot create a file in its directory: Permission denied" &&
        [ "$(cat "$T/locked/keep.json")" = precious ]; then ok
    else bad "read-only directory: exit $st: $out"; fi
    chmod 755 "$T/locked"
else
    skip "a read-only directory as another user: needs root and setpriv"
fi

# bad snapshots
printf '{"format": "kvplan-scenario",\n "format_version": 4}\n' > "$T/v4.json"
expect 2 "v4.json:2:2: format_version: 4 is not supported" plan --load "$T/v4.json"
expect 2 "is a directory, not a file" plan --load "$T"
expect 2 "cannot open: No such file" plan --load "$T/missing.json"
expect 2 "kvplan: --load: $T/missing.md: cannot open" plan --load "$T/missing.md"
expect 2 "kvplan: --load: $T/missing.md: cannot open" --load "$T/missing.md" --dump-screen -
expect 2 "kvplan: --calibration: $T/missing.md: cannot open" plan --calibration "$T/missing.md"
expect 2 "kvplan: --load: $T/v4.json:2:2: format_version" plan --load "$T/v4.json" --scenario x
sed 's/"context_tokens":	32768/"context_tokens":	"lots"/' "$T/snap.json" > "$T/badctx.json"
expect 2 "context_tokens: expected a positive integer" plan --load "$T/badctx.json"

# --- Apple silicon: a first token from the preset's measured prefill rate
# (tools/fit_apple.py). pp512 of Llama 2 7B F16 on the M4 Max: 6.969 TFLOP /
# 12.691 TFLOPS + 32 layers x 178 us = 554.82 ms (llama-bench: 512 / 922.83
# tok/s = 554.8 ms, discussion #4167); before, "no compute figure"
expect 0 "= 554.82 ms" plan --engine llama.cpp --gpu apple-m4-max --model llama-2-7b \
    --weight-dtype fp16 --context 640 --prompt 512 --concurrency 1
expect_not "no compute figure" plan --engine llama.cpp --gpu apple-m4-max --model llama-3.1-8b
expect 0 '"ttft_basis":	"fitted"' plan --engine llama.cpp --gpu apple-m4-max --model llama-3.1-8b --format json
# a first-token target on a Mac is checked now: 8k prompt of Llama 3.1 8B, 11.88 s
expect 0 "the first token takes longer than 5 s" plan --engine llama.cpp --gpu apple-m4-max \
    --model llama-3.1-8b --max-ttft 5
expect 0 "measured_fp16_tflops" show gpu apple-m3-max

# a sweep row where no count keeps the service level serves no throughput (plan's null)
rows=$("$K" sweep --vary context=32k..32k --min-tok-s 50 --max-ttft 0.5 --format json 2>&1)
if printf '%s' "$rows" | grep -q '"users_at_service_level":[[:space:]]*0,' &&
   printf '%s' "$rows" | grep -q '"tokens_per_s_total":[[:space:]]*null'; then ok; else
    bad "sweep at a level nobody keeps: $(printf '%s' "$rows" | head -c 300)"; fi

# calibrate's comparison under the generic rule (a TGI log) says what it finds, not nothing
expect 0 "the weights do not fit at tensor parallel 1 on a100-80gb (give --tp N, the log's layout)" calibrate "$L/tgi-01.log" --model llama-2-70b --gpu a100-80gb
expect 0 "KV cache tokens: 522,718 per replica (the generic rule logs no line)" calibrate "$L/tgi-01.log" --model llama-2-70b --gpu a100-80gb --tp 4

# vLLM serves DeepSeek V4 from 0.20.1 (its recipe): an older release asked for is refused by name
expect 2 "deepseek-v4-flash: vLLM 0.20.0 predates DeepSeek V4, which it serves from 0.20.1: take --engine vllm@0.20.1 or later" plan --model deepseek-v4-flash --gpu h200 --gpus 8 --tp 8 --engine vllm@0.20.0
expect 2 "vLLM 0.19 predates DeepSeek V4" plan --model deepseek-v4-flash --gpu h200 --gpus 8 --tp 8 --engine vllm@0.19
expect 0 "vLLM 0.20 rule, for 0.20.1" plan --model deepseek-v4-flash --gpu h200 --gpus 8 --tp 8 --engine vllm@0.20.1
# the log line's tokens in JSON, in the release's form (gemma-3-27b: windowed groups)
expect_field 150371 logged_kv_tokens --model gemma-3-27b --gpu h100-sxm --engine vllm --context 128k

# vLLM's window and state groups: its pool frees the blocks behind a window (the users: each
# holds its windows, one prefill set aside); its Maximum concurrency counts a whole batch in each
# for every request, said beside them (policy_vllm.c group_layers, one_request)
expect 0 "185 users fit at 8,192 tokens each under vLLM 0.21; vLLM logs a Maximum concurrency of 4.18x, as if every request were prefilling a whole batch at once" plan --model deepseek-v4-flash --gpu b200 --engine vllm --context 8k
expect 0 "4 users fit at 32,768 tokens each under vLLM 0.21; vLLM logs a Maximum concurrency of 2.43x" plan --model gemma-3-27b --gpu h100-sxm --engine vllm --context 32k
expect_field 4 users_per_replica --model gemma-3-27b --gpu h100-sxm --engine vllm --context 32k
expect_field 2 counted_users_per_replica --model gemma-3-27b --gpu h100-sxm --engine vllm --context 32k
expect_not "Maximum concurrency of" plan --model llama-3.1-8b --engine vllm

# a model's own first release under an engine (its preset's served_from): a release before it,
# or a pinned rule all of whose releases are, refused by name; a release from it planned
expect 2 "deepseek-v3.2: vLLM 0.10 predates it, which it serves from 0.11.0 (kvplan show model deepseek-v3.2 cites where): take --engine vllm@0.11.0 or later" plan --model deepseek-v3.2 --engine vllm@0.10 --gpu b200 --gpus 8
expect 0 "vLLM 0.13 rule, for 0.11" plan --model deepseek-v3.2 --engine vllm@0.11 --gpu b200 --gpus 8
expect 2 "qwen3.6-27b: vllm@0.13's releases (before 0.14) predate it, which vLLM serves from 0.17.0" plan --model qwen3.6-27b --engine vllm@0.13
expect 2 "trtllm@0.7's releases (before 0.8) predate it, which TensorRT-LLM serves from 1.3.0rc9" plan --model qwen3.6-27b --engine trtllm@0.7
expect 2 "llama.cpp b7000 predates it, which it serves from b7171" plan --model qwen3-next-80b-a3b --engine llama.cpp@b7000 --gpu h200 --gpus 2
expect 0 '"served_from_source":	"vLLM v0.19.0 release notes: Gemma 4 support' show model gemma-4-31b

# an engine with '@' and nothing after it is refused, not read as the newest; the Markdown
# title names the release asked for as the text's does; MLA's query heads, not KV heads, split
expect 2 "'vllm@': name a release or a rule after '@' (vllm@latest, or see kvplan list engines)" plan --engine vllm@
expect 0 "### Llama 3.1 8B on 1 x NVIDIA H100 SXM5 80GB, SGLang 0.5 rule, for 0.5.6" plan --engine sglang@0.5.6 --format markdown
expect 2 "evenly (MLA: one latent, no KV heads): SGLang refuses it (models/deepseek_v2.py, DeepseekV2AttentionMLA.__init__)" plan --model kimi-k3 --gpu gb300 --gpus 36 --tp 36 --engine sglang
expect 0 "DeepSeek-V4-Flash (FP4 experts)   284.33B" list models

# simulate's means beside how far they were off on public runs of the kind, family and engine
# (core/loadband.h, tools/gen_load_bands.py, doc/LOAD-BANDS.md); none over capacity
SIMX="--engine sglang --gpu mi300x --gpus 8 --tp 8 --model deepseek-v3 --weight-dtype fp8 --kv-dtype fp8 --random-input-len 8192 --random-output-len 1024 --max-concurrency 4 --num-prompts 8 --context 16590"
expect 0 "over 15 MoE CDNA 3/SGLang cases" simulate $SIMX
expect 0 '"measured_spread":	null' simulate --model llama-3.1-8b --gpu h100-sxm --request-rate 500 --num-prompts 2000 --format json
expect 0 "(the measured time against the simulated, on public serving runs below their knee: doc/LOAD-BANDS.md)" simulate $SIMX
expect 0 '"group":	"MoE CDNA 3/SGLang"' simulate $SIMX --format json
# the plan's own warnings under the run (the speed it rests on)
expect 0 "! fine-grained MoE: its speed rests on a fit by GPU family" simulate --gpu h200 --gpus 8 --model deepseek-v3 --engine vllm --num-prompts 20
expect 0 "none under llama.cpp" simulate --engine llama.cpp --gpu rtx-4090 --model llama-3.1-8b --request-rate 1 --num-prompts 20
expect 0 "; MBU given" simulate $SIMX --mbu 0.7
expect_not "Measured    mean TTFT" simulate --model llama-3.1-8b --gpu h100-sxm --request-rate 500 --num-prompts 2000
expect 0 "over capacity" simulate --model llama-3.1-8b --gpu h100-sxm --request-rate 500 --num-prompts 2000

# a plan's workload options where requests are simulated: refused, naming the requests' own
expect 2 "--prompt: a plan's figure, not a simulated request's: the simulated requests' prompts are --random-input-len" simulate --prompt 128
expect 2 "--concurrency: a plan's figure, not a simulated request's: the requests the client keeps in flight are --max-concurrency" simulate --concurrency 4
expect 2 "--output-len: a plan's figure, not a simulated request's: the tokens each simulated request generates are --random-output-len" sweep --vary max-concurrency=8..16 --output-len 500 --prompt 2000 --context 4k
expect 2 "--prompt: a plan's figure" solve --request-rate 5 --goodput tpot:100 --prompt 1024
expect 2 "--output-len" simulate --output-len 100

# every byte every command above printed is text (no controls but \n and \t)
/usr/bin/python3 "$HERE/check_printable.py" "$T" || failed=$((failed + 1))
echo "cli: $pass passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
