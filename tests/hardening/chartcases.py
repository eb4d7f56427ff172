"""The scenarios a user found the planner's chart and memory legend wanting
in, shared by the tests that read them off the screen: the default model at
64k, 128k and 256k (7, 3 and 1 users), DeepSeek-V3.2 on 8 x H200 under vLLM
at 64k (8), Llama 3.1 70B on 4 GPUs under vLLM with a 2k prefix and a
draft (a 589 MiB draft and a 176 MiB prefix beside tens of GiB), a hybrid
model, and a service level."""

CASES = {
    "default 64k": ["--context", "64k"],
    "default 128k": ["--context", "128k"],
    "default 256k": ["--context", "256k"],
    "deepseek h200 vllm 64k": ["--model", "deepseek-v3.2", "--gpu", "h200", "--gpus", "8",
                               "--engine", "vllm", "--context", "64k"],
    "70b prefix draft": ["--model", "llama-3.1-70b", "--gpus", "4", "--engine", "vllm",
                         "--context", "32k", "--prefix", "2k", "--draft-model", "llama-3.2-1b"],
    "qwen3-next vllm": ["--model", "qwen3-next-80b-a3b", "--gpus", "4", "--engine", "vllm"],
    "service level": ["--context", "16k", "--min-tok-s", "40"],
}
